#!/usr/bin/env bash
# floe serve end to end: starts the REST catalog on a free port with a temp warehouse
# (SQLite catalog, --insecure-no-auth: the auth helper's tests cover tokens and grants), then
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
"$FLOE_BIN" serve --insecure-no-auth --port 0 --ready-file "$tmp/ready" 2>"$tmp/server.log" &
pid=$!
for _ in $(seq 1 200); do [ -s "$tmp/ready" ] && break; sleep 0.05; done
[ -s "$tmp/ready" ] || { cat "$tmp/server.log"; echo "FAIL: server did not start"; exit 1; }
url="http://$(cat "$tmp/ready")"
ok "server ready at $url"

# (a) iceberg-js smoke
out="$(node "$here/oracle/iceberg-rest.mjs" --url="$url" smoke 2>&1 | tail -1)"
[ "$out" = "18 passed, 0 failed" ] && ok "iceberg-js smoke: $out" || fail "iceberg-js smoke: $out"

# (b) conformance
node "$here/oracle/rest-conformance.mjs" --url="$url" --spec="$spec" >"$tmp/conf.txt" 2>&1
last="$(tail -1 "$tmp/conf.txt")"
if grep -q '^FAIL' "$tmp/conf.txt"; then grep '^FAIL' "$tmp/conf.txt"; fail "conformance: $last"
else ok "conformance: $last"; fi
bad_skips="$(grep '^SKIP' "$tmp/conf.txt" | grep -v 'no --client-id given' | grep -v 'endpoint not advertised' || true)"
[ -z "$bad_skips" ] && ok "conformance skips are only auth-without-client-id / unadvertised" || fail "unexpected skips: $bad_skips"

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
  c="$(curl -s -o /dev/null -w '%{http_code}' "$url/$p")"; [ "$c" = "200" ] && ok "/$p 200" || fail "/$p $c"
done
curl -s "$url/metrics" | grep -q '^floe_commits_total [1-9]' && ok "/metrics counts commits" || fail "/metrics"

# (e) graceful stop
kill -TERM "$pid"; wait "$pid"; rc=$?; pid=""
[ "$rc" = "0" ] && ok "SIGTERM: clean exit" || fail "SIGTERM exit $rc"
grep -q '"event":"stopped"' "$tmp/server.log" && ok "server logged a drained stop" || fail "no stop log"

echo "$fails failure(s)"
[ "$fails" = 0 ]
