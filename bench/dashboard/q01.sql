\set delta random(60, 120)
SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice), sum(l_extendedprice * (1 - l_discount)), avg(l_discount), count(*) FROM lineitem WHERE l_shipdate <= DATE '1998-12-01' - :delta GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus;
