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

. "$here/semantic/seed.sh"
export_csv

# ---- every metric type against DuckDB ----
"$FLOE_ENGINE_PY" "$here/semantic/oracle.py" "$FLOE_BIN" "$models" "$tmp" before || bad "answers differ from DuckDB (before)"

# ---- receipts: replay after new data returns the old numbers ----
q=(--metrics net_revenue,customer_total --group-by customer__region --format csv)
old="$(sem query "${q[@]}" --receipt "$tmp/receipt.json")"
grep -q '"model_version": "sha256:' "$tmp/receipt.json" || bad "receipt has no model version"
grep -q 'FOR VERSION AS OF' "$tmp/receipt.json" || bad "receipt's replay SQL pins no snapshot"
grep -q '"table": "default.orders"' "$tmp/receipt.json" || bad "receipt does not list default.orders"
grep -q '"committed_at": "20' "$tmp/receipt.json" || bad "receipt has no snapshot commit time (freshness)"
fsql -c "INSERT INTO orders VALUES (9001, 4, DATE '2024-07-15', 'completed', 5000.00, 0, 0)" \
     -c "INSERT INTO customers VALUES (41, 'EU', 'DE', DATE '2024-07-01')"
new="$(sem query "${q[@]}")"
[ "$old" != "$new" ] || bad "the second insert changed nothing"
replayed="$("$FLOE_BIN" semantic replay "$tmp/receipt.json" "${cat_opts[@]}" --format csv)"
[ "$replayed" = "$old" ] || bad "replay differs from the original answer:
$replayed
--- want
$old"
# `-`: the receipt from stdin, and to stdout (after the rows)
replayed_s="$("$FLOE_BIN" semantic replay - "${cat_opts[@]}" --format csv <"$tmp/receipt.json")"
[ "$replayed_s" = "$old" ] || bad "replay - (stdin) differs from the original answer: $replayed_s"
sem replay "$tmp/receipt.json" --format csv --receipt - | grep -q '"model_version": "sha256:' ||
    bad "replay --receipt - printed no receipt on stdout"
replayed_m="$(sem replay "$tmp/receipt.json" --format csv --receipt "$tmp/receipt2.json")"
[ "$replayed_m" = "$old" ] || bad "replay with --models differs from the original answer"
cmp -s <(grep -E 'snapshot_id|committed_at' "$tmp/receipt.json") <(grep -E 'snapshot_id|committed_at' "$tmp/receipt2.json") || bad "the replay's receipt read other snapshots"
# pinned by hand: --pin TABLE=SNAPSHOT (the receipt's), and --as-of a time before the insert
pins=()
while read -r t s; do pins+=(--pin "$t=$s"); done < <("$FLOE_ENGINE_PY" -c '
import json, sys
for t in json.load(open(sys.argv[1]))["tables"]: print(t["table"].split(".")[-1], t["snapshot_id"])' "$tmp/receipt.json")
[ "$(sem query "${q[@]}" "${pins[@]}")" = "$old" ] || bad "--pin to the receipt's snapshots differs from the original answer"
asof="$("$FLOE_ENGINE_PY" -c 'import json, sys; print(max(t["committed_at"] for t in json.load(open(sys.argv[1]))["tables"]).rsplit("+", 1)[0])' "$tmp/receipt.json")"
[ "$(sem query "${q[@]}" --as-of "$asof")" = "$old" ] || bad "--as-of $asof differs from the original answer"
export_csv
"$FLOE_ENGINE_PY" "$here/semantic/oracle.py" "$FLOE_BIN" "$models" "$tmp" after || bad "answers differ from DuckDB (after the insert)"

# ---- a saved query equals the same query spelled out ----
a="$(sem query --saved monthly_net_revenue_by_region --limit 6 --format csv)"
b="$(sem query --metrics net_revenue,return_rate --group-by metric_time__month,customer__region --where "{{ Dimension('order__status') }} <> 'cancelled'" --order-by metric_time__month,-net_revenue --limit 6 --format csv)"
[ "$a" = "$b" ] && [ "$(wc -l <<< "$a")" = 7 ] || bad "saved query differs from the query spelled out:
$a
--- want
$b"

# ---- compile-only and list ----
sql="$(sem compile --metrics net_revenue --group-by metric_time__month)"
grep -q "date_trunc('month'" <<< "$sql" || bad "compile prints no SQL: $sql"
ex="$(sem explain --metrics gross_revenue --group-by country__continent)"
grep -q "^tables: default.orders default.customers default.countries" <<< "$ex" || bad "explain does not list the three tables: $ex"
grep -q "QUERY PLAN" <<< "$ex" || bad "explain prints no plan"
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
