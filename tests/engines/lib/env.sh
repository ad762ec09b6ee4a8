# Where the engine tests' downloads live, computed the same way by
# scripts/install-deps.sh (which fills them) and by every tests/engines/test_*.sh
# (which uses them). Each folder is named by a hash of the file that pins it, so
# two checkouts with different pins never share one, and a second run reuses it.
#   FLOE_CACHE            root (default ~/.cache/floe)
#   FLOE_ENGINE_PY        python of the engine venv (pyspark, pyiceberg, duckdb, trino)
#   FLOE_FLINK_PY         python of the PyFlink venv (PyFlink pins its own pyarrow)
#   FLOE_MCP_PY           python of the MCP Python SDK venv (requirements-mcp.txt)
#   FLOE_MF_VENV          the dbt MetricFlow venv (dbt-metricflow, dbt-duckdb: the semantic oracle)
#   FLOE_SUPERSET_PY      python of the Apache Superset venv (requirements-superset.txt)
#   FLOE_NB_PY            python of the notebook venv (requirements-notebook.txt: nbclient, pandas, polars)
#   floe_jars NAME        folder of the jars resolved from tests/engines/jvm/NAME.pom
#   FLOE_TRINO_HOME       unpacked trino-server
engines_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FLOE_CACHE="${FLOE_CACHE:-$HOME/.cache/floe}"
floe_pin_hash() { sha256sum "$1" | cut -c1-12; }
FLOE_ENGINE_VENV="$FLOE_CACHE/venv/engines-$(floe_pin_hash "$engines_dir/requirements.txt")"
FLOE_ENGINE_PY="$FLOE_ENGINE_VENV/bin/python"
FLOE_FLINK_VENV="$FLOE_CACHE/venv/flink-$(floe_pin_hash "$engines_dir/requirements-flink.txt")"
FLOE_FLINK_PY="$FLOE_FLINK_VENV/bin/python"
FLOE_MCP_VENV="$FLOE_CACHE/venv/mcp-$(floe_pin_hash "$engines_dir/requirements-mcp.txt")"
FLOE_MCP_PY="$FLOE_MCP_VENV/bin/python"
FLOE_MF_VENV="$FLOE_CACHE/venv/metricflow-$(floe_pin_hash "$engines_dir/requirements-metricflow.txt")"
FLOE_SUPERSET_VENV="$FLOE_CACHE/venv/superset-$(floe_pin_hash "$engines_dir/requirements-superset.txt")"
FLOE_SUPERSET_PY="$FLOE_SUPERSET_VENV/bin/python"
FLOE_NB_VENV="$FLOE_CACHE/venv/notebook-$(floe_pin_hash "$engines_dir/requirements-notebook.txt")"
FLOE_NB_PY="$FLOE_NB_VENV/bin/python"
floe_jars() { echo "$FLOE_CACHE/jars/$1-$(floe_pin_hash "$engines_dir/jvm/$1.pom")"; }
FLOE_TRINO_VERSION="$(sed -n 's/^trino-server=//p' "$engines_dir/jvm/versions")"
FLOE_TRINO_HOME="$FLOE_CACHE/trino/trino-server-$FLOE_TRINO_VERSION"
FLOE_JAVA25="${FLOE_JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export FLOE_CACHE FLOE_ENGINE_PY FLOE_FLINK_PY FLOE_MCP_PY FLOE_MF_VENV FLOE_NB_PY FLOE_SUPERSET_PY FLOE_TRINO_HOME FLOE_JAVA25
