/*
 * h_tables.c - table endpoints of the REST spec (commits are in h_commit.c):
 *   GET    /v1/{prefix}/namespaces/{namespace}/tables           list (paginated)
 *   POST   /v1/{prefix}/namespaces/{namespace}/tables           create (stage-create too)
 *   GET    /v1/{prefix}/namespaces/{namespace}/tables/{table}   load (?snapshots=all|refs;
 *                                                               ETag / If-None-Match -> 304)
 *   HEAD   ... /tables/{table}                                   204 / 404
 *   DELETE ... /tables/{table}[?purgeRequested=true]             204 / 404
 *   POST   /v1/{prefix}/tables/rename                            204 / 404 / 409
 *   POST   /v1/{prefix}/namespaces/{namespace}/register          LoadTableResult
 *   POST   ... /tables/{table}/metrics                           204 (recorded)
 *
 * Confinement (src/iceberg/confine.c): a created table's location must be
 * inside the warehouse (or an allowed root), not a root, not over the
 * catalog database, and overlap no other table or view; register also
 * needs the metadata file inside the location it declares (so another
 * table's metadata cannot be registered). Refusals are 403 and audited.
 *
 * LoadTableResult bodies are assembled as text around the metadata JSON that
 * fl_ice_metadata_write() produces (no second JSON tree on the hot load
 * path). The ETag is a hash of the metadata location and the snapshots
 * mode: the metadata file at a location never changes, so equal ETags mean
 * equal bodies.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/rest.h"
#include "server/server_internal.h"

static bool table_ident(fl_server_request *r, fl_table_ident *id)
{
    if (!srv_ns_param(r, "namespace", &id->ns))
        return false;
    id->name = fl_server_req_param(r, "table");
    if (!id->name)
        id->name = fl_server_req_param(r, "view");
    return true;
}

void srv_no_such_table(fl_server_request *r, const fl_table_ident *id)
{
    fl_server_respond_error(r, 404, "NoSuchTableException", "Table does not exist: %s.%s",
                            srv_ns_dotted(&id->ns, &r->arena), id->name);
}

/* LoadTableResult text (malloc'd) for metadata m at location (NULL = staged). */
char *srv_table_result_text(const char *location, const fl_ice_metadata *m, size_t *out_len,
                            fl_error *err)
{
    char *body = NULL;
    return fl_rest_load_result_json(location, m, &body, out_len, err) == FL_OK ? body : NULL;
}

static void respond_body(fl_server_request *r, int status, char *body, size_t len)
{
    r->responded = true;
    r->status = status;
    r->content_type = "application/json";
    r->resp_body = body;
    r->resp_len = len;
}

/* Responds with a LoadTableResult as text; id's storage settings (remote
 * signing, when asked for) go in its config. */
static void respond_table(fl_server_request *r, int status, const fl_table_ident *id,
                          const char *location, const fl_ice_metadata *m)
{
    fl_error err = {0};
    size_t len = 0;
    char *body = NULL;
    const char *config = srv_remote_signing_config(r, id, m->location);
    if (fl_rest_load_result_config_json(location, m, config, &body, &len, &err) != FL_OK)
        body = NULL;
    if (!body) {
        srv_respond_status(r, err.code == FL_ENOMEM ? FL_ENOMEM : FL_EIO, &err, NULL);
        return;
    }
    respond_body(r, status, body, len);
}

/* Current metadata of a table: 404s and errors are responded. */
bool srv_load_meta(fl_server_request *r, fl_catalog *c, const fl_table_ident *id, const char **loc,
                   fl_ice_metadata *m)
{
    fl_error err = {0};
    fl_status rc = c->ops->load_table(c, id, &r->arena, loc, &err);
    if (rc == FL_ENOTFOUND) {
        srv_no_such_table(r, id);
        return false;
    }
    if (rc == FL_OK)
        rc = fl_ice_metadata_read(c->io ? c->io : r->srv->io, *loc, &r->arena, m, &err);
    if (rc != FL_OK) {
        srv_respond_status(r, rc == FL_ENOTFOUND ? FL_EIO : rc, &err, NULL);
        return false;
    }
    return true;
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
    fl_status rc = c->ops->list_tables(c, &ns, &r->arena, &names, &n, &err);
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

fl_status srv_write_metadata(fl_catalog *c, const fl_table_ident *id, const fl_ice_metadata *m,
                             const char *base_location, fl_arena *a, const char **out,
                             fl_error *err)
{
    const char *path;
    FL_TRY(c->ops->new_metadata_path(c, id, m->location, base_location, 0, a, &path, err));
    char *text = NULL;
    size_t len = 0;
    FL_TRY(fl_ice_metadata_write(m, 0, &text, &len, err));
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
    if (rc == FL_OK)
        *out = path;
    return rc;
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
    id.name = json_string_value(json_object_get(b, "name"));
    if (!id.name || !*id.name) {
        json_decref(b);
        fl_server_respond_error(r, 400, "BadRequestException", "name: missing");
        return;
    }
    id.name = fl_arena_strdup(&r->arena, id.name);
    bool stage = json_is_true(json_object_get(b, "stage-create"));
    const char *target =
        fl_arena_sprintf(&r->arena, "%s.%s", srv_ns_dotted(&id.ns, &r->arena), id.name);
    if (!srv_ns_must_exist(r, &id.ns)) {
        json_decref(b);
        return;
    }
    fl_catalog *c = srv_cat(r);
    fl_error err = {0};
    if (srv_name_taken(r, &id, false)) {
        json_decref(b);
        return;
    }
    fl_ice_metadata m;
    bool asked = json_string_value(json_object_get(b, "location")) != NULL;
    fl_status rc =
        srv_new_table_metadata(r->srv, &id, srv_ns_location(r, &id.ns), b, &r->arena, &m, &err);
    json_decref(b);
    if (rc == FL_OK) /* confinement: roots, no overlap, write.*.path inside */
        rc = srv_object_location_check(c, &id, m.location, &err);
    if (rc == FL_EFORBIDDEN && !asked && m.table_uuid) {
        /* the default folder is taken (a table renamed away keeps its folder):
         * a folder of its own beside it, never one shared with the other */
        fl_error_clear(&err);
        m.location = fl_arena_sprintf(&r->arena, "%s-%.8s", m.location, m.table_uuid);
        rc = m.location ? srv_object_location_check(c, &id, m.location, &err)
                        : fl_errorf(&err, FL_ENOMEM, "out of memory");
    }
    if (rc == FL_OK)
        rc = fl_ice_write_paths_check(&m, &err);
    if (rc != FL_OK) {
        srv_audit(r, "create-table", target, rc == FL_EFORBIDDEN ? "denied" : "error", err.msg);
        srv_respond_status(r, rc, &err, NULL);
        return;
    }
    if (stage) {
        respond_table(r, 200, &id, NULL, &m);
        return;
    }
    const char *loc;
    rc = srv_write_metadata(c, &id, &m, NULL, &r->arena, &loc, &err);
    if (rc == FL_OK)
        rc = c->ops->create_table(c, &id, loc, &err);
    srv_audit(r, "create-table", target, rc == FL_OK ? "ok" : "error", rc ? err.msg : NULL);
    if (rc == FL_EEXIST) {
        fl_server_respond_error(r, 409, "AlreadyExistsException", "Table already exists: %s",
                                target);
        return;
    }
    if (rc != FL_OK) {
        srv_respond_status(r, rc, &err, "NoSuchNamespaceException");
        return;
    }
    respond_table(r, 200, &id, loc, &m);
}

bool srv_name_taken(fl_server_request *r, const fl_table_ident *id, bool for_view)
{
    fl_catalog *c = srv_cat(r);
    fl_error err = {0};
    const char *loc;
    const char *target =
        fl_arena_sprintf(&r->arena, "%s.%s", srv_ns_dotted(&id->ns, &r->arena), id->name);
    if (c->ops->load_table(c, id, &r->arena, &loc, &err) == FL_OK) {
        fl_server_respond_error(r, 409, "AlreadyExistsException", "%s already exists: %s",
                                for_view ? "Table with same name" : "Table", target);
        return true;
    }
    if (c->ops->load_view && c->ops->load_view(c, id, &r->arena, &loc, &err) == FL_OK) {
        fl_server_respond_error(r, 409, "AlreadyExistsException", "%s already exists: %s",
                                for_view ? "View" : "View with same name", target);
        return true;
    }
    return false;
}

static uint64_t fnv1a(const char *s, uint64_t h)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void h_load(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_table_ident id;
    if (!table_ident(r, &id) || !srv_authorize(r, FL_PRIV_READ, &id.ns, id.name))
        return;
    const char *mode = fl_server_req_query(r, "snapshots");
    if (mode && strcmp(mode, "all") != 0 && strcmp(mode, "refs") != 0) {
        fl_server_respond_error(r, 400, "BadRequestException",
                                "snapshots must be 'all' or 'refs', got '%.40s'", mode);
        return;
    }
    bool refs = mode && !strcmp(mode, "refs");
    fl_catalog *c = srv_cat(r);
    const char *loc;
    fl_error err = {0};
    fl_status rc = c->ops->load_table(c, &id, &r->arena, &loc, &err);
    if (rc == FL_ENOTFOUND) { /* also when the namespace is missing, as the Java reference
                               * answers (clients then try a metadata table: ns.t.files) */
        srv_no_such_table(r, &id);
        return;
    }
    if (rc != FL_OK) {
        srv_respond_status(r, rc, &err, NULL);
        return;
    }
    /* the file must still be there, also when the answer comes from the cache
     * or is a 304: a table whose metadata file is gone is 404 (one open, a
     * HEAD on S3; the Java reference reads the file every time) */
    fl_file *probe = NULL;
    rc = fl_fileio_open(c->io, loc, &probe, &err);
    fl_file_close(probe);
    if (rc == FL_ENOTFOUND) {
        fl_server_respond_error(r, 404, "NotFoundException",
                                "Failed to open input stream for file: %s", loc);
        return;
    }
    snprintf(r->etag, sizeof r->etag, "\"%016" PRIx64 "\"",
             fnv1a(refs ? "refs" : "all", fnv1a(loc, 1469598103934665603ull)));
    const char *inm = fl_server_req_header(r, "If-None-Match");
    if (inm && (strstr(inm, r->etag) || !strcmp(inm, "*"))) {
        fl_server_respond(r, 304, NULL, NULL, 0);
        return;
    }
    /* with remote signing the config names the signer at the request's host: in the key */
    const char *host =
        srv_delegation_asked(r, "remote-signing") ? fl_server_req_header(r, "Host") : NULL;
    const char *key =
        fl_arena_sprintf(&r->arena, "%s\n%s\n%s", refs ? "refs" : "all", loc, host ? host : "");
    char *cached = NULL;
    size_t clen = 0;
    if (key && srv_cache_get(r->srv->cache, key, &cached, &clen)) {
        respond_body(r, 200, cached, clen);
        return;
    }
    fl_ice_metadata m;
    rc = fl_ice_metadata_read(c->io, loc, &r->arena, &m, &err);
    if (rc == FL_ENOTFOUND) {
        fl_server_respond_error(r, 404, "NotFoundException",
                                "Failed to open input stream for file: %s", loc);
        return;
    }
    if (rc != FL_OK) {
        srv_respond_status(r, FL_EIO, &err, NULL);
        return;
    }
    if (refs) { /* only snapshots some ref points at */
        uint32_t k = 0;
        fl_ice_snapshot *keep = fl_arena_calloc(&r->arena, m.nsnapshots + 1, sizeof *keep);
        for (uint32_t i = 0; keep && i < m.nsnapshots; i++)
            for (uint32_t j = 0; j < m.nrefs; j++)
                if (m.refs[j].snapshot_id == m.snapshots[i].snapshot_id) {
                    keep[k++] = m.snapshots[i];
                    break;
                }
        if (keep) {
            m.snapshots = keep;
            m.nsnapshots = k;
        }
    }
    respond_table(r, 200, &id, loc, &m);
    if (key && r->status == 200)
        srv_cache_put(r->srv->cache, key, r->resp_body, r->resp_len);
}

static void h_exists(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_table_ident id;
    if (!table_ident(r, &id) || !srv_authorize(r, FL_PRIV_READ, &id.ns, id.name))
        return;
    fl_catalog *c = srv_cat(r);
    const char *loc;
    fl_error err = {0};
    fl_status rc = c->ops->load_table(c, &id, &r->arena, &loc, &err);
    if (rc == FL_ENOTFOUND)
        srv_no_such_table(r, &id);
    else if (rc != FL_OK)
        srv_respond_status(r, rc, &err, NULL);
    else
        fl_server_respond(r, 204, NULL, NULL, 0);
}

static void h_drop(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_table_ident id;
    if (!table_ident(r, &id) || !srv_authorize(r, FL_PRIV_DROP, &id.ns, id.name))
        return;
    const char *p = fl_server_req_query(r, "purgeRequested");
    bool purge = p && !strcmp(p, "true");
    fl_catalog *c = srv_cat(r);
    fl_error err = {0};
    fl_status rc = fl_ice_table_drop(c, &id, purge, &err);
    const char *target =
        fl_arena_sprintf(&r->arena, "%s.%s", srv_ns_dotted(&id.ns, &r->arena), id.name);
    srv_audit(r, purge ? "drop-table-purge" : "drop-table", target, rc == FL_OK ? "ok" : "error",
              rc ? err.msg : NULL);
    if (rc == FL_ENOTFOUND)
        srv_no_such_table(r, &id);
    else if (rc != FL_OK)
        srv_respond_status(r, rc, &err, NULL);
    else
        fl_server_respond(r, 204, NULL, NULL, 0);
}

void srv_rename(fl_server_request *r, bool view)
{
    json_t *b = srv_body_json(r);
    if (!b)
        return;
    fl_table_ident from, to;
    fl_error jerr = {0};
    bool ok =
        srv_codec_ok(r, fl_rest_rename_request_from_json(b, &r->arena, &from, &to, &jerr), &jerr);
    json_decref(b);
    if (!ok || !srv_authorize(r, FL_PRIV_DROP, &from.ns, from.name) ||
        !srv_authorize(r, FL_PRIV_CREATE, &to.ns, NULL))
        return;
    fl_catalog *c = srv_cat(r);
    fl_error err = {0};
    const char *loc;
    fl_status rc = view ? (c->ops->load_view ? c->ops->load_view(c, &from, &r->arena, &loc, &err)
                                             : FL_EUNSUPPORTED)
                        : c->ops->load_table(c, &from, &r->arena, &loc, &err);
    if (rc == FL_ENOTFOUND) {
        if (!srv_ns_must_exist(r, &from.ns))
            return;
        fl_server_respond_error(r, 404, view ? "NoSuchViewException" : "NoSuchTableException",
                                "%s does not exist: %s.%s", view ? "View" : "Table",
                                srv_ns_dotted(&from.ns, &r->arena), from.name);
        return;
    }
    if (rc == FL_OK && !srv_ns_must_exist(r, &to.ns))
        return;
    if (rc == FL_OK)
        rc = view ? c->ops->rename_view(c, &from, &to, &err)
                  : c->ops->rename_table(c, &from, &to, &err);
    const char *target =
        fl_arena_sprintf(&r->arena, "%s.%s -> %s.%s", srv_ns_dotted(&from.ns, &r->arena), from.name,
                         srv_ns_dotted(&to.ns, &r->arena), to.name);
    srv_audit(r, view ? "rename-view" : "rename-table", target, rc == FL_OK ? "ok" : "error",
              rc ? err.msg : NULL);
    if (rc == FL_EEXIST) { /* the Java reference's words */
        const char *tl;
        fl_error e2 = {0};
        bool table = c->ops->load_table(c, &to, &r->arena, &tl, &e2) == FL_OK;
        fl_server_respond_error(
            r, 409, "AlreadyExistsException", "Cannot rename %s.%s to %s.%s. %s already exists",
            srv_ns_dotted(&from.ns, &r->arena), from.name, srv_ns_dotted(&to.ns, &r->arena),
            to.name, table ? "Table" : "View");
    } else if (rc != FL_OK)
        srv_respond_status(r, rc, &err, view ? "NoSuchViewException" : "NoSuchTableException");
    else
        fl_server_respond(r, 204, NULL, NULL, 0);
}

static void h_rename(fl_server_request *r, void *ctx)
{
    (void)ctx;
    srv_rename(r, false);
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
    fl_error jerr = {0};
    bool ok = srv_codec_ok(r, fl_rest_register_request_from_json(b, &r->arena, &q, &jerr), &jerr);
    json_decref(b);
    if (!ok)
        return;
    id.name = q.name;
    const char *mloc = q.metadata_location;
    bool overwrite = q.overwrite;
    fl_error err = {0};
    if (srv_location_check(r->srv, mloc, &err) != FL_OK) {
        srv_respond_status(r, FL_EFORBIDDEN, &err, NULL);
        return;
    }
    if (!srv_ns_must_exist(r, &id.ns))
        return;
    fl_catalog *c = srv_cat(r);
    const char *vloc;
    if (!overwrite
            ? srv_name_taken(r, &id, false)
            : c->ops->load_view && c->ops->load_view(c, &id, &r->arena, &vloc, &err) == FL_OK &&
                  srv_name_taken(r, &id, false))
        return;
    fl_ice_metadata m;
    fl_status rc = fl_ice_metadata_read(c->io, mloc, &r->arena, &m, &err);
    if (rc == FL_ENOTFOUND) {
        fl_server_respond_error(r, 404, "NotFoundException", "metadata file not found: %s", mloc);
        return;
    }
    if (rc == FL_OK)
        rc = srv_location_check(r->srv, m.location, &err);
    /* the metadata file inside the location it declares, and that location
     * no other table's (registering another table's metadata would let this
     * principal read or purge that table) */
    if (rc == FL_OK)
        rc = fl_ice_register_check(c, &id, mloc, &m, &err);
    if (rc == FL_OK)
        rc = fl_ice_write_paths_check(&m, &err);
    if (rc != FL_OK) {
        const char *target =
            fl_arena_sprintf(&r->arena, "%s.%s", srv_ns_dotted(&id.ns, &r->arena), id.name);
        srv_audit(r, "register-table", target, rc == FL_EFORBIDDEN ? "denied" : "error", err.msg);
        srv_respond_status(r, rc == FL_EFORBIDDEN ? rc : FL_EINVAL, &err, NULL);
        return;
    }
    const char *cur;
    if (overwrite && c->ops->load_table(c, &id, &r->arena, &cur, &err) == FL_OK)
        rc = c->ops->commit_table(c, &id, cur, mloc, &err);
    else
        rc = c->ops->create_table(c, &id, mloc, &err);
    const char *target =
        fl_arena_sprintf(&r->arena, "%s.%s", srv_ns_dotted(&id.ns, &r->arena), id.name);
    srv_audit(r, "register-table", target, rc == FL_OK ? "ok" : "error", rc ? err.msg : NULL);
    if (rc == FL_EEXIST) {
        fl_server_respond_error(r, 409, "AlreadyExistsException", "Table already exists: %s",
                                target);
        return;
    }
    if (rc != FL_OK) {
        srv_respond_status(r, rc, &err, "NoSuchNamespaceException");
        return;
    }
    respond_table(r, 200, &id, mloc, &m);
}

static void h_report(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_table_ident id;
    if (!table_ident(r, &id) || !srv_authorize(r, FL_PRIV_READ, &id.ns, id.name))
        return;
    json_t *b = srv_body_json(r);
    if (!b)
        return;
    const char *type = json_string_value(json_object_get(b, "report-type"));
    const char *tname = json_string_value(json_object_get(b, "table-name"));
    json_t *snap = json_object_get(b, "snapshot-id");
    bool ok = type && tname && json_is_integer(snap) &&
              (!strcmp(type, "scan-report") || !strcmp(type, "commit-report"));
    if (ok && !strcmp(type, "scan-report"))
        ok = json_is_object(json_object_get(b, "metrics")) && json_object_get(b, "filter") &&
             json_is_array(json_object_get(b, "projected-field-ids"));
    if (ok && !strcmp(type, "commit-report"))
        ok = json_is_integer(json_object_get(b, "sequence-number")) &&
             json_is_string(json_object_get(b, "operation")) &&
             json_is_object(json_object_get(b, "metrics"));
    if (!ok) {
        json_decref(b);
        fl_server_respond_error(r, 400, "BadRequestException",
                                "not a ScanReport or CommitReport (report-type, table-name, "
                                "snapshot-id, metrics... required)");
        return;
    }
    fl_catalog *c = srv_cat(r);
    const char *loc;
    fl_error err = {0};
    fl_status rc = c->ops->load_table(c, &id, &r->arena, &loc, &err);
    if (rc != FL_OK) {
        json_decref(b);
        if (rc == FL_ENOTFOUND)
            srv_no_such_table(r, &id);
        else
            srv_respond_status(r, rc, &err, NULL);
        return;
    }
    char *text = json_dumps(b, JSON_COMPACT);
    json_decref(b);
    srv_log("info", "metrics-report", "table=%s.%s report=%s", srv_ns_dotted(&id.ns, &r->arena),
            id.name, text ? text : "?");
    free(text);
    atomic_fetch_add(&r->srv->metrics->reports, 1);
    fl_server_respond(r, 204, NULL, NULL, 0);
}

fl_status srv_routes_tables(fl_server *s, fl_error *err)
{
    const char *base = "/v1/{prefix}/namespaces/{namespace}/tables";
    const char *one = "/v1/{prefix}/namespaces/{namespace}/tables/{table}";
    FL_TRY(srv_router_add(&s->router, "GET", base, h_list, NULL, 0, err));
    FL_TRY(srv_router_add(&s->router, "POST", base, h_create, NULL, FL_ROUTE_MUTATION, err));
    FL_TRY(srv_router_add(&s->router, "GET", one, h_load, NULL, 0, err));
    FL_TRY(srv_router_add(&s->router, "HEAD", one, h_exists, NULL, 0, err));
    FL_TRY(srv_router_add(&s->router, "DELETE", one, h_drop, NULL, FL_ROUTE_MUTATION, err));
    FL_TRY(srv_router_add(&s->router, "POST", "/v1/{prefix}/namespaces/{namespace}/register",
                          h_register, NULL, FL_ROUTE_MUTATION, err));
    FL_TRY(srv_router_add(&s->router, "POST",
                          "/v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics", h_report,
                          NULL, 0, err));
    return srv_router_add(&s->router, "POST", "/v1/{prefix}/tables/rename", h_rename, NULL,
                          FL_ROUTE_MUTATION, err);
}
