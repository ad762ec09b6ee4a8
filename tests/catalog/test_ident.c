/*
 * test_ident.c - identifier parsing/printing (quoted levels), default
 * locations, metadata file versions, UUIDs and snapshot ids.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog/catalog_internal.h"
#include "floe/ice_table.h"
#include "floe/iceberg.h"
#include "floe_test.h"

static void test_parse(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_table_ident id;
    CHECK_OK(fl_table_ident_parse("a.b.t", &a, &id, &err), &err);
    CHECK_EQ_INT(id.ns.nlevels, 2);
    CHECK_EQ_STR(id.ns.levels[0], "a");
    CHECK_EQ_STR(id.ns.levels[1], "b");
    CHECK_EQ_STR(id.name, "t");
    CHECK_EQ_STR(fl_table_ident_str(&id, &a), "a.b.t");
    CHECK_EQ_STR(fl_namespace_str(&id.ns, &a), "a.b");

    CHECK_OK(fl_table_ident_parse("\"x.y\".\"q\"\"uote\".t", &a, &id, &err), &err);
    CHECK_EQ_INT(id.ns.nlevels, 2);
    CHECK_EQ_STR(id.ns.levels[0], "x.y");
    CHECK_EQ_STR(id.ns.levels[1], "q\"uote");
    CHECK_EQ_STR(fl_table_ident_str(&id, &a), "\"x.y\".\"q\"\"uote\".t");

    CHECK_OK(fl_table_ident_parse("t", &a, &id, &err), &err);
    CHECK_EQ_INT(id.ns.nlevels, 0);
    CHECK_EQ_STR(fl_table_ident_str(&id, &a), "t");

    fl_namespace ns;
    CHECK_OK(fl_namespace_parse("", &a, &ns, &err), &err);
    CHECK_EQ_INT(ns.nlevels, 0);
    CHECK_EQ_STR(fl_namespace_str(&ns, &a), "");
    CHECK_OK(fl_namespace_parse("db", &a, &ns, &err), &err);
    CHECK_EQ_INT(ns.nlevels, 1);

    static const char *bad[] = {"", "a..b", ".a", "a.", "\"a", "a\"b\".c", "\"\".t", "\"a\"b.t"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        fl_status rc = fl_table_ident_parse(bad[i], &a, &id, &err);
        CHECK(rc == FL_EINVAL);
        if (rc != FL_EINVAL)
            fprintf(stderr, "  accepted '%s'\n", bad[i]);
    }
    CHECK_EQ_INT(fl_namespace_parse("a..b", &a, &ns, &err), FL_EINVAL);
    CHECK(strstr(err.msg, "a..b") != NULL);
    fl_arena_free(&a);
}

static const char *loc_of(fl_catalog *c, const char *const *ns, uint32_t n, const char *name,
                          fl_arena *a)
{
    fl_table_ident id = {{n, ns}, name};
    return fl_catalog_default_location(c, &id, a);
}

static void test_default_location(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_catalog c = {.name = "floe", .warehouse = "s3://bucket/wh/"};
    fl_table_ident id;
    /* nested namespace levels carry the '~' mark; the first level and tables don't */
    CHECK_OK(fl_table_ident_parse("a.b.t", &a, &id, &err), &err);
    CHECK_EQ_STR(fl_catalog_default_location(&c, &id, &a), "s3://bucket/wh/a/~b/t");
    CHECK_OK(fl_table_ident_parse("db.orders", &a, &id, &err), &err);
    CHECK_EQ_STR(fl_catalog_default_location(&c, &id, &a), "s3://bucket/wh/db/orders");
    c.warehouse = "/w";
    CHECK_OK(fl_table_ident_parse("t", &a, &id, &err), &err);
    CHECK_EQ_STR(fl_catalog_default_location(&c, &id, &a), "/w/~t");
    /* a namespace's folder is its tables' parent */
    fl_namespace nsab = {2, (const char *[]){"a", "b"}}, nsdb = {1, (const char *[]){"d b"}};
    c.warehouse = "s3://bucket/wh/";
    CHECK_EQ_STR(fl_catalog_namespace_location(&c, &nsab, &a), "s3://bucket/wh/a/~b");
    CHECK_EQ_STR(fl_catalog_namespace_location(&c, &nsdb, &a), "s3://bucket/wh/d%20b");
    fl_namespace root = {0, NULL};
    CHECK(fl_catalog_namespace_location(&c, &root, &a) == NULL);
    /* a namespace's own location takes its new tables (one plain folder each) */
    fl_table_ident in_ab = {nsab, "x/y"}, top_t = {root, "t"};
    CHECK_EQ_STR(fl_catalog_table_location(&c, &in_ab, "s3://other/place/", &a),
                 "s3://other/place/x%2Fy");
    CHECK_EQ_STR(fl_catalog_table_location(&c, &in_ab, NULL, &a), "s3://bucket/wh/a/~b/x%2Fy");
    CHECK_EQ_STR(fl_catalog_table_location(&c, &top_t, "s3://ignored", &a), "s3://bucket/wh/~t");
    c.warehouse = "/w";
    /* ["a","b"].zz and ["a/b"].zz: distinct folders */
    const char *ab[] = {"a", "b"}, *aslb[] = {"a/b"};
    const char *l1 = loc_of(&c, ab, 2, "zz", &a), *l2 = loc_of(&c, aslb, 1, "zz", &a);
    CHECK_EQ_STR(l1, "/w/a/~b/zz");
    CHECK_EQ_STR(l2, "/w/a%2Fb/zz");
    CHECK(strcmp(l1, l2) != 0);
    /* '/' in a table name, '%', '~', leading dots, spaces and UTF-8 */
    const char *db[] = {"db"};
    CHECK_EQ_STR(loc_of(&c, db, 1, "x/y", &a), "/w/db/x%2Fy");
    CHECK_EQ_STR(loc_of(&c, db, 1, "50%", &a), "/w/db/50%25");
    CHECK_EQ_STR(loc_of(&c, db, 1, "~b", &a), "/w/db/%7Eb");
    CHECK_EQ_STR(loc_of(&c, db, 1, "..", &a), "/w/db/%2E.");
    CHECK_EQ_STR(loc_of(&c, db, 1, ".hidden", &a), "/w/db/%2Ehidden");
    CHECK_EQ_STR(loc_of(&c, db, 1, "a.b c", &a), "/w/db/a.b%20c");
    CHECK_EQ_STR(loc_of(&c, db, 1, "caf\xc3\xa9", &a), "/w/db/caf\xc3\xa9");
    /* table a.b never equals or contains the folder of namespace a.b (table a.b.c) */
    const char *a1[] = {"a"};
    const char *tab = loc_of(&c, a1, 1, "b", &a), *child = loc_of(&c, ab, 2, "c", &a);
    CHECK_EQ_STR(tab, "/w/a/b");
    CHECK_EQ_STR(child, "/w/a/~b/c");
    CHECK(!fl_location_within(child, tab) && !fl_location_within(tab, child));
    /* top-level table t vs namespace t's table x */
    const char *t1[] = {"t"};
    const char *top = loc_of(&c, NULL, 0, "t", &a), *inner = loc_of(&c, t1, 1, "x", &a);
    CHECK(!fl_location_within(inner, top) && !fl_location_within(top, inner));
    fl_arena_free(&a);
}

static void test_location_rules(void)
{
    fl_error err;
    CHECK(fl_location_within("/w/t", "/w"));
    CHECK(fl_location_within("/w", "/w/"));
    CHECK(fl_location_within("file:///w/t/", "/w/t"));
    CHECK(fl_location_within("s3a://b/w/t", "s3://b/w"));
    CHECK(!fl_location_within("/wx/t", "/w"));
    CHECK(!fl_location_within("/w", "/w/t"));
    CHECK(!fl_location_within("s3://b/w/t", "/w"));
    CHECK(fl_location_within("/anything", "/"));
    fl_catalog c = {.name = "floe", .warehouse = "/w", .db_file = "/w/catalog.db"};
    CHECK_OK(fl_catalog_location_check(&c, "/w/db/t", &err), &err);
    CHECK_EQ_INT(fl_catalog_location_check(&c, "/w", &err), FL_EFORBIDDEN);
    CHECK(strstr(err.msg, "warehouse root") != NULL);
    CHECK_EQ_INT(fl_catalog_location_check(&c, "file:///w/", &err), FL_EFORBIDDEN);
    CHECK_EQ_INT(fl_catalog_location_check(&c, "/some/dir", &err), FL_EFORBIDDEN);
    CHECK(strstr(err.msg, "/some/dir") != NULL);
    CHECK_EQ_INT(fl_catalog_location_check(&c, "/w/../etc", &err), FL_EFORBIDDEN);
    CHECK_EQ_INT(fl_catalog_location_check(&c, "/w/catalog.db", &err), FL_EFORBIDDEN);
    CHECK(strstr(err.msg, "catalog.db") != NULL);
    CHECK_EQ_INT(fl_catalog_location_check(&c, "/w/catalog.db-wal/x", &err), FL_EFORBIDDEN);
    CHECK(fl_catalog_path_protected(&c, "/w/catalog.db"));
    CHECK(fl_catalog_path_protected(&c, "file:///w/catalog.db-shm"));
    CHECK(!fl_catalog_path_protected(&c, "/w/db/t/data/x.parquet"));
    /* a catalog database deeper down: a table above it contains it */
    c.db_file = "/w/meta/catalog.db";
    CHECK_EQ_INT(fl_catalog_location_check(&c, "/w/meta", &err), FL_EFORBIDDEN);
    /* operator-allowed roots and protected files */
    const char *allowed[] = {"s3://lake/shared"}, *prot[] = {"/w/audit.log"};
    fl_location_policy p = {allowed, 1, prot, 1};
    c.confine = &p;
    CHECK_OK(fl_catalog_location_check(&c, "s3://lake/shared/t", &err), &err);
    CHECK_EQ_INT(fl_catalog_location_check(&c, "s3://lake/shared", &err), FL_EFORBIDDEN);
    CHECK_EQ_INT(fl_catalog_location_check(&c, "s3://lake/sharedx/t", &err), FL_EFORBIDDEN);
    CHECK_EQ_INT(fl_catalog_location_check(&c, "/w/audit.log", &err), FL_EFORBIDDEN);
}

static void test_private_file(void)
{
    char dir[128];
    CHECK(ft_tmpdir(dir, sizeof dir, "floe-private") != NULL);
    char path[256], wal[300];
    snprintf(path, sizeof path, "%s/catalog.db", dir);
    snprintf(wal, sizeof wal, "%s-wal", path);
    fl_error err;
    mode_t old = umask(022);
    CHECK_OK(fl_catalog_private_file(path, &err), &err);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    /* an existing world-readable file and sibling are tightened */
    CHECK(chmod(path, 0644) == 0);
    FILE *f = fopen(wal, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    CHECK(chmod(wal, 0666) == 0);
    CHECK_OK(fl_catalog_private_file(path, &err), &err);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    CHECK(stat(wal, &st) == 0 && (st.st_mode & 0777) == 0600);
    /* a SQLite catalog creates its database 0600 and knows it as db_file */
    char db2[300];
    snprintf(db2, sizeof db2, "%s/c2.db", dir);
    fl_catalog *cat = NULL;
    CHECK_OK(fl_catalog_sqlite_open(db2, "floe", dir, NULL, &cat, &err), &err);
    CHECK(stat(db2, &st) == 0 && (st.st_mode & 0777) == 0600);
    CHECK(cat && cat->db_file && strstr(cat->db_file, "/c2.db") != NULL);
    fl_catalog_close(cat);
    umask(old);
    CHECK(ft_rmtree(dir) == 0);
}

static void test_versions(void)
{
    static const char *order[] = {"vfinal.metadata.json", "v1.metadata.json",
                                  "v3.metadata.json",     "v3.1.metadata.json",
                                  "v3.2.metadata.json",   "v4.gz.metadata.json",
                                  "v7.metadata.json",     "v1749025517.metadata.json"};
    for (size_t i = 0; i + 1 < sizeof order / sizeof *order; i++) {
        fl_ice_metadata_version x = fl_ice_metadata_version_of(order[i]),
                                y = fl_ice_metadata_version_of(order[i + 1]);
        CHECK(fl_ice_metadata_version_cmp(&x, &y) < 0);
    }
    fl_ice_metadata_version v =
        fl_ice_metadata_version_of("00012-6f1d6a3c-0e7b-4e59-a0a0-7d8c2c4e9c51.metadata.json");
    CHECK_EQ_INT(v.nparts, 1);
    CHECK_EQ_INT(v.parts[0], 12);
    v = fl_ice_metadata_version_of("00002-legacy-bare-dv.metadata.json");
    CHECK_EQ_INT(v.parts[0], 2);
    CHECK(fl_ice_is_metadata_name("v2.gz.metadata.json"));
    CHECK(fl_ice_is_metadata_name("x.metadata.json.gz"));
    CHECK(!fl_ice_is_metadata_name("snap-1.avro"));
    CHECK(!fl_ice_is_metadata_name("version-hint.text"));
}

static void test_ids(void)
{
    char u1[37], u2[37];
    fl_ice_uuid4(u1);
    fl_ice_uuid4(u2);
    CHECK_EQ_INT(strlen(u1), 36);
    CHECK(strcmp(u1, u2) != 0);
    CHECK(u1[8] == '-' && u1[13] == '-' && u1[18] == '-' && u1[23] == '-');
    CHECK(u1[14] == '4');
    CHECK(strchr("89ab", u1[19]) != NULL);
    for (int i = 0; i < 36; i++)
        CHECK(u1[i] == '-' || (u1[i] >= '0' && u1[i] <= '9') || (u1[i] >= 'a' && u1[i] <= 'f'));
    int64_t prev = 0;
    for (int i = 0; i < 1000; i++) {
        int64_t s = fl_ice_new_snapshot_id();
        CHECK(s > 0);
        CHECK(s != prev);
        prev = s;
    }
}

int main(void)
{
    TEST_RUN(test_parse);
    TEST_RUN(test_default_location);
    TEST_RUN(test_location_rules);
    TEST_RUN(test_private_file);
    TEST_RUN(test_versions);
    TEST_RUN(test_ids);
    return TEST_EXIT();
}
