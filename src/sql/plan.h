/*
 * plan.h - the physical plan: what the planner produces and the executor
 * runs.
 *
 * DESIGN
 *   A plan is a tree of fl_plan nodes. Each node has an output schema
 *   (names and types of its columns, in order) and its expressions refer to
 *   its input columns by index (expr.h): a node's input is its single child's
 *   output, or for JOIN the left child's columns followed by the right
 *   child's. The planner has already decided everything that needs names or
 *   statistics: pushdown, pruning predicates, join order and build side,
 *   the physical join/aggregate algorithm hints. The executor decides only
 *   parallelism (morsels, pipelines), memory use and spilling.
 *
 *   Scans carry the pruning predicate (conservative, predicate.h) for Iceberg
 *   planning and Parquet row groups/pages, plus an exact filter evaluated on
 *   the scanned rows. Correlated subqueries never reach the plan: the
 *   planner decorrelates them into SEMI/ANTI/MARK/LEFT joins and aggregates;
 *   uncorrelated scalar subqueries are FL_EXPR_SUBQUERY expressions.
 *
 * RUNTIME COUNTERS
 *   Each node has an fl_plan_stats the executor fills (atomically, from any
 *   worker) for EXPLAIN ANALYZE and answer receipts.
 *
 * OWNERSHIP
 *   A plan and everything it points to (expressions, names, values, loaded
 *   table metadata, file lists) live in the plan's arena, owned by whoever
 *   created the plan (the session's statement). The executor never mutates
 *   a plan except its stats.
 */
#ifndef FLOE_SQL_PLAN_H
#define FLOE_SQL_PLAN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/iceberg.h"
#include "floe/io.h"
#include "floe/predicate.h"
#include "floe/types.h"
#include "sql/expr.h"
#include "sql/func.h"

typedef enum fl_plan_kind {
    FL_PLAN_SCAN = 1, /* leaf: a table, metadata table, files or in-memory rows */
    FL_PLAN_VALUES,   /* leaf: literal rows (constant expressions) */
    FL_PLAN_FILTER,   /* child rows where `filter` is TRUE */
    FL_PLAN_PROJECT,  /* exprs over the child */
    FL_PLAN_AGG,      /* GROUP BY keys with aggregates (no keys: one row, even for no input) */
    FL_PLAN_JOIN,     /* hash join on equality keys (nested loop when nkeys == 0) */
    FL_PLAN_SORT,     /* ORDER BY; with limit >= 0 it is a top-N */
    FL_PLAN_LIMIT,    /* OFFSET/LIMIT */
    FL_PLAN_WINDOW,   /* appends one column per window call to the child's columns */
    FL_PLAN_SETOP,    /* UNION/INTERSECT/EXCEPT [ALL] over nchildren children */
    FL_PLAN_DISTINCT, /* all output columns distinct (SELECT DISTINCT) */
    FL_PLAN_EMPTY,    /* no rows (a WHERE folded to FALSE) */
    /* additive (lateral): src/sql/exec/op_apply.c runs these */
    FL_PLAN_APPLY,    /* nested-loop apply: for each row of children[0] (the outer side),
                       * children[1] runs with the parameters u.apply.slots bound to
                       * u.apply.params evaluated on that row (LATERAL, correlated
                       * subqueries that do not decorrelate) */
    FL_PLAN_RECURSE,  /* WITH RECURSIVE: children[0] the non-recursive term, children[1]
                       * the recursive term, which reads the previous iteration's rows
                       * through a ROWS scan of u.recurse.work */
    FL_PLAN_SRF,      /* leaf: a set-returning function over expressions (unnest,
                       * generate_series with non-constant arguments) */
} fl_plan_kind;

/* FL_PLAN_SRF functions */
typedef enum fl_srf_kind {
    FL_SRF_UNNEST = 1,  /* unnest(array) -> elements (arrays of the same call zipped) */
    FL_SRF_SERIES,      /* generate_series(start, stop [, step]) over integers */
    FL_SRF_SUBSCRIPTS,  /* generate_subscripts(array, dim): lower .. upper */
    FL_SRF_POSITIONS,   /* 1 .. cardinality(array) (_pg_expandarray's n) */
} fl_srf_kind;

/* One set-returning call of a select list (lockstep form of FL_PLAN_SRF). */
typedef struct fl_srf_stream {
    fl_srf_kind fn;
    fl_expr **args;
    uint32_t nargs;
} fl_srf_stream;


/* ---- scans ---- */

typedef enum fl_scan_kind {
    FL_SCAN_ICEBERG = 1, /* data of an Iceberg table at a snapshot, deletes applied */
    FL_SCAN_ICEBERG_META, /* a metadata table ($snapshots, $files, ...) */
    FL_SCAN_PARQUET,      /* read_parquet(files) */
    FL_SCAN_CSV,          /* read_csv(files) */
    FL_SCAN_JSON,         /* read_json(files): JSON lines or a top-level array */
    FL_SCAN_ROWS,         /* rows already in memory (materialized CTE, buffered ingest rows) */
    FL_SCAN_SERIES,       /* generate_series(start, stop, step): one BIGINT column, generated
                           * in morsels (additive, sqlmem) */
    FL_SCAN_ORC,          /* read_orc(files): one file per morsel */
} fl_scan_kind;

/* In-memory rows for FL_SCAN_ROWS: batches with the scan's full schema. */
typedef struct fl_row_source {
    const fl_batch *const *batches;
    uint32_t nbatches;
} fl_row_source;

/* The work table of a WITH RECURSIVE: the executor points it at each
 * iteration's rows before running the recursive term (one RECURSE node runs
 * at a time per plan; `busy` serializes concurrent runs of the same plan). */
typedef struct fl_recurse_work {
    fl_row_source rows;
    atomic_int busy;
} fl_recurse_work;

typedef struct fl_plan_scan {
    fl_scan_kind kind;
    fl_fileio *io;                 /* borrowed from the session */
    const char *name;              /* "ns.table", "ns.table$files", a path: for EXPLAIN/receipts */
    const fl_ice_metadata *meta;   /* ICEBERG, ICEBERG_META */
    int64_t snapshot_id;           /* ICEBERG: resolved snapshot (-1 = table has none: empty) */
    int32_t schema_id;             /* ICEBERG: the schema the binder resolved columns in */
    const char *metatable;         /* ICEBERG_META: "snapshots", "files", "history", ... */
    const char *const *files;      /* PARQUET/CSV/JSON: globs already expanded, sorted */
    uint32_t nfiles;
    const fl_schema *file_schema;  /* PARQUET/CSV/JSON/ROWS: the full schema of the source */
    const fl_row_source *rows;     /* ROWS */
    /* CSV options */
    char csv_delim;
    bool csv_header;
    /* Projection: which source columns the scan outputs, in output order.
     * ICEBERG: field ids (plus the metadata columns _file = INT32_MAX - 1 and
     * _pos = INT32_MAX - 2, as Iceberg reserves them); others: column indexes
     * into file_schema. */
    const int32_t *columns;
    uint32_t ncolumns;
    /* Pruning (conservative, on source columns by name/field id): Iceberg
     * partition and metrics pruning, Parquet row-group stats, page index,
     * bloom filters. Every row that matches `filter` must survive it. */
    fl_predicate prune;
    /* Exact filter over the scan's output columns; NULL = none. */
    fl_expr *filter;
    /* Row limit the scan may stop at (LIMIT without ORDER BY); -1 = none. */
    int64_t limit;
    /* SERIES: start, stop (inclusive), step != 0 (additive, sqlmem) */
    int64_t series_start, series_stop, series_step;
} fl_plan_scan;

/* ---- aggregates and windows ---- */

typedef struct fl_agg_call {
    const fl_func *fn;
    const fl_agg_ops *ops;
    fl_type result;
    fl_expr **args; /* over the AGG's input */
    uint32_t nargs;
    bool distinct;      /* count(DISTINCT x) */
    fl_expr *filter;    /* FILTER (WHERE ...), NULL = none */
    /* ordered-set / ORDER BY inside the call (string_agg(x, ',' ORDER BY y),
     * percentile_cont(0.5) WITHIN GROUP (ORDER BY x)) */
    fl_expr **order_by;
    bool *order_desc;
    uint32_t norder;
    const char *alias;
} fl_agg_call;

typedef enum fl_frame_bound {
    FL_FRAME_UNBOUNDED_PRECEDING = 1,
    FL_FRAME_PRECEDING,  /* offset rows/range before */
    FL_FRAME_CURRENT_ROW,
    FL_FRAME_FOLLOWING,
    FL_FRAME_UNBOUNDED_FOLLOWING,
} fl_frame_bound;

typedef struct fl_sort_key {
    fl_expr *expr;
    bool desc;
    bool nulls_first; /* PostgreSQL default: NULLS LAST for ASC, FIRST for DESC */
} fl_sort_key;

typedef struct fl_window_call {
    const fl_func *fn;        /* WINDOW function, or an AGGREGATE used as a window */
    const fl_agg_ops *ops;    /* aggregates */
    fl_type result;
    fl_expr **args;
    uint32_t nargs;
    fl_expr **partition_by;
    uint32_t npartition;
    fl_sort_key *order_by;
    uint32_t norder;
    bool frame_rows;          /* ROWS (true) or RANGE (false) */
    fl_frame_bound frame_start, frame_end;
    int64_t start_offset, end_offset; /* for PRECEDING/FOLLOWING */
    bool has_frame;                   /* false: the SQL default frame */
    const char *alias;
} fl_window_call;

/* ---- joins and set operations ---- */

typedef enum fl_join_type {
    FL_JOIN_INNER = 1,
    FL_JOIN_LEFT,
    FL_JOIN_RIGHT,
    FL_JOIN_FULL,
    FL_JOIN_SEMI, /* left rows with a match; output = left columns */
    FL_JOIN_ANTI, /* left rows without a match (NOT EXISTS semantics); output = left columns */
    FL_JOIN_MARK, /* left columns + one BOOLEAN: true on match, false on none,
                   * NULL when no match but a NULL key/condition (x IN (subquery)) */
    FL_JOIN_SINGLE, /* LEFT join that errors (21000) if a left row matches > 1 right row
                     * (decorrelated scalar subquery) */
    FL_JOIN_CROSS,
} fl_join_type;

typedef enum fl_setop_type {
    FL_SETOP_UNION = 1,
    FL_SETOP_INTERSECT,
    FL_SETOP_EXCEPT,
} fl_setop_type;

typedef struct fl_plan_stats {
    atomic_llong rows_out;
    atomic_llong time_ns; /* wall time spent in this operator (excluding children) */
    atomic_llong batches_out;
    atomic_llong peak_bytes;
    atomic_llong spilled_bytes;
    /* scans */
    atomic_llong files_total, files_pruned; /* by Iceberg metadata */
    atomic_llong row_groups_total, row_groups_pruned;
    atomic_llong pages_pruned;
    atomic_llong bytes_read;
    /* files_pruned split by cause (additive, sqlhttp): partition values, column metrics */
    atomic_llong files_pruned_partition, files_pruned_metrics;
    int64_t snapshot_id_read; /* receipts: the snapshot a table scan read */
} fl_plan_stats;

struct fl_plan {
    fl_plan_kind kind;
    fl_schema schema; /* output columns (names for display, types) */
    fl_plan **children;
    uint32_t nchildren;
    double est_rows;  /* planner's estimate, for EXPLAIN and join ordering */
    fl_plan_stats stats;

    union {
        fl_plan_scan scan;
        struct {
            fl_expr ***rows; /* rows[r][c], constant expressions */
            uint32_t nrows;
        } values;
        struct {
            fl_expr *filter;
        } filter;
        struct {
            fl_expr **exprs; /* one per output column */
        } project;
        struct {
            fl_expr **keys; /* output = keys then aggregate results */
            uint32_t nkeys;
            fl_agg_call *aggs;
            uint32_t naggs;
            /* GROUPING SETS / ROLLUP / CUBE: nsets sets of key indexes; 0 = one set of all keys */
            uint32_t nsets;
            const uint32_t *const *sets;
            const uint32_t *set_sizes;
        } agg;
        struct {
            fl_join_type type;
            /* equality keys: left_keys[i] over the left child, right_keys[i] over
             * the right child; null_safe[i] for IS NOT DISTINCT FROM */
            fl_expr **left_keys;
            fl_expr **right_keys;
            bool *null_safe;
            uint32_t nkeys;
            fl_expr *residual; /* extra condition over left ++ right columns; NULL = none */
            bool build_left;   /* hash table on the left child (planner's choice by size) */
            /* Output list (additive, planperf/joinperf): NULL = every column
             * (left ++ right; left only for SEMI/ANTI; left + mark for MARK);
             * else the join outputs only these indexes into that full list,
             * in this order, and p->schema has nout_cols fields. Keys and
             * residual still refer to the full left ++ right columns. Set by
             * the planner's column pruning (prune_cols.c). */
            const uint32_t *out_cols;
            uint32_t nout_cols;
        } join;
        struct {
            fl_sort_key *keys;
            uint32_t nkeys;
            int64_t limit;  /* >= 0: only the first limit+offset rows are needed (top-N) */
            int64_t offset;
        } sort;
        struct {
            int64_t limit; /* -1 = no limit */
            int64_t offset;
        } limit;
        struct {
            fl_window_call *calls;
            uint32_t ncalls;
        } window;
        struct {
            fl_setop_type type;
            bool all;
        } setop;
        struct {
            /* INNER (LATERAL: outer ++ inner rows), LEFT (outer rows without inner
             * rows get NULLs), SEMI, ANTI (outer columns only), MARK (outer ++ one
             * BOOLEAN: children[1] yields one BOOLEAN column c; the mark is TRUE
             * when some c is TRUE, else NULL when some c is NULL, else FALSE),
             * SINGLE (outer ++ children[1]'s columns of its only row, NULLs when
             * none, error 21000 when more than one) */
            fl_join_type type;
            fl_expr **params;      /* over children[0]'s columns */
            const uint32_t *slots; /* parameter index each param is bound to */
            uint32_t nparams;
        } apply;
        struct {
            bool all;               /* UNION ALL (else UNION: duplicates dropped) */
            fl_recurse_work *work;  /* read by children[1] (a ROWS scan over work->rows) */
            int64_t max_iterations; /* error 54001 past it */
        } recurse;
        struct {
            fl_srf_kind fn;
            fl_expr **args; /* constants or parameters (no columns) */
            uint32_t nargs;
            bool ordinality; /* WITH ORDINALITY: a last BIGINT column */
            /* lockstep form (set-returning functions of a select list,
             * PostgreSQL's ProjectSet): nstreams > 0, output column i is
             * streams[i]; rows = the longest stream, shorter ones NULL-padded */
            const fl_srf_stream *streams;
            uint32_t nstreams;
        } srf;
    } u;
};

/* Builds a node in arena a with the given kind, child count and output
 * columns (names copied). */
fl_plan *fl_plan_new(fl_arena *a, fl_plan_kind kind, uint32_t nchildren, uint32_t ncols);

/* EXPLAIN text: one line per node, indented; with analyze, the runtime
 * counters too. Arena string. */
const char *fl_plan_explain(const fl_plan *p, bool analyze, fl_arena *a);

/* plan_walk.c (additive, lateral) */
/* The EXPLAIN line of an APPLY, RECURSE or SRF node (arena string). */
const char *fl_plan_explain_ext(const fl_plan *p, fl_arena *a);
/* Calls fn on every expression slot of p and its descendants (also plans
 * of FL_EXPR_SUBQUERY expressions); fn may replace *slot. */
typedef fl_status (*fl_plan_expr_fn)(void *ctx, fl_expr **slot, fl_error *err);
fl_status fl_plan_walk_exprs(fl_plan *p, fl_plan_expr_fn fn, void *ctx, fl_error *err);

#endif
