#!/bin/bash
# test_rest_security_postgres.sh - rest-security.mjs (every endpoint x every
# privilege, 401s, OAuth2, hierarchy, rotation, audit) against `floe serve`
# whose catalog and auth store are a throwaway PostgreSQL (oracle/pg-tmp-server.sh),
# with `floe admin` changing grants in that database while the server runs.
# Exit 77 (skipped) without node, floe serve or the PostgreSQL server binaries.
set -u
here=$(cd "$(dirname "$0")" && pwd)
floe=${FLOE_BIN:-}
if [ -z "$floe" ] || [ ! -x "$floe" ]; then echo "skipped: FLOE_BIN not built"; exit 77; fi
command -v node >/dev/null || { echo "skipped: node missing"; exit 77; }
if ! "$floe" serve --help >/dev/null 2>&1; then echo "skipped: this floe has no 'serve'"; exit 77; fi
if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
  echo "skipped: PostgreSQL server binaries missing (apt-get install postgresql)"; exit 77
fi
if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
  echo "skipped: no 'postgres' OS user to run the server as"; exit 77
fi
dir=$(mktemp -d /tmp/floe-restsec-pg-XXXXXX)
chmod 755 "$dir"
data=$dir/data
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  sh "$here/oracle/pg-tmp-server.sh" stop "$data" >/dev/null 2>&1
  rm -rf "$dir" "$data.initdb.log"
}
trap cleanup EXIT
url=
for attempt in 1 2 3 4 5; do
  port=$((56000 + RANDOM % 4000))
  url=$(sh "$here/oracle/pg-tmp-server.sh" start "$data" "$port" 2>/dev/null) && break
  url=
done
if [ -z "$url" ]; then echo "FAIL: could not start PostgreSQL"; tail -20 "$data/server.log" 2>/dev/null; exit 1; fi
echo "postgres: $url"
"$floe" admin --catalog "$url" grants >/dev/null || { echo "FAIL: floe admin could not open $url"; exit 1; }
"$floe" serve --port 0 --catalog "$url" --warehouse "$dir/wh" --audit-log "$dir/audit.log" \
  --ready-file "$dir/ready" >"$dir/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do [ -s "$dir/ready" ] && break; sleep 0.05; done
if [ ! -s "$dir/ready" ]; then echo "FAIL: floe serve did not start:"; tail -20 "$dir/serve.log"; exit 1; fi
base=http://$(head -1 "$dir/ready")
echo "server: $base"
rc=0
node "$here/rest-security.mjs" "$base" "$floe" "$url" "$dir/audit.log" || rc=1
if [ $rc != 0 ]; then echo "--- server log (tail)"; tail -20 "$dir/serve.log"; fi
exit $rc
