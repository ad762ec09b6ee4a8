/*
 * session_setting_defs.c - the list of run-time settings (design in
 * session_settings.h) and what each prints: SHOW / current_setting()
 * (fl_sql_setting_show), pg_settings.setting (fl_sql_setting_raw) and
 * pg_settings.reset_val (fl_sql_setting_reset_val).
 *
 * Built-in values are PostgreSQL 15's defaults for a UTF8 server in the
 * C.UTF-8 locale, except where floe differs on purpose (is_superuser is
 * "on" for an embedded session, whose user owns the files; `floe serve`
 * gives each connection its principal's value, and max_connections its
 * --max-connections, through fl_sql_set_default).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/session/session_internal.h"

#define E FL_SET_ENGINE
#define R FL_SET_REPORT
#define F FL_SET_FIXED

static const fl_setting_def DEFS[] = {
    {"application_name", "string", "", NULL, R, "Sets the application name to be reported."},
    {"block_size", "integer", "8192", NULL, F, "Shows the size of a disk block."},
    {"bytea_output", "enum", "hex", NULL, 0, "Sets the output format for bytea."},
    {"client_encoding", "string", "UTF8", NULL, R, "Sets the client's character set encoding."},
    {"client_min_messages", "enum", "notice", NULL, 0,
     "Sets the message levels that are sent to the client."},
    {"DateStyle", "string", "ISO, MDY", NULL, R,
     "Sets the display format for date and time values."},
    {"default_transaction_isolation", "enum", "read committed", NULL, 0,
     "Sets the transaction isolation level of each new transaction."},
    {"default_transaction_read_only", "bool", "off", NULL, 0,
     "Sets the default read-only status of new transactions."},
    {"default_with_oids", "bool", "off", NULL, 0, "WITH OIDS is no longer supported."},
    {"escape_string_warning", "bool", "on", NULL, 0,
     "Warn about backslash escapes in ordinary string literals."},
    {"extra_float_digits", "integer", "1", NULL, 0,
     "Sets the number of digits displayed for floating-point values."},
    {"geqo", "bool", "on", NULL, 0, "Enables genetic query optimization."},
    {"idle_in_transaction_session_timeout", "integer", "0", "ms", 0,
     "Sets the maximum allowed idle time between queries, when in a transaction."},
    {"integer_datetimes", "bool", "on", NULL, R | F, "Shows whether datetimes are integer based."},
    {"IntervalStyle", "enum", "postgres", NULL, R, "Sets the display format for interval values."},
    {"is_superuser", "bool", "on", NULL, R | F,
     "Shows whether the current user is a superuser."},
    {"jit", "bool", "off", NULL, 0, "Allow JIT compilation."},
    {"lc_collate", "string", "C.UTF-8", NULL, F, "Shows the collation order locale."},
    {"lc_ctype", "string", "C.UTF-8", NULL, F,
     "Shows the character classification and case conversion locale."},
    {"lc_messages", "string", "C", NULL, 0, "Sets the language in which messages are displayed."},
    {"lc_monetary", "string", "C", NULL, 0, "Sets the locale for formatting monetary amounts."},
    {"lc_numeric", "string", "C", NULL, 0, "Sets the locale for formatting numbers."},
    {"lc_time", "string", "C", NULL, 0, "Sets the locale for formatting date and time values."},
    {"lock_timeout", "integer", "0", "ms", 0,
     "Sets the maximum allowed duration of any wait for a lock."},
    {"max_connections", "integer", "100", NULL, F | FL_SET_RESTART,
     "Sets the maximum number of concurrent connections."},
    {"max_identifier_length", "integer", "63", NULL, F,
     "Shows the maximum identifier length."},
    {"max_index_keys", "integer", "32", NULL, F, "Shows the maximum number of index keys."},
    {"memory_limit", "integer", NULL, "B", E,
     "floe: operator memory before spilling (0 = 80% of RAM)."},
    {"row_security", "bool", "on", NULL, 0, "Enable row security."},
    {"search_path", "string", NULL, NULL, E,
     "Sets the schema search order for names that are not schema-qualified."},
    {"server_encoding", "string", "UTF8", NULL, R | F,
     "Shows the server (database) character set encoding."},
    {"server_version", "string", "15.0", NULL, R | F, "Shows the server version."},
    {"server_version_num", "integer", "150000", NULL, F,
     "Shows the server version as an integer."},
    {"session_authorization", "string", NULL, NULL, R | F,
     "Sets the session user name."},
    {"spill_dir", "string", NULL, NULL, E, "floe: folder of spill files (default $TMPDIR)."},
    {"standard_conforming_strings", "bool", "on", NULL, R,
     "Causes '...' strings to treat backslashes literally."},
    {"statement_timeout", "integer", NULL, "ms", E,
     "Sets the maximum allowed duration of any statement."},
    {"synchronous_commit", "enum", "on", NULL, 0,
     "Sets the current transaction's synchronization level."},
    {"threads", "integer", NULL, NULL, E, "floe: worker threads (0 = online CPUs)."},
    {"TimeZone", "string", NULL, NULL, E | R,
     "Sets the time zone for displaying and interpreting time stamps."},
    {"transaction_isolation", "enum", "read committed", NULL, 0,
     "Sets the current transaction's isolation level."},
    {"transaction_read_only", "bool", "off", NULL, 0,
     "Sets the current transaction's read-only status."},
    {"work_mem", "string", "4MB", NULL, 0,
     "Sets the maximum memory to be used for query workspaces."},
};
#define NDEFS (sizeof DEFS / sizeof DEFS[0])

const fl_setting_def *fl_sql_setting_defs(size_t *n)
{
    *n = NDEFS;
    return DEFS;
}

const fl_setting_def *fl_sql_setting_def(const char *name)
{
    if (!name)
        return NULL;
    if (!strcasecmp(name, "time_zone") || !strcasecmp(name, "time zone"))
        name = "TimeZone";
    for (size_t i = 0; i < NDEFS; i++)
        if (!strcasecmp(DEFS[i].name, name))
            return &DEFS[i];
    return NULL;
}

const char *fl_sql_setting_reset_val(fl_sql_session *s, const char *name)
{
    const fl_setting_def *d = fl_sql_setting_def(name);
    if (!d)
        return NULL;
    if (d->flags & FL_SET_ENGINE) {
        if (!strcasecmp(d->name, "TimeZone"))
            return "UTC";
        if (!strcasecmp(d->name, "search_path"))
            return "default";
        if (!strcasecmp(d->name, "spill_dir"))
            return "";
        return "0";
    }
    size_t i = (size_t)(d - DEFS);
    if (s && s->set_reset && s->set_reset[i])
        return s->set_reset[i];
    if (!d->boot) /* session_authorization */
        return s && s->user ? s->user : "floe";
    return d->boot;
}

const char *fl_sql_setting_raw(fl_sql_session *s, const char *name)
{
    const fl_setting_def *d = fl_sql_setting_def(name);
    if (!d) { /* custom */
        const char *n, *v;
        for (uint32_t i = 0; s && fl_sql_setting_custom(s, i, &n, &v); i++)
            if (!strcasecmp(n, name))
                return v;
        return NULL;
    }
    if (d->flags & FL_SET_ENGINE)
        return s ? fl_sql_get(s, d->name) : fl_sql_setting_reset_val(NULL, d->name);
    size_t i = (size_t)(d - DEFS);
    if (s && s->set_cur && s->set_cur[i])
        return s->set_cur[i];
    return fl_sql_setting_reset_val(s, d->name);
}

const char *fl_sql_setting_show(fl_sql_session *s, const char *name)
{
    const fl_setting_def *d = fl_sql_setting_def(name);
    const char *v = fl_sql_setting_raw(s, name);
    if (!v || !d || !s || strcmp(d->name, "statement_timeout") != 0)
        return v;
    /* PostgreSQL shows the largest unit that divides the value */
    long long ms = atoll(v);
    if (ms > 0 && ms % 60000 == 0)
        snprintf(s->showbuf, sizeof s->showbuf, "%lldmin", ms / 60000);
    else if (ms > 0 && ms % 1000 == 0)
        snprintf(s->showbuf, sizeof s->showbuf, "%llds", ms / 1000);
    else if (ms > 0)
        snprintf(s->showbuf, sizeof s->showbuf, "%lldms", ms);
    else
        snprintf(s->showbuf, sizeof s->showbuf, "0");
    return s->showbuf;
}

bool fl_sql_setting_custom(const fl_sql_session *s, uint32_t i, const char **name,
                           const char **value)
{
    if (!s || i >= s->ncustom)
        return false;
    *name = s->custom_names[i];
    *value = s->custom_vals[i];
    return true;
}

const char *fl_sql_set_sqlstate(const fl_sql_session *s)
{
    return s && s->set_state[0] ? s->set_state : "22023";
}

fl_status fl_session_settings_init(fl_sql_session *s, fl_error *err)
{
    s->set_cur = calloc(NDEFS, sizeof *s->set_cur);
    s->set_reset = calloc(NDEFS, sizeof *s->set_reset);
    if (!s->set_cur || !s->set_reset)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return FL_OK;
}

void fl_session_settings_free(fl_sql_session *s)
{
    for (size_t i = 0; i < NDEFS; i++) {
        if (s->set_cur)
            free(s->set_cur[i]);
        if (s->set_reset)
            free(s->set_reset[i]);
    }
    free(s->set_cur);
    free(s->set_reset);
    for (uint32_t i = 0; i < s->ncustom; i++) {
        free(s->custom_names[i]);
        free(s->custom_vals[i]);
    }
    free(s->custom_names);
    free(s->custom_vals);
    s->set_cur = s->set_reset = s->custom_names = s->custom_vals = NULL;
    s->ncustom = 0;
}
