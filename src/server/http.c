/*
 * http.c - libmicrohttpd glue: listening, buffering request bodies, gzip,
 * sending the one response of each request, graceful stop.
 *
 * libmicrohttpd runs an epoll thread pool (MHD_OPTION_THREAD_POOL_SIZE)
 * with HTTP/1.1 keep-alive. The access callback is called once with the
 * headers, then once per body chunk, then once more with no data: we
 * accumulate the body (more than max_body_bytes -> 413 without reading the
 * rest), and on the last call build an fl_server_request and run
 * srv_dispatch() on that worker thread.
 *
 * URL unescaping is turned off (identity unescape callback) so that the
 * router sees raw segments and decodes each one itself: "%2F" inside a
 * namespace level must not split the path. Query values are decoded by
 * fl_server_req_query().
 *
 * Responses larger than 1 KiB are gzip-compressed (zlib, windowBits 31)
 * when the request's Accept-Encoding lists gzip (and not with q=0).
 *
 * Streamed responses (stream.c) are sent from a content-reader callback,
 * never gzipped; the daemon allows suspend/resume for them.
 *
 * Slow clients (limits, docs/security.md): at most max_connections
 * connections (4096), max_connections_per_ip from one address (64; more
 * are refused at accept), and a connection idle for connection_timeout_s
 * (30 s) is closed, so a crowd of slow or silent clients from one place
 * cannot use up what the others need. Handler threads get an explicit
 * 8 MiB stack (they parse SQL for authorization).
 *
 * Graceful stop: fl_server_destroy() sets `draining`; from then on a new
 * request is answered 503 with "Connection: close" instead of being
 * dispatched. It waits until no request is inside srv_dispatch() (so a
 * commit that began always finishes and its response is sent), then stops
 * the daemon. MHD_quiesce_daemon() is not used: with an epoll thread pool
 * (libmicrohttpd 0.9.75) a worker and the quiescing thread can both remove
 * the listen socket from the worker's epoll set, and the loser aborts the
 * process ("Failed to remove listen FD from epoll set").
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "server/server_internal.h"

typedef struct conn_state {
    char *body;
    size_t len, cap;
    bool too_big;
} conn_state;

static size_t identity_unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls, (void)c;
    return strlen(s);
}

static bool accepts_gzip(struct MHD_Connection *c)
{
    const char *ae = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept-Encoding");
    if (!ae)
        return false;
    const char *g = strcasestr(ae, "gzip");
    if (!g)
        return false;
    const char *q = g + 4;
    while (*q == ' ')
        q++;
    if (*q == ';') {
        const char *v = strstr(q, "q=");
        if (v && strtod(v + 2, NULL) == 0.0)
            return false;
    }
    return true;
}

/* gzip of in into a malloc'd buffer; NULL when not worth it or on failure. */
static char *gzip_body(const char *in, size_t len, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    size_t cap = deflateBound(&z, len) + 32;
    char *out = malloc(cap);
    if (!out) {
        deflateEnd(&z);
        return NULL;
    }
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)len;
    z.next_out = (Bytef *)out;
    z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    *out_len = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END || *out_len >= len) {
        free(out);
        return NULL;
    }
    return out;
}

static void add_headers(struct MHD_Response *resp, fl_server_request *r)
{
    for (uint32_t i = 0; i < r->nxhdr; i++)
        MHD_add_response_header(resp, r->xhdr[i][0], r->xhdr[i][1]);
    MHD_add_response_header(resp, "X-Request-Id", r->request_id);
}

/* A streamed response (stream.c): chunked, never gzipped. */
static enum MHD_Result send_stream(struct MHD_Connection *c, fl_server_request *r)
{
    struct MHD_Response *resp = srv_stream_response(r, c);
    if (!resp)
        return MHD_NO;
    if (r->content_type)
        MHD_add_response_header(resp, "Content-Type", r->content_type);
    add_headers(resp, r);
    enum MHD_Result rc = MHD_queue_response(c, (unsigned)r->status, resp);
    MHD_destroy_response(resp);
    return rc;
}

static enum MHD_Result send_response(struct MHD_Connection *c, fl_server_request *r)
{
    if (r->stream)
        return send_stream(c, r);
    char *body = r->resp_body;
    size_t len = r->resp_len;
    r->resp_body = NULL;
    bool gz = false;
    if (len > 1024 && accepts_gzip(c)) {
        size_t zl;
        char *z = gzip_body(body, len, &zl);
        if (z) {
            free(body);
            body = z;
            len = zl;
            gz = true;
        }
    }
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(len, len ? body : (void *)"", len ? MHD_RESPMEM_MUST_FREE
                                                                         : MHD_RESPMEM_PERSISTENT);
    if (!len)
        free(body);
    if (!resp)
        return MHD_NO;
    if (r->status != 204 && r->status != 304 && r->content_type)
        MHD_add_response_header(resp, "Content-Type", r->content_type);
    if (gz)
        MHD_add_response_header(resp, "Content-Encoding", "gzip");
    MHD_add_response_header(resp, "Vary", "Accept-Encoding");
    if (r->etag[0])
        MHD_add_response_header(resp, "ETag", r->etag);
    add_headers(resp, r);
    enum MHD_Result rc = MHD_queue_response(c, (unsigned)r->status, resp);
    MHD_destroy_response(resp);
    return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    (void)version;
    fl_server *s = cls;
    conn_state *st = *con_cls;
    if (!st) {
        st = calloc(1, sizeof *st);
        if (!st)
            return MHD_NO;
        *con_cls = st;
        return MHD_YES;
    }
    if (*upload_size) {
        size_t max = s->opt.max_body_bytes;
        if (st->too_big || st->len + *upload_size > max) {
            st->too_big = true;
        } else {
            if (st->len + *upload_size + 1 > st->cap) {
                size_t cap = st->cap ? st->cap : 4096;
                while (cap < st->len + *upload_size + 1)
                    cap *= 2;
                char *nb = realloc(st->body, cap);
                if (!nb)
                    return MHD_NO;
                st->body = nb;
                st->cap = cap;
            }
            memcpy(st->body + st->len, upload, *upload_size);
            st->len += *upload_size;
            st->body[st->len] = '\0';
        }
        *upload_size = 0;
        return MHD_YES;
    }
    fl_server_request r;
    memset(&r, 0, sizeof r);
    r.srv = s;
    r.conn = c;
    r.method = method;
    r.path = url;
    r.body = st->body ? st->body : "";
    r.body_len = st->len;
    fl_arena_init(&r.arena, 16384);
    /* inflight before draining is read: the stopper sets draining and then
       waits for inflight to reach 0, so a request either sees draining or is
       waited for */
    atomic_fetch_add(&s->metrics->inflight, 1);
    if (atomic_load(&s->draining)) {
        r.xhdr[r.nxhdr][0] = "Connection";
        r.xhdr[r.nxhdr++][1] = "close";
        fl_server_respond_error(&r, 503, "ServiceUnavailableException",
                                "the server is shutting down");
    } else if (st->too_big)
        fl_server_respond_error(&r, 413, "RequestTooLargeException",
                                "request body exceeds %zu bytes", s->opt.max_body_bytes);
    else
        srv_dispatch(&r);
    enum MHD_Result rc = send_response(c, &r);
    free(r.resp_body);
    fl_arena_free(&r.arena);
    atomic_fetch_sub(&s->metrics->inflight, 1);
    return rc;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls, (void)c, (void)toe;
    conn_state *st = *con_cls;
    if (st) {
        free(st->body);
        free(st);
        *con_cls = NULL;
    }
}

fl_status fl_server_start_listening(fl_server *s, fl_error *err)
{
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)s->opt.port);
    if (inet_pton(AF_INET, s->host, &addr.sin_addr) != 1)
        return fl_errorf(err, FL_EINVAL, "listen address '%s' is not an IPv4 address", s->host);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC |
                     MHD_ALLOW_SUSPEND_RESUME;
    s->daemon = MHD_start_daemon(
        flags, (uint16_t)s->opt.port, NULL, NULL, on_request, s, MHD_OPTION_THREAD_POOL_SIZE,
        (unsigned)s->opt.threads, MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
        MHD_OPTION_UNESCAPE_CALLBACK, identity_unescape, NULL, MHD_OPTION_CONNECTION_TIMEOUT,
        s->opt.connection_timeout_s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned)1, MHD_OPTION_CONNECTION_LIMIT,
        s->opt.max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT, s->opt.max_connections_per_ip,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)1024, MHD_OPTION_THREAD_STACK_SIZE,
        (size_t)(8u << 20), MHD_OPTION_END);
    if (!s->daemon)
        return fl_errorf(err, FL_EIO, "cannot listen on %s:%d (address in use or not permitted)",
                         s->host, s->opt.port);
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : s->opt.port;
    atomic_store(&s->ready, true);
    return FL_OK;
}

int fl_server_port(const fl_server *s)
{
    return s->port;
}

/* Stops accepting, drains in-flight requests, stops the daemon. */
void srv_http_stop(fl_server *s, int drain_ms)
{
    if (!s->daemon)
        return;
    atomic_store(&s->draining, true);
    atomic_store(&s->ready, false);
    for (int waited = 0; waited < drain_ms && atomic_load(&s->metrics->inflight) > 0; waited += 5) {
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    /* streams still running are cut off; none may stay suspended */
    srv_streams_abort_all(s);
    for (int waited = 0; waited < 2000 && atomic_load(&s->metrics->inflight) > 0; waited += 5) {
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    MHD_stop_daemon(s->daemon);
    s->daemon = NULL;
}

const char *fl_server_req_header(const fl_server_request *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

const char *fl_server_req_query(const fl_server_request *r, const char *name)
{
    const char *raw = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
    if (!raw)
        return NULL;
    return srv_pct_decode(raw, strlen(raw), true, (fl_arena *)&r->arena);
}

bool srv_query_present(const fl_server_request *r, const char *name)
{
    return MHD_lookup_connection_value_n(r->conn, MHD_GET_ARGUMENT_KIND, name, strlen(name), NULL,
                                         NULL) == MHD_YES;
}
