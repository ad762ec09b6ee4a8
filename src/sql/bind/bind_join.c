/*
 * bind_join.c - JOIN ... ON / USING in FROM (bind_apply.h), including
 * subqueries in ON conditions and JOIN LATERAL.
 *
 * Every FROM item is bound in a join context: FL_JCTX_TOP (only inner joins
 * above it in its block), FL_JCTX_PRESERVED (an outer join above, this item
 * on its preserved side) or FL_JCTX_NULLABLE (on the nullable side of an
 * outer join). Subqueries (EXISTS, IN, op ANY/ALL, scalar) in ON:
 *   INNER JOIN ... ON, not nullable  the conjuncts holding a subquery are
 *                                    WHERE conjuncts of the block (the same
 *                                    rows for an inner join; a filter over
 *                                    the preserved side commutes with the
 *                                    outer join above), so they decorrelate
 *                                    into SEMI/ANTI/MARK joins or APPLYs
 *                                    like any WHERE subquery;
 *   l LEFT JOIN r ON q               (also when r holds joins with such ON
 *                                    conditions) is rewritten to
 *                                    l LEFT JOIN (SELECT * FROM r WHERE s) ON q'
 *                                    where s are the conjuncts of q with a
 *                                    subquery, when that derived table does
 *                                    not refer to l (a hash join on q' stays);
 *                                    else, at the top of the block, to
 *                                    l LEFT JOIN LATERAL (SELECT * FROM r
 *                                    WHERE q) ON TRUE (an APPLY per distinct
 *                                    values of l's columns that q uses);
 *   l RIGHT JOIN r ON q, and joins   the whole join becomes a derived table
 *   with such ON conditions below    planned as its own block, where the
 *   an outer join (or aliased)       rules above apply: (SELECT l.*, r.*
 *                                    FROM r LEFT JOIN l ON q) for RIGHT
 *                                    (the sides need qualifiers: tables,
 *                                    aliased items, joins of those), the
 *                                    join itself otherwise; its columns
 *                                    keep their qualifiers.
 * Not supported (0A000): subqueries (other than uncorrelated scalar ones) in
 * the ON of a FULL JOIN; ON subqueries referring to FROM items outside the
 * join (PostgreSQL allows that only through LATERAL).
 * RIGHT/FULL JOIN LATERAL: PostgreSQL's 42P10 error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/bind/bind_apply.h"
#include "sql/parse/parse_tree.h"

typedef PgQuery__Node Node;

static void find_sublink(const ProtobufCMessage *m, void *ud)
{
    if (m->descriptor == &pg_query__sub_link__descriptor)
        *(bool *)ud = true;
}

bool fl_front_has_sublink(const PgQuery__Node *n)
{
    bool found = false;
    if (n)
        fl_front_walk((const ProtobufCMessage *)n, find_sublink, &found);
    return found;
}

static bool has_sublink(const Node *n)
{
    bool found = false;
    if (n)
        fl_front_walk((const ProtobufCMessage *)n, find_sublink, &found);
    return found;
}

/* a join below n (in the same FROM item) has a subquery in its ON */
static bool tree_has_on_sublink(const Node *n)
{
    if (!n || n->node_case != PG_QUERY__NODE__NODE_JOIN_EXPR)
        return false;
    const PgQuery__JoinExpr *j = n->join_expr;
    return has_sublink(j->quals) || tree_has_on_sublink(j->larg) || tree_has_on_sublink(j->rarg);
}

/* the top-level AND conjuncts of n (arena array) */
static fl_status conjuncts(fl_arena *a, const Node *n, const Node ***v, uint32_t *nv, uint32_t *cap,
                           fl_error *err)
{
    if (n->node_case == PG_QUERY__NODE__NODE_BOOL_EXPR &&
        n->bool_expr->boolop == PG_QUERY__BOOL_EXPR_TYPE__AND_EXPR) {
        for (size_t i = 0; i < n->bool_expr->n_args; i++)
            FL_TRY(conjuncts(a, n->bool_expr->args[i], v, nv, cap, err));
        return FL_OK;
    }
    *v = fl_front_grow(a, (void *)*v, cap, *nv, sizeof(Node *));
    if (!*v)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    (*v)[(*nv)++] = n;
    return FL_OK;
}

/* AND of conjuncts as a parse node (NULL when none) */
static Node *and_node(fl_arena *a, const Node **v, uint32_t n)
{
    if (n == 0)
        return NULL;
    if (n == 1)
        return (Node *)v[0];
    PgQuery__BoolExpr *be = fl_arena_alloc(a, sizeof *be);
    Node *nd = fl_arena_alloc(a, sizeof *nd);
    Node **args = fl_arena_calloc(a, n, sizeof *args);
    if (!be || !nd || !args)
        return NULL;
    PgQuery__BoolExpr bi = PG_QUERY__BOOL_EXPR__INIT;
    *be = bi;
    be->boolop = PG_QUERY__BOOL_EXPR_TYPE__AND_EXPR;
    be->n_args = n;
    be->args = args;
    be->location = -1;
    memcpy(args, v, n * sizeof *args);
    Node ni = PG_QUERY__NODE__INIT;
    *nd = ni;
    nd->node_case = PG_QUERY__NODE__NODE_BOOL_EXPR;
    nd->bool_expr = be;
    return nd;
}

static bool const_true(const Node *n);

static bool refs_virtual(const fl_bctx *b, const fl_expr *e)
{
    if (e->kind == FL_EXPR_COLUMN && !(e->column & ~FL_REF_MASK) && e->column < b->scope.ncols)
        return b->scope.rels[b->scope.cols[e->column].rel].kind == FL_REL_VIRTUAL;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (refs_virtual(b, e->args[i]))
            return true;
    return false;
}

static fl_status on_refs(fl_bctx *b, const fl_expr *e, uint64_t mask, fl_error *err);

/* INNER JOIN ... ON outside the nullable side of an outer join: conjuncts
 * with subqueries, and at the top of the block those over columns of an
 * apply (a LATERAL item), are WHERE conjuncts; the rest filter the join */
static fl_status inner_on(fl_bctx *b, const Node *quals, fl_jtree *t, int ctx, fl_error *err)
{
    const Node **v = NULL;
    uint32_t nv = 0, cap = 0;
    FL_TRY(conjuncts(b->a, quals, &v, &nv, &cap, err));
    for (uint32_t i = 0; i < nv; i++) {
        if (has_sublink(v[i])) {
            FL_TRY(fl_bind_conjuncts(b, v[i], &b->conj, &b->nconj, &b->capconj, true, err));
            continue;
        }
        fl_expr **one = NULL;
        uint32_t n = 0, c1 = 0;
        FL_TRY(fl_bind_conjuncts(b, v[i], &one, &n, &c1, false, err));
        for (uint32_t k = 0; k < n; k++) {
            FL_TRY(on_refs(b, one[k], t->mask, err));
            if (ctx == FL_JCTX_TOP && refs_virtual(b, one[k]))
                FL_TRY(fl_bctx_add_conj(b, one[k], err));
            else {
                t->filters =
                    fl_front_grow(b->a, t->filters, &t->capfilters, t->nfilters, sizeof(fl_expr *));
                if (!t->filters)
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
                t->filters[t->nfilters++] = one[k];
            }
        }
    }
    return FL_OK;
}

/* the qualifier the right side's columns keep after the rewrite */
static const char *item_alias(const Node *n)
{
    switch (n->node_case) {
    case PG_QUERY__NODE__NODE_RANGE_VAR: {
        const PgQuery__RangeVar *rv = n->range_var;
        return rv->alias && rv->alias->aliasname[0] ? rv->alias->aliasname : rv->relname;
    }
    case PG_QUERY__NODE__NODE_RANGE_SUBSELECT:
        return n->range_subselect->alias ? n->range_subselect->alias->aliasname : NULL;
    case PG_QUERY__NODE__NODE_RANGE_FUNCTION:
        return n->range_function->alias ? n->range_function->alias->aliasname : NULL;
    case PG_QUERY__NODE__NODE_JOIN_EXPR:
        return n->join_expr->alias && n->join_expr->alias->aliasname[0]
                   ? n->join_expr->alias->aliasname
                   : NULL;
    case PG_QUERY__NODE__NODE_RANGE_TABLE_SAMPLE:
        return n->range_table_sample->relation ? item_alias(n->range_table_sample->relation) : NULL;
    default: return NULL;
    }
}

/* a `*` (qual NULL) or `qual.*` select-list entry */
static Node *star_target(fl_arena *a, const char *qual)
{
    PgQuery__ResTarget *rt = fl_arena_alloc(a, sizeof *rt);
    PgQuery__ColumnRef *cr = fl_arena_alloc(a, sizeof *cr);
    PgQuery__AStar *as = fl_arena_alloc(a, sizeof *as);
    PgQuery__String *qs = fl_arena_alloc(a, sizeof *qs);
    Node *nodes = fl_arena_calloc(a, 4, sizeof *nodes);
    Node **fields = fl_arena_calloc(a, 2, sizeof *fields);
    if (!rt || !cr || !as || !qs || !nodes || !fields)
        return NULL;
    PgQuery__ResTarget ri = PG_QUERY__RES_TARGET__INIT;
    PgQuery__ColumnRef ci = PG_QUERY__COLUMN_REF__INIT;
    PgQuery__AStar ai = PG_QUERY__A__STAR__INIT;
    PgQuery__String si = PG_QUERY__STRING__INIT;
    Node ni = PG_QUERY__NODE__INIT;
    *rt = ri;
    *cr = ci;
    *as = ai;
    *qs = si;
    for (int i = 0; i < 4; i++)
        nodes[i] = ni;
    size_t nf = 0;
    if (qual) {
        qs->sval = (char *)qual;
        nodes[3].node_case = PG_QUERY__NODE__NODE_STRING;
        nodes[3].string = qs;
        fields[nf++] = &nodes[3];
    }
    nodes[0].node_case = PG_QUERY__NODE__NODE_A_STAR;
    nodes[0].a_star = as;
    fields[nf++] = &nodes[0];
    cr->n_fields = nf;
    cr->fields = fields;
    cr->location = -1;
    nodes[1].node_case = PG_QUERY__NODE__NODE_COLUMN_REF;
    nodes[1].column_ref = cr;
    rt->val = &nodes[1];
    rt->location = -1;
    nodes[2].node_case = PG_QUERY__NODE__NODE_RES_TARGET;
    nodes[2].res_target = rt;
    return &nodes[2];
}

/* SELECT <stars> FROM r WHERE AND(v), planned in param mode under b, where
 * stars is `*` (nquals 0) or `q1.*, q2.*` (the sides of a join, in that
 * order). *used: it refers to b's columns (a LATERAL item). *quals: the
 * qualifier of each output column (from the block's scope), or NULL. */
static fl_status derived(fl_bctx *b, const Node *r, const char *const *stars, uint32_t nstars,
                         const Node **v, uint32_t nv, fl_plan **out, const char ***quals,
                         fl_apply_mark *m, bool *used, fl_error *err)
{
    fl_arena *a = b->a;
    PgQuery__SelectStmt *st = fl_arena_alloc(a, sizeof *st);
    Node **targets = fl_arena_calloc(a, nstars + 1, sizeof *targets);
    Node **from = fl_arena_calloc(a, 1, sizeof *from);
    if (!st || !targets || !from)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    PgQuery__SelectStmt si = PG_QUERY__SELECT_STMT__INIT;
    *st = si;
    for (uint32_t i = 0; i < (nstars ? nstars : 1); i++)
        if (!(targets[i] = star_target(a, nstars ? stars[i] : NULL)))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    from[0] = (Node *)r;
    st->n_target_list = nstars ? nstars : 1;
    st->target_list = targets;
    st->n_from_clause = 1;
    st->from_clause = from;
    st->limit_option = PG_QUERY__LIMIT_OPTION__LIMIT_OPTION_DEFAULT;
    st->op = PG_QUERY__SET_OPERATION__SETOP_NONE;
    if (nv && !(st->where_clause = and_node(a, v, nv)))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    /* fl_plan_select_stmt's simple-SELECT path, keeping the block: the
     * qualifiers of its columns (an unaliased join on the right side) */
    fl_bctx *c = fl_arena_calloc(a, 1, sizeof *c);
    if (!c)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_apply_begin(b, m);
    fl_bctx_init(c, b->pc, b);
    fl_status rc = fl_bind_from_where(c, st, err);
    if (rc == FL_OK)
        rc = fl_finish_select(c, st, NULL, 0, out, err);
    fl_apply_end(b, m);
    *used = rc == FL_OK && fl_apply_used(b, m);
    FL_TRY(rc);
    uint32_t nf = (*out)->schema.nfields, k = 0;
    *quals = fl_arena_calloc(a, nf + 1, sizeof **quals);
    if (!*quals)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t s = 0; s < (nstars ? nstars : 1); s++)
        for (uint32_t i = 0; i < c->scope.ncols; i++) {
            const fl_scope_col *sc = &c->scope.cols[i];
            /* `*` leaves out the right copies of USING columns, `t.*` not */
            if (!sc->name || (!nstars && sc->using_hidden) || sc->meta_hidden ||
                (nstars && (!sc->qual || strcmp(sc->qual, stars[s]) != 0)))
                continue;
            if (k < nf)
                (*quals)[k] = sc->qual;
            k++;
        }
    if (k != nf)
        *quals = NULL;
    return FL_OK;
}

static fl_status requalify(fl_bctx *b, const PgQuery__JoinExpr *j, const fl_jtree *t)
{
    if (j->alias && j->alias->aliasname[0])
        for (uint32_t c = 0; c < b->scope.ncols; c++)
            if (t->mask & (1ull << b->scope.cols[c].rel))
                b->scope.cols[c].qual = j->alias->aliasname;
    return FL_OK;
}

/* an unaliased join on the right: its columns keep their own qualifiers */
static void set_quals(fl_bctx *b, uint32_t first, uint32_t n, const char *alias, const char **quals)
{
    if (alias || !quals)
        return;
    for (uint32_t i = 0; i < n && first + i < b->scope.ncols; i++)
        b->scope.cols[first + i].qual = quals[i];
}

/* The whole join as a derived table, planned as its own block where it is
 * at the top (so the rules above apply inside): `SELECT l.*, r.* FROM r
 * LEFT JOIN l ON q` for l RIGHT JOIN r ON q (the sides need distinct
 * qualifiers), `SELECT * FROM l <join> r ON q` otherwise; its columns keep
 * their qualifiers. For joins with subqueries in ON below an outer join and
 * for RIGHT joins. */
/* the qualifiers of n's columns in `SELECT *` order: n's alias, or for an
 * unaliased join those of its sides; false when one has none */
static bool leaf_aliases(const Node *n, const char **v, uint32_t *nv, uint32_t cap)
{
    const char *a = item_alias(n);
    if (!a && n->node_case == PG_QUERY__NODE__NODE_JOIN_EXPR)
        return leaf_aliases(n->join_expr->larg, v, nv, cap) &&
               leaf_aliases(n->join_expr->rarg, v, nv, cap);
    if (!a || *nv >= cap)
        return false;
    for (uint32_t i = 0; i < *nv; i++)
        if (strcmp(v[i], a) == 0)
            return false;
    v[(*nv)++] = a;
    return true;
}

static fl_status wrap_join(fl_bctx *b, const PgQuery__JoinExpr *j, fl_jtree **out, fl_error *err)
{
    bool swap = j->jointype == PG_QUERY__JOIN_TYPE__JOIN_RIGHT;
    const char *stars[FL_MAX_RELS];
    uint32_t nstars = 0;
    if (!leaf_aliases(j->larg, stars, &nstars, FL_MAX_RELS) ||
        !leaf_aliases(j->rarg, stars, &nstars, FL_MAX_RELS)) {
        nstars = 0;
        if (swap)
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, -1, "0A000",
                                "a subquery in the ON condition of a RIGHT JOIN needs tables or "
                                "aliased items with distinct names on both sides");
    }
    PgQuery__JoinExpr *nj = fl_arena_alloc(b->a, sizeof *nj);
    Node *jn = fl_arena_alloc(b->a, sizeof *jn);
    if (!nj || !jn)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *nj = *j;
    nj->alias = NULL;
    if (swap) {
        nj->jointype = PG_QUERY__JOIN_TYPE__JOIN_LEFT;
        nj->larg = j->rarg;
        nj->rarg = j->larg;
    }
    Node ni = PG_QUERY__NODE__INIT;
    *jn = ni;
    jn->node_case = PG_QUERY__NODE__NODE_JOIN_EXPR;
    jn->join_expr = nj;
    fl_plan *p = NULL;
    const char **quals = NULL;
    fl_apply_mark m;
    bool used = false;
    FL_TRY(derived(b, jn, stars, nstars, NULL, 0, &p, &quals, &m, &used, err));
    if (used) {
        b->nslots = m.nslots;
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, -1, "0A000",
                            "a join whose ON subqueries refer to other FROM items is not "
                            "supported here");
    }
    fl_rel rel;
    memset(&rel, 0, sizeof rel);
    rel.kind = FL_REL_PLAN;
    rel.alias = j->alias && j->alias->aliasname[0] ? j->alias->aliasname : NULL;
    rel.plan = p;
    uint32_t ri;
    FL_TRY(fl_scope_add_rel(b->a, &b->scope, &rel, &p->schema, &ri, err));
    set_quals(b, b->scope.rels[ri].first, p->schema.nfields, rel.alias, quals);
    return fl_bind_leaf(b, ri, out, err);
}

/* LEFT JOIN LATERAL (subquery) x ON <not TRUE> */
static bool lateral_on(const PgQuery__JoinExpr *j)
{
    const Node *r = j->rarg;
    return r && r->node_case == PG_QUERY__NODE__NODE_RANGE_SUBSELECT &&
           r->range_subselect->lateral && j->quals && !const_true(j->quals);
}

/* l LEFT JOIN r ON q with subqueries in q or in r's joins, or a LATERAL r
 * with a condition (see the top) */
static fl_status left_join_sublink(fl_bctx *b, const PgQuery__JoinExpr *j, fl_jtree *l, int ctx,
                                   fl_jtree **out, fl_error *err)
{
    const char *alias = item_alias(j->rarg); /* NULL: per-column qualifiers */
    if (j->n_using_clause)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, -1, "0A000",
                            "LEFT JOIN ... USING over a join with subqueries in ON is not "
                            "supported; use ON");
    const Node *r = j->rarg;
    if (r->node_case == PG_QUERY__NODE__NODE_RANGE_SUBSELECT && r->range_subselect->lateral) {
        /* inside the derived table it is an ordinary subquery: its
         * references to l are the derived table's (param mode) */
        Node *nr = fl_arena_alloc(b->a, sizeof *nr);
        PgQuery__RangeSubselect *rs = fl_arena_alloc(b->a, sizeof *rs);
        if (!nr || !rs)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        *nr = *r;
        *rs = *r->range_subselect;
        rs->lateral = false;
        nr->range_subselect = rs;
        r = nr;
    }
    const Node **v = NULL, **s = NULL, **rest = NULL;
    uint32_t nv = 0, cap = 0, ns = 0, nrest = 0;
    if (j->quals)
        FL_TRY(conjuncts(b->a, j->quals, &v, &nv, &cap, err));
    s = fl_arena_calloc(b->a, nv + 1, sizeof *s);
    rest = fl_arena_calloc(b->a, nv + 1, sizeof *rest);
    if (!s || !rest)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < nv; i++) {
        if (has_sublink(v[i]))
            s[ns++] = v[i];
        else
            rest[nrest++] = v[i];
    }
    fl_plan *p = NULL;
    const char **quals = NULL;
    fl_apply_mark m;
    bool used = false;
    FL_TRY(derived(b, r, NULL, 0, s, ns, &p, &quals, &m, &used, err));
    if (used) {
        /* q's subqueries refer to l: the whole condition goes inside */
        b->nslots = m.nslots;
        if (ctx != FL_JCTX_TOP)
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, -1, "0A000",
                                "a correlated subquery in the ON condition of a LEFT JOIN inside "
                                "another outer join is not supported");
        FL_TRY(derived(b, r, NULL, 0, v, nv, &p, &quals, &m, &used, err));
        nrest = 0;
    }
    if (used) {
        if (j->alias && j->alias->aliasname[0])
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, -1, "0A000",
                                "an alias on a LEFT JOIN with a correlated subquery in ON is not "
                                "supported");
        uint32_t first = b->scope.ncols;
        FL_TRY(fl_front_lateral(b, p, &m, alias, &p->schema, true, err));
        set_quals(b, first, p->schema.nfields, alias, quals);
        *out = l;
        return FL_OK;
    }
    fl_rel rel;
    memset(&rel, 0, sizeof rel);
    rel.kind = FL_REL_PLAN;
    rel.alias = alias;
    rel.plan = p;
    uint32_t ri;
    FL_TRY(fl_scope_add_rel(b->a, &b->scope, &rel, &p->schema, &ri, err));
    set_quals(b, b->scope.rels[ri].first, p->schema.nfields, alias, quals);
    fl_jtree *leaf, *t = fl_jtree_new(b->a, 2);
    if (!t)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    FL_TRY(fl_bind_leaf(b, ri, &leaf, err));
    t->jtype = FL_JOIN_LEFT;
    FL_TRY(fl_jtree_add(b->a, t, l, err));
    FL_TRY(fl_jtree_add(b->a, t, leaf, err));
    for (uint32_t i = 0; i < nrest; i++) {
        uint32_t before = t->non;
        FL_TRY(fl_bind_conjuncts(b, rest[i], &t->on, &t->non, &t->capon, false, err));
        for (uint32_t k = before; k < t->non; k++)
            FL_TRY(on_refs(b, t->on[k], t->mask, err));
    }
    requalify(b, j, t);
    *out = t;
    return FL_OK;
}

static fl_status using_conds(fl_bctx *b, const PgQuery__JoinExpr *j, const fl_jtree *l,
                             const fl_jtree *r, fl_jtree *t, fl_error *err)
{
    for (size_t i = 0; i < j->n_using_clause; i++) {
        const char *name = fl_front_str(j->using_clause[i]);
        int32_t li = -1, ri = -1;
        for (uint32_t c = 0; c < b->scope.ncols; c++) {
            const fl_scope_col *sc = &b->scope.cols[c];
            if (!sc->name || strcmp(sc->name, name) != 0 || sc->using_hidden)
                continue;
            uint64_t bit = 1ull << sc->rel;
            if ((l->mask & bit) && li < 0)
                li = (int32_t)c;
            else if ((r->mask & bit) && ri < 0)
                ri = (int32_t)c;
        }
        if (li < 0 || ri < 0)
            return fl_front_err(b->pc, err, FL_ENOTFOUND, -1, "42703",
                                "column \"%s\" specified in USING clause does not exist in %s "
                                "table",
                                name, li < 0 ? "left" : "right");
        /* the sides' merged columns when they are FULL JOIN ... USING results */
        fl_expr *args[2];
        FL_TRY(fl_scope_col_expr(b, (uint32_t)li, -1, &args[0], err));
        FL_TRY(fl_scope_col_expr(b, (uint32_t)ri, -1, &args[1], err));
        /* one merged column for SELECT * and unqualified names (PostgreSQL);
         * both copies stay reachable qualified. FULL JOIN: the left copy
         * stands for COALESCE(l, r) (fl_scope_col_expr), as PostgreSQL's. */
        if (j->jointype == PG_QUERY__JOIN_TYPE__JOIN_RIGHT) {
            b->scope.cols[li].using_hidden = true;
        } else {
            b->scope.cols[ri].using_hidden = true;
            if (j->jointype == PG_QUERY__JOIN_TYPE__JOIN_FULL) {
                b->scope.cols[li].using_merged = true;
                b->scope.cols[li].using_partner = (uint32_t)ri;
            }
        }
        fl_expr *eq;
        if (fl_expr_call(b->a, "=", args, 2, -1, &eq, err) != FL_OK)
            return err->code;
        fl_expr ***arr = t->kind == 2 ? &t->on : &t->filters;
        uint32_t *n = t->kind == 2 ? &t->non : &t->nfilters;
        uint32_t *cap = t->kind == 2 ? &t->capon : &t->capfilters;
        *arr = fl_front_grow(b->a, *arr, cap, *n, sizeof(fl_expr *));
        if (!*arr)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        (*arr)[(*n)++] = eq;
    }
    return FL_OK;
}

static bool const_true(const Node *n)
{
    return n && n->node_case == PG_QUERY__NODE__NODE_A_CONST &&
           n->a_const->val_case == PG_QUERY__A__CONST__VAL_BOOLVAL && n->a_const->boolval &&
           n->a_const->boolval->boolval;
}

/* X [INNER|CROSS|LEFT] JOIN LATERAL item: the item became the apply
 * b->applies[napp]; ON conditions of an inner join filter after it */
static fl_status lateral_join(fl_bctx *b, const PgQuery__JoinExpr *j, fl_jtree *l, uint32_t napp,
                              fl_jtree **out, fl_error *err)
{
    if (j->n_using_clause || j->is_natural)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, -1, "0A000",
                            "JOIN LATERAL ... USING is not supported; use ON");
    if (napp >= b->napplies)
        return fl_errorf(err, FL_EINVAL, "internal: LATERAL item without an apply");
    if (j->jointype == PG_QUERY__JOIN_TYPE__JOIN_LEFT) {
        if (j->quals && !const_true(j->quals))
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, -1, "0A000",
                                "LEFT JOIN LATERAL supports only ON TRUE; move the condition "
                                "into the subquery's WHERE");
        b->applies[napp].type = FL_JOIN_LEFT;
    } else if (j->jointype != PG_QUERY__JOIN_TYPE__JOIN_INNER) {
        /* PostgreSQL: the lateral reference is invalid (42P10) */
        const fl_apply *ap = &b->applies[napp];
        const fl_expr *ref = ap->nparams ? ap->params[0] : NULL;
        const char *q = "?";
        int32_t loc = -1;
        if (ref && ref->kind == FL_EXPR_COLUMN && ref->column < b->scope.ncols &&
            b->scope.cols[ref->column].qual)
            q = b->scope.cols[ref->column].qual;
        return fl_front_err(b->pc, err, FL_EINVAL, loc, "42P10",
                            "invalid reference to FROM-clause entry for table \"%s\"", q);
    } else if (j->quals) {
        FL_TRY(fl_bind_conjuncts(b, j->quals, &b->conj, &b->nconj, &b->capconj, false, err));
    }
    if (j->alias && j->alias->aliasname[0])
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, -1, "0A000",
                            "an alias on a join with a LATERAL item is not supported");
    *out = l;
    return FL_OK;
}

/* JOIN ... ON may use only the join's own inputs (PostgreSQL 42P01): in
 * FROM a, b JOIN c ON a.x = c.x the comma binds looser than JOIN */
static fl_status on_refs(fl_bctx *b, const fl_expr *e, uint64_t mask, fl_error *err)
{
    if (e->kind == FL_EXPR_COLUMN && !(e->column & (FL_REF_OUTER | FL_REF_AGG | FL_REF_WIN)) &&
        e->column < b->scope.ncols) {
        const fl_scope_col *c = &b->scope.cols[e->column];
        if (c->rel < 64 && !(mask & (1ull << c->rel)) &&
            b->scope.rels[c->rel].kind != FL_REL_VIRTUAL)
            return fl_front_err(b->pc, err, FL_EINVAL, e->location, "42P01",
                                "invalid reference to FROM-clause entry for table \"%s\"",
                                c->qual ? c->qual : "?");
        return FL_OK;
    }
    for (uint32_t i = 0; i < e->nargs; i++)
        FL_TRY(on_refs(b, e->args[i], mask, err));
    return FL_OK;
}

fl_status fl_bind_join(fl_bctx *b, const PgQuery__JoinExpr *j, int ctx, fl_jtree **out,
                       fl_error *err)
{
    if (j->is_natural)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, -1, "0A000",
                            "NATURAL joins are not supported; use USING or ON");
    int lctx = ctx, rctx = ctx;
    if (j->jointype == PG_QUERY__JOIN_TYPE__JOIN_LEFT) {
        lctx = ctx == FL_JCTX_TOP ? FL_JCTX_PRESERVED : ctx;
        rctx = FL_JCTX_NULLABLE;
    } else if (j->jointype == PG_QUERY__JOIN_TYPE__JOIN_RIGHT) {
        lctx = FL_JCTX_NULLABLE;
        rctx = ctx == FL_JCTX_TOP ? FL_JCTX_PRESERVED : ctx;
    } else if (j->jointype == PG_QUERY__JOIN_TYPE__JOIN_FULL) {
        lctx = rctx = FL_JCTX_NULLABLE;
    }
    bool on_sub = has_sublink(j->quals);
    if ((j->jointype == PG_QUERY__JOIN_TYPE__JOIN_RIGHT &&
         (on_sub || tree_has_on_sublink(j->larg))) ||
        (j->jointype == PG_QUERY__JOIN_TYPE__JOIN_LEFT &&
         (ctx != FL_JCTX_TOP || (j->alias && j->alias->aliasname[0])) &&
         (on_sub || tree_has_on_sublink(j->rarg) || lateral_on(j))) ||
        (j->jointype == PG_QUERY__JOIN_TYPE__JOIN_INNER && ctx == FL_JCTX_NULLABLE && on_sub))
        return wrap_join(b, j, out, err);
    fl_jtree *l, *r;
    FL_TRY(fl_bind_from_item(b, j->larg, lctx, &l, err));
    if (j->jointype == PG_QUERY__JOIN_TYPE__JOIN_LEFT && l &&
        (on_sub || tree_has_on_sublink(j->rarg) || lateral_on(j)))
        return left_join_sublink(b, j, l, ctx, out, err);
    uint32_t napp = b->napplies;
    FL_TRY(fl_bind_from_item(b, j->rarg, rctx, &r, err));
    if (!l)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, -1, "0A000",
                            "a correlated (LATERAL) item on the left of JOIN is not supported");
    if (!r)
        return lateral_join(b, j, l, napp, out, err);
    fl_jtree *t;
    switch (j->jointype) {
    case PG_QUERY__JOIN_TYPE__JOIN_INNER: t = fl_jtree_new(b->a, 1); break;
    case PG_QUERY__JOIN_TYPE__JOIN_LEFT:
    case PG_QUERY__JOIN_TYPE__JOIN_RIGHT:
    case PG_QUERY__JOIN_TYPE__JOIN_FULL:
        t = fl_jtree_new(b->a, 2);
        if (t)
            t->jtype = j->jointype == PG_QUERY__JOIN_TYPE__JOIN_LEFT    ? FL_JOIN_LEFT
                       : j->jointype == PG_QUERY__JOIN_TYPE__JOIN_RIGHT ? FL_JOIN_RIGHT
                                                                        : FL_JOIN_FULL;
        break;
    default: return fl_front_err(b->pc, err, FL_EUNSUPPORTED, -1, "0A000", "unsupported join type");
    }
    if (!t)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    FL_TRY(fl_jtree_add(b->a, t, l, err));
    FL_TRY(fl_jtree_add(b->a, t, r, err));
    if (j->n_using_clause)
        FL_TRY(using_conds(b, j, l, r, t, err));
    if (j->quals && t->kind == 1 && ctx != FL_JCTX_NULLABLE) {
        FL_TRY(inner_on(b, j->quals, t, ctx, err));
    } else if (j->quals) {
        uint32_t before = t->kind == 2 ? t->non : t->nfilters;
        if (t->kind == 2)
            FL_TRY(fl_bind_conjuncts(b, j->quals, &t->on, &t->non, &t->capon, false, err));
        else
            FL_TRY(fl_bind_conjuncts(b, j->quals, &t->filters, &t->nfilters, &t->capfilters, false,
                                     err));
        fl_expr **v = t->kind == 2 ? t->on : t->filters;
        uint32_t n = t->kind == 2 ? t->non : t->nfilters;
        for (uint32_t i = before; i < n; i++)
            FL_TRY(on_refs(b, v[i], t->mask, err));
    }
    if (j->alias && j->alias->aliasname[0]) {
        /* a join alias requalifies every column below it */
        for (uint32_t c = 0; c < b->scope.ncols; c++)
            if (t->mask & (1ull << b->scope.cols[c].rel))
                b->scope.cols[c].qual = j->alias->aliasname;
    }
    *out = t;
    return FL_OK;
}
