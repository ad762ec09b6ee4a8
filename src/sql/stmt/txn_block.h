/*
 * txn_block.h - transaction blocks (BEGIN ... COMMIT/ROLLBACK) of one SQL
 * session: staged Iceberg commits.
 *
 * DESIGN
 *   Outside a block every DML statement is one Iceberg commit. Inside a
 *   block a DML statement still writes its data and delete files and records
 *   its operations in a per-statement fl_ice_txn, but instead of committing
 *   that txn hands it to the block (fl_txn_block_stage). The block keeps one
 *   *combined* txn per table, begun on the table as the first statement
 *   found it, and moves the statement's operations into it (their states,
 *   snapshot ids and files stay where they are: the statement txn is kept
 *   alive until the block ends). After each statement the block builds a
 *   *preview*: the new operations are built exactly as a commit attempt
 *   would (fl_ice_txn_preview, ice_table.h), against the previous preview, and the
 *   resulting metadata is written as a private metadata file that no
 *   catalog points at. The session plans every later statement of the block
 *   through a wrapping catalog (txn_catalog.c) whose load_table answers that
 *   preview for staged tables, so the session reads its own writes while
 *   other sessions still see the committed table.
 *
 *   COMMIT commits each combined txn with fl_ice_txn_commit: a fresh attempt
 *   against the latest metadata, so concurrent appends are rebased and row
 *   deltas validated exactly as for a single statement (FL_ECONFLICT ->
 *   SQLSTATE 40001, the block is rolled back). ROLLBACK aborts the combined
 *   txns, which deletes every data, delete and manifest file the block
 *   wrote. Preview files (metadata, manifest lists, merged manifests) are
 *   deleted when the block ends either way.
 *
 *   Savepoints remember, per staged table, how many operations and owned
 *   files the combined txn had; ROLLBACK TO drops the later ones (deleting
 *   their files) and rebuilds the preview from the committed base.
 *
 *   Several staged tables commit one after another (each atomically); when
 *   a later one fails the earlier ones stay committed and the error says so.
 *
 * OWNERSHIP
 *   The block borrows the session's catalog (inner) for its life. It owns
 *   the combined txns, the statement txns handed to it, the tables the
 *   combined txns run on and the preview metadata. Not thread-safe: used by
 *   its session's thread only.
 */
#ifndef FLOE_SQL_TXN_BLOCK_H
#define FLOE_SQL_TXN_BLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/catalog.h"
#include "floe/error.h"
#include "floe/ice_table.h"

typedef struct fl_txn_block fl_txn_block;

fl_status fl_txn_block_open(fl_catalog *inner, bool read_only, fl_txn_block **out,
                            fl_error *err);

/* The catalog statements of the block plan through (owned by the block). */
fl_catalog *fl_txn_block_catalog(fl_txn_block *b);

bool fl_txn_block_read_only(const fl_txn_block *b);
bool fl_txn_block_failed(const fl_txn_block *b);
void fl_txn_block_set_failed(fl_txn_block *b);
/* Number of tables with staged changes. */
uint32_t fl_txn_block_ntables(const fl_txn_block *b);

/* The preview metadata location of a staged table, NULL when the block has
 * not changed it. Block-owned string. */
const char *fl_txn_block_preview(const fl_txn_block *b, const fl_table_ident *id);

/* Takes sx (a statement's txn, begun on the table as the statement loaded it
 * through fl_txn_block_catalog) in every case: its operations join the
 * table's combined txn and the preview is rebuilt. *snapshot_id gets the
 * staged snapshot's id (the id it will have once committed). On failure
 * the block is marked failed. */
fl_status fl_txn_block_stage(fl_txn_block *b, fl_catalog *inner, const fl_table_ident *id,
                             fl_ice_txn *sx, int64_t *snapshot_id, fl_error *err);

/* Commits every staged table, then frees the block. FL_ECONFLICT when a
 * concurrent change conflicts (the uncommitted tables are rolled back). */
fl_status fl_txn_block_commit(fl_txn_block *b, fl_error *err);
/* Discards every staged change (deleting the files written), frees b. NULL ok. */
void fl_txn_block_rollback(fl_txn_block *b);

/* SAVEPOINT name / RELEASE [SAVEPOINT] name / ROLLBACK TO [SAVEPOINT] name.
 * FL_ENOTFOUND (SQLSTATE 3B001) for an unknown name. ROLLBACK TO clears
 * the failed state. */
fl_status fl_txn_block_savepoint(fl_txn_block *b, const char *name, fl_error *err);
fl_status fl_txn_block_release(fl_txn_block *b, const char *name, fl_error *err);
fl_status fl_txn_block_rollback_to(fl_txn_block *b, const char *name, fl_error *err);

/* txn_catalog.c: a catalog that delegates to inner except for tables the
 * block staged (load answers the preview; commit, drop and rename are
 * refused with FL_EUNSUPPORTED while they have uncommitted changes). */
fl_status fl_txn_catalog_new(fl_catalog *inner, fl_txn_block *b, fl_catalog **out, fl_error *err);
void fl_txn_catalog_free(fl_catalog *c); /* NULL allowed */

#endif
