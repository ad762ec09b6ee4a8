/*
 * mcp.h - floe's Model Context Protocol server: LLM agents list, describe
 * and query the lakehouse's tables as tools, read result sets as
 * resources, and every answer carries a receipt (docs/mcp.md).
 *
 * DESIGN
 *   The server is transport-free: a transport (`floe mcp` over stdio,
 *   POST /mcp on `floe serve`) hands it one JSON-RPC 2.0 message at a time
 *   and sends back the response text it returns. The protocol versions
 *   2025-06-18 and 2025-11-25 are spoken (initialize negotiates; a version
 *   the server does not know is answered with the newest it speaks). Neither
 *   has JSON-RPC batches, so an array is -32600. The stateless revision
 *   2026-07-28 is spoken too: a request carrying its version in
 *   params._meta (io.modelcontextprotocol/protocolVersion) needs no
 *   initialize or session; server/discover lists every version.
 *
 *   Who is calling is asked of the transport on every message
 *   (resolve_principal with the caller pointer the transport passed in): a
 *   message whose principal cannot be determined is refused. Every table
 *   and SQL tool runs through the SQL engine with that principal
 *   (fl_sql_options.auth/.principal), so the engine's one authorization
 *   point decides what the agent may read (docs/security.md).
 *
 * SESSIONS
 *   With options.sessions (Streamable HTTP) initialize creates a session
 *   whose id the transport returns in Mcp-Session-Id; later messages must
 *   name it (exchange.session_id) and a session belongs to the principal
 *   that created it. Without (stdio) there is one implicit session.
 *
 * THREADS AND OWNERSHIP
 *   fl_mcp_handle may be called from several threads at once: sessions and
 *   stored results are under a mutex, each tool call opens its own SQL
 *   session. The catalog is either options.catalog (then calls are
 *   serialized: a catalog handle is single-threaded) or one per call from
 *   catalog_for (a server's pool). Options are borrowed for the server's
 *   life; responses are malloc'd (caller frees).
 */
#ifndef FLOE_MCP_H
#define FLOE_MCP_H

#include "floe/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/auth.h"
#include "floe/catalog.h"
#include "floe/error.h"
#include "floe/io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills *out with the principal of the message's sender. Anything but FL_OK
 * refuses the message (the JSON-RPC error carries err's message). */
typedef fl_status (*fl_mcp_resolve_fn)(void *ctx, void *caller, fl_principal *out, fl_error *err);
/* The catalog handle for one call (borrowed until the call returns). */
typedef fl_catalog *(*fl_mcp_catalog_fn)(void *ctx, void *caller);

typedef struct fl_mcp_options {
    fl_catalog *catalog;           /* borrowed; NULL = catalog_for, or no catalog */
    fl_mcp_catalog_fn catalog_for; /* per-call catalog (wins over catalog) */
    void *catalog_ctx;
    fl_fileio *io; /* borrowed; required */
    /* NULL = an embedded, single-user server (floe mcp: whoever runs the
     * process owns its files; the engine checks nothing). Set: every tool
     * runs as the resolved principal and the engine authorizes it. */
    struct fl_auth *auth;
    fl_mcp_resolve_fn resolve_principal; /* required */
    void *resolve_ctx;
    struct fl_sql_shared_cache *cache; /* borrowed; NULL = per SQL session */
    bool run_sql_disabled;             /* policy: run_sql answers isError */
    bool sessions;                     /* issue and require Mcp-Session-Id */
    size_t max_message_bytes;          /* 0 = 4 MiB */
    uint32_t max_depth;                /* JSON nesting; 0 = 64 */
    uint64_t max_result_rows;          /* rows kept of a run_sql result; 0 = 100000 */
    size_t max_results_bytes;          /* all stored results (CSV); 0 = 64 MiB */
    uint32_t max_sessions;             /* 0 = 1024 */
    /* Budgets of run_sql (0 = none): a statement whose estimate_cost is
     * over max_scan_bytes is refused with a narrower query to try; a
     * principal runs at most max_queries_per_minute statements a minute. */
    uint64_t max_scan_bytes;
    uint32_t max_queries_per_minute;
    uint32_t threads;      /* SQL worker threads; 0 = 2 */
    uint64_t memory_limit; /* SQL operator memory; 0 = engine default */
    struct fl_sql_queue *queue; /* execution slots (floe/sql_queue.h), borrowed; NULL = none */
    /* The semantic layer's model (semantic.h), borrowed, read-only: the
     * metric tools (list_metrics, get_dimensions, get_entities,
     * get_dimension_values, query_metrics, compile_sql) are listed and
     * answer only when it is set. Their data is read as the caller too. */
    const struct fl_sem_model *model;
    /* The folder model was loaded from (NULL = none): propose_metric, the
     * one write tool, is listed only with it. It checks a draft metric
     * against the folder's files plus the draft and files the proposal as
     * <models_dir>/.pending/<id>.yaml for an owner to approve (floe
     * semantic pending); the live model and its files are never changed. */
    const char *models_dir;
} fl_mcp_options;

typedef struct fl_mcp_server fl_mcp_server;

FL_API fl_status fl_mcp_server_new(const fl_mcp_options *opt, fl_mcp_server **out, fl_error *err);
FL_API void fl_mcp_server_free(fl_mcp_server *m); /* NULL allowed */

#define FL_MCP_SESSION_ID_MAX 65

/* What the transport must do besides sending the response. */
typedef enum fl_mcp_outcome {
    FL_MCP_OK = 0,
    FL_MCP_NEED_SESSION,    /* no Mcp-Session-Id on a non-initialize message (HTTP 400) */
    FL_MCP_NO_SUCH_SESSION, /* unknown or ended session (HTTP 404) */
    FL_MCP_BAD_VERSION,     /* MCP-Protocol-Version unsupported or not the session's (HTTP 400) */
    FL_MCP_TOO_LARGE,       /* message over max_message_bytes (HTTP 413) */
    FL_MCP_HEADER_MISMATCH, /* 2026-07-28: headers disagree with the body (HTTP 400) */
    FL_MCP_UNKNOWN_METHOD,  /* 2026-07-28: a method not served (HTTP 404) */
} fl_mcp_outcome;

typedef struct fl_mcp_exchange {
    void *caller;                 /* in: handed to resolve_principal and catalog_for */
    const char *session_id;       /* in: Mcp-Session-Id, NULL when absent */
    const char *protocol_version; /* in: MCP-Protocol-Version header, NULL when absent */
    /* out: the session this message created (initialize), else "" */
    char new_session_id[FL_MCP_SESSION_ID_MAX];
    char negotiated_version[16]; /* out: the session's version ("" before initialize) */
    fl_mcp_outcome outcome;      /* out */
    bool had_requests;           /* out: the message held a request (vs notification/response) */
    /* in (2026-07-28 over HTTP): the Mcp-Method and Mcp-Name headers, NULL when absent */
    const char *mcp_method;
    const char *mcp_name;
} fl_mcp_exchange;

/* Handles one JSON-RPC message (a request, a notification or a response).
 * *response is the JSON text to send (malloc'd) or NULL when there is none
 * (notifications, responses; HTTP answers 202). Protocol errors are
 * JSON-RPC error responses (-32700 parse, -32600 invalid request, -32601
 * method not found, -32602 invalid params with the reason), tool failures
 * are results with isError. Returns FL_OK unless out of memory. */
FL_API fl_status fl_mcp_handle(fl_mcp_server *m, fl_mcp_exchange *x, const char *msg, size_t len,
                               char **response, fl_error *err);

/* Ends a session (HTTP DELETE /mcp) as principal who (its owner or an
 * admin). FL_ENOTFOUND when there is none; FL_EFORBIDDEN for someone else's. */
FL_API fl_status fl_mcp_session_end(fl_mcp_server *m, const char *session_id,
                                    const fl_principal *who, fl_error *err);

/* The protocol versions spoken, newest first, NULL-terminated. */
FL_API const char *const *fl_mcp_protocol_versions(void);

#ifdef __cplusplus
}
#endif
#endif
