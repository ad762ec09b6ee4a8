/*
 * stream_write.c - ORC's compression framing for the writer: a stream (or
 * the footer, metadata, stripe footer) is cut into chunks of at most the
 * PostScript's block size; each chunk is compressed and written after a
 * 3-byte little-endian header (length << 1), or kept as is with the
 * "original" bit set when compressing would not make it smaller. ZLIB is
 * raw deflate, LZ4 a raw block, as the reader (stream.c) expects.
 */
#include "floe/compress.h"
#include "orc/orc_write.h"

static fl_codec codec_of(fl_orc_compression c)
{
    switch (c) {
    case FL_ORC_ZLIB: return FL_CODEC_DEFLATE;
    case FL_ORC_SNAPPY: return FL_CODEC_SNAPPY;
    case FL_ORC_LZ4: return FL_CODEC_LZ4_RAW;
    default: return FL_CODEC_ZSTD;
    }
}

static fl_status header(orc_buf *out, size_t len, bool original, fl_error *err)
{
    uint32_t h = (uint32_t)(len << 1) | (original ? 1u : 0u);
    uint8_t b[3] = {(uint8_t)h, (uint8_t)(h >> 8), (uint8_t)(h >> 16)};
    return orc_buf_put(out, b, 3, err);
}

fl_status orc_compress_into(fl_orc_compression c, int level, size_t block, const uint8_t *src,
                            size_t len, orc_buf *out, orc_buf *scratch, fl_error *err)
{
    if (c == FL_ORC_NONE)
        return orc_buf_put(out, src, len, err);
    fl_codec codec = codec_of(c);
    for (size_t off = 0; off < len; off += block) {
        size_t n = len - off < block ? len - off : block;
        size_t bound = fl_compress_bound(codec, n), got = 0;
        scratch->len = 0;
        FL_TRY(orc_buf_reserve(scratch, bound, err));
        FL_TRY(fl_compress(codec, level, src + off, n, scratch->p, scratch->cap, &got, err));
        if (got < n) {
            FL_TRY(header(out, got, false, err));
            FL_TRY(orc_buf_put(out, scratch->p, got, err));
        } else {
            FL_TRY(header(out, n, true, err));
            FL_TRY(orc_buf_put(out, src + off, n, err));
        }
    }
    return FL_OK;
}
