/*
 * test_stmt_defaults.c - column defaults as Iceberg v3 write-default /
 * initial-default: ADD COLUMN ... DEFAULT gives old rows the value (as
 * PostgreSQL's ADD COLUMN ... DEFAULT does) and new rows that omit the
 * column; ALTER COLUMN SET / DROP DEFAULT change only what later writes
 * use; INSERT (omitted columns, DEFAULT VALUES, VALUES (DEFAULT)), UPDATE
 * SET c = DEFAULT and MERGE's INSERT take the write-default; CREATE TABLE
 * ... DEFAULT and SHOW CREATE TABLE round-trip; non-constant defaults and v2
 * tables are refused. Also the regression of a SELECT right after ADD
 * COLUMN (no snapshot written since): the scan reads the current schema.
 */
#include "sql/stmt_test_util.h"

static stmt_env E;

static void test_add_column_default(void)
{
    RUN_OK(&E, "CREATE TABLE d1 (a int) WITH (format_version = 3)");
    RUN_OK(&E, "INSERT INTO d1 VALUES (1)");
    RUN_OK(&E, "ALTER TABLE d1 ADD COLUMN b int DEFAULT 5");
    RUN_OK(&E, "ALTER TABLE d1 ADD COLUMN c varchar DEFAULT 'x' || 'y'");
    RUN_OK(&E, "ALTER TABLE d1 ADD COLUMN d decimal(10,2) NOT NULL DEFAULT 3.5");
    RUN_OK(&E, "ALTER TABLE d1 ADD COLUMN ts timestamptz DEFAULT '2024-01-02 03:04:05+00'");
    /* old rows read the initial-default, with no snapshot written since */
    RUN_OK(&E, "SELECT a, b, c, d, CAST(ts AS varchar) FROM d1");
    CHECK_EQ_STR(E.rows, "1|5|xy|3.50|2024-01-02 03:04:05+00\n");
    RUN_OK(&E, "INSERT INTO d1 (a) VALUES (2)");
    RUN_OK(&E,
           "INSERT INTO d1 VALUES (3, DEFAULT, 'z', DEFAULT, DEFAULT), (4, 40, DEFAULT, 1, NULL)");
    RUN_OK(&E, "INSERT INTO d1 DEFAULT VALUES");
    RUN_OK(&E, "SELECT a, b, c, d, ts IS NULL FROM d1 ORDER BY a NULLS FIRST");
    CHECK_EQ_STR(E.rows, "NULL|5|xy|3.50|f\n1|5|xy|3.50|f\n2|5|xy|3.50|f\n3|5|z|3.50|f\n"
                         "4|40|xy|1.00|t\n");
    /* SET DEFAULT changes later writes only; DROP DEFAULT makes them NULL */
    RUN_OK(&E, "ALTER TABLE d1 ALTER COLUMN b SET DEFAULT 9");
    RUN_OK(&E, "INSERT INTO d1 (a) VALUES (5)");
    RUN_OK(&E, "ALTER TABLE d1 ALTER COLUMN b DROP DEFAULT");
    RUN_OK(&E, "INSERT INTO d1 (a) VALUES (6)");
    RUN_OK(&E, "SELECT a, b FROM d1 WHERE a >= 1 ORDER BY a");
    CHECK_EQ_STR(E.rows, "1|5\n2|5\n3|5\n4|40\n5|9\n6|NULL\n");
}

static void test_update_merge_default(void)
{
    RUN_OK(&E, "CREATE TABLE d2 (a int, b int DEFAULT 4, c varchar) WITH (format_version = 3)");
    RUN_OK(&E, "INSERT INTO d2 VALUES (1, 2, 'q')");
    RUN_OK(&E, "UPDATE d2 SET b = DEFAULT, c = DEFAULT");
    RUN_OK(&E, "SELECT a, b, c FROM d2");
    CHECK_EQ_STR(E.rows, "1|4|NULL\n");
    RUN_OK(&E, "MERGE INTO d2 t USING (SELECT 9 AS a) s ON t.a = s.a "
               "WHEN NOT MATCHED THEN INSERT (a) VALUES (s.a)");
    RUN_OK(&E, "MERGE INTO d2 t USING (SELECT 1 AS a) s ON t.a = s.a "
               "WHEN MATCHED THEN UPDATE SET b = 100");
    RUN_OK(&E, "SELECT a, b FROM d2 ORDER BY a");
    CHECK_EQ_STR(E.rows, "1|100\n9|4\n");
}

static void test_create_and_show(void)
{
    RUN_OK(&E, "CREATE TABLE d3 (a int DEFAULT 1, b varchar DEFAULT 'it''s', "
               "c date DEFAULT '2020-01-01', e bytea DEFAULT '\\x01ff', f double precision "
               "DEFAULT 1.5, k boolean DEFAULT true) WITH (format_version = 3)");
    RUN_OK(&E, "INSERT INTO d3 DEFAULT VALUES");
    RUN_OK(&E, "SELECT a, b, CAST(c AS varchar), e = '\\x01ff'::bytea, f, k FROM d3");
    CHECK_EQ_STR(E.rows, "1|it's|2020-01-01|t|1.5|t\n");
    RUN_OK(&E, "SHOW CREATE TABLE d3");
    CHECK(strstr(E.rows, "\"a\" integer DEFAULT 1,") != NULL);
    CHECK(strstr(E.rows, "DEFAULT 'it''s'") != NULL);
    CHECK(strstr(E.rows, "DEFAULT '2020-01-01'") != NULL);
    CHECK(strstr(E.rows, "DEFAULT '\\x01ff'") != NULL);
    CHECK(strstr(E.rows, "DEFAULT true") != NULL);
}

static void test_refusals(void)
{
    RUN_OK(&E, "CREATE TABLE d4 (a int) WITH (format_version = 3)");
    RUN_ERR(&E, "ALTER TABLE d4 ADD COLUMN b int DEFAULT random()", FL_EUNSUPPORTED,
            "must be a constant");
    RUN_ERR(&E, "ALTER TABLE d4 ADD COLUMN b int DEFAULT 'abc'", FL_ETYPE, "abc");
    RUN_ERR(&E, "ALTER TABLE d4 ADD COLUMN b int DEFAULT a", FL_ENOTFOUND, "a");
    RUN_OK(&E, "CREATE TABLE d5 (a int) WITH (format_version = 2)");
    RUN_ERR(&E, "ALTER TABLE d5 ADD COLUMN b int DEFAULT 1", FL_EINVAL, "format version 3");
    RUN_ERR(&E, "CREATE TABLE d6 (a int DEFAULT 1) WITH (format_version = 2)", FL_EINVAL,
            "format version 3");
    RUN_ERR(&E, "ALTER TABLE d5 ALTER COLUMN nosuch SET DEFAULT 1", FL_ENOTFOUND, "nosuch");
    /* nothing was half-applied */
    RUN_OK(&E, "SELECT count(*) FROM information_schema.columns WHERE table_name = 'd4'");
    CHECK_EQ_STR(E.rows, "1\n");
}

/* SELECT after ADD COLUMN with no write since: v2 showed the old columns
 * only, v3 failed ("no top-level column with field id"). */
static void test_select_after_add_column(void)
{
    RUN_OK(&E, "CREATE TABLE s2 (a int) WITH (format_version = 2)");
    RUN_OK(&E, "INSERT INTO s2 VALUES (1)");
    RUN_OK(&E, "ALTER TABLE s2 ADD COLUMN c int");
    RUN_OK(&E, "SELECT * FROM s2");
    CHECK_EQ_STR(E.rows, "1|NULL\n");
    RUN_OK(&E, "UPDATE s2 SET c = 3");
    RUN_OK(&E, "SELECT * FROM s2");
    CHECK_EQ_STR(E.rows, "1|3\n");
    RUN_OK(&E, "CREATE TABLE s3 (a int) WITH (format_version = 3)");
    RUN_OK(&E, "INSERT INTO s3 VALUES (1)");
    RUN_OK(&E, "ALTER TABLE s3 ADD COLUMN c int");
    RUN_OK(&E, "SELECT a, c FROM s3");
    CHECK_EQ_STR(E.rows, "1|NULL\n");
    RUN_OK(&E, "SELECT count(*), count(c), max(a) FROM s3");
    CHECK_EQ_STR(E.rows, "1|0|1\n");
}

int main(void)
{
    if (stmt_env_open(&E) != 0) {
        fprintf(stderr, "setup failed: %s\n", E.err.msg);
        return 1;
    }
    TEST_RUN(test_add_column_default);
    TEST_RUN(test_update_merge_default);
    TEST_RUN(test_create_and_show);
    TEST_RUN(test_refusals);
    TEST_RUN(test_select_after_add_column);
    stmt_env_close(&E);
    return TEST_EXIT();
}
