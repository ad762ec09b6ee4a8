/*
 * server.c - the listener: options, TLS context, auth store, the accept
 * thread, one detached thread per connection, the connection limit and the
 * cancel registry.
 *
 * Slots: max_connections + max_startup + PGW_EXTRA_SLOTS entries. The
 * accept thread puts every new connection in a free slot before starting
 * its thread (no free slot: the socket is closed at once), so the number of
 * threads is bounded. Unauthenticated connections are bounded by
 * max_startup: past it the oldest is shut down to make room (limits.c).
 * Once authenticated a connection becomes "active" (counted against
 * max_connections, the admin reservation and its principal's cap; the next
 * one gets 53300 too_many_connections); a CancelRequest never becomes
 * active. Everything in slots, the conns'
 * sess pointers and pid/secret is guarded by s->lock: a cancel runs
 * fl_sql_session_cancel() under the lock, and a connection clears its sess
 * pointer under the lock before closing the session, so the session a
 * cancel sees is always alive.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "floe/sql_queue.h"
#include "pgwire/pgw.h"

static char *dup_opt(const char *s)
{
    return s ? strdup(s) : NULL;
}

static fl_status tls_setup(fl_pgwire *s, fl_error *err)
{
    if (!s->o.tls_cert_file && !s->o.tls_key_file)
        return FL_OK;
    if (!s->o.tls_cert_file || !s->o.tls_key_file)
        return fl_errorf(err, FL_EINVAL, "pgwire: TLS needs both a certificate and a key file");
    return pgw_tls_ctx_new(s->o.tls_cert_file, s->o.tls_key_file, &s->tls, err);
}

/* Operator memory per connection when none is configured: 80% of RAM
 * shared by max_connections sessions (at least 64 MiB), so a full server
 * cannot promise more than the machine has (the engine's own default,
 * 80% of RAM, is per session). */
static uint64_t default_session_memory(uint32_t max_connections)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    uint64_t ram = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : (4ull << 30);
    uint64_t per = ram / 10 * 8 / (max_connections ? max_connections : 1);
    return per < (64ull << 20) ? (64ull << 20) : per;
}

fl_status fl_pgwire_create(const fl_pgwire_options *opt, fl_pgwire **out, fl_error *err)
{
    *out = NULL;
    fl_pgwire *s = calloc(1, sizeof *s);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    s->o = *opt;
    s->lfd = -1;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->idle, NULL);
    s->o.host = s->host = dup_opt(opt->host ? opt->host : "127.0.0.1");
    s->o.catalog_uri = s->catalog_uri = dup_opt(opt->catalog_uri);
    s->o.warehouse = s->warehouse = dup_opt(opt->warehouse);
    s->o.auth_store_uri = s->auth_store = dup_opt(opt->auth_store_uri);
    s->o.audit_log_path = s->audit_log = dup_opt(opt->audit_log_path);
    s->o.tls_cert_file = NULL; /* used only during setup (below) */
    s->o.tls_key_file = NULL;
    if (!s->o.max_connections)
        s->o.max_connections = 64;
    if (!s->o.idle_timeout_s)
        s->o.idle_timeout_s = 3600;
    if (!s->o.max_message_bytes)
        s->o.max_message_bytes = 64u << 20;
    if (!s->o.output_buffer_bytes)
        s->o.output_buffer_bytes = 256u << 10;
    if (!s->o.session_memory_limit && s->o.sql_queue)
        s->o.session_memory_limit = fl_sql_queue_share(s->o.sql_queue);
    if (!s->o.session_memory_limit)
        s->o.session_memory_limit = default_session_memory(s->o.max_connections);
    s->tls_cleartext = opt->tls_cleartext;
    fl_status rc = pgw_limits_init(s, err); /* max_startup and the other limits' defaults */
    s->nslots = s->o.max_connections + s->o.max_startup + PGW_EXTRA_SLOTS;
    s->slots = calloc(s->nslots, sizeof *s->slots);
    s->next_pid = 1000 + (int32_t)(getpid() % 1000) * 10;
    if (rc == FL_OK && (!s->host || !s->slots))
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK) {
        fl_pgwire_options t = *opt;
        s->o.tls_cert_file = t.tls_cert_file;
        s->o.tls_key_file = t.tls_key_file;
        rc = tls_setup(s, err);
        s->o.tls_cert_file = s->o.tls_key_file = NULL;
    }
    if (rc == FL_OK && opt->auth) {
        s->auth = opt->auth;
    } else if (rc == FL_OK && !opt->trust) {
        const char *store = s->auth_store ? s->auth_store : s->catalog_uri;
        if (!store) {
            rc = fl_errorf(err, FL_EINVAL, "pgwire: password authentication needs an auth store "
                                           "(or --pg-trust for local development)");
        } else {
            fl_auth_options ao;
            memset(&ao, 0, sizeof ao);
            ao.store_uri = store;
            ao.audit_log_path = s->audit_log;
            rc = fl_auth_open(&ao, &s->auth, err);
            s->own_auth = rc == FL_OK;
        }
    }
    if (rc != FL_OK) {
        fl_pgwire_destroy(s);
        return rc;
    }
    *out = s;
    return FL_OK;
}

static void *conn_main(void *arg)
{
    pgw_conn *c = arg;
    fl_pgwire *s = c->srv;
    pgw_conn_serve(c);
    pthread_mutex_lock(&s->lock);
    s->slots[c->slot].conn = NULL;
    s->slots[c->slot].active = false;
    s->nthreads--;
    pthread_cond_broadcast(&s->idle);
    pthread_mutex_unlock(&s->lock);
    close(c->io.fd); /* only now: destroy() may shutdown() fds of listed conns */
    free(c);
    return NULL;
}

static void accept_one(fl_pgwire *s, int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    pgw_conn *c = calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        return;
    }
    c->srv = s;
    c->io.fd = fd;
    pgw_limits_accept(c); /* peer address, the startup+authentication deadline */
    pthread_mutex_lock(&s->lock);
    pgw_limits_make_room(s); /* the oldest unauthenticated one goes past max_startup */
    uint32_t i = pgw_limits_free_slot(s);
    if (i == s->nslots || s->stopping) {
        pthread_mutex_unlock(&s->lock);
        close(fd);
        free(c);
        return;
    }
    s->slots[i] = (pgw_slot){.conn = c, .since_ms = pgw_now_ms()};
    c->slot = i;
    s->nthreads++;
    pthread_mutex_unlock(&s->lock);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, 8u << 20);
    pthread_t t;
    if (pthread_create(&t, &at, conn_main, c) != 0) {
        pthread_mutex_lock(&s->lock);
        s->slots[i].conn = NULL;
        s->nthreads--;
        pthread_mutex_unlock(&s->lock);
        close(fd);
        free(c);
    }
    pthread_attr_destroy(&at);
}

static void *accept_main(void *arg)
{
    fl_pgwire *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        bool stop = s->stopping;
        pthread_mutex_unlock(&s->lock);
        if (stop)
            break;
        struct pollfd pfd = {.fd = s->lfd, .events = POLLIN};
        if (poll(&pfd, 1, 200) <= 0)
            continue;
        int fd = accept(s->lfd, NULL, NULL);
        if (fd >= 0)
            accept_one(s, fd);
    }
    return NULL;
}

fl_status fl_pgwire_listen(fl_pgwire *s, fl_error *err)
{
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    char port[16];
    snprintf(port, sizeof port, "%d", s->o.port);
    int gr = getaddrinfo(s->host, port, &hints, &ai);
    if (gr != 0)
        return fl_errorf(err, FL_EINVAL, "pgwire: cannot resolve %s: %s", s->host,
                         gai_strerror(gr));
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 128) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        freeaddrinfo(ai);
        return fl_errorf(err, FL_EIO, "pgwire: cannot listen on %s:%d: %s", s->host, s->o.port,
                         strerror(e));
    }
    freeaddrinfo(ai);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &sl);
    s->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                              : ((struct sockaddr_in *)&ss)->sin_port);
    s->lfd = fd;
    if (pthread_create(&s->accept_thr, NULL, accept_main, s) != 0) {
        close(fd);
        s->lfd = -1;
        return fl_errorf(err, FL_EIO, "pgwire: cannot start the accept thread");
    }
    s->accepting = true;
    pgw_limits_start(s); /* cancels statements whose client went away */
    return FL_OK;
}

int fl_pgwire_port(const fl_pgwire *s)
{
    return s ? s->port : 0;
}

pgw_reg pgw_server_register(fl_pgwire *s, pgw_conn *c)
{
    bool admin = c->who.admin || c->who.anonymous;
    pthread_mutex_lock(&s->lock);
    uint32_t active = 0, mine = 0;
    for (uint32_t i = 0; i < s->nslots; i++) {
        active += s->slots[i].active;
        mine += s->slots[i].active && !strcmp(s->slots[i].conn->who.name, c->who.name);
    }
    pgw_reg why = PGW_REG_OK;
    if (active >= s->o.max_connections || s->stopping)
        why = PGW_REG_FULL;
    else if (!admin && active >= s->o.max_connections - s->o.reserved_connections)
        why = PGW_REG_RESERVED; /* the last slots are kept for admins */
    else if (!admin && mine >= s->o.max_sessions_per_principal)
        why = PGW_REG_PRINCIPAL;
    bool ok = why == PGW_REG_OK;
    if (ok) {
        s->slots[c->slot].active = true;
        c->pid = s->next_pid++;
        if (s->next_pid <= 0)
            s->next_pid = 1000;
        RAND_bytes((unsigned char *)&c->secret, sizeof c->secret);
        c->registered = true;
    }
    pthread_mutex_unlock(&s->lock);
    return why;
}

void pgw_server_unregister(fl_pgwire *s, pgw_conn *c)
{
    pthread_mutex_lock(&s->lock);
    s->slots[c->slot].active = false;
    c->registered = false;
    pthread_mutex_unlock(&s->lock);
}

void pgw_server_set_session(fl_pgwire *s, pgw_conn *c, fl_sql_session *sess)
{
    pthread_mutex_lock(&s->lock);
    c->sess = sess;
    pthread_mutex_unlock(&s->lock);
}

void pgw_server_cancel(fl_pgwire *s, int32_t pid, int32_t secret)
{
    pthread_mutex_lock(&s->lock);
    for (uint32_t i = 0; i < s->nslots; i++) {
        pgw_conn *c = s->slots[i].conn;
        if (c && s->slots[i].active && c->registered && c->pid == pid && c->secret == secret &&
            c->sess)
            fl_sql_session_cancel(c->sess);
    }
    pthread_mutex_unlock(&s->lock);
}

void fl_pgwire_run_memory(fl_pgwire *s, const uint8_t *in, size_t len, fl_pgwire_sink sink,
                          void *ctx)
{
    pgw_conn *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->srv = s;
    c->io.fd = -1;
    c->io.mem = in ? in : (const uint8_t *)"";
    c->io.mem_len = len;
    c->io.sink = sink;
    c->io.sink_ctx = ctx;
    pthread_mutex_lock(&s->lock);
    uint32_t i = 0;
    while (i < s->nslots && s->slots[i].conn)
        i++;
    if (i == s->nslots) {
        pthread_mutex_unlock(&s->lock);
        free(c);
        return;
    }
    s->slots[i] = (pgw_slot){.conn = c};
    c->slot = i;
    pthread_mutex_unlock(&s->lock);
    pgw_limits_accept(c);
    pgw_conn_serve(c);
    pthread_mutex_lock(&s->lock);
    s->slots[i].conn = NULL;
    s->slots[i].active = false;
    pthread_mutex_unlock(&s->lock);
    free(c);
}

void fl_pgwire_destroy(fl_pgwire *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->stopping = true;
    pthread_mutex_unlock(&s->lock);
    if (s->accepting)
        pthread_join(s->accept_thr, NULL);
    if (s->lfd >= 0)
        close(s->lfd);
    pthread_mutex_lock(&s->lock);
    for (uint32_t i = 0; s->slots && i < s->nslots; i++) {
        pgw_conn *c = s->slots[i].conn;
        if (!c)
            continue;
        if (c->sess)
            fl_sql_session_cancel(c->sess);
        if (c->io.fd >= 0)
            shutdown(c->io.fd, SHUT_RDWR); /* wakes a thread blocked in poll/recv */
    }
    while (s->nthreads > 0)
        pthread_cond_wait(&s->idle, &s->lock);
    pthread_mutex_unlock(&s->lock);
    pgw_limits_free(s);
    if (s->own_auth)
        fl_auth_close(s->auth);
    pgw_tls_ctx_free(s->tls);
    free(s->slots);
    free(s->host);
    free(s->catalog_uri);
    free(s->warehouse);
    free(s->auth_store);
    free(s->audit_log);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->idle);
    free(s);
}
