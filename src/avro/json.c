/*
 * json.c - fl_avro_value <-> JSON text.
 *
 * Output format (the fixtures' *.expected.jsonl convention): physical values;
 * long as exact JSON integers; float/double shortest round-trip (NaN and
 * infinities as strings); bytes and fixed as {"$bytes":"<hex>"}; enum as its
 * symbol; map as an object; record as an object in field order; union as
 * the bare branch value.
 *
 * Input (fl_avro_value_from_json) accepts that format, plus: longs and
 * doubles given as strings, bytes/fixed as plain strings (their UTF-8
 * bytes), and unions in Avro's JSON encoding ({"type name": value}).
 * Default values (avro_value_from_default) follow the spec's default rules:
 * bytes/fixed defaults are strings whose code points 0-255 are the bytes, a
 * union default belongs to the first branch.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avro/avro_internal.h"
#include "floe/calendar.h"
#include "floe/format.h"

static bool hex_bytes(fl_avro_buf *b, const uint8_t *p, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    if (!avro_buf_puts(b, "{\"$bytes\":\""))
        return false;
    for (size_t i = 0; i < n; i++) {
        char t[2] = {hx[p[i] >> 4], hx[p[i] & 15]};
        if (!avro_buf_put(b, t, 2))
            return false;
    }
    return avro_buf_puts(b, "\"}");
}

/* "HH:MM:SS" + fraction of `digits` digits; t in units of 10^-digits s within a day (or beyond). */
static void fmt_time(char *out, size_t cap, int64_t secs_of_day, int64_t frac, int digits)
{
    snprintf(out, cap, "%02lld:%02lld:%02lld.%0*lld", (long long)(secs_of_day / 3600),
             (long long)(secs_of_day / 60 % 60), (long long)(secs_of_day % 60), digits,
             (long long)frac);
}

/* Exact decimal text of a big-endian two's-complement unscaled value.
 * Returns 1 when written, 0 when it does not fit (> 16 bytes, scale > 38),
 * -1 when out of memory. */
static int decimal_text(fl_avro_buf *b, const uint8_t *p, size_t n, int scale)
{
    if (n == 0 || n > 16 || scale < 0 || scale > 38)
        return 0;
    unsigned __int128 u = (p[0] & 0x80) ? ~(unsigned __int128)0 : 0; /* sign extension */
    for (size_t i = 0; i < n; i++)
        u = u << 8 | p[i];
    bool neg = (__int128)u < 0;
    if (neg)
        u = ~u + 1;
    char digits[96];
    int nd = 0;
    do {
        digits[nd++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (nd <= scale)
        digits[nd++] = '0';
    char txt[112];
    size_t k = 0;
    txt[k++] = '"';
    if (neg)
        txt[k++] = '-';
    for (int i = nd - 1; i >= 0; i--) {
        txt[k++] = digits[i];
        if (i == scale && scale > 0)
            txt[k++] = '.';
    }
    txt[k++] = '"';
    return avro_buf_put(b, txt, k) ? 1 : -1;
}

/* Renders a logical-type value; returns 1 when handled, 0 to fall back to
 * the physical value, -1 when out of memory. */
static int logical_json(const fl_avro_value *v, fl_avro_buf *b)
{
    const fl_avro_schema *s = v->schema;
    char t[96], tm[48];
    int64_t x, secs, frac;
    int digits;
    switch (s->logical) {
    case FL_AVRO_LOGICAL_DATE:
        fl_format_iso_date(v->u.i, tm, sizeof tm);
        snprintf(t, sizeof t, "\"%s\"", tm);
        break;
    case FL_AVRO_LOGICAL_TIME_MILLIS:
    case FL_AVRO_LOGICAL_TIME_MICROS: {
        bool ms = s->logical == FL_AVRO_LOGICAL_TIME_MILLIS;
        x = ms ? v->u.i : v->u.l;
        int64_t unit = ms ? 1000 : 1000000;
        if (x < 0)
            return 0;
        fmt_time(tm, sizeof tm, x / unit, x % unit, ms ? 3 : 6);
        snprintf(t, sizeof t, "\"%s\"", tm);
        break;
    }
    case FL_AVRO_LOGICAL_TIMESTAMP_MILLIS:
    case FL_AVRO_LOGICAL_TIMESTAMP_MICROS:
    case FL_AVRO_LOGICAL_TIMESTAMP_NANOS:
    case FL_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS:
    case FL_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS:
    case FL_AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS: {
        fl_avro_logical l = s->logical;
        int64_t unit =
            (l == FL_AVRO_LOGICAL_TIMESTAMP_MILLIS || l == FL_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS)
                ? 1000
            : (l == FL_AVRO_LOGICAL_TIMESTAMP_NANOS || l == FL_AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS)
                ? 1000000000
                : 1000000;
        digits = unit == 1000 ? 3 : unit == 1000000 ? 6 : 9;
        bool utc = l == FL_AVRO_LOGICAL_TIMESTAMP_MILLIS || l == FL_AVRO_LOGICAL_TIMESTAMP_MICROS ||
                   l == FL_AVRO_LOGICAL_TIMESTAMP_NANOS;
        secs = fl_floor_div(v->u.l, unit);
        frac = v->u.l - secs * unit;
        int64_t days = fl_floor_div(secs, 86400);
        char date[32];
        fl_format_iso_date(days, date, sizeof date);
        fmt_time(tm, sizeof tm, secs - days * 86400, frac, digits);
        snprintf(t, sizeof t, "\"%sT%s%s\"", date, tm, utc ? "Z" : "");
        break;
    }
    case FL_AVRO_LOGICAL_DECIMAL:
        if (v->type != FL_AVRO_BYTES && v->type != FL_AVRO_FIXED)
            return 0;
        return decimal_text(b, v->u.bytes.ptr, v->u.bytes.len, s->scale);
    case FL_AVRO_LOGICAL_UUID: {
        if (v->type != FL_AVRO_FIXED || v->u.bytes.len != 16)
            return 0;
        const uint8_t *p = v->u.bytes.ptr;
        size_t k = 0;
        t[k++] = '"';
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10)
                t[k++] = '-';
            k += (size_t)snprintf(t + k, 3, "%02x", p[i]);
        }
        t[k++] = '"';
        t[k] = 0;
        break;
    }
    case FL_AVRO_LOGICAL_DURATION: {
        if (v->type != FL_AVRO_FIXED || v->u.bytes.len != 12)
            return 0;
        const uint8_t *p = v->u.bytes.ptr;
        uint32_t f[3];
        for (int i = 0; i < 3; i++)
            f[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
                   (uint32_t)p[4 * i + 3] << 24;
        snprintf(t, sizeof t, "{\"months\":%u,\"days\":%u,\"millis\":%u}", f[0], f[1], f[2]);
        break;
    }
    default: return 0;
    }
    return avro_buf_puts(b, t) ? 1 : -1;
}

static bool to_json(const fl_avro_value *v, fl_avro_buf *b, unsigned flags, int depth)
{
    char num[32];
    if (depth > 10000)
        return false;
    if ((flags & FL_AVRO_JSON_LOGICAL) && v->schema && v->schema->logical != FL_AVRO_LOGICAL_NONE) {
        int rc = logical_json(v, b);
        if (rc)
            return rc > 0;
    }
    switch (v->type) {
    case FL_AVRO_NULL: return avro_buf_puts(b, "null");
    case FL_AVRO_BOOLEAN: return avro_buf_puts(b, v->u.b ? "true" : "false");
    case FL_AVRO_INT: snprintf(num, sizeof num, "%d", v->u.i); return avro_buf_puts(b, num);
    case FL_AVRO_LONG:
        snprintf(num, sizeof num, "%lld", (long long)v->u.l);
        return avro_buf_puts(b, num);
    case FL_AVRO_FLOAT: return avro_buf_double(b, (double)v->u.f);
    case FL_AVRO_DOUBLE: return avro_buf_double(b, v->u.d);
    case FL_AVRO_STRING: return avro_buf_json_str(b, (const char *)v->u.bytes.ptr, v->u.bytes.len);
    case FL_AVRO_BYTES:
    case FL_AVRO_FIXED: return hex_bytes(b, v->u.bytes.ptr, v->u.bytes.len);
    case FL_AVRO_ENUM: {
        const char *sym = v->schema && v->u.i >= 0 && (uint32_t)v->u.i < v->schema->nsymbols
                              ? v->schema->symbols[v->u.i]
                              : "?";
        return avro_buf_json_str(b, sym, strlen(sym));
    }
    case FL_AVRO_RECORD: {
        bool ok = avro_buf_putc(b, '{');
        for (size_t i = 0; ok && i < v->u.list.n; i++) {
            const char *name =
                v->schema && i < v->schema->nfields ? v->schema->fields[i].name : "?";
            ok = (i == 0 || avro_buf_putc(b, ',')) && avro_buf_json_str(b, name, strlen(name)) &&
                 avro_buf_putc(b, ':') && to_json(&v->u.list.items[i], b, flags, depth + 1);
        }
        return ok && avro_buf_putc(b, '}');
    }
    case FL_AVRO_ARRAY: {
        bool ok = avro_buf_putc(b, '[');
        for (size_t i = 0; ok && i < v->u.list.n; i++)
            ok = (i == 0 || avro_buf_putc(b, ',')) &&
                 to_json(&v->u.list.items[i], b, flags, depth + 1);
        return ok && avro_buf_putc(b, ']');
    }
    case FL_AVRO_MAP: {
        bool ok = avro_buf_putc(b, '{');
        for (size_t i = 0; ok && i < v->u.map.n; i++) {
            const fl_avro_value *k = &v->u.map.keys[i];
            ok = (i == 0 || avro_buf_putc(b, ',')) &&
                 avro_buf_json_str(b, (const char *)k->u.bytes.ptr, k->u.bytes.len) &&
                 avro_buf_putc(b, ':') && to_json(&v->u.map.values[i], b, flags, depth + 1);
        }
        return ok && avro_buf_putc(b, '}');
    }
    case FL_AVRO_UNION: break;
    }
    return false;
}

fl_status fl_avro_value_to_json(const fl_avro_value *v, fl_avro_buf *out, fl_error *err)
{
    return to_json(v, out, 0, 0) ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory writing JSON");
}

fl_status fl_avro_value_to_json_ex(const fl_avro_value *v, unsigned flags, fl_avro_buf *out,
                                   fl_error *err)
{
    return to_json(v, out, flags, 0) ? FL_OK
                                     : fl_errorf(err, FL_ENOMEM, "out of memory writing JSON");
}

/* ------------------------------------------------------------- parsing */

typedef struct jctx {
    fl_arena *a;
    fl_error *err;
    bool dflt; /* default-value rules */
} jctx;

static fl_status from_json(jctx *c, const fl_avro_schema *s, json_t *j, int depth,
                           fl_avro_value *v);

static fl_status jerr(jctx *c, const fl_avro_schema *s, const char *what)
{
    return fl_errorf(c->err, FL_ETYPE, "expected %s for %s", what, fl_avro_type_name(s->type));
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static fl_status json_bytes(jctx *c, const fl_avro_schema *s, json_t *j, fl_avro_value *v)
{
    if (json_is_object(j) && json_is_string(json_object_get(j, "$bytes"))) {
        const char *h = json_string_value(json_object_get(j, "$bytes"));
        size_t n = strlen(h);
        if (n % 2)
            return fl_errorf(c->err, FL_ETYPE, "odd-length $bytes hex");
        uint8_t *p = fl_arena_alloc(c->a, n / 2 + 1);
        if (!p)
            return fl_errorf(c->err, FL_ENOMEM, "out of memory");
        for (size_t i = 0; i < n / 2; i++) {
            int hi = hexval(h[2 * i]), lo = hexval(h[2 * i + 1]);
            if (hi < 0 || lo < 0)
                return fl_errorf(c->err, FL_ETYPE, "bad hex digit in $bytes");
            p[i] = (uint8_t)(hi << 4 | lo);
        }
        v->u.bytes.ptr = p;
        v->u.bytes.len = n / 2;
    } else if (json_is_string(j)) {
        const char *str = json_string_value(j);
        size_t n = json_string_length(j);
        uint8_t *p = fl_arena_alloc(c->a, n + 1);
        if (!p)
            return fl_errorf(c->err, FL_ENOMEM, "out of memory");
        size_t k = 0;
        if (c->dflt) { /* code points U+0000..U+00FF are the bytes */
            for (size_t i = 0; i < n; i++) {
                unsigned char ch = (unsigned char)str[i];
                if (ch < 0x80)
                    p[k++] = ch;
                else if ((ch & 0xe0) == 0xc0 && i + 1 < n && ch <= 0xc3)
                    p[k++] = (uint8_t)(((ch & 0x1f) << 6) | (str[++i] & 0x3f));
                else
                    return fl_errorf(c->err, FL_ETYPE,
                                     "bytes default has a code point above U+00FF");
            }
        } else {
            memcpy(p, str, n);
            k = n;
        }
        v->u.bytes.ptr = p;
        v->u.bytes.len = k;
    } else {
        return jerr(c, s, "{\"$bytes\":hex} or a string");
    }
    if (s->type == FL_AVRO_FIXED && v->u.bytes.len != (size_t)s->size)
        return fl_errorf(c->err, FL_ETYPE, "fixed '%s' needs %d bytes, got %zu", s->fullname,
                         s->size, v->u.bytes.len);
    return FL_OK;
}

static fl_status json_number(jctx *c, const fl_avro_schema *s, json_t *j, fl_avro_value *v)
{
    if (s->type == FL_AVRO_INT || s->type == FL_AVRO_LONG) {
        long long x;
        if (json_is_integer(j))
            x = json_integer_value(j);
        else if (json_is_string(j)) {
            char *end;
            errno = 0;
            x = strtoll(json_string_value(j), &end, 10);
            if (*end || end == json_string_value(j) || errno)
                return jerr(c, s, "an integer");
        } else
            return jerr(c, s, "an integer");
        if (s->type == FL_AVRO_INT && (x < INT32_MIN || x > INT32_MAX))
            return fl_errorf(c->err, FL_EOVERFLOW, "int value %lld out of range", x);
        if (s->type == FL_AVRO_INT)
            v->u.i = (int32_t)x;
        else
            v->u.l = x;
        return FL_OK;
    }
    double d;
    if (json_is_number(j))
        d = json_number_value(j);
    else if (json_is_string(j) && !strcmp(json_string_value(j), "NaN"))
        d = NAN;
    else if (json_is_string(j) && !strcmp(json_string_value(j), "Infinity"))
        d = INFINITY;
    else if (json_is_string(j) && !strcmp(json_string_value(j), "-Infinity"))
        d = -INFINITY;
    else
        return jerr(c, s, "a number");
    if (s->type == FL_AVRO_FLOAT)
        v->u.f = (float)d;
    else
        v->u.d = d;
    return FL_OK;
}

static fl_status json_record(jctx *c, const fl_avro_schema *s, json_t *j, int depth,
                             fl_avro_value *v)
{
    if (!json_is_object(j))
        return jerr(c, s, "an object");
    fl_avro_value *f = fl_arena_calloc(c->a, s->nfields ? s->nfields : 1, sizeof *f);
    if (!f)
        return fl_errorf(c->err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < s->nfields; i++) {
        const fl_avro_field *fd = &s->fields[i];
        json_t *fj = json_object_get(j, fd->name);
        fl_status rc;
        if (fj) {
            rc = from_json(c, fd->type, fj, depth + 1, &f[i]);
        } else if (fd->default_json) {
            rc = avro_value_from_default(c->a, fd->type, fd->default_json, &f[i], c->err);
        } else if (fl_avro_union_null_branch(fd->type) >= 0) {
            fl_avro_value_null(&f[i]);
            f[i].branch = fl_avro_union_null_branch(fd->type);
            rc = FL_OK;
        } else {
            rc = fl_errorf(c->err, FL_ETYPE, "missing value");
        }
        if (rc)
            return fl_error_prefix(c->err, "field '%s'", fd->name);
        if (!f[i].schema)
            f[i].schema = fd->type->type == FL_AVRO_UNION && f[i].branch >= 0
                              ? fd->type->branches[f[i].branch]
                              : fd->type;
    }
    v->u.list.items = f;
    v->u.list.n = s->nfields;
    return FL_OK;
}

static fl_status json_union(jctx *c, const fl_avro_schema *s, json_t *j, int depth,
                            fl_avro_value *v)
{
    fl_error saved = {.code = FL_ETYPE, .msg = "no branch"};
    uint32_t n = c->dflt ? (s->nbranches ? 1 : 0) : s->nbranches;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < n; i++) {
            fl_error tmp;
            fl_error *outer = c->err;
            c->err = &tmp;
            fl_status rc = from_json(c, s->branches[i], j, depth + 1, v);
            c->err = outer;
            if (rc == FL_OK) {
                v->branch = (int32_t)i;
                return FL_OK;
            }
            if (i == 0 && pass == 0)
                saved = tmp;
        }
        if (pass == 0 && c->dflt) /* lenient: writers often give null for a later branch */
            n = s->nbranches;
        else
            break;
    }
    /* Avro JSON encoding: {"branch name": value} */
    if (json_is_object(j) && json_object_size(j) == 1) {
        const char *key = json_object_iter_key(json_object_iter(j));
        for (uint32_t i = 0; i < s->nbranches; i++) {
            const fl_avro_schema *b = s->branches[i];
            const char *bn = fl_avro_schema_is_named(b) ? b->fullname : fl_avro_type_name(b->type);
            if (!strcmp(bn, key) || (fl_avro_schema_is_named(b) && !strcmp(b->name, key))) {
                FL_TRY(from_json(c, b, json_object_get(j, key), depth + 1, v));
                v->branch = (int32_t)i;
                return FL_OK;
            }
        }
    }
    if (n == 0)
        return fl_errorf(c->err, FL_ETYPE, "empty union has no values");
    if (c->err)
        *c->err = saved;
    return fl_error_prefix(c->err, "no union branch matches");
}

static fl_status from_json(jctx *c, const fl_avro_schema *s, json_t *j, int depth, fl_avro_value *v)
{
    if (depth > 1000)
        return fl_errorf(c->err, FL_ELIMIT, "JSON value nested too deeply");
    if (s->type == FL_AVRO_UNION)
        return json_union(c, s, j, depth, v);
    memset(v, 0, sizeof *v);
    v->schema = s;
    v->type = s->type;
    v->branch = -1;
    switch (s->type) {
    case FL_AVRO_NULL: return json_is_null(j) ? FL_OK : jerr(c, s, "null");
    case FL_AVRO_BOOLEAN:
        if (!json_is_boolean(j))
            return jerr(c, s, "true or false");
        v->u.b = json_is_true(j);
        return FL_OK;
    case FL_AVRO_INT:
    case FL_AVRO_LONG:
    case FL_AVRO_FLOAT:
    case FL_AVRO_DOUBLE: return json_number(c, s, j, v);
    case FL_AVRO_STRING: {
        if (!json_is_string(j))
            return jerr(c, s, "a string");
        char *p = fl_arena_strndup(c->a, json_string_value(j), json_string_length(j));
        if (!p)
            return fl_errorf(c->err, FL_ENOMEM, "out of memory");
        v->u.bytes.ptr = (const uint8_t *)p;
        v->u.bytes.len = json_string_length(j);
        return FL_OK;
    }
    case FL_AVRO_BYTES:
    case FL_AVRO_FIXED: return json_bytes(c, s, j, v);
    case FL_AVRO_ENUM:
        if (json_is_string(j))
            for (uint32_t i = 0; i < s->nsymbols; i++)
                if (!strcmp(s->symbols[i], json_string_value(j))) {
                    v->u.i = (int32_t)i;
                    return FL_OK;
                }
        return jerr(c, s, "a symbol");
    case FL_AVRO_RECORD: return json_record(c, s, j, depth, v);
    case FL_AVRO_ARRAY: {
        if (!json_is_array(j))
            return jerr(c, s, "an array");
        size_t n = json_array_size(j);
        fl_avro_value *it = fl_arena_calloc(c->a, n ? n : 1, sizeof *it);
        if (!it)
            return fl_errorf(c->err, FL_ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++)
            if (from_json(c, s->items, json_array_get(j, i), depth + 1, &it[i]))
                return fl_error_prefix(c->err, "item %zu", i);
        v->u.list.items = it;
        v->u.list.n = n;
        return FL_OK;
    }
    case FL_AVRO_MAP: {
        if (!json_is_object(j))
            return jerr(c, s, "an object");
        size_t n = json_object_size(j), i = 0;
        fl_avro_value *ks = fl_arena_calloc(c->a, n ? n : 1, sizeof *ks);
        fl_avro_value *vs = fl_arena_calloc(c->a, n ? n : 1, sizeof *vs);
        if (!ks || !vs)
            return fl_errorf(c->err, FL_ENOMEM, "out of memory");
        const char *key;
        json_t *val;
        json_object_foreach(j, key, val)
        {
            char *kp = fl_arena_strdup(c->a, key);
            if (!kp)
                return fl_errorf(c->err, FL_ENOMEM, "out of memory");
            fl_avro_value_bytes(&ks[i], FL_AVRO_STRING, kp, strlen(kp));
            if (from_json(c, s->values, val, depth + 1, &vs[i]))
                return fl_error_prefix(c->err, "map key '%s'", key);
            i++;
        }
        v->u.map.keys = ks;
        v->u.map.values = vs;
        v->u.map.n = n;
        return FL_OK;
    }
    case FL_AVRO_UNION: break;
    }
    return fl_errorf(c->err, FL_EINVAL, "bad schema node");
}

static fl_status parse_and_convert(fl_arena *a, const fl_avro_schema *s, const char *json,
                                   size_t len, bool dflt, fl_avro_value *out, fl_error *err)
{
    json_error_t je;
    json_t *j = json_loadb(json, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!j)
        return fl_errorf(err, FL_ESYNTAX, "JSON: %s at line %d column %d", je.text, je.line,
                         je.column);
    jctx c = {.a = a, .err = err, .dflt = dflt};
    fl_status rc = from_json(&c, s, j, 0, out);
    if (rc == FL_OK && !out->schema)
        out->schema = s;
    json_decref(j);
    return rc;
}

fl_status fl_avro_value_from_json(fl_arena *a, const fl_avro_schema *s, const char *json,
                                  size_t len, fl_avro_value *out, fl_error *err)
{
    return parse_and_convert(a, s, json, len, false, out, err);
}

fl_status avro_value_from_default(fl_arena *a, const fl_avro_schema *s, const char *json,
                                  fl_avro_value *out, fl_error *err)
{
    fl_status rc = parse_and_convert(a, s, json, strlen(json), true, out, err);
    return rc ? fl_error_prefix(err, "default %s", json) : FL_OK;
}
