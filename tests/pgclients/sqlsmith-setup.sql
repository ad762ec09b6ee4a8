-- sqlsmith-setup.sql - a few small tables of every common type for sqlsmith
-- (tests/interop/test_pg_sqlsmith.sh) to generate queries over.
CREATE SCHEMA lake;
CREATE TABLE lake.orders (id bigint, customer text, amount numeric(12,2), qty integer, placed timestamp,
                          paid timestamptz, d date, ok boolean, f double precision, u uuid);
INSERT INTO lake.orders
SELECT a.x * 10 + b.x, 'cust' || b.x, (a.x * 10 + b.x) * 1.25, a.x - 3,
       TIMESTAMP '2024-01-01 00:00:00' + (a.x * 10 + b.x) * INTERVAL '1 hour',
       TIMESTAMPTZ '2024-01-01 00:00:00+00' + (a.x * 10 + b.x) * INTERVAL '1 day',
       DATE '2024-01-01' + (a.x * 10 + b.x), b.x % 2 = 0, (a.x * 10 + b.x) / 7.0,
       CAST('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1' || b.x AS uuid)
FROM (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) a(x), (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) b(x);
INSERT INTO lake.orders (id, customer) VALUES (100, NULL), (101, 'nulls');
CREATE TABLE lake.customers (name text, city text, since date, score real, vip boolean);
INSERT INTO lake.customers VALUES ('cust0', 'Oslo', '2020-01-01', 1.5, true), ('cust1', 'Lima', '2021-06-30', -2.25, false),
  ('cust2', NULL, NULL, NULL, NULL), ('cust3', 'Kyiv', '1999-12-31', 0, true), ('cust4', 'Pune', '2024-02-29', 3.75, false);
CREATE TABLE lake.events (id bigint, kind text, at timestamptz, payload bytea, n smallint);
INSERT INTO lake.events VALUES (1, 'click', '2024-05-01 10:00:00+00', '\x00ff', 1), (2, 'view', '2024-05-02 11:30:00.5+00', '', 2),
  (3, NULL, NULL, NULL, NULL), (4, 'buy', '1970-01-01 00:00:00+00', '\xdeadbeef', -3);
