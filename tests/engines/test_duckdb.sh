#!/usr/bin/env bash
# DuckDB and its iceberg extension (pinned wheels in requirements.txt, loaded offline) against a real `floe serve` with authentication on:
# duckdb/scenarios.py, both directions, rows compared cell by cell with floe's answers.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib/env.sh"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
if [ ! -x "$FLOE_ENGINE_PY" ]; then
  echo "FAIL: $FLOE_ENGINE_PY missing: run scripts/install-deps.sh"; exit 1
fi
export PYTHONPATH="$here/lib${PYTHONPATH:+:$PYTHONPATH}"
exec "$FLOE_ENGINE_PY" "$here/duckdb/scenarios.py" "$@"
