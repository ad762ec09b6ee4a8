/*
 * server.h - `floe serve`: the Iceberg REST catalog over HTTP (libmicrohttpd),
 * and the route table other HTTP endpoints register into.
 *
 * The server owns a pool of catalog handles (one per concurrent request; a
 * catalog is single-threaded), one fl_auth shared by every thread, the
 * metrics registry and the idempotency store. Handlers run on libmicrohttpd's
 * thread pool; every handler sees a fully buffered request (body already
 * size-checked) and produces exactly one response.
 *
 * ROUTES
 *   A route is METHOD + a path pattern of literal segments and {name}
 *   parameters ("/v1/{prefix}/namespaces/{namespace}/tables/{table}"). A
 *   {prefix} segment matches the configured prefix (or any single segment
 *   when none is configured) and the same route is also reachable without
 *   it. Parameters are percent-decoded per segment. Later rounds (the SQL
 *   HTTP endpoint ...) add routes with fl_server_route_add() before
 *   fl_server_start_listening().
 *
 * Ownership: strings passed in options are copied at fl_server_create().
 * Strings returned by request accessors live until the handler returns.
 */
#ifndef FLOE_SERVER_H
#define FLOE_SERVER_H

#include "floe/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/auth.h"
#include "floe/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_server_options {
    const char *host;         /* listen address; NULL = 127.0.0.1 */
    int port;                 /* 0 = an ephemeral port (see fl_server_port) */
    const char *catalog_uri;  /* "sqlite:PATH" / "postgresql://..." / "fs:PATH" */
    const char *catalog_name; /* catalog_name column; NULL = "floe" */
    const char *warehouse;    /* root of table locations (absolute path or s3://bucket/prefix) */
    const char *prefix;       /* REST prefix advertised in /v1/config overrides; NULL = none */
    const char *const *allowed_locations; /* further roots a location may be under */
    uint32_t nallowed_locations;
    unsigned threads;           /* worker threads; 0 = 4 */
    size_t max_body_bytes;      /* 0 = 8 MiB */
    unsigned max_json_depth;    /* 0 = 64 */
    int idempotency_lifetime_s; /* 0 = 1800 (advertised as PT30M) */
    unsigned catalog_pool;      /* catalog handles; 0 = threads */
    /* auth */
    bool insecure_no_auth;      /* development only: every request is anonymous admin */
    const char *auth_store_uri; /* NULL = catalog_uri */
    const char *audit_log_path;
    int token_ttl_seconds;
    const char *const *static_tokens; /* "TOKEN=PRINCIPAL" */
    uint32_t nstatic_tokens;
    bool log_requests; /* one JSON line per request on stderr */
    /* Read cache shared by every SQL session of the HTTP SQL endpoint
     * (sql.h); borrowed, outlives the server. NULL = one per session. */
    struct fl_sql_shared_cache *sql_cache;
    /* The SQL sessions' extension (sql.h; semantic.metrics, sem_sql.h);
     * borrowed, outlives the server. NULL = none. */
    const struct fl_sql_extension *sql_extension;
    /* Execution slots shared with pgwire (floe/sql_queue.h); borrowed,
     * outlives the server. NULL = statements never wait. With it, a
     * sql_memory_limit of 0 becomes the queue's per-statement share. */
    struct fl_sql_queue *sql_queue;
    /* ---- limits (docs/security.md, "Resource limits") ---- */
    unsigned max_connections;        /* HTTP connections; 0 = 4096 */
    unsigned max_connections_per_ip; /* 0 = 64 */
    unsigned connection_timeout_s;   /* idle connection closed after; 0 = 30 */
    /* POST /v1/sql sessions: operator memory (0 = 80% of RAM / 64, at least
     * 64 MiB) and the defaults for principals whose roles set no limits */
    uint64_t sql_memory_limit;
    struct fl_limit_defaults *sql_limits; /* borrowed; NULL = none */
    /* Running statements per principal, shared with pgwire (borrowed; NULL =
     * the server keeps its own). */
    struct fl_admission *admission;
    uint32_t login_max_failures, login_window_s; /* fl_auth_options */
    /* POST /mcp (mcp.h): run_sql refused by policy; its scan budget in
     * bytes and statements per principal and minute (0 = none). */
    bool mcp_run_sql_disabled;
    uint64_t mcp_max_scan_bytes;
    uint32_t mcp_max_queries_per_minute;
    const struct fl_sem_model *mcp_model; /* borrowed; NULL = no metric tools */
    const char *mcp_models_dir; /* mcp_model's folder: MCP's propose_metric files proposals there */
    /* The maintenance service (src/server/maintenance.c): every this many
     * ms, compaction, expiry and manifest rewrites over every table by its
     * properties, orphans hourly (fl_ice_maintain_catalog); 0 = off. */
    int64_t maintain_interval_ms;
} fl_server_options;

typedef struct fl_server fl_server;
typedef struct fl_server_request fl_server_request;
typedef void (*fl_server_handler)(fl_server_request *r, void *ctx);

/* Opens the catalog pool and auth, registers the built-in routes. Does not listen yet. */
FL_API fl_status fl_server_create(const fl_server_options *opt, fl_server **out, fl_error *err);
/* Adds a route (method "GET"/"POST"/...; pattern as above). flags: FL_ROUTE_MUTATION
 * marks a mutation (Idempotency-Key, audit), FL_ROUTE_PUBLIC needs no authentication. */
#define FL_ROUTE_MUTATION 1u
#define FL_ROUTE_PUBLIC 2u
FL_API fl_status fl_server_route_add(fl_server *s, const char *method, const char *pattern,
                                     fl_server_handler h, void *ctx, unsigned flags, fl_error *err);
FL_API fl_status fl_server_start_listening(fl_server *s, fl_error *err);
FL_API int fl_server_port(const fl_server *s);
/* Graceful stop: no new connections, waits (up to drain_ms) for in-flight
 * requests to finish, then frees everything. NULL allowed. */
FL_API void fl_server_destroy(fl_server *s, int drain_ms);

/* The server's auth (NULL with --insecure-no-auth and no store): shared
 * with the Postgres wire server so both count failed logins together. */
FL_API struct fl_auth *fl_server_auth(fl_server *s);

/* ---- request accessors (inside a handler) ---- */
FL_API const char *fl_server_req_method(const fl_server_request *r);
FL_API const char *fl_server_req_path(const fl_server_request *r);
FL_API const char *fl_server_req_param(const fl_server_request *r, const char *name); /* decoded */
FL_API const char *fl_server_req_query(const fl_server_request *r, const char *name); /* decoded */
FL_API const char *fl_server_req_header(const fl_server_request *r, const char *name);
FL_API const char *fl_server_req_body(const fl_server_request *r, size_t *len);
FL_API const fl_principal *fl_server_req_principal(const fl_server_request *r);
FL_API fl_arena *fl_server_req_arena(fl_server_request *r);

/* ---- responses: exactly one per handler ---- */
/* body is copied; content_type NULL = application/json. */
FL_API void fl_server_respond(fl_server_request *r, int status, const char *content_type,
                              const char *body, size_t len);
/* The spec's ErrorModel: {"error": {"message", "type", "code"}}. */
FL_API void fl_server_respond_error(fl_server_request *r, int status, const char *type,
                                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* ---- extra response headers and streamed responses ----
 * fl_server_response_header() adds a header (name and value copied; at most
 * 8 per response) to whichever response the handler produces.
 *
 * fl_server_respond_stream() answers with status and a body of unknown
 * length (HTTP/1.1 chunked) that a producer writes later from any thread:
 * the handler returns right away and the bytes written with
 * fl_server_stream_write() are sent as the client takes them (a worker
 * thread is never blocked waiting for the producer: the connection is
 * suspended while nothing is queued). on_abort(ud) is called at most once,
 * with the stream's lock held (it must be quick and must not call stream
 * functions), when the client disconnects or the server stops before
 * fl_server_stream_end(); never after fl_server_stream_end() returned.
 * Returns NULL (after responding 500) when out of memory. */
typedef struct fl_server_stream fl_server_stream;
FL_API void fl_server_response_header(fl_server_request *r, const char *name, const char *value);
FL_API fl_server_stream *fl_server_respond_stream(fl_server_request *r, int status,
                                                  const char *content_type,
                                                  void (*on_abort)(void *ud), void *ud);
/* Queues len bytes (copied); blocks while more than 4 MiB wait unsent.
 * false: the client is gone or the server stops (stop producing). */
FL_API bool fl_server_stream_write(fl_server_stream *st, const void *data, size_t len);
/* True when the stream was aborted or the peer closed the connection
 * (checked with poll(POLLRDHUP) on the socket, so a client that went away
 * while nothing was being written is noticed). */
FL_API bool fl_server_stream_gone(fl_server_stream *st);
/* Ends the body: ok = normally (final chunk), else the connection is
 * closed without the final chunk so the client sees a truncated body. The
 * handle must not be used afterwards. */
FL_API void fl_server_stream_end(fl_server_stream *st, bool ok);

#ifdef __cplusplus
}
#endif
#endif
