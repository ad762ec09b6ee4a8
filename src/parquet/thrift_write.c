/*
 * thrift_write.c - Thrift compact protocol encoder and the Parquet footer
 * structures built on it (parquet_meta.h): FileMetaData, PageHeader,
 * ColumnIndex, OffsetIndex. Also the growable byte buffer fl_pq_buf used by
 * every encoder in src/parquet.
 *
 * Wire format: see thrift.h. Fields are written in ascending id order, so
 * every field header uses the short delta form; optional fields are written
 * only when set (is_set flag, non-NULL pointer, or not the -1 sentinel).
 *
 * The fl_tw writer records the first failure (out of memory, nesting too
 * deep) and turns later writes into no-ops, so encoders check once at the end.
 * Ownership: fl_pq_buf.data is malloc'd and owned by the buffer
 * (fl_buf_free releases it).
 */
#include <stdlib.h>
#include <string.h>

#include "parquet/thrift.h"

/* ------------------------------------------------------------------------ */
/* fl_pq_buf                                                                 */
/* ------------------------------------------------------------------------ */

/* ------------------------------------------------------------------------ */
/* fl_tw primitives                                                          */
/* ------------------------------------------------------------------------ */

void fl_tw_init(fl_tw *w, fl_pq_buf *out, fl_error *err)
{
    w->out = out;
    w->err = err;
    w->depth = 0;
    w->last[0] = 0;
    w->st = FL_OK;
}

static uint8_t *tw_room(fl_tw *w, size_t n)
{
    if (w->st != FL_OK)
        return NULL;
    fl_status st = fl_buf_reserve(w->out, n, w->err);
    if (st != FL_OK) {
        w->st = st;
        return NULL;
    }
    uint8_t *p = w->out->bytes + w->out->len;
    w->out->len += n;
    return p;
}

void fl_tw_byte(fl_tw *w, uint8_t v)
{
    uint8_t *p = tw_room(w, 1);
    if (p)
        *p = v;
}

void fl_tw_raw(fl_tw *w, const void *src, size_t n)
{
    if (n == 0)
        return;
    uint8_t *p = tw_room(w, n);
    if (p)
        memcpy(p, src, n);
}

void fl_tw_varint(fl_tw *w, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (uint8_t)v;
    fl_tw_raw(w, tmp, n);
}

void fl_tw_zigzag(fl_tw *w, int64_t v)
{
    fl_tw_varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void fl_tw_struct_begin(fl_tw *w)
{
    if (w->depth >= FL_TR_MAX_DEPTH) {
        if (w->st == FL_OK)
            w->st = fl_errorf(w->err, FL_ELIMIT, "thrift: structs nested deeper than %d",
                              FL_TR_MAX_DEPTH);
        return;
    }
    w->last[++w->depth] = 0;
}

void fl_tw_struct_end(fl_tw *w)
{
    fl_tw_byte(w, FL_TT_STOP);
    if (w->depth > 0)
        w->depth--;
}

void fl_tw_field(fl_tw *w, int16_t fid, uint8_t type)
{
    int16_t last = w->last[w->depth];
    int32_t delta = (int32_t)fid - last;
    if (delta > 0 && delta <= 15) {
        fl_tw_byte(w, (uint8_t)(delta << 4 | type));
    } else {
        fl_tw_byte(w, type);
        fl_tw_zigzag(w, fid);
    }
    w->last[w->depth] = fid;
}

void fl_tw_f_i32(fl_tw *w, int16_t fid, int32_t v)
{
    fl_tw_field(w, fid, FL_TT_I32);
    fl_tw_zigzag(w, v);
}

void fl_tw_f_i64(fl_tw *w, int16_t fid, int64_t v)
{
    fl_tw_field(w, fid, FL_TT_I64);
    fl_tw_zigzag(w, v);
}

void fl_tw_f_double(fl_tw *w, int16_t fid, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(u >> (8 * i));
    fl_tw_field(w, fid, FL_TT_DOUBLE);
    fl_tw_raw(w, b, 8);
}

void fl_tw_f_i16(fl_tw *w, int16_t fid, int16_t v)
{
    fl_tw_field(w, fid, FL_TT_I16);
    fl_tw_zigzag(w, v);
}

void fl_tw_f_i8(fl_tw *w, int16_t fid, int8_t v)
{
    fl_tw_field(w, fid, FL_TT_I8);
    fl_tw_byte(w, (uint8_t)v);
}

void fl_tw_f_bool(fl_tw *w, int16_t fid, bool v)
{
    fl_tw_field(w, fid, v ? FL_TT_TRUE : FL_TT_FALSE);
}

void fl_tw_binary(fl_tw *w, const void *p, size_t n)
{
    fl_tw_varint(w, n);
    fl_tw_raw(w, p, n);
}

void fl_tw_f_binary(fl_tw *w, int16_t fid, const void *p, size_t n)
{
    fl_tw_field(w, fid, FL_TT_BINARY);
    fl_tw_binary(w, p, n);
}

void fl_tw_f_string(fl_tw *w, int16_t fid, const char *s)
{
    fl_tw_f_binary(w, fid, s, strlen(s));
}

void fl_tw_f_struct_begin(fl_tw *w, int16_t fid)
{
    fl_tw_field(w, fid, FL_TT_STRUCT);
    fl_tw_struct_begin(w);
}

void fl_tw_f_empty_struct(fl_tw *w, int16_t fid)
{
    fl_tw_f_struct_begin(w, fid);
    fl_tw_struct_end(w);
}

void fl_tw_list_header(fl_tw *w, uint8_t etype, uint32_t count)
{
    if (count < 15) {
        fl_tw_byte(w, (uint8_t)(count << 4 | etype));
    } else {
        fl_tw_byte(w, (uint8_t)(0xf0 | etype));
        fl_tw_varint(w, count);
    }
}

void fl_tw_f_list(fl_tw *w, int16_t fid, uint8_t etype, uint32_t count)
{
    fl_tw_field(w, fid, FL_TT_LIST);
    fl_tw_list_header(w, etype, count);
}

/* ------------------------------------------------------------------------ */
/* Parquet structures                                                        */
/* ------------------------------------------------------------------------ */

static void opt_bytes(fl_tw *w, int16_t fid, fl_pq_bytes b)
{
    if (b.ptr)
        fl_tw_f_binary(w, fid, b.ptr, b.len);
}

static void enc_statistics(fl_tw *w, int16_t fid, const fl_pq_statistics *s)
{
    fl_tw_f_struct_begin(w, fid);
    opt_bytes(w, 1, s->max);
    opt_bytes(w, 2, s->min);
    if (s->null_count_set)
        fl_tw_f_i64(w, 3, s->null_count);
    if (s->distinct_count_set)
        fl_tw_f_i64(w, 4, s->distinct_count);
    opt_bytes(w, 5, s->max_value);
    opt_bytes(w, 6, s->min_value);
    if (s->is_max_value_exact_set)
        fl_tw_f_bool(w, 7, s->is_max_value_exact);
    if (s->is_min_value_exact_set)
        fl_tw_f_bool(w, 8, s->is_min_value_exact);
    if (s->nan_count_set)
        fl_tw_f_i64(w, 9, s->nan_count);
    fl_tw_struct_end(w);
}

static void enc_time_like(fl_tw *w, int16_t fid, const fl_pq_logical *lt)
{
    fl_tw_f_struct_begin(w, fid);
    fl_tw_f_bool(w, 1, lt->is_adjusted_to_utc);
    fl_tw_f_struct_begin(w, 2); /* TimeUnit union */
    fl_tw_f_empty_struct(w, (int16_t)(lt->unit + 1));
    fl_tw_struct_end(w);
    fl_tw_struct_end(w);
}

static void enc_logical(fl_tw *w, int16_t fid, const fl_pq_logical *lt)
{
    fl_tw_f_struct_begin(w, fid);
    int16_t k = (int16_t)lt->kind;
    switch (lt->kind) {
    case FL_PQ_LT_DECIMAL:
        fl_tw_f_struct_begin(w, k);
        fl_tw_f_i32(w, 1, lt->decimal_scale);
        fl_tw_f_i32(w, 2, lt->decimal_precision);
        fl_tw_struct_end(w);
        break;
    case FL_PQ_LT_TIME:
    case FL_PQ_LT_TIMESTAMP: enc_time_like(w, k, lt); break;
    case FL_PQ_LT_INTEGER:
        fl_tw_f_struct_begin(w, k);
        fl_tw_f_i8(w, 1, lt->int_bit_width);
        fl_tw_f_bool(w, 2, lt->int_is_signed);
        fl_tw_struct_end(w);
        break;
    case FL_PQ_LT_GEOMETRY:
    case FL_PQ_LT_GEOGRAPHY:
        fl_tw_f_struct_begin(w, k);
        if (lt->crs)
            fl_tw_f_string(w, 1, lt->crs);
        if (lt->kind == FL_PQ_LT_GEOGRAPHY && lt->algorithm >= 0)
            fl_tw_f_i32(w, 2, lt->algorithm);
        fl_tw_struct_end(w);
        break;
    default: fl_tw_f_empty_struct(w, k); break;
    }
    fl_tw_struct_end(w);
}

static void enc_schema_element(fl_tw *w, const fl_pq_schema_element *e)
{
    fl_tw_struct_begin(w);
    if (e->type_set)
        fl_tw_f_i32(w, 1, (int32_t)e->type);
    if (e->type_length > 0 || (e->type_set && e->type == FL_PQ_FIXED_LEN_BYTE_ARRAY))
        fl_tw_f_i32(w, 2, e->type_length);
    if (e->repetition != FL_PQ_REP_NONE)
        fl_tw_f_i32(w, 3, (int32_t)e->repetition);
    fl_tw_f_string(w, 4, e->name ? e->name : "");
    if (e->num_children >= 0 && !e->type_set)
        fl_tw_f_i32(w, 5, e->num_children);
    if (e->converted_type != FL_PQ_CT_NONE)
        fl_tw_f_i32(w, 6, (int32_t)e->converted_type);
    if (e->scale >= 0)
        fl_tw_f_i32(w, 7, e->scale);
    if (e->precision >= 0)
        fl_tw_f_i32(w, 8, e->precision);
    if (e->field_id_set)
        fl_tw_f_i32(w, 9, e->field_id);
    if (e->logical.kind != FL_PQ_LT_NONE)
        enc_logical(w, 10, &e->logical);
    fl_tw_struct_end(w);
}

static void enc_kv_list(fl_tw *w, int16_t fid, uint32_t n, const fl_pq_kv *kv)
{
    fl_tw_f_list(w, fid, FL_TT_STRUCT, n);
    for (uint32_t i = 0; i < n; i++) {
        fl_tw_struct_begin(w);
        fl_tw_f_string(w, 1, kv[i].key ? kv[i].key : "");
        if (kv[i].value)
            fl_tw_f_binary(w, 2, kv[i].value, kv[i].value_len);
        fl_tw_struct_end(w);
    }
}

static void enc_geo_stats(fl_tw *w, int16_t fid, const fl_pq_geo_stats *g)
{
    fl_tw_f_struct_begin(w, fid);
    if (g->bbox_set) {
        fl_tw_f_struct_begin(w, 1);
        fl_tw_f_double(w, 1, g->xmin);
        fl_tw_f_double(w, 2, g->xmax);
        fl_tw_f_double(w, 3, g->ymin);
        fl_tw_f_double(w, 4, g->ymax);
        if (g->z_set) {
            fl_tw_f_double(w, 5, g->zmin);
            fl_tw_f_double(w, 6, g->zmax);
        }
        if (g->m_set) {
            fl_tw_f_double(w, 7, g->mmin);
            fl_tw_f_double(w, 8, g->mmax);
        }
        fl_tw_struct_end(w);
    }
    if (g->types_set) {
        fl_tw_f_list(w, 2, FL_TT_I32, g->ntypes);
        for (uint32_t i = 0; i < g->ntypes; i++)
            fl_tw_zigzag(w, g->types[i]);
    }
    fl_tw_struct_end(w);
}

static void enc_column_meta(fl_tw *w, int16_t fid, const fl_pq_column_meta *m)
{
    fl_tw_f_struct_begin(w, fid);
    fl_tw_f_i32(w, 1, (int32_t)m->type);
    fl_tw_f_list(w, 2, FL_TT_I32, m->nencodings);
    for (uint32_t i = 0; i < m->nencodings; i++)
        fl_tw_zigzag(w, (int32_t)m->encodings[i]);
    fl_tw_f_list(w, 3, FL_TT_BINARY, m->npath);
    for (uint32_t i = 0; i < m->npath; i++)
        fl_tw_binary(w, m->path_in_schema[i], strlen(m->path_in_schema[i]));
    fl_tw_f_i32(w, 4, (int32_t)m->codec);
    fl_tw_f_i64(w, 5, m->num_values);
    fl_tw_f_i64(w, 6, m->total_uncompressed_size);
    fl_tw_f_i64(w, 7, m->total_compressed_size);
    if (m->nkv)
        enc_kv_list(w, 8, m->nkv, m->key_value_metadata);
    fl_tw_f_i64(w, 9, m->data_page_offset);
    if (m->index_page_offset >= 0)
        fl_tw_f_i64(w, 10, m->index_page_offset);
    if (m->dictionary_page_offset >= 0)
        fl_tw_f_i64(w, 11, m->dictionary_page_offset);
    if (m->statistics_set)
        enc_statistics(w, 12, &m->statistics);
    if (m->nencoding_stats) {
        fl_tw_f_list(w, 13, FL_TT_STRUCT, m->nencoding_stats);
        for (uint32_t i = 0; i < m->nencoding_stats; i++) {
            const fl_pq_page_encoding_stats *s = &m->encoding_stats[i];
            fl_tw_struct_begin(w);
            fl_tw_f_i32(w, 1, (int32_t)s->page_type);
            fl_tw_f_i32(w, 2, (int32_t)s->encoding);
            fl_tw_f_i32(w, 3, s->count);
            fl_tw_struct_end(w);
        }
    }
    if (m->bloom_filter_offset >= 0)
        fl_tw_f_i64(w, 14, m->bloom_filter_offset);
    if (m->bloom_filter_length >= 0)
        fl_tw_f_i32(w, 15, m->bloom_filter_length);
    if (m->size_stats.unencoded_byte_array_data_bytes_set) {
        fl_tw_f_struct_begin(w, 16);
        fl_tw_f_i64(w, 1, m->size_stats.unencoded_byte_array_data_bytes);
        fl_tw_struct_end(w);
    }
    if (m->geo_stats_set)
        enc_geo_stats(w, 17, &m->geo_stats);
    fl_tw_struct_end(w);
}

static void enc_column_chunk(fl_tw *w, const fl_pq_column_chunk *c)
{
    fl_tw_struct_begin(w);
    if (c->file_path)
        fl_tw_f_string(w, 1, c->file_path);
    fl_tw_f_i64(w, 2, c->file_offset);
    if (c->meta_data_set)
        enc_column_meta(w, 3, &c->meta_data);
    if (c->offset_index_offset >= 0) {
        fl_tw_f_i64(w, 4, c->offset_index_offset);
        fl_tw_f_i32(w, 5, c->offset_index_length);
    }
    if (c->column_index_offset >= 0) {
        fl_tw_f_i64(w, 6, c->column_index_offset);
        fl_tw_f_i32(w, 7, c->column_index_length);
    }
    fl_tw_struct_end(w);
}

static void enc_row_group(fl_tw *w, const fl_pq_row_group *g)
{
    fl_tw_struct_begin(w);
    fl_tw_f_list(w, 1, FL_TT_STRUCT, g->ncolumns);
    for (uint32_t i = 0; i < g->ncolumns; i++)
        enc_column_chunk(w, &g->columns[i]);
    fl_tw_f_i64(w, 2, g->total_byte_size);
    fl_tw_f_i64(w, 3, g->num_rows);
    if (g->nsorting_columns) {
        fl_tw_f_list(w, 4, FL_TT_STRUCT, g->nsorting_columns);
        for (uint32_t i = 0; i < g->nsorting_columns; i++) {
            fl_tw_struct_begin(w);
            fl_tw_f_i32(w, 1, g->sorting_columns[i].column_idx);
            fl_tw_f_bool(w, 2, g->sorting_columns[i].descending);
            fl_tw_f_bool(w, 3, g->sorting_columns[i].nulls_first);
            fl_tw_struct_end(w);
        }
    }
    if (g->file_offset >= 0)
        fl_tw_f_i64(w, 5, g->file_offset);
    if (g->total_compressed_size >= 0)
        fl_tw_f_i64(w, 6, g->total_compressed_size);
    if (g->ordinal >= 0)
        fl_tw_f_i16(w, 7, g->ordinal);
    fl_tw_struct_end(w);
}

static fl_status tw_finish(fl_tw *w, fl_pq_buf *out, size_t start)
{
    if (w->st != FL_OK)
        out->len = start; /* drop the partial encoding */
    return w->st;
}

fl_status fl_pq_encode_file_meta(const fl_pq_file_meta *m, fl_pq_buf *out, fl_error *err)
{
    if (m->encryption_algorithm_set)
        return fl_errorf(err, FL_EUNSUPPORTED, "writing encrypted Parquet files is not supported");
    fl_tw w;
    fl_tw_init(&w, out, err);
    size_t start = out->len;
    fl_tw_struct_begin(&w);
    fl_tw_f_i32(&w, 1, m->version);
    fl_tw_f_list(&w, 2, FL_TT_STRUCT, m->nschema);
    for (uint32_t i = 0; i < m->nschema; i++)
        enc_schema_element(&w, &m->schema[i]);
    fl_tw_f_i64(&w, 3, m->num_rows);
    fl_tw_f_list(&w, 4, FL_TT_STRUCT, m->nrow_groups);
    for (uint32_t i = 0; i < m->nrow_groups; i++)
        enc_row_group(&w, &m->row_groups[i]);
    if (m->nkv)
        enc_kv_list(&w, 5, m->nkv, m->key_value_metadata);
    if (m->created_by)
        fl_tw_f_string(&w, 6, m->created_by);
    if (m->ncolumn_orders) {
        fl_tw_f_list(&w, 7, FL_TT_STRUCT, m->ncolumn_orders);
        for (uint32_t i = 0; i < m->ncolumn_orders; i++) {
            fl_tw_struct_begin(&w); /* ColumnOrder union */
            if (m->column_orders[i] == FL_PQ_ORDER_IEEE754)
                fl_tw_f_empty_struct(&w, 2);
            else if (m->column_orders[i] != FL_PQ_ORDER_UNSUPPORTED)
                fl_tw_f_empty_struct(&w, 1); /* TYPE_ORDER (also for "unknown") */
            /* UNSUPPORTED: an empty union, which decodes as UNSUPPORTED again */
            fl_tw_struct_end(&w);
        }
    }
    fl_tw_struct_end(&w);
    return tw_finish(&w, out, start);
}

fl_status fl_pq_encode_page_header(const fl_pq_page_header *h, fl_pq_buf *out, fl_error *err)
{
    fl_tw w;
    fl_tw_init(&w, out, err);
    size_t start = out->len;
    fl_tw_struct_begin(&w);
    fl_tw_f_i32(&w, 1, (int32_t)h->type);
    fl_tw_f_i32(&w, 2, h->uncompressed_page_size);
    fl_tw_f_i32(&w, 3, h->compressed_page_size);
    if (h->crc_set)
        fl_tw_f_i32(&w, 4, (int32_t)h->crc);
    switch (h->type) {
    case FL_PQ_DATA_PAGE:
        fl_tw_f_struct_begin(&w, 5);
        fl_tw_f_i32(&w, 1, h->num_values);
        fl_tw_f_i32(&w, 2, (int32_t)h->encoding);
        fl_tw_f_i32(&w, 3, (int32_t)h->definition_level_encoding);
        fl_tw_f_i32(&w, 4, (int32_t)h->repetition_level_encoding);
        if (h->statistics_set)
            enc_statistics(&w, 5, &h->statistics);
        fl_tw_struct_end(&w);
        break;
    case FL_PQ_INDEX_PAGE: fl_tw_f_empty_struct(&w, 6); break;
    case FL_PQ_DICTIONARY_PAGE:
        fl_tw_f_struct_begin(&w, 7);
        fl_tw_f_i32(&w, 1, h->num_values);
        fl_tw_f_i32(&w, 2, (int32_t)h->encoding);
        if (h->is_sorted)
            fl_tw_f_bool(&w, 3, true);
        fl_tw_struct_end(&w);
        break;
    case FL_PQ_DATA_PAGE_V2:
        fl_tw_f_struct_begin(&w, 8);
        fl_tw_f_i32(&w, 1, h->num_values);
        fl_tw_f_i32(&w, 2, h->num_nulls);
        fl_tw_f_i32(&w, 3, h->num_rows);
        fl_tw_f_i32(&w, 4, (int32_t)h->encoding);
        fl_tw_f_i32(&w, 5, h->definition_levels_byte_length);
        fl_tw_f_i32(&w, 6, h->repetition_levels_byte_length);
        if (!h->is_compressed)
            fl_tw_f_bool(&w, 7, false);
        if (h->statistics_set)
            enc_statistics(&w, 8, &h->statistics);
        fl_tw_struct_end(&w);
        break;
    default:
        fl_tw_struct_end(&w);
        out->len = start;
        return fl_errorf(err, FL_EINVAL, "cannot encode page type %d", (int)h->type);
    }
    fl_tw_struct_end(&w);
    return tw_finish(&w, out, start);
}

fl_status fl_pq_encode_column_index(const fl_pq_column_index *ci, fl_pq_buf *out, fl_error *err)
{
    fl_tw w;
    fl_tw_init(&w, out, err);
    size_t start = out->len;
    fl_tw_struct_begin(&w);
    fl_tw_f_list(&w, 1, FL_TT_TRUE, ci->npages);
    for (uint32_t i = 0; i < ci->npages; i++)
        fl_tw_byte(&w, ci->null_pages[i] ? 1 : 2);
    fl_tw_f_list(&w, 2, FL_TT_BINARY, ci->npages);
    for (uint32_t i = 0; i < ci->npages; i++)
        fl_tw_binary(&w, ci->min_values[i].ptr, ci->min_values[i].len);
    fl_tw_f_list(&w, 3, FL_TT_BINARY, ci->npages);
    for (uint32_t i = 0; i < ci->npages; i++)
        fl_tw_binary(&w, ci->max_values[i].ptr, ci->max_values[i].len);
    fl_tw_f_i32(&w, 4, (int32_t)ci->boundary_order);
    if (ci->null_counts) {
        fl_tw_f_list(&w, 5, FL_TT_I64, ci->npages);
        for (uint32_t i = 0; i < ci->npages; i++)
            fl_tw_zigzag(&w, ci->null_counts[i]);
    }
    fl_tw_struct_end(&w);
    return tw_finish(&w, out, start);
}

fl_status fl_pq_encode_offset_index(const fl_pq_offset_index *oi, fl_pq_buf *out, fl_error *err)
{
    fl_tw w;
    fl_tw_init(&w, out, err);
    size_t start = out->len;
    fl_tw_struct_begin(&w);
    fl_tw_f_list(&w, 1, FL_TT_STRUCT, oi->npages);
    for (uint32_t i = 0; i < oi->npages; i++) {
        const fl_pq_page_location *pl = &oi->page_locations[i];
        fl_tw_struct_begin(&w);
        fl_tw_f_i64(&w, 1, pl->offset);
        fl_tw_f_i32(&w, 2, pl->compressed_page_size);
        fl_tw_f_i64(&w, 3, pl->first_row_index);
        fl_tw_struct_end(&w);
    }
    fl_tw_struct_end(&w);
    return tw_finish(&w, out, start);
}
