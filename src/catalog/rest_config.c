/*
 * rest_config.c - the configuration handshake: GET <uri>/v1/config
 * [?warehouse=W] (spec "getConfig").
 *
 * The answer's "defaults" apply before the client's properties and its
 * "overrides" after them (properties = defaults < client < overrides).
 * Decided here:
 *   prefix          -> every later path is <uri>/v1/<prefix>/... (put in
 *                      verbatim, as Java's client does; may span segments)
 *   uri             -> an override moves the base URI
 *   rest-page-size  -> list calls ask for pages of that size
 *   endpoints       -> which operations the server has; an absent or empty
 *                      list means the spec's default set (rest_supports)
 *   idempotency-key-lifetime -> mutations carry an Idempotency-Key and may
 *                      then be retried safely with the same key
 *   s3.endpoint, s3.access-key-id, s3.secret-access-key, s3.session-token,
 *   s3.path-style-access, client.region / s3.region
 *                   -> a FileIO of the catalog's own (S3 + local), built on
 *                      the environment's S3 settings with these on top
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/rest_internal.h"
#include "floe/s3.h"

/* The spec's default endpoint set (getConfig description): no HEAD, no views. */
static const char *const DEFAULT_ENDPOINTS[] = {
    "GET /v1/{prefix}/namespaces",
    "POST /v1/{prefix}/namespaces",
    "GET /v1/{prefix}/namespaces/{namespace}",
    "DELETE /v1/{prefix}/namespaces/{namespace}",
    "POST /v1/{prefix}/namespaces/{namespace}/properties",
    "GET /v1/{prefix}/namespaces/{namespace}/tables",
    "POST /v1/{prefix}/namespaces/{namespace}/tables",
    "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
    "POST /v1/{prefix}/namespaces/{namespace}/register",
    "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
    "POST /v1/{prefix}/tables/rename",
    "POST /v1/{prefix}/transactions/commit",
};

bool rest_supports(const rest_catalog *c, const char *endpoint)
{
    if (!c->has_endpoints || !c->nendpoints) {
        for (size_t i = 0; i < sizeof DEFAULT_ENDPOINTS / sizeof *DEFAULT_ENDPOINTS; i++)
            if (!strcmp(DEFAULT_ENDPOINTS[i], endpoint))
                return true;
        return false;
    }
    for (uint32_t i = 0; i < c->nendpoints; i++)
        if (!strcmp(c->endpoints[i], endpoint))
            return true;
    return false;
}

/* Sets key=value in m (replacing), strings already in the arena. */
static bool map_put(fl_arena *a, fl_ice_map *m, uint32_t *cap, const char *k, const char *v)
{
    for (uint32_t i = 0; i < m->n; i++)
        if (!strcmp(m->items[i].key, k)) {
            m->items[i].value = v;
            return true;
        }
    if (m->n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 16;
        fl_ice_kv *ni = fl_arena_alloc(a, nc * sizeof *ni);
        if (!ni)
            return false;
        if (m->n)
            memcpy(ni, m->items, m->n * sizeof *ni);
        m->items = ni;
        *cap = nc;
    }
    m->items[m->n++] = (fl_ice_kv){k, v};
    return true;
}

/* Merges src into m; copy: src's strings are copied into a first. */
static bool merge(fl_arena *a, fl_ice_map *m, uint32_t *cap, const fl_ice_map *src, bool copy)
{
    for (uint32_t i = 0; src && i < src->n; i++) {
        const char *k = src->items[i].key, *v = src->items[i].value;
        if (copy && (!(k = fl_arena_strdup(a, k)) || !(v = fl_arena_strdup(a, v))))
            return false;
        if (!map_put(a, m, cap, k, v))
            return false;
    }
    return true;
}

static bool truthy(const char *v)
{
    return v && (!strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "yes"));
}

/* Own FileIO from S3 settings in the merged properties, if any. */
static fl_status s3_io(rest_catalog *c, fl_error *err)
{
    const fl_ice_map *p = &c->props;
    const char *ep = fl_ice_map_get(p, "s3.endpoint");
    const char *ak = fl_ice_map_get(p, "s3.access-key-id");
    const char *sk = fl_ice_map_get(p, "s3.secret-access-key");
    const char *st = fl_ice_map_get(p, "s3.session-token");
    const char *ps = fl_ice_map_get(p, "s3.path-style-access");
    const char *rg = fl_ice_map_get(p, "client.region");
    if (!rg)
        rg = fl_ice_map_get(p, "s3.region");
    if (!ep && !ak && !sk && !st && !rg && !ps)
        return FL_OK;
    char *storage = malloc(FL_S3_CONFIG_STORAGE);
    if (!storage)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_s3_config cfg;
    fl_error e2 = {0};
    if (fl_s3_config_from_env(&cfg, storage, &e2) != FL_OK)
        memset(&cfg, 0, sizeof cfg);
    if (ep)
        cfg.endpoint = ep;
    if (ak)
        cfg.access_key_id = ak;
    if (sk)
        cfg.secret_access_key = sk;
    if (st)
        cfg.session_token = st;
    if (rg)
        cfg.region = rg;
    if (ps)
        cfg.path_style = truthy(ps);
    else if (ep)
        cfg.path_style = true; /* custom endpoints (MinIO, s3rver...) are path-style */
    fl_status rc = fl_fileio_default(&cfg, &c->own_io, err);
    free(storage);
    if (rc != FL_OK)
        return fl_error_prefix(err, "REST catalog: S3 settings from the config response");
    c->base.io = c->own_io;
    return FL_OK;
}

static fl_status apply(rest_catalog *c, const fl_rest_options *opt, const fl_rest_config *cfg,
                       fl_error *err)
{
    uint32_t cap = 0;
    fl_ice_map client = {0};
    uint32_t ccap = 0;
    bool ok = merge(&c->arena, &client, &ccap, opt->properties, true);
    const char *pfx = opt->prefix ? fl_arena_strdup(&c->arena, opt->prefix) : NULL;
    if (ok && opt->prefix)
        ok = pfx && map_put(&c->arena, &client, &ccap, "prefix", pfx);
    ok = ok && merge(&c->arena, &c->props, &cap, &cfg->defaults, false) &&
         merge(&c->arena, &c->props, &cap, &client, false) &&
         merge(&c->arena, &c->props, &cap, &cfg->overrides, false);
    if (!ok)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    const char *uri = fl_ice_map_get(&cfg->overrides, "uri");
    if (uri && *uri) {
        if (strncmp(uri, "http://", 7) && strncmp(uri, "https://", 8))
            return fl_errorf(err, FL_ECORRUPT, "REST config: overrides.uri '%.80s' is not http(s)",
                             uri);
        size_t n = strlen(uri);
        while (n > 0 && uri[n - 1] == '/')
            n--;
        if (!(c->uri = fl_arena_strndup(&c->arena, uri, n)))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    const char *prefix = fl_ice_map_get(&c->props, "prefix");
    while (prefix && *prefix == '/')
        prefix++;
    c->root = prefix && *prefix ? fl_arena_sprintf(&c->arena, "%s/v1/%s", c->uri, prefix)
                                : fl_arena_sprintf(&c->arena, "%s/v1", c->uri);
    if (!c->root)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    size_t rl = strlen(c->root);
    while (rl > 0 && ((char *)c->root)[rl - 1] == '/')
        ((char *)c->root)[--rl] = '\0';
    const char *ps = fl_ice_map_get(&c->props, "rest-page-size");
    if (ps) {
        long v = strtol(ps, NULL, 10);
        c->page_size = v > 0 && v <= 100000 ? (uint32_t)v : 0;
    }
    /* The separator of namespace levels in paths, already URL-encoded: the spec's "%1F" unless
     * the config says otherwise (Iceberg's reference server sends "%2E": Jetty 12 answers 400
     * "Suspicious Path Character" to a %1F in a path). Only %XX escapes and unreserved
     * characters: the value goes into URLs as it is. */
    const char *sep = fl_ice_map_get(&c->props, "namespace-separator");
    if (sep && strcmp(sep, "%1F") && strcmp(sep, "%1f")) {
        size_t sl = strlen(sep);
        bool good = sl > 0 && sl <= 32;
        for (size_t i = 0; good && i < sl; i++) {
            char ch = sep[i];
            if (ch == '%') {
                good = i + 2 < sl && isxdigit((unsigned char)sep[i + 1]) &&
                       isxdigit((unsigned char)sep[i + 2]);
                i += 2;
            } else {
                good =
                    isalnum((unsigned char)ch) || ch == '-' || ch == '.' || ch == '_' || ch == '~';
            }
        }
        if (!good)
            return fl_errorf(err, FL_ECORRUPT,
                             "REST config: namespace-separator '%.40s' is not a URL-encoded string",
                             sep);
        if (!(c->ns_sep = fl_arena_strdup(&c->arena, sep)))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    c->has_endpoints = cfg->has_endpoints;
    c->endpoints = cfg->endpoints;
    c->nendpoints = cfg->nendpoints;
    c->idempotency = cfg->idempotency_key_lifetime != NULL;
    return s3_io(c, err);
}

fl_status rest_config_load(rest_catalog *c, const fl_rest_options *opt, const char *warehouse,
                           fl_error *err)
{
    const char *url = warehouse ? fl_arena_sprintf(&c->arena, "%s/v1/config?warehouse=%s", c->uri,
                                                   rest_enc(&c->arena, warehouse))
                                : fl_arena_sprintf(&c->arena, "%s/v1/config", c->uri);
    if (!url)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    rest_response r;
    FL_TRY(rest_call(c, "GET", url, NULL, &r, err));
    fl_status rc;
    if (r.status != 200) {
        rc = rest_error(&r, "REST catalog: GET /v1/config", FL_EIO, false, err);
    } else {
        fl_rest_config cfg;
        rc = fl_rest_config_parse(r.body, r.len, &c->arena, &cfg, err);
        if (rc == FL_OK)
            rc = apply(c, opt, &cfg, err);
        else
            fl_error_prefix(err, "REST catalog %s", url);
    }
    rest_response_free(&r);
    return rc;
}
