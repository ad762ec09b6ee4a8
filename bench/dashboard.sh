#!/usr/bin/env bash
# bench/dashboard.sh — dashboards under concurrency (issue 23 item 3): `floe serve`'s PostgreSQL wire port answering
# a dashboard mix from 1, 8, 32 and 128 clients (pgbench, simple protocol, one script per query type, equal weights):
# TPC-H Q1, Q3, Q6, Q12, Q14 and Q19 with randomized parameters and a point lookup by o_orderkey on orders (written
# sorted by its key: the page index prunes), bench/dashboard/*.sql. Beside the mix one more pgbench client runs
# SELECT 1 in a loop: the server must stay responsive. Then DuckDB answers the same mix from one process with one
# connection per client (bench/dashboard_duck.mjs). Prints per engine and client count: queries/s, p50/p95/p99
# latency, errors, the SELECT 1 probe's p99 and max, and the server's peak RSS (floe: VmHWM of floe serve).
# Tables: bench/data/tpch-sf$SF (run bench/tpch.sh with the same SF first, which generates and loads them).
# Env: SF (1), DURATION (seconds per client count, 60), CLIENTS ("1 8 32 128"), THREADS (2, both engines), BUILD (build).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
SF="${SF:-1}"; SECS="${DURATION:-60}"; CLIENTS="${CLIENTS:-1 8 32 128}"; THREADS="${THREADS:-2}"
BUILD="${BUILD:-build}" # (DURATION, not SECONDS: that is bash's own clock)
floe="$root/$BUILD/floe"; data="$root/bench/data/tpch-sf$SF"; ice="$data/iceberg"
[ -f "$ice/.loaded" ] || { echo "dashboard: $ice missing (SF=$SF bash bench/tpch.sh first)"; exit 1; }
command -v pgbench >/dev/null || { echo "dashboard: pgbench missing (postgresql-contrib)"; exit 1; }
work="$(mktemp -d /tmp/floe-dashboard.XXXXXX)"
port=$((20000 + RANDOM % 20000))
"$floe" serve --port 0 --pg-host 127.0.0.1 --pg-port "$port" --pg-trust --pg-max-connections 300 \
  --catalog "sqlite:$ice/catalog.db" --warehouse "$ice" > "$work/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
export PGHOST=127.0.0.1 PGPORT=$port PGUSER=bench PGDATABASE=floe PGSSLMODE=disable
for i in $(seq 1 100); do psql -X -q -c 'select 1' >/dev/null 2>&1 && break; sleep 0.2; done
psql -X -q -c "SELECT count(*) FROM tpch.orders" >/dev/null
mix=()
for f in bench/dashboard/q*.sql bench/dashboard/point.sql; do
  # floe serve has no per-connection default namespace here: the scripts' tables are qualified
  sed -E 's/\b(lineitem|orders|customer|part)\b/tpch.\1/g' "$f" > "$work/$(basename "$f")"
  mix+=(-f "$work/$(basename "$f")@1")
done
out="$root/bench/results/dashboard-sf$SF-$(date -u +%Y%m%dT%H%M%SZ).jsonl"
mkdir -p bench/results; : > "$out"
for c in $CLIENTS; do
  j=$(( c < 8 ? c : 8 ))
  rm -f "$work"/mix.* "$work"/probe.*
  pgbench -n -M simple -c 1 -j 1 -R 20 -T "$SECS" -f bench/dashboard/select1.sql -l --log-prefix="$work/probe" \
    > "$work/out-probe.txt" 2>&1 &
  probe=$!
  pgbench -n -M simple -c "$c" -j "$j" -T "$SECS" -D scale="$SF" "${mix[@]}" -l --log-prefix="$work/mix" \
    > "$work/out-mix.txt" 2>&1 || true
  wait $probe || true
  failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$work/out-mix.txt")
  aborted=$(grep -c "aborted\|error" "$work/out-mix.txt" || true)
  rss=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/$pid/status)
  node bench/dashboard_stats.mjs "$c" "$SECS" "$work/mix" "$work/probe" "$(( ${failed:-0} + aborted ))" "$rss" | tee -a "$out"
  [ "$aborted" = 0 ] || grep -m3 "aborted\|error" "$work/out-mix.txt"
  node bench/dashboard_duck.mjs --data="$data" --scripts=bench/dashboard --clients="$c" --seconds="$SECS" \
    --threads="$THREADS" --scale="$SF" | tee -a "$out"
done
echo "results: $out"
