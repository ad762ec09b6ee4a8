#!/bin/sh
# test_sql_pruning.sh - issue 4's pruning acceptance: on a table partitioned
# by day(ts) and sorted by id (40 daily files, 160 row groups) and on one
# partitioned by bucket(32, id), selective queries read at most 5% of the
# files and of the row groups. The counts are the ones EXPLAIN ANALYZE
# reports per scan: "files=N pruned=P (partition=A metrics=B) row_groups=R
# pruned=Q read=K". Totals come from a full scan of each table.
set -u
floe=${FLOE_BIN:-}
if [ -z "$floe" ] || [ ! -x "$floe" ]; then echo "skipped: FLOE_BIN not built"; exit 77; fi
dir=$(mktemp -d /tmp/floe-prune-XXXXXX)
trap 'rm -rf "$dir"' EXIT
fsql() { "$floe" sql --catalog "sqlite:$dir/c.db" --warehouse "$dir/wh" --format csv --no-header "$@"; }
vals() { seq -s, 0 "$1" | sed 's/\([0-9]*\)/(\1)/g'; }
fsql -c "CREATE SCHEMA IF NOT EXISTS \"default\"" \
  -c "CREATE TABLE ev (id bigint, ts timestamptz, v double precision)
        WITH (partitioning = ARRAY['day(ts)'], sorted_by = ARRAY['id'],
              \"write.parquet.row-group-size-bytes\" = '16384')" \
  -c "INSERT INTO ev SELECT d.x * 8000 + j.x * 100 + k.x,
        TIMESTAMPTZ '2024-01-01 00:00:00+00' + (d.x * 86400 + j.x * 100 + k.x) * INTERVAL '1 second',
        (j.x * 100 + k.x) * 0.5
      FROM (VALUES $(vals 39)) d(x), (VALUES $(vals 79)) j(x), (VALUES $(vals 99)) k(x) ORDER BY 1" \
  -c "CREATE TABLE evb (id bigint, v text) WITH (partitioning = ARRAY['bucket(32, id)'],
        sorted_by = ARRAY['id'], \"write.parquet.row-group-size-bytes\" = '16384')" \
  -c "INSERT INTO evb SELECT j.x * 100 + k.x, 'v' || (j.x * 100 + k.x)
      FROM (VALUES $(vals 639)) j(x), (VALUES $(vals 99)) k(x) ORDER BY 1" >"$dir/load.log" 2>&1 ||
  { echo "FAIL: loading the tables"; cat "$dir/load.log"; exit 1; }
fail=0
# scan_counts SQL -> "files pruned_partition pruned_metrics rg_total rg_read rows" of the scan
scan_counts() {
  line=$(fsql -c "EXPLAIN ANALYZE $1" | grep 'Scan iceberg' | head -1)
  echo "$line" | sed -n 's/.*rows=\([0-9]*\) time=[^ ]* ms files=\([0-9]*\) pruned=[0-9]* (partition=\([0-9]*\) metrics=\([0-9]*\)) row_groups=\([0-9]*\) pruned=[0-9]* read=\([0-9]*\).*/\2 \3 \4 \5 \6 \1/p'
}
check() { # name sql want_rows table_files table_rgs expect_pruned_by
  set -- "$1" "$2" "$3" "$4" "$5" "$6"
  c=$(scan_counts "$2")
  if [ -z "$c" ]; then echo "FAIL $1: no scan counts in EXPLAIN ANALYZE"; fail=1; return; fi
  set -- "$1" "$2" "$3" "$4" "$5" "$6" $c
  files=$7 ppart=$8 pmet=$9 rgread=${11} rows=${12}
  fread=$((files - ppart - pmet))
  echo "$1: files read $fread of $4 (pruned: partition $ppart, metrics $pmet), row groups read $rgread of $5, rows $rows"
  [ "$rows" = "$3" ] || { echo "FAIL $1: $rows rows, want $3"; fail=1; }
  [ $((fread * 100)) -le $(($4 * 5)) ] || { echo "FAIL $1: read more than 5% of the files"; fail=1; }
  [ $((rgread * 100)) -le $(($5 * 5)) ] || { echo "FAIL $1: read more than 5% of the row groups"; fail=1; }
  case $6 in
    partition) [ "$ppart" -gt 0 ] || { echo "FAIL $1: nothing pruned by partition"; fail=1; } ;;
    metrics) [ "$pmet" -gt 0 ] || { echo "FAIL $1: nothing pruned by metrics"; fail=1; } ;;
  esac
}
# totals from full scans
set -- $(scan_counts "SELECT * FROM ev")
evf=$1 evrg=$4
set -- $(scan_counts "SELECT * FROM evb")
bf=$1 brg=$4
echo "ev: $evf files, $evrg row groups; evb: $bf files, $brg row groups"
[ "$evf" -ge 40 ] && [ "$evrg" -ge 100 ] && [ "$bf" -ge 32 ] ||
  { echo "FAIL: the test tables are too small to show pruning"; exit 1; }
check "equality on the sort key" "SELECT * FROM ev WHERE id = 123457" 1 "$evf" "$evrg" metrics
check "timestamptz range (day transform)" \
  "SELECT * FROM ev WHERE ts >= TIMESTAMPTZ '2024-02-09 00:00:00+00'" 8000 "$evf" "$evrg" partition
check "timestamptz range in another zone" \
  "SELECT * FROM ev WHERE ts < TIMESTAMPTZ '2024-01-01 06:00:00-02'" 8000 "$evf" "$evrg" partition
check "timestamptz BETWEEN" \
  "SELECT * FROM ev WHERE ts BETWEEN TIMESTAMPTZ '2024-01-20 01:00:00+00' AND TIMESTAMPTZ '2024-01-20 01:30:00+00'" \
  1801 "$evf" "$evrg" partition
check "sort-key range" "SELECT * FROM ev WHERE id >= 200000 AND id < 200050" 50 "$evf" "$evrg" metrics
check "bucket equality" "SELECT * FROM evb WHERE id = 4242" 1 "$bf" "$brg" partition
check "bucket equality, text column" "SELECT v FROM evb WHERE id = 63999" 1 "$bf" "$brg" partition
# the answers stay right with pruning
ans=$(fsql -c "SELECT count(*), min(id), max(id) FROM ev WHERE ts >= TIMESTAMPTZ '2024-02-09 00:00:00+00'")
[ "$ans" = "8000,312000,319999" ] || { echo "FAIL: pruned aggregate answer $ans"; fail=1; }
[ $fail = 0 ] && echo PASS
exit $fail
