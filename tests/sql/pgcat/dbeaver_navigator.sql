-- DBeaver (PostgreSQL plugin, over pgJDBC): connect, the database navigator (databases, schemas, data
-- types, roles, access methods, encodings, collations, languages, tablespaces, extensions, event
-- triggers), expanding schema sales (tables, inheritance, columns, constraints, indexes, statistics,
-- procedures, triggers, rules, view DDL) and opening table orders (data and row count). Source:
-- github:dbeaver/dbeaver (commit 2428359b) plugins/org.jkiss.dbeaver.ext.postgresql/src/org/jkiss/dbeaver/
-- ext/postgresql/model/: PostgreDataSource.java (version, database list, pg_settings),
-- PostgreExecutionContext.java (current_schema/session_user, search_path), PostgreDatabase.java
-- (database, roles, pg_am, encodings, collations, languages, FDWs, servers, tablespaces, extensions,
-- available extensions, event triggers, schemas, data types incl. the typcategory probe of
-- PostgreUtils.getQueryForSystemColumnChecking), PostgreSchema.java (TableCache, table columns,
-- ConstraintCache, IndexCache, ProceduresCache, statistics, inheritance, pg_default_acl),
-- PostgreTableReal.java (relation size, triggers, rules), PostgreViewBase.java (pg_get_viewdef),
-- PostgreUtils.java (descriptions). The statements are DBeaver's text with each ? parameter written
-- as a literal; the OID parameters (schema, table, database OIDs DBeaver read earlier) are written as
-- scalar subqueries resolving the same object, so the statements find rows on floe and on PostgreSQL
-- alike. Each statement was run on PostgreSQL 15 first. Statements end with ';' at a line end.
-- Left out: pgagent.pga_job / pga_jobclass (DBeaver reads them only when the pgagent extension exists).

SET extra_float_digits = 3;

SET application_name = 'DBeaver 24.3.0 - Main <postgres>';

SELECT version();

SELECT db.oid,db.* FROM pg_catalog.pg_database db WHERE 1 = 1 AND datallowconn AND NOT datistemplate OR db.datname ='floe'
ORDER BY db.datname;

SELECT current_database();

SELECT current_schema(),session_user;

SHOW search_path;

select * from pg_catalog.pg_settings where name='standard_conforming_strings';

SELECT db.oid,db.* FROM pg_catalog.pg_database db WHERE datname='floe';

select description from pg_shdescription join pg_database on objoid = pg_database.oid where datname = 'floe';

SELECT n.oid,n.*,d.description FROM pg_catalog.pg_namespace n
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=n.oid AND d.objsubid=0 AND d.classoid='pg_namespace'::regclass
 ORDER BY nspname;

SELECT n.oid,n.*,d.description FROM pg_catalog.pg_namespace n
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=n.oid AND d.objsubid=0 AND d.classoid='pg_namespace'::regclass
 WHERE nspname='sales' ORDER BY nspname;

SELECT typcategory FROM pg_catalog.pg_type WHERE 1<>1 LIMIT 1;

SELECT t.oid,t.*,c.relkind,format_type(nullif(t.typbasetype, 0), t.typtypmod) as base_type_name, d.description
FROM pg_catalog.pg_type t
LEFT OUTER JOIN pg_catalog.pg_type et ON et.oid=t.typelem 
LEFT OUTER JOIN pg_catalog.pg_class c ON c.oid=t.typrelid
LEFT OUTER JOIN pg_catalog.pg_description d ON t.oid=d.objoid
WHERE t.typname IS NOT NULL
AND (c.relkind IS NULL OR c.relkind = 'c') AND (et.typcategory IS NULL OR et.typcategory <> 'C');

SELECT t.oid,t.*,c.relkind,format_type(nullif(t.typbasetype, 0), t.typtypmod) as base_type_name, d.description
FROM pg_catalog.pg_type t
LEFT OUTER JOIN pg_catalog.pg_type et ON et.oid=t.typelem 
LEFT OUTER JOIN pg_catalog.pg_class c ON c.oid=t.typrelid
LEFT OUTER JOIN pg_catalog.pg_description d ON t.oid=d.objoid
WHERE t.typname IS NOT NULL
AND (c.relkind IS NULL OR c.relkind = 'c') AND (et.typcategory IS NULL OR et.typcategory <> 'C')
AND t.typnamespace=(SELECT oid FROM pg_catalog.pg_namespace WHERE nspname='sales') ;

SELECT t.oid,t.*,c.relkind,format_type(nullif(t.typbasetype, 0), t.typtypmod) as base_type_name FROM pg_catalog.pg_type t
LEFT OUTER JOIN pg_class c ON c.oid=t.typrelid
LEFT OUTER JOIN pg_catalog.pg_description d ON t.oid=d.objoid
WHERE t.oid=1700 ;

SELECT t.oid,t.*,format_type(nullif(t.typbasetype, 0), t.typtypmod) as base_type_name FROM pg_catalog.pg_type t
LEFT OUTER JOIN pg_class c ON c.oid=t.typrelid
LEFT OUTER JOIN pg_catalog.pg_description d ON t.oid=d.objoid
WHERE t.typname='timestamptz' ;

SELECT a.oid,a.*,pd.description FROM pg_catalog.pg_roles a 
left join pg_catalog.pg_shdescription pd on a.oid = pd.objoid
ORDER BY a.rolname;

SELECT am.oid,am.* FROM pg_catalog.pg_am am 
ORDER BY am.oid;

SELECT c.contoencoding as encid,pg_catalog.pg_encoding_to_char(c.contoencoding) as encname
FROM pg_catalog.pg_conversion c
GROUP BY c.contoencoding
ORDER BY 2
;

SELECT c.oid,c.* FROM pg_catalog.pg_collation c 
ORDER BY c.oid;

SELECT l.oid,l.* FROM pg_catalog.pg_language l 
ORDER BY l.oid;

SELECT l.oid,l.*,p.pronamespace as handler_schema_id 
FROM pg_catalog.pg_foreign_data_wrapper l
LEFT OUTER JOIN pg_catalog.pg_proc p ON p.oid=l.fdwhandler 
ORDER BY l.fdwname;

SELECT l.oid,l.* FROM pg_catalog.pg_foreign_server l
ORDER BY l.srvname;

SELECT t.oid,t.*,pg_tablespace_location(t.oid) loc
FROM pg_catalog.pg_tablespace t 
ORDER BY t.oid;

SELECT 
 e.oid,
 cfg.tbls,
  n.nspname as schema_name,
 e.* 
FROM 
 pg_catalog.pg_extension e 
 join pg_namespace n on n.oid =e.extnamespace
 left join  (
         select
            ARRAY_AGG(ns.nspname || '.' ||  cls.relname) tbls, oid_ext
          from
            (
            select
                unnest(e1.extconfig) oid , e1.oid oid_ext
            from
                pg_catalog.pg_extension e1 ) c 
                join    pg_class cls on cls.oid = c.oid 
                join pg_namespace ns on ns.oid = cls.relnamespace
            group by oid_ext        
         ) cfg on cfg.oid_ext = e.oid
ORDER BY e.oid;

SELECT name,default_version,installed_version,comment FROM pg_catalog.pg_available_extensions ORDER BY name;

SELECT pet.*, d.description FROM pg_catalog.pg_event_trigger pet
LEFT OUTER JOIN pg_catalog.pg_description d ON pet."oid" = d.objoid;

SELECT db.datname,pg_database_size(db.oid) FROM pg_catalog.pg_database db WHERE db.oid=(SELECT oid FROM pg_catalog.pg_database WHERE datname=current_database());

SELECT s.oid as schema_id
from pg_catalog.pg_namespace s
WHERE s.nspname ='sales';

SELECT c.oid,c.*,d.description,pg_catalog.pg_get_expr(c.relpartbound, c.oid) as partition_expr,  pg_catalog.pg_get_partkeydef(c.oid) as partition_key 
FROM pg_catalog.pg_class c
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_class'::regclass
WHERE c.relnamespace=(SELECT oid FROM pg_catalog.pg_namespace WHERE nspname='sales') AND c.relkind not in ('i','I','c');

SELECT c.oid,c.*,d.description,pg_catalog.pg_get_expr(c.relpartbound, c.oid) as partition_expr,  pg_catalog.pg_get_partkeydef(c.oid) as partition_key 
FROM pg_catalog.pg_class c
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_class'::regclass
WHERE c.relnamespace=(SELECT oid FROM pg_catalog.pg_namespace WHERE nspname='sales') AND c.relkind not in ('i','I','c') AND relname='orders';

SELECT i.inhrelid relid, pc.relnamespace parent_ns, pc.oid parent_oid, i.inhseqno
FROM pg_catalog.pg_inherits i, pg_class rc, pg_class pc
WHERE rc.oid=i.inhrelid AND rc.relnamespace=(SELECT oid FROM pg_catalog.pg_namespace WHERE nspname='sales') AND pc.oid=i.inhparent;

SELECT c.relname,a.*,pg_catalog.pg_get_expr(ad.adbin, ad.adrelid, true) as def_value,dsc.description,dep.objid
FROM pg_catalog.pg_attribute a
INNER JOIN pg_catalog.pg_class c ON (a.attrelid=c.oid)
LEFT OUTER JOIN pg_catalog.pg_attrdef ad ON (a.attrelid=ad.adrelid AND a.attnum = ad.adnum)
LEFT OUTER JOIN pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid)
LEFT OUTER JOIN pg_depend dep on dep.refobjid = a.attrelid AND dep.deptype = 'i' and dep.refobjsubid = a.attnum and dep.classid = dep.refclassid
WHERE NOT a.attisdropped AND c.relkind not in ('i','I','c') AND c.relnamespace=(SELECT oid FROM pg_catalog.pg_namespace WHERE nspname='sales')
ORDER BY a.attnum;

SELECT c.relname,a.*,pg_catalog.pg_get_expr(ad.adbin, ad.adrelid, true) as def_value,dsc.description,dep.objid
FROM pg_catalog.pg_attribute a
INNER JOIN pg_catalog.pg_class c ON (a.attrelid=c.oid)
LEFT OUTER JOIN pg_catalog.pg_attrdef ad ON (a.attrelid=ad.adrelid AND a.attnum = ad.adnum)
LEFT OUTER JOIN pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid)
LEFT OUTER JOIN pg_depend dep on dep.refobjid = a.attrelid AND dep.deptype = 'i' and dep.refobjsubid = a.attnum and dep.classid = dep.refclassid
WHERE NOT a.attisdropped AND c.relkind not in ('i','I','c') AND c.oid=(SELECT c0.oid FROM pg_catalog.pg_class c0 JOIN pg_catalog.pg_namespace n0 ON n0.oid=c0.relnamespace WHERE n0.nspname='sales' AND c0.relname='orders')
ORDER BY a.attnum;

SELECT c.oid,c.*,t.relname as tabrelname,rt.relnamespace as refnamespace,d.description, case when c.contype='c' then "substring"(pg_get_constraintdef(c.oid), 7) else null end consrc_copy
FROM pg_catalog.pg_constraint c
INNER JOIN pg_catalog.pg_class t ON t.oid=c.conrelid
LEFT OUTER JOIN pg_catalog.pg_class rt ON rt.oid=c.confrelid
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_constraint'::regclass
WHERE t.relnamespace=(SELECT oid FROM pg_catalog.pg_namespace WHERE nspname='sales')
ORDER BY c.oid;

SELECT c.oid,c.*,t.relname as tabrelname,rt.relnamespace as refnamespace,d.description, case when c.contype='c' then "substring"(pg_get_constraintdef(c.oid), 7) else null end consrc_copy
FROM pg_catalog.pg_constraint c
INNER JOIN pg_catalog.pg_class t ON t.oid=c.conrelid
LEFT OUTER JOIN pg_catalog.pg_class rt ON rt.oid=c.confrelid
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_constraint'::regclass
WHERE c.conrelid=(SELECT c0.oid FROM pg_catalog.pg_class c0 JOIN pg_catalog.pg_namespace n0 ON n0.oid=c0.relnamespace WHERE n0.nspname='sales' AND c0.relname='orders')
ORDER BY c.oid;

SELECT i.*,i.indkey as keys,c.relname,c.relnamespace,c.relam,c.reltablespace,tc.relname as tabrelname,dsc.description,pg_catalog.pg_get_expr(i.indpred, i.indrelid) as pred_expr,pg_catalog.pg_get_expr(i.indexprs, i.indrelid, true) as expr,pg_catalog.pg_relation_size(i.indexrelid) as index_rel_size,pg_catalog.pg_stat_get_numscans(i.indexrelid) as index_num_scans
FROM pg_catalog.pg_index i
INNER JOIN pg_catalog.pg_class c ON c.oid=i.indexrelid
INNER JOIN pg_catalog.pg_class tc ON tc.oid=i.indrelid
LEFT OUTER JOIN pg_catalog.pg_description dsc ON i.indexrelid=dsc.objoid
WHERE  c.relnamespace=(SELECT oid FROM pg_catalog.pg_namespace WHERE nspname='sales') ORDER BY c.relname;

SELECT i.*,i.indkey as keys,c.relname,c.relnamespace,c.relam,c.reltablespace,tc.relname as tabrelname,dsc.description,pg_catalog.pg_get_expr(i.indpred, i.indrelid) as pred_expr,pg_catalog.pg_get_expr(i.indexprs, i.indrelid, true) as expr,pg_catalog.pg_relation_size(i.indexrelid) as index_rel_size,pg_catalog.pg_stat_get_numscans(i.indexrelid) as index_num_scans
FROM pg_catalog.pg_index i
INNER JOIN pg_catalog.pg_class c ON c.oid=i.indexrelid
INNER JOIN pg_catalog.pg_class tc ON tc.oid=i.indrelid
LEFT OUTER JOIN pg_catalog.pg_description dsc ON i.indexrelid=dsc.objoid
WHERE  i.indrelid=(SELECT c0.oid FROM pg_catalog.pg_class c0 JOIN pg_catalog.pg_namespace n0 ON n0.oid=c0.relnamespace WHERE n0.nspname='sales' AND c0.relname='orders') ORDER BY c.relname;

select c.oid,pg_catalog.pg_total_relation_size(c.oid) as total_rel_size,pg_catalog.pg_relation_size(c.oid) as rel_size
FROM pg_class c
WHERE c.relnamespace=(SELECT oid FROM pg_catalog.pg_namespace WHERE nspname='sales');

select pg_catalog.pg_total_relation_size((SELECT c0.oid FROM pg_catalog.pg_class c0 JOIN pg_catalog.pg_namespace n0 ON n0.oid=c0.relnamespace WHERE n0.nspname='sales' AND c0.relname='orders')) as total_rel_size,pg_catalog.pg_relation_size((SELECT c0.oid FROM pg_catalog.pg_class c0 JOIN pg_catalog.pg_namespace n0 ON n0.oid=c0.relnamespace WHERE n0.nspname='sales' AND c0.relname='orders')) as rel_size;

SELECT * FROM pg_default_acl WHERE defaclnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname='sales');

SELECT p.oid as poid,p.*,pg_catalog.pg_get_expr(p.proargdefaults, 0) as arg_defaults,d.description
FROM pg_catalog.pg_proc p
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=p.oid and d.classoid='pg_proc'::regclass  AND d.objsubid = 0
WHERE p.pronamespace=(SELECT oid FROM pg_catalog.pg_namespace WHERE nspname='sales')
ORDER BY p.proname;

SELECT p.oid AS proc_oid,p.proname AS proc_name,a.*
FROM pg_catalog.pg_aggregate a,pg_catalog.pg_proc p
WHERE p.oid=a.aggfnoid AND p.pronamespace=(SELECT oid FROM pg_catalog.pg_namespace WHERE nspname='sales')
ORDER BY p.proname;

SELECT x.oid,x.*,p.pronamespace as func_schema_id,d.description
FROM pg_catalog.pg_trigger x
LEFT OUTER JOIN pg_catalog.pg_proc p ON p.oid=x.tgfoid 
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=x.oid AND d.objsubid=0 
WHERE x.tgrelid = (SELECT c0.oid FROM pg_catalog.pg_class c0 JOIN pg_catalog.pg_namespace n0 ON n0.oid=c0.relnamespace WHERE n0.nspname='sales' AND c0.relname='orders') AND NOT x.tgisinternal;

SELECT r.oid,r.*, pg_get_ruledef(r.oid) AS definition
FROM pg_rewrite r
WHERE r.ev_class=(SELECT c0.oid FROM pg_catalog.pg_class c0 JOIN pg_catalog.pg_namespace n0 ON n0.oid=c0.relnamespace WHERE n0.nspname='sales' AND c0.relname='orders') AND r.rulename <> '_RETURN'::name;

select description from pg_catalog.pg_description
join pg_catalog.pg_class on pg_description.objoid = pg_class.oid
join pg_catalog.pg_namespace on pg_class.relnamespace = pg_namespace.oid
where pg_class.relname = 'orders' and pg_namespace.nspname='sales';

SELECT pg_get_viewdef((SELECT c0.oid FROM pg_catalog.pg_class c0 JOIN pg_catalog.pg_namespace n0 ON n0.oid=c0.relnamespace WHERE n0.nspname='sales' AND c0.relname='big'), true);

SELECT * FROM sales.orders;

SELECT COUNT(*) FROM sales.orders;

SELECT * FROM sales.big;
