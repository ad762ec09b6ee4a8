/*
 * test_write_types.c - the Parquet writer maps every floe primitive type to
 * the right physical/logical/converted types with field ids, and writes
 * correct chunk statistics (min/max in type order, NaN excluded, null
 * counts), column orders, key-value metadata and created_by. Values are
 * checked again, end to end, by test_write_roundtrip.c.
 */
#include "test_write_util.h"

#define NCOLS 18
#define ROWS_PER_BATCH 1000
#define NBATCHES 3

static fl_field g_fields[NCOLS];
static fl_schema g_schema;

static void make_schema(void)
{
    int id = 1;
    g_fields[0] = tw_field("b", id++, true, FL_TYPE_BOOLEAN);
    g_fields[1] = tw_field("i", id++, true, FL_TYPE_INT32);
    g_fields[2] = tw_field("l", id++, false, FL_TYPE_INT64);
    g_fields[3] = tw_field("f", id++, true, FL_TYPE_FLOAT32);
    g_fields[4] = tw_field("d", id++, true, FL_TYPE_FLOAT64);
    g_fields[5] = tw_decimal("dec9", id++, true, 9, 2);
    g_fields[6] = tw_decimal("dec18", id++, true, 18, 4);
    g_fields[7] = tw_decimal("dec38", id++, true, 38, 10);
    g_fields[8] = tw_field("dt", id++, true, FL_TYPE_DATE);
    g_fields[9] = tw_field("tm", id++, true, FL_TYPE_TIME);
    g_fields[10] = tw_field("ts", id++, true, FL_TYPE_TIMESTAMP);
    g_fields[11] = tw_field("tstz", id++, true, FL_TYPE_TIMESTAMPTZ);
    g_fields[12] = tw_field("tsns", id++, true, FL_TYPE_TIMESTAMP_NS);
    g_fields[13] = tw_field("s", id++, true, FL_TYPE_STRING);
    g_fields[14] = tw_field("u", id++, true, FL_TYPE_UUID);
    g_fields[15] = tw_field("fx", id++, true, FL_TYPE_FIXED);
    g_fields[15].type.fixed_len = 3;
    g_fields[16] = tw_field("bin", id++, true, FL_TYPE_BINARY);
    g_fields[17] = tw_field("tsnstz", id++, false, FL_TYPE_TIMESTAMPTZ_NS);
    g_schema.nfields = NCOLS;
    g_schema.fields = g_fields;
}

/* Value of column c at global row g. bytes point into buf (>= 32 bytes). */
static void gen(uint32_t c, uint32_t g, fl_value *v, uint8_t *buf)
{
    memset(v, 0, sizeof *v);
    v->type = g_fields[c].type;
    v->is_null = g_fields[c].nullable && g % 7 == 3;
    int64_t x = (int64_t)g;
    switch (c) {
    case 0: v->v.b = g % 2; break;
    case 1: v->v.i32 = (int32_t)(x * 37 - 5000); break;
    case 2: v->v.i64 = x * 1000003 - 7; break;
    case 3: v->v.f32 = g == 11 ? NAN : (float)x * 0.5f - 100.0f; break;
    case 4: v->v.f64 = g == 12 ? NAN : (double)x * 1.25 - 3.0; break;
    case 5: v->v.dec = (fl_i128)x * 123 - 999; break;
    case 6: v->v.dec = (fl_i128)x * 1000000007LL - 5; break;
    case 7: v->v.dec = (fl_i128)x * (fl_i128)100000000000000000LL * 1000 - 1; break;
    case 8: v->v.i32 = (int32_t)x - 100; break;
    case 9: v->v.i64 = x * 1000000; break;
    case 10:
    case 11: v->v.i64 = x * 1000000 + 1600000000000000LL; break;
    case 12:
    case 17: v->v.i64 = x * 1000 - 1600000000000000000LL; break;
    case 13: {
        int n = snprintf((char *)buf, 32, "str-%05u", (g * 7919u) % 2000u);
        v->v.bytes.ptr = buf;
        v->v.bytes.len = (size_t)n;
        break;
    }
    case 14:
        memset(buf, 0, 16);
        buf[0] = 0x12;
        buf[12] = (uint8_t)(g >> 24), buf[13] = (uint8_t)(g >> 16), buf[14] = (uint8_t)(g >> 8),
        buf[15] = (uint8_t)g;
        v->v.bytes.ptr = buf;
        v->v.bytes.len = 16;
        break;
    case 15:
        buf[0] = (uint8_t)(g % 256), buf[1] = (uint8_t)(g / 256), buf[2] = 7;
        v->v.bytes.ptr = buf;
        v->v.bytes.len = 3;
        break;
    case 16:
        for (uint32_t k = 0; k < g % 5; k++)
            buf[k] = (uint8_t)(g + k);
        v->v.bytes.ptr = buf;
        v->v.bytes.len = g % 5;
        break;
    }
}

static fl_status append_value(fl_vector *vec, const fl_value *v, fl_error *err)
{
    if (v->is_null)
        return fl_vector_append_null(vec, err);
    switch (v->type.id) {
    case FL_TYPE_BOOLEAN: {
        uint8_t b = v->v.b;
        return fl_vector_append_fixed(vec, &b, err);
    }
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: return fl_vector_append_fixed(vec, &v->v.i32, err);
    case FL_TYPE_FLOAT32: return fl_vector_append_fixed(vec, &v->v.f32, err);
    case FL_TYPE_FLOAT64: return fl_vector_append_fixed(vec, &v->v.f64, err);
    case FL_TYPE_DECIMAL: return fl_vector_append_fixed(vec, &v->v.dec, err);
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED: return fl_vector_append_fixed(vec, v->v.bytes.ptr, err);
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: return fl_vector_append_bytes(vec, v->v.bytes.ptr, v->v.bytes.len, err);
    default: return fl_vector_append_fixed(vec, &v->v.i64, err);
    }
}

static fl_status fill(fl_batch *b, uint32_t batch_no, void *ctx, fl_error *err)
{
    (void)ctx;
    uint8_t buf[32];
    for (uint32_t r = 0; r < ROWS_PER_BATCH; r++) {
        uint32_t g = batch_no * ROWS_PER_BATCH + r;
        for (uint32_t c = 0; c < NCOLS; c++) {
            fl_value v;
            gen(c, g, &v, buf);
            FL_TRY(append_value(&b->cols[c], &v, err));
        }
    }
    b->nrows = ROWS_PER_BATCH;
    return FL_OK;
}

static void test_schema_and_stats(void)
{
    make_schema();
    fl_error err = {0};
    tw_file f;
    fl_parquet_file_result res;
    fl_kv_pair kv[1] = {{"iceberg.schema", "{\"type\":\"struct\"}"}};
    fl_parquet_write_options opt = {0};
    opt.kv = kv;
    opt.nkv = 1;
    CHECK_OK(tw_write(&g_schema, &opt, NBATCHES, fill, NULL, &f, &res, &err), &err);
    if (!f.ok)
        return;
    const fl_pq_file_meta *m = &f.meta;
    CHECK_EQ_INT(m->num_rows, NBATCHES * ROWS_PER_BATCH);
    CHECK_EQ_INT(m->nschema, NCOLS + 1);
    CHECK_EQ_STR(m->schema[0].name, "schema");
    CHECK_EQ_INT(m->schema[0].num_children, NCOLS);
    CHECK(m->created_by && !strncmp(m->created_by, "floe version 0.1.0 (build ", 26));
    CHECK_EQ_INT(m->nkv, 1);
    if (m->nkv == 1) {
        CHECK_EQ_STR(m->key_value_metadata[0].key, "iceberg.schema");
        CHECK_EQ_STR(m->key_value_metadata[0].value, "{\"type\":\"struct\"}");
    }
    CHECK_EQ_INT(m->ncolumn_orders, NCOLS);
    for (uint32_t i = 0; i < m->ncolumn_orders; i++)
        CHECK_EQ_INT(m->column_orders[i], FL_PQ_ORDER_TYPE_DEFINED);

    /* physical, logical and converted types */
    static const struct {
        fl_pq_type t;
        int32_t len;
        fl_pq_logical_kind lk;
        fl_pq_converted ct;
    } want[NCOLS] = {
        {FL_PQ_BOOLEAN, 0, FL_PQ_LT_NONE, FL_PQ_CT_NONE},
        {FL_PQ_INT32, 0, FL_PQ_LT_NONE, FL_PQ_CT_NONE},
        {FL_PQ_INT64, 0, FL_PQ_LT_NONE, FL_PQ_CT_NONE},
        {FL_PQ_FLOAT, 0, FL_PQ_LT_NONE, FL_PQ_CT_NONE},
        {FL_PQ_DOUBLE, 0, FL_PQ_LT_NONE, FL_PQ_CT_NONE},
        {FL_PQ_INT32, 0, FL_PQ_LT_DECIMAL, FL_PQ_CT_DECIMAL},
        {FL_PQ_INT64, 0, FL_PQ_LT_DECIMAL, FL_PQ_CT_DECIMAL},
        {FL_PQ_FIXED_LEN_BYTE_ARRAY, 16, FL_PQ_LT_DECIMAL, FL_PQ_CT_DECIMAL},
        {FL_PQ_INT32, 0, FL_PQ_LT_DATE, FL_PQ_CT_DATE},
        {FL_PQ_INT64, 0, FL_PQ_LT_TIME, FL_PQ_CT_TIME_MICROS},
        {FL_PQ_INT64, 0, FL_PQ_LT_TIMESTAMP, FL_PQ_CT_TIMESTAMP_MICROS},
        {FL_PQ_INT64, 0, FL_PQ_LT_TIMESTAMP, FL_PQ_CT_TIMESTAMP_MICROS},
        {FL_PQ_INT64, 0, FL_PQ_LT_TIMESTAMP, FL_PQ_CT_NONE},
        {FL_PQ_BYTE_ARRAY, 0, FL_PQ_LT_STRING, FL_PQ_CT_UTF8},
        {FL_PQ_FIXED_LEN_BYTE_ARRAY, 16, FL_PQ_LT_UUID, FL_PQ_CT_NONE},
        {FL_PQ_FIXED_LEN_BYTE_ARRAY, 3, FL_PQ_LT_NONE, FL_PQ_CT_NONE},
        {FL_PQ_BYTE_ARRAY, 0, FL_PQ_LT_NONE, FL_PQ_CT_NONE},
        {FL_PQ_INT64, 0, FL_PQ_LT_TIMESTAMP, FL_PQ_CT_NONE},
    };
    for (uint32_t c = 0; c < NCOLS && c + 1 < m->nschema; c++) {
        const fl_pq_schema_element *e = &m->schema[c + 1];
        CHECK_EQ_STR(e->name, g_fields[c].name);
        CHECK(e->type_set);
        CHECK_EQ_INT(e->type, want[c].t);
        if (want[c].len)
            CHECK_EQ_INT(e->type_length, want[c].len);
        CHECK_EQ_INT(e->logical.kind, want[c].lk);
        CHECK_EQ_INT(e->converted_type, want[c].ct);
        CHECK(e->field_id_set);
        CHECK_EQ_INT(e->field_id, g_fields[c].field_id);
        CHECK_EQ_INT(e->repetition, g_fields[c].nullable ? FL_PQ_OPTIONAL : FL_PQ_REQUIRED);
        CHECK(e->num_children <= 0);
    }
    CHECK(!m->schema[11].logical.is_adjusted_to_utc); /* ts */
    CHECK(m->schema[12].logical.is_adjusted_to_utc);  /* tstz */
    CHECK_EQ_INT(m->schema[13].logical.unit, FL_PQ_NANOS);
    CHECK_EQ_INT(m->schema[11].logical.unit, FL_PQ_MICROS);
    CHECK_EQ_INT(m->schema[10].logical.unit, FL_PQ_MICROS);
    CHECK(!m->schema[10].logical.is_adjusted_to_utc); /* time is local */
    CHECK_EQ_INT(m->schema[8].precision, 38);
    CHECK_EQ_INT(m->schema[8].scale, 10);
    CHECK_EQ_INT(m->schema[8].logical.decimal_precision, 38);
    CHECK_EQ_INT(m->schema[6].logical.decimal_scale, 2);

    /* statistics of the single row group */
    CHECK_EQ_INT(m->nrow_groups, 1);
    if (m->nrow_groups != 1) {
        tw_file_free(&f);
        fl_parquet_file_result_free(&res);
        return;
    }
    const fl_pq_row_group *rg = &m->row_groups[0];
    CHECK_EQ_INT(rg->num_rows, NBATCHES * ROWS_PER_BATCH);
    CHECK_EQ_INT(rg->ncolumns, NCOLS);
    CHECK_EQ_INT(res.ncolumns, NCOLS);
    CHECK_EQ_INT(res.num_rows, NBATCHES * ROWS_PER_BATCH);
    CHECK_EQ_INT(res.file_size, f.len);
    CHECK_EQ_INT(res.nsplit_offsets, 1);
    CHECK_EQ_INT(res.split_offsets[0], 4);
    uint32_t n = NBATCHES * ROWS_PER_BATCH;
    for (uint32_t c = 0; c < NCOLS && c < rg->ncolumns; c++) {
        const fl_pq_column_chunk *cc = &rg->columns[c];
        const fl_pq_column_meta *cm = &cc->meta_data;
        fl_pq_leaf_info li;
        tw_leaf_info(&m->schema[c + 1], &g_fields[c].type, &li);
        /* expected */
        uint8_t bmin[32], bmax[32], buf[32];
        fl_value vmin = {0}, vmax = {0};
        bool has = false;
        int64_t nulls = 0, nans = 0;
        for (uint32_t g = 0; g < n; g++) {
            fl_value v;
            gen(c, g, &v, buf);
            if (v.is_null) {
                nulls++;
                continue;
            }
            if ((c == 3 && isnan(v.v.f32)) || (c == 4 && isnan(v.v.f64))) {
                nans++;
                continue;
            }
            if (!has || fl_value_compare(&v, &vmin) < 0) {
                vmin = v;
                if (v.v.bytes.ptr == buf && c >= 13 && c <= 16) {
                    memcpy(bmin, buf, v.v.bytes.len);
                    vmin.v.bytes.ptr = bmin;
                }
            }
            if (!has || fl_value_compare(&v, &vmax) > 0) {
                vmax = v;
                if (v.v.bytes.ptr == buf && c >= 13 && c <= 16) {
                    memcpy(bmax, buf, v.v.bytes.len);
                    vmax.v.bytes.ptr = bmax;
                }
            }
            has = true;
        }
        CHECK_EQ_INT(cm->num_values, n);
        CHECK_EQ_INT(cm->codec, FL_PQ_ZSTD);
        CHECK(cm->statistics_set);
        CHECK(cm->statistics.null_count_set);
        CHECK_EQ_INT(cm->statistics.null_count, nulls);
        bool minok = tw_stat_is(&li, cm->statistics.min_value, &vmin);
        bool maxok = tw_stat_is(&li, cm->statistics.max_value, &vmax);
        if (!minok || !maxok)
            fprintf(stderr, "column %s: wrong min/max\n", g_fields[c].name);
        CHECK(minok);
        CHECK(maxok);
        CHECK(cm->statistics.is_min_value_exact_set && cm->statistics.is_min_value_exact);
        CHECK_EQ_INT(cc->file_offset, cm->dictionary_page_offset >= 0 ? cm->dictionary_page_offset
                                                                      : cm->data_page_offset);
        CHECK(cc->offset_index_offset > 0);
        CHECK(cc->column_index_offset > 0);
        /* result metrics */
        const fl_parquet_column_result *cr = &res.columns[c];
        CHECK_EQ_INT(cr->field_id, g_fields[c].field_id);
        CHECK_EQ_STR(cr->path, g_fields[c].name);
        CHECK_EQ_INT(cr->value_count, n);
        CHECK_EQ_INT(cr->null_count, nulls);
        CHECK_EQ_INT(cr->nan_count, (c == 3 || c == 4) ? nans : -1);
        CHECK_EQ_INT(cr->compressed_size, cm->total_compressed_size);
        CHECK(cr->has_bounds);
        CHECK(fl_value_compare(&cr->lower, &vmin) == 0);
        CHECK(fl_value_compare(&cr->upper, &vmax) == 0);
    }
    /* booleans are PLAIN, the others start with a dictionary */
    CHECK_EQ_INT(rg->columns[0].meta_data.dictionary_page_offset, -1);
    CHECK(rg->columns[1].meta_data.dictionary_page_offset >= 4);
    tw_file_free(&f);
    fl_parquet_file_result_free(&res);
}

static void test_required_null_is_an_error(void)
{
    fl_field fields[1] = {tw_field("x", 1, false, FL_TYPE_INT32)};
    fl_schema s = {1, fields, 0};
    fl_error err = {0};
    uint8_t *data = NULL;
    size_t len = 0;
    fl_output *out = NULL;
    CHECK_OK(fl_output_memory("m", &data, &len, &out, &err), &err);
    fl_parquet_writer *w = NULL;
    CHECK_OK(fl_parquet_writer_open(out, &s, NULL, &w, &err), &err);
    fl_batch b;
    CHECK_OK(fl_batch_init(&b, &s, &err), &err);
    int32_t one = 1;
    CHECK_OK(fl_vector_append_fixed(&b.cols[0], &one, &err), &err);
    CHECK_OK(fl_vector_append_null(&b.cols[0], &err), &err);
    b.nrows = 2;
    fl_status rc = fl_parquet_writer_write(w, &b, &err);
    CHECK_EQ_INT(rc, FL_EINVAL);
    CHECK(strstr(err.msg, "'x'") != NULL);
    fl_parquet_writer_abort(w);
    fl_output_abort(out);
    fl_batch_destroy(&b);
    free(data);
}

static void test_bad_options(void)
{
    fl_field fields[1] = {tw_field("x", 1, true, FL_TYPE_INT32)};
    fl_schema s = {1, fields, 0};
    fl_error err = {0};
    uint8_t *data = NULL;
    size_t len = 0;
    fl_output *out = NULL;
    CHECK_OK(fl_output_memory("m", &data, &len, &out, &err), &err);
    fl_parquet_writer *w = NULL;
    fl_parquet_write_options o = {0};
    o.codec_set = true;
    o.codec = FL_PARQUET_LZ4;
    CHECK_EQ_INT(fl_parquet_writer_open(out, &s, &o, &w, &err), FL_EUNSUPPORTED);
    CHECK(w == NULL);
    memset(&o, 0, sizeof o);
    const char *bloom[1] = {"nope"};
    o.bloom_columns = bloom;
    o.nbloom_columns = 1;
    CHECK_EQ_INT(fl_parquet_writer_open(out, &s, &o, &w, &err), FL_ENOTFOUND);
    CHECK(strstr(err.msg, "nope") != NULL);
    memset(&o, 0, sizeof o);
    o.data_page_version = 3;
    CHECK_EQ_INT(fl_parquet_writer_open(out, &s, &o, &w, &err), FL_EINVAL);
    fl_output_abort(out);
    free(data);
}

/* CONSTANT and DICT vectors (with nulls in the dictionary and in the rows) write like FLAT ones. */
static fl_status enc_fill(fl_batch *b, uint32_t batch_no, void *ctx, fl_error *err)
{
    (void)batch_no;
    (void)ctx;
    const uint32_t n = 100;
    /* c0: CONSTANT 42 */
    fl_vector *c0 = &b->cols[0];
    int64_t k = 42;
    FL_TRY(fl_vector_append_fixed(c0, &k, err));
    c0->encoding = FL_VEC_CONSTANT;
    c0->len = n;
    /* c1: DICT over ["x", "y", null]; row i -> i % 3, rows with i % 10 == 0 null */
    fl_vector *c1 = &b->cols[1];
    fl_vector *d = calloc(1, sizeof *d);
    if (!d)
        return fl_errorf(err, FL_ENOMEM, "oom");
    FL_TRY(fl_vector_init(d, c1->type, err));
    FL_TRY(fl_vector_append_bytes(d, "x", 1, err));
    FL_TRY(fl_vector_append_bytes(d, "y", 1, err));
    FL_TRY(fl_vector_append_null(d, err));
    FL_TRY(fl_vector_reserve(c1, n, err));
    FL_TRY(fl_vector_ensure_validity(c1, err));
    uint32_t *idx = (uint32_t *)(void *)c1->data;
    for (uint32_t i = 0; i < n; i++) {
        idx[i] = i % 3;
        fl_bitmap_set(c1->validity, i, i % 10 != 0);
    }
    c1->encoding = FL_VEC_DICT;
    c1->dict = d;
    c1->owns_dict = true;
    c1->len = n;
    /* c2: CONSTANT null */
    FL_TRY(fl_vector_append_null(&b->cols[2], err));
    b->cols[2].encoding = FL_VEC_CONSTANT;
    b->cols[2].len = n;
    b->nrows = n;
    return FL_OK;
}

static void test_vector_encodings(void)
{
    fl_field fields[3] = {tw_field("k", 1, false, FL_TYPE_INT64),
                          tw_field("s", 2, true, FL_TYPE_STRING),
                          tw_field("z", 3, true, FL_TYPE_INT32)};
    fl_schema s = {3, fields, 0};
    fl_error err = {0};
    tw_file f;
    fl_parquet_file_result res;
    CHECK_OK(tw_write(&s, NULL, 2, enc_fill, NULL, &f, &res, &err), &err);
    if (!f.ok)
        return;
    const fl_pq_row_group *rg = &f.meta.row_groups[0];
    CHECK_EQ_INT(rg->num_rows, 200);
    CHECK_EQ_INT(res.columns[0].lower.v.i64, 42);
    CHECK_EQ_INT(res.columns[0].upper.v.i64, 42);
    /* s: null where i % 10 == 0 or i % 3 == 2 */
    int64_t nulls = 0;
    for (uint32_t i = 0; i < 100; i++)
        nulls += i % 10 == 0 || i % 3 == 2;
    CHECK_EQ_INT(rg->columns[1].meta_data.statistics.null_count, 2 * nulls);
    CHECK_EQ_INT(res.columns[1].lower.v.bytes.len, 1);
    CHECK(res.columns[1].lower.v.bytes.ptr[0] == 'x');
    CHECK(res.columns[1].upper.v.bytes.ptr[0] == 'y');
    CHECK_EQ_INT(rg->columns[2].meta_data.statistics.null_count, 200);
    CHECK(!res.columns[2].has_bounds);
    fl_parquet_file_result_free(&res);
    tw_file_free(&f);
}

static fl_status no_rows(fl_batch *b, uint32_t batch_no, void *ctx, fl_error *err)
{
    (void)batch_no, (void)ctx, (void)err;
    b->nrows = 0;
    return FL_OK;
}

static void test_empty_file(void)
{
    fl_field fields[1] = {tw_field("x", 1, true, FL_TYPE_STRING)};
    fl_schema s = {1, fields, 0};
    fl_error err = {0};
    tw_file f;
    fl_parquet_file_result res;
    CHECK_OK(tw_write(&s, NULL, 2, no_rows, NULL, &f, &res, &err), &err);
    if (!f.ok)
        return;
    CHECK_EQ_INT(f.meta.num_rows, 0);
    CHECK_EQ_INT(f.meta.nrow_groups, 0);
    CHECK_EQ_INT(f.meta.nschema, 2);
    CHECK_EQ_INT(res.nsplit_offsets, 0);
    CHECK_EQ_INT(res.columns[0].value_count, 0);
    CHECK(!res.columns[0].has_bounds);
    fl_parquet_file_result_free(&res);
    tw_file_free(&f);
}

/* An output that fails once more than limit bytes were written. */
typedef struct failing_output {
    fl_output base;
    uint64_t limit;
} failing_output;

static fl_status fo_write(fl_output *o, const void *buf, size_t len, fl_error *err)
{
    (void)buf;
    failing_output *f = (failing_output *)o;
    if (o->written + len > f->limit)
        return fl_errorf(err, FL_EIO, "disk full");
    o->written += len;
    return FL_OK;
}
static fl_status fo_close(fl_output *o, fl_error *err)
{
    (void)o, (void)err;
    return FL_OK;
}
static void fo_abort(fl_output *o)
{
    (void)o;
}
static const fl_output_ops fo_ops = {fo_write, fo_close, fo_abort};

static void test_output_failure(void)
{
    make_schema();
    int failed_in_write = 0;
    for (uint64_t limit = 0; limit < 400000; limit = limit * 4 + 3) {
        failing_output fo = {{&fo_ops, (char *)"full.parquet", 0}, limit};
        fl_error err = {0};
        fl_parquet_writer *w = NULL;
        fl_parquet_write_options o = {0};
        o.row_group_rows = 1000; /* row groups reach the output during write() too */
        fl_status rc = fl_parquet_writer_open(&fo.base, &g_schema, &o, &w, &err);
        if (rc != FL_OK) {
            CHECK_EQ_INT(rc, FL_EIO);
            CHECK(w == NULL);
            continue;
        }
        fl_batch b;
        CHECK_OK(fl_batch_init(&b, &g_schema, &err), &err);
        for (uint32_t i = 0; rc == FL_OK && i < NBATCHES; i++) {
            fl_batch_reset(&b);
            CHECK_OK(fill(&b, i, NULL, &err), &err);
            rc = fl_parquet_writer_write(w, &b, &err);
        }
        fl_batch_destroy(&b);
        if (rc != FL_OK) {
            /* the writer refuses to continue, and close reports the failure */
            CHECK_EQ_INT(rc, FL_EIO);
            CHECK(strstr(err.msg, "disk full") != NULL);
            fl_batch more;
            CHECK_OK(fl_batch_init(&more, &g_schema, &err), &err);
            CHECK_OK(fill(&more, 0, NULL, &err), &err);
            CHECK(fl_parquet_writer_write(w, &more, &err) != FL_OK);
            fl_batch_destroy(&more);
            CHECK(fl_parquet_writer_close(w, NULL, &err) != FL_OK);
            failed_in_write++;
            continue;
        }
        fl_parquet_file_result res;
        rc = fl_parquet_writer_close(w, &res, &err);
        if (rc == FL_OK) { /* everything fitted */
            CHECK(res.file_size <= limit);
            fl_parquet_file_result_free(&res);
        } else {
            CHECK_EQ_INT(rc, FL_EIO);
            CHECK(strstr(err.msg, "full.parquet") != NULL);
        }
    }
    CHECK(failed_in_write > 0);
}

int main(void)
{
    TEST_RUN(test_output_failure);
    TEST_RUN(test_vector_encodings);
    TEST_RUN(test_empty_file);
    TEST_RUN(test_schema_and_stats);
    TEST_RUN(test_required_null_is_an_error);
    TEST_RUN(test_bad_options);
    return TEST_EXIT();
}
