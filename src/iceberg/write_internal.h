/*
 * write_internal.h - the pure building blocks behind table creation, schema /
 * partition / sort evolution and the data writer (src/iceberg/create*.c,
 * evolve*.c, data_writer*.c). They take metadata in and give new structs out,
 * with no catalog, transaction or I/O, so they are unit-tested directly; the
 * public functions of ice_table.h wrap them.
 *
 * Ownership: every output lives in the arena passed in.
 */
#ifndef FLOE_ICE_WRITE_INTERNAL_H
#define FLOE_ICE_WRITE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/orc.h"
#include "floe/ice_manifest.h"
#include "floe/ice_scan.h"
#include "floe/ice_table.h"
#include "floe/iceberg.h"
#include "floe/parquet.h"

/* ---- schema paths (schema_path.c) ---- */

/* The field at dotted path p ("a", "s.x"; a list's "element", a map's "key"
 * / "value" may be spelled out or skipped when the next name is a struct
 * field under them). Exact match first, then case-insensitive when that is
 * unambiguous. NULL when absent. *parent (may be NULL) receives the struct
 * type holding it (NULL for top level). */
fl_field *ice_find_path(fl_schema *s, const char *p, fl_type **parent);
const fl_field *ice_find_path_c(const fl_schema *s, const char *p);
/* The dotted name of field_id ("s.x"), arena string; NULL when absent. */
const char *ice_path_of(const fl_schema *s, int32_t field_id, fl_arena *a);
/* Highest field id in the schema (0 when none). */
int32_t ice_max_field_id(const fl_schema *s);

/* ---- fresh ids (fresh_ids.c; a schema: fl_ice_fresh_schema_ids) ---- */

/* Deep copy of one type with fresh ids (from *last_id + 1) for its nested
 * fields, in fl_ice_fresh_schema_ids order. */
fl_status ice_assign_fresh_type_ids(const fl_type *in, int32_t *last_id, fl_arena *a, fl_type *out,
                                    fl_error *err);

/* Builds the metadata of a new, empty table (schema 0, spec 0, sort order 0
 * or 1) from the create options. uuid and location are copied. */
fl_status ice_new_table_metadata(const fl_ice_create_options *opt, const char *location,
                                 const char *uuid, int64_t now_ms, fl_arena *a,
                                 fl_ice_metadata *out, fl_error *err);

/* Field ids of identifier columns given by path; each must be a required
 * primitive (not float/double) reached through required structs only. */
fl_status ice_identifier_ids(const fl_ice_schema *s, const char *const *names, uint32_t n,
                             fl_arena *a, int32_t **ids, fl_error *err);

/* Java's default partition field name for transform t of source name src:
 * "src", "src_bucket", "src_trunc", "src_year", ..., "src_null". */
const char *ice_partition_field_name(const fl_ice_transform *t, const char *src, fl_arena *a);

/* ---- evolution (evolve_schema.c, evolve_spec.c) ---- */

/* A result schema change: the new schema (schema_id = highest existing + 1)
 * and the table's new last-column-id. */
typedef struct ice_schema_change {
    fl_ice_schema schema;
    int32_t last_column_id;
} ice_schema_change;

fl_status ice_evolve_add_column(const fl_ice_metadata *m, const char *parent, const char *name,
                                const fl_type *type, bool nullable, const char *doc,
                                const char *initial_default, fl_arena *a, ice_schema_change *out,
                                fl_error *err);
fl_status ice_evolve_drop_column(const fl_ice_metadata *m, const char *path, fl_arena *a,
                                 ice_schema_change *out, fl_error *err);
fl_status ice_evolve_rename_column(const fl_ice_metadata *m, const char *path, const char *new_name,
                                   fl_arena *a, ice_schema_change *out, fl_error *err);
fl_status ice_evolve_update_type(const fl_ice_metadata *m, const char *path, const fl_type *type,
                                 fl_arena *a, ice_schema_change *out, fl_error *err);
fl_status ice_evolve_make_optional(const fl_ice_metadata *m, const char *path, fl_arena *a,
                                   ice_schema_change *out, fl_error *err);
fl_status ice_evolve_set_default(const fl_ice_metadata *m, const char *path,
                                 const char *write_default, fl_arena *a, ice_schema_change *out,
                                 fl_error *err);
fl_status ice_evolve_move_column(const fl_ice_metadata *m, const char *path, const char *after,
                                 bool first, fl_arena *a, ice_schema_change *out, fl_error *err);
fl_status ice_evolve_set_identifier(const fl_ice_metadata *m, const char *const *paths, uint32_t n,
                                    fl_arena *a, ice_schema_change *out, fl_error *err);

/* True when from -> to is a type promotion the spec allows (format_version
 * decides date -> timestamp). */
bool ice_type_promotion_ok(const fl_type *from, const fl_type *to, int format_version);

/* New default spec (spec_id -1) with the field added / removed; *last_partition_id
 * gets the table's new last-partition-id. *existing >= 0 when an equal spec
 * already exists (then only SET_DEFAULT_SPEC is needed). */
fl_status ice_evolve_add_partition(const fl_ice_metadata *m, const char *text, fl_arena *a,
                                   fl_ice_partition_spec *out, int32_t *existing, fl_error *err);
fl_status ice_evolve_remove_partition(const fl_ice_metadata *m, const char *name_or_text,
                                      fl_arena *a, fl_ice_partition_spec *out, int32_t *existing,
                                      fl_error *err);
fl_status ice_evolve_sort_order(const fl_ice_metadata *m, const char *const *sort_by, uint32_t n,
                                fl_arena *a, fl_ice_sort_order *out, int32_t *existing,
                                fl_error *err);

/* ---- values of vector rows (data_writer.c) ---- */

/* Row `row` of scalar vector v (any encoding) as a value; bytes point into v. */
void ice_vector_value(const fl_vector *v, uint32_t row, fl_value *out);

/* ---- the data writer core (data_writer.c) ---- */

/* Computes data-file metrics for a written file (fl_ice_metrics_from_parquet
 * in production; tests may pass NULL for no metrics). */
typedef fl_status (*ice_metrics_fn)(const fl_parquet_file_result *r, const fl_schema *s,
                                    const fl_ice_map *props, fl_arena *a,
                                    fl_ice_column_metrics **out, uint32_t *n, fl_error *err);

typedef struct ice_writer_config {
    fl_fileio *io;
    const fl_ice_metadata *meta; /* borrowed: current schema, default spec and sort order */
    fl_arena *out_arena;         /* data-file structs and paths go here */
    ice_metrics_fn metrics;      /* may be NULL */
    uint32_t max_open_files;     /* 0 = 32 */
    uint64_t max_buffer_bytes;   /* sorted writes: memory bound over all partitions; 0 = 256 MiB */
    uint64_t target_file_bytes;  /* 0 = write.target-file-size-bytes or 512 MiB */
    /* Called with every file path right after it is created (a txn registers
     * it for deletion on abort); may be NULL. */
    fl_status (*own_file)(void *ctx, const char *path, fl_error *err);
    void *own_ctx;
} ice_writer_config;

/* The configuration fl_ice_data_writer_open uses for transaction x (table
 * FileIO, txn metadata and arena, metrics, file ownership). */
void ice_writer_config_for_txn(fl_ice_txn *x, ice_writer_config *cfg);

fl_status ice_data_writer_open_cfg(const ice_writer_config *cfg, fl_ice_data_writer **out,
                                   fl_error *err);

/* ---- position delete files (delete_writer.c) ---- */

/* Writes one position-delete file with the (path, pos) pairs of d, sorted by
 * path then position, for partition `partition` of spec spec_id, at path
 * <location>/data/<partition path>/<uuid>-deletes.parquet. referenced_data_file
 * is set when d covers one data file. *out (strings in a). */
fl_status ice_write_position_deletes(fl_fileio *io, const fl_ice_metadata *m, int32_t spec_id,
                                     const fl_value *partition, uint32_t npartition,
                                     const fl_ice_file_positions *d, uint32_t n,
                                     ice_metrics_fn metrics, fl_arena *a, fl_ice_data_file *out,
                                     fl_error *err);

/* A copy of n partition values in a, byte payloads included (NULL on OOM). */
fl_value *ice_copy_partition(fl_arena *a, const fl_value *partition, uint32_t n);

/* Deletion vectors (format v3, dv_writer.c): one Puffin file with one
 * blob per input; out[i] is the delete-file entry of in[i] (strings in a).
 * Each set must hold every delete of its file (earlier ones included). */
typedef struct ice_dv_input {
    const fl_ice_data_file *file;
    const fl_ice_position_set *set;
} ice_dv_input;
fl_status ice_write_dvs(fl_fileio *io, const fl_ice_metadata *m, const ice_dv_input *in, uint32_t n,
                        fl_arena *a, fl_ice_data_file *out, fl_error *err);

/* Java's toHumanString of a scalar value, arena string (write_util.c). */
const char *ice_value_text(const fl_value *v, fl_arena *a);
/* "<data dir>/<col=val/...>/" partition directory for values of spec (URL-encoded
 * human strings as Java's PartitionSpec.partitionToPath). Arena string
 * without trailing slash; "" for unpartitioned. */
const char *ice_partition_path(const fl_ice_metadata *m, const fl_ice_partition_spec *spec,
                               const fl_value *values, fl_arena *a);
/* write.data.path or <location>/data (no trailing slash). */
const char *ice_data_dir(const fl_ice_metadata *m, fl_arena *a);
/* Parquet write options from table properties (codec, level, row group / page size). */
void ice_parquet_options(const fl_ice_metadata *m, fl_parquet_write_options *o);
/* write.format.default is orc; the ORC writer options from write.orc.*. */
bool ice_writes_orc(const fl_ice_metadata *m);
void ice_orc_options(const fl_ice_metadata *m, fl_orc_write_options *o);
/* A 64-bit property value, or dflt when absent or malformed. */
int64_t ice_prop_i64(const fl_ice_metadata *m, const char *key, int64_t dflt);

#endif
