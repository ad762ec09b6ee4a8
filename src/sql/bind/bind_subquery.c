/*
 * bind_subquery.c - subqueries in expressions, decorrelated (Neumann and
 * Kemper, "Unnesting Arbitrary Queries", restricted to equality
 * correlation):
 *
 *   EXISTS / NOT EXISTS (top-level conjunct)  -> SEMI / ANTI join
 *   x IN (SELECT y ...)                       -> SEMI join on x = y
 *   x NOT IN (SELECT y ...) / IN elsewhere    -> MARK join, filter on the mark
 *                                                (three-valued: NULL when no
 *                                                match but a NULL was seen)
 *   (SELECT agg(...) WHERE inner = outer)     -> the subquery grouped by its
 *                                                correlation keys, LEFT joined
 *                                                on them (count() -> coalesce 0)
 *   (SELECT x WHERE inner = outer)            -> SINGLE join (errors on > 1 row)
 *   uncorrelated scalar subquery              -> FL_EXPR_SUBQUERY (run once)
 *
 * Correlated conjuncts of the subquery's WHERE are taken out of it: those
 * of the form inner_expr = outer_expr become join keys, the others (Q21's
 * l2.l_suppkey <> l1.l_suppkey) the join's residual, with the inner columns
 * they need added to the subquery's output. Correlation deeper than one
 * level, correlated subqueries with GROUP BY/LIMIT, and non-equality
 * correlation of aggregating subqueries are FL_EUNSUPPORTED.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/bind/bind_apply.h"
#include "sql/parse/parse_tree.h"

bool fl_expr_has_outer(const fl_expr *e)
{
    if (e->kind == FL_EXPR_COLUMN)
        return (e->column & FL_REF_OUTER) != 0;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (fl_expr_has_outer(e->args[i]))
            return true;
    return false;
}

static bool has_local(const fl_expr *e)
{
    if (e->kind == FL_EXPR_COLUMN)
        return (e->column & FL_REF_OUTER) == 0;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (has_local(e->args[i]))
            return true;
    return false;
}

/* outer-only expression -> the parent's scope form (strip the marker) */
static fl_status strip_outer(fl_arena *a, const fl_expr *e, fl_expr **out, fl_error *err)
{
    if (e->kind == FL_EXPR_COLUMN) {
        fl_expr *n = fl_arena_alloc(a, sizeof *n);
        if (!n)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        *n = *e;
        n->column = e->column & FL_REF_MASK;
        *out = n;
        return FL_OK;
    }
    if (!e->nargs) {
        *out = (fl_expr *)e;
        return FL_OK;
    }
    fl_expr *n = fl_arena_alloc(a, sizeof *n);
    fl_expr **args = fl_arena_alloc(a, e->nargs * sizeof(fl_expr *));
    if (!n || !args)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *n = *e;
    n->args = args;
    for (uint32_t i = 0; i < e->nargs; i++)
        FL_TRY(strip_outer(a, e->args[i], &args[i], err));
    *out = n;
    return FL_OK;
}

/* residual: local columns -> extras appended (index = base + position), outer kept */
typedef struct extras {
    fl_expr **v;
    uint32_t n, cap;
} extras;

static fl_status local_to_extra(fl_arena *a, const fl_expr *e, extras *x, uint32_t base,
                                fl_expr **out, fl_error *err)
{
    if (e->kind == FL_EXPR_COLUMN && !(e->column & FL_REF_OUTER)) {
        uint32_t k;
        for (k = 0; k < x->n; k++)
            if (fl_expr_equal(x->v[k], e))
                break;
        if (k == x->n) {
            x->v = fl_front_grow(a, x->v, &x->cap, x->n, sizeof(fl_expr *));
            if (!x->v)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            x->v[x->n++] = (fl_expr *)e;
        }
        fl_expr *n = fl_arena_alloc(a, sizeof *n);
        if (!n)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        *n = *e;
        n->column = base + k;
        *out = n;
        return FL_OK;
    }
    if (!e->nargs) {
        *out = (fl_expr *)e;
        return FL_OK;
    }
    fl_expr *n = fl_arena_alloc(a, sizeof *n);
    fl_expr **args = fl_arena_alloc(a, e->nargs * sizeof(fl_expr *));
    if (!n || !args)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *n = *e;
    n->args = args;
    for (uint32_t i = 0; i < e->nargs; i++)
        FL_TRY(local_to_extra(a, e->args[i], x, base, &args[i], err));
    *out = n;
    return FL_OK;
}

static bool is_eq(const fl_expr *e)
{
    return e->kind == FL_EXPR_CALL && e->nargs == 2 && e->fn && strcmp(e->fn->name, "=") == 0;
}

static fl_status add_apply(fl_bctx *b, const fl_apply *ap, fl_error *err)
{
    b->applies = fl_front_grow(b->a, b->applies, &b->capapplies, b->napplies, sizeof(fl_apply));
    if (!b->applies)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    b->applies[b->napplies++] = *ap;
    return FL_OK;
}

/* a new scope column (virtual relation) for a mark or a scalar value */
static fl_status virtual_col(fl_bctx *b, const fl_type *t, const char *name, uint32_t *col,
                             fl_error *err)
{
    fl_rel r;
    memset(&r, 0, sizeof r);
    r.kind = FL_REL_VIRTUAL;
    fl_field f;
    memset(&f, 0, sizeof f);
    f.name = name;
    f.type = *t;
    f.nullable = true;
    fl_schema s = {.nfields = 1, .fields = &f};
    uint32_t ri;
    FL_TRY(fl_scope_add_rel(b->a, &b->scope, &r, &s, &ri, err));
    *col = b->scope.rels[ri].first;
    /* hidden from SELECT * */
    b->scope.cols[*col].name = NULL;
    b->scope.cols[*col].used = true;
    return FL_OK;
}

static fl_status col_ref(fl_bctx *b, uint32_t col, const fl_type *t, int32_t loc, fl_expr **out,
                         fl_error *err)
{
    *out = fl_expr_column(b->a, col, t);
    if (!*out)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    (*out)->location = loc;
    return FL_OK;
}

static fl_status negate(fl_bctx *b, fl_expr *e, fl_expr **out, fl_error *err)
{
    fl_type bt = {.id = FL_TYPE_BOOLEAN};
    fl_expr *n = fl_expr_new(b->a, FL_EXPR_NOT, &bt, 1);
    if (!n)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    n->args[0] = e;
    n->location = e->location;
    *out = n;
    return FL_OK;
}

static bool block_aggregates(const PgQuery__SelectStmt *s, const fl_bctx *sb)
{
    (void)sb;
    return s->n_group_clause > 0 || s->having_clause != NULL;
}

/* inner key over the subquery output vs the outer key: make the types agree */
static fl_status match_types(fl_bctx *b, fl_expr **outer, fl_expr **inner, int32_t loc,
                             fl_error *err)
{
    if (fl_type_equal(&(*outer)->type, &(*inner)->type))
        return FL_OK;
    if (fl_front_coerce(b->a, outer, inner, err) != FL_OK)
        return fl_front_err_at(b->pc, err, loc);
    return FL_OK;
}

static fl_status decorrelate(fl_bctx *b, const PgQuery__SubLink *sl, bool top, bool negated,
                             fl_expr **out, fl_error *err)
{
    *out = NULL;
    fl_planner_ctx *pc = b->pc;
    int32_t loc = sl->location;
    const PgQuery__Node *q = sl->subselect;
    if (!q || q->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
        return fl_front_err(pc, err, FL_ESYNTAX, loc, "42601", "malformed subquery");
    const PgQuery__SelectStmt *st = q->select_stmt;
    bool is_exists = sl->sub_link_type == PG_QUERY__SUB_LINK_TYPE__EXISTS_SUBLINK;
    bool is_in = sl->sub_link_type == PG_QUERY__SUB_LINK_TYPE__ANY_SUBLINK;
    bool is_scalar = sl->sub_link_type == PG_QUERY__SUB_LINK_TYPE__EXPR_SUBLINK;
    if (!is_exists && !is_in && !is_scalar)
        return fl_front_err(pc, err, FL_EUNSUPPORTED, loc, "0A000",
                            "this form of subquery (ALL/ARRAY/row comparison) is not supported");
    if (is_in && sl->n_oper_name) {
        const char *op = fl_front_str(sl->oper_name[sl->n_oper_name - 1]);
        if (!op || strcmp(op, "=") != 0)
            return fl_front_err(pc, err, FL_EUNSUPPORTED, loc, "0A000",
                                "ANY/SOME with operator %s is not supported", op ? op : "?");
    }
    if (is_scalar && negated)
        return fl_front_err(pc, err, FL_EINVAL, loc, "42804",
                            "argument of NOT must be type boolean");
    fl_expr *test = NULL;
    if (is_in) {
        if (sl->testexpr && sl->testexpr->node_case == PG_QUERY__NODE__NODE_ROW_EXPR)
            return fl_front_err(pc, err, FL_EUNSUPPORTED, loc, "0A000",
                                "row-valued IN (subquery) is not supported");
        FL_TRY(fl_bind_expr(b, sl->testexpr, &test, err));
    }

    /* bind the subquery's FROM and WHERE to learn whether it is correlated */
    fl_bctx *s = fl_arena_calloc(b->a, 1, sizeof *s);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    bool simple = st->op == PG_QUERY__SET_OPERATION__SETOP_NONE && !st->n_values_lists &&
                  !st->with_clause;
    fl_expr **corr = NULL;
    uint32_t ncorr = 0;
    if (simple) {
        fl_bctx_init(s, pc, b);
        FL_TRY(fl_bind_from_where(s, st, err));
        corr = fl_arena_calloc(b->a, s->nconj + 1, sizeof(fl_expr *));
        if (!corr)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        uint32_t k = 0;
        for (uint32_t i = 0; i < s->nconj; i++) {
            if (fl_expr_has_outer(s->conj[i]))
                corr[ncorr++] = s->conj[i];
            else
                s->conj[k++] = s->conj[i];
        }
        s->nconj = k;
    }

    fl_apply ap;
    memset(&ap, 0, sizeof ap);
    ap.scope_col = -1;
    if (ncorr == 0) {
        /* uncorrelated */
        fl_plan *sub;
        if (simple)
            FL_TRY(fl_finish_select(s, st, NULL, 0, &sub, err));
        else
            FL_TRY(fl_plan_select_stmt(pc, b, st, &sub, err));
        if (is_scalar) {
            if (sub->schema.nfields != 1)
                return fl_front_err(pc, err, FL_EINVAL, loc, "42601",
                                    "subquery must return only one column");
            fl_expr *e = fl_expr_new(b->a, FL_EXPR_SUBQUERY, &sub->schema.fields[0].type, 0);
            if (!e)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            e->subplan = sub;
            e->location = loc;
            e->alias = sub->schema.fields[0].name;
            *out = e;
            return FL_OK;
        }
        ap.sub = sub;
        if (is_in) {
            if (sub->schema.nfields != 1)
                return fl_front_err(pc, err, FL_EINVAL, loc, "42601",
                                    "subquery has too many columns");
            fl_expr *ik;
            FL_TRY(col_ref(b, 0, &sub->schema.fields[0].type, loc, &ik, err));
            FL_TRY(match_types(b, &test, &ik, loc, err));
            ap.outer_keys = fl_arena_alloc(b->a, sizeof(fl_expr *));
            ap.inner_keys = fl_arena_alloc(b->a, sizeof(fl_expr *));
            if (!ap.outer_keys || !ap.inner_keys)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            ap.outer_keys[0] = test;
            ap.inner_keys[0] = ik;
            ap.nkeys = 1;
        }
    } else {
        /* correlated: split the correlated conjuncts into keys and residual */
        if (block_aggregates(st, s) || st->limit_count || st->limit_offset ||
            st->n_distinct_clause)
            return fl_front_err(pc, err, FL_EUNSUPPORTED, loc, "0A000",
                                "correlated subqueries with GROUP BY, HAVING, DISTINCT or LIMIT "
                                "are not supported");
        fl_expr **ok = fl_arena_calloc(b->a, ncorr + 2, sizeof(fl_expr *));
        fl_expr **ik = fl_arena_calloc(b->a, ncorr + 2, sizeof(fl_expr *));
        fl_expr **resid = fl_arena_calloc(b->a, ncorr + 1, sizeof(fl_expr *));
        if (!ok || !ik || !resid)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        uint32_t nk = 0, nres = 0, nguard = 0;
        /* scalar subqueries: conjuncts over outer columns only (psql's
         * "AND a.atthasdef") guard the value: CASE WHEN guard THEN value END */
        fl_expr **guard = fl_arena_calloc(b->a, ncorr + 1, sizeof(fl_expr *));
        if (!guard)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < ncorr; i++) {
            fl_expr *e = corr[i];
            if (is_scalar && !has_local(e)) {
                FL_TRY(strip_outer(b->a, e, &guard[nguard++], err));
                continue;
            }
            if (is_eq(e)) {
                fl_expr *a0 = e->args[0], *a1 = e->args[1];
                if (fl_expr_has_outer(a1) && !has_local(a1) && !fl_expr_has_outer(a0)) {
                    FL_TRY(strip_outer(b->a, a1, &ok[nk], err));
                    ik[nk++] = a0;
                    continue;
                }
                if (fl_expr_has_outer(a0) && !has_local(a0) && !fl_expr_has_outer(a1)) {
                    FL_TRY(strip_outer(b->a, a0, &ok[nk], err));
                    ik[nk++] = a1;
                    continue;
                }
            }
            resid[nres++] = e;
        }
        /* the subquery's output: [inner keys..., residual columns..., select list] */
        extras ex = {0};
        for (uint32_t i = 0; i < nk; i++) {
            ex.v = fl_front_grow(b->a, ex.v, &ex.cap, ex.n, sizeof(fl_expr *));
            if (!ex.v)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            ex.v[ex.n++] = ik[i];
        }
        fl_expr *residual = NULL;
        if (nres) {
            for (uint32_t i = 0; i < nres; i++)
                FL_TRY(local_to_extra(b->a, resid[i], &ex, 0, &resid[i], err));
            if (fl_front_and(b->a, resid, nres, &residual) != FL_OK)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
        fl_plan *sub;
        if (is_exists) {
            /* EXISTS ignores the select list: output the extras only */
            PgQuery__SelectStmt copy = *st;
            copy.n_target_list = 0;
            FL_TRY(fl_finish_select(s, &copy, ex.v, ex.n, &sub, err));
        } else {
            FL_TRY(fl_finish_select(s, st, ex.v, ex.n, &sub, err));
        }
        if (sub->schema.nfields != ex.n + (is_exists ? 0 : 1))
            return fl_front_err(pc, err, FL_EINVAL, loc, "42601",
                                "subquery must return only one column");
        /* a non-equality correlation is a residual of the SINGLE join; an
         * aggregate would have to be computed per outer row */
        if (is_scalar && nres && s->naggs > 0)
            return fl_front_err(pc, err, FL_EUNSUPPORTED, loc, "0A000",
                                "aggregate subqueries correlated by a non-equality condition "
                                "are not supported");
        ap.sub = sub;
        ap.outer_keys = ok;
        ap.inner_keys = fl_arena_calloc(b->a, nk + 2, sizeof(fl_expr *));
        if (!ap.inner_keys)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < nk; i++) {
            FL_TRY(col_ref(b, i, &sub->schema.fields[i].type, loc, &ap.inner_keys[i], err));
            FL_TRY(match_types(b, &ap.outer_keys[i], &ap.inner_keys[i], loc, err));
        }
        ap.nkeys = nk;
        ap.residual = residual;
        if (is_in) {
            fl_expr *vk;
            FL_TRY(col_ref(b, ex.n, &sub->schema.fields[ex.n].type, loc, &vk, err));
            FL_TRY(match_types(b, &test, &vk, loc, err));
            ap.outer_keys[nk] = test;
            ap.inner_keys[nk] = vk;
            ap.nkeys = nk + 1;
        }
        if (is_scalar) {
            bool agg = s->naggs > 0;
            ap.type = agg ? FL_JOIN_LEFT : FL_JOIN_SINGLE;
            ap.value_col = ex.n;
            const fl_type *vt = &sub->schema.fields[ex.n].type;
            uint32_t col;
            FL_TRY(virtual_col(b, vt, sub->schema.fields[ex.n].name, &col, err));
            ap.scope_col = (int32_t)col;
            /* count(*) over no rows is 0, not NULL (the "count bug") */
            const fl_plan *pp = sub;
            const fl_expr *ve = pp->kind == FL_PLAN_PROJECT ? pp->u.project.exprs[ex.n] : NULL;
            const fl_plan *ag = pp->kind == FL_PLAN_PROJECT ? pp->children[0] : NULL;
            bool is_count = false;
            if (ve && ag && ag->kind == FL_PLAN_AGG && ve->kind == FL_EXPR_COLUMN &&
                ve->column >= ag->u.agg.nkeys &&
                ve->column - ag->u.agg.nkeys < ag->u.agg.naggs) {
                const fl_agg_call *c = &ag->u.agg.aggs[ve->column - ag->u.agg.nkeys];
                is_count = c->fn && strcmp(c->fn->name, "count") == 0;
            }
            FL_TRY(add_apply(b, &ap, err));
            fl_expr *ref;
            FL_TRY(col_ref(b, col, vt, loc, &ref, err));
            if (is_count) {
                fl_value z;
                memset(&z, 0, sizeof z);
                z.type = *vt;
                fl_expr *zero = fl_expr_const(b->a, &z);
                fl_expr *co = fl_expr_new(b->a, FL_EXPR_COALESCE, vt, 2);
                if (!zero || !co)
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
                co->args[0] = ref;
                co->args[1] = zero;
                co->location = loc;
                ref = co;
            }
            if (nguard) {
                fl_expr *cond, *ce = fl_expr_new(b->a, FL_EXPR_CASE, vt, 3);
                fl_value nv;
                memset(&nv, 0, sizeof nv);
                nv.type = *vt;
                nv.is_null = !is_count; /* count() over no rows is 0 */
                fl_expr *other = fl_expr_const(b->a, &nv);
                if (!ce || !other || fl_front_and(b->a, guard, nguard, &cond) != FL_OK)
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
                ce->args[0] = cond;
                ce->args[1] = ref;
                ce->args[2] = other;
                ce->location = loc;
                ref = ce;
            }
            *out = ref;
            return FL_OK;
        }
    }
    /* EXISTS / IN: semi, anti or mark */
    if (top && !negated) {
        ap.type = FL_JOIN_SEMI;
        return add_apply(b, &ap, err);
    }
    if (top && negated && is_exists) {
        ap.type = FL_JOIN_ANTI;
        return add_apply(b, &ap, err);
    }
    ap.type = FL_JOIN_MARK;
    fl_type bt = {.id = FL_TYPE_BOOLEAN};
    uint32_t col;
    FL_TRY(virtual_col(b, &bt, is_exists ? "exists" : "in", &col, err));
    ap.scope_col = (int32_t)col;
    FL_TRY(add_apply(b, &ap, err));
    fl_expr *ref;
    FL_TRY(col_ref(b, col, &bt, loc, &ref, err));
    if (negated)
        FL_TRY(negate(b, ref, &ref, err));
    *out = ref;
    return FL_OK;
}

/* The forms decorrelation handles first; when it reports the subquery
 * unsupported (or the subquery reaches this block through parameters,
 * which a join evaluated once cannot bind), the block's state is rolled
 * back and the subquery becomes an APPLY (bind_apply.c). */
fl_status fl_bind_sublink(fl_bctx *b, const PgQuery__SubLink *sl, bool top, bool negated,
                          fl_expr **out, fl_error *err)
{
    bool direct = sl->sub_link_type == PG_QUERY__SUB_LINK_TYPE__ALL_SUBLINK;
    if (sl->sub_link_type == PG_QUERY__SUB_LINK_TYPE__ANY_SUBLINK && sl->n_oper_name) {
        const char *op = fl_front_str(sl->oper_name[sl->n_oper_name - 1]);
        direct = !op || strcmp(op, "=") != 0;
    }
    if (!direct) {
        uint32_t napp = b->napplies, ncols = b->scope.ncols, nrels = b->scope.nrels;
        uint32_t nsl = b->nslots;
        int32_t pos = b->pc->error_position;
        fl_status rc = decorrelate(b, sl, top, negated, out, err);
        bool retry = rc == FL_EUNSUPPORTED ||
                     (rc == FL_EINVAL && strncmp(err->msg, "internal:", 9) == 0) ||
                     (rc == FL_OK && b->nslots > nsl);
        if (!retry)
            return rc;
        b->napplies = napp;
        b->scope.ncols = ncols;
        b->scope.nrels = nrels;
        b->nslots = nsl;
        b->pc->error_position = pos;
        fl_error_clear(err);
    }
    return fl_bind_sublink_apply(b, sl, top, negated, out, err);
}
