/*
 * h_sql_ndjson.c - result rows as newline-delimited JSON for the HTTP SQL
 * endpoint (Accept: application/x-ndjson): one object per row, keys are
 * the column names (made unique by the caller), values in the engine's JSON
 *   form (fl_sql_formatter_json, the one value formatter of every output
 *   path): BOOLEAN true/false; integers and DECIMAL numbers with every digit
 *   ("1.50"); FLOAT32/64 numbers in PostgreSQL's shortest round-trip form,
 *   NaN/Infinity/-Infinity as strings (JSON has no such numbers); STRING
 *   strings; STRUCT objects; LIST arrays; MAP objects keyed by the key's
 *   text; every other type (DATE, TIME, TIMESTAMP[TZ], UUID, BINARY/FIXED as
 *   \x hex, INTERVAL) a string in PostgreSQL's text output format
 *   (timestamptz in the session time zone). NULL is null. Invalid UTF-8 in
 *   strings becomes U+FFFD.
 */
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

/* One value through the engine's JSON formatter (fl_sql_formatter_json), so
 * /v1/sql, `floe sql --format jsonl`, `floe table cat` and to_json agree. */
static bool put_value(fl_ipc_buf *o, const fl_vector *v, uint32_t row, const fl_sql_formatter *f)
{
    char small[256];
    size_t need = fl_sql_formatter_json(f, v, row, small, sizeof small);
    if (need < sizeof small)
        return put(o, small, need);
    char *s = malloc(need + 1);
    if (!s)
        return false;
    fl_sql_formatter_json(f, v, row, s, need + 1);
    bool ok = put(o, s, need);
    free(s);
    return ok;
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
