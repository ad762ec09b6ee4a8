#!/usr/bin/env bash
# test_tpch_sf1.sh — the issue's SF1 acceptance check in make test: "at SF1, every TPC-H query returns the same
# result as DuckDB". bench_tpchgen writes the eight tables at SF1 as Parquet (~280 MB, 6M lineitem rows), `floe load`
# puts them into Iceberg tables (SQLite catalog), and each of the 22 queries (tests/sql/tpch/qNN.sql) must return the
# same rows from `floe sql` over the Iceberg tables as from DuckDB (@duckdb/node-api, bench/tpch_duck.mjs) over the
# same Parquet files, under tpch-compare.mjs's rules (the comparison of `bench/tpch.sh --check`; column names are not
# compared: DuckDB names unaliased aggregates differently).
#
# Cost (2 shared cores): generating SF1 takes ~11 s of CPU, DuckDB's 22 answers ~15 s, the Iceberg load ~12 s and
# floe's 22 queries ~40 s. So the generated Parquet files and DuckDB's answers are cached in the build directory
# ($FLOE_BUILD/tpch-sf1/, nothing outside it), keyed by a stamp: the SHA-256 of the bench_tpchgen binary for the
# data, plus the queries, bench/tpch_duck.mjs and the installed DuckDB version for the answers; a stale stamp
# regenerates. The Iceberg load and every floe query run on every invocation (they are what is tested), in a
# scratch directory inside the build directory removed on exit.
#
# Release build only: a sanitizer build of floe (ASan/UBSan, detected by __asan_init in the binary) skips (77) — the
# 22 SF1 queries take many minutes instrumented; test_tpch.sh (SF0.01) and test_tpch_sf.sh (SF0.1) run there.
# Skips (77) also when node / DuckDB or the bench_tpchgen binary is missing. Each floe query gets
# FLOE_TPCH_QUERY_TIMEOUT seconds (default 150; the slowest takes ~12 s on a loaded machine).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${FLOE_SRC:-$(cd "$here/../.." && pwd)}"
build="${FLOE_BUILD:-$root/build}"
floe="${FLOE_BIN:-$build/floe}"
gen="$build/bench_tpchgen"
if grep -q __asan_init "$floe" 2>/dev/null; then
  echo "SKIP: $floe is a sanitizer build; TPC-H SF1 runs in the release build only (SF0.01/SF0.1 tests run here)"
  exit 77
fi
command -v node >/dev/null || { echo "SKIP: node is not installed"; exit 77; }
[ -d "$here/node_modules/@duckdb/node-api" ] || { echo "SKIP: tests/interop/node_modules (DuckDB) is missing"; exit 77; }
[ -x "$gen" ] || { echo "SKIP: $gen is not built"; exit 77; }
[ -x "$floe" ] || { echo "FAIL: $floe is not built"; exit 1; }
# shellcheck source=tpch-schema.sh
source "$here/tpch-schema.sh"

cache="$build/tpch-sf1"
mkdir -p "$cache" || { echo "FAIL: cannot create $cache"; exit 1; }
exec 9> "$cache/.lock"
flock 9 # two runs over the same build directory take turns

# 1. SF1 Parquet files, regenerated when the generator binary changed.
data_stamp="$(sha256sum < "$gen" | cut -d' ' -f1)"
if [ "$(cat "$cache/data.stamp" 2>/dev/null)" != "$data_stamp" ] || [ ! -f "$cache/data/lineitem.parquet" ]; then
  echo "generating SF1 Parquet into $cache/data (cached for later runs)"
  rm -rf "$cache/data" "$cache/data.tmp" "$cache/duck" "$cache/duck.stamp" "$cache/data.stamp"
  "$gen" --sf 1 --out "$cache/data.tmp" 2> "$cache/gen.log" || { cat "$cache/gen.log"; echo "FAIL: bench_tpchgen"; exit 1; }
  mv "$cache/data.tmp" "$cache/data" && echo "$data_stamp" > "$cache/data.stamp"
fi
for t in $TPCH_TABLES; do
  [ -s "$cache/data/$t.parquet" ] || { echo "FAIL: $cache/data/$t.parquet is missing"; exit 1; }
done

# 2. DuckDB's answers over the same files, recomputed when the data, a query, the driver or DuckDB changed.
duck_version="$(node -e 'console.log(require(process.argv[1] + "/node_modules/@duckdb/node-api/package.json").version)' "$here")"
duck_stamp="$( { echo "$data_stamp $duck_version"; cat "$root"/tests/sql/tpch/q*.sql "$root/bench/tpch_duck.mjs"; } | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$cache/duck.stamp" 2>/dev/null)" != "$duck_stamp" ]; then
  echo "computing DuckDB $duck_version answers into $cache/duck (cached for later runs)"
  rm -rf "$cache/duck" "$cache/duck.stamp"; mkdir -p "$cache/duck"
  if ! node "$root/bench/tpch_duck.mjs" --data="$cache/data" --queries="$root/tests/sql/tpch" --csv="$cache/duck" \
      --threads=2 > "$cache/duck.jsonl" 2> "$cache/duck.err"; then
    cat "$cache/duck.err"; echo "FAIL: DuckDB"; rm -rf "$cache/duck"; exit 1
  fi
  echo "$duck_stamp" > "$cache/duck.stamp"
fi

# 3. Load into Iceberg tables (every run) and check the row counts against the Parquet files' footers.
tmp="$(mktemp -d "$cache/run.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
cat=(--catalog "sqlite:$tmp/catalog.db" --warehouse "$tmp/wh")
fail=0
for t in $TPCH_TABLES; do
  "$floe" load "$cache/data/$t.parquet" "tpch.$t" "${cat[@]}" --quiet 2> "$tmp/load.err" ||
    { cat "$tmp/load.err"; echo "FAIL: floe load $t"; exit 1; }
  got="$("$floe" table count "$tmp/wh/tpch/$t" 2>&1)"
  want="$("$floe" parquet meta "$cache/data/$t.parquet" 2>&1 | sed -n 's/^rows: *//p' | head -1)"
  if [ -z "$want" ] || [ "$got" != "$want" ]; then
    echo "FAIL: tpch.$t has '$got' rows, the Parquet file '$want'"; fail=1
  fi
done
[ $fail = 0 ] && echo "PASS: loaded the 8 SF1 tables with the Parquet files' row counts"

# 4. The 22 queries: floe over Iceberg vs DuckDB over Parquet.
limit="${FLOE_TPCH_QUERY_TIMEOUT:-150}"
pass=0; failed=()
mkdir -p "$tmp/floe"
for i in $(seq -w 1 22); do
  q="q$i"
  if [ ! -f "$cache/duck/$q.csv" ]; then echo "FAIL: $q (no DuckDB answer)"; failed+=("$q"); continue; fi
  if timeout "$limit" "$floe" sql "${cat[@]}" -n tpch --format csv -f "$root/tests/sql/tpch/$q.sql" \
      > "$tmp/floe/$q.csv" 2> "$tmp/floe/$q.err"; then
    diff="$(node "$here/tpch-compare.mjs" "$tmp/floe/$q.csv" "$cache/duck/$q.csv" --no-header-check)"; ok=$?
  else
    rc=$?; diff="  $(head -c 400 "$tmp/floe/$q.err" | tr '\n' ' ')"; ok=1
    [ $rc = 124 ] && diff="  timed out after $limit s"
  fi
  if [ $ok = 0 ]; then pass=$((pass + 1)); echo "PASS: $q ($(($(wc -l < "$tmp/floe/$q.csv") - 1)) rows)"
  else echo "FAIL: $q"; echo "$diff"; failed+=("$q")
  fi
done
echo "TPC-H SF1: $pass/22 queries match DuckDB; failed: ${failed[*]:-none}"
[ ${#failed[@]} = 0 ] && [ $fail = 0 ]
