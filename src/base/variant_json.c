/*
 * variant_json.c - Variant values as JSON text and back (floe/variant.h).
 *
 * Printing follows Spark's to_json of a variant: no whitespace, object
 * fields in their stored (key) order, strings escaped as Jackson does
 * (quote, backslash and control characters; other UTF-8 as is), exact
 * numbers printed exactly (decimals at their scale), doubles and floats as
 * Java's Double/Float.toString lays out the shortest round-trip digits
 * (floe/format.h), non-finite ones as the strings "NaN", "Infinity",
 * "-Infinity", temporal kinds as quoted ISO-like strings with trailing
 * fractional zeros trimmed, binary as padded base64 and UUIDs as 8-4-4-4-12
 * hex.
 *
 * Parsing is our own recursive descent over the bytes (not jansson, which
 * reads every number as a double or int64): numbers keep their spelling's
 * exactness - integers in int64 become the smallest int kind, other numbers
 * without an exponent and with at most 38 digits (and scale) become the
 * smallest decimal (Spark's parse_json also reads integers past int64 that
 * way), everything else is a double. Strings take every JSON escape
 * (surrogate pairs joined, lone surrogates refused); raw bytes must be
 * UTF-8. Errors name the byte position ("JSON: position 17: ..."); nesting
 * past FL_VARIANT_MAX_DEPTH is FL_ELIMIT.
 */
#include "floe/variant.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/calendar.h"
#include "floe/format.h"
#include "variant_int.h"

/* ======================= printing ======================= */

static fl_status put_escaped(fl_buf *out, const uint8_t *s, size_t n, fl_error *err)
{
    static const char hex[] = "0123456789abcdef";
    FL_TRY(fl_buf_putc(out, '"', err));
    size_t run = 0; /* bytes copied as they are, flushed before each escape */
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c >= 0x20 && c != '"' && c != '\\') {
            run++;
            continue;
        }
        FL_TRY(fl_buf_append(out, s + i - run, run, err));
        run = 0;
        char e[7] = {'\\', 0};
        size_t el = 2;
        switch (c) {
        case '"': e[1] = '"'; break;
        case '\\': e[1] = '\\'; break;
        case '\b': e[1] = 'b'; break;
        case '\f': e[1] = 'f'; break;
        case '\n': e[1] = 'n'; break;
        case '\r': e[1] = 'r'; break;
        case '\t': e[1] = 't'; break;
        default:
            memcpy(e + 1, "u00", 3);
            e[4] = hex[c >> 4];
            e[5] = hex[c & 15];
            el = 6;
        }
        FL_TRY(fl_buf_append(out, e, el, err));
    }
    FL_TRY(fl_buf_append(out, s + n - run, run, err));
    return fl_buf_putc(out, '"', err);
}

static fl_status put_string(fl_buf *out, const uint8_t *s, size_t n, fl_error *err)
{
    size_t bad = 0;
    if (!fl_variant_utf8_ok(s, n, &bad))
        return fl_errorf(err, FL_ECORRUPT, "variant to JSON: string byte %zu is not valid UTF-8",
                         bad);
    return put_escaped(out, s, n, err);
}

/* Java's Double.toString / Float.toString layout of the shortest digits:
 * plain for 1e-3 <= |v| < 1e7 ("0.001", "1234.5", "1.0"), else
 * "d.dddE[-]x" ("1.0E7", "1.5E-4"). */
static void java_real(double v, bool as_float, char *buf, size_t cap)
{
    fl_digits d;
    fl_shortest_digits(v, as_float, &d);
    const char *sign = d.neg ? "-" : "";
    if (v == 0) {
        snprintf(buf, cap, "%s0.0", sign);
        return;
    }
    const char *rest = d.n > 1 ? d.d + 1 : "0";
    int e = d.exp10;
    if (e >= -3 && e < 7) {
        if (e < 0) {
            snprintf(buf, cap, "%s0.%.*s%s", sign, -e - 1, "000", d.d);
            return;
        }
        char ip[8];
        int ni = e + 1; /* 1..7 integer digits */
        for (int i = 0; i < ni; i++)
            ip[i] = i < d.n ? d.d[i] : '0';
        ip[ni] = '\0';
        snprintf(buf, cap, "%s%s.%s", sign, ip, d.n > ni ? d.d + ni : "0");
        return;
    }
    snprintf(buf, cap, "%s%c.%sE%d", sign, d.d[0], rest, e);
}

static fl_status put_real(fl_buf *out, double v, bool as_float, fl_error *err)
{
    if (isnan(v))
        return fl_buf_puts(out, "\"NaN\"", err);
    if (isinf(v))
        return fl_buf_puts(out, v < 0 ? "\"-Infinity\"" : "\"Infinity\"", err);
    char buf[48];
    java_real(v, as_float, buf, sizeof buf);
    return fl_buf_puts(out, buf, err);
}

/* Floor quotient and non-negative remainder of a / b (b > 0), without the
 * overflow of a - floor(a / b) * b near INT64_MIN. */
static int64_t floor_split(int64_t a, int64_t b, int64_t *rem)
{
    int64_t q = a / b, r = a % b;
    if (r < 0)
        r += b, q--;
    *rem = r;
    return q;
}

/* ".fff" of frac (per_sec units) with trailing zeros trimmed; "" for 0. */
static void fraction(int64_t frac, int digits, char *buf, size_t cap)
{
    if (frac == 0) {
        buf[0] = '\0';
        return;
    }
    char f[16];
    snprintf(f, sizeof f, "%0*lld", digits, (long long)frac);
    int n = digits;
    while (n > 0 && f[n - 1] == '0')
        n--;
    snprintf(buf, cap, ".%.*s", n, f);
}

/* "HH:MM:SS[.fff]" of a time of day in units (per_sec a second). */
static void time_of_day(int64_t t, int64_t per_sec, int digits, char *buf, size_t cap)
{
    int64_t frac = 0, sec = floor_split(t, per_sec, &frac);
    char fr[16];
    fraction(frac, digits, fr, sizeof fr);
    snprintf(buf, cap, "%02lld:%02lld:%02lld%s", (long long)(sec / 3600),
             (long long)(sec / 60 % 60), (long long)(sec % 60), fr);
}

static fl_status put_timestamp(fl_buf *out, int64_t t, int64_t per_sec, int digits, bool zone,
                               fl_error *err)
{
    int64_t per_day = per_sec * FL_SECS_PER_DAY;
    int64_t tod = 0, days = floor_split(t, per_day, &tod);
    char date[32], tm[48];
    fl_format_iso_date(days, date, sizeof date);
    time_of_day(tod, per_sec, digits, tm, sizeof tm);
    return fl_buf_appendf(out, err, "\"%s %s%s\"", date, tm, zone ? "+00:00" : "");
}

static fl_status put_base64(fl_buf *out, const uint8_t *p, size_t n, fl_error *err)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    FL_TRY(fl_buf_reserve(out, (n + 2) / 3 * 4 + 2, err));
    char *o = out->data + out->len;
    *o++ = '"';
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        *o++ = tab[v >> 18];
        *o++ = tab[(v >> 12) & 63];
        *o++ = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        *o++ = i + 2 < n ? tab[v & 63] : '=';
    }
    *o++ = '"';
    out->len = (size_t)(o - out->data);
    out->data[out->len] = '\0';
    return FL_OK;
}

static fl_status put_uuid(fl_buf *out, const uint8_t *u, fl_error *err)
{
    char s[40];
    int k = 0;
    s[k++] = '"';
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            s[k++] = '-';
        k += snprintf(s + k, sizeof s - (size_t)k, "%02x", u[i]);
    }
    s[k++] = '"';
    return fl_buf_append(out, s, (size_t)k, err);
}

static fl_status put_temporal(fl_buf *out, const fl_variant_scalar *s, fl_error *err)
{
    char buf[64];
    switch (s->kind) {
    case FL_VK_DATE:
        fl_format_iso_date(s->v.i, buf, sizeof buf);
        return fl_buf_appendf(out, err, "\"%s\"", buf);
    case FL_VK_TIME: {
        int64_t tod = 0;
        floor_split(s->v.i, FL_US_PER_DAY, &tod);
        time_of_day(tod, FL_US_PER_SEC, 6, buf, sizeof buf);
        return fl_buf_appendf(out, err, "\"%s\"", buf);
    }
    case FL_VK_TIMESTAMP: return put_timestamp(out, s->v.i, FL_US_PER_SEC, 6, true, err);
    case FL_VK_TIMESTAMP_NTZ: return put_timestamp(out, s->v.i, FL_US_PER_SEC, 6, false, err);
    case FL_VK_TIMESTAMP_NS: return put_timestamp(out, s->v.i, 1000000000LL, 9, true, err);
    default: return put_timestamp(out, s->v.i, 1000000000LL, 9, false, err);
    }
}

static fl_status put_scalar(fl_buf *out, const fl_variant_scalar *s, fl_error *err)
{
    char buf[80];
    switch (s->kind) {
    case FL_VK_NULL: return fl_buf_puts(out, "null", err);
    case FL_VK_TRUE: return fl_buf_puts(out, "true", err);
    case FL_VK_FALSE: return fl_buf_puts(out, "false", err);
    case FL_VK_INT8:
    case FL_VK_INT16:
    case FL_VK_INT32:
    case FL_VK_INT64: return fl_buf_appendf(out, err, "%lld", (long long)s->v.i);
    case FL_VK_DECIMAL4:
    case FL_VK_DECIMAL8:
    case FL_VK_DECIMAL16:
        fl_format_decimal(s->v.dec, s->scale, buf, sizeof buf);
        return fl_buf_puts(out, buf, err);
    case FL_VK_DOUBLE: return put_real(out, s->v.d, false, err);
    case FL_VK_FLOAT: return put_real(out, s->v.f, true, err);
    case FL_VK_STRING: return put_string(out, s->v.bytes, s->len, err);
    case FL_VK_BINARY: return put_base64(out, s->v.bytes, s->len, err);
    case FL_VK_UUID: return put_uuid(out, s->v.bytes, err);
    default: return put_temporal(out, s, err);
    }
}

static fl_status put_value(const fl_variant *v, fl_buf *out, uint32_t depth, fl_error *err);

static fl_status put_cont(const fl_variant *v, bool object, fl_buf *out, uint32_t depth,
                          fl_error *err)
{
    if (depth >= FL_VARIANT_MAX_DEPTH)
        return fl_errorf(err, FL_ELIMIT, "variant to JSON: nested deeper than %d",
                         FL_VARIANT_MAX_DEPTH);
    uint32_t n = 0;
    FL_TRY(fl_variant_count(v, &n, err));
    FL_TRY(fl_buf_putc(out, object ? '{' : '[', err));
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            FL_TRY(fl_buf_putc(out, ',', err));
        fl_variant c = {0};
        if (object) {
            const char *k = NULL;
            size_t kl = 0;
            FL_TRY(fl_variant_object_at(v, i, &k, &kl, &c, err));
            FL_TRY(put_string(out, (const uint8_t *)k, kl, err));
            FL_TRY(fl_buf_putc(out, ':', err));
        } else {
            FL_TRY(fl_variant_array_at(v, i, &c, err));
        }
        FL_TRY(put_value(&c, out, depth + 1, err));
    }
    return fl_buf_putc(out, object ? '}' : ']', err);
}

static fl_status put_value(const fl_variant *v, fl_buf *out, uint32_t depth, fl_error *err)
{
    fl_variant_kind k = FL_VK_NULL;
    FL_TRY(fl_variant_kind_of(v, &k, err));
    if (k == FL_VK_OBJECT || k == FL_VK_ARRAY)
        return put_cont(v, k == FL_VK_OBJECT, out, depth, err);
    fl_variant_scalar s = {0};
    FL_TRY(fl_variant_scalar_of(v, &s, err));
    return put_scalar(out, &s, err);
}

fl_status fl_variant_to_json(const fl_variant *v, fl_buf *out, fl_error *err)
{
    size_t start = out->len;
    fl_status st = put_value(v, out, 0, err);
    if (st != FL_OK && out->data) {
        out->len = start;
        out->data[start] = '\0';
    }
    return st;
}

/* ======================= parsing ======================= */

typedef struct jp {
    const char *s;
    size_t n, pos;
    uint32_t depth;
    fl_variant_builder *b;
    fl_buf str; /* the current string, unescaped */
    fl_error *err;
} jp;

static fl_status jerr(jp *p, size_t pos, const char *what)
{
    return fl_errorf(p->err, FL_ESYNTAX, "JSON: position %zu: %s", pos, what);
}

static void skip_ws(jp *p)
{
    while (p->pos < p->n) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return;
        p->pos++;
    }
}

static int hex4(const char *s)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

static fl_status put_utf8(jp *p, uint32_t cp)
{
    uint8_t u[4];
    size_t n = 0;
    if (cp < 0x80) {
        u[0] = (uint8_t)cp, n = 1;
    } else if (cp < 0x800) {
        u[0] = (uint8_t)(0xc0 | cp >> 6), u[1] = (uint8_t)(0x80 | (cp & 63)), n = 2;
    } else if (cp < 0x10000) {
        u[0] = (uint8_t)(0xe0 | cp >> 12), u[1] = (uint8_t)(0x80 | ((cp >> 6) & 63));
        u[2] = (uint8_t)(0x80 | (cp & 63)), n = 3;
    } else {
        u[0] = (uint8_t)(0xf0 | cp >> 18), u[1] = (uint8_t)(0x80 | ((cp >> 12) & 63));
        u[2] = (uint8_t)(0x80 | ((cp >> 6) & 63)), u[3] = (uint8_t)(0x80 | (cp & 63)), n = 4;
    }
    return fl_buf_append(&p->str, u, n, p->err);
}

/* "\uXXXX" at p->pos (after the backslash and 'u'), joining a surrogate pair. */
static fl_status unicode_escape(jp *p)
{
    size_t at = p->pos - 2;
    if (p->n - p->pos < 4 || hex4(p->s + p->pos) < 0)
        return jerr(p, at, "\\u needs four hex digits");
    uint32_t cp = (uint32_t)hex4(p->s + p->pos);
    p->pos += 4;
    if (cp >= 0xdc00 && cp <= 0xdfff)
        return jerr(p, at, "a low surrogate without a high one");
    if (cp >= 0xd800 && cp <= 0xdbff) {
        const char *q = p->s + p->pos;
        int lo = p->n - p->pos >= 6 && q[0] == '\\' && q[1] == 'u' ? hex4(q + 2) : -1;
        if (lo < 0xdc00 || lo > 0xdfff)
            return jerr(p, at, "a high surrogate without a low one");
        cp = 0x10000 + ((cp - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
        p->pos += 6;
    }
    return put_utf8(p, cp);
}

static fl_status escape(jp *p)
{
    size_t at = p->pos;
    if (++p->pos >= p->n)
        return jerr(p, at, "unterminated string");
    char c = p->s[p->pos++], r;
    switch (c) {
    case '"': r = '"'; break;
    case '\\': r = '\\'; break;
    case '/': r = '/'; break;
    case 'b': r = '\b'; break;
    case 'f': r = '\f'; break;
    case 'n': r = '\n'; break;
    case 'r': r = '\r'; break;
    case 't': r = '\t'; break;
    case 'u': return unicode_escape(p);
    default: return jerr(p, at, "unknown escape");
    }
    return fl_buf_putc(&p->str, r, p->err);
}

/* The string at p->pos (its opening quote) into p->str. */
static fl_status parse_string(jp *p)
{
    size_t start = p->pos++;
    fl_buf_reset(&p->str);
    FL_TRY(fl_buf_reserve(&p->str, 16, p->err)); /* str.data is never NULL after */
    for (;;) {
        size_t run = p->pos;
        while (p->pos < p->n) {
            uint8_t c = (uint8_t)p->s[p->pos];
            if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
                break;
            p->pos++;
        }
        FL_TRY(fl_buf_append(&p->str, p->s + run, p->pos - run, p->err));
        if (p->pos >= p->n)
            return jerr(p, start, "unterminated string");
        uint8_t c = (uint8_t)p->s[p->pos];
        if (c == '"') {
            p->pos++;
            return FL_OK;
        }
        if (c == '\\') {
            FL_TRY(escape(p));
        } else if (c < 0x20) {
            return jerr(p, p->pos, "a control character in a string");
        } else {
            size_t k = fl_variant_utf8_seq((const uint8_t *)p->s + p->pos, p->n - p->pos);
            if (k == 0)
                return jerr(p, p->pos, "invalid UTF-8");
            FL_TRY(fl_buf_append(&p->str, p->s + p->pos, k, p->err));
            p->pos += k;
        }
    }
}

static fl_status add_string(jp *p)
{
    FL_TRY(parse_string(p));
    fl_variant_scalar s = {.kind = FL_VK_STRING, .len = p->str.len};
    s.v.bytes = p->str.bytes;
    return fl_vb_scalar(p->b, &s, p->err);
}

/* ---- numbers ---- */

typedef struct jnum {
    size_t start, end;        /* the whole spelling */
    size_t int0, int1, frac0; /* digit ranges: integer [int0, int1), fraction [frac0, frac1) */
    size_t frac1;
    bool neg, exp;
} jnum;

static size_t digits(jp *p)
{
    size_t n = 0;
    while (p->pos < p->n && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
        p->pos++, n++;
    return n;
}

/* Scans the JSON number grammar at p->pos into j. */
static fl_status scan_number(jp *p, jnum *j)
{
    memset(j, 0, sizeof *j);
    j->start = p->pos;
    if (p->s[p->pos] == '-')
        j->neg = true, p->pos++;
    j->int0 = p->pos;
    size_t nd = digits(p);
    if (nd == 0)
        return jerr(p, j->start, "a number needs digits");
    if (nd > 1 && p->s[j->int0] == '0')
        return jerr(p, j->start, "a number with a leading zero");
    j->int1 = j->frac0 = j->frac1 = p->pos;
    if (p->pos < p->n && p->s[p->pos] == '.') {
        p->pos++;
        j->frac0 = p->pos;
        if (digits(p) == 0)
            return jerr(p, j->start, "a number needs digits after '.'");
        j->frac1 = p->pos;
    }
    if (p->pos < p->n && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
        j->exp = true;
        p->pos++;
        if (p->pos < p->n && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
            p->pos++;
        if (digits(p) == 0)
            return jerr(p, j->start, "a number needs digits in its exponent");
    }
    j->end = p->pos;
    return FL_OK;
}

static fl_status add_int(jp *p, int64_t v)
{
    fl_variant_scalar s = {.kind = v >= INT8_MIN && v <= INT8_MAX     ? FL_VK_INT8
                                   : v >= INT16_MIN && v <= INT16_MAX ? FL_VK_INT16
                                   : v >= INT32_MIN && v <= INT32_MAX ? FL_VK_INT32
                                                                      : FL_VK_INT64};
    s.v.i = v;
    return fl_vb_scalar(p->b, &s, p->err);
}

/* The integer digits as int64; false when they do not fit. */
static bool as_int64(const jp *p, const jnum *j, int64_t *out)
{
    uint64_t mag = 0, lim = j->neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (size_t i = j->int0; i < j->int1; i++) {
        unsigned d = (unsigned)(p->s[i] - '0');
        if (mag > (lim - d) / 10)
            return false;
        mag = mag * 10 + d;
    }
    *out = j->neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return true;
}

/* A decimal of at most 38 digits (and scale); false when it is not one. */
static bool as_decimal(const jp *p, const jnum *j, fl_variant_scalar *s)
{
    unsigned __int128 mag = 0;
    size_t sig = 0, scale = j->frac1 - j->frac0;
    for (size_t i = j->int0; i < j->frac1; i++) {
        if (i == j->int1)
            i = j->frac0;
        unsigned d = (unsigned)(p->s[i] - '0');
        if (sig == 0 && d == 0)
            continue;
        if (++sig > 38)
            return false;
        mag = mag * 10 + d;
    }
    size_t prec = sig > scale ? sig : scale;
    if (prec > 38)
        return false;
    s->kind = prec <= 9 ? FL_VK_DECIMAL4 : prec <= 18 ? FL_VK_DECIMAL8 : FL_VK_DECIMAL16;
    s->scale = (int32_t)scale;
    s->v.dec = j->neg ? -(fl_i128)mag : (fl_i128)mag;
    return true;
}

static fl_status add_double(jp *p, const jnum *j)
{
    char buf[128], *heap = NULL, *t = buf;
    size_t len = j->end - j->start;
    if (len >= sizeof buf) {
        heap = malloc(len + 1);
        if (!heap)
            return fl_errorf(p->err, FL_ENOMEM, "JSON: out of memory");
        t = heap;
    }
    memcpy(t, p->s + j->start, len);
    t[len] = '\0';
    fl_variant_scalar s = {.kind = FL_VK_DOUBLE};
    s.v.d = strtod(t, NULL);
    free(heap);
    return fl_vb_scalar(p->b, &s, p->err);
}

static fl_status parse_number(jp *p)
{
    jnum j;
    FL_TRY(scan_number(p, &j));
    int64_t i = 0;
    if (!j.exp && j.frac0 == j.frac1 && as_int64(p, &j, &i))
        return add_int(p, i);
    fl_variant_scalar s = {.kind = FL_VK_NULL};
    if (!j.exp && as_decimal(p, &j, &s))
        return fl_vb_scalar(p->b, &s, p->err);
    return add_double(p, &j);
}

/* ---- values ---- */

static fl_status parse_value(jp *p);

static fl_status literal(jp *p, const char *word, fl_variant_kind k)
{
    size_t n = strlen(word);
    if (p->n - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
        return jerr(p, p->pos, "unexpected character");
    p->pos += n;
    fl_variant_scalar s = {.kind = k};
    return fl_vb_scalar(p->b, &s, p->err);
}

/* Expects c after optional whitespace. */
static fl_status expect(jp *p, char c, const char *what)
{
    skip_ws(p);
    if (p->pos >= p->n)
        return jerr(p, p->pos, "unexpected end of input");
    if (p->s[p->pos] != c)
        return jerr(p, p->pos, what);
    p->pos++;
    return FL_OK;
}

static fl_status parse_field(jp *p)
{
    skip_ws(p);
    if (p->pos >= p->n || p->s[p->pos] != '"')
        return jerr(p, p->pos, "expected a string key");
    FL_TRY(parse_string(p));
    FL_TRY(fl_vb_key(p->b, p->str.data, p->str.len, p->err));
    FL_TRY(expect(p, ':', "expected ':'"));
    return parse_value(p);
}

/* The elements of an object or array after its opening bracket. */
static fl_status parse_members(jp *p, bool object)
{
    char close = object ? '}' : ']';
    skip_ws(p);
    if (p->pos < p->n && p->s[p->pos] == close) {
        p->pos++;
        return FL_OK;
    }
    for (;;) {
        FL_TRY(object ? parse_field(p) : parse_value(p));
        skip_ws(p);
        if (p->pos >= p->n)
            return jerr(p, p->pos, "unexpected end of input");
        char c = p->s[p->pos++];
        if (c == close)
            return FL_OK;
        if (c != ',')
            return jerr(p, p->pos - 1, object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static fl_status parse_container(jp *p, bool object)
{
    size_t start = p->pos++;
    if (p->depth >= FL_VARIANT_MAX_DEPTH)
        return fl_errorf(p->err, FL_ELIMIT, "JSON: position %zu: nested deeper than %d", start,
                         FL_VARIANT_MAX_DEPTH);
    FL_TRY(object ? fl_vb_begin_object(p->b, p->err) : fl_vb_begin_array(p->b, p->err));
    p->depth++;
    FL_TRY(parse_members(p, object));
    p->depth--;
    if (!object)
        return fl_vb_end_array(p->b, p->err);
    fl_status st = fl_vb_end_object(p->b, p->err);
    if (st == FL_EINVAL) { /* a duplicate key */
        fl_error_prefix(p->err, "JSON: position %zu", start);
        p->err->code = FL_ESYNTAX;
        return FL_ESYNTAX;
    }
    return st;
}

static fl_status parse_value(jp *p)
{
    skip_ws(p);
    if (p->pos >= p->n)
        return jerr(p, p->pos, "unexpected end of input");
    char c = p->s[p->pos];
    switch (c) {
    case '{': return parse_container(p, true);
    case '[': return parse_container(p, false);
    case '"': return add_string(p);
    case 't': return literal(p, "true", FL_VK_TRUE);
    case 'f': return literal(p, "false", FL_VK_FALSE);
    case 'n': return literal(p, "null", FL_VK_NULL);
    default:
        if (c == '-' || (c >= '0' && c <= '9'))
            return parse_number(p);
        return jerr(p, p->pos, "unexpected character");
    }
}

fl_status fl_variant_from_json(const char *s, size_t n, fl_buf *out, fl_error *err)
{
    fl_variant_builder b;
    fl_vb_init(&b);
    jp p = {.s = s, .n = n, .b = &b, .err = err};
    fl_status st = parse_value(&p);
    if (st == FL_OK) {
        skip_ws(&p);
        if (p.pos < n)
            st = jerr(&p, p.pos, "trailing characters after the value");
    }
    if (st == FL_OK)
        st = fl_vb_finish(&b, out, err);
    fl_buf_free(&p.str);
    fl_vb_free(&b);
    return st;
}
