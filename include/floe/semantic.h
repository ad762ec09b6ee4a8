/*
 * semantic.h - floe's semantic layer: metrics defined once in YAML (dbt's
 * semantic_models: / metrics: format), compiled to one SQL query for floe's
 * engine, answered with a receipt that makes the answer reproducible.
 *
 * DESIGN
 *   A model is loaded from a folder of YAML files (sorted by name) and is
 *   immutable afterwards; its version is the SHA-256 of the sorted files'
 *   names and bytes. A semantic query (metrics, group-by members, filters,
 *   order, limit) compiles to one SQL string (fl_sem_compile); each metric is
 *   aggregated at its own semantic model's grain in a CTE, and the CTEs are
 *   joined on the group-by columns, so a join never multiplies rows.
 *   Dimensions of other semantic models are reached through the entity graph
 *   along many-to-one edges only (foreign/primary -> primary/unique/natural).
 *
 *   fl_sem_execute runs a query on a session and returns the engine's result
 *   plus a receipt: the model version, the compiled SQL, the snapshot of every
 *   table read, the time, and a "replay SQL" in which each table is pinned
 *   FOR VERSION AS OF that snapshot. fl_sem_replay runs a receipt's replay
 *   SQL, so it returns the old numbers after new data landed.
 *
 * ERRORS
 *   Loading errors name the file, line and member:
 *     "models/orders.yml:14: metric 'net_revenue': unknown measure 'gross'".
 *   Query errors name the member and the file defining what was involved.
 *
 * OWNERSHIP
 *   A model owns all its strings; member infos point into it. Compiled SQL,
 *   receipt JSON and receipts are owned by the caller (free / fl_sem_receipt_free).
 *   A model may be shared by threads (read-only after load).
 */
#ifndef FLOE_SEMANTIC_H
#define FLOE_SEMANTIC_H

#include "floe/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/error.h"
#include "floe/sql.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_sem_model fl_sem_model;

/* One YAML file of a model: a name for messages (a path) and its bytes. */
typedef struct fl_sem_file {
    const char *name;
    const char *text;
    size_t len;
} fl_sem_file;

/* Every *.yml / *.yaml file directly in dir (sorted by name). */
FL_API fl_status fl_sem_model_load_dir(const char *dir, fl_sem_model **out, fl_error *err);
/* The same from files in memory (sorted by name here; borrowed for the call). */
FL_API fl_status fl_sem_model_load_files(const fl_sem_file *files, uint32_t nfiles,
                                         fl_sem_model **out, fl_error *err);
/* dir's files plus extra files (borrowed for the call): a draft checked
 * against a folder's model without touching it (MCP's propose_metric). */
FL_API fl_status fl_sem_model_load_dir_with(const char *dir, const fl_sem_file *extra,
                                            uint32_t nextra, fl_sem_model **out, fl_error *err);
FL_API void fl_sem_model_free(fl_sem_model *m); /* NULL allowed */
/* "sha256:<64 hex>" over the sorted files' names and contents. */
FL_API const char *fl_sem_model_version(const fl_sem_model *m);

/* ---- listing (for `floe semantic list`, MCP and catalogs) ---- */
typedef enum fl_sem_member_kind {
    FL_SEM_METRIC = 1,
    FL_SEM_DIMENSION = 2,
    FL_SEM_ENTITY = 3,
    FL_SEM_MEASURE = 4,
    FL_SEM_SAVED_QUERY = 5,
} fl_sem_member_kind;

typedef struct fl_sem_member_info {
    fl_sem_member_kind kind;
    const char *name;        /* metric name; dimensions as "entity__dim" */
    const char *type;        /* simple/ratio/...; categorical/time; primary/...; sum/... */
    const char *model;       /* semantic model (NULL for metrics) */
    const char *description; /* "" when none */
    const char *ai_context;  /* "" when none */
    const char *meta;        /* meta as JSON text, "" when none */
    const char *file;        /* defining file */
    uint32_t line;
} fl_sem_member_info;
FL_API uint32_t fl_sem_model_nmembers(const fl_sem_model *m);
FL_API const fl_sem_member_info *fl_sem_model_member(const fl_sem_model *m, uint32_t i);
/* The measures metric `metric` aggregates, through its ratio, derived and
 * cumulative inputs (each once, at most cap, pointing into the model):
 * metrics that share a measure answer the same question differently.
 * FL_ENOTFOUND when the model has no such metric. */
FL_API fl_status fl_sem_metric_measures(const fl_sem_model *m, const char *metric,
                                        const char **names, uint32_t cap, uint32_t *n,
                                        fl_error *err);

/* ---- queries ---- */
/* (fl_sem_saved_query is declared after fl_sem_query below.) */

/* A table pinned to a snapshot (snapshot_id -1: the table was empty).
 * committed_at: when that snapshot was committed (the data's freshness),
 * as the engine prints a timestamptz; NULL when unknown (compile input). */
typedef struct fl_sem_pin {
    const char *table;
    int64_t snapshot_id;
    const char *committed_at;
} fl_sem_pin;

/* The SQL dialect a query compiles to: floe's engine (PostgreSQL's grammar)
 * or Trino's (intervals as INTERVAL '1' MONTH, double, approx_percentile
 * for median/percentile, TIMESTAMP '... UTC'). Only floe's runs here. */
typedef enum fl_sem_dialect {
    FL_SEM_DIALECT_FLOE = 0,
    FL_SEM_DIALECT_TRINO = 1,
} fl_sem_dialect;

typedef struct fl_sem_query {
    const char *const *metrics; /* metric names */
    uint32_t nmetrics;
    const char *const *group_by; /* "customer__region", "metric_time__month", ... */
    uint32_t ngroup_by;
    const char *const *where; /* "{{ Dimension('customer__region') }} = 'EU'" */
    uint32_t nwhere;
    const char *const *order_by; /* a metric or group-by name; "-name" = descending */
    uint32_t norder_by;
    int64_t limit; /* < 0 = none */
    /* Time travel: tables named in pins read those snapshots; the others read
     * the snapshot current at as_of ("2024-05-01 12:00:00", UTC; NULL = now). */
    const char *as_of;
    const fl_sem_pin *pins;
    uint32_t npins;
    fl_sem_dialect dialect; /* fl_sem_compile only; fl_sem_execute needs FLOE */
} fl_sem_query;

/* The saved query `name` of the model's saved_queries: (dbt's format) as a
 * query; its arrays point into the model. FL_ENOTFOUND when there is none. */
FL_API fl_status fl_sem_saved_query(const fl_sem_model *m, const char *name, fl_sem_query *out,
                                    fl_error *err);

/* Compiles q into one SELECT (malloc'd into *sql). pins (may be NULL) pin
 * the named tables FOR VERSION AS OF their snapshots, before q's own pins. */
FL_API fl_status fl_sem_compile(const fl_sem_model *m, const fl_sem_query *q,
                                const fl_sem_pin *pins, uint32_t npins, char **sql, fl_error *err);

/* Runs sql on Trino over its client HTTP protocol (POST /v1/statement,
 * then each nextUri). uri: trino://[user@]host:port[/catalog[/schema]]
 * (http; user default "floe"). *result_json (malloc'd):
 * {"columns": ["name", ...], "data": [[value, ...], ...]}. */
FL_API fl_status fl_sem_trino_run(const char *uri, const char *sql, char **result_json,
                                  fl_error *err);

/* ---- receipts ---- */
typedef struct fl_sem_receipt fl_sem_receipt;

/* Compiles and runs q on s: *result is the engine's cursor (close it with
 * fl_sql_result_close), *receipt the receipt (free it). */
FL_API fl_status fl_sem_execute(fl_sql_session *s, const fl_sem_model *m, const fl_sem_query *q,
                                fl_sql_result **result, fl_sem_receipt **receipt, fl_error *err);
/* Runs a receipt's pinned SQL: the same numbers as when it was made. When m
 * is given its version must equal the receipt's. *replayed (may be NULL)
 * is the receipt of the replay (same snapshots, new time). */
FL_API fl_status fl_sem_replay(fl_sql_session *s, const fl_sem_model *m, const fl_sem_receipt *r,
                               fl_sql_result **result, fl_sem_receipt **replayed, fl_error *err);

FL_API const char *fl_sem_receipt_version(const fl_sem_receipt *r);
FL_API const char *fl_sem_receipt_sql(const fl_sem_receipt *r);        /* as compiled */
FL_API const char *fl_sem_receipt_replay_sql(const fl_sem_receipt *r); /* pinned */
FL_API const char *fl_sem_receipt_time(const fl_sem_receipt *r);       /* ISO-8601 UTC */
FL_API uint32_t fl_sem_receipt_npins(const fl_sem_receipt *r);
FL_API const fl_sem_pin *fl_sem_receipt_pin(const fl_sem_receipt *r, uint32_t i);
/* JSON text of a receipt (malloc'd) and back. */
FL_API fl_status fl_sem_receipt_to_json(const fl_sem_receipt *r, char **json, fl_error *err);
FL_API fl_status fl_sem_receipt_from_json(const char *json, fl_sem_receipt **out, fl_error *err);
FL_API void fl_sem_receipt_free(fl_sem_receipt *r); /* NULL allowed */

#ifdef __cplusplus
}
#endif
#endif
