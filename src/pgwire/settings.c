/*
 * settings.c - SET/SHOW/RESET, DISCARD and DEALLOCATE.
 *
 * Names the engine knows (fl_sql_get != NULL: time_zone/TimeZone,
 * search_path, statement_timeout, memory_limit, threads, spill_dir) go to
 * fl_sql_set. The PostgreSQL settings clients send on connect
 * (extra_float_digits, application_name, client_min_messages, DateStyle,
 * client_encoding (UTF8 only), bytea_output (hex only), lock_timeout...)
 * live in the connection, with PostgreSQL's defaults, are shown by SHOW and
 * SHOW ALL, and the "reported" ones (GUC_REPORT) are echoed back with
 * ParameterStatus when they change. Custom names with a dot are accepted
 * as PostgreSQL does; other unknown names are 42704. Names are
 * case-insensitive; values are stored as given.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/pgtypes.h"
#include "pgwire/pgw.h"

static const char *const DEFAULTS[][2] = {
    {"application_name", ""},
    {"bytea_output", "hex"},
    {"client_encoding", "UTF8"},
    {"client_min_messages", "notice"},
    {"DateStyle", "ISO, MDY"},
    {"default_transaction_isolation", "read committed"},
    {"default_transaction_read_only", "off"},
    {"extra_float_digits", "1"},
    {"idle_in_transaction_session_timeout", "0"},
    {"integer_datetimes", "on"},
    {"IntervalStyle", "postgres"},
    {"is_superuser", "off"},
    {"lc_messages", "C"},
    {"lc_monetary", "C"},
    {"lc_numeric", "C"},
    {"lc_time", "C"},
    {"lock_timeout", "0"},
    {"max_identifier_length", "63"},
    {"row_security", "on"},
    {"server_encoding", "UTF8"},
    {"server_version", "15.0"},
    {"server_version_num", "150000"},
    {"session_authorization", ""},
    {"standard_conforming_strings", "on"},
    {"transaction_isolation", "read committed"},
    {"transaction_read_only", "off"},
    {"geqo", "on"},
    {"jit", "off"},
    {"work_mem", "4MB"},
    {"max_connections", "64"},
    {"default_with_oids", "off"},
    {"escape_string_warning", "on"},
    {"synchronous_commit", "on"},
};
#define NDEFAULTS (sizeof DEFAULTS / sizeof *DEFAULTS)

static const char *const REPORTED[] = {
    "application_name", "client_encoding", "DateStyle", "integer_datetimes", "IntervalStyle",
    "is_superuser", "server_encoding", "server_version", "session_authorization",
    "standard_conforming_strings", "TimeZone"};

static const char *canonical(const char *name)
{
    for (size_t i = 0; i < NDEFAULTS; i++)
        if (!strcasecmp(DEFAULTS[i][0], name))
            return DEFAULTS[i][0];
    return NULL;
}

static bool reported(const char *name)
{
    for (size_t i = 0; i < sizeof REPORTED / sizeof *REPORTED; i++)
        if (!strcasecmp(REPORTED[i], name))
            return true;
    return false;
}

const char *pgw_setting_get(pgw_conn *c, const char *name)
{
    for (uint32_t i = 0; i < c->nsettings; i++)
        if (!strcasecmp(c->settings[i].name, name))
            return c->settings[i].value;
    return NULL;
}

void pgw_setting_put(pgw_conn *c, const char *name, const char *value)
{
    for (uint32_t i = 0; i < c->nsettings; i++)
        if (!strcasecmp(c->settings[i].name, name)) {
            char *v = strdup(value);
            if (v) {
                free(c->settings[i].value);
                c->settings[i].value = v;
            }
            return;
        }
    if (c->nsettings >= PGW_MAX_SETTINGS)
        return;
    char *n = strdup(name), *v = strdup(value);
    if (!n || !v) {
        free(n);
        free(v);
        return;
    }
    c->settings[c->nsettings].name = n;
    c->settings[c->nsettings].value = v;
    c->nsettings++;
}

void pgw_settings_free(pgw_conn *c)
{
    for (uint32_t i = 0; i < c->nsettings; i++) {
        free(c->settings[i].name);
        free(c->settings[i].value);
    }
    c->nsettings = 0;
}

void pgw_settings_defaults(pgw_conn *c)
{
    for (size_t i = 0; i < NDEFAULTS; i++)
        pgw_setting_put(c, DEFAULTS[i][0], DEFAULTS[i][1]);
}

static bool engine_name(pgw_conn *c, const char *name)
{
    return c->sess && fl_sql_get(c->sess, name) != NULL;
}

static bool check_value(pgw_conn *c, const char *name, const char *v)
{
    if (!strcasecmp(name, "client_encoding") && strcasecmp(v, "UTF8") && strcasecmp(v, "UTF-8") &&
        strcasecmp(v, "unicode")) {
        pgw_send_error(c, "ERROR", "22023", 0,
                       "client_encoding \"%s\" is not supported: floe speaks UTF8 only", v);
        return false;
    }
    if (!strcasecmp(name, "DateStyle") && !strcasestr(v, "ISO")) {
        pgw_send_error(c, "ERROR", "22023", 0,
                       "DateStyle \"%s\" is not supported: floe writes ISO dates only", v);
        return false;
    }
    if (!strcasecmp(name, "IntervalStyle") && strcasecmp(v, "postgres")) {
        pgw_send_error(c, "ERROR", "22023", 0, "IntervalStyle \"%s\" is not supported", v);
        return false;
    }
    if (!strcasecmp(name, "bytea_output") && strcasecmp(v, "hex")) {
        pgw_send_error(c, "ERROR", "22023", 0, "bytea_output \"%s\" is not supported", v);
        return false;
    }
    return true;
}

static const char *default_of(const char *name)
{
    for (size_t i = 0; i < NDEFAULTS; i++)
        if (!strcasecmp(DEFAULTS[i][0], name))
            return DEFAULTS[i][1];
    return NULL;
}

static bool set_one(pgw_conn *c, const char *name, const char *value, bool to_default)
{
    if (engine_name(c, name)) {
        fl_error err = {0};
        fl_status rc = fl_sql_set(c->sess, name, to_default ? NULL : value, &err);
        if (rc != FL_OK && to_default && !strcasecmp(name, "timezone"))
            rc = fl_sql_set(c->sess, name, "UTC", &err);
        if (rc != FL_OK) {
            pgw_send_error(c, "ERROR", rc == FL_ENOTFOUND ? "42704" : "22023", 0, "%s", err.msg);
            return false;
        }
        if (!strcasecmp(name, "timezone") || !strcasecmp(name, "time_zone"))
            pgw_send_status(c, "TimeZone", fl_sql_get(c->sess, "time_zone"));
        return true;
    }
    const char *canon = canonical(name);
    if (!canon && !strchr(name, '.')) {
        pgw_send_error(c, "ERROR", "42704", 0, "unrecognized configuration parameter \"%s\"",
                       name);
        return false;
    }
    if (to_default)
        value = canon ? default_of(canon) : "";
    if (!strcasecmp(name, "DateStyle") && strcasestr(value, "ISO") && !strchr(value, ','))
        value = "ISO, MDY";
    if (!check_value(c, name, value))
        return false;
    if (!strcasecmp(name, "client_encoding"))
        value = "UTF8";
    pgw_setting_put(c, canon ? canon : name, value);
    if (reported(name))
        pgw_send_status(c, canon ? canon : name, value);
    return true;
}

bool pgw_run_set(pgw_conn *c, const pgw_class *k)
{
    if (!set_one(c, k->name, k->value, k->set_default))
        return false;
    pgw_send_complete(c, "SET");
    return true;
}

bool pgw_run_reset(pgw_conn *c, const pgw_class *k)
{
    if (k->reset_all) {
        for (size_t i = 0; i < NDEFAULTS; i++)
            if (strcmp(DEFAULTS[i][0], "session_authorization") &&
                strcmp(DEFAULTS[i][0], "is_superuser"))
                set_one(c, DEFAULTS[i][0], DEFAULTS[i][1], false);
        fl_error err = {0};
        fl_sql_set(c->sess, "time_zone", "UTC", &err);
        fl_sql_set(c->sess, "statement_timeout", "0", &err);
        pgw_send_status(c, "TimeZone", fl_sql_get(c->sess, "time_zone"));
    } else if (!set_one(c, k->name, NULL, true)) {
        return false;
    }
    pgw_send_complete(c, "RESET");
    return true;
}

static void one_text_col(pgw_conn *c, const char *name, uint32_t ncols, const char *const *names)
{
    pgw_begin(c, 'T');
    pgw_put_i16(c, (int16_t)ncols);
    for (uint32_t i = 0; i < ncols; i++) {
        pgw_put_str(c, ncols == 1 ? name : names[i]);
        pgw_put_i32(c, 0);
        pgw_put_i16(c, 0);
        pgw_put_i32(c, FL_PG_OID_TEXT);
        pgw_put_i16(c, -1);
        pgw_put_i32(c, -1);
        pgw_put_i16(c, 0);
    }
    pgw_end(c);
}

static void text_row(pgw_conn *c, uint32_t n, const char *const *vals)
{
    pgw_begin(c, 'D');
    pgw_put_i16(c, (int16_t)n);
    for (uint32_t i = 0; i < n; i++) {
        pgw_put_i32(c, (int32_t)strlen(vals[i]));
        pgw_put(c, vals[i], strlen(vals[i]));
    }
    pgw_end(c);
}

static const char *show_value(pgw_conn *c, const char *name)
{
    if (!strcasecmp(name, "timezone") || !strcasecmp(name, "time zone"))
        return fl_sql_get(c->sess, "time_zone");
    if (engine_name(c, name))
        return fl_sql_get(c->sess, name);
    return pgw_setting_get(c, name);
}

static const char *const ALLCOLS[] = {"name", "setting", "description"};

void pgw_show_describe(pgw_conn *c, const pgw_class *k)
{
    if (!strcasecmp(k->name, "all"))
        one_text_col(c, NULL, 3, ALLCOLS);
    else
        one_text_col(c, k->name, 1, NULL);
}

bool pgw_run_show(pgw_conn *c, const pgw_class *k, bool send_desc)
{
    if (!strcasecmp(k->name, "all")) {
        if (send_desc)
            pgw_show_describe(c, k);
        uint32_t n = 0;
        static const char *const ENGINE[] = {"memory_limit", "search_path", "spill_dir",
                                             "statement_timeout", "threads", "TimeZone"};
        for (size_t i = 0; i < sizeof ENGINE / sizeof *ENGINE; i++) {
            const char *v = show_value(c, ENGINE[i]);
            const char *row[3] = {ENGINE[i], v ? v : "", ""};
            text_row(c, 3, row);
            n++;
        }
        for (uint32_t i = 0; i < c->nsettings; i++) {
            const char *row[3] = {c->settings[i].name, c->settings[i].value, ""};
            text_row(c, 3, row);
            n++;
        }
        char tag[32];
        snprintf(tag, sizeof tag, "SHOW");
        pgw_send_complete(c, tag);
        return true;
    }
    const char *v = show_value(c, k->name);
    if (!v) {
        pgw_send_error(c, "ERROR", "42704", 0, "unrecognized configuration parameter \"%s\"",
                       k->name);
        return false;
    }
    if (send_desc)
        pgw_show_describe(c, k);
    text_row(c, 1, &v);
    pgw_send_complete(c, "SHOW");
    return true;
}

bool pgw_run_discard(pgw_conn *c, const pgw_class *k)
{
    if (k->all) {
        if (c->txn != 'I') {
            pgw_send_error(c, "ERROR", "25001", 0,
                           "DISCARD ALL cannot run inside a transaction block");
            return false;
        }
        pgw_close_portals(c, false);
        pgw_free_stmts(c);
        pgw_class r;
        memset(&r, 0, sizeof r);
        r.reset_all = true;
        pgw_flush(c);
        size_t keep = c->out_len; /* drop reset's own CommandComplete */
        pgw_run_reset(c, &r);
        if (!c->io_failed)
            c->out_len = keep;
    }
    pgw_send_complete(c, k->tag);
    return true;
}

bool pgw_run_deallocate(pgw_conn *c, const pgw_class *k)
{
    if (!k->name[0]) {
        pgw_free_stmts(c);
    } else if (!pgw_stmt_drop(c, k->name)) {
        pgw_send_error(c, "ERROR", "26000", 0, "prepared statement \"%s\" does not exist",
                       k->name);
        return false;
    }
    pgw_send_complete(c, k->tag);
    return true;
}
