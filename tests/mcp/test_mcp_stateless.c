/*
 * test_mcp_stateless.c - the stateless revision 2026-07-28 in process, next
 * to the legacy sessions: requests carrying their version in params._meta
 * run without initialize or session (stdio and HTTP-style servers), every
 * result has resultType and list results ttlMs/cacheScope; server/discover;
 * an unknown version is -32022 with the supported ones; initialize and
 * ping do not exist there (-32601, HTTP 404); over HTTP the
 * MCP-Protocol-Version, Mcp-Method and Mcp-Name headers must match the body
 * (-32020, HTTP 400; Mcp-Name also as =?base64?...?=); legacy requests
 * still need their session.
 */
#include <jansson.h>

#include "floe/mcp.h"
#include "floe/s3.h"
#include "floe_test.h"

#define META "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}"

static fl_status resolve(void *ctx, void *caller, fl_principal *out, fl_error *err)
{
    (void)ctx, (void)caller, (void)err;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "agent");
    return FL_OK;
}

static fl_mcp_server *server(fl_fileio *io, bool sessions)
{
    fl_mcp_options o;
    memset(&o, 0, sizeof o);
    o.io = io;
    o.resolve_principal = resolve;
    o.sessions = sessions;
    o.threads = 1;
    fl_mcp_server *m = NULL;
    fl_error err = {0};
    CHECK_OK(fl_mcp_server_new(&o, &m, &err), &err);
    return m;
}

static json_t *send(fl_mcp_server *m, fl_mcp_exchange *x, const char *text)
{
    char *resp = NULL;
    fl_error err = {0};
    CHECK_OK(fl_mcp_handle(m, x, text, strlen(text), &resp, &err), &err);
    json_t *j = resp ? json_loads(resp, 0, NULL) : NULL;
    free(resp);
    return j;
}

static int error_code(json_t *r)
{
    return (int)json_integer_value(json_object_get(json_object_get(r, "error"), "code"));
}

static json_t *result(json_t *r)
{
    return json_object_get(r, "result");
}

static void test_stdio(void)
{
    fl_fileio *io = NULL;
    fl_error err = {0};
    CHECK_OK(fl_fileio_default(NULL, &io, &err), &err);
    fl_mcp_server *m = server(io, false);
    fl_mcp_exchange x = {0};
    /* no initialize: the version is in the request */
    json_t *r = send(
        m, &x, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" META "}}");
    CHECK(json_array_size(json_object_get(result(r), "tools")) >= 5);
    CHECK_EQ_STR(json_string_value(json_object_get(result(r), "resultType")), "complete");
    CHECK_EQ_STR(json_string_value(json_object_get(result(r), "cacheScope")), "private");
    CHECK(json_is_integer(json_object_get(result(r), "ttlMs")));
    CHECK_EQ_STR(x.negotiated_version, "2026-07-28");
    json_decref(r);
    memset(&x, 0, sizeof x);
    r = send(
        m, &x,
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"run_sql\","
        "\"arguments\":{\"sql\":\"SELECT 41 + 1\"}," META "}}");
    CHECK(json_is_false(json_object_get(result(r), "isError")));
    CHECK_EQ_STR(json_string_value(json_object_get(result(r), "resultType")), "complete");
    CHECK(json_integer_value(json_array_get(
              json_array_get(
                  json_object_get(json_object_get(result(r), "structuredContent"), "rows"), 0),
              0)) == 42);
    json_decref(r);
    /* server/discover: every version, capabilities, who the server is */
    memset(&x, 0, sizeof x);
    r = send(m, &x,
             "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"server/discover\",\"params\":{" META "}}");
    char *v = json_dumps(json_object_get(result(r), "supportedVersions"), JSON_COMPACT);
    CHECK_EQ_STR(v, "[\"2026-07-28\",\"2025-11-25\",\"2025-06-18\"]");
    free(v);
    CHECK(json_object_get(json_object_get(result(r), "capabilities"), "tools") != NULL);
    CHECK_EQ_STR(
        json_string_value(json_object_get(json_object_get(json_object_get(result(r), "_meta"),
                                                          "io.modelcontextprotocol/serverInfo"),
                                          "name")),
        "floe");
    json_decref(r);
    /* an unknown version: -32022 with the supported ones */
    memset(&x, 0, sizeof x);
    r = send(m, &x,
             "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
             "\"io.modelcontextprotocol/protocolVersion\":\"1900-01-01\"}}}");
    CHECK_EQ_INT(error_code(r), -32022);
    json_t *data = json_object_get(json_object_get(r, "error"), "data");
    CHECK_EQ_STR(json_string_value(json_object_get(data, "requested")), "1900-01-01");
    CHECK_EQ_STR(json_string_value(json_array_get(json_object_get(data, "supported"), 0)),
                 "2026-07-28");
    CHECK_EQ_INT(x.outcome, FL_MCP_BAD_VERSION);
    json_decref(r);
    /* initialize and ping are not part of the stateless revision */
    const char *gone[] = {"initialize", "ping"};
    for (int i = 0; i < 2; i++) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"%s\",\"params\":{\"protocolVersion\":"
                 "\"2025-11-25\"," META "}}",
                 gone[i]);
        memset(&x, 0, sizeof x);
        r = send(m, &x, msg);
        CHECK_EQ_INT(error_code(r), -32601);
        CHECK_EQ_INT(x.outcome, FL_MCP_UNKNOWN_METHOD);
        json_decref(r);
    }
    /* the legacy handshake still works on the same server */
    memset(&x, 0, sizeof x);
    r = send(m, &x,
             "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"initialize\",\"params\":{"
             "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}");
    CHECK_EQ_STR(json_string_value(json_object_get(result(r), "protocolVersion")), "2025-11-25");
    CHECK(json_object_get(result(r), "resultType") == NULL);
    json_decref(r);
    fl_mcp_server_free(m);
    fl_fileio_destroy(io);
}

static void test_http_headers(void)
{
    fl_fileio *io = NULL;
    fl_error err = {0};
    CHECK_OK(fl_fileio_default(NULL, &io, &err), &err);
    fl_mcp_server *m = server(io, true);
    const char *call = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                       "\"name\":\"run_sql\",\"arguments\":{\"sql\":\"SELECT 1\"}," META "}}";
    /* all headers right: no session needed */
    fl_mcp_exchange x = {0};
    x.protocol_version = "2026-07-28";
    x.mcp_method = "tools/call";
    x.mcp_name = "run_sql";
    json_t *r = send(m, &x, call);
    CHECK(json_is_false(json_object_get(result(r), "isError")));
    CHECK_EQ_INT(x.outcome, FL_MCP_OK);
    CHECK_EQ_STR(x.new_session_id, "");
    json_decref(r);
    /* Mcp-Name in the Base64 sentinel form ("run_sql") */
    x.mcp_name = "=?base64?cnVuX3NxbA==?=";
    r = send(m, &x, call);
    CHECK(json_is_false(json_object_get(result(r), "isError")));
    json_decref(r);
    static const struct {
        const char *version, *method, *name;
    } bad[] = {
        {NULL, "tools/call", "run_sql"},
        {"2025-11-25", "tools/call", "run_sql"},
        {"2026-07-28", NULL, "run_sql"},
        {"2026-07-28", "tools/list", "run_sql"},
        {"2026-07-28", "tools/call", NULL},
        {"2026-07-28", "tools/call", "list_tables"},
        {"2026-07-28", "tools/call", "=?base64?bGlzdF90YWJsZXM=?="},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fl_mcp_exchange y = {0};
        y.protocol_version = bad[i].version;
        y.mcp_method = bad[i].method;
        y.mcp_name = bad[i].name;
        r = send(m, &y, call);
        CHECK_EQ_INT(error_code(r), -32020);
        CHECK_EQ_INT(y.outcome, FL_MCP_HEADER_MISMATCH);
        json_decref(r);
    }
    /* an unknown method over HTTP is 404 */
    fl_mcp_exchange z = {0};
    z.protocol_version = "2026-07-28";
    z.mcp_method = "nope/nope";
    r = send(m, &z,
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"nope/nope\",\"params\":{" META "}}");
    CHECK_EQ_INT(error_code(r), -32601);
    CHECK_EQ_INT(z.outcome, FL_MCP_UNKNOWN_METHOD);
    json_decref(r);
    /* a legacy request still needs its session */
    fl_mcp_exchange l = {0};
    r = send(m, &l, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}");
    CHECK_EQ_INT(l.outcome, FL_MCP_NEED_SESSION);
    json_decref(r);
    fl_mcp_server_free(m);
    fl_fileio_destroy(io);
}

int main(void)
{
    TEST_RUN(test_stdio);
    TEST_RUN(test_http_headers);
    return TEST_EXIT();
}
