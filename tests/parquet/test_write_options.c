/*
 * test_write_options.c - writer options, checked by decoding what was
 * written with the thrift decoder: every codec with v1 and v2 pages (page
 * bodies decompress to their announced size, CRCs match), dictionary
 * fallback (dictionary page, RLE_DICTIONARY pages, then PLAIN pages, with
 * matching encoding_stats), row-group and page limits, the offset index
 * (page offsets, sizes, first rows) and column index (min/max per page,
 * truncation with rounding, null pages, null counts, boundary order), NaN
 * and signed-zero statistics, bloom filters, key-value metadata.
 */
#include "floe/compress.h"
#include "test_write_util.h"

/* ---- a simple table: id long (ascending), s string, d double, x int (descending) ---- */

static fl_field s_fields[4];
static fl_schema s_schema;

typedef struct simple_ctx {
    uint32_t rows_per_batch;
    bool unique_strings; /* s = long unique strings (dictionary overflow) */
    bool all_null_d;     /* d null in batches 1 and 2 */
} simple_ctx;

static void simple_schema(void)
{
    s_fields[0] = tw_field("id", 1, false, FL_TYPE_INT64);
    s_fields[1] = tw_field("s", 2, true, FL_TYPE_STRING);
    s_fields[2] = tw_field("d", 3, true, FL_TYPE_FLOAT64);
    s_fields[3] = tw_field("x", 4, true, FL_TYPE_INT32);
    s_schema.nfields = 4;
    s_schema.fields = s_fields;
}

static fl_status simple_fill(fl_batch *b, uint32_t batch_no, void *vctx, fl_error *err)
{
    simple_ctx *ctx = vctx;
    char s[128];
    for (uint32_t i = 0; i < ctx->rows_per_batch; i++) {
        uint32_t g = batch_no * ctx->rows_per_batch + i;
        int64_t id = g;
        FL_TRY(fl_vector_append_fixed(&b->cols[0], &id, err));
        int n = ctx->unique_strings
                    ? snprintf(s, sizeof s, "value-%08u-padding-padding-padding", g * 2654435761u)
                    : snprintf(s, sizeof s, "cat%u", g % 13);
        if (g % 10 == 9)
            FL_TRY(fl_vector_append_null(&b->cols[1], err));
        else
            FL_TRY(fl_vector_append_bytes(&b->cols[1], s, (size_t)n, err));
        double d = (double)(g % 101) - 50.0;
        if (ctx->all_null_d && (batch_no == 1 || batch_no == 2))
            FL_TRY(fl_vector_append_null(&b->cols[2], err));
        else
            FL_TRY(fl_vector_append_fixed(&b->cols[2], &d, err));
        int32_t x = 1000000 - (int32_t)g;
        FL_TRY(fl_vector_append_fixed(&b->cols[3], &x, err));
    }
    b->nrows = ctx->rows_per_batch;
    return FL_OK;
}

static fl_codec to_codec(fl_pq_codec c)
{
    switch (c) {
    case FL_PQ_SNAPPY: return FL_CODEC_SNAPPY;
    case FL_PQ_GZIP: return FL_CODEC_GZIP;
    case FL_PQ_BROTLI: return FL_CODEC_BROTLI;
    case FL_PQ_ZSTD: return FL_CODEC_ZSTD;
    case FL_PQ_LZ4_RAW: return FL_CODEC_LZ4_RAW;
    default: return FL_CODEC_NONE;
    }
}

/* Walks the pages of a chunk: checks header/body bounds, decompression, CRC.
 * Fills counts by page type/encoding; returns the page headers in order. */
typedef struct page_walk {
    uint32_t n;
    fl_pq_page_header h[512];
    int64_t offset[512];
    int32_t size[512]; /* header + body */
} page_walk;

static void walk_pages(const tw_file *f, const fl_pq_column_chunk *cc, bool want_crc, page_walk *pw)
{
    const fl_pq_column_meta *m = &cc->meta_data;
    int64_t start =
        m->dictionary_page_offset >= 0 ? m->dictionary_page_offset : m->data_page_offset;
    int64_t end = start + m->total_compressed_size;
    CHECK(end <= (int64_t)f->len);
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    int64_t pos = start;
    int64_t values = 0, unc = 0;
    pw->n = 0;
    while (pos < end && pw->n < 512) {
        fl_pq_page_header *h = &pw->h[pw->n];
        size_t used = 0;
        fl_status rc =
            fl_pq_decode_page_header(f->data + pos, (size_t)(end - pos), &a, h, &used, &err);
        CHECK_OK(rc, &err);
        if (rc != FL_OK)
            break;
        const uint8_t *body = f->data + pos + used;
        CHECK(pos + (int64_t)used + h->compressed_page_size <= end);
        if (pos + (int64_t)used + h->compressed_page_size > end)
            break;
        CHECK_EQ_INT(h->crc_set, want_crc);
        if (h->crc_set)
            CHECK_EQ_INT(h->crc, fl_crc32(0, body, (size_t)h->compressed_page_size));
        /* decompress what is compressed */
        size_t skip = 0;
        if (h->type == FL_PQ_DATA_PAGE_V2)
            skip =
                (size_t)h->definition_levels_byte_length + (size_t)h->repetition_levels_byte_length;
        size_t usize = (size_t)h->uncompressed_page_size - skip;
        uint8_t *out = malloc(usize + 1);
        fl_codec codec = to_codec(m->codec);
        if (codec == FL_CODEC_NONE || (h->type == FL_PQ_DATA_PAGE_V2 && !h->is_compressed))
            CHECK_EQ_INT((size_t)h->compressed_page_size - skip, usize);
        else
            CHECK_OK(fl_decompress(codec, body + skip, (size_t)h->compressed_page_size - skip, out,
                                   usize, &err),
                     &err);
        free(out);
        if (h->type != FL_PQ_DICTIONARY_PAGE)
            values += h->num_values;
        unc += (int64_t)used + h->uncompressed_page_size;
        pw->offset[pw->n] = pos;
        pw->size[pw->n] = (int32_t)(used + (size_t)h->compressed_page_size);
        pw->n++;
        pos += (int64_t)used + h->compressed_page_size;
    }
    CHECK_EQ_INT(pos, end);
    CHECK_EQ_INT(values, m->num_values);
    CHECK_EQ_INT(unc, m->total_uncompressed_size);
    fl_arena_free(&a);
}

static void test_codecs_and_page_versions(void)
{
    simple_schema();
    static const fl_parquet_codec codecs[] = {FL_PARQUET_UNCOMPRESSED, FL_PARQUET_SNAPPY,
                                              FL_PARQUET_GZIP,         FL_PARQUET_LZ4_RAW,
                                              FL_PARQUET_ZSTD,         FL_PARQUET_BROTLI};
    for (uint32_t ci = 0; ci < sizeof codecs / sizeof codecs[0]; ci++)
        for (int v = 1; v <= 2; v++) {
            fl_error err = {0};
            tw_file f;
            simple_ctx ctx = {1000, false, false};
            fl_parquet_write_options o = {0};
            o.codec_set = true;
            o.codec = codecs[ci];
            o.data_page_version = v;
            o.page_rows = 700;
            o.write_crc = (ci % 2) == 0;
            CHECK_OK(tw_write(&s_schema, &o, 3, simple_fill, &ctx, &f, NULL, &err), &err);
            if (!f.ok)
                continue;
            CHECK_EQ_INT(f.meta.version, v);
            CHECK_EQ_INT(f.meta.nrow_groups, 1);
            for (uint32_t c = 0; c < 4; c++) {
                const fl_pq_column_chunk *cc = &f.meta.row_groups[0].columns[c];
                CHECK_EQ_INT(cc->meta_data.codec, (int)codecs[ci]);
                page_walk pw;
                walk_pages(&f, cc, o.write_crc, &pw);
                /* 3000 rows at 700 rows per page: 5 data pages + the dictionary page */
                CHECK_EQ_INT(pw.n, 6);
                CHECK_EQ_INT(pw.h[0].type, FL_PQ_DICTIONARY_PAGE);
                for (uint32_t p = 1; p < pw.n; p++)
                    CHECK_EQ_INT(pw.h[p].type, v == 2 ? FL_PQ_DATA_PAGE_V2 : FL_PQ_DATA_PAGE);
                if (v == 2)
                    CHECK_EQ_INT(pw.h[1].num_rows, 700);
            }
            tw_file_free(&f);
        }
}

static void test_dictionary_fallback(void)
{
    simple_schema();
    fl_error err = {0};
    tw_file f;
    simple_ctx ctx = {2000, true, false};
    fl_parquet_write_options o = {0};
    o.dictionary_max_bytes = 20000;
    o.page_rows = 500;
    CHECK_OK(tw_write(&s_schema, &o, 5, simple_fill, &ctx, &f, NULL, &err), &err);
    if (!f.ok)
        return;
    const fl_pq_column_chunk *cc = &f.meta.row_groups[0].columns[1];
    const fl_pq_column_meta *m = &cc->meta_data;
    page_walk pw;
    walk_pages(&f, cc, false, &pw);
    CHECK(pw.n > 3);
    CHECK_EQ_INT(pw.h[0].type, FL_PQ_DICTIONARY_PAGE);
    CHECK(pw.h[0].uncompressed_page_size <= 20000 + 64 * 48);
    uint32_t ndict = 0, nplain = 0;
    bool plain_seen = false, order_ok = true;
    for (uint32_t p = 1; p < pw.n; p++) {
        if (pw.h[p].encoding == FL_PQ_ENC_RLE_DICTIONARY) {
            ndict++;
            if (plain_seen)
                order_ok = false;
        } else {
            CHECK_EQ_INT(pw.h[p].encoding, FL_PQ_ENC_PLAIN);
            nplain++;
            plain_seen = true;
        }
    }
    CHECK(order_ok);
    CHECK(ndict >= 1);
    CHECK(nplain >= 1);
    /* encoding_stats agree with the pages */
    int32_t s_dict = 0, s_rle = 0, s_plain = 0;
    for (uint32_t i = 0; i < m->nencoding_stats; i++) {
        const fl_pq_page_encoding_stats *s = &m->encoding_stats[i];
        if (s->page_type == FL_PQ_DICTIONARY_PAGE)
            s_dict += s->count;
        else if (s->encoding == FL_PQ_ENC_RLE_DICTIONARY)
            s_rle += s->count;
        else if (s->encoding == FL_PQ_ENC_PLAIN)
            s_plain += s->count;
    }
    CHECK_EQ_INT(s_dict, 1);
    CHECK_EQ_INT(s_rle, ndict);
    CHECK_EQ_INT(s_plain, nplain);
    bool has_plain = false, has_rd = false;
    for (uint32_t i = 0; i < m->nencodings; i++) {
        has_plain |= m->encodings[i] == FL_PQ_ENC_PLAIN;
        has_rd |= m->encodings[i] == FL_PQ_ENC_RLE_DICTIONARY;
    }
    CHECK(has_plain && has_rd);
    tw_file_free(&f);

    /* page_bytes bounds the pages (one short segment of overshoot at most) */
    o.page_bytes = 16384;
    o.page_rows = 0;
    CHECK_OK(tw_write(&s_schema, &o, 5, simple_fill, &ctx, &f, NULL, &err), &err);
    if (f.ok) {
        walk_pages(&f, &f.meta.row_groups[0].columns[1], false, &pw);
        CHECK(pw.n > 10);
        for (uint32_t p = 1; p < pw.n; p++)
            CHECK(pw.h[p].uncompressed_page_size <= 16384 + 16 * 60);
    }
    tw_file_free(&f);

    /* no_dictionary: no dictionary pages at all */
    o.no_dictionary = true;
    CHECK_OK(tw_write(&s_schema, &o, 2, simple_fill, &ctx, &f, NULL, &err), &err);
    if (f.ok)
        for (uint32_t c = 0; c < 4; c++)
            CHECK_EQ_INT(f.meta.row_groups[0].columns[c].meta_data.dictionary_page_offset, -1);
    tw_file_free(&f);
}

static void check_page_index(const tw_file *f, uint32_t rg_index)
{
    const fl_pq_row_group *rg = &f->meta.row_groups[rg_index];
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    for (uint32_t c = 0; c < rg->ncolumns; c++) {
        const fl_pq_column_chunk *cc = &rg->columns[c];
        page_walk pw;
        walk_pages(f, cc, false, &pw);
        CHECK(cc->offset_index_offset > 0 && cc->offset_index_length > 0);
        fl_pq_offset_index oi;
        CHECK_OK(fl_pq_decode_offset_index(f->data + cc->offset_index_offset,
                                           (size_t)cc->offset_index_length, &a, &oi, &err),
                 &err);
        uint32_t first_data = pw.h[0].type == FL_PQ_DICTIONARY_PAGE ? 1 : 0;
        CHECK_EQ_INT(oi.npages, pw.n - first_data);
        int64_t row = 0;
        for (uint32_t p = 0; p < oi.npages && p + first_data < pw.n; p++) {
            CHECK_EQ_INT(oi.page_locations[p].offset, pw.offset[p + first_data]);
            CHECK_EQ_INT(oi.page_locations[p].compressed_page_size, pw.size[p + first_data]);
            CHECK_EQ_INT(oi.page_locations[p].first_row_index, row);
            row += pw.h[p + first_data].num_values; /* flat columns: one value per row */
        }
        CHECK_EQ_INT(row, rg->num_rows);
        /* offset index and column index come after every row group */
        const fl_pq_column_chunk *last =
            &f->meta.row_groups[f->meta.nrow_groups - 1].columns[rg->ncolumns - 1];
        CHECK(cc->offset_index_offset >= last->file_offset + last->meta_data.total_compressed_size);
    }
    fl_arena_free(&a);
}

static void test_row_groups_pages_and_page_index(void)
{
    simple_schema();
    fl_error err = {0};
    tw_file f;
    fl_parquet_file_result res;
    simple_ctx ctx = {2500, false, true};
    fl_parquet_write_options o = {0};
    o.row_group_rows = 3000;
    o.page_rows = 500;
    CHECK_OK(tw_write(&s_schema, &o, 4, simple_fill, &ctx, &f, &res, &err), &err);
    if (!f.ok)
        return;
    const fl_pq_file_meta *m = &f.meta;
    CHECK_EQ_INT(m->num_rows, 10000);
    CHECK_EQ_INT(m->nrow_groups, 4);
    CHECK_EQ_INT(res.nsplit_offsets, 4);
    int64_t prev_end = 4;
    for (uint32_t g = 0; g < m->nrow_groups; g++) {
        const fl_pq_row_group *rg = &m->row_groups[g];
        CHECK_EQ_INT(rg->num_rows, g < 3 ? 3000 : 1000);
        CHECK_EQ_INT(rg->ordinal, g);
        CHECK_EQ_INT(rg->file_offset, prev_end);
        CHECK_EQ_INT(res.split_offsets[g], rg->file_offset);
        int64_t comp = 0;
        for (uint32_t c = 0; c < rg->ncolumns; c++)
            comp += rg->columns[c].meta_data.total_compressed_size;
        CHECK_EQ_INT(rg->total_compressed_size, comp);
        prev_end = rg->file_offset + comp;
        check_page_index(&f, g);
    }

    fl_arena a;
    fl_arena_init(&a, 0);
    /* id ascending, x descending, d (not sorted) unordered with null pages in the middle */
    for (uint32_t g = 0; g < m->nrow_groups; g++) {
        const fl_pq_row_group *rg = &m->row_groups[g];
        fl_pq_column_index ci[4];
        for (uint32_t c = 0; c < 4; c++) {
            const fl_pq_column_chunk *cc = &rg->columns[c];
            CHECK(cc->column_index_offset > 0);
            CHECK_OK(fl_pq_decode_column_index(f.data + cc->column_index_offset,
                                               (size_t)cc->column_index_length, &a, &ci[c], &err),
                     &err);
        }
        uint32_t np = ci[0].npages;
        CHECK_EQ_INT(np, g < 3 ? 6 : 2);
        CHECK_EQ_INT(ci[0].boundary_order, FL_PQ_ASCENDING);
        CHECK_EQ_INT(ci[3].boundary_order, FL_PQ_DESCENDING);
        fl_pq_leaf_info li;
        tw_leaf_info(&m->schema[1], &s_fields[0].type, &li);
        for (uint32_t p = 0; p < np; p++) {
            int64_t first = (int64_t)g * 3000 + (int64_t)p * 500;
            fl_value lo = {.type = s_fields[0].type, .v.i64 = first};
            fl_value hi = {.type = s_fields[0].type, .v.i64 = first + 499};
            CHECK(!ci[0].null_pages[p]);
            CHECK(tw_stat_is(&li, ci[0].min_values[p], &lo));
            CHECK(tw_stat_is(&li, ci[0].max_values[p], &hi));
            CHECK(ci[0].null_counts && ci[0].null_counts[p] == 0);
            /* s: every 10th value is null */
            CHECK(ci[1].null_counts && ci[1].null_counts[p] == 50);
            /* d: rows 2500..7499 are null */
            bool dnull = first >= 2500 && first + 499 < 7500;
            CHECK_EQ_INT(ci[2].null_pages[p], dnull);
            if (dnull) {
                CHECK_EQ_INT(ci[2].null_counts[p], 500);
                CHECK_EQ_INT(ci[2].min_values[p].len, 0);
            }
        }
    }
    /* result metrics over the whole file */
    CHECK_EQ_INT(res.columns[2].null_count, 5000);
    CHECK_EQ_INT(res.columns[2].nan_count, 0);
    CHECK_EQ_INT(res.columns[0].lower.v.i64, 0);
    CHECK_EQ_INT(res.columns[0].upper.v.i64, 9999);
    CHECK_EQ_INT(res.columns[3].lower.v.i32, 1000000 - 9999);
    CHECK_EQ_STR((const char *)res.columns[1].path, "s");
    fl_arena_free(&a);
    fl_parquet_file_result_free(&res);
    tw_file_free(&f);
}

static void test_row_group_bytes(void)
{
    simple_schema();
    fl_error err = {0};
    tw_file f;
    simple_ctx ctx = {2000, true, false};
    fl_parquet_write_options o = {0};
    o.row_group_bytes = 200000;
    o.codec_set = true;
    o.codec = FL_PARQUET_SNAPPY;
    CHECK_OK(tw_write(&s_schema, &o, 10, simple_fill, &ctx, &f, NULL, &err), &err);
    if (!f.ok)
        return;
    CHECK(f.meta.nrow_groups >= 4);
    int64_t rows = 0;
    for (uint32_t g = 0; g < f.meta.nrow_groups; g++) {
        rows += f.meta.row_groups[g].num_rows;
        /* a row group closes at the first slice (<= 8192 rows) past the target */
        CHECK(f.meta.row_groups[g].total_byte_size < 200000 * 3);
    }
    CHECK_EQ_INT(rows, 20000);
    tw_file_free(&f);
}

/* ---- strings: column index truncation, chunk statistics exact ---- */

static fl_field str_fields[3];
static fl_schema str_schema;

static fl_status str_fill(fl_batch *b, uint32_t batch_no, void *ctx, fl_error *err)
{
    (void)ctx;
    (void)batch_no;
    char buf[300];
    /* c0 (STRING): "é" * 70 (140 bytes) and "a" * 100; c1 (BINARY): 0xFF*70 + "x", 0x01 * 80 */
    memset(buf, 'a', 100);
    FL_TRY(fl_vector_append_bytes(&b->cols[0], buf, 100, err));
    for (int i = 0; i < 70; i++)
        buf[2 * i] = (char)0xC3, buf[2 * i + 1] = (char)0xA9;
    FL_TRY(fl_vector_append_bytes(&b->cols[0], buf, 140, err));
    memset(buf, 0xFF, 70);
    buf[70] = 'x';
    FL_TRY(fl_vector_append_bytes(&b->cols[1], buf, 71, err));
    memset(buf, 0x01, 80);
    FL_TRY(fl_vector_append_bytes(&b->cols[1], buf, 80, err));
    /* c2 (STRING): U+FFFD * 1667 (5001 bytes, beyond the 4096-byte statistics limit), null */
    uint8_t *big = malloc(5001);
    if (!big)
        return fl_errorf(err, FL_ENOMEM, "oom");
    for (int i = 0; i < 1667; i++)
        big[3 * i] = 0xEF, big[3 * i + 1] = 0xBF, big[3 * i + 2] = 0xBD;
    fl_status rc = fl_vector_append_bytes(&b->cols[2], big, 5001, err);
    free(big);
    FL_TRY(rc);
    FL_TRY(fl_vector_append_null(&b->cols[2], err));
    b->nrows = 2;
    return FL_OK;
}

static void test_string_truncation(void)
{
    str_fields[0] = tw_field("s", 1, true, FL_TYPE_STRING);
    str_fields[1] = tw_field("b", 2, true, FL_TYPE_BINARY);
    str_fields[2] = tw_field("big", 3, true, FL_TYPE_STRING);
    str_schema.nfields = 3;
    str_schema.fields = str_fields;
    fl_error err = {0};
    tw_file f;
    CHECK_OK(tw_write(&str_schema, NULL, 1, str_fill, NULL, &f, NULL, &err), &err);
    if (!f.ok)
        return;
    fl_arena a;
    fl_arena_init(&a, 0);
    const fl_pq_row_group *rg = &f.meta.row_groups[0];
    /* chunk statistics: exact */
    const fl_pq_statistics *st = &rg->columns[0].meta_data.statistics;
    CHECK_EQ_INT(st->min_value.len, 100);
    CHECK_EQ_INT(st->max_value.len, 140);
    CHECK(st->is_max_value_exact);
    CHECK(st->is_min_value_exact);
    /* c2: chunk statistics truncated to 4096 bytes: min a prefix at a character
     * boundary (4095 bytes), max the same prefix with its last character + 1 */
    st = &rg->columns[2].meta_data.statistics;
    CHECK_EQ_INT(st->null_count, 1);
    CHECK_EQ_INT(st->min_value.len, 4095);
    CHECK(!st->is_min_value_exact);
    CHECK_EQ_INT(st->max_value.len, 4095);
    CHECK(!st->is_max_value_exact);
    if (st->max_value.len == 4095) {
        CHECK(st->max_value.ptr[4091] == 0xBD);
        CHECK(st->max_value.ptr[4092] == 0xEF && st->max_value.ptr[4093] == 0xBF &&
              st->max_value.ptr[4094] == 0xBE);
    }
    fl_pq_column_index ci;
    const fl_pq_column_chunk *cc = &rg->columns[0];
    CHECK_OK(fl_pq_decode_column_index(f.data + cc->column_index_offset,
                                       (size_t)cc->column_index_length, &a, &ci, &err),
             &err);
    CHECK_EQ_INT(ci.npages, 1);
    /* min: 64 'a'; max: 31 'é' then 'ê' (U+00EA) = 64 bytes, valid UTF-8 */
    CHECK_EQ_INT(ci.min_values[0].len, 64);
    CHECK(ci.min_values[0].ptr[63] == 'a');
    CHECK_EQ_INT(ci.max_values[0].len, 64);
    if (ci.max_values[0].len == 64) {
        CHECK(ci.max_values[0].ptr[60] == 0xC3 && ci.max_values[0].ptr[61] == 0xA9);
        CHECK(ci.max_values[0].ptr[62] == 0xC3 && ci.max_values[0].ptr[63] == 0xAA);
    }
    /* binary: max 0xFF*70 'x' cannot be rounded up within 64 bytes: kept exact */
    cc = &rg->columns[1];
    CHECK_OK(fl_pq_decode_column_index(f.data + cc->column_index_offset,
                                       (size_t)cc->column_index_length, &a, &ci, &err),
             &err);
    CHECK_EQ_INT(ci.min_values[0].len, 64);
    CHECK_EQ_INT(ci.max_values[0].len, 71);
    fl_arena_free(&a);
    tw_file_free(&f);
}

/* ---- floats: NaN excluded, all-NaN has no bounds, signed zeros ---- */

static fl_field fl_fields[3];
static fl_schema fl_schema_;

static fl_status float_fill(fl_batch *b, uint32_t batch_no, void *ctx, fl_error *err)
{
    (void)ctx;
    (void)batch_no;
    double d[4] = {NAN, 3.5, -2.0, NAN};
    float nanf_ = NAN;
    double z[3] = {0.0, -0.0, 0.0};
    for (int i = 0; i < 4; i++) {
        FL_TRY(fl_vector_append_fixed(&b->cols[0], &d[i], err));
        FL_TRY(fl_vector_append_fixed(&b->cols[1], &nanf_, err));
        if (i < 3)
            FL_TRY(fl_vector_append_fixed(&b->cols[2], &z[i], err));
        else
            FL_TRY(fl_vector_append_null(&b->cols[2], err));
    }
    b->nrows = 4;
    return FL_OK;
}

static void test_float_statistics(void)
{
    fl_fields[0] = tw_field("d", 1, true, FL_TYPE_FLOAT64);
    fl_fields[1] = tw_field("allnan", 2, true, FL_TYPE_FLOAT32);
    fl_fields[2] = tw_field("zero", 3, true, FL_TYPE_FLOAT64);
    fl_schema_.nfields = 3;
    fl_schema_.fields = fl_fields;
    fl_error err = {0};
    tw_file f;
    fl_parquet_file_result res;
    CHECK_OK(tw_write(&fl_schema_, NULL, 1, float_fill, NULL, &f, &res, &err), &err);
    if (!f.ok)
        return;
    const fl_pq_row_group *rg = &f.meta.row_groups[0];
    fl_pq_leaf_info li;
    tw_leaf_info(&f.meta.schema[1], &fl_fields[0].type, &li);
    fl_value lo = {.type = fl_fields[0].type, .v.f64 = -2.0};
    fl_value hi = {.type = fl_fields[0].type, .v.f64 = 3.5};
    CHECK(tw_stat_is(&li, rg->columns[0].meta_data.statistics.min_value, &lo));
    CHECK(tw_stat_is(&li, rg->columns[0].meta_data.statistics.max_value, &hi));
    CHECK_EQ_INT(res.columns[0].nan_count, 2);
    CHECK(rg->columns[0].meta_data.statistics.nan_count_set);
    CHECK_EQ_INT(rg->columns[0].meta_data.statistics.nan_count, 2);
    CHECK(rg->columns[1].meta_data.statistics.nan_count_set);
    CHECK_EQ_INT(rg->columns[1].meta_data.statistics.nan_count, 4);
    /* all NaN: no min/max, no column index (a non-null page without bounds) */
    CHECK(rg->columns[1].meta_data.statistics.min_value.ptr == NULL);
    CHECK(rg->columns[1].meta_data.statistics.max_value.ptr == NULL);
    CHECK_EQ_INT(rg->columns[1].column_index_offset, -1);
    CHECK(rg->columns[1].offset_index_offset > 0);
    CHECK_EQ_INT(res.columns[1].nan_count, 4);
    CHECK(!res.columns[1].has_bounds);
    /* zeros: min -0.0, max +0.0 */
    const fl_pq_statistics *zs = &rg->columns[2].meta_data.statistics;
    CHECK_EQ_INT(zs->min_value.len, 8);
    CHECK_EQ_INT(zs->max_value.len, 8);
    if (zs->min_value.len == 8 && zs->max_value.len == 8) {
        double mn, mx;
        memcpy(&mn, zs->min_value.ptr, 8);
        memcpy(&mx, zs->max_value.ptr, 8);
        CHECK(mn == 0.0 && signbit(mn));
        CHECK(mx == 0.0 && !signbit(mx));
    }
    CHECK_EQ_INT(zs->null_count, 1);
    fl_parquet_file_result_free(&res);
    tw_file_free(&f);
}

static void test_options_off_and_metadata(void)
{
    simple_schema();
    fl_error err = {0};
    tw_file f;
    simple_ctx ctx = {100, false, false};
    fl_parquet_write_options o = {0};
    o.no_statistics = true;
    o.no_page_index = true;
    o.created_by = "custom writer 1.0";
    fl_kv_pair kv[2] = {{"a", "1"}, {"b", NULL}};
    o.kv = kv;
    o.nkv = 2;
    CHECK_OK(tw_write(&s_schema, &o, 1, simple_fill, &ctx, &f, NULL, &err), &err);
    if (!f.ok)
        return;
    CHECK_EQ_STR(f.meta.created_by, "custom writer 1.0");
    CHECK_EQ_INT(f.meta.nkv, 2);
    CHECK_EQ_STR(f.meta.key_value_metadata[0].key, "a");
    CHECK_EQ_STR(f.meta.key_value_metadata[0].value, "1");
    CHECK_EQ_STR(f.meta.key_value_metadata[1].key, "b");
    CHECK(f.meta.key_value_metadata[1].value == NULL);
    for (uint32_t c = 0; c < 4; c++) {
        const fl_pq_column_chunk *cc = &f.meta.row_groups[0].columns[c];
        CHECK(!cc->meta_data.statistics_set);
        CHECK_EQ_INT(cc->column_index_offset, -1);
        CHECK_EQ_INT(cc->offset_index_offset, -1);
    }
    tw_file_free(&f);
}

/* ---- bloom filters ---- */

static void test_bloom_filter(void)
{
    simple_schema();
    fl_error err = {0};
    tw_file f;
    simple_ctx ctx = {3000, true, false};
    fl_parquet_write_options o = {0};
    const char *cols[2] = {"s", "id"};
    o.bloom_columns = cols;
    o.nbloom_columns = 2;
    o.row_group_rows = 2000;
    CHECK_OK(tw_write(&s_schema, &o, 2, simple_fill, &ctx, &f, NULL, &err), &err);
    if (!f.ok)
        return;
    CHECK_EQ_INT(f.meta.nrow_groups, 3);
    for (uint32_t g = 0; g < f.meta.nrow_groups; g++) {
        const fl_pq_row_group *rg = &f.meta.row_groups[g];
        CHECK_EQ_INT(rg->columns[2].meta_data.bloom_filter_offset, -1);
        const fl_pq_column_meta *ms = &rg->columns[1].meta_data;
        const fl_pq_column_meta *mi = &rg->columns[0].meta_data;
        CHECK(ms->bloom_filter_offset > 0 && ms->bloom_filter_length > 0);
        CHECK(mi->bloom_filter_offset > 0 && mi->bloom_filter_length > 0);
        if (ms->bloom_filter_offset <= 0 || mi->bloom_filter_offset <= 0)
            continue;
        /* bloom filters sit before the page indexes */
        CHECK(ms->bloom_filter_offset < rg->columns[0].column_index_offset);
        fl_pq_bloom bs, bi;
        size_t used;
        CHECK_OK(fl_pq_bloom_parse(f.data + ms->bloom_filter_offset,
                                   (size_t)ms->bloom_filter_length, &bs, &used, &err),
                 &err);
        CHECK_EQ_INT(used, ms->bloom_filter_length);
        CHECK_OK(fl_pq_bloom_parse(f.data + mi->bloom_filter_offset,
                                   (size_t)mi->bloom_filter_length, &bi, &used, &err),
                 &err);
        fl_pq_leaf_info ls, lid;
        tw_leaf_info(&f.meta.schema[2], &s_fields[1].type, &ls);
        tw_leaf_info(&f.meta.schema[1], &s_fields[0].type, &lid);
        uint32_t missing = 0, fp = 0;
        int64_t first = (int64_t)g * 2000, last = first + rg->num_rows;
        for (int64_t r = first; r < last; r++) {
            char s[128];
            int n = snprintf(s, sizeof s, "value-%08u-padding-padding-padding",
                             (uint32_t)r * 2654435761u);
            fl_value v = {.type = s_fields[1].type};
            v.v.bytes.ptr = (const uint8_t *)s;
            v.v.bytes.len = (size_t)n;
            if (r % 10 != 9 && !fl_pq_bloom_check(&bs, fl_pq_bloom_hash(&ls, &v)))
                missing++;
            fl_value iv = {.type = s_fields[0].type, .v.i64 = r};
            if (!fl_pq_bloom_check(&bi, fl_pq_bloom_hash(&lid, &iv)))
                missing++;
            fl_value absent = {.type = s_fields[0].type, .v.i64 = r + 1000000};
            fp += fl_pq_bloom_check(&bi, fl_pq_bloom_hash(&lid, &absent));
        }
        CHECK_EQ_INT(missing, 0);
        CHECK(fp < rg->num_rows / 20); /* fpp 0.01 requested */
        fl_pq_bloom_free(&bs);
        fl_pq_bloom_free(&bi);
    }
    tw_file_free(&f);
}

int main(void)
{
    TEST_RUN(test_codecs_and_page_versions);
    TEST_RUN(test_dictionary_fallback);
    TEST_RUN(test_row_groups_pages_and_page_index);
    TEST_RUN(test_row_group_bytes);
    TEST_RUN(test_string_truncation);
    TEST_RUN(test_float_statistics);
    TEST_RUN(test_options_off_and_metadata);
    TEST_RUN(test_bloom_filter);
    return TEST_EXIT();
}
