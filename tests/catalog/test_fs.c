/*
 * test_fs.c - the filesystem catalog: the shared suite (namespaces as
 * directories with a properties marker, tables as v<N>.metadata.json +
 * version-hint.text, 8-process CAS through exclusive creation), stale
 * hints, registration by copy, and a warehouse written by Spark/Java.
 */
#include "catalog_suite.h"
#include "floe/ice_table.h"
#include "floe_test.h"

static char g_dir[256];
static char g_wh[320];
static fl_fileio *g_io;

static fl_catalog *suite_open(void)
{
    fl_catalog *c = NULL;
    fl_error err;
    if (fl_catalog_fs_open(g_wh, g_io, &c, &err) != FL_OK) {
        fprintf(stderr, "open %s: %s\n", g_wh, err.msg);
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
    suite_tables(false);
}

static void test_concurrency(void)
{
    suite_concurrency(g_dir, "conc");
    char p[600];
    snprintf(p, sizeof p, "%s/conc/counter/metadata/v401.metadata.json", g_wh);
    CHECK(access(p, F_OK) == 0);
    snprintf(p, sizeof p, "%s/conc/counter/metadata/v402.metadata.json", g_wh);
    CHECK(access(p, F_OK) != 0);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* A stale hint (a crash between v<N+1> and the hint rewrite) is probed past;
 * a missing hint falls back to the highest v<N>. */
static void test_stale_hint(void)
{
    fl_catalog *c = suite_open();
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_status rc;
    fl_namespace ns = NS(&a, "hint");
    CHECK_OK(c->ops->create_namespace(c, &ns, NULL, &err), &err);
    fl_table_ident id = ID(&a, "hint.t");
    const char *v1 = suite_create_table(c, &id, &a, &rc, &err);
    CHECK_OK(rc, &err);
    CHECK(v1 && strstr(v1, "/hint/t/metadata/v1.metadata.json") != NULL);
    char p[600];
    snprintf(p, sizeof p, "%s/hint/t/metadata/v2.metadata.json", g_wh);
    write_text(p, "{}");
    const char *cur;
    CHECK_OK(c->ops->load_table(c, &id, &a, &cur, &err), &err);
    CHECK_EQ_STR(cur, p);
    snprintf(p, sizeof p, "%s/hint/t/metadata/version-hint.text", g_wh);
    CHECK(unlink(p) == 0);
    CHECK_OK(c->ops->load_table(c, &id, &a, &cur, &err), &err);
    CHECK(strstr(cur, "/v2.metadata.json") != NULL);
    /* a commit whose new file does not follow expected is refused */
    CHECK_EQ_INT(c->ops->commit_table(c, &id, cur, v1, &err), FL_EINVAL);
    /* a stale writer based on v1 loses at the exclusive create of v2 */
    const char *next;
    suite_write_files = true;
    CHECK_EQ_INT(next_metadata(c, &id, v1, &a, &next, &err), FL_EEXIST);
    fl_catalog_close(c);
    fl_arena_free(&a);
}

/* create_table with a metadata file elsewhere copies it to v1 (register). */
static void test_register_copy(void)
{
    fl_catalog *c = suite_open();
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    char src[600];
    snprintf(src, sizeof src, "%s/elsewhere.metadata.json", g_dir);
    write_text(src, "{\"x\": 1}");
    fl_table_ident id = ID(&a, "reg");
    CHECK_OK(c->ops->create_table(c, &id, src, &err), &err);
    const char *cur;
    CHECK_OK(c->ops->load_table(c, &id, &a, &cur, &err), &err);
    CHECK(strstr(cur, "/reg/metadata/v1.metadata.json") != NULL);
    CHECK_EQ_INT(c->ops->create_table(c, &id, src, &err), FL_EEXIST);
    const char **names;
    uint32_t n;
    fl_namespace root = {0, NULL};
    CHECK_OK(c->ops->list_tables(c, &root, &a, &names, &n, &err), &err);
    CHECK_EQ_STR(str_list(names, n, &a), "reg");
    fl_catalog_close(c);
    fl_arena_free(&a);
}

/* The duckdb-iceberg equality_deletes warehouse (Spark + HadoopCatalog). */
static void test_spark_warehouse(void)
{
    const char *sh = test_shared_dir();
    if (!sh) {
        fprintf(stderr, "skipped: no fixtures\n");
        return;
    }
    char wh[600];
    snprintf(wh, sizeof wh,
             "%s/fixtures/iceberg/duckdb-iceberg/data/persistent/equality_deletes/warehouse", sh);
    fl_catalog *c;
    fl_error err;
    fl_arena a;
    fl_arena_init(&a, 0);
    CHECK_OK(fl_catalog_fs_open(wh, g_io, &c, &err), &err);
    fl_namespace *nss;
    uint32_t n;
    CHECK_OK(c->ops->list_namespaces(c, NULL, &a, &nss, &n, &err), &err);
    CHECK_EQ_STR(ns_names(nss, n, &a), "mydb");
    fl_namespace mydb = NS(&a, "mydb");
    const char **names;
    CHECK_OK(c->ops->list_tables(c, &mydb, &a, &names, &n, &err), &err);
    CHECK_EQ_STR(str_list(names, n, &a), "mytable");
    fl_table_ident id = ID(&a, "mydb.mytable");
    fl_ice_table *t;
    CHECK_OK(fl_ice_table_load(c, &id, &t, &err), &err);
    if (t) {
        CHECK(strstr(t->metadata_location, "/mydb/mytable/metadata/v7.metadata.json") != NULL);
        CHECK_EQ_INT(t->meta.format_version, 2);
        CHECK_EQ_INT(t->meta.nsnapshots, 6);
    }
    fl_ice_table_free(t);
    fl_catalog_close(c);
    fl_arena_free(&a);
}

int main(void)
{
    if (!ft_tmpdir(g_dir, sizeof g_dir, "floe-test-fs"))
        return 1;
    snprintf(g_wh, sizeof g_wh, "%s/wh", g_dir);
    g_io = fl_fileio_local();
    suite_write_files = true;
    TEST_RUN(test_namespaces);
    TEST_RUN(test_tables);
    TEST_RUN(test_concurrency);
    TEST_RUN(test_stale_hint);
    TEST_RUN(test_register_copy);
    TEST_RUN(test_spark_warehouse);
    fl_fileio_destroy(g_io);
    ft_rmtree(g_dir);
    return TEST_EXIT();
}
