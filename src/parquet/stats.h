/*
 * stats.h - Parquet statistics as floe values, and the pruning rules that
 * decide from min/max/null counts whether a row group or page may hold rows
 * matching a predicate term (stats.c).
 *
 * A column's statistics bytes are the PLAIN encoding of its physical type
 * (no length prefix for BYTE_ARRAY). The sort order depends on the logical
 * type: signed for INT32/INT64/decimals-as-ints, unsigned bytes for
 * strings/binary/decimals-as-bytes (two's complement compared as signed),
 * IEEE with NaN excluded for floats. Old writers' min/max (fields 1/2) are
 * only trusted where the signed order equals the type order.
 *
 * Pruning is conservative: when unsure, return "may match" (true).
 */
#ifndef FLOE_PARQUET_STATS_H
#define FLOE_PARQUET_STATS_H

#include <stdbool.h>

#include "floe/predicate.h"
#include "floe/types.h"
#include "floe/parquet_meta.h"

/* fl_pq_leaf_info, fl_pq_stat_to_value and fl_pq_stats_bounds: floe/parquet_meta.h. */

/* May any row in a chunk with these statistics satisfy term? num_values is the
 * chunk's value count (to recognise all-null chunks).
 * NaN: floe compares floats in total order (NaN above +inf, see
 * fl_value_compare), so a chunk that may hold NaN (nan_count unknown or > 0)
 * is never pruned for GT, GE or NE, nor for a NaN literal. The literal must
 * have the column's type (leaf->type; same decimal scale); otherwise the
 * answer is "may match". */
bool fl_pq_stats_may_match(const fl_pq_leaf_info *leaf, const fl_pq_statistics *st,
                           int64_t num_values, const fl_col_pred *term);

/* Same for page i of a column index. */
bool fl_pq_page_may_match(const fl_pq_leaf_info *leaf, const fl_pq_column_index *ci, uint32_t page,
                          const fl_col_pred *term);

/* The PLAIN bytes of v as stored in leaf's column (BYTE_ARRAY without its
 * length prefix): the statistics form and the bloom filter hash input.
 * *ptr points into scratch or at v's own bytes. Returns false when v cannot
 * be represented (type mismatch, out of the physical type's range). */
bool fl_pq_value_plain(const fl_pq_leaf_info *leaf, const fl_value *v, uint8_t scratch[32],
                       const uint8_t **ptr, size_t *len);

/* Encodes a value to the stats byte form of leaf (writer side). */
fl_status fl_pq_value_to_stat(const fl_pq_leaf_info *leaf, const fl_value *v, fl_pq_buf *out,
                              fl_error *err);

/* Whether a value's literal can be compared with the column's type (e.g. an
 * INT64 literal against an INT32 column); the caller casts first. */

/* ---- split-block bloom filters (bloom.c) ---- */

/* XXH64 with seed 0 of the PLAIN encoding of a value (spec: BloomFilter.md). */
uint64_t fl_pq_bloom_hash(const fl_pq_leaf_info *leaf, const fl_value *v);

typedef struct fl_pq_bloom {
    uint32_t *blocks; /* nblocks * 8 words, malloc'd */
    uint32_t nblocks;
} fl_pq_bloom;

/* Sizes a filter for ndv distinct values at false-positive rate fpp. */
fl_status fl_pq_bloom_init(fl_pq_bloom *b, uint64_t ndv, double fpp, fl_error *err);
void fl_pq_bloom_insert(fl_pq_bloom *b, uint64_t hash);
bool fl_pq_bloom_check(const fl_pq_bloom *b, uint64_t hash);
void fl_pq_bloom_free(fl_pq_bloom *b);
/* Serializes header (BloomFilterHeader thrift) + bitset. */
fl_status fl_pq_bloom_serialize(const fl_pq_bloom *b, fl_pq_buf *out, fl_error *err);
/* Parses a header + bitset at buf (borrowing nothing: copies the bitset). */
fl_status fl_pq_bloom_parse(const uint8_t *buf, size_t len, fl_pq_bloom *b, size_t *consumed,
                            fl_error *err);

#endif
