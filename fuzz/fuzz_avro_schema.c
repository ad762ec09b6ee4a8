/*
 * fuzz_avro_schema.c - libFuzzer target for schema JSON and datum decoding.
 * Input: schema JSON, then a NUL byte, then binary data. The schema must
 * parse or fail cleanly; when it parses, writing it back and re-parsing must
 * give the same text and the same canonical form; the data is decoded and
 * skipped with it (both must agree on the bytes consumed), and a decoded
 * value must re-encode. The same bytes are also tried as a JSON datum for
 * the schema (fl_avro_value_from_json): a value it accepts must encode,
 * decode, and render to JSON.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "avro/avro_internal.h"
#include "floe/avro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t slen = nul ? (size_t)(nul - data) : size;
    const uint8_t *bin = nul ? nul + 1 : data + size;
    size_t blen = nul ? size - slen - 1 : 0;
    fl_arena a;
    fl_arena_init(&a, 0);
    a.limit = 64 << 20;
    fl_error err = {0};
    fl_avro_schema *s;
    if (fl_avro_schema_parse(&a, (const char *)data, slen, &s, &err)) {
        fl_arena_free(&a);
        return 0;
    }
    char *j1 = fl_avro_schema_to_json(&a, s);
    char *c1 = fl_avro_schema_canonical(&a, s);
    if (j1 && c1) {
        fl_avro_schema *s2;
        if (fl_avro_schema_parse(&a, j1, strlen(j1), &s2, &err))
            abort(); /* what we write must parse */
        char *j2 = fl_avro_schema_to_json(&a, s2);
        char *c2 = fl_avro_schema_canonical(&a, s2);
        if (!j2 || !c2 || strcmp(j1, j2) || strcmp(c1, c2))
            abort();
        fl_avro_schema *s3; /* the canonical form parses to the same canonical form */
        if (fl_avro_schema_parse(&a, c1, strlen(c1), &s3, &err))
            abort();
        char *c3 = fl_avro_schema_canonical(&a, s3);
        if (!c3 || strcmp(c1, c3))
            abort();
        (void)fl_avro_crc64(c1, strlen(c1));
    }
    fl_avro_limits lim = {.max_items = 1 << 16, .max_depth = 64};
    size_t p1 = 0, p2 = 0;
    fl_avro_value v;
    fl_status r1 = fl_avro_decode(&a, s, bin, blen, &p1, 0, &lim, &v, &err);
    fl_status r2 = fl_avro_skip(s, bin, blen, &p2, 0, &lim, &err);
    if ((r1 == FL_OK) != (r2 == FL_OK) && r1 != FL_ENOMEM)
        abort();
    if (r1 == FL_OK && p1 != p2)
        abort();
    if (r1 == FL_OK) {
        fl_avro_buf enc = {0};
        if (fl_avro_encode(s, &v, &enc, &err))
            abort();
        fl_avro_buf_free(&enc);
    }
    fl_avro_value jv;
    if (fl_avro_value_from_json(&a, s, (const char *)bin, blen, &jv, &err) == FL_OK) {
        fl_avro_buf enc = {0}, js = {0};
        if (fl_avro_encode(s, &jv, &enc, &err))
            abort(); /* what JSON input accepts must encode */
        size_t p3 = 0;
        fl_avro_value back;
        fl_status rc = fl_avro_decode(&a, s, enc.data, enc.len, &p3, 0, NULL, &back, &err);
        if ((rc != FL_OK && rc != FL_ENOMEM && rc != FL_ELIMIT) || (rc == FL_OK && p3 != enc.len))
            abort();
        if (fl_avro_value_to_json_ex(&jv, FL_AVRO_JSON_LOGICAL, &js, &err))
            abort();
        fl_avro_buf_free(&enc);
        fl_avro_buf_free(&js);
    }
    fl_arena_free(&a);
    return 0;
}
