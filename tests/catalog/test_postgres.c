/*
 * test_postgres.c - the PostgreSQL catalog against a live server named by
 * FLOE_TEST_PG_URL (tests/interop/test_catalog_postgres.sh starts a
 * throwaway one). Without it: exit 77 (skipped). Each run uses its own
 * catalog_name, so runs against the same database never collide.
 */
#include <libpq-fe.h>

#include "catalog_suite.h"
#include "floe_test.h"

static const char *g_url;
static char g_name[64];
static char g_dir[256];
static fl_fileio *g_io;

static fl_catalog *suite_open(void)
{
    fl_catalog *c = NULL;
    fl_error err;
    if (fl_catalog_postgres_open(g_url, g_name, g_dir, g_io, &c, &err) != FL_OK) {
        fprintf(stderr, "open %s: %s\n", g_url, err.msg);
        return NULL;
    }
    return c;
}

static void test_namespaces(void)
{
    suite_namespaces();
}
static void test_tables(void)
{
    suite_tables(true);
}

static void test_concurrency(void)
{
    suite_concurrency(g_dir, "conc");
    PGconn *pg = PQconnectdb(g_url);
    const char *params[1] = {g_name};
    PGresult *r = PQexecParams(pg,
                               "SELECT metadata_location, previous_metadata_location, iceberg_type "
                               "FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = "
                               "'conc'",
                               1, NULL, params, NULL, NULL, 0);
    CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1);
    if (PQntuples(r) == 1) {
        CHECK(strstr(PQgetvalue(r, 0, 0), "/metadata/00400-") != NULL);
        CHECK(strstr(PQgetvalue(r, 0, 1), "/metadata/00399-") != NULL);
        CHECK_EQ_STR(PQgetvalue(r, 0, 2), "TABLE");
    }
    PQclear(r);
    PQfinish(pg);
}

/* Column names, types and nullability of Java's JdbcUtil DDL. */
static void test_jdbc_ddl(void)
{
    PGconn *pg = PQconnectdb(g_url);
    PGresult *r =
        PQexec(pg, "SELECT table_name, column_name, data_type, "
                   "character_maximum_length, is_nullable FROM information_schema.columns "
                   "WHERE table_schema = current_schema() AND table_name LIKE 'iceberg%' "
                   "ORDER BY table_name DESC, ordinal_position");
    static const char *want[] = {
        "iceberg_tables catalog_name character varying 255 NO",
        "iceberg_tables table_namespace character varying 255 NO",
        "iceberg_tables table_name character varying 255 NO",
        "iceberg_tables metadata_location character varying 1000 YES",
        "iceberg_tables previous_metadata_location character varying 1000 YES",
        "iceberg_tables iceberg_type character varying 5 YES",
        "iceberg_namespace_properties catalog_name character varying 255 NO",
        "iceberg_namespace_properties namespace character varying 255 NO",
        "iceberg_namespace_properties property_key character varying 255 NO", /* PK => NOT NULL */
        "iceberg_namespace_properties property_value character varying 1000 YES",
    };
    CHECK(PQresultStatus(r) == PGRES_TUPLES_OK);
    CHECK_EQ_INT(PQntuples(r), 10);
    for (int i = 0; i < PQntuples(r) && i < 10; i++) {
        char got[300];
        snprintf(got, sizeof got, "%s %s %s %s %s", PQgetvalue(r, i, 0), PQgetvalue(r, i, 1),
                 PQgetvalue(r, i, 2), PQgetvalue(r, i, 3), PQgetvalue(r, i, 4));
        CHECK_EQ_STR(got, want[i]);
    }
    PQclear(r);
    PQfinish(pg);
}

static void test_open_uri(void)
{
    fl_catalog *c;
    fl_error err;
    CHECK_OK(fl_catalog_open_uri(g_url, g_name, g_dir, g_io, &c, &err), &err);
    fl_catalog_close(c);
    CHECK_EQ_INT(fl_catalog_open_uri("postgresql://127.0.0.1:1/nope?connect_timeout=2", "x", NULL,
                                     g_io, &c, &err),
                 FL_EIO);
    CHECK(strstr(err.msg, "postgres catalog: connect") != NULL);
}

int main(void)
{
    g_url = getenv("FLOE_TEST_PG_URL");
    if (!g_url || !*g_url) {
        fprintf(stderr, "skipped: no FLOE_TEST_PG_URL\n");
        return 77;
    }
    snprintf(g_name, sizeof g_name, "floe_test_%d", (int)getpid());
    if (!ft_tmpdir(g_dir, sizeof g_dir, "floe-test-pg"))
        return 1;
    g_io = fl_fileio_local();
    TEST_RUN(test_namespaces);
    TEST_RUN(test_tables);
    TEST_RUN(test_concurrency);
    TEST_RUN(test_jdbc_ddl);
    TEST_RUN(test_open_uri);
    fl_fileio_destroy(g_io);
    ft_rmtree(g_dir);
    return TEST_EXIT();
}
