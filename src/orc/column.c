/*
 * column.c - decoding ORC column streams into floe vectors.
 *
 *   boolean          DATA: booleans
 *   tinyint          DATA: byte RLE (sign-extended)
 *   smallint..bigint DATA: integer RLE, signed; date the same (days)
 *   float, double    DATA: IEEE 754 little endian
 *   string/varchar/  DIRECT: LENGTH (unsigned RLE) + DATA bytes
 *   char, binary     DICTIONARY: DATA = indices (unsigned RLE) into
 *                    DICTIONARY_DATA cut by LENGTH (dictionary_size entries)
 *   decimal          DATA: signed base-128 varints (up to 128 bits),
 *                    SECONDARY: each value's scale (signed RLE); in files of
 *                    version 1.9999 (UNSTABLE-PRE-2.0) a decimal of precision
 *                    <= 18 is DATA only: unscaled values in signed RLE v2
 *   timestamp        DATA: seconds since 2015-01-01 00:00:00 (signed RLE),
 *                    SECONDARY: nanos (RLE, read as signed; the low 3 bits z say
 *                    the value was divided by 10^(z+1))
 *   struct           children; list/map: LENGTH (unsigned RLE) + children
 * Every column may have PRESENT (booleans, 1 = not null); absent = no nulls.
 * The RLE version follows the column encoding (DIRECT/DICTIONARY -> v1,
 * DIRECT_V2/DICTIONARY_V2 -> v2).
 */
#include <stdlib.h>
#include <string.h>

#include "orc/column.h"

#define ORC_EPOCH_2015 1420070400LL
#define MAX_CHILD_ROWS (16u << 20) /* list/map elements per batch */

void orc_col_clear(orc_col *c)
{
    for (int k = 0; k < ORC_S__COUNT; k++) {
        free(c->buf[k]);
        c->buf[k] = NULL;
        c->buf_len[k] = 0;
    }
    free(c->dict_off);
    c->dict_off = NULL;
    c->has_present = false;
}

static orc_bytes window(orc_col *c, int k)
{
    return (orc_bytes){.p = c->buf[k] ? c->buf[k] : (const uint8_t *)"",
                       .len = c->buf_len[k],
                       .label = c->label[k]};
}

static fl_status new_irle(orc_col *c, int k, bool is_signed, orc_irle **out, fl_error *err)
{
    if (!*out && !(*out = malloc(sizeof **out)))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    memset(*out, 0, offsetof(orc_irle, vals));
    (*out)->b = window(c, k);
    (*out)->version = c->enc == ORC_ENC_DIRECT_V2 || c->enc == ORC_ENC_DICTIONARY_V2 ? 2 : 1;
    (*out)->is_signed = is_signed;
    return FL_OK;
}

static bool is_dict(const orc_col *c)
{
    return c->enc == ORC_ENC_DICTIONARY || c->enc == ORC_ENC_DICTIONARY_V2;
}

static fl_status load_dict(orc_col *c, fl_error *err)
{
    /* an RLE byte yields at most ~128 values: bounds the allocation */
    if (c->dict_size > 128 * (uint64_t)c->buf_len[ORC_S_LENGTH] + 512)
        return fl_errorf(err, FL_ECORRUPT,
                         "%s: dictionary of %u entries cannot fit its %zu-byte LENGTH stream",
                         c->label[ORC_S_LENGTH], c->dict_size, c->buf_len[ORC_S_LENGTH]);
    c->dict_off = malloc(((size_t)c->dict_size + 1) * sizeof *c->dict_off);
    if (!c->dict_off)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    c->dict_off[0] = 0;
    for (uint32_t i = 0; i < c->dict_size; i++) {
        int64_t l = 0;
        FL_TRY(orc_irle_next(c->lens, &l, err));
        if (l < 0 || (uint64_t)l > c->buf_len[ORC_S_DICT] - (uint64_t)c->dict_off[i])
            return fl_errorf(err, FL_ECORRUPT,
                             "%s: dictionary entry %u (length %lld) runs past the %zu-byte "
                             "dictionary",
                             c->label[ORC_S_LENGTH], i, (long long)l, c->buf_len[ORC_S_DICT]);
        c->dict_off[i + 1] = c->dict_off[i] + l;
    }
    return FL_OK;
}

fl_status orc_col_start(orc_col *c, fl_error *err)
{
    c->has_present = c->buf[ORC_S_PRESENT] != NULL;
    memset(&c->present, 0, sizeof c->present);
    c->present.r.b = window(c, ORC_S_PRESENT);
    switch (c->ot->kind) {
    case FL_ORC_BOOLEAN:
        memset(&c->bools, 0, sizeof c->bools);
        c->bools.r.b = window(c, ORC_S_DATA);
        break;
    case FL_ORC_BYTE:
        memset(&c->bytes, 0, sizeof c->bytes);
        c->bytes.b = window(c, ORC_S_DATA);
        break;
    case FL_ORC_SHORT:
    case FL_ORC_INT:
    case FL_ORC_LONG:
    case FL_ORC_DATE: return new_irle(c, ORC_S_DATA, true, &c->ints, err);
    case FL_ORC_FLOAT:
    case FL_ORC_DOUBLE: c->data = window(c, ORC_S_DATA); break;
    case FL_ORC_STRING:
    case FL_ORC_VARCHAR:
    case FL_ORC_CHAR:
    case FL_ORC_BINARY:
        FL_TRY(new_irle(c, ORC_S_LENGTH, false, &c->lens, err));
        if (!is_dict(c)) {
            c->data = window(c, ORC_S_DATA);
            break;
        }
        if (c->ot->kind == FL_ORC_BINARY)
            return fl_errorf(err, FL_ECORRUPT, "%s: binary column with a dictionary encoding",
                             c->label[ORC_S_DATA]);
        FL_TRY(new_irle(c, ORC_S_DATA, false, &c->ints, err));
        return load_dict(c, err);
    case FL_ORC_DECIMAL:
        if (c->decimal_as_long) {
            FL_TRY(new_irle(c, ORC_S_DATA, true, &c->ints, err));
            c->ints->version = 2;
            return FL_OK;
        }
        c->data = window(c, ORC_S_DATA);
        return new_irle(c, ORC_S_SECONDARY, true, &c->secs, err);
    case FL_ORC_TIMESTAMP:
    case FL_ORC_TIMESTAMP_INSTANT:
        FL_TRY(new_irle(c, ORC_S_DATA, true, &c->ints, err));
        return new_irle(c, ORC_S_SECONDARY, false, &c->secs, err);
    case FL_ORC_LIST:
    case FL_ORC_MAP: return new_irle(c, ORC_S_LENGTH, false, &c->lens, err);
    default: break;
    }
    return FL_OK;
}

/* ---- rows ---- */

static fl_status read_present(orc_col *c, uint32_t n, const uint8_t *pmask, bool *any_null,
                              fl_error *err)
{
    if (n > c->pres_cap) {
        uint8_t *np = realloc(c->pres, n);
        if (!np)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        c->pres = np;
        c->pres_cap = n;
    }
    *any_null = false;
    for (uint32_t i = 0; i < n; i++) {
        bool p = !pmask || pmask[i];
        if (p && c->has_present)
            FL_TRY(orc_bool_next(&c->present, &p, err));
        c->pres[i] = p;
        *any_null |= !p;
    }
    return FL_OK;
}

static fl_status read_le(orc_col *c, uint8_t *dst, size_t w, fl_error *err)
{
    if (c->data.len - c->data.pos < w)
        return orc_bytes_err(&c->data, "unexpected end of stream", err);
    memcpy(dst, c->data.p + c->data.pos, w); /* floe vectors are little-endian too */
    c->data.pos += w;
    return FL_OK;
}

static fl_status read_varint128(orc_col *c, fl_i128 *out, fl_error *err)
{
    unsigned __int128 u = 0;
    for (int shift = 0;; shift += 7) {
        if (shift > 126)
            return orc_bytes_err(&c->data, "decimal varint longer than 128 bits", err);
        if (c->data.pos >= c->data.len)
            return orc_bytes_err(&c->data, "unexpected end of stream", err);
        uint8_t b = c->data.p[c->data.pos++];
        u |= (unsigned __int128)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
    }
    *out = (fl_i128)(u >> 1) ^ -(fl_i128)(u & 1);
    return FL_OK;
}

static fl_i128 pow10_128(int e)
{
    fl_i128 p = 1;
    while (e-- > 0)
        p *= 10;
    return p;
}

static fl_status decimal_value(orc_col *c, uint8_t *dst, fl_error *err)
{
    fl_i128 v = 0;
    int64_t s = 0;
    if (c->decimal_as_long) {
        int64_t x = 0;
        FL_TRY(orc_irle_next(c->ints, &x, err));
        v = x;
        memcpy(dst, &v, sizeof v);
        return FL_OK;
    }
    FL_TRY(read_varint128(c, &v, err));
    FL_TRY(orc_irle_next(c->secs, &s, err));
    int64_t want = c->ft->scale;
    if (s < -38 || s > 76 || s - want > 38 || want - s > 38)
        return orc_bytes_err(&c->secs->b, "decimal scale out of range", err);
    if (s < want)
        v = (fl_i128)((unsigned __int128)v * (unsigned __int128)pow10_128((int)(want - s)));
    else if (s > want)
        v /= pow10_128((int)(s - want));
    memcpy(dst, &v, sizeof v);
    return FL_OK;
}

/* Timestamps: DATA holds seconds from 2015-01-01 (signed), SECONDARY the
 * nanos with trailing decimal zeros removed (low 3 bits z: z + 1 zeros, or
 * none when z = 0). Java writers store nanos in 0..999999999 and truncate
 * negative seconds toward zero, so readers subtract one second when the
 * seconds are negative and nanos > 999999 (the rule of the ORC readers).
 * Arrow's writer (pyarrow) stores truncated seconds with negative nanos
 * instead; the encoded nanos are read as signed (an arithmetic shift, as the
 * C++ reader does), so both forms decode to secs * 10^9 + nanos. TIMESTAMP
 * (not TIMESTAMP_INSTANT) seconds count in the writer's time zone (tz.c). */
static fl_status timestamp_value(orc_col *c, uint8_t *dst, fl_error *err)
{
    int64_t secs = 0, enc = 0;
    FL_TRY(orc_irle_next(c->ints, &secs, err));
    FL_TRY(orc_irle_next(c->secs, &enc, err));
    int64_t nanos = enc >> 3; /* arithmetic: a negative nanos field stays negative */
    for (uint32_t z = (uint32_t)enc & 7, k = z ? z + 1 : 0; k > 0 && nanos; k--) {
        if (nanos > 999999999 || nanos < -999999999)
            break;
        nanos *= 10;
    }
    if (nanos > 999999999 || nanos < -999999999)
        return orc_bytes_err(&c->secs->b, "timestamp nanoseconds out of range", err);
    if (c->tz && !c->tz->utc) { /* the writer's wall clock (tz.c) */
        int64_t t = (int64_t)((uint64_t)secs + (uint64_t)c->tz->epoch);
        secs = (int64_t)((uint64_t)t + (uint64_t)(int64_t)orc_tz_offset(c->tz, t));
    } else {
        secs = (int64_t)((uint64_t)secs + (uint64_t)ORC_EPOCH_2015);
    }
    if (secs < 0 && nanos > 999999)
        secs--;
    /* in 128 bits: corrupt seconds cannot overflow; the result wraps like int64 */
    fl_i128 ns = (fl_i128)secs * 1000000000 + nanos;
    bool micros = c->ft->id == FL_TYPE_TIMESTAMP || c->ft->id == FL_TYPE_TIMESTAMPTZ;
    if (micros) /* floor division: -1 ns is the microsecond before the epoch */
        ns = ns / 1000 - (ns % 1000 < 0);
    int64_t v = (int64_t)(uint64_t)(unsigned __int128)ns;
    memcpy(dst, &v, sizeof v);
    return FL_OK;
}

static fl_status int_value(orc_col *c, uint8_t *dst, fl_error *err)
{
    int64_t v = 0;
    FL_TRY(orc_irle_next(c->ints, &v, err));
    if (c->ft->id == FL_TYPE_INT32 || c->ft->id == FL_TYPE_DATE) {
        int32_t x = (int32_t)v;
        memcpy(dst, &x, 4);
    } else {
        memcpy(dst, &v, 8);
    }
    return FL_OK;
}

/* One fixed-width value of a present row. */
static fl_status fixed_value(orc_col *c, uint8_t *dst, fl_error *err)
{
    switch (c->ot->kind) {
    case FL_ORC_BOOLEAN: {
        bool b = false;
        FL_TRY(orc_bool_next(&c->bools, &b, err));
        *dst = b;
        return FL_OK;
    }
    case FL_ORC_BYTE: {
        uint8_t b = 0;
        FL_TRY(orc_brle_next(&c->bytes, &b, err));
        int32_t x = (int8_t)b;
        memcpy(dst, &x, 4);
        return FL_OK;
    }
    case FL_ORC_FLOAT: return read_le(c, dst, 4, err);
    case FL_ORC_DOUBLE: return read_le(c, dst, 8, err);
    case FL_ORC_DECIMAL: return decimal_value(c, dst, err);
    case FL_ORC_TIMESTAMP:
    case FL_ORC_TIMESTAMP_INSTANT: return timestamp_value(c, dst, err);
    default: return int_value(c, dst, err);
    }
}

/* The bytes of one present string/binary row. */
static fl_status bytes_value(orc_col *c, const uint8_t **p, size_t *len, fl_error *err)
{
    int64_t x = 0;
    if (is_dict(c)) {
        FL_TRY(orc_irle_next(c->ints, &x, err));
        if (x < 0 || (uint64_t)x >= c->dict_size)
            return orc_bytes_err(&c->ints->b, "dictionary index out of range", err);
        *p = c->buf[ORC_S_DICT] + c->dict_off[x];
        *len = (size_t)(c->dict_off[x + 1] - c->dict_off[x]);
        return FL_OK;
    }
    FL_TRY(orc_irle_next(c->lens, &x, err));
    if (x < 0 || (uint64_t)x > c->data.len - c->data.pos)
        return orc_bytes_err(&c->data, "string length runs past the DATA stream", err);
    *p = c->data.p + c->data.pos;
    *len = (size_t)x;
    c->data.pos += (size_t)x;
    return FL_OK;
}

static fl_status read_varlen(orc_col *c, fl_vector *v, uint32_t base, uint32_t n, fl_error *err)
{
    for (uint32_t i = 0; i < n; i++) {
        if (c->pres[i]) {
            const uint8_t *p = NULL;
            size_t len = 0;
            FL_TRY(bytes_value(c, &p, &len, err));
            FL_TRY(fl_vector_reserve_heap(v, len, err));
            memcpy(v->heap + v->heap_len, p, len);
            v->heap_len += len;
        }
        v->offsets[base + i + 1] = (int64_t)v->heap_len;
    }
    return FL_OK;
}

static fl_status read_fixed_bytes(orc_col *c, fl_vector *v, uint32_t base, uint32_t n,
                                  fl_error *err)
{
    size_t w = (size_t)c->ft->fixed_len;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *dst = v->data + (size_t)(base + i) * w;
        memset(dst, 0, w);
        if (!c->pres[i])
            continue;
        const uint8_t *p = NULL;
        size_t len = 0;
        FL_TRY(bytes_value(c, &p, &len, err));
        if (len != w)
            return orc_bytes_err(&c->data, "fixed-length binary value has the wrong length", err);
        memcpy(dst, p, w);
    }
    return FL_OK;
}

static fl_status read_nested(orc_col *c, fl_vector *v, uint32_t base, uint32_t n, fl_error *err)
{
    if (c->ot->kind == FL_ORC_STRUCT) {
        for (uint32_t k = 0; k < c->nchildren; k++)
            FL_TRY(orc_col_read(&c->children[k], &v->children[k], n, c->pres, err));
        return FL_OK;
    }
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t l = 0;
        if (c->pres[i])
            FL_TRY(orc_irle_next(c->lens, &l, err));
        if (l < 0 || (uint64_t)l > MAX_CHILD_ROWS - total)
            return orc_bytes_err(&c->lens->b,
                                 l < 0 ? "negative length"
                                       : "list/map lengths exceed 16M elements in one batch",
                                 err);
        total += (uint64_t)l;
        v->offsets[base + i + 1] = v->offsets[base + i] + l;
    }
    for (uint32_t k = 0; k < c->nchildren; k++)
        FL_TRY(orc_col_read(&c->children[k], &v->children[k], (uint32_t)total, NULL, err));
    return FL_OK;
}

fl_status orc_col_read(orc_col *c, fl_vector *v, uint32_t n, const uint8_t *pmask, fl_error *err)
{
    bool any_null = false;
    FL_TRY(read_present(c, n, pmask, &any_null, err));
    uint32_t base = v->len;
    if ((uint64_t)base + n > UINT32_MAX / 2)
        return fl_errorf(err, FL_ELIMIT, "%s: too many rows in one vector", c->label[ORC_S_DATA]);
    FL_TRY(fl_vector_reserve(v, base + n, err));
    if (base == 0 && v->offsets)
        v->offsets[0] = 0;
    if (any_null)
        FL_TRY(fl_vector_ensure_validity(v, err));
    if (v->validity)
        for (uint32_t i = 0; i < n; i++)
            fl_bitmap_set(v->validity, base + i, c->pres[i]);
    /* the rows are counted before the children are read (they may call reserve) */
    fl_status rc;
    if (fl_type_is_nested(c->ft)) {
        rc = read_nested(c, v, base, n, err);
    } else if (fl_type_is_varlen(c->ft)) {
        rc = read_varlen(c, v, base, n, err);
    } else if (c->ft->id == FL_TYPE_UUID || c->ft->id == FL_TYPE_FIXED) {
        rc = read_fixed_bytes(c, v, base, n, err);
    } else {
        size_t w = fl_type_width(c->ft);
        rc = FL_OK;
        for (uint32_t i = 0; i < n && rc == FL_OK; i++) {
            uint8_t *dst = v->data + (size_t)(base + i) * w;
            if (c->pres[i])
                rc = fixed_value(c, dst, err);
            else
                memset(dst, 0, w);
        }
    }
    v->len = base + n;
    return rc;
}
