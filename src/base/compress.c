/*
 * compress.c - block codecs for Parquet pages and Avro blocks (see
 * floe/compress.h), over Debian's libsnappy (snappy-c.h), zlib, libzstd,
 * liblz4 and libbrotli.
 *
 * Two decompression entry points:
 *   fl_decompress        the output size is known (Parquet page headers);
 *                        anything but exactly dst_len bytes is FL_ECORRUPT.
 *   fl_decompress_alloc  the output size is unknown (Avro blocks); the output
 *                        buffer grows geometrically but never beyond max_len
 *                        (FL_ELIMIT), so hostile input cannot exhaust memory.
 *
 * Byte layouts that are not a library's own format:
 *   gzip       RFC 1952 members; several members may be concatenated (as
 *              `cat a.gz b.gz` produces); each is inflated in turn. Zero
 *              padding after the last member is tolerated. A zlib (RFC 1950)
 *              stream is also accepted (zlib auto-detect), as some writers
 *              label zlib streams GZIP.
 *   deflate    raw RFC 1951 stream (Avro "deflate" codec), no header. Bytes
 *              after the final block are ignored: Python's Avro writer stores
 *              zlib.compress(data)[2:-1], leaving 3 Adler-32 bytes behind, and
 *              Java's reader ignores them too.
 *   LZ4 Hadoop (Parquet's deprecated LZ4 codec as written by parquet-mr)
 *              repeated blocks of
 *                [u32 BE uncompressed block length U]
 *                then chunks [u32 BE compressed length C][C bytes LZ4 block]
 *                until the chunks have produced U bytes.
 *              Files from old parquet-cpp hold an LZ4 frame or a raw LZ4
 *              block instead; like Arrow, we try Hadoop framing first, then
 *              the LZ4 frame format, then a raw block.
 *
 * Every failure is reported as "<codec>: <what>" so the caller can prefix
 * the file, column and page offset.
 */
#include "floe/compress.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <limits.h>
#include <lz4.h>
#include <lz4frame.h>
#include <lz4hc.h>
#include <snappy-c.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

/* zlib counts in uInt; feed it at most this much at a time. */
#define ZCHUNK ((size_t)1 << 30)
/* Hadoop LZ4 blocks we write hold at most this much uncompressed data. */
#define HADOOP_BLOCK ((size_t)1 << 27)
/* First allocation for outputs of unknown size. */
#define ALLOC_MIN ((size_t)64 * 1024)

const char *fl_codec_name(fl_codec c)
{
    switch (c) {
    case FL_CODEC_NONE: return "uncompressed";
    case FL_CODEC_SNAPPY: return "snappy";
    case FL_CODEC_GZIP: return "gzip";
    case FL_CODEC_DEFLATE: return "deflate";
    case FL_CODEC_ZSTD: return "zstd";
    case FL_CODEC_LZ4_RAW: return "lz4_raw";
    case FL_CODEC_LZ4_HADOOP: return "lz4";
    case FL_CODEC_BROTLI: return "brotli";
    }
    return "unknown codec";
}

static uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static fl_status size_mismatch(fl_error *err, fl_codec c, size_t got, size_t want)
{
    return fl_errorf(err, FL_ECORRUPT, "%s: decompressed to %zu bytes, expected %zu",
                     fl_codec_name(c), got, want);
}

/* ---- output window shared by every streaming decoder ----
 *
 * Either a caller's fixed buffer (fl_decompress: exactly dst_len bytes, no
 * growth) or a malloc'd buffer that doubles up to max (fl_decompress_alloc).
 * When the window is full at its maximum, decoders "probe" with a one-byte
 * scratch buffer: a stream that still has output is too big; one that only
 * had its end marker left finishes cleanly. */

typedef struct outbuf {
    fl_codec codec;
    uint8_t **buf;
    size_t *cap;
    size_t len; /* bytes produced so far */
    size_t max; /* never hold more than this */
    bool fixed; /* caller's buffer: no growth, overflow is corruption */
} outbuf;

static fl_status outbuf_over(outbuf *ob, fl_error *err)
{
    if (ob->fixed)
        return fl_errorf(err, FL_ECORRUPT, "%s: output exceeds the expected %zu bytes",
                         fl_codec_name(ob->codec), ob->max);
    return fl_errorf(err, FL_ELIMIT, "%s: decompressed size exceeds the limit of %zu bytes",
                     fl_codec_name(ob->codec), ob->max);
}

/* Usable bytes of the window. */
static size_t outbuf_cap(const outbuf *ob)
{
    return *ob->cap < ob->max ? *ob->cap : ob->max;
}

/* Makes room for at least want bytes in total. */
static fl_status outbuf_reserve(outbuf *ob, size_t want, fl_error *err)
{
    if (want > ob->max)
        return outbuf_over(ob, err);
    if (ob->fixed || (want <= *ob->cap && *ob->buf))
        return FL_OK;
    size_t ncap = *ob->cap > ALLOC_MIN / 2 ? *ob->cap : ALLOC_MIN / 2;
    while (ncap < want)
        ncap = ncap > SIZE_MAX / 2 ? SIZE_MAX : ncap * 2;
    if (ncap > ob->max)
        ncap = ob->max;
    if (ncap == 0)
        ncap = 1;
    uint8_t *nb = realloc(*ob->buf, ncap);
    if (!nb)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory for %zu bytes",
                         fl_codec_name(ob->codec), ncap);
    *ob->buf = nb;
    *ob->cap = ncap;
    return FL_OK;
}

/* Initial window for a stream of n compressed bytes. */
static fl_status outbuf_start(outbuf *ob, size_t n, fl_error *err)
{
    if (ob->fixed)
        return FL_OK;
    size_t want = n < SIZE_MAX / 4 ? n * 4 : SIZE_MAX;
    if (want < ALLOC_MIN)
        want = ALLOC_MIN;
    if (want > ob->max)
        want = ob->max;
    return outbuf_reserve(ob, want, err);
}

/* Where the next decoder call may write: the free tail of the window, grown
 * when full, or a one-byte probe when the window cannot grow. */
typedef struct outwin {
    uint8_t *ptr;
    size_t size;
    bool probing;
    uint8_t probe;
} outwin;

static fl_status outbuf_window(outbuf *ob, outwin *w, fl_error *err)
{
    if (ob->len == outbuf_cap(ob) && ob->len < ob->max) {
        size_t want = ob->len < ALLOC_MIN ? ALLOC_MIN : ob->len * 2;
        if (want < ob->len || want > ob->max)
            want = ob->max;
        FL_TRY(outbuf_reserve(ob, want, err));
    }
    if (ob->len == outbuf_cap(ob)) {
        w->ptr = &w->probe;
        w->size = 1;
        w->probing = true;
    } else {
        w->ptr = *ob->buf + ob->len;
        w->size = outbuf_cap(ob) - ob->len;
        w->probing = false;
    }
    return FL_OK;
}

/* Accounts for produced bytes written into the window. */
static fl_status outbuf_advance(outbuf *ob, const outwin *w, size_t produced, fl_error *err)
{
    if (w->probing)
        return produced ? outbuf_over(ob, err) : FL_OK;
    ob->len += produced;
    return FL_OK;
}

static fl_status outbuf_finish(outbuf *ob, fl_error *err)
{
    if (ob->fixed && ob->len != ob->max)
        return size_mismatch(err, ob->codec, ob->len, ob->max);
    return FL_OK;
}

/* ---- snappy ---- */

static fl_status snappy_dec(const uint8_t *src, size_t n, uint8_t *dst, size_t dst_len,
                            fl_error *err)
{
    size_t ulen;
    if (snappy_uncompressed_length((const char *)src, n, &ulen) != SNAPPY_OK)
        return fl_errorf(err, FL_ECORRUPT, "snappy: corrupt length header");
    if (ulen != dst_len)
        return size_mismatch(err, FL_CODEC_SNAPPY, ulen, dst_len);
    size_t out = dst_len;
    if (snappy_uncompress((const char *)src, n, (char *)dst, &out) != SNAPPY_OK)
        return fl_errorf(err, FL_ECORRUPT, "snappy: corrupt input");
    if (out != dst_len)
        return size_mismatch(err, FL_CODEC_SNAPPY, out, dst_len);
    return FL_OK;
}

static fl_status snappy_dec_alloc(const uint8_t *src, size_t n, outbuf *ob, fl_error *err)
{
    size_t ulen;
    if (snappy_uncompressed_length((const char *)src, n, &ulen) != SNAPPY_OK)
        return fl_errorf(err, FL_ECORRUPT, "snappy: corrupt length header");
    if (ulen > ob->max)
        return fl_errorf(err, FL_ELIMIT, "snappy: uncompressed size %zu exceeds the limit of %zu",
                         ulen, ob->max);
    /* a snappy copy element of 2..5 bytes yields at most 64 bytes */
    if (ulen / 64 > n)
        return fl_errorf(err, FL_ECORRUPT, "snappy: length header %zu is impossible for %zu bytes",
                         ulen, n);
    FL_TRY(outbuf_reserve(ob, ulen, err));
    FL_TRY(snappy_dec(src, n, *ob->buf, ulen, err));
    ob->len = ulen;
    return FL_OK;
}

/* ---- zlib: gzip (with concatenated members) and raw deflate ---- */

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

static fl_status zlib_run(z_stream *zs, const uint8_t *src, size_t n, outbuf *ob, fl_error *err)
{
    const char *name = fl_codec_name(ob->codec);
    size_t ip = 0;
    for (;;) {
        outwin w;
        FL_TRY(outbuf_window(ob, &w, err));
        size_t in_left = n - ip;
        zs->next_in = (Bytef *)src + ip;
        zs->avail_in = (uInt)(in_left < ZCHUNK ? in_left : ZCHUNK);
        zs->next_out = w.ptr;
        zs->avail_out = (uInt)(w.size < ZCHUNK ? w.size : ZCHUNK);
        uInt in_before = zs->avail_in, out_before = zs->avail_out;
        int zr = inflate(zs, Z_NO_FLUSH);
        ip += in_before - zs->avail_in;
        FL_TRY(outbuf_advance(ob, &w, out_before - zs->avail_out, err));
        if (zr == Z_STREAM_END) {
            size_t rest = n - ip;
            if (ob->codec == FL_CODEC_GZIP && rest >= 2 && src[ip] == 0x1f && src[ip + 1] == 0x8b) {
                if (inflateReset(zs) != Z_OK)
                    return fl_errorf(err, FL_ECORRUPT, "%s: cannot reset stream", name);
                continue; /* the next gzip member */
            }
            /* raw deflate: bytes after the final block are ignored, as Java's
             * Avro reader does (Python's writer leaves 3 Adler-32 bytes there) */
            if (rest && ob->codec == FL_CODEC_GZIP && !all_zero(src + ip, rest))
                return fl_errorf(err, FL_ECORRUPT, "%s: %zu bytes of trailing garbage at byte %zu",
                                 name, rest, ip);
            return FL_OK;
        }
        if (zr == Z_OK)
            continue;
        if (zr == Z_BUF_ERROR) {
            if (zs->avail_out == 0)
                continue; /* needs more room: the next window grows or probes */
            return fl_errorf(err, FL_ECORRUPT, "%s: truncated input (%zu bytes)", name, n);
        }
        if (zr == Z_MEM_ERROR)
            return fl_errorf(err, FL_ENOMEM, "%s: out of memory", name);
        return fl_errorf(err, FL_ECORRUPT, "%s: corrupt input at byte %zu: %s", name, ip,
                         zs->msg ? zs->msg : "invalid data");
    }
}

static fl_status zlib_dec(const uint8_t *src, size_t n, outbuf *ob, fl_error *err)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    int wbits = ob->codec == FL_CODEC_GZIP ? 15 + 32 : -15;
    if (inflateInit2(&zs, wbits) != Z_OK)
        return fl_errorf(err, FL_ENOMEM, "%s: cannot initialize zlib", fl_codec_name(ob->codec));
    fl_status rc = outbuf_start(ob, n, err);
    if (rc == FL_OK)
        rc = zlib_run(&zs, src, n, ob, err);
    inflateEnd(&zs);
    return rc;
}

/* ---- zstd ---- */

static fl_status zstd_dec(const uint8_t *src, size_t n, uint8_t *dst, size_t dst_len, fl_error *err)
{
    size_t r = ZSTD_decompress(dst, dst_len, src, n);
    if (ZSTD_isError(r)) {
        if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall)
            return fl_errorf(err, FL_ECORRUPT, "zstd: output exceeds the expected %zu bytes",
                             dst_len);
        return fl_errorf(err, FL_ECORRUPT, "zstd: %s", ZSTD_getErrorName(r));
    }
    if (r != dst_len)
        return size_mismatch(err, FL_CODEC_ZSTD, r, dst_len);
    return FL_OK;
}

static fl_status zstd_run(ZSTD_DCtx *dc, const uint8_t *src, size_t n, outbuf *ob, fl_error *err)
{
    ZSTD_inBuffer in = {src, n, 0};
    for (;;) {
        outwin w;
        FL_TRY(outbuf_window(ob, &w, err));
        ZSTD_outBuffer out = {w.ptr, w.size, 0};
        size_t r = ZSTD_decompressStream(dc, &out, &in);
        if (ZSTD_isError(r))
            return fl_errorf(err, FL_ECORRUPT, "zstd: %s at byte %zu", ZSTD_getErrorName(r),
                             in.pos);
        FL_TRY(outbuf_advance(ob, &w, out.pos, err));
        if (in.pos == in.size) {
            if (r == 0)
                return FL_OK; /* every frame decoded and flushed */
            if (out.pos < out.size)
                return fl_errorf(err, FL_ECORRUPT, "zstd: truncated frame (%zu bytes)", n);
        }
    }
}

static fl_status zstd_dec_alloc(const uint8_t *src, size_t n, outbuf *ob, fl_error *err)
{
    if (n == 0)
        return fl_errorf(err, FL_ECORRUPT, "zstd: empty input");
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    if (!dc)
        return fl_errorf(err, FL_ENOMEM, "zstd: out of memory");
    unsigned long long hint = ZSTD_getFrameContentSize(src, n);
    fl_status rc;
    if (hint != ZSTD_CONTENTSIZE_UNKNOWN && hint != ZSTD_CONTENTSIZE_ERROR && hint > 0)
        rc = outbuf_reserve(ob, hint < ob->max ? (size_t)hint : ob->max, err);
    else
        rc = outbuf_start(ob, n, err);
    if (rc == FL_OK)
        rc = zstd_run(dc, src, n, ob, err);
    ZSTD_freeDCtx(dc);
    return rc;
}

/* ---- lz4 ---- */

static fl_status lz4_raw_dec(const uint8_t *src, size_t n, uint8_t *dst, size_t dst_len,
                             fl_error *err)
{
    if (n > INT_MAX || dst_len > INT_MAX)
        return fl_errorf(err, FL_EUNSUPPORTED, "lz4_raw: block larger than 2 GiB");
    int r = LZ4_decompress_safe((const char *)src, (char *)dst, (int)n, (int)dst_len);
    if (r < 0)
        return fl_errorf(err, FL_ECORRUPT, "lz4_raw: corrupt block (error at byte %d)", -r - 1);
    if ((size_t)r != dst_len)
        return size_mismatch(err, FL_CODEC_LZ4_RAW, (size_t)r, dst_len);
    return FL_OK;
}

/* Raw block of unknown size: retry with a doubling buffer. LZ4 cannot tell
 * "output too small" from "corrupt", so at the limit a partial decode decides. */
static fl_status lz4_raw_dec_alloc(const uint8_t *src, size_t n, outbuf *ob, fl_error *err)
{
    if (n > INT_MAX)
        return fl_errorf(err, FL_EUNSUPPORTED, "lz4_raw: block larger than 2 GiB");
    size_t max = ob->max < INT_MAX ? ob->max : INT_MAX;
    /* a raw block expands at most 255x */
    size_t bound = n > (SIZE_MAX - 16) / 255 ? SIZE_MAX : n * 255 + 16;
    size_t want = n < ALLOC_MIN / 4 ? ALLOC_MIN : n * 4;
    if (want > bound)
        want = bound;
    for (;;) {
        if (want > max)
            want = max;
        FL_TRY(outbuf_reserve(ob, want, err));
        int cap = (int)outbuf_cap(ob);
        int r = LZ4_decompress_safe((const char *)src, (char *)*ob->buf, (int)n, cap);
        if (r >= 0) {
            ob->len = (size_t)r;
            return FL_OK;
        }
        if ((size_t)cap >= max || (size_t)cap >= bound)
            break;
        want = (size_t)cap * 2;
    }
    int cap = (int)outbuf_cap(ob);
    uint8_t probe;
    uint8_t *pbuf = cap ? *ob->buf : &probe;
    int pcap = cap ? cap : 1;
    if ((size_t)cap < bound &&
        LZ4_decompress_safe_partial((const char *)src, (char *)pbuf, (int)n, pcap, pcap) == pcap)
        return outbuf_over(ob, err);
    return fl_errorf(err, FL_ECORRUPT, "lz4_raw: corrupt block");
}

/* Hadoop framing (layout at the top of this file). Returns FL_OK,
 * FL_ECORRUPT without a message when src is not a well-formed Hadoop stream
 * (the caller then tries the other layouts), FL_ELIMIT without a message when
 * it is well-formed but claims more than ob->max, or FL_ENOMEM. */
static fl_status hadoop_dec(const uint8_t *src, size_t n, outbuf *ob, fl_error *err)
{
    size_t ip = 0;
    if (n == 0)
        return FL_ECORRUPT;
    while (ip < n) {
        if (n - ip < 8)
            return FL_ECORRUPT;
        size_t ulen = load_be32(src + ip);
        ip += 4;
        /* writers never emit empty blocks, and a block expands at most 255x */
        if (ulen == 0 || ulen / 255 > n - ip)
            return FL_ECORRUPT;
        if (ulen > ob->max - ob->len)
            return ob->fixed ? FL_ECORRUPT : FL_ELIMIT;
        if (!ob->fixed && outbuf_reserve(ob, ob->len + ulen, err))
            return FL_ENOMEM;
        size_t end = ob->len + ulen;
        while (ob->len < end) {
            if (n - ip < 4)
                return FL_ECORRUPT;
            size_t clen = load_be32(src + ip);
            ip += 4;
            size_t want = end - ob->len;
            if (clen == 0 || clen > n - ip || clen > INT_MAX || want > INT_MAX)
                return FL_ECORRUPT;
            int r = LZ4_decompress_safe((const char *)src + ip, (char *)*ob->buf + ob->len,
                                        (int)clen, (int)want);
            if (r <= 0)
                return FL_ECORRUPT;
            ob->len += (size_t)r;
            ip += clen;
        }
    }
    return FL_OK;
}

static fl_status lz4_frame_run(LZ4F_dctx *dc, const uint8_t *src, size_t n, outbuf *ob,
                               fl_error *err)
{
    size_t ip = 0, hint = 1;
    for (;;) {
        outwin w;
        FL_TRY(outbuf_window(ob, &w, err));
        size_t in_sz = n - ip, out_sz = w.size;
        hint = LZ4F_decompress(dc, w.ptr, &out_sz, src + ip, &in_sz, NULL);
        if (LZ4F_isError(hint))
            return fl_errorf(err, FL_ECORRUPT, "lz4: corrupt frame at byte %zu: %s", ip,
                             LZ4F_getErrorName(hint));
        ip += in_sz;
        FL_TRY(outbuf_advance(ob, &w, out_sz, err));
        if (hint == 0 && ip == n)
            return FL_OK;              /* the last frame is complete */
        if (in_sz == 0 && out_sz == 0) /* no progress: the frame needs input we lack */
            return fl_errorf(err, FL_ECORRUPT, "lz4: truncated frame (%zu bytes)", n);
    }
}

static fl_status lz4_frame_dec(const uint8_t *src, size_t n, outbuf *ob, fl_error *err)
{
    LZ4F_dctx *dc;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&dc, LZ4F_VERSION)))
        return fl_errorf(err, FL_ENOMEM, "lz4: out of memory");
    ob->len = 0;
    fl_status rc = outbuf_start(ob, n, err);
    if (rc == FL_OK)
        rc = lz4_frame_run(dc, src, n, ob, err);
    LZ4F_freeDecompressionContext(dc);
    return rc;
}

static bool is_lz4_frame(const uint8_t *src, size_t n)
{
    return n >= 4 && src[0] == 0x04 && src[1] == 0x22 && src[2] == 0x4d && src[3] == 0x18;
}

static fl_status lz4_hadoop_dec(const uint8_t *src, size_t n, outbuf *ob, fl_error *err)
{
    if (n == 0) { /* what we write for empty input */
        ob->len = 0;
        return FL_OK;
    }
    fl_status rc = hadoop_dec(src, n, ob, err);
    if (rc == FL_OK || rc == FL_ENOMEM)
        return rc;
    bool over = rc == FL_ELIMIT;
    ob->len = 0;
    if (is_lz4_frame(src, n)) {
        rc = lz4_frame_dec(src, n, ob, err);
    } else if (ob->fixed) {
        rc = lz4_raw_dec(src, n, *ob->buf, ob->max, err);
        if (rc == FL_OK)
            ob->len = ob->max;
    } else {
        rc = lz4_raw_dec_alloc(src, n, ob, err);
    }
    if (rc == FL_ECORRUPT && over)
        return outbuf_over(ob, err);
    if (rc == FL_ECORRUPT)
        return fl_errorf(err, rc,
                         "lz4: input of %zu bytes is neither Hadoop-framed LZ4, an LZ4 frame nor a "
                         "raw LZ4 block",
                         n);
    return rc;
}

/* ---- brotli ---- */

static fl_status brotli_run(BrotliDecoderState *st, const uint8_t *src, size_t n, outbuf *ob,
                            fl_error *err)
{
    const uint8_t *in = src;
    size_t in_left = n;
    for (;;) {
        outwin w;
        FL_TRY(outbuf_window(ob, &w, err));
        size_t out_left = w.size;
        uint8_t *next_out = w.ptr;
        BrotliDecoderResult r =
            BrotliDecoderDecompressStream(st, &in_left, &in, &out_left, &next_out, NULL);
        FL_TRY(outbuf_advance(ob, &w, w.size - out_left, err));
        switch (r) {
        case BROTLI_DECODER_RESULT_SUCCESS:
            if (in_left)
                return fl_errorf(err, FL_ECORRUPT, "brotli: %zu bytes of trailing garbage",
                                 in_left);
            return FL_OK;
        case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: continue;
        case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
            return fl_errorf(err, FL_ECORRUPT, "brotli: truncated input (%zu bytes)", n);
        default:
            return fl_errorf(err, FL_ECORRUPT, "brotli: corrupt input at byte %zu: %s", n - in_left,
                             BrotliDecoderErrorString(BrotliDecoderGetErrorCode(st)));
        }
    }
}

static fl_status brotli_dec(const uint8_t *src, size_t n, outbuf *ob, fl_error *err)
{
    BrotliDecoderState *st = BrotliDecoderCreateInstance(NULL, NULL, NULL);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "brotli: out of memory");
    fl_status rc = outbuf_start(ob, n, err);
    if (rc == FL_OK)
        rc = brotli_run(st, src, n, ob, err);
    BrotliDecoderDestroyInstance(st);
    return rc;
}

/* ---- public decompression ---- */

fl_status fl_decompress(fl_codec c, const uint8_t *src, size_t src_len, uint8_t *dst,
                        size_t dst_len, fl_error *err)
{
    size_t cap = dst_len;
    outbuf ob = {c, &dst, &cap, 0, dst_len, true};
    fl_status rc;
    switch (c) {
    case FL_CODEC_NONE:
        if (src_len != dst_len)
            return size_mismatch(err, c, src_len, dst_len);
        if (src_len)
            memcpy(dst, src, src_len);
        return FL_OK;
    case FL_CODEC_SNAPPY: return snappy_dec(src, src_len, dst, dst_len, err);
    case FL_CODEC_ZSTD: return zstd_dec(src, src_len, dst, dst_len, err);
    case FL_CODEC_LZ4_RAW: return lz4_raw_dec(src, src_len, dst, dst_len, err);
    case FL_CODEC_GZIP:
    case FL_CODEC_DEFLATE: rc = zlib_dec(src, src_len, &ob, err); break;
    case FL_CODEC_LZ4_HADOOP: rc = lz4_hadoop_dec(src, src_len, &ob, err); break;
    case FL_CODEC_BROTLI: rc = brotli_dec(src, src_len, &ob, err); break;
    default: return fl_errorf(err, FL_EUNSUPPORTED, "unknown compression codec %d", (int)c);
    }
    return rc ? rc : outbuf_finish(&ob, err);
}

fl_status fl_decompress_alloc(fl_codec c, const uint8_t *src, size_t src_len, uint8_t **dst,
                              size_t *dst_cap, size_t *dst_len, size_t max_len, fl_error *err)
{
    if (!*dst)
        *dst_cap = 0;
    outbuf ob = {c, dst, dst_cap, 0, max_len, false};
    fl_status rc;
    switch (c) {
    case FL_CODEC_NONE:
        if (src_len > max_len)
            return outbuf_over(&ob, err);
        rc = outbuf_reserve(&ob, src_len, err);
        if (rc == FL_OK && src_len)
            memcpy(*dst, src, src_len);
        ob.len = src_len;
        break;
    case FL_CODEC_SNAPPY: rc = snappy_dec_alloc(src, src_len, &ob, err); break;
    case FL_CODEC_GZIP:
    case FL_CODEC_DEFLATE: rc = zlib_dec(src, src_len, &ob, err); break;
    case FL_CODEC_ZSTD: rc = zstd_dec_alloc(src, src_len, &ob, err); break;
    case FL_CODEC_LZ4_RAW: rc = lz4_raw_dec_alloc(src, src_len, &ob, err); break;
    case FL_CODEC_LZ4_HADOOP: rc = lz4_hadoop_dec(src, src_len, &ob, err); break;
    case FL_CODEC_BROTLI: rc = brotli_dec(src, src_len, &ob, err); break;
    default: return fl_errorf(err, FL_EUNSUPPORTED, "unknown compression codec %d", (int)c);
    }
    if (rc == FL_OK)
        *dst_len = ob.len;
    return rc;
}

/* ---- compression ---- */

size_t fl_compress_bound(fl_codec c, size_t n)
{
    switch (c) {
    case FL_CODEC_NONE: return n;
    case FL_CODEC_SNAPPY: return snappy_max_compressed_length(n);
    case FL_CODEC_GZIP:
    case FL_CODEC_DEFLATE: {
        /* compressBound plus gzip header/trailer, plus per-chunk block overhead */
        size_t chunks = n / ZCHUNK + 1;
        return n + (n >> 12) + (n >> 14) + (n >> 25) + 13 + 18 + chunks * 16;
    }
    case FL_CODEC_ZSTD: return ZSTD_compressBound(n);
    case FL_CODEC_LZ4_RAW: return n <= LZ4_MAX_INPUT_SIZE ? (size_t)LZ4_compressBound((int)n) : 0;
    case FL_CODEC_LZ4_HADOOP: {
        size_t blocks = n / HADOOP_BLOCK + 1;
        return n + n / 255 + 16 * blocks + 8 * blocks;
    }
    case FL_CODEC_BROTLI: return BrotliEncoderMaxCompressedSize(n);
    }
    return 0;
}

static fl_status zlib_comp(fl_codec c, int level, const uint8_t *src, size_t n, uint8_t *dst,
                           size_t cap, size_t *out_len, fl_error *err)
{
    const char *name = fl_codec_name(c);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (level < 0 || level > 9)
        return fl_errorf(err, FL_EINVAL, "%s: level %d is not in 1..9", name, level);
    int wbits = c == FL_CODEC_GZIP ? 15 + 16 : -15;
    if (deflateInit2(&zs, level ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED, wbits, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        return fl_errorf(err, FL_ENOMEM, "%s: cannot initialize zlib", name);
    size_t ip = 0, op = 0;
    fl_status rc = FL_OK;
    for (;;) {
        size_t in_left = n - ip, out_left = cap - op;
        zs.next_in = (Bytef *)src + ip;
        zs.avail_in = (uInt)(in_left < ZCHUNK ? in_left : ZCHUNK);
        zs.next_out = dst + op;
        zs.avail_out = (uInt)(out_left < ZCHUNK ? out_left : ZCHUNK);
        uInt ib = zs.avail_in, ob = zs.avail_out;
        int flush = in_left <= ZCHUNK ? Z_FINISH : Z_NO_FLUSH;
        int zr = deflate(&zs, flush);
        ip += ib - zs.avail_in;
        op += ob - zs.avail_out;
        if (zr == Z_STREAM_END)
            break;
        if (zr == Z_OK || (zr == Z_BUF_ERROR && zs.avail_out > 0 && ib > 0)) {
            if (zs.avail_out == 0 && op == cap) {
                rc = fl_errorf(err, FL_ELIMIT, "%s: output buffer of %zu bytes too small", name,
                               cap);
                break;
            }
            continue;
        }
        rc = fl_errorf(err, FL_ELIMIT, "%s: output buffer of %zu bytes too small", name, cap);
        break;
    }
    deflateEnd(&zs);
    if (rc == FL_OK)
        *out_len = op;
    return rc;
}

static fl_status lz4_block_comp(int level, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                size_t *out_len)
{
    if (n > LZ4_MAX_INPUT_SIZE)
        return FL_ELIMIT;
    int icap = cap > INT_MAX ? INT_MAX : (int)cap;
    int r = level > 1 ? LZ4_compress_HC((const char *)src, (char *)dst, (int)n, icap, level)
                      : LZ4_compress_default((const char *)src, (char *)dst, (int)n, icap);
    if (r <= 0 && n > 0)
        return FL_ELIMIT;
    *out_len = r > 0 ? (size_t)r : 0;
    if (n == 0 && r <= 0) {
        /* an empty raw block is a single zero token */
        if (cap < 1)
            return FL_ELIMIT;
        dst[0] = 0;
        *out_len = 1;
    }
    return FL_OK;
}

static fl_status lz4_hadoop_comp(int level, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                 size_t *out_len, fl_error *err)
{
    size_t ip = 0, op = 0;
    while (ip < n) {
        size_t blk = n - ip < HADOOP_BLOCK ? n - ip : HADOOP_BLOCK;
        if (cap - op < 8)
            return fl_errorf(err, FL_ELIMIT, "lz4: output buffer of %zu bytes too small", cap);
        size_t clen;
        if (lz4_block_comp(level, src + ip, blk, dst + op + 8, cap - op - 8, &clen))
            return fl_errorf(err, FL_ELIMIT, "lz4: output buffer of %zu bytes too small", cap);
        store_be32(dst + op, (uint32_t)blk);
        store_be32(dst + op + 4, (uint32_t)clen);
        op += 8 + clen;
        ip += blk;
    }
    *out_len = op; /* empty input: empty output */
    return FL_OK;
}

fl_status fl_compress(fl_codec c, int level, const uint8_t *src, size_t src_len, uint8_t *dst,
                      size_t dst_cap, size_t *out_len, fl_error *err)
{
    const char *name = fl_codec_name(c);
    switch (c) {
    case FL_CODEC_NONE:
        if (dst_cap < src_len)
            return fl_errorf(err, FL_ELIMIT, "output buffer of %zu bytes too small", dst_cap);
        if (src_len)
            memcpy(dst, src, src_len);
        *out_len = src_len;
        return FL_OK;
    case FL_CODEC_SNAPPY: {
        size_t out = dst_cap;
        if (dst_cap < snappy_max_compressed_length(src_len))
            return fl_errorf(err, FL_ELIMIT, "snappy: output buffer of %zu bytes too small",
                             dst_cap);
        if (snappy_compress((const char *)src, src_len, (char *)dst, &out) != SNAPPY_OK)
            return fl_errorf(err, FL_ELIMIT, "snappy: compression failed");
        *out_len = out;
        return FL_OK;
    }
    case FL_CODEC_GZIP:
    case FL_CODEC_DEFLATE: return zlib_comp(c, level, src, src_len, dst, dst_cap, out_len, err);
    case FL_CODEC_ZSTD: {
        size_t r = ZSTD_compress(dst, dst_cap, src, src_len, level ? level : ZSTD_CLEVEL_DEFAULT);
        if (ZSTD_isError(r))
            return fl_errorf(
                err, ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall ? FL_ELIMIT : FL_EINVAL,
                "zstd: %s", ZSTD_getErrorName(r));
        *out_len = r;
        return FL_OK;
    }
    case FL_CODEC_LZ4_RAW:
        if (lz4_block_comp(level, src, src_len, dst, dst_cap, out_len))
            return fl_errorf(err, FL_ELIMIT,
                             "lz4_raw: input of %zu bytes or output buffer of %zu bytes too large "
                             "or small",
                             src_len, dst_cap);
        return FL_OK;
    case FL_CODEC_LZ4_HADOOP:
        return lz4_hadoop_comp(level, src, src_len, dst, dst_cap, out_len, err);
    case FL_CODEC_BROTLI: {
        size_t out = dst_cap;
        int q = level ? level : 8;
        if (q < 0 || q > BROTLI_MAX_QUALITY)
            return fl_errorf(err, FL_EINVAL, "brotli: level %d is not in 0..11", level);
        if (!BrotliEncoderCompress(q, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, src_len, src,
                                   &out, dst))
            return fl_errorf(err, FL_ELIMIT, "brotli: output buffer of %zu bytes too small",
                             dst_cap);
        *out_len = out;
        return FL_OK;
    }
    }
    return fl_errorf(err, FL_EUNSUPPORTED, "%s: cannot compress", name);
}

uint32_t fl_crc32(uint32_t crc, const uint8_t *buf, size_t len)
{
    uLong c = crc;
    while (len) {
        size_t n = len < ZCHUNK ? len : ZCHUNK;
        c = crc32(c, buf, (uInt)n);
        buf += n;
        len -= n;
    }
    return (uint32_t)c;
}
