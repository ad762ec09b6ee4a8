/*
 * test_orc_write.c - floe's ORC writer, read back by floe's ORC reader:
 * integer sequences chosen to hit every RLE v2 choice of the encoder (short
 * repeats, long repeats, fixed and varying deltas, deltas that overflow 64
 * bits, full 64-bit widths, single values), strings with nulls, several
 * stripes by row limit, every codec, statistics in the footer and the
 * result for Iceberg metrics, and the errors (required column with a null,
 * a batch of the wrong shape). pyarrow reading the same files is in
 * tests/interop/orc_compare.py.
 */
#include "floe/orc.h"
#include "test.h"

#define N 5000

static int64_t seq_value(uint32_t k)
{
    switch ((k / 500) % 8) {
    case 0: return 7;                             /* one long run */
    case 1: return (int64_t)(k % 5 < 3 ? 42 : k); /* short repeats between literals */
    case 2: return 1000 + 3 * (int64_t)k;         /* fixed delta */
    case 3: return (int64_t)k * k;                /* growing deltas */
    case 4: return k % 2 ? INT64_MAX : INT64_MIN; /* deltas beyond 64 bits */
    case 5: return -(int64_t)k * 1000003;         /* decreasing */
    case 6: return (int64_t)((uint64_t)k * 0x9e3779b97f4a7c15ull); /* full width */
    default: return k % 17 == 0 ? -1 : (int64_t)(k % 3);           /* small */
    }
}

static fl_field fields[] = {
    {.name = "id", .field_id = 1, .nullable = false, .type = {.id = FL_TYPE_INT64}},
    {.name = "s", .field_id = 2, .nullable = true, .type = {.id = FL_TYPE_STRING}},
    {.name = "b", .field_id = 3, .nullable = true, .type = {.id = FL_TYPE_BOOLEAN}},
};
static const fl_schema schema = {.nfields = 3, .fields = fields};

static fl_status fill(fl_batch *b, uint32_t from, uint32_t n, fl_error *e)
{
    fl_batch_reset(b);
    for (uint32_t k = from; k < from + n; k++) {
        int64_t v = seq_value(k);
        FL_TRY(fl_vector_append_fixed(&b->cols[0], &v, e));
        char s[32];
        int len = snprintf(s, sizeof s, "s%u", k % 37);
        FL_TRY(k % 11 == 0 ? fl_vector_append_null(&b->cols[1], e)
                           : fl_vector_append_bytes(&b->cols[1], s, (size_t)len, e));
        uint8_t x = (uint8_t)(k % 3 == 0);
        FL_TRY(k % 5 == 0 ? fl_vector_append_null(&b->cols[2], e)
                          : fl_vector_append_fixed(&b->cols[2], &x, e));
    }
    b->nrows = n;
    return FL_OK;
}

/* Writes N rows in batches of 1000 into memory; *mem owns the file. */
static fl_status write_file(const fl_orc_write_options *o, uint8_t **mem, size_t *len,
                            fl_parquet_file_result *res, fl_error *e)
{
    fl_output *out = NULL;
    fl_orc_writer *w = NULL;
    fl_batch b;
    FL_TRY(fl_output_memory("mem.orc", mem, len, &out, e));
    FL_TRY(fl_orc_writer_open(out, &schema, o, &w, e));
    FL_TRY(fl_batch_init(&b, &schema, e));
    fl_status rc = FL_OK;
    for (uint32_t k = 0; k < N && rc == FL_OK; k += 1000) {
        rc = fill(&b, k, 1000, e);
        if (rc == FL_OK)
            rc = fl_orc_writer_write(w, &b, e);
    }
    fl_batch_destroy(&b);
    if (rc == FL_OK)
        rc = fl_orc_writer_close(w, res, e);
    else
        fl_orc_writer_abort(w);
    if (rc == FL_OK)
        rc = fl_output_close(out, e);
    else
        fl_output_abort(out);
    return rc;
}

static void check_file(const uint8_t *mem, size_t len, uint32_t want_stripes)
{
    fl_error e = {0};
    fl_file *f = NULL;
    fl_orc_reader *r = NULL;
    fl_orc_scan *s = NULL;
    CHECK_OK(fl_file_from_memory(mem, len, "mem.orc", &f, &e), &e);
    CHECK_OK(fl_orc_open(f, &r, &e), &e);
    CHECK_EQ_INT(fl_orc_num_rows(r), N);
    if (want_stripes)
        CHECK_EQ_INT(fl_orc_num_stripes(r), want_stripes);
    CHECK_EQ_INT(fl_orc_schema(r)->fields[0].field_id, 1);
    CHECK(!fl_orc_schema(r)->fields[0].nullable);
    const fl_orc_stats *st = fl_orc_column_stats(r, -1, 1);
    CHECK(st && st->has_int && st->imin == INT64_MIN && st->imax == INT64_MAX);
    const fl_orc_stats *ss = fl_orc_column_stats(r, -1, 2);
    CHECK(ss && ss->has_string && strcmp(ss->smin, "s0") == 0 && strcmp(ss->smax, "s9") == 0);
    CHECK(ss->has_null_known && ss->has_null);
    CHECK_OK(fl_orc_scan_open(r, NULL, &s, &e), &e);
    fl_batch b;
    CHECK_OK(fl_batch_init(&b, fl_orc_scan_schema(s), &e), &e);
    uint32_t k = 0, bad = 0;
    bool eof = false;
    while (!eof && fl_orc_scan_next(s, &b, &eof, &e) == FL_OK && !eof) {
        for (uint32_t i = 0; i < b.nrows; i++, k++) {
            int64_t v;
            memcpy(&v, b.cols[0].data + 8 * (size_t)i, 8);
            bad += v != seq_value(k);
            bad += fl_vector_is_valid(&b.cols[1], i) != (k % 11 != 0);
            char want[32];
            int n = snprintf(want, sizeof want, "s%u", k % 37);
            size_t got_len = 0;
            const uint8_t *got = fl_vector_bytes(&b.cols[1], i, &got_len);
            bad += k % 11 != 0 && (got_len != (size_t)n || memcmp(got, want, got_len) != 0);
            bad += fl_vector_is_valid(&b.cols[2], i) != (k % 5 != 0);
            bad += k % 5 != 0 && b.cols[2].data[i] != (k % 3 == 0);
        }
    }
    CHECK_EQ_INT(e.code, FL_OK);
    CHECK_EQ_INT(k, N);
    CHECK_EQ_INT(bad, 0);
    fl_batch_destroy(&b);
    fl_orc_scan_close(s);
    fl_orc_close(r);
    fl_file_close(f);
}

static void test_roundtrip_codecs(void)
{
    const fl_orc_compression codecs[] = {FL_ORC_NONE, FL_ORC_ZLIB, FL_ORC_SNAPPY, FL_ORC_LZ4,
                                         FL_ORC_ZSTD};
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++) {
        fl_orc_write_options o = {.compression = codecs[i], .compression_set = true};
        o.block_bytes = 4096; /* many chunks per stream */
        uint8_t *mem = NULL;
        size_t len = 0;
        fl_error e = {0};
        CHECK_OK(write_file(&o, &mem, &len, NULL, &e), &e);
        check_file(mem, len, 1);
        free(mem);
    }
}

static void test_stripes_and_result(void)
{
    fl_orc_write_options o = {.stripe_rows = 1500};
    uint8_t *mem = NULL;
    size_t len = 0;
    fl_error e = {0};
    fl_parquet_file_result res;
    CHECK_OK(write_file(&o, &mem, &len, &res, &e), &e);
    check_file(mem, len, 4); /* 1500 + 1500 + 1500 + 500 */
    CHECK_EQ_INT(res.num_rows, N);
    CHECK_EQ_INT(res.file_size, len);
    CHECK_EQ_INT(res.nsplit_offsets, 4);
    CHECK_EQ_INT(res.split_offsets[0], 3);
    CHECK_EQ_INT(res.ncolumns, 3);
    CHECK_EQ_INT(res.columns[0].field_id, 1);
    CHECK_EQ_INT(res.columns[0].value_count, N);
    CHECK_EQ_INT(res.columns[0].null_count, 0);
    CHECK(res.columns[0].has_bounds && res.columns[0].lower.v.i64 == INT64_MIN);
    CHECK_EQ_INT(res.columns[1].null_count, (N + 10) / 11);
    CHECK(res.columns[1].has_bounds && res.columns[1].upper.v.bytes.len == 2);
    CHECK_EQ_INT(res.columns[2].null_count, N / 5);
    CHECK(res.columns[0].compressed_size > 0);
    fl_parquet_file_result_free(&res);
    free(mem);
}

static void test_errors(void)
{
    fl_error e = {0};
    uint8_t *mem = NULL;
    size_t len = 0;
    fl_output *out = NULL;
    fl_orc_writer *w = NULL;
    CHECK_OK(fl_output_memory("bad.orc", &mem, &len, &out, &e), &e);
    CHECK_OK(fl_orc_writer_open(out, &schema, NULL, &w, &e), &e);
    fl_batch b;
    CHECK_OK(fl_batch_init(&b, &schema, &e), &e);
    CHECK_OK(fill(&b, 0, 3, &e), &e);
    fl_vector_append_null(&b.cols[0], &e); /* a null id: required */
    fl_vector_append_null(&b.cols[1], &e);
    fl_vector_append_null(&b.cols[2], &e);
    b.nrows = 4;
    CHECK_EQ_INT(fl_orc_writer_write(w, &b, &e), FL_EINVAL);
    CHECK(strstr(e.msg, "required column id") != NULL);
    fl_batch_destroy(&b);
    fl_orc_writer_abort(w);
    fl_output_abort(out);
    free(mem);
    fl_orc_write_options lzo = {.compression = FL_ORC_LZO, .compression_set = true};
    CHECK_OK(fl_output_memory("lzo.orc", &mem, &len, &out, &e), &e);
    CHECK_EQ_INT(fl_orc_writer_open(out, &schema, &lzo, &w, &e), FL_EUNSUPPORTED);
    fl_output_abort(out);
    free(mem);
}

int main(void)
{
    TEST_RUN(test_roundtrip_codecs);
    TEST_RUN(test_stripes_and_result);
    TEST_RUN(test_errors);
    return TEST_EXIT();
}
