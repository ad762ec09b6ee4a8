/*
 * calendar.h - proleptic Gregorian calendar arithmetic, the one copy.
 *
 * Dates are day counts since 1970-01-01 (Iceberg/Arrow DATE); timestamps are
 * unit counts since 1970-01-01T00:00:00. Years are astronomical: year 0 is
 * 1 BC, year -1 is 2 BC (callers that print "BC" convert). The civil
 * conversions are H. Hinnant's days_from_civil / civil_from_days, exact for
 * every day count whose year fits in int64 (|days| < 2^60).
 *
 * Pure functions over values: no allocation, no state, thread-safe.
 */
#ifndef FLOE_CALENDAR_H
#define FLOE_CALENDAR_H

#include "floe/export.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FL_SECS_PER_DAY 86400LL
#define FL_US_PER_SEC 1000000LL
#define FL_US_PER_DAY 86400000000LL
#define FL_NS_PER_US 1000LL
/* PostgreSQL's epoch (2000-01-01) relative to Unix's, in days and microseconds. */
#define FL_PG_EPOCH_DAYS 10957LL
#define FL_PG_EPOCH_US (FL_PG_EPOCH_DAYS * FL_US_PER_DAY)

/* Days since 1970-01-01 of year y, month m (1..12), day d (1..31); d past the
 * month's end counts on into the next month. */
FL_API int64_t fl_days_from_civil(int64_t y, unsigned m, unsigned d);

/* Inverse of fl_days_from_civil: *m in 1..12, *d in 1..31. */
FL_API void fl_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);

/* Gregorian leap rule: divisible by 4, except centuries not divisible by 400. */
FL_API bool fl_is_leap_year(int64_t y);

/* Length of month m (1..12) in year y; 0 for a month out of range. */
FL_API unsigned fl_days_in_month(int64_t y, unsigned m);

/* Floor division and the matching non-negative remainder (b > 0), for
 * splitting negative timestamps into days and time of day. */
FL_API int64_t fl_floor_div(int64_t a, int64_t b);
FL_API int64_t fl_floor_mod(int64_t a, int64_t b);

#ifdef __cplusplus
}
#endif

#endif
