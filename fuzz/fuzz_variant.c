/*
 * fuzz_variant.c - the Variant reader, builder, JSON and paths
 * (src/base/variant*.c) over arbitrary bytes.
 *
 * The input is tried three ways:
 *   - as a floe variant (metadata then value): fl_variant_check; when it
 *     holds, printing as JSON must succeed, the JSON must parse back to a
 *     valid variant, and printing that must give the same text (to_json is a
 *     fixed point of from_json . to_json; a -0.0 double or float prints
 *     "-0.0", which reads back as the decimal 0.0, so there only the second
 *     round must be a fixed point). When the value holds only kinds
 *     JSON carries back exactly (null, booleans, ints, decimals, strings,
 *     objects, arrays, and finite non-zero doubles outside [1e-3, 1e7), which
 *     print with an exponent) the reparsed value must be fl_variant_equal to
 *     the original. A copy through the builder (renumbering keys) must be
 *     equal too, and every object field must be found by its key;
 *   - as JSON text: whatever fl_variant_from_json accepts must pass
 *     fl_variant_check and print;
 *   - as a path: whatever parses is followed through the variant (if valid).
 * Any broken property traps.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "floe/variant.h"

typedef struct kinds {
    bool inexact; /* a kind JSON does not carry back as itself */
    bool negzero; /* a -0.0 double or float: prints "-0.0", which reads back as decimal 0.0 */
} kinds;

/* What v holds that JSON text does not carry back exactly. */
static void scan(const fl_variant *v, int depth, kinds *f)
{
    fl_error err;
    fl_variant_kind k;
    if (depth > FL_VARIANT_MAX_DEPTH || fl_variant_kind_of(v, &k, &err) != FL_OK)
        __builtin_trap(); /* validated */
    if (k == FL_VK_OBJECT || k == FL_VK_ARRAY) {
        uint32_t n = 0;
        if (fl_variant_count(v, &n, &err) != FL_OK)
            __builtin_trap();
        for (uint32_t i = 0; i < n; i++) {
            fl_variant c;
            const char *key;
            size_t kl;
            fl_status st = k == FL_VK_OBJECT ? fl_variant_object_at(v, i, &key, &kl, &c, &err)
                                             : fl_variant_array_at(v, i, &c, &err);
            if (st != FL_OK)
                __builtin_trap();
            scan(&c, depth + 1, f);
        }
        return;
    }
    fl_variant_scalar s;
    if (fl_variant_scalar_of(v, &s, &err) != FL_OK)
        __builtin_trap();
    if (k == FL_VK_DOUBLE || k == FL_VK_FLOAT) {
        double d = k == FL_VK_DOUBLE ? s.v.d : s.v.f, a = fabs(d);
        f->negzero |= d == 0 && signbit(d);
        /* finite non-zero doubles printed with an exponent read back as doubles */
        f->inexact |= k == FL_VK_FLOAT || !isfinite(d) || a == 0 || (a >= 1e-3 && a < 1e7);
        return;
    }
    f->inexact |=
        !(k <= FL_VK_INT64 || (k >= FL_VK_DECIMAL4 && k <= FL_VK_DECIMAL16) || k == FL_VK_STRING);
}

/* JSON text -> variant (checked) -> JSON text in out. */
static void reprint(const fl_buf *text, fl_buf *var, fl_variant_meta *m, fl_variant *v, fl_buf *out)
{
    fl_error err;
    if (fl_variant_from_json(text->data, text->len, var, &err) != FL_OK ||
        fl_variant_check(var->bytes, var->len, &err) != FL_OK ||
        fl_variant_open(var->bytes, var->len, m, v, &err) != FL_OK ||
        fl_variant_to_json(v, out, &err) != FL_OK)
        __builtin_trap();
}

static bool same_text(const fl_buf *a, const fl_buf *b)
{
    return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

/* Every field of every object is found by its key. */
static void find_all(const fl_variant *v, int depth)
{
    fl_error err;
    fl_variant_kind k;
    uint32_t n = 0;
    if (depth > FL_VARIANT_MAX_DEPTH || fl_variant_kind_of(v, &k, &err) != FL_OK)
        __builtin_trap();
    if (k != FL_VK_OBJECT && k != FL_VK_ARRAY)
        return;
    if (fl_variant_count(v, &n, &err) != FL_OK)
        __builtin_trap();
    for (uint32_t i = 0; i < n; i++) {
        fl_variant c, f;
        const char *key;
        size_t kl;
        bool found = false;
        if (k == FL_VK_ARRAY) {
            if (fl_variant_array_at(v, i, &c, &err) != FL_OK)
                __builtin_trap();
        } else if (fl_variant_object_at(v, i, &key, &kl, &c, &err) != FL_OK ||
                   fl_variant_object_find(v, key, kl, &found, &f, &err) != FL_OK || !found ||
                   f.p != c.p) {
            __builtin_trap();
        }
        find_all(&c, depth + 1);
    }
}

static void copy_equal(const fl_variant *v)
{
    fl_error err;
    fl_variant_builder b;
    fl_buf out = {0};
    fl_vb_init(&b);
    fl_variant_meta m;
    fl_variant w;
    bool eq = false;
    if (fl_vb_copy(&b, v, &err) != FL_OK || fl_vb_finish(&b, &out, &err) != FL_OK ||
        fl_variant_open(out.bytes, out.len, &m, &w, &err) != FL_OK ||
        fl_variant_validate(&w, &err) != FL_OK || fl_variant_equal(v, &w, &eq, &err) != FL_OK ||
        !eq)
        __builtin_trap();
    fl_vb_free(&b);
    fl_buf_free(&out);
}

static void as_variant(const uint8_t *data, size_t size, const fl_variant_path *path)
{
    fl_error err;
    fl_variant_meta m, m2;
    fl_variant v, v2, got;
    if (fl_variant_check(data, size, &err) != FL_OK)
        return;
    if (fl_variant_open(data, size, &m, &v, &err) != FL_OK)
        __builtin_trap();
    fl_buf j1 = {0}, back = {0}, j2 = {0}, back2 = {0}, j3 = {0};
    if (fl_variant_to_json(&v, &j1, &err) != FL_OK)
        __builtin_trap();
    reprint(&j1, &back, &m2, &v2, &j2);
    kinds f = {false, false};
    scan(&v, 0, &f);
    if (!f.negzero && !same_text(&j1, &j2))
        __builtin_trap(); /* to_json is a fixed point of from_json . to_json */
    fl_variant_meta m3;
    fl_variant v3;
    reprint(&j2, &back2, &m3, &v3, &j3);
    if (!same_text(&j2, &j3))
        __builtin_trap();
    bool eq = false;
    if (!f.inexact && (fl_variant_equal(&v, &v2, &eq, &err) != FL_OK || !eq))
        __builtin_trap();
    find_all(&v, 0);
    copy_equal(&v);
    bool found;
    if (path && fl_variant_path_get(&v, path, &found, &got, &err) != FL_OK)
        __builtin_trap();
    fl_buf_free(&j1);
    fl_buf_free(&back);
    fl_buf_free(&j2);
    fl_buf_free(&back2);
    fl_buf_free(&j3);
}

static void as_json(const uint8_t *data, size_t size)
{
    fl_error err;
    fl_buf out = {0}, text = {0};
    if (fl_variant_from_json((const char *)data, size, &out, &err) == FL_OK) {
        fl_variant_meta m;
        fl_variant v;
        if (fl_variant_check(out.bytes, out.len, &err) != FL_OK ||
            fl_variant_open(out.bytes, out.len, &m, &v, &err) != FL_OK ||
            fl_variant_to_json(&v, &text, &err) != FL_OK)
            __builtin_trap();
    }
    fl_buf_free(&out);
    fl_buf_free(&text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_variant_path path;
    fl_error err;
    bool have_path = fl_variant_path_parse(&a, (const char *)data, size, &path, &err) == FL_OK;
    as_variant(data, size, have_path ? &path : NULL);
    as_json(data, size);
    fl_arena_free(&a);
    return 0;
}
