#!/usr/bin/env bash
# POST /v1/ingest/{namespace}/{table} on floe serve (issue 18, "HTTP"): NDJSON, JSON-array and
# CSV bodies land in an Iceberg table, acknowledged only once committed; retries with the same
# Idempotency-Key or Producer-Seq never duplicate a batch, also across a SIGKILL of the server
# (every request of a stream is retried after each kill, whether or not its response arrived);
# 403 for a principal without WRITE, 400 naming the record and column for a bad one (nothing
# committed), 413 for a body over max-body-bytes, 415 for an unknown Content-Type.
set -uo pipefail
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
command -v curl >/dev/null || { echo "SKIP: curl missing"; exit 77; }
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-http-ingest.XXXXXX")"
pid=""
cleanup() {
  [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
  [ -n "${FLOE_KEEP:-}" ] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
cat="sqlite:$tmp/catalog.db"
export FLOE_CATALOG="$cat" FLOE_WAREHOUSE="$tmp/wh"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }
q() { "$FLOE_BIN" sql --format csv --no-header -q -c "$1"; }
expect() { # what got want
  if [ "$2" = "$3" ]; then ok "$1"; else fail "$1: got '$2', want '$3'"; fi
}

"$FLOE_BIN" sql -q -c "CREATE SCHEMA demo" \
  -c "CREATE TABLE demo.ev (id bigint NOT NULL, name text, v double, d date)" >/dev/null ||
  { echo "FAIL: create table"; exit 1; }
"$FLOE_BIN" admin bootstrap --name ing_admin >/dev/null || { echo "FAIL: bootstrap"; exit 1; }
"$FLOE_BIN" admin principal create ing_reader >/dev/null &&
  "$FLOE_BIN" admin role create r_read >/dev/null &&
  "$FLOE_BIN" admin grant r_read read table demo.ev >/dev/null &&
  "$FLOE_BIN" admin role assign ing_reader r_read >/dev/null || { echo "FAIL: principals"; exit 1; }
tok=$("$FLOE_BIN" admin token ing_admin --ttl 3600)
rtok=$("$FLOE_BIN" admin token ing_reader --ttl 3600)

start_server() {
  rm -f "$tmp/ready"
  # exec: $pid is floe's own, so SIGKILL hits the server, not a wrapper shell
  (exec "$FLOE_BIN" serve --port "${port:-0}" --ready-file "$tmp/ready" --max-body-bytes 65536 \
    >>"$tmp/serve.log" 2>&1) &
  pid=$!
  for _ in $(seq 1 200); do [ -s "$tmp/ready" ] && break; sleep 0.05; done
  [ -s "$tmp/ready" ] || { echo "FAIL: floe serve did not start"; tail -20 "$tmp/serve.log"; exit 1; }
  url="http://$(head -1 "$tmp/ready")"
  port="${url##*:}"
}
# post CONTENT_TYPE BODY_FILE [extra curl args]: prints "status body"
post() {
  local ct="$1" f="$2"
  shift 2
  curl -s -o "$tmp/resp" -w '%{http_code}' -X POST -H "Authorization: Bearer ${TOKEN:-$tok}" \
    -H "Content-Type: $ct" --data-binary "@$f" "$@" "$url/v1/ingest/demo/ev"
  echo " $(cat "$tmp/resp" 2>/dev/null)"
}
start_server

# ---- formats
printf '{"id":1,"name":"a","v":1.5,"d":"2024-01-01"}\n{"id":2,"name":"b"}\n' >"$tmp/b1.ndjson"
out=$(post application/x-ndjson "$tmp/b1.ndjson" -H "Idempotency-Key: k1")
expect "ndjson 200" "${out%% *}" 200
grep -q '"rows": *2' <<< "$out" && grep -q '"duplicate": *false' <<< "$out" &&
  grep -q '"snapshot_id": *[0-9]' <<< "$out" && ok "ndjson response" || fail "ndjson response: $out"
printf '[{"id":3,"v":"2.5"},{"id":4,"name":"d","d":"2024-02-03"}]' >"$tmp/b2.json"
out=$(post application/json "$tmp/b2.json")
expect "json array 200" "${out%% *}" 200
printf 'name,id,v\ne,5,5.25\nf,6,\n' >"$tmp/b3.csv"
out=$(post "text/csv; charset=utf-8" "$tmp/b3.csv" -H "Producer-Id: p1" -H "Producer-Seq: 1")
expect "csv 200" "${out%% *}" 200
expect "rows after 3 formats" "$(q "SELECT count(*), sum(id), sum(v) FROM demo.ev")" "6,21,9.25"
expect "coerced values" "$(q "SELECT name, d FROM demo.ev WHERE id = 4")" "d,2024-02-03"

# ---- retries: same key / same or older sequence -> duplicate, nothing written
out=$(post application/x-ndjson "$tmp/b1.ndjson" -H "Idempotency-Key: k1")
expect "retry key 200" "${out%% *}" 200
grep -q '"duplicate": *true' <<< "$out" && grep -q '"rows": *2' <<< "$out" &&
  ok "retry key is a duplicate" || fail "retry key: $out"
out=$(post text/csv "$tmp/b3.csv" -H "Producer-Id: p1" -H "Producer-Seq: 1")
grep -q '"duplicate": *true' <<< "$out" && ok "retry seq is a duplicate" || fail "retry seq: $out"
out=$(post application/x-ndjson "$tmp/b1.ndjson" -H "Idempotency-Key: k1" -H "Authorization: Bearer $tok")
expect "no duplicate rows" "$(q "SELECT count(*), count(DISTINCT id) FROM demo.ev")" "6,6"

# ---- errors: nothing committed
snap0=$(q "SELECT count(*) FROM demo.ev")
printf '{"id":7}\n{"id":"x8"}\n' >"$tmp/bad.ndjson"
out=$(post application/x-ndjson "$tmp/bad.ndjson" -H "Idempotency-Key: bad1")
expect "bad record 400" "${out%% *}" 400
grep -q 'line 2' <<< "$out" && grep -q 'id' <<< "$out" && ok "400 names line and column" ||
  fail "400 message: $out"
printf '[{"id":9},{"name":"no id"}]' >"$tmp/bad.json"
out=$(post application/json "$tmp/bad.json")
expect "missing required column 400" "${out%% *}" 400
grep -q "records 1-2: required column 'id'" <<< "$out" && ok "400 names the records and column" ||
  fail "400 message: $out"
printf 'id,zzz\n1,2\n' >"$tmp/bad.csv"
out=$(post text/csv "$tmp/bad.csv")
expect "unknown column 400" "${out%% *}" 400
expect "nothing committed by bad bodies" "$(q "SELECT count(*) FROM demo.ev")" "$snap0"
out=$(post application/x-ndjson "$tmp/bad.ndjson" -H "Idempotency-Key: bad1")
expect "a failed key is not remembered (400 again)" "${out%% *}" 400
out=$(TOKEN=$rtok post application/x-ndjson "$tmp/b1.ndjson")
expect "reader without WRITE 403" "${out%% *}" 403
out=$(TOKEN=nope post application/x-ndjson "$tmp/b1.ndjson")
expect "bad token 401" "${out%% *}" 401
out=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $tok" \
  -H "Content-Type: application/x-ndjson" --data-binary "@$tmp/b1.ndjson" "$url/v1/ingest/demo/nope")
expect "unknown table 404" "$out" 404
out=$(post text/plain "$tmp/b1.ndjson")
expect "unknown content type 415" "${out%% *}" 415
out=$(post application/x-ndjson "$tmp/b1.ndjson" -H "Producer-Id: p1")
expect "Producer-Id without Producer-Seq 400" "${out%% *}" 400
python3 -c 'import sys
for i in range(5000): print("{\"id\": %d, \"name\": \"%s\"}" % (100000 + i, "x" * 20))' >"$tmp/big.ndjson"
out=$(post application/x-ndjson "$tmp/big.ndjson")
expect "body over max-body-bytes 413" "${out%% *}" 413
expect "nothing committed by refused requests" "$(q "SELECT count(*) FROM demo.ev")" "$snap0"

# ---- schema evolution under the server's open sink: the new column is accepted at once
"$FLOE_BIN" sql -q -c "ALTER TABLE demo.ev ADD COLUMN extra int" >/dev/null || fail "alter table"
printf '{"id": 900, "extra": 5}\n' >"$tmp/evo.ndjson"
out=$(post application/x-ndjson "$tmp/evo.ndjson")
expect "new column after ALTER TABLE 200" "${out%% *}" 200
expect "new column's value" "$(q "SELECT extra FROM demo.ev WHERE id = 900")" 5

# ---- concurrent requests to one table: serialized (or refused with 429 + Retry-After, then
# retried); every batch lands once
for ((c = 1; c <= 24; c++)); do
  for ((j = 1; j <= 50; j++)); do echo "{\"id\": $((500000 + 100 * c + j)), \"name\": \"c$c\"}"; done >"$tmp/c$c.ndjson"
done
conc_one() {
  local c=$1 n st
  for ((n = 0; n < 100; n++)); do
    st=$(curl -s -o "$tmp/cresp$c" -D "$tmp/chdr$c" -w '%{http_code}' -X POST \
      -H "Authorization: Bearer $tok" -H "Content-Type: application/x-ndjson" \
      -H "Idempotency-Key: conc-$c" --data-binary "@$tmp/c$c.ndjson" "$url/v1/ingest/demo/ev")
    [ "$st" = 200 ] && return 0
    if [ "$st" = 429 ]; then
      grep -qi '^Retry-After: 1' "$tmp/chdr$c" || { echo "429 without Retry-After" >"$tmp/cfail$c"; return 1; }
      echo >>"$tmp/c429"
      sleep 0.2
      continue
    fi
    echo "status $st: $(cat "$tmp/cresp$c")" >"$tmp/cfail$c"
    return 1
  done
  echo "never accepted" >"$tmp/cfail$c"
}
cpids=()
for ((c = 1; c <= 24; c++)); do conc_one "$c" & cpids+=($!); done
for p in "${cpids[@]}"; do wait "$p"; done
if ls "$tmp"/cfail* >/dev/null 2>&1; then fail "concurrent requests: $(cat "$tmp"/cfail* | head -3)"; else ok "24 concurrent requests accepted"; fi
echo "429 answers (then retried): $(cat "$tmp/c429" 2>/dev/null | wc -l)"
expect "concurrent batches once each" \
  "$(q "SELECT count(*), count(DISTINCT id), count(DISTINCT name) FROM demo.ev WHERE id >= 500000")" "1200,1200,24"

# ---- SIGKILL: a stream of batches, each sent with a key or a producer sequence; the server is
# killed at random points; after every kill all batches so far are retried. Each batch's rows
# must be in the table exactly once.
N=60
for ((i = 1; i <= N; i++)); do
  for ((j = 1; j <= 5; j++)); do echo "{\"id\": $((1000 * i + j)), \"name\": \"b$i\"}"; done >"$tmp/s$i.ndjson"
done
send() { # batch index: even batches by key, odd ones by producer sequence
  local i=$1
  if ((i % 2 == 0)); then
    post application/x-ndjson "$tmp/s$i.ndjson" -H "Idempotency-Key: batch-$i" --max-time 20
  else
    post application/x-ndjson "$tmp/s$i.ndjson" -H "Producer-Id: killer" -H "Producer-Seq: $i" --max-time 20
  fi
}
kills=0 dups=0
for ((i = 1; i <= N; i++)); do
  send "$i" >"$tmp/last" &
  sp=$!
  if ((RANDOM % 4 == 0)); then
    sleep "0.0$((RANDOM % 10))"
    kill -9 "$pid" 2>/dev/null && kills=$((kills + 1))
    wait "$pid" 2>/dev/null
    wait "$sp" 2>/dev/null
    start_server
    for ((k = 1; k <= i; k++)); do # retry everything, ignoring what was answered
      out=$(send "$k")
      [ "${out%% *}" = 200 ] || fail "retry of batch $k after a kill: $out"
      grep -q '"duplicate": *true' <<< "$out" && dups=$((dups + 1))
    done
  else
    wait "$sp"
    out=$(cat "$tmp/last")
    [ "${out%% *}" = 200 ] || fail "batch $i: $out"
  fi
done
# Producer-Seq below the committed one: a duplicate (the sequence only increases)
out=$(post application/x-ndjson "$tmp/s1.ndjson" -H "Producer-Id: killer" -H "Producer-Seq: 1")
grep -q '"duplicate": *true' <<< "$out" && ok "older Producer-Seq is a duplicate" || fail "old seq: $out"
echo "kills: $kills, duplicates recognised on retry: $dups"
((kills > 0)) && ok "server killed $kills times" || fail "the server was never killed"
expect "every batch exactly once" \
  "$(q "SELECT count(*), count(DISTINCT id), count(DISTINCT name) FROM demo.ev WHERE id BETWEEN 1000 AND 499999")" \
  "$((N * 5)),$((N * 5)),$N"
expect "no batch twice" \
  "$(q "SELECT count(*) FROM (SELECT name FROM demo.ev WHERE id BETWEEN 1000 AND 499999 GROUP BY name HAVING count(*) <> 5) x")" 0

# the retry state is in the table: the pipeline "http"'s committed positions
st=$("$FLOE_BIN" ingest status --into demo.ev --pipeline http --positions 2>&1)
grep -q "http:producer:ing_admin/killer = $((N % 2 ? N : N - 1)) 5" <<< "$st" &&
  grep -q "ing_admin.batch-$((N % 2 ? N - 1 : N))\$" <<< "$st" &&
  ok "ingest status shows the producer sequence and keys" || fail "ingest status: $st"

kill -TERM "$pid" 2>/dev/null
wait "$pid"
expect "SIGTERM exits 0" "$?" 0
pid=""
grep -q "Sanitizer\|runtime error" "$tmp/serve.log" && fail "sanitizer report in the server log"
if ((fails)); then
  echo "--- server log (tail)"
  tail -20 "$tmp/serve.log"
  echo "$fails failure(s)"
  exit 1
fi
echo "all passed"
