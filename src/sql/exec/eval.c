/*
 * eval.c - how the executor evaluates expressions: through expr.h
 * (fl_expr_eval / fl_expr_select with one fl_eval_state per thread), with
 * column references short-circuited (an operator reads the input vector
 * itself instead of copying it).
 *
 * The evaluator is implemented by src/sql/eval/ (another owner). Until it is
 * linked in, the references below are weak, and a minimal local evaluator
 * (COLUMN, CONST, CALL of a kernel, AND, NOT) runs instead, so the
 * executor's operators are testable on their own. When fl_expr_eval is
 * present it is always used.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/exec/exec_internal.h"

#pragma weak fl_expr_eval
#pragma weak fl_expr_select
#pragma weak fl_eval_state_new
#pragma weak fl_eval_state_free

fl_status ex_eval_state_new(const fl_eval_env *env, fl_eval_state **out, fl_error *err)
{
    *out = NULL;
    if (fl_eval_state_new)
        return fl_eval_state_new(env, out, err);
    return FL_OK;
}

void ex_eval_state_free(fl_eval_state *st)
{
    if (st && fl_eval_state_free)
        fl_eval_state_free(st);
}

/* ---- the fallback evaluator (only without src/sql/eval) ---- */

static fl_status const_vector(const fl_value *v, uint32_t nrows, fl_vector *out, fl_error *err)
{
    fl_vector_reset(out);
    FL_TRY(fl_vector_reserve(out, 1, err));
    if (v->is_null) {
        FL_TRY(fl_vector_append_null(out, err));
    } else if (fl_type_is_varlen(out->type)) {
        FL_TRY(fl_vector_append_bytes(out, v->v.bytes.ptr, v->v.bytes.len, err));
    } else {
        size_t w = fl_type_width(out->type);
        uint8_t buf[16] = {0};
        switch (out->type->id) {
        case FL_TYPE_BOOLEAN: buf[0] = v->v.b; break;
        case FL_TYPE_INT32:
        case FL_TYPE_DATE: memcpy(buf, &v->v.i32, 4); break;
        case FL_TYPE_FLOAT32: memcpy(buf, &v->v.f32, 4); break;
        case FL_TYPE_FLOAT64: memcpy(buf, &v->v.f64, 8); break;
        case FL_TYPE_DECIMAL: memcpy(buf, &v->v.dec, 16); break;
        case FL_TYPE_UUID:
        case FL_TYPE_FIXED:
            if (v->v.bytes.len != w)
                return fl_errorf(err, FL_EINVAL, "constant of %zu bytes for a %zu-byte type",
                                 v->v.bytes.len, w);
            memcpy(buf, v->v.bytes.ptr, w);
            break;
        default: memcpy(buf, &v->v.i64, 8); break;
        }
        if (w > sizeof buf)
            return fl_errorf(err, FL_EUNSUPPORTED, "constant wider than 16 bytes");
        FL_TRY(fl_vector_append_fixed(out, buf, err));
    }
    out->encoding = FL_VEC_CONSTANT;
    out->len = nrows;
    return FL_OK;
}

static fl_status fb_eval(ex_thread *th, const fl_expr *e, const fl_batch *in, const fl_sel *sel,
                         fl_vector *out, fl_error *err);

static fl_status fb_call(ex_thread *th, const fl_expr *e, const fl_batch *in, const fl_sel *sel,
                         fl_vector *out, fl_error *err)
{
    if (!e->fn || !e->fn->kernel)
        return fl_errorf(err, FL_EUNSUPPORTED, "function call without a kernel");
    fl_vector args[8];
    const fl_vector *ap[8];
    if (e->nargs > 8)
        return fl_errorf(err, FL_EUNSUPPORTED, "more than 8 arguments");
    fl_status rc = FL_OK;
    uint32_t made = 0;
    for (; made < e->nargs && !rc; made++) {
        rc = fl_vector_init(&args[made], &e->args[made]->type, err);
        if (!rc)
            rc = fb_eval(th, e->args[made], in, sel, &args[made], err);
        ap[made] = &args[made];
    }
    if (!rc) {
        fl_vector_reset(out);
        fl_fn_call c = {.expr = e,
                        .args = ap,
                        .nargs = e->nargs,
                        .sel = sel,
                        .nrows = in->nrows,
                        .out = out,
                        .state = th->st,
                        .env = &th->x->env};
        rc = e->fn->kernel(&c, err);
    }
    for (uint32_t i = 0; i < made; i++)
        fl_vector_destroy(&args[i]);
    return rc;
}

static fl_status fb_eval(ex_thread *th, const fl_expr *e, const fl_batch *in, const fl_sel *sel,
                         fl_vector *out, fl_error *err)
{
    switch (e->kind) {
    case FL_EXPR_COLUMN:
        if (e->column >= in->ncols)
            return fl_errorf(err, FL_EINVAL, "column %u out of range", e->column);
        {
            fl_vector_reset(out);
            uint32_t *idx = malloc(((size_t)in->nrows + 1) * sizeof *idx);
            if (!idx)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            for (uint32_t i = 0; i < in->nrows; i++)
                idx[i] = i;
            fl_status rc = ex_vec_append_rows(out, &in->cols[e->column], idx, in->nrows, err);
            free(idx);
            return rc;
        }
    case FL_EXPR_CONST: return const_vector(&e->value, in->nrows, out, err);
    case FL_EXPR_CALL: return fb_call(th, e, in, sel, out, err);
    default:
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "expression kind %d needs the SQL evaluator (src/sql/eval)", (int)e->kind);
    }
}

static fl_status fb_select(ex_thread *th, const fl_expr *e, const fl_batch *in, const fl_sel *sel,
                           fl_sel *out, fl_error *err)
{
    fl_vector v;
    FL_TRY(fl_vector_init(&v, &e->type, err));
    fl_status rc = fb_eval(th, e, in, sel, &v, err);
    if (!rc) {
        fl_unified u;
        fl_vector_unify(&v, &u);
        uint32_t n = sel ? sel->count : in->nrows, k = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t r = sel ? sel->idx[i] : i;
            if (fl_unified_is_valid(&u, r) && u.base->data[fl_unified_row(&u, r)])
                out->idx[k++] = r;
        }
        out->count = k;
    }
    fl_vector_destroy(&v);
    return rc;
}

/* ---- entry points ---- */

fl_status ex_eval(ex_thread *th, const fl_expr *e, const fl_batch *in, const fl_sel *sel,
                  fl_vector *out, fl_error *err)
{
    if (fl_expr_eval)
        return fl_expr_eval(th->st, e, in, sel, out, err);
    return fb_eval(th, e, in, sel, out, err);
}

fl_status ex_select(ex_thread *th, const fl_expr *e, const fl_batch *in, const fl_sel *sel,
                    fl_sel *out, fl_error *err)
{
    FL_TRY(ex_sel_reserve(out, in->nrows, err));
    if (fl_expr_select)
        return fl_expr_select(th->st, e, in, sel, out, err);
    return fb_select(th, e, in, sel, out, err);
}

fl_status ex_exprs_eval(ex_thread *th, ex_exprs *xs, const fl_batch *in, const fl_sel *sel,
                        fl_error *err)
{
    if (!xs->inited) {
        xs->vecs = calloc(xs->n ? xs->n : 1, sizeof *xs->vecs);
        xs->ptrs = calloc(xs->n ? xs->n : 1, sizeof *xs->ptrs);
        if (!xs->vecs || !xs->ptrs)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < xs->n; i++)
            FL_TRY(fl_vector_init(&xs->vecs[i], &xs->e[i]->type, err));
        xs->inited = true;
    }
    for (uint32_t i = 0; i < xs->n; i++) {
        const fl_expr *e = xs->e[i];
        if (e->kind == FL_EXPR_COLUMN && e->column < in->ncols) {
            xs->ptrs[i] = &in->cols[e->column];
            continue;
        }
        FL_TRY(ex_eval(th, e, in, sel, &xs->vecs[i], err));
        xs->ptrs[i] = &xs->vecs[i];
    }
    return FL_OK;
}

void ex_exprs_free(ex_exprs *xs)
{
    if (xs->vecs)
        for (uint32_t i = 0; i < xs->n; i++)
            fl_vector_destroy(&xs->vecs[i]);
    free(xs->vecs);
    free((void *)xs->ptrs);
    xs->vecs = NULL;
    xs->ptrs = NULL;
    xs->inited = false;
}
