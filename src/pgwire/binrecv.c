/*
 * binrecv.c - binary-format Bind parameters (the *recv side of binfmt.c's
 * layouts) into fl_values that fl_sql_stmt_execute casts to the parameter
 * types. Every length is checked against the type's size; malformed input
 * is a message naming the type (the caller reports 22P03
 * invalid_binary_representation).
 *
 * Ownership: variable-length values point into the message buffer (in);
 * interval bytes are allocated in the arena a.
 */
#include <string.h>

#include "floe/pgtypes.h"
#include "pgwire/pgw.h"

#define PG_EPOCH_DAYS 10957
#define PG_EPOCH_US 946684800000000LL

static uint64_t rd(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

bool pgw_numeric_decode(const uint8_t *in, size_t n, fl_i128 *out, int32_t *scale, fl_error *err)
{
    if (n < 8) {
        fl_errorf(err, FL_ECORRUPT, "numeric: %zu bytes, need at least 8", n);
        return false;
    }
    uint16_t nd = (uint16_t)rd(in, 2), sign = (uint16_t)rd(in + 4, 2);
    int16_t weight = (int16_t)rd(in + 2, 2);
    int32_t dscale = (int16_t)rd(in + 6, 2);
    if (n != 8 + 2 * (size_t)nd) {
        fl_errorf(err, FL_ECORRUPT, "numeric: %u digits need %zu bytes, got %zu", nd,
                  8 + 2 * (size_t)nd, n);
        return false;
    }
    if (sign != 0 && sign != 0x4000) {
        fl_errorf(err, FL_EUNSUPPORTED, "numeric: NaN and infinity are not supported");
        return false;
    }
    if (dscale < 0 || dscale > 38) {
        fl_errorf(err, FL_EOVERFLOW, "numeric: scale %d outside 0..38", dscale);
        return false;
    }
    static const fl_i128 LIMIT = (fl_i128)10000000000000000000ULL * (fl_i128)10000000000000000000ULL;
    fl_i128 acc = 0;
    for (uint16_t i = 0; i < nd; i++) {
        uint16_t d = (uint16_t)rd(in + 8 + 2 * i, 2);
        if (d > 9999) {
            fl_errorf(err, FL_ECORRUPT, "numeric: digit %u is %u, above 9999", i, d);
            return false;
        }
        int e = 4 * (weight - i) + dscale; /* decimal exponent of this group's last digit */
        if (e < 0) {
            int drop = -e;
            uint16_t p10 = drop >= 4 ? 10000 : (uint16_t)(drop == 1 ? 10 : drop == 2 ? 100 : 1000);
            if (drop >= 4 ? d != 0 : d % p10 != 0) {
                fl_errorf(err, FL_EOVERFLOW, "numeric: more fraction digits than its scale %d",
                          dscale);
                return false;
            }
            if (drop >= 4)
                continue;
            d = (uint16_t)(d / p10);
            e = 0;
        }
        fl_i128 term = d;
        for (int k = 0; k < e; k++) {
            if (term > LIMIT / 10 + 1) {
                fl_errorf(err, FL_EOVERFLOW, "numeric: more than 38 digits");
                return false;
            }
            term *= 10;
        }
        if (term >= LIMIT || acc >= LIMIT - term) {
            fl_errorf(err, FL_EOVERFLOW, "numeric: more than 38 digits");
            return false;
        }
        acc += term;
    }
    *out = sign == 0x4000 ? -acc : acc;
    *scale = dscale;
    return true;
}

static bool need(size_t n, size_t want, const char *type, fl_error *err)
{
    if (n == want)
        return true;
    fl_errorf(err, FL_ECORRUPT, "binary %s must be %zu bytes, got %zu", type, want, n);
    return false;
}

bool pgw_bin_decode(uint32_t oid, const uint8_t *in, size_t n, fl_arena *a, fl_value *out,
                    fl_error *err)
{
    memset(out, 0, sizeof *out);
    switch (oid) {
    case FL_PG_OID_BOOL:
        out->type.id = FL_TYPE_BOOLEAN;
        if (!need(n, 1, "boolean", err))
            return false;
        out->v.b = in[0] != 0;
        return true;
    case FL_PG_OID_INT2:
        out->type.id = FL_TYPE_INT32;
        if (!need(n, 2, "smallint", err))
            return false;
        out->v.i32 = (int16_t)rd(in, 2);
        return true;
    case FL_PG_OID_INT4:
        out->type.id = FL_TYPE_INT32;
        if (!need(n, 4, "integer", err))
            return false;
        out->v.i32 = (int32_t)(uint32_t)rd(in, 4);
        return true;
    case FL_PG_OID_OID:
        out->type.id = FL_TYPE_INT64;
        if (!need(n, 4, "oid", err))
            return false;
        out->v.i64 = (int64_t)rd(in, 4);
        return true;
    case FL_PG_OID_INT8:
        out->type.id = FL_TYPE_INT64;
        if (!need(n, 8, "bigint", err))
            return false;
        out->v.i64 = (int64_t)rd(in, 8);
        return true;
    case FL_PG_OID_FLOAT4: {
        out->type.id = FL_TYPE_FLOAT32;
        if (!need(n, 4, "real", err))
            return false;
        uint32_t x = (uint32_t)rd(in, 4);
        memcpy(&out->v.f32, &x, 4);
        return true;
    }
    case FL_PG_OID_FLOAT8: {
        out->type.id = FL_TYPE_FLOAT64;
        if (!need(n, 8, "double precision", err))
            return false;
        uint64_t x = rd(in, 8);
        memcpy(&out->v.f64, &x, 8);
        return true;
    }
    case FL_PG_OID_NUMERIC:
        out->type.id = FL_TYPE_DECIMAL;
        out->type.precision = 38;
        return pgw_numeric_decode(in, n, &out->v.dec, &out->type.scale, err);
    case FL_PG_OID_DATE:
        out->type.id = FL_TYPE_DATE;
        if (!need(n, 4, "date", err))
            return false;
        out->v.i32 = (int32_t)(uint32_t)rd(in, 4) + PG_EPOCH_DAYS;
        return true;
    case FL_PG_OID_TIME:
        out->type.id = FL_TYPE_TIME;
        if (!need(n, 8, "time", err))
            return false;
        out->v.i64 = (int64_t)rd(in, 8);
        return true;
    case FL_PG_OID_TIMESTAMP:
    case FL_PG_OID_TIMESTAMPTZ:
        out->type.id = oid == FL_PG_OID_TIMESTAMP ? FL_TYPE_TIMESTAMP : FL_TYPE_TIMESTAMPTZ;
        if (!need(n, 8, "timestamp", err))
            return false;
        out->v.i64 = (int64_t)rd(in, 8) + PG_EPOCH_US;
        return true;
    case FL_PG_OID_UUID:
        out->type.id = FL_TYPE_UUID;
        out->type.fixed_len = 16;
        if (!need(n, 16, "uuid", err))
            return false;
        out->v.bytes.ptr = in;
        out->v.bytes.len = 16;
        return true;
    case FL_PG_OID_INTERVAL: {
        out->type.id = FL_TYPE_FIXED;
        out->type.fixed_len = 16;
        out->type.precision = FL_SQL_INTERVAL_MARK;
        if (!need(n, 16, "interval", err))
            return false;
        int64_t us = (int64_t)rd(in, 8);
        int32_t days = (int32_t)(uint32_t)rd(in + 8, 4), months = (int32_t)(uint32_t)rd(in + 12, 4);
        uint8_t *p = fl_arena_alloc(a, 16);
        if (!p) {
            fl_errorf(err, FL_ENOMEM, "out of memory");
            return false;
        }
        memcpy(p, &months, 4);
        memcpy(p + 4, &days, 4);
        memcpy(p + 8, &us, 8);
        out->v.bytes.ptr = p;
        out->v.bytes.len = 16;
        return true;
    }
    case FL_PG_OID_BYTEA:
        out->type.id = FL_TYPE_BINARY;
        out->v.bytes.ptr = in;
        out->v.bytes.len = n;
        return true;
    case 0:
    case FL_PG_OID_TEXT:
    case FL_PG_OID_VARCHAR:
    case FL_PG_OID_BPCHAR:
    case FL_PG_OID_NAME:
    case FL_PG_OID_JSON:
    case FL_PG_OID_UNKNOWN:
        out->type.id = FL_TYPE_STRING;
        out->v.bytes.ptr = in;
        out->v.bytes.len = n;
        return true;
    default:
        fl_errorf(err, FL_EUNSUPPORTED,
                  "binary parameters of type OID %u are not supported; send them as text", oid);
        return false;
    }
}
