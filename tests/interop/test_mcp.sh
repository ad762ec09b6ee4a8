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

# nothing the agents ran changed the table
n=$("$floe" sql --catalog="$cat" --warehouse="$wh" --format=csv --no-header -c 'SELECT count(*) FROM sales."orders$snapshots"')
[ "$n" = 2 ] || fail "sales.orders has $n snapshots, want 2"
if [ $rc != 0 ]; then echo "--- server log (tail)"; tail -20 "$dir/serve.log"; fi
exit $rc
