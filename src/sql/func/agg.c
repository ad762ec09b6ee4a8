/*
 * agg.c - the basic aggregates: count, sum, avg, min, max, bool_and,
 * bool_or/every, any_value/arbitrary. Result types follow PostgreSQL:
 *   count -> bigint; sum(int) -> bigint; sum(bigint) -> numeric(38,0);
 *   sum(numeric(p,s)) -> numeric(38,s); sum(real/double) -> double;
 *   avg(int/bigint) -> numeric(38,16); avg(numeric(p,s)) -> numeric(38,
 *   max(s,16)) (PostgreSQL shows at least 16 significant digits for values
 *   of ordinary magnitude; we fix the scale at 16 so the type is static);
 *   avg(float) -> double; min/max keep the argument type.
 * Sums are exact (128-bit) and overflow is an error (22003).
 *
 * States are plain structs (serialize = memcpy) except min/max over
 * strings, which own a malloc'd copy of the current extreme (destroy frees).
 */
#include <math.h>
#include <stdlib.h>

#include "sql/func/func_internal.h"

#define STATE_I(k, sel) ((sel) ? (sel)->idx[k] : (k))

/* Iterates selected rows: k = position (state index), r = row. */
#define FOR_STATES(sel, n, k, r, ...)                                                              \
    do {                                                                                           \
        uint32_t cnt_ = (sel) ? (sel)->count : (n);                                                \
        for (uint32_t k = 0; k < cnt_; k++) {                                                      \
            uint32_t r = (sel) ? (sel)->idx[k] : k;                                                \
            __VA_ARGS__                                                                            \
        }                                                                                          \
    } while (0)

static fl_status pod_ser(const void *state, size_t size, uint8_t **buf, size_t *len, fl_error *err)
{
    *buf = malloc(size);
    if (!*buf)
        return fl_errorf(err, FL_ENOMEM, "out of memory serializing an aggregate state");
    memcpy(*buf, state, size);
    *len = size;
    return FL_OK;
}
static fl_status pod_de(void *state, size_t size, const uint8_t *buf, size_t len, fl_error *err)
{
    if (len != size)
        return fl_errorf(err, FL_ECORRUPT, "aggregate state of %zu bytes, expected %zu", len, size);
    memcpy(state, buf, size);
    return FL_OK;
}
#define POD_SERDE(name, T)                                                                         \
    static fl_status name##_ser(const void *s, uint8_t **b, size_t *l, fl_error *e)                \
    {                                                                                              \
        return pod_ser(s, sizeof(T), b, l, e);                                                     \
    }                                                                                              \
    static fl_status name##_de(void *s, const uint8_t *b, size_t l, fl_error *e)                   \
    {                                                                                              \
        return pod_de(s, sizeof(T), b, l, e);                                                      \
    }

static fl_status ovf(fl_error *err, const char *what)
{
    return fl_error_state(err, FL_EOVERFLOW, "22003", "%s out of range", what);
}

/* ---- count ---- */
typedef struct { int64_t n; } cnt_st;
static void cnt_init(void *s) { ((cnt_st *)s)->n = 0; }
static fl_status cnt_star_update(void *const *st, const fl_vector *const *args, uint32_t nargs, const fl_sel *sel,
                                 uint32_t nrows, fl_error *err)
{
    (void)args, (void)nargs, (void)err;
    FOR_STATES(sel, nrows, k, r, { (void)r; ((cnt_st *)st[k])->n++; });
    return FL_OK;
}
static fl_status cnt_update(void *const *st, const fl_vector *const *args, uint32_t nargs, const fl_sel *sel,
                            uint32_t nrows, fl_error *err)
{
    (void)nargs, (void)err;
    fl_unified u;
    fl_vector_unify(args[0], &u);
    if (!u.validity && !u.base->validity)
        FOR_STATES(sel, nrows, k, r, { (void)r; ((cnt_st *)st[k])->n++; });
    else
        FOR_STATES(sel, nrows, k, r, { ((cnt_st *)st[k])->n += fl_unified_is_valid(&u, r); });
    return FL_OK;
}
static fl_status cnt_combine(void *d, const void *s, fl_error *err)
{
    (void)err;
    ((cnt_st *)d)->n += ((const cnt_st *)s)->n;
    return FL_OK;
}
static fl_status cnt_final(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, fl_error *err)
{
    (void)res;
    for (uint32_t i = 0; i < n; i++)
        FL_TRY(fl_vector_append_fixed(out, &((cnt_st *)st[i])->n, err));
    return FL_OK;
}
POD_SERDE(cnt, cnt_st)
static const fl_agg_ops count_star_ops = {sizeof(cnt_st), 8, cnt_init, cnt_star_update, cnt_combine, cnt_final,
                                          NULL, cnt_ser, cnt_de};
static const fl_agg_ops count_ops = {sizeof(cnt_st), 8, cnt_init, cnt_update, cnt_combine, cnt_final,
                                     NULL, cnt_ser, cnt_de};

/* ---- sum / avg with exact 128-bit accumulators ---- */
typedef struct { fl_i128 sum; int64_t n; } isum_st; /* n = rows summed */
static void isum_init(void *s) { memset(s, 0, sizeof(isum_st)); }

#define ISUM_UPDATE(name, T)                                                                       \
    static fl_status name(void *const *st, const fl_vector *const *args, uint32_t nargs,           \
                          const fl_sel *sel, uint32_t nrows, fl_error *err)                        \
    {                                                                                              \
        (void)nargs;                                                                               \
        fl_unified u;                                                                              \
        fl_vector_unify(args[0], &u);                                                              \
        bool nulls = u.validity || u.base->validity;                                               \
        FOR_STATES(sel, nrows, k, r, {                                                             \
            if (nulls && !fl_unified_is_valid(&u, r))                                              \
                continue;                                                                          \
            isum_st *s = st[k];                                                                    \
            if (__builtin_add_overflow(s->sum, (fl_i128)UV(u, T, r), &s->sum))                     \
                return ovf(err, "sum");                                                            \
            s->n++;                                                                                \
        });                                                                                        \
        return FL_OK;                                                                              \
    }
ISUM_UPDATE(isum_update_i32, int32_t)
ISUM_UPDATE(isum_update_i64, int64_t)
ISUM_UPDATE(isum_update_dec_generic, fl_i128)

/* Decimal sum over a FLAT column without NULLs (the common case: a scanned
 * column or an arithmetic result): one 16-byte load and a 128-bit add with
 * overflow check per row, no per-row encoding or validity tests. */
static fl_status isum_update_dec(void *const *st, const fl_vector *const *args, uint32_t nargs, const fl_sel *sel,
                                 uint32_t nrows, fl_error *err)
{
    const fl_vector *v = args[0];
    if (v->encoding != FL_VEC_FLAT || v->validity)
        return isum_update_dec_generic(st, args, nargs, sel, nrows, err);
    const uint8_t *d = v->data;
    FOR_STATES(sel, nrows, k, r, {
        isum_st *s = st[k];
        fl_i128 x;
        memcpy(&x, d + (size_t)r * 16, 16);
        if (__builtin_add_overflow(s->sum, x, &s->sum))
            return ovf(err, "sum");
        s->n++;
    });
    return FL_OK;
}

static fl_status isum_combine(void *d, const void *s, fl_error *err)
{
    isum_st *a = d;
    const isum_st *b = s;
    if (__builtin_add_overflow(a->sum, b->sum, &a->sum))
        return ovf(err, "sum");
    a->n += b->n;
    return FL_OK;
}
POD_SERDE(isum, isum_st)

/* sum_final when no state is empty and out is FLAT without NULLs: values
 * written in place after one reserve (millions of groups in TPC-H Q18). */
static fl_status sum_final_bulk(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, fl_error *err)
{
    FL_TRY(fl_vector_reserve(out, out->len + n, err));
    if (res->id == FL_TYPE_INT64) {
        int64_t *o = (int64_t *)(void *)out->data + out->len;
        for (uint32_t i = 0; i < n; i++) {
            const isum_st *s = st[i];
            if (s->sum > INT64_MAX || s->sum < INT64_MIN)
                return ovf(err, "bigint");
            o[i] = (int64_t)s->sum;
        }
    } else {
        uint8_t *o = out->data + (size_t)out->len * 16;
        for (uint32_t i = 0; i < n; i++) {
            const isum_st *s = st[i];
            if (!dec_fits(s->sum, res->precision))
                return ovf(err, "numeric sum");
            memcpy(o + (size_t)i * 16, &s->sum, 16);
        }
    }
    out->len += n;
    return FL_OK;
}

static fl_status sum_final(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, fl_error *err)
{
    bool empty = false;
    for (uint32_t i = 0; i < n && !empty; i++)
        empty = ((const isum_st *)st[i])->n == 0;
    if (!empty && out->encoding == FL_VEC_FLAT && !out->validity &&
        (res->id == FL_TYPE_INT64 || res->id == FL_TYPE_DECIMAL))
        return sum_final_bulk(st, n, res, out, err);
    for (uint32_t i = 0; i < n; i++) {
        const isum_st *s = st[i];
        if (!s->n) {
            FL_TRY(fl_vector_append_null(out, err));
            continue;
        }
        if (res->id == FL_TYPE_INT64) {
            if (s->sum > INT64_MAX || s->sum < INT64_MIN)
                return ovf(err, "bigint");
            int64_t v = (int64_t)s->sum;
            FL_TRY(fl_vector_append_fixed(out, &v, err));
        } else {
            if (!dec_fits(s->sum, res->precision))
                return ovf(err, "numeric sum");
            FL_TRY(fl_vector_append_fixed(out, &s->sum, err));
        }
    }
    return FL_OK;
}

/* avg: unscaled sum at scale in_scale -> result at res->scale */
static fl_status avg_final_scaled(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, int32_t in_scale,
                                  fl_error *err)
{
    for (uint32_t i = 0; i < n; i++) {
        const isum_st *s = st[i];
        if (!s->n) {
            FL_TRY(fl_vector_append_null(out, err));
            continue;
        }
        fl_i128 num;
        int32_t k = res->scale - in_scale;
        if (!dec_rescale(s->sum, k, &num)) {
            /* too large to scale up: divide first, then scale the rounded quotient */
            fl_i128 q = s->sum / s->n, rem = s->sum % s->n;
            fl_i128 frac;
            if (!dec_rescale(q, k, &num) || !dec_rescale(rem, k, &frac))
                return ovf(err, "avg");
            num += dec_div_round(frac, s->n);
            if (!dec_fits(num, res->precision))
                return ovf(err, "avg");
            FL_TRY(fl_vector_append_fixed(out, &num, err));
            continue;
        }
        fl_i128 v = dec_div_round(num, s->n);
        FL_TRY(fl_vector_append_fixed(out, &v, err));
    }
    return FL_OK;
}
static fl_status avg_final_int(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, fl_error *err)
{
    return avg_final_scaled(st, n, res, out, 0, err);
}
/* decimal avg needs the input scale: res->scale = max(s,16) and the input
 * scale is carried in the ops variant below (one per input scale 0..38). */
#define AVG_DEC_FINAL(S)                                                                           \
    static fl_status avg_final_dec##S(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, \
                                      fl_error *err)                                               \
    {                                                                                              \
        return avg_final_scaled(st, n, res, out, S, err);                                          \
    }
AVG_DEC_FINAL(0) AVG_DEC_FINAL(1) AVG_DEC_FINAL(2) AVG_DEC_FINAL(3) AVG_DEC_FINAL(4) AVG_DEC_FINAL(5)
AVG_DEC_FINAL(6) AVG_DEC_FINAL(7) AVG_DEC_FINAL(8) AVG_DEC_FINAL(9) AVG_DEC_FINAL(10) AVG_DEC_FINAL(11)
AVG_DEC_FINAL(12) AVG_DEC_FINAL(13) AVG_DEC_FINAL(14) AVG_DEC_FINAL(15) AVG_DEC_FINAL(16) AVG_DEC_FINAL(17)
AVG_DEC_FINAL(18) AVG_DEC_FINAL(19) AVG_DEC_FINAL(20) AVG_DEC_FINAL(21) AVG_DEC_FINAL(22) AVG_DEC_FINAL(23)
AVG_DEC_FINAL(24) AVG_DEC_FINAL(25) AVG_DEC_FINAL(26) AVG_DEC_FINAL(27) AVG_DEC_FINAL(28) AVG_DEC_FINAL(29)
AVG_DEC_FINAL(30) AVG_DEC_FINAL(31) AVG_DEC_FINAL(32) AVG_DEC_FINAL(33) AVG_DEC_FINAL(34) AVG_DEC_FINAL(35)
AVG_DEC_FINAL(36) AVG_DEC_FINAL(37) AVG_DEC_FINAL(38)

#define AVGD(S)                                                                                    \
    {sizeof(isum_st), 16, isum_init, isum_update_dec, isum_combine, avg_final_dec##S, NULL, isum_ser, isum_de}
static const fl_agg_ops avg_dec_ops[39] = {
    AVGD(0),  AVGD(1),  AVGD(2),  AVGD(3),  AVGD(4),  AVGD(5),  AVGD(6),  AVGD(7),  AVGD(8),  AVGD(9),
    AVGD(10), AVGD(11), AVGD(12), AVGD(13), AVGD(14), AVGD(15), AVGD(16), AVGD(17), AVGD(18), AVGD(19),
    AVGD(20), AVGD(21), AVGD(22), AVGD(23), AVGD(24), AVGD(25), AVGD(26), AVGD(27), AVGD(28), AVGD(29),
    AVGD(30), AVGD(31), AVGD(32), AVGD(33), AVGD(34), AVGD(35), AVGD(36), AVGD(37), AVGD(38)};

static const fl_agg_ops sum_i32_ops = {sizeof(isum_st), 16, isum_init, isum_update_i32, isum_combine, sum_final,
                                       NULL, isum_ser, isum_de};
static const fl_agg_ops sum_i64_ops = {sizeof(isum_st), 16, isum_init, isum_update_i64, isum_combine, sum_final,
                                       NULL, isum_ser, isum_de};
static const fl_agg_ops sum_dec_ops = {sizeof(isum_st), 16, isum_init, isum_update_dec, isum_combine, sum_final,
                                       NULL, isum_ser, isum_de};
static const fl_agg_ops avg_i32_ops = {sizeof(isum_st), 16, isum_init, isum_update_i32, isum_combine, avg_final_int,
                                       NULL, isum_ser, isum_de};
static const fl_agg_ops avg_i64_ops = {sizeof(isum_st), 16, isum_init, isum_update_i64, isum_combine, avg_final_int,
                                       NULL, isum_ser, isum_de};

/* float sum/avg (Kahan-compensated) */
typedef struct { double sum, c; int64_t n; } fsum_st;
static void fsum_init(void *s) { memset(s, 0, sizeof(fsum_st)); }
static inline void kahan(fsum_st *s, double x)
{
    double y = x - s->c, t = s->sum + y;
    s->c = (t - s->sum) - y;
    s->sum = t;
}
#define FSUM_UPDATE(name, T)                                                                       \
    static fl_status name(void *const *st, const fl_vector *const *args, uint32_t nargs,           \
                          const fl_sel *sel, uint32_t nrows, fl_error *err)                        \
    {                                                                                              \
        (void)nargs, (void)err;                                                                    \
        fl_unified u;                                                                              \
        fl_vector_unify(args[0], &u);                                                              \
        bool nulls = u.validity || u.base->validity;                                               \
        FOR_STATES(sel, nrows, k, r, {                                                             \
            if (nulls && !fl_unified_is_valid(&u, r))                                              \
                continue;                                                                          \
            fsum_st *s = st[k];                                                                    \
            kahan(s, (double)UV(u, T, r));                                                         \
            s->n++;                                                                                \
        });                                                                                        \
        return FL_OK;                                                                              \
    }
FSUM_UPDATE(fsum_update_f32, float)
FSUM_UPDATE(fsum_update_f64, double)
static fl_status fsum_combine(void *d, const void *s, fl_error *err)
{
    (void)err;
    fsum_st *a = d;
    const fsum_st *b = s;
    kahan(a, b->sum);
    kahan(a, -b->c);
    a->n += b->n;
    return FL_OK;
}
POD_SERDE(fsum, fsum_st)
static fl_status fsum_final(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, fl_error *err)
{
    (void)res;
    for (uint32_t i = 0; i < n; i++) {
        const fsum_st *s = st[i];
        if (!s->n)
            FL_TRY(fl_vector_append_null(out, err));
        else {
            double v = s->sum;
            FL_TRY(fl_vector_append_fixed(out, &v, err));
        }
    }
    return FL_OK;
}
static fl_status favg_final(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, fl_error *err)
{
    (void)res;
    for (uint32_t i = 0; i < n; i++) {
        const fsum_st *s = st[i];
        if (!s->n)
            FL_TRY(fl_vector_append_null(out, err));
        else {
            double v = s->sum / (double)s->n;
            FL_TRY(fl_vector_append_fixed(out, &v, err));
        }
    }
    return FL_OK;
}
static const fl_agg_ops sum_f32_ops = {sizeof(fsum_st), 8, fsum_init, fsum_update_f32, fsum_combine, fsum_final,
                                       NULL, fsum_ser, fsum_de};
static const fl_agg_ops sum_f64_ops = {sizeof(fsum_st), 8, fsum_init, fsum_update_f64, fsum_combine, fsum_final,
                                       NULL, fsum_ser, fsum_de};
static const fl_agg_ops avg_f32_ops = {sizeof(fsum_st), 8, fsum_init, fsum_update_f32, fsum_combine, favg_final,
                                       NULL, fsum_ser, fsum_de};
static const fl_agg_ops avg_f64_ops = {sizeof(fsum_st), 8, fsum_init, fsum_update_f64, fsum_combine, favg_final,
                                       NULL, fsum_ser, fsum_de};

/* ---- min / max over fixed-width values ---- */
typedef struct { uint8_t v[16]; uint8_t has; } mm_st;
static void mm_init(void *s) { memset(s, 0, sizeof(mm_st)); }
POD_SERDE(mm, mm_st)

static inline int fcmp(double x, double y)
{
    if (isnan(x))
        return isnan(y) ? 0 : 1;
    if (isnan(y))
        return -1;
    return (x > y) - (x < y);
}

#define MM_OPS(name, T, CMP, SIGN)                                                                 \
    static fl_status name##_update(void *const *st, const fl_vector *const *args, uint32_t nargs,  \
                                   const fl_sel *sel, uint32_t nrows, fl_error *err)               \
    {                                                                                              \
        (void)nargs, (void)err;                                                                    \
        fl_unified u;                                                                              \
        fl_vector_unify(args[0], &u);                                                              \
        bool nulls = u.validity || u.base->validity;                                               \
        FOR_STATES(sel, nrows, k, r, {                                                             \
            if (nulls && !fl_unified_is_valid(&u, r))                                              \
                continue;                                                                          \
            mm_st *s = st[k];                                                                      \
            T x = UV(u, T, r), cur;                                                                \
            memcpy(&cur, s->v, sizeof(T));                                                         \
            if (!s->has || SIGN * CMP(x, cur) < 0) {                                               \
                memcpy(s->v, &x, sizeof(T));                                                       \
                s->has = 1;                                                                        \
            }                                                                                      \
        });                                                                                        \
        return FL_OK;                                                                              \
    }                                                                                              \
    static fl_status name##_combine(void *d, const void *sv, fl_error *err)                        \
    {                                                                                              \
        (void)err;                                                                                 \
        mm_st *a = d;                                                                              \
        const mm_st *b = sv;                                                                       \
        if (!b->has)                                                                               \
            return FL_OK;                                                                          \
        T x, cur;                                                                                  \
        memcpy(&x, b->v, sizeof(T));                                                               \
        memcpy(&cur, a->v, sizeof(T));                                                             \
        if (!a->has || SIGN * CMP(x, cur) < 0)                                                     \
            *a = *b;                                                                               \
        return FL_OK;                                                                              \
    }                                                                                              \
    static const fl_agg_ops name##_ops = {sizeof(mm_st), 16,    mm_init, name##_update,            \
                                          name##_combine, mm_final, NULL,    mm_ser, mm_de};

static fl_status mm_final(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, fl_error *err)
{
    (void)res;
    for (uint32_t i = 0; i < n; i++) {
        const mm_st *s = st[i];
        if (!s->has)
            FL_TRY(fl_vector_append_null(out, err));
        else
            FL_TRY(fl_vector_append_fixed(out, s->v, err));
    }
    return FL_OK;
}

#define NCMP(a, b) (((a) > (b)) - ((a) < (b)))
static inline int ivcmp(const uint8_t *a, const uint8_t *b)
{
    fl_interval x, y;
    memcpy(&x, a, 16);
    memcpy(&y, b, 16);
    fl_i128 sx = ((fl_i128)x.months * 30 + x.days) * (fl_i128)US_PER_DAY + x.micros;
    fl_i128 sy = ((fl_i128)y.months * 30 + y.days) * (fl_i128)US_PER_DAY + y.micros;
    return NCMP(sx, sy);
}
typedef struct { uint8_t b[16]; } b16;
#define B16CMP(x_, y_) memcmp((x_).b, (y_).b, 16)
#define IVCMP(x_, y_) ivcmp((x_).b, (y_).b)
MM_OPS(min_u8, uint8_t, NCMP, 1)
MM_OPS(max_u8, uint8_t, NCMP, -1)
MM_OPS(min_i32, int32_t, NCMP, 1)
MM_OPS(max_i32, int32_t, NCMP, -1)
MM_OPS(min_i64, int64_t, NCMP, 1)
MM_OPS(max_i64, int64_t, NCMP, -1)
MM_OPS(min_f32, float, fcmp, 1)
MM_OPS(max_f32, float, fcmp, -1)
MM_OPS(min_f64, double, fcmp, 1)
MM_OPS(max_f64, double, fcmp, -1)
MM_OPS(min_dec, fl_i128, NCMP, 1)
MM_OPS(max_dec, fl_i128, NCMP, -1)
MM_OPS(min_b16, b16, B16CMP, 1)
MM_OPS(max_b16, b16, B16CMP, -1)
MM_OPS(min_iv, b16, IVCMP, 1)
MM_OPS(max_iv, b16, IVCMP, -1)

/* ---- min / max over strings and bytes: state owns a copy ---- */
typedef struct { uint8_t *p; uint32_t len, cap; uint8_t has; } smm_st;
static void smm_init(void *s) { memset(s, 0, sizeof(smm_st)); }
static void smm_destroy(void *s)
{
    free(((smm_st *)s)->p);
    ((smm_st *)s)->p = NULL;
}
static fl_status smm_set(smm_st *s, const uint8_t *p, size_t len, fl_error *err)
{
    if (len > UINT32_MAX)
        return fl_errorf(err, FL_ELIMIT, "min/max: value of %zu bytes is too long", len);
    if (len > s->cap || !s->p) {
        uint8_t *np = realloc(s->p, len ? len : 1);
        if (!np)
            return fl_errorf(err, FL_ENOMEM, "out of memory in min/max");
        s->p = np;
        s->cap = (uint32_t)(len ? len : 1);
    }
    if (len)
        memcpy(s->p, p, len);
    s->len = (uint32_t)len;
    s->has = 1;
    return FL_OK;
}
static inline int scmp(const uint8_t *a, size_t la, const uint8_t *b, size_t lb)
{
    int r = memcmp(a, b, la < lb ? la : lb);
    return r ? r : NCMP(la, lb);
}
static fl_status smm_update(void *const *st, const fl_vector *const *args, const fl_sel *sel, uint32_t nrows,
                            int sign, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(args[0], &u);
    FOR_STATES(sel, nrows, k, r, {
        if (!fl_unified_is_valid(&u, r))
            continue;
        smm_st *s = st[k];
        size_t l;
        const uint8_t *p = ubytes(&u, r, &l);
        if (!s->has || sign * scmp(p, l, s->p, s->len) < 0)
            FL_TRY(smm_set(s, p, l, err));
    });
    return FL_OK;
}
static fl_status smin_update(void *const *st, const fl_vector *const *a, uint32_t na, const fl_sel *sel, uint32_t n,
                             fl_error *err)
{
    (void)na;
    return smm_update(st, a, sel, n, 1, err);
}
static fl_status smax_update(void *const *st, const fl_vector *const *a, uint32_t na, const fl_sel *sel, uint32_t n,
                             fl_error *err)
{
    (void)na;
    return smm_update(st, a, sel, n, -1, err);
}
static fl_status smm_combine(void *d, const void *sv, int sign, fl_error *err)
{
    smm_st *a = d;
    const smm_st *b = sv;
    if (b->has && (!a->has || sign * scmp(b->p, b->len, a->p, a->len) < 0))
        return smm_set(a, b->p, b->len, err);
    return FL_OK;
}
static fl_status smin_combine(void *d, const void *s, fl_error *e) { return smm_combine(d, s, 1, e); }
static fl_status smax_combine(void *d, const void *s, fl_error *e) { return smm_combine(d, s, -1, e); }
static fl_status smm_final(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, fl_error *err)
{
    (void)res;
    for (uint32_t i = 0; i < n; i++) {
        const smm_st *s = st[i];
        if (!s->has)
            FL_TRY(fl_vector_append_null(out, err));
        else
            FL_TRY(fl_vector_append_bytes(out, s->p, s->len, err));
    }
    return FL_OK;
}
static fl_status smm_ser(const void *sv, uint8_t **buf, size_t *len, fl_error *err)
{
    const smm_st *s = sv;
    *len = 1 + (s->has ? s->len : 0);
    *buf = malloc(*len);
    if (!*buf)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    (*buf)[0] = s->has;
    if (s->has && s->len)
        memcpy(*buf + 1, s->p, s->len);
    return FL_OK;
}
static fl_status smm_de(void *sv, const uint8_t *buf, size_t len, fl_error *err)
{
    smm_st *s = sv;
    if (len < 1)
        return fl_errorf(err, FL_ECORRUPT, "empty min/max state");
    if (!buf[0]) {
        s->has = 0;
        return FL_OK;
    }
    return smm_set(s, buf + 1, len - 1, err);
}
static const fl_agg_ops min_str_ops = {sizeof(smm_st), 8, smm_init, smin_update, smin_combine, smm_final,
                                       smm_destroy, smm_ser, smm_de};
static const fl_agg_ops max_str_ops = {sizeof(smm_st), 8, smm_init, smax_update, smax_combine, smm_final,
                                       smm_destroy, smm_ser, smm_de};

/* any_value: first non-null value seen (uses min/max state shapes) */
#define ANY_OPS(name, T)                                                                           \
    static fl_status name##_update(void *const *st, const fl_vector *const *args, uint32_t nargs,  \
                                   const fl_sel *sel, uint32_t nrows, fl_error *err)               \
    {                                                                                              \
        (void)nargs, (void)err;                                                                    \
        fl_unified u;                                                                              \
        fl_vector_unify(args[0], &u);                                                              \
        size_t w = fl_type_width(args[0]->type);                                                   \
        FOR_STATES(sel, nrows, k, r, {                                                             \
            mm_st *s = st[k];                                                                      \
            if (!s->has && fl_unified_is_valid(&u, r)) {                                           \
                memcpy(s->v, u.base->data + (size_t)fl_unified_row(&u, r) * w, w);                 \
                s->has = 1;                                                                        \
            }                                                                                      \
        });                                                                                        \
        return FL_OK;                                                                              \
    }
ANY_OPS(any_fixed, int)
static fl_status any_combine(void *d, const void *s, fl_error *err)
{
    (void)err;
    if (!((mm_st *)d)->has)
        *(mm_st *)d = *(const mm_st *)s;
    return FL_OK;
}
static const fl_agg_ops any_fixed_ops = {sizeof(mm_st), 16, mm_init, any_fixed_update, any_combine, mm_final,
                                         NULL, mm_ser, mm_de};
static fl_status sany_update(void *const *st, const fl_vector *const *args, uint32_t na, const fl_sel *sel,
                             uint32_t nrows, fl_error *err)
{
    (void)na;
    fl_unified u;
    fl_vector_unify(args[0], &u);
    FOR_STATES(sel, nrows, k, r, {
        smm_st *s = st[k];
        if (!s->has && fl_unified_is_valid(&u, r)) {
            size_t l;
            const uint8_t *p = ubytes(&u, r, &l);
            FL_TRY(smm_set(s, p, l, err));
        }
    });
    return FL_OK;
}
static fl_status sany_combine(void *d, const void *sv, fl_error *err)
{
    const smm_st *b = sv;
    if (!((smm_st *)d)->has && b->has)
        return smm_set(d, b->p, b->len, err);
    return FL_OK;
}
static const fl_agg_ops any_str_ops = {sizeof(smm_st), 8, smm_init, sany_update, sany_combine, smm_final,
                                       smm_destroy, smm_ser, smm_de};

/* bool_and / bool_or */
typedef struct { uint8_t v, has; } bl_st;
static void bl_init(void *s) { memset(s, 0, sizeof(bl_st)); }
POD_SERDE(bl, bl_st)
static fl_status bl_update(void *const *st, const fl_vector *const *args, const fl_sel *sel, uint32_t nrows,
                           bool is_and)
{
    fl_unified u;
    fl_vector_unify(args[0], &u);
    FOR_STATES(sel, nrows, k, r, {
        if (!fl_unified_is_valid(&u, r))
            continue;
        bl_st *s = st[k];
        uint8_t x = UV(u, uint8_t, r) != 0;
        s->v = !s->has ? x : (is_and ? (s->v & x) : (s->v | x));
        s->has = 1;
    });
    return FL_OK;
}
static fl_status band_update(void *const *st, const fl_vector *const *a, uint32_t na, const fl_sel *sel, uint32_t n,
                             fl_error *err)
{
    (void)na, (void)err;
    return bl_update(st, a, sel, n, true);
}
static fl_status bor_update(void *const *st, const fl_vector *const *a, uint32_t na, const fl_sel *sel, uint32_t n,
                            fl_error *err)
{
    (void)na, (void)err;
    return bl_update(st, a, sel, n, false);
}
static fl_status band_combine(void *d, const void *sv, fl_error *err)
{
    (void)err;
    bl_st *a = d;
    const bl_st *b = sv;
    if (b->has) {
        a->v = a->has ? (a->v & b->v) : b->v;
        a->has = 1;
    }
    return FL_OK;
}
static fl_status bor_combine(void *d, const void *sv, fl_error *err)
{
    (void)err;
    bl_st *a = d;
    const bl_st *b = sv;
    if (b->has) {
        a->v = a->has ? (a->v | b->v) : b->v;
        a->has = 1;
    }
    return FL_OK;
}
static fl_status bl_final(void *const *st, uint32_t n, const fl_type *res, fl_vector *out, fl_error *err)
{
    (void)res;
    for (uint32_t i = 0; i < n; i++) {
        const bl_st *s = st[i];
        if (!s->has)
            FL_TRY(fl_vector_append_null(out, err));
        else
            FL_TRY(fl_vector_append_fixed(out, &s->v, err));
    }
    return FL_OK;
}
static const fl_agg_ops band_ops = {sizeof(bl_st), 1, bl_init, band_update, band_combine, bl_final, NULL, bl_ser, bl_de};
static const fl_agg_ops bor_ops = {sizeof(bl_st), 1, bl_init, bor_update, bor_combine, bl_final, NULL, bl_ser, bl_de};

/* ---- resolution ---- */

static bool r_count(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    (void)a;
    if (n > 1)
        return false;
    if (n == 1 && fl_is_unknown(&a[0]))
        at[0] = fl_mk(FL_TYPE_STRING);
    *r = fl_mk(FL_TYPE_INT64);
    return true;
}
static const fl_agg_ops *f_count(const fl_type *a, uint32_t n, const fl_type *r)
{
    (void)a, (void)r;
    return n == 0 ? &count_star_ops : &count_ops;
}

static bool r_sum(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1)
        return false;
    switch (a[0].id) {
    case FL_TYPE_INT32: *r = fl_mk(FL_TYPE_INT64); break;
    case FL_TYPE_INT64: *r = fl_mk_dec(38, 0); break;
    case FL_TYPE_DECIMAL: *r = fl_mk_dec(38, a[0].scale); break;
    case FL_TYPE_FLOAT32:
    case FL_TYPE_FLOAT64: *r = fl_mk(FL_TYPE_FLOAT64); break;
    default:
        if (fl_is_unknown(&a[0])) {
            at[0] = fl_mk(FL_TYPE_FLOAT64);
            *r = at[0];
            return true;
        }
        return false;
    }
    at[0] = a[0];
    return true;
}
static const fl_agg_ops *f_sum(const fl_type *a, uint32_t n, const fl_type *r)
{
    (void)n, (void)r;
    switch (a[0].id) {
    case FL_TYPE_INT32: return &sum_i32_ops;
    case FL_TYPE_INT64: return &sum_i64_ops;
    case FL_TYPE_DECIMAL: return &sum_dec_ops;
    case FL_TYPE_FLOAT32: return &sum_f32_ops;
    default: return &sum_f64_ops;
    }
}

static bool r_avg(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1)
        return false;
    switch (a[0].id) {
    case FL_TYPE_INT32:
    case FL_TYPE_INT64: *r = fl_mk_dec(38, 16); break;
    case FL_TYPE_DECIMAL: *r = fl_mk_dec(38, a[0].scale > 16 ? a[0].scale : 16); break;
    case FL_TYPE_FLOAT32:
    case FL_TYPE_FLOAT64: *r = fl_mk(FL_TYPE_FLOAT64); break;
    default:
        if (fl_is_unknown(&a[0])) {
            at[0] = fl_mk(FL_TYPE_FLOAT64);
            *r = at[0];
            return true;
        }
        return false;
    }
    at[0] = a[0];
    return true;
}
static const fl_agg_ops *f_avg(const fl_type *a, uint32_t n, const fl_type *r)
{
    (void)n, (void)r;
    switch (a[0].id) {
    case FL_TYPE_INT32: return &avg_i32_ops;
    case FL_TYPE_INT64: return &avg_i64_ops;
    case FL_TYPE_DECIMAL: return &avg_dec_ops[a[0].scale >= 0 && a[0].scale <= 38 ? a[0].scale : 0];
    case FL_TYPE_FLOAT32: return &avg_f32_ops;
    default: return &avg_f64_ops;
    }
}

static bool r_minmax(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || fl_type_is_nested(&a[0]))
        return false;
    at[0] = a[0];
    if (fl_is_unknown(&a[0]))
        at[0] = fl_mk(FL_TYPE_STRING);
    *r = at[0];
    return true;
}
static const fl_agg_ops *minmax_for(const fl_type *t, bool is_min)
{
    switch (t->id) {
    case FL_TYPE_BOOLEAN: return is_min ? &min_u8_ops : &max_u8_ops;
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: return is_min ? &min_i32_ops : &max_i32_ops;
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: return is_min ? &min_i64_ops : &max_i64_ops;
    case FL_TYPE_FLOAT32: return is_min ? &min_f32_ops : &max_f32_ops;
    case FL_TYPE_FLOAT64: return is_min ? &min_f64_ops : &max_f64_ops;
    case FL_TYPE_DECIMAL: return is_min ? &min_dec_ops : &max_dec_ops;
    case FL_TYPE_UUID: return is_min ? &min_b16_ops : &max_b16_ops;
    case FL_TYPE_FIXED:
        if (fl_type_is_interval(t))
            return is_min ? &min_iv_ops : &max_iv_ops;
        if (t->fixed_len == 16)
            return is_min ? &min_b16_ops : &max_b16_ops;
        return NULL;
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: return is_min ? &min_str_ops : &max_str_ops;
    default: return NULL;
    }
}
static bool r_min(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    return r_minmax(a, n, r, at) && minmax_for(&at[0], true);
}
static const fl_agg_ops *f_min(const fl_type *a, uint32_t n, const fl_type *r)
{
    (void)n, (void)r;
    return minmax_for(&a[0], true);
}
static const fl_agg_ops *f_max(const fl_type *a, uint32_t n, const fl_type *r)
{
    (void)n, (void)r;
    return minmax_for(&a[0], false);
}
static bool r_any(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (!r_minmax(a, n, r, at))
        return false;
    return fl_type_is_varlen(&at[0]) || fl_type_width(&at[0]) <= 16;
}
static const fl_agg_ops *f_any(const fl_type *a, uint32_t n, const fl_type *r)
{
    (void)n, (void)r;
    return fl_type_is_varlen(&a[0]) ? &any_str_ops : &any_fixed_ops;
}
static bool r_bool(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !(a[0].id == FL_TYPE_BOOLEAN || fl_is_unknown(&a[0])))
        return false;
    at[0] = *r = fl_mk(FL_TYPE_BOOLEAN);
    return true;
}
static const fl_agg_ops *f_band(const fl_type *a, uint32_t n, const fl_type *r)
{
    (void)a, (void)n, (void)r;
    return &band_ops;
}
static const fl_agg_ops *f_bor(const fl_type *a, uint32_t n, const fl_type *r)
{
    (void)a, (void)n, (void)r;
    return &bor_ops;
}

#define AGG(nm, r, f) {.name = nm, .kind = FL_FUNC_AGGREGATE, .deterministic = true, .resolve = r, .agg_for = f}
static const fl_func funcs[] = {
    AGG("count", r_count, f_count), AGG("sum", r_sum, f_sum),         AGG("avg", r_avg, f_avg),
    AGG("min", r_min, f_min),       AGG("max", r_min, f_max),         AGG("any_value", r_any, f_any),
    AGG("arbitrary", r_any, f_any), AGG("first", r_any, f_any),       AGG("bool_and", r_bool, f_band),
    AGG("every", r_bool, f_band),   AGG("bool_or", r_bool, f_bor),
};
const fl_func_table fl_funcs_agg = {funcs, sizeof funcs / sizeof funcs[0]};
