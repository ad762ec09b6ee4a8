#!/usr/bin/env bash
# make-demo.sh DIR - writes the demo's data files into DIR, as scripts/run.sh
# makes them (same generators; orders cut to 200 rows): orders.csv (flat) and
# customers.jsonl (struct address, list tags, struct limits), plus nested.sql,
# the statement that makes demo.nested: a map, a list of structs, a struct of
# a struct of a list, a list of texts that need quoting, a list of lists, and a
# row of NULLs.
set -euo pipefail
dir=$1
awk 'BEGIN {
  x = 42
  split("east,west,north,south,central", region, ",")
  split("alice,bob,carol,dave,erin,frank,grace,heidi,ivan,judy", cust, ",")
  print "order_id,customer,region,order_date,amount,quantity,shipped,note"
  for (i = 1; i <= 200; i++) {
    x = (x * 1103515245 + 12345) % 2147483648; r = x
    note = (r % 11 == 0) ? "\"gift, wrapped \"\"carefully\"\"\"" : (r % 5 == 0 ? "" : "express")
    printf "%d,%s,%s,2024-01-%02d,%d.%02d,%d,%s,%s\n", 1000 + i, cust[1 + int(r / 3) % 10],
      region[1 + int(r / 13) % 5], 1 + i % 28, 5 + r % 2000, int(r / 7) % 100, 1 + r % 9,
      (r % 3 == 0) ? "false" : "true", note
  }
}' > "$dir/orders.csv"
awk 'BEGIN {
  split("alice,bob,carol,dave,erin,frank,grace,heidi,ivan,judy", cust, ",")
  split("Oslo,Lima,Kyoto,Accra,Perth", city, ",")
  for (i = 1; i <= 10; i++)
    printf "{\"name\":\"%s\",\"since\":\"20%02d-0%d-1%d\",\"address\":{\"city\":\"%s\",\"zip\":\"%05d\"},\"tags\":[\"t%d\",\"vip\"],\"limits\":{\"daily\":%d,\"monthly\":%d}}\n", \
      cust[i], 10 + i, 1 + i % 9, i % 10, city[1 + i % 5], i * 1234, i % 4, 100 * i, 1000 * i
}' > "$dir/customers.jsonl"
cat > "$dir/nested.sql" <<'SQL'
CREATE TABLE demo.nested AS
SELECT id,
       CASE WHEN id = 1 THEN map(ARRAY['a', 'b'], ARRAY[1, NULL]) END AS m,
       CASE WHEN id = 1 THEN ARRAY[ROW('Lima', '01'), ROW('Oslo', NULL)] END AS ls,
       CASE WHEN id = 1 THEN ROW(1, ROW('x', (ARRAY[1, 2])[1:2])) END AS deep,
       CASE WHEN id = 1 THEN ARRAY['a,b', 'q"t', NULL, 'back\slash', '{}', '', 'NULL'] END AS tricky,
       CASE WHEN id = 1 THEN ARRAY[(ARRAY[1, 2])[1:2], (ARRAY[3])[1:1]] END AS ll
FROM (SELECT 1 AS id UNION ALL SELECT 2) s;
SQL
