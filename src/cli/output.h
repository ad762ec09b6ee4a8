/*
 * output.h - rendering floe values and batches as text: an aligned table for
 * people, CSV (RFC 4180) and JSON lines for programs, for the file
 * inspection tools (floe parquet|avro|orc cat, floe convert). Tables and
 * query results (floe sql, floe table cat) print through the SQL engine's
 * formatter instead (cmd_sql.h, fl_sqlout_batches).
 *
 * Value conventions (the same as the interop oracles print, so outputs diff
 * directly against DuckDB / arrow-rs / hyparquet after light normalization):
 *
 *   JSON                               text (table, CSV)
 *   BOOLEAN   true / false             true / false
 *   INT32     number                   digits
 *   INT64     "digits" (string: exact beyond 2^53)
 *   DECIMAL   "-123.45" (exact string)
 *   FLOAT*    shortest round-trip repr of the value in its own width
 *             (float32 0.1f prints 0.1); NaN/inf as "NaN", "Infinity",
 *             "-Infinity" strings in JSON, bare words in text
 *   DATE      "YYYY-MM-DD" (proleptic Gregorian; astronomical year, so year 0
 *             is 1 BC and earlier years print with a '-')
 *   TIME      "HH:MM:SS.ffffff" (always six digits)
 *   TIMESTAMP "YYYY-MM-DD HH:MM:SS.ffffff" (nine digits for *_NS); TZ types
 *             append "+00" (values are UTC), as DuckDB prints them
 *   STRING    JSON string (invalid UTF-8 bytes become U+FFFD)
 *   BINARY, FIXED  "\\x<lowercase hex>" (Postgres bytea style)
 *   UUID      "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
 *   STRUCT    {"field": value, ...}    (text: the JSON form)
 *   LIST      [value, ...]
 *   MAP       [{"key": k, "value": v}, ...]  (DuckDB's form: keys need not be strings)
 *   null      null                     table: NULL; CSV: empty unquoted field
 *
 * CSV: a field is quoted when it contains ',', '"', CR, LF, or is empty
 * (so an empty string "" differs from a null); quotes double inside quotes.
 * Table: columns padded to the widest cell among the first 1000 rows (cells
 * longer than 60 columns are cut with "..."), then later rows reuse those widths.
 *
 * Ownership: an fl_buf owns its malloc'd bytes (fl_buf_free). A
 * fl_row_printer borrows its FILE and schema.
 */
#ifndef FLOE_CLI_OUTPUT_H
#define FLOE_CLI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "floe/format.h"
#include "floe/buf.h"
#include "floe/error.h"
#include "floe/types.h"
#include "floe/vector.h"

/* Growable strings are fl_buf (floe/buf.h). */

/* ---- scalar pieces (no allocation; buf must hold at least 64 bytes) ---- */

/* Shortest decimal text that parses back to the same double / float. */
void fl_format_double(double d, char *buf, size_t cap);
void fl_format_float(float f, char *buf, size_t cap);
/* fl_format_decimal (unscaled 128-bit integer at a scale): floe/format.h */
void fl_format_date(int32_t days, char *buf, size_t cap);
void fl_format_time(int64_t micros, char *buf, size_t cap);
/* digits = 6 (micros) or 9 (nanos); tz appends "+00". */
void fl_format_timestamp(int64_t units, int digits, bool tz, char *buf, size_t cap);
void fl_format_uuid(const uint8_t b[16], char *buf, size_t cap);

/* Days since 1970-01-01 <-> civil dates: floe/calendar.h. */

/* ---- values ---- */

/* Appends row `row` of vector v (any encoding, any type) in JSON form. */
fl_status fl_format_json(fl_buf *sb, const fl_vector *v, uint32_t row, fl_error *err);
/* Appends the text (table/CSV) form; null appends nothing and sets *is_null. */
fl_status fl_format_text(fl_buf *sb, const fl_vector *v, uint32_t row, bool *is_null,
                         fl_error *err);
/* Reads row `row` of a primitive vector (any encoding) as a scalar; byte
 * payloads point into the vector. Returns false for nested types or a
 * corrupt dictionary index. */
bool fl_vector_row_value(const fl_vector *v, uint32_t row, fl_value *out);
/* A scalar (statistics bound, literal) in text form; NULL values print "NULL". */
fl_status fl_format_scalar(fl_buf *sb, const fl_value *val, fl_error *err);
/* Appends s (len bytes) as a JSON string literal with quotes. */
fl_status fl_json_string(fl_buf *sb, const uint8_t *s, size_t len, fl_error *err);

/* ---- batches ---- */

typedef enum fl_out_format {
    FL_OUT_TABLE = 0,
    FL_OUT_CSV,
    FL_OUT_JSONL,
} fl_out_format;

/* Parses "table", "csv", "jsonl" (also "json", "ndjson"). */
bool fl_out_format_parse(const char *s, fl_out_format *out);

typedef struct fl_row_printer fl_row_printer;

/* header: print the CSV header row / table header (ignored for JSONL). */
fl_status fl_row_printer_open(FILE *out, fl_out_format fmt, const fl_schema *schema, bool header,
                              fl_row_printer **p, fl_error *err);
/* Prints the live rows of b (selection applied), at most *limit when limit
 * is non-NULL (decremented by the rows printed). */
fl_status fl_row_printer_batch(fl_row_printer *p, const fl_batch *b, uint64_t *limit,
                               fl_error *err);
/* Flushes buffered table rows and the footer; frees p. */
fl_status fl_row_printer_close(fl_row_printer *p, fl_error *err);
void fl_row_printer_free(fl_row_printer *p); /* without flushing; NULL allowed */
uint64_t fl_row_printer_rows(const fl_row_printer *p);

/* Pulls batches from next(src, ...) until it reports the end and prints
 * them to stdout in fmt (with the header), at most *limit rows when limit is
 * non-NULL. */
typedef fl_status (*fl_batch_next_fn)(void *src, fl_batch *b, bool *eof, fl_error *err);
fl_status fl_print_batches(fl_out_format fmt, const fl_schema *schema, const uint64_t *limit,
                           fl_batch_next_fn next, void *src, fl_error *err);

#endif
