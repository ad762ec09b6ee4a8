/*
 * session_temp.h - temporary tables of one SQL session (CREATE TEMP TABLE,
 * ON COMMIT DROP | DELETE ROWS | PRESERVE ROWS), internal to session*.c,
 * stmt/txn_*.c and stmt/ddl_table.c.
 *
 * DESIGN
 *   A temporary table is an ordinary Iceberg table (so every statement,
 *   scan and DML path works on it unchanged) that is recorded in a
 *   session-private catalog instead of the shared one:
 *     - session_temp.c: an overlay catalog that the session plans through.
 *       Identifiers in the namespace "pg_temp" or "pg_temp_N" (N = this
 *       session's number) go to a small in-memory table list (name ->
 *       metadata location, compare-and-swap commits); every other
 *       identifier is delegated to the session's real catalog. The shared
 *       catalog, other sessions and REST clients never see these tables.
 *       Their files (data, manifests, metadata) live under a private folder
 *       <spill_dir | $TMPDIR | /tmp>/floe-temp-<uuid>/ written through the
 *       session's FileIO, outside the warehouse; a dropped table's files
 *       are removed at once, and the whole folder at session end.
 *     - session_temp_rewrite.c: before a statement is planned, its parse
 *       tree is rewritten the way PostgreSQL's search_path puts pg_temp
 *       first: an unqualified RangeVar (or DROP TABLE name) that names a
 *       temporary table gets schemaname "pg_temp_N" (unless a CTE of the
 *       statement has that name), `CREATE TEMP TABLE t` becomes
 *       `CREATE TABLE pg_temp_N.t` (its ON COMMIT action noted), and
 *       "pg_temp" is spelled "pg_temp_N". The rewrite is undone before the
 *       tree is freed (the replaced strings belong to protobuf-c).
 *     - session_temp_xact.c: ON COMMIT actions when a transaction ends
 *       (after each statement outside a block; at COMMIT/ROLLBACK of a
 *       block, where ROLLBACK also drops the temporary tables the block
 *       created, as PostgreSQL does).
 *   Catalogs whose server writes the metadata (REST) get no overlay:
 *   CREATE TEMP TABLE stays 0A000 there (README).
 *
 * OWNERSHIP
 *   The session owns its fl_session_temp (fl_session_temp_free at close,
 *   which drops every temporary table and removes the folder). The overlay
 *   borrows the real catalog and the FileIO.
 */
#ifndef FLOE_SQL_SESSION_TEMP_H
#define FLOE_SQL_SESSION_TEMP_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/catalog.h"
#include "floe/error.h"
#include "sql/planner.h"

typedef struct fl_session_temp fl_session_temp;

typedef enum fl_temp_on_commit {
    FL_TEMP_PRESERVE_ROWS = 0,
    FL_TEMP_DELETE_ROWS,
    FL_TEMP_DROP,
} fl_temp_on_commit;

/* An overlay over inner (borrowed); *out NULL (and FL_OK) when inner is
 * NULL or a catalog that writes metadata itself (no temporary tables).
 * dir_root: where the private folder goes (NULL = $TMPDIR or /tmp). */
fl_status fl_session_temp_new(fl_catalog *inner, fl_fileio *io, const char *dir_root,
                              fl_session_temp **out, fl_error *err);
/* Drops every temporary table (files removed) and frees t. NULL allowed. */
void fl_session_temp_free(fl_session_temp *t);
/* The catalog to plan through (owned by t). */
fl_catalog *fl_session_temp_catalog(fl_session_temp *t);
/* "pg_temp_N". */
const char *fl_session_temp_nsname(const fl_session_temp *t);
/* True when ns is "pg_temp" or this session's "pg_temp_N". */
bool fl_session_temp_is_ns(const fl_session_temp *t, const fl_namespace *ns);
/* True when a temporary table called name exists. */
bool fl_session_temp_has(const fl_session_temp *t, const char *name);
/* Number of temporary tables. */
uint32_t fl_session_temp_count(const fl_session_temp *t);
/* For CREATE TABLE of a temporary table: a fresh private location (arena
 * string), creating the session folder on first use. NULL result (FL_OK)
 * when id is not temporary. */
fl_status fl_session_temp_location(fl_session_temp *t, const fl_table_ident *id, fl_arena *a,
                                   const char **out, fl_error *err);
/* The ON COMMIT action and transaction flag the next create_table of a
 * temporary table records (set by the rewrite). */
void fl_session_temp_set_pending(fl_session_temp *t, fl_temp_on_commit oc, bool in_block);

/* ---- parse-tree rewrite (session_temp_rewrite.c) ---- */
typedef struct fl_temp_undo {
    void **slot[64];
    void *old[64];
    size_t *nslot[16];
    size_t nold[16];
    uint32_t n, nn;
} fl_temp_undo;
/* Rewrites p's statement for temporary tables (t may be NULL: nothing to
 * do). New nodes and strings go to a. FL_ELIMIT when a statement names
 * more temporary tables than the undo log holds (64). */
fl_status fl_session_temp_rewrite(fl_session_temp *t, const fl_sql_parsed *p, bool in_block,
                                  fl_arena *a, fl_temp_undo *u, fl_error *err);
/* Restores the tree (idempotent). */
void fl_session_temp_undo(fl_temp_undo *u);

/* ---- transaction end (session_temp_xact.c) ---- */
/* ON COMMIT actions: DROP tables go, DELETE ROWS tables changed since their
 * last emptying are emptied; rolled_back also drops the tables created
 * inside the block. Failures are reported in err (first one) but every
 * table is processed. */
fl_status fl_session_temp_end_xact(fl_session_temp *t, bool rolled_back, fl_error *err);

/* Drops one temporary table by name: catalog entry and files (xact.c uses
 * it; so does DROP through the overlay). */
fl_status fl_session_temp_drop(fl_session_temp *t, const char *name, fl_error *err);

/* internal to session_temp*.c: the table list */
typedef struct fl_temp_table {
    char *name;
    char *loc;      /* current metadata location */
    char *dir;      /* the table's private folder (its location) */
    char *emptied;  /* metadata location after the last ON COMMIT DELETE ROWS */
    fl_temp_on_commit on_commit;
    bool in_block;  /* created inside a transaction block (ROLLBACK drops it) */
} fl_temp_table;
fl_temp_table *fl_session_temp_tables(fl_session_temp *t, uint32_t *n);

#endif
