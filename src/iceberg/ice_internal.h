/*
 * ice_internal.h - helpers shared by the Iceberg metadata parser and writer:
 * typed, path-aware accessors over jansson objects.
 *
 * Every accessor takes the JSON path of the enclosing object ("snapshots[2]")
 * and a key, and on failure records "table metadata: <path>.<key>: <problem>"
 * in ctx->err. Optional fields treat JSON null like an absent key. Integers
 * must be JSON integers (jansson keeps them as long long, so 64-bit ids are
 * exact); a JSON real where an integer is required is an error.
 * The public face of this header is include/floe/ice_json.h.
 */
#ifndef FLOE_ICE_INTERNAL_H
#define FLOE_ICE_INTERNAL_H

#include <jansson.h>

#include "floe/ice_json.h"
#include "floe/ice_view.h"
#include "floe/iceberg.h"

/* JSON nesting allowed in schema types (struct/list/map depth). */
#define ICE_MAX_TYPE_DEPTH FL_ICE_MAX_TYPE_DEPTH

/* The parse context is the public one (floe/ice_json.h, whose fl_ice_json_*
 * entry points forward to these helpers: ice_json_api.c). */
typedef fl_ice_json_ctx ice_ctx;

/* "path.key", "key" when path is empty; arena-allocated (NULL on ENOMEM). */
const char *ice_path(ice_ctx *c, const char *path, const char *key);
/* "path.key[i]" */
const char *ice_path_idx(ice_ctx *c, const char *path, const char *key, size_t i);

/* Records "table metadata: <path>.<key>: <msg>" as FL_ECORRUPT. */
fl_status ice_fail(ice_ctx *c, const char *path, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Field accessors. required=false: *present (may be NULL) tells whether the
 * key held a non-null value; *out is left untouched when absent. */
fl_status ice_get_i64(ice_ctx *c, json_t *obj, const char *path, const char *key, bool required,
                      bool *present, int64_t *out);
fl_status ice_get_i32(ice_ctx *c, json_t *obj, const char *path, const char *key, bool required,
                      bool *present, int32_t *out);
fl_status ice_get_bool(ice_ctx *c, json_t *obj, const char *path, const char *key, bool required,
                       bool *present, bool *out);
/* *out = arena copy or NULL when absent. */
fl_status ice_get_str(ice_ctx *c, json_t *obj, const char *path, const char *key, bool required,
                      const char **out);
/* *out = the array or NULL when absent. */
fl_status ice_get_array(ice_ctx *c, json_t *obj, const char *path, const char *key, bool required,
                        json_t **out);
fl_status ice_get_object(ice_ctx *c, json_t *obj, const char *path, const char *key, bool required,
                         json_t **out);
/* A string->string map; *present false when absent. */
fl_status ice_get_map(ice_ctx *c, json_t *obj, const char *path, const char *key, bool required,
                      bool *present, fl_ice_map *out);
/* An array of int32 ("identifier-field-ids", "source-ids", "fields"). */
fl_status ice_get_i32_array(ice_ctx *c, json_t *obj, const char *path, const char *key,
                            bool required, bool *present, int32_t **out, uint32_t *n);

/* Element i of array arr must be an object. */
fl_status ice_array_object(ice_ctx *c, json_t *arr, size_t i, const char *path, const char *key,
                           json_t **out);

/* Arena array of n zeroed elements, or ENOMEM recorded in c. n == 0 gives a
 * non-NULL pointer only when needed: callers keep n alongside. */
void *ice_alloc_array(ice_ctx *c, size_t n, size_t size);

/* Schema JSON (schema_json.c). */
fl_status ice_parse_schema(ice_ctx *c, json_t *obj, const char *path, bool require_id,
                           fl_ice_schema *out);
/* Returns a new reference, or NULL on ENOMEM. */
json_t *ice_schema_to_json(const fl_ice_schema *s);
bool ice_schema_equal(const fl_ice_schema *a, const fl_ice_schema *b);

/* Lower-cased copy of s with all spaces removed into buf; false if too long. */
bool ice_normalize_name(const char *s, char *buf, size_t cap);

/* jansson object setters that propagate ENOMEM as false. */
bool ice_set(json_t *obj, const char *key, json_t *value); /* steals value */
json_t *ice_map_to_json(const fl_ice_map *m);
json_t *ice_i32_array_to_json(const int32_t *v, uint32_t n);

/* Single objects of REST commit requests (metadata.c): a partition spec
 * (spec-id optional, -1 when absent; field-id optional, 0 when absent), a
 * sort order (order-id optional, -1), a snapshot, a ref (name not set), a
 * statistics file. Snapshot rules follow c->format_version. */
fl_status ice_parse_spec_object(ice_ctx *c, json_t *o, const char *p, fl_ice_partition_spec *out);
fl_status ice_parse_sort_order_object(ice_ctx *c, json_t *o, const char *p, fl_ice_sort_order *out);
fl_status ice_parse_snapshot_object(ice_ctx *c, json_t *o, const char *p, fl_ice_snapshot *out);
fl_status ice_parse_ref_object(ice_ctx *c, json_t *o, const char *p, fl_ice_ref *out);
fl_status ice_parse_statistics_object(ice_ctx *c, json_t *o, const char *p,
                                      fl_ice_statistics_file *out);
fl_status ice_parse_partition_statistics_object(ice_ctx *c, json_t *o, const char *p,
                                                fl_ice_partition_statistics_file *out);
fl_status ice_parse_encryption_key_object(ice_ctx *c, json_t *o, const char *p,
                                          fl_ice_encryption_key *out);
/* The JSON objects of one partition statistics file / encryption key, as in
 * table metadata (new references; NULL on allocation failure). */
json_t *ice_partition_statistics_json(const fl_ice_partition_statistics_file *f);
json_t *ice_encryption_key_json(const fl_ice_encryption_key *k);
/* One view version object (view.c); p names it in errors. */
fl_status ice_parse_view_version(ice_ctx *c, json_t *o, const char *p, fl_ice_view_version *v);
/* Its JSON object, as in view metadata (new reference; NULL on ENOMEM). */
json_t *ice_view_version_json(const fl_ice_view_version *v);

#endif
