/*
 * cast.c - conversions between SQL types: fl_cast_allowed, the vectorized
 * fl_cast_vector and the scalar fl_cast_value (folding, literals, params).
 *
 * Rules (PostgreSQL): numeric -> integer rounds half away from zero (float
 * -> integer rounds half to even, rint) and fails with "out of range";
 * numeric -> numeric rounds to the target scale and fails when the value
 * needs more than precision digits; text input accepts PostgreSQL's formats
 * (dttext.c); anything -> text uses PostgreSQL's output (format.c);
 * timestamp <-> timestamptz and date -> timestamptz use the session zone
 * (fl_eval_env.time_zone). Every failure names the value and the target
 * type ("invalid input syntax for type integer: \"abc\"").
 *
 * Fast paths: integer widening, integer -> decimal/double, decimal ->
 * decimal/double and date -> timestamp loop without per-row dispatch; the
 * rest convert row by row through a small tagged number.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "floe/wkb.h"
#include "sql/func/func_internal.h"

/* Nested types laid out alike (ids, widths, children in order): their
 * vectors are interchangeable whatever the field names, ids and nullability
 * (CREATE TABLE AS gives a struct column new field ids). */
static bool same_shape(const fl_type *a, const fl_type *b)
{
    if (a->id != b->id || a->nchildren != b->nchildren)
        return false;
    if (!fl_type_is_nested(a))
        return fl_type_equal(a, b) && fl_type_is_interval(a) == fl_type_is_interval(b);
    for (uint32_t i = 0; i < a->nchildren; i++)
        if (!same_shape(&a->children[i].type, &b->children[i].type))
            return false;
    return true;
}

bool fl_cast_allowed(const fl_type *from, const fl_type *to, bool implicit)
{
    if (fl_type_equal(from, to) && fl_type_is_interval(from) == fl_type_is_interval(to))
        return true;
    if (fl_is_unknown(from))
        return true;
    if (fl_type_is_variant(from) || fl_type_is_variant(to)) {
        /* explicit only, scalars both ways (variant_cast.c) */
        const fl_type *o = fl_type_is_variant(from) ? to : from;
        return !implicit && !fl_type_is_nested(o) && !fl_type_is_interval(o) &&
               o->id != FL_TYPE_FIXED;
    }
    bool fn = fl_is_numeric(from), tn = fl_is_numeric(to);
    if (implicit) {
        if (fn && tn) {
            static const int rank[FL_TYPE__COUNT] = {[FL_TYPE_INT32] = 1, [FL_TYPE_INT64] = 2,
                                                      [FL_TYPE_DECIMAL] = 3, [FL_TYPE_FLOAT32] = 4,
                                                      [FL_TYPE_FLOAT64] = 5};
            return rank[from->id] <= rank[to->id];
        }
        if (from->id == FL_TYPE_DATE &&
            (to->id == FL_TYPE_TIMESTAMP || to->id == FL_TYPE_TIMESTAMPTZ || to->id == FL_TYPE_TIMESTAMP_NS ||
             to->id == FL_TYPE_TIMESTAMPTZ_NS))
            return true;
        if ((from->id == FL_TYPE_TIMESTAMP && (to->id == FL_TYPE_TIMESTAMPTZ || to->id == FL_TYPE_TIMESTAMP_NS)) ||
            (from->id == FL_TYPE_TIMESTAMPTZ && to->id == FL_TYPE_TIMESTAMPTZ_NS) ||
            (from->id == FL_TYPE_TIMESTAMP_NS && to->id == FL_TYPE_TIMESTAMPTZ_NS))
            return true;
        if (from->id == FL_TYPE_STRING && to->id == FL_TYPE_STRING)
            return true;
        if (from->id == FL_TYPE_BINARY && to->id == FL_TYPE_BINARY)
            return true; /* bytea <-> geometry: the same bytes (WKB checked on the way in) */
        if ((from->id == FL_TYPE_FIXED && !fl_type_is_interval(from)) && to->id == FL_TYPE_BINARY)
            return true;
        return false;
    }
    if (to->id == FL_TYPE_STRING)
        return true; /* everything has a text form */
    if (fl_is_unknown(from) && fl_type_is_nested(to))
        return true; /* NULL as a struct or map (CASE without ELSE); text that is not NULL fails */
    if (from->id == FL_TYPE_STRING) /* lists: PostgreSQL array text (cast_list.c) */
        return !fl_type_is_nested(to) ||
               (to->id == FL_TYPE_LIST && to->nchildren == 1 &&
                !fl_type_is_nested(&to->children[0].type));
    if (fn && tn)
        return true;
    if ((from->id == FL_TYPE_BOOLEAN && fl_is_integer(to)) || (fl_is_integer(from) && to->id == FL_TYPE_BOOLEAN))
        return true;
    if (fl_is_temporal(from) && fl_is_temporal(to)) {
        if (from->id == FL_TYPE_TIME)
            return false;
        if (to->id == FL_TYPE_TIME)
            return from->id != FL_TYPE_DATE;
        return true;
    }
    if (fl_type_is_interval(from) || fl_type_is_interval(to))
        return fl_type_is_interval(from) && fl_type_is_interval(to);
    if ((from->id == FL_TYPE_BINARY || from->id == FL_TYPE_FIXED || from->id == FL_TYPE_UUID) &&
        (to->id == FL_TYPE_BINARY || to->id == FL_TYPE_FIXED || to->id == FL_TYPE_UUID))
        return true;
    if (fl_type_is_nested(from) && from->id == to->id)
        return same_shape(from, to) || fl_cast_nested_allowed(from, to);
    return false;
}

/* ---- numbers ---- */

typedef struct numv {
    int kind; /* 'i' int64, 'd' decimal (scale), 'f' double */
    int64_t i;
    fl_i128 d;
    int32_t scale;
    double f;
} numv;

static void get_num(const fl_vector *b, uint32_t r, numv *n)
{
    const uint8_t *d = b->data;
    switch (b->type->id) {
    case FL_TYPE_BOOLEAN: n->kind = 'i', n->i = d[r]; break;
    case FL_TYPE_INT32: n->kind = 'i', n->i = ((const int32_t *)(const void *)d)[r]; break;
    case FL_TYPE_INT64: n->kind = 'i', n->i = ((const int64_t *)(const void *)d)[r]; break;
    case FL_TYPE_FLOAT32: n->kind = 'f', n->f = ((const float *)(const void *)d)[r]; break;
    case FL_TYPE_FLOAT64: n->kind = 'f', n->f = ((const double *)(const void *)d)[r]; break;
    case FL_TYPE_DECIMAL:
        n->kind = 'd';
        memcpy(&n->d, d + (size_t)r * 16, 16);
        n->scale = b->type->scale;
        break;
    default: n->kind = 'i', n->i = 0; break;
    }
}

typedef struct cast_ctx {
    const fl_type *to;
    bool lenient;
    const fl_tz *tz;
    fl_vector *out;
    fl_error *err;
} cast_ctx;

/* Returns FL_OK after writing row r, or marks it NULL (lenient), or fails. */
static fl_status fail(cast_ctx *c, uint32_t r, fl_status code, const char *sqlstate,
                      const char *msg)
{
    if (c->lenient)
        return fl_out_null(c->out, r, c->err);
    return fl_error_state(c->err, code, sqlstate, "%s", msg);
}

static fl_status num_out_of_range(cast_ctx *c, uint32_t r)
{
    char tn[64];
    char msg[128];
    const char *name = fl_sql_type_name(c->to, tn, sizeof tn);
    if (c->to->id == FL_TYPE_DECIMAL)
        snprintf(msg, sizeof msg, "numeric field overflow: value out of range for type %s", name);
    else
        snprintf(msg, sizeof msg, "%s out of range", name);
    return fail(c, r, FL_EOVERFLOW, "22003", msg);
}

/* x as a float4, as PostgreSQL's float8 -> float4: a finite value that
 * rounds to infinity (overflow) or a non-zero one that rounds to zero
 * (underflow) is out of range; subnormals such as 1e-45 are kept. */
static bool float4_fits(double x, float *out)
{
    float f = (float)x;
    *out = f;
    if (isinf(f) && !isinf(x))
        return false;
    return !(f == 0.0f && x != 0.0);
}

static fl_status put_num(cast_ctx *c, uint32_t r, const numv *n)
{
    uint8_t *d = c->out->data;
    switch (c->to->id) {
    case FL_TYPE_BOOLEAN: {
        d[r] = n->kind == 'i' ? n->i != 0 : n->kind == 'f' ? n->f != 0 : n->d != 0;
        return FL_OK;
    }
    case FL_TYPE_INT32:
    case FL_TYPE_INT64: {
        int64_t v;
        if (n->kind == 'i')
            v = n->i;
        else if (n->kind == 'f') {
            double x = rint(n->f);
            if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0))
                return num_out_of_range(c, r);
            v = (int64_t)x;
        } else {
            fl_i128 x;
            dec_rescale(n->d, -n->scale, &x);
            if (x > INT64_MAX || x < INT64_MIN)
                return num_out_of_range(c, r);
            v = (int64_t)x;
        }
        if (c->to->id == FL_TYPE_INT32) {
            if (v > INT32_MAX || v < INT32_MIN)
                return num_out_of_range(c, r);
            ((int32_t *)(void *)d)[r] = (int32_t)v;
        } else
            ((int64_t *)(void *)d)[r] = v;
        return FL_OK;
    }
    case FL_TYPE_FLOAT32:
    case FL_TYPE_FLOAT64: {
        double x = n->kind == 'i' ? (double)n->i : n->kind == 'f' ? n->f : dec_to_double(n->d, n->scale);
        if (c->to->id == FL_TYPE_FLOAT32) {
            float f;
            if (!float4_fits(x, &f))
                return num_out_of_range(c, r);
            ((float *)(void *)d)[r] = f;
        } else
            ((double *)(void *)d)[r] = x;
        return FL_OK;
    }
    case FL_TYPE_DECIMAL: {
        fl_i128 x;
        int32_t s = c->to->scale;
        if (n->kind == 'i') {
            if (!dec_rescale((fl_i128)n->i, s, &x))
                return num_out_of_range(c, r);
        } else if (n->kind == 'd') {
            if (!dec_rescale(n->d, s - n->scale, &x))
                return num_out_of_range(c, r);
        } else {
            if (!isfinite(n->f)) {
                char msg[96];
                snprintf(msg, sizeof msg, "cannot convert %s to numeric", isnan(n->f) ? "NaN" : "infinity");
                return fail(c, r, FL_EOVERFLOW, NULL, msg);
            }
            /* through the shortest decimal text: 0.1::float8::numeric = 0.1 */
            char b[64];
            size_t l = fl_pg_format_double(n->f, b, sizeof b);
            bool ovf;
            if (!dec_parse(b, l, c->to->precision, s, &x, &ovf) || ovf)
                return num_out_of_range(c, r);
        }
        if (!dec_fits(x, c->to->precision))
            return num_out_of_range(c, r);
        memcpy(d + (size_t)r * 16, &x, 16);
        return FL_OK;
    }
    default: return fl_errorf(c->err, FL_ETYPE, "cast: unexpected numeric target");
    }
}

/* ---- text input ---- */

static fl_status bad_input(cast_ctx *c, uint32_t r, const uint8_t *p, size_t n)
{
    char tn[64], msg[256];
    const char *kind = fl_sql_type_name(c->to, tn, sizeof tn);
    if (c->to->id == FL_TYPE_DECIMAL)
        kind = "numeric";
    snprintf(msg, sizeof msg, "invalid input syntax for type %s: \"%.*s\"", kind, (int)(n > 100 ? 100 : n),
             (const char *)p);
    const char *state = "22P02";
    fl_type_id to = c->to->id;
    if (to == FL_TYPE_DATE || to == FL_TYPE_TIMESTAMP || to == FL_TYPE_TIMESTAMPTZ ||
        to == FL_TYPE_TIMESTAMP_NS || to == FL_TYPE_TIMESTAMPTZ_NS) {
        /* well-formed Y-M-D whose fields are out of range: 22008, as PostgreSQL */
        char buf[128];
        size_t k = n < sizeof buf - 1 ? n : sizeof buf - 1;
        memcpy(buf, p, k);
        buf[k] = 0;
        int y, m, d, used = 0;
        if (sscanf(buf, " %d-%d-%d%n", &y, &m, &d, &used) == 3 && used > 0 &&
            (m < 1 || m > 12 || d < 1 || d > 28)) {
            state = "22008";
            snprintf(msg, sizeof msg, "date/time field value out of range: \"%.*s\"",
                     (int)(n > 100 ? 100 : n), (const char *)p);
        }
    }
    return fail(c, r, FL_ETYPE, state, msg);
}

static bool parse_int64(const char *s, size_t n, int64_t *out, bool *ovf)
{
    size_t i = 0;
    *ovf = false;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    while (n > i && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (i >= n)
        return false;
    uint64_t v = 0;
    for (; i < n; i++) {
        if (s[i] == '_' && i + 1 < n && s[i + 1] != '_')
            continue;
        if (s[i] < '0' || s[i] > '9')
            return false;
        uint64_t nv = v * 10 + (uint64_t)(s[i] - '0');
        if (v > UINT64_MAX / 10 || nv < v)
            *ovf = true;
        v = nv;
    }
    if (*ovf || v > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX)) {
        *ovf = true;
        return true;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

static bool parse_double(const char *s, size_t n, double *out)
{
    char b[128];
    while (n && (*s == ' ' || *s == '\t' || *s == '\n'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
        n--;
    if (n == 0 || n >= sizeof b)
        return false;
    memcpy(b, s, n);
    b[n] = 0;
    if (!strcasecmp(b, "nan")) {
        *out = NAN;
        return true;
    }
    if (!strcasecmp(b, "infinity") || !strcasecmp(b, "+infinity") || !strcasecmp(b, "inf")) {
        *out = INFINITY;
        return true;
    }
    if (!strcasecmp(b, "-infinity") || !strcasecmp(b, "-inf")) {
        *out = -INFINITY;
        return true;
    }
    for (size_t i = 0; i < n; i++)
        if (!((b[i] >= '0' && b[i] <= '9') || b[i] == '.' || b[i] == 'e' || b[i] == 'E' || b[i] == '+' ||
              b[i] == '-'))
            return false;
    char *e;
    errno = 0;
    *out = strtod(b, &e);
    return *e == 0 && e != b;
}

static fl_status from_text(cast_ctx *c, uint32_t r, const uint8_t *p, size_t n)
{
    const char *s = (const char *)p;
    uint8_t *d = c->out->data;
    switch (c->to->id) {
    case FL_TYPE_BOOLEAN: {
        bool b;
        if (!fl_pg_parse_bool(s, n, &b))
            return bad_input(c, r, p, n);
        d[r] = b;
        return FL_OK;
    }
    case FL_TYPE_INT32:
    case FL_TYPE_INT64: {
        int64_t v;
        bool ovf;
        if (!parse_int64(s, n, &v, &ovf))
            return bad_input(c, r, p, n);
        if (ovf || (c->to->id == FL_TYPE_INT32 && (v > INT32_MAX || v < INT32_MIN))) {
            char tn[64], msg[256];
            snprintf(msg, sizeof msg, "value \"%.*s\" is out of range for type %s", (int)(n > 60 ? 60 : n), s,
                     fl_sql_type_name(c->to, tn, sizeof tn));
            return fail(c, r, FL_EOVERFLOW, "22003", msg);
        }
        if (c->to->id == FL_TYPE_INT32)
            ((int32_t *)(void *)d)[r] = (int32_t)v;
        else
            ((int64_t *)(void *)d)[r] = v;
        return FL_OK;
    }
    case FL_TYPE_FLOAT32:
    case FL_TYPE_FLOAT64: {
        double v;
        if (!parse_double(s, n, &v))
            return bad_input(c, r, p, n);
        if (c->to->id == FL_TYPE_FLOAT32) {
            float f;
            if (!float4_fits(v, &f))
                return num_out_of_range(c, r);
            ((float *)(void *)d)[r] = f;
        } else {
            ((double *)(void *)d)[r] = v;
        }
        return FL_OK;
    }
    case FL_TYPE_DECIMAL: {
        fl_i128 v;
        bool ovf;
        if (!dec_parse(s, n, c->to->precision, c->to->scale, &v, &ovf))
            return bad_input(c, r, p, n);
        if (ovf)
            return num_out_of_range(c, r);
        memcpy(d + (size_t)r * 16, &v, 16);
        return FL_OK;
    }
    case FL_TYPE_DATE: {
        int32_t v;
        if (!fl_pg_parse_date(s, n, &v))
            return bad_input(c, r, p, n);
        ((int32_t *)(void *)d)[r] = v;
        return FL_OK;
    }
    case FL_TYPE_TIME: {
        int64_t v;
        if (!fl_pg_parse_time(s, n, &v))
            return bad_input(c, r, p, n);
        ((int64_t *)(void *)d)[r] = v;
        return FL_OK;
    }
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMPTZ_NS: {
        ts_parsed tp;
        if (!fl_pg_parse_timestamp(s, n, &tp))
            return bad_input(c, r, p, n);
        int64_t us = tp.local_us;
        if (c->to->id == FL_TYPE_TIMESTAMPTZ || c->to->id == FL_TYPE_TIMESTAMPTZ_NS) {
            int64_t ls = floordiv64(us, US_PER_SEC);
            int32_t off;
            if (tp.has_offset)
                off = tp.offset_s;
            else if (tp.zone[0]) {
                fl_tz *z;
                fl_error e2;
                if (fl_tz_load(tp.zone, &z, &e2) != FL_OK)
                    return bad_input(c, r, p, n);
                off = fl_tz_offset_local(z, ls);
                fl_tz_free(z);
            } else
                off = fl_tz_offset_local(c->tz, ls);
            us -= (int64_t)off * US_PER_SEC;
        }
        if (c->to->id == FL_TYPE_TIMESTAMP_NS || c->to->id == FL_TYPE_TIMESTAMPTZ_NS) {
            if (us > INT64_MAX / 1000 - 1 || us < INT64_MIN / 1000 + 1)
                return num_out_of_range(c, r);
            us = us * 1000 + tp.ns_adjust;
        }
        ((int64_t *)(void *)d)[r] = us;
        return FL_OK;
    }
    case FL_TYPE_UUID: {
        if (!fl_pg_parse_uuid(s, n, d + (size_t)r * 16))
            return bad_input(c, r, p, n);
        return FL_OK;
    }
    case FL_TYPE_FIXED: {
        if (fl_type_is_interval(c->to)) {
            fl_interval iv;
            if (!fl_pg_parse_interval(s, n, c->to->scale, &iv))
                return bad_input(c, r, p, n);
            memcpy(d + (size_t)r * 16, &iv, 16);
            return FL_OK;
        }
        if (n != (size_t)c->to->fixed_len) {
            char msg[128];
            snprintf(msg, sizeof msg, "value of %zu bytes does not fit fixed(%d)", n, c->to->fixed_len);
            return fail(c, r, FL_ETYPE, NULL, msg);
        }
        memcpy(d + (size_t)r * n, p, n);
        return FL_OK;
    }
    default: return fl_errorf(c->err, FL_ETYPE, "cast: unexpected text target");
    }
}

static fl_status bytea_in(cast_ctx *c, strout *so, uint32_t r, const uint8_t *p, size_t n);

/* A bytea value cast to geometry must be WKB. */
static fl_status wkb_check(cast_ctx *c, uint32_t r, const uint8_t *p, size_t n)
{
    (void)r;
    fl_error e;
    fl_error_clear(&e);
    if (fl_wkb_scan(p, n, NULL, NULL, &e) != FL_OK)
        return fl_error_state(c->err, FL_ETYPE, "22P02", "invalid geometry: %s", e.msg);
    return FL_OK;
}

/* geometry input: WKT ('POINT (1 2)'), or WKB as bytea text ('\x0101...'), as PostGIS
 * takes both */
static fl_status wkt_in(cast_ctx *c, strout *so, uint32_t r, const uint8_t *p, size_t n)
{
    if (n >= 2 && p[0] == '\\' && p[1] == 'x') {
        size_t at = c->out->heap_len;
        FL_TRY(bytea_in(c, so, r, p, n));
        size_t len = c->out->heap_len - at;
        return wkb_check(c, r, c->out->heap + at, len);
    }
    fl_buf wkb = {0};
    fl_error e;
    fl_error_clear(&e);
    fl_status rc = fl_wkt_to_wkb((const char *)p, n, &wkb, &e);
    if (rc == FL_OK)
        rc = strout_put(so, r, wkb.bytes, wkb.len, c->err);
    else
        rc = fl_error_state(c->err, FL_ETYPE, "22P02", "invalid geometry: %s", e.msg);
    fl_buf_free(&wkb);
    return rc;
}

/* bytea input: \x hex or escape format; writes into the out heap */
static fl_status bytea_in(cast_ctx *c, strout *so, uint32_t r, const uint8_t *p, size_t n)
{
    uint8_t *dst;
    FL_TRY(strout_reserve(so, n, &dst, c->err));
    size_t o = 0;
    if (n >= 2 && p[0] == '\\' && (p[1] == 'x' || p[1] == 'X')) {
        int hi = -1;
        for (size_t i = 2; i < n; i++) {
            int ch = p[i], v;
            if (ch == ' ' || ch == '\n' || ch == '\t')
                continue;
            if (ch >= '0' && ch <= '9')
                v = ch - '0';
            else if ((ch | 32) >= 'a' && (ch | 32) <= 'f')
                v = (ch | 32) - 'a' + 10;
            else {
                strout_commit(so, r, 0);
                return bad_input(c, r, p, n);
            }
            if (hi < 0)
                hi = v;
            else {
                dst[o++] = (uint8_t)(hi << 4 | v);
                hi = -1;
            }
        }
        if (hi >= 0) {
            strout_commit(so, r, 0);
            return bad_input(c, r, p, n);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            if (p[i] != '\\') {
                dst[o++] = p[i];
                continue;
            }
            if (i + 1 < n && p[i + 1] == '\\') {
                dst[o++] = '\\';
                i++;
            } else if (i + 3 < n && p[i + 1] >= '0' && p[i + 1] <= '3' && p[i + 2] >= '0' && p[i + 2] <= '7' &&
                       p[i + 3] >= '0' && p[i + 3] <= '7') {
                dst[o++] = (uint8_t)((p[i + 1] - '0') * 64 + (p[i + 2] - '0') * 8 + (p[i + 3] - '0'));
                i += 3;
            } else {
                strout_commit(so, r, 0);
                return bad_input(c, r, p, n);
            }
        }
    }
    strout_commit(so, r, o);
    return FL_OK;
}

/* ---- temporal ---- */

static int64_t tget(const fl_vector *b, uint32_t r)
{
    if (b->type->id == FL_TYPE_DATE)
        return ((const int32_t *)(const void *)b->data)[r];
    return ((const int64_t *)(const void *)b->data)[r];
}

static fl_status temporal(cast_ctx *c, uint32_t r, const fl_type *from, int64_t v)
{
    fl_type_id f = from->id, t = c->to->id;
    /* normalize to (utc or local) micros + flag */
    int64_t us;
    bool is_tz = f == FL_TYPE_TIMESTAMPTZ || f == FL_TYPE_TIMESTAMPTZ_NS;
    if (f == FL_TYPE_DATE) {
        if (v > 106751991 || v < -106751991)
            return num_out_of_range(c, r);
        us = v * US_PER_DAY;
    } else if (f == FL_TYPE_TIMESTAMP_NS || f == FL_TYPE_TIMESTAMPTZ_NS)
        us = floordiv64(v, 1000);
    else
        us = v;
    bool to_tz = t == FL_TYPE_TIMESTAMPTZ || t == FL_TYPE_TIMESTAMPTZ_NS;
    if (is_tz && !to_tz) /* utc -> local wall clock */
        us += (int64_t)fl_tz_offset_utc(c->tz, floordiv64(us, US_PER_SEC)) * US_PER_SEC;
    else if (!is_tz && to_tz) /* local -> utc */
        us -= (int64_t)fl_tz_offset_local(c->tz, floordiv64(us, US_PER_SEC)) * US_PER_SEC;
    uint8_t *d = c->out->data;
    switch (t) {
    case FL_TYPE_DATE: {
        int64_t days = floordiv64(us, US_PER_DAY);
        ((int32_t *)(void *)d)[r] = (int32_t)days;
        return FL_OK;
    }
    case FL_TYPE_TIME: ((int64_t *)(void *)d)[r] = floormod64(us, US_PER_DAY); return FL_OK;
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ: ((int64_t *)(void *)d)[r] = us; return FL_OK;
    default: {
        bool same_ns = (f == FL_TYPE_TIMESTAMP_NS || f == FL_TYPE_TIMESTAMPTZ_NS) && is_tz == to_tz;
        if (same_ns) {
            ((int64_t *)(void *)d)[r] = v;
            return FL_OK;
        }
        if (us > INT64_MAX / 1000 || us < INT64_MIN / 1000)
            return num_out_of_range(c, r);
        int64_t ns = us * 1000;
        if (f == FL_TYPE_TIMESTAMP_NS || f == FL_TYPE_TIMESTAMPTZ_NS)
            ns += floormod64(v, 1000);
        ((int64_t *)(void *)d)[r] = ns;
        return FL_OK;
    }
    }
}

static bool needs_tz(const fl_type *a, const fl_type *b)
{
    if (fl_type_is_variant(a))
        return true; /* a variant may hold a timestamp with or without zone */
    bool az = a->id == FL_TYPE_TIMESTAMPTZ || a->id == FL_TYPE_TIMESTAMPTZ_NS;
    bool bz = b->id == FL_TYPE_TIMESTAMPTZ || b->id == FL_TYPE_TIMESTAMPTZ_NS;
    return az || bz || fl_type_is_nested(a);
}

/* ---- the vector cast ---- */

fl_status fl_cast_vector_tz(const fl_vector *in, const fl_sel *sel, uint32_t nrows, const fl_type *to,
                            bool lenient, const fl_tz *tz, fl_vector *out, fl_error *err);

fl_status fl_cast_vector(const fl_vector *in, const fl_sel *sel, uint32_t nrows, const fl_type *to,
                         bool lenient, const fl_eval_env *env, fl_vector *out, fl_error *err)
{
    fl_tz *tz = NULL;
    if (needs_tz(in->type, to) || (fl_is_string(in->type) && (to->id == FL_TYPE_TIMESTAMPTZ ||
                                                              to->id == FL_TYPE_TIMESTAMPTZ_NS)))
        FL_TRY(fl_tz_load(env ? env->time_zone : NULL, &tz, err));
    fl_status rc = fl_cast_vector_tz(in, sel, nrows, to, lenient, tz, out, err);
    fl_tz_free(tz);
    return rc;
}

static fl_status cast_to_text(const fl_unified *u, const fl_sel *sel, uint32_t nrows, cast_ctx *c)
{
    strout so;
    strout_init(&so, c->out);
    char small[128];
    fl_status rc = FL_OK;
    FOR_ROWS(sel, nrows, i, {
        if (rc == FL_OK && uvalid(u, i)) {
            uint32_t br = fl_unified_row(u, i);
            if (u->base->type->id == FL_TYPE_STRING) {
                size_t l;
                const uint8_t *p = fl_vector_bytes(u->base, br, &l);
                rc = strout_put(&so, i, p, l, c->err);
            } else if (u->base->type->id == FL_TYPE_BOOLEAN) {
                /* boolean::text is 'true'/'false' in PostgreSQL (the text
                 * output format, fl_sql_format_value, stays t/f) */
                bool b = u->base->data[br] != 0;
                rc = strout_put(&so, i, b ? "true" : "false", b ? 4 : 5, c->err);
            } else {
                size_t need = fl_format_flat_row(u->base, br, c->tz, small, sizeof small);
                if (need <= sizeof small)
                    rc = strout_put(&so, i, small, need, c->err);
                else {
                    uint8_t *dst;
                    rc = strout_reserve(&so, need, &dst, c->err);
                    if (rc == FL_OK) {
                        fl_format_flat_row(u->base, br, c->tz, (char *)dst, need);
                        strout_commit(&so, i, need);
                    }
                }
            }
        }
    });
    strout_finish(&so, nrows);
    return rc;
}

fl_status fl_cast_vector_tz(const fl_vector *in, const fl_sel *sel, uint32_t nrows, const fl_type *to,
                            bool lenient, const fl_tz *tz, fl_vector *out, fl_error *err)
{
    const fl_type *from = in->type;
    fl_vector_reset(out);
    out->type = to;
    FL_TRY(fl_vector_reserve(out, nrows ? nrows : 1, err));
    out->len = nrows;
    fl_unified u;
    fl_vector_unify(in, &u);
    /* null rows first */
    bool any_null = u.validity || u.base->validity;
    if (any_null) {
        FOR_ROWS(sel, nrows, i, {
            if (!uvalid(&u, i))
                FL_TRY(fl_out_null(out, i, err));
        });
    }
    if (fl_type_is_variant(to) && !fl_type_is_variant(from))
        return fl_variant_cast_in(&u, sel, nrows, lenient, out, err);
    if (fl_type_is_variant(from) && !fl_type_is_variant(to) &&
        !(to->id == FL_TYPE_BINARY && to->ext == FL_EXT_NONE))
        return fl_variant_cast_out(&u, sel, nrows, to, lenient, tz, out, err);
    /* text into a nested type: NULLs convert, a value fails below (a struct
     * field of a ROW(..., NULL) is text) */
    if (!fl_cast_allowed(from, to, false) && !(from->id == FL_TYPE_STRING && fl_type_is_nested(to))) {
        char a[64], b[64];
        return fl_error_state(err, FL_ETYPE, "42846", "cannot cast type %s to %s",
                              fl_sql_type_name(from, a, sizeof a),
                              fl_sql_type_name(to, b, sizeof b));
    }
    cast_ctx c = {to, lenient, tz, out, err};
    if (to->id == FL_TYPE_STRING)
        return cast_to_text(&u, sel, nrows, &c);
    const fl_vector *b = u.base;
    if (fl_type_is_nested(to)) {
        if (from->id == to->id && same_shape(from, to)) {
            /* the same vectors; only names, field ids or nullability differ */
            fl_vector_reset(out);
            for (uint32_t i = 0; i < nrows; i++)
                FL_TRY(fl_vector_append_from(out, in, i, err));
            (void)sel;
            return FL_OK;
        }
        if (from->id == to->id) /* field by field, element by element (cast_nested.c) */
            return fl_cast_nested(in, nrows, to, lenient, tz, out, err);
        if (from->id == FL_TYPE_STRING && to->id == FL_TYPE_LIST &&
            !fl_type_is_nested(&to->children[0].type))
            return fl_cast_text_to_list(in, sel, nrows, to, lenient, tz, out, err);
        if (from->id == FL_TYPE_STRING) { /* NULL literals only (fl_cast_allowed) */
            char tn[64];
            fl_vector_reset(out);
            for (uint32_t i = 0; i < nrows; i++) {
                if (fl_unified_is_valid(&u, i))
                    return fl_error_state(err, FL_ETYPE, "42846",
                                          "cannot cast text to %s: only NULL has a struct or map value",
                                          fl_sql_type_name(to, tn, sizeof tn));
                FL_TRY(fl_vector_append_null(out, err));
            }
            return FL_OK;
        }
        return fl_errorf(err, FL_EUNSUPPORTED, "cast to a nested type is not supported");
    }
    if (from->id == FL_TYPE_STRING) {
        if (to->id == FL_TYPE_BINARY) {
            strout so;
            strout_init(&so, out);
            fl_status rc = FL_OK;
            FOR_ROWS(sel, nrows, i, {
                if (rc == FL_OK && uvalid(&u, i)) {
                    size_t l;
                    const uint8_t *p = ubytes(&u, i, &l);
                    rc = fl_type_is_geo(to) ? wkt_in(&c, &so, i, p, l) : bytea_in(&c, &so, i, p, l);
                }
            });
            strout_finish(&so, nrows);
            return rc;
        }
        FOR_ROWS(sel, nrows, i, {
            if (uvalid(&u, i)) {
                size_t l;
                const uint8_t *p = ubytes(&u, i, &l);
                FL_TRY(from_text(&c, i, p, l));
            }
        });
        return FL_OK;
    }
    if (fl_is_numeric(from) || from->id == FL_TYPE_BOOLEAN) {
        /* fast paths */
        if (!any_null && from->id == FL_TYPE_INT32 && to->id == FL_TYPE_INT64) {
            FOR_ROWS(sel, nrows, i, { OUTV(out, int64_t)[i] = UV(u, int32_t, i); });
            return FL_OK;
        }
        if (from->id == FL_TYPE_INT32 && to->id == FL_TYPE_FLOAT64) {
            FOR_ROWS(sel, nrows, i, { OUTV(out, double)[i] = UV(u, int32_t, i); });
            return FL_OK;
        }
        if (from->id == FL_TYPE_INT64 && to->id == FL_TYPE_FLOAT64) {
            FOR_ROWS(sel, nrows, i, { OUTV(out, double)[i] = (double)UV(u, int64_t, i); });
            return FL_OK;
        }
        if (from->id == FL_TYPE_FLOAT32 && to->id == FL_TYPE_FLOAT64) {
            FOR_ROWS(sel, nrows, i, { OUTV(out, double)[i] = UV(u, float, i); });
            return FL_OK;
        }
        if (to->id == FL_TYPE_DECIMAL && (from->id == FL_TYPE_INT32 || from->id == FL_TYPE_INT64) &&
            to->precision - to->scale >= (from->id == FL_TYPE_INT32 ? 10 : 19)) {
            fl_i128 m = fl_pow10_i128[to->scale];
            fl_i128 *o = OUTV(out, fl_i128);
            if (from->id == FL_TYPE_INT32)
                FOR_ROWS(sel, nrows, i, { o[i] = uvalid(&u, i) ? (fl_i128)UV(u, int32_t, i) * m : 0; });
            else
                FOR_ROWS(sel, nrows, i, { o[i] = uvalid(&u, i) ? (fl_i128)UV(u, int64_t, i) * m : 0; });
            return FL_OK;
        }
        if (to->id == FL_TYPE_DECIMAL && from->id == FL_TYPE_DECIMAL && to->scale >= from->scale &&
            to->precision - to->scale >= from->precision - from->scale) {
            fl_i128 m = fl_pow10_i128[to->scale - from->scale];
            fl_i128 *o = OUTV(out, fl_i128);
            FOR_ROWS(sel, nrows, i, {
                fl_i128 x;
                memcpy(&x, b->data + (size_t)fl_unified_row(&u, i) * 16, 16);
                o[i] = uvalid(&u, i) ? x * m : 0; /* NULL rows' bytes may be anything */
            });
            return FL_OK;
        }
        if (to->id == FL_TYPE_FLOAT64 && from->id == FL_TYPE_DECIMAL && from->precision <= 15) {
            double sc = (double)fl_pow10_i128[from->scale];
            FOR_ROWS(sel, nrows, i, {
                fl_i128 x;
                memcpy(&x, b->data + (size_t)fl_unified_row(&u, i) * 16, 16);
                OUTV(out, double)[i] = (double)(int64_t)x / sc;
            });
            return FL_OK;
        }
        FOR_ROWS(sel, nrows, i, {
            if (uvalid(&u, i)) {
                numv n;
                get_num(b, fl_unified_row(&u, i), &n);
                FL_TRY(put_num(&c, i, &n));
            }
        });
        return FL_OK;
    }
    if (fl_is_temporal(from)) {
        if (from->id == FL_TYPE_DATE && to->id == FL_TYPE_TIMESTAMP) {
            /* NULL rows hold no date (their bytes may be anything): skip them */
            FOR_ROWS(sel, nrows, i, {
                int64_t v = 0;
                if (uvalid(&u, i) &&
                    __builtin_mul_overflow((int64_t)UV(u, int32_t, i), US_PER_DAY, &v))
                    return fl_error_state(err, FL_EINVAL, "22008",
                                          "timestamp out of range (SQLSTATE 22008)");
                OUTV(out, int64_t)[i] = v;
            });
            return FL_OK;
        }
        FOR_ROWS(sel, nrows, i, {
            if (uvalid(&u, i))
                FL_TRY(temporal(&c, i, from, tget(b, fl_unified_row(&u, i))));
        });
        return FL_OK;
    }
    if (fl_type_is_interval(from) && fl_type_is_interval(to)) {
        FOR_ROWS(sel, nrows, i, {
            memcpy(out->data + (size_t)i * 16, b->data + (size_t)fl_unified_row(&u, i) * 16, 16);
        });
        return FL_OK;
    }
    /* binary / fixed / uuid */
    if (to->id == FL_TYPE_BINARY) {
        strout so;
        strout_init(&so, out);
        fl_status rc = FL_OK;
        FOR_ROWS(sel, nrows, i, {
            if (rc == FL_OK && uvalid(&u, i)) {
                uint32_t br = fl_unified_row(&u, i);
                if (from->id == FL_TYPE_BINARY) {
                    size_t l;
                    const uint8_t *p = fl_vector_bytes(b, br, &l);
                    if (fl_type_is_geo(to) && !fl_type_is_geo(from))
                        rc = wkb_check(&c, i, p, l);
                    if (rc == FL_OK)
                        rc = strout_put(&so, i, p, l, err);
                } else {
                    size_t w = fl_type_width(from);
                    rc = strout_put(&so, i, b->data + (size_t)br * w, w, err);
                }
            }
        });
        strout_finish(&so, nrows);
        return rc;
    }
    size_t w = fl_type_width(to);
    FOR_ROWS(sel, nrows, i, {
        if (uvalid(&u, i)) {
            uint32_t br = fl_unified_row(&u, i);
            const uint8_t *p;
            size_t l;
            if (from->id == FL_TYPE_BINARY)
                p = fl_vector_bytes(b, br, &l);
            else {
                l = fl_type_width(from);
                p = b->data + (size_t)br * l;
            }
            if (l != w) {
                char msg[128];
                snprintf(msg, sizeof msg, "value of %zu bytes does not fit a %zu-byte type", l, w);
                FL_TRY(fail(&c, i, FL_ETYPE, NULL, msg));
            } else
                memcpy(out->data + (size_t)i * w, p, w);
        }
    });
    return FL_OK;
}

/* ---- scalar cast through a one-row vector ---- */

fl_status fl_value_to_vector(const fl_value *v, fl_vector *out, fl_error *err);
fl_status fl_vector_to_value(const fl_vector *v, uint32_t row, fl_arena *a, fl_value *out, fl_error *err);

fl_status fl_cast_value(const fl_value *in, const fl_type *to, const fl_eval_env *env, fl_arena *a,
                        fl_value *out, fl_error *err)
{
    if (in->is_null) {
        memset(out, 0, sizeof *out);
        out->type = *to;
        out->type.nchildren = 0;
        out->type.children = NULL;
        out->is_null = true;
        return FL_OK;
    }
    fl_type tin = in->type;
    tin.nchildren = 0;
    tin.children = NULL;
    fl_vector vi, vo;
    FL_TRY(fl_vector_init(&vi, &tin, err));
    fl_status rc = fl_value_to_vector(in, &vi, err);
    if (rc == FL_OK)
        rc = fl_vector_init(&vo, to, err);
    if (rc == FL_OK) {
        rc = fl_cast_vector(&vi, NULL, 1, to, false, env, &vo, err);
        if (rc == FL_OK)
            rc = fl_vector_to_value(&vo, 0, a, out, err);
        fl_vector_destroy(&vo);
    }
    fl_vector_destroy(&vi);
    return rc;
}
