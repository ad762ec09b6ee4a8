#!/usr/bin/env bash
# The semantic layer against dbt MetricFlow itself (issue 19's second oracle): the data of
# tests/interop/semantic/seed.sh, floe's older-spec model files (tests/semantic/models/*.yml) run unchanged by
# dbt-metricflow with dbt-duckdb (pinned in requirements-metricflow.txt, venv from scripts/install-engines.sh),
# and every case of metricflow/oracle.py must give floe's numbers.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
. "$here/lib/env.sh"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
if [ ! -x "$FLOE_MF_VENV/bin/mf" ] || [ ! -f "$FLOE_MF_VENV/.floe-ok" ]; then
  echo "FAIL: $FLOE_MF_VENV missing: run scripts/install-deps.sh"; exit 1
fi
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-metricflow.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
fsql() { "$FLOE_BIN" sql --catalog "sqlite:$tmp/cat.db" --warehouse "$tmp/wh" -q "$@"; }
. "$src/tests/interop/semantic/seed.sh"
export_csv
cd "$tmp"
"$FLOE_MF_VENV/bin/python" "$here/metricflow/oracle.py" "$FLOE_BIN" "$src/tests/semantic/models" "$tmp" "$FLOE_MF_VENV"
echo "ok: floe's semantic answers equal dbt MetricFlow's"
