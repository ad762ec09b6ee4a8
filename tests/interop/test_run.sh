#!/usr/bin/env bash
# `make run` (scripts/run.sh) on a warehouse of its own and free ports the server picks (--port 0): it must print "ready" within 60 s, and
# then every endpoint it printed is hit with the very command it printed (curl for the REST catalog and /v1/sql,
# psql for the Postgres wire, the MCP Inspector over HTTP and over stdio, floe sql and floe semantic query, and
# the Python package when the notebook venv is there). The order stream must grow the orders table with every
# order exactly once, and the net_revenue answer must include the orders that streamed in.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
floe=$FLOE_BIN
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-run.XXXXXX")"
chmod 755 "$tmp"  # the PostgreSQL source's cluster lives in it, run as the postgres user
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  bash "$src/scripts/demo-postgres.sh" stop "$tmp/pg" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
rc=0
fail() { echo "FAIL: $*"; rc=1; }
out="$tmp/run.out"
pg_source_port=$((50000 + RANDOM % 5000))
(cd "$src" && FLOE_BIN="$floe" FLOE_RUN_WAREHOUSE="$tmp/wh" FLOE_SERVE_PORT=0 FLOE_SERVE_PG_PORT=0 \
  FLOE_RUN_PG_SOURCE_PORT=$pg_source_port FLOE_RUN_PG_DIR="$tmp/pg" exec bash scripts/run.sh) >"$out" 2>&1 &
pid=$!
for _ in $(seq 1 600); do grep -q '^ready$' "$out" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if ! grep -q '^ready$' "$out"; then cat "$out"; echo "FAIL: make run did not print ready within 60 s"; exit 1; fi
connect=$(sed -n '/floe serve is ready/,/^ready$/p' "$out")
port=$(grep -o 'http://127\.0\.0\.1:[0-9]*' <<<"$connect" | head -n 1 | sed 's/.*://')  # (free ports, chosen by the server)
wh="$tmp/wh"

# printed commands: "  label:   command" (a label ending in ':') or the line holding a text; joined where a line
# ends in a backslash
printed() { awk -v key="$1" '(key ~ /:$/ ? index($0, "  " key) == 1 : index($0, key) > 0) { line = $0; sub(/^ *[A-Za-z/ -]*: */, "", line); cmd = line
            while (cmd ~ /\\$/ && (getline nxt) > 0) { sub(/\\$/, "", cmd); sub(/^ +/, "", nxt); cmd = cmd nxt }
            print cmd }' <<<"$connect"; }
run_printed() {  # $1 = what, $2 = command (run from the checkout, ./build/floe replaced by $floe)
  local cmd=${2//.\/build\/floe/$floe}
  if ! (cd "$src" && eval "$cmd") >"$tmp/cmd.out" 2>&1; then
    fail "$1: $cmd"; head -20 "$tmp/cmd.out"; return 1
  fi
  echo "ok: $1"
}

# the REST catalog and SQL over HTTP, with the printed curl commands
n=0
while IFS= read -r c; do
  [ -n "$c" ] || continue
  run_printed "curl" "curl -fsS ${c#curl }" || continue
  n=$((n + 1))
done < <(grep -oE "curl (-X POST )?http://127\.0\.0\.1:$port[^ ]*( --data '.*')?" <<<"$connect")
[ "$n" -ge 4 ] || fail "expected at least 4 printed curl commands, ran $n"
grep -q '"status":"completed"' "$tmp/cmd.out" || fail "the printed /v1/sql command answered: $(head -c 300 "$tmp/cmd.out")"

# the web console (the page a browser gets; tests/interop/test_console.sh drives it in Chromium)
c=$(printed "Console:" | awk '{ print $1 }')
run_printed "console" "curl -fsS $c" && { grep -q "<html" "$tmp/cmd.out" || fail "the console page: $(head -c 200 "$tmp/cmd.out")"; }
c=$(printed "Cube API:")
run_printed "Cube API" "$c" && { grep -q '"metrics.net_revenue"' "$tmp/cmd.out" || fail "Cube load: $(head -c 300 "$tmp/cmd.out")"; }

# psql on the Postgres wire port
c=$(printed "psql:")
run_printed psql "$c" && { grep -q "north" "$tmp/cmd.out" || fail "psql answered: $(cat "$tmp/cmd.out")"; }

c=$(printed "metrics:")
run_printed "psql (semantic views)" "$c" && { grep -q "2024-01-01" "$tmp/cmd.out" || fail "semantic view: $(cat "$tmp/cmd.out")"; }
c=$(printed "SQL API:")
run_printed "psql (MEASURE over semantic.metrics)" "$c" && { grep -q "net_revenue" "$tmp/cmd.out" && grep -q "EU" "$tmp/cmd.out" || fail "MEASURE(): $(cat "$tmp/cmd.out")"; }

# MCP: the inspector over HTTP (tools/list), and over stdio with the printed floe mcp command
if [ -d "$here/node_modules/@modelcontextprotocol/inspector-cli" ] || [ -d "$here/node_modules/@modelcontextprotocol" ]; then
  c=$(printed "inspect:")
  run_printed "MCP over HTTP" "$c" && { grep -q query_metrics "$tmp/cmd.out" || fail "MCP tools/list lacks query_metrics"; }
  c=$(printed "stdio:")
  run_printed "MCP over stdio" "node tests/interop/mcp-inspector.mjs $c --method tools/list" &&
    { grep -q run_sql "$tmp/cmd.out" || fail "stdio tools/list lacks run_sql"; }
else
  echo "skip: MCP inspector (node_modules missing)"
fi

# the stream: orders arrive exactly once; the watch command and the metric see them
c=$(printed "FROM orders'" | head -n 1)
count() { run_printed "watch" "$c" >/dev/null && awk 'NR == 3 { print $1 }' "$tmp/cmd.out"; }
before=$(count)
for _ in $(seq 1 100); do now=$(count); [ "${now:-0}" -ge $((before + 40)) ] && break; sleep 0.2; done
[ "${now:-0}" -ge $((before + 40)) ] || fail "the order stream did not grow orders: $before -> $now"
dups=$("$floe" sql --catalog "sqlite:$wh/catalog.db" --warehouse "$wh" --format csv --no-header \
        -c "SELECT count(*) - count(DISTINCT order_id) FROM orders")
[ "$dups" = 0 ] || fail "$dups orders were written twice"
c=$(printed "CLI:")
run_printed "floe semantic query" "$c" && {
  month=$(date -u +%Y-%m-01)
  grep -q "$month" "$tmp/cmd.out" || fail "net_revenue by month lacks the streamed month $month: $(cat "$tmp/cmd.out")"; }

# Postgres CDC (when PostgreSQL is installed, as make test's dependencies make it): changes stream in; once they
# pause, the printed source and replica queries answer the same, and the pipeline's status names its checkpoint
if ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
  grep -q "Postgres CDC: a local PostgreSQL" <<<"$connect" || fail "make run did not start the Postgres CDC pipeline: $(grep 'Postgres CDC' <<<"$connect"; cat "$wh/.postgres.log" 2>/dev/null)"
  csrc=$(printed "source:"); crep=$(printed "replica:"); cstat=$(printed "pipeline:")
  # two rounds of changes arrive in the replica's customers (the ids above 1000 are new ones)
  for _ in $(seq 1 150); do
    n=$("$floe" sql --catalog "sqlite:$wh/catalog.db" --warehouse "$wh" --format csv --no-header \
          -c "SELECT count(*) FROM crm.customers WHERE customer_id > 1000" 2>/dev/null || echo 0)
    [ "${n:-0}" -ge 2 ] && break; sleep 0.2
  done
  [ "${n:-0}" -ge 2 ] || fail "no streamed change reached crm.customers: $(cat "$wh/.pipeline.log")"
  touch "$wh/.postgres-paused"
  same=
  for _ in $(seq 1 60); do
    run_printed "source (psql)" "$csrc" >/dev/null && a=$(sed -n 3p "$tmp/cmd.out" | tr -d ' ')
    run_printed "replica (floe sql)" "$crep" >/dev/null && b=$(sed -n 3p "$tmp/cmd.out" | tr -d ' ')
    [ -n "${a:-}" ] && [ "$a" = "${b:-}" ] && { same=1; break; }
    sleep 0.5
  done
  [ -n "$same" ] && echo "ok: Postgres CDC replica equals its source ($a)" || fail "crm.products ($b) never equalled products ($a)"
  for q in "SELECT customer_id, tier FROM customers ORDER BY 1"; do
    "$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)/psql" -X -A -t -F, "$(grep -o 'postgresql://[^ )]*' <<<"$connect" | head -n 1)" -c "$q" >"$tmp/pg.csv"
    "$floe" sql --catalog "sqlite:$wh/catalog.db" --warehouse "$wh" --format csv --no-header -c "${q/customers/crm.customers}" >"$tmp/fl.csv"
    diff -q "$tmp/pg.csv" "$tmp/fl.csv" >/dev/null || fail "crm.customers differs from customers: $(diff "$tmp/pg.csv" "$tmp/fl.csv" | head -5)"
  done
  run_printed "pipeline status" "$cstat" && { grep -q "^checkpoint: [0-9]" "$tmp/cmd.out" || fail "pipeline status: $(cat "$tmp/cmd.out")"; }
  rm -f "$wh/.postgres-paused"
else
  echo "skip: Postgres CDC (no PostgreSQL server binaries)"
fi

# the Python package, remote, with the printed snippet (built against this build's libfloe)
. "$src/tests/engines/lib/env.sh"
build="${FLOE_BUILD:-$(dirname "$floe")}"
if [ -x "$FLOE_NB_PY" ] && ! grep -qs '^FLOE_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then
  cp -r "$src/python" "$tmp/pkg"; rm -rf "$tmp/pkg/build"
  FLOE_INCLUDE_DIR="$src/include" FLOE_LIB_DIR="$build" "$FLOE_NB_PY" -m pip install -q --no-build-isolation \
    --no-deps --disable-pip-version-check --target "$tmp/site" "$tmp/pkg" >"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log"; fail "pip install ./python"; }
  c=$(printed "FLOE_MODELS=tests/semantic/models .venv/bin/python")
  run_printed "Python (embedded)" "PYTHONPATH=$tmp/site ${c//.venv\/bin\/python/$FLOE_NB_PY}" &&
    { grep -q net_revenue "$tmp/cmd.out" || fail "the Python snippet printed: $(cat "$tmp/cmd.out")"; }
  c=$(printed "remote: ")
  run_printed "Python (remote)" "PYTHONPATH=$tmp/site $FLOE_NB_PY -c \"import floe; print($c)\"" &&
    { grep -q "count" "$tmp/cmd.out" || fail "the remote Python snippet printed: $(cat "$tmp/cmd.out")"; }
else
  echo "skip: Python snippets (notebook venv missing or sanitized build)"
fi

[ $rc -eq 0 ] && echo "make run: ready, every printed endpoint answered"
exit $rc
