#!/usr/bin/env bash
# bench/tpch.sh — TPC-H: floe over Iceberg tables vs DuckDB over the same Parquet files.
#   1. bench_tpchgen writes SF's tables as Parquet into bench/data/tpch-sf$SF/ (kept across runs);
#   2. `floe load` puts them into Iceberg tables tpch.* (SQLite catalog in the same folder; kept);
#   3. for each run and each query, alternating: `floe sql --timing` (the statement's time as floe reports it:
#      parse + plan + execute + printing to /dev/null) under /usr/bin/time (peak RSS), then DuckDB in a fresh
#      node process (bench/tpch_duck.mjs: the query's time measured in-process; peak RSS includes node's own);
#   4. prints per-query medians, the ratio floe/DuckDB, the geometric mean of the ratios and the peak memory of Q1 and
#      Q9 (bench/tpch_summary.mjs); raw results in bench/results/tpch-sf$SF-<time>.jsonl.
# --check also compares every floe answer with DuckDB's (tpch-compare.mjs) and exits 1 on a mismatch: the SF1
# acceptance check of the issue ("at SF1, every query returns the same result as DuckDB").
# Env: SF (default 1), RUNS (3), THREADS (2, both engines), QUERIES (e.g. "1 6 9"; default all), BUILD (build),
# QTIMEOUT (seconds per floe query, default 300: a query over it is reported as an error, not timed).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
SF="${SF:-1}"; RUNS="${RUNS:-3}"; THREADS="${THREADS:-2}"; BUILD="${BUILD:-build}"; QTIMEOUT="${QTIMEOUT:-300}"
QUERIES="${QUERIES:-$(seq 1 22)}"
check=0; [ "${1:-}" = "--check" ] && check=1
floe="$root/$BUILD/floe"; gen="$root/$BUILD/bench_tpchgen"
for b in "$floe" "$gen"; do [ -x "$b" ] || { echo "tpch: $b missing (make build)"; exit 1; }; done
[ -d tests/interop/node_modules/@duckdb/node-api ] || { echo "tpch: npm packages missing (make deps)"; exit 1; }
source tests/interop/tpch-schema.sh
data="$root/bench/data/tpch-sf$SF"
if [ ! -f "$data/lineitem.parquet" ]; then
  echo "== generating SF$SF into $data"
  "$gen" --sf "$SF" --out "$data"
fi
cat=(--catalog "sqlite:$data/iceberg/catalog.db" --warehouse "$data/iceberg")
if [ ! -f "$data/iceberg/.loaded" ]; then
  echo "== loading into Iceberg tables"
  rm -rf "$data/iceberg"; mkdir -p "$data/iceberg"
  # 16 MiB row groups (~20 per SF1 lineitem file) so morsel-parallel scans have work for every thread
  for t in $TPCH_TABLES; do
    "$floe" load "$data/$t.parquet" "tpch.$t" "${cat[@]}" --property write.parquet.row-group-size-bytes=16777216
  done
  touch "$data/iceberg/.loaded"
fi
mkdir -p bench/results "$data/out-floe" "$data/out-duck"
out="$root/bench/results/tpch-sf$SF-$(date -u +%Y%m%dT%H%M%SZ).jsonl"
: > "$out"
mismatch=0
for run in $(seq 1 "$RUNS"); do
  echo "== run $run/$RUNS"
  for n in $QUERIES; do
    q="q$(printf %02d "$n")"
    # floe
    if /usr/bin/time -f 'maxrss_kb=%M' -o "$data/out-floe/$q.time" timeout "$QTIMEOUT" \
        "$floe" sql "${cat[@]}" -n tpch --threads "$THREADS" --timing --format csv \
        -f "tests/sql/tpch/$q.sql" > "$data/out-floe/$q.csv" 2> "$data/out-floe/$q.err"; then
      ms="$(sed -n 's/^Time: \([0-9.]*\) ms$/\1/p' "$data/out-floe/$q.err" | tail -1)"
      rss="$(sed -n 's/^maxrss_kb=//p' "$data/out-floe/$q.time")"
      echo "{\"engine\":\"floe\",\"query\":\"$q\",\"run\":$run,\"seconds\":$(awk "BEGIN{print $ms/1000}"),\"maxrss_kb\":$rss}" >> "$out"
    else
      [ -s "$data/out-floe/$q.err" ] || echo "timed out after $QTIMEOUT s" > "$data/out-floe/$q.err"
      echo "{\"engine\":\"floe\",\"query\":\"$q\",\"run\":$run,\"error\":$(head -c 300 "$data/out-floe/$q.err" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.stringify(s.trim())))')}" >> "$out"
    fi
    # DuckDB
    node bench/tpch_duck.mjs --data="$data" --queries=tests/sql/tpch --only="$n" --threads="$THREADS" \
      --csv="$data/out-duck" > "$data/out-duck/$q.jsonl"
    node -e '
      const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
      const q = lines.find(l => l.query), m = lines.find(l => l.maxrss_kb);
      console.log(JSON.stringify({ engine: "duckdb", query: q.query, run: Number(process.argv[2]), seconds: q.seconds, maxrss_kb: m.maxrss_kb }));
    ' "$data/out-duck/$q.jsonl" "$run" >> "$out"
    if [ "$check" = 1 ] && [ "$run" = 1 ]; then
      if ! d="$(node tests/interop/tpch-compare.mjs "$data/out-floe/$q.csv" "$data/out-duck/$q.csv" --no-header-check)"; then
        echo "MISMATCH $q"; echo "$d"; mismatch=1
      else
        echo "same as DuckDB: $q"
      fi
    fi
  done
done
node bench/tpch_summary.mjs "$out" "$SF" "$THREADS"
[ "$mismatch" = 0 ]
