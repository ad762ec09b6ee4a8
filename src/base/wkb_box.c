/*
 * wkb_box.c - planar intersection of a WKB geometry with a closed box
 * (fl_wkb_intersects_box), what ST_Intersects(g, ST_MakeEnvelope(...))
 * answers.
 *
 * A geometry meets the box when one of its vertices lies in the box, one of
 * its segments crosses the box (Liang-Barsky clipping), or, for a polygon,
 * the box lies inside it: then the box's corner is inside the polygon by
 * the even-odd rule over all its rings (so a hole around the box leaves the
 * corner outside). Those three cases cover every way two closed planar
 * regions can meet. NaN coordinates fail every comparison and meet nothing.
 */
#include "base/wkb_int.h"

#include <math.h>
#include <stdbool.h>

typedef struct box_hit {
    double xmin, ymin, xmax, ymax;
    bool hit;
    bool inside_parity; /* corner (xmin, ymin) inside the current polygon */
    double px, py;      /* previous vertex of the current line or ring */
    uint32_t kind;
} box_hit;

static bool in_box(const box_hit *b, double x, double y)
{
    return x >= b->xmin && x <= b->xmax && y >= b->ymin && y <= b->ymax;
}

/* Liang-Barsky: does the segment (x0,y0)-(x1,y1) meet the box? */
static bool segment_hits(const box_hit *b, double x0, double y0, double x1, double y1)
{
    if (isnan(x0) || isnan(y0) || isnan(x1) || isnan(y1))
        return false;
    double t0 = 0, t1 = 1, dx = x1 - x0, dy = y1 - y0;
    double p[4] = {-dx, dx, -dy, dy};
    double q[4] = {x0 - b->xmin, b->xmax - x0, y0 - b->ymin, b->ymax - y0};
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (!(q[i] >= 0))
                return false;
            continue;
        }
        double t = q[i] / p[i];
        if (p[i] < 0) {
            if (t > t1)
                return false;
            if (t > t0)
                t0 = t;
        } else {
            if (t < t0)
                return false;
            if (t < t1)
                t1 = t;
        }
    }
    return t0 <= t1;
}

static fl_status hit_geom(void *ctx, uint32_t code, int depth, bool start)
{
    box_hit *b = ctx;
    (void)depth;
    if (code % 1000 != 3)
        return FL_OK;
    if (start)
        b->inside_parity = false;
    else if (b->inside_parity)
        b->hit = true;
    return FL_OK;
}

static fl_status hit_begin(void *ctx, uint32_t kind, uint32_t n)
{
    (void)n;
    ((box_hit *)ctx)->kind = kind;
    return FL_OK;
}

static fl_status hit_coord(void *ctx, const double *c, uint32_t i)
{
    box_hit *b = ctx;
    double x = c[0], y = c[1];
    if (in_box(b, x, y))
        b->hit = true;
    if (i > 0 && b->kind != 1) {
        if (segment_hits(b, b->px, b->py, x, y))
            b->hit = true;
        if (b->kind == 3 && ((b->py > b->ymin) != (y > b->ymin)) &&
            b->xmin < b->px + (b->ymin - b->py) * (x - b->px) / (y - b->py))
            b->inside_parity = !b->inside_parity;
    }
    b->px = x, b->py = y;
    return FL_OK;
}

fl_status fl_wkb_intersects_box(const uint8_t *p, size_t len, double xmin, double ymin, double xmax,
                                double ymax, bool *out, fl_error *err)
{
    box_hit b = {.xmin = xmin, .ymin = ymin, .xmax = xmax, .ymax = ymax};
    fl_wkb_visitor v = {.ctx = &b, .geom = hit_geom, .begin = hit_begin, .coord = hit_coord};
    FL_TRY(fl_wkb_walk(p, len, &v, NULL, err));
    *out = b.hit;
    return FL_OK;
}
