/*
 * test_plan_outcols.c - the planner's join output lists (plan.h
 * u.join.out_cols, prune_cols.c) as EXPLAIN shows them, and the answers of
 * the same queries (op_join.c honours the lists).
 */
#include "sql/stmt_test_util.h"

static stmt_env E;

static void test_out_lists(void)
{
    RUN_OK(&E, "CREATE TABLE a (id int, x int, note varchar)");
    RUN_OK(&E, "CREATE TABLE b (id int, y int)");
    RUN_OK(&E, "CREATE TABLE c (y int, z varchar)");
    RUN_OK(&E, "INSERT INTO a VALUES (1, 10, 'n1'), (2, 20, 'x'), (3, 30, 'n3'), (NULL, 40, 'n4')");
    RUN_OK(&E, "INSERT INTO b VALUES (1, 100), (3, 300), (3, 301), (NULL, 100)");
    RUN_OK(&E, "INSERT INTO c VALUES (100, 'c100'), (301, 'c301'), (999, 'c999')");
    /* a.id/b.id are join keys only; b.y is the next join's key only */
    RUN_OK(&E, "EXPLAIN SELECT a.x, c.z FROM a, b, c WHERE a.id = b.id AND b.y = c.y "
               "AND a.note LIKE 'n%'");
    CHECK(strstr(E.rows, "out=[") != NULL);
    /* the joins narrow themselves: the only PROJECT left is the filter column's */
    CHECK(strstr(E.rows, "out=[x, z]") != NULL || strstr(E.rows, "out=[z, x]") != NULL);
    if (test_case_failed_)
        fprintf(stderr, "%s", E.rows);
    RUN_OK(&E, "SELECT a.x, c.z FROM a, b, c WHERE a.id = b.id AND b.y = c.y "
               "AND a.note LIKE 'n%' ORDER BY 1, 2");
    CHECK_EQ_STR(E.rows, "10|c100\n30|c301\n");
    RUN_OK(&E, "SELECT a.x, c.z FROM a LEFT JOIN b ON a.id = b.id LEFT JOIN c ON b.y = c.y "
               "ORDER BY 1, 2");
    CHECK_EQ_STR(E.rows, "10|c100\n20|NULL\n30|c301\n30|NULL\n40|NULL\n");
    /* SEMI join: left columns only */
    RUN_OK(&E, "EXPLAIN SELECT a.x FROM a WHERE a.id IN (SELECT id FROM b) AND a.x > 1");
    CHECK(strstr(E.rows, "HashJoin SEMI") != NULL);
    CHECK(strstr(E.rows, "out=[x]") != NULL);
    if (test_case_failed_)
        fprintf(stderr, "%s", E.rows);
    RUN_OK(&E, "SELECT a.x FROM a WHERE a.id IN (SELECT id FROM b) AND a.x > 1 ORDER BY 1");
    CHECK_EQ_STR(E.rows, "10\n30\n");
    /* the root join keeps every column: no list */
    RUN_OK(&E, "EXPLAIN SELECT * FROM a JOIN b ON a.id = b.id");
    CHECK(strstr(E.rows, "out=[") == NULL);
}

int main(void)
{
    if (stmt_env_open(&E) != 0) {
        fprintf(stderr, "setup failed: %s\n", E.err.msg);
        return 1;
    }
    TEST_RUN(test_out_lists);
    stmt_env_close(&E);
    return TEST_EXIT();
}
