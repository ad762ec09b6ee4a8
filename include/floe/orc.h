/*
 * orc.h - Apache ORC data files: a reader written from the ORC
 * specification (v0/v1: Hive 0.11+, ORC 1.x writers; pyarrow, Spark, Hive,
 * Trino).
 *
 * A reader opens the file tail (postscript, footer, metadata) through an
 * fl_file, maps the ORC type tree to a floe schema (Iceberg field ids from
 * the `iceberg.id` type attribute when present), and exposes the stripes and
 * their column statistics. A scan reads the projected top-level columns of
 * the chosen stripes into fl_batches of at most FL_BATCH_CAP rows.
 *
 * Type mapping (ORC -> floe):
 *   boolean -> BOOLEAN; tinyint, smallint, int -> INT32; bigint -> INT64
 *   (iceberg.long-type=TIME -> TIME); float -> FLOAT32; double -> FLOAT64;
 *   string, varchar, char -> STRING; binary -> BINARY; decimal(p,s) ->
 *   DECIMAL(p,s) (p = 0, the Hive 0.11 form, reads as 38); date -> DATE;
 *   timestamp -> TIMESTAMP_NS; timestamp with local time zone -> TIMESTAMPTZ_NS
 *   (micros instead when iceberg.timestamp-unit=MICROS, or when the file
 *   carries iceberg.id attributes without a unit: Iceberg's own timestamps);
 *   struct, list, map -> STRUCT, LIST, MAP. union is FL_EUNSUPPORTED.
 *   TIMESTAMP values are the writer's wall clock: seconds are read in the
 *   stripe's writerTimezone (system TZif files; none or UTC names = UTC).
 *
 * Errors: malformed bytes are FL_ECORRUPT with a message naming the file,
 * the stripe, the column and the byte offset (in the file for the tail and
 * stream placement, in the decompressed stream for values). Nothing in a
 * file can make the reader allocate beyond FL_ORC_MAX_STREAM per stream.
 *
 * Ownership: the reader borrows the fl_file (which must outlive it) and owns
 * its schema and metadata (freed by fl_orc_close). A scan borrows its reader;
 * close scans before their reader. Not thread-safe per object; several scans
 * of one reader may run in different threads.
 */
#ifndef FLOE_ORC_H
#define FLOE_ORC_H

#include "floe/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/error.h"
#include "floe/io.h"
#include "floe/parquet.h"
#include "floe/predicate.h"
#include "floe/types.h"
#include "floe/vector.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Upper bound of one decompressed stream (and of the footer). */
#define FL_ORC_MAX_STREAM ((size_t)1 << 31)

typedef enum fl_orc_compression {
    FL_ORC_NONE = 0,
    FL_ORC_ZLIB = 1,
    FL_ORC_SNAPPY = 2,
    FL_ORC_LZO = 3,
    FL_ORC_LZ4 = 4,
    FL_ORC_ZSTD = 5,
} fl_orc_compression;

/* ORC type kinds, numbered as in orc_proto.proto. */
typedef enum fl_orc_kind {
    FL_ORC_BOOLEAN = 0,
    FL_ORC_BYTE,
    FL_ORC_SHORT,
    FL_ORC_INT,
    FL_ORC_LONG,
    FL_ORC_FLOAT,
    FL_ORC_DOUBLE,
    FL_ORC_STRING,
    FL_ORC_BINARY,
    FL_ORC_TIMESTAMP,
    FL_ORC_LIST,
    FL_ORC_MAP,
    FL_ORC_STRUCT,
    FL_ORC_UNION,
    FL_ORC_DECIMAL,
    FL_ORC_DATE,
    FL_ORC_VARCHAR,
    FL_ORC_CHAR,
    FL_ORC_TIMESTAMP_INSTANT,
    FL_ORC_KIND__COUNT
} fl_orc_kind;

typedef struct fl_orc_attr {
    const char *key, *value;
} fl_orc_attr;

/* One entry of the footer's flattened type list; column id = index. */
typedef struct fl_orc_type {
    fl_orc_kind kind;
    uint32_t nsubtypes;
    const uint32_t *subtypes;  /* column ids of the children, each > this id */
    const char **field_names;  /* STRUCT: nsubtypes names */
    uint32_t max_length;       /* VARCHAR, CHAR */
    uint32_t precision, scale; /* DECIMAL */
    uint32_t nattrs;
    const fl_orc_attr *attrs;
} fl_orc_type;

typedef struct fl_orc_stripe {
    uint64_t offset, index_length, data_length, footer_length, rows;
} fl_orc_stripe;

/* Column statistics (file level or per stripe). Which min/max fields hold
 * depends on the column's kind: integers (incl. date) in imin/imax, float and
 * double in dmin/dmax, strings in smin/smax (bytes borrowed from the
 * reader), decimals as decimal strings in smin/smax, timestamps as
 * milliseconds UTC in imin/imax (plus the sub-millisecond nanos). */
typedef struct fl_orc_stats {
    uint64_t num_values;
    bool has_null_known, has_null;
    bool has_int, has_double, has_string, has_decimal, has_timestamp, has_bucket;
    bool has_sum;
    int64_t imin, imax, isum;
    double dmin, dmax, dsum;
    const char *smin, *smax; /* NUL-terminated copies */
    size_t smin_len, smax_len;
    int32_t ts_min_nanos, ts_max_nanos; /* nanos within the millisecond, + 1 when present */
    uint64_t true_count;                /* boolean: bucket count */
    uint64_t bytes_on_disk;
} fl_orc_stats;

typedef struct fl_orc_reader fl_orc_reader;

/* Opens f: reads the tail, decodes postscript, footer and metadata, maps the
 * schema. Every error is prefixed with f->path. */
FL_API fl_status fl_orc_open(fl_file *f, fl_orc_reader **out, fl_error *err);
FL_API void fl_orc_close(fl_orc_reader *r); /* NULL is allowed */

FL_API const fl_schema *fl_orc_schema(const fl_orc_reader *r);
FL_API uint64_t fl_orc_num_rows(const fl_orc_reader *r);
FL_API uint32_t fl_orc_num_stripes(const fl_orc_reader *r);
FL_API const fl_orc_stripe *fl_orc_stripe_info(const fl_orc_reader *r, uint32_t i);
FL_API uint32_t fl_orc_num_types(const fl_orc_reader *r);
FL_API const fl_orc_type *fl_orc_type_at(const fl_orc_reader *r, uint32_t column);
FL_API const char *fl_orc_kind_name(fl_orc_kind k);
FL_API const char *fl_orc_compression_name(fl_orc_compression c);

typedef struct fl_orc_file_info {
    fl_orc_compression compression;
    uint64_t block_size;
    uint32_t version_major, version_minor;
    uint32_t writer_version;
    uint32_t writer; /* footer writer id: 0 Java, 1 C++, 2 Presto, 3 Scritchy, 4 Trino ... */
    const char *software_version; /* may be NULL */
    uint32_t row_index_stride;
    uint64_t content_length, footer_length, metadata_length;
    uint32_t nuser_metadata;
    const fl_orc_attr *user_metadata; /* values are raw bytes, NUL-terminated */
} fl_orc_file_info;
FL_API const fl_orc_file_info *fl_orc_info(const fl_orc_reader *r);

/* Statistics of ORC column `column` (type id; 0 is the root): stripe < 0 for
 * the file, else that stripe (from the metadata section). NULL when the file
 * has none. */
FL_API const fl_orc_stats *fl_orc_column_stats(const fl_orc_reader *r, int32_t stripe,
                                               uint32_t column);
/* ORC column id of top-level field i of fl_orc_schema(). */
FL_API uint32_t fl_orc_field_column(const fl_orc_reader *r, uint32_t field);

typedef struct fl_orc_scan fl_orc_scan;

typedef struct fl_orc_scan_options {
    /* Top-level field indexes of fl_orc_schema(), in output order; NULL = all. */
    const uint32_t *fields;
    uint32_t nfields;
    /* Stripes to read, ascending; NULL = all. */
    const uint32_t *stripes;
    uint32_t nstripes;
    /* Optional: stripes whose statistics show no row can match are skipped
     * (terms on top-level int/date/string columns, by field id or name;
     * rows are not filtered). Borrowed for fl_orc_scan_open only. */
    const fl_predicate *predicate;
} fl_orc_scan_options;

FL_API fl_status fl_orc_scan_open(fl_orc_reader *r, const fl_orc_scan_options *opt,
                                  fl_orc_scan **out, fl_error *err);
/* The schema of the batches (the projected fields); owned by the scan. */
FL_API const fl_schema *fl_orc_scan_schema(const fl_orc_scan *s);
/* Fills b (fl_batch_init'ed on fl_orc_scan_schema) with the next rows;
 * *eof = true and b->nrows = 0 when done. */
FL_API fl_status fl_orc_scan_next(fl_orc_scan *s, fl_batch *b, bool *eof, fl_error *err);
FL_API void fl_orc_scan_close(fl_orc_scan *s); /* NULL is allowed */
/* Stripes the scan was asked for, and how many of them the predicate pruned. */
FL_API void fl_orc_scan_counts(const fl_orc_scan *s, uint32_t *stripes, uint32_t *pruned);

/* ---- writer ----
 *
 * Batches of a floe schema become an ORC file (version 0.12, RLE v2,
 * DIRECT_V2 encodings, no row index), typed as the reader's table above
 * maps back: INT32 -> int, INT64 -> bigint, TIME -> bigint with
 * iceberg.long-type=TIME, TIMESTAMP[_NS] -> timestamp, TIMESTAMPTZ[_NS] ->
 * timestamp with local time zone (with iceberg.timestamp-unit MICROS or
 * NANOS), UUID and FIXED -> binary with iceberg.binary-type, and every field
 * with iceberg.id / iceberg.required when it has a field id. Stripe and
 * file statistics are written (min/max, sums, hasNull); the writer zone is
 * UTC. The writer borrows out: after fl_orc_writer_close the caller closes
 * it (or aborts it after a failure).
 */
typedef struct fl_orc_writer fl_orc_writer;

typedef struct fl_orc_write_options {
    fl_orc_compression compression; /* used when compression_set; default ZSTD */
    bool compression_set;
    int compression_level;    /* 0 = codec default */
    uint64_t stripe_bytes;    /* target encoded bytes per stripe, 0 = 64 MiB */
    uint64_t stripe_rows;     /* also cut a stripe at this many rows, 0 = no limit */
    uint32_t block_bytes;     /* compression chunk size, 0 = 256 KiB (at most 4 MiB) */
    const fl_orc_attr *metadata; /* user metadata (values NUL-terminated text) */
    uint32_t nmetadata;
} fl_orc_write_options;

FL_API fl_status fl_orc_writer_open(fl_output *out, const fl_schema *schema,
                                    const fl_orc_write_options *opt, fl_orc_writer **w,
                                    fl_error *err);
/* Appends the live rows of b (its selection applied); a null in a required
 * field fails naming it. */
FL_API fl_status fl_orc_writer_write(fl_orc_writer *w, const fl_batch *b, fl_error *err);
/* Bytes written so far plus an estimate of the buffered stripe. */
FL_API uint64_t fl_orc_writer_bytes(const fl_orc_writer *w);
/* Writes the last stripe and the tail, fills result (rows, size, stripe
 * offsets, per-leaf counts and bounds for Iceberg metrics; NULL allowed;
 * free with fl_parquet_file_result_free), frees w. */
FL_API fl_status fl_orc_writer_close(fl_orc_writer *w, fl_parquet_file_result *result,
                                     fl_error *err);
FL_API void fl_orc_writer_abort(fl_orc_writer *w); /* frees w, NULL allowed */

#ifdef __cplusplus
}
#endif
#endif
