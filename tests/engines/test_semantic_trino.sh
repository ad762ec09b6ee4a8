#!/usr/bin/env bash
# The semantic layer's Trino dialect on Trino 476 (the harness of test_trino.sh) over floe's REST catalog:
# trino/semantic.py runs `floe semantic compile --dialect trino` in Trino for every metric type and compares
# the rows with `floe semantic query`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib/env.sh"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
if [ ! -x "$FLOE_ENGINE_PY" ]; then
  echo "FAIL: $FLOE_ENGINE_PY missing: run scripts/install-deps.sh"; exit 1
fi
if [ ! -x "$FLOE_TRINO_HOME/bin/launcher" ] || [ ! -x "$FLOE_JAVA25/bin/java" ]; then
  echo "FAIL: trino-server ($FLOE_TRINO_HOME) or Java 25 ($FLOE_JAVA25) missing: run scripts/install-deps.sh"; exit 1
fi
export PYTHONPATH="$here/lib${PYTHONPATH:+:$PYTHONPATH}"
exec "$FLOE_ENGINE_PY" "$here/trino/semantic.py" "$@"
