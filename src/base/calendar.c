/*
 * calendar.c - civil dates <-> day counts, leap years, month lengths
 * (floe/calendar.h). Hinnant's algorithms: shift the year to start in March
 * so the leap day is last, then count 400-year eras of 146097 days; 719468
 * is the day number of 1970-01-01 counted from 0000-03-01.
 */
#include "floe/calendar.h"

#define DAYS_0000_03_01_TO_EPOCH 719468
#define DAYS_PER_ERA 146097

int64_t fl_floor_div(int64_t a, int64_t b)
{
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

int64_t fl_floor_mod(int64_t a, int64_t b)
{
    /* from the remainder, so a near INT64_MIN cannot overflow a product */
    int64_t r = a % b;
    return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

int64_t fl_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = fl_floor_div(y, 400);
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * DAYS_PER_ERA + (int64_t)doe - DAYS_0000_03_01_TO_EPOCH;
}

void fl_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
    const int64_t z = days + DAYS_0000_03_01_TO_EPOCH;
    const int64_t era = fl_floor_div(z, DAYS_PER_ERA);
    const unsigned doe = (unsigned)(z - era * DAYS_PER_ERA);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

bool fl_is_leap_year(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

unsigned fl_days_in_month(int64_t y, unsigned m)
{
    static const unsigned dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12)
        return 0;
    return m == 2 && fl_is_leap_year(y) ? 29 : dm[m - 1];
}
