/*
 * geo.c - the geometry functions, with PostGIS's names and answers:
 * ST_GeomFromText, ST_GeomFromWKB, ST_AsText, ST_AsBinary, ST_X, ST_Y,
 * ST_MakeEnvelope and ST_Intersects (with a box on one side).
 *
 * A geometry is a BINARY of ISO WKB whose type has ext FL_EXT_GEOMETRY
 * (types.h); the functions take any BINARY, so a bytea column of WKB works
 * too, and validate every value they read (floe/wkb.h). ST_Intersects is
 * planar and supports one argument that is a box (what ST_MakeEnvelope
 * returns): the case pruning with bounding-box statistics serves. Anything
 * else is refused by name rather than answered approximately.
 */
#include <math.h>

#include "floe/wkb.h"
#include "sql/func/func_internal.h"

static fl_type mk_geometry(void)
{
    fl_type t = fl_mk(FL_TYPE_BINARY);
    t.ext = FL_EXT_GEOMETRY;
    return t;
}

static fl_status bad_geometry(const fl_fn_call *c, fl_error *err, const fl_error *why)
{
    return fl_fn_error_state(c, err, FL_ETYPE, "22P02", "invalid geometry: %s", why->msg);
}

/* ---- resolution ---- */

static bool r_from_text(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !fl_is_string(&a[0]))
        return false;
    at[0] = fl_mk(FL_TYPE_STRING);
    *r = mk_geometry();
    return true;
}

static bool r_from_wkb(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || a[0].id != FL_TYPE_BINARY)
        return false;
    at[0] = a[0];
    *r = mk_geometry();
    return true;
}

/* A geometry argument: any BINARY as it is; a text literal (or NULL) is
 * cast to geometry, which reads WKT, as PostGIS's ST_AsText('POINT (1 2)'). */
static bool geo_one(const fl_type *a, fl_type *at)
{
    if (a->id == FL_TYPE_BINARY)
        *at = *a;
    else if (fl_is_unknown(a))
        *at = mk_geometry();
    else
        return false;
    return true;
}

/* geometry -> text | bytea | double */
static bool geo_arg(const fl_type *a, uint32_t n, fl_type *at)
{
    return n == 1 && geo_one(&a[0], &at[0]);
}
static bool r_as_text(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    *r = fl_mk(FL_TYPE_STRING);
    return geo_arg(a, n, at);
}
static bool r_as_binary(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    *r = fl_mk(FL_TYPE_BINARY);
    return geo_arg(a, n, at);
}
static bool r_coord(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    *r = fl_mk(FL_TYPE_FLOAT64);
    return geo_arg(a, n, at);
}

static bool r_envelope(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 4)
        return false;
    for (uint32_t i = 0; i < 4; i++) {
        if (!fl_is_numeric(&a[i]) && !fl_is_unknown(&a[i]))
            return false;
        at[i] = fl_mk(FL_TYPE_FLOAT64);
    }
    *r = mk_geometry();
    return true;
}

static bool r_intersects(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !geo_one(&a[0], &at[0]) || !geo_one(&a[1], &at[1]))
        return false;
    *r = fl_mk(FL_TYPE_BOOLEAN);
    return true;
}

/* ---- kernels ---- */

static fl_status step_from_text(const uint8_t *p, size_t n, fl_buf *out, fl_error *err)
{
    return fl_wkt_to_wkb((const char *)p, n, out, err);
}
static fl_status step_check_wkb(const uint8_t *p, size_t n, fl_buf *out, fl_error *err)
{
    FL_TRY(fl_wkb_scan(p, n, NULL, NULL, err));
    return fl_buf_append(out, p, n, err);
}

static fl_status map_bytes(fl_fn_call *c, fl_bytes_step step, fl_error *err)
{
    return fl_fn_map_bytes(c, step, false, FL_ETYPE, "invalid geometry", err);
}

static fl_status k_from_text(fl_fn_call *c, fl_error *err)
{
    return map_bytes(c, step_from_text, err);
}
static fl_status k_from_wkb(fl_fn_call *c, fl_error *err)
{
    return map_bytes(c, step_check_wkb, err);
}
static fl_status k_as_text(fl_fn_call *c, fl_error *err)
{
    return map_bytes(c, fl_wkb_to_wkt, err);
}

static fl_status k_as_binary(fl_fn_call *c, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    strout so;
    strout_init_call(&so, c);
    fl_status rc = FL_OK;
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n;
        const uint8_t *p = ubytes(&u, i, &n);
        if (rc == FL_OK)
            rc = strout_put(&so, i, p, n, err);
    });
    strout_finish(&so, c->nrows);
    return rc;
}

/* ST_X / ST_Y: NULL for POINT EMPTY, an error for anything but a point. */
static fl_status coord_of(fl_fn_call *c, bool want_y, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n;
        const uint8_t *p = ubytes(&u, i, &n);
        double x = 0, y = 0;
        bool empty;
        fl_error e;
        fl_error_clear(&e);
        fl_status rc = fl_wkb_point_xy(p, n, &x, &y, &empty, &e);
        if (rc == FL_EINVAL)
            return fl_fn_error_state(c, err, FL_ETYPE, "22023", "%s", e.msg);
        if (rc != FL_OK)
            return bad_geometry(c, err, &e);
        if (empty)
            FL_TRY(fl_out_null(c->out, i, err));
        else
            OUTV(c->out, double)[i] = want_y ? y : x;
    });
    return FL_OK;
}
static fl_status k_x(fl_fn_call *c, fl_error *err)
{
    return coord_of(c, false, err);
}
static fl_status k_y(fl_fn_call *c, fl_error *err)
{
    return coord_of(c, true, err);
}

static fl_status k_envelope(fl_fn_call *c, fl_error *err)
{
    fl_unified u[4];
    for (int k = 0; k < 4; k++)
        fl_vector_unify(c->args[k], &u[k]);
    strout so;
    strout_init_call(&so, c);
    fl_buf wkb = {0};
    fl_status rc = FL_OK;
    FOR_ROWS(c->sel, c->nrows, i, {
        if (rc != FL_OK)
            continue;
        wkb.len = 0;
        rc = fl_wkb_envelope(UV(u[0], double, i), UV(u[1], double, i), UV(u[2], double, i),
                             UV(u[3], double, i), &wkb, err);
        if (rc == FL_OK)
            rc = strout_put(&so, i, wkb.bytes, wkb.len, err);
    });
    strout_finish(&so, c->nrows);
    fl_buf_free(&wkb);
    return rc;
}

static fl_status k_intersects(fl_fn_call *c, fl_error *err)
{
    fl_unified a, b;
    fl_vector_unify(c->args[0], &a);
    fl_vector_unify(c->args[1], &b);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t na, nb;
        const uint8_t *pa = ubytes(&a, i, &na), *pb = ubytes(&b, i, &nb);
        double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
        const uint8_t *g = pa;
        size_t ng = na;
        if (!fl_wkb_as_envelope(pb, nb, &x0, &y0, &x1, &y1)) {
            if (!fl_wkb_as_envelope(pa, na, &x0, &y0, &x1, &y1))
                return fl_fn_error_state(c, err, FL_EUNSUPPORTED, "0A000",
                                         "ST_Intersects: only a box (ST_MakeEnvelope) is "
                                         "supported as one argument");
            g = pb, ng = nb;
        }
        bool hit;
        fl_error e;
        fl_error_clear(&e);
        if (fl_wkb_intersects_box(g, ng, x0, y0, x1, y1, &hit, &e) != FL_OK)
            return bad_geometry(c, err, &e);
        c->out->data[i] = hit;
    });
    return FL_OK;
}

#define SCALAR(nm, r, k)                                                                           \
    {                                                                                              \
        .name = nm, .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r, .kernel = k       \
    }
static const fl_func funcs[] = {
    SCALAR("st_geomfromtext", r_from_text, k_from_text),
    SCALAR("st_geometryfromtext", r_from_text, k_from_text),
    SCALAR("st_geomfromwkb", r_from_wkb, k_from_wkb),
    SCALAR("st_astext", r_as_text, k_as_text),
    SCALAR("st_aswkt", r_as_text, k_as_text),
    SCALAR("st_asbinary", r_as_binary, k_as_binary),
    SCALAR("st_aswkb", r_as_binary, k_as_binary),
    SCALAR("st_x", r_coord, k_x),
    SCALAR("st_y", r_coord, k_y),
    SCALAR("st_makeenvelope", r_envelope, k_envelope),
    SCALAR("st_intersects", r_intersects, k_intersects),
};
const fl_func_table fl_funcs_geo = {funcs, sizeof funcs / sizeof funcs[0]};
