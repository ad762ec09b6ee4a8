#!/usr/bin/env bash
# test_sql_cancel.sh — issue 4 "Long queries can be cancelled", through the CLI: SIGINT to `floe sql -c` running a
# long query ends the statement with PostgreSQL's "canceling statement due to user request" error and a non-zero
# exit status, and leaves no spill file behind. Cases: a spilling hash aggregate (the test first waits until the
# process holds open spill files, seen as deleted "floe-spill-*" entries in /proc/PID/fd, so the cancel lands
# while spilling), a nested-loop cross join, and a sort; plus statement_timeout set in the same -c script
# (SQLSTATE 57014's "canceling statement due to statement timeout").
# Waiting is by polling with generous bounds (a hang fails; nothing is timed).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${FLOE_SRC:-$(cd "$here/../.." && pwd)}"
floe="${FLOE_BIN:-$root/build/floe}"
tmp="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
fails=0
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; fails=$((fails + 1)); }

# run_cancel NAME SQL WAIT_FOR_SPILL
run_cancel() {
  local name="$1" sql="$2" want_spill="$3"
  local spill="$tmp/spill-$name"
  mkdir -p "$spill"
  TMPDIR="$spill" "$floe" sql --no-catalog --threads 2 --memory-limit 32MB -c "$sql" >"$tmp/$name.out" 2>"$tmp/$name.err" &
  local pid=$!
  pids+=("$pid")
  # wait until the statement runs (and, if asked, spills): at most 60 s
  local i=0 seen=0
  while [ $i -lt 600 ]; do
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    if [ "$want_spill" = 1 ]; then
      if ls -l "/proc/$pid/fd" 2>/dev/null | grep 'floe-spill-.*(deleted)' >/dev/null; then seen=1; break; fi
    elif [ $i -ge 10 ]; then
      break # 1 s: the statement is running (it would take hours)
    fi
    sleep 0.1
    i=$((i + 1))
  done
  if [ "$want_spill" = 1 ]; then
    if [ $seen = 1 ]; then pass "$name: spilling before the cancel"; else fail "$name: never saw an open spill file"; fi
  fi
  kill -INT "$pid" 2>/dev/null
  # wait for the exit: at most 60 s
  i=0
  while kill -0 "$pid" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
  if kill -0 "$pid" 2>/dev/null; then
    fail "$name: still running 60 s after SIGINT"
    kill -9 "$pid" 2>/dev/null
  fi
  wait "$pid"
  local rc=$?
  if [ "$rc" != 0 ] && [ "$rc" -lt 128 ]; then pass "$name: exit status $rc"; else fail "$name: exit status $rc (want a non-zero status from floe, not a signal death)"; fi
  if grep -q 'canceling statement due to user request' "$tmp/$name.err"; then pass "$name: cancel message"; else
    fail "$name: no cancel message in stderr:"; cat "$tmp/$name.err"; fi
  if [ -z "$(ls -A "$spill")" ]; then pass "$name: no spill files left"; else fail "$name: spill files left: $(ls -A "$spill")"; fi
}

run_cancel agg "SELECT count(*) FROM (SELECT generate_series % 1000000000 AS k, count(*) AS c FROM generate_series(1, 4000000000000) GROUP BY 1) q" 1
run_cancel crossjoin "SELECT count(*) FROM generate_series(1, 4000000000000) a, generate_series(1, 100000) b WHERE a + b = 0" 0
run_cancel sort "SELECT generate_series FROM generate_series(1, 4000000000000) ORDER BY generate_series % 7, 1 LIMIT 3" 0

# statement_timeout in the same script: the long statement fails with the timeout message; exit non-zero
mkdir -p "$tmp/spill-timeout"
TMPDIR="$tmp/spill-timeout" timeout 120 "$floe" sql --no-catalog --memory-limit 32MB -c "SET statement_timeout = '500ms'" \
  -c "SELECT count(*) FROM (SELECT generate_series % 1000000000 AS k FROM generate_series(1, 4000000000000) GROUP BY 1) q" \
  >"$tmp/timeout.out" 2>"$tmp/timeout.err"
rc=$?
if [ "$rc" != 0 ] && [ "$rc" != 124 ]; then pass "statement_timeout: exit status $rc"; else fail "statement_timeout: exit status $rc"; fi
if grep -q 'canceling statement due to statement timeout' "$tmp/timeout.err"; then pass "statement_timeout: message"; else
  fail "statement_timeout: message"; cat "$tmp/timeout.err"; fi
if [ -z "$(ls -A "$tmp/spill-timeout")" ]; then pass "statement_timeout: no spill files left"; else fail "statement_timeout: spill files left"; fi

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all passed"
