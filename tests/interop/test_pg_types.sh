#!/usr/bin/env bash
# test_pg_types.sh - issue 5 "exact types": the same values (int extremes,
# 38-digit decimals, float specials, dates/timestamps far in the past and
# future with microseconds, timestamptz in several session time zones, uuid,
# bytea with every byte value, unicode text, booleans, NULLs of every type)
# stored in and selected from `floe serve` and a real PostgreSQL 15, in text
# and binary result format (raw wire bytes through node pg), and as binary
# parameters, compared byte for byte; RowDescription OIDs/typmods too. See
# tests/pgclients/node/pg-types-compare.mjs (the int2 -> int4 mapping is the
# one documented difference).
# FLOE_PG_TARGET=postgres compares PostgreSQL with itself (validates the test).
# Exit 77 when node, node_modules/pg or the PostgreSQL server binaries are missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../pgclients/pgc-lib.sh"
command -v node >/dev/null || pgc_skip "node not installed"
[ -d "$here/node_modules/pg" ] || pgc_skip "tests/interop/node_modules/pg not installed (npm ci)"
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || pgc_skip "PostgreSQL 15 server binaries not installed (the reference)"
export PGC_NODE_MODULES=$here/node_modules
pgc_start types
pgc_start_ref
node "$here/../pgclients/node/pg-types-compare.mjs" || pgc_fail "values differ from PostgreSQL 15"
