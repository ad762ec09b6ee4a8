/*
 * cube_dates.c - Cube's relative date ranges ("last 7 days", "this
 * quarter", "from 3 months ago to now") as two calendar dates, inclusive,
 * in the query's time zone, resolved when the query is parsed so that the
 * compiled SQL, and the receipt replaying it, hold plain dates.
 *
 * Understood (case and spacing free): today, yesterday, tomorrow;
 * this|last|next <unit>; last|next <n> <unit>s; from <n> <unit>s ago to
 * now; units day, week (Monday first, as ISO and Cube), month, quarter,
 * year. "last n units" ends with the unit before the current one
 * (last 7 days = the 7 days before today), "next n units" starts with the
 * one after it, as in Cube. Anything else is an error naming the text.
 *
 * Dates are computed as day numbers (days since 1970-01-01) with the civil
 * calendar conversions of proleptic Gregorian arithmetic.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "floe/vector.h"
#include "semantic/cube_query.h"

typedef struct civil {
    int64_t y;
    int m, d;
} civil;

static int64_t days_from_civil(civil c)
{
    int64_t y = c.m <= 2 ? c.y - 1 : c.y;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (c.m + (c.m > 2 ? -3 : 9)) + 2) / 5 + c.d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static civil civil_from_days(int64_t z)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    civil c;
    c.d = (int)(doy - (153 * mp + 2) / 5 + 1);
    c.m = (int)(mp < 10 ? mp + 3 : mp - 9);
    c.y = yoe + era * 400 + (c.m <= 2);
    return c;
}

typedef enum unit { U_DAY, U_WEEK, U_MONTH, U_QUARTER, U_YEAR } unit;

static int64_t add_months(int64_t day, int64_t months)
{
    civil c = civil_from_days(day);
    int64_t total = c.y * 12 + (c.m - 1) + months;
    civil r = {total >= 0 ? total / 12 : (total - 11) / 12, 0, 1};
    r.m = (int)(total - r.y * 12) + 1;
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (r.y % 4 == 0 && r.y % 100 != 0) || r.y % 400 == 0;
    int last = mdays[r.m - 1] + (r.m == 2 && leap);
    r.d = c.d < last ? c.d : last;
    return days_from_civil(r);
}

static int64_t add_units(unit u, int64_t n, int64_t day)
{
    switch (u) {
    case U_DAY: return day + n;
    case U_WEEK: return day + 7 * n;
    case U_MONTH: return add_months(day, n);
    case U_QUARTER: return add_months(day, 3 * n);
    case U_YEAR: return add_months(day, 12 * n);
    }
    return day;
}

static int64_t start_of(unit u, int64_t day)
{
    civil c = civil_from_days(day);
    switch (u) {
    case U_DAY: return day;
    case U_WEEK: { /* 1970-01-01 was a Thursday: Monday = 0 */
        int64_t wd = ((day % 7) + 7 + 3) % 7;
        return day - wd;
    }
    case U_MONTH: c.d = 1; break;
    case U_QUARTER:
        c.d = 1;
        c.m = 3 * ((c.m - 1) / 3) + 1;
        break;
    case U_YEAR:
        c.d = 1;
        c.m = 1;
        break;
    }
    return days_from_civil(c);
}

static int64_t end_of(unit u, int64_t day)
{
    return add_units(u, 1, start_of(u, day)) - 1;
}

/* Today's day number in time zone tz (the engine's zone rules). */
static fl_status today_in(const char *tz, int64_t *day, fl_error *err)
{
    fl_sql_formatter *f = NULL;
    FL_TRY(fl_sql_formatter_new(tz, &f, err));
    fl_type t = {.id = FL_TYPE_TIMESTAMPTZ};
    fl_vector v;
    fl_status rc = fl_vector_init(&v, &t, err);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
    char buf[64] = "";
    if (rc == FL_OK && (rc = fl_vector_append_fixed(&v, &us, err)) == FL_OK)
        fl_sql_formatter_value(f, &v, 0, buf, sizeof buf);
    if (rc == FL_OK)
        fl_vector_destroy(&v);
    fl_sql_formatter_free(f);
    FL_TRY(rc);
    long long y;
    int m, d;
    if (sscanf(buf, "%lld-%d-%d", &y, &m, &d) != 3)
        return fl_errorf(err, FL_EIO, "relative date range: cannot read today in %s", tz);
    *day = days_from_civil((civil){y, m, d});
    return FL_OK;
}

static bool parse_unit(const char *w, unit *u, bool plural_ok)
{
    static const char *const names[] = {"day", "week", "month", "quarter", "year"};
    for (int i = 0; i < 5; i++) {
        size_t n = strlen(names[i]);
        if (!strncmp(w, names[i], n) && (!w[n] || (plural_ok && w[n] == 's' && !w[n + 1]))) {
            *u = (unit)i;
            return true;
        }
    }
    return false;
}

static bool parse_count(const char *w, int64_t *n)
{
    char *end = NULL;
    long long v = strtoll(w, &end, 10);
    if (!*w || *end || v < 1 || v > 100000)
        return false;
    *n = v;
    return true;
}

/* Splits the lowered text into at most 8 words. */
static int words_of(const char *text, char buf[128], char *w[8])
{
    size_t o = 0;
    int n = 0;
    bool in = false;
    for (const char *p = text; *p && o + 1 < 128; p++) {
        if (isspace((unsigned char)*p)) {
            if (in)
                buf[o++] = 0;
            in = false;
            continue;
        }
        if (!in) {
            if (n == 8)
                return 9;
            w[n++] = buf + o;
        }
        in = true;
        buf[o++] = (char)tolower((unsigned char)*p);
    }
    buf[o] = 0;
    return strlen(text) >= 127 ? 9 : n;
}

static bool resolve(char *w[8], int n, int64_t today, int64_t *from, int64_t *to)
{
    unit u;
    int64_t k = 1;
    if (n == 1 &&
        (!strcmp(w[0], "today") || !strcmp(w[0], "yesterday") || !strcmp(w[0], "tomorrow"))) {
        int64_t d = today + (!strcmp(w[0], "today") ? 0 : !strcmp(w[0], "yesterday") ? -1 : 1);
        *from = *to = d;
        return true;
    }
    if (n == 2 && !strcmp(w[0], "this") && parse_unit(w[1], &u, false)) {
        *from = start_of(u, today);
        *to = end_of(u, today);
        return true;
    }
    bool last = n >= 1 && !strcmp(w[0], "last"), next = n >= 1 && !strcmp(w[0], "next");
    if ((last || next) &&
        (n == 2 ? parse_unit(w[1], &u, false)
                : n == 3 && parse_count(w[1], &k) && parse_unit(w[2], &u, true))) {
        *from = last ? start_of(u, add_units(u, -k, today)) : start_of(u, add_units(u, 1, today));
        *to = last ? end_of(u, add_units(u, -1, today)) : end_of(u, add_units(u, k, today));
        return true;
    }
    if (n == 6 && !strcmp(w[0], "from") && parse_count(w[1], &k) && parse_unit(w[2], &u, true) &&
        !strcmp(w[3], "ago") && !strcmp(w[4], "to") && !strcmp(w[5], "now")) {
        *from = add_units(u, -k, today);
        *to = today;
        return true;
    }
    return false;
}

static void print_day(int64_t day, char out[16])
{
    civil c = civil_from_days(day);
    snprintf(out, 16, "%04lld-%02d-%02d", (long long)c.y, c.m, c.d);
}

fl_status cube_relative_range(const char *text, const char *tz, char from[16], char to[16],
                              fl_error *err)
{
    char buf[128];
    char *w[8];
    int n = words_of(text, buf, w);
    int64_t today = 0, a = 0, b = 0;
    if (n > 8 || !resolve(w, n, 0, &a, &b))
        return fl_errorf(err, FL_EINVAL,
                         "dateRange \"%s\": not a date range (give [\"YYYY-MM-DD\", "
                         "\"YYYY-MM-DD\"] or today, yesterday, this|last|next day|week|month|"
                         "quarter|year, last|next N days|weeks|..., from N days ago to now)",
                         text);
    FL_TRY(today_in(tz, &today, err));
    resolve(w, n, today, &a, &b);
    print_day(a, from);
    print_day(b, to);
    return FL_OK;
}
