#!/usr/bin/env bash
# test_orc.sh - floe's ORC reader against pyarrow's on every value: seeded
# random files written by pyarrow (orc_compare.py: every type, nulls, every
# codec, both string encodings, several stripes) and the checked-in files of
# tests/orc/data, read with `floe orc cat --format jsonl`; the exit codes and
# messages of `floe orc schema|meta|cat` on good and bad input; and
# `floe convert` from ORC to Parquet read back by pyarrow; floe's ORC writer (orc_compare.py
# writes every random file again through floe, read back by pyarrow; all floe types below).
# Exit 77 (skip) without the engine venv's pyarrow.
set -euo pipefail
FLOE_SRC=${FLOE_SRC:-$(pwd)}
FLOE_BIN=${FLOE_BIN:-$FLOE_SRC/build/floe}
. "$FLOE_SRC/tests/engines/lib/env.sh"
"$FLOE_ENGINE_PY" -c 'import pyarrow.orc' 2>/dev/null || { echo "SKIP: no pyarrow in $FLOE_ENGINE_PY"; exit 77; }
D=$FLOE_SRC/tests/orc/data
work=$(mktemp -d "${TMPDIR:-/tmp}/floe-orc.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
check() { # check NAME EXPECTED ACTUAL
  if [ "$2" == "$3" ]; then echo "ok   $1"; else echo "FAIL $1"; echo "  want: $2"; echo "  got:  $3"; fails=$((fails + 1)); fi
}

# every value, against pyarrow: the Apache ORC examples pyarrow reads (not the bare-root, union and
# corrupt ones), including TestOrcFile.testDate1900 (timestamps in the writer's America/Los_Angeles)
A=$D/apache-orc
"$FLOE_ENGINE_PY" "$FLOE_SRC/tests/interop/orc_compare.py" "$FLOE_BIN" "$work" "$D"/*.orc \
  "$A/TestOrcFile.test1.orc" "$A/over1k_bloom.orc" "$A/decimal.orc" "$A/demo-12-zlib.orc" \
  "$A/orc_split_elim_new.orc" "$A/orc_split_elim_cpp.orc" "$A/decimal64_v2.orc" \
  "$A/decimal64_v2_cplusplus.orc" "$A/TestOrcFile.testStripeLevelStats.orc" \
  "$A/TestOrcFile.testDate1900.orc" "$A/TestOrcFile.testPredicatePushdown.orc" \
  "$A/TestOrcFile.testMemoryManagementV12.orc" "$A/TestOrcFile.testStringAndBinaryStatistics.orc" \
  "$A/orc_index_int_string.orc" "$A/orc_no_format.orc" "$A/complextypes_iceberg.orc" \
  "$A/TestOrcFile.testSargSkipPickupGroupWithoutIndexJava.orc" "$A/TestOrcFile.emptyFile.orc" \
  || fails=$((fails + 1))

# CLI: schema, meta, cat options, errors
schema=$("$FLOE_BIN" orc schema "$D/apache-orc/complextypes_iceberg.orc")
check "schema attributes" "    id: bigint [column 1] iceberg.id=1 iceberg.long-type=LONG iceberg.required=false" \
  "$(grep -m1 ' id: bigint' <<<"$schema")"
check "schema field id" "  id: long (id 1)" "$(grep -m1 '^  id: long' <<<"$schema")"
meta=$("$FLOE_BIN" orc meta "$D/prim_none.orc")
check "meta rows" "rows: 600" "$(grep '^rows:' <<<"$meta")"
check "meta stripes" "stripes: 3" "$(grep '^stripes:' <<<"$meta")"
check "meta writer" "writer: ORC C++ (id 1)" "$(grep -o '^writer: ORC C++ (id 1)' <<<"$meta")"
check "meta compression" "compression: ZSTD (block size 65536)" \
  "$("$FLOE_BIN" orc meta "$D/prim_zstd.orc" | grep '^compression:')"
check "cat csv columns limit" 'id,st
0,
1,"{""a"":1,""b"":""b1""}"' "$("$FLOE_BIN" orc cat "$D/nested_zstd.orc" --format csv --columns id,st --limit 2)"
check "cat jsonl order" '{"s_low":"v1","i8":-127}' \
  "$("$FLOE_BIN" orc cat "$D/prim_zlib.orc" --format=jsonl --columns=s_low,i8 --limit=2 | tail -1)"
check "cat stdin" '3' "$("$FLOE_BIN" orc cat - --format csv --limit 2 < "$D/ts_edge.orc" | wc -l | tr -d ' ')"
set +e
err=$("$FLOE_BIN" orc cat "$D/prim_none.orc" --columns nope 2>&1); rc=$?
check "cat unknown column" "1: floe orc: $D/prim_none.orc: no column 'nope'" "$rc: $err"
head -c 3000 "$D/prim_zlib.orc" > "$work/trunc.orc"
err=$("$FLOE_BIN" orc meta "$work/trunc.orc" 2>&1); rc=$?
check "truncated file exit" "1" "$rc"
check "truncated file names it" "yes" "$(grep -q "$work/trunc.orc" <<<"$err" && echo yes || echo "no: $err")"
err=$("$FLOE_BIN" orc cat "$D/apache-orc/corrupt_negative_dict_entry_lengths.orc" --format csv 2>&1 >/dev/null); rc=$?
check "corrupt dictionary" "1" "$rc"
check "corrupt dictionary message" "yes" "$(grep -q 'stripe 0 column 9 (string) LENGTH stream' <<<"$err" && echo yes || echo "no: $err")"
"$FLOE_BIN" orc cat "$D/prim_none.orc" --bogus > /dev/null 2>&1; check "unknown option" "2" "$?"
"$FLOE_BIN" orc frobnicate "$D/prim_none.orc" > /dev/null 2>&1; check "unknown subcommand" "2" "$?"
set -e

# floe convert: ORC in, Parquet out; pyarrow reads both to the same values
for f in prim_zlib nested_zstd ts_edge; do
  "$FLOE_BIN" convert "$D/$f.orc" "$work/$f.parquet" --quiet || fails=$((fails + 1))
  check "convert $f.orc -> parquet" "same" "$("$FLOE_ENGINE_PY" - "$D/$f.orc" "$work/$f.parquet" <<'PY'
import sys
import pyarrow as pa, pyarrow.orc as orc, pyarrow.parquet as pq
a, b = orc.read_table(sys.argv[1]), pq.read_table(sys.argv[2])
def vals(t):
    cols = []
    for c, f in zip(t.columns, t.schema):
        if pa.types.is_timestamp(f.type):
            c = c.cast(pa.timestamp("ns")).cast(pa.int64())
        cols.append(c.to_pylist())
    return t.schema.names, cols
print("same" if vals(a) == vals(b) else "differ: %s vs %s" % (a.schema, b.schema))
PY
)"
done
# floe load: ORC files appended to an Iceberg table (written as Parquet), read back in SQL
"$FLOE_BIN" load "$D/long_zlib.orc" "$D/long_zlib.orc" db.l --catalog "sqlite:$work/cat.db" \
  --warehouse "$work/wh" > /dev/null 2>&1 || fails=$((fails + 1))
check "load orc" "12000,35994000,5" "$(FLOE_CATALOG="sqlite:$work/cat.db" FLOE_WAREHOUSE="$work/wh" \
  "$FLOE_BIN" sql --format csv -c 'SELECT count(*), sum(seq), count(DISTINCT tag) FROM db.l' | tail -1)"
# floe's ORC writer: every floe type (time, timestamptz, uuid, decimal, list, struct, nulls) from
# Parquet to ORC; pyarrow reads the values and the Iceberg attributes, floe reads its own file back
FLOE_WAREHOUSE="$work/wh2" "$FLOE_BIN" sql -c "COPY (SELECT CASE WHEN k=1 THEN 1::int END AS i,
  CASE WHEN k=1 THEN 12.34::decimal(10,2) END AS dec, CASE WHEN k=1 THEN TIME '12:34:56.789' END AS tm,
  CASE WHEN k=1 THEN TIMESTAMP '2024-01-02 03:04:05.123456' END AS ts,
  CASE WHEN k=1 THEN TIMESTAMPTZ '2024-01-02 03:04:05.5+00' END AS tz,
  CASE WHEN k=1 THEN uuid '123e4567-e89b-12d3-a456-426614174000' END AS u,
  CASE WHEN k=1 THEN ARRAY[1,2] END AS arr, CASE WHEN k=1 THEN ROW(1, 'a') END AS st
  FROM (VALUES (1),(2)) v(k)) TO '$work/all.parquet' (FORMAT parquet)" > /dev/null
"$FLOE_BIN" convert "$work/all.parquet" "$work/all.orc" --quiet || fails=$((fails + 1))
check "orc write: floe reads it back" "$("$FLOE_BIN" parquet cat "$work/all.parquet" --format jsonl)" \
  "$("$FLOE_BIN" orc cat "$work/all.orc" --format jsonl)"
check "orc write: pyarrow reads it" "1 12.34 45296789000 2024-01-02T03:04:05.123456 2024-01-02T03:04:05.500000+00:00 123e4567e89b12d3a456426614174000 [1, 2] {'f1': 1, 'f2': 'a'} | TIME MICROS UUID | 2 1" \
  "$("$FLOE_ENGINE_PY" - "$work/all.orc" <<'PY'
import sys
import pyarrow.orc as orc
t = orc.ORCFile(sys.argv[1]).read()
r = t.to_pylist()[0]
vals = [r["i"], r["dec"], r["tm"], r["ts"].isoformat(), r["tz"].isoformat(), r["u"].hex(), r["arr"], r["st"]]
meta = [t.schema.field(n).metadata[k].decode() for n, k in
        [("tm", b"iceberg.long-type"), ("ts", b"iceberg.timestamp-unit"), ("u", b"iceberg.binary-type")]]
print(" ".join(map(str, vals)), "|", " ".join(meta), "|", t.num_rows, t.column("i").null_count)
PY
)"
rc=0; "$FLOE_BIN" convert "$work/all.parquet" "$work/x.orc" --codec brotli > /dev/null 2>&1 || rc=$?
check "orc write: brotli refused" "2" "$rc"

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all ORC interop checks passed"
