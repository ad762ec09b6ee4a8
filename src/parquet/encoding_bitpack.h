/*
 * encoding_bitpack.h - internal bit packing kernels shared by the encodings
 * (encoding_rle.c implements them; encoding_delta.c uses them too).
 *
 * Layout (Encodings.md, RLE section note 1): values are packed LSB-first,
 * value i occupying bits [i*bw, (i+1)*bw) of the little-endian byte stream.
 * Eight values of bw bits take exactly bw bytes, so kernels work in groups
 * of 8. Unpacking is specialised per bit width (a switch on bw selects a
 * function whose shifts and masks are compile-time constants).
 */
#ifndef FLOE_PARQUET_ENCODING_BITPACK_H
#define FLOE_PARQUET_ENCODING_BITPACK_H

#include <stddef.h>
#include <stdint.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "floe's Parquet bit unpacking assumes a little-endian host"
#endif

/* Unpacks ngroups * 8 values of bw bits (0..32) from in (ngroups * bw bytes). */
void fl_pq_unpack32(const uint8_t *in, int bw, uint32_t *out, size_t ngroups);
/* Same for bw 0..64 into 64-bit values. */
void fl_pq_unpack64(const uint8_t *in, int bw, uint64_t *out, size_t ngroups);

/* Packs n values (n a multiple of 8) of bw bits (0..64) into out, which
 * receives exactly n * bw / 8 bytes. Values must fit in bw bits. */
void fl_pq_pack32(const uint32_t *in, size_t n, int bw, uint8_t *out);
void fl_pq_pack64(const uint64_t *in, size_t n, int bw, uint8_t *out);

#endif
