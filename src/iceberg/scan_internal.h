/*
 * scan_internal.h - pieces shared by the scan, delete, Puffin, evaluation and
 * metadata-table files of src/iceberg (not public API).
 */
#ifndef FLOE_ICEBERG_SCAN_INTERNAL_H
#define FLOE_ICEBERG_SCAN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/ice_scan.h"

/* ---- position sets (roaring.c) ---- */

/* Appends positions in ascending order, merging adjacent ones into ranges. */
typedef struct ice_posbuilder {
    fl_ice_position_set *s;
    uint64_t cap; /* ranges capacity (pairs) */
} ice_posbuilder;
fl_status ice_pos_add_range(ice_posbuilder *b, uint64_t start, uint64_t end, fl_error *err);
/* Builds a set from an unsorted array of positions (sorted in place). */
fl_status ice_pos_from_array(uint64_t *pos, size_t n, fl_ice_position_set *out, fl_error *err);
/* out = a | b (both sorted); out must be zeroed. */
fl_status ice_pos_union(const fl_ice_position_set *a, const fl_ice_position_set *b,
                        fl_ice_position_set *out, fl_error *err);
/* Encodes s in the portable 64-bit roaring serialization (roaring_write.c):
 * *out malloc'd, caller frees. */
fl_status ice_roaring64_encode(const fl_ice_position_set *s, uint8_t **out, size_t *len,
                               fl_error *err);
/* Decodes the portable 64-bit roaring serialization (buf exactly len bytes). */
fl_status ice_roaring64_decode(const uint8_t *buf, size_t len, fl_ice_position_set *out,
                               fl_error *err);

/* ---- Puffin (puffin.c) ---- */

typedef struct ice_puffin_blob {
    const char *type;
    int64_t offset, length;
    const char *codec; /* NULL = uncompressed */
    int64_t snapshot_id, sequence_number;
    uint32_t nfields;
    int32_t *fields;
    const char *referenced_data_file; /* properties, or NULL */
    const char *cardinality;          /* properties, or NULL */
    const char *ndv;                  /* properties (theta blobs), or NULL */
} ice_puffin_blob;

typedef struct ice_puffin_footer {
    uint32_t nblobs;
    ice_puffin_blob *blobs;
    const char *created_by; /* or NULL */
} ice_puffin_footer;

/* Parses the footer of the Puffin file f (checks both magics and the
 * footer framing). Strings in a. */
fl_status ice_puffin_read_footer(fl_file *f, fl_arena *a, ice_puffin_footer *out, fl_error *err);
/* Parses a footer from the whole file's bytes. */
fl_status ice_puffin_parse(const uint8_t *buf, size_t len, fl_arena *a, ice_puffin_footer *out,
                           fl_error *err);
/* Reads and decompresses blob b of f: *out is malloc'd (caller frees). */
fl_status ice_puffin_read_blob(fl_file *f, const ice_puffin_blob *b, uint8_t **out, size_t *len,
                               fl_error *err);
/* fl_ice_dv_read with a choice: lenient accepts a file that is a bare DV blob
 * (no Puffin framing, legacy DuckDB output). */
fl_status ice_dv_read(fl_fileio *io, const fl_ice_data_file *f, bool lenient,
                      fl_ice_position_set *out, fl_error *err);

/* ---- values ---- */

/* Row `row` of vector v (any encoding) as a scalar; payloads point into v.
 * Returns false for nested types. */
bool ice_vec_value(const fl_vector *v, uint32_t row, fl_value *out);
/* The same over a unified view (unify once per batch in loops). */
bool ice_unified_value(const fl_unified *u, const fl_type *t, uint32_t row, fl_value *out);
/* Parses an Iceberg JSON single-value (initial-default) of primitive type t. */
fl_status ice_default_parse(const fl_type *t, const char *json, fl_arena *a, fl_value *out,
                            fl_error *err);
/* Converts literal in to type t where it is a lossless widening/narrowing
 * (ints, floats, decimals, date/timestamp). false when impossible. */
bool ice_literal_cast(const fl_value *in, const fl_type *t, fl_value *out);
/* Compare with type coercion: both non-null; -2 when incomparable. */
int ice_value_cmp(const fl_value *a, const fl_value *b);

/* ---- filters (scan_filter.c) ---- */

/* A filter term resolved against the scan schema: a top-level column index
 * in the task's read columns, plus the literal cast to the column's type. */
typedef struct ice_term {
    int32_t field_id;
    const fl_field *field; /* in the table schema */
    fl_cmp_op op;
    fl_value value;
    const fl_value *in_values;
    uint32_t nin;
    bool nested; /* a field inside a struct: prunes, rows are the caller's to filter */
    /* a term on a field of _partition (path "_partition.x", field_id is then
     * FL_ICE_FIELD_ID_PARTITION): the partition field id; 0 otherwise */
    int32_t part_field_id;
} ice_term;

typedef struct ice_filter {
    uint32_t nterms;
    ice_term *terms;
    /* for terms on "$partition" / "$file_modified_time" (eval_metrics.c):
     * the table, and the FileIO that stats data files (NULL: not pruned) */
    const fl_ice_metadata *meta;
    fl_fileio *io;
} ice_filter;

/* Resolves opt->filter against schema s (names or ids, case-insensitive on
 * request); literals are cast to the column types (arena a). With the
 * table m (may be NULL), a path "_partition.x" names a field of _partition. */
fl_status ice_filter_resolve(const fl_predicate *p, const fl_schema *s, bool case_insensitive,
                             const fl_ice_metadata *m, fl_arena *a, ice_filter *out, fl_error *err);
/* Does value v (maybe null) satisfy term t? */
bool ice_term_holds(const ice_term *t, const fl_value *v);

/* ---- partition metadata columns (scan_meta.c) ---- */

/* _partition's child values for data file df, one per child of struct type
 * st (matched by partition field id; NULL where df's spec lacks it). */
fl_status ice_partition_values(const fl_ice_metadata *m, const fl_ice_data_file *df,
                               const fl_type *st, fl_arena *a, fl_value **out, fl_error *err);
/* The value of partition field id in df's tuple as type t (NULL when df's
 * spec has no such field). */
void ice_partition_value(const fl_ice_metadata *m, const fl_ice_data_file *df, int32_t id,
                         const fl_type *t, fl_value *out);
/* "$partition" of df: Java's PartitionSpec.partitionToPath ("" when
 * unpartitioned); NULL on OOM or a malformed tuple. */
const char *ice_partition_text(const fl_ice_metadata *m, const fl_ice_data_file *df, fl_arena *a);
/* n rows of the struct whose children are vals (FLAT). */
fl_status ice_fill_struct_const(fl_vector *v, const fl_value *vals, uint32_t n, fl_error *err);

/* ---- evaluation (eval_*.c) ---- */

/* Partition-level inclusive test of a resolved filter against one partition
 * tuple of spec (NONE = no row can match, otherwise SOME/ALL). */
fl_ice_match ice_eval_partition(const fl_ice_metadata *m, const fl_ice_partition_spec *spec,
                                const ice_filter *f, const fl_value *partition,
                                uint32_t npartition);
/* Manifest summaries test: false when no file in the manifest can match. */
bool ice_eval_manifest(const fl_ice_metadata *m, const fl_ice_partition_spec *spec,
                       const ice_filter *f, const fl_ice_manifest_file *mf);
/* Metrics test of one file: NONE / SOME / ALL (strict). */
fl_ice_match ice_eval_metrics(const ice_filter *f, const fl_ice_data_file *df);
/* Whole-file match with a resolved filter (partition then metrics). */
fl_ice_match ice_file_match(const fl_ice_metadata *m, const ice_filter *f,
                            const fl_ice_data_file *df);

/* ---- plan internals (scan_plan.c) ---- */

typedef struct ice_plan {
    fl_ice_scan_plan pub; /* first: fl_ice_scan_plan* casts to ice_plan* */
    ice_filter filter;
    int32_t *out_ids;            /* field id per output column */
    const fl_field **out_fields; /* table field per output column (NULL for metadata columns) */
    const char *name_mapping;    /* schema.name-mapping.default JSON, or NULL */
    bool lenient_dv;
    bool case_insensitive;
    struct held_list *held;       /* cached manifests the plan references */
    fl_ice_manifest_cache *cache; /* borrowed (options); footers of task readers */
} ice_plan;

/* Picks the scan schema for opt (see ice_scan.h). */
const fl_ice_schema *ice_scan_schema(const fl_ice_metadata *m, const fl_ice_snapshot *snap,
                                     const fl_ice_scan_options *opt);

/* ---- name mapping (scan_namemap.c) ---- */

typedef struct ice_name_mapping ice_name_mapping;
fl_status ice_name_mapping_parse(const char *json, fl_arena *a, ice_name_mapping **out,
                                 fl_error *err);
/* The field id a file column named `name` maps to at the top level (or
 * inside the mapping m's `fields` of a parent); -1 when unmapped. */
int32_t ice_name_mapping_lookup(const ice_name_mapping *m, const char *name);

/* ---- deletes (delete_pos.c, delete_eq.c) ---- */

/* A growable array of positions. */
typedef struct ice_posvec {
    uint64_t *v;
    size_t n, cap;
} ice_posvec;
/* Appends the positions that position-delete file del lists for data_path. */
/* Every position deleted from task t's data file by its position delete
 * files and deletion vectors (delete_pos.c); out zeroed first. */
fl_status ice_task_deleted_positions(fl_fileio *io, const fl_ice_scan_task *t, bool lenient_dv,
                                     fl_ice_position_set *out, fl_error *err);
fl_status ice_posdel_load(fl_fileio *io, const fl_ice_data_file *del, const char *data_path,
                          ice_posvec *out, fl_error *err);

/* The rows of equality delete files sharing one equality_ids set. */
typedef struct ice_eqset ice_eqset;
/* ids sorted ascending; types: the table's type of each id (for errors). */
fl_status ice_eqset_new(const int32_t *ids, uint32_t nids, ice_eqset **out, fl_error *err);
fl_status ice_eqset_load(ice_eqset *s, fl_fileio *io, const fl_ice_data_file *del, fl_error *err);
const int32_t *ice_eqset_ids(const ice_eqset *s, uint32_t *n);
/* Key bytes of one row: vals[i] is the value of ids[i]. */
bool ice_eqset_contains(ice_eqset *s, const fl_value *vals);
uint64_t ice_eqset_size(const ice_eqset *s);
void ice_eqset_free(ice_eqset *s);

#endif
