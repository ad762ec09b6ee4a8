/*
 * rest_namespace.c - namespace operations over the REST protocol, and the
 * paginated listing shared with table listing.
 *
 *   create  POST   /v1/{p}/namespaces  {"namespace":[..],"properties":{..}}   409 -> FL_EEXIST
 *   list    GET    /v1/{p}/namespaces?parent=<ns>&pageToken=T[&pageSize=N]
 *   load    GET    /v1/{p}/namespaces/{ns}                                    404 -> FL_ENOTFOUND
 *   update  POST   /v1/{p}/namespaces/{ns}/properties {"removals":[..],"updates":{..}}
 *   drop    DELETE /v1/{p}/namespaces/{ns}                         409 (not empty) -> FL_ECONFLICT
 *
 * Pagination: the first request sends an empty pageToken (which opts in,
 * per the spec) and pageSize when the config gave rest-page-size; the
 * next-page-token of each answer is sent back until it is null or absent.
 * A server repeating a token (a loop) is FL_ECORRUPT; at most 1,000,000
 * entries are gathered (FL_ELIMIT beyond).
 */
#include <stdlib.h>
#include <string.h>

#include "catalog/rest_internal.h"

#define MAX_LIST_ENTRIES 1000000u

static rest_catalog *RC(fl_catalog *c)
{
    return (rest_catalog *)c;
}

static const char *ns_name(const fl_namespace *ns, fl_arena *a)
{
    const char *s = fl_namespace_str(ns, a);
    return s ? s : "?";
}

/* Sends json (may be NULL) and checks for a 2xx; *resp kept on success. */
static fl_status call_ok(rest_catalog *c, const char *method, const char *url, const char *json,
                         const char *what, fl_status conflict409, rest_response *resp,
                         fl_error *err)
{
    FL_TRY(rest_call(c, method, url, json, resp, err));
    if (resp->status >= 200 && resp->status < 300)
        return FL_OK;
    bool mutation = strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0;
    fl_status rc = rest_error(resp, what, conflict409, mutation, err);
    rest_response_free(resp);
    return rc;
}

fl_status rest_create_namespace(fl_catalog *cat, const fl_namespace *ns, const fl_ice_map *props,
                                fl_error *err)
{
    rest_catalog *c = RC(cat);
    if (!ns->nlevels)
        return fl_errorf(err, FL_EINVAL, "create namespace: empty namespace");
    fl_arena a;
    fl_arena_init(&a, 0);
    char *body = NULL;
    fl_error jerr = {0};
    fl_rest_create_namespace_request_json(ns, props, &body, &jerr);
    fl_status rc;
    if (!body) {
        rc = fl_errorf(err, FL_ENOMEM, "create namespace: out of memory");
    } else {
        const char *what = fl_arena_sprintf(&a, "create namespace %s", ns_name(ns, &a));
        rest_response r;
        rc = call_ok(c, "POST", fl_arena_sprintf(&a, "%s/namespaces", c->root), body, what,
                     FL_EEXIST, &r, err);
        if (rc == FL_OK)
            rest_response_free(&r);
    }
    free(body);
    fl_arena_free(&a);
    return rc;
}

/* ---- paginated listing ---- */

typedef fl_status (*page_fn)(const char *buf, size_t len, fl_arena *a, void **items, uint32_t *n,
                             const char **next, fl_error *err);

static fl_status ns_page(const char *buf, size_t len, fl_arena *a, void **items, uint32_t *n,
                         const char **next, fl_error *err)
{
    fl_namespace *v;
    FL_TRY(fl_rest_namespaces_parse(buf, len, a, &v, n, next, err));
    *items = v;
    return FL_OK;
}

static fl_status table_page(const char *buf, size_t len, fl_arena *a, void **items, uint32_t *n,
                            const char **next, fl_error *err)
{
    const char **v;
    FL_TRY(fl_rest_tables_parse(buf, len, a, &v, n, next, err));
    *items = (void *)v;
    return FL_OK;
}

/* GETs base (which may already hold '?') page after page, gathering items of
 * size elem into *out (arena a). */
static fl_status list_all(rest_catalog *c, const char *base, const char *what, page_fn fn,
                          size_t elem, fl_arena *a, void **out, uint32_t *nout, fl_error *err)
{
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    char *all = NULL;
    uint32_t n = 0, cap = 0;
    const char *token = "", *prev = NULL;
    fl_status rc = FL_OK;
    char sep = strchr(base, '?') ? '&' : '?';
    while (rc == FL_OK && token) {
        const char *url =
            c->page_size
                ? fl_arena_sprintf(&tmp, "%s%cpageToken=%s&pageSize=%u", base, sep,
                                   rest_enc(&tmp, token), c->page_size)
                : fl_arena_sprintf(&tmp, "%s%cpageToken=%s", base, sep, rest_enc(&tmp, token));
        rest_response r;
        rc = call_ok(c, "GET", url, NULL, what, FL_ECONFLICT, &r, err);
        if (rc != FL_OK)
            break;
        void *items;
        uint32_t k;
        const char *next;
        rc = fn(r.body, r.len, a, &items, &k, &next, err);
        rest_response_free(&r);
        if (rc != FL_OK) {
            fl_error_prefix(err, "%s", what);
            break;
        }
        if (n + (uint64_t)k > MAX_LIST_ENTRIES) {
            rc = fl_errorf(err, FL_ELIMIT, "%s: more than %u entries", what, MAX_LIST_ENTRIES);
            break;
        }
        if (n + k > cap) {
            uint32_t nc = cap ? cap : 64;
            while (nc < n + k)
                nc *= 2;
            char *na = realloc(all, (size_t)nc * elem);
            if (!na) {
                rc = fl_errorf(err, FL_ENOMEM, "%s: out of memory", what);
                break;
            }
            all = na;
            cap = nc;
        }
        if (k)
            memcpy(all + (size_t)n * elem, items, (size_t)k * elem);
        n += k;
        if (next && ((prev && !strcmp(prev, next)) || !strcmp(next, token))) {
            rc = fl_errorf(err, FL_ECORRUPT, "%s: the server repeated next-page-token '%.60s'",
                           what, next);
            break;
        }
        prev = token;
        token = next;
    }
    if (rc == FL_OK) {
        *out = fl_arena_alloc(a, (size_t)(n ? n : 1) * elem);
        if (!*out)
            rc = fl_errorf(err, FL_ENOMEM, "%s: out of memory", what);
        else if (n)
            memcpy(*out, all, (size_t)n * elem);
        *nout = n;
    }
    free(all);
    fl_arena_free(&tmp);
    return rc;
}

fl_status rest_list_namespaces(fl_catalog *cat, const fl_namespace *parent, fl_arena *a,
                               fl_namespace **out, uint32_t *n, fl_error *err)
{
    rest_catalog *c = RC(cat);
    *out = NULL;
    *n = 0;
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    const char *base;
    if (parent && parent->nlevels) {
        /* levels joined by 0x1F even when the config names another separator: a query value
         * may hold %1F, and the server splits on 0x1F first (RESTUtil.namespaceFromQueryParam),
         * so a level holding the separator stays one level */
        const char *enc = fl_rest_namespace_path(&tmp, parent);
        base = enc ? fl_arena_sprintf(&tmp, "%s/namespaces?parent=%s", c->root, enc) : NULL;
    } else {
        base = fl_arena_sprintf(&tmp, "%s/namespaces", c->root);
    }
    const char *what = parent && parent->nlevels
                           ? fl_arena_sprintf(&tmp, "list namespaces in %s", ns_name(parent, &tmp))
                           : "list namespaces";
    fl_status rc = base && what ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    void *items = NULL;
    if (rc == FL_OK)
        rc = list_all(c, base, what, ns_page, sizeof(fl_namespace), a, &items, n, err);
    if (rc == FL_OK)
        *out = items;
    fl_arena_free(&tmp);
    return rc;
}

fl_status rest_list_tables(fl_catalog *cat, const fl_namespace *ns, fl_arena *a,
                           const char ***names, uint32_t *n, fl_error *err)
{
    rest_catalog *c = RC(cat);
    *names = NULL;
    *n = 0;
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    const char *base = rest_url_ns(c, &tmp, ns, "/tables");
    const char *what = fl_arena_sprintf(&tmp, "list tables in %s", ns_name(ns, &tmp));
    fl_status rc = base && what ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    void *items = NULL;
    if (rc == FL_OK)
        rc = list_all(c, base, what, table_page, sizeof(const char *), a, &items, n, err);
    if (rc == FL_OK)
        *names = items;
    fl_arena_free(&tmp);
    return rc;
}

fl_status rest_load_namespace(fl_catalog *cat, const fl_namespace *ns, fl_arena *a,
                              fl_ice_map *props, fl_error *err)
{
    rest_catalog *c = RC(cat);
    memset(props, 0, sizeof *props);
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    const char *what = fl_arena_sprintf(&tmp, "load namespace %s", ns_name(ns, &tmp));
    rest_response r;
    fl_status rc =
        call_ok(c, "GET", rest_url_ns(c, &tmp, ns, NULL), NULL, what, FL_ECONFLICT, &r, err);
    if (rc == FL_OK) {
        rc = fl_rest_namespace_parse(r.body, r.len, a, props, err);
        if (rc != FL_OK)
            fl_error_prefix(err, "%s", what);
        rest_response_free(&r);
    }
    fl_arena_free(&tmp);
    return rc;
}

fl_status rest_update_namespace(fl_catalog *cat, const fl_namespace *ns, const fl_ice_map *set,
                                const char *const *remove, uint32_t nremove, fl_error *err)
{
    rest_catalog *c = RC(cat);
    char *body = NULL;
    fl_error jerr = {0};
    fl_rest_update_namespace_request_json(set, remove, nremove, &body, &jerr);
    if (!body)
        return fl_errorf(err, FL_ENOMEM, "update namespace: out of memory");
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    const char *what = fl_arena_sprintf(&tmp, "update namespace %s", ns_name(ns, &tmp));
    rest_response r;
    fl_status rc = call_ok(c, "POST", rest_url_ns(c, &tmp, ns, "/properties"), body, what,
                           FL_ECONFLICT, &r, err);
    if (rc == FL_OK)
        rest_response_free(&r);
    free(body);
    fl_arena_free(&tmp);
    return rc;
}

fl_status rest_drop_namespace(fl_catalog *cat, const fl_namespace *ns, fl_error *err)
{
    rest_catalog *c = RC(cat);
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    const char *what = fl_arena_sprintf(&tmp, "drop namespace %s", ns_name(ns, &tmp));
    rest_response r;
    fl_status rc =
        call_ok(c, "DELETE", rest_url_ns(c, &tmp, ns, NULL), NULL, what, FL_ECONFLICT, &r, err);
    if (rc == FL_OK)
        rest_response_free(&r);
    fl_arena_free(&tmp);
    return rc;
}
