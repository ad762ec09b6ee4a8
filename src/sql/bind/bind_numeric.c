/*
 * bind_numeric.c - PostgreSQL-like result scales for NUMERIC arithmetic
 * that floe's fixed-scale DECIMAL(P,S) can match at bind time.
 *
 * floe's DECIMAL has one precision and scale per column (at most 38
 * digits); PostgreSQL's numeric carries a display scale per value. The
 * operator rules (func/arith.c: MUL scale s1 + s2, precision p1 + p2 + 1,
 * scale given up past 38 digits) therefore depend on the operands'
 * declared precisions. Two things here bring the answers closer to PG's:
 *
 * 1. Integer literals next to a DECIMAL in + - * % are typed with their own
 *    digit count, DECIMAL(d,0), instead of DECIMAL(10,0)/(19,0) for
 *    int/bigint. `amount * (1 - rate) * (1 + rate)` then needs 29 digits,
 *    not 47, and keeps PG's exact scale 2+4+4 instead of being cut to 6.
 *    (Spark types literals the same way.) Division keeps the wide type: its
 *    scale rule (s1 + p2 + 1) grows with the divisor's precision.
 *
 * 2. Division of two constants gets PostgreSQL's select_div_scale()
 *    (numeric.c): with weights w1, w2 and first digits f1, f2 of the
 *    operands in base 10000, qweight = w1 - w2 - (f1 <= f2 ? 1 : 0) and
 *    scale = max(16 - 4*qweight, dscale1, dscale2), so 1::numeric/3 is
 *    0.33333333333333333333 and 10.0/4 is 2.5000000000000000. A display
 *    scale is the literal's written scale; an unconstrained NUMERIC
 *    (DECIMAL(38,9)) value counts without its trailing zeros. The scale is
 *    lowered when the quotient or the kernel's rescaled dividend would
 *    pass 38 digits. Non-constant divisions keep the plan-time rule
 *    (src/sql/bind/README.md, "Numeric scales").
 */
#include <math.h>
#include <string.h>

#include "sql/bind/bind.h"

static bool is_int_type(const fl_type *t)
{
    return t->id == FL_TYPE_INT32 || t->id == FL_TYPE_INT64;
}

static int64_t int_value(const fl_value *v)
{
    return v->type.id == FL_TYPE_INT32 ? v->v.i32 : v->v.i64;
}

static int digits_u128(unsigned __int128 u)
{
    int d = 1;
    while (u >= 10) {
        u /= 10;
        d++;
    }
    return d;
}

static bool is_int_const(const fl_expr *e)
{
    return e->kind == FL_EXPR_CONST && !e->value.is_null && is_int_type(&e->value.type);
}

fl_status fl_bind_numeric_args(fl_bctx *b, const char *op, fl_expr **args, uint32_t n,
                               fl_error *err)
{
    if (n != 2 || !op[0] || op[1] || !strchr("+-*%", op[0]))
        return FL_OK;
    for (int side = 0; side < 2; side++) {
        fl_expr *c = args[side], *o = args[1 - side];
        if (!is_int_const(c) || o->type.id != FL_TYPE_DECIMAL)
            continue;
        int64_t v = int_value(&c->value);
        unsigned __int128 u = v < 0 ? (unsigned __int128)(-(__int128)v) : (unsigned __int128)v;
        fl_type t;
        memset(&t, 0, sizeof t);
        t.id = FL_TYPE_DECIMAL;
        t.precision = digits_u128(u);
        t.scale = 0;
        FL_TRY(fl_expr_cast(b->a, c, &t, &args[side], err));
        args[side] = fl_front_fold(b->a, args[side]);
    }
    return FL_OK;
}

/* one constant operand of a division as PostgreSQL sees it */
typedef struct pgnum {
    unsigned __int128 u; /* |unscaled| */
    int32_t scale;       /* floe's scale of u */
    int32_t dscale;      /* PostgreSQL's display scale */
    int weight, first;   /* base-10000 weight and first digit (0, 0 for zero) */
} pgnum;

static bool pgnum_of(const fl_expr *e, pgnum *p)
{
    if (e->kind != FL_EXPR_CONST || e->value.is_null)
        return false;
    memset(p, 0, sizeof *p);
    const fl_value *v = &e->value;
    if (is_int_type(&v->type)) {
        int64_t x = int_value(v);
        p->u = x < 0 ? (unsigned __int128)(-(__int128)x) : (unsigned __int128)x;
    } else if (v->type.id == FL_TYPE_DECIMAL) {
        p->u = v->v.dec < 0 ? (unsigned __int128)(-v->v.dec) : (unsigned __int128)v->v.dec;
        p->scale = p->dscale = v->type.scale;
        if (v->type.precision == 38 && v->type.scale == 9) {
            /* unconstrained NUMERIC: no written scale to keep */
            unsigned __int128 w = p->u;
            while (p->dscale > 0 && w % 10 == 0 && w) {
                w /= 10;
                p->dscale--;
            }
            if (!w)
                p->dscale = 0;
        }
    } else {
        return false;
    }
    if (p->u == 0)
        return true;
    /* digits with the decimal point aligned to base-10000 groups */
    char ds[48];
    int nd = 0;
    for (unsigned __int128 w = p->u; w; w /= 10)
        ds[nd++] = (char)('0' + (int)(w % 10)); /* reversed */
    int nint = nd > p->scale ? nd - p->scale : 0;
    int intg = (nint + 3) / 4, frag = (p->scale + 3) / 4;
    /* digit at position k from the left of the padded layout: intg*4 integer
     * digits then frag*4 fraction digits */
    for (int g = 0; g < intg + frag; g++) {
        int val = 0;
        for (int k = g * 4; k < g * 4 + 4; k++) {
            /* power of ten of this position: intg*4 - 1 - k (negative: fraction) */
            int pw = intg * 4 - 1 - k;
            int idx = pw + p->scale; /* index in ds (reversed unscaled digits) */
            int d = idx >= 0 && idx < nd ? ds[idx] - '0' : 0;
            val = val * 10 + d;
        }
        if (val) {
            p->weight = intg - 1 - g;
            p->first = val;
            return true;
        }
    }
    return true;
}

void fl_bind_numeric_div(const char *op, fl_expr *const *orig, uint32_t n, fl_expr *call)
{
    if (n != 2 || strcmp(op, "/") != 0 || !call || call->kind != FL_EXPR_CALL ||
        call->type.id != FL_TYPE_DECIMAL || call->nargs != 2)
        return;
    pgnum a, d;
    if (!pgnum_of(orig[0], &a) || !pgnum_of(orig[1], &d) || d.u == 0)
        return;
    int qweight = a.weight - d.weight;
    if (a.first <= d.first)
        qweight--;
    int32_t s = 16 - qweight * 4;
    if (s < a.dscale)
        s = a.dscale;
    if (s < d.dscale)
        s = d.dscale;
    if (s < 0)
        s = 0;
    /* integer digits of the quotient */
    long double q = ((long double)a.u / powl(10.0L, a.scale)) / ((long double)d.u / powl(10.0L, d.scale));
    int32_t intd = q >= 1.0L ? (int32_t)floorl(log10l(q)) + 2 : 1; /* +1: rounding carry */
    if (s > 38 - intd)
        s = 38 - intd;
    /* the kernel computes x * 10^(s + sb - sa) / y in 128 bits (func/arith.c) */
    int32_t sa = call->args[0]->type.scale, sb = call->args[1]->type.scale;
    int32_t dx = digits_u128(a.u), dy = digits_u128(d.u);
    while (s > 0 && (s + sb - sa >= 0 ? dx + s + sb - sa > 38 : dy + sa - sb - s > 38))
        s--;
    if (s < 0 || s == call->type.scale)
        return;
    call->type.precision = 38;
    call->type.scale = s;
}
