#!/bin/bash
# test_authz_matrix.sh - issue 14's privilege matrix: starts `floe serve` with
# authentication (REST + /v1/sql + Postgres wire) on a fresh SQLite catalog and
# runs authz_matrix.py, which runs a corpus of statements as principals with
# different grants over pgwire and /v1/sql and checks each is allowed or
# refused exactly as the grants say, that both paths agree, and that what a
# principal may not touch is byte-for-byte unchanged.
# Exit 77 (skipped) when the floe binary or psycopg2 is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
floe=${FLOE_BIN:-}
if [ -z "$floe" ] || [ ! -x "$floe" ]; then echo "skipped: FLOE_BIN not built"; exit 77; fi
py=/usr/bin/python3
"$py" -c 'import psycopg2' 2>/dev/null || { echo "skipped: /usr/bin/python3 lacks psycopg2"; exit 77; }
dir=$(mktemp -d /tmp/floe-authz-XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
cat=sqlite:$dir/wh/catalog.db
mkdir -p "$dir/wh"
"$floe" admin --catalog "$cat" grants >/dev/null || { echo "FAIL: floe admin could not open $cat"; exit 1; }
"$floe" serve --port 0 --pg-port 0 --catalog "$cat" --warehouse "$dir/wh" --audit-log "$dir/audit.log" \
  --ready-file "$dir/ready" >"$dir/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do [ "$(wc -l <"$dir/ready" 2>/dev/null)" -ge 2 ] 2>/dev/null && break; sleep 0.05; done
if [ ! -s "$dir/ready" ]; then echo "FAIL: floe serve did not start:"; tail -20 "$dir/serve.log"; exit 1; fi
http=$(sed -n 1p "$dir/ready")
pg=$(sed -n 2p "$dir/ready" | awk '{print $2}')
echo "server: http $http, pg $pg"
rc=0
"$py" "$here/authz_matrix.py" "$http" "$pg" "$floe" "$cat" "$dir/wh" || rc=1
if [ $rc != 0 ]; then echo "--- server log (tail)"; tail -20 "$dir/serve.log"; fi
exit $rc
