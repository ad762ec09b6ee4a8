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
#    local read; when the CLI has `floe load`, runs a table round trip with
#    the warehouse on S3.
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

# --- tables with the warehouse on S3 (when the CLI has them) ---
if "$FLOE_BIN" load --help >/dev/null 2>&1; then
  cat="sqlite:$work/catalog.db"
  wh="s3://floe-test/wh"
  printf 'id,name\n1,a\n2,b\n3,c\n' > "$work/t1.csv"
  printf 'id,name\n4,d\n5,e\n' > "$work/t2.csv"
  if "$FLOE_BIN" load "$work/t1.csv" db.t --catalog "$cat" --warehouse "$wh" > "$work/load1.out" 2>&1 \
     && "$FLOE_BIN" load "$work/t2.csv" db.t --catalog "$cat" --warehouse "$wh" > "$work/load2.out" 2>&1; then
    out=$("$FLOE_BIN" table cat db.t --catalog "$cat" --warehouse "$wh" --format=csv 2>&1)
    check "table on S3: rows after two loads" "5" "$(grep -cE '^[1-5],' <<<"$out")"
    check "table on S3: metadata on S3" "yes" \
      "$(xcheck GET '/floe-test?list-type=2&prefix=wh%2F' >/dev/null; ls "$work/store/floe-test" 2>/dev/null | grep -q . && echo yes)"
  else
    echo "FAIL table on S3: floe load failed"; cat "$work/load1.out" "$work/load2.out" 2>/dev/null; fails=$((fails + 1))
  fi
else
  echo "skip table on S3: this floe has no 'load' command yet"
fi

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; tail -20 "$work/server.log"; exit 1; }
echo "all S3 checks passed"
