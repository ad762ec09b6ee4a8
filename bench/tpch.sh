#!/usr/bin/env bash
# bench/tpch.sh — TPC-H: floe over Iceberg tables vs DuckDB over the same Parquet files, warm and cold.
#   1. bench_tpchgen writes SF's tables as Parquet into bench/data/tpch-sf$SF/ (kept across runs);
#   2. `floe load` puts them into Iceberg tables tpch.* (SQLite catalog in the same folder; kept). By default a
#      plain `floe load` (floe's defaults: 128 MiB row groups, as Iceberg's Java writer, Spark and Trino write);
#      ROWGROUP=BYTES loads another copy with write.parquet.row-group-size-bytes=BYTES instead;
#   3. each run alternates the engines:
#      cold  for each query a fresh process: `floe sql --timing` (the statement's time as floe reports it: parse +
#            plan + execute + printing to a file) under /usr/bin/time (peak RSS per query), then DuckDB in a fresh
#            node process (bench/tpch_duck.mjs: the query's time measured in-process; peak RSS includes node's);
#      warm  one long-lived process per engine runs every query WARM_ITERS (4) times in a row; a query's time is the
#            median of its iterations after the first; peak RSS is the whole process's;
#   4. prints per-query medians, the ratio floe/DuckDB, the geometric mean, the worst ratio and peak memory per
#      query (bench/tpch_summary.mjs); raw results in bench/results/tpch-sf$SF-<mode>-<time>.jsonl.
# --check also compares every floe answer (cold, run 1) with DuckDB's (tpch-compare.mjs) and exits 1 on a mismatch.
# Env: SF (1), RUNS (3 cold, 1 warm), MODE (cold | warm | both; default both), THREADS (2, both engines), QUERIES
# (e.g. "1 6 9"; default all), BUILD (build), ROWGROUP (bytes; default floe's own), WARM_ITERS (4),
# MEMORY_LIMIT (both engines' memory limit, e.g. 16GB; default each engine's own: floe 80% of RAM, DuckDB 80%),
# QTIMEOUT (seconds per floe query, default 600: a query over it is reported as an error, not timed).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
SF="${SF:-1}"; MODE="${MODE:-both}"; THREADS="${THREADS:-2}"; BUILD="${BUILD:-build}"; QTIMEOUT="${QTIMEOUT:-600}"
WARM_ITERS="${WARM_ITERS:-4}"; ROWGROUP="${ROWGROUP:-}"; MEMORY_LIMIT="${MEMORY_LIMIT:-}"
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
ice="$data/iceberg${ROWGROUP:+-rg$ROWGROUP}"
cat=(--catalog "sqlite:$ice/catalog.db" --warehouse "$ice")
if [ ! -f "$ice/.loaded" ]; then
  echo "== loading into Iceberg tables ($ice)"
  rm -rf "$ice"; mkdir -p "$ice"
  for t in $TPCH_TABLES; do
    "$floe" load "$data/$t.parquet" "tpch.$t" "${cat[@]}" \
      ${ROWGROUP:+--property write.parquet.row-group-size-bytes=$ROWGROUP}
  done
  touch "$ice/.loaded"
fi
floe_sql=("$floe" sql "${cat[@]}" -n tpch --threads "$THREADS" --timing --format csv)
duck=(node bench/tpch_duck.mjs --data="$data" --queries=tests/sql/tpch --threads="$THREADS")
if [ -n "$MEMORY_LIMIT" ]; then
  floe_sql+=(--memory-limit "$MEMORY_LIMIT"); duck+=(--memory-limit="$MEMORY_LIMIT")
fi
mkdir -p bench/results "$data/out-floe" "$data/out-duck"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
json_str() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.stringify(s.trim())))'; }
mismatch=0

# cold: a process per query and engine
run_cold() {
  local out="$1" run="$2" n q ms rss d
  for n in $QUERIES; do
    q="q$(printf %02d "$n")"
    if /usr/bin/time -f 'maxrss_kb=%M' -o "$data/out-floe/$q.time" timeout "$QTIMEOUT" \
        "${floe_sql[@]}" -f "tests/sql/tpch/$q.sql" > "$data/out-floe/$q.csv" 2> "$data/out-floe/$q.err"; then
      ms="$(sed -n 's/^Time: \([0-9.]*\) ms$/\1/p' "$data/out-floe/$q.err" | tail -1)"
      rss="$(sed -n 's/^maxrss_kb=//p' "$data/out-floe/$q.time")"
      echo "{\"engine\":\"floe\",\"mode\":\"cold\",\"query\":\"$q\",\"run\":$run,\"iter\":1,\"seconds\":$(awk "BEGIN{print $ms/1000}"),\"maxrss_kb\":$rss}" >> "$out"
    else
      [ -s "$data/out-floe/$q.err" ] || echo "timed out after $QTIMEOUT s" > "$data/out-floe/$q.err"
      echo "{\"engine\":\"floe\",\"mode\":\"cold\",\"query\":\"$q\",\"run\":$run,\"error\":$(head -c 300 "$data/out-floe/$q.err" | json_str)}" >> "$out"
    fi
    "${duck[@]}" --only="$n" --csv="$data/out-duck" > "$data/out-duck/$q.jsonl"
    node bench/tpch_duck_rows.mjs "$data/out-duck/$q.jsonl" cold "$run" >> "$out"
    if [ "$check" = 1 ] && [ "$run" = 1 ]; then
      if ! d="$(node tests/interop/tpch-compare.mjs "$data/out-floe/$q.csv" "$data/out-duck/$q.csv" --no-header-check)"; then
        echo "MISMATCH $q"; echo "$d"; mismatch=1
      else
        echo "same as DuckDB: $q"
      fi
    fi
  done
}

# warm: one process per engine runs every query WARM_ITERS times
run_warm() {
  local out="$1" run="$2" n q script="$data/out-floe/warm.sql" order="$data/out-floe/warm.order"
  : > "$script"; : > "$order"
  for n in $QUERIES; do
    q="q$(printf %02d "$n")"
    for i in $(seq 1 "$WARM_ITERS"); do cat "tests/sql/tpch/$q.sql" >> "$script"; echo >> "$script"; echo "$q $i" >> "$order"; done
  done
  if /usr/bin/time -f 'maxrss_kb=%M' -o "$data/out-floe/warm.time" timeout $((QTIMEOUT * 4)) \
      "${floe_sql[@]}" -f "$script" > /dev/null 2> "$data/out-floe/warm.err"; then
    sed -n 's/^Time: \([0-9.]*\) ms$/\1/p' "$data/out-floe/warm.err" | paste -d' ' "$order" - |
      awk -v run="$run" -v rss="$(sed -n 's/^maxrss_kb=//p' "$data/out-floe/warm.time")" \
        '{printf "{\"engine\":\"floe\",\"mode\":\"warm\",\"query\":\"%s\",\"run\":%d,\"iter\":%d,\"seconds\":%.6f,\"maxrss_kb\":%d}\n", $1, run, $2, $3/1000, rss}' >> "$out"
  else
    echo "{\"engine\":\"floe\",\"mode\":\"warm\",\"query\":\"all\",\"run\":$run,\"error\":$(tail -c 300 "$data/out-floe/warm.err" | json_str)}" >> "$out"
  fi
  "${duck[@]}" --only="$(echo $QUERIES | tr ' ' ,)" --runs="$WARM_ITERS" > "$data/out-duck/warm.jsonl"
  node bench/tpch_duck_rows.mjs "$data/out-duck/warm.jsonl" warm "$run" >> "$out"
}

status=0
for mode in cold warm; do
  [ "$MODE" = both ] || [ "$MODE" = "$mode" ] || continue
  runs="${RUNS:-$([ "$mode" = cold ] && echo 3 || echo 1)}"
  out="$root/bench/results/tpch-sf$SF-$mode-$stamp.jsonl"
  : > "$out"
  for run in $(seq 1 "$runs"); do
    echo "== $mode run $run/$runs"
    "run_$mode" "$out" "$run"
  done
  node bench/tpch_summary.mjs "$out" "$SF" "$THREADS" "$mode" "${ROWGROUP:-default}"
done
[ "$mismatch" = 0 ] || status=1
exit "$status"
