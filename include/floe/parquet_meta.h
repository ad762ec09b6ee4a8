/*
 * parquet_meta.h - Parquet footer structures (parquet.thrift), shared by the
 * reader (thrift_read.c decodes them) and the writer (thrift_write.c encodes
 * them). Field names follow parquet.thrift; optional Thrift fields have an
 * is_set flag (or a NULL pointer / -1 sentinel as commented).
 *
 * Spec: apache/parquet-format src/main/thrift/parquet.thrift.
 *
 * Ownership: a decoded footer (fl_pq_file_meta) and everything it points to
 * live in one arena, owned by whoever decoded it. Binary fields (statistics
 * min/max, key-value strings) point into that arena.
 */
#ifndef FLOE_PARQUET_META_H
#define FLOE_PARQUET_META_H

#include "floe/export.h"

#include <stdbool.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/buf.h"
#include "floe/error.h"
#include "floe/types.h"

/* enum Type */
typedef enum fl_pq_type {
    FL_PQ_BOOLEAN = 0,
    FL_PQ_INT32 = 1,
    FL_PQ_INT64 = 2,
    FL_PQ_INT96 = 3,
    FL_PQ_FLOAT = 4,
    FL_PQ_DOUBLE = 5,
    FL_PQ_BYTE_ARRAY = 6,
    FL_PQ_FIXED_LEN_BYTE_ARRAY = 7,
} fl_pq_type;

/* enum ConvertedType (legacy); -1 = not set */
typedef enum fl_pq_converted {
    FL_PQ_CT_NONE = -1,
    FL_PQ_CT_UTF8 = 0,
    FL_PQ_CT_MAP = 1,
    FL_PQ_CT_MAP_KEY_VALUE = 2,
    FL_PQ_CT_LIST = 3,
    FL_PQ_CT_ENUM = 4,
    FL_PQ_CT_DECIMAL = 5,
    FL_PQ_CT_DATE = 6,
    FL_PQ_CT_TIME_MILLIS = 7,
    FL_PQ_CT_TIME_MICROS = 8,
    FL_PQ_CT_TIMESTAMP_MILLIS = 9,
    FL_PQ_CT_TIMESTAMP_MICROS = 10,
    FL_PQ_CT_UINT_8 = 11,
    FL_PQ_CT_UINT_16 = 12,
    FL_PQ_CT_UINT_32 = 13,
    FL_PQ_CT_UINT_64 = 14,
    FL_PQ_CT_INT_8 = 15,
    FL_PQ_CT_INT_16 = 16,
    FL_PQ_CT_INT_32 = 17,
    FL_PQ_CT_INT_64 = 18,
    FL_PQ_CT_JSON = 19,
    FL_PQ_CT_BSON = 20,
    FL_PQ_CT_INTERVAL = 21,
} fl_pq_converted;

/* enum FieldRepetitionType; -1 = not set (the root) */
typedef enum fl_pq_repetition {
    FL_PQ_REP_NONE = -1,
    FL_PQ_REQUIRED = 0,
    FL_PQ_OPTIONAL = 1,
    FL_PQ_REPEATED = 2,
} fl_pq_repetition;

/* enum Encoding */
typedef enum fl_pq_encoding {
    FL_PQ_ENC_PLAIN = 0,
    FL_PQ_ENC_PLAIN_DICTIONARY = 2,
    FL_PQ_ENC_RLE = 3,
    FL_PQ_ENC_BIT_PACKED = 4,
    FL_PQ_ENC_DELTA_BINARY_PACKED = 5,
    FL_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
    FL_PQ_ENC_DELTA_BYTE_ARRAY = 7,
    FL_PQ_ENC_RLE_DICTIONARY = 8,
    FL_PQ_ENC_BYTE_STREAM_SPLIT = 9,
} fl_pq_encoding;

/* enum CompressionCodec */
typedef enum fl_pq_codec {
    FL_PQ_UNCOMPRESSED = 0,
    FL_PQ_SNAPPY = 1,
    FL_PQ_GZIP = 2,
    FL_PQ_LZO = 3,
    FL_PQ_BROTLI = 4,
    FL_PQ_LZ4 = 5, /* deprecated: Hadoop framing, or raw LZ4 frame from old parquet-cpp */
    FL_PQ_ZSTD = 6,
    FL_PQ_LZ4_RAW = 7,
} fl_pq_codec;

/* enum PageType */
typedef enum fl_pq_page_type {
    FL_PQ_DATA_PAGE = 0,
    FL_PQ_INDEX_PAGE = 1,
    FL_PQ_DICTIONARY_PAGE = 2,
    FL_PQ_DATA_PAGE_V2 = 3,
} fl_pq_page_type;

/* enum BoundaryOrder */
typedef enum fl_pq_boundary_order {
    FL_PQ_UNORDERED = 0,
    FL_PQ_ASCENDING = 1,
    FL_PQ_DESCENDING = 2,
} fl_pq_boundary_order;

/* union LogicalType: the set member (field id in parquet.thrift) */
typedef enum fl_pq_logical_kind {
    FL_PQ_LT_NONE = 0,
    FL_PQ_LT_STRING = 1,
    FL_PQ_LT_MAP = 2,
    FL_PQ_LT_LIST = 3,
    FL_PQ_LT_ENUM = 4,
    FL_PQ_LT_DECIMAL = 5,
    FL_PQ_LT_DATE = 6,
    FL_PQ_LT_TIME = 7,
    FL_PQ_LT_TIMESTAMP = 8,
    /* 9 reserved (INTERVAL) */
    FL_PQ_LT_INTEGER = 10,
    FL_PQ_LT_UNKNOWN = 11, /* "NullType" */
    FL_PQ_LT_JSON = 12,
    FL_PQ_LT_BSON = 13,
    FL_PQ_LT_UUID = 14,
    FL_PQ_LT_FLOAT16 = 15,
    FL_PQ_LT_VARIANT = 16,
    FL_PQ_LT_GEOMETRY = 17,
    FL_PQ_LT_GEOGRAPHY = 18,
} fl_pq_logical_kind;

typedef enum fl_pq_time_unit {
    FL_PQ_MILLIS = 0,
    FL_PQ_MICROS = 1,
    FL_PQ_NANOS = 2
} fl_pq_time_unit;

typedef struct fl_pq_logical {
    fl_pq_logical_kind kind;
    int32_t decimal_scale;     /* DECIMAL */
    int32_t decimal_precision; /* DECIMAL */
    bool is_adjusted_to_utc;   /* TIME, TIMESTAMP */
    fl_pq_time_unit unit;      /* TIME, TIMESTAMP */
    int8_t int_bit_width;      /* INTEGER: 8, 16, 32, 64 */
    bool int_is_signed;        /* INTEGER */
    const char *crs;           /* GEOMETRY, GEOGRAPHY: NULL = unset (OGC:CRS84) */
    int32_t algorithm;         /* GEOGRAPHY: EdgeInterpolationAlgorithm, -1 = unset (SPHERICAL) */
} fl_pq_logical;

typedef struct fl_pq_bytes {
    const uint8_t *ptr; /* NULL when not set */
    uint32_t len;
} fl_pq_bytes;

/* struct Statistics */
typedef struct fl_pq_statistics {
    fl_pq_bytes max; /* deprecated signed-order max (field 1) */
    fl_pq_bytes min; /* deprecated (field 2) */
    bool null_count_set;
    int64_t null_count;
    bool distinct_count_set;
    int64_t distinct_count;
    fl_pq_bytes max_value; /* field 5: correct order per ColumnOrder */
    fl_pq_bytes min_value; /* field 6 */
    bool is_max_value_exact_set, is_max_value_exact;
    bool is_min_value_exact_set, is_min_value_exact;
    bool nan_count_set; /* field 9 (newer spec) */
    int64_t nan_count;
} fl_pq_statistics;

/* struct SchemaElement */
typedef struct fl_pq_schema_element {
    bool type_set;
    fl_pq_type type;
    int32_t type_length;         /* FIXED_LEN_BYTE_ARRAY; 0 if unset */
    fl_pq_repetition repetition; /* FL_PQ_REP_NONE if unset */
    const char *name;            /* NUL-terminated, in the arena */
    int32_t num_children;        /* 0 for leaves; -1 if unset */
    fl_pq_converted converted_type;
    int32_t scale, precision; /* legacy decimal; -1 if unset */
    bool field_id_set;
    int32_t field_id;
    fl_pq_logical logical; /* kind NONE if unset */
} fl_pq_schema_element;

typedef struct fl_pq_kv {
    const char *key;
    const char *value; /* NULL when the value is absent */
    uint32_t value_len;
} fl_pq_kv;

typedef struct fl_pq_page_encoding_stats {
    fl_pq_page_type page_type;
    fl_pq_encoding encoding;
    int32_t count;
} fl_pq_page_encoding_stats;

/* struct SizeStatistics (subset kept) */
typedef struct fl_pq_size_stats {
    bool unencoded_byte_array_data_bytes_set;
    int64_t unencoded_byte_array_data_bytes;
} fl_pq_size_stats;

/* struct GeospatialStatistics (field 17 of ColumnMetaData) with its
 * BoundingBox; z and m are optional in the box. */
typedef struct fl_pq_geo_stats {
    bool bbox_set;
    double xmin, xmax, ymin, ymax;
    bool z_set, m_set;
    double zmin, zmax, mmin, mmax;
    bool types_set;
    uint32_t ntypes;
    int32_t *types; /* geospatial_types: ISO WKB codes, e.g. 1, 1003, 3006 */
} fl_pq_geo_stats;

/* struct ColumnMetaData */
typedef struct fl_pq_column_meta {
    fl_pq_type type;
    uint32_t nencodings;
    fl_pq_encoding *encodings;
    uint32_t npath;
    const char **path_in_schema;
    fl_pq_codec codec;
    int64_t num_values;
    int64_t total_uncompressed_size;
    int64_t total_compressed_size;
    uint32_t nkv;
    fl_pq_kv *key_value_metadata;
    int64_t data_page_offset;
    int64_t index_page_offset;      /* -1 if unset */
    int64_t dictionary_page_offset; /* -1 if unset */
    bool statistics_set;
    fl_pq_statistics statistics;
    uint32_t nencoding_stats;
    fl_pq_page_encoding_stats *encoding_stats;
    int64_t bloom_filter_offset; /* -1 if unset */
    int32_t bloom_filter_length; /* -1 if unset */
    fl_pq_size_stats size_stats;
    bool geo_stats_set;
    fl_pq_geo_stats geo_stats;
} fl_pq_column_meta;

/* struct ColumnChunk */
typedef struct fl_pq_column_chunk {
    const char *file_path; /* NULL if unset */
    int64_t file_offset;
    bool meta_data_set;
    fl_pq_column_meta meta_data;
    int64_t offset_index_offset; /* -1 if unset */
    int32_t offset_index_length;
    int64_t column_index_offset; /* -1 if unset */
    int32_t column_index_length;
    bool encrypted; /* crypto_metadata or encrypted_column_metadata present */
} fl_pq_column_chunk;

typedef struct fl_pq_sorting_column {
    int32_t column_idx;
    bool descending;
    bool nulls_first;
} fl_pq_sorting_column;

/* struct RowGroup */
typedef struct fl_pq_row_group {
    uint32_t ncolumns;
    fl_pq_column_chunk *columns;
    int64_t total_byte_size;
    int64_t num_rows;
    uint32_t nsorting_columns;
    fl_pq_sorting_column *sorting_columns;
    int64_t file_offset;           /* -1 if unset */
    int64_t total_compressed_size; /* -1 if unset */
    int16_t ordinal;               /* -1 if unset */
} fl_pq_row_group;

/* union ColumnOrder: 1 = TypeDefinedOrder, 2 = IEEE754TotalOrder, 0 = unknown
 * (use UNKNOWN for a leaf when the footer has no column_orders).
 * UNSUPPORTED = a variant floe does not know (e.g. Int96TimestampOrder, or a
 * newer one): the spec says min_value/max_value must then be ignored. */
typedef enum fl_pq_column_order {
    FL_PQ_ORDER_UNKNOWN = 0,
    FL_PQ_ORDER_TYPE_DEFINED = 1,
    FL_PQ_ORDER_IEEE754 = 2,
    FL_PQ_ORDER_UNSUPPORTED = 3,
} fl_pq_column_order;

/* struct FileMetaData */
typedef struct fl_pq_file_meta {
    int32_t version;
    uint32_t nschema;
    fl_pq_schema_element *schema; /* depth-first, schema[0] is the root */
    int64_t num_rows;
    uint32_t nrow_groups;
    fl_pq_row_group *row_groups;
    uint32_t nkv;
    fl_pq_kv *key_value_metadata;
    const char *created_by; /* NULL if unset */
    uint32_t ncolumn_orders;
    fl_pq_column_order *column_orders;
    bool encryption_algorithm_set; /* plaintext footer of an encrypted file */
} fl_pq_file_meta;

/* struct DataPageHeader / DataPageHeaderV2 / DictionaryPageHeader, flattened */
typedef struct fl_pq_page_header {
    fl_pq_page_type type;
    int32_t uncompressed_page_size;
    int32_t compressed_page_size;
    bool crc_set;
    uint32_t crc;
    /* DATA_PAGE, DATA_PAGE_V2, DICTIONARY_PAGE */
    int32_t num_values;
    fl_pq_encoding encoding;
    /* DATA_PAGE (v1) */
    fl_pq_encoding definition_level_encoding;
    fl_pq_encoding repetition_level_encoding;
    bool statistics_set;
    fl_pq_statistics statistics;
    /* DATA_PAGE_V2 */
    int32_t num_nulls;
    int32_t num_rows;
    int32_t definition_levels_byte_length;
    int32_t repetition_levels_byte_length;
    bool is_compressed; /* default true */
    /* DICTIONARY_PAGE */
    bool is_sorted;
} fl_pq_page_header;

/* struct ColumnIndex */
typedef struct fl_pq_column_index {
    uint32_t npages;
    bool *null_pages;
    fl_pq_bytes *min_values;
    fl_pq_bytes *max_values;
    fl_pq_boundary_order boundary_order;
    int64_t *null_counts; /* NULL if unset */
} fl_pq_column_index;

/* struct PageLocation / OffsetIndex */
typedef struct fl_pq_page_location {
    int64_t offset;
    int32_t compressed_page_size;
    int64_t first_row_index;
} fl_pq_page_location;

typedef struct fl_pq_offset_index {
    uint32_t npages;
    fl_pq_page_location *page_locations;
} fl_pq_offset_index;

/* ---- Thrift compact protocol, decode (thrift_read.c) ----
 * Each decoder reads from buf[0..len), stores the structure in arena a, and
 * sets *consumed to the bytes used. Malformed input -> FL_ECORRUPT with the
 * byte offset (relative to buf) in the message. Nesting depth and container
 * sizes are bounded by len, so hostile input cannot exhaust memory. */
FL_API fl_status fl_pq_decode_file_meta(const uint8_t *buf, size_t len, fl_arena *a,
                                        fl_pq_file_meta *out, fl_error *err);
FL_API fl_status fl_pq_decode_page_header(const uint8_t *buf, size_t len, fl_arena *a,
                                          fl_pq_page_header *out, size_t *consumed, fl_error *err);
FL_API fl_status fl_pq_decode_column_index(const uint8_t *buf, size_t len, fl_arena *a,
                                           fl_pq_column_index *out, fl_error *err);
FL_API fl_status fl_pq_decode_offset_index(const uint8_t *buf, size_t len, fl_arena *a,
                                           fl_pq_offset_index *out, fl_error *err);

/* Checks the last 8 bytes of a Parquet file of file_size bytes (4-byte
 * little-endian footer length + "PAR1") and sets *footer_len. "PARE"
 * (encrypted footer) is FL_EUNSUPPORTED "encrypted Parquet files are not
 * supported"; a bad magic or a length beyond the file is FL_ECORRUPT. */
FL_API fl_status fl_pq_parse_tail(const uint8_t tail[8], uint64_t file_size, uint32_t *footer_len,
                                  fl_error *err);

/* ---- Thrift compact protocol, encode (thrift_write.c) ----
 * Each encoder appends to a growable byte buffer. */
typedef fl_buf fl_pq_buf; /* floe/buf.h; encoders write through .bytes */

FL_API fl_status fl_pq_encode_file_meta(const fl_pq_file_meta *m, fl_pq_buf *out, fl_error *err);
FL_API fl_status fl_pq_encode_page_header(const fl_pq_page_header *h, fl_pq_buf *out,
                                          fl_error *err);
FL_API fl_status fl_pq_encode_column_index(const fl_pq_column_index *ci, fl_pq_buf *out,
                                           fl_error *err);
FL_API fl_status fl_pq_encode_offset_index(const fl_pq_offset_index *oi, fl_pq_buf *out,
                                           fl_error *err);

/* ---- statistics as values (src/parquet/stats.c) ---- */

/* Describes one leaf column for the purposes of statistics. */
typedef struct fl_pq_leaf_info {
    fl_pq_type physical;
    int32_t type_length;          /* FLBA */
    const fl_pq_logical *logical; /* may be NULL */
    fl_pq_converted converted;
    int32_t scale, precision; /* legacy decimal */
    fl_pq_column_order order; /* from FileMetaData.column_orders */
    const fl_type *type;      /* the floe type the reader produces */
} fl_pq_leaf_info;

/* Converts a stats byte string to a value of leaf->type (bytes borrowed).
 * Returns false when the bytes cannot be interpreted (wrong size, unknown order). */
FL_API bool fl_pq_stat_to_value(const fl_pq_leaf_info *leaf, fl_pq_bytes raw, fl_value *out);

/* Min and max usable for pruning, choosing min_value/max_value or the legacy
 * fields as the spec allows. Returns false when there are none. */
FL_API bool fl_pq_stats_bounds(const fl_pq_leaf_info *leaf, const fl_pq_statistics *st,
                               fl_value *min, fl_value *max);

#endif
