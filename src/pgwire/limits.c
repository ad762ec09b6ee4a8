/*
 * limits.c - pgwire's share of "resource limits that hold"
 * (docs/security.md, "Resource limits"; src/pgwire/README.md).
 *
 *   Before authentication  A connection has auth_timeout_s (10 s) from
 *                          accept to AuthenticationOk: every read polls with
 *                          the time left, and SO_RCVTIMEO bounds the TLS
 *                          handshake too. Unauthenticated connections have
 *                          their own bound, max_startup (64): when it is
 *                          reached the oldest one is shut down to make room
 *                          (server.c accept_one), so silent clients can
 *                          never take the slots logged-in sessions need.
 *   Sessions               Counted only once authenticated (server.c): at
 *                          most max_connections, of which the last
 *                          reserved_connections (3) only for admin
 *                          principals, and at most max_sessions_per_principal
 *                          for one principal (admins: no cap). Each session
 *                          gets its principal's limits (fl_limits_for_session:
 *                          per-role ceilings, else the server's defaults).
 *   Statements             Each message that may run one (Query, Parse,
 *                          Bind, Describe, Execute) is admitted in the
 *                          fl_admission shared with /v1/sql, at most
 *                          max_statements per principal: 53300 beyond.
 *   Client gone            A monitor thread polls, every 100 ms, the sockets
 *                          of connections busy with a message for POLLRDHUP/
 *                          HUP/ERR (the client closed or reset while its
 *                          statement runs or its rows stream) and cancels
 *                          the session; the connection thread logs how long
 *                          the statement took to stop.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "pgwire/pgw.h"

#define MONITOR_MS 100

int64_t pgw_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- life cycle ---- */

fl_status pgw_limits_init(fl_pgwire *s, fl_error *err)
{
    if (!s->o.auth_timeout_s)
        s->o.auth_timeout_s = 10;
    if (!s->o.max_startup)
        s->o.max_startup = 64;
    if (!s->o.reserved_connections)
        s->o.reserved_connections = 3;
    if (s->o.reserved_connections >= s->o.max_connections)
        s->o.reserved_connections = s->o.max_connections > 1 ? s->o.max_connections - 1 : 0;
    if (!s->o.max_sessions_per_principal)
        s->o.max_sessions_per_principal = s->o.max_connections / 2 ? s->o.max_connections / 2 : 1;
    if (s->o.limits)
        s->limits = *s->o.limits;
    s->o.limits = NULL; /* copied */
    pthread_cond_init(&s->monitor_cv, NULL);
    s->admission = s->o.admission;
    if (!s->admission) {
        FL_TRY(fl_admission_new(&s->admission, err));
        s->own_admission = true;
    }
    return FL_OK;
}

static void *monitor_main(void *arg);

void pgw_limits_start(fl_pgwire *s)
{
    if (!s->monitor_running && pthread_create(&s->monitor, NULL, monitor_main, s) == 0)
        s->monitor_running = true;
}

void pgw_limits_free(fl_pgwire *s)
{
    if (s->monitor_running) {
        pthread_mutex_lock(&s->lock);
        s->stopping = true;
        pthread_cond_broadcast(&s->monitor_cv);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->monitor, NULL);
        s->monitor_running = false;
    }
    pthread_cond_destroy(&s->monitor_cv);
    if (s->own_admission)
        fl_admission_free(s->admission);
    s->admission = NULL;
}

/* ---- before authentication ---- */

static void peer_of(pgw_conn *c)
{
    snprintf(c->peer, sizeof c->peer, "unknown");
    snprintf(c->peer_ip, sizeof c->peer_ip, "unknown");
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (c->io.fd < 0 || getpeername(c->io.fd, (struct sockaddr *)&ss, &sl) != 0)
        return;
    char ip[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (ss.ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
        port = ntohs(in->sin_port);
    } else if (ss.ss_family == AF_INET6) {
        const struct sockaddr_in6 *in = (const struct sockaddr_in6 *)&ss;
        inet_ntop(AF_INET6, &in->sin6_addr, ip, sizeof ip);
        port = ntohs(in->sin6_port);
    }
    snprintf(c->peer_ip, sizeof c->peer_ip, "%s", ip);
    snprintf(c->peer, sizeof c->peer, "%s:%d", ip, port);
}

static void socket_timeouts(pgw_conn *c, uint32_t secs)
{
    if (c->io.fd < 0)
        return;
    struct timeval tv = {(time_t)secs, 0};
    setsockopt(c->io.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(c->io.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

void pgw_limits_accept(pgw_conn *c)
{
    peer_of(c);
    if (c->io.mem)
        return; /* in-memory runs (tests, fuzzing) have no clock to race */
    c->auth_deadline_ms = pgw_now_ms() + (int64_t)c->srv->o.auth_timeout_s * 1000;
    socket_timeouts(c, c->srv->o.auth_timeout_s); /* SSL_accept reads without our poll */
}

void pgw_limits_authenticated(pgw_conn *c)
{
    if (!c->auth_deadline_ms)
        return;
    c->auth_deadline_ms = 0;
    socket_timeouts(c, 0);
}

int pgw_read_timeout_ms(pgw_conn *c, bool idle)
{
    int64_t t = idle ? (int64_t)c->srv->o.idle_timeout_s * 1000 : 600000;
    if (c->auth_deadline_ms) {
        int64_t left = c->auth_deadline_ms - pgw_now_ms();
        if (left <= 0)
            return -1;
        if (left < t)
            t = left;
    }
    return t > 0x7fffffff ? 0x7fffffff : (int)t;
}

void pgw_limits_make_room(fl_pgwire *s)
{
    uint32_t waiting = 0, oldest = UINT32_MAX;
    for (uint32_t i = 0; i < s->nslots; i++) {
        pgw_slot *sl = &s->slots[i];
        if (!sl->conn || sl->active || sl->evicted || sl->conn->io.fd < 0)
            continue;
        waiting++;
        if (oldest == UINT32_MAX || sl->since_ms < s->slots[oldest].since_ms)
            oldest = i;
    }
    if (waiting < s->o.max_startup || oldest == UINT32_MAX)
        return;
    /* wakes its thread (poll sees the shutdown); the fd is closed by it */
    s->slots[oldest].evicted = true;
    shutdown(s->slots[oldest].conn->io.fd, SHUT_RDWR);
}

uint32_t pgw_limits_free_slot(fl_pgwire *s)
{
    for (int tries = 0;; tries++) {
        bool evicting = false;
        for (uint32_t i = 0; i < s->nslots; i++) {
            if (!s->slots[i].conn)
                return i;
            evicting |= s->slots[i].evicted;
        }
        if (!evicting || tries == 5 || s->stopping)
            return s->nslots;
        /* an evicted connection's thread is on its way out (conn_main signals idle) */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 50 * 1000000L;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&s->idle, &s->lock, &ts);
    }
}

/* ---- sessions and statements ---- */

bool pgw_limits_session(pgw_conn *c, fl_sql_options *so)
{
    fl_error err = {0};
    if (fl_limits_for_session(c->srv->auth, &c->who, &c->srv->limits, so, &c->max_statements,
                              &err) != FL_OK) {
        pgw_send_error(c, "FATAL", "28000", 0, "%s", err.msg);
        return false;
    }
    return true;
}

bool pgw_limits_enter(pgw_conn *c)
{
    fl_error err = {0};
    if (fl_admission_enter(c->srv->admission, FL_ADMIT_STATEMENT, c->who.name, c->max_statements,
                           &err) == FL_OK) {
        c->admitted = true;
        return true;
    }
    pgw_send_error(c, "ERROR", "53300", 0, "%s", err.msg);
    return false;
}

void pgw_limits_leave(pgw_conn *c)
{
    if (!c->admitted)
        return; /* already released by pgw_send_ready */
    c->admitted = false;
    fl_admission_leave(c->srv->admission, FL_ADMIT_STATEMENT, c->who.name);
    if (atomic_load(&c->gone)) {
        fprintf(stderr,
                "floe pgwire: connection %d (user %s, %s): the client went away during a "
                "statement; it stopped %lld ms after that was noticed\n",
                (int)c->pid, c->user, c->peer, (long long)(pgw_now_ms() - c->gone_ms));
        c->closing = true;
    }
}

/* ---- the monitor ---- */

static void check_gone(fl_pgwire *s)
{
    struct pollfd pf[256];
    uint32_t slot[256], n = 0;
    for (uint32_t i = 0; i < s->nslots && n < 256; i++) {
        pgw_conn *c = s->slots[i].conn;
        if (!c || !s->slots[i].active || c->io.fd < 0 || !c->sess || !atomic_load(&c->busy) ||
            atomic_load(&c->gone))
            continue;
        pf[n] = (struct pollfd){.fd = c->io.fd, .events = POLLRDHUP};
        slot[n++] = i;
    }
    if (!n || poll(pf, n, 0) <= 0)
        return;
    for (uint32_t k = 0; k < n; k++) {
        if (!(pf[k].revents & (POLLRDHUP | POLLHUP | POLLERR)))
            continue;
        pgw_conn *c = s->slots[slot[k]].conn;
        c->gone_ms = pgw_now_ms();
        atomic_store(&c->gone, true);
        fl_sql_session_cancel(c->sess);
        s->cancelled_gone++;
        fprintf(stderr,
                "floe pgwire: connection %d (user %s, %s): client disconnected while a statement "
                "ran; cancelling it\n",
                (int)c->pid, c->user, c->peer);
    }
}

/* Runs with s->lock held while it looks (connections and sessions cannot go
 * away under it: a connection clears its session under the lock). */
static void *monitor_main(void *arg)
{
    fl_pgwire *s = arg;
    pthread_mutex_lock(&s->lock);
    while (!s->stopping) {
        check_gone(s);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += MONITOR_MS * 1000000L;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&s->monitor_cv, &s->lock, &ts);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}
