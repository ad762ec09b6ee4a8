/*
 * fuzz_avro_container.c - libFuzzer target: the input is an Avro object
 * container file. Opens it from memory, decodes every record, renders each as
 * JSON, re-encodes it with the writer schema and decodes that again (the
 * second decode must succeed and give the same JSON), and resolves it against
 * its own schema. Any crash, leak or sanitizer report is a bug; malformed
 * input must only produce an error.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "avro/avro_internal.h"
#include "floe/avro.h"
#include "floe/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fl_error err = {0};
    fl_file *f = NULL;
    fl_avro_reader *r = NULL;
    fl_avro_limits lim = {.max_block_bytes = 4 << 20, .max_items = 1 << 16};
    if (fl_file_from_memory(data, size, "fuzz.avro", &f, &err))
        return 0;
    if (fl_avro_reader_open(f, &lim, &r, &err)) {
        fl_file_close(f);
        return 0;
    }
    fl_arena a, sa;
    fl_arena_init(&a, 0);
    fl_arena_init(&sa, 0);
    a.limit = 64 << 20;
    const fl_avro_schema *s = fl_avro_reader_schema(r);
    fl_avro_resolver *res = NULL;
    if (fl_avro_resolver_new(&sa, s, s, &res, &err))
        res = NULL; /* e.g. a record field without a default cannot be missing: fine */
    (void)fl_avro_schema_canonical(&sa, s);
    (void)fl_avro_schema_to_json(&sa, s);
    fl_avro_buf js = {0}, js2 = {0}, enc = {0};
    for (int n = 0; n < 100000; n++) {
        fl_avro_value v, v2, rv;
        bool done;
        fl_arena_reset(&a);
        if (fl_avro_reader_next(r, &a, &v, &done, &err) || done)
            break;
        js.len = enc.len = js2.len = 0;
        if (fl_avro_value_to_json(&v, &js, &err))
            break;
        if (fl_avro_encode(s, &v, &enc, &err))
            abort(); /* a decoded value always re-encodes */
        size_t pos = 0;
        if (fl_avro_decode(&a, s, enc.data, enc.len, &pos, 0, &lim, &v2, &err) || pos != enc.len)
            abort();
        if (fl_avro_value_to_json(&v2, &js2, &err))
            break;
        if (js.len != js2.len || memcmp(js.data, js2.data, js.len))
            abort(); /* round trip changed the value */
        if (res)
            (void)fl_avro_resolve(&a, res, &v, &rv, &err);
    }
    fl_avro_buf_free(&js);
    fl_avro_buf_free(&js2);
    fl_avro_buf_free(&enc);
    fl_arena_free(&a);
    fl_arena_free(&sa);
    fl_avro_reader_close(r);
    fl_file_close(f);
    return 0;
}
