#!/usr/bin/env bash
# bench/pg_cdc.sh [ROWS] [CHANGES]: Postgres CDC apply throughput of `floe ingest postgres`.
# A throwaway PostgreSQL (tests/interop/oracle/pg-tmp-server.sh, wal_level=logical) holds a 10-column table of ROWS
# rows (default 200000); the first run copies it (rows/s). Then, with the pipeline stopped, CHANGES changes (default
# 200000: 85% inserts, 10% updates, 5% deletes, 100 per transaction) are committed, and a second run applies what the
# slot holds (changes/s, from its start to its last commit: the idle second --once-idle waits is subtracted). Peak
# memory from /usr/bin/time. The tables are compared with the source afterwards (count and sums).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
floe="${FLOE_BIN:-$root/build/floe}"
rows=${1:-200000}
changes=${2:-200000}
dir=$(mktemp -d /tmp/floe-cdcbench-XXXXXX)
chmod 755 "$dir"
srv="$root/tests/interop/oracle/pg-tmp-server.sh"
cleanup() { sh "$srv" stop "$dir/data" >/dev/null 2>&1 || true; rm -rf "$dir" "$dir/data.initdb.log"; }
trap cleanup EXIT
port=$((56000 + RANDOM % 4000))
url=$(sh "$srv" start "$dir/data" "$port")
sh "$srv" stop "$dir/data"
printf '\nwal_level = logical\nmax_replication_slots = 4\nmax_wal_senders = 4\nmax_wal_size = 4GB\n' >>"$dir/data/postgresql.conf"
url=$(sh "$srv" start "$dir/data" "$port")
psql=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)/psql
q() { "$psql" -X -q -v ON_ERROR_STOP=1 "$url" -c "$1" >/dev/null; }
q "CREATE TABLE ev (id bigint PRIMARY KEY, ts timestamptz, kind text, amount numeric(12,2), qty int,
     score double precision, flag boolean, region text, note text, day date)"
q "INSERT INTO ev SELECT g, TIMESTAMPTZ '2024-01-01' + g * INTERVAL '1 second', 'k' || (g % 50), g * 0.01,
     g % 1000, g / 7.0, g % 2 = 0, (ARRAY['EU','NA','APAC'])[1 + g % 3], 'note ' || g, DATE '2024-01-01' + g % 365
     FROM generate_series(1, $rows) g"
q "CREATE PUBLICATION bench FOR TABLE ev"
export FLOE_CATALOG="sqlite:$dir/wh/catalog.db" FLOE_WAREHOUSE="$dir/wh"
mkdir -p "$dir/wh"
run() {  # $1 = label; prints seconds and peak RSS
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$dir/rss" "$floe" ingest postgres --dsn "$url" --slot bench --publication bench \
    --namespace b --checkpoint-interval 30s --checkpoint-rows 1000000 --once-idle 1s 2>"$dir/$1.err"
  t1=$(date +%s.%N)
  echo "$(echo "$t1 - $t0 - 1" | bc) $(cat "$dir/rss")"
}
read -r copy_s copy_kb < <(run copy)
# the changes, while no pipeline runs: 100 per transaction
tx=$((changes / 100))
q "DO \$\$ DECLARE i int; base bigint := $rows; BEGIN
     FOR i IN 0..$((tx - 1)) LOOP
       INSERT INTO ev (id, ts, kind, amount, qty, score, flag, region, note, day)
         SELECT base + i * 85 + g, now(), 'new', g, g, g, true, 'EU', 'n', current_date FROM generate_series(1, 85) g;
       UPDATE ev SET amount = amount + 1, note = 'u' WHERE id BETWEEN 1 + i * 10 AND 10 + i * 10;
       DELETE FROM ev WHERE id BETWEEN $((rows / 2)) + 1 + i * 5 AND $((rows / 2)) + 5 + i * 5;
       COMMIT;
     END LOOP; END \$\$"
read -r apply_s apply_kb < <(run apply)
a=$("$psql" -X -A -t -F, "$url" -c "SELECT count(*), sum(id), sum(amount) FROM ev")
b=$("$floe" sql --format csv --no-header -c "SELECT count(*), sum(id), sum(amount) FROM b.ev")
[ "$a" = "$b" ] || { echo "MISMATCH: postgres $a, floe $b"; exit 1; }
echo "rows $rows, changes $changes (85% inserts, 10% updates, 5% deletes, 100 per transaction); tables equal ($a)"
printf 'initial copy: %.2f s, %.0f rows/s, peak %d MiB\n' "$copy_s" "$(echo "$rows / $copy_s" | bc -l)" $((copy_kb / 1024))
printf 'apply:        %.2f s, %.0f changes/s, peak %d MiB\n' "$apply_s" "$(echo "$changes / $apply_s" | bc -l)" $((apply_kb / 1024))
