/*
 * test_stmt_temp.c - temporary tables (src/sql/session_temp*.c):
 * CREATE TEMP TABLE [AS], shadowing of a permanent table of the same name
 * (pg_temp first, as PostgreSQL's search_path), explicit pg_temp / schema
 * qualification, privacy (another session and the shared catalog never see
 * them), DML/ALTER/DROP on them, ON COMMIT DROP | DELETE ROWS | PRESERVE
 * ROWS in and outside transaction blocks, ROLLBACK dropping tables the
 * block created, pg_class/pg_namespace/information_schema rows, a CTE
 * shadowing a temporary table, prepared statements, and session close
 * removing every file.
 */
#include <dirent.h>
#include <sys/stat.h>

#include "sql/stmt_test_util.h"

static stmt_env E;  /* session 1 (E.s replaced by one with spill_dir) */
static stmt_env E2; /* session 2: same catalog */
static char SPILL[320];

static uint32_t count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    uint32_t n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
            n += count_files(p) + 1; /* folders count too: all must go */
        else
            n++;
    }
    closedir(d);
    return n;
}

/* Not ft_open_sqlite: a second session over the stmt_env catalog and
 * FileIO (two sessions must share one catalog to test temp-table scope). */
static fl_sql_session *open_session(void)
{
    fl_sql_options o = {0};
    o.catalog = E.cat;
    o.io = E.io;
    o.default_namespace = "test";
    o.threads = 2;
    o.spill_dir = SPILL;
    fl_sql_session *s = NULL;
    fl_error err = {0};
    if (fl_sql_session_open(&o, &s, &err) != FL_OK)
        fprintf(stderr, "session: %s\n", err.msg);
    return s;
}

static void sqlstate_is(stmt_env *e, const char *want)
{
    fl_sql_error_info info;
    fl_sql_last_error(e->s, &info);
    CHECK_EQ_STR(info.sqlstate, want);
}

static void test_shadowing(void)
{
    RUN_OK(&E, "CREATE TABLE t (a int)");
    RUN_OK(&E, "INSERT INTO t VALUES (1), (2)");
    RUN_OK(&E, "CREATE TEMP TABLE t (a int, b varchar)");
    CHECK_EQ_STR(E.tag, "CREATE TABLE");
    RUN_OK(&E, "INSERT INTO t VALUES (10, 'x'), (20, 'y')");
    CHECK_EQ_STR(E.tag, "INSERT 0 2");
    RUN_OK(&E, "SELECT a, b FROM t ORDER BY a");
    CHECK_EQ_STR(E.rows, "10|x\n20|y\n");
    RUN_OK(&E, "SELECT a FROM test.t ORDER BY a"); /* the permanent one, qualified */
    CHECK_EQ_STR(E.rows, "1\n2\n");
    RUN_OK(&E, "SELECT count(*) FROM pg_temp.t");
    CHECK_EQ_STR(E.rows, "2\n");
    RUN_OK(&E, "SELECT t.a, p.a FROM t JOIN test.t p ON p.a * 10 = t.a ORDER BY 1");
    CHECK_EQ_STR(E.rows, "10|1\n20|2\n");
    /* DML and ALTER go to the temporary table */
    RUN_OK(&E, "UPDATE t SET b = 'z' WHERE a = 20");
    CHECK_EQ_STR(E.tag, "UPDATE 1");
    RUN_OK(&E, "DELETE FROM t WHERE a = 10");
    CHECK_EQ_STR(E.tag, "DELETE 1");
    RUN_OK(&E, "ALTER TABLE t ADD COLUMN c int");
    RUN_OK(&E, "INSERT INTO t VALUES (30, 'w', 3)");
    RUN_OK(&E, "SELECT a, b, c FROM t ORDER BY a");
    CHECK_EQ_STR(E.rows, "20|z|NULL\n30|w|3\n");
    /* another session and the shared catalog see only the permanent table */
    RUN_OK(&E2, "SELECT a FROM t ORDER BY a");
    CHECK_EQ_STR(E2.rows, "1\n2\n");
    RUN_ERR(&E2, "SELECT * FROM pg_temp.t", FL_ENOTFOUND, "does not exist");
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_namespace *ns = NULL;
    uint32_t nns = 0;
    fl_error err = {0};
    CHECK_OK(E.cat->ops->list_namespaces(E.cat, NULL, &a, &ns, &nns, &err), &err);
    for (uint32_t i = 0; i < nns; i++)
        CHECK(strncmp(ns[i].levels[0], "pg_temp", 7) != 0);
    fl_arena_free(&a);
    /* the permanent table was not touched */
    RUN_OK(&E2, "SELECT count(*) FROM t");
    CHECK_EQ_STR(E2.rows, "2\n");
    /* DROP takes the temporary table first, then the permanent one shows */
    RUN_OK(&E, "DROP TABLE t");
    RUN_OK(&E, "SELECT a FROM t ORDER BY a");
    CHECK_EQ_STR(E.rows, "1\n2\n");
    RUN_OK(&E, "DROP TABLE t");
    RUN_ERR(&E, "SELECT * FROM t", FL_ENOTFOUND, "does not exist");
}

static void test_ctas_and_names(void)
{
    RUN_OK(&E, "CREATE TEMP TABLE c AS SELECT g AS n, g * 2 AS m FROM generate_series(1, 3) g");
    CHECK_EQ_STR(E.tag, "SELECT 3");
    RUN_OK(&E, "SELECT sum(m) FROM c");
    CHECK_EQ_STR(E.rows, "12\n");
    RUN_OK(&E, "CREATE TEMP TABLE IF NOT EXISTS c (x int)");
    RUN_OK(&E, "SELECT count(*) FROM c");
    CHECK_EQ_STR(E.rows, "3\n");
    RUN_ERR(&E, "CREATE TEMPORARY TABLE c (x int)", FL_EEXIST, "already exists");
    sqlstate_is(&E, "42P07");
    /* a CTE of the same name wins over the temporary table, as in PG */
    RUN_OK(&E, "WITH c AS (SELECT 42 AS n) SELECT n FROM c");
    CHECK_EQ_STR(E.rows, "42\n");
    /* temporary tables cannot live in another schema or at a location */
    RUN_ERR(&E, "CREATE TEMP TABLE test.x (a int)", FL_EUNSUPPORTED, "temporary");
    sqlstate_is(&E, "0A000");
    RUN_ERR(&E, "CREATE TEMP TABLE x (a int) WITH (location = '/tmp/x')", FL_EUNSUPPORTED,
            "location");
    /* explicit pg_temp creation and rename */
    RUN_OK(&E, "CREATE TABLE pg_temp.p (a int)");
    RUN_OK(&E, "ALTER TABLE p RENAME TO q");
    RUN_OK(&E, "INSERT INTO q VALUES (7)");
    RUN_OK(&E, "SELECT a FROM pg_temp.q");
    CHECK_EQ_STR(E.rows, "7\n");
    /* a permanent CREATE TABLE of a temporary table's name creates the permanent one */
    RUN_OK(&E, "CREATE TABLE q (z varchar)");
    RUN_OK(&E2, "SELECT count(*) FROM q");
    CHECK_EQ_STR(E2.rows, "0\n");
    RUN_OK(&E, "SELECT a FROM q"); /* still the temporary one */
    CHECK_EQ_STR(E.rows, "7\n");
    RUN_OK(&E, "DROP TABLE test.q");
    RUN_OK(&E, "DROP TABLE q, c");
    RUN_ERR(&E, "SELECT * FROM c", FL_ENOTFOUND, "does not exist");
    /* prepared statements see temporary tables */
    RUN_OK(&E, "CREATE TEMP TABLE pr (a int)");
    RUN_OK(&E, "INSERT INTO pr VALUES (1), (5)");
    fl_sql_stmt *st = NULL;
    fl_error err = {0};
    CHECK_OK(fl_sql_prepare(E.s, "SELECT count(*) FROM pr WHERE a > $1", &st, &err), &err);
    CHECK_EQ_INT(fl_sql_stmt_nparams(st), 1);
    fl_value v = {.type = {.id = FL_TYPE_INT32}, .v.i32 = 2};
    fl_sql_result *r = NULL;
    CHECK_OK(fl_sql_stmt_execute(st, &v, 1, &r, &err), &err);
    const fl_batch *b = NULL;
    bool eof = false;
    CHECK_OK(fl_sql_result_next(r, &b, &eof, &err), &err);
    CHECK(b && b->nrows == 1);
    if (b) {
        char cell[32];
        fl_sql_format_value(&b->cols[0], 0, "UTC", cell, sizeof cell);
        CHECK_EQ_STR(cell, "1");
    }
    fl_sql_result_close(r);
    fl_sql_stmt_close(st);
    RUN_OK(&E, "DROP TABLE pr");
}

static void test_on_commit(void)
{
    /* outside a block the CREATE is its own transaction: the table is gone */
    RUN_OK(&E, "CREATE TEMP TABLE d1 (a int) ON COMMIT DROP");
    RUN_ERR(&E, "SELECT * FROM d1", FL_ENOTFOUND, "does not exist");
    RUN_OK(&E, "BEGIN");
    RUN_OK(&E, "CREATE TEMP TABLE d2 (a int) ON COMMIT DROP");
    RUN_OK(&E, "INSERT INTO d2 VALUES (1)");
    RUN_OK(&E, "SELECT count(*) FROM d2");
    CHECK_EQ_STR(E.rows, "1\n");
    RUN_OK(&E, "COMMIT");
    RUN_ERR(&E, "SELECT * FROM d2", FL_ENOTFOUND, "does not exist");
    /* DELETE ROWS: rows live until the transaction ends */
    RUN_OK(&E, "CREATE TEMP TABLE dr (a int) ON COMMIT DELETE ROWS");
    RUN_OK(&E, "INSERT INTO dr VALUES (1), (2)"); /* autocommit: emptied at once */
    RUN_OK(&E, "SELECT count(*) FROM dr");
    CHECK_EQ_STR(E.rows, "0\n");
    RUN_OK(&E, "BEGIN");
    RUN_OK(&E, "INSERT INTO dr VALUES (1), (2)");
    RUN_OK(&E, "INSERT INTO dr VALUES (3)");
    RUN_OK(&E, "SELECT sum(a) FROM dr");
    CHECK_EQ_STR(E.rows, "6\n");
    RUN_OK(&E, "COMMIT");
    RUN_OK(&E, "SELECT count(*) FROM dr");
    CHECK_EQ_STR(E.rows, "0\n");
    /* PRESERVE ROWS (and the default) keep them */
    RUN_OK(&E, "CREATE TEMP TABLE pr (a int) ON COMMIT PRESERVE ROWS");
    RUN_OK(&E, "BEGIN");
    RUN_OK(&E, "INSERT INTO pr VALUES (1)");
    RUN_OK(&E, "COMMIT");
    RUN_OK(&E, "SELECT count(*) FROM pr");
    CHECK_EQ_STR(E.rows, "1\n");
    /* ROLLBACK drops the temporary tables the block created, not the others */
    RUN_OK(&E, "BEGIN");
    RUN_OK(&E, "CREATE TEMP TABLE rb (a int)");
    RUN_OK(&E, "INSERT INTO pr VALUES (2)");
    RUN_OK(&E, "ROLLBACK");
    RUN_ERR(&E, "SELECT * FROM rb", FL_ENOTFOUND, "does not exist");
    RUN_OK(&E, "SELECT count(*) FROM pr");
    CHECK_EQ_STR(E.rows, "1\n");
    RUN_OK(&E, "DROP TABLE pr, dr");
}

static void test_pg_catalog(void)
{
    RUN_OK(&E, "CREATE TABLE perm (a int)");
    RUN_OK(&E, "CREATE TEMP TABLE tmp1 (a int, b text)");
    RUN_OK(&E, "SELECT c.relname, c.relpersistence, n.nspname LIKE 'pg_temp\\_%' FROM pg_class c "
               "JOIN pg_namespace n ON n.oid = c.relnamespace "
               "WHERE c.relname IN ('perm', 'tmp1') ORDER BY 1");
    CHECK_EQ_STR(E.rows, "perm|p|f\ntmp1|t|t\n");
    RUN_OK(&E, "SELECT table_type FROM information_schema.tables WHERE table_name = 'tmp1'");
    CHECK_EQ_STR(E.rows, "LOCAL TEMPORARY\n");
    RUN_OK(&E, "SELECT count(*) FROM information_schema.columns WHERE table_name = 'tmp1'");
    CHECK_EQ_STR(E.rows, "2\n");
    /* the other session's pg_class has no temporary table */
    RUN_OK(&E2, "SELECT count(*) FROM pg_class WHERE relname = 'tmp1'");
    CHECK_EQ_STR(E2.rows, "0\n");
    RUN_OK(&E2, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'pg_temp%'");
    CHECK_EQ_STR(E2.rows, "0\n");
    RUN_OK(&E, "DROP TABLE perm");
}

static void test_close_removes_files(void)
{
    fl_sql_session *s = open_session();
    CHECK(s != NULL);
    if (!s)
        return;
    stmt_env e3 = E;
    e3.s = s;
    uint32_t f0 = count_files(SPILL);
    RUN_OK(&e3, "CREATE TEMP TABLE big AS SELECT g AS n FROM generate_series(1, 1000) g");
    RUN_OK(&e3, "CREATE TEMP TABLE other (a int)");
    RUN_OK(&e3, "INSERT INTO other VALUES (1)");
    CHECK(count_files(SPILL) > f0 + 4);
    RUN_OK(&e3, "DROP TABLE other");
    fl_sql_session_close(s); /* like a dropped connection */
    CHECK_EQ_INT(count_files(SPILL), f0);
}

int main(void)
{
    if (stmt_env_open(&E) != 0) {
        fprintf(stderr, "setup: %s\n", E.err.msg);
        return 1;
    }
    snprintf(SPILL, sizeof SPILL, "%s/spill", E.dir);
    if (mkdir(SPILL, 0777) != 0)
        return 1;
    fl_sql_session_close(E.s);
    E.s = open_session();
    E2 = E;
    E2.s = open_session();
    if (!E.s || !E2.s)
        return 1;
    RUN_OK(&E, "CREATE SCHEMA IF NOT EXISTS test");
    TEST_RUN(test_shadowing);
    TEST_RUN(test_ctas_and_names);
    TEST_RUN(test_on_commit);
    TEST_RUN(test_pg_catalog);
    TEST_RUN(test_close_removes_files);
    fl_sql_session_close(E2.s);
    E2.s = NULL;
    fl_sql_session_close(E.s);
    E.s = NULL;
    uint32_t left = count_files(SPILL);
    if (left) {
        fprintf(stderr, "FAIL: %u files left in %s after the sessions closed\n", left, SPILL);
        test_failures_++;
    }
    stmt_env_close(&E);
    return TEST_EXIT();
}
