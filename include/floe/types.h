/*
 * types.h - the logical types of floe: every Iceberg type, plus the nested
 * struct, list and map, and a scalar value for literals and statistics.
 *
 * A type is a small tree (fl_type); a schema is a list of named, id'd fields
 * (fl_field). Field ids follow Iceberg: every field, list element, map key and
 * map value carries one (0 or negative = "no id", e.g. a Parquet file written
 * without ids).
 *
 * Physical representation in vectors (see vector.h), fixed by this table:
 *
 *   type              bytes/value  representation
 *   BOOLEAN           1            uint8_t 0/1 (bit-packed only on Arrow export)
 *   INT32             4            int32_t
 *   INT64             8            int64_t
 *   FLOAT32           4            float
 *   FLOAT64           8            double
 *   DECIMAL(P,S)      16           fl_i128, unscaled, little-endian two's complement
 *   DATE              4            int32_t days since 1970-01-01
 *   TIME              8            int64_t microseconds since midnight
 *   TIMESTAMP[TZ]     8            int64_t microseconds since epoch (TZ: UTC-adjusted)
 *   TIMESTAMP[TZ]_NS  8            int64_t nanoseconds since epoch
 *   UUID              16           16 bytes, big-endian as in RFC 4122
 *   FIXED(L)          L            L bytes
 *   STRING, BINARY    var          int64 offsets[n+1] + byte heap (UTF-8 for STRING)
 *   STRUCT            -            children vectors, same row count
 *   LIST              var          int64 offsets[n+1] into one child vector
 *   MAP               var          int64 offsets[n+1] into two children: keys, values
 *
 * Ownership: types and schemas built by parsers live in an arena (arena.h);
 * fl_type_* helpers never free. Vectors borrow their type pointer: the type
 * must outlive every vector that uses it.
 */
#ifndef FLOE_TYPES_H
#define FLOE_TYPES_H

#include "floe/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fl_type_id {
    FL_TYPE_BOOLEAN = 1,
    FL_TYPE_INT32,
    FL_TYPE_INT64,
    FL_TYPE_FLOAT32,
    FL_TYPE_FLOAT64,
    FL_TYPE_DECIMAL,
    FL_TYPE_DATE,
    FL_TYPE_TIME,
    FL_TYPE_TIMESTAMP,
    FL_TYPE_TIMESTAMPTZ,
    FL_TYPE_TIMESTAMP_NS,
    FL_TYPE_TIMESTAMPTZ_NS,
    FL_TYPE_STRING,
    FL_TYPE_UUID,
    FL_TYPE_FIXED,
    FL_TYPE_BINARY,
    FL_TYPE_STRUCT,
    FL_TYPE_LIST,
    FL_TYPE_MAP,
    FL_TYPE__COUNT
} fl_type_id;

/* 128-bit two's complement integer, used for decimals (up to 38 digits). */
typedef __int128 fl_i128;

typedef struct fl_field fl_field;

/* What a BINARY value means beyond its bytes (fl_type.ext). GEOMETRY and
 * GEOGRAPHY hold ISO WKB (floe/wkb.h): Iceberg v3 geometry(C) and
 * geography(C, A), Parquet's GEOMETRY and GEOGRAPHY logical types. */
typedef enum fl_type_ext {
    FL_EXT_NONE = 0,
    FL_EXT_GEOMETRY = 1,
    FL_EXT_GEOGRAPHY = 2,
    /* Iceberg v3 variant, Parquet VARIANT: metadata then value in one byte
     * string (floe/variant.h) */
    FL_EXT_VARIANT = 3,
} fl_type_ext;

/* Edge interpolation of a GEOGRAPHY (Parquet EdgeInterpolationAlgorithm;
 * Iceberg's lowercase names). */
typedef enum fl_geo_edges {
    FL_EDGES_SPHERICAL = 0,
    FL_EDGES_VINCENTY = 1,
    FL_EDGES_THOMAS = 2,
    FL_EDGES_ANDOYER = 3,
    FL_EDGES_KARNEY = 4,
} fl_geo_edges;

/* "spherical", "vincenty", ... (Iceberg's names); "spherical" out of range. */
FL_API const char *fl_geo_edges_name(int edges);

typedef struct fl_type {
    fl_type_id id;
    int32_t precision;  /* DECIMAL: 1..38 */
    int32_t scale;      /* DECIMAL: 0..precision */
    int32_t fixed_len;  /* FIXED: L; UUID: 16 */
    uint32_t nchildren; /* STRUCT: fields; LIST: 1 (element); MAP: 2 (key, value) */
    uint8_t ext;        /* BINARY: fl_type_ext, FL_EXT_NONE otherwise */
    uint8_t edges;      /* FL_EXT_GEOGRAPHY: fl_geo_edges */
    fl_field *children;
    const char *crs; /* GEOMETRY/GEOGRAPHY: as written ("srid:5070", "projjson:k");
                        NULL = the default OGC:CRS84 */
} fl_type;

struct fl_field {
    const char *name; /* "element", "key", "value" for list/map children */
    int32_t field_id; /* Iceberg field id; <= 0 when unknown */
    bool nullable;    /* Iceberg "optional" */
    fl_type type;
    const char *doc; /* may be NULL */
};

typedef struct fl_schema {
    uint32_t nfields;
    fl_field *fields;
    int32_t schema_id; /* Iceberg schema id, 0 if not from Iceberg */
} fl_schema;

/* Bytes per value in a vector's data buffer for fixed-width types; 0 for
 * STRING, BINARY and nested types. */
FL_API size_t fl_type_width(const fl_type *t);

/* True for STRING and BINARY (offsets + heap). */
static inline bool fl_type_is_varlen(const fl_type *t)
{
    return t->id == FL_TYPE_STRING || t->id == FL_TYPE_BINARY;
}
static inline bool fl_type_is_nested(const fl_type *t)
{
    return t->id == FL_TYPE_STRUCT || t->id == FL_TYPE_LIST || t->id == FL_TYPE_MAP;
}

/* Iceberg spelling: "int", "decimal(10,2)", "fixed[16]", "struct<...>",
 * "geometry", "geometry(srid:4326)", "geography(OGC:CRS84, karney)". Writes
 * at most cap bytes (NUL included); returns the length it needed. */
FL_API size_t fl_type_format(const fl_type *t, char *buf, size_t cap);

/* Parses the Iceberg primitive spelling ("long", "decimal(9,2)", "fixed[3]",
 * "timestamptz_ns"). Returns false when s is not a primitive type name. */
FL_API bool fl_type_parse_primitive(const char *s, fl_type *out);
/* The same, and also geometry(C) / geography(C[, A]) with a CRS, which is
 * copied into arena a. */
FL_API bool fl_type_parse_primitive_in(fl_arena *a, const char *s, fl_type *out);

/* Geometry or geography: a BINARY of WKB. */
static inline bool fl_type_is_geo(const fl_type *t)
{
    return t->id == FL_TYPE_BINARY && (t->ext == FL_EXT_GEOMETRY || t->ext == FL_EXT_GEOGRAPHY);
}
static inline bool fl_type_is_variant(const fl_type *t)
{
    return t->id == FL_TYPE_BINARY && t->ext == FL_EXT_VARIANT;
}

/* Equal types: also the ext, edges and CRS of a BINARY. */
FL_API bool fl_type_equal(const fl_type *a, const fl_type *b);
/* Same physical shape (type ids, decimal precision/scale, fixed length,
 * nesting), ignoring field names, ids and a BINARY's ext: the same vectors
 * fit both. */
FL_API bool fl_type_same_shape(const fl_type *a, const fl_type *b);

/* Deep copies (names, children) into arena a. Return FL_ENOMEM on failure. */
FL_API fl_status fl_type_copy(fl_arena *a, const fl_type *src, fl_type *dst);
FL_API fl_status fl_schema_copy(fl_arena *a, const fl_schema *src, fl_schema *dst);

/* Finds a top-level field by exact name or by field id; NULL if absent.
 * fl_schema_find_id searches nested fields too. */
FL_API const fl_field *fl_schema_find_name(const fl_schema *s, const char *name);
FL_API const fl_field *fl_schema_find_id(const fl_schema *s, int32_t field_id);

/*
 * fl_value - one scalar: literals in predicates, statistics, partition values.
 * Variable-length payloads (STRING, BINARY, FIXED, UUID) point at bytes owned
 * by someone else (an arena, a footer): the value does not own them.
 */
typedef struct fl_value {
    fl_type type; /* children unused: scalars only */
    bool is_null;
    union {
        bool b;
        int32_t i32; /* INT32, DATE */
        int64_t i64; /* INT64, TIME, TIMESTAMP* */
        float f32;
        double f64;
        fl_i128 dec; /* DECIMAL unscaled */
        struct {
            const uint8_t *ptr;
            size_t len;
        } bytes; /* STRING, BINARY, FIXED, UUID */
    } v;
} fl_value;

/* Three-way comparison of two non-null values of the same type, in the
 * order Iceberg and Parquet use for statistics: signed for numbers, unsigned
 * lexicographic bytes for STRING/BINARY/FIXED/UUID. NaN sorts above +inf. */
FL_API int fl_value_compare(const fl_value *a, const fl_value *b);

#ifdef __cplusplus
}
#endif
#endif
