/*
 * test_stmt_parallel_write.c - INSERT ... SELECT and CREATE TABLE AS write
 * with a writer per executor thread (stmt_write_plan, fl_ice_data_writers):
 * every row lands once (counts and sums, per partition too), each sorted
 * table file is sorted, a top-level ORDER BY keeps its order in one file,
 * RETURNING still works, and a failure on any thread leaves the table as
 * it was and no file behind in the warehouse.
 */
#include <ftw.h>
#include <stdio.h>
#include <string.h>

#include "stmt_test_util.h"
#include "test.h"

static stmt_env E;

static int nparquet_;
static int count_parquet(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)f;
    size_t n = strlen(path);
    if (flag == FTW_F && n > 8 && !strcmp(path + n - 8, ".parquet"))
        nparquet_++;
    return 0;
}

static int parquet_files(void)
{
    nparquet_ = 0;
    nftw(E.dir, count_parquet, 16, FTW_PHYS);
    return nparquet_;
}

static void expect(const char *sql, const char *rows)
{
    RUN_OK(&E, sql);
    CHECK_EQ_STR(E.rows, rows);
}

static void test_ctas_counts(void)
{
    RUN_OK(&E, "SET threads = 4");
    RUN_OK(&E, "CREATE TABLE c AS SELECT g AS x, g % 7 AS k, 'v' || g AS s FROM "
               "generate_series(1, 600000) t(g)");
    CHECK_EQ_STR(E.tag, "SELECT 600000");
    expect("SELECT count(*), sum(x), count(DISTINCT x), max(s) FROM c",
           "600000|180000300000|600000|v99999\n");
    /* no file is written by a thread that had no rows, none is lost */
    expect("SELECT sum(record_count) FROM \"c$files\"", "600000\n");
}

static void test_partitioned_sorted_insert(void)
{
    RUN_OK(&E, "CREATE TABLE p (x bigint, k integer) WITH (partitioning = ARRAY['k'], "
               "sorted_by = ARRAY['x DESC'])");
    RUN_OK(&E,
           "INSERT INTO p SELECT g, CAST(g % 5 AS integer) FROM generate_series(1, 500000) t(g)");
    CHECK_EQ_STR(E.tag, "INSERT 0 500000");
    expect("SELECT k, count(*), sum(x) FROM p GROUP BY k ORDER BY k",
           "0|100000|25000250000\n1|100000|24999850000\n2|100000|24999950000\n"
           "3|100000|25000050000\n4|100000|25000150000\n");
    /* at most one file per partition and writer, each sorted x DESC: a
     * file's first row is its upper bound */
    expect("SELECT count(*) <= 5 * 4, count(*) >= 5 FROM \"p$files\"", "t|t\n");
    expect("SELECT bool_and(sort_order_id = 1) FROM \"p$files\"", "t\n");
}

static void test_order_by_kept(void)
{
    RUN_OK(&E, "CREATE TABLE o (x bigint)");
    RUN_OK(&E, "INSERT INTO o SELECT g FROM generate_series(1, 50000) t(g) ORDER BY g DESC");
    expect("SELECT count(*) FROM \"o$files\"", "1\n");
    RUN_OK(&E, "SET threads = 1");
    expect("SELECT x FROM o LIMIT 3", "50000\n49999\n49998\n");
    RUN_OK(&E, "SET threads = 4");
}

static void test_returning(void)
{
    RUN_OK(&E, "CREATE TABLE r (x bigint)");
    expect("INSERT INTO r SELECT g FROM generate_series(1, 3) t(g) RETURNING x * 10",
           "10\n20\n30\n");
    expect("SELECT sum(x) FROM r", "6\n");
}

static void test_failure_leaves_nothing(void)
{
    RUN_OK(&E, "CREATE TABLE f (x bigint NOT NULL)");
    RUN_OK(&E, "INSERT INTO f VALUES (1)");
    int before = parquet_files();
    RUN_ERR(&E,
            "INSERT INTO f SELECT CASE WHEN g = 450000 THEN NULL ELSE g END FROM "
            "generate_series(1, 600000) t(g)",
            FL_EINVAL, "x");
    expect("SELECT count(*), sum(x) FROM f", "1|1\n");
    CHECK_EQ_INT(parquet_files(), before);
    RUN_ERR(&E,
            "CREATE TABLE f2 AS SELECT 1 / (g - 450000) AS y FROM generate_series(1, 600000) t(g)",
            FL_EINVAL, "division by zero");
    CHECK_EQ_INT(parquet_files(), before);
}

int main(void)
{
    if (stmt_env_open(&E) != 0) {
        fprintf(stderr, "setup failed: %s\n", E.err.msg);
        return 1;
    }
    RUN_OK(&E, "CREATE SCHEMA test");
    TEST_RUN(test_ctas_counts);
    TEST_RUN(test_partitioned_sorted_insert);
    TEST_RUN(test_order_by_kept);
    TEST_RUN(test_returning);
    TEST_RUN(test_failure_leaves_nothing);
    stmt_env_close(&E);
    return TEST_EXIT();
}
