/*
 * pqcodec_walk.h - test helper (header-only, static functions): a minimal
 * page walker for flat Parquet files (root + primitive leaves) built on the
 * pqcodec decoders, used to check the encodings and statistics against real
 * files. Supports v1/v2 data pages, dictionary pages, optional leaves
 * (definition levels), and the codecs of base/compress.h. Not a reader: no
 * nesting, no CRC checks.
 */
#ifndef FLOE_TESTS_PQCODEC_WALK_H
#define FLOE_TESTS_PQCODEC_WALK_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/compress.h"
#include "floe/parquet_meta.h"
#include "floe_test.h"
#include "parquet/encoding.h"

/* ---- real files: a minimal flat-column page walker over the decoders ---- */

typedef struct colbuf {
    fl_vector vals; /* BINARY: one row per non-null value, PLAIN bytes of the value */
    uint8_t *nulls; /* per row */
    uint32_t nrows, cap;
    uint32_t *page_rows; /* rows of each data page, in file order */
    uint32_t npages;
} colbuf;

static fl_type BINARY_T = {.id = FL_TYPE_BINARY};

static inline size_t phys_width(const fl_pq_schema_element *e)
{
    switch (e->type) {
    case FL_PQ_INT32:
    case FL_PQ_FLOAT: return 4;
    case FL_PQ_INT64:
    case FL_PQ_DOUBLE: return 8;
    case FL_PQ_INT96: return 12;
    case FL_PQ_FIXED_LEN_BYTE_ARRAY: return (size_t)e->type_length;
    default: return 0;
    }
}

static inline fl_codec codec_of(fl_pq_codec c)
{
    switch (c) {
    case FL_PQ_SNAPPY: return FL_CODEC_SNAPPY;
    case FL_PQ_GZIP: return FL_CODEC_GZIP;
    case FL_PQ_ZSTD: return FL_CODEC_ZSTD;
    case FL_PQ_LZ4_RAW: return FL_CODEC_LZ4_RAW;
    case FL_PQ_BROTLI: return FL_CODEC_BROTLI;
    default: return FL_CODEC_NONE;
    }
}

/* Decodes nn values of encoding enc at p into out (BINARY rows). */
static inline fl_status decode_values(const fl_pq_schema_element *leaf, fl_pq_encoding enc,
                                      const uint8_t *p, size_t len, uint32_t nn,
                                      const fl_vector *dict, fl_vector *out, fl_error *err)
{
    size_t w = phys_width(leaf);
    fl_status st = FL_OK;
    uint8_t *tmp = malloc((size_t)nn * (w ? w : 8) + 8);
    uint32_t *idx = NULL;
    if (leaf->type == FL_PQ_BYTE_ARRAY && enc != FL_PQ_ENC_RLE_DICTIONARY &&
        enc != FL_PQ_ENC_PLAIN_DICTIONARY) {
        if (enc == FL_PQ_ENC_PLAIN)
            st = fl_pq_plain_decode_bytes(p, len, nn, out, NULL, err);
        else if (enc == FL_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY)
            st = fl_pq_dlba_decode(p, len, nn, out, NULL, err);
        else if (enc == FL_PQ_ENC_DELTA_BYTE_ARRAY)
            st = fl_pq_dba_decode(p, len, nn, out, err);
        else
            st = fl_errorf(err, FL_EUNSUPPORTED, "encoding %d", enc);
        free(tmp);
        return st;
    }
    switch (enc) {
    case FL_PQ_ENC_PLAIN:
        if ((size_t)nn * w > len)
            st = fl_errorf(err, FL_ECORRUPT, "short PLAIN page");
        else
            memcpy(tmp, p, (size_t)nn * w);
        break;
    case FL_PQ_ENC_DELTA_BINARY_PACKED:
        st = w == 4 ? fl_pq_delta_decode_i32(p, len, (int32_t *)tmp, nn, NULL, err)
                    : fl_pq_delta_decode_i64(p, len, (int64_t *)tmp, nn, NULL, err);
        break;
    case FL_PQ_ENC_BYTE_STREAM_SPLIT: st = fl_pq_bss_decode(p, len, nn, w, tmp, err); break;
    case FL_PQ_ENC_RLE_DICTIONARY:
    case FL_PQ_ENC_PLAIN_DICTIONARY: {
        if (!dict || len < 1) {
            st = fl_errorf(err, FL_ECORRUPT, "dictionary page missing");
            break;
        }
        idx = malloc(((size_t)nn + 1) * sizeof *idx);
        fl_pq_rle_decoder d;
        fl_pq_rle_init(&d, p + 1, len - 1, p[0]);
        st = fl_pq_rle_get(&d, idx, nn, err);
        for (uint32_t i = 0; st == FL_OK && i < nn; i++) {
            if (idx[i] >= dict->len) {
                st = fl_errorf(err, FL_ECORRUPT, "index %u out of dictionary", idx[i]);
                break;
            }
            size_t l;
            const uint8_t *v = fl_vector_bytes(dict, idx[i], &l);
            st = fl_vector_append_bytes(out, v, l, err);
        }
        free(idx);
        free(tmp);
        return st;
    }
    default: st = fl_errorf(err, FL_EUNSUPPORTED, "encoding %d", enc); break;
    }
    for (uint32_t i = 0; st == FL_OK && i < nn; i++)
        st = fl_vector_append_bytes(out, tmp + (size_t)i * w, w, err);
    free(tmp);
    return st;
}

/* Reads column col of a flat file (root + leaves) into cb. */
static inline fl_status read_flat_column(const uint8_t *file, size_t flen, const fl_pq_file_meta *m,
                                         uint32_t col, colbuf *cb, fl_error *err)
{
    const fl_pq_schema_element *leaf = &m->schema[1 + col];
    int max_def = leaf->repetition == FL_PQ_OPTIONAL ? 1 : 0;
    fl_vector dict;
    fl_vector_init(&dict, &BINARY_T, err);
    bool have_dict = false;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_status st = FL_OK;
    uint8_t *page = NULL;
    uint16_t *defs = NULL;
    for (uint32_t g = 0; st == FL_OK && g < m->nrow_groups; g++) {
        const fl_pq_column_meta *cm = &m->row_groups[g].columns[col].meta_data;
        int64_t pos =
            cm->dictionary_page_offset > 0 ? cm->dictionary_page_offset : cm->data_page_offset;
        int64_t end = pos + cm->total_compressed_size;
        fl_vector_reset(&dict);
        have_dict = false;
        while (st == FL_OK && pos < end && end <= (int64_t)flen) {
            fl_pq_page_header h;
            size_t used = 0;
            st = fl_pq_decode_page_header(file + pos, (size_t)(end - pos), &a, &h, &used, err);
            if (st != FL_OK)
                break;
            const uint8_t *body = file + pos + used;
            pos += (int64_t)used + h.compressed_page_size;
            if (pos > end) {
                st = fl_errorf(err, FL_ECORRUPT, "page past chunk");
                break;
            }
            size_t lvl = h.type == FL_PQ_DATA_PAGE_V2 ? (size_t)h.definition_levels_byte_length +
                                                            (size_t)h.repetition_levels_byte_length
                                                      : 0;
            free(page);
            page = malloc((size_t)h.uncompressed_page_size + 1);
            memcpy(page, body, lvl);
            bool compressed = cm->codec != FL_PQ_UNCOMPRESSED &&
                              (h.type != FL_PQ_DATA_PAGE_V2 || h.is_compressed);
            if (compressed)
                st = fl_decompress(codec_of(cm->codec), body + lvl,
                                   (size_t)h.compressed_page_size - lvl, page + lvl,
                                   (size_t)h.uncompressed_page_size - lvl, err);
            else
                memcpy(page + lvl, body + lvl, (size_t)h.compressed_page_size - lvl);
            if (st != FL_OK)
                break;
            size_t plen = (size_t)h.uncompressed_page_size;
            if (h.type == FL_PQ_DICTIONARY_PAGE) {
                st = decode_values(leaf, FL_PQ_ENC_PLAIN, page, plen, (uint32_t)h.num_values, NULL,
                                   &dict, err);
                have_dict = true;
                continue;
            }
            if (h.type != FL_PQ_DATA_PAGE && h.type != FL_PQ_DATA_PAGE_V2)
                continue;
            uint32_t nv = (uint32_t)h.num_values;
            free(defs);
            defs = calloc((size_t)nv + 1, sizeof *defs);
            const uint8_t *vals = page;
            size_t vlen = plen;
            if (max_def) {
                fl_pq_rle_decoder d;
                if (h.type == FL_PQ_DATA_PAGE_V2) {
                    fl_pq_rle_init(&d, page, (size_t)h.definition_levels_byte_length, 1);
                    vals = page + lvl;
                    vlen = plen - lvl;
                } else {
                    uint32_t l4 = (uint32_t)page[0] | (uint32_t)page[1] << 8 |
                                  (uint32_t)page[2] << 16 | (uint32_t)page[3] << 24;
                    fl_pq_rle_init(&d, page + 4, l4, 1);
                    vals = page + 4 + l4;
                    vlen = plen - 4 - l4;
                }
                st = fl_pq_rle_get_u16(&d, defs, nv, err);
                if (st != FL_OK)
                    break;
            } else {
                for (uint32_t i = 0; i < nv; i++)
                    defs[i] = 0;
                vals = page + lvl;
                vlen = plen - lvl;
            }
            uint32_t nn = 0;
            for (uint32_t i = 0; i < nv; i++)
                nn += defs[i] == max_def;
            st = decode_values(leaf, h.encoding, vals, vlen, nn, have_dict ? &dict : NULL,
                               &cb->vals, err);
            if (cb->nrows + nv > cb->cap) {
                cb->cap = (cb->nrows + nv) * 2;
                cb->nulls = realloc(cb->nulls, cb->cap);
            }
            for (uint32_t i = 0; i < nv; i++)
                cb->nulls[cb->nrows++] = defs[i] != max_def;
            cb->page_rows = realloc(cb->page_rows, (cb->npages + 1) * sizeof *cb->page_rows);
            cb->page_rows[cb->npages++] = nv;
        }
    }
    free(page);
    free(defs);
    fl_vector_destroy(&dict);
    fl_arena_free(&a);
    return st;
}

typedef struct pqfile {
    uint8_t *data;
    size_t len;
    fl_arena a;
    fl_pq_file_meta m;
} pqfile;

static inline int open_pq(const char *rel, pqfile *f)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/fixtures/%s", test_shared_dir(), rel);
    f->data = ft_slurp(path, &f->len);
    if (!f->data) {
        fprintf(stderr, "cannot read %s\n", path);
        return 0;
    }
    fl_error err = {0};
    uint32_t fl = 0;
    fl_arena_init(&f->a, 0);
    if (fl_pq_parse_tail(f->data + f->len - 8, f->len, &fl, &err) != FL_OK ||
        fl_pq_decode_file_meta(f->data + f->len - 8 - fl, fl, &f->a, &f->m, &err) != FL_OK) {
        fprintf(stderr, "%s: %s\n", rel, err.msg);
        return 0;
    }
    return 1;
}

static inline void close_pq(pqfile *f)
{
    free(f->data);
    fl_arena_free(&f->a);
}

static inline void colbuf_init(colbuf *cb)
{
    fl_error err = {0};
    memset(cb, 0, sizeof *cb);
    fl_vector_init(&cb->vals, &BINARY_T, &err);
}

static inline void colbuf_free(colbuf *cb)
{
    fl_vector_destroy(&cb->vals);
    free(cb->nulls);
    free(cb->page_rows);
}

static inline int colbuf_equal(const colbuf *a, const colbuf *b)
{
    if (a->nrows != b->nrows || a->vals.len != b->vals.len)
        return 0;
    if (memcmp(a->nulls, b->nulls, a->nrows) != 0)
        return 0;
    for (uint32_t i = 0; i < a->vals.len; i++) {
        size_t la, lb;
        const uint8_t *pa = fl_vector_bytes(&a->vals, i, &la),
                      *pb = fl_vector_bytes(&b->vals, i, &lb);
        if (la != lb || memcmp(pa, pb, la) != 0)
            return 0;
    }
    return 1;
}

#endif
