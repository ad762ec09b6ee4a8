/*
 * pg_changes.h - one table's change stream between two checkpoints,
 * collapsed to the final state of each key (pg_changes.c), for the Postgres
 * CDC pipeline (src_pgcdc.c). Private to src/ingest.
 *
 * Why collapse: a checkpoint commits each changed key as an equality delete
 * (of the rows of earlier checkpoints) plus at most one new row, because
 * rows added in the same snapshot as an equality delete are not deleted by
 * it. Insert, update, update, delete of one key within a checkpoint is
 * therefore "key deleted"; delete then insert is "key replaced".
 *
 * A row is stored as one datum per TABLE column (not per source column), so
 * a later Relation message that reorders or adds source columns does not
 * change what is already buffered. Datum bytes live in the map's arena,
 * which the checkpoint resets. Besides pgoutput's datum kinds a row may hold
 * PGCH_VALUE: data points to an fl_value (in the arena) fetched from the
 * table for an unchanged TOAST column.
 */
#ifndef FLOE_INGEST_PG_CHANGES_H
#define FLOE_INGEST_PG_CHANGES_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/buf.h"
#include "floe/error.h"
#include "ingest/pg_cdc.h"

#define PGCH_VALUE ((pgcdc_datum_kind)'v')

typedef struct pgch_entry {
    const uint8_t *key; /* the encoded key (pgch_key), in the arena */
    uint32_t klen;
    uint64_t hash;
    bool live;        /* the key's final state is a row (else deleted) */
    bool was_absent;  /* its first change here was an INSERT: no older row to delete */
    bool unresolved;  /* row has unchanged TOAST datums to fetch from the table */
    pgcdc_datum *row; /* ncols datums when live, else NULL */
} pgch_entry;

typedef struct pgch_map {
    fl_arena arena;
    uint32_t ncols; /* table columns per row */
    pgch_entry *v;  /* in first-change order (malloc'd) */
    uint32_t n, cap;
    uint32_t *slots; /* open addressing: entry index + 1, 0 = empty (malloc'd) */
    uint32_t nslots;
    uint64_t changes; /* changes folded in since the reset */
} pgch_map;

void pgch_init(pgch_map *m, uint32_t ncols);
void pgch_reset(pgch_map *m); /* after a checkpoint; keeps ncols */
void pgch_free(pgch_map *m);

/* The entry of key (copied when new); *created tells a new one (live false,
 * was_absent false, row NULL). */
fl_status pgch_get(pgch_map *m, const uint8_t *key, uint32_t klen, pgch_entry **out, bool *created,
                   fl_error *err);

/* The entry of key, or NULL. */
pgch_entry *pgch_find(pgch_map *m, const uint8_t *key, uint32_t klen);

/* A copy of d in the map's arena (bytes included). */
fl_status pgch_copy_datum(pgch_map *m, const pgcdc_datum *d, pgcdc_datum *out, fl_error *err);

#endif
