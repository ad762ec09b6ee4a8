#!/usr/bin/env bash
# bench/rest_bench.sh - floe serve figures with wrk (2 threads, 16 connections, SQLite catalog,
# no auth): startup-to-ready time, idle RSS, loadTable throughput and p99, commits/s to one
# table (set-properties, server retries its compare-and-swap) and across 32 tables.
# usage: bench/rest_bench.sh [build/floe] [seconds per run, default 5]
set -euo pipefail
floe="${1:-./build/floe}"; secs="${2:-5}"
command -v wrk >/dev/null || { echo "wrk not installed"; exit 1; }
tmp="$(mktemp -d /tmp/floe-rest-bench.XXXXXX)"; pid=""
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
port=$((20000 + RANDOM % 20000)); url="http://127.0.0.1:$port"
t0=$(date +%s%N)
"$floe" serve --insecure-no-auth --port $port --threads 4 --catalog "sqlite:$tmp/catalog.db" \
  --warehouse "$tmp/wh" 2>"$tmp/log" & pid=$!
until curl -sf "$url/readyz" >/dev/null 2>&1; do sleep 0.002; done
t1=$(date +%s%N)
echo "startup to ready: $(( (t1 - t0) / 1000000 )) ms wall clock (exec + dynamic linking + first /readyz);" \
  "in-process startup to listening: $(grep -o '"startup_ms":[0-9.]*' "$tmp/log" | cut -d: -f2) ms"
sleep 1
echo "idle RSS: $(awk '/VmRSS/ {print $2, $3}' /proc/$pid/status)"
curl -s -XPOST "$url/v1/namespaces" -d '{"namespace":["b"]}' >/dev/null
schema='"schema":{"type":"struct","fields":[{"id":1,"name":"id","type":"long","required":false},{"id":2,"name":"ts","type":"timestamptz","required":false}]}'
for i in $(seq 0 32); do
  curl -s -XPOST "$url/v1/namespaces/b/tables" -d "{\"name\":\"t$i\",$schema}" >/dev/null
done
echo "== loadTable (GET /v1/namespaces/b/tables/t0)"
wrk -t2 -c16 -d${secs}s --latency "$url/v1/namespaces/b/tables/t0" | grep -E "Requests/sec|99%|Latency  "
cat > "$tmp/commit.lua" <<'LUA'
local n = 0
request = function()
  n = n + 1
  local t = os.getenv("TABLES") == "1" and "t0" or ("t" .. (n % 32))
  local body = '{"requirements":[],"updates":[{"action":"set-properties","updates":{"k":"' .. n .. '"}}]}'
  return wrk.format("POST", "/v1/namespaces/b/tables/" .. t, {["Content-Type"]="application/json"}, body)
end
LUA
echo "== commits to one table (set-properties; server-side CAS retries)"
TABLES=1 wrk -t2 -c8 -d${secs}s --latency -s "$tmp/commit.lua" "$url" | grep -E "Requests/sec|99%|Non-2xx"
echo "== commits across 32 tables"
TABLES=32 wrk -t2 -c8 -d${secs}s --latency -s "$tmp/commit.lua" "$url" | grep -E "Requests/sec|99%|Non-2xx"
echo "commits landed: $(curl -s "$url/metrics" | awk '/^floe_commits_total/ {print $2}'), conflicts: $(curl -s "$url/metrics" | awk '/^floe_commit_conflicts_total/ {print $2}')"
echo "RSS after load: $(awk '/VmRSS/ {print $2, $3}' /proc/$pid/status)"
