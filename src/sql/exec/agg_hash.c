/*
 * agg_hash.c - group-key hashing for the aggregation core (agg_hash.h).
 *
 * Why not ex_hash_vec: that one dispatches per row on the type for every
 * key but a flat null-free 8-byte column, and hashes a dictionary-encoded
 * string key (l_returnflag: 3 distinct values) with XXH3 on every row. Here
 * each key column gets a typed loop, and a DICT vector whose dictionary is
 * not larger than the rows hashed has each entry hashed once, then gathered
 * through the index map.
 *
 * Values: fixed-width integers and dates/timestamps are mixed with the
 * murmur3 64-bit finalizer; floats are normalized first (-0.0 as 0.0, every
 * NaN alike: they group together); DECIMAL/UUID mix both halves; strings,
 * binaries and other fixed-width values use XXH3-64. NULL has its own
 * constant. Keys combine left to right. Every hash the aggregate compares
 * or partitions by comes from here, so only self-consistency matters.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "sql/exec/agg_hash.h"
#include "floe/types.h"

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

void agg_hash_scratch_free(agg_hash_scratch *s)
{
    free(s->h);
    s->h = NULL;
    s->cap = 0;
}

static inline uint64_t hash_double(double d)
{
    if (d == 0)
        d = 0;
    if (isnan(d))
        return mix64(0x7ff8000000000000ull);
    uint64_t u;
    memcpy(&u, &d, 8);
    return mix64(u);
}

/* Hash of row r (valid) of the FLAT vector b of type t. */
static uint64_t hash_value(const fl_vector *b, uint32_t r, const fl_type *t)
{
    if (fl_type_is_varlen(t)) {
        size_t len;
        const uint8_t *p = fl_vector_bytes(b, r, &len);
        return XXH3_64bits(p, len);
    }
    size_t w = fl_type_width(t);
    const uint8_t *p = b->data + (size_t)r * w;
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
        return hash_double(f);
    }
    case FL_TYPE_FLOAT64: {
        double d;
        memcpy(&d, p, 8);
        return hash_double(d);
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
        uint64_t a, c;
        memcpy(&a, p, 8);
        memcpy(&c, p + 8, 8);
        return combine(mix64(a), c);
    }
    default: return XXH3_64bits(p, w);
    }
}

#define STORE(row, hv)                                                                             \
    do {                                                                                           \
        uint64_t v_ = (hv);                                                                        \
        h[row] = first ? v_ : combine(h[row], v_);                                                 \
    } while (0)

#define EACH_ROW(row, ...)                                                                         \
    do {                                                                                           \
        for (uint32_t k_ = 0; k_ < cnt; k_++) {                                                    \
            uint32_t row = sel ? sel->idx[k_] : k_;                                                \
            __VA_ARGS__                                                                            \
        }                                                                                          \
    } while (0)

static fl_status hash_dict(const fl_unified *u, const fl_type *t, const fl_sel *sel, uint32_t cnt, uint64_t *h,
                           bool first, agg_hash_scratch *sc, fl_error *err)
{
    const fl_vector *b = u->base;
    if (sc->cap < b->len) {
        uint64_t *p = realloc(sc->h, (size_t)b->len * sizeof *p);
        if (!p)
            return fl_errorf(err, FL_ENOMEM, "aggregate: out of memory hashing a dictionary of %u keys", b->len);
        sc->h = p;
        sc->cap = b->len;
    }
    for (uint32_t j = 0; j < b->len; j++)
        sc->h[j] = fl_vector_is_valid(b, j) ? hash_value(b, j, t) : NULL_HASH;
    const uint64_t *dh = sc->h;
    const uint32_t *idx = u->idx;
    if (u->validity)
        EACH_ROW(row, { STORE(row, fl_bitmap_get(u->validity, row) ? dh[idx[row]] : NULL_HASH); });
    else
        EACH_ROW(row, { STORE(row, dh[idx[row]]); });
    return FL_OK;
}

static fl_status hash_col(const fl_vector *v, const fl_sel *sel, uint32_t nrows, uint64_t *h, bool first,
                          agg_hash_scratch *sc, fl_error *err)
{
    const fl_type *t = v->type;
    if (fl_type_is_nested(t))
        return fl_errorf(err, FL_EUNSUPPORTED, "grouping on nested values");
    fl_unified u;
    fl_vector_unify(v, &u);
    if (!u.base)
        return fl_errorf(err, FL_EINVAL, "dictionary vector without a dictionary");
    uint32_t cnt = sel ? sel->count : nrows;
    if (u.constant) {
        uint64_t hv = fl_unified_is_valid(&u, 0) ? hash_value(u.base, 0, t) : NULL_HASH;
        EACH_ROW(row, { STORE(row, hv); });
        return FL_OK;
    }
    if (u.idx && sc && u.base->len <= cnt)
        return hash_dict(&u, t, sel, cnt, h, first, sc, err);
    bool nulls = u.validity || u.base->validity;
    const uint32_t *idx = u.idx;
    const uint8_t *d = u.base->data;
    if (!nulls) {
        switch (t->id) {
        case FL_TYPE_INT32:
        case FL_TYPE_DATE:
            EACH_ROW(row, {
                int32_t x;
                memcpy(&x, d + (size_t)(idx ? idx[row] : row) * 4, 4);
                STORE(row, mix64((uint64_t)(int64_t)x));
            });
            return FL_OK;
        case FL_TYPE_INT64:
        case FL_TYPE_TIME:
        case FL_TYPE_TIMESTAMP:
        case FL_TYPE_TIMESTAMPTZ:
        case FL_TYPE_TIMESTAMP_NS:
        case FL_TYPE_TIMESTAMPTZ_NS:
            EACH_ROW(row, {
                uint64_t x;
                memcpy(&x, d + (size_t)(idx ? idx[row] : row) * 8, 8);
                STORE(row, mix64(x));
            });
            return FL_OK;
        case FL_TYPE_STRING:
        case FL_TYPE_BINARY: {
            const int64_t *off = u.base->offsets;
            const uint8_t *heap = u.base->heap;
            EACH_ROW(row, {
                uint32_t r = idx ? idx[row] : row;
                STORE(row, XXH3_64bits(heap + off[r], (size_t)(off[r + 1] - off[r])));
            });
            return FL_OK;
        }
        default: break;
        }
    }
    EACH_ROW(row, {
        STORE(row, fl_unified_is_valid(&u, row) ? hash_value(u.base, fl_unified_row(&u, row), t) : NULL_HASH);
    });
    return FL_OK;
}

fl_status agg_hash_keys(const fl_vector *const *kv, uint32_t nk, const fl_sel *sel, uint32_t nrows,
                        uint64_t *h, agg_hash_scratch *sc, fl_error *err)
{
    if (nk == 0) {
        uint32_t cnt = sel ? sel->count : nrows;
        for (uint32_t i = 0; i < cnt; i++)
            h[sel ? sel->idx[i] : i] = 0;
        return FL_OK;
    }
    for (uint32_t k = 0; k < nk; k++)
        FL_TRY(hash_col(kv[k], sel, nrows, h, k == 0, sc, err));
    return FL_OK;
}
