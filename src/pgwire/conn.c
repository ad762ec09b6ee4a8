/*
 * conn.c - one connection from the first byte to the last: SSL/GSSENC
 * negotiation, the startup packet, the connection limit, authentication,
 * the session, ParameterStatus/BackendKeyData, and the message loop.
 *
 * Startup packet (no type byte): int32 length (8..10000), int32 code:
 *   196608 (3.0) then "name\0value\0"... "\0"; 80877103 SSLRequest (answer
 *   'S' and do the TLS handshake, or 'N'); 80877104 GSSENCRequest ('N');
 *   80877102 CancelRequest (int32 pid, int32 secret; no answer).
 * Typed messages after startup: type byte, int32 length >= 4; a length
 * beyond max_message_bytes is refused (54000) before any allocation.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "pgwire/pgw.h"

#define STARTUP_MAX 10000

bool pgw_read_msg(pgw_conn *c, char *type, pgw_rd *r, bool idle)
{
    uint8_t h[5];
    if (!pgw_read_full(c, h, 5, idle))
        return false;
    uint32_t len = ((uint32_t)h[1] << 24) | ((uint32_t)h[2] << 16) | ((uint32_t)h[3] << 8) | h[4];
    if (len < 4) {
        pgw_send_error(c, "FATAL", "08P01", 0, "invalid message length %u", len);
        pgw_flush(c);
        return false;
    }
    size_t body = len - 4;
    if (body > c->srv->o.max_message_bytes) {
        pgw_send_error(c, "FATAL", "54000", 0,
                       "message of %zu bytes exceeds the limit of %zu bytes (type '%c')", body,
                       c->srv->o.max_message_bytes, isprint(h[0]) ? h[0] : '?');
        pgw_flush(c);
        return false;
    }
    if (c->in_cap > (1u << 20) && body < (64u << 10)) { /* give a big buffer back */
        free(c->in);
        c->in = NULL;
        c->in_cap = 0;
    }
    if (body + 1 > c->in_cap) {
        size_t cap = body + 1 < 4096 ? 4096 : body + 1;
        uint8_t *p = realloc(c->in, cap);
        if (!p) {
            pgw_send_error(c, "FATAL", "53200", 0, "out of memory for a %zu-byte message", body);
            pgw_flush(c);
            return false;
        }
        c->in = p;
        c->in_cap = cap;
        if (cap > c->peak_in)
            c->peak_in = cap;
    }
    if (body && !pgw_read_full(c, c->in, body, false))
        return false;
    c->in[body] = 0;
    *type = (char)h[0];
    r->p = c->in;
    r->n = body;
    r->pos = 0;
    r->bad = false;
    return true;
}

void pgw_conn_reset_formatter(pgw_conn *c)
{
    const char *tz = c->sess ? fl_sql_get(c->sess, "time_zone") : "UTC";
    if (!tz)
        tz = "UTC";
    if (c->fmt && !strcmp(tz, c->fmt_tz))
        return;
    fl_sql_formatter_free(c->fmt);
    c->fmt = NULL;
    fl_error err = {0};
    fl_sql_formatter *f = NULL;
    if (fl_sql_formatter_new(tz, &f, &err) != FL_OK)
        fl_sql_formatter_new("UTC", &f, &err);
    c->fmt = f;
    snprintf(c->fmt_tz, sizeof c->fmt_tz, "%s", tz);
}

static bool tls_accept(pgw_conn *c)
{
    c->io.ssl = pgw_tls_accept(c->srv->tls, c->io.fd);
    return c->io.ssl != NULL;
}

/* Reads the startup packet, handling SSL/GSS/cancel. Returns the body
 * (malloc'd) of a 3.x startup packet, or NULL when the connection ends. */
static uint8_t *read_startup(pgw_conn *c, size_t *blen)
{
    bool tls_done = false;
    for (;;) {
        uint8_t h[8];
        if (!pgw_read_full(c, h, 8, true))
            return NULL;
        uint32_t len = ((uint32_t)h[0] << 24) | ((uint32_t)h[1] << 16) | ((uint32_t)h[2] << 8) | h[3];
        uint32_t code = ((uint32_t)h[4] << 24) | ((uint32_t)h[5] << 16) | ((uint32_t)h[6] << 8) | h[7];
        if (len < 8 || len > STARTUP_MAX) {
            pgw_send_error(c, "FATAL", "08P01", 0, "invalid startup packet length %u", len);
            pgw_flush(c);
            return NULL;
        }
        uint8_t *body = malloc(len - 8 + 1);
        if (!body || (len > 8 && !pgw_read_full(c, body, len - 8, false))) {
            free(body);
            return NULL;
        }
        body[len - 8] = 0;
        if (code == 80877103 || code == 80877104) { /* SSLRequest / GSSENCRequest */
            free(body);
            bool tls = code == 80877103 && c->srv->tls && !tls_done && !c->io.mem;
            pgw_put_u8(c, tls ? 'S' : 'N');
            if (!pgw_flush(c))
                return NULL;
            if (tls) {
                if (!tls_accept(c))
                    return NULL;
                tls_done = true;
            }
            continue;
        }
        if (code == 80877102) { /* CancelRequest */
            pgw_rd r = {body, len - 8, 0, false};
            int32_t pid = pgw_get_i32(&r), secret = pgw_get_i32(&r);
            if (!r.bad)
                pgw_server_cancel(c->srv, pid, secret);
            free(body);
            return NULL;
        }
        if ((code >> 16) != 3) {
            free(body);
            pgw_send_error(c, "FATAL", "0A000", 0,
                           "unsupported frontend protocol %u.%u: server supports 3.0",
                           code >> 16, code & 0xffff);
            pgw_flush(c);
            return NULL;
        }
        if ((code & 0xffff) != 0) { /* NegotiateProtocolVersion: we speak 3.0 */
            pgw_begin(c, 'v');
            pgw_put_i32(c, 196608);
            pgw_put_i32(c, 0);
            pgw_end(c);
        }
        *blen = len - 8;
        return body;
    }
}

static void apply_options(pgw_conn *c, const char *opts)
{
    /* "-c name=value" pairs (libpq's PGOPTIONS), also "--name=value" */
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", opts);
    char *save = NULL;
    for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (!strcmp(t, "-c"))
            continue;
        if (!strncmp(t, "-c", 2))
            t += 2;
        else if (!strncmp(t, "--", 2))
            t += 2;
        char *eq = strchr(t, '=');
        if (!eq)
            continue;
        *eq = 0;
        for (char *p = t; *p; p++)
            if (*p == '-')
                *p = '_';
        pgw_class k;
        memset(&k, 0, sizeof k);
        k.kind = PGW_K_SET;
        snprintf(k.name, sizeof k.name, "%s", t);
        snprintf(k.value, sizeof k.value, "%s", eq + 1);
        snprintf(k.tag, sizeof k.tag, "SET");
        pgw_run_set(c, &k); /* errors are reported as ErrorResponse; PG would FATAL */
    }
}

/* Counts the authenticated connection against the slots (server.c). */
static bool register_session(pgw_conn *c)
{
    pgw_reg why = pgw_server_register(c->srv, c);
    if (why == PGW_REG_OK) {
        pgw_limits_authenticated(c);
        return true;
    }
    if (why == PGW_REG_RESERVED)
        pgw_send_error(c, "FATAL", "53300", 0,
                       "remaining connection slots are reserved for admin principals");
    else if (why == PGW_REG_PRINCIPAL)
        pgw_send_error(c, "FATAL", "53300", 0, "too many connections for principal \"%s\"",
                       c->who.name);
    else
        pgw_send_error(c, "FATAL", "53300", 0, "sorry, too many clients already");
    return false;
}

static bool startup(pgw_conn *c)
{
    size_t blen = 0;
    uint8_t *body = read_startup(c, &blen);
    if (!body)
        return false;
    pgw_rd r = {body, blen, 0, false};
    const char *opts = NULL, *app = "";
    for (;;) {
        const char *k = pgw_get_str(&r);
        if (!k || !*k)
            break;
        const char *v = pgw_get_str(&r);
        if (!v)
            break;
        if (!strcmp(k, "user"))
            snprintf(c->user, sizeof c->user, "%s", v);
        else if (!strcmp(k, "database"))
            snprintf(c->database, sizeof c->database, "%s", v);
        else if (!strcmp(k, "options"))
            opts = v;
        else if (!strcmp(k, "application_name"))
            app = v;
        else if (!strcmp(k, "client_encoding") && strcasecmp(v, "UTF8") && strcasecmp(v, "UTF-8") &&
                 strcasecmp(v, "unicode")) {
            pgw_send_error(c, "FATAL", "22023", 0,
                           "client_encoding \"%s\" is not supported: floe speaks UTF8 only", v);
            free(body);
            return false;
        }
    }
    if (r.bad || !c->user[0]) {
        pgw_send_error(c, "FATAL", "28000", 0, "no PostgreSQL user name specified in startup packet");
        free(body);
        return false;
    }
    if (!c->database[0])
        snprintf(c->database, sizeof c->database, "%s", c->user);
    /* authenticated first, then counted: who it is decides (limits.c) */
    if (!pgw_authenticate(c, c->io.ssl != NULL) || !register_session(c)) {
        free(body);
        return false;
    }
    fl_sql_options so;
    memset(&so, 0, sizeof so);
    so.catalog_uri = c->srv->catalog_uri;
    so.warehouse = c->srv->warehouse;
    so.threads = c->srv->o.session_threads;
    so.memory_limit = c->srv->o.session_memory_limit;
    if (!pgw_limits_session(c, &so)) { /* ceilings, default statement_timeout */
        free(body);
        return false;
    }
    so.user = c->user; /* the authenticated principal: current_user (pgkeys) */
    /* the engine authorizes every statement (sql/authz); trust mode
     * (--pg-trust) is development only: no checks */
    so.auth = c->who.anonymous ? NULL : c->srv->auth;
    so.principal = &c->who;
    so.cache = c->srv->o.sql_cache; /* metacache: the process-wide read cache */
    so.queue = c->srv->o.sql_queue; /* execution slots, shared with /v1/sql */
    so.extension = c->srv->o.sql_extension; /* semantic.metrics (sem_sql.h) */
    fl_sql_session *sess = NULL;
    fl_error err = {0};
    if (fl_sql_session_open(&so, &sess, &err) != FL_OK) {
        pgw_send_error(c, "FATAL", "58000", 0, "cannot open a session: %s", err.msg);
        free(body);
        return false;
    }
    pgw_server_set_session(c->srv, c, sess);
    pgw_setting_put(c, "application_name", app);
    pgw_setting_put(c, "session_authorization", c->user);
    pgw_setting_put(c, "is_superuser", c->who.admin ? "on" : "off");
    char maxc[16];
    snprintf(maxc, sizeof maxc, "%u", c->srv->o.max_connections);
    pgw_setting_put(c, "max_connections", maxc);
    if (opts)
        apply_options(c, opts);
    pgw_report_all(c);
    pgw_begin(c, 'K');
    pgw_put_i32(c, c->pid);
    pgw_put_i32(c, c->secret);
    pgw_end(c);
    free(body);
    c->txn = 'I';
    pgw_send_ready(c);
    return !c->io_failed;
}

static void simple_query(pgw_conn *c, pgw_rd *r)
{
    const char *q = pgw_get_str(r);
    if (!q) {
        pgw_send_error(c, "ERROR", "08P01", 0, "malformed Query message");
        pgw_send_ready(c);
        return;
    }
    uint32_t *starts = NULL, *lens = NULL, n = 0;
    fl_error err = {0};
    if (fl_sql_split(q, &starts, &lens, &n, &err) != FL_OK) {
        pgw_send_error(c, "ERROR", "42601", 0, "%s", err.msg);
    } else {
        uint32_t ran = 0;
        for (uint32_t i = 0; i < n && !c->io_failed; i++) {
            bool blank = true;
            for (uint32_t j = 0; j < lens[i] && blank; j++)
                blank = isspace((unsigned char)q[starts[i] + j]) || q[starts[i] + j] == ';';
            if (blank)
                continue;
            ran++;
            if (!pgw_run_statement(c, q + starts[i], lens[i]))
                break;
        }
        if (ran == 0) {
            pgw_begin(c, 'I'); /* EmptyQueryResponse */
            pgw_end(c);
        }
    }
    free(starts);
    free(lens);
    pgw_end_implicit(c);
    pgw_send_ready(c);
}

/* A message that may run a statement, within the principal's limit of
 * running statements (limits.c); refused: 53300 and the protocol goes on. */
static void run_admitted(pgw_conn *c, char type, pgw_rd *r)
{
    bool skipping = type != 'Q' && c->skip_to_sync;
    if (!skipping && !pgw_limits_enter(c)) {
        if (type == 'Q') {
            pgw_end_implicit(c);
            pgw_send_ready(c);
        } else {
            c->skip_to_sync = true;
            if (c->txn == 'T')
                c->txn = 'E';
        }
        return;
    }
    if (type == 'Q') {
        c->skip_to_sync = false;
        simple_query(c, r);
    } else {
        pgw_ext_message(c, type, r);
    }
    if (!skipping)
        pgw_limits_leave(c);
}

static void message_loop(pgw_conn *c)
{
    for (;;) {
        char type;
        pgw_rd r;
        atomic_store(&c->busy, false); /* waiting: a hang-up is seen by the read */
        if (!pgw_read_msg(c, &type, &r, true))
            return;
        atomic_store(&c->busy, true);
        switch (type) {
        case 'Q':
        case 'P':
        case 'B':
        case 'D':
        case 'E': run_admitted(c, type, &r); break;
        case 'C':
        case 'S':
        case 'H':
            pgw_ext_message(c, type, &r);
            break;
        case 'X':
            return;
        case 'd':
        case 'c':
        case 'f':
            break; /* COPY messages outside COPY are ignored, as PostgreSQL does */
        case 'F':
            pgw_send_error(c, "ERROR", "0A000", 0, "the function call protocol is not supported");
            pgw_send_ready(c);
            break;
        default:
            pgw_send_error(c, "FATAL", "08P01", 0, "invalid frontend message type %d",
                           (unsigned char)type);
            pgw_flush(c);
            return;
        }
        if (c->io_failed || c->closing)
            return;
    }
}

/* One line per finished connection: what it cost (the "a slow or
 * idle client cannot starve others": every figure here is bounded by an
 * option, see README "Memory per connection"). */
static void log_connection(const pgw_conn *c)
{
    if (c->io.mem || !c->registered)
        return; /* in-memory runs (tests, fuzzing) and refused startups stay quiet */
    fprintf(stderr,
            "floe pgwire: connection %d (user %s) closed: %llu statements, %llu bytes in, "
            "%llu bytes out, peak input buffer %zu bytes (limit %zu), peak output buffer %zu "
            "bytes (flush at %zu), session memory limit %llu bytes\n",
            (int)c->pid, c->user[0] ? c->user : "?", (unsigned long long)c->nqueries,
            (unsigned long long)c->bytes_in, (unsigned long long)c->bytes_out, c->peak_in,
            c->srv->o.max_message_bytes, c->peak_out, c->srv->o.output_buffer_bytes,
            (unsigned long long)c->srv->o.session_memory_limit);
}

void pgw_conn_serve(pgw_conn *c)
{
    c->txn = 'I';
    if (startup(c))
        message_loop(c);
    pgw_flush(c);
    log_connection(c);
    pgw_close_portals(c, false);
    pgw_free_stmts(c);
    fl_sql_session *s = c->sess;
    pgw_server_set_session(c->srv, c, NULL);
    if (c->registered)
        pgw_server_unregister(c->srv, c);
    fl_sql_session_close(s);
    fl_sql_formatter_free(c->fmt);
    pgw_tls_close(c->io.ssl);
    free(c->in);
    free(c->out);
}
