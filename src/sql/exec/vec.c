/*
 * vec.c - the executor's row plumbing: materialized rows (ex_rows), copying
 * selected rows between vectors of any encoding, hashing key columns, and
 * value equality / ordering.
 *
 * Hashing: fixed-width values are mixed with the murmur3 finalizer (floats
 * normalized first: -0.0 hashes as 0.0 and every NaN alike, since both group
 * together); strings, binaries and FIXED use XXH3-64. NULL has its own
 * constant. Multi-column keys combine column hashes left to right.
 *
 * Ordering (ex_value_cmp) follows PostgreSQL: numbers by value with NaN
 * above +Infinity, strings and binaries by unsigned bytes then length (the C
 * collation), booleans false < true.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "sql/exec/exec_internal.h"

#define NULL_HASH 0x9E3779B97F4A7C15ull

static inline uint64_t mix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

static inline uint64_t combine(uint64_t h, uint64_t v)
{
    return mix64(h ^ (v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2)));
}

fl_status ex_sel_reserve(fl_sel *s, uint32_t n, fl_error *err)
{
    if (s->cap >= n && s->idx)
        return FL_OK;
    uint32_t ncap = n < 64 ? 64 : n;
    uint32_t *p = realloc(s->idx, (size_t)ncap * sizeof *p);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory for a selection of %u rows", ncap);
    s->idx = p;
    s->cap = ncap;
    return FL_OK;
}

void ex_sel_free(fl_sel *s)
{
    free(s->idx);
    memset(s, 0, sizeof *s);
}

bool ex_type_hashable(const fl_type *t)
{
    return !fl_type_is_nested(t);
}

/* ---- hashing ---- */

static inline uint64_t hash_fixed(const uint8_t *p, const fl_type *t)
{
    switch (t->id) {
    case FL_TYPE_BOOLEAN: return mix64(p[0] ? 1 : 0);
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: {
        int32_t v;
        memcpy(&v, p, 4);
        return mix64((uint64_t)(int64_t)v);
    }
    case FL_TYPE_FLOAT32: {
        float f;
        memcpy(&f, p, 4);
        double d = f;
        if (d == 0)
            d = 0;
        if (isnan(d))
            return mix64(0x7ff8000000000000ull);
        uint64_t u;
        memcpy(&u, &d, 8);
        return mix64(u);
    }
    case FL_TYPE_FLOAT64: {
        double d;
        memcpy(&d, p, 8);
        if (d == 0)
            d = 0;
        if (isnan(d))
            return mix64(0x7ff8000000000000ull);
        uint64_t u;
        memcpy(&u, &d, 8);
        return mix64(u);
    }
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: {
        uint64_t v;
        memcpy(&v, p, 8);
        return mix64(v);
    }
    case FL_TYPE_DECIMAL:
    case FL_TYPE_UUID: {
        uint64_t a, b;
        memcpy(&a, p, 8);
        memcpy(&b, p + 8, 8);
        return combine(mix64(a), b);
    }
    default: return XXH3_64bits(p, fl_type_width(t));
    }
}

uint64_t ex_hash_one(const fl_unified *u, const fl_type *t, uint32_t row)
{
    if (!fl_unified_is_valid(u, row))
        return NULL_HASH;
    uint32_t r = fl_unified_row(u, row);
    if (fl_type_is_varlen(t)) {
        size_t len;
        const uint8_t *p = fl_vector_bytes(u->base, r, &len);
        return XXH3_64bits(p, len);
    }
    return hash_fixed(u->base->data + (size_t)r * fl_type_width(t), t);
}

fl_status ex_hash_vec(const fl_vector *v, const fl_sel *sel, uint32_t n, uint64_t *h, bool first,
                      fl_error *err)
{
    const fl_type *t = v->type;
    if (!ex_type_hashable(t))
        return fl_errorf(err, FL_EUNSUPPORTED, "grouping, joining or comparing on nested values");
    fl_unified u;
    fl_vector_unify(v, &u);
    uint32_t cnt = sel ? sel->count : n;
    /* fast path: flat int64-like column without nulls */
    if (!u.idx && !u.constant && !u.validity && !u.base->validity && fl_type_width(t) == 8 &&
        t->id != FL_TYPE_FLOAT64) {
        const uint64_t *d = (const uint64_t *)u.base->data;
        for (uint32_t i = 0; i < cnt; i++) {
            uint32_t row = sel ? sel->idx[i] : i;
            uint64_t hv = mix64(d[row]);
            h[row] = first ? hv : combine(h[row], hv);
        }
        return FL_OK;
    }
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t row = sel ? sel->idx[i] : i;
        uint64_t hv = ex_hash_one(&u, t, row);
        h[row] = first ? hv : combine(h[row], hv);
    }
    return FL_OK;
}

/* ---- equality and order ---- */

static inline int cmp_bytes(const uint8_t *a, size_t la, const uint8_t *b, size_t lb)
{
    size_t m = la < lb ? la : lb;
    int c = m ? memcmp(a, b, m) : 0;
    if (c)
        return c < 0 ? -1 : 1;
    return la < lb ? -1 : la > lb;
}

static inline int cmp_double(double x, double y)
{
    bool nx = isnan(x), ny = isnan(y);
    if (nx || ny)
        return nx && ny ? 0 : nx ? 1 : -1;
    return x < y ? -1 : x > y;
}

int ex_value_cmp(const fl_unified *a, uint32_t ra, const fl_unified *b, uint32_t rb,
                 const fl_type *t)
{
    uint32_t xa = fl_unified_row(a, ra), xb = fl_unified_row(b, rb);
    if (fl_type_is_varlen(t)) {
        size_t la, lb;
        const uint8_t *pa = fl_vector_bytes(a->base, xa, &la);
        const uint8_t *pb = fl_vector_bytes(b->base, xb, &lb);
        return cmp_bytes(pa, la, pb, lb);
    }
    size_t w = fl_type_width(t);
    const uint8_t *pa = a->base->data + (size_t)xa * w, *pb = b->base->data + (size_t)xb * w;
    switch (t->id) {
    case FL_TYPE_BOOLEAN: return (pa[0] != 0) - (pb[0] != 0);
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: {
        int32_t x, y;
        memcpy(&x, pa, 4);
        memcpy(&y, pb, 4);
        return x < y ? -1 : x > y;
    }
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: {
        int64_t x, y;
        memcpy(&x, pa, 8);
        memcpy(&y, pb, 8);
        return x < y ? -1 : x > y;
    }
    case FL_TYPE_FLOAT32: {
        float x, y;
        memcpy(&x, pa, 4);
        memcpy(&y, pb, 4);
        return cmp_double(x, y);
    }
    case FL_TYPE_FLOAT64: {
        double x, y;
        memcpy(&x, pa, 8);
        memcpy(&y, pb, 8);
        return cmp_double(x, y);
    }
    case FL_TYPE_DECIMAL: {
        fl_i128 x, y;
        memcpy(&x, pa, 16);
        memcpy(&y, pb, 16);
        return x < y ? -1 : x > y;
    }
    default: return cmp_bytes(pa, w, pb, w);
    }
}

bool ex_value_eq(const fl_unified *a, uint32_t ra, const fl_unified *b, uint32_t rb,
                 const fl_type *t)
{
    bool va = fl_unified_is_valid(a, ra), vb = fl_unified_is_valid(b, rb);
    if (!va || !vb)
        return va == vb;
    if (t->id == FL_TYPE_FLOAT32 || t->id == FL_TYPE_FLOAT64)
        return ex_value_cmp(a, ra, b, rb, t) == 0;
    uint32_t xa = fl_unified_row(a, ra), xb = fl_unified_row(b, rb);
    if (fl_type_is_varlen(t)) {
        size_t la, lb;
        const uint8_t *pa = fl_vector_bytes(a->base, xa, &la);
        const uint8_t *pb = fl_vector_bytes(b->base, xb, &lb);
        return la == lb && (la == 0 || memcmp(pa, pb, la) == 0);
    }
    size_t w = fl_type_width(t);
    const uint8_t *pa = a->base->data + (size_t)xa * w, *pb = b->base->data + (size_t)xb * w;
    switch (w) {
    case 1: return pa[0] == pb[0];
    case 4: return memcmp(pa, pb, 4) == 0;
    case 8: return memcmp(pa, pb, 8) == 0;
    default: return memcmp(pa, pb, w) == 0;
    }
}

/* ---- copying rows ---- */

static fl_status set_null_bit(fl_vector *dst, uint32_t row, bool valid, fl_error *err)
{
    if (!dst->validity) {
        if (valid)
            return FL_OK;
        FL_TRY(fl_vector_ensure_validity(dst, err));
    }
    fl_bitmap_set(dst->validity, row, valid);
    return FL_OK;
}

/* rows[i] or start + i */
static fl_status append_impl(fl_vector *dst, const fl_vector *src, const uint32_t *rows,
                             uint32_t start, uint32_t n, fl_error *err)
{
    const fl_type *t = dst->type;
    if (fl_type_is_nested(t)) {
        for (uint32_t i = 0; i < n; i++)
            FL_TRY(fl_vector_append_from(dst, src, rows ? rows[i] : start + i, err));
        return FL_OK;
    }
    if (n == 0)
        return FL_OK;
    fl_unified u;
    fl_vector_unify(src, &u);
    if (!u.base)
        return fl_errorf(err, FL_EINVAL, "dictionary vector without a dictionary");
    FL_TRY(fl_vector_reserve(dst, dst->len + n, err));
    uint32_t base = dst->len;
    bool varlen = fl_type_is_varlen(t);
    size_t w = fl_type_width(t);
    if (varlen) {
        size_t need = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t r = rows ? rows[i] : start + i;
            if (fl_unified_is_valid(&u, r)) {
                uint32_t br = fl_unified_row(&u, r);
                need += (size_t)(u.base->offsets[br + 1] - u.base->offsets[br]);
            }
        }
        FL_TRY(fl_vector_reserve_heap(dst, need, err));
    }
    bool simple = !u.idx && !u.constant && !u.validity && !u.base->validity && !varlen;
    if (simple && !rows) {
        memcpy(dst->data + (size_t)base * w, u.base->data + (size_t)start * w, (size_t)n * w);
        if (dst->validity)
            for (uint32_t i = 0; i < n; i++)
                fl_bitmap_set(dst->validity, base + i, true);
        dst->len += n;
        return FL_OK;
    }
    if (simple && w == 8 && !dst->validity) {
        const uint64_t *s = (const uint64_t *)u.base->data;
        uint64_t *d = (uint64_t *)dst->data + base;
        for (uint32_t i = 0; i < n; i++)
            d[i] = s[rows[i]];
        dst->len += n;
        return FL_OK;
    }
    if (simple && w == 4 && !dst->validity) {
        const uint32_t *s = (const uint32_t *)u.base->data;
        uint32_t *d = (uint32_t *)dst->data + base;
        for (uint32_t i = 0; i < n; i++)
            d[i] = s[rows[i]];
        dst->len += n;
        return FL_OK;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = rows ? rows[i] : start + i;
        bool valid = fl_unified_is_valid(&u, r);
        uint32_t br = fl_unified_row(&u, r);
        FL_TRY(set_null_bit(dst, base + i, valid, err));
        if (varlen) {
            int64_t off = (int64_t)dst->heap_len;
            if (valid) {
                size_t len;
                const uint8_t *p = fl_vector_bytes(u.base, br, &len);
                if (len)
                    memcpy(dst->heap + dst->heap_len, p, len);
                dst->heap_len += len;
            }
            dst->offsets[base + i] = off;
            dst->offsets[base + i + 1] = (int64_t)dst->heap_len;
        } else if (valid) {
            memcpy(dst->data + (size_t)(base + i) * w, u.base->data + (size_t)br * w, w);
        } else {
            memset(dst->data + (size_t)(base + i) * w, 0, w);
        }
    }
    dst->len += n;
    return FL_OK;
}

fl_status ex_vec_append_rows(fl_vector *dst, const fl_vector *src, const uint32_t *rows, uint32_t n,
                             fl_error *err)
{
    return append_impl(dst, src, rows, 0, n, err);
}

fl_status ex_vec_append_one(fl_vector *dst, const fl_unified *u, uint32_t r, fl_error *err)
{
    const fl_type *t = dst->type;
    if (fl_type_is_nested(t)) {
        /* rebuild a vector view from the unified base */
        if (!fl_unified_is_valid(u, r))
            return ex_vec_append_nulls(dst, 1, err);
        return fl_vector_append_from(dst, u->base, fl_unified_row(u, r), err);
    }
    FL_TRY(fl_vector_reserve(dst, dst->len + 1, err));
    uint32_t at = dst->len;
    bool valid = fl_unified_is_valid(u, r);
    uint32_t br = fl_unified_row(u, r);
    FL_TRY(set_null_bit(dst, at, valid, err));
    if (fl_type_is_varlen(t)) {
        size_t len = 0;
        const uint8_t *p = valid ? fl_vector_bytes(u->base, br, &len) : NULL;
        FL_TRY(fl_vector_reserve_heap(dst, len, err));
        if (len)
            memcpy(dst->heap + dst->heap_len, p, len);
        dst->offsets[at] = (int64_t)dst->heap_len;
        dst->heap_len += len;
        dst->offsets[at + 1] = (int64_t)dst->heap_len;
    } else {
        size_t w = fl_type_width(t);
        if (valid)
            memcpy(dst->data + (size_t)at * w, u->base->data + (size_t)br * w, w);
        else
            memset(dst->data + (size_t)at * w, 0, w);
    }
    dst->len++;
    return FL_OK;
}

fl_status ex_vec_append_nulls(fl_vector *dst, uint32_t n, fl_error *err)
{
    if (!fl_type_is_nested(dst->type))
        return fl_vector_append_nulls(dst, n, err);
    for (uint32_t i = 0; i < n; i++)
        FL_TRY(fl_vector_append_null(dst, err));
    return FL_OK;
}

/* ---- materialized rows ---- */

static uint64_t vec_bytes(const fl_vector *v)
{
    size_t w = fl_type_width(v->type);
    uint64_t b = (uint64_t)v->cap * (w > 4 ? w : 4) + v->heap_cap + (v->cap + 7) / 8;
    if (v->offsets)
        b += (uint64_t)(v->cap + 1) * 8;
    for (uint32_t i = 0; i < v->nchildren; i++)
        b += vec_bytes(&v->children[i]);
    return b;
}

static uint64_t batch_bytes(const fl_batch *b)
{
    uint64_t s = sizeof *b;
    for (uint32_t c = 0; c < b->ncols; c++)
        s += vec_bytes(&b->cols[c]);
    return s;
}

void ex_rows_init(ex_rows *r, const fl_schema *schema)
{
    memset(r, 0, sizeof *r);
    r->schema = schema;
}

void ex_rows_free(fl_exec *x, ex_rows *r)
{
    for (uint32_t i = 0; i < r->n; i++) {
        fl_batch_destroy(r->b[i]);
        free(r->b[i]);
    }
    free(r->b);
    if (x && r->bytes)
        atomic_fetch_sub(&x->mem_used, (long long)r->bytes);
    const fl_schema *s = r->schema;
    memset(r, 0, sizeof *r);
    r->schema = s;
}

static fl_status rows_new_batch(ex_rows *r, fl_error *err)
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
    for (uint32_t c = 0; c < b->ncols; c++)
        if ((rc = fl_vector_reserve(&b->cols[c], FL_BATCH_CAP, err)) != FL_OK) {
            fl_batch_destroy(b);
            free(b);
            return rc;
        }
    r->b[r->n++] = b;
    return FL_OK;
}

fl_status ex_rows_append(fl_exec *x, ex_rows *r, const fl_vector *const *cols, uint32_t nrows,
                         const fl_sel *sel, fl_error *err)
{
    uint32_t total = sel ? sel->count : nrows, done = 0;
    while (done < total) {
        bool fresh = false;
        if (r->n == 0 || r->b[r->n - 1]->nrows == FL_BATCH_CAP) {
            FL_TRY(rows_new_batch(r, err));
            fresh = true;
        }
        fl_batch *b = r->b[r->n - 1];
        uint64_t before = fresh ? 0 : batch_bytes(b);
        uint32_t chunk = FL_BATCH_CAP - b->nrows;
        if (chunk > total - done)
            chunk = total - done;
        for (uint32_t c = 0; c < b->ncols; c++)
            FL_TRY(append_impl(&b->cols[c], cols[c], sel ? sel->idx + done : NULL, done, chunk,
                               err));
        b->nrows += chunk;
        done += chunk;
        uint64_t delta = batch_bytes(b) - before;
        r->bytes += delta;
        if (x)
            FL_TRY(ex_mem_add(x, (int64_t)delta, "materialized rows", err));
    }
    r->rows += total;
    return FL_OK;
}

fl_status ex_rows_append_batch(fl_exec *x, ex_rows *r, const fl_batch *b, fl_error *err)
{
    const fl_vector *cols[b->ncols ? b->ncols : 1];
    for (uint32_t c = 0; c < b->ncols; c++)
        cols[c] = &b->cols[c];
    return ex_rows_append(x, r, cols, b->nrows, b->sel, err);
}

fl_status ex_rows_concat(ex_rows *dst, ex_rows *src, fl_error *err)
{
    if (src->n == 0)
        return FL_OK;
    if (dst->n + src->n > dst->cap) {
        uint32_t ncap = dst->n + src->n;
        fl_batch **nb = realloc(dst->b, (size_t)ncap * sizeof *nb);
        if (!nb)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        dst->b = nb;
        dst->cap = ncap;
    }
    memcpy(dst->b + dst->n, src->b, src->n * sizeof *src->b);
    dst->n += src->n;
    dst->rows += src->rows;
    dst->bytes += src->bytes;
    free(src->b);
    src->b = NULL;
    src->n = src->cap = 0;
    src->rows = src->bytes = 0;
    return FL_OK;
}

fl_schema *ex_schema_of(fl_exec *x, const fl_type *const *types, uint32_t n)
{
    pthread_mutex_lock(&x->mu);
    fl_schema *s = fl_arena_calloc(&x->arena, 1, sizeof *s);
    fl_field *f = s ? fl_arena_calloc(&x->arena, n ? n : 1, sizeof *f) : NULL;
    if (s && f) {
        for (uint32_t i = 0; i < n; i++) {
            f[i].name = "";
            f[i].type = *types[i];
            f[i].nullable = true;
        }
        s->fields = f;
        s->nfields = n;
    }
    pthread_mutex_unlock(&x->mu);
    return f ? s : NULL;
}
