/*
 * test_exec_spill_ops.c - every spilling operator gives the in-memory answer
 * (issue 4, "Aggregates, joins and sorts spill to disk when they exceed
 * memory_limit"): each query runs once with the default memory and one
 * thread (the reference) and once with a tiny memory_limit and two threads,
 * where EXPLAIN ANALYZE must report spilled bytes; the ordered outputs must
 * be identical (compared by row count and a digest of every formatted
 * value). Covered: hash aggregates with every kind of aggregate state
 * (sum/avg/min/max over numbers and strings, count(DISTINCT), sum(DISTINCT),
 * string_agg with and without ORDER BY, array_agg, approx_percentile (t-digest),
 * approx_count_distinct (HLL), stddev, bool_and, FILTER), SELECT DISTINCT,
 * UNION, INTERSECT/EXCEPT [ALL], window functions (partitions spilled by
 * hash of the PARTITION BY keys) and sort.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/sql.h"
#include "test.h"

typedef struct digest {
    uint64_t rows;
    uint64_t h;
} digest;

/* Kept instead of ft_run: it hashes every row into a digest (to compare
 * spilled and in-memory runs of large results) rather than rendering text. */
static fl_status run(fl_sql_session *s, const char *sql, digest *d, char *text, size_t cap,
                     fl_error *err)
{
    fl_sql_result *r = NULL;
    d->rows = 0;
    d->h = 1469598103934665603ULL;
    size_t tn = 0;
    if (text && cap)
        text[0] = 0;
    fl_status rc = fl_sql_execute(s, sql, &r, err);
    if (rc != FL_OK)
        return rc;
    for (;;) {
        const fl_batch *b;
        bool eof;
        rc = fl_sql_result_next(r, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        uint32_t live = b->sel ? b->sel->count : b->nrows;
        for (uint32_t i = 0; i < live; i++) {
            uint32_t row = b->sel ? b->sel->idx[i] : i;
            for (uint32_t c = 0; c < b->ncols; c++) {
                char v[4096];
                fl_unified u;
                fl_vector_unify(&b->cols[c], &u);
                if (!fl_unified_is_valid(&u, row))
                    snprintf(v, sizeof v, "NULL");
                else
                    fl_sql_format_value(&b->cols[c], row, "UTC", v, sizeof v);
                for (const char *p = v; *p; p++)
                    d->h = (d->h ^ (uint8_t)*p) * 1099511628211ULL;
                d->h = (d->h ^ '|') * 1099511628211ULL;
                if (text && tn + strlen(v) + 2 < cap) {
                    tn += (size_t)snprintf(text + tn, cap - tn, "%s%s", v,
                                           c + 1 < b->ncols ? "|" : "\n");
                }
            }
            d->rows++;
        }
    }
    fl_sql_result_close(r);
    return rc;
}

/* Not ft_open_sqlite: an in-memory session with a thread count and a
 * memory limit, no catalog. */
static fl_sql_session *open_session(uint32_t threads, uint64_t limit)
{
    fl_sql_options o = {0};
    o.threads = threads;
    o.memory_limit = limit;
    fl_sql_session *s = NULL;
    fl_error err;
    CHECK_OK(fl_sql_session_open(&o, &s, &err), &err);
    return s;
}

/* The reference (1 thread, default memory) and the spilled run (2 threads,
 * limit bytes) must agree, and the spilled run must have spilled. */
static void same_when_spilled(const char *sql, uint64_t limit)
{
    fl_sql_session *ref = open_session(1, 0), *small = open_session(2, limit);
    if (!ref || !small) {
        fl_sql_session_close(ref);
        fl_sql_session_close(small);
        return;
    }
    digest a, b;
    fl_error err;
    fl_status rc = run(ref, sql, &a, NULL, 0, &err);
    if (rc)
        fprintf(stderr, "reference: %s\n  %s\n", sql, err.msg);
    CHECK(rc == FL_OK);
    rc = run(small, sql, &b, NULL, 0, &err);
    if (rc)
        fprintf(stderr, "limit %llu: %s\n  %s\n", (unsigned long long)limit, sql, err.msg);
    CHECK(rc == FL_OK);
    if (a.rows != b.rows || a.h != b.h) {
        fprintf(stderr, "different answers (%llu vs %llu rows) for %s\n",
                (unsigned long long)a.rows, (unsigned long long)b.rows, sql);
        CHECK(0);
    }
    CHECK(a.rows > 0);
    /* it spilled */
    static char plan[1 << 16];
    char *ea = malloc(strlen(sql) + 32);
    if (ea) {
        sprintf(ea, "EXPLAIN ANALYZE %s", sql);
        digest d;
        rc = run(small, ea, &d, plan, sizeof plan, &err);
        CHECK(rc == FL_OK);
        bool spilled = false;
        for (const char *p = plan; (p = strstr(p, "spilled=")) != NULL; p += 8)
            if (p[8] >= '1' && p[8] <= '9')
                spilled = true;
        if (!spilled)
            fprintf(stderr, "no spill reported for %s:\n%s\n", sql, plan);
        CHECK(spilled);
        free(ea);
    }
    fl_sql_session_close(ref);
    fl_sql_session_close(small);
}

#define SRC(n)                                                                                     \
    "(SELECT g % 60000 AS k, g AS v, CAST(g AS text) AS s, CAST(g % 13 AS text) AS t FROM "        \
    "generate_series(1, " #n ") AS x(g)) AS q"

static void test_agg_states(void)
{
    same_when_spilled("SELECT k, count(*), sum(v), avg(v), min(s), max(s), min(v), max(v), "
                      "stddev(v) > 0, bool_and(v > 3), bool_or(v % 2 = 0), "
                      "count(*) FILTER (WHERE v % 2 = 0), sum(v) FILTER (WHERE v % 3 = 0) FROM " SRC(120000) " GROUP BY k ORDER BY k",
                      8 << 20);
}

static void test_agg_distinct_ordered(void)
{
    same_when_spilled("SELECT k, count(DISTINCT v % 7), sum(DISTINCT v % 5), count(DISTINCT t), "
                      "string_agg(s, ',' ORDER BY v DESC), length(string_agg(t, ';')), "
                      "CAST(array_agg(v ORDER BY v) AS text), approx_percentile(v, 0.5), "
                      "approx_count_distinct(v) FROM " SRC(120000) " GROUP BY k ORDER BY k",
                      8 << 20);
    /* a string key, and the aggregate over a join-free projection */
    same_when_spilled("SELECT s, count(*), max(k) FROM " SRC(60000) " GROUP BY s ORDER BY s",
                      8 << 20);
}

static void test_distinct_setops(void)
{
    same_when_spilled("SELECT DISTINCT k, t FROM " SRC(120000) " ORDER BY 1, 2", 8 << 20);
    same_when_spilled("SELECT v FROM " SRC(120000) " UNION SELECT v * 3 FROM " SRC(60000) " ORDER BY 1",
                      8 << 20);
    same_when_spilled("SELECT v FROM " SRC(120000) " INTERSECT SELECT v * 2 FROM " SRC(120000) " ORDER BY 1",
                      8 << 20);
    same_when_spilled("SELECT v FROM " SRC(120000) " EXCEPT SELECT v * 2 FROM " SRC(120000) " ORDER BY 1",
                      8 << 20);
    same_when_spilled("SELECT v % 70000 FROM " SRC(120000) " INTERSECT ALL SELECT v % 50000 FROM " SRC(120000) " ORDER BY 1",
                      8 << 20);
    same_when_spilled("SELECT k FROM " SRC(120000) " EXCEPT ALL SELECT v % 30000 FROM " SRC(120000) " ORDER BY 1",
                      8 << 20);
}

static void test_window(void)
{
    same_when_spilled("SELECT k, v, row_number() OVER (PARTITION BY k ORDER BY v), "
                      "sum(v) OVER (PARTITION BY k ORDER BY v ROWS BETWEEN 1 PRECEDING AND "
                      "CURRENT ROW), lag(s) OVER (PARTITION BY k ORDER BY v), "
                      "count(*) OVER (PARTITION BY k) FROM " SRC(120000) " ORDER BY k, v",
                      8 << 20);
    /* two calls with different partitions: rows are spilled by their common key */
    same_when_spilled("SELECT k, v, rank() OVER (PARTITION BY k, t ORDER BY v DESC), "
                      "max(v) OVER (PARTITION BY k) FROM " SRC(120000) " ORDER BY k, v",
                      8 << 20);
}

static void test_sort(void)
{
    same_when_spilled("SELECT s, v FROM " SRC(120000) " ORDER BY s DESC, v", 8 << 20);
}

int main(void)
{
    TEST_RUN(test_agg_states);
    TEST_RUN(test_agg_distinct_ordered);
    TEST_RUN(test_distinct_setops);
    TEST_RUN(test_window);
    TEST_RUN(test_sort);
    return TEST_EXIT();
}
