#!/usr/bin/env bash
# gen-expected.sh — regenerates the expected results in tests/sql/slt/*.slt (or the files given) from PostgreSQL 15
# (a throwaway server, tests/interop/oracle/pg-tmp-server.sh) and DuckDB (@duckdb/node-api in tests/interop),
# keeping only records where both agree (gen-expected.mjs explains the rules). The results stay in the files, so
# `make test` needs neither engine. Needs: postgresql (server binaries), node, tests/interop/node_modules.
# usage: bash tests/sql/slt/gen-expected.sh [FILE.slt...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
pgtmp="$(mktemp -d)"; chmod 755 "$pgtmp"  # the server runs as user postgres
pgdir="$pgtmp/pg"
port="${PGPORT_SLT:-55439}"
url="$(sh "$root/tests/interop/oracle/pg-tmp-server.sh" start "$pgdir" "$port")"
trap 'sh "$root/tests/interop/oracle/pg-tmp-server.sh" stop "$pgdir" || true; rm -rf "$pgtmp"' EXIT
if [ $# -eq 0 ]; then set -- "$here"/*.slt; fi
node "$here/gen-expected.mjs" "$url" "$@"
