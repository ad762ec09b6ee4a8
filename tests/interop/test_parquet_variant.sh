#!/usr/bin/env bash
# test_parquet_variant.sh - variants end to end: every shredded_variant case of
# apache/parquet-testing reads in floe as DuckDB reads it, and floe's rewrite of it
# (`floe convert`, unshredded VARIANT groups) reads back in DuckDB as a VARIANT column
# with the same values; a DuckDB-written variant file reads in floe (variant_compare.py).
# Then the SQL surface: parse_json / variant_get / schema_of_variant on files, an
# Iceberg v3 table with a variant column (its metadata spells the type "variant"), and
# errors that name the column.
set -euo pipefail
FLOE_SRC=${FLOE_SRC:-$(pwd)}
FLOE_BIN=${FLOE_BIN:-$FLOE_SRC/build/floe}
. "$FLOE_SRC/tests/engines/lib/env.sh"
SHARED=${FLOE_SHARED:-$FLOE_SRC/../shared}
D=$SHARED/fixtures/parquet-testing/shredded_variant
if [ ! -f "$D/cases.json" ]; then
  echo "skip: no $D"; exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/floe-variant.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
check() { # check NAME EXPECTED ACTUAL
  if [ "$2" == "$3" ]; then echo "ok   $1"; else echo "FAIL $1"; echo "  want: $2"; echo "  got:  $3"; fails=$((fails + 1)); fi
}
q() { "$FLOE_BIN" sql --no-catalog --format csv -c "$1" 2>&1 | tail -n +2; }

if "$FLOE_ENGINE_PY" -c 'import duckdb' 2>/dev/null; then
  "$FLOE_ENGINE_PY" "$FLOE_SRC/tests/interop/variant_compare.py" "$FLOE_BIN" "$work" "$D" || fails=$((fails + 1))
else
  echo "FAIL no duckdb in $FLOE_ENGINE_PY (make test installs it)"; fails=$((fails + 1))
fi

check "schema shows a variant" "  var: variant (id 2)" \
  "$("$FLOE_BIN" parquet schema "$D/case-083.parquet" | grep '^  var:')"
check "a partially shredded object, row by row" '0,
1,"{""c"":{""b"":""iceberg""}}"
2,"{""c"":8,""d"":-0.0}"
3,"{""c"":{""a"":34,""b"":""""},""d"":0.0}"' \
  "$(q "SELECT id, var FROM read_parquet('$D/case-083.parquet') ORDER BY id")"
check "variant_get on a shredded file" "4,34,iceberg" \
  "$(q "SELECT count(*), sum(variant_get(var, '\$.c.a', 'int')), max(variant_get(var, '\$.c.b', 'string')) FROM read_parquet('$D/case-083.parquet')")"
check "schema_of_variant" '"OBJECT<c: OBJECT<a: BIGINT, b: STRING>, d: DOUBLE>"' \
  "$(q "SELECT schema_of_variant(var) FROM read_parquet('$D/case-083.parquet') WHERE id = 3")"
check "an unsupported shredded type names the column" \
  "ERROR: $D/case-127.parquet: column 'var.typed_value': unsupported shredded value type INTEGER(32,false)" \
  "$("$FLOE_BIN" sql --no-catalog -c "SELECT var FROM read_parquet('$D/case-127.parquet')" 2>&1 | head -1)"
check "a conflicting value names the column" \
  "ERROR: $D/case-040.parquet: column 'var.typed_value.list.element.typed_value': invalid variant: both value and typed_value are set for a primitive" \
  "$("$FLOE_BIN" sql --no-catalog -c "SELECT var FROM read_parquet('$D/case-040.parquet')" 2>&1 | head -1)"

# an Iceberg v3 table with a variant column
cd "$work" # the default warehouse (./warehouse, SQLite catalog) of a fresh directory
"$FLOE_BIN" sql -c "CREATE TABLE ev (id int, v variant)" \
  -c "INSERT INTO ev VALUES (1, parse_json('{\"user\": {\"name\": \"ana\", \"age\": 31}, \"tags\": [\"a\", \"b\"]}')), (2, '{\"user\": {\"name\": \"bo\"}}'), (3, NULL)" >/dev/null
check "table rows" '1,ana,31,2
2,bo,,
3,,,' \
  "$("$FLOE_BIN" sql --format csv -c "SELECT id, variant_get(v, '\$.user.name', 'string'), variant_get(v, '\$.user.age', 'int'), json_array_length(to_json(variant_get(v, '\$.tags'))) FROM ev ORDER BY id" | tail -n +2)"
meta=$(ls "$work"/warehouse/*/ev/metadata/*.metadata.json 2>/dev/null | sort | tail -1)
check "metadata spells the type" "3 variant" \
  "$("$FLOE_ENGINE_PY" -c "import json,sys; m=json.load(open(sys.argv[1])); s=[x for x in m['schemas'] if x['schema-id']==m['current-schema-id']][0]; print(m['format-version'], [f['type'] for f in s['fields'] if f['name']=='v'][0])" "$meta")"
data=$(ls "$work"/warehouse/*/ev/data/*.parquet | head -1)
if "$FLOE_ENGINE_PY" -c 'import duckdb' 2>/dev/null; then
  check "DuckDB reads the table's data file" "VARIANT|{\"tags\":[\"a\",\"b\"],\"user\":{\"age\":31,\"name\":\"ana\"}}" \
    "$("$FLOE_ENGINE_PY" -c "
import duckdb,sys
c=duckdb.connect()
t=dict((r[0],r[1]) for r in c.sql(f\"DESCRIBE SELECT * FROM read_parquet('{sys.argv[1]}')\").fetchall())
v=c.sql(f\"SELECT CAST(v AS JSON)::VARCHAR FROM read_parquet('{sys.argv[1]}') WHERE id = 1\").fetchall()[0][0]
print(t['v'] + '|' + v)" "$data")"
fi

if [ "$fails" -eq 0 ]; then echo "all passed"; else echo "$fails failed"; exit 1; fi
