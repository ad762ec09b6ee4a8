#!/usr/bin/env bash
# floe's MCP server (docs/mcp.md) against the official clients: the TypeScript SDK over stdio (`floe mcp`) and
# Streamable HTTP (`floe serve`, bearer tokens) in mcp-sdk.mjs — every tool listed and called, structuredContent
# validated against outputSchema with ajv, the resource_link read back, three principals with different grants,
# 401 + WWW-Authenticate without a valid token — and the MCP Inspector CLI over both transports.
# Skips (77) without the npm packages.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
floe=$FLOE_BIN
if [ ! -d "$here/node_modules/@modelcontextprotocol/sdk" ]; then
  echo "skip: node_modules missing in $here (run: make deps, or npm ci there)"; exit 77
fi
. "$here/mcp-world.sh"

rc=0
node "$here/mcp-sdk.mjs" --floe="$floe" --catalog="$cat" --warehouse="$wh" --http="$http" \
  --analyst="$analyst" --de_only="$de_only" --nobody="$nobody" --expired="$expired" || rc=1

# The MCP Inspector CLI, over stdio and over HTTP.
insp() { node "$here/mcp-inspector.mjs" "$@"; }
fail() { echo "FAIL: $*"; rc=1; }
out=$(insp "$floe" mcp --catalog="$cat" --warehouse="$wh" --method tools/list) || fail "inspector stdio tools/list"
for t in list_tables describe_table table_history run_sql estimate_cost; do
  grep -q "\"name\": \"$t\"" <<<"$out" || fail "inspector stdio: tools/list lacks $t"
done
out=$(insp "$floe" mcp --catalog="$cat" --warehouse="$wh" --method tools/call --tool-name run_sql \
  --tool-arg "sql=SELECT sum(amount) AS total FROM sales.orders") || fail "inspector stdio run_sql"
grep -q '41.75' <<<"$out" || fail "inspector stdio: run_sql total is not 41.75: $out"
out=$(insp "$http/mcp" --transport http --header "Authorization: Bearer $de_only" --method tools/call \
  --tool-name run_sql --tool-arg "sql=SELECT sum(amount) AS total FROM sales.orders") || fail "inspector http run_sql"
grep -q '30.50' <<<"$out" || fail "inspector http: de_only's total is not 30.50: $out"
out=$(insp "$http/mcp" --transport http --header "Authorization: Bearer $analyst" --method tools/call \
  --tool-name describe_table --tool-arg "table=sales.orders") || fail "inspector http describe_table"
grep -q 'row_count' <<<"$out" || fail "inspector http: describe_table has no row_count"
[ $rc = 0 ] && echo "ok   inspector CLI over stdio and HTTP"

# floe serve's MCP policy options: run_sql refused by --mcp-run-sql false, over budget by --mcp-max-scan-bytes.
pid2=
trap 'cleanup; if [ -n "$pid2" ]; then kill "$pid2" 2>/dev/null || true; wait "$pid2" 2>/dev/null || true; fi' EXIT
port2=$((20000 + RANDOM % 20000))
"$floe" serve --port "$port2" --catalog "$cat" --warehouse "$wh" --ready-file "$dir/ready2" \
  --mcp-run-sql false >"$dir/serve2.log" 2>&1 &
pid2=$!
for _ in $(seq 1 200); do [ -s "$dir/ready2" ] && break; sleep 0.05; done
http2="http://$(sed -n 1p "$dir/ready2")"
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}'
sid=$(curl -s -D - -o /dev/null -X POST "$http2/mcp" -H "Authorization: Bearer $analyst" \
  -H 'Content-Type: application/json' --data "$init" | tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p')
out=$(curl -s -X POST "$http2/mcp" -H "Authorization: Bearer $analyst" -H 'Content-Type: application/json' \
  -H "Mcp-Session-Id: $sid" \
  --data '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_sql","arguments":{"sql":"SELECT 1"}}}')
grep -q '"isError":true' <<<"$out" && grep -q 'disabled' <<<"$out" || fail "--mcp-run-sql false: run_sql was not refused: $out"
out=$(curl -s -X POST "$http2/mcp" -H "Authorization: Bearer $analyst" -H 'Content-Type: application/json' \
  -H "Mcp-Session-Id: $sid" \
  --data '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"estimate_cost","arguments":{"table":"sales.orders"}}}')
grep -q '"isError":false' <<<"$out" || fail "--mcp-run-sql false: estimate_cost should still answer: $out"
[ $rc = 0 ] && echo "ok   floe serve --mcp-run-sql false refuses run_sql only"

# RFC 8707 audiences: a token asked for $http/mcp works there only; one for another resource is 401 at /mcp
aud_sec=$("$floe" admin --catalog "$cat" principal create aud_user 2>/dev/null | sed -n 's/^client_secret: *//p')
token_for() { curl -s "$http/v1/oauth/tokens" -d grant_type=client_credentials -d client_id=aud_user \
  --data-urlencode "client_secret=$aud_sec" --data-urlencode "resource=$1"; }
mcp_tok=$(token_for "$http/mcp" | jq -r .access_token)
other_tok=$(token_for "http://elsewhere.example/mcp" | jq -r .access_token)
mcp_code() { curl -s -o /dev/null -D "$dir/ah" -w '%{http_code}' -X POST "$http/mcp" -H "Authorization: Bearer $1" \
  -H 'Content-Type: application/json' --data "$init"; }
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}'
[ "$(mcp_code "$mcp_tok")" = 200 ] || fail "a token for $http/mcp is refused at /mcp"
[ "$(mcp_code "$other_tok")" = 401 ] && grep -qi 'invalid_token' "$dir/ah" || fail "a token for another resource is accepted at /mcp"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $mcp_tok" "$http/v1/config")
[ "$code" = 401 ] || fail "a token bound to /mcp is accepted by the REST catalog ($code)"
out=$(token_for "ftp://x/mcp")
grep -q invalid_target <<<"$out" || fail "a bad resource indicator: $out"
[ $rc = 0 ] && echo "ok   RFC 8707: a token for /mcp works there, one for another resource is 401, /mcp's is 401 at the catalog"

# the stateless revision 2026-07-28 over HTTP: no initialize, no session; headers must match the body
meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}'
modern() { # expected-status mcp-method mcp-name body
  curl -s -D "$dir/mh" -o "$dir/mb" -w '%{http_code}' -X POST "$http2/mcp" -H "Authorization: Bearer $analyst" \
    -H 'Content-Type: application/json' -H 'MCP-Protocol-Version: 2026-07-28' -H "Mcp-Method: $2" \
    ${3:+-H "Mcp-Name: $3"} --data "$4"
}
code=$(modern 200 tools/call estimate_cost '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"estimate_cost","arguments":{"table":"sales.orders"},'"$meta"'}}')
[ "$code" = 200 ] && grep -q '"resultType":"complete"' "$dir/mb" && grep -q '"isError":false' "$dir/mb" ||
  fail "2026-07-28 tools/call: $code $(cat "$dir/mb")"
grep -qi '^mcp-session-id' "$dir/mh" && fail "2026-07-28: a session id was issued"
code=$(modern 200 server/discover "" '{"jsonrpc":"2.0","id":5,"method":"server/discover","params":{'"$meta"'}}')
[ "$code" = 200 ] && grep -q '"supportedVersions":\["2026-07-28","2025-11-25","2025-06-18"\]' "$dir/mb" ||
  fail "server/discover: $code $(cat "$dir/mb")"
code=$(modern 400 tools/list run_sql '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"run_sql","arguments":{"sql":"SELECT 1"},'"$meta"'}}')
[ "$code" = 400 ] && grep -q -- '-32020' "$dir/mb" || fail "Mcp-Method mismatch: $code $(cat "$dir/mb")"
code=$(modern 404 nope/nope "" '{"jsonrpc":"2.0","id":7,"method":"nope/nope","params":{'"$meta"'}}')
[ "$code" = 404 ] && grep -q -- '-32601' "$dir/mb" || fail "2026-07-28 unknown method: $code $(cat "$dir/mb")"
code=$(modern 400 tools/list "" '{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01"}}}')
[ "$code" = 400 ] && grep -q -- '-32022' "$dir/mb" || fail "2026-07-28 unknown version: $code $(cat "$dir/mb")"
[ $rc = 0 ] && echo "ok   2026-07-28 over HTTP: stateless calls, server/discover, header mismatch 400, unknown method 404, version 400"

# nothing the agents ran changed the table
n=$("$floe" sql --catalog="$cat" --warehouse="$wh" --format=csv --no-header -c 'SELECT count(*) FROM sales."orders$snapshots"')
[ "$n" = 2 ] || fail "sales.orders has $n snapshots, want 2"
if [ $rc != 0 ]; then echo "--- server log (tail)"; tail -20 "$dir/serve.log"; fi
exit $rc
