/*
 * geo_stats.c - GeospatialStatistics of GEOMETRY and GEOGRAPHY column chunks
 * (parquet-format Geospatial.md, "Statistics").
 *
 * A geospatial column keeps no min/max: the spec leaves the order of WKB
 * values undefined, so byte-wise bounds would be noise a reader might prune
 * with. Instead each chunk records
 *   - geospatial_types: the distinct ISO WKB codes of its values, sorted, and
 *   - bbox (GEOMETRY only): the box of every non-NaN coordinate, per
 *     dimension; z and m only when some value has them.
 * A GEOGRAPHY chunk gets types but no box: its edges are geodesics that can
 * bulge past the box of its vertices (towards a pole, across the
 * antimeridian), and a box too small would let a reader skip rows that
 * match. Writing none is the conservative answer the spec allows.
 *
 * Every value is validated as WKB on the way (fl_wkb_scan): a geometry
 * column that does not hold WKB fails the write with the row's offset, not a
 * file other readers cannot open.
 */
#include <math.h>
#include <stdlib.h>

#include "parquet/writer_int.h"

static void box_widen(fl_wkb_bbox *dst, const fl_wkb_bbox *src)
{
    dst->xmin = fmin(dst->xmin, src->xmin), dst->xmax = fmax(dst->xmax, src->xmax);
    dst->ymin = fmin(dst->ymin, src->ymin), dst->ymax = fmax(dst->ymax, src->ymax);
    dst->zmin = fmin(dst->zmin, src->zmin), dst->zmax = fmax(dst->zmax, src->zmax);
    dst->mmin = fmin(dst->mmin, src->mmin), dst->mmax = fmax(dst->mmax, src->mmax);
}

/* The type-set bit of an ISO code, or -1 for a code outside 1..7 + k*1000. */
static int type_bit(uint32_t code)
{
    uint32_t dim = code / 1000, base = code % 1000;
    if (dim > 3 || base < 1 || base > 7)
        return -1;
    return (int)(dim * 7 + base - 1);
}

fl_status fl_pqw_geo_segment(fl_pqw_column *c, fl_error *err)
{
    const fl_vector *b = c->leaf_base;
    for (uint32_t i = 0; i < c->npos; i++) {
        size_t len;
        const uint8_t *p = fl_vector_bytes(b, c->pos[i], &len);
        fl_wkb_info info;
        fl_error e = {0};
        if (fl_wkb_scan(p, len, &info, &c->chunk_box, &e) != FL_OK)
            return fl_errorf(err, FL_ECORRUPT, "column '%s': a value is not WKB: %s", c->leaf->path,
                             e.msg);
        int bit = type_bit(info.geometry_type);
        if (bit >= 0)
            c->chunk_geo_types |= 1u << bit;
    }
    return FL_OK;
}

fl_status fl_pqw_geo_stats(fl_pqw_column *c, fl_arena *a, fl_pq_geo_stats *out, bool *any,
                           fl_error *err)
{
    memset(out, 0, sizeof *out);
    *any = false;
    box_widen(&c->file_box, &c->chunk_box);
    uint32_t n = (uint32_t)__builtin_popcount(c->chunk_geo_types);
    if (n == 0)
        return FL_OK;
    out->types = fl_arena_alloc(a, n * sizeof *out->types);
    if (!out->types)
        return fl_errorf(err, FL_ENOMEM, "out of memory for geospatial statistics");
    for (int bit = 0; bit < 28; bit++)
        if (c->chunk_geo_types & (1u << bit))
            out->types[out->ntypes++] = (bit / 7) * 1000 + bit % 7 + 1;
    out->types_set = true;
    *any = true;
    const fl_wkb_bbox *bx = &c->chunk_box;
    if (c->leaf->type->ext != FL_EXT_GEOMETRY || !(bx->xmin <= bx->xmax && bx->ymin <= bx->ymax))
        return FL_OK;
    out->bbox_set = true;
    out->xmin = bx->xmin, out->xmax = bx->xmax, out->ymin = bx->ymin, out->ymax = bx->ymax;
    out->z_set = bx->zmin <= bx->zmax;
    out->zmin = bx->zmin, out->zmax = bx->zmax;
    out->m_set = bx->mmin <= bx->mmax;
    out->mmin = bx->mmin, out->mmax = bx->mmax;
    return FL_OK;
}

void fl_pqw_geo_reset_chunk(fl_pqw_column *c)
{
    fl_wkb_bbox_init(&c->chunk_box);
    c->chunk_geo_types = 0;
}
