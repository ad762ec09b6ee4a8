#!/usr/bin/env bash
# PyIceberg (pinned in requirements.txt) against a real `floe serve` with authentication on:
# pyiceberg/scenarios.py, both directions, rows compared cell by cell with floe's answers.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib/env.sh"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
if [ ! -x "$FLOE_ENGINE_PY" ]; then
  echo "FAIL: $FLOE_ENGINE_PY missing: run scripts/install-deps.sh"; exit 1
fi
export PYTHONPATH="$here/lib${PYTHONPATH:+:$PYTHONPATH}"
exec "$FLOE_ENGINE_PY" "$here/pyiceberg/scenarios.py" "$@"
