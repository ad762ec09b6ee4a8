/*
 * ice_json.c - typed, path-aware field accessors over jansson values for the
 * Iceberg table metadata parser (see ice_internal.h), and small writer
 * helpers. Strings and arrays returned to callers are copied into the parse
 * arena; jansson values are freed by the caller of json_loadb once parsing is
 * done.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "iceberg/ice_internal.h"

const char *ice_path(ice_ctx *c, const char *path, const char *key)
{
    const char *r =
        (path && *path) ? fl_arena_sprintf(c->a, "%s.%s", path, key) : fl_arena_strdup(c->a, key);
    if (!r)
        fl_errorf(c->err, FL_ENOMEM, "table metadata: out of memory");
    return r;
}

const char *ice_path_idx(ice_ctx *c, const char *path, const char *key, size_t i)
{
    const char *r = (path && *path) ? fl_arena_sprintf(c->a, "%s.%s[%zu]", path, key, i)
                                    : fl_arena_sprintf(c->a, "%s[%zu]", key, i);
    if (!r)
        fl_errorf(c->err, FL_ENOMEM, "table metadata: out of memory");
    return r;
}

fl_status ice_fail(ice_ctx *c, const char *path, const char *key, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    bool has_path = path && *path;
    bool has_key = key && *key;
    return fl_errorf(c->err, FL_ECORRUPT, "table metadata: %s%s%s: %s", has_path ? path : "",
                     has_path && has_key ? "." : "", has_key ? key : "", msg);
}

/* Looks up key; NULL when absent or null. Fails when required and absent. */
static fl_status lookup(ice_ctx *c, json_t *obj, const char *path, const char *key, bool required,
                        json_t **out)
{
    *out = NULL; /* set on every path, so callers' FL_TRY paths read no garbage */
    json_t *v = json_object_get(obj, key);
    if (v && json_is_null(v))
        v = NULL;
    if (!v && required)
        return ice_fail(c, path, key, "missing");
    *out = v;
    return FL_OK;
}

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "object";
    case JSON_ARRAY: return "array";
    case JSON_STRING: return "string";
    case JSON_INTEGER: return "integer";
    case JSON_REAL: return "real number";
    case JSON_TRUE:
    case JSON_FALSE: return "boolean";
    case JSON_NULL: return "null";
    }
    return "value";
}

fl_status ice_get_i64(ice_ctx *c, json_t *obj, const char *path, const char *key, bool required,
                      bool *present, int64_t *out)
{
    json_t *v = NULL;
    FL_TRY(lookup(c, obj, path, key, required, &v));
    if (present)
        *present = v != NULL;
    if (!v)
        return FL_OK;
    if (!json_is_integer(v))
        return ice_fail(c, path, key, "expected an integer, got %s", json_kind(v));
    *out = (int64_t)json_integer_value(v);
    return FL_OK;
}

fl_status ice_get_i32(ice_ctx *c, json_t *obj, const char *path, const char *key, bool required,
                      bool *present, int32_t *out)
{
    int64_t v = 0;
    bool have = false;
    FL_TRY(ice_get_i64(c, obj, path, key, required, &have, &v));
    if (present)
        *present = have;
    if (!have)
        return FL_OK;
    if (v < INT32_MIN || v > INT32_MAX)
        return ice_fail(c, path, key, "%lld does not fit in a 32-bit int", (long long)v);
    *out = (int32_t)v;
    return FL_OK;
}

fl_status ice_get_bool(ice_ctx *c, json_t *obj, const char *path, const char *key, bool required,
                       bool *present, bool *out)
{
    json_t *v = NULL;
    FL_TRY(lookup(c, obj, path, key, required, &v));
    if (present)
        *present = v != NULL;
    if (!v)
        return FL_OK;
    if (!json_is_boolean(v))
        return ice_fail(c, path, key, "expected a boolean, got %s", json_kind(v));
    *out = json_is_true(v);
    return FL_OK;
}

fl_status ice_get_str(ice_ctx *c, json_t *obj, const char *path, const char *key, bool required,
                      const char **out)
{
    json_t *v = NULL;
    *out = NULL;
    FL_TRY(lookup(c, obj, path, key, required, &v));
    if (!v)
        return FL_OK;
    if (!json_is_string(v))
        return ice_fail(c, path, key, "expected a string, got %s", json_kind(v));
    char *s = fl_arena_strndup(c->a, json_string_value(v), json_string_length(v));
    if (!s)
        return fl_errorf(c->err, FL_ENOMEM, "table metadata: out of memory");
    if (strlen(s) != json_string_length(v))
        return ice_fail(c, path, key, "string contains a NUL character");
    *out = s;
    return FL_OK;
}

fl_status ice_get_array(ice_ctx *c, json_t *obj, const char *path, const char *key, bool required,
                        json_t **out)
{
    FL_TRY(lookup(c, obj, path, key, required, out));
    if (*out && !json_is_array(*out))
        return ice_fail(c, path, key, "expected an array, got %s", json_kind(*out));
    return FL_OK;
}

fl_status ice_get_object(ice_ctx *c, json_t *obj, const char *path, const char *key, bool required,
                         json_t **out)
{
    FL_TRY(lookup(c, obj, path, key, required, out));
    if (*out && !json_is_object(*out))
        return ice_fail(c, path, key, "expected an object, got %s", json_kind(*out));
    return FL_OK;
}

void *ice_alloc_array(ice_ctx *c, size_t n, size_t size)
{
    void *p = fl_arena_calloc(c->a, n ? n : 1, size);
    if (!p)
        fl_errorf(c->err, FL_ENOMEM, "table metadata: out of memory");
    return p;
}

fl_status ice_get_map(ice_ctx *c, json_t *obj, const char *path, const char *key, bool required,
                      bool *present, fl_ice_map *out)
{
    json_t *m;
    out->n = 0;
    out->items = NULL;
    FL_TRY(ice_get_object(c, obj, path, key, required, &m));
    if (present)
        *present = m != NULL;
    if (!m)
        return FL_OK;
    const char *mpath = ice_path(c, path, key);
    if (!mpath)
        return FL_ENOMEM;
    out->items = ice_alloc_array(c, json_object_size(m), sizeof *out->items);
    if (!out->items)
        return FL_ENOMEM;
    const char *k;
    json_t *v = NULL;
    json_object_foreach(m, k, v)
    {
        fl_ice_kv *kv = &out->items[out->n];
        FL_TRY(ice_get_str(c, m, mpath, k, true, &kv->value));
        kv->key = fl_arena_strdup(c->a, k);
        if (!kv->key)
            return fl_errorf(c->err, FL_ENOMEM, "table metadata: out of memory");
        out->n++;
    }
    return FL_OK;
}

fl_status ice_get_i32_array(ice_ctx *c, json_t *obj, const char *path, const char *key,
                            bool required, bool *present, int32_t **out, uint32_t *n)
{
    json_t *arr;
    *out = NULL;
    *n = 0;
    FL_TRY(ice_get_array(c, obj, path, key, required, &arr));
    if (present)
        *present = arr != NULL;
    if (!arr)
        return FL_OK;
    size_t len = json_array_size(arr);
    int32_t *v = ice_alloc_array(c, len, sizeof *v);
    if (!v)
        return FL_ENOMEM;
    for (size_t i = 0; i < len; i++) {
        json_t *e = json_array_get(arr, i);
        if (!json_is_integer(e) || json_integer_value(e) < INT32_MIN ||
            json_integer_value(e) > INT32_MAX) {
            const char *p = ice_path_idx(c, path, key, i);
            return p ? ice_fail(c, p, NULL, "expected a 32-bit integer") : FL_ENOMEM;
        }
        v[i] = (int32_t)json_integer_value(e);
    }
    *out = v;
    *n = (uint32_t)len;
    return FL_OK;
}

fl_status ice_array_object(ice_ctx *c, json_t *arr, size_t i, const char *path, const char *key,
                           json_t **out)
{
    *out = json_array_get(arr, i);
    if (!json_is_object(*out)) {
        const char *p = ice_path_idx(c, path, key, i);
        return p ? ice_fail(c, p, NULL, "expected an object, got %s", json_kind(*out)) : FL_ENOMEM;
    }
    return FL_OK;
}

bool ice_normalize_name(const char *s, char *buf, size_t cap)
{
    size_t n = 0;
    for (; *s; s++) {
        if (*s == ' ')
            continue;
        if (n + 1 >= cap)
            return false;
        buf[n++] = (char)tolower((unsigned char)*s);
    }
    buf[n] = 0;
    return true;
}

bool ice_set(json_t *obj, const char *key, json_t *value)
{
    return value && json_object_set_new(obj, key, value) == 0;
}

json_t *ice_map_to_json(const fl_ice_map *m)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    for (uint32_t i = 0; i < m->n; i++) {
        if (!ice_set(o, m->items[i].key, json_string(m->items[i].value))) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

json_t *ice_i32_array_to_json(const int32_t *v, uint32_t n)
{
    json_t *a = json_array();
    if (!a)
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        if (json_array_append_new(a, json_integer(v[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}
