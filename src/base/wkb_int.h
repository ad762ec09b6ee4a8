/*
 * wkb_int.h - the WKB walker shared by wkb.c (validation, boxes, points),
 * wkt.c (printing) and wkb_box.c (intersection with a box).
 *
 * fl_wkb_walk visits one value in order: geom(start) for each geometry,
 * parts(n) before the members or rings of a multi-geometry, collection or
 * polygon... (polygons call begin/end per ring instead), begin(kind, n)
 * before the n coordinates of a point (kind 1), line (2) or ring (3),
 * coord for each, end(kind) after, geom(end) last. Any callback may be
 * NULL; one that fails stops the walk with its status.
 */
#ifndef FLOE_BASE_WKB_INT_H
#define FLOE_BASE_WKB_INT_H

#include <string.h>

#include "floe/wkb.h"

typedef struct fl_wkb_visitor {
    void *ctx;
    fl_status (*geom)(void *ctx, uint32_t code, int depth, bool start);
    fl_status (*parts)(void *ctx, uint32_t n);
    fl_status (*begin)(void *ctx, uint32_t kind, uint32_t n);
    fl_status (*coord)(void *ctx, const double *c, uint32_t i);
    fl_status (*end)(void *ctx, uint32_t kind);
} fl_wkb_visitor;

typedef struct fl_wkb_reader {
    const uint8_t *p;
    size_t len, pos;
    fl_error *err;
} fl_wkb_reader;

/* Walks one geometry at r->pos (recursively for collections). */
fl_status fl_wkb_geom(fl_wkb_reader *r, int depth, const fl_wkb_visitor *v, uint32_t *code);
/* Walks the whole value p[0..len): trailing bytes are an error. */
fl_status fl_wkb_walk(const uint8_t *p, size_t len, const fl_wkb_visitor *v, uint32_t *code,
                      fl_error *err);
/* "point", "linestring", ... for messages. */
const char *fl_wkb_type_name(uint32_t code);

/* Doubles per coordinate of an ISO code's dimension (code / 1000): XY 2, Z 3, M 3, ZM 4. */
static inline uint32_t fl_wkb_ndims(uint32_t dim)
{
    return 2 + (dim == 1 || dim == 2) + 2 * (dim == 3);
}

/* Little-endian stores, the byte order floe writes. */
static inline void fl_wkb_put_u32le(uint8_t *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}
static inline void fl_wkb_put_f64le(uint8_t *b, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(u >> (8 * i));
}

#endif
