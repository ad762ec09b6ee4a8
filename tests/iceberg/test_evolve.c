/*
 * test_evolve.c - schema, partition and sort evolution as pure functions:
 * new ids from last-column-id, fresh ids of added nested types, name and
 * promotion rules, identifier/partition protection, v1 void partition
 * removal, field-id reuse for re-added partition fields, equal-spec reuse.
 */
#include <string.h>

#include "floe/iceberg.h"
#include "iceberg/write_internal.h"
#include "test.h"

static const char *META_V2 =
    "{\"format-version\":2,\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\","
    "\"location\":\"/w/t\",\"last-sequence-number\":0,\"last-updated-ms\":1,"
    "\"last-column-id\":6,\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\","
    "\"schema-id\":0,\"identifier-field-ids\":[1],\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"ts\",\"required\":false,\"type\":\"timestamptz\"},"
    "{\"id\":3,\"name\":\"n\",\"required\":false,\"type\":\"int\"},"
    "{\"id\":4,\"name\":\"s\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":5,\"name\":\"a\",\"required\":false,\"type\":\"float\"},"
    "{\"id\":6,\"name\":\"b\",\"required\":false,\"type\":\"decimal(9,2)\"}]}}]}],"
    "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":["
    "{\"name\":\"ts_day\",\"transform\":\"day\",\"source-id\":2,\"field-id\":1000}]}],"
    "\"last-partition-id\":1000,\"default-sort-order-id\":1,\"sort-orders\":["
    "{\"order-id\":0,\"fields\":[]},{\"order-id\":1,\"fields\":[{\"transform\":\"identity\","
    "\"source-id\":3,\"direction\":\"asc\",\"null-order\":\"nulls-first\"}]}],"
    "\"properties\":{},\"current-snapshot-id\":-1,\"refs\":{},\"snapshots\":[],"
    "\"snapshot-log\":[],\"metadata-log\":[]}";

static fl_status load(const char *json, fl_arena *a, fl_ice_metadata *m, fl_error *err)
{
    return fl_ice_metadata_parse((const uint8_t *)json, strlen(json), "t", a, m, err);
}

static void test_add_columns(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    CHECK_OK(load(META_V2, &a, &m, &err), &err);
    ice_schema_change c;
    fl_type t = {.id = FL_TYPE_STRING};
    CHECK_OK(ice_evolve_add_column(&m, NULL, "note", &t, true, "a note", NULL, &a, &c, &err), &err);
    CHECK_EQ_INT(c.schema.schema_id, 1);
    CHECK_EQ_INT(c.last_column_id, 7);
    CHECK_EQ_INT(c.schema.schema.nfields, 5);
    CHECK_EQ_STR(c.schema.schema.fields[4].name, "note");
    CHECK_EQ_INT(c.schema.schema.fields[4].field_id, 7);
    CHECK_EQ_STR(c.schema.schema.fields[4].doc, "a note");
    /* the input is untouched */
    CHECK_EQ_INT(m.schemas[0].schema.nfields, 4);

    /* nested: a map<string, struct<x:int>> gets ids 7 (field), 8 key, 9 value, 10 x */
    fl_field x[1] = {{.name = "x", .nullable = true, .type = {.id = FL_TYPE_INT32}}};
    fl_field kv[2] = {{.name = "key", .type = {.id = FL_TYPE_STRING}},
                      {.name = "value",
                       .nullable = true,
                       .type = {.id = FL_TYPE_STRUCT, .nchildren = 1, .children = x}}};
    fl_type mt = {.id = FL_TYPE_MAP, .nchildren = 2, .children = kv};
    CHECK_OK(ice_evolve_add_column(&m, NULL, "attrs", &mt, true, NULL, NULL, &a, &c, &err), &err);
    const fl_field *f = &c.schema.schema.fields[4];
    CHECK_EQ_INT(f->field_id, 7);
    CHECK_EQ_INT(f->type.children[0].field_id, 8);
    CHECK_EQ_INT(f->type.children[1].field_id, 9);
    CHECK_EQ_INT(f->type.children[1].type.children[0].field_id, 10);
    CHECK_EQ_INT(c.last_column_id, 10);

    /* into a struct */
    CHECK_OK(ice_evolve_add_column(&m, "s", "c", &t, true, NULL, NULL, &a, &c, &err), &err);
    CHECK_EQ_INT(c.schema.schema.fields[3].type.nchildren, 3);
    CHECK_EQ_INT(c.schema.schema.fields[3].type.children[2].field_id, 7);

    /* errors */
    CHECK(ice_evolve_add_column(&m, NULL, "n", &t, true, NULL, NULL, &a, &c, &err) == FL_EEXIST);
    CHECK(ice_evolve_add_column(&m, NULL, "a.b", &t, true, NULL, NULL, &a, &c, &err) == FL_EINVAL);
    CHECK(ice_evolve_add_column(&m, "n", "z", &t, true, NULL, NULL, &a, &c, &err) == FL_EINVAL);
    CHECK(ice_evolve_add_column(&m, "zz", "z", &t, true, NULL, NULL, &a, &c, &err) == FL_ENOTFOUND);
    CHECK(ice_evolve_add_column(&m, NULL, "req", &t, false, NULL, NULL, &a, &c, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "required column needs a default") != NULL);
    CHECK(ice_evolve_add_column(&m, NULL, "dflt", &t, true, NULL, "\"x\"", &a, &c, &err) ==
          FL_EINVAL);
    CHECK(strstr(err.msg, "format version 3") != NULL);

    /* v3: a required column with a default */
    m.format_version = 3;
    CHECK_OK(ice_evolve_add_column(&m, NULL, "req", &t, false, NULL, "\"x\"", &a, &c, &err), &err);
    const fl_ice_field_extra *e = fl_ice_schema_extra(&c.schema, 7);
    CHECK(e && e->initial_default && !strcmp(e->initial_default, "\"x\""));
    CHECK(e && e->write_default && !strcmp(e->write_default, "\"x\""));
    CHECK(ice_evolve_add_column(&m, NULL, "bad", &t, true, NULL, "{nope", &a, &c, &err) ==
          FL_ESYNTAX);
    fl_arena_free(&a);
}

static void test_drop_rename_move(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    CHECK_OK(load(META_V2, &a, &m, &err), &err);
    ice_schema_change c;
    CHECK_OK(ice_evolve_drop_column(&m, "s.a", &a, &c, &err), &err);
    CHECK_EQ_INT(c.schema.schema.fields[3].type.nchildren, 1);
    CHECK_EQ_STR(c.schema.schema.fields[3].type.children[0].name, "b");
    CHECK_EQ_INT(c.last_column_id, 6);
    CHECK(ice_evolve_drop_column(&m, "id", &a, &c, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "identifier") != NULL);
    CHECK(ice_evolve_drop_column(&m, "ts", &a, &c, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "partition spec") != NULL);
    CHECK(ice_evolve_drop_column(&m, "n", &a, &c, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "sort order") != NULL);
    CHECK(ice_evolve_drop_column(&m, "zz", &a, &c, &err) == FL_ENOTFOUND);

    CHECK_OK(ice_evolve_rename_column(&m, "s.b", "bee", &a, &c, &err), &err);
    CHECK_EQ_STR(c.schema.schema.fields[3].type.children[1].name, "bee");
    CHECK_EQ_INT(c.schema.schema.fields[3].type.children[1].field_id, 6);
    CHECK(ice_evolve_rename_column(&m, "s.b", "a", &a, &c, &err) == FL_EEXIST);
    CHECK(ice_evolve_rename_column(&m, "n", "", &a, &c, &err) == FL_EINVAL);

    CHECK_OK(ice_evolve_move_column(&m, "s", NULL, true, &a, &c, &err), &err);
    const char *order1[] = {"s", "id", "ts", "n"};
    for (int i = 0; i < 4; i++)
        CHECK_EQ_STR(c.schema.schema.fields[i].name, order1[i]);
    CHECK_OK(ice_evolve_move_column(&m, "id", "n", false, &a, &c, &err), &err);
    const char *order2[] = {"ts", "n", "id", "s"};
    for (int i = 0; i < 4; i++)
        CHECK_EQ_STR(c.schema.schema.fields[i].name, order2[i]);
    CHECK_OK(ice_evolve_move_column(&m, "id", "s", false, &a, &c, &err), &err);
    CHECK_EQ_STR(c.schema.schema.fields[3].name, "id");
    CHECK(ice_evolve_move_column(&m, "id", "s.a", false, &a, &c, &err) == FL_EINVAL);
    CHECK(ice_evolve_move_column(&m, "id", "id", false, &a, &c, &err) == FL_EINVAL);
    fl_arena_free(&a);
}

static void test_types_and_optional(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    CHECK_OK(load(META_V2, &a, &m, &err), &err);
    ice_schema_change c;
    fl_type lng = {.id = FL_TYPE_INT64}, dbl = {.id = FL_TYPE_FLOAT64},
            str = {.id = FL_TYPE_STRING};
    fl_type d12 = {.id = FL_TYPE_DECIMAL, .precision = 12, .scale = 2};
    fl_type d12s3 = {.id = FL_TYPE_DECIMAL, .precision = 12, .scale = 3};
    fl_type d8 = {.id = FL_TYPE_DECIMAL, .precision = 8, .scale = 2};
    CHECK_OK(ice_evolve_update_type(&m, "n", &lng, &a, &c, &err), &err);
    CHECK_EQ_INT(c.schema.schema.fields[2].type.id, FL_TYPE_INT64);
    CHECK_OK(ice_evolve_update_type(&m, "s.a", &dbl, &a, &c, &err), &err);
    CHECK_OK(ice_evolve_update_type(&m, "s.b", &d12, &a, &c, &err), &err);
    CHECK_EQ_INT(c.schema.schema.fields[3].type.children[1].type.precision, 12);
    CHECK(ice_evolve_update_type(&m, "s.b", &d12s3, &a, &c, &err) == FL_ETYPE);
    CHECK(ice_evolve_update_type(&m, "s.b", &d8, &a, &c, &err) == FL_ETYPE);
    CHECK(ice_evolve_update_type(&m, "n", &str, &a, &c, &err) == FL_ETYPE);
    CHECK(strstr(err.msg, "cannot change int to string") != NULL);
    CHECK(ice_evolve_update_type(&m, "s", &str, &a, &c, &err) == FL_EINVAL);

    fl_type date = {.id = FL_TYPE_DATE}, ts = {.id = FL_TYPE_TIMESTAMP};
    CHECK(!ice_type_promotion_ok(&date, &ts, 2));
    CHECK(ice_type_promotion_ok(&date, &ts, 3));

    CHECK_OK(ice_evolve_make_optional(&m, "ts", &a, &c, &err), &err);
    CHECK(ice_evolve_make_optional(&m, "id", &a, &c, &err) == FL_EINVAL);

    CHECK(ice_evolve_set_default(&m, "n", "5", &a, &c, &err) == FL_EINVAL);
    m.format_version = 3;
    CHECK_OK(ice_evolve_set_default(&m, "n", "5", &a, &c, &err), &err);
    const fl_ice_field_extra *e = fl_ice_schema_extra(&c.schema, 3);
    CHECK(e && e->write_default && !strcmp(e->write_default, "5") && !e->initial_default);

    const char *ids[] = {"id", "s.b"};
    CHECK(ice_evolve_set_identifier(&m, ids, 2, &a, &c, &err) == FL_EINVAL); /* s optional */
    CHECK_OK(ice_evolve_set_identifier(&m, ids, 1, &a, &c, &err), &err);
    const char *bad[] = {"s.a"};
    CHECK(ice_evolve_set_identifier(&m, bad, 1, &a, &c, &err) == FL_EINVAL);
    fl_arena_free(&a);
}

static void test_partition_evolution(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    CHECK_OK(load(META_V2, &a, &m, &err), &err);
    fl_ice_partition_spec s;
    int32_t existing;
    CHECK_OK(ice_evolve_add_partition(&m, "bucket(id, 8)", &a, &s, &existing, &err), &err);
    CHECK_EQ_INT(existing, -1);
    CHECK_EQ_INT(s.spec_id, -1);
    CHECK_EQ_INT(s.nfields, 2);
    CHECK_EQ_STR(s.fields[1].name, "id_bucket");
    CHECK_EQ_INT(s.fields[1].field_id, 1001);
    CHECK(ice_evolve_add_partition(&m, "day(ts)", &a, &s, &existing, &err) == FL_EEXIST);
    CHECK(ice_evolve_add_partition(&m, "month(ts)", &a, &s, &existing, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "redundant") != NULL);

    CHECK_OK(ice_evolve_remove_partition(&m, "ts_day", &a, &s, &existing, &err), &err);
    CHECK_EQ_INT(s.nfields, 0);
    CHECK_OK(ice_evolve_remove_partition(&m, "day(ts)", &a, &s, &existing, &err), &err);
    CHECK_EQ_INT(s.nfields, 0);
    CHECK(ice_evolve_remove_partition(&m, "n", &a, &s, &existing, &err) == FL_ENOTFOUND);

    /* an equal spec already exists -> reuse it */
    CHECK_OK(ice_evolve_remove_partition(&m, "ts_day", &a, &s, &existing, &err), &err);
    fl_ice_partition_spec two[2] = {m.specs[0], {.spec_id = 1}};
    fl_ice_partition_spec *orig = m.specs;
    m.specs = two;
    m.nspecs = 2;
    m.default_spec_id = 1;
    CHECK_OK(ice_evolve_add_partition(&m, "day(ts)", &a, &s, &existing, &err), &err);
    CHECK_EQ_INT(s.fields[0].field_id, 1000); /* re-added: old field id back (v2) */
    CHECK_EQ_INT(existing, 0);                /* and spec 0 is that spec */
    m.specs = orig;
    m.nspecs = 1;
    m.default_spec_id = 0;

    /* v1: removal keeps a void slot */
    m.format_version = 1;
    CHECK_OK(ice_evolve_remove_partition(&m, "ts_day", &a, &s, &existing, &err), &err);
    CHECK_EQ_INT(s.nfields, 1);
    CHECK_EQ_STR(s.fields[0].transform, "void");
    CHECK_EQ_INT(s.fields[0].field_id, 1000);

    /* sort orders */
    fl_ice_sort_order o;
    const char *by[] = {"n"};
    CHECK_OK(ice_evolve_sort_order(&m, by, 1, &a, &o, &existing, &err), &err);
    CHECK_EQ_INT(existing, 1);
    const char *by2[] = {"id DESC", "day(ts)"};
    CHECK_OK(ice_evolve_sort_order(&m, by2, 2, &a, &o, &existing, &err), &err);
    CHECK_EQ_INT(existing, -1);
    CHECK_EQ_INT(o.order_id, -1);
    CHECK_EQ_STR(o.fields[1].transform, "day");
    CHECK_OK(ice_evolve_sort_order(&m, NULL, 0, &a, &o, &existing, &err), &err);
    CHECK_EQ_INT(existing, 0);
    fl_arena_free(&a);
}

int main(void)
{
    TEST_RUN(test_add_columns);
    TEST_RUN(test_drop_rename_move);
    TEST_RUN(test_types_and_optional);
    TEST_RUN(test_partition_evolution);
    return TEST_EXIT();
}
