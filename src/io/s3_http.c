/*
 * s3_http.c - the HTTP side of the S3 FileIO: one request = URL + SigV4
 * headers + libcurl transfer + retries.
 *
 * Addressing: path-style "scheme://host[/prefix]/bucket/key" or virtual-host
 * "scheme://bucket.host[/prefix]/key". The key is URI-encoded per segment
 * ('/' kept, everything but RFC 3986 unreserved as %XX), and that exact string
 * is both sent and signed (S3 does not double-encode). The Host header is set
 * explicitly to the signed value; query strings are sent in canonical order.
 *
 * Signed headers: host, x-amz-content-sha256 (the real SHA-256 of the body),
 * x-amz-date, x-amz-security-token when a session token is set, and every
 * caller header (range, if-none-match, content-md5 ...). A client without an
 * access key sends unsigned (anonymous) requests.
 *
 * Threads: curl easy handles are never shared between threads. Idle handles
 * wait in a small mutex-protected pool (so connections are reused); a curl
 * share handle, locked by one mutex, shares the DNS cache and TLS sessions.
 * curl_global_init runs once per process through pthread_once (it is not
 * thread-safe itself); nothing calls curl_global_cleanup.
 *
 * Retries: transport errors (connect, timeout, reset, short body), HTTP 5xx,
 * 429, and the S3 codes SlowDown, RequestTimeout, InternalError,
 * ConditionalRequestConflict are retried up to max_retries times, sleeping
 * a random time in [d/2, d] with d = min(100 ms * 2^attempt, 5 s). Other 4xx
 * answers are returned at once.
 *
 * Bodies: a 2xx body goes into the caller's buffer (ranged GET; more bytes
 * than asked for is an error) or into resp->body bounded by max_body; error
 * bodies are kept up to 64 KiB and parsed as <Error> documents.
 */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "io/s3_internal.h"

#define POOL_MAX 16
#define ERROR_BODY_MAX ((size_t)64 * 1024)
#define DEFAULT_BODY_MAX ((size_t)1 << 20)

struct s3_client {
    char *scheme, *host, *prefix; /* endpoint: "http", "127.0.0.1:4568", "" or "/p" */
    char *region, *access_key_id, *secret, *session_token;
    bool path_style;
    uint32_t max_retries, connect_timeout_ms;
    uint64_t part_size;
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
    pthread_mutex_lock(&((s3_client *)p)->share_lock);
}

static void share_unlock(CURL *h, curl_lock_data d, void *p)
{
    pthread_mutex_unlock(&((s3_client *)p)->share_lock);
}

/* Splits "http[s]://authority[/prefix]" (default ports dropped). */
static fl_status parse_endpoint(s3_client *c, const char *ep, fl_error *err)
{
    const char *rest;
    if (strncmp(ep, "http://", 7) == 0) {
        c->scheme = strdup("http");
        rest = ep + 7;
    } else if (strncmp(ep, "https://", 8) == 0) {
        c->scheme = strdup("https");
        rest = ep + 8;
    } else {
        return fl_errorf(err, FL_EINVAL, "S3 endpoint '%s': must start with http:// or https://",
                         ep);
    }
    size_t alen = strcspn(rest, "/?#");
    if (alen == 0 || rest[alen] == '?' || rest[alen] == '#' || memchr(rest, '@', alen))
        return fl_errorf(err, FL_EINVAL, "S3 endpoint '%s': expected scheme://host[:port][/path]",
                         ep);
    bool http = c->scheme && c->scheme[4] == '\0';
    size_t hlen = alen;
    if ((http && alen > 3 && strncmp(rest + alen - 3, ":80", 3) == 0) ||
        (!http && alen > 4 && strncmp(rest + alen - 4, ":443", 4) == 0))
        hlen = alen - (http ? 3 : 4);
    c->host = strndup(rest, hlen);
    const char *p = rest + alen;
    size_t plen = strlen(p);
    while (plen && p[plen - 1] == '/')
        plen--;
    c->prefix = strndup(p, plen);
    if (!c->scheme || !c->host || !c->prefix)
        return fl_errorf(err, FL_ENOMEM, "S3 endpoint: out of memory");
    return FL_OK;
}

static char *dup_or_null(const char *s, bool *oom)
{
    if (!s || !*s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *oom = true;
    return d;
}

fl_status s3_client_new(const fl_s3_config *cfg, s3_client **out, fl_error *err)
{
    pthread_once(&curl_once, curl_init);
    if (curl_init_rc != CURLE_OK)
        return fl_errorf(err, FL_EIO, "S3: curl_global_init failed: %s",
                         curl_easy_strerror(curl_init_rc));
    s3_client *c = calloc(1, sizeof *c);
    if (!c)
        return fl_errorf(err, FL_ENOMEM, "S3: out of memory");
    pthread_mutex_init(&c->pool_lock, NULL);
    pthread_mutex_init(&c->share_lock, NULL);
    const char *region = cfg->region && *cfg->region ? cfg->region : "us-east-1";
    bool oom = false;
    c->region = dup_or_null(region, &oom);
    c->access_key_id = dup_or_null(cfg->access_key_id, &oom);
    c->secret = dup_or_null(cfg->secret_access_key, &oom);
    c->session_token = dup_or_null(cfg->session_token, &oom);
    c->path_style = cfg->path_style;
    c->max_retries = cfg->max_retries ? cfg->max_retries : 5;
    c->part_size = cfg->multipart_threshold ? cfg->multipart_threshold : (uint64_t)16 << 20;
    c->connect_timeout_ms = cfg->connect_timeout_ms ? cfg->connect_timeout_ms : 10000;
    fl_status rc = oom ? fl_errorf(err, FL_ENOMEM, "S3: out of memory") : FL_OK;
    if (rc == FL_OK && (!c->access_key_id) != (!c->secret))
        rc = fl_errorf(err, FL_EINVAL,
                       "S3: the access key id and the secret access key must be set together");
    if (rc == FL_OK && cfg->endpoint && *cfg->endpoint) {
        rc = parse_endpoint(c, cfg->endpoint, err);
    } else if (rc == FL_OK) {
        char ep[300];
        snprintf(ep, sizeof ep, "https://s3.%s.amazonaws.com", region);
        rc = parse_endpoint(c, ep, err);
    }
    if (rc == FL_OK && !(c->share = curl_share_init()))
        rc = fl_errorf(err, FL_ENOMEM, "S3: curl_share_init failed");
    if (rc == FL_OK) {
        curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock);
        curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
        curl_share_setopt(c->share, CURLSHOPT_USERDATA, c);
        curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
        curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    }
    if (rc != FL_OK) {
        s3_client_free(c);
        return rc;
    }
    *out = c;
    return FL_OK;
}

void s3_client_free(s3_client *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->npool; i++)
        curl_easy_cleanup(c->pool[i]);
    if (c->share)
        curl_share_cleanup(c->share);
    pthread_mutex_destroy(&c->pool_lock);
    pthread_mutex_destroy(&c->share_lock);
    free(c->scheme);
    free(c->host);
    free(c->prefix);
    free(c->region);
    free(c->access_key_id);
    free(c->secret);
    free(c->session_token);
    free(c);
}

uint64_t s3_client_part_size(const s3_client *c)
{
    return c->part_size;
}

/* Host header and encoded path ("/prefix[/bucket]/key") for a request. */
static void target(const s3_client *c, const char *bucket, const char *key, s3_sb *host,
                   s3_sb *path)
{
    if (c->path_style) {
        s3_sb_puts(host, c->host);
    } else {
        s3_sb_puts(host, bucket);
        s3_sb_putn(host, ".", 1);
        s3_sb_puts(host, c->host);
    }
    s3_sb_puts(path, c->prefix);
    s3_sb_putn(path, "/", 1);
    if (c->path_style) {
        s3_uri_encode(path, bucket, strlen(bucket), false);
        if (key && *key)
            s3_sb_putn(path, "/", 1);
    }
    if (key)
        s3_uri_encode(path, key, strlen(key), true);
}

fl_status s3_client_url(const s3_client *c, const char *bucket, const char *key, char **url,
                        char **host, fl_error *err)
{
    s3_sb h = {0}, p = {0}, u = {0};
    target(c, bucket, key, &h, &p);
    s3_sb_printf(&u, "%s://%s%s", c->scheme, h.buf.data ? h.buf.data : "",
                 p.buf.data ? p.buf.data : "");
    if (h.oom || p.oom || u.oom) {
        s3_sb_free(&h);
        s3_sb_free(&p);
        s3_sb_free(&u);
        return fl_errorf(err, FL_ENOMEM, "S3: out of memory");
    }
    s3_sb_free(&p);
    *url = u.buf.data;
    *host = h.buf.data;
    return FL_OK;
}

/* ---- one transfer ---- */

typedef struct xfer {
    CURL *h;
    const s3_request *rq;
    s3_response *resp;
    s3_sb body;
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
    s3_sb_putn(&x->body, p, len);
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

static size_t on_header(char *p, size_t sz, size_t n, void *ud)
{
    xfer *x = ud;
    size_t len = sz * n;
    s3_response *r = x->resp;
    char v[64];
    if (len >= 5 && strncmp(p, "HTTP/", 5) == 0) { /* a new response (after 100 Continue) */
        r->etag[0] = r->content_range[0] = '\0';
        r->content_length = -1;
    } else if (len > 5 && strncasecmp(p, "etag:", 5) == 0) {
        header_value(p, len, 5, r->etag, sizeof r->etag);
    } else if (len > 14 && strncasecmp(p, "content-range:", 14) == 0) {
        header_value(p, len, 14, r->content_range, sizeof r->content_range);
    } else if (len > 15 && strncasecmp(p, "content-length:", 15) == 0) {
        header_value(p, len, 15, v, sizeof v);
        char *end;
        long long cl = strtoll(v, &end, 10);
        r->content_length = (*v && !*end && cl >= 0) ? cl : -1;
    }
    return len;
}

static struct curl_slist *add_header(struct curl_slist *l, bool *oom, const char *k, const char *v)
{
    s3_sb s = {0};
    s3_sb_printf(&s, "%s: %s", k, v);
    struct curl_slist *n = s.oom ? NULL : curl_slist_append(l, s.buf.data);
    s3_sb_free(&s);
    if (!n) {
        *oom = true;
        return l;
    }
    return n;
}

/* Builds the signed header list for this attempt. */
static fl_status build_headers(s3_client *c, const s3_request *rq, const char *host,
                               const char *path, const char *payload_hash, struct curl_slist **out,
                               fl_error *err)
{
    char date[17];
    s3_amz_date((int64_t)time(NULL), date);
    s3_kv hs[24];
    size_t n = 0;
    hs[n++] = (s3_kv){"host", host};
    hs[n++] = (s3_kv){"x-amz-content-sha256", payload_hash};
    hs[n++] = (s3_kv){"x-amz-date", date};
    if (c->session_token)
        hs[n++] = (s3_kv){"x-amz-security-token", c->session_token};
    if (rq->nheaders > 12)
        return fl_errorf(err, FL_EINVAL, "S3: too many request headers");
    for (size_t i = 0; i < rq->nheaders; i++)
        hs[n++] = rq->headers[i];
    bool oom = false;
    struct curl_slist *l = NULL;
    for (size_t i = 0; i < n; i++)
        l = add_header(l, &oom, hs[i].k, hs[i].v);
    if (c->access_key_id) {
        s3_sign_req sr = {rq->method, path, rq->query,        rq->nquery, hs, n, payload_hash, date,
                          c->region,  "s3", c->access_key_id, c->secret};
        char *auth = NULL;
        fl_status rc = s3_sigv4_sign(&sr, NULL, NULL, &auth, err);
        if (rc != FL_OK) {
            curl_slist_free_all(l);
            return rc;
        }
        l = add_header(l, &oom, "authorization", auth);
        free(auth);
    }
    /* unsigned: no curl-invented content type, no 100-continue round trip */
    if (strcmp(rq->method, "PUT") == 0 || strcmp(rq->method, "POST") == 0)
        l = add_header(l, &oom, "content-type", "application/octet-stream");
    struct curl_slist *e = curl_slist_append(l, "Expect:");
    if (e)
        l = e;
    else
        oom = true;
    if (oom) {
        curl_slist_free_all(l);
        return fl_errorf(err, FL_ENOMEM, "S3: out of memory");
    }
    *out = l;
    return FL_OK;
}

static CURL *pool_get(s3_client *c)
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

static void pool_put(s3_client *c, CURL *h, bool healthy)
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

static void set_options(s3_client *c, xfer *x, const char *url, struct curl_slist *hdrs)
{
    CURL *h = x->h;
    const s3_request *rq = x->rq;
    curl_easy_setopt(h, CURLOPT_URL, url);
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
    return strcmp(code, "SlowDown") == 0 || strcmp(code, "RequestTimeout") == 0 ||
           strcmp(code, "InternalError") == 0 || strcmp(code, "ConditionalRequestConflict") == 0;
}

static bool fatal_curl(CURLcode cc)
{
    return cc == CURLE_URL_MALFORMAT || cc == CURLE_UNSUPPORTED_PROTOCOL ||
           cc == CURLE_BAD_FUNCTION_ARGUMENT || cc == CURLE_OUT_OF_MEMORY;
}

static void backoff(unsigned attempt, uint64_t *seed)
{
    uint64_t d = 100 * ((uint64_t)1 << (attempt < 6 ? attempt : 6));
    if (d > 5000)
        d = 5000;
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    uint64_t ms = d / 2 + *seed % (d / 2 + 1);
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void reset_response(s3_response *r)
{
    free(r->body);
    unsigned attempts = r->attempts;
    memset(r, 0, sizeof *r);
    r->content_length = -1;
    r->attempts = attempts;
}

/* One attempt. *retry says whether a failure is worth another. */
static fl_status attempt(s3_client *c, const s3_request *rq, const char *url, const char *host,
                         const char *cpath, const char *hash, const char *path, s3_response *resp,
                         bool *retry, fl_error *err)
{
    *retry = false;
    reset_response(resp);
    struct curl_slist *hdrs = NULL;
    FL_TRY(build_headers(c, rq, host, cpath, hash, &hdrs, err));
    xfer x = {.h = pool_get(c), .rq = rq, .resp = resp, .overflow = false};
    if (!x.h) {
        curl_slist_free_all(hdrs);
        return fl_errorf(err, FL_ENOMEM, "%s: curl_easy_init failed", path);
    }
    set_options(c, &x, url, hdrs);
    CURLcode cc = curl_easy_perform(x.h);
    curl_easy_getinfo(x.h, CURLINFO_RESPONSE_CODE, &resp->status);
    pool_put(c, x.h, cc == CURLE_OK);
    curl_slist_free_all(hdrs);
    resp->body = x.body.buf.data;
    resp->body_len = x.body.buf.len;
    if (x.body.oom)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory reading the response", path);
    resp->overflow = x.overflow;
    if (x.overflow)
        return fl_errorf(err, FL_EIO, "%s: %s %s: the response body is larger than expected", path,
                         rq->method, url);
    if (cc != CURLE_OK) {
        *retry = !fatal_curl(cc);
        return fl_errorf(err, FL_EIO, "%s: %s %s: %s", path, rq->method, url,
                         curl_easy_strerror(cc));
    }
    if (!is_2xx(resp->status)) {
        s3_xml_parse_error(resp->body, resp->body_len, &resp->error);
        *retry = resp->status >= 500 || resp->status == 429 || retriable_code(resp->error.code);
    }
    return FL_OK;
}

fl_status s3_send(s3_client *c, const s3_request *rq, const char *path, s3_response *resp,
                  fl_error *err)
{
    memset(resp, 0, sizeof *resp);
    resp->content_length = -1;
    s3_sb host = {0}, cpath = {0}, url = {0};
    target(c, rq->bucket, rq->key, &host, &cpath);
    s3_sb_printf(&url, "%s://%s%s", c->scheme, host.buf.data ? host.buf.data : "",
                 cpath.buf.data ? cpath.buf.data : "");
    if (rq->nquery) {
        s3_sb_putn(&url, "?", 1);
        s3_canonical_query(&url, rq->query, rq->nquery);
    }
    fl_status rc = FL_OK;
    if (host.oom || cpath.oom || url.oom)
        rc = fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    char hash[65];
    s3_sha256_hex(rq->body ? rq->body : "", rq->body_len, hash);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t seed =
        ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)(uintptr_t)resp ^ 0x9E3779B97F4A7C15ULL;
    for (unsigned i = 0; rc == FL_OK; i++) {
        bool retry = false;
        resp->attempts = i + 1;
        rc = attempt(c, rq, url.buf.data, host.buf.data, cpath.buf.data, hash, path, resp, &retry,
                     err);
        bool failed = rc != FL_OK || !is_2xx(resp->status);
        if (!failed || !retry || i >= c->max_retries)
            break;
        rc = FL_OK;
        backoff(i, &seed);
    }
    if (rc == FL_EIO && resp->attempts > 1 && err) {
        char msg[FL_ERROR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        fl_errorf(err, rc, "%s (%u attempts)", msg, resp->attempts);
    }
    s3_sb_free(&host);
    s3_sb_free(&cpath);
    s3_sb_free(&url);
    return rc;
}

void s3_response_free(s3_response *r)
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

fl_status s3_http_error(const s3_response *r, const char *path, const char *what, fl_error *err)
{
    fl_status code = r->status == 404   ? FL_ENOTFOUND
                     : r->status == 412 ? FL_EEXIST
                     : r->status == 409 ? FL_ECONFLICT
                                        : FL_EIO;
    const char *c = r->error.code[0] ? r->error.code : reason(r->status);
    const char *m = r->error.message[0] ? r->error.message : NULL;
    return fl_errorf(err, code, "%s: %s%sHTTP %ld %s%s%s%s", path, what ? what : "",
                     what ? ": " : "", r->status, c, m ? ": " : "", m ? m : "",
                     r->attempts > 1 ? " (after retries)" : "");
}
