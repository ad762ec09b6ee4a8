/*
 * encoding_bss.c - BYTE_STREAM_SPLIT for any fixed width (FLOAT16/FLBA(2),
 * FLOAT, INT32, DOUBLE, INT64, FLBA(k)), decode and encode.
 *
 * Spec: apache/parquet-format Encodings.md, "Byte Stream Split
 * (BYTE_STREAM_SPLIT = 9)": K streams of N bytes, stream k holding byte k of
 * every value, concatenated; the data ends with the page (no padding).
 *
 * The decoder takes N from the buffer (len / width, which must divide
 * exactly) and decodes the first n <= N values, so a page can be decoded in
 * several calls as long as each call is given the whole stream area.
 * Widths 4 and 8 have dedicated loops (one gather from each stream per
 * value, contiguous stores); other widths go stream by stream.
 */
#include <string.h>

#include "parquet/encoding.h"

fl_status fl_pq_bss_decode(const uint8_t *buf, size_t len, uint32_t n, size_t width, uint8_t *out,
                           fl_error *err)
{
    if (width == 0 || width > (1u << 20))
        return fl_errorf(err, FL_ECORRUPT, "BYTE_STREAM_SPLIT: invalid value width %zu", width);
    if (len % width != 0)
        return fl_errorf(err, FL_ECORRUPT,
                         "BYTE_STREAM_SPLIT: %zu bytes is not a whole number of %zu-byte values",
                         len, width);
    size_t N = len / width;
    if (n > N)
        return fl_errorf(err, FL_ECORRUPT,
                         "BYTE_STREAM_SPLIT: %u values expected, the data holds %zu of %zu bytes",
                         n, N, width);
    if (n == 0)
        return FL_OK;
    if (width == 4) {
        const uint8_t *s0 = buf, *s1 = buf + N, *s2 = buf + 2 * N, *s3 = buf + 3 * N;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t v = (uint32_t)s0[i] | (uint32_t)s1[i] << 8 | (uint32_t)s2[i] << 16 |
                         (uint32_t)s3[i] << 24;
            memcpy(out + (size_t)i * 4, &v, 4);
        }
    } else if (width == 8) {
        const uint8_t *s0 = buf, *s1 = buf + N, *s2 = buf + 2 * N, *s3 = buf + 3 * N;
        const uint8_t *s4 = buf + 4 * N, *s5 = buf + 5 * N, *s6 = buf + 6 * N, *s7 = buf + 7 * N;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t v = (uint64_t)s0[i] | (uint64_t)s1[i] << 8 | (uint64_t)s2[i] << 16 |
                         (uint64_t)s3[i] << 24 | (uint64_t)s4[i] << 32 | (uint64_t)s5[i] << 40 |
                         (uint64_t)s6[i] << 48 | (uint64_t)s7[i] << 56;
            memcpy(out + (size_t)i * 8, &v, 8);
        }
    } else {
        for (size_t k = 0; k < width; k++) {
            const uint8_t *s = buf + k * N;
            uint8_t *o = out + k;
            for (uint32_t i = 0; i < n; i++)
                o[(size_t)i * width] = s[i];
        }
    }
    return FL_OK;
}

fl_status fl_pq_bss_encode(const uint8_t *values, uint32_t n, size_t width, fl_pq_buf *out,
                           fl_error *err)
{
    if (width == 0)
        return fl_errorf(err, FL_EINVAL, "BYTE_STREAM_SPLIT: invalid value width 0");
    if (n && width > SIZE_MAX / n)
        return fl_errorf(err, FL_EINVAL, "BYTE_STREAM_SPLIT: %u values of %zu bytes overflow", n,
                         width);
    size_t total = (size_t)n * width;
    FL_TRY(fl_buf_reserve(out, total, err));
    uint8_t *o = out->bytes + out->len;
    if (width == 4) {
        for (uint32_t i = 0; i < n; i++) {
            const uint8_t *v = values + (size_t)i * 4;
            o[i] = v[0];
            o[n + i] = v[1];
            o[2 * (size_t)n + i] = v[2];
            o[3 * (size_t)n + i] = v[3];
        }
    } else {
        for (size_t k = 0; k < width; k++) {
            uint8_t *s = o + k * n;
            const uint8_t *v = values + k;
            for (uint32_t i = 0; i < n; i++)
                s[i] = v[(size_t)i * width];
        }
    }
    out->len += total;
    return FL_OK;
}
