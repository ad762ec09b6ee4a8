/*
 * test_session_limits.c - the operator's ceilings on a session
 * (fl_sql_options.max_memory_limit, max_statement_timeout_ms,
 * statement_timeout_ms, spill_dir_fixed; src/sql/session/session_limits.c):
 * the session starts within them, SET / set_config / RESET / SET ... TO
 * DEFAULT / fl_sql_set_default past a ceiling are refused with 42501 and a
 * message naming it, RESET goes back to the opening value, the default
 * statement_timeout stops a long query (57014), spill_dir cannot move
 * (55P02); a session without ceilings behaves as before.
 */
#include "floe/sql_settings.h"
#include "floe_test.h"

static fl_sql_session *open_with(uint64_t max_mem, uint64_t max_to, uint64_t to, bool fixed)
{
    fl_sql_options o;
    memset(&o, 0, sizeof o);
    o.threads = 2;
    o.max_memory_limit = max_mem;
    o.max_statement_timeout_ms = max_to;
    o.statement_timeout_ms = to;
    o.spill_dir_fixed = fixed;
    o.spill_dir = "/tmp";
    fl_sql_session *s = NULL;
    fl_error err;
    CHECK_OK(fl_sql_session_open(&o, &s, &err), &err);
    return s;
}

static const char *state(fl_sql_session *s)
{
    static fl_sql_error_info info;
    fl_sql_last_error(s, &info);
    return info.sqlstate;
}

/* One statement; its status (SQLSTATE in state(s)), first row in out. */
static fl_status sql(fl_sql_session *s, const char *q, char *out, size_t cap)
{
    fl_error err;
    fl_status rc = ft_run(s, q, ";", out, cap, &err);
    if (rc != FL_OK)
        snprintf(out, cap, "%s", err.msg);
    return rc;
}

static void test_opening_values(void)
{
    fl_sql_session *s = open_with((uint64_t)1 << 30, 600000, 30000, true);
    if (!s)
        return;
    char out[1024];
    CHECK_EQ_STR(fl_sql_get(s, "memory_limit"), "1073741824"); /* 0 (80% of RAM) clamped */
    CHECK_OK(sql(s, "SHOW statement_timeout", out, sizeof out), &(fl_error){0});
    CHECK_EQ_STR(out, "30s;");
    fl_sql_session_close(s);
    /* a default above the ceiling starts at the ceiling; none starts at it too */
    s = open_with(0, 600000, 0, false);
    if (!s)
        return;
    CHECK_EQ_STR(fl_sql_get(s, "statement_timeout"), "600000");
    fl_sql_session_close(s);
}

static void test_memory_ceiling(void)
{
    fl_sql_session *s = open_with((uint64_t)1 << 30, 0, 0, false);
    if (!s)
        return;
    char out[1024];
    fl_error err;
    CHECK(fl_sql_set(s, "memory_limit", "3GB", &err) == FL_EFORBIDDEN);
    CHECK(strstr(err.msg, "3GB") && strstr(err.msg, "ceiling is 1GB"));
    CHECK_EQ_STR(fl_sql_set_sqlstate(s), "42501");
    CHECK(fl_sql_set(s, "memory_limit", "0", &err) == FL_EFORBIDDEN); /* 80% of RAM */
    CHECK(fl_sql_set_default(s, "memory_limit", "2GB", &err) == FL_EFORBIDDEN);
    CHECK(sql(s, "SET memory_limit = '3GB'", out, sizeof out) == FL_EFORBIDDEN);
    CHECK_EQ_STR(state(s), "42501");
    CHECK(strstr(out, "ceiling is 1GB") != NULL);
    CHECK(sql(s, "SELECT set_config('memory_limit', '4GB', false)", out, sizeof out) != FL_OK);
    CHECK_EQ_STR(state(s), "42501");
    CHECK_EQ_STR(fl_sql_get(s, "memory_limit"), "1073741824");
    /* within: fine; RESET and TO DEFAULT: back to the opening value */
    CHECK_OK(sql(s, "SET memory_limit = '512MB'", out, sizeof out), &(fl_error){0});
    CHECK_EQ_STR(fl_sql_get(s, "memory_limit"), "536870912");
    CHECK_OK(sql(s, "RESET memory_limit", out, sizeof out), &(fl_error){0});
    CHECK_EQ_STR(fl_sql_get(s, "memory_limit"), "1073741824");
    CHECK_OK(sql(s, "SET memory_limit = '512MB'", out, sizeof out), &(fl_error){0});
    CHECK_OK(sql(s, "SET memory_limit TO DEFAULT", out, sizeof out), &(fl_error){0});
    CHECK_EQ_STR(fl_sql_get(s, "memory_limit"), "1073741824");
    CHECK_OK(sql(s, "RESET ALL", out, sizeof out), &(fl_error){0});
    CHECK_EQ_STR(fl_sql_get(s, "memory_limit"), "1073741824");
    fl_sql_session_close(s);
}

static void test_timeout_ceiling(void)
{
    fl_sql_session *s = open_with(0, 600000, 30000, false);
    if (!s)
        return;
    char out[1024];
    CHECK(sql(s, "SET statement_timeout = 0", out, sizeof out) == FL_EFORBIDDEN);
    CHECK_EQ_STR(state(s), "42501");
    CHECK(strstr(out, "ceiling is 10min") != NULL);
    CHECK(sql(s, "SET statement_timeout = '11min'", out, sizeof out) == FL_EFORBIDDEN);
    CHECK(sql(s, "SET statement_timeout = '2h'", out, sizeof out) == FL_EFORBIDDEN);
    CHECK_OK(sql(s, "SET statement_timeout = '5min'", out, sizeof out), &(fl_error){0});
    CHECK_OK(sql(s, "SHOW statement_timeout", out, sizeof out), &(fl_error){0});
    CHECK_EQ_STR(out, "5min;");
    CHECK_OK(sql(s, "RESET statement_timeout", out, sizeof out), &(fl_error){0});
    CHECK_OK(sql(s, "SHOW statement_timeout", out, sizeof out), &(fl_error){0});
    CHECK_EQ_STR(out, "30s;");
    fl_sql_session_close(s);
}

/* The server's default statement_timeout applies without any SET. */
static void test_default_timeout_fires(void)
{
    fl_sql_session *s = open_with(0, 0, 300, false);
    if (!s)
        return;
    char out[1024];
    CHECK(sql(s, "SELECT count(*) FROM generate_series(1, 4000000000000)", out, sizeof out) ==
          FL_ECANCELED);
    CHECK_EQ_STR(state(s), "57014");
    CHECK(strstr(out, "statement timeout") != NULL);
    CHECK_OK(sql(s, "SELECT 1", out, sizeof out), &(fl_error){0});
    fl_sql_session_close(s);
}

static void test_spill_dir_fixed(void)
{
    fl_sql_session *s = open_with(0, 0, 0, true);
    if (!s)
        return;
    char out[1024];
    fl_error err;
    CHECK(fl_sql_set(s, "spill_dir", "/etc", &err) != FL_OK);
    CHECK_EQ_STR(fl_sql_set_sqlstate(s), "55P02");
    CHECK(sql(s, "SET spill_dir = '/etc'", out, sizeof out) != FL_OK);
    CHECK_EQ_STR(state(s), "55P02");
    CHECK(sql(s, "RESET spill_dir", out, sizeof out) != FL_OK);
    CHECK_EQ_STR(state(s), "55P02");
    CHECK(sql(s, "SELECT set_config('spill_dir', '/', false)", out, sizeof out) != FL_OK);
    CHECK_EQ_STR(fl_sql_get(s, "spill_dir"), "/tmp");
    fl_sql_session_close(s);
}

/* No ceilings: as before (any memory_limit; RESET to the built-in 0). */
static void test_no_ceilings(void)
{
    fl_sql_session *s = open_with(0, 0, 0, false);
    if (!s)
        return;
    char out[1024];
    CHECK_OK(sql(s, "SET memory_limit = '3GB'", out, sizeof out), &(fl_error){0});
    CHECK_EQ_STR(fl_sql_get(s, "memory_limit"), "3221225472");
    CHECK_OK(sql(s, "RESET memory_limit", out, sizeof out), &(fl_error){0});
    CHECK_EQ_STR(fl_sql_get(s, "memory_limit"), "0");
    CHECK_OK(sql(s, "SET statement_timeout = 0", out, sizeof out), &(fl_error){0});
    CHECK_OK(sql(s, "SET spill_dir = '/tmp/elsewhere'", out, sizeof out), &(fl_error){0});
    fl_sql_session_close(s);
}

int main(void)
{
    TEST_RUN(test_opening_values);
    TEST_RUN(test_memory_ceiling);
    TEST_RUN(test_timeout_ceiling);
    TEST_RUN(test_default_timeout_fires);
    TEST_RUN(test_spill_dir_fixed);
    TEST_RUN(test_no_ceilings);
    return TEST_EXIT();
}
