/*
 * test_session_sql.c - query semantics end to end through sql.h, over
 * VALUES and CTEs (no catalog): decorrelated subqueries with NULLs
 * (three-valued NOT IN), MARK joins in expressions, scalar subqueries (one
 * row or error 21000), ORDER BY on aliases and hidden expressions,
 * DISTINCT, LIMIT/OFFSET, set operations, windows, outer joins, CTEs used
 * twice, parameters. Expected answers are PostgreSQL 15's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/sql.h"
#include "floe_test.h"
#include "test.h"

static fl_sql_session *sess;

#define T3 "WITH t(k, v) AS (VALUES (1, 'a'), (2, 'b'), (3, NULL)) "

static void expect(const char *sql, const char *want)
{
    ft_expect(sess, sql, ";", want);
}

static void expect_fail(const char *sql, const char *sqlstate)
{
    ft_expect_sqlstate(sess, sql, sqlstate);
}

static void test_subqueries(void)
{
    expect(T3 "SELECT k FROM t WHERE k IN (SELECT k + 1 FROM t) ORDER BY k", "2;3;");
    expect(T3 "SELECT k FROM t WHERE k NOT IN (SELECT k + 1 FROM t) ORDER BY k", "1;");
    /* a NULL in the subquery makes NOT IN unknown for every non-matching row */
    expect(T3 "SELECT k FROM t WHERE k NOT IN (SELECT CASE WHEN k = 3 THEN NULL ELSE k + 1 END "
              "FROM t)",
           "");
    expect(T3 "SELECT k, k IN (SELECT k * 2 FROM t) FROM t ORDER BY k", "1|f;2|t;3|f;");
    expect(T3 "SELECT k FROM t a WHERE EXISTS (SELECT 1 FROM t b WHERE b.k = a.k + 1) ORDER BY 1",
           "1;2;");
    expect(T3 "SELECT k FROM t a WHERE NOT EXISTS (SELECT 1 FROM t b WHERE b.k = a.k + 1)", "3;");
    expect(T3 "SELECT k, (SELECT count(*) FROM t b WHERE b.k = a.k - 1) FROM t a ORDER BY k",
           "1|0;2|1;3|1;");
    /* non-equality correlation of an aggregating subquery: a nested-loop apply
     * (lateral; PostgreSQL 15 gives 1|0;2|1;3|2) */
    expect(T3 "SELECT k, (SELECT count(*) FROM t b WHERE b.k < a.k) FROM t a ORDER BY k",
           "1|0;2|1;3|2;");
    expect(T3 "SELECT k, (SELECT max(b.v) FROM t b WHERE b.k = a.k) FROM t a ORDER BY k",
           "1|a;2|b;3|NULL;");
    expect(T3 "SELECT k FROM t WHERE k > (SELECT avg(k) FROM t)", "3;");
    expect(T3 "SELECT k FROM t a WHERE EXISTS (SELECT 1 FROM t b WHERE b.k <> a.k AND b.v = "
              "'a') ORDER BY 1",
           "2;3;");
    expect_fail(T3 "SELECT (SELECT k FROM t)", "21000");
}

static void test_literals(void)
{
    expect("SELECT -0.5, -2147483648, -9223372036854775808, 2147483648, -1.5e3, 0.050",
           "-0.5|-2147483648|-9223372036854775808|2147483648|-1500|0.050;");
    expect("SELECT 1 + 2 * 3, 7 / 2, 'a' || 'b', NULL IS NULL", "7|3|ab|t;");
}

static void test_ordering(void)
{
    expect(T3 "SELECT v AS name FROM t ORDER BY name NULLS FIRST", "NULL;a;b;");
    expect(T3 "SELECT v FROM t ORDER BY k DESC", "NULL;b;a;");
    expect(T3 "SELECT k FROM t ORDER BY k DESC LIMIT 1 OFFSET 1", "2;");
    expect(T3 "SELECT DISTINCT k % 2 FROM t ORDER BY 1", "0;1;");
    expect(T3 "SELECT k % 2 AS p, count(*) FROM t GROUP BY p HAVING count(*) > 1", "1|2;");
    expect(T3 "SELECT k FROM t UNION SELECT k + 1 FROM t ORDER BY 1", "1;2;3;4;");
    expect(T3 "SELECT k FROM t EXCEPT SELECT k + 1 FROM t", "1;");
    expect(T3 "SELECT k, row_number() OVER (ORDER BY k DESC), sum(k) OVER (ORDER BY k) FROM t "
              "ORDER BY k",
           "1|3|1;2|2|3;3|1|6;");
    expect(T3 "SELECT a.k, b.v FROM t a LEFT JOIN t b ON b.k = a.k + 1 ORDER BY a.k",
           "1|b;2|NULL;3|NULL;");
    expect(T3 "SELECT count(*) FROM t a JOIN t b ON a.k < b.k", "3;");
    expect(T3 "SELECT x.k + y.k FROM t x, t y WHERE x.k = y.k ORDER BY 1", "2;4;6;");
}

#define G3 "WITH t(g, h, v) AS (VALUES ('a', 'x', 1), ('a', 'y', 2), ('b', 'x', 3)) "

static void test_grouping_sets(void)
{
    expect(G3 "SELECT g, h, sum(v) FROM t GROUP BY ROLLUP (g, h) ORDER BY g NULLS LAST, h NULLS "
              "LAST",
           "a|x|1;a|y|2;a|NULL|3;b|x|3;b|NULL|3;NULL|NULL|6;");
    expect(G3 "SELECT g, h, sum(v) FROM t GROUP BY GROUPING SETS ((g), (h)) ORDER BY g NULLS "
              "LAST, h NULLS LAST",
           "a|NULL|3;b|NULL|3;NULL|x|4;NULL|y|2;");
    expect(G3 "SELECT g, count(*) FROM t GROUP BY CUBE (g) ORDER BY g NULLS FIRST",
           "NULL|3;a|2;b|1;");
}

/* Numeric text with more significant digits than int128 holds is numeric
 * field overflow (fuzz_cast found signed overflow in the digit loop). The
 * sqlstate and the in-range answers are PostgreSQL 15's. */
static void test_numeric_text_overflow(void)
{
    expect_fail("SELECT '1111111111111111111111111111111111111111112'::numeric(5,5)", "22003");
    expect_fail("SELECT '111111111111111111111111111111111111111111.5'::numeric(38,0)", "22003");
    expect_fail("SELECT '-99999999999999999999999999999999999999999'::numeric(38,0)", "22003");
    expect("SELECT '0.0000000000000000000000000000000000000000012'::numeric(5,5)", "0.00000;");
    expect("SELECT '12345678901234567890123456789012345678'::numeric(38,0)",
           "12345678901234567890123456789012345678;");
}

static void test_params(void)
{
    fl_error err;
    fl_sql_stmt *st = NULL;
    CHECK_OK(fl_sql_prepare(sess, T3 "SELECT v FROM t WHERE k = $1 OR v = $2", &st, &err), &err);
    if (!st)
        return;
    CHECK_EQ_INT(fl_sql_stmt_nparams(st), 2);
    CHECK_EQ_INT(fl_sql_stmt_param_type(st, 0)->id, FL_TYPE_INT32);
    CHECK_EQ_INT(fl_sql_stmt_param_type(st, 1)->id, FL_TYPE_STRING);
    fl_value p[2];
    memset(p, 0, sizeof p);
    p[0].type.id = FL_TYPE_INT32;
    p[0].v.i32 = 1;
    p[1].type.id = FL_TYPE_STRING;
    p[1].v.bytes.ptr = (const uint8_t *)"b";
    p[1].v.bytes.len = 1;
    fl_sql_result *r = NULL;
    CHECK_OK(fl_sql_stmt_execute(st, p, 2, &r, &err), &err);
    int rows = 0;
    const fl_batch *b;
    bool eof = false;
    while (r && fl_sql_result_next(r, &b, &eof, &err) == FL_OK && !eof)
        rows += (int)b->nrows;
    CHECK_EQ_INT(rows, 2);
    fl_sql_result_close(r);
    fl_sql_stmt_close(st);
}

int main(void)
{
    fl_error err;
    if (fl_sql_session_open(NULL, &sess, &err) != FL_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    TEST_RUN(test_subqueries);
    TEST_RUN(test_literals);
    TEST_RUN(test_ordering);
    TEST_RUN(test_grouping_sets);
    TEST_RUN(test_params);
    TEST_RUN(test_numeric_text_overflow);
    fl_sql_session_close(sess);
    return TEST_EXIT();
}
