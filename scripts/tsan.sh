#!/usr/bin/env bash
# scripts/tsan.sh - ThreadSanitizer run of every test that uses threads.
#
# Builds build-tsan (clang, Debug, -DFLOE_TSAN=ON: -fsanitize=thread), then
# runs the threaded ctest tests there with the executor's worker count forced
# to $CPUS (default 4, what CI has; scripts/fake_cpus.c, LD_PRELOADed, makes
# sysconf(_SC_NPROCESSORS_ONLN) answer it on this 2-core machine). TSan
# reports go to $OUT/tsan.<pid> (default build-tsan/tsan-reports); at the end
# the script prints each distinct race once (the top frames of both accesses)
# and exits non-zero if there was any report or failing test. Not part of
# `make test` (a TSan build is a third full build and runs 5-15x slower).
#
#   scripts/tsan.sh                         # build + all threaded tests once
#   REPEAT=5 scripts/tsan.sh                # ctest --repeat until-fail:5
#   TESTS='sql/test_cache_shared' scripts/tsan.sh
#   CPUS=8 NOBUILD=1 scripts/tsan.sh
#   MODE=asan REPEAT=20 scripts/tsan.sh     # the same tests in build-asan
#                                           # (ASan+UBSan), CPUS forced too
#
# Environment: JOBS (build, default 2), NICE (default 10), TIMEOUT per test
# in seconds (default 900).
set -uo pipefail
cd "$(dirname "$0")/.."
MODE=${MODE:-tsan}
CPUS=${CPUS:-4}
REPEAT=${REPEAT:-1}
JOBS=${JOBS:-2}
NICE=${NICE:-10}
TIMEOUT=${TIMEOUT:-900}
# Everything that starts threads: the executor's morsel workers (scan, join
# build, aggregate, sort, spill, window, cancel), the shared read cache,
# sessions and statements, the REST server, pgwire, catalog and commit
# concurrency. Left out by default: test_exec_spill_ops (minutes under
# TSan), and iceberg/test_concurrency and test_crash, which race forked
# processes, not threads (nothing for TSan to see; under its slowdown the
# commit retries of test_concurrency give up) - run those with MODE=asan.
DEFAULT_TESTS='sql/test_cache_shared|sql/test_exec_(basic|agg_keys|scan|scan_split|join|join_keys|join_plan|join_spill|window|spill)$|sql/test_session_(basic|cancel|sql|params)|sql/test_stmt_(txn|ddl|dml)|sql/test_slt|sql/test_pgcat_replay|server/test_server|pgwire/test_|catalog/test_(sqlite|fs|e2e|table|rest_http)|iceberg/test_(manifest_cache|txn)'
TESTS=${TESTS:-$DEFAULT_TESTS}

if [ "$MODE" = asan ]; then
  BUILD=${BUILD:-build-asan}
  CFG=(-DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DFLOE_SANITIZE=ON)
else
  BUILD=${BUILD:-build-tsan}
  CFG=(-DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DFLOE_TSAN=ON)
fi
OUT=${OUT:-$BUILD/tsan-reports}

if [ -z "${NOBUILD:-}" ]; then
  echo "== configuring and building $BUILD ($MODE)"
  cmake -S . -B "$BUILD" "${CFG[@]}" >/dev/null || exit 1
  nice -n "$NICE" cmake --build "$BUILD" -j "$JOBS" 2>&1 | grep -E 'error|warning:' ; true
fi
mkdir -p "$OUT"
rm -f "$OUT"/tsan.* "$OUT"/asan.*
shim=$BUILD/fake_cpus.so
cc -shared -fPIC -O1 -o "$shim" scripts/fake_cpus.c -ldl || exit 1
shim=$(cd "$(dirname "$shim")" && pwd)/$(basename "$shim")
outabs=$(cd "$OUT" && pwd)

echo "== running '$TESTS' in $BUILD, $CPUS executor threads, repeat until-fail:$REPEAT"
export FLOE_FAKE_CPUS=$CPUS LD_PRELOAD=$shim
# halt_on_error=0: collect every race of a run; exitcode 66 still fails the test
export TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 history_size=4 log_path=$outabs/tsan ${TSAN_OPTIONS:-}"
export ASAN_OPTIONS="detect_leaks=1 ${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1 ${UBSAN_OPTIONS:-}"
(cd "$BUILD" && nice -n "$NICE" ctest --output-on-failure --timeout "$TIMEOUT" \
   --repeat until-fail:"$REPEAT" -R "$TESTS")
rc=$?
unset LD_PRELOAD

n=$(ls "$OUT"/tsan.* 2>/dev/null | wc -l)
if [ "$n" -gt 0 ]; then
  echo "== ThreadSanitizer reports: $n process(es) reported; distinct races (top frames):"
  # one line per report: its title and the first frame of each stack in it
  awk '/^WARNING: ThreadSanitizer/ {if (t) print t; t=$0; want=1; next}
       /^ *#0 / && t {sub(/^ *#0 0x[0-9a-f]+ /, ""); sub(/ \/.*\//, " "); t=t " | " $0}
       END {if (t) print t}' "$OUT"/tsan.* | sort | uniq -c | sort -rn
  echo "   full reports: $OUT/tsan.*"
  rc=1
fi
exit $rc
