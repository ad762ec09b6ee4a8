/*
 * test_exec_scan_terms.c - the Iceberg task reader's residual filter terms
 * (iceberg/scan_task.c filter_term), among them the typed IN lists on
 * integer, date and string columns (short strings compared as words, long
 * ones by memcmp): the same rows as the SQL evaluation of the same condition
 * (written so it cannot become a scan term), NULLs never matching IN and
 * matching IS NULL.
 */
#include "stmt_test_util.h"

/* count(*) of WHERE cond against count(*) of WHERE (cond) IS TRUE written
 * as a CASE (not pushed into the scan) */
static void same_count(stmt_env *e, const char *cond)
{
    char q[1024], want[128];
    snprintf(q, sizeof q, "SELECT count(*) FROM t WHERE CASE WHEN %s THEN true ELSE false END",
             cond);
    RUN_OK(e, q);
    snprintf(want, sizeof want, "%.100s", e->rows);
    snprintf(q, sizeof q, "SELECT count(*) FROM t WHERE %s", cond);
    RUN_OK(e, q);
    if (strcmp(e->rows, want) != 0)
        fprintf(stderr, "  condition: %s\n", cond);
    CHECK_EQ_STR(e->rows, want);
}

static void test_terms(void)
{
    stmt_env e;
    CHECK(stmt_env_open(&e) == 0);
    RUN_OK(&e, "CREATE SCHEMA test");
    RUN_OK(&e, "CREATE TABLE t (id bigint, mode text, d date, k int, note text)");
    /* mode: 7 values and NULLs (dictionary-encoded); note: unique strings (plain) */
    RUN_OK(&e, "INSERT INTO t SELECT x, CASE WHEN x % 11 = 0 THEN NULL ELSE "
               "(ARRAY['MAIL','SHIP','AIR','RAIL','TRUCK','REG AIR',''])[1 + x % 7] END, "
               "DATE '1994-01-01' + (x % 400), CASE WHEN x % 13 = 0 THEN NULL ELSE x % 50 END, "
               "CASE WHEN x % 17 = 0 THEN NULL ELSE 'note ' || x END "
               "FROM generate_series(0, 49999) AS g(x)");
    RUN_OK(&e, "SELECT count(*) FROM t WHERE mode IN ('MAIL', 'SHIP')");
    CHECK(strcmp(e.rows, "0\n") != 0);
    static const char *conds[] = {
        "mode IN ('MAIL', 'SHIP')",
        "mode IN ('REG AIR', '', 'NOPE')",
        "mode IN ('MAIL', NULL)",
        "mode = 'RAIL'",
        "mode <> 'RAIL'",
        "mode < 'MAIL'",
        "mode IS NULL",
        "mode IS NOT NULL",
        "k IN (1, 7, 49)",
        "k IN (3, NULL)",
        "k IS NULL",
        "d IN (DATE '1994-01-05', DATE '1994-12-31')",
        "id IN (5, 40000, 49999, 50000)",
        "note IN ('note 1', 'note 49999', 'note 17', 'a much longer literal than eight')",
        "note IS NULL",
    };
    for (size_t i = 0; i < sizeof conds / sizeof conds[0]; i++)
        same_count(&e, conds[i]);
    RUN_OK(&e, "SELECT count(*) FROM t WHERE mode IN ('MAIL', 'SHIP') AND k IN (1, 2)");
    char want[128];
    snprintf(want, sizeof want, "%.100s", e.rows);
    RUN_OK(&e, "SELECT count(*) FROM t WHERE (mode = 'MAIL' OR mode = 'SHIP') "
               "AND (k = 1 OR k = 2)");
    CHECK_EQ_STR(e.rows, want);
    stmt_env_close(&e);
}

int main(void)
{
    TEST_RUN(test_terms);
    return TEST_EXIT();
}
