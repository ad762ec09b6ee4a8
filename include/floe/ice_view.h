/*
 * ice_view.h - Iceberg view metadata (apache/iceberg format/view-spec.md):
 * the *.metadata.json file of a view, parsed into plain structs, written
 * back in Java's key order, and changed by the REST catalog's view updates
 * with the semantics of Java's ViewMetadata.Builder.
 *
 * A view is a list of versions (each: schema id, SQL representations by
 * dialect, default catalog/namespace, summary), the id of the current one,
 * the schemas those versions use, and a version log of every change of the
 * current version.
 *
 * Ownership: everything reachable from a parsed or applied
 * fl_ice_view_metadata lives in the arena passed in; results of apply may
 * share memory with the base and the updates (both must outlive them).
 */
#ifndef FLOE_ICE_VIEW_H
#define FLOE_ICE_VIEW_H

#include "floe/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"
#include "floe/iceberg.h"
#include "floe/io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whose rights a view's query runs with (docs/security.md), in the summary
 * of each view version: FL_ICE_VIEW_DEFINER names the principal that wrote
 * the version (a definer view, as PostgreSQL's and Trino's default), set by
 * floe itself (SQL CREATE VIEW; the REST server overwrites whatever a
 * client sent with the authenticated principal). FL_ICE_VIEW_SECURITY =
 * "invoker" makes it an invoker view. A version with neither runs with the
 * invoker's rights, which never grant more than the reader holds. */
#define FL_ICE_VIEW_DEFINER "floe.definer"
#define FL_ICE_VIEW_SECURITY "floe.security"

typedef struct fl_ice_view_representation {
    const char *type;    /* "sql"; other types are kept as raw JSON */
    const char *sql;     /* type "sql" */
    const char *dialect; /* type "sql" */
    const char *raw;     /* compact JSON of a representation of another type, else NULL */
} fl_ice_view_representation;

typedef struct fl_ice_view_version {
    int32_t version_id;
    int32_t schema_id; /* -1 in an update = the schema added last */
    int64_t timestamp_ms;
    fl_ice_map summary;
    uint32_t nrepresentations;
    fl_ice_view_representation *representations;
    const char *default_catalog; /* NULL when absent */
    uint32_t ndefault_namespace;
    const char **default_namespace;
} fl_ice_view_version;

typedef struct fl_ice_view_log_entry {
    int64_t timestamp_ms;
    int32_t version_id;
} fl_ice_view_log_entry;

typedef struct fl_ice_view_metadata {
    const char *view_uuid;
    int32_t format_version; /* 1 */
    const char *location;
    uint32_t nschemas;
    fl_ice_schema *schemas;
    int32_t current_version_id;
    uint32_t nversions;
    fl_ice_view_version *versions;
    uint32_t nversion_log;
    fl_ice_view_log_entry *version_log;
    fl_ice_map properties;
} fl_ice_view_metadata;

/* Parses view metadata JSON; errors name the field ("view metadata:
 * versions[1].representations: missing"). FL_EUNSUPPORTED for a
 * format-version other than 1. */
FL_API fl_status fl_ice_view_metadata_parse(const uint8_t *buf, size_t len, const char *name,
                                            fl_arena *a, fl_ice_view_metadata *out, fl_error *err);
FL_API fl_status fl_ice_view_metadata_read(fl_fileio *io, const char *path, fl_arena *a,
                                           fl_ice_view_metadata *out, fl_error *err);
/* JSON in Java's key order; *out malloc'd (caller frees). */
FL_API fl_status fl_ice_view_metadata_write(const fl_ice_view_metadata *m, char **out,
                                            size_t *out_len, fl_error *err);
FL_API const fl_ice_view_version *fl_ice_view_current_version(const fl_ice_view_metadata *m);

typedef enum fl_ice_view_update_kind {
    FL_ICE_VIEW_UPD_ASSIGN_UUID = 1,
    FL_ICE_VIEW_UPD_UPGRADE_FORMAT_VERSION,
    FL_ICE_VIEW_UPD_ADD_SCHEMA,
    FL_ICE_VIEW_UPD_SET_LOCATION,
    FL_ICE_VIEW_UPD_SET_PROPERTIES,
    FL_ICE_VIEW_UPD_REMOVE_PROPERTIES,
    FL_ICE_VIEW_UPD_ADD_VERSION,
    FL_ICE_VIEW_UPD_SET_CURRENT_VERSION, /* version_id -1 = the version added last */
} fl_ice_view_update_kind;

typedef struct fl_ice_view_update {
    fl_ice_view_update_kind kind;
    const char *uuid;
    int32_t format_version;
    const fl_ice_schema *schema;
    const char *location;
    fl_ice_map properties;
    const char *const *removals;
    uint32_t nremovals;
    const fl_ice_view_version *version;
    int32_t version_id;
} fl_ice_view_update;

/* Applies updates to base (NULL = a new view: the updates must give it a
 * location, a schema and a current version; a uuid is assigned if none).
 * As Java's ViewMetadata.Builder: add-schema reuses an identical schema's id
 * (else max+1); add-view-version reuses an equal version (same schema,
 * representations, default catalog/namespace) else gets max+1, schema-id -1
 * = the schema added last, one SQL representation per dialect;
 * set-current-view-version logs (now_ms, id) when the current version
 * changes; versions beyond version.history.num-entries (default 10) are
 * dropped oldest first (never the current one). *changed tells whether
 * anything differs from base. Invalid updates are FL_EINVAL naming the update. */
FL_API fl_status fl_ice_view_metadata_apply(const fl_ice_view_metadata *base,
                                            const fl_ice_view_update *u, uint32_t n, int64_t now_ms,
                                            fl_arena *a, fl_ice_view_metadata *out, bool *changed,
                                            fl_error *err);

#ifdef __cplusplus
}
#endif
#endif
