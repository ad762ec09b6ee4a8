/*
 * router.c - the route table: METHOD + path pattern -> handler.
 *
 * Patterns are '/'-separated segments, each a literal or "{name}". Matching
 * works on the raw (still percent-encoded) path split at '/', so an encoded
 * "%2F" inside a namespace never splits a segment; each parameter is then
 * percent-decoded on its own ("a%1Fb" -> "a\x1fb", the REST spec's namespace
 * separator). The special {prefix} segment (Iceberg REST "/v1/{prefix}/...")
 * matches the configured prefix, or any segment when none is configured; a
 * route with {prefix} is also tried without that segment, and the
 * prefix-less form wins when both match ("/v1/namespaces/x").
 *
 * Ownership: the router owns copies of methods and patterns (malloc).
 */
#include <stdlib.h>
#include <string.h>

#include "server/server_internal.h"

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

char *srv_pct_decode(const char *s, size_t len, bool plus_space, fl_arena *a)
{
    char *out = fl_arena_alloc(a, len + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '%') {
            if (i + 2 >= len)
                return NULL;
            int h = hexval((unsigned char)s[i + 1]), l = hexval((unsigned char)s[i + 2]);
            if (h < 0 || l < 0)
                return NULL;
            c = (char)(h * 16 + l);
            if (c == '\0')
                return NULL;
            i += 2;
        } else if (c == '+' && plus_space) {
            c = ' ';
        } else if (c == '\0') {
            return NULL;
        }
        out[o++] = c;
    }
    out[o] = '\0';
    return out;
}

bool srv_split_path(const char *path, fl_arena *a, char **seg, uint32_t *n)
{
    *n = 0;
    const char *p = path;
    while (*p) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (*n >= SRV_MAX_SEGMENTS)
            return false;
        seg[(*n)++] = fl_arena_strndup(a, p, len);
        if (!seg[*n - 1])
            return false;
        p += len;
    }
    return true;
}

fl_status srv_router_add(srv_router *r, const char *method, const char *pattern,
                         fl_server_handler h, void *ctx, unsigned flags, fl_error *err)
{
    if (r->n >= SRV_MAX_ROUTES)
        return fl_errorf(err, FL_ELIMIT, "route table full (%d routes)", SRV_MAX_ROUTES);
    if (r->n == r->cap) {
        uint32_t cap = r->cap ? r->cap * 2 : 32;
        srv_route *nr = realloc(r->routes, cap * sizeof *nr);
        if (!nr)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        r->routes = nr;
        r->cap = cap;
    }
    srv_route *rt = &r->routes[r->n];
    memset(rt, 0, sizeof *rt);
    rt->method = strdup(method);
    rt->pattern = strdup(pattern);
    rt->seg = calloc(SRV_MAX_SEGMENTS, sizeof *rt->seg);
    if (!rt->method || !rt->pattern || !rt->seg)
        goto oom;
    const char *p = pattern;
    while (*p) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (rt->nseg >= SRV_MAX_SEGMENTS) {
            free(rt->method), free(rt->pattern), free(rt->seg);
            return fl_errorf(err, FL_EINVAL, "route %s: too many segments", pattern);
        }
        rt->seg[rt->nseg] = strndup(p, len);
        if (!rt->seg[rt->nseg])
            goto oom;
        rt->nseg++;
        p += len;
    }
    rt->h = h;
    rt->ctx = ctx;
    rt->flags = flags;
    r->n++;
    return FL_OK;
oom:
    if (rt->seg)
        for (uint32_t i = 0; i < rt->nseg; i++)
            free(rt->seg[i]);
    free(rt->method), free(rt->pattern), free(rt->seg);
    return fl_errorf(err, FL_ENOMEM, "out of memory");
}

static bool is_param(const char *s)
{
    size_t n = strlen(s);
    return n >= 2 && s[0] == '{' && s[n - 1] == '}';
}

/* Matches rt against seg; skip_prefix drops the {prefix} segment. */
static bool try_route(const srv_route *rt, char **seg, uint32_t nseg, bool skip_prefix,
                      const char *prefix, fl_arena *a, srv_match *m)
{
    uint32_t want = rt->nseg;
    bool has_prefix = false;
    for (uint32_t i = 0; i < rt->nseg; i++)
        if (!strcmp(rt->seg[i], "{prefix}"))
            has_prefix = true;
    if (skip_prefix && !has_prefix)
        return false;
    if (skip_prefix)
        want--;
    if (want != nseg)
        return false;
    m->nparams = 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < rt->nseg; i++) {
        const char *ps = rt->seg[i];
        if (!strcmp(ps, "{prefix}")) {
            if (skip_prefix)
                continue;
            char *v = srv_pct_decode(seg[k], strlen(seg[k]), false, a);
            if (!v || (prefix && *prefix && strcmp(v, prefix) != 0))
                return false;
            k++;
            continue;
        }
        if (is_param(ps)) {
            char *v = srv_pct_decode(seg[k], strlen(seg[k]), false, a);
            if (!v || !*v || m->nparams >= SRV_MAX_PARAMS)
                return false;
            m->names[m->nparams] = ps;
            m->values[m->nparams++] = v;
        } else if (strcmp(ps, seg[k]) != 0) {
            return false;
        }
        k++;
    }
    return true;
}

bool srv_router_match(const srv_router *r, const char *method, const char *path,
                      const char *prefix, fl_arena *a, srv_match *m)
{
    char *seg[SRV_MAX_SEGMENTS];
    uint32_t nseg;
    memset(m, 0, sizeof *m);
    if (!srv_split_path(path, a, seg, &nseg))
        return false;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < r->n; i++) {
            const srv_route *rt = &r->routes[i];
            srv_match t = {0};
            if (!try_route(rt, seg, nseg, pass == 0, prefix, a, &t))
                continue;
            if (strcmp(rt->method, method) != 0) {
                m->method_mismatch = true;
                continue;
            }
            bool mm = m->method_mismatch;
            *m = t;
            m->method_mismatch = mm;
            m->route = rt;
            return true;
        }
    }
    return false;
}

void srv_router_free(srv_router *r)
{
    for (uint32_t i = 0; i < r->n; i++) {
        for (uint32_t k = 0; k < r->routes[i].nseg; k++)
            free(r->routes[i].seg[k]);
        free(r->routes[i].seg);
        free(r->routes[i].method);
        free(r->routes[i].pattern);
    }
    free(r->routes);
    memset(r, 0, sizeof *r);
}
