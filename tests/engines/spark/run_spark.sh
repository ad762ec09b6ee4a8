#!/usr/bin/env bash
# Spark (pyspark 4.1, iceberg-spark-runtime 1.11, local[2]) against a real `floe serve` with
# authentication on: spark/scenarios.py, both directions, rows compared cell by cell with floe's answers.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
. "$here/lib/env.sh"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
FLOE_SPARK_JARS="$(floe_jars spark)"
if [ ! -x "$FLOE_ENGINE_PY" ] || ! ls "$FLOE_SPARK_JARS"/iceberg-spark-runtime-*.jar >/dev/null 2>&1; then
  echo "FAIL: engine venv ($FLOE_ENGINE_PY) or Spark jars ($FLOE_SPARK_JARS) missing: run scripts/install-deps.sh"; exit 1
fi
export FLOE_SPARK_JARS TZ=UTC SPARK_LOCAL_IP=127.0.0.1
export PYTHONPATH="$here/lib${PYTHONPATH:+:$PYTHONPATH}"
exec "$FLOE_ENGINE_PY" "$here/spark/scenarios.py" "$@"
