/*
 * h_namespaces.c - the namespace endpoints of the REST spec:
 *   GET    /v1/{prefix}/namespaces[?parent=a%1Fb&pageToken=&pageSize=]
 *   POST   /v1/{prefix}/namespaces                      CreateNamespaceRequest
 *   GET    /v1/{prefix}/namespaces/{namespace}          GetNamespaceResponse
 *   HEAD   /v1/{prefix}/namespaces/{namespace}          204 / 404
 *   DELETE /v1/{prefix}/namespaces/{namespace}          204 / 404 / 409 not empty
 *   POST   /v1/{prefix}/namespaces/{namespace}/properties
 *
 * Pagination (srv_page, also used for tables and views): items are sorted by
 * key; the page token is the last key of the previous page (opaque to
 * clients), so pages stay stable while other names come and go. Without
 * pageToken and pageSize everything is returned in one page.
 *
 * Privileges: listing needs READ on the parent (catalog for top level),
 * create needs CREATE on the parent, load/exists READ, drop DROP, property
 * updates WRITE on the namespace.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/rest.h"
#include "server/server_internal.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool srv_page(fl_server_request *r, const char **keys, uint32_t n, uint32_t *start, uint32_t *count,
              const char **next)
{
    if (n > 1)
        qsort(keys, n, sizeof *keys, cmp_str);
    *start = 0;
    *count = n;
    *next = NULL;
    const char *tok = fl_server_req_query(r, "pageToken");
    const char *sz = fl_server_req_query(r, "pageSize");
    if (!tok && !sz)
        return true;
    long size = 1000;
    if (sz && *sz) {
        char *end;
        size = strtol(sz, &end, 10);
        if (*end || size < 1) {
            fl_server_respond_error(r, 400, "BadRequestException",
                                    "pageSize must be a positive integer, got '%.40s'", sz);
            return false;
        }
    }
    if (tok && *tok)
        while (*start < n && strcmp(keys[*start], tok) <= 0)
            (*start)++;
    uint32_t left = n - *start;
    *count = left < (unsigned long)size ? left : (uint32_t)size;
    if (*count < left)
        *next = keys[*start + *count - 1];
    return true;
}

static bool load_ns(fl_server_request *r, const fl_namespace *ns, fl_ice_map *props)
{
    fl_catalog *c = srv_cat(r);
    fl_error err = {0};
    fl_ice_map tmp;
    fl_status rc = c->ops->load_namespace(c, ns, &r->arena, props ? props : &tmp, &err);
    if (rc != FL_OK) {
        if (rc == FL_ENOTFOUND)
            fl_server_respond_error(r, 404, "NoSuchNamespaceException",
                                    "Namespace does not exist: %s", srv_ns_dotted(ns, &r->arena));
        else
            srv_respond_status(r, rc, &err, "NoSuchNamespaceException");
        return false;
    }
    return true;
}

bool srv_ns_must_exist(fl_server_request *r, const fl_namespace *ns)
{
    return load_ns(r, ns, NULL);
}

const char *srv_ns_location(fl_server_request *r, const fl_namespace *ns)
{
    if (!ns->nlevels)
        return NULL;
    fl_catalog *c = srv_cat(r);
    fl_ice_map props;
    fl_error err = {0};
    if (c->ops->load_namespace(c, ns, &r->arena, &props, &err) != FL_OK)
        return NULL;
    return fl_ice_map_get(&props, "location");
}

static void h_list(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_namespace parent = {0};
    const char *p = fl_server_req_query(r, "parent");
    if (p && *p) {
        uint32_t n = 1;
        for (const char *q = p; *q; q++)
            n += *q == '\x1f';
        const char **lv = fl_arena_calloc(&r->arena, n, sizeof *lv);
        const char *q = p;
        for (uint32_t i = 0; lv && i < n; i++) {
            const char *e = strchr(q, '\x1f');
            size_t len = e ? (size_t)(e - q) : strlen(q);
            lv[i] = fl_arena_strndup(&r->arena, q, len);
            q += len + 1;
        }
        parent.nlevels = n;
        parent.levels = lv;
    }
    if (!srv_authorize_listing(r, parent.nlevels ? &parent : NULL))
        return;
    if (parent.nlevels && !load_ns(r, &parent, NULL))
        return;
    fl_catalog *c = srv_cat(r);
    fl_namespace *kids = NULL;
    uint32_t n = 0;
    fl_error err = {0};
    fl_status rc = c->ops->list_namespaces(c, &parent, &r->arena, &kids, &n, &err);
    if (rc != FL_OK) {
        srv_respond_status(r, rc, &err, "NoSuchNamespaceException");
        return;
    }
    n = srv_filter_visible_ns(r, kids, n);
    const char **keys = fl_arena_calloc(&r->arena, n + 1, sizeof *keys);
    for (uint32_t i = 0; keys && i < n; i++) {
        /* key = levels joined by 0x1F, then the index after a NUL */
        keys[i] = srv_ns_dotted(&kids[i], &r->arena);
    }
    if (!keys) {
        fl_server_respond_error(r, 500, "InternalServerError", "out of memory");
        return;
    }
    const char **sorted = fl_arena_calloc(&r->arena, n + 1, sizeof *sorted);
    memcpy(sorted, keys, n * sizeof *keys);
    uint32_t start, count;
    const char *next;
    if (!srv_page(r, sorted, n, &start, &count, &next))
        return;
    const fl_namespace **page = fl_arena_calloc(&r->arena, count + 1, sizeof *page);
    if (!page) {
        fl_server_respond_error(r, 500, "InternalServerError", "out of memory");
        return;
    }
    uint32_t np = 0;
    for (uint32_t i = start; i < start + count; i++)
        for (uint32_t k = 0; k < n; k++)
            if (keys[k] == sorted[i]) {
                page[np++] = &kids[k];
                break;
            }
    srv_respond_json(r, 200, fl_rest_namespaces_json(page, np, next));
}

/* props plus "location" = the namespace's default folder when none was set
 * (fl_catalog_namespace_location): engines that place new tables themselves
 * (Trino's CREATE TABLE AS needs one) get the folder floe would use. */
static fl_ice_map with_location(fl_server_request *r, const fl_namespace *ns,
                                const fl_ice_map *props)
{
    if (fl_ice_map_get(props, "location"))
        return *props;
    fl_catalog tmp = {.warehouse = r->srv->warehouse};
    const char *loc = fl_catalog_namespace_location(&tmp, ns, &r->arena);
    fl_ice_kv *kv = loc ? fl_arena_calloc(&r->arena, props->n + 1, sizeof *kv) : NULL;
    if (!kv)
        return *props;
    if (props->n)
        memcpy(kv, props->items, props->n * sizeof *kv);
    kv[props->n] = (fl_ice_kv){.key = "location", .value = loc};
    return (fl_ice_map){props->n + 1, kv};
}

static void h_create(fl_server_request *r, void *ctx)
{
    (void)ctx;
    json_t *b = srv_body_json(r);
    if (!b)
        return;
    fl_namespace ns;
    fl_ice_map props;
    fl_error jerr = {0};
    if (!srv_codec_ok(r,
                      fl_rest_create_namespace_request_from_json(b, &r->arena, &ns, &props, &jerr),
                      &jerr)) {
        json_decref(b);
        return;
    }
    json_decref(b);
    fl_namespace parent = {ns.nlevels - 1, ns.levels};
    if (!srv_authorize(r, FL_PRIV_CREATE, parent.nlevels ? &parent : NULL, NULL))
        return;
    const char *loc = fl_ice_map_get(&props, "location");
    fl_error err = {0};
    if (loc && srv_location_check(r->srv, loc, &err) != FL_OK) {
        srv_audit(r, "create-namespace", srv_ns_dotted(&ns, &r->arena), "denied", err.msg);
        srv_respond_status(r, FL_EFORBIDDEN, &err, NULL);
        return;
    }
    fl_catalog *c = srv_cat(r);
    fl_status rc = c->ops->create_namespace(c, &ns, &props, &err);
    srv_audit(r, "create-namespace", srv_ns_dotted(&ns, &r->arena), rc == FL_OK ? "ok" : "error",
              rc == FL_OK ? NULL : err.msg);
    if (rc == FL_EEXIST) {
        fl_server_respond_error(r, 409, "AlreadyExistsException", "Namespace already exists: %s",
                                srv_ns_dotted(&ns, &r->arena));
        return;
    }
    if (rc == FL_ENOTFOUND) {
        fl_server_respond_error(r, 404, "NoSuchNamespaceException", "%s", err.msg);
        return;
    }
    if (rc != FL_OK) {
        srv_respond_status(r, rc, &err, NULL);
        return;
    }
    fl_ice_map shown = with_location(r, &ns, &props);
    srv_respond_json(r, 200, fl_rest_namespace_json(&ns, &shown));
}

static void h_load(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_namespace ns;
    fl_ice_map props;
    if (!srv_ns_param(r, "namespace", &ns) || !srv_authorize(r, FL_PRIV_READ, &ns, NULL) ||
        !load_ns(r, &ns, &props))
        return;
    fl_ice_map shown = with_location(r, &ns, &props);
    srv_respond_json(r, 200, fl_rest_namespace_json(&ns, &shown));
}

static void h_exists(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_namespace ns;
    if (!srv_ns_param(r, "namespace", &ns) || !srv_authorize(r, FL_PRIV_READ, &ns, NULL) ||
        !load_ns(r, &ns, NULL))
        return;
    fl_server_respond(r, 204, NULL, NULL, 0);
}

static void h_drop(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_namespace ns;
    if (!srv_ns_param(r, "namespace", &ns) || !srv_authorize(r, FL_PRIV_DROP, &ns, NULL))
        return;
    fl_catalog *c = srv_cat(r);
    fl_error err = {0};
    fl_status rc = c->ops->drop_namespace(c, &ns, &err);
    const char *name = srv_ns_dotted(&ns, &r->arena);
    srv_audit(r, "drop-namespace", name, rc == FL_OK ? "ok" : "error", rc ? err.msg : NULL);
    if (rc == FL_ENOTFOUND)
        fl_server_respond_error(r, 404, "NoSuchNamespaceException", "Namespace does not exist: %s",
                                name);
    else if (rc == FL_ECONFLICT)
        fl_server_respond_error(r, 409, "NamespaceNotEmptyException", "Namespace %s is not empty",
                                name);
    else if (rc != FL_OK)
        srv_respond_status(r, rc, &err, NULL);
    else
        fl_server_respond(r, 204, NULL, NULL, 0);
}

static void h_props(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_namespace ns;
    if (!srv_ns_param(r, "namespace", &ns) || !srv_authorize(r, FL_PRIV_WRITE, &ns, NULL))
        return;
    json_t *b = srv_body_json(r);
    if (!b)
        return;
    fl_rest_namespace_update nu;
    fl_error jerr = {0};
    if (!srv_codec_ok(r, fl_rest_update_namespace_request_from_json(b, &r->arena, &nu, &jerr),
                      &jerr)) {
        json_decref(b);
        return;
    }
    fl_ice_map set = nu.updates;
    size_t nrem = nu.nremovals;
    const char *const *removals = nu.removals;
    for (size_t i = 0; i < nrem; i++) {
        if (fl_ice_map_get(&set, removals[i])) {
            json_decref(b);
            fl_server_respond_error(r, 422, "UnprocessableEntityException",
                                    "cannot set and remove property '%s' at once", removals[i]);
            return;
        }
    }
    json_decref(b);
    const char *loc = fl_ice_map_get(&set, "location");
    fl_error err = {0};
    if (loc && srv_location_check(r->srv, loc, &err) != FL_OK) {
        srv_respond_status(r, FL_EFORBIDDEN, &err, NULL);
        return;
    }
    fl_ice_map before;
    if (!load_ns(r, &ns, &before))
        return;
    fl_catalog *c = srv_cat(r);
    fl_status rc = c->ops->update_namespace(c, &ns, &set, removals, (uint32_t)nrem, &err);
    srv_audit(r, "update-namespace-properties", srv_ns_dotted(&ns, &r->arena),
              rc == FL_OK ? "ok" : "error", rc ? err.msg : NULL);
    if (rc != FL_OK) {
        srv_respond_status(r, rc, &err, "NoSuchNamespaceException");
        return;
    }
    json_t *upd = json_array(), *removed = json_array(), *missing = json_array();
    for (uint32_t i = 0; i < set.n; i++)
        json_array_append_new(upd, json_string(set.items[i].key));
    for (size_t i = 0; i < nrem; i++)
        json_array_append_new(fl_ice_map_get(&before, removals[i]) ? removed : missing,
                              json_string(removals[i]));
    srv_respond_json(
        r, 200, json_pack("{s:o,s:o,s:o}", "updated", upd, "removed", removed, "missing", missing));
}

fl_status srv_routes_namespaces(fl_server *s, fl_error *err)
{
    const char *base = "/v1/{prefix}/namespaces", *one = "/v1/{prefix}/namespaces/{namespace}";
    FL_TRY(srv_router_add(&s->router, "GET", base, h_list, NULL, 0, err));
    FL_TRY(srv_router_add(&s->router, "POST", base, h_create, NULL, FL_ROUTE_MUTATION, err));
    FL_TRY(srv_router_add(&s->router, "GET", one, h_load, NULL, 0, err));
    FL_TRY(srv_router_add(&s->router, "HEAD", one, h_exists, NULL, 0, err));
    FL_TRY(srv_router_add(&s->router, "DELETE", one, h_drop, NULL, FL_ROUTE_MUTATION, err));
    return srv_router_add(&s->router, "POST", "/v1/{prefix}/namespaces/{namespace}/properties",
                          h_props, NULL, FL_ROUTE_MUTATION, err);
}
