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
# logical decoding needs wal_level=logical, which takes a restart; a small
# logical_decoding_work_mem makes the streaming case stream
sh "$srv" stop "$data" >/dev/null 2>&1
printf '\nwal_level = logical\nmax_replication_slots = 8\nmax_wal_senders = 8\nlogical_decoding_work_mem = 64kB\n' >>"$data/postgresql.conf"
if ! url=$(sh "$srv" start "$data" "$port" 2>/dev/null); then
  echo "FAIL: could not restart PostgreSQL with wal_level=logical:"; tail -20 "$data/server.log"; exit 1
fi
echo "server: $url (wal_level=logical)"
rc=0
FLOE_TEST_PG_URL="$url" "$bin" || rc=1

# floe pg-decode: the same layer from the command line, as JSON lines
floe=${FLOE_BIN:-$build/floe}
psql=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)/psql
if [ -x "$floe" ]; then
  q() { "$psql" -X -q -v ON_ERROR_STOP=1 "$url" -c "$1"; }
  q "CREATE TABLE cli_t (id int PRIMARY KEY, v text, doc text)" || rc=1
  q "ALTER TABLE cli_t ALTER COLUMN doc SET STORAGE EXTERNAL" || rc=1
  q "INSERT INTO cli_t VALUES (1, 'a\"b', repeat('x', 5000))" || rc=1
  q "CREATE PUBLICATION cli_pub FOR TABLE cli_t" || rc=1
  out=$dir/decode.jsonl
  "$floe" pg-decode --dsn "$url" --slot cli_slot --publication cli_pub --create-slot --temporary \
    --snapshot --max-txns 2 --idle-ms 60000 >"$out" 2>"$dir/decode.err" &
  pid=$!
  for i in $(seq 1 100); do  # until the slot exists (its snapshot is taken then)
    [ "$("$psql" -X -tA "$url" -c "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'cli_slot'")" = 1 ] && break
    sleep 0.2
  done
  q "UPDATE cli_t SET v = 'new' WHERE id = 1" || rc=1
  q "DELETE FROM cli_t WHERE id = 1" || rc=1
  if ! wait $pid; then echo "FAIL: floe pg-decode:"; cat "$dir/decode.err"; rc=1; fi
  python3 - "$out" <<'PY' || rc=1
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
got = [(e["event"], e.get("table")) for e in ev]
want = [("relation", "cli_t"), ("insert", "public.cli_t"),
        ("begin", None), ("relation", "cli_t"), ("update", "public.cli_t"), ("commit", None),
        ("begin", None), ("delete", "public.cli_t"), ("commit", None)]
assert got == want, got
assert ev[1]["snapshot"] is True and ev[1]["new"] == {"id": "1", "v": 'a"b', "doc": "x" * 5000}, ev[1]
assert ev[4]["new"] == {"id": "1", "v": "new", "doc": {"unchanged": True}}, ev[4]
assert ev[7]["old_kind"] == "K" and ev[7]["old"] == {"id": "1", "v": None, "doc": None}, ev[7]
assert ev[5]["xid"] == ev[2]["xid"] == ev[4]["xid"] != ev[8]["xid"], ev
print("pg-decode: %d events as expected" % len(ev))
PY
fi
exit $rc
