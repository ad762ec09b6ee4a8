#!/bin/bash
# test_pgwire_node.sh - floe serve's PostgreSQL listener driven by node `pg`
# (extended protocol): see pgwire-node.mjs. Principals: admin1 (admin) and
# reader1 (role readers: read on namespace nodes).
set -u
floe=${FLOE_BIN:?FLOE_BIN not set}
here=$(cd "$(dirname "$0")" && pwd)
[ -d "$here/node_modules/pg" ] || { echo "skip: tests/interop/node_modules/pg missing (npm ci)"; exit 77; }
dir=$(mktemp -d /tmp/floe-pgnode-XXXXXX)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
cat="--catalog sqlite:$dir/wh/catalog.db"
as=$("$floe" admin principal create admin1 --admin $cat 2>/dev/null | sed -n 's/^client_secret: //p')
rs=$("$floe" admin principal create reader1 $cat 2>/dev/null | sed -n 's/^client_secret: //p')
"$floe" admin role create readers $cat >/dev/null && "$floe" admin role assign reader1 readers $cat >/dev/null &&
  "$floe" admin grant readers read namespace nodes $cat >/dev/null || { echo "FAIL: admin setup"; exit 1; }
"$floe" serve --port 0 --pg-port 0 $cat --warehouse "$dir/wh" --ready-file "$dir/ready" 2>"$dir/log" &
pid=$!
for _ in $(seq 100); do grep -qs '^pg' "$dir/ready" && break; sleep 0.1; done
port=$(sed -n 's/^pg .*://p' "$dir/ready")
[ -n "$port" ] || { echo "FAIL: server did not start"; cat "$dir/log"; exit 1; }
cd "$here" && timeout 120 node pgwire-node.mjs "$port" "$as" "$rs"
