#!/usr/bin/env bash
# test_avro_interop.sh - Avro container files written by floe are read by two
# independent readers, avsc (node, the oracle's avro-dump.mjs) and Debian's
# python3-avro (the oracle's avro-dump-py.py), with the Iceberg attributes of
# the schema (field-id, element-id, key-id, value-id, logicalType,
# adjust-to-utc, doc) and the header metadata intact and the same records;
# and a file written by avsc (avro-write.mjs) is read back by floe.
#
# Codecs: null, deflate, snappy, zstandard, bzip2 written by floe; avsc reads
# null/deflate/snappy/zstandard, python3-avro reads null/deflate/bzip2 (the
# others need python modules Debian does not install by default).
#
# Env (set by ctest): FLOE_BIN, FLOE_SHARED, FLOE_SRC, FLOE_BUILD.
# Exit 77 (skip) when the shared fixtures/oracle, node or python3-avro are missing.
set -euo pipefail

FLOE_BIN=${FLOE_BIN:-$(pwd)/build/floe}
FLOE_SHARED=${FLOE_SHARED:-}
FLOE_SRC=${FLOE_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}

skip() { echo "SKIP: $*"; exit 77; }
[ -n "$FLOE_SHARED" ] && [ -d "$FLOE_SHARED/oracle" ] || skip "FLOE_SHARED oracle not found (${FLOE_SHARED:-unset})"
command -v node >/dev/null || skip "node not installed"
/usr/bin/python3 -c 'import avro.datafile' 2>/dev/null || skip "python3-avro not installed"
[ -x "$FLOE_BIN" ] || { echo "FAIL: floe binary not found at $FLOE_BIN"; exit 1; }

# --- locate (or build) the oracle: scripts + node_modules with avsc
oracle=""
work=$(mktemp -d "${TMPDIR:-/tmp}/floe-avro-interop.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -n "${FLOE_ORACLE_DIR:-}" ] && [ -f "$FLOE_ORACLE_DIR/avro-dump.mjs" ]; then
  oracle=$FLOE_ORACLE_DIR
elif [ -f "$FLOE_SRC/tests/interop/oracle/avro-dump.mjs" ] && [ -d "$FLOE_SRC/tests/interop/node_modules/avsc" ]; then
  oracle=$FLOE_SRC/tests/interop/oracle
elif [ -d "$FLOE_SRC/tests/interop/node_modules/avsc" ]; then
  # the project's pinned node_modules, with the oracle's scripts from FLOE_SHARED
  mkdir -p "$work/oracle"
  cp "$FLOE_SHARED"/oracle/*.mjs "$FLOE_SHARED"/oracle/*.py "$FLOE_SHARED"/oracle/package.json "$work/oracle/"
  cp -r "$FLOE_SHARED/oracle/lib" "$work/oracle/"
  ln -s "$FLOE_SRC/tests/interop/node_modules" "$work/oracle/node_modules"
  oracle=$work/oracle
else
  cache=${FLOE_BUILD:-${TMPDIR:-/tmp}}/avro-oracle
  if [ ! -d "$cache/node_modules/avsc" ]; then
    echo "setting up the oracle in $cache (npm ci)"
    rm -rf "$cache" && mkdir -p "$cache"
    (cd "$FLOE_SHARED/oracle" && tar cf - --exclude=node_modules .) | (cd "$cache" && tar xf -)
    (cd "$cache" && npm ci --no-audit --no-fund --loglevel=error >/dev/null 2>&1) ||
      skip "npm ci of the oracle failed (no registry access?)"
  fi
  oracle=$cache
fi
echo "oracle: $oracle"

# --- an Iceberg manifest_entry-style schema (compact, stored verbatim)
cat > "$work/schema.json" <<'EOF'
{"type":"record","name":"manifest_entry","fields":[{"name":"status","type":"int","field-id":0},{"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},{"name":"sequence_number","type":["null","long"],"default":null,"field-id":3},{"name":"data_file","type":{"type":"record","name":"r2","fields":[{"name":"content","type":"int","doc":"Contents of the file: 0=data, 1=position deletes, 2=equality deletes","field-id":134},{"name":"file_path","type":"string","doc":"Location URI with FS scheme","field-id":100},{"name":"file_format","type":"string","field-id":101},{"name":"partition","type":{"type":"record","name":"r102","fields":[{"name":"day","type":["null",{"type":"int","logicalType":"date"}],"default":null,"field-id":1000},{"name":"ts_hour","type":["null",{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true}],"default":null,"field-id":1001}]},"field-id":102},{"name":"record_count","type":"long","field-id":103},{"name":"file_size_in_bytes","type":"long","field-id":104},{"name":"column_sizes","type":["null",{"type":"array","items":{"type":"record","name":"k117_v118","fields":[{"name":"key","type":"int","field-id":117},{"name":"value","type":"long","field-id":118}]},"logicalType":"map"}],"default":null,"field-id":108},{"name":"lower_bounds","type":["null",{"type":"array","items":{"type":"record","name":"k126_v127","fields":[{"name":"key","type":"int","field-id":126},{"name":"value","type":"bytes","field-id":127}]},"logicalType":"map"}],"default":null,"field-id":125},{"name":"key_metadata","type":["null","bytes"],"default":null,"field-id":131},{"name":"split_offsets","type":["null",{"type":"array","items":"long","element-id":133}],"default":null,"field-id":132},{"name":"properties","type":["null",{"type":"map","values":"string","key-id":150,"value-id":151}],"default":null,"field-id":149},{"name":"sort_order_id","type":["null","int"],"default":null,"field-id":140},{"name":"ratio","type":["null","double"],"default":null,"field-id":160},{"name":"checksum","type":["null",{"type":"fixed","name":"md5","size":16}],"default":null,"field-id":161},{"name":"amount","type":["null",{"type":"fixed","name":"dec_9_2","size":4,"logicalType":"decimal","precision":9,"scale":2}],"default":null,"field-id":162}]},"field-id":2}]}
EOF

# --- records in floe's JSON format (longs exact, bytes as {"$bytes":hex}, unions bare)
/usr/bin/python3 - "$work/records.jsonl" <<'EOF'
import json, sys
recs = [
  {"status": 1, "snapshot_id": 9223372036854775807, "sequence_number": None, "data_file": {
    "content": 0, "file_path": "s3://bucket/db/t/data/day=2024-01-01/00000-0-\u00fc\u2713\u6f22.parquet",
    "file_format": "PARQUET", "partition": {"day": 19723, "ts_hour": 1704067200000000},
    "record_count": 1000, "file_size_in_bytes": 123456,
    "column_sizes": [{"key": 1, "value": 4000}, {"key": 2, "value": -9223372036854775808}],
    "lower_bounds": [{"key": 1, "value": {"$bytes": "01000000"}}], "key_metadata": {"$bytes": ""},
    "split_offsets": [4, 1048576], "properties": {"a": "b", "\u00fc": "", "q\"\\": "\n"}, "sort_order_id": 0,
    "ratio": 0.1, "checksum": {"$bytes": "00112233445566778899aabbccddeeff"}, "amount": {"$bytes": "fffffc18"}}},
  {"status": 2, "snapshot_id": None, "sequence_number": -1, "data_file": {
    "content": 2, "file_path": "", "file_format": "AVRO", "partition": {"day": None, "ts_hour": None},
    "record_count": 0, "file_size_in_bytes": 0, "column_sizes": [], "lower_bounds": None, "key_metadata": None,
    "split_offsets": None, "properties": {}, "sort_order_id": None, "ratio": None, "checksum": None, "amount": None}},
]
for i in range(1500):  # enough for several blocks
    recs.append({"status": i % 3, "snapshot_id": 1000000000000000000 + i * 7919, "sequence_number": i,
      "data_file": {"content": 0, "file_path": "s3://b/d/%05d.parquet" % i, "file_format": "PARQUET",
        "partition": {"day": 19000 + i % 50, "ts_hour": None if i % 4 == 0 else 1700000000000000 + i * 3600000000},
        "record_count": i * 13, "file_size_in_bytes": 4096 + i,
        "column_sizes": [{"key": k, "value": k * i} for k in range(1, 1 + i % 4)],
        "lower_bounds": [{"key": 1, "value": {"$bytes": "%08x" % i}}] if i % 2 else None,
        "key_metadata": None, "split_offsets": [4] if i % 5 == 0 else None,
        "properties": None if i % 3 else {"k%d" % i: "v"}, "sort_order_id": i % 2,
        "ratio": i / 7.0 if i % 6 else None, "checksum": None, "amount": {"$bytes": "%08x" % (i * 101)}}})
with open(sys.argv[1], "w") as f:
    for r in recs:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
EOF

# --- the comparator: oracle output vs the records / metadata we wrote
cat > "$work/compare.py" <<'EOF'
import json, sys

def load_schema(path):
    with open(path, "rb") as f:
        return f.read()

def to_oracle(s, v, names):
    """floe JSON value -> the oracle convention (long as decimal string, bytes as \\x<hex>)."""
    if isinstance(s, str):
        s = names.get(s, s)
    if isinstance(s, list):
        if v is None:
            return None
        branches = [b for b in s if b != "null"]
        return to_oracle(branches[0], v, names)
    if isinstance(s, dict):
        t = s["type"]
        if t == "record":
            names[s["name"]] = s
            return {f["name"]: to_oracle(f["type"], v[f["name"]], names) for f in s["fields"]}
        if t == "array":
            return [to_oracle(s["items"], x, names) for x in v]
        if t == "map":
            return {k: to_oracle(s["values"], x, names) for k, x in v.items()}
        if t == "fixed":
            names[s["name"]] = s
            return "\\x" + v["$bytes"]
        if t == "enum":
            names[s["name"]] = s
            return v
        s = t
    if s == "long":
        return str(v)
    if s == "bytes":
        return "\\x" + v["$bytes"]
    return v

def canon(s, v, names):
    """oracle value -> the same with every long as a decimal string (avsc prints
    logical-type longs such as timestamp-micros as numbers, python3-avro as strings)."""
    if isinstance(s, str):
        s = names.get(s, s)
    if v is None:
        return None
    if isinstance(s, list):
        return canon([b for b in s if b != "null"][0], v, names)
    if isinstance(s, dict):
        t = s["type"]
        if t in ("record", "fixed", "enum"):
            names[s["name"]] = s
        if t == "record":
            return {f["name"]: canon(f["type"], v.get(f["name"]), names) for f in s["fields"]}
        if t == "array":
            return [canon(s["items"], x, names) for x in v]
        if t == "map":
            return {k: canon(s["values"], x, names) for k, x in v.items()}
        s = t
    if s == "long":
        return str(v)
    return v

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

mode = sys.argv[1]
if mode == "dump":  # compare.py dump ORACLE.json SCHEMA.json RECORDS.jsonl CODEC SYNC META...
    dump_path, schema_path, recs_path, codec, sync = sys.argv[2:7]
    meta = [m.split("=", 1) for m in sys.argv[7:]]
    with open(dump_path) as f:
        d = json.load(f)
    if d.get("error"):
        fail("%s: reader error: %s" % (d.get("reader"), d["error"]))
    schema_text = load_schema(schema_path).decode().rstrip("\n")
    md = d["metadata"]
    if md.get("avro.schema") != schema_text:
        fail("%s: avro.schema not stored verbatim" % d["reader"])
    want_keys = ["avro.schema", "avro.codec"] + [k for k, _ in meta]
    if list(md.keys()) != want_keys:
        fail("%s: metadata keys %s != %s" % (d["reader"], list(md.keys()), want_keys))
    for k, v in meta:
        if md[k] != v:
            fail("%s: metadata %s = %r, want %r" % (d["reader"], k, md[k], v))
    if d["codec"] != codec or md["avro.codec"] != codec:
        fail("%s: codec %s" % (d["reader"], d["codec"]))
    if "sync" in d and d["sync"] != "\\x" + sync:
        fail("%s: sync %s" % (d["reader"], d["sync"]))
    schema = json.loads(schema_text)
    if d["schema"] != schema or json.dumps(d["schema"]) != json.dumps(schema):
        fail("%s: schema attributes differ" % d["reader"])
    want = [to_oracle(schema, json.loads(l), {}) for l in open(recs_path) if l.strip()]
    if d["record_count"] != len(want):
        fail("%s: %d records, want %d" % (d["reader"], d["record_count"], len(want)))
    got = [canon(schema, r, {}) for r in d["records"]]
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            fail("%s: record %d differs\n got:  %s\n want: %s" % (d["reader"], i, json.dumps(g), json.dumps(w)))
    if "blocks" in d and len(d["blocks"]) < 2:
        fail("expected several blocks")
    print("ok: %s read %d records, %d metadata keys, codec %s" % (d["reader"], len(got), len(md), codec))
elif mode == "floe":  # compare.py floe SCHEMA.json FLOE_CAT.jsonl ORACLE_RECORDS.json
    schema = json.loads(load_schema(sys.argv[2]))
    got = [to_oracle(schema, json.loads(l), {}) for l in open(sys.argv[3]) if l.strip()]
    with open(sys.argv[4]) as f:
        want = [canon(schema, r, {}) for r in json.load(f)["records"]]
    if got != want:
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:
                fail("floe record %d differs\n got:  %s\n want: %s" % (i, json.dumps(g), json.dumps(w)))
        fail("floe read %d records, want %d" % (len(got), len(want)))
    print("ok: floe read %d records written by avsc" % len(got))
elif mode == "records":  # compare.py records SCHEMA.json ORACLE.json OUT.jsonl: oracle records, longs as strings
    schema = json.loads(load_schema(sys.argv[2]))
    with open(sys.argv[3]) as f:
        recs = json.load(f)["records"]
    with open(sys.argv[4], "w") as f:
        for r in recs:
            f.write(json.dumps(canon(schema, r, {}), ensure_ascii=False) + "\n")
elif mode == "self":  # compare.py self RECORDS.jsonl FLOE_CAT.jsonl
    a = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
    b = [json.loads(l) for l in open(sys.argv[3]) if l.strip()]
    if a != b:
        fail("floe cat differs from the records written")
    print("ok: floe reads back its own %d records" % len(a))
EOF

sync=0123456789abcdef0011223344556677
spec='[{"name":"day","transform":"day","source-id":4,"field-id":1000}]'
iceschema='{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]}'
meta=("schema=$iceschema" "partition-spec=$spec" "partition-spec-id=0" "format-version=2" "content=data" "note=ünïcødé")
meta_args=()
for m in "${meta[@]}"; do meta_args+=(--meta "$m"); done

status=0
for codec in null deflate snappy zstandard bzip2; do
  out="$work/m-$codec.avro"
  "$FLOE_BIN" avro write "$work/schema.json" "$work/records.jsonl" "$out" --codec=$codec \
    --sync=$sync --block-size=16384 "${meta_args[@]}"
  # floe reads its own file
  "$FLOE_BIN" avro cat "$out" > "$work/self-$codec.jsonl"
  /usr/bin/python3 "$work/compare.py" self "$work/records.jsonl" "$work/self-$codec.jsonl" || status=1
  cmp -s <("$FLOE_BIN" avro schema "$out") "$work/schema.json" || { echo "FAIL: floe avro schema not verbatim"; status=1; }
  if [ $codec != bzip2 ]; then
    node "$oracle/avro-dump.mjs" "$out" --records=all > "$work/node-$codec.json" || true
    /usr/bin/python3 "$work/compare.py" dump "$work/node-$codec.json" "$work/schema.json" \
      "$work/records.jsonl" $codec $sync "${meta[@]}" || status=1
  fi
  case $codec in null|deflate|bzip2)
    /usr/bin/python3 "$oracle/avro-dump-py.py" "$out" > "$work/py-$codec.json" 2> "$work/py-$codec.err" ||
      { echo "FAIL: python3-avro could not read $codec: $(tail -3 "$work/py-$codec.err")"; status=1; continue; }
    /usr/bin/python3 "$work/compare.py" dump "$work/py-$codec.json" "$work/schema.json" \
      "$work/records.jsonl" $codec $sync "${meta[@]}" || status=1
  esac
done

# --- the other direction: avsc writes (snappy), floe reads
# The oracle's avsc setup makes only the bare "long" 64-bit exact (BigInt); an object-form long
# ({"type":"long","logicalType":...}) stays a JS number, which avro-write.mjs cannot fill from the
# exact strings. So the avsc-written file spells that one type as "long".
sed 's/{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true}/"long"/' "$work/schema.json" > "$work/schema-avsc.json"
/usr/bin/python3 "$work/compare.py" records "$work/schema.json" "$work/node-null.json" "$work/oracle-records.jsonl"
for codec in snappy deflate; do
  node "$oracle/avro-write.mjs" "$work/schema-avsc.json" "$work/oracle-records.jsonl" "$work/avsc-$codec.avro" \
    --codec=$codec --meta format-version=2 --block-size=8000
  "$FLOE_BIN" avro cat "$work/avsc-$codec.avro" > "$work/floe-from-avsc.jsonl"
  /usr/bin/python3 "$work/compare.py" floe "$work/schema.json" "$work/floe-from-avsc.jsonl" "$work/node-null.json" || status=1
  "$FLOE_BIN" avro meta "$work/avsc-$codec.avro" | grep "format-version = 2" >/dev/null || { echo "FAIL: floe avro meta"; status=1; }
done

[ $status = 0 ] && echo "PASS: avro interop" || echo "FAIL: avro interop"
exit $status
