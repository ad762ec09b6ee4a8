/*
 * rest_uri.c - opening a REST catalog: fl_catalog_rest_open, and the URI form
 * fl_catalog_open_uri accepts:
 *
 *   http(s)://host[:port][/base-path][?k=v&k=v...]
 *
 * The part before '?' is the catalog's base URI (paths are <base>/v1/...).
 * Query options (percent-decoded values):
 *   credential=ID:SECRET    OAuth2 client credentials   (else $FLOE_REST_CREDENTIAL)
 *   token=T                 static bearer token         (else $FLOE_REST_TOKEN)
 *   scope=S                 OAuth2 scope (default "catalog")
 *   oauth2-server-uri=URL   token endpoint (default <base>/v1/oauth/tokens)
 *   prefix=P                client prefix (the server's config may override it)
 *   warehouse=W             GET /v1/config?warehouse=W
 *   header.NAME=V           an extra request header
 *   timeout-ms=N, connect-timeout-ms=N, max-retries=N
 * Unknown options are FL_EINVAL (a typo must not silently drop a credential).
 * Secrets in a URI show in process listings and shell history; prefer the
 * environment variables.
 */
#include <stdlib.h>
#include <string.h>

#include "catalog/rest_internal.h"

fl_status fl_catalog_rest_open(const fl_rest_options *opt, const char *catalog_name, fl_fileio *io,
                               fl_catalog **out, fl_error *err)
{
    return rest_catalog_open(opt, catalog_name, io, out, err);
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Percent-decodes [s, s+n) ('+' = space) into a; NULL on a bad escape. */
static char *decode(fl_arena *a, const char *s, size_t n)
{
    char *o = fl_arena_alloc(a, n + 1);
    if (!o)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%') {
            if (i + 2 >= n)
                return NULL;
            int hi = hexval(s[i + 1]), lo = hexval(s[i + 2]);
            if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
                return NULL;
            o[k++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            o[k++] = s[i] == '+' ? ' ' : s[i];
        }
    }
    o[k] = '\0';
    return o;
}

static bool parse_u32(const char *s, uint32_t *out)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || v > 100000000ul)
        return false;
    *out = (uint32_t)v;
    return true;
}

typedef struct uri_opts {
    fl_rest_options o;
    fl_ice_map headers;
    uint32_t cap;
} uri_opts;

static fl_status set_opt(uri_opts *u, fl_arena *a, const char *k, const char *v, fl_error *err)
{
    fl_rest_options *o = &u->o;
    if (!strcmp(k, "credential"))
        o->credential = v;
    else if (!strcmp(k, "token"))
        o->token = v;
    else if (!strcmp(k, "scope"))
        o->scope = v;
    else if (!strcmp(k, "oauth2-server-uri"))
        o->oauth2_server_uri = v;
    else if (!strcmp(k, "prefix"))
        o->prefix = v;
    else if (!strcmp(k, "warehouse"))
        o->warehouse = v;
    else if (!strcmp(k, "timeout-ms") || !strcmp(k, "connect-timeout-ms") ||
             !strcmp(k, "max-retries")) {
        uint32_t n;
        if (!parse_u32(v, &n))
            return fl_errorf(err, FL_EINVAL, "REST catalog URI: %s=%.20s is not a number", k, v);
        *(!strcmp(k, "timeout-ms")           ? &o->timeout_ms
          : !strcmp(k, "connect-timeout-ms") ? &o->connect_timeout_ms
                                             : &o->max_retries) = n;
    } else if (!strncmp(k, "header.", 7) && k[7]) {
        if (u->headers.n == u->cap) {
            uint32_t nc = u->cap ? u->cap * 2 : 8;
            fl_ice_kv *ni = fl_arena_alloc(a, nc * sizeof *ni);
            if (!ni)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            if (u->headers.n)
                memcpy(ni, u->headers.items, u->headers.n * sizeof *ni);
            u->headers.items = ni;
            u->cap = nc;
        }
        u->headers.items[u->headers.n++] = (fl_ice_kv){k, v};
    } else {
        return fl_errorf(err, FL_EINVAL,
                         "REST catalog URI: unknown option '%.40s' (known: credential, token, "
                         "scope, oauth2-server-uri, prefix, warehouse, header.NAME, timeout-ms, "
                         "connect-timeout-ms, max-retries)",
                         k);
    }
    return FL_OK;
}

static fl_status parse_query(uri_opts *u, fl_arena *a, const char *q, fl_error *err)
{
    while (*q) {
        const char *amp = strchr(q, '&');
        size_t n = amp ? (size_t)(amp - q) : strlen(q);
        const char *eq = memchr(q, '=', n);
        if (n) {
            if (!eq)
                return fl_errorf(err, FL_EINVAL, "REST catalog URI: option '%.*s' has no value",
                                 (int)(n > 40 ? 40 : n), q);
            char *k = decode(a, q, (size_t)(eq - q));
            char *v = decode(a, eq + 1, n - (size_t)(eq - q) - 1);
            if (!k || !v)
                return fl_errorf(err, FL_EINVAL, "REST catalog URI: bad %%-escape in an option");
            FL_TRY(set_opt(u, a, k, v, err));
        }
        q += n + (amp ? 1 : 0);
    }
    return FL_OK;
}

fl_status fl_catalog_rest_open_uri(const char *uri, const char *catalog_name,
                                   const char *location_root, fl_fileio *io, fl_catalog **out,
                                   fl_error *err)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    uri_opts u = {0};
    const char *q = strchr(uri, '?');
    u.o.uri = q ? fl_arena_strndup(&a, uri, (size_t)(q - uri)) : uri;
    fl_status rc = u.o.uri ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK && q)
        rc = parse_query(&u, &a, q + 1, err);
    if (rc == FL_OK) {
        if (!u.o.credential && !u.o.token) {
            const char *ec = getenv("FLOE_REST_CREDENTIAL"), *et = getenv("FLOE_REST_TOKEN");
            u.o.credential = ec && *ec ? ec : NULL;
            u.o.token = et && *et ? et : NULL;
        }
        u.o.location_root = location_root;
        u.o.properties = u.headers.n ? &u.headers : NULL;
        rc = rest_catalog_open(&u.o, catalog_name, io, out, err);
    }
    fl_arena_free(&a);
    return rc;
}
