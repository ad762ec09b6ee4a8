/*
 * dttext.c - PostgreSQL text formats for dates, times, timestamps,
 * intervals, UUIDs, booleans and floats: input parsing (the common subset of
 * PostgreSQL's datetime input: ISO 8601 dates with '-', '/' or '.', compact
 * YYYYMMDD, month names "Jan 8 1999" / "8 January 1999", BC suffix, 'epoch';
 * times hh:mm[:ss[.ffffff]]; zones Z, +hh[:mm[:ss]], +hhmm and IANA names)
 * and output in PostgreSQL's ISO DateStyle.
 *
 * Floats print as PostgreSQL 12+ with extra_float_digits = 1: the shortest
 * decimal that round-trips, in exponent form when the decimal exponent is
 * < -4 or >= 15 (6 for real).
 */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "floe/format.h"
#include "sql/func/func_internal.h"

static bool is_sp(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void trim(const char **s, size_t *n)
{
    while (*n && is_sp(**s))
        (*s)++, (*n)--;
    while (*n && is_sp((*s)[*n - 1]))
        (*n)--;
}

static bool ieq(const char *a, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    return n == l && strncasecmp(a, lit, l) == 0;
}

static int month_name(const char *s, size_t n)
{
    static const char *full[12] = {"january", "february", "march",     "april",   "may",      "june",
                                   "july",    "august",   "september", "october", "november", "december"};
    if (n < 3)
        return 0;
    for (int m = 0; m < 12; m++) {
        size_t fl = strlen(full[m]);
        if (n <= fl && strncasecmp(s, full[m], n) == 0 && (n == 3 || n == fl || (m == 8 && n == 4)))
            return m + 1;
    }
    return 0;
}

/* Reads up to maxd digits; returns count. */
static size_t rd_num(const char *s, size_t n, size_t maxd, int64_t *v)
{
    size_t i = 0;
    int64_t x = 0;
    while (i < n && i < maxd && s[i] >= '0' && s[i] <= '9')
        x = x * 10 + (s[i++] - '0');
    *v = x;
    return i;
}

static bool valid_ymd(int64_t y, int64_t m, int64_t d)
{
    return m >= 1 && m <= 12 && d >= 1 && d <= (int64_t)fl_days_in_month(y, (unsigned)m) &&
           y >= -4713 && y <= 5874897;
}

/* Parses the date part at the start of s; *used = bytes consumed. */
static bool parse_date_prefix(const char *s, size_t n, int64_t *days, size_t *used)
{
    int64_t y = 0, m = 0, d = 0;
    size_t i;
    if (n && isalpha((unsigned char)s[0])) {
        /* Mon D[,] YYYY */
        size_t j = 0;
        while (j < n && isalpha((unsigned char)s[j]))
            j++;
        m = month_name(s, j);
        if (!m)
            return false;
        i = j;
        while (i < n && (s[i] == ' ' || s[i] == '-'))
            i++;
        size_t k = rd_num(s + i, n - i, 2, &d);
        if (!k)
            return false;
        i += k;
        if (i < n && s[i] == ',')
            i++;
        while (i < n && (s[i] == ' ' || s[i] == '-'))
            i++;
        k = rd_num(s + i, n - i, 7, &y);
        if (!k)
            return false;
        i += k;
    } else {
        size_t k = rd_num(s, n, 8, &y);
        if (k == 8 && (k == n || !isdigit((unsigned char)s[k]))) {
            d = y % 100;
            m = (y / 100) % 100;
            y /= 10000;
            i = 8;
        } else if (k >= 1 && k <= 2 && k < n && (s[k] == ' ' || s[k] == '-') && n > k + 1 &&
                   isalpha((unsigned char)s[k + 1])) {
            /* D Mon YYYY */
            d = y;
            i = k + 1;
            size_t j = i;
            while (j < n && isalpha((unsigned char)s[j]))
                j++;
            m = month_name(s + i, j - i);
            if (!m)
                return false;
            i = j;
            while (i < n && (s[i] == ' ' || s[i] == '-'))
                i++;
            k = rd_num(s + i, n - i, 7, &y);
            if (!k)
                return false;
            i += k;
        } else {
            if (k < 1 || k > 7 || k >= n)
                return false;
            char sep = s[k];
            if (sep != '-' && sep != '/' && sep != '.')
                return false;
            i = k + 1;
            if (i < n && isalpha((unsigned char)s[i])) {
                size_t j = i;
                while (j < n && isalpha((unsigned char)s[j]))
                    j++;
                m = month_name(s + i, j - i);
                if (!m)
                    return false;
                i = j;
            } else {
                k = rd_num(s + i, n - i, 2, &m);
                if (!k)
                    return false;
                i += k;
            }
            if (i >= n || s[i] != sep)
                return false;
            i++;
            k = rd_num(s + i, n - i, 2, &d);
            if (!k)
                return false;
            i += k;
        }
    }
    /* optional BC */
    size_t j = i;
    while (j < n && s[j] == ' ')
        j++;
    if (j + 2 <= n && strncasecmp(s + j, "BC", 2) == 0 && (j + 2 == n || !isalpha((unsigned char)s[j + 2]))) {
        if (y < 1)
            return false;
        y = 1 - y;
        i = j + 2;
    } else if (j + 2 <= n && strncasecmp(s + j, "AD", 2) == 0 &&
               (j + 2 == n || !isalpha((unsigned char)s[j + 2])))
        i = j + 2;
    if (!valid_ymd(y, m, d))
        return false;
    *days = fl_days_from_civil(y, (unsigned)m, (unsigned)d);
    *used = i;
    return true;
}

bool fl_pg_parse_date(const char *s, size_t n, int32_t *days)
{
    trim(&s, &n);
    if (ieq(s, n, "epoch")) {
        *days = 0;
        return true;
    }
    int64_t d;
    size_t used;
    if (!parse_date_prefix(s, n, &d, &used))
        return false;
    /* PostgreSQL accepts a trailing time (ignored) on date input */
    if (used < n) {
        ts_parsed tp;
        if (!fl_pg_parse_timestamp(s, n, &tp))
            return false;
        d = floordiv64(tp.local_us, US_PER_DAY);
    }
    if (d < INT32_MIN || d > INT32_MAX)
        return false;
    *days = (int32_t)d;
    return true;
}

/* hh:mm[:ss[.ffffff]] or hhmmss; *used = bytes consumed. Fractions round
 * to the microsecond; *ns_adjust (when not NULL) gets the nanoseconds the
 * first 9 digits add to that rounded value (-999..999), for timestamp(9). */
static bool parse_time_prefix(const char *s, size_t n, int64_t *us, size_t *used,
                              int32_t *ns_adjust)
{
    int64_t h, mi = 0, se = 0, frac = 0, frac9 = 0;
    size_t i = rd_num(s, n, 2, &h);
    if (!i)
        return false;
    if (i < n && s[i] == ':') {
        size_t k = rd_num(s + i + 1, n - i - 1, 2, &mi);
        if (k != 2)
            return false;
        i += 1 + k;
        if (i < n && s[i] == ':') {
            k = rd_num(s + i + 1, n - i - 1, 2, &se);
            if (k != 2)
                return false;
            i += 1 + k;
        }
    } else if (i == 2 && n >= 6 && isdigit((unsigned char)s[2])) {
        size_t k = rd_num(s + 2, n - 2, 2, &mi);
        if (k != 2)
            return false;
        k = rd_num(s + 4, n - 4, 2, &se);
        if (k != 2)
            return false;
        i = 6;
    } else
        return false;
    if (i < n && s[i] == '.') {
        i++;
        int digits = 0;
        bool round_up = false;
        while (i < n && isdigit((unsigned char)s[i])) {
            if (digits < 6)
                frac = frac * 10 + (s[i] - '0');
            else if (digits == 6)
                round_up = s[i] >= '5';
            if (digits < 9)
                frac9 = frac9 * 10 + (s[i] - '0');
            digits++;
            i++;
        }
        for (int d = digits; d < 6; d++)
            frac *= 10;
        for (int d = digits; d < 9; d++)
            frac9 *= 10;
        if (round_up)
            frac++;
    }
    if (ns_adjust)
        *ns_adjust = (int32_t)(frac9 - frac * 1000);
    if (h > 24 || mi > 59 || se > 60)
        return false;
    int64_t t = ((h * 60 + mi) * 60 + se) * US_PER_SEC + frac;
    if (t > US_PER_DAY)
        return false;
    *us = t;
    *used = i;
    return true;
}

bool fl_pg_parse_time(const char *s, size_t n, int64_t *us)
{
    trim(&s, &n);
    size_t used;
    if (!parse_time_prefix(s, n, us, &used, NULL))
        return false;
    /* a zone on a time without zone is ignored, as PostgreSQL does */
    while (used < n && s[used] == ' ')
        used++;
    if (used < n && (s[used] == '+' || s[used] == '-' || s[used] == 'Z' || s[used] == 'z'))
        return true;
    return used == n;
}

/* Parses a zone: Z, UTC/GMT, +hh[:mm[:ss]], +hhmm, or a name. */
static bool parse_zone(const char *s, size_t n, ts_parsed *out)
{
    if (n == 0)
        return true;
    if (ieq(s, n, "z") || ieq(s, n, "utc") || ieq(s, n, "gmt") || ieq(s, n, "zulu")) {
        out->has_offset = true;
        out->offset_s = 0;
        return true;
    }
    if (s[0] == '+' || s[0] == '-') {
        int sign = s[0] == '-' ? -1 : 1;
        int64_t h = 0, m = 0, sec = 0;
        size_t i = 1, k = rd_num(s + 1, n - 1, 2, &h);
        if (!k)
            return false;
        i += k;
        if (i < n && s[i] == ':') {
            k = rd_num(s + i + 1, n - i - 1, 2, &m);
            if (k != 2)
                return false;
            i += 3;
            if (i < n && s[i] == ':') {
                k = rd_num(s + i + 1, n - i - 1, 2, &sec);
                if (k != 2)
                    return false;
                i += 3;
            }
        } else if (i < n) {
            k = rd_num(s + i, n - i, 2, &m);
            if (k != 2)
                return false;
            i += 2;
        }
        if (i != n || h > 15 || m > 59 || sec > 59)
            return false;
        out->has_offset = true;
        out->offset_s = (int32_t)(sign * (h * 3600 + m * 60 + sec));
        return true;
    }
    if (n >= sizeof out->zone)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '/' || s[i] == '_' || s[i] == '-' || s[i] == '+'))
            return false;
    memcpy(out->zone, s, n);
    out->zone[n] = 0;
    return true;
}

bool fl_pg_parse_timestamp(const char *s, size_t n, ts_parsed *out)
{
    memset(out, 0, sizeof *out);
    trim(&s, &n);
    if (ieq(s, n, "epoch")) {
        out->has_offset = true;
        return true;
    }
    int64_t days;
    size_t i;
    if (!parse_date_prefix(s, n, &days, &i))
        return false;
    int64_t tus = 0;
    int32_t ns_adjust = 0;
    bool bc = false;
    if (i < n && (s[i] == 'T' || s[i] == 't' || s[i] == ' ')) {
        size_t j = i + 1;
        while (j < n && s[j] == ' ')
            j++;
        size_t used;
        if (j < n && isdigit((unsigned char)s[j]) && parse_time_prefix(s + j, n - j, &tus, &used, &ns_adjust))
            i = j + used;
    }
    while (i < n && s[i] == ' ')
        i++;
    /* trailing " BC" after the time */
    size_t end = n;
    if (end >= 2 && strncasecmp(s + end - 2, "BC", 2) == 0 && end > i &&
        (end == 2 || s[end - 3] == ' ')) {
        bc = true;
        end -= 2;
        while (end > i && s[end - 1] == ' ')
            end--;
    }
    if (!parse_zone(s + i, end - i, out))
        return false;
    if (bc) {
        int64_t y;
        unsigned m, d;
        fl_civil_from_days(days, &y, &m, &d);
        if (y < 1)
            return false;
        days = fl_days_from_civil(1 - y, m, d);
    }
    out->local_us = days * US_PER_DAY + tus;
    out->ns_adjust = ns_adjust;
    return true;
}

/* ---- intervals ---- */

enum { IF_MONTH = 1 << 1, IF_YEAR = 1 << 2, IF_DAY = 1 << 3, IF_HOUR = 1 << 10, IF_MINUTE = 1 << 11, IF_SECOND = 1 << 12 };

static bool add_unit(fl_interval *iv, double v, const char *u, size_t ul)
{
    /* unit: years, months, weeks, days, hours, minutes, seconds, ms, us */
    char b[16];
    if (ul == 0 || ul >= sizeof b)
        return false;
    for (size_t i = 0; i < ul; i++)
        b[i] = (char)tolower((unsigned char)u[i]);
    b[ul] = 0;
    if (ul > 1 && b[ul - 1] == 's' && strcmp(b, "ms") != 0 && strcmp(b, "us") != 0)
        b[--ul] = 0;
    double months = 0, days = 0, us = 0;
    if (!strcmp(b, "year") || !strcmp(b, "y") || !strcmp(b, "yr"))
        months = v * 12;
    else if (!strcmp(b, "decade"))
        months = v * 120;
    else if (!strcmp(b, "century"))
        months = v * 1200;
    else if (!strcmp(b, "millennium"))
        months = v * 12000;
    else if (!strcmp(b, "mon") || !strcmp(b, "month"))
        months = v;
    else if (!strcmp(b, "week") || !strcmp(b, "w"))
        days = v * 7;
    else if (!strcmp(b, "day") || !strcmp(b, "d"))
        days = v;
    else if (!strcmp(b, "hour") || !strcmp(b, "h") || !strcmp(b, "hr"))
        us = v * 3600e6;
    else if (!strcmp(b, "minute") || !strcmp(b, "min") || !strcmp(b, "m"))
        us = v * 60e6;
    else if (!strcmp(b, "second") || !strcmp(b, "sec") || !strcmp(b, "s"))
        us = v * 1e6;
    else if (!strcmp(b, "millisecond") || !strcmp(b, "msec") || !strcmp(b, "ms"))
        us = v * 1e3;
    else if (!strcmp(b, "microsecond") || !strcmp(b, "usec") || !strcmp(b, "us"))
        us = v;
    else
        return false;
    /* fractional months spill into days (30-day months), fractional days into time */
    double whole_m = trunc(months);
    days += (months - whole_m) * 30;
    double whole_d = trunc(days);
    us += (days - whole_d) * US_PER_DAY;
    if (fabs(whole_m) > 2e9 || fabs(whole_d) > 2e9 || fabs(us) > 9e18)
        return false;
    iv->months += (int32_t)whole_m;
    iv->days += (int32_t)whole_d;
    iv->micros += (int64_t)llround(us);
    return true;
}

/* An interval's h:mm[:ss[.f]] field at s (hd characters before the ':'). The hours are
 * not a time of day: 25 or 10362215 ('10362215:06:02', as PostgreSQL prints long
 * intervals) are parsed here and the rest as a time of hour 00, so every interval
 * re-parses from its text. */
static bool parse_iv_time(const char *s, size_t hd, size_t n, int64_t *us, size_t *used)
{
    int64_t h = 0;
    for (size_t k = 0; k < hd; k++) {
        if (!isdigit((unsigned char)s[k]) || h > (INT64_MAX / 3600000000LL) / 10)
            return false;
        h = h * 10 + (s[k] - '0');
    }
    char tmp[64] = "00";
    size_t rest = n - hd;
    if (rest >= sizeof tmp - 2)
        rest = sizeof tmp - 3;
    memcpy(tmp + 2, s + hd, rest);
    int64_t part;
    size_t u;
    if (!parse_time_prefix(tmp, rest + 2, &part, &u, NULL) || u < 3)
        return false;
    if (h > (INT64_MAX - part) / 3600000000LL)
        return false;
    *us = h * 3600000000LL + part;
    *used = hd + (u - 2);
    return true;
}

bool fl_pg_parse_interval(const char *s, size_t n, int32_t mask, fl_interval *out)
{
    memset(out, 0, sizeof *out);
    trim(&s, &n);
    if (n == 0)
        return false;
    size_t i = 0;
    bool any = false, ago = false;
    if (s[0] == 'P' || s[0] == 'p') {
        /* ISO 8601 P1Y2M3DT4H5M6S */
        bool in_time = false;
        i = 1;
        while (i < n) {
            if (s[i] == 'T' || s[i] == 't') {
                in_time = true;
                i++;
                continue;
            }
            char *e;
            char num[40];
            size_t k = 0;
            while (i + k < n && k < 39 && (isdigit((unsigned char)s[i + k]) || s[i + k] == '.' || s[i + k] == '-'))
                k++;
            if (!k || i + k >= n)
                return false;
            memcpy(num, s + i, k);
            num[k] = 0;
            double v = strtod(num, &e);
            if (*e)
                return false;
            char u = (char)toupper((unsigned char)s[i + k]);
            const char *unit = u == 'Y' ? "year" : u == 'W' ? "week" : u == 'D' ? "day"
                             : u == 'H' ? "hour" : u == 'S' ? "second"
                             : u == 'M' ? (in_time ? "minute" : "month") : NULL;
            if (!unit || !add_unit(out, v, unit, strlen(unit)))
                return false;
            i += k + 1;
            any = true;
        }
        return any;
    }
    while (i < n) {
        while (i < n && (is_sp(s[i]) || s[i] == ','))
            i++;
        if (i >= n)
            break;
        if (isalpha((unsigned char)s[i])) {
            size_t j = i;
            while (j < n && isalpha((unsigned char)s[j]))
                j++;
            if (ieq(s + i, j - i, "ago")) {
                ago = true;
                i = j;
                continue;
            }
            if (ieq(s + i, j - i, "at") || ieq(s + i, j - i, "@")) {
                i = j;
                continue;
            }
            return false;
        }
        if (s[i] == '@') {
            i++;
            continue;
        }
        /* number, maybe a time hh:mm[:ss] */
        size_t j = i;
        if (j < n && (s[j] == '-' || s[j] == '+'))
            j++;
        size_t ds = j;
        while (j < n && (isdigit((unsigned char)s[j]) || s[j] == '.'))
            j++;
        if (j == ds)
            return false;
        if (j < n && s[j] == ':') {
            bool neg = s[i] == '-';
            int64_t us;
            size_t used;
            if (!parse_iv_time(s + ds, j - ds, n - ds, &us, &used))
                return false;
            out->micros += neg ? -us : us;
            i = ds + used;
            any = true;
            continue;
        }
        char num[48];
        if (j - i >= sizeof num)
            return false;
        memcpy(num, s + i, j - i);
        num[j - i] = 0;
        char *e;
        double v = strtod(num, &e);
        if (*e)
            return false;
        while (j < n && is_sp(s[j]))
            j++;
        size_t u = j;
        while (j < n && isalpha((unsigned char)s[j]))
            j++;
        if (u == j) {
            /* bare number: unit from the field mask, default seconds */
            const char *unit = (mask & IF_SECOND) || !mask ? "second"
                               : (mask & IF_MINUTE)       ? "minute"
                               : (mask & IF_HOUR)         ? "hour"
                               : (mask & IF_DAY)          ? "day"
                               : (mask & IF_MONTH)        ? "month"
                                                          : "year";
            if (!add_unit(out, v, unit, strlen(unit)))
                return false;
        } else if (!add_unit(out, v, s + u, j - u))
            return false;
        i = j;
        any = true;
    }
    if (!any)
        return false;
    if (ago) {
        out->months = -out->months;
        out->days = -out->days;
        out->micros = -out->micros;
    }
    return true;
}

bool fl_pg_parse_uuid(const char *s, size_t n, uint8_t out[16])
{
    trim(&s, &n);
    if (n >= 2 && s[0] == '{' && s[n - 1] == '}')
        s++, n -= 2;
    int nib = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int v;
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (c >= 'a' && c <= 'f')
            v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v = c - 'A' + 10;
        else if (c == '-' && (nib % 4) == 0 && nib > 0 && i + 1 < n && s[i + 1] != '-')
            continue;
        else
            return false;
        if (nib >= 32)
            return false;
        if (nib % 2 == 0)
            out[nib / 2] = (uint8_t)(v << 4);
        else
            out[nib / 2] |= (uint8_t)v;
        nib++;
    }
    return nib == 32;
}

bool fl_pg_parse_bool(const char *s, size_t n, bool *out)
{
    trim(&s, &n);
    if (n == 0)
        return false;
    static const char *t[] = {"true", "yes", "on", "1"}, *f[] = {"false", "no", "off", "0"};
    for (int k = 0; k < 4; k++) {
        size_t l = strlen(t[k]);
        if (n <= l && strncasecmp(s, t[k], n) == 0 && (n > 1 || k != 2)) {
            *out = true;
            return true;
        }
        l = strlen(f[k]);
        if (n <= l && strncasecmp(s, f[k], n) == 0 && (n > 1 || k != 2)) {
            *out = false;
            return true;
        }
    }
    if (n >= 2 && strncasecmp(s, "on", n) == 0) {
        *out = true;
        return true;
    }
    return false;
}

/* ---- output ---- */

static size_t put(char *buf, size_t cap, const char *s, size_t n)
{
    if (cap) {
        size_t c = n < cap ? n : cap - 1;
        memcpy(buf, s, c);
        buf[c] = 0;
    }
    return n;
}

static int fmt_ymd(int64_t days, char *b, bool *bc)
{
    int64_t y;
    unsigned m, d;
    fl_civil_from_days(days, &y, &m, &d);
    *bc = y <= 0;
    if (*bc)
        y = 1 - y;
    return snprintf(b, 32, "%04lld-%02u-%02u", (long long)y, m, d);
}

size_t fl_pg_format_date(int32_t days, char *buf, size_t cap)
{
    char b[48];
    bool bc;
    int n = fmt_ymd(days, b, &bc);
    if (bc)
        n += snprintf(b + n, sizeof b - (size_t)n, " BC");
    return put(buf, cap, b, (size_t)n);
}

static int fmt_hms(int64_t us, char *b, size_t cap)
{
    int64_t s = us / US_PER_SEC, f = us % US_PER_SEC;
    int n = snprintf(b, cap, "%02lld:%02lld:%02lld", (long long)(s / 3600), (long long)(s / 60 % 60),
                     (long long)(s % 60));
    if (f) {
        char fr[8];
        snprintf(fr, sizeof fr, "%06lld", (long long)f);
        int l = 6;
        while (l > 0 && fr[l - 1] == '0')
            l--;
        fr[l] = 0;
        n += snprintf(b + n, cap - (size_t)n, ".%s", fr);
    }
    return n;
}

size_t fl_pg_format_time(int64_t us, char *buf, size_t cap)
{
    char b[48];
    int n = fmt_hms(us, b, sizeof b);
    return put(buf, cap, b, (size_t)n);
}

size_t fl_pg_format_timestamp(int64_t us, char *buf, size_t cap)
{
    char b[64];
    bool bc;
    int64_t days = floordiv64(us, US_PER_DAY), t = floormod64(us, US_PER_DAY);
    int n = fmt_ymd(days, b, &bc);
    b[n++] = ' ';
    n += fmt_hms(t, b + n, sizeof b - (size_t)n);
    if (bc)
        n += snprintf(b + n, sizeof b - (size_t)n, " BC");
    return put(buf, cap, b, (size_t)n);
}

size_t fl_pg_format_offset(int32_t off, char *buf, size_t cap)
{
    char b[24];
    char sign = off < 0 ? '-' : '+';
    int32_t a = off < 0 ? -off : off;
    int n;
    if (a % 60)
        n = snprintf(b, sizeof b, "%c%02d:%02d:%02d", sign, a / 3600, a / 60 % 60, a % 60);
    else if (a % 3600)
        n = snprintf(b, sizeof b, "%c%02d:%02d", sign, a / 3600, a / 60 % 60);
    else
        n = snprintf(b, sizeof b, "%c%02d", sign, a / 3600);
    return put(buf, cap, b, (size_t)n);
}

size_t fl_pg_format_interval(const fl_interval *iv, char *buf, size_t cap)
{
    /* PostgreSQL "postgres" IntervalStyle: after a negative field, positive ones get '+' */
    char b[128];
    int n = 0;
    bool prev_neg = false;
    int32_t years = iv->months / 12, mons = iv->months % 12;
    const struct {
        int32_t v;
        const char *unit;
    } f[3] = {{years, "year"}, {mons, "mon"}, {iv->days, "day"}};
    for (int k = 0; k < 3; k++) {
        if (!f[k].v)
            continue;
        n += snprintf(b + n, sizeof b - (size_t)n, "%s%s%d %s%s", n ? " " : "", prev_neg && f[k].v > 0 ? "+" : "",
                      f[k].v, f[k].unit, f[k].v == 1 ? "" : "s");
        prev_neg = f[k].v < 0;
    }
    if (iv->micros || n == 0) {
        int64_t us = iv->micros;
        bool neg = us < 0;
        uint64_t a = neg ? (uint64_t)0 - (uint64_t)us : (uint64_t)us;
        uint64_t s = a / 1000000, fr = a % 1000000;
        n += snprintf(b + n, sizeof b - (size_t)n, "%s%s%02llu:%02llu:%02llu", n ? " " : "",
                      neg ? "-" : (prev_neg ? "+" : ""), (unsigned long long)(s / 3600),
                      (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
        if (fr) {
            char t[8];
            snprintf(t, sizeof t, "%06llu", (unsigned long long)fr);
            int l = 6;
            while (l > 0 && t[l - 1] == '0')
                l--;
            t[l] = 0;
            n += snprintf(b + n, sizeof b - (size_t)n, ".%s", t);
        }
    }
    return put(buf, cap, b, (size_t)n);
}

static size_t format_shortest(double d, int dig, bool is_float, char *buf, size_t cap)
{
    char b[64];
    if (isnan(d))
        return put(buf, cap, "NaN", 3);
    if (isinf(d))
        return d > 0 ? put(buf, cap, "Infinity", 8) : put(buf, cap, "-Infinity", 9);
    if (d == 0)
        return signbit(d) ? put(buf, cap, "-0", 2) : put(buf, cap, "0", 1);
    fl_digits sd;
    fl_shortest_digits(d, is_float, &sd);
    const char *digits = sd.d;
    int nd = sd.n, exp = sd.exp10;
    bool neg = sd.neg;
    int n = 0;
    if (neg)
        b[n++] = '-';
    if (exp < -4 || exp >= dig) {
        b[n++] = digits[0];
        if (nd > 1) {
            b[n++] = '.';
            memcpy(b + n, digits + 1, (size_t)nd - 1);
            n += nd - 1;
        }
        n += snprintf(b + n, sizeof b - (size_t)n, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    } else if (exp < 0) {
        b[n++] = '0';
        b[n++] = '.';
        for (int k = 0; k < -exp - 1; k++)
            b[n++] = '0';
        memcpy(b + n, digits, (size_t)nd);
        n += nd;
    } else {
        for (int k = 0; k <= exp; k++)
            b[n++] = k < nd ? digits[k] : '0';
        if (nd > exp + 1) {
            b[n++] = '.';
            memcpy(b + n, digits + exp + 1, (size_t)(nd - exp - 1));
            n += nd - exp - 1;
        }
    }
    return put(buf, cap, b, (size_t)n);
}

size_t fl_pg_format_double(double d, char *buf, size_t cap)
{
    return format_shortest(d, DBL_DIG, false, buf, cap);
}

size_t fl_pg_format_float(float f, char *buf, size_t cap)
{
    return format_shortest((double)f, FLT_DIG, true, buf, cap);
}
