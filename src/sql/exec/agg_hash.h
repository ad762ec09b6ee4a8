/*
 * agg_hash.h - hashing of group keys for the aggregation core (op_agg.c).
 *
 * One hash function for every key hashed by the aggregate (thread tables,
 * merge, spilled rows, DISTINCT rows), so equal keys always land in the same
 * slot and partition. Typed loops per key type (no per-row dispatch);
 * dictionary-encoded keys hash each dictionary entry once per batch.
 */
#ifndef FLOE_SQL_EXEC_AGG_HASH_H
#define FLOE_SQL_EXEC_AGG_HASH_H

#include <stdint.h>

#include "floe/error.h"
#include "floe/vector.h"

/* Scratch for dictionary-entry hashes; zero-initialized, freed with
 * agg_hash_scratch_free. */
typedef struct agg_hash_scratch {
    uint64_t *h;
    uint32_t cap;
} agg_hash_scratch;

void agg_hash_scratch_free(agg_hash_scratch *s);

/* h[row] = hash of (kv[0][row], ..., kv[nk-1][row]) for the rows of sel
 * (NULL = 0..nrows-1); nk == 0 gives 0. sc may be NULL (no dictionary
 * shortcut). FL_EUNSUPPORTED for nested key types. */
fl_status agg_hash_keys(const fl_vector *const *kv, uint32_t nk, const fl_sel *sel, uint32_t nrows,
                        uint64_t *h, agg_hash_scratch *sc, fl_error *err);

#endif
