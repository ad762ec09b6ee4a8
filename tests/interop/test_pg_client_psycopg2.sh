#!/usr/bin/env bash
# test_pg_client_psycopg2.sh - issue 5 acceptance: psycopg2 + pandas.read_sql
# (+ SQLAlchemy reflection) against `floe serve --pg-port` with SCRAM; see
# tests/pgclients/python/pg_client_psycopg2.py for what is checked.
# FLOE_PG_TARGET=postgres runs the same program against PostgreSQL 15.
# Exit 77 when Debian's python3 lacks psycopg2/pandas/sqlalchemy or psql is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../pgclients/pgc-lib.sh"
py=/usr/bin/python3
[ -x $py ] || pgc_skip "/usr/bin/python3 missing"
$py -c 'import psycopg2, pandas, sqlalchemy' 2>/dev/null || pgc_skip "python3-psycopg2/python3-pandas/python3-sqlalchemy not installed"
pgc_start psycopg2
out=$(pgc_psql -q -f "$here/../pgclients/setup.sql" 2>&1) || pgc_fail "setup.sql: $out"
$py "$here/../pgclients/python/pg_client_psycopg2.py" || pgc_fail "psycopg2 client"
