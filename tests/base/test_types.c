/* Unit tests for base/types.c: widths, Iceberg spellings, equality, deep
 * copies, schema lookups and scalar comparison order. */
#include <math.h>

#include "floe/types.h"
#include "test.h"

static void test_widths(void)
{
    fl_type t = {0};
    static const struct {
        fl_type_id id;
        size_t w;
    } cases[] = {{FL_TYPE_BOOLEAN, 1},        {FL_TYPE_INT32, 4},   {FL_TYPE_INT64, 8},
                 {FL_TYPE_FLOAT32, 4},        {FL_TYPE_FLOAT64, 8}, {FL_TYPE_DECIMAL, 16},
                 {FL_TYPE_DATE, 4},           {FL_TYPE_TIME, 8},    {FL_TYPE_TIMESTAMP, 8},
                 {FL_TYPE_TIMESTAMPTZ_NS, 8}, {FL_TYPE_UUID, 16},   {FL_TYPE_STRING, 0},
                 {FL_TYPE_BINARY, 0},         {FL_TYPE_STRUCT, 0},  {FL_TYPE_LIST, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        t.id = cases[i].id;
        CHECK_EQ_INT(fl_type_width(&t), cases[i].w);
    }
    t.id = FL_TYPE_FIXED;
    t.fixed_len = 7;
    CHECK_EQ_INT(fl_type_width(&t), 7);
    CHECK(fl_type_is_varlen(&(fl_type){.id = FL_TYPE_STRING}));
    CHECK(fl_type_is_nested(&(fl_type){.id = FL_TYPE_MAP}));
}

static void test_parse_format(void)
{
    static const char *names[] = {"boolean",   "int",           "long",         "float",
                                  "double",    "decimal(9, 2)", "date",         "time",
                                  "timestamp", "timestamptz",   "timestamp_ns", "timestamptz_ns",
                                  "string",    "uuid",          "fixed[16]",    "binary"};
    char buf[64];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        fl_type t;
        CHECK(fl_type_parse_primitive(names[i], &t));
        size_t n = fl_type_format(&t, buf, sizeof buf);
        CHECK_EQ_INT(n, strlen(names[i]));
        CHECK_EQ_STR(buf, names[i]);
    }
    fl_type t;
    CHECK(fl_type_parse_primitive("decimal(38,38)", &t));
    CHECK_EQ_INT(t.id, FL_TYPE_DECIMAL);
    CHECK_EQ_INT(t.precision, 38);
    CHECK_EQ_INT(t.scale, 38);
    CHECK(fl_type_parse_primitive("uuid", &t) && t.fixed_len == 16);
    CHECK(fl_type_parse_primitive(" fixed[3] ", &t) && t.id == FL_TYPE_FIXED && t.fixed_len == 3);
    static const char *bad[] = {
        "",           "integer",       "decimal(39,1)",     "decimal(5,6)", "decimal(0,0)",
        "decimal(5)", "fixed[0]",      "fixed[]",           "fixed[3",      "struct<>",
        "Long",       "decimal(5,2)x", "fixed[99999999999]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(!fl_type_parse_primitive(bad[i], &t));
    /* truncation reports the needed length */
    fl_type_parse_primitive("timestamptz_ns", &t);
    CHECK_EQ_INT(fl_type_format(&t, buf, 4), 14);
    CHECK_EQ_STR(buf, "tim");
    CHECK_EQ_INT(fl_type_format(&t, NULL, 0), 14);
}

/* struct<id: long not null, tags: list<string>, attrs: map<string, int>> */
static fl_field elem[1], kv[2], top[3];
static fl_schema make_schema(void)
{
    elem[0] = (fl_field){
        .name = "element", .field_id = 4, .nullable = true, .type = {.id = FL_TYPE_STRING}};
    kv[0] = (fl_field){.name = "key", .field_id = 5, .type = {.id = FL_TYPE_STRING}};
    kv[1] =
        (fl_field){.name = "value", .field_id = 6, .nullable = true, .type = {.id = FL_TYPE_INT32}};
    top[0] = (fl_field){.name = "id", .field_id = 1, .type = {.id = FL_TYPE_INT64}, .doc = "key"};
    top[1] = (fl_field){.name = "tags",
                        .field_id = 2,
                        .nullable = true,
                        .type = {.id = FL_TYPE_LIST, .nchildren = 1, .children = elem}};
    top[2] = (fl_field){.name = "attrs",
                        .field_id = 3,
                        .nullable = true,
                        .type = {.id = FL_TYPE_MAP, .nchildren = 2, .children = kv}};
    return (fl_schema){.nfields = 3, .fields = top, .schema_id = 7};
}

static void test_nested_copy_find(void)
{
    fl_schema s = make_schema();
    fl_type st = {.id = FL_TYPE_STRUCT, .nchildren = 3, .children = top};
    char buf[200];
    fl_type_format(&st, buf, sizeof buf);
    CHECK_EQ_STR(buf, "struct<id: long not null, tags: list<string>, attrs: map<string, int>>");
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_schema c;
    CHECK_EQ_INT(fl_schema_copy(&a, &s, &c), FL_OK);
    CHECK(c.fields != s.fields);
    CHECK(c.fields[1].type.children != elem);
    CHECK(c.fields[0].name != top[0].name);
    CHECK_EQ_STR(c.fields[0].doc, "key");
    CHECK_EQ_INT(c.schema_id, 7);
    fl_type cst = {.id = FL_TYPE_STRUCT, .nchildren = 3, .children = c.fields};
    CHECK(fl_type_equal(&st, &cst));
    c.fields[2].type.children[1].field_id = 99;
    CHECK(!fl_type_equal(&st, &cst));
    c.fields[2].type.children[1].field_id = 6;
    c.fields[1].type.children[0].type.id = FL_TYPE_BINARY;
    CHECK(!fl_type_equal(&st, &cst));

    CHECK(fl_schema_find_name(&s, "tags") == &top[1]);
    CHECK(fl_schema_find_name(&s, "element") == NULL);
    CHECK(fl_schema_find_id(&s, 3) == &top[2]);
    CHECK(fl_schema_find_id(&s, 4) == &elem[0]);
    CHECK(fl_schema_find_id(&s, 6) == &kv[1]);
    CHECK(fl_schema_find_id(&s, 42) == NULL);
    CHECK(fl_schema_find_id(&s, 0) == NULL);
    fl_arena_free(&a);

    fl_type d1 = {.id = FL_TYPE_DECIMAL, .precision = 10, .scale = 2}, d2 = d1;
    CHECK(fl_type_equal(&d1, &d2));
    d2.scale = 3;
    CHECK(!fl_type_equal(&d1, &d2));
}

static fl_value val(fl_type_id id)
{
    return (fl_value){.type = {.id = id}};
}

static void test_value_compare(void)
{
    fl_value a = val(FL_TYPE_INT32), b = val(FL_TYPE_INT32);
    a.v.i32 = -5;
    b.v.i32 = 3;
    CHECK_EQ_INT(fl_value_compare(&a, &b), -1);
    CHECK_EQ_INT(fl_value_compare(&b, &a), 1);
    CHECK_EQ_INT(fl_value_compare(&a, &a), 0);
    a = val(FL_TYPE_TIMESTAMP), b = val(FL_TYPE_TIMESTAMP);
    a.v.i64 = INT64_MIN;
    b.v.i64 = INT64_MAX;
    CHECK_EQ_INT(fl_value_compare(&a, &b), -1);
    a = val(FL_TYPE_FLOAT64), b = val(FL_TYPE_FLOAT64);
    a.v.f64 = NAN;
    b.v.f64 = INFINITY;
    CHECK_EQ_INT(fl_value_compare(&a, &b), 1);
    CHECK_EQ_INT(fl_value_compare(&b, &a), -1);
    CHECK_EQ_INT(fl_value_compare(&a, &a), 0);
    a.v.f64 = -0.0;
    b.v.f64 = 0.0;
    CHECK_EQ_INT(fl_value_compare(&a, &b), -1);
    a = val(FL_TYPE_FLOAT32), b = val(FL_TYPE_FLOAT32);
    a.v.f32 = 1.5f;
    b.v.f32 = -2.0f;
    CHECK_EQ_INT(fl_value_compare(&a, &b), 1);
    a = val(FL_TYPE_DECIMAL), b = val(FL_TYPE_DECIMAL);
    a.v.dec = -((fl_i128)1 << 100);
    b.v.dec = 1;
    CHECK_EQ_INT(fl_value_compare(&a, &b), -1);
    a = val(FL_TYPE_STRING), b = val(FL_TYPE_STRING);
    a.v.bytes.ptr = (const uint8_t *)"ab";
    a.v.bytes.len = 2;
    b.v.bytes.ptr = (const uint8_t *)"abc";
    b.v.bytes.len = 3;
    CHECK_EQ_INT(fl_value_compare(&a, &b), -1);
    b.v.bytes.ptr = (const uint8_t *)"\xff";
    b.v.bytes.len = 1;
    CHECK_EQ_INT(fl_value_compare(&a, &b), -1); /* unsigned bytes */
    a.v.bytes.len = 0;
    b.v.bytes.len = 0;
    CHECK_EQ_INT(fl_value_compare(&a, &b), 0);
    a = val(FL_TYPE_BOOLEAN), b = val(FL_TYPE_BOOLEAN);
    a.v.b = false;
    b.v.b = true;
    CHECK_EQ_INT(fl_value_compare(&a, &b), -1);
}

int main(void)
{
    TEST_RUN(test_widths);
    TEST_RUN(test_parse_format);
    TEST_RUN(test_nested_copy_find);
    TEST_RUN(test_value_compare);
    return TEST_EXIT();
}
