/*
 * agg_pack.h - a small-group cache in front of the aggregate's hash table:
 * group keys packed into 16 bytes map straight to their group id.
 *
 * When every key of a grouping set is a boolean, an integer, a date or
 * timestamp, or a string, and their packed form fits 16 bytes (strings get
 * a length byte and up to L bytes each, L from the space left), each row's
 * key is packed into two words; a row whose packed key is in the cache gets
 * its group without hashing the key columns or comparing them one by one.
 * Rows that miss (or whose strings are longer than L) take the hash table
 * path, and the group they find is added to the cache. The packing is
 * injective (value bytes, a NULL marker per key, string lengths), so equal
 * packed keys mean equal keys. Meant for few groups (TPC-H Q1 has 4): the
 * cache stops growing at AGG_PACK_MAX groups and is then switched off.
 *
 * Ownership: one cache per thread table; agg_pack_free releases it. Group
 * ids cached are those of that table, so the cache is dropped whenever the
 * table is handed over or reset.
 */
#ifndef FLOE_SQL_EXEC_AGG_PACK_H
#define FLOE_SQL_EXEC_AGG_PACK_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/error.h"
#include "floe/types.h"
#include "floe/vector.h"

#define AGG_PACK_MAX 1024 /* groups cached at most; more: the cache turns off */
#define AGG_PACK_KEYS 8

typedef struct agg_pack {
    bool planned;
    bool off; /* not packable, or too many groups */
    uint32_t nkeys;
    uint8_t kind[AGG_PACK_KEYS];
    uint8_t at[AGG_PACK_KEYS];    /* byte offset of the key in the 16 bytes */
    uint8_t room[AGG_PACK_KEYS];  /* strings: most bytes packed */
    uint64_t *slot_key;           /* 2 words per slot */
    uint32_t *slot_gid;           /* group id + 1; 0 = empty */
    uint32_t cap, count;
    uint64_t *pk;                 /* per row: packed key, 2 words */
    uint8_t *ok;                  /* per row: packable */
    uint32_t rows_cap;
} agg_pack;

/* Decides from the key types whether keys pack (sets p->off otherwise). */
void agg_pack_plan(agg_pack *p, const fl_schema *kschema);
void agg_pack_free(agg_pack *p);

/* Packs the keys kv of the rows sel (NULL = 0..nrows-1) into p->pk / p->ok. */
fl_status agg_pack_rows(agg_pack *p, const fl_vector *const *kv, const fl_sel *sel, uint32_t nrows,
                        fl_error *err);

/* The cached group of row's packed key, or UINT32_MAX. */
uint32_t agg_pack_find(const agg_pack *p, uint32_t row);

/* Caches row's packed key (p->ok[row] must be set) -> gid; turns the cache
 * off when it would pass AGG_PACK_MAX groups. */
fl_status agg_pack_add(agg_pack *p, uint32_t row, uint32_t gid, fl_error *err);

#endif
