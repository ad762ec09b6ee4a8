/*
 * encoding_bytes.c - byte array encodings: PLAIN, DELTA_LENGTH_BYTE_ARRAY
 * and DELTA_BYTE_ARRAY, decode (into a STRING/BINARY fl_vector) and encode
 * (from one).
 *
 * Spec: apache/parquet-format Encodings.md.
 *   PLAIN                    (4-byte little-endian length, bytes) * n
 *   DELTA_LENGTH_BYTE_ARRAY  DELTA_BINARY_PACKED(lengths) bytes...
 *   DELTA_BYTE_ARRAY         DELTA_BINARY_PACKED(prefix lengths)
 *                            DELTA_LENGTH_BYTE_ARRAY(suffixes)
 *                            value[i] = value[i-1][0..prefix[i]) + suffix[i]
 *
 * Decoders validate everything first (every length against the bytes left,
 * prefixes against the previous value), then grow the vector once (rows and
 * heap) and copy, so a failed decode leaves dst's existing rows intact.
 * DELTA_BYTE_ARRAY output can be much larger than its input (shared
 * prefixes are free), so it is capped at 64 MiB + 512 x the input size
 * (FL_ELIMIT beyond): hostile input cannot ask for unbounded memory.
 *
 * Ownership: decoders append to dst (which owns its buffers); temporary
 * length arrays are malloc'd and freed here.
 */
#include <stdlib.h>
#include <string.h>

#include "parquet/encoding.h"

static uint32_t load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Makes room for n more rows and bytes more heap bytes in dst. */
static fl_status bytes_reserve(fl_vector *dst, uint32_t n, size_t bytes, fl_error *err)
{
    if ((uint64_t)dst->len + n > UINT32_MAX - 1)
        return fl_errorf(err, FL_ELIMIT, "byte arrays: %u + %u rows exceed a vector", dst->len, n);
    FL_TRY(fl_vector_reserve(dst, dst->len + n, err));
    return fl_vector_reserve_heap(dst, bytes ? bytes : 1, err);
}

fl_status fl_pq_plain_decode_bytes(const uint8_t *buf, size_t len, uint32_t n, fl_vector *dst,
                                   size_t *consumed, fl_error *err)
{
    if (n == 0) {
        if (consumed)
            *consumed = 0;
        return FL_OK;
    }
    /* One pass: the values' bytes cannot exceed len - 4n, so the heap is
     * reserved for that up front (+16 bytes of slack for the short-copy fast
     * path). Offsets and bytes go past dst->len/heap_len and only become
     * visible when every value has been checked. */
    if ((uint64_t)n * 4 > len)
        return fl_errorf(err, FL_ECORRUPT,
                         "PLAIN byte arrays: %u values need at least %llu bytes, have %zu", n,
                         (unsigned long long)n * 4, len);
    FL_TRY(bytes_reserve(dst, n, len - (size_t)n * 4 + 16, err));
    int64_t *off = dst->offsets + dst->len;
    uint8_t *heap = dst->heap;
    size_t hl = dst->heap_len, pos = 0;
    for (uint32_t i = 0; i < n; i++) {
        /* the remaining n - i values need at least their 4-byte lengths */
        size_t rest = (size_t)(n - i - 1) * 4;
        if (len - pos < 4 + rest)
            return fl_errorf(err, FL_ECORRUPT,
                             "PLAIN byte array %u of %u: byte %zu: truncated (%zu bytes left)", i,
                             n, pos, len - pos);
        uint32_t l = load_le32(buf + pos);
        pos += 4;
        if (l > len - pos - rest)
            return fl_errorf(err, FL_ECORRUPT,
                             "PLAIN byte array %u of %u: byte %zu: length %u exceeds the %zu bytes "
                             "left",
                             i, n, pos - 4, l, len - pos);
        if (l <= 16 && len - pos >= 16) { /* fixed-size copies: no libc call */
            memcpy(heap + hl, buf + pos, 8);
            memcpy(heap + hl + 8, buf + pos + 8, 8);
        } else {
            memcpy(heap + hl, buf + pos, l);
        }
        pos += l;
        hl += l;
        off[i + 1] = (int64_t)hl;
    }
    dst->heap_len = hl;
    dst->len += n;
    if (consumed)
        *consumed = pos;
    return FL_OK;
}

/* Decodes n lengths (DELTA_BINARY_PACKED) at buf into a malloc'd array and
 * checks them: each >= 0. *sum = their total; *used = bytes of the lengths. */
static fl_status get_lengths(const uint8_t *buf, size_t len, uint32_t n, const char *what,
                             int32_t **out, uint64_t *sum, size_t *used, fl_error *err)
{
    uint32_t total = 0;
    FL_TRY(fl_pq_delta_count(buf, len, &total, err));
    if (total < n)
        return fl_errorf(err, FL_ECORRUPT, "%s: %u values expected, the header has %u", what, n,
                         total);
    int32_t *l = malloc(((size_t)n ? (size_t)n : 1) * sizeof *l);
    if (!l)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory for %u lengths", what, n);
    fl_status st = fl_pq_delta_decode_i32(buf, len, l, n, used, err);
    if (st != FL_OK) {
        free(l);
        return fl_error_prefix(err, "%s", what);
    }
    uint64_t s = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (l[i] < 0) {
            int32_t bad = l[i];
            free(l);
            return fl_errorf(err, FL_ECORRUPT, "%s: value %u has negative length %d", what, i, bad);
        }
        s += (uint64_t)l[i];
    }
    *out = l;
    *sum = s;
    return FL_OK;
}

fl_status fl_pq_dlba_decode(const uint8_t *buf, size_t len, uint32_t n, fl_vector *dst,
                            size_t *consumed, fl_error *err)
{
    if (n == 0 && len == 0) { /* e.g. a page of nulls only */
        if (consumed)
            *consumed = 0;
        return FL_OK;
    }
    int32_t *lens = NULL;
    uint64_t sum = 0;
    size_t used = 0;
    FL_TRY(get_lengths(buf, len, n, "DELTA_LENGTH_BYTE_ARRAY lengths", &lens, &sum, &used, err));
    if (sum > len - used) {
        free(lens);
        return fl_errorf(err, FL_ECORRUPT,
                         "DELTA_LENGTH_BYTE_ARRAY: byte %zu: %llu bytes of values exceed the %zu "
                         "bytes left",
                         used, (unsigned long long)sum, len - used);
    }
    fl_status st = n ? bytes_reserve(dst, n, (size_t)sum, err) : FL_OK;
    if (st != FL_OK || n == 0) {
        free(lens);
        if (st == FL_OK && consumed)
            *consumed = used;
        return st;
    }
    memcpy(dst->heap + dst->heap_len, buf + used, (size_t)sum);
    int64_t *off = dst->offsets + dst->len;
    int64_t o = (int64_t)dst->heap_len;
    for (uint32_t i = 0; i < n; i++) {
        o += lens[i];
        off[i + 1] = o;
    }
    dst->heap_len += (size_t)sum;
    dst->len += n;
    free(lens);
    if (consumed)
        *consumed = used + (size_t)sum;
    return FL_OK;
}

fl_status fl_pq_dba_decode(const uint8_t *buf, size_t len, uint32_t n, fl_vector *dst,
                           fl_error *err)
{
    int32_t *pre = NULL, *suf = NULL;
    uint64_t presum = 0, sufsum = 0;
    size_t used1 = 0, used2 = 0;
    fl_status st;
    if (n == 0 && len == 0)
        return FL_OK;
    FL_TRY(get_lengths(buf, len, n, "DELTA_BYTE_ARRAY prefix lengths", &pre, &presum, &used1, err));
    st = get_lengths(buf + used1, len - used1, n, "DELTA_BYTE_ARRAY suffix lengths", &suf, &sufsum,
                     &used2, err);
    if (st != FL_OK) {
        free(pre);
        return st;
    }
    size_t data = used1 + used2;
    if (sufsum > len - data) {
        st = fl_errorf(
            err, FL_ECORRUPT,
            "DELTA_BYTE_ARRAY: byte %zu: %llu bytes of suffixes exceed the %zu bytes left", data,
            (unsigned long long)sufsum, len - data);
        goto done;
    }
    /* validate prefixes against the previous value's length */
    uint64_t prev = 0;
    for (uint32_t i = 0; i < n; i++) {
        if ((uint64_t)pre[i] > prev) {
            st = fl_errorf(err, FL_ECORRUPT,
                           "DELTA_BYTE_ARRAY: value %u: prefix length %d exceeds the previous "
                           "value's %llu bytes",
                           i, pre[i], (unsigned long long)prev);
            goto done;
        }
        prev = (uint64_t)pre[i] + (uint64_t)suf[i];
    }
    uint64_t total = presum + sufsum;
    uint64_t cap = ((uint64_t)64 << 20) + (uint64_t)len * 512;
    if (total > cap) {
        st = fl_errorf(err, FL_ELIMIT,
                       "DELTA_BYTE_ARRAY: %u values expand to %llu bytes from %zu input bytes "
                       "(limit %llu)",
                       n, (unsigned long long)total, len, (unsigned long long)cap);
        goto done;
    }
    if (n == 0)
        goto done;
    st = bytes_reserve(dst, n, (size_t)total, err);
    if (st != FL_OK)
        goto done;
    {
        uint8_t *heap = dst->heap;
        int64_t *off = dst->offsets + dst->len;
        size_t hl = dst->heap_len, prev_start = hl;
        const uint8_t *s = buf + data;
        for (uint32_t i = 0; i < n; i++) {
            size_t start = hl;
            memcpy(heap + hl, heap + prev_start, (size_t)pre[i]);
            hl += (size_t)pre[i];
            memcpy(heap + hl, s, (size_t)suf[i]);
            hl += (size_t)suf[i];
            s += suf[i];
            off[i + 1] = (int64_t)hl;
            prev_start = start;
        }
        dst->heap_len = hl;
        dst->len += n;
    }
done:
    free(pre);
    free(suf);
    return st;
}

/* ---- encoders ---- */

static fl_status check_src(const fl_vector *src, uint32_t from, uint32_t n, const char *what,
                           fl_error *err)
{
    if (src->encoding != FL_VEC_FLAT || !fl_type_is_varlen(src->type))
        return fl_errorf(err, FL_EINVAL, "%s: source must be a FLAT STRING/BINARY vector", what);
    if ((uint64_t)from + n > src->len)
        return fl_errorf(err, FL_EINVAL, "%s: rows [%u, %u) beyond the vector's %u", what, from,
                         from + n, src->len);
    return FL_OK;
}

static inline size_t row_len(const fl_vector *v, uint32_t r)
{
    return (size_t)(v->offsets[r + 1] - v->offsets[r]);
}

/* Bytes of row r; never NULL + offset (the heap is NULL while empty). */
static inline const uint8_t *row_ptr(const fl_vector *v, uint32_t r)
{
    static const uint8_t empty[1];
    return v->heap ? v->heap + v->offsets[r] : empty;
}

/* Lengths of the valid rows, as int32 (malloc'd); *count valid rows, *sum bytes. */
static fl_status collect_lengths(const fl_vector *src, uint32_t from, uint32_t n, const char *what,
                                 int32_t **out, uint32_t *count, size_t *sum, fl_error *err)
{
    int32_t *l = malloc(((size_t)n ? (size_t)n : 1) * sizeof *l);
    if (!l)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory for %u lengths", what, n);
    uint32_t c = 0;
    size_t s = 0;
    for (uint32_t r = from; r < from + n; r++) {
        if (!fl_vector_is_valid(src, r))
            continue;
        size_t rl = row_len(src, r);
        if (rl > INT32_MAX) {
            free(l);
            return fl_errorf(err, FL_EINVAL, "%s: row %u is %zu bytes, over 2^31-1", what, r, rl);
        }
        l[c++] = (int32_t)rl;
        s += rl;
    }
    *out = l;
    *count = c;
    *sum = s;
    return FL_OK;
}

fl_status fl_pq_plain_encode_bytes(const fl_vector *src, uint32_t from, uint32_t n, fl_pq_buf *out,
                                   fl_error *err)
{
    FL_TRY(check_src(src, from, n, "PLAIN byte arrays", err));
    size_t total = 0;
    for (uint32_t r = from; r < from + n; r++)
        if (fl_vector_is_valid(src, r)) {
            size_t rl = row_len(src, r);
            if (rl > UINT32_MAX)
                return fl_errorf(err, FL_EINVAL, "PLAIN byte arrays: row %u is %zu bytes", r, rl);
            total += 4 + rl;
        }
    FL_TRY(fl_buf_reserve(out, total, err));
    uint8_t *p = out->bytes + out->len;
    for (uint32_t r = from; r < from + n; r++) {
        if (!fl_vector_is_valid(src, r))
            continue;
        uint32_t rl = (uint32_t)row_len(src, r);
        p[0] = (uint8_t)rl;
        p[1] = (uint8_t)(rl >> 8);
        p[2] = (uint8_t)(rl >> 16);
        p[3] = (uint8_t)(rl >> 24);
        memcpy(p + 4, row_ptr(src, r), rl);
        p += 4 + (size_t)rl;
    }
    out->len += total;
    return FL_OK;
}

fl_status fl_pq_dlba_encode(const fl_vector *src, uint32_t from, uint32_t n, fl_pq_buf *out,
                            fl_error *err)
{
    FL_TRY(check_src(src, from, n, "DELTA_LENGTH_BYTE_ARRAY", err));
    int32_t *lens = NULL;
    uint32_t c = 0;
    size_t sum = 0;
    FL_TRY(collect_lengths(src, from, n, "DELTA_LENGTH_BYTE_ARRAY", &lens, &c, &sum, err));
    size_t start = out->len;
    fl_status st = fl_pq_delta_encode_i32(lens, c, out, err);
    free(lens);
    if (st == FL_OK)
        st = fl_buf_reserve(out, sum, err);
    if (st != FL_OK) {
        out->len = start;
        return st;
    }
    for (uint32_t r = from; r < from + n; r++) {
        if (!fl_vector_is_valid(src, r))
            continue;
        size_t rl = row_len(src, r);
        memcpy(out->data + out->len, row_ptr(src, r), rl);
        out->len += rl;
    }
    return FL_OK;
}

fl_status fl_pq_dba_encode(const fl_vector *src, uint32_t from, uint32_t n, fl_pq_buf *out,
                           fl_error *err)
{
    FL_TRY(check_src(src, from, n, "DELTA_BYTE_ARRAY", err));
    int32_t *pre = malloc(((size_t)n ? (size_t)n : 1) * sizeof *pre);
    int32_t *suf = malloc(((size_t)n ? (size_t)n : 1) * sizeof *suf);
    if (!pre || !suf) {
        free(pre);
        free(suf);
        return fl_errorf(err, FL_ENOMEM, "DELTA_BYTE_ARRAY: out of memory for %u lengths", n);
    }
    uint32_t c = 0;
    size_t sufsum = 0;
    const uint8_t *prev = NULL;
    size_t prevlen = 0;
    fl_status st = FL_OK;
    for (uint32_t r = from; r < from + n; r++) {
        if (!fl_vector_is_valid(src, r))
            continue;
        size_t rl = row_len(src, r);
        if (rl > INT32_MAX) {
            st = fl_errorf(err, FL_EINVAL, "DELTA_BYTE_ARRAY: row %u is %zu bytes, over 2^31-1", r,
                           rl);
            break;
        }
        const uint8_t *v = row_ptr(src, r);
        size_t lim = rl < prevlen ? rl : prevlen, k = 0;
        while (k < lim && v[k] == prev[k])
            k++;
        pre[c] = (int32_t)k;
        suf[c] = (int32_t)(rl - k);
        sufsum += rl - k;
        c++;
        prev = v;
        prevlen = rl;
    }
    size_t start = out->len;
    if (st == FL_OK)
        st = fl_pq_delta_encode_i32(pre, c, out, err);
    if (st == FL_OK)
        st = fl_pq_delta_encode_i32(suf, c, out, err);
    if (st == FL_OK)
        st = fl_buf_reserve(out, sufsum, err);
    if (st == FL_OK) {
        uint32_t i = 0;
        for (uint32_t r = from; r < from + n; r++) {
            if (!fl_vector_is_valid(src, r))
                continue;
            const uint8_t *v = row_ptr(src, r);
            memcpy(out->data + out->len, v + pre[i], (size_t)suf[i]);
            out->len += (size_t)suf[i];
            i++;
        }
    } else {
        out->len = start;
    }
    free(pre);
    free(suf);
    return st;
}
