/*
 * semijoin_push.c - computes a decorrelated aggregate only for the group
 * keys its join partner can have (DuckDB and Umbra do the same; "magic
 * sets" in the literature).
 *
 * WHAT
 *   A correlated aggregate subquery becomes JOIN(outer, AGG GROUP BY k) on
 *   outer.x = k (bind_subquery.c): TPC-H Q17's avg(l_quantity) per partkey
 *   is then computed for all 200000 parts although the outer side only has
 *   the ~200 parts that pass p_brand/p_container. When the outer join key's
 *   values all come from a small filtered subtree S (a scan with a filter,
 *   possibly under FILTER/PROJECT), the aggregate's input is reduced first:
 *       AGG k (... SEMI JOIN copy-of-S on k = S.x ...)
 *   placed as deep in the aggregate's input as the column k can be traced,
 *   so Q17 and Q20 aggregate only the lineitem rows of the wanted parts, and
 *   Q2's min(ps_supplycost) joins only the partsupp rows of its parts.
 *
 * WHY IT IS EXACT
 *   The join matches an aggregate group only when k equals some outer x
 *   (keys are not null-safe); x's values are a subset of S's (x is traced
 *   through column references, filters, joins that keep or match its rows);
 *   NULL x never matches. Removing from the aggregate's input the rows whose
 *   k is not among S's values removes exactly the groups no outer row can
 *   match and leaves every other group's rows untouched (k is traced through
 *   plain column references, filters, inner joins and the preserved side of
 *   outer joins only). So INNER, LEFT, SINGLE, SEMI and ANTI (NOT EXISTS)
 *   joins give the same rows: matched groups are unchanged and unmatched
 *   ones never mattered. Not MARK (x IN (subquery)): a NULL group key makes
 *   "no match" NULL instead of FALSE, and the semi join would drop it.
 *
 * OWNERSHIP
 *   Cloned nodes and the new joins live in pc->arena; the clone shares the
 *   original's (immutable) expressions.
 */
#include <math.h>
#include <string.h>

#include "sql/plan/prune_cols.h"
#include "sql/planner.h"

/* ---- the outer side: where do x's values come from? ---- */

typedef struct cand {
    fl_plan *node;
    uint32_t col;
    double est;
} cand;

static bool has_subquery(const fl_expr *e)
{
    if (!e)
        return false;
    if (e->kind == FL_EXPR_SUBQUERY)
        return true;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (has_subquery(e->args[i]))
            return true;
    return false;
}

/* A small subtree worth running twice: a data scan with a filter, under at
 * most two FILTER/PROJECT nodes, no subqueries. */
static bool clonable(const fl_plan *p, int depth, bool *filtered)
{
    if (depth > 2)
        return false;
    switch (p->kind) {
    case FL_PLAN_SCAN:
        if (p->u.scan.kind != FL_SCAN_ICEBERG && p->u.scan.kind != FL_SCAN_PARQUET)
            return false;
        if (p->u.scan.limit >= 0 || has_subquery(p->u.scan.filter))
            return false;
        *filtered |= p->u.scan.filter != NULL;
        return true;
    case FL_PLAN_FILTER:
        if (has_subquery(p->u.filter.filter))
            return false;
        *filtered = true;
        return clonable(p->children[0], depth + 1, filtered);
    case FL_PLAN_PROJECT:
        for (uint32_t i = 0; i < p->schema.nfields; i++)
            if (has_subquery(p->u.project.exprs[i]))
                return false;
        return clonable(p->children[0], depth + 1, filtered);
    default:
        return false;
    }
}

static bool plain_key(const fl_plan *j, uint32_t i)
{
    return j->u.join.left_keys[i]->kind == FL_EXPR_COLUMN &&
           j->u.join.right_keys[i]->kind == FL_EXPR_COLUMN &&
           !(j->u.join.null_safe && j->u.join.null_safe[i]);
}

/* Records in *best the smallest filtered clonable subtree whose column holds
 * every non-NULL value p's output column col can have. */
static void trace_outer(fl_plan *p, uint32_t col, cand *best, int depth)
{
    if (depth > 32 || col >= p->schema.nfields)
        return;
    bool filtered = false;
    if (clonable(p, 0, &filtered) && filtered && (!best->node || p->est_rows < best->est)) {
        best->node = p;
        best->col = col;
        best->est = p->est_rows;
    }
    switch (p->kind) {
    case FL_PLAN_PROJECT: {
        const fl_expr *e = p->u.project.exprs[col];
        if (e->kind == FL_EXPR_COLUMN)
            trace_outer(p->children[0], e->column, best, depth + 1);
        return;
    }
    case FL_PLAN_FILTER:
    case FL_PLAN_SORT:
    case FL_PLAN_LIMIT: trace_outer(p->children[0], col, best, depth + 1); return;
    case FL_PLAN_JOIN: {
        if (p->nchildren != 2)
            return;
        fl_join_type t = p->u.join.type;
        uint32_t nl = p->children[0]->schema.nfields;
        bool match_needed = t == FL_JOIN_INNER || t == FL_JOIN_SEMI;
        bool left = col < nl;
        if (!left && (t == FL_JOIN_SEMI || t == FL_JOIN_ANTI || t == FL_JOIN_MARK))
            return; /* the mark column */
        uint32_t c = left ? col : col - nl;
        trace_outer(p->children[left ? 0 : 1], c, best, depth + 1);
        /* an equi-join key that must match: its values are the other side's too */
        for (uint32_t i = 0; match_needed && i < p->u.join.nkeys; i++) {
            if (!plain_key(p, i))
                continue;
            const fl_expr *mine = left ? p->u.join.left_keys[i] : p->u.join.right_keys[i];
            const fl_expr *other = left ? p->u.join.right_keys[i] : p->u.join.left_keys[i];
            if (mine->column == c && fl_type_equal(&mine->type, &other->type))
                trace_outer(p->children[left ? 1 : 0], other->column, best, depth + 1);
        }
        return;
    }
    default: return;
    }
}

/* ---- the inner side: the aggregate and where its key column is made ---- */

/* Follows output column col of p through PROJECT/FILTER to a grouped AGG's
 * key that is a plain column of its input; NULL when it is not one. */
static fl_plan *agg_of(fl_plan *p, uint32_t col, uint32_t *in_col)
{
    for (int d = 0; d < 8; d++) {
        if (p->kind == FL_PLAN_PROJECT) {
            const fl_expr *e = p->u.project.exprs[col];
            if (e->kind != FL_EXPR_COLUMN)
                return NULL;
            col = e->column;
            p = p->children[0];
        } else if (p->kind == FL_PLAN_FILTER) {
            p = p->children[0];
        } else if (p->kind == FL_PLAN_AGG) {
            if (p->u.agg.nsets || col >= p->u.agg.nkeys ||
                p->u.agg.keys[col]->kind != FL_EXPR_COLUMN)
                return NULL;
            *in_col = p->u.agg.keys[col]->column;
            return p;
        } else {
            return NULL;
        }
    }
    return NULL;
}

/* The deepest place below *slot where rows can be dropped by their value of
 * column col: returns the slot holding that node and its column. */
static fl_plan **deepest(fl_plan **slot, uint32_t col, uint32_t *out_col)
{
    for (int d = 0; d < 32; d++) {
        fl_plan *p = *slot;
        if (p->kind == FL_PLAN_PROJECT) {
            const fl_expr *e = p->u.project.exprs[col];
            if (e->kind != FL_EXPR_COLUMN)
                break;
            col = e->column;
            slot = &p->children[0];
        } else if (p->kind == FL_PLAN_FILTER) {
            slot = &p->children[0];
        } else if (p->kind == FL_PLAN_JOIN && p->nchildren == 2) {
            fl_join_type t = p->u.join.type;
            uint32_t nl = p->children[0]->schema.nfields;
            if (col < nl && (t == FL_JOIN_INNER || t == FL_JOIN_LEFT || t == FL_JOIN_SEMI ||
                             t == FL_JOIN_ANTI || t == FL_JOIN_MARK || t == FL_JOIN_SINGLE ||
                             t == FL_JOIN_CROSS)) {
                slot = &p->children[0];
            } else if (col >= nl && (t == FL_JOIN_INNER || t == FL_JOIN_RIGHT ||
                                     t == FL_JOIN_CROSS)) {
                col -= nl;
                slot = &p->children[1];
            } else {
                break;
            }
        } else {
            break;
        }
    }
    *out_col = col;
    return slot;
}

static fl_plan *clone_tree(fl_arena *a, const fl_plan *p)
{
    fl_plan *c = fl_arena_alloc(a, sizeof *c);
    if (!c)
        return NULL;
    *c = *p;
    memset(&c->stats, 0, sizeof c->stats);
    c->stats.snapshot_id_read = -1;
    if (p->nchildren) {
        c->children = fl_arena_calloc(a, p->nchildren, sizeof(fl_plan *));
        if (!c->children)
            return NULL;
        for (uint32_t i = 0; i < p->nchildren; i++)
            if (!(c->children[i] = clone_tree(a, p->children[i])))
                return NULL;
    }
    return c;
}

/* *slot := *slot SEMI JOIN clone(src) ON *slot.col = src.scol */
static fl_status insert_semi(fl_arena *a, fl_plan **slot, uint32_t col, const cand *src,
                             fl_error *err)
{
    fl_plan *d = *slot;
    fl_plan *s = clone_tree(a, src->node);
    fl_plan *j = fl_plan_new(a, FL_PLAN_JOIN, 2, d->schema.nfields);
    fl_expr **lk = fl_arena_calloc(a, 1, sizeof *lk), **rk = fl_arena_calloc(a, 1, sizeof *rk);
    bool *ns = fl_arena_calloc(a, 1, sizeof *ns);
    if (!s || !j || !lk || !rk || !ns)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    lk[0] = fl_expr_column(a, col, &d->schema.fields[col].type);
    rk[0] = fl_expr_column(a, src->col, &s->schema.fields[src->col].type);
    if (!lk[0] || !rk[0])
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    lk[0]->alias = d->schema.fields[col].name;
    rk[0]->alias = s->schema.fields[src->col].name;
    memcpy(j->schema.fields, d->schema.fields, d->schema.nfields * sizeof(fl_field));
    j->children[0] = d;
    j->children[1] = s;
    j->u.join.type = FL_JOIN_SEMI;
    j->u.join.left_keys = lk;
    j->u.join.right_keys = rk;
    j->u.join.null_safe = ns;
    j->u.join.nkeys = 1;
    j->u.join.build_left = false;
    j->est_rows = d->est_rows; /* the caller scales it */
    *slot = j;
    return FL_OK;
}

/* Tries every key of join j whose side `inner` (0 or 1) is a grouped
 * aggregate, the other side being the outer one; true when one was pushed. */
static fl_status push_side(fl_planner_ctx *pc, fl_plan *j, uint32_t inner, bool *done,
                           fl_error *err)
{
    fl_join_type t = j->u.join.type;
    uint32_t outer = 1 - inner;
    for (uint32_t i = 0; i < j->u.join.nkeys; i++) {
        if (!plain_key(j, i))
            continue;
        fl_expr *ik = inner ? j->u.join.right_keys[i] : j->u.join.left_keys[i];
        fl_expr *ok = inner ? j->u.join.left_keys[i] : j->u.join.right_keys[i];
        uint32_t kcol;
        fl_plan *agg = agg_of(j->children[inner], ik->column, &kcol);
        if (!agg)
            continue;
        cand best = {0};
        trace_outer(j->children[outer], ok->column, &best, 0);
        fl_plan *in = agg->children[0];
        if (!best.node || best.est * 4 > in->est_rows ||
            !fl_type_equal(&best.node->schema.fields[best.col].type,
                           &in->schema.fields[kcol].type))
            continue;
        uint32_t dcol;
        fl_plan **slot = deepest(&agg->children[0], kcol, &dcol);
        if (!fl_type_equal(&(*slot)->schema.fields[dcol].type,
                           &best.node->schema.fields[best.col].type))
            continue;
        FL_TRY(insert_semi(pc->arena, slot, dcol, &best, err));
        /* the share of groups kept, applied to the rows they come from */
        double kept = fmin(1, best.est / fmax(1, agg->est_rows));
        (*slot)->est_rows = fmax(1, (*slot)->est_rows * kept);
        if (best.est < agg->est_rows)
            agg->est_rows = fmax(1, best.est);
        fl_plan *top = j->children[inner];
        if (top->kind == FL_PLAN_PROJECT && top->children[0] == agg)
            top->est_rows = agg->est_rows;
        if (t == FL_JOIN_LEFT && inner == 1)
            j->u.join.build_left = j->children[0]->est_rows * 2 < j->children[1]->est_rows;
        *done = true;
        return FL_OK; /* one key is enough */
    }
    return FL_OK;
}

static fl_status push_at(fl_planner_ctx *pc, fl_plan *j, fl_error *err)
{
    fl_join_type t = j->u.join.type;
    /* MARK: a NULL group key on the aggregate side turns FALSE into NULL,
     * and the semi join would drop that group */
    if (j->nchildren != 2 || j->u.join.nkeys == 0 || t == FL_JOIN_RIGHT || t == FL_JOIN_FULL ||
        t == FL_JOIN_CROSS || t == FL_JOIN_MARK)
        return FL_OK;
    bool done = false;
    FL_TRY(push_side(pc, j, 1, &done, err));
    /* an inner join is symmetric: the aggregate may be its left input */
    if (!done && t == FL_JOIN_INNER)
        FL_TRY(push_side(pc, j, 0, &done, err));
    return FL_OK;
}

static fl_status walk(fl_planner_ctx *pc, fl_plan *p, int depth, fl_error *err)
{
    if (depth > 200)
        return FL_OK;
    for (uint32_t i = 0; i < p->nchildren; i++)
        FL_TRY(walk(pc, p->children[i], depth + 1, err));
    if (p->kind == FL_PLAN_JOIN)
        FL_TRY(push_at(pc, p, err));
    return FL_OK;
}

fl_status fl_push_semijoins(fl_planner_ctx *pc, fl_plan *root, fl_error *err)
{
    if (!root || fl_plan_has_shared_nodes(pc, root))
        return FL_OK;
    return walk(pc, root, 0, err);
}
