#!/usr/bin/env bash
# `floe parquet cat --where/--columns/--limit` vs DuckDB's WHERE on multi-row-group, page-indexed files (pruning must
# never lose a row), and the CLI's error exits/messages. See cli-where.mjs. Skips (77) without the npm packages.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
if [ ! -d "$here/node_modules/@duckdb/node-api" ]; then
  echo "skip: node_modules missing in $here (run: make deps, or npm ci there)"; exit 77
fi
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-cli-where.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
shared="${FLOE_SHARED:-}"
node "$here/cli-where.mjs" --floe="$FLOE_BIN" --tmp="$tmp" ${shared:+--shared="$shared"}
