/*
 * h_mcp.c - the MCP Streamable HTTP transport of `floe serve`, over the
 * transport-free server of include/floe/mcp.h.
 *
 *   POST   /mcp   one JSON-RPC message -> 200 application/json (a response)
 *                 or 202 (notifications and responses). initialize issues
 *                 Mcp-Session-Id; every later message must carry it (400
 *                 without, 404 for an unknown or ended one) and, when it
 *                 sends MCP-Protocol-Version, the session's version (400).
 *                 A 2026-07-28 request (version in params._meta) needs no
 *                 session; its MCP-Protocol-Version, Mcp-Method and Mcp-Name
 *                 must match the body (400), an unknown method is 404.
 *   DELETE /mcp   ends the session named by Mcp-Session-Id (204, 404).
 *   GET    /mcp   405: the server opens no SSE stream.
 *   GET    /.well-known/oauth-protected-resource[/mcp]  RFC 9728 metadata.
 *
 * ORIGIN: a browser's Origin must name this server (403 otherwise), so a
 * page elsewhere cannot drive a local server through DNS rebinding.
 *
 * AUTH: the routes are public to the dispatcher so that this file can
 * answer 401 the way MCP's authorization spec asks: the server's bearer
 * tokens (auth.h; the tokens of /v1/oauth/tokens and static tokens), and
 * without a valid one 401 with WWW-Authenticate: Bearer
 * resource_metadata="<base>/.well-known/oauth-protected-resource". The
 * authenticated principal is what the MCP server runs every tool as.
 * Each message gets its own catalog handle from the server's pool.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/mcp.h"
#include "server/server_internal.h"

static fl_status principal_of(void *ctx, void *caller, fl_principal *out, fl_error *err)
{
    (void)ctx;
    fl_server_request *r = caller;
    if (!r || !r->principal.name[0])
        return fl_errorf(err, FL_EUNAUTHENTICATED, "request is not authenticated");
    *out = r->principal;
    return FL_OK;
}

static fl_catalog *catalog_of(void *ctx, void *caller)
{
    (void)ctx;
    return srv_cat(caller);
}

/* "http://host:port" of the request (the Host it was sent to). */
static const char *base_url(fl_server_request *r)
{
    const char *host = fl_server_req_header(r, "Host");
    const char *proto = fl_server_req_header(r, "X-Forwarded-Proto");
    return fl_arena_sprintf(&r->arena, "%s://%s",
                            proto && !strcmp(proto, "https") ? "https" : "http",
                            host && *host ? host : "localhost");
}

/* Authenticates r; false after responding 401 (or 503). */
static bool authenticate(fl_server_request *r)
{
    fl_server *s = r->srv;
    if (s->opt.insecure_no_auth) {
        snprintf(r->principal.name, sizeof r->principal.name, "anonymous");
        r->principal.admin = r->principal.anonymous = true;
        return true;
    }
    const char *authz = fl_server_req_header(r, "Authorization");
    fl_error err = {0};
    /* a token bound to a resource (RFC 8707 aud) must name this one (RFC 9728's resource) */
    const char *resource = fl_arena_sprintf(&r->arena, "%s/mcp", base_url(r));
    fl_status rc = fl_auth_authenticate_for(s->auth, authz, resource, &r->principal, &err);
    if (rc == FL_OK)
        return true;
    memset(&r->principal, 0, sizeof r->principal);
    if (rc != FL_EUNAUTHENTICATED) {
        fl_server_respond_error(r, 503, "ServiceUnavailableException",
                                "authentication unavailable: %s", err.msg);
        return false;
    }
    const char *www = fl_arena_sprintf(
        &r->arena, "Bearer resource_metadata=\"%s/.well-known/oauth-protected-resource\"%s",
        base_url(r), authz ? ", error=\"invalid_token\"" : "");
    fl_server_response_header(r, "WWW-Authenticate", www ? www : "Bearer");
    fl_server_respond_error(r, 401, "NotAuthorizedException", "%s", err.msg);
    return false;
}

/* The Origin a browser sent must be the server's own (MCP transports spec:
 * DNS rebinding); clients that are not browsers send none. */
static bool origin_ok(fl_server_request *r)
{
    const char *origin = fl_server_req_header(r, "Origin");
    if (!origin)
        return true;
    const char *host = fl_server_req_header(r, "Host");
    const char *p = strstr(origin, "://");
    if (host && p && !strcmp(p + 3, host))
        return true;
    fl_server_respond_error(r, 403, "ForbiddenException", "Origin %s is not this server", origin);
    return false;
}

static int outcome_status(fl_mcp_outcome o)
{
    switch (o) {
    case FL_MCP_NEED_SESSION:
    case FL_MCP_HEADER_MISMATCH:
    case FL_MCP_BAD_VERSION: return 400;
    case FL_MCP_UNKNOWN_METHOD:
    case FL_MCP_NO_SUCH_SESSION: return 404;
    case FL_MCP_TOO_LARGE: return 413;
    default: return 200;
    }
}

static void h_post(fl_server_request *r, void *ctx)
{
    fl_mcp_server *m = ctx;
    if (!origin_ok(r) || !authenticate(r))
        return;
    const char *ct = fl_server_req_header(r, "Content-Type");
    if (!ct || strncasecmp(ct, "application/json", 16)) {
        fl_server_respond_error(r, 415, "UnsupportedMediaTypeException",
                                "POST /mcp takes Content-Type: application/json");
        return;
    }
    const char *accept = fl_server_req_header(r, "Accept");
    if (accept && !strstr(accept, "application/json") && !strstr(accept, "*/*")) {
        fl_server_respond_error(r, 406, "NotAcceptableException",
                                "POST /mcp answers application/json (Accept it)");
        return;
    }
    fl_mcp_exchange x;
    memset(&x, 0, sizeof x);
    x.caller = r;
    x.session_id = fl_server_req_header(r, "Mcp-Session-Id");
    x.protocol_version = fl_server_req_header(r, "MCP-Protocol-Version");
    x.mcp_method = fl_server_req_header(r, "Mcp-Method");
    x.mcp_name = fl_server_req_header(r, "Mcp-Name");
    size_t len = 0;
    const char *body = fl_server_req_body(r, &len);
    char *resp = NULL;
    fl_error err = {0};
    if (fl_mcp_handle(m, &x, body, len, &resp, &err) != FL_OK) {
        fl_server_respond_error(r, 500, "InternalServerError", "%s", err.msg);
        return;
    }
    if (x.new_session_id[0])
        fl_server_response_header(r, "Mcp-Session-Id", x.new_session_id);
    if (!resp) {
        fl_server_respond(r, 202, NULL, NULL, 0);
        return;
    }
    fl_server_respond(r, outcome_status(x.outcome), "application/json", resp, strlen(resp));
    free(resp);
}

static void h_delete(fl_server_request *r, void *ctx)
{
    if (!origin_ok(r) || !authenticate(r))
        return;
    const char *sid = fl_server_req_header(r, "Mcp-Session-Id");
    if (!sid) {
        fl_server_respond_error(r, 400, "BadRequestException", "Mcp-Session-Id header required");
        return;
    }
    fl_error err = {0};
    fl_status rc = fl_mcp_session_end(ctx, sid, &r->principal, &err);
    if (rc == FL_OK)
        fl_server_respond(r, 204, NULL, NULL, 0);
    else
        fl_server_respond_error(r, 404, "NoSuchSessionException", "%s", err.msg);
}

static void h_get(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_server_response_header(r, "Allow", "POST, DELETE");
    fl_server_respond_error(r, 405, "MethodNotAllowedException",
                            "this server opens no SSE stream: POST messages to /mcp");
}

static void h_resource_metadata(fl_server_request *r, void *ctx)
{
    (void)ctx;
    const char *base = base_url(r);
    json_t *j = json_pack("{s:s, s:[s], s:[s], s:s, s:[s]}", "resource",
                          fl_arena_sprintf(&r->arena, "%s/mcp", base), "authorization_servers",
                          base, "bearer_methods_supported", "header", "resource_name",
                          "floe MCP server", "scopes_supported", "catalog");
    srv_respond_json(r, 200, j);
}

fl_status srv_routes_mcp(fl_server *s, fl_error *err)
{
    fl_mcp_options o;
    memset(&o, 0, sizeof o);
    o.catalog_for = catalog_of;
    o.io = s->io;
    o.auth = s->auth;
    o.resolve_principal = principal_of;
    o.cache = s->opt.sql_cache;
    o.queue = s->opt.sql_queue;
    o.memory_limit = s->opt.sql_memory_limit;
    o.sessions = true;
    o.run_sql_disabled = s->opt.mcp_run_sql_disabled;
    o.max_scan_bytes = s->opt.mcp_max_scan_bytes;
    o.max_queries_per_minute = s->opt.mcp_max_queries_per_minute;
    o.model = s->opt.mcp_model;
    o.models_dir = s->opt.mcp_models_dir;
    o.max_message_bytes = s->opt.max_body_bytes ? s->opt.max_body_bytes : 8u << 20;
    FL_TRY(fl_mcp_server_new(&o, &s->mcp, err));
    FL_TRY(srv_router_add(&s->router, "POST", "/mcp", h_post, s->mcp, FL_ROUTE_PUBLIC, err));
    FL_TRY(srv_router_add(&s->router, "DELETE", "/mcp", h_delete, s->mcp, FL_ROUTE_PUBLIC, err));
    FL_TRY(srv_router_add(&s->router, "GET", "/mcp", h_get, NULL, FL_ROUTE_PUBLIC, err));
    FL_TRY(srv_router_add(&s->router, "GET", "/.well-known/oauth-protected-resource",
                          h_resource_metadata, NULL, FL_ROUTE_PUBLIC, err));
    return srv_router_add(&s->router, "GET", "/.well-known/oauth-protected-resource/mcp",
                          h_resource_metadata, NULL, FL_ROUTE_PUBLIC, err);
}

void srv_mcp_free(fl_server *s)
{
    fl_mcp_server_free(s->mcp);
    s->mcp = NULL;
}
