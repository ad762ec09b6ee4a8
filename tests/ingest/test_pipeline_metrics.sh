#!/usr/bin/env bash
# floe serve's /metrics shows the ingestion pipelines (issue 18, "the same figures go to
# Prometheus /metrics", src/server/pipeline_metrics.c): after two HTTP ingest commits into
# demo.ev the scrape has floe_pipeline_rows_total / _commits_total / _checkpoint /
# _last_commit_timestamp_seconds for pipeline "http" with SHOW PIPELINES' values; a table
# written without a pipeline shows nothing; a pipeline with an epoch but no commit has only
# its epoch, its odd name escaped in the label; each family has one HELP and one TYPE line.
# Authorization: a scrape without credentials gets no floe_pipeline_* line (the route is
# public), a principal sees only the tables it may read.
set -uo pipefail
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
command -v curl >/dev/null || { echo "SKIP: curl missing"; exit 77; }
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-pipe-metrics.XXXXXX")"
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null
  [ -n "${FLOE_KEEP:-}" ] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT
export FLOE_CATALOG="sqlite:$tmp/catalog.db" FLOE_WAREHOUSE="$tmp/wh"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }
q() { "$FLOE_BIN" sql --format csv --no-header -q -c "$1"; }
expect() { # what got want
  if [ "$2" = "$3" ]; then ok "$1"; else fail "$1: got '$2', want '$3'"; fi
}

"$FLOE_BIN" sql -q -c "CREATE SCHEMA demo" -c "CREATE TABLE demo.ev (id bigint, name text)" \
  -c "CREATE TABLE demo.plain (id bigint)" -c "INSERT INTO demo.plain VALUES (1), (2)" \
  -c "CREATE TABLE demo.odd (id bigint)" >/dev/null || { echo "FAIL: tables"; exit 1; }
# a pipeline that claimed an epoch and never committed, with a name that needs escaping
"$FLOE_BIN" table set-properties demo.odd 'floe.pipeline.we"ird\x.epoch=3' >/dev/null ||
  { echo "FAIL: set-properties"; exit 1; }
"$FLOE_BIN" admin bootstrap --name pm_admin >/dev/null || { echo "FAIL: bootstrap"; exit 1; }
"$FLOE_BIN" admin principal create pm_reader >/dev/null &&
  "$FLOE_BIN" admin role create pm_read >/dev/null &&
  "$FLOE_BIN" admin grant pm_read read table demo.plain >/dev/null &&
  "$FLOE_BIN" admin role assign pm_reader pm_read >/dev/null || { echo "FAIL: principals"; exit 1; }
tok=$("$FLOE_BIN" admin token pm_admin --ttl 3600)
rtok=$("$FLOE_BIN" admin token pm_reader --ttl 3600)

"$FLOE_BIN" serve --port 0 --ready-file "$tmp/ready" >"$tmp/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do [ -s "$tmp/ready" ] && break; sleep 0.05; done
[ -s "$tmp/ready" ] || { echo "FAIL: floe serve did not start"; tail -20 "$tmp/serve.log"; exit 1; }
url="http://$(head -1 "$tmp/ready")"

post() { # body file
  curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $tok" \
    -H "Content-Type: application/x-ndjson" --data-binary "@$1" "$url/v1/ingest/demo/ev"
}
printf '{"id":1,"name":"a"}\n{"id":2,"name":"b"}\n' >"$tmp/b1.ndjson"
printf '{"id":3}\n{"id":4}\n{"id":5}\n' >"$tmp/b2.ndjson"
expect "first batch committed" "$(post "$tmp/b1.ndjson")" 200
expect "second batch committed" "$(post "$tmp/b2.ndjson")" 200
t_after=$(date +%s)

scrape() { # [token]
  if [ -n "${1:-}" ]; then curl -s -H "Authorization: Bearer $1" "$url/metrics"; else curl -s "$url/metrics"; fi
}
num() { # metrics family labels -> the sample's value
  K="$2$3" awk '$1 == ENVIRON["K"] { print $2 }' <<<"$1" # ENVIRON: awk -v would unescape it
}
ev='{pipeline="http",table="demo.ev"}'

# no credentials: the other families, no pipeline
m=$(scrape)
grep -q '^floe_commits_total ' <<<"$m" && ok "anonymous scrape still has the server counters" ||
  fail "anonymous scrape: $(head -5 <<<"$m")"
grep -q 'floe_pipeline_' <<<"$m" && fail "anonymous scrape shows pipelines: $(grep floe_pipeline_ <<<"$m")" ||
  ok "anonymous scrape shows no pipeline"
m=$(scrape nope)
grep -q 'floe_pipeline_' <<<"$m" && fail "a bad token sees pipelines" || ok "bad token: no pipeline"

# the admin: demo.ev's pipeline with SHOW PIPELINES' figures
m=$(scrape "$tok")
expect "rows_total" "$(num "$m" floe_pipeline_rows_total "$ev")" 5
expect "commits_total" "$(num "$m" floe_pipeline_commits_total "$ev")" 2
expect "checkpoint" "$(num "$m" floe_pipeline_checkpoint "$ev")" 2
expect "rows_last_hour" "$(num "$m" floe_pipeline_rows_last_hour "$ev")" 5
show=$(q "SHOW PIPELINES FROM demo" 2>&1 | awk -F, '$1 == "ev" { print $7 "," $8 "," $4 "," $3 }')
expect "the same figures as SHOW PIPELINES" "$show" \
  "$(num "$m" floe_pipeline_commits_total "$ev"),$(num "$m" floe_pipeline_rows_total "$ev"),$(num "$m" floe_pipeline_checkpoint "$ev"),$(num "$m" floe_pipeline_epoch "$ev")"
ts=$(num "$m" floe_pipeline_last_commit_timestamp_seconds "$ev")
[[ "$ts" =~ ^[0-9]+\.[0-9]{3}$ ]] && ((${ts%.*} <= t_after && ${ts%.*} >= t_after - 120)) &&
  ok "last commit timestamp $ts" || fail "last commit timestamp '$ts' (now $t_after)"
grep -q 'table="demo.plain"' <<<"$m" && fail "a table without a pipeline shows: $(grep demo.plain <<<"$m")" ||
  ok "a table without pipeline commits shows nothing"
odd='{pipeline="we\"ird\\x",table="demo.odd"}'
expect "epoch of a pipeline that never committed (escaped label)" "$(num "$m" floe_pipeline_epoch "$odd")" 3
grep -F 'table="demo.odd"' <<<"$m" | grep -qv '^floe_pipeline_\(epoch\|rows_total\|commits_total\|rows_last_hour\|positions\){' &&
  fail "a pipeline without commits has checkpoint samples: $(grep -F demo.odd <<<"$m")" || ok "no commit, no checkpoint sample"
dup=$(grep -E '^# (HELP|TYPE) ' <<<"$m" | awk '{ print $2, $3 }' | sort | uniq -d)
expect "one HELP and one TYPE line per family" "$dup" ""
expect "rows_total is a counter" "$(grep -c '^# TYPE floe_pipeline_rows_total counter$' <<<"$m")" 1

# a principal that may read only demo.plain sees no pipeline of demo.ev
m=$(scrape "$rtok")
grep -q 'table="demo.ev"' <<<"$m" && fail "reader sees demo.ev: $(grep demo.ev <<<"$m")" ||
  ok "a principal sees only the tables it may read"

kill -TERM "$pid" 2>/dev/null
wait "$pid"
expect "SIGTERM exits 0" "$?" 0
pid=""
grep -q "Sanitizer\|runtime error" "$tmp/serve.log" && fail "sanitizer report in the server log"
if ((fails)); then
  tail -20 "$tmp/serve.log"
  echo "$fails failure(s)"
  exit 1
fi
echo "all passed"
