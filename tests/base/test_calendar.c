/* Unit tests for floe/calendar.h: every day from -4713-01-01 to 9999-12-31
 * against a brute-force walk through the calendar, leap rules, month lengths,
 * floor division and the PostgreSQL epoch. */
#include "floe/calendar.h"
#include "test.h"

/* Leap rule spelled out independently of fl_is_leap_year. */
static bool leap_ref(int64_t y)
{
    if (y % 400 == 0)
        return true;
    if (y % 100 == 0)
        return false;
    return y % 4 == 0;
}

static unsigned mlen_ref(int64_t y, unsigned m)
{
    if (m == 2)
        return leap_ref(y) ? 29 : 28;
    return m == 4 || m == 6 || m == 9 || m == 11 ? 30 : 31;
}

/* Walks day by day from 1970-01-01 down to -4713-01-01 and up to
 * 9999-12-31, checking both directions of the conversion at every step. */
static void test_brute_force(void)
{
    int64_t y = 1970, days = 0;
    unsigned m = 1, d = 1;
    long bad = 0;
    for (;;) {
        int64_t gy;
        unsigned gm, gd;
        fl_civil_from_days(days, &gy, &gm, &gd);
        if (fl_days_from_civil(y, m, d) != days || gy != y || gm != m || gd != d)
            bad++;
        if (y == 9999 && m == 12 && d == 31)
            break;
        days++;
        if (++d > mlen_ref(y, m)) {
            d = 1;
            if (++m > 12) {
                m = 1;
                y++;
            }
        }
    }
    CHECK_EQ_INT(days, 2932896);
    y = 1970, m = 1, d = 1, days = 0;
    while (!(y == -4713 && m == 1 && d == 1)) {
        days--;
        if (--d == 0) {
            if (--m == 0) {
                m = 12;
                y--;
            }
            d = mlen_ref(y, m);
        }
        int64_t gy;
        unsigned gm, gd;
        fl_civil_from_days(days, &gy, &gm, &gd);
        if (fl_days_from_civil(y, m, d) != days || gy != y || gm != m || gd != d)
            bad++;
    }
    CHECK_EQ_INT(bad, 0);
    /* Julian day 0 (-4713-11-24 Gregorian) is 2440588 days before the epoch */
    CHECK_EQ_INT(fl_days_from_civil(-4713, 11, 24), -2440588);
}

static void test_known_dates(void)
{
    CHECK_EQ_INT(fl_days_from_civil(1970, 1, 1), 0);
    CHECK_EQ_INT(fl_days_from_civil(1969, 12, 31), -1);
    CHECK_EQ_INT(fl_days_from_civil(2000, 1, 1), FL_PG_EPOCH_DAYS);
    CHECK_EQ_INT(fl_days_from_civil(2000, 2, 29), 11016);
    CHECK_EQ_INT(fl_days_from_civil(0, 1, 1), -719528);
    CHECK_EQ_INT(fl_days_from_civil(0, 3, 1), -719468);
    CHECK_EQ_INT(fl_days_from_civil(1970, 1, 32), 31); /* day past month end counts on */
    CHECK_EQ_INT(FL_PG_EPOCH_US, 946684800000000LL);
    int64_t y;
    unsigned m, d;
    fl_civil_from_days(INT32_MIN, &y, &m, &d);
    CHECK_EQ_INT(fl_days_from_civil(y, m, d), INT32_MIN);
    fl_civil_from_days(INT32_MAX, &y, &m, &d);
    CHECK_EQ_INT(fl_days_from_civil(y, m, d), INT32_MAX);
    CHECK_EQ_INT(y, 5881580);
    CHECK_EQ_INT(m, 7);
    CHECK_EQ_INT(d, 11);
}

static void test_leap_and_months(void)
{
    for (int64_t y = -4800; y <= 10000; y++) {
        if (fl_is_leap_year(y) != leap_ref(y)) {
            CHECK(fl_is_leap_year(y) == leap_ref(y));
            break;
        }
        for (unsigned m = 1; m <= 12; m++)
            if (fl_days_in_month(y, m) != mlen_ref(y, m))
                CHECK_EQ_INT(fl_days_in_month(y, m), mlen_ref(y, m));
    }
    CHECK(fl_is_leap_year(2000) && fl_is_leap_year(0) && fl_is_leap_year(-4));
    CHECK(!fl_is_leap_year(1900) && !fl_is_leap_year(-100) && !fl_is_leap_year(2023));
    CHECK(fl_is_leap_year(-400) && fl_is_leap_year(2024));
    CHECK_EQ_INT(fl_days_in_month(2024, 2), 29);
    CHECK_EQ_INT(fl_days_in_month(2100, 2), 28);
    CHECK_EQ_INT(fl_days_in_month(2024, 0), 0);
    CHECK_EQ_INT(fl_days_in_month(2024, 13), 0);
}

static void test_floor_div(void)
{
    CHECK_EQ_INT(fl_floor_div(7, 2), 3);
    CHECK_EQ_INT(fl_floor_div(-7, 2), -4);
    CHECK_EQ_INT(fl_floor_div(-8, 2), -4);
    CHECK_EQ_INT(fl_floor_div(7, -2), -4);
    CHECK_EQ_INT(fl_floor_mod(-7, 2), 1);
    CHECK_EQ_INT(fl_floor_mod(-1, FL_US_PER_DAY), FL_US_PER_DAY - 1);
    CHECK_EQ_INT(fl_floor_div(-1, FL_US_PER_DAY), -1);
    CHECK_EQ_INT(fl_floor_div(0, 5), 0);
}

int main(void)
{
    TEST_RUN(test_brute_force);
    TEST_RUN(test_known_dates);
    TEST_RUN(test_leap_and_months);
    TEST_RUN(test_floor_div);
    return TEST_EXIT();
}
