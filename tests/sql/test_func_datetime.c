/* test_func_datetime.c - casts between text and every temporal type, time
 * zones (TZif), interval arithmetic, extract/date_trunc/to_char/age and
 * PostgreSQL text output; expected values as PostgreSQL 15 prints them. */
#include "sql/func_test_util.h"

#define T(expr) eval1(expr)

static void test_text_casts(void)
{
    CHECK_EQ_STR(T(E_typed("date", "1998-09-02")), "1998-09-02");
    CHECK_EQ_STR(T(E_typed("date", "19980902")), "1998-09-02");
    CHECK_EQ_STR(T(E_typed("date", "Sep 2, 1998")), "1998-09-02");
    CHECK_EQ_STR(T(E_typed("date", "2 September 1998")), "1998-09-02");
    CHECK_EQ_STR(T(E_typed("date", "0044-03-15 BC")), "0044-03-15 BC");
    CHECK(strstr(T(E_cast(E_lit("1998-02-30"), "date")), "RESOLVE: date/time field value out of range") != NULL);
    CHECK_EQ_STR(T(E_typed("timestamp", "2024-01-02 03:04:05.120")), "2024-01-02 03:04:05.12");
    CHECK_EQ_STR(T(E_typed("timestamp", "2024-01-02T03:04:05")), "2024-01-02 03:04:05");
    CHECK_EQ_STR(T(E_typed("timestamp", "2024-01-02 03:04:05+02")), "2024-01-02 03:04:05");
    CHECK_EQ_STR(T(E_typed("time", "13:45:00.5")), "13:45:00.5");
    CHECK_EQ_STR(T(E_typed("uuid", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")), "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
    CHECK_EQ_STR(T(E_typed("boolean", "yes")), "t");
    CHECK_EQ_STR(T(E_typed("bytea", "\\x0aff")), "\\x0aff");
    CHECK_EQ_STR(T(E_typed("bytea", "ab\\\\c")), "\\x61625c63");
    CHECK_EQ_STR(T(E_typed("integer", " 42 ")), "42");
    CHECK(strstr(T(E_cast(E_lit("4294967296"), "integer")), "out of range for type integer") != NULL);
    CHECK_EQ_STR(T(E_typed("double", "1e20")), "1e+20");
    CHECK_EQ_STR(T(E_typed("double", "0.1")), "0.1");
    CHECK_EQ_STR(T(E_typed("double", "123456789012345678")), "1.2345678901234568e+17");
    CHECK_EQ_STR(T(E_typed("double", "0.0001")), "0.0001");
    CHECK_EQ_STR(T(E_typed("double", "0.00001")), "1e-05");
    CHECK_EQ_STR(T(E_typed("real", "3.14159")), "3.14159");
    CHECK_EQ_STR(T(E_typed("numeric(10,3)", "-0.5")), "-0.500");
    CHECK_EQ_STR(T(E_cast(E_typed("double", "0.1"), "numeric(10,4)")), "0.1000");
    CHECK_EQ_STR(T(E_cast(E_typed("date", "2020-02-29"), "text")), "2020-02-29");
    CHECK_EQ_STR(T(E_cast(E_typed("timestamp", "2020-02-29 10:00"), "date")), "2020-02-29");
}

static void test_zones(void)
{
    T_env.time_zone = "America/New_York";
    CHECK_EQ_STR(T(E_cast(E_lit("2024-07-01 12:00:00"), "timestamptz")), "2024-07-01 12:00:00-04");
    CHECK_EQ_STR(T(E_cast(E_lit("2024-01-01 12:00:00+00"), "timestamptz")), "2024-01-01 07:00:00-05");
    /* DST gap: 02:30 does not exist on 2024-03-10 -> PostgreSQL gives 03:30 EDT */
    CHECK_EQ_STR(T(E_cast(E_lit("2024-03-10 02:30:00"), "timestamptz")), "2024-03-10 03:30:00-04");
    /* fold: 01:30 occurs twice on 2024-11-03 -> PostgreSQL picks standard time */
    CHECK_EQ_STR(T(E_cast(E_lit("2024-11-03 01:30:00"), "timestamptz")), "2024-11-03 01:30:00-05");
    /* far future uses the POSIX rule from the TZif footer */
    CHECK_EQ_STR(T(E_cast(E_lit("2100-07-01 00:00:00"), "timestamptz")), "2100-07-01 00:00:00-04");
    CHECK_EQ_STR(T(E_cast(E_lit("1880-01-01 00:00:00"), "timestamptz")), "1880-01-01 00:00:00-04:56:02");
    /* timestamptz -> timestamp in the session zone */
    CHECK_EQ_STR(T(E_cast(E_cast(E_lit("2024-01-01 12:00:00+00"), "timestamptz"), "timestamp")), "2024-01-01 07:00:00");
    /* AT TIME ZONE */
    fl_expr *tz = E_cast(E_lit("2024-01-01 12:00:00+00"), "timestamptz");
    CHECK_EQ_STR(T(E_call("timezone", E_lit("Asia/Kolkata"), tz)), "2024-01-01 17:30:00");
    CHECK_EQ_STR(T(E_call("timezone", E_lit("Europe/Paris"), E_typed("timestamp", "2024-07-01 12:00"))),
                 "2024-07-01 06:00:00-04");
    CHECK(strstr(T(E_call("timezone", E_lit("Mars/Olympus"), tz)), "not recognized") != NULL);
    /* timestamptz + interval across DST keeps the wall clock */
    fl_expr *before = E_cast(E_lit("2024-03-09 12:00:00"), "timestamptz");
    CHECK_EQ_STR(T(E_call("+", before, E_typed("interval", "1 day"))), "2024-03-10 12:00:00-04");
    CHECK_EQ_STR(T(E_call("+", before, E_typed("interval", "24 hours"))), "2024-03-10 13:00:00-04");
    T_env.time_zone = "UTC";
    CHECK_EQ_STR(T(E_cast(E_lit("2024-07-01 12:00:00+05:30"), "timestamptz")), "2024-07-01 06:30:00+00");
    /* formatter with a preloaded zone */
    fl_sql_formatter *f;
    fl_error e;
    CHECK_OK(fl_sql_formatter_new("Asia/Kolkata", &f, &e), &e);
    fl_type tzt = {.id = FL_TYPE_TIMESTAMPTZ};
    fl_vector v;
    fl_vector_init(&v, &tzt, &e);
    int64_t us = 0;
    fl_vector_append_fixed(&v, &us, &e);
    fl_vector_append_null(&v, &e);
    char buf[64];
    CHECK_EQ_INT(fl_sql_formatter_value(f, &v, 0, buf, sizeof buf), 25);
    CHECK_EQ_STR(buf, "1970-01-01 05:30:00+05:30");
    CHECK_EQ_INT(fl_sql_formatter_value(f, &v, 1, buf, sizeof buf), 0);
    fl_vector_destroy(&v);
    fl_sql_formatter_free(f);
    CHECK(fl_sql_formatter_new("No/Such_Zone", &f, &e) != FL_OK);
}

static void test_interval_arith(void)
{
    CHECK_EQ_STR(T(E_typed("interval", "1 year 2 months 3 days 04:05:06.5")), "1 year 2 mons 3 days 04:05:06.5");
    CHECK_EQ_STR(T(E_typed("interval", "-1 day")), "-1 days");
    CHECK_EQ_STR(T(E_typed("interval", "90 minutes")), "01:30:00");
    CHECK_EQ_STR(T(E_typed("interval", "P1Y2M10DT2H30M")), "1 year 2 mons 10 days 02:30:00");
    CHECK_EQ_STR(T(E_typed("interval", "1.5 days")), "1 day 12:00:00");
    /* hours are not a time of day: PostgreSQL prints and re-reads any number of them */
    CHECK_EQ_STR(T(E_typed("interval", "25:00:00")), "25:00:00");
    CHECK_EQ_STR(T(E_typed("interval", "1000:00:00")), "1000:00:00");
    CHECK_EQ_STR(T(E_typed("interval", "10362215:06:02")), "10362215:06:02");
    CHECK_EQ_STR(T(E_typed("interval", "-100:30:15.5")), "-100:30:15.5");
    CHECK_EQ_STR(T(E_typed("interval", "1 day 02:03")), "1 day 02:03:00");
    /* INTERVAL '90' DAY: typmod field mask DAY */
    fl_type iv;
    int32_t mod = 1 << 3;
    fl_error e;
    CHECK_OK(fl_sql_type_parse("interval", &mod, 1, &iv, &e), &e);
    fl_expr *ninety;
    CHECK_OK(fl_expr_cast(&T_arena, E_lit("90"), &iv, &ninety, &e), &e);
    CHECK_EQ_STR(T(ninety), "90 days");
    /* TPC-H: date '1998-12-01' - interval '90' day */
    fl_expr *d = E_call("-", E_typed("date", "1998-12-01"), ninety);
    CHECK(fl_expr_is_constant(d));
    CHECK_EQ_STR(T(d), "1998-09-02 00:00:00");
    CHECK_EQ_STR(T(E_call("+", E_typed("date", "1994-01-31"), E_typed("interval", "1 month"))), "1994-02-28 00:00:00");
    CHECK_EQ_STR(T(E_call("+", E_typed("date", "1994-01-01"), E_int(31))), "1994-02-01");
    CHECK_EQ_STR(T(E_call("-", E_typed("date", "1994-03-01"), E_typed("date", "1994-01-01"))), "59");
    CHECK_EQ_STR(T(E_call("-", E_typed("timestamp", "2024-03-01 12:00"), E_typed("timestamp", "2024-02-28 06:30"))),
                 "2 days 05:30:00");
    CHECK_EQ_STR(T(E_call("*", E_typed("interval", "1 day 2 hours"), E_int(3))), "3 days 06:00:00");
    CHECK_EQ_STR(T(E_call("-", E_typed("interval", "1 day"))), "-1 days");
    CHECK_EQ_STR(T(E_call("age", E_typed("timestamp", "2001-04-10"), E_typed("timestamp", "1957-06-13"))),
                 "43 years 9 mons 27 days");
    CHECK_EQ_STR(T(E_call("<", E_typed("interval", "1 month"), E_typed("interval", "31 days"))), "t");
}

static void test_fields(void)
{
    fl_expr *ts = E_typed("timestamp", "2001-02-16 20:38:40.5");
    CHECK_EQ_STR(T(E_call("extract", E_lit("year"), ts)), "2001");
    CHECK_EQ_STR(T(E_call("extract", E_lit("month"), ts)), "2");
    CHECK_EQ_STR(T(E_call("extract", E_lit("second"), ts)), "40.500000");
    CHECK_EQ_STR(T(E_call("extract", E_lit("milliseconds"), ts)), "40500.000");
    CHECK_EQ_STR(T(E_call("extract", E_lit("dow"), ts)), "5");
    CHECK_EQ_STR(T(E_call("extract", E_lit("doy"), ts)), "47");
    CHECK_EQ_STR(T(E_call("extract", E_lit("week"), ts)), "7");
    CHECK_EQ_STR(T(E_call("extract", E_lit("quarter"), ts)), "1");
    CHECK_EQ_STR(T(E_call("extract", E_lit("epoch"), ts)), "982355920.500000");
    CHECK_EQ_STR(T(E_call("extract", E_lit("century"), ts)), "21");
    CHECK_EQ_STR(T(E_call("extract", E_lit("year"), E_typed("date", "1995-03-15"))), "1995");
    CHECK_EQ_STR(T(E_call("extract", E_lit("epoch"), E_typed("date", "1995-03-15"))), "795225600");
    CHECK_EQ_STR(T(E_call("date_part", E_lit("hour"), ts)), "20");
    CHECK_EQ_STR(T(E_call("extract", E_lit("hour"), E_typed("interval", "1 day 05:00"))), "5");
    CHECK(strstr(T(E_call("extract", E_lit("fortnight"), ts)), "not supported") != NULL);
    CHECK_EQ_STR(T(E_call("date_trunc", E_lit("hour"), ts)), "2001-02-16 20:00:00");
    CHECK_EQ_STR(T(E_call("date_trunc", E_lit("week"), ts)), "2001-02-12 00:00:00");
    CHECK_EQ_STR(T(E_call("date_trunc", E_lit("quarter"), ts)), "2001-01-01 00:00:00");
    CHECK_EQ_STR(T(E_call("date_trunc", E_lit("month"), E_typed("date", "2001-02-16"))), "2001-02-01 00:00:00+00");
    CHECK_EQ_STR(T(E_call("date_diff", E_lit("month"), E_typed("date", "2020-01-31"), E_typed("date", "2020-03-01"))), "2");
    CHECK_EQ_STR(T(E_call("date_diff", E_lit("day"), E_typed("date", "2020-01-31"), E_typed("date", "2020-03-01"))), "30");
    CHECK_EQ_STR(T(E_call("to_char", ts, E_lit("YYYY-MM-DD HH24:MI:SS.MS Dy Mon"))), "2001-02-16 20:38:40.500 Fri Feb");
    CHECK_EQ_STR(T(E_call("to_char", ts, E_lit("FMMonth DD, YYYY HH12 AM"))), "February 16, 2001 08 PM");
    CHECK_EQ_STR(T(E_call("make_date", E_int(2013), E_int(7), E_int(15))), "2013-07-15");
    CHECK(strstr(T(E_call("make_date", E_int(2013), E_int(2), E_int(30))), "out of range") != NULL);
    CHECK_EQ_STR(T(E_call("to_timestamp", E_int(0))), "1970-01-01 00:00:00+00");
    CHECK_EQ_STR(T(E_call0("now")), "2023-11-14 22:13:20.123456+00");
    CHECK_EQ_STR(T(E_call0("current_date")), "2023-11-14");
    CHECK(!fl_expr_is_constant(E_call0("now")));
}

int main(void)
{
    t_init();
    TEST_RUN(test_text_casts);
    TEST_RUN(test_zones);
    TEST_RUN(test_interval_arith);
    TEST_RUN(test_fields);
    fl_arena_free(&T_arena);
    return TEST_EXIT();
}
