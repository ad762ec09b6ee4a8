-- psqlODBC (Debian odbc-postgresql, driver psqlodbcw.so) through unixODBC isql: connect, `help`
-- (SQLTables), `help orders` (SQLColumns), one query; captured from the server log (log_statement=all)
-- of a throwaway PostgreSQL 15 holding schema sales (orders, items, view big). The connect-time
-- multi-statement string is split into its statements. One statement per blank-line-separated block.

SET DateStyle = 'ISO';

SET extra_float_digits = 2;

show transaction_isolation;

select oid, typbasetype from pg_type where typname = 'lo';

select relname, nspname, relkind from pg_catalog.pg_class c, pg_catalog.pg_namespace n where relkind in ('r', 'v', 'm', 'f', 'p') and nspname not in ('pg_catalog', 'information_schema', 'pg_toast', 'pg_temp_1') and n.oid = relnamespace order by nspname, relname;

select current_schema();

select n.nspname, c.relname, a.attname, a.atttypid, t.typname, a.attnum, a.attlen, a.atttypmod, a.attnotnull, c.relhasrules, c.relkind, c.oid, pg_get_expr(d.adbin, d.adrelid), case t.typtype when 'd' then t.typbasetype else 0 end, t.typtypmod, 0, attidentity, c.relhassubclass from (((pg_catalog.pg_class c inner join pg_catalog.pg_namespace n on n.oid = c.relnamespace and c.relname like 'orders' and n.nspname like 'public') inner join pg_catalog.pg_attribute a on (not a.attisdropped) and a.attnum > 0 and a.attrelid = c.oid) inner join pg_catalog.pg_type t on t.oid = a.atttypid) left outer join pg_attrdef d on a.atthasdef and d.adrelid = a.attrelid and d.adnum = a.attnum order by n.nspname, c.relname, attnum;

select count(*) from sales.orders;


