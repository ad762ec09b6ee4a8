/*
 * dml_delete.c - DELETE FROM t [USING ...] [WHERE ...] and TRUNCATE
 * (stmt.h), one Iceberg commit each.
 *
 * DELETE without WHERE/USING and TRUNCATE delete every row from metadata
 * (fl_ice_delete_where with an empty predicate: whole data files are
 * removed, no data is read). Otherwise the planner plans the row source
 * with the row ids _file/_pos (fl_planner_plan_dml_source, so WHERE may use
 * any expression, subqueries and USING tables), the executor yields the
 * matching rows, and fl_ice_delete_positions turns their positions into
 * position delete files (merge-on-read, format v2) or rewrites the files
 * without them (copy-on-write: write.delete.mode=copy-on-write, and always
 * for v1 and v3 tables). A row matched several times through USING is
 * deleted once. Tag "DELETE n"; TRUNCATE's tag is "TRUNCATE TABLE".
 * TRUNCATE of several tables commits each table on its own.
 */
#include <string.h>

#include "sql/stmt/stmt_int.h"

typedef struct del_collect {
    stmt_rowids ids;
    uint32_t file_col, pos_col;
    stmt_returning ret;
    fl_arena *a;
} del_collect;

static fl_status del_batch(void *vctx, const fl_batch *b, fl_error *err)
{
    del_collect *d = vctx;
    FL_TRY(stmt_returning_add(&d->ret, d->a, b, err));
    return stmt_rowids_add_batch(&d->ids, b, d->file_col, d->pos_col, err);
}

static fl_status delete_all(fl_stmt_ctx *c, const fl_planner_table *pt, int64_t *deleted,
                            fl_stmt_result *out, fl_error *err)
{
    fl_ice_txn *x = NULL;
    fl_predicate all = {0, NULL};
    *deleted = 0;
    fl_status rc = fl_ice_txn_begin(pt->table, &x, err);
    if (rc == FL_OK)
        rc = fl_ice_delete_where(x, &all, deleted, err);
    if (rc == FL_OK) {
        fl_ice_txn *xx = x;
        x = NULL;
        rc = stmt_commit_dml(c, xx, &pt->ident, pt->name, out, err);
    }
    fl_ice_txn_abort(x);
    return rc;
}

/* Applies collected row ids as a delete (for_update: write.update.mode). */
fl_status stmt_apply_deletes(fl_ice_txn *x, stmt_rowids *ids, bool for_update, fl_error *err)
{
    if (!ids->nfiles)
        return FL_OK;
    return fl_ice_delete_positions(x, ids->files, ids->nfiles, for_update, err);
}

fl_status stmt_delete(fl_stmt_ctx *c, const PgQuery__DeleteStmt *s, fl_stmt_result *out,
                      fl_error *err)
{
    FL_TRY(stmt_need_catalog(c, "DELETE", err));
    fl_arena *a = c->planner->arena;
    if (s->with_clause)
        return fl_errorf(err, FL_EUNSUPPORTED, "WITH before DELETE is not supported");
    fl_planner_table pt;
    FL_TRY(fl_planner_resolve_table(c->planner, s->relation, FL_PRIV_READ | FL_PRIV_WRITE, &pt, err));
    int64_t deleted = 0;
    if (!s->where_clause && !s->n_using_clause && !s->n_returning_list) {
        FL_TRY(delete_all(c, &pt, &deleted, out, err));
        stmt_tag(out, "DELETE %lld", (long long)deleted);
        out->rows_affected = deleted;
        return FL_OK;
    }
    const char *alias = s->relation->alias ? s->relation->alias->aliasname : NULL;
    PgQuery__Node *one = stmt_mk_int(a, 1);
    if (!one)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    PgQuery__Node *one_target[1] = {one};
    PgQuery__Node *const *targets = one_target;
    uint32_t ntargets = 1;
    del_collect d;
    memset(&d, 0, sizeof d);
    d.a = a;
    if (s->n_returning_list) {
        /* the deleted row's values: RETURNING is the source's target list */
        const fl_ice_schema *ws = fl_ice_metadata_schema(pt.meta, pt.meta->current_schema_id);
        if (!ws)
            return fl_errorf(err, FL_ECORRUPT, "%s: no current schema", pt.name);
        FL_TRY(stmt_returning_expand(c, s->returning_list, s->n_returning_list, &ws->schema,
                                     alias ? alias : s->relation->relname, &d.ret, err));
        targets = d.ret.nodes;
        ntargets = d.ret.n;
    }
    fl_plan *plan = NULL;
    FL_TRY(fl_planner_plan_dml_source(c->planner, &pt, alias, s->using_clause,
                                      (uint32_t)s->n_using_clause, s->where_clause, targets,
                                      ntargets, true, &plan, err));
    uint32_t nc = plan->schema.nfields;
    if (nc < 2 || nc != ntargets + 2)
        return fl_errorf(err, FL_EINVAL, "internal: DML source plan has no row ids");
    d.file_col = nc - 2;
    d.pos_col = nc - 1;
    d.ret.first = 0;
    d.ret.plan = plan;
    fl_ice_txn *x = NULL;
    fl_status rc = stmt_run_plan(c, plan, del_batch, &d, err);
    if (rc == FL_OK) {
        stmt_rowids_finish(&d.ids, NULL);
        deleted = (int64_t)d.ids.nrows;
    }
    if (rc == FL_OK && deleted) {
        rc = fl_ice_txn_begin(pt.table, &x, err);
        if (rc == FL_OK)
            rc = stmt_apply_deletes(x, &d.ids, false, err);
        if (rc == FL_OK) {
            fl_ice_txn *xx = x;
            x = NULL;
            rc = stmt_commit_dml(c, xx, &pt.ident, pt.name, out, err);
        }
    }
    fl_ice_txn_abort(x);
    stmt_rowids_free(&d.ids);
    if (rc == FL_OK)
        rc = stmt_returning_finish(&d.ret, a, out, err);
    stmt_returning_free(&d.ret);
    FL_TRY(rc);
    stmt_tag(out, "DELETE %lld", (long long)deleted);
    out->rows_affected = deleted;
    return FL_OK;
}

fl_status stmt_truncate(fl_stmt_ctx *c, const PgQuery__TruncateStmt *s, fl_stmt_result *out,
                        fl_error *err)
{
    FL_TRY(stmt_need_catalog(c, "TRUNCATE", err));
    for (size_t i = 0; i < s->n_relations; i++) {
        const PgQuery__Node *n = s->relations[i];
        if (n->node_case != PG_QUERY__NODE__NODE_RANGE_VAR)
            return fl_errorf(err, FL_EINVAL, "TRUNCATE: unexpected relation");
        fl_planner_table pt;
        FL_TRY(fl_planner_resolve_table(c->planner, n->range_var, FL_PRIV_WRITE, &pt, err));
        int64_t deleted;
        FL_TRY(delete_all(c, &pt, &deleted, out, err));
        out->rows_affected += deleted;
    }
    stmt_tag(out, "TRUNCATE TABLE");
    return FL_OK;
}
