/*
 * h_console.c - the web console's static files (docs/console.md):
 *
 *   GET /                  302 to /console/
 *   GET /console           301 to /console/ (relative links need the slash)
 *   GET /console/          index.html
 *   GET /console/{asset}   one embedded file (console_assets.h), else 404
 *   HEAD of each           the same status and headers
 *
 * The files are compiled into libfloe (cmake/embed_console.cmake), so only
 * names in that table can be served: there is no file system path to
 * traverse, and "..", "%2F" or a sub-folder simply match nothing (404).
 * The routes are public (FL_ROUTE_PUBLIC): the files hold no data. Every
 * data call the console's JavaScript makes goes to the authorized APIs
 * (/v1/..., /v1/sql, /mcp) with the user's bearer token.
 *
 * Every answer carries a strict Content-Security-Policy (scripts and styles
 * only from this origin, no inline script, no framing), nosniff, and an
 * ETag; Cache-Control: no-cache makes browsers revalidate (304) since the
 * names are not content-hashed.
 */
#include <stdio.h>
#include <string.h>

#include "server/console_assets.h"
#include "server/server_internal.h"

#define CONSOLE_CSP                                                                                \
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "              \
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; "                   \
    "frame-ancestors 'none'"

static const char *content_type_of(const char *name)
{
    static const struct {
        const char *ext, *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".svg", "image/svg+xml"},
        {".json", "application/json"},
        {".png", "image/png"},
        {".ico", "image/x-icon"},
        {".txt", "text/plain; charset=utf-8"},
    };
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(dot, types[i].ext))
            return types[i].type;
    return "application/octet-stream";
}

static const srv_console_asset *find_asset(const char *name)
{
    for (const srv_console_asset *a = srv_console_assets; a->name; a++)
        if (!strcmp(a->name, name))
            return a;
    return NULL;
}

static void security_headers(fl_server_request *r)
{
    fl_server_response_header(r, "Content-Security-Policy", CONSOLE_CSP);
    fl_server_response_header(r, "X-Content-Type-Options", "nosniff");
    fl_server_response_header(r, "X-Frame-Options", "DENY");
    fl_server_response_header(r, "Referrer-Policy", "no-referrer");
}

static void redirect(fl_server_request *r, int status, const char *to)
{
    security_headers(r);
    fl_server_response_header(r, "Location", to);
    fl_server_respond(r, status, "text/plain; charset=utf-8", to, strlen(to));
}

static void serve_asset(fl_server_request *r, const char *name)
{
    security_headers(r);
    const srv_console_asset *a = find_asset(name);
    if (!a) {
        fl_server_respond_error(r, 404, "NotFoundException", "no such console file");
        return;
    }
    snprintf(r->etag, sizeof r->etag, "%s", a->etag);
    fl_server_response_header(r, "Cache-Control", "no-cache");
    const char *inm = fl_server_req_header(r, "If-None-Match");
    if (inm && (strstr(inm, a->etag) || !strcmp(inm, "*"))) {
        fl_server_respond(r, 304, NULL, NULL, 0);
        return;
    }
    fl_server_respond(r, 200, content_type_of(a->name), (const char *)a->bytes, a->len);
}

static void h_root(fl_server_request *r, void *ctx)
{
    (void)ctx;
    redirect(r, 302, "/console/");
}

static void h_index(fl_server_request *r, void *ctx)
{
    (void)ctx;
    const char *path = fl_server_req_path(r);
    size_t n = strlen(path);
    if (!n || path[n - 1] != '/') {
        redirect(r, 301, "/console/");
        return;
    }
    serve_asset(r, "index.html");
}

static void h_asset(fl_server_request *r, void *ctx)
{
    (void)ctx;
    serve_asset(r, fl_server_req_param(r, "asset"));
}

fl_status srv_routes_console(fl_server *s, fl_error *err)
{
    /* HEAD answers the same headers (libmicrohttpd sends no body for HEAD) */
    static const char *const methods[] = {"GET", "HEAD"};
    for (size_t i = 0; i < 2; i++) {
        FL_TRY(srv_router_add(&s->router, methods[i], "/", h_root, NULL, FL_ROUTE_PUBLIC, err));
        FL_TRY(srv_router_add(&s->router, methods[i], "/console", h_index, NULL, FL_ROUTE_PUBLIC,
                              err));
        FL_TRY(srv_router_add(&s->router, methods[i], "/console/{asset}", h_asset, NULL,
                              FL_ROUTE_PUBLIC, err));
    }
    return FL_OK;
}
