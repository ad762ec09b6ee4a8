/*
 * planner.h - from SQL text to a physical plan: parsing (libpg_query plus
 * floe's lakehouse syntax), binding (names, types), optimization, planning.
 *
 * DESIGN
 *   fl_sql_parse() runs a small pre-lexer over the text that recognizes the
 *   syntax PostgreSQL's grammar lacks and blanks it out with spaces (so byte
 *   offsets stay valid for error positions), recording it beside the parse
 *   tree: FOR VERSION AS OF x / FOR TIMESTAMP AS OF x after a table name,
 *   ALTER TABLE t EXECUTE proc(args), ARRAY[...] values in CREATE TABLE
 *   WITH (...). The rest goes to libpg_query (protobuf, unpacked with
 *   protobuf-c); statements are PgQuery__Node trees.
 *
 *   The planner binds a query against the catalog (tables loaded once per
 *   statement, at one snapshot each), folds constants, decorrelates
 *   subqueries, pushes filters and projections into scans, orders joins
 *   from Iceberg record counts and column statistics, answers count/min/max
 *   from metadata when exact, and emits a plan.h tree.
 *
 * OWNERSHIP
 *   An fl_sql_parsed owns the unpacked protobuf (freed by
 *   fl_sql_parsed_free); its other fields live in the arena passed to
 *   fl_sql_parse. Plans, bound expressions and loaded metadata live in the
 *   planner context's arena. The context borrows the catalog and FileIO.
 */
#ifndef FLOE_SQL_PLANNER_H
#define FLOE_SQL_PLANNER_H

#include <pg_query/pg_query.pb-c.h>
#include <stdbool.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/catalog.h"
#include "floe/error.h"
#include "floe/ice_table.h"
#include "floe/io.h"
#include "sql/expr.h"
#include "sql/plan.h"

/* ---- parsing ---- */

typedef struct fl_time_travel {
    int32_t relation_location; /* location of the RangeVar it follows */
    bool by_timestamp;         /* FOR TIMESTAMP AS OF (else VERSION) */
    const char *expr_text;     /* the expression text: 12345, 'branch', TIMESTAMP '...' */
    int32_t expr_location;
} fl_time_travel;

/* ALTER TABLE t EXECUTE name [(arg => value, ...)] [WHERE cond] */
typedef struct fl_execute_stmt {
    const char *table;     /* as written, unquoted: "ns.t" */
    const char *procedure; /* lower case: optimize, expire_snapshots, remove_orphan_files,
                            * rollback_to_snapshot, rewrite_manifests, ... */
    const char *const *arg_names; /* NULL entries for positional arguments */
    const char *const *arg_values; /* literal text, unquoted */
    uint32_t nargs;
    const char *where_text; /* NULL = none */
    int32_t location;
} fl_execute_stmt;

/* Statements people type from Trino, DuckDB and MySQL that PostgreSQL's
 * grammar lacks (parse/habit.c recognizes them before libpg_query). */
typedef enum fl_habit_kind {
    FL_HABIT_NONE = 0,
    FL_HABIT_SHOW_TABLES,   /* SHOW TABLES [FROM|IN ns] [LIKE 'p'] */
    FL_HABIT_SHOW_SCHEMAS,  /* SHOW SCHEMAS|NAMESPACES [FROM|IN ns] [LIKE 'p'] */
    FL_HABIT_SHOW_CATALOGS, /* SHOW CATALOGS [LIKE 'p'] */
    FL_HABIT_SHOW_COLUMNS,  /* SHOW COLUMNS FROM t [FROM ns] | DESCRIBE t | DESC t */
    FL_HABIT_SHOW_CREATE,   /* SHOW CREATE TABLE t */
    FL_HABIT_USE,           /* USE ns */
    FL_HABIT_SHOW_PIPELINES, /* SHOW PIPELINES [FROM|IN ns] */
} fl_habit_kind;

typedef struct fl_habit_stmt {
    fl_habit_kind kind;
    const char *const *name; /* identifier parts, folded as PostgreSQL does (NULL: none) */
    uint32_t nname;
    int32_t name_location; /* byte offset of the name (-1: none) */
    const char *like;      /* LIKE pattern, NULL = none */
    int32_t location;      /* byte offset of the statement's first word */
} fl_habit_stmt;

typedef struct fl_sql_parsed {
    PgQuery__ParseResult *tree; /* NULL for a pure EXECUTE or habit statement */
    PgQuery__Node *stmt;        /* the (single) statement; NULL when execute is set */
    const fl_execute_stmt *execute;
    const fl_habit_stmt *habit; /* SHOW TABLES, DESCRIBE, USE, ...; stmt is NULL then */
    const fl_time_travel *travel;
    uint32_t ntravel;
    /* CREATE TABLE ... WITH (partitioning = ARRAY['a', 'b']): the ARRAY
     * values, by option name (lower case). */
    const char *const *array_option_names;
    const char *const *const *array_option_values;
    const uint32_t *array_option_counts;
    uint32_t narray_options;
    /* ROW(...), STRUCT<...>, MAP(...), ARRAY<...> column types of CREATE /
     * ALTER TABLE (parse/nested_type.c), by the byte offset they start at
     * (where libpg_query's TypeName "text" placeholder is). */
    const uint32_t *nested_type_offsets;
    const fl_type *const *nested_types;
    uint32_t nnested_types;
    const char *text; /* the statement text (arena copy) */
} fl_sql_parsed;

/* Parses exactly one statement. Syntax errors: FL_ESYNTAX with "line L,
 * column C: syntax error at or near \"x\"" and *error_position set (1-based
 * character offset; error_position may be NULL). */
fl_status fl_sql_parse(const char *sql, fl_arena *a, fl_sql_parsed **out, int32_t *error_position,
                       fl_error *err);
void fl_sql_parsed_free(fl_sql_parsed *p); /* NULL allowed */

/* "line L, column C" for a byte offset of text (1-based), into buf. */
void fl_sql_position(const char *text, int32_t byte_offset, char *buf, size_t cap);

/* ---- planning ---- */

/* A table this statement read (answer receipts). */
typedef struct fl_planner_read {
    const char *table;
    int64_t snapshot_id;
} fl_planner_read;

typedef struct fl_planner_ctx {
    fl_arena *arena; /* plans, expressions, metadata: freed with the statement */
    fl_catalog *catalog; /* NULL: only table functions and VALUES */
    fl_fileio *io;
    const char *default_namespace;
    const char *time_zone;
    const char *user; /* session user (current_user, pg_roles); NULL = "floe" (pgkeys) */
    /* the session whose settings pg_settings / current_setting() / set_config()
     * read and write (session_settings.h); NULL = built-in values (pgcompat) */
    struct fl_sql_session *session;
    /* the session's authorizer (sql/authz/authz.h); NULL = no checks and no
     * record (planner tests without a session) */
    struct fl_sql_authz *authz;
    /* the session's extension (virtual relations); NULL = none */
    const struct fl_sql_extension *ext;
    int64_t statement_time_us;
    const fl_sql_parsed *parsed; /* for time travel and positions */
    /* Parameters $1..$n: types known in advance (nparam_types) or inferred
     * by the binder into param_types (arena array, grown to nparams). */
    fl_type *param_types;
    uint32_t nparams;
    /* Filled by the planner. */
    fl_planner_read *reads;
    uint32_t nreads;
    int32_t error_position;     /* 1-based character offset of the last bind error */
    void *internal;             /* planner-private state (table cache, CTEs) */
    /* the binder's recursion depth (expressions, query blocks, views):
     * bounded by FL_SQL_MAX_DEPTH (src/sql/parse/depth.h) */
    uint32_t depth;
    /* NDV read from statistics files, one entry per file read in this
     * statement (plan/joinorder.c; arena list, NULL = none yet) */
    struct fl_planner_ndv *ndv_files;
} fl_planner_ctx;

/* Plans a query statement (SELECT, VALUES, set operations, WITH; also the
 * SELECT inside EXPLAIN / CREATE TABLE AS / INSERT ... SELECT). */
fl_status fl_planner_plan_query(fl_planner_ctx *ctx, const PgQuery__Node *query, fl_plan **out,
                                fl_error *err);

/* A table resolved for DML/DDL: catalog identity and its metadata at the
 * current snapshot (or ref/time-travel if given). */
typedef struct fl_planner_table {
    fl_table_ident ident;
    const char *name; /* "ns.t" */
    fl_ice_table *table; /* opened through the catalog; owned by the ctx (closed with it) */
    const fl_ice_metadata *meta;
    int64_t snapshot_id;
} fl_planner_table;

/* privs: the fl_privilege bits (auth.h) this use of the table needs
 * (INSERT: WRITE; UPDATE, DELETE, MERGE: READ | WRITE), each authorized
 * (sql/authz/authz.h) before the table is loaded. */
/* The namespace a RangeVar names, the same for every statement kind (the
 * binder, DML targets, DDL): catalogname.schemaname levels when both are
 * given (a.b.t), schemaname's levels (a quoted "a.b" is two levels, as
 * fl_namespace_parse reads it), else the default namespace. */
fl_status fl_planner_rv_namespace(const fl_planner_ctx *ctx, const PgQuery__RangeVar *rv,
                                  fl_arena *a, fl_namespace *out, fl_error *err);

fl_status fl_planner_resolve_table(fl_planner_ctx *ctx, const PgQuery__RangeVar *rv,
                                   uint32_t privs, fl_planner_table *out, fl_error *err);

/* Plans the row source of a DML statement: SELECT <targets> FROM <table>
 * [alias] [USING/FROM others] WHERE <where>, where targets are parse-tree
 * expressions evaluated per row (NULL/0 = every column of table in schema
 * order), followed by the row-id columns _file (STRING) and _pos (INT64) of
 * table when with_row_ids is set. from_extra are extra FROM items (UPDATE ...
 * FROM, DELETE ... USING), may be NULL. */
fl_status fl_planner_plan_dml_source(fl_planner_ctx *ctx, const fl_planner_table *table,
                                     const char *alias, PgQuery__Node *const *from_extra,
                                     uint32_t nfrom_extra, const PgQuery__Node *where,
                                     PgQuery__Node *const *targets, uint32_t ntargets,
                                     bool with_row_ids, fl_plan **out, fl_error *err);

/* Binds a parse-tree expression over the output columns of an existing plan
 * (names from plan->schema, optionally qualified by qualifier), e.g. the
 * WHEN conditions of MERGE over the joined rows. */
fl_status fl_planner_bind_expr(fl_planner_ctx *ctx, const fl_plan *input, const char *qualifier,
                               const PgQuery__Node *node, fl_expr **out, fl_error *err);

/* Frees what the context opened (tables); the arena is the caller's. */
void fl_planner_ctx_release(fl_planner_ctx *ctx);

/* Shared by the stages that raise errors or grow arrays under a planner
 * context (bind/, plan/, pgcat/, authz/, stmt/); defined in bind/scope.c. */
/* errors with positions: "line L, column C: msg" */
fl_status fl_front_err(fl_planner_ctx *pc, fl_error *err, fl_status code, int32_t location,
                       const char *sqlstate, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* prefixes an error from a callee (fl_expr_call...) with the position */
fl_status fl_front_err_at(fl_planner_ctx *pc, fl_error *err, int32_t location);
/* growable arrays in the arena */
void *fl_front_grow(fl_arena *a, void *arr, uint32_t *cap, uint32_t n, size_t elem);
/* after a table load failed with FL_ENOTFOUND: FL_EIO naming the metadata
 * file (SQLSTATE 58P01) when the catalog has the table, else err->code */
fl_status fl_front_missing_metadata(fl_planner_ctx *pc, const fl_table_ident *id, fl_error *err);

#endif
