#!/usr/bin/env bash
# http_ingest_bench.sh - POST /v1/ingest throughput (issue 18 benchmark, HTTP side): 10-column
# events (bigint, timestamptz, bigint, 3 strings, 2 doubles, int, boolean) as NDJSON and CSV
# bodies of ROWS_PER_REQ rows, REQS requests each, one committed checkpoint per request, into
# ZSTD Parquet on a SQLite-catalog table; prints rows/s (wall) and the server's CPU seconds.
# Usage: bench/http_ingest_bench.sh [build/floe]   (ROWS_PER_REQ=50000 REQS=10)
set -euo pipefail
floe=${1:-build/floe}
floe=$(realpath "$floe")
rows=${ROWS_PER_REQ:-50000}
reqs=${REQS:-10}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/floe-http-bench.XXXXXX")
pid=""
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null; rm -rf "$tmp"' EXIT
export FLOE_CATALOG="sqlite:$tmp/catalog.db" FLOE_WAREHOUSE="$tmp/wh"
"$floe" sql -q -c "CREATE SCHEMA b" -c "CREATE TABLE b.ev (id bigint, ts timestamptz, user_id bigint,
  kind text, country text, agent text, price double, score double, qty int, ok boolean)" >/dev/null # zstd: the default codec
python3 - "$tmp" "$rows" <<'PY'
import sys, json
d, n = sys.argv[1], int(sys.argv[2])
with open(d + "/body.ndjson", "w") as f, open(d + "/body.csv", "w") as c:
    c.write("id,ts,user_id,kind,country,agent,price,score,qty,ok\n")
    for i in range(n):
        r = [i, "2026-12-02T10:%02d:%02d.%06dZ" % (i // 60 % 60, i % 60, i % 1000000), i * 7 % 100000,
             ["click", "view", "buy"][i % 3], ["DE", "FR", "US", "JP"][i % 4], "agent-%d" % (i % 50),
             i * 0.25, (i % 1000) / 7.0, i % 100, i % 2 == 0]
        f.write(json.dumps(dict(zip(["id", "ts", "user_id", "kind", "country", "agent", "price", "score", "qty", "ok"], r))) + "\n")
        c.write(",".join(str(x).lower() if isinstance(x, bool) else str(x) for x in r) + "\n")
PY
(exec "$floe" serve --port 0 --insecure-no-auth --ready-file "$tmp/ready" --max-body-bytes 268435456 \
  >"$tmp/serve.log" 2>&1) &
pid=$!
for _ in $(seq 1 200); do [ -s "$tmp/ready" ] && break; sleep 0.05; done
url="http://$(head -1 "$tmp/ready")"
cpu() { awk '{print ($14 + $15) / 100}' "/proc/$pid/stat"; }
for fmt in ndjson csv; do
  ct=application/x-ndjson
  [ $fmt = csv ] && ct=text/csv
  c0=$(cpu)
  t0=$(date +%s.%N)
  for ((i = 0; i < reqs; i++)); do
    curl -sf -o /dev/null -X POST -H "Content-Type: $ct" --data-binary "@$tmp/body.$fmt" \
      "$url/v1/ingest/b/ev"
  done
  t1=$(date +%s.%N)
  c1=$(cpu)
  awk -v f=$fmt -v n=$((rows * reqs)) -v w="$(echo "$t1 - $t0" | bc)" -v c="$(echo "$c1 - $c0" | bc)" \
    -v b="$(stat -c %s "$tmp/body.$fmt")" -v r=$reqs 'BEGIN {
      printf "%-6s %d rows in %d requests (%.1f MB bodies): %.2f s wall, %.2f s server CPU: %.0f rows/s, %.0f rows per CPU second\n",
        f, n, r, b / 1e6, w, c, n / w, n / c }'
done
"$floe" sql --format csv --no-header -q -c "SELECT count(*) FROM b.ev"
