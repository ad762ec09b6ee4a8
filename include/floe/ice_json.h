/*
 * ice_json.h - the JSON objects of Iceberg metadata, one at a time (jansson):
 * typed, path-aware field accessors and the parsers and writers of a schema,
 * partition spec, sort order, snapshot, ref, statistics file, partition
 * statistics file, encryption key and view version, exactly as the metadata
 * file parser reads them. For protocols that embed these objects (the REST
 * codec, include/floe/rest.h) without reading a whole metadata file.
 *
 * Every accessor takes the JSON path of the enclosing object ("snapshots[2]")
 * and a key, and on failure records "table metadata: <path>.<key>: <problem>"
 * as FL_ECORRUPT in ctx->err. Optional fields treat JSON null like an absent
 * key. Integers must be JSON integers (64-bit exact); a real is an error.
 *
 * Ownership: parsed strings and arrays live in ctx->a; the json_t arguments
 * are borrowed (never kept). Writers return a new reference (NULL on ENOMEM).
 */
#ifndef FLOE_ICE_JSON_H
#define FLOE_ICE_JSON_H

#include "floe/export.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"
#include "floe/ice_view.h"
#include "floe/iceberg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* JSON nesting allowed in schema types (struct/list/map depth). */
#define FL_ICE_MAX_TYPE_DEPTH 64

/* A parse: zero it, then set a, err and format_version (snapshot rules
 * follow it; 2 when unsure). The extras fields belong to the schema parser. */
typedef struct fl_ice_json_ctx {
    fl_arena *a;
    fl_error *err;
    int format_version;
    fl_ice_field_extra *extras;
    uint32_t nextras, cap_extras;
} fl_ice_json_ctx;

/* ---- paths and errors ---- */

/* "path.key" ("key" when path is empty); arena string, NULL on ENOMEM. */
FL_API const char *fl_ice_json_path(fl_ice_json_ctx *c, const char *path, const char *key);
/* "path.key[i]" */
FL_API const char *fl_ice_json_path_idx(fl_ice_json_ctx *c, const char *path, const char *key,
                                        size_t i);
/* Records "table metadata: <path>.<key>: <msg>" as FL_ECORRUPT. */
FL_API fl_status fl_ice_json_fail(fl_ice_json_ctx *c, const char *path, const char *key,
                                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* ---- field accessors ---- */

/* required=false: *present (may be NULL) tells whether the key held a
 * non-null value; *out is left untouched when absent. */
FL_API fl_status fl_ice_json_get_i64(fl_ice_json_ctx *c, json_t *obj, const char *path,
                                     const char *key, bool required, bool *present, int64_t *out);
FL_API fl_status fl_ice_json_get_i32(fl_ice_json_ctx *c, json_t *obj, const char *path,
                                     const char *key, bool required, bool *present, int32_t *out);
FL_API fl_status fl_ice_json_get_bool(fl_ice_json_ctx *c, json_t *obj, const char *path,
                                      const char *key, bool required, bool *present, bool *out);
/* *out = arena copy, or NULL when absent. */
FL_API fl_status fl_ice_json_get_str(fl_ice_json_ctx *c, json_t *obj, const char *path,
                                     const char *key, bool required, const char **out);
/* *out = the (borrowed) array / object, or NULL when absent. */
FL_API fl_status fl_ice_json_get_array(fl_ice_json_ctx *c, json_t *obj, const char *path,
                                       const char *key, bool required, json_t **out);
FL_API fl_status fl_ice_json_get_object(fl_ice_json_ctx *c, json_t *obj, const char *path,
                                        const char *key, bool required, json_t **out);
/* A string->string map; *present false when absent. */
FL_API fl_status fl_ice_json_get_map(fl_ice_json_ctx *c, json_t *obj, const char *path,
                                     const char *key, bool required, bool *present,
                                     fl_ice_map *out);
/* An array of int32. */
FL_API fl_status fl_ice_json_get_i32_array(fl_ice_json_ctx *c, json_t *obj, const char *path,
                                           const char *key, bool required, bool *present,
                                           int32_t **out, uint32_t *n);
/* Element i of arr must be an object. */
FL_API fl_status fl_ice_json_array_object(fl_ice_json_ctx *c, json_t *arr, size_t i,
                                          const char *path, const char *key, json_t **out);
/* Arena array of n zeroed elements, or NULL with ENOMEM recorded. */
FL_API void *fl_ice_json_alloc_array(fl_ice_json_ctx *c, size_t n, size_t size);

/* ---- writers of small values ---- */

/* Sets obj[key] = value (stolen); false on ENOMEM or a NULL value. */
FL_API bool fl_ice_json_set(json_t *obj, const char *key, json_t *value);
FL_API json_t *fl_ice_json_map(const fl_ice_map *m);
FL_API json_t *fl_ice_json_i32_array(const int32_t *v, uint32_t n);

/* ---- metadata objects ---- */

/* A schema; require_id: "schema-id" must be present. */
FL_API fl_status fl_ice_json_parse_schema(fl_ice_json_ctx *c, json_t *obj, const char *path,
                                          bool require_id, fl_ice_schema *out);
FL_API json_t *fl_ice_json_schema(const fl_ice_schema *s);
/* A partition spec (spec-id optional: -1 when absent; field-id optional: 0),
 * a sort order (order-id optional: -1), a snapshot, a ref (name not set), a
 * statistics file, a partition statistics file, an encryption key. */
FL_API fl_status fl_ice_json_parse_spec(fl_ice_json_ctx *c, json_t *o, const char *p,
                                        fl_ice_partition_spec *out);
FL_API fl_status fl_ice_json_parse_sort_order(fl_ice_json_ctx *c, json_t *o, const char *p,
                                              fl_ice_sort_order *out);
FL_API fl_status fl_ice_json_parse_snapshot(fl_ice_json_ctx *c, json_t *o, const char *p,
                                            fl_ice_snapshot *out);
FL_API fl_status fl_ice_json_parse_ref(fl_ice_json_ctx *c, json_t *o, const char *p,
                                       fl_ice_ref *out);
FL_API fl_status fl_ice_json_parse_statistics(fl_ice_json_ctx *c, json_t *o, const char *p,
                                              fl_ice_statistics_file *out);
FL_API fl_status fl_ice_json_parse_partition_statistics(fl_ice_json_ctx *c, json_t *o,
                                                        const char *p,
                                                        fl_ice_partition_statistics_file *out);
FL_API fl_status fl_ice_json_parse_encryption_key(fl_ice_json_ctx *c, json_t *o, const char *p,
                                                  fl_ice_encryption_key *out);
FL_API json_t *fl_ice_json_partition_statistics(const fl_ice_partition_statistics_file *f);
FL_API json_t *fl_ice_json_encryption_key(const fl_ice_encryption_key *k);
/* One view version object. */
FL_API fl_status fl_ice_json_parse_view_version(fl_ice_json_ctx *c, json_t *o, const char *p,
                                                fl_ice_view_version *v);
FL_API json_t *fl_ice_json_view_version(const fl_ice_view_version *v);

#ifdef __cplusplus
}
#endif

#endif
