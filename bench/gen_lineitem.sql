-- gen_lineitem.sql: a deterministic TPC-H-lineitem-shaped table for bench/run.sh (DuckDB SQL).
-- ${ROWS} and ${OUT} are substituted by run.sh. Values come from DuckDB's hash() of the row number, so every run
-- produces the same bytes. Rows are ordered by l_shipdate (it grows with the row number), so row-group min/max
-- statistics on l_shipdate let a date-range filter skip most row groups.
create table lineitem as
select
  (i // 4 + 1)::bigint                                                        as l_orderkey,
  (hash(i * 16 + 1) % 200000 + 1)::bigint                                     as l_partkey,
  (hash(i * 16 + 2) % 10000 + 1)::bigint                                      as l_suppkey,
  (i % 4 + 1)::int                                                            as l_linenumber,
  ((hash(i * 16 + 3) % 50) + 1)::decimal(15,2)                                as l_quantity,
  ((hash(i * 16 + 4) % 10000000) / 100)::decimal(15,2)                        as l_extendedprice,
  ((hash(i * 16 + 5) % 11) / 100)::decimal(15,2)                              as l_discount,
  ((hash(i * 16 + 6) % 9) / 100)::decimal(15,2)                               as l_tax,
  (['A', 'N', 'R'])[(hash(i * 16 + 7) % 3 + 1)::bigint]                                 as l_returnflag,
  (['O', 'F'])[(hash(i * 16 + 8) % 2 + 1)::bigint]                                      as l_linestatus,
  (date '1992-01-02' + (i * 2526 // ${ROWS})::int)                            as l_shipdate,
  (date '1992-01-02' + (i * 2526 // ${ROWS})::int + (hash(i * 16 + 9) % 61)::int - 30)  as l_commitdate,
  (date '1992-01-02' + (i * 2526 // ${ROWS})::int + (hash(i * 16 + 10) % 30)::int + 1)  as l_receiptdate,
  (['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])[(hash(i * 16 + 11) % 4 + 1)::bigint] as l_shipinstruct,
  (['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'])[(hash(i * 16 + 12) % 7 + 1)::bigint]       as l_shipmode,
  concat_ws(' ',
    (['furiously', 'carefully', 'quickly', 'slyly', 'blithely', 'final', 'ironic', 'regular'])[(hash(i * 16 + 13) % 8 + 1)::bigint],
    (['express', 'pending', 'bold', 'even', 'special', 'silent', 'unusual', 'idle'])[(hash(i * 16 + 14) % 8 + 1)::bigint],
    (['deposits', 'requests', 'accounts', 'packages', 'theodolites', 'foxes', 'pinto beans', 'instructions'])[(hash(i * 16 + 15) % 8 + 1)::bigint],
    case when hash(i) % 3 = 0 then 'sleep' when hash(i) % 3 = 1 then 'haggle about the' else 'nag' end,
    (['dependencies', 'platelets', 'asymptotes', 'courts', 'dolphins', 'multipliers', 'sauternes', 'warthogs'])[(hash(i * 17) % 8 + 1)::bigint]
  )                                                                           as l_comment
from range(${ROWS}) t(i);
copy lineitem to '${OUT}/lineitem.csv' (header true);
copy lineitem to '${OUT}/lineitem.parquet' (format parquet, compression zstd, row_group_size 122880);
select count(*) as rows from lineitem;
