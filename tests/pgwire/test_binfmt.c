/*
 * test_binfmt.c - binary send/recv formats, byte-exact against the layouts
 * of PostgreSQL 15's send functions (int8send, float8send, numeric_send,
 * date_send, timestamp_send, interval_send, uuid_send, array_send). The
 * numeric -1.12 bytes are the ones a real PostgreSQL 15 returned to node pg
 * (see PGBUGS.md); the others follow numeric.c's base-10000 layout.
 */
#include <string.h>

#include "floe/pgtypes.h"
#include "floe/sql.h"
#include "pgwire/pgw.h"
#include "sql/func.h"
#include "test.h"

static int hexcmp(const pgw_buf *b, const char *hex)
{
    uint8_t want[256];
    size_t n = 0;
    for (const char *p = hex; *p;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        unsigned v;
        sscanf(p, "%2x", &v);
        want[n++] = (uint8_t)v;
        p += 2;
    }
    if (n != b->buf.len || memcmp(want, b->buf.bytes, n) != 0) {
        fprintf(stderr, "  got:  ");
        for (size_t i = 0; i < b->buf.len; i++)
            fprintf(stderr, "%02x", b->buf.bytes[i]);
        fprintf(stderr, "\n  want: %s\n", hex);
        return 1;
    }
    return 0;
}

static void enc_fixed(fl_type_id id, const void *val, const char *hex)
{
    fl_type t = {.id = id};
    if (id == FL_TYPE_UUID)
        t.fixed_len = 16;
    fl_vector v;
    fl_error err = {0};
    CHECK_OK(fl_vector_init(&v, &t, &err), &err);
    CHECK_OK(fl_vector_append_fixed(&v, val, &err), &err);
    pgw_buf b = {0};
    CHECK(pgw_bin_encode(&v, 0, &b));
    CHECK(hexcmp(&b, hex) == 0);
    pgw_buf_free(&b);
    fl_vector_destroy(&v);
}

static void numeric(fl_i128 u, int32_t scale, const char *hex)
{
    pgw_buf b = {0};
    pgw_numeric_encode(u, scale, &b);
    CHECK(hexcmp(&b, hex) == 0);
    fl_i128 back = 0;
    int32_t sc = -1;
    fl_error err = {0};
    CHECK(pgw_numeric_decode(b.buf.bytes, b.buf.len, &back, &sc, &err));
    CHECK(back == u);
    CHECK_EQ_INT(sc, scale);
    pgw_buf_free(&b);
}

static void test_scalars(void)
{
    int64_t i8 = INT64_MAX, i8m = INT64_MIN;
    enc_fixed(FL_TYPE_INT64, &i8, "7fffffffffffffff");
    enc_fixed(FL_TYPE_INT64, &i8m, "8000000000000000");
    int32_t i4 = -1;
    enc_fixed(FL_TYPE_INT32, &i4, "ffffffff");
    double f8 = 1.5;
    enc_fixed(FL_TYPE_FLOAT64, &f8, "3ff8000000000000");
    float f4 = -2.0f;
    enc_fixed(FL_TYPE_FLOAT32, &f4, "c0000000");
    uint8_t t = 1;
    enc_fixed(FL_TYPE_BOOLEAN, &t, "01");
    int32_t d = 19782; /* 2024-02-29 = 8825 days after 2000-01-01 */
    enc_fixed(FL_TYPE_DATE, &d, "00002279");
    int32_t d0 = 0; /* 1970-01-01 = -10957 */
    enc_fixed(FL_TYPE_DATE, &d0, "ffffd533");
    int64_t ts = 1704164645123456; /* 2024-01-02 03:04:05.123456 UTC */
    enc_fixed(FL_TYPE_TIMESTAMPTZ, &ts, "0002b0ec8517d580");
    enc_fixed(FL_TYPE_TIMESTAMP, &ts, "0002b0ec8517d580");
    int64_t tm = 3723000001; /* 01:02:03.000001 */
    enc_fixed(FL_TYPE_TIME, &tm, "00000000dde878c1");
    uint8_t u[16] = {0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8,
                     0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11};
    enc_fixed(FL_TYPE_UUID, u, "a0eebc999c0b4ef8bb6d6bb9bd380a11");
}

static void test_numeric(void)
{
    numeric(12345, 2, "0002 0000 0000 0002 007b 1194");     /* 123.45 */
    numeric(-112, 2, "0002 0000 4000 0002 0001 04b0");      /* -1.12 (PG 15) */
    numeric(0, 2, "0000 0000 0000 0002");                   /* 0.00 */
    numeric(5, 1, "0001 ffff 0000 0001 1388");              /* 0.5 */
    numeric(10000, 0, "0001 0001 0000 0000 0001");          /* 10000 */
    numeric(1, 8, "0001 fffe 0000 0008 0001");              /* 0.00000001 = 1 * 10000^-2 */
    fl_i128 big = (fl_i128)1234567890123456789LL * (fl_i128)100000000000000000LL * 100 +
                  (fl_i128)12345678901234567LL * 10 + 8; /* 38 digits */
    numeric(big, 0, "000a 0009 0000 0000 000c 0d80 1ed2 04d2 162e 2334 0d80 1ed2 04d2 162e");
    numeric(-big, 10, "000a 0006 4000 000a 04d2 162e 2334 0d80 1ed2 04d2 162e 2334 0d80 1e78");
}

static void test_numeric_decode_errors(void)
{
    fl_i128 v;
    int32_t sc;
    fl_error err = {0};
    const uint8_t nan[] = {0, 0, 0, 0, 0xc0, 0, 0, 0};
    CHECK(!pgw_numeric_decode(nan, sizeof nan, &v, &sc, &err));
    const uint8_t shortb[] = {0, 1, 0, 0, 0, 0, 0, 0};
    CHECK(!pgw_numeric_decode(shortb, sizeof shortb, &v, &sc, &err));
    const uint8_t baddigit[] = {0, 1, 0, 0, 0, 0, 0, 0, 0x27, 0x10};
    CHECK(!pgw_numeric_decode(baddigit, sizeof baddigit, &v, &sc, &err));
    const uint8_t huge[] = {0, 1, 0, 20, 0, 0, 0, 0, 0, 1}; /* 10^80 */
    CHECK(!pgw_numeric_decode(huge, sizeof huge, &v, &sc, &err));
    /* 1.5 sent with dscale 1 but digits 1.5000: trailing zeros are fine */
    const uint8_t ok[] = {0, 2, 0, 0, 0, 0, 0, 1, 0, 1, 0x13, 0x88};
    CHECK(pgw_numeric_decode(ok, sizeof ok, &v, &sc, &err));
    CHECK(v == 15 && sc == 1);
}

static void test_interval_and_array(void)
{
    fl_type it = {.id = FL_TYPE_FIXED, .fixed_len = 16, .precision = FL_SQL_INTERVAL_MARK};
    fl_vector v;
    fl_error err = {0};
    CHECK_OK(fl_vector_init(&v, &it, &err), &err);
    uint8_t raw[16];
    int32_t months = 1, days = 2;
    int64_t us = 3;
    memcpy(raw, &months, 4);
    memcpy(raw + 4, &days, 4);
    memcpy(raw + 8, &us, 8);
    CHECK_OK(fl_vector_append_fixed(&v, raw, &err), &err);
    pgw_buf b = {0};
    CHECK(pgw_bin_encode(&v, 0, &b));
    CHECK(hexcmp(&b, "0000000000000003 00000002 00000001") == 0);
    fl_value back;
    fl_arena a;
    fl_arena_init(&a, 0);
    CHECK(pgw_bin_decode(1186, b.buf.bytes, b.buf.len, &a, &back, &err));
    CHECK(fl_type_is_interval(&back.type) && !memcmp(back.v.bytes.ptr, raw, 16));
    fl_arena_free(&a);
    fl_vector_destroy(&v);
    /* int4[] {1,NULL,3} and {} */
    fl_field el = {.name = "element", .nullable = true, .type = {.id = FL_TYPE_INT32}};
    fl_type lt = {.id = FL_TYPE_LIST, .nchildren = 1, .children = &el};
    CHECK_OK(fl_vector_init(&v, &lt, &err), &err);
    int32_t one = 1, three = 3;
    fl_vector_append_fixed(&v.children[0], &one, &err);
    fl_vector_append_null(&v.children[0], &err);
    fl_vector_append_fixed(&v.children[0], &three, &err);
    CHECK_OK(fl_vector_append_nested(&v, 3, &err), &err);
    CHECK_OK(fl_vector_append_nested(&v, 3, &err), &err);
    b.buf.len = 0;
    CHECK(pgw_bin_encode(&v, 0, &b));
    CHECK(hexcmp(&b, "00000001 00000001 00000017 00000003 00000001 "
                     "00000004 00000001 ffffffff 00000004 00000003") == 0);
    b.buf.len = 0;
    CHECK(pgw_bin_encode(&v, 1, &b));
    CHECK(hexcmp(&b, "00000000 00000000 00000017") == 0);
    pgw_buf_free(&b);
    fl_vector_destroy(&v);
}

/* structs and lists of lists are json: text and binary are the JSON text with field names;
 * a list of structs is json[] (element OID 114) */
static void test_nested_json(void)
{
    fl_error err = {0};
    fl_field sf[2] = {{.name = "city", .nullable = true, .type = {.id = FL_TYPE_STRING}},
                      {.name = "zip", .nullable = true, .type = {.id = FL_TYPE_INT32}}};
    fl_type st = {.id = FL_TYPE_STRUCT, .nchildren = 2, .children = sf};
    fl_vector v;
    CHECK_OK(fl_vector_init(&v, &st, &err), &err);
    CHECK_OK(fl_vector_append_bytes(&v.children[0], "Li\"ma", 5, &err), &err);
    CHECK_OK(fl_vector_append_null(&v.children[1], &err), &err);
    CHECK_OK(fl_vector_append_nested(&v, 0, &err), &err);
    char txt[128];
    fl_sql_format_value(&v, 0, "UTC", txt, sizeof txt);
    CHECK(strcmp(txt, "{\"city\":\"Li\\\"ma\",\"zip\":null}") == 0);
    CHECK(fl_pg_type_oid(&st) == 114);
    pgw_buf b = {0};
    CHECK(pgw_bin_encode(&v, 0, &b));
    CHECK(b.buf.len == strlen(txt) && memcmp(b.buf.bytes, txt, b.buf.len) == 0);
    /* list<struct>: json[] with one element, its JSON text */
    fl_field lf = {.name = "element", .nullable = true, .type = st};
    fl_type lt = {.id = FL_TYPE_LIST, .nchildren = 1, .children = &lf};
    CHECK(fl_pg_type_oid(&lt) == 199);
    fl_vector l;
    CHECK_OK(fl_vector_init(&l, &lt, &err), &err);
    CHECK_OK(fl_vector_append_from(&l.children[0], &v, 0, &err), &err);
    CHECK_OK(fl_vector_append_nested(&l, 1, &err), &err);
    fl_sql_format_value(&l, 0, "UTC", txt, sizeof txt);
    CHECK(strcmp(txt, "{\"{\\\"city\\\":\\\"Li\\\\\\\"ma\\\",\\\"zip\\\":null}\"}") == 0);
    b.buf.len = 0;
    CHECK(pgw_bin_encode(&l, 0, &b));
    CHECK(b.buf.len == 20 + 4 + strlen("{\"city\":\"Li\\\"ma\",\"zip\":null}"));
    CHECK(b.buf.bytes[11] == 114); /* element OID */
    /* list<list<int>>: json text, also in binary */
    fl_field ef = {.name = "element", .nullable = true, .type = {.id = FL_TYPE_INT32}};
    fl_type inner = {.id = FL_TYPE_LIST, .nchildren = 1, .children = &ef};
    fl_field of = {.name = "element", .nullable = true, .type = inner};
    fl_type outer = {.id = FL_TYPE_LIST, .nchildren = 1, .children = &of};
    CHECK(fl_pg_type_oid(&outer) == 114);
    fl_vector ll;
    CHECK_OK(fl_vector_init(&ll, &outer, &err), &err);
    int32_t x = 7;
    CHECK_OK(fl_vector_append_fixed(&ll.children[0].children[0], &x, &err), &err);
    CHECK_OK(fl_vector_append_null(&ll.children[0].children[0], &err), &err);
    CHECK_OK(fl_vector_append_nested(&ll.children[0], 2, &err), &err);
    CHECK_OK(fl_vector_append_nested(&ll.children[0], 2, &err), &err);
    CHECK_OK(fl_vector_append_nested(&ll, 2, &err), &err);
    fl_sql_format_value(&ll, 0, "UTC", txt, sizeof txt);
    CHECK(strcmp(txt, "[[7,null],[]]") == 0);
    b.buf.len = 0;
    CHECK(pgw_bin_encode(&ll, 0, &b));
    CHECK(b.buf.len == 13 && memcmp(b.buf.bytes, "[[7,null],[]]", 13) == 0);
    pgw_buf_free(&b);
    fl_vector_destroy(&ll);
    fl_vector_destroy(&l);
    fl_vector_destroy(&v);
}

static void test_decode(void)
{
    fl_value v;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    const uint8_t i8[] = {0x80, 0, 0, 0, 0, 0, 0, 0};
    CHECK(pgw_bin_decode(20, i8, 8, &a, &v, &err) && v.v.i64 == INT64_MIN);
    CHECK(!pgw_bin_decode(20, i8, 7, &a, &v, &err)); /* wrong length */
    const uint8_t i2[] = {0xff, 0xfe};
    CHECK(pgw_bin_decode(21, i2, 2, &a, &v, &err) && v.v.i32 == -2);
    const uint8_t dt[] = {0, 0, 0x22, 0x79};
    CHECK(pgw_bin_decode(1082, dt, 4, &a, &v, &err) && v.v.i32 == 19782);
    const uint8_t ts[] = {0x00, 0x02, 0xb0, 0xec, 0x85, 0x17, 0xd5, 0x80};
    CHECK(pgw_bin_decode(1184, ts, 8, &a, &v, &err) && v.v.i64 == 1704164645123456);
    CHECK(pgw_bin_decode(25, (const uint8_t *)"hé", 3, &a, &v, &err) &&
          v.type.id == FL_TYPE_STRING && v.v.bytes.len == 3);
    CHECK(!pgw_bin_decode(1007, i8, 8, &a, &v, &err)); /* arrays: text only */
    fl_arena_free(&a);
}

int main(void)
{
    TEST_RUN(test_scalars);
    TEST_RUN(test_numeric);
    TEST_RUN(test_numeric_decode_errors);
    TEST_RUN(test_interval_and_array);
    TEST_RUN(test_nested_json);
    TEST_RUN(test_decode);
    return TEST_EXIT();
}
