\set d random(0, 1460)
\set disc random(2, 9)
SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem WHERE l_shipdate >= DATE '1993-01-01' + :d AND l_shipdate < DATE '1993-01-01' + :d + 365 AND l_discount BETWEEN (:disc - 1) / 100.0 AND (:disc + 1) / 100.0 AND l_quantity < 24;
