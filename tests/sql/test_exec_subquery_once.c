/*
 * test_exec_subquery_once.c - an uncorrelated scalar subquery is run once
 * per statement (exec.c run_subquery, as PostgreSQL's InitPlans), although
 * the filter or projection holding it is evaluated on every worker thread:
 * a volatile subquery gives every row the same value with 4 threads, and
 * the answers of subqueries over the scanned table itself stay right.
 */
#include "stmt_test_util.h"

static void test_once(void)
{
    stmt_env e;
    CHECK(stmt_env_open(&e) == 0);
    RUN_OK(&e, "CREATE SCHEMA test");
    RUN_OK(&e, "CREATE TABLE t (id bigint, v text)");
    RUN_OK(&e, "SET threads = 1");
    RUN_OK(&e, "INSERT INTO t SELECT x, 'v' || (x % 10) FROM generate_series(0, 599999) AS g(x)");
    RUN_OK(&e, "SET threads = 4");
    /* the scan is split into row ranges, so 4 threads evaluate the projection */
    RUN_OK(&e, "SELECT count(DISTINCT r), count(*) FROM "
               "(SELECT id, id + (SELECT random()) AS r FROM t WHERE id % 100000 = 0) s");
    CHECK_EQ_STR(e.rows, "6|6\n");
    RUN_OK(&e,
           "SELECT count(DISTINCT r), count(*) FROM (SELECT id, (SELECT random()) AS r FROM t) s");
    CHECK_EQ_STR(e.rows, "1|600000\n");
    RUN_OK(&e, "SELECT count(*), sum(id) FROM t WHERE id > (SELECT max(id) - 10 FROM t)");
    CHECK_EQ_STR(e.rows, "10|5999945\n");
    RUN_OK(&e, "SELECT count(*) FROM t WHERE v = (SELECT min(v) FROM t) "
               "AND id < (SELECT count(*) / 2 FROM t)");
    CHECK_EQ_STR(e.rows, "30000\n");
    stmt_env_close(&e);
}

int main(void)
{
    TEST_RUN(test_once);
    return TEST_EXIT();
}
