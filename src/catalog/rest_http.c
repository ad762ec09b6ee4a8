/*
 * rest_http.c - the REST catalog's HTTP transport over libcurl.
 *
 * One easy handle per catalog, reused for every request, so libcurl keeps
 * the connection alive (HTTP/1.1 keep-alive; TLS sessions resumed) and a
 * catalog pays the TCP/TLS handshake once. Responses may be gzip/deflate
 * compressed (Accept-Encoding from libcurl). Bodies are collected up to
 * REST_MAX_RESPONSE bytes; beyond that the transfer is aborted (FL_ELIMIT).
 *
 * Retries (rq->retry): transport failures (connect refused, reset, timeout)
 * and HTTP 429/502/503/504 are retried up to max_retries times after
 * 100 ms * 2^attempt (capped at 5 s, or the Retry-After seconds the server
 * gave, capped at 30 s) plus up to 25% jitter. Callers set retry only for
 * requests that are safe to repeat: GET/HEAD, and mutations carrying an
 * Idempotency-Key the server promised to honour. A commit without one is
 * never re-sent: its outcome is unknown once the request left.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "catalog/rest_internal.h"

void rest_response_free(rest_response *r)
{
    if (!r)
        return;
    free(r->body);
    free(r->content_type);
    memset(r, 0, sizeof *r);
}

fl_status rest_http_init(rest_http *h, uint32_t timeout_ms, uint32_t connect_timeout_ms,
                         uint32_t max_retries, fl_error *err)
{
    memset(h, 0, sizeof *h);
    curl_global_init(CURL_GLOBAL_DEFAULT); /* reference counted, thread-safe in curl >= 7.84 */
    h->curl = curl_easy_init();
    if (!h->curl)
        return fl_errorf(err, FL_ENOMEM, "REST catalog: curl_easy_init failed");
    h->timeout_ms = timeout_ms ? timeout_ms : 60000;
    h->connect_timeout_ms = connect_timeout_ms ? connect_timeout_ms : 10000;
    h->max_retries = max_retries ? max_retries : 3;
    return FL_OK;
}

void rest_http_free(rest_http *h)
{
    if (h->curl)
        curl_easy_cleanup(h->curl);
    curl_slist_free_all(h->headers);
    memset(h, 0, sizeof *h);
}

fl_status rest_http_add_header(rest_http *h, const char *name, const char *value, fl_error *err)
{
    if (strpbrk(name, ":\r\n ") || strpbrk(value, "\r\n"))
        return fl_errorf(err, FL_EINVAL, "REST catalog: header '%.60s' has forbidden characters",
                         name);
    size_t n = strlen(name) + strlen(value) + 3;
    char *line = malloc(n);
    if (!line)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    snprintf(line, n, "%s: %s", name, value);
    struct curl_slist *l = curl_slist_append(h->headers, line);
    free(line);
    if (!l)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    h->headers = l;
    return FL_OK;
}

/* ---- one exchange ---- */

typedef struct sink {
    rest_response *r;
    size_t cap;
    bool too_big;
    long retry_after; /* seconds, -1 = none */
} sink;

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
    sink *s = ud;
    size_t n = size * nmemb;
    if (s->r->len + n > REST_MAX_RESPONSE) {
        s->too_big = true;
        return 0;
    }
    if (s->r->len + n + 1 > s->cap) {
        size_t nc = s->cap ? s->cap : 4096;
        while (nc < s->r->len + n + 1)
            nc *= 2;
        char *nb = realloc(s->r->body, nc);
        if (!nb)
            return 0;
        s->r->body = nb;
        s->cap = nc;
    }
    memcpy(s->r->body + s->r->len, p, n);
    s->r->len += n;
    s->r->body[s->r->len] = '\0';
    return n;
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *ud)
{
    sink *s = ud;
    size_t n = size * nmemb;
    static const char RA[] = "retry-after:";
    if (n > sizeof RA && !strncasecmp(p, RA, sizeof RA - 1)) {
        long v = strtol(p + sizeof RA - 1, NULL, 10);
        s->retry_after = v > 0 ? v : -1;
    }
    return n;
}

static struct curl_slist *request_headers(const rest_http *h, const rest_request *rq, bool *oom)
{
    struct curl_slist *l = NULL, *t;
    char line[8192];
    *oom = true;
    for (const struct curl_slist *e = h->headers; e; e = e->next)
        if (!(t = curl_slist_append(l, e->data)))
            goto fail;
        else
            l = t;
    if (!(t = curl_slist_append(l, "Accept: application/json")))
        goto fail;
    l = t;
    if (rq->body) {
        snprintf(line, sizeof line, "Content-Type: %s",
                 rq->content_type ? rq->content_type : "application/json");
        if (!(t = curl_slist_append(l, line)))
            goto fail;
        l = t;
    } else if (!(t = curl_slist_append(l, "Content-Type:"))) {
        goto fail;
    } else {
        l = t;
    }
    if (rq->bearer) {
        if ((size_t)snprintf(line, sizeof line, "Authorization: Bearer %s", rq->bearer) >=
            sizeof line)
            goto fail;
        if (!(t = curl_slist_append(l, line)))
            goto fail;
        l = t;
    }
    if (rq->idempotency_key) {
        snprintf(line, sizeof line, "Idempotency-Key: %s", rq->idempotency_key);
        if (!(t = curl_slist_append(l, line)))
            goto fail;
        l = t;
    }
    if (!(t = curl_slist_append(l, "Expect:"))) /* no 100-continue round trip */
        goto fail;
    *oom = false;
    return t;
fail:
    curl_slist_free_all(l);
    return NULL;
}

static CURLcode perform(rest_http *h, const rest_request *rq, struct curl_slist *hdrs, sink *s)
{
    CURL *c = h->curl;
    curl_easy_reset(c); /* keeps live connections and the session cache */
    curl_easy_setopt(c, CURLOPT_URL, rq->url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, s);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, h->errbuf);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)h->timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)h->connect_timeout_ms);
    curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(c, CURLOPT_USERAGENT, "floe-rest-client/1");
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
    if (rq->basic_user) {
        curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(c, CURLOPT_USERNAME, rq->basic_user);
        curl_easy_setopt(c, CURLOPT_PASSWORD, rq->basic_pass ? rq->basic_pass : "");
    }
    if (!strcmp(rq->method, "HEAD")) {
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    } else if (strcmp(rq->method, "GET") != 0) {
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, rq->method);
        if (rq->body) {
            curl_easy_setopt(c, CURLOPT_POSTFIELDS, rq->body);
            curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->body_len);
        }
    }
    h->errbuf[0] = '\0';
    return curl_easy_perform(c);
}

static void sleep_ms(int64_t ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static int64_t backoff_ms(uint32_t attempt, long retry_after)
{
    int64_t d = 100;
    for (uint32_t i = 0; i < attempt && d < 5000; i++)
        d *= 2;
    if (d > 5000)
        d = 5000;
    if (retry_after > 0)
        d = (retry_after > 30 ? 30 : retry_after) * 1000;
    uint32_t r = 0;
    if (getrandom(&r, sizeof r, 0) != sizeof r)
        r = (uint32_t)clock();
    return d + (int64_t)(r % (uint32_t)(d / 4 + 1));
}

static bool retryable_status(long s)
{
    return s == 429 || s == 502 || s == 503 || s == 504;
}

fl_status rest_http_do(rest_http *h, const rest_request *rq, rest_response *resp, fl_error *err)
{
    memset(resp, 0, sizeof *resp);
    bool oom;
    struct curl_slist *hdrs = request_headers(h, rq, &oom);
    if (!hdrs)
        return fl_errorf(err, FL_ENOMEM, "%s %s: out of memory building headers", rq->method,
                         rq->url);
    uint32_t tries = rq->retry ? h->max_retries + 1 : 1;
    fl_status rc = FL_OK;
    for (uint32_t attempt = 0; attempt < tries; attempt++) {
        rest_response_free(resp);
        sink s = {resp, 0, false, -1};
        CURLcode cc = perform(h, rq, hdrs, &s);
        if (s.too_big) {
            rc = fl_errorf(err, FL_ELIMIT, "%s %s: response larger than %u bytes", rq->method,
                           rq->url, REST_MAX_RESPONSE);
            break;
        }
        if (cc == CURLE_OK) {
            curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &resp->status);
            char *ct = NULL;
            if (curl_easy_getinfo(h->curl, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK && ct)
                resp->content_type = strdup(ct);
            rc = FL_OK;
            if (retryable_status(resp->status) && attempt + 1 < tries) {
                sleep_ms(backoff_ms(attempt, s.retry_after));
                continue;
            }
            break;
        }
        rc = fl_errorf(err, cc == CURLE_OUT_OF_MEMORY ? FL_ENOMEM : FL_EIO,
                       "%s %s: %s%s%s (after %u attempt%s)", rq->method, rq->url,
                       curl_easy_strerror(cc), h->errbuf[0] ? ": " : "", h->errbuf, attempt + 1,
                       attempt ? "s" : "");
        if (cc == CURLE_OUT_OF_MEMORY || cc == CURLE_URL_MALFORMAT ||
            cc == CURLE_UNSUPPORTED_PROTOCOL || attempt + 1 >= tries)
            break;
        sleep_ms(backoff_ms(attempt, -1));
    }
    curl_slist_free_all(hdrs);
    if (rc != FL_OK)
        rest_response_free(resp);
    return rc;
}
