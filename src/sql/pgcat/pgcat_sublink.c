/*
 * pgcat_sublink.c - ARRAY(SELECT x FROM ...): the subquery's rows as one
 * array value (PostgreSQL text form, pgcat.h). Rewritten to a scalar
 * subquery over an aggregate, which the binder decorrelates like any other:
 *
 * When a sublink cannot be bound (FL_EUNSUPPORTED) but its value is known
 * without running it, fl_pgcat_sublink_fallback binds that value: the
 * enclosing block has no rows (every relation an empty catalog relation, or
 * one under inner joins only), or the subquery's FROM inner-joins a catalog
 * relation floe never has rows in (pg_sequence, pg_index...) and it has no
 * aggregate: NULL for a scalar subquery, '{}' for ARRAY, false for EXISTS
 * and ANY, true for ALL.
 *
 *   ARRAY(SELECT x FROM ... [ORDER BY k])
 *     -> '{' || coalesce((SELECT string_agg(__pg_array_elem(x), ',' ORDER BY k)
 *                         FROM ...), '') || '}'
 *
 * __pg_array_elem quotes an element as PostgreSQL's array output does
 * (NULL -> NULL, "..." when it contains separators, quotes, spaces or is
 * empty). ORDER BY positions refer to the select list and are replaced by
 * the expression. The subquery must have one column and no GROUP BY,
 * DISTINCT, LIMIT or set operation.
 */
#include <string.h>

#include "sql/parse/parse_tree.h"
#include "sql/pgcat/pgcat.h"

static PgQuery__Node *str_node(fl_arena *a, const char *s)
{
    PgQuery__Node *n = fl_arena_calloc(a, 1, sizeof *n);
    PgQuery__String *v = fl_arena_calloc(a, 1, sizeof *v);
    if (!n || !v)
        return NULL;
    PgQuery__String init = PG_QUERY__STRING__INIT;
    *v = init;
    v->sval = (char *)s;
    PgQuery__Node ni = PG_QUERY__NODE__INIT;
    *n = ni;
    n->node_case = PG_QUERY__NODE__NODE_STRING;
    n->string = v;
    return n;
}

static PgQuery__Node *call_node(fl_arena *a, const char *fn, PgQuery__Node **args, size_t nargs,
                                int32_t loc)
{
    PgQuery__Node *n = fl_arena_calloc(a, 1, sizeof *n);
    PgQuery__FuncCall *f = fl_arena_calloc(a, 1, sizeof *f);
    PgQuery__Node **name = fl_arena_calloc(a, 1, sizeof *name);
    if (!n || !f || !name)
        return NULL;
    PgQuery__FuncCall fi = PG_QUERY__FUNC_CALL__INIT;
    *f = fi;
    name[0] = str_node(a, fn);
    if (!name[0])
        return NULL;
    f->n_funcname = 1;
    f->funcname = name;
    f->n_args = nargs;
    f->args = args;
    f->location = loc;
    PgQuery__Node ni = PG_QUERY__NODE__INIT;
    *n = ni;
    n->node_case = PG_QUERY__NODE__NODE_FUNC_CALL;
    n->func_call = f;
    return n;
}

static PgQuery__Node *str_const(fl_arena *a, const char *s, int32_t loc)
{
    PgQuery__Node *n = fl_arena_calloc(a, 1, sizeof *n);
    PgQuery__AConst *c = fl_arena_calloc(a, 1, sizeof *c);
    PgQuery__String *v = fl_arena_calloc(a, 1, sizeof *v);
    if (!n || !c || !v)
        return NULL;
    PgQuery__AConst ci = PG_QUERY__A__CONST__INIT;
    *c = ci;
    PgQuery__String si = PG_QUERY__STRING__INIT;
    *v = si;
    v->sval = (char *)s;
    c->val_case = PG_QUERY__A__CONST__VAL_SVAL;
    c->sval = v;
    c->location = loc;
    PgQuery__Node ni = PG_QUERY__NODE__INIT;
    *n = ni;
    n->node_case = PG_QUERY__NODE__NODE_A_CONST;
    n->a_const = c;
    return n;
}

fl_status fl_pgcat_bind_array_sublink(fl_bctx *b, const PgQuery__SubLink *sl, fl_expr **out,
                                      fl_error *err)
{
    fl_arena *a = b->a;
    int32_t loc = sl->location;
    const PgQuery__Node *sq = sl->subselect;
    if (!sq || sq->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, loc, "0A000",
                            "ARRAY(...) needs a SELECT");
    const PgQuery__SelectStmt *st = sq->select_stmt;
    if (st->op != PG_QUERY__SET_OPERATION__SETOP_NONE || st->n_group_clause ||
        st->n_distinct_clause || st->limit_count || st->limit_offset || st->n_values_lists)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, loc, "0A000",
                            "ARRAY(subquery) with GROUP BY, DISTINCT, LIMIT, VALUES or set "
                            "operations is not supported");
    if (st->n_target_list != 1 || st->target_list[0]->node_case != PG_QUERY__NODE__NODE_RES_TARGET)
        return fl_front_err(b->pc, err, FL_EINVAL, loc, "42601",
                            "subquery must return only one column");
    PgQuery__Node *x = st->target_list[0]->res_target->val;
    /* string_agg(__pg_array_elem(x), ',' ORDER BY ...) */
    PgQuery__Node **ea = fl_arena_calloc(a, 1, sizeof *ea);
    PgQuery__Node **sa = fl_arena_calloc(a, 2, sizeof *sa);
    if (!ea || !sa)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    ea[0] = x;
    sa[0] = call_node(a, "__pg_array_elem", ea, 1, loc);
    sa[1] = str_const(a, ",", loc);
    PgQuery__Node *agg = call_node(a, "string_agg", sa, 2, loc);
    if (!sa[0] || !sa[1] || !agg)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (st->n_sort_clause) {
        PgQuery__Node **keys = fl_arena_calloc(a, st->n_sort_clause, sizeof *keys);
        if (!keys)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (size_t i = 0; i < st->n_sort_clause; i++) {
            const PgQuery__Node *k = st->sort_clause[i];
            keys[i] = (PgQuery__Node *)k;
            if (k->node_case != PG_QUERY__NODE__NODE_SORT_BY || !k->sort_by->node)
                continue;
            const PgQuery__Node *kn = k->sort_by->node;
            if (kn->node_case == PG_QUERY__NODE__NODE_A_CONST &&
                kn->a_const->val_case == PG_QUERY__A__CONST__VAL_IVAL) {
                if (kn->a_const->ival->ival != 1)
                    return fl_front_err(b->pc, err, FL_EINVAL, kn->a_const->location, "42P10",
                                        "ORDER BY position %d is not in select list",
                                        kn->a_const->ival->ival);
                PgQuery__Node *kc = fl_arena_alloc(a, sizeof *kc);
                PgQuery__SortBy *sb = fl_arena_alloc(a, sizeof *sb);
                if (!kc || !sb)
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
                *sb = *k->sort_by;
                sb->node = x;
                *kc = *k;
                kc->sort_by = sb;
                keys[i] = kc;
            }
        }
        agg->func_call->n_agg_order = st->n_sort_clause;
        agg->func_call->agg_order = keys;
    }
    PgQuery__ResTarget *rt = fl_arena_alloc(a, sizeof *rt);
    PgQuery__Node *rtn = fl_arena_alloc(a, sizeof *rtn);
    PgQuery__Node **tl = fl_arena_alloc(a, sizeof *tl);
    PgQuery__SelectStmt *ns = fl_arena_alloc(a, sizeof *ns);
    PgQuery__Node *nsn = fl_arena_alloc(a, sizeof *nsn);
    PgQuery__SubLink *nl = fl_arena_alloc(a, sizeof *nl);
    PgQuery__Node *nln = fl_arena_alloc(a, sizeof *nln);
    if (!rt || !rtn || !tl || !ns || !nsn || !nl || !nln)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *rt = *st->target_list[0]->res_target;
    rt->val = agg;
    *rtn = *st->target_list[0];
    rtn->res_target = rt;
    tl[0] = rtn;
    *ns = *st;
    ns->target_list = tl;
    ns->n_sort_clause = 0;
    ns->sort_clause = NULL;
    *nsn = *sq;
    nsn->select_stmt = ns;
    *nl = *sl;
    nl->sub_link_type = PG_QUERY__SUB_LINK_TYPE__EXPR_SUBLINK;
    nl->subselect = nsn;
    PgQuery__Node li = PG_QUERY__NODE__INIT;
    *nln = li;
    nln->node_case = PG_QUERY__NODE__NODE_SUB_LINK;
    nln->sub_link = nl;
    fl_expr *sub;
    FL_TRY(fl_bind_expr(b, nln, &sub, err));
    fl_expr *args[1] = {sub};
    fl_expr *e;
    if (fl_expr_call(a, "__pg_array_braces", args, 1, loc, &e, err) != FL_OK)
        return fl_front_err_at(b->pc, err, loc);
    e->type.precision = FL_PG_ARRAY_MARK;
    e->type.scale = FL_PG_OID_TEXT;
    *out = e;
    return FL_OK;
}

/* True when every relation of the block is a catalog relation with no rows:
 * then the block has no rows under any join and its select list is never
 * evaluated. */
static bool has_outer_join(const fl_jtree *t)
{
    if (!t)
        return false;
    if (t->kind == 2)
        return true;
    for (uint32_t i = 0; i < t->nkids; i++)
        if (has_outer_join(t->kids[i]))
            return true;
    return false;
}

static bool rel_is_empty(const fl_rel *r)
{
    return r->kind == FL_REL_PLAN && r->plan && r->plan->kind == FL_PLAN_SCAN &&
           r->plan->u.scan.kind == FL_SCAN_ROWS && r->plan->u.scan.rows &&
           r->plan->u.scan.rows->nbatches == 0;
}

static bool block_is_empty(const fl_bctx *b)
{
    /* inner joins only: one empty relation empties the block */
    if (!has_outer_join(b->root))
        for (uint32_t i = 0; i < b->scope.nrels; i++)
            if (rel_is_empty(&b->scope.rels[i]))
                return true;
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->scope.nrels; i++) {
        const fl_rel *r = &b->scope.rels[i];
        if (r->kind == FL_REL_VIRTUAL)
            continue;
        if (r->kind != FL_REL_PLAN || !r->plan || r->plan->kind != FL_PLAN_SCAN ||
            r->plan->u.scan.kind != FL_SCAN_ROWS || !r->plan->u.scan.rows ||
            r->plan->u.scan.rows->nbatches != 0)
            return false;
        n++;
    }
    return n > 0;
}

/* A relation floe never has rows in (no fill in pgcat_fill_*.c). */
static bool always_empty(const PgQuery__RangeVar *rv)
{
    static const char *const filled[] = {
        "pg_namespace", "pg_class", "pg_attribute", "pg_type", "pg_proc", "pg_roles",
        "pg_user", "pg_authid", "pg_shadow", "pg_database", "pg_am", "pg_tablespace",
        "pg_settings", "pg_tables", "pg_views", "pg_stat_activity", "pg_operator", "schemata", "tables",
        "views", "columns", "routines", "character_sets", "information_schema_catalog_name",
        "enabled_roles", "applicable_roles"};
    const char *sch = rv->schemaname && rv->schemaname[0] ? rv->schemaname : NULL;
    if (sch && strcmp(sch, "pg_catalog") != 0 && strcmp(sch, "information_schema") != 0)
        return false;
    if (!fl_pgcat_def_find(sch ? sch : "pg_catalog", rv->relname))
        return false;
    for (size_t i = 0; i < sizeof filled / sizeof filled[0]; i++)
        if (strcmp(filled[i], rv->relname) == 0)
            return false;
    return true;
}

/* A FROM item that surely has no rows: an always-empty catalog relation, or
 * an inner join / cross product with one. */
static bool from_item_empty(const PgQuery__Node *n)
{
    if (n->node_case == PG_QUERY__NODE__NODE_RANGE_VAR)
        return always_empty(n->range_var);
    if (n->node_case == PG_QUERY__NODE__NODE_JOIN_EXPR &&
        n->join_expr->jointype == PG_QUERY__JOIN_TYPE__JOIN_INNER)
        return from_item_empty(n->join_expr->larg) || from_item_empty(n->join_expr->rarg);
    return false;
}

/* A plain SELECT without aggregates whose FROM surely has no rows. */
static bool subquery_empty(const PgQuery__Node *q)
{
    if (!q || q->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
        return false;
    const PgQuery__SelectStmt *st = q->select_stmt;
    if (st->op != PG_QUERY__SET_OPERATION__SETOP_NONE || st->n_group_clause || st->having_clause)
        return false;
    for (size_t i = 0; i < st->n_target_list; i++) {
        const PgQuery__Node *t = st->target_list[i];
        const PgQuery__Node *v = t->node_case == PG_QUERY__NODE__NODE_RES_TARGET
                                     ? t->res_target->val
                                     : NULL;
        if (v && v->node_case == PG_QUERY__NODE__NODE_FUNC_CALL) {
            const PgQuery__FuncCall *f = v->func_call;
            const char *nm = f->n_funcname ? fl_front_str(f->funcname[f->n_funcname - 1]) : NULL;
            if (f->agg_star || (nm && fl_func_exists(nm, FL_FUNC_AGGREGATE)))
                return false;
        }
    }
    for (size_t i = 0; i < st->n_from_clause; i++)
        if (from_item_empty(st->from_clause[i]))
            return true;
    return false;
}

/* The sublink failed on "column q.c does not exist" where q is a relation of
 * the enclosing block: a correlated reference from a place floe cannot
 * correlate (a function in the subquery's FROM), not a misspelling. */
static bool lateral_ref(const fl_bctx *b, const fl_error *err)
{
    const char *p = strncmp(err->msg, "column ", 7) == 0 ? err->msg : strstr(err->msg, ": column ");
    if (!p || !strstr(p, " does not exist"))
        return false;
    p = strstr(p, "column ") + 7; /* after "line L, column C: " */
    const char *dot = strchr(p, '.');
    const char *sp = strchr(p, ' ');
    if (!dot || (sp && sp < dot))
        return false;
    size_t ql = (size_t)(dot - p);
    for (uint32_t i = 0; i < b->scope.nrels; i++) {
        const char *al = b->scope.rels[i].alias;
        if (al && strlen(al) == ql && strncmp(al, p, ql) == 0)
            return true;
    }
    return false;
}

fl_status fl_pgcat_sublink_fallback(fl_bctx *b, const PgQuery__SubLink *sl, fl_status rc,
                                    fl_expr **out, fl_error *err)
{
    if (rc != FL_EUNSUPPORTED && !(rc == FL_ENOTFOUND && lateral_ref(b, err)))
        return rc;
    bool outer_empty = block_is_empty(b);
    bool inner_empty = !outer_empty && subquery_empty(sl->subselect);
    if (!outer_empty && !inner_empty)
        return rc;
    fl_value v;
    memset(&v, 0, sizeof v);
    v.is_null = true;
    switch (sl->sub_link_type) {
    case PG_QUERY__SUB_LINK_TYPE__ARRAY_SUBLINK:
        v.type.id = FL_TYPE_STRING;
        v.type.precision = FL_PG_ARRAY_MARK;
        v.type.scale = FL_PG_OID_TEXT;
        break;
    case PG_QUERY__SUB_LINK_TYPE__EXPR_SUBLINK:
        v.type.id = FL_TYPE_STRING;
        v.type.fixed_len = -1; /* unknown: takes the type its context asks for */
        break;
    case PG_QUERY__SUB_LINK_TYPE__EXISTS_SUBLINK:
    case PG_QUERY__SUB_LINK_TYPE__ANY_SUBLINK:
    case PG_QUERY__SUB_LINK_TYPE__ALL_SUBLINK: v.type.id = FL_TYPE_BOOLEAN; break;
    default: return rc;
    }
    if (inner_empty) { /* the subquery's value over no rows */
        if (sl->sub_link_type == PG_QUERY__SUB_LINK_TYPE__ARRAY_SUBLINK) {
            v.is_null = false;
            v.v.bytes.ptr = (const uint8_t *)"{}";
            v.v.bytes.len = 2;
        } else if (v.type.id == FL_TYPE_BOOLEAN) {
            v.is_null = false;
            v.v.b = sl->sub_link_type == PG_QUERY__SUB_LINK_TYPE__ALL_SUBLINK;
        }
    }
    /* the subquery is never run: the enclosing block has no rows */
    memset(err, 0, sizeof *err);
    b->pc->error_position = 0;
    *out = fl_expr_const(b->a, &v);
    if (!*out)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    (*out)->location = sl->location;
    return FL_OK;
}
