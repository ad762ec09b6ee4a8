#!/usr/bin/env bash
# test_s3.sh - the S3 FileIO against a fake S3 (s3rver + oracle/s3-server.mjs
# --strict: real SigV4 verification of every request incl. the body hash, and
# If-None-Match: * on PUT / CompleteMultipartUpload).
#
# 1. starts the server (through s3-server-consistent.mjs, which fixes an s3rver
#    read-after-write race) on a free port with a temp dir and bucket "floe-test";
# 2. runs the C test binary io_test_s3_live (tests/io/test_s3_live.c) with
#    FLOE_TEST_S3_ENDPOINT etc.;
# 3. checks objects written by floe with an independent signer (aws4, via
#    oracle/s3-probe.mjs-style raw requests) and that the server refuses a
#    request signed with the wrong secret;
# 4. reads a real Java-written Iceberg table (s3a:// locations, uploaded by
#    aws4) with `floe table` from S3 and compares every subcommand with the
#    local read; writes tables through the library (io_test_s3_table: SQLite
#    catalog, and a filesystem catalog raced by two threads) and reads them
#    with the CLI; then `floe load` / `floe table cat|delete|count|drop
#    --purge` with the warehouse on S3, for a SQLite and an fs:s3:// catalog;
# 5. read_csv / read_json over objects on S3 (a glob lists through FileIO).
# Exit 77 (skip) when node_modules or the test binary is missing. The server
# is killed on exit.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
FLOE_BUILD=${FLOE_BUILD:-$here/../../build}
FLOE_BIN=${FLOE_BIN:-$FLOE_BUILD/floe}
live=$FLOE_BUILD/io_test_s3_live # and io_test_s3_table
[ -d "$here/node_modules/s3rver" ] || { echo "SKIP: tests/interop/node_modules (s3rver) not installed"; exit 77; }
[ -x "$live" ] || { echo "SKIP: $live not built"; exit 77; }
command -v node >/dev/null || { echo "SKIP: node not found"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/floe-s3.XXXXXX")
server_pid=
proxy_pid=
cleanup() {
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/store"
node "$here/s3-server-consistent.mjs" --port=0 --dir="$work/store" --bucket=floe-test --bucket=hyperparam-iceberg --strict --trace \
  > "$work/server.json" 2> "$work/server.log" &
server_pid=$!
for _ in $(seq 100); do
  grep -q endpoint "$work/server.json" 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
endpoint=$(sed -n 's/.*"endpoint":"\([^"]*\)".*/\1/p' "$work/server.json")
[ -n "$endpoint" ] || { echo "FAIL: fake S3 did not start"; cat "$work/server.log"; exit 1; }
echo "fake S3 at $endpoint"

export FLOE_TEST_S3_ENDPOINT=$endpoint FLOE_TEST_S3_BUCKET=floe-test
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
export AWS_ENDPOINT_URL=$endpoint
unset AWS_SESSION_TOKEN AWS_PROFILE FLOE_S3_VIRTUAL_HOST
fails=0
check() { # check NAME EXPECTED ACTUAL
  if [ "$2" == "$3" ]; then echo "ok   $1"; else echo "FAIL $1"; echo "  want: $2"; echo "  got:  $3"; fails=$((fails + 1)); fi
}

# --- the C FileIO tests ---
if [ -n "${FLOE_S3_VALGRIND:-}" ]; then
  valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite "$live"
else
  "$live"
fi
rc=$?
check "io_test_s3_live exit status" 0 "$rc"

# --- independent check: what floe wrote, read by another signer (aws4) ---
cat > "$work/xcheck.mjs" <<'EOF'
import aws4 from 'aws4';
const ep = new URL(process.env.FLOE_TEST_S3_ENDPOINT);
const creds = { accessKeyId: 'S3RVER', secretAccessKey: process.env.SECRET ?? 'S3RVER' };
const [method, path] = process.argv.slice(2);
const req = { host: ep.host, path, method, service: 's3', region: 'us-east-1', headers: {} };
aws4.sign(req, creds);
const res = await fetch(new URL(path, ep), { method, headers: req.headers });
const body = Buffer.from(await res.arrayBuffer());
const len = method === 'HEAD' ? res.headers.get('content-length') : body.length;
process.stdout.write(`${res.status} ${len} ${body.subarray(0, 40).toString('latin1').replace(/\s+/g, ' ')}\n`);
EOF
xcheck() { (cd "$here" && cp "$work/xcheck.mjs" ./.xcheck-$$.mjs && node ./.xcheck-$$.mjs "$@"; rm -f ./.xcheck-$$.mjs); }
check "aws4 reads floe's object" "200 20 0123456789abcdefghij" "$(xcheck GET /floe-test/basic/a.bin)"
check "aws4 reads floe's multipart object size" "200 40000000" "$(xcheck HEAD /floe-test/mp/big.bin | cut -d' ' -f1,2)"
check "wrong secret refused by the server" "403" "$(SECRET=nope xcheck GET /floe-test/basic/a.bin | cut -d' ' -f1)"

# --- the same through a proxy that injects 503 SlowDown, 500 and dropped connections ---
node "$here/s3-flaky-proxy.mjs" --target="$endpoint" > "$work/proxy.json" 2> "$work/proxy.log" &
proxy_pid=$!
for _ in $(seq 100); do grep -q endpoint "$work/proxy.json" 2>/dev/null && break; sleep 0.1; done
proxy=$(sed -n 's/.*"endpoint":"\([^"]*\)".*/\1/p' "$work/proxy.json")
FLOE_TEST_S3_FLAKY=1 FLOE_TEST_S3_ENDPOINT=$proxy "$live"
check "io_test_s3_live through the flaky proxy" 0 "$?"
kill "$proxy_pid"; wait "$proxy_pid" 2>/dev/null
echo "proxy: $(cat "$work/proxy.log")"
check "proxy injected failures" "yes" "$(grep -qE '"slowDown":[1-9].*"internal":[1-9].*"dropped":[1-9].*"lostAnswers":[1-9].*"lostConditional":[1-9]' "$work/proxy.log" && echo yes)"

# --- reading a real Iceberg table (Java-written, s3a:// locations) from S3 with the CLI ---
FLOE_SHARED=${FLOE_SHARED:-$here/../../../shared}
bunnies=$FLOE_SHARED/fixtures/iceberg/icebird/java/bunnies
if [ -d "$bunnies" ] && "$FLOE_BIN" table --help >/dev/null 2>&1; then
  check "upload fixture table with aws4" "17" "$(node "$here/s3-put-tree.mjs" --endpoint="$endpoint" "$bunnies" s3://hyperparam-iceberg/java/bunnies)"
  meta=s3a://hyperparam-iceberg/java/bunnies/metadata/v5.metadata.json
  for sub in cat count describe snapshots files manifests entries; do
    "$FLOE_BIN" table $sub "$meta" --format=csv > "$work/s3.out" 2>&1; rs=$?
    "$FLOE_BIN" table $sub "$bunnies/metadata/v5.metadata.json" --map "s3a://hyperparam-iceberg/java/bunnies=$bunnies" \
      --format=csv > "$work/local.out" 2>&1; rl=$?
    check "floe table $sub: S3 = local ($(wc -l < "$work/local.out") lines)" \
      "exit 0: $(grep -v '^metadata: ' "$work/local.out")" "exit $rs: $(grep -v '^metadata: ' "$work/s3.out")"
    check "floe table $sub: local read exit status" 0 "$rl"
  done
  check "floe table cat from S3: rows" "16" "$("$FLOE_BIN" table cat "$meta" --format=csv | wc -l | tr -d ' ')"
  check "floe table cat, missing metadata on S3" "1" "$("$FLOE_BIN" table cat s3a://hyperparam-iceberg/java/nope/metadata/v1.metadata.json >/dev/null 2>&1; echo $?)"
else
  echo "skip reading a fixture table from S3: no fixtures or no 'floe table'"
fi

# --- read_csv / read_json straight from S3 (src/text reads through the session's FileIO) ---
mkdir -p "$work/text"
printf 'id,name\n1,a\n2,"b,c"\n' > "$work/text/t1.csv"
printf 'id,name\n3,d\n' > "$work/text/t2.csv"
printf '{"k": 1, "s": "p"}\n{"k": 2, "s": "q"}\n' > "$work/text/d.jsonl"
check "upload text files with aws4" "3" "$(node "$here/s3-put-tree.mjs" --endpoint="$endpoint" "$work/text" s3://floe-test/text)"
(cd "$work" && "$FLOE_BIN" sql --format csv -c "SELECT count(*), sum(id), max(name) FROM read_csv('s3://floe-test/text/*.csv')") > "$work/text.out" 2>&1
check "read_csv from S3 over a glob" "3,6,d" "$(tail -n +2 "$work/text.out")"
(cd "$work" && "$FLOE_BIN" sql --format csv -c "SELECT name FROM read_csv('s3://floe-test/text/t1.csv') WHERE id = 2") > "$work/text.out" 2>&1
check "read_csv from S3: a quoted field" "b,c" "$(tail -n +2 "$work/text.out" | tr -d '"')"
(cd "$work" && "$FLOE_BIN" sql --format csv -c "SELECT s FROM read_json('s3://floe-test/text/d.jsonl') j WHERE j.k = 2") > "$work/text.out" 2>&1
check "read_json from S3" "q" "$(tail -n +2 "$work/text.out")"

# --- Iceberg tables written to S3 through the library (SQLite and filesystem catalogs) ---
if [ -x "$FLOE_BUILD/io_test_s3_table" ]; then
  before=$(grep -c '"status":412' "$work/server.log")
  FLOE_TEST_S3_WORKDIR=$work "$FLOE_BUILD/io_test_s3_table" > "$work/table.out"
  check "io_test_s3_table exit status" 0 "$?"
  echo "conditional writes refused (412) during the table tests: $(( $(grep -c '"status":412' "$work/server.log") - before ))"
  for tag in METADATA FSMETADATA; do
    m=$(sed -n "s/^$tag //p" "$work/table.out")
    want=$([ $tag = METADATA ] && echo 1500 || echo 200)
    [ -n "$m" ] || continue
    check "floe table count of the $tag table on S3" "$want" "$("$FLOE_BIN" table count "$m" 2>&1)"
    check "floe table cat of the $tag table on S3: distinct ids" "$want" \
      "$("$FLOE_BIN" table cat "$m" --format=csv --columns id 2>&1 | grep -E '^[0-9]+$' | sort -u | wc -l | tr -d ' ')"
  done
fi

# --- the CLI with the warehouse on S3: floe load / floe table (SQLite and fs catalogs) ---
if "$FLOE_BIN" load --help >/dev/null 2>&1; then
  sq=(--catalog "sqlite:$work/catalog.db" --warehouse s3://floe-test/wh)
  fs=(--catalog fs:s3://floe-test/fswh)
  printf 'id,name\n1,a\n2,b\n3,c\n' > "$work/t1.csv"
  printf 'id,name\n4,d\n5,e plus+and=%%\n' > "$work/t2.csv"
  for cat in sq fs; do
    declare -n c=$cat
    "$FLOE_BIN" load "$work/t1.csv" db.t "${c[@]}" --quiet; r1=$?
    "$FLOE_BIN" load "$work/t2.csv" db.t "${c[@]}" --quiet; r2=$?
    check "floe load twice into an S3 warehouse ($cat catalog)" "0 0" "$r1 $r2"
    check "floe table cat after two loads ($cat)" "1,a 2,b 3,c 4,d 5,e plus+and=%" \
      "$("$FLOE_BIN" table cat db.t "${c[@]}" --format=csv | tail -n +2 | sort | tr '\n' ' ' | sed 's/ $//')"
    "$FLOE_BIN" table delete db.t --where "id = 2" "${c[@]}" >/dev/null 2>&1; r=$?
    check "floe table delete + count ($cat)" "0 4" "$r $("$FLOE_BIN" table count db.t "${c[@]}")"
    "$FLOE_BIN" load "$work/t2.csv" db.t "${c[@]}" --mode overwrite --quiet
    check "floe load --mode overwrite ($cat)" "2" "$("$FLOE_BIN" table count db.t "${c[@]}")"
  done
  check "fs catalog on S3: version files" "yes" \
    "$(ls "$work/store/floe-test/fswh/db/t/metadata/" | grep '^v4.metadata.json' >/dev/null && echo yes)"
  before=$(find "$work/store/floe-test/wh/db/t" -name '*_S3rver_object' 2>/dev/null | wc -l | tr -d ' ')
  check "the table's objects are on S3 before the drop" "yes" "$([ "$before" -gt 5 ] && echo yes)"
  "$FLOE_BIN" table drop db.t --purge "${sq[@]}" >/dev/null 2>&1
  check "floe table drop --purge removes the table's objects" "0" \
    "$(find "$work/store/floe-test/wh/db/t" -name '*_S3rver_object' 2>/dev/null | wc -l | tr -d ' ')"
else
  echo "skip the CLI on S3: this floe has no 'load' command"
fi

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; tail -20 "$work/server.log"; exit 1; }
echo "all S3 checks passed"
