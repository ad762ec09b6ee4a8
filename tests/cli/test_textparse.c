/*
 * test_textparse.c - text -> typed values (src/cli/textparse.c): numbers with
 * range checks, exact decimals with rounding, dates/times/timestamps with
 * offsets, uuids, hex bytes, and the --schema type spec parser.
 */
#include "cli/output.c"
#include "floe/text.h"

#include "test.h"

#define S(x) x, strlen(x)

static void test_numbers(void)
{
    int64_t i;
    CHECK(fl_parse_int64(S("-9223372036854775808"), &i) && i == INT64_MIN);
    CHECK(fl_parse_int64(S("9223372036854775807"), &i) && i == INT64_MAX);
    CHECK(!fl_parse_int64(S("9223372036854775808"), &i));
    CHECK(!fl_parse_int64(S("12x"), &i));
    CHECK(!fl_parse_int64(S(""), &i));
    CHECK(!fl_parse_int64(S("-"), &i));
    double d;
    CHECK(fl_parse_double(S("1.5e3"), &d) && d == 1500);
    CHECK(fl_parse_double(S("NaN"), &d) && d != d);
    CHECK(fl_parse_double(S("-Infinity"), &d) && d < 0 && isinf(d));
    CHECK(!fl_parse_double(S("0x10"), &d));
    CHECK(!fl_parse_double(S("1.5 "), &d));
    bool b;
    CHECK(fl_parse_bool(S("TRUE"), &b) && b);
    CHECK(fl_parse_bool(S("f"), &b) && !b);
    CHECK(!fl_parse_bool(S("maybe"), &b));
}

static void test_decimal(void)
{
    fl_i128 v;
    CHECK(fl_parse_decimal(S("123.45"), 10, 2, &v) == FL_OK && v == 12345);
    CHECK(fl_parse_decimal(S("-0.05"), 10, 2, &v) == FL_OK && v == -5);
    CHECK(fl_parse_decimal(S("7"), 10, 2, &v) == FL_OK && v == 700);
    CHECK(fl_parse_decimal(S("1.005"), 10, 2, &v) == FL_OK && v == 101); /* half away from zero */
    CHECK(fl_parse_decimal(S("-1.004"), 10, 2, &v) == FL_OK && v == -100);
    CHECK(fl_parse_decimal(S("1.5e2"), 10, 2, &v) == FL_OK && v == 15000);
    CHECK(fl_parse_decimal(S("0.001"), 10, 2, &v) == FL_OK && v == 0);
    CHECK(fl_parse_decimal(S("99999999.99"), 10, 2, &v) == FL_OK && v == 9999999999LL);
    CHECK(fl_parse_decimal(S("100000000"), 10, 2, &v) == FL_EOVERFLOW);
    CHECK(fl_parse_decimal(S("99999999.995"), 10, 2, &v) == FL_EOVERFLOW);
    CHECK(fl_parse_decimal(S("1.2.3"), 10, 2, &v) == FL_ESYNTAX);
    CHECK(fl_parse_decimal(S("abc"), 10, 2, &v) == FL_ESYNTAX);
    CHECK(fl_parse_decimal(S("12345678901234567890123456789012.123456"), 38, 6, &v) == FL_OK);
    char buf[64];
    fl_format_decimal(v, 6, buf, sizeof buf);
    CHECK_EQ_STR(buf, "12345678901234567890123456789012.123456");
}

static void test_dates(void)
{
    int32_t days;
    CHECK(fl_parse_date(S("1970-01-01"), &days) && days == 0);
    CHECK(fl_parse_date(S("2024-02-29"), &days) && days == 19782);
    CHECK(!fl_parse_date(S("2023-02-29"), &days));
    CHECK(!fl_parse_date(S("2024-13-01"), &days));
    CHECK(!fl_parse_date(S("2024-01-01x"), &days));
    int64_t t;
    CHECK(fl_parse_time(S("01:02:03.5"), &t) && t == 3723500000LL);
    CHECK(fl_parse_time(S("23:59"), &t) && t == 86340000000LL);
    CHECK(!fl_parse_time(S("25:00:00"), &t));
    bool tz;
    CHECK(fl_parse_timestamp(S("2024-01-01 00:00:01.000001"), 6, &t, &tz) &&
          t == 1704067201000001LL && !tz);
    CHECK(fl_parse_timestamp(S("2024-01-01T02:00:00+02:00"), 6, &t, &tz) &&
          t == 1704067200000000LL && tz);
    CHECK(fl_parse_timestamp(S("2024-01-01 00:00:00+00"), 6, &t, &tz) && t == 1704067200000000LL &&
          tz);
    CHECK(fl_parse_timestamp(S("2024-01-01"), 6, &t, &tz) && t == 1704067200000000LL);
    CHECK(fl_parse_timestamp(S("1969-12-31 23:59:59.9999995"), 6, &t, &tz) && t == -1);
    CHECK(fl_parse_timestamp(S("2024-01-01 00:00:00.123456789"), 9, &t, &tz) &&
          t == 1704067200123456789LL);
    CHECK(!fl_parse_timestamp(S("2024-01-01 00:00:00 junk"), 6, &t, &tz));
    /* round trip through the formatter */
    char buf[64];
    fl_format_timestamp(-1, 6, false, buf, sizeof buf);
    CHECK(fl_parse_timestamp(buf, strlen(buf), 6, &t, &tz) && t == -1);
}

static void test_bytes(void)
{
    uint8_t u[16];
    CHECK(fl_parse_uuid(S("12345678-1234-5678-1234-567812345678"), u) && u[0] == 0x12 &&
          u[15] == 0x78);
    CHECK(fl_parse_uuid(S("123456781234567812345678123456ff"), u) && u[15] == 0xff);
    CHECK(!fl_parse_uuid(S("12345678-1234-5678-1234-56781234567g"), u));
    uint8_t b[8];
    size_t n;
    CHECK(fl_parse_hex_bytes(S("\\x00ABff"), b, &n) && n == 3 && b[1] == 0xab && b[2] == 0xff);
    CHECK(!fl_parse_hex_bytes(S("\\x0"), b, &n));
}

static void test_schema_spec(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_schema s;
    fl_error err;
    CHECK_OK(fl_parse_schema_spec("id:long not null, price:decimal(10,2),tags:list<string>,"
                                  "pt:struct<x:double,y:long>,m:map<string,int>,u:uuid,f:fixed[4]",
                                  &a, &s, &err),
             &err);
    CHECK_EQ_INT(s.nfields, 7);
    CHECK_EQ_STR(s.fields[0].name, "id");
    CHECK(!s.fields[0].nullable && s.fields[0].type.id == FL_TYPE_INT64 &&
          s.fields[0].field_id == 1);
    CHECK(s.fields[1].type.id == FL_TYPE_DECIMAL && s.fields[1].type.precision == 10 &&
          s.fields[1].type.scale == 2 && s.fields[1].field_id == 2);
    CHECK(s.fields[2].type.id == FL_TYPE_LIST && s.fields[2].type.children[0].field_id == 8 &&
          s.fields[2].type.children[0].type.id == FL_TYPE_STRING);
    CHECK(s.fields[3].type.id == FL_TYPE_STRUCT && s.fields[3].type.nchildren == 2 &&
          s.fields[3].type.children[1].field_id == 10 &&
          !strcmp(s.fields[3].type.children[1].name, "y"));
    CHECK(s.fields[4].type.id == FL_TYPE_MAP && s.fields[4].type.children[0].field_id == 11 &&
          s.fields[4].type.children[1].field_id == 12 &&
          s.fields[4].type.children[1].type.id == FL_TYPE_INT32);
    CHECK(s.fields[5].type.id == FL_TYPE_UUID && s.fields[6].type.fixed_len == 4);
    CHECK(fl_parse_schema_spec("a:long,a:int", &a, &s, &err) == FL_EINVAL);
    CHECK(fl_parse_schema_spec("a:lng", &a, &s, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "unknown type 'lng'") != NULL);
    CHECK(fl_parse_schema_spec("a:decimal(40,2)", &a, &s, &err) == FL_EINVAL);
    CHECK(fl_parse_schema_spec("a:list<long", &a, &s, &err) == FL_ESYNTAX);
    CHECK(fl_parse_schema_spec("nocolon", &a, &s, &err) == FL_ESYNTAX);
    fl_arena_free(&a);
}

static void test_append(void)
{
    fl_type t = {.id = FL_TYPE_DECIMAL, .precision = 5, .scale = 1};
    fl_vector v;
    fl_error err;
    CHECK_OK(fl_vector_init(&v, &t, &err), &err);
    CHECK_OK(fl_parse_append(&v, S("12.34"), &err), &err);
    CHECK(fl_parse_append(&v, S("123456"), &err) == FL_EOVERFLOW);
    CHECK(strstr(err.msg, "does not fit decimal(5,1)") != NULL);
    CHECK(fl_parse_append(&v, S("x"), &err) == FL_ESYNTAX);
    CHECK_EQ_INT(v.len, 1);
    fl_buf sb = {0};
    CHECK_OK(fl_format_json(&sb, &v, 0, &err), &err);
    CHECK_EQ_STR(sb.data, "\"12.3\"");
    fl_buf_free(&sb);
    fl_vector_destroy(&v);
}

int main(void)
{
    TEST_RUN(test_numbers);
    TEST_RUN(test_decimal);
    TEST_RUN(test_dates);
    TEST_RUN(test_bytes);
    TEST_RUN(test_schema_spec);
    TEST_RUN(test_append);
    return TEST_EXIT();
}
