#!/usr/bin/env bash
# Installs what tests/engines/ runs: a Python venv pinned by tests/engines/requirements.txt
# (pyspark, pyiceberg, duckdb and its extension wheels, the trino client), a PyFlink venv
# pinned by requirements-flink.txt, the MCP Python SDK venv pinned by requirements-mcp.txt, the jars of every tests/engines/jvm/*.pom (exact versions),
# and the trino-server archive named in tests/engines/jvm/versions. Only the package
# registries pip and mvn are configured for; nothing else is downloaded.
# Idempotent and cached: each folder is named by the hash of its pin file (lib/env.sh) and is
# marked complete only at the end, so an interrupted run is redone, never half-used.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
. "$here/tests/engines/lib/env.sh"
mkdir -p "$FLOE_CACHE/venv" "$FLOE_CACHE/jars" "$FLOE_CACHE/trino" "$FLOE_CACHE/pip"

venv() {  # $1 = venv dir, $2 = requirements file
  local dir=$1 req=$2
  [ -s "$req" ] || return 0
  [ -x "$dir/bin/python" ] && [ -f "$dir/.floe-ok" ] && return 0
  echo "install-deps: python venv $(basename "$dir") from $(basename "$req")"
  rm -rf "$dir"
  /usr/bin/python3 -m venv "$dir"
  "$dir/bin/pip" install -q --cache-dir "$FLOE_CACHE/pip" --disable-pip-version-check -r "$req"
  touch "$dir/.floe-ok"  # last: a venv without it is half-made and is made again
}
venv "$FLOE_ENGINE_VENV" "$here/tests/engines/requirements.txt"
venv "$FLOE_FLINK_VENV" "$here/tests/engines/requirements-flink.txt"
venv "$FLOE_MCP_VENV" "$here/tests/engines/requirements-mcp.txt"
venv "$FLOE_MF_VENV" "$here/tests/engines/requirements-metricflow.txt"
venv "$FLOE_NB_VENV" "$here/tests/engines/requirements-notebook.txt"
venv "$FLOE_SUPERSET_VENV" "$here/tests/engines/requirements-superset.txt"

for pom in "$here"/tests/engines/jvm/*.pom; do
  [ -e "$pom" ] || continue
  name="$(basename "$pom" .pom)"; dir="$(floe_jars "$name")"
  [ -f "$dir/.floe-ok" ] && continue
  echo "install-deps: jars for $name"
  rm -rf "$dir.tmp"
  mvn -q -B -Dstyle.color=never -f "$pom" dependency:copy-dependencies -DoutputDirectory="$dir.tmp" -DincludeScope=runtime \
    -Dmdep.useRepositoryLayout=false
  touch "$dir.tmp/.floe-ok"; rm -rf "$dir"; mv "$dir.tmp" "$dir"
done

if [ -n "$FLOE_TRINO_VERSION" ] && [ ! -f "$FLOE_TRINO_HOME/.floe-ok" ]; then
  echo "install-deps: trino-server $FLOE_TRINO_VERSION"
  t="$FLOE_CACHE/trino/dl"; rm -rf "$t" "$FLOE_TRINO_HOME"; mkdir -p "$t"
  mvn -q -B -Dstyle.color=never dependency:copy -Dartifact="io.trino:trino-server:$FLOE_TRINO_VERSION:tar.gz" -DoutputDirectory="$t"
  tar -xzf "$t/trino-server-$FLOE_TRINO_VERSION.tar.gz" -C "$FLOE_CACHE/trino"
  cli="$(sed -n 's/^trino-cli=//p' "$here/tests/engines/jvm/versions")"
  if [ -n "$cli" ]; then
    mvn -q -B -Dstyle.color=never dependency:copy -Dartifact="io.trino:trino-cli:$cli:jar:executable" -DoutputDirectory="$FLOE_TRINO_HOME"
  fi
  rm -rf "$t"; touch "$FLOE_TRINO_HOME/.floe-ok"
fi
