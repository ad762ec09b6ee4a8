/*
 * parquet.h - reading and writing Apache Parquet files.
 *
 * Reader: fl_parquet_open() reads and decodes the footer (through FileIO,
 * ranged reads only) and maps the Parquet schema to a floe schema (types.h),
 * keeping field ids. A scan (fl_parquet_scan_*) projects columns by name or by
 * field id, prunes row groups by statistics and pages by the column/offset
 * index given a predicate, and produces batches (vector.h). Unprojected
 * column chunks are never read.
 *
 * Writer: fl_parquet_writer_* takes batches of a floe schema and writes a
 * file with field ids, statistics, page indexes, optional bloom filters and
 * the chosen codec (ZSTD by default).
 *
 * Ownership: the reader borrows its fl_file (caller closes it after
 * fl_parquet_close); a scan borrows its reader. The writer borrows its
 * fl_output: after fl_parquet_writer_close() the caller closes the output
 * (which commits it) or aborts it.
 */
#ifndef FLOE_PARQUET_H
#define FLOE_PARQUET_H

#include "floe/export.h"

#include <stdbool.h>
#include <stdint.h>

#include "floe/error.h"
#include "floe/io.h"
#include "floe/predicate.h"
#include "floe/types.h"
#include "floe/vector.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Compression codecs, numbered as Parquet's CompressionCodec. */
typedef enum fl_parquet_codec {
    FL_PARQUET_UNCOMPRESSED = 0,
    FL_PARQUET_SNAPPY = 1,
    FL_PARQUET_GZIP = 2,
    FL_PARQUET_BROTLI = 4,
    FL_PARQUET_LZ4 = 5, /* read only (Hadoop framing) */
    FL_PARQUET_ZSTD = 6,
    FL_PARQUET_LZ4_RAW = 7,
} fl_parquet_codec;

/* ---- reader ---- */

typedef struct fl_parquet_reader fl_parquet_reader;
typedef struct fl_parquet_scan fl_parquet_scan;

typedef struct fl_parquet_read_options {
    bool verify_crc;        /* check page CRCs where present */
    uint64_t max_page_size; /* refuse pages larger than this (0 = 1 GiB default) */
} fl_parquet_read_options;

FL_API fl_status fl_parquet_open(fl_file *f, const fl_parquet_read_options *opt,
                                 fl_parquet_reader **out, fl_error *err);
FL_API void fl_parquet_close(fl_parquet_reader *r); /* NULL allowed */

/* Footer sharing (caches): a new reader over f whose decoded footer and
 * schema belong to base (no footer read or decode). base must outlive the new
 * reader; f must be the same file (same size). fl_parquet_detach(base) drops
 * base's borrowed file so a cache can keep base after closing it: a detached
 * reader is only shared and asked for metadata, never scanned. */
FL_API fl_status fl_parquet_open_shared(const fl_parquet_reader *base, fl_file *f,
                                        fl_parquet_reader **out, fl_error *err);
FL_API void fl_parquet_detach(fl_parquet_reader *r);
/* Bytes of memory the reader's decoded footer and schema take. */
FL_API size_t fl_parquet_reader_bytes(const fl_parquet_reader *r);

/* The file's schema as floe types (lives as long as the reader). */
FL_API const fl_schema *fl_parquet_schema(const fl_parquet_reader *r);
FL_API int64_t fl_parquet_num_rows(const fl_parquet_reader *r);
FL_API uint32_t fl_parquet_num_row_groups(const fl_parquet_reader *r);
/* The decoded footer (struct fl_pq_file_meta, src/parquet/parquet_meta.h). */
FL_API const struct fl_pq_file_meta *fl_parquet_footer(const fl_parquet_reader *r);

typedef struct fl_parquet_scan_options {
    const char *const *columns; /* top-level names to project; NULL with ncolumns 0 = all */
    uint32_t ncolumns;
    const int32_t *field_ids; /* or project by field id (top-level or nested) */
    uint32_t nfield_ids;
    const fl_predicate *predicate; /* may be NULL: prune nothing */
    bool no_page_index;            /* skip page-level pruning */
    bool filter_rows;              /* also apply predicate per row (sets batch selection) */
    const uint32_t *row_groups;    /* restrict to these row groups (NULL = all) */
    uint32_t nrow_groups;
    /* with exactly one row group: only its rows [row_lo, row_hi) (row_hi 0 = all). With an offset
     * index the pages outside are skipped unread, so several scans can split one row group. */
    int64_t row_lo, row_hi;
    uint32_t batch_rows; /* 0 = FL_BATCH_CAP */
} fl_parquet_scan_options;

typedef struct fl_parquet_scan_stats {
    uint32_t row_groups_total, row_groups_pruned;
    uint64_t pages_total, pages_pruned;
    uint64_t rows_produced;
    uint64_t bytes_read; /* through FileIO, by this scan */
} fl_parquet_scan_stats;

FL_API fl_status fl_parquet_scan_open(fl_parquet_reader *r, const fl_parquet_scan_options *opt,
                                      fl_parquet_scan **out, fl_error *err);
/* The projected schema, in projection order. Initialize batches with it. */
FL_API const fl_schema *fl_parquet_scan_schema(const fl_parquet_scan *s);
/* Restarts scan s over row groups rgs[0..n) (NULL = every row group of
 * the file), keeping its projection, predicate, column buffers (windows,
 * page and dictionary buffers) and statistics, which keep counting. Split
 * scans (one morsel per row group) move a scan from slice to slice without
 * reallocating multi-MB buffers for every row group. */
FL_API fl_status fl_parquet_scan_restart(fl_parquet_scan *s, const uint32_t *rgs, uint32_t n,
                                         fl_error *err);
/* Restarts scan s over rows [row_lo, row_hi) of row group rg only (a row-range split of a big row
 * group: fl_parquet_scan_options.row_lo). */
FL_API fl_status fl_parquet_scan_restart_rows(fl_parquet_scan *s, uint32_t rg, int64_t row_lo,
                                              int64_t row_hi, fl_error *err);
/* Fills b (initialized with fl_batch_init on the scan schema; reset here)
 * with the next rows. Sets *eof and leaves b empty when there are no more. */
FL_API fl_status fl_parquet_scan_next(fl_parquet_scan *s, fl_batch *b, bool *eof, fl_error *err);
FL_API void fl_parquet_scan_get_stats(const fl_parquet_scan *s, fl_parquet_scan_stats *out);
FL_API void fl_parquet_scan_close(fl_parquet_scan *s); /* NULL allowed */

/* ---- writer ---- */

typedef struct fl_parquet_writer fl_parquet_writer;

typedef struct fl_kv_pair {
    const char *key;
    const char *value;
} fl_kv_pair;

typedef struct fl_parquet_write_options {
    fl_parquet_codec codec;        /* default (zero-initialized options) is ZSTD, see below */
    bool codec_set;                /* false = ZSTD */
    int compression_level;         /* 0 = codec default */
    uint64_t row_group_bytes;      /* target uncompressed bytes per row group, 0 = 128 MiB */
    uint64_t row_group_rows;       /* 0 = no row limit */
    uint32_t page_bytes;           /* target page size, 0 = 1 MiB */
    uint32_t page_rows;            /* 0 = 20000 rows max per page */
    bool no_dictionary;            /* disable dictionary encoding */
    uint32_t dictionary_max_bytes; /* fall back to PLAIN beyond this, 0 = 1 MiB */
    bool no_statistics;
    bool no_page_index;
    bool write_crc;                   /* page CRCs */
    int data_page_version;            /* 1 (default) or 2 */
    const char *const *bloom_columns; /* dotted paths that get split-block bloom filters */
    uint32_t nbloom_columns;
    double bloom_fpp;     /* 0 = 0.01 */
    const fl_kv_pair *kv; /* extra key-value metadata */
    uint32_t nkv;
    const char *created_by; /* NULL = "floe version X (build Y)" */
} fl_parquet_write_options;

FL_API fl_status fl_parquet_writer_open(fl_output *out, const fl_schema *schema,
                                        const fl_parquet_write_options *opt, fl_parquet_writer **w,
                                        fl_error *err);
/* Appends the live rows of b (its selection applied). */
FL_API fl_status fl_parquet_writer_write(fl_parquet_writer *w, const fl_batch *b, fl_error *err);

/* Per-column facts of a written file, for Iceberg data-file metrics. */
typedef struct fl_parquet_column_result {
    int32_t field_id;
    const char *path;    /* dotted */
    int64_t value_count; /* leaf values incl. nulls */
    int64_t null_count;
    int64_t nan_count; /* -1 if not a float column */
    int64_t compressed_size;
    bool has_bounds;
    fl_value lower, upper; /* bytes point into the result arena */
} fl_parquet_column_result;

typedef struct fl_parquet_file_result {
    int64_t num_rows;
    uint64_t file_size;
    uint32_t ncolumns; /* leaf columns */
    fl_parquet_column_result *columns;
    uint32_t nsplit_offsets;
    int64_t *split_offsets; /* row-group start offsets */
    fl_arena arena;         /* owns the arrays above; free with fl_parquet_file_result_free */
} fl_parquet_file_result;

/* Flushes, writes the footer, frees w. result may be NULL. */
FL_API fl_status fl_parquet_writer_close(fl_parquet_writer *w, fl_parquet_file_result *result,
                                         fl_error *err);
FL_API void fl_parquet_writer_abort(fl_parquet_writer *w); /* frees w, NULL allowed */
FL_API void fl_parquet_file_result_free(fl_parquet_file_result *r);

#ifdef __cplusplus
}
#endif
#endif
