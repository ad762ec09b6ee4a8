/*
 * test_plan_prune.c - the planner's rewrites after optimization
 * (src/sql/plan/prune_cols.c, semijoin_push.c, joinorder.c's outer-join build
 * side) seen through EXPLAIN and answers over real Iceberg tables:
 *   - a column only a scan filter reads is dropped right above the scan
 *     (TPC-H Q13's o_comment), and join keys nobody reads above a join are
 *     dropped before the next join;
 *   - a LEFT join builds its smaller, preserved side (Q13);
 *   - a decorrelated aggregate (Q17's avg per partkey) gets a semi join with
 *     a copy of the outer side's filtered scan, and the answers are those
 *     computed by hand, with NULL keys and unmatched groups on both sides;
 *     the same for an aggregate derived table on either side of an inner
 *     join, NOT EXISTS over a grouped subquery, and an IN (MARK) subquery
 *     that must not be rewritten (a NULL group key decides its NULL answer);
 *   - window, sort and aggregate inputs keep exactly what they read;
 *   - Q15's `x = (SELECT max(x) FROM same view)` computes the view once
 *     (a WINDOW max over it), ties and NULLs as PostgreSQL answers them.
 */
#include "sql/stmt_test_util.h"

static stmt_env E;

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void setup(void)
{
    RUN_OK(&E, "CREATE TABLE part (pk int, brand varchar, cont varchar)");
    RUN_OK(&E, "INSERT INTO part VALUES (1, 'b1', 'box'), (2, 'b2', 'box'), (3, 'b1', 'bag'), "
               "(4, 'b1', 'box'), (NULL, 'b1', 'box'), (6, 'b1', 'box')");
    RUN_OK(&E, "CREATE TABLE line (pk int, qty int, price int)");
    RUN_OK(&E, "INSERT INTO line VALUES (1, 10, 100), (1, 2, 20), (1, 3, 30), (2, 1, 10), "
               "(2, 9, 90), (3, 1, 5), (4, 4, 40), (4, 8, 80), (4, 1, 7), (NULL, 1, 1), "
               "(NULL, 1, 2), (5, 1, 1), (5, 2, 2), (5, 3, 3), (5, 4, 4), (5, 5, 5), "
               "(7, 1, 1), (7, 2, 2), (7, 3, 3), (8, 1, 1), (8, 1, 1), (9, 9, 9)");
    RUN_OK(&E, "CREATE TABLE cust (ck int, name varchar)");
    RUN_OK(&E, "INSERT INTO cust VALUES (1, 'ann'), (2, 'bob'), (3, 'cy'), (NULL, 'nul')");
    RUN_OK(&E, "CREATE TABLE ord (ok int, ck int, note varchar)");
    RUN_OK(&E, "INSERT INTO ord VALUES (10, 1, 'fine'), (11, 1, 'special requests'), "
               "(12, 2, 'ok'), (13, NULL, 'x'), (14, 9, 'y'), (15, 9, 'y'), (16, 9, 'y'), "
               "(17, 9, 'y'), (18, 8, 'y'), (19, 8, 'y'), (20, 2, 'a special requests b'), "
               "(21, 3, NULL)");
}

#define Q17                                                                                        \
    "SELECT p.pk, l.qty, l.price FROM line l, part p WHERE p.pk = l.pk AND p.brand = 'b1' "       \
    "AND p.cont = 'box' AND l.qty < (SELECT 0.5 * avg(l2.qty) FROM line l2 WHERE l2.pk = p.pk) "  \
    "ORDER BY 1, 2"

static void test_decorrelated_semijoin(void)
{
    RUN_OK(&E, "EXPLAIN " Q17);
    /* the aggregate's lineitem input is reduced by a second copy of part's scan */
    CHECK(strstr(E.rows, "HashJoin SEMI on [pk = pk]") != NULL);
    CHECK_EQ_INT(count_of(E.rows, "Scan iceberg test.part"), 2);
    if (test_case_failed_)
        fprintf(stderr, "%s", E.rows);
    /* pk 1: avg 5 -> qty < 2.5; pk 4: avg 13/3 -> qty < 2.17; pk 6 has no lines */
    RUN_OK(&E, Q17);
    CHECK_EQ_STR(E.rows, "1|2|20\n4|1|7\n");
    /* SINGLE (scalar subquery in the select list) over the same shape */
    RUN_OK(&E, "SELECT p.pk, (SELECT sum(l2.qty) FROM line l2 WHERE l2.pk = p.pk) FROM part p "
               "WHERE p.brand = 'b1' AND p.cont = 'box' ORDER BY 1");
    CHECK_EQ_STR(E.rows, "1|15\n4|13\n6|NULL\nNULL|NULL\n");
    /* NOT EXISTS over a grouped subquery: parts without a heavy line group */
    RUN_OK(&E, "SELECT p.pk FROM part p WHERE p.brand = 'b1' AND NOT EXISTS (SELECT 1 FROM "
               "line l2 WHERE l2.pk = p.pk GROUP BY l2.pk HAVING sum(l2.qty) > 14) ORDER BY 1");
    CHECK_EQ_STR(E.rows, "3\n4\n6\nNULL\n");
}

static void test_derived_aggregate(void)
{
    /* an aggregate derived table joined to a filtered table: either side */
    const char *q = "SELECT p.pk, s.total FROM part p JOIN (SELECT pk, sum(qty) AS total FROM "
                    "line GROUP BY pk) s ON s.pk = p.pk WHERE p.brand = 'b1' ORDER BY 1";
    char sql[1024];
    snprintf(sql, sizeof sql, "EXPLAIN %s", q);
    RUN_OK(&E, sql);
    CHECK(strstr(E.rows, "HashJoin SEMI") != NULL);
    RUN_OK(&E, q);
    CHECK_EQ_STR(E.rows, "1|15\n3|1\n4|13\n");
    /* IN (subquery) with a NULL group: no match is NULL, so NOT IN keeps nothing for pk 6 */
    RUN_OK(&E, "SELECT p.pk, p.pk IN (SELECT pk FROM line GROUP BY pk) FROM part p "
               "WHERE p.brand = 'b1' AND p.cont = 'box' ORDER BY 1");
    CHECK_EQ_STR(E.rows, "1|t\n4|t\n6|NULL\nNULL|NULL\n");
}

#define Q13                                                                                        \
    "SELECT c.ck, count(o.ok) FROM cust c LEFT JOIN ord o ON c.ck = o.ck "                       \
    "AND o.note NOT LIKE '%special%' GROUP BY c.ck ORDER BY 1"

static void test_filter_column_dropped(void)
{
    RUN_OK(&E, "EXPLAIN " Q13);
    /* note is read by the scan's filter only; the join never sees it */
    CHECK(strstr(E.rows, "Project [ok, ck]") != NULL);
    CHECK(strstr(E.rows, "HashJoin LEFT on [ck = ck] build=left") != NULL);
    if (test_case_failed_)
        fprintf(stderr, "%s", E.rows);
    RUN_OK(&E, Q13);
    CHECK_EQ_STR(E.rows, "1|1\n2|1\n3|0\nNULL|0\n");
    /* RIGHT and FULL joins, either side built */
    RUN_OK(&E, "SELECT c.name, o.ok FROM ord o RIGHT JOIN cust c ON c.ck = o.ck "
               "AND o.note LIKE '%special%' ORDER BY 1, 2");
    CHECK_EQ_STR(E.rows, "ann|11\nbob|20\ncy|NULL\nnul|NULL\n");
    RUN_OK(&E, "SELECT c.name, o.ok FROM cust c FULL JOIN ord o ON c.ck = o.ck "
               "WHERE coalesce(o.ok, 0) < 14 ORDER BY 2, 1");
    CHECK_EQ_STR(E.rows, "ann|10\nann|11\nbob|12\nNULL|13\nnul|NULL\n");
}

static void test_window_sort_inputs(void)
{
    /* join keys and filter-only columns below a window, a sort and an aggregate */
    const char *q = "SELECT c.name, o.ok, row_number() OVER (PARTITION BY c.name ORDER BY o.ok DESC) "
                    "FROM cust c JOIN ord o ON o.ck = c.ck WHERE o.note <> 'x' ORDER BY 1, 2";
    char sql[1024];
    snprintf(sql, sizeof sql, "EXPLAIN %s", q);
    RUN_OK(&E, sql);
    CHECK(strstr(E.rows, "Project [ok, ck]") != NULL);
    RUN_OK(&E, q);
    CHECK_EQ_STR(E.rows, "ann|10|2\nann|11|1\nbob|12|2\nbob|20|1\n");
    RUN_OK(&E, "SELECT count(*), sum(o.ok) FROM cust c JOIN ord o ON o.ck = c.ck "
               "WHERE o.note LIKE '%s%'");
    CHECK_EQ_STR(E.rows, "2|31\n");
    RUN_OK(&E, "SELECT n FROM (SELECT c.name AS n, o.ok AS k, o.note AS t FROM cust c, ord o "
               "WHERE o.ck = c.ck) s GROUP BY n HAVING max(k) > 11 ORDER BY n");
    CHECK_EQ_STR(E.rows, "bob\ncy\n");
    /* a subquery in an expression is pruned as its own plan */
    RUN_OK(&E, "SELECT name FROM cust WHERE ck = (SELECT max(o.ck) FROM ord o JOIN cust c "
               "ON c.ck = o.ck WHERE o.note = 'ok')");
    CHECK_EQ_STR(E.rows, "bob\n");
}

static void test_scalar_subquery_reuse(void)
{
    /* Q15's shape: a view filtered by its own maximum, ties and NULLs included */
    RUN_OK(&E, "CREATE TABLE rev (sk int, amt int)");
    RUN_OK(&E, "INSERT INTO rev VALUES (1, 5), (1, 5), (2, 10), (3, 7), (3, 2), (4, NULL), "
               "(NULL, 10)");
    const char *q = "WITH r AS (SELECT sk, sum(amt) AS total FROM rev GROUP BY sk) "
                    "SELECT c.name, r.sk, r.total FROM cust c, r WHERE c.ck = r.sk "
                    "AND r.total = (SELECT max(total) FROM r) ORDER BY 2";
    char sql[1024];
    snprintf(sql, sizeof sql, "EXPLAIN %s", q);
    RUN_OK(&E, sql);
    CHECK(strstr(E.rows, "Window [max(total)") != NULL);
    CHECK(strstr(E.rows, "subquery") == NULL);
    if (test_case_failed_)
        fprintf(stderr, "%s", E.rows);
    RUN_OK(&E, q);
    CHECK_EQ_STR(E.rows, "ann|1|10\nbob|2|10\n");
    /* min, and a view whose values are all NULL: no rows */
    RUN_OK(&E, "WITH r AS (SELECT sk, sum(amt) AS total FROM rev GROUP BY sk) "
               "SELECT sk FROM r WHERE total = (SELECT min(total) FROM r) ORDER BY 1");
    CHECK_EQ_STR(E.rows, "3\n");
    RUN_OK(&E, "WITH r AS (SELECT sk, max(amt) AS m FROM rev WHERE amt IS NULL GROUP BY sk) "
               "SELECT sk FROM r WHERE m = (SELECT max(m) FROM r)");
    CHECK_EQ_STR(E.rows, "");
    /* a different input is not rewritten */
    RUN_OK(&E, "EXPLAIN WITH r AS (SELECT sk, sum(amt) AS total FROM rev GROUP BY sk) "
               "SELECT sk FROM r WHERE total = (SELECT max(total) FROM r WHERE sk > 1)");
    CHECK(strstr(E.rows, "Window") == NULL);
}

int main(void)
{
    if (stmt_env_open(&E) != 0) {
        fprintf(stderr, "setup failed: %s\n", E.err.msg);
        return 1;
    }
    setup();
    TEST_RUN(test_decorrelated_semijoin);
    TEST_RUN(test_derived_aggregate);
    TEST_RUN(test_filter_column_dropped);
    TEST_RUN(test_window_sort_inputs);
    TEST_RUN(test_scalar_subquery_reuse);
    stmt_env_close(&E);
    return TEST_EXIT();
}
