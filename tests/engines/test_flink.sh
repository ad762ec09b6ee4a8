#!/usr/bin/env bash
# Flink (PyFlink 2.1, iceberg-flink-runtime 1.11, in-process mini-cluster) against a real
# `floe serve` with authentication on: flink/scenarios.py, a smoke test in both directions
# (batch read and write, a streaming job with checkpoints appending and upserting). Prints
# "flink: N passed, M failed". Skips (77) with a message when Java, the PyFlink venv or the jars
# are missing (scripts/install-deps.sh installs them).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib/env.sh"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
FLOE_FLINK_JARS="$(floe_jars flink)"
skip() {  # the line make test's engine summary prints (scripts/test.sh), then ctest's "skipped"
  local line="flink: skipped, $1 (run scripts/install-deps.sh)"
  echo "$line"
  [ -z "${FLOE_BUILD:-}" ] || { mkdir -p "$FLOE_BUILD/engine-results" && echo "$line" >"$FLOE_BUILD/engine-results/flink.txt"; }
  exit 77
}
command -v java >/dev/null 2>&1 || [ -n "${JAVA_HOME:-}" ] || skip "no Java on PATH and no JAVA_HOME"
[ -x "$FLOE_FLINK_PY" ] || skip "PyFlink venv $FLOE_FLINK_PY missing"
"$FLOE_FLINK_PY" -c "import pyflink" 2>/dev/null || skip "pyflink missing in $FLOE_FLINK_PY"
[ -f "$FLOE_FLINK_JARS/.floe-ok" ] || skip "Flink jars missing in $FLOE_FLINK_JARS"
export FLOE_FLINK_JARS TZ=UTC
export PYTHONPATH="$here/lib${PYTHONPATH:+:$PYTHONPATH}"
exec "$FLOE_FLINK_PY" "$here/flink/scenarios.py" "$@"
