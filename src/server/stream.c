/*
 * stream.c - streamed (chunked) responses whose bytes a producer thread
 * writes after the handler returned (server.h: fl_server_respond_stream).
 *
 * A stream is a byte queue between one producer and libmicrohttpd's
 * content-reader callback, guarded by a mutex:
 *   - stream_read (MHD worker thread) copies queued bytes out; when nothing
 *     is queued and the producer has not ended, it suspends the connection
 *     (MHD_suspend_connection, under the stream lock) and returns 0, so the
 *     worker thread serves other connections meanwhile;
 *   - fl_server_stream_write appends (waiting while 4 MiB are unsent) and
 *     resumes a suspended connection; fl_server_stream_end marks the end and
 *     resumes too. Suspend and resume both happen under the stream lock, so
 *     a resume can never be lost between the reader's emptiness check and
 *     its suspend.
 *   - stream_free (MHD's free callback, when the response is done or the
 *     connection closed) detaches the connection; if the producer has not
 *     ended, the client went away: on_abort(ud) is called under the lock.
 * The daemon needs MHD_ALLOW_SUSPEND_RESUME (http.c). Before the daemon
 * stops, srv_streams_abort_all() aborts and resumes every stream, since
 * libmicrohttpd refuses to stop with suspended connections.
 *
 * Lifetime: two references, the producer's (dropped by
 * fl_server_stream_end) and libmicrohttpd's (dropped by stream_free); the
 * last one frees. A stream counts as an in-flight request until
 * stream_free, so a graceful stop waits for it.
 */
#include <microhttpd.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "server/server_internal.h"

#define STREAM_HIGH_WATER (4u << 20)

struct fl_server_stream {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint8_t *buf;
    size_t off, len, cap;
    bool ended, ok, aborted, suspended, detached;
    int refs;
    struct MHD_Connection *conn; /* NULL once libmicrohttpd is done with it */
    int fd;
    fl_server *srv;
    void (*on_abort)(void *);
    void *ud;
    fl_server_stream *next, *prev; /* srv->streams */
};

void fl_server_response_header(fl_server_request *r, const char *name, const char *value)
{
    if (r->nxhdr >= 8)
        return;
    const char *n = fl_arena_strdup(&r->arena, name);
    const char *v = fl_arena_strdup(&r->arena, value);
    if (!n || !v)
        return;
    r->xhdr[r->nxhdr][0] = n;
    r->xhdr[r->nxhdr][1] = v;
    r->nxhdr++;
}

static void unref(fl_server_stream *st)
{
    pthread_mutex_lock(&st->mu);
    bool last = --st->refs == 0;
    pthread_mutex_unlock(&st->mu);
    if (!last)
        return;
    pthread_mutex_destroy(&st->mu);
    pthread_cond_destroy(&st->cv);
    free(st->buf);
    free(st);
}

/* Caller holds st->mu. */
static void wake(fl_server_stream *st)
{
    if (st->suspended && st->conn) {
        st->suspended = false;
        MHD_resume_connection(st->conn);
    }
    pthread_cond_broadcast(&st->cv);
}

/* Caller holds st->mu. */
static void abort_locked(fl_server_stream *st)
{
    if (st->ended || st->aborted)
        return;
    st->aborted = true;
    if (st->on_abort)
        st->on_abort(st->ud);
    wake(st);
}

fl_server_stream *fl_server_respond_stream(fl_server_request *r, int status,
                                           const char *content_type,
                                           void (*on_abort)(void *ud), void *ud)
{
    fl_server_stream *st = calloc(1, sizeof *st);
    if (!st) {
        fl_server_respond_error(r, 500, "InternalServerError", "out of memory");
        return NULL;
    }
    pthread_mutex_init(&st->mu, NULL);
    pthread_cond_init(&st->cv, NULL);
    st->refs = 2;
    st->srv = r->srv;
    st->on_abort = on_abort;
    st->ud = ud;
    st->fd = -1;
    r->stream = st;
    r->status = status;
    r->content_type = content_type;
    r->responded = true;
    return st;
}

bool fl_server_stream_write(fl_server_stream *st, const void *data, size_t len)
{
    pthread_mutex_lock(&st->mu);
    while (!st->aborted && st->len - st->off > STREAM_HIGH_WATER)
        pthread_cond_wait(&st->cv, &st->mu);
    bool ok = !st->aborted;
    if (ok && st->len + len > st->cap && st->off) { /* compact */
        memmove(st->buf, st->buf + st->off, st->len - st->off);
        st->len -= st->off;
        st->off = 0;
    }
    if (ok && st->len + len > st->cap) {
        size_t cap = st->cap ? st->cap : 65536;
        while (cap < st->len + len)
            cap *= 2;
        uint8_t *nb = realloc(st->buf, cap);
        if (!nb) {
            abort_locked(st);
            ok = false;
        } else {
            st->buf = nb;
            st->cap = cap;
        }
    }
    if (ok) {
        memcpy(st->buf + st->len, data, len);
        st->len += len;
        wake(st);
    }
    pthread_mutex_unlock(&st->mu);
    return ok;
}

bool fl_server_stream_gone(fl_server_stream *st)
{
    pthread_mutex_lock(&st->mu);
    bool gone = st->aborted || st->detached;
    if (!gone && st->conn && st->fd >= 0) {
        struct pollfd p = {.fd = st->fd, .events = POLLRDHUP};
        if (poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)))
            gone = true;
    }
    pthread_mutex_unlock(&st->mu);
    return gone;
}

void fl_server_stream_end(fl_server_stream *st, bool ok)
{
    pthread_mutex_lock(&st->mu);
    if (!st->ended) {
        st->ended = true;
        st->ok = ok && !st->aborted;
        wake(st);
    }
    pthread_mutex_unlock(&st->mu);
    unref(st);
}

static ssize_t stream_read(void *cls, uint64_t pos, char *out, size_t max)
{
    (void)pos;
    fl_server_stream *st = cls;
    ssize_t n;
    pthread_mutex_lock(&st->mu);
    if (st->len > st->off) {
        size_t k = st->len - st->off;
        if (k > max)
            k = max;
        memcpy(out, st->buf + st->off, k);
        st->off += k;
        if (st->off == st->len)
            st->off = st->len = 0;
        pthread_cond_broadcast(&st->cv);
        n = (ssize_t)k;
    } else if (st->ended) {
        n = st->ok ? MHD_CONTENT_READER_END_OF_STREAM : MHD_CONTENT_READER_END_WITH_ERROR;
    } else if (st->aborted || !st->conn) { /* conn is set before MHD reads */
        n = MHD_CONTENT_READER_END_WITH_ERROR;
    } else {
        st->suspended = true;
        MHD_suspend_connection(st->conn);
        n = 0;
    }
    pthread_mutex_unlock(&st->mu);
    return n;
}

static void stream_free(void *cls)
{
    fl_server_stream *st = cls;
    fl_server *s = st->srv;
    pthread_mutex_lock(&s->streams_mu);
    if (st->prev)
        st->prev->next = st->next;
    else if (s->streams == st)
        s->streams = st->next;
    if (st->next)
        st->next->prev = st->prev;
    pthread_mutex_unlock(&s->streams_mu);
    pthread_mutex_lock(&st->mu);
    abort_locked(st);
    st->conn = NULL;
    st->detached = true;
    st->suspended = false;
    pthread_mutex_unlock(&st->mu);
    atomic_fetch_sub(&s->metrics->inflight, 1);
    unref(st);
}

void *srv_stream_response(fl_server_request *r, void *conn)
{
    fl_server_stream *st = r->stream;
    struct MHD_Connection *c = conn;
    fl_server *s = r->srv;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    pthread_mutex_lock(&st->mu);
    st->conn = c;
    st->fd = ci ? ci->connect_fd : -1;
    pthread_mutex_unlock(&st->mu);
    pthread_mutex_lock(&s->streams_mu);
    st->next = s->streams;
    if (s->streams)
        s->streams->prev = st;
    s->streams = st;
    pthread_mutex_unlock(&s->streams_mu);
    atomic_fetch_add(&s->metrics->inflight, 1);
    /* from here on stream_free (called when the response is destroyed)
     * drops libmicrohttpd's reference */
    struct MHD_Response *resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024,
                                                                  stream_read, st, stream_free);
    if (!resp)
        stream_free(st);
    return resp;
}

void srv_streams_abort_all(fl_server *s)
{
    pthread_mutex_lock(&s->streams_mu);
    for (fl_server_stream *st = s->streams; st; st = st->next) {
        pthread_mutex_lock(&st->mu);
        abort_locked(st);
        if (st->suspended && st->conn) {
            st->suspended = false;
            MHD_resume_connection(st->conn);
        }
        pthread_mutex_unlock(&st->mu);
    }
    pthread_mutex_unlock(&s->streams_mu);
}
