#!/usr/bin/env bash
# test_console.sh - the web console (docs/console.md) served by `floe serve` with authentication:
# from curl, the static routes' headers (strict Content-Security-Policy, nosniff, ETag and 304,
# Content-Type), 404 for unknown files and for path traversal, the redirects, the asset budget; then
# console-check.mjs drives Debian's chromium through playwright-core over the semantic tests' data
# (semantic/seed.sh) plus a second snapshot of default.orders: log in, catalog, snapshots and time
# travel (counts against `floe table count --snapshot`), the SQL editor, files, the metrics explorer
# (net_revenue by month against query_metrics called from Node and hand-written SQL), keyboard use,
# a principal without grants (403, no data), rollback refused without WRITE and done with it.
# Screenshots: $FLOE_CONSOLE_SHOTS if set, else the test's temp dir. Without chromium or the npm
# packages the curl checks still run, then the test skips (77).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
floe=$FLOE_BIN
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-console.XXXXXX")"
pid=
npid=
cleanup() {
  for p in $pid $npid; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
rc=0
fail() { echo "FAIL: $*"; rc=1; }
cat="sqlite:$tmp/cat.db"
wh="$tmp/wh"
fsql() { "$floe" sql --catalog="$cat" --warehouse="$wh" -q "$@"; }
. "$src/tests/interop/semantic/seed.sh"
# a second snapshot of orders: 50 more orders, ids above the first 600
fsql -c "INSERT INTO orders SELECT i, 1 + (i * 7) % 40, DATE '2024-01-01' + (i * 13) % 210, 'placed', CAST(10 + i % 90 AS decimal(10,2)), CAST(0 AS decimal(10,2)), CAST(0 AS decimal(10,2)) FROM generate_series(601, 650) AS g(i)"
# a partitioned, sorted table with nested columns for the catalog page
fsql -c "CREATE TABLE events (id bigint, ts timestamp, tags ROW(a varchar, b int), labels varchar[]) WITH (partitioning = ARRAY['day(ts)', 'bucket(4, id)'], sorted_by = ARRAY['id'])"
# a files pipeline for the pipelines page: two commits (3 rows, then 2), one file dead-lettered
fsql -c "CREATE TABLE clicks (id bigint, page varchar)"
mkdir -p "$tmp/landing"
printf '{"id":1,"page":"a"}\n{"id":2,"page":"b"}\n{"id":3,"page":"c"}\n' >"$tmp/landing/1.jsonl"
"$floe" ingest files "$tmp/landing" --into default.clicks --catalog="$cat" --warehouse="$wh" --once \
  >/dev/null 2>&1 || { echo "FAIL: ingest 1"; exit 1; }
printf '{"id":4,"page":"d"}\n{"id":5,"page":"e"}\n' >"$tmp/landing/2.jsonl"
printf '{"id":"x","page":"f"}\n' >"$tmp/landing/3.jsonl"
"$floe" ingest files "$tmp/landing" --into default.clicks --catalog="$cat" --warehouse="$wh" --once \
  >/dev/null 2>&1 || { echo "FAIL: ingest 2"; exit 1; }
snaps=$("$floe" table snapshots --catalog="$cat" --warehouse="$wh" default.orders --format csv | tail -n +2 | cut -d, -f2)
old=$(sed -n 1p <<<"$snaps")
new=$(sed -n 2p <<<"$snaps")
[[ "$old" =~ ^-?[0-9]+$ && "$new" =~ ^-?[0-9]+$ ]] || { echo "FAIL: snapshot ids: $snaps"; exit 1; }
old_count=$("$floe" table count --catalog="$cat" --warehouse="$wh" default.orders --snapshot "$old")
new_count=$("$floe" table count --catalog="$cat" --warehouse="$wh" default.orders)
[ "$old_count" = 600 ] && [ "$new_count" = 650 ] || { echo "FAIL: counts $old_count $new_count"; exit 1; }
files=$("$floe" sql --catalog="$cat" --warehouse="$wh" --format=csv --no-header -c 'SELECT count(*) FROM "default"."orders$files" WHERE content = 0')
want=$("$floe" sql --catalog="$cat" --warehouse="$wh" --format=csv --no-header -c "SELECT CAST(date_trunc('month', order_date) AS date),
  sum(gross_amount - discount_applied - return_amount) FROM orders GROUP BY 1 ORDER BY 1")
[ "$(wc -l <<<"$want")" -ge 6 ] || { echo "FAIL: hand-written net revenue: $want"; exit 1; }

# principals: analyst reads default, editor reads and writes it, nobody has no grants
adm() { "$floe" admin --catalog "$cat" "$@"; }
secret() { adm principal create "$1" 2>/dev/null | sed -n 's/^client_secret: //p'; }
analyst=$(secret analyst); editor=$(secret editor); nobody=$(secret nobody)
adm role create readers >/dev/null; adm role create editors >/dev/null
adm role assign analyst readers >/dev/null; adm role assign editor editors >/dev/null
adm grant readers read namespace default >/dev/null
adm grant editors read,write namespace default >/dev/null


"$floe" serve --port 0 --catalog "$cat" --warehouse "$wh" --models "$src/tests/semantic/models" \
  --ready-file "$tmp/ready" >"$tmp/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do [ -s "$tmp/ready" ] && break; sleep 0.05; done
if [ ! -s "$tmp/ready" ]; then echo "FAIL: floe serve did not start:"; tail -20 "$tmp/serve.log"; exit 1; fi
url="http://$(sed -n 1p "$tmp/ready")"
grep -q "\"console\":\"$url/console/\"" "$tmp/serve.log" || fail "the listening line does not name the console URL"

# ---- static routes from curl ----
hdr() { curl -s -D - -o /dev/null "$@"; }
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
h=$(hdr "$url/console/")
grep -qi "^content-security-policy: .*script-src 'self'" <<<"$h" || fail "no strict CSP on /console/: $h"
grep -qi "^content-security-policy: .*default-src 'none'" <<<"$h" || fail "CSP default-src"
grep -qi "^content-security-policy: .*frame-ancestors 'none'" <<<"$h" || fail "CSP frame-ancestors"
grep -qi '^x-content-type-options: nosniff' <<<"$h" || fail "no nosniff"
grep -qi '^content-type: text/html; charset=utf-8' <<<"$h" || fail "index content type"
grep -qi '^cache-control: no-cache' <<<"$h" || fail "cache-control"
h=$(hdr "$url/console/app.js")
grep -qi '^content-type: text/javascript' <<<"$h" || fail "app.js content type: $h"
grep -qi "^content-security-policy: .*script-src 'self'" <<<"$h" || fail "no CSP on app.js"
etag=$(sed -n 's/^[Ee][Tt][Aa][Gg]: //p' <<<"$h" | tr -d '\r')
[ -n "$etag" ] || fail "no ETag on app.js"
[ "$(code -H "If-None-Match: $etag" "$url/console/app.js")" = 304 ] || fail "If-None-Match is not 304"
[ "$(code "$url/console/style.css")" = 200 ] || fail "style.css"
grep -qi '^content-type: text/css' <<<"$(hdr "$url/console/style.css")" || fail "css content type"
[ "$(code "$url/console/nope.js")" = 404 ] || fail "unknown asset is not 404"
for p in "/console/../x" "/console/../../etc/passwd" "/console/..%2f..%2fetc%2fpasswd" "/console/%2e%2e/x" "/console/./app.js/../x" "/console/sub/app.js"; do
  c=$(code --path-as-is "$url$p")
  [ "$c" = 404 ] || fail "path traversal $p answered $c"
done
body=$(curl -s --path-as-is "$url/console/../../etc/passwd")
if grep -q 'root:' <<<"$body"; then fail "path traversal served /etc/passwd"; fi
h=$(hdr "$url/")
grep -q '^HTTP/1.1 302' <<<"$h" && grep -qi '^location: /console/' <<<"$h" || fail "GET / does not redirect to /console/: $h"
h=$(hdr "$url/console")
grep -q '^HTTP/1.1 301' <<<"$h" && grep -qi '^location: /console/' <<<"$h" || fail "GET /console does not redirect: $h"
[ "$(code "$url/v1/namespaces")" = 401 ] || fail "the data APIs must still need a token"
[ "$(code -X POST --data 'SELECT 1' "$url/v1/sql")" = 401 ] || fail "/v1/sql without a token"
size=$(cat "$src"/console/* | wc -c)
[ "$size" -lt 153600 ] || fail "console assets are $size bytes (budget 150 KB)"
[ $rc = 0 ] && echo "ok   static routes: CSP, nosniff, ETag/304, types, 404s, traversal refused, redirects, $size bytes of assets"

# ---- the browser (the checks above run without it) ----
skip() { echo "SKIP: $*"; if [ $rc = 0 ]; then exit 77; fi; exit 1; } # a failure above still fails
chromium="${FLOE_CHROMIUM:-/usr/bin/chromium}" # Debian's; another build for a try: FLOE_CHROMIUM=PATH
[ -x "$chromium" ] || skip "$chromium missing (apt-get install chromium, or make deps)"
for m in playwright-core @modelcontextprotocol/sdk lossless-json; do
  [ -d "$here/node_modules/$m" ] || skip "$m missing in $here/node_modules (make deps, or npm ci there)"
done
# a second server on the same catalog without authentication: the console skips its login page

"$floe" serve --port 0 --catalog "$cat" --warehouse "$wh" --insecure-no-auth --ready-file "$tmp/ready2" \
  >"$tmp/serve-noauth.log" 2>&1 &
npid=$!
for _ in $(seq 1 200); do [ -s "$tmp/ready2" ] && break; sleep 0.05; done
[ -s "$tmp/ready2" ] || { echo "FAIL: floe serve --insecure-no-auth did not start:"; tail -20 "$tmp/serve-noauth.log"; exit 1; }
nurl="http://$(sed -n 1p "$tmp/ready2")"
shots="${FLOE_CONSOLE_SHOTS:-$tmp/shots}"
mkdir -p "$shots"
node "$here/console-check.mjs" --url="$url" --shots="$shots" --chromium="$chromium" \
  --analyst_id=analyst --analyst_secret="$analyst" --editor_id=editor --editor_secret="$editor" \
  --nobody_id=nobody --nobody_secret="$nobody" --old_snapshot="$old" --new_snapshot="$new" \
  --old_count="$old_count" --new_count="$new_count" --files="$files" --want="$want" --noauth_url="$nurl" || rc=1
kill -TERM "$npid"; wait "$npid" || fail "floe serve --insecure-no-auth did not exit 0"
npid=
# the server drains and exits 0 on SIGTERM after all that; no sanitizer report in its log
kill -TERM "$pid"
src_rc=0
wait "$pid" || src_rc=$?
pid=
[ "$src_rc" = 0 ] || fail "floe serve exited $src_rc after SIGTERM"
if grep -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$tmp/serve.log" >/dev/null; then fail "sanitizer report in the server log"; rc=1; fi
n=$(find "$shots" -name '*.png' | wc -l)
[ "$n" -ge 10 ] || fail "only $n screenshots in $shots"
echo "screenshots: $n in $shots"
if [ $rc != 0 ]; then echo "--- server log (tail)"; tail -40 "$tmp/serve.log"; fi
exit $rc
