/*
 * test_sqlgen.c - the grammar-based random-query test (issue 4, "Bad
 * input"): 2,000 seeded queries from tests/sql/sqlgen.h (joins, subqueries,
 * CTEs, windows, set operations, grouping, casts, functions, NULLs, edge
 * literals) run through the public API with a small memory limit and a
 * statement_timeout. Errors are fine (and counted); a crash, a sanitizer
 * report, a hang (a statement hitting the timeout) or an error without a
 * message fails. The generator must stay "mostly valid": at least a third
 * of the queries must succeed, so the engine's execution paths, not only
 * the binder's error paths, are exercised.
 *
 * SQLGEN_COUNT and SQLGEN_SEED (environment) change the number of queries
 * and the first seed; SQLGEN_VERBOSE=1 prints every statement and outcome.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/sql.h"
#include "sql/sqlgen.h"
#include "test.h"

/* Kept instead of ft_run: counts rows and formats (does not keep) the
 * values of generated queries whose text is never compared. */
static fl_status run(fl_sql_session *s, const char *sql, uint64_t *rows, fl_error *err)
{
    fl_sql_result *r = NULL;
    *rows = 0;
    fl_status rc = fl_sql_execute(s, sql, &r, err);
    if (rc != FL_OK)
        return rc;
    for (;;) {
        const fl_batch *b;
        bool eof;
        rc = fl_sql_result_next(r, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        /* format every value: exercises the output paths too */
        uint32_t live = b->sel ? b->sel->count : b->nrows;
        for (uint32_t i = 0; i < live && i < 64; i++)
            for (uint32_t c = 0; c < b->ncols; c++) {
                char v[128];
                fl_sql_format_value(&b->cols[c], b->sel ? b->sel->idx[i] : i, "UTC", v, sizeof v);
            }
        *rows += fl_batch_live_rows(b);
    }
    fl_sql_result_close(r);
    return rc;
}

static void test_random_queries(void)
{
    const char *ce = getenv("SQLGEN_COUNT"), *se = getenv("SQLGEN_SEED");
    const char *ve = getenv("SQLGEN_VERBOSE");
    uint32_t count = ce ? (uint32_t)strtoul(ce, NULL, 10) : 2000;
    uint64_t seed0 = se ? strtoull(se, NULL, 10) : 1;
    fl_sql_options o = {0};
    o.threads = 2;
    o.memory_limit = (uint64_t)64 << 20;
    fl_sql_session *s = NULL;
    fl_error err;
    CHECK_OK(fl_sql_session_open(&o, &s, &err), &err);
    if (!s)
        return;
    uint64_t rows;
    CHECK_OK(run(s, "SET statement_timeout = '20s'", &rows, &err), &err);
    static char sql[65536];
    uint32_t ok = 0, failed = 0, timeouts = 0, nomsg = 0;
    for (uint32_t i = 0; i < count; i++) {
        sg_gen g;
        memset(&g, 0, sizeof g);
        g.rng = (seed0 + i) * 0x9E3779B97F4A7C15ULL | 1;
        sqlgen_statement(&g, sql, sizeof sql);
        memset(&err, 0, sizeof err);
        fl_status rc = run(s, sql, &rows, &err);
        if (ve)
            fprintf(stderr, "[%u] %s\n  -> %s\n", i, sql, rc ? err.msg : "ok");
        if (rc == FL_OK) {
            ok++;
            continue;
        }
        failed++;
        fl_sql_error_info info;
        fl_sql_last_error(s, &info);
        if (rc == FL_ECANCELED || !strcmp(info.sqlstate, "57014")) {
            timeouts++;
            fprintf(stderr, "seed %llu timed out: %s\n", (unsigned long long)(seed0 + i), sql);
        }
        if (!err.msg[0]) {
            nomsg++;
            fprintf(stderr, "seed %llu failed without a message: %s\n",
                    (unsigned long long)(seed0 + i), sql);
        }
    }
    fprintf(stderr, "sqlgen: %u queries, %u ok, %u errors, %u timeouts\n", count, ok, failed,
            timeouts);
    CHECK_EQ_INT(timeouts, 0);
    CHECK_EQ_INT(nomsg, 0);
    CHECK(ok * 3 >= count);
    /* the session still works */
    CHECK_OK(run(s, "SELECT 1", &rows, &err), &err);
    CHECK(rows == 1);
    fl_sql_session_close(s);
}

int main(void)
{
    TEST_RUN(test_random_queries);
    return TEST_EXIT();
}
