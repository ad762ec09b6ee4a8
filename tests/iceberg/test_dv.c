/*
 * test_dv.c - deletion vectors, Puffin footers and the portable 64-bit
 * roaring decoder: inline cases first (run cookie, bitmap container,
 * corruption), then the iceberg-go / Java golden files under
 * $FLOE_SHARED/fixtures/iceberg/metadata-only/iceberg-go.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/compress.h"
#include "floe/ice_scan.h"
#include "floe_test.h"
#include "iceberg/scan_internal.h"

/* the fuzz target, replayed deterministically below (no libFuzzer needed) */
#include "../../fuzz/fuzz_puffin_dv.c"

static void put32le(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void put16le(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}

/* Wraps a roaring64 body as a DV blob (BE length, magic, body, BE CRC). */
static size_t wrap_dv(const uint8_t *body, size_t n, uint8_t *out)
{
    uint32_t len = (uint32_t)n + 4;
    out[0] = (uint8_t)(len >> 24), out[1] = (uint8_t)(len >> 16), out[2] = (uint8_t)(len >> 8),
    out[3] = (uint8_t)len;
    out[4] = 0xD1, out[5] = 0xD3, out[6] = 0x39, out[7] = 0x64;
    memcpy(out + 8, body, n);
    uint32_t crc = fl_crc32(0, out + 4, n + 4);
    uint8_t *c = out + 8 + n;
    c[0] = (uint8_t)(crc >> 24), c[1] = (uint8_t)(crc >> 16), c[2] = (uint8_t)(crc >> 8),
    c[3] = (uint8_t)crc;
    return n + 12;
}

static void test_inline_run_and_bitmap(void)
{
    /* two 32-bit bitmaps: key 0 with a run container [5, 105) (cookie 12347),
     * key 1 with a bitmap container holding 5000 even values */
    static uint8_t body[20000];
    size_t o = 0;
    put32le(body + o, 2), put32le(body + o + 4, 0), o += 8;
    put32le(body + o, 0), o += 4;      /* key 0 */
    put32le(body + o, 12347u), o += 4; /* 1 container */
    body[o++] = 1;                     /* run flag */
    put16le(body + o, 0), put16le(body + o + 2, 99), o += 4;
    put16le(body + o, 1), o += 2;                            /* nruns */
    put16le(body + o, 5), put16le(body + o + 2, 99), o += 4; /* [5, 5+99] */
    put32le(body + o, 1), o += 4;                            /* key 1 */
    put32le(body + o, 12346u), put32le(body + o + 4, 1), o += 8;
    put16le(body + o, 0), put16le(body + o + 2, 4999), o += 4;
    put32le(body + o, 0), o += 4; /* offset (unchecked) */
    memset(body + o, 0, 8192);
    for (int v = 0; v < 10000; v += 2)
        body[o + v / 8] |= (uint8_t)(1u << (v % 8));
    o += 8192;
    static uint8_t blob[20100];
    size_t bl = wrap_dv(body, o, blob);
    fl_error err;
    fl_ice_position_set s;
    CHECK_OK(fl_ice_dv_decode(blob, bl, &s, &err), &err);
    CHECK_EQ_INT(s.n, 100 + 5000);
    CHECK_EQ_INT(s.nranges, 1 + 5000);
    CHECK(fl_ice_position_set_contains(&s, 5));
    CHECK(fl_ice_position_set_contains(&s, 104));
    CHECK(!fl_ice_position_set_contains(&s, 105));
    CHECK(!fl_ice_position_set_contains(&s, 4));
    CHECK(fl_ice_position_set_contains(&s, (1ull << 32) + 9998));
    CHECK(!fl_ice_position_set_contains(&s, (1ull << 32) + 9999));
    fl_ice_position_set_free(&s);

    /* corruption: CRC, magic, truncation are errors, never crashes */
    blob[bl - 1] ^= 1;
    CHECK_EQ_INT(fl_ice_dv_decode(blob, bl, &s, &err), FL_ECHECKSUM);
    blob[bl - 1] ^= 1;
    for (size_t cut = 0; cut < bl; cut += 97)
        CHECK(fl_ice_dv_decode(blob, cut, &s, &err) != FL_OK);
    blob[5] = 0;
    CHECK_EQ_INT(fl_ice_dv_decode(blob, bl, &s, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "magic") != NULL);
}

static void test_union_and_array(void)
{
    uint64_t a[] = {9, 1, 2, 3, 7, 3};
    fl_ice_position_set x, y, u;
    fl_error err;
    CHECK_OK(ice_pos_from_array(a, 6, &x, &err), &err);
    CHECK_EQ_INT(x.n, 5);
    CHECK_EQ_INT(x.nranges, 3);
    uint64_t b[] = {4, 8, 100};
    CHECK_OK(ice_pos_from_array(b, 3, &y, &err), &err);
    CHECK_OK(ice_pos_union(&x, &y, &u, &err), &err);
    CHECK_EQ_INT(u.nranges, 3); /* [1,5) [7,10) [100,101) */
    CHECK(fl_ice_position_set_contains(&u, 4));
    CHECK(fl_ice_position_set_contains(&u, 8));
    CHECK(!fl_ice_position_set_contains(&u, 6));
    fl_ice_position_set_free(&x);
    fl_ice_position_set_free(&y);
    fl_ice_position_set_free(&u);
}

static char g_dir[4096];

static uint8_t *fixture(const char *rel, size_t *len)
{
    char p[8192];
    snprintf(p, sizeof p, "%s/%s", g_dir, rel);
    uint8_t *b = ft_slurp(p, len);
    if (!b)
        fprintf(stderr, "cannot read %s\n", p);
    return b;
}

static void check_odd(const fl_ice_position_set *s)
{
    CHECK_EQ_INT(s->n, 5);
    for (uint64_t i = 0; i < 12; i++)
        CHECK(fl_ice_position_set_contains(s, i) == (i % 2 == 1 && i <= 9));
}

static void test_golden_blobs(void)
{
    size_t n;
    fl_error err;
    fl_ice_position_set s;
    const char *odd[] = {"puffin/deletion-vector-v1-payload.bin",
                         "dv/small-alternating-values-position-index.bin"};
    for (int i = 0; i < 2; i++) {
        uint8_t *b = fixture(odd[i], &n);
        CHECK(b != NULL);
        if (!b)
            continue;
        CHECK_OK(fl_ice_dv_decode(b, n, &s, &err), &err);
        check_odd(&s);
        fl_ice_position_set_free(&s);
        free(b);
    }
    uint8_t *b = fixture("dv/64map32bitvals.bin", &n);
    CHECK(b != NULL);
    if (b) {
        CHECK_OK(ice_roaring64_decode(b, n, &s, &err), &err);
        CHECK_EQ_INT(s.n, 10);
        CHECK_EQ_INT(s.nranges, 1);
        CHECK(fl_ice_position_set_contains(&s, 0) && fl_ice_position_set_contains(&s, 9));
        fl_ice_position_set_free(&s);
        free(b);
    }
    b = fixture("dv/64mapempty.bin", &n);
    CHECK(b != NULL);
    if (b) {
        CHECK_OK(ice_roaring64_decode(b, n, &s, &err), &err);
        CHECK_EQ_INT(s.n, 0);
        free(b);
    }
    b = fixture("dv/all-container-types-position-index.bin", &n);
    CHECK(b != NULL);
    if (b) {
        CHECK_OK(fl_ice_dv_decode(b, n, &s, &err), &err);
        CHECK(s.n > 0);
        for (uint64_t i = 1; i < s.nranges; i++)
            CHECK(s.ranges[2 * i] > s.ranges[2 * i - 1]);
        fl_ice_position_set_free(&s);
        free(b);
    }
}

static void test_puffin_files(void)
{
    const char *files[] = {"puffin/deletion-vector-v1.puffin", "dv/single-blob-dv.puffin"};
    for (int i = 0; i < 2; i++) {
        size_t n;
        uint8_t *buf = fixture(files[i], &n);
        CHECK(buf != NULL);
        if (!buf)
            continue;
        fl_arena a;
        fl_arena_init(&a, 0);
        fl_error err;
        ice_puffin_footer ft;
        CHECK_OK(ice_puffin_parse(buf, n, &a, &ft, &err), &err);
        CHECK_EQ_INT(ft.nblobs, 1);
        if (ft.nblobs == 1) {
            CHECK_EQ_STR(ft.blobs[0].type, "deletion-vector-v1");
            CHECK(ft.blobs[0].referenced_data_file != NULL);
            CHECK(ft.blobs[0].cardinality != NULL);
            fl_ice_position_set s;
            CHECK_OK(
                fl_ice_dv_decode(buf + ft.blobs[0].offset, (size_t)ft.blobs[0].length, &s, &err),
                &err);
            CHECK_EQ_INT(s.n, strtoll(ft.blobs[0].cardinality, NULL, 10));
            if (i == 0) {
                CHECK_EQ_STR(ft.blobs[0].referenced_data_file, "data/test.parquet");
                check_odd(&s);
            }
            fl_ice_position_set_free(&s);
            /* the same through FileIO with a manifest-like entry */
            fl_file *f;
            CHECK_OK(fl_file_from_memory(buf, n, files[i], &f, &err), &err);
            ice_puffin_footer f2;
            CHECK_OK(ice_puffin_read_footer(f, &a, &f2, &err), &err);
            CHECK_EQ_INT(f2.nblobs, 1);
            fl_file_close(f);
        }
        /* truncations and flips never crash */
        for (size_t cut = 0; cut < n; cut += 7)
            (void)ice_puffin_parse(buf, cut, &a, &ft, &err);
        buf[n - 1] ^= 0xFF;
        CHECK(ice_puffin_parse(buf, n, &a, &ft, &err) == FL_ECORRUPT);
        fl_arena_free(&a);
        free(buf);
    }
    size_t n;
    uint8_t *buf = fixture("puffin/sample-metric-data-uncompressed.bin", &n);
    CHECK(buf != NULL);
    if (buf) {
        fl_arena a;
        fl_arena_init(&a, 0);
        fl_error err;
        ice_puffin_footer ft;
        CHECK_OK(ice_puffin_parse(buf, n, &a, &ft, &err), &err);
        CHECK_EQ_INT(ft.nblobs, 2);
        CHECK(ft.created_by != NULL);
        fl_arena_free(&a);
        free(buf);
    }
}

/* Every golden file whole, cut at every length and with every single bit
 * flipped, through the fuzz target: no crash, leak or UB (ASan/UBSan). */
static void test_fuzz_replay(void)
{
    const char *files[] = {
        "puffin/deletion-vector-v1.puffin",           "dv/single-blob-dv.puffin",
        "puffin/sample-metric-data-uncompressed.bin", "puffin/deletion-vector-v1-payload.bin",
        "dv/all-container-types-position-index.bin",  "dv/64map32bitvals.bin"};
    size_t runs = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        size_t n;
        uint8_t *b = fixture(files[i], &n);
        CHECK(b != NULL);
        if (!b)
            continue;
        for (size_t cut = 0; cut <= n; cut++, runs++)
            LLVMFuzzerTestOneInput(b, cut);
        for (size_t bit = 0; bit < n * 8; bit++, runs++) {
            b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            LLVMFuzzerTestOneInput(b, n);
            b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        free(b);
    }
    CHECK(runs > 1000);
}

int main(void)
{
    TEST_RUN(test_inline_run_and_bitmap);
    TEST_RUN(test_union_and_array);
    const char *sh = test_shared_dir();
    if (!sh) {
        fprintf(stderr, "skipping fixture cases: $FLOE_SHARED/fixtures absent\n");
        int rc = TEST_EXIT();
        return rc ? rc : 77;
    }
    snprintf(g_dir, sizeof g_dir, "%s/fixtures/iceberg/metadata-only/iceberg-go", sh);
    TEST_RUN(test_golden_blobs);
    TEST_RUN(test_puffin_files);
    TEST_RUN(test_fuzz_replay);
    return TEST_EXIT();
}
