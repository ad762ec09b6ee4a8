/*
 * bind_recursive.c - WITH RECURSIVE (PostgreSQL semantics): a CTE of a
 * recursive WITH that refers to itself must be
 *   non_recursive_term UNION [ALL] recursive_term
 * The non-recursive term is planned first (it must not refer to the CTE:
 * 42P19); its output columns (renamed by the CTE's column list) are the
 * work table's schema. The recursive term is planned with every reference
 * to the CTE reading the work table (a ROWS scan of an fl_recurse_work the
 * RECURSE node points at each iteration's new rows), its outputs cast to the
 * non-recursive term's types. op_apply.c iterates until no new rows (UNION
 * drops rows seen before) or FL_RECURSE_MAX_ITERATIONS (then 54001, where
 * PostgreSQL would loop forever). Each reference outside the CTE plans the
 * whole recursion again (CTEs are inlined, as elsewhere in floe).
 */
#include <stdio.h>
#include <string.h>

#include "sql/bind/bind.h"
#include "sql/parse/parse_tree.h"
#include "sql/plan/plan_rules.h"

#define FL_RECURSE_MAX_ITERATIONS 100000

typedef struct self_ref {
    const char *name;
    bool found;
} self_ref;

static void find_ref(const ProtobufCMessage *m, void *ud)
{
    self_ref *s = ud;
    if (m->descriptor == &pg_query__range_var__descriptor) {
        const PgQuery__RangeVar *rv = (const PgQuery__RangeVar *)m;
        if (!rv->schemaname[0] && strcmp(rv->relname, s->name) == 0)
            s->found = true;
    }
}

bool fl_cte_is_recursive(const PgQuery__CommonTableExpr *c)
{
    self_ref s = {c->ctename, false};
    fl_front_walk((const ProtobufCMessage *)c->ctequery, find_ref, &s);
    return s.found;
}

static fl_status work_scan(fl_bctx *b, fl_cte *c, fl_plan **out, fl_error *err)
{
    const fl_schema *ws = c->work_schema;
    fl_plan *p = fl_plan_new(b->a, FL_PLAN_SCAN, 0, ws->nfields);
    int32_t *cols = fl_arena_calloc(b->a, ws->nfields + 1, sizeof(int32_t));
    if (!p || !cols)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    memcpy(p->schema.fields, ws->fields, ws->nfields * sizeof(fl_field));
    for (uint32_t i = 0; i < ws->nfields; i++)
        cols[i] = (int32_t)i;
    p->u.scan.kind = FL_SCAN_ROWS;
    p->u.scan.name = c->name;
    p->u.scan.rows = &c->work->rows;
    p->u.scan.file_schema = ws;
    p->u.scan.columns = cols;
    p->u.scan.ncolumns = ws->nfields;
    p->est_rows = 100;
    *out = p;
    return FL_OK;
}

/* p with its outputs cast to types (names kept) */
static fl_status cast_to(fl_bctx *b, fl_plan **p, const fl_schema *types, fl_error *err)
{
    uint32_t n = types->nfields;
    bool same = true;
    for (uint32_t i = 0; i < n; i++)
        if (!fl_type_equal(&(*p)->schema.fields[i].type, &types->fields[i].type))
            same = false;
    if (same)
        return FL_OK;
    fl_expr **e = fl_arena_calloc(b->a, n, sizeof(fl_expr *));
    const char **names = fl_arena_calloc(b->a, n, sizeof(char *));
    if (!e || !names)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        fl_expr *col = fl_expr_column(b->a, i, &(*p)->schema.fields[i].type);
        if (!col)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (fl_expr_cast(b->a, col, &types->fields[i].type, &e[i], err) != FL_OK) {
            char b1[64], b2[64];
            return fl_front_err(b->pc, err, FL_ETYPE, -1, "42804",
                                "recursive query column %u has type %s in its non-recursive "
                                "term but type %s overall",
                                i + 1, fl_sql_type_name(&types->fields[i].type, b1, sizeof b1),
                                fl_sql_type_name(&(*p)->schema.fields[i].type, b2, sizeof b2));
        }
        names[i] = types->fields[i].name;
    }
    fl_plan *pr = fl_front_project(b->a, *p, e, names, n);
    if (!pr)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    pr->est_rows = (*p)->est_rows;
    *p = pr;
    return FL_OK;
}

fl_status fl_plan_recursive_ref(fl_bctx *b, fl_cte *c, fl_plan **out, fl_error *err)
{
    fl_planner_ctx *pc = b->pc;
    int32_t loc = c->cte->location;
    if (c->work)
        return work_scan(b, c, out, err);
    if (c->in_anchor)
        return fl_front_err(pc, err, FL_EINVAL, loc, "42P19",
                            "recursive reference to query \"%s\" must not appear within its "
                            "non-recursive term",
                            c->name);
    const PgQuery__Node *qn = c->cte->ctequery;
    const PgQuery__SelectStmt *q =
        qn && qn->node_case == PG_QUERY__NODE__NODE_SELECT_STMT ? qn->select_stmt : NULL;
    if (!q || q->op != PG_QUERY__SET_OPERATION__SETOP_UNION || !q->larg || !q->rarg)
        return fl_front_err(pc, err, FL_EINVAL, loc, "42P19",
                            "recursive query \"%s\" does not have the form non-recursive-term "
                            "UNION [ALL] recursive-term",
                            c->name);
    if (q->n_sort_clause || q->limit_count || q->limit_offset)
        return fl_front_err(pc, err, FL_EUNSUPPORTED, loc, "0A000",
                            "ORDER BY/LIMIT/OFFSET in a recursive query is not implemented");
    fl_plan *anchor = NULL;
    c->in_anchor = true;
    fl_status rc = fl_plan_select_stmt(pc, NULL, q->larg, &anchor, err);
    c->in_anchor = false;
    FL_TRY(rc);
    uint32_t n = anchor->schema.nfields;
    if (c->cte->n_aliascolnames > n)
        return fl_front_err(pc, err, FL_EINVAL, loc, "42P10",
                            "WITH query \"%s\" has %u columns available but %zu columns "
                            "specified",
                            c->name, n, c->cte->n_aliascolnames);
    fl_schema *ws = fl_arena_calloc(b->a, 1, sizeof *ws);
    fl_field *f = fl_arena_calloc(b->a, n + 1, sizeof(fl_field));
    fl_recurse_work *work = fl_arena_calloc(b->a, 1, sizeof *work);
    if (!ws || !f || !work)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    memcpy(f, anchor->schema.fields, n * sizeof(fl_field));
    for (uint32_t i = 0; i < n; i++) {
        if (i < c->cte->n_aliascolnames)
            f[i].name = fl_front_str(c->cte->aliascolnames[i]);
        if (f[i].type.id == FL_TYPE_STRING && f[i].type.fixed_len == -1)
            f[i].type.fixed_len = 0; /* unknown literal -> text */
        f[i].nullable = true;
    }
    ws->fields = f;
    ws->nfields = n;
    FL_TRY(cast_to(b, &anchor, ws, err));
    atomic_init(&work->busy, 0);
    fl_plan *step = NULL;
    c->work = work;
    c->work_schema = ws;
    rc = fl_plan_select_stmt(pc, NULL, q->rarg, &step, err);
    c->work = NULL;
    FL_TRY(rc);
    if (step->schema.nfields != n)
        return fl_front_err(pc, err, FL_EINVAL, loc, "42601",
                            "each UNION query must have the same number of columns");
    FL_TRY(cast_to(b, &step, ws, err));
    fl_plan *p = fl_plan_new(b->a, FL_PLAN_RECURSE, 2, n);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    memcpy(p->schema.fields, f, n * sizeof(fl_field));
    p->children[0] = anchor;
    p->children[1] = step;
    p->u.recurse.all = q->all;
    p->u.recurse.work = work;
    p->u.recurse.max_iterations = FL_RECURSE_MAX_ITERATIONS;
    p->est_rows = anchor->est_rows * 10;
    *out = p;
    return FL_OK;
}
