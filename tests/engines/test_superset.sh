#!/usr/bin/env bash
# Apache Superset (from PyPI, pinned in requirements-superset.txt) on floe's Postgres wire port: the semantic
# tests' tables (interop/semantic/seed.sh), their model published as SQL views (`floe semantic publish`), and
# `floe serve` with authentication: Superset connects as a principal with its SCRAM password, lists the tables
# and the semantic views, builds a dataset and renders a chart's data (net_revenue by month), which must equal
# floe's query_metrics answer over MCP; SQL Lab runs a query (superset/check_superset.py).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
. "$here/lib/env.sh"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
if [ ! -x "$FLOE_SUPERSET_PY" ]; then
  echo "FAIL: $FLOE_SUPERSET_PY missing: run scripts/install-deps.sh"; exit 1
fi
floe=$FLOE_BIN
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-superset.XXXXXX")"
pid=
cleanup() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi; rm -rf "$tmp"; }
trap cleanup EXIT
cat="sqlite:$tmp/cat.db"
wh="$tmp/wh"
models="$src/tests/semantic/models"
fsql() { "$floe" sql --catalog="$cat" --warehouse="$wh" -q "$@"; }
. "$src/tests/interop/semantic/seed.sh"
"$floe" semantic publish --models "$models" --catalog "$cat" --warehouse "$wh" >"$tmp/publish.log"
grep -q "view semantic.net_revenue_by_month" "$tmp/publish.log" || { cat "$tmp/publish.log"; echo "FAIL: publish"; exit 1; }

# a BI principal: READ on the tables and on the semantic views (views read with the reader's rights)
adm() { "$floe" admin --catalog "$cat" "$@"; }
secret=$(adm principal create bi 2>/dev/null | sed -n 's/^client_secret: //p')
adm role create bi_r >/dev/null
adm role assign bi bi_r >/dev/null
adm grant bi_r read namespace default >/dev/null
adm grant bi_r read namespace semantic >/dev/null
token=$(adm token bi)

port=$((20000 + RANDOM % 20000)); pgport=$((port + 1))
"$floe" serve --port "$port" --pg-port "$pgport" --catalog "$cat" --warehouse "$wh" --models "$models" \
  --ready-file "$tmp/ready" >"$tmp/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do [ -s "$tmp/ready" ] && break; sleep 0.05; done
[ -s "$tmp/ready" ] || { tail -20 "$tmp/serve.log"; echo "FAIL: floe serve did not start"; exit 1; }

# Superset's metadata database, its admin, its roles (each a few seconds)
export SUPERSET_HOME="$tmp/superset" SUPERSET_CONFIG_PATH="$here/superset/superset_config.py" FLASK_APP=superset
mkdir -p "$SUPERSET_HOME"
superset="$(dirname "$FLOE_SUPERSET_PY")/superset"
for step in "db upgrade" "fab create-admin --username admin --password admin --firstname a --lastname b --email a@example.invalid" "init"; do
  # shellcheck disable=SC2086
  if ! "$superset" $step >"$tmp/superset-step.log" 2>&1; then
    tail -30 "$tmp/superset-step.log"; echo "FAIL: superset $step"; exit 1
  fi
done
"$FLOE_SUPERSET_PY" "$here/superset/check_superset.py" "postgresql+psycopg2://bi:$secret@127.0.0.1:$pgport/floe" \
  "http://127.0.0.1:$port" "$token" 2> >(grep -v -E '^[0-9-]+ [0-9:,]+:(INFO|DEBUG|WARNING):' >&2)
