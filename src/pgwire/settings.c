/*
 * settings.c - SET/SHOW/RESET, DISCARD and DEALLOCATE.
 *
 * Every setting lives in the SQL session: the one list of
 * include/floe/sql_settings.h (also behind pg_settings, current_setting()
 * and the SQL path's SET/SHOW), so pgwire keeps no list of its own. SET
 * calls fl_sql_set (its SQLSTATE: 42704 unknown, 22023 bad value, 55P02
 * cannot be changed); the connection's own values (application_name from
 * the startup packet, session_authorization, is_superuser,
 * max_connections) are session defaults (fl_sql_set_default), so RESET
 * returns to them. Settings flagged REPORT (GUC_REPORT) are echoed with
 * ParameterStatus when SET/RESET changes them. Custom names with a dot are
 * accepted as PostgreSQL does.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/pgtypes.h"
#include "pgwire/pgw.h"
#include "floe/sql_settings.h"

const char *pgw_setting_get(pgw_conn *c, const char *name)
{
    return c->sess ? fl_sql_setting_show(c->sess, name) : NULL;
}

void pgw_setting_put(pgw_conn *c, const char *name, const char *value)
{
    fl_error err = {0};
    if (c->sess && fl_sql_set_default(c->sess, name, value, &err) != FL_OK)
        fprintf(stderr, "pgwire: setting %s: %s\n", name, err.msg);
}

/* ParameterStatus for a reported setting (its canonical name and value). */
static void report(pgw_conn *c, const char *name)
{
    const fl_setting_def *d = fl_sql_setting_def(name);
    if (!d || !(d->flags & FL_SET_REPORT))
        return;
    const char *v = fl_sql_setting_show(c->sess, d->name);
    pgw_send_status(c, d->name, v ? v : "");
}

void pgw_report_all(pgw_conn *c)
{
    size_t n;
    const fl_setting_def *d = fl_sql_setting_defs(&n);
    for (size_t i = 0; i < n; i++)
        report(c, d[i].name);
}

static bool set_one(pgw_conn *c, const char *name, const char *value, bool to_default)
{
    fl_error err = {0};
    fl_status rc = fl_sql_set(c->sess, name, to_default ? NULL : value, &err);
    if (rc != FL_OK) {
        pgw_send_error(c, "ERROR", fl_error_sqlstate(&err), 0, "%s", err.msg);
        return false;
    }
    report(c, name);
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
        fl_error err = {0};
        if (fl_sql_reset_all(c->sess, &err) != FL_OK) {
            pgw_send_error(c, "ERROR", fl_error_sqlstate(&err), 0, "%s", err.msg);
            return false;
        }
        size_t n;
        const fl_setting_def *d = fl_sql_setting_defs(&n);
        for (size_t i = 0; i < n; i++)
            if (!(d[i].flags & FL_SET_FIXED))
                report(c, d[i].name);
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
    return c->sess ? fl_sql_setting_show(c->sess, name) : NULL;
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
        size_t n;
        const fl_setting_def *d = fl_sql_setting_defs(&n);
        for (size_t i = 0; i < n; i++) {
            const char *v = show_value(c, d[i].name);
            const char *row[3] = {d[i].name, v ? v : "", d[i].desc};
            text_row(c, 3, row);
        }
        const char *cn, *cv;
        for (uint32_t i = 0; fl_sql_setting_custom(c->sess, i, &cn, &cv); i++) {
            const char *row[3] = {cn, cv, ""};
            text_row(c, 3, row);
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
