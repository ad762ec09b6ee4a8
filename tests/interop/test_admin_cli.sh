#!/bin/bash
# test_admin_cli.sh - `floe admin` end to end on a fresh SQLite store: bootstrap
# (once only), principals, roles, grants, revokes, rotation, tokens, the audit
# log, and the error exits (1 = failure, 2 = usage).
set -u
floe=${FLOE_BIN:?FLOE_BIN not set}
dir=$(mktemp -d /tmp/floe-admin-XXXXXX)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fails=0
check() { # check DESCRIPTION EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then echo "FAIL: $1: expected [$2] got [$3]"; fails=$((fails+1)); else echo "ok   $1"; fi
}
rc() { "$@" >/dev/null 2>&1; echo $?; }
export FLOE_AUDIT_LOG=$dir/audit.log
out=$("$floe" admin bootstrap 2>/dev/null)
check "bootstrap prints client id" "client_id: admin" "$(echo "$out" | sed -n 1p)"
secret=$(echo "$out" | sed -n 's/^client_secret: //p')
check "secret is 43 chars" 43 "${#secret}"
check "second bootstrap refused" 1 "$(rc "$floe" admin bootstrap)"
check "default store created" yes "$([ -f warehouse/catalog.db ] && echo yes)"
check "secret not stored in clear" 0 "$(grep -c -- "$secret" warehouse/catalog.db)"
"$floe" admin principal create etl >/dev/null 2>&1
check "create twice fails" 1 "$(rc "$floe" admin principal create etl)"
check "bad name is a failure" 1 "$(rc "$floe" admin principal create 'a b')"
check "role create" 0 "$(rc "$floe" admin role create writers)"
check "role assign" 0 "$(rc "$floe" admin role assign etl writers)"
check "role assign unknown role" 1 "$(rc "$floe" admin role assign etl nope)"
check "grant two privileges" 0 "$(rc "$floe" admin grant writers read,write namespace db)"
check "grant on a table" 0 "$(rc "$floe" admin grant writers drop table db.events)"
check "grant on the catalog" 0 "$(rc "$floe" admin grant writers create catalog)"
check "unknown privilege is usage" 2 "$(rc "$floe" admin grant writers select)"
check "table needs a namespace" 2 "$(rc "$floe" admin grant writers read table t)"
check "grant to admin refused" 1 "$(rc "$floe" admin grant admin read)"
want=$'writers create catalog\nwriters drop table db.events\nwriters read namespace db\nwriters write namespace db'
check "grants listing" "$want" "$("$floe" admin grants)"
check "revoke" 0 "$(rc "$floe" admin revoke writers drop table db.events)"
check "revoke again fails" 1 "$(rc "$floe" admin revoke writers drop table db.events)"
check "principal list" $'admin (admin)\netl' "$("$floe" admin principal list)"
tok=$("$floe" admin token etl --ttl 60)
check "token has three parts" 3 "$(echo "$tok" | awk -F. '{print NF}')"
check "token for a missing principal" 1 "$(rc "$floe" admin token nobody)"
check "rotate" 0 "$(rc "$floe" admin principal rotate etl)"
check "role drop admin refused" 1 "$(rc "$floe" admin role drop admin)"
check "role drop" 0 "$(rc "$floe" admin role drop writers)"
check "grants gone with the role" "" "$("$floe" admin grants)"
check "principal drop" 0 "$(rc "$floe" admin principal drop etl)"
check "principal drop again" 1 "$(rc "$floe" admin principal drop etl)"
check "unknown command is usage" 2 "$(rc "$floe" admin frobnicate)"
check "explicit --catalog" 0 "$(rc "$floe" admin --catalog "sqlite:$dir/other/c.db" principal create x)"
check "other store is separate" "x" "$("$floe" admin principal list --catalog "sqlite:$dir/other/c.db")"
check "bad store URI" 1 "$(rc "$floe" admin --catalog mysql://x grants)"
# every mutation (ok or not) left one JSON line naming the action
n=$(wc -l < audit.log)
check "audit lines" yes "$([ "$n" -ge 20 ] && echo yes)"
check "audit records the failed revoke" 1 "$(grep -c '"action":"admin.revoke","target":"writers drop table db.events","outcome":"rejected"' audit.log)"
check "audit never holds the secret" 0 "$(grep -c -- "$secret" audit.log)"
node -e 'const fs=require("fs");for(const l of fs.readFileSync(process.argv[1],"utf8").trim().split("\n")){const o=JSON.parse(l);for(const k of ["time","principal","action","target","outcome"])if(!(k in o))throw new Error("missing "+k+": "+l)}' audit.log 2>&1
check "audit lines are JSON" 0 $?
[ $fails = 0 ] || { echo "$fails failures"; exit 1; }
echo "all passed"
