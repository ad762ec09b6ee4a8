#!/usr/bin/env bash
# test_parquet_geo.sh - geometry and geography end to end: the geospatial files of
# apache/parquet-testing (tests/parquet/data/parquet-testing-geospatial) keep their
# logical type, CRS, WKB bytes and statistics through `floe convert`, as pyarrow reads
# them (geo_compare.py); floe's WKT printer and parser agree with the files' own `wkt`
# column on every row; the ST_ functions answer as PostGIS does; an Iceberg v3 table
# with a geometry column is written, read back and described as Iceberg spells it; and
# bad input fails with a message naming the offset.
set -euo pipefail
FLOE_SRC=${FLOE_SRC:-$(pwd)}
FLOE_BIN=${FLOE_BIN:-$FLOE_SRC/build/floe}
. "$FLOE_SRC/tests/engines/lib/env.sh"
D=$FLOE_SRC/tests/parquet/data/parquet-testing-geospatial
work=$(mktemp -d "${TMPDIR:-/tmp}/floe-geo.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
check() { # check NAME EXPECTED ACTUAL
  if [ "$2" == "$3" ]; then echo "ok   $1"; else echo "FAIL $1"; echo "  want: $2"; echo "  got:  $3"; fails=$((fails + 1)); fi
}
q() { "$FLOE_BIN" sql --format csv -c "$1" 2>&1 | tail -n +2; }

# pyarrow: logical types, bytes and statistics through floe convert
if "$FLOE_ENGINE_PY" -c 'import pyarrow.parquet' 2>/dev/null; then
  "$FLOE_ENGINE_PY" "$FLOE_SRC/tests/interop/geo_compare.py" "$FLOE_BIN" "$work" "$D"/*.parquet || fails=$((fails + 1))
else
  echo "FAIL no pyarrow in $FLOE_ENGINE_PY (make test installs it)"; fails=$((fails + 1))
fi

# WKT both ways against the file's own text, on every row
check "ST_AsText = wkt, ST_GeomFromText(wkt) = WKB on every row" "164,164,164" \
  "$(q "SELECT count(*), count(*) FILTER (WHERE ST_AsText(geometry) = wkt), count(*) FILTER (WHERE ST_GeomFromText(wkt) = geometry) FROM read_parquet('$D/geospatial.parquet') WHERE geometry IS NOT NULL")"
check "NaN file: ST_AsText" '"LINESTRING ZM (90 100 110 120, NaN NaN NaN NaN, 130 140 150 160)"' \
  "$(q "SELECT ST_AsText(geometry) FROM read_parquet('$D/geospatial-with-nan.parquet') WHERE wkt LIKE '%nan%' OR wkt LIKE '%NaN%' LIMIT 1")"
check "schema shows the type" "  geometry: geometry(srid:5070)" \
  "$("$FLOE_BIN" parquet schema "$D/crs-srid.parquet" | grep '^  geometry:')"
check "geography schema" "  geography: geography" \
  "$("$FLOE_BIN" parquet schema "$D/crs-geography.parquet" | grep '^  geography:')"
"$FLOE_BIN" convert --quiet "$D/geospatial.parquet" "$work/g.parquet"
check "floe's statistics" "      geospatial: types 1,2,3,4,5,6,7,1001,1002,1003,1004,1005,1006,1007,2001,2002,2003,2004,2005,2006,2007,3001,3002,3003,3004,3005,3006,3007 bbox x [5, 50] y [5, 50] z [15, 100] m [50, 2500]" \
  "$("$FLOE_BIN" parquet meta "$work/g.parquet" | grep 'geospatial:')"

# the functions
check "ST_ functions" "POINT (1 2),1,2,POINT Z (1 2 3),t,f,t,f" \
  "$(q "SELECT ST_AsText(ST_GeomFromText('POINT (1 2)')), ST_X(ST_GeomFromText('POINT (1 2)')), ST_Y(ST_GeomFromText('POINT (1 2)')), ST_AsText(CAST('POINT Z (1 2 3)' AS geometry)), ST_Intersects(ST_GeomFromText('LINESTRING (0 5, 10 5)'), ST_MakeEnvelope(4, 4, 6, 6)), ST_Intersects(ST_MakeEnvelope(4, 4, 6, 6), ST_GeomFromText('POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (3 3, 7 3, 7 7, 3 7, 3 3))')), ST_Intersects(ST_GeomFromText('POINT (6 6)'), ST_MakeEnvelope(4, 4, 6, 6)), ST_X(ST_GeomFromText('POINT EMPTY')) IS NOT NULL")"
check "ST_AsBinary / ST_GeomFromWKB" "\\x0101000000000000000000f03f0000000000000040,POINT (1 2)" \
  "$(q "SELECT ST_AsBinary(ST_GeomFromText('POINT (1 2)')), ST_AsText(ST_GeomFromWKB('\\x0101000000000000000000f03f0000000000000040'::bytea))")"
check "bad WKT names its offset" "ERROR: invalid geometry: WKT: expected ')' at character 11 in st_geomfromtext('POINT (1 2, x)')" \
  "$("$FLOE_BIN" sql -c "SELECT ST_GeomFromText('POINT (1 2, x)')" 2>&1 | head -1)"
check "ST_X of a line" "ERROR: argument is a linestring, not a point in st_x(" \
  "$("$FLOE_BIN" sql -c "SELECT ST_X(ST_GeomFromText('LINESTRING (0 0, 1 1)'))" 2>&1 | head -1 | cut -c1-53)"
check "bytea that is not WKB" "ERROR: line 1, column 8: invalid geometry: WKB: truncated value at byte 1" \
  "$("$FLOE_BIN" sql -c "SELECT CAST('\\x01'::bytea AS geometry)" 2>&1 | head -1)"
check "ST_Intersects needs a box" "ERROR: ST_Intersects: only a box (ST_MakeEnvelope) is supported as one argument" \
  "$("$FLOE_BIN" sql -c "SELECT ST_Intersects(ST_GeomFromText('POINT (1 1)'), ST_GeomFromText('POINT (1 1)'))" 2>&1 | head -1 | sed 's/ in st_intersects.*//')"

# an Iceberg table with geometry columns
cd "$work"
out=$("$FLOE_BIN" sql -c "CREATE TABLE g1 (id int, g geometry)" \
  -c "INSERT INTO g1 VALUES (1, ST_GeomFromText('POINT (1 2)')), (2, 'LINESTRING (0 0, 5 5)'), (3, NULL)" \
  -c "CREATE TABLE g2 AS SELECT * FROM read_parquet('$D/crs-srid.parquet')" 2>&1)
check "create + insert + CTAS" "CREATE TABLE INSERT 0 3 SELECT 1" "$(echo $out)"
check "read back" '1,POINT (1 2)|2,"LINESTRING (0 0, 5 5)"|3,' \
  "$(q "SELECT id, ST_AsText(g) FROM g1 ORDER BY id" | paste -sd'|')"
check "filter" "2" "$(q "SELECT id FROM g1 WHERE ST_Intersects(g, ST_MakeEnvelope(4, 4, 6, 6))")"
meta=$(find warehouse -path '*g2*' -name '*.metadata.json' | sort | tail -1)
check "Iceberg type and format version" '"format-version":3 "type":"geometry(srid:5070)"' \
  "$(grep -o '"format-version":[0-9]' "$meta") $(grep -o '"type":"geometry[^"]*"' "$meta")"
check "same WKB through the table" "1" \
  "$(q "SELECT count(*) FROM g2 JOIN read_parquet('$D/crs-srid.parquet') p ON g2.geometry = p.geometry")"
check "v2 refuses geometry" "ERROR: create table g3: create table: column 'g' has a type that needs format version 3 (the table asks for 2)" \
  "$("$FLOE_BIN" sql -c "CREATE TABLE g3 (g geometry) WITH (\"format-version\" = '2')" 2>&1 | head -1)"

echo "$fails failed"
[ "$fails" -eq 0 ]
