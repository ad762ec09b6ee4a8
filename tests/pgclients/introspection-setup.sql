-- introspection-setup.sql - the objects the introspection client tests (test_pg_client_bitools.sh)
-- browse, on floe and on PostgreSQL 15 alike: the replay schema of
-- tests/sql/pgcat/ (sales.orders, sales.items, view sales.big) and a table with a primary key. items.sku
-- is text here (varchar in the replay): Iceberg strings have no length, so floe reports every string
-- column as text, and the comparison is about the metadata calls, not that mapping.
CREATE SCHEMA sales;
CREATE TABLE sales.orders (id bigint NOT NULL, customer text, amount decimal(12,2), placed timestamptz);
CREATE TABLE sales.items (order_id bigint, sku text, qty int, price double precision);
INSERT INTO sales.orders VALUES (1, 'ann', 150.25, TIMESTAMPTZ '2024-01-02 03:04:05Z');
CREATE VIEW sales.big AS SELECT id, amount FROM sales.orders WHERE amount > 100;
CREATE TABLE sales.keyed (id bigint PRIMARY KEY, note text);
