/* test_exec_agg_keys.c - GROUP BY keys through the typed key hashing
 * (agg_hash.c) and inline key equality (ht.c), end to end over
 * generate_series with 4 worker threads (so thread tables are merged by
 * hash partition): short and long string keys, NULL keys (grouped
 * together), int/date/decimal keys, several keys at once, decimal sums of
 * arithmetic results, keys that pack into the group cache next to keys that
 * do not, and more groups than the cache holds. Spilling (which hashes the
 * spilled keys with the same function) is covered by test_exec_spill and
 * test_exec_spill_ops. Every expected answer is computed here in C. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/sql.h"
#include "floe_test.h"

static fl_sql_session *sess;

static void expect_in(fl_sql_session *s, const char *sql, const char *want)
{
    static char out[1 << 16];
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

static void expect(const char *sql, const char *want)
{
    expect_in(sess, sql, want);
}

#define APPEND(buf, o, ...) (o += (size_t)snprintf(buf + o, sizeof buf - o, __VA_ARGS__))

static void test_short_string_keys(void)
{
    /* one-character keys (TPC-H Q1's l_returnflag / l_linestatus) */
    const int n = 50000;
    long long cnt[7] = {0}, sum[7] = {0};
    for (int i = 1; i <= n; i++) {
        cnt[i % 7]++;
        sum[i % 7] += i;
    }
    char want[1024];
    size_t o = 0;
    for (int k = 0; k < 7; k++)
        APPEND(want, o, "%d|%lld|%lld;", k, cnt[k], sum[k]);
    expect("SELECT k, count(*), sum(v) FROM (SELECT (i % 7)::text AS k, i AS v FROM generate_series(1, 50000) g(i)) t "
           "GROUP BY k ORDER BY k",
           want);
}

static void test_null_and_multi_keys(void)
{
    /* a: NULL, '0', '1', '2'; b: NULL, 0, 1 */
    long long cnt[4][3] = {{0}};
    for (int i = 1; i <= 30000; i++) {
        int a = i % 5 == 0 ? 0 : 1 + i % 3;
        int b = i % 4 == 0 ? 0 : 1 + i % 2;
        cnt[a][b]++;
    }
    char want[1024];
    size_t o = 0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 3; b++) {
            if (!cnt[a][b])
                continue;
            char as[8], bs[8];
            snprintf(as, sizeof as, a ? "%d" : "NULL", a - 1);
            snprintf(bs, sizeof bs, b ? "%d" : "NULL", b - 1);
            APPEND(want, o, "%s|%s|%lld;", as, bs, cnt[a][b]);
        }
    expect("SELECT a, b, count(*) FROM (SELECT CASE WHEN i % 5 = 0 THEN NULL ELSE (i % 3)::text END AS a, "
           "CASE WHEN i % 4 = 0 THEN NULL ELSE i % 2 END AS b FROM generate_series(1, 30000) g(i)) t "
           "GROUP BY a, b ORDER BY a NULLS FIRST, b NULLS FIRST",
           want);
}

static void test_long_and_typed_keys(void)
{
    /* long strings (beyond any inline compare), dates, decimals and bigints in one key */
    long long cnt[3][11] = {{0}};
    for (int i = 1; i <= 40000; i++)
        cnt[i % 3][i % 11]++;
    char want[4096];
    size_t o = 0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 11; b++)
            APPEND(want, o, "%.*s%d|2020-01-%02d|%d.50|%lld;", 12 + a, "xxxxxxxxxxxxxxxxxxxx", b, 1 + b,
                   b, cnt[a][b]);
    expect("SELECT s, d, m, count(*) FROM (SELECT repeat('x', 12 + i % 3) || (i % 11)::text AS s, "
           "DATE '2020-01-01' + (i % 11) AS d, CAST(i % 11 AS numeric(10,2)) + 0.5 AS m, "
           "CAST(i AS bigint) * 0 + i % 11 AS z FROM generate_series(1, 40000) g(i)) t "
           "GROUP BY s, d, m, z ORDER BY length(s), s, d",
           want);
}

static void test_decimal_sums(void)
{
    /* sum(price * (1 - disc) * (1 + tax)) with exact decimals, per group */
    long long tot[4] = {0}; /* unscaled at scale 6 */
    long long base[4] = {0};
    for (int i = 1; i <= 60000; i++) {
        long long price = 100 + i % 977; /* scale 2 */
        long long disc = i % 11;         /* scale 2: 0.00 .. 0.10 */
        long long tax = i % 9;           /* scale 2 */
        tot[i % 4] += price * (100 - disc) * (100 + tax);
        base[i % 4] += price;
    }
    char want[1024];
    size_t o = 0;
    for (int k = 0; k < 4; k++)
        APPEND(want, o, "%d|%lld.%02lld|%lld.%06lld;", k, base[k] / 100, base[k] % 100, tot[k] / 1000000,
               tot[k] % 1000000);
    expect("SELECT k, sum(p), sum(p * (1 - d) * (1 + t)) FROM (SELECT i % 4 AS k, "
           "CAST((100 + i % 977) / 100.0 AS numeric(15,2)) AS p, CAST((i % 11) / 100.0 AS numeric(15,2)) AS d, "
           "CAST((i % 9) / 100.0 AS numeric(15,2)) AS t FROM generate_series(1, 60000) g(i)) x "
           "GROUP BY k ORDER BY k",
           want);
}

static void test_pack_cache_edges(void)
{
    /* one key column where even values pack (short) and odd ones do not (long):
     * the same groups must be found from both paths, batch after batch */
    long long cnt[100] = {0}, sum[100] = {0};
    for (int i = 1; i <= 20000; i++) {
        int g = (i % 50) * 2 + (i % 2);
        cnt[g]++;
        sum[g] += i;
    }
    long long total = 0, groups = 0;
    for (int g = 0; g < 100; g++)
        if (cnt[g]) {
            groups++;
            total += cnt[g];
        }
    char want[256];
    snprintf(want, sizeof want, "%lld|%lld;", groups, total);
    expect("SELECT count(*), sum(c) FROM (SELECT k, count(*) AS c FROM (SELECT (i % 50)::text || "
           "CASE WHEN i % 2 = 0 THEN '' ELSE repeat('z', 20) END AS k FROM generate_series(1, 20000) g(i)) t "
           "GROUP BY k) u",
           want);
    /* per group: every group's count and sum, in key order */
    char want2[8192];
    size_t o = 0;
    for (int r = 0; r < 50; r++)
        for (int odd = 0; odd < 2; odd++) {
            int g = r * 2 + odd;
            if (cnt[g])
                APPEND(want2, o, "%d|%d|%lld|%lld;", r, odd, cnt[g], sum[g]);
        }
    expect("SELECT CAST(left(k, strpos(k || 'z', 'z') - 1) AS int) AS r, CASE WHEN k LIKE '%z' THEN 1 ELSE 0 END, "
           "count(*), sum(v) FROM (SELECT (i % 50)::text || CASE WHEN i % 2 = 0 THEN '' ELSE repeat('z', 20) END AS k, "
           "i AS v FROM generate_series(1, 20000) g(i)) t GROUP BY k ORDER BY 1, 2",
           want2);
    /* more groups than the cache holds (it turns itself off mid-batch): int and string keys */
    long long n = 3000, s1 = 0;
    for (long long i = 1; i <= 9000; i++)
        s1 += i;
    snprintf(want, sizeof want, "%lld|9000|%lld;", n, s1);
    expect("SELECT count(*), sum(c), sum(s) FROM (SELECT i % 3000 AS k, count(*) AS c, sum(i) AS s "
           "FROM generate_series(1, 9000) g(i) GROUP BY k) t",
           want);
    expect("SELECT count(*), sum(c), sum(s) FROM (SELECT (i % 3000)::text AS k, true AS b, count(*) AS c, sum(i) AS s "
           "FROM generate_series(1, 9000) g(i) GROUP BY k, b) t",
           want);
}

static void test_clustered_runs(void)
{
    /* runs of equal keys (i / 7), NULL runs, and runs crossing batch ends */
    long long nulls = 0, nn = 0, groups = 0, sumk = 0;
    long long last = -1;
    for (int i = 0; i < 25000; i++) {
        int k = i / 7;
        if (k % 3 == 0)
            nulls++;
        else {
            nn++;
            if (k != last) {
                groups++;
                sumk += k;
                last = k;
            }
        }
    }
    char want[256];
    snprintf(want, sizeof want, "%lld|%lld|%lld|%lld;", groups + 1, nulls, nn, sumk);
    expect("SELECT count(*), max(CASE WHEN k IS NULL THEN c END), sum(CASE WHEN k IS NOT NULL THEN c END), sum(k) "
           "FROM (SELECT k, count(*) AS c FROM (SELECT CASE WHEN (i / 7) % 3 = 0 THEN NULL ELSE i / 7 END AS k "
           "FROM generate_series(0, 24999) g(i)) t GROUP BY k) u",
           want);
}

int main(void)
{
    fl_error err;
    fl_sql_options opt = {.threads = 4};
    if (fl_sql_session_open(&opt, &sess, &err) != FL_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    TEST_RUN(test_short_string_keys);
    TEST_RUN(test_null_and_multi_keys);
    TEST_RUN(test_long_and_typed_keys);
    TEST_RUN(test_decimal_sums);
    TEST_RUN(test_pack_cache_edges);
    TEST_RUN(test_clustered_runs);
    fl_sql_session_close(sess);
    return TEST_EXIT();
}
