/*
 * ice_json_api.c - the public entry points of include/floe/ice_json.h: each
 * forwards to the iceberg-internal helper of the same meaning
 * (ice_internal.h), so the metadata file parser and every protocol that
 * embeds metadata objects (src/rest) read them with one code path.
 */
#include <stdarg.h>
#include <stdio.h>

#include "iceberg/ice_internal.h"

const char *fl_ice_json_path(fl_ice_json_ctx *c, const char *path, const char *key)
{
    return ice_path(c, path, key);
}

const char *fl_ice_json_path_idx(fl_ice_json_ctx *c, const char *path, const char *key, size_t i)
{
    return ice_path_idx(c, path, key, i);
}

fl_status fl_ice_json_fail(fl_ice_json_ctx *c, const char *path, const char *key, const char *fmt,
                           ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ice_fail(c, path, key, "%s", msg);
}

fl_status fl_ice_json_get_i64(fl_ice_json_ctx *c, json_t *obj, const char *path, const char *key,
                              bool required, bool *present, int64_t *out)
{
    return ice_get_i64(c, obj, path, key, required, present, out);
}

fl_status fl_ice_json_get_i32(fl_ice_json_ctx *c, json_t *obj, const char *path, const char *key,
                              bool required, bool *present, int32_t *out)
{
    return ice_get_i32(c, obj, path, key, required, present, out);
}

fl_status fl_ice_json_get_bool(fl_ice_json_ctx *c, json_t *obj, const char *path, const char *key,
                               bool required, bool *present, bool *out)
{
    return ice_get_bool(c, obj, path, key, required, present, out);
}

fl_status fl_ice_json_get_str(fl_ice_json_ctx *c, json_t *obj, const char *path, const char *key,
                              bool required, const char **out)
{
    return ice_get_str(c, obj, path, key, required, out);
}

fl_status fl_ice_json_get_array(fl_ice_json_ctx *c, json_t *obj, const char *path, const char *key,
                                bool required, json_t **out)
{
    return ice_get_array(c, obj, path, key, required, out);
}

fl_status fl_ice_json_get_object(fl_ice_json_ctx *c, json_t *obj, const char *path, const char *key,
                                 bool required, json_t **out)
{
    return ice_get_object(c, obj, path, key, required, out);
}

fl_status fl_ice_json_get_map(fl_ice_json_ctx *c, json_t *obj, const char *path, const char *key,
                              bool required, bool *present, fl_ice_map *out)
{
    return ice_get_map(c, obj, path, key, required, present, out);
}

fl_status fl_ice_json_get_i32_array(fl_ice_json_ctx *c, json_t *obj, const char *path,
                                    const char *key, bool required, bool *present, int32_t **out,
                                    uint32_t *n)
{
    return ice_get_i32_array(c, obj, path, key, required, present, out, n);
}

fl_status fl_ice_json_array_object(fl_ice_json_ctx *c, json_t *arr, size_t i, const char *path,
                                   const char *key, json_t **out)
{
    return ice_array_object(c, arr, i, path, key, out);
}

void *fl_ice_json_alloc_array(fl_ice_json_ctx *c, size_t n, size_t size)
{
    return ice_alloc_array(c, n, size);
}

bool fl_ice_json_set(json_t *obj, const char *key, json_t *value)
{
    return ice_set(obj, key, value);
}

json_t *fl_ice_json_map(const fl_ice_map *m)
{
    return ice_map_to_json(m);
}

json_t *fl_ice_json_i32_array(const int32_t *v, uint32_t n)
{
    return ice_i32_array_to_json(v, n);
}

fl_status fl_ice_json_parse_schema(fl_ice_json_ctx *c, json_t *obj, const char *path,
                                   bool require_id, fl_ice_schema *out)
{
    return ice_parse_schema(c, obj, path, require_id, out);
}

json_t *fl_ice_json_schema(const fl_ice_schema *s)
{
    return ice_schema_to_json(s);
}

fl_status fl_ice_json_parse_spec(fl_ice_json_ctx *c, json_t *o, const char *p,
                                 fl_ice_partition_spec *out)
{
    return ice_parse_spec_object(c, o, p, out);
}

fl_status fl_ice_json_parse_sort_order(fl_ice_json_ctx *c, json_t *o, const char *p,
                                       fl_ice_sort_order *out)
{
    return ice_parse_sort_order_object(c, o, p, out);
}

fl_status fl_ice_json_parse_snapshot(fl_ice_json_ctx *c, json_t *o, const char *p,
                                     fl_ice_snapshot *out)
{
    return ice_parse_snapshot_object(c, o, p, out);
}

fl_status fl_ice_json_parse_ref(fl_ice_json_ctx *c, json_t *o, const char *p, fl_ice_ref *out)
{
    return ice_parse_ref_object(c, o, p, out);
}

fl_status fl_ice_json_parse_statistics(fl_ice_json_ctx *c, json_t *o, const char *p,
                                       fl_ice_statistics_file *out)
{
    return ice_parse_statistics_object(c, o, p, out);
}

fl_status fl_ice_json_parse_partition_statistics(fl_ice_json_ctx *c, json_t *o, const char *p,
                                                 fl_ice_partition_statistics_file *out)
{
    return ice_parse_partition_statistics_object(c, o, p, out);
}

fl_status fl_ice_json_parse_encryption_key(fl_ice_json_ctx *c, json_t *o, const char *p,
                                           fl_ice_encryption_key *out)
{
    return ice_parse_encryption_key_object(c, o, p, out);
}

json_t *fl_ice_json_partition_statistics(const fl_ice_partition_statistics_file *f)
{
    return ice_partition_statistics_json(f);
}

json_t *fl_ice_json_encryption_key(const fl_ice_encryption_key *k)
{
    return ice_encryption_key_json(k);
}

fl_status fl_ice_json_parse_view_version(fl_ice_json_ctx *c, json_t *o, const char *p,
                                         fl_ice_view_version *v)
{
    return ice_parse_view_version(c, o, p, v);
}

json_t *fl_ice_json_view_version(const fl_ice_view_version *v)
{
    return ice_view_version_json(v);
}
