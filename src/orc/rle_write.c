/*
 * rle_write.c - ORC's run-length encoders for the writer, the inverse of
 * rle.c:
 *   byte RLE    runs of 3..130 equal bytes, literals of 1..128 bytes.
 *   booleans    8 per byte, MSB first, over byte RLE.
 *   integer v2  values are buffered 512 at a time; each block is cut into
 *               runs of equal values (SHORT_REPEAT up to 10, else DELTA with
 *               a fixed delta of 0) and the stretches between them, which go
 *               out as DELTA when they are monotonic and that is smaller,
 *               else DIRECT. PATCHED_BASE is never written (readers must
 *               accept every sub-encoding; writers may choose).
 * Widths are ORC's encodable ones (1..24, 26, 28, 30, 32, 40, 48, 56, 64);
 * a varying DELTA never uses width 1, whose code (0) means "fixed delta".
 * Deltas are computed in 128 bits: a stretch whose deltas overflow 64 bits
 * is written DIRECT.
 */
#include <string.h>

#include "orc/orc_write.h"

/* ---- byte RLE ---- */

static fl_status brle_literals(orc_brle_w *w, uint32_t n, fl_error *err)
{
    if (n == 0)
        return FL_OK;
    FL_TRY(orc_buf_byte(w->out, (uint8_t)(256 - n), err));
    FL_TRY(orc_buf_put(w->out, w->lit, n, err));
    w->n = 0;
    return FL_OK;
}

static fl_status brle_run(orc_brle_w *w, fl_error *err)
{
    FL_TRY(orc_buf_byte(w->out, (uint8_t)(w->run_len - 3), err));
    FL_TRY(orc_buf_byte(w->out, w->run_val, err));
    w->run_len = 0;
    return FL_OK;
}

/* Either a run is open (run_len >= 3 copies of run_val) or literals are
 * pending in lit[0..n); three equal literals in a row open a run. */
fl_status orc_brle_put(orc_brle_w *w, uint8_t x, fl_error *err)
{
    if (w->run_len) {
        if (x == w->run_val && w->run_len < ORC_BRLE_MAX + 2) {
            w->run_len++;
            return FL_OK;
        }
        FL_TRY(brle_run(w, err));
    }
    w->lit[w->n++] = x;
    if (w->n >= 3 && w->lit[w->n - 2] == x && w->lit[w->n - 3] == x) {
        FL_TRY(brle_literals(w, w->n - 3, err));
        w->n = 0;
        w->run_val = x;
        w->run_len = 3;
        return FL_OK;
    }
    return w->n == ORC_BRLE_MAX ? brle_literals(w, w->n, err) : FL_OK;
}

fl_status orc_brle_flush(orc_brle_w *w, fl_error *err)
{
    if (w->run_len)
        return brle_run(w, err);
    return brle_literals(w, w->n, err);
}

/* ---- booleans ---- */

fl_status orc_bool_put(orc_bool_w *w, bool x, fl_error *err)
{
    if (x)
        w->cur |= (uint8_t)(0x80u >> w->nbits);
    if (++w->nbits == 8) {
        FL_TRY(orc_brle_put(&w->r, w->cur, err));
        w->cur = 0;
        w->nbits = 0;
    }
    return FL_OK;
}

fl_status orc_bool_flush(orc_bool_w *w, fl_error *err)
{
    if (w->nbits) {
        FL_TRY(orc_brle_put(&w->r, w->cur, err));
        w->cur = 0;
        w->nbits = 0;
    }
    return orc_brle_flush(&w->r, err);
}

/* ---- integer RLE v2 ---- */

static uint32_t bits_of(uint64_t u)
{
    uint32_t n = 0;
    while (u) {
        n++;
        u >>= 1;
    }
    return n;
}

static uint32_t fixed_bits(uint32_t n)
{
    static const uint8_t wide[8] = {26, 28, 30, 32, 40, 48, 56, 64};
    if (n <= 1)
        return 1;
    if (n <= 24)
        return n;
    for (int i = 0; i < 8; i++)
        if (n <= wide[i])
            return wide[i];
    return 64;
}

static uint32_t width_code(uint32_t w)
{
    static const uint8_t wide[8] = {26, 28, 30, 32, 40, 48, 56, 64};
    if (w <= 24)
        return w - 1;
    for (uint32_t i = 0; i < 8; i++)
        if (w == wide[i])
            return 24 + i;
    return 31;
}

static uint64_t as_unsigned(const orc_irle_w *w, int64_t v)
{
    return w->is_signed ? orc_zigzag(v) : (uint64_t)v;
}

/* n values of w bits, big-endian, MSB first, padded to a byte. */
static fl_status pack(orc_buf *out, const uint64_t *u, uint32_t n, uint32_t w, fl_error *err)
{
    FL_TRY(orc_buf_reserve(out, ((size_t)n * w + 7) / 8, err));
    uint8_t cur = 0;
    uint32_t used = 0; /* bits filled in cur */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t left = w;
        while (left) {
            uint32_t t = 8 - used < left ? 8 - used : left;
            uint64_t part = (u[i] >> (left - t)) & ((1u << t) - 1);
            cur |= (uint8_t)(part << (8 - used - t));
            used += t;
            left -= t;
            if (used == 8) {
                out->p[out->len++] = cur;
                cur = 0;
                used = 0;
            }
        }
    }
    if (used)
        out->p[out->len++] = cur;
    return FL_OK;
}

static fl_status header2(orc_buf *out, uint32_t enc, uint32_t code, uint32_t n, fl_error *err)
{
    FL_TRY(orc_buf_byte(out, (uint8_t)(enc << 6 | code << 1 | ((n - 1) >> 8)), err));
    return orc_buf_byte(out, (uint8_t)((n - 1) & 0xff), err);
}

static fl_status put_base(const orc_irle_w *w, int64_t v, fl_error *err)
{
    return orc_buf_uvarint(w->out, as_unsigned(w, v), err);
}

static fl_status emit_direct(orc_irle_w *w, const int64_t *v, uint32_t n, fl_error *err)
{
    uint64_t u[ORC_IRLE_MAX], all = 0;
    for (uint32_t i = 0; i < n; i++)
        all |= u[i] = as_unsigned(w, v[i]);
    uint32_t width = fixed_bits(bits_of(all));
    FL_TRY(header2(w->out, 1, width_code(width), n, err));
    return pack(w->out, u, n, width, err);
}

static fl_status emit_repeat(orc_irle_w *w, int64_t v, uint32_t n, fl_error *err)
{
    uint64_t u = as_unsigned(w, v);
    if (n <= 10) {
        uint32_t nb = (bits_of(u) + 7) / 8;
        nb = nb ? nb : 1;
        FL_TRY(orc_buf_byte(w->out, (uint8_t)((nb - 1) << 3 | (n - 3)), err));
        for (uint32_t i = nb; i-- > 0;)
            FL_TRY(orc_buf_byte(w->out, (uint8_t)(u >> (8 * i)), err));
        return FL_OK;
    }
    FL_TRY(header2(w->out, 3, 0, n, err)); /* DELTA, fixed delta 0 */
    FL_TRY(put_base(w, v, err));
    return orc_buf_uvarint(w->out, 0, err);
}

/* DELTA when v[0..n) moves one way with 64-bit deltas and that is no larger
 * than DIRECT; *done = false leaves it to DIRECT. */
static fl_status try_delta(orc_irle_w *w, const int64_t *v, uint32_t n, bool *done, fl_error *err)
{
    *done = false;
    __int128 d0 = (__int128)v[1] - v[0];
    if (d0 == 0 || d0 > INT64_MAX || d0 < INT64_MIN)
        return FL_OK;
    uint64_t u[ORC_IRLE_MAX], all = 0, direct = 0;
    bool fixed = true;
    for (uint32_t i = 2; i < n; i++) {
        __int128 d = (__int128)v[i] - v[i - 1];
        if ((d0 > 0 && d < 0) || (d0 < 0 && d > 0) || d > INT64_MAX || d < -(__int128)INT64_MAX)
            return FL_OK;
        fixed = fixed && d == d0;
        all |= u[i - 2] = (uint64_t)(d < 0 ? -d : d);
    }
    for (uint32_t i = 0; i < n; i++)
        direct |= as_unsigned(w, v[i]);
    uint32_t width = fixed ? 0 : fixed_bits(bits_of(all));
    width = width == 1 ? 2 : width;
    uint64_t delta_bits = 2 * 8 + 2 * 80 + (uint64_t)(n - 2) * width;
    uint64_t direct_bits = 2 * 8 + (uint64_t)n * fixed_bits(bits_of(direct));
    if (delta_bits > direct_bits)
        return FL_OK;
    *done = true;
    FL_TRY(header2(w->out, 3, width ? width_code(width) : 0, n, err));
    FL_TRY(put_base(w, v[0], err));
    FL_TRY(orc_buf_uvarint(w->out, orc_zigzag((int64_t)d0), err));
    return width ? pack(w->out, u, n - 2, width, err) : FL_OK;
}

static fl_status emit_stretch(orc_irle_w *w, const int64_t *v, uint32_t n, fl_error *err)
{
    if (n == 0)
        return FL_OK;
    bool done = false;
    if (n >= 3)
        FL_TRY(try_delta(w, v, n, &done, err));
    return done ? FL_OK : emit_direct(w, v, n, err);
}

static fl_status encode_block(orc_irle_w *w, fl_error *err)
{
    const int64_t *v = w->vals;
    uint32_t n = w->n, start = 0, i = 0;
    while (i < n) {
        uint32_t r = 1;
        while (i + r < n && v[i + r] == v[i])
            r++;
        if (r < 3) {
            i += r;
            continue;
        }
        FL_TRY(emit_stretch(w, v + start, i - start, err));
        FL_TRY(emit_repeat(w, v[i], r, err));
        i += r;
        start = i;
    }
    FL_TRY(emit_stretch(w, v + start, n - start, err));
    w->n = 0;
    return FL_OK;
}

fl_status orc_irle_put(orc_irle_w *w, int64_t v, fl_error *err)
{
    w->vals[w->n++] = v;
    return w->n == ORC_IRLE_MAX ? encode_block(w, err) : FL_OK;
}

fl_status orc_irle_flush(orc_irle_w *w, fl_error *err)
{
    return w->n ? encode_block(w, err) : FL_OK;
}
