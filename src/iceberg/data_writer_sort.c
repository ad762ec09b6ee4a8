/*
 * data_writer_sort.c - sorted flushes of the data writer: a partition's
 * buffered rows are ordered by the table's default sort order and written
 * as one file (rolled at the target size when larger).
 *
 * Each row's sort key (one transformed value per sort field) is computed
 * once into an array; an index array is then sorted with qsort_r using the
 * fields' direction and null order, ties broken by arrival order (stable).
 * Keys that are bytes point into the buffered chunks, which stay alive
 * until the rows are written. Memory: n * nfields fl_value + 3 uint32 per row,
 * freed before returning.
 */
#include <stdlib.h>
#include <string.h>

#include "iceberg/data_writer_int.h"

typedef struct sort_ctx {
    const sfield *sf;
    uint32_t nsf;
    const fl_value *keys;
} sort_ctx;

static int cmp_rows(const void *a, const void *b, void *vctx)
{
    const sort_ctx *c = vctx;
    uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
    for (uint32_t f = 0; f < c->nsf; f++) {
        const fl_value *x = &c->keys[(size_t)ia * c->nsf + f];
        const fl_value *y = &c->keys[(size_t)ib * c->nsf + f];
        if (x->is_null || y->is_null) {
            if (x->is_null && y->is_null)
                continue;
            int nf = c->sf[f].nulls_first ? -1 : 1;
            return x->is_null ? nf : -nf;
        }
        int r = fl_value_compare(x, y);
        if (c->sf[f].desc)
            r = -r;
        if (r)
            return r;
    }
    return ia < ib ? -1 : ia > ib;
}

/* Column col of the sorted rows order[0..n) (row i of the buffer: chunk
 * ch[i], row rr[i]; every chunk FLAT, built by appends) to the end of
 * dst: a typed copy per row for scalars, append_from for nested types. */
static fl_status gather_column(fl_vector *dst, const fl_batch *chunks, uint32_t col,
                               const uint32_t *order, uint32_t n, const uint32_t *ch,
                               const uint32_t *rr, fl_error *err)
{
    const fl_type *t = dst->type;
    if (t->id == FL_TYPE_STRUCT || t->id == FL_TYPE_LIST || t->id == FL_TYPE_MAP) {
        for (uint32_t k = 0; k < n; k++)
            FL_TRY(fl_vector_append_from(dst, &chunks[ch[order[k]]].cols[col], rr[order[k]], err));
        return FL_OK;
    }
    uint32_t start = dst->len;
    FL_TRY(fl_vector_reserve(dst, start + n, err));
    FL_TRY(fl_vector_ensure_validity(dst, err));
    bool varlen = fl_type_is_varlen(t);
    size_t w = fl_type_width(t);
    if (varlen) {
        size_t total = 0;
        for (uint32_t k = 0; k < n; k++) {
            const fl_vector *v = &chunks[ch[order[k]]].cols[col];
            uint32_t r = rr[order[k]];
            total += (size_t)(v->offsets[r + 1] - v->offsets[r]);
        }
        FL_TRY(fl_vector_reserve_heap(dst, total, err));
    }
    for (uint32_t k = 0; k < n; k++) {
        const fl_vector *v = &chunks[ch[order[k]]].cols[col];
        uint32_t r = rr[order[k]];
        bool valid = fl_vector_is_valid(v, r);
        fl_bitmap_set(dst->validity, start + k, valid);
        if (varlen) {
            size_t len = valid ? (size_t)(v->offsets[r + 1] - v->offsets[r]) : 0;
            if (len)
                memcpy(dst->heap + dst->heap_len, v->heap + v->offsets[r], len);
            dst->heap_len += len;
            dst->offsets[start + k + 1] = (int64_t)dst->heap_len;
        } else if (valid) {
            memcpy(dst->data + (size_t)(start + k) * w, v->data + (size_t)r * w, w);
        } else {
            memset(dst->data + (size_t)(start + k) * w, 0, w);
        }
    }
    dst->len = start + n;
    return FL_OK;
}

static fl_status sort_and_write(fl_ice_data_writer *w, part *p, uint32_t *order, uint32_t *rc_,
                                uint32_t *rr, fl_value *keys, fl_error *err)
{
    uint32_t n = 0;
    for (uint32_t c = 0; c < p->nchunks; c++)
        for (uint32_t r = 0; r < p->chunks[c].nrows; r++, n++) {
            rc_[n] = c;
            rr[n] = r;
            order[n] = n;
            for (uint32_t f = 0; f < w->nsf; f++) {
                fl_value src;
                ice_source_value(&p->chunks[c], &w->sf[f].path, r, &src);
                FL_TRY(
                    fl_ice_transform_apply(&w->sf[f].t, &src, &keys[(size_t)n * w->nsf + f], err));
            }
        }
    sort_ctx ctx = {w->sf, w->nsf, keys};
    qsort_r(order, n, sizeof *order, cmp_rows, &ctx);
    fl_batch ob;
    FL_TRY(fl_batch_init(&ob, &w->schema, err));
    fl_status rc = FL_OK;
    for (uint32_t k = 0; k < n && rc == FL_OK; k += FL_BATCH_CAP) {
        uint32_t m = n - k < FL_BATCH_CAP ? n - k : FL_BATCH_CAP;
        for (uint32_t col = 0; col < ob.ncols && rc == FL_OK; col++)
            rc = gather_column(&ob.cols[col], p->chunks, col, order + k, m, rc_, rr, err);
        ob.nrows = m;
        if (rc == FL_OK)
            rc = ice_write_to_file(w, p, &ob, err);
        fl_batch_reset(&ob);
    }
    fl_batch_destroy(&ob);
    return rc;
}

fl_status ice_sorted_flush(fl_ice_data_writer *w, part *p, fl_error *err)
{
    if (!p->rows)
        return FL_OK;
    if (p->rows > UINT32_MAX / 2)
        return fl_errorf(err, FL_ELIMIT, "data writer: too many buffered rows");
    uint32_t n = (uint32_t)p->rows;
    uint32_t *order = malloc((size_t)n * 3 * sizeof *order);
    fl_value *keys = calloc((size_t)n * w->nsf, sizeof *keys);
    fl_status rc = FL_OK;
    if (!order || !keys)
        rc = fl_errorf(err, FL_ENOMEM, "data writer: out of memory sorting %u rows", n);
    if (rc == FL_OK)
        rc = sort_and_write(w, p, order, order + n, order + 2 * (size_t)n, keys, err);
    free(order);
    free(keys);
    ice_part_drop_chunks(p);
    if (rc == FL_OK && ice_part_open(p))
        rc = ice_finish_file(w, p, err);
    return rc;
}

fl_status ice_sorted_maybe_flush(fl_ice_data_writer *w, fl_error *err)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < w->nparts; i++) {
        part *p = w->parts[i];
        uint64_t b = ice_part_bytes(p);
        if (b >= w->cfg.target_file_bytes)
            FL_TRY(ice_sorted_flush(w, p, err));
        else
            total += b;
    }
    while (total > w->cfg.max_buffer_bytes) {
        part *big = NULL;
        uint64_t bb = 0;
        for (uint32_t i = 0; i < w->nparts; i++) {
            uint64_t b = ice_part_bytes(w->parts[i]);
            if (b > bb) {
                bb = b;
                big = w->parts[i];
            }
        }
        if (!big)
            break;
        FL_TRY(ice_sorted_flush(w, big, err));
        total -= bb;
    }
    return FL_OK;
}
