/*
 * test_ident.c - identifier parsing/printing (quoted levels), default
 * locations, metadata file versions, UUIDs and snapshot ids.
 */
#include "catalog/catalog_internal.h"
#include "floe/ice_table.h"
#include "test.h"

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

static void test_default_location(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_catalog c = {NULL, "floe", "s3://bucket/wh/", NULL};
    fl_table_ident id;
    CHECK_OK(fl_table_ident_parse("a.b.t", &a, &id, &err), &err);
    CHECK_EQ_STR(fl_catalog_default_location(&c, &id, &a), "s3://bucket/wh/a/b/t");
    c.warehouse = "/w";
    CHECK_OK(fl_table_ident_parse("t", &a, &id, &err), &err);
    CHECK_EQ_STR(fl_catalog_default_location(&c, &id, &a), "/w/t");
    fl_arena_free(&a);
}

static void test_versions(void)
{
    static const char *order[] = {"vfinal.metadata.json", "v1.metadata.json",
                                  "v3.metadata.json",     "v3.1.metadata.json",
                                  "v3.2.metadata.json",   "v4.gz.metadata.json",
                                  "v7.metadata.json",     "v1749025517.metadata.json"};
    for (size_t i = 0; i + 1 < sizeof order / sizeof *order; i++) {
        fl_cat_version x = fl_cat_name_version(order[i]), y = fl_cat_name_version(order[i + 1]);
        CHECK(fl_cat_version_cmp(&x, &y) < 0);
    }
    fl_cat_version v =
        fl_cat_name_version("00012-6f1d6a3c-0e7b-4e59-a0a0-7d8c2c4e9c51.metadata.json");
    CHECK_EQ_INT(v.nparts, 1);
    CHECK_EQ_INT(v.parts[0], 12);
    v = fl_cat_name_version("00002-legacy-bare-dv.metadata.json");
    CHECK_EQ_INT(v.parts[0], 2);
    CHECK(fl_cat_is_metadata_name("v2.gz.metadata.json"));
    CHECK(fl_cat_is_metadata_name("x.metadata.json.gz"));
    CHECK(!fl_cat_is_metadata_name("snap-1.avro"));
    CHECK(!fl_cat_is_metadata_name("version-hint.text"));
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
    TEST_RUN(test_versions);
    TEST_RUN(test_ids);
    return TEST_EXIT();
}
