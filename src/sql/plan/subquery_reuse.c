/*
 * subquery_reuse.c - `x = (SELECT max(x) FROM same-input)` computed over one
 * evaluation of the input (TPC-H Q15).
 *
 * WHAT
 *   Q15 filters its revenue view by `total_revenue = (SELECT
 *   max(total_revenue) FROM revenue)`: the view (an aggregate over three
 *   months of lineitem) is planned twice, once as the FILTER's input and
 *   once inside the uncorrelated scalar subquery. When the subquery's plan
 *   is an ungrouped min/max (plain, no FILTER/DISTINCT/ORDER BY) of column c
 *   over a plan structurally equal to the FILTER's input R, and the filter
 *   compares exactly that column c of R with it, the FILTER becomes
 *       PROJECT R's columns (FILTER #c = #w (WINDOW R + min/max(#c) OVER ()))
 *   so R is computed once and its rows carry the extreme value. The window
 *   over one partition computes the same value the subquery would (NULLs
 *   ignored; no rows: no rows either way), and `=` gives the same rows.
 *
 * LIMITS
 *   Only when R is an aggregate's output (through PROJECT/FILTER) estimated
 *   at most 1M rows: the WINDOW materializes R, which must stay small (a bare
 *   scan is cheaper to read twice than to hold). Structural equality covers
 *   SCAN (Iceberg, Parquet), PROJECT, FILTER, AGG without grouping sets and
 *   JOIN; anything else is "different".
 *
 * OWNERSHIP
 *   New nodes and expressions live in pc->arena; the subquery's plan is left
 *   unreferenced in the arena.
 */
#include <string.h>

#include "sql/expr.h"
#include "sql/plan/prune_cols.h"

static bool expr_arr_equal(fl_expr *const *x, fl_expr *const *y, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!fl_expr_equal(x[i], y[i]))
            return false;
    return true;
}

static bool scan_equal(const fl_plan_scan *x, const fl_plan_scan *y)
{
    if (x->kind != y->kind || (x->kind != FL_SCAN_ICEBERG && x->kind != FL_SCAN_PARQUET) ||
        x->ncolumns != y->ncolumns || x->limit != y->limit ||
        memcmp(x->columns, y->columns, x->ncolumns * sizeof *x->columns) != 0 ||
        !fl_expr_equal(x->filter, y->filter))
        return false;
    if (x->kind == FL_SCAN_ICEBERG)
        return x->meta == y->meta && x->snapshot_id == y->snapshot_id;
    if (x->nfiles != y->nfiles)
        return false;
    for (uint32_t i = 0; i < x->nfiles; i++)
        if (strcmp(x->files[i], y->files[i]) != 0)
            return false;
    return true;
}

static bool agg_equal(const fl_plan *x, const fl_plan *y)
{
    if (x->u.agg.nkeys != y->u.agg.nkeys || x->u.agg.naggs != y->u.agg.naggs ||
        x->u.agg.nsets || y->u.agg.nsets ||
        !expr_arr_equal(x->u.agg.keys, y->u.agg.keys, x->u.agg.nkeys))
        return false;
    for (uint32_t i = 0; i < x->u.agg.naggs; i++) {
        const fl_agg_call *a = &x->u.agg.aggs[i], *b = &y->u.agg.aggs[i];
        if (a->fn != b->fn || a->nargs != b->nargs || a->distinct != b->distinct ||
            a->norder || b->norder || !fl_type_equal(&a->result, &b->result) ||
            !expr_arr_equal(a->args, b->args, a->nargs) || !fl_expr_equal(a->filter, b->filter))
            return false;
    }
    return true;
}

static bool plan_equal(const fl_plan *x, const fl_plan *y, int depth)
{
    if (x == y)
        return true;
    if (depth > 64 || x->kind != y->kind || x->nchildren != y->nchildren ||
        x->schema.nfields != y->schema.nfields)
        return false;
    for (uint32_t i = 0; i < x->schema.nfields; i++)
        if (!fl_type_equal(&x->schema.fields[i].type, &y->schema.fields[i].type))
            return false;
    for (uint32_t i = 0; i < x->nchildren; i++)
        if (!plan_equal(x->children[i], y->children[i], depth + 1))
            return false;
    switch (x->kind) {
    case FL_PLAN_SCAN: return scan_equal(&x->u.scan, &y->u.scan);
    case FL_PLAN_PROJECT:
        return expr_arr_equal(x->u.project.exprs, y->u.project.exprs, x->schema.nfields);
    case FL_PLAN_FILTER: return fl_expr_equal(x->u.filter.filter, y->u.filter.filter);
    case FL_PLAN_AGG: return agg_equal(x, y);
    case FL_PLAN_JOIN:
        return x->u.join.type == y->u.join.type && x->u.join.nkeys == y->u.join.nkeys &&
               !x->u.join.out_cols && !y->u.join.out_cols &&
               expr_arr_equal(x->u.join.left_keys, y->u.join.left_keys, x->u.join.nkeys) &&
               expr_arr_equal(x->u.join.right_keys, y->u.join.right_keys, x->u.join.nkeys) &&
               fl_expr_equal(x->u.join.residual, y->u.join.residual) &&
               (!x->u.join.nkeys ||
                memcmp(x->u.join.null_safe, y->u.join.null_safe,
                       x->u.join.nkeys * sizeof(bool)) == 0);
    default: return false;
    }
}

/* R is an aggregate's output (through PROJECT/FILTER), small enough to hold */
static bool small_agg_output(const fl_plan *r)
{
    while (r->kind == FL_PLAN_PROJECT || r->kind == FL_PLAN_FILTER)
        r = r->children[0];
    return r->kind == FL_PLAN_AGG && r->est_rows <= 1e6;
}

/* The subquery plan's min/max call and its input; NULL when not that shape. */
static const fl_agg_call *extreme_of(const fl_plan *sp, const fl_plan **in, uint32_t *col)
{
    uint32_t c = 0;
    while (sp->kind == FL_PLAN_PROJECT && sp->schema.nfields == 1 &&
           sp->u.project.exprs[c]->kind == FL_EXPR_COLUMN) {
        c = sp->u.project.exprs[c]->column;
        sp = sp->children[0];
    }
    if (sp->kind != FL_PLAN_AGG || sp->u.agg.nkeys || sp->u.agg.nsets || sp->u.agg.naggs != 1 ||
        c != 0)
        return NULL;
    const fl_agg_call *a = &sp->u.agg.aggs[0];
    const char *n = a->fn ? a->fn->name : "";
    if ((strcmp(n, "max") != 0 && strcmp(n, "min") != 0) || a->nargs != 1 || a->distinct ||
        a->filter || a->norder || a->args[0]->kind != FL_EXPR_COLUMN)
        return NULL;
    *in = sp->children[0];
    *col = a->args[0]->column;
    return a;
}

static fl_status rewrite(fl_planner_ctx *pc, fl_plan *f, uint32_t col, const fl_agg_call *a,
                         fl_error *err)
{
    fl_arena *ar = pc->arena;
    fl_plan *r = f->children[0];
    uint32_t n = r->schema.nfields;
    fl_plan *w = fl_plan_new(ar, FL_PLAN_WINDOW, 1, n + 1);
    fl_plan *flt = fl_plan_new(ar, FL_PLAN_FILTER, 1, n + 1);
    fl_window_call *wc = fl_arena_calloc(ar, 1, sizeof *wc);
    fl_expr **wargs = fl_arena_calloc(ar, 1, sizeof *wargs);
    fl_expr **pe = fl_arena_calloc(ar, n + 1, sizeof *pe);
    if (!w || !flt || !wc || !wargs || !pe)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    wargs[0] = fl_expr_column(ar, col, &r->schema.fields[col].type);
    if (!wargs[0])
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    wargs[0]->alias = r->schema.fields[col].name;
    wc->fn = a->fn;
    wc->ops = a->ops;
    wc->result = a->result;
    wc->args = wargs;
    wc->nargs = 1;
    wc->alias = a->alias ? a->alias : a->fn->name;
    memcpy(w->schema.fields, r->schema.fields, n * sizeof(fl_field));
    w->schema.fields[n].name = wc->alias;
    w->schema.fields[n].type = a->result;
    w->schema.fields[n].nullable = true;
    w->children[0] = r;
    w->u.window.calls = wc;
    w->u.window.ncalls = 1;
    w->est_rows = r->est_rows;
    /* filter: #col = #n, the comparison function the binder resolved */
    const fl_expr *eq = f->u.filter.filter;
    fl_expr *ne = fl_arena_alloc(ar, sizeof *ne);
    fl_expr **args = fl_arena_alloc(ar, 2 * sizeof *args);
    if (!ne || !args)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *ne = *eq;
    ne->args = args;
    args[0] = fl_expr_column(ar, col, &r->schema.fields[col].type);
    args[1] = fl_expr_column(ar, n, &a->result);
    if (!args[0] || !args[1])
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    args[0]->alias = r->schema.fields[col].name;
    args[1]->alias = w->schema.fields[n].name;
    memcpy(flt->schema.fields, w->schema.fields, (n + 1) * sizeof(fl_field));
    flt->children[0] = w;
    flt->u.filter.filter = ne;
    flt->est_rows = f->est_rows;
    for (uint32_t i = 0; i < n; i++)
    {
        if (!(pe[i] = fl_expr_column(ar, i, &r->schema.fields[i].type)))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        pe[i]->alias = r->schema.fields[i].name;
    }
    /* f (same output columns) becomes the PROJECT over the new FILTER */
    f->kind = FL_PLAN_PROJECT;
    memset(&f->u, 0, sizeof f->u);
    f->u.project.exprs = pe;
    f->children[0] = flt;
    return FL_OK;
}

static fl_status try_filter(fl_planner_ctx *pc, fl_plan *f, fl_error *err)
{
    const fl_expr *e = f->u.filter.filter;
    if (e->kind != FL_EXPR_CALL || e->nargs != 2 || !e->fn || strcmp(e->fn->name, "=") != 0 ||
        e->args[0]->kind != FL_EXPR_COLUMN || e->args[1]->kind != FL_EXPR_SUBQUERY ||
        !e->args[1]->subplan)
        return FL_OK;
    fl_plan *r = f->children[0];
    uint32_t c = e->args[0]->column, sc;
    const fl_plan *in;
    const fl_agg_call *a = extreme_of(e->args[1]->subplan, &in, &sc);
    if (!a || sc != c || c >= r->schema.nfields || !small_agg_output(r) ||
        !fl_type_equal(&a->result, &e->args[1]->type) ||
        !fl_type_equal(&a->result, &r->schema.fields[c].type) || !plan_equal(r, in, 0))
        return FL_OK;
    return rewrite(pc, f, c, a, err);
}

static fl_status walk(fl_planner_ctx *pc, fl_plan *p, int depth, fl_error *err)
{
    if (depth > 200)
        return FL_OK;
    for (uint32_t i = 0; i < p->nchildren; i++)
        FL_TRY(walk(pc, p->children[i], depth + 1, err));
    if (p->kind == FL_PLAN_FILTER && p->nchildren == 1)
        FL_TRY(try_filter(pc, p, err));
    return FL_OK;
}

fl_status fl_reuse_scalar_subqueries(fl_planner_ctx *pc, fl_plan *root, fl_error *err)
{
    return root ? walk(pc, root, 0, err) : FL_OK;
}
