/*
 * stmt_params.c - parameter types of INSERT/UPDATE/DELETE/MERGE for
 * fl_sql_prepare (stmt.h: fl_stmt_infer_params).
 *
 * As PostgreSQL does, a parameter takes the type of what it is assigned to
 * or compared with:
 *   - a bare $n assigned to a column (INSERT ... VALUES ($1, ...) and
 *     INSERT ... SELECT $1, ... by the column list or position; UPDATE SET
 *     c = $n; MERGE's WHEN ... UPDATE SET c = $n / INSERT (cols) VALUES ($n))
 *     gets the column's type first;
 *   - then the statement's row source is planned (not run) with those types
 *     preset, and the planner's own inference types the rest from their
 *     context (WHERE id = $2, SET x = x - $1, MERGE's ON condition).
 * Nothing is loaded beyond the table metadata and nothing is written. A
 * parameter no context types stays unknown (*all_typed false); the caller
 * then treats it as text. Inference failures (a missing table...) are not
 * errors here: the statement reports them when it runs.
 */
#include <string.h>

#include "sql/stmt/stmt_int.h"

typedef struct infer_ctx {
    fl_planner_ctx *pc;
    fl_schema cols; /* the target table's columns */
} infer_ctx;

static void preset(infer_ctx *x, const PgQuery__Node *val, int32_t col)
{
    if (!val || val->node_case != PG_QUERY__NODE__NODE_PARAM_REF || col < 0 ||
        (uint32_t)col >= x->cols.nfields)
        return;
    int32_t k = val->param_ref->number;
    fl_planner_ctx *pc = x->pc;
    if (k < 1 || (uint32_t)k > pc->nparams)
        return;
    fl_type *t = &pc->param_types[k - 1];
    if (t->id == FL_TYPE_STRING && t->fixed_len == -1) /* still unknown */
        *t = x->cols.fields[col].type;
}

static fl_status target_table(infer_ctx *x, const PgQuery__RangeVar *rv, fl_planner_table *pt,
                              fl_error *err)
{
    FL_TRY(fl_planner_resolve_table(x->pc, rv, FL_PRIV_WRITE, pt, err));
    const fl_ice_schema *s = fl_ice_metadata_current_schema(pt->meta);
    if (!s)
        return fl_errorf(err, FL_ECORRUPT, "table %s has no current schema", pt->name);
    return fl_ice_schema_to_fl(s, x->pc->arena, &x->cols, err);
}

/* Column index of the i-th entry of an INSERT column list (or position i). */
static int32_t insert_column(infer_ctx *x, PgQuery__Node *const *cols, size_t ncols, size_t i)
{
    if (!ncols)
        return (int32_t)i;
    if (i >= ncols || cols[i]->node_case != PG_QUERY__NODE__NODE_RES_TARGET)
        return -1;
    return stmt_find_column(&x->cols, cols[i]->res_target->name);
}

static void preset_row(infer_ctx *x, PgQuery__Node *const *cols, size_t ncols,
                       PgQuery__Node *const *vals, size_t nvals)
{
    for (size_t i = 0; i < nvals; i++) {
        const PgQuery__Node *v = vals[i];
        if (v->node_case == PG_QUERY__NODE__NODE_RES_TARGET)
            v = v->res_target->val;
        preset(x, v, insert_column(x, cols, ncols, i));
    }
}

static fl_status infer_insert(infer_ctx *x, const PgQuery__InsertStmt *s, fl_error *err)
{
    fl_planner_table pt;
    FL_TRY(target_table(x, s->relation, &pt, err));
    const PgQuery__Node *src = s->select_stmt;
    if (!src || src->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
        return FL_OK;
    const PgQuery__SelectStmt *sel = src->select_stmt;
    for (size_t r = 0; r < sel->n_values_lists; r++) {
        const PgQuery__Node *l = sel->values_lists[r];
        if (l->node_case == PG_QUERY__NODE__NODE_LIST)
            preset_row(x, s->cols, s->n_cols, l->list->items, l->list->n_items);
    }
    if (!sel->n_values_lists)
        preset_row(x, s->cols, s->n_cols, sel->target_list, sel->n_target_list);
    fl_plan *plan = NULL;
    return fl_planner_plan_query(x->pc, src, &plan, err);
}

/* UPDATE/MERGE SET lists: c = $n takes c's type; the values go to *vals. */
static uint32_t preset_set(infer_ctx *x, PgQuery__Node *const *set, size_t n,
                           PgQuery__Node **vals)
{
    uint32_t nv = 0;
    for (size_t i = 0; i < n; i++) {
        if (set[i]->node_case != PG_QUERY__NODE__NODE_RES_TARGET)
            continue;
        const PgQuery__ResTarget *rt = set[i]->res_target;
        if (!rt->val || rt->val->node_case == PG_QUERY__NODE__NODE_MULTI_ASSIGN_REF)
            continue;
        preset(x, rt->val, stmt_find_column(&x->cols, rt->name));
        vals[nv++] = rt->val;
    }
    return nv;
}

static const char *alias_of(const PgQuery__RangeVar *rv)
{
    return rv->alias ? rv->alias->aliasname : NULL;
}

static fl_status infer_update(infer_ctx *x, const PgQuery__UpdateStmt *s, fl_error *err)
{
    fl_planner_table pt;
    FL_TRY(target_table(x, s->relation, &pt, err));
    PgQuery__Node **vals = fl_arena_calloc(x->pc->arena, s->n_target_list + 1, sizeof *vals);
    if (!vals)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t nv = preset_set(x, s->target_list, s->n_target_list, vals);
    if (!nv && !(vals[nv++] = stmt_mk_int(x->pc->arena, 1)))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_plan *plan = NULL;
    return fl_planner_plan_dml_source(x->pc, &pt, alias_of(s->relation), s->from_clause,
                                      (uint32_t)s->n_from_clause, s->where_clause, vals, nv, false,
                                      &plan, err);
}

static fl_status infer_delete(infer_ctx *x, const PgQuery__DeleteStmt *s, fl_error *err)
{
    fl_planner_table pt;
    FL_TRY(target_table(x, s->relation, &pt, err));
    PgQuery__Node *one[1] = {stmt_mk_int(x->pc->arena, 1)};
    if (!one[0])
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_plan *plan = NULL;
    return fl_planner_plan_dml_source(x->pc, &pt, alias_of(s->relation), s->using_clause,
                                      (uint32_t)s->n_using_clause, s->where_clause, one, 1, false,
                                      &plan, err);
}

static fl_status infer_merge(infer_ctx *x, const PgQuery__MergeStmt *s, fl_error *err)
{
    fl_planner_table pt;
    FL_TRY(target_table(x, s->relation, &pt, err));
    for (size_t i = 0; i < s->n_merge_when_clauses; i++) {
        const PgQuery__Node *n = s->merge_when_clauses[i];
        if (n->node_case != PG_QUERY__NODE__NODE_MERGE_WHEN_CLAUSE)
            continue;
        const PgQuery__MergeWhenClause *w = n->merge_when_clause;
        if (w->command_type == PG_QUERY__CMD_TYPE__CMD_UPDATE) {
            PgQuery__Node **vals = fl_arena_calloc(x->pc->arena, w->n_target_list + 1,
                                                   sizeof *vals);
            if (!vals)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            preset_set(x, w->target_list, w->n_target_list, vals);
        } else if (w->command_type == PG_QUERY__CMD_TYPE__CMD_INSERT) {
            preset_row(x, w->target_list, w->n_target_list, w->values, w->n_values);
        }
    }
    PgQuery__Node *one[1] = {stmt_mk_int(x->pc->arena, 1)};
    PgQuery__Node *from[1] = {s->source_relation};
    if (!one[0])
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_plan *plan = NULL;
    return fl_planner_plan_dml_source(x->pc, &pt, alias_of(s->relation), from, 1,
                                      s->join_condition, one, 1, false, &plan, err);
}

bool fl_stmt_infer_params(fl_planner_ctx *pc, const fl_sql_parsed *p)
{
    const PgQuery__Node *n = p ? p->stmt : NULL;
    if (!n || !pc->nparams || !pc->param_types)
        return false;
    infer_ctx x = {.pc = pc};
    fl_error err = {0};
    fl_status rc;
    switch (n->node_case) {
    case PG_QUERY__NODE__NODE_INSERT_STMT: rc = infer_insert(&x, n->insert_stmt, &err); break;
    case PG_QUERY__NODE__NODE_UPDATE_STMT: rc = infer_update(&x, n->update_stmt, &err); break;
    case PG_QUERY__NODE__NODE_DELETE_STMT: rc = infer_delete(&x, n->delete_stmt, &err); break;
    case PG_QUERY__NODE__NODE_MERGE_STMT: rc = infer_merge(&x, n->merge_stmt, &err); break;
    default: return false;
    }
    (void)rc; /* a failure leaves the remaining parameters unknown */
    for (uint32_t i = 0; i < pc->nparams; i++)
        if (pc->param_types[i].id == FL_TYPE_STRING && pc->param_types[i].fixed_len == -1)
            return false;
    return true;
}
