/*
 * buf.c - appends to the Avro encoder's and JSON writers' buffer (fl_buf),
 * zigzag varints (Avro spec "Binary Encoding": int and long are
 * zigzag-encoded variable-length integers, 7 bits per byte, low group first,
 * high bit = more bytes follow), JSON string escaping and shortest
 * round-trip double formatting.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avro/avro_internal.h"
#include "floe/format.h"

bool avro_buf_put(fl_avro_buf *b, const void *p, size_t n)
{
    return fl_buf_append(b, p, n, NULL) == FL_OK;
}

bool avro_buf_puts(fl_avro_buf *b, const char *s)
{
    return avro_buf_put(b, s, strlen(s));
}
bool avro_buf_putc(fl_avro_buf *b, char c)
{
    return avro_buf_put(b, &c, 1);
}

fl_status fl_avro_buf_append(fl_avro_buf *b, const void *p, size_t n, fl_error *err)
{
    return fl_buf_append(b, p, n, err);
}

void fl_avro_buf_free(fl_avro_buf *b)
{
    fl_buf_free(b);
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t k;
    unsigned min;
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0)
        k = 2, min = 0x80;
    else if ((c & 0xf0) == 0xe0)
        k = 3, min = 0x800;
    else if ((c & 0xf8) == 0xf0)
        k = 4, min = 0x10000;
    else
        return 0;
    if (k > n)
        return 0;
    unsigned cp = c & (0x7f >> k);
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return k;
}

bool avro_buf_json_str(fl_avro_buf *b, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    if (!avro_buf_putc(b, '"'))
        return false;
    size_t run = 0; /* start of a run of bytes copied verbatim */
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t k = c < 0x80 ? 1 : utf8_len(s + i, n - i);
        if (k && c >= 0x20 && c != '"' && c != '\\') {
            i += k;
            continue;
        }
        if (!avro_buf_put(b, s + run, i - run))
            return false;
        char esc[8];
        if (c == '"' || c == '\\')
            esc[0] = '\\', esc[1] = (char)c, esc[2] = 0;
        else if (c == '\n')
            strcpy(esc, "\\n");
        else if (c == '\t')
            strcpy(esc, "\\t");
        else if (c == '\r')
            strcpy(esc, "\\r");
        else
            snprintf(esc, sizeof esc, "\\u%04x", c); /* control or invalid UTF-8 byte */
        if (!avro_buf_puts(b, esc))
            return false;
        i++;
        run = i;
    }
    return avro_buf_put(b, s + run, n - run) && avro_buf_putc(b, '"');
}

bool avro_buf_double(fl_avro_buf *b, double d)
{
    char tmp[40];
    if (isnan(d))
        return avro_buf_puts(b, "\"NaN\"");
    if (isinf(d))
        return avro_buf_puts(b, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    fl_format_double_g(d, tmp, sizeof tmp - 2);
    /* make it read back as a JSON real, not an integer */
    if (!strpbrk(tmp, ".eEn"))
        strcat(tmp, ".0");
    return avro_buf_puts(b, tmp);
}

bool avro_buf_long(fl_avro_buf *b, int64_t v)
{
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    uint8_t tmp[10];
    size_t n = 0;
    while (z >= 0x80) {
        tmp[n++] = (uint8_t)(z | 0x80);
        z >>= 7;
    }
    tmp[n++] = (uint8_t)z;
    return avro_buf_put(b, tmp, n);
}

int avro_read_long(const uint8_t *buf, size_t len, size_t *pos, int64_t *out)
{
    uint64_t z = 0;
    size_t p = *pos;
    for (int shift = 0;; shift += 7) {
        if (p >= len)
            return -1;
        uint8_t byte = buf[p++];
        if (shift == 63 && (byte & 0x7e))
            return -2; /* more than 64 bits */
        z |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            break;
        if (shift == 63)
            return -2;
    }
    *pos = p;
    *out = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
    return 0;
}

void avro_limits_fill(const fl_avro_limits *in, fl_avro_limits *out)
{
    fl_avro_limits l = {0};
    if (in)
        l = *in;
    if (!l.max_depth)
        l.max_depth = AVRO_DEFAULT_MAX_DEPTH;
    if (!l.max_items)
        l.max_items = AVRO_DEFAULT_MAX_ITEMS;
    if (!l.max_block_bytes)
        l.max_block_bytes = AVRO_DEFAULT_MAX_BLOCK;
    *out = l;
}
