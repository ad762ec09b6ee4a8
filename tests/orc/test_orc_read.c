/*
 * test_orc_read.c - reads the ORC files that tests/orc/gen_orc.py made with
 * pyarrow (the ORC C++ writer) and checks every value against the
 * generator's formulas: each primitive type with nulls under every codec,
 * DIRECT and DICTIONARY strings, several stripes and batches, nested types,
 * timestamp edge cases, projection and stripe selection.
 */
#include "orc/orc_test_util.h"

#define N_PRIM 600
#define N_NESTED 300
#define N_LONG 6000

static fl_i128 pow10i(int e)
{
    fl_i128 p = 1;
    while (e-- > 0)
        p *= 10;
    return p;
}

/* The expected value of column `name` at row k of the prim_* files:
 * returns false for NULL. */
static void check_prim_row(const ot_table *t, uint32_t k)
{
    const fl_vector *c;
    int64_t i = k;
#define COL(n) (c = &t->cols[ot_col(t, n)])
    COL("i8");
    CHECK(ot_valid(c, k) == (k % 7 != 0));
    if (k % 7)
        CHECK_EQ_INT(ot_i32(c, k), (int32_t)(k % 256) - 128);
    COL("i16");
    CHECK_EQ_INT(ot_i32(c, k), (int32_t)(k * 37 % 65536) - 32768);
    COL("i32");
    CHECK(ot_valid(c, k) == (k % 13 != 5));
    if (k % 13 != 5)
        CHECK_EQ_INT(ot_i32(c, k), i * 100003 - 150000000);
    COL("i64");
    CHECK_EQ_INT(ot_i64(c, k), k % 100 ? i * 1000 : -(i * 1234567890123LL));
    COL("f32");
    CHECK(ot_valid(c, k) == (k % 17 != 0));
    if (k % 17) {
        float f;
        memcpy(&f, c->data + k * 4, 4);
        CHECK(f == (float)k * 0.5f);
    }
    COL("f64");
    double d;
    memcpy(&d, c->data + k * 8, 8);
    CHECK(d == (double)k / 3.0);
    char want[64];
    COL("s_low");
    CHECK(ot_valid(c, k) == (k % 9 != 0));
    snprintf(want, sizeof want, "v%u", k % 20);
    if (k % 9)
        CHECK(ot_str_eq(c, k, want, strlen(want)));
    COL("s_uniq");
    int n = snprintf(want, sizeof want, "row-%u-", k);
    for (uint32_t x = 0; x < k % 13; x++)
        want[n++] = 'x';
    CHECK(ot_str_eq(c, k, want, (size_t)n));
    COL("bin");
    CHECK(ot_valid(c, k) == (k % 10 != 3));
    uint8_t bw[8];
    for (uint32_t r = 0; r < k % 4; r++) {
        bw[2 * r] = (uint8_t)(k % 256);
        bw[2 * r + 1] = (uint8_t)(k * 7 % 256);
    }
    if (k % 10 != 3)
        CHECK(ot_str_eq(c, k, bw, 2 * (k % 4)));
    COL("flag");
    CHECK(ot_valid(c, k) == (k % 11 != 0));
    if (k % 11)
        CHECK_EQ_INT(c->data[k], k % 3 == 0);
    COL("day");
    CHECK(c->type->id == FL_TYPE_DATE);
    CHECK(ot_valid(c, k) == (k % 23 != 0));
    if (k % 23)
        CHECK_EQ_INT(ot_i32(c, k), i * 37 - 40000);
    COL("ts");
    CHECK(c->type->id == FL_TYPE_TIMESTAMP_NS);
    CHECK(ot_valid(c, k) == (k % 19 != 0));
    if (k % 19)
        CHECK_EQ_INT(ot_i64(c, k), (i - 1250) * 123456789012345LL + i);
    COL("d64");
    CHECK(c->type->precision == 10 && c->type->scale == 2);
    CHECK(ot_valid(c, k) == (k % 29 != 0));
    if (k % 29)
        CHECK_EQ_INT((int64_t)ot_i128(c, k), i * 12345 - 10000000);
    COL("d128");
    CHECK(c->type->precision == 38 && c->type->scale == 10);
    fl_i128 w = (fl_i128)i * pow10i(25) + i;
    if (k % 2)
        w = -w;
    CHECK(ot_i128(c, k) == w);
#undef COL
}

static void check_prim(const char *name, fl_orc_compression codec, uint32_t nstripes)
{
    fl_error e = {0};
    ot_file f;
    ot_table t;
    CHECK_OK(ot_open(&f, name, &e), &e);
    if (!f.r) {
        fprintf(stderr, "%s\n", e.msg);
        ot_close(&f);
        return;
    }
    CHECK_EQ_INT(fl_orc_num_rows(f.r), N_PRIM);
    CHECK_EQ_INT(fl_orc_num_stripes(f.r), nstripes);
    CHECK_EQ_INT(fl_orc_info(f.r)->compression, codec);
    CHECK_EQ_INT(fl_orc_schema(f.r)->nfields, 14);
    CHECK_OK(ot_read(&f, NULL, &t, &e), &e);
    CHECK_EQ_INT(t.nrows, N_PRIM);
    for (uint32_t k = 0; k < t.nrows && k < N_PRIM; k++)
        check_prim_row(&t, k);
    ot_table_free(&t);
    ot_close(&f);
}

static void test_prim_none(void)
{
    check_prim("prim_none.orc", FL_ORC_NONE, 3);
}
static void test_prim_zlib(void)
{
    check_prim("prim_zlib.orc", FL_ORC_ZLIB, 1);
}
static void test_prim_snappy(void)
{
    check_prim("prim_snappy.orc", FL_ORC_SNAPPY, 1);
}
static void test_prim_lz4(void)
{
    check_prim("prim_lz4.orc", FL_ORC_LZ4, 1);
}
static void test_prim_zstd(void)
{
    check_prim("prim_zstd.orc", FL_ORC_ZSTD, 1);
}
static void test_dictionary(void)
{
    check_prim("dict_zlib.orc", FL_ORC_ZLIB, 1);
}

static void test_schema_and_stats(void)
{
    fl_error e = {0};
    ot_file f;
    CHECK_OK(ot_open(&f, "prim_none.orc", &e), &e);
    if (!f.r) {
        ot_close(&f);
        return;
    }
    const fl_schema *s = fl_orc_schema(f.r);
    static const fl_type_id want[14] = {
        FL_TYPE_INT32,   FL_TYPE_INT32,        FL_TYPE_INT32,   FL_TYPE_INT64,  FL_TYPE_FLOAT32,
        FL_TYPE_FLOAT64, FL_TYPE_STRING,       FL_TYPE_STRING,  FL_TYPE_BINARY, FL_TYPE_BOOLEAN,
        FL_TYPE_DATE,    FL_TYPE_TIMESTAMP_NS, FL_TYPE_DECIMAL, FL_TYPE_DECIMAL};
    for (uint32_t i = 0; i < 14 && i < s->nfields; i++)
        CHECK_EQ_INT(s->fields[i].type.id, want[i]);
    CHECK_EQ_STR(s->fields[0].name, "i8");
    CHECK_EQ_STR(s->fields[13].name, "d128");
    CHECK_EQ_INT(fl_orc_type_at(f.r, fl_orc_field_column(f.r, 0))->kind, FL_ORC_BYTE);
    /* file statistics of i32: min over k of k * 100003 - 150000000 (k % 13 != 5) */
    const fl_orc_stats *st = fl_orc_column_stats(f.r, -1, fl_orc_field_column(f.r, 2));
    CHECK(st != NULL);
    if (st) {
        CHECK(st->has_int);
        CHECK_EQ_INT(st->imin, -150000000);
        CHECK_EQ_INT(st->imax, 599LL * 100003 - 150000000);
        CHECK(st->has_null);
    }
    uint64_t rows = 0;
    for (uint32_t i = 0; i < fl_orc_num_stripes(f.r); i++) {
        rows += fl_orc_stripe_info(f.r, i)->rows;
        CHECK(fl_orc_column_stats(f.r, (int32_t)i, 1) != NULL);
    }
    CHECK_EQ_INT(rows, N_PRIM);
    CHECK(fl_orc_stripe_info(f.r, 99) == NULL);
    CHECK_EQ_INT(fl_orc_info(f.r)->writer, 1); /* ORC C++ */
    CHECK_EQ_INT(fl_orc_info(f.r)->version_major, 0);
    CHECK_EQ_INT(fl_orc_info(f.r)->version_minor, 12);
    ot_close(&f);
}

/* Projection in a different order, and stripe 1 only. */
static void test_projection_and_stripes(void)
{
    fl_error e = {0};
    ot_file f;
    ot_table t;
    CHECK_OK(ot_open(&f, "prim_none.orc", &e), &e);
    if (!f.r) {
        ot_close(&f);
        return;
    }
    uint32_t fields[2] = {13, 6}, stripes[1] = {1};
    fl_orc_scan_options o = {.fields = fields, .nfields = 2, .stripes = stripes, .nstripes = 1};
    CHECK_OK(ot_read(&f, &o, &t, &e), &e);
    uint32_t first = (uint32_t)fl_orc_stripe_info(f.r, 0)->rows;
    CHECK_EQ_INT(t.nrows, fl_orc_stripe_info(f.r, 1)->rows);
    CHECK_EQ_INT(t.ncols, 2);
    CHECK_EQ_STR(t.schema.fields[0].name, "d128");
    CHECK_EQ_STR(t.schema.fields[1].name, "s_low");
    for (uint32_t r = 0; r < t.nrows; r++) {
        uint32_t k = first + r;
        fl_i128 w = (fl_i128)k * pow10i(25) + k;
        CHECK(ot_i128(&t.cols[0], r) == (k % 2 ? -w : w));
        char want[16];
        snprintf(want, sizeof want, "v%u", k % 20);
        CHECK(ot_valid(&t.cols[1], r) == (k % 9 != 0));
        if (k % 9)
            CHECK(ot_str_eq(&t.cols[1], r, want, strlen(want)));
    }
    ot_table_free(&t);
    uint32_t bad[2] = {1, 0};
    fl_orc_scan *s = NULL;
    fl_orc_scan_options ob = {.stripes = bad, .nstripes = 2};
    CHECK(fl_orc_scan_open(f.r, &ob, &s, &e) == FL_EINVAL);
    uint32_t badf[1] = {14};
    fl_orc_scan_options of = {.fields = badf, .nfields = 1};
    CHECK(fl_orc_scan_open(f.r, &of, &s, &e) == FL_EINVAL);
    ot_close(&f);
}

/* A predicate skips the stripes whose statistics exclude it. */
static void test_stripe_pruning(void)
{
    fl_error e = {0};
    ot_file f;
    ot_table t;
    CHECK_OK(ot_open(&f, "prim_none.orc", &e), &e);
    if (!f.r) {
        ot_close(&f);
        return;
    }
    fl_col_pred terms[2] = {{.column = "i64", .op = FL_CMP_GE},
                            {.column = "s_low", .op = FL_CMP_EQ}};
    terms[0].value.type.id = FL_TYPE_INT64;
    terms[0].value.v.i64 = 400000; /* i64 = k * 1000 mostly: only stripe 2 (k >= 400) */
    terms[1].value.type.id = FL_TYPE_STRING;
    terms[1].value.v.bytes.ptr = (const uint8_t *)"v3";
    terms[1].value.v.bytes.len = 2;
    fl_predicate p = {.nterms = 2, .terms = terms};
    fl_orc_scan_options o = {.predicate = &p};
    fl_orc_scan *s = NULL;
    CHECK_OK(fl_orc_scan_open(f.r, &o, &s, &e), &e);
    uint32_t asked = 0, pruned = 0;
    if (s)
        fl_orc_scan_counts(s, &asked, &pruned);
    CHECK_EQ_INT(asked, 3);
    CHECK_EQ_INT(pruned, 2);
    fl_orc_scan_close(s);
    CHECK_OK(ot_read(&f, &o, &t, &e), &e);
    CHECK_EQ_INT(t.nrows, 200); /* rows are not filtered */
    if (t.nrows == 200)
        CHECK_EQ_INT(ot_i64(&t.cols[3], 1), 401000);
    ot_table_free(&t);
    terms[0].op = FL_CMP_IS_NULL; /* i64 has no nulls */
    fl_predicate p1 = {.nterms = 1, .terms = terms};
    o.predicate = &p1;
    CHECK_OK(ot_read(&f, &o, &t, &e), &e);
    CHECK_EQ_INT(t.nrows, 0);
    ot_table_free(&t);
    terms[0].op = FL_CMP_LT; /* every stripe holds a very negative i64 */
    CHECK_OK(ot_read(&f, &o, &t, &e), &e);
    CHECK_EQ_INT(t.nrows, 600);
    ot_table_free(&t);
    ot_close(&f);
}

static void test_long(void)
{
    fl_error e = {0};
    ot_file f;
    ot_table t;
    CHECK_OK(ot_open(&f, "long_zlib.orc", &e), &e);
    if (!f.r) {
        ot_close(&f);
        return;
    }
    CHECK_OK(ot_read(&f, NULL, &t, &e), &e);
    CHECK_EQ_INT(t.nrows, N_LONG);
    CHECK_EQ_INT(t.nbatches, (N_LONG + FL_BATCH_CAP - 1) / FL_BATCH_CAP);
    for (uint32_t k = 0; k < t.nrows; k++) {
        CHECK_EQ_INT(ot_i64(&t.cols[0], k), k);
        CHECK(ot_valid(&t.cols[1], k) == (k % 1000 != 999));
        if (k % 1000 != 999)
            CHECK_EQ_INT(ot_i32(&t.cols[1], k), k % 7);
        CHECK_EQ_INT(ot_i32(&t.cols[2], k), k / 700);
        CHECK_EQ_INT(t.cols[3].data[k], k % 2);
        char want[8];
        snprintf(want, sizeof want, "t%u", k % 5);
        CHECK(ot_str_eq(&t.cols[4], k, want, 2));
    }
    ot_table_free(&t);
    ot_close(&f);
}

static const int64_t ts_edge[] = {0,
                                  -1,
                                  1,
                                  -1000,
                                  -999,
                                  -1000000000LL,
                                  -1000000001LL,
                                  -999999999LL,
                                  1000000001LL,
                                  -1500000000LL,
                                  -86400000000123LL,
                                  1420070400000000000LL,
                                  1420070399999999999LL,
                                  1420070400000000001LL,
                                  -2208988800000000000LL,
                                  -2208988799500000000LL,
                                  253402300799999999LL,
                                  123456789,
                                  -123456789,
                                  1000,
                                  10,
                                  100000000};

static void test_timestamps(void)
{
    fl_error e = {0};
    ot_file f;
    ot_table t;
    CHECK_OK(ot_open(&f, "ts_edge.orc", &e), &e);
    if (!f.r) {
        ot_close(&f);
        return;
    }
    CHECK_OK(ot_read(&f, NULL, &t, &e), &e);
    size_t n = sizeof ts_edge / sizeof *ts_edge;
    CHECK_EQ_INT(t.nrows, n + 1);
    for (uint32_t k = 0; k < n && k < t.nrows; k++) {
        CHECK(ot_valid(&t.cols[0], k));
        if (ot_i64(&t.cols[0], k) != ts_edge[k])
            fprintf(stderr, "row %u: %lld != %lld\n", k, (long long)ot_i64(&t.cols[0], k),
                    (long long)ts_edge[k]);
        CHECK_EQ_INT(ot_i64(&t.cols[0], k), ts_edge[k]);
    }
    if (t.nrows == n + 1)
        CHECK(!ot_valid(&t.cols[0], (uint32_t)n));
    ot_table_free(&t);
    ot_close(&f);
}

/* Nested: struct, list, map, list of struct inside a struct. */
static void test_nested(void)
{
    fl_error e = {0};
    ot_file f;
    ot_table t;
    CHECK_OK(ot_open(&f, "nested_zstd.orc", &e), &e);
    if (!f.r) {
        ot_close(&f);
        return;
    }
    CHECK_OK(ot_read(&f, NULL, &t, &e), &e);
    CHECK_EQ_INT(t.nrows, N_NESTED);
    CHECK_EQ_INT(t.ncols, 5);
    if (t.ncols != 5 || t.nrows != N_NESTED) {
        ot_table_free(&t);
        ot_close(&f);
        return;
    }
    const fl_vector *id = &t.cols[0], *st = &t.cols[1], *lst = &t.cols[2], *mp = &t.cols[3],
                    *deep = &t.cols[4];
    CHECK(st->type->id == FL_TYPE_STRUCT && lst->type->id == FL_TYPE_LIST &&
          mp->type->id == FL_TYPE_MAP);
    for (uint32_t k = 0; k < N_NESTED; k++) {
        char want[32];
        CHECK_EQ_INT(ot_i32(id, k), k);
        /* struct<a int, b string>, null when k % 5 == 0; a null when k % 3 == 0 */
        CHECK(ot_valid(st, k) == (k % 5 != 0));
        if (k % 5) {
            CHECK(ot_valid(&st->children[0], k) == (k % 3 != 0));
            if (k % 3)
                CHECK_EQ_INT(ot_i32(&st->children[0], k), k);
            snprintf(want, sizeof want, "b%u", k);
            CHECK(ot_str_eq(&st->children[1], k, want, strlen(want)));
        }
        /* list<bigint>: null when k % 4 == 0, else k % 5 items, item 2 null */
        CHECK(ot_valid(lst, k) == (k % 4 != 0));
        int64_t lo = lst->offsets[k], hi = lst->offsets[k + 1];
        CHECK_EQ_INT(hi - lo, k % 4 ? k % 5 : 0);
        for (int64_t j = 0; j < hi - lo; j++) {
            const fl_vector *el = &lst->children[0];
            CHECK(ot_valid(el, (uint32_t)(lo + j)) == (j != 2));
            if (j != 2)
                CHECK_EQ_INT(ot_i64(el, (uint32_t)(lo + j)), k * 10 + j);
        }
        /* map<string,int>: null when k % 6 == 1, else k % 3 entries "kj" -> k + j */
        CHECK(ot_valid(mp, k) == (k % 6 != 1));
        lo = mp->offsets[k];
        hi = mp->offsets[k + 1];
        CHECK_EQ_INT(hi - lo, k % 6 != 1 ? k % 3 : 0);
        for (int64_t j = 0; j < hi - lo; j++) {
            uint32_t r = (uint32_t)(lo + j);
            snprintf(want, sizeof want, "k%lld", (long long)j);
            CHECK(ot_str_eq(&mp->children[0], r, want, strlen(want)));
            CHECK(ot_valid(&mp->children[1], r) == ((k + j) % 4 != 0));
            if ((k + j) % 4)
                CHECK_EQ_INT(ot_i32(&mp->children[1], r), k + j);
        }
        /* struct<xs: list<struct<p smallint, q string>>>: k % 3 items {k + j, j ? null : "qk"} */
        CHECK(ot_valid(deep, k));
        const fl_vector *xs = &deep->children[0];
        lo = xs->offsets[k];
        hi = xs->offsets[k + 1];
        CHECK_EQ_INT(hi - lo, k % 3);
        for (int64_t j = 0; j < hi - lo; j++) {
            uint32_t r = (uint32_t)(lo + j);
            const fl_vector *item = &xs->children[0];
            CHECK_EQ_INT(ot_i32(&item->children[0], r), k + j);
            CHECK(ot_valid(&item->children[1], r) == (j == 0));
            snprintf(want, sizeof want, "q%u", k);
            if (j == 0)
                CHECK(ot_str_eq(&item->children[1], r, want, strlen(want)));
        }
    }
    ot_table_free(&t);
    ot_close(&f);
}

int main(void)
{
    TEST_RUN(test_prim_none);
    TEST_RUN(test_prim_zlib);
    TEST_RUN(test_prim_snappy);
    TEST_RUN(test_prim_lz4);
    TEST_RUN(test_prim_zstd);
    TEST_RUN(test_dictionary);
    TEST_RUN(test_schema_and_stats);
    TEST_RUN(test_projection_and_stripes);
    TEST_RUN(test_stripe_pruning);
    TEST_RUN(test_long);
    TEST_RUN(test_timestamps);
    TEST_RUN(test_nested);
    return TEST_EXIT();
}
