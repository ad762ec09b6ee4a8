/*
 * rest_json_emit.c - the response bodies a REST catalog server answers with
 * (floe/rest.h), the ones rest_json_response.c reads on the client side:
 *
 *   LoadTableResult / CommitTableResponse {["metadata-location":L,]"metadata":M,"config":{}}
 *   LoadViewResult                        {"metadata-location":L,"metadata":M,"config":{}}
 *   ListTablesResponse / ListViewsResponse {"identifiers":[{namespace,name}],["next-page-token":T]}
 *   ListNamespacesResponse                 {"namespaces":[[levels]],["next-page-token":T]}
 *   GetNamespaceResponse / CreateNamespaceResponse {"namespace":[levels],"properties":{..}}
 *   IcebergErrorResponse                   {"error":{"message":M,"type":T,"code":N}}
 *
 * Metadata is written by iceberg's writers (Java's key order) and spliced in
 * as text, so a LoadTableResult carries the exact bytes of the metadata file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/ice_json.h"
#include "floe/rest.h"

static char *json_str(const char *s)
{
    json_t *j = json_string(s);
    char *out = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    json_decref(j);
    return out;
}

/* {["metadata-location":loc,]"metadata":text,"config":config} (config NULL = {}) */
static fl_status wrap(const char *location, char *text, size_t len, const char *config, char **out,
                      size_t *out_len, fl_error *err)
{
    if (!config)
        config = "{}";
    char *loc = NULL;
    *out = NULL;
    if (location && !(loc = json_str(location))) {
        free(text);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    size_t cap = len + (loc ? strlen(loc) : 0) + strlen(config) + 64;
    char *body = malloc(cap);
    if (body) {
        int n =
            loc ? snprintf(body, cap, "{\"metadata-location\":%s,\"metadata\":%s,\"config\":%s}",
                           loc, text, config)
                : snprintf(body, cap, "{\"metadata\":%s,\"config\":%s}", text, config);
        *out_len = (size_t)n;
    }
    free(text);
    free(loc);
    if (!body)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *out = body;
    return FL_OK;
}

fl_status fl_rest_load_result_json(const char *location, const fl_ice_metadata *m, char **out,
                                   size_t *out_len, fl_error *err)
{
    return fl_rest_load_result_config_json(location, m, NULL, out, out_len, err);
}

fl_status fl_rest_load_result_config_json(const char *location, const fl_ice_metadata *m,
                                          const char *config, char **out, size_t *out_len,
                                          fl_error *err)
{
    char *text = NULL;
    size_t len = 0;
    *out = NULL;
    FL_TRY(fl_ice_metadata_write(m, 0, &text, &len, err));
    return wrap(location, text, len, config, out, out_len, err);
}

fl_status fl_rest_load_view_result_json(const char *location, const fl_ice_view_metadata *m,
                                        char **out, size_t *out_len, fl_error *err)
{
    char *text = NULL;
    size_t len = 0;
    *out = NULL;
    FL_TRY(fl_ice_view_metadata_write(m, &text, &len, err));
    return wrap(location, text, len, NULL, out, out_len, err);
}

/* RFC 3986 unreserved kept, every other byte %XX (one URL path segment or query value). */
const char *fl_rest_url_encode(fl_arena *a, const char *s)
{
    static const char HEX[] = "0123456789ABCDEF";
    size_t n = strlen(s);
    char *o = fl_arena_alloc(a, n * 3 + 1);
    if (!o)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
            ch == '-' || ch == '.' || ch == '_' || ch == '~') {
            o[k++] = (char)ch;
        } else {
            o[k++] = '%';
            o[k++] = HEX[ch >> 4];
            o[k++] = HEX[ch & 15];
        }
    }
    o[k] = '\0';
    return o;
}

/* The namespace as one path segment: levels joined by 0x1F, encoded ("a%1Fb"). */
const char *fl_rest_namespace_path(fl_arena *a, const fl_namespace *ns)
{
    size_t n = 1;
    for (uint32_t i = 0; i < ns->nlevels; i++)
        n += strlen(ns->levels[i]) + 1;
    char *j = fl_arena_alloc(a, n);
    if (!j)
        return NULL;
    size_t k = 0;
    for (uint32_t i = 0; i < ns->nlevels; i++) {
        if (i)
            j[k++] = '\x1f';
        size_t l = strlen(ns->levels[i]);
        memcpy(j + k, ns->levels[i], l);
        k += l;
    }
    j[k] = '\0';
    return fl_rest_url_encode(a, j);
}

json_t *fl_rest_namespace_levels_json(const fl_namespace *ns)
{
    json_t *a = json_array();
    for (uint32_t i = 0; a && i < ns->nlevels; i++)
        if (json_array_append_new(a, json_string(ns->levels[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *page(const char *key, json_t *arr, const char *next)
{
    json_t *o = json_object();
    if (!o || !fl_ice_json_set(o, key, arr) ||
        (next && !fl_ice_json_set(o, "next-page-token", json_string(next)))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *fl_rest_identifiers_json(const fl_namespace *ns, const char *const *names, uint32_t n,
                                 const char *next_page_token)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < n; i++) {
        fl_table_ident id = {*ns, names[i]};
        json_t *o = fl_rest_ident_json(&id);
        if (!o || json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr ? page("identifiers", arr, next_page_token) : NULL;
}

json_t *fl_rest_namespaces_json(const fl_namespace *const *list, uint32_t n,
                                const char *next_page_token)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < n; i++) {
        json_t *o = fl_rest_namespace_levels_json(list[i]);
        if (!o || json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr ? page("namespaces", arr, next_page_token) : NULL;
}

json_t *fl_rest_namespace_json(const fl_namespace *ns, const fl_ice_map *props)
{
    fl_ice_map empty = {0};
    json_t *o = json_object();
    if (o && fl_ice_json_set(o, "namespace", fl_rest_namespace_levels_json(ns)) &&
        fl_ice_json_set(o, "properties", fl_ice_json_map(props ? props : &empty)))
        return o;
    json_decref(o);
    return NULL;
}

json_t *fl_rest_error_json(const char *message, const char *type, int code)
{
    return json_pack("{s:{s:s,s:s,s:i}}", "error", "message", message, "type", type, "code", code);
}
