/*
 * arith.c - arithmetic operators + - * / % and unary minus on numbers.
 *
 * Types (func.h): INT32 op INT32 -> INT32, with INT64 -> INT64, any
 * DECIMAL -> DECIMAL by the precision/scale rules, any float -> FLOAT64
 * (REAL op REAL stays REAL). Integers overflow with SQLSTATE 22003
 * ("integer out of range"), never wrap; x / 0 and x % 0 fail with 22012.
 * Integer division truncates toward zero (PostgreSQL). Decimal results
 * round half away from zero; a result needing more than 38 digits is
 * "numeric field overflow".
 *
 * Date/time arithmetic lives in datearith.c under the same operator names.
 */
#include <math.h>

#include "sql/func/func_internal.h"

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD };

static bool numeric_pair(const fl_type *args, uint32_t n, fl_type *a, fl_type *b)
{
    if (n != 2)
        return false;
    *a = args[0];
    *b = args[1];
    if (fl_is_unknown(a) && fl_is_unknown(b))
        return false;
    if (fl_is_unknown(a)) {
        if (!fl_is_numeric(b))
            return false;
        *a = *b;
    }
    if (fl_is_unknown(b)) {
        if (!fl_is_numeric(a))
            return false;
        *b = *a;
    }
    return fl_is_numeric(a) && fl_is_numeric(b);
}

static bool resolve_op(int op, const fl_type *args, uint32_t n, fl_type *result, fl_type *at)
{
    fl_type a, b;
    if (!numeric_pair(args, n, &a, &b))
        return false;
    bool fa = a.id == FL_TYPE_FLOAT32 || a.id == FL_TYPE_FLOAT64;
    bool fb = b.id == FL_TYPE_FLOAT32 || b.id == FL_TYPE_FLOAT64;
    if (fa || fb) {
        fl_type t = fl_mk(a.id == FL_TYPE_FLOAT32 && b.id == FL_TYPE_FLOAT32 ? FL_TYPE_FLOAT32 : FL_TYPE_FLOAT64);
        at[0] = at[1] = *result = t;
        return true;
    }
    if (a.id == FL_TYPE_DECIMAL || b.id == FL_TYPE_DECIMAL) {
        if (a.id != FL_TYPE_DECIMAL)
            a = fl_int_as_dec(&a);
        if (b.id != FL_TYPE_DECIMAL)
            b = fl_int_as_dec(&b);
        at[0] = a;
        at[1] = b;
        int32_t p1 = a.precision, s1 = a.scale, p2 = b.precision, s2 = b.scale, p, s;
        switch (op) {
        case OP_ADD:
        case OP_SUB:
            s = s1 > s2 ? s1 : s2;
            p = (p1 - s1 > p2 - s2 ? p1 - s1 : p2 - s2) + s + 1;
            break;
        case OP_MUL:
            s = s1 + s2;
            p = p1 + p2 + 1;
            break;
        case OP_DIV:
            s = s1 + p2 + 1 > 6 ? s1 + p2 + 1 : 6;
            p = p1 - s1 + s2 + s;
            break;
        default: /* MOD */
            s = s1 > s2 ? s1 : s2;
            p = (p1 - s1 < p2 - s2 ? p1 - s1 : p2 - s2) + s;
            break;
        }
        if (p > 38) {
            /* keep the integer digits, give up scale (but keep at least 6 for division) */
            int32_t ip = p - s;
            int32_t min_s = op == OP_DIV ? (s < 6 ? s : 6) : (s < 6 ? s : 6);
            s = 38 - ip > min_s ? 38 - ip : min_s;
            p = 38;
        }
        if (s > p)
            s = p;
        *result = fl_mk_dec(p, s);
        return true;
    }
    fl_type t = fl_mk(a.id == FL_TYPE_INT64 || b.id == FL_TYPE_INT64 ? FL_TYPE_INT64 : FL_TYPE_INT32);
    at[0] = at[1] = *result = t;
    return true;
}

static bool r_add(const fl_type *a, uint32_t n, fl_type *r, fl_type *at) { return resolve_op(OP_ADD, a, n, r, at); }
static bool r_sub(const fl_type *a, uint32_t n, fl_type *r, fl_type *at) { return resolve_op(OP_SUB, a, n, r, at); }
static bool r_mul(const fl_type *a, uint32_t n, fl_type *r, fl_type *at) { return resolve_op(OP_MUL, a, n, r, at); }
static bool r_div(const fl_type *a, uint32_t n, fl_type *r, fl_type *at) { return resolve_op(OP_DIV, a, n, r, at); }
static bool r_mod(const fl_type *a, uint32_t n, fl_type *r, fl_type *at) { return resolve_op(OP_MOD, a, n, r, at); }

static bool r_neg(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !fl_is_numeric(&a[0]))
        return false;
    at[0] = *r = a[0];
    return true;
}

static fl_status int_range(const fl_fn_call *c, fl_error *err, bool big)
{
    return fl_fn_error_state(c, err, FL_EOVERFLOW, "22003", "%s out of range",
                             big ? "bigint" : "integer");
}
static fl_status div_zero(const fl_fn_call *c, fl_error *err)
{
    return fl_fn_error_state(c, err, FL_EINVAL, "22012", "division by zero");
}
static fl_status num_ovf(const fl_fn_call *c, fl_error *err)
{
    return fl_fn_error_state(c, err, FL_EOVERFLOW, "22003",
                             "numeric field overflow (value out of range)");
}

#define INT_KERNEL(T, BIG)                                                                         \
    do {                                                                                           \
        T *o = OUTV(out, T);                                                                       \
        switch (op) {                                                                              \
        case OP_ADD:                                                                               \
            FOR_ROWS(sel, n, i, {                                                                  \
                if (__builtin_add_overflow(UV(ua, T, i), UV(ub, T, i), &o[i]))                     \
                    return int_range(c, err, BIG);                                                 \
            });                                                                                    \
            break;                                                                                 \
        case OP_SUB:                                                                               \
            FOR_ROWS(sel, n, i, {                                                                  \
                if (__builtin_sub_overflow(UV(ua, T, i), UV(ub, T, i), &o[i]))                     \
                    return int_range(c, err, BIG);                                                 \
            });                                                                                    \
            break;                                                                                 \
        case OP_MUL:                                                                               \
            FOR_ROWS(sel, n, i, {                                                                  \
                if (__builtin_mul_overflow(UV(ua, T, i), UV(ub, T, i), &o[i]))                     \
                    return int_range(c, err, BIG);                                                 \
            });                                                                                    \
            break;                                                                                 \
        case OP_DIV:                                                                               \
            FOR_ROWS(sel, n, i, {                                                                  \
                T x = UV(ua, T, i), y = UV(ub, T, i);                                              \
                if (y == 0)                                                                        \
                    return div_zero(c, err);                                                       \
                if (y == -1) {                                                                     \
                    if (__builtin_sub_overflow((T)0, x, &o[i]))                                    \
                        return int_range(c, err, BIG);                                             \
                } else                                                                             \
                    o[i] = x / y;                                                                  \
            });                                                                                    \
            break;                                                                                 \
        default:                                                                                   \
            FOR_ROWS(sel, n, i, {                                                                  \
                T x = UV(ua, T, i), y = UV(ub, T, i);                                              \
                if (y == 0)                                                                        \
                    return div_zero(c, err);                                                       \
                o[i] = y == -1 ? 0 : x % y;                                                        \
            });                                                                                    \
        }                                                                                          \
    } while (0)

#define FLOAT_KERNEL(T)                                                                            \
    do {                                                                                           \
        T *o = OUTV(out, T);                                                                       \
        switch (op) {                                                                              \
        case OP_ADD: FOR_ROWS(sel, n, i, { o[i] = UV(ua, T, i) + UV(ub, T, i); }); break;          \
        case OP_SUB: FOR_ROWS(sel, n, i, { o[i] = UV(ua, T, i) - UV(ub, T, i); }); break;          \
        case OP_MUL: FOR_ROWS(sel, n, i, { o[i] = UV(ua, T, i) * UV(ub, T, i); }); break;          \
        case OP_DIV:                                                                               \
            FOR_ROWS(sel, n, i, {                                                                  \
                T y = UV(ub, T, i);                                                                \
                if (y == 0)                                                                        \
                    return div_zero(c, err);                                                       \
                o[i] = UV(ua, T, i) / y;                                                           \
            });                                                                                    \
            break;                                                                                 \
        default:                                                                                   \
            FOR_ROWS(sel, n, i, {                                                                  \
                T y = UV(ub, T, i);                                                                \
                if (y == 0)                                                                        \
                    return div_zero(c, err);                                                       \
                o[i] = (T)fmod(UV(ua, T, i), y);                                                   \
            });                                                                                    \
        }                                                                                          \
        FOR_ROWS(sel, n, i, {                                                                      \
            if (isinf(o[i]) && !isinf(UV(ua, T, i)) && !isinf(UV(ub, T, i)))                       \
                return fl_fn_error_state(c, err, FL_EOVERFLOW, "22003",                            \
                                         "value out of range: overflow");                          \
        });                                                                                        \
    } while (0)

static inline fl_i128 ldec(const fl_unified *u, uint32_t i)
{
    fl_i128 x;
    memcpy(&x, u->base->data + (size_t)fl_unified_row(u, i) * 16, 16);
    return x;
}

/* What one decimal operation needs per row, computed once per batch. */
typedef struct dec_plan {
    int op;
    int32_t sa, sb, s, p;
    int32_t ka, kb;  /* ADD/SUB/MOD: scale-up of each side to s (MOD: may be < 0) */
    bool simple;     /* ADD/SUB: ka, kb >= 0 */
    fl_i128 ma, mb;  /* 10^ka, 10^kb when simple */
    int32_t k;       /* MUL: s - (sa + sb) (<= 0); DIV: s + sb - sa */
    /* int64 fast path (ADD/SUB/MUL): operands and result in int64 range */
    bool fast;
    int64_t ma64, mb64; /* ADD/SUB: 10^ka, 10^kb */
    int64_t div64;      /* MUL: 10^-k (1 = no rescale) */
    int64_t lim64;      /* 10^p when p <= 18, else 0: every int64 fits */
} dec_plan;

enum { DEC_OK = 0, DEC_OVF, DEC_DIV0 };

/* One row in 128-bit arithmetic: the general path (and the exact error). */
static int dec_row(const dec_plan *pl, fl_i128 x, fl_i128 y, fl_i128 *out)
{
    fl_i128 r;
    switch (pl->op) {
    case OP_ADD:
    case OP_SUB:
        if (pl->simple) {
            if (pl->ka && __builtin_mul_overflow(x, pl->ma, &x))
                return DEC_OVF;
            if (pl->kb && __builtin_mul_overflow(y, pl->mb, &y))
                return DEC_OVF;
        } else if (!dec_rescale(x, pl->ka, &x) || !dec_rescale(y, pl->kb, &y))
            return DEC_OVF;
        if (pl->op == OP_ADD ? __builtin_add_overflow(x, y, &r) : __builtin_sub_overflow(x, y, &r))
            return DEC_OVF;
        break;
    case OP_MUL:
        if (__builtin_mul_overflow(x, y, &r))
            return DEC_OVF;
        if (pl->k)
            dec_rescale(r, pl->k, &r);
        break;
    case OP_DIV:
        /* x/10^sa / (y/10^sb) = r/10^s  =>  r = x * 10^(s + sb - sa) / y */
        if (y == 0)
            return DEC_DIV0;
        if (pl->k >= 0) {
            if (!dec_rescale(x, pl->k, &x))
                return DEC_OVF;
        } else if (!dec_rescale(y, -pl->k, &y))
            return DEC_OVF;
        r = dec_div_round(x, y);
        break;
    default:
        if (y == 0)
            return DEC_DIV0;
        if (!dec_rescale(x, pl->ka, &x) || !dec_rescale(y, pl->kb, &y))
            return DEC_OVF;
        *out = x % y;
        return DEC_OK;
    }
    if (!dec_fits(r, pl->p))
        return DEC_OVF;
    *out = r;
    return DEC_OK;
}

static void dec_plan_init(dec_plan *pl, int op, const fl_fn_call *c)
{
    memset(pl, 0, sizeof *pl);
    pl->op = op;
    pl->sa = c->args[0]->type->scale;
    pl->sb = c->args[1]->type->scale;
    pl->s = c->out->type->scale;
    pl->p = c->out->type->precision;
    pl->ka = pl->s - pl->sa;
    pl->kb = pl->s - pl->sb;
    pl->simple = pl->ka >= 0 && pl->kb >= 0;
    pl->ma = pl->simple ? fl_pow10_i128[pl->ka] : 1;
    pl->mb = pl->simple ? fl_pow10_i128[pl->kb] : 1;
    pl->k = op == OP_MUL ? pl->s - (pl->sa + pl->sb) : pl->s + pl->sb - pl->sa;
    pl->lim64 = pl->p <= 18 ? (int64_t)fl_pow10_i128[pl->p] : 0;
    if ((op == OP_ADD || op == OP_SUB) && pl->simple && pl->ka <= 18 && pl->kb <= 18) {
        pl->fast = true;
        pl->ma64 = (int64_t)pl->ma;
        pl->mb64 = (int64_t)pl->mb;
    } else if (op == OP_MUL && pl->k <= 0 && pl->k >= -18) {
        pl->fast = true;
        pl->div64 = (int64_t)fl_pow10_i128[-pl->k];
    }
}

/* r / d rounded half away from zero (d > 0, |r| any int64). */
static inline int64_t div_round64(int64_t r, int64_t d)
{
    int64_t q = r / d, m = r % d;
    int64_t am = m < 0 ? -m : m;
    if (am >= d - am)
        q += r < 0 ? -1 : 1;
    return q;
}

/* The int64 path of one row: false when an operand or an intermediate
 * leaves int64 (or the result its precision): then dec_row decides. The
 * plan's fields come as values so that stores to the output cannot make
 * the compiler reload them. */
static inline __attribute__((always_inline)) bool dec_fast(int op, int64_t ma, int64_t mb, int64_t div, int64_t lim,
                                                          fl_i128 X, fl_i128 Y, fl_i128 *out)
{
    int64_t x = (int64_t)X, y = (int64_t)Y, r;
    if ((fl_i128)x != X || (fl_i128)y != Y)
        return false;
    if (op == OP_MUL) {
        if (__builtin_mul_overflow(x, y, &r))
            return false;
        if (div > 1)
            r = div_round64(r, div);
    } else {
        if (__builtin_mul_overflow(x, ma, &x) || __builtin_mul_overflow(y, mb, &y))
            return false;
        if (op == OP_ADD ? __builtin_add_overflow(x, y, &r) : __builtin_sub_overflow(x, y, &r))
            return false;
    }
    if (lim && (r >= lim || r <= -lim))
        return false;
    *out = r;
    return true;
}

static inline fl_i128 ld16(const uint8_t *p)
{
    fl_i128 x;
    memcpy(&x, p, 16);
    return x;
}

enum { SRC_CONST, SRC_FLAT, SRC_IDX };

static inline int src_kind(const fl_unified *u)
{
    return u->constant ? SRC_CONST : u->idx ? SRC_IDX : SRC_FLAT;
}

/* Typed loop of one fast operation, specialized (always inlined with
 * constant ka / kb) by how each side is read: CONSTANT (loaded once), FLAT,
 * or through an index map. */
static inline __attribute__((always_inline)) int dec_fast_loop(const dec_plan *pl, int op, const fl_unified *ua,
                                                              const fl_unified *ub, int ka, int kb,
                                                              const fl_sel *sel, uint32_t n, fl_i128 *o)
{
    const uint8_t *da = ua->base->data, *db = ub->base->data;
    const uint32_t *ia = ua->idx, *ib = ub->idx;
    const int64_t ma = pl->ma64, mb = pl->mb64, div = pl->div64, lim = pl->lim64;
    const fl_i128 xa = ka == SRC_CONST ? ld16(da) : 0, xb = kb == SRC_CONST ? ld16(db) : 0;
    FOR_ROWS(sel, n, i, {
        fl_i128 X = ka == SRC_CONST ? xa : ld16(da + (size_t)(ka == SRC_IDX ? ia[i] : i) * 16);
        fl_i128 Y = kb == SRC_CONST ? xb : ld16(db + (size_t)(kb == SRC_IDX ? ib[i] : i) * 16);
        if (!dec_fast(op, ma, mb, div, lim, X, Y, &o[i])) {
            int rc = dec_row(pl, X, Y, &o[i]);
            if (rc)
                return rc;
        }
    });
    return DEC_OK;
}

#define DEC_CASE(KA, KB)                                                                           \
    case KA * 3 + KB: return dec_fast_loop(pl, op, ua, ub, KA, KB, sel, n, o)

static inline __attribute__((always_inline)) int dec_fast_op(const dec_plan *pl, int op, const fl_unified *ua,
                                                            const fl_unified *ub, const fl_sel *sel, uint32_t n,
                                                            fl_i128 *o)
{
    switch (src_kind(ua) * 3 + src_kind(ub)) {
        DEC_CASE(SRC_CONST, SRC_CONST);
        DEC_CASE(SRC_CONST, SRC_FLAT);
        DEC_CASE(SRC_CONST, SRC_IDX);
        DEC_CASE(SRC_FLAT, SRC_CONST);
        DEC_CASE(SRC_FLAT, SRC_FLAT);
        DEC_CASE(SRC_FLAT, SRC_IDX);
        DEC_CASE(SRC_IDX, SRC_CONST);
        DEC_CASE(SRC_IDX, SRC_FLAT);
    default: return dec_fast_loop(pl, op, ua, ub, SRC_IDX, SRC_IDX, sel, n, o);
    }
}

static int dec_fast_add(const dec_plan *pl, const fl_unified *ua, const fl_unified *ub, const fl_sel *sel,
                        uint32_t n, fl_i128 *o)
{
    return dec_fast_op(pl, OP_ADD, ua, ub, sel, n, o);
}
static int dec_fast_sub(const dec_plan *pl, const fl_unified *ua, const fl_unified *ub, const fl_sel *sel,
                        uint32_t n, fl_i128 *o)
{
    return dec_fast_op(pl, OP_SUB, ua, ub, sel, n, o);
}
static int dec_fast_mul(const dec_plan *pl, const fl_unified *ua, const fl_unified *ub, const fl_sel *sel,
                        uint32_t n, fl_i128 *o)
{
    return dec_fast_op(pl, OP_MUL, ua, ub, sel, n, o);
}

static fl_status dec_kernel(fl_fn_call *c, int op, const fl_unified *ua, const fl_unified *ub, fl_error *err)
{
    dec_plan pl;
    dec_plan_init(&pl, op, c);
    fl_i128 *o = OUTV(c->out, fl_i128);
    int rc = DEC_OK;
    if (pl.fast) {
        switch (op) {
        case OP_ADD: rc = dec_fast_add(&pl, ua, ub, c->sel, c->nrows, o); break;
        case OP_SUB: rc = dec_fast_sub(&pl, ua, ub, c->sel, c->nrows, o); break;
        default: rc = dec_fast_mul(&pl, ua, ub, c->sel, c->nrows, o); break;
        }
    } else {
        FOR_ROWS(c->sel, c->nrows, i, {
            rc = dec_row(&pl, ldec(ua, i), ldec(ub, i), &o[i]);
            if (rc)
                break;
        });
    }
    if (rc == DEC_DIV0)
        return div_zero(c, err);
    if (rc)
        return num_ovf(c, err);
    return FL_OK;
}

static fl_status arith(fl_fn_call *c, int op, fl_error *err)
{
    fl_unified ua, ub;
    fl_vector_unify(c->args[0], &ua);
    fl_vector_unify(c->args[1], &ub);
    fl_vector *out = c->out;
    const fl_sel *sel = c->sel;
    uint32_t n = c->nrows;
    switch (out->type->id) {
    case FL_TYPE_INT32: INT_KERNEL(int32_t, false); break;
    case FL_TYPE_INT64: INT_KERNEL(int64_t, true); break;
    case FL_TYPE_FLOAT32: FLOAT_KERNEL(float); break;
    case FL_TYPE_FLOAT64: FLOAT_KERNEL(double); break;
    case FL_TYPE_DECIMAL: return dec_kernel(c, op, &ua, &ub, err);
    default: return fl_fn_error(c, err, FL_ETYPE, "arithmetic on an unexpected type");
    }
    return FL_OK;
}

static fl_status k_add(fl_fn_call *c, fl_error *e) { return arith(c, OP_ADD, e); }
static fl_status k_sub(fl_fn_call *c, fl_error *e) { return arith(c, OP_SUB, e); }
static fl_status k_mul(fl_fn_call *c, fl_error *e) { return arith(c, OP_MUL, e); }
static fl_status k_div(fl_fn_call *c, fl_error *e) { return arith(c, OP_DIV, e); }
static fl_status k_mod(fl_fn_call *c, fl_error *e) { return arith(c, OP_MOD, e); }

static fl_status k_neg(fl_fn_call *c, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    fl_vector *out = c->out;
    switch (out->type->id) {
    case FL_TYPE_INT32:
        FOR_ROWS(c->sel, c->nrows, i, {
            if (__builtin_sub_overflow(0, UV(u, int32_t, i), &OUTV(out, int32_t)[i]))
                return int_range(c, err, false);
        });
        break;
    case FL_TYPE_INT64:
        FOR_ROWS(c->sel, c->nrows, i, {
            if (__builtin_sub_overflow((int64_t)0, UV(u, int64_t, i), &OUTV(out, int64_t)[i]))
                return int_range(c, err, true);
        });
        break;
    case FL_TYPE_FLOAT32: FOR_ROWS(c->sel, c->nrows, i, { OUTV(out, float)[i] = -UV(u, float, i); }); break;
    case FL_TYPE_FLOAT64: FOR_ROWS(c->sel, c->nrows, i, { OUTV(out, double)[i] = -UV(u, double, i); }); break;
    case FL_TYPE_DECIMAL: FOR_ROWS(c->sel, c->nrows, i, { OUTV(out, fl_i128)[i] = -ldec(&u, i); }); break;
    default: return fl_fn_error(c, err, FL_ETYPE, "negation of an unexpected type");
    }
    return FL_OK;
}

static bool r_pos(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    return r_neg(a, n, r, at);
}
static fl_status k_pos(fl_fn_call *c, fl_error *err)
{
    (void)err;
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    size_t w = fl_type_width(c->out->type);
    FOR_ROWS(c->sel, c->nrows, i, {
        memcpy(c->out->data + (size_t)i * w, u.base->data + (size_t)fl_unified_row(&u, i) * w, w);
    });
    return FL_OK;
}

#define SCALAR(nm, r, k) {.name = nm, .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r, .kernel = k}
static const fl_func funcs[] = {
    SCALAR("+", r_add, k_add),   SCALAR("-", r_sub, k_sub),   SCALAR("*", r_mul, k_mul),
    SCALAR("/", r_div, k_div),   SCALAR("%", r_mod, k_mod),   SCALAR("mod", r_mod, k_mod),
    SCALAR("-", r_neg, k_neg),   SCALAR("+", r_pos, k_pos),
};
const fl_func_table fl_funcs_arith = {funcs, sizeof funcs / sizeof funcs[0]};
