#!/usr/bin/env bash
# test_pg_client_node.sh - issue 5 acceptance: node `pg` 8.23 (extended
# protocol, SCRAM) against `floe serve --pg-port`; see
# tests/pgclients/node/pg-client-node.mjs. FLOE_PG_TARGET=postgres runs it
# against PostgreSQL 15. Exit 77 when node or node_modules/pg is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../pgclients/pgc-lib.sh"
command -v node >/dev/null || pgc_skip "node not installed"
[ -d "$here/node_modules/pg" ] || pgc_skip "tests/interop/node_modules/pg not installed (npm ci)"
export PGC_NODE_MODULES=$here/node_modules
pgc_start node
out=$(pgc_psql -q -f "$here/../pgclients/setup.sql" 2>&1) || pgc_fail "setup.sql: $out"
node "$here/../pgclients/node/pg-client-node.mjs" || pgc_fail "node pg client"
