/* test_exec_agg_parts.c - radix-partitioned thread tables of the aggregate
 * (op_agg.c split_set / merge_into): with several threads a thread table
 * past 32768 groups is split by hash partition, and the merge takes one
 * thread's partition over and inserts the others'. Checked with 1, 2 and 4
 * threads (1: never split), integer and text keys, every movable aggregate
 * (count, sum, min, max, avg), a DISTINCT aggregate fed after the merge, an
 * aggregate that cannot move (string_agg: the table stays whole), DISTINCT
 * and UNION over many rows, and the split followed by spilling under a small
 * memory_limit. Every expected answer is computed here in C. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/sql.h"
#include "floe_test.h"

static void expect(fl_sql_session *s, const char *sql, const char *want)
{
    static char out[1 << 12];
    fl_error err;
    fl_status rc = ft_run(s, sql, ";", out, sizeof out, &err);
    if (rc != FL_OK) {
        fprintf(stderr, "%s\n  -> error %s\n", sql, err.msg);
        CHECK(0);
        return;
    }
    if (strcmp(out, want) != 0) {
        fprintf(stderr, "%s\n  -> got  \"%.400s\"\n     want \"%.400s\"\n", sql, out, want);
        CHECK(0);
    }
}

/* 300000 rows, key i % 100003 (100003 groups, 2-3 rows each). */
#define N 300000
#define G 100003

static void check_many_groups(fl_sql_session *s)
{
    long long cnt[G], sum[G], mn[G], mx[G];
    for (int k = 0; k < G; k++) {
        cnt[k] = sum[k] = 0;
        mn[k] = 1LL << 62;
        mx[k] = -1;
    }
    for (long long i = 1; i <= N; i++) {
        int k = (int)(i % G);
        cnt[k]++;
        sum[k] += i;
        if (i < mn[k])
            mn[k] = i;
        if (i > mx[k])
            mx[k] = i;
    }
    /* aggregates over the groups: sums of each aggregate, and checks per group */
    long long sc = 0, ss = 0, smn = 0, smx = 0, s3 = 0, sk = 0;
    for (int k = 0; k < G; k++) {
        sc += cnt[k];
        ss += sum[k];
        smn += mn[k];
        smx += mx[k];
        s3 += cnt[k] == 3;
        sk += k;
    }
    char want[512];
    snprintf(want, sizeof want, "%d|%lld|%lld|%lld|%lld|%lld|%lld;", G, sc, ss, smn, smx, s3, sk);
    expect(s,
           "SELECT count(*), sum(c), sum(s), sum(mn), sum(mx), count(*) FILTER (WHERE c = 3), sum(k) FROM "
           "(SELECT i % 100003 AS k, count(*) AS c, sum(i) AS s, min(i) AS mn, max(i) AS mx "
           "FROM generate_series(1, 300000) g(i) GROUP BY k) t",
           want);
    /* avg per group is sum / count */
    expect(s,
           "SELECT count(*) FROM (SELECT i % 100003 AS k, avg(i) AS a, sum(i) AS s, count(*) AS c "
           "FROM generate_series(1, 300000) g(i) GROUP BY k) t WHERE abs(a * c - s) > 0.001",
           "0;");
    /* text keys (hashed with XXH3, compared as strings) */
    snprintf(want, sizeof want, "%d|%lld|%lld;", G, sc, ss);
    expect(s,
           "SELECT count(*), sum(c), sum(s) FROM (SELECT 'key-' || (i % 100003)::text AS k, count(*) AS c, "
           "sum(i) AS s FROM generate_series(1, 300000) g(i) GROUP BY k) t",
           want);
    /* a DISTINCT aggregate: its rows are fed into the merged partitions */
    long long sd = 0;
    for (int k = 0; k < G; k++)
        sd += cnt[k] >= 2 ? 2 : cnt[k];
    snprintf(want, sizeof want, "%d|%lld;", G, sd);
    expect(s,
           "SELECT count(*), sum(d) FROM (SELECT i % 100003 AS k, count(DISTINCT i % 2) AS d "
           "FROM generate_series(1, 300000) g(i) GROUP BY k) t",
           want);
    /* string_agg owns memory: its tables are never split (merged whole) */
    long long sl = 0;
    for (int k = 0; k < 40000; k++)
        sl += 1; /* every group of i % 40000 over 1..80000 has two values "a" -> "a,a" */
    snprintf(want, sizeof want, "%lld|%lld;", sl, sl * 3);
    expect(s,
           "SELECT count(*), sum(length(x)) FROM (SELECT i % 40000 AS k, string_agg('a', ',') AS x "
           "FROM generate_series(1, 80000) g(i) GROUP BY k) t",
           want);
    /* DISTINCT and UNION run on the same core (no payload) */
    snprintf(want, sizeof want, "%d;", G);
    expect(s, "SELECT count(*) FROM (SELECT DISTINCT i % 100003 FROM generate_series(1, 300000) g(i)) t", want);
    expect(s,
           "SELECT count(*) FROM (SELECT i % 100003 FROM generate_series(1, 150000) g(i) UNION "
           "SELECT i % 100003 FROM generate_series(150001, 300000) g(i)) t",
           want);
}

/* Under ASan (several times slower) the split path runs with 4 threads
 * only; the plain build also checks 1 (never split) and 2 threads. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

static void test_threads(void)
{
#ifdef SANITIZED
    uint32_t threads[] = {4};
    fprintf(stderr, "ASan build: 4 threads only (1 and 2 threads run in the plain build)\n");
#else
    uint32_t threads[] = {1, 2, 4};
#endif
    for (uint32_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        fl_error err;
        fl_sql_session *s = NULL;
        fl_sql_options opt = {.threads = threads[t]};
        if (fl_sql_session_open(&opt, &s, &err) != FL_OK) {
            fprintf(stderr, "%s\n", err.msg);
            CHECK(0);
            return;
        }
        check_many_groups(s);
        fl_sql_session_close(s);
    }
}

/* Split thread tables, then spilling: 400000 groups under a memory limit
 * that lets each thread hold some 32768+ groups first. */
static void test_split_then_spill(void)
{
    fl_error err;
    fl_sql_session *s = NULL;
    fl_sql_options opt = {.threads = 4};
    if (fl_sql_session_open(&opt, &s, &err) != FL_OK) {
        fprintf(stderr, "%s\n", err.msg);
        CHECK(0);
        return;
    }
    char out[256];
    CHECK_OK(ft_run(s, "SET memory_limit = '48MB'", ";", out, sizeof out, &err), &err);
    long long n = 800000, groups = 400000, sum = n * (n + 1) / 2;
    char want[256];
    snprintf(want, sizeof want, "%lld|%lld|%lld|2;", groups, n, sum);
    expect(s,
           "SELECT count(*), sum(c), sum(s), max(c) FROM (SELECT i % 400000 AS k, count(*) AS c, sum(i) AS s "
           "FROM generate_series(1, 800000) g(i) GROUP BY k) t",
           want);
    fl_sql_session_close(s);
}

/* A tiny memory_limit with many threads: the executor runs on fewer
 * threads (512 KiB each) instead of failing with every thread's fixed
 * working set over the limit (1MB on 8 threads failed before). */
static void test_small_limit_many_threads(void)
{
    const uint32_t threads[] = {8, 16};
    const char *limits[] = {"1MB", "1MB"};
#ifdef SANITIZED
    const uint32_t nruns = 1;
#else
    const uint32_t nruns = 2;
#endif
    for (uint32_t t = 0; t < nruns; t++)
        for (uint32_t m = t; m == t; m++) {
            fl_error err;
            fl_sql_session *s = NULL;
            fl_sql_options opt = {.threads = threads[t]};
            if (fl_sql_session_open(&opt, &s, &err) != FL_OK) {
                fprintf(stderr, "%s\n", err.msg);
                CHECK(0);
                return;
            }
            char out[256], sql[96];
            snprintf(sql, sizeof sql, "SET memory_limit = '%s'", limits[m]);
            CHECK_OK(ft_run(s, sql, ";", out, sizeof out, &err), &err);
            expect(s,
                   "SELECT count(*), sum(c), min(c), max(c) FROM (SELECT g % 1000, count(*) AS c "
                   "FROM generate_series(1, 2000000) g GROUP BY 1) t",
                   "1000|2000000|2000|2000;");
            fl_sql_session_close(s);
        }
}

int main(void)
{
    TEST_RUN(test_threads);
    TEST_RUN(test_split_then_spill);
    TEST_RUN(test_small_limit_many_threads);
    return TEST_EXIT();
}
