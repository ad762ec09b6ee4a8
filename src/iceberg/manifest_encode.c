/*
 * manifest_encode.c - the Avro binary encoding the manifest writers need
 * (Avro spec "Binary Encoding": zigzag varint int/long, length-prefixed
 * bytes/string, union = branch index then value, arrays as one block of
 * count items then a 0 count), partition values in their Avro form, and an
 * fl_output wrapper that counts the bytes of the finished file (the
 * manifest_length of a manifest-list entry).
 */
#include <stdlib.h>
#include <string.h>

#include "floe/iceberg.h"
#include "iceberg/manifest_write_int.h"

void ice_enc_raw(ice_enc *e, const void *p, size_t n)
{
    if (!e->oom && n && fl_avro_buf_append(&e->b, p, n, NULL) != FL_OK)
        e->oom = true;
}

void ice_enc_long(ice_enc *e, int64_t v)
{
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    uint8_t tmp[10];
    size_t n = 0;
    while (z >= 0x80) {
        tmp[n++] = (uint8_t)(z | 0x80);
        z >>= 7;
    }
    tmp[n++] = (uint8_t)z;
    ice_enc_raw(e, tmp, n);
}

void ice_enc_bytes(ice_enc *e, const void *p, size_t n)
{
    ice_enc_long(e, (int64_t)n);
    ice_enc_raw(e, p, n);
}

void ice_enc_str(ice_enc *e, const char *s)
{
    ice_enc_bytes(e, s, strlen(s));
}

void ice_enc_opt_long(ice_enc *e, bool present, int64_t v)
{
    if (!present) {
        ice_enc_null(e);
        return;
    }
    ice_enc_some(e);
    ice_enc_long(e, v);
}

fl_status ice_enc_partition_value(ice_enc *e, const fl_value *v, const fl_type *t, fl_error *err)
{
    if (!v || v->is_null) {
        ice_enc_null(e);
        return FL_OK;
    }
    if (v->type.id != t->id) {
        char want[64], got[64];
        fl_type_format(t, want, sizeof want);
        fl_type_format(&v->type, got, sizeof got);
        return fl_errorf(err, FL_ETYPE, "partition value of type %s where the spec needs %s", got,
                         want);
    }
    ice_enc_some(e);
    switch (t->id) {
    case FL_TYPE_BOOLEAN: {
        uint8_t b = v->v.b ? 1 : 0;
        ice_enc_raw(e, &b, 1);
        break;
    }
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: ice_enc_long(e, v->v.i32); break;
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: ice_enc_long(e, v->v.i64); break;
    case FL_TYPE_FLOAT32: {
        uint8_t b[4];
        memcpy(b, &v->v.f32, 4); /* little-endian hosts only (as the rest of floe) */
        ice_enc_raw(e, b, 4);
        break;
    }
    case FL_TYPE_FLOAT64: {
        uint8_t b[8];
        memcpy(b, &v->v.f64, 8);
        ice_enc_raw(e, b, 8);
        break;
    }
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: ice_enc_bytes(e, v->v.bytes.ptr, v->v.bytes.len); break;
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED: {
        size_t want = t->id == FL_TYPE_UUID ? 16 : (size_t)t->fixed_len;
        if (v->v.bytes.len != want)
            return fl_errorf(err, FL_EINVAL, "partition value has %zu bytes, its type needs %zu",
                             v->v.bytes.len, want);
        ice_enc_raw(e, v->v.bytes.ptr, want);
        break;
    }
    case FL_TYPE_DECIMAL: {
        uint8_t min[16];
        size_t n = fl_ice_decimal_to_be_bytes(v->v.dec, min);
        size_t size = (size_t)ice_decimal_size(t->precision);
        if (n > size)
            return fl_errorf(err, FL_EOVERFLOW,
                             "decimal partition value does not fit decimal(%d, %d)",
                             (int)t->precision, (int)t->scale);
        uint8_t out[16];
        memset(out, (min[0] & 0x80) ? 0xFF : 0x00, size - n);
        memcpy(out + (size - n), min, n);
        ice_enc_raw(e, out, size);
        break;
    }
    default: {
        char tn[64];
        fl_type_format(t, tn, sizeof tn);
        return fl_errorf(err, FL_EUNSUPPORTED, "partition values of type %s", tn);
    }
    }
    return FL_OK;
}

/* ------------------------------------------------------- counting output */

typedef struct cnt_out {
    fl_output base;
    fl_output *inner;
    uint64_t *total;
} cnt_out;

static fl_status cnt_write(fl_output *o, const void *buf, size_t len, fl_error *err)
{
    cnt_out *c = (cnt_out *)o;
    FL_TRY(fl_output_write(c->inner, buf, len, err));
    o->written += len;
    return FL_OK;
}

static fl_status cnt_close(fl_output *o, fl_error *err)
{
    cnt_out *c = (cnt_out *)o;
    fl_status rc = fl_output_close(c->inner, err);
    if (rc == FL_OK)
        *c->total = o->written;
    free(o->path);
    free(c);
    return rc;
}

static void cnt_abort(fl_output *o)
{
    cnt_out *c = (cnt_out *)o;
    fl_output_abort(c->inner);
    free(o->path);
    free(c);
}

static const fl_output_ops cnt_ops = {cnt_write, cnt_close, cnt_abort};

fl_status ice_counting_output(fl_output *out, uint64_t *total, fl_output **wrapped, fl_error *err)
{
    cnt_out *c = calloc(1, sizeof *c);
    char *p = c ? strdup(out->path ? out->path : "") : NULL;
    if (!p) {
        free(c);
        fl_output_abort(out);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    c->base.ops = &cnt_ops;
    c->base.path = p;
    c->inner = out;
    c->total = total;
    *wrapped = &c->base;
    return FL_OK;
}
