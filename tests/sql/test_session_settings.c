/*
 * test_session_settings.c - the one settings list (include/floe/sql_settings.h)
 * seen through every path: SHOW, SET, RESET, current_setting(),
 * set_config(), pg_settings and fl_sql_get/fl_sql_set. For every setting of
 * the list: SHOW = current_setting = pg_settings.setting (in base units) at
 * start, after SET, after set_config and after RESET; FIXED settings
 * refuse SET and set_config with 55P02 and keep their value; connection
 * values given with fl_sql_set_default (what pgwire does for is_superuser
 * and max_connections) show the same everywhere and survive RESET ALL.
 * Custom dotted settings, unknown names (42704) and bad values (22023).
 */
#include <strings.h>

#include "floe/sql_settings.h"
#include "sql/stmt_test_util.h"

static stmt_env E;

/* A value each settable setting takes, and what SHOW then prints. */
static const char *const NEWVAL[][3] = {
    {"application_name", "my app", "my app"},
    {"bytea_output", "hex", "hex"},
    {"client_encoding", "utf-8", "UTF8"},
    {"client_min_messages", "warning", "warning"},
    {"DateStyle", "ISO, DMY", "ISO, DMY"},
    {"default_transaction_isolation", "serializable", "serializable"},
    {"default_transaction_read_only", "on", "on"},
    {"default_with_oids", "off", "off"},
    {"escape_string_warning", "off", "off"},
    {"extra_float_digits", "3", "3"},
    {"geqo", "false", "off"},
    {"idle_in_transaction_session_timeout", "10", "10"},
    {"IntervalStyle", "postgres", "postgres"},
    {"jit", "on", "on"},
    {"lc_messages", "C.UTF-8", "C.UTF-8"},
    {"lc_monetary", "C.UTF-8", "C.UTF-8"},
    {"lc_numeric", "C.UTF-8", "C.UTF-8"},
    {"lc_time", "C.UTF-8", "C.UTF-8"},
    {"lock_timeout", "25", "25"},
    {"memory_limit", "1048576", "1048576"},
    {"row_security", "off", "off"},
    {"search_path", "other", "other"},
    {"spill_dir", "/tmp/x", "/tmp/x"},
    {"standard_conforming_strings", "on", "on"},
    {"statement_timeout", "5000", "5s"},
    {"synchronous_commit", "off", "off"},
    {"threads", "3", "3"},
    {"TimeZone", "Europe/Paris", "Europe/Paris"},
    {"transaction_isolation", "repeatable read", "repeatable read"},
    {"transaction_read_only", "off", "off"},
    {"work_mem", "8MB", "8MB"},
};

static const char *const *newval(const char *name)
{
    for (size_t i = 0; i < sizeof NEWVAL / sizeof NEWVAL[0]; i++)
        if (!strcasecmp(NEWVAL[i][0], name))
            return NEWVAL[i];
    return NULL;
}

static void sqlstate_is(const char *want)
{
    fl_sql_error_info info;
    fl_sql_last_error(E.s, &info);
    CHECK_EQ_STR(info.sqlstate, want);
}

/* SHOW, current_setting and pg_settings agree on name's value `show`. */
static void agree(const char *name, const char *show)
{
    char sql[256], want[300];
    snprintf(sql, sizeof sql, "SHOW \"%s\"", name);
    RUN_OK(&E, sql);
    snprintf(want, sizeof want, "%s\n", show);
    CHECK_EQ_STR(E.rows, want);
    snprintf(sql, sizeof sql, "SELECT current_setting('%s')", name);
    RUN_OK(&E, sql);
    CHECK_EQ_STR(E.rows, want);
    snprintf(sql, sizeof sql, "SELECT setting FROM pg_settings WHERE name = '%s'", name);
    RUN_OK(&E, sql);
    if (!strcmp(name, "statement_timeout")) /* pg_settings: base unit (ms), as PG */
        snprintf(want, sizeof want, "%s\n", fl_sql_get(E.s, name));
    CHECK_EQ_STR(E.rows, want);
    if (strcmp(E.rows, want))
        fprintf(stderr, "  (setting %s)\n", name);
}

static void test_every_setting(void)
{
    size_t n;
    const fl_setting_def *d = fl_sql_setting_defs(&n);
    CHECK(n >= 40);
    RUN_OK(&E, "SELECT count(*) FROM pg_settings");
    char cnt[32];
    snprintf(cnt, sizeof cnt, "%zu\n", n);
    CHECK_EQ_STR(E.rows, cnt);
    for (size_t i = 0; i < n; i++) {
        char sql[256];
        const char *start = fl_sql_setting_show(E.s, d[i].name);
        CHECK(start != NULL);
        char before[128];
        snprintf(before, sizeof before, "%s", start ? start : "");
        agree(d[i].name, before);
        const char *const *nv = newval(d[i].name);
        if (d[i].flags & FL_SET_FIXED) {
            CHECK(nv == NULL);
            snprintf(sql, sizeof sql, "SET %s = '1'", d[i].name);
            RUN_ERR(&E, sql, FL_EINVAL, "cannot be changed");
            sqlstate_is("55P02");
            snprintf(sql, sizeof sql, "SELECT set_config('%s', '1', false)", d[i].name);
            RUN_ERR(&E, sql, FL_EINVAL, "cannot be changed");
            sqlstate_is("55P02");
            agree(d[i].name, before);
            continue;
        }
        CHECK(nv != NULL); /* every settable setting is tested */
        if (!nv)
            continue;
        snprintf(sql, sizeof sql, "SET \"%s\" = '%s'", d[i].name, nv[1]);
        RUN_OK(&E, sql);
        agree(d[i].name, nv[2]);
        snprintf(sql, sizeof sql, "RESET \"%s\"", d[i].name);
        if (strcmp(d[i].name, "search_path") && strcmp(d[i].name, "spill_dir")) {
            RUN_OK(&E, sql);
            agree(d[i].name, fl_sql_setting_reset_val(E.s, d[i].name));
        }
        snprintf(sql, sizeof sql, "SELECT set_config('%s', '%s', false)", d[i].name, nv[1]);
        RUN_OK(&E, sql);
        char want[200];
        snprintf(want, sizeof want, "%s\n", nv[2]);
        CHECK_EQ_STR(E.rows, want);
        agree(d[i].name, nv[2]);
        /* back to where it was */
        fl_error err = {0};
        CHECK_OK(fl_sql_set(E.s, d[i].name, before, &err), &err);
    }
}

static void test_connection_values(void)
{
    fl_error err = {0};
    /* what pgwire gives a connection: no other list can disagree any more */
    CHECK_OK(fl_sql_set_default(E.s, "is_superuser", "off", &err), &err);
    CHECK_OK(fl_sql_set_default(E.s, "max_connections", "64", &err), &err);
    CHECK_OK(fl_sql_set_default(E.s, "application_name", "psql", &err), &err);
    agree("is_superuser", "off");
    agree("max_connections", "64");
    agree("application_name", "psql");
    RUN_OK(&E, "SET application_name = 'other'");
    agree("application_name", "other");
    RUN_OK(&E, "RESET ALL");
    agree("application_name", "psql"); /* the connection's value is the default */
    agree("is_superuser", "off");
    RUN_OK(&E, "SELECT reset_val, context FROM pg_settings WHERE name = 'max_connections'");
    CHECK_EQ_STR(E.rows, "64|postmaster\n");
    RUN_ERR(&E, "SET max_connections = 5", FL_EINVAL, "without restarting the server");
    sqlstate_is("55P02");
    CHECK_EQ_STR(fl_sql_get(E.s, "is_superuser"), "off");
    CHECK(fl_sql_set(E.s, "is_superuser", "on", &err) == FL_EINVAL);
    CHECK_EQ_STR(fl_sql_set_sqlstate(E.s), "55P02");
}

static void test_custom_unknown_bad(void)
{
    RUN_OK(&E, "SET myapp.Tenant = 'acme'");
    agree("myapp.tenant", "acme");
    RUN_OK(&E, "SELECT set_config('myapp.tenant', 'other', false), current_setting('myapp.tenant')");
    CHECK_EQ_STR(E.rows, "other|other\n");
    RUN_OK(&E, "SELECT category FROM pg_settings WHERE name = 'myapp.tenant'");
    CHECK_EQ_STR(E.rows, "Customized Options\n");
    RUN_ERR(&E, "SHOW myapp.never", FL_ENOTFOUND, "unrecognized configuration parameter");
    sqlstate_is("42704");
    RUN_OK(&E, "SELECT current_setting('myapp.never', true) IS NULL");
    CHECK_EQ_STR(E.rows, "t\n");
    RUN_ERR(&E, "SET no_such_setting = 1", FL_ENOTFOUND, "unrecognized configuration parameter");
    sqlstate_is("42704");
    RUN_ERR(&E, "SELECT current_setting('no_such_setting')", FL_ENOTFOUND, "unrecognized");
    sqlstate_is("42704");
    RUN_ERR(&E, "SET client_encoding = 'LATIN1'", FL_EINVAL, "UTF8");
    sqlstate_is("22023");
    RUN_ERR(&E, "SET geqo = 'maybe'", FL_EINVAL, "invalid value");
    sqlstate_is("22023");
    RUN_ERR(&E, "SET extra_float_digits = 'x'", FL_EINVAL, "invalid value");
    sqlstate_is("22023");
    /* an unknown time zone is refused at SET (PostgreSQL), not at the first timestamp */
    RUN_ERR(&E, "SET TimeZone = 'Mars/Olympus'", FL_EINVAL, "invalid value for parameter");
    sqlstate_is("22023");
    RUN_ERR(&E, "SET TIME ZONE 'Nowhere'", FL_EINVAL, "\"Nowhere\"");
    RUN_OK(&E, "SET TIME ZONE '+02:00'");
    RUN_OK(&E, "SET TimeZone = 'America/New_York'");
    RUN_OK(&E, "RESET TimeZone");
    RUN_OK(&E, "SHOW ALL");
    CHECK(strstr(E.rows, "myapp.tenant|other\n") != NULL);
    CHECK(strstr(E.rows, "server_version|15.0\n") != NULL);
    CHECK(strstr(E.rows, "DateStyle|ISO, MDY\n") != NULL);
}

int main(void)
{
    if (stmt_env_open(&E) != 0) {
        fprintf(stderr, "setup: %s\n", E.err.msg);
        return 1;
    }
    TEST_RUN(test_every_setting);
    TEST_RUN(test_connection_values);
    TEST_RUN(test_custom_unknown_bad);
    stmt_env_close(&E);
    return TEST_EXIT();
}
