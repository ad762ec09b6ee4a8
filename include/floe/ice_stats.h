/*
 * ice_stats.h - Iceberg column statistics: theta sketches (NDV), Puffin
 * statistics files and the table metadata's "statistics" entries.
 *
 * A theta sketch (fl_theta_sketch) is Apache DataSketches' QuickSelect
 * update sketch: values are hashed with MurmurHash3_x64_128 (seed 9001 by
 * default; the sketch hash is h[0] >> 1), the 2^lg_k smallest hashes below
 * theta are kept, and fl_theta_serialize writes the library's compact,
 * ordered serialization (serial version 3), so sketches written here read
 * in DataSketches (Java, C++, Python) and Trino/Spark read floe's NDV.
 * Column values are fed as Iceberg's single-value binary serialization
 * (spec Appendix D), as Trino does; nulls and empty byte strings are not
 * counted (DataSketches ignores empty arrays).
 *
 * A statistics file is a Puffin file with one "apache-datasketches-theta-v1"
 * blob per column (property "ndv"), registered in the table metadata for
 * one snapshot (fl_ice_update SET_STATISTICS). Readers of NDV only read the
 * footer (fl_ice_stats_read_ndv).
 */
#ifndef FLOE_ICE_STATS_H
#define FLOE_ICE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"
#include "floe/export.h"
#include "floe/iceberg.h"
#include "floe/io.h"
#include "floe/types.h"
#include "floe/vector.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FL_THETA_DEFAULT_LG_K 12    /* 4096 nominal entries */
#define FL_THETA_DEFAULT_SEED 9001u /* DataSketches' default update seed */
#define FL_THETA_MAX ((uint64_t)INT64_MAX)
#define FL_ICE_BLOB_THETA "apache-datasketches-theta-v1"

/* MurmurHash3_x64_128 of len bytes with a 64-bit seed (h1 = h2 = seed). */
FL_API void fl_murmur3_x64_128(const void *data, size_t len, uint64_t seed, uint64_t out[2]);
/* The 16-bit seed hash DataSketches stores in a sketch (9001: 0x93CC). */
FL_API uint16_t fl_theta_seed_hash(uint64_t seed);

typedef struct fl_theta_sketch fl_theta_sketch;

/* lg_k in [4, 26]; the table (2^(lg_k+1) slots) is allocated here, so
 * updates never allocate. */
FL_API fl_status fl_theta_new(uint8_t lg_k, uint64_t seed, fl_theta_sketch **out, fl_error *err);
FL_API void fl_theta_free(fl_theta_sketch *s); /* NULL allowed */
/* One value's bytes (an empty array is ignored, as in DataSketches). */
FL_API void fl_theta_update(fl_theta_sketch *s, const void *data, size_t len);
/* A 63-bit hash as computed by the update (0 and >= theta are ignored). */
FL_API void fl_theta_update_hash(fl_theta_sketch *s, uint64_t hash);
/* A scalar value as its Appendix D bytes (NULL values are skipped). */
FL_API fl_status fl_theta_update_value(fl_theta_sketch *s, const fl_value *v, fl_error *err);
/* The live rows of vector v (rows sel->idx[..], or 0..nrows-1 without sel). */
FL_API fl_status fl_theta_update_vector(fl_theta_sketch *s, const fl_vector *v, const fl_sel *sel,
                                        uint32_t nrows, fl_error *err);

FL_API bool fl_theta_is_empty(const fl_theta_sketch *s);
FL_API uint64_t fl_theta_theta(const fl_theta_sketch *s); /* FL_THETA_MAX when exact */
/* Hashes below theta (what the compact form keeps). */
FL_API uint32_t fl_theta_retained(const fl_theta_sketch *s);
/* retained / (theta / 2^63), computed as DataSketches does. */
FL_API double fl_theta_estimate(const fl_theta_sketch *s);
/* The compact ordered serialization (serial version 3, family 3): 8 bytes
 * when empty, 16 for one hash in exact mode, else 16 (exact) or 24
 * (estimating) bytes of preamble and the sorted hashes. *out is malloc'd. */
FL_API fl_status fl_theta_serialize(const fl_theta_sketch *s, uint8_t **out, size_t *len,
                                    fl_error *err);

/* ---- statistics files ---- */

/* Writes one Puffin statistics file for snapshot_id of m (through io, into
 * the table's metadata folder, created exclusively): one theta blob per
 * column fields[i] with sketches[i], property ndv = (int64) estimate.
 * *out describes it (strings and arrays in a), ready for SET_STATISTICS. */
FL_API fl_status fl_ice_stats_write_theta(fl_fileio *io, const fl_ice_metadata *m,
                                          int64_t snapshot_id, const int32_t *fields,
                                          fl_theta_sketch *const *sketches, uint32_t n, fl_arena *a,
                                          fl_ice_statistics_file *out, fl_error *err);

/* The statistics entry for snapshot_id, else the one of its nearest
 * ancestor that has one; NULL when none. */
FL_API const fl_ice_statistics_file *fl_ice_stats_find(const fl_ice_metadata *m,
                                                       int64_t snapshot_id);

typedef struct fl_ice_column_ndv {
    int32_t field_id;
    int64_t ndv;
} fl_ice_column_ndv;

/* The NDV of every single-column theta blob with an "ndv" property, read
 * from the footer of statistics file sf (blobs are not read). Arena array. */
FL_API fl_status fl_ice_stats_read_ndv(fl_fileio *io, const fl_ice_statistics_file *sf, fl_arena *a,
                                       fl_ice_column_ndv **out, uint32_t *n, fl_error *err);

#ifdef __cplusplus
}
#endif
#endif
