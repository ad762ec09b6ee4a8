/*
 * test_value_bytes.c - Iceberg single-value binary serialization: exact byte
 * layouts per type (spec Appendix D), decimal bounds seen in a Java-written
 * fixture, round trips for every type, promoted-type lengths and rejections.
 */
#include <math.h>

#include "floe/iceberg.h"
#include "test.h"

static fl_value mk(fl_type_id id)
{
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type.id = id;
    return v;
}

/* Serializes v, compares with the expected bytes, parses back and compares
 * the value with fl_value_compare. */
static void check_bytes(fl_value v, const uint8_t *want, size_t want_len)
{
    uint8_t buf[16];
    const uint8_t *out;
    size_t len = 0;
    fl_error err;
    CHECK_OK(fl_ice_value_to_bytes(&v, buf, sizeof buf, &out, &len, &err), &err);
    CHECK_EQ_INT(len, want_len);
    CHECK(len == want_len && memcmp(out, want, len) == 0);
    fl_value back;
    CHECK_OK(fl_ice_value_from_bytes(&v.type, out, len, &back, &err), &err);
    CHECK_EQ_INT(back.type.id, v.type.id);
    CHECK(fl_value_compare(&v, &back) == 0);
}

static void test_fixed_width(void)
{
    fl_value v = mk(FL_TYPE_BOOLEAN);
    v.v.b = true;
    check_bytes(v, (const uint8_t *)"\x01", 1);
    v.v.b = false;
    check_bytes(v, (const uint8_t *)"\x00", 1);
    v = mk(FL_TYPE_INT32);
    v.v.i32 = -2;
    check_bytes(v, (const uint8_t *)"\xfe\xff\xff\xff", 4);
    v = mk(FL_TYPE_DATE);
    v.v.i32 = 17486; /* 2017-11-16 = 0x444E */
    check_bytes(v, (const uint8_t *)"\x4e\x44\x00\x00", 4);
    v = mk(FL_TYPE_INT64);
    v.v.i64 = INT64_C(0x0102030405060708);
    check_bytes(v, (const uint8_t *)"\x08\x07\x06\x05\x04\x03\x02\x01", 8);
    fl_type_id longs[] = {FL_TYPE_TIME, FL_TYPE_TIMESTAMP, FL_TYPE_TIMESTAMPTZ,
                          FL_TYPE_TIMESTAMP_NS, FL_TYPE_TIMESTAMPTZ_NS};
    for (size_t i = 0; i < sizeof longs / sizeof longs[0]; i++) {
        v = mk(longs[i]);
        v.v.i64 = -1;
        check_bytes(v, (const uint8_t *)"\xff\xff\xff\xff\xff\xff\xff\xff", 8);
    }
    v = mk(FL_TYPE_FLOAT32);
    v.v.f32 = 1.0f; /* 0x3f800000 */
    check_bytes(v, (const uint8_t *)"\x00\x00\x80\x3f", 4);
    v = mk(FL_TYPE_FLOAT64);
    v.v.f64 = -2.5; /* 0xc004000000000000 */
    check_bytes(v, (const uint8_t *)"\x00\x00\x00\x00\x00\x00\x04\xc0", 8);
}

static void test_decimal(void)
{
    /* decimal(10,2) bounds from a Java-written fixture (digest §5.1) */
    fl_value v = mk(FL_TYPE_DECIMAL);
    v.type.precision = 10;
    v.type.scale = 2;
    v.v.dec = 0;
    check_bytes(v, (const uint8_t *)"\x00", 1);
    v.v.dec = 999;
    check_bytes(v, (const uint8_t *)"\x03\xe7", 2);
    v.v.dec = -500;
    check_bytes(v, (const uint8_t *)"\xfe\x0c", 2);
    v.v.dec = INT64_C(9999999999);
    check_bytes(v, (const uint8_t *)"\x02\x54\x0b\xe3\xff", 5);
    v.v.dec = 128;
    check_bytes(v, (const uint8_t *)"\x00\x80", 2);
    v.v.dec = -1;
    check_bytes(v, (const uint8_t *)"\xff", 1);
    v.v.dec = -128;
    check_bytes(v, (const uint8_t *)"\x80", 1);
    v.v.dec = -129;
    check_bytes(v, (const uint8_t *)"\xff\x7f", 2);
    v.v.dec = 1420; /* 14.20 of the hash vectors */
    check_bytes(v, (const uint8_t *)"\x05\x8c", 2);
    /* 38 nines: 16 bytes, positive, leading 0x4b */
    fl_i128 big = 1;
    for (int i = 0; i < 38; i++)
        big *= 10;
    v.type.precision = 38;
    v.v.dec = big - 1;
    uint8_t buf[16];
    size_t n = fl_ice_decimal_to_be_bytes(v.v.dec, buf);
    CHECK_EQ_INT(n, 16);
    CHECK_EQ_INT(buf[0], 0x4b);
    fl_value back;
    fl_error err;
    CHECK_OK(fl_ice_value_from_bytes(&v.type, buf, n, &back, &err), &err);
    CHECK(back.v.dec == big - 1);
    v.v.dec = -(big - 1);
    n = fl_ice_decimal_to_be_bytes(v.v.dec, buf);
    CHECK_OK(fl_ice_value_from_bytes(&v.type, buf, n, &back, &err), &err);
    CHECK(back.v.dec == -(big - 1));
    /* sign extension of a padded (Avro/Parquet-style) form also decodes */
    CHECK_OK(fl_ice_value_from_bytes(&v.type, (const uint8_t *)"\xff\xff\xfe\x0c", 4, &back, &err),
             &err);
    CHECK(back.v.dec == -500);
    CHECK(fl_ice_value_from_bytes(&v.type, buf, 0, &back, &err) == FL_ECORRUPT);
    uint8_t b17[17] = {0};
    CHECK(fl_ice_value_from_bytes(&v.type, b17, 17, &back, &err) == FL_ECORRUPT);
}

static void test_bytes_types(void)
{
    fl_value v = mk(FL_TYPE_STRING);
    v.v.bytes.ptr = (const uint8_t *)"iceberg\xc3\xa9";
    v.v.bytes.len = 9;
    check_bytes(v, (const uint8_t *)"iceberg\xc3\xa9", 9);
    v.v.bytes.len = 0;
    check_bytes(v, (const uint8_t *)"", 0);
    static const uint8_t uuid[16] = {0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd,
                                     0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7, 0x85, 0xe7};
    v = mk(FL_TYPE_UUID);
    v.type.fixed_len = 16;
    v.v.bytes.ptr = uuid;
    v.v.bytes.len = 16;
    check_bytes(v, uuid, 16);
    v = mk(FL_TYPE_FIXED);
    v.type.fixed_len = 3;
    v.v.bytes.ptr = (const uint8_t *)"\x00\x01\x02";
    v.v.bytes.len = 3;
    check_bytes(v, (const uint8_t *)"\x00\x01\x02", 3);
    v = mk(FL_TYPE_BINARY);
    v.v.bytes.ptr = (const uint8_t *)"\x00\xff";
    v.v.bytes.len = 2;
    check_bytes(v, (const uint8_t *)"\x00\xff", 2);
}

static void test_promotions_and_errors(void)
{
    fl_error err;
    fl_value out;
    fl_type t_long = {.id = FL_TYPE_INT64}, t_double = {.id = FL_TYPE_FLOAT64};
    fl_type t_ts = {.id = FL_TYPE_TIMESTAMP}, t_tsns = {.id = FL_TYPE_TIMESTAMP_NS};
    /* long bound written while the column was an int */
    CHECK_OK(fl_ice_value_from_bytes(&t_long, (const uint8_t *)"\xfe\xff\xff\xff", 4, &out, &err),
             &err);
    CHECK(out.v.i64 == -2);
    /* double bound written as float */
    CHECK_OK(fl_ice_value_from_bytes(&t_double, (const uint8_t *)"\x00\x00\xc0\x3f", 4, &out, &err),
             &err);
    CHECK(out.v.f64 == 1.5);
    /* timestamp bound written as date: day 1 */
    CHECK_OK(fl_ice_value_from_bytes(&t_ts, (const uint8_t *)"\x01\x00\x00\x00", 4, &out, &err),
             &err);
    CHECK(out.v.i64 == INT64_C(86400000000));
    CHECK_OK(fl_ice_value_from_bytes(&t_tsns, (const uint8_t *)"\xff\xff\xff\xff", 4, &out, &err),
             &err);
    CHECK(out.v.i64 == -INT64_C(86400000000000));
    /* wrong lengths name the type */
    fl_type t_int = {.id = FL_TYPE_INT32}, t_uuid = {.id = FL_TYPE_UUID, .fixed_len = 16};
    fl_type t_fixed = {.id = FL_TYPE_FIXED, .fixed_len = 4}, t_bool = {.id = FL_TYPE_BOOLEAN};
    CHECK(fl_ice_value_from_bytes(&t_int, (const uint8_t *)"\x01\x02", 2, &out, &err) ==
          FL_ECORRUPT);
    CHECK(strstr(err.msg, "2 bytes is not a valid int") != NULL);
    CHECK(fl_ice_value_from_bytes(&t_uuid, (const uint8_t *)"abc", 3, &out, &err) == FL_ECORRUPT);
    CHECK(fl_ice_value_from_bytes(&t_fixed, (const uint8_t *)"abc", 3, &out, &err) == FL_ECORRUPT);
    CHECK(fl_ice_value_from_bytes(&t_bool, (const uint8_t *)"", 0, &out, &err) == FL_ECORRUPT);
    CHECK(fl_ice_value_from_bytes(&t_long, (const uint8_t *)"\x01\x02\x03", 3, &out, &err) ==
          FL_ECORRUPT);
    CHECK_OK(fl_ice_value_from_bytes(&t_bool, (const uint8_t *)"\x07", 1, &out, &err), &err);
    CHECK(out.v.b);
    /* nested types and nulls have no binary form; small buffers are refused */
    fl_type t_struct = {.id = FL_TYPE_STRUCT};
    CHECK(fl_ice_value_from_bytes(&t_struct, (const uint8_t *)"", 0, &out, &err) == FL_ETYPE);
    fl_value v = mk(FL_TYPE_INT64);
    uint8_t small[4];
    const uint8_t *p;
    size_t n;
    CHECK(fl_ice_value_to_bytes(&v, small, sizeof small, &p, &n, &err) == FL_EINVAL);
    v.is_null = true;
    CHECK(fl_ice_value_to_bytes(&v, small, sizeof small, &p, &n, &err) == FL_EINVAL);
    /* NaN survives bit-exactly */
    v = mk(FL_TYPE_FLOAT64);
    v.v.f64 = NAN;
    uint8_t buf[16];
    CHECK_OK(fl_ice_value_to_bytes(&v, buf, sizeof buf, &p, &n, &err), &err);
    CHECK_OK(fl_ice_value_from_bytes(&v.type, p, n, &out, &err), &err);
    CHECK(isnan(out.v.f64));
}

int main(void)
{
    TEST_RUN(test_fixed_width);
    TEST_RUN(test_decimal);
    TEST_RUN(test_bytes_types);
    TEST_RUN(test_promotions_and_errors);
    return TEST_EXIT();
}
