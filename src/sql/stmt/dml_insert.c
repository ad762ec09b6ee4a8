/*
 * dml_insert.c - INSERT INTO t [(cols)] VALUES ... | SELECT ... (stmt.h):
 * one Iceberg append, committed once.
 *
 * The source (VALUES lists or any query) is planned by the planner; a
 * casting PROJECT (stmt_project_cast) puts its columns in the table's
 * order and types: listed columns take the source's columns in order,
 * the others take their write-default (stmt_default.c), else NULL (an
 * error for a required column, SQLSTATE 23502).
 * Without a column list the source fills the leading columns. The rows
 * stream through the executor into the Iceberg data writer (the table's
 * partition spec and sort order); the files are appended in one snapshot.
 * An INSERT of no rows commits nothing. Tag: "INSERT 0 n" (PostgreSQL's
 * oid field is always 0).
 */
#include <string.h>
#include <strings.h>

#include "sql/stmt/stmt_int.h"

typedef struct ins_write {
    fl_ice_data_writer *w;
    uint32_t ncols;
    int64_t rows;
    stmt_returning ret;
    fl_arena *a;
} ins_write;

static fl_status ins_batch(void *vctx, const fl_batch *b, fl_error *err)
{
    ins_write *iw = vctx;
    FL_TRY(stmt_write_batch(iw->w, b, iw->ncols, &iw->rows, err));
    return stmt_returning_add(&iw->ret, iw->a, b, err);
}

/* Index of the table column named name (exact, then case-insensitive). */
int32_t stmt_find_column(const fl_schema *s, const char *name)
{
    for (uint32_t i = 0; i < s->nfields; i++)
        if (!strcmp(s->fields[i].name, name))
            return (int32_t)i;
    for (uint32_t i = 0; i < s->nfields; i++)
        if (!strcasecmp(s->fields[i].name, name))
            return (int32_t)i;
    return -1;
}

static fl_status map_columns(fl_stmt_ctx *c, const PgQuery__InsertStmt *s, const fl_schema *ws,
                             const char *table, uint32_t nsrc, int32_t *src, fl_error *err)
{
    for (uint32_t i = 0; i < ws->nfields; i++)
        src[i] = -1;
    if (!s->n_cols) {
        if (nsrc > ws->nfields) {
            return fl_error_state(err, FL_EINVAL, "42601",
                                  "INSERT has more expressions than target columns");
        }
        for (uint32_t i = 0; i < nsrc; i++)
            src[i] = (int32_t)i;
        return FL_OK;
    }
    if (nsrc != s->n_cols) {
        return fl_error_state(err, FL_EINVAL, "42601", "INSERT has more %s than %s",
                              nsrc > s->n_cols ? "expressions" : "target columns",
                              nsrc > s->n_cols ? "target columns" : "expressions");
    }
    for (size_t k = 0; k < s->n_cols; k++) {
        const PgQuery__Node *n = s->cols[k];
        if (n->node_case != PG_QUERY__NODE__NODE_RES_TARGET)
            return fl_errorf(err, FL_EINVAL, "INSERT: unexpected column list entry");
        const PgQuery__ResTarget *rt = n->res_target;
        if (rt->n_indirection) {
            stmt_set_position(c, rt->location);
            return fl_errorf(err, FL_EUNSUPPORTED,
                             "INSERT into a nested field (\"%s\"...) is not supported", rt->name);
        }
        int32_t i = stmt_find_column(ws, rt->name);
        if (i < 0) {
            stmt_set_position(c, rt->location);
            return fl_error_state(err, FL_ENOTFOUND, "42703",
                                  "column \"%s\" of relation \"%s\" does not exist", rt->name,
                                  table);
        }
        if (src[i] >= 0) {
            stmt_set_position(c, rt->location);
            return fl_error_state(err, FL_EINVAL, "42701", "column \"%s\" specified more than once",
                                  rt->name);
        }
        src[i] = (int32_t)k;
    }
    return FL_OK;
}

/* Table column types, names and required flags of the writer schema (arena). */
fl_status stmt_columns_of(fl_arena *a, const fl_schema *ws, fl_type **types, const char ***names,
                          bool **required, fl_error *err)
{
    *types = fl_arena_calloc(a, ws->nfields + 1, sizeof **types);
    *names = fl_arena_calloc(a, ws->nfields + 1, sizeof **names);
    *required = fl_arena_calloc(a, ws->nfields + 1, sizeof **required);
    if (!*types || !*names || !*required)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < ws->nfields; i++) {
        (*types)[i] = ws->fields[i].type;
        (*names)[i] = ws->fields[i].name;
        (*required)[i] = !ws->fields[i].nullable;
    }
    return FL_OK;
}

/* INSERT ... DEFAULT VALUES: one row of no columns (every column takes its
 * write-default, else NULL) */
static fl_status default_values(fl_arena *a, fl_plan **out, fl_error *err)
{
    fl_plan *p = fl_plan_new(a, FL_PLAN_VALUES, 0, 0);
    fl_expr ***rows = fl_arena_calloc(a, 1, sizeof(fl_expr **));
    if (!p || !rows)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    p->u.values.rows = rows;
    p->u.values.nrows = 1;
    p->est_rows = 1;
    *out = p;
    return FL_OK;
}

/* VALUES (..., DEFAULT, ...): the source with each DEFAULT at position k
 * replaced by fill[k] (the target column's write-default, stmt_default.c),
 * NULL when there is none, in arena copies (the parse tree itself is never
 * changed) */
static fl_status values_defaults(fl_arena *a, const PgQuery__Node *q, PgQuery__Node *const *fill,
                                 size_t nfill, const PgQuery__Node **out, fl_error *err)
{
    *out = q;
    if (q->node_case != PG_QUERY__NODE__NODE_SELECT_STMT || !q->select_stmt->n_values_lists)
        return FL_OK;
    const PgQuery__SelectStmt *s = q->select_stmt;
    bool any = false;
    for (size_t r = 0; r < s->n_values_lists; r++) {
        const PgQuery__Node *l = s->values_lists[r];
        if (l->node_case != PG_QUERY__NODE__NODE_LIST)
            continue;
        for (size_t k = 0; k < l->list->n_items; k++)
            any |= l->list->items[k]->node_case == PG_QUERY__NODE__NODE_SET_TO_DEFAULT;
    }
    if (!any)
        return FL_OK;
    PgQuery__Node *nq = fl_arena_alloc(a, sizeof *nq);
    PgQuery__SelectStmt *ns = fl_arena_alloc(a, sizeof *ns);
    PgQuery__Node **lists = fl_arena_calloc(a, s->n_values_lists, sizeof *lists);
    if (!nq || !ns || !lists)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *nq = *q;
    *ns = *s;
    nq->select_stmt = ns;
    ns->values_lists = lists;
    for (size_t r = 0; r < s->n_values_lists; r++) {
        const PgQuery__Node *l = s->values_lists[r];
        lists[r] = (PgQuery__Node *)l;
        if (l->node_case != PG_QUERY__NODE__NODE_LIST)
            continue;
        PgQuery__Node *nl = fl_arena_alloc(a, sizeof *nl);
        PgQuery__List *li = fl_arena_alloc(a, sizeof *li);
        PgQuery__Node **items = fl_arena_calloc(a, l->list->n_items + 1, sizeof *items);
        if (!nl || !li || !items)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        *nl = *l;
        *li = *l->list;
        nl->list = li;
        li->items = items;
        for (size_t k = 0; k < l->list->n_items; k++) {
            items[k] = l->list->items[k];
            if (items[k]->node_case == PG_QUERY__NODE__NODE_SET_TO_DEFAULT &&
                !(items[k] = k < nfill && fill[k] ? fill[k] : stmt_mk_null(a)))
                return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
        lists[r] = nl;
    }
    *out = nq;
    return FL_OK;
}

/* The write-default node of each VALUES position (NULL: none): position k
 * fills the k-th listed column, or column k without a column list. */
static fl_status fill_nodes(fl_stmt_ctx *c, const PgQuery__InsertStmt *s, const fl_schema *ws,
                            const fl_value *defaults, PgQuery__Node ***out, size_t *nout,
                            fl_error *err)
{
    fl_arena *a = c->planner->arena;
    size_t n = s->n_cols ? s->n_cols : ws->nfields;
    PgQuery__Node **fill = fl_arena_calloc(a, n + 1, sizeof *fill);
    if (!fill)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (size_t k = 0; k < n; k++) {
        int32_t col = (int32_t)k;
        if (s->n_cols) {
            const PgQuery__Node *cn = s->cols[k];
            col = cn->node_case == PG_QUERY__NODE__NODE_RES_TARGET
                      ? stmt_find_column(ws, cn->res_target->name)
                      : -1;
        }
        if (col >= 0 && !defaults[col].is_null)
            FL_TRY(stmt_value_node(a, &defaults[col], &fill[k], err));
    }
    *out = fill;
    *nout = n;
    return FL_OK;
}

/* The rows to insert: the query (its DEFAULTs filled), or one empty row. */
static fl_status plan_source(fl_stmt_ctx *c, const PgQuery__InsertStmt *s, const fl_schema *ws,
                             const fl_value *defaults, fl_plan **plan, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    if (!s->select_stmt)
        return default_values(a, plan, err);
    PgQuery__Node **fill = NULL;
    size_t nfill = 0;
    const PgQuery__Node *src;
    FL_TRY(fill_nodes(c, s, ws, defaults, &fill, &nfill, err));
    FL_TRY(values_defaults(a, s->select_stmt, fill, nfill, &src, err));
    return fl_planner_plan_query(c->planner, src, plan, err);
}

fl_status stmt_insert(fl_stmt_ctx *c, const PgQuery__InsertStmt *s, fl_stmt_result *out,
                      fl_error *err)
{
    FL_TRY(stmt_need_catalog(c, "INSERT", err));
    fl_arena *a = c->planner->arena;
    if (s->on_conflict_clause)
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "INSERT ... ON CONFLICT is not supported (use MERGE INTO for upserts)");
    if (s->with_clause)
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "WITH before INSERT is not supported (put the WITH inside the SELECT)");
    fl_planner_table pt;
    /* INSERT writes; RETURNING also reads the rows back */
    uint32_t privs = FL_PRIV_WRITE | (s->n_returning_list ? FL_PRIV_READ : 0u);
    FL_TRY(fl_planner_resolve_table(c->planner, s->relation, privs, &pt, err));
    fl_plan *plan = NULL;
    fl_ice_txn *x = NULL;
    ins_write iw = {0};
    iw.a = a;
    const char *qual = s->relation->alias && s->relation->alias->aliasname[0]
                           ? s->relation->alias->aliasname
                           : s->relation->relname;
    fl_ice_data_file *files = NULL;
    uint32_t nfiles = 0;
    fl_ice_data_writers *set = NULL;
    fl_status rc = fl_ice_txn_begin(pt.table, &x, err);
    if (rc == FL_OK)
        rc = fl_ice_data_writer_open(x, &iw.w, err);
    if (rc == FL_OK) {
        const fl_schema *ws = fl_ice_data_writer_schema(iw.w);
        iw.ncols = ws->nfields;
        int32_t *src = fl_arena_calloc(a, ws->nfields + 1, sizeof *src);
        fl_type *types;
        const char **names;
        bool *required;
        fl_plan *proj = NULL;
        fl_value *defaults = NULL;
        rc = src ? stmt_columns_of(a, ws, &types, &names, &required, err)
                 : fl_errorf(err, FL_ENOMEM, "out of memory");
        if (rc == FL_OK)
            rc = stmt_write_defaults(c, x, ws, &defaults, err);
        if (rc == FL_OK)
            rc = plan_source(c, s, ws, defaults, &plan, err);
        if (rc == FL_OK)
            rc = map_columns(c, s, ws, pt.name, plan->schema.nfields, src, err);
        if (rc == FL_OK)
            rc = stmt_project_cast(c, plan, src, types, names, required, defaults, ws->nfields,
                                   &proj, err);
        if (rc == FL_OK && s->n_returning_list) {
            rc = stmt_returning_expand(c, s->returning_list, s->n_returning_list, ws, qual,
                                       &iw.ret, err);
            if (rc == FL_OK)
                rc = stmt_returning_project(c, proj, qual, &iw.ret, &proj, err);
        }
        if (rc == FL_OK && !s->n_returning_list) {
            /* a writer per executor thread; iw.w only gave the schema */
            rc = stmt_write_plan(c, x, proj, iw.ncols, &iw.rows, &set, &files, &nfiles, err);
        } else if (rc == FL_OK) { /* RETURNING collects rows in order: one writer */
            rc = stmt_run_plan(c, proj, ins_batch, &iw, err);
            if (rc == FL_OK) {
                fl_ice_data_writer *w = iw.w;
                iw.w = NULL;
                rc = fl_ice_data_writer_close(w, &files, &nfiles, err);
            }
        }
    }
    if (rc == FL_OK && nfiles)
        rc = fl_ice_txn_append(x, files, nfiles, err);
    if (rc == FL_OK && iw.rows) {
        fl_ice_txn *xx = x;
        x = NULL;
        rc = stmt_commit_dml(c, xx, &pt.ident, pt.name, out, err);
    }
    fl_ice_txn_abort(x);
    fl_ice_data_writers_free(set); /* after the commit: the file list lives in the set */
    fl_ice_data_writer_abort(iw.w);
    if (rc == FL_OK)
        rc = stmt_returning_finish(&iw.ret, a, out, err);
    stmt_returning_free(&iw.ret);
    FL_TRY(rc);
    stmt_tag(out, "INSERT 0 %lld", (long long)iw.rows);
    out->rows_affected = iw.rows;
    return FL_OK;
}
