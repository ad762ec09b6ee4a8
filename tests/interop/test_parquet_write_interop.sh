#!/usr/bin/env bash
# floe's Parquet writer read by DuckDB, arrow-rs and hyparquet (values, field ids, statistics), for every codec and
# several layouts; and files from DuckDB, arrow-rs and hyparquet-writer read by floe. See write-interop.mjs.
# Needs no fixtures; skips (77) only when the pinned npm packages are not installed.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
if [ ! -d "$here/node_modules/@duckdb/node-api" ]; then
  echo "skip: node_modules missing in $here (run: make deps, or npm ci there)"; exit 77
fi
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-write-interop.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
node "$here/write-interop.mjs" --floe="$FLOE_BIN" --tmp="$tmp"
