#!/bin/bash
# test_pg_cdc_live.sh - runs the CDC protocol test (tests/ingest/test_pg_cdc_live.c)
# against a throwaway PostgreSQL server (oracle/pg-tmp-server.sh) restarted with
# wal_level=logical. Exit 77 (skipped) when the PostgreSQL server binaries or the
# test binary are missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${FLOE_BUILD:-$here/../../build}
bin=$build/ingest_test_pg_cdc_live
if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
  echo "skipped: PostgreSQL server binaries missing (apt-get install postgresql)"; exit 77
fi
if [ ! -x "$bin" ]; then echo "skipped: $bin not built"; exit 77; fi
if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
  echo "skipped: no 'postgres' OS user to run the server as"; exit 77
fi
dir=$(mktemp -d /tmp/floe-pgcdc-XXXXXX)
chmod 755 "$dir"
data=$dir/data
srv="$here/oracle/pg-tmp-server.sh"
cleanup() { sh "$srv" stop "$data" >/dev/null 2>&1; rm -rf "$dir" "$data.initdb.log"; }
trap cleanup EXIT
url=
for attempt in 1 2 3 4 5; do  # a random port; another server may hold one
  port=$((56000 + RANDOM % 4000))
  url=$(sh "$srv" start "$data" "$port" 2>/dev/null) && break
  url=
done
if [ -z "$url" ]; then
  echo "FAIL: could not start PostgreSQL:"; cat "$data.initdb.log" "$data/server.log" 2>/dev/null | tail -20; exit 1
fi
# logical decoding needs wal_level=logical, which takes a restart
sh "$srv" stop "$data" >/dev/null 2>&1
printf '\nwal_level = logical\nmax_replication_slots = 8\nmax_wal_senders = 8\n' >>"$data/postgresql.conf"
if ! url=$(sh "$srv" start "$data" "$port" 2>/dev/null); then
  echo "FAIL: could not restart PostgreSQL with wal_level=logical:"; tail -20 "$data/server.log"; exit 1
fi
echo "server: $url (wal_level=logical)"
rc=0
FLOE_TEST_PG_URL="$url" "$bin" || rc=1
exit $rc
