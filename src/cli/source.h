/*
 * source.h - row sources and sinks for `floe convert`: CSV, JSON lines and
 * Parquet files seen as a schema plus a stream of batches, and the matching
 * writers.
 *
 * CSV (RFC 4180): the first record is the header. Fields may be quoted with
 * '"' (doubled inside); an empty unquoted field is null, "" is an empty
 * string. Types come from --schema or are inferred from the first
 * FL_INFER_ROWS records: boolean (true/false), long, double, date,
 * timestamp[tz], else string; a column with only nulls is string.
 *
 * JSON lines: one object per line (blank lines skipped). Types are inferred
 * from the first FL_INFER_ROWS objects: keys become columns in order of first
 * appearance; true/false -> boolean, integers -> long, numbers -> double,
 * strings -> date / timestamp when every sampled value parses so, else
 * string; objects -> struct (fields merged), arrays -> list (elements
 * merged); mixed kinds -> string (non-strings kept as their JSON text).
 * With --schema, values convert to the given types: strings parse with
 * textparse.h (so "12.50" fills a decimal exactly), maps accept
 * [{"key":..,"value":..}] or an object.
 *
 * A value that does not fit the chosen type later in the file is an error
 * naming the file, line and column.
 *
 * Ownership: a source owns its schema (arena) and file handles; batches it
 * fills are the caller's (fl_batch_init on fl_source_schema()).
 */
#ifndef FLOE_CLI_SOURCE_H
#define FLOE_CLI_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/error.h"
#include "floe/parquet.h"
#include "floe/types.h"
#include "floe/vector.h"

#define FL_INFER_ROWS 20000

typedef enum fl_file_format {
    FL_FMT_UNKNOWN = 0,
    FL_FMT_CSV,
    FL_FMT_JSONL,
    FL_FMT_PARQUET,
} fl_file_format;

/* By extension (.csv .tsv .jsonl .ndjson .json .parquet .pq), or a --from/--to name. */
fl_file_format fl_file_format_from_path(const char *path);
bool fl_file_format_parse(const char *name, fl_file_format *out);

typedef struct fl_source fl_source;

typedef struct fl_source_options {
    const fl_schema *schema; /* NULL = infer (CSV/JSONL); ignored for Parquet */
    char delimiter;          /* CSV; 0 = ',' (tab for .tsv) */
    bool verify_crc;         /* Parquet */
} fl_source_options;

fl_status fl_source_open(const char *path, fl_file_format fmt, const fl_source_options *opt,
                         fl_source **out, fl_error *err);
const fl_schema *fl_source_schema(const fl_source *s);
/* Fills b (reset first) with up to FL_BATCH_CAP rows; *eof when none are left. */
fl_status fl_source_next(fl_source *s, fl_batch *b, bool *eof, fl_error *err);
/* The Parquet reader behind a Parquet source (kv metadata etc.), else NULL. */
fl_parquet_reader *fl_source_parquet(fl_source *s);
void fl_source_close(fl_source *s);

/* Format-specific constructors (csv.c, jsonl.c, cmd_convert.c). */
fl_status fl_csv_source_open(const char *path, const fl_source_options *opt, fl_source **out,
                             fl_error *err);
fl_status fl_jsonl_source_open(const char *path, const fl_source_options *opt, fl_source **out,
                               fl_error *err);

/* The vtable a source implements. */
typedef struct fl_source_ops {
    fl_status (*next)(fl_source *s, fl_batch *b, bool *eof, fl_error *err);
    void (*close)(fl_source *s);
} fl_source_ops;

struct fl_source {
    const fl_source_ops *ops;
    const fl_schema *schema;
    fl_parquet_reader *parquet; /* Parquet sources only */
};

#endif
