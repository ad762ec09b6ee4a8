#!/usr/bin/env bash
# MCP's propose_metric end to end (docs/mcp.md, "Proposing a metric"): on the world of mcp-metrics-world.sh (the
# semantic tests' data, a copy of tests/semantic/models, `floe serve --models`), a draft proposed over stdio (`floe
# mcp --models`, raw JSON-RPC) and over Streamable HTTP (curl, bearer tokens: an analyst files one, a principal
# without grants files nothing, no token is 401) is filed in $models/.pending; an owner lists, shows, approves (the
# metric joins the folder, `floe semantic query` answers it with the number the proposal reported) and rejects.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
floe=$FLOE_BIN
. "$here/mcp-metrics-world.sh"
npending() { find "$models/.pending" -name '*.yaml' 2>/dev/null | wc -l; }
draft='{"name":"completed_gross","description":"Gross of completed orders.","type":"simple","measure":"gross_amount","filter":"{{ Dimension('"'order__status'"') }} = '"'completed'"'"}'
call() { printf '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"propose_metric","arguments":%s}}' "$1"; }
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'

# stdio
out=$(printf '%s\n%s\n' "$init" "$(call "$draft")" | "$floe" mcp --catalog="$cat" --warehouse="$wh" --models="$models" | tail -1)
jq -e '.result.isError == false and .result.structuredContent.status == "pending"' <<<"$out" >/dev/null ||
  fail "stdio propose_metric: $out"
stdio_value=$(jq -r '.result.structuredContent.comparison.draft.value' <<<"$out")
want=$("$floe" sql --catalog="$cat" --warehouse="$wh" --format=csv --no-header -c \
  "SELECT sum(gross_amount) FROM orders WHERE status = 'completed'")
[ "$stdio_value" = "$want" ] || fail "stdio: the draft's value $stdio_value is not SQL's $want"
[ "$(npending)" = 1 ] || fail "stdio: $(npending) files in .pending"
[ $rc = 0 ] && echo "ok   stdio: propose_metric files a proposal whose value equals SQL"

# HTTP
post() { # token body -> response body; headers in $tmp/h
  curl -sS -D "$tmp/h" -H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' ${3:+-H "Mcp-Session-Id: $3"} --data "$2" "$http/mcp"
}
session() { post "$1" "$init" >/dev/null; tr -d '\r' <"$tmp/h" | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p'; }
sa=$(session "$(tok analyst)")
out=$(post "$(tok analyst)" "$(call "${draft/completed_gross/completed_gross_http}")" "$sa")
jq -e '.result.isError == false and .result.structuredContent.proposed_by == "analyst"' <<<"$out" >/dev/null ||
  fail "http analyst propose_metric: $out"
sn=$(session "$(tok nobody)")
out=$(post "$(tok nobody)" "$(call "${draft/completed_gross/nobodys}")" "$sn")
jq -e '.result.isError == true and (.result.content[0].text | test("42501"))' <<<"$out" >/dev/null ||
  fail "http nobody propose_metric was not refused: $out"
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' --data "$(call "$draft")" "$http/mcp")
[ "$code" = 401 ] || fail "http without a token: $code"
[ "$(npending)" = 2 ] || fail "http: $(npending) files in .pending (want 2)"
[ $rc = 0 ] && echo "ok   http: an analyst files a proposal, a principal without grants nothing, no token 401"

# the owner's side
list=$("$floe" semantic pending list --models "$models")
grep -q 'completed_gross_http .*analyst' <<<"$list" || fail "pending list: $list"
id=$(awk '$2 == "completed_gross" {print $1}' <<<"$list")
id_http=$(awk '$2 == "completed_gross_http" {print $1}' <<<"$list")
[ -n "$id" ] && [ -n "$id_http" ] || fail "pending list lacks the ids: $list"
"$floe" semantic pending show "$id" --models "$models" | grep -q 'proposed_by' || fail "pending show $id"
if "$floe" semantic pending show ../../etc/passwd --models "$models" >/dev/null 2>&1; then fail "show took a path"; fi
"$floe" semantic pending approve "$id" --models "$models" | grep -q 'approved: metric completed_gross' ||
  fail "pending approve $id"
[ -f "$models/completed_gross.yml" ] || fail "approve wrote no $models/completed_gross.yml"
got=$("$floe" semantic query --models "$models" --catalog "$cat" --warehouse "$wh" --metrics completed_gross --format csv | tail -1)
[ "$got" = "$want" ] || fail "floe semantic query of the approved metric: $got, want $want"
"$floe" semantic pending reject "$id_http" --models "$models" | grep -q rejected || fail "pending reject"
[ "$(npending)" = 0 ] || fail "$(npending) files left in .pending"
[ $rc = 0 ] && echo "ok   floe semantic pending: list, show, approve (the metric answers the proposal's number), reject"
exit $rc
