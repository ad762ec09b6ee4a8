/*
 * test_mcp_metrics.c - the MCP metric tools in process, over the semantic
 * models of tests/semantic/models and a small warehouse (7 orders of 4
 * customers in 3 regions): tools listed only with a model; list_metrics
 * search and size budget; dimensions and entities reachable for all the
 * metrics; dimension values with search and truncated; query_metrics equal
 * to a hand-written SQL query, with its receipt and the limit in the SQL;
 * compile_sql; "revenue" answered with candidates; an unknown metric or
 * dimension a tool error naming it; two principals with different row
 * filters get different numbers, one without grants none; a filter value
 * that does not exist (as the caller sees the rows) answers with the
 * closest existing values.
 */
#include <jansson.h>
#include <stdlib.h>

#include "mcp/mcp_world.h"

static fl_mcp_server *server(world *w, bool with_model)
{
    fl_mcp_options o;
    memset(&o, 0, sizeof o);
    o.catalog = w->cat;
    o.io = w->io;
    o.auth = w->auth;
    o.resolve_principal = resolve;
    o.resolve_ctx = w;
    o.threads = 1;
    o.model = with_model ? w->model : NULL;
    fl_mcp_server *m = NULL;
    fl_error err = {0};
    CHECK_OK(fl_mcp_server_new(&o, &m, &err), &err);
    return m;
}

static json_t *send(fl_mcp_server *m, const char *text)
{
    char *resp = NULL;
    fl_error err = {0};
    fl_mcp_exchange x = {0};
    CHECK_OK(fl_mcp_handle(m, &x, text, strlen(text), &resp, &err), &err);
    json_t *j = resp ? json_loads(resp, 0, NULL) : NULL;
    free(resp);
    return j;
}

static json_t *call(fl_mcp_server *m, const char *tool, const char *args_json)
{
    char buf[8192];
    snprintf(buf, sizeof buf,
             "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
             "\"arguments\":%s}}",
             tool, args_json);
    json_t *r = send(m, buf);
    json_t *res = json_incref(json_object_get(r, "result"));
    if (!res)
        fprintf(stderr, "no result for %s: %s\n", tool, args_json);
    json_decref(r);
    return res;
}

static bool is_error(json_t *res)
{
    return !res || json_is_true(json_object_get(res, "isError"));
}

static const char *text_of(json_t *res)
{
    const char *t = json_string_value(
        json_object_get(json_array_get(json_object_get(res, "content"), 0), "text"));
    return t ? t : "";
}

static json_t *sc(json_t *res)
{
    return json_object_get(res, "structuredContent");
}

/* The names of the objects of arr joined by ','. */
static void names(json_t *arr, char *out, size_t cap)
{
    size_t i, n = 0;
    json_t *e;
    out[0] = '\0';
    json_array_foreach(arr, i, e)
    {
        n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s", i ? "," : "",
                              json_string_value(json_object_get(e, "name")));
    }
}

static bool has_name(json_t *arr, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(
        arr, i, e) if (!strcmp(json_string_value(json_object_get(e, "name")), name)) return true;
    return false;
}

static void test_listed_with_model_only(void)
{
    world w;
    world_open(&w, false);
    fl_mcp_server *m = server(&w, false);
    json_t *r = send(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    json_t *tools = json_object_get(json_object_get(r, "result"), "tools");
    CHECK_EQ_INT(json_array_size(tools), 5);
    CHECK(!has_name(tools, "query_metrics"));
    json_decref(r);
    r = send(m, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
                "\"list_metrics\",\"arguments\":{}}}");
    CHECK_EQ_INT(json_integer_value(json_object_get(json_object_get(r, "error"), "code")), -32602);
    json_decref(r);
    fl_mcp_server_free(m);

    m = server(&w, true);
    r = send(m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    tools = json_object_get(json_object_get(r, "result"), "tools");
    CHECK_EQ_INT(json_array_size(tools), 11);
    const char *want[] = {"list_metrics",         "get_dimensions", "get_entities",
                          "get_dimension_values", "query_metrics",  "compile_sql"};
    for (size_t i = 0; i < 6; i++)
        CHECK(has_name(tools, want[i]));
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t)
    {
        CHECK(json_is_object(json_object_get(t, "outputSchema")));
        CHECK(json_is_true(json_object_get(json_object_get(t, "annotations"), "readOnlyHint")));
    }
    json_decref(r);
    /* the metrics as a resource */
    r = send(m, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/list\"}");
    CHECK(has_name(json_object_get(json_object_get(r, "result"), "resources"), "metrics"));
    json_decref(r);
    r = send(m, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":{"
                "\"uri\":\"floe://metrics\"}}");
    const char *text = json_string_value(json_object_get(
        json_array_get(json_object_get(json_object_get(r, "result"), "contents"), 0), "text"));
    CHECK(text && strstr(text, "\"net_revenue\"") && strstr(text, "monthly_net_revenue_by_region"));
    json_decref(r);
    fl_mcp_server_free(m);
    world_close(&w);
}

static void test_list_metrics(void)
{
    world w;
    world_open(&w, false);
    fl_mcp_server *m = server(&w, true);
    json_t *res = call(m, "list_metrics", "{}");
    CHECK(!is_error(res));
    json_t *list = json_object_get(sc(res), "metrics");
    CHECK(has_name(list, "net_revenue") && has_name(list, "gross_revenue"));
    CHECK(json_is_false(json_object_get(sc(res), "truncated")));
    CHECK(!strncmp(json_string_value(json_object_get(sc(res), "model_version")), "sha256:", 7));
    json_decref(res);
    /* search over ai_context: only net_revenue says "any question about revenue" */
    res = call(m, "list_metrics", "{\"search\":\"any question\"}");
    char got[4096];
    names(json_object_get(sc(res), "metrics"), got, sizeof got);
    CHECK_EQ_STR(got, "net_revenue");
    json_t *nr = json_array_get(json_object_get(sc(res), "metrics"), 0);
    CHECK(strstr(json_string_value(json_object_get(nr, "description")), "Certified") != NULL);
    CHECK(strstr(json_string_value(json_object_get(nr, "file")), "metrics.yml") != NULL);
    json_decref(res);
    /* search over names, spaces matching underscores; the size budget cuts */
    res = call(m, "list_metrics", "{\"search\":\"gross revenue\"}");
    names(json_object_get(sc(res), "metrics"), got, sizeof got);
    CHECK_EQ_STR(got, "gross_revenue,eu_gross_revenue");
    json_decref(res);
    res = call(m, "list_metrics", "{\"search\":\"revenue\",\"max_items\":2}");
    CHECK_EQ_INT(json_array_size(json_object_get(sc(res), "metrics")), 2);
    CHECK(json_is_true(json_object_get(sc(res), "truncated")));
    CHECK(json_integer_value(json_object_get(sc(res), "matched")) > 2);
    json_decref(res);
    res = call(m, "list_metrics", "{\"max_bytes\":300}");
    CHECK(json_is_true(json_object_get(sc(res), "truncated")));
    CHECK(json_array_size(json_object_get(sc(res), "metrics")) < 3);
    json_decref(res);
    fl_mcp_server_free(m);
    world_close(&w);
}

static void test_dimensions_entities(void)
{
    world w;
    world_open(&w, false);
    fl_mcp_server *m = server(&w, true);
    json_t *res = call(m, "get_dimensions", "{\"metrics\":[\"net_revenue\"]}");
    CHECK(!is_error(res));
    json_t *d = json_object_get(sc(res), "dimensions");
    CHECK(has_name(d, "metric_time") && has_name(d, "order__status"));
    CHECK(has_name(d, "customer__region") && has_name(d, "order__order_date"));
    CHECK(!has_name(d, "visit__channel") && !has_name(d, "account__balance_date"));
    json_decref(res);
    /* for both metrics: only what customer_total (customers) reaches too */
    res = call(m, "get_dimensions", "{\"metrics\":[\"net_revenue\",\"customer_total\"]}");
    d = json_object_get(sc(res), "dimensions");
    CHECK(has_name(d, "customer__region"));
    CHECK(!has_name(d, "order__status"));
    json_decref(res);
    res = call(m, "get_entities", "{\"metrics\":[\"net_revenue\"]}");
    CHECK(!is_error(res));
    json_t *e = json_object_get(sc(res), "entities");
    CHECK(has_name(e, "order") && has_name(e, "customer"));
    CHECK(!has_name(e, "visit") && !has_name(e, "account"));
    json_decref(res);
    res = call(m, "get_entities", "{\"metrics\":[\"no_such_metric\"]}");
    CHECK(is_error(res) && strstr(text_of(res), "no_such_metric"));
    json_decref(res);
    fl_mcp_server_free(m);
    world_close(&w);
}

static void test_dimension_values(void)
{
    world w;
    world_open(&w, false);
    fl_mcp_server *m = server(&w, true);
    json_t *res = call(m, "get_dimension_values", "{\"dimension\":\"customer__region\"}");
    CHECK(!is_error(res));
    char *t = json_dumps(json_object_get(sc(res), "values"), JSON_COMPACT);
    CHECK_EQ_STR(t, "[\"APAC\",\"EU\",\"US\"]");
    free(t);
    CHECK(json_is_false(json_object_get(sc(res), "truncated")));
    CHECK(json_array_size(json_object_get(json_object_get(sc(res), "receipt"), "tables")) >= 2);
    json_decref(res);
    res = call(m, "get_dimension_values",
               "{\"dimension\":\"order__status\",\"search\":\"PLAC\",\"metrics\":[\"order_total\"]"
               "}");
    t = json_dumps(json_object_get(sc(res), "values"), JSON_COMPACT);
    CHECK_EQ_STR(t, "[\"placed\"]");
    free(t);
    json_decref(res);
    res = call(m, "get_dimension_values", "{\"dimension\":\"order__status\",\"limit\":2}");
    CHECK_EQ_INT(json_array_size(json_object_get(sc(res), "values")), 2);
    CHECK(json_is_true(json_object_get(sc(res), "truncated")));
    json_decref(res);
    res = call(m, "get_dimension_values", "{\"dimension\":\"customer__shoe_size\"}");
    CHECK(is_error(res) && strstr(text_of(res), "shoe_size"));
    json_decref(res);
    fl_mcp_server_free(m);
    world_close(&w);
}

#define EU_BY_MONTH                                                                                \
    "{\"metrics\":[\"net_revenue\"],\"group_by\":[\"metric_time__month\"],\"where\":[\"{{ "        \
    "Dimension('customer__region') }} = 'EU'\",\"{{ TimeDimension('metric_time', 'day') }} >= "    \
    "'2024-01-01'\"],\"order_by\":[\"metric_time__month\"]}"
#define EU_BY_MONTH_SQL                                                                            \
    "SELECT CAST(date_trunc('month', o.order_date) AS date), sum(o.gross_amount - "                \
    "o.discount_applied - o.return_amount) FROM orders o JOIN customers c ON c.customer_id = "     \
    "o.customer_id WHERE c.region = 'EU' AND o.order_date >= DATE '2024-01-01'%s GROUP BY 1 "      \
    "ORDER BY 1"

/* The rows of a query_metrics answer as "a,b\n" lines. */
static void rows_text(json_t *res, char *out, size_t cap)
{
    size_t i, n = 0;
    json_t *row;
    out[0] = '\0';
    json_array_foreach(json_object_get(sc(res), "rows"), i, row)
    {
        size_t k;
        json_t *v;
        json_array_foreach(row, k, v)
        {
            char num[32];
            const char *s = json_string_value(v);
            if (!s)
                snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v)), s = num;
            n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s", k ? "," : "", s);
        }
        n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "\n");
    }
}

/* The same as hand-written SQL, run by the engine (unfiltered, as the owner). */
static void sql_text(world *w, const char *extra_where, char *out, size_t cap)
{
    fl_sql_session *s = ft_open_sqlite(w->dir, NULL, NULL);
    char sql[1024];
    snprintf(sql, sizeof sql, EU_BY_MONTH_SQL, extra_where);
    fl_error err = {0};
    size_t n = 0;
    out[0] = '\0';
    char buf[4096];
    CHECK_OK(ft_run(s, sql, "\n", buf, sizeof buf, &err), &err);
    n += (size_t)snprintf(out + n, cap - n, "%s", buf);
    fl_sql_session_close(s);
    for (char *p = out; *p; p++) /* ft_run separates columns by '|' */
        if (*p == '|')
            *p = ',';
}

static void test_query_metrics(void)
{
    world w;
    world_open(&w, false);
    fl_mcp_server *m = server(&w, true);
    json_t *res = call(m, "query_metrics", EU_BY_MONTH);
    CHECK(!is_error(res));
    char got[2048], want[2048];
    rows_text(res, got, sizeof got);
    CHECK_EQ_STR(got, "2024-01-01,240.00\n2024-02-01,250.00\n2024-03-01,0.00\n");
    sql_text(&w, "", want, sizeof want);
    CHECK_EQ_STR(got, want);
    json_t *rec = json_object_get(sc(res), "receipt");
    CHECK(!strncmp(json_string_value(json_object_get(rec, "model_version")), "sha256:", 7));
    CHECK(strstr(json_string_value(json_object_get(rec, "replay_sql")), "FOR VERSION AS OF"));
    json_t *tables = json_object_get(rec, "tables");
    CHECK_EQ_INT(json_array_size(tables), 2);
    CHECK(json_integer_value(json_object_get(json_array_get(tables, 0), "snapshot_id")) > 0);
    CHECK(json_is_false(json_object_get(sc(res), "truncated")));
    CHECK(strstr(json_string_value(json_object_get(sc(res), "result_uri")), "floe://results/"));
    json_decref(res);
    /* the limit is in the compiled SQL; the preview within the caller's budget */
    res = call(m, "query_metrics",
               "{\"metrics\":[\"net_revenue\"],\"group_by\":[\"metric_time__month\"],\"limit\":2,"
               "\"max_rows\":1}");
    CHECK(!is_error(res));
    CHECK(strstr(json_string_value(json_object_get(json_object_get(sc(res), "receipt"), "sql")),
                 "LIMIT 2") != NULL);
    CHECK_EQ_INT(json_integer_value(json_object_get(sc(res), "row_count")), 2);
    CHECK_EQ_INT(json_array_size(json_object_get(sc(res), "rows")), 1);
    CHECK(json_is_true(json_object_get(sc(res), "truncated")));
    json_decref(res);
    /* compile_sql: the same SQL, nothing runs */
    res = call(m, "compile_sql",
               "{\"metrics\":[\"net_revenue\"],\"group_by\":[\"customer__region\"]}");
    CHECK(!is_error(res));
    CHECK(strstr(json_string_value(json_object_get(sc(res), "sql")), "gross_amount") != NULL);
    CHECK_EQ_INT(json_array_size(json_object_get(json_object_get(sc(res), "receipt"), "tables")),
                 0);
    json_decref(res);
    res = call(m, "compile_sql", "{\"metrics\":[\"net_revenue\"],\"dialect\":\"trino\"}");
    CHECK(!is_error(res));
    json_decref(res);
    /* a saved query of the model, adjusted by where and limit */
    res = call(m, "list_metrics", "{}");
    CHECK(has_name(json_object_get(sc(res), "saved_queries"), "monthly_net_revenue_by_region"));
    json_decref(res);
    res = call(m, "query_metrics",
               "{\"saved_query\":\"monthly_net_revenue_by_region\",\"where\":[\"{{ "
               "Dimension('customer__region') }} = 'EU'\"],\"limit\":2}");
    CHECK(!is_error(res));
    char *mt = json_dumps(json_object_get(sc(res), "metrics"), JSON_COMPACT);
    CHECK_EQ_STR(mt, "[\"net_revenue\",\"return_rate\"]");
    free(mt);
    CHECK_EQ_INT(json_integer_value(json_object_get(sc(res), "row_count")), 2);
    CHECK(strstr(json_string_value(json_object_get(json_object_get(sc(res), "receipt"), "sql")),
                 "'EU'") != NULL);
    CHECK(has_name(json_object_get(sc(res), "columns"), "customer__region"));
    json_decref(res);
    res = call(m, "compile_sql",
               "{\"saved_query\":\"monthly_net_revenue_by_region\",\"metrics\":[\"net_revenue\"]}");
    CHECK(is_error(res) && strstr(text_of(res), "saved_query"));
    json_decref(res);
    res = call(m, "compile_sql", "{\"saved_query\":\"no_such_saved\"}");
    CHECK(is_error(res) && strstr(text_of(res), "no_such_saved"));
    json_decref(res);
    /* errors name the member */
    res = call(m, "query_metrics",
               "{\"metrics\":[\"net_revenue\"],\"group_by\":[\"order__colour\"]}");
    CHECK(is_error(res) && strstr(text_of(res), "colour"));
    json_decref(res);
    res = call(m, "query_metrics", "{\"metrics\":[\"bogus_metric\"]}");
    CHECK(is_error(res) && strstr(text_of(res), "unknown metric 'bogus_metric'"));
    json_decref(res);
    res = call(m, "query_metrics", "{\"metrics\":[]}");
    CHECK(is_error(res));
    json_decref(res);
    fl_mcp_server_free(m);
    world_close(&w);
}

static void test_ambiguity(void)
{
    world w;
    world_open(&w, false);
    fl_mcp_server *m = server(&w, true);
    const char *tools[] = {"query_metrics", "compile_sql", "get_dimensions"};
    for (size_t t = 0; t < 3; t++) {
        json_t *res = call(m, tools[t], "{\"metrics\":[\"revenue\"]}");
        CHECK(!is_error(res));
        CHECK(json_is_true(json_object_get(sc(res), "ambiguous")));
        json_t *c0 = json_array_get(json_object_get(sc(res), "candidates"), 0);
        CHECK_EQ_STR(json_string_value(json_object_get(c0, "asked")), "revenue");
        json_t *matches = json_object_get(c0, "matches");
        CHECK(has_name(matches, "gross_revenue") && has_name(matches, "net_revenue"));
        CHECK(!has_name(matches, "order_total"));
        CHECK(!json_object_get(sc(res), "rows") && !json_object_get(sc(res), "sql"));
        json_decref(res);
    }
    fl_mcp_server_free(m);
    world_close(&w);
}

static void as(world *w, const char *name)
{
    fl_error err = {0};
    CHECK_OK(fl_auth_principal_get(w->auth, name, &w->as, &err), &err);
}

/* matches of value_candidates[i] joined by ',' */
static void value_matches(json_t *res, size_t i, char *out, size_t cap)
{
    json_t *vc = json_array_get(json_object_get(sc(res), "value_candidates"), i);
    char *t = json_dumps(json_object_get(vc, "matches"), JSON_COMPACT);
    snprintf(out, cap, "%s:%s", json_string_value(json_object_get(vc, "asked")), t ? t : "");
    free(t);
}

static void test_filter_values(void)
{
    world w;
    world_open(&w, true);
    as(&w, "analyst");
    fl_mcp_server *m = server(&w, true);
    char got[512];
    json_t *res = call(m, "query_metrics",
                       "{\"metrics\":[\"net_revenue\"],\"where\":[\"{{ Dimension('customer__region') }} "
                       "= 'eu'\"]}");
    CHECK(!is_error(res) && json_is_true(json_object_get(sc(res), "ambiguous")));
    CHECK(!json_object_get(sc(res), "rows"));
    value_matches(res, 0, got, sizeof got);
    CHECK_EQ_STR(got, "eu:[\"EU\"]");
    CHECK(strstr(json_string_value(json_object_get(sc(res), "message")), "customer__region") != NULL);
    json_decref(res);
    /* IN lists, values of a dimension of the metric's own model, a close misspelling */
    res = call(m, "query_metrics",
               "{\"metrics\":[\"gross_revenue\"],\"group_by\":[\"order__status\"],\"where\":[\"{{ "
               "Dimension('customer__region') }} IN ('EU', 'APAK')\", \"{{ Dimension('order__status') }}"
               " = 'complete'\"]}");
    CHECK(json_is_true(json_object_get(sc(res), "ambiguous")));
    CHECK_EQ_INT(json_array_size(json_object_get(sc(res), "value_candidates")), 2);
    value_matches(res, 0, got, sizeof got);
    CHECK_EQ_STR(got, "APAK:[\"APAC\"]");
    value_matches(res, 1, got, sizeof got);
    CHECK_EQ_STR(got, "complete:[\"completed\"]");
    json_decref(res);
    /* existing values and filters that are not equalities run as asked */
    res = call(m, "query_metrics",
               "{\"metrics\":[\"net_revenue\"],\"where\":[\"{{ Dimension('customer__region') }} "
               "IN ('EU', 'US')\", \"{{ Dimension('customer__region') }} <> 'nowhere'\"]}");
    CHECK(!is_error(res) && json_is_false(json_object_get(sc(res), "ambiguous")));
    CHECK(json_object_get(sc(res), "rows") != NULL);
    json_decref(res);
    /* the values are those the caller sees: customer 1's orders are all in EU */
    as(&w, "c1_only");
    res = call(m, "query_metrics",
               "{\"metrics\":[\"net_revenue\"],\"where\":[\"{{ Dimension('customer__region') }} "
               "= 'US'\"]}");
    CHECK(json_is_true(json_object_get(sc(res), "ambiguous")));
    value_matches(res, 0, got, sizeof got);
    CHECK_EQ_STR(got, "US:[]"); /* nothing close: no guess */
    CHECK_EQ_INT(json_integer_value(json_object_get(
                     json_array_get(json_object_get(sc(res), "value_candidates"), 0), "values")),
                 1);
    json_decref(res);
    /* a lookup over the scan budget is not made: the query's budget refuses it */
    fl_mcp_options o;
    memset(&o, 0, sizeof o);
    o.catalog = w.cat, o.io = w.io, o.auth = w.auth, o.resolve_principal = resolve;
    o.resolve_ctx = &w, o.threads = 1, o.model = w.model, o.max_scan_bytes = 1;
    fl_mcp_server *tight = NULL;
    fl_error err = {0};
    CHECK_OK(fl_mcp_server_new(&o, &tight, &err), &err);
    res = call(tight, "query_metrics",
               "{\"metrics\":[\"net_revenue\"],\"where\":[\"{{ Dimension('customer__region') }} "
               "= 'US'\"]}");
    CHECK(is_error(res) && strstr(text_of(res), "over budget"));
    json_decref(res);
    fl_mcp_server_free(tight);
    as(&w, "nobody"); /* no READ: the engine's refusal, not candidates */
    res = call(m, "query_metrics",
               "{\"metrics\":[\"net_revenue\"],\"where\":[\"{{ Dimension('customer__region') }} "
               "= 'US'\"]}");
    CHECK(is_error(res) && strstr(text_of(res), "42501"));
    json_decref(res);
    fl_mcp_server_free(m);
    world_close(&w);
}

static void test_row_filters(void)
{
    world w;
    world_open(&w, true);
    fl_mcp_server *m = server(&w, true);
    char got[2048], want[2048];
    as(&w, "analyst");
    json_t *res = call(m, "query_metrics", EU_BY_MONTH);
    CHECK(!is_error(res));
    rows_text(res, got, sizeof got);
    sql_text(&w, "", want, sizeof want);
    CHECK_EQ_STR(got, want);
    CHECK_EQ_STR(
        json_string_value(json_object_get(json_object_get(sc(res), "receipt"), "principal")),
        "analyst");
    json_decref(res);
    as(&w, "c1_only"); /* row filter customer_id = 1 on orders */
    res = call(m, "query_metrics", EU_BY_MONTH);
    if (is_error(res))
        fprintf(stderr, "c1_only: %s\n", text_of(res));
    CHECK(!is_error(res));
    rows_text(res, got, sizeof got);
    sql_text(&w, " AND o.customer_id = 1", want, sizeof want);
    CHECK_EQ_STR(got, want);
    CHECK_EQ_STR(got, "2024-01-01,90.00\n2024-02-01,250.00\n");
    json_decref(res);
    res = call(m, "get_dimension_values", "{\"dimension\":\"order__status\"}");
    char *t = json_dumps(json_object_get(sc(res), "values"), JSON_COMPACT);
    CHECK_EQ_STR(t, "[\"completed\"]");
    free(t);
    json_decref(res);
    as(&w, "nobody");
    res = call(m, "query_metrics", EU_BY_MONTH);
    CHECK(is_error(res) && strstr(text_of(res), "42501"));
    json_decref(res);
    res = call(m, "list_metrics", "{}"); /* the model itself is not data */
    CHECK(!is_error(res));
    json_decref(res);
    fl_mcp_server_free(m);
    world_close(&w);
}

/* 2026-07-28: an ambiguous name is elicited from a client that can answer,
 * and the retry's choice is used only when it is one of the candidates. */
#define MODERN_CALL(caps, extra)                                                                   \
    "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"query_"      \
    "metrics\",\"arguments\":{\"metrics\":[\"revenue\"]}," extra "\"_meta\":{\"io."              \
    "modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/"            \
    "clientCapabilities\":" caps "}}}"

static void test_elicitation(void)
{
    world w;
    world_open(&w, false);
    fl_mcp_server *m = server(&w, true);
    json_t *r = send(m, MODERN_CALL("{\"elicitation\":{}}", ""));
    json_t *res = json_object_get(r, "result");
    CHECK_EQ_STR(json_string_value(json_object_get(res, "resultType")), "input_required");
    json_t *ask = json_object_get(json_object_get(res, "inputRequests"), "metric:revenue");
    CHECK_EQ_STR(json_string_value(json_object_get(ask, "method")), "elicitation/create");
    json_t *en = json_object_get(
        json_object_get(
            json_object_get(json_object_get(json_object_get(ask, "params"), "requestedSchema"),
                            "properties"),
            "metric"),
        "enum");
    char *t = json_dumps(en, JSON_COMPACT);
    CHECK(t && strstr(t, "\"net_revenue\"") && strstr(t, "\"gross_revenue\""));
    free(t);
    json_decref(r);
    /* the retry with the user's choice computes it */
    r = send(m, MODERN_CALL("{\"elicitation\":{}}",
                            "\"inputResponses\":{\"metric:revenue\":{\"action\":\"accept\","
                            "\"content\":{\"metric\":\"net_revenue\"}}},"));
    res = json_object_get(r, "result");
    CHECK_EQ_STR(json_string_value(json_object_get(res, "resultType")), "complete");
    CHECK(json_is_false(json_object_get(res, "isError")));
    t = json_dumps(json_object_get(json_object_get(res, "structuredContent"), "metrics"),
                   JSON_COMPACT);
    CHECK_EQ_STR(t, "[\"net_revenue\"]");
    free(t);
    json_decref(r);
    /* a choice that is not a candidate, or a decline: asked again, nothing guessed */
    const char *bad[] = {"\"inputResponses\":{\"metric:revenue\":{\"action\":\"accept\","
                         "\"content\":{\"metric\":\"order_total\"}}},",
                         "\"inputResponses\":{\"metric:revenue\":{\"action\":\"decline\"}},"};
    char buf[1024];
    for (int i = 0; i < 2; i++) {
        snprintf(buf, sizeof buf, MODERN_CALL("{\"elicitation\":{}}", "%s"), bad[i]);
        r = send(m, buf);
        CHECK_EQ_STR(
            json_string_value(json_object_get(json_object_get(r, "result"), "resultType")),
            "input_required");
        json_decref(r);
    }
    /* without the capability: the candidates */
    r = send(m, MODERN_CALL("{}", ""));
    res = json_object_get(r, "result");
    CHECK(json_is_true(json_object_get(json_object_get(res, "structuredContent"), "ambiguous")));
    CHECK_EQ_STR(json_string_value(json_object_get(res, "resultType")), "complete");
    json_decref(r);
    fl_mcp_server_free(m);
    world_close(&w);
}

int main(void)
{
    TEST_RUN(test_listed_with_model_only);
    TEST_RUN(test_list_metrics);
    TEST_RUN(test_dimensions_entities);
    TEST_RUN(test_dimension_values);
    TEST_RUN(test_query_metrics);
    TEST_RUN(test_ambiguity);
    TEST_RUN(test_row_filters);
    TEST_RUN(test_filter_values);
    TEST_RUN(test_elicitation);
    return TEST_EXIT();
}
