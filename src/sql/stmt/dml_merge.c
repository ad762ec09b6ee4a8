/*
 * dml_merge.c - MERGE INTO t [alias] USING source ON cond
 *                 WHEN MATCHED [AND c] THEN UPDATE SET ... | DELETE | DO NOTHING
 *                 WHEN NOT MATCHED [AND c] THEN INSERT [(cols)] VALUES (...) | DO NOTHING
 * (stmt.h), one Iceberg commit.
 *
 * Two row sources, both bound and planned by the planner:
 *   matched:     fl_planner_plan_dml_source(target, FROM source, WHERE cond)
 *                with targets [WHEN condition of each MATCHED clause (TRUE
 *                when absent)] ++ [the new row of each UPDATE clause, one
 *                expression per table column] and the row ids _file/_pos;
 *   not matched: SELECT [conditions of the NOT MATCHED clauses] ++ [the new
 *                row of each INSERT clause] FROM source WHERE NOT EXISTS
 *                (SELECT 1 FROM target WHERE cond), a parse tree built here
 *                (stmt_nodes.c) and planned as a query (the planner turns
 *                NOT EXISTS into an anti join). Both read the target at the
 *                statement's snapshot (tables are loaded once per statement).
 * Value blocks are cast to the table's column types by one PROJECT each.
 * For every row the first clause whose condition is TRUE applies (SQL's
 * order of WHEN clauses); UPDATE and INSERT rows go to the data writer,
 * UPDATE and DELETE rows' ids are collected. A target row affected by two
 * source rows is an error (SQLSTATE 21000, as PostgreSQL: "MERGE command
 * cannot affect row a second time"). Deletes and appends commit in one
 * transaction (write.update.mode when an UPDATE clause exists). Tag:
 * "MERGE n" with n = rows inserted + updated + deleted.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/stmt/stmt_int.h"

enum { ACT_NOTHING, ACT_UPDATE, ACT_DELETE, ACT_INSERT };
#define MAX_CLAUSES 250

typedef struct mclause {
    int action;
    uint32_t cond_col;
    uint32_t vals_col; /* UPDATE/INSERT */
} mclause;

typedef struct mrun {
    mclause *cl;
    uint32_t ncl;
    bool matched; /* row ids at file_col/pos_col */
    uint32_t file_col, pos_col;
    fl_ice_data_writer *w;
    uint32_t ncols;
    stmt_rowids *ids;
    int64_t affected;
    uint8_t *choice; /* malloc, per batch row */
    uint32_t choice_cap;
    fl_sel sel; /* idx malloc'd */
} mrun;

static bool cond_true(const fl_unified *u, uint32_t row)
{
    return fl_unified_is_valid(u, row) && u->base->data[fl_unified_row(u, row)] != 0;
}

static fl_status mrun_reserve(mrun *m, uint32_t nrows, fl_error *err)
{
    if (nrows <= m->choice_cap)
        return FL_OK;
    uint8_t *ch = realloc(m->choice, nrows);
    if (!ch)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    m->choice = ch;
    uint32_t *idx = realloc(m->sel.idx, (size_t)nrows * sizeof *idx);
    if (!idx)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    m->sel.idx = idx;
    m->sel.cap = nrows;
    m->choice_cap = nrows;
    return FL_OK;
}

static fl_status merge_batch(void *vctx, const fl_batch *b, fl_error *err)
{
    mrun *m = vctx;
    FL_TRY(mrun_reserve(m, b->nrows ? b->nrows : 1, err));
    uint32_t n = fl_batch_live_rows(b);
    fl_unified u[MAX_CLAUSES];
    for (uint32_t k = 0; k < m->ncl; k++)
        fl_vector_unify(&b->cols[m->cl[k].cond_col], &u[k]);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = b->sel ? b->sel->idx[i] : i;
        uint8_t pick = 255;
        for (uint32_t k = 0; k < m->ncl && pick == 255; k++)
            if (cond_true(&u[k], r))
                pick = (uint8_t)k;
        m->choice[r] = pick;
    }
    for (uint32_t k = 0; k < m->ncl; k++) {
        const mclause *cl = &m->cl[k];
        if (cl->action == ACT_NOTHING)
            continue;
        m->sel.count = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t r = b->sel ? b->sel->idx[i] : i;
            if (m->choice[r] == k)
                m->sel.idx[m->sel.count++] = r;
        }
        if (!m->sel.count)
            continue;
        fl_batch view = *b;
        view.sel = &m->sel;
        if (cl->action != ACT_INSERT)
            FL_TRY(stmt_rowids_add_batch(m->ids, &view, m->file_col, m->pos_col, err));
        if (cl->action == ACT_UPDATE || cl->action == ACT_INSERT) {
            view.cols = b->cols + cl->vals_col;
            view.ncols = m->ncols;
            FL_TRY(fl_ice_data_writer_write(m->w, &view, err));
        }
        m->affected += m->sel.count;
    }
    return FL_OK;
}

static fl_status action_of(const PgQuery__MergeWhenClause *w, int *act, fl_error *err)
{
    switch (w->command_type) {
    case PG_QUERY__CMD_TYPE__CMD_UPDATE:
        *act = ACT_UPDATE;
        break;
    case PG_QUERY__CMD_TYPE__CMD_DELETE:
        *act = ACT_DELETE;
        break;
    case PG_QUERY__CMD_TYPE__CMD_INSERT:
        *act = ACT_INSERT;
        break;
    case PG_QUERY__CMD_TYPE__CMD_NOTHING:
        *act = ACT_NOTHING;
        break;
    default:
        return fl_errorf(err, FL_EUNSUPPORTED, "MERGE: unsupported WHEN action");
    }
    if (w->matched == (*act == ACT_INSERT))
        return fl_errorf(err, FL_EINVAL, "MERGE: %s is not allowed in WHEN %sMATCHED",
                         *act == ACT_INSERT ? "INSERT" : "UPDATE/DELETE",
                         w->matched ? "" : "NOT ");
    return FL_OK;
}

/* INSERT's new row: one expression per table column. */
static fl_status insert_row(fl_stmt_ctx *c, const fl_schema *ws, const char *table,
                            const PgQuery__MergeWhenClause *w, PgQuery__Node *const *defaults,
                            PgQuery__Node **row, fl_error *err)
{
    for (uint32_t i = 0; i < ws->nfields; i++)
        row[i] = NULL;
    size_t nv = w->n_values;
    if (w->n_target_list && nv != w->n_target_list) {
        return fl_error_state(err, FL_EINVAL, "42601", "MERGE INSERT has more %s than %s",
                              nv > w->n_target_list ? "expressions" : "target columns",
                              nv > w->n_target_list ? "target columns" : "expressions");
    }
    if (!w->n_target_list && nv > ws->nfields) {
        return fl_error_state(err, FL_EINVAL, "42601",
                              "MERGE INSERT has more expressions than target columns");
    }
    for (size_t k = 0; k < nv; k++) {
        int32_t i = (int32_t)k;
        if (w->n_target_list) {
            const PgQuery__Node *t = w->target_list[k];
            const char *name =
                t->node_case == PG_QUERY__NODE__NODE_RES_TARGET ? t->res_target->name : NULL;
            i = name ? stmt_find_column(ws, name) : -1;
            if (i < 0) {
                return fl_error_state(err, FL_ENOTFOUND, "42703",
                                      "column \"%s\" of relation \"%s\" does not exist",
                                      name ? name : "?", table);
            }
            if (row[i])
                return fl_errorf(err, FL_EINVAL, "column \"%s\" specified more than once", name);
        }
        PgQuery__Node *v = w->values[k];
        if (v->node_case == PG_QUERY__NODE__NODE_SET_TO_DEFAULT)
            v = defaults[i];
        row[i] = v;
    }
    for (uint32_t i = 0; i < ws->nfields; i++)
        if (!row[i])
            row[i] = defaults[i];
    return FL_OK;
}

typedef struct mplan {
    PgQuery__Node **targets;
    uint32_t ntargets;
    mclause *cl;
    uint32_t ncl;
    uint32_t *blocks; /* value block starts */
    uint32_t nblocks;
    bool any_update;
    PgQuery__Node **defaults; /* each column's write-default (stmt_default.c) */
} mplan;

/* Targets for the clauses with matched == want: conditions first, then value blocks. */
static fl_status build_targets(fl_stmt_ctx *c, const PgQuery__MergeStmt *s, const fl_schema *ws,
                               const char *qual, const char *table, bool want, mplan *mp,
                               fl_error *err)
{
    fl_arena *a = c->planner->arena;
    uint32_t ncl = 0, nvals = 0;
    for (size_t i = 0; i < s->n_merge_when_clauses; i++) {
        const PgQuery__MergeWhenClause *w = s->merge_when_clauses[i]->merge_when_clause;
        if (w->matched != want)
            continue;
        int act = 0;
        FL_TRY(action_of(w, &act, err));
        ncl++;
        nvals += act == ACT_UPDATE || act == ACT_INSERT;
    }
    if (ncl > MAX_CLAUSES)
        return fl_errorf(err, FL_ELIMIT, "MERGE: more than %d WHEN clauses", MAX_CLAUSES);
    mp->ncl = ncl;
    mp->ntargets = ncl + nvals * ws->nfields;
    mp->targets = fl_arena_calloc(a, mp->ntargets + 1, sizeof *mp->targets);
    mp->cl = fl_arena_calloc(a, ncl + 1, sizeof *mp->cl);
    mp->blocks = fl_arena_calloc(a, nvals + 1, sizeof *mp->blocks);
    if (!mp->targets || !mp->cl || !mp->blocks)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t k = 0, next = ncl;
    for (size_t i = 0; i < s->n_merge_when_clauses; i++) {
        const PgQuery__MergeWhenClause *w = s->merge_when_clauses[i]->merge_when_clause;
        if (w->matched != want)
            continue;
        mclause *cl = &mp->cl[k];
        FL_TRY(action_of(w, &cl->action, err));
        cl->cond_col = k;
        mp->targets[k] = w->condition ? w->condition : stmt_mk_bool(a, true);
        if (!mp->targets[k])
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (cl->action == ACT_UPDATE) {
            FL_TRY(stmt_set_targets(c, ws, qual, table, w->target_list, w->n_target_list,
                                    mp->defaults, mp->targets + next, err));
            mp->any_update = true;
        } else if (cl->action == ACT_INSERT) {
            FL_TRY(insert_row(c, ws, table, w, mp->defaults, mp->targets + next, err));
        }
        if (cl->action == ACT_UPDATE || cl->action == ACT_INSERT) {
            cl->vals_col = next;
            mp->blocks[mp->nblocks++] = next;
            next += ws->nfields;
        }
        k++;
    }
    return FL_OK;
}

static fl_status run_phase(fl_stmt_ctx *c, fl_plan *plan, const fl_schema *ws, mplan *mp,
                           bool matched, mrun *m, fl_error *err)
{
    fl_plan *proj = NULL;
    FL_TRY(stmt_project_blocks(c, plan, mp->blocks, mp->nblocks, ws, &proj, err));
    m->cl = mp->cl;
    m->ncl = mp->ncl;
    m->matched = matched;
    m->file_col = plan->schema.nfields >= 2 ? plan->schema.nfields - 2 : 0;
    m->pos_col = m->file_col + 1;
    return stmt_run_plan(c, proj, merge_batch, m, err);
}

static fl_status not_matched_plan(fl_stmt_ctx *c, const PgQuery__MergeStmt *s, mplan *mp,
                                  fl_plan **out, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    PgQuery__Node **rt = fl_arena_calloc(a, mp->ntargets + 1, sizeof *rt);
    PgQuery__Node **sub_t = fl_arena_calloc(a, 1, sizeof *sub_t);
    PgQuery__Node **sub_from = fl_arena_calloc(a, 1, sizeof *sub_from);
    PgQuery__Node **from = fl_arena_calloc(a, 1, sizeof *from);
    if (!rt || !sub_t || !sub_from || !from)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < mp->ntargets; i++)
        if (!(rt[i] = stmt_mk_restarget(a, mp->targets[i], fl_arena_sprintf(a, "_m%u", i))))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    sub_t[0] = stmt_mk_restarget(a, stmt_mk_int(a, 1), NULL);
    sub_from[0] = stmt_mk_rangevar_node(a, s->relation);
    from[0] = s->source_relation;
    PgQuery__Node *sub = stmt_mk_select(a, sub_t, 1, sub_from, 1, s->join_condition);
    PgQuery__Node *where = stmt_mk_not_exists(a, sub);
    PgQuery__Node *q = where ? stmt_mk_select(a, rt, mp->ntargets, from, 1, where) : NULL;
    if (!sub_t[0] || !sub_from[0] || !q)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return fl_planner_plan_query(c->planner, q, out, err);
}

fl_status stmt_merge(fl_stmt_ctx *c, const PgQuery__MergeStmt *s, fl_stmt_result *out,
                     fl_error *err)
{
    FL_TRY(stmt_need_catalog(c, "MERGE", err));
    if (s->with_clause)
        return fl_errorf(err, FL_EUNSUPPORTED, "WITH before MERGE is not supported");
    for (size_t i = 0; i < s->n_merge_when_clauses; i++)
        if (s->merge_when_clauses[i]->node_case != PG_QUERY__NODE__NODE_MERGE_WHEN_CLAUSE)
            return fl_errorf(err, FL_EINVAL, "MERGE: unexpected WHEN clause");
    fl_planner_table pt;
    FL_TRY(fl_planner_resolve_table(c->planner, s->relation, FL_PRIV_READ | FL_PRIV_WRITE, &pt, err));
    const char *alias = s->relation->alias ? s->relation->alias->aliasname : NULL;
    const char *qual = alias ? alias : s->relation->relname;
    fl_ice_txn *x = NULL;
    stmt_rowids ids;
    memset(&ids, 0, sizeof ids);
    mrun m;
    memset(&m, 0, sizeof m);
    m.ids = &ids;
    fl_ice_data_file *files = NULL;
    uint32_t nfiles = 0;
    bool any_update = false;
    fl_status rc = fl_ice_txn_begin(pt.table, &x, err);
    if (rc == FL_OK)
        rc = fl_ice_data_writer_open(x, &m.w, err);
    if (rc == FL_OK) {
        const fl_schema *ws = fl_ice_data_writer_schema(m.w);
        m.ncols = ws->nfields;
        mplan mm, nm;
        memset(&mm, 0, sizeof mm);
        memset(&nm, 0, sizeof nm);
        rc = stmt_default_nodes(c, x, ws, &mm.defaults, err);
        nm.defaults = mm.defaults;
        if (rc == FL_OK)
            rc = build_targets(c, s, ws, qual, pt.name, true, &mm, err);
        if (rc == FL_OK)
            rc = build_targets(c, s, ws, qual, pt.name, false, &nm, err);
        any_update = mm.any_update;
        fl_plan *plan = NULL;
        if (rc == FL_OK && mm.ncl) {
            PgQuery__Node *from[1] = {s->source_relation};
            rc = fl_planner_plan_dml_source(c->planner, &pt, alias, from, 1, s->join_condition,
                                            mm.targets, mm.ntargets, true, &plan, err);
            if (rc == FL_OK && plan->schema.nfields != mm.ntargets + 2)
                rc = fl_errorf(err, FL_EINVAL, "internal: MERGE source has %u columns, want %u",
                               plan->schema.nfields, mm.ntargets + 2);
            if (rc == FL_OK)
                rc = run_phase(c, plan, ws, &mm, true, &m, err);
        }
        if (rc == FL_OK && nm.ncl) {
            rc = not_matched_plan(c, s, &nm, &plan, err);
            if (rc == FL_OK)
                rc = run_phase(c, plan, ws, &nm, false, &m, err);
        }
        if (rc == FL_OK) {
            fl_ice_data_writer *w = m.w;
            m.w = NULL;
            rc = fl_ice_data_writer_close(w, &files, &nfiles, err);
        }
    }
    fl_ice_data_writer_abort(m.w);
    free(m.choice);
    free(m.sel.idx);
    bool dups = false;
    if (rc == FL_OK)
        stmt_rowids_finish(&ids, &dups);
    if (rc == FL_OK && dups) {
        rc = fl_error_state(err, FL_EINVAL, "21000",
                            "MERGE command cannot affect row a second time (a row of %s matches "
                            "more than one source row)",
                            pt.name);
    }
    if (rc == FL_OK && (ids.nfiles || nfiles)) {
        rc = stmt_delete_and_append(x, &ids, any_update, files, nfiles, err);
        if (rc == FL_OK) {
            fl_ice_txn *xx = x;
            x = NULL;
            rc = stmt_commit_dml(c, xx, &pt.ident, pt.name, out, err);
        }
    }
    fl_ice_txn_abort(x);
    stmt_rowids_free(&ids);
    FL_TRY(rc);
    stmt_tag(out, "MERGE %lld", (long long)m.affected);
    out->rows_affected = m.affected;
    return FL_OK;
}
