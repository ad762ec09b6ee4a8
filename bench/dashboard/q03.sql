\set seg random(1, 5)
\set d random(0, 30)
SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority FROM customer, orders, lineitem WHERE c_mktsegment = CASE :seg WHEN 1 THEN 'AUTOMOBILE' WHEN 2 THEN 'BUILDING' WHEN 3 THEN 'FURNITURE' WHEN 4 THEN 'HOUSEHOLD' ELSE 'MACHINERY' END AND c_custkey = o_custkey AND l_orderkey = o_orderkey AND o_orderdate < DATE '1995-03-01' + :d AND l_shipdate > DATE '1995-03-01' + :d GROUP BY l_orderkey, o_orderdate, o_shippriority ORDER BY revenue DESC, o_orderdate LIMIT 10;
