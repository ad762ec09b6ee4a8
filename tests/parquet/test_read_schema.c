/*
 * test_read_schema.c - schema mapping without files: hand-built SchemaElement
 * lists (parquet_meta.h) through fl_pq_schema_build, covering the primitive
 * type table and every LIST / MAP backward-compatibility rule of
 * LogicalTypes.md, plus the max definition / repetition levels of leaves.
 */
#include <string.h>

#include "parquet/reader_int.h"
#include "test.h"

typedef struct sb {
    fl_pq_schema_element el[32];
    uint32_t n;
} sb;

static fl_pq_schema_element *add(sb *s, const char *name, fl_pq_repetition rep, int nchildren)
{
    fl_pq_schema_element *e = &s->el[s->n++];
    memset(e, 0, sizeof *e);
    e->name = name;
    e->repetition = rep;
    e->num_children = nchildren;
    e->converted_type = FL_PQ_CT_NONE;
    e->scale = e->precision = -1;
    return e;
}

static fl_pq_schema_element *prim(sb *s, const char *name, fl_pq_repetition rep, fl_pq_type t)
{
    fl_pq_schema_element *e = add(s, name, rep, 0);
    e->type_set = true;
    e->type = t;
    return e;
}

static fl_status build(sb *s, fl_parquet_reader *r, fl_error *e)
{
    memset(r, 0, sizeof *r);
    fl_arena_init(&r->arena, 0);
    r->meta.nschema = s->n;
    r->meta.schema = s->el;
    return fl_pq_schema_build(r, e);
}

static void fmt(const fl_field *f, char *buf, size_t cap)
{
    fl_type_format(&f->type, buf, cap);
}

static void test_primitives(void)
{
    sb s = {0};
    add(&s, "root", FL_PQ_REP_NONE, 14);
    prim(&s, "u8", FL_PQ_REQUIRED, FL_PQ_INT32)->converted_type = FL_PQ_CT_UINT_8;
    prim(&s, "u32", FL_PQ_OPTIONAL, FL_PQ_INT32)->converted_type = FL_PQ_CT_UINT_32;
    fl_pq_schema_element *u64 = prim(&s, "u64", FL_PQ_OPTIONAL, FL_PQ_INT64);
    u64->logical.kind = FL_PQ_LT_INTEGER;
    u64->logical.int_bit_width = 64;
    u64->logical.int_is_signed = false;
    prim(&s, "tsm", FL_PQ_OPTIONAL, FL_PQ_INT64)->converted_type = FL_PQ_CT_TIMESTAMP_MILLIS;
    fl_pq_schema_element *tsn = prim(&s, "tsn", FL_PQ_OPTIONAL, FL_PQ_INT64);
    tsn->logical.kind = FL_PQ_LT_TIMESTAMP;
    tsn->logical.unit = FL_PQ_NANOS;
    tsn->logical.is_adjusted_to_utc = false;
    fl_pq_schema_element *tn = prim(&s, "tn", FL_PQ_OPTIONAL, FL_PQ_INT64);
    tn->logical.kind = FL_PQ_LT_TIME;
    tn->logical.unit = FL_PQ_NANOS;
    fl_pq_schema_element *uu = prim(&s, "uu", FL_PQ_OPTIONAL, FL_PQ_FIXED_LEN_BYTE_ARRAY);
    uu->type_length = 16;
    uu->logical.kind = FL_PQ_LT_UUID;
    fl_pq_schema_element *h = prim(&s, "h", FL_PQ_OPTIONAL, FL_PQ_FIXED_LEN_BYTE_ARRAY);
    h->type_length = 2;
    h->logical.kind = FL_PQ_LT_FLOAT16;
    prim(&s, "j", FL_PQ_OPTIONAL, FL_PQ_BYTE_ARRAY)->converted_type = FL_PQ_CT_JSON;
    prim(&s, "v", FL_PQ_OPTIONAL, FL_PQ_BYTE_ARRAY)->logical.kind = FL_PQ_LT_VARIANT;
    fl_pq_schema_element *big = prim(&s, "big", FL_PQ_OPTIONAL, FL_PQ_BYTE_ARRAY);
    big->logical.kind = FL_PQ_LT_DECIMAL;
    big->logical.decimal_precision = 40;
    big->logical.decimal_scale = 2;
    fl_pq_schema_element *iv = prim(&s, "iv", FL_PQ_OPTIONAL, FL_PQ_FIXED_LEN_BYTE_ARRAY);
    iv->type_length = 12;
    iv->converted_type = FL_PQ_CT_INTERVAL;
    fl_pq_schema_element *d = prim(&s, "d", FL_PQ_OPTIONAL, FL_PQ_FIXED_LEN_BYTE_ARRAY);
    d->type_length = 9;
    d->converted_type = FL_PQ_CT_DECIMAL;
    d->precision = 20;
    d->scale = 3;
    d->field_id_set = true;
    d->field_id = 42;
    prim(&s, "i96", FL_PQ_OPTIONAL, FL_PQ_INT96);
    fl_parquet_reader r;
    fl_error e = {0};
    CHECK_OK(build(&s, &r, &e), &e);
    const char *want[] = {"int",    "long",      "decimal(20, 0)", "timestamptz", "timestamp_ns",
                          "time",   "uuid",      "float",          "string",      "binary",
                          "binary", "fixed[12]", "decimal(20, 3)", "timestamp_ns"};
    CHECK_EQ_INT(r.schema.nfields, 14);
    for (uint32_t i = 0; i < r.schema.nfields && i < 14; i++) {
        char buf[64];
        fmt(&r.schema.fields[i], buf, sizeof buf);
        char w[64];
        fl_type t;
        /* compare through the parser so spacing conventions do not matter */
        if (fl_type_parse_primitive(want[i], &t)) {
            CHECK(fl_type_equal(&t, &r.schema.fields[i].type));
            if (!fl_type_equal(&t, &r.schema.fields[i].type))
                fprintf(stderr, "field %s: %s, want %s\n", r.schema.fields[i].name, buf, want[i]);
        } else {
            snprintf(w, sizeof w, "%s", want[i]);
            CHECK_EQ_STR(buf, w);
        }
    }
    CHECK(!r.schema.fields[0].nullable);
    CHECK(r.schema.fields[1].nullable);
    CHECK_EQ_INT(r.schema.fields[12].field_id, 42);
    CHECK_EQ_INT(r.leaves[3].conv, FL_PQC_I64_MS_US);
    CHECK_EQ_INT(r.leaves[5].conv, FL_PQC_I64_NS_US);
    CHECK_EQ_INT(r.leaves[13].conv, FL_PQC_INT96_NS);
    CHECK_EQ_INT(r.leaves[0].max_def, 0);
    CHECK_EQ_INT(r.leaves[1].max_def, 1);
    fl_arena_free(&r.arena);
}

static void check_field(const fl_parquet_reader *r, uint32_t i, const char *want)
{
    char buf[256];
    fmt(&r->schema.fields[i], buf, sizeof buf);
    /* normalise: drop spaces */
    char a[256], b[256];
    size_t k = 0;
    for (const char *p = buf; *p && k < 255; p++)
        if (*p != ' ')
            a[k++] = *p;
    a[k] = 0;
    k = 0;
    for (const char *p = want; *p && k < 255; p++)
        if (*p != ' ')
            b[k++] = *p;
    b[k] = 0;
    if (strcmp(a, b) != 0)
        fprintf(stderr, "field %s: %s, want %s\n", r->schema.fields[i].name, buf, want);
    CHECK_EQ_STR(a, b);
}

static void test_lists(void)
{
    sb s = {0};
    add(&s, "root", FL_PQ_REP_NONE, 6);
    /* 1. standard 3-level */
    add(&s, "l3", FL_PQ_OPTIONAL, 1)->converted_type = FL_PQ_CT_LIST;
    add(&s, "list", FL_PQ_REPEATED, 1);
    prim(&s, "element", FL_PQ_OPTIONAL, FL_PQ_INT32);
    /* 2. 2-level: repeated primitive */
    add(&s, "l2", FL_PQ_OPTIONAL, 1)->logical.kind = FL_PQ_LT_LIST;
    prim(&s, "item", FL_PQ_REPEATED, FL_PQ_INT64);
    /* 3. repeated group named "array" with one field: element is the group */
    add(&s, "la", FL_PQ_REQUIRED, 1)->converted_type = FL_PQ_CT_LIST;
    add(&s, "array", FL_PQ_REPEATED, 1);
    prim(&s, "str", FL_PQ_REQUIRED, FL_PQ_BYTE_ARRAY)->converted_type = FL_PQ_CT_UTF8;
    /* 4. <name>_tuple */
    add(&s, "lt", FL_PQ_OPTIONAL, 1)->converted_type = FL_PQ_CT_LIST;
    add(&s, "lt_tuple", FL_PQ_REPEATED, 1);
    prim(&s, "str", FL_PQ_REQUIRED, FL_PQ_BYTE_ARRAY);
    /* 5. repeated group with two fields */
    add(&s, "lg", FL_PQ_OPTIONAL, 1)->converted_type = FL_PQ_CT_LIST;
    add(&s, "element", FL_PQ_REPEATED, 2);
    prim(&s, "a", FL_PQ_REQUIRED, FL_PQ_INT32);
    prim(&s, "b", FL_PQ_OPTIONAL, FL_PQ_INT32);
    /* 6. repeated field outside any LIST */
    prim(&s, "rep", FL_PQ_REPEATED, FL_PQ_INT32);
    fl_parquet_reader r;
    fl_error e = {0};
    CHECK_OK(build(&s, &r, &e), &e);
    CHECK_EQ_INT(r.schema.nfields, 6);
    check_field(&r, 0, "list<int>");
    check_field(&r, 1, "list<long>");
    check_field(&r, 2, "list<struct<str: string not null>>");
    check_field(&r, 3, "list<struct<str: binary not null>>");
    check_field(&r, 4, "list<struct<a: int not null, b: int>>");
    check_field(&r, 5, "list<int>");
    CHECK(r.schema.fields[0].type.children[0].nullable);
    CHECK(!r.schema.fields[1].type.children[0].nullable);
    CHECK(!r.schema.fields[5].nullable);
    CHECK(!r.schema.fields[5].type.children[0].nullable);
    /* levels: l3 optional(1) + repeated(2) + optional element(3) */
    CHECK_EQ_INT(r.leaves[0].max_def, 3);
    CHECK_EQ_INT(r.leaves[0].max_rep, 1);
    CHECK_EQ_INT(r.leaves[1].max_def, 2);
    CHECK_EQ_INT(r.leaves[2].max_def, 1);
    CHECK_EQ_INT(r.leaves[5].max_def, 3); /* lg.element.b */
    CHECK_EQ_INT(r.leaves[6].max_def, 1);
    CHECK_EQ_INT(r.leaves[6].max_rep, 1);
    CHECK_EQ_STR(r.leaves[0].path, "l3.list.element");
    CHECK_EQ_STR(r.leaves[5].path, "lg.element.b");
    /* node levels of the 3-level list */
    CHECK_EQ_INT(r.top[0].def, 1);
    CHECK_EQ_INT(r.top[0].elem_def, 2);
    CHECK_EQ_INT(r.top[0].elem_rep, 1);
    CHECK_EQ_INT(r.top[0].children[0].slot_def, 2);
    fl_arena_free(&r.arena);
}

static void test_maps(void)
{
    sb s = {0};
    add(&s, "root", FL_PQ_REP_NONE, 3);
    add(&s, "m", FL_PQ_OPTIONAL, 1)->converted_type = FL_PQ_CT_MAP;
    add(&s, "key_value", FL_PQ_REPEATED, 2);
    prim(&s, "key", FL_PQ_REQUIRED, FL_PQ_BYTE_ARRAY)->converted_type = FL_PQ_CT_UTF8;
    prim(&s, "value", FL_PQ_OPTIONAL, FL_PQ_INT32);
    /* legacy: MAP_KEY_VALUE on the outer group */
    add(&s, "ml", FL_PQ_REQUIRED, 1)->converted_type = FL_PQ_CT_MAP_KEY_VALUE;
    add(&s, "map", FL_PQ_REPEATED, 2);
    prim(&s, "key", FL_PQ_REQUIRED, FL_PQ_INT32);
    prim(&s, "value", FL_PQ_REQUIRED, FL_PQ_DOUBLE);
    /* keys only */
    add(&s, "mk", FL_PQ_OPTIONAL, 1)->logical.kind = FL_PQ_LT_MAP;
    add(&s, "key_value", FL_PQ_REPEATED, 1);
    prim(&s, "key", FL_PQ_REQUIRED, FL_PQ_INT32);
    fl_parquet_reader r;
    fl_error e = {0};
    CHECK_OK(build(&s, &r, &e), &e);
    check_field(&r, 0, "map<string, int>");
    check_field(&r, 1, "map<int, double>");
    check_field(&r, 2, "list<int>");
    CHECK_EQ_STR(r.schema.fields[0].type.children[0].name, "key");
    CHECK_EQ_STR(r.schema.fields[0].type.children[1].name, "value");
    CHECK_EQ_INT(r.leaves[1].max_def, 3);
    CHECK_EQ_INT(r.leaves[1].max_rep, 1);
    fl_arena_free(&r.arena);
}

static void test_malformed(void)
{
    fl_parquet_reader r;
    fl_error e = {0};
    sb s = {0};
    add(&s, "root", FL_PQ_REP_NONE, 3); /* claims 3 children, has 1 */
    prim(&s, "a", FL_PQ_REQUIRED, FL_PQ_INT32);
    CHECK_EQ_INT(build(&s, &r, &e), FL_ECORRUPT);
    fl_arena_free(&r.arena);
    sb s2 = {0};
    add(&s2, "root", FL_PQ_REP_NONE, 1);
    add(&s2, "g", FL_PQ_OPTIONAL, 0); /* empty group */
    CHECK(build(&s2, &r, &e) != FL_OK);
    fl_arena_free(&r.arena);
    sb s3 = {0};
    add(&s3, "root", FL_PQ_REP_NONE, 1);
    fl_pq_schema_element *f = prim(&s3, "f", FL_PQ_REQUIRED, FL_PQ_FIXED_LEN_BYTE_ARRAY);
    f->type_length = 0;
    CHECK_EQ_INT(build(&s3, &r, &e), FL_ECORRUPT);
    fl_arena_free(&r.arena);
    sb s4 = {0}; /* deeper than the limit: a chain of groups */
    add(&s4, "root", FL_PQ_REP_NONE, 1);
    for (int i = 0; i < 30; i++)
        add(&s4, "g", FL_PQ_OPTIONAL, 1);
    prim(&s4, "x", FL_PQ_OPTIONAL, FL_PQ_INT32);
    s4.n = 31; /* cut: the last group's child is missing */
    CHECK_EQ_INT(build(&s4, &r, &e), FL_ECORRUPT);
    fl_arena_free(&r.arena);
}

int main(void)
{
    TEST_RUN(test_primitives);
    TEST_RUN(test_lists);
    TEST_RUN(test_maps);
    TEST_RUN(test_malformed);
    return TEST_EXIT();
}
