#!/usr/bin/env bash
# test_pg_client_nested.sh - issue 17: every column of every demo table,
# nested ones included (structs and maps as json, lists as arrays of their
# element type), decoded by psycopg2 + pandas.read_sql, pgJDBC getObject
# (text and binary transfer) and node pg. The demo tables are floe's
# (tests/pgclients/nested/make-demo.sh, loaded with `floe load` and CREATE
# TABLE AS), so this runs against floe only. Each client skips (and says so)
# when it is not installed; the test skips when none is.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../pgclients/pgc-lib.sh"
[ "${FLOE_PG_TARGET:-floe}" = floe ] || pgc_skip "the demo tables are floe's (floe load)"
pgc_start nested
data=$PGC_WORK/data
mkdir -p "$data"
bash "$here/../pgclients/nested/make-demo.sh" "$data" || pgc_fail "make-demo.sh"
for t in orders customers; do
  f=$data/$t.csv; [ -f "$f" ] || f=$data/$t.jsonl
  out=$("$FLOE_BIN" load "$f" "demo.$t" --catalog "sqlite:$PGC_WORK/catalog.db" --warehouse "$PGC_WORK/wh" 2>&1) \
    || pgc_fail "floe load $t: $out"
done
out=$(pgc_psql -q -f "$data/nested.sql" 2>&1) || pgc_fail "nested.sql: $out"
ran=0
if /usr/bin/python3 -c 'import psycopg2, pandas' 2>/dev/null; then
  /usr/bin/python3 "$here/../pgclients/python/pg_client_nested.py" || pgc_fail "psycopg2/pandas"
  ran=$((ran + 1))
else
  echo "SKIP: psycopg2/pandas (python3-psycopg2, python3-pandas not installed)"
fi
jar=/usr/share/java/postgresql.jar
if command -v javac >/dev/null && [ -f $jar ]; then
  src=$here/../pgclients/java/PgClientNested.java
  cls=${FLOE_BUILD:-$here/../../build}/pgclients-java
  mkdir -p "$cls"
  if [ ! -f "$cls/PgClientNested.class" ] || [ "$src" -nt "$cls/PgClientNested.class" ]; then
    javac -nowarn -cp $jar -d "$cls" "$src" || pgc_fail "javac PgClientNested"
  fi
  java -Duser.timezone=UTC -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$cls:$jar" PgClientNested \
    "$PGC_HOST" "$PGC_PORT" "$PGC_DB" "$PGC_USER" "$PGC_PASSWORD" || pgc_fail "pgJDBC"
  ran=$((ran + 1))
else
  echo "SKIP: pgJDBC (javac or $jar missing)"
fi
if command -v node >/dev/null && [ -d "$here/node_modules/pg" ]; then
  PGC_NODE_MODULES=$here/node_modules node "$here/../pgclients/node/pg-client-nested.mjs" || pgc_fail "node pg"
  ran=$((ran + 1))
else
  echo "SKIP: node pg (node or tests/interop/node_modules/pg missing: npm ci)"
fi
[ $ran -gt 0 ] || pgc_skip "no client installed"
echo "nested clients: $ran passed"
