#!/usr/bin/env bash
# nested-expected.sh [--write] - checks (or with --write regenerates) the expected rows of nested.slt against
# PostgreSQL 15 (a throwaway server, tests/interop/oracle/pg-tmp-server.sh) and DuckDB (the engine venv's
# python, tests/engines/lib/env.sh); nested-expected.py explains the rules. Needs: postgresql server
# binaries, the engine venv (scripts/install-deps.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
. "$root/tests/engines/lib/env.sh"
pgtmp="$(mktemp -d)"; chmod 755 "$pgtmp"
url="$(sh "$root/tests/interop/oracle/pg-tmp-server.sh" start "$pgtmp/pg" "${PGPORT_SLT:-55441}")"
trap 'sh "$root/tests/interop/oracle/pg-tmp-server.sh" stop "$pgtmp/pg" || true; rm -rf "$pgtmp"' EXIT
"$FLOE_ENGINE_PY" "$here/nested-expected.py" "$url" "$@"
