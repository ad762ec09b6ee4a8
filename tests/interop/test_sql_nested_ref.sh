#!/usr/bin/env bash
# test_sql_nested_ref.sh - issue 17: the expected rows of tests/sql/slt/nested.slt (which sql/test_slt runs
# against floe) are still what the reference engines answer: PostgreSQL 15 for arrays and composites, DuckDB
# for maps and structs (tests/sql/slt/nested-expected.sh). Exit 77 without the PostgreSQL server binaries or
# the engine venv's duckdb/psycopg2.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../engines/lib/env.sh"
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || { echo "SKIP: PostgreSQL server binaries not installed"; exit 77; }
[ -x "$FLOE_ENGINE_PY" ] && "$FLOE_ENGINE_PY" -c 'import duckdb, psycopg2' 2>/dev/null \
  || { echo "SKIP: engine venv with duckdb and psycopg2 missing (scripts/install-deps.sh)"; exit 77; }
PGPORT_SLT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export PGPORT_SLT
bash "$here/../sql/slt/nested-expected.sh"
