-- Apache Superset adding a PostgreSQL database and creating a dataset from sales.orders and sales.big:
-- the SQLAlchemy 1.4 reflection its engine specs call (github:apache/superset
-- superset/db_engine_specs/base.py, postgres.py: schema names, table names with foreign tables, view
-- names with materialized views, columns, primary key, foreign keys, indexes, unique and check
-- constraints, table comment, view definition, default schema, SELECT * ... LIMIT 100), driven by
-- tests/pgclients/capture/superset-reflect.py with Debian's SQLAlchemy 1.4.46 + psycopg2 2.9.5 against
-- a throwaway PostgreSQL 15 holding schema sales (orders, items, view big, table keyed with a primary
-- key); captured from its log (log_statement=all) with tests/pgclients/capture/pglog-extract.py.
-- psycopg2 interpolates parameters on the client, so the statements are as sent. The OIDs in the
-- statements are PostgreSQL's (SQLAlchemy reads them first, then filters by them): on floe they match
-- nothing, which is also what a stale OID gives; the statements must still run. Statements end with
-- ';' at a line end.

SELECT t.oid, typarray
	FROM pg_type t JOIN pg_namespace ns
	    ON typnamespace = ns.oid
	WHERE typname = 'hstore';

select pg_catalog.version();

select current_schema();

show transaction isolation level;

show standard_conforming_strings;

SELECT 1;

SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg_%' ORDER BY nspname;

SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'sales' AND c.relkind in ('r', 'p');

SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'sales' AND c.relkind = 'f';

SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'sales' AND c.relkind IN ('v', 'm');

SELECT c.oid
	            FROM pg_catalog.pg_class c
	            LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	            WHERE (n.nspname = 'sales')
	            AND c.relname = 'orders' AND c.relkind in
	            ('r', 'v', 'm', 'f', 'p');

SELECT a.attname,
	              pg_catalog.format_type(a.atttypid, a.atttypmod),
	              (
	                SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid)
	                FROM pg_catalog.pg_attrdef d
	                WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum
	                AND a.atthasdef
	              ) AS DEFAULT,
	              a.attnotnull,
	              a.attrelid as table_oid,
	              pgd.description as comment,
	              a.attgenerated as generated,
	                              (SELECT json_build_object(
	                    'always', a.attidentity = 'a',
	                    'start', s.seqstart,
	                    'increment', s.seqincrement,
	                    'minvalue', s.seqmin,
	                    'maxvalue', s.seqmax,
	                    'cache', s.seqcache,
	                    'cycle', s.seqcycle)
	                FROM pg_catalog.pg_sequence s
	                JOIN pg_catalog.pg_class c on s.seqrelid = c."oid"
	                WHERE c.relkind = 'S'
	                AND a.attidentity != ''
	                AND s.seqrelid = pg_catalog.pg_get_serial_sequence(
	                    a.attrelid::regclass::text, a.attname
	                )::regclass::oid
	                ) as identity_options                
	            FROM pg_catalog.pg_attribute a
	            LEFT JOIN pg_catalog.pg_description pgd ON (
	                pgd.objoid = a.attrelid AND pgd.objsubid = a.attnum)
	            WHERE a.attrelid = 16385
	            AND a.attnum > 0 AND NOT a.attisdropped
	            ORDER BY a.attnum;

SELECT t.typname as "name",
	               pg_catalog.format_type(t.typbasetype, t.typtypmod) as "attype",
	               not t.typnotnull as "nullable",
	               t.typdefault as "default",
	               pg_catalog.pg_type_is_visible(t.oid) as "visible",
	               n.nspname as "schema"
	            FROM pg_catalog.pg_type t
	               LEFT JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
	            WHERE t.typtype = 'd';

SELECT t.typname as "name",
	               -- no enum defaults in 8.4 at least
	               -- t.typdefault as "default",
	               pg_catalog.pg_type_is_visible(t.oid) as "visible",
	               n.nspname as "schema",
	               e.enumlabel as "label"
	            FROM pg_catalog.pg_type t
	                 LEFT JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
	                 LEFT JOIN pg_catalog.pg_enum e ON t.oid = e.enumtypid
	            WHERE t.typtype = 'e'
	        ORDER BY "schema", "name", e.oid;

SELECT a.attname
	                FROM pg_attribute a JOIN (
	                    SELECT unnest(ix.indkey) attnum,
	                           generate_subscripts(ix.indkey, 1) ord
	                    FROM pg_index ix
	                    WHERE ix.indrelid = 16385 AND ix.indisprimary
	                    ) k ON a.attnum=k.attnum
	                WHERE a.attrelid = 16385
	                ORDER BY k.ord;

SELECT conname
	           FROM  pg_catalog.pg_constraint r
	           WHERE r.conrelid = 16385 AND r.contype = 'p'
	           ORDER BY 1;

SELECT r.conname,
	                pg_catalog.pg_get_constraintdef(r.oid, true) as condef,
	                n.nspname as conschema
	          FROM  pg_catalog.pg_constraint r,
	                pg_namespace n,
	                pg_class c
	
	          WHERE r.conrelid = 16385 AND
	                r.contype = 'f' AND
	                c.oid = confrelid AND
	                n.oid = c.relnamespace
	          ORDER BY 1;

SELECT
	                  i.relname as relname,
	                  ix.indisunique, ix.indexprs,
	                  a.attname, a.attnum, c.conrelid, ix.indkey::varchar,
	                  ix.indoption::varchar, i.reloptions, am.amname,
	                  pg_get_expr(ix.indpred, ix.indrelid),
	                  ix.indnkeyatts as indnkeyatts
	              FROM
	                  pg_class t
	                        join pg_index ix on t.oid = ix.indrelid
	                        join pg_class i on i.oid = ix.indexrelid
	                        left outer join
	                            pg_attribute a
	                            on t.oid = a.attrelid and a.attnum = ANY(ix.indkey)
	                        left outer join
	                            pg_constraint c
	                            on (ix.indrelid = c.conrelid and
	                                ix.indexrelid = c.conindid and
	                                c.contype in ('p', 'u', 'x'))
	                        left outer join
	                            pg_am am
	                            on i.relam = am.oid
	              WHERE
	                  t.relkind IN ('r', 'v', 'f', 'm', 'p')
	                  and t.oid = 16385
	                  and ix.indisprimary = 'f'
	              ORDER BY
	                  t.relname,
	                  i.relname;

SELECT
	                cons.conname as name,
	                cons.conkey as key,
	                a.attnum as col_num,
	                a.attname as col_name
	            FROM
	                pg_catalog.pg_constraint cons
	                join pg_attribute a
	                  on cons.conrelid = a.attrelid AND
	                    a.attnum = ANY(cons.conkey)
	            WHERE
	                cons.conrelid = 16385 AND
	                cons.contype = 'u';

SELECT
	                cons.conname as name,
	                pg_get_constraintdef(cons.oid) as src
	            FROM
	                pg_catalog.pg_constraint cons
	            WHERE
	                cons.conrelid = 16385 AND
	                cons.contype = 'c';

SELECT
	                pgd.description as table_comment
	            FROM
	                pg_catalog.pg_description pgd
	            WHERE
	                pgd.objsubid = 0 AND
	                pgd.objoid = 16385;

SELECT c.oid
	            FROM pg_catalog.pg_class c
	            LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	            WHERE (n.nspname = 'sales')
	            AND c.relname = 'big' AND c.relkind in
	            ('r', 'v', 'm', 'f', 'p');

SELECT a.attname,
	              pg_catalog.format_type(a.atttypid, a.atttypmod),
	              (
	                SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid)
	                FROM pg_catalog.pg_attrdef d
	                WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum
	                AND a.atthasdef
	              ) AS DEFAULT,
	              a.attnotnull,
	              a.attrelid as table_oid,
	              pgd.description as comment,
	              a.attgenerated as generated,
	                              (SELECT json_build_object(
	                    'always', a.attidentity = 'a',
	                    'start', s.seqstart,
	                    'increment', s.seqincrement,
	                    'minvalue', s.seqmin,
	                    'maxvalue', s.seqmax,
	                    'cache', s.seqcache,
	                    'cycle', s.seqcycle)
	                FROM pg_catalog.pg_sequence s
	                JOIN pg_catalog.pg_class c on s.seqrelid = c."oid"
	                WHERE c.relkind = 'S'
	                AND a.attidentity != ''
	                AND s.seqrelid = pg_catalog.pg_get_serial_sequence(
	                    a.attrelid::regclass::text, a.attname
	                )::regclass::oid
	                ) as identity_options                
	            FROM pg_catalog.pg_attribute a
	            LEFT JOIN pg_catalog.pg_description pgd ON (
	                pgd.objoid = a.attrelid AND pgd.objsubid = a.attnum)
	            WHERE a.attrelid = 16395
	            AND a.attnum > 0 AND NOT a.attisdropped
	            ORDER BY a.attnum;

SELECT a.attname
	                FROM pg_attribute a JOIN (
	                    SELECT unnest(ix.indkey) attnum,
	                           generate_subscripts(ix.indkey, 1) ord
	                    FROM pg_index ix
	                    WHERE ix.indrelid = 16395 AND ix.indisprimary
	                    ) k ON a.attnum=k.attnum
	                WHERE a.attrelid = 16395
	                ORDER BY k.ord;

SELECT conname
	           FROM  pg_catalog.pg_constraint r
	           WHERE r.conrelid = 16395 AND r.contype = 'p'
	           ORDER BY 1;

SELECT r.conname,
	                pg_catalog.pg_get_constraintdef(r.oid, true) as condef,
	                n.nspname as conschema
	          FROM  pg_catalog.pg_constraint r,
	                pg_namespace n,
	                pg_class c
	
	          WHERE r.conrelid = 16395 AND
	                r.contype = 'f' AND
	                c.oid = confrelid AND
	                n.oid = c.relnamespace
	          ORDER BY 1;

SELECT
	                  i.relname as relname,
	                  ix.indisunique, ix.indexprs,
	                  a.attname, a.attnum, c.conrelid, ix.indkey::varchar,
	                  ix.indoption::varchar, i.reloptions, am.amname,
	                  pg_get_expr(ix.indpred, ix.indrelid),
	                  ix.indnkeyatts as indnkeyatts
	              FROM
	                  pg_class t
	                        join pg_index ix on t.oid = ix.indrelid
	                        join pg_class i on i.oid = ix.indexrelid
	                        left outer join
	                            pg_attribute a
	                            on t.oid = a.attrelid and a.attnum = ANY(ix.indkey)
	                        left outer join
	                            pg_constraint c
	                            on (ix.indrelid = c.conrelid and
	                                ix.indexrelid = c.conindid and
	                                c.contype in ('p', 'u', 'x'))
	                        left outer join
	                            pg_am am
	                            on i.relam = am.oid
	              WHERE
	                  t.relkind IN ('r', 'v', 'f', 'm', 'p')
	                  and t.oid = 16395
	                  and ix.indisprimary = 'f'
	              ORDER BY
	                  t.relname,
	                  i.relname;

SELECT
	                cons.conname as name,
	                cons.conkey as key,
	                a.attnum as col_num,
	                a.attname as col_name
	            FROM
	                pg_catalog.pg_constraint cons
	                join pg_attribute a
	                  on cons.conrelid = a.attrelid AND
	                    a.attnum = ANY(cons.conkey)
	            WHERE
	                cons.conrelid = 16395 AND
	                cons.contype = 'u';

SELECT
	                cons.conname as name,
	                pg_get_constraintdef(cons.oid) as src
	            FROM
	                pg_catalog.pg_constraint cons
	            WHERE
	                cons.conrelid = 16395 AND
	                cons.contype = 'c';

SELECT
	                pgd.description as table_comment
	            FROM
	                pg_catalog.pg_description pgd
	            WHERE
	                pgd.objsubid = 0 AND
	                pgd.objoid = 16395;

SELECT pg_get_viewdef(c.oid) view_def FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'sales' AND c.relname = 'big' AND c.relkind IN ('v', 'm');

SELECT * FROM sales.orders LIMIT 100;

