/*
 * pg_types.c - PostgreSQL column types and values, as pgoutput sends them,
 * into floe types and values (pg_cdc.h: pgcdc_type_for, pgcdc_datum_value).
 *
 *   PostgreSQL                       floe
 *   bool                             BOOLEAN
 *   int2, int4                       INT32
 *   int8, oid                        INT64
 *   float4 / float8                  FLOAT32 / FLOAT64
 *   numeric(p,s), p <= 38, s >= 0    DECIMAL(p,s)
 *   numeric (no typmod)              DECIMAL(38,18), exact = false
 *   text, varchar, bpchar, name      STRING
 *   json, jsonb                      STRING (the JSON text)
 *   bytea                            BINARY
 *   date, time                       DATE, TIME
 *   timestamp, timestamptz           TIMESTAMP, TIMESTAMPTZ (microseconds)
 *   uuid                             UUID
 *   anything else                    STRING (the type's text output), exact = false
 *
 * The OIDs are the public ones of floe/pgtypes.h (the pgwire server's), plus
 * jsonb, which that table does not name.
 *
 * Text values go through the text subsystem's parsers (floe/text.h), which
 * accept PostgreSQL's ISO output. One check is ours: a value of an
 * unconstrained numeric column with more fraction digits than the column's
 * scale is an overflow, never rounded, so no digit is dropped silently.
 */
#include <string.h>

#include "floe/calendar.h"
#include "floe/pgtypes.h"
#include "floe/text.h"
#include "ingest/pg_cdc.h"

#define PG_OID_JSONB 3802
#define UNBOUNDED_NUMERIC_SCALE 18

static void set_id(fl_type *t, fl_type_id id)
{
    memset(t, 0, sizeof *t);
    t->id = id;
}

static void numeric_type(int32_t typmod, fl_type *out, bool *exact)
{
    if (typmod < 4) { /* no typmod: numeric of any precision and scale */
        set_id(out, FL_TYPE_DECIMAL);
        out->precision = 38;
        out->scale = UNBOUNDED_NUMERIC_SCALE;
        *exact = false;
        return;
    }
    int32_t p = ((typmod - 4) >> 16) & 0xffff;
    /* the scale is an 11-bit signed field since PostgreSQL 15 (numeric(5,-2)) */
    int32_t s = (((typmod - 4) & 0x7ff) ^ 1024) - 1024;
    if (p < 1 || p > 38 || s < 0 || s > p) {
        set_id(out, FL_TYPE_STRING);
        *exact = false;
        return;
    }
    set_id(out, FL_TYPE_DECIMAL);
    out->precision = p;
    out->scale = s;
}

void pgcdc_type_for(uint32_t oid, int32_t typmod, fl_type *out, bool *exact)
{
    *exact = true;
    switch (oid) {
    case FL_PG_OID_BOOL: set_id(out, FL_TYPE_BOOLEAN); return;
    case FL_PG_OID_INT2:
    case FL_PG_OID_INT4: set_id(out, FL_TYPE_INT32); return;
    case FL_PG_OID_INT8:
    case FL_PG_OID_OID: set_id(out, FL_TYPE_INT64); return;
    case FL_PG_OID_FLOAT4: set_id(out, FL_TYPE_FLOAT32); return;
    case FL_PG_OID_FLOAT8: set_id(out, FL_TYPE_FLOAT64); return;
    case FL_PG_OID_NUMERIC: numeric_type(typmod, out, exact); return;
    case FL_PG_OID_TEXT:
    case FL_PG_OID_VARCHAR:
    case FL_PG_OID_BPCHAR:
    case FL_PG_OID_NAME:
    case FL_PG_OID_JSON:
    case PG_OID_JSONB: set_id(out, FL_TYPE_STRING); return;
    case FL_PG_OID_BYTEA: set_id(out, FL_TYPE_BINARY); return;
    case FL_PG_OID_DATE: set_id(out, FL_TYPE_DATE); return;
    case FL_PG_OID_TIME: set_id(out, FL_TYPE_TIME); return;
    case FL_PG_OID_TIMESTAMP: set_id(out, FL_TYPE_TIMESTAMP); return;
    case FL_PG_OID_TIMESTAMPTZ: set_id(out, FL_TYPE_TIMESTAMPTZ); return;
    case FL_PG_OID_UUID:
        set_id(out, FL_TYPE_UUID);
        out->fixed_len = 16;
        return;
    default:
        set_id(out, FL_TYPE_STRING);
        *exact = false;
        return;
    }
}

/* Fraction digits of a numeric's text ("-12.3400" -> 4). */
static size_t fraction_digits(const char *s, size_t n)
{
    const char *dot = memchr(s, '.', n);
    return dot ? n - (size_t)(dot - s) - 1 : 0;
}

static uint64_t be(const uint8_t *p, int k)
{
    uint64_t v = 0;
    for (int i = 0; i < k; i++)
        v = v << 8 | p[i];
    return v;
}

static fl_status copy_bytes(const uint8_t *p, size_t n, fl_arena *a, fl_value *out, fl_error *err)
{
    uint8_t *c = fl_arena_alloc(a, n + 1);
    if (!c)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    memcpy(c, p, n);
    out->v.bytes.ptr = c;
    out->v.bytes.len = n;
    return FL_OK;
}

/* The send format of the fixed-width types, text and bytea. */
static fl_status binary_value(const pgcdc_column *col, const pgcdc_datum *d, fl_arena *a,
                              fl_value *out, fl_error *err)
{
    size_t want = 0;
    uint32_t oid = col->type_oid;
    switch (oid) {
    case FL_PG_OID_BOOL: want = 1; break;
    case FL_PG_OID_INT2: want = 2; break;
    case FL_PG_OID_INT4:
    case FL_PG_OID_OID:
    case FL_PG_OID_FLOAT4:
    case FL_PG_OID_DATE: want = 4; break;
    case FL_PG_OID_INT8:
    case FL_PG_OID_FLOAT8:
    case FL_PG_OID_TIME:
    case FL_PG_OID_TIMESTAMP:
    case FL_PG_OID_TIMESTAMPTZ: want = 8; break;
    case FL_PG_OID_UUID: want = 16; break;
    case PG_OID_JSONB: /* version byte 1, then the JSON text */
        if (d->len < 1 || d->data[0] != 1)
            return fl_errorf(err, FL_ECORRUPT, "binary jsonb without version byte 1");
        return copy_bytes(d->data + 1, d->len - 1, a, out, err);
    case FL_PG_OID_TEXT:
    case FL_PG_OID_VARCHAR:
    case FL_PG_OID_BPCHAR:
    case FL_PG_OID_NAME:
    case FL_PG_OID_JSON:
    case FL_PG_OID_BYTEA: return copy_bytes(d->data, d->len, a, out, err);
    default:
        return fl_errorf(err, FL_EUNSUPPORTED, "binary values of type OID %u are not supported",
                         oid);
    }
    if (d->len != want)
        return fl_errorf(err, FL_ECORRUPT, "binary value of type OID %u has %u bytes, not %zu", oid,
                         d->len, want);
    uint64_t v = be(d->data, want < 8 ? (int)want : 8);
    switch (oid) {
    case FL_PG_OID_BOOL: out->v.b = v != 0; break;
    case FL_PG_OID_INT2: out->v.i32 = (int16_t)v; break;
    case FL_PG_OID_INT4: out->v.i32 = (int32_t)(uint32_t)v; break;
    case FL_PG_OID_OID: out->v.i64 = (int64_t)v; break;
    case FL_PG_OID_INT8:
    case FL_PG_OID_TIME: out->v.i64 = (int64_t)v; break;
    case FL_PG_OID_TIMESTAMP:
    case FL_PG_OID_TIMESTAMPTZ: out->v.i64 = (int64_t)v + FL_PG_EPOCH_US; break;
    case FL_PG_OID_DATE:
        out->v.i32 = (int32_t)((int64_t)(int32_t)(uint32_t)v + FL_PG_EPOCH_DAYS);
        break;
    case FL_PG_OID_FLOAT4: {
        uint32_t x = (uint32_t)v;
        memcpy(&out->v.f32, &x, 4);
        break;
    }
    case FL_PG_OID_FLOAT8: memcpy(&out->v.f64, &v, 8); break;
    case FL_PG_OID_UUID: return copy_bytes(d->data, 16, a, out, err);
    default: break;
    }
    return FL_OK;
}

static fl_status datum_value(const pgcdc_column *col, const pgcdc_datum *d, fl_arena *a,
                             fl_value *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->type = col->type;
    switch (d->kind) {
    case PGCDC_NULL: out->is_null = true; return FL_OK;
    case PGCDC_UNCHANGED:
        return fl_errorf(err, FL_EINVAL, "unchanged TOAST value: not sent, take the old row's");
    case PGCDC_BINARY: return binary_value(col, d, a, out, err);
    case PGCDC_TEXT: break;
    default: return fl_errorf(err, FL_EINVAL, "unknown datum kind 0x%02x", (unsigned)d->kind);
    }
    const char *s = (const char *)d->data;
    if (col->type.id == FL_TYPE_DECIMAL && fraction_digits(s, d->len) > (size_t)col->type.scale)
        return fl_errorf(err, FL_EOVERFLOW, "'%.*s' has more than %d fraction digits",
                         (int)(d->len > 80 ? 80 : d->len), s, col->type.scale);
    return fl_parse_value(&col->type, s, d->len, a, out, err);
}

fl_status pgcdc_datum_value(const pgcdc_column *col, const pgcdc_datum *d, fl_arena *a,
                            fl_value *out, fl_error *err)
{
    fl_status rc = datum_value(col, d, a, out, err);
    if (rc != FL_OK)
        fl_error_prefix(err, "column '%s'", col->name);
    return rc;
}
