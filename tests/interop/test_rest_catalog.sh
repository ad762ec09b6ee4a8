#!/usr/bin/env bash
# floe serve end to end: starts the REST catalog on a free port with a temp warehouse
# (SQLite catalog, OAuth2: an admin principal made with `floe admin bootstrap`), then
#  (0) auth basics: no token -> 401, a principal with only read gets 403 on a commit;
#  (a) the oracle's iceberg-js smoke test (18 steps) must pass;
#  (b) rest-conformance.mjs (validates every response against the OpenAPI spec) must report
#      0 failures; skips allowed are those its README explains (auth without --client-id,
#      endpoints the server does not advertise);
#  (c) round trips: a table written by the floe CLI into the same catalog is loaded over REST
#      and read by icebird from the metadata location REST returned; a table created over REST
#      is appended to by the CLI and its rows read back with `floe table cat`;
#  (d) ETag / If-None-Match -> 304; gzip when asked; /healthz, /readyz, /metrics;
#  (e) SIGTERM stops the server cleanly (exit 0).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
if [ ! -d "$here/node_modules/iceberg-js" ] || [ ! -d "$here/node_modules/ajv" ]; then
  echo "skip: node_modules missing in $here (run: npm ci there)"; exit 77
fi
spec="${FLOE_SHARED:-$here/../../../shared}/reference/rest-catalog-open-api.yaml"
if [ ! -f "$spec" ]; then echo "skip: $spec missing"; exit 77; fi
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-rest.XXXXXX")"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
[ -n "${KEEP_LOG:-}" ] && trap 'cp "$tmp/server.log" "$KEEP_LOG"; cleanup' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }

wh="$tmp/wh"; mkdir -p "$wh"
export FLOE_CATALOG="sqlite:$wh/catalog.db" FLOE_WAREHOUSE="$wh"
creds="$("$FLOE_BIN" admin bootstrap --name root 2>/dev/null)"
secret="$(echo "$creds" | awk '/client_secret:/ {print $2}')"
[ -n "$secret" ] || { echo "FAIL: floe admin bootstrap: $creds"; exit 1; }
"$FLOE_BIN" serve --port 0 --ready-file "$tmp/ready" --audit-log "$tmp/audit.log" 2>"$tmp/server.log" &
pid=$!
for _ in $(seq 1 200); do [ -s "$tmp/ready" ] && break; sleep 0.05; done
[ -s "$tmp/ready" ] || { cat "$tmp/server.log"; echo "FAIL: server did not start"; exit 1; }
url="http://$(cat "$tmp/ready")"
ok "server ready at $url"
tok="$(curl -s -XPOST "$url/v1/oauth/tokens" -d "grant_type=client_credentials&client_id=root&client_secret=$secret" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).access_token||""))')"
[ -n "$tok" ] && ok "OAuth2 client_credentials token" || fail "no token"
curl() { command curl -H "Authorization: Bearer $tok" "$@"; }

# (0) auth basics
c="$(command curl -s -o /dev/null -w '%{http_code}' "$url/v1/namespaces")"
[ "$c" = "401" ] && ok "no token -> 401" || fail "no token -> $c"
curl -s -XPOST "$url/v1/namespaces" -d '{"namespace":["sec"]}' >/dev/null
curl -s -XPOST "$url/v1/namespaces/sec/tables" -d '{"name":"t","schema":{"type":"struct","fields":[{"id":1,"name":"x","type":"long","required":false}]}}' >/dev/null
rsecret="$("$FLOE_BIN" admin principal create reader 2>/dev/null | awk '/client_secret:/ {print $2}')"
"$FLOE_BIN" admin role create readers >/dev/null 2>&1
"$FLOE_BIN" admin role assign reader readers >/dev/null 2>&1
"$FLOE_BIN" admin grant readers read namespace sec >/dev/null 2>&1
rtok="$(command curl -s -XPOST "$url/v1/oauth/tokens" -d "grant_type=client_credentials&client_id=reader&client_secret=$rsecret" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).access_token||""))')"
c1="$(command curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $rtok" "$url/v1/namespaces/sec/tables/t")"
c2="$(command curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $rtok" -XPOST "$url/v1/namespaces/sec/tables/t" -d '{"requirements":[],"updates":[{"action":"set-properties","updates":{"a":"b"}}]}')"
[ "$c1" = "200" ] && [ "$c2" = "403" ] && ok "read-only principal: load 200, commit 403" || fail "reader: load $c1 commit $c2"
grep -q '"outcome":"denied"' "$tmp/audit.log" && ok "denied commit is in the audit log" || fail "audit log lacks the denial"

# (a) iceberg-js smoke
out="$(node "$here/oracle/iceberg-rest.mjs" --url="$url" --token="$tok" smoke 2>&1 | tail -1)"
[ "$out" = "18 passed, 0 failed" ] && ok "iceberg-js smoke: $out" || fail "iceberg-js smoke: $out"

# (b) conformance
node "$here/oracle/rest-conformance.mjs" --url="$url" --spec="$spec" --client-id=root --client-secret="$secret" >"$tmp/conf.txt" 2>&1
last="$(tail -1 "$tmp/conf.txt")"
if grep -q '^FAIL' "$tmp/conf.txt"; then grep '^FAIL' "$tmp/conf.txt"; fail "conformance: $last"
else ok "conformance: $last"; fi
skips="$(grep -c '^SKIP' "$tmp/conf.txt")"
[ "$skips" = "0" ] && ok "conformance: no skips" || fail "conformance skips: $(grep '^SKIP' "$tmp/conf.txt")"

# (c) round trips with the CLI on the same catalog
printf 'id,name\n1,a\n2,b\n3,c\n' > "$tmp/in.csv"
"$FLOE_BIN" load "$tmp/in.csv" rt.cli_table >/dev/null 2>"$tmp/load.err" || fail "floe load: $(cat "$tmp/load.err")"
loc="$(curl -s "$url/v1/namespaces/rt/tables/cli_table" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log(j["metadata-location"]+" "+(j.metadata.snapshots||[]).length)})')"
[ "${loc#* }" = "1" ] && ok "REST sees the CLI's table with 1 snapshot" || fail "REST load of CLI table: $loc"
rows="$(node "$here/oracle/iceberg-read.mjs" "${loc% *}" --rows=all 2>&1 | grep -c '"name"' || true)"
[ "$rows" -ge 3 ] && ok "icebird reads the table REST returned ($rows name values)" || fail "icebird: $rows"
curl -s -XPOST "$url/v1/namespaces/rt/tables" -d '{"name":"rest_table","schema":{"type":"struct","fields":[{"id":1,"name":"id","type":"long","required":false},{"id":2,"name":"name","type":"string","required":false}]}}' >/dev/null
"$FLOE_BIN" load "$tmp/in.csv" rt.rest_table >/dev/null 2>"$tmp/load2.err" || fail "floe load into REST-created table: $(cat "$tmp/load2.err")"
n="$("$FLOE_BIN" table cat rt.rest_table --format csv 2>&1 | tail -n +2 | wc -l | tr -d ' ')"
[ "$n" = "3" ] && ok "CLI appends to a REST-created table and reads 3 rows" || fail "CLI rows: $n"
snaps="$(curl -s "$url/v1/namespaces/rt/tables/rest_table?snapshots=refs" | grep -o '"snapshot-id"' | wc -l)"
[ "$snaps" -ge 1 ] && ok "REST shows the CLI's snapshot" || fail "REST snapshots: $snaps"

# (d) ETag, gzip, ops endpoints
etag="$(curl -si "$url/v1/namespaces/rt/tables/rest_table" | tr -d '\r' | awk -F': ' 'tolower($1)=="etag"{print $2}')"
code="$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$url/v1/namespaces/rt/tables/rest_table")"
[ -n "$etag" ] && [ "$code" = "304" ] && ok "If-None-Match -> 304" || fail "etag '$etag' -> $code"
enc="$(curl -s -o /dev/null -D - -H 'Accept-Encoding: gzip' "$url/v1/namespaces/rt/tables/rest_table" | tr -d '\r' | awk -F': ' 'tolower($1)=="content-encoding"{print $2}')"
[ "$enc" = "gzip" ] && ok "gzip response" || fail "content-encoding '$enc'"
for p in healthz readyz; do
  c="$(command curl -s -o /dev/null -w '%{http_code}' "$url/$p")"; [ "$c" = "200" ] && ok "/$p 200" || fail "/$p $c"
done
command curl -s "$url/metrics" | grep '^floe_commits_total [1-9]' >/dev/null && ok "/metrics counts commits" || fail "/metrics"

# (e) graceful stop
kill -TERM "$pid"; wait "$pid"; rc=$?; pid=""
[ "$rc" = "0" ] && ok "SIGTERM: clean exit" || fail "SIGTERM exit $rc"
grep -q '"event":"stopped"' "$tmp/server.log" && ok "server logged a drained stop" || fail "no stop log"

echo "$fails failure(s)"
[ "$fails" = 0 ]
