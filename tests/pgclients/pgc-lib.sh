# pgc-lib.sh - shared setup of the real-client acceptance tests of issue 5
# (tests/interop/test_pg_client_*.sh, test_pg_types.sh, test_pg_sqlsmith.sh,
# bench/pgwire_bench.sh). Sourced, not run.
#
# It starts ONE server for the calling test and exports how to reach it:
#   PGC_HOST PGC_PORT PGC_USER PGC_PASSWORD PGC_DB  (+ PGHOST/PGPORT/... for libpq)
#   PGC_TARGET  "floe" or "postgres"
#   PGC_PID     the server process (floe serve, or the postmaster)
#   PGC_WORK    a fresh temp dir, removed on exit
#
# Target: $FLOE_PG_TARGET = floe (default) runs `floe serve --pg-port` on a
# temp warehouse with a SQLite catalog and a principal "tester" created with
# `floe admin principal create tester --admin` (its secret is the password);
# = postgres runs a throwaway PostgreSQL 15 (Debian's binaries, as the OS
# user postgres when root) with SCRAM-SHA-256 host auth and the same user,
# password and database name. Every test is written so that it passes
# against PostgreSQL 15: that is how each assertion is known correct.
#
# Auth: SCRAM-SHA-256 on both targets (no trust).

pgc_skip() { echo "SKIP: $*"; exit 77; }
pgc_fail() { echo "FAIL: $*"; pgc_server_log_tail; exit 1; }

pgc_server_log_tail() {
  if [ -n "${PGC_LOG:-}" ] && [ -f "$PGC_LOG" ]; then
    echo "--- server log (tail)"; tail -25 "$PGC_LOG"
  fi
}

# A free TCP port on 127.0.0.1 (bound then released by the kernel's choice).
pgc_free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

pgc_is_asan() { case "${FLOE_BUILD:-}" in *build-asan|*build-asan/) return 0 ;; esac; return 1; }

pgc_cleanup() {
  local rc=$? san=0
  if [ "${PGC_TARGET:-}" = postgres ] && [ -n "${PGC_PGDATA:-}" ] && [ -f "$PGC_PGDATA/postmaster.pid" ]; then
    pgc_as_pg "$PGC_PGBIN/pg_ctl -D '$PGC_PGDATA' -w -m immediate stop" >/dev/null 2>&1
  elif [ -n "${PGC_PID:-}" ]; then
    kill "$PGC_PID" 2>/dev/null; wait "$PGC_PID" 2>/dev/null
    # sanitizer builds: any ASan/UBSan/LSan report of the server (leaks are printed at exit) fails the test
    if [ -n "${PGC_LOG:-}" ] && grep -q 'AddressSanitizer\|LeakSanitizer\|runtime error:' "$PGC_LOG" 2>/dev/null; then
      echo "FAIL: sanitizer report in the floe serve log:"; grep -A12 -m3 'AddressSanitizer\|LeakSanitizer\|runtime error:' "$PGC_LOG"
      san=1
    fi
  fi
  [ -n "${PGC_KEEP:-}" ] || rm -rf "${PGC_WORK:-/nonexistent-pgc}"
  if [ $san = 1 ] && [ "$rc" != 77 ]; then exit 1; fi
}

pgc_as_pg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$1"; else sh -c "$1"; fi; }

# pgc_start [name]  - start the target server; name is only used in temp dir names
pgc_start() {
  PGC_TARGET=${FLOE_PG_TARGET:-floe}
  FLOE_SRC=${FLOE_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
  FLOE_BUILD=${FLOE_BUILD:-$FLOE_SRC/build}
  FLOE_BIN=${FLOE_BIN:-$FLOE_BUILD/floe}
  command -v psql >/dev/null || pgc_skip "psql not installed (apt-get install postgresql-client)"
  PGC_WORK=$(mktemp -d "${TMPDIR:-/tmp}/floe-pgc-${1:-x}.XXXXXX")
  chmod 755 "$PGC_WORK"
  trap pgc_cleanup EXIT
  PGC_HOST=127.0.0.1 PGC_USER=tester PGC_DB=floe
  PGC_PORT=$(pgc_free_port)
  case $PGC_TARGET in
    postgres) pgc_start_postgres ;;
    floe) pgc_start_floe ;;
    *) pgc_fail "FLOE_PG_TARGET must be floe or postgres, not '$PGC_TARGET'" ;;
  esac
  export PGHOST=$PGC_HOST PGPORT=$PGC_PORT PGUSER=$PGC_USER PGPASSWORD=$PGC_PASSWORD PGDATABASE=$PGC_DB
  export PGSSLMODE=disable PGCONNECT_TIMEOUT=10 PGAPPNAME=pgclients
  export PGC_HOST PGC_PORT PGC_USER PGC_PASSWORD PGC_DB PGC_TARGET PGC_PID PGC_WORK
  # known gaps (tests/pgclients/known-gaps.txt) are reported, not failed, against floe only
  if [ "$PGC_TARGET" = floe ]; then
    PGC_KNOWN_GAPS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/known-gaps.txt"
    export PGC_KNOWN_GAPS
  else
    unset PGC_KNOWN_GAPS
  fi
  # SCRAM must be what authenticates us: a wrong password has to fail
  # (PGC_TRUST=1, for debugging by hand only, runs floe with --pg-trust and skips this)
  if [ -z "${PGC_TRUST:-}" ] && PGPASSWORD=not-the-password psql -X -q -c 'select 1' >/dev/null 2>&1; then
    pgc_fail "a wrong password was accepted by $PGC_TARGET"
  fi
  echo "server: $PGC_TARGET at $PGC_HOST:$PGC_PORT (user $PGC_USER, db $PGC_DB)"
}

pgc_start_postgres() {
  PGC_PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -x "$PGC_PGBIN/postgres" ] || pgc_skip "PostgreSQL server binaries not installed"
  PGC_PGDATA=$PGC_WORK/pgdata PGC_LOG=$PGC_WORK/pgdata/server.log
  PGC_PASSWORD=tester-secret-$RANDOM$RANDOM
  mkdir -p "$PGC_PGDATA"; printf '%s\n' "$PGC_PASSWORD" >"$PGC_WORK/pw"
  [ "$(id -u)" = 0 ] && chown postgres "$PGC_PGDATA" "$PGC_WORK/pw"
  pgc_as_pg "$PGC_PGBIN/initdb -D '$PGC_PGDATA' -U tester --pwfile='$PGC_WORK/pw' --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8" \
    >"$PGC_WORK/initdb.log" 2>&1 || { cat "$PGC_WORK/initdb.log"; pgc_fail "initdb"; }
  pgc_as_pg "$PGC_PGBIN/pg_ctl -D '$PGC_PGDATA' -w -l '$PGC_LOG' -o \"-p $PGC_PORT -k '$PGC_PGDATA' -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60 -c shared_buffers=128MB ${PGC_PG_OPTS:-}\" start" \
    >/dev/null || pgc_fail "PostgreSQL did not start"
  PGC_PID=$(head -1 "$PGC_PGDATA/postmaster.pid")
  PGPASSWORD=$PGC_PASSWORD psql -X -q -h 127.0.0.1 -p "$PGC_PORT" -U tester -d postgres -c "create database floe" \
    || pgc_fail "create database"
}

pgc_start_floe() {
  [ -x "$FLOE_BIN" ] || pgc_fail "floe binary not found at $FLOE_BIN"
  "$FLOE_BIN" serve --help 2>&1 | grep -q -- '--pg-port' || pgc_skip "this floe serve has no --pg-port (pgwire not built in)"
  local cat="sqlite:$PGC_WORK/catalog.db" out
  out=$("$FLOE_BIN" admin --catalog "$cat" principal create tester --admin) || pgc_fail "floe admin principal create"
  PGC_PASSWORD=$(printf '%s\n' "$out" | sed -n 's/^client_secret: *//p')
  [ -n "$PGC_PASSWORD" ] || pgc_fail "no client_secret in: $out"
  PGC_LOG=$PGC_WORK/serve.log
  pgc_launch_floe
}

# (re)start floe serve on the warehouse/catalog/port of pgc_start_floe and wait until it answers
pgc_launch_floe() {
  local cat="sqlite:$PGC_WORK/catalog.db" i
  "$FLOE_BIN" serve --port 0 --pg-host 127.0.0.1 --pg-port "$PGC_PORT" --catalog "$cat" \
     --warehouse "$PGC_WORK/wh" --ready-file "$PGC_WORK/ready" ${PGC_TRUST:+--pg-trust} ${PGC_SERVE_ARGS:-} >>"$PGC_LOG" 2>&1 &
  PGC_PID=$!
  for i in $(seq 1 200); do
    kill -0 "$PGC_PID" 2>/dev/null || pgc_fail "floe serve exited"
    PGPASSWORD=$PGC_PASSWORD PGCONNECT_TIMEOUT=2 psql -X -q -h 127.0.0.1 -p "$PGC_PORT" -U tester -d floe -c 'select 1' >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  pgc_fail "floe serve did not answer on port $PGC_PORT"
}
pgc_restart_floe() {
  kill "$PGC_PID" 2>/dev/null; wait "$PGC_PID" 2>/dev/null
  pgc_launch_floe
}

# Peak resident set size of the server in kB (VmHWM; for postgres, the largest backend is what counts
# and is measured by the caller).
pgc_vmhwm() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/${1:-$PGC_PID}/status" 2>/dev/null; }

# psql with the connection from the environment, no psqlrc, stop on first error.
pgc_psql() { psql -X -v ON_ERROR_STOP=1 "$@"; }

# pgc_start_ref - a second server, always PostgreSQL 15, for tests that
# compare floe's answers with PostgreSQL's (test_pg_types.sh, the benchmark).
# Exports REF_HOST REF_PORT REF_USER REF_PASSWORD REF_DB REF_PID; stopped on exit.
pgc_start_ref() {
  local save_port=$PGC_PORT save_pw=$PGC_PASSWORD save_pid=${PGC_PID:-} save_log=${PGC_LOG:-} save_target=$PGC_TARGET
  local save_data=${PGC_PGDATA:-} save_bin=${PGC_PGBIN:-}
  PGC_PORT=$(pgc_free_port)
  PGC_WORK_MAIN=$PGC_WORK; PGC_WORK=$PGC_WORK/ref; mkdir -p "$PGC_WORK"; chmod 755 "$PGC_WORK"
  pgc_start_postgres
  REF_HOST=127.0.0.1 REF_PORT=$PGC_PORT REF_USER=tester REF_PASSWORD=$PGC_PASSWORD REF_DB=floe REF_PID=$PGC_PID
  REF_PGDATA=$PGC_PGDATA REF_PGBIN=$PGC_PGBIN REF_LOG=$PGC_LOG
  export REF_HOST REF_PORT REF_USER REF_PASSWORD REF_DB REF_PID
  PGC_WORK=$PGC_WORK_MAIN PGC_PORT=$save_port PGC_PASSWORD=$save_pw PGC_PID=$save_pid PGC_LOG=$save_log
  PGC_TARGET=$save_target PGC_PGDATA=$save_data PGC_PGBIN=$save_bin
  trap 'pgc_as_pg "$REF_PGBIN/pg_ctl -D '"'"'$REF_PGDATA'"'"' -w -m immediate stop" >/dev/null 2>&1; pgc_cleanup' EXIT
  echo "reference: postgres at $REF_HOST:$REF_PORT"
}
# psql on the reference server
pgc_ref_psql() { PGHOST=$REF_HOST PGPORT=$REF_PORT PGUSER=$REF_USER PGPASSWORD=$REF_PASSWORD PGDATABASE=$REF_DB psql -X -v ON_ERROR_STOP=1 "$@"; }
