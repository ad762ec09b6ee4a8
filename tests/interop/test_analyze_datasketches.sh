#!/usr/bin/env bash
# ANALYZE's Puffin statistics read by independent code: Apache DataSketches' Python library
# (pinned in tests/engines/requirements.txt) deserializes every theta blob floe wrote and its
# estimate equals the "ndv" floe recorded; for bigint and text columns Python's own sketch of
# the same values is byte-identical (floe hashes what DataSketches hashes). Both commit paths:
# the embedded SQLite catalog (`floe sql`), and `floe serve` applying set-statistics sent by a
# REST client (`floe sql --catalog http://...`), where later commits keep the entry and a raw
# remove-statistics update (as Spark/Trino send it) drops it.
# Skips (77) only when the engine venv is absent.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
FLOE_SRC="${FLOE_SRC:-$(cd "$here/../.." && pwd)}"
. "$FLOE_SRC/tests/engines/lib/env.sh"
[ -x "$FLOE_ENGINE_PY" ] || { echo "SKIP: no engine venv at $FLOE_ENGINE_VENV"; exit 77; }
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-analyze.XXXXXX")"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
unset FLOE_CATALOG FLOE_WAREHOUSE FLOE_REST_CREDENTIAL FLOE_REST_TOKEN
fails=0 passes=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; passes=$((passes + 1)); }
py() { "$FLOE_ENGINE_PY" "$here/analyze_check.py" "$@" && ok "analyze_check.py ${1}" || fail "analyze_check.py $*"; }

# ---- embedded catalog ----
cat="sqlite:$tmp/wh/catalog.db"
sql() { "$FLOE_BIN" sql --catalog "$cat" --warehouse "$tmp/wh" "$@"; }
sql -c "CREATE TABLE t (id bigint, s text, i int, d decimal(12,2), f double, dt date, b boolean, z int)" \
  -c "INSERT INTO t SELECT g, 'v' || (g % 3000), g % 50, (g % 700) / 4.0, g / 8.0, DATE '2024-01-01' + (g % 366), g % 2 = 0, NULL
      FROM generate_series(1, 20000) g ORDER BY g" \
  -c "DELETE FROM t WHERE id > 19000" -c "ANALYZE t" >"$tmp/out" 2>&1 || fail "floe sql: $(cat "$tmp/out")"
grep -qx ANALYZE "$tmp/out" && ok "tag ANALYZE" || fail "no ANALYZE tag: $(cat "$tmp/out")"
md=$(ls "$tmp"/wh/default/t/metadata/*.metadata.json | sort | tail -1)
# field ids 1..8 in column order; id and s are fed to Python's sketch as well, in the same order (a
# theta sketch's retained hashes depend on the order of updates): the INSERT's ORDER BY keeps the
# rows in that order in one file, where a parallel INSERT would split them between writers
py "$md" '{"1": {"longs": [1, 19001], "ndv": [18050, 19950]}, "2": {"strings": ["v%d", 0, 3000], "ndv": 3000},
           "3": 50, "4": 700, "5": [18050, 19950], "6": 366, "7": 2, "8": 0}'

# ---- floe serve (REST) ----
sd="$tmp/serve"; mkdir -p "$sd/wh"
"$FLOE_BIN" serve --port 0 --catalog "sqlite:$sd/wh/catalog.db" --warehouse "$sd/wh" --insecure-no-auth \
  --ready-file "$sd/ready" 2>"$sd/log" &
pids+=($!)
for _ in $(seq 1 200); do [ -s "$sd/ready" ] && break; sleep 0.05; done
[ -s "$sd/ready" ] || { echo "FAIL: floe serve did not start: $(tail -3 "$sd/log")"; exit 1; }
url="http://$(head -1 "$sd/ready")"
rsql() { "$FLOE_BIN" sql --catalog "$url" "$@"; }
load() { curl -sf "$url/v1/namespaces/ns/tables/r"; }
rsql -c "CREATE SCHEMA ns" -c "CREATE TABLE ns.r (k bigint, name text)" \
  -c "INSERT INTO ns.r SELECT g, 'n' || (g % 10) FROM generate_series(1, 5000) g" \
  -c "ANALYZE ns.r" >"$tmp/rout" 2>&1 || fail "floe sql over REST: $(cat "$tmp/rout")"
load | py - '{"1": {"longs": [1, 5001], "ndv": 5000}, "2": {"strings": ["n%d", 0, 10], "ndv": 10}}'
snap=$(load | python3 -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["current-snapshot-id"])')
rsql -c "INSERT INTO ns.r VALUES (9, 'x')" -c "ALTER TABLE ns.r SET (owner = 'o')" >/dev/null 2>&1 ||
  fail "later commits over REST"
n=$(load | python3 -c "import json,sys; m=json.load(sys.stdin)['metadata']; print(sum(s['snapshot-id'] == $snap for s in m.get('statistics', [])))")
[ "$n" = 1 ] && ok "REST: later commits keep the statistics" || fail "REST: statistics after later commits: $n"
# a raw remove-statistics, as another engine's REST client sends it
body="{\"requirements\":[],\"updates\":[{\"action\":\"remove-statistics\",\"snapshot-id\":$snap}]}"
curl -sf -X POST -H 'Content-Type: application/json' --data "$body" "$url/v1/namespaces/ns/tables/r" >/dev/null ||
  fail "REST: remove-statistics commit"
n=$(load | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["metadata"].get("statistics", [])))')
[ "$n" = 0 ] && ok "REST: remove-statistics drops the entry" || fail "REST: statistics after remove: $n"

echo "analyze_datasketches: $passes passed, $fails failed"
[ "$fails" = 0 ]
