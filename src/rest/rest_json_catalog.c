/*
 * rest_json_catalog.c - the small catalog requests of the REST protocol
 * (floe/rest.h), both directions:
 *
 *   CreateNamespaceRequest  {"namespace":[levels],"properties":{..}}
 *   UpdateNamespacePropertiesRequest {"removals":[..],"updates":{..}}
 *   RegisterTableRequest    {"name":N,"metadata-location":L[,"overwrite":true]}
 *   RenameTableRequest      {"source":TableIdentifier,"destination":TableIdentifier}
 *   TableIdentifier         {"namespace":[levels],"name":N}
 *
 * The client emits them (src/catalog/rest_namespace.c, rest_table.c), the
 * server reads them (src/server/h_namespaces.c, h_tables.c). Readers are
 * the server's: namespaces have 1..64 non-empty levels without NUL bytes;
 * errors are FL_EINVAL naming the field ("destination.name: missing").
 */
#include <string.h>

#include "floe/ice_json.h"
#include "floe/rest.h"

#define BAD(...) fl_errorf(err, FL_EINVAL, __VA_ARGS__)

static fl_status oom(fl_error *err)
{
    return fl_errorf(err, FL_ENOMEM, "out of memory");
}

/* ---- readers ---- */

fl_status fl_rest_namespace_from_json(json_t *arr, const char *what, fl_arena *a, fl_namespace *ns,
                                      fl_error *err)
{
    memset(ns, 0, sizeof *ns);
    if (!json_is_array(arr) || json_array_size(arr) == 0 || json_array_size(arr) > 64)
        return BAD("%s must be a non-empty array of strings", what);
    size_t n = json_array_size(arr);
    const char **lv = fl_arena_calloc(a, n, sizeof *lv);
    if (!lv)
        return oom(err);
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(arr, i);
        if (!json_is_string(e) || !json_string_length(e) ||
            strlen(json_string_value(e)) != json_string_length(e))
            return BAD("%s[%zu] must be a non-empty string", what, i);
        if (!(lv[i] = fl_arena_strdup(a, json_string_value(e))))
            return oom(err);
    }
    ns->nlevels = (uint32_t)n;
    ns->levels = lv;
    return FL_OK;
}

fl_status fl_rest_properties_from_json(json_t *o, const char *what, fl_arena *a, fl_ice_map *m,
                                       fl_error *err)
{
    memset(m, 0, sizeof *m);
    if (!o || json_is_null(o))
        return FL_OK;
    if (!json_is_object(o))
        return BAD("%s must be an object", what);
    m->items = fl_arena_calloc(a, json_object_size(o) + 1, sizeof *m->items);
    if (!m->items)
        return oom(err);
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v)
    {
        if (!json_is_string(v))
            return BAD("%s.%s must be a string", what, k);
        m->items[m->n].key = fl_arena_strdup(a, k);
        m->items[m->n].value = fl_arena_strdup(a, json_string_value(v));
        if (!m->items[m->n].key || !m->items[m->n++].value)
            return oom(err);
    }
    return FL_OK;
}

fl_status fl_rest_ident_from_json(json_t *o, const char *what, fl_arena *a, fl_table_ident *id,
                                  fl_error *err)
{
    if (!json_is_object(o))
        return BAD("%s: missing", what);
    FL_TRY(fl_rest_namespace_from_json(json_object_get(o, "namespace"), what, a, &id->ns, err));
    const char *n = json_string_value(json_object_get(o, "name"));
    if (!n || !*n)
        return BAD("%s.name: missing", what);
    return (id->name = fl_arena_strdup(a, n)) ? FL_OK : oom(err);
}

fl_status fl_rest_create_namespace_request_from_json(json_t *body, fl_arena *a, fl_namespace *ns,
                                                     fl_ice_map *props, fl_error *err)
{
    memset(props, 0, sizeof *props);
    FL_TRY(
        fl_rest_namespace_from_json(json_object_get(body, "namespace"), "namespace", a, ns, err));
    return fl_rest_properties_from_json(json_object_get(body, "properties"), "properties", a, props,
                                        err);
}

fl_status fl_rest_update_namespace_request_from_json(json_t *body, fl_arena *a,
                                                     fl_rest_namespace_update *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    json_t *rem = json_object_get(body, "removals");
    FL_TRY(fl_rest_properties_from_json(json_object_get(body, "updates"), "updates", a,
                                        &out->updates, err));
    if (rem && !json_is_array(rem) && !json_is_null(rem))
        return BAD("removals must be an array");
    size_t n = json_is_array(rem) ? json_array_size(rem) : 0;
    const char **v = fl_arena_calloc(a, n + 1, sizeof *v);
    if (!v)
        return oom(err);
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(rem, i);
        if (!json_is_string(e))
            return BAD("removals[%zu] must be a string", i);
        if (!(v[i] = fl_arena_strdup(a, json_string_value(e))))
            return oom(err);
    }
    out->removals = v;
    out->nremovals = (uint32_t)n;
    return FL_OK;
}

fl_status fl_rest_register_request_from_json(json_t *body, fl_arena *a,
                                             fl_rest_register_request *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    const char *name = json_string_value(json_object_get(body, "name"));
    const char *mloc = json_string_value(json_object_get(body, "metadata-location"));
    out->overwrite = json_is_true(json_object_get(body, "overwrite"));
    if (!name || !*name || !mloc || !*mloc)
        return BAD("name and metadata-location are required");
    out->name = fl_arena_strdup(a, name);
    out->metadata_location = fl_arena_strdup(a, mloc);
    return out->name && out->metadata_location ? FL_OK : oom(err);
}

fl_status fl_rest_rename_request_from_json(json_t *body, fl_arena *a, fl_table_ident *from,
                                           fl_table_ident *to, fl_error *err)
{
    FL_TRY(fl_rest_ident_from_json(json_object_get(body, "source"), "source", a, from, err));
    return fl_rest_ident_from_json(json_object_get(body, "destination"), "destination", a, to, err);
}

/* ---- writers ---- */

static fl_status dump(json_t *o, bool ok, const char *what, char **out, fl_error *err)
{
    *out = ok ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return *out ? FL_OK : fl_errorf(err, FL_ENOMEM, "%s: out of memory", what);
}

static json_t *strings_json(const char *const *v, uint32_t n)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < n; i++)
        if (json_array_append_new(arr, json_string(v[i])) != 0) {
            json_decref(arr);
            return NULL;
        }
    return arr;
}

json_t *fl_rest_ident_json(const fl_table_ident *id)
{
    json_t *o = json_object();
    if (o && fl_ice_json_set(o, "namespace", strings_json(id->ns.levels, id->ns.nlevels)) &&
        fl_ice_json_set(o, "name", json_string(id->name)))
        return o;
    json_decref(o);
    return NULL;
}

fl_status fl_rest_create_namespace_request_json(const fl_namespace *ns, const fl_ice_map *props,
                                                char **out, fl_error *err)
{
    fl_ice_map empty = {0};
    json_t *o = json_object();
    bool ok = o && fl_ice_json_set(o, "namespace", strings_json(ns->levels, ns->nlevels)) &&
              fl_ice_json_set(o, "properties", fl_ice_json_map(props ? props : &empty));
    return dump(o, ok, "create namespace", out, err);
}

fl_status fl_rest_update_namespace_request_json(const fl_ice_map *set, const char *const *remove,
                                                uint32_t nremove, char **out, fl_error *err)
{
    fl_ice_map empty = {0};
    json_t *o = json_object();
    bool ok = o && fl_ice_json_set(o, "removals", strings_json(remove, nremove)) &&
              fl_ice_json_set(o, "updates", fl_ice_json_map(set ? set : &empty));
    return dump(o, ok, "update namespace", out, err);
}

fl_status fl_rest_register_request_json(const char *name, const char *metadata_location, char **out,
                                        fl_error *err)
{
    json_t *o = json_object();
    bool ok = o && fl_ice_json_set(o, "name", json_string(name)) &&
              fl_ice_json_set(o, "metadata-location", json_string(metadata_location));
    return dump(o, ok, "register table", out, err);
}

fl_status fl_rest_rename_request_json(const fl_table_ident *from, const fl_table_ident *to,
                                      char **out, fl_error *err)
{
    json_t *o = json_object();
    bool ok = o && fl_ice_json_set(o, "source", fl_rest_ident_json(from)) &&
              fl_ice_json_set(o, "destination", fl_rest_ident_json(to));
    return dump(o, ok, "rename table", out, err);
}
