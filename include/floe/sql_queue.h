/*
 * sql_queue.h - how many statements do work at once in one process, and
 * how much operator memory they may hold together: the engine's execution
 * slots, shared by every session of a server (pgwire, POST /v1/sql, MCP,
 * the semantic API).
 *
 * WHY
 *   Each statement runs on its own worker threads (options.threads). With
 *   128 dashboard clients that is 256 runnable threads on 2 cores and 128
 *   hash tables at once: every query slows down together, memory grows
 *   with the clients, and even `SELECT 1` waits for a time slice. A queue
 *   in front of the work keeps the machine at the concurrency it serves
 *   best and lets cheap statements through at once, as Trino's resource
 *   groups and Snowflake's MAX_CONCURRENCY_LEVEL do.
 *
 * WHAT WAITS
 *   A statement takes a slot when it reads table or file data (an Iceberg
 *   table, a metadata table, read_parquet/read_csv/read_json/read_orc,
 *   generate_series) or changes data (INSERT, UPDATE, DELETE, MERGE,
 *   CREATE TABLE AS, COPY, CALL, ALTER TABLE, VACUUM/ANALYZE, EXECUTE,
 *   EXPLAIN ANALYZE). Everything else - `SELECT 1`, SET/SHOW,
 *   transaction control, the pg_catalog and information_schema queries BI
 *   tools send - never waits. A statement holds its slot until its result
 *   is read to the end or closed (a slow reader keeps it). A session that
 *   already holds a slot (an open portal) runs further statements without
 *   taking another, so a session never waits for itself.
 *
 * ADMISSION
 *   First come, first served: the oldest waiter starts when fewer than
 *   max_running statements run and the memory the running ones reserved
 *   plus its own fits memory_budget (a statement reserves its session's
 *   memory_limit, at most the whole budget; alone it always starts).
 *   Waiting counts toward statement_timeout and ends at a cancel
 *   (fl_sql_session_cancel, a pgwire CancelRequest, the client going
 *   away): SQLSTATE 57014. Past max_queued waiters a statement is refused
 *   at once with SQLSTATE 53000.
 *
 * THREADS AND OWNERSHIP
 *   Thread-safe. Created by the process that serves sessions, given to
 *   each through fl_sql_options.queue (borrowed), freed after every
 *   session using it closed.
 */
#ifndef FLOE_SQL_QUEUE_H
#define FLOE_SQL_QUEUE_H

#include "floe/export.h"

#include <stdint.h>

#include "floe/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_sql_queue fl_sql_queue;

typedef struct fl_sql_queue_options {
    uint32_t max_running;   /* statements doing work at once; 0 = online CPUs */
    uint32_t max_queued;    /* waiters beyond are refused (53000); 0 = no bound
                             * (the front ends' connection limits bound it) */
    uint64_t memory_budget; /* operator memory of all running statements;
                             * 0 = 80% of RAM */
} fl_sql_queue_options;

FL_API fl_status fl_sql_queue_new(const fl_sql_queue_options *o, fl_sql_queue **out, fl_error *err);
FL_API void fl_sql_queue_free(fl_sql_queue *q); /* NULL allowed; nothing may be waiting */

/* A fair share of the budget for one statement (memory_budget /
 * max_running): what a server gives its sessions as their default
 * memory_limit, so that max_running statements fit together. */
FL_API uint64_t fl_sql_queue_share(const fl_sql_queue *q);

typedef struct fl_sql_queue_stats {
    uint32_t running, queued; /* now */
    uint32_t max_running;     /* as configured (0 resolved) */
    uint64_t memory_reserved; /* by the running statements, now */
    uint64_t memory_budget;   /* as configured (0 resolved) */
    uint64_t admitted;        /* statements that started (waiting or not) */
    uint64_t waited;          /* of those, how many waited first */
    uint64_t refused;         /* past max_queued */
    uint64_t canceled;        /* ended while waiting (cancel, statement_timeout) */
    uint64_t wait_us_total;   /* time spent waiting, all statements */
    uint64_t wait_us_max;     /* the longest single wait */
} fl_sql_queue_stats;
FL_API void fl_sql_queue_stats_get(fl_sql_queue *q, fl_sql_queue_stats *out);

#ifdef __cplusplus
}
#endif
#endif
