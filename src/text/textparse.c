/*
 * textparse.c - text to typed values (spellings in include/floe/text.h).
 *
 * Every parser takes (pointer, length) rather than a C string, because the
 * text usually sits inside a bigger buffer (a CSV line, a JSON document), and
 * must consume all n bytes: trailing garbage is a syntax error, never
 * silently ignored.
 */
#include "floe/text.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "floe/calendar.h"

static bool ieq(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    return n == m && strncasecmp(s, lit, n) == 0;
}

bool fl_parse_bool(const char *s, size_t n, bool *out)
{
    if (ieq(s, n, "true") || ieq(s, n, "t") || ieq(s, n, "yes") || ieq(s, n, "1")) {
        *out = true;
        return true;
    }
    if (ieq(s, n, "false") || ieq(s, n, "f") || ieq(s, n, "no") || ieq(s, n, "0")) {
        *out = false;
        return true;
    }
    return false;
}

bool fl_parse_int64(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (i == n)
        return false;
    uint64_t v = 0;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (limit - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

bool fl_parse_double(const char *s, size_t n, double *out)
{
    char buf[128];
    if (n == 0 || n >= sizeof buf)
        return false;
    if (ieq(s, n, "nan")) {
        *out = NAN;
        return true;
    }
    if (ieq(s, n, "infinity") || ieq(s, n, "inf") || ieq(s, n, "+infinity") || ieq(s, n, "+inf")) {
        *out = INFINITY;
        return true;
    }
    if (ieq(s, n, "-infinity") || ieq(s, n, "-inf")) {
        *out = -INFINITY;
        return true;
    }
    /* only decimal syntax: no hex floats, no leading spaces */
    for (size_t i = 0; i < n; i++)
        if (!strchr("0123456789+-.eE", s[i]))
            return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    errno = 0;
    double d = strtod(buf, &end);
    if (end != buf + n || end == buf)
        return false;
    *out = d;
    return true;
}

fl_status fl_parse_decimal(const char *s, size_t n, int32_t precision, int32_t scale, fl_i128 *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    /* collect digits and the position of the point, then an optional exponent */
    char digits[128];
    size_t nd = 0;
    long point = -1;
    bool any = false;
    for (; i < n; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            any = true;
            if (nd == 0 && s[i] == '0' && point < 0)
                continue; /* leading zeros of the integer part */
            if (nd >= sizeof digits)
                return FL_EOVERFLOW;
            digits[nd++] = s[i];
        } else if (s[i] == '.' && point < 0) {
            point = (long)nd;
        } else {
            break;
        }
    }
    if (!any)
        return FL_ESYNTAX;
    long exp10 = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        int64_t e;
        if (!fl_parse_int64(s + i + 1, n - i - 1, &e) || e > 1000 || e < -1000)
            return FL_ESYNTAX;
        exp10 = (long)e;
        i = n;
    }
    if (i != n)
        return FL_ESYNTAX;
    if (point < 0)
        point = (long)nd;
    /* value = 0.digits * 10^(point + exp10); we need unscaled = value * 10^scale */
    long int_digits = point + exp10 + scale; /* digits that land left of the unscaled point */
    unsigned __int128 v = 0;
    unsigned __int128 max = 1;
    for (int k = 0; k < precision; k++)
        max *= 10;
    for (long k = 0; k < int_digits; k++) {
        unsigned d = k < (long)nd ? (unsigned)(digits[k] - '0') : 0;
        v = v * 10 + d;
        if (v >= max)
            return FL_EOVERFLOW;
    }
    /* round half away from zero on the first dropped digit (implied zeros
     * precede the digits when int_digits < 0, so nothing rounds then) */
    if (int_digits >= 0 && int_digits < (long)nd && digits[int_digits] >= '5')
        v += 1;
    if (v >= max)
        return FL_EOVERFLOW;
    *out = neg ? -(fl_i128)v : (fl_i128)v;
    return FL_OK;
}

static bool digits_at(const char *s, size_t n, size_t i, size_t count, int64_t *out)
{
    if (i + count > n)
        return false;
    int64_t v = 0;
    for (size_t k = 0; k < count; k++) {
        char c = s[i + k];
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    *out = v;
    return true;
}

/* Parses [-]Y{4,}-MM-DD at the start of s; returns bytes used or 0. */
static size_t parse_ymd(const char *s, size_t n, int64_t *days)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && s[i] == '-') {
        neg = true;
        i++;
    }
    size_t ys = i;
    int64_t y = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9' && i - ys < 9)
        y = y * 10 + (s[i++] - '0');
    if (i - ys < 4 || i >= n || s[i] != '-')
        return 0;
    int64_t m, d;
    if (!digits_at(s, n, i + 1, 2, &m) || i + 3 >= n || s[i + 3] != '-' ||
        !digits_at(s, n, i + 4, 2, &d))
        return 0;
    if (neg)
        y = -y;
    if (m < 1 || m > 12 || d < 1 || d > (int64_t)fl_days_in_month(y, (unsigned)m))
        return 0;
    *days = (int32_t)fl_days_from_civil(y, (unsigned)m, (unsigned)d);
    return i + 6;
}

bool fl_parse_date(const char *s, size_t n, int32_t *days)
{
    int64_t d;
    size_t used = parse_ymd(s, n, &d);
    if (!used || used != n || d < INT32_MIN || d > INT32_MAX)
        return false;
    *days = (int32_t)d;
    return true;
}

/* HH:MM[:SS[.f{1,9}]] -> nanoseconds since midnight; returns bytes used or 0. */
static size_t parse_hms(const char *s, size_t n, int64_t *nanos)
{
    int64_t h, m, sec = 0, frac = 0;
    if (!digits_at(s, n, 0, 2, &h) || n < 5 || s[2] != ':' || !digits_at(s, n, 3, 2, &m))
        return 0;
    size_t i = 5;
    if (i < n && s[i] == ':') {
        if (!digits_at(s, n, i + 1, 2, &sec))
            return 0;
        i += 3;
        if (i < n && s[i] == '.') {
            i++;
            size_t fs = i;
            while (i < n && s[i] >= '0' && s[i] <= '9') {
                if (i - fs < 9)
                    frac = frac * 10 + (s[i] - '0');
                i++;
            }
            if (i == fs)
                return 0;
            for (size_t k = i - fs; k < 9; k++)
                frac *= 10;
        }
    }
    if (h > 24 || m > 59 || sec > 60 || (h == 24 && (m || sec || frac)))
        return 0;
    *nanos = ((h * 60 + m) * 60 + sec) * 1000000000LL + frac;
    return i;
}

bool fl_parse_time(const char *s, size_t n, int64_t *micros)
{
    int64_t ns;
    size_t used = parse_hms(s, n, &ns);
    if (!used || used != n)
        return false;
    *micros = ns / 1000;
    return true;
}

bool fl_parse_timestamp(const char *s, size_t n, int digits, int64_t *out, bool *had_zone)
{
    int64_t days;
    size_t i = parse_ymd(s, n, &days);
    if (!i)
        return false;
    int64_t ns = 0;
    *had_zone = false;
    if (i < n && (s[i] == ' ' || s[i] == 'T')) {
        size_t used = parse_hms(s + i + 1, n - i - 1, &ns);
        if (!used)
            return false;
        i += 1 + used;
    }
    int64_t offset_min = 0;
    if (i < n) {
        if (s[i] == 'Z' && i + 1 == n) {
            *had_zone = true;
            i++;
        } else if (s[i] == '+' || s[i] == '-') {
            int sign = s[i] == '-' ? -1 : 1;
            int64_t oh, om = 0;
            if (!digits_at(s, n, i + 1, 2, &oh))
                return false;
            size_t j = i + 3;
            if (j < n && s[j] == ':')
                j++;
            if (j < n) {
                if (!digits_at(s, n, j, 2, &om))
                    return false;
                j += 2;
            }
            if (oh > 18 || om > 59)
                return false;
            offset_min = sign * (oh * 60 + om);
            *had_zone = true;
            i = j;
        }
    }
    if (i != n)
        return false;
    /* local = utc + offset  =>  utc = local - offset */
    __int128 total =
        (__int128)days * 86400 * 1000000000LL + ns - (__int128)offset_min * 60 * 1000000000LL;
    if (digits == 6) {
        /* floor division to micros */
        __int128 q = total / 1000;
        if (total % 1000 < 0)
            q--;
        total = q;
    }
    if (total > INT64_MAX || total < INT64_MIN)
        return false;
    *out = (int64_t)total;
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

bool fl_parse_uuid(const char *s, size_t n, uint8_t out[16])
{
    if (n != 36 && n != 32)
        return false;
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        if (n == 36 && (i == 8 || i == 13 || i == 18 || i == 23)) {
            if (s[i] != '-')
                return false;
            i++;
            continue;
        }
        int hi = hexval(s[i]), lo = i + 1 < n ? hexval(s[i + 1]) : -1;
        if (hi < 0 || lo < 0 || k >= 16)
            return false;
        out[k++] = (uint8_t)(hi << 4 | lo);
        i += 2;
    }
    return k == 16;
}

bool fl_parse_hex_bytes(const char *s, size_t n, uint8_t *out, size_t *out_len)
{
    if (n < 2 || s[0] != '\\' || (s[1] != 'x' && s[1] != 'X') || (n - 2) % 2)
        return false;
    size_t k = 0;
    for (size_t i = 2; i < n; i += 2) {
        int hi = hexval(s[i]), lo = hexval(s[i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[k++] = (uint8_t)(hi << 4 | lo);
    }
    *out_len = k;
    return true;
}

static fl_status syntax(fl_error *err, const fl_type *t, const char *s, size_t n)
{
    char tn[64];
    fl_type_format(t, tn, sizeof tn);
    return fl_errorf(err, FL_ESYNTAX, "cannot parse '%.*s' as %s", (int)(n > 80 ? 80 : n), s, tn);
}

/* Parses primitive text into a scalar; variable-length payloads stay in
 * *scratch (malloc'd, caller frees) or point at s. */
static fl_status parse_scalar(const fl_type *t, const char *s, size_t n, fl_value *out,
                              uint8_t **scratch, fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->type = *t;
    out->type.nchildren = 0;
    out->type.children = NULL;
    bool tz;
    switch (t->id) {
    case FL_TYPE_BOOLEAN:
        if (!fl_parse_bool(s, n, &out->v.b))
            return syntax(err, t, s, n);
        return FL_OK;
    case FL_TYPE_INT32: {
        int64_t x;
        if (!fl_parse_int64(s, n, &x))
            return syntax(err, t, s, n);
        if (x < INT32_MIN || x > INT32_MAX)
            return fl_errorf(err, FL_EOVERFLOW, "'%.*s' is out of range for int", (int)n, s);
        out->v.i32 = (int32_t)x;
        return FL_OK;
    }
    case FL_TYPE_INT64:
        if (!fl_parse_int64(s, n, &out->v.i64)) {
            /* distinguish overflow from junk for a better message */
            bool digits = n > 0;
            for (size_t i = 0; i < n; i++)
                if (!(isdigit((unsigned char)s[i]) || (i == 0 && (s[i] == '-' || s[i] == '+'))))
                    digits = false;
            if (digits)
                return fl_errorf(err, FL_EOVERFLOW, "'%.*s' is out of range for long", (int)n, s);
            return syntax(err, t, s, n);
        }
        return FL_OK;
    case FL_TYPE_FLOAT32:
    case FL_TYPE_FLOAT64: {
        double d;
        if (!fl_parse_double(s, n, &d))
            return syntax(err, t, s, n);
        if (t->id == FL_TYPE_FLOAT32)
            out->v.f32 = (float)d;
        else
            out->v.f64 = d;
        return FL_OK;
    }
    case FL_TYPE_DECIMAL: {
        fl_status rc = fl_parse_decimal(s, n, t->precision, t->scale, &out->v.dec);
        if (rc == FL_EOVERFLOW)
            return fl_errorf(err, FL_EOVERFLOW, "'%.*s' does not fit decimal(%d,%d)", (int)n, s,
                             t->precision, t->scale);
        if (rc != FL_OK)
            return syntax(err, t, s, n);
        return FL_OK;
    }
    case FL_TYPE_DATE:
        if (!fl_parse_date(s, n, &out->v.i32))
            return syntax(err, t, s, n);
        return FL_OK;
    case FL_TYPE_TIME:
        if (!fl_parse_time(s, n, &out->v.i64))
            return syntax(err, t, s, n);
        return FL_OK;
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
        if (!fl_parse_timestamp(s, n, 6, &out->v.i64, &tz))
            return syntax(err, t, s, n);
        return FL_OK;
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS:
        if (!fl_parse_timestamp(s, n, 9, &out->v.i64, &tz))
            return syntax(err, t, s, n);
        return FL_OK;
    case FL_TYPE_UUID:
        *scratch = malloc(16);
        if (!*scratch)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (!fl_parse_uuid(s, n, *scratch))
            return syntax(err, t, s, n);
        out->v.bytes.ptr = *scratch;
        out->v.bytes.len = 16;
        return FL_OK;
    case FL_TYPE_STRING:
        out->v.bytes.ptr = (const uint8_t *)s;
        out->v.bytes.len = n;
        return FL_OK;
    case FL_TYPE_BINARY:
    case FL_TYPE_FIXED: {
        size_t len = n;
        const uint8_t *p = (const uint8_t *)s;
        if (n >= 2 && s[0] == '\\' && (s[1] == 'x' || s[1] == 'X')) {
            *scratch = malloc(n / 2 + 1);
            if (!*scratch)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            if (!fl_parse_hex_bytes(s, n, *scratch, &len))
                return syntax(err, t, s, n);
            p = *scratch;
        }
        if (t->id == FL_TYPE_FIXED && len != (size_t)t->fixed_len)
            return fl_errorf(err, FL_ETYPE, "'%.*s' has %zu bytes, fixed[%d] needs %d",
                             (int)(n > 80 ? 80 : n), s, len, t->fixed_len, t->fixed_len);
        out->v.bytes.ptr = p;
        out->v.bytes.len = len;
        return FL_OK;
    }
    default: {
        char tn[64];
        fl_type_format(t, tn, sizeof tn);
        return fl_errorf(err, FL_EUNSUPPORTED, "cannot parse text as %s", tn);
    }
    }
}

fl_status fl_parse_append(fl_vector *v, const char *s, size_t n, fl_error *err)
{
    fl_value val;
    uint8_t *scratch = NULL;
    fl_status rc = parse_scalar(v->type, s, n, &val, &scratch, err);
    if (rc == FL_OK) {
        switch (v->type->id) {
        case FL_TYPE_BOOLEAN: {
            uint8_t b = val.v.b;
            rc = fl_vector_append_fixed(v, &b, err);
            break;
        }
        case FL_TYPE_INT32:
        case FL_TYPE_DATE: rc = fl_vector_append_fixed(v, &val.v.i32, err); break;
        case FL_TYPE_FLOAT32: rc = fl_vector_append_fixed(v, &val.v.f32, err); break;
        case FL_TYPE_FLOAT64: rc = fl_vector_append_fixed(v, &val.v.f64, err); break;
        case FL_TYPE_DECIMAL: rc = fl_vector_append_fixed(v, &val.v.dec, err); break;
        case FL_TYPE_UUID:
        case FL_TYPE_FIXED: rc = fl_vector_append_fixed(v, val.v.bytes.ptr, err); break;
        case FL_TYPE_STRING:
        case FL_TYPE_BINARY:
            rc = fl_vector_append_bytes(v, val.v.bytes.ptr, val.v.bytes.len, err);
            break;
        default: rc = fl_vector_append_fixed(v, &val.v.i64, err); break;
        }
    }
    free(scratch);
    return rc;
}

fl_status fl_parse_value(const fl_type *t, const char *s, size_t n, fl_arena *a, fl_value *out,
                         fl_error *err)
{
    uint8_t *scratch = NULL;
    fl_status rc = parse_scalar(t, s, n, out, &scratch, err);
    if (rc == FL_OK && (t->id == FL_TYPE_STRING || t->id == FL_TYPE_BINARY ||
                        t->id == FL_TYPE_FIXED || t->id == FL_TYPE_UUID)) {
        uint8_t *copy = fl_arena_alloc(a, out->v.bytes.len + 1);
        if (!copy) {
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        } else {
            memcpy(copy, out->v.bytes.ptr, out->v.bytes.len);
            out->v.bytes.ptr = copy;
        }
    }
    free(scratch);
    return rc;
}

/* ---- type specs ---- */

static void skip_ws(const char **p)
{
    while (**p == ' ' || **p == '\t')
        (*p)++;
}

static size_t ident_len(const char *p)
{
    size_t n = 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_')
        n++;
    return n;
}

static bool read_int(const char **p, int32_t *out)
{
    skip_ws(p);
    char *end;
    long v = strtol(*p, &end, 10);
    if (end == *p || v < 0 || v > 1000000)
        return false;
    *out = (int32_t)v;
    *p = end;
    skip_ws(p);
    return true;
}

static bool expect(const char **p, char c)
{
    skip_ws(p);
    if (**p != c)
        return false;
    (*p)++;
    skip_ws(p);
    return true;
}

static const struct {
    const char *name;
    fl_type_id id;
} primitive_names[] = {
    {"boolean", FL_TYPE_BOOLEAN},
    {"bool", FL_TYPE_BOOLEAN},
    {"int", FL_TYPE_INT32},
    {"integer", FL_TYPE_INT32},
    {"int32", FL_TYPE_INT32},
    {"long", FL_TYPE_INT64},
    {"bigint", FL_TYPE_INT64},
    {"int64", FL_TYPE_INT64},
    {"float", FL_TYPE_FLOAT32},
    {"real", FL_TYPE_FLOAT32},
    {"float32", FL_TYPE_FLOAT32},
    {"double", FL_TYPE_FLOAT64},
    {"float64", FL_TYPE_FLOAT64},
    {"date", FL_TYPE_DATE},
    {"time", FL_TYPE_TIME},
    {"timestamp", FL_TYPE_TIMESTAMP},
    {"timestamptz", FL_TYPE_TIMESTAMPTZ},
    {"timestamp_ns", FL_TYPE_TIMESTAMP_NS},
    {"timestamptz_ns", FL_TYPE_TIMESTAMPTZ_NS},
    {"string", FL_TYPE_STRING},
    {"varchar", FL_TYPE_STRING},
    {"text", FL_TYPE_STRING},
    {"uuid", FL_TYPE_UUID},
    {"binary", FL_TYPE_BINARY},
    {"blob", FL_TYPE_BINARY},
    {"bytes", FL_TYPE_BINARY},
};

static fl_status spec_err(fl_error *err, const char *p)
{
    return fl_errorf(err, FL_ESYNTAX, "bad type spec at '%.40s'", p);
}

static fl_status parse_field(const char **p, fl_arena *a, int32_t *next_id, fl_field *f,
                             bool take_id, fl_error *err);

fl_status fl_parse_type_spec(const char **p, fl_arena *a, int32_t *next_id, fl_type *out,
                             fl_error *err)
{
    memset(out, 0, sizeof *out);
    skip_ws(p);
    size_t n = ident_len(*p);
    if (!n)
        return spec_err(err, *p);
    char name[32];
    if (n >= sizeof name)
        return spec_err(err, *p);
    for (size_t i = 0; i < n; i++)
        name[i] = (char)tolower((unsigned char)(*p)[i]);
    name[n] = '\0';
    const char *start = *p;
    *p += n;
    if (!strcmp(name, "decimal") || !strcmp(name, "numeric")) {
        out->id = FL_TYPE_DECIMAL;
        if (!expect(p, '(') || !read_int(p, &out->precision) || !expect(p, ',') ||
            !read_int(p, &out->scale) || !expect(p, ')'))
            return spec_err(err, start);
        if (out->precision < 1 || out->precision > 38 || out->scale > out->precision)
            return fl_errorf(err, FL_EINVAL, "decimal(%d,%d): need 1 <= P <= 38, 0 <= S <= P",
                             out->precision, out->scale);
        return FL_OK;
    }
    if (!strcmp(name, "fixed")) {
        out->id = FL_TYPE_FIXED;
        skip_ws(p);
        char close = **p == '[' ? ']' : ')';
        if ((**p != '[' && **p != '(') || !(++*p) || !read_int(p, &out->fixed_len) ||
            !expect(p, close) || out->fixed_len < 1)
            return spec_err(err, start);
        return FL_OK;
    }
    if (!strcmp(name, "list") || !strcmp(name, "array")) {
        out->id = FL_TYPE_LIST;
        out->nchildren = 1;
        out->children = fl_arena_calloc(a, 1, sizeof(fl_field));
        if (!out->children)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (!expect(p, '<'))
            return spec_err(err, start);
        fl_field *e = &out->children[0];
        e->name = "element";
        e->nullable = true;
        e->field_id = (*next_id)++;
        FL_TRY(fl_parse_type_spec(p, a, next_id, &e->type, err));
        if (!expect(p, '>'))
            return spec_err(err, *p);
        return FL_OK;
    }
    if (!strcmp(name, "map")) {
        out->id = FL_TYPE_MAP;
        out->nchildren = 2;
        out->children = fl_arena_calloc(a, 2, sizeof(fl_field));
        if (!out->children)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (!expect(p, '<'))
            return spec_err(err, start);
        fl_field *k = &out->children[0], *v = &out->children[1];
        k->name = "key";
        k->field_id = (*next_id)++;
        v->name = "value";
        v->nullable = true;
        v->field_id = (*next_id)++;
        FL_TRY(fl_parse_type_spec(p, a, next_id, &k->type, err));
        if (!expect(p, ','))
            return spec_err(err, *p);
        FL_TRY(fl_parse_type_spec(p, a, next_id, &v->type, err));
        if (!expect(p, '>'))
            return spec_err(err, *p);
        return FL_OK;
    }
    if (!strcmp(name, "struct")) {
        out->id = FL_TYPE_STRUCT;
        if (!expect(p, '<'))
            return spec_err(err, start);
        /* count fields first: at most one per comma at this nesting level */
        uint32_t cap = 1;
        int depth = 0;
        for (const char *q = *p; *q && depth >= 0; q++) {
            if (*q == '<' || *q == '(')
                depth++;
            else if (*q == '>' || *q == ')')
                depth--;
            else if (*q == ',' && depth == 0)
                cap++;
        }
        out->children = fl_arena_calloc(a, cap, sizeof(fl_field));
        if (!out->children)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (;;) {
            if (out->nchildren >= cap)
                return spec_err(err, *p);
            FL_TRY(parse_field(p, a, next_id, &out->children[out->nchildren++], true, err));
            if (expect(p, '>'))
                break;
            if (!expect(p, ','))
                return spec_err(err, *p);
        }
        return FL_OK;
    }
    for (size_t i = 0; i < sizeof primitive_names / sizeof primitive_names[0]; i++) {
        if (!strcmp(name, primitive_names[i].name)) {
            out->id = primitive_names[i].id;
            if (out->id == FL_TYPE_UUID)
                out->fixed_len = 16;
            return FL_OK;
        }
    }
    return fl_errorf(err, FL_EINVAL, "unknown type '%s'", name);
}

/* name:type [not null] — ids for nested fields come after the parent's id */
static fl_status parse_field(const char **p, fl_arena *a, int32_t *next_id, fl_field *f,
                             bool take_id, fl_error *err)
{
    skip_ws(p);
    const char *ns = *p;
    while (**p && **p != ':' && **p != ',' && **p != '>')
        (*p)++;
    const char *ne = *p;
    while (ne > ns && (ne[-1] == ' ' || ne[-1] == '\t'))
        ne--;
    if (**p != ':' || ne == ns)
        return fl_errorf(err, FL_ESYNTAX, "expected 'name:type' at '%.40s'", ns);
    (*p)++;
    f->name = fl_arena_strndup(a, ns, (size_t)(ne - ns));
    if (!f->name)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (take_id)
        f->field_id = (*next_id)++;
    f->nullable = true;
    FL_TRY(fl_parse_type_spec(p, a, next_id, &f->type, err));
    skip_ws(p);
    if (strncasecmp(*p, "not null", 8) == 0) {
        f->nullable = false;
        *p += 8;
    }
    return FL_OK;
}

fl_status fl_parse_schema_spec(const char *spec, fl_arena *a, fl_schema *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    uint32_t cap = 1;
    int depth = 0;
    for (const char *q = spec; *q; q++) {
        if (*q == '<' || *q == '(')
            depth++;
        else if (*q == '>' || *q == ')')
            depth--;
        else if (*q == ',' && depth == 0)
            cap++;
    }
    out->fields = fl_arena_calloc(a, cap, sizeof(fl_field));
    if (!out->fields)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    /* top-level ids 1..n first (as Iceberg assigns them), nested ids after */
    int32_t next_nested = (int32_t)cap + 1;
    const char *p = spec;
    for (;;) {
        if (out->nfields >= cap)
            return fl_errorf(err, FL_ESYNTAX, "bad schema spec at '%.40s'", p);
        fl_field *f = &out->fields[out->nfields];
        int32_t id = (int32_t)out->nfields + 1;
        f->field_id = id;
        FL_TRY(parse_field(&p, a, &next_nested, f, false, err));
        out->nfields++;
        skip_ws(&p);
        if (!*p)
            break;
        if (*p != ',')
            return fl_errorf(err, FL_ESYNTAX, "bad schema spec at '%.40s'", p);
        p++;
    }
    for (uint32_t i = 0; i < out->nfields; i++)
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(out->fields[i].name, out->fields[j].name))
                return fl_errorf(err, FL_EINVAL, "duplicate column '%s'", out->fields[i].name);
    return FL_OK;
}
