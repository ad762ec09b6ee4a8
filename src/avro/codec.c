/*
 * codec.c - Avro binary encoding of one datum: decode into an fl_avro_value
 * tree, skip, encode.
 *
 * Spec: Avro 1.11 "Binary Encoding".
 *   null: 0 bytes. boolean: 1 byte 0/1. int, long: zigzag varint.
 *   float, double: 4 / 8 bytes IEEE 754 little-endian.
 *   bytes, string: long length, then that many bytes.
 *   record: fields in schema order. enum: int symbol index.
 *   array, map: a series of blocks; each block is a long count, then count
 *     items (map: string key then value); a negative count means |count|
 *     items preceded by a long byte size of the block; count 0 ends.
 *   union: long branch index, then the branch's value. fixed: size bytes.
 *
 * Every length and count read from input is checked against the bytes left
 * before anything is allocated; errors give the absolute byte offset
 * (base_offset + position in the buffer).
 */
#include <inttypes.h>
#include <string.h>

#include "avro/avro_internal.h"

typedef struct dec {
    fl_arena *a; /* NULL when skipping */
    const uint8_t *buf;
    size_t len, pos;
    uint64_t base;
    fl_avro_limits lim;
    fl_error *err;
} dec;

#define OFF(d) ((unsigned long long)((d)->base + (d)->pos))

static fl_status dec_long(dec *d, int64_t *v, const char *what)
{
    size_t start = d->pos;
    int rc = avro_read_long(d->buf, d->len, &d->pos, v);
    if (rc == -1)
        return fl_errorf(d->err, FL_ECORRUPT, "truncated %s at byte offset %llu", what,
                         (unsigned long long)(d->base + start));
    if (rc == -2)
        return fl_errorf(d->err, FL_ECORRUPT, "%s varint overflows 64 bits at byte offset %llu",
                         what, (unsigned long long)(d->base + start));
    return FL_OK;
}

static fl_status dec_need(dec *d, uint64_t n, const char *what)
{
    if (n > d->len - d->pos)
        return fl_errorf(d->err, FL_ECORRUPT,
                         "truncated %s: needs %" PRIu64 " bytes, %zu left at byte offset %llu",
                         what, n, d->len - d->pos, OFF(d));
    return FL_OK;
}

/* True when a datum of s can be encoded in zero bytes (null, empty record,
 * fixed[0]): then a block count cannot be bounded by the bytes left. */
static bool zero_size(const fl_avro_schema *s, int depth)
{
    if (depth > 8)
        return false;
    switch (s->type) {
    case FL_AVRO_NULL: return true;
    case FL_AVRO_FIXED: return s->size == 0;
    case FL_AVRO_RECORD:
        for (uint32_t i = 0; i < s->nfields; i++)
            if (!zero_size(s->fields[i].type, depth + 1))
                return false;
        return true;
    default: return false;
    }
}

/* Reads a block header: *count items (0 = end). */
static fl_status dec_block(dec *d, const fl_avro_schema *item, size_t have, int64_t *count,
                           const char *what)
{
    size_t at = d->pos;
    FL_TRY(dec_long(d, count, what));
    if (*count < 0) {
        if (*count == INT64_MIN)
            return fl_errorf(d->err, FL_ECORRUPT, "%s block count out of range at byte offset %llu",
                             what, (unsigned long long)(d->base + at));
        *count = -*count;
        int64_t bytes;
        FL_TRY(dec_long(d, &bytes, what));
        if (bytes < 0 || (uint64_t)bytes > d->len - d->pos)
            return fl_errorf(d->err, FL_ECORRUPT,
                             "%s block byte size %" PRId64
                             " invalid (%zu bytes left) at byte offset %llu",
                             what, bytes, d->len - d->pos, (unsigned long long)(d->base + at));
    }
    uint64_t limit = zero_size(item, 0)
                         ? (d->lim.max_items < 1u << 20 ? d->lim.max_items : 1u << 20)
                         : d->len - d->pos;
    if ((uint64_t)*count > limit || (uint64_t)*count + have > d->lim.max_items)
        return fl_errorf(d->err, FL_ECORRUPT,
                         "%s block count %" PRId64 " exceeds the %s at byte offset %llu", what,
                         *count, (uint64_t)*count > limit ? "bytes left" : "item limit",
                         (unsigned long long)(d->base + at));
    return FL_OK;
}

static fl_status dec_value(dec *d, const fl_avro_schema *s, int depth, fl_avro_value *v);

static fl_status dec_bytes(dec *d, const char *what, fl_avro_value *v)
{
    int64_t n;
    size_t at = d->pos;
    FL_TRY(dec_long(d, &n, what));
    if (n < 0)
        return fl_errorf(d->err, FL_ECORRUPT, "negative %s length %" PRId64 " at byte offset %llu",
                         what, n, (unsigned long long)(d->base + at));
    FL_TRY(dec_need(d, (uint64_t)n, what));
    if (d->a) {
        char *p = fl_arena_strndup(d->a, (const char *)d->buf + d->pos, (size_t)n);
        if (!p)
            return fl_errorf(d->err, FL_ENOMEM, "out of memory");
        v->u.bytes.ptr = (const uint8_t *)p;
        v->u.bytes.len = (size_t)n;
    }
    d->pos += (size_t)n;
    return FL_OK;
}

/* Grows *items (n used) to hold n + more, copying into a new arena array. */
static fl_status grow(dec *d, fl_avro_value **items, size_t n, size_t more)
{
    fl_avro_value *ni = fl_arena_alloc(d->a, (n + more) * sizeof *ni);
    if (!ni)
        return fl_errorf(d->err, FL_ENOMEM, "out of memory decoding %zu items", n + more);
    if (n)
        memcpy(ni, *items, n * sizeof *ni);
    *items = ni;
    return FL_OK;
}

static fl_status dec_array(dec *d, const fl_avro_schema *s, int depth, fl_avro_value *v)
{
    fl_avro_value *items = NULL;
    size_t n = 0;
    for (;;) {
        int64_t count;
        FL_TRY(dec_block(d, s->items, n, &count, "array"));
        if (count == 0)
            break;
        if (d->a)
            FL_TRY(grow(d, &items, n, (size_t)count));
        for (int64_t i = 0; i < count; i++) {
            fl_avro_value tmp;
            FL_TRY(dec_value(d, s->items, depth + 1, d->a ? &items[n] : &tmp));
            n++;
        }
    }
    if (d->a) {
        v->u.list.items = items;
        v->u.list.n = n;
    }
    return FL_OK;
}

static fl_status dec_map(dec *d, const fl_avro_schema *s, int depth, fl_avro_value *v)
{
    fl_avro_value *keys = NULL, *vals = NULL;
    size_t n = 0;
    for (;;) {
        int64_t count;
        FL_TRY(dec_block(d, s->values, n, &count, "map"));
        if (count == 0)
            break;
        if (d->a) {
            FL_TRY(grow(d, &keys, n, (size_t)count));
            FL_TRY(grow(d, &vals, n, (size_t)count));
        }
        for (int64_t i = 0; i < count; i++) {
            fl_avro_value tk, tv;
            fl_avro_value *k = d->a ? &keys[n] : &tk;
            k->schema = NULL;
            k->type = FL_AVRO_STRING;
            k->branch = -1;
            FL_TRY(dec_bytes(d, "map key", k));
            FL_TRY(dec_value(d, s->values, depth + 1, d->a ? &vals[n] : &tv));
            n++;
        }
    }
    if (d->a) {
        v->u.map.keys = keys;
        v->u.map.values = vals;
        v->u.map.n = n;
    }
    return FL_OK;
}

static fl_status dec_value(dec *d, const fl_avro_schema *s, int depth, fl_avro_value *v)
{
    if ((size_t)depth > d->lim.max_depth)
        return fl_errorf(d->err, FL_ELIMIT, "value nested deeper than %zu at byte offset %llu",
                         d->lim.max_depth, OFF(d));
    int32_t branch = -1;
    if (s->type == FL_AVRO_UNION) {
        int64_t idx;
        size_t at = d->pos;
        FL_TRY(dec_long(d, &idx, "union branch index"));
        if (idx < 0 || (uint64_t)idx >= s->nbranches)
            return fl_errorf(d->err, FL_ECORRUPT,
                             "union branch index %" PRId64
                             " out of range (%u branches) at byte offset %llu",
                             idx, s->nbranches, (unsigned long long)(d->base + at));
        branch = (int32_t)idx;
        s = s->branches[idx];
    }
    v->schema = s;
    v->type = s->type;
    v->branch = branch;
    int64_t x;
    switch (s->type) {
    case FL_AVRO_NULL: return FL_OK;
    case FL_AVRO_BOOLEAN:
        FL_TRY(dec_need(d, 1, "boolean"));
        if (d->buf[d->pos] > 1)
            return fl_errorf(d->err, FL_ECORRUPT,
                             "boolean byte %u is not 0 or 1 at byte offset %llu", d->buf[d->pos],
                             OFF(d));
        v->u.b = d->buf[d->pos++] != 0;
        return FL_OK;
    case FL_AVRO_INT:
    case FL_AVRO_ENUM: {
        size_t at = d->pos;
        FL_TRY(dec_long(d, &x, s->type == FL_AVRO_INT ? "int" : "enum index"));
        if (x < INT32_MIN || x > INT32_MAX)
            return fl_errorf(d->err, FL_ECORRUPT,
                             "int value %" PRId64 " out of range at byte offset %llu", x,
                             (unsigned long long)(d->base + at));
        if (s->type == FL_AVRO_ENUM && (x < 0 || x >= (int64_t)s->nsymbols))
            return fl_errorf(d->err, FL_ECORRUPT,
                             "enum index %" PRId64 " out of range (%u symbols) at byte offset %llu",
                             x, s->nsymbols, (unsigned long long)(d->base + at));
        v->u.i = (int32_t)x;
        return FL_OK;
    }
    case FL_AVRO_LONG: return dec_long(d, &v->u.l, "long");
    case FL_AVRO_FLOAT: {
        FL_TRY(dec_need(d, 4, "float"));
        const uint8_t *p = d->buf + d->pos;
        uint32_t u =
            (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        memcpy(&v->u.f, &u, 4);
        d->pos += 4;
        return FL_OK;
    }
    case FL_AVRO_DOUBLE: {
        FL_TRY(dec_need(d, 8, "double"));
        const uint8_t *p = d->buf + d->pos;
        uint64_t u = 0;
        for (int i = 7; i >= 0; i--)
            u = u << 8 | p[i];
        memcpy(&v->u.d, &u, 8);
        d->pos += 8;
        return FL_OK;
    }
    case FL_AVRO_BYTES: return dec_bytes(d, "bytes", v);
    case FL_AVRO_STRING: return dec_bytes(d, "string", v);
    case FL_AVRO_FIXED:
        FL_TRY(dec_need(d, (uint64_t)s->size, "fixed"));
        if (d->a) {
            char *p = fl_arena_strndup(d->a, (const char *)d->buf + d->pos, (size_t)s->size);
            if (!p)
                return fl_errorf(d->err, FL_ENOMEM, "out of memory");
            v->u.bytes.ptr = (const uint8_t *)p;
            v->u.bytes.len = (size_t)s->size;
        }
        d->pos += (size_t)s->size;
        return FL_OK;
    case FL_AVRO_RECORD: {
        fl_avro_value *f = NULL, tmp;
        if (d->a && !(f = fl_arena_alloc(d->a, (s->nfields ? s->nfields : 1) * sizeof *f)))
            return fl_errorf(d->err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < s->nfields; i++) {
            fl_status rc = dec_value(d, s->fields[i].type, depth + 1, f ? &f[i] : &tmp);
            if (rc) {
                if (d->err)
                    fl_error_prefix(d->err, "field '%s'", s->fields[i].name);
                return rc;
            }
        }
        v->u.list.items = f;
        v->u.list.n = s->nfields;
        return FL_OK;
    }
    case FL_AVRO_ARRAY: return dec_array(d, s, depth, v);
    case FL_AVRO_MAP: return dec_map(d, s, depth, v);
    case FL_AVRO_UNION: break;
    }
    return fl_errorf(d->err, FL_ECORRUPT, "bad schema node");
}

fl_status fl_avro_decode(fl_arena *a, const fl_avro_schema *s, const uint8_t *buf, size_t len,
                         size_t *pos, uint64_t base_offset, const fl_avro_limits *limits,
                         fl_avro_value *out, fl_error *err)
{
    dec d = {.a = a, .buf = buf, .len = len, .pos = *pos, .base = base_offset, .err = err};
    avro_limits_fill(limits, &d.lim);
    if (d.pos > len)
        return fl_errorf(err, FL_EINVAL, "decode position beyond buffer");
    FL_TRY(dec_value(&d, s, 0, out));
    *pos = d.pos;
    return FL_OK;
}

fl_status fl_avro_skip(const fl_avro_schema *s, const uint8_t *buf, size_t len, size_t *pos,
                       uint64_t base_offset, const fl_avro_limits *limits, fl_error *err)
{
    dec d = {.a = NULL, .buf = buf, .len = len, .pos = *pos, .base = base_offset, .err = err};
    avro_limits_fill(limits, &d.lim);
    fl_avro_value tmp;
    if (d.pos > len)
        return fl_errorf(err, FL_EINVAL, "decode position beyond buffer");
    FL_TRY(dec_value(&d, s, 0, &tmp));
    *pos = d.pos;
    return FL_OK;
}

/* ------------------------------------------------------------- encoding */

static fl_status enc_oom(fl_error *err)
{
    return fl_errorf(err, FL_ENOMEM, "out of memory");
}

static bool branch_matches(const fl_avro_schema *b, const fl_avro_value *v)
{
    if (b->type != v->type)
        return false;
    if (!fl_avro_schema_is_named(b) || !v->schema || v->schema == b)
        return true;
    return v->schema->fullname && !strcmp(v->schema->fullname, b->fullname);
}

static fl_status enc_value(const fl_avro_schema *s, const fl_avro_value *v, fl_avro_buf *out,
                           int depth, fl_error *err)
{
    if (depth > 1000)
        return fl_errorf(err, FL_ELIMIT, "value nested too deeply to encode");
    if (s->type == FL_AVRO_UNION) {
        int32_t b = v->branch;
        if (b < 0 || (uint32_t)b >= s->nbranches || !branch_matches(s->branches[b], v)) {
            b = -1;
            for (uint32_t i = 0; i < s->nbranches && b < 0; i++)
                if (branch_matches(s->branches[i], v))
                    b = (int32_t)i;
        }
        if (b < 0)
            return fl_errorf(err, FL_ETYPE, "no union branch for a %s value",
                             fl_avro_type_name(v->type));
        if (!avro_buf_long(out, b))
            return enc_oom(err);
        s = s->branches[b];
    }
    if (s->type != v->type)
        return fl_errorf(err, FL_ETYPE, "expected a %s value, got %s", fl_avro_type_name(s->type),
                         fl_avro_type_name(v->type));
    bool ok = true;
    switch (s->type) {
    case FL_AVRO_NULL: break;
    case FL_AVRO_BOOLEAN: ok = avro_buf_putc(out, v->u.b ? 1 : 0); break;
    case FL_AVRO_INT: ok = avro_buf_long(out, v->u.i); break;
    case FL_AVRO_ENUM:
        if (v->u.i < 0 || (uint32_t)v->u.i >= s->nsymbols)
            return fl_errorf(err, FL_EINVAL, "enum index %d out of range", v->u.i);
        ok = avro_buf_long(out, v->u.i);
        break;
    case FL_AVRO_LONG: ok = avro_buf_long(out, v->u.l); break;
    case FL_AVRO_FLOAT: {
        uint32_t u;
        memcpy(&u, &v->u.f, 4);
        uint8_t p[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
        ok = avro_buf_put(out, p, 4);
        break;
    }
    case FL_AVRO_DOUBLE: {
        uint64_t u;
        memcpy(&u, &v->u.d, 8);
        uint8_t p[8];
        for (int i = 0; i < 8; i++)
            p[i] = (uint8_t)(u >> (8 * i));
        ok = avro_buf_put(out, p, 8);
        break;
    }
    case FL_AVRO_BYTES:
    case FL_AVRO_STRING:
        ok = avro_buf_long(out, (int64_t)v->u.bytes.len) &&
             avro_buf_put(out, v->u.bytes.ptr, v->u.bytes.len);
        break;
    case FL_AVRO_FIXED:
        if (v->u.bytes.len != (size_t)s->size)
            return fl_errorf(err, FL_EINVAL, "fixed '%s' needs %d bytes, got %zu", s->fullname,
                             s->size, v->u.bytes.len);
        ok = avro_buf_put(out, v->u.bytes.ptr, v->u.bytes.len);
        break;
    case FL_AVRO_RECORD:
        if (v->u.list.n != s->nfields)
            return fl_errorf(err, FL_EINVAL, "record '%s' needs %u fields, got %zu", s->fullname,
                             s->nfields, v->u.list.n);
        for (uint32_t i = 0; i < s->nfields; i++)
            if (enc_value(s->fields[i].type, &v->u.list.items[i], out, depth + 1, err))
                return fl_error_prefix(err, "field '%s'", s->fields[i].name);
        break;
    case FL_AVRO_ARRAY:
        if (v->u.list.n) {
            ok = avro_buf_long(out, (int64_t)v->u.list.n);
            for (size_t i = 0; ok && i < v->u.list.n; i++)
                FL_TRY(enc_value(s->items, &v->u.list.items[i], out, depth + 1, err));
        }
        ok = ok && avro_buf_long(out, 0);
        break;
    case FL_AVRO_MAP:
        if (v->u.map.n) {
            ok = avro_buf_long(out, (int64_t)v->u.map.n);
            for (size_t i = 0; ok && i < v->u.map.n; i++) {
                const fl_avro_value *k = &v->u.map.keys[i];
                ok = avro_buf_long(out, (int64_t)k->u.bytes.len) &&
                     avro_buf_put(out, k->u.bytes.ptr, k->u.bytes.len);
                if (ok)
                    FL_TRY(enc_value(s->values, &v->u.map.values[i], out, depth + 1, err));
            }
        }
        ok = ok && avro_buf_long(out, 0);
        break;
    case FL_AVRO_UNION: return fl_errorf(err, FL_EINVAL, "union directly inside a union");
    }
    return ok ? FL_OK : enc_oom(err);
}

fl_status fl_avro_encode(const fl_avro_schema *s, const fl_avro_value *v, fl_avro_buf *out,
                         fl_error *err)
{
    return enc_value(s, v, out, 0, err);
}

void fl_avro_write_long(fl_avro_buf *out, int64_t v, fl_error *err)
{
    if (!avro_buf_long(out, v))
        fl_errorf(err, FL_ENOMEM, "out of memory");
}

void fl_avro_value_null(fl_avro_value *v)
{
    memset(v, 0, sizeof *v);
    v->type = FL_AVRO_NULL;
    v->branch = -1;
}

void fl_avro_value_long(fl_avro_value *v, fl_avro_type t, int64_t x)
{
    memset(v, 0, sizeof *v);
    v->type = t;
    v->branch = -1;
    if (t == FL_AVRO_INT)
        v->u.i = (int32_t)x;
    else
        v->u.l = x;
}

void fl_avro_value_bytes(fl_avro_value *v, fl_avro_type t, const void *p, size_t len)
{
    memset(v, 0, sizeof *v);
    v->type = t;
    v->branch = -1;
    v->u.bytes.ptr = p;
    v->u.bytes.len = len;
}

const fl_avro_value *fl_avro_value_field(const fl_avro_value *rec, const char *name)
{
    if (!rec || rec->type != FL_AVRO_RECORD || !rec->schema)
        return NULL;
    for (uint32_t i = 0; i < rec->schema->nfields && i < rec->u.list.n; i++)
        if (!strcmp(rec->schema->fields[i].name, name))
            return rec->u.list.items[i].type == FL_AVRO_NULL ? NULL : &rec->u.list.items[i];
    return NULL;
}
