/*
 * format.h - value-to-text primitives shared by every writer of text: the
 * shortest round-trip digits of a double, its shortest "%g" spelling, and
 * the ISO 8601 spelling of a date.
 *
 * Each output format still lays the digits out its own way (PostgreSQL's
 * float8out, JavaScript's Number#toString in the CLI, JSON reals in Avro and
 * JSON lines); what they share is the digit search, done once here: the
 * fewest significant digits (1..17 for a double, 1..9 for a float) that
 * strtod / strtof read back to the same value.
 *
 * Pure functions: no allocation, no state, thread-safe. Functions returning
 * int return what snprintf would (the length wanted, excluding the NUL).
 */
#ifndef FLOE_FORMAT_H
#define FLOE_FORMAT_H

#include "floe/export.h"
#include "floe/types.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_digits {
    char d[24]; /* significant digits, NUL-terminated, no trailing zeros (at least one digit) */
    int n;      /* strlen(d) */
    int exp10;  /* |value| = d[0].d[1]d[2]... x 10^exp10 */
    bool neg;   /* sign bit (so -0.0 is negative) */
} fl_digits;

/* Shortest digits of finite v; as_float: the shortest that read back as the
 * float (float)v. Zero gives "0" with exp10 0. */
FL_API void fl_shortest_digits(double v, bool as_float, fl_digits *out);

/* The shortest "%.Ng" (N = 1..17) spelling of finite v that reads back to v:
 * "0.1", "1e+100", "123". */
FL_API int fl_format_double_g(double v, char *buf, size_t cap);

/* YYYY-MM-DD of a day count since 1970-01-01 (proleptic Gregorian); a year
 * before 0 is written -YYYY (ISO 8601 / java.time), years past 9999 in full. */
FL_API int fl_format_iso_date(int64_t days, char *buf, size_t cap);

/* The plain decimal spelling of an unscaled value at scale: "-12.50",
 * "0.05", "7" (as Iceberg's JSON and ORC statistics write decimals);
 * truncated to cap - 1 bytes, always NUL-terminated. */
FL_API void fl_format_decimal(fl_i128 v, int32_t scale, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
