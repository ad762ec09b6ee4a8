#!/usr/bin/env bash
# test_timestamp_ns.sh - nanosecond timestamps in SQL: timestamp(9) / timestamptz(9) columns on a
# v3 table keep all nine digits through INSERT, casts from text, TIMESTAMP literals with more than
# six fraction digits (typed timestamp(9), as Trino types them), interval arithmetic, comparisons,
# day() partitioning and its pruning, and the Parquet / ORC files floe writes (pyarrow reads
# timestamp[ns] with the same nanoseconds).
set -euo pipefail
FLOE_SRC=${FLOE_SRC:-$(pwd)}
FLOE_BIN=${FLOE_BIN:-$FLOE_SRC/build/floe}
. "$FLOE_SRC/tests/engines/lib/env.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/floe-tsns.XXXXXX")
trap 'rm -rf "$work"' EXIT
export FLOE_WAREHOUSE=$work/wh FLOE_CATALOG=sqlite:$work/wh/cat.db
mkdir -p "$work/wh"
fails=0
check() { # check NAME EXPECTED ACTUAL
  if [ "$2" == "$3" ]; then echo "ok   $1"; else echo "FAIL $1"; echo "  want: $2"; echo "  got:  $3"; fails=$((fails + 1)); fi
}
q() { "$FLOE_BIN" sql --format csv -c "$1" | tail -n +2; }

check "text to timestamp(9)" "2024-01-01 00:00:00.123456789,1969-12-31 23:59:59.999999999" \
  "$(q "SELECT CAST('2024-01-01 00:00:00.123456789' AS timestamp(9)), CAST('1969-12-31 23:59:59.999999999' AS timestamp(9))")"
check "timestamptz(9) with an offset" "2023-12-31 22:00:00.123456789+00" \
  "$(q "SELECT CAST('2024-01-01 00:00:00.123456789+02' AS timestamptz(9))")"
check "literal precision" "timestamp(9) without time zone,timestamp without time zone" \
  "$(q "SELECT pg_typeof(TIMESTAMP '2024-01-01 00:00:00.1234567'), pg_typeof(TIMESTAMP '2024-01-01 00:00:00.123456')")"
check "microsecond rounding kept for timestamp" "2024-01-01 00:00:00.123457" \
  "$(q "SELECT CAST('2024-01-01 00:00:00.1234565' AS timestamp)")"
for fmt in parquet orc; do
  t=db.ns_$fmt
  "$FLOE_BIN" sql -c "CREATE SCHEMA IF NOT EXISTS db" \
    -c "CREATE TABLE $t (t timestamp(9), tz timestamptz(9), v int) WITH (format_version = 3,
        partitioning = ARRAY['day(t)'], \"write.format.default\" = '$fmt')" \
    -c "INSERT INTO $t VALUES ('2024-01-01 00:00:00.000000001', '2024-01-01 00:00:00.000000001+00', 1),
        ('2024-01-02 23:59:59.999999999', '2024-01-02 23:59:59.999999999+00', 2), ('2024-01-03 00:00:00', NULL, 3),
        ('1969-12-31 23:59:59.999999999', '1969-12-31 23:59:59.5+00', 4)" > /dev/null
  check "$fmt: values" "1,2024-01-01 00:00:00.000000001,2024-01-01 00:00:00.000000001+00
2,2024-01-02 23:59:59.999999999,2024-01-02 23:59:59.999999999+00
3,2024-01-03 00:00:00,
4,1969-12-31 23:59:59.999999999,1969-12-31 23:59:59.5+00" "$(q "SELECT v, t, tz FROM $t ORDER BY v")"
  check "$fmt: interval arithmetic" "2024-01-01 00:00:01.000000001,2023-12-31 00:00:00.000000001" \
    "$(q "SELECT t + INTERVAL '1 second', t - INTERVAL '1 day' FROM $t WHERE v = 1")"
  check "$fmt: comparison at the nanosecond" "2|3" \
    "$(q "SELECT string_agg(CAST(v AS text), '|' ORDER BY v) FROM $t WHERE t >= TIMESTAMP '2024-01-02 23:59:59.999999999'")"
  check "$fmt: equality with a 9-digit literal" "2" "$(q "SELECT v FROM $t WHERE t = TIMESTAMP '2024-01-02 23:59:59.999999999'")"
  plan=$("$FLOE_BIN" sql -c "EXPLAIN ANALYZE SELECT v FROM $t WHERE t >= TIMESTAMP '2024-01-02 23:59:59.999999999'")
  check "$fmt: day(t) prunes" "yes" "$(grep -q 'files=4 pruned=2' <<<"$plan" && echo yes || echo "no: $plan")"
  if "$FLOE_ENGINE_PY" -c 'import pyarrow' 2>/dev/null; then
    files=$(q "SELECT file_path FROM db.\"ns_$fmt\$files\" WHERE content = 0" | tr '\n' ' ')
    check "$fmt: pyarrow reads the nanoseconds" "-1 1704067200000000001 1704239999999999999 1704240000000000000" \
      "$("$FLOE_ENGINE_PY" - "$fmt" $files <<'PY'
import sys
import pyarrow as pa, pyarrow.orc as orc, pyarrow.parquet as pq
vals = []
for f in sys.argv[2:]:
    t = pq.read_table(f) if sys.argv[1] == "parquet" else orc.read_table(f)
    vals += t.column("t").cast(pa.timestamp("ns")).cast(pa.int64()).to_pylist()
print(" ".join(str(v) for v in sorted(vals)))
PY
)"
  fi
done
[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all nanosecond timestamp checks passed"
