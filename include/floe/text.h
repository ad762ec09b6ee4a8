/*
 * text.h - text formats in libfloe: parsing text into typed values
 * (textparse.c) and the CSV and JSON-lines row sources (csv.c, jsonl.c) used
 * by `floe load`, `floe convert` and the SQL engine's read_csv/read_json
 * scans.
 *
 * ---- values (textparse.c) ----
 * Text into typed floe values: CSV cells, JSON strings, command-line
 * literals (--where) and type specs (--schema).
 *
 * Accepted spellings (the inverse of the CLI output formats, plus common variants):
 *   BOOLEAN    true/false, t/f, yes/no, 1/0 (case-insensitive)
 *   INT32/64   [+-]digits, range-checked
 *   FLOAT*     strtod syntax, NaN, Infinity, -Infinity, inf
 *   DECIMAL    [+-]digits[.digits][e[+-]digits]; extra fraction digits round
 *              half away from zero; more than P digits is an overflow
 *   DATE       [-]YYYY-MM-DD
 *   TIME       HH:MM[:SS[.f{1,9}]] (nanosecond digits truncated to micros)
 *   TIMESTAMP  DATE[( |T)HH:MM[:SS[.f{1,9}]]][Z|+HH[[:]MM]|-HH[[:]MM]]; an
 *              offset converts to UTC
 *   UUID       8-4-4-4-12 hex, or 32 hex digits
 *   BINARY, FIXED  "\x<hex>" decodes hex; any other text is taken as bytes
 *   STRING     as is
 *
 * Type specs: Iceberg primitive names (long, int, decimal(10,2), fixed[4],
 * timestamptz ...) plus SQL aliases (bigint, int64, integer, int32, double,
 * float64, float, real, float32, varchar, text, bool, blob, bytes), and the
 * nested forms struct<a:int,b:string>, list<T>, map<K,V>.
 *
 * ---- row sources (csv.c, jsonl.c, source.c) ----
 * CSV and JSON lines files seen as a schema plus a stream of batches. Files
 * are read through FileIO (fl_source_options.io; NULL = the local
 * filesystem), front to back in 1 MiB ranged reads.
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
 * Ownership: a source owns its schema (arena) and file handles; it borrows
 * opt->io, which must outlive it; batches it fills are the caller's
 * (fl_batch_init on fl_source_schema()).
 */
#ifndef FLOE_TEXT_H
#define FLOE_TEXT_H

#include "floe/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"
#include "floe/io.h"
#include "floe/parquet.h"
#include "floe/types.h"
#include "floe/vector.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- values ---- */

FL_API bool fl_parse_bool(const char *s, size_t n, bool *out);
FL_API bool fl_parse_int64(const char *s, size_t n, int64_t *out);
FL_API bool fl_parse_double(const char *s, size_t n, double *out);
/* Returns FL_OK, FL_ESYNTAX or FL_EOVERFLOW (more than precision digits). */
FL_API fl_status fl_parse_decimal(const char *s, size_t n, int32_t precision, int32_t scale,
                                  fl_i128 *out);
FL_API bool fl_parse_date(const char *s, size_t n, int32_t *days);
FL_API bool fl_parse_time(const char *s, size_t n, int64_t *micros);
/* digits: 6 for micros, 9 for nanos. *had_zone tells whether an offset/Z was given. */
FL_API bool fl_parse_timestamp(const char *s, size_t n, int digits, int64_t *out, bool *had_zone);
FL_API bool fl_parse_uuid(const char *s, size_t n, uint8_t out[16]);
/* "\x<hex>" -> bytes into out (cap >= n/2); returns false if not that form. */
FL_API bool fl_parse_hex_bytes(const char *s, size_t n, uint8_t *out, size_t *out_len);

/* Parses text as a value of primitive type t and appends it to v (FLAT).
 * Errors (FL_ESYNTAX / FL_EOVERFLOW) name the text but not the location;
 * callers prefix line and column. */
FL_API fl_status fl_parse_append(fl_vector *v, const char *s, size_t n, fl_error *err);

/* Parses text into a scalar of primitive type t; bytes are copied into a. */
FL_API fl_status fl_parse_value(const fl_type *t, const char *s, size_t n, fl_arena *a,
                                fl_value *out, fl_error *err);

/* Parses one type spec (see above) starting at *p, advancing *p past it.
 * Nested field ids are assigned from *next_id (incremented). */
FL_API fl_status fl_parse_type_spec(const char **p, fl_arena *a, int32_t *next_id, fl_type *out,
                                    fl_error *err);

/* Parses "name:type,name:type,..." into a schema with field ids 1..n for
 * the top-level columns, then nested ids after them. */
FL_API fl_status fl_parse_schema_spec(const char *spec, fl_arena *a, fl_schema *out, fl_error *err);

/* ---- row sources ---- */

#define FL_INFER_ROWS 20000

typedef struct fl_source fl_source;

typedef struct fl_source_options {
    const fl_schema *schema; /* NULL = infer (CSV/JSONL); ignored for Parquet */
    char delimiter;          /* CSV; 0 = ',' (tab for .tsv) */
    bool no_header;          /* CSV: the first record is data (columns named column1..) */
    bool verify_crc;         /* Parquet */
    fl_fileio *io;           /* CSV/JSONL: read through it (borrowed); NULL = local files */
} fl_source_options;

FL_API const fl_schema *fl_source_schema(const fl_source *s);
/* Fills b (reset first) with up to FL_BATCH_CAP rows; *eof when none are left. */
FL_API fl_status fl_source_next(fl_source *s, fl_batch *b, bool *eof, fl_error *err);
FL_API void fl_source_close(fl_source *s);
/* How far the source has read: *done of *total units (bytes of the file for
 * CSV and JSON lines, rows for Parquet); *total 0 when unknown. For progress
 * displays only. */
FL_API void fl_source_progress(const fl_source *s, uint64_t *done, uint64_t *total);

/* Format-specific constructors. */
FL_API fl_status fl_csv_source_open(const char *path, const fl_source_options *opt, fl_source **out,
                                    fl_error *err);
FL_API fl_status fl_jsonl_source_open(const char *path, const fl_source_options *opt,
                                      fl_source **out, fl_error *err);

/* The vtable a source implements. */
typedef struct fl_source_ops {
    fl_status (*next)(fl_source *s, fl_batch *b, bool *eof, fl_error *err);
    void (*close)(fl_source *s);
} fl_source_ops;

struct fl_source {
    const fl_source_ops *ops;
    const fl_schema *schema;
    fl_parquet_reader *parquet; /* Parquet sources only (the CLI's convert), else NULL */
    uint64_t done, total;       /* progress (fl_source_progress), kept by the source's next */
};

#ifdef __cplusplus
}
#endif
#endif
