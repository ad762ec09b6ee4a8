/*
 * format.c - shortest round-trip digits, shortest %g, ISO dates
 * (floe/format.h). The digit search tries precisions upwards with printf's
 * correctly rounded conversion and keeps the first that parses back; 17
 * digits always do for a double, 9 for a float.
 */
#include "floe/format.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "floe/calendar.h"

void fl_shortest_digits(double v, bool as_float, fl_digits *out)
{
    char e[40];
    int maxp = as_float ? 9 : 17;
    for (int p = 1; p <= maxp; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, v);
        if (as_float ? strtof(e, NULL) == (float)v : strtod(e, NULL) == v)
            break;
    }
    /* e = "[-]d.ddde[+-]XX" */
    const char *s = e;
    out->neg = *s == '-';
    if (out->neg)
        s++;
    int k = 0;
    for (; *s && *s != 'e' && k < (int)sizeof out->d - 1; s++)
        if (*s != '.')
            out->d[k++] = *s;
    out->exp10 = *s == 'e' ? atoi(s + 1) : 0;
    while (k > 1 && out->d[k - 1] == '0')
        k--;
    out->d[k] = '\0';
    out->n = k;
}

int fl_format_double_g(double v, char *buf, size_t cap)
{
    char tmp[40];
    int n = 0;
    for (int p = 1; p <= 17; p++) {
        n = snprintf(tmp, sizeof tmp, "%.*g", p, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    return snprintf(buf, cap, "%s", tmp) < 0 ? -1 : n;
}

int fl_format_iso_date(int64_t days, char *buf, size_t cap)
{
    int64_t y;
    unsigned m, d;
    fl_civil_from_days(days, &y, &m, &d);
    if (y < 0)
        return snprintf(buf, cap, "-%04" PRId64 "-%02u-%02u", -y, m, d);
    return snprintf(buf, cap, "%04" PRId64 "-%02u-%02u", y, m, d);
}

/* Works on the magnitude as unsigned, so the most negative value prints too. */
void fl_format_decimal(fl_i128 unscaled, int32_t scale, char *buf, size_t cap)
{
    char digits[64];
    int n = 0;
    bool neg = unscaled < 0;
    unsigned __int128 mag =
        neg ? (unsigned __int128)0 - (unsigned __int128)unscaled : (unsigned __int128)unscaled;
    do {
        digits[n++] = (char)('0' + (int)(mag % 10));
        mag /= 10;
    } while (mag && n < 60);
    if (scale < 0)
        scale = 0;
    while (n <= scale && n < 60)
        digits[n++] = '0';
    char out[80];
    size_t o = 0;
    if (neg)
        out[o++] = '-';
    for (int i = n - 1; i >= 0; i--) {
        out[o++] = digits[i];
        if (i == scale && scale > 0)
            out[o++] = '.';
    }
    out[o] = '\0';
    snprintf(buf, cap, "%s", out);
}
