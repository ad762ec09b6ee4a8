/*
 * compare.c - comparison operators = <> < <= > >= for every scalar type,
 * plus the typed row comparison the evaluator uses for IN lists and IS
 * DISTINCT FROM (fl_cmp_rows).
 *
 * Both sides are cast to a common type at bind time (fl_type_common),
 * except decimals of equal scale, which compare unscaled directly. Strings
 * and bytes compare as unsigned bytes (C collation, as the issue asks);
 * floats order NaN above everything and NaN = NaN (PostgreSQL); intervals
 * compare by their span with 30-day months (PostgreSQL interval_cmp).
 */
#include <math.h>

#include "sql/func/func_internal.h"

enum { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE };

static bool comparable(const fl_type *t)
{
    return !fl_type_is_nested(t);
}

static bool r_cmp(const fl_type *args, uint32_t n, fl_type *result, fl_type *at)
{
    if (n != 2)
        return false;
    *result = fl_mk(FL_TYPE_BOOLEAN);
    const fl_type *a = &args[0], *b = &args[1];
    if (a->id == FL_TYPE_DECIMAL && b->id == FL_TYPE_DECIMAL && a->scale == b->scale) {
        at[0] = *a;
        at[1] = *b;
        return true;
    }
    /* unknown literal vs interval: the literal is an interval */
    fl_type t;
    if (!fl_type_common(a, b, &t) || !comparable(&t))
        return false;
    at[0] = at[1] = t;
    return true;
}

static inline int fcmp(double x, double y)
{
    if (isnan(x))
        return isnan(y) ? 0 : 1;
    if (isnan(y))
        return -1;
    return (x > y) - (x < y);
}

static inline int bcmp_(const uint8_t *a, size_t la, const uint8_t *b, size_t lb)
{
    int r = memcmp(a, b, la < lb ? la : lb);
    if (r)
        return r < 0 ? -1 : 1;
    return (la > lb) - (la < lb);
}

static inline fl_i128 iv_span(const uint8_t *p)
{
    fl_interval iv;
    memcpy(&iv, p, 16);
    return ((fl_i128)iv.months * 30 + iv.days) * (fl_i128)US_PER_DAY + iv.micros;
}

int fl_cmp_rows(const fl_unified *ua, uint32_t i, const fl_unified *ub, uint32_t j)
{
    const fl_vector *a = ua->base, *b = ub->base;
    uint32_t ra = fl_unified_row(ua, i), rb = fl_unified_row(ub, j);
    switch (a->type->id) {
    case FL_TYPE_BOOLEAN: return (a->data[ra] > b->data[rb]) - (a->data[ra] < b->data[rb]);
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: {
        int32_t x = ((const int32_t *)(const void *)a->data)[ra], y = ((const int32_t *)(const void *)b->data)[rb];
        return (x > y) - (x < y);
    }
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: {
        int64_t x = ((const int64_t *)(const void *)a->data)[ra], y = ((const int64_t *)(const void *)b->data)[rb];
        return (x > y) - (x < y);
    }
    case FL_TYPE_FLOAT32:
        return fcmp(((const float *)(const void *)a->data)[ra], ((const float *)(const void *)b->data)[rb]);
    case FL_TYPE_FLOAT64:
        return fcmp(((const double *)(const void *)a->data)[ra], ((const double *)(const void *)b->data)[rb]);
    case FL_TYPE_DECIMAL: {
        fl_i128 x, y;
        memcpy(&x, a->data + (size_t)ra * 16, 16);
        memcpy(&y, b->data + (size_t)rb * 16, 16);
        int32_t sa = a->type->scale, sb = b->type->scale;
        if (sa != sb) {
            /* compare at the larger scale; on overflow the magnitude decides */
            if (sa < sb && !dec_rescale(x, sb - sa, &x))
                return x < 0 ? -1 : 1;
            if (sb < sa && !dec_rescale(y, sa - sb, &y))
                return y < 0 ? 1 : -1;
        }
        return (x > y) - (x < y);
    }
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: {
        size_t la, lb;
        const uint8_t *pa = fl_vector_bytes(a, ra, &la), *pb = fl_vector_bytes(b, rb, &lb);
        return bcmp_(pa, la, pb, lb);
    }
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED: {
        size_t w = fl_type_width(a->type);
        if (fl_type_is_interval(a->type)) {
            fl_i128 x = iv_span(a->data + (size_t)ra * 16), y = iv_span(b->data + (size_t)rb * 16);
            return (x > y) - (x < y);
        }
        int r = memcmp(a->data + (size_t)ra * w, b->data + (size_t)rb * w, w);
        return (r > 0) - (r < 0);
    }
    default: return 0;
    }
}

/* Typed loops: the switch on op is outside the row loop; the common shapes
 * (flat column vs constant, flat vs flat) get loops without index maps. */
#define CMP_LOOPS(A, B)                                                                            \
    do {                                                                                           \
        switch (op) {                                                                              \
        case C_EQ: FOR_ROWS(sel, n, i, { o[i] = (A) == (B); }); break;                             \
        case C_NE: FOR_ROWS(sel, n, i, { o[i] = (A) != (B); }); break;                             \
        case C_LT: FOR_ROWS(sel, n, i, { o[i] = (A) < (B); }); break;                              \
        case C_LE: FOR_ROWS(sel, n, i, { o[i] = (A) <= (B); }); break;                             \
        case C_GT: FOR_ROWS(sel, n, i, { o[i] = (A) > (B); }); break;                              \
        default: FOR_ROWS(sel, n, i, { o[i] = (A) >= (B); }); break;                               \
        }                                                                                          \
    } while (0)
#define CMP_NUM(T)                                                                                 \
    do {                                                                                           \
        const T *pa = (const T *)(const void *)ua.base->data, *pb = (const T *)(const void *)ub.base->data; \
        bool fa = !ua.idx && !ua.constant, fb = !ub.idx && !ub.constant;                           \
        if (fa && ub.constant) {                                                                   \
            T kb = pb[0];                                                                          \
            CMP_LOOPS(pa[i], kb);                                                                  \
        } else if (ua.constant && fb) {                                                            \
            T ka = pa[0];                                                                          \
            CMP_LOOPS(ka, pb[i]);                                                                  \
        } else if (fa && fb)                                                                       \
            CMP_LOOPS(pa[i], pb[i]);                                                               \
        else                                                                                       \
            CMP_LOOPS(UV(ua, T, i), UV(ub, T, i));                                                 \
    } while (0)

#define CMP_GEN(EXPR)                                                                              \
    do {                                                                                           \
        switch (op) {                                                                              \
        case C_EQ: FOR_ROWS(sel, n, i, { o[i] = (EXPR) == 0; }); break;                            \
        case C_NE: FOR_ROWS(sel, n, i, { o[i] = (EXPR) != 0; }); break;                            \
        case C_LT: FOR_ROWS(sel, n, i, { o[i] = (EXPR) < 0; }); break;                             \
        case C_LE: FOR_ROWS(sel, n, i, { o[i] = (EXPR) <= 0; }); break;                            \
        case C_GT: FOR_ROWS(sel, n, i, { o[i] = (EXPR) > 0; }); break;                             \
        default: FOR_ROWS(sel, n, i, { o[i] = (EXPR) >= 0; }); break;                              \
        }                                                                                          \
    } while (0)

static inline int str_cmp_rows(const fl_unified *ua, const fl_unified *ub, uint32_t i)
{
    size_t la, lb;
    const uint8_t *pa = ubytes(ua, i, &la), *pb = ubytes(ub, i, &lb);
    return bcmp_(pa, la, pb, lb);
}

static inline int dec_cmp_same(const fl_unified *ua, const fl_unified *ub, uint32_t i)
{
    fl_i128 x, y;
    memcpy(&x, ua->base->data + (size_t)fl_unified_row(ua, i) * 16, 16);
    memcpy(&y, ub->base->data + (size_t)fl_unified_row(ub, i) * 16, 16);
    return (x > y) - (x < y);
}

static fl_status cmp(fl_fn_call *c, int op, fl_error *err)
{
    (void)err;
    fl_unified ua, ub;
    fl_vector_unify(c->args[0], &ua);
    fl_vector_unify(c->args[1], &ub);
    uint8_t *o = c->out->data;
    const fl_sel *sel = c->sel;
    uint32_t n = c->nrows;
    const fl_type *t = c->args[0]->type;
    switch (t->id) {
    case FL_TYPE_BOOLEAN: CMP_NUM(uint8_t); break;
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: CMP_NUM(int32_t); break;
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: CMP_NUM(int64_t); break;
    case FL_TYPE_FLOAT32: CMP_GEN(fcmp(UV(ua, float, i), UV(ub, float, i))); break;
    case FL_TYPE_FLOAT64: CMP_GEN(fcmp(UV(ua, double, i), UV(ub, double, i))); break;
    case FL_TYPE_DECIMAL:
        if (c->args[0]->type->scale == c->args[1]->type->scale)
            CMP_GEN(dec_cmp_same(&ua, &ub, i));
        else
            CMP_GEN(fl_cmp_rows(&ua, i, &ub, i));
        break;
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: CMP_GEN(str_cmp_rows(&ua, &ub, i)); break;
    default: CMP_GEN(fl_cmp_rows(&ua, i, &ub, i)); break;
    }
    return FL_OK;
}

static fl_status k_eq(fl_fn_call *c, fl_error *e) { return cmp(c, C_EQ, e); }
static fl_status k_ne(fl_fn_call *c, fl_error *e) { return cmp(c, C_NE, e); }
static fl_status k_lt(fl_fn_call *c, fl_error *e) { return cmp(c, C_LT, e); }
static fl_status k_le(fl_fn_call *c, fl_error *e) { return cmp(c, C_LE, e); }
static fl_status k_gt(fl_fn_call *c, fl_error *e) { return cmp(c, C_GT, e); }
static fl_status k_ge(fl_fn_call *c, fl_error *e) { return cmp(c, C_GE, e); }

#define SCALAR(nm, r, k) {.name = nm, .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r, .kernel = k}
static const fl_func funcs[] = {
    SCALAR("=", r_cmp, k_eq),  SCALAR("<>", r_cmp, k_ne), SCALAR("!=", r_cmp, k_ne),
    SCALAR("<", r_cmp, k_lt),  SCALAR("<=", r_cmp, k_le), SCALAR(">", r_cmp, k_gt),
    SCALAR(">=", r_cmp, k_ge),
};
const fl_func_table fl_funcs_compare = {funcs, sizeof funcs / sizeof funcs[0]};
