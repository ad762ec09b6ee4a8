#!/usr/bin/env bash
# The official MCP Python SDK (`mcp`, pinned in requirements-mcp.txt) against floe's MCP metric tools over stdio
# (`floe mcp --models`) and Streamable HTTP (`floe serve --models`): mcp_metrics_client.py, on the world of
# tests/interop/mcp-metrics-world.sh (the semantic tests' data and models, a row-filtered principal).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
. "$here/lib/env.sh"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
if [ ! -x "$FLOE_MCP_PY" ]; then
  echo "FAIL: $FLOE_MCP_PY missing: run scripts/install-deps.sh"; exit 1
fi
floe=$FLOE_BIN
. "$src/tests/interop/mcp-metrics-world.sh"
[ "$sem" = "$sql" ] || fail "floe semantic query differs from hand-written SQL"
"$FLOE_MCP_PY" "$here/mcp_metrics_client.py" --floe="$floe" --catalog="$cat" --warehouse="$wh" --models="$models" \
  --http="$http" --analyst="$(tok analyst)" --c8_only="$(tok c8_only)" --want="$sql" --want_c8="$sql_c8" || rc=1
if [ $rc != 0 ]; then echo "--- server log (tail)"; tail -20 "$tmp/serve.log"; fi
exit $rc
