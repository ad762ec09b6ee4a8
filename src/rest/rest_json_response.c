/*
 * rest_json_response.c - response bodies of the REST catalog (floe/rest.h):
 *
 *   LoadTableResult   {"metadata-location":L|null,"metadata":TableMetadata,"config":{..}}
 *                     (CommitTableResponse has the first two, both required)
 *   CatalogConfig     {"defaults":{..},"overrides":{..},["endpoints":[".."]],
 *                      ["idempotency-key-lifetime":"PT30M"]}
 *   ListNamespacesResponse {"namespaces":[[levels]],"next-page-token":T|null}
 *   ListTablesResponse     {"identifiers":[{"namespace":[..],"name":N}],"next-page-token":T|null}
 *   GetNamespaceResponse   {"namespace":[..],"properties":{..}|null}
 *   IcebergErrorResponse   {"error":{"message":M,"type":T,"code":N}}
 *   OAuthTokenResponse     {"access_token":A,"token_type":"bearer",["expires_in":N]}
 *
 * The table metadata is re-serialized from the parsed document and handed to
 * fl_ice_metadata_parse, so it gets exactly the checks a metadata file gets.
 * Responses are untrusted: the document depth is bounded by jansson
 * (2048 levels), sizes by the transport (REST_MAX_RESPONSE), and every
 * field is type-checked with a message naming it.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/ice_json.h"
#include "floe/rest.h"

fl_status fl_rest_json_load(const char *buf, size_t len, const char *what, json_t **out,
                            fl_error *err)
{
    json_error_t je;
    *out = json_loadb(buf ? buf : "", buf ? len : 0, JSON_REJECT_DUPLICATES, &je);
    if (!*out)
        return fl_errorf(err, FL_ESYNTAX, "%s: invalid JSON at line %d column %d (byte %d): %s",
                         what, je.line, je.column, je.position, je.text);
    if (!json_is_object(*out)) {
        json_decref(*out);
        *out = NULL;
        return fl_errorf(err, FL_ECORRUPT, "%s: expected a JSON object", what);
    }
    return FL_OK;
}

static fl_status bad(fl_error *err, const char *what, const char *field, const char *expect)
{
    return fl_errorf(err, FL_ECORRUPT, "%s: %s: expected %s", what, field, expect);
}

/* A string->string object into m (absent or null = empty). */
static fl_status get_map(json_t *o, const char *key, const char *what, fl_arena *a, fl_ice_map *m,
                         fl_error *err)
{
    memset(m, 0, sizeof *m);
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v))
        return FL_OK;
    if (!json_is_object(v))
        return bad(err, what, key, "an object of strings");
    size_t n = json_object_size(v);
    m->items = fl_arena_calloc(a, n + 1, sizeof *m->items);
    if (!m->items)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", what);
    const char *k;
    json_t *e;
    json_object_foreach(v, k, e)
    {
        if (!json_is_string(e))
            return fl_errorf(err, FL_ECORRUPT, "%s: %s.%.80s: expected a string", what, key, k);
        fl_ice_kv *kv = &m->items[m->n++];
        kv->key = fl_arena_strdup(a, k);
        kv->value = fl_arena_strdup(a, json_string_value(e));
        if (!kv->key || !kv->value)
            return fl_errorf(err, FL_ENOMEM, "%s: out of memory", what);
    }
    return FL_OK;
}

/* Optional string (null = absent). */
static fl_status get_str(json_t *o, const char *key, const char *what, bool required, fl_arena *a,
                         const char **out, fl_error *err)
{
    *out = NULL;
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v))
        return required ? fl_errorf(err, FL_ECORRUPT, "%s: %s: missing", what, key) : FL_OK;
    if (!json_is_string(v))
        return bad(err, what, key, "a string");
    *out = fl_arena_strdup(a, json_string_value(v));
    return *out ? FL_OK : fl_errorf(err, FL_ENOMEM, "%s: out of memory", what);
}

fl_status fl_rest_load_result_parse(const char *buf, size_t len, fl_arena *a,
                                    fl_rest_load_result *out, fl_error *err)
{
    static const char W[] = "LoadTableResult";
    memset(out, 0, sizeof *out);
    json_t *root;
    FL_TRY(fl_rest_json_load(buf, len, W, &root, err));
    fl_status rc = get_str(root, "metadata-location", W, false, a, &out->metadata_location, err);
    if (rc == FL_OK)
        rc = get_map(root, "config", W, a, &out->config, err);
    json_t *md = json_object_get(root, "metadata");
    if (rc == FL_OK && !json_is_object(md))
        rc = bad(err, W, "metadata", "a TableMetadata object");
    char *text = NULL;
    if (rc == FL_OK && !(text = json_dumps(md, JSON_COMPACT)))
        rc = fl_errorf(err, FL_ENOMEM, "%s: out of memory", W);
    if (rc == FL_OK) {
        rc = fl_ice_metadata_parse((const uint8_t *)text, strlen(text), NULL, a, &out->metadata,
                                   err);
        if (rc != FL_OK)
            fl_error_prefix(err, "%s.metadata", W);
    }
    free(text);
    json_decref(root);
    return rc;
}

static fl_status get_strings(json_t *o, const char *key, const char *what, fl_arena *a,
                             const char ***out, uint32_t *n, bool *present, fl_error *err)
{
    *out = NULL;
    *n = 0;
    json_t *v = json_object_get(o, key);
    *present = v && !json_is_null(v);
    if (!*present)
        return FL_OK;
    if (!json_is_array(v))
        return bad(err, what, key, "an array of strings");
    size_t len = json_array_size(v);
    const char **s = fl_arena_calloc(a, len + 1, sizeof *s);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", what);
    for (size_t i = 0; i < len; i++) {
        json_t *e = json_array_get(v, i);
        if (!json_is_string(e))
            return fl_errorf(err, FL_ECORRUPT, "%s: %s[%zu]: expected a string", what, key, i);
        if (!(s[i] = fl_arena_strdup(a, json_string_value(e))))
            return fl_errorf(err, FL_ENOMEM, "%s: out of memory", what);
    }
    *out = s;
    *n = (uint32_t)len;
    return FL_OK;
}

fl_status fl_rest_config_parse(const char *buf, size_t len, fl_arena *a, fl_rest_config *out,
                               fl_error *err)
{
    static const char W[] = "CatalogConfig";
    memset(out, 0, sizeof *out);
    json_t *root;
    FL_TRY(fl_rest_json_load(buf, len, W, &root, err));
    fl_status rc = get_map(root, "defaults", W, a, &out->defaults, err);
    if (rc == FL_OK)
        rc = get_map(root, "overrides", W, a, &out->overrides, err);
    if (rc == FL_OK)
        rc = get_strings(root, "endpoints", W, a, &out->endpoints, &out->nendpoints,
                         &out->has_endpoints, err);
    for (uint32_t i = 0; rc == FL_OK && i < out->nendpoints; i++)
        if (!strchr(out->endpoints[i], ' '))
            rc = fl_errorf(err, FL_ECORRUPT,
                           "%s: endpoints[%u]: expected \"<VERB> <path>\", got '%.80s'", W, i,
                           out->endpoints[i]);
    if (rc == FL_OK)
        rc = get_str(root, "idempotency-key-lifetime", W, false, a, &out->idempotency_key_lifetime,
                     err);
    json_decref(root);
    return rc;
}

static fl_status levels(json_t *arr, const char *what, const char *field, fl_arena *a,
                        fl_namespace *ns, fl_error *err)
{
    if (!json_is_array(arr))
        return bad(err, what, field, "an array of strings");
    size_t n = json_array_size(arr);
    if (n > 64)
        return fl_errorf(err, FL_ECORRUPT, "%s: %s: more than 64 levels", what, field);
    const char **lv = fl_arena_calloc(a, n + 1, sizeof *lv);
    if (!lv)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", what);
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(arr, i);
        if (!json_is_string(e))
            return fl_errorf(err, FL_ECORRUPT, "%s: %s[%zu]: expected a string", what, field, i);
        if (!(lv[i] = fl_arena_strdup(a, json_string_value(e))))
            return fl_errorf(err, FL_ENOMEM, "%s: out of memory", what);
    }
    ns->levels = lv;
    ns->nlevels = (uint32_t)n;
    return FL_OK;
}

static fl_status page_token(json_t *root, const char *what, fl_arena *a, const char **next,
                            fl_error *err)
{
    FL_TRY(get_str(root, "next-page-token", what, false, a, next, err));
    if (*next && !**next)
        *next = NULL; /* an empty token ends the listing too */
    return FL_OK;
}

fl_status fl_rest_namespaces_parse(const char *buf, size_t len, fl_arena *a, fl_namespace **out,
                                   uint32_t *n, const char **next_page_token, fl_error *err)
{
    static const char W[] = "ListNamespacesResponse";
    *out = NULL;
    *n = 0;
    json_t *root;
    FL_TRY(fl_rest_json_load(buf, len, W, &root, err));
    json_t *arr = json_object_get(root, "namespaces");
    fl_status rc = json_is_array(arr) ? FL_OK : bad(err, W, "namespaces", "an array");
    size_t cnt = rc == FL_OK ? json_array_size(arr) : 0;
    fl_namespace *v = NULL;
    if (rc == FL_OK && !(v = fl_arena_calloc(a, cnt + 1, sizeof *v)))
        rc = fl_errorf(err, FL_ENOMEM, "%s: out of memory", W);
    char field[40];
    for (size_t i = 0; rc == FL_OK && i < cnt; i++) {
        snprintf(field, sizeof field, "namespaces[%zu]", i);
        rc = levels(json_array_get(arr, i), W, field, a, &v[i], err);
    }
    if (rc == FL_OK)
        rc = page_token(root, W, a, next_page_token, err);
    if (rc == FL_OK) {
        *out = v;
        *n = (uint32_t)cnt;
    }
    json_decref(root);
    return rc;
}

fl_status fl_rest_tables_parse(const char *buf, size_t len, fl_arena *a, const char ***names,
                               uint32_t *n, const char **next_page_token, fl_error *err)
{
    static const char W[] = "ListTablesResponse";
    *names = NULL;
    *n = 0;
    json_t *root;
    FL_TRY(fl_rest_json_load(buf, len, W, &root, err));
    json_t *arr = json_object_get(root, "identifiers");
    fl_status rc = json_is_array(arr) ? FL_OK : bad(err, W, "identifiers", "an array");
    size_t cnt = rc == FL_OK ? json_array_size(arr) : 0;
    const char **v = NULL;
    if (rc == FL_OK && !(v = fl_arena_calloc(a, cnt + 1, sizeof *v)))
        rc = fl_errorf(err, FL_ENOMEM, "%s: out of memory", W);
    for (size_t i = 0; rc == FL_OK && i < cnt; i++) {
        json_t *e = json_array_get(arr, i), *name = json_object_get(e, "name");
        if (!json_is_object(e) || !json_is_string(name))
            rc = fl_errorf(err, FL_ECORRUPT, "%s: identifiers[%zu]: expected {namespace, name}", W,
                           i);
        else if (!(v[i] = fl_arena_strdup(a, json_string_value(name))))
            rc = fl_errorf(err, FL_ENOMEM, "%s: out of memory", W);
    }
    if (rc == FL_OK)
        rc = page_token(root, W, a, next_page_token, err);
    if (rc == FL_OK) {
        *names = v;
        *n = (uint32_t)cnt;
    }
    json_decref(root);
    return rc;
}

fl_status fl_rest_namespace_parse(const char *buf, size_t len, fl_arena *a, fl_ice_map *props,
                                  fl_error *err)
{
    static const char W[] = "GetNamespaceResponse";
    json_t *root;
    FL_TRY(fl_rest_json_load(buf, len, W, &root, err));
    fl_status rc = get_map(root, "properties", W, a, props, err);
    json_decref(root);
    return rc;
}

bool fl_rest_error_parse(const char *buf, size_t len, fl_arena *a, const char **type,
                         const char **message)
{
    *type = *message = NULL;
    json_t *root = buf ? json_loadb(buf, len, 0, NULL) : NULL;
    if (!json_is_object(root)) {
        json_decref(root);
        return false;
    }
    json_t *e = json_object_get(root, "error");
    const char *t = NULL, *m = NULL;
    if (json_is_object(e)) { /* IcebergErrorResponse */
        t = json_string_value(json_object_get(e, "type"));
        m = json_string_value(json_object_get(e, "message"));
    } else if (json_is_string(e)) { /* OAuthError */
        t = json_string_value(e);
        m = json_string_value(json_object_get(root, "error_description"));
    }
    bool ok = t || m;
    if (t)
        *type = fl_arena_strndup(a, t, strnlen(t, 200));
    if (m)
        *message = fl_arena_strndup(a, m, strnlen(m, 600));
    json_decref(root);
    return ok;
}

fl_status fl_rest_token_parse(const char *buf, size_t len, fl_arena *a, fl_rest_token *out,
                              fl_error *err)
{
    static const char W[] = "OAuthTokenResponse";
    memset(out, 0, sizeof *out);
    json_t *root;
    FL_TRY(fl_rest_json_load(buf, len, W, &root, err));
    fl_status rc = get_str(root, "access_token", W, true, a, &out->access_token, err);
    if (rc == FL_OK)
        rc = get_str(root, "token_type", W, true, a, &out->token_type, err);
    if (rc == FL_OK && strcasecmp(out->token_type, "bearer") != 0)
        rc = fl_errorf(err, FL_EUNSUPPORTED, "%s: token_type '%.40s' (only bearer is supported)", W,
                       out->token_type);
    json_t *exp = json_object_get(root, "expires_in");
    if (rc == FL_OK && exp && !json_is_null(exp)) {
        if (!json_is_integer(exp) || json_integer_value(exp) < 0)
            rc = bad(err, W, "expires_in", "a non-negative integer");
        else
            out->expires_in = (int64_t)json_integer_value(exp);
    }
    if (rc == FL_OK && (!*out->access_token || strpbrk(out->access_token, "\r\n")))
        rc = bad(err, W, "access_token", "a non-empty single-line string");
    json_decref(root);
    return rc;
}
