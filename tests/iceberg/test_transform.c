/*
 * test_transform.c - Iceberg partition transforms against the spec's test
 * vectors (format/spec.md Appendix B hashes, truncate examples) and the
 * bucket layout of the icebird spark/rename_column fixture.
 */
#include "floe/iceberg.h"
#include "test.h"

static fl_value v_i32(fl_type_id id, int32_t x)
{
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type.id = id;
    v.v.i32 = x;
    return v;
}

static fl_value v_i64(fl_type_id id, int64_t x)
{
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type.id = id;
    v.v.i64 = x;
    return v;
}

static fl_value v_bytes(fl_type_id id, const void *p, size_t n)
{
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type.id = id;
    v.type.fixed_len = id == FL_TYPE_FIXED || id == FL_TYPE_UUID ? (int32_t)n : 0;
    v.v.bytes.ptr = p;
    v.v.bytes.len = n;
    return v;
}

static fl_value v_dec(fl_i128 unscaled, int p, int s)
{
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type.id = FL_TYPE_DECIMAL;
    v.type.precision = p;
    v.type.scale = s;
    v.v.dec = unscaled;
    return v;
}

static int32_t hash_of(fl_value v)
{
    fl_error err;
    int32_t h = 0;
    CHECK_OK(fl_ice_bucket_hash(&v, &h, &err), &err);
    return h;
}

/* 2017-11-16 is day 17486; 22:31:08 is 81068 s after midnight. */
#define DAY_2017_11_16 17486
#define TIME_22_31_08 INT64_C(81068000000)
#define TS_2017_11_16_22_31_08 (INT64_C(17486) * INT64_C(86400000000) + TIME_22_31_08)

static void test_spec_hash_vectors(void)
{
    CHECK_EQ_INT(hash_of(v_i32(FL_TYPE_INT32, 34)), 2017239379);
    CHECK_EQ_INT(hash_of(v_i64(FL_TYPE_INT64, 34)), 2017239379);
    CHECK_EQ_INT(hash_of(v_dec(1420, 4, 2)), -500754589);
    CHECK_EQ_INT(hash_of(v_i32(FL_TYPE_DATE, DAY_2017_11_16)), -653330422);
    CHECK_EQ_INT(hash_of(v_i64(FL_TYPE_TIME, TIME_22_31_08)), -662762989);
    CHECK_EQ_INT(hash_of(v_i64(FL_TYPE_TIMESTAMP, TS_2017_11_16_22_31_08)), -2047944441);
    CHECK_EQ_INT(hash_of(v_i64(FL_TYPE_TIMESTAMP, TS_2017_11_16_22_31_08 + 1)), -1207196810);
    /* 14:31:08-08:00 is 22:31:08 UTC */
    CHECK_EQ_INT(hash_of(v_i64(FL_TYPE_TIMESTAMPTZ, TS_2017_11_16_22_31_08)), -2047944441);
    CHECK_EQ_INT(hash_of(v_i64(FL_TYPE_TIMESTAMPTZ, TS_2017_11_16_22_31_08 + 1)), -1207196810);
    /* _ns values hash as their microseconds */
    CHECK_EQ_INT(hash_of(v_i64(FL_TYPE_TIMESTAMP_NS, TS_2017_11_16_22_31_08 * 1000)), -2047944441);
    CHECK_EQ_INT(hash_of(v_i64(FL_TYPE_TIMESTAMP_NS, TS_2017_11_16_22_31_08 * 1000 + 1001)),
                 -1207196810);
    CHECK_EQ_INT(hash_of(v_i64(FL_TYPE_TIMESTAMPTZ_NS, TS_2017_11_16_22_31_08 * 1000 + 1001)),
                 -1207196810);
    CHECK_EQ_INT(hash_of(v_bytes(FL_TYPE_STRING, "iceberg", 7)), 1210000089);
    CHECK_EQ_INT(hash_of(v_bytes(FL_TYPE_STRING, "34", 2)), -427558391);
    static const uint8_t uuid[16] = {0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd,
                                     0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7, 0x85, 0xe7};
    CHECK_EQ_INT(hash_of(v_bytes(FL_TYPE_UUID, uuid, 16)), 1488055340);
    static const uint8_t b4[4] = {0, 1, 2, 3};
    CHECK_EQ_INT(hash_of(v_bytes(FL_TYPE_FIXED, b4, 4)), -188683207);
    CHECK_EQ_INT(hash_of(v_bytes(FL_TYPE_BINARY, b4, 4)), -188683207);
    /* reference-only vectors: bool true = hashInt(1); double 1.0 = hashLong(bits) */
    static const uint8_t one_le[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    CHECK_EQ_INT(fl_ice_murmur3_32(one_le, 8), 1392991556);
    static const uint8_t d1_le[8] = {0, 0, 0, 0, 0, 0, 0xf0, 0x3f};
    CHECK_EQ_INT(fl_ice_murmur3_32(d1_le, 8), -142385009);
    /* booleans and doubles are not bucketable */
    fl_value f = v_i64(FL_TYPE_FLOAT64, 0);
    int32_t h;
    fl_error err;
    CHECK(fl_ice_bucket_hash(&f, &h, &err) == FL_ETYPE);
}

static int32_t bucket(fl_value v, int32_t n)
{
    fl_ice_transform t = {FL_ICE_TRANSFORM_BUCKET, n};
    fl_value out;
    fl_error err;
    CHECK_OK(fl_ice_transform_apply(&t, &v, &out, &err), &err);
    CHECK_EQ_INT(out.type.id, FL_TYPE_INT32);
    return out.v.i32;
}

static void test_bucket(void)
{
    CHECK_EQ_INT(hash_of(v_i32(FL_TYPE_INT32, 0)), 1669671676);
    CHECK_EQ_INT(bucket(v_i32(FL_TYPE_INT32, 0), 16), 12);
    CHECK_EQ_INT(bucket(v_i32(FL_TYPE_INT32, 1), 16), 4);
    CHECK_EQ_INT(bucket(v_i32(FL_TYPE_INT32, -1), 16), 8);
    CHECK_EQ_INT(hash_of(v_i32(FL_TYPE_INT32, -34)), -2117612851);
    CHECK_EQ_INT(bucket(v_i32(FL_TYPE_INT32, -34), 16), 13);
    CHECK_EQ_INT(hash_of(v_bytes(FL_TYPE_STRING, "", 0)), 0);
    CHECK_EQ_INT(bucket(v_bytes(FL_TYPE_STRING, "a", 1), 16), 2);
    CHECK_EQ_INT(bucket(v_bytes(FL_TYPE_STRING, "abc", 3), 16), 10);
    CHECK_EQ_INT(hash_of(v_bytes(FL_TYPE_STRING, "abc", 3)), -1277324294);
    /* icebird spark/rename_column: bucket[4](id) puts 1,2 in 0, 3 in 3, 4 in 2 */
    CHECK_EQ_INT(bucket(v_i32(FL_TYPE_INT32, 1), 4), 0);
    CHECK_EQ_INT(bucket(v_i32(FL_TYPE_INT32, 2), 4), 0);
    CHECK_EQ_INT(bucket(v_i32(FL_TYPE_INT32, 3), 4), 3);
    CHECK_EQ_INT(bucket(v_i32(FL_TYPE_INT32, 4), 4), 2);
    /* (hash & INT_MAX) % N, never a negative bucket */
    for (int32_t i = -1000; i < 1000; i++) {
        int32_t b = bucket(v_i32(FL_TYPE_INT32, i), 7);
        CHECK(b >= 0 && b < 7);
    }
    /* null in, null out */
    fl_value nv = v_i32(FL_TYPE_INT32, 0), out;
    nv.is_null = true;
    fl_ice_transform t = {FL_ICE_TRANSFORM_BUCKET, 4};
    fl_error err;
    CHECK_OK(fl_ice_transform_apply(&t, &nv, &out, &err), &err);
    CHECK(out.is_null && out.type.id == FL_TYPE_INT32);
}

static fl_value trunc_of(fl_value v, int32_t w)
{
    fl_ice_transform t = {FL_ICE_TRANSFORM_TRUNCATE, w};
    fl_value out;
    fl_error err;
    memset(&out, 0, sizeof out);
    CHECK_OK(fl_ice_transform_apply(&t, &v, &out, &err), &err);
    return out;
}

static void test_truncate(void)
{
    CHECK_EQ_INT(trunc_of(v_i32(FL_TYPE_INT32, 1), 10).v.i32, 0);
    CHECK_EQ_INT(trunc_of(v_i32(FL_TYPE_INT32, -1), 10).v.i32, -10);
    CHECK_EQ_INT(trunc_of(v_i32(FL_TYPE_INT32, 10), 10).v.i32, 10);
    CHECK_EQ_INT(trunc_of(v_i32(FL_TYPE_INT32, -10), 10).v.i32, -10);
    CHECK_EQ_INT(trunc_of(v_i64(FL_TYPE_INT64, 1), 10).v.i64, 0);
    CHECK_EQ_INT(trunc_of(v_i64(FL_TYPE_INT64, -1), 10).v.i64, -10);
    CHECK_EQ_INT(trunc_of(v_i64(FL_TYPE_INT64, INT64_C(1234567890123)), 1000).v.i64,
                 INT64_C(1234567890000));
    /* W=50, scale 2: 10.65 -> 10.50 */
    fl_value d = trunc_of(v_dec(1065, 4, 2), 50);
    CHECK(d.v.dec == 1050 && d.type.scale == 2);
    CHECK(trunc_of(v_dec(-1065, 4, 2), 50).v.dec == -1100);
    fl_value s = trunc_of(v_bytes(FL_TYPE_STRING, "iceberg", 7), 3);
    CHECK(s.v.bytes.len == 3 && memcmp(s.v.bytes.ptr, "ice", 3) == 0);
    /* code points, not bytes: "éèà" (2 bytes each) to 2 -> 4 bytes; 4-byte emoji */
    s = trunc_of(v_bytes(FL_TYPE_STRING, "\xc3\xa9\xc3\xa8\xc3\xa0", 6), 2);
    CHECK_EQ_INT(s.v.bytes.len, 4);
    s = trunc_of(v_bytes(FL_TYPE_STRING, "a\xf0\x9f\x98\x80z", 6), 2);
    CHECK_EQ_INT(s.v.bytes.len, 5);
    s = trunc_of(v_bytes(FL_TYPE_STRING, "ab", 2), 5);
    CHECK_EQ_INT(s.v.bytes.len, 2);
    static const uint8_t b5[5] = {1, 2, 3, 4, 5};
    fl_value b = trunc_of(v_bytes(FL_TYPE_BINARY, b5, 5), 3);
    CHECK(b.v.bytes.len == 3 && b.v.bytes.ptr == b5);
    /* overflow is reported, not wrapped */
    fl_ice_transform t = {FL_ICE_TRANSFORM_TRUNCATE, 10};
    fl_value in = v_i32(FL_TYPE_INT32, INT32_MIN), out;
    fl_error err;
    CHECK(fl_ice_transform_apply(&t, &in, &out, &err) == FL_EOVERFLOW);
    in = v_i64(FL_TYPE_INT64, INT64_MIN);
    CHECK(fl_ice_transform_apply(&t, &in, &out, &err) == FL_EOVERFLOW);
}

static fl_value time_of(fl_ice_transform_kind k, fl_value v)
{
    fl_ice_transform t = {k, 0};
    fl_value out;
    fl_error err;
    memset(&out, 0, sizeof out);
    CHECK_OK(fl_ice_transform_apply(&t, &v, &out, &err), &err);
    return out;
}

static void test_time_transforms(void)
{
    fl_value ts = v_i64(FL_TYPE_TIMESTAMP, TS_2017_11_16_22_31_08);
    CHECK_EQ_INT(time_of(FL_ICE_TRANSFORM_YEAR, ts).v.i32, 47);
    CHECK_EQ_INT(time_of(FL_ICE_TRANSFORM_MONTH, ts).v.i32, 47 * 12 + 10);
    fl_value day = time_of(FL_ICE_TRANSFORM_DAY, ts);
    CHECK_EQ_INT(day.type.id, FL_TYPE_DATE);
    CHECK_EQ_INT(day.v.i32, DAY_2017_11_16);
    CHECK_EQ_INT(time_of(FL_ICE_TRANSFORM_HOUR, ts).v.i32, 17486 * 24 + 22);
    fl_value d = v_i32(FL_TYPE_DATE, DAY_2017_11_16);
    CHECK_EQ_INT(time_of(FL_ICE_TRANSFORM_YEAR, d).v.i32, 47);
    CHECK_EQ_INT(time_of(FL_ICE_TRANSFORM_MONTH, d).v.i32, 574);
    CHECK_EQ_INT(time_of(FL_ICE_TRANSFORM_DAY, d).v.i32, DAY_2017_11_16);
    /* floor semantics before the epoch: 1969-12-31T23:59:59.999999 */
    fl_value neg = v_i64(FL_TYPE_TIMESTAMPTZ, -1);
    CHECK_EQ_INT(time_of(FL_ICE_TRANSFORM_DAY, neg).v.i32, -1);
    CHECK_EQ_INT(time_of(FL_ICE_TRANSFORM_HOUR, neg).v.i32, -1);
    CHECK_EQ_INT(time_of(FL_ICE_TRANSFORM_MONTH, neg).v.i32, -1);
    CHECK_EQ_INT(time_of(FL_ICE_TRANSFORM_YEAR, neg).v.i32, -1);
    CHECK_EQ_INT(time_of(FL_ICE_TRANSFORM_YEAR, v_i32(FL_TYPE_DATE, -366)).v.i32, -2);
    CHECK_EQ_INT(time_of(FL_ICE_TRANSFORM_MONTH, v_i32(FL_TYPE_DATE, -31)).v.i32, -1);
    CHECK_EQ_INT(time_of(FL_ICE_TRANSFORM_MONTH, v_i32(FL_TYPE_DATE, -32)).v.i32, -2);
    /* 2000-02-29 (leap day) is day 11016: month 30*12+1 */
    CHECK_EQ_INT(time_of(FL_ICE_TRANSFORM_MONTH, v_i32(FL_TYPE_DATE, 11016)).v.i32, 361);
    CHECK_EQ_INT(time_of(FL_ICE_TRANSFORM_MONTH, v_i32(FL_TYPE_DATE, 11017)).v.i32, 362);
    /* nanoseconds */
    fl_value ns = v_i64(FL_TYPE_TIMESTAMP_NS, -1);
    CHECK_EQ_INT(time_of(FL_ICE_TRANSFORM_DAY, ns).v.i32, -1);
    ns = v_i64(FL_TYPE_TIMESTAMP_NS, TS_2017_11_16_22_31_08 * 1000 + 999);
    CHECK_EQ_INT(time_of(FL_ICE_TRANSFORM_HOUR, ns).v.i32, 17486 * 24 + 22);
    /* identity and void */
    fl_value id = time_of(FL_ICE_TRANSFORM_IDENTITY, ts);
    CHECK(id.v.i64 == TS_2017_11_16_22_31_08 && id.type.id == FL_TYPE_TIMESTAMP);
    fl_value vd = time_of(FL_ICE_TRANSFORM_VOID, ts);
    CHECK(vd.is_null);
}

static void test_parse_and_types(void)
{
    fl_ice_transform t;
    fl_error err;
    char buf[32];
    CHECK_OK(fl_ice_transform_parse("bucket[16]", &t, &err), &err);
    CHECK(t.kind == FL_ICE_TRANSFORM_BUCKET && t.param == 16);
    fl_ice_transform_format(&t, buf, sizeof buf);
    CHECK_EQ_STR(buf, "bucket[16]");
    CHECK_OK(fl_ice_transform_parse("Truncate[ 4 ]", &t, &err), &err);
    CHECK(t.kind == FL_ICE_TRANSFORM_TRUNCATE && t.param == 4);
    CHECK_OK(fl_ice_transform_parse("DAY", &t, &err), &err);
    CHECK(t.kind == FL_ICE_TRANSFORM_DAY);
    CHECK_OK(fl_ice_transform_parse("zorder", &t, &err), &err);
    CHECK(t.kind == FL_ICE_TRANSFORM_UNKNOWN);
    CHECK(fl_ice_transform_parse("bucket[0]", &t, &err) == FL_ECORRUPT);
    CHECK(fl_ice_transform_parse("bucket[x]", &t, &err) == FL_ECORRUPT);
    CHECK(fl_ice_transform_parse("bucket[99999999999]", &t, &err) == FL_ECORRUPT);
    CHECK(fl_ice_transform_parse("truncate[4]x", &t, &err) == FL_ECORRUPT);
    fl_type src = {.id = FL_TYPE_TIMESTAMP}, out;
    fl_ice_transform day = {FL_ICE_TRANSFORM_DAY, 0}, hour = {FL_ICE_TRANSFORM_HOUR, 0},
                     bk = {FL_ICE_TRANSFORM_BUCKET, 4}, tr = {FL_ICE_TRANSFORM_TRUNCATE, 4},
                     unk = {FL_ICE_TRANSFORM_UNKNOWN, 0};
    CHECK_OK(fl_ice_transform_result_type(&day, &src, &out, &err), &err);
    CHECK_EQ_INT(out.id, FL_TYPE_DATE);
    fl_type date = {.id = FL_TYPE_DATE}, dbl = {.id = FL_TYPE_FLOAT64};
    fl_type dec = {.id = FL_TYPE_DECIMAL, .precision = 9, .scale = 2};
    CHECK(fl_ice_transform_result_type(&hour, &date, &out, &err) == FL_ETYPE);
    CHECK(fl_ice_transform_result_type(&bk, &dbl, &out, &err) == FL_ETYPE);
    CHECK(fl_ice_transform_result_type(&tr, &date, &out, &err) == FL_ETYPE);
    CHECK(fl_ice_transform_result_type(&unk, &date, &out, &err) == FL_ETYPE);
    CHECK_OK(fl_ice_transform_result_type(&tr, &dec, &out, &err), &err);
    CHECK(out.id == FL_TYPE_DECIMAL && out.precision == 9 && out.scale == 2);
    CHECK_OK(fl_ice_transform_result_type(&bk, &dec, &out, &err), &err);
    CHECK_EQ_INT(out.id, FL_TYPE_INT32);
}

int main(void)
{
    TEST_RUN(test_spec_hash_vectors);
    TEST_RUN(test_bucket);
    TEST_RUN(test_truncate);
    TEST_RUN(test_time_transforms);
    TEST_RUN(test_parse_and_types);
    return TEST_EXIT();
}
