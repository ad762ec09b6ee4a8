#!/usr/bin/env bash
# floe's MCP metric tools (docs/mcp.md, "Metric tools") against the official TypeScript SDK over stdio (`floe mcp
# --models`) and Streamable HTTP (`floe serve --models`): the semantic tests' data (semantic/seed.sh) and models
# (tests/semantic/models). The seed scenario, "net revenue by month for 2024 in region EU", is computed three ways
# here — `floe semantic query`, hand-written SQL, and query_metrics in mcp-metrics-sdk.mjs — and must agree; a
# principal whose orders are row-filtered gets the filtered numbers (checked against the same SQL with the filter).
# The MCP Inspector CLI lists the metric tools over stdio and runs query_metrics over HTTP as the filtered principal.
# Bad model files stop both servers at startup naming file and line. Skips (77) without the npm packages.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
floe=$FLOE_BIN
if [ ! -d "$here/node_modules/@modelcontextprotocol/sdk" ]; then
  echo "skip: node_modules missing in $here (run: make deps, or npm ci there)"; exit 77
fi
. "$here/mcp-metrics-world.sh"
[ "$(wc -l <<<"$sem")" -ge 6 ] || fail "floe semantic query returned too few months: $sem"
[ "$sem" = "$sql" ] || fail "floe semantic query differs from SQL:
$sem
--- SQL
$sql"
[ "$sem" != "$sql_c8" ] || fail "the row filter changes nothing"
[ $rc = 0 ] && echo "ok   the seed scenario: floe semantic query = hand-written SQL"

# bad model files: a startup error naming file and line, for both servers
mkdir -p "$tmp/bad"
printf 'metrics:\n  - name: broken\n    type: simple\n    type_params: {measure: no_such_measure}\n' >"$tmp/bad/m.yml"
if out=$("$floe" mcp --catalog="$cat" --warehouse="$wh" --models "$tmp/bad" </dev/null 2>&1); then fail "floe mcp started on a bad model"; fi
grep -q 'bad/m.yml:4:.*no_such_measure' <<<"$out" || fail "floe mcp: the error names no file and line: $out"
if out=$("$floe" serve --port 0 --catalog "$cat" --warehouse "$wh" --models "$tmp/bad" 2>&1); then fail "floe serve started on a bad model"; fi
grep -q 'bad/m.yml:4:.*no_such_measure' <<<"$out" || fail "floe serve: the error names no file and line: $out"
[ $rc = 0 ] && echo "ok   bad model files stop floe mcp and floe serve naming file and line"


node "$here/mcp-metrics-sdk.mjs" --floe="$floe" --catalog="$cat" --warehouse="$wh" --models="$models" --http="$http" \
  --analyst="$(tok analyst)" --c8_only="$(tok c8_only)" --nobody="$(tok nobody)" \
  --want="$sql" --want_c8="$sql_c8" || rc=1

# the MCP Inspector CLI: the metric tools over stdio, query_metrics over HTTP as the row-filtered principal
insp() { node "$here/mcp-inspector.mjs" "$@"; }
out=$(insp "$floe" mcp --catalog="$cat" --warehouse="$wh" --models="$models" --method tools/list) || fail "inspector stdio tools/list"
for t in list_metrics get_dimensions get_entities get_dimension_values query_metrics compile_sql; do
  grep -q "\"name\": \"$t\"" <<<"$out" || fail "inspector stdio: tools/list lacks $t"
done
out=$(insp "$http/mcp" --transport http --header "Authorization: Bearer $(tok c8_only)" --method tools/call \
  --tool-name query_metrics --tool-arg 'metrics=["net_revenue"]' --tool-arg 'group_by=["customer__region"]' \
  --tool-arg 'where=["{{ Dimension('"'customer__region'"') }} = '"'EU'"'"]') || fail "inspector http query_metrics"
want_c8_eu=$("$floe" sql --catalog="$cat" --warehouse="$wh" --format=csv --no-header -c "SELECT sum(o.gross_amount - o.discount_applied - o.return_amount)
  FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE c.region = 'EU' AND o.customer_id % 8 = 0")
[[ "$want_c8_eu" =~ ^[0-9]+\.[0-9]{2}$ ]] || fail "hand-written SQL for c8_only's EU net revenue: '$want_c8_eu'"
grep -q "\"EU\",\"$want_c8_eu\"" <<<"$(tr -d ' \n' <<<"$out")" || fail "inspector http: c8_only's EU net revenue is not $want_c8_eu: $out"
[ $rc = 0 ] && echo "ok   inspector CLI: metric tools over stdio, query_metrics over HTTP as a row-filtered principal"
if [ $rc != 0 ]; then echo "--- server log (tail)"; tail -20 "$tmp/serve.log"; fi
exit $rc
