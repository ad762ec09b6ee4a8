#!/usr/bin/env bash
# bench/variant.sh: variant_get over ROWS (default 10,000,000) Parquet variants, floe against
# DuckDB (its VARIANT type, 1.5), on the same file. DuckDB generates the file once into
# bench/data/variant-ROWS/ (documents like {"user": {"id": i, "name": "u42"}, "score": i % 100,
# "tags": ["a", "b"]}, written as a Parquet VARIANT column) and the same documents as JSON
# text in a second file, for the "parse the JSON instead" comparison.
#   get     sum(variant_get(v, '$.user.id', 'bigint'))   vs  sum(v.user.id::BIGINT)
#   get2    count(*) WHERE variant_get(v, '$.score', 'int') = 7, max(... '$.user.name' ...)
#   json    the same sum over the JSON text column (floe json_extract_scalar, DuckDB ->>)
# Cold: a process per query, runs alternating floe / DuckDB, RUNS each (default 3); warm: the
# query WARM times (default 5) in one process. Prints seconds and peak RSS per run and the
# median ratio floe / DuckDB.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
ROWS="${ROWS:-10000000}"; RUNS="${RUNS:-3}"; WARM="${WARM:-5}"; THREADS="${THREADS:-1}"
BUILD="${BUILD:-build}"
floe="$root/$BUILD/floe"; bexec="$root/$BUILD/bench_exec"
. tests/engines/lib/env.sh
py="$FLOE_ENGINE_PY"
data="$root/bench/data/variant-$ROWS"
mkdir -p "$data"
if [ ! -f "$data/variant.parquet" ]; then
  echo "== generating $ROWS rows into $data (DuckDB)"
  "$py" - "$ROWS" "$data" <<'PY'
import duckdb, sys
rows, out = int(sys.argv[1]), sys.argv[2]
c = duckdb.connect()
c.sql(f"""CREATE TABLE docs AS SELECT i AS id, json_object('user', json_object('id', i, 'name', 'u' || (i % 1000)),
          'score', i % 100, 'tags', ['a', 'b']) AS j FROM range({rows}) t(i)""")
c.sql(f"COPY (SELECT id, CAST(j AS VARIANT) AS v FROM docs) TO '{out}/variant.parquet' (FORMAT parquet)")
c.sql(f"COPY (SELECT id, CAST(j AS VARCHAR) AS j FROM docs) TO '{out}/json.parquet' (FORMAT parquet)")
PY
fi
cat > "$data/duck.py" <<'PY'
import duckdb, sys
c = duckdb.connect()
c.sql(f"SET threads = {sys.argv[3]}")
for _ in range(int(sys.argv[2])):
    print(c.sql(sys.argv[1]).fetchall())
PY
V="read_parquet('$data/variant.parquet')"; J="read_parquet('$data/json.parquet')"
declare -A FQ DQ
FQ[get]="SELECT sum(variant_get(v, '\$.user.id', 'bigint')) FROM $V"
DQ[get]="SELECT sum(v.user.id::BIGINT) FROM $V"
FQ[get2]="SELECT count(*), max(variant_get(v, '\$.user.name', 'string')) FROM $V WHERE variant_get(v, '\$.score', 'int') = 7"
DQ[get2]="SELECT count(*), max(v.user.name::VARCHAR) FROM $V WHERE v.score::INT = 7"
FQ[json]="SELECT sum(CAST(json_extract_scalar(j, '\$.user.id') AS bigint)) FROM $J"
DQ[json]="SELECT sum((j->>'\$.user.id')::BIGINT) FROM $J"
out="$data/variant-bench.jsonl"; : > "$out"
rec() { echo "{\"task\":\"$1\",\"engine\":\"$2\",\"data\":$3}" | tee -a "$out"; }
for task in get get2 json; do
  fargs=(); for _ in $(seq 1 "$WARM"); do fargs+=(-c "${FQ[$task]}"); done
  for run in $(seq 1 "$RUNS"); do
    rec "$task cold" floe "$("$bexec" "$floe" sql --no-catalog --threads "$THREADS" -c "${FQ[$task]}")"
    rec "$task cold" duckdb "$("$bexec" "$py" "$data/duck.py" "${DQ[$task]}" 1 "$THREADS")"
    rec "$task warm x$WARM" floe "$("$bexec" "$floe" sql --no-catalog --threads "$THREADS" "${fargs[@]}")"
    rec "$task warm x$WARM" duckdb "$("$bexec" "$py" "$data/duck.py" "${DQ[$task]}" "$WARM" "$THREADS")"
  done
done
"$floe" sql --no-catalog -c "${FQ[get]}"; "$py" "$data/duck.py" "${DQ[get]}" 1 "$THREADS"
python3 - "$out" <<'PY'
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    runs.setdefault(r["task"], {}).setdefault(r["engine"], []).append(r["data"])
for task, e in runs.items():
    f = statistics.median(x["seconds"] for x in e["floe"])
    d = statistics.median(x["seconds"] for x in e["duckdb"])
    fm = max(x["maxrss_kb"] for x in e["floe"]) // 1024
    dm = max(x["maxrss_kb"] for x in e["duckdb"]) // 1024
    print("%-16s floe %6.2fs %5d MB   duckdb %6.2fs %5d MB   ratio %.2f" % (task, f, fm, d, dm, f / d))
PY
