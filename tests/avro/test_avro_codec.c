/*
 * test_avro_codec.c - binary encoding edge cases (varints, blocks with
 * negative counts, union/enum/int range checks, hostile counts), container
 * round trips with every codec, header metadata preservation, and schema
 * resolution (promotions, defaults, unions, enums, Iceberg field-id
 * matching of a manifest written with old field names).
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "avro/avro_internal.h"
#include "floe/avro.h"
#include "floe/io.h"
#include "test.h"

static fl_avro_schema *parse(fl_arena *a, const char *text)
{
    fl_error err = {0};
    fl_avro_schema *s = NULL;
    CHECK_OK(fl_avro_schema_parse(a, text, strlen(text), &s, &err), &err);
    return s;
}

static void test_varints(void)
{
    const int64_t vals[] = {0,
                            1,
                            -1,
                            63,
                            -64,
                            64,
                            -65,
                            INT32_MAX,
                            INT32_MIN,
                            INT64_MAX,
                            INT64_MIN,
                            (int64_t)1 << 62,
                            -((int64_t)1 << 62)};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        fl_avro_buf b = {0};
        CHECK(avro_buf_long(&b, vals[i]));
        size_t pos = 0;
        int64_t got;
        CHECK_EQ_INT(avro_read_long(b.bytes, b.len, &pos, &got), 0);
        CHECK_EQ_INT(got, vals[i]);
        CHECK_EQ_INT(pos, b.len);
        /* every proper prefix is "truncated" */
        for (size_t cut = 0; cut < b.len; cut++) {
            pos = 0;
            CHECK_EQ_INT(avro_read_long(b.bytes, cut, &pos, &got), -1);
        }
        fl_avro_buf_free(&b);
    }
    /* zigzag: 1 -> 2, -1 -> 1 */
    uint8_t one[] = {0x02}, minus[] = {0x01};
    size_t pos = 0;
    int64_t v;
    avro_read_long(one, 1, &pos, &v);
    CHECK_EQ_INT(v, 1);
    pos = 0;
    avro_read_long(minus, 1, &pos, &v);
    CHECK_EQ_INT(v, -1);
    /* 11 bytes, and a 10th byte carrying more than one bit: overflow */
    uint8_t eleven[11] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00};
    pos = 0;
    CHECK_EQ_INT(avro_read_long(eleven, 11, &pos, &v), -2);
    uint8_t big10[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    pos = 0;
    CHECK_EQ_INT(avro_read_long(big10, 10, &pos, &v), -2);
    uint8_t max10[10] = {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    pos = 0;
    CHECK_EQ_INT(avro_read_long(max10, 10, &pos, &v), 0);
    CHECK_EQ_INT(v, INT64_MAX);
}

static fl_status decode_bytes(fl_arena *a, const char *schema, const uint8_t *buf, size_t len,
                              fl_avro_value *v, fl_error *err)
{
    fl_avro_schema *s = parse(a, schema);
    size_t pos = 0;
    if (!s)
        return FL_EINVAL;
    fl_status rc = fl_avro_decode(a, s, buf, len, &pos, 1000, NULL, v, err);
    if (rc == FL_OK && pos != len)
        return fl_errorf(err, FL_ECORRUPT, "trailing bytes");
    return rc;
}

static void test_decode_edges(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_avro_value v;
    /* array in two blocks, the second with a negative count and byte size */
    const uint8_t arr[] = {0x04, 0x02, 0x04, 0x03, 0x04, 0x06, 0x08, 0x00};
    CHECK_OK(decode_bytes(&a, "{\"type\":\"array\",\"items\":\"int\"}", arr, sizeof arr, &v, &err),
             &err);
    CHECK_EQ_INT(v.u.list.n, 4);
    if (v.u.list.n != 4)
        return;
    CHECK_EQ_INT(v.u.list.items[0].u.i, 1);
    CHECK_EQ_INT(v.u.list.items[3].u.i, 4);
    /* map with a negative block count */
    const uint8_t map[] = {0x03, 0x08, 0x02, 'k', 0x02, 0x02, 'l', 0x04, 0x00};
    CHECK_OK(decode_bytes(&a, "{\"type\":\"map\",\"values\":\"int\"}", map, sizeof map, &v, &err),
             &err);
    CHECK_EQ_INT(v.u.map.n, 2);
    CHECK(v.u.map.keys[1].u.bytes.len == 1 && v.u.map.keys[1].u.bytes.ptr[0] == 'l');
    CHECK_EQ_INT(v.u.map.values[1].u.i, 2);
    /* block byte size beyond the buffer */
    const uint8_t badsize[] = {0x03, 0x7e, 0x02};
    CHECK_EQ_INT(decode_bytes(&a, "{\"type\":\"array\",\"items\":\"int\"}", badsize, sizeof badsize,
                              &v, &err),
                 FL_ECORRUPT);
    CHECK(strstr(err.msg, "block byte size") != NULL);
    /* union index out of range, with the absolute offset */
    const uint8_t un[] = {0x0a};
    CHECK_EQ_INT(decode_bytes(&a, "[\"null\",\"int\",\"string\"]", un, 1, &v, &err), FL_ECORRUPT);
    CHECK_EQ_STR(err.msg, "union branch index 5 out of range (3 branches) at byte offset 1000");
    const uint8_t negun[] = {0x01};
    CHECK_EQ_INT(decode_bytes(&a, "[\"null\",\"int\"]", negun, 1, &v, &err), FL_ECORRUPT);
    /* int out of range */
    const uint8_t bigint[] = {0x80, 0x80, 0x80, 0x80, 0x20};
    CHECK_EQ_INT(decode_bytes(&a, "\"int\"", bigint, sizeof bigint, &v, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "out of range") != NULL);
    /* string longer than the buffer */
    const uint8_t str[] = {0x20, 'a', 'b'};
    CHECK_EQ_INT(decode_bytes(&a, "\"string\"", str, sizeof str, &v, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "truncated string") != NULL);
    const uint8_t negstr[] = {0x03};
    CHECK_EQ_INT(decode_bytes(&a, "\"bytes\"", negstr, 1, &v, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "negative bytes length") != NULL);
    /* enum index out of range */
    const uint8_t en[] = {0x06};
    CHECK_EQ_INT(decode_bytes(&a, "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\"]}",
                              en, 1, &v, &err),
                 FL_ECORRUPT);
    CHECK(strstr(err.msg, "enum index 3 out of range (2 symbols)") != NULL);
    /* boolean must be 0 or 1 */
    const uint8_t bo[] = {0x02};
    CHECK_EQ_INT(decode_bytes(&a, "\"boolean\"", bo, 1, &v, &err), FL_ECORRUPT);
    /* a huge count of zero-byte items is refused, not allocated */
    const uint8_t nulls[] = {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00};
    CHECK_EQ_INT(
        decode_bytes(&a, "{\"type\":\"array\",\"items\":\"null\"}", nulls, sizeof nulls, &v, &err),
        FL_ECORRUPT);
    CHECK(strstr(err.msg, "exceeds") != NULL);
    /* a count larger than the bytes left */
    const uint8_t many[] = {0xfe, 0x01, 0x02};
    CHECK_EQ_INT(
        decode_bytes(&a, "{\"type\":\"array\",\"items\":\"long\"}", many, sizeof many, &v, &err),
        FL_ECORRUPT);
    /* recursion depth is bounded */
    fl_avro_buf deep = {0};
    for (int i = 0; i < 500; i++)
        avro_buf_long(&deep, 1), avro_buf_long(&deep, 1); /* label? no: children array of 1 */
    fl_avro_schema *node =
        parse(&a, "{\"type\":\"record\",\"name\":\"N\",\"fields\":[{\"name\":\"c\","
                  "\"type\":{\"type\":\"array\",\"items\":\"N\"}}]}");
    fl_avro_buf_free(&deep);
    for (int i = 0; i < 500; i++)
        avro_buf_long(&deep, 1);
    size_t pos = 0;
    CHECK_EQ_INT(fl_avro_decode(&a, node, deep.bytes, deep.len, &pos, 0, NULL, &v, &err),
                 FL_ELIMIT);
    fl_avro_buf_free(&deep);
    /* float/double little-endian, NaN preserved */
    const uint8_t dbl[] = {0, 0, 0, 0, 0, 0, 0xf8, 0x7f};
    CHECK_OK(decode_bytes(&a, "\"double\"", dbl, 8, &v, &err), &err);
    CHECK(isnan(v.u.d));
    const uint8_t flt[] = {0, 0, 0xc0, 0x3f};
    CHECK_OK(decode_bytes(&a, "\"float\"", flt, 4, &v, &err), &err);
    CHECK(v.u.f == 1.5f);
    fl_arena_free(&a);
}

static const char *interop_schema =
    "{\"type\":\"record\",\"name\":\"Interop\",\"namespace\":\"org.apache.avro\",\"fields\":["
    "{\"name\":\"intField\",\"type\":\"int\",\"field-id\":1},"
    "{\"name\":\"longField\",\"type\":\"long\",\"field-id\":2},"
    "{\"name\":\"stringField\",\"type\":\"string\"},{\"name\":\"boolField\",\"type\":\"boolean\"},"
    "{\"name\":\"floatField\",\"type\":\"float\"},{\"name\":\"doubleField\",\"type\":\"double\"},"
    "{\"name\":\"bytesField\",\"type\":\"bytes\"},{\"name\":\"nullField\",\"type\":\"null\"},"
    "{\"name\":\"arrayField\",\"type\":{\"type\":\"array\",\"items\":\"double\",\"element-id\":3}},"
    "{\"name\":\"mapField\",\"type\":{\"type\":\"map\",\"values\":{\"type\":\"record\",\"name\":"
    "\"Foo\","
    "\"fields\":[{\"name\":\"label\",\"type\":\"string\"}]},\"key-id\":4,\"value-id\":5}},"
    "{\"name\":\"unionField\",\"type\":[\"boolean\",\"double\",{\"type\":\"array\",\"items\":"
    "\"bytes\"}]},"
    "{\"name\":\"enumField\",\"type\":{\"type\":\"enum\",\"name\":\"Kind\",\"symbols\":[\"A\","
    "\"B\",\"C\"]}},"
    "{\"name\":\"fixedField\",\"type\":{\"type\":\"fixed\",\"name\":\"MD5\",\"size\":16}},"
    "{\"name\":\"opt\",\"type\":[\"null\",\"string\"],\"default\":null},"
    "{\"name\":\"ts\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-micros\",\"adjust-to-"
    "utc\":true}},"
    "{\"name\":\"recordField\",\"type\":{\"type\":\"record\",\"name\":\"Node\",\"fields\":["
    "{\"name\":\"label\",\"type\":\"string\"},{\"name\":\"children\",\"type\":{\"type\":\"array\","
    "\"items\":\"Node\"}}]}}]}";

/* A JSON real (always with a '.' or exponent, so it parses as a real). */
static const char *real(char *buf, double d)
{
    snprintf(buf, 40, "%.17g", d);
    if (!strpbrk(buf, ".e"))
        strcat(buf, ".0");
    return buf;
}

/* Builds the i-th test record as JSON in our cat format. */
static void make_record(int i, char *buf, size_t cap)
{
    char r1[48], r2[48];
    snprintf(buf, cap,
             "{\"intField\":%d,\"longField\":%lld,\"stringField\":\"s%d \\u00fc\\n\\\"\","
             "\"boolField\":%s,\"floatField\":%s,\"doubleField\":%s,\"bytesField\":{\"$bytes\":"
             "\"00ff%02x\"},"
             "\"nullField\":null,\"arrayField\":[%d.5,-0.25],\"mapField\":{\"k%d\":{\"label\":"
             "\"v\"},\"z\":{\"label\":\"\"}},"
             "\"unionField\":%s,\"enumField\":\"%c\",\"fixedField\":{\"$bytes\":\"%032x\"},"
             "\"opt\":%s,\"ts\":%lld,\"recordField\":{\"label\":\"root\",\"children\":[{\"label\":"
             "\"c\",\"children\":[]}]}}",
             i * 7 - 100, (long long)i * 1000000007LL * (i % 2 ? -1 : 1), i,
             i % 2 ? "true" : "false", real(r1, (double)(float)(i * 0.5)), real(r2, i / 3.0),
             i & 0xff, i, i,
             i % 3 == 0   ? "true"
             : i % 3 == 1 ? "3.25"
                          : "[{\"$bytes\":\"ab\"}]",
             'A' + i % 3, i, i % 2 ? "null" : "\"x\"", 1700000000000000LL + i);
}

static void roundtrip_codec(const char *codec)
{
    fl_error err = {0};
    uint8_t *file = NULL;
    size_t file_len = 0;
    fl_output *out;
    CHECK_OK(fl_output_memory("mem.avro", &file, &file_len, &out, &err), &err);
    const uint8_t sync[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    fl_avro_meta meta[] = {{"schema", (const uint8_t *)"{\"type\":\"struct\"}", 17},
                           {"partition-spec", (const uint8_t *)"[]", 2},
                           {"format-version", (const uint8_t *)"2", 1},
                           {"binary", (const uint8_t *)"\x00\x01\xff", 3}};
    fl_avro_writer_options opt = {
        .codec = codec, .block_size = 2000, .sync = sync, .meta = meta, .nmeta = 4};
    fl_avro_writer *w = NULL;
    CHECK_OK(fl_avro_writer_open(out, interop_schema, strlen(interop_schema), &opt, &w, &err),
             &err);
    if (!w)
        return;
    fl_arena a;
    fl_arena_init(&a, 0);
    const int N = 300;
    char rec[2048];
    for (int i = 0; i < N; i++) {
        fl_avro_value v;
        make_record(i, rec, sizeof rec);
        fl_arena_reset(&a);
        CHECK_OK(fl_avro_value_from_json(&a, fl_avro_writer_schema(w), rec, strlen(rec), &v, &err),
                 &err);
        CHECK_OK(fl_avro_writer_append(w, &v, &err), &err);
    }
    CHECK_OK(fl_avro_writer_close(w, &err), &err);
    /* read back */
    fl_file *f;
    fl_avro_reader *r = NULL;
    CHECK_OK(fl_file_from_memory(file, file_len, "mem.avro", &f, &err), &err);
    CHECK_OK(fl_avro_reader_open(f, NULL, &r, &err), &err);
    if (!r) {
        free(file);
        return;
    }
    size_t slen;
    const char *stext = fl_avro_reader_schema_json(r, &slen);
    CHECK(slen == strlen(interop_schema) && !memcmp(stext, interop_schema, slen)); /* verbatim */
    CHECK_EQ_STR(fl_avro_reader_codec(r), codec);
    CHECK(!memcmp(fl_avro_reader_sync(r), sync, 16));
    CHECK_EQ_INT(fl_avro_reader_meta_count(r), 6);
    CHECK_EQ_STR(fl_avro_reader_meta(r, 0)->key, "avro.schema");
    CHECK_EQ_STR(fl_avro_reader_meta(r, 1)->key, "avro.codec");
    for (int i = 0; i < 4; i++) {
        const fl_avro_meta *m = fl_avro_reader_meta(r, (size_t)i + 2);
        CHECK_EQ_STR(m->key, meta[i].key);
        CHECK(m->len == meta[i].len && !memcmp(m->value, meta[i].value, m->len));
    }
    fl_avro_buf jb = {0};
    int n = 0;
    for (;; n++) {
        fl_avro_value v;
        bool done;
        fl_arena_reset(&a);
        fl_status rc = fl_avro_reader_next(r, &a, &v, &done, &err);
        CHECK_OK(rc, &err);
        if (rc || done)
            break;
        jb.len = 0;
        CHECK_OK(fl_avro_value_to_json(&v, &jb, &err), &err);
        make_record(n, rec, sizeof rec);
        json_t *got = json_loadb((const char *)jb.data, jb.len, 0, NULL);
        json_t *want = json_loads(rec, 0, NULL);
        CHECK(got && want && json_equal(got, want));
        if (!(got && want && json_equal(got, want)))
            fprintf(stderr, "  %s record %d\n  got:  %.*s\n  want: %s\n", codec, n, (int)jb.len,
                    jb.data, rec);
        json_decref(got);
        json_decref(want);
        if (test_case_failed_)
            break;
    }
    CHECK_EQ_INT(n, N);
    /* several blocks were written */
    fl_avro_reader_close(r);
    CHECK_OK(fl_avro_reader_open(f, NULL, &r, &err), &err);
    int blocks = 0;
    for (;;) {
        fl_avro_block_info bi;
        bool done;
        if (fl_avro_reader_next_block(r, &bi, &done, &err) || done)
            break;
        blocks++;
    }
    CHECK(blocks > 5);
    fl_avro_reader_close(r);
    fl_file_close(f);
    fl_avro_buf_free(&jb);
    fl_arena_free(&a);
    /* a flipped byte in the last block is detected (sync, CRC, codec or decode error) */
    if (file_len > 40) {
        file[file_len - 20] ^= 0x5a;
        CHECK_OK(fl_file_from_memory(file, file_len, "mem.avro", &f, &err), &err);
        CHECK_OK(fl_avro_reader_open(f, NULL, &r, &err), &err);
        fl_status rc = FL_OK;
        int recs = 0;
        fl_arena_init(&a, 0);
        while (r && !rc) {
            fl_avro_value v;
            bool done;
            rc = fl_avro_reader_next(r, &a, &v, &done, &err);
            if (done)
                break;
            recs++;
        }
        CHECK(rc != FL_OK || recs == N);
        fl_arena_free(&a);
        fl_avro_reader_close(r);
        fl_file_close(f);
    }
    free(file);
}

static void test_roundtrip_null(void)
{
    roundtrip_codec("null");
}
static void test_roundtrip_deflate(void)
{
    roundtrip_codec("deflate");
}
static void test_roundtrip_snappy(void)
{
    roundtrip_codec("snappy");
}
static void test_roundtrip_zstandard(void)
{
    roundtrip_codec("zstandard");
}
static void test_roundtrip_bzip2(void)
{
    if (!fl_avro_codec_supported("bzip2")) {
        fprintf(stderr, "  libbz2 not loadable: checking the error instead\n");
        fl_error err = {0};
        uint8_t *file = NULL;
        size_t len;
        fl_output *out;
        fl_avro_writer *w;
        fl_avro_writer_options opt = {.codec = "bzip2"};
        CHECK_OK(fl_output_memory("m", &file, &len, &out, &err), &err);
        CHECK_EQ_INT(fl_avro_writer_open(out, "\"int\"", 5, &opt, &w, &err), FL_EUNSUPPORTED);
        return;
    }
    roundtrip_codec("bzip2");
}

static void test_writer_errors(void)
{
    fl_error err = {0};
    uint8_t *file = NULL;
    size_t len;
    fl_output *out;
    fl_avro_writer *w;
    fl_avro_writer_options opt = {.codec = "lzma"};
    CHECK_OK(fl_output_memory("m", &file, &len, &out, &err), &err);
    CHECK_EQ_INT(fl_avro_writer_open(out, "\"int\"", 5, &opt, &w, &err), FL_EUNSUPPORTED);
    CHECK(strstr(err.msg, "lzma") != NULL);
    CHECK_OK(fl_output_memory("m", &file, &len, &out, &err), &err);
    CHECK_EQ_INT(fl_avro_writer_open(out, "{\"type\":", 8, NULL, &w, &err), FL_ECORRUPT);
    fl_avro_meta bad = {"avro.codec", (const uint8_t *)"x", 1};
    fl_avro_writer_options o2 = {.meta = &bad, .nmeta = 1};
    CHECK_OK(fl_output_memory("m", &file, &len, &out, &err), &err);
    CHECK_EQ_INT(fl_avro_writer_open(out, "\"int\"", 5, &o2, &w, &err), FL_EINVAL);
    /* a value that does not fit the schema */
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_avro_schema *s = parse(
        &a, "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"}]}");
    fl_avro_value v;
    CHECK_EQ_INT(fl_avro_value_from_json(&a, s, "{\"x\":\"no\"}", 10, &v, &err), FL_ETYPE);
    CHECK(strstr(err.msg, "field 'x'") != NULL);
    CHECK_EQ_INT(fl_avro_value_from_json(&a, s, "{\"x\":3000000000}", 16, &v, &err), FL_EOVERFLOW);
    CHECK_EQ_INT(fl_avro_value_from_json(&a, s, "{}", 2, &v, &err), FL_ETYPE);
    fl_arena_free(&a);
}

/* ------------------------------------------------------------ resolution */

static fl_avro_value resolve_json(fl_arena *a, const char *wschema, const char *rschema,
                                  const char *json, fl_status *rc_out, fl_error *err)
{
    fl_avro_schema *w = parse(a, wschema), *r = parse(a, rschema);
    fl_avro_value v = {0}, out = {0};
    fl_avro_resolver *res = NULL;
    fl_status rc = fl_avro_resolver_new(a, w, r, &res, err);
    if (!rc)
        rc = fl_avro_value_from_json(a, w, json, strlen(json), &v, err);
    /* through the binary form, as a reader would see it */
    fl_avro_buf b = {0};
    if (!rc)
        rc = fl_avro_encode(w, &v, &b, err);
    size_t pos = 0;
    if (!rc)
        rc = fl_avro_decode(a, w, b.bytes, b.len, &pos, 0, NULL, &v, err);
    fl_avro_buf_free(&b);
    if (!rc)
        rc = fl_avro_resolve(a, res, &v, &out, err);
    *rc_out = rc;
    return out;
}

static void expect_json(const fl_avro_value *v, const char *want)
{
    fl_avro_buf b = {0};
    fl_error err = {0};
    CHECK_OK(fl_avro_value_to_json(v, &b, &err), &err);
    json_t *g = json_loadb((const char *)b.data, b.len, JSON_DECODE_ANY, NULL);
    json_t *w = json_loads(want, JSON_DECODE_ANY, NULL);
    CHECK(g && w && json_equal(g, w));
    if (!(g && w && json_equal(g, w)))
        fprintf(stderr, "  got:  %.*s\n  want: %s\n", (int)b.len, b.data, want);
    json_decref(g);
    json_decref(w);
    fl_avro_buf_free(&b);
}

static void test_resolve_promotions(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_status rc;
    const char *ws = "{\"type\":\"record\",\"name\":\"w\",\"fields\":["
                     "{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":\"long\"},"
                     "{\"name\":\"c\",\"type\":\"float\"},{\"name\":\"s\",\"type\":\"string\"},"
                     "{\"name\":\"y\",\"type\":\"bytes\"},{\"name\":\"gone\",\"type\":\"string\"},"
                     "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":["
                     "\"X\",\"Y\",\"Z\"]}},"
                     "{\"name\":\"u\",\"type\":[\"null\",\"int\",\"string\"]},"
                     "{\"name\":\"old\",\"type\":\"int\"}]}";
    const char *rs = "{\"type\":\"record\",\"name\":\"r\",\"fields\":["
                     "{\"name\":\"b\",\"type\":\"double\"},{\"name\":\"a\",\"type\":\"long\"},"
                     "{\"name\":\"c\",\"type\":\"double\"},{\"name\":\"s\",\"type\":\"bytes\"},"
                     "{\"name\":\"y\",\"type\":\"string\"},"
                     "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":["
                     "\"Z\",\"Y\",\"Q\"],\"default\":\"Q\"}},"
                     "{\"name\":\"u\",\"type\":[\"null\",\"long\",\"string\"]},"
                     "{\"name\":\"renamed\",\"aliases\":[\"old\"],\"type\":[\"null\",\"long\"]},"
                     "{\"name\":\"n\",\"type\":[\"null\",\"int\"]},"
                     "{\"name\":\"d\",\"type\":\"int\",\"default\":5},"
                     "{\"name\":\"db\",\"type\":\"bytes\",\"default\":\"\\u00ff\\u0001\"},"
                     "{\"name\":\"dr\",\"type\":{\"type\":\"record\",\"name\":\"R\",\"fields\":[{"
                     "\"name\":\"q\",\"type\":\"string\"}]},"
                     "\"default\":{\"q\":\"dq\"}}]}";
    fl_avro_value v = resolve_json(
        &a, ws, rs,
        "{\"a\":-7,\"b\":9007199254740993,\"c\":1.5,\"s\":\"str\",\"y\":{\"$bytes\":\"6869\"},"
        "\"gone\":\"x\",\"e\":\"X\",\"u\":42,\"old\":12}",
        &rc, &err);
    CHECK_OK(rc, &err);
    if (!rc)
        expect_json(
            &v,
            "{\"b\":9007199254740992.0,\"a\":-7,\"c\":1.5,\"s\":{\"$bytes\":\"737472\"},\"y\":"
            "\"hi\","
            "\"e\":\"Q\",\"u\":42,\"renamed\":12,\"n\":null,\"d\":5,\"db\":{\"$bytes\":\"ff01\"},"
            "\"dr\":{\"q\":\"dq\"}}");
    /* enum without a reader default: unknown symbol fails at that datum */
    const char *rs2 = "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"Y\"]}";
    v = resolve_json(&a, "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"X\",\"Y\"]}", rs2,
                     "\"Y\"", &rc, &err);
    CHECK_OK(rc, &err);
    CHECK_EQ_INT(v.u.i, 0);
    resolve_json(&a, "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"X\",\"Y\"]}", rs2, "\"X\"",
                 &rc, &err);
    CHECK_EQ_INT(rc, FL_ETYPE);
    CHECK(strstr(err.msg, "'X'") != NULL);
    /* writer union branch the reader cannot take */
    resolve_json(&a, "[\"null\",\"string\"]", "[\"null\",\"int\"]", "\"s\"", &rc, &err);
    CHECK_EQ_INT(rc, FL_ETYPE);
    CHECK(strstr(err.msg, "writer union branch 1 (string)") != NULL);
    v = resolve_json(&a, "[\"null\",\"string\"]", "[\"null\",\"int\"]", "null", &rc, &err);
    CHECK_OK(rc, &err);
    /* non-union writer into a reader union picks the branch */
    v = resolve_json(&a, "\"int\"", "[\"null\",\"string\",\"long\"]", "3", &rc, &err);
    CHECK_OK(rc, &err);
    CHECK_EQ_INT(v.branch, 2);
    CHECK_EQ_INT(v.u.l, 3);
    /* impossible pairs fail up front */
    fl_avro_resolver *res;
    CHECK_EQ_INT(
        fl_avro_resolver_new(&a, parse(&a, "\"string\""), parse(&a, "\"int\""), &res, &err),
        FL_ETYPE);
    CHECK_EQ_INT(
        fl_avro_resolver_new(&a, parse(&a, "{\"type\":\"record\",\"name\":\"a\",\"fields\":[]}"),
                             parse(&a, "{\"type\":\"record\",\"name\":\"b\",\"fields\":[{\"name\":"
                                       "\"x\",\"type\":\"int\"}]}"),
                             &res, &err),
        FL_ETYPE);
    CHECK(strstr(err.msg, "reader field 'x'") != NULL);
    fl_arena_free(&a);
}

/* Renames every field that has a field-id to "old_<name>", drops the fields
 * whose id is in drop[], makes long fields int and turns ["null",long] into
 * plain long. */
static void mangle(json_t *s, const int *drop, size_t ndrop)
{
    if (json_is_array(s)) {
        for (size_t i = 0; i < json_array_size(s); i++)
            mangle(json_array_get(s, i), drop, ndrop);
        return;
    }
    if (!json_is_object(s))
        return;
    const char *t = json_string_value(json_object_get(s, "type"));
    if (t && !strcmp(t, "array"))
        mangle(json_object_get(s, "items"), drop, ndrop);
    if (!t || strcmp(t, "record"))
        return;
    json_t *fields = json_object_get(s, "fields");
    for (size_t i = 0; i < json_array_size(fields);) {
        json_t *f = json_array_get(fields, i);
        json_int_t id = json_integer_value(json_object_get(f, "field-id"));
        bool dropped = false;
        for (size_t k = 0; k < ndrop; k++)
            if (json_object_get(f, "field-id") && id == drop[k])
                dropped = true;
        if (dropped) {
            json_array_remove(fields, i);
            continue;
        }
        if (json_object_get(f, "field-id")) {
            char nn[256];
            snprintf(nn, sizeof nn, "old_%s", json_string_value(json_object_get(f, "name")));
            json_object_set_new(f, "name", json_string(nn));
        }
        json_t *ft = json_object_get(f, "type");
        if (id == 103) /* record_count written as int: promoted to long */
            json_object_set_new(f, "type", json_string("int"));
        else if (id == 1 && json_is_array(ft)) /* snapshot_id required in the writer */
            json_object_set_new(f, "type", json_string("long"));
        else
            mangle(ft, drop, ndrop);
        i++;
    }
}

static void test_resolve_iceberg_old_names(void)
{
    const char *shared = test_shared_dir();
    if (!shared) {
        fprintf(stderr, "  skipped: no fixtures\n");
        return;
    }
    char path[4096];
    snprintf(path, sizeof path,
             "%s/fixtures/iceberg/metadata-only/iceberg-rust/avro_schema_manifest_entry.json",
             shared);
    json_error_t je;
    json_t *reader = json_load_file(path, 0, &je);
    CHECK(reader != NULL);
    if (!reader)
        return;
    json_t *writer = json_deep_copy(reader);
    const int drop[] = {140, 137}; /* sort_order_id, nan_value_counts: unknown to old writers */
    mangle(writer, drop, 2);
    /* an extra writer-only field the reader does not know */
    json_t *df_fields = json_object_get(
        json_object_get(json_array_get(json_object_get(writer, "fields"), 2), "type"), "fields");
    json_array_append_new(df_fields, json_pack("{s:s,s:s,s:i}", "name", "distinct_counts_legacy",
                                               "type", "string", "field-id", 111));
    char *wtext = json_dumps(writer, JSON_COMPACT);
    char *rtext = json_dumps(reader, JSON_COMPACT);
    CHECK(strstr(wtext, "old_file_path") != NULL);

    /* write a manifest with the old schema, read it with the current one */
    fl_error err = {0};
    uint8_t *file = NULL;
    size_t file_len = 0;
    fl_output *out;
    fl_avro_writer *w = NULL;
    fl_avro_writer_options opt = {.codec = "deflate"};
    CHECK_OK(fl_output_memory("old-manifest.avro", &file, &file_len, &out, &err), &err);
    CHECK_OK(fl_avro_writer_open(out, wtext, strlen(wtext), &opt, &w, &err), &err);
    fl_arena a;
    fl_arena_init(&a, 0);
    for (int i = 0; w && i < 3; i++) {
        char rec[2048];
        snprintf(rec, sizeof rec,
                 "{\"old_status\":%d,\"old_snapshot_id\":%lld,\"old_data_file\":{"
                 "\"old_file_path\":\"s3://b/data/%d.parquet\",\"old_file_format\":\"PARQUET\","
                 "\"old_partition\":{\"old_VendorID\":%d,\"old_tpep_pickup_datetime\":%s},"
                 "\"old_record_count\":%d,\"old_file_size_in_bytes\":%d,\"old_block_size_in_"
                 "bytes\":67108864,"
                 "\"old_column_sizes\":[{\"old_key\":1,\"old_value\":%d}],"
                 "\"old_lower_bounds\":[{\"old_key\":1,\"old_value\":{\"$bytes\":\"0%d000000\"}}],"
                 "\"old_split_offsets\":[4],\"distinct_counts_legacy\":\"x\"}}",
                 i % 3, 1234567890123456789LL + i, i, i + 1, i == 1 ? "null" : "19000",
                 100 * (i + 1), 4096 + i, 40 * (i + 1), i + 1);
        fl_avro_value v;
        CHECK_OK(fl_avro_value_from_json(&a, fl_avro_writer_schema(w), rec, strlen(rec), &v, &err),
                 &err);
        CHECK_OK(fl_avro_writer_append(w, &v, &err), &err);
    }
    if (w)
        CHECK_OK(fl_avro_writer_close(w, &err), &err);
    fl_avro_schema *rs = parse(&a, rtext);
    fl_file *f;
    fl_avro_reader *r = NULL;
    CHECK_OK(fl_file_from_memory(file, file_len, "old-manifest.avro", &f, &err), &err);
    CHECK_OK(fl_avro_reader_open(f, NULL, &r, &err), &err);
    fl_avro_resolver *res = NULL;
    if (r && rs)
        CHECK_OK(fl_avro_resolver_new(&a, fl_avro_reader_schema(r), rs, &res, &err), &err);
    for (int i = 0; res; i++) {
        fl_avro_value v, rv;
        bool done;
        CHECK_OK(fl_avro_reader_next(r, &a, &v, &done, &err), &err);
        if (done) {
            CHECK_EQ_INT(i, 3);
            break;
        }
        CHECK_OK(fl_avro_resolve(&a, res, &v, &rv, &err), &err);
        if (err.code)
            break;
        CHECK_EQ_INT(fl_avro_value_field(&rv, "status")->u.i, i % 3);
        CHECK_EQ_INT(fl_avro_value_field(&rv, "snapshot_id")->u.l, 1234567890123456789LL + i);
        CHECK_EQ_INT(fl_avro_value_field(&rv, "snapshot_id")->branch, 1);
        const fl_avro_value *df = fl_avro_value_field(&rv, "data_file");
        CHECK(df != NULL);
        if (!df)
            break;
        char want_path[64];
        snprintf(want_path, sizeof want_path, "s3://b/data/%d.parquet", i);
        const fl_avro_value *fp = fl_avro_value_field(df, "file_path");
        CHECK(fp && fp->u.bytes.len == strlen(want_path) &&
              !memcmp(fp->u.bytes.ptr, want_path, fp->u.bytes.len));
        CHECK_EQ_INT(fl_avro_value_field(df, "record_count")->type, FL_AVRO_LONG);
        CHECK_EQ_INT(fl_avro_value_field(df, "record_count")->u.l, 100 * (i + 1));
        CHECK_EQ_INT(fl_avro_value_field(df, "file_size_in_bytes")->u.l, 4096 + i);
        CHECK(fl_avro_value_field(df, "sort_order_id") == NULL); /* absent -> null */
        CHECK(fl_avro_value_field(df, "nan_value_counts") == NULL);
        const fl_avro_value *part = fl_avro_value_field(df, "partition");
        CHECK_EQ_INT(fl_avro_value_field(part, "VendorID")->u.i, i + 1);
        if (i == 1)
            CHECK(fl_avro_value_field(part, "tpep_pickup_datetime") == NULL);
        else
            CHECK_EQ_INT(fl_avro_value_field(part, "tpep_pickup_datetime")->u.i, 19000);
        const fl_avro_value *cs = fl_avro_value_field(df, "column_sizes");
        CHECK(cs && cs->u.list.n == 1);
        if (cs && cs->u.list.n == 1) {
            CHECK_EQ_INT(fl_avro_value_field(&cs->u.list.items[0], "key")->u.i, 1);
            CHECK_EQ_INT(fl_avro_value_field(&cs->u.list.items[0], "value")->u.l, 40 * (i + 1));
        }
        const fl_avro_value *so = fl_avro_value_field(df, "split_offsets");
        CHECK(so && so->u.list.n == 1 && so->u.list.items[0].u.l == 4);
        /* the resolved value encodes with the reader schema */
        fl_avro_buf b = {0};
        CHECK_OK(fl_avro_encode(rs, &rv, &b, &err), &err);
        fl_avro_buf_free(&b);
    }
    fl_avro_reader_close(r);
    /* the same through the reader's own resolution */
    r = NULL;
    CHECK_OK(fl_avro_reader_open(f, NULL, &r, &err), &err);
    if (r && rs) {
        CHECK_OK(fl_avro_reader_set_reader_schema(r, rs, &err), &err);
        int n = 0;
        for (;; n++) {
            fl_avro_value v;
            bool done;
            if (fl_avro_reader_next(r, &a, &v, &done, &err) || done)
                break;
            CHECK(v.schema == rs);
            const fl_avro_value *df = fl_avro_value_field(&v, "data_file");
            CHECK(df && fl_avro_value_field(df, "record_count")->u.l == 100 * (n + 1));
        }
        CHECK_EQ_INT(n, 3);
        /* a reader schema the file can never satisfy */
        fl_avro_schema *bad = parse(&a, "{\"type\":\"record\",\"name\":\"x\",\"fields\":[{\"name\":"
                                        "\"nope\",\"type\":\"int\"}]}");
        CHECK_EQ_INT(fl_avro_reader_set_reader_schema(r, bad, &err), FL_ETYPE);
        CHECK(strstr(err.msg, "old-manifest.avro: writer schema cannot be read") != NULL);
    }
    fl_avro_reader_close(r);
    fl_file_close(f);
    free(file);
    free(wtext);
    free(rtext);
    json_decref(reader);
    json_decref(writer);
    fl_arena_free(&a);
}

static void expect_logical(fl_arena *a, const char *schema, const char *json, const char *want)
{
    fl_error err = {0};
    fl_avro_schema *s = parse(a, schema);
    fl_avro_value v;
    if (!s)
        return;
    CHECK_OK(fl_avro_value_from_json(a, s, json, strlen(json), &v, &err), &err);
    fl_avro_buf b = {0};
    CHECK_OK(fl_avro_value_to_json_ex(&v, FL_AVRO_JSON_LOGICAL, &b, &err), &err);
    avro_buf_putc(&b, 0);
    CHECK_EQ_STR((const char *)b.data, want);
    fl_avro_buf_free(&b);
}

static void test_logical_rendering(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    const char *date = "{\"type\":\"int\",\"logicalType\":\"date\"}";
    expect_logical(&a, date, "0", "\"1970-01-01\"");
    expect_logical(&a, date, "-1", "\"1969-12-31\"");
    expect_logical(&a, date, "19723", "\"2024-01-01\"");
    expect_logical(&a, date, "-26836", "\"1896-07-11\"");
    expect_logical(&a, date, "11016", "\"2000-02-29\"");
    expect_logical(&a, "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}", "-1",
                   "\"1969-12-31T23:59:59.999999Z\"");
    expect_logical(&a, "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}",
                   "140220482367704", "\"1974-06-11T22:08:02.367704Z\"");
    expect_logical(&a, "{\"type\":\"long\",\"logicalType\":\"local-timestamp-millis\"}",
                   "417015655157", "\"1983-03-20T13:40:55.157\"");
    expect_logical(&a, "{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\"}", "1",
                   "\"1970-01-01T00:00:00.000000001Z\"");
    expect_logical(&a, "{\"type\":\"int\",\"logicalType\":\"time-millis\"}", "10354096",
                   "\"02:52:34.096\"");
    expect_logical(&a, "{\"type\":\"long\",\"logicalType\":\"time-micros\"}", "41823953893",
                   "\"11:37:03.953893\"");
    const char *dec =
        "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":9,\"scale\":2}";
    expect_logical(&a, dec, "{\"$bytes\":\"edd8901d\"}", "\"-3045744.35\"");
    expect_logical(&a, dec, "{\"$bytes\":\"ff38\"}", "\"-2.00\"");
    expect_logical(&a, dec, "{\"$bytes\":\"05\"}", "\"0.05\"");
    expect_logical(&a, dec, "{\"$bytes\":\"\"}", "{\"$bytes\":\"\"}"); /* no digits: physical */
    expect_logical(&a,
                   "{\"type\":\"fixed\",\"name\":\"d16\",\"size\":16,\"logicalType\":\"decimal\","
                   "\"precision\":38,\"scale\":10}",
                   "{\"$bytes\":\"fffffffff408a26f7d0d67d27e3f6030\"}",
                   "\"-370338163132943414.3817768912\"");
    expect_logical(&a, "{\"type\":\"fixed\",\"name\":\"u\",\"size\":16,\"logicalType\":\"uuid\"}",
                   "{\"$bytes\":\"3d9c172411e20b8f6b0d549b6f03675a\"}",
                   "\"3d9c1724-11e2-0b8f-6b0d-549b6f03675a\"");
    expect_logical(
        &a, "{\"type\":\"fixed\",\"name\":\"du\",\"size\":12,\"logicalType\":\"duration\"}",
        "{\"$bytes\":\"010000000200000003000000\"}", "{\"months\":1,\"days\":2,\"millis\":3}");
    /* nested inside a record and a union */
    expect_logical(&a,
                   "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"d\",\"type\":["
                   "\"null\",{\"type\":\"int\",\"logicalType\":\"date\"}]}]}",
                   "{\"d\":1}", "{\"d\":\"1970-01-02\"}");
    fl_arena_free(&a);
}

/* Reads every record of file[0..len) built by write_ints(); returns the
 * status and stores the count and trailing bytes. */
static fl_status count_records(uint8_t *file, size_t len, int *n, uint64_t *trailing, fl_error *err)
{
    fl_file *f;
    fl_avro_reader *r = NULL;
    *n = 0;
    fl_status rc = fl_file_from_memory(file, len, "mem.avro", &f, err);
    if (rc)
        return rc;
    rc = fl_avro_reader_open(f, NULL, &r, err);
    fl_arena a;
    fl_arena_init(&a, 0);
    while (!rc) {
        fl_avro_value v;
        bool done;
        rc = fl_avro_reader_next(r, &a, &v, &done, err);
        if (rc || done)
            break;
        (*n)++;
    }
    if (r)
        *trailing = fl_avro_reader_trailing_bytes(r);
    fl_arena_free(&a);
    fl_avro_reader_close(r);
    fl_file_close(f);
    return rc;
}

/* Bytes after the last sync marker that cannot hold a block header end the
 * file (avsc and Java read such files, e.g. Avro's own person-10.no-codec.avro
 * ends with a newline); a complete header whose block is cut stays an error. */
static void test_trailing_bytes(void)
{
    fl_error err = {0};
    uint8_t *file = NULL;
    size_t len = 0;
    fl_output *out;
    CHECK_OK(fl_output_memory("mem.avro", &file, &len, &out, &err), &err);
    fl_avro_writer_options opt = {.codec = "null", .block_size = 64};
    fl_avro_writer *w = NULL;
    CHECK_OK(fl_avro_writer_open(out, "\"long\"", 6, &opt, &w, &err), &err);
    if (!w)
        return;
    for (int64_t i = 0; i < 100; i++) {
        fl_avro_value v = {
            .type = FL_AVRO_LONG, .schema = fl_avro_writer_schema(w), .branch = -1, .u.l = i};
        CHECK_OK(fl_avro_writer_append(w, &v, &err), &err);
    }
    CHECK_OK(fl_avro_writer_close(w, &err), &err);
    uint8_t *grown = malloc(len + 40);
    memcpy(grown, file, len);
    int n = 0;
    uint64_t trailing = 99;
    CHECK_OK(count_records(grown, len, &n, &trailing, &err), &err);
    CHECK_EQ_INT(n, 100);
    CHECK_EQ_INT(trailing, 0);
    grown[len] = '\n'; /* one stray byte: a complete varint, no size */
    CHECK_OK(count_records(grown, len + 1, &n, &trailing, &err), &err);
    CHECK_EQ_INT(n, 100);
    CHECK_EQ_INT(trailing, 1);
    grown[len] = 0x81; /* a varint cut by the end of the file */
    CHECK_OK(count_records(grown, len + 1, &n, &trailing, &err), &err);
    CHECK_EQ_INT(n, 100);
    /* a whole header (2 records, 8 bytes) with its data and sync missing */
    grown[len] = 4;
    grown[len + 1] = 16;
    CHECK_EQ_INT(count_records(grown, len + 2, &n, &trailing, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "truncated block at byte offset") != NULL);
    free(grown);
    free(file);
}

int main(void)
{
    TEST_RUN(test_trailing_bytes);
    TEST_RUN(test_varints);
    TEST_RUN(test_decode_edges);
    TEST_RUN(test_roundtrip_null);
    TEST_RUN(test_roundtrip_deflate);
    TEST_RUN(test_roundtrip_snappy);
    TEST_RUN(test_roundtrip_zstandard);
    TEST_RUN(test_roundtrip_bzip2);
    TEST_RUN(test_writer_errors);
    TEST_RUN(test_logical_rendering);
    TEST_RUN(test_resolve_promotions);
    TEST_RUN(test_resolve_iceberg_old_names);
    return TEST_EXIT();
}
