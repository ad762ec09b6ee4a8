/*
 * pgfunc.h - data shared between the PostgreSQL compatibility functions
 * (pgfunc.c) and the binder hooks that build their calls (src/sql/pgcat).
 */
#ifndef FLOE_SQL_FUNC_PGFUNC_H
#define FLOE_SQL_FUNC_PGFUNC_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/error.h"
#include "floe/types.h"

/* bind_data of __pg_regclass(text): relation names ("t" for the session
 * schema's tables, "ns.t" for all) and their OIDs; arena memory. */
typedef struct fl_pg_name_table {
    const char **names;
    int64_t *oids;
    uint32_t n;
} fl_pg_name_table;

/* bind_data of __pg_oid_text(x) / __pg_oid_int(x) (pgrelinfo.c): per catalog
 * object its OID (keys, sorted ascending), up to two names (names[2k],
 * names[2k+1]; NULL = none) matched when x is text, and the answer (text[k],
 * NULL = SQL NULL; num[k] when has_num[k]). A name that matches nothing is
 * an error naming `what` ("relation", "database"); an unknown OID gives
 * NULL. Arena memory. */
typedef struct fl_pg_oid_map {
    uint32_t n;
    int64_t *keys;
    const char **names;
    const char **text;
    int64_t *num;
    bool *has_num;
    const char *what;
} fl_pg_oid_map;

/* Maps of the statement's catalog snapshot (pgrelinfo.c): n entries
 * allocated (m->n counts the used ones), what names the object kind in
 * errors; sort before lookups. A constant name argument is replaced by its
 * OID, or is an error (sqlstate; 42501 where the principal may not look). */
struct fl_bctx;
struct fl_expr;
struct PgQuery__FuncCall;
fl_pg_oid_map *fl_pg_oid_map_new(fl_arena *a, uint32_t n, const char *what);
void fl_pg_oid_map_sort(fl_pg_oid_map *m);
fl_status fl_pg_oid_map_const_name(struct fl_bctx *b, const fl_pg_oid_map *m, const char *sqlstate,
                                   struct fl_expr **arg, fl_error *err);
/* has_table_privilege / has_schema_privilege by the authorizer (pgprivs.c). */
fl_status fl_pgfunc_bind_privilege(struct fl_bctx *b, const struct PgQuery__FuncCall *f,
                                   const char *name, struct fl_expr **out, bool *handled,
                                   fl_error *err);

/* The registry entries of __pg_oid_text / __pg_oid_int (pgrelinfo.c). */
struct fl_fn_call;
bool fl_pg_r_oid_text(const fl_type *a, uint32_t n, fl_type *r, fl_type *at);
bool fl_pg_r_oid_int(const fl_type *a, uint32_t n, fl_type *r, fl_type *at);
fl_status fl_pg_k_oid_text(struct fl_fn_call *c, fl_error *err);
fl_status fl_pg_k_oid_int(struct fl_fn_call *c, fl_error *err);

/* pgstat.c: pg_size_pretty, pg_tablespace_location, pg_stat_get_* counters. */
bool fl_pg_r_size_pretty(const fl_type *a, uint32_t n, fl_type *r, fl_type *at);
bool fl_pg_r_oid_int64(const fl_type *a, uint32_t n, fl_type *r, fl_type *at);
bool fl_pg_r_oid_text1(const fl_type *a, uint32_t n, fl_type *r, fl_type *at);
fl_status fl_pg_k_size_pretty(struct fl_fn_call *c, fl_error *err);
fl_status fl_pg_k_zero_counter(struct fl_fn_call *c, fl_error *err);
fl_status fl_pg_k_tablespace_location(struct fl_fn_call *c, fl_error *err);

/* Binder hook (called by src/sql/pgcat/pgcat_expr.c for every function
 * call): binds pg_get_viewdef, pg_relation_size, pg_table_size,
 * pg_total_relation_size, pg_indexes_size and pg_database_size from the
 * statement's catalog snapshot; *handled false for other calls. */
struct fl_bctx;
struct PgQuery__FuncCall;
struct fl_expr;
fl_status fl_pgfunc_bind_relinfo(struct fl_bctx *b, const struct PgQuery__FuncCall *f,
                                 const char *name, struct fl_expr **out, bool *handled,
                                 fl_error *err);

/* A catalog-like relation in FROM built from rows (pgcat_bind.c): binds the
 * rows of def d (filled by the caller) as an FL_SCAN_ROWS relation named
 * alias; *out_ri is its index in the block. */
struct fl_pgcat_def;
struct fl_pgcat_rows;
fl_status fl_pgcat_bind_rows(struct fl_bctx *b, const struct fl_pgcat_def *d,
                             struct fl_pgcat_rows *r, const char *alias, uint32_t *out_ri,
                             fl_error *err);

/* pg_get_keywords() in FROM (pgkeywords.c; called from tablefunc.c): the
 * keywords of the SQL parser floe uses (libpg_query's PostgreSQL 15 list). */
fl_status fl_pgfunc_bind_keywords(struct fl_bctx *b, const struct PgQuery__FuncCall *f,
                                  const char *alias, uint32_t *out_ri, fl_error *err);

#endif
