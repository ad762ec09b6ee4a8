#!/usr/bin/env bash
# floe as a CLIENT of Apache Iceberg's reference REST catalog server
# (org.apache.iceberg.rest.RESTCatalogServer of iceberg-open-api 1.11.0's test-fixtures: a
# JdbcCatalog on SQLite behind Jetty, no authentication, a file:/// warehouse in a temp dir;
# jars from jvm/reference_rest.pom). `floe sql --catalog http://127.0.0.1:PORT` creates a
# namespace and partitioned tables, appends, deletes (position deletes, DVs), updates and time
# travels through it; Spark (pyspark 4.1 + iceberg-spark-runtime 1.11, the jars of
# test_spark.sh) on the same server reads floe's rows cell by cell and writes rows floe reads:
# reference_rest/scenarios.py. Prints "reference-rest: N passed, M failed". The Java server is
# stopped on every exit (trap). Skips (77) when Java, pyspark or the jars are missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib/env.sh"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
FLOE_SPARK_JARS="$(floe_jars spark)"
FLOE_REFREST_JARS="$(floe_jars reference_rest)"
skip() {  # the line make test's engine summary prints (scripts/test.sh), then ctest's "skipped"
  local line="reference-rest: skipped, $1 (run scripts/install-deps.sh)"
  echo "$line"
  [ -z "${FLOE_BUILD:-}" ] || { mkdir -p "$FLOE_BUILD/engine-results" && echo "$line" >"$FLOE_BUILD/engine-results/reference-rest.txt"; }
  exit 77
}
command -v java >/dev/null 2>&1 || skip "no Java on PATH"
[ -x "$FLOE_ENGINE_PY" ] || skip "engine venv $FLOE_ENGINE_PY missing"
"$FLOE_ENGINE_PY" -c "import pyspark, pyarrow" 2>/dev/null || skip "pyspark or pyarrow missing in $FLOE_ENGINE_PY"
[ -f "$FLOE_SPARK_JARS/.floe-ok" ] && ls "$FLOE_SPARK_JARS"/iceberg-spark-runtime-*.jar >/dev/null 2>&1 ||
  skip "Spark jars missing in $FLOE_SPARK_JARS"
[ -f "$FLOE_REFREST_JARS/.floe-ok" ] || skip "reference REST server jars missing in $FLOE_REFREST_JARS"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-refrest.XXXXXX")"
mkdir -p "$tmp/wh"
port="$("$FLOE_ENGINE_PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
server_pid="" py_pid=""
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=""
}
cleanup() {
  if [ -n "$py_pid" ] && kill -0 "$py_pid" 2>/dev/null; then  # interrupted: the scenarios stop Spark
    kill "$py_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$py_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$py_pid" 2>/dev/null || true
  fi
  stop_server
  [ -n "${FLOE_KEEP_TMP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The server reads its catalog properties from CATALOG_* (RCKUtils.environmentCatalogConfig:
# CATALOG_REST_PORT -> rest.port, CATALOG_URI -> uri, ...); its default backend is JdbcCatalog.
# Only these CATALOG_* reach it (env -u would miss unknown ones: start from a clean list).
(
  for v in $(compgen -e | grep '^CATALOG_' || true); do unset "$v"; done
  export CATALOG_CATALOG__IMPL=org.apache.iceberg.jdbc.JdbcCatalog \
    CATALOG_URI="jdbc:sqlite:$tmp/catalog.db" \
    CATALOG_WAREHOUSE="file://$tmp/wh" \
    CATALOG_REST_PORT="$port"
  cd "$tmp"
  exec java -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.io.tmpdir="$tmp" \
    -cp "$FLOE_REFREST_JARS/*" org.apache.iceberg.rest.RESTCatalogServer
) >"$tmp/server.log" 2>&1 &
server_pid=$!

export FLOE_SPARK_JARS TZ=UTC SPARK_LOCAL_IP=127.0.0.1
export FLOE_REFREST_URI="http://127.0.0.1:$port" FLOE_REFREST_WAREHOUSE="file://$tmp/wh"
export FLOE_REFREST_TMP="$tmp" FLOE_REFREST_LOG="$tmp/server.log" FLOE_REFREST_PID="$server_pid"
export PYTHONPATH="$here/lib${PYTHONPATH:+:$PYTHONPATH}"
# in the background, so that a TERM or INT reaches the trap at once (bash runs traps only
# between commands, and `wait` is one it interrupts)
"$FLOE_ENGINE_PY" "$here/reference_rest/scenarios.py" "$@" &
py_pid=$!
rc=0
wait "$py_pid" || rc=$?
py_pid=""
exit "$rc"
