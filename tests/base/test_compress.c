/* Unit tests for base/compress.c: round trips for every codec, corrupt and
 * truncated input, output limits, gzip members and the LZ4 Hadoop fallbacks. */
#include <lz4.h>
#include <lz4frame.h>
#include <stdint.h>
#include <zlib.h>

#include "floe/compress.h"
#include "floe_test.h"

static const fl_codec all_codecs[] = {FL_CODEC_NONE,       FL_CODEC_SNAPPY, FL_CODEC_GZIP,
                                      FL_CODEC_DEFLATE,    FL_CODEC_ZSTD,   FL_CODEC_LZ4_RAW,
                                      FL_CODEC_LZ4_HADOOP, FL_CODEC_BROTLI};
#define NCODECS (sizeof all_codecs / sizeof all_codecs[0])

/* Deterministic, moderately compressible data. */
static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (i % 7 == 0) ? (uint8_t)(x >> 24) : (uint8_t)("abcdefgh"[(x >> 16) & 7]);
    }
}

/* Compresses src with c; returns a malloc'd buffer and its length. */
static uint8_t *compress_new(fl_codec c, const uint8_t *src, size_t n, size_t *clen)
{
    fl_error err;
    size_t cap = fl_compress_bound(c, n);
    CHECK(cap >= n || c != FL_CODEC_NONE);
    uint8_t *dst = malloc(cap ? cap : 1);
    CHECK(dst != NULL);
    CHECK_OK(fl_compress(c, 0, src, n, dst, cap, clen, &err), &err);
    CHECK(*clen <= cap);
    return dst;
}

static void round_trip(fl_codec c, size_t n)
{
    fl_error err;
    uint8_t *src = calloc(1, n ? n : 1);
    fill(src, n, (uint32_t)n);
    size_t clen = 0;
    uint8_t *comp = compress_new(c, src, n, &clen);
    /* known size */
    uint8_t *out = malloc(n ? n : 1);
    int rc = fl_decompress(c, comp, clen, out, n, &err);
    if (rc)
        fprintf(stderr, "%s n=%zu: %s\n", fl_codec_name(c), n, err.msg);
    CHECK_EQ_INT(rc, FL_OK);
    CHECK(n == 0 || memcmp(out, src, n) == 0);
    /* unknown size, fresh buffer */
    uint8_t *buf = NULL;
    size_t cap = 0, len = 12345;
    rc = fl_decompress_alloc(c, comp, clen, &buf, &cap, &len, n + 10, &err);
    if (rc)
        fprintf(stderr, "%s alloc n=%zu: %s\n", fl_codec_name(c), n, err.msg);
    CHECK_EQ_INT(rc, FL_OK);
    CHECK_EQ_INT(len, n);
    CHECK(n == 0 || memcmp(buf, src, n) == 0);
    /* exact limit */
    rc = fl_decompress_alloc(c, comp, clen, &buf, &cap, &len, n, &err);
    if (rc)
        fprintf(stderr, "%s alloc exact n=%zu: %s\n", fl_codec_name(c), n, err.msg);
    CHECK_EQ_INT(rc, FL_OK);
    CHECK_EQ_INT(len, n);
    /* limit one below: FL_ELIMIT */
    if (n > 0) {
        free(buf);
        buf = NULL;
        cap = 0;
        rc = fl_decompress_alloc(c, comp, clen, &buf, &cap, &len, n - 1, &err);
        if (rc != FL_ELIMIT)
            fprintf(stderr, "%s limit n=%zu: rc %d %s\n", fl_codec_name(c), n, rc, err.msg);
        CHECK_EQ_INT(rc, FL_ELIMIT);
        if (!(cap <= (n > 1 ? n - 1 : 1) || buf == NULL))
            fprintf(stderr, "%s n=%zu cap=%zu\n", fl_codec_name(c), n, cap);
        CHECK(cap <= (n > 1 ? n - 1 : 1) || buf == NULL);
        /* wrong expected size: corrupt */
        rc = fl_decompress(c, comp, clen, out, n - 1, &err);
        CHECK_EQ_INT(rc, FL_ECORRUPT);
    }
    free(buf);
    free(out);
    free(comp);
    free(src);
}

static void test_round_trips(void)
{
    static const size_t sizes[] = {0, 1, 7, 100, 4096, 65536, 65537, 300000};
    for (size_t c = 0; c < NCODECS; c++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            round_trip(all_codecs[c], sizes[s]);
}

static void test_levels(void)
{
    fl_error err;
    uint8_t src[5000], out[5000];
    fill(src, sizeof src, 3);
    static const struct {
        fl_codec c;
        int level;
    } cases[] = {{FL_CODEC_GZIP, 1},   {FL_CODEC_GZIP, 9},    {FL_CODEC_ZSTD, 1},
                 {FL_CODEC_ZSTD, 19},  {FL_CODEC_LZ4_RAW, 9}, {FL_CODEC_BROTLI, 1},
                 {FL_CODEC_BROTLI, 11}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t cap = fl_compress_bound(cases[i].c, sizeof src), clen;
        uint8_t *dst = malloc(cap);
        CHECK_OK(fl_compress(cases[i].c, cases[i].level, src, sizeof src, dst, cap, &clen, &err),
                 &err);
        CHECK_OK(fl_decompress(cases[i].c, dst, clen, out, sizeof out, &err), &err);
        CHECK(memcmp(out, src, sizeof src) == 0);
        free(dst);
    }
}

/* Flipping bytes or truncating never crashes and is reported as an error. */
static void test_corrupt(void)
{
    fl_error err;
    size_t n = 20000;
    uint8_t *src = malloc(n), *out = malloc(n);
    fill(src, n, 9);
    for (size_t c = 1; c < NCODECS; c++) {
        fl_codec codec = all_codecs[c];
        size_t clen;
        uint8_t *comp = compress_new(codec, src, n, &clen);
        /* truncation */
        int rc = fl_decompress(codec, comp, clen / 2, out, n, &err);
        CHECK(rc == FL_ECORRUPT);
        CHECK(strstr(err.msg, fl_codec_name(codec)) != NULL);
        uint8_t *buf = NULL;
        size_t cap = 0, len;
        rc = fl_decompress_alloc(codec, comp, clen / 2, &buf, &cap, &len, n * 2, &err);
        CHECK(rc == FL_ECORRUPT);
        /* garbage */
        for (size_t k = 0; k < 200; k++) {
            uint8_t *bad = malloc(clen);
            memcpy(bad, comp, clen);
            uint32_t x = (uint32_t)(k * 2654435761u + c);
            for (int j = 0; j < 4; j++) {
                x = x * 1103515245u + 12345u;
                bad[(x >> 8) % clen] ^= (uint8_t)(x >> 24 | 1);
            }
            rc = fl_decompress(codec, bad, clen, out, n, &err);
            CHECK(rc == FL_OK || rc == FL_ECORRUPT);
            rc = fl_decompress_alloc(codec, bad, clen, &buf, &cap, &len, n * 2, &err);
            CHECK(rc == FL_OK || rc == FL_ECORRUPT || rc == FL_ELIMIT);
            CHECK(cap <= n * 2);
            free(bad);
        }
        free(buf);
        free(comp);
    }
    /* pure noise */
    uint8_t noise[512];
    for (size_t i = 0; i < sizeof noise; i++)
        noise[i] = (uint8_t)(i * 37 + 11);
    for (size_t c = 1; c < NCODECS; c++) {
        int rc = fl_decompress(all_codecs[c], noise, sizeof noise, out, 1000, &err);
        CHECK_EQ_INT(rc, FL_ECORRUPT);
    }
    free(src);
    free(out);
}

static void test_gzip_members(void)
{
    fl_error err;
    const char *a = "hello, ", *b = "gzip members";
    size_t la = strlen(a), lb = strlen(b);
    uint8_t ca[256], cb[256];
    size_t na, nb;
    CHECK_OK(fl_compress(FL_CODEC_GZIP, 0, (const uint8_t *)a, la, ca, sizeof ca, &na, &err), &err);
    CHECK_OK(fl_compress(FL_CODEC_GZIP, 0, (const uint8_t *)b, lb, cb, sizeof cb, &nb, &err), &err);
    uint8_t cat[512];
    memcpy(cat, ca, na);
    memcpy(cat + na, cb, nb);
    uint8_t out[64];
    CHECK_OK(fl_decompress(FL_CODEC_GZIP, cat, na + nb, out, la + lb, &err), &err);
    CHECK(memcmp(out, "hello, gzip members", la + lb) == 0);
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    CHECK_OK(fl_decompress_alloc(FL_CODEC_GZIP, cat, na + nb, &buf, &cap, &len, 1000, &err), &err);
    CHECK_EQ_INT(len, la + lb);
    CHECK(memcmp(buf, "hello, gzip members", la + lb) == 0);
    /* trailing zero padding is accepted, trailing garbage is not */
    memset(cat + na + nb, 0, 8);
    CHECK_OK(fl_decompress(FL_CODEC_GZIP, cat, na + nb + 8, out, la + lb, &err), &err);
    cat[na + nb + 3] = 'x';
    CHECK_EQ_INT(fl_decompress(FL_CODEC_GZIP, cat, na + nb + 8, out, la + lb, &err), FL_ECORRUPT);
    /* a zlib stream labelled gzip is accepted */
    uLongf zl = sizeof cat;
    CHECK(compress2(cat, &zl, (const Bytef *)a, la, 6) == Z_OK);
    CHECK_OK(fl_decompress(FL_CODEC_GZIP, cat, zl, out, la, &err), &err);
    CHECK(memcmp(out, a, la) == 0);
    free(buf);
    /* raw deflate as Python's Avro writes it: zlib stream minus 2-byte header
     * and the last byte, i.e. deflate data + 3 stray Adler-32 bytes */
    zl = sizeof cat;
    CHECK(compress2(cat, &zl, (const Bytef *)b, lb, 6) == Z_OK);
    CHECK_OK(fl_decompress(FL_CODEC_DEFLATE, cat + 2, zl - 3, out, lb, &err), &err);
    CHECK(memcmp(out, b, lb) == 0);
    buf = NULL;
    cap = 0;
    CHECK_OK(fl_decompress_alloc(FL_CODEC_DEFLATE, cat + 2, zl - 3, &buf, &cap, &len, 100, &err),
             &err);
    CHECK_EQ_INT(len, lb);
    free(buf);
}

/* Parquet legacy LZ4: Hadoop framing with several blocks and chunks, an LZ4
 * frame, and a raw block all decode through FL_CODEC_LZ4_HADOOP. */
static void test_lz4_hadoop_variants(void)
{
    fl_error err;
    uint8_t src[3000], out[3000];
    fill(src, sizeof src, 5);
    /* two blocks: [1000] in one chunk, [2000] in two chunks of 1000 */
    uint8_t h[8000];
    size_t hp = 0;
    const size_t parts[][2] = {{0, 1000}, {1000, 1000}, {2000, 1000}};
    for (int i = 0; i < 3; i++) {
        if (i != 2) {
            uint32_t u = i == 0 ? 1000 : 2000;
            h[hp++] = (uint8_t)(u >> 24), h[hp++] = (uint8_t)(u >> 16);
            h[hp++] = (uint8_t)(u >> 8), h[hp++] = (uint8_t)u;
        }
        int c = LZ4_compress_default((const char *)src + parts[i][0], (char *)h + hp + 4,
                                     (int)parts[i][1], (int)(sizeof h - hp - 4));
        CHECK(c > 0);
        h[hp++] = (uint8_t)(c >> 24), h[hp++] = (uint8_t)(c >> 16);
        h[hp++] = (uint8_t)(c >> 8), h[hp++] = (uint8_t)c;
        hp += (size_t)c;
    }
    CHECK_OK(fl_decompress(FL_CODEC_LZ4_HADOOP, h, hp, out, sizeof src, &err), &err);
    CHECK(memcmp(out, src, sizeof src) == 0);
    uint8_t *buf = NULL;
    size_t cap = 0, len;
    CHECK_OK(fl_decompress_alloc(FL_CODEC_LZ4_HADOOP, h, hp, &buf, &cap, &len, 1 << 20, &err),
             &err);
    CHECK_EQ_INT(len, sizeof src);
    CHECK(memcmp(buf, src, sizeof src) == 0);
    CHECK_EQ_INT(fl_decompress_alloc(FL_CODEC_LZ4_HADOOP, h, hp, &buf, &cap, &len, 2999, &err),
                 FL_ELIMIT);
    /* LZ4 frame */
    size_t fcap = LZ4F_compressFrameBound(sizeof src, NULL);
    uint8_t *fr = malloc(fcap);
    size_t fl = LZ4F_compressFrame(fr, fcap, src, sizeof src, NULL);
    CHECK(!LZ4F_isError(fl));
    memset(out, 0, sizeof out);
    CHECK_OK(fl_decompress(FL_CODEC_LZ4_HADOOP, fr, fl, out, sizeof src, &err), &err);
    CHECK(memcmp(out, src, sizeof src) == 0);
    CHECK_OK(fl_decompress_alloc(FL_CODEC_LZ4_HADOOP, fr, fl, &buf, &cap, &len, 1 << 20, &err),
             &err);
    CHECK_EQ_INT(len, sizeof src);
    CHECK_EQ_INT(fl_decompress(FL_CODEC_LZ4_HADOOP, fr, fl / 2, out, sizeof src, &err),
                 FL_ECORRUPT);
    /* raw block */
    int rl = LZ4_compress_default((const char *)src, (char *)h, (int)sizeof src, (int)sizeof h);
    memset(out, 0, sizeof out);
    CHECK_OK(fl_decompress(FL_CODEC_LZ4_HADOOP, h, (size_t)rl, out, sizeof src, &err), &err);
    CHECK(memcmp(out, src, sizeof src) == 0);
    CHECK_OK(
        fl_decompress_alloc(FL_CODEC_LZ4_HADOOP, h, (size_t)rl, &buf, &cap, &len, 1 << 20, &err),
        &err);
    CHECK_EQ_INT(len, sizeof src);
    CHECK(memcmp(buf, src, sizeof src) == 0);
    free(fr);
    free(buf);
}

/* A small input that expands hugely must stop at the limit, not allocate. */
static void test_bomb_limit(void)
{
    fl_error err;
    size_t n = 16 << 20;
    uint8_t *zeros = calloc(1, n);
    for (size_t c = 1; c < NCODECS; c++) {
        if (all_codecs[c] == FL_CODEC_LZ4_RAW || all_codecs[c] == FL_CODEC_SNAPPY)
            continue; /* bounded by their format: at most 255x / 64x */
        size_t clen;
        uint8_t *comp = compress_new(all_codecs[c], zeros, n, &clen);
        uint8_t *buf = NULL;
        size_t cap = 0, len;
        int rc = fl_decompress_alloc(all_codecs[c], comp, clen, &buf, &cap, &len, 1 << 20, &err);
        CHECK_EQ_INT(rc, FL_ELIMIT);
        CHECK(cap <= (1 << 20));
        CHECK(strstr(err.msg, "limit") != NULL);
        free(buf);
        free(comp);
    }
    free(zeros);
}

static void test_crc32(void)
{
    const char *s = "123456789";
    CHECK_EQ_INT(fl_crc32(0, (const uint8_t *)s, 9), 0xCBF43926u);
    uint32_t c = fl_crc32(0, (const uint8_t *)s, 4);
    CHECK_EQ_INT(fl_crc32(c, (const uint8_t *)s + 4, 5), 0xCBF43926u);
    CHECK_EQ_INT(fl_crc32(0, NULL, 0), 0);
}

static void test_names_and_small_buffers(void)
{
    fl_error err;
    CHECK_EQ_STR(fl_codec_name(FL_CODEC_ZSTD), "zstd");
    CHECK_EQ_STR(fl_codec_name(FL_CODEC_LZ4_HADOOP), "lz4");
    CHECK_EQ_STR(fl_codec_name((fl_codec)99), "unknown codec");
    uint8_t src[1000], dst[10];
    size_t out;
    fill(src, sizeof src, 1);
    for (size_t c = 0; c < NCODECS; c++)
        CHECK(fl_compress(all_codecs[c], 0, src, sizeof src, dst, sizeof dst, &out, &err) != FL_OK);
    CHECK_EQ_INT(fl_decompress((fl_codec)99, src, 1, dst, 1, &err), FL_EUNSUPPORTED);
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Real gzip files written by other tools (TPC-H .tbl.gz, Iceberg *.gz.metadata.json):
 * the size and CRC-32 in each file's trailer must match what we inflate. */
static void test_gzip_fixtures(void)
{
    const char *shared = test_shared_dir();
    if (!shared) {
        fprintf(stderr, "skipping gzip fixtures: FLOE_SHARED not set or fixtures absent\n");
        return;
    }
    static const struct {
        const char *path;
        long lines; /* -1: do not count */
    } files[] = {
        {"bench/tpch-sf0.01/tables/lineitem.tbl.gz", 60175},
        {"bench/tpch-sf0.01/tables/orders.tbl.gz", 15000},
        {"bench/tpch-sf0.01/tables/region.tbl.gz", 5},
        {"iceberg/duckdb-iceberg/data/persistent/iceberg/lineitem_iceberg_gz/metadata/"
         "v1.gz.metadata.json",
         -1},
    };
    fl_error err;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/fixtures/%s", shared, files[i].path);
        size_t n;
        uint8_t *gz = ft_slurp(path, &n);
        if (!gz) {
            fprintf(stderr, "fixture missing: %s\n", path);
            CHECK(gz != NULL);
            continue;
        }
        CHECK(n > 18);
        uint32_t want_crc = le32(gz + n - 8), want_len = le32(gz + n - 4);
        uint8_t *out = NULL;
        size_t cap = 0, len = 0;
        CHECK_OK(fl_decompress_alloc(FL_CODEC_GZIP, gz, n, &out, &cap, &len, 64 << 20, &err), &err);
        CHECK_EQ_INT(len, want_len);
        CHECK_EQ_INT(fl_crc32(0, out, len), want_crc);
        if (files[i].lines >= 0) {
            long lines = 0;
            for (size_t k = 0; k < len; k++)
                lines += out[k] == '\n';
            CHECK_EQ_INT(lines, files[i].lines);
        } else {
            CHECK(len > 0 && out[0] == '{');
        }
        uint8_t *fixed = malloc(want_len ? want_len : 1);
        CHECK_OK(fl_decompress(FL_CODEC_GZIP, gz, n, fixed, want_len, &err), &err);
        CHECK(memcmp(fixed, out, want_len) == 0);
        CHECK_EQ_INT(fl_decompress(FL_CODEC_GZIP, gz, n, fixed, want_len - 1, &err), FL_ECORRUPT);
        free(fixed);
        free(out);
        free(gz);
    }
}

int main(void)
{
    TEST_RUN(test_round_trips);
    TEST_RUN(test_levels);
    TEST_RUN(test_corrupt);
    TEST_RUN(test_gzip_members);
    TEST_RUN(test_lz4_hadoop_variants);
    TEST_RUN(test_bomb_limit);
    TEST_RUN(test_crc32);
    TEST_RUN(test_names_and_small_buffers);
    TEST_RUN(test_gzip_fixtures);
    return TEST_EXIT();
}
