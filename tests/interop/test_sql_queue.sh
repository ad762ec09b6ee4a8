#!/bin/bash
# test_sql_queue.sh - execution slots in a real `floe serve` (issue 23 item 3;
# include/floe/sql_queue.h): with --max-running-statements 1 and
# --max-queued-statements 2, while one psql session runs a long query
#   - SELECT 1, SHOW and catalog queries answer at once, over pgwire and
#     /v1/sql;
#   - a query reading data waits, and its statement_timeout ends the wait
#     with 57014 naming the execution slot;
#   - two more wait (one of them over /v1/sql: the front ends share the
#     slots), a third is refused with 53000;
#   - when the long query's client goes away the waiters run in turn and
#     answer correctly, and /metrics counts all of it.
# Nothing is timed: waits are bounded generously so that only a hang fails.
set -u
floe=${FLOE_BIN:?FLOE_BIN not set}
command -v psql >/dev/null || { echo "skip: psql not installed"; exit 77; }
command -v curl >/dev/null || { echo "skip: curl not installed"; exit 77; }
dir=$(mktemp -d /tmp/floe-queue-XXXXXX)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir"
fails=0
check() { # check DESCRIPTION EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then echo "FAIL: $1: expected [$2] got [$3]"; fails=$((fails+1)); else echo "ok   $1"; fi
}
cat="--catalog sqlite:$dir/wh/catalog.db"
"$floe" sql $cat --warehouse "$dir/wh" -c 'create schema s' \
  -c 'create table s.t as select generate_series as x from generate_series(1, 1000)' >/dev/null
"$floe" serve --port 0 --pg-port 0 $cat --warehouse "$dir/wh" --ready-file "$dir/ready" \
  --insecure-no-auth --pg-trust --max-running-statements 1 --max-queued-statements 2 \
  2>"$dir/log" &
pid=$!
for _ in $(seq 100); do grep -qs '^pg' ready && break; sleep 0.1; done
port=$(sed -n 's/^pg .*://p' ready)
http=http://$(head -1 ready)
[ -n "$port" ] || { echo "FAIL: server did not start"; cat "$dir/log"; exit 1; }
export PGHOST=127.0.0.1 PGPORT=$port PGDATABASE=floe PGUSER=floe PGSSLMODE=disable
q() { timeout 60 psql -X -q -A -t -v ON_ERROR_STOP=0 "$@" 2>&1; }
metric() { curl -s "$http/metrics" | sed -n "s/^$1 //p"; }
wait_metric() { # wait_metric NAME VALUE: until /metrics shows it (bounded)
  for _ in $(seq 600); do [ "$(metric "$1")" = "$2" ] && return 0; sleep 0.1; done
  return 1
}

check "slots configured" "1" "$(metric floe_sql_slots)"
# the long query: minutes of work unless its client goes away
psql -X -q -A -t -c 'select count(*) from generate_series(1, 40000000000)' >"$dir/long.out" 2>&1 &
long=$!
check "the long query holds the slot" "yes" "$(wait_metric floe_sql_statements_running 1 && echo yes)"

check "SELECT 1 passes the queue" "1" "$(q -c 'select 1')"
check "SHOW passes the queue" "UTC" "$(q -c 'show timezone')"
check "a catalog query passes the queue" "1" \
  "$(q -c "select count(*) from information_schema.tables where table_schema = 's'")"
check "/v1/sql SELECT 1 passes the queue" "yes" \
  "$(curl -s --max-time 60 --data-binary 'select 41 + 1 as v' "$http/v1/sql" | grep -q 42 && echo yes)"
check "the long query is still the only one running" "1 0" \
  "$(metric floe_sql_statements_running) $(metric floe_sql_statements_queued)"

out=$(q -v VERBOSITY=verbose -c "set statement_timeout = '300ms'" -c 'select count(*) from s.t')
check "statement_timeout ends a wait with 57014" "yes" "$(echo "$out" | grep -q 57014 && echo yes)"
check "the error names the execution slot" "yes" "$(echo "$out" | grep -q 'execution slot' && echo yes)"

q -c 'select sum(x) from s.t' >"$dir/w1.out" &
w1=$!
wait_metric floe_sql_statements_queued 1
curl -s --max-time 120 --data-binary 'select count(*) as n from s.t where x > 500' "$http/v1/sql" \
  >"$dir/w2.out" &
w2=$!
check "two statements wait, one of them over /v1/sql" "yes" \
  "$(wait_metric floe_sql_statements_queued 2 && echo yes)"
out=$(q -v VERBOSITY=verbose -c 'select max(x) from s.t')
check "a third waiter is refused with 53000" "yes" "$(echo "$out" | grep -q 53000 && echo yes)"
check "the refusal says why" "yes" "$(echo "$out" | grep -q 'waiting for an execution slot' && echo yes)"

kill $long 2>/dev/null # the client goes away: the server cancels its statement
wait $long 2>/dev/null
wait $w1 $w2
check "the waiters ran: pgwire" "500500" "$(cat "$dir/w1.out")"
check "the waiters ran: /v1/sql" "yes" "$(grep -q '500' "$dir/w2.out" && echo yes)"
check "every slot came back" "0 0" \
  "$(metric floe_sql_statements_running) $(metric floe_sql_statements_queued)"
check "refusals counted" "1" "$(metric floe_sql_queue_refused_total)"
check "cancelled waits counted" "1" "$(metric floe_sql_queue_canceled_total)"
check "waits counted" "2" "$(metric floe_sql_statements_waited_total)"
check "a statement after all of it runs at once" "1000" "$(q -c 'select count(*) from s.t')"

if [ $fails -ne 0 ]; then
  echo "--- server log"; tail -20 "$dir/log"
  echo "$fails failed"; exit 1
fi
echo "all passed"
