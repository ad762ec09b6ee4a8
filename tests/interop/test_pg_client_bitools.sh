#!/usr/bin/env bash
# test_pg_client_bitools.sh - issue 5 "introspection replay" with the real drivers of BI tools, against
# `floe serve --pg-port` (SCRAM) and a reference PostgreSQL 15 holding the same objects
# (tests/pgclients/introspection-setup.sql); each client runs against both and the transcripts are
# compared call by call (tests/pgclients/python/transcript_diff.py; calls listed in
# tests/pgclients/known-gaps.txt print GAP against floe):
#  1. pgJDBC 42.5: every java.sql.DatabaseMetaData call Metabase's sync and DBeaver's navigator make
#     (tests/pgclients/java/PgMetaSweep.java): same result columns (labels, JDBC types), same rows about
#     schema sales;
#  2. Tableau's session through psqlODBC (Debian's odbc-postgresql via unixODBC, driven by
#     tests/pgclients/python/tableau_odbc.py with ctypes) with Tableau's connection string
#     (connector-plugin-sdk samples/plugins/postgres_odbc: BOOLSASCHAR=0, LFCONVERSION=0,
#     UseDeclareFetch=1, Fetch=2048: every query is BEGIN; DECLARE "SQL_CUR..." CURSOR WITH HOLD; FETCH
#     2048; CLOSE; COMMIT): set-up, the temp-table probe (outcome printed), SQLTables, SQLColumns,
#     SQLPrimaryKeys, SQLForeignKeys, SQLGetTypeInfo, WHERE (1 = 0) / LIMIT 0 metadata queries, aggregates.
# FLOE_PG_TARGET=postgres runs both sides on PostgreSQL. A part whose client is missing (javac/java and
# the pgJDBC jar; libodbc.so.2 and psqlodbcw.so) is skipped with a message; exit 77 when both are.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../pgclients/pgc-lib.sh"
py=/usr/bin/python3
jar=/usr/share/java/postgresql.jar
drv=/usr/lib/x86_64-linux-gnu/odbc/psqlodbcw.so
[ -x $py ] || pgc_skip "python3 missing"
java_ok=1 odbc_ok=1
{ command -v javac && command -v java && [ -f $jar ]; } >/dev/null 2>&1 || { java_ok=0; echo "skip part 1: javac/java or $jar missing"; }
{ [ -f $drv ] && $py -c 'import ctypes; ctypes.CDLL("libodbc.so.2")'; } >/dev/null 2>&1 || { odbc_ok=0; echo "skip part 2: $drv or libodbc.so.2 missing"; }
[ $java_ok = 1 ] || [ $odbc_ok = 1 ] || pgc_skip "neither pgJDBC nor psqlODBC is installed"
if [ $java_ok = 1 ]; then
  src=$here/../pgclients/java/PgMetaSweep.java
  cls=${FLOE_BUILD:-$here/../../build}/pgclients-java
  mkdir -p "$cls"
  if [ ! -f "$cls/PgMetaSweep.class" ] || [ "$src" -nt "$cls/PgMetaSweep.class" ]; then
    javac -nowarn -cp $jar -d "$cls" "$src" || { echo "FAIL: javac"; exit 1; }
  fi
fi
pgc_start bitools
pgc_start_ref
setup=$here/../pgclients/introspection-setup.sql
out=$(pgc_psql -q -f "$setup" 2>&1) || pgc_fail "introspection-setup.sql on $PGC_TARGET: $out"
out=$(pgc_ref_psql -q -f "$setup" 2>&1) || pgc_fail "introspection-setup.sql on the reference: $out"
fails=0
compare() { # name min-calls
  local n
  n=$(grep -c '^== ' "$PGC_WORK/$1.ref.txt")
  if [ "$n" -lt "$2" ]; then echo "FAIL: only $n calls in the reference transcript of $1"; fails=$((fails+1)); return; fi
  if $py "$here/../pgclients/python/transcript_diff.py" "$PGC_WORK/$1.ref.txt" "$PGC_WORK/$1.txt"; then
    echo "$1: all $n calls answer like PostgreSQL 15"
  else
    echo "FAIL: $1 differs from PostgreSQL 15"; fails=$((fails+1))
  fi
}

if [ $java_ok = 1 ]; then
  sweep() { java -Duser.timezone=UTC -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$cls:$jar" PgMetaSweep "$@"; }
  sweep "$REF_HOST" "$REF_PORT" "$REF_DB" "$REF_USER" "$REF_PASSWORD" >"$PGC_WORK/metasweep.ref.txt" || pgc_fail "sweep against the reference"
  sweep "$PGC_HOST" "$PGC_PORT" "$PGC_DB" "$PGC_USER" "$PGC_PASSWORD" >"$PGC_WORK/metasweep.txt" || pgc_fail "sweep against $PGC_TARGET"
  compare metasweep 50
fi

if [ $odbc_ok = 1 ]; then
  export ODBCSYSINI=$PGC_WORK/odbc ODBCINI=$PGC_WORK/odbc/odbc.ini
  mkdir -p "$ODBCSYSINI"
  printf '[PostgreSQL Unicode]\nDescription=psqlODBC\nDriver=%s\nUsageCount=1\n' $drv >"$ODBCSYSINI/odbcinst.ini"
  : >"$ODBCINI"
  conn() { # host port db user password
    printf 'DRIVER={PostgreSQL Unicode};SERVER=%s;PORT=%s;DATABASE=%s;UID=%s;PWD=%s;SSLMode=disable;BOOLSASCHAR=0;LFCONVERSION=0;UseDeclareFetch=1;Fetch=2048' "$@"
  }
  $py "$here/../pgclients/python/tableau_odbc.py" "$(conn "$REF_HOST" "$REF_PORT" "$REF_DB" "$REF_USER" "$REF_PASSWORD")" \
    "$PGC_WORK/tableau.ref.txt" || pgc_fail "the Tableau session against the reference broke"
  $py "$here/../pgclients/python/tableau_odbc.py" "$(conn "$PGC_HOST" "$PGC_PORT" "$PGC_DB" "$PGC_USER" "$PGC_PASSWORD")" \
    "$PGC_WORK/tableau.txt" || pgc_fail "the Tableau session against $PGC_TARGET broke"
  grep -q '^row: ann|150.25' "$PGC_WORK/tableau.ref.txt" || pgc_fail "the reference transcript lacks the aggregate row"
  compare tableau 22
fi
[ $fails = 0 ] || pgc_fail "$fails client transcripts differ"
echo "BI tool clients answer like PostgreSQL 15"
