/*
 * join_rows.c - the hash join's build rows: ex_rows batches (FLAT, up to
 * FL_BATCH_CAP rows each, the layout op_join.c gathers from) whose column
 * buffers are carved out of a per-thread chunk arena (join_mem).
 *
 * Why: the build side used to be copied with ex_rows_append, one malloc'd
 * buffer per vector grown by realloc, a per-row memcpy call for nullable
 * columns, and a first-touch page fault every 4 KiB (TPC-H Q9 copies 127 MB
 * of build rows: page faults and memmove were a third of its profile). Here
 * a batch's data and offsets are sized for FL_BATCH_CAP rows once and never
 * reallocated; string heaps grow by moving to a larger piece of the arena
 * (sized from the bytes per row seen so far, so it rarely happens); chunks
 * grow from 256 KiB to 4 MiB, and chunks of 2 MiB or more are 2 MiB aligned
 * and advised MADV_HUGEPAGE (one fault per 2 MiB). Columns are copied with
 * a typed loop per width, NULLs through the validity bitmap.
 *
 * Layout of a chunk-backed vector: data = FL_BATCH_CAP slots (width >= 4
 * bytes, as fl_vector_reserve would size them), offsets (STRING/BINARY) =
 * FL_BATCH_CAP + 1 int64, heap = heap_cap bytes, all inside chunks; the
 * validity bitmap, when a NULL arrives, is malloc'd by
 * fl_vector_ensure_validity and owned by the vector. Nested columns (LIST,
 * STRUCT, MAP) are not chunk-backed: they are appended with
 * ex_vec_append_rows and own their buffers.
 *
 * Ownership: the arena owns the chunks; ex_jrows_free detaches the
 * chunk-backed buffers from the batches before destroying them, so the
 * batches must be freed before (or without) the arena, never with plain
 * ex_rows_free. Chunk bytes are counted in fl_exec.mem_used ("hash join
 * build rows") and given back by ex_jmem_free.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sql/exec/join_internal.h"

#define JM_FIRST ((size_t)256 << 10)
#define JM_MAX ((size_t)4 << 20)
#define JM_HUGE ((size_t)2 << 20)

void ex_jmem_free(fl_exec *x, join_mem *m)
{
    for (uint32_t i = 0; i < m->n; i++)
        free(m->chunks[i]);
    free(m->chunks);
    if (x && m->bytes)
        atomic_fetch_sub(&x->mem_used, (long long)m->bytes);
    memset(m, 0, sizeof *m);
}

fl_status ex_jmem_move(join_mem *dst, join_mem *src, fl_error *err)
{
    if (src->n == 0)
        return FL_OK;
    if (dst->n + src->n > dst->cap) {
        uint32_t nc = dst->n + src->n;
        uint8_t **nb = realloc(dst->chunks, (size_t)nc * sizeof *nb);
        if (!nb)
            return fl_errorf(err, FL_ENOMEM, "hash join: out of memory");
        dst->chunks = nb;
        dst->cap = nc;
    }
    memcpy(dst->chunks + dst->n, src->chunks, (size_t)src->n * sizeof *src->chunks);
    dst->n += src->n;
    dst->bytes += src->bytes;
    free(src->chunks);
    memset(src, 0, sizeof *src);
    return FL_OK;
}

static void *chunk_new(size_t size)
{
    if (size < JM_HUGE)
        return malloc(size);
    void *p = NULL;
    if (posix_memalign(&p, JM_HUGE, size) != 0)
        return NULL;
    (void)madvise(p, size, MADV_HUGEPAGE); /* fails harmlessly without THP */
    return p;
}

/* size bytes, 64-byte aligned, from m (a new chunk when the current one is short). */
static fl_status jm_alloc(fl_exec *x, join_mem *m, size_t size, void **out, fl_error *err)
{
    size = (size + 63) & ~(size_t)63;
    if (size > m->left) {
        size_t csz = m->next ? m->next : JM_FIRST;
        if (csz < size)
            csz = (size + JM_HUGE - 1) & ~(JM_HUGE - 1);
        if (m->n == m->cap) {
            uint32_t nc = m->cap ? m->cap * 2 : 16;
            uint8_t **nb = realloc(m->chunks, (size_t)nc * sizeof *nb);
            if (!nb)
                return fl_errorf(err, FL_ENOMEM, "hash join: out of memory");
            m->chunks = nb;
            m->cap = nc;
        }
        uint8_t *c = chunk_new(csz);
        if (!c)
            return fl_errorf(err, FL_ENOMEM, "hash join: out of memory for %zu bytes of build rows",
                             csz);
        m->chunks[m->n++] = c;
        m->cur = c;
        m->left = csz;
        m->bytes += csz;
        if (m->next < JM_MAX)
            m->next = m->next ? m->next * 2 : JM_FIRST * 2;
        if (x)
            FL_TRY(ex_mem_add(x, (int64_t)csz, "hash join build rows", err));
    }
    *out = m->cur;
    m->cur += size;
    m->left -= size;
    return FL_OK;
}

static bool chunked(const fl_type *t)
{
    return !fl_type_is_nested(t);
}

static fl_status new_batch(fl_exec *x, join_mem *m, ex_rows *r, fl_error *err)
{
    if (r->n == r->cap) {
        uint32_t ncap = r->cap ? r->cap * 2 : 8;
        fl_batch **nb = realloc(r->b, (size_t)ncap * sizeof *nb);
        if (!nb)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        r->b = nb;
        r->cap = ncap;
    }
    fl_batch *b = calloc(1, sizeof *b);
    if (!b)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = fl_batch_init(b, r->schema, err);
    if (rc) {
        free(b);
        return rc;
    }
    r->b[r->n++] = b; /* owned by r from here: ex_jrows_free releases it */
    for (uint32_t c = 0; c < b->ncols; c++) {
        fl_vector *v = &b->cols[c];
        if (!chunked(v->type))
            continue;
        size_t w = fl_type_width(v->type);
        void *d, *o = NULL;
        FL_TRY(jm_alloc(x, m, (size_t)FL_BATCH_CAP * (w > 4 ? w : 4), &d, err));
        if (fl_type_is_varlen(v->type)) {
            FL_TRY(jm_alloc(x, m, ((size_t)FL_BATCH_CAP + 1) * sizeof(int64_t), &o, err));
            ((int64_t *)o)[0] = 0;
        }
        v->data = d;
        v->offsets = o;
        v->cap = FL_BATCH_CAP;
    }
    return FL_OK;
}

/* Typed gather of n fixed-width values: dst row base + i = src row rows[i]
 * (or start + i), through the unified mapping. */
#define GATHER(T)                                                                     \
    do {                                                                              \
        T *d = (T *)dst->data + base;                                                 \
        const T *s = (const T *)u->base->data;                                        \
        if (u->constant)                                                              \
            for (uint32_t i = 0; i < n; i++)                                          \
                d[i] = s[0];                                                          \
        else if (u->idx)                                                              \
            for (uint32_t i = 0; i < n; i++)                                          \
                d[i] = s[u->idx[rows ? rows[i] : start + i]];                         \
        else if (rows)                                                                \
            for (uint32_t i = 0; i < n; i++)                                          \
                d[i] = s[rows[i]];                                                    \
        else                                                                          \
            memcpy(d, s + start, (size_t)n * sizeof(T));                              \
    } while (0)

typedef struct u128 {
    uint64_t lo, hi;
} u128;

static void copy_fixed(fl_vector *dst, const fl_unified *u, const uint32_t *rows, uint32_t start,
                       uint32_t n, uint32_t base)
{
    size_t w = fl_type_width(dst->type);
    switch (w) {
    case 1: GATHER(uint8_t); break;
    case 4: GATHER(uint32_t); break;
    case 8: GATHER(uint64_t); break;
    case 16: GATHER(u128); break;
    default:
        for (uint32_t i = 0; i < n; i++) {
            uint32_t br = fl_unified_row(u, rows ? rows[i] : start + i);
            memcpy(dst->data + (size_t)(base + i) * w, u->base->data + (size_t)br * w, w);
        }
        break;
    }
}

static fl_status copy_varlen(fl_exec *x, join_mem *m, fl_vector *dst, const fl_unified *u,
                             const uint32_t *rows, uint32_t start, uint32_t n, uint32_t base,
                             bool nulls, fl_error *err)
{
    const int64_t *so = u->base->offsets;
    size_t need = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = rows ? rows[i] : start + i;
        if (nulls && !fl_unified_is_valid(u, r))
            continue;
        uint32_t br = fl_unified_row(u, r);
        need += (size_t)(so[br + 1] - so[br]);
    }
    if (need > dst->heap_cap - dst->heap_len || !dst->heap) {
        /* room for this append plus the batch's remaining rows at this rate */
        size_t rest = FL_BATCH_CAP - base - n;
        size_t ncap = dst->heap_len + need + (n ? need / n * rest + need / n * rest / 8 : 0);
        if (ncap < dst->heap_cap * 2)
            ncap = dst->heap_cap * 2;
        if (ncap < 256)
            ncap = 256;
        void *h;
        FL_TRY(jm_alloc(x, m, ncap, &h, err));
        if (dst->heap_len)
            memcpy(h, dst->heap, dst->heap_len);
        dst->heap = h; /* the old piece stays in its chunk until the arena is freed */
        dst->heap_cap = ncap;
    }
    size_t hl = dst->heap_len;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = rows ? rows[i] : start + i;
        if (!nulls || fl_unified_is_valid(u, r)) {
            uint32_t br = fl_unified_row(u, r);
            size_t len = (size_t)(so[br + 1] - so[br]);
            if (len)
                memcpy(dst->heap + hl, u->base->heap + so[br], len);
            hl += len;
        }
        dst->offsets[base + i + 1] = (int64_t)hl;
    }
    dst->heap_len = hl;
    return FL_OK;
}

static fl_status append_col(fl_exec *x, join_mem *m, fl_vector *dst, const fl_vector *src,
                            const uint32_t *rows, uint32_t start, uint32_t n, fl_error *err)
{
    if (!chunked(dst->type)) {
        uint32_t ids[FL_BATCH_CAP];
        if (!rows) {
            for (uint32_t i = 0; i < n; i++)
                ids[i] = start + i;
            rows = ids;
        }
        return ex_vec_append_rows(dst, src, rows, n, err);
    }
    fl_unified u;
    fl_vector_unify(src, &u);
    if (!u.base)
        return fl_errorf(err, FL_EINVAL, "dictionary vector without a dictionary");
    uint32_t base = dst->len;
    bool nulls = u.validity || u.base->validity;
    if (fl_type_is_varlen(dst->type))
        FL_TRY(copy_varlen(x, m, dst, &u, rows, start, n, base, nulls, err));
    else
        copy_fixed(dst, &u, rows, start, n, base);
    if (nulls) {
        for (uint32_t i = 0; i < n; i++) {
            if (fl_unified_is_valid(&u, rows ? rows[i] : start + i))
                continue;
            FL_TRY(fl_vector_ensure_validity(dst, err));
            fl_bitmap_set(dst->validity, base + i, false);
        }
    }
    dst->len = base + n;
    return FL_OK;
}

fl_status ex_jrows_append(fl_exec *x, join_mem *m, ex_rows *r, const fl_vector *const *cols,
                          uint32_t nrows, const fl_sel *sel, fl_error *err)
{
    uint32_t total = sel ? sel->count : nrows, done = 0;
    while (done < total) {
        if (r->n == 0 || r->b[r->n - 1]->nrows == FL_BATCH_CAP)
            FL_TRY(new_batch(x, m, r, err));
        fl_batch *b = r->b[r->n - 1];
        uint32_t chunk = FL_BATCH_CAP - b->nrows;
        if (chunk > total - done)
            chunk = total - done;
        for (uint32_t c = 0; c < b->ncols; c++)
            FL_TRY(append_col(x, m, &b->cols[c], cols[c], sel ? sel->idx + done : NULL, done,
                              chunk, err));
        b->nrows += chunk;
        done += chunk;
    }
    r->rows += total;
    return FL_OK;
}

void ex_jrows_free(fl_exec *x, ex_rows *r)
{
    for (uint32_t i = 0; i < r->n; i++) {
        fl_batch *b = r->b[i];
        for (uint32_t c = 0; c < b->ncols; c++) {
            fl_vector *v = &b->cols[c];
            if (!chunked(v->type))
                continue;
            v->data = NULL;
            v->offsets = NULL;
            v->heap = NULL;
        }
    }
    ex_rows_free(x, r);
}
