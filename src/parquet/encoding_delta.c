/*
 * encoding_delta.c - DELTA_BINARY_PACKED for INT32 and INT64, decode and
 * encode.
 *
 * Spec: apache/parquet-format Encodings.md, "Delta Encoding
 * (DELTA_BINARY_PACKED = 5)".
 *
 *   header := varint(block_size) varint(miniblocks_per_block)
 *             varint(total_values) zigzag_varint(first_value)
 *   block  := zigzag_varint(min_delta) byte(bit_width) * miniblocks_per_block
 *             miniblock * (those holding values)
 *   miniblock := (block_size / miniblocks_per_block) deltas - min_delta,
 *                bit-packed LSB-first at the miniblock's width (padded to full
 *                length; a miniblock cut by the end of the buffer is accepted
 *                if it still holds the bits of every remaining value)
 *
 * block_size is a multiple of 128 and the miniblock size a multiple of 32.
 * All arithmetic wraps (unsigned 32- or 64-bit), as the spec requires, so
 * deltas that overflow restore the original values. INT32 miniblocks are at
 * most 32 bits wide, INT64 at most 64 (wider is FL_ECORRUPT).
 *
 * Decoding unpacks each miniblock in chunks of up to 256 values into a stack
 * buffer with the width-specialised kernels of encoding_bitpack.h, then runs
 * the prefix sum into the caller's array. When fewer values are asked for
 * than the header announces, the rest is walked without unpacking so that
 * *consumed covers the whole encoded sequence.
 *
 * The encoder writes blocks of 128 values in 4 miniblocks of 32 (the usual
 * choice of parquet-mr and Arrow).
 */
#include <string.h>

#include "parquet/encoding.h"
#include "parquet/encoding_bitpack.h"

typedef struct delta_hdr {
    uint32_t block_size, nminis, per_mini, total;
    uint64_t first; /* raw two's complement bits */
    size_t pos;     /* bytes used by the header */
} delta_hdr;

static fl_status get_uvarint(const uint8_t *buf, size_t len, size_t *pos, uint64_t *v,
                             const char *what, fl_error *err)
{
    uint64_t x = 0;
    size_t p = *pos;
    for (unsigned i = 0; i < 10; i++) {
        if (p >= len)
            return fl_errorf(err, FL_ECORRUPT, "DELTA_BINARY_PACKED: byte %zu: truncated %s", *pos,
                             what);
        uint8_t c = buf[p++];
        if (i == 9 && c > 1)
            break;
        x |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80)) {
            *pos = p;
            *v = x;
            return FL_OK;
        }
    }
    return fl_errorf(err, FL_ECORRUPT, "DELTA_BINARY_PACKED: byte %zu: %s varint overflows 64 bits",
                     *pos, what);
}

static inline uint64_t unzigzag64(uint64_t u)
{
    return (u >> 1) ^ (0 - (u & 1));
}

static fl_status delta_header(const uint8_t *buf, size_t len, delta_hdr *h, fl_error *err)
{
    size_t pos = 0;
    uint64_t bs = 0, nm = 0, total = 0, first = 0;
    FL_TRY(get_uvarint(buf, len, &pos, &bs, "block size", err));
    FL_TRY(get_uvarint(buf, len, &pos, &nm, "miniblock count", err));
    FL_TRY(get_uvarint(buf, len, &pos, &total, "value count", err));
    FL_TRY(get_uvarint(buf, len, &pos, &first, "first value", err));
    if (bs == 0 || bs % 128 != 0 || bs > ((uint64_t)1 << 24))
        return fl_errorf(err, FL_ECORRUPT,
                         "DELTA_BINARY_PACKED: byte 0: invalid block size %llu (a multiple of 128 "
                         "up to 2^24)",
                         (unsigned long long)bs);
    if (nm == 0 || bs % nm != 0 || (bs / nm) % 32 != 0)
        return fl_errorf(err, FL_ECORRUPT,
                         "DELTA_BINARY_PACKED: invalid miniblock count %llu for block size %llu",
                         (unsigned long long)nm, (unsigned long long)bs);
    if (total > INT32_MAX)
        return fl_errorf(err, FL_ECORRUPT, "DELTA_BINARY_PACKED: value count %llu exceeds 2^31-1",
                         (unsigned long long)total);
    h->block_size = (uint32_t)bs;
    h->nminis = (uint32_t)nm;
    h->per_mini = (uint32_t)(bs / nm);
    h->total = (uint32_t)total;
    h->first = unzigzag64(first);
    h->pos = pos;
    return FL_OK;
}

fl_status fl_pq_delta_count(const uint8_t *buf, size_t len, uint32_t *count, fl_error *err)
{
    delta_hdr h;
    FL_TRY(delta_header(buf, len, &h, err));
    *count = h.total;
    return FL_OK;
}

#define CHUNK 256 /* values unpacked per step: a multiple of 8 */

/* Decoder body, instantiated for 32 and 64 bits. T is the unsigned type in
 * which the prefix sum wraps; OUT_T the caller's element type. */
#define DEF_DELTA_DECODE(NAME, BITS, OUT_T)                                                        \
    fl_status NAME(const uint8_t *buf, size_t len, OUT_T *out, uint32_t n, size_t *consumed,       \
                   fl_error *err)                                                                  \
    {                                                                                              \
        delta_hdr h;                                                                               \
        if (n == 0 && len == 0) { /* e.g. a page of nulls only */                                  \
            if (consumed)                                                                          \
                *consumed = 0;                                                                     \
            return FL_OK;                                                                          \
        }                                                                                          \
        FL_TRY(delta_header(buf, len, &h, err));                                                   \
        if (n > h.total)                                                                           \
            return fl_errorf(err, FL_ECORRUPT,                                                     \
                             "DELTA_BINARY_PACKED: %u values expected, the header has %u", n,      \
                             h.total);                                                             \
        size_t pos = h.pos;                                                                        \
        uint##BITS##_t last = (uint##BITS##_t)h.first;                                             \
        uint32_t done = 0, left = h.total; /* values decoded / still encoded */                    \
        if (left > 0) {                                                                            \
            if (n > 0)                                                                             \
                out[done++] = (OUT_T)last;                                                         \
            left--;                                                                                \
        }                                                                                          \
        uint##BITS##_t tmp[CHUNK];                                                                 \
        while (left > 0) {                                                                         \
            uint64_t md = 0;                                                                        \
            FL_TRY(get_uvarint(buf, len, &pos, &md, "min delta", err));                            \
            const uint##BITS##_t min_delta = (uint##BITS##_t)unzigzag64(md);                       \
            if (len - pos < h.nminis)                                                              \
                return fl_errorf(err, FL_ECORRUPT,                                                 \
                                 "DELTA_BINARY_PACKED: byte %zu: truncated miniblock bit widths",  \
                                 pos);                                                             \
            const uint8_t *widths = buf + pos;                                                     \
            pos += h.nminis;                                                                       \
            for (uint32_t m = 0; m < h.nminis && left > 0; m++) {                                  \
                const int bw = widths[m];                                                          \
                if (bw > BITS)                                                                     \
                    return fl_errorf(err, FL_ECORRUPT,                                             \
                                     "DELTA_BINARY_PACKED: byte %zu: miniblock bit width %d "      \
                                     "exceeds %d",                                                 \
                                     (size_t)(widths + m - buf), bw, BITS);                        \
                uint32_t k = left < h.per_mini ? left : h.per_mini;                                \
                size_t full = (size_t)h.per_mini * (size_t)bw / 8;                                 \
                size_t need = ((size_t)k * (size_t)bw + 7) / 8;                                    \
                size_t avail = len - pos;                                                          \
                if (avail < need)                                                                  \
                    return fl_errorf(err, FL_ECORRUPT,                                             \
                                     "DELTA_BINARY_PACKED: byte %zu: miniblock of %u values at "   \
                                     "%d bits needs %zu bytes, %zu left",                          \
                                     pos, k, bw, need, avail);                                     \
                const uint8_t *mp = buf + pos;                                                     \
                uint32_t want = n - done < k ? n - done : k; /* values to materialise */           \
                for (uint32_t j = 0; j < want;) {                                                  \
                    uint32_t c = want - j < CHUNK ? want - j : CHUNK;                              \
                    size_t groups = (c + 7) / 8;                                                   \
                    size_t off = (size_t)j * (size_t)bw / 8;                                       \
                    if (off + groups * (size_t)bw <= avail) {                                      \
                        fl_pq_unpack##BITS(mp + off, bw, tmp, groups);                             \
                    } else { /* end of a buffer cut short: zero-pad the last group */              \
                        size_t whole = (avail - off) / (size_t)bw;                                 \
                        fl_pq_unpack##BITS(mp + off, bw, tmp, whole);                              \
                        uint8_t pad[64] = {0};                                                     \
                        memcpy(pad, mp + off + whole * (size_t)bw,                                 \
                               avail - off - whole * (size_t)bw);                                  \
                        fl_pq_unpack##BITS(pad, bw, tmp + whole * 8, groups - whole);              \
                    }                                                                              \
                    OUT_T *o = out + done + j;                                                     \
                    for (uint32_t q = 0; q < c; q++) {                                             \
                        last += min_delta + tmp[q];                                                \
                        o[q] = (OUT_T)last;                                                        \
                    }                                                                              \
                    j += c;                                                                        \
                }                                                                                  \
                done += want;                                                                      \
                left -= k;                                                                         \
                pos += full < avail ? full : avail;                                                \
            }                                                                                      \
        }                                                                                          \
        if (consumed)                                                                              \
            *consumed = pos;                                                                       \
        return FL_OK;                                                                              \
    }

DEF_DELTA_DECODE(fl_pq_delta_decode_i32, 32, int32_t)
DEF_DELTA_DECODE(fl_pq_delta_decode_i64, 64, int64_t)

/* ---- encoder ---- */

#define ENC_BLOCK 128
#define ENC_MINIS 4
#define ENC_PER_MINI (ENC_BLOCK / ENC_MINIS)

static void put_uvarint(uint8_t **p, uint64_t v)
{
    while (v >= 0x80) {
        *(*p)++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *(*p)++ = (uint8_t)v;
}

static uint64_t zigzag64(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/* Encodes n values given as sign-extended int64 with BITS-bit wrapping
 * deltas (BITS 32 or 64). */
static fl_status delta_encode(const int32_t *v32, const int64_t *v64, uint32_t n, int bits,
                              fl_pq_buf *out, fl_error *err)
{
    /* worst case: header 4 varints + per block (varint + widths + 128 values * 8 bytes) */
    size_t blocks = n ? ((size_t)n - 1 + ENC_BLOCK - 1) / ENC_BLOCK : 0;
    FL_TRY(fl_buf_reserve(out, 40 + blocks * (10 + ENC_MINIS + ENC_BLOCK * 8), err));
    uint8_t *p = out->bytes + out->len;
#define VAL(i) (v32 ? (int64_t)v32[i] : v64[i])
    put_uvarint(&p, ENC_BLOCK);
    put_uvarint(&p, ENC_MINIS);
    put_uvarint(&p, n);
    put_uvarint(&p, zigzag64(n ? VAL(0) : 0));
    uint64_t rel[ENC_BLOCK];
    int64_t d[ENC_BLOCK];
    for (uint32_t i = 1; i < n; i += ENC_BLOCK) {
        uint32_t k = n - i < ENC_BLOCK ? n - i : ENC_BLOCK;
        int64_t mind = INT64_MAX;
        for (uint32_t j = 0; j < k; j++) {
            if (bits == 32)
                d[j] = (int32_t)((uint32_t)v32[i + j] - (uint32_t)v32[i + j - 1]);
            else
                d[j] = (int64_t)((uint64_t)v64[i + j] - (uint64_t)v64[i + j - 1]);
            if (d[j] < mind)
                mind = d[j];
        }
        put_uvarint(&p, zigzag64(mind));
        for (uint32_t j = 0; j < ENC_BLOCK; j++)
            rel[j] = j < k ? (bits == 32 ? (uint64_t)(uint32_t)((uint32_t)d[j] - (uint32_t)mind)
                                         : (uint64_t)d[j] - (uint64_t)mind)
                           : 0;
        uint8_t *widths = p;
        p += ENC_MINIS;
        for (uint32_t m = 0; m < ENC_MINIS; m++) {
            if ((uint64_t)m * ENC_PER_MINI >= k) {
                widths[m] = 0;
                continue;
            }
            uint64_t all = 0;
            for (uint32_t j = 0; j < ENC_PER_MINI; j++)
                all |= rel[m * ENC_PER_MINI + j];
            int bw = fl_pq_bit_width(all);
            widths[m] = (uint8_t)bw;
            fl_pq_pack64(rel + m * ENC_PER_MINI, ENC_PER_MINI, bw, p);
            p += (size_t)ENC_PER_MINI * (size_t)bw / 8;
        }
    }
#undef VAL
    out->len = (size_t)(p - out->bytes);
    return FL_OK;
}

fl_status fl_pq_delta_encode_i32(const int32_t *v, uint32_t n, fl_pq_buf *out, fl_error *err)
{
    return delta_encode(v, NULL, n, 32, out, err);
}

fl_status fl_pq_delta_encode_i64(const int64_t *v, uint32_t n, fl_pq_buf *out, fl_error *err)
{
    return delta_encode(NULL, v, n, 64, out, err);
}
