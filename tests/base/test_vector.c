/* Unit tests for base/vector.c: builders, growth, reset, nested vectors,
 * unify/flatten of CONSTANT and DICT encodings, append_from and batches. */
#include "floe/vector.h"
#include "test.h"

static const fl_type t_i32 = {.id = FL_TYPE_INT32};
static const fl_type t_i64 = {.id = FL_TYPE_INT64};
static const fl_type t_bool = {.id = FL_TYPE_BOOLEAN};
static const fl_type t_str = {.id = FL_TYPE_STRING};
static const fl_type t_dec = {.id = FL_TYPE_DECIMAL, .precision = 20, .scale = 2};

static int32_t i32_at(const fl_vector *v, uint32_t i)
{
    return ((const int32_t *)v->data)[i];
}

static int str_is(const fl_vector *v, uint32_t i, const char *s)
{
    size_t len;
    const uint8_t *p = fl_vector_bytes(v, i, &len);
    return len == strlen(s) && memcmp(p, s, len) == 0;
}

static void test_fixed_append_grow_reset(void)
{
    fl_error err;
    fl_vector v;
    CHECK_OK(fl_vector_init(&v, &t_i32, &err), &err);
    CHECK(v.data == NULL && v.cap == 0);
    unsigned reallocs = 0;
    uint32_t last_cap = 0;
    for (int32_t i = 0; i < 100000; i++) {
        if (i % 10 == 3)
            CHECK_OK(fl_vector_append_null(&v, &err), &err);
        else
            CHECK_OK(fl_vector_append_fixed(&v, &i, &err), &err);
        if (v.cap != last_cap) {
            reallocs++;
            last_cap = v.cap;
        }
    }
    CHECK(reallocs < 20); /* geometric growth */
    CHECK_EQ_INT(v.len, 100000);
    CHECK(v.validity != NULL);
    int ok = 1;
    for (uint32_t i = 0; i < v.len; i++) {
        bool valid = i % 10 != 3;
        if (fl_vector_is_valid(&v, i) != valid || (valid && i32_at(&v, i) != (int32_t)i))
            ok = 0;
    }
    CHECK(ok);
    uint32_t cap = v.cap;
    uint8_t *data = v.data;
    fl_vector_reset(&v);
    CHECK_EQ_INT(v.len, 0);
    CHECK_EQ_INT(v.cap, cap);
    CHECK(v.data == data);
    CHECK(v.validity == NULL);
    int32_t x = 7;
    CHECK_OK(fl_vector_append_fixed(&v, &x, &err), &err);
    CHECK(fl_vector_is_valid(&v, 0) && i32_at(&v, 0) == 7);
    /* bulk */
    int32_t many[5000];
    for (int i = 0; i < 5000; i++)
        many[i] = i * 3;
    CHECK_OK(fl_vector_append_fixed_n(&v, many, 5000, &err), &err);
    CHECK_OK(fl_vector_append_nulls(&v, 3, &err), &err);
    CHECK_EQ_INT(v.len, 5004);
    CHECK_EQ_INT(i32_at(&v, 4000), 3999 * 3);
    CHECK(fl_vector_is_valid(&v, 5000) && !fl_vector_is_valid(&v, 5001));
    CHECK(!fl_vector_is_valid(&v, 5003));
    /* wrong kind of append */
    CHECK_EQ_INT(fl_vector_append_bytes(&v, "ab", 2, &err), FL_EINVAL);
    CHECK_EQ_INT(fl_vector_append_nested(&v, 0, &err), FL_EINVAL);
    fl_vector_destroy(&v);
    fl_vector_destroy(&v); /* idempotent */
    fl_vector_destroy(NULL);
}

static void test_reserve_and_validity(void)
{
    fl_error err;
    fl_vector v;
    CHECK_OK(fl_vector_init(&v, &t_dec, &err), &err);
    CHECK_OK(fl_vector_reserve(&v, FL_BATCH_CAP, &err), &err);
    CHECK_EQ_INT(v.cap, FL_BATCH_CAP);
    CHECK_OK(fl_vector_ensure_validity(&v, &err), &err);
    CHECK(v.validity[FL_BATCH_CAP / 8 - 1] == 0xFF);
    fl_i128 d = -12345;
    CHECK_OK(fl_vector_append_fixed(&v, &d, &err), &err);
    CHECK_OK(fl_vector_reserve(&v, 3000, &err), &err);
    CHECK(v.cap >= 3000);
    CHECK(fl_vector_is_valid(&v, 0));
    fl_i128 got;
    memcpy(&got, v.data, 16);
    CHECK(got == -12345);
    CHECK_EQ_INT(fl_vector_reserve(&v, UINT32_MAX, &err), FL_ELIMIT);
    fl_vector_destroy(&v);
    /* booleans are one byte each */
    CHECK_OK(fl_vector_init(&v, &t_bool, &err), &err);
    uint8_t t = 1, f = 0;
    CHECK_OK(fl_vector_append_fixed(&v, &t, &err), &err);
    CHECK_OK(fl_vector_append_fixed(&v, &f, &err), &err);
    CHECK(v.data[0] == 1 && v.data[1] == 0);
    fl_vector_destroy(&v);
}

static void test_strings(void)
{
    fl_error err;
    fl_vector v;
    CHECK_OK(fl_vector_init(&v, &t_str, &err), &err);
    char buf[32];
    for (int i = 0; i < 10000; i++) {
        if (i % 100 == 0) {
            CHECK_OK(fl_vector_append_null(&v, &err), &err);
            continue;
        }
        int n = snprintf(buf, sizeof buf, "s%d", i);
        CHECK_OK(fl_vector_append_bytes(&v, buf, (size_t)n, &err), &err);
    }
    CHECK_EQ_INT(v.offsets[0], 0);
    CHECK(str_is(&v, 1, "s1"));
    CHECK(str_is(&v, 9999, "s9999"));
    CHECK(!fl_vector_is_valid(&v, 100) && str_is(&v, 100, ""));
    CHECK_EQ_INT(v.offsets[v.len], (int64_t)v.heap_len);
    size_t hc = v.heap_cap;
    fl_vector_reset(&v);
    CHECK_EQ_INT(v.heap_len, 0);
    CHECK_EQ_INT(v.heap_cap, hc);
    CHECK_OK(fl_vector_append_bytes(&v, "", 0, &err), &err);
    CHECK_OK(fl_vector_append_bytes(&v, "xyz", 3, &err), &err);
    CHECK(str_is(&v, 0, "") && str_is(&v, 1, "xyz"));
    fl_vector_destroy(&v);
}

/* list<struct<a: int, b: string>> */
static fl_field s_fields[2] = {
    {.name = "a", .field_id = 3, .nullable = true, .type = {.id = FL_TYPE_INT32}},
    {.name = "b", .field_id = 4, .nullable = true, .type = {.id = FL_TYPE_STRING}}};
static fl_field l_elem[1] = {
    {.name = "element",
     .field_id = 2,
     .nullable = true,
     .type = {.id = FL_TYPE_STRUCT, .nchildren = 2, .children = s_fields}}};
static const fl_type t_list = {.id = FL_TYPE_LIST, .nchildren = 1, .children = l_elem};
static fl_field m_kv[2] = {
    {.name = "key", .field_id = 5, .type = {.id = FL_TYPE_STRING}},
    {.name = "value", .field_id = 6, .nullable = true, .type = {.id = FL_TYPE_INT64}}};
static const fl_type t_map = {.id = FL_TYPE_MAP, .nchildren = 2, .children = m_kv};

static void append_struct(fl_vector *s, int32_t a, const char *b, fl_error *err)
{
    CHECK_OK(fl_vector_append_fixed(&s->children[0], &a, err), err);
    CHECK_OK(fl_vector_append_bytes(&s->children[1], b, strlen(b), err), err);
    CHECK_OK(fl_vector_append_nested(s, 0, err), err);
}

static void build_list(fl_vector *v, fl_error *err)
{
    CHECK_OK(fl_vector_init(v, &t_list, err), err);
    CHECK_EQ_INT(v->nchildren, 1);
    CHECK_EQ_INT(v->children[0].nchildren, 2);
    fl_vector *s = &v->children[0];
    /* row 0: [{1,"x"}, {2,"yy"}]; row 1: null; row 2: []; row 3: [null, {3,"z"}] */
    append_struct(s, 1, "x", err);
    append_struct(s, 2, "yy", err);
    CHECK_OK(fl_vector_append_nested(v, s->len, err), err);
    CHECK_OK(fl_vector_append_null(v, err), err);
    CHECK_OK(fl_vector_append_nested(v, s->len, err), err);
    CHECK_OK(fl_vector_append_null(s, err), err);
    append_struct(s, 3, "z", err);
    CHECK_OK(fl_vector_append_nested(v, s->len, err), err);
}

static void check_list(const fl_vector *v)
{
    CHECK_EQ_INT(v->len, 4);
    CHECK(v->offsets[0] == 0 && v->offsets[1] == 2 && v->offsets[2] == 2);
    CHECK(v->offsets[3] == 2 && v->offsets[4] == 4);
    CHECK(fl_vector_is_valid(v, 0) && !fl_vector_is_valid(v, 1) && fl_vector_is_valid(v, 2));
    const fl_vector *s = &v->children[0];
    CHECK_EQ_INT(s->len, 4);
    CHECK_EQ_INT(s->children[0].len, 4);
    CHECK_EQ_INT(s->children[1].len, 4);
    CHECK(!fl_vector_is_valid(s, 2) && fl_vector_is_valid(s, 3));
    CHECK_EQ_INT(i32_at(&s->children[0], 1), 2);
    CHECK(str_is(&s->children[1], 1, "yy"));
    CHECK(str_is(&s->children[1], 3, "z"));
}

static void test_nested(void)
{
    fl_error err;
    fl_vector v;
    build_list(&v, &err);
    check_list(&v);
    /* bad child lengths are rejected */
    CHECK_EQ_INT(fl_vector_append_nested(&v, 1, &err), FL_EINVAL);
    CHECK_EQ_INT(fl_vector_append_nested(&v, 99, &err), FL_EINVAL);
    CHECK_EQ_INT(fl_vector_append_nested(&v.children[0], 0, &err), FL_EINVAL);
    /* append_from copies whole nested rows */
    fl_vector w;
    CHECK_OK(fl_vector_init(&w, &t_list, &err), &err);
    for (uint32_t i = 0; i < 4; i++)
        CHECK_OK(fl_vector_append_from(&w, &v, i, &err), &err);
    check_list(&w);
    fl_vector_reset(&w);
    CHECK_EQ_INT(w.children[0].len, 0);
    CHECK_EQ_INT(w.children[0].children[1].heap_len, 0);
    fl_vector_destroy(&w);
    fl_vector_destroy(&v);

    /* map<string, long> */
    CHECK_OK(fl_vector_init(&v, &t_map, &err), &err);
    int64_t one = 1, two = 2;
    CHECK_OK(fl_vector_append_bytes(&v.children[0], "a", 1, &err), &err);
    CHECK_OK(fl_vector_append_fixed(&v.children[1], &one, &err), &err);
    CHECK_OK(fl_vector_append_bytes(&v.children[0], "b", 1, &err), &err);
    CHECK_OK(fl_vector_append_null(&v.children[1], &err), &err);
    CHECK_OK(fl_vector_append_nested(&v, 2, &err), &err);
    CHECK_OK(fl_vector_append_bytes(&v.children[0], "c", 1, &err), &err);
    CHECK_EQ_INT(fl_vector_append_nested(&v, 3, &err), FL_EINVAL); /* values lag behind */
    CHECK_OK(fl_vector_append_fixed(&v.children[1], &two, &err), &err);
    CHECK_OK(fl_vector_append_nested(&v, 3, &err), &err);
    CHECK_EQ_INT(v.len, 2);
    CHECK(v.offsets[2] == 3);
    fl_vector_destroy(&v);
}

static void test_constant(void)
{
    fl_error err;
    fl_vector v;
    CHECK_OK(fl_vector_init(&v, &t_i64, &err), &err);
    int64_t x = 42;
    CHECK_OK(fl_vector_append_fixed(&v, &x, &err), &err);
    v.encoding = FL_VEC_CONSTANT;
    v.len = 1000;
    fl_unified u;
    fl_vector_unify(&v, &u);
    CHECK(u.constant && u.base == &v && fl_unified_row(&u, 999) == 0);
    CHECK(fl_unified_is_valid(&u, 500));
    CHECK_EQ_INT(fl_vector_append_fixed(&v, &x, &err), FL_EINVAL);
    CHECK_OK(fl_vector_flatten(&v, &err), &err);
    CHECK_EQ_INT(v.encoding, FL_VEC_FLAT);
    CHECK_EQ_INT(v.len, 1000);
    CHECK(((int64_t *)v.data)[999] == 42 && fl_vector_is_valid(&v, 999));
    fl_vector_reset(&v);
    /* constant null */
    CHECK_OK(fl_vector_append_null(&v, &err), &err);
    v.encoding = FL_VEC_CONSTANT;
    v.len = 77;
    CHECK_OK(fl_vector_flatten(&v, &err), &err);
    CHECK(!fl_vector_is_valid(&v, 0) && !fl_vector_is_valid(&v, 76));
    fl_vector_destroy(&v);
    /* constant string */
    CHECK_OK(fl_vector_init(&v, &t_str, &err), &err);
    CHECK_OK(fl_vector_append_bytes(&v, "abc", 3, &err), &err);
    v.encoding = FL_VEC_CONSTANT;
    v.len = 3000;
    CHECK_OK(fl_vector_flatten(&v, &err), &err);
    CHECK(str_is(&v, 0, "abc") && str_is(&v, 2999, "abc"));
    CHECK_EQ_INT(v.heap_len, 9000);
    fl_vector_destroy(&v);
    /* constant nested */
    build_list(&v, &err);
    v.len = 1; /* row 0 only: [{1,"x"}, {2,"yy"}] */
    v.encoding = FL_VEC_CONSTANT;
    v.len = 5;
    CHECK_OK(fl_vector_flatten(&v, &err), &err);
    CHECK_EQ_INT(v.len, 5);
    CHECK_EQ_INT(v.children[0].len, 10);
    CHECK(v.offsets[5] == 10);
    CHECK(str_is(&v.children[0].children[1], 9, "yy"));
    fl_vector_destroy(&v);
}

/* DICT vector of n rows over dict; row i -> idx[i]; every 5th row null. */
static void make_dict(fl_vector *v, fl_vector *dict, const fl_type *t, uint32_t n, uint32_t ndict,
                      fl_error *err)
{
    CHECK_OK(fl_vector_init(v, t, err), err);
    CHECK_OK(fl_vector_reserve(v, n, err), err);
    uint32_t *idx = (uint32_t *)(void *)v->data;
    CHECK_OK(fl_vector_ensure_validity(v, err), err);
    for (uint32_t i = 0; i < n; i++) {
        idx[i] = (i * 7) % ndict;
        fl_bitmap_set(v->validity, i, i % 5 != 0);
        if (i % 5 == 0)
            idx[i] = 0;
    }
    v->len = n;
    v->encoding = FL_VEC_DICT;
    v->dict = dict;
}

static void test_dict(void)
{
    fl_error err;
    /* fixed width, dict entry 3 is null */
    fl_vector *d = malloc(sizeof *d);
    CHECK_OK(fl_vector_init(d, &t_i64, &err), &err);
    for (int64_t k = 0; k < 10; k++) {
        int64_t val = k * 100;
        if (k == 3)
            CHECK_OK(fl_vector_append_null(d, &err), &err);
        else
            CHECK_OK(fl_vector_append_fixed(d, &val, &err), &err);
    }
    fl_vector v;
    make_dict(&v, d, &t_i64, 2000, 10, &err);
    v.owns_dict = true;
    fl_unified u;
    fl_vector_unify(&v, &u);
    CHECK(u.base == d && u.idx != NULL && !u.constant);
    CHECK(!fl_unified_is_valid(&u, 0));                              /* row-level null */
    CHECK(fl_unified_is_valid(&u, 1) && fl_unified_row(&u, 1) == 7); /* 700 */
    /* copy through append_from before flattening */
    fl_vector w;
    CHECK_OK(fl_vector_init(&w, &t_i64, &err), &err);
    for (uint32_t i = 0; i < v.len; i++)
        CHECK_OK(fl_vector_append_from(&w, &v, i, &err), &err);
    CHECK_OK(fl_vector_flatten(&v, &err), &err);
    CHECK_EQ_INT(v.encoding, FL_VEC_FLAT);
    CHECK(v.dict == NULL);
    int ok = 1;
    for (uint32_t i = 0; i < 2000; i++) {
        uint32_t k = (i * 7) % 10;
        bool valid = i % 5 != 0 && k != 3;
        if (fl_vector_is_valid(&v, i) != valid || fl_vector_is_valid(&w, i) != valid)
            ok = 0;
        if (valid && (((int64_t *)v.data)[i] != (int64_t)k * 100 ||
                      ((int64_t *)w.data)[i] != (int64_t)k * 100))
            ok = 0;
    }
    CHECK(ok);
    fl_vector_destroy(&v);
    fl_vector_destroy(&w);

    /* booleans (width 1 < index width 4) */
    fl_vector bd;
    CHECK_OK(fl_vector_init(&bd, &t_bool, &err), &err);
    uint8_t t = 1, f = 0;
    CHECK_OK(fl_vector_append_fixed(&bd, &f, &err), &err);
    CHECK_OK(fl_vector_append_fixed(&bd, &t, &err), &err);
    make_dict(&v, &bd, &t_bool, 100, 2, &err);
    CHECK_OK(fl_vector_flatten(&v, &err), &err);
    ok = 1;
    for (uint32_t i = 0; i < 100; i++)
        if (i % 5 && v.data[i] != (i * 7) % 2)
            ok = 0;
    CHECK(ok);
    fl_vector_destroy(&v);
    fl_vector_destroy(&bd);

    /* strings, borrowed dict */
    fl_vector sd;
    CHECK_OK(fl_vector_init(&sd, &t_str, &err), &err);
    const char *words[] = {"zero", "one", "", "three"};
    for (int k = 0; k < 4; k++)
        CHECK_OK(fl_vector_append_bytes(&sd, words[k], strlen(words[k]), &err), &err);
    make_dict(&v, &sd, &t_str, 3000, 4, &err);
    CHECK_OK(fl_vector_flatten(&v, &err), &err);
    ok = 1;
    for (uint32_t i = 0; i < 3000; i++)
        if (i % 5 && !str_is(&v, i, words[(i * 7) % 4]))
            ok = 0;
    CHECK(ok);
    CHECK(sd.len == 4); /* borrowed dict untouched */
    fl_vector_destroy(&v);

    /* out-of-range index is corruption, not a crash */
    make_dict(&v, &sd, &t_str, 10, 4, &err);
    ((uint32_t *)(void *)v.data)[3] = 1000;
    CHECK_OK(fl_vector_init(&w, &t_str, &err), &err);
    CHECK_EQ_INT(fl_vector_append_from(&w, &v, 3, &err), FL_ECORRUPT);
    CHECK_EQ_INT(fl_vector_flatten(&v, &err), FL_ECORRUPT);
    fl_vector_destroy(&w);
    fl_vector_destroy(&v);

    /* nested dict: list<struct> */
    fl_vector ld;
    build_list(&ld, &err);
    make_dict(&v, &ld, &t_list, 20, 4, &err);
    CHECK_OK(fl_vector_flatten(&v, &err), &err);
    CHECK_EQ_INT(v.len, 20);
    /* row 1 -> dict row 3: [null, {3,"z"}] */
    CHECK(v.offsets[2] - v.offsets[1] == 2);
    CHECK(!fl_vector_is_valid(&v, 0));
    /* row 2 -> dict row 2 (14 % 4): [] */
    CHECK(v.offsets[3] == v.offsets[2]);
    fl_vector_destroy(&v);
    fl_vector_destroy(&ld);
    fl_vector_destroy(&sd);
}

static void test_batch(void)
{
    fl_error err;
    fl_field fields[3] = {
        {.name = "id", .field_id = 1, .type = {.id = FL_TYPE_INT32}},
        {.name = "name", .field_id = 2, .nullable = true, .type = {.id = FL_TYPE_STRING}},
        {.name = "tags", .field_id = 7, .nullable = true, .type = t_list}};
    fl_schema s = {.nfields = 3, .fields = fields};
    fl_batch b;
    CHECK_OK(fl_batch_init(&b, &s, &err), &err);
    CHECK_EQ_INT(b.ncols, 3);
    CHECK(b.cols[2].nchildren == 1);
    for (int32_t i = 0; i < 10; i++) {
        CHECK_OK(fl_vector_append_fixed(&b.cols[0], &i, &err), &err);
        CHECK_OK(fl_vector_append_bytes(&b.cols[1], "n", 1, &err), &err);
        CHECK_OK(fl_vector_append_null(&b.cols[2], &err), &err);
    }
    b.nrows = 10;
    CHECK_EQ_INT(fl_batch_live_rows(&b), 10);
    uint32_t idx[3] = {1, 4, 9};
    fl_sel sel = {idx, 3, 3};
    b.sel = &sel;
    CHECK_EQ_INT(fl_batch_live_rows(&b), 3);
    fl_batch_reset(&b);
    CHECK(b.sel == NULL && b.nrows == 0 && b.cols[0].len == 0 && b.cols[2].len == 0);
    fl_batch_destroy(&b);
    fl_schema empty = {0};
    CHECK_OK(fl_batch_init(&b, &empty, &err), &err);
    fl_batch_destroy(&b);
    /* a malformed nested type is an error, not a crash */
    fl_field bad = {.name = "m", .type = {.id = FL_TYPE_MAP, .nchildren = 1, .children = m_kv}};
    fl_schema bs = {.nfields = 1, .fields = &bad};
    CHECK_EQ_INT(fl_batch_init(&b, &bs, &err), FL_EINVAL);
    CHECK(strstr(err.msg, "column 'm'") != NULL);
}

static void test_edge_cases(void)
{
    fl_error err;
    fl_vector v;
    /* bulk nulls on strings and lists keep offsets flat */
    CHECK_OK(fl_vector_init(&v, &t_str, &err), &err);
    CHECK_OK(fl_vector_append_bytes(&v, "ab", 2, &err), &err);
    CHECK_OK(fl_vector_append_nulls(&v, 1000, &err), &err);
    CHECK_OK(fl_vector_append_bytes(&v, "c", 1, &err), &err);
    CHECK_EQ_INT(v.len, 1002);
    CHECK(v.offsets[1001] == 2 && str_is(&v, 1001, "c") && !fl_vector_is_valid(&v, 500));
    fl_vector_destroy(&v);
    build_list(&v, &err);
    CHECK_OK(fl_vector_append_nulls(&v, 3, &err), &err);
    CHECK_EQ_INT(v.len, 7);
    CHECK(v.offsets[7] == 4 && !fl_vector_is_valid(&v, 6));
    fl_vector_destroy(&v);
    /* struct nulls append null children rows */
    fl_type st = {.id = FL_TYPE_STRUCT, .nchildren = 2, .children = s_fields};
    CHECK_OK(fl_vector_init(&v, &st, &err), &err);
    CHECK_OK(fl_vector_append_nulls(&v, 5, &err), &err);
    append_struct(&v, 9, "nine", &err);
    CHECK_EQ_INT(v.children[1].len, 6);
    CHECK(str_is(&v.children[1], 5, "nine"));
    /* constant struct */
    fl_vector_reset(&v);
    append_struct(&v, 4, "four", &err);
    v.encoding = FL_VEC_CONSTANT;
    v.len = 3;
    CHECK_OK(fl_vector_flatten(&v, &err), &err);
    CHECK_EQ_INT(v.children[0].len, 3);
    CHECK_EQ_INT(i32_at(&v.children[0], 2), 4);
    CHECK(str_is(&v.children[1], 2, "four"));
    fl_vector_destroy(&v);
    /* DICT strings whose dict holds a null */
    fl_vector d;
    CHECK_OK(fl_vector_init(&d, &t_str, &err), &err);
    CHECK_OK(fl_vector_append_bytes(&d, "a", 1, &err), &err);
    CHECK_OK(fl_vector_append_null(&d, &err), &err);
    CHECK_OK(fl_vector_init(&v, &t_str, &err), &err);
    CHECK_OK(fl_vector_reserve(&v, 4, &err), &err);
    uint32_t *ix = (uint32_t *)(void *)v.data;
    ix[0] = 0, ix[1] = 1, ix[2] = 0, ix[3] = 1;
    v.len = 4;
    v.encoding = FL_VEC_DICT;
    v.dict = &d;
    CHECK_OK(fl_vector_flatten(&v, &err), &err);
    CHECK(fl_vector_is_valid(&v, 0) && !fl_vector_is_valid(&v, 1) && !fl_vector_is_valid(&v, 3));
    CHECK(str_is(&v, 2, "a") && str_is(&v, 3, ""));
    fl_vector_destroy(&v);
    fl_vector_destroy(&d);
    /* flattening an empty CONSTANT / a FLAT vector is a no-op */
    CHECK_OK(fl_vector_init(&v, &t_i32, &err), &err);
    v.encoding = FL_VEC_CONSTANT;
    CHECK_OK(fl_vector_flatten(&v, &err), &err);
    CHECK_EQ_INT(v.encoding, FL_VEC_FLAT);
    CHECK_OK(fl_vector_flatten(&v, &err), &err);
    /* DICT without a dictionary is an error */
    v.encoding = FL_VEC_DICT;
    CHECK_EQ_INT(fl_vector_flatten(&v, &err), FL_EINVAL);
    v.encoding = FL_VEC_FLAT;
    /* type mismatch in append_from */
    fl_vector w;
    CHECK_OK(fl_vector_init(&w, &t_str, &err), &err);
    int32_t one = 1;
    CHECK_OK(fl_vector_append_fixed(&v, &one, &err), &err);
    CHECK_EQ_INT(fl_vector_append_from(&w, &v, 0, &err), FL_ETYPE);
    fl_vector_destroy(&w);
    fl_vector_destroy(&v);
    /* FIXED accepts append_bytes of exactly its width */
    fl_type fx = {.id = FL_TYPE_FIXED, .fixed_len = 3};
    CHECK_OK(fl_vector_init(&v, &fx, &err), &err);
    CHECK_OK(fl_vector_append_bytes(&v, "xyz", 3, &err), &err);
    CHECK_EQ_INT(fl_vector_append_bytes(&v, "xy", 2, &err), FL_EINVAL);
    CHECK(memcmp(v.data, "xyz", 3) == 0);
    fl_vector_destroy(&v);
    /* a list type without children is rejected */
    fl_type bad = {.id = FL_TYPE_LIST};
    CHECK_EQ_INT(fl_vector_init(&v, &bad, &err), FL_EINVAL);
    fl_vector_destroy(&v);
}

int main(void)
{
    TEST_RUN(test_fixed_append_grow_reset);
    TEST_RUN(test_reserve_and_validity);
    TEST_RUN(test_strings);
    TEST_RUN(test_nested);
    TEST_RUN(test_constant);
    TEST_RUN(test_dict);
    TEST_RUN(test_batch);
    TEST_RUN(test_edge_cases);
    return TEST_EXIT();
}
