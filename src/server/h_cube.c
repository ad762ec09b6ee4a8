/*
 * h_cube.c - Cube's REST API over the semantic model of `floe serve
 * --models` (include/floe/sem_cube.h):
 *
 *   GET       /cubejs-api/v1/meta   the model as Cube metadata
 *   GET/POST  /cubejs-api/v1/load   ?query=JSON, or {"query": {...}}: the rows
 *   GET/POST  /cubejs-api/v1/sql    the SQL the query compiles to
 *
 * Authentication is Cube's: the token in Authorization, with or without
 * "Bearer " (Cube's clients send it bare), checked by the auth store like
 * every other route; the routes are public to the router only for that.
 * The query runs as the token's principal on an engine session with its
 * grants, row filters, masks and limits (the one authorization point in the
 * engine) and counts against its statement cap. Errors are Cube's
 * {"error": "..."}: 400 for a bad query, 401, 403 for a missing grant, 404
 * without a model, 429, 500. Rows are Cube's: every value a string (numbers
 * as the engine prints them, exactly), times as "YYYY-MM-DDTHH:MM:SS.mmm",
 * NULL as null; the answer adds floe's receipt under "receipt".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "floe/admission.h"
#include "floe/sem_cube.h"
#include "server/h_cube.h"

void srv_cube_error(fl_server_request *r, int status, const char *msg)
{
    json_t *j = json_pack("{s:s}", "error", msg);
    srv_respond_json(r, status, j);
}

/* Cube's token, bare or "Bearer T"; false after responding. */
bool srv_cube_auth(fl_server_request *r)
{
    fl_server *s = r->srv;
    if (s->opt.insecure_no_auth) {
        snprintf(r->principal.name, sizeof r->principal.name, "anonymous");
        r->principal.admin = r->principal.anonymous = true;
        return true;
    }
    const char *h = fl_server_req_header(r, "Authorization");
    const char *authz = h && !strchr(h, ' ') ? fl_arena_sprintf(&r->arena, "Bearer %s", h) : h;
    fl_error err = {0};
    fl_status rc = fl_auth_authenticate(s->auth, authz, &r->principal, &err);
    if (rc == FL_OK)
        return true;
    memset(&r->principal, 0, sizeof r->principal);
    srv_cube_error(r, rc == FL_EUNAUTHENTICATED ? 401 : 503, err.msg);
    return false;
}

/* The request's query text: ?query= (GET) or the body's "query" (POST);
 * *multi: queryType=multi, what Cube's clients ask for. */
static char *query_text(fl_server_request *r, size_t *len, bool *multi)
{
    if (!strcmp(fl_server_req_method(r), "GET")) {
        const char *qt = fl_server_req_query(r, "queryType");
        *multi = qt && !strcmp(qt, "multi");
        const char *q = fl_server_req_query(r, "query");
        if (!q) {
            srv_cube_error(r, 400, "the query is missing: ?query={...}");
            return NULL;
        }
        *len = strlen(q);
        return fl_arena_strndup(&r->arena, q, *len);
    }
    json_t *body = srv_body_json(r);
    if (!body)
        return NULL; /* responded */
    json_t *q = json_object_get(body, "query");
    const char *qt = json_string_value(json_object_get(body, "queryType"));
    *multi = qt && !strcmp(qt, "multi");
    char *text = q ? json_dumps(q, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    json_decref(body);
    if (!text) {
        srv_cube_error(r, 400, "the body needs {\"query\": {...}}");
        return NULL;
    }
    *len = strlen(text);
    char *copy = fl_arena_strndup(&r->arena, text, *len);
    free(text);
    return copy;
}

/* The model and the parsed query; NULL after responding. */
fl_sem_cube_query *srv_cube_parse(fl_server_request *r, bool *multi)
{
    const fl_sem_model *m = r->srv->opt.mcp_model;
    if (!m) {
        srv_cube_error(r, 404, "no semantic model: start floe serve with --models DIR");
        return NULL;
    }
    size_t len = 0;
    char *text = query_text(r, &len, multi);
    if (!text)
        return NULL;
    fl_sem_cube_query *q = NULL;
    fl_error err = {0};
    if (fl_sem_cube_parse(m, text, len, &q, &err) != FL_OK) {
        srv_cube_error(r, err.code == FL_ENOMEM ? 500 : 400, err.msg);
        return NULL;
    }
    return q;
}

static void h_meta(fl_server_request *r, void *ctx)
{
    (void)ctx;
    if (!srv_cube_auth(r))
        return;
    if (!r->srv->opt.mcp_model) {
        srv_cube_error(r, 404, "no semantic model: start floe serve with --models DIR");
        return;
    }
    char *json = NULL;
    fl_error err = {0};
    if (fl_sem_cube_meta_json(r->srv->opt.mcp_model, &json, &err) != FL_OK) {
        srv_cube_error(r, 500, err.msg);
        return;
    }
    fl_server_respond(r, 200, "application/json", json, strlen(json));
    free(json);
}

static void h_sql(fl_server_request *r, void *ctx)
{
    (void)ctx;
    if (!srv_cube_auth(r))
        return;
    bool multi = false; /* /sql answers one shape */
    fl_sem_cube_query *q = srv_cube_parse(r, &multi);
    if (!q)
        return;
    char *sql = NULL;
    fl_error err = {0};
    if (fl_sem_compile(r->srv->opt.mcp_model, fl_sem_cube_query_sem(q), NULL, 0, &sql, &err) !=
        FL_OK) {
        fl_sem_cube_free(q);
        srv_cube_error(r, 400, err.msg);
        return;
    }
    json_t *j = json_pack("{s:{s:[s,[]], s:s, s:b}}", "sql", "sql", sql, "dataSource", "default",
                          "external", 0);
    free(sql);
    fl_sem_cube_free(q);
    srv_respond_json(r, 200, j);
}

fl_status srv_routes_cube(fl_server *s, fl_error *err)
{
    FL_TRY(srv_router_add(&s->router, "GET", "/cubejs-api/v1/meta", h_meta, NULL, FL_ROUTE_PUBLIC,
                          err));
    FL_TRY(
        srv_router_add(&s->router, "GET", "/cubejs-api/v1/sql", h_sql, NULL, FL_ROUTE_PUBLIC, err));
    FL_TRY(srv_router_add(&s->router, "POST", "/cubejs-api/v1/sql", h_sql, NULL, FL_ROUTE_PUBLIC,
                          err));
    FL_TRY(srv_router_add(&s->router, "GET", "/cubejs-api/v1/load", srv_cube_load, NULL,
                          FL_ROUTE_PUBLIC, err));
    return srv_router_add(&s->router, "POST", "/cubejs-api/v1/load", srv_cube_load, NULL,
                          FL_ROUTE_PUBLIC, err);
}
