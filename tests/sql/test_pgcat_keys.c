/*
 * test_pgcat_keys.c - primary keys, function signatures, reg* text and the
 * session user in pg_catalog / information_schema, through fl_sql_execute
 * over a SQLite catalog. Expected answers are PostgreSQL 15's for the same
 * DDL (checked on a PG 15 server): constraint and index names, conkey /
 * indkey order, pg_get_constraintdef / pg_get_indexdef text, the
 * information_schema rows, \df's pg_get_function_result/arguments,
 * x::regclass::text qualification, 42P01 for a missing relation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "floe/sql.h"
#include "floe_test.h"
#include "test.h"

static char g_dir[256];

static fl_sql_session *open_session(const char *user)
{
    return ft_open_sqlite(g_dir, "lake", user);
}

static char *q(fl_sql_session *s, const char *sql)
{
    static char out[1 << 16];
    fl_error err;
    fl_status rc = ft_run(s, sql, "\n", out, sizeof out, &err);
    if (rc != FL_OK) {
        fprintf(stderr, "FAILED: %s\n  %s\n", sql, err.msg);
        CHECK(rc == FL_OK);
        out[0] = 0;
    }
    return out;
}

static void setup(void)
{
    CHECK(ft_tmpdir(g_dir, sizeof g_dir, "floe_pgkeys") != NULL);
    fl_sql_session *s = open_session(NULL);
    if (!s)
        return;
    q(s, "CREATE SCHEMA lake");
    q(s, "CREATE SCHEMA other");
    q(s, "CREATE TABLE lake.items (id bigint PRIMARY KEY, name text NOT NULL, price decimal(12,2))");
    q(s, "CREATE TABLE lake.k2 (a int, b text, c int, PRIMARY KEY (b, a))");
    q(s, "CREATE TABLE lake.nopk (x int)");
    q(s, "CREATE TABLE other.\"Odd\" (\"Key\" int PRIMARY KEY)");
    fl_sql_session_close(s);
}

static void test_constraints(void)
{
    fl_sql_session *s = open_session(NULL);
    if (!s)
        return;
    CHECK_EQ_STR(q(s, "SELECT conname, contype, conkey, conrelid::regclass::text, "
                      "conindid::regclass::text, connamespace::regnamespace::text, "
                      "pg_get_constraintdef(oid), pg_get_constraintdef(oid, true), convalidated "
                      "FROM pg_constraint ORDER BY conname"),
                 "Odd_pkey|p|{1}|other.\"Odd\"|other.\"Odd_pkey\"|other|PRIMARY KEY (\"Key\")|PRIMARY "
                 "KEY (\"Key\")|t\n"
                 "items_pkey|p|{1}|items|items_pkey|lake|PRIMARY KEY (id)|PRIMARY KEY (id)|t\n"
                 "k2_pkey|p|{2,1}|k2|k2_pkey|lake|PRIMARY KEY (b, a)|PRIMARY KEY (b, a)|t\n");
    /* sqlsmith's constraint query */
    CHECK_EQ_STR(q(s, "select conname from pg_class t join pg_constraint c on (t.oid = c.conrelid) "
                      "where contype in ('f', 'u', 'p') and relnamespace = (select oid from "
                      "pg_namespace where nspname = 'lake') and relname = 'k2'"),
                 "k2_pkey\n");
    CHECK_EQ_STR(q(s, "SELECT c.relname, i.indnatts, i.indnkeyatts, i.indisunique, i.indisprimary, "
                      "i.indkey, i.indcollation, i.indclass, i.indoption, "
                      "pg_get_indexdef(i.indexrelid), pg_get_indexdef(i.indexrelid, 0, true), "
                      "pg_get_indexdef(i.indexrelid, 2, true) "
                      "FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid ORDER BY 1"),
                 "Odd_pkey|1|1|t|t|1|0|1978|0|CREATE UNIQUE INDEX \"Odd_pkey\" ON other.\"Odd\" USING "
                 "btree (\"Key\")|CREATE UNIQUE INDEX \"Odd_pkey\" ON other.\"Odd\" USING btree "
                 "(\"Key\")|\n"
                 "items_pkey|1|1|t|t|1|0|3124|0|CREATE UNIQUE INDEX items_pkey ON lake.items USING "
                 "btree (id)|CREATE UNIQUE INDEX items_pkey ON items USING btree (id)|\n"
                 "k2_pkey|2|2|t|t|2 1|100 0|3126 1978|0 0|CREATE UNIQUE INDEX k2_pkey ON lake.k2 "
                 "USING btree (b, a)|CREATE UNIQUE INDEX k2_pkey ON k2 USING btree (b, a)|a\n");
    /* the index relation: pg_class (relkind i, btree) and its attributes */
    CHECK_EQ_STR(q(s, "SELECT c.relname, c.relkind, c.relam, c.relhasindex, c.relnatts, "
                      "t.relhasindex FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid JOIN "
                      "pg_class t ON t.oid = i.indrelid WHERE t.relname = 'k2'"),
                 "k2_pkey|i|403|f|2|t\n");
    CHECK_EQ_STR(q(s, "SELECT attname, attnum, atttypid, attnotnull FROM pg_attribute WHERE "
                      "attrelid = 'lake.k2_pkey'::regclass ORDER BY attnum"),
                 "b|1|25|f\na|2|23|f\n");
    CHECK_EQ_STR(q(s, "SELECT attname, attnotnull FROM pg_attribute WHERE attrelid = "
                      "'lake.items'::regclass ORDER BY attnum"),
                 "id|t\nname|t\nprice|f\n");
    CHECK_EQ_STR(q(s, "SELECT relname FROM pg_class WHERE relname = 'nopk' AND relhasindex"), "");
    CHECK_EQ_STR(q(s, "SELECT pg_get_indexdef('lake.k2_pkey'::regclass, 1, false), "
                      "pg_get_indexdef('lake.k2_pkey'::regclass, 1000, false), "
                      "pg_get_indexdef(1, 0, true) IS NULL, pg_get_constraintdef(1) IS NULL"),
                 "b||t|t\n");
    /* the index is a relation, not a table */
    CHECK_EQ_STR(q(s, "SELECT count(*) FROM information_schema.tables WHERE table_name LIKE "
                      "'%pkey'"),
                 "0\n");
    /* stable OIDs: a second session gives the same constraint and index OIDs */
    char first[512];
    snprintf(first, sizeof first, "%s",
             q(s, "SELECT oid, conindid FROM pg_constraint ORDER BY conname"));
    fl_sql_session_close(s);
    s = open_session(NULL);
    if (!s)
        return;
    CHECK_EQ_STR(q(s, "SELECT oid, conindid FROM pg_constraint ORDER BY conname"), first);
    fl_sql_session_close(s);
}

static void test_information_schema(void)
{
    fl_sql_session *s = open_session(NULL);
    if (!s)
        return;
    CHECK_EQ_STR(q(s, "SELECT constraint_name, table_name, constraint_type, is_deferrable, enforced "
                      "FROM information_schema.table_constraints WHERE table_schema = 'lake' AND "
                      "constraint_type = 'PRIMARY KEY' ORDER BY 1"),
                 "items_pkey|items|PRIMARY KEY|NO|YES\nk2_pkey|k2|PRIMARY KEY|NO|YES\n");
    /* NOT NULL columns show as CHECK constraints named nspoid_reloid_attnum_not_null */
    CHECK_EQ_STR(q(s, "SELECT count(*) FROM information_schema.table_constraints t JOIN "
                      "information_schema.check_constraints c USING (constraint_name) WHERE "
                      "t.table_name = 'items' AND c.check_clause IN ('id IS NOT NULL', 'name IS NOT "
                      "NULL') AND t.constraint_name LIKE '%_not_null'"),
                 "2\n");
    CHECK_EQ_STR(q(s, "SELECT constraint_name, column_name, ordinal_position, "
                      "position_in_unique_constraint FROM information_schema.key_column_usage "
                      "WHERE table_schema = 'lake' ORDER BY 1, 3"),
                 "items_pkey|id|1|NULL\nk2_pkey|b|1|NULL\nk2_pkey|a|2|NULL\n");
    CHECK_EQ_STR(q(s, "SELECT constraint_name, column_name FROM "
                      "information_schema.constraint_column_usage WHERE table_name = 'k2' ORDER BY "
                      "2"),
                 "k2_pkey|a\nk2_pkey|b\n");
    fl_sql_session_close(s);
}

static void test_functions(void)
{
    fl_sql_session *s = open_session(NULL);
    if (!s)
        return;
    /* psql's \df lower */
    CHECK_EQ_STR(q(s, "SELECT n.nspname, p.proname, pg_catalog.pg_get_function_result(p.oid), "
                      "pg_catalog.pg_get_function_arguments(p.oid), CASE p.prokind WHEN 'a' THEN "
                      "'agg' WHEN 'w' THEN 'window' ELSE 'func' END FROM pg_catalog.pg_proc p LEFT "
                      "JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE p.proname "
                      "OPERATOR(pg_catalog.~) '^(lower)$' AND "
                      "pg_catalog.pg_function_is_visible(p.oid) ORDER BY 1, 2, 4"),
                 "pg_catalog|lower|text|text|func\n");
    CHECK_EQ_STR(q(s, "SELECT proargtypes, pronargs, prorettype, prokind, proretset, proisstrict "
                      "FROM pg_proc WHERE oid = 'lower'::regproc"),
                 "25|1|25|f|f|t\n");
    CHECK_EQ_STR(q(s, "SELECT pg_get_function_result(oid), pg_get_function_arguments(oid), prokind "
                      "FROM pg_proc WHERE proname = 'sum' AND proargtypes = '23'"),
                 "bigint|integer|a\n");
    CHECK_EQ_STR(q(s, "SELECT prokind, pronargs FROM pg_proc WHERE proname = 'row_number'"),
                 "w|0\n");
    CHECK_EQ_STR(q(s, "SELECT count(*) = count(DISTINCT oid), count(*) > 200 FROM pg_proc"), "t|t\n");
    CHECK_EQ_STR(q(s, "SELECT count(*) > 0, count(*) = count(DISTINCT aggfnoid) FROM pg_aggregate a "
                      "JOIN pg_proc p ON p.oid = a.aggfnoid AND p.prokind = 'a'"),
                 "t|t\n");
    CHECK_EQ_STR(q(s, "SELECT data_type FROM information_schema.routines WHERE routine_name = "
                      "'lower'"),
                 "text\n");
    /* sqlsmith's routine filter works now that prorettype::regtype::text is a name */
    CHECK_EQ_STR(q(s, "SELECT count(*) FROM pg_proc WHERE prorettype::regtype::text IN ('text', "
                      "'bigint') AND proname = 'lower'"),
                 "1\n");
    fl_sql_session_close(s);
}

static void test_reg_text(void)
{
    char out[512];
    fl_error err;
    fl_sql_session *s = open_session(NULL);
    if (!s)
        return;
    CHECK_EQ_STR(q(s, "SELECT 'lake.k2'::regclass::text, 'other.\"Odd\"'::regclass::text, "
                      "'pg_class'::regclass::text, 'information_schema.tables'::regclass::text, "
                      "99999::regclass::text"),
                 "k2|other.\"Odd\"|pg_class|information_schema.tables|99999\n");
    CHECK_EQ_STR(q(s, "SELECT 23::regtype::text, 1043::regtype::text, 1184::regtype::text, "
                      "'int4'::regtype::text, 1007::regtype::text"),
                 "integer|character varying|timestamp with time zone|integer|integer[]\n");
    CHECK_EQ_STR(q(s, "SELECT 'lower'::regproc::text, 'lower(text)'::regprocedure::text, "
                      "'round(numeric, int4)'::regprocedure::text, 11::regnamespace::text, "
                      "'other'::regnamespace::text, 10::regrole::text, 'pg_catalog.array_in'::regproc, "
                      "'make_timestamp'::regproc::regprocedure::text"),
                 "lower|lower(text)|round(numeric,integer)|pg_catalog|other|floe|750|"
                 "make_timestamp(\"any\")\n");
    /* non-constant reg* values */
    CHECK_EQ_STR(q(s, "SELECT relname, oid::regclass::text, relnamespace::regnamespace::text FROM "
                      "pg_class WHERE relnamespace = 'other'::regnamespace ORDER BY 1"),
                 "Odd|other.\"Odd\"|other\nOdd_pkey|other.\"Odd_pkey\"|other\n");
    CHECK(ft_run(s, "SELECT 'lake.nosuch'::regclass::text", "\n", out, sizeof out, &err) ==
          FL_ENOTFOUND);
    CHECK(strstr(err.msg, "relation \"lake.nosuch\" does not exist") != NULL);
    CHECK(ft_run(s, "SELECT 'nosuch'::regproc", "\n", out, sizeof out, &err) == FL_ENOTFOUND);
    CHECK(ft_run(s, "SELECT 'lower(bool)'::regprocedure", "\n", out, sizeof out, &err) ==
          FL_ENOTFOUND);
    CHECK(ft_run(s, "SELECT 'nobody'::regrole", "\n", out, sizeof out, &err) == FL_ENOTFOUND);
    CHECK(ft_run(s, "SELECT pg_get_indexdef(oid, 0, relname = 'x') FROM pg_class", "\n", out,
                 sizeof out, &err) == FL_EUNSUPPORTED);
    fl_sql_session_close(s);
}

static void test_session_user(void)
{
    fl_sql_session *s = open_session("alice");
    if (!s)
        return;
    CHECK_EQ_STR(q(s, "SELECT current_user, session_user, user, current_role, "
                      "pg_get_userbyid(10), pg_get_userbyid(12345), 'alice'::regrole, "
                      "10::regrole::text"),
                 "alice|alice|alice|alice|alice|unknown (OID=12345)|10|alice\n");
    CHECK_EQ_STR(q(s, "SELECT r.rolname, u.usename, a.rolname, r.rolsuper FROM pg_roles r, pg_user "
                      "u, pg_authid a"),
                 "alice|alice|alice|t\n");
    CHECK_EQ_STR(q(s, "SELECT tableowner FROM pg_tables WHERE tablename = 'k2'"), "alice\n");
    CHECK_EQ_STR(q(s, "SELECT count(*) FROM information_schema.enabled_roles WHERE role_name = "
                      "'alice'"),
                 "1\n");
    fl_sql_session_close(s);
    s = open_session(NULL); /* no user: floe sql's "floe" */
    if (!s)
        return;
    CHECK_EQ_STR(q(s, "SELECT current_user, session_user"), "floe|floe\n");
    fl_sql_session_close(s);
}

int main(void)
{
    setup();
    TEST_RUN(test_constraints);
    TEST_RUN(test_information_schema);
    TEST_RUN(test_functions);
    TEST_RUN(test_reg_text);
    TEST_RUN(test_session_user);
    ft_rmtree(g_dir);
    return TEST_EXIT();
}
