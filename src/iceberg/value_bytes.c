/*
 * value_bytes.c - Iceberg single-value binary serialization (format/spec.md
 * Appendix D), used for manifest lower/upper bounds and partition summaries:
 *
 *   boolean                       1 byte, 0x00 false, anything else true (writes 0x01)
 *   int, date                     4 bytes little-endian
 *   long, time, timestamp[tz][_ns] 8 bytes little-endian
 *   float, double                 IEEE 754 bits, 4 / 8 bytes little-endian
 *   string                        UTF-8 bytes, no length
 *   uuid                          16 bytes big-endian
 *   fixed(L), binary              the bytes
 *   decimal(P,S)                  unscaled value, minimal big-endian two's complement
 *
 * Reading also accepts the lengths left behind by type promotion (spec
 * "Schema Evolution"): a 4-byte int for long, a 4-byte float for double and a
 * 4-byte date (days) for timestamp / timestamp_ns. Nested types have no form.
 */
#include <string.h>

#include "floe/iceberg.h"

static void put_le(uint8_t *b, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *b, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

size_t fl_ice_decimal_to_be_bytes(fl_i128 v, uint8_t buf[16])
{
    unsigned __int128 u = (unsigned __int128)v;
    uint8_t full[16];
    for (int i = 0; i < 16; i++)
        full[15 - i] = (uint8_t)(u >> (8 * i));
    /* Drop leading bytes that only repeat the sign of the next byte. */
    int start = 0;
    while (start < 15) {
        uint8_t b = full[start], next_sign = (full[start + 1] & 0x80) ? 0xFF : 0x00;
        if (b != next_sign)
            break;
        start++;
    }
    memcpy(buf, full + start, (size_t)(16 - start));
    return (size_t)(16 - start);
}

static fl_status check_cap(size_t need, size_t cap, fl_error *err)
{
    if (need > cap)
        return fl_errorf(err, FL_EINVAL, "value bytes: buffer of %zu bytes, need %zu", cap, need);
    return FL_OK;
}

fl_status fl_ice_value_to_bytes(const fl_value *v, uint8_t *buf, size_t cap, const uint8_t **out,
                                size_t *out_len, fl_error *err)
{
    if (v->is_null)
        return fl_errorf(err, FL_EINVAL, "value bytes: null has no binary form");
    uint32_t f32;
    uint64_t f64;
    *out = buf;
    switch (v->type.id) {
    case FL_TYPE_BOOLEAN:
        FL_TRY(check_cap(1, cap, err));
        buf[0] = v->v.b ? 1 : 0;
        *out_len = 1;
        return FL_OK;
    case FL_TYPE_INT32:
    case FL_TYPE_DATE:
        FL_TRY(check_cap(4, cap, err));
        put_le(buf, (uint32_t)v->v.i32, 4);
        *out_len = 4;
        return FL_OK;
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS:
        FL_TRY(check_cap(8, cap, err));
        put_le(buf, (uint64_t)v->v.i64, 8);
        *out_len = 8;
        return FL_OK;
    case FL_TYPE_FLOAT32:
        FL_TRY(check_cap(4, cap, err));
        memcpy(&f32, &v->v.f32, 4);
        put_le(buf, f32, 4);
        *out_len = 4;
        return FL_OK;
    case FL_TYPE_FLOAT64:
        FL_TRY(check_cap(8, cap, err));
        memcpy(&f64, &v->v.f64, 8);
        put_le(buf, f64, 8);
        *out_len = 8;
        return FL_OK;
    case FL_TYPE_DECIMAL: {
        uint8_t tmp[16];
        size_t n = fl_ice_decimal_to_be_bytes(v->v.dec, tmp);
        FL_TRY(check_cap(n, cap, err));
        memcpy(buf, tmp, n);
        *out_len = n;
        return FL_OK;
    }
    case FL_TYPE_UUID:
        if (v->v.bytes.len != 16)
            return fl_errorf(err, FL_EINVAL, "value bytes: uuid of %zu bytes", v->v.bytes.len);
        /* fall through */
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY:
    case FL_TYPE_FIXED:
        *out = v->v.bytes.ptr;
        *out_len = v->v.bytes.len;
        return FL_OK;
    default: break;
    }
    return fl_errorf(err, FL_ETYPE, "value bytes: nested types have no binary form");
}

static fl_status bad_len(const fl_type *t, size_t len, fl_error *err)
{
    char name[64];
    fl_type_format(t, name, sizeof name);
    return fl_errorf(err, FL_ECORRUPT, "value bytes: %zu bytes is not a valid %s", len, name);
}

/* Timestamps promoted from date: 4 bytes of days. */
static int64_t days_to_unit(int32_t days, fl_type_id id)
{
    int64_t per_day = INT64_C(86400000000);
    if (id == FL_TYPE_TIMESTAMP_NS || id == FL_TYPE_TIMESTAMPTZ_NS)
        per_day *= 1000;
    return (int64_t)days * per_day;
}

static fl_status decimal_from_bytes(const fl_type *t, const uint8_t *buf, size_t len, fl_value *out,
                                    fl_error *err)
{
    if (len == 0 || len > 16)
        return bad_len(t, len, err);
    unsigned __int128 u = (buf[0] & 0x80) ? ~(unsigned __int128)0 : 0;
    for (size_t i = 0; i < len; i++)
        u = (u << 8) | buf[i];
    out->v.dec = (fl_i128)u;
    return FL_OK;
}

fl_status fl_ice_value_from_bytes(const fl_type *t, const uint8_t *buf, size_t len, fl_value *out,
                                  fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->type = *t;
    out->type.nchildren = 0;
    out->type.children = NULL;
    uint32_t f32;
    uint64_t f64;
    switch (t->id) {
    case FL_TYPE_BOOLEAN:
        if (len != 1)
            return bad_len(t, len, err);
        out->v.b = buf[0] != 0;
        return FL_OK;
    case FL_TYPE_INT32:
    case FL_TYPE_DATE:
        if (len != 4)
            return bad_len(t, len, err);
        out->v.i32 = (int32_t)(uint32_t)get_le(buf, 4);
        return FL_OK;
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
        if (len == 4 && t->id == FL_TYPE_INT64) { /* promoted from int */
            out->v.i64 = (int32_t)(uint32_t)get_le(buf, 4);
            return FL_OK;
        }
        if (len != 8)
            return bad_len(t, len, err);
        out->v.i64 = (int64_t)get_le(buf, 8);
        return FL_OK;
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS:
        if (len == 4) { /* promoted from date */
            out->v.i64 = days_to_unit((int32_t)(uint32_t)get_le(buf, 4), t->id);
            return FL_OK;
        }
        if (len != 8)
            return bad_len(t, len, err);
        out->v.i64 = (int64_t)get_le(buf, 8);
        return FL_OK;
    case FL_TYPE_FLOAT32:
        if (len != 4)
            return bad_len(t, len, err);
        f32 = (uint32_t)get_le(buf, 4);
        memcpy(&out->v.f32, &f32, 4);
        return FL_OK;
    case FL_TYPE_FLOAT64:
        if (len == 4) { /* promoted from float */
            float f;
            f32 = (uint32_t)get_le(buf, 4);
            memcpy(&f, &f32, 4);
            out->v.f64 = f;
            return FL_OK;
        }
        if (len != 8)
            return bad_len(t, len, err);
        f64 = get_le(buf, 8);
        memcpy(&out->v.f64, &f64, 8);
        return FL_OK;
    case FL_TYPE_DECIMAL: return decimal_from_bytes(t, buf, len, out, err);
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED:
        if (len != (t->id == FL_TYPE_UUID ? 16u : (size_t)t->fixed_len))
            return bad_len(t, len, err);
        /* fall through */
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY:
        out->v.bytes.ptr = buf;
        out->v.bytes.len = len;
        return FL_OK;
    default: break;
    }
    return fl_errorf(err, FL_ETYPE, "value bytes: nested types have no binary form");
}
