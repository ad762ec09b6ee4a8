/*
 * value_json.c - Iceberg's single-value JSON serialization of scalars (spec,
 * appendix D), the form of a field's initial-default and write-default
 * (floe/iceberg.h).
 *
 * SQL writes it (ALTER TABLE ... ADD COLUMN ... DEFAULT, ALTER COLUMN SET
 * DEFAULT) and reads it back (INSERT fills an omitted column with its
 * write-default). Reading goes through the scan's parser (scan_values.c), so
 * one parser decides what a stored default means for scans and for writes;
 * writing is checked against it: a value that does not read back equal is
 * refused rather than stored.
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/format.h"
#include "iceberg/scan_internal.h"
#include "iceberg/write_internal.h"

/* Shortest %g spelling that reads back as the float. */
static void format_float(float f, char *buf, size_t cap)
{
    for (int p = 1; p <= 9; p++) {
        snprintf(buf, cap, "%.*g", p, (double)f);
        if (strtof(buf, NULL) == f)
            return;
    }
}

/* Lower-case hex of bytes (binary and fixed), arena string. */
static const char *hex_of(const uint8_t *p, size_t n, fl_arena *a)
{
    char *s = fl_arena_alloc(a, n * 2 + 1);
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++)
        snprintf(s + 2 * i, 3, "%02x", p[i]);
    s[2 * n] = '\0';
    return s;
}

static json_t *number_json(const fl_value *v)
{
    char buf[64];
    double d = v->type.id == FL_TYPE_FLOAT32 ? (double)v->v.f32 : v->v.f64;
    if (isnan(d))
        return json_string("NaN");
    if (isinf(d))
        return json_string(d > 0 ? "Infinity" : "-Infinity");
    if (v->type.id == FL_TYPE_FLOAT32)
        format_float(v->v.f32, buf, sizeof buf);
    else
        fl_format_double_g(d, buf, sizeof buf);
    /* an integral spelling ("5") would read back as a JSON integer: keep it
     * a real so the type is visible in the file, as Java writes 5.0 */
    if (!strpbrk(buf, ".eEn"))
        strncat(buf, ".0", sizeof buf - strlen(buf) - 1);
    return json_loads(buf, JSON_DECODE_ANY, NULL);
}

static json_t *value_json(const fl_value *v, fl_arena *a)
{
    if (v->is_null)
        return json_null();
    switch (v->type.id) {
    case FL_TYPE_BOOLEAN: return json_boolean(v->v.b);
    case FL_TYPE_INT32: return json_integer(v->v.i32);
    case FL_TYPE_INT64: return json_integer(v->v.i64);
    case FL_TYPE_FLOAT32:
    case FL_TYPE_FLOAT64: return number_json(v);
    case FL_TYPE_STRING: return json_stringn((const char *)v->v.bytes.ptr, v->v.bytes.len);
    case FL_TYPE_FIXED:
    case FL_TYPE_BINARY: {
        const char *h = hex_of(v->v.bytes.ptr, v->v.bytes.len, a);
        return h ? json_string(h) : NULL;
    }
    case FL_TYPE_DECIMAL:
    case FL_TYPE_DATE:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS:
    case FL_TYPE_UUID: {
        const char *t = ice_value_text(v, a);
        return t ? json_string(t) : NULL;
    }
    default: return NULL;
    }
}

static bool same_value(const fl_value *x, const fl_value *y)
{
    if (x->is_null || y->is_null)
        return x->is_null == y->is_null;
    if ((x->type.id == FL_TYPE_FLOAT32 || x->type.id == FL_TYPE_FLOAT64) &&
        isnan(x->type.id == FL_TYPE_FLOAT32 ? (double)x->v.f32 : x->v.f64))
        return isnan(y->type.id == FL_TYPE_FLOAT32 ? (double)y->v.f32 : y->v.f64);
    return fl_value_compare(x, y) == 0;
}

fl_status fl_ice_value_to_json(const fl_value *v, fl_arena *a, const char **out, fl_error *err)
{
    *out = NULL;
    if (fl_type_is_nested(&v->type))
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "a default of a nested type (struct, list, map) is not supported");
    json_t *j = value_json(v, a);
    if (!j) {
        char tn[64];
        fl_type_format(&v->type, tn, sizeof tn);
        return fl_errorf(err, FL_EUNSUPPORTED, "a default of type %s is not supported", tn);
    }
    char *text = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
    json_decref(j);
    if (!text)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *out = fl_arena_strdup(a, text);
    free(text);
    if (!*out)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_value back;
    FL_TRY(ice_default_parse(&v->type, *out, a, &back, err));
    if (!same_value(v, &back))
        return fl_errorf(err, FL_EINVAL, "default %s does not read back as the value written",
                         *out);
    return FL_OK;
}

fl_status fl_ice_value_from_json(const fl_type *t, const char *json, fl_arena *a, fl_value *out,
                                 fl_error *err)
{
    return ice_default_parse(t, json, a, out, err);
}
