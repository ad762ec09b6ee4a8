/*
 * test_stats.c - statistics to values (every Parquet -> floe type mapping),
 * the choice between min_value/max_value and legacy min/max, NaN and zero
 * handling, the pruning rules for every operator on chunks and pages, the
 * writer's value -> stats bytes, and soundness against real files: a page or
 * chunk is pruned only if none of its actual values satisfies the predicate.
 */
#include <math.h>

#include "parquet/pqcodec_walk.h"
#include "parquet/stats.h"
#include "test.h"

static fl_type T(fl_type_id id)
{
    fl_type t = {.id = id};
    if (id == FL_TYPE_UUID)
        t.fixed_len = 16;
    return t;
}

static fl_type DEC(int p, int s)
{
    fl_type t = {.id = FL_TYPE_DECIMAL, .precision = p, .scale = s};
    return t;
}

static fl_pq_leaf_info LEAF(fl_pq_type phys, const fl_type *t, const fl_pq_logical *lt)
{
    fl_pq_leaf_info l = {.physical = phys,
                         .type_length = 0,
                         .logical = lt,
                         .converted = FL_PQ_CT_NONE,
                         .scale = -1,
                         .precision = -1,
                         .order = FL_PQ_ORDER_TYPE_DEFINED,
                         .type = t};
    return l;
}

static fl_pq_bytes RAW(const void *p, uint32_t n)
{
    fl_pq_bytes b = {(const uint8_t *)p, n};
    return b;
}

static fl_value VI32(int32_t x)
{
    fl_value v = {.type = {.id = FL_TYPE_INT32}};
    v.v.i32 = x;
    return v;
}

static fl_value VF64(double x)
{
    fl_value v = {.type = {.id = FL_TYPE_FLOAT64}};
    v.v.f64 = x;
    return v;
}

static fl_value VSTR(const char *s)
{
    fl_value v = {.type = {.id = FL_TYPE_STRING}};
    v.v.bytes.ptr = (const uint8_t *)s;
    v.v.bytes.len = strlen(s);
    return v;
}

static fl_col_pred PRED(fl_cmp_op op, fl_value v)
{
    fl_col_pred p = {.column = "c", .op = op, .value = v};
    return p;
}

static void test_stat_to_value(void)
{
    fl_value v;
    fl_type i32 = T(FL_TYPE_INT32), i64 = T(FL_TYPE_INT64), date = T(FL_TYPE_DATE);
    int32_t x = -7;
    fl_pq_leaf_info l = LEAF(FL_PQ_INT32, &i32, NULL);
    CHECK(fl_pq_stat_to_value(&l, RAW(&x, 4), &v));
    CHECK_EQ_INT(v.v.i32, -7);
    CHECK(v.type.id == FL_TYPE_INT32);
    CHECK(!fl_pq_stat_to_value(&l, RAW(&x, 3), &v));
    CHECK(!fl_pq_stat_to_value(&l, (fl_pq_bytes){NULL, 0}, &v));
    /* int8 / uint16 logical ints widen to INT32 */
    fl_pq_logical u16 = {.kind = FL_PQ_LT_INTEGER, .int_bit_width = 16, .int_is_signed = false};
    l = LEAF(FL_PQ_INT32, &i32, &u16);
    int32_t big = 65535;
    CHECK(fl_pq_stat_to_value(&l, RAW(&big, 4), &v));
    CHECK_EQ_INT(v.v.i32, 65535);
    /* uint32 -> INT64 */
    fl_pq_logical u32 = {.kind = FL_PQ_LT_INTEGER, .int_bit_width = 32, .int_is_signed = false};
    l = LEAF(FL_PQ_INT32, &i64, &u32);
    uint32_t um = 0xffffffffu;
    CHECK(fl_pq_stat_to_value(&l, RAW(&um, 4), &v));
    CHECK_EQ_INT(v.v.i64, 4294967295LL);
    /* uint64 -> DECIMAL(20,0) via the legacy converted type */
    fl_type d20 = DEC(20, 0);
    l = LEAF(FL_PQ_INT64, &d20, NULL);
    l.converted = FL_PQ_CT_UINT_64;
    uint64_t u64 = UINT64_MAX;
    CHECK(fl_pq_stat_to_value(&l, RAW(&u64, 8), &v));
    CHECK(v.v.dec == (fl_i128)UINT64_MAX);
    /* DATE */
    l = LEAF(FL_PQ_INT32, &date, NULL);
    l.converted = FL_PQ_CT_DATE;
    int32_t days = 19000;
    CHECK(fl_pq_stat_to_value(&l, RAW(&days, 4), &v));
    CHECK_EQ_INT(v.v.i32, 19000);
    /* TIME millis (INT32) -> micros; TIME nanos -> micros (floor) */
    fl_type tm = T(FL_TYPE_TIME);
    fl_pq_logical tms = {.kind = FL_PQ_LT_TIME, .unit = FL_PQ_MILLIS};
    l = LEAF(FL_PQ_INT32, &tm, &tms);
    int32_t ms = 1234;
    CHECK(fl_pq_stat_to_value(&l, RAW(&ms, 4), &v));
    CHECK_EQ_INT(v.v.i64, 1234000);
    fl_pq_logical tns = {.kind = FL_PQ_LT_TIME, .unit = FL_PQ_NANOS};
    l = LEAF(FL_PQ_INT64, &tm, &tns);
    int64_t ns = 1999;
    CHECK(fl_pq_stat_to_value(&l, RAW(&ns, 8), &v));
    CHECK_EQ_INT(v.v.i64, 1);
    /* TIMESTAMP millis -> micros, legacy converted type */
    fl_type ts = T(FL_TYPE_TIMESTAMP), tsns = T(FL_TYPE_TIMESTAMP_NS);
    l = LEAF(FL_PQ_INT64, &ts, NULL);
    l.converted = FL_PQ_CT_TIMESTAMP_MILLIS;
    int64_t tms64 = -1;
    CHECK(fl_pq_stat_to_value(&l, RAW(&tms64, 8), &v));
    CHECK_EQ_INT(v.v.i64, -1000);
    int64_t huge = INT64_MAX / 10;
    CHECK(!fl_pq_stat_to_value(&l, RAW(&huge, 8), &v)); /* overflow */
    fl_pq_logical tsn = {
        .kind = FL_PQ_LT_TIMESTAMP, .unit = FL_PQ_NANOS, .is_adjusted_to_utc = true};
    l = LEAF(FL_PQ_INT64, &tsns, &tsn);
    CHECK(fl_pq_stat_to_value(&l, RAW(&huge, 8), &v));
    CHECK_EQ_INT(v.v.i64, huge);
    /* INT96: Julian day 2454833 (2009-01-01) + 1 ns */
    uint8_t i96[12] = {1, 0, 0, 0, 0, 0, 0, 0, 0x31, 0x75, 0x25, 0x00};
    l = LEAF(FL_PQ_INT96, &tsns, NULL);
    CHECK(fl_pq_stat_to_value(&l, RAW(i96, 12), &v));
    CHECK_EQ_INT(v.v.i64, 1230768000000000000LL + 1);
    /* DECIMAL in INT32, FLBA, BYTE_ARRAY (incl. > 16 bytes sign-extended) */
    fl_type d9 = DEC(9, 2), d38 = DEC(38, 4);
    l = LEAF(FL_PQ_INT32, &d9, NULL);
    int32_t dv = -12345;
    CHECK(fl_pq_stat_to_value(&l, RAW(&dv, 4), &v));
    CHECK(v.v.dec == -12345);
    l = LEAF(FL_PQ_FIXED_LEN_BYTE_ARRAY, &d38, NULL);
    l.type_length = 16;
    uint8_t be16[16];
    memset(be16, 0xff, 16);
    be16[15] = 0xfe; /* -2 */
    CHECK(fl_pq_stat_to_value(&l, RAW(be16, 16), &v));
    CHECK(v.v.dec == -2);
    l = LEAF(FL_PQ_BYTE_ARRAY, &d38, NULL);
    const uint8_t be3[3] = {0x01, 0x00, 0x00};
    CHECK(fl_pq_stat_to_value(&l, RAW(be3, 3), &v));
    CHECK(v.v.dec == 65536);
    uint8_t be18[18];
    memset(be18, 0, 18);
    be18[17] = 5;
    CHECK(fl_pq_stat_to_value(&l, RAW(be18, 18), &v));
    CHECK(v.v.dec == 5);
    be18[0] = 1; /* does not fit in 128 bits */
    CHECK(!fl_pq_stat_to_value(&l, RAW(be18, 18), &v));
    CHECK(!fl_pq_stat_to_value(&l, RAW(be18, 0), &v));
    /* FLOAT16 -> FLOAT32 */
    fl_type f32 = T(FL_TYPE_FLOAT32), f64 = T(FL_TYPE_FLOAT64);
    fl_pq_logical f16 = {.kind = FL_PQ_LT_FLOAT16};
    l = LEAF(FL_PQ_FIXED_LEN_BYTE_ARRAY, &f32, &f16);
    l.type_length = 2;
    const uint8_t h1[2] = {0x00, 0x3c}, hm2[2] = {0x00, 0xc0}, hnan[2] = {0x00, 0x7e},
                  hsub[2] = {0x01, 0x00};
    CHECK(fl_pq_stat_to_value(&l, RAW(h1, 2), &v) && v.v.f32 == 1.0f);
    CHECK(fl_pq_stat_to_value(&l, RAW(hm2, 2), &v) && v.v.f32 == -2.0f);
    CHECK(fl_pq_stat_to_value(&l, RAW(hnan, 2), &v) && isnan(v.v.f32));
    CHECK(fl_pq_stat_to_value(&l, RAW(hsub, 2), &v) && v.v.f32 == ldexpf(1, -24));
    /* FLOAT, DOUBLE */
    float fv = 2.5f;
    double dd = -0.25;
    l = LEAF(FL_PQ_FLOAT, &f32, NULL);
    CHECK(fl_pq_stat_to_value(&l, RAW(&fv, 4), &v) && v.v.f32 == 2.5f);
    l = LEAF(FL_PQ_DOUBLE, &f64, NULL);
    CHECK(fl_pq_stat_to_value(&l, RAW(&dd, 8), &v) && v.v.f64 == -0.25);
    CHECK(!fl_pq_stat_to_value(&l, RAW(&fv, 4), &v));
    /* STRING, BINARY, UUID, FIXED */
    fl_type str = T(FL_TYPE_STRING), uuid = T(FL_TYPE_UUID),
            fx = {.id = FL_TYPE_FIXED, .fixed_len = 3};
    fl_pq_logical sl = {.kind = FL_PQ_LT_STRING};
    l = LEAF(FL_PQ_BYTE_ARRAY, &str, &sl);
    CHECK(fl_pq_stat_to_value(&l, RAW("abc", 3), &v) && v.v.bytes.len == 3 &&
          memcmp(v.v.bytes.ptr, "abc", 3) == 0);
    l = LEAF(FL_PQ_FIXED_LEN_BYTE_ARRAY, &uuid, NULL);
    l.type_length = 16;
    CHECK(fl_pq_stat_to_value(&l, RAW(be16, 16), &v));
    CHECK(!fl_pq_stat_to_value(&l, RAW(be16, 15), &v));
    l = LEAF(FL_PQ_FIXED_LEN_BYTE_ARRAY, &fx, NULL);
    l.type_length = 3;
    CHECK(fl_pq_stat_to_value(&l, RAW("xyz", 3), &v));
    CHECK(!fl_pq_stat_to_value(&l, RAW("xy", 2), &v));
    /* BOOLEAN */
    fl_type bt = T(FL_TYPE_BOOLEAN);
    l = LEAF(FL_PQ_BOOLEAN, &bt, NULL);
    const uint8_t one = 1;
    CHECK(fl_pq_stat_to_value(&l, RAW(&one, 1), &v) && v.v.b);
}

static void test_value_plain_roundtrip(void)
{
    uint8_t scratch[32];
    const uint8_t *p;
    size_t n;
    fl_value v, back;
    fl_pq_buf b = {0};
    fl_error err = {0};
    /* FLBA(12) decimal: negative values, and one that does not fit */
    fl_type d = DEC(25, 3);
    fl_pq_leaf_info l = LEAF(FL_PQ_FIXED_LEN_BYTE_ARRAY, &d, NULL);
    l.type_length = 12;
    memset(&v, 0, sizeof v);
    v.type = d;
    v.v.dec = -((fl_i128)1 << 80) + 12345;
    CHECK(fl_pq_value_plain(&l, &v, scratch, &p, &n));
    CHECK_EQ_INT(n, 12);
    CHECK(fl_pq_stat_to_value(&l, RAW(p, (uint32_t)n), &back) && back.v.dec == v.v.dec);
    v.v.dec = (fl_i128)1 << 100;
    CHECK(!fl_pq_value_plain(&l, &v, scratch, &p, &n));
    /* BYTE_ARRAY decimal: minimal length */
    l = LEAF(FL_PQ_BYTE_ARRAY, &d, NULL);
    v.v.dec = -129;
    CHECK(fl_pq_value_plain(&l, &v, scratch, &p, &n));
    CHECK_EQ_INT(n, 2);
    CHECK(p[0] == 0xff && p[1] == 0x7f);
    v.v.dec = 127;
    CHECK(fl_pq_value_plain(&l, &v, scratch, &p, &n) && n == 1 && p[0] == 0x7f);
    /* timestamps: micros value into a millis column floors */
    fl_type ts = T(FL_TYPE_TIMESTAMP);
    fl_pq_logical tsm = {.kind = FL_PQ_LT_TIMESTAMP, .unit = FL_PQ_MILLIS};
    l = LEAF(FL_PQ_INT64, &ts, &tsm);
    memset(&v, 0, sizeof v);
    v.type = ts;
    v.v.i64 = -1500;
    CHECK_OK(fl_pq_value_to_stat(&l, &v, &b, &err), &err);
    CHECK_EQ_INT(b.len, 8);
    int64_t got;
    memcpy(&got, b.data, 8);
    CHECK_EQ_INT(got, -2);
    /* INT96 round trip, negative (before 1970) */
    fl_type tsns = T(FL_TYPE_TIMESTAMP_NS);
    l = LEAF(FL_PQ_INT96, &tsns, NULL);
    v.type = tsns;
    v.v.i64 = -86400000000000LL * 3 - 17;
    CHECK(fl_pq_value_plain(&l, &v, scratch, &p, &n) && n == 12);
    CHECK(fl_pq_stat_to_value(&l, RAW(p, 12), &back) && back.v.i64 == v.v.i64);
    /* FLOAT16 */
    fl_type f32 = T(FL_TYPE_FLOAT32);
    fl_pq_logical f16 = {.kind = FL_PQ_LT_FLOAT16};
    l = LEAF(FL_PQ_FIXED_LEN_BYTE_ARRAY, &f32, &f16);
    l.type_length = 2;
    const float fv[] = {0.0f, -0.0f, 1.0f, -2.0f, 65504.0f, 1e-7f, 0.333251953125f, INFINITY};
    for (size_t i = 0; i < sizeof fv / sizeof fv[0]; i++) {
        memset(&v, 0, sizeof v);
        v.type = f32;
        v.v.f32 = fv[i];
        CHECK(fl_pq_value_plain(&l, &v, scratch, &p, &n) && n == 2);
        CHECK(fl_pq_stat_to_value(&l, RAW(p, 2), &back));
        float want = fv[i] == 1e-7f ? ldexpf(2, -24) : fv[i]; /* nearest subnormal */
        CHECK(back.v.f32 == want && signbit(back.v.f32) == signbit(want));
    }
    v.v.f32 = 1e6f; /* overflows half: inf */
    CHECK(fl_pq_value_plain(&l, &v, scratch, &p, &n) && p[0] == 0 && p[1] == 0x7c);
    /* uint32 column from an INT64 value: range checked */
    fl_type i64 = T(FL_TYPE_INT64);
    fl_pq_logical u32 = {.kind = FL_PQ_LT_INTEGER, .int_bit_width = 32, .int_is_signed = false};
    l = LEAF(FL_PQ_INT32, &i64, &u32);
    memset(&v, 0, sizeof v);
    v.type = i64;
    v.v.i64 = 4000000000LL;
    CHECK(fl_pq_value_plain(&l, &v, scratch, &p, &n) && n == 4);
    CHECK(fl_pq_stat_to_value(&l, RAW(p, 4), &back) && back.v.i64 == 4000000000LL);
    v.v.i64 = -1;
    CHECK(!fl_pq_value_plain(&l, &v, scratch, &p, &n));
    CHECK_EQ_INT(fl_pq_value_to_stat(&l, &v, &b, &err), FL_ETYPE);
    /* strings point at the value's bytes */
    fl_type str = T(FL_TYPE_STRING);
    l = LEAF(FL_PQ_BYTE_ARRAY, &str, NULL);
    v = VSTR("hello");
    CHECK(fl_pq_value_plain(&l, &v, scratch, &p, &n) && n == 5 && p == v.v.bytes.ptr);
    /* type mismatch */
    v = VI32(3);
    CHECK(!fl_pq_value_plain(&l, &v, scratch, &p, &n));
    fl_buf_free(&b);
}

static void test_bounds_choice(void)
{
    fl_value mn, mx;
    int32_t lo = -5, hi = 9, lo2 = 1, hi2 = 2;
    fl_type i32 = T(FL_TYPE_INT32), i64 = T(FL_TYPE_INT64), str = T(FL_TYPE_STRING);
    fl_pq_statistics st = {0};
    st.min = RAW(&lo, 4);
    st.max = RAW(&hi, 4);
    /* signed int: legacy fields are usable */
    fl_pq_leaf_info l = LEAF(FL_PQ_INT32, &i32, NULL);
    l.order = FL_PQ_ORDER_UNKNOWN;
    CHECK(fl_pq_stats_bounds(&l, &st, &mn, &mx));
    CHECK(mn.v.i32 == -5 && mx.v.i32 == 9);
    /* min_value/max_value win */
    st.min_value = RAW(&lo2, 4);
    st.max_value = RAW(&hi2, 4);
    CHECK(fl_pq_stats_bounds(&l, &st, &mn, &mx));
    CHECK(mn.v.i32 == 1 && mx.v.i32 == 2);
    /* unsupported column order: nothing */
    l.order = FL_PQ_ORDER_UNSUPPORTED;
    CHECK(!fl_pq_stats_bounds(&l, &st, &mn, &mx));
    /* unsigned: legacy not trusted, new fields are */
    fl_pq_logical u32 = {.kind = FL_PQ_LT_INTEGER, .int_bit_width = 32, .int_is_signed = false};
    l = LEAF(FL_PQ_INT32, &i64, &u32);
    fl_pq_statistics legacy = {0};
    legacy.min = RAW(&lo, 4);
    legacy.max = RAW(&hi, 4);
    CHECK(!fl_pq_stats_bounds(&l, &legacy, &mn, &mx));
    CHECK(fl_pq_stats_bounds(&l, &st, &mn, &mx));
    /* strings: legacy min/max never trusted */
    l = LEAF(FL_PQ_BYTE_ARRAY, &str, NULL);
    fl_pq_statistics s2 = {0};
    s2.min = RAW("a", 1);
    s2.max = RAW("\xff", 1);
    CHECK(!fl_pq_stats_bounds(&l, &s2, &mn, &mx));
    s2.min_value = RAW("a", 1);
    s2.max_value = RAW("z", 1);
    CHECK(fl_pq_stats_bounds(&l, &s2, &mn, &mx));
    /* INT96: never */
    fl_type tsns = T(FL_TYPE_TIMESTAMP_NS);
    uint8_t i96[12] = {0};
    l = LEAF(FL_PQ_INT96, &tsns, NULL);
    fl_pq_statistics s3 = {0};
    s3.min_value = s3.max_value = RAW(i96, 12);
    CHECK(!fl_pq_stats_bounds(&l, &s3, &mn, &mx));
    /* NaN bounds widen to infinities; zeros widen */
    fl_type f64 = T(FL_TYPE_FLOAT64);
    l = LEAF(FL_PQ_DOUBLE, &f64, NULL);
    double one = 1.0, nan = NAN, pz = 0.0, nz = -0.0;
    fl_pq_statistics s4 = {0};
    s4.min_value = RAW(&one, 8);
    s4.max_value = RAW(&nan, 8);
    CHECK(fl_pq_stats_bounds(&l, &s4, &mn, &mx));
    CHECK(mn.v.f64 == 1.0 && isinf(mx.v.f64) && mx.v.f64 > 0);
    s4.min_value = RAW(&nan, 8);
    CHECK(fl_pq_stats_bounds(&l, &s4, &mn, &mx));
    CHECK(isinf(mn.v.f64) && mn.v.f64 < 0);
    s4.min_value = RAW(&pz, 8);
    s4.max_value = RAW(&nz, 8);
    CHECK(fl_pq_stats_bounds(&l, &s4, &mn, &mx));
    CHECK(mn.v.f64 == 0 && signbit(mn.v.f64) && mx.v.f64 == 0 && !signbit(mx.v.f64));
}

/* Statistics of an INT32 chunk with min/max (new fields), nulls of num. */
static fl_pq_statistics i32_stats(const int32_t *mn, const int32_t *mx, int64_t nulls)
{
    fl_pq_statistics st = {0};
    if (mn) {
        st.min_value = RAW(mn, 4);
        st.max_value = RAW(mx, 4);
    }
    st.null_count_set = nulls >= 0;
    st.null_count = nulls;
    return st;
}

static void test_prune_int(void)
{
    fl_type i32 = T(FL_TYPE_INT32), i64 = T(FL_TYPE_INT64);
    fl_pq_leaf_info l = LEAF(FL_PQ_INT32, &i32, NULL);
    int32_t mn = 10, mx = 20;
    fl_pq_statistics st = i32_stats(&mn, &mx, 2);
    struct {
        fl_cmp_op op;
        int32_t lit;
        bool want;
    } cases[] = {
        {FL_CMP_EQ, 5, false},         {FL_CMP_EQ, 10, true},        {FL_CMP_EQ, 15, true},
        {FL_CMP_EQ, 20, true},         {FL_CMP_EQ, 21, false},       {FL_CMP_NE, 15, true},
        {FL_CMP_NE, 10, true},         {FL_CMP_LT, 10, false},       {FL_CMP_LT, 11, true},
        {FL_CMP_LE, 9, false},         {FL_CMP_LE, 10, true},        {FL_CMP_GT, 20, false},
        {FL_CMP_GT, 19, true},         {FL_CMP_GE, 21, false},       {FL_CMP_GE, 20, true},
        {FL_CMP_LT, INT32_MIN, false}, {FL_CMP_GT, INT32_MAX, false}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fl_col_pred p = PRED(cases[i].op, VI32(cases[i].lit));
        bool got = fl_pq_stats_may_match(&l, &st, 100, &p);
        if (got != cases[i].want)
            fprintf(stderr, "case %zu: op %d lit %d: got %d\n", i, cases[i].op, cases[i].lit, got);
        CHECK(got == cases[i].want);
    }
    /* NE prunes a constant chunk */
    int32_t seven = 7;
    fl_pq_statistics cst = i32_stats(&seven, &seven, 0);
    fl_col_pred ne = PRED(FL_CMP_NE, VI32(7));
    CHECK(!fl_pq_stats_may_match(&l, &cst, 100, &ne));
    ne.value = VI32(8);
    CHECK(fl_pq_stats_may_match(&l, &cst, 100, &ne));
    /* null tests */
    fl_col_pred isn = {.op = FL_CMP_IS_NULL}, notn = {.op = FL_CMP_NOT_NULL};
    CHECK(fl_pq_stats_may_match(&l, &st, 100, &isn));
    CHECK(!fl_pq_stats_may_match(&l, &cst, 100, &isn));
    CHECK(fl_pq_stats_may_match(&l, &st, 100, &notn));
    fl_pq_statistics allnull = i32_stats(NULL, NULL, 100);
    CHECK(!fl_pq_stats_may_match(&l, &allnull, 100, &notn));
    CHECK(fl_pq_stats_may_match(&l, &allnull, 100, &isn));
    fl_col_pred eq = PRED(FL_CMP_EQ, VI32(1));
    CHECK(!fl_pq_stats_may_match(&l, &allnull, 100, &eq));
    /* unknown null count: conservative */
    fl_pq_statistics nonulls = i32_stats(&mn, &mx, -1);
    CHECK(fl_pq_stats_may_match(&l, &nonulls, 100, &isn));
    CHECK(fl_pq_stats_may_match(&l, NULL, 100, &eq));
    /* IN */
    fl_value in1[] = {VI32(1), VI32(2), VI32(30)}, in2[] = {VI32(1), VI32(15)};
    fl_col_pred in = {.op = FL_CMP_IN, .in_values = in1, .nin = 3};
    CHECK(!fl_pq_stats_may_match(&l, &st, 100, &in));
    in.in_values = in2;
    in.nin = 2;
    CHECK(fl_pq_stats_may_match(&l, &st, 100, &in));
    in.nin = 0;
    CHECK(!fl_pq_stats_may_match(&l, &st, 100, &in));
    /* literal of another type, or NULL literal: may match */
    fl_value wrong = {.type = {.id = FL_TYPE_INT64}};
    wrong.v.i64 = 5;
    fl_col_pred pw = PRED(FL_CMP_EQ, wrong);
    CHECK(fl_pq_stats_may_match(&l, &st, 100, &pw));
    fl_value nul = VI32(0);
    nul.is_null = true;
    fl_col_pred pn = PRED(FL_CMP_EQ, nul);
    CHECK(fl_pq_stats_may_match(&l, &st, 100, &pn));
    /* INT64 */
    fl_pq_leaf_info l64 = LEAF(FL_PQ_INT64, &i64, NULL);
    int64_t a = INT64_MIN, b = -1;
    fl_pq_statistics s64 = {0};
    s64.min_value = RAW(&a, 8);
    s64.max_value = RAW(&b, 8);
    fl_value z = {.type = {.id = FL_TYPE_INT64}};
    z.v.i64 = 0;
    fl_col_pred ge0 = PRED(FL_CMP_GE, z);
    CHECK(!fl_pq_stats_may_match(&l64, &s64, 10, &ge0));
    fl_col_pred lt0 = PRED(FL_CMP_LT, z);
    CHECK(fl_pq_stats_may_match(&l64, &s64, 10, &lt0));
}

static void test_prune_string_float_decimal(void)
{
    fl_type str = T(FL_TYPE_STRING);
    fl_pq_logical sl = {.kind = FL_PQ_LT_STRING};
    fl_pq_leaf_info l = LEAF(FL_PQ_BYTE_ARRAY, &str, &sl);
    fl_pq_statistics st = {0};
    st.min_value = RAW("apple", 5);
    st.max_value = RAW("banana", 6);
    fl_col_pred p = PRED(FL_CMP_EQ, VSTR("cherry"));
    CHECK(!fl_pq_stats_may_match(&l, &st, 10, &p));
    p.value = VSTR("b");
    CHECK(fl_pq_stats_may_match(&l, &st, 10, &p));
    p.value = VSTR("Apple"); /* unsigned byte order: 'A' < 'a' */
    CHECK(!fl_pq_stats_may_match(&l, &st, 10, &p));
    p.value = VSTR("\xc3\xa9"); /* above ASCII */
    CHECK(!fl_pq_stats_may_match(&l, &st, 10, &p));
    p = PRED(FL_CMP_LT, VSTR("apple"));
    CHECK(!fl_pq_stats_may_match(&l, &st, 10, &p));
    p = PRED(FL_CMP_GT, VSTR("banana"));
    CHECK(!fl_pq_stats_may_match(&l, &st, 10, &p));
    p = PRED(FL_CMP_GE, VSTR("banana"));
    CHECK(fl_pq_stats_may_match(&l, &st, 10, &p));
    /* NE on a constant string chunk: only when the bounds are exact */
    fl_pq_statistics cs = {0};
    cs.min_value = cs.max_value = RAW("x", 1);
    p = PRED(FL_CMP_NE, VSTR("x"));
    CHECK(fl_pq_stats_may_match(&l, &cs, 10, &p));
    cs.is_max_value_exact_set = cs.is_min_value_exact_set = true;
    cs.is_max_value_exact = cs.is_min_value_exact = true;
    CHECK(!fl_pq_stats_may_match(&l, &cs, 10, &p));

    /* doubles: NaN conservatism for GT/GE/NE, fine for LT/LE/EQ */
    fl_type f64 = T(FL_TYPE_FLOAT64);
    fl_pq_leaf_info lf = LEAF(FL_PQ_DOUBLE, &f64, NULL);
    double one = 1.0, two = 2.0;
    fl_pq_statistics fs = {0};
    fs.min_value = RAW(&one, 8);
    fs.max_value = RAW(&two, 8);
    p = PRED(FL_CMP_GT, VF64(3.0));
    CHECK(fl_pq_stats_may_match(&lf, &fs, 10, &p)); /* NaN may be present */
    fs.nan_count_set = true;
    fs.nan_count = 0;
    CHECK(!fl_pq_stats_may_match(&lf, &fs, 10, &p));
    p = PRED(FL_CMP_LT, VF64(0.5));
    CHECK(!fl_pq_stats_may_match(&lf, &fs, 10, &p));
    p = PRED(FL_CMP_EQ, VF64(NAN));
    CHECK(fl_pq_stats_may_match(&lf, &fs, 10, &p));
    p = PRED(FL_CMP_EQ, VF64(1.5));
    CHECK(fl_pq_stats_may_match(&lf, &fs, 10, &p));
    p = PRED(FL_CMP_EQ, VF64(2.5));
    CHECK(!fl_pq_stats_may_match(&lf, &fs, 10, &p));
    /* zeros: a chunk with min = max = +0 may hold -0 */
    double pz = 0.0;
    fl_pq_statistics zs = {0};
    zs.min_value = zs.max_value = RAW(&pz, 8);
    zs.nan_count_set = true;
    p = PRED(FL_CMP_EQ, VF64(-0.0));
    CHECK(fl_pq_stats_may_match(&lf, &zs, 10, &p));
    p = PRED(FL_CMP_LT, VF64(0.0));
    CHECK(fl_pq_stats_may_match(&lf, &zs, 10, &p));
    p = PRED(FL_CMP_LT, VF64(-0.0));
    CHECK(!fl_pq_stats_may_match(&lf, &zs, 10, &p));

    /* decimal in FLBA: signed order, literal scale must match */
    fl_type d = DEC(10, 2);
    fl_pq_leaf_info ld = LEAF(FL_PQ_FIXED_LEN_BYTE_ARRAY, &d, NULL);
    ld.type_length = 5;
    const uint8_t m1[5] = {0xff, 0xff, 0xff, 0xff, 0x9c}; /* -100 */
    const uint8_t p1[5] = {0, 0, 0, 0, 0x64};             /* 100 */
    fl_pq_statistics ds = {0};
    ds.min_value = RAW(m1, 5);
    ds.max_value = RAW(p1, 5);
    fl_value dv = {.type = d};
    dv.v.dec = 150;
    p = PRED(FL_CMP_GT, dv);
    CHECK(!fl_pq_stats_may_match(&ld, &ds, 10, &p));
    dv.v.dec = -150;
    p = PRED(FL_CMP_LT, dv);
    CHECK(!fl_pq_stats_may_match(&ld, &ds, 10, &p));
    dv.v.dec = 0;
    p = PRED(FL_CMP_EQ, dv);
    CHECK(fl_pq_stats_may_match(&ld, &ds, 10, &p));
    dv.type.scale = 3;
    dv.v.dec = 150000;
    p = PRED(FL_CMP_GT, dv);
    CHECK(fl_pq_stats_may_match(&ld, &ds, 10, &p)); /* uncast literal: conservative */
    /* legacy-only decimal bytes are ignored */
    fl_pq_statistics dl = {0};
    dl.min = RAW(m1, 5);
    dl.max = RAW(p1, 5);
    dv.type.scale = 2;
    dv.v.dec = 150;
    p = PRED(FL_CMP_GT, dv);
    CHECK(fl_pq_stats_may_match(&ld, &dl, 10, &p));
}

static void test_prune_pages(void)
{
    fl_type i32 = T(FL_TYPE_INT32);
    fl_pq_leaf_info l = LEAF(FL_PQ_INT32, &i32, NULL);
    int32_t mins[3] = {0, 1, 6}, maxs[3] = {0, 5, 10};
    bool nulls[3] = {true, false, false};
    fl_pq_bytes mn[3] = {RAW("", 0), RAW(&mins[1], 4), RAW(&mins[2], 4)};
    fl_pq_bytes mx[3] = {RAW("", 0), RAW(&maxs[1], 4), RAW(&maxs[2], 4)};
    int64_t nc[3] = {7, 0, 3};
    fl_pq_column_index ci = {.npages = 3,
                             .null_pages = nulls,
                             .min_values = mn,
                             .max_values = mx,
                             .boundary_order = FL_PQ_ASCENDING,
                             .null_counts = nc};
    fl_col_pred eq = PRED(FL_CMP_EQ, VI32(7));
    CHECK(!fl_pq_page_may_match(&l, &ci, 0, &eq));
    CHECK(!fl_pq_page_may_match(&l, &ci, 1, &eq));
    CHECK(fl_pq_page_may_match(&l, &ci, 2, &eq));
    CHECK(fl_pq_page_may_match(&l, &ci, 3, &eq)); /* out of range: conservative */
    fl_col_pred isn = {.op = FL_CMP_IS_NULL}, notn = {.op = FL_CMP_NOT_NULL};
    CHECK(fl_pq_page_may_match(&l, &ci, 0, &isn));
    CHECK(!fl_pq_page_may_match(&l, &ci, 1, &isn));
    CHECK(fl_pq_page_may_match(&l, &ci, 2, &isn));
    CHECK(!fl_pq_page_may_match(&l, &ci, 0, &notn));
    CHECK(fl_pq_page_may_match(&l, &ci, 1, &notn));
    fl_col_pred le = PRED(FL_CMP_LE, VI32(5));
    CHECK(fl_pq_page_may_match(&l, &ci, 1, &le));
    CHECK(!fl_pq_page_may_match(&l, &ci, 2, &le));
    ci.null_counts = NULL;
    CHECK(fl_pq_page_may_match(&l, &ci, 1, &isn));
    /* garbage bounds (wrong size): conservative */
    mn[1] = RAW("ab", 2);
    CHECK(fl_pq_page_may_match(&l, &ci, 1, &eq));
}

/* One EQ/LT/GT check per remaining type: DATE, TIMESTAMP from millis,
 * UUID, BOOLEAN, and uint32 in unsigned order. */
static void test_prune_other_types(void)
{
    /* DATE */
    fl_type date = T(FL_TYPE_DATE);
    fl_pq_leaf_info l = LEAF(FL_PQ_INT32, &date, NULL);
    int32_t d0 = 18000, d1 = 18100;
    fl_pq_statistics st = {0};
    st.min_value = RAW(&d0, 4);
    st.max_value = RAW(&d1, 4);
    fl_value v = {.type = date};
    v.v.i32 = 18200;
    fl_col_pred p = PRED(FL_CMP_GE, v);
    CHECK(!fl_pq_stats_may_match(&l, &st, 5, &p));
    v.v.i32 = 18050;
    p = PRED(FL_CMP_EQ, v);
    CHECK(fl_pq_stats_may_match(&l, &st, 5, &p));
    /* TIMESTAMP stored in millis, literal in micros */
    fl_type ts = T(FL_TYPE_TIMESTAMPTZ);
    fl_pq_logical tms = {
        .kind = FL_PQ_LT_TIMESTAMP, .unit = FL_PQ_MILLIS, .is_adjusted_to_utc = true};
    l = LEAF(FL_PQ_INT64, &ts, &tms);
    int64_t m0 = 1000, m1 = 2000; /* ms */
    fl_pq_statistics ts_st = {0};
    ts_st.min_value = RAW(&m0, 8);
    ts_st.max_value = RAW(&m1, 8);
    fl_value tv = {.type = ts};
    tv.v.i64 = 2000001; /* just after the max, in micros */
    p = PRED(FL_CMP_GE, tv);
    CHECK(!fl_pq_stats_may_match(&l, &ts_st, 5, &p));
    tv.v.i64 = 2000000;
    p = PRED(FL_CMP_GE, tv);
    CHECK(fl_pq_stats_may_match(&l, &ts_st, 5, &p));
    tv.v.i64 = 999999;
    p = PRED(FL_CMP_LE, tv);
    CHECK(!fl_pq_stats_may_match(&l, &ts_st, 5, &p));
    /* UUID: unsigned byte order */
    fl_type uuid = T(FL_TYPE_UUID);
    fl_pq_logical ul = {.kind = FL_PQ_LT_UUID};
    l = LEAF(FL_PQ_FIXED_LEN_BYTE_ARRAY, &uuid, &ul);
    l.type_length = 16;
    uint8_t u0[16], u1[16], u2[16];
    memset(u0, 0x10, 16);
    memset(u1, 0x7f, 16);
    memset(u2, 0x80, 16); /* above 0x7f.. in unsigned order */
    fl_pq_statistics us = {0};
    us.min_value = RAW(u0, 16);
    us.max_value = RAW(u1, 16);
    fl_value uv = {.type = uuid};
    uv.v.bytes.ptr = u2;
    uv.v.bytes.len = 16;
    p = PRED(FL_CMP_EQ, uv);
    CHECK(!fl_pq_stats_may_match(&l, &us, 5, &p));
    p = PRED(FL_CMP_LT, uv);
    CHECK(fl_pq_stats_may_match(&l, &us, 5, &p));
    /* BOOLEAN: all false */
    fl_type bt = T(FL_TYPE_BOOLEAN);
    l = LEAF(FL_PQ_BOOLEAN, &bt, NULL);
    const uint8_t f = 0;
    fl_pq_statistics bs = {0};
    bs.min_value = bs.max_value = RAW(&f, 1);
    fl_value bv = {.type = bt};
    bv.v.b = true;
    p = PRED(FL_CMP_EQ, bv);
    CHECK(!fl_pq_stats_may_match(&l, &bs, 5, &p));
    bv.v.b = false;
    p = PRED(FL_CMP_EQ, bv);
    CHECK(fl_pq_stats_may_match(&l, &bs, 5, &p));
    /* uint32 in unsigned order: max 0xfffffff0 is 4294967280, not -16 */
    fl_type i64 = T(FL_TYPE_INT64);
    fl_pq_logical u32 = {.kind = FL_PQ_LT_INTEGER, .int_bit_width = 32, .int_is_signed = false};
    l = LEAF(FL_PQ_INT32, &i64, &u32);
    uint32_t a = 1, b = 0xfffffff0u;
    fl_pq_statistics s32 = {0};
    s32.min_value = RAW(&a, 4);
    s32.max_value = RAW(&b, 4);
    fl_value iv = {.type = i64};
    iv.v.i64 = 3000000000LL;
    p = PRED(FL_CMP_GT, iv);
    CHECK(fl_pq_stats_may_match(&l, &s32, 5, &p));
    iv.v.i64 = 4294967280LL;
    p = PRED(FL_CMP_GT, iv);
    CHECK(!fl_pq_stats_may_match(&l, &s32, 5, &p));
    iv.v.i64 = 0;
    p = PRED(FL_CMP_LT, iv);
    CHECK(!fl_pq_stats_may_match(&l, &s32, 5, &p));
}

/* ---- fixtures ---- */

/* Maps a flat leaf to the floe type the reader produces (the subset used here). */
static bool leaf_for(const fl_pq_file_meta *m, uint32_t col, fl_type *t, fl_pq_leaf_info *l)
{
    const fl_pq_schema_element *e = &m->schema[1 + col];
    memset(t, 0, sizeof *t);
    switch (e->type) {
    case FL_PQ_BOOLEAN: t->id = FL_TYPE_BOOLEAN; break;
    case FL_PQ_INT32: t->id = FL_TYPE_INT32; break;
    case FL_PQ_INT64: t->id = FL_TYPE_INT64; break;
    case FL_PQ_FLOAT: t->id = FL_TYPE_FLOAT32; break;
    case FL_PQ_DOUBLE: t->id = FL_TYPE_FLOAT64; break;
    case FL_PQ_BYTE_ARRAY:
        t->id = (e->logical.kind == FL_PQ_LT_STRING || e->converted_type == FL_PQ_CT_UTF8)
                    ? FL_TYPE_STRING
                    : FL_TYPE_BINARY;
        break;
    case FL_PQ_FIXED_LEN_BYTE_ARRAY:
        if (e->logical.kind == FL_PQ_LT_FLOAT16) {
            t->id = FL_TYPE_FLOAT32;
        } else {
            t->id = FL_TYPE_FIXED;
            t->fixed_len = e->type_length;
        }
        break;
    default: return false;
    }
    if (e->converted_type == FL_PQ_CT_DECIMAL || e->logical.kind != FL_PQ_LT_NONE) {
        if (e->logical.kind != FL_PQ_LT_STRING && e->logical.kind != FL_PQ_LT_FLOAT16 &&
            e->logical.kind != FL_PQ_LT_NONE)
            return false;
        if (e->converted_type != FL_PQ_CT_NONE && e->converted_type != FL_PQ_CT_UTF8)
            return false;
    }
    *l = LEAF(e->type, t, &e->logical);
    l->type_length = e->type_length;
    l->converted = e->converted_type;
    l->order = m->ncolumn_orders > col ? m->column_orders[col] : FL_PQ_ORDER_UNKNOWN;
    return true;
}

static fl_value value_from_plain(const fl_pq_leaf_info *l, const fl_vector *vals, uint32_t i)
{
    size_t n;
    const uint8_t *p = fl_vector_bytes(vals, i, &n);
    fl_value v;
    if (!fl_pq_stat_to_value(l, RAW(p, (uint32_t)n), &v))
        memset(&v, 0, sizeof v);
    return v;
}

static bool satisfies(const fl_value *x, fl_cmp_op op, const fl_value *lit)
{
    int c = fl_value_compare(x, lit);
    switch (op) {
    case FL_CMP_EQ: return c == 0;
    case FL_CMP_NE: return c != 0;
    case FL_CMP_LT: return c < 0;
    case FL_CMP_LE: return c <= 0;
    case FL_CMP_GT: return c > 0;
    case FL_CMP_GE: return c >= 0;
    default: return true;
    }
}

/* For every page and chunk of every supported column: pruned => no actual
 * value satisfies the predicate (literals drawn from the column's values). */
static void soundness_file(const char *rel, int *pruned_pages, int *checked)
{
    pqfile f;
    if (!open_pq(rel, &f)) {
        CHECK(0);
        return;
    }
    fl_arena a;
    fl_arena_init(&a, 0);
    for (uint32_t col = 0; col + 1 < f.m.nschema; col++) {
        fl_type t;
        fl_pq_leaf_info l;
        if (f.m.schema[1 + col].num_children > 0 || !leaf_for(&f.m, col, &t, &l))
            continue;
        colbuf cb;
        colbuf_init(&cb);
        fl_error err = {0};
        if (read_flat_column(f.data, f.len, &f.m, col, &cb, &err) != FL_OK) {
            fprintf(stderr, "%s col %u: %s\n", rel, col, err.msg);
            CHECK(0);
            colbuf_free(&cb);
            continue;
        }
        /* per page value ranges in cb.vals */
        uint32_t page = 0, row = 0, vi = 0;
        const fl_pq_column_chunk *cc = &f.m.row_groups[0].columns[col];
        fl_pq_column_index ci;
        bool have_ci =
            f.m.nrow_groups == 1 && cc->column_index_offset > 0 &&
            fl_pq_decode_column_index(f.data + cc->column_index_offset,
                                      (size_t)cc->column_index_length, &a, &ci, &err) == FL_OK &&
            ci.npages == cb.npages;
        static const fl_cmp_op ops[] = {FL_CMP_EQ, FL_CMP_NE, FL_CMP_LT,      FL_CMP_LE,
                                        FL_CMP_GT, FL_CMP_GE, FL_CMP_IS_NULL, FL_CMP_NOT_NULL};
        for (page = 0; have_ci && page < cb.npages; page++) {
            uint32_t rows = cb.page_rows[page], nn = 0;
            for (uint32_t r = row; r < row + rows; r++)
                nn += !cb.nulls[r];
            for (int k = 0; k < 6; k++) {
                /* literals: some page values and some values of other pages */
                uint32_t src =
                    (uint32_t)((vi + (uint32_t)k * 7919u) % (cb.vals.len ? cb.vals.len : 1));
                if (!cb.vals.len)
                    break;
                fl_value lit = value_from_plain(&l, &cb.vals, src);
                for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
                    fl_col_pred p = PRED(ops[o], lit);
                    bool may = fl_pq_page_may_match(&l, &ci, page, &p);
                    bool any = false;
                    if (ops[o] == FL_CMP_IS_NULL)
                        any = nn < rows;
                    else if (ops[o] == FL_CMP_NOT_NULL)
                        any = nn > 0;
                    else
                        for (uint32_t j = vi; j < vi + nn && !any; j++) {
                            fl_value x = value_from_plain(&l, &cb.vals, j);
                            any = satisfies(&x, ops[o], &lit);
                        }
                    if (any && !may) {
                        fprintf(stderr, "%s col %u page %u op %d: pruned a matching page\n", rel,
                                col, page, ops[o]);
                        CHECK(0);
                    }
                    *pruned_pages += !may;
                    (*checked)++;
                }
            }
            row += rows;
            vi += nn;
        }
        /* chunk statistics, single row group files */
        if (f.m.nrow_groups == 1 && cc->meta_data.statistics_set && cb.vals.len) {
            for (int k = 0; k < 8; k++) {
                fl_value lit = value_from_plain(&l, &cb.vals, (uint32_t)(k * 31) % cb.vals.len);
                for (size_t o = 0; o < 6; o++) {
                    fl_col_pred p = PRED(ops[o], lit);
                    bool may = fl_pq_stats_may_match(&l, &cc->meta_data.statistics,
                                                     cc->meta_data.num_values, &p);
                    bool any = false;
                    for (uint32_t j = 0; j < cb.vals.len && !any; j++) {
                        fl_value x = value_from_plain(&l, &cb.vals, j);
                        any = satisfies(&x, ops[o], &lit);
                    }
                    CHECK(!any || may);
                    (*checked)++;
                }
            }
        }
        colbuf_free(&cb);
    }
    fl_arena_free(&a);
    close_pq(&f);
}

static void test_fixture_soundness(void)
{
    int pruned = 0, checked = 0;
    soundness_file("parquet-testing/data/alltypes_tiny_pages_plain.parquet", &pruned, &checked);
    soundness_file("parquet-testing/data/alltypes_tiny_pages.parquet", &pruned, &checked);
    soundness_file("parquet-iceberg-java/encodings/PLAIN/int64.parquet", &pruned, &checked);
    soundness_file("parquet-iceberg-java/encodings/PLAIN/string.parquet", &pruned, &checked);
    soundness_file("parquet-iceberg-java/encodings/PLAIN/float.parquet", &pruned, &checked);
    soundness_file("parquet-testing/data/fixed_length_byte_array.parquet", &pruned, &checked);
    fprintf(stderr, "soundness: %d predicate checks, %d page prunes\n", checked, pruned);
    CHECK(checked > 10000);
    CHECK(pruned > 1000);
}

/* Reads the footer of a fixture and builds the leaf of column 0. */
static void nan_fixture(const char *rel, double want_min, double want_max, bool max_inf)
{
    pqfile f;
    if (!open_pq(rel, &f)) {
        CHECK(0);
        return;
    }
    fl_type t;
    fl_pq_leaf_info l;
    CHECK(leaf_for(&f.m, 0, &t, &l));
    const fl_pq_column_meta *cm = &f.m.row_groups[0].columns[0].meta_data;
    fl_value mn, mx;
    CHECK(fl_pq_stats_bounds(&l, &cm->statistics, &mn, &mx));
    double dmin = t.id == FL_TYPE_FLOAT32 ? mn.v.f32 : mn.v.f64;
    double dmax = t.id == FL_TYPE_FLOAT32 ? mx.v.f32 : mx.v.f64;
    CHECK(dmin == want_min);
    if (max_inf)
        CHECK(isinf(dmax) && dmax > 0);
    else
        CHECK(dmax == want_max);
    fl_value lit = {.type = t};
    if (t.id == FL_TYPE_FLOAT32)
        lit.v.f32 = (float)(want_min - 0.5);
    else
        lit.v.f64 = want_min - 0.5;
    fl_col_pred p = PRED(FL_CMP_LT, lit);
    CHECK(!fl_pq_stats_may_match(&l, &cm->statistics, cm->num_values, &p));
    p.op = FL_CMP_LE;
    CHECK(!fl_pq_stats_may_match(&l, &cm->statistics, cm->num_values, &p));
    p.op = FL_CMP_GT; /* NaN possible */
    CHECK(fl_pq_stats_may_match(&l, &cm->statistics, cm->num_values, &p));
    if (t.id == FL_TYPE_FLOAT32)
        lit.v.f32 = (float)want_min;
    else
        lit.v.f64 = want_min;
    p = PRED(FL_CMP_EQ, lit);
    CHECK(fl_pq_stats_may_match(&l, &cm->statistics, cm->num_values, &p));
    close_pq(&f);
}

static void test_fixture_nan(void)
{
    /* values [1.0, NaN], old writer stored NaN as max: ignored (+inf) */
    nan_fixture("parquet-testing/data/nan_in_stats.parquet", 1.0, 0, true);
    /* FLOAT16 [null, 1, -2, NaN, 0, -1, -0, 2]: min -2, max 2 */
    nan_fixture("parquet-testing/data/float16_nonzeros_and_nans.parquet", -2.0, 2.0, false);
}

int main(void)
{
    TEST_RUN(test_stat_to_value);
    TEST_RUN(test_value_plain_roundtrip);
    TEST_RUN(test_bounds_choice);
    TEST_RUN(test_prune_int);
    TEST_RUN(test_prune_string_float_decimal);
    TEST_RUN(test_prune_pages);
    TEST_RUN(test_prune_other_types);
    if (test_shared_dir()) {
        TEST_RUN(test_fixture_nan);
        TEST_RUN(test_fixture_soundness);
    } else {
        fprintf(stderr, "FLOE_SHARED fixtures absent: fixture statistics tests skipped\n");
    }
    return TEST_EXIT();
}
