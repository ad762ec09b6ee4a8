/*
 * test_roaring_write.c - the portable 64-bit Roaring encoder against the
 * decoder: random sets of every container shape (sparse arrays, dense
 * bitmaps, long runs, the 4096-value array limit, keys past 2^32) decode
 * to exactly the encoded positions; and the bytes of a small set match the
 * RoaringFormatSpec layout written out by hand.
 */
#include <stdlib.h>
#include <string.h>

#include "iceberg/scan_internal.h"
#include "test.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void roundtrip(uint64_t *pos, size_t n)
{
    fl_error err = {0};
    fl_ice_position_set s = {0}, back = {0};
    uint64_t *copy = malloc((n + 1) * sizeof *copy);
    if (n)
        memcpy(copy, pos, n * sizeof *copy);
    CHECK_OK(ice_pos_from_array(copy, n, &s, &err), &err);
    uint8_t *buf = NULL;
    size_t len = 0;
    CHECK_OK(ice_roaring64_encode(&s, &buf, &len, &err), &err);
    CHECK_OK(ice_roaring64_decode(buf, len, &back, &err), &err);
    CHECK_EQ_INT(back.n, s.n);
    CHECK_EQ_INT(back.nranges, s.nranges);
    if (back.nranges == s.nranges && s.nranges)
        CHECK(!memcmp(back.ranges, s.ranges, 2 * s.nranges * sizeof(uint64_t)));
    free(buf);
    free(copy);
    fl_ice_position_set_free(&s);
    fl_ice_position_set_free(&back);
}

static void test_shapes(void)
{
    size_t cap = 200000;
    uint64_t *p = malloc(cap * sizeof *p);
    size_t n = 0;
    roundtrip(p, 0); /* empty */
    p[0] = 0;
    roundtrip(p, 1);
    for (n = 0; n < 4096; n++) /* exactly the array limit, every other value */
        p[n] = 2 * n;
    roundtrip(p, n);
    for (n = 0; n < 4097; n++) /* one more: a bitmap */
        p[n] = 2 * n;
    roundtrip(p, n);
    for (n = 0; n < 70000; n++) /* one run across a container boundary */
        p[n] = 65000 + n;
    roundtrip(p, n);
    n = 0; /* keys past 2^32, several 32-bit bitmaps, run and non-run */
    for (uint64_t k = 0; k < 5; k++)
        for (uint64_t i = 0; i < 3000; i++)
            p[n++] = (k << 32) + (k % 2 ? i : 7 * i);
    roundtrip(p, n);
    for (int round = 0; round < 40; round++) { /* random mixes */
        n = 0;
        uint64_t base = next() % (1ull << 34);
        size_t want = 1 + next() % 100000;
        while (n < want && n < cap) {
            uint64_t kind = next() % 3, len = 1 + next() % 3000;
            for (uint64_t i = 0; i < len && n < want; i++)
                p[n++] = base + (kind == 0 ? i : kind == 1 ? i * (1 + next() % 40) : i * 3);
            base += 1 + next() % 200000;
        }
        roundtrip(p, n);
    }
    free(p);
}

/* {1, 2, 3, 10}: one array container (no runs: 3 array values vs one run
 * of 3 + one of 1 costs 2 + 8 = 10 bytes > 8), cookie 12346. */
static void test_layout(void)
{
    fl_error err = {0};
    uint64_t pos[] = {1, 2, 3, 10};
    fl_ice_position_set s = {0};
    CHECK_OK(ice_pos_from_array(pos, 4, &s, &err), &err);
    uint8_t *buf = NULL;
    size_t len = 0;
    CHECK_OK(ice_roaring64_encode(&s, &buf, &len, &err), &err);
    static const uint8_t want[] = {1,    0,    0, 0, 0, 0, 0,  0, /* one 32-bit bitmap */
                                   0,    0,    0, 0,              /* key 0 */
                                   0x3a, 0x30, 0, 0,              /* cookie 12346 */
                                   1,    0,    0, 0,              /* one container */
                                   0,    0,    3, 0,              /* key 0, cardinality - 1 = 3 */
                                   16,   0,    0, 0,              /* its offset */
                                   1,    0,    2, 0, 3, 0, 10, 0};
    CHECK_EQ_INT(len, sizeof want);
    CHECK(len == sizeof want && !memcmp(buf, want, len));
    free(buf);
    fl_ice_position_set_free(&s);
}

int main(void)
{
    TEST_RUN(test_layout);
    TEST_RUN(test_shapes);
    return TEST_EXIT();
}
