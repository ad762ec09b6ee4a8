/*
 * test_pgfunc_catalog.c - the catalog-reading PostgreSQL functions the GUI
 * clients' introspection needs (src/sql/func/pgrelinfo.c, pgstat.c,
 * pgkeywords.c), through fl_sql_execute on a SQLite catalog holding schema
 * sales (table orders with one row, empty table items, view big). Expected
 * answers are PostgreSQL 15's for the same objects, except where floe's
 * storage differs and says so (sizes are Iceberg file sizes; a view's
 * definition is its stored SQL text).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "floe/sql.h"
#include "floe_test.h"
#include "test.h"

static char g_dir[256];

static fl_sql_session *open_session(void)
{
    return ft_open_sqlite(g_dir, NULL, NULL);
}

static char g_out[1 << 16];

static const char *q(fl_sql_session *s, const char *sql)
{
    fl_error err;
    if (ft_run(s, sql, "\n", g_out, sizeof g_out, &err) != FL_OK) {
        fprintf(stderr, "FAILED: %s\n  %s\n", sql, err.msg);
        CHECK(false);
        g_out[0] = 0;
    }
    return g_out;
}

/* sql must fail; its message must contain want. */
static void q_err(fl_sql_session *s, const char *sql, const char *want)
{
    fl_error err;
    fl_status rc = ft_run(s, sql, "\n", g_out, sizeof g_out, &err);
    CHECK(rc != FL_OK);
    if (rc != FL_OK && !strstr(err.msg, want)) {
        fprintf(stderr, "%s\n  message: %s\n  wanted:  %s\n", sql, err.msg, want);
        CHECK(false);
    }
}

static void setup(void)
{
    CHECK(ft_tmpdir(g_dir, sizeof g_dir, "floe_pgfunc") != NULL);
    fl_sql_session *s = open_session();
    if (!s)
        return;
    q(s, "CREATE SCHEMA sales");
    q(s, "CREATE TABLE sales.orders (id bigint NOT NULL, customer text, amount decimal(12,2))");
    q(s, "CREATE TABLE sales.items (order_id bigint, sku text)");
    q(s, "INSERT INTO sales.orders VALUES (1, 'ann', 150.25)");
    q(s, "CREATE VIEW sales.big AS SELECT id, amount FROM sales.orders WHERE amount > 100");
    fl_sql_session_close(s);
}

static void test_viewdef(void)
{
    fl_sql_session *s = open_session();
    if (!s)
        return;
    /* by OID (DBeaver: pg_get_viewdef(oid, true)), by name, NULL for a table or unknown OID */
    CHECK_EQ_STR(q(s, "SELECT c.relname, pg_get_viewdef(c.oid, true) FROM pg_class c JOIN "
                      "pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'sales' ORDER BY 1"),
                 "big|SELECT id, amount FROM sales.orders WHERE amount > 100\nitems|NULL\n"
                 "orders|NULL\n");
    CHECK_EQ_STR(q(s, "SELECT pg_get_viewdef('sales.big'), pg_get_viewdef(12345) IS NULL"),
                 "SELECT id, amount FROM sales.orders WHERE amount > 100|t\n");
    q_err(s, "SELECT pg_get_viewdef('sales.nosuch')", "relation \"sales.nosuch\" does not exist");
    q_err(s, "SELECT pg_get_viewdef(1, DATE '2024-01-02')", "function pg_get_viewdef(oid, date) does not exist");
    fl_sql_session_close(s);
}

static void test_sizes(void)
{
    fl_sql_session *s = open_session();
    if (!s)
        return;
    /* orders has one data file: its size is the snapshot's total-files-size, > 0; the empty
     * table, the view and the catalog relations are 0; indexes 0; unknown OIDs NULL */
    CHECK_EQ_STR(q(s, "SELECT c.relname, pg_relation_size(c.oid) > 0, pg_relation_size(c.oid) = "
                      "pg_total_relation_size(c.oid), pg_table_size(c.oid) = "
                      "pg_relation_size(c.oid), pg_indexes_size(c.oid) FROM pg_class c JOIN "
                      "pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'sales' ORDER BY 1"),
                 "big|f|t|t|0\nitems|f|t|t|0\norders|t|t|t|0\n");
    CHECK_EQ_STR(q(s, "SELECT pg_relation_size('sales.items'), pg_relation_size('sales.orders', "
                      "'fsm'), pg_relation_size('pg_class'), pg_relation_size(1) IS NULL, "
                      "pg_database_size(current_database()) = pg_relation_size('sales.orders'), "
                      "pg_database_size(1) IS NULL"),
                 "0|0|0|t|t|t\n");
    q_err(s, "SELECT pg_relation_size('sales.orders', 'heap')", "invalid fork name");
    q_err(s, "SELECT pg_relation_size('nosuch')", "relation \"nosuch\" does not exist");
    q_err(s, "SELECT pg_database_size('otherdb')", "database \"otherdb\" does not exist");
    /* PostgreSQL 15's pg_size_pretty units and rounding */
    CHECK_EQ_STR(q(s, "SELECT pg_size_pretty(0), pg_size_pretty(10239), pg_size_pretty(10240), "
                      "pg_size_pretty(-20000), pg_size_pretty(123456789), "
                      "pg_size_pretty(123456789012345), pg_size_pretty(9223372036854775807)"),
                 "0 bytes|10239 bytes|10 kB|-20 kB|118 MB|112 TB|8192 PB\n");
    fl_sql_session_close(s);
}

static void test_stats_tablespaces_keywords(void)
{
    fl_sql_session *s = open_session();
    if (!s)
        return;
    CHECK_EQ_STR(q(s, "SELECT pg_stat_get_numscans(c.oid), pg_stat_get_tuples_returned(c.oid), "
                      "pg_tablespace_location(1663), pg_tablespace_location(1664) FROM pg_class c "
                      "WHERE c.relname = 'orders'"),
                 "0|0||\n");
    q_err(s, "SELECT pg_tablespace_location(5)", "tablespace with OID 5 does not exist");
    /* the parser's keywords: PostgreSQL 15 has 460, 77 reserved, 39 needing AS */
    CHECK_EQ_STR(q(s, "SELECT count(*), count(*) FILTER (WHERE catcode = 'R'), count(*) FILTER "
                      "(WHERE NOT barelabel) FROM pg_catalog.pg_get_keywords()"),
                 "460|77|39\n");
    CHECK_EQ_STR(q(s, "SELECT word, catcode, barelabel, catdesc, baredesc FROM pg_get_keywords() "
                      "WHERE word IN ('abort', 'between', 'authorization', 'select', 'char') ORDER "
                      "BY word"),
                 "abort|U|t|unreserved|can be bare label\n"
                 "authorization|T|t|reserved (can be function or type name)|can be bare label\n"
                 "between|C|t|unreserved (cannot be function or type name)|can be bare label\n"
                 "char|C|f|unreserved (cannot be function or type name)|requires AS\n"
                 "select|R|t|reserved|can be bare label\n");
    /* pgJDBC getSQLKeywords */
    const char *r = q(s, "select string_agg(word, ',') from pg_catalog.pg_get_keywords() where word "
                         "<> ALL ('{a,abs,absolute,action,ada,add,admin,after,all,allocate}'::text[])");
    CHECK(strstr(r, "abort,") == r);
    CHECK(strstr(r, ",absolute,") == NULL);
    q_err(s, "SELECT * FROM pg_get_keywords(1)", "takes no arguments");
    /* aclexplode in a select list: floe's ACLs are NULL, so no rows (DBeaver's role editor) */
    CHECK_EQ_STR(q(s, "SELECT relname, (aclexplode(relacl)).grantee FROM pg_class WHERE relacl IS "
                      "NULL"),
                 "");
    q_err(s, "SELECT (aclexplode('{a=r/b}'::text[])).grantee", "supported only over NULL or empty");
    q_err(s, "SELECT (aclexplode(relacl)).nosuch FROM pg_class", "column \"nosuch\" not found");
    fl_sql_session_close(s);
}

int main(void)
{
    setup();
    TEST_RUN(test_viewdef);
    TEST_RUN(test_sizes);
    TEST_RUN(test_stats_tablespaces_keywords);
    ft_rmtree(g_dir);
    return TEST_EXIT();
}
