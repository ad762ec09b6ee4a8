/*
 * plan_walk.c - visiting every expression of a plan (the binder renumbers
 * apply parameter slots past the statement's own parameters once the
 * statement is bound: fl_front_number_params) and the EXPLAIN lines of the
 * nodes lateral added (APPLY, RECURSE, SRF).
 */
#include <stdio.h>
#include <string.h>

#include "sql/bind/bind.h"
#include "sql/plan/plan_rules.h"

static fl_status walk_expr(fl_expr **slot, fl_plan_expr_fn fn, void *ctx, fl_error *err);

static fl_status walk_arr(fl_expr **v, uint32_t n, fl_plan_expr_fn fn, void *ctx, fl_error *err)
{
    for (uint32_t i = 0; v && i < n; i++)
        FL_TRY(walk_expr(&v[i], fn, ctx, err));
    return FL_OK;
}

static fl_status walk_expr(fl_expr **slot, fl_plan_expr_fn fn, void *ctx, fl_error *err)
{
    if (!*slot)
        return FL_OK;
    FL_TRY(fn(ctx, slot, err));
    fl_expr *e = *slot;
    FL_TRY(walk_arr(e->args, e->nargs, fn, ctx, err));
    if (e->kind == FL_EXPR_SUBQUERY && e->subplan)
        FL_TRY(fl_plan_walk_exprs(e->subplan, fn, ctx, err));
    return FL_OK;
}

static fl_status walk_sort(fl_sort_key *k, uint32_t n, fl_plan_expr_fn fn, void *ctx,
                           fl_error *err)
{
    for (uint32_t i = 0; k && i < n; i++)
        FL_TRY(walk_expr(&k[i].expr, fn, ctx, err));
    return FL_OK;
}

fl_status fl_plan_walk_exprs(fl_plan *p, fl_plan_expr_fn fn, void *ctx, fl_error *err)
{
    if (!p)
        return FL_OK;
    for (uint32_t i = 0; i < p->nchildren; i++)
        FL_TRY(fl_plan_walk_exprs(p->children[i], fn, ctx, err));
    switch (p->kind) {
    case FL_PLAN_SCAN: return walk_expr(&p->u.scan.filter, fn, ctx, err);
    case FL_PLAN_VALUES:
        for (uint32_t r = 0; r < p->u.values.nrows; r++)
            FL_TRY(walk_arr(p->u.values.rows[r], p->schema.nfields, fn, ctx, err));
        return FL_OK;
    case FL_PLAN_FILTER: return walk_expr(&p->u.filter.filter, fn, ctx, err);
    case FL_PLAN_PROJECT: return walk_arr(p->u.project.exprs, p->schema.nfields, fn, ctx, err);
    case FL_PLAN_AGG:
        FL_TRY(walk_arr(p->u.agg.keys, p->u.agg.nkeys, fn, ctx, err));
        for (uint32_t i = 0; i < p->u.agg.naggs; i++) {
            fl_agg_call *c = &p->u.agg.aggs[i];
            FL_TRY(walk_arr(c->args, c->nargs, fn, ctx, err));
            FL_TRY(walk_expr(&c->filter, fn, ctx, err));
            FL_TRY(walk_arr(c->order_by, c->norder, fn, ctx, err));
        }
        return FL_OK;
    case FL_PLAN_JOIN:
        FL_TRY(walk_arr(p->u.join.left_keys, p->u.join.nkeys, fn, ctx, err));
        FL_TRY(walk_arr(p->u.join.right_keys, p->u.join.nkeys, fn, ctx, err));
        return walk_expr(&p->u.join.residual, fn, ctx, err);
    case FL_PLAN_SORT: return walk_sort(p->u.sort.keys, p->u.sort.nkeys, fn, ctx, err);
    case FL_PLAN_WINDOW:
        for (uint32_t i = 0; i < p->u.window.ncalls; i++) {
            fl_window_call *w = &p->u.window.calls[i];
            FL_TRY(walk_arr(w->args, w->nargs, fn, ctx, err));
            FL_TRY(walk_arr(w->partition_by, w->npartition, fn, ctx, err));
            FL_TRY(walk_sort(w->order_by, w->norder, fn, ctx, err));
        }
        return FL_OK;
    case FL_PLAN_APPLY: return walk_arr(p->u.apply.params, p->u.apply.nparams, fn, ctx, err);
    case FL_PLAN_SRF:
        for (uint32_t i = 0; i < p->u.srf.nstreams; i++)
            FL_TRY(walk_arr(p->u.srf.streams[i].args, p->u.srf.streams[i].nargs, fn, ctx, err));
        return walk_arr(p->u.srf.args, p->u.srf.nargs, fn, ctx, err);
    case FL_PLAN_LIMIT:
    case FL_PLAN_SETOP:
    case FL_PLAN_DISTINCT:
    case FL_PLAN_EMPTY:
    case FL_PLAN_RECURSE: return FL_OK;
    }
    return FL_OK;
}

const char *fl_plan_explain_ext(const fl_plan *p, fl_arena *a)
{
    switch (p->kind) {
    case FL_PLAN_APPLY: {
        const char *s = fl_arena_sprintf(a, "Apply %s params=[", fl_front_join_name(p->u.apply.type));
        for (uint32_t i = 0; s && i < p->u.apply.nparams; i++) {
            const char *e = fl_expr_to_string(p->u.apply.params[i], a);
            s = fl_arena_sprintf(a, "%s%s$%u := %s", s, i ? ", " : "", p->u.apply.slots[i] + 1,
                                 e ? e : "?");
        }
        return s ? fl_arena_sprintf(a, "%s]", s) : "Apply";
    }
    case FL_PLAN_RECURSE:
        return fl_arena_sprintf(a, "RecursiveUnion%s", p->u.recurse.all ? " ALL" : "");
    case FL_PLAN_SRF: {
        if (p->u.srf.nstreams) {
            const char *s = "ProjectSet [";
            static const char *const nm[] = {"?", "unnest", "generate_series",
                                             "generate_subscripts", "positions"};
            for (uint32_t i = 0; s && i < p->u.srf.nstreams; i++) {
                const fl_srf_stream *st = &p->u.srf.streams[i];
                s = fl_arena_sprintf(a, "%s%s%s(", s, i ? ", " : "", nm[st->fn <= 4 ? st->fn : 0]);
                for (uint32_t k = 0; s && k < st->nargs; k++) {
                    const char *e = fl_expr_to_string(st->args[k], a);
                    s = fl_arena_sprintf(a, "%s%s%s", s, k ? ", " : "", e ? e : "?");
                }
                s = s ? fl_arena_sprintf(a, "%s)", s) : NULL;
            }
            return s ? fl_arena_sprintf(a, "%s]", s) : "ProjectSet";
        }
        const char *s = fl_arena_sprintf(a, "Function %s(",
                                         p->u.srf.fn == FL_SRF_UNNEST ? "unnest"
                                                                      : "generate_series");
        for (uint32_t i = 0; s && i < p->u.srf.nargs; i++) {
            const char *e = fl_expr_to_string(p->u.srf.args[i], a);
            s = fl_arena_sprintf(a, "%s%s%s", s, i ? ", " : "", e ? e : "?");
        }
        return s ? fl_arena_sprintf(a, "%s)%s", s, p->u.srf.ordinality ? " WITH ORDINALITY" : "")
                 : "Function";
    }
    default: return "?";
    }
}

/* ---- parameter slots ---- */

typedef struct renum_ctx {
    uint32_t base;
} renum_ctx;

static fl_status renum(void *ctx, fl_expr **slot, fl_error *err)
{
    (void)err;
    renum_ctx *r = ctx;
    fl_expr *e = *slot;
    if (e->kind == FL_EXPR_PARAM && e->param >= FL_APPLY_SLOT_BASE)
        e->param = r->base + (e->param - FL_APPLY_SLOT_BASE);
    if (e->kind == FL_EXPR_SUBQUERY)
        return fl_front_number_slots(e->subplan, r->base, err);
    return FL_OK;
}

fl_status fl_front_number_params(fl_planner_ctx *pc, fl_plan *p, fl_error *err)
{
    fl_front_state *st = fl_front_state_of(pc);
    if (!st || !st->nslots)
        return FL_OK;
    renum_ctx r = {pc->nparams};
    FL_TRY(fl_plan_walk_exprs(p, renum, &r, err));
    /* the apply nodes' slot arrays */
    return fl_front_number_slots(p, pc->nparams, err);
}

fl_status fl_front_number_slots(fl_plan *p, uint32_t base, fl_error *err)
{
    if (!p)
        return FL_OK;
    for (uint32_t i = 0; i < p->nchildren; i++)
        FL_TRY(fl_front_number_slots(p->children[i], base, err));
    if (p->kind == FL_PLAN_APPLY)
        for (uint32_t i = 0; i < p->u.apply.nparams; i++) {
            uint32_t *s = (uint32_t *)&p->u.apply.slots[i];
            if (*s >= FL_APPLY_SLOT_BASE)
                *s = base + (*s - FL_APPLY_SLOT_BASE);
        }
    return FL_OK;
}
