/*
 * pgw.h - internal contract of the PostgreSQL wire server (src/pgwire).
 * See README.md in this directory for the state machine and invariants.
 *
 * Ownership: a pgw_conn belongs to its connection thread; only the cancel
 * registry (server.c, under pgw_server.lock) is touched by other threads.
 * Statements, portals and settings are malloc'd and freed by the conn.
 */
#ifndef FLOE_PGW_H
#define FLOE_PGW_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/ssl.h>

#include "floe/admission.h"
#include "floe/auth.h"
#include "floe/buf.h"
#include "floe/pgwire.h"
#include "floe/sql.h"

/* ---- server ---- */
typedef struct pgw_conn pgw_conn;

typedef struct pgw_slot {
    pgw_conn *conn; /* NULL = free (a thread exists while set) */
    bool active;    /* counted against max_connections (after authentication) */
    int64_t since_ms; /* accepted at (monotonic): the oldest unauthenticated goes first */
    bool evicted;     /* shut down to make room (limits.c) */
} pgw_slot;

struct fl_pgwire {
    fl_pgwire_options o; /* strings below are owned copies */
    char *host, *catalog_uri, *warehouse, *auth_store, *audit_log;
    fl_auth *auth;
    bool own_auth;
    SSL_CTX *tls;
    bool tls_cleartext;
    uint32_t nslots; /* max_connections + PGW_EXTRA_SLOTS */
    int lfd, port;
    pthread_t accept_thr;
    bool accepting;
    pthread_mutex_t lock; /* slots, nthreads, stopping */
    pthread_cond_t idle;  /* signalled when nthreads drops */
    pgw_slot *slots;      /* max_connections entries */
    uint32_t nthreads;    /* live connection threads (incl. rejecting ones) */
    int32_t next_pid;
    bool stopping;
    /* limits.c */
    fl_admission *admission;
    bool own_admission;
    fl_limit_defaults limits;
    pthread_t monitor;
    bool monitor_running;
    pthread_cond_t monitor_cv; /* wakes the monitor to stop */
    uint64_t cancelled_gone;   /* statements cancelled because their client went away */
};

#define PGW_EXTRA_SLOTS 16 /* threads that may exist beyond the limit to say 53300 or cancel */
/* Counts the authenticated c against max_connections, the admin
 * reservation and its principal's session cap (pid/secret assigned).
 * Returns 0, or the SQLSTATE-53300 reason it was refused for. */
typedef enum {
    PGW_REG_OK = 0,
    PGW_REG_FULL,
    PGW_REG_RESERVED,
    PGW_REG_PRINCIPAL,
} pgw_reg;
pgw_reg pgw_server_register(fl_pgwire *s, pgw_conn *c);
void pgw_server_unregister(fl_pgwire *s, pgw_conn *c);
/* CancelRequest: cancels the session of the matching connection. */
void pgw_server_cancel(fl_pgwire *s, int32_t pid, int32_t secret);

/* ---- per-connection objects ---- */
typedef struct pgw_stmt { /* a prepared statement (Parse) */
    char *name;           /* "" = unnamed */
    char *sql;
    struct pgw_class *cls; /* classification (malloc'd) */
    fl_sql_stmt *st;      /* NULL for statements the wire layer runs itself */
    uint32_t nparams;
    uint32_t *param_oids; /* nparams (client's or inferred) */
    uint32_t refs;        /* portals bound to it: it outlives Close/replacement until they go */
    bool detached;        /* no longer in the statement list (freed when refs drops to 0) */
    struct pgw_stmt *next;
} pgw_stmt;

typedef struct pgw_portal { /* a Bind portal or a DECLAREd cursor */
    char *name;
    pgw_stmt *stmt;        /* borrowed; NULL for cursors */
    fl_sql_result *res;    /* open result (rows pending), or NULL before first Execute */
    const fl_batch *batch; /* current batch; rows [row, batch rows) unsent */
    uint32_t row;
    bool eof, done, is_cursor, hold, binary_all;
    int16_t *formats; /* per result column (0 text, 1 binary) */
    uint32_t nformats;
    fl_value *params; /* bound values (strings point into pbuf) */
    uint8_t *pbuf;
    uint32_t nparams;
    int64_t sent; /* rows sent so far (FETCH/Execute counts) */
    char tag[64]; /* for non-row statements run at Bind time */
    bool executed;  /* non-row statement already executed */
    struct pgw_portal *next;
} pgw_portal;

typedef struct pgw_io {
    int fd;
    SSL *ssl;
    const uint8_t *mem; /* in-memory transport (tests/fuzz) */
    size_t mem_len, mem_pos;
    fl_pgwire_sink sink;
    void *sink_ctx;
} pgw_io;


struct pgw_conn {
    fl_pgwire *srv;
    pgw_io io;
    uint8_t *in; /* current message body */
    size_t in_cap;
    uint8_t *out;
    size_t out_len, out_cap, msg_start;
    bool io_failed, closing;
    int32_t pid, secret;
    uint32_t slot;
    bool registered;
    fl_sql_session *sess;
    fl_principal who;
    char user[FL_PRINCIPAL_NAME_MAX], database[128];
    char txn;          /* 'I' idle, 'T' in block, 'E' failed block */
    bool skip_to_sync; /* extended protocol error: discard until Sync */
    bool in_execute;   /* running an Execute: no RowDescription */
    uint32_t nstmts;
    bool implicit_open;  /* extended messages since the last Sync */
    pgw_stmt *stmts;
    pgw_portal *portals;
    void *fmt; /* fl_sql_formatter (src/sql/func.h), for fmt_tz */
    char fmt_tz[64];
    uint64_t bytes_in, bytes_out;
    size_t peak_in, peak_out; /* largest input / output buffers held (bytes) */
    uint64_t nqueries;        /* statements run (simple and Execute) */
    char show_buf[64];
    /* limits.c */
    char peer[80]; /* client "ip:port" (audit, throttling) */
    char peer_ip[64];
    int64_t auth_deadline_ms; /* monotonic; 0 = authenticated (no deadline) */
    _Atomic bool busy;        /* a message is being worked on (not waiting for one) */
    _Atomic bool gone;        /* the monitor saw the client go; the statement was cancelled */
    int64_t gone_ms;
    uint32_t max_statements; /* the principal's admission limit (0 = none) */
    bool admitted;           /* holds a statement slot (released before ReadyForQuery) */
};

/* ---- limits.c: pre-auth deadline, session limits, admission, monitor ---- */
int64_t pgw_now_ms(void);
/* Defaults, admission registry, monitor thread (create / listen / destroy). */
fl_status pgw_limits_init(fl_pgwire *s, fl_error *err);
void pgw_limits_start(fl_pgwire *s);
void pgw_limits_free(fl_pgwire *s);
/* At accept: peer address, the startup+auth deadline (and socket timeouts
 * that bound a TLS handshake too). */
void pgw_limits_accept(pgw_conn *c);
/* After authentication: no deadline any more. */
void pgw_limits_authenticated(pgw_conn *c);
/* poll() timeout for the next read (ms, -1 = expired). */
int pgw_read_timeout_ms(pgw_conn *c, bool idle);
/* The session's memory limit, ceilings and default timeout for c->who;
 * c->max_statements. false = error sent. */
bool pgw_limits_session(pgw_conn *c, fl_sql_options *so);
/* Around a message that may run a statement: false = refused (53300 sent,
 * the caller handles the protocol state). */
bool pgw_limits_enter(pgw_conn *c);
void pgw_limits_leave(pgw_conn *c);
/* Evicts the oldest unauthenticated connection when max_startup are
 * waiting (s->lock held). */
void pgw_limits_make_room(fl_pgwire *s);
/* A free slot (s->lock held), waiting a little for evicted connections to
 * leave when there is none; s->nslots = none. */
uint32_t pgw_limits_free_slot(fl_pgwire *s);

/* ---- wire.c: transport, framing, output building ---- */
/* Reads exactly n bytes; idle: apply the idle timeout while waiting. */
bool pgw_read_full(pgw_conn *c, void *buf, size_t n, bool idle);
bool pgw_flush(pgw_conn *c);
void pgw_begin(pgw_conn *c, char type);
void pgw_put(pgw_conn *c, const void *p, size_t n);
/* Room for n more bytes at out + out_len (NULL when out of memory). */
uint8_t *pgw_reserve(pgw_conn *c, size_t n);
void pgw_put_u8(pgw_conn *c, uint8_t v);
void pgw_put_i16(pgw_conn *c, int16_t v);
void pgw_put_i32(pgw_conn *c, int32_t v);
void pgw_put_str(pgw_conn *c, const char *s); /* with NUL */
void pgw_end(pgw_conn *c);                    /* patches the length; flushes if large */
void pgw_send_error(pgw_conn *c, const char *severity, const char *sqlstate, int32_t position,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void pgw_send_notice(pgw_conn *c, const char *severity, const char *sqlstate, const char *msg);
void pgw_send_status(pgw_conn *c, const char *name, const char *value);
void pgw_send_ready(pgw_conn *c);
void pgw_send_complete(pgw_conn *c, const char *tag);
/* Error from an engine failure: SQLSTATE/position from the session. */
void pgw_send_sql_error(pgw_conn *c, fl_status rc, const fl_error *err);

/* Reader over one message body; any overrun sets bad (never reads past n). */
typedef struct pgw_rd {
    const uint8_t *p;
    size_t n, pos;
    bool bad;
} pgw_rd;
uint8_t pgw_get_u8(pgw_rd *r);
int16_t pgw_get_i16(pgw_rd *r);
int32_t pgw_get_i32(pgw_rd *r);
const char *pgw_get_str(pgw_rd *r); /* NUL-terminated inside the body; NULL if bad */
const uint8_t *pgw_get_bytes(pgw_rd *r, size_t n);

/* ---- conn.c ---- */
/* Reads one typed message (after startup) into c->in; false = connection
 * over (EOF, timeout, or a length outside [4, max_message_bytes]: error sent). */
bool pgw_read_msg(pgw_conn *c, char *type, pgw_rd *r, bool idle);
void pgw_conn_serve(pgw_conn *c); /* whole connection; frees c's contents, not c */
/* Sets/clears c->sess under the server lock (cancel reads it). */
void pgw_server_set_session(fl_pgwire *s, pgw_conn *c, fl_sql_session *sess);
void pgw_conn_reset_formatter(pgw_conn *c);

/* ---- tls.c: libssl (linked) ---- */
fl_status pgw_tls_ctx_new(const char *cert, const char *key, SSL_CTX **out, fl_error *err);
void pgw_tls_ctx_free(SSL_CTX *ctx);
SSL *pgw_tls_accept(SSL_CTX *ctx, int fd); /* NULL = handshake failed */
int pgw_tls_read(SSL *s, void *buf, int n, bool *retry);
int pgw_tls_write(SSL *s, const void *buf, int n, bool *retry);
int pgw_tls_pending(SSL *s);
void pgw_tls_close(SSL *s);

/* ---- scram.c ---- */
typedef struct pgw_scram {
    fl_auth_scram v;
    char client_first_bare[512];
    char server_first[512];
    char nonce[160]; /* client nonce + server nonce */
    char gs2[64];
} pgw_scram;
/* Parses client-first-message; fills gs2, client_first_bare. false = malformed. */
bool pgw_scram_client_first(pgw_scram *x, const char *msg, size_t len, const char *server_nonce);
/* Checks client-final-message; on success writes server-final ("v=...") into out. */
bool pgw_scram_client_final(pgw_scram *x, const char *msg, size_t len, char *out, size_t cap);
size_t pgw_b64_encode(const uint8_t *in, size_t n, char *out, size_t cap);
/* Decodes; returns length or -1. */
long pgw_b64_decode(const char *in, size_t n, uint8_t *out, size_t cap);

/* ---- auth.c ---- */
/* Runs the authentication exchange for c->user; false = rejected (error sent). */
bool pgw_authenticate(pgw_conn *c, bool tls);

/* ---- classify.c: what a statement is (libpg_query) ---- */
enum {
    PGW_K_ENGINE = 0, /* forward to fl_sql_execute */
    PGW_K_EMPTY,
    PGW_K_BEGIN,
    PGW_K_COMMIT,
    PGW_K_ROLLBACK,
    PGW_K_SAVEPOINT, /* SAVEPOINT / RELEASE / ROLLBACK TO: accepted */
    PGW_K_SET,
    PGW_K_SHOW,
    PGW_K_RESET,
    PGW_K_DISCARD,
    PGW_K_UNLISTEN,
    PGW_K_LISTEN,
    PGW_K_DEALLOCATE,
    PGW_K_DECLARE,
    PGW_K_FETCH,
    PGW_K_CLOSE,
    PGW_K_COPY,
    PGW_K_SETTXN, /* SET TRANSACTION / SESSION CHARACTERISTICS */
    PGW_K_PREPARE,
    PGW_K_EXECUTE,
};
#define PGW_MAX_ARGS 64

typedef struct pgw_class pgw_class;
struct pgw_class {
    int kind;
    char tag[32];       /* BEGIN/COMMIT... tags, SET etc. */
    char name[128];     /* SET/SHOW/RESET name, cursor name, DEALLOCATE name ("" = ALL) */
    char value[1024];   /* SET value (joined with ", ") */
    bool is_local, reset_all, set_default, all, binary, hold, backward, move, copy_from;
    int64_t count;      /* FETCH count; -1 = ALL */
    int query_start, query_len; /* DECLARE/COPY (query): the inner query's bytes */
    char copy_table[256];       /* COPY table: "ns.name" or "name" */
    char copy_cols[1024];       /* "a, b" or "" */
    bool copy_csv, copy_header;
    char copy_delim, copy_quote, copy_escape;
    char copy_null[32];
    bool dml, ddl, select;
    uint32_t oids[PGW_MAX_ARGS]; /* PREPARE's declared types */
    uint32_t nargs;              /* PREPARE types / EXECUTE arguments */
    bool arg_null[PGW_MAX_ARGS], bad_arg;
    uint16_t arg_off[PGW_MAX_ARGS]; /* EXECUTE argument texts in argbuf */
    char argbuf[4096];
};
/* Classifies one statement. Parse errors: kind ENGINE (the engine reports them). */
void pgw_classify(const char *sql, pgw_class *out);

/* ---- settings.c ---- */
/* Settings live in the SQL session (include/floe/sql_settings.h):
 * get = SHOW's text, put = a session default (RESET returns to it). */
const char *pgw_setting_get(pgw_conn *c, const char *name);
void pgw_setting_put(pgw_conn *c, const char *name, const char *value);
/* ParameterStatus of every reported (GUC_REPORT) setting: at startup. */
void pgw_report_all(pgw_conn *c);
/* SET/SHOW/RESET/DISCARD... run by the wire layer; sends the response
 * (rows for SHOW when describe_only false). Returns false on error (sent). */
bool pgw_run_set(pgw_conn *c, const pgw_class *k);
bool pgw_run_show(pgw_conn *c, const pgw_class *k, bool send_desc);
bool pgw_run_reset(pgw_conn *c, const pgw_class *k);
bool pgw_run_discard(pgw_conn *c, const pgw_class *k);
bool pgw_run_deallocate(pgw_conn *c, const pgw_class *k);
/* Field list of SHOW's result (for Describe). */
void pgw_show_describe(pgw_conn *c, const pgw_class *k);

/* ---- txn.c ---- */
/* Transaction control; sends CommandComplete (or error). */
bool pgw_run_txn(pgw_conn *c, const char *sql, const pgw_class *k);
/* After a statement ran: DDL inside a block gets a NOTICE (it committed at once). */
void pgw_note_block_ddl(pgw_conn *c, const pgw_class *k);
/* Ends the implicit transaction at Sync / end of simple query. */
void pgw_end_implicit(pgw_conn *c);
void pgw_close_portals(pgw_conn *c, bool keep_hold);

/* ---- exec.c: running one statement ---- */
/* Runs one statement of a simple query (or an extended Execute of a
 * statement without a prepared engine handle). Returns false on error (sent). */
bool pgw_run_statement(pgw_conn *c, const char *sql, size_t len);
/* Runs an already classified statement (sql NUL-terminated). */
bool pgw_run_classified(pgw_conn *c, const char *sql, const pgw_class *k);

/* ---- rows.c ---- */
void pgw_send_rowdesc(pgw_conn *c, const fl_schema *sch, const int16_t *formats,
                      uint32_t nformats);
/* Streams rows of p (up to max; 0 = all). Returns 1 eof, 0 suspended, -1 error (sent). */
int pgw_send_rows(pgw_conn *c, pgw_portal *p, int64_t max, bool count_only);
/* Sends a SELECT-style tag for a finished row portal. */
void pgw_send_rows_tag(pgw_conn *c, pgw_portal *p, const char *verb);

/* ---- binfmt.c: binary send/recv of values ---- */
/* An fl_buf whose appends cannot fail: a failed growth sets oom, later puts
 * are dropped, and the caller checks oom once at the end. */
typedef struct pgw_buf {
    fl_buf buf;
    bool oom;
} pgw_buf;
void pgw_buf_put(pgw_buf *b, const void *p, size_t n);
void pgw_buf_free(pgw_buf *b);
/* Appends the binary (send) form of row of v (valid row, any encoding). */
bool pgw_bin_encode(const fl_vector *v, uint32_t row, pgw_buf *out);
/* Decodes a binary parameter of PG type oid into *out (bytes borrowed from
 * in or allocated in a). false with a message in err. */
void pgw_numeric_encode(fl_i128 unscaled, int32_t scale, pgw_buf *out);
bool pgw_numeric_decode(const uint8_t *in, size_t n, fl_i128 *unscaled, int32_t *scale,
                        fl_error *err);
bool pgw_bin_decode(uint32_t oid, const uint8_t *in, size_t n, fl_arena *a, fl_value *out,
                    fl_error *err);

/* ---- extended.c ---- */
void pgw_ext_message(pgw_conn *c, char type, pgw_rd *r);
void pgw_free_stmts(pgw_conn *c);
bool pgw_stmt_drop(pgw_conn *c, const char *name); /* false = no such statement */
pgw_portal *pgw_portal_find(pgw_conn *c, const char *name);
void pgw_portal_free(pgw_conn *c, pgw_portal *p);

/* ---- cursor.c ---- */
bool pgw_run_declare(pgw_conn *c, const char *sql, const pgw_class *k);
bool pgw_run_fetch(pgw_conn *c, const pgw_class *k, bool send_desc);
bool pgw_run_close(pgw_conn *c, const pgw_class *k);

/* ---- params.c ---- */
/* sql with $n replaced by literals of params (malloc'd; NULL = out of memory). */
char *pgw_inline_params(const char *sql, const fl_value *params, const uint32_t *oids, uint32_t n);
fl_status pgw_stmt_run(pgw_conn *c, pgw_stmt *s, const fl_value *params, uint32_t n,
                       fl_sql_result **out, fl_error *err);
bool pgw_run_prepare(pgw_conn *c, const char *sql, const pgw_class *k);
bool pgw_run_execute(pgw_conn *c, const pgw_class *k);

/* ---- extended.c: statement creation shared with PREPARE ---- */
/* Creates (and registers) a prepared statement; error sent on failure. */
pgw_stmt *pgw_stmt_create(pgw_conn *c, const char *name, const char *sql, const uint32_t *oids,
                          uint32_t n);

/* ---- copy.c ---- */
bool pgw_run_copy(pgw_conn *c, const char *sql, const pgw_class *k);

#endif
