#!/bin/bash
# test_rest_security.sh - the REST catalog's security acceptance test: starts
# `floe serve` with authentication on a fresh SQLite catalog (auth store in the
# same database) and an audit log, then runs rest-security.mjs (every endpoint
# x every privilege, 401s, OAuth2 flow, hierarchy, rotation, audit lines).
# Exit 77 (skipped) when node or the floe binary is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
floe=${FLOE_BIN:-}
if [ -z "$floe" ] || [ ! -x "$floe" ]; then echo "skipped: FLOE_BIN not built"; exit 77; fi
command -v node >/dev/null || { echo "skipped: node missing"; exit 77; }
if ! "$floe" serve --help >/dev/null 2>&1; then echo "skipped: this floe has no 'serve'"; exit 77; fi
dir=$(mktemp -d /tmp/floe-restsec-XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
cat=sqlite:$dir/catalog.db
# the store must exist (with the bootstrap admin) before clients connect;
# the test itself bootstraps, so only create the schema here
"$floe" admin --catalog "$cat" grants >/dev/null || { echo "FAIL: floe admin could not open $cat"; exit 1; }
"$floe" serve --port 0 --catalog "$cat" --warehouse "$dir/wh" --audit-log "$dir/audit.log" \
  --ready-file "$dir/ready" >"$dir/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do [ -s "$dir/ready" ] && break; sleep 0.05; done
if [ ! -s "$dir/ready" ]; then echo "FAIL: floe serve did not start:"; tail -20 "$dir/serve.log"; exit 1; fi
url=http://$(head -1 "$dir/ready")
echo "server: $url"
rc=0
node "$here/rest-security.mjs" "$url" "$floe" "$cat" "$dir/audit.log" || rc=1
if [ $rc != 0 ]; then echo "--- server log (tail)"; tail -20 "$dir/serve.log"; fi
exit $rc
