/*
 * binfmt.c - PostgreSQL's binary (send/recv) format for every type floe
 * reports (pgtypes.h), as PostgreSQL 15's send/recv functions write them
 * (src/backend/utils/adt): all integers big-endian.
 *
 *   bool         1 byte 0/1                         (boolsend)
 *   int2/4/8     2/4/8 bytes                         (int2send...)
 *   float4/8     IEEE bits, 4/8 bytes                (float4send)
 *   numeric      int16 ndigits, int16 weight, int16 sign (0x0000 +, 0x4000 -,
 *                0xC000 NaN), int16 dscale, ndigits int16 base-10000 digits,
 *                most significant first; value = sum d[i] * 10000^(weight-i);
 *                no leading/trailing zero digits; zero = ndigits 0, weight 0
 *   date         int32 days since 2000-01-01         (date_send)
 *   time         int64 microseconds since midnight   (time_send)
 *   timestamp[tz] int64 microseconds since 2000-01-01 00:00 UTC
 *   interval     int64 microseconds, int32 days, int32 months (interval_send)
 *   uuid         16 bytes                            (uuid_send)
 *   text, bytea, json  the raw bytes
 *   arrays       int32 ndim (1; 0 when empty), int32 has-nulls flag, int32
 *                element OID, per dimension int32 size + int32 lower bound
 *                (1), then per element int32 length (-1 NULL) + bytes
 *                (array_send)
 * STRUCT, MAP and lists without an array type (of lists, of maps) are
 * reported as json and sent as their JSON text (format.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "floe/calendar.h"
#include "floe/pgtypes.h"
#include "pgwire/pgw.h"

void pgw_buf_put(pgw_buf *b, const void *p, size_t n)
{
    if (!b->oom && fl_buf_append(&b->buf, p, n, NULL) != FL_OK)
        b->oom = true;
}

void pgw_buf_free(pgw_buf *b)
{
    fl_buf_free(&b->buf);
    b->oom = false;
}

static void be16(pgw_buf *b, uint16_t v)
{
    uint8_t x[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    pgw_buf_put(b, x, 2);
}

static void be32(pgw_buf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    pgw_buf_put(b, x, 4);
}

static void be64(pgw_buf *b, uint64_t v)
{
    be32(b, (uint32_t)(v >> 32));
    be32(b, (uint32_t)v);
}

void pgw_numeric_encode(fl_i128 u, int32_t scale, pgw_buf *b)
{
    bool neg = u < 0;
    unsigned __int128 m = neg ? (unsigned __int128)0 - (unsigned __int128)u : (unsigned __int128)u;
    char d[48];
    int nd = 0;
    do {
        d[nd++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m);
    for (int i = 0; i < nd / 2; i++) { /* most significant first */
        char t = d[i];
        d[i] = d[nd - 1 - i];
        d[nd - 1 - i] = t;
    }
    if (scale < 0)
        scale = 0;
    /* digit string padded: integer part to a multiple of 4 on the left,
     * fraction to a multiple of 4 on the right */
    int intd = nd - scale; /* may be <= 0 */
    int ilen = intd > 0 ? intd : 0;
    int ipad = (4 - ilen % 4) % 4, flen = scale, fpad = (4 - flen % 4) % 4;
    int total = ipad + ilen + flen + fpad;
    char *s = malloc((size_t)total + 1);
    if (!s) {
        b->oom = true;
        return;
    }
    memset(s, '0', (size_t)total);
    /* the nd digits end at position ipad + ilen + flen */
    memcpy(s + ipad + ilen + flen - nd, d, (size_t)nd);
    int ngroups = total / 4, igroups = (ipad + ilen) / 4;
    uint16_t g[20];
    int n = 0;
    for (int i = 0; i < ngroups && n < 20; i++) {
        const char *q = s + 4 * i;
        g[n++] = (uint16_t)((q[0] - '0') * 1000 + (q[1] - '0') * 100 + (q[2] - '0') * 10 +
                            (q[3] - '0'));
    }
    free(s);
    int weight = igroups - 1, first = 0;
    while (first < n && g[first] == 0) {
        first++;
        weight--;
    }
    while (n > first && g[n - 1] == 0)
        n--;
    if (first == n)
        weight = 0;
    be16(b, (uint16_t)(n - first));
    be16(b, (uint16_t)(int16_t)weight);
    be16(b, first < n && neg ? 0x4000 : 0);
    be16(b, (uint16_t)scale);
    for (int i = first; i < n; i++)
        be16(b, g[i]);
}

static const uint8_t *slot(const fl_vector *v, uint32_t row, const fl_vector **base, uint32_t *r)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    *base = u.base;
    *r = fl_unified_row(&u, row);
    return u.base->data;
}

static bool encode_array(const fl_vector *base, uint32_t r, pgw_buf *b);

bool pgw_bin_encode(const fl_vector *v, uint32_t row, pgw_buf *b)
{
    const fl_vector *base;
    uint32_t r;
    const uint8_t *d = slot(v, row, &base, &r);
    const fl_type *t = base->type;
    switch (t->id) {
    case FL_TYPE_BOOLEAN: {
        uint8_t x = d[r] ? 1 : 0;
        pgw_buf_put(b, &x, 1);
        return true;
    }
    case FL_TYPE_INT32:
        be32(b, (uint32_t)((const int32_t *)d)[r]);
        return true;
    case FL_TYPE_INT64:
        be64(b, (uint64_t)((const int64_t *)d)[r]);
        return true;
    case FL_TYPE_FLOAT32: {
        uint32_t x;
        memcpy(&x, d + 4 * (size_t)r, 4);
        be32(b, x);
        return true;
    }
    case FL_TYPE_FLOAT64: {
        uint64_t x;
        memcpy(&x, d + 8 * (size_t)r, 8);
        be64(b, x);
        return true;
    }
    case FL_TYPE_DECIMAL: {
        fl_i128 x;
        memcpy(&x, d + 16 * (size_t)r, 16);
        pgw_numeric_encode(x, t->scale, b);
        return true;
    }
    case FL_TYPE_DATE: be32(b, (uint32_t)(((const int32_t *)d)[r] - FL_PG_EPOCH_DAYS)); return true;
    case FL_TYPE_TIME:
        be64(b, (uint64_t)((const int64_t *)d)[r]);
        return true;
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
        be64(b, (uint64_t)(((const int64_t *)d)[r] - FL_PG_EPOCH_US));
        return true;
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: {
        int64_t ns = ((const int64_t *)d)[r];
        int64_t us = ns / 1000 - (ns % 1000 < 0 ? 1 : 0);
        be64(b, (uint64_t)(us - FL_PG_EPOCH_US));
        return true;
    }
    case FL_TYPE_UUID:
        pgw_buf_put(b, d + 16 * (size_t)r, 16);
        return true;
    case FL_TYPE_FIXED:
        if (fl_type_is_interval(t)) {
            int32_t months, days;
            int64_t us;
            const uint8_t *p = d + 16 * (size_t)r;
            memcpy(&months, p, 4);
            memcpy(&days, p + 4, 4);
            memcpy(&us, p + 8, 8);
            be64(b, (uint64_t)us);
            be32(b, (uint32_t)days);
            be32(b, (uint32_t)months);
            return true;
        }
        pgw_buf_put(b, d + (size_t)t->fixed_len * r, (size_t)t->fixed_len);
        return true;
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY:
        if (!fl_type_is_variant(t)) {
            size_t n;
            const uint8_t *p = fl_vector_bytes(base, r, &n);
            pgw_buf_put(b, p, n);
            return true;
        }
        /* a variant goes out as json, its JSON text */
        goto as_json;
    case FL_TYPE_LIST:
        if (fl_pg_type_oid(t) != FL_PG_OID_JSON)
            return encode_array(base, r, b);
        /* a list of lists or maps has no array type: json, like STRUCT and MAP */
        goto as_json;
    default:
    as_json: { /* STRUCT, MAP: json text (json's binary form is its text) */
        char small[256];
        size_t need = fl_sql_format_value(v, row, "UTC", small, sizeof small);
        if (need < sizeof small) {
            pgw_buf_put(b, small, need);
            return true;
        }
        char *big = malloc(need + 1);
        if (!big)
            return false;
        fl_sql_format_value(v, row, "UTC", big, need + 1);
        pgw_buf_put(b, big, need);
        free(big);
        return true;
    }
    }
}

static bool encode_array(const fl_vector *base, uint32_t r, pgw_buf *b)
{
    const fl_vector *child = &base->children[0];
    int64_t lo = base->offsets[r], hi = base->offsets[r + 1];
    uint32_t n = (uint32_t)(hi - lo);
    fl_unified cu;
    fl_vector_unify(child, &cu);
    bool nulls = false;
    for (int64_t i = lo; i < hi; i++)
        if (!fl_unified_is_valid(&cu, (uint32_t)i))
            nulls = true;
    be32(b, n ? 1 : 0);
    be32(b, nulls ? 1 : 0);
    be32(b, fl_pg_type_oid(child->type));
    if (n) {
        be32(b, n);
        be32(b, 1);
    }
    for (int64_t i = lo; i < hi; i++) {
        if (!fl_unified_is_valid(&cu, (uint32_t)i)) {
            be32(b, 0xffffffffu);
            continue;
        }
        size_t at = b->buf.len;
        be32(b, 0);
        if (!pgw_bin_encode(child, (uint32_t)i, b))
            return false;
        if (b->oom)
            return false;
        uint32_t len = (uint32_t)(b->buf.len - at - 4);
        b->buf.bytes[at] = (uint8_t)(len >> 24);
        b->buf.bytes[at + 1] = (uint8_t)(len >> 16);
        b->buf.bytes[at + 2] = (uint8_t)(len >> 8);
        b->buf.bytes[at + 3] = (uint8_t)len;
    }
    return !b->oom;
}
