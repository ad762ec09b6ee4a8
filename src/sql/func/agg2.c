/*
 * agg2.c - the heavier aggregates:
 *   count_distinct(x)           exact, hash set of value bytes (state owns it)
 *   approx_count_distinct(x)    HyperLogLog, 2^12 registers (~1.6% error)
 *   stddev/stddev_samp/stddev_pop/variance/var_samp/var_pop
 *                               Welford, combined with Chan's formula; double
 *   percentile_cont(f) / percentile_disc(f) WITHIN GROUP (ORDER BY x)
 *                               exact, all values kept; args = (f, x)
 *   approx_percentile(x, f) / approx_quantile
 *                               merging t-digest (delta 100)
 *   string_agg(x, sep), array_agg(x) (LIST result)
 * ORDER BY inside a call (string_agg(x, ',' ORDER BY y)) is the executor's
 * job: it feeds rows in that order. Ordered-set aggregates take the
 * direct argument first, then the WITHIN GROUP value: update() sees
 * args[0] = fraction (constant per group), args[1] = x.
 *
 * States are a pointer to a malloc'd structure created on first use;
 * destroy() frees it; serialize() writes a self-describing byte image.
 */
#include <math.h>
#include <stdlib.h>
#include <xxhash.h>

#include "sql/func/func_internal.h"

#define FOR_STATES(sel, n, k, r, ...)                                                              \
    do {                                                                                           \
        uint32_t cnt_ = (sel) ? (sel)->count : (n);                                                \
        for (uint32_t k = 0; k < cnt_; k++) {                                                      \
            uint32_t r = (sel) ? (sel)->idx[k] : k;                                                \
            __VA_ARGS__                                                                            \
        }                                                                                          \
    } while (0)

typedef struct ptr_st { void *p; } ptr_st;
static void ptr_init(void *s) { ((ptr_st *)s)->p = NULL; }

/* value bytes of row r (fixed width or var-len) */
static const uint8_t *val_bytes(const fl_unified *u, uint32_t r, size_t *len)
{
    if (fl_type_is_varlen(u->base->type))
        return ubytes(u, r, len);
    size_t w = fl_type_width(u->base->type);
    *len = w;
    return u->base->data + (size_t)fl_unified_row(u, r) * w;
}

/* ---- exact distinct set ---- */
typedef struct dset {
    uint64_t *h;
    uint64_t *off; /* offset into heap, UINT64_MAX = empty */
    uint32_t *len;
    uint32_t cap, count;
    uint8_t *heap;
    size_t heap_len, heap_cap;
} dset;

static void dset_free(dset *d)
{
    if (!d)
        return;
    free(d->h);
    free(d->off);
    free(d->len);
    free(d->heap);
    free(d);
}

static fl_status dset_grow(dset *d, fl_error *err)
{
    uint32_t ncap = d->cap ? d->cap * 2 : 16;
    uint64_t *h = malloc(sizeof(uint64_t) * ncap), *off = malloc(sizeof(uint64_t) * ncap);
    uint32_t *len = malloc(sizeof(uint32_t) * ncap);
    if (!h || !off || !len) {
        free(h), free(off), free(len);
        return fl_errorf(err, FL_ENOMEM, "out of memory in count(DISTINCT)");
    }
    for (uint32_t i = 0; i < ncap; i++)
        off[i] = UINT64_MAX;
    for (uint32_t i = 0; i < d->cap; i++) {
        if (d->off[i] == UINT64_MAX)
            continue;
        uint32_t k = (uint32_t)d->h[i] & (ncap - 1);
        while (off[k] != UINT64_MAX)
            k = (k + 1) & (ncap - 1);
        h[k] = d->h[i], off[k] = d->off[i], len[k] = d->len[i];
    }
    free(d->h), free(d->off), free(d->len);
    d->h = h, d->off = off, d->len = len, d->cap = ncap;
    return FL_OK;
}

static fl_status dset_add(dset *d, const uint8_t *p, size_t n, uint64_t hv, fl_error *err)
{
    if ((d->count + 1) * 4 > d->cap * 3)
        FL_TRY(dset_grow(d, err));
    uint32_t k = (uint32_t)hv & (d->cap - 1);
    while (d->off[k] != UINT64_MAX) {
        if (d->h[k] == hv && d->len[k] == n && memcmp(d->heap + d->off[k], p, n) == 0)
            return FL_OK;
        k = (k + 1) & (d->cap - 1);
    }
    if (n > UINT32_MAX)
        return fl_error_state(err, FL_ELIMIT, "22P02", "count(DISTINCT): value too long");
    if (d->heap_len + n > d->heap_cap) {
        size_t nc = (d->heap_len + n) * 2 + 64;
        uint8_t *nh = realloc(d->heap, nc);
        if (!nh)
            return fl_errorf(err, FL_ENOMEM, "out of memory in count(DISTINCT)");
        d->heap = nh, d->heap_cap = nc;
    }
    if (n)
        memcpy(d->heap + d->heap_len, p, n);
    d->h[k] = hv, d->off[k] = d->heap_len, d->len[k] = (uint32_t)n;
    d->heap_len += n;
    d->count++;
    return FL_OK;
}

static fl_status ensure_dset(ptr_st *s, fl_error *err)
{
    if (!s->p && !(s->p = calloc(1, sizeof(dset))))
        return fl_errorf(err, FL_ENOMEM, "out of memory in count(DISTINCT)");
    return FL_OK;
}

static fl_status cd_update(void *const *st, const fl_vector *const *args, uint32_t na, const fl_sel *sel,
                           uint32_t nrows, fl_error *err)
{
    (void)na;
    fl_unified u;
    fl_vector_unify(args[0], &u);
    FOR_STATES(sel, nrows, k, r, {
        if (!fl_unified_is_valid(&u, r))
            continue;
        ptr_st *s = st[k];
        FL_TRY(ensure_dset(s, err));
        size_t n;
        const uint8_t *p = val_bytes(&u, r, &n);
        FL_TRY(dset_add(s->p, p, n, XXH3_64bits(p, n), err));
    });
    return FL_OK;
}
static fl_status cd_combine(void *dv, const void *sv, fl_error *err)
{
    const dset *b = ((const ptr_st *)sv)->p;
    if (!b)
        return FL_OK;
    FL_TRY(ensure_dset(dv, err));
    for (uint32_t i = 0; i < b->cap; i++)
        if (b->off[i] != UINT64_MAX)
            FL_TRY(dset_add(((ptr_st *)dv)->p, b->heap + b->off[i], b->len[i], b->h[i], err));
    return FL_OK;
}
static fl_status cd_final(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, fl_error *err)
{
    (void)res;
    for (uint32_t i = 0; i < n; i++) {
        const dset *d = ((ptr_st *)st[i])->p;
        int64_t c = d ? d->count : 0;
        FL_TRY(fl_vector_append_fixed(out, &c, err));
    }
    return FL_OK;
}
static void cd_destroy(void *s)
{
    dset_free(((ptr_st *)s)->p);
    ((ptr_st *)s)->p = NULL;
}
/* serialization: u32 count, then (u32 len, bytes)* */
static fl_status cd_ser(const void *sv, uint8_t **buf, size_t *len, fl_error *err)
{
    const dset *d = ((const ptr_st *)sv)->p;
    size_t n = 4 + (d ? d->count * 4 + d->heap_len : 0);
    uint8_t *b = malloc(n);
    if (!b)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t cnt = d ? d->count : 0;
    memcpy(b, &cnt, 4);
    size_t o = 4;
    for (uint32_t i = 0; d && i < d->cap; i++) {
        if (d->off[i] == UINT64_MAX)
            continue;
        memcpy(b + o, &d->len[i], 4);
        memcpy(b + o + 4, d->heap + d->off[i], d->len[i]);
        o += 4 + d->len[i];
    }
    *buf = b;
    *len = o;
    return FL_OK;
}
static fl_status cd_de(void *sv, const uint8_t *buf, size_t len, fl_error *err)
{
    if (len < 4)
        return fl_errorf(err, FL_ECORRUPT, "count(DISTINCT) state truncated");
    uint32_t cnt;
    memcpy(&cnt, buf, 4);
    size_t o = 4;
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t l;
        if (o + 4 > len)
            return fl_errorf(err, FL_ECORRUPT, "count(DISTINCT) state truncated");
        memcpy(&l, buf + o, 4);
        if (l > len - o - 4)
            return fl_errorf(err, FL_ECORRUPT, "count(DISTINCT) state truncated");
        FL_TRY(ensure_dset(sv, err));
        FL_TRY(dset_add(((ptr_st *)sv)->p, buf + o + 4, l, XXH3_64bits(buf + o + 4, l), err));
        o += 4 + l;
    }
    return FL_OK;
}
static const fl_agg_ops count_distinct_ops = {sizeof(ptr_st), 8, ptr_init, cd_update, cd_combine, cd_final,
                                              cd_destroy, cd_ser, cd_de};

/* ---- HyperLogLog ---- */
#define HLL_P 12
#define HLL_M (1u << HLL_P)
static fl_status hll_update(void *const *st, const fl_vector *const *args, uint32_t na, const fl_sel *sel,
                            uint32_t nrows, fl_error *err)
{
    (void)na;
    fl_unified u;
    fl_vector_unify(args[0], &u);
    FOR_STATES(sel, nrows, k, r, {
        if (!fl_unified_is_valid(&u, r))
            continue;
        ptr_st *s = st[k];
        if (!s->p && !(s->p = calloc(1, HLL_M)))
            return fl_errorf(err, FL_ENOMEM, "out of memory in approx_count_distinct");
        size_t n;
        const uint8_t *p = val_bytes(&u, r, &n);
        uint64_t h = XXH3_64bits(p, n);
        uint32_t idx = (uint32_t)(h >> (64 - HLL_P));
        uint64_t rest = h << HLL_P;
        uint8_t rho = rest ? (uint8_t)(__builtin_clzll(rest) + 1) : (uint8_t)(64 - HLL_P + 1);
        uint8_t *regs = s->p;
        if (regs[idx] < rho)
            regs[idx] = rho;
    });
    return FL_OK;
}
static fl_status hll_combine(void *dv, const void *sv, fl_error *err)
{
    const uint8_t *b = ((const ptr_st *)sv)->p;
    if (!b)
        return FL_OK;
    ptr_st *d = dv;
    if (!d->p && !(d->p = calloc(1, HLL_M)))
        return fl_errorf(err, FL_ENOMEM, "out of memory in approx_count_distinct");
    uint8_t *a = d->p;
    for (uint32_t i = 0; i < HLL_M; i++)
        if (a[i] < b[i])
            a[i] = b[i];
    return FL_OK;
}
static int64_t hll_estimate(const uint8_t *regs)
{
    if (!regs)
        return 0;
    double sum = 0;
    uint32_t zeros = 0;
    for (uint32_t i = 0; i < HLL_M; i++) {
        sum += ldexp(1.0, -regs[i]);
        zeros += regs[i] == 0;
    }
    double m = HLL_M, alpha = 0.7213 / (1 + 1.079 / m);
    double e = alpha * m * m / sum;
    if (e <= 2.5 * m && zeros)
        e = m * log(m / zeros);
    return (int64_t)llround(e);
}
static fl_status hll_final(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, fl_error *err)
{
    (void)res;
    for (uint32_t i = 0; i < n; i++) {
        int64_t e = hll_estimate(((ptr_st *)st[i])->p);
        FL_TRY(fl_vector_append_fixed(out, &e, err));
    }
    return FL_OK;
}
static void ptr_destroy(void *s)
{
    free(((ptr_st *)s)->p);
    ((ptr_st *)s)->p = NULL;
}
static fl_status hll_ser(const void *sv, uint8_t **buf, size_t *len, fl_error *err)
{
    const uint8_t *r = ((const ptr_st *)sv)->p;
    *buf = malloc(HLL_M);
    if (!*buf)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (r)
        memcpy(*buf, r, HLL_M);
    else
        memset(*buf, 0, HLL_M);
    *len = HLL_M;
    return FL_OK;
}
static fl_status hll_de(void *sv, const uint8_t *buf, size_t len, fl_error *err)
{
    if (len != HLL_M)
        return fl_errorf(err, FL_ECORRUPT, "HyperLogLog state of %zu bytes, expected %u", len, HLL_M);
    ptr_st *s = sv;
    if (!s->p && !(s->p = malloc(HLL_M)))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    memcpy(s->p, buf, HLL_M);
    return FL_OK;
}
static const fl_agg_ops hll_ops = {sizeof(ptr_st), 8, ptr_init, hll_update, hll_combine, hll_final, ptr_destroy,
                                   hll_ser, hll_de};

/* ---- variance family (Welford / Chan) ---- */
typedef struct wf_st { double n, mean, m2; } wf_st;
static void wf_init(void *s) { memset(s, 0, sizeof(wf_st)); }
static fl_status wf_update(void *const *st, const fl_vector *const *args, uint32_t na, const fl_sel *sel,
                           uint32_t nrows, fl_error *err)
{
    (void)na, (void)err;
    fl_unified u;
    fl_vector_unify(args[0], &u);
    FOR_STATES(sel, nrows, k, r, {
        if (!fl_unified_is_valid(&u, r))
            continue;
        wf_st *s = st[k];
        double x = UV(u, double, r);
        s->n += 1;
        double d = x - s->mean;
        s->mean += d / s->n;
        s->m2 += d * (x - s->mean);
    });
    return FL_OK;
}
static fl_status wf_combine(void *dv, const void *sv, fl_error *err)
{
    (void)err;
    wf_st *a = dv;
    const wf_st *b = sv;
    if (b->n == 0)
        return FL_OK;
    if (a->n == 0) {
        *a = *b;
        return FL_OK;
    }
    double n = a->n + b->n, d = b->mean - a->mean;
    a->m2 += b->m2 + d * d * a->n * b->n / n;
    a->mean += d * b->n / n;
    a->n = n;
    return FL_OK;
}
static fl_status wf_ser(const void *s, uint8_t **b, size_t *l, fl_error *e)
{
    *b = malloc(sizeof(wf_st));
    if (!*b)
        return fl_errorf(e, FL_ENOMEM, "out of memory");
    memcpy(*b, s, sizeof(wf_st));
    *l = sizeof(wf_st);
    return FL_OK;
}
static fl_status wf_de(void *s, const uint8_t *b, size_t l, fl_error *e)
{
    if (l != sizeof(wf_st))
        return fl_errorf(e, FL_ECORRUPT, "variance state of %zu bytes", l);
    memcpy(s, b, l);
    return FL_OK;
}
#define WF_FINAL(name, MINN, EXPR)                                                                 \
    static fl_status name(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, fl_error *err) \
    {                                                                                              \
        (void)res;                                                                                 \
        for (uint32_t i = 0; i < n; i++) {                                                         \
            const wf_st *s = st[i];                                                                \
            if (s->n < MINN) {                                                                     \
                FL_TRY(fl_vector_append_null(out, err));                                           \
                continue;                                                                          \
            }                                                                                      \
            double v = (EXPR);                                                                     \
            FL_TRY(fl_vector_append_fixed(out, &v, err));                                          \
        }                                                                                          \
        return FL_OK;                                                                              \
    }
WF_FINAL(var_samp_final, 2, s->m2 / (s->n - 1))
WF_FINAL(var_pop_final, 1, s->m2 / s->n)
WF_FINAL(sd_samp_final, 2, sqrt(s->m2 / (s->n - 1)))
WF_FINAL(sd_pop_final, 1, sqrt(s->m2 / s->n))
#define WF_OPS(name, fin) static const fl_agg_ops name = {sizeof(wf_st), 8, wf_init, wf_update, wf_combine, fin, NULL, wf_ser, wf_de};
WF_OPS(var_samp_ops, var_samp_final)
WF_OPS(var_pop_ops, var_pop_final)
WF_OPS(sd_samp_ops, sd_samp_final)
WF_OPS(sd_pop_ops, sd_pop_final)

/* ---- exact percentiles: all values as doubles (cont) or 16-byte values (disc) ---- */
typedef struct vals {
    double frac;
    uint32_t n, cap;
    uint8_t *v; /* n * 16 bytes */
} vals;
static fl_status vals_push(ptr_st *s, const void *p, size_t w, double frac, fl_error *err)
{
    vals *v = s->p;
    if (!v) {
        if (!(v = s->p = calloc(1, sizeof(vals))))
            return fl_errorf(err, FL_ENOMEM, "out of memory in percentile");
        v->frac = frac;
    }
    if (v->n == v->cap) {
        uint32_t nc = v->cap ? v->cap * 2 : 64;
        uint8_t *nv = realloc(v->v, (size_t)nc * 16);
        if (!nv)
            return fl_errorf(err, FL_ENOMEM, "out of memory in percentile");
        v->v = nv, v->cap = nc;
    }
    memset(v->v + (size_t)v->n * 16, 0, 16);
    memcpy(v->v + (size_t)v->n * 16, p, w);
    v->n++;
    return FL_OK;
}
static void vals_destroy(void *s)
{
    vals *v = ((ptr_st *)s)->p;
    if (v)
        free(v->v);
    free(v);
    ((ptr_st *)s)->p = NULL;
}
static fl_status pc_update(void *const *st, const fl_vector *const *args, uint32_t na, const fl_sel *sel,
                           uint32_t nrows, fl_error *err)
{
    if (na != 2)
        return fl_errorf(err, FL_EINVAL, "percentile: expected (fraction, value) arguments");
    fl_unified fu, u;
    fl_vector_unify(args[0], &fu);
    fl_vector_unify(args[1], &u);
    FOR_STATES(sel, nrows, k, r, {
        if (!fl_unified_is_valid(&u, r))
            continue;
        double f = fl_unified_is_valid(&fu, r) ? UV(fu, double, r) : NAN;
        if (!(f >= 0 && f <= 1))
            return fl_errorf(err, FL_EINVAL, "percentile value %g is not between 0 and 1", f);
        double x = UV(u, double, r);
        FL_TRY(vals_push(st[k], &x, 8, f, err));
    });
    return FL_OK;
}
static fl_status pd_update(void *const *st, const fl_vector *const *args, uint32_t na, const fl_sel *sel,
                           uint32_t nrows, fl_error *err)
{
    if (na != 2)
        return fl_errorf(err, FL_EINVAL, "percentile: expected (fraction, value) arguments");
    fl_unified fu, u;
    fl_vector_unify(args[0], &fu);
    fl_vector_unify(args[1], &u);
    size_t w = fl_type_width(args[1]->type);
    FOR_STATES(sel, nrows, k, r, {
        if (!fl_unified_is_valid(&u, r))
            continue;
        double f = fl_unified_is_valid(&fu, r) ? UV(fu, double, r) : NAN;
        if (!(f >= 0 && f <= 1))
            return fl_errorf(err, FL_EINVAL, "percentile value %g is not between 0 and 1", f);
        FL_TRY(vals_push(st[k], u.base->data + (size_t)fl_unified_row(&u, r) * w, w, f, err));
    });
    return FL_OK;
}
static fl_status vals_combine(void *dv, const void *sv, fl_error *err)
{
    const vals *b = ((const ptr_st *)sv)->p;
    for (uint32_t i = 0; b && i < b->n; i++)
        FL_TRY(vals_push(dv, b->v + (size_t)i * 16, 16, b->frac, err));
    return FL_OK;
}
static int cmp_dbl(const void *a, const void *b)
{
    double x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    return (x > y) - (x < y);
}
static fl_status pc_final(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, fl_error *err)
{
    (void)res;
    for (uint32_t i = 0; i < n; i++) {
        vals *v = ((ptr_st *)st[i])->p;
        if (!v || !v->n) {
            FL_TRY(fl_vector_append_null(out, err));
            continue;
        }
        qsort(v->v, v->n, 16, cmp_dbl);
        double pos = v->frac * (v->n - 1), lo = floor(pos), hi = ceil(pos), a, b;
        memcpy(&a, v->v + (size_t)lo * 16, 8);
        memcpy(&b, v->v + (size_t)hi * 16, 8);
        double r = a + (b - a) * (pos - lo);
        FL_TRY(fl_vector_append_fixed(out, &r, err));
    }
    return FL_OK;
}
/* disc: values are stored raw; sort with the comparator of the result type */
static int cmp_i32(const void *a, const void *b) { int32_t x, y; memcpy(&x, a, 4); memcpy(&y, b, 4); return (x > y) - (x < y); }
static int cmp_i64(const void *a, const void *b) { int64_t x, y; memcpy(&x, a, 8); memcpy(&y, b, 8); return (x > y) - (x < y); }
static int cmp_i128(const void *a, const void *b) { fl_i128 x, y; memcpy(&x, a, 16); memcpy(&y, b, 16); return (x > y) - (x < y); }
static int cmp_f32(const void *a, const void *b) { float x, y; memcpy(&x, a, 4); memcpy(&y, b, 4); return (x > y) - (x < y); }
static fl_status pd_final(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, fl_error *err)
{
    int (*cmp)(const void *, const void *);
    switch (res->id) {
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: cmp = cmp_i32; break;
    case FL_TYPE_FLOAT32: cmp = cmp_f32; break;
    case FL_TYPE_FLOAT64: cmp = cmp_dbl; break;
    case FL_TYPE_DECIMAL: cmp = cmp_i128; break;
    default: cmp = cmp_i64; break;
    }
    for (uint32_t i = 0; i < n; i++) {
        vals *v = ((ptr_st *)st[i])->p;
        if (!v || !v->n) {
            FL_TRY(fl_vector_append_null(out, err));
            continue;
        }
        qsort(v->v, v->n, 16, cmp);
        /* PostgreSQL: first value whose cumulative fraction >= f */
        double pos = ceil(v->frac * v->n);
        uint32_t idx = pos < 1 ? 0 : (uint32_t)pos - 1;
        if (idx >= v->n)
            idx = v->n - 1;
        FL_TRY(fl_vector_append_fixed(out, v->v + (size_t)idx * 16, err));
    }
    return FL_OK;
}
static fl_status vals_ser(const void *sv, uint8_t **buf, size_t *len, fl_error *err)
{
    const vals *v = ((const ptr_st *)sv)->p;
    uint32_t n = v ? v->n : 0;
    *len = 12 + (size_t)n * 16;
    *buf = malloc(*len);
    if (!*buf)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    double f = v ? v->frac : 0;
    memcpy(*buf, &f, 8);
    memcpy(*buf + 8, &n, 4);
    if (n)
        memcpy(*buf + 12, v->v, (size_t)n * 16);
    return FL_OK;
}
static fl_status vals_de(void *sv, const uint8_t *buf, size_t len, fl_error *err)
{
    if (len < 12)
        return fl_errorf(err, FL_ECORRUPT, "percentile state truncated");
    double f;
    uint32_t n;
    memcpy(&f, buf, 8);
    memcpy(&n, buf + 8, 4);
    if ((len - 12) / 16 != n || (len - 12) % 16)
        return fl_errorf(err, FL_ECORRUPT, "percentile state of %zu bytes for %u values", len, n);
    for (uint32_t i = 0; i < n; i++)
        FL_TRY(vals_push(sv, buf + 12 + (size_t)i * 16, 16, f, err));
    return FL_OK;
}
static const fl_agg_ops pc_ops = {sizeof(ptr_st), 8, ptr_init, pc_update, vals_combine, pc_final, vals_destroy,
                                  vals_ser, vals_de};
static const fl_agg_ops pd_ops = {sizeof(ptr_st), 8, ptr_init, pd_update, vals_combine, pd_final, vals_destroy,
                                  vals_ser, vals_de};

/* ---- t-digest (merging, k1 scale, delta = 100) ---- */
#define TD_DELTA 100.0
#define TD_BUF 512
#define TD_MAXC 256
typedef struct tdig {
    double frac;
    uint32_t nc, nb;
    double cm[TD_MAXC + TD_BUF], cw[TD_MAXC + TD_BUF]; /* centroids then buffered points */
    double total, min, max;
} tdig;
static int cmp_pair(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}
static void td_compress(tdig *t)
{
    uint32_t n = t->nc + t->nb;
    if (t->nb == 0)
        return;
    double(*pairs)[2] = malloc(sizeof(double[2]) * n);
    if (!pairs)
        return; /* keep buffering; caller bounds by TD_BUF */
    for (uint32_t i = 0; i < n; i++)
        pairs[i][0] = t->cm[i], pairs[i][1] = t->cw[i];
    qsort(pairs, n, sizeof pairs[0], cmp_pair);
    double total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += pairs[i][1];
    uint32_t out = 0;
    double cum = 0, m = pairs[0][0], w = pairs[0][1];
    double klimit = TD_DELTA / (2 * M_PI) * asin(2 * 0 - 1) + 1; /* k(q=0) + 1 */
    for (uint32_t i = 1; i < n; i++) {
        double q = (cum + w + pairs[i][1]) / total;
        double k = TD_DELTA / (2 * M_PI) * asin(2 * q - 1);
        if (k <= klimit) {
            m += (pairs[i][0] - m) * pairs[i][1] / (w + pairs[i][1]);
            w += pairs[i][1];
        } else {
            t->cm[out] = m, t->cw[out] = w, out++;
            cum += w;
            klimit = TD_DELTA / (2 * M_PI) * asin(2 * (cum / total) - 1) + 1;
            m = pairs[i][0], w = pairs[i][1];
        }
    }
    t->cm[out] = m, t->cw[out] = w, out++;
    if (out > TD_MAXC)
        out = TD_MAXC; /* k1 with delta 100 yields well under 256 centroids */
    t->nc = out;
    t->nb = 0;
    free(pairs);
}
static fl_status td_add(ptr_st *s, double x, double w, double frac, fl_error *err)
{
    tdig *t = s->p;
    if (!t) {
        if (!(t = s->p = calloc(1, sizeof(tdig))))
            return fl_errorf(err, FL_ENOMEM, "out of memory in approx_percentile");
        t->frac = frac;
        t->min = INFINITY, t->max = -INFINITY;
    }
    if (t->nb == TD_BUF)
        td_compress(t);
    if (t->nb == TD_BUF)
        return fl_errorf(err, FL_ENOMEM, "out of memory in approx_percentile");
    t->cm[t->nc + t->nb] = x;
    t->cw[t->nc + t->nb] = w;
    t->nb++;
    t->total += w;
    if (x < t->min)
        t->min = x;
    if (x > t->max)
        t->max = x;
    return FL_OK;
}
static fl_status td_update(void *const *st, const fl_vector *const *args, uint32_t na, const fl_sel *sel,
                           uint32_t nrows, fl_error *err)
{
    if (na != 2)
        return fl_errorf(err, FL_EINVAL, "approx_percentile: expected (value, fraction)");
    fl_unified u, fu;
    fl_vector_unify(args[0], &u);
    fl_vector_unify(args[1], &fu);
    FOR_STATES(sel, nrows, k, r, {
        if (!fl_unified_is_valid(&u, r))
            continue;
        double f = fl_unified_is_valid(&fu, r) ? UV(fu, double, r) : NAN;
        if (!(f >= 0 && f <= 1))
            return fl_errorf(err, FL_EINVAL, "percentile value %g is not between 0 and 1", f);
        double x = UV(u, double, r);
        if (!isnan(x))
            FL_TRY(td_add(st[k], x, 1, f, err));
    });
    return FL_OK;
}
static fl_status td_combine(void *dv, const void *sv, fl_error *err)
{
    tdig *b = ((const ptr_st *)sv)->p;
    if (!b)
        return FL_OK;
    for (uint32_t i = 0; i < b->nc + b->nb; i++)
        FL_TRY(td_add(dv, b->cm[i], b->cw[i], b->frac, err));
    tdig *a = ((ptr_st *)dv)->p;
    if (b->min < a->min)
        a->min = b->min;
    if (b->max > a->max)
        a->max = b->max;
    return FL_OK;
}
static double td_quantile(tdig *t, double q)
{
    td_compress(t);
    if (t->nc == 0)
        return NAN;
    if (t->nc == 1)
        return t->cm[0];
    double target = q * t->total, cum = 0;
    for (uint32_t i = 0; i < t->nc; i++) {
        double mid = cum + t->cw[i] / 2;
        if (target < mid) {
            if (i == 0) {
                double lo = t->min;
                return lo + (t->cm[0] - lo) * (mid > 0 ? target / mid : 0);
            }
            double pmid = cum - t->cw[i - 1] / 2;
            return t->cm[i - 1] + (t->cm[i] - t->cm[i - 1]) * (target - pmid) / (mid - pmid);
        }
        cum += t->cw[i];
    }
    double lmid = t->total - t->cw[t->nc - 1] / 2;
    double span = t->total - lmid;
    return t->cm[t->nc - 1] + (t->max - t->cm[t->nc - 1]) * (span > 0 ? (target - lmid) / span : 0);
}
static fl_status td_final(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, fl_error *err)
{
    (void)res;
    for (uint32_t i = 0; i < n; i++) {
        tdig *t = ((ptr_st *)st[i])->p;
        if (!t || t->total == 0) {
            FL_TRY(fl_vector_append_null(out, err));
            continue;
        }
        double v = td_quantile(t, t->frac);
        FL_TRY(fl_vector_append_fixed(out, &v, err));
    }
    return FL_OK;
}
static fl_status td_ser(const void *sv, uint8_t **buf, size_t *len, fl_error *err)
{
    tdig *t = ((const ptr_st *)sv)->p;
    if (t)
        td_compress(t);
    uint32_t n = t ? t->nc : 0;
    *len = 36 + (size_t)n * 16;
    *buf = malloc(*len);
    if (!*buf)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    double hdr[4] = {t ? t->frac : 0, t ? t->total : 0, t ? t->min : 0, t ? t->max : 0};
    memcpy(*buf, hdr, 32);
    memcpy(*buf + 32, &n, 4);
    for (uint32_t i = 0; i < n; i++) {
        memcpy(*buf + 36 + (size_t)i * 16, &t->cm[i], 8);
        memcpy(*buf + 44 + (size_t)i * 16, &t->cw[i], 8);
    }
    return FL_OK;
}
static fl_status td_de(void *sv, const uint8_t *buf, size_t len, fl_error *err)
{
    if (len < 36)
        return fl_errorf(err, FL_ECORRUPT, "t-digest state truncated");
    double hdr[4];
    uint32_t n;
    memcpy(hdr, buf, 32);
    memcpy(&n, buf + 32, 4);
    if (n > TD_MAXC || len != 36 + (size_t)n * 16)
        return fl_errorf(err, FL_ECORRUPT, "t-digest state of %zu bytes for %u centroids", len, n);
    for (uint32_t i = 0; i < n; i++) {
        double m, w;
        memcpy(&m, buf + 36 + (size_t)i * 16, 8);
        memcpy(&w, buf + 44 + (size_t)i * 16, 8);
        FL_TRY(td_add(sv, m, w, hdr[0], err));
    }
    tdig *t = ((ptr_st *)sv)->p;
    if (t) {
        t->min = hdr[2] < t->min ? hdr[2] : t->min;
        t->max = hdr[3] > t->max ? hdr[3] : t->max;
    }
    return FL_OK;
}
static const fl_agg_ops td_ops = {sizeof(ptr_st), 8, ptr_init, td_update, td_combine, td_final, ptr_destroy,
                                  td_ser, td_de};

/* ---- string_agg ---- */
typedef struct sbuf_st {
    uint8_t *p;
    size_t len, cap;
} sbuf_st;
static fl_status sb_append(sbuf_st *b, const uint8_t *p, size_t n, fl_error *err)
{
    if (b->len + n > FL_SQL_MAX_VALUE_BYTES) /* the result is one value (limits, issue 14) */
        return fl_errorf(err, FL_ELIMIT,
                         "value too large: an aggregate's result would hold %zu "
                         "bytes (a value may hold at most 1 GB)",
                         b->len + n);
    if (b->len + n > b->cap) {
        size_t nc = (b->len + n) * 2 + 32;
        uint8_t *np = realloc(b->p, nc);
        if (!np)
            return fl_errorf(err, FL_ENOMEM, "out of memory in string_agg");
        b->p = np, b->cap = nc;
    }
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
    return FL_OK;
}
static fl_status sa_update(void *const *st, const fl_vector *const *args, uint32_t na, const fl_sel *sel,
                           uint32_t nrows, fl_error *err)
{
    fl_unified u, su;
    fl_vector_unify(args[0], &u);
    if (na > 1)
        fl_vector_unify(args[1], &su);
    FOR_STATES(sel, nrows, k, r, {
        if (!fl_unified_is_valid(&u, r))
            continue;
        ptr_st *s = st[k];
        bool first = !s->p;
        if (first && !(s->p = calloc(1, sizeof(sbuf_st))))
            return fl_errorf(err, FL_ENOMEM, "out of memory in string_agg");
        if (!first && na > 1 && fl_unified_is_valid(&su, r)) {
            size_t sn;
            const uint8_t *sp = ubytes(&su, r, &sn);
            FL_TRY(sb_append(s->p, sp, sn, err));
        }
        size_t n;
        const uint8_t *p = ubytes(&u, r, &n);
        FL_TRY(sb_append(s->p, p, n, err));
    });
    return FL_OK;
}
static fl_status sa_combine(void *dv, const void *sv, fl_error *err)
{
    /* separators between partial results are not known here: the executor
     * must not split an ordered string_agg; unordered partials join with
     * nothing lost but the separator, so combine is only exact when one side is empty */
    const sbuf_st *b = ((const ptr_st *)sv)->p;
    if (!b)
        return FL_OK;
    ptr_st *d = dv;
    if (!d->p) {
        if (!(d->p = calloc(1, sizeof(sbuf_st))))
            return fl_errorf(err, FL_ENOMEM, "out of memory in string_agg");
        return sb_append(d->p, b->p, b->len, err);
    }
    return fl_errorf(err, FL_EUNSUPPORTED, "string_agg cannot merge two partial results (run it without partial aggregation)");
}
static fl_status sa_final(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, fl_error *err)
{
    (void)res;
    for (uint32_t i = 0; i < n; i++) {
        const sbuf_st *b = ((ptr_st *)st[i])->p;
        if (!b)
            FL_TRY(fl_vector_append_null(out, err));
        else
            FL_TRY(fl_vector_append_bytes(out, b->p, b->len, err));
    }
    return FL_OK;
}
static void sa_destroy(void *s)
{
    sbuf_st *b = ((ptr_st *)s)->p;
    if (b)
        free(b->p);
    free(b);
    ((ptr_st *)s)->p = NULL;
}
static fl_status sa_ser(const void *sv, uint8_t **buf, size_t *len, fl_error *err)
{
    const sbuf_st *b = ((const ptr_st *)sv)->p;
    *len = 1 + (b ? b->len : 0);
    *buf = malloc(*len);
    if (!*buf)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    (*buf)[0] = b != NULL;
    if (b && b->len)
        memcpy(*buf + 1, b->p, b->len);
    return FL_OK;
}
static fl_status sa_de(void *sv, const uint8_t *buf, size_t len, fl_error *err)
{
    if (len < 1)
        return fl_errorf(err, FL_ECORRUPT, "string_agg state truncated");
    if (!buf[0])
        return FL_OK;
    ptr_st *s = sv;
    if (!s->p && !(s->p = calloc(1, sizeof(sbuf_st))))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return sb_append(s->p, buf + 1, len - 1, err);
}
static const fl_agg_ops sa_ops = {sizeof(ptr_st), 8, ptr_init, sa_update, sa_combine, sa_final, sa_destroy,
                                  sa_ser, sa_de};

/* ---- array_agg: elements kept as (valid, bytes) records ---- */
static fl_status aa_update(void *const *st, const fl_vector *const *args, uint32_t na, const fl_sel *sel,
                           uint32_t nrows, fl_error *err)
{
    (void)na;
    fl_unified u;
    fl_vector_unify(args[0], &u);
    FOR_STATES(sel, nrows, k, r, {
        ptr_st *s = st[k];
        if (!s->p && !(s->p = calloc(1, sizeof(sbuf_st))))
            return fl_errorf(err, FL_ENOMEM, "out of memory in array_agg");
        uint8_t hdr[5] = {0};
        size_t n = 0;
        const uint8_t *p = NULL;
        if (fl_unified_is_valid(&u, r)) {
            p = val_bytes(&u, r, &n);
            hdr[0] = 1;
        }
        if (n > UINT32_MAX)
            return fl_errorf(err, FL_ELIMIT, "array_agg: element too long");
        uint32_t l = (uint32_t)n;
        memcpy(hdr + 1, &l, 4);
        FL_TRY(sb_append(s->p, hdr, 5, err));
        FL_TRY(sb_append(s->p, p, n, err));
    });
    return FL_OK;
}
static fl_status aa_combine(void *dv, const void *sv, fl_error *err)
{
    const sbuf_st *b = ((const ptr_st *)sv)->p;
    if (!b)
        return FL_OK;
    ptr_st *d = dv;
    if (!d->p && !(d->p = calloc(1, sizeof(sbuf_st))))
        return fl_errorf(err, FL_ENOMEM, "out of memory in array_agg");
    return sb_append(d->p, b->p, b->len, err);
}
static fl_status aa_final(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, fl_error *err)
{
    (void)res;
    fl_vector *child = &out->children[0];
    for (uint32_t i = 0; i < n; i++) {
        const sbuf_st *b = ((ptr_st *)st[i])->p;
        if (!b) {
            FL_TRY(fl_vector_append_null(out, err));
            continue;
        }
        size_t o = 0;
        while (o + 5 <= b->len) {
            uint32_t l;
            memcpy(&l, b->p + o + 1, 4);
            if (!b->p[o])
                FL_TRY(fl_vector_append_null(child, err));
            else if (fl_type_is_varlen(child->type))
                FL_TRY(fl_vector_append_bytes(child, b->p + o + 5, l, err));
            else
                FL_TRY(fl_vector_append_fixed(child, b->p + o + 5, err));
            o += 5 + l;
        }
        FL_TRY(fl_vector_append_nested(out, child->len, err));
    }
    return FL_OK;
}
static const fl_agg_ops aa_ops = {sizeof(ptr_st), 8, ptr_init, aa_update, aa_combine, aa_final, sa_destroy,
                                  sa_ser, sa_de};

/* static element fields for LIST result types (types must outlive every plan) */
#define EL(id_) {.name = "element", .field_id = 0, .nullable = true, .type = {.id = id_}}
static const fl_field list_elems[] = {
    EL(FL_TYPE_BOOLEAN), EL(FL_TYPE_INT32),  EL(FL_TYPE_INT64),       EL(FL_TYPE_FLOAT32),
    EL(FL_TYPE_FLOAT64), EL(FL_TYPE_DATE),   EL(FL_TYPE_TIME),        EL(FL_TYPE_TIMESTAMP),
    EL(FL_TYPE_TIMESTAMPTZ), EL(FL_TYPE_TIMESTAMP_NS), EL(FL_TYPE_TIMESTAMPTZ_NS), EL(FL_TYPE_STRING),
    {.name = "element", .nullable = true, .type = {.id = FL_TYPE_UUID, .fixed_len = 16}},
    EL(FL_TYPE_BINARY),
};
#define DEC(s) {.name = "element", .nullable = true, .type = {.id = FL_TYPE_DECIMAL, .precision = 38, .scale = s}}
static const fl_field dec_elems[39] = {
    DEC(0),  DEC(1),  DEC(2),  DEC(3),  DEC(4),  DEC(5),  DEC(6),  DEC(7),  DEC(8),  DEC(9),
    DEC(10), DEC(11), DEC(12), DEC(13), DEC(14), DEC(15), DEC(16), DEC(17), DEC(18), DEC(19),
    DEC(20), DEC(21), DEC(22), DEC(23), DEC(24), DEC(25), DEC(26), DEC(27), DEC(28), DEC(29),
    DEC(30), DEC(31), DEC(32), DEC(33), DEC(34), DEC(35), DEC(36), DEC(37), DEC(38)};

static bool r_array_agg(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || fl_type_is_nested(&a[0]))
        return false;
    fl_type t = fl_is_unknown(&a[0]) ? fl_mk(FL_TYPE_STRING) : a[0];
    const fl_field *f = NULL;
    if (t.id == FL_TYPE_DECIMAL) {
        f = &dec_elems[t.scale];
        t = f->type;
    } else {
        for (size_t i = 0; i < sizeof list_elems / sizeof list_elems[0]; i++)
            if (list_elems[i].type.id == t.id)
                f = &list_elems[i];
        if (!f)
            return false;
    }
    at[0] = t;
    memset(r, 0, sizeof *r);
    r->id = FL_TYPE_LIST;
    r->nchildren = 1;
    r->children = (fl_field *)f; /* static, never written */
    return true;
}
static const fl_agg_ops *f_array_agg(const fl_type *a, uint32_t n, const fl_type *r)
{
    (void)a, (void)n, (void)r;
    return &aa_ops;
}

/* ---- resolution ---- */
static bool r_count_distinct(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || fl_type_is_nested(&a[0]))
        return false;
    at[0] = fl_is_unknown(&a[0]) ? fl_mk(FL_TYPE_STRING) : a[0];
    if (at[0].id == FL_TYPE_FLOAT32 || at[0].id == FL_TYPE_FLOAT64)
        at[0] = fl_mk(FL_TYPE_FLOAT64);
    *r = fl_mk(FL_TYPE_INT64);
    return true;
}
static const fl_agg_ops *f_count_distinct(const fl_type *a, uint32_t n, const fl_type *r)
{
    (void)a, (void)n, (void)r;
    return &count_distinct_ops;
}
static const fl_agg_ops *f_hll(const fl_type *a, uint32_t n, const fl_type *r)
{
    (void)a, (void)n, (void)r;
    return &hll_ops;
}
static bool r_var(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !(fl_is_numeric(&a[0]) || fl_is_unknown(&a[0])))
        return false;
    at[0] = *r = fl_mk(FL_TYPE_FLOAT64);
    return true;
}
static const fl_agg_ops *f_var_samp(const fl_type *a, uint32_t n, const fl_type *r) { (void)a, (void)n, (void)r; return &var_samp_ops; }
static const fl_agg_ops *f_var_pop(const fl_type *a, uint32_t n, const fl_type *r) { (void)a, (void)n, (void)r; return &var_pop_ops; }
static const fl_agg_ops *f_sd_samp(const fl_type *a, uint32_t n, const fl_type *r) { (void)a, (void)n, (void)r; return &sd_samp_ops; }
static const fl_agg_ops *f_sd_pop(const fl_type *a, uint32_t n, const fl_type *r) { (void)a, (void)n, (void)r; return &sd_pop_ops; }

static bool r_pct_cont(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !(fl_is_numeric(&a[0]) || fl_is_unknown(&a[0])) || !(fl_is_numeric(&a[1]) || fl_is_unknown(&a[1])))
        return false;
    at[0] = at[1] = *r = fl_mk(FL_TYPE_FLOAT64);
    return true;
}
static bool r_pct_disc(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !(fl_is_numeric(&a[0]) || fl_is_unknown(&a[0])))
        return false;
    const fl_type *t = &a[1];
    if (!(fl_is_numeric(t) || fl_is_temporal(t)))
        return false;
    at[0] = fl_mk(FL_TYPE_FLOAT64);
    at[1] = *r = *t;
    return true;
}
static const fl_agg_ops *f_pct_cont(const fl_type *a, uint32_t n, const fl_type *r) { (void)a, (void)n, (void)r; return &pc_ops; }
static const fl_agg_ops *f_pct_disc(const fl_type *a, uint32_t n, const fl_type *r) { (void)a, (void)n, (void)r; return &pd_ops; }
static bool r_approx_pct(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !(fl_is_numeric(&a[0])) || !(fl_is_numeric(&a[1]) || fl_is_unknown(&a[1])))
        return false;
    at[0] = at[1] = *r = fl_mk(FL_TYPE_FLOAT64);
    return true;
}
static const fl_agg_ops *f_td(const fl_type *a, uint32_t n, const fl_type *r) { (void)a, (void)n, (void)r; return &td_ops; }
static bool r_string_agg(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n < 1 || n > 2 || !fl_is_string(&a[0]) || (n == 2 && !fl_is_string(&a[1])))
        return false;
    at[0] = fl_mk(FL_TYPE_STRING);
    if (n == 2)
        at[1] = fl_mk(FL_TYPE_STRING);
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}
static const fl_agg_ops *f_sa(const fl_type *a, uint32_t n, const fl_type *r) { (void)a, (void)n, (void)r; return &sa_ops; }

#define AGG(nm, r, f) {.name = nm, .kind = FL_FUNC_AGGREGATE, .deterministic = true, .resolve = r, .agg_for = f}
static const fl_func funcs[] = {
    AGG("count_distinct", r_count_distinct, f_count_distinct),
    AGG("approx_count_distinct", r_count_distinct, f_hll),
    AGG("approx_distinct", r_count_distinct, f_hll),
    AGG("stddev", r_var, f_sd_samp),
    AGG("stddev_samp", r_var, f_sd_samp),
    AGG("stddev_pop", r_var, f_sd_pop),
    AGG("variance", r_var, f_var_samp),
    AGG("var_samp", r_var, f_var_samp),
    AGG("var_pop", r_var, f_var_pop),
    AGG("percentile_cont", r_pct_cont, f_pct_cont),
    AGG("percentile_disc", r_pct_disc, f_pct_disc),
    AGG("approx_percentile", r_approx_pct, f_td),
    AGG("approx_quantile", r_approx_pct, f_td),
    AGG("string_agg", r_string_agg, f_sa),
    AGG("listagg", r_string_agg, f_sa),
    AGG("array_agg", r_array_agg, f_array_agg),
};
const fl_func_table fl_funcs_agg2 = {funcs, sizeof funcs / sizeof funcs[0]};
