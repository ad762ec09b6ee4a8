/* Unit tests for base/variant*.c: the parquet-testing variant fixtures
 * (validated, printed as JSON and compared with data_dictionary.json),
 * JSON -> variant -> JSON round trips and number kinds, JSON errors with
 * their positions, the builder's edge cases (large objects, 3- and 4-byte
 * offsets, nesting, seeded dictionaries and copies, duplicate keys), corrupt
 * and truncated values, paths, and equality across dictionaries. */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "floe/calendar.h"
#include "floe/variant.h"
#include "test.h"

/* the fuzz target's properties, replayed over its seeds and regressions */
#include "../../fuzz/fuzz_variant.c"

/* ---- helpers ---- */

static uint8_t *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(len > 0 ? (size_t)len : 1);
    *n = p && len > 0 ? fread(p, 1, (size_t)len, f) : 0;
    fclose(f);
    return p;
}

/* JSON text -> floe variant bytes in out (checked). */
static void from_json(const char *json, fl_buf *out)
{
    fl_error err;
    fl_buf_reset(out);
    CHECK_OK(fl_variant_from_json(json, strlen(json), out, &err), &err);
    CHECK_OK(fl_variant_check(out->bytes, out->len, &err), &err);
}

/* floe variant bytes -> JSON text in out. */
static void to_json(const uint8_t *p, size_t n, fl_buf *out)
{
    fl_error err;
    fl_variant_meta m;
    fl_variant v;
    fl_buf_reset(out);
    CHECK_OK(fl_variant_open(p, n, &m, &v, &err), &err);
    CHECK_OK(fl_variant_to_json(&v, out, &err), &err);
}

/* JSON text -> variant -> JSON text gives want (NULL: the input). */
static void round_trip(const char *json, const char *want)
{
    fl_buf var = {0}, out = {0};
    from_json(json, &var);
    to_json(var.bytes, var.len, &out);
    CHECK_EQ_STR(out.data ? out.data : "", want ? want : json);
    fl_buf_free(&var);
    fl_buf_free(&out);
}

/* The kind of the top-level value of json. */
static fl_variant_kind kind_of_json(const char *json, int32_t *scale)
{
    fl_buf var = {0};
    fl_error err;
    fl_variant_meta m;
    fl_variant v;
    fl_variant_kind k = FL_VK_NULL;
    from_json(json, &var);
    CHECK_OK(fl_variant_open(var.bytes, var.len, &m, &v, &err), &err);
    CHECK_OK(fl_variant_kind_of(&v, &k, &err), &err);
    if (scale) {
        fl_variant_scalar s;
        CHECK_OK(fl_variant_scalar_of(&v, &s, &err), &err);
        *scale = s.scale;
    }
    fl_buf_free(&var);
    return k;
}

/* Semantic JSON equality: numbers by value (int vs real allowed). */
static bool json_same(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b)) {
        if (json_is_integer(a) && json_is_integer(b))
            return json_integer_value(a) == json_integer_value(b);
        return json_number_value(a) == json_number_value(b);
    }
    if (json_typeof(a) != json_typeof(b))
        return false;
    if (json_is_object(a)) {
        if (json_object_size(a) != json_object_size(b))
            return false;
        const char *k;
        json_t *va;
        json_object_foreach((json_t *)a, k, va)
        {
            json_t *vb = json_object_get(b, k);
            if (!vb || !json_same(va, vb))
                return false;
        }
        return true;
    }
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b))
            return false;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!json_same(json_array_get(a, i), json_array_get(b, i)))
                return false;
        return true;
    }
    return json_equal((json_t *)a, (json_t *)b);
}

/* ---- the parquet-testing fixtures ---- */

static int64_t civil_us(int y, int mo, int d, int h, int mi, int s)
{
    return fl_days_from_civil(y, (unsigned)mo, (unsigned)d) * FL_US_PER_DAY +
           ((int64_t)h * 3600 + mi * 60 + s) * FL_US_PER_SEC;
}

/* Fraction digits as a count of 10^-digits units. */
static int64_t frac_units(const char *f, int digits)
{
    int64_t v = 0;
    int n = 0;
    for (; f && *f >= '0' && *f <= '9' && n < digits; f++, n++)
        v = v * 10 + (*f - '0');
    for (; n < digits; n++)
        v *= 10;
    return v;
}

/* The kinds whose dictionary text is formatted its own way: check the
 * decoded scalar against the value the text spells. */
static bool check_special(const char *name, const fl_variant *v, const json_t *want,
                          const char *json)
{
    const char *t = json_string_value(want);
    fl_variant_scalar s;
    fl_error err;
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
    char frac[16] = "";
    if (strcmp(name, "primitive_time") == 0) {
        CHECK_OK(fl_variant_scalar_of(v, &s, &err), &err);
        CHECK(t && sscanf(t, "%d:%d:%d:%15[0-9]", &h, &mi, &sec, frac) == 4);
        CHECK_EQ_INT(s.kind, FL_VK_TIME);
        CHECK_EQ_INT(s.v.i,
                     ((int64_t)h * 3600 + mi * 60 + sec) * FL_US_PER_SEC + frac_units(frac, 6));
        CHECK_EQ_STR(json, "\"12:33:54.123456\"");
        return true;
    }
    if (strcmp(name, "primitive_timestamp_nanos") == 0 ||
        strcmp(name, "primitive_timestampntz") == 0) {
        bool ns = strstr(name, "nanos") != NULL;
        CHECK_OK(fl_variant_scalar_of(v, &s, &err), &err);
        CHECK(t &&
              sscanf(t, "%d-%d-%d%*c%d:%d:%d.%15[0-9]", &y, &mo, &d, &h, &mi, &sec, frac) == 7);
        int64_t us = civil_us(y, mo, d, h, mi, sec);
        CHECK_EQ_INT(s.kind, ns ? FL_VK_TIMESTAMP_NS : FL_VK_TIMESTAMP_NTZ);
        CHECK_EQ_INT(s.v.i, ns ? us * 1000 + frac_units(frac, 9) : us + frac_units(frac, 6));
        CHECK_EQ_STR(json,
                     ns ? "\"2024-11-07 12:33:54.123456789+00:00\"" : "\"2025-04-16 12:34:56.78\"");
        return true;
    }
    if (strcmp(name, "primitive_date") == 0) {
        CHECK_OK(fl_variant_scalar_of(v, &s, &err), &err);
        CHECK(t && sscanf(t, "%d-%d-%d", &y, &mo, &d) == 3);
        CHECK_EQ_INT(s.kind, FL_VK_DATE);
        CHECK_EQ_INT(s.v.i, fl_days_from_civil(y, (unsigned)mo, (unsigned)d));
        return true;
    }
    if (strcmp(name, "primitive_binary") == 0) {
        static const uint8_t want_b[] = {0x03, 0x13, 0x37, 0xde, 0xad, 0xbe, 0xef, 0xca, 0xfe};
        CHECK_OK(fl_variant_scalar_of(v, &s, &err), &err);
        CHECK_EQ_INT(s.kind, FL_VK_BINARY);
        CHECK(s.len == sizeof want_b && memcmp(s.v.bytes, want_b, s.len) == 0);
        return false; /* and the base64 text must match too */
    }
    if (strcmp(name, "primitive_uuid") == 0) {
        CHECK_OK(fl_variant_scalar_of(v, &s, &err), &err);
        CHECK_EQ_INT(s.kind, FL_VK_UUID);
        CHECK(s.len == 16 && s.v.bytes[0] == 0xf2 && s.v.bytes[15] == 0x56);
        return false;
    }
    return false;
}

static void check_fixture(const char *dir, const char *name, const json_t *dict, int *count)
{
    char path[4608];
    size_t mn = 0, vn = 0;
    snprintf(path, sizeof path, "%s/%s.metadata", dir, name);
    uint8_t *mb = read_all(path, &mn);
    snprintf(path, sizeof path, "%s/%s.value", dir, name);
    uint8_t *vb = read_all(path, &vn);
    CHECK(mb && vb);
    if (!mb || !vb) {
        free(mb);
        free(vb);
        return;
    }
    fl_error err;
    fl_variant_meta m;
    CHECK_OK(fl_variant_meta_open(mb, mn, &m, &err), &err);
    CHECK_EQ_INT(m.len, mn);
    fl_variant v = {.meta = &m, .p = vb, .len = vn};
    size_t size = 0;
    CHECK_OK(fl_variant_size(&v, &size, &err), &err);
    CHECK_EQ_INT(size, vn);
    CHECK_OK(fl_variant_validate(&v, &err), &err);
    fl_buf json = {0}, joined = {0}, again = {0}, json2 = {0};
    CHECK_OK(fl_variant_to_json(&v, &json, &err), &err);
    /* the floe form: metadata then value */
    CHECK_OK(fl_buf_append(&joined, mb, mn, &err), &err);
    CHECK_OK(fl_buf_append(&joined, vb, vn, &err), &err);
    CHECK_OK(fl_variant_check(joined.bytes, joined.len, &err), &err);
    json_t *want = json_object_get(dict, name);
    if (want && strcmp(name, "primitive_float") == 0) {
        /* floats print their shortest float digits: compare as floats */
        json_t *got = json_loads(json.data, JSON_DECODE_ANY, NULL);
        CHECK(got && (float)json_number_value(got) == (float)json_number_value(want));
        json_decref(got);
    } else if (want && !check_special(name, &v, want, json.data)) {
        json_t *got = json_loads(json.data, JSON_DECODE_ANY, NULL);
        CHECK(got && json_same(got, want));
        if (!got || !json_same(got, want))
            fprintf(stderr, "  %s: got %s\n", name, json.data);
        json_decref(got);
    }
    /* JSON -> variant -> the same JSON */
    CHECK_OK(fl_variant_from_json(json.data, json.len, &again, &err), &err);
    to_json(again.bytes, again.len, &json2);
    CHECK_EQ_STR(json2.data, json.data);
    (*count)++;
    fl_buf_free(&json);
    fl_buf_free(&joined);
    fl_buf_free(&again);
    fl_buf_free(&json2);
    free(mb);
    free(vb);
}

static void test_fixtures(void)
{
    const char *shared = test_shared_dir();
    if (!shared) {
        fprintf(stderr, "  skipped: FLOE_SHARED fixtures absent\n");
        return;
    }
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/fixtures/parquet-testing/variant", shared);
    snprintf(path, sizeof path, "%s/data_dictionary.json", dir);
    json_t *dict = json_load_file(path, 0, NULL);
    DIR *d = opendir(dir);
    if (!d || !dict) {
        fprintf(stderr, "  skipped: %s absent\n", dir);
        if (d)
            closedir(d);
        json_decref(dict);
        return;
    }
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l > 9 && strcmp(e->d_name + l - 9, ".metadata") == 0) {
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(l - 9), e->d_name);
            check_fixture(dir, name, dict, &count);
        }
    }
    closedir(d);
    json_decref(dict);
    CHECK(count >= 20);
    fprintf(stderr, "  %d fixture variants\n", count);
}

/* ---- JSON ---- */

static void test_json_round_trips(void)
{
    round_trip("{\"b\":1,\"a\":[true,false,null],\"c\":\"x\"}",
               "{\"a\":[true,false,null],\"b\":1,\"c\":\"x\"}");
    round_trip(" { \"k\" : [ 1 , { } , [ ] , \"\" ] } ", "{\"k\":[1,{},[],\"\"]}");
    round_trip("1.50", NULL);
    round_trip("-0.001", NULL);
    round_trip("0.0", NULL);
    round_trip("-0", "0");
    round_trip("12345678901234567890", NULL);
    round_trip("-9223372036854775808", NULL);
    round_trip("1e3", "1000.0");
    round_trip("1.5E-7", "1.5E-7");
    round_trip("1.0e7", "1.0E7");
    round_trip("123e-2", "1.23");
    round_trip("0.001e0", "0.001");
    round_trip("1e400", "\"Infinity\"");
    round_trip("123456789012345678901234567890123456789", "1.2345678901234568E38");
    round_trip("0.12345678901234567890123456789012345678", NULL);
    round_trip("0.123456789012345678901234567890123456789", "0.12345678901234568");
    round_trip("\"a\\\"b\\\\c\\n\\u0001\\u00e9\\ud83d\\ude00\\/\"",
               "\"a\\\"b\\\\c\\n\\u0001\xc3\xa9\xf0\x9f\x98\x80/\"");
    round_trip("\"\\b\\f\\r\\t\\u001f\"", NULL);
    round_trip("[[1,[2,[3,[]]]],[[[{}]]]]", NULL);
    round_trip("\"This string is much longer than sixty-four bytes, so it is a long string!\"",
               NULL);
    round_trip("{\"\":0,\"\xc3\xa9\":1,\"a\":2}", "{\"\":0,\"a\":2,\"\xc3\xa9\":1}");
}

static void test_json_number_kinds(void)
{
    int32_t scale = -1;
    CHECK_EQ_INT(kind_of_json("127", NULL), FL_VK_INT8);
    CHECK_EQ_INT(kind_of_json("-128", NULL), FL_VK_INT8);
    CHECK_EQ_INT(kind_of_json("128", NULL), FL_VK_INT16);
    CHECK_EQ_INT(kind_of_json("-32769", NULL), FL_VK_INT32);
    CHECK_EQ_INT(kind_of_json("2147483648", NULL), FL_VK_INT64);
    CHECK_EQ_INT(kind_of_json("9223372036854775807", NULL), FL_VK_INT64);
    CHECK_EQ_INT(kind_of_json("9223372036854775808", &scale), FL_VK_DECIMAL16);
    CHECK_EQ_INT(scale, 0);
    CHECK_EQ_INT(kind_of_json("1.23456789", &scale), FL_VK_DECIMAL4);
    CHECK_EQ_INT(scale, 8);
    CHECK_EQ_INT(kind_of_json("1.234567890", &scale), FL_VK_DECIMAL8);
    CHECK_EQ_INT(scale, 9);
    CHECK_EQ_INT(kind_of_json("0.0000000001", &scale), FL_VK_DECIMAL8);
    CHECK_EQ_INT(scale, 10);
    CHECK_EQ_INT(kind_of_json("-1234567890.123456789", &scale), FL_VK_DECIMAL16);
    CHECK_EQ_INT(scale, 9);
    CHECK_EQ_INT(kind_of_json("1.5e0", NULL), FL_VK_DOUBLE);
    CHECK_EQ_INT(kind_of_json("0.000000000000000000000000000000000000001", NULL), FL_VK_DOUBLE);
    CHECK_EQ_INT(kind_of_json("\"short\"", NULL), FL_VK_STRING);
}

static void expect_json_error(const char *json, size_t n, fl_status code, const char *msg)
{
    fl_buf out = {0};
    fl_error err;
    fl_error_clear(&err);
    CHECK_EQ_INT(fl_variant_from_json(json, n, &out, &err), code);
    CHECK(strstr(err.msg, msg) != NULL);
    if (!strstr(err.msg, msg))
        fprintf(stderr, "  message: %s (wanted %s)\n", err.msg, msg);
    CHECK_EQ_INT(out.len, 0);
    fl_buf_free(&out);
}

#define JERR(s, code, msg) expect_json_error(s, sizeof(s) - 1, code, msg)

static void test_json_errors(void)
{
    JERR("{\"a\":1,\"b\":2,\"a\":3}", FL_ESYNTAX,
         "JSON: position 0: variant builder: "
         "duplicate key 'a'");
    JERR("[1,]", FL_ESYNTAX, "JSON: position 3: unexpected character");
    JERR("{\"a\" 1}", FL_ESYNTAX, "JSON: position 5: expected ':'");
    JERR("{1:2}", FL_ESYNTAX, "JSON: position 1: expected a string key");
    JERR("[1 2]", FL_ESYNTAX, "JSON: position 3: expected ',' or ']'");
    JERR("\"\\ud800\"", FL_ESYNTAX, "JSON: position 1: a high surrogate without a low one");
    JERR("\"\\ud800\\u0041\"", FL_ESYNTAX, "position 1: a high surrogate without a low one");
    JERR("\"\\udc00\"", FL_ESYNTAX, "JSON: position 1: a low surrogate without a high one");
    JERR("\"\\u12g4\"", FL_ESYNTAX, "JSON: position 1: \\u needs four hex digits");
    JERR("\"\\x\"", FL_ESYNTAX, "JSON: position 1: unknown escape");
    JERR("\"ab\xff\"", FL_ESYNTAX, "JSON: position 3: invalid UTF-8");
    JERR("\"\xc0\x80\"", FL_ESYNTAX, "JSON: position 1: invalid UTF-8");
    JERR("\"\xed\xa0\x80\"", FL_ESYNTAX, "JSON: position 1: invalid UTF-8");
    JERR("\"a\nb\"", FL_ESYNTAX, "JSON: position 2: a control character in a string");
    JERR("\"abc", FL_ESYNTAX, "JSON: position 0: unterminated string");
    JERR("01", FL_ESYNTAX, "JSON: position 0: a number with a leading zero");
    JERR("1.", FL_ESYNTAX, "JSON: position 0: a number needs digits after '.'");
    JERR("-", FL_ESYNTAX, "JSON: position 0: a number needs digits");
    JERR("1e+", FL_ESYNTAX, "a number needs digits in its exponent");
    JERR("tru", FL_ESYNTAX, "JSON: position 0: unexpected character");
    JERR("[1] x", FL_ESYNTAX, "JSON: position 4: trailing characters after the value");
    JERR("", FL_ESYNTAX, "JSON: position 0: unexpected end of input");
    JERR("[", FL_ESYNTAX, "JSON: position 1: unexpected end of input");
    JERR("[1,2", FL_ESYNTAX, "JSON: position 4: unexpected end of input");
    expect_json_error("[\0]", 3, FL_ESYNTAX, "JSON: position 1: unexpected character");
    /* depth: 128 nested arrays are fine, 129 are not */
    char deep[300];
    for (int i = 0; i < 128; i++)
        deep[i] = '[', deep[128 + i] = ']';
    deep[256] = '\0';
    round_trip(deep, NULL);
    for (int i = 0; i < 129; i++)
        deep[i] = '[', deep[129 + i] = ']';
    deep[258] = '\0';
    expect_json_error(deep, strlen(deep), FL_ELIMIT, "JSON: position 128: nested deeper than 128");
}

/* Every kind printed as Spark's to_json does. */
static void expect_scalar_json(const fl_variant_scalar *s, const char *want)
{
    fl_variant_builder b;
    fl_buf var = {0}, out = {0};
    fl_error err;
    fl_vb_init(&b);
    CHECK_OK(fl_vb_scalar(&b, s, &err), &err);
    CHECK_OK(fl_vb_finish(&b, &var, &err), &err);
    CHECK_OK(fl_variant_check(var.bytes, var.len, &err), &err);
    to_json(var.bytes, var.len, &out);
    CHECK_EQ_STR(out.data, want);
    fl_vb_free(&b);
    fl_buf_free(&var);
    fl_buf_free(&out);
}

static void test_to_json_kinds(void)
{
    fl_variant_scalar s = {.kind = FL_VK_DATE};
    s.v.i = fl_days_from_civil(2025, 4, 16);
    expect_scalar_json(&s, "\"2025-04-16\"");
    s.kind = FL_VK_TIMESTAMP;
    s.v.i = civil_us(2025, 4, 16, 12, 34, 56) + 780000;
    expect_scalar_json(&s, "\"2025-04-16 12:34:56.78+00:00\"");
    s.kind = FL_VK_TIMESTAMP_NTZ;
    expect_scalar_json(&s, "\"2025-04-16 12:34:56.78\"");
    s.v.i = -1;
    expect_scalar_json(&s, "\"1969-12-31 23:59:59.999999\"");
    s.v.i = 0;
    expect_scalar_json(&s, "\"1970-01-01 00:00:00\"");
    s.kind = FL_VK_TIMESTAMP_NS;
    s.v.i = 1500000000;
    expect_scalar_json(&s, "\"1970-01-01 00:00:01.5+00:00\"");
    s.kind = FL_VK_TIMESTAMP_NTZ_NS;
    s.v.i = 1;
    expect_scalar_json(&s, "\"1970-01-01 00:00:00.000000001\"");
    /* the extremes print without overflow */
    s.kind = FL_VK_TIMESTAMP_NS;
    s.v.i = INT64_MIN;
    expect_scalar_json(&s, "\"1677-09-21 00:12:43.145224192+00:00\"");
    s.v.i = INT64_MAX;
    expect_scalar_json(&s, "\"2262-04-11 23:47:16.854775807+00:00\"");
    s.kind = FL_VK_TIMESTAMP;
    s.v.i = INT64_MIN;
    expect_scalar_json(&s, "\"-290308-12-21 19:59:05.224192+00:00\"");
    s.kind = FL_VK_TIME;
    s.v.i = -1;
    expect_scalar_json(&s, "\"23:59:59.999999\"");
    s.v.i = (12 * 3600 + 33 * 60 + 54) * FL_US_PER_SEC + 123456;
    expect_scalar_json(&s, "\"12:33:54.123456\"");
    s.kind = FL_VK_DOUBLE;
    double ds[] = {1e7, 0.001, 123.0, -0.0, 1.23456789, 1e-4, 9999999.0, 1e300};
    const char *dw[] = {"1.0E7",      "0.001",  "123.0",     "-0.0",
                        "1.23456789", "1.0E-4", "9999999.0", "1.0E300"};
    for (int i = 0; i < 8; i++) {
        s.v.d = ds[i];
        expect_scalar_json(&s, dw[i]);
    }
    s.v.d = NAN;
    expect_scalar_json(&s, "\"NaN\"");
    s.v.d = -INFINITY;
    expect_scalar_json(&s, "\"-Infinity\"");
    s.kind = FL_VK_FLOAT;
    s.v.f = 1234567940.0f;
    expect_scalar_json(&s, "1.234568E9"); /* the shortest digits that read back as the float */
    s.v.f = 0.1f;
    expect_scalar_json(&s, "0.1");
    s.kind = FL_VK_DECIMAL8;
    s.v.dec = -1250;
    s.scale = 2;
    expect_scalar_json(&s, "-12.50");
    s.kind = FL_VK_DECIMAL16;
    s.v.dec = 5;
    s.scale = 38;
    expect_scalar_json(&s, "0.00000000000000000000000000000000000005");
    s.kind = FL_VK_INT64;
    s.v.i = INT64_MIN;
    expect_scalar_json(&s, "-9223372036854775808");
    s.kind = FL_VK_BINARY;
    s.v.bytes = (const uint8_t *)"\x00\xff\x10\x20";
    for (size_t n = 0; n <= 4; n++) {
        static const char *want[] = {"\"\"", "\"AA==\"", "\"AP8=\"", "\"AP8Q\"", "\"AP8QIA==\""};
        s.len = n;
        expect_scalar_json(&s, want[n]);
    }
    s.kind = FL_VK_UUID;
    s.v.bytes = (const uint8_t *)"\xf2\x4f\x9b\x64\x81\xfa\x49\xd1\xb7\x4e\x8c\x09\xa6\xe3\x1c\x56";
    s.len = 16;
    expect_scalar_json(&s, "\"f24f9b64-81fa-49d1-b74e-8c09a6e31c56\"");
}

/* ---- the builder ---- */

static const fl_variant_scalar *int_scalar(fl_variant_scalar *s, int64_t v)
{
    memset(s, 0, sizeof *s);
    s->kind = FL_VK_INT64;
    s->v.i = v;
    return s;
}

static void test_large_object(void)
{
    fl_variant_builder b;
    fl_buf var = {0};
    fl_error err;
    fl_variant_scalar s;
    fl_vb_init(&b);
    CHECK_OK(fl_vb_begin_object(&b, &err), &err);
    for (int i = 299; i >= 0; i--) {
        char k[16];
        int kl = snprintf(k, sizeof k, "k%03d", i);
        CHECK_OK(fl_vb_key(&b, k, (size_t)kl, &err), &err);
        CHECK_OK(fl_vb_scalar(&b, int_scalar(&s, i), &err), &err);
    }
    CHECK_OK(fl_vb_end_object(&b, &err), &err);
    CHECK_OK(fl_vb_finish(&b, &var, &err), &err);
    fl_variant_meta m;
    fl_variant v;
    CHECK_OK(fl_variant_open(var.bytes, var.len, &m, &v, &err), &err);
    CHECK_OK(fl_variant_validate(&v, &err), &err);
    CHECK(!m.sorted); /* keys were added in descending order */
    CHECK_EQ_INT(m.offset_size, 2);
    CHECK_EQ_INT(v.p[0] & 3, 2);
    CHECK((v.p[0] >> 6) & 1);                 /* is_large */
    CHECK_EQ_INT(((v.p[0] >> 4) & 3) + 1, 2); /* 2-byte ids */
    uint32_t n = 0;
    CHECK_OK(fl_variant_count(&v, &n, &err), &err);
    CHECK_EQ_INT(n, 300);
    for (int i = 0; i < 300; i++) {
        char k[16];
        int kl = snprintf(k, sizeof k, "k%03d", i);
        bool found = false;
        fl_variant f;
        CHECK_OK(fl_variant_object_find(&v, k, (size_t)kl, &found, &f, &err), &err);
        CHECK(found);
        fl_variant_scalar got;
        CHECK_OK(fl_variant_scalar_of(&f, &got, &err), &err);
        CHECK_EQ_INT(got.v.i, i);
        const char *key;
        size_t klen;
        CHECK_OK(fl_variant_object_at(&v, (uint32_t)i, &key, &klen, &f, &err), &err);
        CHECK(klen == (size_t)kl && memcmp(key, k, klen) == 0);
    }
    bool found = true;
    fl_variant f;
    CHECK_OK(fl_variant_object_find(&v, "k300", 4, &found, &f, &err), &err);
    CHECK(!found);
    CHECK_OK(fl_variant_object_find(&v, "a", 1, &found, &f, &err), &err);
    CHECK(!found);
    fl_vb_free(&b);
    fl_buf_free(&var);
}

/* An array holding one string of len bytes and an int: offset width wanted. */
static void big_string(size_t len, unsigned want_off)
{
    fl_variant_builder b;
    fl_buf var = {0}, json = {0};
    fl_error err;
    char *big = malloc(len);
    memset(big, 'x', len);
    fl_vb_init(&b);
    fl_variant_scalar s = {.kind = FL_VK_STRING, .len = len};
    s.v.bytes = (const uint8_t *)big;
    CHECK_OK(fl_vb_begin_array(&b, &err), &err);
    CHECK_OK(fl_vb_scalar(&b, &s, &err), &err);
    CHECK_OK(fl_vb_scalar(&b, int_scalar(&s, 7), &err), &err);
    CHECK_OK(fl_vb_end_array(&b, &err), &err);
    CHECK_OK(fl_vb_finish(&b, &var, &err), &err);
    CHECK_OK(fl_variant_check(var.bytes, var.len, &err), &err);
    fl_variant_meta m;
    fl_variant v, e;
    CHECK_OK(fl_variant_open(var.bytes, var.len, &m, &v, &err), &err);
    CHECK_EQ_INT(((v.p[0] >> 2) & 3) + 1, want_off);
    CHECK_OK(fl_variant_array_at(&v, 1, &e, &err), &err);
    fl_variant_scalar got;
    CHECK_OK(fl_variant_scalar_of(&e, &got, &err), &err);
    CHECK_EQ_INT(got.v.i, 7);
    CHECK_OK(fl_variant_array_at(&v, 0, &e, &err), &err);
    CHECK_OK(fl_variant_scalar_of(&e, &got, &err), &err);
    CHECK(got.kind == FL_VK_STRING && got.len == len);
    CHECK_OK(fl_variant_to_json(&v, &json, &err), &err);
    CHECK_EQ_INT(json.len, len + 6);
    fl_vb_free(&b);
    fl_buf_free(&var);
    fl_buf_free(&json);
    free(big);
}

static void test_offset_widths(void)
{
    big_string(70000, 3);
    big_string(17u << 20, 4);
    big_string(300, 2);
    big_string(10, 1);
}

static void test_nested_arrays(void)
{
    fl_variant_builder b;
    fl_buf var = {0}, json = {0};
    fl_error err;
    fl_variant_scalar s;
    fl_vb_init(&b);
    CHECK_OK(fl_vb_begin_array(&b, &err), &err);
    for (int i = 0; i < 3; i++) {
        CHECK_OK(fl_vb_begin_array(&b, &err), &err);
        for (int j = 0; j <= i; j++) {
            CHECK_OK(fl_vb_begin_array(&b, &err), &err);
            CHECK_OK(fl_vb_scalar(&b, int_scalar(&s, j), &err), &err);
            CHECK_OK(fl_vb_end_array(&b, &err), &err);
        }
        CHECK_OK(fl_vb_end_array(&b, &err), &err);
    }
    CHECK_OK(fl_vb_begin_object(&b, &err), &err);
    CHECK_OK(fl_vb_key(&b, "z", 1, &err), &err);
    CHECK_OK(fl_vb_begin_array(&b, &err), &err);
    CHECK_OK(fl_vb_end_array(&b, &err), &err);
    CHECK_OK(fl_vb_key(&b, "a", 1, &err), &err);
    CHECK_OK(fl_vb_begin_object(&b, &err), &err);
    CHECK_OK(fl_vb_end_object(&b, &err), &err);
    CHECK_OK(fl_vb_end_object(&b, &err), &err);
    CHECK_OK(fl_vb_end_array(&b, &err), &err);
    CHECK_OK(fl_vb_finish(&b, &var, &err), &err);
    to_json(var.bytes, var.len, &json);
    CHECK_EQ_STR(json.data, "[[[0]],[[0],[1]],[[0],[1],[2]],{\"a\":{},\"z\":[]}]");
    /* the builder is reusable after finish */
    CHECK_OK(fl_vb_scalar(&b, int_scalar(&s, 5), &err), &err);
    fl_buf_reset(&var);
    CHECK_OK(fl_vb_finish(&b, &var, &err), &err);
    to_json(var.bytes, var.len, &json);
    CHECK_EQ_STR(json.data, "5");
    CHECK_EQ_INT(var.len, 3 + 9); /* 01 00 00, then an int64 */
    fl_vb_free(&b);
    fl_buf_free(&var);
    fl_buf_free(&json);
}

/* Metadata and value into separate buffers, as Parquet's two columns. */
static void test_finish_split(void)
{
    fl_variant_builder b;
    fl_buf meta = {0}, value = {0}, json = {0};
    fl_error err;
    fl_variant_scalar s;
    fl_vb_init(&b);
    CHECK_OK(fl_vb_begin_object(&b, &err), &err);
    CHECK_OK(fl_vb_key(&b, "n", 1, &err), &err);
    CHECK_OK(fl_vb_scalar(&b, int_scalar(&s, -2), &err), &err);
    CHECK_OK(fl_vb_end_object(&b, &err), &err);
    CHECK_OK(fl_vb_finish_split(&b, &meta, &value, &err), &err);
    fl_variant_meta m;
    CHECK_OK(fl_variant_meta_open(meta.bytes, meta.len, &m, &err), &err);
    CHECK_EQ_INT(m.len, meta.len);
    CHECK(m.sorted && m.nkeys == 1);
    fl_variant v = {.meta = &m, .p = value.bytes, .len = value.len};
    CHECK_OK(fl_variant_validate(&v, &err), &err);
    CHECK_OK(fl_variant_to_json(&v, &json, &err), &err);
    CHECK_EQ_STR(json.data, "{\"n\":-2}");
    /* 02 01 00 00 09, then the int64 */
    CHECK_EQ_INT(value.len, 5 + 9);
    CHECK(value.bytes[0] == 0x02 && value.bytes[1] == 1 && value.bytes[4] == 9);
    fl_vb_free(&b);
    fl_buf_free(&meta);
    fl_buf_free(&value);
    fl_buf_free(&json);
}

static void test_builder_misuse(void)
{
    fl_variant_builder b;
    fl_buf var = {0};
    fl_error err;
    fl_variant_scalar s;
    fl_vb_init(&b);
    CHECK_EQ_INT(fl_vb_finish(&b, &var, &err), FL_EINVAL);
    CHECK_EQ_STR(err.msg, "variant builder: no value was added");
    CHECK_EQ_INT(fl_vb_key(&b, "a", 1, &err), FL_EINVAL);
    CHECK_OK(fl_vb_begin_object(&b, &err), &err);
    CHECK_EQ_INT(fl_vb_scalar(&b, int_scalar(&s, 1), &err), FL_EINVAL);
    CHECK_EQ_STR(err.msg, "variant builder: a value in an object needs a key first");
    CHECK_OK(fl_vb_key(&b, "a", 1, &err), &err);
    CHECK_EQ_INT(fl_vb_key(&b, "b", 1, &err), FL_EINVAL);
    CHECK_EQ_INT(fl_vb_end_object(&b, &err), FL_EINVAL);
    CHECK_EQ_INT(fl_vb_end_array(&b, &err), FL_EINVAL);
    CHECK_OK(fl_vb_scalar(&b, int_scalar(&s, 1), &err), &err);
    CHECK_EQ_INT(fl_vb_finish(&b, &var, &err), FL_EINVAL);
    CHECK_EQ_STR(err.msg, "variant builder: 1 containers still open");
    CHECK_EQ_INT(fl_vb_key(&b, "\xff", 1, &err), FL_EINVAL);
    CHECK_OK(fl_vb_key(&b, "b", 1, &err), &err);
    CHECK_OK(fl_vb_scalar(&b, int_scalar(&s, 2), &err), &err);
    CHECK_OK(fl_vb_key(&b, "a", 1, &err), &err);
    CHECK_OK(fl_vb_scalar(&b, int_scalar(&s, 3), &err), &err);
    CHECK_EQ_INT(fl_vb_end_object(&b, &err), FL_EINVAL);
    CHECK_EQ_STR(err.msg, "variant builder: duplicate key 'a' in an object");
    fl_vb_reset(&b);
    CHECK_OK(fl_vb_scalar(&b, int_scalar(&s, 1), &err), &err);
    CHECK_EQ_INT(fl_vb_scalar(&b, int_scalar(&s, 1), &err), FL_EINVAL);
    CHECK_EQ_STR(err.msg, "variant builder: a second top-level value");
    fl_vb_reset(&b);
    s.kind = FL_VK_INT8;
    s.v.i = 300;
    CHECK_EQ_INT(fl_vb_scalar(&b, &s, &err), FL_EINVAL);
    s.kind = FL_VK_DECIMAL4;
    s.v.dec = 1;
    s.scale = 39;
    CHECK_EQ_INT(fl_vb_scalar(&b, &s, &err), FL_EINVAL);
    s.kind = FL_VK_OBJECT;
    CHECK_EQ_INT(fl_vb_scalar(&b, &s, &err), FL_EINVAL);
    s.kind = FL_VK_STRING;
    s.v.bytes = (const uint8_t *)"\xc3";
    s.len = 1;
    CHECK_EQ_INT(fl_vb_scalar(&b, &s, &err), FL_EINVAL);
    for (int i = 0; i < FL_VARIANT_MAX_DEPTH; i++)
        CHECK_OK(fl_vb_begin_array(&b, &err), &err);
    CHECK_EQ_INT(fl_vb_begin_array(&b, &err), FL_ELIMIT);
    fl_vb_free(&b);
    fl_buf_free(&var);
}

static void test_sorted_metadata(void)
{
    fl_buf var = {0};
    fl_error err;
    fl_variant_meta m;
    from_json("{\"a\":1,\"b\":{\"c\":2}}", &var);
    CHECK_OK(fl_variant_meta_open(var.bytes, var.len, &m, &err), &err);
    CHECK(m.sorted);
    CHECK_EQ_INT(m.nkeys, 3);
    uint32_t id = 9;
    CHECK(fl_variant_meta_find(&m, "c", 1, &id) && id == 2);
    CHECK(!fl_variant_meta_find(&m, "d", 1, &id));
    from_json("{\"b\":1,\"a\":2}", &var);
    CHECK_OK(fl_variant_meta_open(var.bytes, var.len, &m, &err), &err);
    CHECK(!m.sorted);
    CHECK(fl_variant_meta_find(&m, "a", 1, &id) && id == 1);
    const char *k;
    size_t kl;
    CHECK(fl_variant_meta_key(&m, 0, &k, &kl) && kl == 1 && k[0] == 'b');
    CHECK(!fl_variant_meta_key(&m, 2, &k, &kl));
    fl_buf_free(&var);
}

static void test_seed_and_copy(void)
{
    fl_buf a = {0}, c = {0}, out = {0}, json = {0};
    fl_error err;
    from_json("{\"x\":[1,{\"y\":\"why\"}],\"w\":null}", &a);
    from_json("{\"y\":{\"q\":1.5},\"p\":[true]}", &c);
    fl_variant_meta ma, mc;
    fl_variant va, vc;
    CHECK_OK(fl_variant_open(a.bytes, a.len, &ma, &va, &err), &err);
    CHECK_OK(fl_variant_open(c.bytes, c.len, &mc, &vc, &err), &err);
    fl_variant_builder b;
    fl_vb_init(&b);
    CHECK_OK(fl_vb_seed_meta(&b, &ma, &err), &err);
    CHECK_OK(fl_vb_begin_object(&b, &err), &err);
    CHECK_OK(fl_vb_key(&b, "raw", 3, &err), &err);
    CHECK_OK(fl_vb_copy(&b, &va, &err), &err); /* same dictionary: raw */
    CHECK_OK(fl_vb_key(&b, "renum", 5, &err), &err);
    CHECK_OK(fl_vb_copy(&b, &vc, &err), &err); /* other dictionary: renumbered */
    CHECK_OK(fl_vb_key(&b, "list", 4, &err), &err);
    CHECK_OK(fl_vb_begin_array(&b, &err), &err);
    CHECK_OK(fl_vb_copy(&b, &vc, &err), &err);
    CHECK_OK(fl_vb_copy(&b, &va, &err), &err);
    CHECK_OK(fl_vb_end_array(&b, &err), &err);
    CHECK_OK(fl_vb_end_object(&b, &err), &err);
    CHECK_OK(fl_vb_finish(&b, &out, &err), &err);
    CHECK_OK(fl_variant_check(out.bytes, out.len, &err), &err);
    to_json(out.bytes, out.len, &json);
    CHECK_EQ_STR(json.data,
                 "{\"list\":[{\"p\":[true],\"y\":{\"q\":1.5}},{\"w\":null,\"x\":[1,{\"y\":"
                 "\"why\"}]}],\"raw\":{\"w\":null,\"x\":[1,{\"y\":\"why\"}]},\"renum\":{"
                 "\"p\":[true],\"y\":{\"q\":1.5}}}");
    /* the seeded keys kept their ids, and the raw copy is byte for byte */
    fl_variant_meta mo;
    CHECK_OK(fl_variant_meta_open(out.bytes, out.len, &mo, &err), &err);
    for (uint32_t i = 0; i < ma.nkeys; i++) {
        const char *k1 = NULL, *k2 = NULL;
        size_t l1 = 0, l2 = 0;
        CHECK(fl_variant_meta_key(&ma, i, &k1, &l1) && fl_variant_meta_key(&mo, i, &k2, &l2));
        CHECK(l1 == l2 && memcmp(k1, k2, l1) == 0);
    }
    bool raw = false;
    for (size_t i = mo.len; i + va.len <= out.len && !raw; i++)
        raw = memcmp(out.bytes + i, va.p, va.len) == 0;
    CHECK(raw);
    /* equal across dictionaries */
    fl_variant vo, f;
    bool found = false, eq = false;
    vo.meta = &mo;
    vo.p = out.bytes + mo.len;
    vo.len = out.len - mo.len;
    CHECK_OK(fl_variant_object_find(&vo, "renum", 5, &found, &f, &err), &err);
    CHECK(found);
    CHECK_OK(fl_variant_equal(&f, &vc, &eq, &err), &err);
    CHECK(eq);
    CHECK_OK(fl_variant_equal(&f, &va, &eq, &err), &err);
    CHECK(!eq);
    /* seeding after keys were added is refused */
    CHECK_OK(fl_vb_begin_object(&b, &err), &err);
    CHECK_EQ_INT(fl_vb_seed_meta(&b, &ma, &err), FL_EINVAL);
    /* a copy that would nest too deeply */
    fl_vb_reset(&b);
    for (int i = 0; i < FL_VARIANT_MAX_DEPTH - 1; i++)
        CHECK_OK(fl_vb_begin_array(&b, &err), &err);
    CHECK_EQ_INT(fl_vb_copy(&b, &va, &err), FL_ELIMIT);
    fl_vb_free(&b);
    fl_buf_free(&a);
    fl_buf_free(&c);
    fl_buf_free(&out);
    fl_buf_free(&json);
}

/* ---- equality ---- */

static bool equal_json(const char *x, const char *y)
{
    fl_buf a = {0}, b = {0};
    fl_error err;
    from_json(x, &a);
    from_json(y, &b);
    fl_variant_meta ma, mb;
    fl_variant va, vb;
    bool eq = false;
    CHECK_OK(fl_variant_open(a.bytes, a.len, &ma, &va, &err), &err);
    CHECK_OK(fl_variant_open(b.bytes, b.len, &mb, &vb, &err), &err);
    CHECK_OK(fl_variant_equal(&va, &vb, &eq, &err), &err);
    fl_buf_free(&a);
    fl_buf_free(&b);
    return eq;
}

static void test_equal(void)
{
    CHECK(equal_json("{\"a\":1,\"b\":[1,2]}", "{\"b\":[1,2],\"a\":1}"));
    /* different dictionaries: keys in another order, and extra keys */
    CHECK(equal_json("{\"z\":{\"k\":1},\"a\":2}", "[{\"a\":2,\"z\":{\"k\":1}},{\"m\":0}]") ==
          false);
    CHECK(equal_json("{\"z\":{\"k\":1},\"a\":2}", "{\"a\":2,\"z\":{\"k\":1}}"));
    CHECK(equal_json("1", "1"));
    CHECK(!equal_json("1", "2"));
    CHECK(!equal_json("1.5", "1.50"));
    CHECK(equal_json("1.50", "1.50"));
    CHECK(!equal_json("1", "1.0"));
    CHECK(!equal_json("\"1\"", "1"));
    CHECK(!equal_json("[1]", "{\"a\":1}"));
    CHECK(!equal_json("{\"a\":1}", "{\"b\":1}"));
    CHECK(!equal_json("[1,2]", "[1]"));
    CHECK(equal_json("1e0", "1.0e0"));
    /* int8 1 == int64 1; a long string == a short one; different dictionaries */
    static const uint8_t i8[] = {0x01, 0x00, 0x00, 0x0c, 0x01};
    static const uint8_t i64[] = {0x01, 0x00, 0x00, 0x18, 1, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t dec[] = {0x01, 0x00, 0x00, 0x20, 0x00, 1, 0, 0, 0};
    static const uint8_t shortstr[] = {0x01, 0x00, 0x00, 0x0d, 'a', 'b', 'c'};
    static const uint8_t longstr[] = {0x01, 0x00, 0x00, 0x40, 3, 0, 0, 0, 'a', 'b', 'c'};
    /* {"k": 1} with the dictionary ["zz", "k"], not sorted */
    static const uint8_t obj1[] = {0x01, 0x02, 0x00, 0x02, 0x03, 'z',  'z', 'k',
                                   0x02, 0x01, 0x01, 0x00, 0x02, 0x0c, 0x01};
    /* {"k": 1} with the dictionary ["k"], sorted */
    static const uint8_t obj2[] = {0x11, 0x01, 0x00, 0x01, 'k', 0x02, 0x01, 0x00, 0x00, 0x09,
                                   0x18, 1,    0,    0,    0,   0,    0,    0,    0};
    const uint8_t *vs[] = {i8, i64, dec, shortstr, longstr, obj1, obj2};
    size_t ns[] = {sizeof i8,      sizeof i64,  sizeof dec, sizeof shortstr,
                   sizeof longstr, sizeof obj1, sizeof obj2};
    fl_variant_meta m[7];
    fl_variant v[7];
    fl_error err;
    for (int i = 0; i < 7; i++) {
        CHECK_OK(fl_variant_open(vs[i], ns[i], &m[i], &v[i], &err), &err);
        CHECK_OK(fl_variant_validate(&v[i], &err), &err);
    }
    static const int same[7][7] = {
        {1, 1, 1, 0, 0, 0, 0}, {1, 1, 1, 0, 0, 0, 0}, {1, 1, 1, 0, 0, 0, 0}, {0, 0, 0, 1, 1, 0, 0},
        {0, 0, 0, 1, 1, 0, 0}, {0, 0, 0, 0, 0, 1, 1}, {0, 0, 0, 0, 0, 1, 1}};
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 7; j++) {
            bool eq = !same[i][j];
            CHECK_OK(fl_variant_equal(&v[i], &v[j], &eq, &err), &err);
            if (eq != (bool)same[i][j])
                fprintf(stderr, "  equal(%d, %d) = %d\n", i, j, eq);
            CHECK(eq == (bool)same[i][j]);
        }
}

/* ---- corrupt input ---- */

static void expect_corrupt(const uint8_t *p, size_t n, fl_status code, const char *msg)
{
    fl_error err;
    fl_error_clear(&err);
    CHECK_EQ_INT(fl_variant_check(p, n, &err), code);
    CHECK(strstr(err.msg, msg) != NULL);
    if (!strstr(err.msg, msg))
        fprintf(stderr, "  message: %s (wanted %s)\n", err.msg, msg);
}

#define CORRUPT(arr, code, msg) expect_corrupt(arr, sizeof arr, code, msg)

static void test_corrupt_messages(void)
{
    static const uint8_t v2[] = {0x02, 0x00, 0x00, 0x00};
    CORRUPT(v2, FL_ECORRUPT, "variant metadata: offset 0: version 2 (only 1 is supported)");
    static const uint8_t noff[] = {0x01, 0x05, 0x00};
    CORRUPT(noff, FL_ECORRUPT, "variant metadata: offset 2: 6 key offsets do not fit in 3 bytes");
    static const uint8_t back[] = {0x01, 0x02, 0x00, 0x02, 0x01, 'a', 'b', 0x00};
    CORRUPT(back, FL_ECORRUPT, "variant metadata: offset 4: key offset 1 is before the previous");
    static const uint8_t keys_past[] = {0x01, 0x01, 0x00, 0x09, 'a'};
    CORRUPT(keys_past, FL_ECORRUPT, "variant metadata: offset 4: key bytes end at 13");
    static const uint8_t empty_v[] = {0x01, 0x00, 0x00};
    CORRUPT(empty_v, FL_ECORRUPT, "variant value: offset 0: empty value");
    static const uint8_t unk[] = {0x01, 0x00, 0x00, 21 << 2};
    CORRUPT(unk, FL_ECORRUPT, "variant value: offset 0: unknown primitive type 21");
    static const uint8_t trail[] = {0x01, 0x00, 0x00, 0x00, 0x00};
    CORRUPT(trail, FL_ECORRUPT, "variant value: offset 1: 1 bytes follow a 1-byte value");
    static const uint8_t badid[] = {0x01, 0x00, 0x00, 0x02, 0x01, 0x00, 0x00, 0x01, 0x00};
    CORRUPT(badid, FL_ECORRUPT,
            "variant value: offset 2: field 0's key id 0 is not in the dictionary (0 keys)");
    /* ["b", "a"] in the wrong order */
    static const uint8_t order[] = {0x01, 0x02, 0x00, 0x01, 0x02, 'b',  'a',  0x02,
                                    0x02, 0x00, 0x01, 0x00, 0x01, 0x02, 0x00, 0x00};
    CORRUPT(order, FL_ECORRUPT, "variant value: offset 3: field 1's key 'a' is not after");
    /* a dictionary marked sorted that is not (DuckDB 1.5 writes them) reads,
     * and a key lookup does not trust the flag */
    static const uint8_t sorted_lie[] = {0x11, 0x02, 0x00, 0x01, 0x02, 'b', 'a', 0x00};
    fl_error lie_err = {0};
    CHECK_OK(fl_variant_check(sorted_lie, sizeof sorted_lie, &lie_err), &lie_err);
    fl_variant_meta lie;
    uint32_t lie_id = 9;
    CHECK_OK(fl_variant_meta_open(sorted_lie, sizeof sorted_lie, &lie, &lie_err), &lie_err);
    CHECK(fl_variant_meta_find(&lie, "a", 1, &lie_id) && lie_id == 1);
    CHECK(fl_variant_meta_find(&lie, "b", 1, &lie_id) && lie_id == 0);
    CHECK(!fl_variant_meta_find(&lie, "c", 1, &lie_id));
    static const uint8_t badutf[] = {0x01, 0x00, 0x00, 0x09, 'a', 0xfe};
    CORRUPT(badutf, FL_ECORRUPT, "variant value: offset 2: string is not valid UTF-8");
    static const uint8_t badkey[] = {0x01, 0x01, 0x00, 0x01, 0xc3, 0x00};
    CORRUPT(badkey, FL_ECORRUPT, "variant metadata: offset 4: key 0 is not valid UTF-8");
    static const uint8_t scale[] = {0x01, 0x00, 0x00, 0x20, 39, 0, 0, 0, 0};
    CORRUPT(scale, FL_ECORRUPT, "variant value: offset 1: decimal scale 39 exceeds 38");
    static const uint8_t longlen[] = {0x01, 0x00, 0x00, 0x40, 0xff, 0xff, 0xff, 0xff, 'a'};
    CORRUPT(longlen, FL_ECORRUPT, "variant value: offset 0: string needs 4294967300 bytes, 6 left");
    /* an array whose element offset points past its data */
    static const uint8_t arr[] = {0x01, 0x00, 0x00, 0x03, 0x01, 0x05, 0x01, 0x00};
    CORRUPT(arr, FL_ECORRUPT, "variant value: offset 2: element 0's offset 5 is not before");
    static const uint8_t huge[] = {0x01, 0x00, 0x00, 0x13, 0xff, 0xff, 0xff, 0xff, 0x00};
    CORRUPT(huge, FL_ECORRUPT, "variant value: offset 0: array of 4294967295 elements needs a");
}

/* d nested one-element arrays (2-byte offsets) around a null, as a floe
 * variant with an empty dictionary; *len its bytes. */
static uint8_t *deep_arrays(int d, size_t *len)
{
    size_t n = 3 + (size_t)d * 6 + 1;
    uint8_t *p = malloc(n);
    if (!p)
        return NULL;
    p[0] = 0x01, p[1] = 0x00, p[2] = 0x00;
    for (int i = 0; i < d; i++) {
        uint8_t *q = p + 3 + (size_t)i * 6;
        size_t rest = (size_t)(d - i - 1) * 6 + 1;
        q[0] = 0x03 | 1 << 2, q[1] = 1, q[2] = 0, q[3] = 0;
        q[4] = (uint8_t)rest, q[5] = (uint8_t)(rest >> 8);
    }
    p[n - 1] = 0x00;
    *len = n;
    return p;
}

static void test_corrupt_depth(void)
{
    size_t n;
    uint8_t *p = deep_arrays(129, &n);
    if (!p)
        return;
    expect_corrupt(p, n, FL_ELIMIT, "variant value: offset 768: nested deeper than 128");
    free(p);
    p = deep_arrays(128, &n);
    if (!p)
        return;
    fl_error err;
    fl_buf json = {0};
    CHECK_OK(fl_variant_check(p, n, &err), &err);
    to_json(p, n, &json);
    CHECK_EQ_INT(json.len, 128 * 2 + 4);
    free(p);
    fl_buf_free(&json);
}

/* Every truncation fails cleanly; every single-byte change never crashes. */
static void mangle(const uint8_t *p, size_t n)
{
    fl_error err;
    uint8_t *q = malloc(n + 1);
    for (size_t l = 0; l < n; l++) {
        memcpy(q, p, l);
        CHECK(fl_variant_check(q, l, &err) != FL_OK);
        fl_variant_meta m;
        if (fl_variant_meta_open(p, n, &m, &err) == FL_OK && l >= m.len) {
            fl_variant v = {.meta = &m, .p = q + m.len, .len = l - m.len};
            CHECK(fl_variant_validate(&v, &err) != FL_OK);
        }
    }
    static const uint8_t xs[] = {0x00, 0x01, 0x02, 0x03, 0x7f, 0x80, 0xff, 0x40, 0x13};
    for (size_t i = 0; i < n; i++) {
        for (size_t x = 0; x < sizeof xs; x++) {
            memcpy(q, p, n);
            q[i] = xs[x];
            if (fl_variant_check(q, n, &err) != FL_OK)
                continue;
            fl_buf json = {0}, back = {0};
            fl_variant_meta m;
            fl_variant v;
            CHECK_OK(fl_variant_open(q, n, &m, &v, &err), &err);
            CHECK_OK(fl_variant_to_json(&v, &json, &err), &err);
            if (json.data) {
                CHECK_OK(fl_variant_from_json(json.data, json.len, &back, &err), &err);
                CHECK_OK(fl_variant_check(back.bytes, back.len, &err), &err);
            }
            fl_buf_free(&json);
            fl_buf_free(&back);
        }
    }
    free(q);
}

static void test_truncations(void)
{
    static const char *docs[] = {
        "{\"a\":[1,2.5,\"s\",null,true],\"bb\":{\"c\":-1234567890123,\"d\":1e10}}",
        "[[],[[]],{},\"a string that is longer than sixty-four bytes........................\"]",
        "\"short\"",
        "12345678901234567890.123",
    };
    fl_buf var = {0};
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        from_json(docs[i], &var);
        mangle(var.bytes, var.len);
    }
    /* the fixtures' pairs too */
    const char *shared = test_shared_dir();
    static const char *names[] = {"array_nested",   "object_primitive", "primitive_decimal8",
                                  "primitive_uuid", "primitive_binary", "long_string"};
    for (size_t i = 0; shared && i < sizeof names / sizeof names[0]; i++) {
        char path[4096];
        size_t mn = 0, vn = 0;
        snprintf(path, sizeof path, "%s/fixtures/parquet-testing/variant/%s.metadata", shared,
                 names[i]);
        uint8_t *mb = read_all(path, &mn);
        snprintf(path, sizeof path, "%s/fixtures/parquet-testing/variant/%s.value", shared,
                 names[i]);
        uint8_t *vb = read_all(path, &vn);
        if (mb && vb) {
            fl_buf_reset(&var);
            fl_error err;
            CHECK_OK(fl_buf_append(&var, mb, mn, &err), &err);
            CHECK_OK(fl_buf_append(&var, vb, vn, &err), &err);
            mangle(var.bytes, var.len);
        }
        free(mb);
        free(vb);
    }
    fl_buf_free(&var);
}

/* ---- paths ---- */

static void expect_path(const fl_variant *v, const char *path, const char *want)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_variant_path p;
    fl_error err;
    bool found = false;
    fl_variant out;
    CHECK_OK(fl_variant_path_parse(&a, path, strlen(path), &p, &err), &err);
    CHECK_OK(fl_variant_path_get(v, &p, &found, &out, &err), &err);
    if (!want) {
        CHECK(!found);
    } else {
        fl_buf json = {0};
        CHECK(found);
        if (found)
            CHECK_OK(fl_variant_to_json(&out, &json, &err), &err);
        CHECK_EQ_STR(json.data ? json.data : "", want);
        fl_buf_free(&json);
    }
    fl_arena_free(&a);
}

static void expect_path_error(const char *path, const char *msg)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_variant_path p;
    fl_error err;
    CHECK_EQ_INT(fl_variant_path_parse(&a, path, strlen(path), &p, &err), FL_ESYNTAX);
    CHECK_EQ_STR(err.msg, msg);
    fl_arena_free(&a);
}

static void test_paths(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_variant_path p;
    fl_error err;
    const char *s = "$.a['b.c'][\"q\\\"x\\\\\"][12]";
    CHECK_OK(fl_variant_path_parse(&a, s, strlen(s), &p, &err), &err);
    CHECK_EQ_INT(p.nsteps, 4);
    CHECK(!p.steps[0].is_index && p.steps[0].klen == 1 && p.steps[0].key[0] == 'a');
    CHECK(p.steps[1].klen == 3 && memcmp(p.steps[1].key, "b.c", 3) == 0);
    CHECK(p.steps[2].klen == 4 && memcmp(p.steps[2].key, "q\"x\\", 4) == 0);
    CHECK(p.steps[3].is_index && p.steps[3].index == 12);
    CHECK_OK(fl_variant_path_parse(&a, "$", 1, &p, &err), &err);
    CHECK_EQ_INT(p.nsteps, 0);
    CHECK_OK(fl_variant_path_parse(&a, "a.b", 3, &p, &err), &err);
    CHECK_EQ_INT(p.nsteps, 2);
    CHECK(p.steps[1].klen == 1 && p.steps[1].key[0] == 'b');
    CHECK_OK(fl_variant_path_parse(&a, "[2].x", 5, &p, &err), &err);
    CHECK(p.nsteps == 2 && p.steps[0].is_index && p.steps[0].index == 2);
    CHECK_OK(fl_variant_path_parse(&a, "$[4294967295]", 13, &p, &err), &err);
    CHECK(p.steps[0].index == UINT32_MAX);
    fl_arena_free(&a);

    expect_path_error("$.", "variant path: position 2: expected a key after '.'");
    expect_path_error("$[", "variant path: position 2: expected an index, or a quoted key, "
                            "after '['");
    expect_path_error("$[x]", "variant path: position 2: expected an index, or a quoted key, "
                              "after '['");
    expect_path_error("$['a'", "variant path: position 5: expected ']' after a quoted key");
    expect_path_error("$['a", "variant path: position 1: unterminated quoted key");
    expect_path_error("$[1", "variant path: position 3: expected ']' after an index");
    expect_path_error("$[4294967296]", "variant path: position 2: array index too large");
    expect_path_error("$x", "variant path: position 1: expected '.' or '['");
    expect_path_error("", "variant path: position 0: expected a key after '.'");
    expect_path_error("a..b", "variant path: position 2: expected a key after '.'");

    fl_buf var = {0};
    from_json("{\"a\":{\"b.c\":[10,[20,21],{\"d\":\"e\"}]},\"x\":1,\"\xc3\xa9\":2}", &var);
    fl_variant_meta m;
    fl_variant v;
    CHECK_OK(fl_variant_open(var.bytes, var.len, &m, &v, &err), &err);
    expect_path(&v, "$", "{\"a\":{\"b.c\":[10,[20,21],{\"d\":\"e\"}]},\"x\":1,\"\xc3\xa9\":2}");
    expect_path(&v, "$.x", "1");
    expect_path(&v, "x", "1");
    expect_path(&v, "$.\xc3\xa9", "2");
    expect_path(&v, "$.a['b.c'][1][0]", "20");
    expect_path(&v, "a[\"b.c\"][2].d", "\"e\"");
    expect_path(&v, "$.a['b.c'][3]", NULL); /* past the end */
    expect_path(&v, "$.a.b", NULL);         /* absent key */
    expect_path(&v, "$[0]", NULL);          /* index into an object */
    expect_path(&v, "$.a['b.c'].k", NULL);  /* key into an array */
    expect_path(&v, "$.x.y", NULL);         /* into a primitive */
    expect_path(&v, "$.a['b.c'][0][0]", NULL);
    fl_buf_free(&var);
}

/* fuzz/seeds/fuzz_variant and fuzz/regress/variant through the fuzz target
 * (a broken property traps), plus every cut of each input. */
static void replay_dir(const char *dir, int *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4608];
        size_t n = 0;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        uint8_t *p = read_all(path, &n);
        for (size_t l = 0; p && l <= n; l++)
            LLVMFuzzerTestOneInput(p, l);
        free(p);
        (*count)++;
    }
    closedir(d);
}

static void test_fuzz_replay(void)
{
    const char *src = getenv("FLOE_SRC");
    if (!src) {
        fprintf(stderr, "  skipped: FLOE_SRC unset\n");
        return;
    }
    char dir[4096];
    int count = 0;
    snprintf(dir, sizeof dir, "%s/fuzz/seeds/fuzz_variant", src);
    replay_dir(dir, &count);
    snprintf(dir, sizeof dir, "%s/fuzz/regress/variant", src);
    replay_dir(dir, &count);
    CHECK(count > 0);
    fprintf(stderr, "  %d fuzz inputs replayed\n", count);
}

static void test_kind_names(void)
{
    CHECK_EQ_STR(fl_variant_kind_name(FL_VK_NULL), "null");
    CHECK_EQ_STR(fl_variant_kind_name(FL_VK_TRUE), "boolean");
    CHECK_EQ_STR(fl_variant_kind_name(FL_VK_FALSE), "boolean");
    CHECK_EQ_STR(fl_variant_kind_name(FL_VK_DECIMAL16), "decimal16");
    CHECK_EQ_STR(fl_variant_kind_name(FL_VK_TIMESTAMP_NTZ_NS), "timestamp_ntz_nanos");
    CHECK_EQ_STR(fl_variant_kind_name(FL_VK_UUID), "uuid");
    CHECK_EQ_STR(fl_variant_kind_name(FL_VK_OBJECT), "object");
    CHECK_EQ_STR(fl_variant_kind_name(FL_VK_ARRAY), "array");
    CHECK_EQ_STR(fl_variant_kind_name((fl_variant_kind)25), "unknown");
}

int main(void)
{
    TEST_RUN(test_kind_names);
    TEST_RUN(test_fixtures);
    TEST_RUN(test_json_round_trips);
    TEST_RUN(test_json_number_kinds);
    TEST_RUN(test_json_errors);
    TEST_RUN(test_to_json_kinds);
    TEST_RUN(test_large_object);
    TEST_RUN(test_offset_widths);
    TEST_RUN(test_nested_arrays);
    TEST_RUN(test_finish_split);
    TEST_RUN(test_builder_misuse);
    TEST_RUN(test_sorted_metadata);
    TEST_RUN(test_seed_and_copy);
    TEST_RUN(test_equal);
    TEST_RUN(test_corrupt_messages);
    TEST_RUN(test_corrupt_depth);
    TEST_RUN(test_truncations);
    TEST_RUN(test_paths);
    TEST_RUN(test_fuzz_replay);
    return TEST_EXIT();
}
