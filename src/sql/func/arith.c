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
    return fl_fn_error(c, err, FL_EOVERFLOW, "%s out of range", big ? "bigint" : "integer");
}
static fl_status div_zero(const fl_fn_call *c, fl_error *err)
{
    return fl_fn_error(c, err, FL_EINVAL, "division by zero");
}
static fl_status num_ovf(const fl_fn_call *c, fl_error *err)
{
    return fl_fn_error(c, err, FL_EOVERFLOW, "numeric field overflow (value out of range)");
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
                return fl_fn_error(c, err, FL_EOVERFLOW, "value out of range: overflow");          \
        });                                                                                        \
    } while (0)

static inline fl_i128 ldec(const fl_unified *u, uint32_t i)
{
    fl_i128 x;
    memcpy(&x, u->base->data + (size_t)fl_unified_row(u, i) * 16, 16);
    return x;
}

static fl_status dec_kernel(fl_fn_call *c, int op, const fl_unified *ua, const fl_unified *ub, fl_error *err)
{
    fl_vector *out = c->out;
    const fl_sel *sel = c->sel;
    uint32_t n = c->nrows;
    int32_t sa = c->args[0]->type->scale, sb = c->args[1]->type->scale;
    int32_t s = out->type->scale, p = out->type->precision;
    fl_i128 *o = OUTV(out, fl_i128);
    switch (op) {
    case OP_ADD:
    case OP_SUB: {
        /* align both to the result scale (s >= sa, sb unless capped) */
        int32_t ka = s - sa, kb = s - sb;
        bool simple = ka >= 0 && kb >= 0;
        fl_i128 ma = simple ? fl_pow10_i128[ka] : 1, mb = simple ? fl_pow10_i128[kb] : 1;
        FOR_ROWS(c->sel, n, i, {
            fl_i128 x = ldec(ua, i), y = ldec(ub, i), r;
            if (simple) {
                if (ka && __builtin_mul_overflow(x, ma, &x))
                    return num_ovf(c, err);
                if (kb && __builtin_mul_overflow(y, mb, &y))
                    return num_ovf(c, err);
            } else if (!dec_rescale(x, ka, &x) || !dec_rescale(y, kb, &y))
                return num_ovf(c, err);
            if (op == OP_ADD ? __builtin_add_overflow(x, y, &r) : __builtin_sub_overflow(x, y, &r))
                return num_ovf(c, err);
            if (!dec_fits(r, p))
                return num_ovf(c, err);
            o[i] = r;
        });
        return FL_OK;
    }
    case OP_MUL: {
        int32_t k = s - (sa + sb); /* <= 0 */
        FOR_ROWS(sel, n, i, {
            fl_i128 r;
            if (__builtin_mul_overflow(ldec(ua, i), ldec(ub, i), &r))
                return num_ovf(c, err);
            if (k)
                dec_rescale(r, k, &r);
            if (!dec_fits(r, p))
                return num_ovf(c, err);
            o[i] = r;
        });
        return FL_OK;
    }
    case OP_DIV: {
        /* x/10^sa / (y/10^sb) = r/10^s  =>  r = x * 10^(s + sb - sa) / y */
        int32_t k = s + sb - sa;
        FOR_ROWS(sel, n, i, {
            fl_i128 x = ldec(ua, i), y = ldec(ub, i), r;
            if (y == 0)
                return div_zero(c, err);
            if (k >= 0) {
                if (!dec_rescale(x, k, &x))
                    return num_ovf(c, err);
                r = dec_div_round(x, y);
            } else {
                if (!dec_rescale(y, -k, &y))
                    return num_ovf(c, err);
                r = dec_div_round(x, y);
            }
            if (!dec_fits(r, p))
                return num_ovf(c, err);
            o[i] = r;
        });
        return FL_OK;
    }
    default: {
        FOR_ROWS(sel, n, i, {
            fl_i128 x = ldec(ua, i), y = ldec(ub, i);
            if (y == 0)
                return div_zero(c, err);
            if (!dec_rescale(x, s - sa, &x) || !dec_rescale(y, s - sb, &y))
                return num_ovf(c, err);
            o[i] = x % y;
        });
        return FL_OK;
    }
    }
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
