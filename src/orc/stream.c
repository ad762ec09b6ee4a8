/*
 * stream.c - ORC's compression framing and column statistics.
 *
 * Compressed regions (footer, metadata, stripe footers, streams) are a
 * sequence of chunks, each behind a 3-byte little-endian header holding
 * length * 2 + isOriginal; an original chunk is stored raw, else compressed
 * with the file's codec (ZLIB = raw deflate, SNAPPY block, LZ4 raw block,
 * ZSTD frame). A chunk never decompresses beyond the PostScript block size,
 * and the whole region never beyond FL_ORC_MAX_STREAM (FL_ELIMIT).
 */
#include <stdlib.h>
#include <string.h>

#include "floe/compress.h"
#include "orc/orc_int.h"

static fl_codec codec_of(fl_orc_compression c)
{
    switch (c) {
    case FL_ORC_ZLIB: return FL_CODEC_DEFLATE;
    case FL_ORC_SNAPPY: return FL_CODEC_SNAPPY;
    case FL_ORC_LZ4: return FL_CODEC_LZ4_RAW;
    case FL_ORC_ZSTD: return FL_CODEC_ZSTD;
    default: return FL_CODEC_NONE;
    }
}

static fl_status append(uint8_t **buf, size_t *len, size_t *cap, const uint8_t *p, size_t n,
                        const char *what, fl_error *err)
{
    if (n > FL_ORC_MAX_STREAM - *len)
        return fl_errorf(err, FL_ELIMIT, "%s decompresses to more than %zu bytes", what,
                         (size_t)FL_ORC_MAX_STREAM);
    if (*len + n > *cap) {
        size_t nc = *cap ? *cap : 4096;
        while (nc < *len + n)
            nc *= 2;
        uint8_t *nb = realloc(*buf, nc);
        if (!nb)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        *buf = nb;
        *cap = nc;
    }
    if (n)
        memcpy(*buf + *len, p, n);
    *len += n;
    return FL_OK;
}

fl_status orc_decompress(const fl_orc_reader *r, const uint8_t *src, size_t len, uint8_t **out,
                         size_t *out_len, const char *what, fl_error *err)
{
    *out = NULL;
    *out_len = 0;
    size_t cap = 0;
    fl_status rc = FL_OK;
    if (r->info.compression == FL_ORC_NONE) {
        rc = append(out, out_len, &cap, src, len, what, err);
        if (rc == FL_OK && !*out)
            rc = (*out = malloc(1)) ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
        return rc;
    }
    uint8_t *scratch = NULL;
    size_t scap = 0, pos = 0;
    while (rc == FL_OK && pos < len) {
        if (len - pos < 3) {
            rc = fl_errorf(err, FL_ECORRUPT, "%s: truncated chunk header at byte %zu", what, pos);
            break;
        }
        uint32_t h =
            (uint32_t)src[pos] | (uint32_t)src[pos + 1] << 8 | (uint32_t)src[pos + 2] << 16;
        size_t clen = h >> 1;
        if (clen > len - pos - 3) {
            rc =
                fl_errorf(err, FL_ECORRUPT, "%s: chunk at byte %zu says %zu bytes, only %zu remain",
                          what, pos, clen, len - pos - 3);
            break;
        }
        const uint8_t *c = src + pos + 3;
        if (h & 1) {
            rc = append(out, out_len, &cap, c, clen, what, err);
        } else {
            size_t got = 0;
            rc = fl_decompress_alloc(codec_of(r->info.compression), c, clen, &scratch, &scap, &got,
                                     (size_t)r->info.block_size, err);
            if (rc == FL_OK)
                rc = append(out, out_len, &cap, scratch, got, what, err);
            else
                fl_error_prefix(err, "%s: %s chunk at byte %zu", what,
                                fl_orc_compression_name(r->info.compression), pos);
        }
        pos += 3 + clen;
    }
    free(scratch);
    if (rc == FL_OK && !*out)
        rc = (*out = malloc(1)) ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc != FL_OK) {
        free(*out);
        *out = NULL;
        *out_len = 0;
    }
    return rc;
}

/* ---- statistics ---- */

static double as_double(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static fl_status sub_stats(fl_arena *a, const orc_pbf *f, fl_orc_stats *st, fl_error *err)
{
    orc_pb c;
    orc_pbf g;
    int k = 0;
    orc_pb_init(&c, f->ptr, f->len, "ColumnStatistics");
    while ((k = orc_pb_next(&c, &g, err)) == 1) {
        uint32_t kind = f->num;
        if (kind == 2 || kind == 7 || kind == 9) { /* int, date, timestamp: zigzag varints */
            int64_t v = orc_unzigzag(g.v);
            if (kind == 9 && (g.num == 1 || g.num == 2))
                continue; /* local-time min/max: the UTC ones (3, 4) are used */
            if (kind == 9 && g.num >= 5) {
                *(g.num == 5 ? &st->ts_min_nanos : &st->ts_max_nanos) = (int32_t)g.v;
                continue;
            }
            uint32_t n = kind == 9 ? g.num - 2 : g.num;
            if (n == 1)
                st->imin = v;
            else if (n == 2)
                st->imax = v;
            else if (n == 3 && kind == 2) {
                st->isum = v;
                st->has_sum = true;
            }
            if (n == 1 || n == 2)
                *(kind == 9 ? &st->has_timestamp : &st->has_int) = true;
        } else if (kind == 3 && g.wt == 1) {
            double d = as_double(g.v);
            if (g.num == 1)
                st->dmin = d;
            else if (g.num == 2)
                st->dmax = d;
            else if (g.num == 3)
                st->dsum = d, st->has_sum = true;
            if (g.num <= 2)
                st->has_double = true;
        } else if ((kind == 4 || kind == 6) && g.wt == 2 && g.num <= 2) {
            char *s = fl_arena_strndup(a, (const char *)g.ptr, g.len);
            if (!s)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            if (g.num == 1)
                st->smin = s, st->smin_len = g.len;
            else
                st->smax = s, st->smax_len = g.len;
            *(kind == 4 ? &st->has_string : &st->has_decimal) = true;
        } else if ((kind == 4 || kind == 8) && g.num == (kind == 4 ? 3u : 1u) && g.wt == 0) {
            st->isum = orc_unzigzag(g.v);
            st->has_sum = true;
        } else if (kind == 5 && g.num == 1) {
            st->has_bucket = true;
            if (g.wt == 0)
                st->true_count = g.v;
            else if (g.wt == 2) {
                uint64_t v = 0; /* the first packed count: true values */
                for (size_t i = 0; i < g.len && i < 10; i++) {
                    v |= (uint64_t)(g.ptr[i] & 0x7f) << (7 * i);
                    if (!(g.ptr[i] & 0x80))
                        break;
                }
                st->true_count = v;
            }
        }
    }
    return k < 0 ? (fl_status)k : FL_OK;
}

fl_status orc_parse_stats(fl_arena *a, const uint8_t *p, size_t len, fl_orc_stats *st,
                          fl_error *err)
{
    orc_pb c;
    orc_pbf f;
    int k = 0;
    memset(st, 0, sizeof *st);
    orc_pb_init(&c, p, len, "ColumnStatistics");
    while ((k = orc_pb_next(&c, &f, err)) == 1) {
        switch (f.num) {
        case 1: st->num_values = f.v; break;
        case 10:
            st->has_null_known = true;
            st->has_null = f.v != 0;
            break;
        case 11: st->bytes_on_disk = f.v; break;
        default:
            if (f.num >= 2 && f.num <= 9 && f.wt == 2)
                FL_TRY(sub_stats(a, &f, st, err));
            break;
        }
    }
    return k < 0 ? (fl_status)k : FL_OK;
}
