/*
 * pg_target.h - one source table of a Postgres CDC pipeline and the Iceberg
 * table it lands in (pg_target.c); the pipeline itself is src_pgcdc.c.
 * Private to src/ingest.
 *
 * A target binds a source relation (its latest Relation message, or the
 * snapshot reader's description) to the table: each table column takes the
 * source column of the same name (absent ones are NULL), and the key is the
 * table's identifier fields, which must be the relation's replica identity
 * (its primary key). A missing table is created from the first relation:
 * the source's columns and types, the key as identifier fields (required),
 * unpartitioned, format version 2.
 *
 * Changes fold into the target's change map (pg_changes.h); pgt_commit
 * writes the map as equality deletes plus final rows and checkpoints the
 * sink with the position. Snapshot rows skip the map (they are unique) and
 * go straight to the sink in batches.
 *
 * Ownership: the target owns its sink, arena, map and batches; the catalog
 * is borrowed.
 */
#ifndef FLOE_INGEST_PG_TARGET_H
#define FLOE_INGEST_PG_TARGET_H

#include "floe/ingest.h"
#include "ingest/pg_cdc.h"
#include "ingest/pg_changes.h"

typedef struct pg_target {
    char *nsp, *rel;     /* the source table (malloc'd) */
    uint32_t oid;        /* of its latest relation, 0 before one */
    fl_table_ident id;   /* the Iceberg table (strings in arena) */
    fl_arena arena;      /* id, column descriptions (per bind) */
    fl_arena bind_arena; /* tcols, src_of, keys: replaced per bind */
    fl_arena scratch;    /* values being converted into rows */
    fl_ingest_sink *sink;
    bool has_pos;
    pgcdc_lsn pos; /* transactions ending at or before it are in the table */
    /* per table column: the source column it takes (name NULL when none) */
    uint32_t ncols;
    pgcdc_column *tcols;
    int32_t *src_of;    /* table column -> source column index, -1 none */
    uint32_t *keys;     /* source column indexes of the key, in identifier order */
    uint32_t *key_tcol; /* the same keys' table columns */
    uint32_t nkeys;
    bool keyed; /* the table has identifier fields (else inserts only) */
    pgch_map changes;
    bool truncated;
    uint64_t serial; /* keys for unkeyed tables: every insert is new */
    fl_batch rows;   /* conversion buffer, the sink's schema */
    const fl_schema *rows_schema;
    fl_buf key;         /* an encoded key (scratch) */
    fl_arena key_arena; /* its values (reset per key) */
} pg_target;

typedef struct pgt_config {
    fl_catalog *cat;
    const char *pipeline;
    const char *slot_key; /* the position's key: "pg:<slot>" */
    fl_ingest_options sink;
} pgt_config;

/* A target for source nsp.rel landing in ns.<name> (name: rel, or
 * nsp_rel outside "public"); its table and sink are opened by pgt_open.
 * NULL when out of memory. */
pg_target *pgt_new(const fl_namespace *ns, const char *nsp, const char *rel);
void pgt_free(pg_target *t);

/* Opens the sink when the table exists (reads the committed position);
 * *exists false otherwise (nothing opened). */
fl_status pgt_open(pg_target *t, const pgt_config *cfg, bool *exists, fl_error *err);
/* Binds relation rel (creating the table and opening the sink first when
 * needed). Errors name the source table and the column. */
fl_status pgt_bind(pg_target *t, const pgt_config *cfg, const pgcdc_rel *rel, fl_error *err);

/* Folds one change of the bound relation. */
fl_status pgt_change(pg_target *t, const pgcdc_change *c, fl_error *err);
/* Source TRUNCATE: what is buffered is dropped and the commit removes every older row. */
void pgt_truncate(pg_target *t);
/* A snapshot row (an insert with text datums), written to the sink in batches. */
fl_status pgt_snapshot_row(pg_target *t, const pgcdc_tuple *row, fl_error *err);

/* Something to commit: changes, a truncation, or snapshot rows. */
bool pgt_pending(const pg_target *t);
uint64_t pgt_pending_changes(const pg_target *t);
/* Writes what is pending and checkpoints the sink with position lsn
 * (its key cfg->slot_key). *rows gets the rows written. */
fl_status pgt_commit(pg_target *t, const pgt_config *cfg, pgcdc_lsn lsn, uint64_t *rows,
                     fl_error *err);

#endif
