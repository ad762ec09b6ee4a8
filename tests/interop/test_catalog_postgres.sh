#!/bin/bash
# test_catalog_postgres.sh - runs the C catalog suite (tests/catalog/test_postgres.c)
# against a throwaway PostgreSQL server started with oracle/pg-tmp-server.sh.
# Exit 77 (skipped) when the PostgreSQL server binaries or the test binary are missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${FLOE_BUILD:-$here/../../build}
bin=$build/catalog_test_postgres
if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
  echo "skipped: PostgreSQL server binaries missing (apt-get install postgresql)"; exit 77
fi
if [ ! -x "$bin" ]; then echo "skipped: $bin not built"; exit 77; fi
if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
  echo "skipped: no 'postgres' OS user to run the server as"; exit 77
fi
dir=$(mktemp -d /tmp/floe-pg-XXXXXX)
chmod 755 "$dir"
data=$dir/data
port=$((56000 + RANDOM % 2000))
cleanup() { sh "$here/oracle/pg-tmp-server.sh" stop "$data" >/dev/null 2>&1; rm -rf "$dir" "$dir.initdb.log" "$data.initdb.log"; }
trap cleanup EXIT
url=$(sh "$here/oracle/pg-tmp-server.sh" start "$data" "$port") || {
  echo "FAIL: could not start PostgreSQL:"; cat "$data.initdb.log" "$data/server.log" 2>/dev/null | tail -20; exit 1; }
echo "server: $url"
rc=0
FLOE_TEST_PG_URL="$url" "$bin" || rc=1
# the catalog under the real table code (create, racing txn commits, purge)
if [ -x "$build/catalog_test_e2e" ]; then FLOE_TEST_PG_URL="$url" "$build/catalog_test_e2e" || rc=1; fi
exit $rc
