#!/usr/bin/env bash
# The semantic layer end to end (issue 19's seed example): orders with gross_amount, discount_applied and
# return_amount, customers with a region, countries two hops away, account balances (semi-additive); the
# models of tests/semantic/models define net_revenue once. Every `floe semantic query` answer is checked
# against hand-written SQL run by DuckDB over the same rows (exported as CSV): semantic/oracle.py. Then a
# receipt is written, new data lands, the replay returns the old numbers and a current query the new ones.
# Bad models and bad queries fail with errors naming the member and the file.
set -euo pipefail
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
. "$src/tests/engines/lib/env.sh"
if [ ! -x "$FLOE_ENGINE_PY" ]; then
  echo "FAIL: $FLOE_ENGINE_PY missing (DuckDB oracle): run scripts/install-deps.sh"; exit 1
fi
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-semantic.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
models="$src/tests/semantic/models"
cat_opts=(--catalog "sqlite:$tmp/cat.db" --warehouse "$tmp/wh")
fsql() { "$FLOE_BIN" sql "${cat_opts[@]}" -q "$@"; }
sem() { "$FLOE_BIN" semantic "$1" --models "$models" "${cat_opts[@]}" "${@:2}"; }
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# ---- data: deterministic, 600 orders over 7 months, 40 customers in 3 regions (some without one) ----
fsql -c "CREATE TABLE orders (order_id int, customer_id int, order_date date, status varchar, gross_amount decimal(10,2), discount_applied decimal(10,2), return_amount decimal(10,2))" \
     -c "CREATE TABLE customers (customer_id int, region varchar, country_code varchar, signup_date date)" \
     -c "CREATE TABLE countries (country_code varchar, continent varchar)" \
     -c "CREATE TABLE account_balances (account_id int, customer_id int, balance_date date, balance decimal(12,2))"
fsql -c "INSERT INTO countries VALUES ('DE','Europe'),('FR','Europe'),('US','America'),('BR','America'),('JP','Asia')" \
     -c "INSERT INTO customers SELECT i, CASE i % 4 WHEN 0 THEN 'EU' WHEN 1 THEN 'US' WHEN 2 THEN 'APAC' ELSE NULL END, (ARRAY['DE','FR','US','BR','JP'])[1 + i % 5], DATE '2023-06-01' + i * 9 FROM generate_series(1, 40) AS g(i)" \
     -c "INSERT INTO orders SELECT i, 1 + (i * 7) % 40, DATE '2024-01-01' + (i * 13) % 210, CASE i % 6 WHEN 0 THEN 'cancelled' WHEN 1 THEN 'placed' ELSE 'completed' END, CAST(10 + (i * 37) % 490 AS decimal(10,2)) + 0.25, CAST((i * 11) % 30 AS decimal(10,2)), CASE WHEN i % 9 = 0 THEN CAST((i * 5) % 60 AS decimal(10,2)) ELSE 0 END FROM generate_series(1, 600) AS g(i)" \
     -c "INSERT INTO account_balances SELECT 1 + i % 12, 1 + i % 12, DATE '2024-01-01' + (i / 12) * 5, CAST(1000 + (i * 53) % 900 AS decimal(12,2)) FROM generate_series(0, 479) AS g(i)"
export_csv() {
  mkdir -p "$tmp/csv"
  for t in orders customers countries account_balances; do
    fsql -c "COPY (SELECT * FROM $t) TO '$tmp/csv/$t.csv' (FORMAT csv, HEADER)"
  done
}
export_csv

# ---- every metric type against DuckDB ----
"$FLOE_ENGINE_PY" "$here/semantic/oracle.py" "$FLOE_BIN" "$models" "$tmp" before || bad "answers differ from DuckDB (before)"

# ---- receipts: replay after new data returns the old numbers ----
q=(--metrics net_revenue,customer_total --group-by customer__region --format csv)
old="$(sem query "${q[@]}" --receipt "$tmp/receipt.json")"
grep -q '"model_version": "sha256:' "$tmp/receipt.json" || bad "receipt has no model version"
grep -q 'FOR VERSION AS OF' "$tmp/receipt.json" || bad "receipt's replay SQL pins no snapshot"
grep -q '"table": "default.orders"' "$tmp/receipt.json" || bad "receipt does not list default.orders"
fsql -c "INSERT INTO orders VALUES (9001, 4, DATE '2024-07-15', 'completed', 5000.00, 0, 0)" \
     -c "INSERT INTO customers VALUES (41, 'EU', 'DE', DATE '2024-07-01')"
new="$(sem query "${q[@]}")"
[ "$old" != "$new" ] || bad "the second insert changed nothing"
replayed="$("$FLOE_BIN" semantic replay "$tmp/receipt.json" "${cat_opts[@]}" --format csv)"
[ "$replayed" = "$old" ] || bad "replay differs from the original answer:
$replayed
--- want
$old"
replayed_m="$(sem replay "$tmp/receipt.json" --format csv --receipt "$tmp/receipt2.json")"
[ "$replayed_m" = "$old" ] || bad "replay with --models differs from the original answer"
cmp -s <(grep snapshot_id "$tmp/receipt.json") <(grep snapshot_id "$tmp/receipt2.json") || bad "the replay's receipt read other snapshots"
export_csv
"$FLOE_ENGINE_PY" "$here/semantic/oracle.py" "$FLOE_BIN" "$models" "$tmp" after || bad "answers differ from DuckDB (after the insert)"

# ---- compile-only and list ----
sql="$(sem compile --metrics net_revenue --group-by metric_time__month)"
grep -q "date_trunc('month'" <<< "$sql" || bad "compile prints no SQL: $sql"
list="$(sem list --format json)"
grep -q '"name": "net_revenue"' <<< "$list" || bad "list has no net_revenue"
grep -q 'Use this for any question about revenue' <<< "$list" || bad "list lost the metric's ai_context"

# ---- bad queries: exit 1, the member and the file named ----
expect_fail() {  # WANT... -- ARGS
  local want=() a
  while [ "$1" != "--" ]; do want+=("$1"); shift; done; shift
  set +e; err="$("$FLOE_BIN" semantic "$@" 2>&1 >/dev/null)"; rc=$?; set -e
  [ "$rc" = 1 ] || bad "floe semantic $* exits $rc (want 1): $err"
  for a in "${want[@]}"; do grep -qF -- "$a" <<< "$err" || bad "floe semantic $*: error does not say '$a': $err"; done
}
expect_fail "unknown dimension 'regio'" "metric 'net_revenue'" "metrics.yml" -- query --models "$models" "${cat_opts[@]}" --metrics net_revenue --group-by customer__regio
expect_fail "unknown metric 'revenue'" -- query --models "$models" "${cat_opts[@]}" --metrics revenue
expect_fail "would fan out" "customers" "orders.yml" -- compile --models "$models" --metrics customer_total --group-by order__status
expect_fail "unknown time grain 'fortnight'" -- compile --models "$models" --metrics net_revenue --group-by metric_time__fortnight
expect_fail "has granularity day" "orders.yml" -- compile --models "$models" --metrics net_revenue --group-by metric_time__hour

# ---- bad models ----
cp -r "$models" "$tmp/badmodels"
sed -i 's/type_params: {measure: gross_amount}/type_params: {measure: gross}/' "$tmp/badmodels/metrics.yml"
line="$(grep -n 'measure: gross}' "$tmp/badmodels/metrics.yml" | head -1 | cut -d: -f1)"
expect_fail "badmodels/metrics.yml:$line: metric 'gross_revenue': unknown measure 'gross'" -- validate --models "$tmp/badmodels"
cp "$models/metrics.yml" "$tmp/badmodels/metrics.yml"
printf 'semantic_models:\n  - name: broken\n    model: ref(x\n    entities: [\n' > "$tmp/badmodels/zz.yml"
expect_fail "badmodels/zz.yml:" "YAML" -- validate --models "$tmp/badmodels"
rm "$tmp/badmodels/zz.yml"
out="$("$FLOE_BIN" semantic validate --models "$tmp/badmodels")"
grep -q "^ok: " <<< "$out" || bad "validate of the restored models: $out"

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok: semantic layer end to end"
