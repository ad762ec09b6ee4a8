/*
 * scan_colmap.h - how a task reader turns file columns into table columns
 * (scan_colmap.c): same-layout moves, promotions, struct field maps, and
 * constant columns. Internal to scan_task.c.
 */
#ifndef FLOE_ICEBERG_SCAN_COLMAP_H
#define FLOE_ICEBERG_SCAN_COLMAP_H

#include "iceberg/scan_internal.h"

typedef enum conv_kind {
    CONV_SWAP,
    CONV_I32_I64,
    CONV_F32_F64,
    CONV_DATE_TS_US,
    CONV_DATE_TS_NS,
    CONV_NS_US,
    CONV_US_NS,
    CONV_STRUCT, /* struct whose fields differ: per-field map */
} conv_kind;

/* How to turn a file column into a table column (recursive for structs). */
typedef struct colmap {
    conv_kind conv;
    uint32_t nchildren;      /* CONV_STRUCT: target fields */
    int *src_child;          /* per target field: file field index, or -1 */
    struct colmap *children; /* per target field (when src_child >= 0) */
    fl_value *missing;       /* per target field (when src_child < 0): default or null */
} colmap;

/* Builds the map from file type `file` to table field `target`. Struct
 * fields are matched by field id: missing ones read as their initial-default
 * (schema extras of s) or null, extra file fields are dropped, promoted ones
 * convert. Lists and maps must have the same shape. Arrays in a. */
fl_status ice_colmap_build(const fl_type *file, const fl_field *target, const fl_ice_schema *s,
                           fl_arena *a, colmap *out, fl_error *err);
/* Fills dst (table type t) with n rows from src (a Parquet batch column,
 * which may be left holding dst's old buffers) per map m. */
fl_status ice_colmap_fill(fl_vector *dst, const fl_type *t, fl_vector *src, const colmap *m,
                          uint32_t n, fl_error *err);
/* n rows of the constant c (CONSTANT encoding; FLAT for nested types). */
fl_status ice_fill_const(fl_vector *v, const fl_value *c, uint32_t n, fl_error *err);

#endif
