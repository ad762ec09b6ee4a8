\set k random(0, 99)
SELECT count(*), sum(v), min(s), max(id) FROM lake.pt WHERE k = :k;
