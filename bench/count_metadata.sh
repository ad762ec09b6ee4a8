#!/usr/bin/env bash
# count(*) answered from Iceberg metadata (floe table count) against DuckDB's
# count(*) over the same Parquet data files (read_parquet answers from the
# footers). DuckDB's iceberg extension cannot be installed offline, so the
# peer reads the table's data files directly, which is the work it would do
# after planning.
#
#   bench/count_metadata.sh [PARQUET] [RUNS]
#
# Loads PARQUET (default: the 6M-row lineitem of bench/run.sh) into an Iceberg
# table under a temp warehouse, in --copies appends to get many data files,
# then times both, alternating, RUNS times each, and prints medians and peak RSS.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
floe="$here/build/floe"
src="${1:-$here/bench/data/rows-6000000/lineitem.parquet}"
runs="${2:-5}"
[ -f "$src" ] || { echo "count_metadata: $src missing (run make bench first)"; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export FLOE_CATALOG="sqlite:$tmp/catalog.db" FLOE_WAREHOUSE="$tmp/wh"
for i in 1 2 3 4; do "$floe" load "$src" bench.lineitem >/dev/null 2>&1; done
files=$("$floe" table data_files bench.lineitem --format csv | awk -F, 'NR > 1 { print $2 }')
list=$(printf "'%s'," $files | sed 's/,$//')
duck="$here/tests/interop/oracle/duck.mjs"
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
: > "$tmp/f"; : > "$tmp/d"; : > "$tmp/b"
for r in $(seq "$runs"); do
  /usr/bin/time -f "%e %M" -o "$tmp/t" "$floe" table count bench.lineitem > "$tmp/fc"
  cat "$tmp/t" >> "$tmp/f"
  /usr/bin/time -f "%e %M" -o "$tmp/t" node "$duck" --format=tsv "select count(*) from read_parquet([$list])" > "$tmp/dc"
  cat "$tmp/t" >> "$tmp/d"
  /usr/bin/time -f "%e %M" -o "$tmp/t" node "$duck" --format=tsv "select 1" > /dev/null
  cat "$tmp/t" >> "$tmp/b"
done
echo "rows: floe $(cat "$tmp/fc"), duckdb $(tail -n 1 "$tmp/dc"); data files: $(echo "$files" | wc -l)"
fs=$(cut -d' ' -f1 < "$tmp/f" | median); ds=$(cut -d' ' -f1 < "$tmp/d" | median)
fm=$(cut -d' ' -f2 < "$tmp/f" | median); dm=$(cut -d' ' -f2 < "$tmp/d" | median)
echo "floe table count: ${fs}s, peak ${fm} KB"
bs=$(cut -d' ' -f1 < "$tmp/b" | median)
echo "duckdb count(*) over the data files: ${ds}s incl. node start (select 1 alone: ${bs}s), peak ${dm} KB"
