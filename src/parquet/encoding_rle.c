/*
 * encoding_rle.c - the RLE / bit-packing hybrid (levels, dictionary indices,
 * RLE booleans), the deprecated BIT_PACKED level encoding, PLAIN booleans,
 * and the bit packing kernels every encoding shares (encoding_bitpack.h).
 *
 * Spec: apache/parquet-format Encodings.md, "Run Length Encoding /
 * Bit-Packing Hybrid (RLE = 3)" and "Bit-packed (Deprecated) (BIT_PACKED = 4)".
 *
 *   encoded-data := <run>*
 *   run          := <bit-packed-run> | <rle-run>
 *   bit-packed   := varint(groups << 1 | 1), then groups * bit_width bytes
 *                   holding groups * 8 values packed LSB-first
 *   rle-run      := varint(count << 1), then the value in ceil(bit_width / 8)
 *                   little-endian bytes
 *
 * Decoding is bulk: RLE runs become a fill loop (vectorised by the
 * compiler), whole bit-packed groups are unpacked straight into the caller's
 * buffer with a width-specialised kernel; only a group split across two
 * calls goes through the decoder's 8-value buffer. A bit-packed run cut short
 * by the end of the buffer yields the values whose bits are present (as other
 * readers do); asking for more is FL_ECORRUPT.
 *
 * The encoder emits RLE runs for 8+ repeated values (after topping the
 * pending literal up to a multiple of 8) and bit-packed runs otherwise.
 */
#include <string.h>

#include "parquet/encoding.h"
#include "parquet/encoding_bitpack.h"

/* ------------------------------------------------------------------------ */
/* bit packing kernels                                                       */
/* ------------------------------------------------------------------------ */

#define BP_MASK(W) ((W) >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << (W)) - 1))

/* One function per width: with W constant and the 8 extractions written
 * out (gcc -O2 does not unroll the loop itself), every shift and mask is a
 * compile-time constant over a local copy of the group's W bytes. */
#define BP_EXTRACT(BITS, W, i)                                                                     \
    do {                                                                                           \
        const unsigned off_ = (i) * (W), wi_ = off_ / 64, sh_ = off_ % 64;                         \
        uint64_t v_ = w[wi_] >> sh_;                                                               \
        if (sh_ + (W) > 64)                                                                        \
            v_ |= w[wi_ + 1] << ((64 - sh_) & 63);                                                 \
        out[i] = (uint##BITS##_t)(v_ & BP_MASK(W));                                                \
    } while (0)

/* Loads the W bytes of a group as little-endian words w[0..W/8] (+ a zero
 * word), reading only inside the group: whole words directly, the tail as
 * the group's last 8 bytes shifted down (no partial copies through memory,
 * which would defeat store forwarding). */
static inline __attribute__((always_inline)) void bp_load_group(uint64_t *w, const uint8_t *in,
                                                                unsigned W)
{
    unsigned full = W / 8, rem = W % 8;
    for (unsigned k = 0; k < full; k++)
        memcpy(&w[k], in + 8 * k, 8);
    if (rem == 0) {
        w[full] = 0;
    } else if (W >= 8) {
        uint64_t t;
        memcpy(&t, in + W - 8, 8);
        w[full] = t >> (8 * (8 - rem));
    } else {
        uint64_t t = 0;
        for (unsigned k = 0; k < rem; k++)
            t |= (uint64_t)in[k] << (8 * k);
        w[full] = t;
    }
    w[full + 1] = 0;
}

#define DEF_UNPACK(BITS, W)                                                                        \
    static void unpack##BITS##_##W(const uint8_t *in, uint##BITS##_t *out, size_t ng)              \
    {                                                                                              \
        for (size_t g = 0; g < ng; g++, in += (W), out += 8) {                                     \
            uint64_t w[(W) / 8 + 2];                                                               \
            bp_load_group(w, in, (W));                                                             \
            BP_EXTRACT(BITS, W, 0);                                                                \
            BP_EXTRACT(BITS, W, 1);                                                                \
            BP_EXTRACT(BITS, W, 2);                                                                \
            BP_EXTRACT(BITS, W, 3);                                                                \
            BP_EXTRACT(BITS, W, 4);                                                                \
            BP_EXTRACT(BITS, W, 5);                                                                \
            BP_EXTRACT(BITS, W, 6);                                                                \
            BP_EXTRACT(BITS, W, 7);                                                                \
        }                                                                                          \
    }

#define DEF_UNPACK_1_32(BITS)                                                                      \
    DEF_UNPACK(BITS, 1)                                                                            \
    DEF_UNPACK(BITS, 2)                                                                            \
    DEF_UNPACK(BITS, 3)                                                                            \
    DEF_UNPACK(BITS, 4)                                                                            \
    DEF_UNPACK(BITS, 5)                                                                            \
    DEF_UNPACK(BITS, 6)                                                                            \
    DEF_UNPACK(BITS, 7)                                                                            \
    DEF_UNPACK(BITS, 8)                                                                            \
    DEF_UNPACK(BITS, 9)                                                                            \
    DEF_UNPACK(BITS, 10)                                                                           \
    DEF_UNPACK(BITS, 11)                                                                           \
    DEF_UNPACK(BITS, 12)                                                                           \
    DEF_UNPACK(BITS, 13)                                                                           \
    DEF_UNPACK(BITS, 14)                                                                           \
    DEF_UNPACK(BITS, 15)                                                                           \
    DEF_UNPACK(BITS, 16)                                                                           \
    DEF_UNPACK(BITS, 17)                                                                           \
    DEF_UNPACK(BITS, 18)                                                                           \
    DEF_UNPACK(BITS, 19)                                                                           \
    DEF_UNPACK(BITS, 20)                                                                           \
    DEF_UNPACK(BITS, 21)                                                                           \
    DEF_UNPACK(BITS, 22)                                                                           \
    DEF_UNPACK(BITS, 23)                                                                           \
    DEF_UNPACK(BITS, 24)                                                                           \
    DEF_UNPACK(BITS, 25)                                                                           \
    DEF_UNPACK(BITS, 26)                                                                           \
    DEF_UNPACK(BITS, 27)                                                                           \
    DEF_UNPACK(BITS, 28)                                                                           \
    DEF_UNPACK(BITS, 29)                                                                           \
    DEF_UNPACK(BITS, 30)                                                                           \
    DEF_UNPACK(BITS, 31)                                                                           \
    DEF_UNPACK(BITS, 32)

DEF_UNPACK_1_32(32)
DEF_UNPACK_1_32(64)
DEF_UNPACK(64, 33)
DEF_UNPACK(64, 34)
DEF_UNPACK(64, 35)
DEF_UNPACK(64, 36)
DEF_UNPACK(64, 37)
DEF_UNPACK(64, 38)
DEF_UNPACK(64, 39)
DEF_UNPACK(64, 40)
DEF_UNPACK(64, 41)
DEF_UNPACK(64, 42)
DEF_UNPACK(64, 43)
DEF_UNPACK(64, 44)
DEF_UNPACK(64, 45)
DEF_UNPACK(64, 46)
DEF_UNPACK(64, 47)
DEF_UNPACK(64, 48)
DEF_UNPACK(64, 49)
DEF_UNPACK(64, 50)
DEF_UNPACK(64, 51)
DEF_UNPACK(64, 52)
DEF_UNPACK(64, 53)
DEF_UNPACK(64, 54)
DEF_UNPACK(64, 55)
DEF_UNPACK(64, 56)
DEF_UNPACK(64, 57)
DEF_UNPACK(64, 58)
DEF_UNPACK(64, 59)
DEF_UNPACK(64, 60)
DEF_UNPACK(64, 61)
DEF_UNPACK(64, 62)
DEF_UNPACK(64, 63)
DEF_UNPACK(64, 64)

#define TAB_1_32(BITS)                                                                             \
    unpack##BITS##_1, unpack##BITS##_2, unpack##BITS##_3, unpack##BITS##_4, unpack##BITS##_5,      \
        unpack##BITS##_6, unpack##BITS##_7, unpack##BITS##_8, unpack##BITS##_9, unpack##BITS##_10, \
        unpack##BITS##_11, unpack##BITS##_12, unpack##BITS##_13, unpack##BITS##_14,                \
        unpack##BITS##_15, unpack##BITS##_16, unpack##BITS##_17, unpack##BITS##_18,                \
        unpack##BITS##_19, unpack##BITS##_20, unpack##BITS##_21, unpack##BITS##_22,                \
        unpack##BITS##_23, unpack##BITS##_24, unpack##BITS##_25, unpack##BITS##_26,                \
        unpack##BITS##_27, unpack##BITS##_28, unpack##BITS##_29, unpack##BITS##_30,                \
        unpack##BITS##_31, unpack##BITS##_32

typedef void (*unpack32_fn)(const uint8_t *, uint32_t *, size_t);
typedef void (*unpack64_fn)(const uint8_t *, uint64_t *, size_t);

static const unpack32_fn UNPACK32[33] = {NULL, TAB_1_32(32)};
static const unpack64_fn UNPACK64[65] = {
    NULL,        TAB_1_32(64), unpack64_33, unpack64_34, unpack64_35, unpack64_36, unpack64_37,
    unpack64_38, unpack64_39,  unpack64_40, unpack64_41, unpack64_42, unpack64_43, unpack64_44,
    unpack64_45, unpack64_46,  unpack64_47, unpack64_48, unpack64_49, unpack64_50, unpack64_51,
    unpack64_52, unpack64_53,  unpack64_54, unpack64_55, unpack64_56, unpack64_57, unpack64_58,
    unpack64_59, unpack64_60,  unpack64_61, unpack64_62, unpack64_63, unpack64_64};

void fl_pq_unpack32(const uint8_t *in, int bw, uint32_t *out, size_t ngroups)
{
    if (bw == 0)
        memset(out, 0, ngroups * 8 * sizeof *out);
    else
        UNPACK32[bw](in, out, ngroups);
}

void fl_pq_unpack64(const uint8_t *in, int bw, uint64_t *out, size_t ngroups)
{
    if (bw == 0)
        memset(out, 0, ngroups * 8 * sizeof *out);
    else
        UNPACK64[bw](in, out, ngroups);
}

void fl_pq_pack64(const uint64_t *in, size_t n, int bw, uint8_t *out)
{
    if (bw == 0)
        return;
    uint64_t acc = 0;
    unsigned bits = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = in[i];
        acc |= v << bits;
        if (bits + (unsigned)bw >= 64) {
            memcpy(out, &acc, 8);
            out += 8;
            acc = bits ? v >> (64 - bits) : 0;
            bits = bits + (unsigned)bw - 64;
        } else {
            bits += (unsigned)bw;
        }
    }
    /* n * bw is a multiple of 8 bits: flush the whole bytes left */
    memcpy(out, &acc, bits / 8);
}

void fl_pq_pack32(const uint32_t *in, size_t n, int bw, uint8_t *out)
{
    if (bw == 0)
        return;
    uint64_t acc = 0;
    unsigned bits = 0;
    for (size_t i = 0; i < n; i++) {
        acc |= (uint64_t)in[i] << bits;
        bits += (unsigned)bw;
        if (bits >= 32) {
            uint32_t lo = (uint32_t)acc;
            memcpy(out, &lo, 4);
            out += 4;
            acc >>= 32;
            bits -= 32;
        }
    }
    memcpy(out, &acc, bits / 8);
}

/* ------------------------------------------------------------------------ */
/* RLE / bit-packed hybrid decoder                                           */
/* ------------------------------------------------------------------------ */

void fl_pq_rle_init(fl_pq_rle_decoder *d, const uint8_t *buf, size_t len, int bit_width)
{
    static const uint8_t empty[1];
    memset(d, 0, sizeof *d);
    if (!buf) { /* an empty buffer may come as NULL; keep pointer arithmetic defined */
        buf = empty;
        len = 0;
    }
    d->start = d->p = buf;
    d->end = buf ? buf + len : buf; /* NULL + 0 is undefined behaviour */
    d->bit_width = bit_width;
    d->bp_pos = 8;
}

static fl_status rle_fail(const fl_pq_rle_decoder *d, const uint8_t *at, fl_error *err,
                          const char *what)
{
    return fl_errorf(err, FL_ECORRUPT, "RLE/bit-packed data (bit width %d): byte %zu of %zu: %s",
                     d->bit_width, (size_t)(at - d->start), (size_t)(d->end - d->start), what);
}

/* Reads the next run header into the decoder state. */
static fl_status rle_next_run(fl_pq_rle_decoder *d, fl_error *err)
{
    const uint8_t *p = d->p;
    uint64_t h = 0;
    for (unsigned i = 0;; i++) {
        if (p >= d->end)
            return rle_fail(d, d->p, err,
                            i ? "truncated run header"
                              : "ran out of runs before the expected values");
        if (i == 5)
            return rle_fail(d, d->p, err, "run header varint longer than 5 bytes");
        uint8_t c = *p++;
        h |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80))
            break;
    }
    int bw = d->bit_width;
    if (h & 1) {
        uint64_t groups = h >> 1;
        uint64_t values = groups * 8;
        if (values > INT32_MAX)
            return rle_fail(d, d->p, err, "bit-packed run longer than 2^31-1 values");
        size_t bytes = (size_t)groups * (size_t)bw;
        size_t avail = (size_t)(d->end - p);
        if (bytes > avail) { /* cut short: keep the values whose bits are present */
            values = (uint64_t)avail * 8 / (unsigned)bw;
            bytes = avail;
        }
        d->bp = p;
        d->bp_left = (uint32_t)values;
        d->p = p + bytes;
    } else {
        uint64_t count = h >> 1;
        if (count > INT32_MAX)
            return rle_fail(d, d->p, err, "RLE run longer than 2^31-1 values");
        size_t vb = ((size_t)bw + 7) / 8;
        if ((size_t)(d->end - p) < vb)
            return rle_fail(d, p, err, "truncated RLE run value");
        uint32_t v = 0;
        for (size_t i = 0; i < vb; i++)
            v |= (uint32_t)p[i] << (8 * i);
        d->rle_value = v;
        d->rle_left = (uint32_t)count;
        d->p = p + vb;
    }
    return FL_OK;
}

/* Unpacks the next (possibly partial, at a truncated end) group of the
 * current bit-packed run into bp_buf[8-k..8). */
static void rle_buffer_group(fl_pq_rle_decoder *d)
{
    int bw = d->bit_width;
    uint32_t k = d->bp_left < 8 ? d->bp_left : 8;
    size_t avail = (size_t)(d->p - d->bp); /* run bytes left */
    size_t nb = (size_t)bw < avail ? (size_t)bw : avail;
    uint8_t tmp[32] = {0};
    memcpy(tmp, d->bp, nb);
    uint32_t vals[8];
    fl_pq_unpack32(tmp, bw, vals, 1);
    memcpy(d->bp_buf + (8 - k), vals, k * sizeof(uint32_t));
    d->bp_pos = 8 - k;
    d->bp += nb;
    d->bp_left -= k;
}

fl_status fl_pq_rle_get(fl_pq_rle_decoder *d, uint32_t *out, uint32_t n, fl_error *err)
{
    if (d->bit_width < 0 || d->bit_width > 32)
        return fl_errorf(err, FL_ECORRUPT, "RLE/bit-packed data: invalid bit width %d",
                         d->bit_width);
    const int bw = d->bit_width;
    while (n > 0) {
        if (d->bp_pos < 8) {
            uint32_t k = 8 - d->bp_pos < n ? 8 - d->bp_pos : n;
            memcpy(out, d->bp_buf + d->bp_pos, k * sizeof *out);
            d->bp_pos += k;
            out += k;
            n -= k;
        } else if (d->rle_left) {
            uint32_t k = d->rle_left < n ? d->rle_left : n;
            const uint32_t v = d->rle_value;
            for (uint32_t i = 0; i < k; i++)
                out[i] = v;
            d->rle_left -= k;
            out += k;
            n -= k;
        } else if (d->bp_left) {
            uint32_t m = d->bp_left < n ? d->bp_left : n;
            size_t groups = m / 8;
            if (groups && (size_t)(d->p - d->bp) >= groups * (size_t)bw) {
                fl_pq_unpack32(d->bp, bw, out, groups);
                d->bp += groups * (size_t)bw;
                d->bp_left -= (uint32_t)(groups * 8);
                out += groups * 8;
                n -= (uint32_t)(groups * 8);
            } else {
                rle_buffer_group(d);
            }
        } else {
            FL_TRY(rle_next_run(d, err));
        }
    }
    return FL_OK;
}

fl_status fl_pq_rle_get_u16(fl_pq_rle_decoder *d, uint16_t *out, uint32_t n, fl_error *err)
{
    if (d->bit_width < 0 || d->bit_width > 16)
        return fl_errorf(err, FL_ECORRUPT, "RLE/bit-packed levels: invalid bit width %d",
                         d->bit_width);
    const int bw = d->bit_width;
    uint32_t tmp[256];
    while (n > 0) {
        if (d->bp_pos < 8) {
            uint32_t k = 8 - d->bp_pos < n ? 8 - d->bp_pos : n;
            for (uint32_t i = 0; i < k; i++)
                out[i] = (uint16_t)d->bp_buf[d->bp_pos + i];
            d->bp_pos += k;
            out += k;
            n -= k;
        } else if (d->rle_left) {
            uint32_t k = d->rle_left < n ? d->rle_left : n;
            const uint16_t v = (uint16_t)d->rle_value;
            for (uint32_t i = 0; i < k; i++)
                out[i] = v;
            d->rle_left -= k;
            out += k;
            n -= k;
        } else if (d->bp_left) {
            uint32_t m = d->bp_left < n ? d->bp_left : n;
            size_t groups = m / 8;
            if (groups > 32)
                groups = 32;
            if (groups && (size_t)(d->p - d->bp) >= groups * (size_t)bw) {
                fl_pq_unpack32(d->bp, bw, tmp, groups);
                for (size_t i = 0; i < groups * 8; i++)
                    out[i] = (uint16_t)tmp[i];
                d->bp += groups * (size_t)bw;
                d->bp_left -= (uint32_t)(groups * 8);
                out += groups * 8;
                n -= (uint32_t)(groups * 8);
            } else {
                rle_buffer_group(d);
            }
        } else {
            FL_TRY(rle_next_run(d, err));
        }
    }
    return FL_OK;
}

/* ------------------------------------------------------------------------ */
/* RLE / bit-packed hybrid encoder                                           */
/* ------------------------------------------------------------------------ */

static fl_status put_varint(fl_pq_buf *out, uint64_t v, fl_error *err)
{
    FL_TRY(fl_buf_reserve(out, 10, err));
    while (v >= 0x80) {
        out->data[out->len++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out->data[out->len++] = (uint8_t)v;
    return FL_OK;
}

#define RLE_MAX_RUN ((uint32_t)1 << 30) /* below the spec's 2^31-1, a multiple of 8 */

/* Bit-packed run(s) of n values; only the very last group may be padded. */
static fl_status rle_put_literal(const uint32_t *v, uint32_t n, int bw, fl_pq_buf *out,
                                 fl_error *err)
{
    while (n > 0) {
        uint32_t chunk = n < RLE_MAX_RUN ? n : RLE_MAX_RUN;
        uint32_t groups = (chunk + 7) / 8;
        FL_TRY(put_varint(out, (uint64_t)groups << 1 | 1, err));
        FL_TRY(fl_buf_reserve(out, (size_t)groups * (size_t)bw, err));
        uint32_t full = chunk / 8;
        fl_pq_pack32(v, (size_t)full * 8, bw, out->bytes + out->len);
        out->len += (size_t)full * (size_t)bw;
        if (chunk % 8) {
            uint32_t tmp[8] = {0};
            memcpy(tmp, v + (size_t)full * 8, (chunk % 8) * sizeof *tmp);
            fl_pq_pack32(tmp, 8, bw, out->bytes + out->len);
            out->len += (size_t)bw;
        }
        v += chunk;
        n -= chunk;
    }
    return FL_OK;
}

static fl_status rle_put_run(uint32_t value, uint32_t count, int bw, fl_pq_buf *out, fl_error *err)
{
    size_t vb = ((size_t)bw + 7) / 8;
    while (count > 0) {
        uint32_t chunk = count < RLE_MAX_RUN ? count : RLE_MAX_RUN;
        FL_TRY(put_varint(out, (uint64_t)chunk << 1, err));
        FL_TRY(fl_buf_reserve(out, vb, err));
        for (size_t i = 0; i < vb; i++)
            out->data[out->len++] = (uint8_t)(value >> (8 * i));
        count -= chunk;
    }
    return FL_OK;
}

fl_status fl_pq_rle_encode(const uint32_t *values, uint32_t n, int bit_width, fl_pq_buf *out,
                           fl_error *err)
{
    if (bit_width < 0 || bit_width > 32)
        return fl_errorf(err, FL_EINVAL, "RLE encode: invalid bit width %d", bit_width);
    uint32_t all = 0;
    for (uint32_t i = 0; i < n; i++)
        all |= values[i];
    if (fl_pq_bit_width(all) > bit_width)
        return fl_errorf(err, FL_EINVAL, "RLE encode: a value needs %d bits, more than %d",
                         fl_pq_bit_width(all), bit_width);
    size_t start = out->len;
    uint32_t i = 0, lit = 0; /* values[lit..i) are pending literals */
    fl_status st = FL_OK;
    while (i < n && st == FL_OK) {
        uint32_t j = i + 1;
        while (j < n && values[j] == values[i])
            j++;
        uint32_t run = j - i;
        uint32_t pad = (8 - ((i - lit) & 7)) & 7; /* tops the literals up to whole groups */
        if (run >= pad + 8) {
            i += pad;
            if (i > lit)
                st = rle_put_literal(values + lit, i - lit, bit_width, out, err);
            if (st == FL_OK)
                st = rle_put_run(values[i], j - i, bit_width, out, err);
            lit = j;
        }
        i = j;
    }
    if (st == FL_OK && n > lit)
        st = rle_put_literal(values + lit, n - lit, bit_width, out, err);
    if (st != FL_OK)
        out->len = start;
    return st;
}

/* ------------------------------------------------------------------------ */
/* legacy BIT_PACKED, PLAIN booleans                                         */
/* ------------------------------------------------------------------------ */

fl_status fl_pq_bitpacked_legacy_decode(const uint8_t *buf, size_t len, int bit_width,
                                        uint16_t *out, uint32_t n, fl_error *err)
{
    if (bit_width < 0 || bit_width > 16)
        return fl_errorf(err, FL_ECORRUPT, "BIT_PACKED levels: invalid bit width %d", bit_width);
    uint64_t bits = (uint64_t)n * (uint64_t)bit_width;
    if ((bits + 7) / 8 > len)
        return fl_errorf(err, FL_ECORRUPT,
                         "BIT_PACKED levels: %u values of %d bits need %llu bytes, have %zu", n,
                         bit_width, (unsigned long long)((bits + 7) / 8), len);
    if (bit_width == 0) {
        memset(out, 0, (size_t)n * sizeof *out);
        return FL_OK;
    }
    /* MSB-first: value i is bits [i*bw, (i+1)*bw) counting from each byte's top bit */
    uint64_t pos = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = 0;
        for (int b = 0; b < bit_width; b++, pos++)
            v = v << 1 | ((buf[pos >> 3] >> (7 - (pos & 7))) & 1u);
        out[i] = (uint16_t)v;
    }
    return FL_OK;
}

fl_status fl_pq_plain_decode_bool(const uint8_t *buf, size_t len, uint32_t bit_offset, uint32_t n,
                                  uint8_t *out, fl_error *err)
{
    uint64_t end = (uint64_t)bit_offset + n;
    if ((end + 7) / 8 > len)
        return fl_errorf(err, FL_ECORRUPT,
                         "PLAIN booleans: %u values at bit %u need %llu bytes, have %zu", n,
                         bit_offset, (unsigned long long)((end + 7) / 8), len);
    if (n == 0)
        return FL_OK;
    uint32_t i = 0;
    /* unaligned head */
    for (; i < n && ((bit_offset + i) & 7); i++)
        out[i] = (buf[(bit_offset + i) >> 3] >> ((bit_offset + i) & 7)) & 1;
    /* whole bytes */
    const uint8_t *p = buf + ((bit_offset + i) >> 3);
    uint32_t nbytes = (n - i) / 8;
    for (uint32_t k = 0; k < nbytes; k++) {
        uint8_t b = p[k];
        uint8_t *o = out + i + (size_t)k * 8;
        for (int j = 0; j < 8; j++)
            o[j] = (b >> j) & 1;
    }
    i += nbytes * 8;
    for (; i < n; i++)
        out[i] = (buf[(bit_offset + i) >> 3] >> ((bit_offset + i) & 7)) & 1;
    return FL_OK;
}

fl_status fl_pq_plain_encode_bool(const uint8_t *values, uint32_t n, fl_pq_buf *out, fl_error *err)
{
    size_t nb = ((size_t)n + 7) / 8;
    FL_TRY(fl_buf_reserve(out, nb, err));
    uint8_t *o = out->bytes + out->len;
    memset(o, 0, nb);
    for (uint32_t i = 0; i < n; i++)
        o[i >> 3] |= (uint8_t)((values[i] != 0) << (i & 7));
    out->len += nb;
    return FL_OK;
}
