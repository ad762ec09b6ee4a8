/*
 * h_sql_ndjson.c - result rows as newline-delimited JSON for the HTTP SQL
 * endpoint (Accept: application/x-ndjson): one object per row, keys are
 * the column names (made unique by the caller), values typed:
 *   BOOLEAN true/false; INT32/INT64 numbers; FLOAT32/64 numbers in
 *   PostgreSQL's shortest round-trip form, NaN/Infinity/-Infinity as
 *   strings (JSON has no such numbers); DECIMAL numbers with their exact
 *   digits ("1.50"); STRING strings; STRUCT objects; LIST arrays; MAP
 *   arrays of {"key": k, "value": v}; every other type (DATE, TIME,
 *   TIMESTAMP[TZ], UUID, BINARY/FIXED as \x hex, INTERVAL) a string in
 *   PostgreSQL's text output format (timestamptz in the session time zone).
 *   NULL is null. Invalid UTF-8 in strings becomes U+FFFD.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/h_sql.h"

static bool put(fl_ipc_buf *o, const void *d, size_t n)
{
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap < o->len + n)
            cap *= 2;
        uint8_t *p = realloc(o->p, cap);
        if (!p)
            return false;
        o->p = p;
        o->cap = cap;
    }
    memcpy(o->p + o->len, d, n);
    o->len += n;
    return true;
}

static bool puts_(fl_ipc_buf *o, const char *s)
{
    return put(o, s, strlen(s));
}

/* Length of the valid UTF-8 sequence at s (0 = invalid). */
static size_t utf8_len(const uint8_t *s, size_t n)
{
    uint8_t c = s[0];
    size_t k;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0)
        k = 2, cp = c & 0x1F;
    else if ((c & 0xF0) == 0xE0)
        k = 3, cp = c & 0x0F;
    else if ((c & 0xF8) == 0xF0)
        k = 4, cp = c & 0x07;
    else
        return 0;
    if (k > n)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((k == 2 && cp < 0x80) || (k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return k;
}

bool srv_sql_json_str(fl_ipc_buf *o, const char *str, size_t len)
{
    const uint8_t *s = (const uint8_t *)str;
    if (!put(o, "\"", 1))
        return false;
    size_t i = 0, run = 0;
    while (i < len) {
        uint8_t c = s[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
            i++;
            run++;
            continue;
        }
        if (run && !put(o, s + i - run, run))
            return false;
        run = 0;
        if (c >= 0x80) {
            size_t k = utf8_len(s + i, len - i);
            if (!(k ? put(o, s + i, k) : put(o, "\xEF\xBF\xBD", 3)))
                return false;
            i += k ? k : 1;
            continue;
        }
        char esc[8];
        switch (c) {
        case '"':
            strcpy(esc, "\\\"");
            break;
        case '\\':
            strcpy(esc, "\\\\");
            break;
        case '\n':
            strcpy(esc, "\\n");
            break;
        case '\r':
            strcpy(esc, "\\r");
            break;
        case '\t':
            strcpy(esc, "\\t");
            break;
        default:
            snprintf(esc, sizeof esc, "\\u%04x", c);
        }
        if (!puts_(o, esc))
            return false;
        i++;
    }
    if (run && !put(o, s + i - run, run))
        return false;
    return put(o, "\"", 1);
}

/* The PostgreSQL text form of one value, raw (number) or quoted. */
static bool put_text(fl_ipc_buf *o, const fl_vector *v, uint32_t row, const fl_sql_formatter *f,
                     bool quoted)
{
    char small[128];
    size_t need = fl_sql_formatter_value(f, v, row, small, sizeof small);
    char *s = small;
    if (need >= sizeof small) {
        s = malloc(need + 1);
        if (!s)
            return false;
        fl_sql_formatter_value(f, v, row, s, need + 1);
    }
    bool ok = quoted ? srv_sql_json_str(o, s, need) : put(o, s, need);
    if (s != small)
        free(s);
    return ok;
}

static bool put_value(fl_ipc_buf *o, const fl_vector *v, uint32_t row, const fl_sql_formatter *f)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    if (!fl_unified_is_valid(&u, row))
        return puts_(o, "null");
    const fl_vector *b = u.base;
    uint32_t r = fl_unified_row(&u, row);
    char num[32];
    switch (b->type->id) {
    case FL_TYPE_BOOLEAN:
        return puts_(o, b->data[r] ? "true" : "false");
    case FL_TYPE_INT32: {
        int32_t x;
        memcpy(&x, b->data + 4 * (size_t)r, 4);
        snprintf(num, sizeof num, "%d", x);
        return puts_(o, num);
    }
    case FL_TYPE_INT64: {
        int64_t x;
        memcpy(&x, b->data + 8 * (size_t)r, 8);
        snprintf(num, sizeof num, "%lld", (long long)x);
        return puts_(o, num);
    }
    case FL_TYPE_FLOAT32:
    case FL_TYPE_FLOAT64: {
        double d;
        if (b->type->id == FL_TYPE_FLOAT32) {
            float x;
            memcpy(&x, b->data + 4 * (size_t)r, 4);
            d = x;
        } else {
            memcpy(&d, b->data + 8 * (size_t)r, 8);
        }
        return put_text(o, b, r, f, !isfinite(d));
    }
    case FL_TYPE_DECIMAL:
        return put_text(o, b, r, f, false);
    case FL_TYPE_STRING: {
        size_t len;
        const uint8_t *s = fl_vector_bytes(b, r, &len);
        return srv_sql_json_str(o, (const char *)s, len);
    }
    case FL_TYPE_STRUCT: {
        if (!puts_(o, "{"))
            return false;
        for (uint32_t k = 0; k < b->nchildren; k++) {
            const char *name = b->type->children[k].name;
            if ((k && !puts_(o, ",")) || !srv_sql_json_str(o, name, strlen(name)) ||
                !puts_(o, ":") || !put_value(o, &b->children[k], r, f))
                return false;
        }
        return puts_(o, "}");
    }
    case FL_TYPE_LIST:
    case FL_TYPE_MAP: {
        bool map = b->type->id == FL_TYPE_MAP;
        if (!puts_(o, "["))
            return false;
        for (int64_t k = b->offsets[r]; k < b->offsets[r + 1]; k++) {
            if (k > b->offsets[r] && !puts_(o, ","))
                return false;
            if (map) {
                if (!puts_(o, "{\"key\":") || !put_value(o, &b->children[0], (uint32_t)k, f) ||
                    !puts_(o, ",\"value\":") ||
                    !put_value(o, &b->children[1], (uint32_t)k, f) || !puts_(o, "}"))
                    return false;
            } else if (!put_value(o, &b->children[0], (uint32_t)k, f)) {
                return false;
            }
        }
        return puts_(o, "]");
    }
    default:
        return put_text(o, b, r, f, true);
    }
}

fl_status srv_sql_ndjson_rows(const fl_schema *schema, const char *const *names,
                              const fl_batch *b, const fl_sql_formatter *fmt, fl_ipc_buf *out,
                              fl_error *err)
{
    uint32_t n = fl_batch_live_rows(b);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t row = b->sel ? b->sel->idx[i] : i;
        bool ok = puts_(out, "{");
        for (uint32_t c = 0; ok && c < schema->nfields && c < b->ncols; c++)
            ok = (!c || puts_(out, ",")) && srv_sql_json_str(out, names[c], strlen(names[c])) &&
                 puts_(out, ":") && put_value(out, &b->cols[c], row, fmt);
        if (!ok || !puts_(out, "}\n"))
            return fl_errorf(err, FL_ENOMEM, "out of memory writing JSON rows");
    }
    return FL_OK;
}
