#!/usr/bin/env bash
# The semantic layer's SQL API (include/floe/sem_sql.h, docs/semantic.md "SQL: MEASURE()") with psql over
# `floe serve --models`'s PostgreSQL wire, on the semantic tests' world (mcp-metrics-world.sh). The seed scenario,
# net revenue by month for 2024 in region EU, read as
#   SELECT metric_time__month, MEASURE(net_revenue) FROM semantic.metrics WHERE ... GROUP BY 1 ORDER BY 1
# must equal `floe semantic query` and the hand-written SQL (the numbers test_cube_api.sh and test_mcp_metrics.sh
# check REST /load and the MCP tools against); the row-filtered principal gets the row-filtered numbers and the
# principal without grants is refused, so the policy holds over SQL too; a principal whose customers.region is
# masked sees the member customer__region masked through SQL, Cube's /load and MCP's query_metrics alike. information_schema and psql's \d list
# the members; /v1/sql and `floe sql --models` answer the same; bad queries get SQLSTATEs and positions.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
floe=$FLOE_BIN
command -v psql >/dev/null || { echo "skip: psql missing"; exit 77; }
. "$here/mcp-metrics-world.sh"
[ "$(wc -l <<<"$sem")" -ge 6 ] || fail "floe semantic query returned too few months: $sem"
[ -n "$pg_port" ] || { echo "FAIL: no pg address in the ready file"; cat "$tmp/ready"; exit 1; }
[ "$sem" = "$sql" ] || fail "floe semantic query differs from the hand-written SQL"

as() {  # PRINCIPAL psql-args...
  local who=$1; shift
  PGPASSWORD="${secret[$who]}" psql -X -q -h "$pg_host" -p "$pg_port" -U "$who" -d floe -A -t -F ',' "$@" 2>&1
}
seed="SELECT metric_time__month, MEASURE(net_revenue) FROM semantic.metrics
      WHERE customer__region = 'EU' AND metric_time__day >= DATE '2024-01-01' AND metric_time__day < DATE '2025-01-01'
      GROUP BY 1 ORDER BY 1"

# ---- the seed scenario: psql == floe semantic query == hand-written SQL ----
out=$(as analyst -c "$seed") || fail "psql: $out"
[ "$out" = "$sem" ] || fail "MEASURE(net_revenue) over psql differs from floe semantic query:
$out
--- want
$sem"
# the same through the Cube-style spelling: date_trunc, SUM() of a sum metric, output names in GROUP/ORDER BY
out=$(as analyst -c "SELECT date_trunc('month', metric_time) AS month, SUM(gross_revenue) - SUM(discounts) - SUM(returns) AS net
      FROM semantic.metrics m WHERE m.customer__region = 'EU' AND metric_time__day BETWEEN DATE '2024-01-01' AND DATE '2024-12-31'
      GROUP BY month ORDER BY month") || fail "psql: $out"
[ "$out" = "$sem" ] || fail "SUM(gross_revenue) - SUM(discounts) - SUM(returns) differs from net_revenue:
$out
--- want
$sem"

# ---- policies: the row filter holds, no grants is refused ----
out=$(as c8_only -c "$seed") || fail "psql c8_only: $out"
[ "$out" = "$sql_c8" ] || fail "the row-filtered principal's MEASURE() differs from the row-filtered SQL:
$out
--- want
$sql_c8"
[ "$out" != "$sem" ] || fail "the row filter changed nothing"
if out=$(as nobody -v VERBOSITY=verbose -c "$seed"); then fail "a principal without grants read metrics: $out"; fi
grep -q "42501" <<<"$out" || fail "no grants: want 42501, got: $out"

# ---- a masked member is masked through SQL, REST (Cube's /load) and MCP (query_metrics) alike ----
total=$("$floe" sql --catalog="$cat" --warehouse="$wh" --format=csv --no-header -c \
  "SELECT sum(gross_amount - discount_applied - return_amount) FROM orders")
out=$(as masked -c "SELECT customer__region, MEASURE(net_revenue) FROM semantic.metrics GROUP BY 1") || fail "psql masked: $out"
[ "$out" = "hidden,$total" ] || fail "SQL: the masked principal's regions: $out (want hidden,$total)"
body=$(curl -s -G -H "Authorization: $(tok masked)" "$http/cubejs-api/v1/load" --data-urlencode \
  'query={"measures":["metrics.net_revenue"],"dimensions":["metrics.customer__region"]}')
regions=$(grep -o '"metrics.customer__region":"[^"]*"' <<<"$body" | sort -u)
[ "$regions" = '"metrics.customer__region":"hidden"' ] || fail "REST: the masked principal's regions: $regions ($(head -c 300 <<<"$body"))"
grep -q "\"metrics.net_revenue\":\"$total\"" <<<"$body" || fail "REST: the masked principal's total is not $total: $(head -c 300 <<<"$body")"
out=$(node "$here/mcp-inspector.mjs" "$http/mcp" --transport http --header "Authorization: Bearer $(tok masked)" --method tools/call \
  --tool-name query_metrics --tool-arg 'metrics=["net_revenue"]' --tool-arg 'group_by=["customer__region"]') || fail "MCP query_metrics: $out"
flat=$(tr -d ' \n' <<<"$out")
grep -q "\"hidden\",\"$total\"" <<<"$flat" || fail "MCP: the masked principal does not get hidden,$total: $(head -c 400 <<<"$out")"
for r in EU US APAC; do grep -q "\"$r\"" <<<"$flat" && fail "MCP: the masked principal sees region $r"; done

# ---- HAVING, ORDER BY a measure, LIMIT/OFFSET, expressions over metrics ----
out=$(as analyst -c "SELECT customer__region, MEASURE(net_revenue) AS rev, round(CAST(MEASURE(return_rate) * 100 AS numeric), 2) AS pct
      FROM semantic.metrics WHERE customer__region IS NOT NULL GROUP BY 1 HAVING MEASURE(net_revenue) > 0
      ORDER BY rev DESC LIMIT 2 OFFSET 1") || fail "psql: $out"
want=$("$floe" semantic query --models "$models" --catalog "$cat" --warehouse "$wh" --metrics net_revenue \
  --group-by customer__region --where "{{ Dimension('customer__region') }} IS NOT NULL" --order-by -net_revenue \
  --format csv | tail -n +2 | sed -n 2,3p | cut -d, -f1,2)
[ "$(cut -d, -f1,2 <<<"$out")" = "$want" ] || fail "HAVING/ORDER BY/LIMIT/OFFSET: $out
--- want
$want"
[ "$(wc -l <<<"$out")" = 2 ] && grep -qE '^[A-Z]+,[0-9.]+,[0-9]+\.[0-9]{2}$' <<<"$out" || fail "expression column: $out"

# ---- the catalog: information_schema lists the members, psql's \d describes the relation ----
cols=$(as analyst -c "SELECT column_name || ':' || data_type FROM information_schema.columns
       WHERE table_schema = 'semantic' AND table_name = 'metrics' ORDER BY ordinal_position") || fail "information_schema: $cols"
# the answers' types (floe serve plans a query per member at startup): a date axis, numeric sums, a bigint count
for want in "metric_time:date" "customer__region:text" "net_revenue:numeric" "order_total:bigint" "return_rate:double precision"; do
  grep -qx "$want" <<<"$cols" || fail "information_schema.columns of semantic.metrics lacks $want: $cols"
done
out=$(as analyst -c "SELECT table_type FROM information_schema.tables WHERE table_schema = 'semantic' AND table_name = 'metrics'")
[ "$out" = "VIEW" ] || fail "information_schema.tables: $out"
out=$(PGPASSWORD="${secret[analyst]}" psql -X -h "$pg_host" -p "$pg_port" -U analyst -d floe -c '\d semantic.metrics' 2>&1) || fail "\\d: $out"
grep -q "net_revenue" <<<"$out" || fail "\\d semantic.metrics lists no net_revenue: $out"

# ---- errors: SQLSTATE and position ----
expect_err() {  # STATE WANT SQL
  local o
  if o=$(as analyst -v VERBOSITY=verbose -c "$3"); then fail "accepted: $3 -> $o"; return; fi
  grep -q "$1" <<<"$o" && grep -q -- "$2" <<<"$o" || fail "$3: want $1 and '$2', got: $o"
}
expect_err 42703 "no metric 'nope'" "SELECT MEASURE(nope) FROM semantic.metrics"
expect_err 42803 "MEASURE(net_revenue)" "SELECT customer__region, net_revenue FROM semantic.metrics GROUP BY 1"
expect_err 42803 "must appear in the GROUP BY" "SELECT customer__region, order__status, MEASURE(net_revenue) FROM semantic.metrics GROUP BY 1"
expect_err 0A000 "SELECT \\*" "SELECT * FROM semantic.metrics"
expect_err 0A000 "only relation" "SELECT MEASURE(net_revenue) FROM semantic.metrics, orders"
expect_err "" "unknown dimension 'nope'" "SELECT nope, MEASURE(net_revenue) FROM semantic.metrics GROUP BY 1"
o=$(as analyst -c "SELECT MEASURE(nope) FROM semantic.metrics" || true)
grep -q "LINE 1: SELECT MEASURE(nope)" <<<"$o" || fail "no position for the unknown metric: $o"

# ---- the same answer from /v1/sql and floe sql --models ----
body=$(curl -s -H "Authorization: Bearer $(tok analyst)" --data-binary "$seed" "$http/v1/sql")
rows=$(sed -n 's/^{"metric_time__month":"\([^"]*\)","net_revenue":\([0-9.]*\)}$/\1,\2/p' <<<"$body")
[ "$rows" = "$sem" ] || fail "/v1/sql: $body"
out=$("$floe" sql --catalog "$cat" --warehouse "$wh" --models "$models" --format csv --no-header -c "$seed") || fail "floe sql --models: $out"
[ "$out" = "$sem" ] || fail "floe sql --models: $out"
# without --models semantic.metrics is an ordinary (missing) relation
if out=$("$floe" sql --catalog "$cat" --warehouse "$wh" -c "$seed" 2>&1); then fail "semantic.metrics without --models: $out"; fi
grep -q 'does not exist' <<<"$out" || fail "without --models: $out"
# an ordinary query on the same server is untouched
out=$(as analyst -c "SELECT count(*) FROM orders")
[ "$out" = 600 ] || fail "SELECT count(*) FROM orders: $out"

if [ $rc != 0 ]; then echo "--- server log (tail)"; tail -20 "$tmp/serve.log"; exit 1; fi
echo "PASS: semantic SQL API"
