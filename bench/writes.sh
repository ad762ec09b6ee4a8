#!/usr/bin/env bash
# bench/writes.sh — writes (issue 23 item 4): TPC-H lineitem (SF1 by default: 6M rows) from the generated Parquet
# file into tables, floe against DuckDB's COPY ... TO, both engines on the same threads, alternating, a fresh
# process per statement:
#   ctas         floe: CREATE TABLE w.li AS SELECT * FROM read_parquet(lineitem)       (an Iceberg table)
#                DuckDB: COPY (SELECT * FROM read_parquet(lineitem)) TO 'li.parquet'
#   partitioned  floe: INSERT INTO w.lip SELECT * FROM read_parquet(lineitem), w.lip created empty WITH
#                (partitioning = ARRAY['month(l_shipdate)'], sorted_by = ARRAY['l_orderkey'])
#                DuckDB: COPY (SELECT *, year(l_shipdate) AS y, month(l_shipdate) AS m FROM read_parquet(lineitem)
#                ORDER BY l_orderkey) TO 'dir' (PARTITION_BY (y, m))   — the same 84 month partitions, sorted
# Each engine writes with its own defaults (floe: zstd, 128 MiB row groups; DuckDB: snappy, 122,880-row row
# groups); `duck-zstd` repeats DuckDB's two writes with COMPRESSION zstd. Reported per case: the median of RUNS
# statement times (floe: `--timing`, DuckDB: around con.run, neither counts process start), floe/DuckDB, peak RSS
# of each process, bytes written, and the row count read back by the other engine (floe's table through DuckDB's
# read of its data files, DuckDB's files through floe's read_parquet).
# Env: SF (1), RUNS (3), THREADS (2), BUILD (build), MEMORY_LIMIT (none: each engine's own default).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
SF="${SF:-1}"; RUNS="${RUNS:-3}"; THREADS="${THREADS:-2}"; BUILD="${BUILD:-build}"
floe="$root/$BUILD/floe"; data="$root/bench/data/tpch-sf$SF"; src="$data/lineitem.parquet"
[ -f "$src" ] || { echo "writes: $src missing (SF=$SF bash bench/tpch.sh first)"; exit 1; }
work="$(mktemp -d /tmp/floe-writes.XXXXXX)"
trap 'rm -rf "$work"' EXIT
mem_floe=(); mem_duck=()
[ -n "${MEMORY_LIMIT:-}" ] && { mem_floe=(--memory-limit "$MEMORY_LIMIT"); mem_duck=(--memory-limit="$MEMORY_LIMIT"); }
lit() { printf "'%s'" "${1//\'/\'\'}"; }

# floe_run NAME SQL...: a fresh catalog and warehouse, the statements, the last one timed; prints
# "seconds maxrss_kb bytes"
floe_run() {
  local name=$1; shift
  rm -rf "$work/f"; mkdir -p "$work/f"
  local args=(sql --catalog "sqlite:$work/f/catalog.db" --warehouse "$work/f/wh" --threads "$THREADS" "${mem_floe[@]}"
              --timing -q -c "CREATE SCHEMA w")
  for s in "$@"; do args+=(-c "$s"); done
  /usr/bin/time -f '%M' -o "$work/rss" "$floe" "${args[@]}" > "$work/out" 2>&1 || { cat "$work/out"; exit 1; }
  local ms; ms=$(grep '^Time:' "$work/out" | tail -1 | awk '{print $2}')
  local bytes; bytes=$(find "$work/f/wh" -name '*.parquet' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
  echo "$(awk -v m="$ms" 'BEGIN {printf "%.3f", m / 1000}') $(cat "$work/rss") $bytes"
}

# duck_run SQL: prints "seconds maxrss_kb bytes"
duck_run() {
  rm -rf "$work/d"; mkdir -p "$work/d"
  local j; j=$(node bench/writes_duck.mjs --threads="$THREADS" "${mem_duck[@]}" --sql="$1")
  local bytes; bytes=$(find "$work/d" -name '*.parquet' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
  node -e 'const j = JSON.parse(process.argv[1]); console.log(j.seconds.toFixed(3), j.maxrss_kb, process.argv[2])' "$j" "$bytes"
}

ctas_floe="CREATE TABLE w.li AS SELECT * FROM read_parquet($(lit "$src"))"
part_create="CREATE TABLE w.lip WITH (partitioning = ARRAY['month(l_shipdate)'], sorted_by = ARRAY['l_orderkey']) AS SELECT * FROM read_parquet($(lit "$src")) LIMIT 0"
part_floe="INSERT INTO w.lip SELECT * FROM read_parquet($(lit "$src"))"
ctas_duck() { echo "COPY (SELECT * FROM read_parquet($(lit "$src"))) TO $(lit "$work/d/li.parquet") (FORMAT parquet$1)"; }
part_duck() { echo "COPY (SELECT *, year(l_shipdate) AS y, month(l_shipdate) AS m FROM read_parquet($(lit "$src")) ORDER BY l_orderkey) TO $(lit "$work/d/lip") (FORMAT parquet, PARTITION_BY (y, m)$1)"; }

out="$root/bench/results/writes-sf$SF-$(date -u +%Y%m%dT%H%M%SZ).jsonl"
mkdir -p bench/results; : > "$out"
declare -A T
for run in $(seq 1 "$RUNS"); do
  for c in ctas partitioned; do
    if [ $c = ctas ]; then
      T[floe-$c]+="$(floe_run $c "$ctas_floe")|"
      T[duck-$c]+="$(duck_run "$(ctas_duck '')")|"
      T[duck-zstd-$c]+="$(duck_run "$(ctas_duck ', COMPRESSION zstd')")|"
    else
      T[floe-$c]+="$(floe_run $c "$part_create" "$part_floe")|"
      # the partitioned write's files, for the cross-check below (last run's)
      [ "$run" = "$RUNS" ] && cp -r "$work/f" "$work/f-part"
      T[duck-$c]+="$(duck_run "$(part_duck '')")|"
      [ "$run" = "$RUNS" ] && cp -r "$work/d" "$work/d-part"
      T[duck-zstd-$c]+="$(duck_run "$(part_duck ', COMPRESSION zstd')")|"
    fi
  done
done

# cross-checks: each engine reads the other's output back
rows_floe_by_duck=$(node -e '
const { createRequire } = require("node:module");
const r = createRequire(process.cwd() + "/tests/interop/package.json");
(async () => { const { DuckDBInstance } = await import(r.resolve("@duckdb/node-api"));
const con = await (await DuckDBInstance.create(":memory:")).connect();
const res = await con.runAndReadAll(`SELECT count(*) FROM read_parquet(${JSON.stringify(process.argv[1] + "/**/*.parquet").replaceAll("\"", "\x27")})`);
console.log(res.getRows()[0][0].toString()); })();' "$work/f-part/wh")
rows_duck_by_floe=$("$floe" sql --no-catalog -A -t -c "SELECT count(*) FROM read_parquet($(lit "$work/d-part/lip/*/*/*.parquet"))")
parts_floe=$(find "$work/f-part/wh" -name '*.parquet' -path '*/data/*' | sed 's|/[^/]*$||' | sort -u | wc -l)
parts_duck=$(find "$work/d-part/lip" -mindepth 2 -maxdepth 2 -type d | wc -l)

median() { tr '|' '\n' | awk 'NF' | sort -n -k1,1 | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}'; }
printf '%-12s %-10s %9s %9s %8s %11s\n' case engine seconds ratio rss_mb mb_written
for c in ctas partitioned; do
  f=$(echo "${T[floe-$c]}" | median); d=$(echo "${T[duck-$c]}" | median); z=$(echo "${T[duck-zstd-$c]}" | median)
  read -r fs fr fb <<<"$f"; read -r ds dr db <<<"$d"; read -r zs zr zb <<<"$z"
  for e in "floe $fs $fr $fb" "duckdb $ds $dr $db" "duckdb-zstd $zs $zr $zb"; do
    read -r en s r b <<<"$e"
    ratio=$(awk -v a="$fs" -v b="$s" 'BEGIN {printf "%.2f", a / b}')
    printf '%-12s %-10s %9s %9s %8d %11.1f\n' "$c" "$en" "$s" "$ratio" $((r / 1024)) "$(awk -v x="$b" 'BEGIN {print x / 1048576}')"
    echo "{\"case\":\"$c\",\"engine\":\"$en\",\"seconds\":$s,\"floe_over\":$ratio,\"maxrss_kb\":$r,\"bytes\":$b,\"sf\":$SF,\"threads\":$THREADS}" >> "$out"
  done
done
echo "partitions: floe $parts_floe, DuckDB $parts_duck; rows read back: floe's by DuckDB $rows_floe_by_duck, DuckDB's by floe $rows_duck_by_floe"
echo "results: $out"
