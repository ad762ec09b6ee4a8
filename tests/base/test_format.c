/* Unit tests for floe/format.h: shortest digits (double and float), the
 * shortest %g, ISO dates across negative and five-digit years. */
#include <math.h>

#include "floe/calendar.h"
#include "floe/format.h"
#include "test.h"

static void test_shortest_digits(void)
{
    fl_digits d;
    fl_shortest_digits(0.1, false, &d);
    CHECK_EQ_STR(d.d, "1");
    CHECK_EQ_INT(d.exp10, -1);
    CHECK(!d.neg);
    fl_shortest_digits(-123.25, false, &d);
    CHECK_EQ_STR(d.d, "12325");
    CHECK_EQ_INT(d.n, 5);
    CHECK_EQ_INT(d.exp10, 2);
    CHECK(d.neg);
    fl_shortest_digits(1e300, false, &d);
    CHECK_EQ_STR(d.d, "1");
    CHECK_EQ_INT(d.exp10, 300);
    fl_shortest_digits(0.1 + 0.2, false, &d);
    CHECK_EQ_STR(d.d, "30000000000000004");
    fl_shortest_digits(0.0, false, &d);
    CHECK_EQ_STR(d.d, "0");
    CHECK_EQ_INT(d.exp10, 0);
    fl_shortest_digits(-0.0, false, &d);
    CHECK(d.neg);
    fl_shortest_digits((double)0.1f, true, &d);
    CHECK_EQ_STR(d.d, "1");
    fl_shortest_digits((double)0.1f, false, &d);
    CHECK_EQ_STR(d.d, "10000000149011612");
    fl_shortest_digits(5e-324, false, &d);
    CHECK_EQ_STR(d.d, "5");
    CHECK_EQ_INT(d.exp10, -324);
    /* the digits always read back */
    double xs[] = {1.0 / 3, 2.0 / 3, 1e23, 123456789012345678.0, 9007199254740993.0, M_PI};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        char back[64];
        fl_shortest_digits(xs[i], false, &d);
        snprintf(back, sizeof back, "%s%c.%se%d", d.neg ? "-" : "", d.d[0], d.n > 1 ? d.d + 1 : "0",
                 d.exp10);
        CHECK(strtod(back, NULL) == xs[i]);
    }
}

static void test_format_double_g(void)
{
    char b[64];
    CHECK_EQ_INT(fl_format_double_g(0.1, b, sizeof b), 3);
    CHECK_EQ_STR(b, "0.1");
    fl_format_double_g(1e100, b, sizeof b);
    CHECK_EQ_STR(b, "1e+100");
    fl_format_double_g(123, b, sizeof b);
    CHECK_EQ_STR(b, "123");
    fl_format_double_g(-2.5, b, sizeof b);
    CHECK_EQ_STR(b, "-2.5");
    fl_format_double_g(0.1 + 0.2, b, sizeof b);
    CHECK_EQ_STR(b, "0.30000000000000004");
    char small[4];
    CHECK_EQ_INT(fl_format_double_g(0.125, small, sizeof small), 5);
    CHECK_EQ_STR(small, "0.1");
}

static void test_iso_date(void)
{
    char b[32];
    CHECK_EQ_INT(fl_format_iso_date(0, b, sizeof b), 10);
    CHECK_EQ_STR(b, "1970-01-01");
    fl_format_iso_date(-1, b, sizeof b);
    CHECK_EQ_STR(b, "1969-12-31");
    fl_format_iso_date(fl_days_from_civil(2024, 2, 29), b, sizeof b);
    CHECK_EQ_STR(b, "2024-02-29");
    fl_format_iso_date(fl_days_from_civil(0, 1, 1), b, sizeof b);
    CHECK_EQ_STR(b, "0000-01-01");
    fl_format_iso_date(fl_days_from_civil(-44, 3, 15), b, sizeof b);
    CHECK_EQ_STR(b, "-0044-03-15");
    fl_format_iso_date(fl_days_from_civil(-4713, 11, 24), b, sizeof b);
    CHECK_EQ_STR(b, "-4713-11-24");
    fl_format_iso_date(fl_days_from_civil(12345, 6, 7), b, sizeof b);
    CHECK_EQ_STR(b, "12345-06-07");
    fl_format_iso_date(INT32_MAX, b, sizeof b);
    CHECK_EQ_STR(b, "5881580-07-11");
}

int main(void)
{
    TEST_RUN(test_shortest_digits);
    TEST_RUN(test_format_double_g);
    TEST_RUN(test_iso_date);
    return TEST_EXIT();
}
