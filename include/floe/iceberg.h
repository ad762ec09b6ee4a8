/*
 * iceberg.h - Apache Iceberg table metadata, partition transforms and the
 * single-value binary serialization (format/spec.md of apache/iceberg).
 *
 * Table metadata (the *.metadata.json file) parses into plain C structs that
 * live in an arena: fl_ice_metadata_parse() reads format v1, v2 and v3, applies
 * the v1 inference rules of the Java reference (schema -> schemas,
 * partition-spec -> partition-specs, missing last-partition-id, missing
 * sort-orders, refs.main synthesized from current-snapshot-id) and rejects
 * v2+ files that miss a required field. Errors name the field:
 *
 *     table metadata: snapshots[2].manifest-list: missing
 *
 * fl_ice_metadata_write() serializes the structs back to JSON with the keys in
 * the order Java writes them.
 *
 * Schemas are fl_schema trees (types.h), plus per-field extras that types.h
 * has no slot for: initial-default / write-default (kept as JSON text) and the
 * type string of v3 types floe cannot represent (unknown, variant, geometry,
 * geography). Such fields have type.id == 0 ("unsupported but preserved"):
 * they round-trip through the writer, and fl_ice_schema_to_fl() rejects them.
 *
 * Ownership: everything reachable from a parsed fl_ice_metadata belongs to the
 * arena passed to the parser; free it with fl_arena_free().
 */
#ifndef FLOE_ICEBERG_H
#define FLOE_ICEBERG_H

#include "floe/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"
#include "floe/io.h"
#include "floe/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FL_ICE_MAX_FORMAT_VERSION 3
#define FL_ICE_NO_SNAPSHOT (-1)          /* current_snapshot_id when there is none */
#define FL_ICE_UNPARTITIONED_LAST_ID 999 /* last-partition-id of never-partitioned tables */
#define FL_ICE_PARTITION_FIELD_ID_BASE 1000

/* A string -> string map in file order (properties, summaries). */
typedef struct fl_ice_kv {
    const char *key;
    const char *value;
} fl_ice_kv;

typedef struct fl_ice_map {
    uint32_t n;
    fl_ice_kv *items;
} fl_ice_map;

/* Returns the value for key, or NULL. */
FL_API const char *fl_ice_map_get(const fl_ice_map *m, const char *key);

/* Per-field data of an Iceberg schema that fl_field has no slot for. */
typedef struct fl_ice_field_extra {
    int32_t field_id;
    const char *initial_default; /* compact JSON text of the value, or NULL */
    const char *write_default;   /* compact JSON text of the value, or NULL */
    const char *type_str;        /* non-NULL when the field's type.id == 0: the
                                    Iceberg type string ("variant", "geometry(...)") */
} fl_ice_field_extra;

typedef struct fl_ice_schema {
    int32_t schema_id;
    fl_schema schema; /* schema.schema_id == schema_id */
    uint32_t nidentifier;
    int32_t *identifier_field_ids; /* identifier-field-ids, may be empty */
    uint32_t nextras;
    fl_ice_field_extra *extras;
} fl_ice_schema;

/* The extras of field_id, or NULL. */
FL_API const fl_ice_field_extra *fl_ice_schema_extra(const fl_ice_schema *s, int32_t field_id);

/* A scalar value as Iceberg's single-value JSON (spec appendix D), the text
 * of initial-default / write-default: numbers, "14.20", "2017-11-16",
 * "22:31:08.123456", "2017-11-16T22:31:08.123456+00:00", hex for binary.
 * Arena string; FL_EUNSUPPORTED for nested types (src/iceberg/value_json.c). */
FL_API fl_status fl_ice_value_to_json(const fl_value *v, fl_arena *a, const char **out,
                                      fl_error *err);
/* The value of type t that JSON text json stands for (bytes in a). */
FL_API fl_status fl_ice_value_from_json(const fl_type *t, const char *json, fl_arena *a,
                                        fl_value *out, fl_error *err);

typedef struct fl_ice_partition_field {
    const char *name;
    const char *transform; /* "identity", "bucket[16]", ... as written */
    int32_t source_id;     /* first of source_ids */
    uint32_t nsource_ids;  /* 1 unless a v3 multi-argument transform */
    int32_t *source_ids;
    bool multi_arg;   /* written as "source-ids" in the file */
    int32_t field_id; /* v1 files without field-id: 1000 + position */
} fl_ice_partition_field;

typedef struct fl_ice_partition_spec {
    int32_t spec_id;
    uint32_t nfields;
    fl_ice_partition_field *fields;
} fl_ice_partition_spec;

typedef struct fl_ice_sort_field {
    const char *transform;
    int32_t source_id;
    uint32_t nsource_ids;
    int32_t *source_ids;
    bool multi_arg;
    bool descending;  /* "direction": "desc" */
    bool nulls_first; /* "null-order": "nulls-first" */
} fl_ice_sort_field;

typedef struct fl_ice_sort_order {
    int32_t order_id;
    uint32_t nfields;
    fl_ice_sort_field *fields;
} fl_ice_sort_order;

typedef struct fl_ice_snapshot {
    int64_t snapshot_id;
    bool has_parent;
    int64_t parent_snapshot_id;
    int64_t sequence_number; /* 0 when absent (v1) */
    int64_t timestamp_ms;
    const char *manifest_list; /* NULL in v1 snapshots that use "manifests" */
    uint32_t nmanifests;       /* v1 inline manifest paths */
    const char **manifests;
    bool has_manifests;
    const char *operation; /* summary.operation; "overwrite" when absent */
    bool has_summary;
    fl_ice_map summary; /* the other summary entries, operation excluded */
    bool has_schema_id;
    int32_t schema_id;
    bool has_first_row_id; /* v3 */
    int64_t first_row_id;
    bool has_added_rows; /* v3 */
    int64_t added_rows;
    const char *key_id; /* v3 encryption key of the manifest list, or NULL */
} fl_ice_snapshot;

typedef struct fl_ice_snapshot_log_entry {
    int64_t timestamp_ms;
    int64_t snapshot_id;
} fl_ice_snapshot_log_entry;

typedef struct fl_ice_metadata_log_entry {
    int64_t timestamp_ms;
    const char *metadata_file;
} fl_ice_metadata_log_entry;

typedef struct fl_ice_ref {
    const char *name;
    int64_t snapshot_id;
    bool is_tag; /* "type": "tag"; otherwise a branch */
    bool has_min_snapshots_to_keep;
    int32_t min_snapshots_to_keep;
    bool has_max_snapshot_age_ms;
    int64_t max_snapshot_age_ms;
    bool has_max_ref_age_ms;
    int64_t max_ref_age_ms;
} fl_ice_ref;

typedef struct fl_ice_blob_metadata {
    const char *type;
    int64_t snapshot_id;
    int64_t sequence_number;
    uint32_t nfields;
    int32_t *fields;
    bool has_properties;
    fl_ice_map properties;
} fl_ice_blob_metadata;

typedef struct fl_ice_statistics_file {
    int64_t snapshot_id;
    const char *statistics_path;
    int64_t file_size_in_bytes;
    int64_t file_footer_size_in_bytes;
    const char *key_metadata; /* base64, or NULL */
    uint32_t nblobs;
    fl_ice_blob_metadata *blobs;
} fl_ice_statistics_file;

typedef struct fl_ice_partition_statistics_file {
    int64_t snapshot_id;
    const char *statistics_path;
    int64_t file_size_in_bytes;
} fl_ice_partition_statistics_file;

typedef struct fl_ice_encryption_key {
    const char *key_id;
    const char *encrypted_key_metadata; /* base64 */
    const char *encrypted_by_id;        /* or NULL */
    bool has_properties;
    fl_ice_map properties;
} fl_ice_encryption_key;

typedef struct fl_ice_metadata {
    int32_t format_version;
    const char *table_uuid; /* NULL when a v1 file has none */
    const char *location;
    int64_t last_sequence_number; /* 0 for v1 */
    int64_t last_updated_ms;
    int32_t last_column_id;
    int32_t current_schema_id;
    uint32_t nschemas;
    fl_ice_schema *schemas;
    int32_t default_spec_id;
    uint32_t nspecs;
    fl_ice_partition_spec *specs;
    int32_t last_partition_id;
    int32_t default_sort_order_id;
    uint32_t nsort_orders;
    fl_ice_sort_order *sort_orders;
    fl_ice_map properties;
    int64_t current_snapshot_id; /* FL_ICE_NO_SNAPSHOT when none */
    bool has_next_row_id;        /* v3 */
    int64_t next_row_id;
    uint32_t nencryption_keys;
    fl_ice_encryption_key *encryption_keys;
    uint32_t nrefs; /* includes a synthesized main when absent */
    fl_ice_ref *refs;
    uint32_t nsnapshots;
    fl_ice_snapshot *snapshots;
    uint32_t nstatistics;
    fl_ice_statistics_file *statistics;
    uint32_t npartition_statistics;
    fl_ice_partition_statistics_file *partition_statistics;
    uint32_t nsnapshot_log;
    fl_ice_snapshot_log_entry *snapshot_log;
    uint32_t nmetadata_log;
    fl_ice_metadata_log_entry *metadata_log;
} fl_ice_metadata;

/* Parses table metadata JSON (or gzip-compressed JSON, detected by its magic
 * bytes) into *out, allocating from arena a. name (may be NULL) prefixes error
 * messages. FL_ECORRUPT / FL_ESYNTAX for malformed input, FL_EUNSUPPORTED for
 * a format-version above FL_ICE_MAX_FORMAT_VERSION. */
FL_API fl_status fl_ice_metadata_parse(const uint8_t *buf, size_t len, const char *name,
                                       fl_arena *a, fl_ice_metadata *out, fl_error *err);

/* Reads path through io (at most FL_ICE_METADATA_MAX_BYTES) and parses it;
 * errors are prefixed with the path. */
#define FL_ICE_METADATA_MAX_BYTES (256u << 20)
FL_API fl_status fl_ice_metadata_read(fl_fileio *io, const char *path, fl_arena *a,
                                      fl_ice_metadata *out, fl_error *err);

/* Serializes m as JSON in Java's key order. format_version 0 writes m's own
 * version; 1, 2 or 3 writes that version's fields (v1 adds the deprecated
 * "schema" and "partition-spec"). *out is malloc'd (caller frees), NUL-terminated,
 * *out_len excludes the NUL. */
FL_API fl_status fl_ice_metadata_write(const fl_ice_metadata *m, int format_version, char **out,
                                       size_t *out_len, fl_error *err);

/* Deep structural equality (used by round-trip tests). */
FL_API bool fl_ice_metadata_equal(const fl_ice_metadata *a, const fl_ice_metadata *b);

/* Lookups; NULL when absent. */
FL_API const fl_ice_schema *fl_ice_metadata_schema(const fl_ice_metadata *m, int32_t schema_id);
FL_API const fl_ice_schema *fl_ice_metadata_current_schema(const fl_ice_metadata *m);
FL_API const fl_ice_partition_spec *fl_ice_metadata_spec(const fl_ice_metadata *m, int32_t spec_id);
FL_API const fl_ice_snapshot *fl_ice_metadata_snapshot(const fl_ice_metadata *m,
                                                       int64_t snapshot_id);
FL_API const fl_ice_snapshot *fl_ice_metadata_current_snapshot(const fl_ice_metadata *m);
FL_API const fl_ice_ref *fl_ice_metadata_ref(const fl_ice_metadata *m, const char *name);

/* Iceberg schema <-> floe schema. to_fl deep-copies into a and fails with
 * FL_EUNSUPPORTED naming the first field whose type floe cannot represent.
 * from_fl wraps an fl_schema (copied into a) with no identifier fields or defaults. */
FL_API fl_status fl_ice_schema_to_fl(const fl_ice_schema *s, fl_arena *a, fl_schema *out,
                                     fl_error *err);
FL_API fl_status fl_ice_schema_from_fl(const fl_schema *s, int32_t schema_id, fl_arena *a,
                                       fl_ice_schema *out, fl_error *err);

/* Parses one schema JSON object (a struct type with optional schema-id) into *out. */
FL_API fl_status fl_ice_schema_parse_json(const char *json, size_t len, fl_arena *a,
                                          fl_ice_schema *out, fl_error *err);

/* ---- Partition transforms ------------------------------------------------ */

typedef enum fl_ice_transform_kind {
    FL_ICE_TRANSFORM_IDENTITY = 1,
    FL_ICE_TRANSFORM_BUCKET,
    FL_ICE_TRANSFORM_TRUNCATE,
    FL_ICE_TRANSFORM_YEAR,
    FL_ICE_TRANSFORM_MONTH,
    FL_ICE_TRANSFORM_DAY,
    FL_ICE_TRANSFORM_HOUR,
    FL_ICE_TRANSFORM_VOID,
    FL_ICE_TRANSFORM_UNKNOWN, /* readable, never applied (spec: ignore unknown transforms) */
} fl_ice_transform_kind;

typedef struct fl_ice_transform {
    fl_ice_transform_kind kind;
    int32_t param; /* N of bucket[N], W of truncate[W]; 0 otherwise */
} fl_ice_transform;

/* Parses "identity", "bucket[16]", "truncate[4]", "year", ... (case-insensitive,
 * spaces around the parameter allowed). Unrecognized names give
 * FL_ICE_TRANSFORM_UNKNOWN; a malformed or non-positive parameter is FL_ECORRUPT. */
FL_API fl_status fl_ice_transform_parse(const char *s, fl_ice_transform *out, fl_error *err);

/* Canonical spelling into buf ("bucket[16]"); returns the length needed. */
FL_API size_t fl_ice_transform_format(const fl_ice_transform *t, char *buf, size_t cap);

/* Result type of t applied to source type src; FL_ETYPE when t does not apply to src. */
FL_API fl_status fl_ice_transform_result_type(const fl_ice_transform *t, const fl_type *src,
                                              fl_type *out, fl_error *err);

/* Applies t to in (a scalar of in->type). out's type is the result type. Byte
 * results (truncate of string/binary, identity) point into in's bytes. Null
 * in gives null out; void gives null out. */
FL_API fl_status fl_ice_transform_apply(const fl_ice_transform *t, const fl_value *in,
                                        fl_value *out, fl_error *err);

/* Murmur3 x86 32-bit, seed 0. */
FL_API int32_t fl_ice_murmur3_32(const uint8_t *data, size_t len);

/* The bucket hash of a value per the spec's hashing rules (FL_ETYPE for
 * boolean/float/double/nested). */
FL_API fl_status fl_ice_bucket_hash(const fl_value *v, int32_t *hash, fl_error *err);

/* ---- Single-value binary serialization (spec Appendix D) ----------------- */

/* Serializes a non-null scalar. Bytes go into buf (cap >= 16 suffices for all
 * fixed-width types and decimals); for STRING/BINARY/FIXED the bytes are the
 * value's own, so *out points at them. *out_len gets the length. */
FL_API fl_status fl_ice_value_to_bytes(const fl_value *v, uint8_t *buf, size_t cap,
                                       const uint8_t **out, size_t *out_len, fl_error *err);

/* Parses bytes as a value of type t. STRING/BINARY/FIXED results point into
 * buf. Accepts the promoted-type lengths of the spec (4-byte long bounds,
 * 4-byte double bounds, 4-byte date bounds for timestamps). */
FL_API fl_status fl_ice_value_from_bytes(const fl_type *t, const uint8_t *buf, size_t len,
                                         fl_value *out, fl_error *err);

/* Minimal big-endian two's complement of v (Java BigInteger.toByteArray());
 * writes 1..16 bytes into buf[16], returns the count. */
FL_API size_t fl_ice_decimal_to_be_bytes(fl_i128 v, uint8_t buf[16]);

/* ---- metadata file names (src/iceberg/metadata_name.c) ---- */

#define FL_ICE_METADATA_VERSION_PARTS 4

/* A metadata file's version: parts compared left to right (v3.2 = {3, 2}). */
typedef struct fl_ice_metadata_version {
    uint32_t nparts; /* 0 = the name carries no version */
    int64_t parts[FL_ICE_METADATA_VERSION_PARTS];
} fl_ice_metadata_version;

/* True when name (the last path component) looks like a table metadata file:
 * *.metadata.json, *.metadata.json.gz or *.gz.metadata.json. */
FL_API bool fl_ice_is_metadata_name(const char *name);

/* Version of a metadata file name ("v7.metadata.json", "00003-<uuid>.metadata.json",
 * "v3.2.metadata.json"); nparts 0 when it has none ("vfinal.metadata.json"). */
FL_API fl_ice_metadata_version fl_ice_metadata_version_of(const char *name);
FL_API int fl_ice_metadata_version_cmp(const fl_ice_metadata_version *a,
                                       const fl_ice_metadata_version *b);

#ifdef __cplusplus
}
#endif
#endif
