/*
 * stmt_int.h - helpers shared by the statement handlers of src/sql/stmt/
 * (stmt.h): names, option values, types from the parse tree, parse-tree
 * construction for the plans DML needs, writing a plan's rows into a
 * table, collecting row ids, small result tables.
 *
 * Everything allocated here lives in the planner context's arena (the
 * statement's memory) unless a comment says malloc.
 */
#ifndef FLOE_SQL_STMT_INT_H
#define FLOE_SQL_STMT_INT_H

#include <pg_query/pg_query.pb-c.h>
#include <stdbool.h>
#include <stdint.h>

#include "floe/ice_table.h"
#include "sql/authz/authz.h"
#include "sql/exec.h"
#include "sql/planner.h"
#include "sql/stmt.h"

/* ---- handlers (one file each) ---- */
fl_status stmt_create_schema(fl_stmt_ctx *c, const PgQuery__CreateSchemaStmt *s,
                             fl_stmt_result *out, fl_error *err);
fl_status stmt_drop(fl_stmt_ctx *c, const PgQuery__DropStmt *s, fl_stmt_result *out,
                    fl_error *err);
fl_status stmt_create_table(fl_stmt_ctx *c, const PgQuery__CreateStmt *s, fl_stmt_result *out,
                            fl_error *err);
fl_status stmt_ctas(fl_stmt_ctx *c, const PgQuery__CreateTableAsStmt *s, fl_stmt_result *out,
                    fl_error *err);
fl_status stmt_alter_table(fl_stmt_ctx *c, const PgQuery__AlterTableStmt *s, fl_stmt_result *out,
                           fl_error *err);
fl_status stmt_rename(fl_stmt_ctx *c, const PgQuery__RenameStmt *s, fl_stmt_result *out,
                      fl_error *err);
fl_status stmt_insert(fl_stmt_ctx *c, const PgQuery__InsertStmt *s, fl_stmt_result *out,
                      fl_error *err);
fl_status stmt_delete(fl_stmt_ctx *c, const PgQuery__DeleteStmt *s, fl_stmt_result *out,
                      fl_error *err);
fl_status stmt_truncate(fl_stmt_ctx *c, const PgQuery__TruncateStmt *s, fl_stmt_result *out,
                        fl_error *err);
fl_status stmt_update(fl_stmt_ctx *c, const PgQuery__UpdateStmt *s, fl_stmt_result *out,
                      fl_error *err);
fl_status stmt_merge(fl_stmt_ctx *c, const PgQuery__MergeStmt *s, fl_stmt_result *out,
                     fl_error *err);
fl_status stmt_execute(fl_stmt_ctx *c, const fl_execute_stmt *s, fl_stmt_result *out,
                       fl_error *err);
fl_status stmt_set(fl_stmt_ctx *c, const PgQuery__VariableSetStmt *s, fl_stmt_result *out,
                   fl_error *err);
fl_status stmt_show(fl_stmt_ctx *c, const PgQuery__VariableShowStmt *s, fl_stmt_result *out,
                    fl_error *err);
fl_status stmt_view(fl_stmt_ctx *c, const PgQuery__ViewStmt *s, fl_stmt_result *out,
                    fl_error *err);
/* SHOW TABLES/SCHEMAS/CATALOGS/COLUMNS, DESCRIBE, USE (habit_stmt.c) and
 * SHOW CREATE TABLE (show_create.c) */
fl_status stmt_habit(fl_stmt_ctx *c, const fl_habit_stmt *h, fl_stmt_result *out, fl_error *err);
fl_status stmt_show_create(fl_stmt_ctx *c, const fl_habit_stmt *h, fl_stmt_result *out,
                           fl_error *err);
/* The table a habit statement names, authorized as a listing (42501 when
 * not visible, 42P01 when missing); fl_ice_table_free it. */
fl_status stmt_habit_table(fl_stmt_ctx *c, const fl_habit_stmt *h, fl_table_ident *id,
                           fl_ice_table **t, fl_error *err);
const fl_ice_schema *stmt_current_schema(const fl_ice_table *t);
/* A column type as CREATE TABLE reads it back ("bigint", "numeric(12,2)",
 * "text[]", "timestamp(9) with time zone"); struct and map types print as
 * struct<...>/map<...>, which CREATE TABLE cannot declare (show_create.c). */
const char *stmt_type_text(const fl_type *t, char *buf, size_t cap);
/* ANALYZE (analyze.c) */
fl_status stmt_analyze(fl_stmt_ctx *c, const PgQuery__VacuumStmt *s, fl_stmt_result *out,
                       fl_error *err);
/* COPY ... TO 'file' / FROM 'file' (copy_file.c) */
fl_status stmt_copy(fl_stmt_ctx *c, const PgQuery__CopyStmt *s, fl_stmt_result *out,
                    fl_error *err);
fl_status stmt_drop_view(fl_stmt_ctx *c, const fl_table_ident *id, bool missing_ok, fl_error *err);

/* ---- names ---- */

/* FL_EINVAL "... needs a catalog" when the session has none. */
fl_status stmt_need_catalog(fl_stmt_ctx *c, const char *what, fl_error *err);
/* RangeVar (catalog.schema.name) to an identifier; no schema = the
 * session's default namespace. */
fl_status stmt_ident_rv(fl_stmt_ctx *c, const PgQuery__RangeVar *rv, fl_table_ident *out,
                        fl_error *err);
/* "ns.t" / "t" text to an identifier (default namespace when unqualified). */
fl_status stmt_ident_text(fl_stmt_ctx *c, const char *name, fl_table_ident *out, fl_error *err);
/* Creates every level of ns that does not exist yet. */
fl_status stmt_ensure_namespace(fl_stmt_ctx *c, const fl_namespace *ns, fl_error *err);
/* Error location: records a 1-based position of byte offset loc (< 0: none). */
void stmt_set_position(fl_stmt_ctx *c, int32_t loc);

/* ---- parse-tree values ---- */

/* Text of an option/constant node (String, Integer, Float, Boolean, A_Const,
 * TypeName as a bare word, TypeCast of a constant). NULL when it is none. */
const char *stmt_node_text(fl_arena *a, const PgQuery__Node *n);
/* "name" or "ns.name" of a DefElem (lower case as the parser gave it). */
const char *stmt_defelem_name(fl_arena *a, const PgQuery__DefElem *d);
/* The ARRAY[...] values the pre-lexer recorded for option `name`; false when absent. */
bool stmt_array_option(const fl_stmt_ctx *c, const char *name, const char *const **vals,
                       uint32_t *n);
/* Splits "a, bucket(16, b)" at top-level commas into trimmed items (arena). */
uint32_t stmt_split_list(fl_arena *a, const char *s, const char ***out);
/* SQL type of a column definition to an Iceberg type (arrays become lists). */
fl_status stmt_type_of(fl_stmt_ctx *c, const PgQuery__TypeName *tn, fl_type *out, fl_error *err);

/* ---- parse-tree construction (nodes in the arena; never attached to the
 * parsed tree, so fl_sql_parsed_free never sees them) ---- */
PgQuery__Node *stmt_mk_colref(fl_arena *a, const char *qualifier, const char *name);
PgQuery__Node *stmt_mk_int(fl_arena *a, int32_t v);
PgQuery__Node *stmt_mk_star(fl_arena *a); /* the * of SELECT * */
PgQuery__Node *stmt_mk_bool(fl_arena *a, bool v);
PgQuery__Node *stmt_mk_null(fl_arena *a);
/* CAST('text' AS pg_catalog.typname(typmods...)): a value spelled as SQL */
PgQuery__Node *stmt_mk_typed_literal(fl_arena *a, const char *text, const char *typname,
                                     const int32_t *typmods, uint32_t ntypmods);
PgQuery__Node *stmt_mk_not(fl_arena *a, PgQuery__Node *arg);
PgQuery__Node *stmt_mk_restarget(fl_arena *a, PgQuery__Node *val, const char *name);
/* SELECT targets FROM from WHERE where */
PgQuery__Node *stmt_mk_select(fl_arena *a, PgQuery__Node **targets, uint32_t ntargets,
                              PgQuery__Node **from, uint32_t nfrom, PgQuery__Node *where);
PgQuery__Node *stmt_mk_not_exists(fl_arena *a, PgQuery__Node *subselect);
PgQuery__Node *stmt_mk_rangevar_node(fl_arena *a, const PgQuery__RangeVar *rv);

/* ---- column defaults (stmt_default.c) ---- */

/* The DEFAULT expr of column col as Iceberg single-value JSON: a constant
 * expression cast to t (Iceberg stores literal defaults, not expressions). */
fl_status stmt_default_json(fl_stmt_ctx *c, const PgQuery__Node *expr, const char *col,
                            const fl_type *t, const char **out, fl_error *err);
/* The write-default of each column of writer schema ws (schema of the
 * txn's table): out[i].is_null when the column has none. Arena array. */
fl_status stmt_write_defaults(fl_stmt_ctx *c, fl_ice_txn *x, const fl_schema *ws, fl_value **out,
                              fl_error *err);
/* The SQL spelling of a stored default (SHOW CREATE TABLE): *quote when
 * it must be written as a string literal ('2024-01-02', '\\x01'), else bare
 * (5, 1.5, true). */
fl_status stmt_default_sql(fl_arena *a, const fl_type *t, const char *json, const char **text,
                           bool *quote, fl_error *err);
/* One node per column of ws standing for its write-default (SET c =
 * DEFAULT, MERGE's INSERT): a typed literal, or NULL. Arena array. */
fl_status stmt_default_nodes(fl_stmt_ctx *c, fl_ice_txn *x, const fl_schema *ws,
                             PgQuery__Node ***out, fl_error *err);
/* A parse node that binds to value v (VALUES (..., DEFAULT)); NULL on OOM
 * or for a type with no SQL spelling (err set). */
fl_status stmt_value_node(fl_arena *a, const fl_value *v, PgQuery__Node **out, fl_error *err);

/* ---- plans ---- */

/* A PROJECT over child whose column i is cast(child column src[i]) to
 * types[i] (src[i] < 0: defaults[i] when defaults is given and that is not
 * NULL, else a NULL of types[i]), named names[i]. Errors name the column:
 * 'column "x" is of type integer but expression is of type boolean'. */
fl_status stmt_project_cast(fl_stmt_ctx *c, fl_plan *child, const int32_t *src,
                            const fl_type *types, const char *const *names, const bool *required,
                            const fl_value *defaults, uint32_t n, fl_plan **out, fl_error *err);

/* PROJECT over plan casting each block of ws->nfields columns starting at
 * starts[i] to the table's column types; other columns pass through. */
fl_status stmt_project_blocks(fl_stmt_ctx *c, fl_plan *plan, const uint32_t *starts,
                              uint32_t nblocks, const fl_schema *ws, fl_plan **out, fl_error *err);
/* UPDATE/MERGE SET lists: one expression node per table column (the SET
 * value, else the column qualified by qualifier). exprs has ws->nfields slots. */
fl_status stmt_set_targets(fl_stmt_ctx *c, const fl_schema *ws, const char *qualifier,
                           const char *table, PgQuery__Node *const *set, size_t nset,
                           PgQuery__Node *const *defaults, PgQuery__Node **exprs, fl_error *err);

/* INSERT/UPDATE/DELETE ... RETURNING (dml_returning.c) */
typedef struct stmt_returning {
    PgQuery__Node **nodes; /* expressions (arena), `*` expanded */
    const char **names;
    uint32_t n;            /* 0 = no RETURNING */
    uint32_t first;        /* first RETURNING column of the plan's batches */
    const fl_plan *plan;   /* the plan producing them */
    fl_schema schema;      /* of batch (arena) */
    fl_batch *batch;       /* malloc'd until handed to the result */
} stmt_returning;
fl_status stmt_returning_expand(fl_stmt_ctx *c, PgQuery__Node *const *list, size_t n,
                                const fl_schema *ws, const char *qualifier, stmt_returning *r,
                                fl_error *err);
/* PROJECT over plan: its columns, then the RETURNING list bound over them */
fl_status stmt_returning_project(fl_stmt_ctx *c, fl_plan *plan, const char *qualifier,
                                 stmt_returning *r, fl_plan **out, fl_error *err);
/* copies b's live rows of the RETURNING columns */
fl_status stmt_returning_add(stmt_returning *r, fl_arena *a, const fl_batch *b, fl_error *err);
/* after the commit: the rows become out's result */
fl_status stmt_returning_finish(stmt_returning *r, fl_arena *a, fl_stmt_result *out,
                                fl_error *err);
void stmt_returning_free(stmt_returning *r);

/* Row ids collected from _file/_pos columns: per data file, positions
 * (malloc'd; stmt_rowids_free). */
typedef struct stmt_rowids {
    fl_ice_file_positions *files; /* malloc'd array; positions malloc'd */
    uint32_t nfiles, cap;
    uint64_t nrows;
    /* open-addressing index path -> files slot */
    uint32_t *slots;
    uint32_t nslots;
    uint64_t *caps; /* capacity of each files[i].positions */
} stmt_rowids;

fl_status stmt_rowids_add(stmt_rowids *r, const uint8_t *path, size_t len, int64_t pos,
                          fl_error *err);
/* Adds the rows of batch b (live rows) from columns file_col/pos_col. */
fl_status stmt_rowids_add_batch(stmt_rowids *r, const fl_batch *b, uint32_t file_col,
                                uint32_t pos_col, fl_error *err);
/* Sorts positions; *dups gets whether any (file, pos) appears twice (then
 * duplicates are removed). */
void stmt_rowids_finish(stmt_rowids *r, bool *dups);
void stmt_rowids_free(stmt_rowids *r);

/* fl_ice_delete_positions of the collected ids (nothing when empty). */
fl_status stmt_apply_deletes(fl_ice_txn *x, stmt_rowids *ids, bool for_update, fl_error *err);
/* The deletes of ids and the new data files as ONE snapshot (txn_fuse.c). */
fl_status stmt_delete_and_append(fl_ice_txn *x, stmt_rowids *ids, bool for_update,
                                 fl_ice_data_file *files, uint32_t nfiles, fl_error *err);

/* Runs plan, hands each batch to fn (live rows per b->sel). */
typedef fl_status (*stmt_batch_fn)(void *ctx, const fl_batch *b, fl_error *err);
fl_status stmt_run_plan(fl_stmt_ctx *c, fl_plan *plan, stmt_batch_fn fn, void *fctx,
                        fl_error *err);

/* Writes the first ncols columns of plan's rows into txn's table with a
 * writer per executor thread (the root pipeline on every thread; one
 * writer, in order, under a top-level ORDER BY). *rows += rows written;
 * *files (owned by *set) for the commit; free *set after it. */
fl_status stmt_write_plan(fl_stmt_ctx *c, fl_ice_txn *txn, fl_plan *plan, uint32_t ncols,
                          int64_t *rows, fl_ice_data_writers **set, fl_ice_data_file **files,
                          uint32_t *nfiles, fl_error *err);

/* Writes the first ncols columns of b (live rows) with w. *rows += live rows. */
fl_status stmt_write_batch(fl_ice_data_writer *w, const fl_batch *b, uint32_t ncols,
                           int64_t *rows, fl_error *err);

/* Commits x (freed), records the snapshot and table in out. */
fl_status stmt_commit(fl_stmt_ctx *c, fl_ice_txn *x, const char *table, fl_stmt_result *out,
                      fl_error *err);
/* DML: commits x like stmt_commit outside a transaction block; inside one
 * hands x to the block (txn_block.h: staged, committed at COMMIT). x is
 * consumed either way; out gets the (staged) snapshot id. */
fl_status stmt_commit_dml(fl_stmt_ctx *c, fl_ice_txn *x, const fl_table_ident *id,
                          const char *table, fl_stmt_result *out, fl_error *err);
/* BEGIN/START, COMMIT/END, ROLLBACK/ABORT, SAVEPOINT, RELEASE, ROLLBACK TO
 * (txn_stmt.c). */
fl_status stmt_transaction(fl_stmt_ctx *c, const PgQuery__TransactionStmt *t,
                           fl_stmt_result *out, fl_error *err);
/* FL_EINVAL with SQLSTATE 25006 when a read-only block runs a statement
 * that writes (n is the statement node). */
fl_status stmt_check_read_only(fl_stmt_ctx *c, const PgQuery__Node *n, fl_error *err);

/* Index of the column named name in s (exact, then case-insensitive); -1. */
int32_t stmt_find_column(const fl_schema *s, const char *name);
/* Column types, names and required flags of a writer schema (arena arrays). */
fl_status stmt_columns_of(fl_arena *a, const fl_schema *ws, fl_type **types, const char ***names,
                          bool **required, fl_error *err);

/* ---- results ---- */
void stmt_tag(fl_stmt_result *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A one-row result: ncols BIGINT columns named names[i] with values v[i]. */
fl_status stmt_result_counts(fl_stmt_ctx *c, fl_stmt_result *out, const char *const *names,
                             const int64_t *v, uint32_t ncols, fl_error *err);
/* A result of STRING columns, rows given row-major (cells[r * ncols + c], NULL = SQL NULL). */
fl_status stmt_result_strings(fl_stmt_ctx *c, fl_stmt_result *out, const char *const *names,
                              uint32_t ncols, const char *const *cells, uint32_t nrows,
                              fl_error *err);

int64_t stmt_now_ms(void);

/* SHOW ... [FROM ns]: ns (given, or the session's default), which must exist
 * and be visible (habit_stmt.c); strcmp over const char * for qsort. */
fl_status stmt_habit_target_ns(fl_stmt_ctx *c, const fl_habit_stmt *h, fl_namespace *ns,
                               fl_error *err);
int stmt_cmp_str(const void *x, const void *y);
/* SHOW PIPELINES (show_pipelines.c). */
fl_status stmt_show_pipelines(fl_stmt_ctx *c, const fl_habit_stmt *h, fl_stmt_result *out,
                              fl_error *err);

#endif
