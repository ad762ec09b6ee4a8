#!/usr/bin/env bash
# scripts/demo-data.sh DIR: the demo data set of `make run` and of the docs' examples (tests/interop/test_docs.sh),
# deterministic, no network: DIR/orders.csv (5000 orders), DIR/customers.jsonl (10 customers with nested fields),
# loaded into demo.orders (partitioned by month(ordered_at), sorted by customer) and demo.customers of the
# catalog in $FLOE_CATALOG / $FLOE_WAREHOUSE (floe's default: ./warehouse). FLOE_BIN names the binary.
set -euo pipefail
dir="${1:?usage: demo-data.sh DIR}"
floe="${FLOE_BIN:-$(cd "$(dirname "$0")/.." && pwd)/build/floe}"
mkdir -p "$dir"
wh="$dir"
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

for t in demo.orders demo.customers; do "$floe" table drop "$t" --purge >/dev/null 2>&1 || true; done
"$floe" load "$dir/orders.csv" demo.orders --schema \
  'order_id:long not null,customer:string,region:string,order_date:date,ordered_at:timestamp,amount:decimal(10,2),quantity:int,shipped:boolean,note:string' \
  --partition-by "month(ordered_at)" --sort-by customer
"$floe" load "$dir/customers.jsonl" demo.customers
