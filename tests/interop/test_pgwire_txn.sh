#!/bin/bash
# test_pgwire_txn.sh - transaction blocks through floe serve's PostgreSQL
# listener, with psql 15 and node `pg` (pgwire-txn.mjs): a ROLLBACK leaves the
# table unchanged (row count, current snapshot id, files on disk), a COMMIT
# makes every statement of the block visible to another connection at once
# (one new metadata version), a failed block answers ROLLBACK to COMMIT,
# savepoints, DDL inside a block commits at once with a NOTICE, two
# connections inserting concurrently inside blocks both land.
set -u
floe=${FLOE_BIN:?FLOE_BIN not set}
here=$(cd "$(dirname "$0")" && pwd)
command -v psql >/dev/null || { echo "skip: psql not installed"; exit 77; }
dir=$(mktemp -d /tmp/floe-pgtxn-XXXXXX)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir"
fails=0
check() { # check DESCRIPTION EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then echo "FAIL: $1: expected [$2] got [$3]"; fails=$((fails+1)); else echo "ok   $1"; fi
}
cat="--catalog sqlite:$dir/wh/catalog.db"
secret=$("$floe" admin principal create alice --admin $cat 2>/dev/null | sed -n 's/^client_secret: //p')
"$floe" serve --port 0 --pg-port 0 $cat --warehouse "$dir/wh" --ready-file "$dir/ready" 2>"$dir/log" &
pid=$!
for _ in $(seq 100); do grep -qs '^pg' ready && break; sleep 0.1; done
port=$(sed -n 's/^pg .*://p' ready)
[ -n "$port" ] || { echo "FAIL: server did not start"; cat "$dir/log"; exit 1; }
export PGHOST=127.0.0.1 PGPORT=$port PGUSER=alice PGPASSWORD=$secret PGDATABASE=floe PGSSLMODE=disable
q() { psql -X -q -A -t -v ON_ERROR_STOP=0 "$@" 2>&1; }
snap() { q -c "select snapshot_id from s.\"t\$snapshots\" order by committed_at desc, snapshot_id limit 1"; }
nfiles() { find "$dir/wh" -type f | wc -l; }

q -c 'create schema s' -c 'create table s.t (id bigint, v text)' -c "insert into s.t values (1, 'a'), (2, 'b')" >/dev/null
s0=$(snap); f0=$(nfiles)
check "block reads its own writes" $'4\n3' "$(q -c 'begin' -c "insert into s.t values (3, 'c'), (4, 'd')" \
  -c 'select count(*) from s.t' -c 'delete from s.t where id = 4' -c "update s.t set v = 'x' where id = 1" \
  -c 'select count(*) from s.t' -c 'rollback')"
check "rollback: rows unchanged" $'1|a\n2|b' "$(q -c 'select id, v from s.t order by id')"
check "rollback: snapshot unchanged" "$s0" "$(snap)"
check "rollback: no files left" "$f0" "$(nfiles)"
# COMMIT: another connection sees nothing before, everything after
(q -c 'begin' -c "insert into s.t values (10, 'p')" -c "insert into s.t values (11, 'q')" \
   -c 'delete from s.t where id = 2' -c '\! sleep 2' -c 'commit' > commit.out) &
sleep 1
check "uncommitted invisible to others" "2" "$(q -c 'select count(*) from s.t')"
wait $!
check "commit tag" "" "$(cat commit.out)"
check "committed rows visible" $'1\n10\n11' "$(q -c 'select id from s.t order by id')"
check "the block landed its three snapshots" "3" "$(q -c "select count(*) from s.\"t\$snapshots\" where snapshot_id <> $s0 and committed_at >= (select committed_at from s.\"t\$snapshots\" where snapshot_id = $s0)")"
check "failed block: COMMIT answers ROLLBACK" $'ERROR:  division by zero in (1 / 0)\nROLLBACK\n3' \
  "$(psql -X -A -t -c 'begin' -c "insert into s.t values (20, 'z')" -c 'select 1/0' -c 'commit' -c 'select count(*) from s.t' 2>&1 | grep -v '^BEGIN\|^INSERT')"
check "savepoints" $'1\n10\n11\n31' "$(q -c 'begin' -c "insert into s.t values (30, 'y')" -c 'savepoint a' \
  -c "insert into s.t values (31, 'y')" -c 'rollback to savepoint a' -c 'release a' -c 'rollback' \
  -c 'begin' -c 'savepoint b' -c "insert into s.t values (30, 'y')" -c 'rollback to b' -c "insert into s.t values (31, 'y')" -c 'commit' \
  -c 'select id from s.t order by id')"
check "ddl in a block: NOTICE, committed at once" "yes" "$(psql -X -A -t -c 'begin' -c 'create table s.u (x int)' -c 'rollback' 2>&1 | grep -q 'NOTICE:  floe commits DDL at once' && q -c 'select count(*) from s.u' | grep -qx 0 && echo yes)"
check "ddl on a staged table refused" "0A000" "$(q -c 'begin' -c "insert into s.t values (40, 'w')" -c 'alter table s.t add column w int' -c '\echo :LAST_ERROR_SQLSTATE' -c 'rollback' | tail -1)"
check "read only block" "25006" "$(q -c 'begin read only' -c "insert into s.t values (41, 'w')" -c '\echo :LAST_ERROR_SQLSTATE' -c 'rollback' | tail -1)"
if [ -d "$here/node_modules/pg" ]; then
  (cd "$here" && timeout 120 node pgwire-txn.mjs "$port" "$secret") || fails=$((fails+1))
else
  echo "skip: node pg part (tests/interop/node_modules/pg missing)"
fi
exit $((fails > 0))
