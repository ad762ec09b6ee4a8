/*
 * rest.h - JSON of the Iceberg REST catalog protocol
 * (../shared/reference/rest-catalog-open-api.yaml), both directions, with
 * no HTTP in it: the REST client uses it, the server and the fuzzer may too.
 *
 *   TableUpdate      <-> fl_ice_update       (src/rest/rest_json_update.c)
 *   TableRequirement <-> fl_ice_requirement  (src/rest/rest_json_update.c)
 *   CommitTableRequest, CreateTableRequest   (src/rest/rest_json_request.c)
 *   LoadTableResult, CatalogConfig, list pages, IcebergErrorResponse,
 *   OAuthTokenResponse                        (src/rest/rest_json_response.c)
 *
 * Parsing never trusts its input: every field is type-checked, errors name
 * the JSON path ("updates[3].snapshot.summary: ..."), and parsed strings are
 * copied into the caller's arena. Update types of the spec that floe's
 * metadata layer has no representation for (set-partition-statistics,
 * remove-partition-statistics, add-encryption-key, remove-encryption-key)
 * and view updates parse as FL_EUNSUPPORTED naming the action.
 */
#ifndef FLOE_REST_H
#define FLOE_REST_H

#include "floe/export.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "floe/catalog.h"
#include "floe/ice_table.h"
#include "floe/ice_view.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- updates and requirements ---- */

/* The spec's "action" / "type" name of a kind, or NULL. */
FL_API const char *fl_rest_update_action(fl_ice_update_kind k);
FL_API const char *fl_rest_requirement_type(fl_ice_requirement_kind k);

/* New JSON object (caller decrefs). FL_EINVAL for an update missing its
 * payload, FL_ENOMEM. */
FL_API fl_status fl_rest_update_to_json(const fl_ice_update *u, json_t **out, fl_error *err);
FL_API fl_status fl_rest_requirement_to_json(const fl_ice_requirement *r, json_t **out,
                                             fl_error *err);

/* From JSON; path names j in errors. Strings, schemas, snapshots... in a. */
FL_API fl_status fl_rest_update_from_json(json_t *j, const char *path, fl_arena *a,
                                          fl_ice_update *out, fl_error *err);
FL_API fl_status fl_rest_requirement_from_json(json_t *j, const char *path, fl_arena *a,
                                               fl_ice_requirement *out, fl_error *err);

/* ---- requests ---- */

/* CommitTableRequest; id NULL omits "identifier" (single-table commits).
 * *out malloc'd, NUL-terminated. */
FL_API fl_status fl_rest_commit_request_json(const fl_table_ident *id,
                                             const fl_ice_requirement *req, uint32_t nreq,
                                             const fl_ice_update *upd, uint32_t nupd, char **out,
                                             fl_error *err);

typedef struct fl_rest_commit_request {
    bool has_identifier;
    fl_table_ident identifier;
    fl_ice_requirement *requirements;
    uint32_t nrequirements;
    fl_ice_update *updates;
    uint32_t nupdates;
} fl_rest_commit_request;
/* The spec's shape: an object with arrays "requirements" and "updates",
 * "identifier" optional; a view action is FL_EUNSUPPORTED. */
FL_API fl_status fl_rest_commit_request_parse(const char *buf, size_t len, fl_arena *a,
                                              fl_rest_commit_request *out, fl_error *err);

/* Most requirements or updates one request may carry (FL_ELIMIT beyond). */
#define FL_REST_MAX_CHANGES 10000

/* A parsed request object. strict: as fl_rest_commit_request_parse. Not
 * strict (how the server reads a request): "requirements" may be absent or
 * null, a view action is FL_EINVAL ("updates[2]: not a table update (...)"),
 * and "identifier" is not read (the route or the transaction names the
 * table). Errors name the element ("updates[2].snapshot.manifest-list"). */
FL_API fl_status fl_rest_commit_request_from_json(json_t *root, bool strict, fl_arena *a,
                                                  fl_rest_commit_request *out, fl_error *err);

/* CreateTableRequest from tmpl's current schema, default spec and sort
 * order, properties (+ "format-version"); location NULL = omitted. */
FL_API fl_status fl_rest_create_request_json(const char *name, const fl_ice_metadata *tmpl,
                                             const char *location, bool stage, char **out,
                                             fl_error *err);

/* A CreateTableRequest as the server reads it (src/rest/rest_json_create.c):
 * the requester's schema, spec and order with the requester's ids (give them
 * to fl_ice_fresh_table_ids, include/floe/ice_table.h). Errors are FL_EINVAL
 * naming the field ("schema: missing", "properties.format-version: ..."). */
typedef struct fl_rest_create_request {
    const char *name;     /* NULL when absent */
    const char *location; /* NULL when absent or empty; trailing '/' removed */
    fl_ice_schema schema;
    bool has_spec, has_order; /* "partition-spec" / "write-order" objects given */
    fl_ice_partition_spec spec;
    fl_ice_sort_order order;
    fl_ice_map properties;  /* without "format-version" */
    int32_t format_version; /* properties["format-version"], default 2 */
    bool stage_create;
} fl_rest_create_request;
FL_API fl_status fl_rest_create_request_from_json(json_t *body, fl_arena *a,
                                                  fl_rest_create_request *out, fl_error *err);

/* ---- views (src/rest/rest_json_view.c) ---- */

/* A ViewVersion of a request ("version-id" may be omitted: 0); *out in a. */
FL_API fl_status fl_rest_view_version_from_json(json_t *o, const char *path, fl_arena *a,
                                                fl_ice_view_version **out, fl_error *err);
/* A ViewUpdate; *added (may be NULL) gets the version an add-view-version
 * carries, writable, so that the server can stamp its definer. A table-only
 * action is FL_EINVAL ("updates[0]: 'add-spec' is not a view update"). */
FL_API fl_status fl_rest_view_update_from_json(json_t *o, const char *path, fl_arena *a,
                                               fl_ice_view_update *u, fl_ice_view_version **added,
                                               fl_error *err);
/* New JSON object (caller decrefs). */
FL_API fl_status fl_rest_view_update_to_json(const fl_ice_view_update *u, json_t **out,
                                             fl_error *err);

typedef struct fl_rest_create_view_request {
    const char *name;
    const char *location; /* NULL when absent or empty */
    fl_ice_schema schema;
    fl_ice_view_version *version; /* writable (the server stamps the definer) */
    fl_ice_map properties;
} fl_rest_create_view_request;
FL_API fl_status fl_rest_create_view_request_from_json(json_t *body, fl_arena *a,
                                                       fl_rest_create_view_request *out,
                                                       fl_error *err);

/* A view's CommitViewRequest {"requirements":[{"type":"assert-view-uuid",
 * "uuid":U}],"updates":[ViewUpdate]}. */
typedef struct fl_rest_view_commit_request {
    const char *assert_uuid; /* NULL without an assert-view-uuid */
    fl_ice_view_update *updates;
    uint32_t nupdates;
    fl_ice_view_version **added; /* per update: its writable added version, or NULL */
} fl_rest_view_commit_request;
FL_API fl_status fl_rest_view_commit_request_from_json(json_t *body, fl_arena *a,
                                                       fl_rest_view_commit_request *out,
                                                       fl_error *err);

/* ---- namespaces, register, rename (src/rest/rest_json_catalog.c) ---- */

/* Readers, as the server reads: a namespace is 1..64 non-empty levels
 * ("namespace must be a non-empty array of strings"); properties absent or
 * null are empty; errors FL_EINVAL naming what. Strings in a. */
FL_API fl_status fl_rest_namespace_from_json(json_t *arr, const char *what, fl_arena *a,
                                             fl_namespace *ns, fl_error *err);
FL_API fl_status fl_rest_properties_from_json(json_t *o, const char *what, fl_arena *a,
                                              fl_ice_map *m, fl_error *err);
/* TableIdentifier {"namespace":[..],"name":N}. */
FL_API fl_status fl_rest_ident_from_json(json_t *o, const char *what, fl_arena *a,
                                         fl_table_ident *id, fl_error *err);
FL_API fl_status fl_rest_create_namespace_request_from_json(json_t *body, fl_arena *a,
                                                            fl_namespace *ns, fl_ice_map *props,
                                                            fl_error *err);
typedef struct fl_rest_namespace_update {
    fl_ice_map updates;
    const char *const *removals;
    uint32_t nremovals;
} fl_rest_namespace_update;
FL_API fl_status fl_rest_update_namespace_request_from_json(json_t *body, fl_arena *a,
                                                            fl_rest_namespace_update *out,
                                                            fl_error *err);
typedef struct fl_rest_register_request {
    const char *name, *metadata_location;
    bool overwrite;
} fl_rest_register_request;
FL_API fl_status fl_rest_register_request_from_json(json_t *body, fl_arena *a,
                                                    fl_rest_register_request *out, fl_error *err);
FL_API fl_status fl_rest_rename_request_from_json(json_t *body, fl_arena *a, fl_table_ident *from,
                                                  fl_table_ident *to, fl_error *err);

/* Writers: *out malloc'd, NUL-terminated compact JSON. */
FL_API json_t *fl_rest_ident_json(const fl_table_ident *id); /* new reference, NULL on ENOMEM */
FL_API fl_status fl_rest_create_namespace_request_json(const fl_namespace *ns,
                                                       const fl_ice_map *props, char **out,
                                                       fl_error *err);
FL_API fl_status fl_rest_update_namespace_request_json(const fl_ice_map *set,
                                                       const char *const *remove, uint32_t nremove,
                                                       char **out, fl_error *err);
FL_API fl_status fl_rest_register_request_json(const char *name, const char *metadata_location,
                                               char **out, fl_error *err);
FL_API fl_status fl_rest_rename_request_json(const fl_table_ident *from, const fl_table_ident *to,
                                             char **out, fl_error *err);

/* ---- responses ---- */

/* Writers of what a server answers (src/rest/rest_json_emit.c); the readers
 * below read them back. LoadTableResult / CommitTableResponse: location NULL
 * for a staged table; the metadata is written by fl_ice_metadata_write.
 * *out malloc'd (NUL-terminated, *out_len bytes). */
FL_API fl_status fl_rest_load_result_json(const char *location, const fl_ice_metadata *m,
                                          char **out, size_t *out_len, fl_error *err);
/* The same with a `config` object given as JSON text (NULL = {}). */
FL_API fl_status fl_rest_load_result_config_json(const char *location, const fl_ice_metadata *m,
                                                 const char *config, char **out, size_t *out_len,
                                                 fl_error *err);
FL_API fl_status fl_rest_load_view_result_json(const char *location, const fl_ice_view_metadata *m,
                                               char **out, size_t *out_len, fl_error *err);
/* New references, NULL on ENOMEM: a namespace's levels array; a list page
 * of table or view identifiers in ns; a list page of namespaces;
 * GetNamespaceResponse; IcebergErrorResponse. next_page_token NULL = none. */
/* URL pieces (arena; NULL on ENOMEM): s with every byte outside RFC 3986's unreserved set
 * %XX-encoded; a namespace as one path segment (levels joined by 0x1F, then encoded). */
FL_API const char *fl_rest_url_encode(fl_arena *a, const char *s);
FL_API const char *fl_rest_namespace_path(fl_arena *a, const fl_namespace *ns);
FL_API json_t *fl_rest_namespace_levels_json(const fl_namespace *ns);
FL_API json_t *fl_rest_identifiers_json(const fl_namespace *ns, const char *const *names,
                                        uint32_t n, const char *next_page_token);
FL_API json_t *fl_rest_namespaces_json(const fl_namespace *const *list, uint32_t n,
                                       const char *next_page_token);
FL_API json_t *fl_rest_namespace_json(const fl_namespace *ns, const fl_ice_map *props);
FL_API json_t *fl_rest_error_json(const char *message, const char *type, int code);

typedef struct fl_rest_load_result {
    const char *metadata_location; /* NULL when staged */
    fl_ice_metadata metadata;
    fl_ice_map config;
} fl_rest_load_result;
/* LoadTableResult / CommitTableResponse. */
FL_API fl_status fl_rest_load_result_parse(const char *buf, size_t len, fl_arena *a,
                                           fl_rest_load_result *out, fl_error *err);

typedef struct fl_rest_config {
    fl_ice_map defaults, overrides;
    bool has_endpoints;
    const char **endpoints;
    uint32_t nendpoints;
    const char *idempotency_key_lifetime; /* NULL when absent */
} fl_rest_config;
FL_API fl_status fl_rest_config_parse(const char *buf, size_t len, fl_arena *a, fl_rest_config *out,
                                      fl_error *err);

/* ListNamespacesResponse: namespaces + next-page-token (NULL at the end). */
FL_API fl_status fl_rest_namespaces_parse(const char *buf, size_t len, fl_arena *a,
                                          fl_namespace **out, uint32_t *n,
                                          const char **next_page_token, fl_error *err);
/* ListTablesResponse: identifiers' names + next-page-token. */
FL_API fl_status fl_rest_tables_parse(const char *buf, size_t len, fl_arena *a, const char ***names,
                                      uint32_t *n, const char **next_page_token, fl_error *err);
/* GetNamespaceResponse / CreateNamespaceResponse: properties. */
FL_API fl_status fl_rest_namespace_parse(const char *buf, size_t len, fl_arena *a,
                                         fl_ice_map *props, fl_error *err);

/* IcebergErrorResponse {"error":{message,type,code}} (or an OAuthError
 * {"error":"invalid_client","error_description":...}); false when buf is
 * neither. Strings in a. */
FL_API bool fl_rest_error_parse(const char *buf, size_t len, fl_arena *a, const char **type,
                                const char **message);

typedef struct fl_rest_token {
    const char *access_token;
    const char *token_type;
    int64_t expires_in; /* seconds, 0 when absent */
} fl_rest_token;
FL_API fl_status fl_rest_token_parse(const char *buf, size_t len, fl_arena *a, fl_rest_token *out,
                                     fl_error *err);

/* Parses a JSON document (bounded nesting); FL_ESYNTAX naming what/line/column. */
FL_API fl_status fl_rest_json_load(const char *buf, size_t len, const char *what, json_t **out,
                                   fl_error *err);

#ifdef __cplusplus
}
#endif

#endif
