#!/usr/bin/env bash
# test_unreadable_metadata.sh - no error becomes an empty or partial answer.
# A manifest list and a manifest whose snapshot ids are varints beyond 64
# bits (DuckDB wraps them, Java refuses them) must fail every path with the
# error `floe table cat` gives, naming the file: floe sql on the table, on
# iceberg_scan(metadata file), count(*) (answered from metadata), the
# $files/$manifests/$entries metadata tables, and the same over floe serve's
# HTTP SQL endpoint and its Postgres wire port (psql).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
floe=${FLOE_BIN:-}
if [ -z "$floe" ] || [ ! -x "$floe" ]; then echo "skipped: FLOE_BIN not built"; exit 77; fi
dir=$(mktemp -d /tmp/floe-unreadable-XXXXXX)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir"
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; shift; printf '  %s\n' "$@"; fails=$((fails + 1)); }
cat="sqlite:$dir/catalog.db"
fsql() { "$floe" sql --catalog "$cat" --warehouse "$dir/wh" "$@"; }
fsql -c "CREATE SCHEMA s" -c "CREATE TABLE s.ml (id bigint)" -c "INSERT INTO s.ml VALUES (1),(2),(3)" \
  -c "CREATE TABLE s.mf (id bigint)" -c "INSERT INTO s.mf VALUES (1),(2),(3)" >/dev/null ||
  { echo "FAIL: setting up tables"; exit 1; }
# s.ml: the manifest list's added_snapshot_id (after manifest_path and 5 longs/ints)
python3 "$here/avro-varint-overflow.py" "$(ls wh/s/ml/metadata/snap-*.avro)" 1 5 || exit 1
# s.mf: the manifest entry's snapshot_id (after status and the union branch)
python3 "$here/avro-varint-overflow.py" "$(ls wh/s/mf/metadata/*-m0.avro)" 0 2 || exit 1

# expect_error NAME WANT OUTPUT RC: the command failed and said WANT
expect_error() {
  if [ "$4" -ne 0 ] && grep -q -- "$2" <<<"$3"; then ok "$1"; else bad "$1" "rc=$4" "want: $2" "got: $3"; fi
}
for t in ml mf; do
  case $t in
  ml) want="added_snapshot_id': long varint overflows 64 bits" ;;
  mf) want="snapshot_id': varint longer than 64 bits" ;;
  esac
  out=$("$floe" table cat s.$t --catalog "$cat" --warehouse "$dir/wh" 2>&1); rc=$?
  expect_error "$t: floe table cat" "$want" "$out" $rc
  meta=$(ls "$dir"/wh/s/$t/metadata/*.metadata.json | sort | tail -1)
  for q in "SELECT count(*) FROM s.$t" "SELECT * FROM s.$t" "SELECT sum(id) FROM s.$t WHERE id > 1" \
    "SELECT count(*) FROM iceberg_scan('$meta')" "SELECT count(*) FROM s.\"$t\$files\"" \
    "SELECT count(*) FROM s.\"$t\$entries\"" "SELECT count(*) FROM s.\"$t\$manifests\""; do
    [ $t = mf ] && [[ $q == *manifests* ]] && continue # the manifest list itself is fine
    out=$(fsql -c "$q" 2>&1); rc=$?
    expect_error "$t: floe sql: $q" "$want" "$out" $rc
  done
done

# s.wrap: metadata whose snapshot id is beyond INT64_MAX (the duckdb-iceberg
# equality_delete_cross_partition fixture has one): read as the wrapped, negative
# id, never as "no snapshot" (an empty answer). UINT64_MAX would wrap to -1, the
# "none" sentinel, and is refused.
fsql -c "CREATE TABLE s.wrap (id bigint)" -c "INSERT INTO s.wrap VALUES (1),(2),(3)" >/dev/null ||
  { echo "FAIL: setting up s.wrap"; exit 1; }
wmeta=$(ls "$dir"/wh/s/wrap/metadata/*.metadata.json | sort | tail -1)
wlist=$(ls "$dir"/wh/s/wrap/metadata/snap-*.avro)
sid=$(basename "$wlist" | cut -d- -f2)
cp "$wmeta" "$dir/wrap.orig.json"
mv "$wlist" "${wlist/snap-$sid-/snap-18446744073709551000-}"
sed "s/$sid/18446744073709551000/g" "$dir/wrap.orig.json" >"$wmeta"
for q in "SELECT count(*), sum(id) FROM s.wrap" "SELECT count(*), sum(id) FROM iceberg_scan('$wmeta')" \
  "SELECT count(*), sum(id) FROM s.wrap FOR VERSION AS OF -616"; do
  out=$(fsql --format csv --no-header -c "$q" 2>&1); rc=$?
  if [ $rc -eq 0 ] && [ "$out" = "3,6" ]; then ok "wrapped snapshot id: $q"; else bad "wrapped snapshot id: $q" "rc=$rc" "$out"; fi
done
sed "s/$sid/18446744073709551615/g" "$dir/wrap.orig.json" >"$wmeta"
out=$(fsql -c "SELECT count(*) FROM s.wrap" 2>&1); rc=$?
expect_error "snapshot id UINT64_MAX refused" "would wrap to -1" "$out" $rc

secret=$("$floe" admin principal create alice --admin --catalog "$cat" 2>/dev/null | sed -n 's/^client_secret: //p')
tok=$("$floe" admin --catalog "$cat" token alice --ttl 600)
"$floe" serve --port 0 --pg-port 0 --catalog "$cat" --warehouse "$dir/wh" --ready-file "$dir/ready" \
  2>"$dir/log" &
pid=$!
for _ in $(seq 100); do grep -qs '^pg' ready && break; sleep 0.1; done
grep -qs '^pg' ready || { echo "FAIL: floe serve did not start"; tail -5 "$dir/log"; exit 1; }
url=http://$(head -1 ready)
port=$(sed -n 's/^pg .*://p' ready)
for t in ml mf; do
  for q in "SELECT count(*) FROM s.$t" "SELECT * FROM s.$t"; do
    out=$(curl -s -w '\nhttp %{http_code}' -X POST -H "Authorization: Bearer $tok" --data-binary "$q" "$url/v1/sql")
    # a 4xx/5xx, or (once streaming began) a final {"$error":...} line, and no rows
    if grep -q '"\$\?error".*varint' <<<"$out" && [ "$(grep -c '^{"\(count\|id\)"' <<<"$out")" = 0 ]; then
      ok "$t: HTTP $q"
    else bad "$t: HTTP $q" "$out"; fi
    out=$(PGHOST=127.0.0.1 PGPORT=$port PGUSER=alice PGPASSWORD=$secret PGDATABASE=floe PGSSLMODE=disable \
      psql -X -q -A -t -v ON_ERROR_STOP=1 -c "$q" 2>&1); rc=$?
    expect_error "$t: psql $q" "varint" "$out" $rc
  done
done
echo "unreadable-metadata: $fails failed"
[ $fails -eq 0 ]
