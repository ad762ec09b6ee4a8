/*
 * test_metrics.c - Java-compatible bound truncation (fl_ice_truncate_lower /
 * _upper: code points, surrogate skipping, 0xFF carries, impossible upper
 * bounds) and fl_ice_metrics_from_parquet on a Parquet file written through
 * fl_parquet_writer to memory: default truncate(16), counts/none/full modes,
 * per-column overrides, invalid modes, max-inferred-column-defaults, NaN
 * counts, no NaN bounds, no counts or bounds inside lists.
 */
#include <math.h>

#include "floe/ice_manifest.h"
#include "floe/parquet.h"
#include "floe/vector.h"
#include "test.h"

static fl_type T_STRING = {.id = FL_TYPE_STRING};
static fl_type T_BINARY = {.id = FL_TYPE_BINARY};
static fl_type T_INT = {.id = FL_TYPE_INT32};

static bool lower_is(const fl_type *t, const char *in, uint32_t w, const char *want)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    const uint8_t *o;
    uint32_t n;
    bool ok = fl_ice_truncate_lower(t, (const uint8_t *)in, (uint32_t)strlen(in), w, &a, &o, &n) &&
              n == strlen(want) && !memcmp(o, want, n);
    fl_arena_free(&a);
    return ok;
}

/* want NULL: no upper bound exists */
static bool upper_is(const fl_type *t, const char *in, size_t inlen, uint32_t w, const char *want,
                     size_t wantlen)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    const uint8_t *o = NULL;
    uint32_t n = 0;
    bool got = fl_ice_truncate_upper(t, (const uint8_t *)in, (uint32_t)inlen, w, &a, &o, &n);
    bool ok = want ? (got && n == wantlen && !memcmp(o, want, n)) : !got;
    fl_arena_free(&a);
    return ok;
}
static size_t slen(const char *s)
{
    return s ? strlen(s) : 0;
}
#define UP(t, in, w, want) upper_is(t, in, strlen(in), w, want, slen(want))

static void test_truncate_strings(void)
{
    CHECK(lower_is(&T_STRING, "abcdef", 3, "abc"));
    CHECK(lower_is(&T_STRING, "abc", 3, "abc"));
    CHECK(lower_is(&T_STRING, "ab", 16, "ab"));
    CHECK(lower_is(&T_STRING, "", 16, ""));
    /* code points, not bytes: é is 2 bytes, 😀 4 */
    CHECK(lower_is(&T_STRING, "\xc3\xa9\xc3\xa9\xc3\xa9", 2, "\xc3\xa9\xc3\xa9"));
    CHECK(lower_is(&T_STRING,
                   "a\xf0\x9f\x98\x80"
                   "bc",
                   2, "a\xf0\x9f\x98\x80"));
    CHECK(UP(&T_STRING, "abcdef", 3, "abd"));
    CHECK(UP(&T_STRING, "abc", 3, "abc"));                  /* not truncated: unchanged */
    CHECK(UP(&T_STRING, "ab\xc3\xa9xyz", 3, "ab\xc3\xaa")); /* é -> ê */
    /* the spec fixture: "...param" truncated to 16 and incremented */
    CHECK(UP(&T_STRING, "Lorem ipsum dolor param", 16, "Lorem ipsum dolp"));
    /* U+D7FF increments past the surrogates to U+E000 */
    CHECK(UP(&T_STRING, "a\xed\x9f\xbfzz", 2, "a\xee\x80\x80"));
    /* U+10FFFF cannot be incremented: the code point before it is */
    CHECK(UP(&T_STRING, "a\xf4\x8f\xbf\xbfzz", 2, "b"));
    CHECK(UP(&T_STRING,
             "\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbf"
             "a",
             2, NULL));
    /* U+FFFF -> U+10000 (a longer sequence) */
    CHECK(UP(&T_STRING,
             "\xef\xbf\xbf"
             "ab",
             1, "\xf0\x90\x80\x80"));
    /* invalid UTF-8 falls back to bytes */
    CHECK(UP(&T_STRING, "ab\xff\xfe", 3, "ac"));
    CHECK(lower_is(&T_STRING, "ab\xff\xfe", 3, "ab\xff"));
}

static void test_truncate_binary(void)
{
    CHECK(lower_is(&T_BINARY, "\x01\x02\x03", 2, "\x01\x02"));
    CHECK(upper_is(&T_BINARY, "\x01\x02\x03", 3, 2, "\x01\x03", 2));
    CHECK(upper_is(&T_BINARY, "\x01\xff\x03", 3, 2, "\x02", 1));
    CHECK(upper_is(&T_BINARY, "\xff\xff\x03", 3, 2, NULL, 0));
    CHECK(upper_is(&T_BINARY, "\xff\xff", 2, 2, "\xff\xff", 2)); /* not truncated */
    /* other types pass through */
    CHECK(upper_is(&T_INT, "\x01\x02\x03\x04", 4, 1, "\x01\x02\x03\x04", 4));
}

/* ------------------------------------------------------------ parquet */

static fl_field g_list_child[1];
static fl_field g_struct_child[1];
static fl_field g_fields[6];
static fl_schema g_schema;

static void make_schema(void)
{
    g_list_child[0] = (fl_field){
        .name = "element", .field_id = 6, .nullable = true, .type = {.id = FL_TYPE_INT32}};
    g_struct_child[0] =
        (fl_field){.name = "a", .field_id = 8, .nullable = true, .type = {.id = FL_TYPE_INT32}};
    g_fields[0] =
        (fl_field){.name = "id", .field_id = 1, .nullable = false, .type = {.id = FL_TYPE_INT64}};
    g_fields[1] =
        (fl_field){.name = "s", .field_id = 2, .nullable = true, .type = {.id = FL_TYPE_STRING}};
    g_fields[2] =
        (fl_field){.name = "f", .field_id = 3, .nullable = true, .type = {.id = FL_TYPE_FLOAT64}};
    g_fields[3] =
        (fl_field){.name = "bin", .field_id = 4, .nullable = true, .type = {.id = FL_TYPE_BINARY}};
    g_fields[4] =
        (fl_field){.name = "l",
                   .field_id = 5,
                   .nullable = true,
                   .type = {.id = FL_TYPE_LIST, .nchildren = 1, .children = g_list_child}};
    g_fields[5] =
        (fl_field){.name = "st",
                   .field_id = 7,
                   .nullable = true,
                   .type = {.id = FL_TYPE_STRUCT, .nchildren = 1, .children = g_struct_child}};
    g_schema = (fl_schema){.nfields = 6, .fields = g_fields};
}

static const char *k_strs[3] = {"aaaaaaaaaaaaaaaaaaaaZ", "zzzzzzzzzzzzzzzzzzzz", NULL};

static bool write_file(fl_parquet_file_result *res, uint8_t **data, size_t *len)
{
    fl_error err = {0};
    fl_output *out = NULL;
    fl_parquet_writer *w = NULL;
    fl_batch b;
    bool ok = false;
    CHECK_OK(fl_output_memory("m.parquet", data, len, &out, &err), &err);
    CHECK_OK(fl_parquet_writer_open(out, &g_schema, NULL, &w, &err), &err);
    CHECK_OK(fl_batch_init(&b, &g_schema, &err), &err);
    if (!w)
        return false;
    const double fs[3] = {1.5, NAN, -2.0};
    for (int r = 0; r < 3; r++) {
        int64_t id = 10 + r;
        CHECK_OK(fl_vector_append_fixed(&b.cols[0], &id, &err), &err);
        if (k_strs[r])
            CHECK_OK(fl_vector_append_bytes(&b.cols[1], k_strs[r], strlen(k_strs[r]), &err), &err);
        else
            CHECK_OK(fl_vector_append_null(&b.cols[1], &err), &err);
        CHECK_OK(fl_vector_append_fixed(&b.cols[2], &fs[r], &err), &err);
        uint8_t bin[20];
        memset(bin, r == 0 ? 0x10 : 0xff, sizeof bin);
        CHECK_OK(fl_vector_append_bytes(&b.cols[3], bin, sizeof bin, &err), &err);
        int32_t x = r, y = 100 + r;
        CHECK_OK(fl_vector_append_fixed(&b.cols[4].children[0], &x, &err), &err);
        CHECK_OK(fl_vector_append_fixed(&b.cols[4].children[0], &y, &err), &err);
        CHECK_OK(fl_vector_append_nested(&b.cols[4], (int64_t)(2 * (r + 1)), &err), &err);
        int32_t a = 7 * r;
        CHECK_OK(fl_vector_append_fixed(&b.cols[5].children[0], &a, &err), &err);
        CHECK_OK(fl_vector_append_nested(&b.cols[5], 0, &err), &err);
    }
    b.nrows = 3;
    CHECK_OK(fl_parquet_writer_write(w, &b, &err), &err);
    fl_status rc = fl_parquet_writer_close(w, res, &err);
    CHECK_OK(rc, &err);
    if (rc == FL_OK) {
        rc = fl_output_close(out, &err);
        CHECK_OK(rc, &err);
        ok = rc == FL_OK;
    } else {
        fl_output_abort(out);
    }
    fl_batch_destroy(&b);
    return ok;
}

static const fl_ice_column_metrics *find(const fl_ice_column_metrics *ms, uint32_t n, int32_t id)
{
    for (uint32_t i = 0; i < n; i++)
        if (ms[i].field_id == id)
            return &ms[i];
    return NULL;
}

static bool bytes_is(const uint8_t *p, uint32_t n, const void *want, size_t wn)
{
    return n == wn && !memcmp(p, want, wn);
}

static fl_parquet_file_result g_res;
static bool g_have_file;

static void metrics_with(const fl_ice_kv *kv, uint32_t nkv, fl_arena *a, fl_ice_column_metrics **ms,
                         uint32_t *n)
{
    fl_error err = {0};
    fl_ice_map props = {nkv, (fl_ice_kv *)kv};
    CHECK_OK(fl_ice_metrics_from_parquet(&g_res, &g_schema, nkv ? &props : NULL, a, ms, n, &err),
             &err);
    for (uint32_t i = 1; i < *n; i++)
        CHECK((*ms)[i - 1].field_id < (*ms)[i].field_id);
}

static void test_default_truncate16(void)
{
    if (!g_have_file)
        return;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_ice_column_metrics *ms;
    uint32_t n;
    metrics_with(NULL, 0, &a, &ms, &n);
    CHECK_EQ_INT(n, 6); /* id, s, f, bin, l.element, st.a */
    const fl_ice_column_metrics *m = find(ms, n, 1);
    CHECK(m && m->value_count == 3 && m->null_value_count == 0 && m->nan_value_count == -1);
    CHECK(m && m->column_size > 0);
    CHECK(m && m->has_lower && bytes_is(m->lower, m->lower_len, "\x0a\0\0\0\0\0\0\0", 8));
    CHECK(m && m->has_upper && bytes_is(m->upper, m->upper_len, "\x0c\0\0\0\0\0\0\0", 8));
    m = find(ms, n, 2);
    CHECK(m && m->value_count == 3 && m->null_value_count == 1);
    CHECK(m && m->has_lower && bytes_is(m->lower, m->lower_len, "aaaaaaaaaaaaaaaa", 16));
    CHECK(m && m->has_upper && bytes_is(m->upper, m->upper_len, "zzzzzzzzzzzzzzz{", 16));
    m = find(ms, n, 3); /* NaN counted, never a bound */
    CHECK(m && m->nan_value_count == 1 && m->null_value_count == 0);
    double lo = -2.0, hi = 1.5;
    CHECK(m && m->has_lower && bytes_is(m->lower, m->lower_len, &lo, 8));
    CHECK(m && m->has_upper && bytes_is(m->upper, m->upper_len, &hi, 8));
    m = find(ms, n, 4); /* 20 x 0xff cannot be truncated upwards: upper dropped */
    uint8_t low[16];
    memset(low, 0x10, sizeof low);
    CHECK(m && m->has_lower && bytes_is(m->lower, m->lower_len, low, 16));
    CHECK(m && !m->has_upper);
    m = find(ms, n, 6); /* list element: size only */
    CHECK(m && m->column_size > 0 && m->value_count == -1 && !m->has_lower && !m->has_upper);
    m = find(ms, n, 8); /* struct child: counts and bounds */
    int32_t a0 = 0, a2 = 14;
    CHECK(m && m->value_count == 3 && bytes_is(m->lower, m->lower_len, &a0, 4) &&
          bytes_is(m->upper, m->upper_len, &a2, 4));
    fl_arena_free(&a);
}

static void test_modes(void)
{
    if (!g_have_file)
        return;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_ice_column_metrics *ms;
    uint32_t n;
    const fl_ice_kv kv[] = {
        {"write.metadata.metrics.default", "counts"},
        {"write.metadata.metrics.column.s", "full"},
        {"write.metadata.metrics.column.id", "NONE"},
        {"write.metadata.metrics.column.bin", "truncate(2)"},
        {"write.metadata.metrics.column.st.a", "bogus"}, /* invalid: the default (counts) */
        {"write.metadata.metrics.column.l.element", "none"},
    };
    metrics_with(kv, 6, &a, &ms, &n);
    CHECK(find(ms, n, 1) == NULL);
    CHECK(find(ms, n, 6) == NULL);
    const fl_ice_column_metrics *m = find(ms, n, 2);
    CHECK(m && bytes_is(m->lower, m->lower_len, k_strs[0], strlen(k_strs[0])));
    CHECK(m && bytes_is(m->upper, m->upper_len, k_strs[1], strlen(k_strs[1])));
    m = find(ms, n, 3);
    CHECK(m && m->value_count == 3 && m->nan_value_count == 1 && !m->has_lower && !m->has_upper);
    m = find(ms, n, 4);
    CHECK(m && m->has_lower && bytes_is(m->lower, m->lower_len, "\x10\x10", 2) && !m->has_upper);
    m = find(ms, n, 8);
    CHECK(m && m->value_count == 3 && !m->has_lower);
    /* full default */
    const fl_ice_kv full[] = {{"write.metadata.metrics.default", "Full"}};
    metrics_with(full, 1, &a, &ms, &n);
    m = find(ms, n, 4);
    CHECK(m && m->has_upper && m->upper_len == 20);
    /* invalid default: truncate(16) */
    const fl_ice_kv badd[] = {{"write.metadata.metrics.default", "truncate(0)"}};
    metrics_with(badd, 1, &a, &ms, &n);
    m = find(ms, n, 2);
    CHECK(m && m->lower_len == 16);
    fl_arena_free(&a);
}

static void test_max_inferred(void)
{
    if (!g_have_file)
        return;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_ice_column_metrics *ms;
    uint32_t n;
    /* 8 fields > 2: only the first two top-level primitives keep truncate(16) */
    const fl_ice_kv kv[] = {{"write.metadata.metrics.max-inferred-column-defaults", "2"},
                            {"write.metadata.metrics.column.f", "counts"}};
    metrics_with(kv, 2, &a, &ms, &n);
    CHECK_EQ_INT(n, 3);
    CHECK(find(ms, n, 1) && find(ms, n, 1)->has_lower);
    CHECK(find(ms, n, 2) && find(ms, n, 2)->lower_len == 16);
    CHECK(find(ms, n, 3) && !find(ms, n, 3)->has_lower && find(ms, n, 3)->value_count == 3);
    fl_arena_free(&a);
}

int main(void)
{
    make_schema();
    TEST_RUN(test_truncate_strings);
    TEST_RUN(test_truncate_binary);
    uint8_t *data = NULL;
    size_t len = 0;
    memset(&g_res, 0, sizeof g_res);
    g_have_file = write_file(&g_res, &data, &len);
    CHECK(g_have_file);
    TEST_RUN(test_default_truncate16);
    TEST_RUN(test_modes);
    TEST_RUN(test_max_inferred);
    if (g_have_file)
        fl_parquet_file_result_free(&g_res);
    free(data);
    return TEST_EXIT();
}
