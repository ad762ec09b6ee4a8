/*
 * exec.h - the executor: runs a physical plan (plan.h) and yields batches.
 *
 * DESIGN
 *   Vectorized and pipelined: operators pass fl_batch values of up to
 *   FL_BATCH_CAP rows. Parallel across cores in the morsel-driven style: a
 *   pipeline (scan -> filter -> project -> ... up to a breaker such as a hash
 *   build, an aggregate or a sort) runs on every worker thread, each pulling
 *   morsels (a row group, a file, a range of a materialized input) from a
 *   shared queue; breakers merge per-thread partial state. The consumer pulls
 *   the final pipeline's output through fl_exec_next().
 *
 *   Memory: operator state (hash tables, sort runs, materialized inputs) is
 *   accounted against memory_limit; beyond it, aggregates, joins and sorts
 *   partition to spill files in spill_dir and process partitions one at a
 *   time. Spill files are deleted on close, also on error and cancel.
 *
 *   Cancellation: workers check env.cancel between morsels and batches and
 *   stop with FL_ECANCELED. Errors from any worker stop every worker; the
 *   first error is reported.
 *
 *   Progress: scans add files planned and read, rows and bytes to
 *   options.progress (atomics the session owns and readers poll).
 *
 * OWNERSHIP
 *   The executor borrows the plan (which must outlive it) and fills
 *   plan->stats. Batches returned by fl_exec_next() belong to the executor and
 *   are valid until the next call. fl_exec_close() joins workers and frees
 *   everything it allocated.
 */
#ifndef FLOE_SQL_EXEC_H
#define FLOE_SQL_EXEC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "floe/error.h"
#include "floe/vector.h"
#include "sql/expr.h"
#include "sql/plan.h"

/* The statement's progress (sql.h fl_sql_progress), owned by the session
 * and shared by every executor the statement runs (subqueries, the query
 * of a DML statement): scans add to it per file, row group or batch, any
 * thread may read it. */
typedef struct fl_exec_progress {
    atomic_ullong files_total, files_done, rows_scanned, bytes_read;
    atomic_ullong statement; /* the session's statement count (not the executor's) */
} fl_exec_progress;

typedef struct fl_exec_options {
    uint32_t threads;      /* 0 = online CPUs */
    uint64_t memory_limit; /* bytes; 0 = 80% of physical memory */
    const char *spill_dir; /* NULL = $TMPDIR or /tmp */
    fl_eval_env env;       /* params, time zone, statement time, cancel flag */
    fl_exec_progress *progress; /* borrowed; NULL = not counted */
} fl_exec_options;

typedef struct fl_exec fl_exec;

/* Prepares to run plan (starts no work until the first fl_exec_next). */
fl_status fl_exec_open(fl_plan *plan, const fl_exec_options *opt, fl_exec **out, fl_error *err);

/* The next batch of the plan's output (schema = plan->schema; sel may be
 * set; any encoding). *batch NULL and *eof true at the end. */
fl_status fl_exec_next(fl_exec *x, const fl_batch **batch, bool *eof, fl_error *err);

void fl_exec_close(fl_exec *x); /* NULL allowed; safe after errors/cancel */

/* Instead of fl_exec_next (once, before any): runs the plan to its end
 * with the root pipeline on every worker thread as well, handing each
 * thread's batches (sel may be set) to sink with the thread's number in
 * [0, fl_exec_threads(x)); the order of rows is not kept. A writer per
 * thread makes INSERT ... SELECT and CREATE TABLE AS use every core. */
typedef fl_status (*fl_exec_sink_fn)(void *ctx, uint32_t thread, const fl_batch *b, fl_error *err);
fl_status fl_exec_run_sink(fl_exec *x, fl_exec_sink_fn sink, void *ctx, fl_error *err);
uint32_t fl_exec_threads(const fl_exec *x); /* the threads sink may be called from */

/* Runs plan to completion and collects every row (DML, subqueries, tests).
 * *out is a malloc'd array of *n malloc'd batches (fl_exec_free_batches). */
fl_status fl_exec_collect(fl_plan *plan, const fl_exec_options *opt, fl_batch ***out, uint32_t *n,
                          fl_error *err);
void fl_exec_free_batches(fl_batch **b, uint32_t n);

#endif
