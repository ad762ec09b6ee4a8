/*
 * server_internal.h - the pieces of `floe serve` shared by the src/server files.
 *
 * Request flow (http.c): libmicrohttpd calls us per connection event; we
 * buffer the body (refusing more than max_body_bytes with 413), then
 * srv_dispatch() (dispatch.c) routes, authenticates, handles Idempotency-Key
 * replay, runs the handler, records metrics and the access log, and hands
 * the one response back to http.c, which gzips it when the client accepts
 * gzip and sends it.
 *
 * Threads: handlers run concurrently on the pool. Everything reachable from
 * fl_server is either immutable after start (routes, options) or guarded:
 * the catalog pool and idempotency cache by their mutexes, metrics by atomics.
 */
#ifndef FLOE_SERVER_INTERNAL_H
#define FLOE_SERVER_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "floe/admission.h"
#include "floe/auth.h"
#include "floe/catalog.h"
#include "floe/ice_table.h"
#include "floe/s3.h"
#include "floe/server.h"

#define SRV_MAX_PARAMS 8
#define SRV_MAX_SEGMENTS 32
#define SRV_MAX_ROUTES 96

/* ---- routes (router.c) ---- */
typedef struct srv_route {
    char *method;
    char *pattern;      /* as registered (for metrics labels and `endpoints`) */
    uint32_t nseg;
    char **seg;         /* literal, or "{name}" */
    fl_server_handler h;
    void *ctx;
    unsigned flags;
} srv_route;

typedef struct srv_router {
    srv_route *routes;
    uint32_t n, cap;
} srv_router;

typedef struct srv_match {
    const srv_route *route;
    uint32_t nparams;
    const char *names[SRV_MAX_PARAMS];
    char *values[SRV_MAX_PARAMS]; /* decoded, in the request arena */
    bool method_mismatch;         /* some route matched the path with another method */
} srv_match;

/* Splits a raw path ("/v1/a%1Fb/x") into raw segments; false when too many. */
bool srv_split_path(const char *path, fl_arena *a, char **seg, uint32_t *n);
/* Percent-decodes s (raw segment or query value); plus_space turns '+' into ' '.
 * NULL on a malformed escape or an embedded NUL. */
char *srv_pct_decode(const char *s, size_t len, bool plus_space, fl_arena *a);
fl_status srv_router_add(srv_router *r, const char *method, const char *pattern,
                         fl_server_handler h, void *ctx, unsigned flags, fl_error *err);
/* Finds the route for method + raw path. prefix NULL = any prefix segment. */
bool srv_router_match(const srv_router *r, const char *method, const char *path,
                      const char *prefix, fl_arena *a, srv_match *m);
void srv_router_free(srv_router *r);

/* ---- metrics (metrics.c) ---- */
#define SRV_LAT_BUCKETS 14
typedef struct srv_metrics {
    _Atomic uint64_t requests[SRV_MAX_ROUTES + 1][6]; /* [route slot][status/100]; slot n = unrouted */
    _Atomic uint64_t lat_bucket[SRV_LAT_BUCKETS + 1];
    _Atomic uint64_t lat_count, lat_sum_us;
    _Atomic uint64_t commits, conflicts, rebases, commit_errors;
    _Atomic uint64_t inflight;
    _Atomic uint64_t reports;
    /* the maintenance service (maintenance.c) */
    _Atomic uint64_t maint_passes, maint_tables, maint_compactions, maint_files_rewritten;
    _Atomic uint64_t maint_snapshots_expired, maint_orphans_removed, maint_conflicts, maint_errors;
} srv_metrics;
void srv_metrics_observe(srv_metrics *m, uint32_t route_slot, int status, uint64_t us);
/* The /metrics text (malloc'd; NULL when out of memory): the counters
 * above, then the pipelines' figures req's principal may see. */
char *srv_metrics_render(const srv_metrics *m, const srv_router *r, fl_server_request *req,
                         size_t *len);
/* A growing text buffer; a failed allocation sets oom and ignores the rest. */
typedef struct srv_sbuf {
    char *p;
    size_t len, cap;
    bool oom;
} srv_sbuf;
void srv_put(srv_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- ingestion pipelines in /metrics (pipeline_metrics.c) ---- */
typedef struct srv_pipe_cache srv_pipe_cache;
srv_pipe_cache *srv_pipe_cache_new(void);
void srv_pipe_cache_free(srv_pipe_cache *c);
/* Appends the floe_pipeline_* families for the tables req's principal may
 * read (none for a scrape without valid credentials). */
void srv_pipe_metrics_put(fl_server_request *req, srv_sbuf *b);

/* ---- catalog pool (catpool.c) ---- */
typedef struct srv_catpool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    fl_catalog **free;
    uint32_t nfree, total;
} srv_catpool;

/* ---- idempotency (idempotency.c) ---- */
typedef struct srv_idem srv_idem;

/* ---- commit lock stripes and the load cache (cache.c) ---- */
#define SRV_COMMIT_STRIPES 64
typedef struct srv_cache srv_cache;
srv_cache *srv_cache_new(void);
void srv_cache_free(srv_cache *c);
uint32_t srv_stripe_of(const fl_table_ident *id);
void srv_stripe_lock(srv_cache *c, uint32_t stripe);
void srv_stripe_unlock(srv_cache *c, uint32_t stripe);
/* A copy of the cached body for key (malloc'd, caller frees). */
bool srv_cache_get(srv_cache *c, const char *key, char **body, size_t *len);
void srv_cache_put(srv_cache *c, const char *key, const char *body, size_t len);

/* limits.c (docs/security.md, "Resource limits") */
#define SRV_SQL_MAX_RUNNING 64 /* POST /v1/sql statements at once, all principals */
fl_status srv_limits_init(struct fl_server *s, fl_error *err);
void srv_limits_free(struct fl_server *s);
/* "ip:port" / "ip" of the request's client ("unknown" when not known). */
const char *srv_client_addr(const struct fl_server_request *r, char *buf, size_t cap);
const char *srv_client_ip(const struct fl_server_request *r, char *buf, size_t cap);
/* The client closed or reset the request's connection (poll POLLRDHUP). */
bool srv_req_gone(const struct fl_server_request *r);
/* A /v1/sql session's memory_limit, ceilings and default statement_timeout
 * for who; *max_statements its admission limit. */
fl_status srv_sql_limits(struct fl_server *s, const fl_principal *who, fl_sql_options *o,
                         uint32_t *max_statements, fl_error *err);

struct fl_server {
    fl_server_options opt;
    char *host, *catalog_uri, *catalog_name, *warehouse, *prefix;
    char **allowed;
    uint32_t nallowed;
    /* storage confinement of every catalog handle the server opens: the
     * allowed roots above, and the auth store / audit log files */
    char *protect[2];
    fl_location_policy confine;
    fl_fileio *io;
    /* S3 settings from the environment: what remote signing signs with */
    fl_s3_config s3;
    char s3_storage[FL_S3_CONFIG_STORAGE];
    fl_auth *auth;
    srv_catpool pool;
    srv_router router;
    srv_metrics *metrics;
    srv_idem *idem;
    srv_cache *cache;
    struct MHD_Daemon *daemon;
    int port;
    _Atomic bool ready;
    _Atomic bool draining;
    int64_t started_ms;
    /* streamed responses in flight (stream.c) and the SQL endpoint (h_sql.c) */
    pthread_mutex_t streams_mu;
    struct fl_server_stream *streams;
    struct srv_sql *sql;
    struct srv_ingest *ingest; /* h_ingest.c: per-table ingestion sinks */
    struct fl_mcp_server *mcp;  /* h_mcp.c: POST /mcp */
    /* limits.c */
    fl_admission *admission;
    bool own_admission;
    fl_limit_defaults sql_limits;
    struct srv_maint *maint; /* maintenance.c, NULL when off */
    srv_pipe_cache *pipes;   /* pipeline_metrics.c: the pipelines /metrics shows */
};

struct fl_server_request {
    fl_server *srv;
    void *conn; /* struct MHD_Connection * */
    const char *method, *path;
    char *body;
    size_t body_len;
    srv_match match;
    fl_principal principal;
    fl_arena arena;
    char request_id[40];
    /* the response */
    bool responded;
    int status;
    char *resp_body; /* malloc'd */
    size_t resp_len;
    const char *content_type;
    char etag[96];
    const char *xhdr[8][2]; /* extra headers (arena copies) */
    uint32_t nxhdr;
    struct fl_server_stream *stream; /* a streamed response (stream.c) */
    /* for handlers */
    fl_catalog *cat; /* checked out lazily by srv_cat() */
    uint32_t route_slot;
};

/* Checks out a catalog handle for this request (returned after the handler). */
fl_catalog *srv_cat(fl_server_request *r);
fl_status srv_catpool_init(fl_server *s, uint32_t n, fl_error *err);
void srv_catpool_put(fl_server *s, fl_catalog *c);
void srv_catpool_free(fl_server *s);

/* ---- http (http.c) ---- */
void srv_http_stop(fl_server *s, int drain_ms);
bool srv_query_present(const fl_server_request *r, const char *name);

/* ---- streamed responses (stream.c) ---- */
/* The MHD_Response of r's streamed response on connection conn (NULL on
 * failure; the stream is then aborted and released). */
void *srv_stream_response(fl_server_request *r, void *conn);
/* Aborts every stream (server stopping): producers see write() fail. */
void srv_streams_abort_all(fl_server *s);

/* ---- the SQL endpoint (h_sql.c) ---- */
fl_status srv_routes_sql(fl_server *s, fl_error *err);
/* Cancels running statements and waits for their threads (after http stop). */
void srv_sql_free(fl_server *s);

/* ---- MCP over Streamable HTTP (h_mcp.c) ---- */
fl_status srv_routes_mcp(fl_server *s, fl_error *err);
void srv_mcp_free(fl_server *s); /* after http stop */

/* ---- the web console's static files (h_console.c) ---- */
fl_status srv_routes_console(fl_server *s, fl_error *err);

/* ---- HTTP ingestion (h_ingest.c) ---- */
fl_status srv_routes_ingest(fl_server *s, fl_error *err);
/* h_cube.c: Cube's REST API over the semantic model (--models) */
fl_status srv_routes_cube(fl_server *s, fl_error *err);
void srv_ingest_free(fl_server *s); /* after http stop */

/* ---- the maintenance service (maintenance.c) ---- */
typedef struct srv_maint srv_maint;
fl_status srv_maint_start(fl_server *s, fl_error *err); /* no-op unless maintain_interval_ms > 0 */
void srv_maint_stop(fl_server *s);                      /* joins the thread; NULL-safe */

/* ---- dispatch (dispatch.c) ---- */
void srv_dispatch(fl_server_request *r);

/* ---- JSON helpers (json.c) ---- */
/* Parses the request body as a JSON object with the depth limit; on failure
 * responds 400 (syntax) or 413 (too deep) and returns NULL. */
json_t *srv_body_json(fl_server_request *r);
/* Responds with j (stolen) as application/json. */
void srv_respond_json(fl_server_request *r, int status, json_t *j);
/* Maps a libfloe status to HTTP and the spec's exception types. */
void srv_respond_status(fl_server_request *r, fl_status rc, const fl_error *err, const char *what);
/* Namespace from a path parameter (levels separated by 0x1F). NULL and 400 on error. */
bool srv_ns_param(fl_server_request *r, const char *param, fl_namespace *ns);
json_t *srv_ns_json(const fl_namespace *ns);
/* Parses a JSON array of strings as a namespace (400 on error). */
bool srv_ns_from_json(fl_server_request *r, json_t *arr, const char *what, fl_namespace *ns);
/* A REST codec reader's result: true on FL_OK, else responds 400
 * BadRequestException with err's message (500 on FL_ENOMEM). */
bool srv_codec_ok(fl_server_request *r, fl_status rc, const fl_error *err);
const char *srv_ns_dotted(const fl_namespace *ns, fl_arena *a);

/* ---- auth glue (authz.c) ---- */
/* Authorizes priv on the securable; responds 403 and returns false when denied. */
bool srv_authorize(fl_server_request *r, fl_privilege priv, const fl_namespace *ns,
                   const char *object);
/* Listings show only what the principal may see (fl_auth_visible): the
 * listing itself needs some privilege on, above or inside ns (else 403),
 * and the entries are filtered in place (returns how many stay). */
bool srv_authorize_listing(fl_server_request *r, const fl_namespace *ns);
/* A definer view's SQL must plan as the sender (view_check.c): FL_EFORBIDDEN
 * when the engine refuses it; SQL floe cannot bind passes. */
struct fl_ice_view_version;
fl_status srv_view_reads_check(fl_server_request *r, const struct fl_ice_view_version *v,
                               fl_error *err);
/* Visible and READ held on table ns.object, as SHOW PIPELINES asks; never
 * responds (for what a response only includes when allowed). */
bool srv_may_read(fl_server_request *r, const fl_namespace *ns, const char *object);
/* Sets r->principal from the request's credentials (anonymous admin without
 * authentication): dispatch.c's authentication, without a response. */
fl_status srv_identify(fl_server_request *r, fl_error *err);
uint32_t srv_filter_visible(fl_server_request *r, const fl_namespace *ns, const char **names,
                            uint32_t n);
uint32_t srv_filter_visible_ns(fl_server_request *r, fl_namespace *kids, uint32_t n);
void srv_audit(fl_server_request *r, const char *action, const char *target, const char *outcome,
               const char *detail);

/* ---- locations (location.c) ---- */
/* FL_OK when loc is under the warehouse or an allowed root and has no ".."
 * segment; FL_EFORBIDDEN otherwise (fl_location_check_roots). For
 * namespace locations and register targets before they are read. */
fl_status srv_location_check(const fl_server *s, const char *loc, fl_error *err);
fl_status srv_location_check_roots(const char *warehouse, const char *const *allowed,
                                   uint32_t nallowed, const char *loc, fl_error *err);
/* A table or view location (create, register, set-location): the full rule
 * of fl_ice_location_check on catalog c, which carries the server's policy. */
fl_status srv_object_location_check(fl_catalog *c, const fl_table_ident *id, const char *loc,
                                    fl_error *err);
/* Attaches the server's confinement policy to a catalog handle it opened. */
void srv_confine(const fl_server *s, fl_catalog *c);
/* Fills s->confine from the options (allowed roots, auth store, audit log). */
fl_status srv_confine_init(fl_server *s, fl_error *err);

/* ---- idempotency (idempotency.c) ---- */
fl_status srv_idem_open(fl_server *s, fl_error *err);
void srv_idem_close(srv_idem *d);
/* Looks a key up: true + status/body when a response was recorded for this
 * key and route. */
bool srv_idem_get(srv_idem *d, const char *key, const char *route, int *status, char **body,
                  size_t *len);
void srv_idem_put(srv_idem *d, const char *key, const char *route, int status, const char *body,
                  size_t len);

/* ---- handlers (h_*.c) ---- */
/* Sorts keys and picks the page asked for by pageToken/pageSize; *next is
 * the next page token or NULL. false = responded 400. */
bool srv_page(fl_server_request *r, const char **keys, uint32_t n, uint32_t *start,
              uint32_t *count, const char **next);
/* Rename of a table or view (POST .../rename). */
void srv_rename(fl_server_request *r, bool view);
/* 404 NoSuchNamespaceException (responded) unless ns exists. */
bool srv_ns_must_exist(fl_server_request *r, const fl_namespace *ns);
/* The "location" property of namespace ns, or NULL when it has none or
 * cannot be loaded (new tables then take the warehouse layout). */
const char *srv_ns_location(fl_server_request *r, const fl_namespace *ns);
/* 409 AlreadyExistsException (responded) when `id` names a table or a view
 * already, in the Java reference's words (which clients and the REST
 * Compatibility Kit match): creating a table over a view is "View with same
 * name already exists", a view over a table "Table with same name already
 * exists". Returns true when it responded. */
bool srv_name_taken(fl_server_request *r, const fl_table_ident *id, bool for_view);
fl_status srv_routes_catalog(fl_server *s, fl_error *err);  /* config, oauth, ops */
fl_status srv_routes_namespaces(fl_server *s, fl_error *err);
fl_status srv_routes_tables(fl_server *s, fl_error *err);
fl_status srv_routes_commit(fl_server *s, fl_error *err);
fl_status srv_routes_views(fl_server *s, fl_error *err);

/* ---- commits (commit.c, update_json.c, rebase.c) ---- */
typedef struct srv_commit_req {
    fl_ice_requirement *req;
    uint32_t nreq;
    fl_ice_update *upd;
    uint32_t nupd;
    bool assert_create;
} srv_commit_req;

/* Parses {"requirements": [...], "updates": [...]} into arena a. Unknown
 * actions/types are FL_EINVAL (400). */
fl_status srv_parse_commit(json_t *body, fl_arena *a, srv_commit_req *out, fl_error *err);
/* The metadata of a new table from a CreateTableRequest (fresh ids as Java). */
fl_status srv_new_table_metadata(fl_server *s, const fl_table_ident *id, const char *ns_location,
                                 json_t *body, fl_arena *a, fl_ice_metadata *out, fl_error *err);

/* One table's commit, prepared but not swapped: the new metadata file is
 * written; swap with the catalog (or commit_tables). */
typedef struct srv_prepared {
    fl_table_ident id;
    const char *base_location; /* NULL for a create */
    const char *new_location;  /* == base_location when nothing changed */
    fl_ice_metadata meta;
    bool unchanged;
    bool create;
} srv_prepared;

/* Loads the table, checks requirements, applies updates, writes the new
 * metadata file. Rebases an append-only commit that lost its race (when
 * allow_rebase). FL_ECONFLICT = requirements stale. */
fl_status srv_commit_prepare(fl_server_request *r, fl_catalog *c, const fl_table_ident *id,
                             const srv_commit_req *cr, bool allow_rebase, fl_arena *a,
                             srv_prepared *out, fl_error *err);
/* True when cr is a pure append to main that may be rebased. */
bool srv_commit_is_append(const srv_commit_req *cr);
/* Rewrites an append snapshot onto base's current main: new manifest list =
 * the snapshot's own manifests + base head's manifests. *out is a new update list. */
fl_status srv_rebase_append(fl_fileio *io, const fl_ice_metadata *base, const srv_commit_req *cr,
                            fl_arena *a, srv_commit_req *out, fl_error *err);
/* Writes metadata m to the catalog's next metadata path. */
fl_status srv_write_metadata(fl_catalog *c, const fl_table_ident *id, const fl_ice_metadata *m,
                             const char *base_location, fl_arena *a, const char **out,
                             fl_error *err);
/* LoadTableResult as JSON text (malloc'd): {"metadata-location", "metadata", "config"}. */
/* Current metadata of a table: 404s and errors are responded (h_tables.c). */
bool srv_load_meta(fl_server_request *r, fl_catalog *c, const fl_table_ident *id,
                   const char **loc, fl_ice_metadata *m);
/* ---- remote signing (h_sign.c) ---- */
fl_status srv_routes_sign(fl_server *s, fl_error *err);
bool srv_delegation_asked(fl_server_request *r, const char *mode);
/* LoadTableResult config text for a table (NULL = "{}"). */
const char *srv_remote_signing_config(fl_server_request *r, const fl_table_ident *id,
                                      const char *location);
char *srv_table_result_text(const char *location, const fl_ice_metadata *m, size_t *out_len,
                            fl_error *err);

int64_t srv_now_ms(void);
void srv_log(const char *level, const char *event, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
