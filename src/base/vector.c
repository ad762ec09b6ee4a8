/*
 * vector.c - columnar vectors and batches (see floe/vector.h for the layout,
 * the encodings and the buffer-size guarantees).
 *
 * Growth: fl_vector_reserve() grows rows to max(requested, 2 * cap) and the
 * heap to max(requested, 2 * heap_cap), so appending n values costs O(n)
 * amortized. Buffers are only ever grown, never shrunk: fl_vector_reset()
 * keeps them for the next batch (the validity bitmap is freed, it is small
 * and "no bitmap" is the fast all-valid case).
 *
 * Flattening works in place where possible: CONSTANT replicates slot 0;
 * DICT gathers fixed-width values over the index buffer (backwards for
 * widths >= 4, forwards for width 1, so every index is read before the
 * bytes holding it are overwritten). Nested CONSTANT/DICT vectors are
 * rebuilt row by row through fl_vector_append_from().
 */
#include "floe/vector.h"

#include <stdlib.h>
#include <string.h>

#define MIN_ROWS 16
#define MIN_HEAP 256
#define MAX_ROWS (UINT32_MAX - 1)

static size_t slot_width(const fl_type *t)
{
    size_t w = fl_type_width(t);
    return w > 4 ? w : 4;
}

static bool has_offsets(const fl_type *t)
{
    return fl_type_is_varlen(t) || t->id == FL_TYPE_LIST || t->id == FL_TYPE_MAP;
}

static uint32_t child_count(const fl_type *t)
{
    switch (t->id) {
    case FL_TYPE_STRUCT: return t->nchildren;
    case FL_TYPE_LIST: return 1;
    case FL_TYPE_MAP: return 2;
    default: return 0;
    }
}

static size_t bitmap_bytes(uint32_t rows)
{
    return ((size_t)rows + 7) / 8;
}

/* ---- lifecycle ---- */

fl_status fl_vector_init(fl_vector *v, const fl_type *t, fl_error *err)
{
    memset(v, 0, sizeof *v);
    v->type = t;
    uint32_t n = child_count(t);
    if (n == 0)
        return FL_OK;
    if (t->nchildren < n || !t->children)
        return fl_errorf(err, FL_EINVAL, "vector: %s type has %u children, needs %u",
                         t->id == FL_TYPE_LIST  ? "list"
                         : t->id == FL_TYPE_MAP ? "map"
                                                : "struct",
                         t->nchildren, n);
    v->children = calloc(n, sizeof *v->children);
    if (!v->children)
        return fl_errorf(err, FL_ENOMEM, "vector: out of memory");
    v->nchildren = n;
    for (uint32_t i = 0; i < n; i++) {
        fl_status rc = fl_vector_init(&v->children[i], &t->children[i].type, err);
        if (rc) {
            fl_vector_destroy(v);
            return rc;
        }
    }
    return FL_OK;
}

static void drop_dict(fl_vector *v)
{
    if (v->dict && v->owns_dict) {
        fl_vector_destroy(v->dict);
        free(v->dict);
    }
    v->dict = NULL;
    v->owns_dict = false;
}

void fl_vector_destroy(fl_vector *v)
{
    if (!v)
        return;
    free(v->validity);
    free(v->data);
    free(v->offsets);
    free(v->heap);
    for (uint32_t i = 0; i < v->nchildren; i++)
        fl_vector_destroy(&v->children[i]);
    free(v->children);
    drop_dict(v);
    const fl_type *t = v->type;
    memset(v, 0, sizeof *v);
    v->type = t;
}

void fl_vector_reset(fl_vector *v)
{
    v->len = 0;
    v->encoding = FL_VEC_FLAT;
    v->heap_len = 0;
    free(v->validity);
    v->validity = NULL;
    drop_dict(v);
    for (uint32_t i = 0; i < v->nchildren; i++)
        fl_vector_reset(&v->children[i]);
}

/* ---- capacity ---- */

fl_status fl_vector_reserve(fl_vector *v, uint32_t rows, fl_error *err)
{
    if (rows <= v->cap && (v->data || rows == 0))
        goto children;
    if (rows > MAX_ROWS)
        return fl_errorf(err, FL_ELIMIT, "vector: %u rows exceed the maximum", rows);
    uint32_t ncap = v->cap > MAX_ROWS / 2 ? MAX_ROWS : v->cap * 2;
    if (ncap < rows)
        ncap = rows;
    if (ncap < MIN_ROWS)
        ncap = MIN_ROWS;
    uint8_t *d = realloc(v->data, (size_t)ncap * slot_width(v->type));
    if (!d)
        return fl_errorf(err, FL_ENOMEM, "vector: out of memory for %u rows", ncap);
    v->data = d;
    if (has_offsets(v->type)) {
        int64_t *o = realloc(v->offsets, ((size_t)ncap + 1) * sizeof *o);
        if (!o)
            return fl_errorf(err, FL_ENOMEM, "vector: out of memory for %u offsets", ncap);
        if (!v->offsets)
            o[0] = 0;
        v->offsets = o;
    }
    if (v->validity) {
        size_t old = bitmap_bytes(v->cap), nb = bitmap_bytes(ncap);
        uint8_t *b = realloc(v->validity, nb);
        if (!b)
            return fl_errorf(err, FL_ENOMEM, "vector: out of memory for a bitmap of %u rows", ncap);
        if (v->cap & 7) /* rows past the old cap in its last byte */
            b[old - 1] |= (uint8_t)(0xFFu << (v->cap & 7));
        memset(b + old, 0xFF, nb - old);
        v->validity = b;
    }
    v->cap = ncap;
children:
    if (v->type->id == FL_TYPE_STRUCT)
        for (uint32_t i = 0; i < v->nchildren; i++)
            FL_TRY(fl_vector_reserve(&v->children[i], rows, err));
    return FL_OK;
}

fl_status fl_vector_reserve_heap(fl_vector *v, size_t bytes, fl_error *err)
{
    if (bytes <= v->heap_cap - v->heap_len && v->heap)
        return FL_OK;
    if (bytes > (size_t)INT64_MAX - v->heap_len)
        return fl_errorf(err, FL_ELIMIT, "vector: string heap exceeds 2^63 bytes");
    size_t need = v->heap_len + bytes;
    size_t ncap = v->heap_cap > SIZE_MAX / 2 ? SIZE_MAX : v->heap_cap * 2;
    if (ncap < need)
        ncap = need;
    if (ncap < MIN_HEAP)
        ncap = MIN_HEAP;
    uint8_t *h = realloc(v->heap, ncap);
    if (!h)
        return fl_errorf(err, FL_ENOMEM, "vector: out of memory for a heap of %zu bytes", ncap);
    v->heap = h;
    v->heap_cap = ncap;
    return FL_OK;
}

fl_status fl_vector_ensure_validity(fl_vector *v, fl_error *err)
{
    if (v->validity)
        return FL_OK;
    size_t nb = bitmap_bytes(v->cap);
    if (nb == 0)
        nb = 1;
    v->validity = malloc(nb);
    if (!v->validity)
        return fl_errorf(err, FL_ENOMEM, "vector: out of memory for a bitmap");
    memset(v->validity, 0xFF, nb);
    return FL_OK;
}

/* Room for one more row. */
static inline fl_status grow1(fl_vector *v, fl_error *err)
{
    if (v->len < v->cap)
        return FL_OK;
    return fl_vector_reserve(v, v->len + 1, err);
}

static fl_status check_flat(const fl_vector *v, fl_error *err)
{
    if (v->encoding != FL_VEC_FLAT)
        return fl_errorf(err, FL_EINVAL, "vector: cannot append to a %s vector",
                         v->encoding == FL_VEC_DICT ? "dictionary" : "constant");
    return FL_OK;
}

/* ---- appending builders ---- */

fl_status fl_vector_append_null(fl_vector *v, fl_error *err)
{
    FL_TRY(check_flat(v, err));
    if (v->len >= MAX_ROWS)
        return fl_errorf(err, FL_ELIMIT, "vector: too many rows");
    FL_TRY(grow1(v, err));
    FL_TRY(fl_vector_ensure_validity(v, err));
    uint32_t i = v->len;
    size_t w = fl_type_width(v->type);
    if (w)
        memset(v->data + (size_t)i * w, 0, w);
    if (has_offsets(v->type))
        v->offsets[i + 1] = v->offsets[i];
    if (v->type->id == FL_TYPE_STRUCT)
        for (uint32_t c = 0; c < v->nchildren; c++)
            if (v->children[c].len == i) /* keep children aligned with the parent */
                FL_TRY(fl_vector_append_null(&v->children[c], err));
    fl_bitmap_set(v->validity, i, false);
    v->len = i + 1;
    return FL_OK;
}

fl_status fl_vector_append_nulls(fl_vector *v, uint32_t n, fl_error *err)
{
    FL_TRY(check_flat(v, err));
    if (n > MAX_ROWS - v->len)
        return fl_errorf(err, FL_ELIMIT, "vector: too many rows");
    if (v->type->id == FL_TYPE_STRUCT) {
        for (uint32_t k = 0; k < n; k++)
            FL_TRY(fl_vector_append_null(v, err));
        return FL_OK;
    }
    FL_TRY(fl_vector_reserve(v, v->len + n, err));
    FL_TRY(fl_vector_ensure_validity(v, err));
    uint32_t start = v->len;
    size_t w = fl_type_width(v->type);
    if (w)
        memset(v->data + (size_t)start * w, 0, (size_t)n * w);
    if (has_offsets(v->type)) {
        int64_t o = v->offsets[start];
        for (uint32_t k = 1; k <= n; k++)
            v->offsets[start + k] = o;
    }
    for (uint32_t k = 0; k < n; k++)
        fl_bitmap_set(v->validity, start + k, false);
    v->len = start + n;
    return FL_OK;
}

static void mark_valid(fl_vector *v, uint32_t i)
{
    if (v->validity)
        fl_bitmap_set(v->validity, i, true);
}

fl_status fl_vector_append_fixed(fl_vector *v, const void *value, fl_error *err)
{
    size_t w = fl_type_width(v->type);
    if (__builtin_expect(v->len < v->cap && w && v->encoding == FL_VEC_FLAT, 1)) {
        memcpy(v->data + (size_t)v->len * w, value, w);
        mark_valid(v, v->len);
        v->len++;
        return FL_OK;
    }
    if (w == 0)
        return fl_errorf(err, FL_EINVAL, "vector: append_fixed on a variable-width type");
    FL_TRY(check_flat(v, err));
    if (v->len >= MAX_ROWS)
        return fl_errorf(err, FL_ELIMIT, "vector: too many rows");
    FL_TRY(grow1(v, err));
    memcpy(v->data + (size_t)v->len * w, value, w);
    mark_valid(v, v->len);
    v->len++;
    return FL_OK;
}

fl_status fl_vector_append_fixed_n(fl_vector *v, const void *values, uint32_t n, fl_error *err)
{
    size_t w = fl_type_width(v->type);
    if (w == 0)
        return fl_errorf(err, FL_EINVAL, "vector: append_fixed_n on a variable-width type");
    FL_TRY(check_flat(v, err));
    if (n > MAX_ROWS - v->len)
        return fl_errorf(err, FL_ELIMIT, "vector: too many rows");
    FL_TRY(fl_vector_reserve(v, v->len + n, err));
    if (n)
        memcpy(v->data + (size_t)v->len * w, values, (size_t)n * w);
    if (v->validity)
        for (uint32_t k = 0; k < n; k++)
            fl_bitmap_set(v->validity, v->len + k, true);
    v->len += n;
    return FL_OK;
}

fl_status fl_vector_append_bytes(fl_vector *v, const void *bytes, size_t len, fl_error *err)
{
    if (!fl_type_is_varlen(v->type)) {
        size_t w = fl_type_width(v->type);
        if (w && len == w && v->type->id != FL_TYPE_BOOLEAN)
            return fl_vector_append_fixed(v, bytes, err);
        return fl_errorf(err, FL_EINVAL, "vector: cannot append %zu bytes to a %zu-byte type", len,
                         w);
    }
    if (__builtin_expect(v->len >= v->cap || v->encoding != FL_VEC_FLAT ||
                             len > v->heap_cap - v->heap_len || !v->heap,
                         0)) {
        FL_TRY(check_flat(v, err));
        if (v->len >= MAX_ROWS)
            return fl_errorf(err, FL_ELIMIT, "vector: too many rows");
        FL_TRY(grow1(v, err));
        FL_TRY(fl_vector_reserve_heap(v, len, err));
    }
    if (len)
        memcpy(v->heap + v->heap_len, bytes, len);
    v->heap_len += len;
    v->offsets[v->len + 1] = (int64_t)v->heap_len;
    mark_valid(v, v->len);
    v->len++;
    return FL_OK;
}

fl_status fl_vector_append_nested(fl_vector *v, int64_t child_len, fl_error *err)
{
    FL_TRY(check_flat(v, err));
    if (v->len >= MAX_ROWS)
        return fl_errorf(err, FL_ELIMIT, "vector: too many rows");
    uint32_t i = v->len;
    switch (v->type->id) {
    case FL_TYPE_STRUCT:
        for (uint32_t c = 0; c < v->nchildren; c++)
            if (v->children[c].len != i + 1)
                return fl_errorf(err, FL_EINVAL, "vector: struct child %u has %u rows, expected %u",
                                 c, v->children[c].len, i + 1);
        FL_TRY(grow1(v, err));
        break;
    case FL_TYPE_LIST:
    case FL_TYPE_MAP:
        FL_TRY(grow1(v, err));
        if (child_len < v->offsets[i] || child_len > (int64_t)v->children[0].len ||
            (v->type->id == FL_TYPE_MAP && child_len > (int64_t)v->children[1].len))
            return fl_errorf(err, FL_EINVAL,
                             "vector: child length %lld out of range [%lld, %u] for row %u",
                             (long long)child_len, (long long)v->offsets[i], v->children[0].len, i);
        v->offsets[i + 1] = child_len;
        break;
    default: return fl_errorf(err, FL_EINVAL, "vector: append_nested on a primitive type");
    }
    mark_valid(v, i);
    v->len = i + 1;
    return FL_OK;
}

/* ---- unified access ---- */

void fl_vector_unify(const fl_vector *v, fl_unified *out)
{
    out->validity = NULL;
    switch (v->encoding) {
    case FL_VEC_CONSTANT:
        out->base = v;
        out->idx = NULL;
        out->constant = true;
        return;
    case FL_VEC_DICT:
        out->base = v->dict;
        out->idx = (const uint32_t *)(const void *)v->data;
        out->constant = false;
        out->validity = v->validity;
        return;
    default:
        out->base = v;
        out->idx = NULL;
        out->constant = false;
        return;
    }
}

static fl_status bad_index(fl_error *err, uint32_t row, uint32_t idx, uint32_t n)
{
    return fl_errorf(err, FL_ECORRUPT, "vector: row %u has dictionary index %u, dictionary has %u",
                     row, idx, n);
}

fl_status fl_vector_append_from(fl_vector *dst, const fl_vector *src, uint32_t src_row,
                                fl_error *err)
{
    if (dst->type->id != src->type->id)
        return fl_errorf(err, FL_ETYPE, "vector: append_from between different types");
    fl_unified u;
    fl_vector_unify(src, &u);
    if (!u.base)
        return fl_errorf(err, FL_EINVAL, "vector: dictionary vector without a dictionary");
    if (u.validity && !((u.validity[src_row >> 3] >> (src_row & 7)) & 1))
        return fl_vector_append_null(dst, err);
    uint32_t r = fl_unified_row(&u, src_row);
    if (u.idx && r >= u.base->len)
        return bad_index(err, src_row, r, u.base->len);
    const fl_vector *b = u.base;
    if (!fl_vector_is_valid(b, r))
        return fl_vector_append_null(dst, err);
    switch (dst->type->id) {
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: {
        size_t len;
        const uint8_t *p = fl_vector_bytes(b, r, &len);
        return fl_vector_append_bytes(dst, p, len, err);
    }
    case FL_TYPE_STRUCT:
        for (uint32_t c = 0; c < dst->nchildren && c < b->nchildren; c++)
            FL_TRY(fl_vector_append_from(&dst->children[c], &b->children[c], r, err));
        return fl_vector_append_nested(dst, 0, err);
    case FL_TYPE_LIST:
    case FL_TYPE_MAP: {
        int64_t from = b->offsets[r], to = b->offsets[r + 1];
        for (int64_t j = from; j < to; j++)
            for (uint32_t c = 0; c < dst->nchildren && c < b->nchildren; c++)
                FL_TRY(fl_vector_append_from(&dst->children[c], &b->children[c], (uint32_t)j, err));
        return fl_vector_append_nested(dst, dst->children[0].len, err);
    }
    default: return fl_vector_append_fixed(dst, b->data + (size_t)r * fl_type_width(b->type), err);
    }
}

/* Rows of a FLAT base to the end of dst (FLAT, same scalar type, room
 * reserved): one unify and one capacity check for the whole gather. */
static void gather_fixed(uint8_t *dst, const uint8_t *src, size_t w, const fl_unified *u,
                         const uint32_t *rows, uint32_t n)
{
    switch (w) {
    case 8:
        for (uint32_t k = 0; k < n; k++)
            memcpy(dst + (size_t)k * 8, src + (size_t)fl_unified_row(u, rows[k]) * 8, 8);
        return;
    case 4:
        for (uint32_t k = 0; k < n; k++)
            memcpy(dst + (size_t)k * 4, src + (size_t)fl_unified_row(u, rows[k]) * 4, 4);
        return;
    case 16:
        for (uint32_t k = 0; k < n; k++)
            memcpy(dst + (size_t)k * 16, src + (size_t)fl_unified_row(u, rows[k]) * 16, 16);
        return;
    default:
        for (uint32_t k = 0; k < n; k++)
            memcpy(dst + (size_t)k * w, src + (size_t)fl_unified_row(u, rows[k]) * w, w);
    }
}

static bool row_valid(const fl_unified *u, uint32_t i, uint32_t r)
{
    if (u->validity && !((u->validity[i >> 3] >> (i & 7)) & 1))
        return false;
    return fl_vector_is_valid(u->base, r);
}

fl_status fl_vector_append_rows(fl_vector *dst, const fl_vector *src, const uint32_t *rows,
                                uint32_t n, fl_error *err)
{
    if (dst->type->id != src->type->id)
        return fl_errorf(err, FL_ETYPE, "vector: append_rows between different types");
    fl_type_id id = dst->type->id;
    if (id == FL_TYPE_STRUCT || id == FL_TYPE_LIST || id == FL_TYPE_MAP) {
        for (uint32_t k = 0; k < n; k++)
            FL_TRY(fl_vector_append_from(dst, src, rows[k], err));
        return FL_OK;
    }
    FL_TRY(check_flat(dst, err));
    fl_unified u;
    fl_vector_unify(src, &u);
    if (!u.base)
        return fl_errorf(err, FL_EINVAL, "vector: dictionary vector without a dictionary");
    const fl_vector *b = u.base;
    if (n > MAX_ROWS - dst->len)
        return fl_errorf(err, FL_ELIMIT, "vector: too many rows");
    if (u.idx && !u.constant)
        for (uint32_t k = 0; k < n; k++)
            if (u.idx[rows[k]] >= b->len)
                return bad_index(err, rows[k], u.idx[rows[k]], b->len);
    FL_TRY(fl_vector_reserve(dst, dst->len + n, err));
    bool nulls = u.validity || b->validity;
    if (nulls || dst->validity)
        FL_TRY(fl_vector_ensure_validity(dst, err));
    uint32_t start = dst->len;
    if (fl_type_is_varlen(dst->type)) {
        size_t total = 0;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t r = fl_unified_row(&u, rows[k]);
            total += (size_t)(b->offsets[r + 1] - b->offsets[r]);
        }
        FL_TRY(fl_vector_reserve_heap(dst, total, err));
        for (uint32_t k = 0; k < n; k++) {
            uint32_t r = fl_unified_row(&u, rows[k]);
            bool valid = !nulls || row_valid(&u, rows[k], r);
            size_t len = valid ? (size_t)(b->offsets[r + 1] - b->offsets[r]) : 0;
            if (len)
                memcpy(dst->heap + dst->heap_len, b->heap + b->offsets[r], len);
            dst->heap_len += len;
            dst->offsets[start + k + 1] = (int64_t)dst->heap_len;
        }
    } else {
        gather_fixed(dst->data + (size_t)start * fl_type_width(dst->type), b->data,
                     fl_type_width(dst->type), &u, rows, n);
    }
    size_t w = fl_type_width(dst->type);
    for (uint32_t k = 0; dst->validity && k < n; k++) {
        bool valid = !nulls || row_valid(&u, rows[k], fl_unified_row(&u, rows[k]));
        fl_bitmap_set(dst->validity, start + k, valid);
        if (!valid && w && !fl_type_is_varlen(dst->type)) /* as append_null: zeros */
            memset(dst->data + (size_t)(start + k) * w, 0, w);
    }
    dst->len = start + n;
    return FL_OK;
}

/* ---- flattening ---- */

/* Rebuilds v row by row into a fresh FLAT vector (nested types). */
static fl_status flatten_generic(fl_vector *v, fl_error *err)
{
    fl_vector tmp;
    FL_TRY(fl_vector_init(&tmp, v->type, err));
    fl_status rc = fl_vector_reserve(&tmp, v->len, err);
    for (uint32_t i = 0; rc == FL_OK && i < v->len; i++)
        rc = fl_vector_append_from(&tmp, v, i, err);
    if (rc) {
        fl_vector_destroy(&tmp);
        return rc;
    }
    fl_vector old = *v;
    *v = tmp;
    fl_vector_destroy(&old);
    return FL_OK;
}

static fl_status flatten_constant(fl_vector *v, fl_error *err)
{
    uint32_t n = v->len;
    bool valid = fl_vector_is_valid(v, 0);
    FL_TRY(fl_vector_reserve(v, n, err));
    if (!valid) {
        FL_TRY(fl_vector_ensure_validity(v, err));
        memset(v->validity, 0, bitmap_bytes(n));
        size_t w = fl_type_width(v->type);
        if (w)
            memset(v->data, 0, (size_t)n * w);
        if (has_offsets(v->type))
            memset(v->offsets, 0, ((size_t)n + 1) * sizeof *v->offsets);
        v->heap_len = 0;
    } else if (fl_type_is_varlen(v->type)) {
        int64_t start = v->offsets[0];
        size_t len = (size_t)(v->offsets[1] - start);
        if (len && n > (SIZE_MAX - v->heap_len) / len)
            return fl_errorf(err, FL_ELIMIT, "vector: flattened heap too large");
        size_t total = (size_t)n * len;
        /* the value may overlap the area being written: keep a copy */
        uint8_t *val = malloc(len ? len : 1);
        if (!val)
            return fl_errorf(err, FL_ENOMEM, "vector: out of memory");
        if (len)
            memcpy(val, v->heap + start, len);
        v->heap_len = 0;
        fl_status rc = fl_vector_reserve_heap(v, total, err);
        if (rc) {
            free(val);
            return rc;
        }
        for (uint32_t i = 0; i < n && len; i++)
            memcpy(v->heap + (size_t)i * len, val, len);
        free(val);
        v->heap_len = total;
        for (uint32_t i = 0; i <= n; i++)
            v->offsets[i] = (int64_t)((size_t)i * len);
        if (v->validity)
            memset(v->validity, 0xFF, bitmap_bytes(n));
    } else {
        size_t w = fl_type_width(v->type);
        for (uint32_t i = 1; i < n; i++)
            memcpy(v->data + (size_t)i * w, v->data, w);
        if (v->validity)
            memset(v->validity, 0xFF, bitmap_bytes(n));
    }
    v->encoding = FL_VEC_FLAT;
    return FL_OK;
}

/* Clears the validity of rows whose dictionary entry is null. Indices must
 * still be in data. */
static fl_status dict_nulls(fl_vector *v, const uint32_t *idx, fl_error *err)
{
    const fl_vector *d = v->dict;
    for (uint32_t i = 0; i < v->len; i++) {
        if (!fl_vector_is_valid(v, i))
            continue;
        if (idx[i] >= d->len)
            return bad_index(err, i, idx[i], d->len);
        if (!fl_vector_is_valid(d, idx[i])) {
            FL_TRY(fl_vector_ensure_validity(v, err));
            fl_bitmap_set(v->validity, i, false);
        }
    }
    return FL_OK;
}

static fl_status flatten_dict_fixed(fl_vector *v, fl_error *err)
{
    const fl_vector *d = v->dict;
    size_t w = fl_type_width(v->type);
    uint32_t n = v->len;
    FL_TRY(dict_nulls(v, (const uint32_t *)(const void *)v->data, err));
    /* nulls now read index 0 or any in-range value; make them safe */
    uint8_t *data = v->data;
    if (w >= 4) {
        for (uint32_t i = n; i-- > 0;) {
            uint32_t k;
            memcpy(&k, data + (size_t)i * 4, 4);
            if (!fl_vector_is_valid(v, i) || k >= d->len)
                memset(data + (size_t)i * w, 0, w);
            else
                memcpy(data + (size_t)i * w, d->data + (size_t)k * w, w);
        }
    } else {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t k;
            memcpy(&k, data + (size_t)i * 4, 4);
            if (!fl_vector_is_valid(v, i) || k >= d->len)
                memset(data + (size_t)i * w, 0, w);
            else
                memcpy(data + (size_t)i * w, d->data + (size_t)k * w, w);
        }
    }
    return FL_OK;
}

static fl_status flatten_dict_varlen(fl_vector *v, fl_error *err)
{
    const fl_vector *d = v->dict;
    const uint32_t *idx = (const uint32_t *)(const void *)v->data;
    uint32_t n = v->len;
    if (!v->offsets)
        return fl_errorf(err, FL_EINVAL, "vector: dictionary vector without offsets");
    FL_TRY(dict_nulls(v, idx, err));
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        if (fl_vector_is_valid(v, i))
            total += (size_t)(d->offsets[idx[i] + 1] - d->offsets[idx[i]]);
    v->heap_len = 0;
    FL_TRY(fl_vector_reserve_heap(v, total, err));
    int64_t pos = 0;
    v->offsets[0] = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (fl_vector_is_valid(v, i)) {
            size_t len;
            const uint8_t *p = fl_vector_bytes(d, idx[i], &len);
            if (len)
                memcpy(v->heap + pos, p, len);
            pos += (int64_t)len;
        }
        v->offsets[i + 1] = pos;
    }
    v->heap_len = (size_t)pos;
    return FL_OK;
}

fl_status fl_vector_flatten(fl_vector *v, fl_error *err)
{
    fl_status rc = FL_OK;
    switch (v->encoding) {
    case FL_VEC_FLAT: return FL_OK;
    case FL_VEC_CONSTANT:
        if (v->len == 0) {
            v->encoding = FL_VEC_FLAT;
            return FL_OK;
        }
        if (fl_type_is_nested(v->type))
            return flatten_generic(v, err);
        return flatten_constant(v, err);
    case FL_VEC_DICT:
        if (!v->dict)
            return fl_errorf(err, FL_EINVAL, "vector: dictionary vector without a dictionary");
        if (v->dict->encoding != FL_VEC_FLAT)
            return fl_errorf(err, FL_EINVAL, "vector: dictionary is not flat");
        if (fl_type_is_nested(v->type))
            return flatten_generic(v, err);
        if (v->len && v->cap < v->len)
            return fl_errorf(err, FL_EINVAL, "vector: dictionary vector len exceeds cap");
        if (fl_type_is_varlen(v->type))
            rc = flatten_dict_varlen(v, err);
        else
            rc = flatten_dict_fixed(v, err);
        if (rc)
            return rc;
        drop_dict(v);
        v->encoding = FL_VEC_FLAT;
        return FL_OK;
    }
    return fl_errorf(err, FL_EINVAL, "vector: unknown encoding %d", (int)v->encoding);
}

/* ---- batches ---- */

fl_status fl_batch_init(fl_batch *b, const fl_schema *schema, fl_error *err)
{
    memset(b, 0, sizeof *b);
    b->schema = schema;
    if (schema->nfields == 0)
        return FL_OK;
    b->cols = calloc(schema->nfields, sizeof *b->cols);
    if (!b->cols)
        return fl_errorf(err, FL_ENOMEM, "batch: out of memory");
    b->ncols = schema->nfields;
    for (uint32_t i = 0; i < b->ncols; i++) {
        fl_status rc = fl_vector_init(&b->cols[i], &schema->fields[i].type, err);
        if (rc) {
            fl_batch_destroy(b);
            return fl_error_prefix(err, "column '%s'", schema->fields[i].name);
        }
    }
    return FL_OK;
}

void fl_batch_destroy(fl_batch *b)
{
    if (!b)
        return;
    for (uint32_t i = 0; i < b->ncols; i++)
        fl_vector_destroy(&b->cols[i]);
    free(b->cols);
    free(b->owned_sel.idx);
    memset(b, 0, sizeof *b);
}

void fl_batch_reset(fl_batch *b)
{
    for (uint32_t i = 0; i < b->ncols; i++)
        fl_vector_reset(&b->cols[i]);
    b->nrows = 0;
    b->sel = NULL;
    b->owned_sel.count = 0;
}
