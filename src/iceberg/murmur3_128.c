/*
 * murmur3_128.c - MurmurHash3_x64_128 (Austin Appleby's public-domain
 * algorithm), the hash of Apache DataSketches' theta sketches: a byte array
 * is hashed with a 64-bit seed used as both initial halves h1 and h2, blocks
 * of 16 bytes read little-endian, the tail mixed as in the reference code.
 * DataSketches keeps h[0] >> 1 (63 bits) as the sketch hash; the seed hash
 * of a sketch is the low 16 bits of h[0] of the seed's 8 little-endian
 * bytes hashed with seed 0 (fl_theta_seed_hash).
 *
 * (The bucket transform's murmur3_x86_32 lives in transform.c: another
 * variant, 32-bit.)
 */
#include <string.h>

#include "floe/ice_stats.h"

static uint64_t rotl64(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static uint64_t fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

static uint64_t load_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static const uint64_t C1 = 0x87c37b91114253d5ULL;
static const uint64_t C2 = 0x4cf5ad432745937fULL;

static void mix_blocks(const uint8_t *p, size_t nblocks, uint64_t *h1, uint64_t *h2)
{
    for (size_t i = 0; i < nblocks; i++) {
        uint64_t k1 = load_le64(p + i * 16), k2 = load_le64(p + i * 16 + 8);
        k1 *= C1;
        k1 = rotl64(k1, 31);
        k1 *= C2;
        *h1 ^= k1;
        *h1 = rotl64(*h1, 27);
        *h1 += *h2;
        *h1 = *h1 * 5 + 0x52dce729;
        k2 *= C2;
        k2 = rotl64(k2, 33);
        k2 *= C1;
        *h2 ^= k2;
        *h2 = rotl64(*h2, 31);
        *h2 += *h1;
        *h2 = *h2 * 5 + 0x38495ab5;
    }
}

static void mix_tail(const uint8_t *tail, size_t n, uint64_t *h1, uint64_t *h2)
{
    uint64_t k1 = 0, k2 = 0;
    for (size_t i = n; i > 8; i--)
        k2 = (k2 << 8) | tail[i - 1];
    for (size_t i = n < 8 ? n : 8; i > 0; i--)
        k1 = (k1 << 8) | tail[i - 1];
    if (n > 8) {
        k2 *= C2;
        k2 = rotl64(k2, 33);
        k2 *= C1;
        *h2 ^= k2;
    }
    if (n > 0) {
        k1 *= C1;
        k1 = rotl64(k1, 31);
        k1 *= C2;
        *h1 ^= k1;
    }
}

void fl_murmur3_x64_128(const void *data, size_t len, uint64_t seed, uint64_t out[2])
{
    const uint8_t *p = data;
    uint64_t h1 = seed, h2 = seed;
    size_t nblocks = len / 16;
    mix_blocks(p, nblocks, &h1, &h2);
    mix_tail(p + nblocks * 16, len & 15, &h1, &h2);
    h1 ^= (uint64_t)len;
    h2 ^= (uint64_t)len;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 += h2;
    h2 += h1;
    out[0] = h1;
    out[1] = h2;
}

uint16_t fl_theta_seed_hash(uint64_t seed)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(seed >> (8 * i));
    uint64_t h[2];
    fl_murmur3_x64_128(b, sizeof b, 0, h);
    return (uint16_t)(h[0] & 0xFFFF);
}
