#!/usr/bin/env bash
# bench/semantic.sh - the semantic layer end to end on ROWS orders (default 10,000,000) and 100,000 customers:
# dashboard-style questions (bench/semantic/queries.txt) asked of floe as SQL over semantic.metrics (MEASURE():
# rewritten, compiled by the semantic layer and run by floe's engine, tests/semantic/models) and of DuckDB as the
# equivalent hand-written SQL over the same Parquet data files. Each round alternates the engines per query:
#   warm: one long-lived process per engine runs the query WARM times (floe sql --models --timing with the
#         statement repeated; DuckDB in one node process); the median of the repetitions after the first;
#   cold: a fresh process per query (floe sql --models --timing; a new node process for DuckDB, the query
#         timed in-process), under /usr/bin/time for peak RSS.
# The first round also checks that both engines give the same rows (bench/semantic_check.mjs).
# Prints medians, the ratio floe/DuckDB and peak RSS; raw results in bench/results/semantic-<rows>-<time>.jsonl.
# No pre-aggregations exist yet: every query reads all the rows.
# Env: ROWS (10000000), RUNS (3), WARM (5), THREADS (2), BUILD (build).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
ROWS="${ROWS:-10000000}"; RUNS="${RUNS:-3}"; WARM="${WARM:-5}"; THREADS="${THREADS:-2}"; BUILD="${BUILD:-build}"
floe="$root/$BUILD/floe"
[ -x "$floe" ] || { echo "semantic bench: $floe missing (make build)"; exit 1; }
[ -d tests/interop/node_modules/@duckdb/node-api ] || { echo "semantic bench: npm packages missing (make deps)"; exit 1; }
models="$root/tests/semantic/models"
data="$root/bench/data/semantic-$ROWS"
cat=(--catalog "sqlite:$data/catalog.db" --warehouse "$data/wh")
fsql() { "$floe" sql "${cat[@]}" -q "$@"; }
if [ ! -f "$data/.loaded" ]; then
  echo "== generating $ROWS orders into $data"
  rm -rf "$data"; mkdir -p "$data"
  fsql -c "CREATE TABLE orders (order_id bigint, customer_id int, order_date date, status varchar, gross_amount decimal(10,2), discount_applied decimal(10,2), return_amount decimal(10,2))" \
       -c "CREATE TABLE customers (customer_id int, region varchar, country_code varchar, signup_date date)" \
       -c "CREATE TABLE countries (country_code varchar, continent varchar)" \
       -c "INSERT INTO countries VALUES ('DE','Europe'),('FR','Europe'),('US','America'),('BR','America'),('JP','Asia')" \
       -c "INSERT INTO customers SELECT i, CASE i % 4 WHEN 0 THEN 'EU' WHEN 1 THEN 'US' WHEN 2 THEN 'APAC' ELSE NULL END, (ARRAY['DE','FR','US','BR','JP'])[1 + i % 5], DATE '2023-01-01' + i % 700 FROM generate_series(1, 100000) AS g(i)" \
       -c "INSERT INTO orders SELECT i, CAST(1 + (i * 7919) % 100000 AS int), DATE '2024-01-01' + CAST((i * 13) % 365 AS int), CASE i % 6 WHEN 0 THEN 'cancelled' WHEN 1 THEN 'placed' ELSE 'completed' END, CAST(10 + (i * 37) % 490 AS decimal(10,2)) + 0.25, CAST((i * 11) % 30 AS decimal(10,2)), CASE WHEN i % 9 = 0 THEN CAST((i * 5) % 60 AS decimal(10,2)) ELSE 0 END FROM generate_series(CAST(1 AS bigint), $ROWS) AS g(i)"
  touch "$data/.loaded"
fi
views=(--view="orders=$data/wh/default/orders/data/*.parquet" --view="customers=$data/wh/default/customers/data/*.parquet")
mkdir -p bench/results "$data/out"
out="$root/bench/results/semantic-$ROWS-$(date -u +%Y%m%dT%H%M%SZ).jsonl"
: > "$out"
rec() { echo "{\"query\":\"$1\",\"mode\":\"$2\",\"engine\":\"$3\",\"run\":$4,\"seconds\":$5,\"maxrss_kb\":$6}" >> "$out"; }
median_after_first() { tail -n +2 | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
floe_run() { # name sql reps -> seconds (median after the first when reps > 1) and peak RSS in $data/out/rss
  local args=() i
  for i in $(seq 1 "$3"); do args+=(-c "$2"); done
  /usr/bin/time -f '%M' -o "$data/out/rss" "$floe" sql "${cat[@]}" --models "$models" --threads "$THREADS" --timing \
    --format csv --no-header "${args[@]}" > "$data/out/$1.floe.csv" 2> "$data/out/$1.floe.err"
  local ms; ms=$(sed -n 's/^Time: \([0-9.]*\) ms$/\1/p' "$data/out/$1.floe.err")
  if [ "$3" = 1 ]; then awk "BEGIN { print $ms / 1000 }"; else median_after_first <<<"$ms" | awk '{ print $1 / 1000 }'; fi
}
duck_run() { # name sql reps [--csv=F] -> seconds
  node bench/semantic_duck.mjs "${views[@]}" --sql="$2" --runs="$3" --threads="$THREADS" ${4:+"$4"} > "$data/out/$1.duck.jsonl"
  sed -n 's/.*"maxrss_kb":\([0-9]*\).*/\1/p' "$data/out/$1.duck.jsonl" > "$data/out/rss"
  local s; s=$(sed -n 's/.*"seconds":\([0-9.]*\).*/\1/p' "$data/out/$1.duck.jsonl")
  if [ "$3" = 1 ]; then echo "$s"; else median_after_first <<<"$s"; fi
}
fail=0
for run in $(seq 1 "$RUNS"); do
  echo "== round $run/$RUNS"
  while IFS='|' read -r name fq dq; do
    case "$name" in ''|'#'*) continue ;; esac
    s=$(floe_run "$name" "$fq" 1); rec "$name" cold floe "$run" "$s" "$(cat "$data/out/rss")"
    csv=; [ "$run" = 1 ] && csv="--csv=$data/out/$name.duck.csv"
    s=$(duck_run "$name" "$dq" 1 "$csv"); rec "$name" cold duckdb "$run" "$s" "$(cat "$data/out/rss")"
    if [ "$run" = 1 ]; then
      if d=$(node bench/semantic_check.mjs "$data/out/$name.floe.csv" "$data/out/$name.duck.csv"); then echo "same answer: $name"
      else echo "DIFFERENT ANSWER $name: $d"; fail=1; fi
    fi
    s=$(floe_run "$name" "$fq" "$WARM"); rec "$name" warm floe "$run" "$s" "$(cat "$data/out/rss")"
    s=$(duck_run "$name" "$dq" "$WARM"); rec "$name" warm duckdb "$run" "$s" "$(cat "$data/out/rss")"
  done < bench/semantic/queries.txt
done
node -e '
  const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
  const med = (xs) => { xs = xs.slice().sort((a, b) => a - b); const n = xs.length; return n % 2 ? xs[(n - 1) / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2; };
  const key = (l) => `${l.query} ${l.mode}`;
  const groups = new Map();
  for (const l of lines) { const k = key(l); if (!groups.has(k)) groups.set(k, { floe: [], duckdb: [], rss: { floe: 0, duckdb: 0 } });
    const g = groups.get(k); g[l.engine].push(l.seconds); g.rss[l.engine] = Math.max(g.rss[l.engine], l.maxrss_kb); }
  console.log(`rows: ${process.argv[2]}; medians of ${process.argv[3]} rounds (warm: median of the repetitions after the first)`);
  console.log("query         mode   floe ms   duckdb ms   floe/duckdb   floe MiB   duckdb MiB (node included)");
  for (const [k, g] of groups) {
    const f = med(g.floe) * 1000, d = med(g.duckdb) * 1000;
    const [q, m] = k.split(" ");
    console.log(`${q.padEnd(13)} ${m.padEnd(5)} ${f.toFixed(1).padStart(8)} ${d.toFixed(1).padStart(11)} ${(f / d).toFixed(2).padStart(13)} ${(g.rss.floe / 1024).toFixed(0).padStart(10)} ${(g.rss.duckdb / 1024).toFixed(0).padStart(12)}`);
  }
' "$out" "$ROWS" "$RUNS"
echo "raw: $out"
[ "$fail" = 0 ]
