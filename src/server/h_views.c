/*
 * h_views.c - view endpoints of the REST spec (views are Iceberg view
 * metadata files, include/floe/ice_view.h; the catalog records them with
 * iceberg_type = 'VIEW'):
 *   GET    /v1/{prefix}/namespaces/{namespace}/views           list (paginated)
 *   POST   /v1/{prefix}/namespaces/{namespace}/views           create (CreateViewRequest)
 *   GET    /v1/{prefix}/namespaces/{namespace}/views/{view}    LoadViewResult
 *   HEAD   ... /views/{view}                                    204 / 404
 *   POST   ... /views/{view}                                    replace (CommitViewRequest)
 *   DELETE ... /views/{view}                                    204 / 404
 *   POST   /v1/{prefix}/views/rename                            204 / 404 / 409
 *   POST   /v1/{prefix}/namespaces/{namespace}/register-view   LoadViewResult / 409
 *
 * Replace follows the table commit loop: load, check assert-view-uuid (409),
 * apply the updates (400), write a new metadata file, compare-and-swap the
 * pointer; a lost swap deletes the file and starts over. The routes are
 * only registered when the catalog stores views (SQLite / PostgreSQL).
 */
#include <stdlib.h>
#include <string.h>

#include "floe/ice_view.h"
#include "floe/rest.h"
#include "server/server_internal.h"

#define LBAD(...) fl_errorf(&err, FL_EINVAL, __VA_ARGS__)

static void no_such_view(fl_server_request *r, const fl_table_ident *id)
{
    fl_server_respond_error(r, 404, "NoSuchViewException", "View does not exist: %s.%s",
                            srv_ns_dotted(&id->ns, &r->arena), id->name);
}

static bool view_ident(fl_server_request *r, fl_table_ident *id)
{
    if (!srv_ns_param(r, "namespace", &id->ns))
        return false;
    id->name = fl_server_req_param(r, "view");
    return true;
}

static void respond_view(fl_server_request *r, const char *loc, const fl_ice_view_metadata *m)
{
    char *body = NULL;
    size_t len = 0;
    fl_error err = {0};
    if (fl_rest_load_view_result_json(loc, m, &body, &len, &err) != FL_OK) {
        srv_respond_status(r, FL_ENOMEM, &err, NULL);
        return;
    }
    fl_server_respond(r, 200, "application/json", body, len);
    free(body);
}

/* Whose rights the version runs with (ice_view.h): the authenticated
 * principal who sent it, whatever the client wrote; development mode
 * (anonymous) records nobody, which means invoker rights. */
static fl_status stamp_definer(fl_ice_view_version *v, const fl_principal *who, fl_arena *a,
                               fl_error *err)
{
    fl_ice_kv *kv = fl_arena_calloc(a, v->summary.n + 1, sizeof *kv);
    if (!kv)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t n = 0;
    for (uint32_t i = 0; i < v->summary.n; i++)
        if (strcmp(v->summary.items[i].key, FL_ICE_VIEW_DEFINER) != 0)
            kv[n++] = v->summary.items[i];
    if (who && !who->anonymous) {
        kv[n].key = FL_ICE_VIEW_DEFINER;
        kv[n++].value = fl_arena_strdup(a, who->name);
        if (!kv[n - 1].value)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    v->summary = (fl_ice_map){n, kv};
    return FL_OK;
}

static fl_status write_view(fl_catalog *c, const fl_table_ident *id, const fl_ice_view_metadata *m,
                            const char *base, fl_arena *a, const char **out, fl_error *err)
{
    const char *path;
    FL_TRY(c->ops->new_metadata_path(c, id, m->location, base, 0, a, &path, err));
    /* write.metadata.path (ViewProperties.WRITE_METADATA_LOCATION): the file
     * goes there, under the name the catalog chose; the folder passes the
     * location rules (roots, no other table's or view's folder) */
    const char *dir = fl_ice_map_get(&m->properties, "write.metadata.path");
    if (dir && *dir) {
        FL_TRY(srv_object_location_check(c, id, dir, err));
        const char *slash = strrchr(path, '/');
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/')
            n--;
        path = fl_arena_sprintf(a, "%.*s/%s", (int)n, dir, slash ? slash + 1 : path);
        if (!path)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    char *text = NULL;
    size_t len = 0;
    FL_TRY(fl_ice_view_metadata_write(m, &text, &len, err));
    fl_output *o = NULL;
    fl_status rc = fl_fileio_create(c->io, path, 0, &o, err);
    if (rc == FL_OK) {
        rc = fl_output_write(o, text, len, err);
        if (rc == FL_OK)
            rc = fl_output_close(o, err);
        else
            fl_output_abort(o);
    }
    free(text);
    *out = path;
    return rc;
}

static void h_list(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_namespace ns;
    if (!srv_ns_param(r, "namespace", &ns) || !srv_authorize_listing(r, &ns) ||
        !srv_ns_must_exist(r, &ns))
        return;
    fl_catalog *c = srv_cat(r);
    const char **names = NULL;
    uint32_t n = 0;
    fl_error err = {0};
    fl_status rc = c->ops->list_views(c, &ns, &r->arena, &names, &n, &err);
    if (rc != FL_OK) {
        srv_respond_status(r, rc, &err, "NoSuchNamespaceException");
        return;
    }
    n = srv_filter_visible(r, &ns, names, n);
    uint32_t start, count;
    const char *next;
    if (!srv_page(r, names, n, &start, &count, &next))
        return;
    srv_respond_json(r, 200,
                     fl_rest_identifiers_json(&ns, names ? names + start : NULL, count, next));
}

static void h_create(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_table_ident id;
    if (!srv_ns_param(r, "namespace", &id.ns) || !srv_authorize(r, FL_PRIV_CREATE, &id.ns, NULL))
        return;
    json_t *b = srv_body_json(r);
    if (!b)
        return;
    fl_error err = {0};
    fl_ice_view_update u[5];
    memset(u, 0, sizeof u);
    uint32_t n = 0;
    fl_rest_create_view_request q;
    fl_status rc = fl_rest_create_view_request_from_json(b, &r->arena, &q, &err);
    if (rc != FL_OK) { /* the codec's errors: 400, or Java's IllegalArgumentException */
        json_decref(b);
        srv_codec_ok(r, rc, &err);
        return;
    }
    id.name = q.name;
    fl_ice_schema *sch = &q.schema;
    fl_ice_view_version *v = q.version;
    fl_ice_map props = q.properties;
    const char *loc = q.location;
    rc = stamp_definer(v, &r->principal, &r->arena, &err);
    if (rc == FL_OK)
        rc = srv_view_reads_check(r, v, &err);
    if (rc == FL_OK) {
        if (!loc) {
            fl_catalog tmp = {.warehouse = r->srv->warehouse};
            loc = fl_catalog_default_location(&tmp, &id, &r->arena);
        }
        rc = srv_object_location_check(srv_cat(r), &id, loc, &err);
    }
    json_decref(b);
    if (rc != FL_OK) {
        srv_respond_status(r, rc, &err, NULL);
        return;
    }
    if (!srv_ns_must_exist(r, &id.ns))
        return;
    v->schema_id = -1;
    u[n++] = (fl_ice_view_update){.kind = FL_ICE_VIEW_UPD_SET_LOCATION, .location = loc};
    u[n++] = (fl_ice_view_update){.kind = FL_ICE_VIEW_UPD_ADD_SCHEMA, .schema = sch};
    u[n++] = (fl_ice_view_update){.kind = FL_ICE_VIEW_UPD_ADD_VERSION, .version = v};
    u[n++] = (fl_ice_view_update){.kind = FL_ICE_VIEW_UPD_SET_CURRENT_VERSION, .version_id = -1};
    if (props.n)
        u[n++] = (fl_ice_view_update){.kind = FL_ICE_VIEW_UPD_SET_PROPERTIES, .properties = props};
    fl_ice_view_metadata m;
    rc = fl_ice_view_metadata_apply(NULL, u, n, srv_now_ms(), &r->arena, &m, NULL, &err);
    fl_catalog *cat = srv_cat(r);
    const char *path = NULL;
    if (rc == FL_OK && srv_name_taken(r, &id, true))
        return;
    if (rc == FL_OK)
        rc = write_view(cat, &id, &m, NULL, &r->arena, &path, &err);
    if (rc == FL_OK)
        rc = cat->ops->create_view(cat, &id, path, &err);
    const char *target =
        fl_arena_sprintf(&r->arena, "%s.%s", srv_ns_dotted(&id.ns, &r->arena), id.name);
    srv_audit(r, "create-view", target, rc == FL_OK ? "ok" : "error", rc ? err.msg : NULL);
    if (rc != FL_OK) {
        if (path) {
            fl_error e2 = {0};
            fl_fileio_remove(cat->io, path, &e2);
        }
        if (rc == FL_EEXIST) /* created concurrently */
            fl_server_respond_error(r, 409, "AlreadyExistsException", "View already exists: %s",
                                    target);
        else
            srv_respond_status(r, rc, &err, "NoSuchNamespaceException");
        return;
    }
    respond_view(r, path, &m);
}

static bool load_view(fl_server_request *r, const fl_table_ident *id, const char **loc,
                      fl_ice_view_metadata *m, fl_arena *a)
{
    fl_catalog *c = srv_cat(r);
    fl_error err = {0};
    fl_status rc = c->ops->load_view(c, id, a, loc, &err);
    if (rc == FL_ENOTFOUND) { /* also when the namespace is missing (the Java reference) */
        no_such_view(r, id);
        return false;
    }
    if (rc == FL_OK && m)
        rc = fl_ice_view_metadata_read(c->io, *loc, a, m, &err);
    if (rc != FL_OK) {
        srv_respond_status(r, rc == FL_ENOTFOUND ? FL_EIO : rc, &err, NULL);
        return false;
    }
    return true;
}

static void h_load(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_table_ident id;
    const char *loc;
    fl_ice_view_metadata m;
    if (!view_ident(r, &id) || !srv_authorize(r, FL_PRIV_READ, &id.ns, id.name) ||
        !load_view(r, &id, &loc, &m, &r->arena))
        return;
    respond_view(r, loc, &m);
}

static void h_exists(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_table_ident id;
    const char *loc;
    if (!view_ident(r, &id) || !srv_authorize(r, FL_PRIV_READ, &id.ns, id.name) ||
        !load_view(r, &id, &loc, NULL, &r->arena))
        return;
    fl_server_respond(r, 204, NULL, NULL, 0);
}

static void h_drop(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_table_ident id;
    if (!view_ident(r, &id) || !srv_authorize(r, FL_PRIV_DROP, &id.ns, id.name))
        return;
    fl_catalog *c = srv_cat(r);
    fl_error err = {0};
    fl_status rc = c->ops->drop_view(c, &id, &err);
    srv_audit(r, "drop-view",
              fl_arena_sprintf(&r->arena, "%s.%s", srv_ns_dotted(&id.ns, &r->arena), id.name),
              rc == FL_OK ? "ok" : "error", rc ? err.msg : NULL);
    if (rc == FL_ENOTFOUND) {
        if (srv_ns_must_exist(r, &id.ns))
            no_such_view(r, &id);
    } else if (rc != FL_OK) {
        srv_respond_status(r, rc, &err, NULL);
    } else {
        fl_server_respond(r, 204, NULL, NULL, 0);
    }
}

/* Making an older version current again runs its SQL with its definer's
 * rights: only that definer or an admin may do so. Versions added by this
 * request carry the requester as definer. */
static bool current_version_allowed(fl_server_request *r, const fl_ice_view_metadata *cur,
                                    const fl_ice_view_metadata *m)
{
    if (m->current_version_id == cur->current_version_id || r->principal.admin)
        return true;
    const fl_ice_view_version *v = fl_ice_view_current_version(m);
    const char *d = v ? fl_ice_map_get(&v->summary, FL_ICE_VIEW_DEFINER) : NULL;
    const char *sec = v ? fl_ice_map_get(&v->summary, FL_ICE_VIEW_SECURITY) : NULL;
    if (!d || (sec && !strcasecmp(sec, "invoker")))
        return true; /* invoker rights: never more than the reader holds */
    return !strcmp(d, r->principal.name);
}

static void h_replace(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_table_ident id;
    if (!view_ident(r, &id) || !srv_authorize(r, FL_PRIV_WRITE, &id.ns, id.name))
        return;
    json_t *b = srv_body_json(r);
    if (!b)
        return;
    fl_error err = {0};
    fl_rest_view_commit_request q;
    fl_status rc = fl_rest_view_commit_request_from_json(b, &r->arena, &q, &err);
    if (rc != FL_OK) {
        json_decref(b);
        srv_codec_ok(r, rc, &err);
        return;
    }
    const char *want_uuid = q.assert_uuid;
    fl_ice_view_update *u = q.updates;
    size_t nu = q.nupdates;
    for (size_t i = 0; rc == FL_OK && i < nu; i++) {
        if (q.added[i])
            rc = stamp_definer(q.added[i], &r->principal, &r->arena, &err);
        if (rc == FL_OK && u[i].kind == FL_ICE_VIEW_UPD_ADD_VERSION)
            rc = srv_view_reads_check(r, u[i].version, &err);
        if (rc == FL_OK && u[i].kind == FL_ICE_VIEW_UPD_SET_LOCATION)
            rc = srv_object_location_check(srv_cat(r), &id, u[i].location, &err);
    }
    json_decref(b);
    if (rc != FL_OK) {
        srv_respond_status(r, rc, &err, NULL);
        return;
    }
    fl_catalog *c = srv_cat(r);
    const char *target =
        fl_arena_sprintf(&r->arena, "%s.%s", srv_ns_dotted(&id.ns, &r->arena), id.name);
    fl_arena a;
    fl_arena_init(&a, 65536);
    uint32_t stripe = srv_stripe_of(&id);
    srv_stripe_lock(r->srv->cache, stripe);
    for (int attempt = 0; attempt < 64; attempt++) {
        fl_arena_reset(&a);
        const char *loc, *path = NULL;
        fl_ice_view_metadata cur, m;
        bool changed = false;
        if (!load_view(r, &id, &loc, &cur, &a))
            break;
        if (want_uuid && strcasecmp(want_uuid, cur.view_uuid) != 0) {
            srv_audit(r, "replace-view", target, "conflict", "view uuid changed");
            fl_server_respond_error(r, 409, "CommitFailedException",
                                    "Requirement failed: view uuid changed: expected %s, found %s",
                                    want_uuid, cur.view_uuid);
            break;
        }
        rc =
            fl_ice_view_metadata_apply(&cur, u, (uint32_t)nu, srv_now_ms(), &a, &m, &changed, &err);
        if (rc == FL_OK && !current_version_allowed(r, &cur, &m)) {
            srv_audit(r, "replace-view", target, "denied", "older version of another definer");
            fl_server_respond_error(r, 403, "ForbiddenException",
                                    "the view's new current version was defined by another "
                                    "principal: only an admin may make it current again");
            break;
        }
        if (rc == FL_OK && !changed) {
            respond_view(r, loc, &cur);
            break;
        }
        if (rc == FL_OK)
            rc = write_view(c, &id, &m, loc, &a, &path, &err);
        if (rc == FL_OK)
            rc = c->ops->commit_view(c, &id, loc, path, &err);
        if (rc == FL_OK) {
            srv_audit(r, "replace-view", target, "ok", path);
            respond_view(r, path, &m);
            break;
        }
        if (path) {
            fl_error e2 = {0};
            fl_fileio_remove(c->io, path, &e2);
        }
        if (rc == FL_ECONFLICT)
            continue;
        srv_audit(r, "replace-view", target, "error", err.msg);
        if (rc == FL_ENOTFOUND)
            no_such_view(r, &id);
        else
            srv_respond_status(r, rc, &err, NULL);
        break;
    }
    srv_stripe_unlock(r->srv->cache, stripe);
    if (!r->responded)
        fl_server_respond_error(r, 409, "CommitFailedException", "view commit lost 64 races");
    fl_arena_free(&a);
}

static void h_rename(fl_server_request *r, void *ctx)
{
    (void)ctx;
    srv_rename(r, true);
}

/* A registered file keeps the definers it names, so a definer version may
 * only name the sender (invoker versions anyone) unless the sender is an admin:
 * otherwise anyone could register a view running as someone else. */
static bool definers_allowed(fl_server_request *r, const fl_ice_view_metadata *m)
{
    if (r->principal.admin)
        return true;
    for (uint32_t i = 0; i < m->nversions; i++) {
        const char *d = fl_ice_map_get(&m->versions[i].summary, FL_ICE_VIEW_DEFINER);
        const char *sec = fl_ice_map_get(&m->versions[i].summary, FL_ICE_VIEW_SECURITY);
        if (sec && !strcasecmp(sec, "invoker"))
            continue; /* runs with the reader's rights, whoever wrote it */
        if (d && (r->principal.anonymous || strcmp(d, r->principal.name) != 0))
            return false;
    }
    return true;
}

/* The metadata file must lie inside the location it declares (as for
 * register-table), and that location pass the view location rules. */
static fl_status register_view_check(fl_server_request *r, const fl_table_ident *id,
                                     const char *mloc, const fl_ice_view_metadata *m, fl_error *err)
{
    size_t n = m->location ? strlen(m->location) : 0;
    while (n > 1 && m->location[n - 1] == '/')
        n--;
    if (!n || strncmp(mloc, m->location, n) != 0 || mloc[n] != '/')
        return fl_errorf(err, FL_EFORBIDDEN,
                         "view metadata file '%s' is not inside its location '%s'", mloc,
                         m->location ? m->location : "");
    FL_TRY(srv_location_check(r->srv, m->location, err));
    FL_TRY(srv_object_location_check(srv_cat(r), id, m->location, err));
    if (!definers_allowed(r, m))
        return fl_errorf(err, FL_EFORBIDDEN,
                         "view metadata names another principal as definer: only an admin may "
                         "register it");
    const fl_ice_view_version *v = fl_ice_view_current_version(m);
    if (!v)
        return fl_errorf(err, FL_EINVAL, "view metadata has no current version");
    return srv_view_reads_check(r, v, err);
}

static void h_register(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_table_ident id;
    if (!srv_ns_param(r, "namespace", &id.ns) || !srv_authorize(r, FL_PRIV_CREATE, &id.ns, NULL))
        return;
    json_t *b = srv_body_json(r);
    if (!b)
        return;
    fl_rest_register_request q;
    fl_error err = {0};
    bool ok = srv_codec_ok(r, fl_rest_register_request_from_json(b, &r->arena, &q, &err), &err);
    json_decref(b);
    if (!ok)
        return;
    if (q.overwrite) {
        fl_server_respond_error(r, 400, "BadRequestException",
                                "register-view has no 'overwrite' (RegisterViewRequest)");
        return;
    }
    id.name = q.name;
    if (srv_location_check(r->srv, q.metadata_location, &err) != FL_OK) {
        srv_respond_status(r, FL_EFORBIDDEN, &err, NULL);
        return;
    }
    if (!srv_ns_must_exist(r, &id.ns) || srv_name_taken(r, &id, true))
        return;
    fl_catalog *c = srv_cat(r);
    const char *target =
        fl_arena_sprintf(&r->arena, "%s.%s", srv_ns_dotted(&id.ns, &r->arena), id.name);
    fl_ice_view_metadata m;
    fl_status rc = fl_ice_view_metadata_read(c->io, q.metadata_location, &r->arena, &m, &err);
    if (rc == FL_ENOTFOUND) {
        fl_server_respond_error(r, 404, "NotFoundException", "metadata file not found: %s",
                                q.metadata_location);
        return;
    }
    if (rc == FL_OK)
        rc = register_view_check(r, &id, q.metadata_location, &m, &err);
    if (rc == FL_OK)
        rc = c->ops->create_view(c, &id, q.metadata_location, &err);
    srv_audit(r, "register-view", target,
              rc == FL_OK           ? "ok"
              : rc == FL_EFORBIDDEN ? "denied"
                                    : "error",
              rc ? err.msg : NULL);
    if (rc == FL_EEXIST)
        fl_server_respond_error(r, 409, "AlreadyExistsException", "View already exists: %s",
                                target);
    else if (rc != FL_OK)
        srv_respond_status(r, rc, &err, "NoSuchNamespaceException");
    else
        respond_view(r, q.metadata_location, &m);
}

fl_status srv_routes_views(fl_server *s, fl_error *err)
{
    fl_catalog *c = s->pool.nfree ? s->pool.free[0] : NULL;
    if (!c || !c->ops->load_view)
        return FL_OK; /* this catalog cannot store views: not advertised */
    const char *base = "/v1/{prefix}/namespaces/{namespace}/views";
    const char *one = "/v1/{prefix}/namespaces/{namespace}/views/{view}";
    FL_TRY(srv_router_add(&s->router, "GET", base, h_list, NULL, 0, err));
    FL_TRY(srv_router_add(&s->router, "POST", base, h_create, NULL, FL_ROUTE_MUTATION, err));
    FL_TRY(srv_router_add(&s->router, "GET", one, h_load, NULL, 0, err));
    FL_TRY(srv_router_add(&s->router, "HEAD", one, h_exists, NULL, 0, err));
    FL_TRY(srv_router_add(&s->router, "POST", one, h_replace, NULL, FL_ROUTE_MUTATION, err));
    FL_TRY(srv_router_add(&s->router, "DELETE", one, h_drop, NULL, FL_ROUTE_MUTATION, err));
    FL_TRY(srv_router_add(&s->router, "POST", "/v1/{prefix}/namespaces/{namespace}/register-view",
                          h_register, NULL, FL_ROUTE_MUTATION, err));
    return srv_router_add(&s->router, "POST", "/v1/{prefix}/views/rename", h_rename, NULL,
                          FL_ROUTE_MUTATION, err);
}
