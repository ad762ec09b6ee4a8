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
dir="$(mktemp -d "${TMPDIR:-/tmp}/floe-mcp.XXXXXX")"
pid=
cleanup() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi; rm -rf "$dir"; }
trap cleanup EXIT
cat="sqlite:$dir/wh/catalog.db"
wh="$dir/wh"
mkdir -p "$wh"

"$floe" sql --catalog="$cat" --warehouse="$wh" -q \
  -c "CREATE SCHEMA sales" -c "CREATE SCHEMA hr" \
  -c "CREATE TABLE sales.orders (id int, country text, amount decimal(10,2), ts timestamptz) WITH (partitioning = ARRAY['country'])" \
  -c "INSERT INTO sales.orders VALUES (1, 'DE', 10.50, '2024-01-05 10:00:00+00'), (2, 'DE', 20.00, '2024-02-05 10:00:00+00'), (3, 'FR', 7.25, '2024-02-06 10:00:00+00'), (4, NULL, 1.00, '2024-03-01 00:00:00+00')" \
  -c "INSERT INTO sales.orders VALUES (5, 'FR', 3.00, '2024-03-02 00:00:00+00')" \
  -c "CREATE TABLE hr.salaries (name text, salary int)"
adm() { "$floe" admin --catalog "$cat" "$@" >/dev/null; }
for p in analyst de_only nobody; do adm principal create "$p"; done
adm role create sales_r
adm role create de_r
adm role assign analyst sales_r
adm role assign de_only de_r
adm grant sales_r read namespace sales
adm grant de_r read namespace sales
adm policy row-filter de_r sales.orders "country = 'DE'"
tok() { "$floe" admin --catalog "$cat" token "$@"; }
analyst=$(tok analyst)
de_only=$(tok de_only)
nobody=$(tok nobody)
expired=$(tok analyst --ttl -60)

port=$((20000 + RANDOM % 20000))
"$floe" serve --port "$port" --catalog "$cat" --warehouse "$wh" --ready-file "$dir/ready" >"$dir/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do [ -s "$dir/ready" ] && break; sleep 0.05; done
if [ ! -s "$dir/ready" ]; then echo "FAIL: floe serve did not start:"; tail -20 "$dir/serve.log"; exit 1; fi
http="http://$(sed -n 1p "$dir/ready")"
echo "server: $http"

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
