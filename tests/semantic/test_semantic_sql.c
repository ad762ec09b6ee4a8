/*
 * test_semantic_sql.c - the SQL API (include/floe/sem_sql.h) in-process: a
 * session with the extension answers SELECT ... MEASURE() FROM
 * semantic.metrics with the numbers of hand-written SQL over the same
 * tables (simple query and prepared statement), lists the relation in
 * information_schema, reports SQLSTATEs with positions, and leaves every
 * other statement as it was.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/sem_sql.h"
#include "floe_test.h"
#include "semantic_seed.h"

static char g_dir[256];
static fl_sem_model *g_model;
static fl_sem_sql *g_api;
static fl_sql_session *g_s;

static fl_sql_session *open_session(const fl_sql_extension *ext)
{
    char uri[512], wh[512];
    snprintf(uri, sizeof uri, "sqlite:%s/cat.db", g_dir);
    snprintf(wh, sizeof wh, "%s/wh", g_dir);
    fl_sql_options o;
    memset(&o, 0, sizeof o);
    o.catalog_uri = uri;
    o.warehouse = wh;
    o.threads = 1;
    o.extension = ext;
    fl_sql_session *s = NULL;
    fl_error err;
    CHECK_OK(fl_sql_session_open(&o, &s, &err), &err);
    return s;
}

static void test_answers_equal_hand_sql(void)
{
    const char *hand =
        "SELECT c.region, sum(o.gross_amount - o.discount_applied - o.return_amount) "
        "FROM orders o JOIN customers c ON c.customer_id = o.customer_id "
        "GROUP BY 1 ORDER BY 2 DESC";
    char want[1024];
    fl_error err;
    CHECK_OK(ft_run(g_s, hand, "\n", want, sizeof want, &err), &err);
    ft_expect(g_s,
              "SELECT customer__region, MEASURE(net_revenue) AS rev FROM semantic.metrics "
              "GROUP BY 1 ORDER BY rev DESC",
              "\n", want);
    /* WHERE pushed into the semantic query, a month grain, HAVING, LIMIT/OFFSET */
    ft_expect(g_s,
              "SELECT date_trunc('month', metric_time) AS m, MEASURE(net_revenue) "
              "FROM semantic.metrics WHERE customer__region = 'EU' GROUP BY m "
              "HAVING MEASURE(net_revenue) > 0 ORDER BY m LIMIT 2 OFFSET 0",
              "\n", "2024-01-01|240.00\n2024-02-01|250.00\n");
    ft_expect(g_s,
              "SELECT SUM(gross_revenue), MEASURE(gross_revenue) - MEASURE(discounts) "
              "FROM semantic.metrics WHERE metric_time__day BETWEEN DATE '2024-03-01' AND "
              "DATE '2024-03-31'",
              "\n", "260.00|248.00\n");
}

static void test_explain(void)
{
    char out[8192];
    fl_error err;
    CHECK_OK(ft_run(g_s,
                    "EXPLAIN (ANALYZE) SELECT customer__region, MEASURE(net_revenue) FROM "
                    "semantic.metrics GROUP BY 1",
                    "\n", out, sizeof out, &err),
             &err);
    CHECK(strstr(out, "Aggregate") && strstr(out, "Scan iceberg default.orders") &&
          strstr(out, "rows="));
}

static void test_prepared(void)
{
    fl_sql_stmt *st = NULL;
    fl_error err;
    CHECK_OK(fl_sql_prepare(g_s,
                            "SELECT customer__region AS r, MEASURE(order_total) FROM "
                            "semantic.metrics WHERE customer__region IN ('US', 'APAC') "
                            "GROUP BY 1 ORDER BY 1",
                            &st, &err),
             &err);
    if (!st)
        return;
    const fl_schema *sc = fl_sql_stmt_schema(st);
    CHECK(sc && sc->nfields == 2);
    if (sc && sc->nfields == 2) {
        CHECK_EQ_STR(sc->fields[0].name, "r");
        CHECK_EQ_STR(sc->fields[1].name, "order_total");
    }
    fl_sql_result *r = NULL;
    CHECK_OK(fl_sql_stmt_execute(st, NULL, 0, &r, &err), &err);
    const fl_batch *b = NULL;
    bool eof = false;
    uint64_t rows = 0;
    while (r && fl_sql_result_next(r, &b, &eof, &err) == FL_OK && !eof)
        rows += fl_batch_live_rows(b);
    CHECK_EQ_INT(rows, 2);
    fl_sql_result_close(r);
    fl_sql_stmt_close(st);
}

static void test_catalog_lists_members(void)
{
    ft_expect(g_s,
              "SELECT column_name, data_type FROM information_schema.columns WHERE "
              "table_schema = 'semantic' AND table_name = 'metrics' AND column_name IN "
              "('metric_time', 'customer__region', 'net_revenue') ORDER BY 1",
              "\n",
              "customer__region|text\nmetric_time|timestamp without time zone\n"
              "net_revenue|double precision\n");
    ft_expect(g_s,
              "SELECT relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
              "WHERE nspname = 'semantic' AND relname = 'metrics'",
              "\n", "v\n");
}

/* planned types replace the defaults (numeric sums, a date axis, a bigint count) */
static void test_resolved_types(void)
{
    fl_error err;
    CHECK_OK(fl_sem_sql_resolve_types(g_api, g_s, &err), &err);
    ft_expect(g_s,
              "SELECT column_name, data_type FROM information_schema.columns WHERE "
              "table_schema = 'semantic' AND table_name = 'metrics' AND column_name IN "
              "('metric_time', 'customer__region', 'net_revenue', 'order_total', 'return_rate') "
              "ORDER BY 1",
              "\n",
              "customer__region|text\nmetric_time|date\nnet_revenue|numeric\norder_total|bigint\n"
              "return_rate|double precision\n");
}

static void expect_error(const char *sql, const char *state, int32_t pos, const char *words)
{
    char out[256];
    fl_error err;
    CHECK(ft_run(g_s, sql, "\n", out, sizeof out, &err) != FL_OK);
    fl_sql_error_info info;
    fl_sql_last_error(g_s, &info);
    CHECK_EQ_STR(info.sqlstate, state);
    CHECK_EQ_INT(info.position, pos);
    if (!strstr(err.msg, words)) {
        fprintf(stderr, "%s\n  -> %s\n  want '%s'\n", sql, err.msg, words);
        CHECK(0);
    }
}

static void test_errors(void)
{
    expect_error("SELECT MEASURE(nope) FROM semantic.metrics", "42703", 8, "no metric 'nope'");
    expect_error("SELECT customer__region, net_revenue FROM semantic.metrics GROUP BY 1", "42803",
                 26, "MEASURE(net_revenue)");
    expect_error("SELECT customer__region, MEASURE(net_revenue) FROM semantic.metrics "
                 "GROUP BY order__status",
                 "42803", 8, "must appear in the GROUP BY");
    expect_error("SELECT count(net_revenue) FROM semantic.metrics", "42803", 8, "derived metric");
    expect_error("SELECT * FROM semantic.metrics", "0A000", 8, "SELECT *");
    expect_error("SELECT MEASURE(net_revenue) FROM semantic.metrics WHERE customer__region = "
                 "'{{ x }}'",
                 "22023", 76, "'{{'");
    expect_error("WITH x AS (SELECT 1) SELECT MEASURE(net_revenue) FROM semantic.metrics", "0A000",
                 0, "WITH is not taken");
    expect_error("SELECT MEASURE(net_revenue) FROM semantic.metrics, orders", "0A000", 0,
                 "only relation");
    expect_error("SELECT customer__region FROM semantic.metrics GROUP BY 1", "42803", 0,
                 "at least one metric");
}

static void test_other_statements_untouched(void)
{
    char *out = (char *)"x";
    int32_t pos = -1;
    fl_error err;
    const char *same[] = {
        "SELECT 1",
        "SELECT 'semantic.metrics'",
        "SELECT * FROM orders WHERE status = 'metrics' -- semantic",
        "SELECT MEASURE(",
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        CHECK_OK(fl_sem_sql_rewrite(g_api, same[i], &out, &pos, &err), &err);
        CHECK(out == NULL);
        CHECK_EQ_INT(pos, 0);
    }
    /* without the extension the relation does not exist */
    fl_sql_session *plain = open_session(NULL);
    ft_expect_sqlstate(plain, "SELECT MEASURE(net_revenue) FROM semantic.metrics", "42P01");
    fl_sql_session_close(plain);
}

int main(void)
{
    const char *src = getenv("FLOE_SRC");
    fl_error err;
    if (!src || !ft_tmpdir(g_dir, sizeof g_dir, "semsql"))
        return 1;
    char models[1024];
    snprintf(models, sizeof models, "%s/tests/semantic/models", src);
    CHECK_OK(fl_sem_model_load_dir(models, &g_model, &err), &err);
    CHECK_OK(fl_sem_sql_new(g_model, &g_api, &err), &err);
    if (!g_api)
        return TEST_EXIT();
    g_s = open_session(fl_sem_sql_extension(g_api));
    char out[256];
    for (size_t i = 0; g_s && i < sizeof SEED / sizeof SEED[0]; i++)
        CHECK_OK(ft_run(g_s, SEED[i], "\n", out, sizeof out, &err), &err);
    if (g_s) {
        TEST_RUN(test_answers_equal_hand_sql);
        TEST_RUN(test_explain);
        TEST_RUN(test_prepared);
        TEST_RUN(test_catalog_lists_members);
        TEST_RUN(test_resolved_types);
        TEST_RUN(test_errors);
        TEST_RUN(test_other_statements_untouched);
    }
    fl_sql_session_close(g_s);
    fl_sem_sql_free(g_api);
    fl_sem_model_free(g_model);
    ft_rmtree(g_dir);
    return TEST_EXIT();
}
