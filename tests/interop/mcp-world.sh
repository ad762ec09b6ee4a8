# mcp-world.sh - sourced by tests/interop/test_mcp.sh and tests/engines/test_mcp_python.sh: a warehouse with
# sales.orders (5 rows in 3 country partitions, 2 snapshots) and hr.salaries, principals analyst (READ on
# sales), de_only (READ on sales, row filter country = 'DE') and nobody (no grants), their bearer tokens
# ($analyst, $de_only, $nobody, and $expired, an analyst token already expired), and `floe serve` on a random
# port ($http). Needs $floe; sets $dir, $cat, $wh, $pid and an EXIT trap that stops the server.
dir="$(mktemp -d "${TMPDIR:-/tmp}/floe-mcp.XXXXXX")"
pid=
cleanup() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi; rm -rf "$dir"; }
trap cleanup EXIT
cat="sqlite:$dir/wh/catalog.db"
wh="$dir/wh"
mkdir -p "$wh"

"$floe" sql --catalog="$cat" --warehouse="$wh" -q \
  -c "CREATE SCHEMA sales" -c "CREATE SCHEMA hr" \
  -c "CREATE TABLE sales.orders (id int, country text, amount decimal(10,2), ts timestamptz) WITH (partitioning = ARRAY['country'])" \
  -c "INSERT INTO sales.orders VALUES (1, 'DE', 10.50, '2024-01-05 10:00:00+00'), (2, 'DE', 20.00, '2024-02-05 10:00:00+00'), (3, 'FR', 7.25, '2024-02-06 10:00:00+00'), (4, NULL, 1.00, '2024-03-01 00:00:00+00')" \
  -c "INSERT INTO sales.orders VALUES (5, 'FR', 3.00, '2024-03-02 00:00:00+00')" \
  -c "CREATE TABLE hr.salaries (name text, salary int)"
adm() { "$floe" admin --catalog "$cat" "$@" >/dev/null; }
for p in analyst de_only nobody; do adm principal create "$p"; done
adm role create sales_r
adm role create de_r
adm role assign analyst sales_r
adm role assign de_only de_r
adm grant sales_r read namespace sales
adm grant de_r read namespace sales
adm policy row-filter de_r sales.orders "country = 'DE'"
tok() { "$floe" admin --catalog "$cat" token "$@"; }
analyst=$(tok analyst)
de_only=$(tok de_only)
nobody=$(tok nobody)
expired=$(tok analyst --ttl -60)

port=$((20000 + RANDOM % 20000))
"$floe" serve --port "$port" --catalog "$cat" --warehouse "$wh" --ready-file "$dir/ready" >"$dir/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do [ -s "$dir/ready" ] && break; sleep 0.05; done
if [ ! -s "$dir/ready" ]; then echo "FAIL: floe serve did not start:"; tail -20 "$dir/serve.log"; exit 1; fi
http="http://$(sed -n 1p "$dir/ready")"
echo "server: $http"

