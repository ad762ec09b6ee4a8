/*
 * test_session_arrow.c - fl_sql_result_next_arrow: a result's batches as
 * ArrowArrays the caller owns. Projections (whose output vectors are their
 * expressions' vectors), filters (a selection), aggregates, strings with
 * NULLs and nested values are exported batch by batch, released, and the
 * result closed afterwards: under ASan a buffer owned twice is a double
 * free, and values are read back from the Arrow buffers themselves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/arrow.h"
#include "floe/sql.h"
#include "floe_test.h"

/* Runs sql, exports every batch, and returns the total rows; child 0 of
 * the first batch is copied into first (n values, int64 or int32 by width). */
static int64_t run_arrow(fl_sql_session *s, const char *sql, int64_t *first, int nfirst,
                         char *format, size_t cap)
{
    fl_error err;
    fl_error_clear(&err);
    fl_sql_result *r = NULL;
    CHECK_OK(fl_sql_execute(s, sql, &r, &err), &err);
    struct ArrowSchema sc;
    CHECK_OK(fl_sql_result_arrow_schema(r, &sc, &err), &err);
    CHECK(sc.n_children >= 1);
    snprintf(format, cap, "%s", sc.children[0]->format);
    sc.release(&sc);
    int64_t rows = 0;
    int got = 0;
    for (;;) {
        struct ArrowArray a;
        bool eof = false;
        CHECK_OK(fl_sql_result_next_arrow(r, &a, &eof, &err), &err);
        if (eof) {
            CHECK(a.release == NULL);
            break;
        }
        CHECK(a.n_children >= 1 && a.children[0]->length == a.length);
        const struct ArrowArray *c0 = a.children[0];
        for (int64_t i = 0; i < c0->length && got < nfirst; i++) {
            if (!strcmp(format, "l"))
                first[got++] = ((const int64_t *)c0->buffers[1])[c0->offset + i];
            else if (!strcmp(format, "i"))
                first[got++] = ((const int32_t *)c0->buffers[1])[c0->offset + i];
        }
        rows += a.length;
        a.release(&a);
    }
    fl_sql_result_close(r);
    return rows;
}

static void test_projection_and_filter(void)
{
    fl_sql_session *s = NULL;
    fl_error err;
    fl_error_clear(&err);
    CHECK_OK(fl_sql_session_open(NULL, &s, &err), &err);
    int64_t v[4] = {0};
    char fmt[16];
    CHECK_EQ_INT(run_arrow(s, "SELECT 1 AS a", v, 1, fmt, sizeof fmt), 1);
    CHECK_EQ_STR(fmt, "i");
    CHECK_EQ_INT(v[0], 1);
    CHECK_EQ_INT(run_arrow(s, "SELECT i * 2 AS d, 'x' || i AS s FROM generate_series(1, 5000) g(i)",
                           v, 3, fmt, sizeof fmt),
                 5000);
    CHECK(!strcmp(fmt, "i") || !strcmp(fmt, "l"));
    CHECK(v[0] == 2 && v[1] == 4 && v[2] == 6);
    CHECK_EQ_INT(run_arrow(s, "SELECT i FROM generate_series(1, 10000) g(i) WHERE i % 3 = 0", v, 2,
                           fmt, sizeof fmt),
                 3333);
    CHECK(v[0] == 3 && v[1] == 6);
    CHECK_EQ_INT(run_arrow(s,
                           "SELECT i % 7 AS k, count(*), max(CASE WHEN i % 2 = 0 THEN 'e' END) "
                           "FROM generate_series(1, 700) g(i) GROUP BY 1 ORDER BY 1",
                           v, 2, fmt, sizeof fmt),
                 7);
    CHECK(v[0] == 0 && v[1] == 1);
    CHECK_EQ_INT(run_arrow(s, "SELECT x, ROW(x, 'a') AS r FROM (VALUES (1), (NULL), (3)) t(x)", v,
                           1, fmt, sizeof fmt),
                 3);
    fl_sql_session_close(s);
}

static void test_strings_and_nulls(void)
{
    fl_sql_session *s = NULL;
    fl_error err;
    fl_error_clear(&err);
    CHECK_OK(fl_sql_session_open(NULL, &s, &err), &err);
    fl_sql_result *r = NULL;
    CHECK_OK(fl_sql_execute(s,
                            "SELECT CASE WHEN i = 2 THEN NULL ELSE 'v' || i END AS s "
                            "FROM generate_series(1, 3) g(i) WHERE i > 0",
                            &r, &err),
             &err);
    struct ArrowArray a;
    bool eof = false;
    CHECK_OK(fl_sql_result_next_arrow(r, &a, &eof, &err), &err);
    CHECK(!eof && a.length == 3);
    const struct ArrowArray *c = a.children[0];
    CHECK_EQ_INT(c->null_count, 1);
    const uint8_t *valid = c->buffers[0];
    CHECK(valid && (valid[0] & 1) && !(valid[0] & 2) && (valid[0] & 4));
    const int64_t *off = c->buffers[1]; /* large_string: int64 offsets */
    const char *heap = c->buffers[2];
    CHECK(off[1] - off[0] == 2 && !memcmp(heap + off[0], "v1", 2));
    CHECK(off[3] - off[2] == 2 && !memcmp(heap + off[2], "v3", 2));
    a.release(&a);
    CHECK_OK(fl_sql_result_next_arrow(r, &a, &eof, &err), &err);
    CHECK(eof);
    fl_sql_result_close(r);
    fl_sql_session_close(s);
}

int main(void)
{
    TEST_RUN(test_projection_and_filter);
    TEST_RUN(test_strings_and_nulls);
    return TEST_EXIT();
}
