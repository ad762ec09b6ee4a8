#!/bin/sh
# test_sql_pruning_literals.sh - untyped string literals compared with
# timestamp / timestamptz / date columns are converted to the column's type
# when the statement is bound (PostgreSQL converts them at parse time, in the
# session's time zone), so they prune like typed constants: EXPLAIN ANALYZE
# shows files pruned by partition (day(ts)) or by metrics, and the scan's
# filter shows a constant of the column's type, not a CAST. Small tables
# (one file per day, 10 days), so this runs in a second or two.
set -u
floe=${FLOE_BIN:-}
if [ -z "$floe" ] || [ ! -x "$floe" ]; then echo "skipped: FLOE_BIN not built"; exit 77; fi
dir=$(mktemp -d /tmp/floe-prunelit-XXXXXX)
trap 'rm -rf "$dir"' EXIT
fsql() { "$floe" sql --catalog "sqlite:$dir/c.db" --warehouse "$dir/wh" --format csv --no-header "$@"; }
fsql -c "CREATE SCHEMA IF NOT EXISTS \"default\"" \
  -c "CREATE TABLE tz (id bigint, ts timestamptz) WITH (partitioning = ARRAY['day(ts)'])" \
  -c "INSERT INTO tz SELECT d * 10 + k, TIMESTAMPTZ '2024-02-01 00:00:00+00' + (d * 86400 + k * 60) * INTERVAL '1 second'
      FROM generate_series(0, 9) g(d), generate_series(0, 9) h(k)" \
  -c "CREATE TABLE lt (id bigint, ts timestamp, d date) WITH (partitioning = ARRAY['day(ts)'])" \
  -c "INSERT INTO lt SELECT d * 10 + k, TIMESTAMP '2024-02-01 00:00:00' + (d * 86400 + k * 60) * INTERVAL '1 second',
      DATE '2024-02-01' + d FROM generate_series(0, 9) g(d), generate_series(0, 9) h(k)" \
  >"$dir/load.log" 2>&1 || { echo "FAIL: loading the tables"; cat "$dir/load.log"; exit 1; }
fail=0
# check NAME SQL ROWS MIN_PRUNED [TZ]: the scan returns ROWS rows, prunes at least MIN_PRUNED of
# its 10 files, and its filter has no CAST left
check() {
  line=$(fsql ${5:+--time-zone "$5"} -c "EXPLAIN ANALYZE $2" 2>&1 | grep 'Scan iceberg' | head -1)
  c=$(echo "$line" | sed -n 's/.*rows=\([0-9]*\) time=[^ ]* ms files=\([0-9]*\) pruned=\([0-9]*\) .*/\1 \2 \3/p')
  if [ -z "$c" ]; then echo "FAIL $1: no scan counts: $line"; fail=1; return; fi
  set -- "$1" "$2" "$3" "$4" $c
  echo "$1: rows $5, files $6, pruned $7"
  [ "$5" = "$3" ] || { echo "FAIL $1: $5 rows, want $3"; fail=1; }
  [ "$6" = 10 ] || { echo "FAIL $1: $6 files, want 10"; fail=1; }
  [ "$7" -ge "$4" ] || { echo "FAIL $1: pruned $7 files, want at least $4"; fail=1; }
  case $line in *CAST*) echo "FAIL $1: the literal was not converted at bind time: $line"; fail=1 ;; esac
}
check "timestamptz >= 'date'" "SELECT * FROM tz WHERE ts >= '2024-02-09'" 20 8
check "timestamptz < 'timestamp'" "SELECT * FROM tz WHERE ts < '2024-02-02 00:05'" 15 8
check "'literal' > timestamptz" "SELECT * FROM tz WHERE '2024-02-02' > ts" 10 9
check "timestamptz BETWEEN" "SELECT * FROM tz WHERE ts BETWEEN '2024-02-03' AND '2024-02-03 23:59'" 10 9
check "timestamptz IN" "SELECT * FROM tz WHERE ts IN ('2024-02-04 00:01:00+00', '2024-02-05 00:02:00+00')" 2 8
# the session zone converts the literal: 2024-02-09 00:00 in UTC-5 is 2024-02-09 05:00 UTC
check "timestamptz in the session zone" "SELECT * FROM tz WHERE ts >= '2024-02-09'" 10 9 "Etc/GMT+5"
check "timestamptz = date" "SELECT * FROM tz WHERE ts = DATE '2024-02-06'" 1 9
check "timestamp >= 'date'" "SELECT * FROM lt WHERE ts >= '2024-02-09'" 20 8
check "timestamp = 'literal'" "SELECT * FROM lt WHERE ts = '2024-02-07 00:03:00'" 1 9
check "date < 'literal'" "SELECT * FROM lt WHERE d < '2024-02-03'" 20 8
# the zone matters for the answer too (not only for pruning)
n=$(fsql --time-zone "Etc/GMT+5" -c "SELECT count(*) FROM tz WHERE ts >= '2024-02-08'")
[ "$n" = 20 ] || { echo "FAIL: count in UTC-5 = $n, want 20 (rows from 2024-02-08 05:00 UTC)"; fail=1; }
[ $fail = 0 ] && echo "PASS"
exit $fail
