#!/usr/bin/env bash
# test_sql_join_spill.sh — acceptance for "a join whose build side exceeds memory_limit completes by spilling":
# a self-join of a generated CSV (N rows: id, grp, a ~45-byte payload) on id, through `floe sql --memory-limit`.
#   1. in memory (limit 4GB): the answer, and peak RSS (/usr/bin/time) above the small limit — the build side
#      (id + payload of N rows) does not fit in it;
#   2. under the small limit: the same answer, EXPLAIN ANALYZE reports spilled bytes on the HashJoin above the limit,
#      and peak RSS stays below the in-memory run's;
#   3. a LEFT JOIN against half the rows under the small limit: unmatched rows kept, NULL payloads not counted.
# Release build: N = 2,000,000 and a 64MB limit. Sanitizer build: N = 200,000 and an 8MB limit (RSS not compared:
# ASan's shadow memory dominates). Prints the figures.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${FLOE_SRC:-$(cd "$here/../.." && pwd)}"
floe="${FLOE_BIN:-$root/build/floe}"
[ -x "$floe" ] || { echo "SKIP: $floe is not built"; exit 77; }
n=2000000; limit=64MB; limit_bytes=$((64 << 20)); asan=0
if grep -q __asan_init "$floe" 2>/dev/null; then n=200000; limit=8MB; limit_bytes=$((8 << 20)); asan=1; fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
csv="$tmp/big.csv"
{ echo "id,grp,pay"; awk -v n="$n" 'BEGIN{for(i=0;i<n;i++) printf "%d,%d,payload-%09d-abcdefghijklmnopqrstuvwxyz\n", i, i%1000, i}'; } > "$csv"
q="SELECT count(*), sum(a.id), count(b.pay) FROM read_csv('$csv') a JOIN read_csv('$csv') b ON a.id = b.id"
want="$n,$((n * (n - 1) / 2)),$n"
fail=0
timer=(); [ -x /usr/bin/time ] && timer=(/usr/bin/time -f 'maxrss_kb=%M' -o "$tmp/rss")
run() { # limit sql -> csv rows on stdout (no header)
  "${timer[@]}" "$floe" sql --threads 2 --memory-limit "$1" --format csv -c "$2" 2> "$tmp/err" | tail -n +2
}
rss() { sed -n 's/^maxrss_kb=//p' "$tmp/rss" 2>/dev/null; }
got="$(run 4GB "$q")"; mem_rss="$(rss)"
[ "$got" = "$want" ] || { echo "FAIL: in memory: got '$got', want '$want'"; cat "$tmp/err"; fail=1; }
got="$(run "$limit" "$q")"; small_rss="$(rss)"
[ "$got" = "$want" ] || { echo "FAIL: under $limit: got '$got', want '$want'"; cat "$tmp/err"; fail=1; }
plan="$("$floe" sql --threads 2 --memory-limit "$limit" -c "EXPLAIN ANALYZE $q" 2>&1)"
spilled="$(echo "$plan" | sed -n 's/.*HashJoin.*spilled=\([0-9]*\).*/\1/p' | head -1)"
if [ -z "$spilled" ] || [ "$spilled" -le "$limit_bytes" ]; then
  echo "FAIL: EXPLAIN ANALYZE under $limit shows no spill over the limit on the HashJoin:"; echo "$plan"; fail=1
fi
if [ $asan = 0 ] && [ -n "$mem_rss" ] && [ -n "$small_rss" ]; then
  if [ "$mem_rss" -le $((limit_bytes / 1024)) ]; then
    echo "FAIL: the in-memory join peaked at ${mem_rss} kB, not above the $limit limit (build side too small)"; fail=1
  fi
  if [ "$small_rss" -ge "$mem_rss" ]; then
    echo "FAIL: under $limit the join peaked at ${small_rss} kB, not below the in-memory ${mem_rss} kB"; fail=1
  fi
fi
ql="SELECT count(*), count(b.pay), sum(a.id) FROM read_csv('$csv') a LEFT JOIN (SELECT * FROM read_csv('$csv') WHERE grp < 500) b ON a.id = b.id"
got="$(run "$limit" "$ql")"
want="$n,$((n / 2)),$((n * (n - 1) / 2))"
[ "$got" = "$want" ] || { echo "FAIL: LEFT JOIN under $limit: got '$got', want '$want'"; cat "$tmp/err"; fail=1; }
echo "join of $n x $n rows: in memory peak RSS ${mem_rss:-?} kB; under --memory-limit $limit: spilled $spilled bytes, peak RSS ${small_rss:-?} kB"
[ $fail = 0 ] && echo "PASS: a hash join whose build side exceeds memory_limit ($limit) completes by spilling"
exit $fail
