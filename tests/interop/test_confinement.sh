#!/bin/bash
# test_confinement.sh - storage confinement acceptance test (issue 14, docs/security.md
# "Storage confinement"). Every escape is tried through SQL (`floe sql` on the warehouse and
# POST /v1/sql), REST (curl) and the CLI against `floe serve` with auth on, as a principal
# holding create, write, read and drop on namespace sandbox only; each must be refused:
#   - table locations outside the warehouse, at its root, over catalog.db, over another table;
#   - write.data.path / write.metadata.path outside the table; set-location onto another table;
#   - register of another table's metadata file;
#   - commits whose manifest list, manifest or data file lies outside the table (crafted with
#     floe's own avro tools, confine-craft.mjs);
#   - identifiers that mapped to one folder (["a","b"] vs ["a/b"], table a.b vs namespace a.b).
# Then a warehouse seeded with foreign files (outside the warehouse, at its root, in another
# table's folder, next to catalog.db, files no writer made) and a table whose metadata was
# swapped behind floe's back to a crafted manifest naming them gets orphan removal, expiry
# and purge: sha256sums of every foreign file are the same before and after.
# Exit 77 (skipped) without the floe binary, node, curl or sha256sum.
set -u
here=$(cd "$(dirname "$0")" && pwd)
floe=${FLOE_BIN:-}
if [ -z "$floe" ] || [ ! -x "$floe" ]; then echo "skipped: FLOE_BIN not built"; exit 77; fi
for c in node curl sha256sum python3; do
  command -v $c >/dev/null || { echo "skipped: $c missing"; exit 77; }
done
export FLOE_BIN=$floe
dir=$(mktemp -d /tmp/floe-confine-XXXXXX)
wh=$dir/wh
cat=sqlite:$wh/catalog.db
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
fails=0
ok() { echo "ok   $1"; }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }
# expect_refused NAME OUTPUT PATTERN: OUTPUT is an error that contains PATTERN
expect_refused() {
  if echo "$2" | grep -q -- "$3"; then ok "$1"; else fail "$1: wanted /$3/, got: $(echo "$2" | head -c 400)"; fi
}
sql() { "$floe" sql --catalog "$cat" --warehouse "$wh" "$@" 2>&1; }

# ---- setup: catalog, principals, the server ----
mkdir -p "$wh" "$dir/somedir"
echo "precious" > "$dir/somedir/precious.txt"
"$floe" admin --catalog "$cat" bootstrap --name root >/dev/null || { echo "FAIL: bootstrap"; exit 1; }
"$floe" admin --catalog "$cat" principal create tenant >/dev/null
"$floe" admin --catalog "$cat" role create tenants >/dev/null
"$floe" admin --catalog "$cat" role assign tenant tenants >/dev/null
"$floe" admin --catalog "$cat" grant tenants create,write,read,drop namespace sandbox >/dev/null
tok=$("$floe" admin --catalog "$cat" token tenant 2>/dev/null | tail -1)
[ -n "$tok" ] || { echo "FAIL: no token for tenant"; exit 1; }
mode=$(stat -c %a "$wh/catalog.db")
[ "$mode" = 600 ] && ok "catalog.db is created 0600" || fail "catalog.db mode $mode"
for f in "$wh"/catalog.db-wal "$wh"/catalog.db-shm; do
  [ -e "$f" ] || continue
  m=$(stat -c %a "$f"); [ "$m" = 600 ] && ok "$(basename "$f") is 0600" || fail "$(basename "$f") mode $m"
done
out=$(sql -c "CREATE SCHEMA sandbox" -c "CREATE SCHEMA other" \
  -c "CREATE TABLE sandbox.a (id int)" -c "INSERT INTO sandbox.a VALUES (1), (2)" \
  -c "CREATE TABLE other.secret (id int)" -c "INSERT INTO other.secret VALUES (42)")
echo "$out" | grep -q "INSERT 0 1" || { echo "FAIL: setup: $out"; exit 1; }
"$floe" serve --port 0 --catalog "$cat" --warehouse "$wh" --audit-log "$dir/audit.log" \
  --ready-file "$dir/ready" >"$dir/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do [ -s "$dir/ready" ] && break; sleep 0.05; done
[ -s "$dir/ready" ] || { echo "FAIL: floe serve did not start"; tail -20 "$dir/serve.log"; exit 1; }
url=http://$(head -1 "$dir/ready")
H=(-H "Authorization: Bearer $tok" -H "Content-Type: application/json")
# rest METHOD PATH [BODY]: prints "<status> <body>"
rest() {
  local b; b=$(curl -s -o "$dir/resp" -w '%{http_code}' -X "$1" "${H[@]}" "$url$2" ${3:+--data "$3"})
  echo "$b $(cat "$dir/resp")"
}
httpsql() {
  curl -s -X POST -H "Authorization: Bearer $tok" -H 'Content-Type: text/plain' \
    -H 'Accept: application/x-ndjson' "$url/v1/sql" --data-binary "$1"
}
SCHEMA='"schema":{"type":"struct","fields":[{"id":1,"name":"id","type":"long","required":false}]}'

# ---- SQL on the warehouse (floe sql) ----
out=$(sql -c "CREATE TABLE sandbox.wipe (id int) WITH (location = '$dir/somedir')")
expect_refused "sql: location outside the warehouse" "$out" "outside the warehouse"
out=$(sql -c "CREATE TABLE sandbox.wipe (id int) WITH (location = '$wh')")
expect_refused "sql: location = warehouse root" "$out" "warehouse root"
out=$(sql -c "CREATE TABLE sandbox.wipe (id int) WITH (location = '$wh/catalog.db')")
expect_refused "sql: location over catalog.db" "$out" "catalog.db"
out=$(sql -c "CREATE TABLE sandbox.wipe (id int) WITH (location = '$wh/sandbox/a/data/x')")
expect_refused "sql: location inside another table" "$out" "overlaps"
out=$(sql -c "CREATE TABLE sandbox.wipe AS SELECT 1 AS id WITH (location = '$wh/other')")
out2=$(sql -c "CREATE TABLE sandbox.wipe WITH (location = '$wh/other') AS SELECT 1 AS id")
expect_refused "sql: CTAS location containing another table" "$out$out2" "overlaps"
out=$(sql -c "CREATE TABLE sandbox.wipe (id int) WITH (\"write.data.path\" = '$dir/somedir')")
expect_refused "sql: write.data.path outside the table" "$out" "write.data.path"
out=$(sql -c "ALTER TABLE sandbox.a SET (\"write.metadata.path\" = '$wh/other/secret/metadata')")
expect_refused "sql: ALTER ... SET write.metadata.path outside" "$out" "write.metadata.path"
out=$(sql -c "CREATE TABLE sandbox.\"p/q\" (id int)" -c "SELECT 1")
loc=$(grep -h -o '"location":"[^"]*"' "$wh"/sandbox/p%2Fq/metadata/*.metadata.json 2>/dev/null | head -1)
[ "$loc" = "\"location\":\"$wh/sandbox/p%2Fq\"" ] && ok "sql: a '/' in a table name is escaped ($loc)" ||
  fail "sql: table p/q location: '$loc' ($out)"
[ ! -e "$wh/sandbox/p" ] && ok "sql: no folder 'p' made for table p/q" || fail "sql: folder p exists"

# ---- SQL over HTTP as the tenant ----
out=$(httpsql "CREATE TABLE sandbox.wipe (id int) WITH (location = '$dir/somedir')")
expect_refused "/v1/sql: location outside the warehouse" "$out" "outside the warehouse"
out=$(httpsql "CREATE TABLE sandbox.wipe (id int) WITH (location = '$wh')")
expect_refused "/v1/sql: location = warehouse root" "$out" "warehouse root"
out=$(httpsql "CREATE TABLE sandbox.wipe (id int) WITH (location = '$wh/other/secret')")
expect_refused "/v1/sql: location = another namespace's table" "$out" "overlaps"
out=$(httpsql "CREATE TABLE sandbox.wipe (id int) WITH (\"write.data.path\" = '$wh/other/secret/data')")
expect_refused "/v1/sql: write.data.path into another table" "$out" "write.data.path"
out=$(httpsql "ALTER TABLE sandbox.wipe EXECUTE remove_orphan_files(retention_threshold => '0s')")
echo "$out" | grep -q '"error"' && ok "/v1/sql: no table sandbox.wipe was made" || fail "/v1/sql: wipe exists: $out"
[ -f "$dir/somedir/precious.txt" ] && ok "/some/dir is untouched" || fail "/some/dir emptied"

# ---- REST as the tenant ----
out=$(rest POST /v1/namespaces/sandbox/tables "{\"name\":\"r1\",\"location\":\"$wh\",$SCHEMA}")
expect_refused "rest: create at the warehouse root -> 403" "$out" "^403.*warehouse root"
out=$(rest POST /v1/namespaces/sandbox/tables "{\"name\":\"r1\",\"location\":\"$dir/somedir\",$SCHEMA}")
expect_refused "rest: create outside the warehouse -> 403" "$out" "^403"
out=$(rest POST /v1/namespaces/sandbox/tables "{\"name\":\"r1\",\"location\":\"$wh/other/secret/x\",$SCHEMA}")
expect_refused "rest: create inside another table -> 403" "$out" "^403.*overlaps"
out=$(rest POST /v1/namespaces/sandbox/tables "{\"name\":\"r1\",\"location\":\"$wh/catalog.db\",$SCHEMA}")
expect_refused "rest: create over catalog.db -> 403" "$out" "^403"
out=$(rest POST /v1/namespaces/sandbox/tables "{\"name\":\"r1\",\"properties\":{\"write.object-storage.path\":\"$wh/other\"},$SCHEMA}")
expect_refused "rest: write.object-storage.path outside -> 403" "$out" "^403.*write.object-storage.path"
out=$(rest POST /v1/namespaces/sandbox/tables "{\"name\":\"r1\",$SCHEMA}")
expect_refused "rest: a plain create works" "$out" "^200"
out=$(rest POST /v1/namespaces/sandbox/tables/r1 "{\"requirements\":[],\"updates\":[{\"action\":\"set-location\",\"location\":\"$wh/other/secret\"}]}")
expect_refused "rest: set-location onto another table -> 403" "$out" "^403.*overlaps"
out=$(rest POST /v1/namespaces/sandbox/tables/r1 "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"write.data.path\":\"$dir/somedir\"}}]}")
expect_refused "rest: set write.data.path outside -> 403" "$out" "^403.*write.data.path"
secret_meta=$(ls "$wh"/other/secret/metadata/*.metadata.json | sort | tail -1)
out=$(rest POST /v1/namespaces/sandbox/register "{\"name\":\"stolen\",\"metadata-location\":\"$secret_meta\"}")
expect_refused "rest: register another namespace's metadata -> 403" "$out" "^403"
cp "$secret_meta" "$wh/sandbox/copied.metadata.json"
out=$(rest POST /v1/namespaces/sandbox/register "{\"name\":\"stolen\",\"metadata-location\":\"$wh/sandbox/copied.metadata.json\"}")
expect_refused "rest: register a copy (file outside its location) -> 403" "$out" "^403"
out=$(rest GET /v1/namespaces/sandbox/tables/stolen)
expect_refused "rest: nothing was registered" "$out" "^404"
# names: ["sandbox","b"].zz vs ["sandbox/b"].zz (namespace levels), table sandbox.n vs namespace sandbox.n
for ns in '["sandbox","b"]' '["sandbox","n"]'; do rest POST /v1/namespaces "{\"namespace\":$ns}" >/dev/null; done
l1=$(rest POST /v1/namespaces/sandbox%1Fb/tables "{\"name\":\"zz\",$SCHEMA}" | grep -o '"location":"[^"]*"' | head -1)
l2=$(rest POST /v1/namespaces/sandbox/tables "{\"name\":\"b/zz\",$SCHEMA}" | grep -o '"location":"[^"]*"' | head -1)
l3=$(rest POST /v1/namespaces/sandbox/tables "{\"name\":\"n\",$SCHEMA}" | grep -o '"location":"[^"]*"' | head -1)
l4=$(rest POST /v1/namespaces/sandbox%1Fn/tables "{\"name\":\"c\",$SCHEMA}" | grep -o '"location":"[^"]*"' | head -1)
if [ -n "$l1" ] && [ -n "$l2" ] && [ "$l1" != "$l2" ]; then ok "rest: sandbox.b.zz ($l1) != sandbox.\"b/zz\" ($l2)"; else fail "rest: names: '$l1' '$l2'"; fi
t3=${l3#\"location\":\"}; t3=${t3%\"}; t4=${l4#\"location\":\"}; t4=${t4%\"}
case "$t4" in "$t3"/*|"$t3") fail "rest: table sandbox.n.c ($t4) inside table sandbox.n ($t3)";;
  "") fail "rest: sandbox.n.c not created";; *) ok "rest: table sandbox.n ($t3) does not contain sandbox.n.c ($t4)";; esac

# ---- crafted commits (floe's own avro tools) ----
r1=$wh/sandbox/r1
out=$(sql -c "INSERT INTO sandbox.a VALUES (3)")
am=$(ls "$wh"/sandbox/a/metadata/*-m0.avro | head -1); al=$(ls "$wh"/sandbox/a/metadata/snap-*.avro | head -1)
adata=$(ls "$wh"/sandbox/a/data/*.parquet | head -1)
craft() { node "$here/confine-craft.mjs" "$@" || fail "craft $1"; }
commit_list() { # commit_list LIST: add-snapshot on sandbox.r1 with that manifest list
  local sid=$((RANDOM * 32768 + RANDOM + 1000))
  rest POST /v1/namespaces/sandbox/tables/r1 "{\"requirements\":[],\"updates\":[{\"action\":\"add-snapshot\",\"snapshot\":{\"snapshot-id\":$sid,\"sequence-number\":1,\"timestamp-ms\":$(date +%s)000,\"manifest-list\":\"$1\",\"summary\":{\"operation\":\"append\"},\"schema-id\":0}},{\"action\":\"set-snapshot-ref\",\"ref-name\":\"main\",\"type\":\"branch\",\"snapshot-id\":$sid}]}"
}
mkdir -p "$r1/metadata"
craft manifest "$am" "$r1/metadata/evil-m0.avro" "$adata"
craft list "$al" "$r1/metadata/snap-evil.avro" "$r1/metadata/evil-m0.avro"
out=$(commit_list "$r1/metadata/snap-evil.avro")
expect_refused "rest: commit naming another table's data file -> 403" "$out" "^403.*outside the table location"
craft list "$al" "$r1/metadata/snap-evil2.avro" "$am"
out=$(commit_list "$r1/metadata/snap-evil2.avro")
expect_refused "rest: commit naming another table's manifest -> 403" "$out" "^403.*manifest"
out=$(commit_list "$al")
expect_refused "rest: commit naming another table's manifest list -> 403" "$out" "^403.*manifest list"
out=$(rest GET /v1/namespaces/sandbox/tables/r1)
echo "$out" | grep -q '"snapshots":\[\]' && ok "rest: none of the crafted commits landed" || fail "r1 changed: $(echo "$out" | head -c 300)"

# ---- deleters over a warehouse seeded with foreign files ----
mkdir -p "$dir/outside"
cp "$adata" "$dir/outside/evil.parquet"
cp "$adata" "$wh/root.parquet"
echo "next to the catalog" > "$wh/catalog.db.notes"
out=$(sql -c "CREATE TABLE sandbox.v (id int)" -c "INSERT INTO sandbox.v VALUES (7)")
echo "not a writer's file" > "$wh/sandbox/v/data/notes.txt"
echo "loose" > "$wh/sandbox/v/loose.parquet"
seeds=("$dir/outside/evil.parquet" "$wh/root.parquet" "$adata" "$wh/catalog.db.notes" \
  "$wh/sandbox/v/data/notes.txt" "$wh/sandbox/v/loose.parquet" "$secret_meta" \
  "$(ls "$wh"/other/secret/data/*.parquet | head -1)" "$dir/somedir/precious.txt")
# sandbox.v's current metadata is swapped (as a client with a hostile metadata file, or an
# older floe, could have left it) to a crafted list whose manifest names the foreign files
vm=$(ls "$wh"/sandbox/v/metadata/*-m0.avro | head -1); vl=$(ls "$wh"/sandbox/v/metadata/snap-*.avro | head -1)
vmeta=$(ls "$wh"/sandbox/v/metadata/*.metadata.json | sort | tail -1)
craft manifest "$vm" "$wh/sandbox/v/metadata/crafted-m0.avro" "$(ls "$wh"/sandbox/v/data/*.parquet | head -1)" \
  "$dir/outside/evil.parquet" "$wh/root.parquet" "$adata" "$wh/catalog.db" "$wh/catalog.db.notes"
craft list "$vl" "$wh/sandbox/v/metadata/snap-crafted.avro" "$wh/sandbox/v/metadata/crafted-m0.avro"
craft metadata "$vmeta" "$wh/sandbox/v/metadata/00050-crafted.metadata.json" "$wh/sandbox/v/metadata/snap-crafted.avro"
python3 - "$wh/catalog.db" "$vmeta" "$wh/sandbox/v/metadata/00050-crafted.metadata.json" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = db.execute("UPDATE iceberg_tables SET metadata_location=? WHERE metadata_location=?", (sys.argv[3], sys.argv[2])).rowcount
db.commit()
sys.exit(0 if n == 1 else 1)
PY
[ $? = 0 ] && ok "sandbox.v now points at the crafted metadata" || fail "could not swap sandbox.v"
before=$(sha256sum "${seeds[@]}" "$wh/catalog.db" 2>&1)
out=$(httpsql "SELECT count(*) AS n FROM sandbox.v")
echo "$out" | grep -q '"n":6' && ok "the crafted table reads 6 rows" || fail "crafted read: $(echo "$out" | head -c 300)"
# orphan removal, expiry (the crafted snapshot leaves after a delete) and purge
out=$(httpsql "ALTER TABLE sandbox.v EXECUTE remove_orphan_files(retention_threshold => '0s')")
echo "$out" | grep -q '"\$done"' && ok "/v1/sql: remove_orphan_files ran" || fail "orphans: $(echo "$out" | head -c 300)"
out=$(httpsql "DELETE FROM sandbox.v")
out=$(httpsql "ALTER TABLE sandbox.v EXECUTE expire_snapshots(retention_threshold => '0s')")
echo "$out" | grep -q '"\$done"' && ok "/v1/sql: expire_snapshots ran" || fail "expire: $(echo "$out" | head -c 300)"
out=$(sql -c "ALTER TABLE sandbox.v EXECUTE remove_orphan_files(retention_threshold => '0s')")
out=$(rest DELETE "/v1/namespaces/sandbox/tables/v?purgeRequested=true")
expect_refused "rest: purge of sandbox.v -> 204" "$out" "^204"
after=$(sha256sum "${seeds[@]}" "$wh/catalog.db.notes" 2>&1)
before_n=$(echo "$before" | grep -v "catalog.db$")
if [ "$(echo "$before_n")" = "$(echo "$after" | head -n ${#seeds[@]})" ]; then
  ok "no foreign file was deleted or changed (${#seeds[@]} files, sha256)"
else
  fail "foreign files changed:"; diff <(echo "$before_n") <(echo "$after" | head -n ${#seeds[@]})
fi
[ -f "$wh/catalog.db" ] && ok "catalog.db is still there" || fail "catalog.db deleted"
[ ! -e "$wh/sandbox/v/data" ] || [ -z "$(ls "$wh/sandbox/v/data" | grep -v notes.txt)" ] &&
  ok "sandbox.v's own data files were purged" || fail "sandbox.v data left: $(ls "$wh/sandbox/v/data")"
out=$(sql -c "SELECT sum(id) AS s FROM sandbox.a" -c "SELECT id FROM other.secret")
echo "$out" | grep -q "6" && echo "$out" | grep -q "42" && ok "the other tables read as before" ||
  fail "other tables: $out"
# the tenant's purges and refusals are audited
grep -q '"outcome":"denied"' "$dir/audit.log" && ok "refusals are in the audit log" || fail "no denied audit line"

if [ $fails != 0 ]; then echo "--- server log (tail)"; tail -5 "$dir/serve.log"; echo "$fails failure(s)"; exit 1; fi
echo "all confinement checks passed"
