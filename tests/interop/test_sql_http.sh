#!/bin/sh
# test_sql_http.sh - floe serve's HTTP SQL endpoint (POST /v1/sql, DELETE
# /v1/sql/{id}): NDJSON and Arrow IPC results of every type read by
# independent readers (JSON.parse, apache-arrow's tableFromIPC), receipts,
# parameters, SQLSTATEs, grants (403 for a principal without them), cancel
# by DELETE and by a client disconnect. See sql-http-check.mjs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
floe=${FLOE_BIN:-}
if [ -z "$floe" ] || [ ! -x "$floe" ]; then echo "skipped: FLOE_BIN not built"; exit 77; fi
command -v node >/dev/null || { echo "skipped: node missing"; exit 77; }
[ -d "$here/node_modules/apache-arrow" ] || { echo "skipped: tests/interop/node_modules/apache-arrow missing"; exit 77; }
shared=${FLOE_SHARED:-$here/../../../shared}
pq=$shared/fixtures/parquet-testing/data
[ -f "$pq/nonnullable.impala.parquet" ] || { echo "skipped: $pq fixtures absent"; exit 77; }
pq=$(cd "$pq" && pwd)
dir=$(mktemp -d /tmp/floe-sqlhttp-XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
cat=sqlite:$dir/catalog.db
fsql() { "$floe" sql --catalog "$cat" --warehouse "$dir/wh" "$@"; }
fsql -c "CREATE SCHEMA IF NOT EXISTS \"default\"" \
  -c "CREATE TABLE t (i int, b bigint, s text, d date, ts timestamptz, tn timestamp, n numeric(10,2),
        f double precision, r real, bo boolean, u uuid, by bytea, tm time)" \
  -c "INSERT INTO t VALUES (1, 10000000000, E'h\u00e9llo \"x\"\n\t', DATE '2024-01-02',
        TIMESTAMPTZ '2024-01-02 03:04:05.123456+00', TIMESTAMP '2024-01-02 03:04:05', 1.50, 2.5, 0.5,
        true, UUID '123e4567-e89b-12d3-a456-426614174000', '\\x0a0bff'::bytea, TIME '12:34:56.5')" \
  -c "INSERT INTO t (i) VALUES (NULL)" \
  -c "CREATE TABLE many (i bigint)" \
  -c "INSERT INTO many SELECT a.x * 100 + b.x FROM (VALUES $(seq -s, 0 49 | sed 's/\([0-9]*\)/(\1)/g')) a(x),
        (VALUES $(seq -s, 0 99 | sed 's/\([0-9]*\)/(\1)/g')) b(x)" \
  -c "CREATE TABLE nest2 AS SELECT * FROM read_parquet('$pq/list_columns.parquet')" >/dev/null \
  || { echo "FAIL: setting up tables"; exit 1; }
"$floe" admin --catalog "$cat" bootstrap --name sql_admin >/dev/null || { echo "FAIL: bootstrap"; exit 1; }
"$floe" admin --catalog "$cat" principal create sql_reader >/dev/null &&
  "$floe" admin --catalog "$cat" role create r_sql_read >/dev/null &&
  "$floe" admin --catalog "$cat" grant r_sql_read read table default.t >/dev/null &&
  "$floe" admin --catalog "$cat" role assign sql_reader r_sql_read >/dev/null ||
  { echo "FAIL: principals"; exit 1; }
admin_tok=$("$floe" admin --catalog "$cat" token sql_admin --ttl 3600)
reader_tok=$("$floe" admin --catalog "$cat" token sql_reader --ttl 3600)
"$floe" serve --port 0 --catalog "$cat" --warehouse "$dir/wh" --ready-file "$dir/ready" \
  >"$dir/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do [ -s "$dir/ready" ] && break; sleep 0.05; done
if [ ! -s "$dir/ready" ]; then echo "FAIL: floe serve did not start:"; tail -20 "$dir/serve.log"; exit 1; fi
url=http://$(head -1 "$dir/ready")
rc=0
(cd "$here" && node sql-http-check.mjs "$url" "$admin_tok" "$reader_tok" "$pq") || rc=1
# graceful stop while a statement streams: the server must exit cleanly
if [ $rc = 0 ]; then
  curl -s -X POST -H "Authorization: Bearer $admin_tok" --data-binary \
    "SELECT count(*) FROM many a, many b, many c" "$url/v1/sql" >/dev/null 2>&1 &
  cpid=$!
  sleep 0.5
  kill -TERM "$pid"
  wait "$pid"; src=$?
  pid=
  wait "$cpid" 2>/dev/null
  [ "$src" = 0 ] || { echo "FAIL: floe serve exited $src on SIGTERM with a running statement"; rc=1; }
fi
if [ $rc != 0 ]; then echo "--- server log (tail)"; tail -20 "$dir/serve.log"; fi
[ $rc = 0 ] && echo "PASS"
exit $rc
