/*
 * dispatch.c - one request from routing to response: route lookup (404 /
 * 405), authentication (401, through auth.h; skipped for FL_ROUTE_PUBLIC
 * routes and in --insecure-no-auth mode), Idempotency-Key replay for
 * mutations, the handler, then metrics and one structured access-log line.
 *
 * Idempotency (REST spec "Idempotency-Key"): for a mutation carrying the
 * header, a response already recorded for the same key and route is
 * replayed byte for byte; otherwise the handler runs and its response is
 * recorded unless it is a 5xx (an outcome the client must be able to retry).
 * Keys are scoped by principal so one client cannot replay another's.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "floe/rest.h"
#include "server/server_internal.h"

int64_t srv_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint64_t mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void json_escape_into(char *out, size_t cap, const char *s)
{
    size_t o = 0;
    for (; s && *s && o + 7 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c < 0x20) {
            o += (size_t)snprintf(out + o, cap - o, "\\u%04x", c);
        } else {
            out[o++] = (char)c;
        }
    }
    out[o] = '\0';
}

void srv_log(const char *level, const char *event, const char *fmt, ...)
{
    char msg[1024], esc[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    json_escape_into(esc, sizeof esc, msg);
    fprintf(stderr, "{\"ts\":%" PRId64 ",\"level\":\"%s\",\"event\":\"%s\",\"msg\":\"%s\"}\n",
            srv_now_ms(), level, event, esc);
}

static void new_request_id(char out[40])
{
    uint8_t b[12];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
        memset(b, 0, sizeof b);
    for (int i = 0; i < 12; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

fl_status srv_identify(fl_server_request *r, fl_error *err)
{
    fl_server *s = r->srv;
    if (s->opt.insecure_no_auth) {
        snprintf(r->principal.name, sizeof r->principal.name, "anonymous");
        r->principal.admin = true;
        r->principal.anonymous = true;
        return FL_OK;
    }
    return fl_auth_authenticate(s->auth, fl_server_req_header(r, "Authorization"), &r->principal,
                                err);
}

static bool authenticate(fl_server_request *r)
{
    fl_error err = {0};
    fl_status rc = srv_identify(r, &err);
    if (rc == FL_OK)
        return true;
    if (rc == FL_EUNAUTHENTICATED)
        fl_server_respond_error(r, 401, "NotAuthorizedException", "%s", err.msg);
    else
        fl_server_respond_error(r, 503, "ServiceUnavailableException",
                                "authentication unavailable: %s", err.msg);
    return false;
}

static void access_log(fl_server_request *r, uint64_t us)
{
    char path[512];
    json_escape_into(path, sizeof path, r->path);
    fprintf(stderr,
            "{\"ts\":%" PRId64 ",\"level\":\"info\",\"event\":\"request\",\"id\":\"%s\","
            "\"method\":\"%s\",\"path\":\"%s\",\"status\":%d,\"us\":%" PRIu64
            ",\"principal\":\"%s\"}\n",
            srv_now_ms(), r->request_id, r->method, path, r->status, us, r->principal.name);
}

static void run_handler(fl_server_request *r)
{
    const srv_route *rt = r->match.route;
    const char *key = (rt->flags & FL_ROUTE_MUTATION) ? fl_server_req_header(r, "Idempotency-Key")
                                                      : NULL;
    char *route_key = NULL;
    if (key && r->srv->idem) {
        if (strlen(key) > 200) {
            fl_server_respond_error(r, 400, "BadRequestException",
                                    "Idempotency-Key longer than 200 characters");
            return;
        }
        route_key = fl_arena_sprintf(&r->arena, "%s %s %s", r->principal.name, r->method, r->path);
        char *body = NULL;
        size_t len = 0;
        int status = 0;
        if (route_key && srv_idem_get(r->srv->idem, key, route_key, &status, &body, &len)) {
            r->status = status;
            r->resp_body = body;
            r->resp_len = len;
            r->content_type = len ? "application/json" : NULL;
            r->responded = true;
            return;
        }
    }
    rt->h(r, rt->ctx);
    if (!r->responded)
        fl_server_respond_error(r, 500, "InternalServerError", "handler produced no response");
    if (route_key && r->status < 500)
        srv_idem_put(r->srv->idem, key, route_key, r->status, r->resp_body, r->resp_len);
}

void srv_dispatch(fl_server_request *r)
{
    uint64_t t0 = mono_us();
    new_request_id(r->request_id);
    fl_server *s = r->srv;
    r->route_slot = SRV_MAX_ROUTES;
    if (!srv_router_match(&s->router, r->method, r->path, s->prefix, &r->arena, &r->match)) {
        if (r->match.method_mismatch)
            fl_server_respond_error(r, 405, "MethodNotAllowedException",
                                    "method %s not allowed on %s", r->method, r->path);
        else
            fl_server_respond_error(r, 404, "NoSuchRouteException", "no route for %s %s",
                                    r->method, r->path);
    } else {
        r->route_slot = (uint32_t)(r->match.route - s->router.routes);
        if ((r->match.route->flags & FL_ROUTE_PUBLIC) || authenticate(r))
            run_handler(r);
    }
    if (r->cat) {
        srv_catpool_put(s, r->cat);
        r->cat = NULL;
    }
    uint64_t us = mono_us() - t0;
    srv_metrics_observe(s->metrics, r->route_slot, r->status, us);
    if (s->opt.log_requests)
        access_log(r, us);
}

/* ---- accessors ---- */

const char *fl_server_req_method(const fl_server_request *r)
{
    return r->method;
}

const char *fl_server_req_path(const fl_server_request *r)
{
    return r->path;
}

const char *fl_server_req_param(const fl_server_request *r, const char *name)
{
    for (uint32_t i = 0; i < r->match.nparams; i++) {
        const char *n = r->match.names[i]; /* "{name}" */
        size_t l = strlen(name);
        if (strlen(n) == l + 2 && !strncmp(n + 1, name, l))
            return r->match.values[i];
    }
    return NULL;
}

const char *fl_server_req_body(const fl_server_request *r, size_t *len)
{
    if (len)
        *len = r->body_len;
    return r->body;
}

const fl_principal *fl_server_req_principal(const fl_server_request *r)
{
    return &r->principal;
}

fl_arena *fl_server_req_arena(fl_server_request *r)
{
    return &r->arena;
}

void fl_server_respond(fl_server_request *r, int status, const char *content_type,
                       const char *body, size_t len)
{
    if (r->responded)
        return;
    r->responded = true;
    r->status = status;
    r->content_type = content_type ? content_type : "application/json";
    r->resp_body = NULL;
    r->resp_len = 0;
    if (len) {
        r->resp_body = malloc(len);
        if (!r->resp_body) {
            r->status = 500;
            return;
        }
        memcpy(r->resp_body, body, len);
        r->resp_len = len;
    }
}

void fl_server_respond_error(fl_server_request *r, int status, const char *type, const char *fmt,
                             ...)
{
    char msg[FL_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    json_t *e = fl_rest_error_json(msg, type, status);
    if (!e) {
        fl_server_respond(r, status, "text/plain", msg, strlen(msg));
        return;
    }
    srv_respond_json(r, status, e);
}
