/*
 * server.c - fl_server lifetime: options with defaults, FileIO, auth,
 * catalog pool, idempotency store, built-in routes; graceful destroy.
 *
 * Auth is mandatory unless insecure_no_auth is set explicitly: a server
 * without it refuses to start when fl_auth_open fails.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/s3.h"
#include "server/server_internal.h"

static char *dup_or(const char *s, const char *def)
{
    return strdup(s && *s ? s : def);
}

static fl_status open_auth(fl_server *s, fl_error *err)
{
    if (s->opt.insecure_no_auth)
        return FL_OK;
    fl_auth_options ao = {0};
    ao.store_uri = s->opt.auth_store_uri ? s->opt.auth_store_uri : s->catalog_uri;
    ao.token_ttl_seconds = s->opt.token_ttl_seconds;
    ao.audit_log_path = s->opt.audit_log_path;
    ao.static_tokens = s->opt.static_tokens;
    ao.nstatic_tokens = s->opt.nstatic_tokens;
    ao.login_max_failures = s->opt.login_max_failures;
    ao.login_window_s = s->opt.login_window_s;
    fl_status rc = fl_auth_open(&ao, &s->auth, err);
    if (rc != FL_OK)
        return fl_error_prefix(err, "auth store %s", ao.store_uri);
    return FL_OK;
}

fl_status fl_server_create(const fl_server_options *opt, fl_server **out, fl_error *err)
{
    *out = NULL;
    if (!opt->catalog_uri || !opt->warehouse)
        return fl_errorf(err, FL_EINVAL, "serve: a catalog URI and a warehouse are required");
    fl_server *s = calloc(1, sizeof *s);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    s->opt = *opt;
    s->started_ms = srv_now_ms();
    pthread_mutex_init(&s->streams_mu, NULL);
    if (!s->opt.threads)
        s->opt.threads = 4;
    if (!s->opt.max_body_bytes)
        s->opt.max_body_bytes = 8u << 20;
    if (!s->opt.max_json_depth)
        s->opt.max_json_depth = 64;
    if (s->opt.idempotency_lifetime_s <= 0)
        s->opt.idempotency_lifetime_s = 1800;
    if (!s->opt.catalog_pool)
        s->opt.catalog_pool = s->opt.threads;
    s->host = dup_or(opt->host, "127.0.0.1");
    s->catalog_uri = dup_or(opt->catalog_uri, "");
    s->catalog_name = dup_or(opt->catalog_name, "floe");
    s->warehouse = dup_or(opt->warehouse, "");
    s->prefix = opt->prefix && *opt->prefix ? strdup(opt->prefix) : NULL;
    s->metrics = calloc(1, sizeof *s->metrics);
    s->cache = srv_cache_new();
    s->pipes = srv_pipe_cache_new();
    if (!s->cache || !s->pipes || !s->host || !s->catalog_uri || !s->catalog_name || !s->warehouse ||
        !s->metrics || (opt->prefix && *opt->prefix && !s->prefix)) {
        fl_server_destroy(s, 0);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    size_t wl = strlen(s->warehouse);
    while (wl > 1 && s->warehouse[wl - 1] == '/')
        s->warehouse[--wl] = '\0';
    s->opt.host = s->host;
    s->opt.prefix = s->prefix;
    s->opt.static_tokens = NULL; /* only used during open_auth below */
    if (opt->nallowed_locations) {
        s->allowed = calloc(opt->nallowed_locations, sizeof *s->allowed);
        for (uint32_t i = 0; s->allowed && i < opt->nallowed_locations; i++)
            if ((s->allowed[i] = strdup(opt->allowed_locations[i])))
                s->nallowed++;
    }
    fl_status rc = srv_confine_init(s, err);
    if (rc == FL_OK)
        rc = fl_s3_config_from_env(&s->s3, s->s3_storage, err);
    if (rc == FL_OK)
        rc = fl_fileio_default(NULL, &s->io, err);
    if (rc == FL_OK)
        rc = srv_limits_init(s, err);
    if (rc == FL_OK) {
        s->opt.static_tokens = opt->static_tokens;
        rc = open_auth(s, err);
        s->opt.static_tokens = NULL;
        s->opt.nstatic_tokens = 0;
    }
    if (rc == FL_OK)
        rc = srv_catpool_init(s, s->opt.catalog_pool, err);
    if (rc == FL_OK)
        rc = srv_idem_open(s, err);
    /* first: /v1/ingest/{namespace}/{table} wins over the 4-segment
     * /v1/{prefix}/tables/rename-style routes when no prefix is configured */
    if (rc == FL_OK)
        rc = srv_routes_ingest(s, err);
    if (rc == FL_OK)
        rc = srv_routes_catalog(s, err);
    if (rc == FL_OK)
        rc = srv_routes_namespaces(s, err);
    if (rc == FL_OK)
        rc = srv_routes_tables(s, err);
    if (rc == FL_OK)
        rc = srv_routes_sign(s, err);
    if (rc == FL_OK)
        rc = srv_routes_commit(s, err);
    if (rc == FL_OK)
        rc = srv_routes_views(s, err);
    if (rc == FL_OK)
        rc = srv_routes_sql(s, err);
    if (rc == FL_OK)
        rc = srv_routes_mcp(s, err);
    if (rc == FL_OK)
        rc = srv_routes_console(s, err);
    if (rc == FL_OK)
        rc = srv_routes_cube(s, err);
    if (rc == FL_OK)
        rc = srv_maint_start(s, err);
    if (rc != FL_OK) {
        fl_server_destroy(s, 0);
        return rc;
    }
    *out = s;
    return FL_OK;
}

fl_status fl_server_route_add(fl_server *s, const char *method, const char *pattern,
                              fl_server_handler h, void *ctx, unsigned flags, fl_error *err)
{
    if (s->daemon)
        return fl_errorf(err, FL_EINVAL, "routes must be added before the server listens");
    return srv_router_add(&s->router, method, pattern, h, ctx, flags, err);
}

void fl_server_destroy(fl_server *s, int drain_ms)
{
    if (!s)
        return;
    srv_http_stop(s, drain_ms);
    srv_maint_stop(s);
    srv_sql_free(s);
    srv_ingest_free(s);
    srv_mcp_free(s);
    srv_limits_free(s);
    if (s->pool.free)
        srv_catpool_free(s);
    srv_idem_close(s->idem);
    srv_cache_free(s->cache);
    srv_pipe_cache_free(s->pipes);
    fl_auth_close(s->auth);
    fl_fileio_destroy(s->io);
    srv_router_free(&s->router);
    for (uint32_t i = 0; i < s->nallowed; i++)
        free(s->allowed[i]);
    free(s->allowed);
    free(s->protect[0]), free(s->protect[1]);
    free(s->host), free(s->catalog_uri), free(s->catalog_name), free(s->warehouse), free(s->prefix);
    free(s->metrics);
    pthread_mutex_destroy(&s->streams_mu);
    free(s);
}
