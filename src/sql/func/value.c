/*
 * value.c - conversions between fl_value scalars and one-row vectors, used
 * for constants (CONSTANT vectors), parameters and constant folding.
 * Var-length bytes of values produced here are copied into the caller's
 * arena; vectors own their buffers.
 */
#include "sql/func/func_internal.h"

fl_status fl_value_to_vector(const fl_value *v, fl_vector *out, fl_error *err)
{
    if (v->is_null)
        return fl_vector_append_null(out, err);
    switch (out->type->id) {
    case FL_TYPE_BOOLEAN: {
        uint8_t b = v->v.b;
        return fl_vector_append_fixed(out, &b, err);
    }
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: return fl_vector_append_fixed(out, &v->v.i32, err);
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: return fl_vector_append_fixed(out, &v->v.i64, err);
    case FL_TYPE_FLOAT32: return fl_vector_append_fixed(out, &v->v.f32, err);
    case FL_TYPE_FLOAT64: return fl_vector_append_fixed(out, &v->v.f64, err);
    case FL_TYPE_DECIMAL: return fl_vector_append_fixed(out, &v->v.dec, err);
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: return fl_vector_append_bytes(out, v->v.bytes.ptr, v->v.bytes.len, err);
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED: {
        size_t w = fl_type_width(out->type);
        if (v->v.bytes.len != w)
            return fl_errorf(err, FL_ETYPE, "constant of %zu bytes for a %zu-byte type", v->v.bytes.len, w);
        return fl_vector_append_fixed(out, v->v.bytes.ptr, err);
    }
    default: return fl_errorf(err, FL_EUNSUPPORTED, "constants of nested types are not supported");
    }
}

fl_status fl_vector_to_value(const fl_vector *vec, uint32_t row, fl_arena *a, fl_value *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->type = *vec->type;
    out->type.nchildren = 0;
    out->type.children = NULL;
    fl_unified u;
    fl_vector_unify(vec, &u);
    if (!fl_unified_is_valid(&u, row)) {
        out->is_null = true;
        return FL_OK;
    }
    const fl_vector *b = u.base;
    uint32_t r = fl_unified_row(&u, row);
    switch (vec->type->id) {
    case FL_TYPE_BOOLEAN: out->v.b = b->data[r] != 0; break;
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: memcpy(&out->v.i32, b->data + (size_t)r * 4, 4); break;
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: memcpy(&out->v.i64, b->data + (size_t)r * 8, 8); break;
    case FL_TYPE_FLOAT32: memcpy(&out->v.f32, b->data + (size_t)r * 4, 4); break;
    case FL_TYPE_FLOAT64: memcpy(&out->v.f64, b->data + (size_t)r * 8, 8); break;
    case FL_TYPE_DECIMAL: memcpy(&out->v.dec, b->data + (size_t)r * 16, 16); break;
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY:
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED: {
        size_t l;
        const uint8_t *p;
        if (fl_type_is_varlen(vec->type))
            p = fl_vector_bytes(b, r, &l);
        else {
            l = fl_type_width(vec->type);
            p = b->data + (size_t)r * l;
        }
        uint8_t *c = fl_arena_alloc(a, l ? l : 1);
        if (!c)
            return fl_errorf(err, FL_ENOMEM, "out of memory copying a constant");
        if (l)
            memcpy(c, p, l);
        out->v.bytes.ptr = c;
        out->v.bytes.len = l;
        break;
    }
    default: return fl_errorf(err, FL_EUNSUPPORTED, "values of nested types are not supported");
    }
    return FL_OK;
}
