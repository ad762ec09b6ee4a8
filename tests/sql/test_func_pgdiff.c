/* test_func_pgdiff.c - differential test against PostgreSQL: each case is a
 * function or operator applied to typed literals; floe evaluates it through
 * fl_expr_call and PostgreSQL through libpq (same session TimeZone), and the
 * text outputs must be identical. Needs FLOE_PG_URL (set by
 * tests/interop/test_sql_func_pg.sh, which starts a throwaway server);
 * without it the test is skipped (77). */
#include <libpq-fe.h>

#include "sql/func_test_util.h"

typedef struct pgcase {
    const char *fn;      /* function name or operator */
    const char *args[4]; /* "type:value" ("null:" for an untyped NULL) */
    const char *tz;      /* session zone, NULL = UTC */
} pgcase;

static const pgcase CASES[] = {
    {"+", {"integer:2147483600", "integer:47"}, NULL},
    {"*", {"numeric(15,2):1234.56", "numeric(15,2):0.07"}, NULL},
    {"-", {"numeric(15,2):1.10", "integer:1"}, NULL},
    {"%", {"numeric(5,1):-7.5", "integer:2"}, NULL},
    {"/", {"integer:-7", "integer:2"}, NULL},
    {"/", {"double precision:1", "double precision:3"}, NULL},
    {"*", {"double precision:0.1", "double precision:3"}, NULL},
    {"round", {"numeric(10,4):2.5050", "integer:2"}, NULL},
    {"round", {"numeric(10,4):-2.5050", "integer:2"}, NULL},
    {"round", {"double precision:2.5"}, NULL},
    {"trunc", {"numeric(10,4):-2.5059", "integer:3"}, NULL},
    {"floor", {"numeric(10,4):-2.5"}, NULL},
    {"abs", {"bigint:-9000000000"}, NULL},
    {"power", {"double precision:2", "double precision:0.5"}, NULL},
    {"sqrt", {"double precision:10"}, NULL},
    {"exp", {"double precision:2"}, NULL},
    {"ln", {"double precision:10"}, NULL},
    {"<", {"text:B", "text:a"}, NULL},
    {"=", {"numeric(10,2):1.50", "numeric(12,3):1.5"}, NULL},
    {"<", {"date:2024-01-01", "timestamp:2024-01-01 00:00:01"}, NULL},
    {"lower", {"text:ÀÉÎ Straße"}, NULL},
    {"upper", {"text:àéî straße"}, NULL},
    {"length", {"text:naïve café"}, NULL},
    {"substring", {"text:naïve café", "integer:3", "integer:4"}, NULL},
    {"strpos", {"text:naïve café", "text:café"}, NULL},
    {"replace", {"text:aaaa", "text:aa", "text:b"}, NULL},
    {"split_part", {"text:a||b||c", "text:||", "integer:3"}, NULL},
    {"btrim", {"text:  x  "}, NULL},
    {"rtrim", {"text:xxhixx", "text:x"}, NULL},
    {"lpad", {"text:héllo", "integer:8", "text:ab"}, NULL},
    {"left", {"text:héllo", "integer:-1"}, NULL},
    {"initcap", {"text:the QUICK brown"}, NULL},
    {"concat_ws", {"text:-", "text:a", "null:", "integer:3"}, NULL},
    {"~~", {"text:Straße", "text:%aß_"}, NULL},
    {"~~*", {"text:STRASSE", "text:%ss%"}, NULL},
    {"regexp_replace", {"text:2024-01-02", "text:(\\d+)-(\\d+)-(\\d+)", "text:\\3/\\2/\\1"}, NULL},
    {"md5", {"text:floe"}, NULL},
    {"date_trunc", {"text:week", "timestamp:2024-02-29 13:14:15"}, NULL},
    {"date_trunc", {"text:month", "timestamptz:2024-03-10 12:00:00"}, "America/New_York"},
    {"date_part", {"text:dow", "date:2024-02-29"}, NULL},
    {"extract", {"text:isoyear", "date:2021-01-01"}, NULL},
    {"extract", {"text:week", "date:2021-01-01"}, NULL},
    {"extract", {"text:epoch", "timestamptz:2024-07-01 12:00:00.25+02"}, NULL},
    {"extract", {"text:hour", "timestamptz:2024-07-01 12:00:00+00"}, "Asia/Kolkata"},
    {"+", {"date:2024-01-31", "interval:1 month"}, NULL},
    {"+", {"timestamptz:2024-11-02 12:00:00", "interval:1 day"}, "America/New_York"},
    {"-", {"timestamptz:2024-11-04 00:00:00", "timestamptz:2024-11-03 00:00:00"}, "America/New_York"},
    {"-", {"date:2024-03-01", "integer:1"}, NULL},
    {"age", {"timestamp:2024-03-31", "timestamp:2024-02-29 12:00"}, NULL},
    {"*", {"interval:1 mon 1 day", "double precision:1.5"}, NULL},
    {"timezone", {"text:Europe/London", "timestamptz:2024-06-01 00:00:00+00"}, NULL},
    {"timezone", {"text:Australia/Lord_Howe", "timestamp:2024-01-01 00:00:00"}, NULL},
    {"to_char", {"timestamp:2024-07-04 09:05:03.250", "text:Day, DD Month YYYY HH12:MI:SS.US AM Q IW"}, NULL},
    {"make_date", {"integer:2024", "integer:2", "integer:29"}, NULL},
    {"greatest", {"numeric(4,1):1.5", "numeric(4,1):2", "null:"}, NULL},
    {"nullif", {"text:a", "text:a"}, NULL},
    {"->>", {"json:{\"a\":{\"b\":[1,2]}}", "text:a"}, NULL},
    {"json_extract_path_text", {"json:{\"a\":{\"b\":[1,\"x\"]}}", "text:a", "text:b", "text:1"}, NULL},
    {"::date", {"text:January 8, 99 BC"}, NULL},
    {"::date", {"text:1999.01.08"}, NULL},
    {"::timestamp", {"text:2024-02-29T23:59:59.9999995"}, NULL},
    {"::timestamptz", {"text:2024-06-01 00:00 Europe/Berlin"}, "Asia/Tokyo"},
    {"::interval", {"text:-1 year -2 mons +3 days -04:05:06"}, NULL},
    {"::interval", {"text:1 day ago"}, NULL},
    {"::interval", {"text:100 hours"}, NULL},
    {"::double precision", {"text:  -1.5e-7 "}, NULL},
    {"::double precision", {"text:123456789012345678901234"}, NULL},
    {"::real", {"text:0.1"}, NULL},
    {"::numeric(10,3)", {"text:12.34567"}, NULL},
    {"::numeric(10,3)", {"text:-0.0005"}, NULL},
    {"::bigint", {"text:-9223372036854775808"}, NULL},
    {"::boolean", {"text:  off "}, NULL},
    {"::text", {"double precision:1e-300"}, NULL},
    {"::text", {"real:16777216"}, NULL},
    {"::text", {"bytea:\\x00ff"}, NULL},
    {"::integer", {"double precision:-2.5"}, NULL},
    {"::integer", {"numeric(5,1):-2.5"}, NULL},
    {"::date", {"timestamptz:2024-01-01 03:00:00+00"}, "America/Los_Angeles"},
    {"::time", {"timestamp:2024-01-01 03:04:05.06"}, NULL},
    {NULL, {NULL}, NULL},
};

static const char *pg_eval(PGconn *pg, const pgcase *c, char *sql, size_t cap)
{
    size_t o = 0;
    bool op = !((c->fn[0] >= 'a' && c->fn[0] <= 'z') || c->fn[0] == '_');
    char lits[4][256];
    int n = 0;
    for (; n < 4 && c->args[n]; n++) {
        const char *colon = strchr(c->args[n], ':');
        if (!strncmp(c->args[n], "null:", 5))
            snprintf(lits[n], sizeof lits[n], "NULL");
        else
            snprintf(lits[n], sizeof lits[n], "'%s'::%.*s", colon + 1, (int)(colon - c->args[n]), c->args[n]);
    }
    o += (size_t)snprintf(sql + o, cap - o, "SET TimeZone = '%s'; SELECT ", c->tz ? c->tz : "UTC");
    if (!strncmp(c->fn, "::", 2))
        o += (size_t)snprintf(sql + o, cap - o, "(%s)%s", lits[0], c->fn);
    else if (!strcmp(c->fn, "extract")) /* extract(field FROM x) */
        o += (size_t)snprintf(sql + o, cap - o, "extract(%s from %s)", strchr(c->args[0], ':') + 1, lits[1]);
    else if (op && n == 2)
        o += (size_t)snprintf(sql + o, cap - o, "(%s %s %s)", lits[0], c->fn, lits[1]);
    else if (op)
        o += (size_t)snprintf(sql + o, cap - o, "(%s %s)", c->fn, lits[0]);
    else {
        o += (size_t)snprintf(sql + o, cap - o, "%s(", c->fn);
        for (int k = 0; k < n; k++)
            o += (size_t)snprintf(sql + o, cap - o, "%s%s", k ? ", " : "", lits[k]);
        o += (size_t)snprintf(sql + o, cap - o, ")");
    }
    PGresult *r = PQexec(pg, sql);
    const char *res;
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        res = fl_arena_sprintf(&T_arena, "PGERR: %s", PQresultErrorMessage(r));
    else
        res = PQgetisnull(r, 0, 0) ? "NULL" : fl_arena_strdup(&T_arena, PQgetvalue(r, 0, 0));
    PQclear(r);
    return res;
}

static const char *floe_eval(const pgcase *c)
{
    fl_expr *args[4];
    int n = 0;
    T_env.time_zone = c->tz ? c->tz : "UTC";
    for (; n < 4 && c->args[n]; n++) {
        const char *colon = strchr(c->args[n], ':');
        char type[64];
        snprintf(type, sizeof type, "%.*s", (int)(colon - c->args[n]), c->args[n]);
        if (!strcmp(type, "null"))
            args[n] = E_null();
        else if (!strcmp(type, "timestamptz")) /* zoned literals are cast at run time, in the session zone */
            args[n] = E_cast(E_lit(colon + 1), "timestamptz");
        else
            args[n] = E_typed(type, colon + 1);
    }
    const char *r = !strncmp(c->fn, "::", 2) ? eval1(E_cast(args[0], c->fn + 2)) : eval1(E_callv(c->fn, (uint32_t)n, args));
    T_env.time_zone = "UTC";
    return r;
}

static PGconn *G_pg;

static void test_against_postgres(void)
{
    char sql[2048];
    for (const pgcase *c = CASES; c->fn; c++) {
        const char *want = pg_eval(G_pg, c, sql, sizeof sql);
        const char *got = floe_eval(c);
        if (strcmp(want, got) != 0) {
            fprintf(stderr, "MISMATCH %s\n  postgres: %s\n  floe:     %s\n", sql, want, got);
            test_case_failed_ = 1;
        }
    }
}

int main(void)
{
    const char *url = getenv("FLOE_PG_URL");
    if (!url || !*url) {
        fprintf(stderr, "skipped: FLOE_PG_URL not set (run tests/interop/test_sql_func_pg.sh)\n");
        return 77;
    }
    G_pg = PQconnectdb(url);
    if (PQstatus(G_pg) != CONNECTION_OK) {
        fprintf(stderr, "cannot connect to %s: %s\n", url, PQerrorMessage(G_pg));
        PQfinish(G_pg);
        return 1;
    }
    t_init();
    TEST_RUN(test_against_postgres);
    PQfinish(G_pg);
    fl_arena_free(&T_arena);
    return TEST_EXIT();
}
