#!/usr/bin/env bash
# pgwire_bench.sh - benchmark of floe's PostgreSQL wire server (issue 5),
# every workload run against `floe serve --pg-port` and against a real
# PostgreSQL 15 on the same data, alternating (floe, pg, floe, pg, ...):
#   point : pgbench -M prepared -c 16, bench/pgwire_point.sql (primary-key-style
#           point query over lake.pt, 100,000 rows)  -> queries/s, p50, p99
#   agg   : pgbench -M prepared -c 16, bench/pgwire_agg.sql (count/sum/min/max
#           over 1/100 of lake.pt)                   -> queries/s, p50, p99
#   cursor: bench/pgwire_cursor.c (libpq): DECLARE CURSOR over lake.stream
#           (ROWS rows, default 10,000,000) + FETCH 10000 until done
#                                                    -> rows/s, server peak RSS
# Latency percentiles come from pgbench's per-transaction logs (-l). Server
# peak RSS is VmHWM from /proc/PID/status: floe serve is restarted before each
# cursor run so its VmHWM covers that run only; for PostgreSQL it is the
# backend process of the cursor's connection (PostgreSQL forks one per
# connection; shared buffers it touched count in it).
# Usage: bench/pgwire_bench.sh [--rows N (a power of 10)] [--seconds T] [--clients C]
#        [--rounds R] [--out FILE (default bench/PGWIRE.md)]
# Env: FLOE_BIN (default build/floe). FLOE_PG_TARGET=postgres benchmarks
# PostgreSQL against itself (to check the script).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export FLOE_SRC=${FLOE_SRC:-$(cd "$here/.." && pwd)}
rows=10000000 secs=10 clients=16 rounds=2 out=$here/PGWIRE.md
while [ $# -gt 0 ]; do
  case $1 in
    --rows) rows=$2; shift ;; --seconds) secs=$2; shift ;; --clients) clients=$2; shift ;;
    --rounds) rounds=$2; shift ;; --out) out=$2; shift ;;
    *) echo "usage: $0 [--rows N] [--seconds T] [--clients C] [--rounds R] [--out FILE]"; exit 2 ;;
  esac; shift
done
. "$FLOE_SRC/tests/pgclients/pgc-lib.sh"
command -v pgbench >/dev/null || pgc_skip "pgbench not installed (postgresql-contrib / postgresql)"
command -v cc >/dev/null || pgc_skip "no C compiler"
digits=$(awk -v n="$rows" 'BEGIN { d = log(n) / log(10); r = int(d + 0.5); if (d - r > 1e-9 || r - d > 1e-9 || d < 1) print "x"; else print int(d + 0.5) }')
[ "$digits" = x ] && { echo "--rows must be a power of 10"; exit 2; }
pgc_start bench
pgc_start_ref
drv=$PGC_WORK/pgwire_cursor
cc -O2 -I"$(pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)" -o "$drv" "$here/pgwire_cursor.c" -lpq \
  || pgc_fail "compiling pgwire_cursor.c"

# ---- the same data in both servers
tens="(VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9))"
from=""; expr="0"
for i in $(seq 1 "$digits"); do from="$from${from:+, }$tens d$i(x)"; expr="$expr * 10 + d$i.x"; done
load_sql="CREATE SCHEMA lake;
CREATE TABLE lake.pt (id bigint, k integer, v numeric(12,2), s text);
INSERT INTO lake.pt SELECT n + 1, (n + 1) % 100, (n + 1) * 0.25, 'name-' || (n + 1)
  FROM (SELECT a.x * 10000 + b.x * 1000 + c.x * 100 + d.x * 10 + e.x AS n FROM $tens a(x), $tens b(x), $tens c(x), $tens d(x), $tens e(x)) q;
CREATE TABLE lake.stream (id bigint, v bigint, s text);
INSERT INTO lake.stream SELECT n, n * 3, 'r' || n FROM (SELECT $expr AS n FROM $from) q;"
for t in floe ref; do
  t0=$(date +%s.%N)
  if [ $t = floe ]; then printf '%s\n' "$load_sql" | pgc_psql -q || pgc_fail "loading floe"
  else printf '%s\n' "$load_sql" | pgc_ref_psql -q || pgc_fail "loading PostgreSQL"
       pgc_ref_psql -q -c "CREATE INDEX ON lake.pt (id); ANALYZE" || pgc_fail "index"; fi
  echo "loaded $t in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')s"
done

# ---- runs
conn() { # target -> host port password
  if [ "$1" = floe ]; then echo "$PGC_HOST $PGC_PORT $PGC_PASSWORD"; else echo "$REF_HOST $REF_PORT $REF_PASSWORD"; fi; }
results=$PGC_WORK/results.txt; : >"$results"
pct() { sort -n | awk -v p="$1" '{ a[NR] = $1 } END { i = int(NR * p + 0.999); if (i < 1) i = 1; printf "%.3f", a[i] / 1000 }'; }
bench_pgbench() { # target workload round
  read -r h p pw <<<"$(conn "$1")"
  local logp=$PGC_WORK/log_$2_$1_$3
  local o
  o=$(cd "$PGC_WORK" && PGPASSWORD=$pw pgbench -n -h "$h" -p "$p" -U tester -M prepared -c "$clients" -j 4 -T "$secs" \
        -f "$here/pgwire_$2.sql" -l --log-prefix="$logp" floe 2>&1) || { echo "$o"; pgc_fail "pgbench $2 on $1"; }
  local tps failed
  tps=$(printf '%s\n' "$o" | sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p')
  failed=$(printf '%s\n' "$o" | sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p')
  local p50 p99
  p50=$(cat "$logp".* | awk '{ print $3 }' | pct 0.50); p99=$(cat "$logp".* | awk '{ print $3 }' | pct 0.99)
  rm -f "$logp".*
  echo "$2 $1 $3 qps=$tps p50_ms=$p50 p99_ms=$p99 failed=${failed:-0}" | tee -a "$results"
}
bench_cursor() { # target round
  read -r h p pw <<<"$(conn "$1")"
  local pid=0 base=""
  if [ "$1" = floe ] && [ "$PGC_TARGET" = floe ]; then pgc_restart_floe; pid=$PGC_PID; base=$(pgc_vmhwm "$pid"); fi
  local o
  o=$("$drv" "host=$h port=$p user=tester password=$pw dbname=floe sslmode=disable" "SELECT id, v, s FROM lake.stream" 10000 "$pid") \
    || pgc_fail "cursor run on $1"
  case $o in *"rows=$rows "*) ;; *) pgc_fail "cursor on $1 returned the wrong row count: $o" ;; esac
  echo "cursor $1 $2 $o vmhwm_before_kb=${base:-n/a}" | tee -a "$results"
}
for r in $(seq 1 "$rounds"); do
  for w in point agg; do for t in floe ref; do bench_pgbench $t $w "$r"; done; done
  for t in floe ref; do bench_cursor $t "$r"; done
done

# ---- report
med() { sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
field() { grep "^$1 $2 " "$results" | sed -n "s/.* $3=\([^ ]*\).*/\1/p"; }
name() { if [ "$1" = ref ]; then echo "PostgreSQL 15"; elif [ "$PGC_TARGET" = floe ]; then echo floe; else echo "PostgreSQL 15 (as target)"; fi; }
{
  echo "# pgwire benchmark"
  echo
  echo "Produced by \`bench/pgwire_bench.sh --rows $rows --seconds $secs --clients $clients --rounds $rounds\` on $(date -u '+%Y-%m-%d %H:%M UTC'),"
  echo "$(nproc) CPU cores ($(uptime | sed 's/.*load average: /load average /')). Medians of $rounds alternating rounds; every round's figures below."
  echo
  echo "| workload | server | queries/s | p50 ms | p99 ms |"
  echo "|---|---|---|---|---|"
  for w in point agg; do for t in floe ref; do
    echo "| $w ($clients connections, pgbench -M prepared) | $(name $t) | $(field $w $t qps | med) | $(field $w $t p50_ms | med) | $(field $w $t p99_ms | med) |"
  done; done
  echo
  echo "| $rows-row result through a cursor (FETCH 10000) | rows/s | seconds | server peak RSS (VmHWM) |"
  echo "|---|---|---|---|"
  for t in floe ref; do
    echo "| $(name $t) | $(field cursor $t rows_per_s | med) | $(field cursor $t secs | med) | $(field cursor $t vmhwm_kb | med) kB |"
  done
  echo
  echo "Raw figures:"
  echo '```'
  cat "$results"
  echo '```'
} >"$out"
cat "$out"
