/*
 * bloom.c - Parquet split-block bloom filters (SBBF): sizing, insert, check,
 * hashing of values, and the on-disk form (BloomFilterHeader + bitset).
 *
 * Spec: apache/parquet-format BloomFilter.md.
 *   - a filter is z >= 1 blocks of 256 bits = 8 little-endian 32-bit words;
 *   - a 64-bit hash h picks block ((h >> 32) * z) >> 32 and its low 32 bits
 *     x set/test one bit per word: bit (x * salt[i]) >> 27 of word i;
 *   - h = XXH64(PLAIN bytes of the value, seed 0) (BYTE_ARRAY without its
 *     length prefix), via Debian's libxxhash;
 *   - on disk: Thrift compact BloomFilterHeader { 1: i32 numBytes,
 *     2: BloomFilterAlgorithm {1: BLOCK}, 3: BloomFilterHash {1: XXHASH},
 *     4: BloomFilterCompression {1: UNCOMPRESSED} } then numBytes of bitset.
 *
 * Sizing follows the usual SBBF formula (parquet-mr, Arrow): bits =
 * -8 * ndv / ln(1 - fpp^(1/8)), rounded up to a power of two bytes within
 * [32 B, 128 MiB].
 *
 * A pre-release layout (three little-endian int32: numBytes, algorithm,
 * hash; hash 0 = Murmur3) exists in old files such as parquet-testing's
 * bloom_filter.bin. Its bitset has the same block layout, but its hash is not
 * XXH64, so checking XXH64 hashes against it would give false "absent"
 * answers: fl_pq_bloom_parse recognises it and reports FL_EUNSUPPORTED.
 *
 * Ownership: fl_pq_bloom.blocks is malloc'd by init/parse and freed by
 * fl_pq_bloom_free.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "parquet/stats.h"
#include "parquet/thrift.h"

#define BLOOM_MIN_BYTES 32u
#define BLOOM_MAX_BYTES (128u * 1024 * 1024)
#define BLOCK_BYTES 32u

static const uint32_t SALT[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                 0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

uint64_t fl_pq_bloom_hash(const fl_pq_leaf_info *leaf, const fl_value *v)
{
    uint8_t scratch[32];
    const uint8_t *p;
    size_t n;
    if (!fl_pq_value_plain(leaf, v, scratch, &p, &n))
        return 0;
    return (uint64_t)XXH64(p, n, 0);
}

static uint32_t bloom_bytes(uint64_t ndv, double fpp)
{
    if (!(fpp > 0 && fpp < 1))
        fpp = 0.01;
    double bits = ndv ? -8.0 * (double)ndv / log(1.0 - pow(fpp, 1.0 / 8.0)) : 0;
    double bytes = bits / 8.0;
    if (!(bytes < (double)BLOOM_MAX_BYTES))
        return BLOOM_MAX_BYTES;
    uint32_t b = BLOOM_MIN_BYTES;
    while ((double)b < bytes)
        b <<= 1;
    return b;
}

fl_status fl_pq_bloom_init(fl_pq_bloom *b, uint64_t ndv, double fpp, fl_error *err)
{
    if (!(fpp > 0 && fpp < 1))
        return fl_errorf(err, FL_EINVAL, "bloom filter: false positive rate %g is not in (0, 1)",
                         fpp);
    uint32_t bytes = bloom_bytes(ndv, fpp);
    b->nblocks = bytes / BLOCK_BYTES;
    b->blocks = calloc((size_t)b->nblocks * 8, sizeof(uint32_t));
    if (!b->blocks) {
        b->nblocks = 0;
        return fl_errorf(err, FL_ENOMEM, "bloom filter: out of memory for %u bytes", bytes);
    }
    return FL_OK;
}

static inline uint32_t *bloom_block(const fl_pq_bloom *b, uint64_t h)
{
    uint64_t i = ((h >> 32) * (uint64_t)b->nblocks) >> 32;
    return b->blocks + i * 8;
}

void fl_pq_bloom_insert(fl_pq_bloom *b, uint64_t hash)
{
    if (!b->nblocks)
        return;
    uint32_t *w = bloom_block(b, hash);
    uint32_t x = (uint32_t)hash;
    for (int i = 0; i < 8; i++)
        w[i] |= 1u << ((x * SALT[i]) >> 27);
}

bool fl_pq_bloom_check(const fl_pq_bloom *b, uint64_t hash)
{
    if (!b->nblocks)
        return true; /* no filter: cannot exclude anything */
    const uint32_t *w = bloom_block(b, hash);
    uint32_t x = (uint32_t)hash;
    uint32_t miss = 0;
    for (int i = 0; i < 8; i++)
        miss |= ~w[i] & (1u << ((x * SALT[i]) >> 27));
    return miss == 0;
}

void fl_pq_bloom_free(fl_pq_bloom *b)
{
    free(b->blocks);
    b->blocks = NULL;
    b->nblocks = 0;
}

fl_status fl_pq_bloom_serialize(const fl_pq_bloom *b, fl_pq_buf *out, fl_error *err)
{
    if (!b->nblocks)
        return fl_errorf(err, FL_EINVAL, "bloom filter: empty filter");
    uint32_t bytes = b->nblocks * BLOCK_BYTES;
    fl_tw w;
    fl_tw_init(&w, out, err);
    size_t start = out->len;
    fl_tw_struct_begin(&w);
    fl_tw_f_i32(&w, 1, (int32_t)bytes);
    fl_tw_f_struct_begin(&w, 2); /* BloomFilterAlgorithm */
    fl_tw_f_empty_struct(&w, 1); /* BLOCK */
    fl_tw_struct_end(&w);
    fl_tw_f_struct_begin(&w, 3); /* BloomFilterHash */
    fl_tw_f_empty_struct(&w, 1); /* XXHASH */
    fl_tw_struct_end(&w);
    fl_tw_f_struct_begin(&w, 4); /* BloomFilterCompression */
    fl_tw_f_empty_struct(&w, 1); /* UNCOMPRESSED */
    fl_tw_struct_end(&w);
    fl_tw_struct_end(&w);
    if (fl_tw_status(&w) != FL_OK) {
        out->len = start;
        return fl_tw_status(&w);
    }
    fl_status st = fl_buf_reserve(out, bytes, err);
    if (st != FL_OK) {
        out->len = start;
        return st;
    }
    uint8_t *p = out->bytes + out->len;
    for (size_t i = 0; i < (size_t)b->nblocks * 8; i++) {
        uint32_t x = b->blocks[i];
        p[4 * i] = (uint8_t)x;
        p[4 * i + 1] = (uint8_t)(x >> 8);
        p[4 * i + 2] = (uint8_t)(x >> 16);
        p[4 * i + 3] = (uint8_t)(x >> 24);
    }
    out->len += bytes;
    return FL_OK;
}

/* Reads a union field holding one empty-struct member; *tag = its id. */
static fl_status read_union(fl_tr *r, uint8_t t, const char *name, int16_t *tag)
{
    static const char *const NAMES[] = {NULL};
    static const uint8_t TYPES[] = {0};
    FL_TRY(fl_tr_expect(r, t, FL_TT_STRUCT));
    FL_TRY(fl_tr_struct_begin(r, name, NAMES, TYPES, 1));
    *tag = 0;
    for (;;) {
        int16_t fid;
        uint8_t ft;
        FL_TRY(fl_tr_field(r, &fid, &ft));
        if (ft == FL_TT_STOP)
            break;
        if (*tag == 0)
            *tag = fid;
        FL_TRY(fl_tr_skip(r, ft));
    }
    fl_tr_struct_end(r);
    return FL_OK;
}

static fl_status load_bitset(const uint8_t *p, uint32_t bytes, fl_pq_bloom *b, fl_error *err)
{
    b->nblocks = bytes / BLOCK_BYTES;
    b->blocks = malloc((size_t)bytes);
    if (!b->blocks) {
        b->nblocks = 0;
        return fl_errorf(err, FL_ENOMEM, "bloom filter: out of memory for %u bytes", bytes);
    }
    for (size_t i = 0; i < (size_t)bytes / 4; i++)
        b->blocks[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
                       (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
    return FL_OK;
}

static fl_status check_size(int64_t bytes, size_t left, size_t at, fl_error *err)
{
    if (bytes < BLOOM_MIN_BYTES || bytes > BLOOM_MAX_BYTES || bytes % BLOCK_BYTES != 0)
        return fl_errorf(err, FL_ECORRUPT,
                         "bloom filter: byte %zu: invalid bitset size %lld (a multiple of 32 in "
                         "[32, 128 MiB])",
                         at, (long long)bytes);
    if ((uint64_t)bytes > left)
        return fl_errorf(err, FL_ECORRUPT,
                         "bloom filter: byte %zu: bitset of %lld bytes exceeds the %zu bytes left",
                         at, (long long)bytes, left);
    return FL_OK;
}

fl_status fl_pq_bloom_parse(const uint8_t *buf, size_t len, fl_pq_bloom *b, size_t *consumed,
                            fl_error *err)
{
    b->blocks = NULL;
    b->nblocks = 0;
    /* pre-release layout: int32 numBytes (a multiple of 32, so its low byte is
     * 0 -- a Thrift header cannot start with STOP), int32 algorithm, int32 hash */
    if (len >= 12 && buf[0] == 0x00) {
        int64_t bytes = (int64_t)((uint32_t)buf[0] | (uint32_t)buf[1] << 8 |
                                  (uint32_t)buf[2] << 16 | (uint32_t)buf[3] << 24);
        FL_TRY(check_size(bytes, len - 12, 0, err));
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "bloom filter: pre-release header layout (algorithm %u, hash %u: "
                         "Murmur3) is not supported; only XXH64 filters are",
                         buf[4], buf[8]);
    }
    static const char *const NAMES[] = {NULL, "numBytes", "algorithm", "hash", "compression"};
    static const uint8_t TYPES[] = {0, FL_TT_I32, FL_TT_STRUCT, FL_TT_STRUCT, FL_TT_STRUCT};
    fl_tr r;
    fl_tr_init(&r, buf, len, NULL, err);
    FL_TRY(fl_tr_struct_begin(&r, "BloomFilterHeader", NAMES, TYPES, 5));
    int32_t bytes = -1;
    int16_t alg = -1, hash = -1, comp = -1;
    for (;;) {
        int16_t fid;
        uint8_t ft;
        FL_TRY(fl_tr_field(&r, &fid, &ft));
        if (ft == FL_TT_STOP)
            break;
        switch (fid) {
        case 1: FL_TRY(fl_tr_i32(&r, ft, &bytes)); break;
        case 2: FL_TRY(read_union(&r, ft, "BloomFilterAlgorithm", &alg)); break;
        case 3: FL_TRY(read_union(&r, ft, "BloomFilterHash", &hash)); break;
        case 4: FL_TRY(read_union(&r, ft, "BloomFilterCompression", &comp)); break;
        default: FL_TRY(fl_tr_skip(&r, ft)); break;
        }
    }
    fl_tr_struct_end(&r);
    if (bytes < 0 || alg < 0 || hash < 0 || comp < 0)
        return fl_errorf(err, FL_ECORRUPT, "bloom filter: byte %zu: header lacks %s", r.pos,
                         bytes < 0  ? "numBytes"
                         : alg < 0  ? "algorithm"
                         : hash < 0 ? "hash"
                                    : "compression");
    if (alg != 1 || hash != 1 || comp != 1)
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "bloom filter: algorithm %d, hash %d, compression %d (only split block, "
                         "XXH64, uncompressed are supported)",
                         alg, hash, comp);
    FL_TRY(check_size(bytes, len - r.pos, r.pos, err));
    FL_TRY(load_bitset(buf + r.pos, (uint32_t)bytes, b, err));
    if (consumed)
        *consumed = r.pos + (size_t)bytes;
    return FL_OK;
}
