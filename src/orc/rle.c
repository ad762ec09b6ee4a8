/*
 * rle.c - ORC's run-length encodings, from the specification:
 *   byte RLE    control byte c: c < 128 is a run of c + 3 copies of the next
 *               byte, else 256 - c literal bytes follow.
 *   booleans    byte RLE over bytes holding 8 booleans each, MSB first.
 *   integer v1  c < 128: run of c + 3 values, a signed delta byte, a base
 *               varint; else 256 - c literal varints. Signed values zigzag.
 *   integer v2  the top two bits of the first byte pick SHORT_REPEAT, DIRECT,
 *               PATCHED_BASE or DELTA; values are big-endian bit-packed.
 * A decoder decodes one whole run (at most 512 values) into vals[] and
 * serves it value by value. Arithmetic wraps in uint64 (a corrupt delta
 * cannot overflow signed integers).
 */
#include <string.h>

#include "orc/orc_int.h"

fl_status orc_bytes_err(const orc_bytes *b, const char *what, fl_error *err)
{
    return fl_errorf(err, FL_ECORRUPT, "%s: %s at stream offset %zu",
                     b->label ? b->label : "stream", what, b->pos);
}

static fl_status take(orc_bytes *b, uint8_t *out, fl_error *err)
{
    if (b->pos >= b->len)
        return orc_bytes_err(b, "unexpected end of stream", err);
    *out = b->p[b->pos++];
    return FL_OK;
}

fl_status orc_read_uvarint(orc_bytes *b, uint64_t *out, fl_error *err)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        uint8_t byte = 0;
        FL_TRY(take(b, &byte, err));
        if (shift == 63 && (byte & 0x7e))
            return orc_bytes_err(b, "varint overflows 64 bits", err);
        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *out = v;
            return FL_OK;
        }
    }
    return orc_bytes_err(b, "varint longer than 10 bytes", err);
}

/* ---- byte RLE and booleans ---- */

fl_status orc_brle_next(orc_brle *d, uint8_t *out, fl_error *err)
{
    if (d->left == 0) {
        uint8_t c = 0;
        FL_TRY(take(&d->b, &c, err));
        if (c < 128) {
            d->left = (uint32_t)c + 3;
            d->literal = false;
            FL_TRY(take(&d->b, &d->value, err));
        } else {
            d->left = 256u - c;
            d->literal = true;
        }
    }
    d->left--;
    if (d->literal)
        return take(&d->b, out, err);
    *out = d->value;
    return FL_OK;
}

fl_status orc_bool_next(orc_bool *d, bool *out, fl_error *err)
{
    if (d->nbits == 0) {
        FL_TRY(orc_brle_next(&d->r, &d->cur, err));
        d->nbits = 8;
    }
    d->nbits--;
    *out = (d->cur >> d->nbits) & 1;
    return FL_OK;
}

/* ---- integer RLE v1 ---- */

static fl_status signed_varint(orc_irle *d, int64_t *out, fl_error *err)
{
    uint64_t u = 0;
    FL_TRY(orc_read_uvarint(&d->b, &u, err));
    *out = d->is_signed ? orc_unzigzag(u) : (int64_t)u;
    return FL_OK;
}

static fl_status rle_v1(orc_irle *d, fl_error *err)
{
    uint8_t c = 0;
    FL_TRY(take(&d->b, &c, err));
    if (c < 128) {
        uint8_t delta = 0;
        int64_t base = 0;
        FL_TRY(take(&d->b, &delta, err));
        FL_TRY(signed_varint(d, &base, err));
        d->n = (uint32_t)c + 3;
        for (uint32_t i = 0; i < d->n; i++)
            d->vals[i] = (int64_t)((uint64_t)base + (uint64_t)(int64_t)(int8_t)delta * i);
    } else {
        d->n = 256u - c;
        for (uint32_t i = 0; i < d->n; i++)
            FL_TRY(signed_varint(d, &d->vals[i], err));
    }
    return FL_OK;
}

/* ---- integer RLE v2 ---- */

static uint32_t decode_width(uint32_t fbo)
{
    static const uint8_t wide[8] = {26, 28, 30, 32, 40, 48, 56, 64};
    return fbo < 24 ? fbo + 1 : wide[fbo - 24];
}

static uint32_t closest_fixed_bits(uint32_t n)
{
    if (n == 0)
        return 1;
    if (n <= 24)
        return n;
    static const uint8_t wide[8] = {26, 28, 30, 32, 40, 48, 56, 64};
    for (int i = 0; i < 8; i++)
        if (n <= wide[i])
            return wide[i];
    return 64;
}

/* n values of w bits (1..64), big-endian, MSB first; the group ends on a byte. */
static fl_status unpack(orc_bytes *b, uint32_t w, uint32_t n, uint64_t *out, fl_error *err)
{
    uint64_t bits = (uint64_t)w * n;
    size_t nbytes = (size_t)((bits + 7) / 8);
    if (nbytes > b->len - b->pos)
        return orc_bytes_err(b, "bit-packed run runs past the stream", err);
    const uint8_t *p = b->p + b->pos;
    uint32_t have = 0; /* bits left in cur */
    uint8_t cur = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = 0;
        uint32_t need = w;
        while (need) {
            if (have == 0) {
                cur = *p++;
                have = 8;
            }
            uint32_t t = need < have ? need : have;
            v = (t == 64 ? 0 : v << t) | ((uint64_t)(cur >> (have - t)) & ((1u << t) - 1));
            have -= t;
            need -= t;
        }
        out[i] = v;
    }
    b->pos += nbytes;
    return FL_OK;
}

static fl_status be_bytes(orc_bytes *b, uint32_t nb, uint64_t *out, fl_error *err)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < nb; i++) {
        uint8_t x = 0;
        FL_TRY(take(b, &x, err));
        v = (v << 8) | x;
    }
    *out = v;
    return FL_OK;
}

static int64_t maybe_unzigzag(const orc_irle *d, uint64_t u)
{
    return d->is_signed ? orc_unzigzag(u) : (int64_t)u;
}

static fl_status v2_short_repeat(orc_irle *d, uint8_t c, fl_error *err)
{
    uint32_t w = ((c >> 3) & 7) + 1;
    uint64_t u = 0;
    FL_TRY(be_bytes(&d->b, w, &u, err));
    d->n = (uint32_t)(c & 7) + 3;
    int64_t v = maybe_unzigzag(d, u);
    for (uint32_t i = 0; i < d->n; i++)
        d->vals[i] = v;
    return FL_OK;
}

static fl_status v2_header_len(orc_irle *d, uint8_t c, uint32_t *len, fl_error *err)
{
    uint8_t lo = 0;
    FL_TRY(take(&d->b, &lo, err));
    *len = (((uint32_t)c & 1) << 8 | lo) + 1;
    return FL_OK;
}

static fl_status v2_direct(orc_irle *d, uint8_t c, fl_error *err)
{
    uint32_t w = decode_width((c >> 1) & 0x1f), len;
    FL_TRY(v2_header_len(d, c, &len, err));
    uint64_t u[ORC_RLE_MAX];
    FL_TRY(unpack(&d->b, w, len, u, err));
    for (uint32_t i = 0; i < len; i++)
        d->vals[i] = maybe_unzigzag(d, u[i]);
    d->n = len;
    return FL_OK;
}

static fl_status v2_patched(orc_irle *d, uint8_t c, fl_error *err)
{
    uint32_t w = decode_width((c >> 1) & 0x1f), len;
    FL_TRY(v2_header_len(d, c, &len, err));
    uint8_t b3 = 0, b4 = 0;
    FL_TRY(take(&d->b, &b3, err));
    FL_TRY(take(&d->b, &b4, err));
    uint32_t bw = ((b3 >> 5) & 7) + 1, pw = decode_width(b3 & 0x1f);
    uint32_t pgw = ((b4 >> 5) & 7) + 1, pll = b4 & 0x1f;
    if (pw + pgw > 64 || w + pw > 64)
        return orc_bytes_err(&d->b, "patched-base widths exceed 64 bits", err);
    uint64_t ubase = 0;
    FL_TRY(be_bytes(&d->b, bw, &ubase, err));
    uint64_t sign = (uint64_t)1 << (bw * 8 - 1);
    int64_t base = (ubase & sign) ? -(int64_t)(ubase & ~sign) : (int64_t)ubase;
    uint64_t u[ORC_RLE_MAX], patches[32];
    FL_TRY(unpack(&d->b, w, len, u, err));
    FL_TRY(unpack(&d->b, closest_fixed_bits(pw + pgw), pll, patches, err));
    uint64_t pmask = pw == 64 ? ~(uint64_t)0 : ((uint64_t)1 << pw) - 1;
    uint64_t pos = 0;
    for (uint32_t k = 0; k < pll; k++) {
        uint64_t gap = pw == 64 ? 0 : patches[k] >> pw, patch = patches[k] & pmask;
        pos += gap;
        if (gap == 255 && patch == 0)
            continue; /* a gap longer than 255: only advances */
        if (pos >= len)
            return orc_bytes_err(&d->b, "patch position beyond the run", err);
        u[pos] |= patch << w;
    }
    for (uint32_t i = 0; i < len; i++)
        d->vals[i] = (int64_t)((uint64_t)base + u[i]);
    d->n = len;
    return FL_OK;
}

static fl_status v2_delta(orc_irle *d, uint8_t c, fl_error *err)
{
    uint32_t fbo = (c >> 1) & 0x1f, w = fbo ? decode_width(fbo) : 0, len;
    FL_TRY(v2_header_len(d, c, &len, err));
    int64_t base = 0;
    uint64_t ud = 0;
    FL_TRY(signed_varint(d, &base, err));
    FL_TRY(orc_read_uvarint(&d->b, &ud, err));
    int64_t delta = orc_unzigzag(ud);
    d->vals[0] = base;
    if (len >= 2)
        d->vals[1] = (int64_t)((uint64_t)base + (uint64_t)delta);
    if (len > 2 && w == 0) {
        for (uint32_t i = 2; i < len; i++)
            d->vals[i] = (int64_t)((uint64_t)d->vals[i - 1] + (uint64_t)delta);
    } else if (len > 2) {
        uint64_t u[ORC_RLE_MAX];
        FL_TRY(unpack(&d->b, w, len - 2, u, err));
        for (uint32_t i = 2; i < len; i++) {
            uint64_t prev = (uint64_t)d->vals[i - 1];
            d->vals[i] = (int64_t)(delta < 0 ? prev - u[i - 2] : prev + u[i - 2]);
        }
    }
    d->n = len;
    return FL_OK;
}

static fl_status rle_v2(orc_irle *d, fl_error *err)
{
    uint8_t c = 0;
    FL_TRY(take(&d->b, &c, err));
    switch (c >> 6) {
    case 0: return v2_short_repeat(d, c, err);
    case 1: return v2_direct(d, c, err);
    case 2: return v2_patched(d, c, err);
    default: return v2_delta(d, c, err);
    }
}

fl_status orc_irle_next(orc_irle *d, int64_t *out, fl_error *err)
{
    if (d->i >= d->n) {
        d->i = d->n = 0;
        FL_TRY(d->version == 1 ? rle_v1(d, err) : rle_v2(d, err));
    }
    *out = d->vals[d->i++];
    return FL_OK;
}
