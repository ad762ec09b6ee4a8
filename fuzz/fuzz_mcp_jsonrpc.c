/*
 * fuzz_mcp_jsonrpc.c - libFuzzer target for the MCP server's message
 * handling (src/mcp): arbitrary bytes as one JSON-RPC message.
 *
 * Input layout: byte 0 picks the server (bit 0: HTTP-style sessions; bit 1:
 * a session id header taken from the last session created; bit 2: an
 * MCP-Protocol-Version header) and the rest is the message. The servers
 * have no catalog: the table tools answer isError and run_sql reaches the
 * SQL engine with whatever SQL the JSON carries (VALUES, SELECT of
 * constants), in a read-only block. Both have a small semantic model, so
 * the metric tools (list_metrics, get_dimensions, get_entities,
 * compile_sql; query_metrics and get_dimension_values up to the missing
 * catalog) and their candidates are reached too.
 * Properties: no crash, leak or UB; every response is one JSON object with
 * jsonrpc "2.0" and either a result or an error with an integer code; a
 * message that is not a notification or a response gets a response.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe/mcp.h"
#include "floe/s3.h"
#include "floe/semantic.h"

static fl_status who(void *ctx, void *caller, fl_principal *out, fl_error *err)
{
    (void)ctx, (void)caller, (void)err;
    memset(out, 0, sizeof *out);
    strcpy(out->name, "fuzz");
    return FL_OK;
}

static const char MODEL[] =
    "semantic_models:\n"
    "  - name: orders\n"
    "    model: ref('orders')\n"
    "    defaults: {agg_time_dimension: order_date}\n"
    "    entities:\n"
    "      - {name: order, type: primary, expr: order_id}\n"
    "      - {name: customer, type: foreign, expr: customer_id}\n"
    "    dimensions:\n"
    "      - {name: order_date, type: time, type_params: {time_granularity: day}}\n"
    "      - {name: status, type: categorical}\n"
    "    measures:\n"
    "      - {name: gross_amount, agg: sum}\n"
    "      - {name: discount, agg: sum}\n"
    "  - name: customers\n"
    "    model: ref('customers')\n"
    "    entities:\n"
    "      - {name: customer, type: primary, expr: customer_id}\n"
    "    dimensions:\n"
    "      - {name: region, type: categorical}\n"
    "metrics:\n"
    "  - {name: gross_revenue, type: simple, type_params: {measure: gross_amount}}\n"
    "  - {name: discounts, type: simple, type_params: {measure: discount}}\n"
    "  - name: net_revenue\n"
    "    description: Gross minus discounts.\n"
    "    type: derived\n"
    "    type_params: {expr: gross_revenue - discounts, metrics: [gross_revenue, discounts]}\n";

static fl_mcp_server *server(bool sessions)
{
    static fl_mcp_server *m[2];
    static fl_fileio *io;
    static fl_sem_model *model;
    fl_error err = {0};
    if (!io && fl_fileio_default(NULL, &io, &err) != FL_OK)
        abort();
    fl_sem_file f = {"fuzz.yml", MODEL, sizeof MODEL - 1};
    if (!model && fl_sem_model_load_files(&f, 1, &model, &err) != FL_OK)
        abort();
    if (!m[sessions]) {
        fl_mcp_options o;
        memset(&o, 0, sizeof o);
        o.io = io;
        o.resolve_principal = who;
        o.sessions = sessions;
        o.threads = 1;
        o.memory_limit = 64u << 20;
        o.max_result_rows = 1000;
        o.max_results_bytes = 1u << 20;
        o.max_sessions = 16;
        o.model = model;
        if (fl_mcp_server_new(&o, &m[sessions], &err) != FL_OK)
            abort();
    }
    return m[sessions];
}

static void check_response(const char *resp)
{
    json_t *j = json_loads(resp, 0, NULL);
    if (!j || !json_is_object(j))
        abort();
    json_t *v = json_object_get(j, "jsonrpc");
    if (!json_is_string(v) || strcmp(json_string_value(v), "2.0"))
        abort();
    json_t *e = json_object_get(j, "error");
    if (!json_object_get(j, "result") && !json_is_integer(json_object_get(e, "code")))
        abort();
    json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char last_session[FL_MCP_SESSION_ID_MAX];
    if (size < 1 || size > 65536)
        return 0;
    uint8_t mode = data[0];
    fl_mcp_server *m = server(mode & 1);
    fl_mcp_exchange x;
    memset(&x, 0, sizeof x);
    if (mode & 2)
        x.session_id = last_session;
    if (mode & 4)
        x.protocol_version = (mode & 8) ? "2025-06-18" : "2025-11-25";
    char *resp = NULL;
    fl_error err = {0};
    if (fl_mcp_handle(m, &x, (const char *)data + 1, size - 1, &resp, &err) != FL_OK)
        return 0; /* out of memory only */
    if (x.had_requests && !resp)
        abort();
    if (resp)
        check_response(resp);
    if (x.new_session_id[0])
        memcpy(last_session, x.new_session_id, sizeof last_session);
    free(resp);
    return 0;
}
