#!/usr/bin/env bash
# Every unencrypted Parquet fixture (fixtures/parquet-testing, fixtures/parquet-iceberg-java) read by floe and compared
# row by row with DuckDB (arrow-rs where DuckDB cannot read it; the special cases and their reasons are listed in
# fixtures-compare.mjs). bad_data/ and encrypted files must fail cleanly. Skips (77) without ../shared or node_modules.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
shared="${FLOE_SHARED:-$here/../../../shared}"
if [ ! -d "$shared/fixtures/parquet-testing" ]; then
  echo "skip: fixtures not found under $shared (set FLOE_SHARED)"; exit 77
fi
if [ ! -d "$here/node_modules/@duckdb/node-api" ]; then
  echo "skip: node_modules missing in $here (run: make deps, or npm ci there)"; exit 77
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
exec node "$here/fixtures-compare.mjs" --floe="$FLOE_BIN" --shared="$shared"
