#!/usr/bin/env bash
# `make run`: the most complete thing floe does today. Generates a small demo data set (deterministic, no network,
# no fixtures needed), converts it to Parquet in ./warehouse with floe's own writer, and shows it with floe's own
# reader: schema, footer metadata, rows, a filtered projection, and a conversion back to JSON lines. Then prints how
# to use the tools. (Until the SQL shell and server exist, these tools are floe.)
set -euo pipefail
cd "$(dirname "$0")/.."
floe=./build/floe
[ -x "$floe" ] || { echo "run: $floe missing (make build)"; exit 1; }
wh=warehouse
mkdir -p "$wh"
banner() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '\033[2m$ %s\033[0m\n' "$*"; "$@"; }

# orders.csv: 5000 orders from a fixed linear congruential generator (same bytes on every machine)
awk 'BEGIN {
  x = 20240101
  split("north,south,east,west,central", region, ",")
  split("alice,bob,carol,dave,erin,frank,grace,heidi,ivan,judy", cust, ",")
  split("express,standard,pickup", ship, ",")
  print "order_id,customer,region,order_date,ordered_at,amount,quantity,shipped,note"
  for (i = 1; i <= 5000; i++) {
    x = (x * 1103515245 + 12345) % 2147483648; r = x
    day = 1 + int(i * 364 / 5000); m = 1; dm = "31 29 31 30 31 30 31 31 30 31 30 31"; split(dm, md, " ")
    d = day; while (d > md[m]) { d -= md[m]; m++ }
    amount = sprintf("%d.%02d", 5 + r % 2000, int(r / 7) % 100)
    note = (r % 11 == 0) ? "\"gift, wrapped \"\"carefully\"\"\"" : (r % 5 == 0 ? "" : ship[1 + r % 3])
    shipped = (r % 3 == 0) ? "false" : "true"
    printf "%d,%s,%s,2024-%02d-%02d,2024-%02d-%02d %02d:%02d:%02d,%s,%d,%s,%s\n", \
      1000 + i, cust[1 + int(r / 3) % 10], region[1 + int(r / 13) % 5], m, d, m, d, \
      int(r / 17) % 24, int(r / 19) % 60, int(r / 23) % 60, amount, 1 + r % 9, shipped, note
  }
}' > "$wh/orders.csv"

# customers.jsonl: nested JSON (struct, list, map) for the JSON lines reader
awk 'BEGIN {
  split("alice,bob,carol,dave,erin,frank,grace,heidi,ivan,judy", cust, ",")
  split("Oslo,Lima,Kyoto,Accra,Perth", city, ",")
  for (i = 1; i <= 10; i++)
    printf "{\"name\":\"%s\",\"since\":\"20%02d-0%d-1%d\",\"address\":{\"city\":\"%s\",\"zip\":\"%05d\"},\"tags\":[\"t%d\",\"vip\"],\"limits\":{\"daily\":%d,\"monthly\":%d}}\n", \
      cust[i], 10 + i, 1 + i % 9, i % 10, city[1 + i % 5], i * 1234, i % 4, 100 * i, 1000 * i
}' > "$wh/customers.jsonl"

banner "floe $("$floe" version | cut -d' ' -f2): CSV and JSON lines -> Parquet (ZSTD, field ids, statistics, page index)"
show "$floe" convert "$wh/orders.csv" "$wh/orders.parquet" --schema \
  'order_id:long not null,customer:string,region:string,order_date:date,ordered_at:timestamp,amount:decimal(10,2),quantity:int,shipped:boolean,note:string' \
  --row-group-rows 1000
show "$floe" convert "$wh/customers.jsonl" "$wh/customers.parquet"

banner "the Parquet schema as stored, and as floe types"
show "$floe" parquet schema "$wh/orders.parquet"

banner "footer metadata: row groups, column chunks, encodings, statistics"
show "$floe" parquet meta "$wh/orders.parquet" | head -n 40
echo "  ..."

banner "rows"
show "$floe" parquet cat "$wh/orders.parquet" --limit 10
show "$floe" parquet cat "$wh/customers.parquet" --limit 3

banner "projection + filter (row groups pruned by statistics)"
show "$floe" parquet cat "$wh/orders.parquet" --columns order_id,customer,amount,order_date \
  --where "order_date >= 2024-12-24" --where "amount > 1500" --where "region = 'east'" --stats

banner "Parquet -> JSON lines / CSV"
show "$floe" convert "$wh/customers.parquet" - --to jsonl --quiet
show "$floe" parquet cat "$wh/orders.parquet" --format csv --limit 3

cat <<'EOF'

== how to use floe (files are in ./warehouse)
  floe parquet schema FILE                  Parquet schema tree (types, repetition, field ids) + floe schema
  floe parquet meta FILE                    row groups, column chunks, codecs, encodings, statistics, kv metadata
  floe parquet cat FILE [--columns a,b] [--where "col op value"]... [--format table|csv|jsonl] [--limit N]
                        [--verify-crc] [--stats]
  floe convert IN OUT [--schema "a:long,b:decimal(10,2),c:list<string>"] [--codec zstd|snappy|gzip|lz4_raw|brotli|none]
                      [--row-group-rows N] [--from/--to csv|jsonl|parquet]
  floe avro schema|meta|cat FILE            Avro object container files
  make test     unit, fixture and interop tests (DuckDB, arrow-rs, hyparquet as oracles), plain and ASan builds
  make bench    floe vs DuckDB on a 6M-row lineitem table (SCALE=0.1 for a quick run)
EOF
