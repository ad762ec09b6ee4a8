#!/usr/bin/env bash
# floe load / floe table (write commands) end to end through a SQLite catalog:
# CSV, JSON lines and Parquet loads (table created from the first file), partitioned by every
# transform, sorted, appended twice, overwritten, row-level deletes (merge-on-read and
# copy-on-write), schema evolution (add / rename / drop / promote), partition evolution,
# rollback, expire and compaction. Rows are checked with `floe table cat` and, independently,
# with DuckDB's read_parquet over the data files that the `files` metadata table lists.
# Skips (77) only when the pinned npm packages are not installed (DuckDB checks).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${FLOE_BIN:?FLOE_BIN must point at the floe binary}"
if [ ! -d "$here/node_modules/@duckdb/node-api" ]; then
  echo "skip: node_modules missing in $here (run: npm ci there)"; exit 77
fi
tmp="$(mktemp -d "${TMPDIR:-/tmp}/floe-table-cli.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export FLOE_CATALOG="sqlite:$tmp/wh/catalog.db"
export FLOE_WAREHOUSE="$tmp/wh"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }
floe() { "$FLOE_BIN" "$@"; }
duck() { node "$here/oracle/duck.mjs" --format=tsv "$@"; }

# rows of a table as sorted CSV (header dropped)
rows() { floe table cat "$FLOE_WAREHOUSE/$1" --format csv ${2:+--columns "$2"} | tail -n +2 | LC_ALL=C sort; }
count() { floe table cat "$FLOE_WAREHOUSE/$1" --format csv | tail -n +2 | wc -l | tr -d ' '; }
# data file paths of the current snapshot (content 0), one per line
data_files() {
  floe table files "$FLOE_WAREHOUSE/$1" --format jsonl |
    python3 -c 'import json,sys
for l in sys.stdin:
    r=json.loads(l)
    if int(r.get("content",0))==0: print(r["file_path"])'
}
# DuckDB over the listed data files: "count sum(id)"
duck_agg() {
  local files list
  files=$(data_files "$1")
  [ -n "$files" ] || { echo "0 null"; return; }
  list=$(printf "'%s'," $files); list="[${list%,}]"
  duck "SELECT count(*) AS n, sum(id) AS s FROM read_parquet($list)" | tail -n +2 | tr '\t' ' ' | tr -d '"'
}
# icebird (reads the newest metadata file, applies position deletes, maps columns by field id
# through the "iceberg.schema" key): "count sum(id)"
ice_agg() {
  local m
  m=$(ls "$FLOE_WAREHOUSE/$1"/metadata/*.metadata.json | LC_ALL=C sort | tail -1)
  node "$here/oracle/iceberg-read.mjs" "$m" --rows=all |
    python3 -c 'import json,sys
d=json.load(sys.stdin); print(d["row_count"], sum(int(r["id"]) for r in d["rows"]))'
}
# floe's own "count sum(id)"
floe_agg() { rows "$1" id | awk -F, '{n++; s+=$1} END {print n+0, s+0}'; }
expect_eq() { if [ "$2" == "$3" ]; then ok "$1"; else fail "$1: got '$2', want '$3'"; fi; }

# ---- inputs ----
python3 - "$tmp" <<'EOF'
import sys, json, datetime
d = sys.argv[1]
base = datetime.datetime(2024, 1, 30, 22, 0, 0)
with open(f"{d}/a.csv", "w") as f:
    f.write("id,ts,name,amount\n")
    for i in range(1, 301):
        ts = base + datetime.timedelta(hours=i)
        name = "" if i % 10 == 0 else f"name {i % 17}"
        f.write(f"{i},{ts.isoformat(sep=' ')},{name},{i * 1.5}\n")
with open(f"{d}/b.jsonl", "w") as f:
    for i in range(301, 401):
        ts = base + datetime.timedelta(hours=i)
        f.write(json.dumps({"id": i, "ts": ts.isoformat(sep=' '), "name": f"name {i % 17}", "amount": i * 1.5}) + "\n")
EOF
floe convert "$tmp/a.csv" "$tmp/c.parquet" --quiet || fail "convert to parquet"

# ---- load: create from CSV, partitioned and sorted; append JSONL and Parquet ----
floe load "$tmp/a.csv" db.events --partition-by "day(ts)" --partition-by "bucket(id, 4)" \
  --sort-by "id DESC" --property write.delete.mode=merge-on-read || fail "load csv"
expect_eq "csv rows" "$(count db/events)" 300
floe load "$tmp/b.jsonl" db.events || fail "load jsonl"
floe load "$tmp/c.parquet" db.events || fail "load parquet (second append of the same rows)"
expect_eq "rows after appends" "$(count db/events)" 700
expect_eq "duckdb over data files" "$(duck_agg db/events)" "700 125350"
# every data file holds one day and one bucket: its path names them
bad=$(data_files db/events | grep -cv '/data/ts_day=20[0-9-]*/id_bucket=[0-3]/')
expect_eq "partition paths" "$bad" 0
# sorted by id DESC inside each file
for f in $(data_files db/events | sed -n 1,3p); do
  ids=$(floe parquet cat "$f" --format csv --columns id | tail -n +2 | tr '\n' ' ')
  sorted=$(echo "$ids" | tr ' ' '\n' | grep . | sort -rn | tr '\n' ' ')
  expect_eq "file sorted by id desc" "$ids" "$sorted"
done

# ---- every transform (DuckDB checks all tables in one query) ----
sql=""
for p in "name" "year(ts)" "month(ts)" "hour(ts)" "bucket(id, 3)" "truncate(name, 5)" \
         "void(amount)" "truncate(id, 50)"; do
  t="p_$(echo "$p" | tr -c 'a-z0-9' '_' | sed 's/_*$//')"
  floe load "$tmp/a.csv" "db.$t" --partition-by "$p" --quiet || fail "load partitioned by $p"
  expect_eq "partition $p: rows" "$(count db/$t)" 300
  list=$(printf "'%s'," $(data_files db/$t)); list="[${list%,}]"
  sql="${sql:+$sql UNION ALL }SELECT '$t' AS t, count(*) AS n, sum(id) AS s FROM read_parquet($list)"
done
good=$(duck "$sql" | tail -n +2 | tr -d '"' | awk -F'\t' '$2 == 300 && $3 == 45150' | wc -l | tr -d ' ')
expect_eq "duckdb over every partitioned table (300 rows, sum 45150 each)" "$good" 8

# ---- row-level delete: merge-on-read (position deletes) ----
n5=$(rows db/events name | grep -c '^name 5$')
[ "$n5" -gt 0 ] || fail "test data has 'name 5' rows"
floe table delete db.events --where "name = 'name 5'" || fail "delete mor"
expect_eq "rows after delete name 5" "$(count db/events)" $((700 - n5))
expect_eq "no 'name 5' row is left" "$(rows db/events name | grep -c '^name 5$')" 0
ndel=$(floe table files "$FLOE_WAREHOUSE/db/events" --format jsonl | grep -c '"content": *1')
[ "$ndel" -gt 0 ] && ok "merge-on-read wrote $ndel position delete files" ||
  fail "merge-on-read wrote no position delete files"
expect_eq "icebird applies floe's position deletes" "$(ice_agg db/events)" "$(floe_agg db/events)"
# whole files from metadata: the first day holds only id 1 (from the CSV and the Parquet file)
n0=$(count db/events)
floe table delete db.events --where "ts < '2024-01-31'" || fail "delete whole files"
expect_eq "first day deleted" "$(count db/events)" $((n0 - 2))
# ---- copy-on-write ----
floe table set-properties db.events write.delete.mode=copy-on-write || fail "set-properties"
floe table delete db.events --where "name = 'name 3'" || fail "delete cow"
left=$(rows db/events name | grep -c '^name 3$')
expect_eq "cow delete" "$left" 0
floe table delete db.events --where "ts < '2024-02-01'" || fail "delete by day"
expect_eq "old days gone" "$(floe table cat "$FLOE_WAREHOUSE/db/events" --format csv --where "ts < '2024-02-01'" | tail -n +2 | wc -l | tr -d ' ')" 0

# ---- schema evolution ----
floe table add-column db.events note string || fail "add-column"
floe table rename-column db.events amount price || fail "rename-column"
floe table alter-column db.events id --optional >/dev/null 2>&1 # id is optional already: fine either way
printf 'id,ts,name,price,note\n1000,2024-03-01 10:00:00,new,1.0,hello\n' > "$tmp/d.csv"
floe load "$tmp/d.csv" db.events || fail "load with the evolved schema"
expect_eq "new column value" "$(rows db/events note | grep -c '^hello$')" 1
hdr=$(floe table cat "$FLOE_WAREHOUSE/db/events" --format csv | head -1)
expect_eq "renamed column in output" "$hdr" "id,ts,name,price,note"
expect_eq "icebird after evolution" "$(ice_agg db/events)" "$(floe_agg db/events)"
floe table drop-column db.events note || fail "drop-column"
hdr=$(floe table cat "$FLOE_WAREHOUSE/db/events" --format csv | head -1)
expect_eq "dropped column gone" "$hdr" "id,ts,name,price"
floe table drop-column db.events ts 2>/dev/null && fail "dropping a partition source must fail"
floe table add-partition db.events "truncate(name, 4)" || fail "add-partition"
floe table drop-partition db.events id_bucket || fail "drop-partition"
floe table set-sort db.events "name" "id DESC NULLS LAST" || fail "set-sort"
n_before=$(count db/events)
printf 'id,ts,name,price\n1001,2024-03-02 10:00:00,newer,2.0\n' > "$tmp/e.csv"
floe load "$tmp/e.csv" db.events --quiet || fail "load after partition evolution"
expect_eq "evolved partition path" "$(data_files db/events | grep -c 'ts_day=2024-03-02/name_trunc=newe/')" 1
expect_eq "rows after evolved load" "$(count db/events)" $((n_before + 1))

# ---- overwrite, rollback, expire, compaction ----
floe load "$tmp/b.jsonl" db.small --quiet || fail "load small"
first=$(floe table snapshots "$FLOE_WAREHOUSE/db/small" --format jsonl | head -1 |
  python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["snapshot_id"])')
floe load "$tmp/b.jsonl" db.small --quiet || fail "append small"
expect_eq "small appended" "$(count db/small)" 200
floe load "$tmp/b.jsonl" db.small --mode overwrite --quiet || fail "overwrite"
expect_eq "overwrite replaces" "$(count db/small)" 100
floe table rollback db.small --to "$first" || fail "rollback"
expect_eq "rolled back" "$(count db/small)" 100
expect_eq "rolled back duckdb" "$(duck_agg db/small)" "100 35050"
floe load "$tmp/b.jsonl" db.small --quiet
floe load "$tmp/b.jsonl" db.small --quiet
floe table compact db.small || fail "compact"
expect_eq "compacted rows" "$(count db/small)" 300
expect_eq "compacted into one file" "$(data_files db/small | wc -l | tr -d ' ')" 1
floe table expire db.small --retain-last 1 --older-than "$(( $(date +%s) * 1000 + 1000 ))" || fail "expire"
expect_eq "one snapshot left" "$(floe table snapshots "$FLOE_WAREHOUSE/db/small" --format jsonl | wc -l | tr -d ' ')" 1
expect_eq "rows after expire" "$(count db/small)" 300
floe table create-tag db.small v1 || fail "create-tag"
floe table drop db.small --purge || fail "drop --purge"
[ -z "$(find "$FLOE_WAREHOUSE/db/small" -name '*.parquet' 2>/dev/null)" ] || fail "purge left data files"

# ---- format v3: write-defaults, deletes as deletion vectors (one per data file) ----
floe load "$tmp/b.jsonl" db.v3 --property format-version=3 --quiet || fail "load v3"
floe table add-column db.v3 flag boolean --required --default true || fail "add a required column with a default"
floe load "$tmp/b.jsonl" db.v3 --quiet || fail "load fills the write-default"
expect_eq "v3 defaults" "$(rows db/v3 flag | uniq | tr '\n' ' ')" "t "
floe table delete db.v3 --where "id <= 350" || fail "v3 delete"
expect_eq "v3 rows" "$(count db/v3)" 100
# the data files are untouched (DuckDB's read_parquet sees every row); the deletes are DVs
expect_eq "v3 data files kept" "$(duck_agg db/v3)" "200 70100"
ndv3=$(floe table files "$FLOE_WAREHOUSE/db/v3" --format jsonl | grep '"content": *1' | grep -c '"file_format": *"PUFFIN"')
expect_eq "v3 delete writes one DV per data file" "$ndv3" 2

# ---- errors are clear ----
msg=$(floe load "$tmp/a.csv" db.events 2>&1); rc=$?
[ $rc -ne 0 ] && grep -q "amount" <<< "$msg" && ok "unknown column named" || fail "load with a stale column: $msg"
msg=$(floe table delete db.events --where "nope = 1" 2>&1)
grep -q "no column 'nope'" <<< "$msg" && ok "bad --where named" || fail "bad --where: $msg"

if [ $fails -ne 0 ]; then echo "$fails failures"; exit 1; fi
echo "all table CLI checks passed"
