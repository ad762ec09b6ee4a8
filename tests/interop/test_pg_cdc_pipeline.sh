#!/bin/bash
# test_pg_cdc_pipeline.sh - `floe ingest postgres` against a throwaway PostgreSQL
# (oracle/pg-tmp-server.sh, wal_level=logical): the initial copy, inserts, updates
# (key changes, unchanged TOAST values), deletes and TRUNCATE land in Iceberg tables
# as upserts (equality deletes), exactly once across restarts and a SIGKILL; after
# every run each table equals its source, compared row for row through floe sql.
# Exit 77 (skipped) when the PostgreSQL server binaries are missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${FLOE_BUILD:-$here/../../build}
floe=${FLOE_BIN:-$build/floe}
if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
  echo "skipped: PostgreSQL server binaries missing (apt-get install postgresql)"; exit 77
fi
if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
  echo "skipped: no 'postgres' OS user to run the server as"; exit 77
fi
dir=$(mktemp -d /tmp/floe-pgpipe-XXXXXX)
chmod 755 "$dir"
data=$dir/data
srv="$here/oracle/pg-tmp-server.sh"
cleanup() { [ -n "${FLOE_TEST_KEEP:-}" ] && { echo "kept $dir ($url)"; return; }; sh "$srv" stop "$data" >/dev/null 2>&1; rm -rf "$dir" "$data.initdb.log"; }
trap cleanup EXIT
url=
for attempt in 1 2 3 4 5; do
  port=$((56000 + RANDOM % 4000))
  url=$(sh "$srv" start "$data" "$port" 2>/dev/null) && break
  url=
done
[ -n "$url" ] || { echo "FAIL: could not start PostgreSQL"; cat "$data.initdb.log" 2>/dev/null | tail; exit 1; }
sh "$srv" stop "$data" >/dev/null 2>&1
printf '\nwal_level = logical\nmax_replication_slots = 8\nmax_wal_senders = 8\n' >>"$data/postgresql.conf"
url=$(sh "$srv" start "$data" "$port") || { echo "FAIL: restart with wal_level=logical"; tail "$data/server.log"; exit 1; }
psql=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)/psql
q() { "$psql" -X -q -v ON_ERROR_STOP=1 "$url" -c "$1" >/dev/null; }
wh=$dir/wh
mkdir -p "$wh"
export FLOE_CATALOG="sqlite:$wh/catalog.db" FLOE_WAREHOUSE="$wh"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
ingest() { "$floe" ingest postgres --dsn "$url" --slot floe_s --publication floe_pub --namespace shop \
  --checkpoint-interval 1s --once-idle 2s "$@"; }

# the source: a keyed table with several types, a TOASTable column, a composite key, a
# table in another schema, and one without a key (inserts only)
q "CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, region text, credit numeric(10,2),
     joined date, seen timestamptz, active boolean, notes text)"
q "ALTER TABLE customers ALTER COLUMN notes SET STORAGE EXTERNAL"
q "CREATE TABLE order_lines (order_id bigint, line int, sku text, qty int, PRIMARY KEY (order_id, line))"
q "CREATE SCHEMA ops"
q "CREATE TABLE ops.events (at timestamptz, what text)"
q "INSERT INTO customers SELECT g, 'c' || g, (ARRAY['east','west','north'])[1 + g % 3], g * 1.25,
     DATE '2024-01-01' + g, TIMESTAMPTZ '2024-01-01 00:00:00+00' + g * INTERVAL '1 hour', g % 2 = 0,
     CASE WHEN g = 7 THEN repeat('toast', 2000) END FROM generate_series(1, 500) g"
q "INSERT INTO order_lines SELECT g / 3, g % 3, 'sku' || (g % 17), g FROM generate_series(1, 300) g"
q "INSERT INTO ops.events VALUES ('2024-05-01 10:00+00', 'boot'), ('2024-05-01 10:05+00', 'ready')"
q "CREATE PUBLICATION floe_pub FOR TABLE customers, order_lines, ops.events"

# the same rows on both sides, as sorted CSV
src() { "$psql" -X -A -t -F, "$url" -c "$1"; }
dst() { "$floe" sql --format csv --no-header -c "$1"; }
same() {
  local what=$1 pq=$2 fq=$3
  src "$pq" >"$dir/a.csv"; dst "$fq" >"$dir/b.csv" 2>&1
  if ! diff -q "$dir/a.csv" "$dir/b.csv" >/dev/null; then
    bad "$what: floe differs from PostgreSQL"; diff "$dir/a.csv" "$dir/b.csv" | head -8
  fi
}
check_all() {
  same "$1: customers" \
    "SELECT id, name, coalesce(region,'-'), credit, joined, active, md5(coalesce(notes,'-')) FROM customers ORDER BY id" \
    "SELECT id, name, coalesce(region,'-'), credit, joined, active, md5(coalesce(notes,'-')) FROM shop.customers ORDER BY id"
  same "$1: customers.seen" "SELECT id, extract(epoch FROM seen)::bigint FROM customers ORDER BY id" \
    "SELECT id, extract(epoch FROM seen)::bigint FROM shop.customers ORDER BY id"
  same "$1: order_lines" "SELECT order_id, line, sku, qty FROM order_lines ORDER BY 1, 2" \
    "SELECT order_id, line, sku, qty FROM shop.order_lines ORDER BY 1, 2"
  same "$1: ops.events" "SELECT what FROM ops.events ORDER BY 1" "SELECT what FROM shop.ops_events ORDER BY 1"
}

# 1. the first run copies the tables (and creates them, keys as identifier fields)
ingest 2>"$dir/run1.err" || { bad "first run failed"; cat "$dir/run1.err"; }
grep -q "500" <<<"$(dst "SELECT count(*) FROM shop.customers")" || bad "copy: $(cat "$dir/run1.err")"
"$floe" table describe shop.customers >"$dir/desc" 2>&1
grep -q "^identifier fields: id$" "$dir/desc" || bad "shop.customers has no identifier fields: $(cat "$dir/desc")"
check_all "after the copy"

# 2. changes while no pipeline runs: read from the slot on the next run
q "UPDATE customers SET region = 'south', credit = credit + 1 WHERE id % 10 = 0"
q "DELETE FROM customers WHERE id BETWEEN 100 AND 149"
q "UPDATE customers SET name = 'renamed' WHERE id = 7"  # notes (TOASTed) unchanged and not sent
q "UPDATE customers SET id = 10007 WHERE id = 8"          # a key change
q "BEGIN; INSERT INTO customers (id, name) VALUES (9000, 'tmp'); UPDATE customers SET name = 'tmp2' WHERE id = 9000;
   DELETE FROM customers WHERE id = 9000; DELETE FROM customers WHERE id = 1; INSERT INTO customers (id, name) VALUES (1, 'back'); COMMIT"
q "UPDATE order_lines SET qty = qty * 10 WHERE order_id < 20"
q "DELETE FROM order_lines WHERE line = 2"
q "INSERT INTO ops.events VALUES ('2024-05-02 00:00+00', 'tick')"
ingest 2>"$dir/run2.err" || { bad "second run failed"; cat "$dir/run2.err"; }
check_all "after updates and deletes"
# the commit records its lag behind the source (commit time minus the newest transaction's), shown by
# floe ingest status and SHOW PIPELINES
"$floe" ingest status --into shop.customers --pipeline pg-floe_s >"$dir/status" 2>&1
grep -q "^source lag: [0-9]* ms" "$dir/status" || bad "ingest status shows no source lag: $(cat "$dir/status")"
lag=$(dst "SHOW PIPELINES FROM shop" 2>&1 | awk -F, '$1 == "customers" { print $NF }')
[[ "$lag" =~ ^[0-9]+$ ]] || bad "SHOW PIPELINES: source_lag_ms of customers is '$lag': $(dst "SHOW PIPELINES FROM shop" 2>&1)"
n=$("$floe" table files shop.customers --format jsonl | grep -c '"content": *2')
[ "$n" -gt 0 ] || bad "no equality delete files in shop.customers"

# schema changes: a new column (Iceberg schema evolution), a widened type (int -> bigint promotion)
q "ALTER TABLE customers ADD COLUMN vip boolean"
q "UPDATE customers SET vip = (id % 4 = 0) WHERE id < 60"
q "ALTER TABLE order_lines ALTER COLUMN qty TYPE bigint"
q "UPDATE order_lines SET qty = 5000000000 WHERE order_id = 3"
ingest 2>"$dir/run2b.err" || { bad "run after ALTER TABLE failed"; cat "$dir/run2b.err"; }
same "after ADD COLUMN: customers.vip" "SELECT id, coalesce(vip::text, '-') FROM customers ORDER BY id" \
  "SELECT id, coalesce(CAST(vip AS VARCHAR), '-') FROM shop.customers ORDER BY id"
"$floe" table describe shop.order_lines | grep -q "qty: long" || bad "order_lines.qty not promoted to long: $("$floe" table describe shop.order_lines)"
check_all "after ALTER TABLE"

# 3. a second run with nothing new changes nothing (no duplicate rows)
snaps=$("$floe" table snapshots shop.customers --format csv | wc -l)
ingest 2>"$dir/run3.err" || { bad "idle run failed"; cat "$dir/run3.err"; }
check_all "after an idle run"
[ "$("$floe" table snapshots shop.customers --format csv | wc -l)" = "$snaps" ] || bad "an idle run committed"

# 4. a pgbench workload of inserts, updates and deletes on three tables while floe is killed with SIGKILL at 20
# random points; then one last run: every table equals its source (no duplicates, nothing missing)
pgbench=$(dirname "$psql")/pgbench
cat >"$dir/work.sql" <<'SQL'
\set id random(1, 700)
\set r random(1, 100)
BEGIN;
INSERT INTO customers (id, name, region) VALUES (:id + 100000, 'w', 'west')
  ON CONFLICT (id) DO UPDATE SET credit = coalesce(customers.credit, 0) + 1, name = 'w' || :r;
UPDATE customers SET credit = coalesce(credit, 0) + 0.25 WHERE id = :id;
UPDATE order_lines SET qty = qty + 1 WHERE order_id = :id % 120 AND line = :r % 3;
INSERT INTO order_lines VALUES (:id + 5000, :r, 'w', 1) ON CONFLICT DO NOTHING;
DELETE FROM order_lines WHERE order_id = :id + 5000 - 1 AND :r < 30;
DELETE FROM customers WHERE id = :id + 100000 AND :r < 25;
INSERT INTO ops.events VALUES (now(), 'w' || :r);
END;
SQL
"$pgbench" -n -f "$dir/work.sql" -T 30 -c 2 "$url" >"$dir/pgbench.out" 2>&1 &
bench=$!
for k in $(seq 1 20); do
  "$floe" ingest postgres --dsn "$url" --slot floe_s --publication floe_pub --namespace shop \
    --checkpoint-interval 300ms 2>>"$dir/run4.err" &
  pid=$!
  sleep "0.$((3 + RANDOM % 7))$((RANDOM % 10))"
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
done
wait $bench || { bad "pgbench failed"; tail -5 "$dir/pgbench.out"; }
grep -q "number of transactions actually processed" "$dir/pgbench.out" || bad "pgbench: $(tail -3 "$dir/pgbench.out")"
ingest 2>"$dir/run5.err" || { bad "run after SIGKILLs failed"; cat "$dir/run5.err"; }
check_all "after 20 SIGKILLs under a pgbench workload"
grep -E "^floe ingest: [^p]" "$dir/run4.err" | grep -v "checkpoint:" | head -3

# an independent reader of the equality deletes: DuckDB's iceberg extension (the engine venv's
# pinned wheels, loaded from their files) over the newest metadata file
. "$here/../engines/lib/env.sh"
duck() {
  "$FLOE_ENGINE_PY" - "$1" "$2" "$dir/ddb-ext" <<'PY'
import duckdb, glob, importlib, os, sys
table, sql, ext = sys.argv[1:4]
con = duckdb.connect(config={"autoinstall_known_extensions": "false",
                             "autoload_known_extensions": "false", "extension_directory": ext})
for name in ("avro", "iceberg"):
    mod = importlib.import_module("duckdb_extension_" + name)
    con.execute("INSTALL '%s'" % glob.glob(os.path.join(os.path.dirname(mod.__file__), "extensions",
                                                      "*", name + ".duckdb_extension"))[0])
    con.execute("LOAD " + name)
meta = sorted(glob.glob(table + "/metadata/*.metadata.json"))[-1]
for row in con.execute(sql.replace("{t}", "iceberg_scan('%s')" % meta)).fetchall():
    print(",".join(str(v) for v in row))
PY
}
if [ -x "$FLOE_ENGINE_PY" ]; then
  a=$(src "SELECT count(*), sum(id), sum(credit) FROM customers")
  b=$(duck "$wh/shop/customers" "SELECT count(*), sum(id), sum(credit) FROM {t}" 2>&1)
  [ "$a" = "$b" ] || bad "DuckDB reads shop.customers as $b, PostgreSQL has $a"
  a=$(src "SELECT count(*), sum(qty), sum(order_id * 10 + line) FROM order_lines")
  b=$(duck "$wh/shop/order_lines" "SELECT count(*), sum(qty), sum(order_id * 10 + line) FROM {t}" 2>&1)
  [ "$a" = "$b" ] || bad "DuckDB reads shop.order_lines as $b, PostgreSQL has $a"
else
  bad "$FLOE_ENGINE_PY missing (scripts/install-deps.sh): no DuckDB to cross-check with"
fi

# 5. TRUNCATE
q "TRUNCATE order_lines"
q "INSERT INTO order_lines VALUES (1, 1, 'after', 1)"
ingest 2>"$dir/run6.err" || { bad "run after TRUNCATE failed"; cat "$dir/run6.err"; }
check_all "after TRUNCATE"

# 6. the slot was dropped behind floe's back: the next run copies again (replacing)
q "SELECT pg_drop_replication_slot('floe_s')"
q "DELETE FROM customers WHERE id < 50"
ingest 2>"$dir/run7.err" || { bad "run after the slot was dropped failed"; cat "$dir/run7.err"; }
grep -q "snapshot rows" "$dir/run7.err" || true
check_all "after a new copy"

# 7. errors are clear: a publication without tables, a missing database
q "CREATE PUBLICATION empty_pub"
"$floe" ingest postgres --dsn "$url" --slot floe_e --publication empty_pub --once-idle 1s 2>"$dir/e1" &&
  bad "an empty publication succeeded"
grep -q "publication empty_pub has no tables" "$dir/e1" || bad "empty publication: $(cat "$dir/e1")"
"$floe" ingest postgres --dsn "${url%/*}/nosuchdb" --slot s --publication p --once-idle 1s 2>"$dir/e2" &&
  bad "a missing database succeeded"
grep -q "nosuchdb" "$dir/e2" || bad "missing database: $(cat "$dir/e2")"

if [ "$fails" -ne 0 ]; then echo "$fails failures"; exit 1; fi
echo "floe ingest postgres: copy, upserts, deletes, TRUNCATE, restarts and SIGKILL: tables equal their sources"
