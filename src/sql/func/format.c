/*
 * format.c - PostgreSQL text output of one value (fl_sql_format_value),
 * shared by casts to text, the shell, CSV/JSON output and pgwire; plus the
 * status -> SQLSTATE maps.
 *
 * Formats: bool t/f; numeric with its scale; float8/float4 shortest
 * round-trip (PostgreSQL 12+); date YYYY-MM-DD [BC]; timestamps with
 * trailing zero microseconds trimmed; timestamptz in the session zone with
 * its offset (+00, +05:30); bytea as \x + hex; uuid lowercase 8-4-4-4-12;
 * interval in PostgreSQL's "postgres" IntervalStyle; lists as {a,b} with
 * PostgreSQL's quoting. Structs, maps and lists that have no PostgreSQL
 * array type (lists of lists, of maps) are JSON, because pgwire labels them
 * json (fl_pg_type_oid): {"city":"Lima","zip":"01234"}, a map's keys as
 * their text; inside a list of structs each element is one quoted JSON
 * text ({"{\"a\":1}"}), which is json[]'s text form. A variant is its
 * JSON text (fl_variant_to_json), bare inside JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <utf8proc.h>

#include "floe/pgtypes.h"
#include "floe/sql.h"
#include "floe/variant.h"
#include "sql/func/func_internal.h"

typedef struct wbuf {
    char *buf;
    size_t cap, len;
} wbuf;

static void wput(wbuf *w, const char *s, size_t n)
{
    if (w->len < w->cap) {
        size_t room = w->cap - w->len;
        memcpy(w->buf + w->len, s, n < room ? n : room);
    }
    w->len += n;
}

static void format_cell(wbuf *w, const fl_vector *v, uint32_t row, const fl_tz *tz, bool nested);
static void format_json(wbuf *w, const fl_vector *v, uint32_t row, const fl_tz *tz);

/* Values that go out as json (struct, map, list without a PostgreSQL array type). */
static bool is_json(const fl_type *t)
{
    return fl_type_is_nested(t) && fl_pg_type_oid(t) == FL_PG_OID_JSON;
}

/* A JSON string literal of p: control characters escaped (\n \r \t by name,
 * the rest as \u00XX) and invalid UTF-8 bytes replaced by U+FFFD, so the
 * output is valid JSON whatever a file's "string" column holds. */
static void json_str(wbuf *w, const char *p, size_t n)
{
    wput(w, "\"", 1);
    size_t i = 0;
    while (i < n) {
        unsigned char ch = (unsigned char)p[i];
        char e[8];
        if (ch >= 0x80) {
            utf8proc_int32_t cp;
            utf8proc_ssize_t k =
                utf8proc_iterate((const utf8proc_uint8_t *)p + i, (utf8proc_ssize_t)(n - i), &cp);
            if (k > 0)
                wput(w, p + i, (size_t)k);
            else
                wput(w, "\xEF\xBF\xBD", 3);
            i += k > 0 ? (size_t)k : 1;
            continue;
        }
        if (ch == '"' || ch == '\\') {
            e[0] = '\\';
            e[1] = (char)ch;
            wput(w, e, 2);
        } else if (ch == '\n' || ch == '\r' || ch == '\t') {
            e[0] = '\\';
            e[1] = ch == '\n' ? 'n' : ch == '\r' ? 'r' : 't';
            wput(w, e, 2);
        } else if (ch < 0x20) {
            int k = snprintf(e, sizeof e, "\\u%04x", ch);
            wput(w, e, (size_t)k);
        } else
            wput(w, (const char *)&ch, 1);
        i++;
    }
    wput(w, "\"", 1);
}

/* A variant's JSON text (fl_variant_to_json); false if its bytes are not a
 * valid variant (values read from files are validated when read, so only a
 * bytea cast to variant unchecked could get here). */
static bool variant_json(wbuf *w, const uint8_t *p, size_t n)
{
    fl_variant_meta m;
    fl_variant v;
    fl_error e = {0};
    fl_buf out;
    fl_buf_init(&out, 0);
    bool ok = fl_variant_open(p, n, &m, &v, &e) == FL_OK && fl_variant_to_json(&v, &out, &e) == FL_OK;
    if (ok)
        wput(w, out.data ? out.data : "", out.len);
    fl_buf_free(&out);
    return ok;
}

/* Row r (any encoding) of v as JSON: null, true/false, numbers bare (NaN and
 * infinities quoted, as PostgreSQL's to_json), text and everything else as a
 * JSON string of its PostgreSQL text. */
static void json_value(wbuf *w, const fl_vector *v, uint32_t r, const fl_tz *tz)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    if (!fl_unified_is_valid(&u, r)) {
        wput(w, "null", 4);
        return;
    }
    const fl_vector *b = u.base;
    uint32_t row = fl_unified_row(&u, r);
    const fl_type *t = b->type;
    if (fl_type_is_nested(t)) {
        format_json(w, b, row, tz);
        return;
    }
    if (fl_type_is_variant(t)) {
        size_t len;
        const uint8_t *p = fl_vector_bytes(b, row, &len);
        if (!variant_json(w, p, len))
            wput(w, "null", 4);
        return;
    }
    if (t->id == FL_TYPE_BOOLEAN) {
        wput(w, b->data[row] ? "true" : "false", b->data[row] ? 4 : 5);
        return;
    }
    char small[256];
    wbuf s = {small, sizeof small, 0};
    format_cell(&s, b, row, tz, true);
    char *heap = NULL;
    if (s.len > sizeof small) {
        heap = malloc(s.len);
        if (!heap) {
            wput(w, "null", 4);
            return;
        }
        s = (wbuf){heap, s.len, 0};
        format_cell(&s, b, row, tz, true);
    }
    bool num = t->id == FL_TYPE_INT32 || t->id == FL_TYPE_INT64 || t->id == FL_TYPE_DECIMAL ||
               ((t->id == FL_TYPE_FLOAT32 || t->id == FL_TYPE_FLOAT64) && s.len &&
                (s.buf[s.len - 1] >= '0' && s.buf[s.len - 1] <= '9'));
    if (num)
        wput(w, s.buf, s.len);
    else
        json_str(w, s.buf, s.len);
    free(heap);
}

/* Non-null FLAT row of a nested vector as a JSON array or object. */
static void format_json(wbuf *w, const fl_vector *v, uint32_t row, const fl_tz *tz)
{
    const fl_type *t = v->type;
    if (t->id == FL_TYPE_STRUCT) {
        wput(w, "{", 1);
        for (uint32_t k = 0; k < v->nchildren && k < t->nchildren; k++) {
            if (k)
                wput(w, ",", 1);
            const char *nm = t->children[k].name ? t->children[k].name : "";
            json_str(w, nm, strlen(nm));
            wput(w, ":", 1);
            json_value(w, &v->children[k], row, tz);
        }
        wput(w, "}", 1);
        return;
    }
    int64_t s = v->offsets[row], e = v->offsets[row + 1];
    bool map = t->id == FL_TYPE_MAP;
    wput(w, map ? "{" : "[", 1);
    for (int64_t k = s; k < e; k++) {
        if (k > s)
            wput(w, ",", 1);
        if (map) {
            /* object keys are strings: the key's text */
            char small[256];
            wbuf kb = {small, sizeof small, 0};
            fl_unified ku;
            fl_vector_unify(&v->children[0], &ku);
            if (fl_unified_is_valid(&ku, (uint32_t)k))
                format_cell(&kb, ku.base, fl_unified_row(&ku, (uint32_t)k), tz, true);
            json_str(w, small, kb.len < sizeof small ? kb.len : sizeof small);
            wput(w, ":", 1);
            json_value(w, &v->children[1], (uint32_t)k, tz);
        } else
            json_value(w, &v->children[0], (uint32_t)k, tz);
    }
    wput(w, map ? "}" : "]", 1);
}

static bool needs_quote(const uint8_t *p, size_t n)
{
    if (n == 0 || (n == 4 && strncasecmp((const char *)p, "null", 4) == 0))
        return true;
    for (size_t i = 0; i < n; i++)
        if (p[i] == ',' || p[i] == '{' || p[i] == '}' || p[i] == '"' || p[i] == '\\' || p[i] == ' ' ||
            p[i] == '(' || p[i] == ')' || p[i] == '\t' || p[i] == '\n')
            return true;
    return false;
}

static void format_elem(wbuf *w, const fl_vector *child, uint32_t r, const fl_tz *tz)
{
    fl_unified u;
    fl_vector_unify(child, &u);
    if (!fl_unified_is_valid(&u, r)) {
        wput(w, "NULL", 4);
        return;
    }
    /* format into a temporary to decide on quoting */
    char small[256];
    wbuf t = {small, sizeof small, 0};
    format_cell(&t, u.base, fl_unified_row(&u, r), tz, true);
    char *heap = NULL;
    if (t.len > sizeof small) {
        heap = malloc(t.len);
        if (!heap) {
            wput(w, "?", 1);
            return;
        }
        t = (wbuf){heap, t.len, 0};
        format_cell(&t, u.base, fl_unified_row(&u, r), tz, true);
    }
    if (!needs_quote((const uint8_t *)t.buf, t.len))
        wput(w, t.buf, t.len);
    else {
        wput(w, "\"", 1);
        for (size_t i = 0; i < t.len; i++) {
            if (t.buf[i] == '"' || t.buf[i] == '\\')
                wput(w, "\\", 1);
            wput(w, t.buf + i, 1);
        }
        wput(w, "\"", 1);
    }
    free(heap);
}

static void format_cell(wbuf *w, const fl_vector *v, uint32_t row, const fl_tz *tz, bool nested)
{
    char b[128];
    size_t n = 0;
    const fl_type *t = v->type;
    const uint8_t *d = v->data;
    (void)nested;
    if (is_json(t)) {
        format_json(w, v, row, tz);
        return;
    }
    switch (t->id) {
    case FL_TYPE_BOOLEAN: wput(w, d[row] ? "t" : "f", 1); return;
    case FL_TYPE_INT32: n = (size_t)snprintf(b, sizeof b, "%d", ((const int32_t *)(const void *)d)[row]); break;
    case FL_TYPE_INT64:
        n = (size_t)snprintf(b, sizeof b, "%lld", (long long)((const int64_t *)(const void *)d)[row]);
        break;
    case FL_TYPE_FLOAT32:
        n = fl_pg_format_float(((const float *)(const void *)d)[row], b, sizeof b);
        break;
    case FL_TYPE_FLOAT64:
        n = fl_pg_format_double(((const double *)(const void *)d)[row], b, sizeof b);
        break;
    case FL_TYPE_DECIMAL: {
        fl_i128 x;
        memcpy(&x, d + (size_t)row * 16, 16);
        n = dec_format(x, t->scale, b, sizeof b);
        break;
    }
    case FL_TYPE_DATE:
        n = fl_pg_format_date(((const int32_t *)(const void *)d)[row], b, sizeof b);
        break;
    case FL_TYPE_TIME:
        n = fl_pg_format_time(((const int64_t *)(const void *)d)[row], b, sizeof b);
        break;
    case FL_TYPE_TIMESTAMP:
        n = fl_pg_format_timestamp(((const int64_t *)(const void *)d)[row], b, sizeof b);
        break;
    case FL_TYPE_TIMESTAMPTZ: {
        int64_t us = ((const int64_t *)(const void *)d)[row];
        int32_t off = fl_tz_offset_utc(tz, floordiv64(us, US_PER_SEC));
        int64_t local = us + (int64_t)off * US_PER_SEC;
        n = fl_pg_format_timestamp(local, b, sizeof b);
        bool bc = n > 3 && memcmp(b + n - 3, " BC", 3) == 0;
        if (bc)
            n -= 3;
        n += fl_pg_format_offset(off, b + n, sizeof b - n);
        if (bc)
            n += (size_t)snprintf(b + n, sizeof b - n, " BC");
        break;
    }
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: {
        int64_t ns = ((const int64_t *)(const void *)d)[row];
        int64_t us = floordiv64(ns, 1000), rem = floormod64(ns, 1000);
        int32_t off = 0;
        if (t->id == FL_TYPE_TIMESTAMPTZ_NS) {
            off = fl_tz_offset_utc(tz, floordiv64(us, US_PER_SEC));
            us += (int64_t)off * US_PER_SEC;
        }
        int64_t frac = floormod64(us, US_PER_SEC) * 1000 + rem;
        n = fl_pg_format_timestamp(us - floormod64(us, US_PER_SEC), b, sizeof b);
        bool bc = n > 3 && memcmp(b + n - 3, " BC", 3) == 0;
        if (bc)
            n -= 3;
        if (frac) {
            char fr[16];
            snprintf(fr, sizeof fr, "%09lld", (long long)frac);
            int l = 9;
            while (l > 0 && fr[l - 1] == '0')
                l--;
            fr[l] = 0;
            n += (size_t)snprintf(b + n, sizeof b - n, ".%s", fr);
        }
        if (t->id == FL_TYPE_TIMESTAMPTZ_NS)
            n += fl_pg_format_offset(off, b + n, sizeof b - n);
        if (bc)
            n += (size_t)snprintf(b + n, sizeof b - n, " BC");
        break;
    }
    case FL_TYPE_STRING: {
        size_t len;
        const uint8_t *p = fl_vector_bytes(v, row, &len);
        wput(w, (const char *)p, len);
        return;
    }
    case FL_TYPE_UUID: {
        const uint8_t *p = d + (size_t)row * 16;
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10)
                b[n++] = '-';
            n += (size_t)snprintf(b + n, sizeof b - n, "%02x", p[i]);
        }
        break;
    }
    case FL_TYPE_FIXED:
    case FL_TYPE_BINARY: {
        if (fl_type_is_interval(t)) {
            fl_interval iv;
            memcpy(&iv, d + (size_t)row * 16, 16);
            n = fl_pg_format_interval(&iv, b, sizeof b);
            break;
        }
        size_t len;
        const uint8_t *p;
        if (t->id == FL_TYPE_FIXED) {
            len = (size_t)t->fixed_len;
            p = d + (size_t)row * len;
        } else
            p = fl_vector_bytes(v, row, &len);
        if (fl_type_is_variant(t) && variant_json(w, p, len))
            return;
        static const char hx[] = "0123456789abcdef";
        wput(w, "\\x", 2);
        for (size_t i = 0; i < len; i++) {
            char h[2] = {hx[p[i] >> 4], hx[p[i] & 15]};
            wput(w, h, 2);
        }
        return;
    }
    case FL_TYPE_LIST: {
        int64_t s = v->offsets[row], e = v->offsets[row + 1];
        wput(w, "{", 1);
        for (int64_t k = s; k < e; k++) {
            if (k > s)
                wput(w, ",", 1);
            format_elem(w, &v->children[0], (uint32_t)k, tz);
        }
        wput(w, "}", 1);
        return;
    }
    default: n = (size_t)snprintf(b, sizeof b, "?"); break;
    }
    wput(w, b, n < sizeof b ? n : sizeof b - 1);
}

/* Non-null row of a FLAT vector -> text (no NUL); returns the length needed. */
size_t fl_format_flat_row(const fl_vector *v, uint32_t row, const fl_tz *tz, char *buf, size_t cap)
{
    wbuf w = {buf, cap, 0};
    format_cell(&w, v, row, tz, false);
    return w.len;
}

/* The zone v's values print in: loaded only for types that show one. */
static fl_tz *zone_for(const fl_vector *v, const char *tzname)
{
    fl_tz *tz = NULL;
    if (v->type->id == FL_TYPE_TIMESTAMPTZ || v->type->id == FL_TYPE_TIMESTAMPTZ_NS ||
        fl_type_is_nested(v->type)) {
        fl_error e;
        if (fl_tz_load(tzname, &tz, &e) != FL_OK)
            tz = NULL; /* unknown zone: UTC (the session validated it when it was set) */
    }
    return tz;
}

size_t fl_sql_format_value(const fl_vector *v, uint32_t row, const char *tzname, char *buf, size_t cap)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    if (!fl_unified_is_valid(&u, row)) {
        if (cap)
            buf[0] = 0;
        return 0;
    }
    fl_tz *tz = zone_for(v, tzname);
    wbuf w = {buf, cap, 0};
    format_cell(&w, u.base, fl_unified_row(&u, row), tz, false);
    fl_tz_free(tz);
    if (cap)
        buf[w.len < cap ? w.len : cap - 1] = 0;
    return w.len;
}

size_t fl_sql_format_json(const fl_vector *v, uint32_t row, const char *tzname, char *buf, size_t cap)
{
    fl_tz *tz = zone_for(v, tzname);
    wbuf w = {buf, cap, 0};
    json_value(&w, v, row, tz);
    fl_tz_free(tz);
    if (cap)
        buf[w.len < cap ? w.len : cap - 1] = 0;
    return w.len;
}

struct fl_sql_formatter {
    fl_tz *tz;
};

fl_status fl_sql_formatter_new(const char *time_zone, fl_sql_formatter **out, fl_error *err)
{
    fl_sql_formatter *f = calloc(1, sizeof *f);
    if (!f)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = fl_tz_load(time_zone, &f->tz, err);
    if (rc) {
        free(f);
        return rc;
    }
    *out = f;
    return FL_OK;
}

size_t fl_sql_formatter_value(const fl_sql_formatter *f, const fl_vector *v, uint32_t row, char *buf, size_t cap)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    if (!fl_unified_is_valid(&u, row)) {
        if (cap)
            buf[0] = 0;
        return 0;
    }
    wbuf w = {buf, cap, 0};
    format_cell(&w, u.base, fl_unified_row(&u, row), f ? f->tz : NULL, false);
    if (cap)
        buf[w.len < cap ? w.len : cap - 1] = 0;
    return w.len;
}

size_t fl_sql_formatter_json(const fl_sql_formatter *f, const fl_vector *v, uint32_t row, char *buf,
                             size_t cap)
{
    wbuf w = {buf, cap, 0};
    json_value(&w, v, row, f ? f->tz : NULL);
    if (cap)
        buf[w.len < cap ? w.len : cap - 1] = 0;
    return w.len;
}

void fl_sql_formatter_free(fl_sql_formatter *f)
{
    if (!f)
        return;
    fl_tz_free(f->tz);
    free(f);
}

size_t fl_sql_json_value(const fl_vector *v, uint32_t row, const fl_tz *tz, char *buf, size_t cap)
{
    wbuf w = {buf, cap, 0};
    json_value(&w, v, row, tz);
    return w.len;
}
