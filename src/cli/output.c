/*
 * output.c - value and batch rendering for the CLI (conventions in output.h).
 *
 * Values are read straight from vectors: a row of any encoding is first
 * resolved to (flat base vector, base row) by resolve(), then formatted by
 * type. Nested values recurse into child vectors: STRUCT children share the
 * parent's row numbers, LIST/MAP rows span offsets[r]..offsets[r+1] of the
 * children.
 *
 * Floating point: the shortest repr is found by trying %.{1..17}g until the
 * text parses back to the same bits (9 digits suffice for float32).
 *
 * Dates go through floe/calendar.h (proleptic Gregorian, exact for every
 * int32 day count).
 */
#include "cli/output.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "floe/calendar.h"
#include "floe/format.h"

/* ---- scalars ---- */

/* Shortest round-trip digits, laid out as JavaScript's Number#toString does:
 * positional for 1e-7 < |x| < 1e21, else d.ddde+N. */
static void format_shortest(double d, bool f32, char *buf, size_t cap)
{
    fl_digits sd;
    fl_shortest_digits(d, f32, &sd);
    bool neg = sd.neg;
    const char *digits = sd.d;
    int k = sd.n;
    int n = sd.exp10 + 1; /* value = 0.digits * 10^n */
    char out[80];
    size_t o = 0;
    if (neg)
        out[o++] = '-';
    if (k <= n && n <= 21) {
        memcpy(out + o, digits, (size_t)k);
        o += (size_t)k;
        for (int i = k; i < n; i++)
            out[o++] = '0';
    } else if (0 < n && n <= 21) {
        memcpy(out + o, digits, (size_t)n);
        o += (size_t)n;
        out[o++] = '.';
        memcpy(out + o, digits + n, (size_t)(k - n));
        o += (size_t)(k - n);
    } else if (-6 < n && n <= 0) {
        out[o++] = '0';
        out[o++] = '.';
        for (int i = 0; i < -n; i++)
            out[o++] = '0';
        memcpy(out + o, digits, (size_t)k);
        o += (size_t)k;
    } else {
        out[o++] = digits[0];
        if (k > 1) {
            out[o++] = '.';
            memcpy(out + o, digits + 1, (size_t)(k - 1));
            o += (size_t)(k - 1);
        }
        o += (size_t)snprintf(out + o, sizeof out - o, "e%c%d", n - 1 < 0 ? '-' : '+',
                              n - 1 < 0 ? 1 - n : n - 1);
    }
    out[o] = '\0';
    snprintf(buf, cap, "%s", out);
}

void fl_format_double(double d, char *buf, size_t cap)
{
    if (isnan(d)) {
        snprintf(buf, cap, "NaN");
        return;
    }
    if (isinf(d)) {
        snprintf(buf, cap, d > 0 ? "Infinity" : "-Infinity");
        return;
    }
    format_shortest(d, false, buf, cap);
}

void fl_format_float(float f, char *buf, size_t cap)
{
    if (isnan(f) || isinf(f)) {
        fl_format_double((double)f, buf, cap);
        return;
    }
    format_shortest((double)f, true, buf, cap);
}

void fl_format_date(int32_t days, char *buf, size_t cap)
{
    fl_format_iso_date(days, buf, cap);
}

void fl_format_time(int64_t micros, char *buf, size_t cap)
{
    /* TIME is 0..86400e6; print anything else too rather than crash */
    bool neg = micros < 0;
    uint64_t u = neg ? (uint64_t)0 - (uint64_t)micros : (uint64_t)micros;
    uint64_t secs = u / 1000000, frac = u % 1000000;
    snprintf(buf, cap, "%s%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64 ".%06" PRIu64, neg ? "-" : "",
             secs / 3600, secs / 60 % 60, secs % 60, frac);
}

void fl_format_timestamp(int64_t units, int digits, bool tz, char *buf, size_t cap)
{
    int64_t per_sec = digits == 9 ? 1000000000 : digits == 3 ? 1000 : 1000000;
    int64_t secs = fl_floor_div(units, per_sec);
    int64_t frac = units - secs * per_sec;
    int64_t days = fl_floor_div(secs, 86400);
    int64_t sod = secs - days * 86400;
    int n = fl_format_iso_date(days, buf, cap);
    if (n < 0 || (size_t)n >= cap)
        return;
    snprintf(buf + n, cap - (size_t)n, " %02d:%02d:%02d.%0*" PRId64 "%s", (int)(sod / 3600),
             (int)(sod / 60 % 60), (int)(sod % 60), digits, frac, tz ? "+00" : "");
}

void fl_format_uuid(const uint8_t b[16], char *buf, size_t cap)
{
    snprintf(buf, cap, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

/* Appends \x<hex>; inside JSON strings (json) the backslash is escaped. */
static fl_status append_hex(fl_buf *sb, const uint8_t *p, size_t n, bool json, fl_error *err)
{
    static const char hx[] = "0123456789abcdef";
    size_t head = json ? 3 : 2;
    FL_TRY(fl_buf_reserve(sb, head + 2 * n, err));
    char *o = sb->data + sb->len;
    *o++ = '\\';
    if (json)
        *o++ = '\\';
    *o++ = 'x';
    for (size_t i = 0; i < n; i++) {
        *o++ = hx[p[i] >> 4];
        *o++ = hx[p[i] & 15];
    }
    sb->len += head + 2 * n;
    sb->data[sb->len] = '\0';
    return FL_OK;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static size_t utf8_seq(const uint8_t *s, size_t n)
{
    uint8_t c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
        len = 2;
        cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3;
        cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

fl_status fl_json_string(fl_buf *sb, const uint8_t *s, size_t len, fl_error *err)
{
    FL_TRY(fl_buf_reserve(sb, len + 2, err));
    sb->data[sb->len++] = '"';
    size_t i = 0;
    while (i < len) {
        size_t run = i;
        /* copy plain ASCII runs in one go */
        while (run < len && s[run] >= 0x20 && s[run] < 0x80 && s[run] != '"' && s[run] != '\\')
            run++;
        if (run > i) {
            FL_TRY(fl_buf_append(sb, s + i, run - i, err));
            i = run;
            continue;
        }
        uint8_t c = s[i];
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            FL_TRY(fl_buf_append(sb, esc, 2, err));
            i++;
        } else if (c < 0x20) {
            const char *named = c == '\n'   ? "\\n"
                                : c == '\r' ? "\\r"
                                : c == '\t' ? "\\t"
                                : c == '\b' ? "\\b"
                                : c == '\f' ? "\\f"
                                            : NULL;
            if (named) {
                FL_TRY(fl_buf_puts(sb, named, err));
            } else {
                snprintf(esc, sizeof esc, "\\u%04x", c);
                FL_TRY(fl_buf_puts(sb, esc, err));
            }
            i++;
        } else {
            size_t k = utf8_seq(s + i, len - i);
            if (k == 0) {
                FL_TRY(fl_buf_puts(sb, "\xEF\xBF\xBD", err)); /* U+FFFD */
                i++;
            } else {
                FL_TRY(fl_buf_append(sb, s + i, k, err));
                i += k;
            }
        }
    }
    return fl_buf_append(sb, "\"", 1, err);
}

/* ---- vectors ---- */

/* Resolves row of v (FLAT / CONSTANT / DICT, possibly stacked) to a flat
 * vector and its row. Returns false when a dictionary index is out of range. */
static bool resolve(const fl_vector *v, uint32_t row, const fl_vector **base, uint32_t *brow,
                    bool *dict_null)
{
    *dict_null = false;
    for (int depth = 0; depth < 8; depth++) {
        if (v->encoding == FL_VEC_FLAT || v->encoding == FL_VEC_CONSTANT) {
            /* CONSTANT keeps its one value in slot 0 of its own buffers */
            *base = v;
            *brow = v->encoding == FL_VEC_CONSTANT ? 0 : row;
            return true;
        }
        /* DICT: the row's own validity bit comes first (its index is then ignored) */
        if (!fl_vector_is_valid(v, row)) {
            *dict_null = true;
            *base = v;
            *brow = row;
            return true;
        }
        if (!v->dict || !v->data)
            return false;
        uint32_t idx = ((const uint32_t *)v->data)[row];
        if (idx >= v->dict->len)
            return false;
        row = idx;
        v = v->dict;
    }
    return false;
}

static fl_status fmt_json_flat(fl_buf *sb, const fl_vector *v, uint32_t r, fl_error *err);

fl_status fl_format_json(fl_buf *sb, const fl_vector *v, uint32_t row, fl_error *err)
{
    const fl_vector *b;
    uint32_t br;
    bool dict_null;
    if (!resolve(v, row, &b, &br, &dict_null))
        return fl_errorf(err, FL_ECORRUPT, "dictionary index out of range at row %u", row);
    if (dict_null)
        return fl_buf_puts(sb, "null", err);
    return fmt_json_flat(sb, b, br, err);
}

static fl_status fmt_nested_json(fl_buf *sb, const fl_vector *v, uint32_t r, fl_error *err)
{
    const fl_type *t = v->type;
    if (t->id == FL_TYPE_STRUCT) {
        FL_TRY(fl_buf_append(sb, "{", 1, err));
        for (uint32_t i = 0; i < t->nchildren && i < v->nchildren; i++) {
            if (i)
                FL_TRY(fl_buf_append(sb, ",", 1, err));
            const char *name = t->children[i].name ? t->children[i].name : "";
            FL_TRY(fl_json_string(sb, (const uint8_t *)name, strlen(name), err));
            FL_TRY(fl_buf_append(sb, ":", 1, err));
            FL_TRY(fl_format_json(sb, &v->children[i], r, err));
        }
        return fl_buf_append(sb, "}", 1, err);
    }
    int64_t lo = v->offsets[r], hi = v->offsets[r + 1];
    uint32_t need = t->id == FL_TYPE_MAP ? 2 : 1;
    if (v->nchildren < need)
        return fl_errorf(err, FL_ECORRUPT, "nested vector without children");
    if (lo < 0 || hi < lo || (uint64_t)hi > v->children[0].len ||
        (need == 2 && (uint64_t)hi > v->children[1].len))
        return fl_errorf(err, FL_ECORRUPT,
                         "row %u: offsets %" PRId64 "..%" PRId64 " outside the child vector", r, lo,
                         hi);
    FL_TRY(fl_buf_append(sb, "[", 1, err));
    for (int64_t j = lo; j < hi; j++) {
        if (j > lo)
            FL_TRY(fl_buf_append(sb, ",", 1, err));
        if (t->id == FL_TYPE_LIST) {
            FL_TRY(fl_format_json(sb, &v->children[0], (uint32_t)j, err));
        } else {
            FL_TRY(fl_buf_puts(sb, "{\"key\":", err));
            FL_TRY(fl_format_json(sb, &v->children[0], (uint32_t)j, err));
            FL_TRY(fl_buf_puts(sb, ",\"value\":", err));
            FL_TRY(fl_format_json(sb, &v->children[1], (uint32_t)j, err));
            FL_TRY(fl_buf_append(sb, "}", 1, err));
        }
    }
    return fl_buf_append(sb, "]", 1, err);
}

/* Formats a non-null primitive of a flat vector. json selects quoting. */
static fl_status fmt_primitive(fl_buf *sb, const fl_vector *v, uint32_t r, bool json, fl_error *err)
{
    const fl_type *t = v->type;
    char buf[96];
    const char *q = json ? "\"" : "";
    switch (t->id) {
    case FL_TYPE_BOOLEAN: return fl_buf_puts(sb, v->data[r] ? "true" : "false", err);
    case FL_TYPE_INT32: {
        int32_t x;
        memcpy(&x, v->data + (size_t)r * 4, 4);
        return fl_buf_appendf(sb, err, "%" PRId32, x);
    }
    case FL_TYPE_INT64: {
        int64_t x;
        memcpy(&x, v->data + (size_t)r * 8, 8);
        return fl_buf_appendf(sb, err, "%s%" PRId64 "%s", q, x, q);
    }
    case FL_TYPE_FLOAT32:
    case FL_TYPE_FLOAT64: {
        double d;
        if (t->id == FL_TYPE_FLOAT32) {
            float f;
            memcpy(&f, v->data + (size_t)r * 4, 4);
            fl_format_float(f, buf, sizeof buf);
            d = f;
        } else {
            memcpy(&d, v->data + (size_t)r * 8, 8);
            fl_format_double(d, buf, sizeof buf);
        }
        bool special = isnan(d) || isinf(d);
        return fl_buf_appendf(sb, err, "%s%s%s", special ? q : "", buf, special ? q : "");
    }
    case FL_TYPE_DECIMAL: {
        fl_i128 x;
        memcpy(&x, v->data + (size_t)r * 16, 16);
        fl_format_decimal(x, t->scale, buf, sizeof buf);
        break;
    }
    case FL_TYPE_DATE: {
        int32_t x;
        memcpy(&x, v->data + (size_t)r * 4, 4);
        fl_format_date(x, buf, sizeof buf);
        break;
    }
    case FL_TYPE_TIME: {
        int64_t x;
        memcpy(&x, v->data + (size_t)r * 8, 8);
        fl_format_time(x, buf, sizeof buf);
        break;
    }
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: {
        int64_t x;
        memcpy(&x, v->data + (size_t)r * 8, 8);
        bool ns = t->id == FL_TYPE_TIMESTAMP_NS || t->id == FL_TYPE_TIMESTAMPTZ_NS;
        bool tz = t->id == FL_TYPE_TIMESTAMPTZ || t->id == FL_TYPE_TIMESTAMPTZ_NS;
        fl_format_timestamp(x, ns ? 9 : 6, tz, buf, sizeof buf);
        break;
    }
    case FL_TYPE_UUID: fl_format_uuid(v->data + (size_t)r * 16, buf, sizeof buf); break;
    case FL_TYPE_FIXED: {
        size_t w = (size_t)t->fixed_len;
        if (json)
            FL_TRY(fl_buf_append(sb, "\"", 1, err));
        FL_TRY(append_hex(sb, v->data + (size_t)r * w, w, json, err));
        return json ? fl_buf_append(sb, "\"", 1, err) : FL_OK;
    }
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: {
        size_t n;
        const uint8_t *p = fl_vector_bytes(v, r, &n);
        if (t->id == FL_TYPE_STRING)
            return json ? fl_json_string(sb, p, n, err) : fl_buf_append(sb, p, n, err);
        if (json)
            FL_TRY(fl_buf_append(sb, "\"", 1, err));
        FL_TRY(append_hex(sb, p, n, json, err));
        return json ? fl_buf_append(sb, "\"", 1, err) : FL_OK;
    }
    default: return fl_errorf(err, FL_EUNSUPPORTED, "cannot format type id %d", (int)t->id);
    }
    return fl_buf_appendf(sb, err, "%s%s%s", q, buf, q);
}

static fl_status fmt_json_flat(fl_buf *sb, const fl_vector *v, uint32_t r, fl_error *err)
{
    if (!fl_vector_is_valid(v, r))
        return fl_buf_puts(sb, "null", err);
    if (fl_type_is_nested(v->type))
        return fmt_nested_json(sb, v, r, err);
    return fmt_primitive(sb, v, r, true, err);
}

fl_status fl_format_text(fl_buf *sb, const fl_vector *v, uint32_t row, bool *is_null, fl_error *err)
{
    const fl_vector *b;
    uint32_t br;
    bool dict_null;
    if (!resolve(v, row, &b, &br, &dict_null))
        return fl_errorf(err, FL_ECORRUPT, "dictionary index out of range at row %u", row);
    *is_null = dict_null || !fl_vector_is_valid(b, br);
    if (*is_null)
        return FL_OK;
    if (fl_type_is_nested(b->type))
        return fmt_nested_json(sb, b, br, err);
    return fmt_primitive(sb, b, br, false, err);
}

bool fl_vector_row_value(const fl_vector *v, uint32_t row, fl_value *out)
{
    const fl_vector *b;
    uint32_t r;
    bool dict_null;
    memset(out, 0, sizeof *out);
    if (!resolve(v, row, &b, &r, &dict_null) || fl_type_is_nested(b->type))
        return false;
    out->type = *b->type;
    out->type.nchildren = 0;
    out->type.children = NULL;
    out->is_null = dict_null || !fl_vector_is_valid(b, r);
    if (out->is_null)
        return true;
    const uint8_t *d = b->data;
    switch (b->type->id) {
    case FL_TYPE_BOOLEAN: out->v.b = d[r] != 0; break;
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: memcpy(&out->v.i32, d + (size_t)r * 4, 4); break;
    case FL_TYPE_FLOAT32: memcpy(&out->v.f32, d + (size_t)r * 4, 4); break;
    case FL_TYPE_FLOAT64: memcpy(&out->v.f64, d + (size_t)r * 8, 8); break;
    case FL_TYPE_DECIMAL: memcpy(&out->v.dec, d + (size_t)r * 16, 16); break;
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED: {
        size_t w = b->type->id == FL_TYPE_UUID ? 16 : (size_t)b->type->fixed_len;
        out->v.bytes.ptr = d + (size_t)r * w;
        out->v.bytes.len = w;
        break;
    }
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: out->v.bytes.ptr = fl_vector_bytes(b, r, &out->v.bytes.len); break;
    default: memcpy(&out->v.i64, d + (size_t)r * 8, 8); break;
    }
    return true;
}

fl_status fl_format_scalar(fl_buf *sb, const fl_value *val, fl_error *err)
{
    if (val->is_null)
        return fl_buf_puts(sb, "NULL", err);
    /* Build a one-row flat view on the stack and reuse the vector formatter. */
    uint8_t data[16] = {0};
    int64_t offs[2] = {0, 0};
    fl_vector v;
    memset(&v, 0, sizeof v);
    v.type = &val->type;
    v.len = v.cap = 1;
    v.data = data;
    switch (val->type.id) {
    case FL_TYPE_BOOLEAN: data[0] = val->v.b; break;
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: memcpy(data, &val->v.i32, 4); break;
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: memcpy(data, &val->v.i64, 8); break;
    case FL_TYPE_FLOAT32: memcpy(data, &val->v.f32, 4); break;
    case FL_TYPE_FLOAT64: memcpy(data, &val->v.f64, 8); break;
    case FL_TYPE_DECIMAL: memcpy(data, &val->v.dec, 16); break;
    case FL_TYPE_UUID:
        if (val->v.bytes.len != 16)
            return fl_errorf(err, FL_ECORRUPT, "uuid value of %zu bytes", val->v.bytes.len);
        memcpy(data, val->v.bytes.ptr, 16);
        break;
    case FL_TYPE_FIXED: return append_hex(sb, val->v.bytes.ptr, val->v.bytes.len, false, err);
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY:
        offs[1] = (int64_t)val->v.bytes.len;
        v.offsets = offs;
        v.heap = (uint8_t *)val->v.bytes.ptr;
        v.heap_len = val->v.bytes.len;
        break;
    default:
        return fl_errorf(err, FL_EUNSUPPORTED, "cannot format a scalar of type id %d",
                         (int)val->type.id);
    }
    return fmt_primitive(sb, &v, 0, false, err);
}

/* ---- batch printer ---- */

bool fl_out_format_parse(const char *s, fl_out_format *out)
{
    if (!strcmp(s, "table"))
        *out = FL_OUT_TABLE;
    else if (!strcmp(s, "csv"))
        *out = FL_OUT_CSV;
    else if (!strcmp(s, "jsonl") || !strcmp(s, "json") || !strcmp(s, "ndjson"))
        *out = FL_OUT_JSONL;
    else
        return false;
    return true;
}

enum { TABLE_SAMPLE_ROWS = 1000, TABLE_MAX_WIDTH = 60 };

struct fl_row_printer {
    FILE *out;
    fl_out_format fmt;
    const fl_schema *schema;
    bool header;
    uint64_t rows;
    fl_buf line;
    fl_buf cell;
    /* table mode: cells of the first rows, buffered to size the columns */
    char **cells; /* ncols * buffered, NULL = null */
    uint32_t buffered;
    bool widths_fixed;
    size_t *widths;
};

fl_status fl_row_printer_open(FILE *out, fl_out_format fmt, const fl_schema *schema, bool header,
                              fl_row_printer **pp, fl_error *err)
{
    fl_row_printer *p = calloc(1, sizeof *p);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    p->out = out;
    p->fmt = fmt;
    p->schema = schema;
    p->header = header;
    if (fmt == FL_OUT_TABLE) {
        uint32_t nc = schema->nfields ? schema->nfields : 1;
        p->cells = calloc((size_t)nc * TABLE_SAMPLE_ROWS, sizeof(char *));
        p->widths = calloc(nc, sizeof(size_t));
        if (!p->cells || !p->widths) {
            fl_row_printer_free(p);
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
    }
    if (fmt == FL_OUT_CSV && header) {
        for (uint32_t c = 0; c < schema->nfields; c++) {
            const char *n = schema->fields[c].name ? schema->fields[c].name : "";
            bool quote = !*n || strpbrk(n, ",\"\r\n");
            if (c)
                fputc(',', out);
            if (quote) {
                fputc('"', out);
                for (const char *s = n; *s; s++) {
                    if (*s == '"')
                        fputc('"', out);
                    fputc(*s, out);
                }
                fputc('"', out);
            } else {
                fputs(n, out);
            }
        }
        fputc('\n', out);
    }
    *pp = p;
    return FL_OK;
}

uint64_t fl_row_printer_rows(const fl_row_printer *p)
{
    return p->rows;
}

void fl_row_printer_free(fl_row_printer *p)
{
    if (!p)
        return;
    if (p->cells) {
        uint32_t nc = p->schema->nfields;
        for (size_t i = 0; i < (size_t)nc * p->buffered; i++)
            free(p->cells[i]);
        free(p->cells);
    }
    free(p->widths);
    fl_buf_free(&p->line);
    fl_buf_free(&p->cell);
    free(p);
}

/* Display width in terminal columns: counts UTF-8 code points. */
static size_t disp_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        if (((uint8_t)*s & 0xC0) != 0x80)
            w++;
    return w;
}

/* Byte length of the first max_cols code points of s. */
static size_t prefix_bytes(const char *s, size_t max_cols)
{
    size_t cols = 0, i = 0;
    for (; s[i]; i++) {
        if (((uint8_t)s[i] & 0xC0) != 0x80) {
            if (cols == max_cols)
                break;
            cols++;
        }
    }
    return i;
}

/* Cell text for the table: control characters shown as spaces, long cells cut. */
static char *table_cell(const char *s, size_t len)
{
    char *c = malloc(len + 4);
    if (!c)
        return NULL;
    for (size_t i = 0; i < len; i++)
        c[i] = ((uint8_t)s[i] < 0x20) ? ' ' : s[i];
    c[len] = '\0';
    if (disp_width(c) > TABLE_MAX_WIDTH) {
        size_t b = prefix_bytes(c, TABLE_MAX_WIDTH - 3);
        memcpy(c + b, "...", 4);
    }
    return c;
}

static void table_rule(fl_row_printer *p)
{
    for (uint32_t c = 0; c < p->schema->nfields; c++) {
        fputs(c ? "-+-" : "", p->out);
        for (size_t i = 0; i < p->widths[c]; i++)
            fputc('-', p->out);
    }
    fputc('\n', p->out);
}

static void table_print_cell(fl_row_printer *p, uint32_t c, const char *s, bool right)
{
    size_t w = disp_width(s);
    size_t pad = p->widths[c] > w ? p->widths[c] - w : 0;
    fputs(c ? " | " : "", p->out);
    if (right)
        for (size_t i = 0; i < pad; i++)
            fputc(' ', p->out);
    fputs(s, p->out);
    if (!right && c + 1 < p->schema->nfields)
        for (size_t i = 0; i < pad; i++)
            fputc(' ', p->out);
}

static bool right_aligned(const fl_type *t)
{
    switch (t->id) {
    case FL_TYPE_INT32:
    case FL_TYPE_INT64:
    case FL_TYPE_FLOAT32:
    case FL_TYPE_FLOAT64:
    case FL_TYPE_DECIMAL: return true;
    default: return false;
    }
}

static void table_flush_sample(fl_row_printer *p)
{
    uint32_t nc = p->schema->nfields;
    for (uint32_t c = 0; c < nc; c++) {
        size_t w = disp_width(p->schema->fields[c].name ? p->schema->fields[c].name : "");
        for (uint32_t r = 0; r < p->buffered; r++) {
            const char *s = p->cells[(size_t)r * nc + c];
            size_t cw = s ? disp_width(s) : 4;
            if (cw > w)
                w = cw;
        }
        p->widths[c] = w;
    }
    if (p->header) {
        for (uint32_t c = 0; c < nc; c++)
            table_print_cell(p, c, p->schema->fields[c].name ? p->schema->fields[c].name : "",
                             false);
        fputc('\n', p->out);
        table_rule(p);
    }
    for (uint32_t r = 0; r < p->buffered; r++) {
        for (uint32_t c = 0; c < nc; c++) {
            char *s = p->cells[(size_t)r * nc + c];
            table_print_cell(p, c, s ? s : "NULL", right_aligned(&p->schema->fields[c].type));
            free(s);
            p->cells[(size_t)r * nc + c] = NULL;
        }
        fputc('\n', p->out);
    }
    p->buffered = 0;
    p->widths_fixed = true;
}

static fl_status print_row_table(fl_row_printer *p, const fl_batch *b, uint32_t row, fl_error *err)
{
    uint32_t nc = p->schema->nfields;
    if (!p->widths_fixed && p->buffered == TABLE_SAMPLE_ROWS)
        table_flush_sample(p);
    for (uint32_t c = 0; c < nc; c++) {
        bool is_null;
        fl_buf_reset(&p->cell);
        FL_TRY(fl_format_text(&p->cell, &b->cols[c], row, &is_null, err));
        char *s = NULL;
        if (!is_null) {
            s = table_cell(p->cell.data ? p->cell.data : "", p->cell.len);
            if (!s)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
        if (!p->widths_fixed) {
            p->cells[(size_t)p->buffered * nc + c] = s;
        } else {
            table_print_cell(p, c, s ? s : "NULL", right_aligned(&p->schema->fields[c].type));
            free(s);
        }
    }
    if (!p->widths_fixed)
        p->buffered++;
    else
        fputc('\n', p->out);
    return FL_OK;
}

static fl_status print_row_csv(fl_row_printer *p, const fl_batch *b, uint32_t row, fl_error *err)
{
    fl_buf_reset(&p->line);
    for (uint32_t c = 0; c < p->schema->nfields; c++) {
        bool is_null;
        if (c)
            FL_TRY(fl_buf_append(&p->line, ",", 1, err));
        fl_buf_reset(&p->cell);
        FL_TRY(fl_format_text(&p->cell, &b->cols[c], row, &is_null, err));
        if (is_null)
            continue;
        const char *s = p->cell.data ? p->cell.data : "";
        bool quote = p->cell.len == 0 || memchr(s, ',', p->cell.len) ||
                     memchr(s, '"', p->cell.len) || memchr(s, '\n', p->cell.len) ||
                     memchr(s, '\r', p->cell.len);
        if (!quote) {
            FL_TRY(fl_buf_append(&p->line, s, p->cell.len, err));
            continue;
        }
        FL_TRY(fl_buf_append(&p->line, "\"", 1, err));
        for (size_t i = 0; i < p->cell.len; i++) {
            if (s[i] == '"')
                FL_TRY(fl_buf_append(&p->line, "\"", 1, err));
            FL_TRY(fl_buf_append(&p->line, s + i, 1, err));
        }
        FL_TRY(fl_buf_append(&p->line, "\"", 1, err));
    }
    FL_TRY(fl_buf_append(&p->line, "\n", 1, err));
    fwrite(p->line.data, 1, p->line.len, p->out);
    return FL_OK;
}

static fl_status print_row_json(fl_row_printer *p, const fl_batch *b, uint32_t row, fl_error *err)
{
    fl_buf_reset(&p->line);
    FL_TRY(fl_buf_append(&p->line, "{", 1, err));
    for (uint32_t c = 0; c < p->schema->nfields; c++) {
        const char *n = p->schema->fields[c].name ? p->schema->fields[c].name : "";
        if (c)
            FL_TRY(fl_buf_append(&p->line, ",", 1, err));
        FL_TRY(fl_json_string(&p->line, (const uint8_t *)n, strlen(n), err));
        FL_TRY(fl_buf_append(&p->line, ":", 1, err));
        FL_TRY(fl_format_json(&p->line, &b->cols[c], row, err));
    }
    FL_TRY(fl_buf_append(&p->line, "}\n", 2, err));
    fwrite(p->line.data, 1, p->line.len, p->out);
    return FL_OK;
}

fl_status fl_row_printer_batch(fl_row_printer *p, const fl_batch *b, uint64_t *limit, fl_error *err)
{
    if (b->ncols != p->schema->nfields)
        return fl_errorf(err, FL_EINVAL, "batch has %u columns, schema %u", b->ncols,
                         p->schema->nfields);
    uint32_t live = fl_batch_live_rows(b);
    for (uint32_t i = 0; i < live; i++) {
        if (limit && *limit == 0)
            break;
        uint32_t row = b->sel ? b->sel->idx[i] : i;
        if (row >= b->nrows)
            return fl_errorf(err, FL_ECORRUPT, "selection row %u beyond batch of %u", row,
                             b->nrows);
        switch (p->fmt) {
        case FL_OUT_TABLE: FL_TRY(print_row_table(p, b, row, err)); break;
        case FL_OUT_CSV: FL_TRY(print_row_csv(p, b, row, err)); break;
        case FL_OUT_JSONL: FL_TRY(print_row_json(p, b, row, err)); break;
        }
        p->rows++;
        if (limit)
            (*limit)--;
    }
    return FL_OK;
}

fl_status fl_row_printer_close(fl_row_printer *p, fl_error *err)
{
    fl_status rc = FL_OK;
    if (p->fmt == FL_OUT_TABLE) {
        if (!p->widths_fixed)
            table_flush_sample(p);
        fprintf(p->out, "(%" PRIu64 " row%s)\n", p->rows, p->rows == 1 ? "" : "s");
    }
    if (fflush(p->out) != 0 || ferror(p->out))
        rc = fl_errorf(err, FL_EIO, "write error on output");
    fl_row_printer_free(p);
    return rc;
}

fl_status fl_print_batches(fl_out_format fmt, const fl_schema *schema, const uint64_t *limit,
                           fl_batch_next_fn next, void *src, fl_error *err)
{
    fl_batch b;
    FL_TRY(fl_batch_init(&b, schema, err));
    fl_row_printer *pr = NULL;
    fl_status rc = fl_row_printer_open(stdout, fmt, schema, true, &pr, err);
    uint64_t left = limit ? *limit : 0;
    while (rc == FL_OK && (!limit || left > 0)) {
        bool eof = false;
        rc = next(src, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        rc = fl_row_printer_batch(pr, &b, limit ? &left : NULL, err);
    }
    if (pr) {
        if (rc == FL_OK)
            rc = fl_row_printer_close(pr, err);
        else
            fl_row_printer_free(pr);
    }
    fl_batch_destroy(&b);
    return rc;
}
