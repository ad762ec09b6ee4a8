# mcp-metrics-world.sh - sourced by tests/interop/test_mcp_metrics.sh and tests/engines/test_mcp_metrics_python.sh:
# the semantic tests' data (semantic/seed.sh) in a fresh warehouse, principals analyst (READ on default), c8_only
# (READ, row filter customer_id % 8 = 0 on orders) and nobody (no grants) with tok() for their tokens, the seed
# scenario "net revenue by month for 2024 in region EU" by `floe semantic query` ($sem) and by hand-written SQL
# ($sql; $sql_c8 with the row filter), and `floe serve --models` on free ports ($http; PostgreSQL wire at $pg_host
# $pg_port, where a principal's password is its secret: ${secret[analyst]}...). Needs $floe and $src (the
# checkout); sets $tmp, $cat, $wh, $models, $pid, rc=0, fail() and an EXIT trap that stops the server.
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-mcp-metrics.XXXXXX")"
pid=
cleanup() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi; rm -rf "$tmp"; }
trap cleanup EXIT
models="$tmp/models" # a copy: propose_metric files proposals in $models/.pending
cp -r "$src/tests/semantic/models" "$models"
cat="sqlite:$tmp/cat.db"
wh="$tmp/wh"
fsql() { "$floe" sql --catalog="$cat" --warehouse="$wh" -q "$@"; }
. "$src/tests/interop/semantic/seed.sh"

# principals: analyst reads everything, c8_only sees the orders of customer ids divisible by 8, nobody has no grants,
# masked sees every region as 'hidden'
adm() { "$floe" admin --catalog "$cat" "$@" >/dev/null; }
declare -A secret
for p in analyst c8_only nobody masked; do
  secret[$p]=$("$floe" admin --catalog "$cat" principal create "$p" | sed -n 's/^client_secret: *//p')
done
adm role create all_r
adm role create c8_r
adm role assign analyst all_r
adm role assign c8_only c8_r
adm grant all_r read namespace default
adm grant c8_r read namespace default
adm policy row-filter c8_r default.orders "customer_id % 8 = 0"
# masked reads everything, but every customer's region as 'hidden' (the member customer__region, masked)
adm role create masked_r
adm role assign masked masked_r
adm grant masked_r read namespace default
adm policy mask masked_r default.customers region "'hidden'"
tok() { "$floe" admin --catalog "$cat" token "$@"; }

# the seed scenario by floe semantic query and by hand-written SQL
where=(--where "{{ Dimension('customer__region') }} = 'EU'" --where "{{ TimeDimension('metric_time', 'day') }} >= '2024-01-01'"
       --where "{{ TimeDimension('metric_time', 'day') }} < '2025-01-01'")
sem=$("$floe" semantic query --models "$models" --catalog "$cat" --warehouse "$wh" --metrics net_revenue \
  --group-by metric_time__month "${where[@]}" --order-by metric_time__month --format csv | tail -n +2)
hand() {
  "$floe" sql --catalog="$cat" --warehouse="$wh" --format=csv --no-header -c "SELECT CAST(date_trunc('month', o.order_date) AS date),
    sum(o.gross_amount - o.discount_applied - o.return_amount) FROM orders o JOIN customers c ON c.customer_id = o.customer_id
    WHERE c.region = 'EU' AND o.order_date >= DATE '2024-01-01' AND o.order_date < DATE '2025-01-01' $1 GROUP BY 1 ORDER BY 1"
}
sql=$(hand "")
sql_c8=$(hand "AND o.customer_id % 8 = 0")
rc=0
fail() { echo "FAIL: $*"; rc=1; }
# --port 0 / --pg-port 0: free ports, read back from the ready file (a random one can collide under ctest -j)
"$floe" serve --port 0 --pg-port 0 --catalog "$cat" --warehouse "$wh" --models "$models" --ready-file "$tmp/ready" >"$tmp/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do [ -s "$tmp/ready" ] && break; sleep 0.05; done
if [ ! -s "$tmp/ready" ]; then echo "FAIL: floe serve did not start:"; tail -20 "$tmp/serve.log"; exit 1; fi
http="http://$(sed -n 1p "$tmp/ready")"
for _ in $(seq 1 100); do [ "$(wc -l <"$tmp/ready")" -ge 2 ] && break; sleep 0.05; done
pg_addr=$(sed -n 's/^pg //p' "$tmp/ready")
pg_host=${pg_addr%:*}
pg_port=${pg_addr##*:}
