/*
 * dml_update.c - UPDATE t [alias] SET c = e, ... [FROM ...] [WHERE ...]
 * (stmt.h): delete + insert in one Iceberg commit.
 *
 * The planner plans the row source (fl_planner_plan_dml_source) with one
 * target per table column: the SET expression for assigned columns, the
 * column itself (qualified by the alias or table name, so FROM tables with
 * the same column names do not capture it) for the others, followed by the
 * row ids _file/_pos. A casting PROJECT converts the new values to the
 * column types. The executor streams the rows: the new values go to the
 * Iceberg data writer, the row ids are collected. Then the old rows are
 * deleted (fl_ice_delete_positions with write.update.mode: position deletes
 * or copy-on-write) and the new files appended, in one transaction, so
 * readers see either the old or the new table. The delete and the new files
 * are ONE snapshot (a row delta "overwrite", stmt_delete_and_append in
 * txn_fuse.c), as Java's RowDelta writes for Spark's UPDATE.
 *
 * A target row that joins several FROM rows is an error (SQLSTATE 21000)
 * rather than an arbitrary pick. Tag "UPDATE n".
 */
#include <string.h>

#include "sql/stmt/stmt_int.h"

static const PgQuery__Node *multi_assign_value(const PgQuery__MultiAssignRef *m)
{
    const PgQuery__Node *src = m->source;
    if (src && src->node_case == PG_QUERY__NODE__NODE_ROW_EXPR && m->colno >= 1 &&
        (size_t)m->colno <= src->row_expr->n_args)
        return src->row_expr->args[m->colno - 1];
    return NULL;
}

fl_status stmt_set_targets(fl_stmt_ctx *c, const fl_schema *ws, const char *qualifier,
                           const char *table, PgQuery__Node *const *set, size_t nset,
                           PgQuery__Node *const *defaults, PgQuery__Node **exprs, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    for (uint32_t i = 0; i < ws->nfields; i++)
        exprs[i] = NULL;
    for (size_t k = 0; k < nset; k++) {
        if (set[k]->node_case != PG_QUERY__NODE__NODE_RES_TARGET)
            return fl_errorf(err, FL_EINVAL, "SET: unexpected entry");
        const PgQuery__ResTarget *rt = set[k]->res_target;
        if (rt->n_indirection) {
            stmt_set_position(c, rt->location);
            return fl_errorf(err, FL_EUNSUPPORTED,
                             "SET of a nested field (\"%s\"...) is not supported", rt->name);
        }
        int32_t i = stmt_find_column(ws, rt->name);
        if (i < 0) {
            stmt_set_position(c, rt->location);
            return fl_error_state(err, FL_ENOTFOUND, "42703",
                                  "column \"%s\" of relation \"%s\" does not exist", rt->name,
                                  table);
        }
        if (exprs[i]) {
            stmt_set_position(c, rt->location);
            return fl_error_state(err, FL_EINVAL, "42601",
                                  "multiple assignments to same column \"%s\"", rt->name);
        }
        const PgQuery__Node *v = rt->val;
        if (v && v->node_case == PG_QUERY__NODE__NODE_MULTI_ASSIGN_REF) {
            v = multi_assign_value(v->multi_assign_ref);
            if (!v) {
                stmt_set_position(c, rt->location);
                return fl_errorf(err, FL_EUNSUPPORTED,
                                 "SET (a, b) = (subquery) is not supported; use SET (a, b) = "
                                 "(x, y)");
            }
        }
        if (v && v->node_case == PG_QUERY__NODE__NODE_SET_TO_DEFAULT)
            v = defaults ? defaults[i] : stmt_mk_null(a); /* the write-default, else NULL */
        exprs[i] = (PgQuery__Node *)v;
    }
    for (uint32_t i = 0; i < ws->nfields; i++)
        if (!exprs[i] && !(exprs[i] = stmt_mk_colref(a, qualifier, ws->fields[i].name)))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    return FL_OK;
}

typedef struct upd_write {
    fl_ice_data_writer *w;
    uint32_t ncols;
    int64_t rows;
    stmt_rowids ids;
    stmt_returning ret;
    fl_arena *a;
} upd_write;

static fl_status upd_batch(void *vctx, const fl_batch *b, fl_error *err)
{
    upd_write *u = vctx;
    FL_TRY(stmt_write_batch(u->w, b, u->ncols, &u->rows, err));
    FL_TRY(stmt_returning_add(&u->ret, u->a, b, err));
    return stmt_rowids_add_batch(&u->ids, b, u->ncols, u->ncols + 1, err);
}

/* PROJECT over plan: the blocks of ws->nfields columns starting at
 * starts[0..nblocks) are cast to the table's column types (and named like
 * them); every other column passes through unchanged. */
fl_status stmt_project_blocks(fl_stmt_ctx *c, fl_plan *plan, const uint32_t *starts,
                              uint32_t nblocks, const fl_schema *ws, fl_plan **out, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    uint32_t n = plan->schema.nfields;
    int32_t *src = fl_arena_calloc(a, n + 1, sizeof *src);
    fl_type *types = fl_arena_calloc(a, n + 1, sizeof *types);
    const char **names = fl_arena_calloc(a, n + 1, sizeof *names);
    if (!src || !types || !names)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        src[i] = (int32_t)i;
        types[i] = plan->schema.fields[i].type;
        names[i] = plan->schema.fields[i].name ? plan->schema.fields[i].name : "?column?";
    }
    for (uint32_t b = 0; b < nblocks; b++) {
        if (starts[b] + ws->nfields > n)
            return fl_errorf(err, FL_EINVAL, "internal: column block %u..%u of %u", starts[b],
                             starts[b] + ws->nfields, n);
        for (uint32_t k = 0; k < ws->nfields; k++) {
            types[starts[b] + k] = ws->fields[k].type;
            names[starts[b] + k] = ws->fields[k].name;
        }
    }
    return stmt_project_cast(c, plan, src, types, names, NULL, NULL, n, out, err);
}

fl_status stmt_update(fl_stmt_ctx *c, const PgQuery__UpdateStmt *s, fl_stmt_result *out,
                      fl_error *err)
{
    FL_TRY(stmt_need_catalog(c, "UPDATE", err));
    fl_arena *a = c->planner->arena;
    if (s->with_clause)
        return fl_errorf(err, FL_EUNSUPPORTED, "WITH before UPDATE is not supported");
    fl_planner_table pt;
    FL_TRY(fl_planner_resolve_table(c->planner, s->relation, FL_PRIV_READ | FL_PRIV_WRITE, &pt, err));
    const char *alias = s->relation->alias ? s->relation->alias->aliasname : NULL;
    fl_ice_txn *x = NULL;
    upd_write u;
    memset(&u, 0, sizeof u);
    u.a = a;
    const char *qual = alias ? alias : s->relation->relname;
    fl_ice_data_file *files = NULL;
    uint32_t nfiles = 0;
    fl_status rc = fl_ice_txn_begin(pt.table, &x, err);
    if (rc == FL_OK)
        rc = fl_ice_data_writer_open(x, &u.w, err);
    if (rc == FL_OK) {
        const fl_schema *ws = fl_ice_data_writer_schema(u.w);
        u.ncols = ws->nfields;
        PgQuery__Node **targets = fl_arena_calloc(a, ws->nfields + 1, sizeof *targets);
        PgQuery__Node **dflt = NULL;
        fl_plan *plan = NULL, *proj = NULL;
        rc = targets ? stmt_default_nodes(c, x, ws, &dflt, err)
                     : fl_errorf(err, FL_ENOMEM, "out of memory");
        if (rc == FL_OK)
            rc = stmt_set_targets(c, ws, alias ? alias : s->relation->relname, pt.name,
                                  s->target_list, s->n_target_list, dflt, targets, err);
        if (rc == FL_OK)
            rc = fl_planner_plan_dml_source(c->planner, &pt, alias, s->from_clause,
                                            (uint32_t)s->n_from_clause, s->where_clause, targets,
                                            ws->nfields, true, &plan, err);
        if (rc == FL_OK && plan->schema.nfields != ws->nfields + 2)
            rc = fl_errorf(err, FL_EINVAL, "internal: UPDATE source has %u columns, want %u",
                           plan->schema.nfields, ws->nfields + 2);
        if (rc == FL_OK)
            {
            uint32_t zero = 0;
            rc = stmt_project_blocks(c, plan, &zero, 1, ws, &proj, err);
        }
        if (rc == FL_OK && s->n_returning_list) {
            rc = stmt_returning_expand(c, s->returning_list, s->n_returning_list, ws, qual,
                                       &u.ret, err);
            if (rc == FL_OK)
                rc = stmt_returning_project(c, proj, qual, &u.ret, &proj, err);
        }
        if (rc == FL_OK)
            rc = stmt_run_plan(c, proj, upd_batch, &u, err);
        if (rc == FL_OK) {
            fl_ice_data_writer *w = u.w;
            u.w = NULL;
            rc = fl_ice_data_writer_close(w, &files, &nfiles, err);
        }
    }
    fl_ice_data_writer_abort(u.w);
    bool dups = false;
    if (rc == FL_OK)
        stmt_rowids_finish(&u.ids, &dups);
    if (rc == FL_OK && dups) {
        rc = fl_error_state(err, FL_EINVAL, "21000",
                            "UPDATE: a row of %s matches more than one row of FROM (it would be "
                            "updated twice)",
                            pt.name);
    }
    if (rc == FL_OK && u.ids.nrows) {
        rc = stmt_delete_and_append(x, &u.ids, true, files, nfiles, err);
        if (rc == FL_OK) {
            fl_ice_txn *xx = x;
            x = NULL;
            rc = stmt_commit_dml(c, xx, &pt.ident, pt.name, out, err);
        }
    }
    fl_ice_txn_abort(x);
    int64_t n = (int64_t)u.ids.nrows;
    stmt_rowids_free(&u.ids);
    if (rc == FL_OK)
        rc = stmt_returning_finish(&u.ret, a, out, err);
    stmt_returning_free(&u.ret);
    FL_TRY(rc);
    stmt_tag(out, "UPDATE %lld", (long long)n);
    out->rows_affected = n;
    return FL_OK;
}
