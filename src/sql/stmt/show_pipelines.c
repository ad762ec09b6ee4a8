/*
 * show_pipelines.c - SHOW PIPELINES [FROM ns]: the ingestion pipelines that
 * write the tables of a namespace, from what each table records (the
 * committed state of include/floe/ingest.h, nothing else is asked; the
 * numbers are fl_ingest_pipelines', which the server's /metrics exports
 * too):
 *
 *   table_name, pipeline    a table property floe.pipeline.<name>.epoch
 *                           names a pipeline (one table may have several)
 *   epoch, checkpoint       the newest claimed epoch, the newest commit's
 *                           checkpoint number (fl_ingest_state_read)
 *   last_commit             its commit time (UTC), NULL before the first
 *   seconds_since_commit    freshness: now - last_commit
 *   commits, rows_committed the pipeline's snapshots still in the metadata
 *                           and the rows they added (summary added-records)
 *   rows_last_hour          throughput: rows its commits of the last hour added
 *   positions               committed source positions (Kafka partitions,
 *                           LSN, producers, files)
 *   dead_letter_rows        rows of <table>__dead_letter, NULL when absent
 *   source_lag_ms           how far the newest commit's data was behind its
 *                           source when it committed (the summary's
 *                           floe.pipeline.source-lag-ms), NULL when unknown
 *
 * Lag against the source (its newest position) needs the source itself:
 * `floe ingest status` and the pipeline's own metrics report it, not this.
 * A table's pipelines are shown only to a principal that may read it
 * (positions name source files and offsets): visible, as SHOW TABLES lists,
 * and READ held; the same for its dead-letter table.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "floe/ingest.h"
#include "sql/stmt/stmt_int.h"

#define NCOLS 12

typedef struct pipe_rows {
    const char **cells; /* row-major, NCOLS a row */
    uint32_t n, cap;
} pipe_rows;

static fl_status add_row(fl_arena *a, pipe_rows *r, const char **row, fl_error *err)
{
    if (r->n == r->cap) {
        uint32_t nc = r->cap ? 2 * r->cap : 8;
        const char **nv = fl_arena_calloc(a, (size_t)nc * NCOLS + 1, sizeof *nv);
        if (!nv)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (r->n)
            memcpy(nv, r->cells, (size_t)r->n * NCOLS * sizeof *nv);
        r->cells = nv;
        r->cap = nc;
    }
    memcpy(&r->cells[(size_t)r->n++ * NCOLS], row, NCOLS * sizeof *row);
    return FL_OK;
}

static const char *i64_text(fl_arena *a, int64_t v)
{
    return fl_arena_sprintf(a, "%" PRId64, v);
}

/* "2026-12-07 02:10:00.123+00" */
static const char *ms_text(fl_arena *a, int64_t ms)
{
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    char b[40];
    if (!gmtime_r(&s, &tm) || !strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S", &tm))
        return NULL;
    return fl_arena_sprintf(a, "%s.%03d+00", b, (int)(ms % 1000));
}

static bool may_read(fl_planner_ctx *pc, const fl_namespace *ns, const char *table)
{
    return fl_sql_authz_visible(pc, ns, table) && fl_sql_authz_holds(pc, FL_PRIV_READ, ns, table);
}

/* Rows of ns.<table>__dead_letter (its current total-records), or NULL. */
static const char *dead_letter_rows(fl_stmt_ctx *c, const fl_namespace *ns, const char *table)
{
    fl_planner_ctx *pc = c->planner;
    fl_table_ident id = {*ns,
                         fl_arena_sprintf(pc->arena, "%s%s", table, FL_INGEST_DEAD_LETTER_SUFFIX)};
    fl_ice_table *t = NULL;
    fl_error e;
    fl_error_clear(&e);
    if (!id.name || !may_read(pc, ns, id.name) ||
        fl_ice_table_load(pc->catalog, &id, &t, &e) != FL_OK)
        return NULL;
    const fl_ice_snapshot *s = fl_ice_metadata_current_snapshot(&t->meta);
    const char *total = s ? fl_ice_map_get(&s->summary, "total-records") : NULL;
    const char *out = fl_arena_strdup(pc->arena, total ? total : "0");
    fl_ice_table_free(t);
    return out;
}

/* One row per pipeline named in table t's properties (the figures are
 * fl_ingest_pipelines', shared with the server's /metrics). */
static fl_status table_pipelines(fl_stmt_ctx *c, const fl_namespace *ns, const char *name,
                                 const fl_ice_table *t, pipe_rows *rows, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    int64_t now = stmt_now_ms();
    fl_ingest_pipeline_stats *ps = NULL;
    uint32_t np = 0;
    FL_TRY(fl_ingest_pipelines(t->io, &t->meta, now, a, &ps, &np, err));
    for (uint32_t i = 0; i < np; i++) {
        const fl_ingest_state *st = &ps[i].state;
        const char *row[NCOLS] = {
            name,
            ps[i].pipeline,
            i64_text(a, st->epoch),
            st->has_checkpoint ? i64_text(a, st->checkpoint) : NULL,
            st->has_checkpoint ? ms_text(a, st->timestamp_ms) : NULL,
            st->has_checkpoint
                ? fl_arena_sprintf(a, "%.3f", (double)(now - st->timestamp_ms) / 1e3)
                : NULL,
            i64_text(a, ps[i].commits),
            i64_text(a, ps[i].rows),
            i64_text(a, ps[i].rows_last_hour),
            i64_text(a, st->positions.n),
            dead_letter_rows(c, ns, name),
            st->source_lag_ms >= 0 ? i64_text(a, st->source_lag_ms) : NULL,
        };
        FL_TRY(add_row(a, rows, row, err));
    }
    return FL_OK;
}

fl_status stmt_show_pipelines(fl_stmt_ctx *c, const fl_habit_stmt *h, fl_stmt_result *out,
                              fl_error *err)
{
    fl_planner_ctx *pc = c->planner;
    fl_namespace ns;
    FL_TRY(stmt_habit_target_ns(c, h, &ns, err));
    const char **tables = NULL;
    uint32_t nt = 0;
    FL_TRY(pc->catalog->ops->list_tables(pc->catalog, &ns, pc->arena, &tables, &nt, err));
    qsort(tables, nt, sizeof *tables, stmt_cmp_str);
    pipe_rows rows = {0};
    for (uint32_t i = 0; i < nt; i++) {
        if (!may_read(pc, &ns, tables[i]))
            continue;
        fl_table_ident id = {ns, tables[i]};
        fl_ice_table *t = NULL;
        fl_status rc = fl_ice_table_load(pc->catalog, &id, &t, err);
        if (rc == FL_ENOTFOUND) { /* dropped since the listing */
            fl_error_clear(err);
            continue;
        }
        FL_TRY(rc);
        rc = table_pipelines(c, &ns, tables[i], t, &rows, err);
        fl_ice_table_free(t);
        FL_TRY(rc);
    }
    static const char *const names[NCOLS] = {
        "table_name",           "pipeline", "epoch",          "checkpoint",     "last_commit",
        "seconds_since_commit", "commits",  "rows_committed", "rows_last_hour", "positions",
        "dead_letter_rows",     "source_lag_ms"};
    FL_TRY(stmt_result_strings(c, out, names, NCOLS, rows.cells, rows.n, err));
    stmt_tag(out, "SHOW");
    return FL_OK;
}
