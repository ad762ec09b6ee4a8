/*
 * s3_http.c - the S3 side of a request: URL (path-style or virtual-host) +
 * SigV4 headers, sent through the shared HTTP client (io/common.h).
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
 * Transfers, the handle pool, retries (with jittered backoff, honouring
 * Retry-After) and error messages are the shared client's (http_client.c).
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "io/s3_internal.h"

struct s3_client {
    char *scheme, *host, *prefix; /* endpoint: "http", "127.0.0.1:4568", "" or "/p" */
    char *region, *access_key_id, *secret, *session_token;
    bool path_style;
    uint64_t part_size;
    io_http *http;
};

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
    s3_client *c = calloc(1, sizeof *c);
    if (!c)
        return fl_errorf(err, FL_ENOMEM, "S3: out of memory");
    const char *region = cfg->region && *cfg->region ? cfg->region : "us-east-1";
    bool oom = false;
    c->region = dup_or_null(region, &oom);
    c->access_key_id = dup_or_null(cfg->access_key_id, &oom);
    c->secret = dup_or_null(cfg->secret_access_key, &oom);
    c->session_token = dup_or_null(cfg->session_token, &oom);
    c->path_style = cfg->path_style;
    c->part_size = cfg->multipart_threshold ? cfg->multipart_threshold : (uint64_t)16 << 20;
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
    if (rc == FL_OK) {
        io_http_config hc = {cfg->max_retries, cfg->connect_timeout_ms, NULL, "S3"};
        rc = io_http_new(&hc, &c->http, err);
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
    io_http_free(c->http);
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
static void target(const s3_client *c, const char *bucket, const char *key, io_sb *host,
                   io_sb *path)
{
    if (c->path_style) {
        io_sb_puts(host, c->host);
    } else {
        io_sb_puts(host, bucket);
        io_sb_putn(host, ".", 1);
        io_sb_puts(host, c->host);
    }
    io_sb_puts(path, c->prefix);
    io_sb_putn(path, "/", 1);
    if (c->path_style) {
        io_uri_encode(path, bucket, strlen(bucket), false);
        if (key && *key)
            io_sb_putn(path, "/", 1);
    }
    if (key)
        io_uri_encode(path, key, strlen(key), true);
}

fl_status s3_client_url(const s3_client *c, const char *bucket, const char *key, char **url,
                        char **host, fl_error *err)
{
    io_sb h = {0}, p = {0}, u = {0};
    target(c, bucket, key, &h, &p);
    io_sb_printf(&u, "%s://%s%s", c->scheme, h.buf.data ? h.buf.data : "",
                 p.buf.data ? p.buf.data : "");
    if (h.oom || p.oom || u.oom) {
        io_sb_free(&h);
        io_sb_free(&p);
        io_sb_free(&u);
        return fl_errorf(err, FL_ENOMEM, "S3: out of memory");
    }
    io_sb_free(&p);
    *url = u.buf.data;
    *host = h.buf.data;
    return FL_OK;
}

/* What the header callback needs to sign one attempt. */
typedef struct sign_ctx {
    s3_client *c;
    const s3_request *rq;
    const char *host, *path, *payload_hash;
} sign_ctx;

/* Builds the signed header list for one attempt (io_http_headers_fn). */
static fl_status build_headers(void *ctx, struct curl_slist **out, fl_error *err)
{
    const sign_ctx *sc = ctx;
    s3_client *c = sc->c;
    const s3_request *rq = sc->rq;
    char date[17];
    s3_amz_date((int64_t)time(NULL), date);
    io_kv hs[24];
    size_t n = 0;
    hs[n++] = (io_kv){"host", sc->host};
    hs[n++] = (io_kv){"x-amz-content-sha256", sc->payload_hash};
    hs[n++] = (io_kv){"x-amz-date", date};
    if (c->session_token)
        hs[n++] = (io_kv){"x-amz-security-token", c->session_token};
    if (rq->nheaders > 12)
        return fl_errorf(err, FL_EINVAL, "S3: too many request headers");
    for (size_t i = 0; i < rq->nheaders; i++)
        hs[n++] = rq->headers[i];
    bool oom = false;
    struct curl_slist *l = NULL;
    for (size_t i = 0; i < n; i++)
        l = io_http_header(l, &oom, hs[i].k, hs[i].v);
    if (c->access_key_id) {
        s3_sign_req sr = {rq->method, sc->path, rq->query,        rq->nquery,
                          hs,         n,        sc->payload_hash, date,
                          c->region,  "s3",     c->access_key_id, c->secret};
        char *auth = NULL;
        fl_status rc = s3_sigv4_sign(&sr, NULL, NULL, &auth, err);
        if (rc != FL_OK) {
            curl_slist_free_all(l);
            return rc;
        }
        l = io_http_header(l, &oom, "authorization", auth);
        free(auth);
    }
    /* unsigned: no curl-invented content type */
    if (strcmp(rq->method, "PUT") == 0 || strcmp(rq->method, "POST") == 0)
        l = io_http_header(l, &oom, "content-type", "application/octet-stream");
    if (oom) {
        curl_slist_free_all(l);
        return fl_errorf(err, FL_ENOMEM, "S3: out of memory");
    }
    *out = l;
    return FL_OK;
}

fl_status s3_send(s3_client *c, const s3_request *rq, const char *path, s3_response *resp,
                  fl_error *err)
{
    io_sb host = {0}, cpath = {0}, url = {0};
    target(c, rq->bucket, rq->key, &host, &cpath);
    io_sb_printf(&url, "%s://%s%s", c->scheme, host.buf.data ? host.buf.data : "",
                 cpath.buf.data ? cpath.buf.data : "");
    if (rq->nquery) {
        io_sb_putn(&url, "?", 1);
        s3_canonical_query(&url, rq->query, rq->nquery);
    }
    fl_status rc;
    if (host.oom || cpath.oom || url.oom) {
        memset(resp, 0, sizeof *resp);
        rc = fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    } else {
        char hash[65];
        io_sha256_hex(rq->body ? rq->body : "", rq->body_len, hash);
        sign_ctx sc = {c, rq, host.buf.data, cpath.buf.data, hash};
        io_http_request hr = {.method = rq->method,
                              .url = url.buf.data,
                              .headers = build_headers,
                              .headers_ctx = &sc,
                              .body = rq->body,
                              .body_len = rq->body_len,
                              .out = rq->out,
                              .out_cap = rq->out_cap,
                              .max_body = rq->max_body};
        rc = io_http_send(c->http, &hr, path, resp, err);
    }
    io_sb_free(&host);
    io_sb_free(&cpath);
    io_sb_free(&url);
    return rc;
}
