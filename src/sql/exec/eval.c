/*
 * eval.c - how the executor evaluates expressions: through expr.h
 * (fl_expr_eval / fl_expr_select with one fl_eval_state per thread), with
 * column references short-circuited (an operator reads the input vector
 * itself instead of copying it).
 */
#include <stdlib.h>
#include <string.h>

#include "sql/exec/exec_internal.h"

fl_status ex_eval_state_new(const fl_eval_env *env, fl_eval_state **out, fl_error *err)
{
    *out = NULL;
    return fl_eval_state_new(env, out, err);
}

void ex_eval_state_free(fl_eval_state *st)
{
    fl_eval_state_free(st);
}

/* ---- entry points ---- */

fl_status ex_eval(ex_thread *th, const fl_expr *e, const fl_batch *in, const fl_sel *sel,
                  fl_vector *out, fl_error *err)
{
    return fl_expr_eval(th->st, e, in, sel, out, err);
}

fl_status ex_select(ex_thread *th, const fl_expr *e, const fl_batch *in, const fl_sel *sel,
                    fl_sel *out, fl_error *err)
{
    FL_TRY(ex_sel_reserve(out, in->nrows, err));
    return fl_expr_select(th->st, e, in, sel, out, err);
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
