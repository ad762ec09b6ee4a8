#!/usr/bin/env bash
# Java's own Iceberg JdbcCatalog (iceberg-core 1.11, sqlite-jdbc, pgJDBC) opens the catalog
# databases floe serve uses, SQLite and PostgreSQL, loads and commits tables there, and floe
# sees those commits while Java sees floe's. Rows compared cell by cell.
# Prints "jdbc-catalog: N passed, M failed".
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib/env.sh"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
jars="$(floe_jars jdbc)"
[ -x "$FLOE_ENGINE_PY" ] || { echo "FAIL: engine venv missing ($FLOE_ENGINE_PY): run scripts/install-deps.sh"; exit 1; }
[ -f "$jars/.floe-ok" ] || { echo "FAIL: jars missing ($jars): run scripts/install-deps.sh"; exit 1; }
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-jdbc.XXXXXX")"
chmod 755 "$tmp"
pgdata="$tmp/pg"
cleanup() { sh "$here/../interop/oracle/pg-tmp-server.sh" stop "$pgdata" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
javac -d "$tmp/classes" -cp "$jars/*" "$here/jdbc/JdbcCatalogCheck.java" || { echo "FAIL: javac"; exit 1; }
pg_url=
if ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
  for _ in 1 2 3 4 5; do  # a random port; another server may hold one
    port=$((56000 + RANDOM % 4000))
    pg_url=$(sh "$here/../interop/oracle/pg-tmp-server.sh" start "$pgdata" "$port" 2>/dev/null) && break
    pg_url=
  done
fi
[ -n "$pg_url" ] || echo "note: PostgreSQL could not start; its scenarios will fail"
JDBC_CLASSPATH="$tmp/classes:$jars/*" PG_URL="$pg_url" JDBC_TMP="$tmp" \
  "$FLOE_ENGINE_PY" "$here/jdbc/scenarios.py"
