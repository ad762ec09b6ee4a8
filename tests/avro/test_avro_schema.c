/*
 * test_avro_schema.c - schema parsing, attribute-preserving write-back,
 * Parsing Canonical Form + CRC-64-AVRO fingerprints (Avro's
 * share/test/data/schema-tests.txt cases), logical types, errors.
 */
#include <ftw.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "avro/avro_internal.h"
#include "floe/avro.h"
#include "floe/io.h"
#include "floe_test.h"

static const char *shared;

/* Same JSON value with object keys in the same order, recursively. */
static bool same_ordered(json_t *a, json_t *b)
{
    if (!json_equal(a, b))
        return false;
    if (json_is_object(a)) {
        void *ia = json_object_iter(a), *ib = json_object_iter(b);
        for (; ia && ib; ia = json_object_iter_next(a, ia), ib = json_object_iter_next(b, ib)) {
            if (strcmp(json_object_iter_key(ia), json_object_iter_key(ib)))
                return false;
            if (!same_ordered(json_object_iter_value(ia), json_object_iter_value(ib)))
                return false;
        }
        return !ia && !ib;
    }
    if (json_is_array(a))
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!same_ordered(json_array_get(a, i), json_array_get(b, i)))
                return false;
    return true;
}

/* Parses text, writes it back, checks the result is the same JSON (keys in
 * the same order) and that writing is idempotent. */
static void check_roundtrip(const char *text, size_t len, const char *what)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_avro_schema *s;
    CHECK_OK(fl_avro_schema_parse(&a, text, len, &s, &err), &err);
    if (err.code) {
        fprintf(stderr, "  in %s\n", what);
        fl_arena_free(&a);
        return;
    }
    char *out = fl_avro_schema_to_json(&a, s);
    CHECK(out != NULL);
    json_t *orig = json_loadb(text, len, JSON_DECODE_ANY, NULL);
    json_t *back = out ? json_loads(out, JSON_DECODE_ANY, NULL) : NULL;
    CHECK(orig && back);
    if (orig && back && !same_ordered(orig, back)) {
        CHECK(!"schema round trip differs");
        fprintf(stderr, "  %s\n  in:  %.*s\n  out: %.400s\n", what, (int)(len > 400 ? 400 : len),
                text, out);
    }
    fl_avro_schema *s2;
    CHECK_OK(fl_avro_schema_parse(&a, out, strlen(out), &s2, &err), &err);
    char *out2 = fl_avro_schema_to_json(&a, s2);
    CHECK_EQ_STR(out, out2);
    json_decref(orig);
    json_decref(back);
    fl_arena_free(&a);
}

/* schema-tests.txt: "// NNN" case headers, "<<INPUT text" or "<<INPUT\n...\nINPUT",
 * "<<canonical text", "<<fingerprint signed-decimal". */
static void test_canonical_cases(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/fixtures/avro/apache-avro/share-test-data/schema-tests.txt",
             shared);
    char *text = ft_slurp(path, NULL);
    CHECK(text != NULL);
    if (!text)
        return;
    int ncases = 0, nfp = 0;
    char *input = NULL, *canon = NULL;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(line, "<<INPUT", 7)) {
            free(input);
            if (line[7] == ' ') {
                input = strdup(line + 8);
            } else { /* heredoc until a line "INPUT" */
                fl_avro_buf b = {0};
                for (line = strtok_r(NULL, "\n", &save); line && strcmp(line, "INPUT");
                     line = strtok_r(NULL, "\n", &save)) {
                    avro_buf_puts(&b, line);
                    avro_buf_putc(&b, '\n');
                }
                avro_buf_putc(&b, 0);
                input = (char *)b.data;
            }
        } else if (!strncmp(line, "<<canonical ", 12) && input) {
            fl_arena a;
            fl_arena_init(&a, 0);
            fl_error err = {0};
            fl_avro_schema *s;
            CHECK_OK(fl_avro_schema_parse(&a, input, strlen(input), &s, &err), &err);
            free(canon);
            canon = err.code ? NULL : fl_avro_schema_canonical(&a, s);
            if (canon)
                canon = strdup(canon);
            CHECK_EQ_STR(canon, line + 12);
            if (!err.code)
                check_roundtrip(input, strlen(input), input);
            ncases++;
            fl_arena_free(&a);
        } else if (!strncmp(line, "<<fingerprint ", 14) && canon) {
            long long want = strtoll(line + 14, NULL, 10);
            long long got = (long long)fl_avro_crc64(canon, strlen(canon));
            CHECK_EQ_INT(got, want);
            nfp++;
        }
    }
    free(input);
    free(canon);
    free(text);
    CHECK(ncases >= 20);
    fprintf(stderr, "  %d canonical forms, %d fingerprints\n", ncases, nfp);
}

static void test_iceberg_attributes(void)
{
    char path[4096];
    snprintf(path, sizeof path,
             "%s/fixtures/iceberg/metadata-only/iceberg-rust/avro_schema_manifest_entry.json",
             shared);
    size_t len;
    char *text = ft_slurp(path, &len);
    CHECK(text != NULL);
    if (!text)
        return;
    check_roundtrip(text, len, path);
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_avro_schema *s;
    CHECK_OK(fl_avro_schema_parse(&a, text, len, &s, &err), &err);
    CHECK_EQ_INT(s->type, FL_AVRO_RECORD);
    CHECK_EQ_STR(s->fields[0].name, "status");
    CHECK(s->fields[0].has_field_id && s->fields[0].field_id == 0);
    const fl_avro_schema *df = s->fields[2].type;
    CHECK_EQ_STR(df->name, "r2");
    CHECK_EQ_INT(df->fields[0].field_id, 100);
    /* find a map-as-array with element-id / key-id / value-id */
    bool found_elem = false;
    for (uint32_t i = 0; i < df->nfields; i++) {
        const fl_avro_schema *t = df->fields[i].type;
        if (t->type == FL_AVRO_UNION)
            t = t->branches[t->nbranches - 1];
        if (t->type == FL_AVRO_ARRAY && t->element_id > 0)
            found_elem = true;
    }
    CHECK(found_elem);
    fl_arena_free(&a);
    free(text);
}

/* Every schema stored in an Iceberg fixture file round-trips. */
static int nschemas;
static int visit(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t n = strlen(p);
    if (type != FTW_F || n < 5 || strcmp(p + n - 5, ".avro"))
        return 0;
    fl_fileio *io = fl_fileio_local();
    fl_file *f = NULL;
    fl_avro_reader *r = NULL;
    fl_error err = {0};
    if (!fl_fileio_open(io, p, &f, &err) && !fl_avro_reader_open(f, NULL, &r, &err)) {
        size_t len;
        const char *json = fl_avro_reader_schema_json(r, &len);
        check_roundtrip(json, len, p);
        const fl_avro_meta *m = fl_avro_reader_meta_find(r, "schema");
        (void)m;
        nschemas++;
    }
    fl_avro_reader_close(r);
    fl_file_close(f);
    fl_fileio_destroy(io);
    return 0;
}

static void test_fixture_schemas(void)
{
    char root[4096];
    snprintf(root, sizeof root, "%s/fixtures/iceberg", shared);
    nftw(root, visit, 16, FTW_PHYS);
    snprintf(root, sizeof root, "%s/fixtures/avro", shared);
    nftw(root, visit, 16, FTW_PHYS);
    CHECK(nschemas > 60);
    fprintf(stderr, "  %d stored schemas round-tripped\n", nschemas);
}

static void test_attributes_kept(void)
{
    const char *text =
        "{\"type\":\"record\",\"name\":\"e\",\"namespace\":\"x.y\",\"doc\":\"d\",\"custom\":{\"a\":"
        "[1,2]},"
        "\"fields\":[{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"long\",\"key-id\":7,"
        "\"value-id\":8},\"field-id\":5,\"default\":{}},"
        "{\"name\":\"l\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"long\","
        "\"logicalType\":\"timestamp-micros\",\"adjust-to-utc\":true},\"element-id\":9}],"
        "\"default\":null,\"field-id\":6},"
        "{\"name\":\"d\",\"type\":{\"type\":\"fixed\",\"name\":\"dec\",\"size\":16,"
        "\"logicalType\":\"decimal\",\"precision\":38,\"scale\":10}},"
        "{\"name\":\"d2\",\"type\":\"dec\"},{\"name\":\"d3\",\"type\":\"x.y.dec\"},"
        "{\"name\":\"u\",\"type\":{\"type\":\"string\",\"logicalType\":\"uuid\"}},"
        "{\"name\":\"bad\",\"type\":{\"type\":\"int\",\"logicalType\":\"decimal\"}}]}";
    check_roundtrip(text, strlen(text), "inline");
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_avro_schema *s;
    CHECK_OK(fl_avro_schema_parse(&a, text, strlen(text), &s, &err), &err);
    CHECK_EQ_STR(s->fullname, "x.y.e");
    CHECK_EQ_INT(s->fields[0].type->key_id, 7);
    CHECK_EQ_INT(s->fields[0].type->value_id, 8);
    CHECK_EQ_STR(s->fields[0].default_json, "{}");
    const fl_avro_schema *arr = s->fields[1].type->branches[1];
    CHECK_EQ_INT(arr->element_id, 9);
    CHECK_EQ_INT(arr->items->logical, FL_AVRO_LOGICAL_TIMESTAMP_MICROS);
    const fl_avro_schema *dec = s->fields[2].type;
    CHECK_EQ_INT(dec->logical, FL_AVRO_LOGICAL_DECIMAL);
    CHECK_EQ_INT(dec->precision, 38);
    CHECK_EQ_INT(dec->scale, 10);
    CHECK(s->fields[3].type == dec && s->fields[4].type == dec); /* shared named node */
    CHECK_EQ_INT(s->fields[5].type->logical, FL_AVRO_LOGICAL_UUID);
    CHECK_EQ_INT(s->fields[6].type->logical, FL_AVRO_LOGICAL_OTHER); /* invalid: ignored */
    char *out = fl_avro_schema_to_json(&a, s);
    CHECK(strstr(out, "\"custom\":{\"a\":[1,2]}") != NULL);
    CHECK(strstr(out, "\"adjust-to-utc\":true") != NULL);
    fl_arena_free(&a);
}

static void expect_error(const char *text, fl_status code, const char *needle)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_avro_schema *s;
    fl_status rc = fl_avro_schema_parse(&a, text, strlen(text), &s, &err);
    CHECK_EQ_INT(rc, code);
    if (!strstr(err.msg, needle)) {
        CHECK(!"message lacks expected text");
        fprintf(stderr, "  want '%s' in '%s'\n", needle, err.msg);
    }
    fl_arena_free(&a);
}

static void test_errors(void)
{
    expect_error(
        "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\",\"type\":\"foo\"}]}",
        FL_ECORRUPT, "field 'a': unknown type 'foo'");
    expect_error("{\"type\":\"record\",\"fields\":[]}", FL_ECORRUPT, "without a \"name\"");
    expect_error(
        "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},"
        "{\"name\":\"a\",\"type\":\"int\"}]}",
        FL_ECORRUPT, "duplicate field 'a'");
    expect_error("[\"int\",[\"null\"]]", FL_ECORRUPT, "itself a union");
    expect_error("[\"int\",\"int\"]", FL_ECORRUPT, "two branches");
    expect_error("{\"type\":\"array\"", FL_ECORRUPT, "schema JSON");
    expect_error("{\"type\":\"fixed\",\"name\":\"f\",\"size\":-1}", FL_ECORRUPT, "size");
    expect_error("{\"type\":\"enum\",\"name\":\"e\",\"symbols\":[\"A\",\"A\"]}", FL_ECORRUPT,
                 "duplicate symbol");
    expect_error("42", FL_ECORRUPT, "must be a string");
    expect_error("{\"type\":\"fixed\",\"name\":\".\",\"size\":1}", FL_ECORRUPT,
                 "invalid type name");
    expect_error("{\"type\":\"fixed\",\"name\":\"a\",\"namespace\":\"x..y\",\"size\":1}",
                 FL_ECORRUPT, "invalid type name 'x..y.a'");
    /* deep nesting is bounded */
    fl_avro_buf b = {0};
    for (int i = 0; i < 400; i++)
        avro_buf_puts(&b, "{\"type\":\"array\",\"items\":");
    avro_buf_puts(&b, "\"int\"");
    for (int i = 0; i < 400; i++)
        avro_buf_putc(&b, '}');
    avro_buf_putc(&b, 0);
    expect_error((const char *)b.data, FL_ELIMIT, "deeper");
    fl_avro_buf_free(&b);
}

static void test_recursive(void)
{
    const char *text = "{\"type\":\"record\",\"name\":\"Node\",\"fields\":[{\"name\":\"label\","
                       "\"type\":\"string\"},{\"name\":\"children\",\"type\":{\"type\":\"array\","
                       "\"items\":\"Node\"}}]}";
    check_roundtrip(text, strlen(text), "recursive");
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_avro_schema *s;
    CHECK_OK(fl_avro_schema_parse(&a, text, strlen(text), &s, &err), &err);
    CHECK(s->fields[1].type->items == s);
    CHECK_EQ_STR(
        fl_avro_schema_canonical(&a, s),
        "{\"name\":\"Node\",\"type\":\"record\",\"fields\":[{\"name\":\"label\",\"type\":"
        "\"string\"},{\"name\":\"children\",\"type\":{\"type\":\"array\",\"items\":\"Node\"}}]}");
    fl_arena_free(&a);
}

static void test_single_object(void)
{
    char path[4096];
    size_t slen, mlen;
    snprintf(path, sizeof path,
             "%s/fixtures/avro/apache-avro/share-test-data/messageV1/test_schema.avsc", shared);
    char *schema = ft_slurp(path, &slen);
    snprintf(path, sizeof path,
             "%s/fixtures/avro/apache-avro/share-test-data/messageV1/test_message.bin", shared);
    char *msg = ft_slurp(path, &mlen);
    CHECK(schema && msg);
    if (!schema || !msg) {
        free(schema);
        free(msg);
        return;
    }
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_avro_schema *s;
    CHECK_OK(fl_avro_schema_parse(&a, schema, slen, &s, &err), &err);
    fl_avro_value v;
    CHECK_OK(fl_avro_single_object_decode(&a, s, (const uint8_t *)msg, mlen, &v, &err), &err);
    fl_avro_buf b = {0};
    CHECK_OK(fl_avro_value_to_json(&v, &b, &err), &err);
    avro_buf_putc(&b, 0);
    CHECK_EQ_STR((const char *)b.data,
                 "{\"id\":42,\"name\":\"Bill\",\"tags\":[\"dog_lover\",\"cat_hater\"]}");
    b.len = 0;
    CHECK_OK(fl_avro_single_object_encode(s, &v, &b, &err), &err);
    CHECK(b.len == mlen && !memcmp(b.data, msg, mlen)); /* byte-identical */
    /* another schema's message is refused by fingerprint */
    fl_avro_schema *other;
    CHECK_OK(fl_avro_schema_parse(&a, "\"long\"", 6, &other, &err), &err);
    CHECK_EQ_INT(fl_avro_single_object_decode(&a, other, (const uint8_t *)msg, mlen, &v, &err),
                 FL_ETYPE);
    CHECK(strstr(err.msg, "fingerprint 3df542a2f8e12da9") != NULL);
    CHECK_EQ_INT(fl_avro_single_object_decode(&a, s, (const uint8_t *)msg, mlen - 1, &v, &err),
                 FL_ECORRUPT);
    CHECK_EQ_INT(fl_avro_single_object_decode(&a, s, (const uint8_t *)msg + 1, mlen - 1, &v, &err),
                 FL_ECORRUPT);
    fl_avro_buf_free(&b);
    fl_arena_free(&a);
    free(schema);
    free(msg);
}

int main(void)
{
    TEST_RUN(test_attributes_kept);
    TEST_RUN(test_errors);
    TEST_RUN(test_recursive);
    shared = test_shared_dir();
    if (!shared) {
        fprintf(stderr, "fixture cases skipped: FLOE_SHARED not found\n");
        return TEST_EXIT();
    }
    TEST_RUN(test_canonical_cases);
    TEST_RUN(test_iceberg_attributes);
    TEST_RUN(test_fixture_schemas);
    TEST_RUN(test_single_object);
    return TEST_EXIT();
}
