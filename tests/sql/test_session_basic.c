/*
 * test_session_basic.c - sql.h end to end: sessions without a catalog
 * (SELECT over VALUES), errors with SQLSTATE and position, prepared
 * statements with inferred parameter types, EXPLAIN, cancel, settings, and
 * with a temporary SQLite catalog: CREATE TABLE / INSERT / SELECT with
 * joins, aggregates, subqueries, and answer receipts.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "floe/sql.h"
#include "floe_test.h"

/* Runs sql and renders every row as "a|b|c\n" into out (NULL as "NULL").
 * Kept instead of ft_run: it also CHECKs that no result batch carries a
 * selection vector, which ft_run (honouring selections) cannot see. */
static fl_status run(fl_sql_session *s, const char *sql, char *out, size_t cap, fl_error *err)
{
    fl_sql_result *r = NULL;
    out[0] = 0;
    fl_status rc = fl_sql_execute(s, sql, &r, err);
    if (rc != FL_OK)
        return rc;
    size_t len = 0;
    for (;;) {
        const fl_batch *b;
        bool eof;
        rc = fl_sql_result_next(r, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        if (b->sel)
            CHECK(b->sel == NULL);
        for (uint32_t row = 0; row < b->nrows; row++) {
            for (uint32_t c = 0; c < b->ncols; c++) {
                char v[256];
                if (!fl_vector_is_valid(&b->cols[c], row) && b->cols[c].encoding == FL_VEC_FLAT)
                    snprintf(v, sizeof v, "NULL");
                else
                    fl_sql_format_value(&b->cols[c], row, "UTC", v, sizeof v);
                fl_unified u;
                fl_vector_unify(&b->cols[c], &u);
                if (!fl_unified_is_valid(&u, row))
                    snprintf(v, sizeof v, "NULL");
                len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%s", c ? "|" : "",
                                        v);
            }
            len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "\n");
        }
    }
    fl_sql_result_close(r);
    return rc;
}

static void test_values(void)
{
    fl_sql_session *s = NULL;
    fl_error err;
    CHECK_OK(fl_sql_session_open(NULL, &s, &err), &err);
    if (!s)
        return;
    char out[4096];
    CHECK_OK(run(s, "SELECT 1 AS a, 'x' AS b, 2 + 3 * 4", out, sizeof out, &err), &err);
    CHECK_EQ_STR(out, "1|x|14\n");
    CHECK_OK(run(s,
                 "SELECT x, y FROM (VALUES (1, 'a'), (2, 'b'), (3, NULL)) t(x, y) "
                 "WHERE x >= 2 ORDER BY x DESC",
                 out, sizeof out, &err),
             &err);
    CHECK_EQ_STR(out, "3|NULL\n2|b\n");
    CHECK_OK(run(s,
                 "SELECT g, count(*), sum(v) FROM (VALUES ('a', 1), ('b', 2), ('a', 3)) t(g, v) "
                 "GROUP BY g ORDER BY g",
                 out, sizeof out, &err),
             &err);
    CHECK_EQ_STR(out, "a|2|4\nb|1|2\n");
    fl_sql_result *r = NULL;
    CHECK_OK(fl_sql_execute(s, "SELECT x AS first FROM (VALUES (1), (2)) t(x)", &r, &err), &err);
    if (r) {
        const fl_schema *sc = fl_sql_result_schema(r);
        CHECK_EQ_INT(sc->nfields, 1);
        CHECK_EQ_STR(sc->fields[0].name, "first");
        const fl_batch *b;
        bool eof = false;
        while (fl_sql_result_next(r, &b, &eof, &err) == FL_OK && !eof) {
        }
        CHECK_EQ_STR(fl_sql_result_tag(r), "SELECT 2");
        fl_sql_result_close(r);
    }
    fl_sql_session_close(s);
}

static void test_errors(void)
{
    fl_sql_session *s = NULL;
    fl_error err;
    CHECK_OK(fl_sql_session_open(NULL, &s, &err), &err);
    if (!s)
        return;
    fl_sql_result *r = NULL;
    fl_sql_error_info info;
    CHECK_EQ_INT(fl_sql_execute(s, "SELECT 1 FROM\nWHERE", &r, &err), FL_ESYNTAX);
    fl_sql_last_error(s, &info);
    CHECK_EQ_STR(info.sqlstate, "42601");
    CHECK_EQ_INT(info.position, 15);
    CHECK(strstr(err.msg, "line 2, column 1") != NULL);
    CHECK_EQ_INT(fl_sql_execute(s, "SELECT nope FROM (VALUES (1)) t(x)", &r, &err), FL_ENOTFOUND);
    fl_sql_last_error(s, &info);
    CHECK_EQ_STR(info.sqlstate, "42703");
    CHECK_EQ_INT(info.position, 8);
    CHECK_EQ_INT(fl_sql_execute(s, "SELECT * FROM t", &r, &err), FL_ENOTFOUND);
    fl_sql_last_error(s, &info);
    CHECK_EQ_STR(info.sqlstate, "42P01");
    /* several results may be open at once and read independently; closing
     * the session closes the ones left open */
    CHECK_OK(fl_sql_execute(s, "SELECT x FROM (VALUES (1), (2)) t(x)", &r, &err), &err);
    fl_sql_result *r2 = NULL, *r3 = NULL;
    CHECK_OK(fl_sql_execute(s, "SELECT 'b'", &r2, &err), &err);
    CHECK_OK(fl_sql_execute(s, "SELECT 3", &r3, &err), &err);
    const fl_batch *b = NULL;
    bool eof = false;
    CHECK_OK(fl_sql_result_next(r2, &b, &eof, &err), &err);
    CHECK(b && b->nrows == 1);
    fl_sql_result_close(r2);
    CHECK_OK(fl_sql_result_next(r, &b, &eof, &err), &err);
    CHECK(b && b->nrows == 2);
    fl_sql_result_close(r);
    fl_sql_session_close(s); /* r3 still open */
}

static void test_prepared(void)
{
    fl_sql_session *s = NULL;
    fl_error err;
    CHECK_OK(fl_sql_session_open(NULL, &s, &err), &err);
    if (!s)
        return;
    fl_sql_stmt *st = NULL;
    CHECK_OK(fl_sql_prepare(s, "SELECT x FROM (VALUES (1), (2), (3)) t(x) WHERE x > $1", &st,
                            &err),
             &err);
    if (st) {
        CHECK_EQ_INT(fl_sql_stmt_nparams(st), 1);
        CHECK_EQ_INT(fl_sql_stmt_param_type(st, 0)->id, FL_TYPE_INT32);
        CHECK_EQ_INT(fl_sql_stmt_schema(st)->nfields, 1);
        fl_value p;
        memset(&p, 0, sizeof p);
        p.type.id = FL_TYPE_INT64;
        p.v.i64 = 1;
        fl_sql_result *r = NULL;
        CHECK_OK(fl_sql_stmt_execute(st, &p, 1, &r, &err), &err);
        int64_t rows = 0;
        const fl_batch *b;
        bool eof = false;
        while (r && fl_sql_result_next(r, &b, &eof, &err) == FL_OK && !eof)
            rows += b->nrows;
        CHECK_EQ_INT(rows, 2);
        fl_sql_result_close(r);
        /* a string parameter is cast to the parameter's type */
        p.type.id = FL_TYPE_STRING;
        p.v.bytes.ptr = (const uint8_t *)"2";
        p.v.bytes.len = 1;
        CHECK_OK(fl_sql_stmt_execute(st, &p, 1, &r, &err), &err);
        rows = 0;
        while (r && fl_sql_result_next(r, &b, &eof, &err) == FL_OK && !eof)
            rows += b->nrows;
        CHECK_EQ_INT(rows, 1);
        fl_sql_result_close(r);
        CHECK_EQ_INT(fl_sql_stmt_execute(st, NULL, 0, &r, &err), FL_EINVAL);
    }
    fl_sql_stmt_close(st);
    fl_sql_session_close(s);
}

static void test_explain_and_settings(void)
{
    fl_sql_session *s = NULL;
    fl_error err;
    CHECK_OK(fl_sql_session_open(NULL, &s, &err), &err);
    if (!s)
        return;
    char out[8192];
    CHECK_OK(run(s, "EXPLAIN SELECT x + 1 FROM (VALUES (1), (2)) t(x) WHERE x > 1", out,
                 sizeof out, &err),
             &err);
    CHECK(strstr(out, "Project") != NULL);
    CHECK(strstr(out, "Values rows=2") != NULL);
    CHECK_OK(run(s, "EXPLAIN ANALYZE SELECT x FROM (VALUES (1), (2)) t(x) WHERE x > 1", out,
                 sizeof out, &err),
             &err);
    CHECK(strstr(out, "rows=1 time=") != NULL);
    CHECK_OK(fl_sql_set(s, "memory_limit", "1GB", &err), &err);
    CHECK_EQ_STR(fl_sql_get(s, "memory_limit"), "1073741824");
    CHECK_OK(fl_sql_set(s, "TimeZone", "Europe/Paris", &err), &err);
    CHECK_EQ_STR(fl_sql_get(s, "time_zone"), "Europe/Paris");
    CHECK_OK(fl_sql_set(s, "search_path", "\"sales\", public", &err), &err);
    CHECK_EQ_STR(fl_sql_get(s, "search_path"), "sales");
    CHECK_OK(fl_sql_set(s, "statement_timeout", "5s", &err), &err);
    CHECK_EQ_STR(fl_sql_get(s, "statement_timeout"), "5000");
    CHECK_EQ_INT(fl_sql_set(s, "no_such_thing", "1", &err), FL_ENOTFOUND);
    CHECK(fl_sql_get(s, "no_such_thing") == NULL);
    CHECK_EQ_INT(fl_sql_set(s, "threads", "-3", &err), FL_EINVAL);
    fl_sql_session_close(s);
}

static void test_cancel(void)
{
    fl_sql_session *s = NULL;
    fl_error err;
    CHECK_OK(fl_sql_session_open(NULL, &s, &err), &err);
    if (!s)
        return;
    fl_sql_result *r = NULL;
    CHECK_OK(fl_sql_execute(s,
                            "SELECT count(*) FROM (VALUES (1), (2), (3)) a(x), "
                            "(VALUES (1), (2), (3)) b(y)",
                            &r, &err),
             &err);
    fl_sql_session_cancel(s);
    const fl_batch *b;
    bool eof = false;
    fl_status rc = r ? fl_sql_result_next(r, &b, &eof, &err) : FL_EINVAL;
    CHECK_EQ_INT(rc, FL_ECANCELED);
    fl_sql_error_info info;
    fl_sql_last_error(s, &info);
    CHECK_EQ_STR(info.sqlstate, "57014");
    fl_sql_result_close(r);
    /* the next statement runs normally */
    char out[256];
    CHECK_OK(run(s, "SELECT 42", out, sizeof out, &err), &err);
    CHECK_EQ_STR(out, "42\n");
    fl_sql_session_close(s);
}

static void test_statement_timeout(void)
{
    fl_sql_session *s = NULL;
    fl_error err;
    CHECK_OK(fl_sql_session_open(NULL, &s, &err), &err);
    if (!s)
        return;
    CHECK_OK(fl_sql_set(s, "statement_timeout", "1", &err), &err);
    /* 10^8 rows: far longer than 1 ms */
    char out[256];
    fl_status rc = run(s,
                       "WITH d(x) AS (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) "
                       "SELECT count(*) FROM d a, d b, d c, d e, d f, d g, d h, d i",
                       out, sizeof out, &err);
    CHECK_EQ_INT(rc, FL_ECANCELED);
    CHECK(strstr(err.msg, "statement timeout") != NULL);
    fl_sql_error_info info;
    fl_sql_last_error(s, &info);
    CHECK_EQ_STR(info.sqlstate, "57014");
    CHECK_OK(fl_sql_set(s, "statement_timeout", "0", &err), &err);
    CHECK_OK(run(s, "SELECT 1", out, sizeof out, &err), &err);
    CHECK_EQ_STR(out, "1\n");
    fl_sql_session_close(s);
}

static void test_catalog_tables(void)
{
    char dir[128];
    if (!ft_tmpdir(dir, sizeof dir, "floe_session")) {
        CHECK(0);
        return;
    }
    char uri[256], wh[256];
    snprintf(uri, sizeof uri, "sqlite:%s/cat.db", dir);
    snprintf(wh, sizeof wh, "%s/wh", dir);
    fl_sql_options o;
    memset(&o, 0, sizeof o);
    o.catalog_uri = uri;
    o.warehouse = wh;
    o.threads = 2;
    fl_sql_session *s = NULL;
    fl_error err;
    CHECK_OK(fl_sql_session_open(&o, &s, &err), &err);
    if (!s)
        return;
    char out[8192];
    const char *setup[] = {
        "CREATE SCHEMA \"default\"",
        "CREATE TABLE region (r_regionkey int, r_name varchar)",
        "CREATE TABLE nation (n_nationkey int, n_name varchar, n_regionkey int)",
        "INSERT INTO region VALUES (0, 'AFRICA'), (1, 'AMERICA'), (2, 'ASIA')",
        ("INSERT INTO nation VALUES (0, 'ALGERIA', 0), (1, 'ARGENTINA', 1), (2, 'BRAZIL', 1), "
         "(3, 'CANADA', 1), (4, 'EGYPT', 0), (5, 'CHINA', 2)"),
    };
    for (size_t i = 0; i < sizeof setup / sizeof setup[0]; i++) {
        fl_status rc = run(s, setup[i], out, sizeof out, &err);
        if (rc != FL_OK)
            fprintf(stderr, "%s: %s\n", setup[i], err.msg);
        CHECK_OK(rc, &err);
    }
    CHECK_OK(run(s,
                 "SELECT r_name, count(*) AS n FROM nation, region WHERE n_regionkey = "
                 "r_regionkey GROUP BY r_name ORDER BY n DESC, r_name",
                 out, sizeof out, &err),
             &err);
    CHECK_EQ_STR(out, "AMERICA|3\nAFRICA|2\nASIA|1\n");
    CHECK_OK(run(s,
                 "SELECT n_name FROM nation n WHERE EXISTS (SELECT 1 FROM region r WHERE "
                 "r.r_regionkey = n.n_regionkey AND r_name LIKE 'A%A') ORDER BY 1",
                 out, sizeof out, &err),
             &err);
    CHECK_EQ_STR(out, "ALGERIA\nARGENTINA\nBRAZIL\nCANADA\nCHINA\nEGYPT\n");
    CHECK_OK(run(s,
                 "SELECT n_name FROM nation n WHERE EXISTS (SELECT 1 FROM region r WHERE "
                 "r.r_regionkey = n.n_regionkey AND r_name = 'ASIA') ORDER BY 1",
                 out, sizeof out, &err),
             &err);
    CHECK_EQ_STR(out, "CHINA\n");
    CHECK_OK(run(s,
                 "SELECT n_name FROM nation WHERE n_regionkey NOT IN (SELECT r_regionkey FROM "
                 "region WHERE r_name <> 'ASIA') ORDER BY 1",
                 out, sizeof out, &err),
             &err);
    CHECK_EQ_STR(out, "CHINA\n");
    CHECK_OK(run(s,
                 "SELECT n_name, (SELECT count(*) FROM nation m WHERE m.n_regionkey = "
                 "n.n_regionkey) FROM nation n WHERE n_nationkey < 2 ORDER BY 1",
                 out, sizeof out, &err),
             &err);
    CHECK_EQ_STR(out, "ALGERIA|2\nARGENTINA|3\n");
    CHECK_OK(run(s, "SELECT count(*) FROM nation", out, sizeof out, &err), &err);
    CHECK_EQ_STR(out, "6\n");
    /* count/min/max from manifest metrics: the plan is a VALUES row */
    const char *agg = "SELECT count(*), min(n_nationkey), max(n_nationkey), count(n_name) FROM nation";
    CHECK_OK(run(s, agg, out, sizeof out, &err), &err);
    CHECK_EQ_STR(out, "6|0|5|6\n");
    char q[512];
    snprintf(q, sizeof q, "EXPLAIN %s", agg);
    CHECK_OK(run(s, q, out, sizeof out, &err), &err);
    CHECK(strstr(out, "Values rows=1") != NULL && strstr(out, "Scan") == NULL);
    /* after a row-level delete the metrics are not exact any more */
    CHECK_OK(run(s, "DELETE FROM nation WHERE n_nationkey = 5", out, sizeof out, &err), &err);
    CHECK_OK(run(s, agg, out, sizeof out, &err), &err);
    CHECK_EQ_STR(out, "5|0|4|5\n");
    CHECK_OK(run(s, q, out, sizeof out, &err), &err);
    CHECK(strstr(out, "Scan iceberg default.nation") != NULL);
    /* metadata tables and time travel to the first snapshot (before the delete) */
    CHECK_OK(run(s, "SELECT snapshot_id, operation FROM \"nation$snapshots\" ORDER BY committed_at",
                 out, sizeof out, &err),
             &err);
    long long first = atoll(out);
    CHECK(first != 0 && strstr(out, "|append\n") != NULL && strstr(out, "|delete\n") != NULL);
    snprintf(q, sizeof q, "SELECT count(*), max(n_nationkey) FROM nation FOR VERSION AS OF %lld",
             first);
    CHECK_OK(run(s, q, out, sizeof out, &err), &err);
    CHECK_EQ_STR(out, "6|5\n");
    snprintf(q, sizeof q, "SELECT count(*) FROM nation FOR VERSION AS OF 12345");
    CHECK_EQ_INT(run(s, q, out, sizeof out, &err), FL_ENOTFOUND);
    CHECK(strstr(err.msg, "line 1, column 47: snapshot 12345 not found") != NULL);
    /* receipts: the snapshot each table was read at */
    fl_sql_result *r = NULL;
    CHECK_OK(fl_sql_execute(s, "SELECT * FROM nation JOIN region ON n_regionkey = r_regionkey",
                            &r, &err),
             &err);
    if (r) {
        CHECK_EQ_INT(fl_sql_result_nreads(r), 2);
        for (uint32_t i = 0; i < fl_sql_result_nreads(r); i++) {
            const fl_sql_table_read *rd = fl_sql_result_read(r, i);
            CHECK(rd->snapshot_id > 0 && !rd->written);
            CHECK(strcmp(rd->table, "default.nation") == 0 ||
                  strcmp(rd->table, "default.region") == 0);
        }
        fl_sql_result_close(r);
    }
    fl_sql_session_close(s);
    ft_rmtree(dir);
}

int main(void)
{
    TEST_RUN(test_values);
    TEST_RUN(test_errors);
    TEST_RUN(test_prepared);
    TEST_RUN(test_explain_and_settings);
    TEST_RUN(test_cancel);
    TEST_RUN(test_statement_timeout);
    TEST_RUN(test_catalog_tables);
    return TEST_EXIT();
}
