/*
 * test_stmt_txn.c - transaction blocks through the SQL API (src/sql/stmt/
 * txn_*.c): staged DML is read back by its own session only; COMMIT
 * publishes every statement in one catalog swap per table; ROLLBACK leaves
 * the table (snapshot id, rows, files on disk) exactly as it was; a failed
 * block refuses statements (25P02) and COMMIT becomes ROLLBACK; savepoints;
 * a concurrent append is rebased at COMMIT, a conflicting rewrite fails
 * with 40001; READ ONLY blocks refuse writes (25006); DDL on a staged table
 * is refused, other DDL commits at once; UPDATE and MERGE make one snapshot.
 */
#include <dirent.h>
#include <sys/stat.h>

#include "sql/stmt_test_util.h"

static stmt_env E;
static fl_sql_session *S2; /* a second session on the same catalog */

static int run2(const char *sql, char *rows, size_t cap)
{
    fl_sql_result *r = NULL;
    fl_error err = {0};
    int rc = fl_sql_execute(S2, sql, &r, &err);
    if (rc != FL_OK) {
        fprintf(stderr, "S2: %s: %s\n", sql, err.msg);
        return rc;
    }
    size_t used = 0;
    rows[0] = '\0';
    for (;;) {
        const fl_batch *b = NULL;
        bool eof = false;
        rc = fl_sql_result_next(r, &b, &eof, &err);
        if (rc != FL_OK || eof || !b)
            break;
        for (uint32_t k = 0; k < fl_batch_live_rows(b); k++) {
            uint32_t row = b->sel ? b->sel->idx[k] : k;
            char cell[128];
            fl_sql_format_value(&b->cols[0], row, "UTC", cell, sizeof cell);
            used += (size_t)snprintf(rows + used, cap - used, "%s\n", cell);
            if (used >= cap - 1)
                used = cap - 1;
        }
    }
    fl_sql_result_close(r);
    return rc;
}

static int64_t current_snapshot(const char *table)
{
    fl_ice_table *t = stmt_load(&E, table);
    int64_t id = t ? t->meta.current_snapshot_id : -2;
    fl_ice_table_free(t);
    return id;
}

static uint32_t nsnapshots(const char *table)
{
    fl_ice_table *t = stmt_load(&E, table);
    uint32_t n = t ? t->meta.nsnapshots : 0;
    fl_ice_table_free(t);
    return n;
}

/* Files under dir, recursively. */
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
            n += count_files(p);
        else
            n++;
    }
    closedir(d);
    return n;
}

static uint32_t warehouse_files(void)
{
    char p[400];
    snprintf(p, sizeof p, "%s/wh", E.dir);
    return count_files(p);
}

static void make_table(const char *name, int version, const char *rows)
{
    char sql[512];
    snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS %s", name);
    RUN_OK(&E, sql);
    snprintf(sql, sizeof sql, "CREATE TABLE %s (id int NOT NULL, v varchar) WITH (format_version = %d)",
             name, version);
    RUN_OK(&E, sql);
    if (rows) {
        snprintf(sql, sizeof sql, "INSERT INTO %s VALUES %s", name, rows);
        RUN_OK(&E, sql);
    }
}

static void test_commit_visibility(void)
{
    make_table("a", 2, "(1, 'x')");
    int64_t s0 = current_snapshot("test.a");
    uint32_t n0 = nsnapshots("test.a");
    char rows[4096];
    RUN_OK(&E, "BEGIN");
    CHECK_EQ_STR(E.tag, "BEGIN");
    RUN_OK(&E, "INSERT INTO a VALUES (2, 'y'), (3, 'z')");
    CHECK_EQ_STR(E.tag, "INSERT 0 2");
    RUN_OK(&E, "INSERT INTO a SELECT id + 10, v FROM a WHERE id >= 2"); /* reads its own rows */
    CHECK_EQ_STR(E.tag, "INSERT 0 2");
    RUN_OK(&E, "DELETE FROM a WHERE id = 1 OR id = 12"); /* a committed and a staged row */
    CHECK_EQ_STR(E.tag, "DELETE 2");
    RUN_OK(&E, "UPDATE a SET v = 'Y' WHERE id = 2");
    CHECK_EQ_STR(E.tag, "UPDATE 1");
    RUN_OK(&E, "SELECT id, v FROM a ORDER BY id");
    CHECK_EQ_STR(E.rows, "2|Y\n3|z\n13|z\n");
    /* nothing is visible outside the session, and nothing was committed */
    CHECK_EQ_INT(run2("SELECT id FROM a ORDER BY id", rows, sizeof rows), FL_OK);
    CHECK_EQ_STR(rows, "1\n");
    CHECK(current_snapshot("test.a") == s0);
    RUN_OK(&E, "COMMIT");
    CHECK_EQ_STR(E.tag, "COMMIT");
    CHECK_EQ_INT(run2("SELECT id FROM a ORDER BY id", rows, sizeof rows), FL_OK);
    CHECK_EQ_STR(rows, "2\n3\n13\n");
    /* four statements, four snapshots (UPDATE is one), one commit */
    CHECK_EQ_INT(nsnapshots("test.a"), n0 + 4);
    fl_ice_table *t = stmt_load(&E, "test.a");
    CHECK(t != NULL);
    if (t) {
        const fl_ice_snapshot *h = fl_ice_metadata_current_snapshot(&t->meta);
        CHECK(h && !strcmp(h->operation, "overwrite"));
    }
    fl_ice_table_free(t);
    RUN_OK(&E, "SELECT id, v FROM a ORDER BY id");
    CHECK_EQ_STR(E.rows, "2|Y\n3|z\n13|z\n");
}

static void test_rollback(void)
{
    make_table("b", 2, "(1, 'x'), (2, 'y')");
    int64_t s0 = current_snapshot("test.b");
    uint32_t f0 = warehouse_files();
    RUN_OK(&E, "BEGIN");
    RUN_OK(&E, "INSERT INTO b VALUES (3, 'z')");
    RUN_OK(&E, "DELETE FROM b WHERE id = 1");
    RUN_OK(&E, "UPDATE b SET v = 'w' WHERE id = 3");
    RUN_OK(&E, "MERGE INTO b USING (VALUES (2, 'm'), (9, 'n')) s(id, v) ON b.id = s.id "
               "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)");
    CHECK_EQ_STR(E.tag, "MERGE 2");
    RUN_OK(&E, "SELECT id, v FROM b ORDER BY id");
    CHECK_EQ_STR(E.rows, "2|m\n3|w\n9|n\n");
    CHECK(warehouse_files() > f0);
    RUN_OK(&E, "ROLLBACK");
    CHECK_EQ_STR(E.tag, "ROLLBACK");
    CHECK(current_snapshot("test.b") == s0);
    RUN_OK(&E, "SELECT id, v FROM b ORDER BY id");
    CHECK_EQ_STR(E.rows, "1|x\n2|y\n");
    CHECK_EQ_INT(warehouse_files(), f0); /* data, delete, manifest and preview files deleted */
}

static void test_failed_block(void)
{
    make_table("c", 2, "(1, 'x')");
    int64_t s0 = current_snapshot("test.c");
    RUN_OK(&E, "BEGIN");
    RUN_OK(&E, "INSERT INTO c VALUES (2, 'y')");
    RUN_ERR(&E, "SELECT nope FROM c", FL_ENOTFOUND, "nope");
    RUN_ERR(&E, "SELECT 1", FL_EINVAL, "current transaction is aborted");
    fl_sql_error_info ei;
    fl_sql_last_error(E.s, &ei);
    CHECK_EQ_STR(ei.sqlstate, "25P02");
    RUN_OK(&E, "COMMIT");
    CHECK_EQ_STR(E.tag, "ROLLBACK");
    CHECK(current_snapshot("test.c") == s0);
    RUN_OK(&E, "SELECT count(*) FROM c");
    CHECK_EQ_STR(E.rows, "1\n");
    /* outside a block, COMMIT and ROLLBACK do nothing */
    RUN_OK(&E, "COMMIT");
    RUN_OK(&E, "ROLLBACK");
    RUN_ERR(&E, "SAVEPOINT s", FL_EINVAL, "transaction blocks");
}

static void test_savepoints(void)
{
    make_table("d", 2, NULL);
    uint32_t f0 = warehouse_files();
    RUN_OK(&E, "BEGIN");
    RUN_OK(&E, "INSERT INTO d VALUES (1, 'a')");
    RUN_OK(&E, "SAVEPOINT s1");
    RUN_OK(&E, "INSERT INTO d VALUES (2, 'b')");
    RUN_OK(&E, "DELETE FROM d WHERE id = 1");
    RUN_OK(&E, "SELECT id FROM d ORDER BY id");
    CHECK_EQ_STR(E.rows, "2\n");
    RUN_OK(&E, "ROLLBACK TO SAVEPOINT s1");
    RUN_OK(&E, "SELECT id FROM d ORDER BY id");
    CHECK_EQ_STR(E.rows, "1\n");
    RUN_ERR(&E, "SELECT missing_column FROM d", FL_ENOTFOUND, "missing_column");
    RUN_OK(&E, "ROLLBACK TO s1"); /* leaves the failed state */
    RUN_OK(&E, "INSERT INTO d VALUES (3, 'c')");
    RUN_ERR(&E, "RELEASE SAVEPOINT nosuch", FL_ENOTFOUND, "does not exist");
    fl_sql_error_info ei;
    fl_sql_last_error(E.s, &ei);
    CHECK_EQ_STR(ei.sqlstate, "3B001");
    RUN_OK(&E, "ROLLBACK TO s1");
    RUN_OK(&E, "INSERT INTO d VALUES (3, 'c')");
    RUN_OK(&E, "RELEASE s1");
    RUN_OK(&E, "COMMIT");
    RUN_OK(&E, "SELECT id, v FROM d ORDER BY id");
    CHECK_EQ_STR(E.rows, "1|a\n3|c\n");
    (void)f0;
}

static void test_concurrent(void)
{
    make_table("e", 2, "(1, 'x')");
    char rows[4096];
    RUN_OK(&E, "BEGIN");
    RUN_OK(&E, "INSERT INTO e VALUES (2, 'mine')");
    CHECK_EQ_INT(run2("INSERT INTO e VALUES (3, 'theirs')", rows, sizeof rows), FL_OK);
    RUN_OK(&E, "COMMIT"); /* the append is rebased on the concurrent one */
    RUN_OK(&E, "SELECT id FROM e ORDER BY id");
    CHECK_EQ_STR(E.rows, "1\n2\n3\n");

    /* copy-on-write (format 1): both rewrite the same file: the block loses */
    make_table("f", 1, "(1, 'x'), (2, 'y')");
    RUN_OK(&E, "BEGIN");
    RUN_OK(&E, "UPDATE f SET v = 'mine' WHERE id = 1");
    CHECK_EQ_INT(run2("DELETE FROM f WHERE id = 2", rows, sizeof rows), FL_OK);
    RUN_ERR(&E, "COMMIT", FL_ECONFLICT, "concurrent");
    fl_sql_error_info ei;
    fl_sql_last_error(E.s, &ei);
    CHECK_EQ_STR(ei.sqlstate, "40001");
    RUN_OK(&E, "SELECT id, v FROM f ORDER BY id"); /* the block is over */
    CHECK_EQ_STR(E.rows, "1|x\n");
}

static void test_ddl_and_read_only(void)
{
    make_table("g", 2, "(1, 'x')");
    make_table("h", 2, NULL);
    RUN_OK(&E, "BEGIN");
    RUN_OK(&E, "INSERT INTO g VALUES (2, 'y')");
    RUN_ERR(&E, "ALTER TABLE g ADD COLUMN w int", FL_EUNSUPPORTED, "uncommitted changes");
    RUN_OK(&E, "ROLLBACK");
    RUN_OK(&E, "BEGIN");
    RUN_OK(&E, "INSERT INTO g VALUES (2, 'y')");
    RUN_ERR(&E, "DROP TABLE g", FL_EUNSUPPORTED, "uncommitted changes");
    RUN_OK(&E, "ROLLBACK");
    RUN_OK(&E, "BEGIN");
    RUN_OK(&E, "INSERT INTO g VALUES (2, 'y')");
    RUN_OK(&E, "ALTER TABLE h ADD COLUMN w int"); /* another table: commits at once */
    RUN_OK(&E, "ROLLBACK");
    RUN_OK(&E, "SELECT count(*) FROM g");
    CHECK_EQ_STR(E.rows, "1\n");
    RUN_OK(&E, "SELECT count(w) FROM h");
    CHECK_EQ_STR(E.rows, "0\n");

    RUN_OK(&E, "BEGIN READ ONLY");
    RUN_OK(&E, "SELECT count(*) FROM g");
    RUN_ERR(&E, "INSERT INTO g VALUES (5, 'r')", FL_EINVAL, "read-only transaction");
    fl_sql_error_info ei;
    fl_sql_last_error(E.s, &ei);
    CHECK_EQ_STR(ei.sqlstate, "25006");
    RUN_OK(&E, "ROLLBACK");
    /* a TRUNCATE inside a block is undone by ROLLBACK too */
    RUN_OK(&E, "START TRANSACTION ISOLATION LEVEL SERIALIZABLE");
    RUN_OK(&E, "TRUNCATE g");
    RUN_OK(&E, "SELECT count(*) FROM g");
    CHECK_EQ_STR(E.rows, "0\n");
    RUN_OK(&E, "ROLLBACK");
    RUN_OK(&E, "SELECT count(*) FROM g");
    CHECK_EQ_STR(E.rows, "1\n");
}

static void test_close_discards(void)
{
    make_table("k", 2, NULL);
    uint32_t f0 = warehouse_files();
    fl_sql_options o = {0};
    o.catalog = E.cat;
    o.io = E.io;
    o.default_namespace = "test";
    fl_sql_session *s = NULL;
    CHECK_OK(fl_sql_session_open(&o, &s, &E.err), &E.err);
    fl_sql_result *r = NULL;
    CHECK_OK(fl_sql_execute(s, "BEGIN", &r, &E.err), &E.err);
    fl_sql_result_close(r);
    CHECK_OK(fl_sql_execute(s, "INSERT INTO k VALUES (1, 'a')", &r, &E.err), &E.err);
    fl_sql_result_close(r);
    fl_sql_session_close(s); /* like a dropped connection */
    RUN_OK(&E, "SELECT count(*) FROM k");
    CHECK_EQ_STR(E.rows, "0\n");
    CHECK_EQ_INT(warehouse_files(), f0);
}

int main(void)
{
    if (stmt_env_open(&E) != 0) {
        fprintf(stderr, "setup: %s\n", E.err.msg);
        return 1;
    }
    fl_sql_options o = {0};
    o.catalog = E.cat;
    o.io = E.io;
    o.default_namespace = "test";
    if (fl_sql_session_open(&o, &S2, &E.err) != FL_OK)
        return 1;
    RUN_OK(&E, "CREATE SCHEMA IF NOT EXISTS test");
    TEST_RUN(test_commit_visibility);
    TEST_RUN(test_rollback);
    TEST_RUN(test_failed_block);
    TEST_RUN(test_savepoints);
    TEST_RUN(test_concurrent);
    TEST_RUN(test_ddl_and_read_only);
    TEST_RUN(test_close_discards);
    fl_sql_session_close(S2);
    stmt_env_close(&E);
    return TEST_EXIT();
}
