#!/usr/bin/env bash
# Every Iceberg fixture table under $FLOE_SHARED/fixtures/iceberg read with `floe table` and checked against
# fixtures/iceberg/EXPECTED.md: each entry's rows come from `floe table cat|entries|files|manifests`, are loaded
# into DuckDB as a table, and the entry's SQL runs against that table instead of ICEBERG_SCAN(...). Entries that
# cannot be checked are listed with the reason (test_iceberg_fixtures.mjs). Skips (77) without ../shared or
# node_modules.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
shared="${FLOE_SHARED:-$here/../../../shared}"
if [ ! -f "$shared/fixtures/iceberg/EXPECTED.md" ]; then
  echo "skip: fixtures/iceberg not found under $shared (set FLOE_SHARED)"; exit 77
fi
if [ ! -d "$here/node_modules/@duckdb/node-api" ]; then
  echo "skip: node_modules missing in $here (run: make deps, or npm ci there)"; exit 77
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
exec node "$here/test_iceberg_fixtures.mjs" --floe="$FLOE_BIN" --shared="$shared"
