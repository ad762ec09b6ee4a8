/*
 * test_mcp.c - the MCP server in process: JSON-RPC envelope errors, version
 * negotiation, sessions, every tool over a small SQLite warehouse, results
 * as resources, and authorization (a principal without READ is refused;
 * a row filter changes the answer; an unknown principal is refused).
 */
#include <jansson.h>

#include "floe/auth.h"
#include "floe/mcp.h"
#include "floe/s3.h"
#include "floe_test.h"

typedef struct world {
    char dir[256];
    fl_catalog *cat;
    fl_fileio *io;
    fl_auth *auth;
    fl_principal as; /* who the next message comes from ("" = undetermined) */
} world;

static fl_status resolve(void *ctx, void *caller, fl_principal *out, fl_error *err)
{
    (void)caller;
    world *w = ctx;
    if (!w->as.name[0])
        return fl_errorf(err, FL_EUNAUTHENTICATED, "no credentials");
    *out = w->as;
    return FL_OK;
}

static void world_open(world *w, bool with_auth)
{
    memset(w, 0, sizeof *w);
    CHECK(ft_tmpdir(w->dir, sizeof w->dir, "mcp") != NULL);
    fl_sql_session *s = ft_open_sqlite(w->dir, NULL, NULL);
    char out[4096];
    fl_error err = {0};
    const char *setup[] = {
        "CREATE SCHEMA sales",
        "CREATE SCHEMA hr",
        "CREATE TABLE sales.orders (id int, country text, amount decimal(10,2), ts timestamptz) "
        "WITH (partitioning = ARRAY['country'])",
        "INSERT INTO sales.orders VALUES (1, 'DE', 10.50, '2024-01-05 10:00:00+00'), (2, 'DE', "
        "20.00, '2024-02-05 10:00:00+00'), (3, 'FR', 7.25, '2024-02-06 10:00:00+00'), (4, NULL, "
        "1.00, '2024-03-01 00:00:00+00')",
        "INSERT INTO sales.orders VALUES (5, 'FR', 3.00, '2024-03-02 00:00:00+00')",
        "CREATE TABLE hr.salaries (name text, salary int)",
        "INSERT INTO hr.salaries VALUES ('ann', 100)"};
    for (size_t i = 0; i < sizeof setup / sizeof setup[0]; i++)
        CHECK_OK(ft_run(s, setup[i], "\n", out, sizeof out, &err), &err);
    fl_sql_session_close(s);
    char uri[600], wh[600];
    snprintf(uri, sizeof uri, "sqlite:%s/cat.db", w->dir);
    snprintf(wh, sizeof wh, "%s/wh", w->dir);
    CHECK_OK(fl_fileio_default(NULL, &w->io, &err), &err);
    CHECK_OK(fl_catalog_open_uri(uri, NULL, wh, w->io, &w->cat, &err), &err);
    snprintf(w->as.name, sizeof w->as.name, "local");
    w->as.admin = true;
    if (!with_auth)
        return;
    fl_auth_options ao = {.store_uri = uri};
    CHECK_OK(fl_auth_open(&ao, &w->auth, &err), &err);
    char sec[128];
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_namespace ns;
    CHECK_OK(fl_namespace_parse("sales", &a, &ns, &err), &err);
    CHECK_OK(fl_auth_principal_create(w->auth, "analyst", false, sec, sizeof sec, &err), &err);
    CHECK_OK(fl_auth_principal_create(w->auth, "de_only", false, sec, sizeof sec, &err), &err);
    CHECK_OK(fl_auth_principal_create(w->auth, "nobody", false, sec, sizeof sec, &err), &err);
    CHECK_OK(fl_auth_role_create(w->auth, "sales_r", &err), &err);
    CHECK_OK(fl_auth_role_create(w->auth, "de_r", &err), &err);
    CHECK_OK(fl_auth_role_assign(w->auth, "analyst", "sales_r", true, &err), &err);
    CHECK_OK(fl_auth_role_assign(w->auth, "de_only", "de_r", true, &err), &err);
    CHECK_OK(fl_auth_grant(w->auth, "sales_r", FL_PRIV_READ, &ns, NULL, true, &err), &err);
    CHECK_OK(fl_auth_grant(w->auth, "de_r", FL_PRIV_READ, &ns, NULL, true, &err), &err);
    CHECK_OK(fl_auth_policy_set(w->auth, "de_r", FL_POLICY_ROW_FILTER, &ns, "orders", NULL,
                                "country = 'DE'", &err),
             &err);
    fl_arena_free(&a);
}

static void world_close(world *w)
{
    fl_catalog_close(w->cat);
    fl_auth_close(w->auth);
    fl_fileio_destroy(w->io);
    ft_rmtree(w->dir);
}

static fl_mcp_server *server(world *w, bool sessions, bool no_sql)
{
    fl_mcp_options o;
    memset(&o, 0, sizeof o);
    o.catalog = w->cat;
    o.io = w->io;
    o.auth = w->auth;
    o.resolve_principal = resolve;
    o.resolve_ctx = w;
    o.sessions = sessions;
    o.run_sql_disabled = no_sql;
    o.threads = 1;
    o.max_depth = 16;
    fl_mcp_server *m = NULL;
    fl_error err = {0};
    CHECK_OK(fl_mcp_server_new(&o, &m, &err), &err);
    return m;
}

/* Sends text; returns the parsed response (NULL when none). */
static json_t *send(fl_mcp_server *m, fl_mcp_exchange *x, const char *text)
{
    char *resp = NULL;
    fl_error err = {0};
    CHECK_OK(fl_mcp_handle(m, x, text, strlen(text), &resp, &err), &err);
    json_t *j = resp ? json_loads(resp, 0, NULL) : NULL;
    if (resp)
        CHECK(j != NULL);
    free(resp);
    return j;
}

static int error_code(json_t *r)
{
    return (int)json_integer_value(json_object_get(json_object_get(r, "error"), "code"));
}

static json_t *call(fl_mcp_server *m, const char *tool, const char *args_json)
{
    char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
             "\"arguments\":%s}}",
             tool, args_json);
    fl_mcp_exchange x = {0};
    json_t *r = send(m, &x, buf);
    json_t *res = json_incref(json_object_get(r, "result"));
    if (!res)
        fprintf(stderr, "no result for %s\n", tool);
    json_decref(r);
    return res;
}

static bool is_error(json_t *res)
{
    return json_is_true(json_object_get(res, "isError"));
}

static const char *error_text(json_t *res)
{
    return json_string_value(
        json_object_get(json_array_get(json_object_get(res, "content"), 0), "text"));
}

static json_t *sc(json_t *res)
{
    return json_object_get(res, "structuredContent");
}

static void test_envelope(void)
{
    world w;
    world_open(&w, false);
    fl_mcp_server *m = server(&w, false, false);
    fl_mcp_exchange x = {0};
    json_t *r = send(m, &x, "{\"jsonrpc\":\"2.0\",\"id\":1,");
    CHECK_EQ_INT(error_code(r), -32700);
    CHECK(strstr(json_string_value(json_object_get(json_object_get(r, "error"), "message")),
                 "column"));
    json_decref(r);
    /* a parse error quoting bytes that are not UTF-8 is still answered (found by fuzz_mcp_jsonrpc)
     */
    r = send(m, &x, "{\"js\\\xde\x9d\xd1\x92\\\"s\":1}");
    CHECK_EQ_INT(error_code(r), -32700);
    json_decref(r);
    r = send(m, &x, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
    CHECK_EQ_INT(error_code(r), -32600);
    json_decref(r);
    r = send(m, &x, "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}");
    CHECK_EQ_INT(error_code(r), -32600);
    CHECK_EQ_INT(json_integer_value(json_object_get(r, "id")), 1);
    json_decref(r);
    r = send(m, &x, "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}");
    CHECK_EQ_INT(error_code(r), -32600);
    json_decref(r);
    r = send(m, &x, "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"nope\"}");
    CHECK_EQ_INT(error_code(r), -32601);
    CHECK_EQ_STR(json_string_value(json_object_get(r, "id")), "a");
    json_decref(r);
    r = send(m, &x, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{}}");
    CHECK_EQ_INT(error_code(r), -32602);
    json_decref(r);
    r = send(m, &x,
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
             "\"run_sql\",\"arguments\":{\"sql\":1}}}");
    CHECK_EQ_INT(error_code(r), -32602);
    CHECK(
        strstr(json_string_value(json_object_get(json_object_get(r, "error"), "message")), "sql"));
    json_decref(r);
    r = send(m, &x,
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
             "\"run_sql\",\"arguments\":{\"sql\":\"select 1\",\"bogus\":1}}}");
    CHECK_EQ_INT(error_code(r), -32602);
    json_decref(r);
    r = send(m, &x, "{\"a\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]}");
    CHECK_EQ_INT(error_code(r), -32600);
    json_decref(r);
    r = send(m, &x, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    CHECK(r == NULL);
    r = send(m, &x, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}");
    CHECK(r == NULL);
    r = send(m, &x, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"id\":4}");
    CHECK_EQ_INT(error_code(r), -32700); /* duplicate key */
    json_decref(r);
    w.as.name[0] = '\0';
    r = send(m, &x, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}");
    CHECK_EQ_INT(error_code(r), -32001);
    json_decref(r);
    fl_mcp_server_free(m);
    world_close(&w);
}

static const char *init_version(fl_mcp_server *m, fl_mcp_exchange *x, const char *asked, char *buf)
{
    char msg[512];
    snprintf(msg, sizeof msg,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
             "\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
             "\"version\":\"1\"}}}",
             asked);
    json_t *r = send(m, x, msg);
    json_t *res = json_object_get(r, "result");
    snprintf(buf, 32, "%s", json_string_value(json_object_get(res, "protocolVersion")));
    CHECK_EQ_STR(json_string_value(json_object_get(json_object_get(res, "serverInfo"), "name")),
                 "floe");
    CHECK(json_object_get(json_object_get(res, "capabilities"), "tools") != NULL);
    CHECK(json_object_get(json_object_get(res, "capabilities"), "resources") != NULL);
    CHECK(json_object_get(json_object_get(res, "capabilities"), "prompts") != NULL);
    json_decref(r);
    return buf;
}

static void test_versions_and_sessions(void)
{
    world w;
    world_open(&w, false);
    fl_mcp_server *m = server(&w, true, false);
    char v[32];
    fl_mcp_exchange x = {0};
    CHECK_EQ_STR(init_version(m, &x, "2025-06-18", v), "2025-06-18");
    CHECK_EQ_STR(init_version(m, &x, "2025-11-25", v), "2025-11-25");
    CHECK_EQ_STR(init_version(m, &x, "2024-11-05", v), "2025-11-25");
    CHECK_EQ_STR(init_version(m, &x, "2099-01-01", v), "2025-11-25");
    CHECK(strlen(x.new_session_id) == 32);
    char sid[FL_MCP_SESSION_ID_MAX];
    snprintf(sid, sizeof sid, "%s", x.new_session_id);
    fl_mcp_exchange y = {0};
    json_t *r = send(m, &y, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
    CHECK_EQ_INT(y.outcome, FL_MCP_NEED_SESSION);
    json_decref(r);
    y.session_id = "0123";
    r = send(m, &y, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
    CHECK_EQ_INT(y.outcome, FL_MCP_NO_SUCH_SESSION);
    json_decref(r);
    y.session_id = sid;
    y.protocol_version = "2025-06-18";
    r = send(m, &y, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
    CHECK_EQ_INT(y.outcome, FL_MCP_BAD_VERSION);
    json_decref(r);
    y.protocol_version = "2025-11-25";
    r = send(m, &y, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
    CHECK_EQ_INT(y.outcome, FL_MCP_OK);
    CHECK(json_is_object(json_object_get(r, "result")));
    json_decref(r);
    fl_principal other = {0};
    snprintf(other.name, sizeof other.name, "mallory");
    fl_error err = {0};
    CHECK(fl_mcp_session_end(m, sid, &other, &err) == FL_EFORBIDDEN);
    CHECK_OK(fl_mcp_session_end(m, sid, &w.as, &err), &err);
    r = send(m, &y, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
    CHECK_EQ_INT(y.outcome, FL_MCP_NO_SUCH_SESSION);
    json_decref(r);
    fl_mcp_server_free(m);
    world_close(&w);
}

static void test_tools(void)
{
    world w;
    world_open(&w, false);
    fl_mcp_server *m = server(&w, false, false);
    fl_mcp_exchange x = {0};
    json_t *r = send(m, &x, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    json_t *tools = json_object_get(json_object_get(r, "result"), "tools");
    CHECK_EQ_INT(json_array_size(tools), 5);
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t)
    {
        CHECK(json_is_object(json_object_get(t, "inputSchema")));
        CHECK(json_is_object(json_object_get(t, "outputSchema")));
        CHECK(json_is_true(json_object_get(json_object_get(t, "annotations"), "readOnlyHint")));
    }
    json_decref(r);

    json_t *res = call(m, "list_tables", "{}");
    CHECK(!is_error(res));
    CHECK_EQ_INT(json_integer_value(json_object_get(sc(res), "count")), 2);
    json_decref(res);
    res = call(m, "list_tables", "{\"search\":\"ORD\"}");
    CHECK_EQ_INT(json_integer_value(json_object_get(sc(res), "count")), 1);
    CHECK_EQ_STR(json_string_value(json_object_get(
                     json_array_get(json_object_get(sc(res), "tables"), 0), "name")),
                 "orders");
    json_decref(res);
    res = call(m, "list_tables", "{\"max_items\":1}");
    CHECK(json_is_true(json_object_get(sc(res), "truncated")));
    json_decref(res);

    res = call(m, "describe_table", "{\"table\":\"sales.orders\"}");
    CHECK(!is_error(res));
    json_t *d = sc(res);
    CHECK_EQ_INT(json_integer_value(json_object_get(d, "row_count")), 5);
    json_t *f0 = json_array_get(json_object_get(json_object_get(d, "schema"), "fields"), 0);
    CHECK_EQ_STR(json_string_value(json_object_get(f0, "name")), "id");
    CHECK_EQ_INT(json_integer_value(json_object_get(f0, "id")), 1);
    CHECK_EQ_STR(json_string_value(json_object_get(f0, "type")), "int");
    CHECK_EQ_INT(json_array_size(json_object_get(d, "partition_spec")), 1);
    CHECK(json_is_object(json_object_get(d, "current_snapshot")));
    CHECK_EQ_INT(json_array_size(json_object_get(json_object_get(d, "receipt"), "tables")), 1);
    /* text block = the same JSON */
    json_t *txt = json_loads(error_text(res), 0, NULL);
    CHECK(json_equal(txt, d));
    json_decref(txt);
    json_decref(res);
    res = call(m, "describe_table", "{\"table\":\"sales.nope\"}");
    CHECK(is_error(res));
    json_decref(res);

    res = call(m, "table_history", "{\"table\":\"sales.orders\"}");
    CHECK(!is_error(res));
    CHECK_EQ_INT(json_integer_value(json_object_get(sc(res), "count")), 2);
    json_t *s0 = json_array_get(json_object_get(sc(res), "snapshots"), 0);
    CHECK_EQ_STR(json_string_value(json_object_get(s0, "operation")), "append");
    CHECK(json_is_integer(json_object_get(s0, "parent_id")));
    CHECK(json_is_object(json_object_get(s0, "summary")));
    json_decref(res);

    res = call(m, "run_sql",
               "{\"sql\":\"SELECT id, country, amount FROM sales.orders ORDER BY id\","
               "\"max_rows\":2}");
    CHECK(!is_error(res));
    d = sc(res);
    CHECK_EQ_INT(json_integer_value(json_object_get(d, "row_count")), 5);
    CHECK_EQ_INT(json_array_size(json_object_get(d, "rows")), 2);
    CHECK(json_is_true(json_object_get(d, "truncated")));
    CHECK(json_is_true(json_object_get(d, "complete")));
    json_t *st1 = json_array_get(json_object_get(d, "column_stats"), 1);
    CHECK_EQ_INT(json_integer_value(json_object_get(st1, "nulls")), 1);
    CHECK_EQ_STR(json_string_value(json_object_get(st1, "min")), "DE");
    json_t *st2 = json_array_get(json_object_get(d, "column_stats"), 2);
    CHECK_EQ_STR(json_string_value(json_object_get(st2, "max")), "20.00");
    CHECK_EQ_STR(json_string_value(
                     json_object_get(json_array_get(json_object_get(d, "columns"), 2), "type")),
                 "numeric(10,2)");
    json_t *link = json_array_get(json_object_get(res, "content"), 1);
    CHECK_EQ_STR(json_string_value(json_object_get(link, "type")), "resource_link");
    char rd[512];
    snprintf(
        rd, sizeof rd,
        "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"resources/read\",\"params\":{\"uri\":\"%s\"}}",
        json_string_value(json_object_get(link, "uri")));
    r = send(m, &x, rd);
    const char *csv = json_string_value(json_object_get(
        json_array_get(json_object_get(json_object_get(r, "result"), "contents"), 0), "text"));
    CHECK(csv && !strncmp(csv, "id,country,amount\r\n1,DE,10.50\r\n", 31));
    CHECK(csv && strstr(csv, "4,,1.00\r\n"));
    json_decref(r);
    snprintf(
        rd, sizeof rd,
        "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"resources/read\",\"params\":{\"uri\":\"%s\"}}",
        json_string_value(json_object_get(d, "result_arrow_uri")));
    r = send(m, &x, rd);
    json_t *c0 = json_array_get(json_object_get(json_object_get(r, "result"), "contents"), 0);
    CHECK_EQ_STR(json_string_value(json_object_get(c0, "mimeType")),
                 "application/vnd.apache.arrow.stream");
    const char *blob = json_string_value(json_object_get(c0, "blob"));
    CHECK(blob &&
          !strncmp(blob, "/////", 5)); /* base64 of the IPC continuation marker 0xFFFFFFFF */
    json_decref(r);
    json_decref(res);

    res = call(m, "run_sql", "{\"sql\":\"DELETE FROM sales.orders\"}");
    CHECK(is_error(res) && strstr(error_text(res), "read-only"));
    json_decref(res);
    res = call(m, "run_sql", "{\"sql\":\"DROP TABLE sales.orders\"}");
    CHECK(is_error(res));
    json_decref(res);
    res = call(m, "run_sql", "{\"sql\":\"SELECT 1; DELETE FROM sales.orders\"}");
    CHECK(is_error(res));
    json_decref(res);
    res = call(m, "run_sql", "{\"sql\":\"EXPLAIN ANALYZE SELECT 1\"}");
    CHECK(is_error(res));
    json_decref(res);
    res = call(m, "run_sql", "{\"sql\":\"SELECT nope FROM sales.orders\"}");
    CHECK(is_error(res) && strstr(error_text(res), "42703"));
    json_decref(res);
    res = call(m, "run_sql",
               "{\"sql\":\"SELECT count(*) AS n FROM orders\",\"namespace\":\"sales\"}");
    CHECK_EQ_INT(
        json_integer_value(json_array_get(json_array_get(json_object_get(sc(res), "rows"), 0), 0)),
        5);
    json_decref(res);

    res = call(m, "estimate_cost", "{\"table\":\"sales.orders\",\"filter\":\"country = 'DE'\"}");
    CHECK(!is_error(res));
    d = json_object_get(sc(res), "total");
    /* pruned to the DE partition: one file of two rows */
    CHECK_EQ_INT(json_integer_value(json_object_get(d, "rows")), 2);
    CHECK_EQ_INT(json_integer_value(json_object_get(d, "partitions")), 1);
    CHECK_EQ_INT(json_integer_value(json_object_get(d, "files")), 1);
    CHECK(json_integer_value(json_object_get(d, "bytes")) > 0);
    json_t *t0 = json_array_get(json_object_get(sc(res), "tables"), 0);
    CHECK_EQ_INT(json_integer_value(json_object_get(t0, "files_before_pruning")), 4);
    CHECK(strstr(json_string_value(json_object_get(sc(res), "plan")), "prune"));
    json_decref(res);
    res = call(m, "estimate_cost",
               "{\"sql\":\"SELECT count(*) FROM sales.orders o WHERE amount > 0\"}");
    d = json_object_get(sc(res), "total");
    CHECK_EQ_INT(json_integer_value(json_object_get(d, "rows")), 5);
    CHECK_EQ_INT(json_integer_value(json_object_get(d, "partitions")), 3);
    CHECK_EQ_INT(json_integer_value(json_object_get(d, "files")), 4);
    json_decref(res);
    res = call(m, "estimate_cost",
               "{\"table\":\"sales.orders\",\"filter\":\"country IN ('FR', 'XX')\"}");
    CHECK_EQ_INT(json_integer_value(json_object_get(json_object_get(sc(res), "total"), "rows")), 2);
    json_decref(res);
    res = call(m, "estimate_cost", "{\"sql\":\"DELETE FROM sales.orders\"}");
    CHECK(is_error(res));
    json_decref(res);

    /* nothing any tool ran changed the table */
    res = call(m, "table_history", "{\"table\":\"sales.orders\"}");
    CHECK_EQ_INT(json_integer_value(json_object_get(sc(res), "count")), 2);
    json_decref(res);
    fl_mcp_server_free(m);

    m = server(&w, false, true);
    res = call(m, "run_sql", "{\"sql\":\"SELECT 1\"}");
    CHECK(is_error(res) && strstr(error_text(res), "disabled"));
    json_decref(res);
    fl_mcp_server_free(m);
    world_close(&w);
}

/* The row cap (pushed into the engine) and the result store's room cut a result: complete false. */
static void test_result_caps(void)
{
    world w;
    world_open(&w, false);
    fl_mcp_options o;
    memset(&o, 0, sizeof o);
    o.catalog = w.cat;
    o.io = w.io;
    o.resolve_principal = resolve;
    o.resolve_ctx = &w;
    o.threads = 1;
    o.max_result_rows = 10;
    fl_mcp_server *m = NULL;
    fl_error err = {0};
    CHECK_OK(fl_mcp_server_new(&o, &m, &err), &err);
    json_t *res =
        call(m, "run_sql", "{\"sql\":\"SELECT * FROM generate_series(1, 1000) AS g(x)\"}");
    CHECK_EQ_INT(json_integer_value(json_object_get(sc(res), "row_count")), 10);
    CHECK(json_is_false(json_object_get(sc(res), "complete")));
    CHECK(json_is_true(json_object_get(sc(res), "truncated")));
    json_decref(res);
    res = call(m, "run_sql", "{\"sql\":\"SELECT * FROM generate_series(1, 10) AS g(x)\"}");
    CHECK(json_is_true(json_object_get(sc(res), "complete")));
    json_decref(res);
    fl_mcp_server_free(m);
    o.max_result_rows = 0;
    o.max_results_bytes = 400;
    CHECK_OK(fl_mcp_server_new(&o, &m, &err), &err);
    res = call(m, "run_sql", "{\"sql\":\"SELECT * FROM generate_series(1, 100000) AS g(x)\"}");
    CHECK(!is_error(res));
    CHECK(json_integer_value(json_object_get(sc(res), "row_count")) < 100);
    CHECK(json_is_false(json_object_get(sc(res), "complete")));
    CHECK(json_object_get(sc(res), "result_arrow_uri") == NULL); /* no room for both forms */
    json_decref(res);
    fl_mcp_server_free(m);
    world_close(&w);
}

/* Budgets: a query over the scan budget is refused with a narrower query to try; the narrower one
 * runs; a principal over its statements per minute is refused. */
static void test_budgets(void)
{
    world w;
    world_open(&w, false);
    fl_mcp_server *m = server(&w, false, false);
    json_t *res =
        call(m, "estimate_cost", "{\"table\":\"sales.orders\",\"filter\":\"country = 'DE'\"}");
    json_int_t de_bytes =
        json_integer_value(json_object_get(json_object_get(sc(res), "total"), "bytes"));
    json_t *parts =
        json_object_get(json_array_get(json_object_get(sc(res), "tables"), 0), "partition_by");
    CHECK_EQ_STR(json_string_value(json_array_get(parts, 0)), "country");
    json_decref(res);
    fl_mcp_server_free(m);
    fl_mcp_options o;
    memset(&o, 0, sizeof o);
    o.catalog = w.cat;
    o.io = w.io;
    o.resolve_principal = resolve;
    o.resolve_ctx = &w;
    o.threads = 1;
    o.max_scan_bytes = (uint64_t)de_bytes;
    o.max_queries_per_minute = 3;
    fl_error err = {0};
    CHECK_OK(fl_mcp_server_new(&o, &m, &err), &err);
    res = call(m, "run_sql", "{\"sql\":\"SELECT * FROM sales.orders\"}");
    CHECK(is_error(res) && strstr(error_text(res), "over budget") &&
          strstr(error_text(res), "partitioned by country"));
    json_decref(res);
    res = call(m, "run_sql", "{\"sql\":\"SELECT * FROM sales.orders WHERE country = 'DE'\"}");
    CHECK(!is_error(res));
    CHECK_EQ_INT(json_integer_value(json_object_get(sc(res), "row_count")), 2);
    json_decref(res);
    res = call(m, "run_sql", "{\"sql\":\"SELECT 1\"}");
    CHECK(!is_error(res));
    json_decref(res);
    res = call(m, "run_sql", "{\"sql\":\"SELECT 2\"}");
    CHECK(is_error(res) && strstr(error_text(res), "this minute"));
    json_decref(res);
    snprintf(w.as.name, sizeof w.as.name, "other"); /* per principal */
    res = call(m, "run_sql", "{\"sql\":\"SELECT 3\"}");
    CHECK(!is_error(res));
    json_decref(res);
    fl_mcp_server_free(m);
    world_close(&w);
}

static void test_resources_prompts(void)
{
    world w;
    world_open(&w, false);
    fl_mcp_server *m = server(&w, false, false);
    fl_mcp_exchange x = {0};
    json_t *r =
        send(m, &x, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/templates/list\"}");
    CHECK_EQ_INT(
        json_array_size(json_object_get(json_object_get(r, "result"), "resourceTemplates")), 2);
    json_decref(r);
    r = send(m, &x,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":"
             "\"floe://results/ffff\"}}");
    CHECK_EQ_INT(error_code(r), -32002);
    json_decref(r);
    r = send(m, &x,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\",\"params\":{\"uri\":"
             "\"floe://tables/sales.orders\"}}");
    CHECK(json_object_get(r, "result") != NULL);
    json_decref(r);
    r = send(m, &x, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/list\"}");
    CHECK_EQ_INT(json_array_size(json_object_get(json_object_get(r, "result"), "prompts")), 3);
    json_decref(r);
    r = send(m, &x,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/get\",\"params\":{\"name\":"
             "\"explore_table\",\"arguments\":{\"table\":\"sales.orders\"}}}");
    char *dump = json_dumps(r, 0);
    CHECK(dump && strstr(dump, "sales.orders") != NULL);
    free(dump);
    json_decref(r);
    r = send(m, &x,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/get\",\"params\":{\"name\":"
             "\"explore_table\"}}");
    CHECK_EQ_INT(error_code(r), -32602);
    json_decref(r);
    fl_mcp_server_free(m);
    world_close(&w);
}

static void as(world *w, const char *name)
{
    fl_error err = {0};
    CHECK_OK(fl_auth_principal_get(w->auth, name, &w->as, &err), &err);
}

static void test_authorization(void)
{
    world w;
    world_open(&w, true);
    fl_mcp_server *m = server(&w, false, false);
    as(&w, "nobody");
    json_t *res = call(m, "run_sql", "{\"sql\":\"SELECT count(*) FROM sales.orders\"}");
    CHECK(is_error(res) && strstr(error_text(res), "42501"));
    json_decref(res);
    res = call(m, "describe_table", "{\"table\":\"sales.orders\"}");
    CHECK(is_error(res));
    json_decref(res);
    res = call(m, "estimate_cost", "{\"table\":\"sales.orders\"}");
    CHECK(is_error(res));
    json_decref(res);
    res = call(m, "list_tables", "{}");
    CHECK(is_error(res) || json_integer_value(json_object_get(sc(res), "count")) == 0);
    json_decref(res);

    as(&w, "analyst");
    res = call(m, "run_sql", "{\"sql\":\"SELECT count(*) FROM sales.orders\"}");
    CHECK(!is_error(res));
    CHECK_EQ_INT(
        json_integer_value(json_array_get(json_array_get(json_object_get(sc(res), "rows"), 0), 0)),
        5);
    CHECK_EQ_STR(
        json_string_value(json_object_get(json_object_get(sc(res), "receipt"), "principal")),
        "analyst");
    const char *uri = json_string_value(json_object_get(sc(res), "result_uri"));
    char rd[512];
    snprintf(
        rd, sizeof rd,
        "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"resources/read\",\"params\":{\"uri\":\"%s\"}}",
        uri);
    json_decref(res);
    res = call(m, "run_sql", "{\"sql\":\"SELECT * FROM hr.salaries\"}");
    CHECK(is_error(res));
    json_decref(res);
    res = call(m, "list_tables", "{}");
    CHECK_EQ_INT(json_integer_value(json_object_get(sc(res), "count")), 1);
    json_decref(res);

    as(&w, "de_only");
    res = call(m, "run_sql", "{\"sql\":\"SELECT count(*) FROM sales.orders\"}");
    CHECK_EQ_INT(
        json_integer_value(json_array_get(json_array_get(json_object_get(sc(res), "rows"), 0), 0)),
        2);
    json_decref(res);
    res = call(m, "describe_table", "{\"table\":\"sales.orders\"}");
    CHECK_EQ_INT(json_integer_value(json_object_get(sc(res), "row_count")), 2);
    json_decref(res);
    /* another principal's result is not found */
    fl_mcp_exchange x = {0};
    json_t *r = send(m, &x, rd);
    CHECK_EQ_INT(error_code(r), -32002);
    json_decref(r);
    fl_mcp_server_free(m);
    world_close(&w);
}

int main(void)
{
    TEST_RUN(test_envelope);
    TEST_RUN(test_versions_and_sessions);
    TEST_RUN(test_tools);
    TEST_RUN(test_result_caps);
    TEST_RUN(test_budgets);
    TEST_RUN(test_resources_prompts);
    TEST_RUN(test_authorization);
    return TEST_EXIT();
}
