#!/usr/bin/env bash
# test_azure.sh - the Azure Blob FileIO against Azurite (npm "azurite",
# pinned in package.json), which verifies every Shared Key signature and SAS
# token itself.
#
# 1. starts azurite-blob on a free port (--inMemoryPersistence, --loose,
#    --skipApiVersionCheck) and the local OAuth2 token server
#    (azure-token-server.py);
# 2. makes a valid and an expired account SAS (signed here in Python from the
#    Azure "Create an account SAS" string-to-sign, not by floe);
# 3. runs io_test_azure_live (tests/io/test_azure_live.c): the FileIO
#    contract, the create race, a 100 MB block upload, list paging, wrong key
#    and bad / expired SAS errors, properties, OAuth2 tokens;
# 4. the table suite with the warehouse on abfss://: floe load, append,
#    DELETE, overwrite, compaction, snapshot expiry, orphan removal, drop with
#    purge, concurrent commits through the SQLite catalog, answers read back
#    with floe sql and floe table.
# Exit 77 (skip) when node_modules/azurite or the test binary is missing.
# Servers are killed on exit.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
FLOE_BUILD=${FLOE_BUILD:-$here/../../build}
FLOE_BIN=${FLOE_BIN:-$FLOE_BUILD/floe}
live=$FLOE_BUILD/io_test_azure_live
[ -x "$here/node_modules/.bin/azurite-blob" ] || { echo "SKIP: tests/interop/node_modules (azurite) not installed"; exit 77; }
[ -x "$live" ] || { echo "SKIP: $live not built"; exit 77; }
command -v node >/dev/null || { echo "SKIP: node not found"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/floe-azure.XXXXXX")
az_pid=
tok_pid=
cleanup() {
  [ -n "$tok_pid" ] && kill "$tok_pid" 2>/dev/null
  [ -n "$az_pid" ] && kill "$az_pid" 2>/dev/null && wait "$az_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# Azurite takes no port 0: pick a free one, retry on a collision.
for _ in 1 2 3 4 5; do
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "$here/node_modules/.bin/azurite-blob" --blobHost 127.0.0.1 --blobPort "$port" --inMemoryPersistence \
    --loose --skipApiVersionCheck --disableProductStyleUrl \
    > "$work/azurite.log" 2>&1 &
  az_pid=$!
  for _ in $(seq 100); do
    grep -q "successfully listens" "$work/azurite.log" 2>/dev/null && break
    kill -0 "$az_pid" 2>/dev/null || break
    sleep 0.1
  done
  grep -q "successfully listens" "$work/azurite.log" && break
  kill "$az_pid" 2>/dev/null; wait "$az_pid" 2>/dev/null; az_pid=
done
[ -n "$az_pid" ] || { echo "FAIL: Azurite did not start"; cat "$work/azurite.log"; exit 1; }
endpoint=http://127.0.0.1:$port/devstoreaccount1
echo "Azurite at $endpoint"

python3 "$here/azure-token-server.py" "$work/token.port" 2> "$work/token.log" &
tok_pid=$!
for _ in $(seq 100); do [ -s "$work/token.port" ] && break; sleep 0.1; done
[ -s "$work/token.port" ] || { echo "FAIL: token server did not start"; cat "$work/token.log"; exit 1; }
token_url=http://127.0.0.1:$(cat "$work/token.port")/tenant-1/oauth2/v2.0/token

# Azurite's well-known development account (documented, public)
key='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
sas() { # sas EXPIRY-OFFSET-SECONDS: an account SAS for the blob service
  python3 - "$key" "$1" <<'EOF'
import base64, hashlib, hmac, sys, time, urllib.parse
key, offset = sys.argv[1], int(sys.argv[2])
fmt = "%Y-%m-%dT%H:%M:%SZ"
st = time.strftime(fmt, time.gmtime(time.time() - 3600 + min(offset, 0)))
se = time.strftime(fmt, time.gmtime(time.time() + offset))
f = {"sv": "2021-12-02", "ss": "b", "srt": "sco", "sp": "rwdlacup", "st": st, "se": se, "spr": "https,http"}
sts = "\n".join(["devstoreaccount1", f["sp"], f["ss"], f["srt"], f["st"], f["se"], "", f["spr"], f["sv"], ""]) + "\n"
f["sig"] = base64.b64encode(hmac.new(base64.b64decode(key), sts.encode(), hashlib.sha256).digest()).decode()
print(urllib.parse.urlencode(f))
EOF
}

export FLOE_TEST_AZURE_ENDPOINT=$endpoint FLOE_TEST_AZURE_CONTAINER=floe-test
export FLOE_TEST_AZURE_SAS=$(sas 3600) FLOE_TEST_AZURE_SAS_EXPIRED=$(sas -600)
export FLOE_TEST_AZURE_TOKEN_URL=$token_url
export AZURE_STORAGE_ACCOUNT=devstoreaccount1 AZURE_STORAGE_KEY=$key
unset AZURE_STORAGE_SAS_TOKEN AZURE_STORAGE_CONNECTION_STRING AZURE_CLIENT_ID AZURE_TENANT_ID AZURE_CLIENT_SECRET
fails=0
check() { # check NAME EXPECTED ACTUAL
  if [ "$2" == "$3" ]; then echo "ok   $1"; else echo "FAIL $1"; echo "  want: $2"; echo "  got:  $3"; fails=$((fails + 1)); fi
}

# --- the FileIO contract ---
"$live"
check "io_test_azure_live exit status" 0 "$?"

# --- tables with the warehouse on Azure (the same as test_s3.sh's CLI part) ---
export FLOE_AZURE_ENDPOINT=$endpoint
"$live" create-container warehouse
check "create container warehouse" 0 "$?"
wh=abfss://warehouse@devstoreaccount1.dfs.core.windows.net
sq=(--catalog "sqlite:$work/catalog.db" --warehouse "$wh/sq")
printf 'id,name\n1,a\n2,b\n3,c\n' > "$work/t1.csv"
printf 'id,name\n4,d\n5,e plus+and=%%\n' > "$work/t2.csv"
"$FLOE_BIN" load "$work/t1.csv" db.t "${sq[@]}" --quiet; r1=$?
"$FLOE_BIN" load "$work/t2.csv" db.t "${sq[@]}" --quiet; r2=$?
check "floe load, then append, into an abfss:// warehouse" "0 0" "$r1 $r2"
check "floe table cat after two loads" "1,a 2,b 3,c 4,d 5,e plus+and=%" \
  "$("$FLOE_BIN" table cat db.t "${sq[@]}" --format=csv | tail -n +2 | sort | tr '\n' ' ' | sed 's/ $//')"
sql() { (cd "$work" && "$FLOE_BIN" sql "${sq[@]}" --format csv -c "$1" 2>&1 | tail -n +2 | tr '\n' ' ' | sed 's/ $//'); }
check "floe sql over the Azure table" "5,15" "$(sql 'SELECT count(*), sum(id) FROM db.t')"
"$FLOE_BIN" sql "${sq[@]}" -c "DELETE FROM db.t WHERE id = 2" > "$work/del.out" 2>&1
check "DELETE through floe sql" "0" "$?"
check "after DELETE" "4,13" "$(sql 'SELECT count(*), sum(id) FROM db.t')"
"$FLOE_BIN" table compact db.t --force "${sq[@]}" > "$work/compact.out" 2>&1
check "floe table compact" "0" "$?"
check "after compaction" "4,13" "$(sql 'SELECT count(*), sum(id) FROM db.t')"
"$FLOE_BIN" table expire db.t --retain-last 1 --older-than 2999-01-01T00:00:00Z "${sq[@]}" > "$work/expire.out" 2>&1
check "floe table expire" "0" "$?"
check "one snapshot left after expiry" "1" \
  "$("$FLOE_BIN" table snapshots db.t "${sq[@]}" --format=csv 2>&1 | tail -n +2 | wc -l | tr -d ' ')"
check "after expiry" "4,13" "$(sql 'SELECT count(*), sum(id) FROM db.t')"
# an orphan: a file under the table's data folder that no snapshot names
loc=$("$FLOE_BIN" table describe db.t "${sq[@]}" 2>/dev/null | sed -n 's/^location[: ]*//p' | head -1)
orphan_ok=no
if [ -n "$loc" ]; then
  (cd "$work" && "$FLOE_BIN" sql --no-catalog -c "COPY (SELECT 1 AS x) TO '$loc/data/orphan.parquet'" >/dev/null 2>&1) || true
  "$FLOE_BIN" table remove-orphans db.t --older-than 2999-01-01T00:00:00Z "${sq[@]}" > "$work/orphans.out" 2>&1 && orphan_ok=yes
fi
check "floe table remove-orphans" "yes" "$orphan_ok"
check "after orphan removal" "4,13" "$(sql 'SELECT count(*), sum(id) FROM db.t')"
"$FLOE_BIN" load "$work/t2.csv" db.t "${sq[@]}" --mode overwrite --quiet
check "floe load --mode overwrite" "2,9" "$(sql 'SELECT count(*), sum(id) FROM db.t')"

# concurrent commits: 4 loaders append to one table at once; every commit lands
"$FLOE_BIN" load "$work/t1.csv" db.c "${sq[@]}" --quiet
pids=()
for i in 1 2 3 4; do
  printf 'id,name\n%d,w%d\n' "$((100 + i))" "$i" > "$work/c$i.csv"
  "$FLOE_BIN" load "$work/c$i.csv" db.c "${sq[@]}" --quiet > "$work/c$i.out" 2>&1 &
  pids+=($!)
done
ok=0
for p in "${pids[@]}"; do wait "$p" && ok=$((ok + 1)); done
check "4 concurrent loads through the SQLite catalog all commit" "4" "$ok"
check "all concurrent rows present" "7,416" "$(sql 'SELECT count(*), sum(id) FROM db.c')"

# drop --purge removes the table's blobs
count_blobs() { "$live" count "$1" 2>/dev/null; }
n_before=$(FLOE_LIST_PREFIX="$wh/sq/db/t" count_blobs "$wh/sq/db/t")
"$FLOE_BIN" table drop db.t --purge "${sq[@]}" > "$work/drop.out" 2>&1
check "floe table drop --purge" "0" "$?"
check "the table's blobs existed before the drop" "yes" "$([ "${n_before:-0}" -gt 3 ] && echo yes)"
check "no blobs left after the drop" "0" "$(count_blobs "$wh/sq/db/t")"

# a wrong key through the CLI names the store and the reason
out=$(AZURE_STORAGE_KEY=d3Jvbmcta2V5LXdyb25nLWtleS13cm9uZy1rZXk= "$FLOE_BIN" table count db.c "${sq[@]}" 2>&1)
check "wrong key: HTTP 403 Authori named" "yes" \
  "$(grep -q 'abfss://warehouse@devstoreaccount1.*HTTP 403 Authori' <<< "$out" && echo yes)"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; tail -20 "$work/azurite.log"; exit 1; }
echo "all Azure checks passed"
