#!/bin/bash
# test_sqlstate.sh - every SQLSTATE of the table (include/floe/errcodes.h)
# reaches both wires as the code the error was raised with: for each code,
# raise_error(code, message) over pgwire (psycopg2's e.pgcode) and over POST
# /v1/sql (the JSON error's "sqlstate" and the HTTP status that
# src/base/errcodes.c maps it to); then a corpus of natural statements that
# raise the common codes (1/0, bad casts, unknown column / table, syntax
# errors, deep nesting, permission denied, ...) checked on both paths.
# See sqlstate_check.py.
set -u
floe=${FLOE_BIN:?FLOE_BIN not set}
here=$(cd "$(dirname "$0")" && pwd)
src=${FLOE_SRC:-$here/../..}
py=/usr/bin/python3
"$py" -c 'import psycopg2' 2>/dev/null || { echo "skip: $py has no psycopg2"; exit 77; }
dir=$(mktemp -d /tmp/floe-sqlstate-XXXXXX)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
cat="--catalog sqlite:$dir/wh/catalog.db"
secret=$("$floe" admin principal create alice --admin $cat 2>/dev/null | sed -n 's/^client_secret: //p')
bob=$("$floe" admin principal create bob $cat 2>/dev/null | sed -n 's/^client_secret: //p')
alice_tok=$("$floe" admin $cat token alice --ttl 3600)
bob_tok=$("$floe" admin $cat token bob --ttl 3600)
[ -n "$secret" ] && [ -n "$bob" ] && [ -n "$alice_tok" ] && [ -n "$bob_tok" ] ||
  { echo "FAIL: principals and tokens"; exit 1; }
"$floe" serve --port 0 --pg-port 0 $cat --warehouse "$dir/wh" --ready-file "$dir/ready" 2>"$dir/log" &
pid=$!
for _ in $(seq 100); do grep -qs '^pg' "$dir/ready" && break; sleep 0.1; done
pg=$(sed -n 's/^pg //p' "$dir/ready")
http=$(grep -v '^pg' "$dir/ready" | head -1)
[ -n "$pg" ] && [ -n "$http" ] || { echo "FAIL: server did not start"; cat "$dir/log"; exit 1; }
"$py" "$here/sqlstate_check.py" --src "$src" --pg "$pg" --http "$http" --secret="$secret" \
  --bob-secret="$bob" --token="$alice_tok" --bob-token="$bob_tok" \
  ${SQLSTATE_CORPUS_ONLY:+--corpus-only} # set for a build without raise_error
rc=$?
kill $pid 2>/dev/null
wait $pid 2>/dev/null
pid=
exit $rc
