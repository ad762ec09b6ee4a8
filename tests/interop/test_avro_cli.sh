#!/usr/bin/env bash
# test_avro_cli.sh - `floe avro schema|meta|cat|write|canonical` on the shared
# fixtures: output formats, limits, reader schemas, exit codes and error
# messages for bad files. Exit 77 (skip) without FLOE_SHARED.
set -uo pipefail
FLOE_BIN=${FLOE_BIN:-$(pwd)/build/floe}
FLOE_SHARED=${FLOE_SHARED:-}
[ -n "$FLOE_SHARED" ] && [ -d "$FLOE_SHARED/fixtures/avro" ] || { echo "SKIP: FLOE_SHARED fixtures not found"; exit 77; }
A=$FLOE_SHARED/fixtures/avro/apache-avro
work=$(mktemp -d "${TMPDIR:-/tmp}/floe-avro-cli.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
check() { # check NAME EXPECTED ACTUAL
  if [ "$2" == "$3" ]; then echo "ok   $1"; else echo "FAIL $1"; echo "  want: $2"; echo "  got:  $3"; fails=$((fails + 1)); fi
}

# schema: verbatim text
check "schema verbatim" '{"type":"record","name":"Weather","namespace":"test","doc":"A weather reading.","fields":[{"name":"station","type":"string"},{"name":"time","type":"long"},{"name":"temp","type":"int"}]}' \
  "$("$FLOE_BIN" avro schema "$A/share-test-data/weather-snappy.avro")"
check "schema canonical" '{"name":"test.Weather","type":"record","fields":[{"name":"station","type":"string"},{"name":"time","type":"long"},{"name":"temp","type":"int"}]}' \
  "$("$FLOE_BIN" avro schema --canonical "$A/share-test-data/weather.avro")"

# cat: jsonl with limit, csv, table
check "cat jsonl --limit" '{"station":"011990-99999","time":-619524000000,"temp":0}
{"station":"011990-99999","time":-619506000000,"temp":22}' "$("$FLOE_BIN" avro cat "$A/share-test-data/weather-deflate.avro" --limit 2)"
check "cat csv" 'station,time,temp
011990-99999,-619524000000,0
011990-99999,-619506000000,22
011990-99999,-619484400000,-11
012650-99999,-655531200000,111
012650-99999,-655509600000,78' "$("$FLOE_BIN" avro cat --format=csv "$A/share-test-data/weather.avro")"
check "cat table header" 'station      | time          | temp' "$("$FLOE_BIN" avro cat --format=table --limit=1 "$A/share-test-data/weather.avro" | head -1)"
check "cat table rows" '7' "$("$FLOE_BIN" avro cat --format=table "$A/share-test-data/weather.avro" | wc -l | tr -d ' ')"

# meta: codec, sync, keys, records
meta=$("$FLOE_BIN" avro meta "$A/share-test-data/syncInMeta.avro")
check "meta codec" "codec: deflate" "$(grep '^codec:' <<<"$meta")"
check "meta records" "records: 6001" "$(grep '^records:' <<<"$meta")"
check "meta json records" "6001" "$("$FLOE_BIN" avro meta --json "$A/share-test-data/syncInMeta.avro" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["records"])')"

# reader schema: drop a field, add one with a default, promote int -> long
cat > "$work/reader.json" <<'EOF'
{"type":"record","name":"Weather","namespace":"test","fields":[{"name":"temp","type":"double"},{"name":"station","type":"bytes"},{"name":"country","type":"string","default":"??"}]}
EOF
check "cat --reader-schema" '{"temp":0.0,"station":{"$bytes":"3031313939302d3939393939"},"country":"??"}' \
  "$("$FLOE_BIN" avro cat --limit 1 --reader-schema="$work/reader.json" "$A/share-test-data/weather.avro")"

# canonical + fingerprint of a schema file
check "canonical fingerprint" '"int"
8247732601305521295' "$(printf '{"type":"int"}' > "$work/int.json"; "$FLOE_BIN" avro canonical "$work/int.json")"

# write: round trip through the CLI, every codec
printf '{"type":"record","name":"r","fields":[{"name":"id","type":"long","field-id":1},{"name":"b","type":["null","bytes"],"field-id":2}]}\n' > "$work/s.json"
printf '{"id":-9223372036854775808,"b":{"$bytes":"00ff"}}\n{"id":9223372036854775807,"b":null}\n' > "$work/r.jsonl"
for codec in null deflate snappy zstandard bzip2; do
  "$FLOE_BIN" avro write "$work/s.json" "$work/r.jsonl" "$work/o.avro" --codec=$codec --meta k=v || fails=$((fails + 1))
  check "write+cat $codec" "$(cat "$work/r.jsonl" | tr -d ' ')" "$("$FLOE_BIN" avro cat "$work/o.avro")"
done

# a header larger than the reader's first 64 KiB window (--meta-file)
/usr/bin/python3 -c "print('m' * 300000, end='')" > "$work/big.txt"
"$FLOE_BIN" avro write "$work/s.json" "$work/r.jsonl" "$work/big.avro" --meta-file big="$work/big.txt" --meta after=1 || fails=$((fails + 1))
check "big header" "big=300000 after=1 records=2" "$("$FLOE_BIN" avro meta --json "$work/big.avro" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
m = {x["key"]: x["value"] for x in d["metadata"]}
print("big=%d after=%s records=%d" % (len(m["big"]), m["after"], d["records"]))')"

# errors: exit 1 with the file and the byte offset; usage errors exit 2
out=$("$FLOE_BIN" avro cat "$A/lang-c-tests/avro-1237-bad-union-discriminant.avro" 2>&1 >/dev/null); rc=$?
check "bad union exit" 1 $rc
check "bad union message" "floe avro: $A/lang-c-tests/avro-1237-bad-union-discriminant.avro: union branch index 2 out of range (2 branches) at byte offset 86" "$out"
out=$("$FLOE_BIN" avro cat "$A/lang-c-tests/avro-1238-truncated.avro" 2>&1 >/dev/null); rc=$?
check "truncated exit" 1 $rc
grep -q "truncated" <<<"$out" || { echo "FAIL truncated message: $out"; fails=$((fails + 1)); }
out=$("$FLOE_BIN" avro meta "$A/share-test-data/test.avro12" 2>&1 >/dev/null); rc=$?
check "avro12 exit" 1 $rc
grep -q "version 0 is not supported" <<<"$out" || { echo "FAIL avro12 message: $out"; fails=$((fails + 1)); }
out=$("$FLOE_BIN" avro cat "$work/missing.avro" 2>&1 >/dev/null); rc=$?
check "missing file exit" 1 $rc
"$FLOE_BIN" avro cat >/dev/null 2>&1; check "usage exit" 2 $?
printf '{"id":"x"}\n' > "$work/bad.jsonl"
out=$("$FLOE_BIN" avro write "$work/s.json" "$work/bad.jsonl" "$work/bad.avro" 2>&1); rc=$?
check "write bad record exit" 1 $rc
grep -q "bad.jsonl line 1: field 'id'" <<<"$out" || { echo "FAIL write message: $out"; fails=$((fails + 1)); }
[ ! -e "$work/bad.avro" ] || { echo "FAIL: failed write left a file behind"; fails=$((fails + 1)); }

[ $fails = 0 ] && echo "PASS" || echo "$fails failed"
[ $fails = 0 ]
