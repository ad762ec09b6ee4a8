/*
 * test_semantic_query.c - the compiler and receipts on a small in-process
 * warehouse: every metric type of tests/semantic/models compiled and run by
 * floe's engine, each answer checked against a hand-written SQL query over
 * the same tables (and a few against literal numbers); join-path choice,
 * ambiguity, fan-out refusal, bad grains; receipts replayed after new data.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/semantic.h"
#include "floe_test.h"
#include "semantic_seed.h"

typedef struct world {
    char dir[256];
    fl_sql_session *s;
    fl_sem_model *m;
} world;

static bool open_world(world *w)
{
    memset(w, 0, sizeof *w);
    const char *src = getenv("FLOE_SRC");
    if (!src || !ft_tmpdir(w->dir, sizeof w->dir, "semq"))
        return false;
    w->s = ft_open_sqlite(w->dir, NULL, NULL);
    char out[256];
    fl_error err = {0};
    for (size_t i = 0; w->s && i < sizeof SEED / sizeof SEED[0]; i++)
        CHECK_OK(ft_run(w->s, SEED[i], "\n", out, sizeof out, &err), &err);
    char models[1024];
    snprintf(models, sizeof models, "%s/tests/semantic/models", src);
    CHECK_OK(fl_sem_model_load_dir(models, &w->m, &err), &err);
    return w->s && w->m;
}

static void close_world(world *w)
{
    fl_sem_model_free(w->m);
    fl_sql_session_close(w->s);
    ft_rmtree(w->dir);
}

/* Runs a semantic query and renders its rows as ft_run does. */
static fl_status sem_rows(world *w, const fl_sem_query *q, char *out, size_t cap,
                          fl_sem_receipt **receipt, fl_error *err)
{
    fl_sql_result *r = NULL;
    fl_sem_receipt *rc_ = NULL;
    out[0] = 0;
    fl_status rc = fl_sem_execute(w->s, w->m, q, &r, &rc_, err);
    size_t len = 0;
    while (rc == FL_OK) {
        const fl_batch *b;
        bool eof;
        rc = fl_sql_result_next(r, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        for (uint32_t i = 0; i < fl_batch_live_rows(b); i++)
            ft_render_row(b, b->sel ? b->sel->idx[i] : i, "\n", out, cap, &len);
    }
    fl_sql_result_close(r);
    if (receipt)
        *receipt = rc_;
    else
        fl_sem_receipt_free(rc_);
    return rc;
}

/* A query of metrics (comma list) by group-by (comma list, may be ""). */
typedef struct qbuf {
    char mbuf[512], gbuf[512];
    const char *metrics[16], *gbs[16], *where[4];
    fl_sem_query q;
} qbuf;

static uint32_t split(char *s, const char **items)
{
    uint32_t n = 0;
    for (char *save = NULL, *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save))
        items[n++] = t;
    return n;
}

static fl_sem_query *mkq(qbuf *b, const char *metrics, const char *gbs, const char *where)
{
    memset(b, 0, sizeof *b);
    snprintf(b->mbuf, sizeof b->mbuf, "%s", metrics);
    snprintf(b->gbuf, sizeof b->gbuf, "%s", gbs);
    b->q.metrics = b->metrics;
    b->q.nmetrics = split(b->mbuf, b->metrics);
    b->q.group_by = b->gbs;
    b->q.ngroup_by = split(b->gbuf, b->gbs);
    b->where[0] = where;
    b->q.where = b->where;
    b->q.nwhere = where ? 1 : 0;
    b->q.limit = -1;
    return &b->q;
}

/* The semantic answer must equal the hand-written SQL's rows. */
static void expect_same(world *w, const char *metrics, const char *gbs, const char *where,
                        const char *hand)
{
    qbuf b;
    char got[8192], want[8192];
    fl_error err = {0};
    fl_status rc = sem_rows(w, mkq(&b, metrics, gbs, where), got, sizeof got, NULL, &err);
    if (rc != FL_OK) {
        fprintf(stderr, "semantic %s by %s: %s\n", metrics, gbs, err.msg);
        CHECK(0);
        return;
    }
    CHECK_OK(ft_run(w->s, hand, "\n", want, sizeof want, &err), &err);
    if (strcmp(got, want)) {
        fprintf(stderr, "semantic %s by %s\n got:\n%s want:\n%s", metrics, gbs, got, want);
        CHECK(0);
    }
    CHECK(got[0] != 0);
}

#define NET "(gross_amount - discount_applied - return_amount)"
#define MONTH "CAST(date_trunc('month', order_date) AS date)"

static void test_every_metric_type(void)
{
    world w;
    if (!open_world(&w)) {
        close_world(&w);
        return;
    }
    /* the seed's example, defined once: literal numbers and hand SQL */
    qbuf b;
    char got[4096];
    fl_error err = {0};
    CHECK_OK(sem_rows(&w, mkq(&b, "net_revenue", "metric_time__month", NULL), got, sizeof got, NULL,
                      &err),
             &err);
    CHECK_EQ_STR(got, "2024-01-01|240.00\n2024-02-01|295.00\n2024-03-01|188.00\n");
    expect_same(&w, "net_revenue,net_revenue_simple", "metric_time__month", NULL,
                "SELECT " MONTH ", sum" NET ", sum" NET " FROM orders GROUP BY 1 ORDER BY 1");
    /* simple aggregations */
    expect_same(&w, "order_total", "order__status", NULL,
                "SELECT status, count(order_id) FROM orders GROUP BY 1 ORDER BY 1");
    /* metric filter, measure-input filter with a join */
    expect_same(&w, "completed_revenue,eu_gross_revenue", "metric_time__quarter", NULL,
                "SELECT CAST(date_trunc('quarter', o.order_date) AS date), sum(CASE WHEN "
                "o.status = 'completed' THEN o.gross_amount END), sum(CASE WHEN c.region = 'EU' "
                "THEN o.gross_amount END) FROM orders o JOIN customers c USING (customer_id) "
                "GROUP BY 1 ORDER BY 1");
    /* ratio: numerator and denominator aggregated separately */
    expect_same(&w, "return_rate,revenue_per_order", "metric_time__month", NULL,
                "SELECT " MONTH ", CAST(sum(return_amount) AS double precision) / "
                "CAST(sum(gross_amount) AS double precision), CAST(sum" NET
                " AS double precision) / NULLIF(CAST(count(CASE WHEN status <> 'cancelled' "
                "THEN order_id END) AS double precision), 0) FROM orders GROUP BY 1 ORDER BY 1");
    /* derived with a month-over-month offset */
    expect_same(&w, "net_revenue_mom_change", "metric_time__month", NULL,
                "WITH m AS (SELECT " MONTH " AS mo, sum" NET " AS v FROM orders GROUP BY 1) "
                "SELECT a.mo, a.v - p.v FROM m a LEFT JOIN m p ON p.mo = CAST(a.mo - INTERVAL "
                "'1 month' AS date) ORDER BY 1");
    /* cumulative: all time as of each month's first day (period_agg first, MetricFlow's
     * default), a 2-month window as of the month's last day (period_agg last), month to date */
    CHECK_OK(sem_rows(&w, mkq(&b, "cumulative_net_revenue", "metric_time__month", NULL), got,
                      sizeof got, NULL, &err),
             &err);
    CHECK_EQ_STR(got, "2024-01-01|NULL\n2024-02-01|240.00\n2024-03-01|615.00\n");
    /* a filter on metric_time chooses the periods, the running total still counts January */
    CHECK_OK(sem_rows(&w,
                      mkq(&b, "cumulative_net_revenue,net_revenue_mom_change", "metric_time__month",
                          "{{ TimeDimension('metric_time', 'month') }} >= '2024-02-01'"),
                      got, sizeof got, NULL, &err),
             &err);
    CHECK_EQ_STR(got, "2024-02-01|240.00|55.00\n2024-03-01|615.00|-107.00\n");
    expect_same(&w, "cumulative_net_revenue", "metric_time__quarter", NULL,
                "SELECT q, (SELECT sum" NET " FROM orders o WHERE o.order_date <= q) FROM (SELECT "
                "DISTINCT CAST(date_trunc('quarter', order_date) AS date) AS q FROM orders) x "
                "ORDER BY 1");
    expect_same(&w, "net_revenue_trailing_2_months", "metric_time__month", NULL,
                "WITH m AS (SELECT " MONTH " AS mo, sum" NET " AS v FROM orders GROUP BY 1) "
                "SELECT mo, sum(v) OVER (ORDER BY mo ROWS 1 PRECEDING) FROM m ORDER BY 1");
    expect_same(&w, "net_revenue_mtd", "metric_time__day", NULL,
                "SELECT d, sum(v) OVER (PARTITION BY date_trunc('month', d) ORDER BY d) FROM "
                "(SELECT order_date AS d, sum" NET " AS v FROM orders GROUP BY 1) x ORDER BY 1");
    /* a query where filter, a multi-hop join (orders -> customers -> countries) */
    expect_same(&w, "gross_revenue", "country__continent",
                "{{ Dimension('order__status') }} <> 'cancelled'",
                "SELECT n.continent, sum(o.gross_amount) FROM orders o JOIN customers c USING "
                "(customer_id) JOIN countries n USING (country_code) WHERE o.status <> "
                "'cancelled' GROUP BY 1 ORDER BY 1");
    /* an explicit path starting at the measure model's own key (customers' customer) */
    expect_same(
        &w, "customer_total", "customer__country__continent", NULL,
        "SELECT n.continent, count(DISTINCT c.customer_id) FROM customers c JOIN countries n "
        "USING (country_code) GROUP BY 1 ORDER BY 1");
    /* metrics of two semantic models side by side, each at its own grain */
    expect_same(&w, "customer_total,net_revenue", "customer__region", NULL,
                "SELECT a.region, a.n, b.v FROM (SELECT region, count(DISTINCT customer_id) AS "
                "n FROM customers GROUP BY 1) a FULL JOIN (SELECT c.region, sum" NET " AS v FROM "
                "orders o JOIN customers c USING (customer_id) GROUP BY 1) b USING (region) "
                "ORDER BY 1");
    /* conversion: order 1 (Jan 5, customer 1) goes to visit 2 (Jan 3, the latest within 7 days),
     * order 3 (Feb 3, customer 3) to visit 5 (Feb 2); order 2 (Jan 20, customer 2) is 18 days
     * after visit 3; order 5 (Mar 1, customer 4) is 10 days after visit 6: no ads conversion, so
     * its rate is NULL as in MetricFlow and its count 0 */
    CHECK_OK(sem_rows(&w,
                      mkq(&b, "visit_to_order_conversions,visit_to_order_rate,visits",
                          "visit__channel", NULL),
                      got, sizeof got, NULL, &err),
             &err);
    CHECK_EQ_STR(got, "ads|0|NULL|4\ndirect|1|1|1\nsearch|1|1|1\n");
    /* semi-additive: the balances on each period's last day, summed over accounts */
    expect_same(&w, "closing_balance", "metric_time__month", NULL,
                "SELECT CAST(date_trunc('month', balance_date) AS date) AS mo, sum(balance) FROM "
                "account_balances b WHERE balance_date = (SELECT max(balance_date) FROM "
                "account_balances x WHERE date_trunc('month', x.balance_date) = "
                "date_trunc('month', b.balance_date)) GROUP BY 1 ORDER BY 1");
    CHECK_OK(sem_rows(&w, mkq(&b, "closing_balance", "customer__region", NULL), got, sizeof got,
                      NULL, &err),
             &err);
    CHECK_EQ_STR(got, "EU|90.00\nUS|10.00\n");
    close_world(&w);
}

static void expect_compile_error(const fl_sem_model *m, const char *metrics, const char *gbs,
                                 const char *where, const char *want)
{
    qbuf b;
    char *sql = NULL;
    fl_error err = {0};
    fl_status rc = fl_sem_compile(m, mkq(&b, metrics, gbs, where), NULL, 0, &sql, &err);
    CHECK(rc != FL_OK);
    free(sql);
    if (!strstr(err.msg, want)) {
        fprintf(stderr, "  got  \"%s\"\n  want \"%s\"\n", err.msg, want);
        CHECK(0);
    }
}

static void test_bad_queries(void)
{
    const char *src = getenv("FLOE_SRC");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/semantic/models", src ? src : ".");
    fl_sem_model *m = NULL;
    fl_error err = {0};
    CHECK_OK(fl_sem_model_load_dir(dir, &m, &err), &err);
    if (!m)
        return;
    expect_compile_error(m, "nope", "", NULL, "unknown metric 'nope'");
    expect_compile_error(m, "net_revenue", "metric_time__fortnight", NULL,
                         "'metric_time__fortnight': unknown time grain 'fortnight'");
    expect_compile_error(m, "net_revenue", "metric_time__hour", NULL,
                         "dimension 'order_date' has granularity day");
    expect_compile_error(m, "net_revenue", "customer__regio", NULL, "unknown dimension 'regio'");
    expect_compile_error(m, "customer_total", "order__status", NULL, "would fan out");
    expect_compile_error(m, "customer_total", "order__status", NULL, "orders.yml");
    expect_compile_error(m, "net_revenue_mom_change", "customer__region", NULL,
                         "must group by metric_time");
    expect_compile_error(m, "net_revenue", "", "{{ Dimenshun('x') }} = 1", "unknown function");
    expect_compile_error(m, "net_revenue", "", "{{ Dimension('customer__nope') }} = 1",
                         "unknown dimension 'nope'");
    /* Trino's dialect: its interval literals and double; floe's engine runs only floe's */
    qbuf b;
    fl_sem_query *q = mkq(&b, "net_revenue_mom_change,return_rate", "metric_time__month", NULL);
    q->dialect = FL_SEM_DIALECT_TRINO;
    char *sql = NULL;
    CHECK_OK(fl_sem_compile(m, q, NULL, 0, &sql, &err), &err);
    CHECK(sql && strstr(sql, "INTERVAL '1' MONTH") && strstr(sql, "AS double)") &&
          !strstr(sql, "double precision") && !strstr(sql, "INTERVAL '1 month'"));
    free(sql);
    fl_sem_model_free(m);
}

/* a -> b -> d and a -> c -> d: two shortest paths to d's color */
static const char *DIAMOND =
    "semantic_models:\n"
    "  - name: a\n    model: ref('a')\n    defaults: {agg_time_dimension: t}\n"
    "    entities: [{name: ida, type: primary}, {name: p, type: foreign}, {name: q, type: "
    "foreign}]\n"
    "    dimensions: [{name: t, type: time, type_params: {time_granularity: day}}]\n"
    "    measures: [{name: n, agg: count, expr: ida}]\n"
    "  - name: b\n    model: ref('b')\n"
    "    entities: [{name: p, type: primary}, {name: r, type: foreign}]\n"
    "  - name: c\n    model: ref('c')\n"
    "    entities: [{name: q, type: primary}, {name: r, type: foreign}]\n"
    "  - name: d\n    model: ref('d')\n"
    "    entities: [{name: r, type: primary}]\n"
    "    dimensions: [{name: color, type: categorical}]\n"
    "  - name: lonely\n    model: ref('lonely')\n"
    "    entities: [{name: z, type: primary}]\n"
    "    dimensions: [{name: shade, type: categorical}]\n"
    "metrics:\n  - {name: n_rows, type: simple, type_params: {measure: n}}\n";

static void test_join_paths(void)
{
    fl_sem_file f = {"d.yml", DIAMOND, strlen(DIAMOND)};
    fl_sem_model *m = NULL;
    fl_error err = {0};
    CHECK_OK(fl_sem_model_load_files(&f, 1, &m, &err), &err);
    if (!m)
        return;
    expect_compile_error(m, "n_rows", "r__color", NULL, "ambiguous");
    expect_compile_error(m, "n_rows", "z__shade", NULL, "no join path from semantic model 'a'");
    qbuf b;
    char *sql = NULL;
    CHECK_OK(fl_sem_compile(m, mkq(&b, "n_rows", "p__r__color", NULL), NULL, 0, &sql, &err), &err);
    /* the explicit path goes through b, not c */
    CHECK(sql && strstr(sql, "FROM b)") && !strstr(sql, "FROM c)") && strstr(sql, "FROM d)"));
    free(sql);
    fl_sem_model_free(m);
}

static void test_receipt_replay(void)
{
    world w;
    if (!open_world(&w)) {
        close_world(&w);
        return;
    }
    qbuf b;
    char before[4096], after[4096], replayed[4096];
    fl_error err = {0};
    fl_sem_receipt *r = NULL;
    fl_sem_query *q = mkq(&b, "net_revenue,customer_total", "customer__region", NULL);
    CHECK_OK(sem_rows(&w, q, before, sizeof before, &r, &err), &err);
    CHECK_EQ_STR(before, "APAC|80.00|1\nEU|490.00|2\nUS|153.00|1\n");
    if (!r) {
        close_world(&w);
        return;
    }
    CHECK_EQ_INT(fl_sem_receipt_npins(r), 2);
    for (uint32_t i = 0; i < fl_sem_receipt_npins(r);
         i++) { /* freshness: "2026-12-03 05:56:35.667+00" */
        const char *at = fl_sem_receipt_pin(r, i)->committed_at;
        CHECK(at && strlen(at) >= 19 && at[4] == '-' && at[10] == ' ');
    }
    CHECK_EQ_STR(fl_sem_receipt_version(r), fl_sem_model_version(w.m));
    CHECK(strstr(fl_sem_receipt_replay_sql(r), "FOR VERSION AS OF") != NULL);
    char *json = NULL;
    CHECK_OK(fl_sem_receipt_to_json(r, &json, &err), &err);
    fl_sem_receipt *back = NULL;
    CHECK_OK(fl_sem_receipt_from_json(json, &back, &err), &err);
    free(json);
    /* new data lands */
    char out[256];
    CHECK_OK(ft_run(w.s, "INSERT INTO orders VALUES (8,4,DATE '2024-04-02','completed',500.00,0,0)",
                    "\n", out, sizeof out, &err),
             &err);
    CHECK_OK(ft_run(w.s, "INSERT INTO customers VALUES (5,'US','US',DATE '2024-04-01')", "\n", out,
                    sizeof out, &err),
             &err);
    CHECK_OK(sem_rows(&w, q, after, sizeof after, NULL, &err), &err);
    CHECK_EQ_STR(after, "APAC|580.00|1\nEU|490.00|2\nUS|153.00|2\n");
    /* the same query pinned by hand to the receipt's snapshots: the old numbers */
    fl_sem_pin pins[2] = {*fl_sem_receipt_pin(r, 0), *fl_sem_receipt_pin(r, 1)};
    q->pins = pins;
    q->npins = 2;
    CHECK_OK(sem_rows(&w, q, after, sizeof after, NULL, &err), &err);
    CHECK_EQ_STR(after, before);
    q->npins = 0;
    q->as_of = "2024-01-01'; DROP TABLE orders; --";
    CHECK(sem_rows(&w, q, after, sizeof after, NULL, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "not a timestamp") != NULL);
    q->as_of = NULL;
    fl_sql_result *res = NULL;
    fl_sem_receipt *again = NULL;
    CHECK_OK(fl_sem_replay(w.s, w.m, back ? back : r, &res, &again, &err), &err);
    size_t len = 0;
    replayed[0] = 0;
    for (;;) {
        const fl_batch *bt;
        bool eof;
        if (!res || fl_sql_result_next(res, &bt, &eof, &err) != FL_OK || eof)
            break;
        for (uint32_t i = 0; i < fl_batch_live_rows(bt); i++)
            ft_render_row(bt, i, "\n", replayed, sizeof replayed, &len);
    }
    fl_sql_result_close(res);
    CHECK_EQ_STR(replayed, before);
    if (again) {
        CHECK_EQ_INT(fl_sem_receipt_npins(again), 2);
        for (uint32_t i = 0; i < 2; i++)
            CHECK_EQ_INT(fl_sem_receipt_pin(again, i)->snapshot_id,
                         fl_sem_receipt_pin(r, i)->snapshot_id);
    }
    fl_sem_receipt_free(again);
    fl_sem_receipt_free(back);
    fl_sem_receipt_free(r);
    close_world(&w);
}

/* dbt's latest spec: the semantic model on a models: entry, columns carrying
 * entities and dimensions, simple metrics inside the model */
static const char *LATEST =
    "models:\n"
    "  - name: orders\n"
    "    semantic_model: {enabled: true}\n"
    "    agg_time_dimension: order_date\n"
    "    columns:\n"
    "      - {name: order_id, entity: {type: primary, name: order}}\n"
    "      - {name: customer_id, entity: {type: foreign, name: customer}}\n"
    "      - {name: order_date, granularity: day, dimension: {type: time}}\n"
    "      - {name: status, dimension: {type: categorical}}\n"
    "    metrics:\n"
    "      - {name: gross_amount, type: simple, agg: sum, expr: gross_amount}\n"
    "      - {name: discount_applied, type: simple, agg: sum, expr: discount_applied}\n"
    "      - {name: return_amount, type: simple, agg: sum, expr: return_amount}\n"
    "      - {name: completed, type: simple, agg: count, expr: order_id,\n"
    "         filter: \"{{ Dimension('order__status') }} = 'completed'\"}\n"
    "  - name: customers\n"
    "    semantic_model: true\n"
    "    columns:\n"
    "      - {name: customer_id, entity: {type: primary, name: customer}}\n"
    "      - {name: region, dimension: categorical}\n"
    "  - name: not_semantic\n"
    "    columns: [{name: x}]\n"
    "metrics:\n"
    "  - name: net_revenue\n"
    "    type: derived\n"
    "    expr: gross_amount - discount_applied - return_amount\n"
    "    input_metrics: [{name: gross_amount}, {name: discount_applied}, {name: return_amount}]\n";

static void test_latest_spec(void)
{
    world w;
    if (!open_world(&w)) {
        close_world(&w);
        return;
    }
    fl_sem_file f = {"latest.yml", LATEST, strlen(LATEST)};
    fl_sem_model *latest = NULL;
    fl_error err = {0};
    CHECK_OK(fl_sem_model_load_files(&f, 1, &latest, &err), &err);
    if (latest) {
        fl_sem_model *older = w.m;
        qbuf b;
        char a[4096], o[4096];
        fl_sem_query *q = mkq(&b, "net_revenue", "metric_time__month,customer__region", NULL);
        CHECK_OK(sem_rows(&w, q, o, sizeof o, NULL, &err), &err);
        w.m = latest;
        CHECK_OK(sem_rows(&w, q, a, sizeof a, NULL, &err), &err);
        CHECK_EQ_STR(a, o);
        CHECK(a[0] != 0);
        CHECK_OK(sem_rows(&w, mkq(&b, "completed", "", NULL), a, sizeof a, NULL, &err), &err);
        CHECK_EQ_STR(a, "5\n");
        w.m = older;
        fl_sem_model_free(latest);
    }
    close_world(&w);
}

static void test_bad_receipts(void)
{
    fl_sem_receipt *r = NULL;
    fl_error err = {0};
    CHECK(fl_sem_receipt_from_json("not json", &r, &err) == FL_ECORRUPT);
    CHECK(strstr(err.msg, "receipt: line 1") != NULL);
    CHECK(fl_sem_receipt_from_json("{\"floe_receipt\": 1}", &r, &err) == FL_ECORRUPT);
    CHECK(strstr(err.msg, "model_version") != NULL);
    CHECK(r == NULL);
}

int main(void)
{
    TEST_RUN(test_every_metric_type);
    TEST_RUN(test_bad_queries);
    TEST_RUN(test_join_paths);
    TEST_RUN(test_receipt_replay);
    TEST_RUN(test_latest_spec);
    TEST_RUN(test_bad_receipts);
    return TEST_EXIT();
}
