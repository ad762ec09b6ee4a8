/*
 * rest_internal.h - the pieces of the Iceberg REST catalog client shared by
 * src/catalog/rest*.c (one concept per file):
 *
 *   rest.c            open/close, the vtable, URLs (prefix, %1F namespaces)
 *   rest_uri.c        "http(s)://host[:port][/base]?k=v" + FLOE_REST_* env -> options
 *   rest_http.c       transport: one libcurl handle (keep-alive), retries
 *   rest_auth.c       bearer tokens: static, or OAuth2 client credentials
 *   rest_config.c     GET /v1/config: defaults < client < overrides, prefix, endpoints, S3
 *   rest_error.c      HTTP status + IcebergErrorResponse -> fl_status
 *   rest_namespace.c  namespace operations
 *   rest_table.c      table operations (load, create, commit, drop, rename, list)
 *   (src/rest/)       JSON of requests and responses: the REST codec (floe/rest.h)
 *
 * Ownership: everything hangs off rest_catalog and is freed by its close.
 * A catalog is used by one thread at a time (catalog.h).
 */
#ifndef FLOE_REST_INTERNAL_H
#define FLOE_REST_INTERNAL_H

#include <curl/curl.h>
#include <stdbool.h>
#include <stdint.h>

#include "floe/rest.h"
#include "floe/catalog.h"

/* Biggest response body accepted (a LoadTableResult of a huge table). */
#define REST_MAX_RESPONSE (256u << 20)

typedef struct rest_response {
    long status;  /* HTTP status */
    char *body;   /* malloc'd, NUL-terminated (len excludes it); may be NULL when empty */
    size_t len;
    char *content_type; /* malloc'd or NULL */
} rest_response;

void rest_response_free(rest_response *r);

typedef struct rest_http {
    CURL *curl;                 /* reused: keeps the connection alive */
    struct curl_slist *headers; /* "header.*" client properties */
    uint32_t timeout_ms, connect_timeout_ms, max_retries;
    char errbuf[CURL_ERROR_SIZE];
} rest_http;

fl_status rest_http_init(rest_http *h, uint32_t timeout_ms, uint32_t connect_timeout_ms,
                         uint32_t max_retries, fl_error *err);
void rest_http_free(rest_http *h);
/* Adds "Name: value" to every request. */
fl_status rest_http_add_header(rest_http *h, const char *name, const char *value, fl_error *err);

/* One HTTP exchange, retried (jittered backoff) on transport errors and
 * 429/502/503/504 when retry is true. body may be NULL (no body);
 * content_type names it. bearer (may be NULL) goes into Authorization;
 * idempotency_key (may be NULL) into Idempotency-Key. FL_OK whenever a
 * response arrived (any status, in *resp); FL_EIO naming url when none did. */
typedef struct rest_request {
    const char *method;
    const char *url;
    const char *body;
    size_t body_len;
    const char *content_type;
    const char *bearer;
    const char *basic_user, *basic_pass; /* HTTP Basic auth (token endpoint) */
    const char *idempotency_key;
    bool retry;
} rest_request;
fl_status rest_http_do(rest_http *h, const rest_request *rq, rest_response *resp, fl_error *err);

/* ---- auth ---- */

typedef struct rest_auth {
    char *token;         /* current bearer or NULL */
    bool is_static;      /* given by the user: never refreshed */
    char *client_id;     /* OAuth2 client credentials, or NULL */
    char *client_secret;
    char *token_uri; /* absolute URL of the token endpoint */
    char *scope;
    int64_t obtained_ms, expires_ms; /* expires_ms 0 = no expiry given */
} rest_auth;

/* The bearer to send now, fetching or refreshing an OAuth2 token when it is
 * missing or within its last 10% (at most 5 minutes) of life; NULL = none. */
fl_status rest_auth_bearer(rest_auth *a, rest_http *h, const char **out, fl_error *err);
/* Forgets a fetched token (after a 401/419) so the next bearer fetches anew;
 * false when nothing can be refreshed (static token or none). */
bool rest_auth_invalidate(rest_auth *a);
void rest_auth_free(rest_auth *a);

/* ---- the catalog ---- */

typedef struct rest_catalog {
    fl_catalog base;
    fl_arena arena;      /* long-lived strings */
    const char *uri;     /* base URL without trailing '/' */
    const char *root;    /* "<uri>/v1" or "<uri>/v1/<prefix>" */
    const char *location_root; /* NULL = server chooses new table locations */
    rest_http http;
    rest_auth auth;
    fl_ice_map props;    /* merged configuration (defaults < client < overrides) */
    bool idempotency;    /* the server advertised idempotency-key-lifetime */
    bool has_endpoints;  /* the server listed endpoints */
    const char **endpoints;
    uint32_t nendpoints;
    uint32_t page_size; /* rest-page-size, 0 = no pagination requested */
    const char *ns_sep; /* namespace-separator of the config (URL-encoded, e.g. "%2E"),
                           NULL = the spec's "%1F" */
    fl_fileio *own_io;  /* made from S3 config, or NULL */
} rest_catalog;

/* Opens with the options (rest.c). */
fl_status rest_catalog_open(const fl_rest_options *opt, const char *catalog_name, fl_fileio *io,
                            fl_catalog **out, fl_error *err);

/* fl_catalog_open_uri's http(s) branch (rest_uri.c). */
fl_status fl_catalog_rest_open_uri(const char *uri, const char *catalog_name,
                                   const char *location_root, fl_fileio *io, fl_catalog **out,
                                   fl_error *err);

/* GET /v1/config and everything it decides (rest_config.c). */
fl_status rest_config_load(rest_catalog *c, const fl_rest_options *opt, const char *warehouse,
                           fl_error *err);

/* Whether the server supports "<METHOD> /v1/{prefix}/..." (true when it
 * listed no endpoints: the spec's default set is assumed). */
bool rest_supports(const rest_catalog *c, const char *endpoint);

/* Calls the catalog API: url made by the caller; JSON body (may be NULL).
 * Adds auth (refreshing once on 401/419 when possible), retries per method.
 * FL_OK with *resp for any HTTP status. */
fl_status rest_call(rest_catalog *c, const char *method, const char *url, const char *json,
                    rest_response *resp, fl_error *err);

/* Maps a non-2xx response to a status and message (rest_error.c):
 * what = "load table a.b" etc. conflict409 = the status a 409 means here
 * (FL_EEXIST or FL_ECONFLICT); AlreadyExistsException is always FL_EEXIST.
 * mutation: a 5xx (other than 501) or 2xx-less answer is "outcome unknown". */
fl_status rest_error(const rest_response *r, const char *what, fl_status conflict409,
                     bool mutation, fl_error *err);

/* URL pieces (rest.c), arena strings. */
const char *rest_url_ns(rest_catalog *c, fl_arena *a, const fl_namespace *ns, const char *suffix);
const char *rest_url_table(rest_catalog *c, fl_arena *a, const fl_table_ident *id,
                           const char *suffix);
/* Percent-encodes s (RFC 3986 unreserved kept) into a. */
const char *rest_enc(fl_arena *a, const char *s);

/* Operations (rest_namespace.c, rest_table.c). */
fl_status rest_create_namespace(fl_catalog *c, const fl_namespace *ns, const fl_ice_map *props,
                                fl_error *err);
fl_status rest_list_namespaces(fl_catalog *c, const fl_namespace *parent, fl_arena *a,
                               fl_namespace **out, uint32_t *n, fl_error *err);
fl_status rest_load_namespace(fl_catalog *c, const fl_namespace *ns, fl_arena *a,
                              fl_ice_map *props, fl_error *err);
fl_status rest_update_namespace(fl_catalog *c, const fl_namespace *ns, const fl_ice_map *set,
                                const char *const *remove, uint32_t nremove, fl_error *err);
fl_status rest_drop_namespace(fl_catalog *c, const fl_namespace *ns, fl_error *err);
fl_status rest_list_tables(fl_catalog *c, const fl_namespace *ns, fl_arena *a, const char ***names,
                           uint32_t *n, fl_error *err);
fl_status rest_load_table(fl_catalog *c, const fl_table_ident *id, fl_arena *a,
                          const char **metadata_location, fl_error *err);
fl_status rest_load_table_metadata(fl_catalog *c, const fl_table_ident *id, fl_arena *a,
                                   const char **metadata_location, fl_ice_metadata *meta,
                                   fl_error *err);
fl_status rest_register_table(fl_catalog *c, const fl_table_ident *id,
                              const char *metadata_location, fl_error *err);
fl_status rest_commit_table(fl_catalog *c, const fl_table_ident *id, const char *expected_location,
                            const char *new_location, fl_error *err);
fl_status rest_commit_updates(fl_catalog *c, const fl_table_ident *id,
                              const struct fl_ice_requirement *req, uint32_t nreq,
                              const struct fl_ice_update *upd, uint32_t nupd, fl_arena *a,
                              const char **new_location, fl_ice_metadata *new_meta, fl_error *err);
fl_status rest_create_table_metadata(fl_catalog *c, const fl_table_ident *id,
                                     const fl_ice_metadata *tmpl, const char *location, bool stage,
                                     fl_arena *a, const char **metadata_location,
                                     fl_ice_metadata *meta, fl_error *err);
fl_status rest_drop_table(fl_catalog *c, const fl_table_ident *id, fl_error *err);
fl_status rest_drop_table_purge(fl_catalog *c, const fl_table_ident *id, bool purge,
                                fl_error *err);
fl_status rest_rename_table(fl_catalog *c, const fl_table_ident *from, const fl_table_ident *to,
                            fl_error *err);

int64_t rest_now_ms(void);

#endif
