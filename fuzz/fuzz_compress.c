/*
 * fuzz_compress.c - every decompressor on arbitrary bytes.
 *
 * Byte 0 picks the codec, bytes 1..4 an expected output size (as Parquet
 * pages announce one); the rest is the compressed input. Both entry points
 * must return an error or exactly the promised bytes, never crash, read out
 * of bounds, or allocate beyond their limit. A successful decode of a
 * compress() round trip is checked too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe/compress.h"

#define FUZZ_MAX_OUT (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5)
        return 0;
    fl_codec codec = (fl_codec)(data[0] % (FL_CODEC_BROTLI + 1));
    uint32_t want = ((uint32_t)data[1] | (uint32_t)data[2] << 8 | (uint32_t)data[3] << 16 |
                     (uint32_t)data[4] << 24) %
                    FUZZ_MAX_OUT;
    const uint8_t *src = data + 5;
    size_t src_len = size - 5;
    fl_error err;

    uint8_t *dst = malloc(want ? want : 1);
    if (!dst)
        return 0;
    (void)fl_decompress(codec, src, src_len, dst, want, &err);
    free(dst);

    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    if (fl_decompress_alloc(codec, src, src_len, &buf, &cap, &len, FUZZ_MAX_OUT, &err) == FL_OK &&
        len > FUZZ_MAX_OUT)
        abort(); /* the limit is part of the contract */
    free(buf);

    /* round trip: compress the raw input, decompress, compare */
    if (codec == FL_CODEC_NONE || codec == FL_CODEC_LZ4_HADOOP)
        return 0;
    size_t bound = fl_compress_bound(codec, src_len);
    uint8_t *packed = malloc(bound ? bound : 1);
    uint8_t *back = malloc(src_len ? src_len : 1);
    size_t packed_len = 0;
    if (packed && back &&
        fl_compress(codec, 1, src, src_len, packed, bound, &packed_len, &err) == FL_OK) {
        if (fl_decompress(codec, packed, packed_len, back, src_len, &err) != FL_OK ||
            memcmp(back, src, src_len) != 0)
            abort(); /* our own output must decode to the input */
    }
    free(packed);
    free(back);
    return 0;
}
