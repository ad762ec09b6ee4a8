/*
 * encoding.h - Parquet value and level encodings, as pure functions over
 * byte buffers (encoding_*.c). The reader (column_reader.c) and the writer
 * (column_writer.c) call these; nothing here knows about pages or files.
 *
 * Spec: apache/parquet-format Encodings.md.
 *
 * Decoders never read past buf + len and never write past the n values they
 * were asked for; malformed input returns FL_ECORRUPT with the byte offset
 * (relative to buf) in the message. Encoders append to an fl_pq_buf.
 * Byte-array decoders append n dense values (no nulls) to a STRING/BINARY
 * fl_vector (offsets + heap), growing it as needed.
 */
#ifndef FLOE_PARQUET_ENCODING_H
#define FLOE_PARQUET_ENCODING_H

#include <stddef.h>
#include <stdint.h>

#include "floe/error.h"
#include "floe/vector.h"
#include "floe/parquet_meta.h"

/* Bits needed to represent v (0 for 0). */
static inline int fl_pq_bit_width(uint64_t v)
{
    return v ? 64 - __builtin_clzll(v) : 0;
}

/* ---- RLE / bit-packed hybrid (levels, dictionary indices, RLE booleans) ---- */

typedef struct fl_pq_rle_decoder {
    const uint8_t *start, *p, *end;
    int bit_width;     /* 0..32 */
    uint32_t rle_left; /* values left in the current RLE run */
    uint32_t rle_value;
    uint32_t bp_left;   /* values left in the current bit-packed run */
    const uint8_t *bp;  /* next bit-packed group */
    uint32_t bp_buf[8]; /* unpacked group of 8 */
    uint32_t bp_pos;    /* next value in bp_buf (8 = empty) */
} fl_pq_rle_decoder;

/* buf holds the runs only (no length prefix). */
void fl_pq_rle_init(fl_pq_rle_decoder *d, const uint8_t *buf, size_t len, int bit_width);
/* Decodes exactly n values; running out of input is FL_ECORRUPT. */
fl_status fl_pq_rle_get(fl_pq_rle_decoder *d, uint32_t *out, uint32_t n, fl_error *err);
/* Same into uint16 (levels). */
fl_status fl_pq_rle_get_u16(fl_pq_rle_decoder *d, uint16_t *out, uint32_t n, fl_error *err);

/* Appends the hybrid encoding of values (no length prefix). */
fl_status fl_pq_rle_encode(const uint32_t *values, uint32_t n, int bit_width, fl_pq_buf *out,
                           fl_error *err);

/* Legacy BIT_PACKED level encoding (MSB-first), decode only. */
fl_status fl_pq_bitpacked_legacy_decode(const uint8_t *buf, size_t len, int bit_width,
                                        uint16_t *out, uint32_t n, fl_error *err);

/* ---- DELTA_BINARY_PACKED ---- */

/* Decodes n values (n may be less than the encoded total: the rest is
 * skipped); *consumed = bytes of the whole encoded block sequence (needed by
 * DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY, which concatenate). */
fl_status fl_pq_delta_decode_i32(const uint8_t *buf, size_t len, int32_t *out, uint32_t n,
                                 size_t *consumed, fl_error *err);
fl_status fl_pq_delta_decode_i64(const uint8_t *buf, size_t len, int64_t *out, uint32_t n,
                                 size_t *consumed, fl_error *err);
/* Number of values the header at buf announces. */
fl_status fl_pq_delta_count(const uint8_t *buf, size_t len, uint32_t *count, fl_error *err);
fl_status fl_pq_delta_encode_i32(const int32_t *v, uint32_t n, fl_pq_buf *out, fl_error *err);
fl_status fl_pq_delta_encode_i64(const int64_t *v, uint32_t n, fl_pq_buf *out, fl_error *err);

/* ---- byte arrays ---- */

/* PLAIN byte arrays (4-byte little-endian length + bytes), n values appended
 * to dst; *consumed = bytes used. */
fl_status fl_pq_plain_decode_bytes(const uint8_t *buf, size_t len, uint32_t n, fl_vector *dst,
                                   size_t *consumed, fl_error *err);
fl_status fl_pq_dlba_decode(const uint8_t *buf, size_t len, uint32_t n, fl_vector *dst,
                            size_t *consumed, fl_error *err);
fl_status fl_pq_dba_decode(const uint8_t *buf, size_t len, uint32_t n, fl_vector *dst,
                           fl_error *err);
/* Encoders take rows [from, from+n) of a FLAT STRING/BINARY vector, skipping
 * rows whose validity bit is 0. */
fl_status fl_pq_plain_encode_bytes(const fl_vector *src, uint32_t from, uint32_t n, fl_pq_buf *out,
                                   fl_error *err);
fl_status fl_pq_dlba_encode(const fl_vector *src, uint32_t from, uint32_t n, fl_pq_buf *out,
                            fl_error *err);
fl_status fl_pq_dba_encode(const fl_vector *src, uint32_t from, uint32_t n, fl_pq_buf *out,
                           fl_error *err);

/* ---- BYTE_STREAM_SPLIT (any fixed width: 2, 4, 8, FLBA(k)) ----
 * Decode: buf must be the page's whole stream area (len = N * width, N the
 * page's value count); the first n <= N values are written to out. */
fl_status fl_pq_bss_decode(const uint8_t *buf, size_t len, uint32_t n, size_t width, uint8_t *out,
                           fl_error *err);
fl_status fl_pq_bss_encode(const uint8_t *values, uint32_t n, size_t width, fl_pq_buf *out,
                           fl_error *err);

/* ---- PLAIN booleans (bit-packed LSB first) ---- */
fl_status fl_pq_plain_decode_bool(const uint8_t *buf, size_t len, uint32_t bit_offset, uint32_t n,
                                  uint8_t *out, fl_error *err);
/* Appends ceil(n/8) bytes: values (0/1 bytes, nonzero = true) packed LSB first. */
fl_status fl_pq_plain_encode_bool(const uint8_t *values, uint32_t n, fl_pq_buf *out, fl_error *err);

#endif
