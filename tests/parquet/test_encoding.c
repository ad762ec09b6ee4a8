/*
 * test_encoding.c - Parquet encodings (encoding_*.c): the byte vectors of
 * the Encodings.md examples, random round trips with a fixed seed (edge
 * sizes n = 0, 1, block boundaries, all-equal values, INT32/INT64 extremes),
 * and corrupt input: every truncation must fail or decode exactly the same
 * values (never different ones), and bit flips must not crash (ASan).
 */
#include "parquet/encoding.h"
#include "parquet/encoding_bitpack.h"
#include "parquet/pqcodec_walk.h"
#include "test.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static int bytes_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
    return memcmp(a, b, n) == 0;
}

/* ---- spec examples ---- */

static void test_spec_rle_example(void)
{
    /* Encodings.md: 0..7 at bit width 3 bit-packed = 10001000 11000110 11111010 */
    const uint8_t want[] = {0x03, 0x88, 0xc6, 0xfa};
    uint32_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    fl_pq_buf b = {0};
    fl_error err = {0};
    CHECK_OK(fl_pq_rle_encode(v, 8, 3, &b, &err), &err);
    CHECK_EQ_INT(b.len, 4);
    CHECK(b.len == 4 && bytes_equal(b.bytes, want, 4));
    fl_pq_rle_decoder d;
    uint32_t out[8];
    fl_pq_rle_init(&d, want, sizeof want, 3);
    CHECK_OK(fl_pq_rle_get(&d, out, 8, &err), &err);
    for (int i = 0; i < 8; i++)
        CHECK_EQ_INT(out[i], i);
    /* a ninth value is not there */
    CHECK_EQ_INT(fl_pq_rle_get(&d, out, 1, &err), FL_ECORRUPT);

    /* RLE run: 100 x value 5 at width 3: header varint(200) = c8 01, value 05 */
    fl_pq_buf b2 = {0};
    uint32_t many[100];
    for (int i = 0; i < 100; i++)
        many[i] = 5;
    CHECK_OK(fl_pq_rle_encode(many, 100, 3, &b2, &err), &err);
    const uint8_t want2[] = {0xc8, 0x01, 0x05};
    CHECK(b2.len == 3 && bytes_equal(b2.bytes, want2, 3));
    /* width 0: runs with no value bytes */
    fl_pq_rle_init(&d, (const uint8_t *)"\x10", 1, 0);
    uint32_t z[8];
    CHECK_OK(fl_pq_rle_get(&d, z, 8, &err), &err);
    CHECK_EQ_INT(z[7], 0);
    /* width 12 RLE value uses 2 bytes little-endian */
    fl_pq_rle_init(&d, (const uint8_t *)"\x04\x34\x0a", 3, 12);
    CHECK_OK(fl_pq_rle_get(&d, z, 2, &err), &err);
    CHECK_EQ_INT(z[0], 0xa34);
    CHECK_EQ_INT(z[1], 0xa34);
    /* values wider than the bit width are rejected by the encoder */
    uint32_t wide = 8;
    CHECK_EQ_INT(fl_pq_rle_encode(&wide, 1, 3, &b2, &err), FL_EINVAL);
    fl_buf_free(&b);
    fl_buf_free(&b2);
}

static void test_spec_bitpacked_legacy(void)
{
    /* Encodings.md: 0..7 at width 3, MSB first = 00000101 00111001 01110111 */
    const uint8_t in[] = {0x05, 0x39, 0x77};
    uint16_t out[8];
    fl_error err = {0};
    CHECK_OK(fl_pq_bitpacked_legacy_decode(in, 3, 3, out, 8, &err), &err);
    for (int i = 0; i < 8; i++)
        CHECK_EQ_INT(out[i], i);
    CHECK_EQ_INT(fl_pq_bitpacked_legacy_decode(in, 2, 3, out, 8, &err), FL_ECORRUPT);
    CHECK_OK(fl_pq_bitpacked_legacy_decode(in, 0, 0, out, 8, &err), &err);
    CHECK_EQ_INT(out[5], 0);
    /* width 1 levels */
    const uint8_t ones[] = {0xa0};
    CHECK_OK(fl_pq_bitpacked_legacy_decode(ones, 1, 1, out, 3, &err), &err);
    CHECK_EQ_INT(out[0], 1);
    CHECK_EQ_INT(out[1], 0);
    CHECK_EQ_INT(out[2], 1);
}

static void test_spec_delta_examples(void)
{
    fl_error err = {0};
    /* Example 1 (block size 128, 4 miniblocks): 1..5 -> min delta 1, widths 0 */
    int32_t v1[] = {1, 2, 3, 4, 5};
    const uint8_t want1[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00};
    fl_pq_buf b = {0};
    CHECK_OK(fl_pq_delta_encode_i32(v1, 5, &b, &err), &err);
    CHECK(b.len == sizeof want1 && bytes_equal(b.bytes, want1, sizeof want1));
    int32_t o[8];
    size_t used = 0;
    CHECK_OK(fl_pq_delta_decode_i32(want1, sizeof want1, o, 5, &used, &err), &err);
    CHECK_EQ_INT(used, sizeof want1);
    for (int i = 0; i < 5; i++)
        CHECK_EQ_INT(o[i], v1[i]);

    /* Example 2: 7,5,3,1,2,3,4,5 -> min delta -2, relative 0,0,0,3,3,3,3 at 2 bits:
     * bytes c0 3f then zero padding to 32 values */
    int64_t v2[] = {7, 5, 3, 1, 2, 3, 4, 5};
    const uint8_t want2[] = {0x80, 0x01, 0x04, 0x08, 0x0e, 0x03, 0x02, 0x00, 0x00,
                             0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    b.len = 0;
    CHECK_OK(fl_pq_delta_encode_i64(v2, 8, &b, &err), &err);
    CHECK(b.len == sizeof want2 && bytes_equal(b.bytes, want2, sizeof want2));
    int64_t o2[8];
    CHECK_OK(fl_pq_delta_decode_i64(want2, sizeof want2, o2, 8, &used, &err), &err);
    CHECK_EQ_INT(used, sizeof want2);
    for (int i = 0; i < 8; i++)
        CHECK_EQ_INT(o2[i], v2[i]);
    uint32_t cnt = 0;
    CHECK_OK(fl_pq_delta_count(want2, sizeof want2, &cnt, &err), &err);
    CHECK_EQ_INT(cnt, 8);
    /* fewer values than announced: consumed still covers the block */
    CHECK_OK(fl_pq_delta_decode_i64(want2, sizeof want2, o2, 3, &used, &err), &err);
    CHECK_EQ_INT(used, sizeof want2);
    CHECK_EQ_INT(o2[2], 3);
    /* more than announced is an error */
    CHECK_EQ_INT(fl_pq_delta_decode_i64(want2, sizeof want2, o2, 9, &used, &err), FL_ECORRUPT);
    /* block size 8 (the spec's illustration) is not valid in real data */
    const uint8_t bad[] = {0x08, 0x01, 0x05, 0x02, 0x02, 0x00};
    CHECK_EQ_INT(fl_pq_delta_decode_i32(bad, sizeof bad, o, 5, &used, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "block size") != NULL);
    /* an INT32 miniblock wider than 32 bits */
    const uint8_t wide[] = {0x80, 0x01, 0x04, 0x02, 0x00, 0x00, 33, 0, 0, 0};
    CHECK_EQ_INT(fl_pq_delta_decode_i32(wide, sizeof wide, o, 2, &used, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "bit width 33") != NULL);
    fl_buf_free(&b);
}

static fl_type STRING_T = {.id = FL_TYPE_STRING};

static void vec_of(fl_vector *v, const char *const *s, int n)
{
    fl_error err = {0};
    fl_vector_init(v, &STRING_T, &err);
    for (int i = 0; i < n; i++) {
        if (s[i])
            fl_vector_append_bytes(v, s[i], strlen(s[i]), &err);
        else
            fl_vector_append_null(v, &err);
    }
}

static void check_vec_strings(const fl_vector *v, uint32_t from, const char *const *s, int n)
{
    int j = 0;
    for (int i = 0; i < n; i++) {
        if (!s[i])
            continue;
        size_t l;
        const uint8_t *p = fl_vector_bytes(v, from + (uint32_t)j, &l);
        CHECK(l == strlen(s[i]) && memcmp(p, s[i], l) == 0);
        j++;
    }
    CHECK_EQ_INT(v->len, from + (uint32_t)j);
}

static void test_spec_byte_arrays(void)
{
    fl_error err = {0};
    const char *const hw[] = {"Hello", "World", "Foobar", "ABCDEF"};
    fl_vector src, dst;
    vec_of(&src, hw, 4);
    fl_pq_buf b = {0};
    CHECK_OK(fl_pq_dlba_encode(&src, 0, 4, &b, &err), &err);
    const char *tail = "HelloWorldFoobarABCDEF";
    size_t tl = strlen(tail);
    CHECK(b.len > tl && memcmp(b.data + b.len - tl, tail, tl) == 0);
    int32_t lens[4];
    size_t used = 0;
    CHECK_OK(fl_pq_delta_decode_i32(b.bytes, b.len, lens, 4, &used, &err), &err);
    CHECK_EQ_INT(used, b.len - tl);
    CHECK(lens[0] == 5 && lens[1] == 5 && lens[2] == 6 && lens[3] == 6);
    fl_vector_init(&dst, &STRING_T, &err);
    CHECK_OK(fl_pq_dlba_decode(b.bytes, b.len, 4, &dst, &used, &err), &err);
    CHECK_EQ_INT(used, b.len);
    check_vec_strings(&dst, 0, hw, 4);
    fl_vector_destroy(&src);

    const char *const ax[] = {"axis", "axle", "babble", "babyhood"};
    vec_of(&src, ax, 4);
    b.len = 0;
    CHECK_OK(fl_pq_dba_encode(&src, 0, 4, &b, &err), &err);
    const char *sfx = "axislebabbleyhood";
    tl = strlen(sfx);
    CHECK(b.len > tl && memcmp(b.data + b.len - tl, sfx, tl) == 0);
    int32_t pre[4], suf[4];
    size_t u1 = 0, u2 = 0;
    CHECK_OK(fl_pq_delta_decode_i32(b.bytes, b.len, pre, 4, &u1, &err), &err);
    CHECK(pre[0] == 0 && pre[1] == 2 && pre[2] == 0 && pre[3] == 3);
    CHECK_OK(fl_pq_delta_decode_i32(b.bytes + u1, b.len - u1, suf, 4, &u2, &err), &err);
    CHECK(suf[0] == 4 && suf[1] == 2 && suf[2] == 6 && suf[3] == 5);
    fl_vector_reset(&dst);
    CHECK_OK(fl_pq_dba_decode(b.bytes, b.len, 4, &dst, &err), &err);
    check_vec_strings(&dst, 0, ax, 4);
    /* appends after existing rows */
    CHECK_OK(fl_pq_dba_decode(b.bytes, b.len, 4, &dst, &err), &err);
    check_vec_strings(&dst, 4, ax, 4);

    /* PLAIN */
    b.len = 0;
    CHECK_OK(fl_pq_plain_encode_bytes(&src, 1, 3, &b, &err), &err);
    const uint8_t want[] = {4, 0, 0,   0,   'a', 'x', 'l', 'e', 6,   0,
                            0, 0, 'b', 'a', 'b', 'b', 'l', 'e', 8,   0,
                            0, 0, 'b', 'a', 'b', 'y', 'h', 'o', 'o', 'd'};
    CHECK(b.len == sizeof want && bytes_equal(b.bytes, want, sizeof want));
    fl_vector_reset(&dst);
    CHECK_OK(fl_pq_plain_decode_bytes(want, sizeof want, 3, &dst, &used, &err), &err);
    CHECK_EQ_INT(used, sizeof want);
    check_vec_strings(&dst, 0, ax + 1, 3);
    /* a length running past the end */
    CHECK_EQ_INT(fl_pq_plain_decode_bytes(want, sizeof want - 1, 3, &dst, &used, &err),
                 FL_ECORRUPT);
    CHECK(strstr(err.msg, "value 2") || strstr(err.msg, "array 2"));
    fl_vector_destroy(&src);
    fl_vector_destroy(&dst);
    fl_buf_free(&b);
}

static void test_spec_bss_example(void)
{
    const uint8_t vals[] = {0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11, 0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6};
    const uint8_t enc[] = {0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4, 0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6};
    fl_pq_buf b = {0};
    fl_error err = {0};
    CHECK_OK(fl_pq_bss_encode(vals, 3, 4, &b, &err), &err);
    CHECK(b.len == 12 && bytes_equal(b.bytes, enc, 12));
    uint8_t out[12];
    CHECK_OK(fl_pq_bss_decode(enc, 12, 3, 4, out, &err), &err);
    CHECK(bytes_equal(out, vals, 12));
    /* the first 2 of 3 values */
    memset(out, 0, sizeof out);
    CHECK_OK(fl_pq_bss_decode(enc, 12, 2, 4, out, &err), &err);
    CHECK(bytes_equal(out, vals, 8));
    /* the same bytes as 6 values of width 2 */
    CHECK_OK(fl_pq_bss_decode(enc, 12, 6, 2, out, &err), &err);
    CHECK_EQ_INT(out[0], 0xAA);
    CHECK_EQ_INT(out[1], 0xCC);
    CHECK_EQ_INT(fl_pq_bss_decode(enc, 11, 2, 4, out, &err), FL_ECORRUPT);
    CHECK_EQ_INT(fl_pq_bss_decode(enc, 12, 4, 4, out, &err), FL_ECORRUPT);
    fl_buf_free(&b);
}

/* ---- random round trips ---- */

static void fill_levels(uint32_t *v, uint32_t n, int bw, int pattern)
{
    uint32_t mask = bw == 32 ? 0xffffffffu : (1u << bw) - 1;
    uint32_t cur = (uint32_t)rnd() & mask;
    for (uint32_t i = 0; i < n; i++) {
        switch (pattern) {
        case 0: v[i] = (uint32_t)rnd() & mask; break; /* random */
        case 1: v[i] = mask; break;                   /* all equal, max */
        case 2:                                       /* runs of random length */
            if (rnd() % 13 == 0)
                cur = (uint32_t)rnd() & mask;
            v[i] = cur;
            break;
        default: v[i] = (i & 1) ? mask : 0; break; /* alternating */
        }
    }
}

static void test_rle_roundtrip(void)
{
    static const uint32_t sizes[] = {0, 1, 7, 8, 9, 15, 16, 17, 100, 1000, 4097};
    uint32_t *v = malloc(5000 * sizeof *v), *o = malloc(5000 * sizeof *o);
    uint16_t *o16 = malloc(5000 * sizeof *o16);
    fl_error err = {0};
    fl_pq_buf b = {0};
    for (int bw = 0; bw <= 32; bw++) {
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            for (int pat = 0; pat < 4; pat++) {
                uint32_t n = sizes[si];
                fill_levels(v, n, bw, pat);
                b.len = 0;
                CHECK_OK(fl_pq_rle_encode(v, n, bw, &b, &err), &err);
                /* decode in uneven pieces */
                fl_pq_rle_decoder d;
                fl_pq_rle_init(&d, b.bytes, b.len, bw);
                uint32_t got = 0, step = 1;
                while (got < n) {
                    uint32_t k = n - got < step ? n - got : step;
                    if (fl_pq_rle_get(&d, o + got, k, &err) != FL_OK) {
                        fprintf(stderr, "bw %d n %u pat %d: %s\n", bw, n, pat, err.msg);
                        CHECK(0);
                        break;
                    }
                    got += k;
                    step = step * 3 + 1;
                }
                if (memcmp(o, v, (size_t)n * 4) != 0) {
                    fprintf(stderr, "rle mismatch bw %d n %u pat %d\n", bw, n, pat);
                    CHECK(0);
                }
                if (bw <= 16) {
                    fl_pq_rle_init(&d, b.bytes, b.len, bw);
                    CHECK_OK(fl_pq_rle_get_u16(&d, o16, n, &err), &err);
                    for (uint32_t i = 0; i < n; i++)
                        if (o16[i] != v[i]) {
                            CHECK(0);
                            break;
                        }
                }
                /* truncations: error, or exactly the same values */
                if (n > 0 && n <= 100 && bw % 5 == 1) {
                    for (size_t cut = 0; cut < b.len; cut++) {
                        fl_pq_rle_init(&d, b.bytes, cut, bw);
                        memset(o, 0xee, (size_t)n * 4);
                        if (fl_pq_rle_get(&d, o, n, &err) == FL_OK)
                            CHECK(memcmp(o, v, (size_t)n * 4) == 0);
                    }
                }
            }
        }
    }
    /* long runs compress: 10000 equal values are one run */
    for (uint32_t i = 0; i < 5000; i++)
        v[i] = 1;
    b.len = 0;
    CHECK_OK(fl_pq_rle_encode(v, 5000, 1, &b, &err), &err);
    CHECK(b.len <= 4);
    /* literal prefix topped up to a group, then a run */
    for (uint32_t i = 0; i < 3; i++)
        v[i] = i;
    b.len = 0;
    CHECK_OK(fl_pq_rle_encode(v, 40, 2, &b, &err), &err);
    CHECK(b.len < 8);
    fl_pq_rle_decoder d;
    fl_pq_rle_init(&d, b.bytes, b.len, 2);
    CHECK_OK(fl_pq_rle_get(&d, o, 40, &err), &err);
    CHECK(memcmp(o, v, 40 * 4) == 0);
    free(v);
    free(o);
    free(o16);
    fl_buf_free(&b);
}

static void test_rle_corrupt(void)
{
    fl_error err = {0};
    fl_pq_rle_decoder d;
    uint32_t o[64];
    /* empty input */
    fl_pq_rle_init(&d, (const uint8_t *)"", 0, 1);
    CHECK_EQ_INT(fl_pq_rle_get(&d, o, 1, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "byte 0") != NULL);
    /* run header varint too long */
    const uint8_t longv[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    fl_pq_rle_init(&d, longv, sizeof longv, 1);
    CHECK_EQ_INT(fl_pq_rle_get(&d, o, 1, &err), FL_ECORRUPT);
    /* truncated RLE value */
    fl_pq_rle_init(&d, (const uint8_t *)"\x10\x01", 2, 16);
    CHECK_EQ_INT(fl_pq_rle_get(&d, o, 1, &err), FL_ECORRUPT);
    /* a bit-packed run cut short yields only the values present */
    const uint8_t cut[] = {0x05, 0xff, 0xff}; /* 2 groups at width 8 declared, 2 bytes given */
    fl_pq_rle_init(&d, cut, sizeof cut, 8);
    CHECK_OK(fl_pq_rle_get(&d, o, 2, &err), &err);
    CHECK_EQ_INT(o[1], 255);
    CHECK_EQ_INT(fl_pq_rle_get(&d, o, 1, &err), FL_ECORRUPT);
    /* invalid widths */
    fl_pq_rle_init(&d, cut, sizeof cut, 33);
    CHECK_EQ_INT(fl_pq_rle_get(&d, o, 1, &err), FL_ECORRUPT);
    fl_pq_rle_init(&d, cut, sizeof cut, 17);
    uint16_t o16[4];
    CHECK_EQ_INT(fl_pq_rle_get_u16(&d, o16, 1, &err), FL_ECORRUPT);
    /* random garbage never crashes */
    uint8_t junk[256];
    for (int t = 0; t < 2000; t++) {
        size_t n = rnd() % sizeof junk;
        for (size_t i = 0; i < n; i++)
            junk[i] = (uint8_t)rnd();
        int bw = (int)(rnd() % 33);
        fl_pq_rle_init(&d, junk, n, bw);
        (void)fl_pq_rle_get(&d, o, 64, &err);
    }
}

static void fill_i64(int64_t *v, uint32_t n, int pattern)
{
    int64_t cur = (int64_t)rnd();
    for (uint32_t i = 0; i < n; i++) {
        switch (pattern) {
        case 0: v[i] = (int64_t)rnd(); break;
        case 1: v[i] = 42; break;
        case 2: v[i] = (i & 1) ? INT64_MAX : INT64_MIN; break;
        case 3:
            cur += (int64_t)(rnd() % 1000) - 500;
            v[i] = cur;
            break;
        case 4: v[i] = (int64_t)i * 3 + 1000000; break;
        default:
            v[i] = (int64_t)((uint64_t)(rnd() % 3) - 1 + (i % 100 == 0 ? (uint64_t)INT64_MIN : 0));
            break;
        }
    }
}

static void test_delta_roundtrip(void)
{
    static const uint32_t sizes[] = {0, 1, 2, 31, 32, 33, 127, 128, 129, 130, 256, 257, 1000, 4097};
    int64_t *v = malloc(5000 * sizeof *v), *o = malloc(5000 * sizeof *o);
    int32_t *v32 = malloc(5000 * sizeof *v32), *o32 = malloc(5000 * sizeof *o32);
    fl_error err = {0};
    fl_pq_buf b = {0};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        for (int pat = 0; pat < 6; pat++) {
            uint32_t n = sizes[si];
            fill_i64(v, n, pat);
            b.len = 0;
            CHECK_OK(fl_pq_delta_encode_i64(v, n, &b, &err), &err);
            size_t used = 0;
            CHECK_OK(fl_pq_delta_decode_i64(b.bytes, b.len, o, n, &used, &err), &err);
            CHECK_EQ_INT(used, b.len);
            if (memcmp(o, v, (size_t)n * 8) != 0) {
                fprintf(stderr, "delta64 mismatch n %u pattern %d\n", n, pat);
                CHECK(0);
            }
            /* partial decode still reports the full length */
            if (n > 2) {
                CHECK_OK(fl_pq_delta_decode_i64(b.bytes, b.len, o, n / 2, &used, &err), &err);
                CHECK_EQ_INT(used, b.len);
                CHECK(memcmp(o, v, (size_t)(n / 2) * 8) == 0);
            }
            for (uint32_t i = 0; i < n; i++)
                v32[i] = pat == 2 ? ((i & 1) ? INT32_MAX : INT32_MIN) : (int32_t)v[i];
            b.len = 0;
            CHECK_OK(fl_pq_delta_encode_i32(v32, n, &b, &err), &err);
            CHECK_OK(fl_pq_delta_decode_i32(b.bytes, b.len, o32, n, &used, &err), &err);
            CHECK_EQ_INT(used, b.len);
            if (memcmp(o32, v32, (size_t)n * 4) != 0) {
                fprintf(stderr, "delta32 mismatch n %u pattern %d\n", n, pat);
                CHECK(0);
            }
            /* truncation: an error or the same values, never others; bit
             * flips: no crash */
            if (n > 0 && n <= 257) {
                for (size_t cut = 0; cut < b.len; cut++) {
                    memset(o32, 0x5a, (size_t)n * 4);
                    if (fl_pq_delta_decode_i32(b.bytes, cut, o32, n, &used, &err) == FL_OK) {
                        CHECK(memcmp(o32, v32, (size_t)n * 4) == 0);
                        CHECK(used <= cut);
                    }
                }
                for (size_t i = 0; i < b.len; i += 3) {
                    b.data[i] ^= (uint8_t)(1u << (i % 8));
                    (void)fl_pq_delta_decode_i32(b.bytes, b.len, o32, n, &used, &err);
                    b.data[i] ^= (uint8_t)(1u << (i % 8));
                }
            }
        }
    }
    /* header announcing zero values; n = 0 on an empty buffer */
    size_t used = 1;
    b.len = 0;
    CHECK_OK(fl_pq_delta_encode_i32(v32, 0, &b, &err), &err);
    CHECK_OK(fl_pq_delta_decode_i32(b.bytes, b.len, o32, 0, &used, &err), &err);
    CHECK_EQ_INT(used, b.len);
    CHECK_OK(fl_pq_delta_decode_i32(b.bytes, 0, o32, 0, &used, &err), &err);
    CHECK_EQ_INT(used, 0);
    /* 64-bit miniblock widths: consecutive INT64_MIN/INT64_MAX */
    int64_t ext[3] = {INT64_MIN, INT64_MAX, INT64_MIN};
    b.len = 0;
    CHECK_OK(fl_pq_delta_encode_i64(ext, 3, &b, &err), &err);
    CHECK_OK(fl_pq_delta_decode_i64(b.bytes, b.len, o, 3, &used, &err), &err);
    CHECK(o[0] == INT64_MIN && o[1] == INT64_MAX && o[2] == INT64_MIN);
    free(v);
    free(o);
    free(v32);
    free(o32);
    fl_buf_free(&b);
}

static void random_strings(const char **s, char *pool, int n, int nulls, int shared)
{
    size_t pos = 0;
    for (int i = 0; i < n; i++) {
        if (nulls && rnd() % 5 == 0) {
            s[i] = NULL;
            continue;
        }
        size_t l = rnd() % 24;
        char *p = pool + pos;
        for (size_t k = 0; k < l; k++)
            p[k] = (char)('a' + (shared && k < 6 ? (int)(k % 3) : (int)(rnd() % 26)));
        p[l] = 0;
        s[i] = p;
        pos += l + 1;
    }
}

static void test_bytes_roundtrip(void)
{
    static const int sizes[] = {0, 1, 2, 127, 128, 129, 500, 2000};
    const char **s = malloc(2000 * sizeof *s);
    char *pool = malloc(2000 * 25);
    fl_error err = {0};
    fl_pq_buf b = {0};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        for (int variant = 0; variant < 4; variant++) {
            int n = sizes[si];
            random_strings(s, pool, n, variant & 1, variant & 2);
            fl_vector src, dst;
            vec_of(&src, s, n);
            fl_vector_init(&dst, &STRING_T, &err);
            uint32_t nn = 0;
            for (int i = 0; i < n; i++)
                nn += s[i] != NULL;
            for (int enc = 0; enc < 3; enc++) {
                b.len = 0;
                fl_status st = enc == 0   ? fl_pq_plain_encode_bytes(&src, 0, (uint32_t)n, &b, &err)
                               : enc == 1 ? fl_pq_dlba_encode(&src, 0, (uint32_t)n, &b, &err)
                                          : fl_pq_dba_encode(&src, 0, (uint32_t)n, &b, &err);
                CHECK_OK(st, &err);
                fl_vector_reset(&dst);
                size_t used = 0;
                st = enc == 0   ? fl_pq_plain_decode_bytes(b.bytes, b.len, nn, &dst, &used, &err)
                     : enc == 1 ? fl_pq_dlba_decode(b.bytes, b.len, nn, &dst, &used, &err)
                                : fl_pq_dba_decode(b.bytes, b.len, nn, &dst, &err);
                CHECK_OK(st, &err);
                if (enc < 2)
                    CHECK_EQ_INT(used, b.len);
                check_vec_strings(&dst, 0, s, n);
                /* truncations fail or give identical rows; flips don't crash */
                if (n > 0 && n <= 129) {
                    for (size_t cut = 0; cut < b.len; cut += 1 + cut / 16) {
                        fl_vector_reset(&dst);
                        st = enc == 0
                                 ? fl_pq_plain_decode_bytes(b.bytes, cut, nn, &dst, &used, &err)
                             : enc == 1 ? fl_pq_dlba_decode(b.bytes, cut, nn, &dst, &used, &err)
                                        : fl_pq_dba_decode(b.bytes, cut, nn, &dst, &err);
                        if (st == FL_OK)
                            check_vec_strings(&dst, 0, s, n);
                        else
                            CHECK_EQ_INT(dst.len, 0); /* nothing appended on failure */
                    }
                    for (size_t i = 0; i < b.len; i += 2) {
                        fl_vector_reset(&dst);
                        b.data[i] ^= 0x41;
                        (void)(enc == 0
                                   ? fl_pq_plain_decode_bytes(b.bytes, b.len, nn, &dst, &used, &err)
                               : enc == 1 ? fl_pq_dlba_decode(b.bytes, b.len, nn, &dst, &used, &err)
                                          : fl_pq_dba_decode(b.bytes, b.len, nn, &dst, &err));
                        b.data[i] ^= 0x41;
                    }
                }
            }
            /* encoding a sub-range */
            if (n > 10) {
                b.len = 0;
                CHECK_OK(fl_pq_dba_encode(&src, 5, 5, &b, &err), &err);
                uint32_t sub = 0;
                for (int i = 5; i < 10; i++)
                    sub += s[i] != NULL;
                fl_vector_reset(&dst);
                CHECK_OK(fl_pq_dba_decode(b.bytes, b.len, sub, &dst, &err), &err);
                check_vec_strings(&dst, 0, s + 5, 5);
            }
            fl_vector_destroy(&src);
            fl_vector_destroy(&dst);
        }
    }
    /* prefix longer than the previous value */
    fl_pq_buf p = {0};
    int32_t pre[2] = {0, 5}, suf[2] = {2, 1};
    CHECK_OK(fl_pq_delta_encode_i32(pre, 2, &p, &err), &err);
    CHECK_OK(fl_pq_delta_encode_i32(suf, 2, &p, &err), &err);
    CHECK_OK(fl_buf_reserve(&p, 3, &err), &err);
    memcpy(p.data + p.len, "abc", 3);
    p.len += 3;
    fl_vector dst;
    fl_vector_init(&dst, &STRING_T, &err);
    CHECK_EQ_INT(fl_pq_dba_decode(p.bytes, p.len, 2, &dst, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "prefix length 5") != NULL);
    /* first prefix must be 0 too */
    p.len = 0;
    pre[0] = 1;
    CHECK_OK(fl_pq_delta_encode_i32(pre, 2, &p, &err), &err);
    CHECK_OK(fl_pq_delta_encode_i32(suf, 2, &p, &err), &err);
    CHECK_OK(fl_buf_reserve(&p, 3, &err), &err);
    memcpy(p.data + p.len, "abc", 3);
    p.len += 3;
    CHECK_EQ_INT(fl_pq_dba_decode(p.bytes, p.len, 2, &dst, &err), FL_ECORRUPT);
    /* negative lengths */
    p.len = 0;
    int32_t neg[2] = {3, -1};
    CHECK_OK(fl_pq_delta_encode_i32(neg, 2, &p, &err), &err);
    CHECK_OK(fl_buf_reserve(&p, 3, &err), &err);
    memcpy(p.data + p.len, "abc", 3);
    p.len += 3;
    CHECK_EQ_INT(fl_pq_dlba_decode(p.bytes, p.len, 2, &dst, NULL, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "negative length") != NULL);
    /* quadratic expansion is capped */
    p.len = 0;
    enum { QN = 20000 };
    int32_t *qp = malloc(QN * sizeof *qp), *qs = malloc(QN * sizeof *qs);
    for (int i = 0; i < QN; i++) {
        qp[i] = i;
        qs[i] = 1;
    }
    CHECK_OK(fl_pq_delta_encode_i32(qp, QN, &p, &err), &err);
    CHECK_OK(fl_pq_delta_encode_i32(qs, QN, &p, &err), &err);
    CHECK_OK(fl_buf_reserve(&p, QN, &err), &err);
    memset(p.data + p.len, 'x', QN);
    p.len += QN;
    CHECK_EQ_INT(fl_pq_dba_decode(p.bytes, p.len, QN, &dst, &err), FL_ELIMIT);
    CHECK_EQ_INT(dst.len, 0);
    free(qp);
    free(qs);
    fl_vector_destroy(&dst);
    fl_buf_free(&p);
    fl_buf_free(&b);
    free(s);
    free(pool);
}

static void test_bss_roundtrip(void)
{
    static const size_t widths[] = {1, 2, 3, 4, 5, 8, 16};
    static const uint32_t sizes[] = {0, 1, 2, 3, 100, 1001};
    uint8_t *v = malloc(1001 * 16), *o = malloc(1001 * 16);
    fl_pq_buf b = {0};
    fl_error err = {0};
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t w = widths[wi];
            uint32_t n = sizes[si];
            for (size_t i = 0; i < n * w; i++)
                v[i] = (uint8_t)rnd();
            b.len = 0;
            CHECK_OK(fl_pq_bss_encode(v, n, w, &b, &err), &err);
            CHECK_EQ_INT(b.len, n * w);
            CHECK_OK(fl_pq_bss_decode(b.bytes, b.len, n, w, o, &err), &err);
            CHECK(memcmp(o, v, n * w) == 0);
            if (n > 1)
                CHECK_EQ_INT(fl_pq_bss_decode(b.bytes, b.len - 1, n, w, o, &err), FL_ECORRUPT);
        }
    }
    CHECK_EQ_INT(fl_pq_bss_decode(v, 8, 1, 0, o, &err), FL_ECORRUPT);
    free(v);
    free(o);
    fl_buf_free(&b);
}

static void test_plain_bool(void)
{
    uint8_t v[300], o[300];
    for (int i = 0; i < 300; i++)
        v[i] = (uint8_t)(rnd() & 1);
    fl_pq_buf b = {0};
    fl_error err = {0};
    CHECK_OK(fl_pq_plain_encode_bool(v, 300, &b, &err), &err);
    CHECK_EQ_INT(b.len, 38);
    for (uint32_t off = 0; off < 20; off++) {
        uint32_t n = 300 - off;
        CHECK_OK(fl_pq_plain_decode_bool(b.bytes, b.len, off, n, o, &err), &err);
        CHECK(memcmp(o, v + off, n) == 0);
    }
    CHECK_EQ_INT(fl_pq_plain_decode_bool(b.bytes, 37, 0, 300, o, &err), FL_ECORRUPT);
    CHECK_OK(fl_pq_plain_decode_bool(b.bytes, 37, 0, 296, o, &err), &err);
    /* spec: bits LSB first */
    const uint8_t byte = 0x05;
    CHECK_OK(fl_pq_plain_decode_bool(&byte, 1, 0, 4, o, &err), &err);
    CHECK(o[0] == 1 && o[1] == 0 && o[2] == 1 && o[3] == 0);
    fl_buf_free(&b);
}

static void test_bitpack_kernels(void)
{
    /* pack/unpack agree for every width, 32- and 64-bit */
    uint64_t v[64], o[64];
    uint32_t v32[64], o32[64];
    uint8_t buf[64 * 8];
    for (int bw = 0; bw <= 64; bw++) {
        uint64_t mask = bw == 64 ? ~0ULL : ((1ULL << bw) - 1);
        for (int i = 0; i < 64; i++)
            v[i] = rnd() & mask;
        if (bw > 0)
            v[5] = mask;
        fl_pq_pack64(v, 64, bw, buf);
        fl_pq_unpack64(buf, bw, o, 8);
        CHECK(memcmp(v, o, sizeof v) == 0);
        if (bw <= 32) {
            for (int i = 0; i < 64; i++)
                v32[i] = (uint32_t)v[i];
            uint8_t buf2[64 * 4];
            fl_pq_pack32(v32, 64, bw, buf2);
            CHECK(memcmp(buf, buf2, (size_t)bw * 8) == 0);
            fl_pq_unpack32(buf2, bw, o32, 8);
            CHECK(memcmp(v32, o32, sizeof v32) == 0);
        }
    }
}

/* Splits one CSV line into cells (quotes stripped, no escapes in these files). */
static int csv_cells(char *line, char **cells, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        char *c = p;
        if (*c == '"') {
            c++;
            char *q = strchr(c, '"');
            if (!q)
                return n;
            *q = 0;
            p = q + 1;
        } else {
            while (*p && *p != ',' && *p != '\n' && *p != '\r')
                p++;
        }
        char sep = *p;
        *p = 0;
        cells[n++] = c;
        if (sep != ',')
            break;
        p++;
    }
    return n;
}

/* Compares every column of a flat file with a CSV of expected values
 * (integers as decimal text, strings as is, empty = null). */
static void check_against_csv(const char *parquet, const char *csv)
{
    pqfile f;
    if (!open_pq(parquet, &f)) {
        CHECK(0);
        return;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/fixtures/%s", test_shared_dir(), csv);
    size_t clen;
    char *text = (char *)ft_slurp(path, &clen);
    CHECK(text != NULL);
    if (!text) {
        close_pq(&f);
        return;
    }
    text = realloc(text, clen + 1);
    text[clen] = 0;
    uint32_t ncols = f.m.nschema - 1;
    colbuf *cols = calloc(ncols, sizeof *cols);
    uint32_t *next = calloc(ncols, sizeof *next);
    for (uint32_t c = 0; c < ncols; c++) {
        colbuf_init(&cols[c]);
        fl_error err = {0};
        fl_status st = read_flat_column(f.data, f.len, &f.m, c, &cols[c], &err);
        if (st != FL_OK)
            fprintf(stderr, "%s column %u: %s\n", parquet, c, err.msg);
        CHECK_OK(st, &err);
    }
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    uint32_t row = 0, mismatches = 0, checked = 0;
    char **cells = malloc(ncols * sizeof *cells);
    for (line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save), row++) {
        int nc = csv_cells(line, cells, (int)ncols);
        CHECK_EQ_INT(nc, ncols);
        for (uint32_t c = 0; c < ncols && (int)c < nc; c++) {
            const fl_pq_schema_element *leaf = &f.m.schema[1 + c];
            if (row >= cols[c].nrows) {
                mismatches++;
                continue;
            }
            bool isnull = cols[c].nulls[row];
            if (cells[c][0] == 0) {
                mismatches += !isnull;
                continue;
            }
            if (isnull) {
                mismatches++;
                continue;
            }
            size_t l;
            const uint8_t *v = fl_vector_bytes(&cols[c].vals, next[c]++, &l);
            checked++;
            if (leaf->type == FL_PQ_INT64 || leaf->type == FL_PQ_INT32) {
                int64_t x = 0;
                if (l == 8) {
                    memcpy(&x, v, 8);
                } else {
                    int32_t y;
                    memcpy(&y, v, 4);
                    x = y;
                }
                if (x != strtoll(cells[c], NULL, 10)) {
                    if (mismatches < 5)
                        fprintf(stderr, "%s row %u col %u: %lld != %s\n", parquet, row, c,
                                (long long)x, cells[c]);
                    mismatches++;
                }
            } else if (l != strlen(cells[c]) || memcmp(v, cells[c], l) != 0) {
                mismatches++;
            }
        }
    }
    fprintf(stderr, "%s: %u rows, %u values checked against %s, %u mismatches\n", parquet, row,
            checked, csv, mismatches);
    CHECK_EQ_INT(mismatches, 0);
    CHECK(checked > 0);
    CHECK_EQ_INT(row, f.m.num_rows);
    for (uint32_t c = 0; c < ncols; c++)
        colbuf_free(&cols[c]);
    free(cols);
    free(next);
    free(cells);
    free(text);
    close_pq(&f);
}

static void test_fixture_delta_csv(void)
{
    check_against_csv("parquet-testing/data/delta_binary_packed.parquet",
                      "parquet-testing/data/delta_binary_packed_expect.csv");
    check_against_csv("parquet-testing/data/delta_encoding_optional_column.parquet",
                      "parquet-testing/data/delta_encoding_optional_column_expect.csv");
}

/* Every non-PLAIN Iceberg encodings file decodes to its PLAIN twin. */
static void test_fixture_iceberg_encodings(void)
{
    static const char *const files[] = {"BYTE_STREAM_SPLIT/double",
                                        "BYTE_STREAM_SPLIT/double_with_nulls",
                                        "BYTE_STREAM_SPLIT/float_with_nulls",
                                        "BYTE_STREAM_SPLIT/int32",
                                        "BYTE_STREAM_SPLIT/int64",
                                        "BYTE_STREAM_SPLIT/int64_with_nulls",
                                        "BYTE_STREAM_SPLIT/uuid_with_nulls",
                                        "DELTA_BINARY_PACKED/int32",
                                        "DELTA_BINARY_PACKED/int64",
                                        "DELTA_BYTE_ARRAY/binary",
                                        "DELTA_BYTE_ARRAY/binary_with_nulls",
                                        "DELTA_BYTE_ARRAY/string_with_nulls",
                                        "DELTA_LENGTH_BYTE_ARRAY/binary",
                                        "DELTA_LENGTH_BYTE_ARRAY/binary_with_nulls",
                                        "DELTA_LENGTH_BYTE_ARRAY/string_with_nulls",
                                        "PLAIN_DICTIONARY/binary",
                                        "PLAIN_DICTIONARY/float",
                                        "PLAIN_DICTIONARY/int64",
                                        "PLAIN_DICTIONARY/string",
                                        "RLE_DICTIONARY/binary",
                                        "RLE_DICTIONARY/float",
                                        "RLE_DICTIONARY/int64",
                                        "RLE_DICTIONARY/string"};
    int compared = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char enc[256], plain[256];
        snprintf(enc, sizeof enc, "parquet-iceberg-java/encodings/%s.parquet", files[i]);
        snprintf(plain, sizeof plain, "parquet-iceberg-java/encodings/PLAIN/%s.parquet",
                 strchr(files[i], '/') + 1);
        pqfile fe, fp;
        if (!open_pq(enc, &fe) || !open_pq(plain, &fp)) {
            CHECK(0);
            continue;
        }
        colbuf a, b;
        colbuf_init(&a);
        colbuf_init(&b);
        fl_error err = {0};
        CHECK_OK(read_flat_column(fe.data, fe.len, &fe.m, 0, &a, &err), &err);
        CHECK_OK(read_flat_column(fp.data, fp.len, &fp.m, 0, &b, &err), &err);
        if (!colbuf_equal(&a, &b))
            fprintf(stderr, "%s differs from its PLAIN twin (%u/%u rows, %u/%u values)\n", files[i],
                    a.nrows, b.nrows, a.vals.len, b.vals.len);
        CHECK(colbuf_equal(&a, &b));
        CHECK_EQ_INT(a.nrows, 1000);
        compared++;
        colbuf_free(&a);
        colbuf_free(&b);
        close_pq(&fe);
        close_pq(&fp);
    }
    CHECK_EQ_INT(compared, (int)(sizeof files / sizeof files[0]));
}

/* byte_stream_split_extended: each *_byte_stream_split column equals its *_plain twin. */
static void test_fixture_bss_extended(void)
{
    pqfile f;
    if (!open_pq("parquet-testing/data/byte_stream_split_extended.gzip.parquet", &f)) {
        CHECK(0);
        return;
    }
    int pairs = 0;
    for (uint32_t c = 0; c + 1 < f.m.nschema - 1; c += 2) {
        const char *pn = f.m.schema[1 + c].name, *bn = f.m.schema[2 + c].name;
        CHECK(strstr(pn, "_plain") != NULL && strstr(bn, "_byte_stream_split") != NULL);
        colbuf a, b;
        colbuf_init(&a);
        colbuf_init(&b);
        fl_error err = {0};
        CHECK_OK(read_flat_column(f.data, f.len, &f.m, c, &a, &err), &err);
        CHECK_OK(read_flat_column(f.data, f.len, &f.m, c + 1, &b, &err), &err);
        if (!colbuf_equal(&a, &b))
            fprintf(stderr, "%s != %s\n", pn, bn);
        CHECK(colbuf_equal(&a, &b));
        CHECK_EQ_INT(a.nrows, 200);
        pairs++;
        colbuf_free(&a);
        colbuf_free(&b);
    }
    CHECK_EQ_INT(pairs, 7);
    close_pq(&f);
}

int main(void)
{
    TEST_RUN(test_spec_rle_example);
    TEST_RUN(test_spec_bitpacked_legacy);
    TEST_RUN(test_spec_delta_examples);
    TEST_RUN(test_spec_byte_arrays);
    TEST_RUN(test_spec_bss_example);
    TEST_RUN(test_bitpack_kernels);
    TEST_RUN(test_rle_roundtrip);
    TEST_RUN(test_rle_corrupt);
    TEST_RUN(test_delta_roundtrip);
    TEST_RUN(test_bytes_roundtrip);
    TEST_RUN(test_bss_roundtrip);
    TEST_RUN(test_plain_bool);
    if (test_shared_dir()) {
        TEST_RUN(test_fixture_delta_csv);
        TEST_RUN(test_fixture_iceberg_encodings);
        TEST_RUN(test_fixture_bss_extended);
    } else {
        fprintf(stderr, "FLOE_SHARED fixtures absent: fixture decoding tests skipped\n");
    }
    return TEST_EXIT();
}
