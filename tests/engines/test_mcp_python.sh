#!/usr/bin/env bash
# The official MCP Python SDK (`mcp`, pinned in requirements-mcp.txt) against floe's MCP server over stdio
# (`floe mcp`) and Streamable HTTP (`floe serve`, bearer tokens): mcp_client.py.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib/env.sh"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
if [ ! -x "$FLOE_MCP_PY" ]; then
  echo "FAIL: $FLOE_MCP_PY missing: run scripts/install-deps.sh"; exit 1
fi
floe=$FLOE_BIN
. "$here/../interop/mcp-world.sh"
"$FLOE_MCP_PY" "$here/mcp_client.py" --floe="$floe" --catalog="$cat" --warehouse="$wh" --http="$http" \
  --analyst="$analyst" --de_only="$de_only" --nobody="$nobody"
