/*
 * test_postgres.c - the fl_auth suite (auth_suite.h) on PostgreSQL, named
 * by FLOE_TEST_PG_URL (tests/interop/test_auth_postgres.sh starts a
 * throwaway server). Without it: exit 77 (skipped). Each run creates its
 * own schema and points the store at it with search_path, so runs never
 * see each other's principals.
 */
#include <time.h>

#include <libpq-fe.h>

#include "auth_suite.h"

static void test_tokens(void)
{
    suite_tokens();
}
static void test_statics(void)
{
    suite_statics();
}
static void test_grants(void)
{
    suite_grants();
}
static void test_concurrency(void)
{
    suite_concurrency();
}
static void test_linearize(void)
{
    suite_linearize();
}
static void test_limits(void)
{
    suite_limits();
}

int main(void)
{
    const char *url = getenv("FLOE_TEST_PG_URL");
    if (!url || !*url) {
        fprintf(stderr, "skipped: FLOE_TEST_PG_URL not set\n");
        return 77;
    }
    char schema[64];
    snprintf(schema, sizeof schema, "floe_auth_t%ld_%d", (long)time(NULL), (int)getpid());
    PGconn *pg = PQconnectdb(url);
    if (PQstatus(pg) != CONNECTION_OK) {
        fprintf(stderr, "connect %s: %s\n", url, PQerrorMessage(pg));
        PQfinish(pg);
        return 1;
    }
    char sql[256];
    snprintf(sql, sizeof sql, "CREATE SCHEMA %s", schema);
    PGresult *r = PQexec(pg, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        fprintf(stderr, "%s: %s\n", sql, PQerrorMessage(pg));
        return 1;
    }
    PQclear(r);
    snprintf(suite_uri, sizeof suite_uri, "%s%soptions=-csearch_path%%3D%s", url,
             strchr(url, '?') ? "&" : "?", schema);
    TEST_RUN(test_tokens);
    TEST_RUN(test_statics);
    TEST_RUN(test_grants);
    TEST_RUN(test_concurrency);
    TEST_RUN(test_linearize);
    TEST_RUN(test_limits);
    /* the store's tables landed in the run's schema */
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM information_schema.tables WHERE table_schema = '%s' AND "
             "table_name LIKE 'floe_auth_%%'",
             schema);
    r = PQexec(pg, sql);
    int ntables = PQresultStatus(r) == PGRES_TUPLES_OK ? atoi(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    if (ntables != 7) {
        fprintf(stderr,
                "expected 7 floe_auth_ tables (with floe_auth_policies and floe_auth_role_limits) in %s, found %d\n",
                schema, ntables);
        test_failures_++;
    }
    snprintf(sql, sizeof sql, "DROP SCHEMA %s CASCADE", schema);
    PQclear(PQexec(pg, sql));
    PQfinish(pg);
    return TEST_EXIT();
}
