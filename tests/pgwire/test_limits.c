/*
 * test_limits.c - pgwire's limits (src/pgwire/limits.c, docs/security.md):
 *   - a statement too deep for the parser is an ErrorResponse 54001 with a
 *     position, never a silent EmptyQueryResponse (1,200 terms used to be
 *     skipped), and the classifier says why it could not classify it;
 *   - over real sockets: 100 silent connections neither lock out a login
 *     nor outlive the authentication timeout, and a client that hangs up
 *     while its statement runs has it cancelled (the server's counter) and
 *     its connection thread gone soon after.
 * Waits are bounded generously; nothing is timed as a benchmark.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "floe/pgwire.h"
#include "pgwire/pgw.h"
#include "test.h"

typedef struct out {
    uint8_t *p;
    size_t n, cap;
} out;

static void sink(void *ctx, const uint8_t *b, size_t n)
{
    out *o = ctx;
    if (o->n + n > o->cap) {
        o->cap = (o->n + n) * 2;
        o->p = realloc(o->p, o->cap);
    }
    memcpy(o->p + o->n, b, n);
    o->n += n;
}

typedef struct msg {
    uint8_t *b;
    size_t n, cap;
} msg;

static void put(msg *m, const void *p, size_t n)
{
    if (m->n + n > m->cap) {
        m->cap = (m->n + n) * 2;
        m->b = realloc(m->b, m->cap);
    }
    memcpy(m->b + m->n, p, n);
    m->n += n;
}
static void u32(msg *m, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    put(m, b, 4);
}
static void patch(msg *m, size_t at)
{
    uint32_t len = (uint32_t)(m->n - at);
    m->b[at] = (uint8_t)(len >> 24);
    m->b[at + 1] = (uint8_t)(len >> 16);
    m->b[at + 2] = (uint8_t)(len >> 8);
    m->b[at + 3] = (uint8_t)len;
}
static void startup(msg *m, const char *user)
{
    size_t at = m->n;
    u32(m, 0);
    u32(m, 196608);
    put(m, "user", 5);
    put(m, user, strlen(user) + 1);
    put(m, "", 1);
    patch(m, at);
}
static void query(msg *m, const char *q)
{
    put(m, "Q", 1);
    size_t at = m->n;
    u32(m, 0);
    put(m, q, strlen(q) + 1);
    patch(m, at);
}

/* Message types after the startup's ReadyForQuery. */
static void types(const out *o, char *buf, size_t cap)
{
    size_t i = 0, k = 0;
    bool seen_ready = false;
    while (i + 5 <= o->n && k + 1 < cap) {
        char t = (char)o->p[i];
        uint32_t len = ((uint32_t)o->p[i + 1] << 24) | ((uint32_t)o->p[i + 2] << 16) |
                       ((uint32_t)o->p[i + 3] << 8) | o->p[i + 4];
        if (seen_ready)
            buf[k++] = t;
        if (t == 'Z')
            seen_ready = true;
        i += 1 + len;
    }
    buf[k] = 0;
}

static bool contains(const out *o, const char *s)
{
    return memmem(o->p, o->n, s, strlen(s)) != NULL;
}

static fl_pgwire *server(uint32_t auth_timeout_s, uint32_t max_startup)
{
    fl_pgwire_options opt;
    memset(&opt, 0, sizeof opt);
    opt.trust = true;
    opt.session_threads = 1;
    opt.auth_timeout_s = auth_timeout_s;
    opt.max_startup = max_startup;
    opt.max_connections = 4;
    fl_pgwire *s = NULL;
    fl_error err = {0};
    CHECK_OK(fl_pgwire_create(&opt, &s, &err), &err);
    return s;
}

static char *sum(int terms)
{
    char *q = malloc((size_t)terms * 2 + 16);
    char *p = q + sprintf(q, "select 1");
    for (int i = 1; i < terms; i++)
        p += sprintf(p, "+1");
    return q;
}

static void test_deep_is_an_error(void)
{
    fl_pgwire *s = server(0, 0);
    if (!s)
        return;
    int terms[] = {1200, 10000, 100000};
    for (int k = 0; k < 3; k++) {
        msg m = {0};
        startup(&m, "alice");
        char *q = sum(terms[k]);
        query(&m, q);
        query(&m, "select 7");
        out o = {0};
        fl_pgwire_run_memory(s, m.b, m.n, sink, &o);
        char t[64];
        types(&o, t, sizeof t);
        CHECK_EQ_STR(t, "EZTDCZ"); /* an error (never 'I'), then the next query runs */
        CHECK(contains(&o, "54001"));
        CHECK(contains(&o, "statement too complex"));
        free(q);
        free(m.b);
        free(o.p);
    }
    /* a sum of 900 terms still runs, and so does a flat IN list of 10,000 */
    msg m = {0};
    startup(&m, "alice");
    char *q = sum(900);
    query(&m, q);
    char *in = malloc(80000);
    char *p = in + sprintf(in, "select count(*) from (values (1), (5000)) v(x) where x in (0");
    for (int i = 1; i < 10000; i++)
        p += sprintf(p, ",%d", i);
    sprintf(p, ")");
    query(&m, in);
    out o = {0};
    fl_pgwire_run_memory(s, m.b, m.n, sink, &o);
    char t[64];
    types(&o, t, sizeof t);
    CHECK_EQ_STR(t, "TDCZTDCZ");
    CHECK(contains(&o, "900"));
    free(q);
    free(in);
    free(m.b);
    free(o.p);
    fl_pgwire_destroy(s);
}

static void test_classify_deep(void)
{
    char *q = sum(10000);
    pgw_class *k = calloc(1, sizeof *k);
    pgw_classify(q, k);
    /* never PGW_K_EMPTY: the engine gets it and reports 54001 (test_deep_is_an_error) */
    CHECK_EQ_INT(k->kind, PGW_K_ENGINE);
    pgw_classify("BEGIN", k);
    CHECK_EQ_INT(k->kind, PGW_K_BEGIN);
    free(k);
    free(q);
}

/* ---- over sockets ---- */

static int connect_to(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Reads until a ReadyForQuery ('Z') arrives or the peer closes; true = Z. */
static bool read_until_ready(int fd, int timeout_ms)
{
    uint8_t buf[8192];
    size_t n = 0;
    for (int waited = 0; waited < timeout_ms; waited += 50) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 50) <= 0)
            continue;
        ssize_t r = recv(fd, buf + n, sizeof buf - n, 0);
        if (r <= 0)
            return false;
        n += (size_t)r;
        for (size_t i = 0; i + 5 <= n;) {
            uint32_t len = ((uint32_t)buf[i + 1] << 24) | ((uint32_t)buf[i + 2] << 16) |
                           ((uint32_t)buf[i + 3] << 8) | buf[i + 4];
            if (buf[i] == 'Z')
                return true;
            if (i + 1 + len > n)
                break;
            i += 1 + len;
        }
        if (n == sizeof buf)
            n = 0;
    }
    return false;
}

static bool closed_by_server(int fd, int timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, timeout_ms) <= 0)
        return false;
    char c;
    return recv(fd, &c, 1, 0) <= 0;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void test_idle_connections(void)
{
    fl_pgwire *s = server(2, 16);
    if (!s)
        return;
    fl_error err = {0};
    CHECK_OK(fl_pgwire_listen(s, &err), &err);
    int port = fl_pgwire_port(s);
    int idle[100];
    for (int i = 0; i < 100; i++)
        idle[i] = connect_to(port);
    sleep_ms(200);
    /* a login while they are all open */
    int fd = connect_to(port);
    msg m = {0};
    startup(&m, "admin");
    CHECK(fd >= 0 && send(fd, m.b, m.n, MSG_NOSIGNAL) == (ssize_t)m.n);
    CHECK(read_until_ready(fd, 20000));
    /* every silent one is closed: evicted, or at the 2 s authentication timeout */
    int closed = 0;
    for (int i = 0; i < 100; i++)
        closed += idle[i] >= 0 && closed_by_server(idle[i], 15000);
    CHECK_EQ_INT(closed, 100);
    /* the logged-in session is not subject to it */
    msg q = {0};
    query(&q, "select 1");
    CHECK(send(fd, q.b, q.n, MSG_NOSIGNAL) == (ssize_t)q.n);
    CHECK(read_until_ready(fd, 20000));
    for (int i = 0; i < 100; i++)
        if (idle[i] >= 0)
            close(idle[i]);
    close(fd);
    free(m.b);
    free(q.b);
    fl_pgwire_destroy(s);
}

static void test_hangup_cancels(void)
{
    fl_pgwire *s = server(0, 0);
    if (!s)
        return;
    fl_error err = {0};
    CHECK_OK(fl_pgwire_listen(s, &err), &err);
    int fd = connect_to(fl_pgwire_port(s));
    msg m = {0};
    startup(&m, "admin");
    CHECK(fd >= 0 && send(fd, m.b, m.n, MSG_NOSIGNAL) == (ssize_t)m.n);
    CHECK(read_until_ready(fd, 20000));
    msg q = {0};
    query(&q, "select count(*), sum(generate_series % 7) from generate_series(1, 4000000000000)");
    CHECK(send(fd, q.b, q.n, MSG_NOSIGNAL) == (ssize_t)q.n);
    sleep_ms(300);
    close(fd); /* hang up while it runs */
    uint64_t cancelled = 0;
    uint32_t threads = 1;
    for (int waited = 0; waited < 30000 && (cancelled == 0 || threads > 0); waited += 50) {
        sleep_ms(50);
        pthread_mutex_lock(&s->lock);
        cancelled = s->cancelled_gone;
        threads = s->nthreads;
        pthread_mutex_unlock(&s->lock);
    }
    CHECK_EQ_INT(cancelled, 1);
    CHECK_EQ_INT(threads, 0); /* the statement stopped and the connection ended */
    free(m.b);
    free(q.b);
    fl_pgwire_destroy(s);
}

int main(void)
{
    TEST_RUN(test_classify_deep);
    TEST_RUN(test_deep_is_an_error);
    TEST_RUN(test_idle_connections);
    TEST_RUN(test_hangup_cancels);
    return TEST_EXIT();
}
