/*
 * proto_write.c - growable byte buffers and the protobuf wire encoder for
 * the ORC writer's tail messages (PostScript, Footer, Metadata, StripeFooter,
 * ColumnStatistics). Only the wire types ORC uses: varint (0), fixed64 (1)
 * and length-delimited (2). Nested messages are built in their own buffer
 * and appended length-delimited.
 */
#include <stdlib.h>
#include <string.h>

#include "orc/orc_write.h"

fl_status orc_buf_reserve(orc_buf *b, size_t more, fl_error *err)
{
    if (b->cap - b->len >= more)
        return FL_OK;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < more) {
        if (cap > SIZE_MAX / 2)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        cap *= 2;
    }
    uint8_t *p = realloc(b->p, cap);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    b->p = p;
    b->cap = cap;
    return FL_OK;
}

fl_status orc_buf_put(orc_buf *b, const void *p, size_t n, fl_error *err)
{
    if (n == 0)
        return FL_OK;
    FL_TRY(orc_buf_reserve(b, n, err));
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return FL_OK;
}

fl_status orc_buf_byte(orc_buf *b, uint8_t x, fl_error *err)
{
    FL_TRY(orc_buf_reserve(b, 1, err));
    b->p[b->len++] = x;
    return FL_OK;
}

fl_status orc_buf_uvarint(orc_buf *b, uint64_t v, fl_error *err)
{
    FL_TRY(orc_buf_reserve(b, 10, err));
    while (v >= 0x80) {
        b->p[b->len++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b->p[b->len++] = (uint8_t)v;
    return FL_OK;
}

void orc_buf_free(orc_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static fl_status tag(orc_buf *b, uint32_t field, uint32_t wire, fl_error *err)
{
    return orc_buf_uvarint(b, (uint64_t)field << 3 | wire, err);
}

fl_status orc_pbw_varint(orc_buf *b, uint32_t field, uint64_t v, fl_error *err)
{
    FL_TRY(tag(b, field, 0, err));
    return orc_buf_uvarint(b, v, err);
}

fl_status orc_pbw_sint(orc_buf *b, uint32_t field, int64_t v, fl_error *err)
{
    return orc_pbw_varint(b, field, orc_zigzag(v), err);
}

fl_status orc_pbw_double(orc_buf *b, uint32_t field, double v, fl_error *err)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint8_t le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (uint8_t)(bits >> (8 * i));
    FL_TRY(tag(b, field, 1, err));
    return orc_buf_put(b, le, 8, err);
}

fl_status orc_pbw_bytes(orc_buf *b, uint32_t field, const void *p, size_t n, fl_error *err)
{
    FL_TRY(tag(b, field, 2, err));
    FL_TRY(orc_buf_uvarint(b, n, err));
    return orc_buf_put(b, p, n, err);
}
