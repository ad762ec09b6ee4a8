/*
 * test_exec_join_plan.c - the planner's OR factoring (optimize.c
 * fl_front_factor_or) seen through EXPLAIN and results: a WHERE that is an
 * OR of conjunctions each containing the same join equality becomes a hash
 * join on that key (TPC-H Q19's shape) with each side's single-table
 * restrictions pushed below the join as an OR; the answers equal the
 * unfactored semantics, NULLs included. Decorrelated SEMI/ANTI joins
 * (joinorder.c): a selective IN subquery filters its relation below the
 * other joins (TPC-H Q18's shape), and a SEMI/ANTI join whose subquery side
 * is the larger builds the left side (Q21's shape); answers unchanged,
 * outer joins included. A LEFT JOIN whose WHERE drops its null-extended rows
 * becomes an inner join (null_reject.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/sql.h"
#include "floe_test.h"
#include "test.h"

#define L_ROWS                                                                                     \
    "(VALUES (1, 5, 'AIR'), (1, 15, 'AIR'), (2, 12, 'AIR'), (2, 25, 'SHIP'), (3, 3, 'AIR'), "      \
    "(NULL, 4, 'AIR'), (4, NULL, 'AIR'), (3, 22, 'AIR')) l(pk, qty, mode)"
#define P_ROWS                                                                                     \
    "(VALUES (1, 'B12', 1), (2, 'B23', 7), (3, 'B34', 14), (4, 'B12', 2), (NULL, 'B12', 1)) "      \
    "p(pk, brand, size)"
#define Q19_WHERE                                                                                  \
    "WHERE (p.pk = l.pk AND p.brand = 'B12' AND l.qty BETWEEN 1 AND 11 AND p.size <= 5 "           \
    "AND l.mode = 'AIR') "                                                                         \
    "OR (p.pk = l.pk AND p.brand = 'B23' AND l.qty BETWEEN 10 AND 20 AND p.size <= 10 "            \
    "AND l.mode = 'AIR') "                                                                         \
    "OR (l.pk = p.pk AND p.brand = 'B34' AND l.qty BETWEEN 20 AND 30 AND p.size <= 15 "            \
    "AND l.mode = 'AIR')"

static void test_q19_shape(void)
{
    fl_sql_session *s = NULL;
    fl_error err;
    CHECK_OK(fl_sql_session_open(NULL, &s, &err), &err);
    if (!s)
        return;
    static char out[16384];
    const char *q =
        "SELECT l.pk, l.qty, p.brand FROM " L_ROWS ", " P_ROWS " " Q19_WHERE " ORDER BY 1, 2";
    char sql[4096];
    snprintf(sql, sizeof sql, "EXPLAIN %s", q);
    CHECK_OK(ft_run(s, sql, "\n", out, sizeof out, &err), &err);
    /* a hash join on the common key, not a nested loop */
    CHECK(strstr(out, "HashJoin INNER on [") != NULL);
    CHECK(strstr(out, "NestedLoop") == NULL);
    /* the common single-table conjunct left the OR and went below the join */
    const char *join = strstr(out, "HashJoin");
    CHECK(join != NULL);
    if (join) {
        const char *eol = strchr(join, '\n');
        size_t jl = eol ? (size_t)(eol - join) : strlen(join);
        char line[8192];
        snprintf(line, sizeof line, "%.*s", (int)(jl < sizeof line - 1 ? jl : sizeof line - 1),
                 join);
        CHECK(strstr(line, "mode") == NULL);
        CHECK(strstr(line, "residual=") != NULL); /* the rest of the OR */
        CHECK(strstr(join + jl, "mode = 'AIR'") != NULL);
        /* the derived per-side ORs filter below the join */
        CHECK(strstr(join + jl, "(brand = 'B12')") != NULL);
    }
    CHECK_OK(ft_run(s, q, "\n", out, sizeof out, &err), &err);
    /* l(1,5) p1 B12 size1: yes; l(1,15) no (qty out of B12 range); l(2,12) p2 B23: yes;
     * l(2,25,SHIP): no; l(3,3) p3 B34 needs qty 20..30: no; l(3,22) p3: yes; NULL keys never
     * match; l(4,NULL) p4 B12: qty NULL -> unknown -> no */
    CHECK_EQ_STR(out, "1|5|B12\n2|12|B23\n3|22|B34\n");
    fl_sql_session_close(s);
}

/* A branch made only of common conjuncts makes the OR true: the join stays
 * a hash join and nothing is lost. Different equalities per branch keep the
 * OR whole (no common key): a nested loop with the OR as its condition. */
static void test_or_edge_cases(void)
{
    fl_sql_session *s = NULL;
    fl_error err;
    CHECK_OK(fl_sql_session_open(NULL, &s, &err), &err);
    if (!s)
        return;
    static char out[16384];
    CHECK_OK(ft_run(s,
                    "SELECT l.pk, l.qty FROM " L_ROWS ", " P_ROWS
                    " WHERE (p.pk = l.pk) OR (p.pk = l.pk AND p.brand = 'B12') ORDER BY 1, 2",
                    "\n", out, sizeof out, &err),
             &err);
    CHECK_EQ_STR(out, "1|5\n1|15\n2|12\n2|25\n3|3\n3|22\n4|NULL\n");
    CHECK_OK(ft_run(s,
                    "EXPLAIN SELECT l.pk FROM " L_ROWS ", " P_ROWS
                    " WHERE (p.pk = l.pk) OR (p.pk = l.pk AND p.brand = 'B12')",
                    "\n", out, sizeof out, &err),
             &err);
    CHECK(strstr(out, "HashJoin INNER on [") != NULL);
    CHECK(strstr(out, "residual=") == NULL);
    CHECK_OK(ft_run(s,
                    "SELECT l.pk, l.qty, p.pk FROM " L_ROWS ", " P_ROWS
                    " WHERE (p.pk = l.pk AND l.qty = 5) OR (p.size = l.pk AND p.brand = 'B34')"
                    " ORDER BY 1, 2, 3",
                    "\n", out, sizeof out, &err),
             &err);
    /* branch 2: p3 (size 14) matches no l.pk; branch 1: l(1,5)-p1 */
    CHECK_EQ_STR(out, "1|5|1\n");
    /* single-table OR on one relation only: unchanged semantics */
    CHECK_OK(ft_run(s,
                    "SELECT count(*) FROM " L_ROWS " WHERE (qty > 20 AND mode = 'AIR') OR "
                    "(qty < 4 AND mode = 'AIR')",
                    "\n", out, sizeof out, &err),
             &err);
    CHECK_EQ_STR(out, "2\n");
    fl_sql_session_close(s);
}

static void test_semi_placement(void)
{
    fl_sql_session *s = NULL;
    fl_error err;
    CHECK_OK(fl_sql_session_open(NULL, &s, &err), &err);
    if (!s)
        return;
    static char out[16384];
    const char *q = "SELECT a.x, b.y FROM generate_series(1, 100000) a(x) JOIN "
                    "generate_series(1, 50000) b(y) ON a.x = b.y "
                    "WHERE a.x IN (SELECT g FROM generate_series(1, 10) s(g)) "
                    "AND NOT EXISTS (SELECT 1 FROM generate_series(1, 1000000) t(h) "
                    "WHERE t.h = b.y + 1 AND t.h > 5) ORDER BY 1";
    char sql[4096];
    snprintf(sql, sizeof sql, "EXPLAIN %s", q);
    CHECK_OK(ft_run(s, sql, "\n", out, sizeof out, &err), &err);
    const char *inner = strstr(out, "HashJoin INNER"), *semi = strstr(out, "HashJoin SEMI");
    const char *anti = strstr(out, "HashJoin ANTI");
    CHECK(inner && semi && anti);
    if (inner && semi && anti) {
        CHECK(semi > inner); /* the IN filters a below the join with b */
        CHECK(anti < inner); /* NOT EXISTS correlates with b: on top */
        const char *eol = strchr(anti, '\n');
        CHECK(eol && strstr(anti, "build=left") && strstr(anti, "build=left") < eol);
    }
    CHECK_OK(ft_run(s, q, "\n", out, sizeof out, &err), &err);
    CHECK_EQ_STR(out, "1|1\n2|2\n3|3\n4|4\n");
    /* IN on the preserved side of a LEFT JOIN (pushed to it), and on the
     * nullable side (stays above the join: NULL-extended rows drop) */
    CHECK_OK(ft_run(s,
                    "SELECT a.x, b.y FROM generate_series(1, 100000) a(x) LEFT JOIN "
                    "generate_series(1, 50000, 2) b(y) ON a.x = b.y "
                    "WHERE a.x IN (SELECT g FROM generate_series(1, 4) s(g)) ORDER BY 1",
                    "\n", out, sizeof out, &err),
             &err);
    CHECK_EQ_STR(out, "1|1\n2|NULL\n3|3\n4|NULL\n");
    CHECK_OK(ft_run(s,
                    "SELECT a.x, b.y FROM generate_series(1, 100000) a(x) LEFT JOIN "
                    "generate_series(1, 50000, 2) b(y) ON a.x = b.y "
                    "WHERE b.y IN (SELECT g FROM generate_series(1, 4) s(g)) ORDER BY 1",
                    "\n", out, sizeof out, &err),
             &err);
    CHECK_EQ_STR(out, "1|1\n3|3\n");
    /* EXISTS building the left side, with a residual, duplicates on both sides */
    CHECK_OK(ft_run(s,
                    "SELECT a.x FROM (VALUES (1), (2), (2), (3), (NULL)) a(x) WHERE EXISTS "
                    "(SELECT 1 FROM generate_series(1, 100000) t(h) WHERE t.h % 4 = a.x "
                    "AND t.h > a.x * 10) ORDER BY 1",
                    "\n", out, sizeof out, &err),
             &err);
    CHECK_EQ_STR(out, "1\n2\n2\n3\n");
    fl_sql_session_close(s);
}

/* LEFT JOIN + a WHERE conjunct on the nullable side (null_reject.c): one
 * that drops null-extended rows makes the join INNER with the conjunct below
 * it; IS NULL, COALESCE, OR with IS NULL and NOT keep the LEFT join. */
static void test_outer_join_reduction(void)
{
    fl_sql_session *s = NULL;
    fl_error err;
    CHECK_OK(fl_sql_session_open(NULL, &s, &err), &err);
    if (!s)
        return;
    static char out[16384];
    const char *from = "SELECT a.x, b.t FROM (VALUES (1), (2), (3), (4)) a(x) LEFT JOIN "
                       "(VALUES (1, 'p'), (2, 'q'), (3, NULL)) b(y, t) ON a.x = b.y ";
    static const struct {
        const char *where, *want;
        bool inner;
    } cases[] = {
        {"WHERE b.t IN ('p', 'q')", "1|p\n2|q\n", true},
        {"WHERE upper(b.t) = 'Q'", "2|q\n", true},
        {"WHERE b.t IS NOT NULL AND a.x > 1", "2|q\n", true},
        {"WHERE b.t = 'p' OR b.t = 'q'", "1|p\n2|q\n", true},
        {"WHERE b.t IS NULL", "3|NULL\n4|NULL\n", false},
        {"WHERE coalesce(b.t, 'z') = 'z'", "3|NULL\n4|NULL\n", false},
        {"WHERE b.t = 'p' OR b.t IS NULL", "1|p\n3|NULL\n4|NULL\n", false},
        {"WHERE NOT (b.t = 'p')", "2|q\n", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char sql[1024];
        snprintf(sql, sizeof sql, "%s%s ORDER BY 1", from, cases[i].where);
        CHECK_OK(ft_run(s, sql, "\n", out, sizeof out, &err), &err);
        if (strcmp(out, cases[i].want))
            fprintf(stderr, "%s\n  -> %s  want %s", cases[i].where, out, cases[i].want);
        CHECK_EQ_STR(out, cases[i].want);
        char ex[1100];
        snprintf(ex, sizeof ex, "EXPLAIN %s", sql);
        CHECK_OK(ft_run(s, ex, "\n", out, sizeof out, &err), &err);
        bool inner = strstr(out, "Join INNER") != NULL, left = strstr(out, "Join LEFT") != NULL;
        if (inner != cases[i].inner || left == cases[i].inner)
            fprintf(stderr, "%s: plan\n%s", cases[i].where, out);
        CHECK(inner == cases[i].inner && left != cases[i].inner);
    }
    fl_sql_session_close(s);
}

int main(void)
{
    TEST_RUN(test_outer_join_reduction);
    TEST_RUN(test_q19_shape);
    TEST_RUN(test_or_edge_cases);
    TEST_RUN(test_semi_placement);
    return TEST_EXIT();
}
