/*
 * test_exec_scan_split.c - Iceberg scans split into row-group morsels
 * (op_scan.c split planning, iceberg/scan_task.h slices). A table written as
 * ONE data file of many small row groups, with merge-on-read position
 * deletes, read with 1 and with 4 threads: the same rows (deleted ones gone,
 * columns of a row still aligned), DELETEs planned on a split scan remove
 * exactly the rows they name (their _pos come from slices), and EXPLAIN
 * ANALYZE counts the same row groups (total, pruned, read) either way.
 * A table of ONE big row group is split into row ranges (each range skips
 * the others' pages by the offset index): the same rows, positions and
 * page counts with 1 and 4 threads.
 */
#include "stmt_test_util.h"

#define NROWS 20000

/* The "row_groups=... read=N" part of the first scan line of an EXPLAIN
 * ANALYZE output, into out. */
static void rg_counts(const char *explain, char *out, size_t cap)
{
    out[0] = '\0';
    const char *p = strstr(explain, "row_groups=");
    if (!p)
        return;
    const char *e = strstr(p, " bytes=");
    const char *nl = strchr(p, '\n');
    if (!e || (nl && nl < e))
        e = nl ? nl : p + strlen(p);
    size_t n = (size_t)(e - p) < cap - 1 ? (size_t)(e - p) : cap - 1;
    memcpy(out, p, n);
    out[n] = '\0';
}

static long long rg_total(const char *counts)
{
    const char *p = strstr(counts, "row_groups=");
    return p ? atoll(p + strlen("row_groups=")) : -1;
}

static bool kept(long long x, int deletes)
{
    if (deletes >= 1 && x % 7 == 3)
        return false;
    if (deletes >= 2 && x % 5 == 0)
        return false;
    return true;
}

/* count|sum|min|max of the ids kept after `deletes` DELETE statements */
static void expected_agg(int deletes, char *out, size_t cap)
{
    long long cnt = 0, sum = 0, mn = -1, mx = -1;
    for (long long x = 0; x < NROWS; x++) {
        if (!kept(x, deletes))
            continue;
        cnt++;
        sum += x;
        if (mn < 0)
            mn = x;
        mx = x;
    }
    snprintf(out, cap, "%lld|%lld|%lld|%lld\n", cnt, sum, mn, mx);
}

/* rows id|v for id % 997 = 5, ordered */
static void expected_rows(int deletes, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    for (long long x = 0; x < NROWS && used < cap - 64; x++)
        if (x % 997 == 5 && kept(x, deletes))
            used += (size_t)snprintf(out + used, cap - used, "%lld|v%lld\n", x, x);
}

static void check_reads(stmt_env *e, int deletes)
{
    char want[8192];
    static const char *threads[] = {"SET threads = 1", "SET threads = 4"};
    for (int t = 0; t < 2; t++) {
        RUN_OK(e, threads[t]);
        RUN_OK(e, "SELECT count(*), sum(id), min(id), max(id) FROM t");
        expected_agg(deletes, want, sizeof want);
        CHECK_EQ_STR(e->rows, want);
        RUN_OK(e, "SELECT id, v FROM t WHERE id % 997 = 5 ORDER BY id");
        expected_rows(deletes, want, sizeof want);
        CHECK_EQ_STR(e->rows, want);
        /* every row's v still belongs to its id (columns of a slice aligned) */
        RUN_OK(e, "SELECT count(*) FROM t WHERE v <> 'v' || id");
        CHECK_EQ_STR(e->rows, "0\n");
    }
}

static void test_split_with_deletes(void)
{
    stmt_env e;
    CHECK(stmt_env_open(&e) == 0);
    RUN_OK(&e, "CREATE SCHEMA test");
    RUN_OK(&e, "CREATE TABLE t (id bigint, v text) "
               "WITH (\"write.parquet.row-group-size-bytes\" = '8192')");
    RUN_OK(&e, "SET threads = 1"); /* one data file */
    RUN_OK(&e, "INSERT INTO t SELECT x, 'v' || x FROM generate_series(0, 19999) AS g(x)");
    RUN_OK(&e, "EXPLAIN ANALYZE SELECT sum(id) FROM t");
    char one[256], four[256];
    rg_counts(e.rows, one, sizeof one);
    CHECK(strstr(e.rows, "files=1 ") != NULL);
    CHECK(rg_total(one) >= 8); /* several morsels per thread with 4 threads */
    check_reads(&e, 0);

    /* position deletes planned over a split scan (_pos from slices) */
    RUN_OK(&e, "SET threads = 4");
    RUN_OK(&e, "DELETE FROM t WHERE id % 7 = 3");
    CHECK_EQ_STR(e.tag, "DELETE 2857");
    check_reads(&e, 1);
    RUN_OK(&e, "SET threads = 4");
    RUN_OK(&e, "DELETE FROM t WHERE id % 5 = 0");
    CHECK_EQ_STR(e.tag, "DELETE 3428"); /* 4000 multiples of 5, 572 of them gone already */
    check_reads(&e, 2);

    /* row-group pruning by statistics: same counts with 1 and 4 threads
     * (a table without deletes, so the predicate reaches the row groups) */
    RUN_OK(&e, "SET threads = 1");
    RUN_OK(&e, "CREATE TABLE p (id bigint, v text) "
               "WITH (\"write.parquet.row-group-size-bytes\" = '8192')");
    RUN_OK(&e, "INSERT INTO p SELECT x, 'v' || x FROM generate_series(0, 19999) AS g(x)");
    RUN_OK(&e, "EXPLAIN ANALYZE SELECT sum(id) FROM p WHERE id >= 15000");
    rg_counts(e.rows, one, sizeof one);
    RUN_OK(&e, "SET threads = 4");
    RUN_OK(&e, "EXPLAIN ANALYZE SELECT sum(id) FROM p WHERE id >= 15000");
    rg_counts(e.rows, four, sizeof four);
    CHECK(one[0] != '\0');
    CHECK_EQ_STR(four, one);
    CHECK(strstr(one, "pruned=0 read") == NULL); /* some row groups were pruned */
    RUN_OK(&e, "SELECT count(*), sum(id) FROM p WHERE id >= 15000");
    CHECK_EQ_STR(e.rows, "5000|87497500\n");
    RUN_OK(&e, "EXPLAIN ANALYZE SELECT sum(id) FROM p");
    rg_counts(e.rows, four, sizeof four);
    RUN_OK(&e, "SET threads = 1");
    RUN_OK(&e, "EXPLAIN ANALYZE SELECT sum(id) FROM p");
    rg_counts(e.rows, one, sizeof one);
    CHECK_EQ_STR(four, one);
    stmt_env_close(&e);
}

#define BIG_ROWS 600000

/* A row group of BIG_ROWS rows: 4 threads read it as row ranges (op_scan.c
 * ICE_SPLIT_MIN_ROWS), with dictionary-encoded and nullable columns whose
 * pages do not line up with the range bounds. */
static void test_split_row_ranges(void)
{
    stmt_env e;
    CHECK(stmt_env_open(&e) == 0);
    RUN_OK(&e, "CREATE SCHEMA test");
    RUN_OK(&e, "CREATE TABLE b (id bigint, k text, v text, n int)");
    RUN_OK(&e, "SET threads = 1");
    RUN_OK(&e, "INSERT INTO b SELECT x, 'k' || (x % 100), 'v' || x, "
               "CASE WHEN x % 3 = 0 THEN NULL ELSE x % 1000 END "
               "FROM generate_series(0, 599999) AS g(x)");
    RUN_OK(&e, "EXPLAIN ANALYZE SELECT sum(id) FROM b");
    CHECK(strstr(e.rows, "row_groups=1 ") != NULL);
    static const char *threads[] = {"SET threads = 1", "SET threads = 4"};
    char counts[2][256];
    for (int t = 0; t < 2; t++) {
        RUN_OK(&e, threads[t]);
        RUN_OK(&e, "SELECT count(*), sum(id), count(n), sum(n), count(DISTINCT k) FROM b");
        CHECK_EQ_STR(e.rows, "600000|179999700000|400000|199800000|100\n");
        RUN_OK(&e, "SELECT count(*) FROM b WHERE v <> 'v' || id OR k <> 'k' || (id % 100) "
                   "OR (n IS NULL) <> (id % 3 = 0) OR n <> id % 1000");
        CHECK_EQ_STR(e.rows, "0\n");
        RUN_OK(&e, "SELECT count(*) FROM b WHERE _pos <> id");
        CHECK_EQ_STR(e.rows, "0\n");
        RUN_OK(&e, "EXPLAIN ANALYZE SELECT sum(id) FROM b WHERE id >= 450000");
        rg_counts(e.rows, counts[t], sizeof counts[t]);
        RUN_OK(&e, "SELECT count(*), sum(id) FROM b WHERE id >= 450000");
        CHECK_EQ_STR(e.rows, "150000|78749925000\n");
    }
    CHECK_EQ_STR(counts[1], counts[0]); /* pages of other ranges are not counted */
    CHECK(strstr(counts[0], "pages_pruned=") != NULL);
    /* position deletes planned over row ranges */
    RUN_OK(&e, "DELETE FROM b WHERE id % 7 = 3");
    CHECK_EQ_STR(e.tag, "DELETE 85714");
    RUN_OK(&e, "SELECT count(*), sum(id) FROM b");
    CHECK_EQ_STR(e.rows, "514286|154285628571\n");
    RUN_OK(&e, "SET threads = 1");
    RUN_OK(&e, "SELECT count(*), sum(id) FROM b");
    CHECK_EQ_STR(e.rows, "514286|154285628571\n");
    stmt_env_close(&e);
}

int main(void)
{
    TEST_RUN(test_split_with_deletes);
    TEST_RUN(test_split_row_ranges);
    return TEST_EXIT();
}
