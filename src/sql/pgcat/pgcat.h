/*
 * pgcat.h - pg_catalog and information_schema for PostgreSQL clients
 * (internal to src/sql; see README.md in this directory).
 *
 * DESIGN
 *   The catalog relations are virtual: when the binder meets
 *   pg_catalog.<rel>, information_schema.<rel> or an unqualified pg_catalog
 *   name (pg_class...), fl_pgcat_bind_table() builds that relation's rows in
 *   memory from a per-statement snapshot of floe's catalog (namespaces,
 *   tables, views and their columns; pgcat_snap.c) and binds it as an
 *   FL_SCAN_ROWS scan, so the engine's joins, filters and sorts run over it
 *   unchanged. Rows live in the planner arena (no malloc'd vector buffers),
 *   so they are freed with the statement.
 *
 * TYPES
 *   PostgreSQL catalog types map onto floe types: oid/regclass/regtype/
 *   regproc/xid -> INT64, name/text/"char"/pg_node_tree -> STRING, int2/int4
 *   -> INT32, int8 -> INT64, float4/float8, bool, timestamptz. Arrays
 *   (int2vector, oidvector, int2[], text[], name[], aclitem[]) are STRING in
 *   PostgreSQL's text form ("{1,2}"; int2vector/oidvector space separated, as
 *   PostgreSQL prints them) marked by precision == FL_PG_ARRAY_MARK and scale
 *   == the element type's OID, so format_type, RowDescription
 *   (fl_pg_type_oid), subscripts and = ANY(...) know the element type.
 *
 * OIDS
 *   Built-in objects use PostgreSQL 15's OIDs (pg_catalog = 11, public =
 *   2200, pg_class = 1259, the types of pgtypes.h). Namespaces, tables and
 *   views get oid = 16384 + FNV-1a-32("n:" ns | "r:" ns "." name) mod
 *   (2^31 - 16384); a collision (with an earlier name in sorted order)
 *   probes to the next free value. The same catalog gives the same OIDs in
 *   every statement and every process.
 */
#ifndef FLOE_SQL_PGCAT_H
#define FLOE_SQL_PGCAT_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/pgtypes.h"
#include "sql/bind/bind.h"
#include "sql/func/registry_list.h"

#define FL_PG_ARRAY_MARK 0x41525259 /* 'ARRY' */

#define FL_PG_RECORD_MARK 0x52454344 /* 'RECD': _pg_expandarray's (x, n) as "{x,n}" */

/* fixed_len of the array text a one-dimensional ARRAY[...] of scalars makes
 * (other array text, '{{1,2}}'::int[] or a catalog's, may not be 1-D): such
 * a value can become a list (bind_nested.c). */
#define FL_PG_ARRAY_1D 1

static inline bool fl_pg_is_array_text(const fl_type *t)
{
    return t->id == FL_TYPE_STRING && t->precision == FL_PG_ARRAY_MARK;
}

/* Binds rv if it names a catalog relation: *handled = true and *out_ri set.
 * pg_catalog./information_schema. names that do not exist fail with 42P01;
 * other names leave *handled false. */
fl_status fl_pgcat_bind_table(fl_bctx *b, const PgQuery__RangeVar *rv, const char *alias,
                              uint32_t *out_ri, bool *handled, fl_error *err);

/* Expression forms the engine's binder lacks, used by introspection queries:
 * array constructors ARRAY[...], subscripts x[i], COLLATE (ignored: floe
 * compares bytes), x op ANY/ALL (array), casts to regclass/regtype/
 * regproc/regnamespace/oid and to array types. Returns FL_EUNSUPPORTED
 * with *handled false when n is none of those. */
fl_status fl_pgcat_bind_expr(fl_bctx *b, const PgQuery__Node *n, fl_expr **out, bool *handled,
                             fl_error *err);

/* Hooks at the start of bind_expr.c's handlers (each sets *handled when it
 * bound the node): x op ANY/ALL (...), casts to reg* and array types,
 * session functions (current_database()...), CURRENT_USER & co. */
fl_status fl_pgcat_bind_aexpr(fl_bctx *b, const PgQuery__AExpr *x, fl_expr **out, bool *handled,
                              fl_error *err);
fl_status fl_pgcat_bind_cast(fl_bctx *b, const PgQuery__TypeCast *tc, fl_expr **out,
                             bool *handled, fl_error *err);
fl_status fl_pgcat_bind_func(fl_bctx *b, const PgQuery__FuncCall *f, fl_expr **out,
                             bool *handled, fl_error *err);
fl_status fl_pgcat_bind_svf(fl_bctx *b, const PgQuery__SQLValueFunction *v, fl_expr **out,
                            bool *handled, fl_error *err);

/* Hooks at the top of fl_pgcat_bind_func / fl_pgcat_bind_cast (pgcat_fn.c):
 * pg_get_constraintdef, pg_get_indexdef, pg_get_function_result,
 * pg_get_function_(identity_)arguments, pg_get_userbyid from the snapshot;
 * x::reg*::text as the object's name; 'name'::regrole. */
fl_status fl_pgcat_bind_catfunc(fl_bctx *b, const PgQuery__FuncCall *f, fl_expr **out,
                                bool *handled, fl_error *err);
fl_status fl_pgcat_bind_regcast(fl_bctx *b, const PgQuery__TypeCast *tc, fl_expr **out,
                                bool *handled, fl_error *err);

/* ARRAY(SELECT ...) (pgcat_sublink.c). */
fl_status fl_pgcat_bind_array_sublink(fl_bctx *b, const PgQuery__SubLink *sl, fl_expr **out,
                                      fl_error *err);

/* After a sublink failed with FL_EUNSUPPORTED (rc): when every relation of
 * the enclosing block is an empty catalog relation (psql's policies and
 * triggers queries over pg_policy / pg_trigger), the sublink is never
 * evaluated and binds to a NULL of its kind; otherwise returns rc. */
fl_status fl_pgcat_sublink_fallback(fl_bctx *b, const PgQuery__SubLink *sl, fl_status rc,
                                    fl_expr **out, fl_error *err);

/* The floe type for a PostgreSQL type OID (catalog column types). */
fl_type fl_pgcat_type_for_oid(uint32_t oid);

/* ---- the snapshot (pgcat_snap.c) ---- */

typedef struct fl_pgcat_nsp {
    uint32_t oid;
    const char *name;
} fl_pgcat_nsp;

/* A table's primary key: its Iceberg schema's identifier-field-ids (CREATE
 * TABLE ... PRIMARY KEY sets them), shown as PostgreSQL shows a primary key:
 * a pg_constraint row (contype 'p') and a unique btree index (pg_index, a
 * pg_class row of relkind 'i' with its own pg_attribute rows). Only keys
 * whose fields are all top-level columns are shown. */
typedef struct fl_pgcat_key {
    uint32_t con_oid;   /* pg_constraint.oid */
    uint32_t index_rel; /* index into fl_pgcat_snap.rels of the index relation */
    const char *name;   /* "<table>_pkey" (PostgreSQL's choice, also for the index) */
    uint32_t ncols;
    int16_t *attnums;   /* 1-based column numbers, in key order */
} fl_pgcat_key;

typedef struct fl_pgcat_rel {
    uint32_t oid;
    uint32_t nsp_oid;
    const char *nsp;   /* schema name */
    const char *name;
    char kind;         /* 'r' table, 'v' view, 'i' index (of a primary key) */
    bool builtin;      /* a pg_catalog / information_schema relation */
    bool virt;         /* a relation of the session's extension (fl_sql_extension.rels) */
    const fl_schema *cols; /* NULL until loaded (fl_pgcat_snap_columns); indexes: key columns */
    double rows;          /* reltuples; -1 unknown */
    const char *view_sql; /* views: the SQL text */
    fl_pgcat_key *pk;     /* tables: the primary key, NULL when none (loaded with cols) */
    uint32_t table_rel;   /* indexes: index into fl_pgcat_snap.rels of the indexed table */
    /* user tables and views: their row type (pg_type typtype 'c', typrelid =
     * oid, pg_class.reltype) and its array type "_name"; 0 for the others */
    uint32_t type_oid, array_type_oid;
} fl_pgcat_rel;

typedef struct fl_pgcat_snap {
    fl_pgcat_nsp *nsps;
    uint32_t nnsps;
    fl_pgcat_rel *rels;
    uint32_t nrels;
    bool cols_loaded;
    uint32_t capn, capr;   /* allocated sizes of nsps / rels */
    fl_planner_ctx *pc;    /* the statement's (for loading columns on demand) */
    fl_func_sig *sigs;     /* function signatures, NULL until fl_pgcat_snap_sigs */
    uint32_t nsigs;
    const char *user;      /* session user name */
    const char *database;  /* current_database() */
    const char *schema;    /* current_schema() */
    const char *as;        /* whose listing: the effective principal (NULL: no auth) */
} fl_pgcat_snap;

/* The statement's snapshot as the effective principal may see it (built
 * once per statement and principal, cached in the planner context: a
 * definer view's query sees its definer's listing, the rest of the
 * statement the invoker's). */
fl_status fl_pgcat_snap_get(fl_planner_ctx *pc, fl_pgcat_snap **out, fl_error *err);
/* Loads every relation's columns (tables: current schema; views: current
 * version's schema). Unreadable tables keep cols NULL (no columns). */
fl_status fl_pgcat_snap_columns(fl_planner_ctx *pc, fl_pgcat_snap *s, fl_error *err);
/* A relation name (text as written, "ns.name" or "name") that s does not
 * hold: 42P01, or 42501 when its namespace (the current schema for a bare
 * name) is one the effective principal may not see, whether it exists or
 * not (as the binder refuses FROM secret.nosuch, authz.h). */
fl_status fl_pgcat_no_relation(fl_planner_ctx *pc, const fl_pgcat_snap *s, const char *text,
                               int32_t loc, fl_error *err);
/* A relation by schema (NULL = any) and name. Index relations exist once
 * columns are loaded: a name containing "_pkey" that is not found loads
 * them (fl_pgcat_snap_columns) and looks again. */
const fl_pgcat_rel *fl_pgcat_snap_find(const fl_pgcat_snap *s, const char *nsp, const char *name);
const fl_pgcat_rel *fl_pgcat_snap_rel_by_oid(const fl_pgcat_snap *s, uint32_t oid);
const fl_pgcat_nsp *fl_pgcat_snap_nsp_by_oid(const fl_pgcat_snap *s, uint32_t oid);
/* The relation whose primary key has constraint OID oid, or NULL. */
const fl_pgcat_rel *fl_pgcat_snap_rel_by_con(const fl_pgcat_snap *s, uint32_t con_oid);
/* pg_get_constraintdef / pg_get_indexdef text of rel's primary key (arena):
 * "PRIMARY KEY (a, b)"; "CREATE UNIQUE INDEX t_pkey ON ns.t USING btree (a, b)"
 * (the table schema-qualified unless qualify is false and it is on the
 * search path). */
const char *fl_pgcat_pk_condef(fl_arena *a, const fl_pgcat_rel *rel);
const char *fl_pgcat_pk_indexdef(fl_arena *a, const fl_pgcat_snap *s, const fl_pgcat_rel *rel,
                                 bool pretty);
/* quote_ident: name, or "name" with doubled quotes when it needs quoting. */
const char *fl_pgcat_quote_ident(fl_arena *a, const char *name);
uint32_t fl_pgcat_hash_oid(const char *kind, const char *a, const char *b);

/* ---- run-time settings (pgcat_settings.c): pg_settings, current_setting ----
 * (the one list: include/floe/sql_settings.h) */

/* The value current_setting() / SHOW give; NULL for an unknown name. */
const char *fl_pgcat_setting_show(const fl_planner_ctx *pc, const char *name);
struct fl_pgcat_rows;
/* The rows of pg_settings. */
fl_status fl_pgcat_fill_settings(fl_planner_ctx *pc, struct fl_pgcat_rows *r, fl_error *err);

/* ---- built-in relation definitions (pgcat_defs.c) ---- */

typedef struct fl_pgcat_def {
    const char *schema; /* "pg_catalog" / "information_schema" */
    const char *name;
    uint32_t oid;       /* PostgreSQL's where known, else 0 = hashed */
    char kind;          /* PostgreSQL's relkind: 'r' table, 'v' view */
    const char *columns; /* "name:type name:type ..." (PostgreSQL type names) */
} fl_pgcat_def;

const fl_pgcat_def *fl_pgcat_defs(uint32_t *n);
const fl_pgcat_def *fl_pgcat_def_find(const char *schema, const char *name);
/* The def's columns as a schema (arena); pg type OIDs per column in *pgoids. */
fl_status fl_pgcat_def_schema(fl_arena *a, const fl_pgcat_def *d, fl_schema *out,
                              uint32_t **pgoids, fl_error *err);

/* ---- row building (pgcat_rows.c) ---- */

typedef struct fl_pgcat_rows {
    fl_arena *a;
    fl_schema schema;
    uint32_t *pgoids;
    fl_value *cells; /* nrows * ncols */
    uint32_t nrows, cap;
    bool null_defaults; /* information_schema: every column defaults to NULL */
} fl_pgcat_rows;

fl_status fl_pgcat_rows_init(fl_pgcat_rows *r, fl_arena *a, const fl_pgcat_def *d, fl_error *err);
/* Appends a row of defaults (bool false, numbers 0, "char" '', others NULL). */
fl_status fl_pgcat_rows_add(fl_pgcat_rows *r, fl_error *err);
/* Setters on the last row, by column name (unknown names: ignored). */
void fl_pgcat_set_str(fl_pgcat_rows *r, const char *col, const char *v);
void fl_pgcat_set_int(fl_pgcat_rows *r, const char *col, int64_t v);
void fl_pgcat_set_bool(fl_pgcat_rows *r, const char *col, bool v);
void fl_pgcat_set_float(fl_pgcat_rows *r, const char *col, double v);
void fl_pgcat_set_null(fl_pgcat_rows *r, const char *col);
/* The rows as an in-memory source (vectors in the arena). */
fl_status fl_pgcat_rows_source(fl_pgcat_rows *r, fl_row_source **out, fl_error *err);

/* ---- the relations' contents (pgcat_fill_*.c) ---- */

/* Fills r (initialized with def d) from the snapshot. */
fl_status fl_pgcat_fill(fl_planner_ctx *pc, fl_pgcat_snap *s, const fl_pgcat_def *d,
                        fl_pgcat_rows *r, fl_error *err);
fl_status fl_pgcat_fill_pg(fl_planner_ctx *pc, fl_pgcat_snap *s, const fl_pgcat_def *d,
                           fl_pgcat_rows *r, bool *done, fl_error *err);
fl_status fl_pgcat_fill_info(fl_planner_ctx *pc, fl_pgcat_snap *s, const fl_pgcat_def *d,
                             fl_pgcat_rows *r, bool *done, fl_error *err);

/* Primary keys (pgcat_keys.c): pg_constraint, pg_index; information_schema
 * table_constraints, check_constraints, key_column_usage,
 * constraint_column_usage. *done false for other relations. */
fl_status fl_pgcat_fill_keys_pg(fl_planner_ctx *pc, fl_pgcat_snap *s, const fl_pgcat_def *d,
                                fl_pgcat_rows *r, bool *done, fl_error *err);
fl_status fl_pgcat_fill_keys_info(fl_planner_ctx *pc, fl_pgcat_snap *s, const fl_pgcat_def *d,
                                  fl_pgcat_rows *r, bool *done, fl_error *err);

/* ---- functions floe registers (pgcat_proc.c) ---- */
uint32_t fl_pgcat_proc_oid(const char *name, uint32_t index);
/* Loads s->sigs (the registry's signatures) once per statement. */
fl_status fl_pgcat_snap_sigs(fl_pgcat_snap *s, fl_arena *a, fl_error *err);
uint32_t fl_pgcat_sig_oid(const fl_func_sig *g);
/* The first signature of name (args NULL) or the one whose argument list
 * reads args ("text, integer"); NULL when none. Loaded sigs only. */
const fl_func_sig *fl_pgcat_sig_find(fl_arena *a, const fl_pgcat_snap *s, const char *name,
                                     const char *args);
/* pg_get_function_result / pg_get_function_arguments text (arena). */
const char *fl_pgcat_sig_result(fl_arena *a, const fl_func_sig *g);
const char *fl_pgcat_sig_args(fl_arena *a, const fl_func_sig *g);
fl_status fl_pgcat_fill_proc(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err);
fl_status fl_pgcat_fill_aggregate(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err);
fl_status fl_pgcat_fill_routines(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err);

#endif
