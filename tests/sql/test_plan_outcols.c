/*
 * test_plan_outcols.c - the planner's join output lists (plan.h
 * u.join.out_cols, prune_cols.c) as EXPLAIN shows them, with an executor
 * that claims to honour them: this test defines fl_exec_join_out_cols()
 * (plan.h declares it weak, so the executor's own definition may coexist)
 * and only EXPLAINs, never runs, the queries.
 */
#include "sql/plan.h"
#include "sql/stmt_test_util.h"

bool fl_exec_join_out_cols(void)
{
    return true;
}

static stmt_env E;

static void test_out_lists(void)
{
    RUN_OK(&E, "CREATE TABLE a (id int, x int, note varchar)");
    RUN_OK(&E, "CREATE TABLE b (id int, y int)");
    RUN_OK(&E, "CREATE TABLE c (y int, z varchar)");
    /* a.id/b.id are join keys only; b.y is the next join's key only */
    RUN_OK(&E, "EXPLAIN SELECT a.x, c.z FROM a, b, c WHERE a.id = b.id AND b.y = c.y "
               "AND a.note LIKE 'n%'");
    CHECK(strstr(E.rows, "out=[") != NULL);
    /* the joins narrow themselves: the only PROJECT left is the filter column's */
    CHECK(strstr(E.rows, "out=[x, z]") != NULL);
    if (test_case_failed_)
        fprintf(stderr, "%s", E.rows);
    /* SEMI join: left columns only */
    RUN_OK(&E, "EXPLAIN SELECT a.x FROM a WHERE a.id IN (SELECT id FROM b) AND a.x > 1");
    CHECK(strstr(E.rows, "HashJoin SEMI") != NULL);
    CHECK(strstr(E.rows, "out=[x]") != NULL);
    if (test_case_failed_)
        fprintf(stderr, "%s", E.rows);
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
