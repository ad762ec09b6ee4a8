#!/bin/bash
# test_maintenance.sh - floe serve's maintenance service (--maintain-interval 1s) under a stream of small commits:
# a Postgres CDC pipeline with 300 ms checkpoints applies a pgbench workload of upserts and deletes for 20 s.
# Afterwards: the data files stay few (compaction keeps up), every compaction snapshot holds exactly the rows of
# its parent (no query answer changes because of a compaction), no deleted row came back (the table equals its
# source), old snapshots were expired, /metrics counts it all, and a table with floe.maintenance.enabled=false was
# left alone. `floe maintain` (one pass from the CLI) compacts that table once it is enabled.
# Exit 77 (skipped) without PostgreSQL's server binaries.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
floe=${FLOE_BIN:-$root/build/floe}
ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || { echo "skipped: PostgreSQL server binaries missing"; exit 77; }
dir=$(mktemp -d /tmp/floe-maint-XXXXXX)
chmod 755 "$dir"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  bash "$root/scripts/demo-postgres.sh" stop "$dir/pg" >/dev/null 2>&1
  rm -rf "$dir" "$dir/pg.initdb.log"
}
trap cleanup EXIT
port=$((52000 + RANDOM % 3000))
url=$(bash "$root/scripts/demo-postgres.sh" start "$dir/pg" "$port" 2>"$dir/pg.err")
rc=$?
[ "$rc" = 3 ] && { echo "skipped: $(cat "$dir/pg.err")"; exit 77; }
[ "$rc" = 0 ] || { echo "FAIL: PostgreSQL did not start: $(cat "$dir/pg.err")"; exit 1; }
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
wh=$dir/wh
mkdir -p "$wh"
export FLOE_CATALOG="sqlite:$wh/catalog.db" FLOE_WAREHOUSE="$wh"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
fsql() { "$floe" sql --format csv --no-header "$@"; }

# a table the service must leave alone: six small files, maintenance disabled
fsql -c "CREATE SCHEMA keep" -c "CREATE TABLE keep.t (id bigint)" >/dev/null
for i in 1 2 3 4 5 6; do fsql -c "INSERT INTO keep.t VALUES ($i)" >/dev/null 2>&1 || bad "insert $i"; done
"$floe" table set-properties keep.t floe.maintenance.enabled=false >/dev/null 2>&1

"$floe" serve --insecure-no-auth --port 0 --ready-file "$dir/ready" --maintain-interval 1s 2>"$dir/serve.err" &
pids+=($!)
for _ in $(seq 1 100); do [ -s "$dir/ready" ] && break; sleep 0.1; done
http=$(head -n 1 "$dir/ready")
[ -n "$http" ] || { echo "FAIL: floe serve did not start: $(cat "$dir/serve.err")"; exit 1; }
"$floe" ingest postgres --dsn "$url" --slot maint --publication floe_demo --namespace crm \
  --checkpoint-interval 300ms 2>"$dir/ingest.err" &
ingest=$!
pids+=($ingest)
for _ in $(seq 1 100); do fsql -c "SELECT 1 FROM crm.customers LIMIT 1" >/dev/null 2>&1 && break; sleep 0.2; done
# expire what is older than 5 s (keeping the newest 2): the history stays short while the pipeline commits
"$floe" table set-properties crm.customers history.expire.max-snapshot-age-ms=5000 \
  history.expire.min-snapshots-to-keep=2 >/dev/null 2>&1
cat >"$dir/work.sql" <<'SQL'
\set id random(1, 400)
\set r random(1, 100)
BEGIN;
INSERT INTO customers (customer_id, name, region, tier) VALUES (:id, 'c' || :id, 'EU', 'free')
  ON CONFLICT (customer_id) DO UPDATE SET tier = (ARRAY['free','pro','team'])[1 + :r % 3], updated_at = now();
DELETE FROM customers WHERE customer_id = :id + 7 AND :r < 35;
END;
SQL
"$bin/pgbench" -n -f "$dir/work.sql" -T 20 -c 2 -R 150 "$url" >"$dir/pgbench.out" 2>&1 ||
  bad "pgbench: $(tail -3 "$dir/pgbench.out")"
sleep 2
kill -TERM $ingest; wait $ingest 2>/dev/null  # SIGTERM: a last checkpoint
"$floe" ingest postgres --dsn "$url" --slot maint --publication floe_demo --namespace crm \
  --checkpoint-interval 300ms --once-idle 2s 2>>"$dir/ingest.err" || bad "catch-up run: $(cat "$dir/ingest.err")"
sleep 2.5 # one more maintenance pass over the last commits

# no deleted row came back, nothing is missing
"$bin/psql" -X -A -t -F, "$url" -c "SELECT customer_id, tier FROM customers ORDER BY 1" >"$dir/a.csv"
fsql -c "SELECT customer_id, tier FROM crm.customers ORDER BY 1" >"$dir/b.csv"
diff -q "$dir/a.csv" "$dir/b.csv" >/dev/null || { bad "crm.customers differs from its source"; diff "$dir/a.csv" "$dir/b.csv" | head -5; }
commits=$(grep -c "checkpoint:" "$dir/ingest.err")
files=$(fsql -c "SELECT count(*) FROM crm.\"customers\$files\" WHERE content = 0")
echo "pipeline checkpoints: $commits; data files now: $files"
[ "$commits" -ge 20 ] || bad "only $commits pipeline checkpoints: not a stream of small commits"
[ "$files" -le 8 ] || bad "$files data files after $commits commits: compaction did not keep up"
# every compaction holds exactly its parent's rows (those still in the history)
fsql -c "SELECT snapshot_id, parent_id FROM crm.\"customers\$snapshots\" WHERE operation = 'replace'" >"$dir/replaces"
checked=0
while IFS=, read -r snap parent; do
  [ -n "$parent" ] || continue
  q="SELECT count(*), sum(customer_id), sum(length(tier)) FROM crm.customers FOR VERSION AS OF"
  a=$(fsql -c "$q $parent" 2>/dev/null) || continue  # the parent was expired meanwhile
  b=$(fsql -c "$q $snap")
  [ "$a" = "$b" ] || bad "compaction snapshot $snap has $b, its parent $parent had $a"
  checked=$((checked + 1))
done <"$dir/replaces"
echo "compaction snapshots compared with their parents: $checked"
metrics=$(curl -fsS "http://$http/metrics")
num() { awk -v k="$1" '$1 == k { print $2 }' <<<"$metrics"; }
[ "$(num floe_maintenance_compactions_total)" -ge 2 ] || bad "compactions: $(grep maintenance <<<"$metrics")"
[ "$(num floe_maintenance_snapshots_expired_total)" -ge 1 ] || bad "no snapshot expired: $(grep maintenance <<<"$metrics")"
[ "$(num floe_maintenance_errors_total)" = 0 ] || bad "maintenance errors: $(grep maintenance <<<"$metrics"; cat "$dir/serve.err")"
snaps=$(fsql -c "SELECT count(*) FROM crm.\"customers\$snapshots\"")
[ "$snaps" -lt "$commits" ] || bad "$snaps snapshots after $commits commits: expiry did not run"
# the disabled table was left alone; one CLI pass compacts it once enabled
[ "$(fsql -c "SELECT count(*) FROM keep.\"t\$files\"")" = 6 ] || bad "keep.t was maintained though disabled"
# the server stops first: its own 1 s passes would otherwise race the CLI pass for keep.t
kill -TERM "${pids[0]}" 2>/dev/null; wait "${pids[0]}" 2>/dev/null
"$floe" table set-properties keep.t floe.maintenance.enabled=true >/dev/null 2>&1
"$floe" maintain >"$dir/maintain.out" 2>&1 || bad "floe maintain: $(cat "$dir/maintain.out")"
grep -q "^keep.t: 6 files compacted into 1;" "$dir/maintain.out" || bad "floe maintain printed: $(cat "$dir/maintain.out")"
[ "$(fsql -c "SELECT count(*), sum(id) FROM keep.t")" = "6,21" ] || bad "keep.t after floe maintain"

[ "$fails" = 0 ] || { echo "$fails failures"; exit 1; }
echo "maintenance: compaction kept up with $commits commits ($files files), $checked compactions unchanged, no row came back"
