#!/usr/bin/env bash
# test_pg_sqlsmith.sh - issue 5 acceptance: Debian's sqlsmith generates random
# queries against `floe serve --pg-port` (SCRAM) over a few small tables
# (tests/pgclients/sqlsmith-setup.sql). sqlsmith first introspects pg_type,
# information_schema.tables, pg_attribute, pg_constraint, pg_operator and
# pg_proc (one query per routine), sets statement_timeout = 1s, then sends
# every generated statement as BEGIN; stmt; ROLLBACK (DML included).
# The queries run in runs of $FLOE_SQLSMITH_BATCH with seeds 1, 2, ...,
# --exclude-catalog (queries over the lake tables, not over pg_catalog), each
# run under a timeout. Pass = no run hangs (timeout), sqlsmith never reports
# a broken connection, and after every run the server process is alive and
# answers a query. Errors are fine; their count is printed.
# Queries: FLOE_SQLSMITH_QUERIES (default 2500 in the gcc build, 300 in the
# ASan build - FLOE_BUILD ends in build-asan).
# FLOE_PG_TARGET=postgres runs it against PostgreSQL 15.
# Exit 77 when sqlsmith is not installed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../pgclients/pgc-lib.sh"
command -v sqlsmith >/dev/null || pgc_skip "sqlsmith not installed (apt-get install sqlsmith)"
# (lateral: since LATERAL/correlated queries execute instead of failing at bind time, ~80% of the
# queries run, some up to the 1 s statement_timeout: 10,000 take ~15 min on a loaded 2-core machine,
# so make test runs 2,500 in runs of 500; FLOE_SQLSMITH_QUERIES=10000 for the full count)
if pgc_is_asan; then total=${FLOE_SQLSMITH_QUERIES:-300}; else total=${FLOE_SQLSMITH_QUERIES:-2500}; fi
batch=${FLOE_SQLSMITH_BATCH:-500}
run_timeout=${FLOE_SQLSMITH_TIMEOUT:-300}
pgc_start sqlsmith
out=$(pgc_psql -q -f "$here/../pgclients/sqlsmith-setup.sql" 2>&1) || pgc_fail "sqlsmith-setup.sql: $out"
target="host=$PGC_HOST port=$PGC_PORT user=$PGC_USER dbname=$PGC_DB sslmode=disable"
done_q=0 seed=0 errors=0 ok_q=0 fails=0
while [ $done_q -lt $total ]; do
  seed=$((seed + 1)); n=$((total - done_q)); [ $n -gt $batch ] && n=$batch
  start=$(date +%s)
  timeout -k 5 "$run_timeout" sqlsmith --target="$target" --seed=$seed --max-queries=$n --exclude-catalog --verbose \
    >"$PGC_WORK/smith.$seed.out" 2>"$PGC_WORK/smith.$seed.err"
  rc=$?
  secs=$(( $(date +%s) - start ))
  err=$PGC_WORK/smith.$seed.err
  # progress characters: '.' ok, 'e' error, 'S' syntax error, 't' timeout, 'C' broken connection
  prog=$(grep -E '^[.eStC]+$' "$err" | tr -d '\n')
  e=$(printf '%s' "$prog" | tr -cd 'eSt' | wc -c); o=$(printf '%s' "$prog" | tr -cd '.' | wc -c)
  c=$(printf '%s' "$prog" | tr -cd 'C' | wc -c)
  errors=$((errors + e)); ok_q=$((ok_q + o))
  echo "run seed=$seed queries=$n: rc=$rc ${secs}s ok=$o errors=$e broken=$c $(grep -m1 '^error rate' "$err")"
  if [ $rc = 124 ] || [ $rc = 137 ]; then echo "FAIL: sqlsmith run seed=$seed hung (> ${run_timeout}s)"; fails=$((fails + 1)); fi
  if [ "$c" != 0 ] || grep -i 'connection.*\(broken\|closed\|lost\)\|server closed the connection' >/dev/null "$err"; then
    echo "FAIL: broken connection in run seed=$seed:"; grep -i -m5 'connection\|broken' "$err"; fails=$((fails + 1)); fi
  if [ $rc != 0 ] && [ $rc != 124 ] && [ $((o + e)) = 0 ]; then
    echo "FAIL: sqlsmith ran no query (rc=$rc):"; tail -15 "$err"; fails=$((fails + 1)); break; fi
  kill -0 "$PGC_PID" 2>/dev/null || { echo "FAIL: the server process died during run seed=$seed"; fails=$((fails + 1)); break; }
  # (floe commits each statement: sqlsmith's BEGIN; DML; ROLLBACK really changes the tables, so only
  # check that a count comes back, not which)
  alive=$(PGCONNECT_TIMEOUT=10 timeout 20 psql -X -A -t -c 'SELECT count(*) FROM lake.orders' 2>&1)
  case $alive in ''|*[!0-9]*) false ;; esac || { echo "FAIL: server not answering after run seed=$seed: $alive"; fails=$((fails + 1)); break; }
  done_q=$((done_q + n))
done
echo "sqlsmith: $((ok_q + errors)) queries in $seed run(s): $ok_q ok, $errors errors (the error messages, most frequent first:)"
cat "$PGC_WORK"/smith.*.err | grep -E $'^[0-9]+\t' | awk -F'\t' '{ c[$2] += $1 } END { for (m in c) print c[m] "\t" m }' | sort -rn | head -15
[ $fails = 0 ] || { pgc_server_log_tail; echo "FAILED"; exit 1; }
echo "PASS: no crash, no hang, server alive"
