/*
 * manifest_cursor.h - a bounds-checked cursor over one decompressed Avro
 * block, for decoding manifest entries straight from the bytes (Avro spec
 * "Binary Encoding") instead of building a generic value tree per record:
 * zigzag varints, union branch selection, primitives into a stack
 * fl_avro_value whose bytes point into the block, array/map block counts,
 * and skipping of unknown fields through fl_avro_skip.
 */
#ifndef FLOE_ICEBERG_MANIFEST_CURSOR_H
#define FLOE_ICEBERG_MANIFEST_CURSOR_H

#include <stdint.h>
#include <string.h>

#include "floe/avro.h"

typedef struct mcur {
    const uint8_t *b;
    size_t len, pos;
} mcur;

static inline fl_status mc_long(mcur *c, int64_t *out, fl_error *err)
{
    uint64_t z = 0;
    size_t p = c->pos;
    *out = 0;
    for (int shift = 0;; shift += 7) {
        if (p >= c->len)
            return fl_errorf(err, FL_ECORRUPT, "truncated varint at byte %zu of the block", c->pos);
        uint8_t byte = c->b[p++];
        if (shift == 63 && (byte & 0x7e))
            return fl_errorf(err, FL_ECORRUPT,
                             "varint longer than 64 bits at byte %zu of the block", c->pos);
        z |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            break;
        if (shift == 63)
            return fl_errorf(err, FL_ECORRUPT,
                             "varint longer than 64 bits at byte %zu of the block", c->pos);
    }
    c->pos = p;
    *out = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
    return FL_OK;
}

/* The branch of union s the datum uses (s itself when not a union). */
static inline fl_status mc_branch(mcur *c, const fl_avro_schema *s, const fl_avro_schema **out,
                                  fl_error *err)
{
    if (s->type != FL_AVRO_UNION) {
        *out = s;
        return FL_OK;
    }
    int64_t idx = 0;
    FL_TRY(mc_long(c, &idx, err));
    if (idx < 0 || (uint64_t)idx >= s->nbranches)
        return fl_errorf(err, FL_ECORRUPT,
                         "union branch %lld out of range (%u branches) at byte %zu of the block",
                         (long long)idx, s->nbranches, c->pos);
    *out = s->branches[idx];
    return FL_OK;
}

/* A primitive datum of non-union schema s into v (bytes point into the block). */
static inline fl_status mc_prim(mcur *c, const fl_avro_schema *s, fl_avro_value *v, fl_error *err)
{
    v->schema = s;
    v->type = s->type;
    v->branch = -1;
    int64_t n = 0;
    switch (s->type) {
    case FL_AVRO_NULL: return FL_OK;
    case FL_AVRO_BOOLEAN:
        if (c->pos >= c->len || c->b[c->pos] > 1)
            return fl_errorf(err, FL_ECORRUPT, "bad boolean at byte %zu of the block", c->pos);
        v->u.b = c->b[c->pos++] != 0;
        return FL_OK;
    case FL_AVRO_INT:
    case FL_AVRO_ENUM:
        FL_TRY(mc_long(c, &n, err));
        if (n < INT32_MIN || n > INT32_MAX)
            return fl_errorf(err, FL_ECORRUPT, "int out of range at byte %zu of the block", c->pos);
        v->u.i = (int32_t)n;
        if (s->type == FL_AVRO_ENUM && (n < 0 || (uint64_t)n >= s->nsymbols))
            return fl_errorf(err, FL_ECORRUPT, "enum index out of range at byte %zu of the block",
                             c->pos);
        return FL_OK;
    case FL_AVRO_LONG: return mc_long(c, &v->u.l, err);
    case FL_AVRO_FLOAT:
    case FL_AVRO_DOUBLE: {
        size_t w = s->type == FL_AVRO_FLOAT ? 4 : 8;
        if (c->len - c->pos < w)
            return fl_errorf(err, FL_ECORRUPT, "truncated %s at byte %zu of the block",
                             fl_avro_type_name(s->type), c->pos);
        if (w == 4)
            memcpy(&v->u.f, c->b + c->pos, 4);
        else
            memcpy(&v->u.d, c->b + c->pos, 8);
        c->pos += w;
        return FL_OK;
    }
    case FL_AVRO_STRING:
    case FL_AVRO_BYTES:
        FL_TRY(mc_long(c, &n, err));
        if (n < 0 || (uint64_t)n > c->len - c->pos)
            return fl_errorf(err, FL_ECORRUPT, "length %lld beyond the block at byte %zu",
                             (long long)n, c->pos);
        v->u.bytes.ptr = c->b + c->pos;
        v->u.bytes.len = (size_t)n;
        c->pos += (size_t)n;
        return FL_OK;
    case FL_AVRO_FIXED:
        if (s->size < 0 || (size_t)s->size > c->len - c->pos)
            return fl_errorf(err, FL_ECORRUPT, "truncated fixed at byte %zu of the block", c->pos);
        v->u.bytes.ptr = c->b + c->pos;
        v->u.bytes.len = (size_t)s->size;
        c->pos += (size_t)s->size;
        return FL_OK;
    default:
        return fl_errorf(err, FL_ETYPE, "expected a primitive value, found %s",
                         fl_avro_type_name(s->type));
    }
}

static inline fl_status mc_skip(mcur *c, const fl_avro_schema *s, fl_error *err)
{
    return fl_avro_skip(s, c->b, c->len, &c->pos, 0, NULL, err);
}

/* Item count of the next array/map block (0 = end). Every item of the
 * arrays read here takes at least one byte, so a count above the bytes left
 * is corrupt. */
static inline fl_status mc_block_count(mcur *c, int64_t *n, fl_error *err)
{
    FL_TRY(mc_long(c, n, err));
    if (*n < 0) {
        int64_t bytes = 0;
        if (*n == INT64_MIN)
            return fl_errorf(err, FL_ECORRUPT, "bad block count at byte %zu of the block", c->pos);
        *n = -*n;
        FL_TRY(mc_long(c, &bytes, err));
    }
    if ((uint64_t)*n > c->len - c->pos)
        return fl_errorf(err, FL_ECORRUPT,
                         "array block of %lld items exceeds the bytes left at byte %zu",
                         (long long)*n, c->pos);
    return FL_OK;
}

#endif
