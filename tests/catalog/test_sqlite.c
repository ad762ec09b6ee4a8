/*
 * test_sqlite.c - the SQLite catalog: the shared suite (namespaces, tables,
 * CAS, rename, 8-process concurrency), the exact JDBC DDL, V0 databases,
 * rows written by Java (iceberg_type NULL), metadata file naming.
 */
#include <sqlite3.h>

#include "catalog_suite.h"
#include "floe_test.h"

static char g_dir[256];
static char g_db[320];
static fl_fileio *g_io;

static fl_catalog *suite_open(void)
{
    fl_catalog *c = NULL;
    fl_error err;
    if (fl_catalog_sqlite_open(g_db, "floe_test", g_dir, g_io, &c, &err) != FL_OK) {
        fprintf(stderr, "open %s: %s\n", g_db, err.msg);
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
    /* previous_metadata_location of the final row is the second-to-last pointer */
    sqlite3 *db;
    CHECK(sqlite3_open(g_db, &db) == SQLITE_OK);
    sqlite3_stmt *st;
    CHECK(sqlite3_prepare_v2(db,
                             "SELECT metadata_location, previous_metadata_location, iceberg_type "
                             "FROM iceberg_tables WHERE table_namespace='conc'",
                             -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    const char *cur = (const char *)sqlite3_column_text(st, 0);
    const char *prev = (const char *)sqlite3_column_text(st, 1);
    CHECK_EQ_STR((const char *)sqlite3_column_text(st, 2), "TABLE");
    /* versions: 00000 created, 400 commits -> 00400, previous 00399 */
    CHECK(cur && strstr(cur, "/metadata/00400-") != NULL);
    CHECK(prev && strstr(prev, "/metadata/00399-") != NULL);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

typedef struct col {
    const char *name, *type;
    int notnull, pk;
} col;

static void check_columns(sqlite3 *db, const char *table, const col *want, int n)
{
    char sql[200];
    snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", table);
    sqlite3_stmt *st;
    CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
    int i = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (i < n) {
            CHECK_EQ_STR((const char *)sqlite3_column_text(st, 1), want[i].name);
            CHECK_EQ_STR((const char *)sqlite3_column_text(st, 2), want[i].type);
            CHECK_EQ_INT(sqlite3_column_int(st, 3), want[i].notnull);
            CHECK_EQ_INT(sqlite3_column_int(st, 5), want[i].pk);
        }
        i++;
    }
    CHECK_EQ_INT(i, n);
    sqlite3_finalize(st);
}

/* The layout Java's JdbcCatalog creates (JdbcUtil V0 DDL + V1 ALTER). */
static void test_jdbc_ddl(void)
{
    char path[400];
    snprintf(path, sizeof path, "%s/ddl.db", g_dir);
    fl_catalog *c;
    fl_error err;
    CHECK_OK(fl_catalog_sqlite_open(path, NULL, g_dir, g_io, &c, &err), &err);
    CHECK_EQ_STR(c->name, "floe");
    fl_catalog_close(c);
    sqlite3 *db;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    static const col tables[] = {{"catalog_name", "VARCHAR(255)", 1, 1},
                                 {"table_namespace", "VARCHAR(255)", 1, 2},
                                 {"table_name", "VARCHAR(255)", 1, 3},
                                 {"metadata_location", "VARCHAR(1000)", 0, 0},
                                 {"previous_metadata_location", "VARCHAR(1000)", 0, 0},
                                 {"iceberg_type", "VARCHAR(5)", 0, 0}};
    static const col props[] = {{"catalog_name", "VARCHAR(255)", 1, 1},
                                {"namespace", "VARCHAR(255)", 1, 2},
                                {"property_key", "VARCHAR(255)", 0, 3},
                                {"property_value", "VARCHAR(1000)", 0, 0}};
    check_columns(db, "iceberg_tables", tables, 6);
    check_columns(db, "iceberg_namespace_properties", props, 4);
    sqlite3_stmt *st;
    CHECK(sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE type='table'", -1, &st,
                             NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_EQ_INT(sqlite3_column_int(st, 0), 2);
    sqlite3_finalize(st);
    CHECK(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_EQ_STR((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* A V0 database (no iceberg_type; PyIceberg's SqlCatalog layout) with rows
 * written by another implementation: used as is, schema untouched. */
static void test_v0_database(void)
{
    char path[400];
    snprintf(path, sizeof path, "%s/v0.db", g_dir);
    sqlite3 *db;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db,
                       "CREATE TABLE iceberg_tables (catalog_name VARCHAR(255) NOT NULL, "
                       "table_namespace VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL, "
                       "metadata_location VARCHAR(1000), previous_metadata_location "
                       "VARCHAR(1000), PRIMARY KEY (catalog_name, table_namespace, table_name));"
                       "INSERT INTO iceberg_tables VALUES ('py', 'default.db', 'events', "
                       "'/w/default.db/events/metadata/00003-x.metadata.json', NULL);",
                       NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    fl_catalog *c;
    fl_error err;
    fl_arena a;
    fl_arena_init(&a, 0);
    CHECK_OK(fl_catalog_sqlite_open(path, "py", "/w", g_io, &c, &err), &err);
    fl_namespace *nss;
    uint32_t n;
    CHECK_OK(c->ops->list_namespaces(c, NULL, &a, &nss, &n, &err), &err);
    CHECK_EQ_STR(ns_names(nss, n, &a), "default");
    fl_table_ident id = ID(&a, "default.db.events");
    const char *loc, *next;
    CHECK_OK(c->ops->load_table(c, &id, &a, &loc, &err), &err);
    CHECK_EQ_STR(loc, "/w/default.db/events/metadata/00003-x.metadata.json");
    CHECK_OK(c->ops->new_metadata_path(c, &id, "/w/default.db/events", loc, 1, &a, &next, &err),
             &err);
    CHECK(strncmp(next, "/w/default.db/events/metadata/00004-", 36) == 0);
    CHECK(strlen(next) == 36 + 36 + 14);
    CHECK_OK(c->ops->commit_table(c, &id, loc, next, &err), &err);
    fl_table_ident t2 = ID(&a, "default.db.t2");
    CHECK_OK(c->ops->create_table(c, &t2, loc, &err), &err);
    fl_catalog_close(c);
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    sqlite3_stmt *st;
    CHECK(sqlite3_prepare_v2(db, "SELECT count(*) FROM pragma_table_info('iceberg_tables')", -1,
                             &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_EQ_INT(sqlite3_column_int(st, 0), 5); /* not altered */
    sqlite3_finalize(st);
    sqlite3_close(db);
    fl_arena_free(&a);
}

/* A row written by Java's JdbcCatalog V1 with iceberg_type NULL is a table;
 * a VIEW row is not. A level with a '.' is a namespace of its own (absent here). */
static void test_java_rows(void)
{
    fl_catalog *c = suite_open();
    CHECK(c != NULL);
    if (!c)
        return;
    sqlite3 *db;
    CHECK(sqlite3_open(g_db, &db) == SQLITE_OK);
    sqlite3_busy_timeout(db, 10000);
    CHECK(sqlite3_exec(
              db,
              "INSERT INTO iceberg_tables VALUES ('floe_test','java','t','/m/1',NULL,NULL);"
              "INSERT INTO iceberg_tables VALUES ('floe_test','java','v','/m/2',NULL,'VIEW');"
              "INSERT INTO iceberg_tables VALUES ('other','java','o','/m/3',NULL,'TABLE');",
              NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_namespace ns = NS(&a, "java");
    const char **names;
    uint32_t n;
    CHECK_OK(c->ops->list_tables(c, &ns, &a, &names, &n, &err), &err);
    CHECK_EQ_STR(str_list(names, n, &a), "t");
    fl_table_ident v = ID(&a, "java.v");
    const char *loc;
    CHECK_EQ_INT(c->ops->load_table(c, &v, &a, &loc, &err), FL_ENOTFOUND);
    fl_table_ident dotted = ID(&a, "\"java.t\".t");
    CHECK_EQ_INT(c->ops->load_table(c, &dotted, &a, &loc, &err), FL_ENOTFOUND);
    fl_table_ident t = ID(&a, "java.t");
    CHECK_OK(c->ops->drop_table(c, &t, &err), &err);
    fl_catalog_close(c);
    fl_arena_free(&a);
}

/* A level holding '.' or '%' is stored escaped ("new%2Edb"), so ["new.db"]
 * and ["new", "db"] are two namespaces, each listed with its own levels and
 * tables; names without either byte are stored as they are. */
static void test_dotted_levels(void)
{
    fl_catalog *c = suite_open();
    CHECK(c != NULL);
    if (!c)
        return;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    const char *one[] = {"new.db"}, *pct[] = {"50%"}, *two[] = {"new", "db"};
    fl_namespace dotted = {1, one}, percent = {1, pct}, nested = {2, two};
    fl_namespace parent = {1, two};
    CHECK_OK(c->ops->create_namespace(c, &dotted, NULL, &err), &err);
    CHECK_OK(c->ops->create_namespace(c, &percent, NULL, &err), &err);
    CHECK_OK(c->ops->create_namespace(c, &parent, NULL, &err), &err);
    CHECK_OK(c->ops->create_namespace(c, &nested, NULL, &err), &err);
    fl_table_ident t = {dotted, "t"};
    CHECK_OK(c->ops->create_table(c, &t, "/m/00000-d.metadata.json", &err), &err);
    fl_namespace *nss;
    uint32_t n;
    CHECK_OK(c->ops->list_namespaces(c, NULL, &a, &nss, &n, &err), &err);
    const char *all = ns_names(nss, n, &a);
    CHECK(strstr(all, "50%") && strstr(all, "new.db") && strstr(all, "new,") != NULL);
    CHECK_OK(c->ops->list_namespaces(c, &parent, &a, &nss, &n, &err), &err);
    CHECK_EQ_STR(ns_names(nss, n, &a), "db");
    CHECK_OK(c->ops->list_namespaces(c, &dotted, &a, &nss, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    const char **names;
    CHECK_OK(c->ops->list_tables(c, &dotted, &a, &names, &n, &err), &err);
    CHECK_EQ_STR(str_list(names, n, &a), "t");
    CHECK_OK(c->ops->list_tables(c, &nested, &a, &names, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    const char *loc;
    CHECK_OK(c->ops->load_table(c, &t, &a, &loc, &err), &err);
    fl_table_ident other = {nested, "t"};
    CHECK_EQ_INT(c->ops->load_table(c, &other, &a, &loc, &err), FL_ENOTFOUND);
    sqlite3 *db;
    CHECK(sqlite3_open(g_db, &db) == SQLITE_OK);
    sqlite3_stmt *st;
    CHECK(sqlite3_prepare_v2(db, "SELECT table_namespace FROM iceberg_tables WHERE table_name = 't' "
                                 "AND table_namespace LIKE 'new%'",
                             -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_EQ_STR((const char *)sqlite3_column_text(st, 0), "new%2Edb");
    sqlite3_finalize(st);
    sqlite3_close(db);
    const char *empty[] = {""};
    fl_namespace bad = {1, empty};
    CHECK_EQ_INT(c->ops->create_namespace(c, &bad, NULL, &err), FL_EINVAL);
    CHECK_OK(c->ops->drop_table(c, &t, &err), &err);
    fl_catalog_close(c);
    fl_arena_free(&a);
}

/* 8 processes open one fresh database at once: the schema is created once,
 * nobody fails with "database is locked" or "table already exists". */
static void test_concurrent_first_open(void)
{
    char path[400];
    snprintf(path, sizeof path, "%s/fresh.db", g_dir);
    fflush(NULL);
    pid_t pids[8];
    for (int i = 0; i < 8; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            fl_catalog *c;
            fl_error err;
            fl_arena a;
            fl_arena_init(&a, 0);
            char name[16];
            snprintf(name, sizeof name, "ns%d", i);
            fl_namespace ns = NS(&a, name);
            int ok = fl_catalog_sqlite_open(path, NULL, g_dir, g_io, &c, &err) == FL_OK &&
                     c->ops->create_namespace(c, &ns, NULL, &err) == FL_OK;
            if (!ok)
                fprintf(stderr, "child %d: %s\n", i, err.msg);
            _exit(ok ? 0 : 1);
        }
    }
    for (int i = 0; i < 8; i++) {
        int st = 0;
        waitpid(pids[i], &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    fl_catalog *c;
    fl_error err;
    fl_arena a;
    fl_arena_init(&a, 0);
    CHECK_OK(fl_catalog_sqlite_open(path, NULL, g_dir, g_io, &c, &err), &err);
    fl_namespace *nss;
    uint32_t n = 0;
    CHECK_OK(c->ops->list_namespaces(c, NULL, &a, &nss, &n, &err), &err);
    CHECK_EQ_INT(n, 8);
    fl_catalog_close(c);
    fl_arena_free(&a);
}

/* A write lock held by another connection beyond the busy timeout: FL_EIO
 * naming the database, and the commit did not happen. */
static void test_busy_timeout(void)
{
    fl_catalog *c = suite_open();
    CHECK(c != NULL);
    if (!c)
        return;
    fl_error err;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_namespace ns = NS(&a, "busy");
    CHECK_OK(c->ops->create_namespace(c, &ns, NULL, &err), &err);
    fl_table_ident id = ID(&a, "busy.t");
    CHECK_OK(c->ops->create_table(c, &id, "/m/00000-a.metadata.json", &err), &err);
    CHECK_OK(fl_catalog_sqlite_set_busy_timeout(c, 100, &err), &err);
    sqlite3 *db;
    CHECK(sqlite3_open(g_db, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK);
    CHECK_EQ_INT(
        c->ops->commit_table(c, &id, "/m/00000-a.metadata.json", "/m/00001-b.metadata.json", &err),
        FL_EIO);
    CHECK(strstr(err.msg, "catalog.db") != NULL);
    CHECK(strstr(err.msg, "locked") != NULL);
    CHECK(strstr(err.msg, "100 ms") != NULL);
    CHECK(sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    const char *loc;
    CHECK_OK(c->ops->load_table(c, &id, &a, &loc, &err), &err);
    CHECK_EQ_STR(loc, "/m/00000-a.metadata.json");
    CHECK_OK(c->ops->commit_table(c, &id, loc, "/m/00001-b.metadata.json", &err), &err);
    fl_catalog *fs;
    CHECK_OK(fl_catalog_fs_open(g_dir, g_io, &fs, &err), &err);
    CHECK_EQ_INT(fl_catalog_sqlite_set_busy_timeout(fs, 100, &err), FL_EINVAL);
    fl_catalog_close(fs);
    fl_catalog_close(c);
    fl_arena_free(&a);
}

static void test_open_uri(void)
{
    char uri[400];
    snprintf(uri, sizeof uri, "sqlite:%s", g_db);
    fl_catalog *c;
    fl_error err;
    CHECK_OK(fl_catalog_open_uri(uri, "floe_test", g_dir, g_io, &c, &err), &err);
    fl_catalog_close(c);
    snprintf(uri, sizeof uri, "sqlite://%s", g_db);
    CHECK_OK(fl_catalog_open_uri(uri, "floe_test", g_dir, g_io, &c, &err), &err);
    fl_catalog_close(c);
    CHECK_EQ_INT(fl_catalog_open_uri("mysql://x", NULL, NULL, g_io, &c, &err), FL_EINVAL);
    CHECK_EQ_INT(fl_catalog_open_uri("sqlite:/nonexistent-dir/x/y.db", NULL, NULL, g_io, &c, &err),
                 FL_EIO);
    CHECK(strstr(err.msg, "/nonexistent-dir/x/y.db") != NULL);
    /* not a database: FL_ECORRUPT naming the file */
    char junk[400];
    snprintf(junk, sizeof junk, "%s/junk.db", g_dir);
    FILE *f = fopen(junk, "w");
    CHECK(f != NULL);
    if (f) {
        for (int i = 0; i < 200; i++)
            fputs("this is not an SQLite database file. ", f);
        fclose(f);
    }
    CHECK_EQ_INT(fl_catalog_sqlite_open(junk, NULL, NULL, g_io, &c, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "junk.db") != NULL);
}

int main(void)
{
    if (!ft_tmpdir(g_dir, sizeof g_dir, "floe-test-sqlite"))
        return 1;
    snprintf(g_db, sizeof g_db, "%s/catalog.db", g_dir);
    g_io = fl_fileio_local();
    TEST_RUN(test_namespaces);
    TEST_RUN(test_tables);
    TEST_RUN(test_concurrency);
    TEST_RUN(test_jdbc_ddl);
    TEST_RUN(test_v0_database);
    TEST_RUN(test_java_rows);
    TEST_RUN(test_dotted_levels);
    TEST_RUN(test_concurrent_first_open);
    TEST_RUN(test_busy_timeout);
    TEST_RUN(test_open_uri);
    fl_fileio_destroy(g_io);
    ft_rmtree(g_dir);
    return TEST_EXIT();
}
