#!/bin/bash
# test_sql_func_pg.sh - differential test of floe's functions/casts/operators
# against PostgreSQL: runs tests/sql/test_func_pgdiff.c (a table of calls on
# typed literals, compared as text) against a throwaway server started with
# oracle/pg-tmp-server.sh. Exit 77 (skipped) without the PostgreSQL server
# binaries or the test binary.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${FLOE_BUILD:-$here/../../build}
bin=$build/sql_test_func_pgdiff
if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
  echo "skipped: PostgreSQL server binaries missing (apt-get install postgresql)"; exit 77
fi
if [ ! -x "$bin" ]; then echo "skipped: $bin not built"; exit 77; fi
if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
  echo "skipped: no 'postgres' OS user to run the server as"; exit 77
fi
dir=$(mktemp -d /tmp/floe-pgfunc-XXXXXX)
chmod 755 "$dir"
data=$dir/data
cleanup() { sh "$here/oracle/pg-tmp-server.sh" stop "$data" >/dev/null 2>&1; rm -rf "$dir" "$dir.initdb.log" "$data.initdb.log"; }
trap cleanup EXIT
url=
for attempt in 1 2 3 4 5; do  # a random port; another server may hold one
  port=$((56000 + RANDOM % 4000))
  url=$(sh "$here/oracle/pg-tmp-server.sh" start "$data" "$port" 2>/dev/null) && break
  url=
done
if [ -z "$url" ]; then
  echo "FAIL: could not start PostgreSQL:"; cat "$data.initdb.log" "$data/server.log" 2>/dev/null | tail -20; exit 1
fi
echo "server: $url"
FLOE_PG_URL="$url" "$bin"
