# semantic/seed.sh - the semantic tests' data, sourced by tests/interop/test_semantic.sh and
# tests/engines/test_metricflow.sh: needs fsql (floe sql on the test's catalog) and $tmp; defines
# export_csv (every table to $tmp/csv/<table>.csv).
# ---- data: deterministic, 600 orders over 7 months, 40 customers in 3 regions (some without one) ----
fsql -c "CREATE TABLE orders (order_id int, customer_id int, order_date date, status varchar, gross_amount decimal(10,2), discount_applied decimal(10,2), return_amount decimal(10,2))" \
     -c "CREATE TABLE customers (customer_id int, region varchar, country_code varchar, signup_date date)" \
     -c "CREATE TABLE countries (country_code varchar, continent varchar)" \
     -c "CREATE TABLE account_balances (account_id int, customer_id int, balance_date date, balance decimal(12,2))"
fsql -c "INSERT INTO countries VALUES ('DE','Europe'),('FR','Europe'),('US','America'),('BR','America'),('JP','Asia')" \
     -c "INSERT INTO customers SELECT i, CASE i % 4 WHEN 0 THEN 'EU' WHEN 1 THEN 'US' WHEN 2 THEN 'APAC' ELSE NULL END, (ARRAY['DE','FR','US','BR','JP'])[1 + i % 5], DATE '2023-06-01' + i * 9 FROM generate_series(1, 40) AS g(i)" \
     -c "INSERT INTO orders SELECT i, 1 + (i * 7) % 40, DATE '2024-01-01' + (i * 13) % 210, CASE i % 6 WHEN 0 THEN 'cancelled' WHEN 1 THEN 'placed' ELSE 'completed' END, CAST(10 + (i * 37) % 490 AS decimal(10,2)) + 0.25, CAST((i * 11) % 30 AS decimal(10,2)), CASE WHEN i % 9 = 0 THEN CAST((i * 5) % 60 AS decimal(10,2)) ELSE 0 END FROM generate_series(1, 600) AS g(i)" \
     -c "INSERT INTO account_balances SELECT 1 + i % 12, 1 + i % 12, DATE '2024-01-01' + (i / 12) * 5, CAST(1000 + (i * 53) % 900 AS decimal(12,2)) FROM generate_series(0, 479) AS g(i)"
export_csv() {
  mkdir -p "$tmp/csv"
  for t in orders customers countries account_balances visits; do
    fsql -c "COPY (SELECT * FROM $t) TO '$tmp/csv/$t.csv' (FORMAT csv, HEADER)"
  done
}
# visits: the base events of the conversion metric (a visit, then an order by the same customer within 7 days)
fsql -c "CREATE TABLE visits (visit_id int, customer_id int, visit_date date, channel varchar)" \
     -c "INSERT INTO visits SELECT i, 1 + (i * 11) % 40, DATE '2024-01-01' + (i * 17) % 205, CASE i % 3 WHEN 0 THEN 'ads' WHEN 1 THEN 'search' ELSE 'direct' END FROM generate_series(1, 900) AS g(i)"
