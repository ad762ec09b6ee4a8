/*
 * rest.c - the Iceberg REST catalog client: opening, the vtable, calls and
 * URLs (rest_internal.h lists the other files).
 *
 * Paths: <uri>/v1/config, then <uri>/v1[/<prefix>]/namespaces/<ns>/...
 * where <ns> is the namespace levels joined by the unit separator 0x1F and
 * percent-encoded (so "a.b" levels [a, b] are "a%1Fb"); every other
 * character outside RFC 3986's unreserved set is %XX-encoded too.
 *
 * Calls (rest_call): the bearer comes from rest_auth (fetched/refreshed as
 * needed); a 401 or 419 answer with OAuth2 credentials fetches a new token
 * and repeats the request once (the server refused it, so nothing was
 * applied). GET/HEAD are retried on transport errors and 429/502/503/504;
 * mutations only when the server advertised idempotency-key-lifetime, in
 * which case each mutation carries one Idempotency-Key (a v4 UUID) reused
 * by its retries, so a retry of a commit that did land is answered with the
 * stored result instead of being applied twice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/rest_internal.h"
#include "floe/ice_table.h"

static rest_catalog *RC(fl_catalog *c)
{
    return (rest_catalog *)c;
}

const char *rest_enc(fl_arena *a, const char *s)
{
    return fl_rest_url_encode(a, s);
}

/* The namespace as one path segment: each level encoded, joined by the config's
 * namespace-separator as it was sent (Iceberg's RESTUtil.encodeNamespace), or the spec's
 * 0x1F ("a%1Fb") when the server named none. */
static const char *ns_path(rest_catalog *c, fl_arena *a, const fl_namespace *ns)
{
    if (!c->ns_sep || ns->nlevels < 2)
        return fl_rest_namespace_path(a, ns);
    const char *out = "";
    for (uint32_t i = 0; i < ns->nlevels && out; i++) {
        const char *l = rest_enc(a, ns->levels[i]);
        out = l ? fl_arena_sprintf(a, "%s%s%s", out, i ? c->ns_sep : "", l) : NULL;
    }
    return out;
}

const char *rest_url_ns(rest_catalog *c, fl_arena *a, const fl_namespace *ns, const char *suffix)
{
    const char *e = ns_path(c, a, ns);
    return e ? fl_arena_sprintf(a, "%s/namespaces/%s%s", c->root, e, suffix ? suffix : "") : NULL;
}

const char *rest_url_table(rest_catalog *c, fl_arena *a, const fl_table_ident *id,
                           const char *suffix)
{
    const char *e = ns_path(c, a, &id->ns), *t = rest_enc(a, id->name);
    return e && t ? fl_arena_sprintf(a, "%s/namespaces/%s/tables/%s%s", c->root, e, t,
                                     suffix ? suffix : "")
                  : NULL;
}

fl_status rest_call(rest_catalog *c, const char *method, const char *url, const char *json,
                    rest_response *resp, fl_error *err)
{
    memset(resp, 0, sizeof *resp);
    if (!url)
        return fl_errorf(err, FL_ENOMEM, "REST catalog: out of memory");
    bool mutation = strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0;
    char key[37];
    if (mutation && c->idempotency)
        fl_ice_uuid4(key);
    for (int attempt = 0; attempt < 2; attempt++) {
        const char *bearer;
        FL_TRY(rest_auth_bearer(&c->auth, &c->http, &bearer, err));
        rest_request rq = {.method = method,
                           .url = url,
                           .body = json,
                           .body_len = json ? strlen(json) : 0,
                           .bearer = bearer,
                           .idempotency_key = mutation && c->idempotency ? key : NULL,
                           .retry = !mutation || c->idempotency};
        FL_TRY(rest_http_do(&c->http, &rq, resp, err));
        if ((resp->status == 401 || resp->status == 419) && attempt == 0 &&
            rest_auth_invalidate(&c->auth)) {
            rest_response_free(resp);
            continue;
        }
        break;
    }
    return FL_OK;
}

/* ---- pointer operations that the REST protocol does not have ---- */

static fl_status rest_new_metadata_path(fl_catalog *cat, const fl_table_ident *id,
                                        const char *table_location, const char *base_location,
                                        int64_t version, fl_arena *a, const char **out,
                                        fl_error *err)
{
    (void)cat;
    (void)base_location;
    if (!table_location || !*table_location)
        return fl_errorf(err, FL_EINVAL, "table %s: no table location", id->name);
    char uuid[37];
    fl_ice_uuid4(uuid);
    *out = fl_arena_sprintf(a, "%s/metadata/%05lld-%s.metadata.json", table_location,
                            (long long)(version > 0 ? version : 0), uuid);
    return *out ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
}

fl_status rest_commit_table(fl_catalog *c, const fl_table_ident *id, const char *expected_location,
                            const char *new_location, fl_error *err)
{
    (void)c;
    (void)expected_location;
    (void)new_location;
    return fl_errorf(err, FL_EUNSUPPORTED,
                     "table %s: a REST catalog commits metadata updates (the server writes the "
                     "metadata file), not a swap to a client-written file",
                     id->name);
}

static void rest_close(fl_catalog *cat)
{
    rest_catalog *c = RC(cat);
    if (c->own_io)
        fl_fileio_destroy(c->own_io);
    rest_http_free(&c->http);
    rest_auth_free(&c->auth);
    fl_arena_free(&c->arena);
    free(c);
}

static const fl_catalog_ops REST_OPS = {
    .create_namespace = rest_create_namespace,
    .list_namespaces = rest_list_namespaces,
    .load_namespace = rest_load_namespace,
    .update_namespace = rest_update_namespace,
    .drop_namespace = rest_drop_namespace,
    .list_tables = rest_list_tables,
    .load_table = rest_load_table,
    .create_table = rest_register_table,
    .commit_table = rest_commit_table,
    .drop_table = rest_drop_table,
    .rename_table = rest_rename_table,
    .new_metadata_path = rest_new_metadata_path,
    .close = rest_close,
    .load_table_metadata = rest_load_table_metadata,
    .commit_updates = rest_commit_updates,
    .create_table_metadata = rest_create_table_metadata,
    .drop_table_purge = rest_drop_table_purge,
};

/* ---- opening ---- */

static fl_status setup_auth(rest_catalog *c, const fl_rest_options *opt, fl_error *err)
{
    rest_auth *a = &c->auth;
    if (opt->token && *opt->token) {
        if (strpbrk(opt->token, "\r\n"))
            return fl_errorf(err, FL_EINVAL, "REST catalog: the token contains a line break");
        a->is_static = true;
        return (a->token = strdup(opt->token)) ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    if (!opt->credential || !*opt->credential)
        return FL_OK;
    const char *colon = strchr(opt->credential, ':');
    if (!colon || colon == opt->credential)
        return fl_errorf(err, FL_EINVAL,
                         "REST catalog: credential must be \"client_id:client_secret\"");
    a->client_id = strndup(opt->credential, (size_t)(colon - opt->credential));
    a->client_secret = strdup(colon + 1);
    a->scope = strdup(opt->scope && *opt->scope ? opt->scope : "catalog");
    const char *tu = opt->oauth2_server_uri;
    if (tu && *tu)
        a->token_uri = strdup(tu);
    else if ((a->token_uri = malloc(strlen(c->uri) + 20)))
        sprintf(a->token_uri, "%s/v1/oauth/tokens", c->uri);
    if (!a->client_id || !a->client_secret || !a->scope || !a->token_uri)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (strncmp(a->token_uri, "http://", 7) && strncmp(a->token_uri, "https://", 8))
        return fl_errorf(err, FL_EINVAL, "REST catalog: oauth2-server-uri '%.100s' is not http(s)",
                         a->token_uri);
    return FL_OK;
}

static fl_status client_headers(rest_catalog *c, const fl_rest_options *opt, fl_error *err)
{
    for (uint32_t i = 0; opt->properties && i < opt->properties->n; i++) {
        const fl_ice_kv *kv = &opt->properties->items[i];
        if (!strncmp(kv->key, "header.", 7) && kv->key[7])
            FL_TRY(rest_http_add_header(&c->http, kv->key + 7, kv->value, err));
    }
    return FL_OK;
}

fl_status rest_catalog_open(const fl_rest_options *opt, const char *catalog_name, fl_fileio *io,
                            fl_catalog **out, fl_error *err)
{
    *out = NULL;
    if (!opt || !opt->uri)
        return fl_errorf(err, FL_EINVAL, "REST catalog: no URI");
    if (strncmp(opt->uri, "http://", 7) && strncmp(opt->uri, "https://", 8))
        return fl_errorf(err, FL_EINVAL, "REST catalog URI '%.100s': expected http:// or https://",
                         opt->uri);
    rest_catalog *c = calloc(1, sizeof *c);
    if (!c)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_arena_init(&c->arena, 0);
    c->base.ops = &REST_OPS;
    c->base.io = io;
    size_t n = strlen(opt->uri);
    while (n > 0 && opt->uri[n - 1] == '/')
        n--;
    c->uri = fl_arena_strndup(&c->arena, opt->uri, n);
    c->base.name = fl_arena_strdup(&c->arena, catalog_name ? catalog_name : "rest");
    if (opt->location_root)
        c->base.warehouse = c->location_root = fl_arena_strdup(&c->arena, opt->location_root);
    fl_status rc = c->uri && c->base.name && (!opt->location_root || c->location_root)
                       ? FL_OK
                       : fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK)
        rc = rest_http_init(&c->http, opt->timeout_ms, opt->connect_timeout_ms, opt->max_retries,
                            err);
    if (rc == FL_OK)
        rc = client_headers(c, opt, err);
    if (rc == FL_OK)
        rc = setup_auth(c, opt, err);
    if (rc == FL_OK)
        rc = rest_config_load(c, opt, opt->warehouse, err);
    if (rc != FL_OK) {
        rest_close(&c->base);
        return rc;
    }
    *out = &c->base;
    return FL_OK;
}
