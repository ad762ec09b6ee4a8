/* SQL tests of the geometry functions (src/sql/func/geo.c) and the
 * geometry / geography types: exact answers of ST_AsText, ST_X/ST_Y,
 * ST_Intersects over a VALUES list, casts both ways between bytea, text and
 * geometry, a table with a geometry column, and the error messages. */
#include "sql/stmt_test_util.h"
#include "test.h"

static stmt_env env;

#define ROWS(sql, want)                                                                            \
    do {                                                                                           \
        RUN_OK(&env, sql);                                                                         \
        CHECK_EQ_STR(env.rows, want);                                                              \
    } while (0)

static void test_text_round_trip(void)
{
    ROWS("SELECT ST_AsText(ST_GeomFromText('POINT (1 2)'))", "POINT (1 2)\n");
    ROWS("SELECT ST_AsText(ST_GeomFromText('linestring z (1 2 3, 4 5 6.5)'))",
         "LINESTRING Z (1 2 3, 4 5 6.5)\n");
    ROWS("SELECT ST_AsText(ST_GeomFromText('MULTIPOINT (1 2, 3 4)'))",
         "MULTIPOINT ((1 2), (3 4))\n");
    ROWS("SELECT ST_AsText(ST_GeomFromText('POINT EMPTY'))", "POINT EMPTY\n");
    ROWS("SELECT ST_AsText(ST_GeomFromText(NULL))", "NULL\n");
    ROWS("SELECT ST_AsText(ST_MakeEnvelope(0, 0, 1, 2.5))",
         "POLYGON ((0 0, 1 0, 1 2.5, 0 2.5, 0 0))\n");
    /* WKB out and back in */
    ROWS("SELECT ST_AsBinary(ST_GeomFromText('POINT (1 2)'))",
         "\\x0101000000000000000000f03f0000000000000040\n");
    ROWS("SELECT ST_AsText(ST_GeomFromWKB('\\x0101000000000000000000f03f0000000000000040'::bytea))",
         "POINT (1 2)\n");
    ROWS("SELECT ST_AsText('\\x00000000013ff00000000000004000000000000000'::bytea)",
         "POINT (1 2)\n");
    ROWS("SELECT pg_typeof(ST_GeomFromText('POINT (1 2)'))", "geometry\n");
    /* an untyped literal is a geometry: WKT */
    ROWS("SELECT ST_AsText('POINT(3 4)')", "POINT (3 4)\n");
}

static void test_point_coords(void)
{
    ROWS("SELECT ST_X(ST_GeomFromText('POINT (1.5 -2)')), ST_Y(ST_GeomFromText('POINT (1.5 -2)'))",
         "1.5|-2\n");
    ROWS("SELECT ST_X(ST_GeomFromText('POINT Z (3 4 5)'))", "3\n");
    ROWS("SELECT ST_X(ST_GeomFromText('POINT EMPTY')), ST_Y(NULL::geometry)", "NULL|NULL\n");
}

static void test_intersects(void)
{
    ROWS("SELECT g, ST_Intersects(ST_GeomFromText(g), ST_MakeEnvelope(0, 0, 2, 2)) FROM (VALUES "
         "(1, 'POINT (1 1)'), (2, 'POINT (2 2)'), (3, 'POINT (3 1)'), "
         "(4, 'LINESTRING (-1 1, 3 1)'), (5, 'LINESTRING (3 0, 3 5)'), "
         "(6, 'POLYGON ((-10 -10, 10 -10, 10 10, -10 10, -10 -10))'), "
         "(7, 'POLYGON ((-10 -10, 10 -10, 10 10, -10 10, -10 -10), (-5 -5, 5 -5, 5 5, -5 5, -5 "
         "-5))'), "
         "(8, 'GEOMETRYCOLLECTION (POINT (9 9), POINT (0 1))'), (9, 'POINT EMPTY')) AS t(k, g) "
         "ORDER BY k",
         "POINT (1 1)|t\nPOINT (2 2)|t\nPOINT (3 1)|f\nLINESTRING (-1 1, 3 1)|t\n"
         "LINESTRING (3 0, 3 5)|f\nPOLYGON ((-10 -10, 10 -10, 10 10, -10 10, -10 -10))|t\n"
         "POLYGON ((-10 -10, 10 -10, 10 10, -10 10, -10 -10), (-5 -5, 5 -5, 5 5, -5 5, -5 -5))|f\n"
         "GEOMETRYCOLLECTION (POINT (9 9), POINT (0 1))|t\nPOINT EMPTY|f\n");
    /* the box may be either argument */
    ROWS("SELECT ST_Intersects(ST_MakeEnvelope(0, 0, 2, 2), ST_GeomFromText('POINT (1 1)')), "
         "ST_Intersects(ST_MakeEnvelope(0, 0, 2, 2), ST_MakeEnvelope(3, 3, 4, 4)), "
         "ST_Intersects(NULL, ST_MakeEnvelope(0, 0, 2, 2))",
         "t|f|NULL\n");
    RUN_ERR(&env,
            "SELECT ST_Intersects(ST_GeomFromText('POINT (1 1)'), ST_GeomFromText('POINT (1 1)'))",
            FL_EUNSUPPORTED,
            "ST_Intersects: only a box (ST_MakeEnvelope) is supported as one argument");
}

static void test_casts(void)
{
    ROWS("SELECT ST_AsText(CAST('POINT (1 2)' AS geometry))", "POINT (1 2)\n");
    ROWS("SELECT CAST(ST_GeomFromText('POINT (1 2)') AS bytea)",
         "\\x0101000000000000000000f03f0000000000000040\n");
    ROWS("SELECT ST_AsText(CAST(CAST(ST_GeomFromText('LINESTRING (1 2, 3 4)') AS bytea) AS "
         "geometry))",
         "LINESTRING (1 2, 3 4)\n");
    ROWS("SELECT ST_AsText('\\x0101000000000000000000f03f0000000000000040'::geometry)",
         "POINT (1 2)\n");
    ROWS("SELECT pg_typeof(CAST('POINT (1 2)' AS geography))", "geography\n");
    /* geometry with geometry stays geometry */
    ROWS("SELECT pg_typeof(COALESCE(NULL::geometry, ST_GeomFromText('POINT (1 2)')))",
         "geometry\n");
    RUN_ERR(&env, "SELECT CAST('\\x0101'::bytea AS geometry)", FL_ETYPE,
            "invalid geometry: WKB: truncated value at byte 1");
    RUN_ERR(&env, "SELECT CAST('POINT (1' AS geometry)", FL_ETYPE,
            "invalid geometry: WKT: expected a number at character 9");
}

static void test_table(void)
{
    RUN_OK(&env, "CREATE TABLE places (id int, g geometry)");
    RUN_OK(&env, "INSERT INTO places VALUES (1, ST_GeomFromText('POINT (1 2)')), "
                 "(2, 'LINESTRING (0 0, 5 5)'), (3, NULL)");
    ROWS("SELECT id, ST_AsText(g) FROM places ORDER BY id",
         "1|POINT (1 2)\n2|LINESTRING (0 0, 5 5)\n3|NULL\n");
    ROWS("SELECT id FROM places WHERE ST_Intersects(g, ST_MakeEnvelope(4, 4, 6, 6)) ORDER BY id",
         "2\n");
    ROWS("SELECT ST_X(g) FROM places WHERE id = 1", "1\n");
    /* the column keeps its type through the table's metadata */
    ROWS("SELECT pg_typeof(g) FROM places WHERE id = 1", "geometry\n");
    /* a bytea of WKB goes in through the implicit cast; bad WKB does not */
    RUN_OK(&env,
           "INSERT INTO places VALUES (4, '\\x0101000000000000000000f03f0000000000000040'::bytea)");
    ROWS("SELECT ST_AsText(g) FROM places WHERE id = 4", "POINT (1 2)\n");
    RUN_ERR(&env, "INSERT INTO places VALUES (5, '\\x0102'::bytea)", FL_ETYPE,
            "invalid geometry: WKB: truncated value at byte 1");
}

static void test_errors(void)
{
    RUN_ERR(&env, "SELECT ST_GeomFromText('POINT (1 2')", FL_ETYPE,
            "invalid geometry: WKT: expected ')' at character 11");
    RUN_ERR(&env, "SELECT ST_GeomFromText('CIRCLE (1 2)')", FL_ETYPE,
            "WKT: expected a geometry type (POINT, LINESTRING, POLYGON, MULTI..., "
            "GEOMETRYCOLLECTION) at character 1");
    RUN_ERR(&env, "SELECT ST_X(ST_GeomFromText('LINESTRING (1 2, 3 4)'))", FL_ETYPE,
            "argument is a linestring, not a point");
    RUN_ERR(&env, "SELECT ST_GeomFromWKB('\\x01020000000500000000'::bytea)", FL_ETYPE,
            "invalid geometry: WKB: coordinate count larger than the value at byte 9");
}

int main(void)
{
    if (stmt_env_open(&env) != 0) {
        fprintf(stderr, "setup: %s\n", env.err.msg);
        return 1;
    }
    TEST_RUN(test_text_round_trip);
    TEST_RUN(test_point_coords);
    TEST_RUN(test_intersects);
    TEST_RUN(test_casts);
    TEST_RUN(test_table);
    TEST_RUN(test_errors);
    stmt_env_close(&env);
    return TEST_EXIT();
}
