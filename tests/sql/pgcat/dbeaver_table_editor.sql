-- DBeaver (PostgreSQL plugin, over pgJDBC): opening table sales.orders in the object editor (references,
-- inheritance, partitions, policies, DDL), the role editor (members, privileges) and the session manager.
-- Source: github:dbeaver/dbeaver (commit 2428359b) plugins/org.jkiss.dbeaver.ext.postgresql/src/org/jkiss/
-- dbeaver/ext/postgresql/model/: PostgreTable.java (getReferences, initSuperTables, getSubInheritance,
-- partition range, policies), PostgreRole.java (members, table/routine privileges, other objects'
-- privileges through aclexplode), PostgreSequence.java (pg_sequences), session/PostgreSessionManager.java
-- (pg_stat_activity). The statements are DBeaver's text with each ? parameter written as a literal; OID
-- parameters are scalar subqueries resolving the object DBeaver read before (see dbeaver_navigator.sql).
-- Each statement was run on PostgreSQL 15 first. Statements end with ';' at a line end.

SELECT DISTINCT connamespace FROM pg_catalog.pg_constraint WHERE confrelid=(SELECT c0.oid FROM pg_catalog.pg_class c0 JOIN pg_catalog.pg_namespace n0 ON n0.oid=c0.relnamespace WHERE n0.nspname='sales' AND c0.relname='orders');

SELECT i.*,c.relnamespace FROM pg_catalog.pg_inherits i,pg_catalog.pg_class c WHERE i.inhrelid=(SELECT c0.oid FROM pg_catalog.pg_class c0 JOIN pg_catalog.pg_namespace n0 ON n0.oid=c0.relnamespace WHERE n0.nspname='sales' AND c0.relname='orders') AND c.oid=i.inhparent ORDER BY i.inhseqno;

SELECT i.*,c.relnamespace FROM pg_catalog.pg_inherits i,pg_catalog.pg_class c WHERE i.inhparent=(SELECT c0.oid FROM pg_catalog.pg_class c0 JOIN pg_catalog.pg_namespace n0 ON n0.oid=c0.relnamespace WHERE n0.nspname='sales' AND c0.relname='orders') AND c.oid=i.inhrelid;

select pg_get_expr(c.relpartbound, c.oid, true) as partition_range from "pg_catalog".pg_class c where relname = 'orders' and relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname='sales');

select * from pg_catalog.pg_policies where schemaname='sales' and tablename='orders';

SELECT * from pg_catalog.pg_sequences WHERE schemaname='sales' AND sequencename='orders_id_seq';

SELECT * FROM pg_catalog.pg_auth_members WHERE roleid=(SELECT oid FROM pg_catalog.pg_roles WHERE rolname=current_user);

SELECT * FROM pg_catalog.pg_auth_members WHERE member=(SELECT oid FROM pg_catalog.pg_roles WHERE rolname=current_user);

SELECT * FROM information_schema.table_privileges WHERE table_catalog=current_database() AND grantee=current_user;

SELECT * FROM information_schema.routine_privileges WHERE specific_catalog=current_database() AND grantee=current_user;

SELECT * FROM (
	SELECT DISTINCT relnamespace,
	relacl,
	relname,
	relkind,
(aclexplode(relacl)).grantee as granteeI
FROM
	pg_class
WHERE
	relacl IS NOT NULL
	AND relnamespace IN (
SELECT oid
FROM pg_namespace
WHERE nspname NOT LIKE 'pg_%' AND nspname != 'information_schema')
UNION ALL
SELECT DISTINCT
	n.oid AS relnamespace,
	nspacl AS relacl,
	n.nspname AS relname,
	cast('C' as "char") AS relkind,
(aclexplode(nspacl)).grantee as granteeI
FROM
	pg_catalog.pg_namespace n
WHERE
	n.nspacl IS NOT NULL 
	) AS tr
WHERE tr.granteeI=(SELECT oid FROM pg_catalog.pg_roles WHERE rolname=current_user) AND tr.relkind IN('S', 'm', 'C');

SELECT sa.* FROM pg_catalog.pg_stat_activity sa;
