/*
 * stmt.h - statements other than queries: DDL, DML, maintenance, SET/SHOW,
 * transaction control. The session (session.c) parses a statement
 * and dispatches here on its node type; queries go to the planner and the
 * executor directly.
 *
 * DESIGN
 *   Each handler runs its statement to completion and reports a command tag
 *   and, for statements that return rows (EXPLAIN, SHOW, DML ... RETURNING,
 *   table maintenance reports), a set of result batches. Each DML statement
 *   is one atomic Iceberg commit through ice_table.h (optimistic
 *   concurrency: conflicting concurrent commits are retried by the
 *   transaction layer or fail with FL_ECONFLICT; never a partial commit).
 *
 *   INSERT writes new data files with fl_ice data writers (the table's
 *   partition spec and sort order); DELETE writes position deletes for the
 *   matching rows (merge-on-read; copy-on-write when the table property
 *   write.delete.mode = copy-on-write, and always for v1 tables); UPDATE is
 *   delete + insert in one snapshot; MERGE joins source and target once and
 *   applies WHEN clauses in order; TRUNCATE is a delete of every file.
 *
 * OWNERSHIP
 *   fl_stmt_ctx borrows everything from the session. Result batches are
 *   malloc'd and handed to the result (freed with fl_exec_free_batches).
 */
#ifndef FLOE_SQL_STMT_H
#define FLOE_SQL_STMT_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/catalog.h"
#include "floe/error.h"
#include "floe/io.h"
#include "floe/sql.h"
#include "sql/exec.h"
#include "sql/planner.h"

typedef struct fl_stmt_ctx {
    fl_planner_ctx *planner; /* arena, catalog, io, parsed statement, params */
    fl_sql_session *session; /* for SET/SHOW (fl_sql_set/fl_sql_get) */
    const fl_exec_options *exec; /* threads, memory, env (cancel, params, tz) */
} fl_stmt_ctx;

typedef struct fl_stmt_result {
    char tag[64];          /* PostgreSQL command tag */
    int64_t rows_affected;
    fl_schema schema;      /* columns of `batches` (nfields 0 = none) */
    fl_batch **batches;    /* malloc'd; freed by the result */
    uint32_t nbatches;
    int64_t committed_snapshot_id; /* -1 when nothing was committed */
    const char *committed_table;   /* arena string or NULL */
} fl_stmt_result;

/* True if stmt is handled by fl_stmt_run (everything except plain queries). */
bool fl_stmt_is_command(const fl_sql_parsed *p);

/* Runs a non-query statement: CREATE/DROP SCHEMA, CREATE TABLE [AS], DROP
 * TABLE, ALTER TABLE (columns, types, partitioning, properties, EXECUTE),
 * INSERT, DELETE, UPDATE, MERGE, TRUNCATE, CREATE/DROP VIEW, SET, SHOW,
 * RESET, BEGIN/COMMIT/ROLLBACK (accepted; each statement commits on its
 * own). EXPLAIN [ANALYZE] is the session's (it plans and runs queries). */
fl_status fl_stmt_run(fl_stmt_ctx *ctx, fl_stmt_result *out, fl_error *err);

void fl_stmt_result_free(fl_stmt_result *r);

/* Types the $n of an INSERT/UPDATE/DELETE/MERGE from their target columns
 * and comparisons (stmt_params.c). pc->param_types (pc->nparams entries,
 * unknown = STRING with fixed_len -1) is updated in place; plans, nothing
 * runs. True when every parameter got a type. */
bool fl_stmt_infer_params(fl_planner_ctx *pc, const fl_sql_parsed *p);

#endif
