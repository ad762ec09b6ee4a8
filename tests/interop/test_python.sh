#!/usr/bin/env bash
# The Python package (python/, `pip install ./python`) built against this build's libfloe, then checked against
# the semantic tests' world (mcp-metrics-world.sh: orders, customers, principals, `floe serve --models`):
# python/tests/check_floe.py (embedded SQL as Arrow, pandas, polars; parameters; SQLSTATEs and positions; cancel;
# DB-API 2.0; metrics with receipts; the same through the server, with its 403s), and the shipped notebook
# examples/lakehouse.ipynb run top to bottom by nbclient, whose net_revenue by month must equal the server's
# query_metrics answer. The package is installed into a folder of the test (pip --target), not into the venv.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
floe=$FLOE_BIN
build="${FLOE_BUILD:-$(dirname "$FLOE_BIN")}"
# A sanitized libfloe.so needs its compiler's sanitizer runtime in the Python process: the plain build runs this.
if grep -qs '^FLOE_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then echo "skipped: sanitized build"; exit 77; fi
. "$src/tests/engines/lib/env.sh"
if [ ! -x "$FLOE_NB_PY" ]; then echo "skip: the notebook venv is missing (scripts/install-deps.sh)"; exit 77; fi

. "$here/mcp-metrics-world.sh"
[ "$(wc -l <<<"$sem")" -ge 6 ] || fail "floe semantic query returned too few months: $sem"

# build and install the package against this build (setup.py: FLOE_INCLUDE_DIR / FLOE_LIB_DIR)
cp -r "$src/python" "$tmp/pkg"
rm -rf "$tmp/pkg/build" "$tmp/pkg"/*.egg-info
if ! FLOE_INCLUDE_DIR="$src/include" FLOE_LIB_DIR="$build" "$FLOE_NB_PY" -m pip install -q --no-build-isolation \
     --no-deps --disable-pip-version-check --target "$tmp/site" "$tmp/pkg" >"$tmp/pip.log" 2>&1; then
  cat "$tmp/pip.log"; echo "FAIL: pip install ./python"; exit 1
fi
export PYTHONPATH="$tmp/site"

export FLOE_CATALOG="$cat" FLOE_WAREHOUSE="$wh" FLOE_MODELS="$models" FLOE_HTTP="$http" SEM_CSV="$sem"
TOK_ANALYST=$(tok analyst) TOK_NOBODY=$(tok nobody)
export TOK_ANALYST TOK_NOBODY
if ! (cd "$tmp" && "$FLOE_NB_PY" "$src/python/tests/check_floe.py"); then fail "python/tests/check_floe.py"; fi

# the notebook, headless, in a kernel of the same venv; its numbers against the server's (MCP query_metrics)
export FLOE_NOTEBOOK_RESULT="$tmp/notebook.csv"
if ! (cd "$tmp" && "$FLOE_NB_PY" - "$src/examples/lakehouse.ipynb" "$tmp/executed.ipynb" <<'PY'
import sys
import nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=120, kernel_name="python3").execute()
nbformat.write(nb, sys.argv[2])
images = sum(1 for c in nb.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {}))
assert images >= 1, "the chart cell drew no image"
errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.get("output_type") == "error"]
assert not errors, errors
print(f"notebook: {len(nb.cells)} cells run, {images} chart(s)")
PY
); then
  fail "examples/lakehouse.ipynb did not run"
fi
server=$(cd "$tmp" && "$FLOE_NB_PY" - <<'PY'
import os, floe
c = floe.connect(os.environ["FLOE_HTTP"], token=os.environ["TOK_ANALYST"])
a = c.metrics.query(metrics=["net_revenue"], dimensions=["metric_time__month"], order_by=["metric_time__month"])
for m, v in a.fetchall():
    print(f"{m},{v}")
PY
)
nbout=$(cat "$tmp/notebook.csv" 2>/dev/null || true)
[ "$(wc -l <<<"$server")" -ge 6 ] || fail "the server's net_revenue by month has too few rows: $server"
[ "$nbout" = "$server" ] || fail "the notebook's net_revenue by month differs from the server's:
$nbout
--- server
$server"
[ $rc -eq 0 ] && echo "python: package checks, notebook and server agree"
exit $rc
