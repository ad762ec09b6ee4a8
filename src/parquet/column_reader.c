/*
 * column_reader.c - decodes the pages of one leaf column into levels and
 * dense values, then hands rows to vectors.
 *
 * A data page is decoded whole when it is loaded (page_read.c calls
 * fl_pq_col_decode_v1/v2): repetition and definition levels into uint16
 * arrays, and the non-null values, already converted to floe's physical
 * representation (types.h), into a dense buffer (fixed width: c->fixed, which
 * points straight into the page for PLAIN values that need no conversion;
 * byte arrays: c->var) or, for dictionary pages, into uint32 indices checked
 * against the dictionary size. Reading rows then only copies (or gathers
 * through the dictionary) into the output vector, spreading values over the
 * slots whose definition level says they are non-null.
 *
 * Page layout (Encodings.md, parquet.thrift):
 *   v1: [rep levels][def levels][values], all compressed together; levels
 *       are RLE with a 4-byte little-endian length prefix, or legacy
 *       BIT_PACKED (ceil(n * width / 8) bytes, no prefix);
 *   v2: rep and def levels are RLE without prefix, lengths in the header.
 * Level bit width = bit width of the max level. RLE booleans carry a 4-byte
 * length prefix; dictionary indices start with a one-byte bit width.
 *
 * Rows: a row starts at every entry with repetition level 0; flat columns
 * have one entry per row.
 */
#include <stdlib.h>
#include <string.h>

#include "parquet/encoding.h"
#include "parquet/reader_int.h"

fl_status fl_pq_col_decode_dict(fl_pq_col *c, const fl_pq_page_header *h, const uint8_t *data,
                                size_t len, fl_error *err);
fl_status fl_pq_col_decode_v1(fl_pq_col *c, const fl_pq_page_header *h, const uint8_t *data,
                              size_t len, fl_error *err);
fl_status fl_pq_col_decode_v2(fl_pq_col *c, const fl_pq_page_header *h, const uint8_t *levels,
                              const uint8_t *vals, size_t vlen, fl_error *err);

static fl_status grow(void *pp, size_t *cap, size_t need, fl_error *err)
{
    void **p = pp;
    if (need <= *cap && *p)
        return FL_OK;
    size_t nc = *cap ? *cap : 64;
    while (nc < need)
        nc *= 2;
    void *n = realloc(*p, nc);
    if (!n)
        return fl_errorf(err, FL_ENOMEM, "out of memory (%zu bytes)", nc);
    *p = n;
    *cap = nc;
    return FL_OK;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- value conversion to floe's representation ---- */

static fl_i128 be_to_i128(const uint8_t *p, size_t n)
{
    unsigned __int128 v = (n && (p[0] & 0x80)) ? ~(unsigned __int128)0 : 0;
    for (size_t i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return (fl_i128)v;
}

static fl_status bytes_to_dec(const uint8_t *p, size_t n, uint8_t *out, fl_error *err)
{
    if (n > 16) {
        uint8_t sign = (p[n - 16] & 0x80) ? 0xff : 0x00;
        for (size_t i = 0; i < n - 16; i++)
            FL_CHECK(p[i] == sign, err, FL_EOVERFLOW, "decimal of %zu bytes exceeds 128 bits", n);
        p += n - 16;
        n = 16;
    }
    fl_i128 v = be_to_i128(p, n);
    memcpy(out, &v, 16);
    return FL_OK;
}

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: normalize */
            int e = -1;
            do {
                e++;
                man <<= 1;
            } while (!(man & 0x400));
            bits = sign | (uint32_t)(127 - 15 - e) << 23 | ((man & 0x3ff) << 13);
        }
    } else {
        bits = sign | (exp + 127 - 15) << 23 | (man << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* Converts n raw fixed-width values into dst (n * out_width bytes). */
static fl_status convert_fixed(const fl_pq_leaf *leaf, const uint8_t *raw, uint32_t n, uint8_t *dst,
                               fl_error *err)
{
    size_t rw = leaf->raw_width;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *s = raw + (size_t)i * rw;
        int32_t i32;
        int64_t i64;
        uint32_t u32;
        uint64_t u64;
        fl_i128 d;
        switch (leaf->conv) {
        case FL_PQC_U32_I64:
            memcpy(&u32, s, 4);
            i64 = (int64_t)u32;
            memcpy(dst + (size_t)i * 8, &i64, 8);
            break;
        case FL_PQC_U64_DEC:
            memcpy(&u64, s, 8);
            d = (fl_i128)u64;
            memcpy(dst + (size_t)i * 16, &d, 16);
            break;
        case FL_PQC_I32_DEC:
            memcpy(&i32, s, 4);
            d = i32;
            memcpy(dst + (size_t)i * 16, &d, 16);
            break;
        case FL_PQC_I64_DEC:
            memcpy(&i64, s, 8);
            d = i64;
            memcpy(dst + (size_t)i * 16, &d, 16);
            break;
        case FL_PQC_BYTES_DEC: FL_TRY(bytes_to_dec(s, rw, dst + (size_t)i * 16, err)); break;
        case FL_PQC_I32_MS_US:
            memcpy(&i32, s, 4);
            i64 = (int64_t)i32 * 1000;
            memcpy(dst + (size_t)i * 8, &i64, 8);
            break;
        case FL_PQC_I64_MS_US:
            memcpy(&u64, s, 8);
            i64 = (int64_t)(u64 * 1000u);
            memcpy(dst + (size_t)i * 8, &i64, 8);
            break;
        case FL_PQC_I64_NS_US:
            memcpy(&i64, s, 8);
            i64 /= 1000;
            memcpy(dst + (size_t)i * 8, &i64, 8);
            break;
        case FL_PQC_INT96_NS: {
            memcpy(&u64, s, 8);
            memcpy(&i32, s + 8, 4);
            uint64_t days = (uint64_t)((int64_t)i32 - 2440588);
            i64 = (int64_t)(days * 86400000000000ull + u64);
            memcpy(dst + (size_t)i * 8, &i64, 8);
            break;
        }
        case FL_PQC_F16_F32: {
            uint16_t hv = (uint16_t)(s[0] | s[1] << 8);
            float f = half_to_float(hv);
            memcpy(dst + (size_t)i * 4, &f, 4);
            break;
        }
        default: memcpy(dst + (size_t)i * leaf->out_width, s, leaf->out_width); break;
        }
    }
    return FL_OK;
}

/* Decodes nv values of encoding enc from buf into floe form: fixed-width
 * results in *fixed (pointing into buf, c->raw_buf or c->fixed_buf), byte
 * arrays appended to var (reset first). */
static fl_status decode_values(fl_pq_col *c, fl_pq_encoding enc, const uint8_t *buf, size_t len,
                               uint32_t nv, const uint8_t **fixed, fl_vector *var, fl_error *err)
{
    const fl_pq_leaf *leaf = c->leaf;
    size_t rw = leaf->raw_width;
    size_t consumed = 0;
    if (nv == 0) { /* all-null page: nothing to decode */
        fl_vector_reset(var);
        *fixed = NULL;
        return FL_OK;
    }
    if (leaf->physical == FL_PQ_BYTE_ARRAY) {
        fl_vector *dst = leaf->conv == FL_PQC_BYTES_DEC ? &c->tmp_var : var;
        fl_vector_reset(dst);
        switch (enc) {
        case FL_PQ_ENC_PLAIN:
            FL_TRY(fl_pq_plain_decode_bytes(buf, len, nv, dst, &consumed, err));
            break;
        case FL_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
            FL_TRY(fl_pq_dlba_decode(buf, len, nv, dst, &consumed, err));
            break;
        case FL_PQ_ENC_DELTA_BYTE_ARRAY: FL_TRY(fl_pq_dba_decode(buf, len, nv, dst, err)); break;
        default:
            return fl_errorf(err, FL_EUNSUPPORTED, "encoding %d is not valid for BYTE_ARRAY",
                             (int)enc);
        }
        FL_CHECK(dst->len == nv, err, FL_ECORRUPT, "decoded %u of %u values", dst->len, nv);
        if (leaf->conv == FL_PQC_BYTES_DEC) {
            FL_TRY(grow(&c->fixed_buf, &c->fixed_cap, (size_t)nv * 16 + 16, err));
            for (uint32_t i = 0; i < nv; i++) {
                size_t l;
                const uint8_t *p = fl_vector_bytes(dst, i, &l);
                FL_TRY(bytes_to_dec(p, l, c->fixed_buf + (size_t)i * 16, err));
            }
            *fixed = c->fixed_buf;
        }
        return FL_OK;
    }
    const uint8_t *raw = NULL;
    size_t need = (size_t)nv * rw;
    switch (enc) {
    case FL_PQ_ENC_PLAIN:
        if (leaf->physical == FL_PQ_BOOLEAN) {
            FL_TRY(grow(&c->raw_buf, &c->raw_cap, need + 8, err));
            FL_TRY(fl_pq_plain_decode_bool(buf, len, 0, nv, c->raw_buf, err));
            raw = c->raw_buf;
        } else {
            FL_CHECK(need <= len, err, FL_ECORRUPT, "%u PLAIN values need %zu bytes, page has %zu",
                     nv, need, len);
            raw = buf;
        }
        break;
    case FL_PQ_ENC_RLE: {
        FL_CHECK(leaf->physical == FL_PQ_BOOLEAN, err, FL_EUNSUPPORTED,
                 "RLE value encoding is only valid for BOOLEAN");
        FL_CHECK(len >= 4 && le32(buf) <= len - 4, err, FL_ECORRUPT,
                 "RLE boolean length runs past the page");
        fl_pq_rle_decoder d;
        fl_pq_rle_init(&d, buf + 4, le32(buf), 1);
        FL_TRY(grow(&c->idx, &c->idx_cap, (size_t)nv * 4 + 4, err));
        FL_TRY(fl_pq_rle_get(&d, c->idx, nv, err));
        FL_TRY(grow(&c->raw_buf, &c->raw_cap, need + 8, err));
        for (uint32_t i = 0; i < nv; i++)
            c->raw_buf[i] = (uint8_t)(c->idx[i] & 1);
        raw = c->raw_buf;
        break;
    }
    case FL_PQ_ENC_DELTA_BINARY_PACKED:
        FL_TRY(grow(&c->raw_buf, &c->raw_cap, need + 8, err));
        if (leaf->physical == FL_PQ_INT32)
            FL_TRY(fl_pq_delta_decode_i32(buf, len, (int32_t *)(void *)c->raw_buf, nv, &consumed,
                                          err));
        else if (leaf->physical == FL_PQ_INT64)
            FL_TRY(fl_pq_delta_decode_i64(buf, len, (int64_t *)(void *)c->raw_buf, nv, &consumed,
                                          err));
        else
            return fl_errorf(err, FL_EUNSUPPORTED,
                             "DELTA_BINARY_PACKED is only valid for INT32/INT64");
        raw = c->raw_buf;
        break;
    case FL_PQ_ENC_BYTE_STREAM_SPLIT:
        FL_CHECK(leaf->physical != FL_PQ_BOOLEAN, err, FL_EUNSUPPORTED,
                 "BYTE_STREAM_SPLIT is not valid for BOOLEAN");
        FL_TRY(grow(&c->raw_buf, &c->raw_cap, need + 8, err));
        FL_TRY(fl_pq_bss_decode(buf, len, nv, rw, c->raw_buf, err));
        raw = c->raw_buf;
        break;
    case FL_PQ_ENC_DELTA_BYTE_ARRAY:
    case FL_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
        FL_CHECK(leaf->physical == FL_PQ_FIXED_LEN_BYTE_ARRAY, err, FL_EUNSUPPORTED,
                 "encoding %d is only valid for byte arrays", (int)enc);
        fl_vector_reset(&c->tmp_var);
        if (enc == FL_PQ_ENC_DELTA_BYTE_ARRAY)
            FL_TRY(fl_pq_dba_decode(buf, len, nv, &c->tmp_var, err));
        else
            FL_TRY(fl_pq_dlba_decode(buf, len, nv, &c->tmp_var, &consumed, err));
        FL_CHECK(c->tmp_var.len == nv, err, FL_ECORRUPT, "decoded %u of %u values", c->tmp_var.len,
                 nv);
        FL_TRY(grow(&c->raw_buf, &c->raw_cap, need + 8, err));
        for (uint32_t i = 0; i < nv; i++) {
            size_t l;
            const uint8_t *p = fl_vector_bytes(&c->tmp_var, i, &l);
            FL_CHECK(l == rw, err, FL_ECORRUPT, "value %u has %zu bytes, FIXED_LEN_BYTE_ARRAY(%zu)",
                     i, l, rw);
            memcpy(c->raw_buf + (size_t)i * rw, p, rw);
        }
        raw = c->raw_buf;
        break;
    default: return fl_errorf(err, FL_EUNSUPPORTED, "unsupported value encoding %d", (int)enc);
    }
    if (leaf->conv == FL_PQC_COPY || leaf->conv == FL_PQC_BOOL) {
        *fixed = raw;
        return FL_OK;
    }
    FL_TRY(grow(&c->fixed_buf, &c->fixed_cap, (size_t)nv * leaf->out_width + 16, err));
    FL_TRY(convert_fixed(leaf, raw, nv, c->fixed_buf, err));
    *fixed = c->fixed_buf;
    return FL_OK;
}

fl_status fl_pq_col_decode_dict(fl_pq_col *c, const fl_pq_page_header *h, const uint8_t *data,
                                size_t len, fl_error *err)
{
    FL_CHECK(h->num_values >= 0 && h->num_values <= (1 << 26), err, FL_ECORRUPT,
             "dictionary page claims %d values", h->num_values);
    FL_CHECK(h->encoding == FL_PQ_ENC_PLAIN || h->encoding == FL_PQ_ENC_PLAIN_DICTIONARY, err,
             FL_EUNSUPPORTED, "dictionary page encoding %d", (int)h->encoding);
    uint32_t n = (uint32_t)h->num_values;
    const uint8_t *fixed = NULL;
    FL_TRY(decode_values(c, FL_PQ_ENC_PLAIN, data, len, n, &fixed, &c->dict_var, err));
    if (c->leaf->out_width) {
        size_t bytes = (size_t)n * c->leaf->out_width;
        FL_TRY(grow(&c->dict_fixed, &c->dict_fixed_cap, bytes + 16, err));
        if (bytes)
            memcpy(c->dict_fixed, fixed, bytes);
    }
    c->dict_n = n;
    c->has_dict = true;
    c->dict_rg = c->rg;
    c->dict_leaf = c->leaf;
    return FL_OK;
}

/* Decodes n levels (max level max) in encoding enc from [*p, end), advancing *p. */
static fl_status levels_v1(fl_pq_encoding enc, const uint8_t **p, const uint8_t *end, int16_t max,
                           uint16_t *out, uint32_t n, fl_error *err)
{
    int bw = fl_pq_bit_width((uint64_t)max);
    size_t avail = (size_t)(end - *p);
    if (enc == FL_PQ_ENC_RLE) {
        FL_CHECK(avail >= 4 && le32(*p) <= avail - 4, err, FL_ECORRUPT,
                 "level run length exceeds the page");
        uint32_t l = le32(*p);
        fl_pq_rle_decoder d;
        fl_pq_rle_init(&d, *p + 4, l, bw);
        FL_TRY(fl_pq_rle_get_u16(&d, out, n, err));
        *p += 4 + (size_t)l;
        return FL_OK;
    }
    if (enc == FL_PQ_ENC_BIT_PACKED) {
        size_t bytes = ((size_t)n * (size_t)bw + 7) / 8;
        FL_CHECK(bytes <= avail, err, FL_ECORRUPT, "bit-packed levels exceed the page");
        FL_TRY(fl_pq_bitpacked_legacy_decode(*p, bytes, bw, out, n, err));
        *p += bytes;
        return FL_OK;
    }
    return fl_errorf(err, FL_EUNSUPPORTED, "level encoding %d", (int)enc);
}

static fl_status reserve_levels(fl_pq_col *c, uint32_t n, fl_error *err)
{
    if (n <= c->lev_cap && (c->leaf->max_def == 0 || c->def) && (c->leaf->max_rep == 0 || c->rep))
        return FL_OK;
    uint32_t cap = n > c->lev_cap ? n : c->lev_cap;
    if (cap < 64)
        cap = 64;
    if (c->leaf->max_def > 0) {
        uint16_t *d = realloc(c->def, (size_t)cap * 2);
        if (!d)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        c->def = d;
    }
    if (c->leaf->max_rep > 0) {
        uint16_t *r = realloc(c->rep, (size_t)cap * 2);
        if (!r)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        c->rep = r;
    }
    c->lev_cap = cap;
    return FL_OK;
}

/* Validates levels and counts non-null values; then decodes them. */
static fl_status finish_page(fl_pq_col *c, fl_pq_encoding enc, const uint8_t *vals, size_t vlen,
                             uint32_t n, fl_error *err)
{
    const fl_pq_leaf *leaf = c->leaf;
    uint32_t nv = n;
    if (leaf->max_def > 0) {
        nv = 0;
        const uint16_t *def = c->def;
        uint16_t md = (uint16_t)leaf->max_def;
        uint16_t bad = 0;
        for (uint32_t i = 0; i < n; i++) {
            nv += def[i] == md;
            bad |= (uint16_t)(def[i] > md);
        }
        FL_CHECK(!bad, err, FL_ECORRUPT, "definition level above the maximum %d", leaf->max_def);
    }
    if (leaf->max_rep > 0) {
        uint16_t mr = (uint16_t)leaf->max_rep;
        for (uint32_t i = 0; i < n; i++)
            FL_CHECK(c->rep[i] <= mr, err, FL_ECORRUPT, "repetition level %u above the maximum %d",
                     c->rep[i], leaf->max_rep);
    }
    c->pn = n;
    c->pp = 0;
    c->page_dense = leaf->max_rep == 0 && nv == n;
    c->vn = nv;
    c->vp = 0;
    c->dict_page = false;
    if (enc == FL_PQ_ENC_PLAIN_DICTIONARY || enc == FL_PQ_ENC_RLE_DICTIONARY) {
        FL_CHECK(c->has_dict, err, FL_ECORRUPT, "dictionary-encoded page without a dictionary");
        c->dict_page = true;
        FL_TRY(grow(&c->idx, &c->idx_cap, (size_t)nv * 4 + 4, err));
        if (nv == 0)
            return FL_OK;
        FL_CHECK(vlen >= 1 && vals[0] <= 32, err, FL_ECORRUPT, "bad dictionary index bit width");
        fl_pq_rle_decoder d;
        fl_pq_rle_init(&d, vals + 1, vlen - 1, vals[0]);
        FL_TRY(fl_pq_rle_get(&d, c->idx, nv, err));
        const uint32_t *ix = c->idx;
        uint32_t mx = 0;
        for (uint32_t i = 0; i < nv; i++)
            mx = ix[i] > mx ? ix[i] : mx;
        FL_CHECK(mx < c->dict_n, err, FL_ECORRUPT,
                 "dictionary index %u out of range (dictionary has %u)", mx, c->dict_n);
        return FL_OK;
    }
    c->fixed = NULL;
    return decode_values(c, enc, vals, vlen, nv, &c->fixed, &c->var, err);
}

fl_status fl_pq_col_decode_v1(fl_pq_col *c, const fl_pq_page_header *h, const uint8_t *data,
                              size_t len, fl_error *err)
{
    uint32_t n = (uint32_t)h->num_values;
    FL_TRY(reserve_levels(c, n, err));
    const uint8_t *p = data, *end = data + len;
    if (c->leaf->max_rep > 0)
        FL_TRY(levels_v1(h->repetition_level_encoding, &p, end, c->leaf->max_rep, c->rep, n, err));
    if (c->leaf->max_def > 0)
        FL_TRY(levels_v1(h->definition_level_encoding, &p, end, c->leaf->max_def, c->def, n, err));
    return finish_page(c, h->encoding, p, (size_t)(end - p), n, err);
}

fl_status fl_pq_col_decode_v2(fl_pq_col *c, const fl_pq_page_header *h, const uint8_t *levels,
                              const uint8_t *vals, size_t vlen, fl_error *err)
{
    uint32_t n = (uint32_t)h->num_values;
    FL_TRY(reserve_levels(c, n, err));
    size_t rl = (size_t)h->repetition_levels_byte_length;
    size_t dl = (size_t)h->definition_levels_byte_length;
    fl_pq_rle_decoder d;
    if (c->leaf->max_rep > 0) {
        fl_pq_rle_init(&d, levels, rl, fl_pq_bit_width((uint64_t)c->leaf->max_rep));
        FL_TRY(fl_pq_rle_get_u16(&d, c->rep, n, err));
    }
    if (c->leaf->max_def > 0) {
        fl_pq_rle_init(&d, levels + rl, dl, fl_pq_bit_width((uint64_t)c->leaf->max_def));
        FL_TRY(fl_pq_rle_get_u16(&d, c->def, n, err));
    }
    return finish_page(c, h->encoding, vals, vlen, n, err);
}

/* ---- rows out ---- */

fl_status fl_pq_levels_reserve(fl_pq_levels *lv, uint32_t extra, bool rep, fl_error *err)
{
    (void)rep;
    FL_CHECK(extra <= UINT32_MAX - lv->n, err, FL_ELIMIT, "too many level entries in one batch");
    uint32_t need = lv->n + extra;
    if (need <= lv->cap && lv->def && lv->rep)
        return FL_OK;
    uint32_t cap = lv->cap ? lv->cap : 256;
    while (cap < need)
        cap = cap > UINT32_MAX / 2 ? need : cap * 2;
    uint16_t *d = realloc(lv->def, (size_t)cap * 2);
    if (!d)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    lv->def = d;
    uint16_t *r = realloc(lv->rep, (size_t)cap * 2);
    if (!r)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    lv->rep = r;
    lv->cap = cap;
    return FL_OK;
}

void fl_pq_levels_free(fl_pq_levels *lv)
{
    if (!lv)
        return;
    free(lv->def);
    free(lv->rep);
    memset(lv, 0, sizeof *lv);
}

static inline void copy_w(uint8_t *dst, const uint8_t *src, size_t w)
{
    switch (w) {
    case 1: *dst = *src; break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 16: memcpy(dst, src, 16); break;
    default: memcpy(dst, src, w); break;
    }
}

/* Fixed-width output of entries [pp, pp+k) holding nvals values; has_nulls
 * when some slot is null (then def levels exist and validity is allocated). */
static void emit_fixed(fl_pq_col *c, uint32_t k, uint32_t nvals, fl_vector *out, uint32_t base,
                       bool has_nulls)
{
    size_t w = c->leaf->out_width;
    uint8_t *dst = out->data + (size_t)base * w;
    const uint16_t *def = c->def ? c->def + c->pp : NULL;
    uint16_t md = (uint16_t)c->leaf->max_def, sd = (uint16_t)c->slot_def;
    const uint32_t *idx = c->dict_page ? c->idx + c->vp : NULL;
    const uint8_t *dict = c->dict_fixed;
    if (nvals == 0) { /* null slots only */
        uint32_t s = 0;
        for (uint32_t i = 0; i < k; i++)
            if (!def || def[i] >= sd)
                fl_bitmap_set(out->validity, base + s++, false);
        memset(dst, 0, (size_t)s * w);
        return;
    }
    if (!has_nulls) {
        if (!idx) {
            memcpy(dst, c->fixed + (size_t)c->vp * w, (size_t)nvals * w);
        } else if (w == 4) {
            for (uint32_t i = 0; i < nvals; i++)
                memcpy(dst + (size_t)i * 4, dict + (size_t)idx[i] * 4, 4);
        } else if (w == 8) {
            for (uint32_t i = 0; i < nvals; i++)
                memcpy(dst + (size_t)i * 8, dict + (size_t)idx[i] * 8, 8);
        } else {
            for (uint32_t i = 0; i < nvals; i++)
                copy_w(dst + (size_t)i * w, dict + (size_t)idx[i] * w, w);
        }
        c->vp += nvals;
        return;
    }
    const uint8_t *src = idx ? NULL : c->fixed + (size_t)c->vp * w;
    uint32_t s = 0, v = 0;
    for (uint32_t i = 0; i < k; i++) {
        if (def[i] < sd)
            continue;
        if (def[i] == md) {
            copy_w(dst + (size_t)s * w, idx ? dict + (size_t)idx[v] * w : src + (size_t)v * w, w);
            v++;
            fl_bitmap_set(out->validity, base + s, true);
        } else {
            memset(dst + (size_t)s * w, 0, w);
            fl_bitmap_set(out->validity, base + s, false);
        }
        s++;
    }
    c->vp += v;
}

static fl_status emit_var(fl_pq_col *c, uint32_t k, uint32_t nvals, fl_vector *out, uint32_t base,
                          bool has_nulls, fl_error *err)
{
    const uint16_t *def = c->def ? c->def + c->pp : NULL;
    uint16_t md = (uint16_t)c->leaf->max_def, sd = (uint16_t)c->slot_def;
    const fl_vector *src = c->dict_page ? &c->dict_var : &c->var;
    const uint32_t *idx = c->dict_page ? c->idx + c->vp : NULL;
    size_t bytes = 0;
    if (nvals == 0) { /* only null (or, for nested leaves, no) slots */
        FL_TRY(fl_vector_reserve_heap(out, 0, err));
        int64_t at0 = (int64_t)out->heap_len;
        out->offsets[base] = at0;
        uint32_t s = 0;
        for (uint32_t i = 0; i < k; i++) {
            if (def && def[i] < sd)
                continue;
            if (has_nulls)
                fl_bitmap_set(out->validity, base + s, false);
            out->offsets[base + s + 1] = at0;
            s++;
        }
        return FL_OK;
    }
    if (idx) {
        for (uint32_t j = 0; j < nvals; j++)
            bytes += (size_t)(src->offsets[idx[j] + 1] - src->offsets[idx[j]]);
    } else {
        bytes = (size_t)(src->offsets[c->vp + nvals] - src->offsets[c->vp]);
    }
    FL_TRY(fl_vector_reserve_heap(out, bytes, err));
    int64_t *off = out->offsets;
    off[base] = (int64_t)out->heap_len;
    uint8_t *heap = out->heap;
    int64_t at = (int64_t)out->heap_len;
    if (!idx) {
        int64_t b0 = src->offsets[c->vp];
        if (bytes)
            memcpy(heap + at, src->heap + b0, bytes);
        const int64_t *so = src->offsets + c->vp;
        int64_t delta = at - b0;
        if (!has_nulls) {
            for (uint32_t s = 0; s < nvals; s++)
                off[base + s + 1] = so[s + 1] + delta;
        } else {
            uint32_t s = 0, v = 0;
            for (uint32_t i = 0; i < k; i++) {
                if (def[i] < sd)
                    continue;
                bool valid = def[i] == md;
                v += valid;
                off[base + s + 1] = so[v] + delta;
                fl_bitmap_set(out->validity, base + s, valid);
                s++;
            }
        }
    } else if (!has_nulls) {
        for (uint32_t j = 0; j < nvals; j++) {
            uint32_t d = idx[j];
            size_t l = (size_t)(src->offsets[d + 1] - src->offsets[d]);
            memcpy(heap + at, src->heap + src->offsets[d], l);
            at += (int64_t)l;
            off[base + j + 1] = at;
        }
    } else {
        uint32_t s = 0, v = 0;
        for (uint32_t i = 0; i < k; i++) {
            if (def[i] < sd)
                continue;
            bool valid = def[i] == md;
            if (valid) {
                uint32_t d = idx[v++];
                size_t l = (size_t)(src->offsets[d + 1] - src->offsets[d]);
                memcpy(heap + at, src->heap + src->offsets[d], l);
                at += (int64_t)l;
            }
            fl_bitmap_set(out->validity, base + s, valid);
            off[base + s + 1] = at;
            s++;
        }
    }
    out->heap_len += bytes;
    c->vp += nvals;
    return FL_OK;
}

/* Emits entries [pp, pp+k) to out (NULL = skip) and lv. */
static fl_status emit(fl_pq_col *c, uint32_t k, fl_vector *out, fl_pq_levels *lv, fl_error *err)
{
    const fl_pq_leaf *leaf = c->leaf;
    uint32_t nvals = k, nslots = k;
    if (c->def && !c->page_dense) {
        const uint16_t *def = c->def + c->pp;
        uint16_t md = (uint16_t)leaf->max_def, sd = (uint16_t)c->slot_def;
        nvals = nslots = 0;
        for (uint32_t i = 0; i < k; i++) {
            nvals += def[i] == md;
            nslots += def[i] >= sd;
        }
    }
    FL_CHECK(nvals <= c->vn - c->vp, err, FL_ECORRUPT, "page has fewer values than levels");
    if (!out) {
        c->vp += nvals;
        c->pp += k;
        return FL_OK;
    }
    if (lv) {
        FL_TRY(fl_pq_levels_reserve(lv, k, true, err));
        if (c->def)
            memcpy(lv->def + lv->n, c->def + c->pp, (size_t)k * 2);
        else
            memset(lv->def + lv->n, 0, (size_t)k * 2);
        if (c->rep)
            memcpy(lv->rep + lv->n, c->rep + c->pp, (size_t)k * 2);
        else
            memset(lv->rep + lv->n, 0, (size_t)k * 2);
        lv->n += k;
    }
    if (nslots == 0) { /* every entry belongs to a null or empty ancestor */
        c->vp += nvals;
        c->pp += k;
        return FL_OK;
    }
    uint32_t base = out->len;
    FL_CHECK(nslots <= UINT32_MAX - base, err, FL_ELIMIT, "too many values in one batch");
    FL_TRY(fl_vector_reserve(out, base + nslots, err));
    bool nulls = nvals < nslots;
    if (nulls && !out->validity)
        FL_TRY(fl_vector_ensure_validity(out, err));
    if (out->validity && !nulls) {
        for (uint32_t s = 0; s < nslots; s++)
            fl_bitmap_set(out->validity, base + s, true);
    }
    if (leaf->out_width)
        emit_fixed(c, k, nvals, out, base, nulls);
    else
        FL_TRY(emit_var(c, k, nvals, out, base, nulls, err));
    out->len = base + nslots;
    c->pp += k;
    return FL_OK;
}

/* Consumes up to *want rows from the current page: returns entries k. */
static fl_status take_rows(fl_pq_col *c, uint32_t *want, uint32_t *got, uint32_t *k, fl_error *err)
{
    uint32_t avail = c->pn - c->pp;
    if (!c->rep) {
        uint32_t n = avail < *want ? avail : *want;
        *k = n;
        *want -= n;
        *got += n;
        return FL_OK;
    }
    const uint16_t *rep = c->rep + c->pp;
    uint32_t i = 0;
    for (; i < avail; i++) {
        if (rep[i] == 0) {
            if (*want == 0)
                break;
            (*want)--;
            (*got)++;
            c->in_row = true;
        } else if (!c->in_row) {
            return fl_errorf(err, FL_ECORRUPT,
                             "column chunk starts inside a row (repetition level %u)", rep[i]);
        }
    }
    *k = i;
    return FL_OK;
}

static fl_status rows_loop(fl_pq_col *c, uint32_t rows, fl_vector *out, fl_pq_levels *lv,
                           uint32_t *got_out, fl_error *err)
{
    uint32_t want = rows, got = 0;
    for (;;) {
        if (c->pp >= c->pn) {
            if (want == 0 && (!c->rep || c->oi))
                break;
            bool eof;
            FL_TRY(fl_pq_col_next_page(c, &eof, err));
            if (eof)
                break;
            if (want == 0 && c->pn > 0 && c->rep[0] == 0)
                break;
            continue;
        }
        uint32_t k = 0;
        fl_status st = take_rows(c, &want, &got, &k, err);
        if (st == FL_OK)
            st = emit(c, k, out, lv, err);
        if (st != FL_OK)
            return fl_pq_col_error(c, err);
        if (c->pp < c->pn && want == 0)
            break;
    }
    *got_out = got;
    return FL_OK;
}

fl_status fl_pq_col_read(fl_pq_col *c, uint32_t rows, fl_vector *out, fl_pq_levels *lv,
                         uint32_t *got, fl_error *err)
{
    return rows_loop(c, rows, out, lv, got, err);
}

fl_status fl_pq_col_skip(fl_pq_col *c, int64_t rows, fl_error *err)
{
    if (rows > 0 && c->pp >= c->pn)
        FL_TRY(fl_pq_col_pass_leading(c, err));
    while (rows > 0) {
        if (c->pp >= c->pn && c->oi && c->next_page < c->oi->npages) {
            const fl_pq_page_location *l = &c->oi->page_locations[c->next_page];
            int64_t next_first = c->next_page + 1 < c->oi->npages
                                     ? c->oi->page_locations[c->next_page + 1].first_row_index
                                     : c->rg_rows;
            int64_t page_rows = next_first - l->first_row_index;
            /* A dictionary page in front of page 0 is read by the normal path. */
            if ((uint64_t)l->offset == c->pos && page_rows <= rows) {
                fl_pq_col_skip_page(c);
                rows -= page_rows;
                continue;
            }
        }
        uint32_t chunk = rows > (1 << 30) ? (1u << 30) : (uint32_t)rows, got = 0;
        FL_TRY(rows_loop(c, chunk, NULL, NULL, &got, err));
        if (got == 0)
            return fl_errorf(err, FL_ECORRUPT, "column '%s': fewer rows than the row group claims",
                             c->leaf->path);
        rows -= got;
    }
    return FL_OK;
}
