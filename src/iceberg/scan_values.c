/*
 * scan_values.c - scalar helpers for scans: reading one row of a vector as
 * an fl_value, parsing initial-default JSON single values (spec Appendix C:
 * "JSON single-value serialization"), casting filter literals to a column's
 * type, and comparing values across promoted types.
 *
 * JSON forms handled (primitive types only; nested defaults are rejected
 * with FL_EUNSUPPORTED): boolean true/false; int/long numbers; float/double
 * numbers; decimal "123.45"; date "YYYY-MM-DD"; time "HH:MM:SS[.ffffff]";
 * timestamp "YYYY-MM-DDTHH:MM:SS[.f]" (+ "+00:00" for tz types); string; uuid
 * "8-4-4-4-12"; fixed/binary hex strings (any case).
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "floe/calendar.h"
#include "iceberg/scan_internal.h"

bool ice_unified_value(const fl_unified *u, const fl_type *t, uint32_t row, fl_value *out)
{
    out->type = *t;
    out->type.nchildren = 0;
    out->type.children = NULL;
    out->is_null = false;
    if (fl_type_is_nested(t))
        return false;
    if (!fl_unified_is_valid(u, row)) {
        out->is_null = true;
        return true;
    }
    uint32_t r = fl_unified_row(u, row);
    const fl_vector *b = u->base;
    switch (t->id) {
    case FL_TYPE_BOOLEAN: out->v.b = b->data[r] != 0; break;
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: memcpy(&out->v.i32, b->data + 4 * (size_t)r, 4); break;
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: memcpy(&out->v.i64, b->data + 8 * (size_t)r, 8); break;
    case FL_TYPE_FLOAT32: memcpy(&out->v.f32, b->data + 4 * (size_t)r, 4); break;
    case FL_TYPE_FLOAT64: memcpy(&out->v.f64, b->data + 8 * (size_t)r, 8); break;
    case FL_TYPE_DECIMAL: memcpy(&out->v.dec, b->data + 16 * (size_t)r, 16); break;
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED: {
        size_t w = fl_type_width(t);
        out->v.bytes.ptr = b->data + w * r;
        out->v.bytes.len = w;
        break;
    }
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: out->v.bytes.ptr = fl_vector_bytes(b, r, &out->v.bytes.len); break;
    default: return false;
    }
    return true;
}

bool ice_vec_value(const fl_vector *v, uint32_t row, fl_value *out)
{
    memset(out, 0, sizeof *out);
    fl_unified u;
    if (fl_type_is_nested(v->type)) {
        out->type = *v->type;
        return false;
    }
    fl_vector_unify(v, &u);
    return ice_unified_value(&u, v->type, row, out);
}

/* ---- civil dates ---- */

static bool digits(const char *s, int n, int64_t *out)
{
    int64_t v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

/* "[-]YYYY-MM-DD" -> days; *end past it. */
static bool parse_date(const char *s, int64_t *days, const char **end)
{
    bool neg = *s == '-';
    if (neg)
        s++;
    int n = 0;
    while (s[n] >= '0' && s[n] <= '9')
        n++;
    int64_t y, mo, d;
    if (n < 4 || !digits(s, n, &y) || s[n] != '-' || !digits(s + n + 1, 2, &mo) ||
        s[n + 3] != '-' || !digits(s + n + 4, 2, &d) || mo < 1 || mo > 12 || d < 1 || d > 31)
        return false;
    *days = fl_days_from_civil(neg ? -y : y, (unsigned)mo, (unsigned)d);
    *end = s + n + 6;
    return true;
}

/* "HH:MM[:SS[.fffffffff]]" -> units (micros when ns false); *end past it. */
static bool parse_time(const char *s, bool ns, int64_t *out, const char **end)
{
    int64_t h, m, sec = 0, frac = 0;
    if (!digits(s, 2, &h) || s[2] != ':' || !digits(s + 3, 2, &m) || h > 23 || m > 59)
        return false;
    s += 5;
    if (*s == ':') {
        if (!digits(s + 1, 2, &sec) || sec > 60)
            return false;
        s += 3;
        if (*s == '.') {
            s++;
            int k = 0;
            int64_t scale = ns ? 1000000000 : 1000000;
            int64_t mul = scale / 10;
            while (s[k] >= '0' && s[k] <= '9') {
                if (mul > 0)
                    frac += (s[k] - '0') * mul;
                mul /= 10;
                k++;
            }
            if (k == 0)
                return false;
            s += k;
        }
    }
    int64_t unit = ns ? 1000000000 : 1000000;
    *out = ((h * 60 + m) * 60 + sec) * unit + frac;
    *end = s;
    return true;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool parse_decimal(const char *s, int32_t scale, fl_i128 *out)
{
    bool neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    fl_i128 v = 0;
    int frac = -1, nd = 0;
    for (; *s; s++) {
        if (*s == '.' && frac < 0) {
            frac = 0;
            continue;
        }
        if (*s < '0' || *s > '9')
            return false;
        if (frac >= 0) {
            if (frac >= scale)
                continue; /* extra digits dropped */
            frac++;
        }
        v = v * 10 + (*s - '0');
        if (++nd > 38)
            return false;
    }
    if (frac < 0)
        frac = 0;
    for (; frac < scale; frac++)
        v *= 10;
    *out = neg ? -v : v;
    return true;
}

static fl_status bad(fl_error *err, const fl_type *t, const char *json)
{
    char tn[64];
    fl_type_format(t, tn, sizeof tn);
    return fl_errorf(err, FL_ECORRUPT, "initial-default %s is not a valid %s", json, tn);
}

fl_status ice_default_parse(const fl_type *t, const char *json, fl_arena *a, fl_value *out,
                            fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->type = *t;
    out->type.nchildren = 0;
    out->type.children = NULL;
    if (fl_type_is_nested(t))
        return fl_errorf(err, FL_EUNSUPPORTED, "initial-default of a nested type");
    json_error_t je;
    json_t *j = json_loads(json, JSON_DECODE_ANY, &je);
    if (!j)
        return bad(err, t, json);
    fl_status rc = FL_OK;
    if (json_is_null(j)) {
        out->is_null = true;
        goto done;
    }
    const char *s = json_is_string(j) ? json_string_value(j) : NULL;
    const char *end = NULL;
    int64_t x;
    switch (t->id) {
    case FL_TYPE_BOOLEAN:
        if (!json_is_boolean(j))
            rc = bad(err, t, json);
        out->v.b = json_is_true(j);
        break;
    case FL_TYPE_INT32:
        if (!json_is_integer(j) || json_integer_value(j) < INT32_MIN ||
            json_integer_value(j) > INT32_MAX)
            rc = bad(err, t, json);
        else
            out->v.i32 = (int32_t)json_integer_value(j);
        break;
    case FL_TYPE_INT64:
        if (!json_is_integer(j))
            rc = bad(err, t, json);
        else
            out->v.i64 = (int64_t)json_integer_value(j);
        break;
    case FL_TYPE_FLOAT32:
    case FL_TYPE_FLOAT64: {
        double d;
        if (json_is_number(j))
            d = json_number_value(j);
        else if (s && !strcmp(s, "NaN"))
            d = NAN;
        else if (s && !strcmp(s, "Infinity"))
            d = INFINITY;
        else if (s && !strcmp(s, "-Infinity"))
            d = -INFINITY;
        else {
            rc = bad(err, t, json);
            break;
        }
        if (t->id == FL_TYPE_FLOAT32) {
            /* shortest decimal text -> float directly, not via double rounding */
            char buf[64];
            snprintf(buf, sizeof buf, "%s", json);
            out->v.f32 = json_is_number(j) ? strtof(buf, NULL) : (float)d;
        } else {
            out->v.f64 = d;
        }
        break;
    }
    case FL_TYPE_DECIMAL:
        if (!s || !parse_decimal(s, t->scale, &out->v.dec))
            rc = bad(err, t, json);
        break;
    case FL_TYPE_DATE:
        if (!s || !parse_date(s, &x, &end) || *end)
            rc = bad(err, t, json);
        else
            out->v.i32 = (int32_t)x;
        break;
    case FL_TYPE_TIME:
        if (!s || !parse_time(s, false, &out->v.i64, &end) || *end)
            rc = bad(err, t, json);
        break;
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: {
        bool ns = t->id == FL_TYPE_TIMESTAMP_NS || t->id == FL_TYPE_TIMESTAMPTZ_NS;
        int64_t tod;
        if (!s || !parse_date(s, &x, &end) || (*end != 'T' && *end != ' ') ||
            !parse_time(end + 1, ns, &tod, &end)) {
            rc = bad(err, t, json);
            break;
        }
        int64_t off_min = 0;
        if (*end == '+' || *end == '-') {
            int64_t hh, mm = 0;
            if (!digits(end + 1, 2, &hh)) {
                rc = bad(err, t, json);
                break;
            }
            const char *q = end + 3;
            if (*q == ':')
                q++;
            if (*q && !digits(q, 2, &mm)) {
                rc = bad(err, t, json);
                break;
            }
            off_min = (hh * 60 + mm) * (*end == '-' ? -1 : 1);
            end = *q ? q + 2 : q;
        } else if (*end == 'Z') {
            end++;
        }
        if (*end) {
            rc = bad(err, t, json);
            break;
        }
        int64_t unit = ns ? 1000000000 : 1000000;
        out->v.i64 = x * 86400 * unit + tod - off_min * 60 * unit;
        break;
    }
    case FL_TYPE_STRING:
        if (!s) {
            rc = bad(err, t, json);
            break;
        }
        out->v.bytes.len = json_string_length(j);
        out->v.bytes.ptr = (const uint8_t *)fl_arena_strndup(a, s, out->v.bytes.len);
        if (!out->v.bytes.ptr)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        break;
    case FL_TYPE_UUID: {
        uint8_t *u = fl_arena_alloc(a, 16);
        if (!u) {
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            break;
        }
        int k = 0;
        for (const char *p = s ? s : ""; *p && k < 32; p++) {
            if (*p == '-')
                continue;
            int h = hexval(*p), l = p[1] ? hexval(p[1]) : -1;
            if (h < 0 || l < 0)
                break;
            u[k / 2] = (uint8_t)(h * 16 + l);
            k += 2;
            p++;
        }
        if (!s || k != 32 || strlen(s) != 36)
            rc = bad(err, t, json);
        out->v.bytes.ptr = u;
        out->v.bytes.len = 16;
        break;
    }
    case FL_TYPE_FIXED:
    case FL_TYPE_BINARY: {
        size_t n = s ? strlen(s) : 1;
        if (!s || n % 2 || (t->id == FL_TYPE_FIXED && n / 2 != (size_t)t->fixed_len)) {
            rc = bad(err, t, json);
            break;
        }
        uint8_t *b = fl_arena_alloc(a, n / 2 + 1);
        if (!b) {
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            break;
        }
        for (size_t i = 0; i < n / 2; i++) {
            int h = hexval(s[2 * i]), l = hexval(s[2 * i + 1]);
            if (h < 0 || l < 0) {
                rc = bad(err, t, json);
                break;
            }
            b[i] = (uint8_t)(h * 16 + l);
        }
        out->v.bytes.ptr = b;
        out->v.bytes.len = n / 2;
        break;
    }
    default: rc = fl_errorf(err, FL_EUNSUPPORTED, "initial-default of this type");
    }
done:
    json_decref(j);
    return rc;
}

/* ---- literal casting and comparison ---- */

static bool is_int(fl_type_id id)
{
    return id == FL_TYPE_INT32 || id == FL_TYPE_INT64;
}
static bool is_float(fl_type_id id)
{
    return id == FL_TYPE_FLOAT32 || id == FL_TYPE_FLOAT64;
}
static bool is_ts(fl_type_id id)
{
    return id == FL_TYPE_TIMESTAMP || id == FL_TYPE_TIMESTAMPTZ || id == FL_TYPE_TIMESTAMP_NS ||
           id == FL_TYPE_TIMESTAMPTZ_NS;
}
static bool is_ns(fl_type_id id)
{
    return id == FL_TYPE_TIMESTAMP_NS || id == FL_TYPE_TIMESTAMPTZ_NS;
}
static bool is_bytes(fl_type_id id)
{
    return id == FL_TYPE_STRING || id == FL_TYPE_BINARY || id == FL_TYPE_FIXED ||
           id == FL_TYPE_UUID;
}

static int64_t as_i64(const fl_value *v)
{
    return v->type.id == FL_TYPE_INT32 || v->type.id == FL_TYPE_DATE ? v->v.i32 : v->v.i64;
}

bool ice_literal_cast(const fl_value *in, const fl_type *t, fl_value *out)
{
    *out = *in;
    out->type = *t;
    out->type.nchildren = 0;
    out->type.children = NULL;
    if (in->is_null)
        return true;
    fl_type_id a = in->type.id, b = t->id;
    if (a == b) {
        if (a == FL_TYPE_DECIMAL && in->type.scale != t->scale) {
            fl_i128 v = in->v.dec;
            for (int32_t s = in->type.scale; s < t->scale; s++)
                v *= 10;
            if (in->type.scale > t->scale) {
                fl_i128 d = 1;
                for (int32_t s = t->scale; s < in->type.scale; s++)
                    d *= 10;
                if (v % d != 0)
                    return false;
                v /= d;
            }
            out->v.dec = v;
        }
        return true;
    }
    if (is_int(a) && b == FL_TYPE_INT32) {
        int64_t x = as_i64(in);
        if (x < INT32_MIN || x > INT32_MAX)
            return false;
        out->v.i32 = (int32_t)x;
        return true;
    }
    if (is_int(a) && b == FL_TYPE_INT64) {
        out->v.i64 = as_i64(in);
        return true;
    }
    if ((is_int(a) || is_float(a)) && is_float(b)) {
        double d = is_int(a) ? (double)as_i64(in) : a == FL_TYPE_FLOAT32 ? in->v.f32 : in->v.f64;
        if (b == FL_TYPE_FLOAT32)
            out->v.f32 = (float)d;
        else
            out->v.f64 = d;
        return true;
    }
    if (is_int(a) && b == FL_TYPE_DECIMAL) {
        fl_i128 v = as_i64(in);
        for (int32_t s = 0; s < t->scale; s++)
            v *= 10;
        out->v.dec = v;
        return true;
    }
    if (a == FL_TYPE_DATE && is_ts(b)) {
        out->v.i64 = (int64_t)in->v.i32 * 86400 * (is_ns(b) ? 1000000000LL : 1000000LL);
        return true;
    }
    if (is_ts(a) && is_ts(b)) {
        if (is_ns(a) == is_ns(b))
            out->v.i64 = in->v.i64;
        else if (is_ns(b))
            out->v.i64 = in->v.i64 * 1000;
        else
            out->v.i64 = in->v.i64 / 1000 - (in->v.i64 % 1000 < 0);
        return true;
    }
    if (is_bytes(a) && is_bytes(b)) {
        if (b == FL_TYPE_UUID && in->v.bytes.len != 16)
            return false;
        if (b == FL_TYPE_FIXED && in->v.bytes.len != (size_t)t->fixed_len)
            return false;
        return true;
    }
    return false;
}

int ice_value_cmp(const fl_value *a, const fl_value *b)
{
    if (a->type.id == b->type.id &&
        (a->type.id != FL_TYPE_DECIMAL || a->type.scale == b->type.scale))
        return fl_value_compare(a, b);
    fl_value c;
    if (!ice_literal_cast(b, &a->type, &c)) {
        if (!ice_literal_cast(a, &b->type, &c))
            return -2;
        return fl_value_compare(&c, b);
    }
    return fl_value_compare(a, &c);
}
