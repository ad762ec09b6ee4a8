/*
 * wkb.h - geometries as well-known binary (WKB) and well-known text (WKT),
 * the encodings of the Parquet GEOMETRY/GEOGRAPHY logical types and of
 * Iceberg v3 geometry/geography values.
 *
 * WKB is ISO WKB (OGC Simple Features 1.2.1, 8.2): a byte-order byte, a
 * uint32 geometry type (1 Point .. 7 GeometryCollection, plus 1000 for Z,
 * 2000 for M, 3000 for ZM), then coordinates as IEEE doubles. Both byte
 * orders are read; floe writes little-endian. POINT EMPTY is a point whose
 * coordinates are all NaN (the convention the Parquet spec adopts).
 *
 * Every function validates its input completely: a truncated value, an
 * unknown type code, a count larger than the bytes left, a collection
 * nested deeper than FL_WKB_MAX_DEPTH or trailing bytes fail with FL_ECORRUPT (WKT: FL_ESYNTAX)
 * and a message naming the byte offset. Nothing here allocates except into
 * the caller's fl_buf.
 */
#ifndef FLOE_WKB_H
#define FLOE_WKB_H

#include "floe/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/buf.h"
#include "floe/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FL_WKB_MAX_DEPTH 32

/* A bounding box. A dimension is empty when its min > its max (set by
 * fl_wkb_bbox_init): no non-NaN coordinate was seen in it. */
typedef struct fl_wkb_bbox {
    double xmin, xmax, ymin, ymax, zmin, zmax, mmin, mmax;
} fl_wkb_bbox;

/* Every dimension empty (min = +inf, max = -inf). */
FL_API void fl_wkb_bbox_init(fl_wkb_bbox *b);

/* What fl_wkb_scan learns about one value. */
typedef struct fl_wkb_info {
    uint32_t geometry_type; /* ISO code of the outer geometry: 1..7 + 0/1000/2000/3000 */
} fl_wkb_info;

/* Validates the WKB value p[0..len) and widens bbox (may be NULL) by each of
 * its coordinates, dimension by dimension, skipping NaN ordinates (so POINT
 * EMPTY and NaN-bearing values never poison a box). info may be NULL. */
FL_API fl_status fl_wkb_scan(const uint8_t *p, size_t len, fl_wkb_info *info, fl_wkb_bbox *bbox,
                             fl_error *err);

/* Appends the WKT of p[0..len) to out: "POINT (1 2)", "LINESTRING Z (1 2 3,
 * 4 5 6)", "POLYGON ((0 0, 1 0, 1 1, 0 0))", "MULTIPOINT ((1 2), (3 4))",
 * "GEOMETRYCOLLECTION (POINT (1 2))", "POINT EMPTY". Coordinates print with
 * the shortest representation that reads back to the same double. */
FL_API fl_status fl_wkb_to_wkt(const uint8_t *p, size_t len, fl_buf *out, fl_error *err);

/* Parses WKT s[0..len) (case-insensitive keywords; Z, M and ZM forms; EMPTY)
 * and appends its little-endian ISO WKB to out. Errors name the character
 * offset and what was expected there. */
FL_API fl_status fl_wkt_to_wkb(const char *s, size_t len, fl_buf *out, fl_error *err);

/* The x and y of a non-empty POINT. FL_EINVAL when the value is not a point
 * (the message says what it is) and *is_empty = true for POINT EMPTY. */
FL_API fl_status fl_wkb_point_xy(const uint8_t *p, size_t len, double *x, double *y, bool *is_empty,
                                 fl_error *err);

/* Planar intersection of a geometry with the closed box [xmin, xmax] x
 * [ymin, ymax]: a point inside or on the box, a line with a segment that
 * touches it, a polygon whose boundary crosses it or that contains it or is
 * contained by it; a collection when any member does. Empty geometries
 * intersect nothing. */
FL_API fl_status fl_wkb_intersects_box(const uint8_t *p, size_t len, double xmin, double ymin,
                                       double xmax, double ymax, bool *out, fl_error *err);

/* The little-endian WKB of the polygon ((xmin ymin, xmax ymin, xmax ymax,
 * xmin ymax, xmin ymin)), ST_MakeEnvelope's answer. */
FL_API fl_status fl_wkb_envelope(double xmin, double ymin, double xmax, double ymax, fl_buf *out,
                                 fl_error *err);

/* When p[0..len) is exactly what fl_wkb_envelope writes (any byte order), its
 * box; false otherwise. The planner uses it to prune with ST_Intersects. */
FL_API bool fl_wkb_as_envelope(const uint8_t *p, size_t len, double *xmin, double *ymin,
                               double *xmax, double *ymax);

#ifdef __cplusplus
}
#endif
#endif
