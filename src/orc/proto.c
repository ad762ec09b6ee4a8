/*
 * proto.c - a bounded protobuf wire-format cursor for ORC's tail messages
 * (PostScript, Footer, Metadata, StripeFooter). Only what ORC uses: varint,
 * fixed32/64, length-delimited fields; groups are refused. Every length is
 * checked against the message end, varints are at most 10 bytes.
 */
#include <string.h>

#include "orc/orc_int.h"

void orc_pb_init(orc_pb *c, const uint8_t *p, size_t len, const char *what)
{
    c->start = c->p = p;
    c->end = p + len;
    c->what = what;
}

static fl_status pb_bad(const orc_pb *c, const char *why, fl_error *err)
{
    return fl_errorf(err, FL_ECORRUPT, "%s: %s at byte %zu", c->what, why,
                     (size_t)(c->p - c->start));
}

static fl_status pb_varint(orc_pb *c, uint64_t *out, fl_error *err)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (c->p >= c->end)
            return pb_bad(c, "truncated varint", err);
        uint8_t byte = *c->p++;
        if (shift == 63 && (byte & 0x7e))
            return pb_bad(c, "varint overflows 64 bits", err);
        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *out = v;
            return FL_OK;
        }
    }
    return pb_bad(c, "varint longer than 10 bytes", err);
}

int orc_pb_next(orc_pb *c, orc_pbf *f, fl_error *err)
{
    if (c->p >= c->end)
        return 0;
    uint64_t key = 0;
    FL_TRY(pb_varint(c, &key, err));
    memset(f, 0, sizeof *f);
    if ((key >> 3) == 0 || (key >> 3) > UINT32_MAX)
        return pb_bad(c, "bad field number", err);
    f->num = (uint32_t)(key >> 3);
    f->wt = (uint32_t)(key & 7);
    switch (f->wt) {
    case 0: FL_TRY(pb_varint(c, &f->v, err)); break;
    case 1:
        if (c->end - c->p < 8)
            return pb_bad(c, "truncated fixed64", err);
        for (int i = 7; i >= 0; i--)
            f->v = (f->v << 8) | c->p[i];
        c->p += 8;
        break;
    case 5:
        if (c->end - c->p < 4)
            return pb_bad(c, "truncated fixed32", err);
        f->v = (uint32_t)c->p[0] | (uint32_t)c->p[1] << 8 | (uint32_t)c->p[2] << 16 |
               (uint32_t)c->p[3] << 24;
        c->p += 4;
        break;
    case 2: {
        uint64_t n = 0;
        FL_TRY(pb_varint(c, &n, err));
        if (n > (uint64_t)(c->end - c->p))
            return pb_bad(c, "length-delimited field runs past the message", err);
        f->ptr = c->p;
        f->len = (size_t)n;
        c->p += n;
        break;
    }
    default: return pb_bad(c, "unsupported wire type", err);
    }
    return 1;
}

static fl_status push_u32(fl_arena *a, uint32_t **vals, uint32_t *n, uint32_t *cap, uint64_t v,
                          fl_error *err)
{
    if (v > UINT32_MAX)
        return fl_errorf(err, FL_ECORRUPT, "repeated uint32 value %llu out of range",
                         (unsigned long long)v);
    if (*n == *cap) {
        if (*cap >= (1u << 24))
            return fl_errorf(err, FL_ELIMIT, "repeated field has too many values");
        uint32_t ncap = *cap ? *cap * 2 : 8;
        uint32_t *nv = fl_arena_alloc(a, (size_t)ncap * sizeof *nv);
        if (!nv)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (*n)
            memcpy(nv, *vals, (size_t)*n * sizeof *nv);
        *vals = nv;
        *cap = ncap;
    }
    (*vals)[(*n)++] = (uint32_t)v;
    return FL_OK;
}

fl_status orc_pb_u32s(fl_arena *a, const orc_pbf *f, uint32_t **vals, uint32_t *n, uint32_t *cap,
                      fl_error *err)
{
    if (f->wt == 0)
        return push_u32(a, vals, n, cap, f->v, err);
    if (f->wt != 2)
        return fl_errorf(err, FL_ECORRUPT, "repeated uint32 field has wire type %u", f->wt);
    orc_pb c;
    orc_pb_init(&c, f->ptr, f->len, "packed uint32 list");
    while (c.p < c.end) {
        uint64_t v = 0;
        FL_TRY(pb_varint(&c, &v, err));
        FL_TRY(push_u32(a, vals, n, cap, v, err));
    }
    return FL_OK;
}
