/*
 * manifest_int.h - helpers shared by the manifest files of src/iceberg/
 * (manifest_*.c, metrics.c): typed access to decoded Avro values by Iceberg
 * field id, partition values between their Avro form and fl_value, and the
 * Avro schemas of manifests and manifest lists.
 *
 * Partition values in manifests are Avro-typed values of the transform result
 * type: int (int, date), long (long, time, timestamps), boolean, float,
 * double, string, bytes (binary), fixed (fixed[L], uuid fixed[16], decimal as
 * the minimal big-endian two's complement in fixed[minBytes(P)] or bytes).
 */
#ifndef FLOE_ICEBERG_MANIFEST_INT_H
#define FLOE_ICEBERG_MANIFEST_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/avro.h"
#include "floe/ice_manifest.h"

/* Field ids of manifest_entry / data_file (spec "Manifests"). */
enum {
    MF_STATUS = 0,
    MF_SNAPSHOT_ID = 1,
    MF_DATA_FILE = 2,
    MF_SEQ = 3,
    MF_FILE_SEQ = 4,
    DF_FILE_PATH = 100,
    DF_FILE_FORMAT = 101,
    DF_PARTITION = 102,
    DF_RECORD_COUNT = 103,
    DF_FILE_SIZE = 104,
    DF_BLOCK_SIZE = 105,
    DF_COLUMN_SIZES = 108,
    DF_VALUE_COUNTS = 109,
    DF_NULL_COUNTS = 110,
    DF_DISTINCT_COUNTS = 111,
    DF_LOWER_BOUNDS = 125,
    DF_UPPER_BOUNDS = 128,
    DF_KEY_METADATA = 131,
    DF_SPLIT_OFFSETS = 132,
    DF_CONTENT = 134,
    DF_EQUALITY_IDS = 135,
    DF_NAN_COUNTS = 137,
    DF_SORT_ORDER_ID = 140,
    DF_FIRST_ROW_ID = 142,
    DF_REFERENCED_FILE = 143,
    DF_CONTENT_OFFSET = 144,
    DF_CONTENT_SIZE = 145,
};

/* Field ids of manifest_file (spec "Manifest Lists"). */
enum {
    ML_PATH = 500,
    ML_LENGTH = 501,
    ML_SPEC_ID = 502,
    ML_ADDED_SNAPSHOT_ID = 503,
    ML_ADDED_FILES = 504,
    ML_EXISTING_FILES = 505,
    ML_DELETED_FILES = 506,
    ML_PARTITIONS = 507,
    ML_SUMMARY = 508,
    ML_CONTAINS_NULL = 509,
    ML_LOWER = 510,
    ML_UPPER = 511,
    ML_ADDED_ROWS = 512,
    ML_EXISTING_ROWS = 513,
    ML_DELETED_ROWS = 514,
    ML_SEQ = 515,
    ML_MIN_SEQ = 516,
    ML_CONTENT = 517,
    ML_CONTAINS_NAN = 518,
    ML_KEY_METADATA = 519,
    ML_FIRST_ROW_ID = 520,
};

/* ---- typed access to decoded values (physical Avro values) ---- */

static inline bool mv_null(const fl_avro_value *v)
{
    return !v || v->type == FL_AVRO_NULL;
}

/* The Iceberg field id of field i of record value rec, or -1 when it has none. */
static inline int32_t mv_field_id(const fl_avro_value *rec, size_t i)
{
    const fl_avro_field *f = &rec->schema->fields[i];
    return f->has_field_id ? f->field_id : -1;
}
static inline const char *mv_field_name(const fl_avro_value *rec, size_t i)
{
    return rec->schema->fields[i].name;
}

/* Integer (Avro int or long) value; FL_ETYPE naming `what` otherwise. */
fl_status mv_long(const fl_avro_value *v, const char *what, int64_t *out, fl_error *err);
fl_status mv_int(const fl_avro_value *v, const char *what, int32_t *out, fl_error *err);
fl_status mv_bool(const fl_avro_value *v, const char *what, bool *out, fl_error *err);
/* String or bytes, copied into a NUL-terminated (for strings) arena buffer. */
fl_status mv_str(const fl_avro_value *v, const char *what, fl_arena *a, const char **out,
                 fl_error *err);
fl_status mv_bytes(const fl_avro_value *v, const char *what, fl_arena *a, const uint8_t **out,
                   uint32_t *len, fl_error *err);

/* ---- partition values ---- */

/* The fl_type an Avro partition field schema (union unwrapped) stands for:
 * logical types give date/time/timestamp(tz)/decimal/uuid. */
fl_status ice_type_from_avro(const fl_avro_schema *s, fl_type *out, fl_error *err);

/* Converts the Avro partition value v into a scalar of type t (bytes copied
 * into a). A null value gives is_null. */
fl_status ice_partition_from_avro(const fl_avro_value *v, const fl_type *t, fl_arena *a,
                                  fl_value *out, fl_error *err);

/* The result type of partition field pf of table m (source column searched in
 * every schema, current first). FL_ENOTFOUND / FL_ETYPE when it cannot be
 * derived (source never existed, unknown transform). */
fl_status ice_partition_field_type(const fl_ice_metadata *m, const fl_ice_partition_field *pf,
                                   fl_type *out, fl_error *err);

/* Big-endian two's complement (any length; longer than 16 bytes only when
 * the extra leading bytes are sign extension) -> int128. */
fl_status ice_decimal_from_be(const uint8_t *p, size_t n, fl_i128 *out, fl_error *err);

/* Sorts and merges metric items into fl_ice_column_metrics. */
typedef struct ice_metric_item {
    int32_t field_id;
    uint32_t order; /* insertion order: later items of one kind win */
    uint8_t kind;   /* 0 column_size, 1 value_count, 2 null, 3 nan, 4 lower, 5 upper */
    int64_t n;
    const uint8_t *ptr;
    uint32_t len;
} ice_metric_item;

/* Sorts items (in place) and writes the merged, field-id-sorted array to a. */
fl_status ice_metrics_merge(ice_metric_item *items, uint32_t n, fl_arena *a,
                            fl_ice_column_metrics **out, uint32_t *nout, fl_error *err);

#endif
