/*
 * analyze.c - ANALYZE t [(c1, c2, ...)] [, u ...] and VACUUM (libpg_query's
 * VacuumStmt; is_vacuumcmd tells them apart).
 *
 * ANALYZE computes the number of distinct values of columns the way Trino
 * and Spark do for Iceberg: the current snapshot is read through the
 * planner's DML row source (the normal scan path: deletes applied, the
 * session's authorization and policies), each primitive top-level column
 * (or each named one) feeds a theta sketch (ice_stats.h), one Puffin
 * statistics file holds the sketches, and one commit registers it for the
 * snapshot (set-statistics, replacing an earlier file of that snapshot).
 * The planner's join order reads the NDV back (plan/joinorder.c).
 * Privileges: reading and writing the table (the metadata changes). A
 * table without a snapshot has nothing to analyze: no file, tag ANALYZE.
 * Inside a transaction block ANALYZE commits at once (like DDL), except
 * for a table the block changed (0A000: its staged rows are no snapshot).
 *
 * VACUUM is refused (0A000): its work is ALTER TABLE t EXECUTE
 * expire_snapshots / remove_orphan_files / optimize.
 */
#include <string.h>

#include "floe/ice_stats.h"
#include "sql/parse/parse_tree.h"
#include "sql/session/session_internal.h"
#include "sql/stmt/stmt_int.h"
#include "sql/stmt/txn_block.h"

typedef struct an_cols {
    uint32_t n;
    const char **names;
    int32_t *fields;
    fl_theta_sketch **sketches;
} an_cols;

static void an_cols_free(an_cols *ac)
{
    for (uint32_t i = 0; ac->sketches && i < ac->n; i++)
        fl_theta_free(ac->sketches[i]);
}

/* The columns to analyze: the named ones (each must exist and be
 * primitive), else every primitive top-level column. */
static fl_status pick_columns(fl_stmt_ctx *c, const PgQuery__VacuumRelation *vr,
                              const fl_planner_table *pt, const fl_schema *s, an_cols *ac,
                              fl_error *err)
{
    fl_arena *a = c->planner->arena;
    uint32_t cap = vr->n_va_cols ? (uint32_t)vr->n_va_cols : s->nfields;
    ac->names = fl_arena_calloc(a, cap + 1, sizeof *ac->names);
    ac->fields = fl_arena_calloc(a, cap + 1, sizeof *ac->fields);
    ac->sketches = fl_arena_calloc(a, cap + 1, sizeof *ac->sketches);
    if (!ac->names || !ac->fields || !ac->sketches)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < cap; i++) {
        int32_t k = (int32_t)i;
        if (vr->n_va_cols) {
            const char *name = fl_front_str(vr->va_cols[i]);
            k = name ? stmt_find_column(s, name) : -1;
            if (k < 0)
                return fl_error_state(err, FL_ENOTFOUND, "42703",
                                      "column \"%s\" of relation \"%s\" does not exist",
                                      name ? name : "?", pt->name);
            if (fl_type_is_nested(&s->fields[k].type))
                return fl_error_state(err, FL_EUNSUPPORTED, "0A000",
                                      "ANALYZE %s: column \"%s\" is nested; only primitive "
                                      "columns have NDV statistics",
                                      pt->name, name);
        } else if (fl_type_is_nested(&s->fields[k].type)) {
            continue;
        }
        for (uint32_t j = 0; j < ac->n; j++)
            if (ac->fields[j] == s->fields[k].field_id)
                return fl_error_state(err, FL_EINVAL, "42701",
                                      "column \"%s\" of relation \"%s\" appears twice",
                                      s->fields[k].name, pt->name);
        ac->names[ac->n] = s->fields[k].name;
        ac->fields[ac->n] = s->fields[k].field_id;
        FL_TRY(
            fl_theta_new(FL_THETA_DEFAULT_LG_K, FL_THETA_DEFAULT_SEED, &ac->sketches[ac->n], err));
        ac->n++;
    }
    return FL_OK;
}

static fl_status sketch_batch(void *ctx, const fl_batch *b, fl_error *err)
{
    an_cols *ac = ctx;
    for (uint32_t i = 0; i < ac->n && i < b->ncols; i++) {
        fl_status rc = fl_theta_update_vector(ac->sketches[i], &b->cols[i], b->sel, b->nrows, err);
        if (rc != FL_OK)
            return fl_error_prefix(err, "column \"%s\"", ac->names[i]);
    }
    return FL_OK;
}

/* Scans the snapshot pt was resolved at, one target per column. */
static fl_status scan_columns(fl_stmt_ctx *c, const fl_planner_table *pt, an_cols *ac,
                              fl_error *err)
{
    fl_arena *a = c->planner->arena;
    PgQuery__Node **targets = fl_arena_calloc(a, ac->n + 1, sizeof *targets);
    if (!targets)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < ac->n; i++)
        if (!(targets[i] = stmt_mk_colref(a, NULL, ac->names[i])))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_plan *plan = NULL;
    FL_TRY(fl_planner_plan_dml_source(c->planner, pt, NULL, NULL, 0, NULL, targets, ac->n, false,
                                      &plan, err));
    if (plan->schema.nfields != ac->n)
        return fl_errorf(err, FL_EINVAL, "internal: ANALYZE scan has %u columns, not %u",
                         plan->schema.nfields, ac->n);
    return stmt_run_plan(c, plan, sketch_batch, ac, err);
}

/* Writes the statistics file and commits it for pt's snapshot. */
static fl_status commit_stats(fl_stmt_ctx *c, const fl_planner_table *pt, an_cols *ac,
                              fl_stmt_result *out, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    fl_ice_statistics_file sf;
    FL_TRY(fl_ice_stats_write_theta(pt->table->io, pt->meta, pt->snapshot_id, ac->fields,
                                    ac->sketches, ac->n, a, &sf, err));
    fl_ice_txn *x = NULL;
    fl_status rc = fl_ice_txn_begin(pt->table, &x, err);
    if (rc == FL_OK)
        rc = fl_ice_txn_own_file(x, sf.statistics_path, err);
    else
        fl_fileio_remove(pt->table->io, sf.statistics_path, NULL);
    fl_ice_update u = {.kind = FL_ICE_UPD_SET_STATISTICS, .statistics = &sf};
    if (rc == FL_OK)
        rc = fl_ice_txn_add_updates(x, &u, 1, err);
    if (rc == FL_OK) {
        fl_ice_txn *xx = x;
        x = NULL;
        rc = stmt_commit(c, xx, pt->name, out, err);
    }
    fl_ice_txn_abort(x);
    return rc;
}

static fl_status analyze_one(fl_stmt_ctx *c, const PgQuery__VacuumRelation *vr, fl_stmt_result *out,
                             fl_error *err)
{
    if (!vr->relation)
        return fl_errorf(err, FL_EINVAL, "ANALYZE: no table named");
    fl_planner_table pt;
    FL_TRY(
        fl_planner_resolve_table(c->planner, vr->relation, FL_PRIV_READ | FL_PRIV_WRITE, &pt, err));
    fl_txn_block *blk = c->session ? c->session->block : NULL;
    if (blk && fl_txn_block_preview(blk, &pt.ident))
        return fl_error_state(err, FL_EUNSUPPORTED, "0A000",
                              "cannot ANALYZE %s: it has uncommitted changes in this transaction "
                              "block (COMMIT or ROLLBACK first)",
                              pt.name);
    const fl_ice_schema *ws = stmt_current_schema(pt.table);
    if (!ws)
        return fl_errorf(err, FL_ECORRUPT, "%s: no current schema", pt.name);
    an_cols ac;
    memset(&ac, 0, sizeof ac);
    fl_status rc = pick_columns(c, vr, &pt, &ws->schema, &ac, err);
    if (rc == FL_OK && pt.snapshot_id != FL_ICE_NO_SNAPSHOT && ac.n) {
        rc = scan_columns(c, &pt, &ac, err);
        if (rc == FL_OK)
            rc = commit_stats(c, &pt, &ac, out, err);
    }
    an_cols_free(&ac);
    if (rc != FL_OK && err && !strstr(err->msg, pt.name))
        fl_error_prefix(err, "ANALYZE %s", pt.name);
    return rc;
}

fl_status stmt_analyze(fl_stmt_ctx *c, const PgQuery__VacuumStmt *s, fl_stmt_result *out,
                       fl_error *err)
{
    if (s->is_vacuumcmd)
        return fl_error_state(err, FL_EUNSUPPORTED, "0A000",
                              "VACUUM is not supported: use ALTER TABLE t EXECUTE "
                              "expire_snapshots, remove_orphan_files or optimize");
    FL_TRY(stmt_need_catalog(c, "ANALYZE", err));
    if (!s->n_rels)
        return fl_error_state(err, FL_EUNSUPPORTED, "0A000",
                              "ANALYZE without a table is not supported: name the tables "
                              "(ANALYZE t [(columns)])");
    for (size_t i = 0; i < s->n_rels; i++) {
        const PgQuery__Node *n = s->rels[i];
        if (n->node_case != PG_QUERY__NODE__NODE_VACUUM_RELATION)
            return fl_errorf(err, FL_EINVAL, "ANALYZE: unexpected %d in the table list",
                             (int)n->node_case);
        FL_TRY(analyze_one(c, n->vacuum_relation, out, err));
    }
    stmt_tag(out, "ANALYZE");
    return FL_OK;
}
