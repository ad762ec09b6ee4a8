#!/usr/bin/env bash
# Iceberg's REST Compatibility Kit (Iceberg 1.11.0: CatalogTests + ViewCatalogTests through
# Java's RESTCatalog) against a real `floe serve` with authentication on. Jars from
# jvm/rck.pom (scripts/install-engines.sh); the driver is rck/run_rck.py. 0 failures required;
# the RCK's own skips are listed in README.md ("REST Compatibility Kit").
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
. "$here/lib/env.sh"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
jars="$(floe_jars rck)"
if [ ! -f "$jars/.floe-ok" ] || [ ! -x "$FLOE_ENGINE_PY" ]; then
  echo "FAIL: $jars or $FLOE_ENGINE_PY missing: run scripts/install-deps.sh"; exit 1
fi
export FLOE_RCK_JARS="$jars" PYTHONPATH="$here/lib${PYTHONPATH:+:$PYTHONPATH}"
exec "$FLOE_ENGINE_PY" "$here/rck/run_rck.py" "$@"
