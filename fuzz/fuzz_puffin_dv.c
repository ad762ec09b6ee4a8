/*
 * fuzz_puffin_dv.c - libFuzzer target for Puffin footers, deletion-vector
 * blobs and the portable 64-bit roaring decoder.
 * Input: arbitrary bytes, tried as (1) a whole Puffin file: footer parsed,
 * every blob read through FileIO (decompressed when a codec is named) and
 * decoded as a DV when its type says so; (2) a DV blob; (3) a bare roaring64
 * body. Decoded sets must be sorted, disjoint and agree with their count and
 * with fl_ice_position_set_contains; a decoded roaring64 set re-encoded by
 * floe's writer (roaring_write.c) must decode to the same set.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe/ice_scan.h"
#include "iceberg/scan_internal.h"

static void check_set(const fl_ice_position_set *s)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < s->nranges; i++) {
        uint64_t a = s->ranges[2 * i], b = s->ranges[2 * i + 1];
        if (b <= a || (i && a <= s->ranges[2 * i - 1]))
            abort();
        if (!fl_ice_position_set_contains(s, a) || !fl_ice_position_set_contains(s, b - 1))
            abort();
        if (fl_ice_position_set_contains(s, b) &&
            (i + 1 >= s->nranges || s->ranges[2 * i + 2] != b))
            abort();
        n += b - a;
    }
    if (n != s->n)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fl_error err;
    fl_arena a;
    fl_arena_init(&a, 0);
    ice_puffin_footer ft;
    if (ice_puffin_parse(data, size, &a, &ft, &err) == FL_OK) {
        fl_file *f;
        if (fl_file_from_memory(data, size, "fuzz.puffin", &f, &err) == FL_OK) {
            for (uint32_t i = 0; i < ft.nblobs && i < 16; i++) {
                uint8_t *b;
                size_t n;
                if (ice_puffin_read_blob(f, &ft.blobs[i], &b, &n, &err) != FL_OK)
                    continue;
                fl_ice_position_set s;
                if (!strcmp(ft.blobs[i].type, "deletion-vector-v1") &&
                    fl_ice_dv_decode(b, n, &s, &err) == FL_OK) {
                    check_set(&s);
                    fl_ice_position_set_free(&s);
                }
                free(b);
            }
            fl_file_close(f);
        }
    }
    fl_arena_free(&a);
    fl_ice_position_set s;
    if (fl_ice_dv_decode(data, size, &s, &err) == FL_OK) {
        check_set(&s);
        fl_ice_position_set_free(&s);
    }
    if (ice_roaring64_decode(data, size, &s, &err) == FL_OK) {
        check_set(&s);
        uint8_t *enc = NULL;
        size_t elen = 0;
        fl_ice_position_set back = {0};
        if (s.n <= (1u << 22) && ice_roaring64_encode(&s, &enc, &elen, &err) == FL_OK) {
            if (ice_roaring64_decode(enc, elen, &back, &err) != FL_OK || back.n != s.n ||
                back.nranges != s.nranges ||
                (s.nranges &&
                 memcmp(back.ranges, s.ranges, 2 * s.nranges * sizeof(uint64_t)) != 0))
                abort();
            fl_ice_position_set_free(&back);
            free(enc);
        }
        fl_ice_position_set_free(&s);
    }
    return 0;
}
