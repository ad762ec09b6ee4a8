#!/usr/bin/env bash
# test_pg_client_jdbc.sh - issue 5 acceptance: pgJDBC 42.5 on Java 17 against
# `floe serve --pg-port` (SCRAM); see tests/pgclients/java/PgClientJdbc.java.
# The program is compiled with javac against /usr/share/java/postgresql.jar
# into $FLOE_BUILD/pgclients-java (recompiled only when the source is newer).
# FLOE_PG_TARGET=postgres runs it against PostgreSQL 15.
# Exit 77 when javac/java or the pgJDBC jar is missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../pgclients/pgc-lib.sh"
jar=/usr/share/java/postgresql.jar
command -v javac >/dev/null && command -v java >/dev/null || pgc_skip "javac/java not installed (openjdk-17-jdk-headless)"
[ -f $jar ] || pgc_skip "$jar missing (libpostgresql-jdbc-java)"
src=$here/../pgclients/java/PgClientJdbc.java
cls=${FLOE_BUILD:-$here/../../build}/pgclients-java
mkdir -p "$cls"
if [ ! -f "$cls/PgClientJdbc.class" ] || [ "$src" -nt "$cls/PgClientJdbc.class" ]; then
  javac -nowarn -cp $jar -d "$cls" "$src" || { echo "FAIL: javac"; exit 1; }
fi
pgc_start jdbc
out=$(pgc_psql -q -f "$here/../pgclients/setup.sql" 2>&1) || pgc_fail "setup.sql: $out"
java -Duser.timezone=UTC -Xss4m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$cls:$jar" PgClientJdbc \
  "$PGC_HOST" "$PGC_PORT" "$PGC_DB" "$PGC_USER" "$PGC_PASSWORD" || pgc_fail "pgJDBC client"
