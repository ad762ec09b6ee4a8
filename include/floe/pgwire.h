/*
 * pgwire.h - the PostgreSQL v3 wire protocol server (`floe serve --pg-port`).
 *
 * DESIGN
 *   One listener thread accepts TCP connections; each connection runs on its
 *   own thread with its own SQL session (sql.h) and speaks the frontend/
 *   backend protocol of PostgreSQL 15 (SSLRequest/GSSENCRequest, startup,
 *   SCRAM-SHA-256 / cleartext-over-TLS / trust authentication, the simple and
 *   extended query protocols, COPY, cancel requests). src/pgwire/README.md
 *   describes the state machine, the limits and what is not supported.
 *
 * LIMITS
 *   Connections that have not authenticated yet are bounded separately
 *   (max_startup, oldest closed first) and must authenticate within
 *   auth_timeout_s, so silent clients never take the slots of sessions;
 *   of max_connections, reserved_connections are for admin principals, and
 *   one principal holds at most max_sessions_per_principal; a statement
 *   whose client went away is cancelled within a poll interval (100 ms).
 *   max_connections bounds concurrent sessions (the next client gets SQLSTATE
 *   53300); idle_timeout_s closes a connection that sends nothing for that
 *   long between messages; max_message_bytes bounds one incoming message (a
 *   larger length word is answered 54000 and the connection closes, before
 *   any allocation); output is flushed to the socket whenever
 *   output_buffer_bytes are buffered, so a slow reader costs a bounded buffer.
 *
 * THREADS AND OWNERSHIP
 *   fl_pgwire_create copies every string option. fl_pgwire_destroy stops
 *   listening, cancels running statements, closes every connection and
 *   waits for the connection threads. The fl_auth passed in options is
 *   borrowed (thread-safe, shared with the REST server); when NULL and trust
 *   is off, the server opens its own from auth_store_uri (or catalog_uri).
 */
#ifndef FLOE_PGWIRE_H
#define FLOE_PGWIRE_H

#include "floe/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/auth.h"
#include "floe/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FL_PGWIRE_DEFAULT_PORT 5433

typedef struct fl_pgwire_options {
    const char *host;           /* NULL = 127.0.0.1 */
    int port;                   /* 0 = an ephemeral port (fl_pgwire_port) */
    const char *catalog_uri;    /* sessions open their catalog from this URI; NULL = none */
    const char *warehouse;      /* for catalog_uri */
    fl_auth *auth;              /* borrowed; NULL = open from auth_store_uri/catalog_uri */
    const char *auth_store_uri; /* NULL = catalog_uri */
    const char *audit_log_path;
    const char *tls_cert_file; /* PEM; both set = TLS offered on SSLRequest */
    const char *tls_key_file;
    bool tls_cleartext;            /* TLS connections ask for a cleartext password, not SCRAM */
    bool trust;                    /* no password (local development): every user is admin */
    uint32_t max_connections;      /* 0 = 64 */
    uint32_t idle_timeout_s;       /* 0 = 3600; between messages */
    size_t max_message_bytes;      /* 0 = 64 MiB */
    size_t output_buffer_bytes;    /* 0 = 256 KiB */
    uint32_t session_threads;      /* sql.h options.threads per session; 0 = engine default */
    uint64_t session_memory_limit; /* sql.h options.memory_limit; 0 = engine default */
    bool log_connections;          /* one JSON line per connect/disconnect on stderr */
    /* Read cache shared by every session (sql.h options.cache); borrowed,
     * outlives the listener. NULL = each session makes a private one. */
    struct fl_sql_shared_cache *sql_cache;
    /* Execution slots shared with /v1/sql (floe/sql_queue.h); borrowed,
     * outlives the listener. NULL = statements never wait. With it, a
     * session_memory_limit of 0 becomes the queue's per-statement share. */
    struct fl_sql_queue *sql_queue;
    /* ---- limits (docs/security.md, "Resource limits") ---- */
    uint32_t auth_timeout_s;             /* startup + authentication within; 0 = 10 */
    uint32_t max_startup;                /* connections not yet authenticated; 0 = 64 (past it the
                                          * oldest is closed to make room) */
    uint32_t reserved_connections;       /* of max_connections, for admin principals; 0 = 3 */
    uint32_t max_sessions_per_principal; /* 0 = max_connections / 2 (admins: no cap) */
    /* Defaults for principals whose roles set no limits (borrowed; NULL =
     * none but memory: the session memory limit is the ceiling). */
    const struct fl_limit_defaults *limits;
    /* Running statements per principal, shared with /v1/sql (borrowed;
     * NULL = the listener keeps its own). */
    struct fl_admission *admission;
    /* Sessions' SQL extension (sql.h; the semantic layer's semantic.metrics,
     * sem_sql.h); borrowed, outlives the listener. NULL = none. */
    const struct fl_sql_extension *sql_extension;
} fl_pgwire_options;

typedef struct fl_pgwire fl_pgwire;

/* Validates options, loads TLS material, opens auth. Does not listen yet. */
FL_API fl_status fl_pgwire_create(const fl_pgwire_options *opt, fl_pgwire **out, fl_error *err);
/* Binds, listens and starts the accept thread. */
FL_API fl_status fl_pgwire_listen(fl_pgwire *s, fl_error *err);
FL_API int fl_pgwire_port(const fl_pgwire *s);
/* Stops accepting, cancels and closes every connection, frees s. NULL allowed. */
FL_API void fl_pgwire_destroy(fl_pgwire *s);

/* Runs one whole connection over an in-memory client stream (tests, fuzzing):
 * in/len are the bytes the client sends (from the startup packet on; TLS is
 * never offered); everything the server writes is passed to sink (may be
 * NULL) in order. Returns when the input is exhausted or the connection
 * ends. */
typedef void (*fl_pgwire_sink)(void *ctx, const uint8_t *bytes, size_t len);
FL_API void fl_pgwire_run_memory(fl_pgwire *s, const uint8_t *in, size_t len, fl_pgwire_sink sink,
                                 void *ctx);

#ifdef __cplusplus
}
#endif
#endif
