/*
 * test_table.c - table handles: open by path on the real fixture tables
 * (version-hint.text with numbers and names, gz metadata, folders without a
 * hint: newest by version), load/register through catalogs, refresh after
 * another process commits, a failed refresh keeps the handle.
 */
#include <limits.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "floe/ice_table.h"
#include "floe_test.h"

static const char *g_fix; /* .../fixtures/iceberg/duckdb-iceberg/data/persistent */
static char g_dir[256];
static fl_fileio *g_io;

static const char *fx(const char *rel)
{
    static char buf[8][1024];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_fix, rel);
    return buf[k];
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Opens path and checks the chosen metadata file ends with want. */
static void open_expect(const char *path, const char *want, int format_version)
{
    fl_ice_table *t = NULL;
    fl_error err;
    CHECK_OK(fl_ice_table_open_path(g_io, path, &t, &err), &err);
    if (!t)
        return;
    CHECK(ends_with(t->metadata_location, want));
    if (!ends_with(t->metadata_location, want))
        fprintf(stderr, "  %s: got %s, want *%s\n", path, t->metadata_location, want);
    CHECK_EQ_INT(t->meta.format_version, format_version);
    CHECK(t->catalog == NULL);
    fl_ice_table_free(t);
}

static void test_open_path_hint(void)
{
    open_expect(fx("equality_deletes/warehouse/mydb/mytable"), "/metadata/v7.metadata.json", 2);
    open_expect(fx("equality_deletes/warehouse/mydb/mytable/"), "/metadata/v7.metadata.json", 2);
    open_expect(fx("iceberg/lineitem_iceberg_gz"), "/metadata/v2.gz.metadata.json", 1);
    open_expect(fx("big_query_error"), "/metadata/v1749025517.metadata.json", 2);
    open_expect(fx("legacy_bare_deletion_vector/warehouse/default/legacy_bare_deletion_vector"),
                "/metadata/00002-legacy-bare-dv.metadata.json", 3);
    open_expect(fx("uuid"), "/metadata/00001-43fda1f4-1c96-4376-ad16-91beb71d0759.metadata.json",
                2);
    open_expect(fx("name_mapping/warehouse_1/mydb/t1"), "/metadata/v7.metadata.json", 1);
}

static void test_open_path_no_hint(void)
{
    open_expect(fx("equality_delete_cross_partition/warehouse/ns/t"),
                "/metadata/vfinal.metadata.json", 2);
    open_expect(fx("add_columns_with_defaults/default.db/add_columns_with_defaults"),
                "/metadata/00003-3f1801a5-7dfb-4072-b14a-39cd12f9279b.metadata.json", 2);
    /* copies without their hint: v7 > v4.1 > v3.2 ..., v<epoch> > v0 */
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/nm/metadata %s/bq/metadata && cp %s/*.metadata.json %s/nm/metadata/ && "
             "cp %s/*.metadata.json %s/bq/metadata/",
             g_dir, g_dir, fx("name_mapping/warehouse_1/mydb/t1/metadata"), g_dir,
             fx("big_query_error/metadata"), g_dir);
    CHECK(system(cmd) == 0);
    char p[600];
    snprintf(p, sizeof p, "%s/nm", g_dir);
    open_expect(p, "/nm/metadata/v7.metadata.json", 1);
    snprintf(cmd, sizeof cmd,
             "rm %s/nm/metadata/v7.metadata.json %s/nm/metadata/v6.metadata.json "
             "%s/nm/metadata/v5.metadata.json",
             g_dir, g_dir, g_dir);
    CHECK(system(cmd) == 0);
    open_expect(p, "/nm/metadata/v4.1.metadata.json", 1);
    snprintf(p, sizeof p, "%s/bq", g_dir);
    open_expect(p, "/bq/metadata/v1749025517.metadata.json", 2);
}

static void test_open_path_file_and_errors(void)
{
    open_expect(fx("hive_partitioned_table/metadata/v2.metadata.json"), "/v2.metadata.json", 2);
    fl_ice_table *t = NULL;
    fl_error err;
    CHECK_EQ_INT(fl_ice_table_open_path(g_io, "/nonexistent/table", &t, &err), FL_ENOTFOUND);
    CHECK(strstr(err.msg, "/nonexistent/table") != NULL);
    CHECK_EQ_INT(
        fl_ice_table_open_path(g_io, fx("big_query_error/metadata/v0.metadata.json"), &t, &err),
        FL_ECORRUPT);
    CHECK(strstr(err.msg, "v0.metadata.json") != NULL);
    CHECK(t == NULL);
}

/* Commits `to` over `from` through a fresh connection in another process. */
static void commit_in_child(const char *db, const char *ident, const char *from, const char *to)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        fl_arena a;
        fl_arena_init(&a, 0);
        fl_error err;
        fl_catalog *c;
        fl_table_ident id;
        int ok = fl_catalog_sqlite_open(db, NULL, g_dir, g_io, &c, &err) == FL_OK &&
                 fl_table_ident_parse(ident, &a, &id, &err) == FL_OK &&
                 c->ops->commit_table(c, &id, from, to, &err) == FL_OK;
        if (!ok)
            fprintf(stderr, "child: %s\n", err.msg);
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void test_catalog_load_refresh(void)
{
    char db[400];
    snprintf(db, sizeof db, "%s/cat.db", g_dir);
    fl_catalog *c;
    fl_error err;
    CHECK_OK(fl_catalog_sqlite_open(db, NULL, g_dir, g_io, &c, &err), &err);
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_namespace ns;
    CHECK_OK(fl_namespace_parse("mydb", &a, &ns, &err), &err);
    CHECK_OK(c->ops->create_namespace(c, &ns, NULL, &err), &err);
    fl_table_ident id;
    CHECK_OK(fl_table_ident_parse("mydb.mytable", &a, &id, &err), &err);
    /* The fixture's location is relative to the duckdb-iceberg root and lies
     * outside this catalog's warehouse: register from that root, with the
     * fixtures allowed as an operator would allow another bucket. */
    char cwd[1024], froot[PATH_MAX], cmd_root[1200];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(cmd_root, sizeof cmd_root, "%s/../..", g_fix);
    CHECK(realpath(cmd_root, froot) != NULL);
    CHECK(chdir(froot) == 0);
    const char *allowed[] = {froot};
    fl_location_policy pol = {allowed, 1, NULL, 0};
    c->confine = &pol;
    const char *v6 =
        "data/persistent/equality_deletes/warehouse/mydb/mytable/metadata/v6.metadata.json";
    const char *v7 =
        "data/persistent/equality_deletes/warehouse/mydb/mytable/metadata/v7.metadata.json";
    char v6c[1024], v7c[1024];
    snprintf(v6c, sizeof v6c, "%s", v6);
    snprintf(v7c, sizeof v7c, "%s", v7);
    fl_ice_table *t = NULL;
    /* without the allowed root, the registration is refused */
    c->confine = NULL;
    CHECK_EQ_INT(fl_ice_table_register(c, &id, v6c, NULL, &err), FL_EFORBIDDEN);
    CHECK(strstr(err.msg, "outside the warehouse") != NULL);
    c->confine = &pol;
    CHECK_OK(fl_ice_table_register(c, &id, v6c, &t, &err), &err);
    CHECK_EQ_INT(fl_ice_table_register(c, &id, v6c, NULL, &err), FL_EEXIST);
    fl_table_ident bad;
    CHECK_OK(fl_table_ident_parse("mydb.bad", &a, &bad, &err), &err);
    CHECK_EQ_INT(
        fl_ice_table_register(c, &bad, fx("big_query_error/metadata/v0.metadata.json"), NULL, &err),
        FL_ECORRUPT);
    if (!t)
        goto out;
    CHECK(t->catalog == c);
    CHECK_EQ_STR(t->metadata_location, v6c);
    CHECK_EQ_STR(t->ident.name, "mytable");
    CHECK_EQ_STR(t->ident.ns.levels[0], "mydb");
    uint32_t nsnap6 = t->meta.nsnapshots;
    commit_in_child(db, "mydb.mytable", v6c, v7c);
    CHECK_EQ_STR(t->metadata_location, v6c);
    CHECK_OK(fl_ice_table_refresh(t, &err), &err);
    CHECK_EQ_STR(t->metadata_location, v7c);
    CHECK_EQ_STR(t->ident.name, "mytable");
    CHECK(t->meta.nsnapshots == nsnap6 + 1);
    /* the table vanishes: refresh fails and the handle keeps its state */
    CHECK_OK(c->ops->drop_table(c, &id, &err), &err);
    CHECK_EQ_INT(fl_ice_table_refresh(t, &err), FL_ENOTFOUND);
    CHECK_EQ_STR(t->metadata_location, v7c);
    CHECK_EQ_INT(t->meta.nsnapshots, nsnap6 + 1);
    fl_ice_table *t2 = NULL;
    CHECK_EQ_INT(fl_ice_table_load(c, &id, &t2, &err), FL_ENOTFOUND);
    CHECK(strstr(err.msg, "mytable") != NULL);
out:
    fl_ice_table_free(t);
    fl_catalog_close(c);
    fl_arena_free(&a);
    CHECK(chdir(cwd) == 0);
}

/* Refresh of a path-opened table re-resolves the folder. */
static void test_path_refresh(void)
{
    char cmd[2048], p[600];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/hp/metadata && cp %s/v1.metadata.json %s/hp/metadata/",
             g_dir, fx("hive_partitioned_table/metadata"), g_dir);
    CHECK(system(cmd) == 0);
    snprintf(p, sizeof p, "%s/hp", g_dir);
    fl_ice_table *t = NULL;
    fl_error err;
    CHECK_OK(fl_ice_table_open_path(g_io, p, &t, &err), &err);
    if (!t)
        return;
    CHECK(ends_with(t->metadata_location, "/v1.metadata.json"));
    snprintf(cmd, sizeof cmd, "cp %s/v2.metadata.json %s/hp/metadata/",
             fx("hive_partitioned_table/metadata"), g_dir);
    CHECK(system(cmd) == 0);
    CHECK_OK(fl_ice_table_refresh(t, &err), &err);
    CHECK(ends_with(t->metadata_location, "/v2.metadata.json"));
    CHECK_EQ_STR(t->ident.name, p);
    fl_ice_table_free(t);
}

/* Paths of the regular files under dir (relative), one per line, sorted. */
static void list_files(const char *dir, char *out, size_t cap)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "cd '%s' && find . -type f | sort", dir);
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(out, 1, cap - 1, p) : 0;
    out[n] = '\0';
    if (p)
        pclose(p);
}

/* Purge of the Spark equality_deletes table (copied; its paths are relative
 * to the duckdb-iceberg root, so the test runs from the copy's root). */
static void test_drop_purge(void)
{
    const char *rel = "data/persistent/equality_deletes/warehouse/mydb/mytable";
    char root[400], cmd[2048], cwd[1024];
    snprintf(root, sizeof root, "%s/purge", g_dir);
    snprintf(cmd, sizeof cmd, "mkdir -p %s/%s && cp -r %s/. %s/%s/", root, rel,
             fx("equality_deletes/warehouse/mydb/mytable"), root, rel);
    CHECK(system(cmd) == 0);
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(chdir(root) == 0);
    fl_catalog *c;
    fl_error err;
    fl_arena a;
    fl_arena_init(&a, 0);
    CHECK_OK(fl_catalog_sqlite_open("cat.db", NULL, ".", g_io, &c, &err), &err);
    fl_table_ident id, keep;
    CHECK_OK(fl_table_ident_parse("t", &a, &id, &err), &err);
    CHECK_OK(fl_table_ident_parse("keep", &a, &keep, &err), &err);
    char v7[600], v6[600];
    snprintf(v7, sizeof v7, "%s/metadata/v7.metadata.json", rel);
    snprintf(v6, sizeof v6, "%s/metadata/v6.metadata.json", rel);
    CHECK_OK(fl_ice_table_register(c, &keep, v6, NULL, &err), &err);
    CHECK_OK(fl_ice_table_drop(c, &keep, false, &err), &err); /* no purge: files stay */
    CHECK(access(v6, F_OK) == 0);

    /* gc.enabled=false refuses the purge and changes nothing */
    fl_ice_metadata m;
    CHECK_OK(fl_ice_metadata_read(g_io, v7, &a, &m, &err), &err);
    fl_ice_kv gc = {"gc.enabled", "false"};
    m.properties.n = 1;
    m.properties.items = &gc;
    char *js;
    size_t len;
    CHECK_OK(fl_ice_metadata_write(&m, 0, &js, &len, &err), &err);
    /* a metadata file outside the location it declares cannot be registered */
    FILE *f = fopen("nogc.metadata.json", "w");
    CHECK(f && fwrite(js, 1, len, f) == len);
    if (f)
        fclose(f);
    CHECK_EQ_INT(fl_ice_table_register(c, &id, "nogc.metadata.json", NULL, &err), FL_EFORBIDDEN);
    CHECK(strstr(err.msg, "not inside the table location") != NULL);
    char nogc[700];
    snprintf(nogc, sizeof nogc, "%s/metadata/nogc.metadata.json", rel);
    f = fopen(nogc, "w");
    CHECK(f && fwrite(js, 1, len, f) == len);
    if (f)
        fclose(f);
    free(js);
    CHECK_OK(fl_ice_table_register(c, &id, nogc, NULL, &err), &err);
    CHECK_EQ_INT(fl_ice_table_drop(c, &id, true, &err), FL_EINVAL);
    CHECK(strstr(err.msg, "gc.enabled") != NULL);
    const char *loc;
    CHECK_OK(c->ops->load_table(c, &id, &a, &loc, &err), &err);
    CHECK_OK(c->ops->drop_table(c, &id, &err), &err);
    CHECK(remove(nogc) == 0);

    CHECK_OK(fl_ice_table_register(c, &id, v7, NULL, &err), &err);
    CHECK_OK(fl_ice_table_drop(c, &id, true, &err), &err);
    CHECK_EQ_INT(c->ops->load_table(c, &id, &a, &loc, &err), FL_ENOTFOUND);
    static char left[8192];
    list_files(rel, left, sizeof left);
    /* left: the hint and the two "-3-" manifest lists no snapshot names
     * (snapshot 7342794868382145167 names a "-1-" list the fixture lacks:
     * missing files are skipped, not errors) */
    CHECK_EQ_STR(left,
                 "./metadata/snap-1584331123492059582-3-91bf4420-2bae-484f-b724-8184d56d3029.avro\n"
                 "./metadata/snap-7342794868382145167-3-34f7dec7-90c5-4cd5-b158-5782b73fc010.avro\n"
                 "./metadata/version-hint.text\n");
    CHECK_EQ_INT(fl_ice_table_drop(c, &id, true, &err), FL_ENOTFOUND);
    fl_catalog_close(c);
    fl_arena_free(&a);
    CHECK(chdir(cwd) == 0);
}

int main(void)
{
    const char *sh = test_shared_dir();
    if (!sh) {
        fprintf(stderr, "skipped: ../shared fixtures absent (FLOE_SHARED)\n");
        return 77;
    }
    static char fix[1024];
    snprintf(fix, sizeof fix, "%s/fixtures/iceberg/duckdb-iceberg/data/persistent", sh);
    g_fix = fix;
    if (!ft_tmpdir(g_dir, sizeof g_dir, "floe-test-table"))
        return 1;
    g_io = fl_fileio_local();
    TEST_RUN(test_open_path_hint);
    TEST_RUN(test_open_path_no_hint);
    TEST_RUN(test_open_path_file_and_errors);
    TEST_RUN(test_catalog_load_refresh);
    TEST_RUN(test_path_refresh);
    TEST_RUN(test_drop_purge);
    fl_fileio_destroy(g_io);
    ft_rmtree(g_dir);
    return TEST_EXIT();
}
