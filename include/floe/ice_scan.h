/*
 * ice_scan.h - reading Iceberg tables: scan planning and task reading.
 *
 * Planning (fl_ice_scan_plan_files) picks a snapshot (current, by id, as of a
 * timestamp, or by ref), reads its manifest list, drops manifests whose
 * partition summaries cannot match the filter (inclusive projection of the
 * filter through every transform, per spec), reads the remaining manifests
 * (through the shared manifest cache when given), drops data files whose
 * partition values or column metrics cannot match, and attaches to every
 * surviving data file the delete files that apply to it under the spec's
 * rules:
 *   - position delete files: same spec+partition (or unpartitioned/global
 *     for referenced_data_file matches) and data sequence number >= the data
 *     file's; file-scoped ones (referenced_data_file) only to that file;
 *   - equality delete files: same partition (global when unpartitioned), data
 *     sequence number strictly greater than the data file's;
 *   - deletion vectors (v3, Puffin blobs): only to their referenced data file;
 *     a DV supersedes position delete files of the same data file.
 *
 * Reading a task (fl_ice_task_reader) opens the data file, projects by field
 * id (schema evolution: renamed columns keep their ids, dropped ones are not
 * read, columns missing from an older file read as their initial-default or
 * null, promoted types widen: int->long, float->double, decimal precision),
 * falls back to the table's schema.name-mapping.default for files without
 * field ids, applies deletes (positions, equality rows, DVs), then applies the
 * residual filter. Batches come in the scan schema, in projection order.
 *
 * Ownership: a plan owns everything it points at (its arena); free it with
 * fl_ice_scan_plan_free(). The metadata, FileIO and cache passed in are
 * borrowed and must outlive the plan and its task readers. A plan may be read
 * by several threads at once (one task reader per thread).
 */
#ifndef FLOE_ICE_SCAN_H
#define FLOE_ICE_SCAN_H

#include "floe/export.h"

#include <stdbool.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"
#include "floe/ice_manifest.h"
#include "floe/iceberg.h"
#include "floe/io.h"
#include "floe/parquet.h"
#include "floe/predicate.h"
#include "floe/vector.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A cache of decoded immutable files shared by queries and threads (mutex
 * inside): manifests (by path and length), manifest lists (by path), table
 * metadata files (by location, fl_ice_table_load_cached) and Parquet footers
 * of data files read by scan tasks (by path and size); bounded by max_bytes
 * (LRU). */
typedef struct fl_ice_manifest_cache fl_ice_manifest_cache;
FL_API fl_status fl_ice_manifest_cache_new(size_t max_bytes, fl_ice_manifest_cache **out,
                                           fl_error *err);
FL_API void fl_ice_manifest_cache_free(fl_ice_manifest_cache *c); /* NULL allowed */
typedef struct fl_ice_cache_stats {
    uint64_t hits, misses, evictions, bytes;
    uint64_t entries; /* currently cached */
} fl_ice_cache_stats;
FL_API void fl_ice_manifest_cache_stats(const fl_ice_manifest_cache *c, fl_ice_cache_stats *out);

typedef enum fl_ice_snapshot_select {
    FL_ICE_SNAP_CURRENT = 0,
    FL_ICE_SNAP_ID,        /* snapshot_id */
    FL_ICE_SNAP_TIMESTAMP, /* the snapshot current at timestamp_ms (snapshot-log) */
    FL_ICE_SNAP_REF,       /* branch or tag named ref */
} fl_ice_snapshot_select;

typedef struct fl_ice_scan_options {
    fl_ice_snapshot_select select;
    int64_t snapshot_id;
    int64_t timestamp_ms;
    const char *ref;
    /* Columns to produce: names (case-sensitive unless case_insensitive) or
     * field ids of top-level columns; both empty = every column of the scan
     * schema. The scan schema is the table's current schema, or for
     * FL_ICE_SNAP_ID / TIMESTAMP the snapshot's schema-id when it has one;
     * has_schema_id overrides both (SQL resolves names once, at bind time:
     * the current schema unless the query travels in time). */
    const char *const *columns;
    uint32_t ncolumns;
    bool has_schema_id;
    int32_t schema_id;
    const int32_t *field_ids;
    uint32_t nfield_ids;
    /* field_ids (and columns, by name) may also name the metadata columns
     * (fl_ice_metadata_column): _file, _pos (the row's position in its data
     * file, which row-level DELETE/UPDATE use), _spec_id, _row_id and
     * _last_updated_sequence_number (row lineage: first_row_id + _pos and
     * the file's data sequence number; NULL without lineage), _partition
     * (fl_ice_partition_column), and Trino's "$path", "$file_size",
     * "$partition" (the partition path) and "$file_modified_time" (NULL
     * when the store does not tell it, fl_file.has_mtime). */
    bool case_insensitive;
    /* Filter: AND of column comparisons (names resolved against the scan
     * schema, or field ids). Used for pruning and applied to rows as the
     * residual; NULL = all rows. */
    const fl_predicate *filter;
    fl_ice_manifest_cache *cache; /* may be NULL */
    /* Accept deletion vectors stored as a bare DV blob instead of a Puffin
     * file (older DuckDB output). Default (false) rejects them, as DuckDB
     * and Java do. */
    bool lenient_dv;
    /* Terms on fields inside structs (a.b > 5, field id or dotted path) prune
     * files and row groups by the fields' bounds but are not applied to rows:
     * the caller filters them (the SQL scan does). false refuses such terms. */
    bool prune_nested;
} fl_ice_scan_options;

/* The metadata column named name ("_file", "$path", ...) or with field id
 * id (name NULL): its field (static), or NULL when there is none. */
FL_API const fl_field *fl_ice_metadata_column(const char *name, int32_t id);
/* Spark's _partition of table m: a struct of the union of its specs'
 * partition fields (by partition field id), types and names in a. Not in
 * fl_ice_metadata_column because its type is the table's. */
FL_API fl_status fl_ice_partition_column(const fl_ice_metadata *m, fl_arena *a, fl_field *out,
                                         fl_error *err);

typedef struct fl_ice_scan_task {
    const fl_ice_data_file *file;
    int64_t data_sequence_number;
    uint32_t ndeletes;
    const fl_ice_data_file **deletes; /* position, equality and DV files that apply */
    int64_t data_file_ordinal;        /* position of the file in the plan (stable order) */
} fl_ice_scan_task;

typedef struct fl_ice_scan_metrics {
    uint32_t manifests_total, manifests_pruned; /* data manifests */
    uint32_t delete_manifests;
    uint64_t files_total, files_pruned_partition, files_pruned_metrics;
    uint64_t delete_files;
    uint64_t planned_bytes;
} fl_ice_scan_metrics;

typedef struct fl_ice_scan_plan {
    fl_arena arena;                    /* owns everything below */
    const fl_ice_metadata *meta;       /* borrowed */
    const fl_ice_snapshot *snapshot;   /* NULL when the table has no snapshot */
    const fl_ice_schema *table_schema; /* the scan schema before projection */
    fl_schema schema;                  /* the projected output schema */
    uint32_t ntasks;
    fl_ice_scan_task *tasks;
    fl_ice_scan_metrics metrics;
} fl_ice_scan_plan;

/* Plans a scan of table m. Errors name the manifest list or manifest. A
 * missing snapshot id / ref / a timestamp before the first snapshot is
 * FL_ENOTFOUND. */
FL_API fl_status fl_ice_scan_plan_files(fl_fileio *io, const fl_ice_metadata *m,
                                        const fl_ice_scan_options *opt, fl_ice_scan_plan **out,
                                        fl_error *err);
FL_API void fl_ice_scan_plan_free(fl_ice_scan_plan *p); /* NULL allowed */

/* Row count from metadata alone: exact when no delete file applies to any
 * planned file and the filter is settled by partition values and metrics
 * (every surviving file matches entirely). *exact false means the caller
 * must scan. */
FL_API fl_status fl_ice_scan_count(const fl_ice_scan_plan *p, int64_t *count, bool *exact,
                                   fl_error *err);

typedef struct fl_ice_task_reader fl_ice_task_reader;
FL_API fl_status fl_ice_task_reader_open(fl_fileio *io, const fl_ice_scan_plan *p, uint32_t task,
                                         fl_ice_task_reader **out, fl_error *err);
/* b must be initialized with fl_batch_init(b, &p->schema). Rows deleted or
 * failing the residual are removed (or deselected through b->sel). */
FL_API fl_status fl_ice_task_reader_next(fl_ice_task_reader *r, fl_batch *b, bool *eof,
                                         fl_error *err);
FL_API void fl_ice_task_reader_close(fl_ice_task_reader *r); /* NULL allowed */
/* Row groups (total, pruned by the filter's statistics), pages and bytes of
 * the task's Parquet file read so far; zeros before the file was opened. */
FL_API void fl_ice_task_reader_stats(const fl_ice_task_reader *r, fl_parquet_scan_stats *out);

/* Whole-table convenience: plans, then reads every task in order. */
typedef struct fl_ice_scan fl_ice_scan;
FL_API fl_status fl_ice_scan_open(fl_fileio *io, const fl_ice_metadata *m,
                                  const fl_ice_scan_options *opt, fl_ice_scan **out, fl_error *err);
FL_API const fl_schema *fl_ice_scan_schema(const fl_ice_scan *s);
FL_API const fl_ice_scan_plan *fl_ice_scan_get_plan(const fl_ice_scan *s);
FL_API fl_status fl_ice_scan_next(fl_ice_scan *s, fl_batch *b, bool *eof, fl_error *err);
FL_API void fl_ice_scan_close(fl_ice_scan *s); /* NULL allowed */

/* How a filter relates to the rows of one file, from its partition values
 * and column metrics: no row can match, some rows may match, or every row
 * matches (strict evaluation, used for metadata-only deletes and exact
 * counts). s is the schema the filter's names resolve against. */
typedef enum fl_ice_match {
    FL_ICE_MATCH_NONE = 0,
    FL_ICE_MATCH_SOME = 1,
    FL_ICE_MATCH_ALL = 2,
} fl_ice_match;
FL_API fl_ice_match fl_ice_file_match(const fl_ice_metadata *m, const fl_ice_schema *s,
                                      const fl_predicate *filter, const fl_ice_data_file *f);

/* Selects the snapshot per opt (NULL *out when the table is empty and
 * select is CURRENT). */
FL_API fl_status fl_ice_select_snapshot(const fl_ice_metadata *m, const fl_ice_scan_options *opt,
                                        const fl_ice_snapshot **out, fl_error *err);

/* ---- metadata tables ------------------------------------------------------ */

/* Metadata tables as Trino/Spark name them: "snapshots", "history", "refs",
 * "manifests", "all_manifests", "files", "data_files", "delete_files",
 * "entries", "partitions". Column names and types follow the Java reference's
 * metadata tables. opt selects the snapshot (manifests/files/entries/partitions). */
typedef struct fl_ice_metatable fl_ice_metatable;
FL_API fl_status fl_ice_metatable_open(fl_fileio *io, const fl_ice_metadata *m, const char *name,
                                       const fl_ice_scan_options *opt, fl_ice_metatable **out,
                                       fl_error *err);
FL_API const fl_schema *fl_ice_metatable_schema(const fl_ice_metatable *t);
FL_API fl_status fl_ice_metatable_next(fl_ice_metatable *t, fl_batch *b, bool *eof, fl_error *err);
FL_API void fl_ice_metatable_close(fl_ice_metatable *t); /* NULL allowed */

/* ---- deletion vectors and Puffin ----------------------------------------- */

/* A set of row positions (a 64-bit roaring bitmap decoded into sorted runs). */
typedef struct fl_ice_position_set {
    uint64_t n; /* number of positions */
    uint64_t nranges;
    uint64_t *ranges; /* [start, end) pairs, sorted, disjoint: 2*nranges values (malloc'd) */
} fl_ice_position_set;
FL_API void fl_ice_position_set_free(fl_ice_position_set *s);
FL_API bool fl_ice_position_set_contains(const fl_ice_position_set *s, uint64_t pos);

/* Reads the deletion-vector blob of DV file entry f (Puffin
 * "deletion-vector-v1": length, magic D1 D3 39 64, portable 64-bit roaring,
 * CRC-32) and checks its cardinality against f->record_count. */
FL_API fl_status fl_ice_dv_read(fl_fileio *io, const fl_ice_data_file *f, fl_ice_position_set *out,
                                fl_error *err);
/* Decodes a DV blob's bytes (as above). */
FL_API fl_status fl_ice_dv_decode(const uint8_t *buf, size_t len, fl_ice_position_set *out,
                                  fl_error *err);

/* ---- row-group slices of a task (src/iceberg/scan_task.c) ----
 *
 * Split planning: a task is a whole data file, and one big file would keep a
 * single thread busy, so a reader may read a task as slices of consecutive
 * row groups, one morsel each, like Iceberg's split planning by
 * split_offsets. A slice keeps the task's semantics: position deletes,
 * deletion vectors and _pos use the file positions of the slice's rows,
 * equality deletes and the residual filter apply per row, and row-group /
 * page pruning by statistics applies inside the slice. */

/* Row groups of task's data file, for split planning: *nrg, and when rows
 * is not NULL the row count of each of the first cap row groups, 0 for one
 * that cannot be read in row ranges (no offset index: skipping rows would
 * decode them). Non-Parquet files: *nrg 1 and rows[0] 0. Without rows, a
 * manifest listing one split offset gives *nrg 1 without reading the footer. */
FL_API fl_status fl_ice_task_row_groups(fl_fileio *io, const fl_ice_scan_plan *p, uint32_t task,
                                        uint32_t *nrg, int64_t *rows, uint32_t cap,
                                        fl_error *err);

/* A slice of a task's file: row groups [rg_first, rg_first + rg_count)
 * (rg_count 0 = the whole file), or with row_hi > 0 the rows [row_lo, row_hi)
 * of row group rg_first alone (rg_count 1): one of several morsels splitting
 * a big row group. */
typedef struct fl_ice_slice {
    uint32_t rg_first, rg_count;
    int64_t row_lo, row_hi;
} fl_ice_slice;

/* Opens a reader of a slice of the task's file (NULL = the whole file:
 * fl_ice_task_reader_open). */
FL_API fl_status fl_ice_task_reader_open_slice(fl_fileio *io, const fl_ice_scan_plan *p,
                                               uint32_t task, const fl_ice_slice *slice,
                                               fl_ice_task_reader **out, fl_error *err);

/* Moves an open reader to another slice of the same task (keeps the file,
 * footer and decoded deletes; restarts positions at the slice's first row).
 * fl_ice_task_reader_stats keeps counting over every slice read. */
FL_API fl_status fl_ice_task_reader_seek(fl_ice_task_reader *r, const fl_ice_slice *slice,
                                         fl_error *err);

/* The task the reader reads. */
FL_API const fl_ice_scan_task *fl_ice_task_reader_task(const fl_ice_task_reader *r);

/* ---- footers through the read cache (src/iceberg/manifest_cache.c) ---- */

/* A pinned entry of a manifest cache. */
typedef struct fl_ice_cache_entry fl_ice_cache_entry;
/* Releases e (NULL allowed), acquired from c (which may be NULL). */
FL_API void fl_ice_cache_release(fl_ice_cache_entry *e, fl_ice_manifest_cache *c);

/* Opens a Parquet reader on f (its path and size are the key) whose decoded
 * footer is shared with the cache entry *out: release the entry only after
 * fl_parquet_close(*reader). With c NULL this is fl_parquet_open and *out is
 * NULL. */
FL_API fl_status fl_ice_cache_open_parquet(fl_ice_manifest_cache *c, fl_file *f,
                                           fl_ice_cache_entry **out, fl_parquet_reader **reader,
                                           fl_error *err);

#ifdef __cplusplus
}
#endif
#endif
