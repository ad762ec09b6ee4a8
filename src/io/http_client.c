/*
 * http_client.c - the HTTP side shared by the object-store FileIOs (S3,
 * Azure Blob): pooled curl handles, one transfer, retries, error messages.
 *
 * A request is a complete URL, a callback that builds the headers of each
 * attempt (so each retry is signed afresh), an optional body, and where a 2xx
 * body goes: the caller's buffer (ranged GET; more bytes than asked for is
 * an error) or resp->body bounded by max_body. Error bodies are kept up to
 * 64 KiB and parsed as <Error><Code/><Message/></Error>, which S3 and Azure
 * both send; Azure's x-ms-error-code header names the code when there is no
 * body (HEAD).
 *
 * Threads: curl easy handles are never shared between threads. Idle handles
 * wait in a small mutex-protected pool (so connections are reused); a curl
 * share handle, locked by one mutex, shares the DNS cache and TLS sessions.
 * curl_global_init runs once per process through pthread_once (it is not
 * thread-safe itself); nothing calls curl_global_cleanup.
 *
 * Retries: transport errors (connect, timeout, reset, short body), HTTP 5xx,
 * 429, and the codes SlowDown, RequestTimeout, InternalError,
 * ConditionalRequestConflict (S3), ServerBusy, OperationTimedOut (Azure) are
 * retried up to max_retries times, sleeping a random time in [d/2, d] with
 * d = min(100 ms * 2^attempt, 5 s), or the server's Retry-After when that is
 * longer (capped at 30 s). Other 4xx answers are returned at once.
 */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "floe/calendar.h"
#include "io/common.h"

#define POOL_MAX 16
#define ERROR_BODY_MAX ((size_t)64 * 1024)
#define DEFAULT_BODY_MAX ((size_t)1 << 20)
#define RETRY_AFTER_MAX_MS 30000

struct io_http {
    uint32_t max_retries, connect_timeout_ms;
    char *ca_file;
    char what[16];
    pthread_mutex_t pool_lock, share_lock;
    CURL *pool[POOL_MAX];
    size_t npool;
    CURLSH *share;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc; /* written once under pthread_once, then read-only */

static void curl_init(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void share_lock(CURL *h, curl_lock_data d, curl_lock_access a, void *p)
{
    pthread_mutex_lock(&((io_http *)p)->share_lock);
}

static void share_unlock(CURL *h, curl_lock_data d, void *p)
{
    pthread_mutex_unlock(&((io_http *)p)->share_lock);
}

fl_status io_http_new(const io_http_config *cfg, io_http **out, fl_error *err)
{
    const char *what = cfg->what ? cfg->what : "HTTP";
    pthread_once(&curl_once, curl_init);
    if (curl_init_rc != CURLE_OK)
        return fl_errorf(err, FL_EIO, "%s: curl_global_init failed: %s", what,
                         curl_easy_strerror(curl_init_rc));
    io_http *h = calloc(1, sizeof *h);
    if (!h)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", what);
    snprintf(h->what, sizeof h->what, "%s", what);
    pthread_mutex_init(&h->pool_lock, NULL);
    pthread_mutex_init(&h->share_lock, NULL);
    h->max_retries = cfg->max_retries ? cfg->max_retries : 5;
    h->connect_timeout_ms = cfg->connect_timeout_ms ? cfg->connect_timeout_ms : 10000;
    bool oom = cfg->ca_file && *cfg->ca_file && !(h->ca_file = strdup(cfg->ca_file));
    if (oom || !(h->share = curl_share_init())) {
        io_http_free(h);
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory (curl share)", what);
    }
    curl_share_setopt(h->share, CURLSHOPT_LOCKFUNC, share_lock);
    curl_share_setopt(h->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
    curl_share_setopt(h->share, CURLSHOPT_USERDATA, h);
    curl_share_setopt(h->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(h->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    *out = h;
    return FL_OK;
}

void io_http_free(io_http *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->npool; i++)
        curl_easy_cleanup(h->pool[i]);
    if (h->share)
        curl_share_cleanup(h->share);
    pthread_mutex_destroy(&h->pool_lock);
    pthread_mutex_destroy(&h->share_lock);
    free(h->ca_file);
    free(h);
}

struct curl_slist *io_http_header(struct curl_slist *l, bool *oom, const char *k, const char *v)
{
    io_sb s = {0};
    io_sb_printf(&s, "%s: %s", k, v);
    struct curl_slist *n = s.oom ? NULL : curl_slist_append(l, s.buf.data);
    io_sb_free(&s);
    if (!n) {
        *oom = true;
        return l;
    }
    return n;
}

/* ---- one transfer ---- */

typedef struct xfer {
    CURL *h;
    const io_http_request *rq;
    io_http_response *resp;
    io_sb body;
    bool overflow;
} xfer;

static bool is_2xx(long s)
{
    return s >= 200 && s < 300;
}

static size_t on_body(char *p, size_t sz, size_t n, void *ud)
{
    xfer *x = ud;
    size_t len = sz * n;
    long status = 0;
    curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &status);
    if (is_2xx(status) && x->rq->out) {
        if (len > x->rq->out_cap - x->resp->out_len) {
            x->overflow = true;
            return 0;
        }
        memcpy((char *)x->rq->out + x->resp->out_len, p, len);
        x->resp->out_len += len;
        return len;
    }
    size_t max = !is_2xx(status)   ? ERROR_BODY_MAX
                 : x->rq->max_body ? x->rq->max_body
                                   : DEFAULT_BODY_MAX;
    if (len > max - x->body.buf.len) {
        if (!is_2xx(status))
            return len; /* keep the head of a long error body */
        x->overflow = true;
        return 0;
    }
    io_sb_putn(&x->body, p, len);
    return x->body.oom ? 0 : len;
}

static void header_value(const char *p, size_t n, size_t skip, char *out, size_t cap)
{
    p += skip;
    n -= skip;
    while (n && (*p == ' ' || *p == '\t')) {
        p++;
        n--;
    }
    while (n && (p[n - 1] == '\r' || p[n - 1] == '\n' || p[n - 1] == ' '))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(out, p, n);
    out[n] = '\0';
}

static bool header_is(const char *p, size_t len, const char *name)
{
    size_t n = strlen(name);
    return len > n && strncasecmp(p, name, n) == 0;
}

static int64_t parse_nonneg(const char *v)
{
    char *end;
    long long x = strtoll(v, &end, 10);
    return (*v && !*end && x >= 0) ? (int64_t)x : -1;
}

/* An HTTP date in the IMF-fixdate form every store sends ("Sun, 06 Nov 1994
 * 08:49:37 GMT", RFC 9110 5.6.7) as µs since the epoch; false otherwise. */
static bool parse_http_date(const char *s, int64_t *us)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    char mon[4] = {0};
    int d, y, hh, mm, ss;
    if (sscanf(s, "%*3s, %2d %3s %4d %2d:%2d:%2d GMT", &d, mon, &y, &hh, &mm, &ss) != 6)
        return false;
    const char *m = strstr(months, mon);
    if (!m || strlen(mon) != 3 || (m - months) % 3 != 0 || d < 1 || d > 31)
        return false;
    int64_t days = fl_days_from_civil(y, (unsigned)((m - months) / 3 + 1), (unsigned)d);
    *us = ((days * 24 + hh) * 60 + mm) * 60 * INT64_C(1000000) + ss * INT64_C(1000000);
    return true;
}

static size_t on_header(char *p, size_t sz, size_t n, void *ud)
{
    xfer *x = ud;
    size_t len = sz * n;
    io_http_response *r = x->resp;
    char v[64];
    if (len >= 5 && strncmp(p, "HTTP/", 5) == 0) { /* a new response (after 100 Continue) */
        r->etag[0] = r->content_range[0] = r->content_type[0] = r->ms_error_code[0] = '\0';
        r->meta_upload[0] = '\0';
        r->content_length = r->retry_after_ms = -1;
        r->has_last_modified = false;
    } else if (header_is(p, len, "etag:")) {
        header_value(p, len, 5, r->etag, sizeof r->etag);
    } else if (header_is(p, len, "content-range:")) {
        header_value(p, len, 14, r->content_range, sizeof r->content_range);
    } else if (header_is(p, len, "content-type:")) {
        header_value(p, len, 13, r->content_type, sizeof r->content_type);
    } else if (header_is(p, len, "x-ms-meta-floeupload:")) {
        header_value(p, len, 21, r->meta_upload, sizeof r->meta_upload);
    } else if (header_is(p, len, "x-ms-error-code:")) {
        header_value(p, len, 16, r->ms_error_code, sizeof r->ms_error_code);
    } else if (header_is(p, len, "last-modified:")) {
        header_value(p, len, 14, v, sizeof v);
        r->has_last_modified = parse_http_date(v, &r->last_modified_us);
    } else if (header_is(p, len, "content-length:")) {
        header_value(p, len, 15, v, sizeof v);
        r->content_length = parse_nonneg(v);
    } else if (header_is(p, len, "retry-after:")) { /* seconds; HTTP dates are ignored */
        header_value(p, len, 12, v, sizeof v);
        int64_t s = parse_nonneg(v);
        r->retry_after_ms = s < 0                           ? -1
                            : s > RETRY_AFTER_MAX_MS / 1000 ? RETRY_AFTER_MAX_MS
                                                            : s * 1000;
    }
    return len;
}

static CURL *pool_get(io_http *c)
{
    CURL *h = NULL;
    pthread_mutex_lock(&c->pool_lock);
    if (c->npool)
        h = c->pool[--c->npool];
    pthread_mutex_unlock(&c->pool_lock);
    if (h)
        curl_easy_reset(h);
    else
        h = curl_easy_init();
    return h;
}

static void pool_put(io_http *c, CURL *h, bool healthy)
{
    if (healthy) {
        pthread_mutex_lock(&c->pool_lock);
        if (c->npool < POOL_MAX) {
            c->pool[c->npool++] = h;
            h = NULL;
        }
        pthread_mutex_unlock(&c->pool_lock);
    }
    if (h)
        curl_easy_cleanup(h);
}

static void set_options(io_http *c, xfer *x, struct curl_slist *hdrs)
{
    CURL *h = x->h;
    const io_http_request *rq = x->rq;
    curl_easy_setopt(h, CURLOPT_URL, rq->url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(h, CURLOPT_SHARE, c->share);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)c->connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
    if (c->ca_file)
        curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
    if (strcmp(rq->method, "HEAD") == 0) {
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (strcmp(rq->method, "PUT") == 0 || strcmp(rq->method, "POST") == 0) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->body_len);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, rq->body ? (const char *)rq->body : "");
        if (rq->method[1] == 'U')
            curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "PUT");
    } else if (strcmp(rq->method, "GET") != 0) {
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, rq->method);
    }
}

static bool retriable_code(const char *code)
{
    static const char *const codes[] = {"SlowDown",      "RequestTimeout",
                                        "InternalError", "ConditionalRequestConflict",
                                        "ServerBusy",    "OperationTimedOut"};
    for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
        if (strcmp(code, codes[i]) == 0)
            return true;
    return false;
}

static bool fatal_curl(CURLcode cc)
{
    return cc == CURLE_URL_MALFORMAT || cc == CURLE_UNSUPPORTED_PROTOCOL ||
           cc == CURLE_BAD_FUNCTION_ARGUMENT || cc == CURLE_OUT_OF_MEMORY;
}

static void backoff(unsigned attempt, int64_t retry_after_ms, uint64_t *seed)
{
    uint64_t d = 100 * ((uint64_t)1 << (attempt < 6 ? attempt : 6));
    if (d > 5000)
        d = 5000;
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    uint64_t ms = d / 2 + *seed % (d / 2 + 1);
    if (retry_after_ms > 0 && (uint64_t)retry_after_ms > ms)
        ms = (uint64_t)retry_after_ms;
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void reset_response(io_http_response *r)
{
    free(r->body);
    unsigned attempts = r->attempts;
    memset(r, 0, sizeof *r);
    r->content_length = r->retry_after_ms = -1;
    r->attempts = attempts;
}

/* One attempt. *retry says whether a failure is worth another. */
static fl_status attempt(io_http *c, const io_http_request *rq, const char *where,
                         io_http_response *resp, bool *retry, fl_error *err)
{
    *retry = false;
    reset_response(resp);
    const char *shown = rq->url_display ? rq->url_display : rq->url;
    struct curl_slist *hdrs = NULL;
    if (rq->headers)
        FL_TRY(rq->headers(rq->headers_ctx, &hdrs, err));
    struct curl_slist *e = curl_slist_append(hdrs, "Expect:"); /* no 100-continue round trip */
    if (!e) {
        curl_slist_free_all(hdrs);
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", where);
    }
    hdrs = e;
    xfer x = {.h = pool_get(c), .rq = rq, .resp = resp, .overflow = false};
    if (!x.h) {
        curl_slist_free_all(hdrs);
        return fl_errorf(err, FL_ENOMEM, "%s: curl_easy_init failed", where);
    }
    set_options(c, &x, hdrs);
    CURLcode cc = curl_easy_perform(x.h);
    curl_easy_getinfo(x.h, CURLINFO_RESPONSE_CODE, &resp->status);
    pool_put(c, x.h, cc == CURLE_OK);
    curl_slist_free_all(hdrs);
    resp->body = x.body.buf.data;
    resp->body_len = x.body.buf.len;
    if (x.body.oom)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory reading the response", where);
    resp->overflow = x.overflow;
    if (x.overflow)
        return fl_errorf(err, FL_EIO, "%s: %s %s: the response body is larger than expected", where,
                         rq->method, shown);
    if (cc != CURLE_OK) {
        *retry = !fatal_curl(cc);
        return fl_errorf(err, FL_EIO, "%s: %s %s: %s", where, rq->method, shown,
                         curl_easy_strerror(cc));
    }
    if (!is_2xx(resp->status)) {
        io_xml_parse_error(resp->body, resp->body_len, &resp->error);
        *retry =
            resp->status >= 500 || resp->status == 429 || retriable_code(io_http_error_code(resp));
    }
    return FL_OK;
}

fl_status io_http_send(io_http *c, const io_http_request *rq, const char *where,
                       io_http_response *resp, fl_error *err)
{
    memset(resp, 0, sizeof *resp);
    resp->content_length = resp->retry_after_ms = -1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t seed =
        ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)(uintptr_t)resp ^ 0x9E3779B97F4A7C15ULL;
    fl_status rc = FL_OK;
    for (unsigned i = 0;; i++) {
        bool retry = false;
        resp->attempts = i + 1;
        rc = attempt(c, rq, where, resp, &retry, err);
        bool failed = rc != FL_OK || !is_2xx(resp->status);
        if (!failed || !retry || i >= c->max_retries)
            break;
        backoff(i, resp->retry_after_ms, &seed);
    }
    if (rc == FL_EIO && resp->attempts > 1 && err) {
        char msg[FL_ERROR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        fl_errorf(err, rc, "%s (%u attempts)", msg, resp->attempts);
    }
    return rc;
}

void io_http_response_free(io_http_response *r)
{
    free(r->body);
    r->body = NULL;
}

static const char *reason(long status)
{
    switch (status) {
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 412: return "Precondition Failed";
    case 416: return "Range Not Satisfiable";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "error";
    }
}

const char *io_http_error_code(const io_http_response *r)
{
    return r->error.code[0] ? r->error.code : r->ms_error_code[0] ? r->ms_error_code : "";
}

fl_status io_http_error(const io_http_response *r, const char *where, const char *what,
                        fl_error *err)
{
    fl_status code = r->status == 404   ? FL_ENOTFOUND
                     : r->status == 412 ? FL_EEXIST
                     : r->status == 409 ? FL_ECONFLICT
                                        : FL_EIO;
    const char *c = *io_http_error_code(r) ? io_http_error_code(r) : reason(r->status);
    const char *m = r->error.message[0] ? r->error.message : NULL;
    char first[600]; /* Azure messages carry "\nRequestId:...\nTime:..." lines */
    if (m) {
        io_copy_str(first, sizeof first, m);
        first[strcspn(first, "\r\n")] = '\0';
        m = first;
    }
    return fl_errorf(err, code, "%s: %s%sHTTP %ld %s%s%s%s", where, what ? what : "",
                     what ? ": " : "", r->status, c, m ? ": " : "", m ? m : "",
                     r->attempts > 1 ? " (after retries)" : "");
}
