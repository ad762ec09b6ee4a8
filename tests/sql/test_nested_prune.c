/*
 * test_nested_prune.c - filters on fields inside struct columns prune like
 * filters on top-level columns (src/sql/plan/joinorder.c's column_operand,
 * src/iceberg's prune_nested): `(a).v < 10` and `a.k = 'x'` skip the data
 * files whose bounds for that field cannot match, seen in EXPLAIN ANALYZE,
 * and the answers, NULL structs and NULL fields included, are those of the
 * unpruned query. IS [NOT] NULL on a field stays a filter (a NULL struct
 * makes its fields NULL, which a leaf's null count does not tell apart).
 */
#include "sql/stmt_test_util.h"

static stmt_env E;

static void setup(void)
{
    RUN_OK(&E, "CREATE TABLE s (id int, a ROW(k varchar, v int, inner ROW(d date)))");
    /* one data file per INSERT: v 1..100 'x', v 101..200 'y', all structs NULL */
    RUN_OK(&E, "INSERT INTO s SELECT g, ROW('x', g, ROW(DATE '2024-01-01' + g)) "
               "FROM generate_series(1, 100) t(g)");
    RUN_OK(&E, "INSERT INTO s SELECT g, ROW('y', CASE WHEN g % 10 = 0 THEN NULL ELSE g END, "
               "NULL) FROM generate_series(101, 200) t(g)");
    RUN_OK(&E, "INSERT INTO s SELECT g, NULL FROM generate_series(201, 300) t(g)");
}

/* EXPLAIN ANALYZE of sql contains want (printed when not) */
static void explain_has(const char *sql, const char *want)
{
    char q[512];
    snprintf(q, sizeof q, "EXPLAIN ANALYZE %s", sql);
    RUN_OK(&E, q);
    CHECK(strstr(E.rows, want) != NULL);
    if (!strstr(E.rows, want))
        fprintf(stderr, "want %s in:\n%s", want, E.rows);
}

static void test_prunes_files(void)
{
    explain_has("SELECT count(*) FROM s WHERE (a).v < 10", "prune=[a.v < 10]");
    explain_has("SELECT count(*) FROM s WHERE (a).v < 10",
                "files=3 pruned=2 (partition=0 metrics=2)");
    RUN_OK(&E, "SELECT count(*), min(id), max(id) FROM s WHERE (a).v < 10");
    CHECK_EQ_STR(E.rows, "9|1|9\n");
    /* either operand order, t.col.field, and a string field */
    explain_has("SELECT count(*) FROM s WHERE 150 <= s.a.v", "files=3 pruned=2");
    RUN_OK(&E, "SELECT count(*) FROM s WHERE 150 <= s.a.v");
    CHECK_EQ_STR(E.rows, "45\n"); /* 150..200 less the six multiples of ten */
    explain_has("SELECT id FROM s WHERE a.k = 'y' AND id < 103", "prune=[a.k = 'y' AND id < 103]");
    RUN_OK(&E, "SELECT id FROM s WHERE a.k = 'y' AND id < 103 ORDER BY id");
    CHECK_EQ_STR(E.rows, "101\n102\n");
    /* a field of a field */
    explain_has("SELECT count(*) FROM s WHERE (a).inner.d >= DATE '2024-03-01'", "pruned=2");
    RUN_OK(&E, "SELECT count(*) FROM s WHERE (a).inner.d >= DATE '2024-03-01'");
    CHECK_EQ_STR(E.rows, "41\n"); /* 2024-01-01 + 60 .. + 100 */
}

static void test_nulls_stay_filters(void)
{
    RUN_OK(&E, "EXPLAIN SELECT count(*) FROM s WHERE (a).v IS NULL");
    CHECK(strstr(E.rows, "prune=") == NULL);
    RUN_OK(&E, "SELECT count(*) FROM s WHERE (a).v IS NULL");
    CHECK_EQ_STR(E.rows, "110\n"); /* ten NULL fields and a hundred NULL structs */
    RUN_OK(&E, "SELECT count(*) FROM s WHERE (a).v IS NOT NULL AND (a).v <> 5");
    CHECK_EQ_STR(E.rows, "189\n");
    /* the count is not taken from the manifests when a field filters */
    RUN_OK(&E, "SELECT count(*) FROM s WHERE (a).v >= 1");
    CHECK_EQ_STR(E.rows, "190\n");
}

int main(void)
{
    if (stmt_env_open(&E) != 0) {
        fprintf(stderr, "setup failed: %s\n", E.err.msg);
        return 1;
    }
    setup();
    TEST_RUN(test_prunes_files);
    TEST_RUN(test_nulls_stay_filters);
    stmt_env_close(&E);
    return TEST_EXIT();
}
