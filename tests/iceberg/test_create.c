/*
 * test_create.c - new-table metadata: Java's fresh field-id order, partition
 * field ids and names, sort orders, properties and format versions; the
 * partition/sort field parser (Trino and Spark syntax) and its errors.
 */
#include <string.h>

#include "floe/iceberg.h"
#include "iceberg/write_internal.h"
#include "test.h"

/* id: long, s: struct<a: int, b: struct<c: string>>, l: list<struct<x: int>>,
 * m: map<string, double>, ts: timestamptz, d: date, name: string */
static fl_schema *sample_schema(fl_arena *a)
{
    static fl_field c[1], b[2], x[1], lel[1], mkv[2], s_children[2], top[7];
    memset(c, 0, sizeof c);
    c[0] = (fl_field){.name = "c", .nullable = true, .type = {.id = FL_TYPE_STRING}};
    b[0] = (fl_field){.name = "a", .nullable = true, .type = {.id = FL_TYPE_INT32}};
    b[1] = (fl_field){.name = "b",
                      .nullable = true,
                      .type = {.id = FL_TYPE_STRUCT, .nchildren = 1, .children = c}};
    x[0] = (fl_field){.name = "x", .nullable = true, .type = {.id = FL_TYPE_INT32}};
    lel[0] = (fl_field){.name = "element",
                        .nullable = true,
                        .type = {.id = FL_TYPE_STRUCT, .nchildren = 1, .children = x}};
    mkv[0] = (fl_field){.name = "key", .nullable = false, .type = {.id = FL_TYPE_STRING}};
    mkv[1] = (fl_field){.name = "value", .nullable = true, .type = {.id = FL_TYPE_FLOAT64}};
    top[0] =
        (fl_field){.name = "id", .field_id = 77, .nullable = false, .type = {.id = FL_TYPE_INT64}};
    top[1] = (fl_field){.name = "s",
                        .nullable = true,
                        .type = {.id = FL_TYPE_STRUCT, .nchildren = 2, .children = b}};
    top[2] = (fl_field){.name = "l",
                        .nullable = true,
                        .type = {.id = FL_TYPE_LIST, .nchildren = 1, .children = lel}};
    top[3] = (fl_field){.name = "m",
                        .nullable = true,
                        .type = {.id = FL_TYPE_MAP, .nchildren = 2, .children = mkv}};
    top[4] = (fl_field){.name = "ts", .nullable = true, .type = {.id = FL_TYPE_TIMESTAMPTZ}};
    top[5] = (fl_field){.name = "d", .nullable = true, .type = {.id = FL_TYPE_DATE}};
    top[6] = (fl_field){.name = "name", .nullable = true, .type = {.id = FL_TYPE_STRING}};
    (void)s_children;
    fl_schema *s = fl_arena_calloc(a, 1, sizeof *s);
    s->nfields = 7;
    s->fields = top;
    return s;
}

static void test_fresh_ids(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_schema out;
    int32_t last = 0;
    CHECK_OK(fl_ice_fresh_schema_ids(sample_schema(&a), &last, &a, &out, &err), &err);
    /* top level 1..7, then s's children (a=8, b=9), then b's child c=10,
     * then l's element 11, its struct child x=12, then m key 13 value 14 */
    CHECK_EQ_INT(out.fields[0].field_id, 1);
    CHECK_EQ_INT(out.fields[6].field_id, 7);
    const fl_field *s = &out.fields[1];
    CHECK_EQ_INT(s->type.children[0].field_id, 8);
    CHECK_EQ_INT(s->type.children[1].field_id, 9);
    CHECK_EQ_INT(s->type.children[1].type.children[0].field_id, 10);
    const fl_field *l = &out.fields[2];
    CHECK_EQ_INT(l->type.children[0].field_id, 11);
    CHECK_EQ_INT(l->type.children[0].type.children[0].field_id, 12);
    const fl_field *m = &out.fields[3];
    CHECK_EQ_INT(m->type.children[0].field_id, 13);
    CHECK_EQ_INT(m->type.children[1].field_id, 14);
    CHECK_EQ_INT(last, 14);
    fl_arena_free(&a);
}

static void test_new_metadata(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    const char *parts[] = {"day(ts)", "bucket(id, 16)", "truncate(name, 4)", "d",
                           "s.a",     "void(name)",     "years(d)"};
    const char *sorts[] = {"id DESC", "name"};
    fl_ice_kv props[] = {{"format-version", "3"}, {"owner", "me"}};
    fl_ice_map pm = {2, props};
    fl_ice_create_options o = {.schema = sample_schema(&a),
                               .partition_by = parts,
                               .npartition_by = 7,
                               .sort_by = sorts,
                               .nsort_by = 2,
                               .properties = &pm};
    const char *ident[] = {"id"};
    o.identifier_fields = ident;
    o.nidentifier_fields = 1;
    fl_ice_metadata m;
    CHECK_OK(ice_new_table_metadata(&o, "file:///w/db/t/", "0b2a9b9e-3c1e-4f5a-8b6f-0123456789ab",
                                    1700000000000, &a, &m, &err),
             &err);
    CHECK_EQ_INT(m.format_version, 3);
    CHECK_EQ_STR(m.location, "file:///w/db/t");
    CHECK_EQ_INT(m.last_column_id, 14);
    CHECK_EQ_INT(m.nspecs, 1);
    const fl_ice_partition_spec *sp = &m.specs[0];
    CHECK_EQ_INT(sp->nfields, 7);
    const char *names[] = {"ts_day", "id_bucket", "name_trunc", "d", "s.a", "name_null", "d_year"};
    const char *tr[] = {"day", "bucket[16]", "truncate[4]", "identity", "identity", "void", "year"};
    const int32_t src[] = {5, 1, 7, 6, 8, 7, 6};
    for (uint32_t i = 0; i < 7; i++) {
        CHECK_EQ_STR(sp->fields[i].name, names[i]);
        CHECK_EQ_STR(sp->fields[i].transform, tr[i]);
        CHECK_EQ_INT(sp->fields[i].source_id, src[i]);
        CHECK_EQ_INT(sp->fields[i].field_id, 1000 + (int)i);
    }
    CHECK_EQ_INT(m.last_partition_id, 1006);
    CHECK_EQ_INT(m.default_sort_order_id, 1);
    CHECK_EQ_INT(m.sort_orders[0].nfields, 2);
    CHECK(m.sort_orders[0].fields[0].descending);
    CHECK(!m.sort_orders[0].fields[0].nulls_first);
    CHECK(!m.sort_orders[0].fields[1].descending);
    CHECK(m.sort_orders[0].fields[1].nulls_first);
    CHECK(fl_ice_map_get(&m.properties, "format-version") == NULL);
    CHECK_EQ_STR(fl_ice_map_get(&m.properties, "owner"), "me");
    CHECK_EQ_STR(fl_ice_map_get(&m.properties, "write.parquet.compression-codec"), "zstd");
    CHECK_EQ_INT(m.schemas[0].nidentifier, 1);
    CHECK_EQ_INT(m.schemas[0].identifier_field_ids[0], 1);
    CHECK(m.has_next_row_id);
    CHECK_EQ_INT(m.current_snapshot_id, FL_ICE_NO_SNAPSHOT);

    /* writes and parses back equal */
    char *json = NULL;
    size_t len = 0;
    CHECK_OK(fl_ice_metadata_write(&m, 0, &json, &len, &err), &err);
    fl_ice_metadata back;
    CHECK_OK(fl_ice_metadata_parse((const uint8_t *)json, len, "new", &a, &back, &err), &err);
    CHECK(fl_ice_metadata_equal(&m, &back));
    free(json);

    /* default: v2, unpartitioned, unsorted */
    fl_ice_create_options o2 = {.schema = sample_schema(&a)};
    CHECK_OK(ice_new_table_metadata(&o2, "/w/t", "0b2a9b9e-3c1e-4f5a-8b6f-0123456789ab", 1, &a, &m,
                                    &err),
             &err);
    CHECK_EQ_INT(m.format_version, 2);
    CHECK_EQ_INT(m.specs[0].nfields, 0);
    CHECK_EQ_INT(m.last_partition_id, 999);
    CHECK_EQ_INT(m.default_sort_order_id, 0);
    CHECK_EQ_INT(m.sort_orders[0].order_id, 0);
    CHECK(!m.has_next_row_id);
    fl_arena_free(&a);
}

static void test_create_errors(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    struct {
        const char *part, *sort, *ident, *fv;
        fl_status code;
        const char *msg;
    } cases[] = {
        {"hour(d)", NULL, NULL, NULL, FL_ETYPE, "hour cannot be applied to date"},
        {"bucket(id)", NULL, NULL, NULL, FL_ESYNTAX, "bucket takes a column and a number"},
        {"bucket(id, 0)", NULL, NULL, NULL, FL_EINVAL, "positive number"},
        {"nope", NULL, NULL, NULL, FL_ENOTFOUND, "no column 'nope'"},
        {"foo(id)", NULL, NULL, NULL, FL_EINVAL, "unknown transform 'foo'"},
        {"s", NULL, NULL, NULL, FL_ETYPE, "not a primitive"},
        {NULL, "id SIDEWAYS", NULL, NULL, FL_ESYNTAX, "unexpected 'SIDEWAYS'"},
        {NULL, "id NULLS MIDDLE", NULL, NULL, FL_ESYNTAX, "NULLS FIRST or NULLS LAST"},
        {NULL, NULL, "name", NULL, FL_EINVAL, "must be required"},
        {NULL, NULL, "l.x", NULL, FL_EINVAL, "list or map"},
        {NULL, NULL, NULL, "4", FL_EINVAL, "format-version '4'"},
        {"ts AS id", NULL, NULL, NULL, FL_EINVAL, "conflicts with a column"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fl_ice_kv kv = {"format-version", cases[i].fv};
        fl_ice_map pm = {cases[i].fv ? 1 : 0, &kv};
        fl_ice_create_options o = {.schema = sample_schema(&a), .properties = &pm};
        if (cases[i].part) {
            o.partition_by = &cases[i].part;
            o.npartition_by = 1;
        }
        if (cases[i].sort) {
            o.sort_by = &cases[i].sort;
            o.nsort_by = 1;
        }
        if (cases[i].ident) {
            o.identifier_fields = &cases[i].ident;
            o.nidentifier_fields = 1;
        }
        fl_error_clear(&err);
        fl_status rc = ice_new_table_metadata(&o, "/t", "u", 1, &a, &m, &err);
        CHECK_EQ_INT(rc, cases[i].code);
        if (!strstr(err.msg, cases[i].msg))
            fprintf(stderr, "case %zu: message '%s' lacks '%s'\n", i, err.msg, cases[i].msg);
        CHECK(strstr(err.msg, cases[i].msg) != NULL);
    }
    fl_arena_free(&a);
}

static void test_parse_forms(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_schema fresh;
    int32_t last = 0;
    CHECK_OK(fl_ice_fresh_schema_ids(sample_schema(&a), &last, &a, &fresh, &err), &err);
    fl_ice_schema s;
    CHECK_OK(fl_ice_schema_from_fl(&fresh, 0, &a, &s, &err), &err);
    struct {
        const char *text, *name, *transform;
        int32_t source;
    } ok[] = {
        {"bucket(16, id)", "id_bucket", "bucket[16]", 1},
        {"BUCKET( id , 8 )", "id_bucket", "bucket[8]", 1},
        {"truncate(4, name)", "name_trunc", "truncate[4]", 7},
        {"days(ts)", "ts_day", "day", 5},
        {"hours(ts)", "ts_hour", "hour", 5},
        {"months(ts)", "ts_month", "month", 5},
        {"month(d) AS mon", "mon", "month", 6},
        {"\"ID\"", "id", "identity", 1},
        {"s.b.c", "s.b.c", "identity", 10},
        {"identity(name)", "name", "identity", 7},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        fl_ice_partition_field f;
        CHECK_OK(fl_ice_parse_partition_field(ok[i].text, &s, &a, &f, &err), &err);
        CHECK_EQ_STR(f.name, ok[i].name);
        CHECK_EQ_STR(f.transform, ok[i].transform);
        CHECK_EQ_INT(f.source_id, ok[i].source);
    }
    fl_ice_sort_field sf;
    CHECK_OK(fl_ice_parse_sort_field("bucket(id, 4) DESC NULLS FIRST", &s, &a, &sf, &err), &err);
    CHECK_EQ_STR(sf.transform, "bucket[4]");
    CHECK(sf.descending && sf.nulls_first);
    CHECK_OK(fl_ice_parse_sort_field("name ASC NULLS LAST", &s, &a, &sf, &err), &err);
    CHECK(!sf.descending && !sf.nulls_first);
    CHECK_EQ_INT(sf.source_id, 7);
    CHECK(fl_ice_parse_partition_field("bucket(id, 4", &s, &a, &(fl_ice_partition_field){0},
                                       &err) == FL_ESYNTAX);
    CHECK(fl_ice_parse_partition_field("", &s, &a, &(fl_ice_partition_field){0}, &err) ==
          FL_ESYNTAX);
    CHECK(fl_ice_parse_partition_field("id extra", &s, &a, &(fl_ice_partition_field){0}, &err) ==
          FL_ESYNTAX);
    fl_arena_free(&a);
}

int main(void)
{
    TEST_RUN(test_fresh_ids);
    TEST_RUN(test_new_metadata);
    TEST_RUN(test_create_errors);
    TEST_RUN(test_parse_forms);
    return TEST_EXIT();
}
