/*
 * dispatch.c - one parsed JSON-RPC message to its response: the envelope
 * rules (jsonrpc "2.0", id a string or an integer, method a string, no
 * batches in the versions spoken), the session and protocol-version checks
 * of the HTTP transport, the principal, and the method table.
 *
 * Lifecycle methods live here (initialize, notifications/initialized,
 * ping); a request of the stateless revision 2026-07-28 (its version in
 * params._meta, or server/discover) skips sessions for stateless.c's
 * per-request checks and has no initialize or ping; the others call tools.c, resources.c and prompts.c. Unknown
 * notifications are ignored, as JSON-RPC asks; responses a client sends
 * (the server never asks anything yet) are dropped.
 */
#include <stdio.h>
#include <string.h>

#include "mcp/mcp_internal.h"

static json_t *initialize(fl_mcp_server *m, fl_mcp_exchange *x, const mcp_call *c, json_t *id,
                          json_t *params)
{
    json_t *pv = json_object_get(params, "protocolVersion");
    if (!json_is_string(pv))
        return mcp_error(id, MCP_INVALID_PARAMS,
                         "initialize: params.protocolVersion must be a string");
    json_t *caps = json_object_get(params, "capabilities");
    if (caps && !json_is_object(caps))
        return mcp_error(id, MCP_INVALID_PARAMS,
                         "initialize: params.capabilities must be an object");
    const char *v = mcp_version_negotiate(json_string_value(pv));
    pthread_mutex_lock(&m->mu);
    mcp_session *s = mcp_session_create(m, v, c->who.name);
    if (s) {
        snprintf(x->new_session_id, sizeof x->new_session_id, "%s", s->id);
        snprintf(x->negotiated_version, sizeof x->negotiated_version, "%s", v);
    }
    pthread_mutex_unlock(&m->mu);
    if (!s)
        return mcp_error(id, MCP_INTERNAL_ERROR, "cannot create a session");
    json_t *r = json_pack(
        "{s:s, s:{s:{s:b}, s:{s:b, s:b}, s:{s:b}}, s:{s:s, s:s, s:s}, s:s}", "protocolVersion", v,
        "capabilities", "tools", "listChanged", 0, "resources", "subscribe", 0, "listChanged", 0,
        "prompts", "listChanged", 0, "serverInfo", "name", "floe", "title", "Floe lakehouse",
        "version", FLOE_VERSION, "instructions",
        "Floe is an Iceberg lakehouse. list_tables and describe_table show what exists; "
        "estimate_cost tells what a query would scan before it runs; run_sql answers read-only "
        "SQL (PostgreSQL dialect) with a preview sized to your budget and a resource link to the "
        "full result. Every answer carries a receipt of the table snapshots it read.");
    return mcp_result_msg(id, r);
}

/* The method's response (NULL for a notification). */
static json_t *call_method(fl_mcp_server *m, fl_mcp_exchange *x, mcp_call *c, const char *method,
                           json_t *id, json_t *params)
{
    int code = 0;
    char msg[512] = "";
    json_t *r = NULL;
    bool modern = c->modern;
    if (!modern && !strcmp(method, "initialize"))
        return initialize(m, x, c, id, params);
    if (!strcmp(method, "server/discover"))
        r = mcp_discover(c);
    else if (!modern && !strcmp(method, "ping"))
        r = json_object();
    else if (!strcmp(method, "tools/list"))
        r = mcp_tools_list(c);
    else if (!strcmp(method, "tools/call"))
        r = mcp_tools_call(c, params, &code, msg, sizeof msg);
    else if (!strcmp(method, "resources/list"))
        r = mcp_resources_list(c);
    else if (!strcmp(method, "resources/templates/list"))
        r = mcp_resources_templates();
    else if (!strcmp(method, "resources/read"))
        r = mcp_resources_read(c, params, &code, msg, sizeof msg);
    else if (!strcmp(method, "prompts/list"))
        r = mcp_prompts_list();
    else if (!strcmp(method, "prompts/get"))
        r = mcp_prompts_get(params, &code, msg, sizeof msg);
    else {
        if (modern)
            x->outcome = FL_MCP_UNKNOWN_METHOD;
        return mcp_error(id, MCP_METHOD_NOT_FOUND, "method not found: %s", method);
    }
    if (!r)
        return mcp_error(id, code ? code : MCP_INTERNAL_ERROR, "%s",
                         msg[0] ? msg : "out of memory");
    return mcp_result_msg(id, r);
}

static bool valid_id(json_t *id)
{
    return json_is_string(id) || json_is_integer(id);
}

/* Checks the transport's session and version headers; NULL = go on. */
static json_t *check_session(fl_mcp_server *m, fl_mcp_exchange *x, const char *method,
                             const char *who, json_t *id)
{
    bool init = !strcmp(method, "initialize");
    if (x->protocol_version && !mcp_version_known(x->protocol_version)) {
        x->outcome = FL_MCP_BAD_VERSION;
        return mcp_error(id, MCP_INVALID_REQUEST, "unsupported MCP-Protocol-Version %s",
                         x->protocol_version);
    }
    if (!m->opt.sessions || init)
        return NULL;
    if (!x->session_id) {
        x->outcome = FL_MCP_NEED_SESSION;
        return mcp_error(id, MCP_INVALID_REQUEST,
                         "Mcp-Session-Id header required (initialize first)");
    }
    pthread_mutex_lock(&m->mu);
    mcp_session *s = mcp_session_find(m, x->session_id);
    bool mine = s && !strcmp(s->owner, who);
    if (mine) {
        snprintf(x->negotiated_version, sizeof x->negotiated_version, "%s", s->version);
        if (!strcmp(method, "notifications/initialized"))
            s->initialized = true;
    }
    pthread_mutex_unlock(&m->mu);
    if (!mine) {
        x->outcome = FL_MCP_NO_SUCH_SESSION;
        return mcp_error(id, MCP_INVALID_REQUEST, "no session %s (initialize again)",
                         x->session_id);
    }
    if (x->protocol_version && strcmp(x->protocol_version, x->negotiated_version)) {
        x->outcome = FL_MCP_BAD_VERSION;
        return mcp_error(id, MCP_INVALID_REQUEST, "MCP-Protocol-Version %s is not the session's %s",
                         x->protocol_version, x->negotiated_version);
    }
    return NULL;
}

static json_t *run(fl_mcp_server *m, fl_mcp_exchange *x, const char *method, json_t *id,
                   json_t *params, bool notification)
{
    mcp_call c;
    memset(&c, 0, sizeof c);
    c.m = m;
    fl_error err = {0};
    if (m->opt.resolve_principal(m->opt.resolve_ctx, x->caller, &c.who, &err) != FL_OK ||
        !c.who.name[0])
        return notification
                   ? NULL
                   : mcp_error(id, MCP_UNAUTHORIZED, "who is calling cannot be determined: %s",
                               err.msg[0] ? err.msg : "no principal");
    const char *mv = mcp_modern_version(json_is_object(params) ? params : NULL);
    c.modern = mv || !strcmp(method, "server/discover");
    if (c.modern) {
        json_t *caps = json_object_get(json_object_get(params, "_meta"),
                                       "io.modelcontextprotocol/clientCapabilities");
        c.can_elicit = json_is_object(json_object_get(caps, "elicitation"));
        c.input_responses = json_object_get(params, "inputResponses");
    }
    json_t *refused = c.modern ? mcp_modern_check(m, x, method, mv, params, id)
                               : check_session(m, x, method, c.who.name, id);
    if (refused || notification) {
        if (!refused && !m->opt.sessions && !strcmp(method, "notifications/initialized"))
            m->implicit.initialized = true;
        if (notification)
            json_decref(refused);
        return notification ? NULL : refused;
    }
    if (params && !json_is_object(params))
        return mcp_error(id, MCP_INVALID_PARAMS, "params must be an object");
    bool shared = !m->opt.catalog_for;
    if (shared)
        pthread_mutex_lock(&m->cat_mu);
    c.cat = m->opt.catalog_for ? m->opt.catalog_for(m->opt.catalog_ctx, x->caller) : m->opt.catalog;
    c.version = x->negotiated_version[0] ? x->negotiated_version : NULL;
    json_t *r = call_method(m, x, &c, method, id, params);
    if (shared)
        pthread_mutex_unlock(&m->cat_mu);
    if (c.modern)
        mcp_modern_decorate(r, method);
    return r;
}

json_t *mcp_dispatch(fl_mcp_server *m, fl_mcp_exchange *x, json_t *msg)
{
    if (json_is_array(msg)) {
        x->had_requests = true;
        return mcp_error(NULL, MCP_INVALID_REQUEST,
                         "JSON-RPC batches are not part of MCP 2025-06-18 or 2025-11-25: send one "
                         "message at a time");
    }
    if (!json_is_object(msg)) {
        x->had_requests = true;
        return mcp_error(NULL, MCP_INVALID_REQUEST, "a message must be a JSON object");
    }
    json_t *id = json_object_get(msg, "id");
    json_t *reply_id = valid_id(id) ? id : NULL;
    json_t *jv = json_object_get(msg, "jsonrpc");
    json_t *method = json_object_get(msg, "method");
    bool is_response = !method && (json_object_get(msg, "result") || json_object_get(msg, "error"));
    if (is_response && valid_id(id))
        return NULL; /* a client's response: nothing asked yet, dropped */
    x->had_requests = id != NULL || !method;
    if (!json_is_string(jv) || strcmp(json_string_value(jv), "2.0"))
        return mcp_error(reply_id, MCP_INVALID_REQUEST, "member \"jsonrpc\" must be \"2.0\"");
    if (id && !valid_id(id))
        return mcp_error(NULL, MCP_INVALID_REQUEST, "member \"id\" must be a string or an integer");
    if (!json_is_string(method))
        return mcp_error(reply_id, MCP_INVALID_REQUEST, "member \"method\" must be a string");
    json_t *params = json_object_get(msg, "params");
    return run(m, x, json_string_value(method), id, params, id == NULL);
}
