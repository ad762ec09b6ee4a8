/*
 * wkb.c - reading ISO WKB: validation, bounding boxes, points, and planar
 * intersection with a box (see floe/wkb.h). The WKT side is wkt.c.
 *
 * One recursive walker (wkb_geom) visits every coordinate of a value, with
 * a callback per coordinate and per ring/line start, so validation, the box,
 * the WKT printer and the intersection test share the same bounds checks.
 * Counts are checked against the bytes left before any loop runs on them
 * (a point is at least 16 bytes, a ring or line at least its 4-byte count),
 * so hostile counts cost nothing.
 */
#include "base/wkb_int.h"

#include <math.h>
#include <string.h>

void fl_wkb_bbox_init(fl_wkb_bbox *b)
{
    b->xmin = b->ymin = b->zmin = b->mmin = INFINITY;
    b->xmax = b->ymax = b->zmax = b->mmax = -INFINITY;
}

static fl_status fail(fl_wkb_reader *r, const char *what)
{
    return fl_errorf(r->err, FL_ECORRUPT, "WKB: %s at byte %zu", what, r->pos);
}

static fl_status rd_u32(fl_wkb_reader *r, bool le, uint32_t *v)
{
    if (r->len - r->pos < 4)
        return fail(r, "truncated value");
    const uint8_t *p = r->p + r->pos;
    *v = le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
            : (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
    r->pos += 4;
    return FL_OK;
}

static double rd_f64(const uint8_t *p, bool le)
{
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u |= (uint64_t)p[le ? i : 7 - i] << (8 * i);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* n coordinates of dims doubles each, through the visitor. */
static fl_status rd_coords(fl_wkb_reader *r, bool le, uint32_t dims, uint32_t n,
                           const fl_wkb_visitor *v)
{
    size_t need = (size_t)n * dims * 8;
    if (n && (r->len - r->pos) / ((size_t)dims * 8) < n)
        return fail(r, "coordinate count larger than the value");
    for (uint32_t i = 0; i < n; i++) {
        double c[4];
        for (uint32_t d = 0; d < dims; d++)
            c[d] = rd_f64(r->p + r->pos + (size_t)(i * dims + d) * 8, le);
        if (v && v->coord)
            FL_TRY(v->coord(v->ctx, c, i));
    }
    r->pos += need;
    return FL_OK;
}

/* A line or ring: count, then coordinates, between begin/end calls. */
static fl_status rd_run(fl_wkb_reader *r, bool le, uint32_t dims, uint32_t kind,
                        const fl_wkb_visitor *v)
{
    uint32_t n = 0;
    FL_TRY(rd_u32(r, le, &n));
    if (v && v->begin)
        FL_TRY(v->begin(v->ctx, kind, n));
    FL_TRY(rd_coords(r, le, dims, n, v));
    if (v && v->end)
        FL_TRY(v->end(v->ctx, kind));
    return FL_OK;
}

fl_status fl_wkb_geom(fl_wkb_reader *r, int depth, const fl_wkb_visitor *v, uint32_t *code_out)
{
    if (depth > FL_WKB_MAX_DEPTH)
        return fail(r, "collections nested too deep");
    if (r->len - r->pos < 1)
        return fail(r, "truncated value");
    uint8_t order = r->p[r->pos];
    if (order > 1)
        return fail(r, "byte order is neither 0 nor 1");
    r->pos++;
    bool le = order == 1;
    uint32_t code = 0;
    FL_TRY(rd_u32(r, le, &code));
    uint32_t base = code % 1000, dim = code / 1000;
    if (dim > 3 || base < 1 || base > 7) {
        r->pos -= 4;
        return fail(r, "unknown geometry type code");
    }
    uint32_t dims = fl_wkb_ndims(dim);
    if (code_out)
        *code_out = code;
    if (v && v->geom)
        FL_TRY(v->geom(v->ctx, code, depth, true));
    if (base == 1) {
        if (v && v->begin)
            FL_TRY(v->begin(v->ctx, 1, 1));
        FL_TRY(rd_coords(r, le, dims, 1, v));
        if (v && v->end)
            FL_TRY(v->end(v->ctx, 1));
    } else if (base == 2) {
        FL_TRY(rd_run(r, le, dims, 2, v));
    } else {
        uint32_t n = 0;
        FL_TRY(rd_u32(r, le, &n));
        if (n && (r->len - r->pos) / (base == 3 ? 4 : 9) < n)
            return fail(r, "member count larger than the value");
        if (v && v->parts)
            FL_TRY(v->parts(v->ctx, n));
        for (uint32_t i = 0; i < n; i++) {
            if (base == 3) {
                FL_TRY(rd_run(r, le, dims, 3, v));
                continue;
            }
            uint32_t sub = 0;
            size_t at = r->pos;
            FL_TRY(fl_wkb_geom(r, depth + 1, v, &sub));
            uint32_t want = base == 4 ? 1 : base == 5 ? 2 : base == 6 ? 3 : 0;
            if (want && sub % 1000 != want) {
                r->pos = at;
                return fail(r, "member of the wrong type in a multi-geometry");
            }
        }
    }
    if (v && v->geom)
        FL_TRY(v->geom(v->ctx, code, depth, false));
    return FL_OK;
}

fl_status fl_wkb_walk(const uint8_t *p, size_t len, const fl_wkb_visitor *v, uint32_t *code,
                      fl_error *err)
{
    fl_wkb_reader r = {p, len, 0, err};
    FL_TRY(fl_wkb_geom(&r, 0, v, code));
    if (r.pos != len)
        return fail(&r, "trailing bytes after the geometry");
    return FL_OK;
}

/* ---- bounding box ---- */

typedef struct box_ctx {
    fl_wkb_bbox *box;
    uint32_t dim; /* of the geometry whose coordinates come next */
} box_ctx;

static fl_status box_geom(void *ctx, uint32_t code, int depth, bool start)
{
    (void)depth;
    if (start)
        ((box_ctx *)ctx)->dim = code / 1000;
    return FL_OK;
}

static void widen(double v, double *lo, double *hi)
{
    if (isnan(v))
        return;
    *lo = v < *lo ? v : *lo;
    *hi = v > *hi ? v : *hi;
}

static fl_status box_coord(void *ctx, const double *c, uint32_t i)
{
    (void)i;
    box_ctx *b = ctx;
    widen(c[0], &b->box->xmin, &b->box->xmax);
    widen(c[1], &b->box->ymin, &b->box->ymax);
    if (b->dim == 1 || b->dim == 3)
        widen(c[2], &b->box->zmin, &b->box->zmax);
    if (b->dim == 2)
        widen(c[2], &b->box->mmin, &b->box->mmax);
    if (b->dim == 3)
        widen(c[3], &b->box->mmin, &b->box->mmax);
    return FL_OK;
}

fl_status fl_wkb_scan(const uint8_t *p, size_t len, fl_wkb_info *info, fl_wkb_bbox *bbox,
                      fl_error *err)
{
    box_ctx b = {bbox, 0};
    fl_wkb_visitor v = {.ctx = &b, .geom = box_geom, .coord = bbox ? box_coord : NULL};
    uint32_t code = 0;
    FL_TRY(fl_wkb_walk(p, len, &v, &code, err));
    if (info)
        info->geometry_type = code;
    return FL_OK;
}

/* ---- points and envelopes ---- */

fl_status fl_wkb_point_xy(const uint8_t *p, size_t len, double *x, double *y, bool *is_empty,
                          fl_error *err)
{
    uint32_t code = 0;
    FL_TRY(fl_wkb_walk(p, len, NULL, &code, err));
    if (code % 1000 != 1)
        return fl_errorf(err, FL_EINVAL, "argument is a %s, not a point", fl_wkb_type_name(code));
    bool le = p[0] == 1;
    *x = rd_f64(p + 5, le);
    *y = rd_f64(p + 13, le);
    *is_empty = isnan(*x) && isnan(*y);
    return FL_OK;
}

const char *fl_wkb_type_name(uint32_t code)
{
    static const char *const names[] = {
        "geometry",   "point",           "linestring",   "polygon",
        "multipoint", "multilinestring", "multipolygon", "geometrycollection"};
    uint32_t base = code % 1000;
    return base <= 7 ? names[base] : names[0];
}

fl_status fl_wkb_envelope(double xmin, double ymin, double xmax, double ymax, fl_buf *out,
                          fl_error *err)
{
    uint8_t b[93];
    const double xy[10] = {xmin, ymin, xmax, ymin, xmax, ymax, xmin, ymax, xmin, ymin};
    b[0] = 1;
    fl_wkb_put_u32le(b + 1, 3);
    fl_wkb_put_u32le(b + 5, 1);
    fl_wkb_put_u32le(b + 9, 5);
    for (int i = 0; i < 10; i++)
        fl_wkb_put_f64le(b + 13 + 8 * i, xy[i]);
    return fl_buf_append(out, b, sizeof b, err);
}

bool fl_wkb_as_envelope(const uint8_t *p, size_t len, double *xmin, double *ymin, double *xmax,
                        double *ymax)
{
    fl_error e;
    uint32_t code = 0;
    if (len != 93 || fl_wkb_walk(p, len, NULL, &code, &e) != FL_OK || code != 3)
        return false;
    bool le = p[0] == 1;
    uint32_t rings = le ? p[5] | (uint32_t)p[6] << 8 | (uint32_t)p[7] << 16 | (uint32_t)p[8] << 24
                        : p[8] | (uint32_t)p[7] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[5] << 24;
    if (rings != 1)
        return false;
    double c[10];
    for (int i = 0; i < 10; i++)
        c[i] = rd_f64(p + 13 + 8 * i, le);
    bool box = c[1] == c[3] && c[2] == c[4] && c[5] == c[7] && c[6] == c[0] && c[8] == c[0] &&
               c[9] == c[1] && c[0] <= c[2] && c[1] <= c[5];
    if (!box)
        return false;
    *xmin = c[0], *ymin = c[1], *xmax = c[2], *ymax = c[5];
    return true;
}
