#!/usr/bin/env bash
# test_pg_client_tableau.sh - issue 5 "introspection replay": Tableau's PostgreSQL session through
# psqlODBC (Debian's odbc-postgresql, psqlodbcw.so, via unixODBC; driven by
# tests/pgclients/python/tableau_odbc.py with ctypes) against `floe serve --pg-port` (SCRAM) and
# against a reference PostgreSQL 15 holding the same objects (tests/pgclients/introspection-setup.sql).
# The connection string is Tableau's (connector-plugin-sdk samples/plugins/postgres_odbc:
# BOOLSASCHAR=0, LFCONVERSION=0, UseDeclareFetch=1, Fetch=2048), so every query travels as
# BEGIN; DECLARE "SQL_CUR..." CURSOR WITH HOLD FOR ...; FETCH 2048; CLOSE; COMMIT. The session: set-up
# statements, the temp-table probe (floe answers with an error, as Tableau expects of servers without
# temp tables), SQLTables, SQLColumns, SQLPrimaryKeys, SQLForeignKeys, SQLGetTypeInfo, WHERE (1 = 0)
# and LIMIT 0 metadata queries and Tableau-style aggregates. The transcripts of both servers are
# compared call by call (transcript_diff.py; calls listed in tests/pgclients/known-gaps.txt print GAP
# against floe). FLOE_PG_TARGET=postgres runs both sides on PostgreSQL.
# Exit 77 when python3, unixODBC's libodbc.so.2, the psqlODBC driver or the server binaries are missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../pgclients/pgc-lib.sh"
drv=/usr/lib/x86_64-linux-gnu/odbc/psqlodbcw.so
py=/usr/bin/python3
[ -x $py ] || pgc_skip "python3 missing"
[ -f $drv ] || pgc_skip "$drv missing (odbc-postgresql)"
$py -c 'import ctypes; ctypes.CDLL("libodbc.so.2")' 2>/dev/null || pgc_skip "libodbc.so.2 missing (unixodbc)"
pgc_start tableau
pgc_start_ref
setup=$here/../pgclients/introspection-setup.sql
out=$(pgc_psql -q -f "$setup" 2>&1) || pgc_fail "introspection-setup.sql on $PGC_TARGET: $out"
out=$(pgc_ref_psql -q -f "$setup" 2>&1) || pgc_fail "introspection-setup.sql on the reference: $out"
export ODBCSYSINI=$PGC_WORK/odbc ODBCINI=$PGC_WORK/odbc/odbc.ini
mkdir -p "$ODBCSYSINI"
printf '[PostgreSQL Unicode]\nDescription=psqlODBC\nDriver=%s\nUsageCount=1\n' $drv >"$ODBCSYSINI/odbcinst.ini"
: >"$ODBCINI"
conn() { # host port db user password
  printf 'DRIVER={PostgreSQL Unicode};SERVER=%s;PORT=%s;DATABASE=%s;UID=%s;PWD=%s;SSLMode=disable;BOOLSASCHAR=0;LFCONVERSION=0;UseDeclareFetch=1;Fetch=2048' "$@"
}
$py "$here/../pgclients/python/tableau_odbc.py" "$(conn "$REF_HOST" "$REF_PORT" "$REF_DB" "$REF_USER" "$REF_PASSWORD")" \
  "$PGC_WORK/ref.txt" || pgc_fail "the Tableau session against the reference broke"
$py "$here/../pgclients/python/tableau_odbc.py" "$(conn "$PGC_HOST" "$PGC_PORT" "$PGC_DB" "$PGC_USER" "$PGC_PASSWORD")" \
  "$PGC_WORK/target.txt" || pgc_fail "the Tableau session against $PGC_TARGET broke"
n=$(grep -c '^== ' "$PGC_WORK/ref.txt")
[ "$n" -ge 22 ] || pgc_fail "only $n calls in the reference transcript"
grep -q '^row: ann|150.25' "$PGC_WORK/ref.txt" || pgc_fail "the reference transcript lacks the aggregate row"
$py "$here/../pgclients/python/transcript_diff.py" "$PGC_WORK/ref.txt" "$PGC_WORK/target.txt" || pgc_fail "Tableau's ODBC session differs from PostgreSQL 15"
echo "Tableau's ODBC session ($n calls) answers like PostgreSQL 15"
