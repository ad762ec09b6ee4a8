/*
 * h_catalog.c - catalog-level endpoints: GET /v1/config, POST
 * /v1/oauth/tokens (OAuth2 client_credentials, RFC 6749 4.4, through
 * fl_auth_token_issue), and the operational endpoints /healthz (process
 * alive), /readyz (listening and not draining; the catalog answers) and
 * /metrics (Prometheus).
 *
 * /v1/config advertises every registered "/v1/{prefix}/..." route in
 * `endpoints` ("<VERB> <path>", the spec's format), the prefix in
 * `overrides` when one is configured, and `idempotency-key-lifetime`.
 */
#include <stdlib.h>
#include <string.h>

#include "server/server_internal.h"

static void h_config(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_server *s = r->srv;
    json_t *eps = json_array(), *ov = json_object();
    for (uint32_t i = 0; eps && i < s->router.n; i++) {
        const srv_route *rt = &s->router.routes[i];
        if (strncmp(rt->pattern, "/v1/{prefix}/", 13) != 0)
            continue;
        char buf[512];
        snprintf(buf, sizeof buf, "%s %s", rt->method, rt->pattern);
        json_array_append_new(eps, json_string(buf));
    }
    if (s->prefix)
        json_object_set_new(ov, "prefix", json_string(s->prefix));
    char life[32];
    snprintf(life, sizeof life, "PT%dS", s->opt.idempotency_lifetime_s);
    json_t *j = json_pack("{s:{s:s},s:o,s:o,s:s}", "defaults", "rest-page-size", "1000",
                          "overrides", ov, "endpoints", eps, "idempotency-key-lifetime", life);
    srv_respond_json(r, 200, j);
}

static void oauth_error(fl_server_request *r, int status, const char *code, const char *desc)
{
    srv_respond_json(r, status,
                     json_pack("{s:s,s:s}", "error", code, "error_description", desc));
}

/* Value of key in an application/x-www-form-urlencoded body (arena). */
static const char *form_value(fl_server_request *r, const char *key)
{
    size_t kl = strlen(key);
    const char *p = r->body, *end = r->body + r->body_len;
    while (p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *e = amp ? amp : end;
        const char *eq = memchr(p, '=', (size_t)(e - p));
        if (eq && (size_t)(eq - p) == kl && !memcmp(p, key, kl))
            return srv_pct_decode(eq + 1, (size_t)(e - eq - 1), true, &r->arena);
        p = e + 1;
    }
    return NULL;
}

static size_t b64dec(const char *in, unsigned char *out, size_t cap)
{
    static const char *tbl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    uint32_t acc = 0;
    int bits = 0;
    size_t n = 0;
    for (; *in && *in != '='; in++) {
        const char *p = strchr(tbl, *in);
        if (!p)
            return (size_t)-1;
        acc = (acc << 6) | (uint32_t)(p - tbl);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (n + 1 >= cap)
                return (size_t)-1;
            out[n++] = (unsigned char)(acc >> bits);
        }
    }
    out[n] = '\0';
    return n;
}

static void h_oauth_tokens(fl_server_request *r, void *ctx)
{
    (void)ctx;
    const char *grant = form_value(r, "grant_type");
    if (!grant || strcmp(grant, "client_credentials") != 0) {
        oauth_error(r, 400, grant ? "unsupported_grant_type" : "invalid_request",
                    grant ? "only grant_type=client_credentials is supported"
                          : "grant_type is required");
        return;
    }
    const char *id = form_value(r, "client_id"), *secret = form_value(r, "client_secret");
    const char *authz = fl_server_req_header(r, "Authorization");
    unsigned char basic[512];
    if (authz && !strncasecmp(authz, "Basic ", 6)) {
        size_t n = b64dec(authz + 6, basic, sizeof basic);
        char *colon = n != (size_t)-1 ? strchr((char *)basic, ':') : NULL;
        if (!colon) {
            oauth_error(r, 400, "invalid_request", "malformed Basic credentials");
            return;
        }
        *colon = '\0';
        id = srv_pct_decode((char *)basic, strlen((char *)basic), true, &r->arena);
        secret = srv_pct_decode(colon + 1, strlen(colon + 1), true, &r->arena);
    }
    if (!id || !secret) {
        oauth_error(r, 400, "invalid_request", "client_id and client_secret are required");
        return;
    }
    if (!r->srv->auth) {
        oauth_error(r, 400, "invalid_request",
                    "authentication is disabled on this server (--insecure-no-auth): no token "
                    "is needed");
        return;
    }
    /* throttled before any secret is checked (no PBKDF2); every request is
     * audited with the client's address (src/auth/throttle.c) */
    fl_auth *a = r->srv->auth;
    char addr[80], ip[80];
    srv_client_addr(r, addr, sizeof addr);
    srv_client_ip(r, ip, sizeof ip);
    int retry = 0;
    fl_error err = {0};
    if (fl_auth_login_allowed(a, id, ip, &retry, &err) != FL_OK) {
        char ra[16];
        snprintf(ra, sizeof ra, "%d", retry);
        fl_server_response_header(r, "Retry-After", ra);
        fl_auth_audit_login(a, "oauth.token", id, "/v1/oauth/tokens", addr, "throttled", err.msg);
        oauth_error(r, 429, "slow_down", err.msg);
        return;
    }
    char *token = NULL;
    int expires = 0;
    /* RFC 8707: a resource indicator binds the token to that resource (aud) */
    fl_status rc = fl_auth_token_issue_for(a, id, secret, form_value(r, "resource"), &token,
                                           &expires, &err);
    if (rc == FL_EUNAUTHENTICATED || rc == FL_OK)
        fl_auth_login_record(a, id, ip, rc == FL_OK);
    fl_auth_audit_login(a, "oauth.token", id, "/v1/oauth/tokens", addr,
                        rc == FL_OK                 ? "ok"
                        : rc == FL_EUNAUTHENTICATED ? "denied"
                                                    : "error",
                        rc == FL_OK                 ? NULL
                        : rc == FL_EUNAUTHENTICATED ? "bad credentials"
                                                    : err.msg);
    if (rc == FL_EUNAUTHENTICATED) {
        oauth_error(r, 401, "invalid_client", "invalid client credentials");
        return;
    }
    if (rc == FL_EINVAL && form_value(r, "resource")) {
        oauth_error(r, 400, "invalid_target", err.msg); /* RFC 8707 section 2 */
        return;
    }
    if (rc != FL_OK) {
        oauth_error(r, 500, "server_error", err.msg);
        return;
    }
    json_t *j = json_pack("{s:s,s:s,s:i,s:s}", "access_token", token, "token_type", "bearer",
                          "expires_in", expires, "issued_token_type",
                          "urn:ietf:params:oauth:token-type:access_token");
    free(token);
    srv_respond_json(r, 200, j);
}

static void h_healthz(fl_server_request *r, void *ctx)
{
    (void)ctx;
    const char *ok = "{\"status\":\"ok\"}";
    fl_server_respond(r, 200, "application/json", ok, strlen(ok));
}

static void h_readyz(fl_server_request *r, void *ctx)
{
    (void)ctx;
    if (!atomic_load(&r->srv->ready) || atomic_load(&r->srv->draining)) {
        const char *b = "{\"status\":\"draining\"}";
        fl_server_respond(r, 503, "application/json", b, strlen(b));
        return;
    }
    fl_catalog *c = srv_cat(r);
    fl_ice_map props = {0};
    fl_error err = {0};
    fl_namespace *kids = NULL;
    uint32_t n = 0;
    fl_status rc = c->ops->list_namespaces(c, NULL, &r->arena, &kids, &n, &err);
    (void)props;
    if (rc != FL_OK) {
        json_t *j = json_pack("{s:s,s:s}", "status", "catalog unavailable", "error", err.msg);
        srv_respond_json(r, 503, j);
        return;
    }
    const char *b = "{\"status\":\"ready\"}";
    fl_server_respond(r, 200, "application/json", b, strlen(b));
}

static void h_metrics(fl_server_request *r, void *ctx)
{
    (void)ctx;
    size_t len = 0;
    char *t = srv_metrics_render(r->srv->metrics, &r->srv->router, r, &len);
    if (!t) {
        fl_server_respond_error(r, 500, "InternalServerError", "out of memory");
        return;
    }
    r->responded = true;
    r->status = 200;
    r->content_type = "text/plain; version=0.0.4";
    r->resp_body = t;
    r->resp_len = len;
}

fl_status srv_routes_catalog(fl_server *s, fl_error *err)
{
    FL_TRY(srv_router_add(&s->router, "GET", "/v1/config", h_config, NULL, 0, err));
    FL_TRY(srv_router_add(&s->router, "POST", "/v1/oauth/tokens", h_oauth_tokens, NULL,
                          FL_ROUTE_PUBLIC, err));
    FL_TRY(srv_router_add(&s->router, "GET", "/healthz", h_healthz, NULL, FL_ROUTE_PUBLIC, err));
    FL_TRY(srv_router_add(&s->router, "GET", "/readyz", h_readyz, NULL, FL_ROUTE_PUBLIC, err));
    return srv_router_add(&s->router, "GET", "/metrics", h_metrics, NULL, FL_ROUTE_PUBLIC, err);
}
