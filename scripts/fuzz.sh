#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/fuzz_*.c) with clang + ASan/UBSan into
# build-fuzz, seeds their corpora from the fixtures, runs each target for
# $FUZZ_SECONDS (default 60) and prints the executions per target.
#
#   FUZZ_SECONDS=300 scripts/fuzz.sh               # all targets
#   FUZZ_TARGETS="fuzz_parquet_footer" scripts/fuzz.sh
#
# Corpora live in fuzz/corpus-<target>/ (git-ignored) and grow across runs.
# Crashes are written to fuzz/crash-<target>-*; copy a fixed one into
# fuzz/regress/<footer|encodings>/ so `make test` replays it forever.
set -uo pipefail
cd "$(dirname "$0")/.."
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
BUILD=${FUZZ_BUILD:-build-fuzz}
JOBS=${JOBS:-2}
SHARED=${FLOE_SHARED:-$(pwd)/../shared}

echo "== building $BUILD (clang, libFuzzer, ASan+UBSan)"
# fuzzer-no-link: coverage instrumentation for libfloe too, not only the targets
cmake -S . -B "$BUILD" -DFLOE_FUZZ=ON -DCMAKE_C_COMPILER=clang -DFLOE_SANITIZE=ON \
  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
targets=${FUZZ_TARGETS:-$(cd fuzz && ls fuzz_*.c | sed 's/\.c$//')}
# only what is needed here: the fuzzers and the seed writer
for t in $targets parquet_test_fuzz_replay; do
  cmake --build "$BUILD" -j "$JOBS" --target "$t" 2>&1 | grep -E 'error|warning:' ; true
done

# Seeds: the Parquet replay test writes every fixture footer, page header,
# column/offset index, bloom filter and data page as fuzz inputs.
seeds=$BUILD/fuzz-seeds
rm -rf "$seeds"
case " $targets " in *" fuzz_parquet_"*) want_pq=1 ;; *) want_pq=0 ;; esac
if [ $want_pq = 1 ] && [ -x "$BUILD/parquet_test_fuzz_replay" ] && [ -d "$SHARED/fixtures" ]; then
  FLOE_SHARED=$SHARED FLOE_SRC=$(pwd) FLOE_FUZZ_SEED_DIR=$seeds \
    "$BUILD/parquet_test_fuzz_replay" 2>&1 | grep -E 'seeds written' || true
fi
# The Iceberg/Avro/Puffin targets start from the fixture tables' own files
# (metadata JSON, manifest lists and manifests, Puffin files; at most 64 KiB
# each, libFuzzer's -max_len).
fixture_seeds() {  # subdir find-pattern
  [ -d "$SHARED/fixtures/iceberg" ] || return 0
  mkdir -p "$seeds/$1"
  find "$SHARED/fixtures/iceberg" -name "$2" -size -65k -print0 2>/dev/null |
    xargs -0 -r cp -t "$seeds/$1" --backup=numbered 2>/dev/null
  true
}
fixture_seeds metadata '*.metadata.json'
fixture_seeds avro '*.avro'
fixture_seeds puffin '*.puffin'
seed_for() {  # target -> seed subdirectory
  case $1 in
    fuzz_parquet_footer) echo footer ;;
    fuzz_parquet_encodings) echo encodings ;;
    fuzz_iceberg_metadata) echo metadata ;;
    fuzz_iceberg_manifest|fuzz_avro_container) echo avro ;;
    fuzz_puffin_dv) echo puffin ;;
    *) echo "" ;;
  esac
}

status=0
summary=""
for t in $targets; do
  bin=$BUILD/$t
  [ -x "$bin" ] || { echo "missing $bin"; status=1; continue; }
  corpus=fuzz/corpus-$t
  mkdir -p "$corpus"
  s=$(seed_for "$t")
  extra=()
  [ -n "$s" ] && [ -d "$seeds/$s" ] && extra+=("$seeds/$s")
  [ -n "$s" ] && [ -d "fuzz/regress/$s" ] && extra+=("fuzz/regress/$s")
  [ -d "fuzz/seeds/$t" ] && extra+=("fuzz/seeds/$t")
  [ "$t" = fuzz_sql_parse ] && extra+=("tests/sql/tpch")
  [ "$t" = fuzz_orc ] && extra+=("tests/orc/data")
  [ "$t" = fuzz_orc ] && [ -d fuzz/regress/orc ] && extra+=("fuzz/regress/orc")
  dict=()
  [ -f "fuzz/$t.dict" ] && dict+=("-dict=fuzz/$t.dict")
  echo "== $t for ${FUZZ_SECONDS}s (corpus $corpus, $(ls "$corpus" | wc -l) files)"
  log=$BUILD/$t.log
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$bin" -max_total_time="$FUZZ_SECONDS" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="fuzz/crash-$t-" -print_final_stats=1 "${dict[@]}" "$corpus" "${extra[@]}" >"$log" 2>&1
  rc=$?
  execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
  rate=$(grep -E '^stat::average_exec_per_sec' "$log" | awk '{print $2}')
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1)
  if [ $rc -ne 0 ]; then
    status=1
    echo "!! $t failed (exit $rc); see $log"
    grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -5
  fi
  summary+=$(printf '%-28s %12s execs  %8s exec/s  %s  exit %d' "$t" "${execs:-?}" "${rate:-?}" "$cov" "$rc")$'\n'
done
echo "== summary"
printf '%s' "$summary"
exit $status
