/* Unit tests for base/wkb.c, wkt.c and wkb_box.c: WKT <-> WKB round trips of
 * every geometry type and dimension, big-endian input, boxes that skip NaN,
 * errors with their offsets, the box intersection truth table, envelopes,
 * and the Iceberg spellings of geometry/geography types (base/types.c). */
#include <math.h>
#include <string.h>

#include "floe/types.h"
#include "floe/wkb.h"
#include "test.h"

/* WKT -> WKB -> WKT gives back want (NULL: the input itself). */
static void round_trip(const char *wkt, const char *want)
{
    fl_buf wkb = {0}, out = {0};
    fl_error err;
    CHECK_OK(fl_wkt_to_wkb(wkt, strlen(wkt), &wkb, &err), &err);
    CHECK_OK(fl_wkb_scan(wkb.bytes, wkb.len, NULL, NULL, &err), &err);
    CHECK_OK(fl_wkb_to_wkt(wkb.bytes, wkb.len, &out, &err), &err);
    CHECK_EQ_STR(out.data ? out.data : "", want ? want : wkt);
    fl_buf_free(&wkb);
    fl_buf_free(&out);
}

static void test_round_trips(void)
{
    static const char *cases[] = {
        "POINT (1 2)",
        "POINT Z (1 2 3)",
        "POINT M (1 2 4)",
        "POINT ZM (1 2 3 4)",
        "POINT EMPTY",
        "LINESTRING (30 10, 10 30, 40 40)",
        "LINESTRING EMPTY",
        "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 3 2, 3 3, 2 2))",
        "POLYGON EMPTY",
        "MULTIPOINT ((1 2), (3 4))",
        "MULTILINESTRING ((0 0, 1 1), (2 2, 3 3))",
        "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))",
        "GEOMETRYCOLLECTION (POINT (1 2), LINESTRING (0 0, 1 1))",
        "GEOMETRYCOLLECTION EMPTY",
        "GEOMETRYCOLLECTION (GEOMETRYCOLLECTION (POINT EMPTY))",
        "POINT (0.1 -123456789.125)",
        "POINT (1e+300 5e-324)",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        round_trip(cases[i], NULL);
    round_trip("multipoint(1 2,3 4)", "MULTIPOINT ((1 2), (3 4))");
    round_trip("POINT (1e400 -inf)", "POINT (Infinity -Infinity)");
    round_trip("  point  z(1 2 3) ", "POINT Z (1 2 3)");
}

static void test_big_endian_and_box(void)
{
    /* POINT (1 2), big-endian */
    static const uint8_t be[] = {0, 0, 0,    0, 1, 0x3f, 0xf0, 0, 0, 0, 0,
                                 0, 0, 0x40, 0, 0, 0,    0,    0, 0, 0};
    fl_buf out = {0};
    fl_error err;
    CHECK_OK(fl_wkb_to_wkt(be, sizeof be, &out, &err), &err);
    CHECK_EQ_STR(out.data, "POINT (1 2)");
    double x, y;
    bool empty;
    CHECK_OK(fl_wkb_point_xy(be, sizeof be, &x, &y, &empty, &err), &err);
    CHECK(x == 1 && y == 2 && !empty);
    fl_buf_free(&out);

    fl_buf wkb = {0};
    const char *ls = "LINESTRING ZM (1 5 NaN 7, NaN NaN NaN NaN, -3 9 2 NaN)";
    CHECK_OK(fl_wkt_to_wkb(ls, strlen(ls), &wkb, &err), &err);
    fl_wkb_bbox box;
    fl_wkb_bbox_init(&box);
    fl_wkb_info info;
    CHECK_OK(fl_wkb_scan(wkb.bytes, wkb.len, &info, &box, &err), &err);
    CHECK_EQ_INT(info.geometry_type, 3002);
    CHECK(box.xmin == -3 && box.xmax == 1 && box.ymin == 5 && box.ymax == 9);
    CHECK(box.zmin == 2 && box.zmax == 2 && box.mmin == 7 && box.mmax == 7);
    fl_buf_free(&wkb);
    const char *pe = "POINT EMPTY";
    CHECK_OK(fl_wkt_to_wkb(pe, strlen(pe), &wkb, &err), &err);
    fl_wkb_bbox_init(&box);
    CHECK_OK(fl_wkb_scan(wkb.bytes, wkb.len, NULL, &box, &err), &err);
    CHECK(box.xmin > box.xmax); /* empty stays empty, no NaN in the box */
    CHECK_OK(fl_wkb_point_xy(wkb.bytes, wkb.len, &x, &y, &empty, &err), &err);
    CHECK(empty);
    fl_buf_free(&wkb);
}

static void expect_wkb_error(const uint8_t *p, size_t n, const char *needle)
{
    fl_error err;
    fl_error_clear(&err);
    CHECK(fl_wkb_scan(p, n, NULL, NULL, &err) == FL_ECORRUPT);
    CHECK(strstr(err.msg, needle) != NULL);
    if (!strstr(err.msg, needle))
        fprintf(stderr, "  message: %s (wanted %s)\n", err.msg, needle);
}

static void test_wkb_errors(void)
{
    static const uint8_t trunc[] = {1, 1, 0, 0, 0, 0, 0};
    expect_wkb_error(trunc, sizeof trunc, "coordinate count larger than the value at byte 5");
    static const uint8_t order[] = {7, 1, 0, 0, 0};
    expect_wkb_error(order, sizeof order, "byte order is neither 0 nor 1 at byte 0");
    static const uint8_t code[] = {1, 8, 0, 0, 0};
    expect_wkb_error(code, sizeof code, "unknown geometry type code at byte 1");
    /* a line claiming 2^32-1 points in 9 bytes */
    static const uint8_t count[] = {1, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
    expect_wkb_error(count, sizeof count, "coordinate count larger than the value at byte 9");
    uint8_t trail[22] = {1, 1, 0, 0, 0};
    expect_wkb_error(trail, sizeof trail, "trailing bytes after the geometry at byte 21");
    /* MULTIPOINT holding a LINESTRING */
    static const uint8_t mixed[] = {1, 4, 0, 0, 0, 1, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0};
    expect_wkb_error(mixed, sizeof mixed, "member of the wrong type in a multi-geometry at byte 9");
    /* collections nested 40 deep */
    uint8_t deep[40 * 9];
    for (int i = 0; i < 40; i++) {
        uint8_t *d = deep + i * 9;
        d[0] = 1, d[1] = 7, d[2] = d[3] = d[4] = 0;
        d[5] = 1, d[6] = d[7] = d[8] = 0;
    }
    expect_wkb_error(deep, sizeof deep, "collections nested too deep");
    double x, y;
    bool empty;
    fl_buf wkb = {0};
    fl_error err;
    CHECK_OK(fl_wkt_to_wkb("LINESTRING (0 0, 1 1)", 21, &wkb, &err), &err);
    CHECK(fl_wkb_point_xy(wkb.bytes, wkb.len, &x, &y, &empty, &err) == FL_EINVAL);
    CHECK_EQ_STR(err.msg, "argument is a linestring, not a point");
    fl_buf_free(&wkb);
}

static void expect_wkt_error(const char *s, const char *msg)
{
    fl_buf wkb = {0};
    fl_error err;
    CHECK(fl_wkt_to_wkb(s, strlen(s), &wkb, &err) == FL_ESYNTAX);
    CHECK_EQ_STR(err.msg, msg);
    CHECK_EQ_INT(wkb.len, 0);
    fl_buf_free(&wkb);
}

static void test_wkt_errors(void)
{
    expect_wkt_error("POINT (1)", "WKT: expected a number at character 9");
    expect_wkt_error("POINT (1 2 3)", "WKT: expected ')' at character 12");
    expect_wkt_error("CIRCLE (1 2)",
                     "WKT: expected a geometry type (POINT, LINESTRING, POLYGON, MULTI..., "
                     "GEOMETRYCOLLECTION) at character 1");
    expect_wkt_error("LINESTRING (0 0, 1 1", "WKT: expected ',' or ')' at character 21");
    expect_wkt_error("POINT (1 2) x", "WKT: expected the end of the text at character 13");
    expect_wkt_error("POLYGON (0 0)", "WKT: expected '(' or EMPTY at character 10");
}

static bool hits(const char *wkt, double x0, double y0, double x1, double y1)
{
    fl_buf wkb = {0};
    fl_error err;
    bool hit = false;
    CHECK_OK(fl_wkt_to_wkb(wkt, strlen(wkt), &wkb, &err), &err);
    CHECK_OK(fl_wkb_intersects_box(wkb.bytes, wkb.len, x0, y0, x1, y1, &hit, &err), &err);
    fl_buf_free(&wkb);
    return hit;
}

static void test_intersects_box(void)
{
    CHECK(hits("POINT (5 5)", 4, 4, 6, 6));
    CHECK(hits("POINT (6 5)", 4, 4, 6, 6)); /* on the edge: closed box */
    CHECK(!hits("POINT (7 5)", 4, 4, 6, 6));
    CHECK(!hits("POINT EMPTY", -1e300, -1e300, 1e300, 1e300));
    CHECK(hits("LINESTRING (0 5, 10 5)", 4, 4, 6, 6)); /* crosses, no vertex inside */
    CHECK(!hits("LINESTRING (0 0, 10 1)", 4, 4, 6, 6));
    CHECK(hits("LINESTRING (0 10, 10 0)", 4, 4, 6, 6)); /* diagonal through the middle */
    CHECK(!hits("LINESTRING (0 3, 3 0)", 4, 4, 6, 6));
    const char *ring = "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))";
    CHECK(hits(ring, 4, 4, 6, 6));     /* contains the box */
    CHECK(hits(ring, -5, -5, 20, 20)); /* inside the box */
    CHECK(!hits(ring, 11, 11, 12, 12));
    const char *holed = "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (3 3, 7 3, 7 7, 3 7, 3 3))";
    CHECK(!hits(holed, 4, 4, 6, 6)); /* the box sits in the hole */
    CHECK(hits(holed, 2, 4, 6, 6));  /* reaches the polygon's body */
    CHECK(hits("GEOMETRYCOLLECTION (POINT (100 100), LINESTRING (0 5, 10 5))", 4, 4, 6, 6));
    CHECK(!hits("MULTIPOINT ((0 0), (9 9))", 4, 4, 6, 6));
    CHECK(!hits("LINESTRING (NaN NaN, NaN NaN)", 4, 4, 6, 6));
}

static void test_envelope_and_types(void)
{
    fl_buf wkb = {0}, wkt = {0};
    fl_error err;
    CHECK_OK(fl_wkb_envelope(1, 2, 3, 4, &wkb, &err), &err);
    CHECK_OK(fl_wkb_to_wkt(wkb.bytes, wkb.len, &wkt, &err), &err);
    CHECK_EQ_STR(wkt.data, "POLYGON ((1 2, 3 2, 3 4, 1 4, 1 2))");
    double a, b, c, d;
    CHECK(fl_wkb_as_envelope(wkb.bytes, wkb.len, &a, &b, &c, &d));
    CHECK(a == 1 && b == 2 && c == 3 && d == 4);
    fl_buf_free(&wkb);
    const char *tri = "POLYGON ((1 2, 3 2, 3 4, 1 2))";
    CHECK_OK(fl_wkt_to_wkb(tri, strlen(tri), &wkb, &err), &err);
    CHECK(!fl_wkb_as_envelope(wkb.bytes, wkb.len, &a, &b, &c, &d));
    fl_buf_free(&wkb);
    fl_buf_free(&wkt);

    fl_arena arena;
    fl_arena_init(&arena, 0);
    static const char *names[] = {"geometry", "geometry(srid:5070)", "geography",
                                  "geography(OGC:CRS84, karney)", "geography(projjson:k)"};
    char buf[80];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        fl_type t;
        CHECK(fl_type_parse_primitive_in(&arena, names[i], &t));
        CHECK(fl_type_is_geo(&t));
        fl_type_format(&t, buf, sizeof buf);
        CHECK_EQ_STR(buf, names[i]);
    }
    fl_type g, h;
    CHECK(fl_type_parse_primitive_in(&arena, "geography(srid:4326, vincenty)", &g));
    CHECK_EQ_INT(g.edges, FL_EDGES_VINCENTY);
    CHECK(!fl_type_parse_primitive("geometry(srid:1)", &h)); /* a CRS needs an arena */
    CHECK(!fl_type_parse_primitive_in(&arena, "geometry(a, spherical)", &h));
    CHECK(!fl_type_parse_primitive_in(&arena, "geography(a, round)", &h));
    CHECK(fl_type_parse_primitive("geometry", &h));
    fl_type bin = {.id = FL_TYPE_BINARY};
    CHECK(!fl_type_equal(&h, &bin));
    CHECK(fl_type_same_shape(&h, &bin));
    fl_arena_free(&arena);
}

int main(void)
{
    TEST_RUN(test_round_trips);
    TEST_RUN(test_big_endian_and_box);
    TEST_RUN(test_wkb_errors);
    TEST_RUN(test_wkt_errors);
    TEST_RUN(test_intersects_box);
    TEST_RUN(test_envelope_and_types);
    return TEST_EXIT();
}
