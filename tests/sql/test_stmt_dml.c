/*
 * test_stmt_dml.c - DML through the SQL API (src/sql/stmt/): INSERT
 * (VALUES, SELECT, column lists, casts, errors), DELETE (WHERE, USING,
 * all rows), UPDATE (SET, FROM), MERGE (update/delete/insert, conditions,
 * double matches), TRUNCATE, CREATE TABLE AS, and table maintenance
 * (ALTER TABLE EXECUTE). Each DML statement must be exactly one commit:
 * the metadata log grows by one per statement (none for no-ops), and the
 * rows read back through SELECT are the expected ones, on merge-on-read
 * (format 2) and copy-on-write (format 1) tables.
 */
#include "sql/stmt_test_util.h"

static stmt_env E;

static uint32_t log_len(const char *table)
{
    fl_ice_table *t = stmt_load(&E, table);
    uint32_t n = t ? t->meta.nmetadata_log + 1 : 0;
    fl_ice_table_free(t);
    return n;
}

static void setup_table(const char *name, int version)
{
    char sql[256];
    snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS %s", name);
    RUN_OK(&E, sql);
    snprintf(sql, sizeof sql,
             "CREATE TABLE %s (id int NOT NULL, v varchar, amount decimal(10,2)) "
             "WITH (format_version = %d)",
             name, version);
    RUN_OK(&E, sql);
}

static void check_rows(const char *table, const char *want)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT id, v, amount FROM %s ORDER BY id", table);
    RUN_OK(&E, sql);
    CHECK_EQ_STR(E.rows, want);
}

static void test_insert(void)
{
    setup_table("t1", 2);
    uint32_t l0 = log_len("test.t1");
    RUN_OK(&E, "INSERT INTO t1 VALUES (1, 'a', 1.5), (2, 'b', 2), (3, NULL, NULL)");
    CHECK_EQ_STR(E.tag, "INSERT 0 3");
    CHECK_EQ_INT(log_len("test.t1"), l0 + 1);
    RUN_OK(&E, "INSERT INTO t1 (v, id) VALUES ('e', 5)");
    CHECK_EQ_STR(E.tag, "INSERT 0 1");
    RUN_OK(&E, "INSERT INTO t1 SELECT id + 10, upper(v), amount * 2 FROM t1 WHERE id <= 2");
    CHECK_EQ_STR(E.tag, "INSERT 0 2");
    RUN_OK(&E, "INSERT INTO t1 SELECT id, v, amount FROM t1 WHERE id > 100");
    CHECK_EQ_STR(E.tag, "INSERT 0 0");
    CHECK_EQ_INT(log_len("test.t1"), l0 + 3); /* no commit for no rows */
    check_rows("t1", "1|a|1.50\n2|b|2.00\n3|NULL|NULL\n5|e|NULL\n11|A|3.00\n12|B|4.00\n");
    /* errors: nothing committed */
    RUN_ERR(&E, "INSERT INTO t1 VALUES (1, 'x', 1, 4)", FL_EINVAL, "more expressions");
    RUN_ERR(&E, "INSERT INTO t1 (v) VALUES ('x')", FL_EINVAL, "not-null");
    RUN_ERR(&E, "INSERT INTO t1 (id, nope) VALUES (1, 2)", FL_ENOTFOUND, "nope");
    RUN_ERR(&E, "INSERT INTO t1 (id, id) VALUES (1, 2)", FL_EINVAL, "more than once");
    RUN_ERR(&E, "INSERT INTO t1 VALUES (NULL, 'x', 1)", FL_EINVAL, "required");
    RUN_ERR(&E, "INSERT INTO nosuch VALUES (1)", FL_ENOTFOUND, "nosuch");
    CHECK_EQ_INT(log_len("test.t1"), l0 + 3);
}

static void test_delete(int version)
{
    const char *t = version == 1 ? "d1" : "d2";
    setup_table(t, version);
    char sql[512];
    snprintf(sql, sizeof sql,
             "INSERT INTO %s VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3), (4, 'd', 4)", t);
    RUN_OK(&E, sql);
    char full[64];
    snprintf(full, sizeof full, "test.%s", t);
    uint32_t l0 = log_len(full);
    snprintf(sql, sizeof sql, "DELETE FROM %s WHERE id IN (2, 3)", t);
    RUN_OK(&E, sql);
    CHECK_EQ_STR(E.tag, "DELETE 2");
    CHECK_EQ_INT(log_len(full), l0 + 1);
    check_rows(t, "1|a|1.00\n4|d|4.00\n");
    snprintf(sql, sizeof sql, "DELETE FROM %s WHERE v = 'zzz'", t);
    RUN_OK(&E, sql);
    CHECK_EQ_STR(E.tag, "DELETE 0");
    CHECK_EQ_INT(log_len(full), l0 + 1);
    /* USING: delete the rows whose id is in another table */
    RUN_OK(&E, "DROP TABLE IF EXISTS victims");
    RUN_OK(&E, "CREATE TABLE victims (id int)");
    RUN_OK(&E, "INSERT INTO victims VALUES (4), (4), (9)");
    snprintf(sql, sizeof sql, "DELETE FROM %s x USING victims w WHERE x.id = w.id", t);
    RUN_OK(&E, sql);
    CHECK_EQ_STR(E.tag, "DELETE 1");
    check_rows(t, "1|a|1.00\n");
    snprintf(sql, sizeof sql, "DELETE FROM %s", t);
    RUN_OK(&E, sql);
    CHECK_EQ_STR(E.tag, "DELETE 1");
    check_rows(t, "");
}

static void test_delete_v2(void)
{
    test_delete(2);
}
static void test_delete_v1(void)
{
    test_delete(1);
}

static void test_update(void)
{
    setup_table("u1", 2);
    RUN_OK(&E, "INSERT INTO u1 VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)");
    uint32_t l0 = log_len("test.u1");
    RUN_OK(&E, "UPDATE u1 SET v = v || '!', amount = amount + 10 WHERE id >= 2");
    CHECK_EQ_STR(E.tag, "UPDATE 2");
    CHECK_EQ_INT(log_len("test.u1"), l0 + 1);
    check_rows("u1", "1|a|1.00\n2|b!|12.00\n3|c!|13.00\n");
    RUN_OK(&E, "UPDATE u1 SET amount = 0 WHERE id = 42");
    CHECK_EQ_STR(E.tag, "UPDATE 0");
    CHECK_EQ_INT(log_len("test.u1"), l0 + 1);
    /* FROM */
    RUN_OK(&E, "DROP TABLE IF EXISTS prices");
    RUN_OK(&E, "CREATE TABLE prices (id int, p decimal(10,2))");
    RUN_OK(&E, "INSERT INTO prices VALUES (1, 100), (3, 300)");
    RUN_OK(&E, "UPDATE u1 SET amount = prices.p FROM prices WHERE u1.id = prices.id");
    CHECK_EQ_STR(E.tag, "UPDATE 2");
    check_rows("u1", "1|a|100.00\n2|b!|12.00\n3|c!|300.00\n");
    RUN_OK(&E, "INSERT INTO prices VALUES (1, 5)");
    RUN_ERR(&E, "UPDATE u1 SET amount = prices.p FROM prices WHERE u1.id = prices.id", FL_EINVAL,
            "more than one");
    RUN_ERR(&E, "UPDATE u1 SET nope = 1", FL_ENOTFOUND, "nope");
    RUN_ERR(&E, "UPDATE u1 SET id = NULL WHERE id = 1", FL_EINVAL, "required");
    check_rows("u1", "1|a|100.00\n2|b!|12.00\n3|c!|300.00\n");
}

static void test_merge(void)
{
    setup_table("m1", 2);
    RUN_OK(&E, "INSERT INTO m1 VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)");
    uint32_t l0 = log_len("test.m1");
    RUN_OK(&E, "MERGE INTO m1 t USING (VALUES (1, 'x', 10.0), (2, 'del', 0), (7, 'n', 70)) "
               "AS s(id, v, amount) ON t.id = s.id "
               "WHEN MATCHED AND s.v = 'del' THEN DELETE "
               "WHEN MATCHED THEN UPDATE SET v = s.v, amount = s.amount "
               "WHEN NOT MATCHED THEN INSERT (id, v, amount) VALUES (s.id, s.v, s.amount)");
    CHECK_EQ_STR(E.tag, "MERGE 3");
    CHECK_EQ_INT(log_len("test.m1"), l0 + 1);
    check_rows("m1", "1|x|10.00\n3|c|3.00\n7|n|70.00\n");
    /* conditions on NOT MATCHED, DO NOTHING */
    RUN_OK(&E, "MERGE INTO m1 USING (VALUES (3, 'skip'), (8, 'ins'), (9, 'no')) AS s(id, v) "
               "ON m1.id = s.id WHEN MATCHED THEN DO NOTHING "
               "WHEN NOT MATCHED AND s.v <> 'no' THEN INSERT VALUES (s.id, s.v)");
    CHECK_EQ_STR(E.tag, "MERGE 1");
    check_rows("m1", "1|x|10.00\n3|c|3.00\n7|n|70.00\n8|ins|NULL\n");
    /* a target row matched twice */
    RUN_ERR(&E, "MERGE INTO m1 USING (VALUES (1), (1)) AS s(id) ON m1.id = s.id "
                "WHEN MATCHED THEN UPDATE SET v = 'twice'",
            FL_EINVAL, "second time");
    check_rows("m1", "1|x|10.00\n3|c|3.00\n7|n|70.00\n8|ins|NULL\n");
}

static void test_truncate_ctas(void)
{
    RUN_OK(&E, "DROP TABLE IF EXISTS c1");
    RUN_OK(&E, "CREATE TABLE c1 WITH (partitioning = ARRAY['b']) AS "
               "SELECT id, v AS b, amount * 2 AS twice FROM m1 WHERE id < 8");
    CHECK_EQ_STR(E.tag, "SELECT 3");
    RUN_OK(&E, "SELECT id, b, twice FROM c1 ORDER BY id");
    CHECK_EQ_STR(E.rows, "1|x|20.00\n3|c|6.00\n7|n|140.00\n");
    fl_ice_table *t = stmt_load(&E, "test.c1");
    CHECK(t && t->meta.nsnapshots == 1 && t->meta.nmetadata_log == 0);
    fl_ice_table_free(t);
    RUN_ERR(&E, "CREATE TABLE c1 AS SELECT 1 AS x", FL_EEXIST, "already exists");
    RUN_OK(&E, "CREATE TABLE IF NOT EXISTS c1 AS SELECT 1 AS x");
    RUN_OK(&E, "CREATE TABLE c2 (x, y) AS SELECT 1, 'a' WITH NO DATA");
    RUN_OK(&E, "SELECT count(*) FROM c2");
    CHECK_EQ_STR(E.rows, "0\n");
    RUN_OK(&E, "TRUNCATE c1");
    CHECK_EQ_STR(E.tag, "TRUNCATE TABLE");
    RUN_OK(&E, "SELECT count(*) FROM c1");
    CHECK_EQ_STR(E.rows, "0\n");
    RUN_ERR(&E, "CREATE TABLE c3 AS SELECT 1 AS a, 2 AS a", FL_EINVAL, "more than once");
    CHECK(stmt_load(&E, "test.c3") == NULL);
}

static void test_maintenance(void)
{
    setup_table("mt", 2);
    for (int i = 0; i < 4; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "INSERT INTO mt VALUES (%d, 'r%d', %d)", i, i, i);
        RUN_OK(&E, sql);
    }
    RUN_OK(&E, "DELETE FROM mt WHERE id = 1");
    fl_ice_table *t = stmt_load(&E, "test.mt");
    int64_t before = t ? t->meta.current_snapshot_id : -1;
    uint32_t nsnap = t ? t->meta.nsnapshots : 0;
    fl_ice_table_free(t);
    RUN_OK(&E, "ALTER TABLE mt EXECUTE optimize(file_size_threshold => '10MB')");
    CHECK_EQ_STR(E.tag, "ALTER TABLE EXECUTE");
    CHECK_EQ_STR(E.rows, "4|1\n");
    check_rows("mt", "0|r0|0.00\n2|r2|2.00\n3|r3|3.00\n");
    t = stmt_load(&E, "test.mt");
    CHECK(t && !fl_ice_map_get(&t->meta.properties, "min-file-size-bytes"));
    fl_ice_table_free(t);
    char sql[160];
    snprintf(sql, sizeof sql, "ALTER TABLE mt EXECUTE rollback_to_snapshot(%lld)",
             (long long)before);
    RUN_OK(&E, sql);
    check_rows("mt", "0|r0|0.00\n2|r2|2.00\n3|r3|3.00\n");
    RUN_OK(&E, "ALTER TABLE mt EXECUTE expire_snapshots(retention_threshold => '0s', "
               "retain_last => 1)");
    t = stmt_load(&E, "test.mt");
    CHECK(t && t->meta.nsnapshots < nsnap + 1);
    fl_ice_table_free(t);
    check_rows("mt", "0|r0|0.00\n2|r2|2.00\n3|r3|3.00\n");
    RUN_OK(&E, "ALTER TABLE mt EXECUTE rewrite_manifests");
    RUN_OK(&E, "ALTER TABLE mt EXECUTE remove_orphan_files(retention_threshold => '7d')");
    CHECK_EQ_STR(E.rows, "0\n");
    RUN_ERR(&E, "ALTER TABLE mt EXECUTE expire_snapshots(retention_threshold => 'soon')",
            FL_EINVAL, "duration");
    RUN_ERR(&E, "ALTER TABLE mt EXECUTE frobnicate", FL_EUNSUPPORTED, "frobnicate");
    RUN_ERR(&E, "ALTER TABLE mt EXECUTE optimize(bogus => 1)", FL_EINVAL, "bogus");
    RUN_ERR(&E, "ALTER TABLE nosuch EXECUTE optimize", FL_ENOTFOUND, "nosuch");
    check_rows("mt", "0|r0|0.00\n2|r2|2.00\n3|r3|3.00\n");
}

int main(void)
{
    if (stmt_env_open(&E) != 0) {
        fprintf(stderr, "setup failed: %s\n", E.err.msg);
        return 1;
    }
    TEST_RUN(test_insert);
    TEST_RUN(test_delete_v2);
    TEST_RUN(test_delete_v1);
    TEST_RUN(test_update);
    TEST_RUN(test_merge);
    TEST_RUN(test_truncate_ctas);
    TEST_RUN(test_maintenance);
    stmt_env_close(&E);
    return TEST_EXIT();
}
