-- setup.sql - the tables every real-client test starts from (psql -f).
-- lake.big: 100,000 rows id 1..100000, v = 2*id, s = 'row' || id, built by a
-- cross join of five 10-row VALUES lists (no generate_series needed).
CREATE SCHEMA lake;
CREATE TABLE lake.big (id bigint, v bigint, s text);
INSERT INTO lake.big
SELECT n + 1, (n + 1) * 2, 'row' || (n + 1)
FROM (SELECT a.x * 10000 + b.x * 1000 + c.x * 100 + d.x * 10 + e.x AS n
      FROM (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) a(x),
           (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) b(x),
           (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) c(x),
           (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) d(x),
           (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) e(x)) q;
