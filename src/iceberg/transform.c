/*
 * transform.c - Iceberg partition transforms (format/spec.md "Partition
 * Transforms", "Bucket Transform Details", "Truncate Transform Details",
 * Appendix B "32-bit Hash Requirements").
 *
 *   identity      value unchanged
 *   bucket[N]     (murmur3_x86_32(bytes(v)) & INT32_MAX) % N, where bytes(v) is:
 *                 int/long/date/time/timestamp[tz]: the value as int64, 8 bytes LE
 *                 timestamp[tz]_ns: floor(ns / 1000) as int64 (hashed as micros)
 *                 decimal: minimal big-endian two's complement of the unscaled value
 *                 string: UTF-8 bytes; uuid: 16 big-endian bytes; fixed/binary: raw
 *   truncate[W]   int/long/decimal(unscaled): v - (((v % W) + W) % W)
 *                 string: first W code points; binary: first W bytes
 *   year/month    from 1970, via the civil date of floor(ts / day)
 *   day           days from 1970-01-01 (result type date); hour: hours from epoch
 *   void          always null
 * All divisions floor toward negative infinity. Byte results (identity and
 * truncate of strings/binary) borrow the input's bytes.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "floe/calendar.h"
#include "floe/iceberg.h"

#define US_PER_DAY INT64_C(86400000000)
#define US_PER_HOUR INT64_C(3600000000)
#define NS_PER_US INT64_C(1000)

/* ---- murmur3 ------------------------------------------------------------- */

static uint32_t rotl32(uint32_t x, int r)
{
    return (x << r) | (x >> (32 - r));
}

static uint32_t mix_k(uint32_t k)
{
    k *= 0xcc9e2d51u;
    k = rotl32(k, 15);
    return k * 0x1b873593u;
}

int32_t fl_ice_murmur3_32(const uint8_t *data, size_t len)
{
    uint32_t h = 0;
    size_t nblocks = len / 4;
    for (size_t i = 0; i < nblocks; i++) {
        const uint8_t *p = data + i * 4;
        uint32_t k =
            (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        h ^= mix_k(k);
        h = rotl32(h, 13);
        h = h * 5 + 0xe6546b64u;
    }
    const uint8_t *tail = data + nblocks * 4;
    uint32_t k = 0;
    switch (len & 3) {
    case 3: k ^= (uint32_t)tail[2] << 16; /* fall through */
    case 2: k ^= (uint32_t)tail[1] << 8;  /* fall through */
    case 1: k ^= tail[0]; h ^= mix_k(k);
    }
    h ^= (uint32_t)len;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return (int32_t)h;
}

static int32_t hash_long(int64_t v)
{
    uint8_t b[8];
    uint64_t u = (uint64_t)v;
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(u >> (8 * i));
    return fl_ice_murmur3_32(b, 8);
}

fl_status fl_ice_bucket_hash(const fl_value *v, int32_t *hash, fl_error *err)
{
    uint8_t dec[16];
    switch (v->type.id) {
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: *hash = hash_long(v->v.i32); return FL_OK;
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ: *hash = hash_long(v->v.i64); return FL_OK;
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: *hash = hash_long(fl_floor_div(v->v.i64, NS_PER_US)); return FL_OK;
    case FL_TYPE_DECIMAL: {
        size_t n = fl_ice_decimal_to_be_bytes(v->v.dec, dec);
        *hash = fl_ice_murmur3_32(dec, n);
        return FL_OK;
    }
    case FL_TYPE_STRING:
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED:
    case FL_TYPE_BINARY: *hash = fl_ice_murmur3_32(v->v.bytes.ptr, v->v.bytes.len); return FL_OK;
    default: break;
    }
    char name[64];
    fl_type_format(&v->type, name, sizeof name);
    return fl_errorf(err, FL_ETYPE, "bucket: type %s cannot be bucketed", name);
}

/* ---- parsing ------------------------------------------------------------- */

/* "name[<int>]" with optional blanks; *param > 0. Returns false if s is not name[...]. */
static bool param_form(const char *s, const char *name, bool *ok, int32_t *param)
{
    size_t n = strlen(name);
    if (strncmp(s, name, n) != 0 || s[n] != '[')
        return false;
    const char *p = s + n + 1;
    int64_t v = 0;
    *ok = false;
    while (*p == ' ')
        p++;
    if (!isdigit((unsigned char)*p))
        return true;
    while (isdigit((unsigned char)*p)) {
        v = v * 10 + (*p++ - '0');
        if (v > INT32_MAX)
            return true;
    }
    while (*p == ' ')
        p++;
    if (p[0] != ']' || p[1] != 0 || v < 1)
        return true;
    *ok = true;
    *param = (int32_t)v;
    return true;
}

fl_status fl_ice_transform_parse(const char *s, fl_ice_transform *out, fl_error *err)
{
    static const struct {
        const char *name;
        fl_ice_transform_kind kind;
    } simple[] = {
        {"identity", FL_ICE_TRANSFORM_IDENTITY}, {"year", FL_ICE_TRANSFORM_YEAR},
        {"month", FL_ICE_TRANSFORM_MONTH},       {"day", FL_ICE_TRANSFORM_DAY},
        {"hour", FL_ICE_TRANSFORM_HOUR},         {"void", FL_ICE_TRANSFORM_VOID},
    };
    char low[64];
    size_t n = strlen(s);
    out->param = 0;
    out->kind = FL_ICE_TRANSFORM_UNKNOWN;
    if (n >= sizeof low)
        return FL_OK;
    for (size_t i = 0; i <= n; i++)
        low[i] = (char)tolower((unsigned char)s[i]);
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++) {
        if (strcmp(low, simple[i].name) == 0) {
            out->kind = simple[i].kind;
            return FL_OK;
        }
    }
    bool ok = false;
    if (param_form(low, "bucket", &ok, &out->param))
        out->kind = FL_ICE_TRANSFORM_BUCKET;
    else if (param_form(low, "truncate", &ok, &out->param))
        out->kind = FL_ICE_TRANSFORM_TRUNCATE;
    else
        return FL_OK; /* unknown transforms are readable, never applied */
    if (!ok)
        return fl_errorf(err, FL_ECORRUPT, "transform '%s': expected a positive integer parameter",
                         s);
    return FL_OK;
}

size_t fl_ice_transform_format(const fl_ice_transform *t, char *buf, size_t cap)
{
    const char *name = "unknown";
    switch (t->kind) {
    case FL_ICE_TRANSFORM_IDENTITY: name = "identity"; break;
    case FL_ICE_TRANSFORM_BUCKET: return (size_t)snprintf(buf, cap, "bucket[%d]", (int)t->param);
    case FL_ICE_TRANSFORM_TRUNCATE:
        return (size_t)snprintf(buf, cap, "truncate[%d]", (int)t->param);
    case FL_ICE_TRANSFORM_YEAR: name = "year"; break;
    case FL_ICE_TRANSFORM_MONTH: name = "month"; break;
    case FL_ICE_TRANSFORM_DAY: name = "day"; break;
    case FL_ICE_TRANSFORM_HOUR: name = "hour"; break;
    case FL_ICE_TRANSFORM_VOID: name = "void"; break;
    case FL_ICE_TRANSFORM_UNKNOWN: break;
    }
    return (size_t)snprintf(buf, cap, "%s", name);
}

/* ---- result types -------------------------------------------------------- */

static bool is_timestamp(fl_type_id id)
{
    return id == FL_TYPE_TIMESTAMP || id == FL_TYPE_TIMESTAMPTZ || id == FL_TYPE_TIMESTAMP_NS ||
           id == FL_TYPE_TIMESTAMPTZ_NS;
}

static bool is_ns(fl_type_id id)
{
    return id == FL_TYPE_TIMESTAMP_NS || id == FL_TYPE_TIMESTAMPTZ_NS;
}

static bool applies(const fl_ice_transform *t, fl_type_id id)
{
    switch (t->kind) {
    case FL_ICE_TRANSFORM_IDENTITY:
        return id != FL_TYPE_STRUCT && id != FL_TYPE_LIST && id != FL_TYPE_MAP;
    case FL_ICE_TRANSFORM_BUCKET:
        return id == FL_TYPE_INT32 || id == FL_TYPE_INT64 || id == FL_TYPE_DECIMAL ||
               id == FL_TYPE_DATE || id == FL_TYPE_TIME || is_timestamp(id) ||
               id == FL_TYPE_STRING || id == FL_TYPE_UUID || id == FL_TYPE_FIXED ||
               id == FL_TYPE_BINARY;
    case FL_ICE_TRANSFORM_TRUNCATE:
        return id == FL_TYPE_INT32 || id == FL_TYPE_INT64 || id == FL_TYPE_DECIMAL ||
               id == FL_TYPE_STRING || id == FL_TYPE_BINARY;
    case FL_ICE_TRANSFORM_YEAR:
    case FL_ICE_TRANSFORM_MONTH:
    case FL_ICE_TRANSFORM_DAY: return id == FL_TYPE_DATE || is_timestamp(id);
    case FL_ICE_TRANSFORM_HOUR: return is_timestamp(id);
    case FL_ICE_TRANSFORM_VOID: return true;
    case FL_ICE_TRANSFORM_UNKNOWN: return false;
    }
    return false;
}

fl_status fl_ice_transform_result_type(const fl_ice_transform *t, const fl_type *src, fl_type *out,
                                       fl_error *err)
{
    if (!applies(t, src->id)) {
        char tn[32], sn[64];
        fl_ice_transform_format(t, tn, sizeof tn);
        fl_type_format(src, sn, sizeof sn);
        return fl_errorf(err, FL_ETYPE, "transform %s cannot be applied to %s", tn, sn);
    }
    memset(out, 0, sizeof *out);
    switch (t->kind) {
    case FL_ICE_TRANSFORM_BUCKET:
    case FL_ICE_TRANSFORM_YEAR:
    case FL_ICE_TRANSFORM_MONTH:
    case FL_ICE_TRANSFORM_HOUR: out->id = FL_TYPE_INT32; break;
    case FL_ICE_TRANSFORM_DAY: out->id = FL_TYPE_DATE; break;
    default:
        *out = *src;
        out->nchildren = 0;
        out->children = NULL;
        break;
    }
    return FL_OK;
}

/* ---- application --------------------------------------------------------- */

/* Days since the epoch of a date or timestamp value. */
static int64_t value_days(const fl_value *in)
{
    if (in->type.id == FL_TYPE_DATE)
        return in->v.i32;
    int64_t us = is_ns(in->type.id) ? fl_floor_div(in->v.i64, NS_PER_US) : in->v.i64;
    return fl_floor_div(us, US_PER_DAY);
}

static fl_status set_i32(fl_value *out, fl_type_id id, int64_t v, const char *what, fl_error *err)
{
    if (v < INT32_MIN || v > INT32_MAX)
        return fl_errorf(err, FL_EOVERFLOW, "%s: result %lld does not fit in an int", what,
                         (long long)v);
    out->type.id = id;
    out->v.i32 = (int32_t)v;
    return FL_OK;
}

static fl_status apply_time(const fl_ice_transform *t, const fl_value *in, fl_value *out,
                            fl_error *err)
{
    int64_t days = value_days(in), y;
    unsigned m, d;
    switch (t->kind) {
    case FL_ICE_TRANSFORM_DAY: return set_i32(out, FL_TYPE_DATE, days, "day", err);
    case FL_ICE_TRANSFORM_HOUR: {
        int64_t us = is_ns(in->type.id) ? fl_floor_div(in->v.i64, NS_PER_US) : in->v.i64;
        return set_i32(out, FL_TYPE_INT32, fl_floor_div(us, US_PER_HOUR), "hour", err);
    }
    case FL_ICE_TRANSFORM_YEAR:
        fl_civil_from_days(days, &y, &m, &d);
        return set_i32(out, FL_TYPE_INT32, y - 1970, "year", err);
    default:
        fl_civil_from_days(days, &y, &m, &d);
        return set_i32(out, FL_TYPE_INT32, (y - 1970) * 12 + ((int64_t)m - 1), "month", err);
    }
}

/* Byte length of the first w code points of a UTF-8 string. */
static size_t utf8_prefix(const uint8_t *s, size_t len, int32_t w)
{
    int32_t count = 0;
    for (size_t i = 0; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) { /* a lead byte starts a code point */
            if (count == w)
                return i;
            count++;
        }
    }
    return len;
}

static fl_status apply_truncate(int32_t w, const fl_value *in, fl_value *out, fl_error *err)
{
    switch (in->type.id) {
    case FL_TYPE_INT32: {
        int64_t v = in->v.i32;
        return set_i32(out, FL_TYPE_INT32, v - (((v % w) + w) % w), "truncate", err);
    }
    case FL_TYPE_INT64: {
        int64_t v = in->v.i64, r = ((v % w) + w) % w;
        if (__builtin_sub_overflow(v, r, &out->v.i64))
            return fl_errorf(err, FL_EOVERFLOW, "truncate: %lld overflows", (long long)v);
        return FL_OK;
    }
    case FL_TYPE_DECIMAL: {
        fl_i128 v = in->v.dec, r = ((v % w) + w) % w;
        if (__builtin_sub_overflow(v, r, &out->v.dec))
            return fl_errorf(err, FL_EOVERFLOW, "truncate: decimal overflows");
        return FL_OK;
    }
    case FL_TYPE_STRING:
        out->v.bytes.len = utf8_prefix(in->v.bytes.ptr, in->v.bytes.len, w);
        return FL_OK;
    default: /* BINARY */
        out->v.bytes.len = in->v.bytes.len < (size_t)w ? in->v.bytes.len : (size_t)w;
        return FL_OK;
    }
}

fl_status fl_ice_transform_apply(const fl_ice_transform *t, const fl_value *in, fl_value *out,
                                 fl_error *err)
{
    fl_type rt;
    FL_TRY(fl_ice_transform_result_type(t, &in->type, &rt, err));
    if ((t->kind == FL_ICE_TRANSFORM_BUCKET || t->kind == FL_ICE_TRANSFORM_TRUNCATE) &&
        t->param < 1)
        return fl_errorf(err, FL_EINVAL, "transform parameter %d must be positive", (int)t->param);
    *out = *in;
    out->type = rt;
    if (in->is_null || t->kind == FL_ICE_TRANSFORM_VOID) {
        out->is_null = true;
        return FL_OK;
    }
    switch (t->kind) {
    case FL_ICE_TRANSFORM_IDENTITY: return FL_OK;
    case FL_ICE_TRANSFORM_BUCKET: {
        int32_t h;
        FL_TRY(fl_ice_bucket_hash(in, &h, err));
        out->v.i32 = (int32_t)((uint32_t)(h & INT32_MAX) % (uint32_t)t->param);
        return FL_OK;
    }
    case FL_ICE_TRANSFORM_TRUNCATE: return apply_truncate(t->param, in, out, err);
    default: return apply_time(t, in, out, err);
    }
}
