/*
 * truncate.c - truncation of string and binary bounds as Java's metrics
 * mode truncate(N) does (UnicodeUtil.truncateStringMin/Max,
 * BinaryUtil.truncateBinaryMin/Max), so column metrics stay small while
 * remaining valid bounds (spec "Column metrics": bounds may be truncated).
 *
 * Strings count Unicode code points, never splitting a UTF-8 sequence:
 *   lower = the first N code points;
 *   upper = the first N code points with the last one that can be
 *           incremented incremented (U+D7FF steps over the surrogates to
 *           U+E000; U+10FFFF cannot be incremented, so the one before it is
 *           tried) and everything after it dropped; no such code point means
 *           no upper bound.
 * Binary counts bytes: lower = first N bytes; upper = first N bytes with the
 * last byte below 0xFF incremented and the rest dropped.
 * Values not longer than N are kept as they are. Strings that are not valid
 * UTF-8 are truncated as binary. Other types pass through unchanged.
 *
 * One deliberate difference: Java checks the string's UTF-16 length against
 * N before counting code points (and throws for strings with more than N
 * UTF-16 units but at most N code points); here only code points count.
 */
#include <string.h>

#include "floe/ice_manifest.h"

/* Length of the UTF-8 sequence at s[0..n) and its code point; 0 if invalid. */
static size_t utf8_next(const uint8_t *s, size_t n, uint32_t *cp)
{
    uint8_t c = s[0];
    size_t len;
    uint32_t v;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        len = 2, v = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3, v = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4, v = c & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3F);
    }
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < min[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

static size_t utf8_put(uint32_t cp, uint8_t *out)
{
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | cp >> 6);
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | cp >> 12);
        out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | cp >> 18);
    out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

/* Byte offsets of the first `width` code points: fills starts[0..k) (k =
 * min(width, count)) and returns the byte length of those k code points.
 * Returns false when s is not valid UTF-8. *more: code points remain after. */
static bool utf8_prefix(const uint8_t *s, size_t n, uint32_t width, size_t *prefix_len, bool *more)
{
    size_t pos = 0;
    uint32_t k = 0;
    while (pos < n && k < width) {
        uint32_t cp;
        size_t l = utf8_next(s + pos, n - pos, &cp);
        if (!l)
            return false;
        pos += l;
        k++;
    }
    /* validate the rest too, so invalid input is consistently binary */
    for (size_t p = pos; p < n;) {
        uint32_t cp;
        size_t l = utf8_next(s + p, n - p, &cp);
        if (!l)
            return false;
        p += l;
    }
    *prefix_len = pos;
    *more = pos < n;
    return true;
}

static bool copy_out(fl_arena *a, const uint8_t *p, size_t n, const uint8_t **out,
                     uint32_t *out_len)
{
    uint8_t *c = fl_arena_alloc(a, n ? n : 1);
    if (!c)
        return false;
    if (n)
        memcpy(c, p, n);
    *out = c;
    *out_len = (uint32_t)n;
    return true;
}

bool fl_ice_truncate_lower(const fl_type *t, const uint8_t *v, uint32_t len, uint32_t width,
                           fl_arena *a, const uint8_t **out, uint32_t *out_len)
{
    size_t keep = len;
    if (t->id == FL_TYPE_STRING) {
        bool more;
        size_t plen;
        if (utf8_prefix(v, len, width, &plen, &more))
            keep = plen;
        else if (len > width)
            keep = width;
    } else if (t->id == FL_TYPE_BINARY) {
        if (len > width)
            keep = width;
    }
    return copy_out(a, v, keep, out, out_len);
}

static bool binary_upper(const uint8_t *v, uint32_t len, uint32_t width, fl_arena *a,
                         const uint8_t **out, uint32_t *out_len)
{
    if (len <= width)
        return copy_out(a, v, len, out, out_len);
    for (uint32_t i = width; i-- > 0;) {
        if (v[i] != 0xFF) {
            if (!copy_out(a, v, i + 1, out, out_len))
                return false;
            ((uint8_t *)*out)[i] = (uint8_t)(v[i] + 1);
            return true;
        }
    }
    return false;
}

bool fl_ice_truncate_upper(const fl_type *t, const uint8_t *v, uint32_t len, uint32_t width,
                           fl_arena *a, const uint8_t **out, uint32_t *out_len)
{
    if (t->id == FL_TYPE_BINARY)
        return binary_upper(v, len, width, a, out, out_len);
    if (t->id != FL_TYPE_STRING)
        return copy_out(a, v, len, out, out_len);
    bool more;
    size_t plen;
    if (!utf8_prefix(v, len, width, &plen, &more))
        return binary_upper(v, len, width, a, out, out_len);
    if (!more)
        return copy_out(a, v, len, out, out_len);
    /* code point start offsets of the prefix, walking back from the end */
    size_t end = plen;
    while (end > 0) {
        size_t start = end - 1;
        while (start > 0 && (v[start] & 0xC0) == 0x80)
            start--;
        uint32_t cp;
        utf8_next(v + start, end - start, &cp);
        uint32_t next = cp == 0xD7FF ? 0xE000 : cp == 0x10FFFF ? 0 : cp + 1;
        if (next != 0) {
            uint8_t enc[4];
            size_t el = utf8_put(next, enc);
            uint8_t *c = fl_arena_alloc(a, start + el);
            if (!c)
                return false;
            memcpy(c, v, start);
            memcpy(c + start, enc, el);
            *out = c;
            *out_len = (uint32_t)(start + el);
            return true;
        }
        end = start;
    }
    return false;
}
