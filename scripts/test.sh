#!/usr/bin/env bash
# Builds floe twice (optimized, and ASan+UBSan) and runs every test in both:
# unit tests, fixture tests and interop tests against third-party readers; the engine tests
# (tests/engines: Spark, Trino, ...) run in the optimized build only.
# Also compiles Release builds with gcc and clang (every build type must be
# warning-free) and checks the layers (scripts/check-layers.sh: includes,
# calls across walls, exported symbols). Ends with one line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
pass=0; fail=0; skip=0
run_suite() {  # $1 = build dir, $2 = extra ctest args ("" for none), $3.. = cmake args
  local dir=$1 ctest_args=$2; shift 2
  echo "== building $dir"
  if ! cmake -S . -B "$dir" "$@" >/dev/null || ! cmake --build "$dir" -j "$jobs" 2>&1 | tail -n 30; then
    echo "build failed: $dir"; fail=$((fail + 1)); return
  fi
  [ -x "$dir/floe" ] || { echo "build failed: $dir"; fail=$((fail + 1)); return; }
  echo "== testing $dir"
  (cd "$dir" && ctest --output-on-failure -j "$jobs" --timeout 900 $ctest_args) | tee "$dir/ctest.log"
  local p f
  p=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed' "$dir/ctest.log")
  f=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*(\*\*\*Failed|Not Run|\*\*\*Timeout|\*\*\*Exception)' "$dir/ctest.log")
  s=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*Skipped' "$dir/ctest.log")
  pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
}
compile_only() {  # $1 = build dir, $2.. = cmake args: a build that must compile, warning-free
  local dir=$1; shift
  echo "== compiling $dir"
  if cmake -S . -B "$dir" "$@" >/dev/null && cmake --build "$dir" -j "$jobs" 2>&1 | tail -n 30 &&
     [ -x "$dir/floe" ]; then
    echo "compiled: $dir"; pass=$((pass + 1))
  else
    echo "build failed: $dir"; fail=$((fail + 1))
  fi
}
rm -rf build/engine-results
run_suite build "" -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "== checking layers"
if scripts/check-layers.sh build; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
CC=gcc compile_only build-release-gcc -DCMAKE_BUILD_TYPE=Release
CC=clang compile_only build-release-clang -DCMAKE_BUILD_TYPE=Release
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
  CC=clang run_suite build-asan "-LE engines" -DCMAKE_BUILD_TYPE=Debug -DFLOE_SANITIZE=ON
# Each engine's own line ("spark: N passed, M failed"), written by its scorecard.
cat build/engine-results/*.txt 2>/dev/null
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
