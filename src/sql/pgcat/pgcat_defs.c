/*
 * pgcat_defs.c - the catalog relations floe provides and their columns,
 * exactly as PostgreSQL 15 declares them (names and types read from a
 * PostgreSQL 15 server's pg_attribute; information_schema's domains are
 * given as their base types: sql_identifier -> name, cardinal_number ->
 * int4, character_data / yes_or_no -> varchar, time_stamp -> timestamptz).
 * Relations floe has no content for are present with no rows.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/pgcat/pgcat.h"

static const fl_pgcat_def defs[] = {
    {"information_schema", "applicable_roles", 0, 'v',
     "grantee:name role_name:name is_grantable:varchar"},
    {"information_schema", "attributes", 0, 'v',
     "udt_catalog:name udt_schema:name udt_name:name attribute_name:name ordinal_position:int4 "
     "attribute_default:varchar is_nullable:varchar data_type:varchar "
     "character_maximum_length:int4 character_octet_length:int4 character_set_catalog:name "
     "character_set_schema:name character_set_name:name collation_catalog:name "
     "collation_schema:name collation_name:name numeric_precision:int4 "
     "numeric_precision_radix:int4 numeric_scale:int4 datetime_precision:int4 "
     "interval_type:varchar interval_precision:int4 attribute_udt_catalog:name "
     "attribute_udt_schema:name attribute_udt_name:name scope_catalog:name scope_schema:name "
     "scope_name:name maximum_cardinality:int4 dtd_identifier:name "
     "is_derived_reference_attribute:varchar"},
    {"information_schema", "character_sets", 0, 'v',
     "character_set_catalog:name character_set_schema:name character_set_name:name "
     "character_repertoire:name form_of_use:name default_collate_catalog:name "
     "default_collate_schema:name default_collate_name:name"},
    {"information_schema", "check_constraints", 0, 'v',
     "constraint_catalog:name constraint_schema:name constraint_name:name check_clause:varchar"},
    {"information_schema", "collations", 0, 'v',
     "collation_catalog:name collation_schema:name collation_name:name pad_attribute:varchar"},
    {"information_schema", "column_privileges", 0, 'v',
     "grantor:name grantee:name table_catalog:name table_schema:name table_name:name "
     "column_name:name privilege_type:varchar is_grantable:varchar"},
    {"information_schema", "columns", 0, 'v',
     "table_catalog:name table_schema:name table_name:name column_name:name "
     "ordinal_position:int4 column_default:varchar is_nullable:varchar data_type:varchar "
     "character_maximum_length:int4 character_octet_length:int4 numeric_precision:int4 "
     "numeric_precision_radix:int4 numeric_scale:int4 datetime_precision:int4 "
     "interval_type:varchar interval_precision:int4 character_set_catalog:name "
     "character_set_schema:name character_set_name:name collation_catalog:name "
     "collation_schema:name collation_name:name domain_catalog:name domain_schema:name "
     "domain_name:name udt_catalog:name udt_schema:name udt_name:name scope_catalog:name "
     "scope_schema:name scope_name:name maximum_cardinality:int4 dtd_identifier:name "
     "is_self_referencing:varchar is_identity:varchar identity_generation:varchar "
     "identity_start:varchar identity_increment:varchar identity_maximum:varchar "
     "identity_minimum:varchar identity_cycle:varchar is_generated:varchar "
     "generation_expression:varchar is_updatable:varchar"},
    {"information_schema", "constraint_column_usage", 0, 'v',
     "table_catalog:name table_schema:name table_name:name column_name:name "
     "constraint_catalog:name constraint_schema:name constraint_name:name"},
    {"information_schema", "domains", 0, 'v',
     "domain_catalog:name domain_schema:name domain_name:name data_type:varchar "
     "character_maximum_length:int4 character_octet_length:int4 character_set_catalog:name "
     "character_set_schema:name character_set_name:name collation_catalog:name "
     "collation_schema:name collation_name:name numeric_precision:int4 "
     "numeric_precision_radix:int4 numeric_scale:int4 datetime_precision:int4 "
     "interval_type:varchar interval_precision:int4 domain_default:varchar udt_catalog:name "
     "udt_schema:name udt_name:name scope_catalog:name scope_schema:name scope_name:name "
     "maximum_cardinality:int4 dtd_identifier:name"},
    {"information_schema", "element_types", 0, 'v',
     "object_catalog:name object_schema:name object_name:name object_type:varchar "
     "collection_type_identifier:name data_type:varchar character_maximum_length:int4 "
     "character_octet_length:int4 character_set_catalog:name character_set_schema:name "
     "character_set_name:name collation_catalog:name collation_schema:name collation_name:name "
     "numeric_precision:int4 numeric_precision_radix:int4 numeric_scale:int4 "
     "datetime_precision:int4 interval_type:varchar interval_precision:int4 "
     "domain_default:varchar udt_catalog:name udt_schema:name udt_name:name scope_catalog:name "
     "scope_schema:name scope_name:name maximum_cardinality:int4 dtd_identifier:name"},
    {"information_schema", "enabled_roles", 0, 'v',
     "role_name:name"},
    {"information_schema", "information_schema_catalog_name", 0, 'v',
     "catalog_name:name"},
    {"information_schema", "key_column_usage", 0, 'v',
     "constraint_catalog:name constraint_schema:name constraint_name:name table_catalog:name "
     "table_schema:name table_name:name column_name:name ordinal_position:int4 "
     "position_in_unique_constraint:int4"},
    {"information_schema", "parameters", 0, 'v',
     "specific_catalog:name specific_schema:name specific_name:name ordinal_position:int4 "
     "parameter_mode:varchar is_result:varchar as_locator:varchar parameter_name:name "
     "data_type:varchar character_maximum_length:int4 character_octet_length:int4 "
     "character_set_catalog:name character_set_schema:name character_set_name:name "
     "collation_catalog:name collation_schema:name collation_name:name numeric_precision:int4 "
     "numeric_precision_radix:int4 numeric_scale:int4 datetime_precision:int4 "
     "interval_type:varchar interval_precision:int4 udt_catalog:name udt_schema:name "
     "udt_name:name scope_catalog:name scope_schema:name scope_name:name "
     "maximum_cardinality:int4 dtd_identifier:name parameter_default:varchar"},
    {"information_schema", "referential_constraints", 0, 'v',
     "constraint_catalog:name constraint_schema:name constraint_name:name "
     "unique_constraint_catalog:name unique_constraint_schema:name unique_constraint_name:name "
     "match_option:varchar update_rule:varchar delete_rule:varchar"},
    {"information_schema", "role_table_grants", 0, 'v',
     "grantor:name grantee:name table_catalog:name table_schema:name table_name:name "
     "privilege_type:varchar is_grantable:varchar with_hierarchy:varchar"},
    {"information_schema", "routines", 0, 'v',
     "specific_catalog:name specific_schema:name specific_name:name routine_catalog:name "
     "routine_schema:name routine_name:name routine_type:varchar module_catalog:name "
     "module_schema:name module_name:name udt_catalog:name udt_schema:name udt_name:name "
     "data_type:varchar character_maximum_length:int4 character_octet_length:int4 "
     "character_set_catalog:name character_set_schema:name character_set_name:name "
     "collation_catalog:name collation_schema:name collation_name:name numeric_precision:int4 "
     "numeric_precision_radix:int4 numeric_scale:int4 datetime_precision:int4 "
     "interval_type:varchar interval_precision:int4 type_udt_catalog:name type_udt_schema:name "
     "type_udt_name:name scope_catalog:name scope_schema:name scope_name:name "
     "maximum_cardinality:int4 dtd_identifier:name routine_body:varchar "
     "routine_definition:varchar external_name:varchar external_language:varchar "
     "parameter_style:varchar is_deterministic:varchar sql_data_access:varchar "
     "is_null_call:varchar sql_path:varchar schema_level_routine:varchar "
     "max_dynamic_result_sets:int4 is_user_defined_cast:varchar "
     "is_implicitly_invocable:varchar security_type:varchar to_sql_specific_catalog:name "
     "to_sql_specific_schema:name to_sql_specific_name:name as_locator:varchar "
     "created:timestamptz last_altered:timestamptz new_savepoint_level:varchar "
     "is_udt_dependent:varchar result_cast_from_data_type:varchar "
     "result_cast_as_locator:varchar result_cast_char_max_length:int4 "
     "result_cast_char_octet_length:int4 result_cast_char_set_catalog:name "
     "result_cast_char_set_schema:name result_cast_char_set_name:name "
     "result_cast_collation_catalog:name result_cast_collation_schema:name "
     "result_cast_collation_name:name result_cast_numeric_precision:int4 "
     "result_cast_numeric_precision_radix:int4 result_cast_numeric_scale:int4 "
     "result_cast_datetime_precision:int4 result_cast_interval_type:varchar "
     "result_cast_interval_precision:int4 result_cast_type_udt_catalog:name "
     "result_cast_type_udt_schema:name result_cast_type_udt_name:name "
     "result_cast_scope_catalog:name result_cast_scope_schema:name result_cast_scope_name:name "
     "result_cast_maximum_cardinality:int4 result_cast_dtd_identifier:name"},
    {"information_schema", "schemata", 0, 'v',
     "catalog_name:name schema_name:name schema_owner:name default_character_set_catalog:name "
     "default_character_set_schema:name default_character_set_name:name sql_path:varchar"},
    {"information_schema", "sequences", 0, 'v',
     "sequence_catalog:name sequence_schema:name sequence_name:name data_type:varchar "
     "numeric_precision:int4 numeric_precision_radix:int4 numeric_scale:int4 "
     "start_value:varchar minimum_value:varchar maximum_value:varchar increment:varchar "
     "cycle_option:varchar"},
    {"information_schema", "table_constraints", 0, 'v',
     "constraint_catalog:name constraint_schema:name constraint_name:name table_catalog:name "
     "table_schema:name table_name:name constraint_type:varchar is_deferrable:varchar "
     "initially_deferred:varchar enforced:varchar nulls_distinct:varchar"},
    {"information_schema", "table_privileges", 0, 'v',
     "grantor:name grantee:name table_catalog:name table_schema:name table_name:name "
     "privilege_type:varchar is_grantable:varchar with_hierarchy:varchar"},
    {"information_schema", "tables", 0, 'v',
     "table_catalog:name table_schema:name table_name:name table_type:varchar "
     "self_referencing_column_name:name reference_generation:varchar "
     "user_defined_type_catalog:name user_defined_type_schema:name user_defined_type_name:name "
     "is_insertable_into:varchar is_typed:varchar commit_action:varchar"},
    {"information_schema", "triggers", 0, 'v',
     "trigger_catalog:name trigger_schema:name trigger_name:name event_manipulation:varchar "
     "event_object_catalog:name event_object_schema:name event_object_table:name "
     "action_order:int4 action_condition:varchar action_statement:varchar "
     "action_orientation:varchar action_timing:varchar action_reference_old_table:name "
     "action_reference_new_table:name action_reference_old_row:name "
     "action_reference_new_row:name created:timestamptz"},
    {"information_schema", "usage_privileges", 0, 'v',
     "grantor:name grantee:name object_catalog:name object_schema:name object_name:name "
     "object_type:varchar privilege_type:varchar is_grantable:varchar"},
    {"information_schema", "user_defined_types", 0, 'v',
     "user_defined_type_catalog:name user_defined_type_schema:name user_defined_type_name:name "
     "user_defined_type_category:varchar is_instantiable:varchar is_final:varchar "
     "ordering_form:varchar ordering_category:varchar ordering_routine_catalog:name "
     "ordering_routine_schema:name ordering_routine_name:name reference_type:varchar "
     "data_type:varchar character_maximum_length:int4 character_octet_length:int4 "
     "character_set_catalog:name character_set_schema:name character_set_name:name "
     "collation_catalog:name collation_schema:name collation_name:name numeric_precision:int4 "
     "numeric_precision_radix:int4 numeric_scale:int4 datetime_precision:int4 "
     "interval_type:varchar interval_precision:int4 source_dtd_identifier:name "
     "ref_dtd_identifier:name"},
    {"information_schema", "views", 0, 'v',
     "table_catalog:name table_schema:name table_name:name view_definition:varchar "
     "check_option:varchar is_updatable:varchar is_insertable_into:varchar "
     "is_trigger_updatable:varchar is_trigger_deletable:varchar "
     "is_trigger_insertable_into:varchar"},
    {"pg_catalog", "pg_aggregate", 2600, 'r',
     "aggfnoid:regproc aggkind:char aggnumdirectargs:int2 aggtransfn:regproc "
     "aggfinalfn:regproc aggcombinefn:regproc aggserialfn:regproc aggdeserialfn:regproc "
     "aggmtransfn:regproc aggminvtransfn:regproc aggmfinalfn:regproc aggfinalextra:bool "
     "aggmfinalextra:bool aggfinalmodify:char aggmfinalmodify:char aggsortop:oid "
     "aggtranstype:oid aggtransspace:int4 aggmtranstype:oid aggmtransspace:int4 "
     "agginitval:text aggminitval:text"},
    {"pg_catalog", "pg_am", 2601, 'r',
     "oid:oid amname:name amhandler:regproc amtype:char"},
    {"pg_catalog", "pg_attrdef", 2604, 'r',
     "oid:oid adrelid:oid adnum:int2 adbin:pg_node_tree"},
    {"pg_catalog", "pg_attribute", 1249, 'r',
     "attrelid:oid attname:name atttypid:oid attstattarget:int4 attlen:int2 attnum:int2 "
     "attndims:int4 attcacheoff:int4 atttypmod:int4 attbyval:bool attalign:char "
     "attstorage:char attcompression:char attnotnull:bool atthasdef:bool atthasmissing:bool "
     "attidentity:char attgenerated:char attisdropped:bool attislocal:bool attinhcount:int4 "
     "attcollation:oid attacl:_aclitem attoptions:_text attfdwoptions:_text attmissingval:text"},
    {"pg_catalog", "pg_auth_members", 1261, 'r',
     "roleid:oid member:oid grantor:oid admin_option:bool"},
    {"pg_catalog", "pg_authid", 1260, 'r',
     "oid:oid rolname:name rolsuper:bool rolinherit:bool rolcreaterole:bool rolcreatedb:bool "
     "rolcanlogin:bool rolreplication:bool rolbypassrls:bool rolconnlimit:int4 "
     "rolpassword:text rolvaliduntil:timestamptz"},
    {"pg_catalog", "pg_cast", 2605, 'r',
     "oid:oid castsource:oid casttarget:oid castfunc:oid castcontext:char castmethod:char"},
    {"pg_catalog", "pg_class", 1259, 'r',
     "oid:oid relname:name relnamespace:oid reltype:oid reloftype:oid relowner:oid relam:oid "
     "relfilenode:oid reltablespace:oid relpages:int4 reltuples:float4 relallvisible:int4 "
     "reltoastrelid:oid relhasindex:bool relisshared:bool relpersistence:char relkind:char "
     "relnatts:int2 relchecks:int2 relhasrules:bool relhastriggers:bool relhassubclass:bool "
     "relrowsecurity:bool relforcerowsecurity:bool relispopulated:bool relreplident:char "
     "relispartition:bool relrewrite:oid relfrozenxid:xid relminmxid:xid relacl:_aclitem "
     "reloptions:_text relpartbound:pg_node_tree"},
    {"pg_catalog", "pg_collation", 3456, 'r',
     "oid:oid collname:name collnamespace:oid collowner:oid collprovider:char "
     "collisdeterministic:bool collencoding:int4 collcollate:text collctype:text "
     "colliculocale:text collversion:text"},
    {"pg_catalog", "pg_constraint", 2606, 'r',
     "oid:oid conname:name connamespace:oid contype:char condeferrable:bool condeferred:bool "
     "convalidated:bool conrelid:oid contypid:oid conindid:oid conparentid:oid confrelid:oid "
     "confupdtype:char confdeltype:char confmatchtype:char conislocal:bool coninhcount:int4 "
     "connoinherit:bool conkey:_int2 confkey:_int2 conpfeqop:_oid conppeqop:_oid "
     "conffeqop:_oid confdelsetcols:_int2 conexclop:_oid conbin:pg_node_tree"},
    {"pg_catalog", "pg_conversion", 2607, 'r',
     "oid:oid conname:name connamespace:oid conowner:oid conforencoding:int4 "
     "contoencoding:int4 conproc:regproc condefault:bool"},
    {"pg_catalog", "pg_database", 1262, 'r',
     "oid:oid datname:name datdba:oid encoding:int4 datlocprovider:char datistemplate:bool "
     "datallowconn:bool datconnlimit:int4 datfrozenxid:xid datminmxid:xid dattablespace:oid "
     "datcollate:text datctype:text daticulocale:text datcollversion:text datacl:_aclitem"},
    {"pg_catalog", "pg_default_acl", 826, 'r',
     "oid:oid defaclrole:oid defaclnamespace:oid defaclobjtype:char defaclacl:_aclitem"},
    {"pg_catalog", "pg_depend", 2608, 'r',
     "classid:oid objid:oid objsubid:int4 refclassid:oid refobjid:oid refobjsubid:int4 "
     "deptype:char"},
    {"pg_catalog", "pg_description", 2609, 'r',
     "objoid:oid classoid:oid objsubid:int4 description:text"},
    {"pg_catalog", "pg_enum", 3501, 'r',
     "oid:oid enumtypid:oid enumsortorder:float4 enumlabel:name"},
    {"pg_catalog", "pg_event_trigger", 3466, 'r',
     "oid:oid evtname:name evtevent:name evtowner:oid evtfoid:oid evtenabled:char "
     "evttags:_text"},
    {"pg_catalog", "pg_extension", 3079, 'r',
     "oid:oid extname:name extowner:oid extnamespace:oid extrelocatable:bool extversion:text "
     "extconfig:_oid extcondition:_text"},
    {"pg_catalog", "pg_foreign_data_wrapper", 2328, 'r',
     "oid:oid fdwname:name fdwowner:oid fdwhandler:oid fdwvalidator:oid fdwacl:_aclitem "
     "fdwoptions:_text"},
    {"pg_catalog", "pg_foreign_server", 1417, 'r',
     "oid:oid srvname:name srvowner:oid srvfdw:oid srvtype:text srvversion:text "
     "srvacl:_aclitem srvoptions:_text"},
    {"pg_catalog", "pg_foreign_table", 3118, 'r',
     "ftrelid:oid ftserver:oid ftoptions:_text"},
    {"pg_catalog", "pg_group", 12010, 'v',
     "groname:name grosysid:oid grolist:_oid"},
    {"pg_catalog", "pg_index", 2610, 'r',
     "indexrelid:oid indrelid:oid indnatts:int2 indnkeyatts:int2 indisunique:bool "
     "indnullsnotdistinct:bool indisprimary:bool indisexclusion:bool indimmediate:bool "
     "indisclustered:bool indisvalid:bool indcheckxmin:bool indisready:bool indislive:bool "
     "indisreplident:bool indkey:int2vector indcollation:oidvector indclass:oidvector "
     "indoption:int2vector indexprs:pg_node_tree indpred:pg_node_tree"},
    {"pg_catalog", "pg_indexes", 12043, 'v',
     "schemaname:name tablename:name indexname:name tablespace:name indexdef:text"},
    {"pg_catalog", "pg_inherits", 2611, 'r',
     "inhrelid:oid inhparent:oid inhseqno:int4 inhdetachpending:bool"},
    {"pg_catalog", "pg_init_privs", 3394, 'r',
     "objoid:oid classoid:oid objsubid:int4 privtype:char initprivs:_aclitem"},
    {"pg_catalog", "pg_language", 2612, 'r',
     "oid:oid lanname:name lanowner:oid lanispl:bool lanpltrusted:bool lanplcallfoid:oid "
     "laninline:oid lanvalidator:oid lanacl:_aclitem"},
    {"pg_catalog", "pg_largeobject_metadata", 2995, 'r',
     "oid:oid lomowner:oid lomacl:_aclitem"},
    {"pg_catalog", "pg_locks", 12073, 'v',
     "locktype:text database:oid relation:oid page:int4 tuple:int2 virtualxid:text "
     "transactionid:xid classid:oid objid:oid objsubid:int2 virtualtransaction:text pid:int4 "
     "mode:text granted:bool fastpath:bool waitstart:timestamptz"},
    {"pg_catalog", "pg_matviews", 12038, 'v',
     "schemaname:name matviewname:name matviewowner:name tablespace:name hasindexes:bool "
     "ispopulated:bool definition:text"},
    {"pg_catalog", "pg_namespace", 2615, 'r',
     "oid:oid nspname:name nspowner:oid nspacl:_aclitem"},
    {"pg_catalog", "pg_opclass", 2616, 'r',
     "oid:oid opcmethod:oid opcname:name opcnamespace:oid opcowner:oid opcfamily:oid "
     "opcintype:oid opcdefault:bool opckeytype:oid"},
    {"pg_catalog", "pg_operator", 2617, 'r',
     "oid:oid oprname:name oprnamespace:oid oprowner:oid oprkind:char oprcanmerge:bool "
     "oprcanhash:bool oprleft:oid oprright:oid oprresult:oid oprcom:oid oprnegate:oid "
     "oprcode:regproc oprrest:regproc oprjoin:regproc"},
    {"pg_catalog", "pg_partitioned_table", 3350, 'r',
     "partrelid:oid partstrat:char partnatts:int2 partdefid:oid partattrs:int2vector "
     "partclass:oidvector partcollation:oidvector partexprs:pg_node_tree"},
    {"pg_catalog", "pg_policy", 3256, 'r',
     "oid:oid polname:name polrelid:oid polcmd:char polpermissive:bool polroles:_oid "
     "polqual:pg_node_tree polwithcheck:pg_node_tree"},
    {"pg_catalog", "pg_prepared_xacts", 12090, 'v',
     "transaction:xid gid:text prepared:timestamptz owner:name database:name"},
    {"pg_catalog", "pg_proc", 1255, 'r',
     "oid:oid proname:name pronamespace:oid proowner:oid prolang:oid procost:float4 "
     "prorows:float4 provariadic:oid prosupport:regproc prokind:char prosecdef:bool "
     "proleakproof:bool proisstrict:bool proretset:bool provolatile:char proparallel:char "
     "pronargs:int2 pronargdefaults:int2 prorettype:oid proargtypes:oidvector "
     "proallargtypes:_oid proargmodes:_char proargnames:_text proargdefaults:pg_node_tree "
     "protrftypes:_oid prosrc:text probin:text prosqlbody:pg_node_tree proconfig:_text "
     "proacl:_aclitem"},
    {"pg_catalog", "pg_publication", 6104, 'r',
     "oid:oid pubname:name pubowner:oid puballtables:bool pubinsert:bool pubupdate:bool "
     "pubdelete:bool pubtruncate:bool pubviaroot:bool"},
    {"pg_catalog", "pg_publication_rel", 6106, 'r',
     "oid:oid prpubid:oid prrelid:oid prqual:pg_node_tree prattrs:int2vector"},
    {"pg_catalog", "pg_range", 3541, 'r',
     "rngtypid:oid rngsubtype:oid rngmultitypid:oid rngcollation:oid rngsubopc:oid "
     "rngcanonical:regproc rngsubdiff:regproc"},
    {"pg_catalog", "pg_rewrite", 2618, 'r',
     "oid:oid rulename:name ev_class:oid ev_type:char ev_enabled:char is_instead:bool "
     "ev_qual:pg_node_tree ev_action:pg_node_tree"},
    {"pg_catalog", "pg_roles", 12000, 'v',
     "rolname:name rolsuper:bool rolinherit:bool rolcreaterole:bool rolcreatedb:bool "
     "rolcanlogin:bool rolreplication:bool rolconnlimit:int4 rolpassword:text "
     "rolvaliduntil:timestamptz rolbypassrls:bool rolconfig:_text oid:oid"},
    {"pg_catalog", "pg_seclabel", 3596, 'r',
     "objoid:oid classoid:oid objsubid:int4 provider:text label:text"},
    {"pg_catalog", "pg_sequence", 2224, 'r',
     "seqrelid:oid seqtypid:oid seqstart:int8 seqincrement:int8 seqmax:int8 seqmin:int8 "
     "seqcache:int8 seqcycle:bool"},
    {"pg_catalog", "pg_sequences", 12048, 'v',
     "schemaname:name sequencename:name sequenceowner:name data_type:regtype start_value:int8 "
     "min_value:int8 max_value:int8 increment_by:int8 cycle:bool cache_size:int8 "
     "last_value:int8"},
    {"pg_catalog", "pg_settings", 12104, 'v',
     "name:text setting:text unit:text category:text short_desc:text extra_desc:text "
     "context:text vartype:text source:text min_val:text max_val:text enumvals:_text "
     "boot_val:text reset_val:text sourcefile:text sourceline:int4 pending_restart:bool"},
    {"pg_catalog", "pg_shadow", 12005, 'v',
     "usename:name usesysid:oid usecreatedb:bool usesuper:bool userepl:bool usebypassrls:bool "
     "passwd:text valuntil:timestamptz useconfig:_text"},
    {"pg_catalog", "pg_shdescription", 2396, 'r',
     "objoid:oid classoid:oid description:text"},
    {"pg_catalog", "pg_stat_activity", 12222, 'v',
     "datid:oid datname:name pid:int4 leader_pid:int4 usesysid:oid usename:name "
     "application_name:text client_addr:text client_hostname:text client_port:int4 "
     "backend_start:timestamptz xact_start:timestamptz query_start:timestamptz "
     "state_change:timestamptz wait_event_type:text wait_event:text state:text backend_xid:xid "
     "backend_xmin:xid query_id:int8 query:text backend_type:text"},
    {"pg_catalog", "pg_stat_all_tables", 12142, 'v',
     "relid:oid schemaname:name relname:name seq_scan:int8 seq_tup_read:int8 idx_scan:int8 "
     "idx_tup_fetch:int8 n_tup_ins:int8 n_tup_upd:int8 n_tup_del:int8 n_tup_hot_upd:int8 "
     "n_live_tup:int8 n_dead_tup:int8 n_mod_since_analyze:int8 n_ins_since_vacuum:int8 "
     "last_vacuum:timestamptz last_autovacuum:timestamptz last_analyze:timestamptz "
     "last_autoanalyze:timestamptz vacuum_count:int8 autovacuum_count:int8 analyze_count:int8 "
     "autoanalyze_count:int8"},
    {"pg_catalog", "pg_stat_database", 12266, 'v',
     "datid:oid datname:name numbackends:int4 xact_commit:int8 xact_rollback:int8 "
     "blks_read:int8 blks_hit:int8 tup_returned:int8 tup_fetched:int8 tup_inserted:int8 "
     "tup_updated:int8 tup_deleted:int8 conflicts:int8 temp_files:int8 temp_bytes:int8 "
     "deadlocks:int8 checksum_failures:int8 checksum_last_failure:timestamptz "
     "blk_read_time:float8 blk_write_time:float8 session_time:float8 active_time:float8 "
     "idle_in_transaction_time:float8 sessions:int8 sessions_abandoned:int8 "
     "sessions_fatal:int8 sessions_killed:int8 stats_reset:timestamptz"},
    {"pg_catalog", "pg_stat_user_tables", 12161, 'v',
     "relid:oid schemaname:name relname:name seq_scan:int8 seq_tup_read:int8 idx_scan:int8 "
     "idx_tup_fetch:int8 n_tup_ins:int8 n_tup_upd:int8 n_tup_del:int8 n_tup_hot_upd:int8 "
     "n_live_tup:int8 n_dead_tup:int8 n_mod_since_analyze:int8 n_ins_since_vacuum:int8 "
     "last_vacuum:timestamptz last_autovacuum:timestamptz last_analyze:timestamptz "
     "last_autoanalyze:timestamptz vacuum_count:int8 autovacuum_count:int8 analyze_count:int8 "
     "autoanalyze_count:int8"},
    {"pg_catalog", "pg_statio_user_tables", 12179, 'v',
     "relid:oid schemaname:name relname:name heap_blks_read:int8 heap_blks_hit:int8 "
     "idx_blks_read:int8 idx_blks_hit:int8 toast_blks_read:int8 toast_blks_hit:int8 "
     "tidx_blks_read:int8 tidx_blks_hit:int8"},
    {"pg_catalog", "pg_statistic_ext", 3381, 'r',
     "oid:oid stxrelid:oid stxname:name stxnamespace:oid stxowner:oid stxstattarget:int4 "
     "stxkeys:int2vector stxkind:_char stxexprs:pg_node_tree"},
    {"pg_catalog", "pg_tables", 12033, 'v',
     "schemaname:name tablename:name tableowner:name tablespace:name hasindexes:bool "
     "hasrules:bool hastriggers:bool rowsecurity:bool"},
    {"pg_catalog", "pg_tablespace", 1213, 'r',
     "oid:oid spcname:name spcowner:oid spcacl:_aclitem spcoptions:_text"},
    {"pg_catalog", "pg_timezone_names", 12126, 'v',
     "name:text abbrev:text utc_offset:interval is_dst:bool"},
    {"pg_catalog", "pg_trigger", 2620, 'r',
     "oid:oid tgrelid:oid tgparentid:oid tgname:name tgfoid:oid tgtype:int2 tgenabled:char "
     "tgisinternal:bool tgconstrrelid:oid tgconstrindid:oid tgconstraint:oid tgdeferrable:bool "
     "tginitdeferred:bool tgnargs:int2 tgattr:int2vector tgargs:bytea tgqual:pg_node_tree "
     "tgoldtable:name tgnewtable:name"},
    {"pg_catalog", "pg_type", 1247, 'r',
     "oid:oid typname:name typnamespace:oid typowner:oid typlen:int2 typbyval:bool "
     "typtype:char typcategory:char typispreferred:bool typisdefined:bool typdelim:char "
     "typrelid:oid typsubscript:regproc typelem:oid typarray:oid typinput:regproc "
     "typoutput:regproc typreceive:regproc typsend:regproc typmodin:regproc typmodout:regproc "
     "typanalyze:regproc typalign:char typstorage:char typnotnull:bool typbasetype:oid "
     "typtypmod:int4 typndims:int4 typcollation:oid typdefaultbin:pg_node_tree typdefault:text "
     "typacl:_aclitem"},
    {"pg_catalog", "pg_user", 12014, 'v',
     "usename:name usesysid:oid usecreatedb:bool usesuper:bool userepl:bool usebypassrls:bool "
     "passwd:text valuntil:timestamptz useconfig:_text"},
    {"pg_catalog", "pg_user_mapping", 1418, 'r',
     "oid:oid umuser:oid umserver:oid umoptions:_text"},
    {"pg_catalog", "pg_views", 12028, 'v',
     "schemaname:name viewname:name viewowner:name definition:text"},
};
#define NDEFS (sizeof defs / sizeof defs[0])

const fl_pgcat_def *fl_pgcat_defs(uint32_t *n)
{
    *n = (uint32_t)NDEFS;
    return defs;
}

const fl_pgcat_def *fl_pgcat_def_find(const char *schema, const char *name)
{
    for (size_t i = 0; i < NDEFS; i++)
        if (strcmp(defs[i].name, name) == 0 && (!schema || strcmp(defs[i].schema, schema) == 0))
            return &defs[i];
    return NULL;
}

fl_type fl_pgcat_type_for_oid(uint32_t oid)
{
    fl_type t;
    memset(&t, 0, sizeof t);
    const fl_pg_type_info *ti = fl_pg_type_by_oid(oid);
    if (ti && ti->category == 'A' && ti->elem_oid) {
        t.id = FL_TYPE_STRING;
        t.precision = FL_PG_ARRAY_MARK;
        t.scale = (int32_t)ti->elem_oid;
        return t;
    }
    switch (oid) {
    case FL_PG_OID_BOOL: t.id = FL_TYPE_BOOLEAN; break;
    case FL_PG_OID_INT2:
    case FL_PG_OID_INT4: t.id = FL_TYPE_INT32; break;
    case FL_PG_OID_INT8:
    case FL_PG_OID_OID:
    case FL_PG_OID_REGPROC:
    case 28:   /* xid */
    case 2205: /* regclass */
    case 2206: /* regtype */
        t.id = FL_TYPE_INT64;
        break;
    case FL_PG_OID_FLOAT4: t.id = FL_TYPE_FLOAT32; break;
    case FL_PG_OID_FLOAT8: t.id = FL_TYPE_FLOAT64; break;
    case FL_PG_OID_TIMESTAMPTZ: t.id = FL_TYPE_TIMESTAMPTZ; break;
    case FL_PG_OID_BYTEA: t.id = FL_TYPE_BINARY; break;
    case FL_PG_OID_INTERVAL:
        t.id = FL_TYPE_FIXED;
        t.fixed_len = 16;
        t.precision = FL_SQL_INTERVAL_MARK;
        break;
    default: t.id = FL_TYPE_STRING; break; /* name, text, "char", varchar, pg_node_tree */
    }
    return t;
}

fl_status fl_pgcat_def_schema(fl_arena *a, const fl_pgcat_def *d, fl_schema *out,
                              uint32_t **pgoids, fl_error *err)
{
    uint32_t n = 1;
    for (const char *p = d->columns; *p; p++)
        n += *p == ' ';
    fl_field *f = fl_arena_calloc(a, n, sizeof *f);
    uint32_t *oids = fl_arena_calloc(a, n, sizeof *oids);
    char *buf = fl_arena_strdup(a, d->columns);
    if (!f || !oids || !buf)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t k = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, " ", &save); tok && k < n; tok = strtok_r(NULL, " ", &save)) {
        char *colon = strchr(tok, ':');
        if (!colon)
            return fl_errorf(err, FL_EINVAL, "pg catalog %s: bad column spec %s", d->name, tok);
        *colon = 0;
        const char *tn = colon + 1;
        const fl_pg_type_info *ti = fl_pg_type_by_name(tn);
        uint32_t oid = ti ? ti->oid : FL_PG_OID_TEXT;
        f[k].name = tok;
        f[k].field_id = (int32_t)k + 1;
        f[k].nullable = true;
        f[k].type = fl_pgcat_type_for_oid(oid);
        oids[k] = oid;
        k++;
    }
    out->nfields = k;
    out->fields = f;
    out->schema_id = 0;
    *pgoids = oids;
    return FL_OK;
}
