/*
 * test_orc_sql.c - read_orc() in SQL over the pyarrow-written files of
 * tests/orc/data: globs, projection (also of one column twice), filters,
 * aggregates, nested fields, FROM 'file.orc', and a corrupt file failing the
 * query with the reader's message (never an empty answer).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/sql.h"
#include "floe_test.h"
#include "test.h"

static fl_sql_session *sess;
static char data[1024];

static void expectf(const char *want, const char *fmt, const char *file)
{
    char q[8192];
    snprintf(q, sizeof q, fmt, data, file);
    ft_expect(sess, q, ";", want);
}

static void test_aggregates(void)
{
    /* i32 = k * 100003 - 150000000 unless k % 13 == 5, for k < 600, in five files */
    long long sum = 0, n = 0;
    for (long long k = 0; k < 600; k++)
        if (k % 13 != 5)
            sum += k * 100003 - 150000000, n++;
    char want[128];
    snprintf(want, sizeof want, "3000|%lld|%lld;", n * 5, sum * 5);
    expectf(want, "SELECT count(*), count(i32), sum(i32) FROM read_orc('%s/%s')", "prim_*.orc");
    expectf("600|v0|v9;", "SELECT count(*), min(s_low), max(s_low) FROM read_orc('%s/%s')",
            "dict_zlib.orc");
    expectf("6000|3000|5;",
            "SELECT count(*), count(*) FILTER (WHERE odd), count(DISTINCT tag) "
            "FROM read_orc('%s/%s')",
            "long_zlib.orc");
}

static void test_projection_filter(void)
{
    expectf("v1|-127|v1;v2|-126|v2;",
            "SELECT s_low, i8, s_low FROM read_orc('%s/%s') WHERE i8 < -125 AND s_low IS NOT NULL "
            "AND i16 < -32600 ORDER BY i8",
            "prim_zstd.orc");
    expectf("57|b57|2;", "SELECT id, st.b, cardinality(lst) FROM read_orc('%s/%s') WHERE id = 57",
            "nested_zstd.orc");
    expectf("23;", "SELECT count(*) FROM '%s/%s'", "ts_edge.orc");
    expectf(
        "1969-12-31 23:59:59.999999999;1969-12-31 23:59:59.999999001;1969-12-31 23:59:59.999999;",
        "SELECT ts FROM read_orc('%s/%s') WHERE ts < TIMESTAMP '1970-01-01' AND "
        "ts > TIMESTAMP '1969-12-31 23:59:59.9999' ORDER BY ts DESC",
        "ts_edge.orc");
}

/* Stripe pruning by statistics never changes an answer: counts under
 * range, equality, IN and null filters against the generator's formulas
 * (prim_none.orc has 3 stripes of 200 rows). */
static void test_pruning_exact(void)
{
    static const long long cuts[] = {
        -617283945061500LL, -1, 0, 1000, 199000, 199001, 200000, 399000, 450000, 599000, 599001};
    for (size_t c = 0; c < sizeof cuts / sizeof *cuts; c++) {
        long long ge = 0, eq = 0, lt_day = 0, dcut = -40001 + (long long)c * 2300;
        for (long long k = 0; k < 600; k++) {
            long long v = k % 100 ? k * 1000 : -(k * 1234567890123LL);
            ge += v >= cuts[c];
            eq += v == cuts[c];
            lt_day += k % 23 != 0 && k * 37 - 40000 < dcut;
        }
        char want[64], q[8192];
        snprintf(want, sizeof want, "%lld|%lld|%lld;", ge, eq, lt_day);
        snprintf(q, sizeof q,
                 "SELECT (SELECT count(*) FROM read_orc('%s/prim_none.orc') WHERE i64 >= %lld), "
                 "(SELECT count(*) FROM read_orc('%s/prim_none.orc') WHERE i64 = %lld), "
                 "(SELECT count(*) FROM read_orc('%s/prim_none.orc') WHERE day < DATE "
                 "'1970-01-01' + %lld)",
                 data, cuts[c], data, cuts[c], data, dcut);
        ft_expect(sess, q, ";", want);
    }
    expectf("2;", "SELECT count(*) FROM read_orc('%s/%s') WHERE i32 IN (-150000000, -149899997)",
            "prim_none.orc");
    expectf("46;", "SELECT count(*) FROM read_orc('%s/%s') WHERE i32 IS NULL", "prim_none.orc");
    expectf("1;", "SELECT count(*) FROM read_orc('%s/%s') WHERE s_uniq = 'row-5-xxxxx'",
            "prim_none.orc");
    expectf("0;", "SELECT count(*) FROM read_orc('%s/%s') WHERE s_uniq < 'a' AND s_uniq > 'r'",
            "prim_none.orc");
}

/* One morsel per stripe when files are few: the same answers on 1, 2 and 4
 * threads (sums from pyarrow). */
static void test_threads(void)
{
    static const char *const th[] = {"SET threads = 1", "SET threads = 2", "SET threads = 4"};
    for (size_t i = 0; i < 3; i++) {
        char out[64];
        fl_error err;
        CHECK_OK(ft_run(sess, th[i], ";", out, sizeof out, &err), &err);
        expectf("11000|18000|two;",
                "SELECT count(*), sum(int1), max(string1) FROM read_orc('%s/%s')",
                "apache-orc/TestOrcFile.testStripeLevelStats.orc");
        expectf("3000|20;", "SELECT count(*), count(DISTINCT s_low) FROM read_orc('%s/%s')",
                "prim_*.orc");
    }
}

static void test_errors(void)
{
    char q[8192], out[256];
    fl_error err;
    snprintf(q, sizeof q, "SELECT count(*) FROM read_orc('%s/%s')", data,
             "apache-orc/corrupt_negative_dict_entry_lengths.orc");
    CHECK_OK(ft_run(sess, q, ";", out, sizeof out, &err), &err); /* count reads no strings */
    snprintf(q, sizeof q, "SELECT max(date_string_col) FROM read_orc('%s/%s')", data,
             "apache-orc/corrupt_negative_dict_entry_lengths.orc");
    CHECK_EQ_INT(ft_run(sess, q, ";", out, sizeof out, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "corrupt_negative_dict_entry_lengths.orc: stripe 0 column 9") != NULL);
    snprintf(q, sizeof q, "SELECT * FROM read_orc('%s/%s')", data, "nothing*.orc");
    CHECK_EQ_INT(ft_run(sess, q, ";", out, sizeof out, &err), FL_ENOTFOUND);
    snprintf(q, sizeof q, "SELECT * FROM read_orc('%s/%s')", data,
             "apache-orc/TestOrcFile.testUnionAndTimestamp.orc");
    CHECK_EQ_INT(ft_run(sess, q, ";", out, sizeof out, &err), FL_EUNSUPPORTED);
    CHECK(strstr(err.msg, "uniontype is not supported") != NULL);
}

int main(void)
{
    char dir[64];
    if (!ft_tmpdir(dir, sizeof dir, "floe_orc_sql"))
        return 1;
    const char *src = getenv("FLOE_SRC");
    snprintf(data, sizeof data, "%s/tests/orc/data", src ? src : ".");
    sess = ft_open_sqlite(dir, NULL, NULL);
    if (!sess)
        return 1;
    TEST_RUN(test_aggregates);
    TEST_RUN(test_projection_filter);
    TEST_RUN(test_pruning_exact);
    TEST_RUN(test_threads);
    TEST_RUN(test_errors);
    fl_sql_session_close(sess);
    ft_rmtree(dir);
    return TEST_EXIT();
}
