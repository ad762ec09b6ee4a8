/*
 * fuzz_wkb.c - the WKB reader and the WKT parser (src/base/wkb.c, wkt.c,
 * wkb_box.c) over arbitrary bytes.
 *
 * The input is tried as WKB (validation with a box, WKT printing, the box
 * intersection test, the envelope check, ST_X/ST_Y's point reader) and as
 * WKT text. Two round trips must hold, or the target traps:
 *   - WKT that parses prints back to WKT that parses to the same WKB bytes;
 *   - WKB that validates prints to WKT that parses back to WKB that prints
 *     to the same text.
 */
#include <stdint.h>
#include <string.h>

#include "floe/wkb.h"

static void as_wkb(const uint8_t *data, size_t size)
{
    fl_error err;
    fl_wkb_info info;
    fl_wkb_bbox box;
    fl_wkb_bbox_init(&box);
    if (fl_wkb_scan(data, size, &info, &box, &err) != FL_OK)
        return;
    bool hit;
    if (fl_wkb_intersects_box(data, size, -1, -1, 1, 1, &hit, &err) != FL_OK)
        __builtin_trap(); /* validated, so it must walk */
    double x, y, a, b;
    bool empty;
    (void)fl_wkb_point_xy(data, size, &x, &y, &empty, &err);
    (void)fl_wkb_as_envelope(data, size, &x, &y, &a, &b);
    fl_buf t1 = {0}, w2 = {0}, t2 = {0};
    if (fl_wkb_to_wkt(data, size, &t1, &err) != FL_OK)
        __builtin_trap();
    if (fl_wkt_to_wkb(t1.data, t1.len, &w2, &err) == FL_OK) {
        if (fl_wkb_to_wkt(w2.bytes, w2.len, &t2, &err) != FL_OK || t1.len != t2.len ||
            memcmp(t1.data, t2.data, t1.len) != 0)
            __builtin_trap();
    }
    fl_buf_free(&t1);
    fl_buf_free(&w2);
    fl_buf_free(&t2);
}

static void as_wkt(const uint8_t *data, size_t size)
{
    fl_error err;
    fl_buf w1 = {0}, t = {0}, w2 = {0};
    if (fl_wkt_to_wkb((const char *)data, size, &w1, &err) == FL_OK) {
        if (fl_wkb_scan(w1.bytes, w1.len, NULL, NULL, &err) != FL_OK ||
            fl_wkb_to_wkt(w1.bytes, w1.len, &t, &err) != FL_OK ||
            fl_wkt_to_wkb(t.data, t.len, &w2, &err) != FL_OK || w1.len != w2.len ||
            memcmp(w1.bytes, w2.bytes, w1.len) != 0)
            __builtin_trap();
    }
    fl_buf_free(&w1);
    fl_buf_free(&t);
    fl_buf_free(&w2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    as_wkb(data, size);
    as_wkt(data, size);
    return 0;
}
