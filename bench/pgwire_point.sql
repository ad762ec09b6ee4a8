\set id random(1, 100000)
SELECT id, k, v, s FROM lake.pt WHERE id = :id;
