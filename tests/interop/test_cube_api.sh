#!/usr/bin/env bash
# Cube's REST API on `floe serve --models` (src/server/h_cube.c, docs/semantic.md "Cube's REST API") against Cube's
# official JavaScript client, @cubejs-client/core (pinned in cube-client/package-lock.json): cube-check.mjs over
# the semantic tests' world (mcp-metrics-world.sh: principals analyst, c8_only with a row filter, nobody). The seed
# scenario, net revenue by month for 2024 in region EU, must equal `floe semantic query` for the analyst and the
# row-filtered SQL for c8_only. curl checks Cube's GET form, the bare-token header and the error bodies.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
floe=$FLOE_BIN
if [ ! -d "$here/cube-client/node_modules/@cubejs-client/core" ]; then
  echo "skip: cube-client/node_modules missing (scripts/install-deps.sh)"; exit 77
fi
. "$here/mcp-metrics-world.sh"
[ "$(wc -l <<<"$sem")" -ge 6 ] || fail "floe semantic query returned too few months: $sem"
analyst=$(tok analyst); c8=$(tok c8_only); nobody=$(tok nobody)
node "$here/cube-check.mjs" "$http" "$analyst" "$c8" "$nobody" "$sem" "$sql_c8" || fail "cube-check.mjs"

# GET with ?query= and a bare token (Cube's own clients send no "Bearer")
q='{"measures":["metrics.net_revenue"],"dimensions":["metrics.customer__region"],"order":{"metrics.customer__region":"asc"}}'
out=$(curl -fsS -G "$http/cubejs-api/v1/load" -H "Authorization: $analyst" --data-urlencode "query=$q")
grep -q '"metrics.customer__region":"APAC"' <<<"$out" || fail "GET load: $out"
code=$(curl -s -o "$tmp/err.json" -w '%{http_code}' -G "$http/cubejs-api/v1/load" --data-urlencode "query=$q")
[ "$code" = 401 ] && grep -q '"error"' "$tmp/err.json" || fail "no token: $code $(cat "$tmp/err.json")"
code=$(curl -s -o "$tmp/err.json" -w '%{http_code}' -X POST "$http/cubejs-api/v1/load" -H "Authorization: $analyst" \
  -H 'Content-Type: application/json' --data '{"query": {"measures": ["metrics.net_revenue"], "limit": 0}}')
[ "$code" = 400 ] && grep -q 'limit' "$tmp/err.json" || fail "limit 0: $code $(cat "$tmp/err.json")"
code=$(curl -s -o "$tmp/err.json" -w '%{http_code}' -X POST "$http/cubejs-api/v1/load" -H "Authorization: $nobody" \
  -H 'Content-Type: application/json' --data '{"query": {"measures": ["metrics.net_revenue"]}}')
[ "$code" = 403 ] || fail "nobody: $code $(cat "$tmp/err.json")"
code=$(curl -s -o "$tmp/err.json" -w '%{http_code}' -X POST "$http/cubejs-api/v1/load" -H "Authorization: $analyst" \
  -H 'Content-Type: application/json' --data '{"query": [{"measures": ["metrics.net_revenue"]}]}')
[ "$code" = 400 ] && grep -q 'blending' "$tmp/err.json" || fail "array of queries: $code $(cat "$tmp/err.json")"
code=$(curl -s -o "$tmp/err.json" -w '%{http_code}' -G "$http/cubejs-api/v1/load" -H "Authorization: $analyst" \
  --data-urlencode 'query={"measures":["metrics.net_revenue"],"timezone":"Mars/Olympus"}')
[ "$code" = 400 ] && grep -q 'Mars/Olympus' "$tmp/err.json" || fail "unknown timezone: $code $(cat "$tmp/err.json")"
out=$(curl -fsS -G "$http/cubejs-api/v1/load" -H "Authorization: $analyst" \
  --data-urlencode 'query={"measures":["metrics.net_revenue"],"timezone":"Europe/Paris","timeDimensions":[{"dimension":"metrics.metric_time","granularity":"year"}]}')
grep -q '"timezone":"Europe/Paris"' <<<"$out" && grep -q '"metrics.metric_time.year":"2024-01-01T00:00:00.000"' <<<"$out" ||
  fail "timezone Europe/Paris: $out"
[ $rc -eq 0 ] && echo "cube api: Cube's client and floe agree"
exit $rc
