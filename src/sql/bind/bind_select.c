/*
 * bind_select.c - a query block into a plan: WITH, set operations, VALUES,
 * and SELECT blocks (FROM/WHERE -> joinorder.c; then GROUP BY/aggregates,
 * HAVING, window functions, the select list, DISTINCT, ORDER BY,
 * LIMIT/OFFSET).
 *
 * Expressions of the select list, GROUP BY, HAVING and ORDER BY are bound in
 * scope form before the FROM/WHERE plan is built (so that subqueries in them
 * become joins of that plan), then moved onto the aggregate's output
 * ("post" form): a subtree equal to a GROUP BY key becomes that key's
 * column, an aggregate marker its result column, and any other input
 * column is the PostgreSQL error 42803.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/bind/bind_apply.h"
#include "sql/parse/depth.h"
#include "sql/parse/parse_tree.h"
#include "sql/plan/plan_rules.h"

typedef PgQuery__Node Node;

void fl_bctx_init(fl_bctx *b, fl_planner_ctx *pc, fl_bctx *parent)
{
    memset(b, 0, sizeof *b);
    b->pc = pc;
    b->a = pc->arena;
    b->parent = parent;
    b->scope.parent = parent ? &parent->scope : NULL;
    b->param_mode = parent && parent->param_children;
}

fl_status fl_bctx_add_conj(fl_bctx *b, fl_expr *e, fl_error *err)
{
    b->conj = fl_front_grow(b->a, b->conj, &b->capconj, b->nconj, sizeof(fl_expr *));
    if (!b->conj)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    b->conj[b->nconj++] = e;
    return FL_OK;
}

fl_status fl_bind_bool(fl_bctx *b, const PgQuery__Node *n, fl_expr **out, fl_error *err)
{
    FL_TRY(fl_bind_expr(b, n, out, err));
    fl_type bt = {.id = FL_TYPE_BOOLEAN};
    if ((*out)->type.id == FL_TYPE_BOOLEAN)
        return FL_OK;
    if ((*out)->kind == FL_EXPR_PARAM ||
        ((*out)->kind == FL_EXPR_CONST && (*out)->type.id == FL_TYPE_STRING)) {
        if ((*out)->kind == FL_EXPR_PARAM && (*out)->param < b->pc->nparams)
            b->pc->param_types[(*out)->param] = bt;
        if (fl_expr_cast(b->a, *out, &bt, out, err) != FL_OK)
            return fl_front_err_at(b->pc, err, (*out)->location);
        *out = fl_front_fold(b->a, *out);
        return FL_OK;
    }
    char tb[64];
    return fl_front_err(b->pc, err, FL_ETYPE, (*out)->location, "42804",
                        "argument of WHERE must be type boolean, not type %s",
                        fl_sql_type_name(&(*out)->type, tb, sizeof tb));
}

/* ---- FROM ---- */

fl_status fl_bind_conjuncts(fl_bctx *b, const Node *n, fl_expr ***out, uint32_t *nout,
                            uint32_t *cap, bool allow_sublink, fl_error *err)
{
    if (n->node_case == PG_QUERY__NODE__NODE_BOOL_EXPR &&
        n->bool_expr->boolop == PG_QUERY__BOOL_EXPR_TYPE__AND_EXPR) {
        for (size_t i = 0; i < n->bool_expr->n_args; i++)
            FL_TRY(fl_bind_conjuncts(b, n->bool_expr->args[i], out, nout, cap, allow_sublink, err));
        return FL_OK;
    }
    fl_expr *e = NULL;
    const PgQuery__SubLink *sl = NULL;
    bool neg = false;
    if (n->node_case == PG_QUERY__NODE__NODE_SUB_LINK)
        sl = n->sub_link;
    else if (n->node_case == PG_QUERY__NODE__NODE_BOOL_EXPR &&
             n->bool_expr->boolop == PG_QUERY__BOOL_EXPR_TYPE__NOT_EXPR &&
             n->bool_expr->n_args == 1 &&
             n->bool_expr->args[0]->node_case == PG_QUERY__NODE__NODE_SUB_LINK) {
        sl = n->bool_expr->args[0]->sub_link;
        neg = true;
    }
    uint32_t before = b->napplies;
    if (sl && sl->sub_link_type != PG_QUERY__SUB_LINK_TYPE__EXPR_SUBLINK) {
        if (!allow_sublink)
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, sl->location, "0A000",
                                "subqueries in JOIN ... ON conditions are not supported");
        FL_TRY(fl_bind_sublink(b, sl, true, neg, &e, err));
        if (!e)
            return FL_OK; /* became a SEMI/ANTI join */
    } else {
        FL_TRY(fl_bind_bool(b, n, &e, err));
    }
    if (!allow_sublink && b->napplies != before)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, e->location, "0A000",
                            "subqueries in JOIN ... ON conditions are not supported");
    /* WHERE TRUE adds nothing */
    if (e->kind == FL_EXPR_CONST && !e->value.is_null && e->value.v.b)
        return FL_OK;
    *out = fl_front_grow(b->a, *out, cap, *nout, sizeof(fl_expr *));
    if (!*out)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    (*out)[(*nout)++] = e;
    return FL_OK;
}

fl_status fl_bind_leaf(fl_bctx *b, uint32_t ri, fl_jtree **out, fl_error *err)
{
    fl_jtree *t = fl_jtree_new(b->a, 0);
    if (!t)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    t->rel = ri;
    t->mask = 1ull << ri;
    *out = t;
    return FL_OK;
}

static fl_status subquery_rel(fl_bctx *b, const PgQuery__RangeSubselect *rs, fl_jtree **out,
                              fl_error *err)
{
    if (!rs->subquery || rs->subquery->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
        return fl_errorf(err, FL_ESYNTAX, "malformed subquery in FROM");
    fl_plan *p;
    /* LATERAL sees this block's earlier FROM items; any derived table sees
     * the enclosing blocks (param mode, bind_apply.c) */
    fl_bctx *owner = rs->lateral ? b : b->parent;
    fl_apply_mark m = {0};
    if (owner)
        fl_apply_begin(owner, &m);
    fl_status rc = fl_plan_select_stmt(b->pc, owner, rs->subquery->select_stmt, &p, err);
    if (owner)
        fl_apply_end(owner, &m);
    FL_TRY(rc);
    bool lateral = rs->lateral && fl_apply_used(b, &m);
    fl_schema cols = p->schema;
    const PgQuery__Alias *al = rs->alias;
    if (al && al->n_colnames) {
        if (al->n_colnames > cols.nfields)
            return fl_errorf(err, FL_EINVAL, "subquery \"%s\" has %u columns but %zu names",
                             al->aliasname, cols.nfields, al->n_colnames);
        fl_field *f = fl_arena_alloc(b->a, cols.nfields * sizeof(fl_field));
        if (!f)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        memcpy(f, cols.fields, cols.nfields * sizeof(fl_field));
        for (size_t i = 0; i < al->n_colnames; i++)
            f[i].name = fl_front_str(al->colnames[i]);
        cols.fields = f;
    }
    if (lateral) {
        *out = NULL; /* an apply, not a jtree leaf */
        return fl_front_lateral(b, p, &m, al ? al->aliasname : NULL, &cols, false, err);
    }
    fl_rel r;
    memset(&r, 0, sizeof r);
    r.kind = FL_REL_PLAN;
    r.alias = al ? al->aliasname : NULL;
    r.plan = p;
    uint32_t ri;
    FL_TRY(fl_scope_add_rel(b->a, &b->scope, &r, &cols, &ri, err));
    return fl_bind_leaf(b, ri, out, err);
}

/* t TABLESAMPLE BERNOULLI (p) / SYSTEM (p): each row kept with probability
 * p/100 (SYSTEM samples rows too, not blocks); REPEATABLE (seed) is not
 * honored: every run draws again (README) */
static fl_status table_sample(fl_bctx *b, const PgQuery__RangeTableSample *ts, int ctx,
                              fl_jtree **out, fl_error *err)
{
    const char *m = ts->n_method ? fl_front_str(ts->method[ts->n_method - 1]) : NULL;
    if (!m || (strcmp(m, "bernoulli") != 0 && strcmp(m, "system") != 0))
        return fl_front_err(b->pc, err, FL_ENOTFOUND, ts->location, "42704",
                            "tablesample method %s does not exist", m ? m : "?");
    if (ts->n_args != 1)
        return fl_front_err(b->pc, err, FL_EINVAL, ts->location, "42601",
                            "tablesample method %s requires 1 argument, not %zu", m, ts->n_args);
    if (!ts->relation || ts->relation->node_case != PG_QUERY__NODE__NODE_RANGE_VAR)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, ts->location, "0A000",
                            "TABLESAMPLE is supported on tables only");
    FL_TRY(fl_bind_from_item(b, ts->relation, ctx, out, err));
    fl_bctx c;
    fl_bctx_init(&c, b->pc, NULL);
    fl_expr *pct, *rnd, *cond;
    FL_TRY(fl_bind_expr(&c, ts->args[0], &pct, err));
    fl_type f8 = {.id = FL_TYPE_FLOAT64};
    if (fl_expr_cast(b->a, pct, &f8, &pct, err) != FL_OK)
        return fl_front_err_at(b->pc, err, ts->location);
    pct = fl_front_fold(b->a, pct);
    if (pct->kind != FL_EXPR_CONST || pct->value.is_null || !(pct->value.v.f64 >= 0) ||
        pct->value.v.f64 > 100)
        return fl_front_err(b->pc, err, FL_EINVAL, ts->location, "2202H",
                            "sample percentage must be between 0 and 100");
    FL_TRY(fl_expr_call(b->a, "random", NULL, 0, ts->location, &rnd, err));
    fl_value h;
    memset(&h, 0, sizeof h);
    h.type = f8;
    h.v.f64 = pct->value.v.f64 / 100.0;
    fl_expr *args[2] = {rnd, fl_expr_const(b->a, &h)};
    if (!args[1])
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    FL_TRY(fl_expr_call(b->a, "<", args, 2, ts->location, &cond, err));
    fl_jtree *t = *out;
    t->filters = fl_front_grow(b->a, t->filters, &t->capfilters, t->nfilters, sizeof(fl_expr *));
    if (!t->filters)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    t->filters[t->nfilters++] = cond;
    return FL_OK;
}

fl_status fl_bind_from_item(fl_bctx *b, const Node *n, int ctx, fl_jtree **out, fl_error *err)
{
    uint32_t ri;
    switch (n->node_case) {
    case PG_QUERY__NODE__NODE_RANGE_VAR:
        FL_TRY(fl_bind_table(b, n->range_var, &ri, err));
        return fl_bind_leaf(b, ri, out, err);
    case PG_QUERY__NODE__NODE_RANGE_SUBSELECT: return subquery_rel(b, n->range_subselect, out, err);
    case PG_QUERY__NODE__NODE_RANGE_FUNCTION: {
        bool handled = false, lateral = false;
        FL_TRY(fl_bind_srf(b, n->range_function, &handled, &lateral, &ri, err));
        if (handled && lateral) {
            *out = NULL;
            return FL_OK;
        }
        if (!handled)
            FL_TRY(fl_bind_table_function(b, n->range_function, &ri, err));
        return fl_bind_leaf(b, ri, out, err);
    }
    case PG_QUERY__NODE__NODE_JOIN_EXPR: return fl_bind_join(b, n->join_expr, ctx, out, err);
    case PG_QUERY__NODE__NODE_RANGE_TABLE_SAMPLE:
        return table_sample(b, n->range_table_sample, ctx, out, err);
    default: return fl_front_err(b->pc, err, FL_EUNSUPPORTED, -1, "0A000", "unsupported FROM item");
    }
}

fl_status fl_bind_from_where(fl_bctx *b, const PgQuery__SelectStmt *s, fl_error *err)
{
    b->stmt = s;
    fl_jtree *root = fl_bctx_root(b);
    if (!root)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->n_from_clause; i++) {
        fl_jtree *t;
        FL_TRY(fl_bind_from_item(b, s->from_clause[i], FL_JCTX_TOP, &t, err));
        if (t) /* NULL: a LATERAL item joined by an apply */
            FL_TRY(fl_jtree_add(b->a, root, t, err));
    }
    if (s->where_clause)
        FL_TRY(fl_bind_conjuncts(b, s->where_clause, &b->conj, &b->nconj, &b->capconj, true, err));
    return FL_OK;
}

/* ---- select list, grouping, ordering ---- */

typedef struct target {
    fl_expr *e; /* pre form */
    const char *name;
} target;

typedef struct targets {
    target *v;
    uint32_t n, cap;
} targets;

static fl_status add_target(fl_bctx *b, targets *t, fl_expr *e, const char *name, fl_error *err)
{
    t->v = fl_front_grow(b->a, t->v, &t->cap, t->n, sizeof(target));
    if (!t->v)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    t->v[t->n].e = e;
    t->v[t->n].name = name;
    t->n++;
    return FL_OK;
}

static fl_status expand_star(fl_bctx *b, const PgQuery__ColumnRef *cr, targets *t, fl_error *err)
{
    const char *qual = cr->n_fields >= 2 ? fl_front_str(cr->fields[cr->n_fields - 2]) : NULL;
    bool any = false;
    for (uint32_t i = 0; i < b->scope.ncols; i++) {
        fl_scope_col *c = &b->scope.cols[i];
        if (!c->name) /* hidden (marks, scalar subquery values) */
            continue;
        if (qual && (!c->qual || strcmp(c->qual, qual) != 0))
            continue;
        if ((!qual && c->using_hidden) || c->meta_hidden)
            continue;
        c->used = true;
        fl_expr *e;
        if (!qual && c->using_merged) {
            FL_TRY(fl_scope_col_expr(b, i, cr->location, &e, err));
        } else {
            e = fl_expr_column(b->a, i, &c->type);
            if (!e)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
        e->alias = c->name;
        FL_TRY(add_target(b, t, e, c->name, err));
        any = true;
    }
    if (qual && !any)
        return fl_front_err(b->pc, err, FL_ENOTFOUND, cr->location, "42P01",
                            "missing FROM-clause entry for table \"%s\"", qual);
    if (!qual && !any && b->scope.nrels == 0)
        return fl_front_err(b->pc, err, FL_EINVAL, cr->location, "42601",
                            "SELECT * with no tables specified is not valid");
    return FL_OK;
}

static fl_status bind_targets(fl_bctx *b, const PgQuery__SelectStmt *s, targets *t, fl_error *err)
{
    for (size_t i = 0; i < s->n_target_list; i++) {
        const PgQuery__ResTarget *rt = s->target_list[i]->res_target;
        const Node *v = rt->val;
        if (v->node_case == PG_QUERY__NODE__NODE_COLUMN_REF && v->column_ref->n_fields &&
            v->column_ref->fields[v->column_ref->n_fields - 1]->node_case ==
                PG_QUERY__NODE__NODE_A_STAR) {
            FL_TRY(expand_star(b, v->column_ref, t, err));
            continue;
        }
        fl_expr *e;
        FL_TRY(fl_bind_expr(b, v, &e, err));
        if (e->type.id == FL_TYPE_STRING && e->type.fixed_len == -1) {
            /* an unknown literal in the select list is text */
            fl_type tt = {.id = FL_TYPE_STRING};
            if (fl_expr_cast(b->a, e, &tt, &e, err) != FL_OK)
                return fl_front_err_at(b->pc, err, rt->location);
            e = fl_front_fold(b->a, e);
        }
        const char *name = rt->name && rt->name[0] ? rt->name : fl_front_node_name(v);
        FL_TRY(add_target(b, t, e, name, err));
    }
    return FL_OK;
}

static bool ordinal_of(const Node *n, int32_t *k)
{
    if (n->node_case == PG_QUERY__NODE__NODE_A_CONST &&
        n->a_const->val_case == PG_QUERY__A__CONST__VAL_IVAL) {
        *k = n->a_const->ival->ival;
        return true;
    }
    return false;
}

static const char *bare_name(const Node *n)
{
    if (n->node_case == PG_QUERY__NODE__NODE_COLUMN_REF && n->column_ref->n_fields == 1)
        return fl_front_str(n->column_ref->fields[0]);
    return NULL;
}

static bool in_scope(fl_bctx *b, const char *name)
{
    for (uint32_t i = 0; i < b->scope.ncols; i++)
        if (b->scope.cols[i].name && strcmp(b->scope.cols[i].name, name) == 0)
            return true;
    return false;
}

typedef struct gsets {
    uint64_t *m; /* one key mask per grouping set */
    uint32_t n, cap;
    bool used; /* GROUPING SETS / ROLLUP / CUBE appeared */
} gsets;

#define MAX_GROUPING_SETS 4096

static fl_status gs_add(fl_arena *a, gsets *g, uint64_t m, fl_error *err)
{
    if (g->n >= MAX_GROUPING_SETS)
        return fl_errorf(err, FL_ELIMIT, "more than %d grouping sets", MAX_GROUPING_SETS);
    g->m = fl_front_grow(a, g->m, &g->cap, g->n, sizeof(uint64_t));
    if (!g->m)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    g->m[g->n++] = m;
    return FL_OK;
}

/* result = {x | y : x in a, y in b} */
static fl_status gs_product(fl_arena *ar, const gsets *a, const gsets *b, gsets *out, fl_error *err)
{
    gsets r = {0};
    for (uint32_t i = 0; i < a->n; i++)
        for (uint32_t j = 0; j < b->n; j++)
            FL_TRY(gs_add(ar, &r, a->m[i] | b->m[j], err));
    r.used = true;
    *out = r;
    return FL_OK;
}

typedef struct group_ctx {
    fl_bctx *b;
    const targets *t;
    fl_expr ***keys;
    uint32_t *nkeys, *cap;
} group_ctx;

/* true if e refers to an aggregate or window result of its block */
static bool refs_agg(const fl_expr *e)
{
    if (!e)
        return false;
    if (e->kind == FL_EXPR_COLUMN && (e->column & (FL_REF_AGG | FL_REF_WIN)) &&
        !(e->column & FL_REF_OUTER))
        return true;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (refs_agg(e->args[i]))
            return true;
    return false;
}

/* binds one GROUP BY expression (ordinal, output alias or expression) to a key index */
static fl_status group_key(group_ctx *g, const Node *n, uint32_t *idx, fl_error *err)
{
    fl_bctx *b = g->b;
    const targets *t = g->t;
    fl_expr *e = NULL;
    int32_t k;
    const char *nm;
    if (ordinal_of(n, &k)) {
        if (k < 1 || (uint32_t)k > t->n)
            return fl_front_err(b->pc, err, FL_EINVAL, n->a_const->location, "42P10",
                                "GROUP BY position %d is not in select list", k);
        e = t->v[k - 1].e;
    } else if ((nm = bare_name(n)) && !in_scope(b, nm)) {
        for (uint32_t j = 0; j < t->n && !e; j++)
            if (t->v[j].name && strcmp(t->v[j].name, nm) == 0)
                e = t->v[j].e;
    }
    if (e && refs_agg(e))
        return fl_front_err(b->pc, err, FL_EINVAL, -1, "42803",
                            "aggregate functions are not allowed in GROUP BY");
    if (!e) {
        bool saved = b->allow_agg, savedw = b->allow_win;
        b->allow_agg = b->allow_win = false;
        fl_status rc = fl_bind_expr(b, n, &e, err);
        b->allow_agg = saved;
        b->allow_win = savedw;
        FL_TRY(rc);
    }
    for (uint32_t i = 0; i < *g->nkeys; i++)
        if (fl_expr_equal((*g->keys)[i], e)) {
            *idx = i;
            return FL_OK;
        }
    if (*g->nkeys >= 64)
        return fl_front_err(b->pc, err, FL_ELIMIT, -1, "54000", "more than 64 GROUP BY keys");
    *g->keys = fl_front_grow(b->a, *g->keys, g->cap, *g->nkeys, sizeof(fl_expr *));
    if (!*g->keys)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *idx = *g->nkeys;
    (*g->keys)[(*g->nkeys)++] = e;
    return FL_OK;
}

/* the key mask of an element: an expression, or a parenthesized list (RowExpr) */
static fl_status element_mask(group_ctx *g, const Node *n, uint64_t *m, fl_error *err)
{
    *m = 0;
    if (n->node_case == PG_QUERY__NODE__NODE_ROW_EXPR) {
        for (size_t i = 0; i < n->row_expr->n_args; i++) {
            uint32_t k;
            FL_TRY(group_key(g, n->row_expr->args[i], &k, err));
            *m |= 1ull << k;
        }
        return FL_OK;
    }
    if (n->node_case == PG_QUERY__NODE__NODE_GROUPING_SET &&
        n->grouping_set->kind == PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_SIMPLE) {
        for (size_t i = 0; i < n->grouping_set->n_content; i++) {
            uint64_t e;
            FL_TRY(element_mask(g, n->grouping_set->content[i], &e, err));
            *m |= e;
        }
        return FL_OK;
    }
    if (n->node_case == PG_QUERY__NODE__NODE_GROUPING_SET &&
        n->grouping_set->kind == PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_EMPTY)
        return FL_OK;
    uint32_t k;
    FL_TRY(group_key(g, n, &k, err));
    *m = 1ull << k;
    return FL_OK;
}

static fl_status grouping_set(group_ctx *g, const PgQuery__GroupingSet *gs, gsets *out,
                              fl_error *err)
{
    fl_arena *a = g->b->a;
    gsets r = {0};
    uint32_t n = (uint32_t)gs->n_content;
    switch (gs->kind) {
    case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_EMPTY: FL_TRY(gs_add(a, &r, 0, err)); break;
    case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_SIMPLE: {
        uint64_t m = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t e;
            FL_TRY(element_mask(g, gs->content[i], &e, err));
            m |= e;
        }
        FL_TRY(gs_add(a, &r, m, err));
        break;
    }
    case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_ROLLUP: {
        uint64_t *el = fl_arena_calloc(a, n + 1, sizeof(uint64_t));
        if (!el)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < n; i++)
            FL_TRY(element_mask(g, gs->content[i], &el[i], err));
        for (uint32_t len = n + 1; len-- > 0;) {
            uint64_t m = 0;
            for (uint32_t i = 0; i < len; i++)
                m |= el[i];
            FL_TRY(gs_add(a, &r, m, err));
        }
        break;
    }
    case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_CUBE: {
        if (n > 12)
            return fl_front_err(g->b->pc, err, FL_ELIMIT, gs->location, "54000",
                                "CUBE is limited to 12 elements");
        uint64_t el[12];
        for (uint32_t i = 0; i < n; i++)
            FL_TRY(element_mask(g, gs->content[i], &el[i], err));
        for (uint32_t sub = (1u << n); sub-- > 0;) {
            uint64_t m = 0;
            for (uint32_t i = 0; i < n; i++)
                if (sub & (1u << i))
                    m |= el[i];
            FL_TRY(gs_add(a, &r, m, err));
        }
        break;
    }
    case PG_QUERY__GROUPING_SET_KIND__GROUPING_SET_SETS:
        for (uint32_t i = 0; i < n; i++) {
            const Node *c = gs->content[i];
            if (c->node_case == PG_QUERY__NODE__NODE_GROUPING_SET) {
                gsets sub;
                FL_TRY(grouping_set(g, c->grouping_set, &sub, err));
                for (uint32_t k = 0; k < sub.n; k++)
                    FL_TRY(gs_add(a, &r, sub.m[k], err));
            } else {
                uint64_t m;
                FL_TRY(element_mask(g, c, &m, err));
                FL_TRY(gs_add(a, &r, m, err));
            }
        }
        break;
    default:
        return fl_front_err(g->b->pc, err, FL_EUNSUPPORTED, gs->location, "0A000",
                            "unsupported grouping set");
    }
    r.used = true;
    *out = r;
    return FL_OK;
}

static fl_status bind_group(fl_bctx *b, const PgQuery__SelectStmt *s, const targets *t,
                            fl_expr ***keys, uint32_t *nkeys, uint32_t *cap, gsets *sets,
                            fl_error *err)
{
    group_ctx g = {b, t, keys, nkeys, cap};
    uint64_t base = 0;
    for (uint32_t i = 0; i < *nkeys; i++)
        base |= 1ull << i; /* extras: in every set */
    gsets acc = {0};
    FL_TRY(gs_add(b->a, &acc, base, err));
    for (size_t i = 0; i < s->n_group_clause; i++) {
        const Node *n = s->group_clause[i];
        gsets one = {0};
        if (n->node_case == PG_QUERY__NODE__NODE_GROUPING_SET) {
            FL_TRY(grouping_set(&g, n->grouping_set, &one, err));
        } else {
            uint32_t k;
            FL_TRY(group_key(&g, n, &k, err));
            FL_TRY(gs_add(b->a, &one, 1ull << k, err));
        }
        bool used = acc.used || one.used;
        FL_TRY(gs_product(b->a, &acc, &one, &acc, err));
        acc.used = used;
    }
    *sets = acc;
    return FL_OK;
}

/* pre form -> over the aggregate's output (or the plain input when no agg) */
typedef struct post_ctx {
    fl_bctx *b;
    bool agg;
    fl_expr **keys; /* pre form */
    uint32_t nkeys;
    const int32_t *map; /* no agg: scope -> plan */
    uint32_t win_base;
} post_ctx;

static fl_status post(post_ctx *pc, const fl_expr *e, fl_expr **out, fl_error *err)
{
    fl_arena *a = pc->b->a;
    if (pc->agg) {
        for (uint32_t i = 0; i < pc->nkeys; i++)
            if (fl_expr_equal(pc->keys[i], e)) {
                *out = fl_expr_column(a, i, &e->type);
                if (!*out)
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
                (*out)->alias = e->alias;
                (*out)->location = e->location;
                return FL_OK;
            }
    }
    if (e->kind == FL_EXPR_COLUMN) {
        uint32_t c = e->column;
        fl_expr *n = fl_arena_alloc(a, sizeof *n);
        if (!n)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        *n = *e;
        if (c & FL_REF_WIN) {
            n->column = pc->win_base + (c & FL_REF_MASK);
        } else if (c & FL_REF_AGG) {
            n->column = pc->nkeys + (c & FL_REF_MASK);
        } else if (c & FL_REF_OUTER) {
            return fl_front_err(pc->b->pc, err, FL_EUNSUPPORTED, e->location, "0A000",
                                "outer column references outside WHERE are not supported in "
                                "subqueries");
        } else if (pc->agg) {
            const fl_scope_col *sc = &pc->b->scope.cols[c];
            return fl_front_err(pc->b->pc, err, FL_EINVAL, e->location, "42803",
                                "column \"%s%s%s\" must appear in the GROUP BY clause or be used "
                                "in an aggregate function",
                                sc->qual ? sc->qual : "", sc->qual ? "." : "",
                                sc->name ? sc->name : "?");
        } else {
            if (pc->map[c] < 0)
                return fl_errorf(err, FL_EINVAL, "internal: column %u not in plan", c);
            n->column = (uint32_t)pc->map[c];
        }
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
        FL_TRY(post(pc, e->args[i], &args[i], err));
    *out = n;
    return FL_OK;
}

static fl_status const_int(fl_bctx *b, const Node *n, const char *what, int64_t *out, fl_error *err)
{
    fl_bctx c;
    fl_bctx_init(&c, b->pc, NULL);
    fl_expr *e;
    FL_TRY(fl_bind_expr(&c, n, &e, err));
    if (e->kind == FL_EXPR_CONST && e->value.is_null) {
        *out = -1;
        return FL_OK;
    }
    if (e->kind != FL_EXPR_CONST || (e->type.id != FL_TYPE_INT32 && e->type.id != FL_TYPE_INT64))
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, e->location, "0A000",
                            "%s must be an integer constant", what);
    *out = e->type.id == FL_TYPE_INT32 ? e->value.v.i32 : e->value.v.i64;
    if (*out < 0)
        return fl_front_err(b->pc, err, FL_EINVAL, e->location, "2201W", "%s must not be negative",
                            what);
    return FL_OK;
}

static fl_status add_limit(fl_bctx *b, const PgQuery__SelectStmt *s, fl_plan **p, fl_error *err)
{
    int64_t lim = -1, off = 0;
    if (s->limit_count)
        FL_TRY(const_int(b, s->limit_count, "LIMIT", &lim, err));
    if (s->limit_offset)
        FL_TRY(const_int(b, s->limit_offset, "OFFSET", &off, err));
    if (s->limit_option == PG_QUERY__LIMIT_OPTION__LIMIT_OPTION_WITH_TIES)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, -1, "0A000",
                            "FETCH ... WITH TIES is not supported");
    if (lim < 0 && off == 0)
        return FL_OK;
    if ((*p)->kind == FL_PLAN_SORT && lim >= 0)
        (*p)->u.sort.limit = lim + off; /* top-N: only the first limit+offset rows matter */
    fl_plan *l = fl_plan_new(b->a, FL_PLAN_LIMIT, 1, (*p)->schema.nfields);
    if (!l)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    l->children[0] = *p;
    memcpy(l->schema.fields, (*p)->schema.fields, (*p)->schema.nfields * sizeof(fl_field));
    l->u.limit.limit = lim;
    l->u.limit.offset = off;
    l->est_rows = lim >= 0 && lim < (*p)->est_rows ? (double)lim : (*p)->est_rows;
    *p = l;
    return FL_OK;
}

/* A SORT key over a list column orders by __list_sort_key(list) (pgarray.c:
 * PostgreSQL's element-wise array order as bytes); other keys as they are. */
static fl_status sort_key_expr(fl_bctx *b, fl_expr **e, fl_error *err)
{
    if ((*e)->type.id != FL_TYPE_LIST)
        return FL_OK;
    fl_expr *args[1] = {*e};
    if (fl_expr_call(b->a, "__list_sort_key", args, 1, (*e)->location, e, err) != FL_OK)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, args[0]->location, "0A000",
                            "ORDER BY a list of this element type is not supported");
    return FL_OK;
}

/* ORDER BY over the output columns of `p` (set operations, VALUES) */
static fl_status order_outputs(fl_bctx *b, const PgQuery__SelectStmt *s, fl_plan **p, fl_error *err)
{
    if (!s->n_sort_clause)
        return FL_OK;
    fl_plan *srt = fl_plan_new(b->a, FL_PLAN_SORT, 1, (*p)->schema.nfields);
    fl_sort_key *keys = fl_arena_calloc(b->a, s->n_sort_clause, sizeof(fl_sort_key));
    if (!srt || !keys)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->n_sort_clause; i++) {
        const PgQuery__SortBy *sb = s->sort_clause[i]->sort_by;
        int32_t k = -1, ord;
        const char *nm;
        if (ordinal_of(sb->node, &ord)) {
            if (ord < 1 || (uint32_t)ord > (*p)->schema.nfields)
                return fl_front_err(b->pc, err, FL_EINVAL, sb->location, "42P10",
                                    "ORDER BY position %d is not in select list", ord);
            k = ord - 1;
        } else if ((nm = bare_name(sb->node))) {
            for (uint32_t j = 0; j < (*p)->schema.nfields && k < 0; j++)
                if ((*p)->schema.fields[j].name && strcmp((*p)->schema.fields[j].name, nm) == 0)
                    k = (int32_t)j;
        }
        if (k < 0)
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, sb->location, "0A000",
                                "ORDER BY on a set operation or VALUES must name an output "
                                "column");
        keys[i].expr = fl_expr_column(b->a, (uint32_t)k, &(*p)->schema.fields[k].type);
        if (!keys[i].expr)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        FL_TRY(sort_key_expr(b, &keys[i].expr, err));
        keys[i].desc = sb->sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_DESC;
        keys[i].nulls_first = sb->sortby_nulls == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_DEFAULT
                                  ? keys[i].desc
                                  : sb->sortby_nulls == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_FIRST;
    }
    srt->children[0] = *p;
    memcpy(srt->schema.fields, (*p)->schema.fields, (*p)->schema.nfields * sizeof(fl_field));
    srt->u.sort.keys = keys;
    srt->u.sort.nkeys = (uint32_t)s->n_sort_clause;
    srt->u.sort.limit = -1;
    srt->est_rows = (*p)->est_rows;
    *p = srt;
    return FL_OK;
}

typedef struct okey {
    int32_t target; /* index into targets, or -1 */
    fl_expr *e;     /* pre form when hidden */
    bool desc, nulls_first;
} okey;

static fl_status bind_order(fl_bctx *b, const PgQuery__SelectStmt *s, targets *t, okey **out,
                            fl_error *err)
{
    *out = fl_arena_calloc(b->a, s->n_sort_clause + 1, sizeof(okey));
    if (!*out)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->n_sort_clause; i++) {
        const PgQuery__SortBy *sb = s->sort_clause[i]->sort_by;
        okey *k = &(*out)[i];
        k->target = -1;
        k->desc = sb->sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_DESC;
        k->nulls_first = sb->sortby_nulls == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_DEFAULT
                             ? k->desc
                             : sb->sortby_nulls == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_FIRST;
        if (sb->sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_USING)
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, sb->location, "0A000",
                                "ORDER BY ... USING is not supported");
        int32_t ord;
        const char *nm;
        if (ordinal_of(sb->node, &ord)) {
            if (ord < 1 || (uint32_t)ord > t->n)
                return fl_front_err(b->pc, err, FL_EINVAL, sb->location, "42P10",
                                    "ORDER BY position %d is not in select list", ord);
            k->target = ord - 1;
            continue;
        }
        if ((nm = bare_name(sb->node))) {
            int found = 0;
            for (uint32_t j = 0; j < t->n; j++)
                if (t->v[j].name && strcmp(t->v[j].name, nm) == 0) {
                    if (found && !fl_expr_equal(t->v[k->target].e, t->v[j].e))
                        return fl_front_err(b->pc, err, FL_EINVAL, sb->location, "42702",
                                            "ORDER BY \"%s\" is ambiguous", nm);
                    if (!found)
                        k->target = (int32_t)j;
                    found = 1;
                }
            if (found)
                continue;
        }
        FL_TRY(fl_bind_expr(b, sb->node, &k->e, err));
        for (uint32_t j = 0; j < t->n; j++)
            if (fl_expr_equal(t->v[j].e, k->e)) {
                k->target = (int32_t)j;
                break;
            }
    }
    return FL_OK;
}

static fl_status agg_node(fl_bctx *b, fl_plan *in, const int32_t *map, fl_expr **keys,
                          uint32_t nkeys, const char **knames, fl_plan **out, fl_error *err)
{
    fl_plan *p = fl_plan_new(b->a, FL_PLAN_AGG, 1, nkeys + b->naggs);
    fl_expr **k = fl_arena_calloc(b->a, nkeys + 1, sizeof(fl_expr *));
    fl_agg_call *ac = fl_arena_calloc(b->a, b->naggs + 1, sizeof(fl_agg_call));
    if (!p || !k || !ac)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < nkeys; i++) {
        FL_TRY(fl_front_remap(b->a, keys[i], map, b->scope.ncols, &k[i], err));
        p->schema.fields[i].name = knames && knames[i] ? knames[i]
                                   : keys[i]->alias    ? keys[i]->alias
                                                       : "?column?";
        p->schema.fields[i].type = keys[i]->type;
        p->schema.fields[i].nullable = true;
    }
    for (uint32_t i = 0; i < b->naggs; i++) {
        ac[i] = b->aggs[i];
        fl_expr **args = fl_arena_calloc(b->a, ac[i].nargs + 1, sizeof(fl_expr *));
        if (!args)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t j = 0; j < ac[i].nargs; j++)
            FL_TRY(fl_front_remap(b->a, b->aggs[i].args[j], map, b->scope.ncols, &args[j], err));
        ac[i].args = args;
        if (ac[i].filter)
            FL_TRY(
                fl_front_remap(b->a, b->aggs[i].filter, map, b->scope.ncols, &ac[i].filter, err));
        if (ac[i].norder) {
            fl_expr **ob = fl_arena_calloc(b->a, ac[i].norder, sizeof(fl_expr *));
            if (!ob)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            for (uint32_t j = 0; j < ac[i].norder; j++)
                FL_TRY(
                    fl_front_remap(b->a, b->aggs[i].order_by[j], map, b->scope.ncols, &ob[j], err));
            ac[i].order_by = ob;
        }
        p->schema.fields[nkeys + i].name = ac[i].alias ? ac[i].alias : "?column?";
        p->schema.fields[nkeys + i].type = ac[i].result;
        p->schema.fields[nkeys + i].nullable = true;
    }
    p->children[0] = in;
    p->u.agg.keys = k;
    p->u.agg.nkeys = nkeys;
    p->u.agg.aggs = ac;
    p->u.agg.naggs = b->naggs;
    p->est_rows = nkeys == 0 ? 1 : (in->est_rows / 10 > 1 ? in->est_rows / 10 : 1);
    *out = p;
    return FL_OK;
}

static fl_status window_node(fl_bctx *b, post_ctx *pcx, fl_plan *in, fl_plan **out, fl_error *err)
{
    uint32_t nin = in->schema.nfields;
    fl_plan *p = fl_plan_new(b->a, FL_PLAN_WINDOW, 1, nin + b->nwins);
    fl_window_call *wc = fl_arena_calloc(b->a, b->nwins, sizeof(fl_window_call));
    if (!p || !wc)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    memcpy(p->schema.fields, in->schema.fields, nin * sizeof(fl_field));
    for (uint32_t i = 0; i < b->nwins; i++) {
        wc[i] = b->wins[i];
        fl_expr **args = fl_arena_calloc(b->a, wc[i].nargs + 1, sizeof(fl_expr *));
        fl_expr **part = fl_arena_calloc(b->a, wc[i].npartition + 1, sizeof(fl_expr *));
        fl_sort_key *ord = fl_arena_calloc(b->a, wc[i].norder + 1, sizeof(fl_sort_key));
        if (!args || !part || !ord)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t j = 0; j < wc[i].nargs; j++)
            FL_TRY(post(pcx, b->wins[i].args[j], &args[j], err));
        for (uint32_t j = 0; j < wc[i].npartition; j++)
            FL_TRY(post(pcx, b->wins[i].partition_by[j], &part[j], err));
        for (uint32_t j = 0; j < wc[i].norder; j++) {
            ord[j] = b->wins[i].order_by[j];
            FL_TRY(post(pcx, b->wins[i].order_by[j].expr, &ord[j].expr, err));
        }
        wc[i].args = args;
        wc[i].partition_by = part;
        wc[i].order_by = ord;
        p->schema.fields[nin + i].name = wc[i].alias ? wc[i].alias : "?column?";
        p->schema.fields[nin + i].type = wc[i].result;
        p->schema.fields[nin + i].nullable = true;
    }
    p->children[0] = in;
    p->u.window.calls = wc;
    p->u.window.ncalls = b->nwins;
    p->est_rows = in->est_rows;
    *out = p;
    return FL_OK;
}

fl_status fl_finish_select(fl_bctx *b, const PgQuery__SelectStmt *s, fl_expr **extras,
                           uint32_t nextras, fl_plan **out, fl_error *err)
{
    b->stmt = s;
    targets t = {0};
    b->allow_agg = b->allow_win = true;
    FL_TRY(fl_bind_select_srfs(b, s, err));
    FL_TRY(bind_targets(b, s, &t, err));
    fl_expr **gk = NULL;
    uint32_t ngk = 0, capgk = 0;
    for (uint32_t i = 0; i < nextras; i++) {
        gk = fl_front_grow(b->a, gk, &capgk, ngk, sizeof(fl_expr *));
        if (!gk)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        gk[ngk++] = extras[i];
    }
    gsets sets = {0};
    FL_TRY(bind_group(b, s, &t, &gk, &ngk, &capgk, &sets, err));
    fl_expr *having = NULL;
    if (s->having_clause) {
        b->allow_win = false;
        FL_TRY(fl_bind_bool(b, s->having_clause, &having, err));
        b->allow_win = true;
    }
    okey *ok;
    FL_TRY(bind_order(b, s, &t, &ok, err));
    bool distinct = s->n_distinct_clause > 0;
    if (distinct && s->distinct_clause[0] != NULL &&
        s->distinct_clause[0]->node_case != PG_QUERY__NODE__NODE__NOT_SET)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, -1, "0A000",
                            "SELECT DISTINCT ON is not supported");
    bool agg = b->naggs > 0 || s->n_group_clause > 0 || having;
    if (agg && b->nsrfs)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, -1, "0A000",
                            "set-returning functions in the select list of an aggregating query "
                            "are not supported");

    fl_plan *p;
    int32_t *map;
    FL_TRY(fl_build_from_where(b, &p, &map, err));
    post_ctx pcx = {b, agg, gk, ngk, map, 0};
    if (agg) {
        FL_TRY(agg_node(b, p, map, gk, ngk, NULL, &p, err));
        if (sets.used) {
            uint32_t **sv = fl_arena_calloc(b->a, sets.n, sizeof(uint32_t *));
            uint32_t *sz = fl_arena_calloc(b->a, sets.n, sizeof(uint32_t));
            if (!sv || !sz)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            for (uint32_t i = 0; i < sets.n; i++) {
                sv[i] = fl_arena_calloc(b->a, ngk + 1, sizeof(uint32_t));
                if (!sv[i])
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
                for (uint32_t k = 0; k < ngk; k++)
                    if (sets.m[i] & (1ull << k))
                        sv[i][sz[i]++] = k;
            }
            p->u.agg.nsets = sets.n;
            p->u.agg.sets = (const uint32_t *const *)sv;
            p->u.agg.set_sizes = sz;
            p->est_rows *= sets.n;
        }
        if (having) {
            fl_expr *h;
            FL_TRY(post(&pcx, having, &h, err));
            fl_plan *f = fl_plan_new(b->a, FL_PLAN_FILTER, 1, p->schema.nfields);
            if (!f)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            memcpy(f->schema.fields, p->schema.fields, p->schema.nfields * sizeof(fl_field));
            f->children[0] = p;
            f->u.filter.filter = h;
            f->est_rows = p->est_rows * 0.33 > 1 ? p->est_rows * 0.33 : 1;
            p = f;
        }
    } else if (nextras) {
        /* extras projected as-is (no aggregation) */
        pcx.nkeys = 0;
    }
    if (b->nwins) {
        pcx.win_base = p->schema.nfields;
        FL_TRY(window_node(b, &pcx, p, &p, err));
    }
    /* projection: extras, targets, hidden order keys */
    uint32_t nhidden = 0;
    for (size_t i = 0; i < s->n_sort_clause; i++)
        if (ok[i].target < 0)
            nhidden++;
    if (distinct && nhidden)
        return fl_front_err(b->pc, err, FL_EINVAL, s->sort_clause[0]->sort_by->location, "42P10",
                            "for SELECT DISTINCT, ORDER BY expressions must appear in select "
                            "list");
    uint32_t nout = nextras + t.n + nhidden;
    fl_expr **pe = fl_arena_calloc(b->a, nout + 1, sizeof(fl_expr *));
    const char **names = fl_arena_calloc(b->a, nout + 1, sizeof(char *));
    if (!pe || !names)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < nextras; i++) {
        FL_TRY(post(&pcx, extras[i], &pe[i], err));
        names[i] = fl_arena_sprintf(b->a, "_k%u", i);
    }
    for (uint32_t i = 0; i < t.n; i++) {
        FL_TRY(post(&pcx, t.v[i].e, &pe[nextras + i], err));
        names[nextras + i] = t.v[i].name;
    }
    uint32_t h = nextras + t.n;
    for (size_t i = 0; i < s->n_sort_clause; i++) {
        if (ok[i].target >= 0)
            continue;
        FL_TRY(post(&pcx, ok[i].e, &pe[h], err));
        names[h] = "?order?";
        ok[i].target = (int32_t)(h - nextras);
        h++;
    }
    p = fl_front_project(b->a, p, pe, names, nout);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (distinct) {
        fl_plan *d = fl_plan_new(b->a, FL_PLAN_DISTINCT, 1, p->schema.nfields);
        if (!d)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        memcpy(d->schema.fields, p->schema.fields, p->schema.nfields * sizeof(fl_field));
        d->children[0] = p;
        d->est_rows = p->est_rows;
        p = d;
    }
    if (s->n_sort_clause) {
        fl_plan *srt = fl_plan_new(b->a, FL_PLAN_SORT, 1, p->schema.nfields);
        fl_sort_key *keys = fl_arena_calloc(b->a, s->n_sort_clause, sizeof(fl_sort_key));
        if (!srt || !keys)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (size_t i = 0; i < s->n_sort_clause; i++) {
            uint32_t col = nextras + (uint32_t)ok[i].target;
            keys[i].expr = fl_expr_column(b->a, col, &p->schema.fields[col].type);
            if (!keys[i].expr)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            FL_TRY(sort_key_expr(b, &keys[i].expr, err));
            keys[i].desc = ok[i].desc;
            keys[i].nulls_first = ok[i].nulls_first;
        }
        memcpy(srt->schema.fields, p->schema.fields, p->schema.nfields * sizeof(fl_field));
        srt->children[0] = p;
        srt->u.sort.keys = keys;
        srt->u.sort.nkeys = (uint32_t)s->n_sort_clause;
        srt->u.sort.limit = -1;
        srt->est_rows = p->est_rows;
        p = srt;
    }
    FL_TRY(add_limit(b, s, &p, err));
    if (nhidden) {
        uint32_t nv = nextras + t.n;
        fl_expr **ve = fl_arena_calloc(b->a, nv + 1, sizeof(fl_expr *));
        if (!ve)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < nv; i++) {
            ve[i] = fl_expr_column(b->a, i, &p->schema.fields[i].type);
            if (!ve[i])
                return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
        p = fl_front_project(b->a, p, ve, names, nv);
        if (!p)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    *out = p;
    return FL_OK;
}

/* ---- VALUES, set operations, WITH ---- */

/* VALUES rows holding subqueries (`INSERT INTO t VALUES (1, EXISTS (...))`):
 * a VALUES row is bound without a FROM, where a subquery that becomes a
 * join has nothing to join, so such lists are planned as SELECT <row>
 * UNION ALL SELECT <row> ... (columns named column1...; the same types as
 * the set operation's common types) */
static fl_status values_as_selects(fl_planner_ctx *pc, const PgQuery__SelectStmt *s, fl_plan **out,
                                   fl_error *err)
{
    fl_arena *a = pc->arena;
    PgQuery__SelectStmt *cur = NULL;
    for (size_t r = 0; r < s->n_values_lists; r++) {
        const PgQuery__List *l = s->values_lists[r]->list;
        PgQuery__SelectStmt *row = fl_arena_alloc(a, sizeof *row);
        Node **tl = fl_arena_calloc(a, l->n_items + 1, sizeof *tl);
        if (!row || !tl)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        PgQuery__SelectStmt si = PG_QUERY__SELECT_STMT__INIT;
        *row = si;
        for (size_t c = 0; c < l->n_items; c++) {
            PgQuery__ResTarget *rt = fl_arena_alloc(a, sizeof *rt);
            Node *n = fl_arena_alloc(a, sizeof *n);
            if (!rt || !n)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            PgQuery__ResTarget ri = PG_QUERY__RES_TARGET__INIT;
            Node ni = PG_QUERY__NODE__INIT;
            *rt = ri;
            *n = ni;
            rt->name = fl_arena_sprintf(a, "column%zu", c + 1);
            rt->val = l->items[c];
            rt->location = -1;
            n->node_case = PG_QUERY__NODE__NODE_RES_TARGET;
            n->res_target = rt;
            tl[c] = n;
        }
        row->n_target_list = l->n_items;
        row->target_list = tl;
        row->limit_option = PG_QUERY__LIMIT_OPTION__LIMIT_OPTION_DEFAULT;
        row->op = PG_QUERY__SET_OPERATION__SETOP_NONE;
        if (!cur) {
            cur = row;
            continue;
        }
        PgQuery__SelectStmt *u = fl_arena_alloc(a, sizeof *u);
        if (!u)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        *u = si;
        u->op = PG_QUERY__SET_OPERATION__SETOP_UNION;
        u->all = true;
        u->larg = cur;
        u->rarg = row;
        u->limit_option = PG_QUERY__LIMIT_OPTION__LIMIT_OPTION_DEFAULT;
        cur = u;
    }
    FL_TRY(fl_plan_select_stmt(pc, NULL, cur, out, err));
    fl_bctx lb;
    fl_bctx_init(&lb, pc, NULL);
    FL_TRY(order_outputs(&lb, s, out, err));
    return add_limit(&lb, s, out, err);
}

static fl_status values_plan(fl_planner_ctx *pc, const PgQuery__SelectStmt *s, fl_plan **out,
                             fl_error *err)
{
    for (size_t r = 0; r < s->n_values_lists; r++)
        if (fl_front_has_sublink(s->values_lists[r]))
            return values_as_selects(pc, s, out, err);
    fl_bctx b;
    fl_bctx_init(&b, pc, NULL);
    uint32_t nrows = (uint32_t)s->n_values_lists;
    uint32_t ncols = (uint32_t)s->values_lists[0]->list->n_items;
    fl_expr ***rows = fl_arena_calloc(b.a, nrows, sizeof(fl_expr **));
    if (!rows)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t r = 0; r < nrows; r++) {
        const PgQuery__List *l = s->values_lists[r]->list;
        if (l->n_items != ncols)
            return fl_front_err(pc, err, FL_EINVAL, -1, "42601",
                                "VALUES lists must all be the same length");
        rows[r] = fl_arena_calloc(b.a, ncols, sizeof(fl_expr *));
        if (!rows[r])
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t c = 0; c < ncols; c++)
            FL_TRY(fl_bind_expr(&b, l->items[c], &rows[r][c], err));
    }
    fl_plan *p = fl_plan_new(b.a, FL_PLAN_VALUES, 0, ncols);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t c = 0; c < ncols; c++) {
        fl_type t = fl_bind_row_literal_type(b.a, rows[0][c]);
        for (uint32_t r = 1; r < nrows; r++) {
            fl_type nt, rt = fl_bind_row_literal_type(b.a, rows[r][c]);
            if (!fl_type_common_in(b.a, &t, &rt, &nt)) {
                char b1[64], b2[64];
                return fl_front_err(pc, err, FL_ETYPE, rows[r][c]->location, "42804",
                                    "VALUES types %s and %s cannot be matched",
                                    fl_sql_type_name(&t, b1, sizeof b1),
                                    fl_sql_type_name(&rows[r][c]->type, b2, sizeof b2));
            }
            t = nt;
        }
        if (t.id == FL_TYPE_STRING && t.fixed_len == -1)
            t.fixed_len = 0;
        for (uint32_t r = 0; r < nrows; r++) {
            if (fl_bind_cast_row(b.a, rows[r][c], &t, &rows[r][c], err) != FL_OK)
                return fl_front_err_at(pc, err, rows[r][c]->location);
            rows[r][c] = fl_front_fold(b.a, rows[r][c]);
        }
        p->schema.fields[c].name = fl_arena_sprintf(b.a, "column%u", c + 1);
        p->schema.fields[c].type = t;
        p->schema.fields[c].nullable = true;
    }
    p->u.values.rows = rows;
    p->u.values.nrows = nrows;
    p->est_rows = nrows;
    *out = p;
    fl_bctx lb;
    fl_bctx_init(&lb, pc, NULL);
    FL_TRY(order_outputs(&lb, s, out, err));
    return add_limit(&lb, s, out, err);
}

static fl_status cast_outputs(fl_planner_ctx *pc, fl_plan **p, const fl_type *types, fl_error *err)
{
    uint32_t n = (*p)->schema.nfields;
    bool same = true;
    for (uint32_t i = 0; i < n; i++)
        if (!fl_type_equal(&(*p)->schema.fields[i].type, &types[i]))
            same = false;
    if (same)
        return FL_OK;
    fl_expr **e = fl_arena_calloc(pc->arena, n, sizeof(fl_expr *));
    const char **names = fl_arena_calloc(pc->arena, n, sizeof(char *));
    if (!e || !names)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        fl_expr *c = fl_expr_column(pc->arena, i, &(*p)->schema.fields[i].type);
        if (!c)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        FL_TRY(fl_expr_cast(pc->arena, c, &types[i], &e[i], err));
        names[i] = (*p)->schema.fields[i].name;
    }
    *p = fl_front_project(pc->arena, *p, e, names, n);
    return *p ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
}

static fl_status setop_plan(fl_planner_ctx *pc, fl_bctx *parent, const PgQuery__SelectStmt *s,
                            fl_plan **out, fl_error *err)
{
    fl_plan *l, *r;
    FL_TRY(fl_plan_select_stmt(pc, parent, s->larg, &l, err));
    FL_TRY(fl_plan_select_stmt(pc, parent, s->rarg, &r, err));
    uint32_t n = l->schema.nfields;
    if (r->schema.nfields != n)
        return fl_front_err(pc, err, FL_EINVAL, -1, "42601",
                            "each %s query must have the same number of columns",
                            s->op == PG_QUERY__SET_OPERATION__SETOP_UNION       ? "UNION"
                            : s->op == PG_QUERY__SET_OPERATION__SETOP_INTERSECT ? "INTERSECT"
                                                                                : "EXCEPT");
    fl_type *types = fl_arena_calloc(pc->arena, n + 1, sizeof(fl_type));
    if (!types)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        if (!fl_type_common(&l->schema.fields[i].type, &r->schema.fields[i].type, &types[i])) {
            char b1[64], b2[64];
            return fl_front_err(pc, err, FL_ETYPE, -1, "42804",
                                "set operation column %u types %s and %s cannot be matched", i + 1,
                                fl_sql_type_name(&l->schema.fields[i].type, b1, sizeof b1),
                                fl_sql_type_name(&r->schema.fields[i].type, b2, sizeof b2));
        }
        if (types[i].id == FL_TYPE_STRING && types[i].fixed_len == -1)
            types[i].fixed_len = 0;
    }
    FL_TRY(cast_outputs(pc, &l, types, err));
    FL_TRY(cast_outputs(pc, &r, types, err));
    fl_plan *p = fl_plan_new(pc->arena, FL_PLAN_SETOP, 2, n);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    p->children[0] = l;
    p->children[1] = r;
    for (uint32_t i = 0; i < n; i++) {
        p->schema.fields[i] = l->schema.fields[i];
        p->schema.fields[i].type = types[i];
        p->schema.fields[i].nullable = true;
    }
    p->u.setop.type = s->op == PG_QUERY__SET_OPERATION__SETOP_UNION       ? FL_SETOP_UNION
                      : s->op == PG_QUERY__SET_OPERATION__SETOP_INTERSECT ? FL_SETOP_INTERSECT
                                                                          : FL_SETOP_EXCEPT;
    p->u.setop.all = s->all;
    p->est_rows = l->est_rows + r->est_rows;
    *out = p;
    fl_bctx lb;
    fl_bctx_init(&lb, pc, NULL);
    FL_TRY(order_outputs(&lb, s, out, err));
    return add_limit(&lb, s, out, err);
}

static fl_status plan_select_stmt(fl_planner_ctx *pc, fl_bctx *parent, const PgQuery__SelectStmt *s,
                                  fl_plan **out, fl_error *err)
{
    fl_front_state *st = fl_front_state_of(pc);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_cte *saved = st->ctes;
    if (s->with_clause) {
        for (size_t i = 0; i < s->with_clause->n_ctes; i++) {
            const PgQuery__CommonTableExpr *c = s->with_clause->ctes[i]->common_table_expr;
            fl_cte *n = fl_arena_calloc(pc->arena, 1, sizeof *n);
            if (!n)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            n->name = c->ctename;
            n->cte = c;
            n->recursive = s->with_clause->recursive && fl_cte_is_recursive(c);
            n->next = st->ctes;
            st->ctes = n;
        }
    }
    fl_status rc;
    if (s->into_clause) {
        rc = fl_front_err(pc, err, FL_EUNSUPPORTED, -1, "0A000",
                          "SELECT INTO is not supported; use CREATE TABLE AS");
    } else if (s->op != PG_QUERY__SET_OPERATION__SETOP_NONE &&
               s->op != PG_QUERY__SET_OPERATION__SET_OPERATION_UNDEFINED) {
        rc = setop_plan(pc, parent, s, out, err);
    } else if (s->n_values_lists) {
        rc = values_plan(pc, s, out, err);
    } else {
        fl_bctx *b = fl_arena_calloc(pc->arena, 1, sizeof *b);
        if (!b) {
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        } else {
            fl_bctx_init(b, pc, parent);
            rc = fl_bind_from_where(b, s, err);
            if (rc == FL_OK && b->scope.correlated)
                rc = fl_front_err(pc, err, FL_EUNSUPPORTED, -1, "0A000",
                                  "correlated subqueries in FROM are not supported");
            if (rc == FL_OK)
                rc = fl_finish_select(b, s, NULL, 0, out, err);
        }
    }
    st->ctes = saved;
    return rc;
}

/* Query blocks count as levels too (depth.h): set operations, subqueries,
 * CTEs and views recurse through here. */
fl_status fl_plan_select_stmt(fl_planner_ctx *pc, fl_bctx *parent, const PgQuery__SelectStmt *s,
                              fl_plan **out, fl_error *err)
{
    FL_TRY(fl_depth_enter(pc, (const ProtobufCMessage *)s, FL_SQL_BLOCK_WEIGHT, err));
    fl_status rc = plan_select_stmt(pc, parent, s, out, err);
    fl_depth_leave(pc, FL_SQL_BLOCK_WEIGHT);
    return rc;
}

fl_status fl_plan_select(fl_planner_ctx *pc, fl_bctx *parent, const PgQuery__Node *query,
                         fl_plan **out, fl_error *err)
{
    if (!query || query->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
        return fl_errorf(err, FL_EINVAL, "not a query");
    return fl_plan_select_stmt(pc, parent, query->select_stmt, out, err);
}
