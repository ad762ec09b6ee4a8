#!/usr/bin/env bash
# One value formatter for tables and query results (src/cli/README.md "Values in output"): `floe table cat`
# prints exactly what `floe sql -c 'SELECT * FROM t'` prints, in every text format, for every type (booleans,
# timestamps with and without fractions, bigints beyond 2^53, decimals with trailing zeros, structs, lists,
# maps, binary, uuid, NULLs), and /v1/sql answers with the same JSON values.
set -uo pipefail
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-value-format.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
unset FLOE_CATALOG FLOE_WAREHOUSE FLOE_PROGRESS
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
floe() { "$FLOE_BIN" "$@" --catalog "sqlite:$tmp/wh/catalog.db" --warehouse "$tmp/wh"; }

floe sql -q -c "CREATE TABLE v (b boolean, ts timestamp, tz timestamptz, d decimal(10,2), big bigint,
                 s struct<a bigint, f double, ok boolean>, l list<bigint>, m map<varchar, bigint>,
                 bin varbinary, u uuid, t varchar)" \
    -c "INSERT INTO v VALUES
          (true, TIMESTAMP '2024-01-01 10:00:00', TIMESTAMPTZ '2024-01-01 10:00:00.25+00', 12.50,
           9007199254740993, ROW(5, 1.5, false), ARRAY[1, 2], MAP(ARRAY['k'], ARRAY[7]), X'00ff',
           uuid '123e4567-e89b-12d3-a456-426614174000', 'a,\"b\"'),
          (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)" ||
    { echo "FAIL: setup"; exit 1; }

for f in table csv json jsonl unaligned; do
    floe table cat default.v --format "$f" >"$tmp/cat.$f" 2>"$tmp/err" || bad "table cat --format $f: $(cat "$tmp/err")"
    floe sql --format "$f" -c "SELECT * FROM v" >"$tmp/sql.$f" 2>"$tmp/err" || bad "sql --format $f: $(cat "$tmp/err")"
    cmp -s "$tmp/cat.$f" "$tmp/sql.$f" || bad "--format $f differs: $(diff "$tmp/cat.$f" "$tmp/sql.$f" | head -6)"
done
want='{"b":true,"ts":"2024-01-01 10:00:00","tz":"2024-01-01 10:00:00.25+00","d":12.50,"big":9007199254740993,"s":{"a":5,"f":1.5,"ok":false},"l":[1,2],"m":{"k":7},"bin":"\\x00ff","u":"123e4567-e89b-12d3-a456-426614174000","t":"a,\"b\""}'
[ "$(head -1 "$tmp/cat.jsonl")" = "$want" ] || bad "jsonl row: $(head -1 "$tmp/cat.jsonl")"
grep -q '^t,2024-01-01 10:00:00,2024-01-01 10:00:00.25+00,12.50,9007199254740993,' "$tmp/cat.csv" ||
    bad "csv row: $(sed -n 2p "$tmp/cat.csv")"
floe table cat default.v --format jsonl --limit 1 --columns big,d >"$tmp/lim" || bad "--limit --columns"
[ "$(cat "$tmp/lim")" = '{"big":9007199254740993,"d":12.50}' ] || bad "--limit 1 --columns: $(cat "$tmp/lim")"
[ "$(floe table count default.v --format jsonl)" = '{"count":2}' ] || bad "count jsonl: $(floe table count default.v --format jsonl)"
floe table cat default.v --format parquet >/dev/null 2>"$tmp/err" && bad "table cat --format parquet accepted"
grep -q "unknown format 'parquet'" "$tmp/err" || bad "--format parquet error: $(cat "$tmp/err")"

# /v1/sql gives the same JSON values
"$FLOE_BIN" admin --catalog "sqlite:$tmp/wh/catalog.db" bootstrap --name fmt_admin >/dev/null || bad "bootstrap"
tok="$("$FLOE_BIN" admin --catalog "sqlite:$tmp/wh/catalog.db" token fmt_admin --ttl 600)"
floe serve --port 0 --ready-file "$tmp/ready" >"$tmp/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/ready" ] && break; sleep 0.1; done
if [ -s "$tmp/ready" ]; then
    url="http://$(head -1 "$tmp/ready")"
    body="$(curl -sS -X POST "$url/v1/sql" -H 'Content-Type: application/json' -H "Authorization: Bearer $tok" \
        -d '{"sql": "SELECT big, d, m, b FROM v WHERE big IS NOT NULL"}')"
    case "$body" in
        *'9007199254740993'*'12.50'*'{"k":7}'*'true'*) ;;
        *) bad "/v1/sql values: $body" ;;
    esac
else
    bad "floe serve did not start: $(cat "$tmp/serve.log")"
fi
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null

[ "$fails" = 0 ] || { echo "$fails failures"; exit 1; }
echo "ok: floe table cat and floe sql print the same values"
