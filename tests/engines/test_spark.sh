#!/usr/bin/env bash
# Spark (pyspark 4.1, iceberg-spark-runtime 1.11 for Scala 2.13, local[2], one SparkSession for
# every scenario) against a real `floe serve` with authentication on: spark/scenarios.py, both
# directions, rows compared cell by cell with floe's answers. Prints "spark: N passed, M failed".
# Skips (77) with a message when Java, the engine venv's pyspark or the Spark jars are missing
# (scripts/install-deps.sh installs them).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib/env.sh"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
FLOE_SPARK_JARS="$(floe_jars spark)"
skip() {  # the line make test's engine summary prints (scripts/test.sh), then ctest's "skipped"
  local line="spark: skipped, $1 (run scripts/install-deps.sh)"
  echo "$line"
  [ -z "${FLOE_BUILD:-}" ] || { mkdir -p "$FLOE_BUILD/engine-results" && echo "$line" >"$FLOE_BUILD/engine-results/spark.txt"; }
  exit 77
}
command -v java >/dev/null 2>&1 || [ -n "${JAVA_HOME:-}" ] || skip "no Java on PATH and no JAVA_HOME"
[ -x "$FLOE_ENGINE_PY" ] || skip "engine venv $FLOE_ENGINE_PY missing"
"$FLOE_ENGINE_PY" -c "import pyspark" 2>/dev/null || skip "pyspark missing in $FLOE_ENGINE_PY"
[ -f "$FLOE_SPARK_JARS/.floe-ok" ] && ls "$FLOE_SPARK_JARS"/iceberg-spark-runtime-*.jar >/dev/null 2>&1 ||
  skip "Spark jars missing in $FLOE_SPARK_JARS"
export FLOE_SPARK_JARS TZ=UTC SPARK_LOCAL_IP=127.0.0.1
export PYTHONPATH="$here/lib${PYTHONPATH:+:$PYTHONPATH}"
exec "$FLOE_ENGINE_PY" "$here/spark/scenarios.py" "$@"
