/*
 * test_semantic_model.c - the YAML model loader: errors name file, line and
 * member; both metric specs load; the version is a content hash of the
 * sorted files; descriptions, ai_context and meta are kept.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/semantic.h"
#include "floe_test.h"

static const char *ORDERS = "semantic_models:\n"
                            "  - name: orders\n"
                            "    model: ref('orders')\n"
                            "    defaults: {agg_time_dimension: order_date}\n"
                            "    entities:\n"
                            "      - {name: order, type: primary, expr: order_id}\n"
                            "    dimensions:\n"
                            "      - name: order_date\n"
                            "        type: time\n"
                            "        type_params: {time_granularity: day}\n"
                            "    measures:\n"
                            "      - {name: gross_amount, agg: sum}\n";

/* Loads orders.yml plus one more file; returns the status, err filled. */
static fl_status load2(const char *name, const char *text, fl_sem_model **m, fl_error *err)
{
    fl_sem_file f[2] = {{"models/orders.yml", ORDERS, strlen(ORDERS)}, {name, text, strlen(text)}};
    return fl_sem_model_load_files(f, text ? 2 : 1, m, err);
}

static void expect_error(const char *text, const char *want)
{
    fl_sem_model *m = NULL;
    fl_error err = {0};
    fl_status rc = load2("models/m.yml", text, &m, &err);
    CHECK(rc != FL_OK);
    CHECK(m == NULL);
    if (!strstr(err.msg, want)) {
        fprintf(stderr, "  got  \"%s\"\n  want \"%s\"\n", err.msg, want);
        CHECK(0);
    }
}

static void test_errors_name_file_line_member(void)
{
    expect_error("metrics:\n"
                 "  - name: net_revenue\n"
                 "    type: simple\n"
                 "    type_params:\n"
                 "      measure: gross\n",
                 "models/m.yml:5: metric 'net_revenue': unknown measure 'gross'");
    expect_error("metrics:\n  - name: a\n    type: simple\n    type_params: {measure: [x\n",
                 "models/m.yml:");
    expect_error("metrics:\n  - name: r\n    type: ratio\n    numerator: nope\n"
                 "    denominator: nope2\n",
                 "models/m.yml:4: metric 'r': unknown metric 'nope'");
    expect_error("metrics:\n  - name: x\n    type: weird\n",
                 "models/m.yml:3: metric 'x': unknown type 'weird'");
    expect_error("semantic_models:\n  - name: t\n    model: ref('t')\n    measures:\n"
                 "      - {name: m1, agg: total}\n",
                 "models/m.yml:5: semantic model 't': measure 'm1': unknown agg 'total'");
    expect_error("semantic_models:\n  - name: t\n    model: ref('t')\n    measures:\n"
                 "      - {name: m1, agg: sum}\n",
                 "measure 'm1': no agg_time_dimension");
    expect_error("metrics:\n  - {name: a, type: derived, expr: b, input_metrics: [b]}\n"
                 "  - {name: b, type: derived, expr: a, input_metrics: [a]}\n",
                 "depends on itself");
    expect_error("metrics:\n  - {name: g, type: simple, type_params: {measure: gross_amount}}\n"
                 "  - name: d\n    type: derived\n    expr: g - p\n    input_metrics:\n"
                 "      - {name: g}\n      - {name: g, offset_window: 1 fortnight, alias: p}\n",
                 "models/m.yml:8: metric 'd': bad offset_window '1 fortnight'");
    expect_error("metrics:\n  - {name: g, type: simple, type_params: {measure: gross_amount}}\n"
                 "  - {name: g, type: simple, type_params: {measure: gross_amount}}\n",
                 "models/m.yml:3: metric 'g' is defined twice (first at models/m.yml:2)");
    expect_error("semantic_models:\n  - name: Bad__Name\n    model: ref('x')\n",
                 "models/m.yml:2: semantic model: bad name 'Bad__Name'");
    expect_error("semantic_models:\n  - name: t\n", "semantic model 't': needs model:");
    expect_error("- just\n- a list\n", "models/m.yml:1: a model file is a mapping");
}

static void test_both_specs_and_about(void)
{
    const char *metrics = "metrics:\n"
                          "  - name: gross\n"
                          "    description: All sales.\n"
                          "    meta: {ai_context: 'Use for sales', owner: finance}\n"
                          "    type: simple\n"
                          "    type_params: {measure: gross_amount}\n"
                          "  - name: mom\n"
                          "    type: derived\n"
                          "    expr: gross - prev\n"
                          "    input_metrics:\n"
                          "      - {name: gross}\n"
                          "      - {name: gross, offset_window: 1 month, alias: prev}\n"
                          "  - name: run\n"
                          "    type: cumulative\n"
                          "    input_metric: gross\n"
                          "    window: 7 days\n";
    fl_sem_model *m = NULL;
    fl_error err = {0};
    CHECK_OK(load2("models/metrics.yml", metrics, &m, &err), &err);
    if (!m)
        return;
    bool saw_gross = false, saw_dim = false;
    for (uint32_t i = 0; i < fl_sem_model_nmembers(m); i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(m, i);
        if (mi->kind == FL_SEM_METRIC && !strcmp(mi->name, "gross")) {
            saw_gross = true;
            CHECK_EQ_STR(mi->description, "All sales.");
            CHECK_EQ_STR(mi->ai_context, "Use for sales");
            CHECK(strstr(mi->meta, "\"owner\": \"finance\"") != NULL);
            CHECK_EQ_STR(mi->file, "models/metrics.yml");
            CHECK_EQ_INT(mi->line, 2);
        }
        if (mi->kind == FL_SEM_DIMENSION && !strcmp(mi->name, "order__order_date"))
            saw_dim = true;
    }
    CHECK(saw_gross);
    CHECK(saw_dim);
    fl_sem_model_free(m);
}

static void test_version_is_content_hash(void)
{
    const char *extra =
        "metrics:\n  - {name: g, type: simple, type_params: {measure: gross_amount}}\n";
    fl_sem_file ab[2] = {{"a/orders.yml", ORDERS, strlen(ORDERS)},
                         {"a/z.yml", extra, strlen(extra)}};
    fl_sem_file ba[2] = {{"elsewhere/z.yml", extra, strlen(extra)},
                         {"elsewhere/orders.yml", ORDERS, strlen(ORDERS)}};
    fl_sem_model *m1 = NULL, *m2 = NULL, *m3 = NULL;
    fl_error err = {0};
    CHECK_OK(fl_sem_model_load_files(ab, 2, &m1, &err), &err);
    CHECK_OK(fl_sem_model_load_files(ba, 2, &m2, &err), &err);
    CHECK_OK(fl_sem_model_load_files(ab, 1, &m3, &err), &err);
    if (m1 && m2 && m3) {
        CHECK_EQ_STR(fl_sem_model_version(m1), fl_sem_model_version(m2));
        CHECK(strcmp(fl_sem_model_version(m1), fl_sem_model_version(m3)) != 0);
        CHECK(!strncmp(fl_sem_model_version(m1), "sha256:", 7));
        CHECK_EQ_INT(strlen(fl_sem_model_version(m1)), 7 + 64);
    }
    fl_sem_model_free(m1);
    fl_sem_model_free(m2);
    fl_sem_model_free(m3);
}

static void test_repo_models_load(void)
{
    const char *src = getenv("FLOE_SRC");
    if (!src)
        return;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/semantic/models", src);
    fl_sem_model *m = NULL;
    fl_error err = {0};
    CHECK_OK(fl_sem_model_load_dir(dir, &m, &err), &err);
    CHECK(m && fl_sem_model_nmembers(m) > 20);
    fl_sem_model_free(m);
    CHECK(fl_sem_model_load_dir("/nonexistent/models", &m, &err) == FL_ENOTFOUND);
    CHECK(strstr(err.msg, "/nonexistent/models") != NULL);
}

/* the relation forms: ref('x'), {{ ref('pkg', 'x') }}, node_relation, sql: */
static void test_relations(void)
{
    const char *text =
        "semantic_models:\n"
        "  - name: a\n    model: \"{{ ref('pkg', 'tab_a') }}\"\n"
        "    defaults: {agg_time_dimension: t}\n"
        "    entities: [{name: ida, type: primary}, {name: idb, type: foreign}, {name: idc, type: "
        "foreign}]\n"
        "    dimensions: [{name: t, type: time}]\n"
        "    measures: [{name: n, agg: count, expr: ida}]\n"
        "  - name: b\n    node_relation: {alias: tab_b, schema_name: sales}\n"
        "    entities: [{name: idb, type: primary}]\n"
        "    dimensions: [{name: x, type: categorical}]\n"
        "  - name: c\n    sql: SELECT 1 AS idc, 'y' AS y\n"
        "    entities: [{name: idc, type: unique}]\n"
        "    dimensions: [{name: y, type: categorical}]\n"
        "metrics:\n  - {name: rows, type: simple, type_params: {measure: n}}\n";
    fl_sem_file f = {"r.yml", text, strlen(text)};
    fl_sem_model *m = NULL;
    fl_error err = {0};
    CHECK_OK(fl_sem_model_load_files(&f, 1, &m, &err), &err);
    if (!m)
        return;
    const char *metric = "rows", *gbs[2] = {"idb__x", "idc__y"};
    fl_sem_query q = {
        .metrics = &metric, .nmetrics = 1, .group_by = gbs, .ngroup_by = 2, .limit = -1};
    char *sql = NULL;
    CHECK_OK(fl_sem_compile(m, &q, NULL, 0, &sql, &err), &err);
    CHECK(sql && strstr(sql, "FROM tab_a)") && strstr(sql, "FROM sales.tab_b)") &&
          strstr(sql, "FROM (SELECT 1 AS idc, 'y' AS y) AS src)"));
    free(sql);
    fl_sem_pin pin = {"default.tab_a", 42, NULL};
    CHECK_OK(fl_sem_compile(m, &q, &pin, 1, &sql, &err), &err);
    CHECK(sql && strstr(sql, "FROM tab_a FOR VERSION AS OF 42)"));
    free(sql);
    fl_sem_model_free(m);
}

static void test_saved_queries(void)
{
    const char *text =
        "metrics:\n  - {name: g, type: simple, type_params: {measure: gross_amount}}\n"
        "saved_queries:\n"
        "  - name: by_week\n"
        "    description: weekly gross\n"
        "    query_params:\n"
        "      metrics: [g]\n"
        "      group_by: [\"TimeDimension('metric_time', 'week')\", "
        "\"Dimension('order__order_date').grain('month')\",\n"
        "                 \"Entity('order')\", order__order_date__year]\n"
        "      where: [\"{{ Dimension('order__order_date') }} >= '2024-01-01'\"]\n"
        "      order_by: [\"Metric('g').descending(True)\", \"-metric_time__week\"]\n"
        "      limit: 5\n";
    fl_sem_model *m = NULL;
    fl_error err = {0};
    CHECK_OK(load2("models/saved.yml", text, &m, &err), &err);
    if (!m)
        return;
    fl_sem_query q;
    CHECK_OK(fl_sem_saved_query(m, "by_week", &q, &err), &err);
    CHECK_EQ_INT(q.nmetrics, 1);
    CHECK_EQ_INT(q.ngroup_by, 4);
    if (q.ngroup_by == 4) {
        CHECK_EQ_STR(q.group_by[0], "metric_time__week");
        CHECK_EQ_STR(q.group_by[1], "order__order_date__month");
        CHECK_EQ_STR(q.group_by[2], "order");
        CHECK_EQ_STR(q.group_by[3], "order__order_date__year");
    }
    CHECK_EQ_INT(q.norder_by, 2);
    if (q.norder_by == 2) {
        CHECK_EQ_STR(q.order_by[0], "-g");
        CHECK_EQ_STR(q.order_by[1], "-metric_time__week");
    }
    CHECK_EQ_INT(q.limit, 5);
    char *sql = NULL;
    CHECK_OK(fl_sem_compile(m, &q, NULL, 0, &sql, &err), &err);
    CHECK(sql && strstr(sql, "LIMIT 5"));
    free(sql);
    CHECK(fl_sem_saved_query(m, "nope", &q, &err) == FL_ENOTFOUND);
    fl_sem_model_free(m);
    expect_error("saved_queries:\n  - name: s\n    query_params: {metrics: [nope]}\n",
                 "models/m.yml:2: saved query 's': unknown metric 'nope'");
}

int main(void)
{
    TEST_RUN(test_saved_queries);
    TEST_RUN(test_relations);
    TEST_RUN(test_errors_name_file_line_member);
    TEST_RUN(test_both_specs_and_about);
    TEST_RUN(test_version_is_content_hash);
    TEST_RUN(test_repo_models_load);
    return TEST_EXIT();
}
