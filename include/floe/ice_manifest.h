/*
 * ice_manifest.h - Iceberg manifests and manifest lists (spec "Manifests",
 * "Manifest Lists"), the Avro files that list a snapshot's data and delete
 * files with their partition values and column metrics.
 *
 * Reading resolves every field by its Avro field-id, never by name, so files
 * written with old or foreign field names (v1 Spark, BigQuery, iceberg-rust)
 * read the same. v1 files get the v2 defaults the spec gives them (content
 * data, sequence numbers 0). Sequence numbers and snapshot ids that an entry
 * leaves null are inherited from its manifest-list entry, as the spec says:
 * ADDED entries take the manifest's sequence_number; every other null is an
 * error naming the manifest file and the entry index.
 *
 * Partition tuples are typed: partition[i] is a scalar of the result type of
 * spec field i's transform applied to its source column (found in any of the
 * table's schemas, since the source may have been dropped since).
 *
 * Writing produces files that Java, PyIceberg, Spark, Trino and DuckDB read:
 * the spec's Avro schemas for format v1, v2 or v3 with every field-id, the
 * header keys schema, schema-id, partition-spec, partition-spec-id,
 * format-version and content, and the partition summaries and counts in the
 * manifest-list entry. Bounds use the single-value serialization; string and
 * binary bounds are truncated the way Java's MetricsModes truncate(16) does
 * (lower: prefix; upper: prefix with the last code point / byte incremented,
 * dropped when no increment exists).
 *
 * Ownership: everything read lives in the arena passed by the caller. Writers
 * are freed by _close or _abort.
 */
#ifndef FLOE_ICE_MANIFEST_H
#define FLOE_ICE_MANIFEST_H

#include "floe/export.h"

#include <stdbool.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"
#include "floe/iceberg.h"
#include "floe/io.h"
#include "floe/parquet.h"
#include "floe/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* data_file.content */
typedef enum fl_ice_content {
    FL_ICE_CONTENT_DATA = 0,
    FL_ICE_CONTENT_POSITION_DELETES = 1,
    FL_ICE_CONTENT_EQUALITY_DELETES = 2,
} fl_ice_content;

/* manifest_file.content (manifest lists) */
typedef enum fl_ice_manifest_content {
    FL_ICE_MANIFEST_DATA = 0,
    FL_ICE_MANIFEST_DELETES = 1,
} fl_ice_manifest_content;

/* manifest_entry.status */
typedef enum fl_ice_entry_status {
    FL_ICE_STATUS_EXISTING = 0,
    FL_ICE_STATUS_ADDED = 1,
    FL_ICE_STATUS_DELETED = 2,
} fl_ice_entry_status;

#define FL_ICE_UNASSIGNED_SEQ (-1) /* sequence number not known until commit */

/* Reserved field ids of position delete files (spec "Reserved Field IDs"). */
#define FL_ICE_FIELD_ID_DELETE_FILE_PATH 2147483546
#define FL_ICE_FIELD_ID_DELETE_POS 2147483545
#define FL_ICE_FIELD_ID_ROW_POS 2147483645          /* _pos metadata column */
#define FL_ICE_FIELD_ID_FILE_PATH 2147483646        /* _file metadata column */
#define FL_ICE_FIELD_ID_SPEC_ID 2147483643          /* _spec_id */
#define FL_ICE_FIELD_ID_PARTITION 2147483642        /* _partition (struct of the row's partition) */
#define FL_ICE_FIELD_ID_ROW_ID 2147483540           /* _row_id (row lineage, v3) */
#define FL_ICE_FIELD_ID_LAST_UPDATED_SEQ 2147483539 /* _last_updated_sequence_number */
/* floe's scan-only ids for Trino's hidden columns, in the range the spec
 * reserves but does not assign; never written to a file or to metadata */
#define FL_ICE_FIELD_ID_TRINO_PATH 2147483500       /* "$path" (= _file) */
#define FL_ICE_FIELD_ID_TRINO_FILE_SIZE 2147483501  /* "$file_size" */
#define FL_ICE_FIELD_ID_TRINO_PARTITION 2147483502  /* "$partition" (partition path) */
#define FL_ICE_FIELD_ID_TRINO_FILE_MTIME 2147483503 /* "$file_modified_time" */

/* The metrics of one column of a data file: the six per-field-id maps of
 * data_file merged. Absent values are -1 / has_* false. */
typedef struct fl_ice_column_metrics {
    int32_t field_id;
    int64_t column_size;
    int64_t value_count;
    int64_t null_value_count;
    int64_t nan_value_count;
    bool has_lower, has_upper;
    const uint8_t *lower; /* single-value serialization (iceberg.h) */
    uint32_t lower_len;
    const uint8_t *upper;
    uint32_t upper_len;
} fl_ice_column_metrics;

typedef struct fl_ice_data_file {
    fl_ice_content content;
    const char *file_path;
    const char *file_format; /* "PARQUET", "AVRO", "ORC", "PUFFIN" (upper case as stored) */
    int32_t spec_id;         /* the partition-spec-id of the manifest holding it */
    uint32_t npartition;
    fl_value *partition; /* one per spec field, in spec order, typed (see above) */
    int64_t record_count;
    int64_t file_size_in_bytes;
    uint32_t nmetrics;
    fl_ice_column_metrics *metrics; /* sorted by field_id, unique */
    const uint8_t *key_metadata;    /* NULL when absent */
    uint32_t key_metadata_len;
    uint32_t nsplit_offsets;
    int64_t *split_offsets;
    uint32_t nequality_ids;
    int32_t *equality_ids;
    bool has_sort_order_id;
    int32_t sort_order_id;
    bool has_first_row_id; /* v3 */
    int64_t first_row_id;
    const char *referenced_data_file; /* v2 position deletes (optional) / v3 DVs, or NULL */
    bool has_content_offset;          /* v3 deletion vectors: blob position in the Puffin file */
    int64_t content_offset;
    int64_t content_size_in_bytes;
} fl_ice_data_file;

/* The metrics of field_id in f, or NULL. */
FL_API const fl_ice_column_metrics *fl_ice_data_file_metrics(const fl_ice_data_file *f,
                                                             int32_t field_id);

typedef struct fl_ice_manifest_entry {
    fl_ice_entry_status status;
    int64_t snapshot_id;          /* after inheritance */
    int64_t sequence_number;      /* data sequence number, after inheritance */
    int64_t file_sequence_number; /* after inheritance */
    fl_ice_data_file file;
} fl_ice_manifest_entry;

/* field_summary of a manifest-list entry, one per partition field. */
typedef struct fl_ice_field_summary {
    bool contains_null;
    bool has_contains_nan;
    bool contains_nan;
    bool has_lower, has_upper;
    const uint8_t *lower; /* single-value serialization */
    uint32_t lower_len;
    const uint8_t *upper;
    uint32_t upper_len;
} fl_ice_field_summary;

/* One manifest-list entry. Counts absent in v1 files are -1. */
typedef struct fl_ice_manifest_file {
    const char *manifest_path;
    int64_t manifest_length;
    int32_t partition_spec_id;
    fl_ice_manifest_content content;
    int64_t sequence_number;     /* FL_ICE_UNASSIGNED_SEQ before commit */
    int64_t min_sequence_number; /* FL_ICE_UNASSIGNED_SEQ before commit */
    int64_t added_snapshot_id;
    int32_t added_files_count, existing_files_count, deleted_files_count;
    int64_t added_rows_count, existing_rows_count, deleted_rows_count;
    uint32_t npartitions;
    fl_ice_field_summary *partitions;
    const uint8_t *key_metadata;
    uint32_t key_metadata_len;
    bool has_first_row_id; /* v3 */
    int64_t first_row_id;
} fl_ice_manifest_file;

/* ---- reading ------------------------------------------------------------ */

/* Reads the manifest list at path (a snapshot's manifest-list). format_version
 * is the table's. *out is an arena array of *n entries in file order. */
FL_API fl_status fl_ice_manifest_list_read(fl_fileio *io, const char *path, int format_version,
                                           fl_arena *a, fl_ice_manifest_file **out, uint32_t *n,
                                           fl_error *err);

/* The manifests of snapshot s: its manifest list, or for v1 snapshots with an
 * inline "manifests" array, entries built from those paths (spec id and counts
 * then come from each manifest's header/entries as Java does). */
FL_API fl_status fl_ice_snapshot_manifests(fl_fileio *io, const fl_ice_metadata *m,
                                           const fl_ice_snapshot *s, fl_arena *a,
                                           fl_ice_manifest_file **out, uint32_t *n, fl_error *err);

/* Reads every entry of manifest mf (all statuses) with inheritance applied.
 * m supplies the partition spec (mf->partition_spec_id) and the schemas that
 * type partition values. m may be NULL: partition fields then come from the
 * manifest's Avro partition record, typed by their Avro (logical) types.
 * Errors name the manifest path and the entry index. */
FL_API fl_status fl_ice_manifest_read(fl_fileio *io, const fl_ice_metadata *m,
                                      const fl_ice_manifest_file *mf, fl_arena *a,
                                      fl_ice_manifest_entry **out, uint32_t *n, fl_error *err);

/* The partition struct type of spec (field ids = partition field ids, types =
 * transform result types), allocated in a. */
FL_API fl_status fl_ice_partition_type(const fl_ice_metadata *m, const fl_ice_partition_spec *spec,
                                       fl_arena *a, fl_type *out, fl_error *err);

/* ---- writing ------------------------------------------------------------ */

typedef struct fl_ice_manifest_writer fl_ice_manifest_writer;

/* Opens a manifest at path for the table m (its current schema and spec
 * spec_id) in format_version. snapshot_id is the snapshot adding it.
 * Entries with status ADDED and sequence numbers FL_ICE_UNASSIGNED_SEQ are
 * written with null sequence numbers (inherited at read time). As Java's
 * ManifestWriter: ADDED and DELETED entries are written with snapshot_id
 * (null when snapshot_id is FL_ICE_NO_SNAPSHOT, v2+ only), EXISTING entries keep theirs;
 * EXISTING/DELETED entries need explicit sequence numbers in v2+ (FL_EINVAL
 * otherwise; a rejected entry leaves the writer usable). The path must not
 * exist yet. */
FL_API fl_status fl_ice_manifest_writer_open(fl_fileio *io, const char *path,
                                             const fl_ice_metadata *m, int32_t spec_id,
                                             fl_ice_manifest_content content, int format_version,
                                             int64_t snapshot_id, fl_ice_manifest_writer **out,
                                             fl_error *err);
FL_API fl_status fl_ice_manifest_writer_add(fl_ice_manifest_writer *w,
                                            const fl_ice_manifest_entry *e, fl_error *err);
/* Finishes the file and fills *out (strings and summaries allocated in a):
 * length, counts, partition summaries, min_sequence_number. Frees w. */
FL_API fl_status fl_ice_manifest_writer_close(fl_ice_manifest_writer *w, fl_arena *a,
                                              fl_ice_manifest_file *out, fl_error *err);
FL_API void fl_ice_manifest_writer_abort(fl_ice_manifest_writer *w); /* NULL allowed */

/* Writes a manifest list. Entries whose sequence numbers are
 * FL_ICE_UNASSIGNED_SEQ get sequence_number (the new snapshot's). v3 assigns
 * first_row_id to data manifests lacking one, starting at first_row_id, and
 * stores in *next_row_id the value after the last (may be NULL for v1/v2). */
typedef struct fl_ice_manifest_list_info {
    int format_version;
    int64_t snapshot_id;
    bool has_parent;
    int64_t parent_snapshot_id;
    int64_t sequence_number;
    int64_t first_row_id; /* v3 */
} fl_ice_manifest_list_info;

FL_API fl_status fl_ice_manifest_list_write(fl_fileio *io, const char *path,
                                            const fl_ice_manifest_list_info *info,
                                            const fl_ice_manifest_file *files, uint32_t n,
                                            int64_t *next_row_id, fl_error *err);

/* ---- metrics -------------------------------------------------------------- */

/* Builds data-file metrics from what the Parquet writer reported, for the
 * table schema s, honouring the table properties write.metadata.metrics.default
 * and write.metadata.metrics.column.<name> (none | counts | truncate(N) | full;
 * default truncate(16)) and write.metadata.metrics.max-inferred-column-defaults.
 * Bounds are serialized and truncated as described above. Arrays in a. */
FL_API fl_status fl_ice_metrics_from_parquet(const fl_parquet_file_result *r, const fl_schema *s,
                                             const fl_ice_map *table_properties, fl_arena *a,
                                             fl_ice_column_metrics **out, uint32_t *n,
                                             fl_error *err);

/* Java's truncation of string bounds to `width` code points: lower keeps the
 * prefix; upper increments the last code point that can be incremented
 * (returns false when none can: the bound is then omitted). Binary bounds
 * truncate to width bytes (upper: last byte != 0xFF incremented). Results in a. */
FL_API bool fl_ice_truncate_lower(const fl_type *t, const uint8_t *v, uint32_t len, uint32_t width,
                                  fl_arena *a, const uint8_t **out, uint32_t *out_len);
FL_API bool fl_ice_truncate_upper(const fl_type *t, const uint8_t *v, uint32_t len, uint32_t width,
                                  fl_arena *a, const uint8_t **out, uint32_t *out_len);

#ifdef __cplusplus
}
#endif
#endif
