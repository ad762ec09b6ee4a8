/*
 * bind_apply.c - correlation that does not decorrelate into joins: LATERAL
 * subqueries and set-returning functions in FROM, correlated subqueries with
 * GROUP BY/LIMIT/DISTINCT/set operations, non-equality aggregates,
 * correlation two or more levels deep, and op ANY/ALL (subquery).
 *
 * Such a subquery is planned in "param mode" (fl_bctx.param_mode): a
 * reference to a column of an enclosing block g binds as a parameter slot
 * registered on g (fl_front_param_ref; slots are FL_APPLY_SLOT_BASE + k
 * while binding, renumbered past the statement's $n afterwards). The block
 * that owns the columns joins the subquery with an APPLY node (plan.h) that
 * binds those slots from each outer row (op_apply.c). References two levels
 * out register on the outer block, so the outer block's apply binds them
 * and the inner executions inherit them.
 *
 * Forms (apply over the block's FROM/WHERE, in joinorder.c's apply order):
 *   EXISTS           SEMI / ANTI at the top of WHERE, else MARK over TRUE
 *   x op ANY (sub)   MARK over (x op y); IN is = ANY
 *   x op ALL (sub)   NOT MARK over NOT (x op y)
 *   (sub)            SINGLE (one value, NULL when no row, 21000 when > 1)
 *   LATERAL (sub)    INNER (or LEFT for LEFT JOIN LATERAL ... ON TRUE)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/bind/bind_apply.h"
#include "sql/parse/parse_tree.h"
#include "sql/plan/plan_rules.h"

fl_status fl_front_param_ref(fl_bctx *g, uint32_t col, const fl_type *t, int32_t loc,
                             fl_expr **out, fl_error *err)
{
    fl_front_state *st = fl_front_state_of(g->pc);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t slot = UINT32_MAX;
    for (uint32_t i = g->slots_from; i < g->nslots; i++)
        if (g->slots[i].scope_col == col && !g->slots[i].expr)
            slot = g->slots[i].slot;
    if (slot == UINT32_MAX) {
        g->slots = fl_front_grow(g->a, g->slots, &g->capslots, g->nslots, sizeof(fl_slot_ref));
        if (!g->slots)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        slot = st->nslots++;
        g->slots[g->nslots].scope_col = col;
        g->slots[g->nslots].slot = slot;
        g->slots[g->nslots].expr = NULL;
        g->nslots++;
        g->scope.cols[col].used = true;
    }
    fl_expr *e = fl_expr_new(g->a, FL_EXPR_PARAM, t, 0);
    if (!e)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    e->param = FL_APPLY_SLOT_BASE + slot;
    e->location = loc;
    *out = e;
    return FL_OK;
}

/* a slot for an expression of b (scope form): the ANY/ALL test value */
static fl_status expr_slot(fl_bctx *b, fl_expr *x, fl_expr **out, fl_error *err)
{
    fl_front_state *st = fl_front_state_of(b->pc);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    b->slots = fl_front_grow(b->a, b->slots, &b->capslots, b->nslots, sizeof(fl_slot_ref));
    fl_expr *e = fl_expr_new(b->a, FL_EXPR_PARAM, &x->type, 0);
    if (!b->slots || !e)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t slot = st->nslots++;
    b->slots[b->nslots].scope_col = UINT32_MAX;
    b->slots[b->nslots].slot = slot;
    b->slots[b->nslots].expr = x;
    b->nslots++;
    e->param = FL_APPLY_SLOT_BASE + slot;
    e->location = x->location;
    *out = e;
    return FL_OK;
}

fl_status fl_apply_begin(fl_bctx *b, fl_apply_mark *m)
{
    m->slots_from = b->slots_from;
    m->nslots = b->nslots;
    m->param_children = b->param_children;
    b->slots_from = b->nslots;
    b->param_children = true;
    return FL_OK;
}

void fl_apply_end(fl_bctx *b, const fl_apply_mark *m)
{
    b->slots_from = m->slots_from;
    b->param_children = m->param_children;
}

bool fl_apply_used(const fl_bctx *b, const fl_apply_mark *m)
{
    return b->nslots > m->nslots;
}

/* the apply's params: the slots registered on b since m */
fl_status fl_apply_params(fl_bctx *b, const fl_apply_mark *m, fl_apply *ap, fl_error *err)
{
    uint32_t n = b->nslots - m->nslots;
    ap->params = fl_arena_calloc(b->a, n + 1, sizeof(fl_expr *));
    ap->slots = fl_arena_calloc(b->a, n + 1, sizeof(uint32_t));
    if (!ap->params || !ap->slots)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        const fl_slot_ref *s = &b->slots[m->nslots + i];
        ap->slots[i] = FL_APPLY_SLOT_BASE + s->slot;
        if (s->expr) {
            ap->params[i] = s->expr;
        } else {
            ap->params[i] = fl_expr_column(b->a, s->scope_col, &b->scope.cols[s->scope_col].type);
            if (!ap->params[i])
                return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
    }
    ap->nparams = n;
    ap->is_apply = true;
    return FL_OK;
}

fl_status fl_apply_add(fl_bctx *b, const fl_apply *ap, fl_error *err)
{
    b->applies = fl_front_grow(b->a, b->applies, &b->capapplies, b->napplies, sizeof(fl_apply));
    if (!b->applies)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    b->applies[b->napplies++] = *ap;
    return FL_OK;
}

/* hidden scope column of a virtual relation for a mark or scalar value */
static fl_status hidden_col(fl_bctx *b, const fl_type *t, const char *name, uint32_t *col,
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
    b->scope.cols[*col].name = NULL;
    b->scope.cols[*col].used = true;
    return FL_OK;
}

static fl_plan *project1(fl_arena *a, fl_plan *child, fl_expr *e, const char *name)
{
    fl_expr **v = fl_arena_alloc(a, sizeof(fl_expr *));
    const char **n = fl_arena_alloc(a, sizeof(char *));
    if (!v || !n)
        return NULL;
    v[0] = e;
    n[0] = name;
    return fl_front_project(a, child, v, n, 1);
}

fl_status fl_bind_sublink_apply(fl_bctx *b, const PgQuery__SubLink *sl, bool top, bool negated,
                                fl_expr **out, fl_error *err)
{
    *out = NULL;
    fl_planner_ctx *pc = b->pc;
    int32_t loc = sl->location;
    const PgQuery__Node *q = sl->subselect;
    if (!q || q->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
        return fl_front_err(pc, err, FL_ESYNTAX, loc, "42601", "malformed subquery");
    PgQuery__SubLinkType kind = sl->sub_link_type;
    bool is_exists = kind == PG_QUERY__SUB_LINK_TYPE__EXISTS_SUBLINK;
    bool is_any = kind == PG_QUERY__SUB_LINK_TYPE__ANY_SUBLINK;
    bool is_all = kind == PG_QUERY__SUB_LINK_TYPE__ALL_SUBLINK;
    bool is_scalar = kind == PG_QUERY__SUB_LINK_TYPE__EXPR_SUBLINK;
    if (!is_exists && !is_any && !is_all && !is_scalar)
        return fl_front_err(pc, err, FL_EUNSUPPORTED, loc, "0A000",
                            "this form of subquery (ARRAY/row comparison) is not supported");
    fl_expr *test = NULL;
    const char *op = "=";
    if (is_any || is_all) {
        if (sl->n_oper_name)
            op = fl_front_str(sl->oper_name[sl->n_oper_name - 1]);
        if (!op)
            return fl_front_err(pc, err, FL_ESYNTAX, loc, "42601", "malformed operator");
        if (sl->testexpr && sl->testexpr->node_case == PG_QUERY__NODE__NODE_ROW_EXPR)
            return fl_front_err(pc, err, FL_EUNSUPPORTED, loc, "0A000",
                                "row-valued %s (subquery) is not supported",
                                is_all ? "ALL" : "ANY/IN");
        FL_TRY(fl_bind_expr(b, sl->testexpr, &test, err));
    }
    fl_apply_mark m;
    fl_apply_begin(b, &m);
    fl_expr *ptest = NULL;
    fl_status rc = FL_OK;
    if (test)
        rc = expr_slot(b, test, &ptest, err);
    fl_plan *sub = NULL;
    if (!rc)
        rc = fl_plan_select_stmt(pc, b, q->select_stmt, &sub, err);
    fl_apply_end(b, &m);
    FL_TRY(rc);
    fl_apply ap;
    memset(&ap, 0, sizeof ap);
    ap.scope_col = -1;
    FL_TRY(fl_apply_params(b, &m, &ap, err));
    fl_type bt = {.id = FL_TYPE_BOOLEAN};
    if (is_scalar) {
        if (sub->schema.nfields != 1)
            return fl_front_err(pc, err, FL_EINVAL, loc, "42601",
                                "subquery must return only one column");
        if (negated)
            return fl_front_err(pc, err, FL_EINVAL, loc, "42804",
                                "argument of NOT must be type boolean");
        ap.type = FL_JOIN_SINGLE;
        ap.sub = sub;
        ap.value_col = 0;
        const fl_type *vt = &sub->schema.fields[0].type;
        uint32_t col;
        FL_TRY(hidden_col(b, vt, sub->schema.fields[0].name, &col, err));
        ap.scope_col = (int32_t)col;
        FL_TRY(fl_apply_add(b, &ap, err));
        *out = fl_expr_column(b->a, col, vt);
        if (!*out)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        (*out)->location = loc;
        (*out)->alias = sub->schema.fields[0].name;
        return FL_OK;
    }
    if (is_exists && top) {
        ap.type = negated ? FL_JOIN_ANTI : FL_JOIN_SEMI;
        ap.sub = sub;
        return fl_apply_add(b, &ap, err);
    }
    /* MARK over one BOOLEAN column */
    fl_expr *c;
    if (is_exists) {
        fl_value tv;
        memset(&tv, 0, sizeof tv);
        tv.type = bt;
        tv.v.b = true;
        c = fl_expr_const(b->a, &tv);
        if (!c)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    } else {
        if (sub->schema.nfields != 1)
            return fl_front_err(pc, err, FL_EINVAL, loc, "42601",
                                "subquery has too many columns");
        fl_expr *args[2] = {ptest, fl_expr_column(b->a, 0, &sub->schema.fields[0].type)};
        if (!args[1])
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (fl_expr_call(b->a, op, args, 2, loc, &c, err) != FL_OK)
            return fl_front_err_at(pc, err, loc);
        if (c->type.id != FL_TYPE_BOOLEAN)
            return fl_front_err(pc, err, FL_ETYPE, loc, "42809",
                                "op ANY/ALL (array) requires operator to yield boolean");
        if (is_all) {
            fl_expr *nc = fl_expr_new(b->a, FL_EXPR_NOT, &bt, 1);
            if (!nc)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            nc->args[0] = c;
            c = nc;
        }
    }
    ap.sub = project1(b->a, sub, c, "mark");
    if (!ap.sub)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    ap.type = FL_JOIN_MARK;
    uint32_t col;
    FL_TRY(hidden_col(b, &bt, is_exists ? "exists" : is_all ? "all" : "any", &col, err));
    ap.scope_col = (int32_t)col;
    FL_TRY(fl_apply_add(b, &ap, err));
    fl_expr *ref = fl_expr_column(b->a, col, &bt);
    if (!ref)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    ref->location = loc;
    if (is_all != negated) {
        fl_expr *n = fl_expr_new(b->a, FL_EXPR_NOT, &bt, 1);
        if (!n)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        n->args[0] = ref;
        n->location = loc;
        ref = n;
    }
    *out = ref;
    return FL_OK;
}

fl_status fl_front_lateral(fl_bctx *b, fl_plan *sub, const fl_apply_mark *m, const char *alias,
                           const fl_schema *cols, bool left, fl_error *err)
{
    fl_apply ap;
    memset(&ap, 0, sizeof ap);
    FL_TRY(fl_apply_params(b, m, &ap, err));
    fl_rel r;
    memset(&r, 0, sizeof r);
    r.kind = FL_REL_VIRTUAL;
    r.alias = alias;
    uint32_t ri;
    FL_TRY(fl_scope_add_rel(b->a, &b->scope, &r, cols, &ri, err));
    ap.type = left ? FL_JOIN_LEFT : FL_JOIN_INNER;
    ap.sub = sub;
    ap.scope_col = (int32_t)b->scope.rels[ri].first;
    ap.ncols = cols->nfields;
    return fl_apply_add(b, &ap, err);
}

fl_status fl_front_apply_built(fl_bctx *b, const fl_apply *ap, fl_plan *p, int32_t *map,
                               fl_error *err)
{
    if (!ap->is_apply)
        return FL_OK;
    fl_plan *left = p->children[0];
    uint32_t nl = left->schema.nfields, nr = ap->sub->schema.nfields;
    fl_join_type t = ap->type;
    uint32_t nout = nl + (t == FL_JOIN_MARK                          ? 1
                          : t == FL_JOIN_SEMI || t == FL_JOIN_ANTI ? 0
                                                                   : nr);
    fl_field *f = fl_arena_calloc(b->a, nout + 1, sizeof(fl_field));
    fl_expr **params = fl_arena_calloc(b->a, ap->nparams + 1, sizeof(fl_expr *));
    if (!f || !params)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    memcpy(f, left->schema.fields, nl * sizeof(fl_field));
    if (t == FL_JOIN_MARK) {
        f[nl].name = "mark";
        f[nl].type.id = FL_TYPE_BOOLEAN;
        f[nl].nullable = true;
    } else if (nout > nl) {
        memcpy(f + nl, ap->sub->schema.fields, nr * sizeof(fl_field));
        if (t != FL_JOIN_INNER)
            for (uint32_t i = 0; i < nr; i++)
                f[nl + i].nullable = true;
    }
    for (uint32_t i = 0; i < ap->nparams; i++)
        FL_TRY(fl_front_remap(b->a, ap->params[i], map, b->scope.ncols, &params[i], err));
    double est = left->est_rows;
    if (t == FL_JOIN_INNER || t == FL_JOIN_LEFT)
        est *= ap->sub->est_rows > 1 ? ap->sub->est_rows : 1;
    else if (t == FL_JOIN_SEMI || t == FL_JOIN_ANTI)
        est *= 0.5;
    p->kind = FL_PLAN_APPLY;
    p->schema.fields = f;
    p->schema.nfields = nout;
    memset(&p->u, 0, sizeof p->u);
    p->u.apply.type = t;
    p->u.apply.params = params;
    p->u.apply.slots = ap->slots;
    p->u.apply.nparams = ap->nparams;
    p->est_rows = est < 1 ? 1 : est;
    if (ap->ncols)
        for (uint32_t j = 0; j < ap->ncols; j++)
            map[(uint32_t)ap->scope_col + j] = (int32_t)(nl + j);
    else if (ap->scope_col >= 0)
        map[ap->scope_col] = t == FL_JOIN_MARK ? (int32_t)nl : (int32_t)(nl + ap->value_col);
    return FL_OK;
}
