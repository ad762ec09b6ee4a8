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
# independent check (Python stdlib): the JWT is RFC 7519 HS256 under the
# store's key, and the stored verifier is PBKDF2-HMAC-SHA256 SCRAM of the secret
if command -v python3 >/dev/null; then
  out=$(python3 - "$dir/warehouse/catalog.db" "$tok" "$secret" <<'PY'
import sys, sqlite3, hmac, hashlib, base64, json
db, tok, secret = sys.argv[1:4]
c = sqlite3.connect(db)
key = bytes.fromhex(c.execute("select value from floe_auth_meta where name='signing_key'").fetchone()[0])
h, p, s = tok.split('.')
pad = lambda x: x + '=' * (-len(x) % 4)
sig = base64.urlsafe_b64decode(pad(s))
ok_sig = hmac.compare_digest(sig, hmac.new(key, (h + '.' + p).encode(), hashlib.sha256).digest())
hdr = json.loads(base64.urlsafe_b64decode(pad(h))); pl = json.loads(base64.urlsafe_b64decode(pad(p)))
ok_claims = hdr['alg'] == 'HS256' and pl['sub'] == 'etl' and pl['exp'] - pl['iat'] == 60 and len(pl['jti']) == 32
v = c.execute("select secret_hash from floe_auth_principals where name='admin'").fetchone()[0]
mech, rest = v.split('$', 1); it_salt, keys = rest.split('$'); it, salt = it_salt.split(':'); stored, server = keys.split(':')
salted = hashlib.pbkdf2_hmac('sha256', secret.encode(), base64.b64decode(salt), int(it))
ck = hmac.new(salted, b'Client Key', hashlib.sha256).digest()
ok_v = mech == 'SCRAM-SHA-256' and hashlib.sha256(ck).digest() == base64.b64decode(stored) and \
       hmac.new(salted, b'Server Key', hashlib.sha256).digest() == base64.b64decode(server)
print(ok_sig, ok_claims, ok_v)
PY
)
  check "python verifies JWT signature, claims, SCRAM verifier" "True True True" "$out"
fi
check "token for a missing principal" 1 "$(rc "$floe" admin token nobody)"
check "rotate" 0 "$(rc "$floe" admin principal rotate etl)"
check "role drop admin refused" 1 "$(rc "$floe" admin role drop admin)"
check "role drop" 0 "$(rc "$floe" admin role drop writers)"
check "grants gone with the role" "" "$("$floe" admin grants)"
check "principal drop" 0 "$(rc "$floe" admin principal drop etl)"
check "principal drop again" 1 "$(rc "$floe" admin principal drop etl)"
# per-role resource ceilings (src/auth/limits.c)
check "limits role create" 0 "$(rc "$floe" admin role create analysts)"
check "limits set" "analysts max_memory_limit=1GB statement_timeout=30s max_statement_timeout=10min max_statements=4" \
  "$("$floe" admin limits analysts --memory-limit 1GB --statement-timeout 30s --max-statement-timeout 10m --max-statements 4)"
check "limits listing" "analysts max_memory_limit=1GB statement_timeout=30s max_statement_timeout=10min max_statements=4" \
  "$("$floe" admin limits)"
check "limits replaced as a whole" "analysts max_memory_limit=2GB" "$("$floe" admin limits analysts --memory-limit 2GB)"
check "limits on admin refused" 1 "$(rc "$floe" admin limits admin --memory-limit 1GB)"
check "limits on a missing role" 1 "$(rc "$floe" admin limits nosuch --memory-limit 1GB)"
check "limits bad size" 2 "$(rc "$floe" admin limits analysts --memory-limit lots)"
check "limits default above max refused" 1 "$(rc "$floe" admin limits analysts --statement-timeout 1h --max-statement-timeout 1m)"
check "limits stored in the catalog db" "analysts 2147483648 0 0 0" "$(python3 -c 'import sqlite3,sys; print(*sqlite3.connect(sys.argv[1]).execute("select * from floe_auth_role_limits").fetchone())' "$dir/warehouse/catalog.db")"
check "limits clear" 0 "$(rc "$floe" admin limits analysts --clear)"
check "limits gone" "" "$("$floe" admin limits)"
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
