/*
 * test_thrift.c - Thrift compact protocol decode/encode of the Parquet
 * footer structures (thrift_read.c, thrift_write.c):
 *   - hand-built byte vectors for every wire feature (deltas, long field ids,
 *     long list form, maps, sets, doubles, uuids, bool-in-header, skipping
 *     unknown fields of every type, nesting bound, hostile counts);
 *   - encode -> decode -> compare of every struct and field;
 *   - the real footers, page headers, column and offset indexes of every
 *     fixture file under ../shared/fixtures (skipped when absent).
 */
#include <dirent.h>
#include <sys/stat.h>

#include "floe/parquet_meta.h"
#include "floe_test.h"
#include "parquet/thrift.h"

/* ---- deep comparison helpers ---- */

static int bytes_eq(fl_pq_bytes a, fl_pq_bytes b)
{
    if (!a.ptr || !b.ptr)
        return !a.ptr && !b.ptr;
    return a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0;
}

static int str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return !a && !b;
    return strcmp(a, b) == 0;
}

static int stats_eq(const fl_pq_statistics *a, const fl_pq_statistics *b)
{
    return bytes_eq(a->max, b->max) && bytes_eq(a->min, b->min) &&
           bytes_eq(a->max_value, b->max_value) && bytes_eq(a->min_value, b->min_value) &&
           a->null_count_set == b->null_count_set &&
           (!a->null_count_set || a->null_count == b->null_count) &&
           a->distinct_count_set == b->distinct_count_set &&
           (!a->distinct_count_set || a->distinct_count == b->distinct_count) &&
           a->is_max_value_exact_set == b->is_max_value_exact_set &&
           (!a->is_max_value_exact_set || a->is_max_value_exact == b->is_max_value_exact) &&
           a->is_min_value_exact_set == b->is_min_value_exact_set &&
           (!a->is_min_value_exact_set || a->is_min_value_exact == b->is_min_value_exact) &&
           a->nan_count_set == b->nan_count_set &&
           (!a->nan_count_set || a->nan_count == b->nan_count);
}

static int kv_eq(uint32_t n, const fl_pq_kv *a, const fl_pq_kv *b)
{
    for (uint32_t i = 0; i < n; i++) {
        if (!str_eq(a[i].key, b[i].key))
            return 0;
        if (!a[i].value || !b[i].value) {
            if (a[i].value || b[i].value)
                return 0;
        } else if (a[i].value_len != b[i].value_len ||
                   memcmp(a[i].value, b[i].value, a[i].value_len) != 0) {
            return 0;
        }
    }
    return 1;
}

static int logical_eq(const fl_pq_logical *a, const fl_pq_logical *b)
{
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case FL_PQ_LT_DECIMAL:
        return a->decimal_scale == b->decimal_scale && a->decimal_precision == b->decimal_precision;
    case FL_PQ_LT_TIME:
    case FL_PQ_LT_TIMESTAMP:
        return a->is_adjusted_to_utc == b->is_adjusted_to_utc && a->unit == b->unit;
    case FL_PQ_LT_INTEGER:
        return a->int_bit_width == b->int_bit_width && a->int_is_signed == b->int_is_signed;
    default: return 1;
    }
}

static int schema_eq(const fl_pq_schema_element *a, const fl_pq_schema_element *b)
{
    return a->type_set == b->type_set && (!a->type_set || a->type == b->type) &&
           a->type_length == b->type_length && a->repetition == b->repetition &&
           str_eq(a->name, b->name) && a->num_children == b->num_children &&
           a->converted_type == b->converted_type && a->scale == b->scale &&
           a->precision == b->precision && a->field_id_set == b->field_id_set &&
           (!a->field_id_set || a->field_id == b->field_id) && logical_eq(&a->logical, &b->logical);
}

static int cmeta_eq(const fl_pq_column_meta *a, const fl_pq_column_meta *b)
{
    if (a->type != b->type || a->nencodings != b->nencodings || a->npath != b->npath ||
        a->codec != b->codec || a->num_values != b->num_values ||
        a->total_uncompressed_size != b->total_uncompressed_size ||
        a->total_compressed_size != b->total_compressed_size || a->nkv != b->nkv ||
        a->data_page_offset != b->data_page_offset ||
        a->index_page_offset != b->index_page_offset ||
        a->dictionary_page_offset != b->dictionary_page_offset ||
        a->statistics_set != b->statistics_set || a->nencoding_stats != b->nencoding_stats ||
        a->bloom_filter_offset != b->bloom_filter_offset ||
        a->bloom_filter_length != b->bloom_filter_length ||
        a->size_stats.unencoded_byte_array_data_bytes_set !=
            b->size_stats.unencoded_byte_array_data_bytes_set ||
        a->size_stats.unencoded_byte_array_data_bytes !=
            b->size_stats.unencoded_byte_array_data_bytes)
        return 0;
    for (uint32_t i = 0; i < a->nencodings; i++)
        if (a->encodings[i] != b->encodings[i])
            return 0;
    for (uint32_t i = 0; i < a->npath; i++)
        if (!str_eq(a->path_in_schema[i], b->path_in_schema[i]))
            return 0;
    if (!kv_eq(a->nkv, a->key_value_metadata, b->key_value_metadata))
        return 0;
    if (a->statistics_set && !stats_eq(&a->statistics, &b->statistics))
        return 0;
    for (uint32_t i = 0; i < a->nencoding_stats; i++)
        if (a->encoding_stats[i].page_type != b->encoding_stats[i].page_type ||
            a->encoding_stats[i].encoding != b->encoding_stats[i].encoding ||
            a->encoding_stats[i].count != b->encoding_stats[i].count)
            return 0;
    return 1;
}

static int chunk_eq(const fl_pq_column_chunk *a, const fl_pq_column_chunk *b)
{
    return str_eq(a->file_path, b->file_path) && a->file_offset == b->file_offset &&
           a->meta_data_set == b->meta_data_set &&
           (!a->meta_data_set || cmeta_eq(&a->meta_data, &b->meta_data)) &&
           a->offset_index_offset == b->offset_index_offset &&
           (a->offset_index_offset < 0 || a->offset_index_length == b->offset_index_length) &&
           a->column_index_offset == b->column_index_offset &&
           (a->column_index_offset < 0 || a->column_index_length == b->column_index_length);
}

static int meta_eq(const fl_pq_file_meta *a, const fl_pq_file_meta *b)
{
    if (a->version != b->version || a->nschema != b->nschema || a->num_rows != b->num_rows ||
        a->nrow_groups != b->nrow_groups || a->nkv != b->nkv ||
        !str_eq(a->created_by, b->created_by) || a->ncolumn_orders != b->ncolumn_orders)
        return 0;
    for (uint32_t i = 0; i < a->nschema; i++)
        if (!schema_eq(&a->schema[i], &b->schema[i]))
            return 0;
    for (uint32_t i = 0; i < a->nrow_groups; i++) {
        const fl_pq_row_group *x = &a->row_groups[i], *y = &b->row_groups[i];
        if (x->ncolumns != y->ncolumns || x->total_byte_size != y->total_byte_size ||
            x->num_rows != y->num_rows || x->nsorting_columns != y->nsorting_columns ||
            x->file_offset != y->file_offset ||
            x->total_compressed_size != y->total_compressed_size || x->ordinal != y->ordinal)
            return 0;
        for (uint32_t c = 0; c < x->ncolumns; c++)
            if (!chunk_eq(&x->columns[c], &y->columns[c]))
                return 0;
        for (uint32_t s = 0; s < x->nsorting_columns; s++)
            if (x->sorting_columns[s].column_idx != y->sorting_columns[s].column_idx ||
                x->sorting_columns[s].descending != y->sorting_columns[s].descending ||
                x->sorting_columns[s].nulls_first != y->sorting_columns[s].nulls_first)
                return 0;
    }
    if (!kv_eq(a->nkv, a->key_value_metadata, b->key_value_metadata))
        return 0;
    for (uint32_t i = 0; i < a->ncolumn_orders; i++)
        if (a->column_orders[i] != b->column_orders[i])
            return 0;
    return 1;
}

static int page_header_eq(const fl_pq_page_header *a, const fl_pq_page_header *b)
{
    if (a->type != b->type || a->uncompressed_page_size != b->uncompressed_page_size ||
        a->compressed_page_size != b->compressed_page_size || a->crc_set != b->crc_set ||
        (a->crc_set && a->crc != b->crc))
        return 0;
    switch (a->type) {
    case FL_PQ_DATA_PAGE:
        return a->num_values == b->num_values && a->encoding == b->encoding &&
               a->definition_level_encoding == b->definition_level_encoding &&
               a->repetition_level_encoding == b->repetition_level_encoding &&
               a->statistics_set == b->statistics_set &&
               (!a->statistics_set || stats_eq(&a->statistics, &b->statistics));
    case FL_PQ_DICTIONARY_PAGE:
        return a->num_values == b->num_values && a->encoding == b->encoding &&
               a->is_sorted == b->is_sorted;
    case FL_PQ_DATA_PAGE_V2:
        return a->num_values == b->num_values && a->encoding == b->encoding &&
               a->num_nulls == b->num_nulls && a->num_rows == b->num_rows &&
               a->definition_levels_byte_length == b->definition_levels_byte_length &&
               a->repetition_levels_byte_length == b->repetition_levels_byte_length &&
               a->is_compressed == b->is_compressed && a->statistics_set == b->statistics_set &&
               (!a->statistics_set || stats_eq(&a->statistics, &b->statistics));
    default: return 1;
    }
}

/* ---- hand-built wire features ---- */

static void test_primitives_and_skip(void)
{
    /* A PageHeader with unknown fields of every wire type mixed in:
     *   type=DATA_PAGE(0) [field 1 i32]      0x15 0x00
     *   uncompressed 100 [field 2 i32]       0x15 0xc8 0x01
     *   compressed 50 [field 3 i32]          0x15 0x64
     *   field 20 (long id) double 1.5        0x07 0x28 <8 bytes>
     *   field 21 binary "xyz"                0x18 0x03 'x' 'y' 'z'
     *   field 22 list<i64> long form 16 el   0x19 0xf6 0x10 16 x 0x02
     *   field 23 set<bool> [true,false]      0x1a 0x21 0x01 0x02
     *   field 24 map<binary,i32> {"a":-1}    0x1b 0x01 0x85 0x01 'a' 0x01
     *   field 25 struct { 1: uuid, 2: bool true, 3: i8 -2 }
     *                                        0x1c 0x1d <16 bytes> 0x11 0x13 0xfe 0x00
     *   field 26 empty map                   0x1b 0x00
     *   field 27 i16 -3                      0x14 0x05
     *   data_page_header [field 5 struct] (long-form id): 0x0c 0x0a
     *       num_values 7: 0x15 0x0e; encoding 0: 0x15 0x00; def 3: 0x15 0x06; rep 3: 0x15 0x06;
     *       stop 0x00
     *   stop 0x00
     */
    uint8_t b[256];
    size_t n = 0;
    const uint8_t head[] = {0x15, 0x00, 0x15, 0xc8, 0x01, 0x15, 0x64};
    memcpy(b + n, head, sizeof head);
    n += sizeof head;
    b[n++] = 0x07;
    b[n++] = 0x28; /* zigzag(20) */
    double d = 1.5;
    memcpy(b + n, &d, 8);
    n += 8;
    const uint8_t bin[] = {0x18, 0x03, 'x', 'y', 'z'};
    memcpy(b + n, bin, sizeof bin);
    n += sizeof bin;
    b[n++] = 0x19;
    b[n++] = 0xf6;
    b[n++] = 0x10;
    for (int i = 0; i < 16; i++)
        b[n++] = 0x02;
    const uint8_t rest[] = {0x1a, 0x21, 0x01, 0x02, 0x1b, 0x01, 0x85, 0x01, 'a', 0x01, 0x1c, 0x1d};
    memcpy(b + n, rest, sizeof rest);
    n += sizeof rest;
    for (int i = 0; i < 16; i++)
        b[n++] = (uint8_t)i;
    const uint8_t tail[] = {0x11, 0x13, 0xfe, 0x00, 0x1b, 0x00, 0x14, 0x05, 0x0c, 0x0a,
                            0x15, 0x0e, 0x15, 0x00, 0x15, 0x06, 0x15, 0x06, 0x00, 0x00};
    memcpy(b + n, tail, sizeof tail);
    n += sizeof tail;
    b[n++] = 0xaa; /* trailing byte: not consumed */

    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_pq_page_header h;
    size_t used = 0;
    CHECK_OK(fl_pq_decode_page_header(b, n, &a, &h, &used, &err), &err);
    CHECK_EQ_INT(used, n - 1);
    CHECK_EQ_INT(h.type, FL_PQ_DATA_PAGE);
    CHECK_EQ_INT(h.uncompressed_page_size, 100);
    CHECK_EQ_INT(h.compressed_page_size, 50);
    CHECK_EQ_INT(h.num_values, 7);
    CHECK_EQ_INT(h.encoding, FL_PQ_ENC_PLAIN);
    CHECK_EQ_INT(h.definition_level_encoding, FL_PQ_ENC_RLE);
    CHECK_EQ_INT(h.repetition_level_encoding, FL_PQ_ENC_RLE);
    CHECK(!h.crc_set);
    CHECK(!h.statistics_set);

    /* every truncation fails cleanly with a byte offset */
    for (size_t cut = 0; cut < n - 1; cut++) {
        fl_error e = {0};
        fl_status st = fl_pq_decode_page_header(b, cut, &a, &h, &used, &e);
        CHECK(st == FL_ECORRUPT);
        CHECK(strstr(e.msg, "thrift: byte ") == e.msg);
    }
    fl_arena_free(&a);
}

static void test_hostile(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_pq_file_meta m;

    /* schema list claims 2^31 structs in a 10-byte buffer */
    const uint8_t huge[] = {0x15, 0x02, 0x19, 0xfc, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00};
    CHECK_EQ_INT(fl_pq_decode_file_meta(huge, sizeof huge, &a, &m, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "FileMetaData.schema") != NULL);
    CHECK(strstr(err.msg, "exceeds") != NULL);

    /* binary length beyond the buffer */
    const uint8_t longbin[] = {0x15, 0x02, 0x19, 0x1c, 0x48, 0x7f, 'a', 0x00, 0x00};
    CHECK_EQ_INT(fl_pq_decode_file_meta(longbin, sizeof longbin, &a, &m, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "FileMetaData.schema[0].name") != NULL);

    /* deeply nested unknown structs: 100 levels of field 99 struct */
    uint8_t deep[512];
    size_t n = 0;
    for (int i = 0; i < 100; i++) {
        deep[n++] = 0x0c;
        deep[n++] = 0xc6; /* zigzag(99) = 198 */
        deep[n++] = 0x01;
    }
    for (int i = 0; i < 101; i++)
        deep[n++] = 0x00;
    CHECK_EQ_INT(fl_pq_decode_file_meta(deep, n, &a, &m, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "deeper") != NULL);

    /* varint longer than 10 bytes */
    uint8_t vl[16] = {0x16};
    for (int i = 1; i < 15; i++)
        vl[i] = 0xff;
    vl[15] = 0x00;
    CHECK_EQ_INT(fl_pq_decode_file_meta(vl, sizeof vl, &a, &m, &err), FL_ECORRUPT);

    /* a known field with the wrong wire type is skipped (here: schema as a
     * binary), leaving the required field missing */
    const uint8_t wt[] = {0x15, 0x02, 0x18, 0x01, 'x', 0x00};
    CHECK_EQ_INT(fl_pq_decode_file_meta(wt, sizeof wt, &a, &m, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "required field 'schema' is missing") != NULL);

    /* encrypted footer: FileCryptoMetaData starts with a struct in field 1 */
    const uint8_t enc[] = {0x1c, 0x1c, 0x00, 0x00, 0x00};
    CHECK_EQ_INT(fl_pq_decode_file_meta(enc, sizeof enc, &a, &m, &err), FL_EUNSUPPORTED);
    CHECK(strstr(err.msg, "encrypted Parquet files are not supported") != NULL);

    /* missing required fields */
    const uint8_t empty[] = {0x00};
    CHECK_EQ_INT(fl_pq_decode_file_meta(empty, 1, &a, &m, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "schema") != NULL);
    CHECK_EQ_INT(fl_pq_decode_file_meta(empty, 0, &a, &m, &err), FL_ECORRUPT);

    /* invalid physical type (PARQUET-1481 style) */
    const uint8_t badtype[] = {0x15, 0x02, 0x19, 0x1c, 0x15, 0x10, 0x38, 0x01,
                               'x',  0x00, 0x16, 0x00, 0x19, 0x0c, 0x00};
    CHECK_EQ_INT(fl_pq_decode_file_meta(badtype, sizeof badtype, &a, &m, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "invalid physical type 8") != NULL);
    CHECK(strstr(err.msg, "schema[0].type") != NULL);

    /* same with a valid type decodes */
    uint8_t good[sizeof badtype];
    memcpy(good, badtype, sizeof good);
    good[5] = 0x0c; /* INT64... zigzag(6)=12 -> BYTE_ARRAY */
    CHECK_OK(fl_pq_decode_file_meta(good, sizeof good, &a, &m, &err), &err);
    CHECK_EQ_INT(m.nschema, 1);
    CHECK_EQ_STR(m.schema[0].name, "x");
    CHECK_EQ_INT(m.schema[0].type, FL_PQ_BYTE_ARRAY);
    CHECK_EQ_INT(m.nrow_groups, 0);

    /* memory amplification: one row group with 2^20 empty ColumnChunk structs
     * (1 byte each) would need 2^20 x sizeof(fl_pq_column_chunk) of memory */
    {
        fl_pq_buf amp = {0};
        fl_tw w;
        fl_tw_init(&w, &amp, &err);
        fl_tw_struct_begin(&w);
        fl_tw_f_list(&w, 2, FL_TT_STRUCT, 1);
        fl_tw_struct_begin(&w);
        fl_tw_f_string(&w, 4, "root");
        fl_tw_struct_end(&w);
        fl_tw_f_i64(&w, 3, 0);
        fl_tw_f_list(&w, 4, FL_TT_STRUCT, 1);
        fl_tw_struct_begin(&w);
        fl_tw_f_list(&w, 1, FL_TT_STRUCT, 1u << 20);
        for (uint32_t i = 0; i < (1u << 20); i++)
            fl_tw_byte(&w, 0);
        fl_tw_f_i64(&w, 3, 0);
        fl_tw_struct_end(&w);
        fl_tw_struct_end(&w);
        CHECK_OK(fl_tw_status(&w), &err);
        size_t before = a.total;
        CHECK_EQ_INT(fl_pq_decode_file_meta(amp.bytes, amp.len, &a, &m, &err), FL_ELIMIT);
        CHECK(strstr(err.msg, "row_groups[0].columns") != NULL);
        CHECK(a.total - before < ((size_t)128 << 20));
        fl_buf_free(&amp);
    }

    /* tail parsing */
    uint32_t flen = 0;
    const uint8_t t1[8] = {10, 0, 0, 0, 'P', 'A', 'R', '1'};
    CHECK_OK(fl_pq_parse_tail(t1, 100, &flen, &err), &err);
    CHECK_EQ_INT(flen, 10);
    CHECK_EQ_INT(fl_pq_parse_tail(t1, 20, &flen, &err), FL_ECORRUPT);
    const uint8_t t2[8] = {10, 0, 0, 0, 'P', 'A', 'R', 'E'};
    CHECK_EQ_INT(fl_pq_parse_tail(t2, 100, &flen, &err), FL_EUNSUPPORTED);
    CHECK(strstr(err.msg, "encrypted Parquet files are not supported") != NULL);
    const uint8_t t3[8] = {10, 0, 0, 0, 'P', 'A', 'R', '2'};
    CHECK_EQ_INT(fl_pq_parse_tail(t3, 100, &flen, &err), FL_ECORRUPT);
    fl_arena_free(&a);
}

static void test_unknown_logical_and_order(void)
{
    /* schema element with LogicalType field 40 (unknown) and a ColumnOrder variant 9 */
    fl_pq_buf buf = {0};
    fl_error err = {0};
    fl_tw w;
    fl_tw_init(&w, &buf, &err);
    fl_tw_struct_begin(&w);
    fl_tw_f_i32(&w, 1, 2);
    fl_tw_f_list(&w, 2, FL_TT_STRUCT, 2);
    fl_tw_struct_begin(&w); /* root */
    fl_tw_f_string(&w, 4, "root");
    fl_tw_f_i32(&w, 5, 1);
    fl_tw_struct_end(&w);
    fl_tw_struct_begin(&w); /* leaf */
    fl_tw_f_i32(&w, 1, FL_PQ_BYTE_ARRAY);
    fl_tw_f_i32(&w, 3, FL_PQ_OPTIONAL);
    fl_tw_f_string(&w, 4, "c");
    fl_tw_f_struct_begin(&w, 10);
    fl_tw_f_struct_begin(&w, 40);
    fl_tw_f_i32(&w, 1, 5);
    fl_tw_struct_end(&w);
    fl_tw_struct_end(&w);
    fl_tw_struct_end(&w);
    fl_tw_f_i64(&w, 3, 0);
    fl_tw_f_list(&w, 4, FL_TT_STRUCT, 0);
    fl_tw_f_list(&w, 7, FL_TT_STRUCT, 3);
    fl_tw_struct_begin(&w);
    fl_tw_f_empty_struct(&w, 9);
    fl_tw_struct_end(&w);
    fl_tw_struct_begin(&w);
    fl_tw_f_empty_struct(&w, 2);
    fl_tw_struct_end(&w);
    fl_tw_struct_begin(&w);
    fl_tw_f_empty_struct(&w, 1);
    fl_tw_struct_end(&w);
    fl_tw_f_i64(&w, 300, 1); /* unknown field with a long-form id */
    fl_tw_struct_end(&w);
    CHECK_OK(fl_tw_status(&w), &err);

    fl_arena a;
    fl_arena_init(&a, 0);
    fl_pq_file_meta m;
    CHECK_OK(fl_pq_decode_file_meta(buf.bytes, buf.len, &a, &m, &err), &err);
    CHECK_EQ_INT(m.version, 2);
    CHECK_EQ_INT(m.nschema, 2);
    CHECK_EQ_INT(m.schema[0].num_children, 1);
    CHECK_EQ_INT(m.schema[1].logical.kind, FL_PQ_LT_NONE);
    CHECK_EQ_INT(m.schema[1].repetition, FL_PQ_OPTIONAL);
    CHECK_EQ_INT(m.ncolumn_orders, 3);
    CHECK_EQ_INT(m.column_orders[0], FL_PQ_ORDER_UNSUPPORTED);
    CHECK_EQ_INT(m.column_orders[1], FL_PQ_ORDER_IEEE754);
    CHECK_EQ_INT(m.column_orders[2], FL_PQ_ORDER_TYPE_DEFINED);
    fl_arena_free(&a);
    fl_buf_free(&buf);
}

/* ---- encode -> decode round trips ---- */

static fl_pq_bytes B(const char *s)
{
    fl_pq_bytes b = {(const uint8_t *)s, (uint32_t)strlen(s)};
    return b;
}

static void fill_stats(fl_pq_statistics *s, int variant)
{
    memset(s, 0, sizeof *s);
    s->max = B("zz");
    s->min = B(variant ? "" : "a");
    s->null_count_set = true;
    s->null_count = 3 + variant;
    s->distinct_count_set = variant != 0;
    s->distinct_count = 77;
    s->max_value = B("zz\x01");
    s->min_value = B("a\x00b");
    s->min_value.len = 3;
    s->is_max_value_exact_set = true;
    s->is_max_value_exact = variant != 0;
    s->is_min_value_exact_set = variant != 0;
    s->is_min_value_exact = true;
    s->nan_count_set = variant != 0;
    s->nan_count = INT64_MAX;
}

static void test_roundtrip_file_meta(void)
{
    fl_pq_schema_element sch[14];
    memset(sch, 0, sizeof sch);
    for (int i = 0; i < 14; i++) {
        sch[i].repetition = FL_PQ_OPTIONAL;
        sch[i].num_children = -1;
        sch[i].converted_type = FL_PQ_CT_NONE;
        sch[i].scale = sch[i].precision = -1;
        sch[i].type_set = true;
        sch[i].type = FL_PQ_INT32;
    }
    sch[0].name = "schema";
    sch[0].type_set = false;
    sch[0].repetition = FL_PQ_REP_NONE;
    sch[0].num_children = 13;
    sch[1].name = "dec";
    sch[1].type = FL_PQ_FIXED_LEN_BYTE_ARRAY;
    sch[1].type_length = 16;
    sch[1].converted_type = FL_PQ_CT_DECIMAL;
    sch[1].scale = 2;
    sch[1].precision = 38;
    sch[1].logical =
        (fl_pq_logical){.kind = FL_PQ_LT_DECIMAL, .decimal_scale = 2, .decimal_precision = 38};
    sch[1].field_id_set = true;
    sch[1].field_id = -5;
    sch[2].name = "ts";
    sch[2].type = FL_PQ_INT64;
    sch[2].repetition = FL_PQ_REQUIRED;
    sch[2].logical = (fl_pq_logical){
        .kind = FL_PQ_LT_TIMESTAMP, .is_adjusted_to_utc = true, .unit = FL_PQ_NANOS};
    sch[3].name = "t";
    sch[3].logical =
        (fl_pq_logical){.kind = FL_PQ_LT_TIME, .is_adjusted_to_utc = false, .unit = FL_PQ_MILLIS};
    sch[4].name = "u8";
    sch[4].converted_type = FL_PQ_CT_UINT_8;
    sch[4].logical =
        (fl_pq_logical){.kind = FL_PQ_LT_INTEGER, .int_bit_width = 8, .int_is_signed = false};
    sch[5].name = "i64";
    sch[5].logical =
        (fl_pq_logical){.kind = FL_PQ_LT_INTEGER, .int_bit_width = 64, .int_is_signed = true};
    sch[6].name = "s";
    sch[6].type = FL_PQ_BYTE_ARRAY;
    sch[6].converted_type = FL_PQ_CT_UTF8;
    sch[6].logical.kind = FL_PQ_LT_STRING;
    sch[7].name = "uuid";
    sch[7].type = FL_PQ_FIXED_LEN_BYTE_ARRAY;
    sch[7].type_length = 16;
    sch[7].logical.kind = FL_PQ_LT_UUID;
    sch[8].name = "f16";
    sch[8].type = FL_PQ_FIXED_LEN_BYTE_ARRAY;
    sch[8].type_length = 2;
    sch[8].logical.kind = FL_PQ_LT_FLOAT16;
    sch[9].name = "d";
    sch[9].logical.kind = FL_PQ_LT_DATE;
    sch[9].converted_type = FL_PQ_CT_DATE;
    sch[10].name = "j";
    sch[10].type = FL_PQ_BYTE_ARRAY;
    sch[10].logical.kind = FL_PQ_LT_JSON;
    sch[11].name = "ts96";
    sch[11].type = FL_PQ_INT96;
    sch[11].repetition = FL_PQ_REPEATED;
    sch[12].name = "e";
    sch[12].type = FL_PQ_BYTE_ARRAY;
    sch[12].logical.kind = FL_PQ_LT_ENUM;
    sch[13].name = "v";
    sch[13].type = FL_PQ_DOUBLE;
    sch[13].logical.kind = FL_PQ_LT_UNKNOWN;

    fl_pq_encoding encs[] = {FL_PQ_ENC_PLAIN, FL_PQ_ENC_RLE, FL_PQ_ENC_RLE_DICTIONARY};
    const char *path[] = {"dec"};
    fl_pq_kv ckv[] = {{"k1", "v1", 2}, {"nokey", NULL, 0}, {"bin", "a\0b", 3}};
    fl_pq_page_encoding_stats pes[] = {{FL_PQ_DICTIONARY_PAGE, FL_PQ_ENC_PLAIN, 1},
                                       {FL_PQ_DATA_PAGE, FL_PQ_ENC_RLE_DICTIONARY, 20}};
    fl_pq_column_chunk cols[2];
    memset(cols, 0, sizeof cols);
    for (int c = 0; c < 2; c++) {
        fl_pq_column_meta *cm = &cols[c].meta_data;
        cols[c].meta_data_set = true;
        cols[c].file_offset = 4 + c * 1000;
        cm->type = c ? FL_PQ_INT64 : FL_PQ_FIXED_LEN_BYTE_ARRAY;
        cm->nencodings = 3;
        cm->encodings = encs;
        cm->npath = 1;
        cm->path_in_schema = path;
        cm->codec = c ? FL_PQ_ZSTD : FL_PQ_SNAPPY;
        cm->num_values = 1000000000000LL + c;
        cm->total_uncompressed_size = 5000;
        cm->total_compressed_size = 4000;
        cm->data_page_offset = 100 + c;
        cm->index_page_offset = c ? 55 : -1;
        cm->dictionary_page_offset = c ? -1 : 4;
        cm->statistics_set = true;
        fill_stats(&cm->statistics, c);
        cm->bloom_filter_offset = c ? 9999 : -1;
        cm->bloom_filter_length = c ? 128 : -1;
        cm->size_stats.unencoded_byte_array_data_bytes_set = c == 0;
        cm->size_stats.unencoded_byte_array_data_bytes = c == 0 ? 12345 : 0;
        if (c == 0) {
            cm->nkv = 3;
            cm->key_value_metadata = ckv;
            cm->nencoding_stats = 2;
            cm->encoding_stats = pes;
        }
        cols[c].offset_index_offset = c ? 7000 : -1;
        cols[c].offset_index_length = c ? 33 : 0;
        cols[c].column_index_offset = c ? 8000 : -1;
        cols[c].column_index_length = c ? 44 : 0;
    }
    cols[1].file_path = "other.parquet";
    fl_pq_sorting_column sc[] = {{1, true, false}, {0, false, true}};
    fl_pq_row_group rgs[2];
    memset(rgs, 0, sizeof rgs);
    rgs[0] = (fl_pq_row_group){.ncolumns = 2,
                               .columns = cols,
                               .total_byte_size = 9000,
                               .num_rows = 500,
                               .nsorting_columns = 2,
                               .sorting_columns = sc,
                               .file_offset = 4,
                               .total_compressed_size = 8000,
                               .ordinal = 0};
    rgs[1] = (fl_pq_row_group){.ncolumns = 0,
                               .columns = NULL,
                               .total_byte_size = 0,
                               .num_rows = 0,
                               .file_offset = -1,
                               .total_compressed_size = -1,
                               .ordinal = -1};
    fl_pq_kv fkv[20];
    for (int i = 0; i < 20; i++)
        fkv[i] = (fl_pq_kv){"key", i % 2 ? "value" : NULL, i % 2 ? 5 : 0};
    fl_pq_column_order orders[16];
    for (int i = 0; i < 16; i++)
        orders[i] = i % 3 == 2 ? FL_PQ_ORDER_IEEE754
                    : i == 7   ? FL_PQ_ORDER_UNSUPPORTED
                               : FL_PQ_ORDER_TYPE_DEFINED;
    fl_pq_file_meta m = {.version = 2,
                         .nschema = 14,
                         .schema = sch,
                         .num_rows = 500,
                         .nrow_groups = 2,
                         .row_groups = rgs,
                         .nkv = 20,
                         .key_value_metadata = fkv,
                         .created_by = "floe test",
                         .ncolumn_orders = 16,
                         .column_orders = orders};

    fl_pq_buf buf = {0};
    fl_error err = {0};
    CHECK_OK(fl_pq_encode_file_meta(&m, &buf, &err), &err);
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_pq_file_meta d;
    CHECK_OK(fl_pq_decode_file_meta(buf.bytes, buf.len, &a, &d, &err), &err);
    CHECK(meta_eq(&m, &d));
    /* spot checks on fields the comparison treats generically */
    CHECK_EQ_INT(d.schema[1].logical.decimal_precision, 38);
    CHECK_EQ_INT(d.schema[2].logical.unit, FL_PQ_NANOS);
    CHECK_EQ_INT(d.row_groups[0].columns[0].meta_data.statistics.min_value.len, 3);
    CHECK_EQ_INT(d.row_groups[0].columns[0].meta_data.key_value_metadata[2].value_len, 3);
    CHECK(d.row_groups[0].columns[0].meta_data.key_value_metadata[1].value == NULL);
    CHECK_EQ_STR(d.row_groups[0].columns[1].file_path, "other.parquet");
    CHECK_EQ_INT(d.row_groups[0].columns[1].meta_data.statistics.nan_count, INT64_MAX);

    /* re-encoding the decoded struct gives identical bytes */
    fl_pq_buf buf2 = {0};
    CHECK_OK(fl_pq_encode_file_meta(&d, &buf2, &err), &err);
    CHECK(buf2.len == buf.len && memcmp(buf.data, buf2.data, buf.len) == 0);

    /* every truncation and single bit flip of the encoding: no crash, and
     * truncations always fail */
    for (size_t cut = 0; cut < buf.len; cut++) {
        fl_arena_reset(&a);
        CHECK(fl_pq_decode_file_meta(buf.bytes, cut, &a, &d, &err) != FL_OK);
    }
    for (size_t i = 0; i < buf.len; i++) {
        for (int bit = 0; bit < 8; bit++) {
            fl_arena_reset(&a);
            buf.data[i] ^= (uint8_t)(1u << bit);
            (void)fl_pq_decode_file_meta(buf.bytes, buf.len, &a, &d, &err);
            buf.data[i] ^= (uint8_t)(1u << bit);
        }
    }
    fl_arena_free(&a);
    fl_buf_free(&buf);
    fl_buf_free(&buf2);
}

static void test_roundtrip_page_headers(void)
{
    fl_pq_page_header hs[5];
    memset(hs, 0, sizeof hs);
    hs[0] = (fl_pq_page_header){.type = FL_PQ_DATA_PAGE,
                                .uncompressed_page_size = 1 << 20,
                                .compressed_page_size = 12345,
                                .crc_set = true,
                                .crc = 0xdeadbeefu,
                                .num_values = 2048,
                                .encoding = FL_PQ_ENC_RLE_DICTIONARY,
                                .definition_level_encoding = FL_PQ_ENC_RLE,
                                .repetition_level_encoding = FL_PQ_ENC_BIT_PACKED,
                                .statistics_set = true,
                                .is_compressed = true};
    fill_stats(&hs[0].statistics, 1);
    hs[1] = (fl_pq_page_header){.type = FL_PQ_DICTIONARY_PAGE,
                                .uncompressed_page_size = 10,
                                .compressed_page_size = 10,
                                .num_values = 3,
                                .encoding = FL_PQ_ENC_PLAIN,
                                .is_sorted = true,
                                .is_compressed = true};
    hs[2] = (fl_pq_page_header){.type = FL_PQ_DATA_PAGE_V2,
                                .uncompressed_page_size = 100,
                                .compressed_page_size = 90,
                                .num_values = 30,
                                .num_nulls = 4,
                                .num_rows = 20,
                                .encoding = FL_PQ_ENC_DELTA_BINARY_PACKED,
                                .definition_levels_byte_length = 6,
                                .repetition_levels_byte_length = 7,
                                .is_compressed = false,
                                .statistics_set = true};
    fill_stats(&hs[2].statistics, 0);
    hs[3] = hs[2];
    hs[3].is_compressed = true;
    hs[3].statistics_set = false;
    hs[4] = (fl_pq_page_header){.type = FL_PQ_INDEX_PAGE,
                                .uncompressed_page_size = 0,
                                .compressed_page_size = 0,
                                .is_compressed = true};
    fl_pq_buf buf = {0};
    fl_error err = {0};
    size_t ends[5];
    for (int i = 0; i < 5; i++) {
        CHECK_OK(fl_pq_encode_page_header(&hs[i], &buf, &err), &err);
        ends[i] = buf.len;
    }
    fl_arena a;
    fl_arena_init(&a, 0);
    size_t pos = 0;
    for (int i = 0; i < 5; i++) {
        fl_pq_page_header d;
        size_t used = 0;
        CHECK_OK(fl_pq_decode_page_header(buf.bytes + pos, buf.len - pos, &a, &d, &used, &err),
                 &err);
        pos += used;
        CHECK_EQ_INT(pos, ends[i]);
        CHECK(page_header_eq(&hs[i], &d));
    }
    /* levels longer than the page are rejected */
    fl_pq_page_header bad = hs[2];
    bad.compressed_page_size = 5;
    fl_pq_buf b2 = {0};
    CHECK_OK(fl_pq_encode_page_header(&bad, &b2, &err), &err);
    fl_pq_page_header d;
    CHECK_EQ_INT(fl_pq_decode_page_header(b2.bytes, b2.len, &a, &d, NULL, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "level bytes") != NULL);
    fl_arena_free(&a);
    fl_buf_free(&buf);
    fl_buf_free(&b2);
}

static void test_roundtrip_indexes(void)
{
    enum { NP = 40 };
    bool nulls[NP];
    fl_pq_bytes mins[NP], maxs[NP];
    int64_t counts[NP];
    char names[NP][8];
    fl_pq_page_location locs[NP];
    for (int i = 0; i < NP; i++) {
        nulls[i] = i % 7 == 3;
        snprintf(names[i], sizeof names[i], "p%03d", i);
        mins[i] = nulls[i] ? (fl_pq_bytes){(const uint8_t *)"", 0} : B(names[i]);
        maxs[i] = nulls[i] ? (fl_pq_bytes){(const uint8_t *)"", 0} : B(names[i]);
        counts[i] = i * 1000003LL;
        locs[i] = (fl_pq_page_location){4 + i * 100000LL, 99999, i * 2048LL};
    }
    fl_pq_column_index ci = {.npages = NP,
                             .null_pages = nulls,
                             .min_values = mins,
                             .max_values = maxs,
                             .boundary_order = FL_PQ_ASCENDING,
                             .null_counts = counts};
    fl_pq_offset_index oi = {.npages = NP, .page_locations = locs};
    fl_pq_buf buf = {0}, buf2 = {0};
    fl_error err = {0};
    CHECK_OK(fl_pq_encode_column_index(&ci, &buf, &err), &err);
    CHECK_OK(fl_pq_encode_offset_index(&oi, &buf2, &err), &err);
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_pq_column_index dci;
    fl_pq_offset_index doi;
    CHECK_OK(fl_pq_decode_column_index(buf.bytes, buf.len, &a, &dci, &err), &err);
    CHECK_OK(fl_pq_decode_offset_index(buf2.bytes, buf2.len, &a, &doi, &err), &err);
    CHECK_EQ_INT(dci.npages, NP);
    CHECK_EQ_INT(dci.boundary_order, FL_PQ_ASCENDING);
    CHECK(dci.null_counts != NULL);
    CHECK_EQ_INT(doi.npages, NP);
    for (int i = 0; i < NP; i++) {
        CHECK(dci.null_pages[i] == nulls[i]);
        CHECK(bytes_eq(dci.min_values[i], mins[i]));
        CHECK(bytes_eq(dci.max_values[i], maxs[i]));
        CHECK_EQ_INT(dci.null_counts[i], counts[i]);
        CHECK_EQ_INT(doi.page_locations[i].offset, locs[i].offset);
        CHECK_EQ_INT(doi.page_locations[i].compressed_page_size, locs[i].compressed_page_size);
        CHECK_EQ_INT(doi.page_locations[i].first_row_index, locs[i].first_row_index);
    }
    /* without null counts */
    ci.null_counts = NULL;
    buf.len = 0;
    CHECK_OK(fl_pq_encode_column_index(&ci, &buf, &err), &err);
    CHECK_OK(fl_pq_decode_column_index(buf.bytes, buf.len, &a, &dci, &err), &err);
    CHECK(dci.null_counts == NULL);
    for (size_t cut = 0; cut < buf.len; cut++)
        CHECK(fl_pq_decode_column_index(buf.bytes, cut, &a, &dci, &err) != FL_OK);
    for (size_t cut = 0; cut < buf2.len; cut++)
        CHECK(fl_pq_decode_offset_index(buf2.bytes, cut, &a, &doi, &err) != FL_OK);
    /* mismatched list lengths */
    ci.npages = NP;
    fl_pq_buf b3 = {0};
    fl_tw w;
    fl_tw_init(&w, &b3, &err);
    fl_tw_struct_begin(&w);
    fl_tw_f_list(&w, 1, FL_TT_TRUE, 2);
    fl_tw_byte(&w, 1);
    fl_tw_byte(&w, 2);
    fl_tw_f_list(&w, 2, FL_TT_BINARY, 1);
    fl_tw_binary(&w, "a", 1);
    fl_tw_f_list(&w, 3, FL_TT_BINARY, 1);
    fl_tw_binary(&w, "a", 1);
    fl_tw_f_i32(&w, 4, 0);
    fl_tw_struct_end(&w);
    CHECK_EQ_INT(fl_pq_decode_column_index(b3.bytes, b3.len, &a, &dci, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "disagree") != NULL);
    fl_arena_free(&a);
    fl_buf_free(&buf);
    fl_buf_free(&buf2);
    fl_buf_free(&b3);
}

/* ---- fixtures ---- */

typedef struct fixture_counts {
    int files, decoded, encrypted, bad, pages, indexes;
} fixture_counts;

/* Walks every page header of every column chunk, checks they tile the chunk,
 * and decodes the page indexes. */
static void check_pages(const char *name, const uint8_t *file, size_t flen,
                        const fl_pq_file_meta *m, fl_arena *a, fixture_counts *cnt)
{
    for (uint32_t g = 0; g < m->nrow_groups; g++) {
        for (uint32_t c = 0; c < m->row_groups[g].ncolumns; c++) {
            const fl_pq_column_chunk *cc = &m->row_groups[g].columns[c];
            if (!cc->meta_data_set || cc->file_path)
                continue;
            const fl_pq_column_meta *cm = &cc->meta_data;
            int64_t start = cm->data_page_offset;
            if (cm->dictionary_page_offset > 0 && cm->dictionary_page_offset < start)
                start = cm->dictionary_page_offset;
            int64_t end = start + cm->total_compressed_size;
            if (start < 4 || end > (int64_t)flen)
                continue;
            int64_t pos = start, values = 0;
            int npages = 0;
            while (pos < end) {
                fl_pq_page_header h;
                size_t used = 0;
                fl_error err = {0};
                fl_status st =
                    fl_pq_decode_page_header(file + pos, (size_t)(end - pos), a, &h, &used, &err);
                if (st != FL_OK) {
                    fprintf(stderr, "%s: rg %u col %u page at %lld: %s\n", name, g, c,
                            (long long)pos, err.msg);
                    CHECK(0);
                    return;
                }
                if (h.type == FL_PQ_DATA_PAGE || h.type == FL_PQ_DATA_PAGE_V2) {
                    values += h.num_values;
                    npages++;
                }
                pos += (int64_t)used + h.compressed_page_size;
                cnt->pages++;
            }
            if (pos != end || values != cm->num_values)
                fprintf(stderr,
                        "%s: rg %u col %u: pages end %lld (chunk end %lld), values %lld/%lld\n",
                        name, g, c, (long long)pos, (long long)end, (long long)values,
                        (long long)cm->num_values);
            CHECK_EQ_INT(pos, end);
            CHECK_EQ_INT(values, cm->num_values);
            if (cc->offset_index_offset > 0 &&
                cc->offset_index_offset + cc->offset_index_length <= (int64_t)flen) {
                fl_pq_offset_index oi;
                fl_error err = {0};
                CHECK_OK(fl_pq_decode_offset_index(file + cc->offset_index_offset,
                                                   (size_t)cc->offset_index_length, a, &oi, &err),
                         &err);
                CHECK_EQ_INT(oi.npages, npages);
                if (oi.npages)
                    CHECK(oi.page_locations[0].first_row_index == 0);
                cnt->indexes++;
            }
            if (cc->column_index_offset > 0 &&
                cc->column_index_offset + cc->column_index_length <= (int64_t)flen) {
                fl_pq_column_index ci;
                fl_error err = {0};
                CHECK_OK(fl_pq_decode_column_index(file + cc->column_index_offset,
                                                   (size_t)cc->column_index_length, a, &ci, &err),
                         &err);
                CHECK_EQ_INT(ci.npages, npages);
                cnt->indexes++;
            }
        }
    }
}

static void check_file(const char *path, fixture_counts *cnt)
{
    size_t flen;
    uint8_t *file = ft_slurp(path, &flen);
    if (!file)
        return;
    cnt->files++;
    const char *name = strstr(path, "fixtures/") ? strstr(path, "fixtures/") + 9 : path;
    bool bad = strstr(path, "bad_data") != NULL;
    bool encrypted = strstr(path, ".encrypted") != NULL;
    fl_error err = {0};
    uint32_t footer_len = 0;
    fl_status st =
        flen >= 8 ? fl_pq_parse_tail(file + flen - 8, flen, &footer_len, &err) : FL_ECORRUPT;
    if (st == FL_EUNSUPPORTED) {
        CHECK(encrypted);
        cnt->encrypted++;
        free(file);
        return;
    }
    if (st != FL_OK) {
        if (!bad)
            fprintf(stderr, "%s: %s\n", name, err.msg);
        CHECK(bad);
        free(file);
        return;
    }
    const uint8_t *footer = file + flen - 8 - footer_len;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_pq_file_meta m;
    st = fl_pq_decode_file_meta(footer, footer_len, &a, &m, &err);
    if (st != FL_OK) {
        if (!bad)
            fprintf(stderr, "%s: %s\n", name, err.msg);
        CHECK(bad);
        cnt->bad++;
    } else {
        cnt->decoded++;
        if (encrypted)
            CHECK(m.encryption_algorithm_set);
        /* decode -> encode -> decode is stable */
        fl_pq_buf buf = {0};
        if (!m.encryption_algorithm_set) {
            CHECK_OK(fl_pq_encode_file_meta(&m, &buf, &err), &err);
            fl_pq_file_meta m2;
            CHECK_OK(fl_pq_decode_file_meta(buf.bytes, buf.len, &a, &m2, &err), &err);
            if (!meta_eq(&m, &m2))
                fprintf(stderr, "%s: re-encoded footer differs\n", name);
            CHECK(meta_eq(&m, &m2));
        }
        fl_buf_free(&buf);
        if (!bad && !encrypted && !strstr(path, "malformed"))
            check_pages(name, file, flen, &m, &a, cnt);
    }
    fl_arena_free(&a);
    free(file);
}

static void walk(const char *dir, fixture_counts *cnt)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(path, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode))
            walk(path, cnt);
        else if (strstr(e->d_name, ".parquet") &&
                 (!strcmp(strstr(e->d_name, ".parquet"), ".parquet") ||
                  !strcmp(strstr(e->d_name, ".parquet"), ".parquet.encrypted")))
            check_file(path, cnt);
    }
    closedir(d);
}

static void test_fixture_footers(void)
{
    const char *shared = test_shared_dir();
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/fixtures", shared);
    fixture_counts cnt = {0};
    walk(dir, &cnt);
    fprintf(stderr,
            "fixtures: %d files, %d footers decoded, %d encrypted, %d bad, %d pages, %d indexes\n",
            cnt.files, cnt.decoded, cnt.encrypted, cnt.bad, cnt.pages, cnt.indexes);
    CHECK(cnt.decoded > 100);
    CHECK(cnt.encrypted >= 6);
    CHECK(cnt.pages > 1000);
    CHECK(cnt.indexes > 20);
}

static void test_fixture_specifics(void)
{
    const char *shared = test_shared_dir();
    char path[4096];
    snprintf(path, sizeof path, "%s/fixtures/parquet-testing/data/alltypes_plain.parquet", shared);
    size_t flen;
    uint8_t *file = ft_slurp(path, &flen);
    CHECK(file != NULL);
    if (!file)
        return;
    fl_error err = {0};
    uint32_t n = 0;
    CHECK_OK(fl_pq_parse_tail(file + flen - 8, flen, &n, &err), &err);
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_pq_file_meta m;
    CHECK_OK(fl_pq_decode_file_meta(file + flen - 8 - n, n, &a, &m, &err), &err);
    CHECK_EQ_INT(m.num_rows, 8);
    CHECK_EQ_INT(m.nschema, 12);
    CHECK_EQ_STR(m.schema[0].name, "schema");
    CHECK_EQ_INT(m.schema[0].num_children, 11);
    CHECK_EQ_STR(m.schema[1].name, "id");
    CHECK_EQ_INT(m.schema[1].type, FL_PQ_INT32);
    CHECK_EQ_INT(m.schema[1].repetition, FL_PQ_OPTIONAL);
    CHECK_EQ_STR(m.schema[11].name, "timestamp_col");
    CHECK_EQ_INT(m.schema[11].type, FL_PQ_INT96);
    CHECK_EQ_INT(m.nrow_groups, 1);
    CHECK_EQ_INT(m.row_groups[0].ncolumns, 11);
    CHECK_EQ_INT(m.row_groups[0].num_rows, 8);
    CHECK_EQ_STR(m.row_groups[0].columns[0].meta_data.path_in_schema[0], "id");
    CHECK(m.created_by && strncmp(m.created_by, "impala version 1.3.0", 20) == 0);
    fl_arena_free(&a);
    free(file);

    /* column chunk key/value metadata, including a key without value */
    snprintf(path, sizeof path,
             "%s/fixtures/parquet-testing/data/column_chunk_key_value_metadata.parquet", shared);
    file = ft_slurp(path, &flen);
    CHECK(file != NULL);
    if (!file)
        return;
    fl_arena_init(&a, 0);
    CHECK_OK(fl_pq_parse_tail(file + flen - 8, flen, &n, &err), &err);
    CHECK_OK(fl_pq_decode_file_meta(file + flen - 8 - n, n, &a, &m, &err), &err);
    CHECK(m.nrow_groups >= 1);
    if (m.nrow_groups >= 1 && m.row_groups[0].ncolumns >= 1) {
        const fl_pq_column_meta *cm = &m.row_groups[0].columns[0].meta_data;
        CHECK_EQ_INT(cm->nkv, 2);
        if (cm->nkv == 2) {
            CHECK_EQ_STR(cm->key_value_metadata[0].key, "foo");
            CHECK_EQ_STR(cm->key_value_metadata[0].value, "bar");
            CHECK_EQ_STR(cm->key_value_metadata[1].key, "thisiskeywithoutvalue");
            CHECK(cm->key_value_metadata[1].value == NULL);
        }
    }
    fl_arena_free(&a);
    free(file);

    /* sorting columns */
    snprintf(path, sizeof path, "%s/fixtures/parquet-testing/data/sort_columns.parquet", shared);
    file = ft_slurp(path, &flen);
    CHECK(file != NULL);
    if (!file)
        return;
    fl_arena_init(&a, 0);
    CHECK_OK(fl_pq_parse_tail(file + flen - 8, flen, &n, &err), &err);
    CHECK_OK(fl_pq_decode_file_meta(file + flen - 8 - n, n, &a, &m, &err), &err);
    CHECK_EQ_INT(m.nrow_groups, 2);
    CHECK_EQ_INT(m.row_groups[0].nsorting_columns, 2);
    if (m.row_groups[0].nsorting_columns == 2) {
        CHECK_EQ_INT(m.row_groups[0].sorting_columns[0].column_idx, 0);
        CHECK(m.row_groups[0].sorting_columns[0].descending);
        CHECK(m.row_groups[0].sorting_columns[0].nulls_first);
        CHECK_EQ_INT(m.row_groups[0].sorting_columns[1].column_idx, 1);
        CHECK(!m.row_groups[0].sorting_columns[1].descending);
        CHECK(!m.row_groups[0].sorting_columns[1].nulls_first);
    }
    fl_arena_free(&a);
    free(file);
}

int main(void)
{
    TEST_RUN(test_primitives_and_skip);
    TEST_RUN(test_hostile);
    TEST_RUN(test_unknown_logical_and_order);
    TEST_RUN(test_roundtrip_file_meta);
    TEST_RUN(test_roundtrip_page_headers);
    TEST_RUN(test_roundtrip_indexes);
    if (test_shared_dir()) {
        TEST_RUN(test_fixture_footers);
        TEST_RUN(test_fixture_specifics);
    } else {
        fprintf(stderr, "FLOE_SHARED fixtures absent: fixture footer tests skipped\n");
    }
    return TEST_EXIT();
}
