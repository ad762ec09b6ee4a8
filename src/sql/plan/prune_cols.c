/*
 * prune_cols.c - column pruning over a finished physical plan.
 *
 * WHAT
 *   The binder gives each scan the columns its SELECT block uses anywhere,
 *   so a column read only by a scan's filter (TPC-H Q13's o_comment, Q9's
 *   p_name) or only as a join key (Q9's p_partkey) travels up through every
 *   join above it: each hash join copies it into its build rows or gathers
 *   it into its output. This pass walks the plan top-down with the set of
 *   output columns each node's parent reads and
 *     - drops PROJECT expressions and aggregate calls nobody reads;
 *     - lets FILTER, LIMIT, SORT, WINDOW and JOIN outputs shrink with their
 *       children's (their expressions are remapped);
 *     - puts a PROJECT of plain column references (a shallow pass-through in
 *       the executor, op_basic.c) above a JOIN's, SORT's or WINDOW's child
 *       that outputs more than the operator and its ancestors read, so the
 *       materializing operator never copies a dead column.
 *   A JOIN itself outputs only the columns its parent reads (u.join.out_cols,
 *   which op_join.c honours: it neither copies nor gathers the others).
 *   The root keeps its columns (DML reads _file/_pos, MERGE binds over them).
 *
 * HOW
 *   prune(p, need) rewrites p in place so it outputs at least the columns
 *   need[] marks (indexes of p's old output) and returns the map old column
 *   -> new column (-1 = dropped). Nodes whose output is all semantically
 *   relevant (DISTINCT, SETOP, RECURSE, APPLY, VALUES, SRF) pass "every
 *   column" down. Scans are never narrowed here (a filter column must be
 *   read; the PROJECT above the scan drops it). Plans of uncorrelated
 *   scalar subqueries are pruned as roots of their own. A plan in which a
 *   node is reachable twice is left alone (one parent's narrowing would
 *   break the other's column references).
 *
 * OWNERSHIP
 *   New nodes, maps, schemas and remapped expressions live in pc->arena
 *   (the statement's); old expressions are never modified (they may be
 *   shared), only replaced by remapped copies.
 */
#include <string.h>

#include "sql/plan/plan_rules.h"
#include "sql/plan/prune_cols.h"
#include "sql/planner.h"

typedef struct pctx {
    fl_arena *a;
} pctx;

static fl_status oom(fl_error *err)
{
    return fl_errorf(err, FL_ENOMEM, "out of memory");
}

static void mark_cols(const fl_expr *e, bool *need, uint32_t n)
{
    if (!e)
        return;
    if (e->kind == FL_EXPR_COLUMN) {
        if (e->column < n)
            need[e->column] = true;
        return;
    }
    for (uint32_t i = 0; i < e->nargs; i++)
        mark_cols(e->args[i], need, n);
}

static void mark_arr(fl_expr *const *v, uint32_t k, bool *need, uint32_t n)
{
    for (uint32_t i = 0; v && i < k; i++)
        mark_cols(v[i], need, n);
}

static bool *need_new(pctx *c, uint32_t n, bool all)
{
    bool *need = fl_arena_calloc(c->a, n + 1, sizeof *need);
    if (need && all)
        for (uint32_t i = 0; i < n; i++)
            need[i] = true;
    return need;
}

static int32_t *ident_map(pctx *c, uint32_t n)
{
    int32_t *m = fl_arena_alloc(c->a, (n + 1) * sizeof *m);
    if (m)
        for (uint32_t i = 0; i < n; i++)
            m[i] = (int32_t)i;
    return m;
}

static fl_status remap(pctx *c, fl_expr **slot, const int32_t *map, uint32_t n, fl_error *err)
{
    if (!*slot)
        return FL_OK;
    return fl_front_remap(c->a, *slot, map, n, slot, err);
}

static fl_status remap_arr(pctx *c, fl_expr **v, uint32_t k, const int32_t *map, uint32_t n,
                           fl_error *err)
{
    for (uint32_t i = 0; v && i < k; i++)
        FL_TRY(remap(c, &v[i], map, n, err));
    return FL_OK;
}

/* copies the array so remapped expressions never overwrite shared arrays */
static fl_expr **dup_arr(pctx *c, fl_expr **v, uint32_t k)
{
    if (!v || !k)
        return v;
    fl_expr **d = fl_arena_alloc(c->a, k * sizeof *d);
    if (d)
        memcpy(d, v, k * sizeof *d);
    return d;
}

static fl_status prune(pctx *c, fl_plan *p, const bool *need, int32_t **map, fl_error *err);

/* Prunes child i of p to need (over its old columns); with wrap, a PROJECT
 * above it keeps exactly the needed columns when it outputs more. *cmap:
 * old child column -> column of the (possibly new) child. */
static fl_status narrow_child(pctx *c, fl_plan *p, uint32_t i, const bool *need, bool wrap,
                              int32_t **cmap, fl_error *err)
{
    fl_plan *ch = p->children[i];
    uint32_t old_n = ch->schema.nfields;
    int32_t *m;
    FL_TRY(prune(c, ch, need, &m, err));
    uint32_t k = 0;
    for (uint32_t j = 0; j < old_n; j++)
        if (need[j]) {
            if (m[j] < 0)
                return fl_errorf(err, FL_EINVAL, "internal: pruning dropped a needed column");
            k++;
        }
    if (!wrap || k == 0 || k >= ch->schema.nfields) {
        *cmap = m;
        return FL_OK;
    }
    fl_plan *pr = fl_plan_new(c->a, FL_PLAN_PROJECT, 1, k);
    fl_expr **ex = fl_arena_calloc(c->a, k, sizeof *ex);
    int32_t *m2 = fl_arena_alloc(c->a, (old_n + 1) * sizeof *m2);
    if (!pr || !ex || !m2)
        return oom(err);
    uint32_t o = 0;
    for (uint32_t j = 0; j < old_n; j++) {
        m2[j] = -1;
        if (!need[j])
            continue;
        const fl_field *f = &ch->schema.fields[m[j]];
        ex[o] = fl_expr_column(c->a, (uint32_t)m[j], &f->type);
        if (!ex[o])
            return oom(err);
        ex[o]->alias = f->name;
        pr->schema.fields[o] = *f;
        m2[j] = (int32_t)o++;
    }
    pr->children[0] = ch;
    pr->u.project.exprs = ex;
    pr->est_rows = ch->est_rows;
    p->children[i] = pr;
    *cmap = m2;
    return FL_OK;
}

/* p's fields become fields[map^-1]: old field j lands at map[j] (>= 0) */
static fl_status set_fields(pctx *c, fl_plan *p, const fl_field *old, uint32_t old_n,
                            const int32_t *map, uint32_t new_n, fl_error *err)
{
    fl_field *f = fl_arena_calloc(c->a, new_n + 1, sizeof *f);
    if (!f)
        return oom(err);
    for (uint32_t j = 0; j < old_n; j++)
        if (map[j] >= 0)
            f[map[j]] = old[j];
    p->schema.fields = f;
    p->schema.nfields = new_n;
    return FL_OK;
}

static fl_status prune_project(pctx *c, fl_plan *p, const bool *need, int32_t **map,
                               fl_error *err)
{
    uint32_t n = p->schema.nfields;
    fl_plan *ch = p->children[0];
    uint32_t cn = ch->schema.nfields;
    int32_t *m = fl_arena_alloc(c->a, (n + 1) * sizeof *m);
    bool *cneed = need_new(c, cn, false);
    if (!m || !cneed)
        return oom(err);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        k += need[i];
    uint32_t keep_first = n; /* nothing needed: keep one column (batches have >= 1) */
    if (k == 0 && n > 0) {
        keep_first = 0;
        for (uint32_t i = 0; i < n; i++)
            if (p->u.project.exprs[i]->kind == FL_EXPR_COLUMN) {
                keep_first = i;
                break;
            }
    }
    fl_expr **ex = fl_arena_calloc(c->a, n + 1, sizeof *ex);
    if (!ex)
        return oom(err);
    k = 0;
    for (uint32_t i = 0; i < n; i++) {
        m[i] = -1;
        if (!need[i] && i != keep_first)
            continue;
        ex[k] = p->u.project.exprs[i];
        mark_cols(ex[k], cneed, cn);
        m[i] = (int32_t)k++;
    }
    int32_t *cm;
    FL_TRY(narrow_child(c, p, 0, cneed, false, &cm, err));
    FL_TRY(remap_arr(c, ex, k, cm, cn, err));
    FL_TRY(set_fields(c, p, p->schema.fields, n, m, k, err));
    p->u.project.exprs = ex;
    *map = m;
    return FL_OK;
}

static fl_status prune_agg(pctx *c, fl_plan *p, const bool *need, int32_t **map, fl_error *err)
{
    uint32_t n = p->schema.nfields, nk = p->u.agg.nkeys, na = p->u.agg.naggs;
    fl_plan *ch = p->children[0];
    uint32_t cn = ch->schema.nfields;
    int32_t *m = fl_arena_alloc(c->a, (n + 1) * sizeof *m);
    bool *cneed = need_new(c, cn, false);
    fl_agg_call *aggs = fl_arena_calloc(c->a, na + 1, sizeof *aggs);
    if (!m || !cneed || !aggs)
        return oom(err);
    bool any = false;
    for (uint32_t i = 0; i < na; i++)
        any |= need[nk + i];
    uint32_t k = 0;
    for (uint32_t i = 0; i < nk; i++)
        m[i] = (int32_t)i;
    for (uint32_t i = 0; i < na; i++) {
        m[nk + i] = -1;
        /* grouping sets: keep every call; no keys: keep at least one */
        if (!need[nk + i] && !p->u.agg.nsets && !(nk == 0 && !any && i == 0))
            continue;
        aggs[k] = p->u.agg.aggs[i];
        m[nk + i] = (int32_t)(nk + k++);
    }
    fl_expr **keys = dup_arr(c, p->u.agg.keys, nk);
    if (nk && !keys)
        return oom(err);
    mark_arr(keys, nk, cneed, cn);
    for (uint32_t i = 0; i < k; i++) {
        fl_agg_call *a = &aggs[i];
        a->args = dup_arr(c, a->args, a->nargs);
        a->order_by = dup_arr(c, a->order_by, a->norder);
        if ((a->nargs && !a->args) || (a->norder && !a->order_by))
            return oom(err);
        mark_arr(a->args, a->nargs, cneed, cn);
        mark_arr(a->order_by, a->norder, cneed, cn);
        mark_cols(a->filter, cneed, cn);
    }
    int32_t *cm;
    FL_TRY(narrow_child(c, p, 0, cneed, false, &cm, err));
    FL_TRY(remap_arr(c, keys, nk, cm, cn, err));
    for (uint32_t i = 0; i < k; i++) {
        fl_agg_call *a = &aggs[i];
        FL_TRY(remap_arr(c, a->args, a->nargs, cm, cn, err));
        FL_TRY(remap_arr(c, a->order_by, a->norder, cm, cn, err));
        FL_TRY(remap(c, &a->filter, cm, cn, err));
    }
    FL_TRY(set_fields(c, p, p->schema.fields, n, m, nk + k, err));
    p->u.agg.keys = keys;
    p->u.agg.aggs = aggs;
    p->u.agg.naggs = k;
    *map = m;
    return FL_OK;
}

/* FILTER, LIMIT, SORT: output = the child's columns */
static fl_status prune_pass(pctx *c, fl_plan *p, const bool *need, int32_t **map, fl_error *err)
{
    uint32_t n = p->schema.nfields;
    bool *cneed = need_new(c, n, false);
    if (!cneed)
        return oom(err);
    memcpy(cneed, need, n * sizeof *cneed);
    fl_sort_key *keys = NULL;
    if (p->kind == FL_PLAN_FILTER) {
        mark_cols(p->u.filter.filter, cneed, n);
    } else if (p->kind == FL_PLAN_SORT && p->u.sort.nkeys) {
        keys = fl_arena_alloc(c->a, p->u.sort.nkeys * sizeof *keys);
        if (!keys)
            return oom(err);
        memcpy(keys, p->u.sort.keys, p->u.sort.nkeys * sizeof *keys);
        for (uint32_t i = 0; i < p->u.sort.nkeys; i++)
            mark_cols(keys[i].expr, cneed, n);
    }
    int32_t *cm;
    FL_TRY(narrow_child(c, p, 0, cneed, p->kind == FL_PLAN_SORT, &cm, err));
    if (p->kind == FL_PLAN_FILTER)
        FL_TRY(remap(c, &p->u.filter.filter, cm, n, err));
    if (keys) {
        for (uint32_t i = 0; i < p->u.sort.nkeys; i++)
            FL_TRY(remap(c, &keys[i].expr, cm, n, err));
        p->u.sort.keys = keys;
    }
    FL_TRY(set_fields(c, p, p->schema.fields, n, cm, p->children[0]->schema.nfields, err));
    *map = cm;
    return FL_OK;
}

static fl_status prune_window(pctx *c, fl_plan *p, const bool *need, int32_t **map,
                              fl_error *err)
{
    uint32_t n = p->schema.nfields, nw = p->u.window.ncalls;
    uint32_t cn = n - nw;
    bool *cneed = need_new(c, cn, false);
    fl_window_call *calls = fl_arena_calloc(c->a, nw + 1, sizeof *calls);
    int32_t *m = fl_arena_alloc(c->a, (n + 1) * sizeof *m);
    if (!cneed || !calls || !m)
        return oom(err);
    memcpy(cneed, need, cn * sizeof *cneed);
    memcpy(calls, p->u.window.calls, nw * sizeof *calls);
    for (uint32_t i = 0; i < nw; i++) {
        fl_window_call *w = &calls[i];
        w->args = dup_arr(c, w->args, w->nargs);
        w->partition_by = dup_arr(c, w->partition_by, w->npartition);
        if (w->norder) {
            fl_sort_key *k = fl_arena_alloc(c->a, w->norder * sizeof *k);
            if (!k)
                return oom(err);
            memcpy(k, w->order_by, w->norder * sizeof *k);
            w->order_by = k;
        }
        if ((w->nargs && !w->args) || (w->npartition && !w->partition_by))
            return oom(err);
        mark_arr(w->args, w->nargs, cneed, cn);
        mark_arr(w->partition_by, w->npartition, cneed, cn);
        for (uint32_t j = 0; j < w->norder; j++)
            mark_cols(w->order_by[j].expr, cneed, cn);
    }
    int32_t *cm;
    FL_TRY(narrow_child(c, p, 0, cneed, true, &cm, err));
    for (uint32_t i = 0; i < nw; i++) {
        fl_window_call *w = &calls[i];
        FL_TRY(remap_arr(c, w->args, w->nargs, cm, cn, err));
        FL_TRY(remap_arr(c, w->partition_by, w->npartition, cm, cn, err));
        for (uint32_t j = 0; j < w->norder; j++)
            FL_TRY(remap(c, &w->order_by[j].expr, cm, cn, err));
    }
    uint32_t ncn = p->children[0]->schema.nfields;
    memcpy(m, cm, cn * sizeof *m);
    for (uint32_t i = 0; i < nw; i++)
        m[cn + i] = (int32_t)(ncn + i);
    FL_TRY(set_fields(c, p, p->schema.fields, n, m, ncn + nw, err));
    p->u.window.calls = calls;
    *map = m;
    return FL_OK;
}

/* The join outputs only what its parent reads (u.join.out_cols: no PROJECT
 * above, no copy of dead key columns). p's schema is already the full new
 * output; *map goes from old output columns. */
static fl_status join_out_list(pctx *c, fl_plan *p, const bool *need, uint32_t n, int32_t **map,
                               fl_error *err)
{
    uint32_t full = p->schema.nfields, k = 0;
    for (uint32_t j = 0; j < n; j++)
        k += need[j];
    if (k == 0 || k >= full)
        return FL_OK;
    uint32_t *oc = fl_arena_alloc(c->a, k * sizeof *oc);
    int32_t *m = fl_arena_alloc(c->a, (n + 1) * sizeof *m);
    fl_field *f = fl_arena_calloc(c->a, k + 1, sizeof *f);
    if (!oc || !m || !f)
        return oom(err);
    uint32_t o = 0;
    for (uint32_t j = 0; j < n; j++) {
        m[j] = -1;
        if (!need[j])
            continue;
        oc[o] = (uint32_t)(*map)[j];
        f[o] = p->schema.fields[oc[o]];
        m[j] = (int32_t)o++;
    }
    p->u.join.out_cols = oc;
    p->u.join.nout_cols = k;
    p->schema.fields = f;
    p->schema.nfields = k;
    *map = m;
    return FL_OK;
}

static fl_status prune_join(pctx *c, fl_plan *p, const bool *need, int32_t **map, fl_error *err)
{
    fl_join_type t = p->u.join.type;
    uint32_t n = p->schema.nfields;
    uint32_t nl = p->children[0]->schema.nfields, nr = p->children[1]->schema.nfields;
    bool right_out = !(t == FL_JOIN_SEMI || t == FL_JOIN_ANTI || t == FL_JOIN_MARK);
    uint32_t nk = p->u.join.nkeys;
    bool *ln = need_new(c, nl, false), *rn = need_new(c, nr, false);
    bool *both = need_new(c, nl + nr, false);
    int32_t *m = fl_arena_alloc(c->a, (n + 1) * sizeof *m);
    int32_t *bm = fl_arena_alloc(c->a, (nl + nr + 1) * sizeof *bm);
    fl_expr **lk = dup_arr(c, p->u.join.left_keys, nk);
    fl_expr **rk = dup_arr(c, p->u.join.right_keys, nk);
    if (!ln || !rn || !both || !m || !bm || (nk && (!lk || !rk)))
        return oom(err);
    memcpy(ln, need, nl * sizeof *ln);
    if (right_out)
        memcpy(rn, need + nl, nr * sizeof *rn);
    mark_arr(lk, nk, ln, nl);
    mark_arr(rk, nk, rn, nr);
    mark_cols(p->u.join.residual, both, nl + nr);
    for (uint32_t i = 0; i < nl; i++)
        ln[i] |= both[i];
    for (uint32_t i = 0; i < nr; i++)
        rn[i] |= both[nl + i];
    int32_t *lm, *rm;
    FL_TRY(narrow_child(c, p, 0, ln, true, &lm, err));
    FL_TRY(narrow_child(c, p, 1, rn, true, &rm, err));
    uint32_t nnl = p->children[0]->schema.nfields, nnr = p->children[1]->schema.nfields;
    for (uint32_t i = 0; i < nl; i++)
        bm[i] = lm[i];
    for (uint32_t i = 0; i < nr; i++)
        bm[nl + i] = rm[i] < 0 ? -1 : (int32_t)nnl + rm[i];
    FL_TRY(remap_arr(c, lk, nk, lm, nl, err));
    FL_TRY(remap_arr(c, rk, nk, rm, nr, err));
    FL_TRY(remap(c, &p->u.join.residual, bm, nl + nr, err));
    p->u.join.left_keys = lk;
    p->u.join.right_keys = rk;
    uint32_t nn;
    if (right_out) {
        memcpy(m, bm, n * sizeof *m);
        nn = nnl + nnr;
    } else {
        memcpy(m, lm, nl * sizeof *m);
        if (t == FL_JOIN_MARK)
            m[nl] = (int32_t)nnl;
        nn = nnl + (t == FL_JOIN_MARK);
    }
    FL_TRY(set_fields(c, p, p->schema.fields, n, m, nn, err));
    *map = m;
    return join_out_list(c, p, need, n, map, err);
}

/* Nodes whose every input column matters: prune children as roots. */
static fl_status prune_all_kids(pctx *c, fl_plan *p, int32_t **map, fl_error *err)
{
    for (uint32_t i = 0; i < p->nchildren; i++) {
        fl_plan *ch = p->children[i];
        bool *all = need_new(c, ch->schema.nfields, true);
        int32_t *cm;
        if (!all)
            return oom(err);
        FL_TRY(prune(c, ch, all, &cm, err));
    }
    *map = ident_map(c, p->schema.nfields);
    return *map ? FL_OK : oom(err);
}

static fl_status prune(pctx *c, fl_plan *p, const bool *need, int32_t **map, fl_error *err)
{
    switch (p->kind) {
    case FL_PLAN_PROJECT: return prune_project(c, p, need, map, err);
    case FL_PLAN_AGG: return prune_agg(c, p, need, map, err);
    case FL_PLAN_FILTER:
    case FL_PLAN_LIMIT:
    case FL_PLAN_SORT: return prune_pass(c, p, need, map, err);
    case FL_PLAN_WINDOW: return prune_window(c, p, need, map, err);
    case FL_PLAN_JOIN:
        if (p->nchildren == 2 && !p->u.join.out_cols)
            return prune_join(c, p, need, map, err);
        return prune_all_kids(c, p, map, err);
    default: return prune_all_kids(c, p, map, err);
    }
}

/* ---- shared-node detection ---- */

typedef struct seen {
    fl_arena *a;
    const void **v;
    uint32_t n, cap;
    bool dup, oom;
} seen;

static void visit(seen *s, const fl_plan *p)
{
    if (!p || s->dup || s->oom)
        return;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->v[i] == p) {
            s->dup = true;
            return;
        }
    s->v = fl_front_grow(s->a, s->v, &s->cap, s->n, sizeof(void *));
    if (!s->v) {
        s->oom = true;
        return;
    }
    s->v[s->n++] = p;
    for (uint32_t i = 0; i < p->nchildren; i++)
        visit(s, p->children[i]);
}

static fl_status visit_sub(void *ctx, fl_expr **slot, fl_error *err)
{
    (void)err;
    if ((*slot)->kind == FL_EXPR_SUBQUERY)
        visit(ctx, (*slot)->subplan);
    return FL_OK;
}

bool fl_plan_has_shared_nodes(fl_planner_ctx *pc, const fl_plan *root)
{
    seen s = {.a = pc->arena};
    visit(&s, root);
    fl_error e;
    if (!s.dup && !s.oom)
        (void)fl_plan_walk_exprs((fl_plan *)root, visit_sub, &s, &e);
    return s.dup || s.oom;
}

/* ---- entry ---- */

static fl_status prune_root(pctx *c, fl_plan *p, fl_error *err)
{
    bool *all = need_new(c, p->schema.nfields, true);
    int32_t *m;
    if (!all)
        return oom(err);
    return prune(c, p, all, &m, err);
}

static fl_status prune_sub(void *ctx, fl_expr **slot, fl_error *err)
{
    if ((*slot)->kind == FL_EXPR_SUBQUERY && (*slot)->subplan)
        return prune_root(ctx, (*slot)->subplan, err);
    return FL_OK;
}

fl_status fl_prune_columns(fl_planner_ctx *pc, fl_plan *root, fl_error *err)
{
    if (!root || fl_plan_has_shared_nodes(pc, root))
        return FL_OK;
    pctx c = {.a = pc->arena};
    FL_TRY(prune_root(&c, root, err));
    return fl_plan_walk_exprs(root, prune_sub, &c, err);
}
