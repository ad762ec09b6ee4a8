/*
 * fuzz_parquet_encodings.c - libFuzzer target: every decoder of encoding.h
 * on arbitrary bytes, plus encode -> decode round trips of values taken from
 * the input (a mismatch traps).
 *
 * Input layout: byte 0 selects the decoder, byte 1 a parameter (bit width,
 * value width), bytes 2..3 the value count n (little-endian, capped), the
 * rest is the encoded data:
 *   0 RLE hybrid -> uint32      4 DELTA_BINARY_PACKED int32   8 BYTE_STREAM_SPLIT
 *   1 RLE hybrid -> uint16      5 DELTA_BINARY_PACKED int64   9 PLAIN booleans
 *   2 legacy BIT_PACKED         6 PLAIN / DLBA byte arrays    10 round trips
 *   3 RLE in uneven pieces      7 DELTA_BYTE_ARRAY
 *
 * tests/parquet/test_fuzz_replay.c includes this file with PQ_FUZZ_NO_MAIN
 * defined and replays inputs through pq_fuzz_encodings_one().
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/encoding.h"

#define PQ_FUZZ_MAX_N 8192u /* enough for every code path (chunks of 256, runs); keeps execs fast  \
                             */

static void pq_fuzz_enc_check(int cond)
{
    if (!cond)
        __builtin_trap();
}

static fl_type pq_fuzz_binary_type = {.id = FL_TYPE_BINARY};

/* Round trips of values read from p (len bytes), selected by param. */
static void pq_fuzz_roundtrips(uint8_t param, const uint8_t *p, size_t len)
{
    fl_error err;
    fl_pq_buf b = {0};
    switch (param % 4) {
    case 0: { /* RLE at bit width param/4 % 33 */
        int bw = (param / 4) % 33;
        uint32_t n = (uint32_t)(len / 4), mask = bw == 32 ? 0xffffffffu : (1u << bw) - 1;
        uint32_t *v = malloc((n + 1) * sizeof *v), *o = malloc((n + 1) * sizeof *o);
        for (uint32_t i = 0; i < n; i++) {
            memcpy(&v[i], p + 4 * i, 4);
            v[i] &= mask;
            if (param & 0x80) /* long runs */
                v[i] = v[i] % 3 == 0 && i ? v[i - 1] : v[i];
        }
        pq_fuzz_enc_check(fl_pq_rle_encode(v, n, bw, &b, &err) == FL_OK);
        fl_pq_rle_decoder d;
        fl_pq_rle_init(&d, b.bytes, b.len, bw);
        pq_fuzz_enc_check(fl_pq_rle_get(&d, o, n, &err) == FL_OK);
        pq_fuzz_enc_check(n == 0 || memcmp(v, o, (size_t)n * 4) == 0);
        free(v);
        free(o);
        break;
    }
    case 1: { /* DELTA int64 and int32 */
        uint32_t n = (uint32_t)(len / 8);
        int64_t *v = malloc((n + 1) * sizeof *v), *o = malloc((n + 1) * sizeof *o);
        memcpy(v, p, (size_t)n * 8);
        pq_fuzz_enc_check(fl_pq_delta_encode_i64(v, n, &b, &err) == FL_OK);
        size_t used = 0;
        pq_fuzz_enc_check(fl_pq_delta_decode_i64(b.bytes, b.len, o, n, &used, &err) == FL_OK);
        pq_fuzz_enc_check(used == b.len && (n == 0 || memcmp(v, o, (size_t)n * 8) == 0));
        int32_t *v32 = (int32_t *)v, *o32 = (int32_t *)o;
        uint32_t n32 = (uint32_t)(len / 4) < 2 * n ? (uint32_t)(len / 4) : 2 * n;
        b.len = 0;
        pq_fuzz_enc_check(fl_pq_delta_encode_i32(v32, n32, &b, &err) == FL_OK);
        pq_fuzz_enc_check(fl_pq_delta_decode_i32(b.bytes, b.len, o32, n32, &used, &err) == FL_OK);
        pq_fuzz_enc_check(used == b.len && (n32 == 0 || memcmp(v32, o32, (size_t)n32 * 4) == 0));
        free(v);
        free(o);
        break;
    }
    case 2: { /* byte arrays: split the input at bytes equal to the first one */
        fl_vector src, dst;
        fl_vector_init(&src, &pq_fuzz_binary_type, &err);
        fl_vector_init(&dst, &pq_fuzz_binary_type, &err);
        size_t start = 1;
        for (size_t i = 1; i <= len; i++) {
            if (i == len || p[i] == p[0]) {
                if ((i - start) % 7 == 3)
                    pq_fuzz_enc_check(fl_vector_append_null(&src, &err) == FL_OK);
                else
                    pq_fuzz_enc_check(fl_vector_append_bytes(&src, p + start, i - start, &err) ==
                                      FL_OK);
                start = i + 1;
            }
        }
        uint32_t nn = 0;
        for (uint32_t r = 0; r < src.len; r++)
            nn += fl_vector_is_valid(&src, r);
        for (int enc = 0; enc < 3; enc++) {
            b.len = 0;
            fl_vector_reset(&dst);
            fl_status st = enc == 0   ? fl_pq_plain_encode_bytes(&src, 0, src.len, &b, &err)
                           : enc == 1 ? fl_pq_dlba_encode(&src, 0, src.len, &b, &err)
                                      : fl_pq_dba_encode(&src, 0, src.len, &b, &err);
            pq_fuzz_enc_check(st == FL_OK);
            st = enc == 0   ? fl_pq_plain_decode_bytes(b.bytes, b.len, nn, &dst, NULL, &err)
                 : enc == 1 ? fl_pq_dlba_decode(b.bytes, b.len, nn, &dst, NULL, &err)
                            : fl_pq_dba_decode(b.bytes, b.len, nn, &dst, &err);
            pq_fuzz_enc_check(st == FL_OK && dst.len == nn);
            uint32_t j = 0;
            for (uint32_t r = 0; r < src.len; r++) {
                if (!fl_vector_is_valid(&src, r))
                    continue;
                size_t la, lb;
                const uint8_t *x = fl_vector_bytes(&src, r, &la),
                              *y = fl_vector_bytes(&dst, j++, &lb);
                pq_fuzz_enc_check(la == lb && (la == 0 || memcmp(x, y, la) == 0));
            }
        }
        fl_vector_destroy(&src);
        fl_vector_destroy(&dst);
        break;
    }
    default: { /* BYTE_STREAM_SPLIT */
        size_t w = (size_t)(param / 4) % 17 + 1;
        uint32_t n = (uint32_t)(len / w);
        uint8_t *o = malloc((size_t)n * w + 1);
        pq_fuzz_enc_check(fl_pq_bss_encode(p, n, w, &b, &err) == FL_OK);
        pq_fuzz_enc_check(fl_pq_bss_decode(b.bytes, b.len, n, w, o, &err) == FL_OK);
        pq_fuzz_enc_check(n == 0 || memcmp(o, p, (size_t)n * w) == 0);
        free(o);
        break;
    }
    }
    fl_buf_free(&b);
}

static int pq_fuzz_encodings_one(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    uint8_t which = data[0] % 11, param = data[1];
    uint32_t n = ((uint32_t)data[2] | (uint32_t)data[3] << 8) % (PQ_FUZZ_MAX_N + 1);
    const uint8_t *p = data + 4;
    size_t len = size - 4;
    fl_error err;
    switch (which) {
    case 0:
    case 3: {
        uint32_t *out = malloc(((size_t)n + 1) * sizeof *out);
        fl_pq_rle_decoder d;
        fl_pq_rle_init(&d, p, len, param % 34); /* 33: invalid width */
        if (which == 0) {
            (void)fl_pq_rle_get(&d, out, n, &err);
        } else {
            uint32_t got = 0, step = 1;
            while (got < n &&
                   fl_pq_rle_get(&d, out + got, step < n - got ? step : n - got, &err) == FL_OK) {
                got += step < n - got ? step : n - got;
                step = step * 2 + 1;
            }
        }
        free(out);
        break;
    }
    case 1: {
        uint16_t *out = malloc(((size_t)n + 1) * sizeof *out);
        fl_pq_rle_decoder d;
        fl_pq_rle_init(&d, p, len, param % 18);
        (void)fl_pq_rle_get_u16(&d, out, n, &err);
        free(out);
        break;
    }
    case 2: {
        uint16_t *out = malloc(((size_t)n + 1) * sizeof *out);
        (void)fl_pq_bitpacked_legacy_decode(p, len, param % 18, out, n, &err);
        free(out);
        break;
    }
    case 4:
    case 5: {
        int64_t *out = malloc(((size_t)n + 1) * sizeof *out);
        size_t used = 0;
        uint32_t cnt;
        if (fl_pq_delta_count(p, len, &cnt, &err) == FL_OK && param & 1)
            n = cnt < n ? cnt : n;
        fl_status st = which == 4 ? fl_pq_delta_decode_i32(p, len, (int32_t *)out, n, &used, &err)
                                  : fl_pq_delta_decode_i64(p, len, out, n, &used, &err);
        pq_fuzz_enc_check(st != FL_OK || used <= len);
        free(out);
        break;
    }
    case 6:
    case 7: {
        fl_vector v;
        fl_vector_init(&v, &pq_fuzz_binary_type, &err);
        size_t used = 0;
        fl_status st;
        if (which == 7)
            st = fl_pq_dba_decode(p, len, n, &v, &err);
        else if (param & 1)
            st = fl_pq_dlba_decode(p, len, n, &v, &used, &err);
        else
            st = fl_pq_plain_decode_bytes(p, len, n, &v, &used, &err);
        pq_fuzz_enc_check(st != FL_OK || (v.len == n && used <= len));
        if (st == FL_OK && n)
            pq_fuzz_enc_check(v.offsets[n] == (int64_t)v.heap_len);
        fl_vector_destroy(&v);
        break;
    }
    case 8: {
        size_t w = (size_t)param % 20; /* 0: invalid width */
        uint8_t *out = malloc((size_t)n * (w ? w : 1) + 1);
        (void)fl_pq_bss_decode(p, len, n, w, out, &err);
        free(out);
        break;
    }
    case 9: {
        uint8_t *out = malloc((size_t)n + 1);
        (void)fl_pq_plain_decode_bool(p, len, param, n, out, &err);
        free(out);
        break;
    }
    default: pq_fuzz_roundtrips(param, p, len); break;
    }
    return 0;
}

#ifndef PQ_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return pq_fuzz_encodings_one(data, size);
}
#endif
