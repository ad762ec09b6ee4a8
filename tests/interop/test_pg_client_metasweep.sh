#!/usr/bin/env bash
# test_pg_client_metasweep.sh - issue 5 "introspection replay": every java.sql.DatabaseMetaData call
# that Metabase's sync and DBeaver's navigator make through pgJDBC 42.5
# (tests/pgclients/java/PgMetaSweep.java) against `floe serve --pg-port` (SCRAM) and against a
# reference PostgreSQL 15 holding the same objects (tests/pgclients/introspection-setup.sql). Each call
# must answer without error with the same result columns (labels and JDBC types) and the same rows about
# schema sales as PostgreSQL; the transcripts are compared block by block
# (tests/pgclients/python/transcript_diff.py; a block listed in tests/pgclients/known-gaps.txt prints
# GAP against floe). FLOE_PG_TARGET=postgres runs both sides on PostgreSQL (checks the expectations).
# Exit 77 when javac/java, the pgJDBC jar or the PostgreSQL server binaries are missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../pgclients/pgc-lib.sh"
jar=/usr/share/java/postgresql.jar
command -v javac >/dev/null && command -v java >/dev/null || pgc_skip "javac/java not installed (openjdk-17-jdk-headless)"
[ -f $jar ] || pgc_skip "$jar missing (libpostgresql-jdbc-java)"
src=$here/../pgclients/java/PgMetaSweep.java
cls=${FLOE_BUILD:-$here/../../build}/pgclients-java
mkdir -p "$cls"
if [ ! -f "$cls/PgMetaSweep.class" ] || [ "$src" -nt "$cls/PgMetaSweep.class" ]; then
  javac -nowarn -cp $jar -d "$cls" "$src" || { echo "FAIL: javac"; exit 1; }
fi
pgc_start metasweep
pgc_start_ref
setup=$here/../pgclients/introspection-setup.sql
out=$(pgc_psql -q -f "$setup" 2>&1) || pgc_fail "introspection-setup.sql on $PGC_TARGET: $out"
out=$(pgc_ref_psql -q -f "$setup" 2>&1) || pgc_fail "introspection-setup.sql on the reference: $out"
sweep() { java -Duser.timezone=UTC -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$cls:$jar" PgMetaSweep "$@"; }
sweep "$REF_HOST" "$REF_PORT" "$REF_DB" "$REF_USER" "$REF_PASSWORD" >"$PGC_WORK/ref.txt" || pgc_fail "sweep against the reference"
sweep "$PGC_HOST" "$PGC_PORT" "$PGC_DB" "$PGC_USER" "$PGC_PASSWORD" >"$PGC_WORK/target.txt" || pgc_fail "sweep against $PGC_TARGET"
n=$(grep -c '^== ' "$PGC_WORK/ref.txt")
[ "$n" -ge 50 ] || pgc_fail "only $n metadata calls in the reference transcript"
if grep -q '^ERROR' "$PGC_WORK/ref.txt" && ! grep -B1 '^ERROR' "$PGC_WORK/ref.txt" | grep -q 'not yet implemented'; then
  : # pgJDBC's own "not yet implemented" methods error identically on both sides; others are compared
fi
/usr/bin/python3 "$here/../pgclients/python/transcript_diff.py" "$PGC_WORK/ref.txt" "$PGC_WORK/target.txt" || pgc_fail "DatabaseMetaData answers differ from PostgreSQL 15"
echo "all $n DatabaseMetaData calls answer like PostgreSQL 15"
