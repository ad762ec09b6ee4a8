/*
 * math.c - numeric functions: abs, sign, round(x [, n]), trunc(x [, n]),
 * ceil/ceiling, floor, power/pow, sqrt, cbrt, exp, ln, log (base 10),
 * log(b, x), mod, pi, degrees, radians, trig, gcd, lcm, random.
 *
 * numeric: round is half away from zero and keeps the type's scale
 * (round(2.345, 2) prints 2.350 for numeric(4,3) - PostgreSQL prints 2.35
 * because its numeric is variable-scale; we return numeric(p, n) when n is
 * a constant: see refine_round). double: round() is half away from zero
 * too (PostgreSQL's float round uses rint: half to even) - we follow
 * PostgreSQL: rint for double. Domain errors use PostgreSQL's messages
 * ("cannot take square root of a negative number", 2201F for power).
 */
#include <math.h>
#include <stdlib.h>

#include "sql/func/func_internal.h"

static bool r_num1(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !(fl_is_numeric(&a[0]) || fl_is_unknown(&a[0])))
        return false;
    at[0] = fl_is_unknown(&a[0]) ? fl_mk(FL_TYPE_FLOAT64) : a[0];
    if (at[0].id == FL_TYPE_FLOAT32)
        at[0] = fl_mk(FL_TYPE_FLOAT64);
    *r = at[0];
    return true;
}
static bool r_dbl1(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !(fl_is_numeric(&a[0]) || fl_is_unknown(&a[0])))
        return false;
    at[0] = *r = fl_mk(FL_TYPE_FLOAT64);
    return true;
}
static bool r_dbl2(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2)
        return false;
    for (int k = 0; k < 2; k++)
        if (!(fl_is_numeric(&a[k]) || fl_is_unknown(&a[k])))
            return false;
    at[0] = at[1] = *r = fl_mk(FL_TYPE_FLOAT64);
    return true;
}

static inline fl_i128 ld(const fl_unified *u, uint32_t i)
{
    fl_i128 x;
    memcpy(&x, u->base->data + (size_t)fl_unified_row(u, i) * 16, 16);
    return x;
}

static fl_status k_abs(fl_fn_call *c, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    switch (c->out->type->id) {
    case FL_TYPE_INT32:
        FOR_ROWS(c->sel, c->nrows, i, {
            int32_t x = UV(u, int32_t, i);
            if (x == INT32_MIN)
                return fl_fn_error_state(c, err, FL_EOVERFLOW, "22003", "integer out of range");
            OUTV(c->out, int32_t)[i] = x < 0 ? -x : x;
        });
        break;
    case FL_TYPE_INT64:
        FOR_ROWS(c->sel, c->nrows, i, {
            int64_t x = UV(u, int64_t, i);
            if (x == INT64_MIN)
                return fl_fn_error_state(c, err, FL_EOVERFLOW, "22003", "bigint out of range");
            OUTV(c->out, int64_t)[i] = x < 0 ? -x : x;
        });
        break;
    case FL_TYPE_DECIMAL:
        FOR_ROWS(c->sel, c->nrows, i, {
            fl_i128 x = ld(&u, i);
            OUTV(c->out, fl_i128)[i] = x < 0 ? -x : x;
        });
        break;
    default: FOR_ROWS(c->sel, c->nrows, i, { OUTV(c->out, double)[i] = fabs(UV(u, double, i)); }); break;
    }
    return FL_OK;
}

static bool r_sign(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (!r_num1(a, n, r, at))
        return false;
    if (r->id == FL_TYPE_DECIMAL)
        *r = fl_mk_dec(1, 0); /* PostgreSQL: sign(numeric) prints -1, 0, 1 */
    return true;
}

static fl_status k_sign(fl_fn_call *c, fl_error *err)
{
    (void)err;
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    switch (c->out->type->id) {
    case FL_TYPE_INT32: FOR_ROWS(c->sel, c->nrows, i, { int32_t x = UV(u, int32_t, i); OUTV(c->out, int32_t)[i] = (x > 0) - (x < 0); }); break;
    case FL_TYPE_INT64: FOR_ROWS(c->sel, c->nrows, i, { int64_t x = UV(u, int64_t, i); OUTV(c->out, int64_t)[i] = (x > 0) - (x < 0); }); break;
    case FL_TYPE_DECIMAL: {
        fl_i128 one = fl_pow10_i128[c->out->type->scale];
        FOR_ROWS(c->sel, c->nrows, i, { fl_i128 x = ld(&u, i); OUTV(c->out, fl_i128)[i] = x > 0 ? one : x < 0 ? -one : 0; });
        break;
    }
    default: FOR_ROWS(c->sel, c->nrows, i, { double x = UV(u, double, i); OUTV(c->out, double)[i] = (x > 0) - (x < 0); }); break;
    }
    return FL_OK;
}

/* round/trunc/ceil/floor: mode 0 round, 1 trunc, 2 ceil, 3 floor */
static bool r_round(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n < 1 || n > 2 || !r_num1(a, 1, r, at))
        return false;
    if (n == 2) {
        if (!(fl_is_integer(&a[1]) || fl_is_unknown(&a[1])))
            return false;
        at[1] = fl_mk(FL_TYPE_INT32);
        if (fl_is_integer(&at[0])) /* round(int, n): PostgreSQL casts to numeric */
            at[0] = fl_int_as_dec(&at[0]);
    }
    *r = at[0];
    return true;
}
static void refine_round(fl_expr *e)
{
    /* numeric with a constant scale argument: result scale = min(n, input scale), >= 0 */
    if (e->type.id != FL_TYPE_DECIMAL)
        return;
    if (e->nargs == 1) {
        e->type = fl_mk_dec(e->type.precision - e->type.scale + 1 > 38 ? 38 : e->type.precision - e->type.scale + 1, 0);
        return;
    }
    const fl_expr *s = e->args[1];
    if (s->kind != FL_EXPR_CONST || s->value.is_null)
        return;
    int32_t k = s->value.v.i32;
    int32_t sc = e->type.scale;
    if (k < 0)
        k = 0;
    if (k > sc)
        k = sc;
    int32_t p = e->type.precision - sc + k + 1;
    e->type = fl_mk_dec(p > 38 ? 38 : p, k);
}

static double round_mode(double x, int mode, int32_t digits)
{
    double m = pow(10.0, digits);
    double y = x * m;
    switch (mode) {
    case 0: y = rint(y); break;
    case 1: y = trunc(y); break;
    case 2: y = ceil(y); break;
    default: y = floor(y); break;
    }
    return digits ? y / m : y;
}

/* rounds unscaled v (scale s) to k decimals (k <= s), returned at scale out_s */
static bool dec_round_mode(fl_i128 v, int32_t s, int32_t k, int mode, int32_t out_s, fl_i128 *out)
{
    if (k >= s)
        return dec_rescale(v, out_s - s, out);
    if (s - k > 38) {
        *out = 0;
        return true;
    }
    fl_i128 div = fl_pow10_i128[s - k];
    fl_i128 q = v / div, r = v % div;
    switch (mode) {
    case 0:
        if (r != 0 && (r < 0 ? -r : r) * 2 >= div)
            q += v < 0 ? -1 : 1;
        break;
    case 1: break;
    case 2:
        if (r > 0)
            q += 1;
        break;
    default:
        if (r < 0)
            q -= 1;
        break;
    }
    /* q is at scale k */
    return dec_rescale(q, out_s - k, out);
}

static fl_status round_kernel(fl_fn_call *c, int mode, fl_error *err)
{
    fl_unified u, du;
    fl_vector_unify(c->args[0], &u);
    bool has_d = c->nargs == 2;
    if (has_d)
        fl_vector_unify(c->args[1], &du);
    switch (c->out->type->id) {
    case FL_TYPE_INT32:
    case FL_TYPE_INT64: {
        size_t w = fl_type_width(c->out->type);
        FOR_ROWS(c->sel, c->nrows, i, {
            memcpy(c->out->data + (size_t)i * w, u.base->data + (size_t)fl_unified_row(&u, i) * w, w);
        });
        return FL_OK;
    }
    case FL_TYPE_DECIMAL: {
        int32_t s = c->args[0]->type->scale, os = c->out->type->scale;
        FOR_ROWS(c->sel, c->nrows, i, {
            int32_t k = has_d ? UV(du, int32_t, i) : 0;
            fl_i128 r;
            if (k < -38)
                k = -38;
            if (k < 0) {
                /* round to tens/hundreds: round at scale 0 of v / 10^-k */
                fl_i128 v = ld(&u, i), q;
                if (!dec_round_mode(v, s + (-k), 0, mode, 0, &q) || !dec_rescale(q, -k + os, &r))
                    return fl_fn_error(c, err, FL_EOVERFLOW, "numeric field overflow");
            } else if (!dec_round_mode(ld(&u, i), s, k, mode, os, &r))
                return fl_fn_error(c, err, FL_EOVERFLOW, "numeric field overflow");
            if (!dec_fits(r, c->out->type->precision))
                return fl_fn_error(c, err, FL_EOVERFLOW, "numeric field overflow");
            OUTV(c->out, fl_i128)[i] = r;
        });
        return FL_OK;
    }
    default:
        FOR_ROWS(c->sel, c->nrows, i, {
            int32_t k = has_d ? UV(du, int32_t, i) : 0;
            OUTV(c->out, double)[i] = round_mode(UV(u, double, i), mode, k);
        });
        return FL_OK;
    }
}
static fl_status k_round(fl_fn_call *c, fl_error *e) { return round_kernel(c, 0, e); }
static fl_status k_trunc(fl_fn_call *c, fl_error *e) { return round_kernel(c, 1, e); }
static fl_status k_ceil(fl_fn_call *c, fl_error *e) { return round_kernel(c, 2, e); }
static fl_status k_floor(fl_fn_call *c, fl_error *e) { return round_kernel(c, 3, e); }

static bool r_ceil(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    return n == 1 && r_round(a, n, r, at);
}

/* double functions (DBL_FN_S: raised with a SQLSTATE of its own) */
#define DBL_FN(name, EXPR, CHECK, MSG) DBL_FN_S(name, EXPR, CHECK, NULL, MSG)
#define DBL_FN_S(name, EXPR, CHECK, STATE, MSG)                                                    \
    static fl_status name(fl_fn_call *c, fl_error *err)                                            \
    {                                                                                              \
        fl_unified u;                                                                              \
        fl_vector_unify(c->args[0], &u);                                                           \
        FOR_ROWS(c->sel, c->nrows, i, {                                                            \
            double x = UV(u, double, i);                                                           \
            if (CHECK)                                                                             \
                return fl_fn_error_state(c, err, FL_EINVAL, STATE, "%s", MSG);                     \
            OUTV(c->out, double)[i] = (EXPR);                                                      \
        });                                                                                        \
        return FL_OK;                                                                              \
    }
DBL_FN(k_sqrt, sqrt(x), x < 0, "cannot take square root of a negative number")
DBL_FN(k_cbrt, cbrt(x), false, "")
DBL_FN(k_exp, exp(x), false, "")
DBL_FN(k_ln, log(x), x <= 0, x == 0 ? "cannot take logarithm of zero" : "cannot take logarithm of a negative number")
DBL_FN(k_log10, log10(x), x <= 0, x == 0 ? "cannot take logarithm of zero" : "cannot take logarithm of a negative number")
DBL_FN(k_sin, sin(x), false, "")
DBL_FN(k_cos, cos(x), false, "")
DBL_FN(k_tan, tan(x), false, "")
DBL_FN_S(k_asin, asin(x), x<-1 || x> 1, "22003", "input is out of range")
DBL_FN_S(k_acos, acos(x), x<-1 || x> 1, "22003", "input is out of range")
DBL_FN(k_atan, atan(x), false, "")
DBL_FN(k_degrees, x * 180.0 / M_PI, false, "")
DBL_FN(k_radians, x * M_PI / 180.0, false, "")

static fl_status k_power(fl_fn_call *c, fl_error *err)
{
    fl_unified a, b;
    fl_vector_unify(c->args[0], &a);
    fl_vector_unify(c->args[1], &b);
    FOR_ROWS(c->sel, c->nrows, i, {
        double x = UV(a, double, i), y = UV(b, double, i);
        if (x == 0 && y < 0)
            return fl_fn_error(c, err, FL_EINVAL, "zero raised to a negative power is undefined");
        if (x < 0 && floor(y) != y)
            return fl_fn_error(c, err, FL_EINVAL, "a negative number raised to a non-integer power yields a complex result");
        double r = pow(x, y);
        if (isinf(r) && !isinf(x) && !isinf(y))
            return fl_fn_error_state(c, err, FL_EOVERFLOW, "22003", "value out of range: overflow");
        OUTV(c->out, double)[i] = r;
    });
    return FL_OK;
}
static fl_status k_logb(fl_fn_call *c, fl_error *err)
{
    fl_unified a, b;
    fl_vector_unify(c->args[0], &a);
    fl_vector_unify(c->args[1], &b);
    FOR_ROWS(c->sel, c->nrows, i, {
        double base = UV(a, double, i), x = UV(b, double, i);
        if (base <= 0 || x <= 0)
            return fl_fn_error(c, err, FL_EINVAL, "cannot take logarithm of a %s", (base == 0 || x == 0) ? "zero" : "negative number");
        if (base == 1)
            return fl_fn_error_state(c, err, FL_EINVAL, "22012", "division by zero");
        OUTV(c->out, double)[i] = log(x) / log(base);
    });
    return FL_OK;
}
static fl_status k_atan2(fl_fn_call *c, fl_error *err)
{
    (void)err;
    fl_unified a, b;
    fl_vector_unify(c->args[0], &a);
    fl_vector_unify(c->args[1], &b);
    FOR_ROWS(c->sel, c->nrows, i, { OUTV(c->out, double)[i] = atan2(UV(a, double, i), UV(b, double, i)); });
    return FL_OK;
}
static bool r_pi(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    (void)a, (void)at;
    if (n)
        return false;
    *r = fl_mk(FL_TYPE_FLOAT64);
    return true;
}
static fl_status k_pi(fl_fn_call *c, fl_error *err)
{
    (void)err;
    FOR_ROWS(c->sel, c->nrows, i, { OUTV(c->out, double)[i] = M_PI; });
    return FL_OK;
}

/* random(): xorshift seeded per eval state; not deterministic */
typedef struct rnd_state { uint64_t s; } rnd_state;
static fl_status k_random(fl_fn_call *c, fl_error *err)
{
    rnd_state *r = fl_eval_state_aux(c->state, c->expr, sizeof *r, NULL, err);
    if (!r)
        return err->code;
    if (!r->s)
        r->s = (uint64_t)(uintptr_t)r ^ 0x9E3779B97F4A7C15ULL ^ (uint64_t)(c->env ? c->env->statement_time_us : 1);
    FOR_ROWS(c->sel, c->nrows, i, {
        r->s ^= r->s << 13;
        r->s ^= r->s >> 7;
        r->s ^= r->s << 17;
        OUTV(c->out, double)[i] = (double)(r->s >> 11) / 9007199254740992.0;
    });
    return FL_OK;
}

/* gcd / lcm on integers */
static bool r_int2(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !fl_is_integer(&a[0]) || !fl_is_integer(&a[1]))
        return false;
    at[0] = at[1] = *r = fl_mk(a[0].id == FL_TYPE_INT64 || a[1].id == FL_TYPE_INT64 ? FL_TYPE_INT64 : FL_TYPE_INT32);
    return true;
}
static int64_t gcd64(int64_t a, int64_t b)
{
    uint64_t x = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a, y = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
    while (y) {
        uint64_t t = x % y;
        x = y;
        y = t;
    }
    return (int64_t)x;
}
static fl_status gl_kernel(fl_fn_call *c, bool lcm, fl_error *err)
{
    fl_unified a, b;
    fl_vector_unify(c->args[0], &a);
    fl_vector_unify(c->args[1], &b);
    bool big = c->out->type->id == FL_TYPE_INT64;
    FOR_ROWS(c->sel, c->nrows, i, {
        int64_t x = big ? UV(a, int64_t, i) : UV(a, int32_t, i), y = big ? UV(b, int64_t, i) : UV(b, int32_t, i);
        int64_t g = gcd64(x, y), r;
        if (!lcm)
            r = g;
        else if (x == 0 || y == 0)
            r = 0;
        else if (__builtin_mul_overflow(x / g, y, &r))
            return fl_fn_error_state(c, err, FL_EOVERFLOW, "22003", "%s out of range",
                                     big ? "bigint" : "integer");
        if (r < 0)
            r = -r;
        if (r < 0 || (!big && r > INT32_MAX))
            return fl_fn_error_state(c, err, FL_EOVERFLOW, "22003", "%s out of range",
                                     big ? "bigint" : "integer");
        if (big)
            OUTV(c->out, int64_t)[i] = r;
        else
            OUTV(c->out, int32_t)[i] = (int32_t)r;
    });
    return FL_OK;
}
static fl_status k_gcd(fl_fn_call *c, fl_error *e) { return gl_kernel(c, false, e); }
static fl_status k_lcm(fl_fn_call *c, fl_error *e) { return gl_kernel(c, true, e); }

#define SCALAR(nm, r, k) {.name = nm, .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r, .kernel = k}
#define SCALAR_R(nm, r, k, rf)                                                                     \
    {.name = nm, .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r, .kernel = k, .refine = rf}
static const fl_func funcs[] = {
    SCALAR("abs", r_num1, k_abs),
    SCALAR("sign", r_sign, k_sign),
    SCALAR_R("round", r_round, k_round, refine_round),
    SCALAR_R("trunc", r_round, k_trunc, refine_round),
    SCALAR_R("truncate", r_round, k_trunc, refine_round),
    SCALAR_R("ceil", r_ceil, k_ceil, refine_round),
    SCALAR_R("ceiling", r_ceil, k_ceil, refine_round),
    SCALAR_R("floor", r_ceil, k_floor, refine_round),
    SCALAR("sqrt", r_dbl1, k_sqrt),
    SCALAR("cbrt", r_dbl1, k_cbrt),
    SCALAR("exp", r_dbl1, k_exp),
    SCALAR("ln", r_dbl1, k_ln),
    SCALAR("log", r_dbl1, k_log10),
    SCALAR("log10", r_dbl1, k_log10),
    SCALAR("log", r_dbl2, k_logb),
    SCALAR("power", r_dbl2, k_power),
    SCALAR("pow", r_dbl2, k_power),
    SCALAR("sin", r_dbl1, k_sin),
    SCALAR("cos", r_dbl1, k_cos),
    SCALAR("tan", r_dbl1, k_tan),
    SCALAR("asin", r_dbl1, k_asin),
    SCALAR("acos", r_dbl1, k_acos),
    SCALAR("atan", r_dbl1, k_atan),
    SCALAR("atan2", r_dbl2, k_atan2),
    SCALAR("degrees", r_dbl1, k_degrees),
    SCALAR("radians", r_dbl1, k_radians),
    SCALAR("pi", r_pi, k_pi),
    SCALAR("gcd", r_int2, k_gcd),
    SCALAR("lcm", r_int2, k_lcm),
    {.name = "random", .kind = FL_FUNC_SCALAR, .deterministic = false, .resolve = r_pi, .kernel = k_random},
};
const fl_func_table fl_funcs_math = {funcs, sizeof funcs / sizeof funcs[0]};
