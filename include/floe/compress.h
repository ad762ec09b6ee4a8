/*
 * compress.h - one interface over the block codecs used by Parquet and Avro:
 * Snappy, gzip/zlib/raw deflate, ZSTD, LZ4 (raw block, Hadoop framing, frame),
 * Brotli. Built on Debian's libsnappy, zlib, libzstd, liblz4 and libbrotli.
 *
 * Decompression always knows or bounds its output size: untrusted input can
 * never make it allocate more than the caller's limit (R10).
 */
#ifndef FLOE_COMPRESS_H
#define FLOE_COMPRESS_H

#include "floe/export.h"

#include <stddef.h>
#include <stdint.h>

#include "floe/error.h"

typedef enum fl_codec {
    FL_CODEC_NONE = 0,
    FL_CODEC_SNAPPY,     /* raw snappy block */
    FL_CODEC_GZIP,       /* gzip members (concatenated members are read in sequence) */
    FL_CODEC_DEFLATE,    /* raw deflate, no header (Avro "deflate") */
    FL_CODEC_ZSTD,       /* one or more zstd frames */
    FL_CODEC_LZ4_RAW,    /* raw LZ4 block (Parquet LZ4_RAW) */
    FL_CODEC_LZ4_HADOOP, /* Parquet legacy LZ4: Hadoop framing, falling back to LZ4 frame, then raw
                          */
    FL_CODEC_BROTLI,
} fl_codec;

FL_API const char *fl_codec_name(fl_codec c);

/* Decompresses src into dst, which must receive exactly dst_len bytes
 * (Parquet pages know their uncompressed size). A size mismatch is FL_ECORRUPT. */
FL_API fl_status fl_decompress(fl_codec c, const uint8_t *src, size_t src_len, uint8_t *dst,
                               size_t dst_len, fl_error *err);

/* Decompresses when the output size is unknown (Avro blocks): *dst is a
 * malloc'd buffer grown as needed (caller frees, may pass an existing buffer
 * with *dst_cap), never beyond max_len (FL_ELIMIT). *dst_len gets the size. */
FL_API fl_status fl_decompress_alloc(fl_codec c, const uint8_t *src, size_t src_len, uint8_t **dst,
                                     size_t *dst_cap, size_t *dst_len, size_t max_len,
                                     fl_error *err);

/* Upper bound of compressed size for src_len input bytes. */
FL_API size_t fl_compress_bound(fl_codec c, size_t src_len);

/* Compresses src into dst (capacity dst_cap >= fl_compress_bound). level 0 =
 * codec default. *out_len gets the compressed size. */
FL_API fl_status fl_compress(fl_codec c, int level, const uint8_t *src, size_t src_len,
                             uint8_t *dst, size_t dst_cap, size_t *out_len, fl_error *err);

/* CRC-32 (IEEE, as zlib) for Parquet page CRCs and Avro snappy blocks. */
FL_API uint32_t fl_crc32(uint32_t crc, const uint8_t *buf, size_t len);

#endif
