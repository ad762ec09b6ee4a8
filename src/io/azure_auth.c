/*
 * azure_auth.c - authentication for the Azure Blob REST API.
 *
 * Shared Key (version 2009-09-19 and later, "Authorize with Shared Key"):
 *
 *   StringToSign = VERB \n Content-Encoding \n Content-Language \n
 *                  Content-Length \n Content-MD5 \n Content-Type \n Date \n
 *                  If-Modified-Since \n If-Match \n If-None-Match \n
 *                  If-Unmodified-Since \n Range \n
 *                  CanonicalizedHeaders CanonicalizedResource
 *
 * Content-Length is empty when zero (version 2015-02-21 and later); Date is
 * empty because x-ms-date is sent. CanonicalizedHeaders = every x-ms-*
 * header, lowercase, sorted, "name:value\n". CanonicalizedResource = "/" +
 * account + the URL path as sent (so an emulator's path-style
 * "/devstoreaccount1/c/b" yields the account twice, as the service expects),
 * then for each query parameter, sorted by lowercase name,
 * "\nname:value". Authorization = "SharedKey account:" + base64(HMAC-SHA256(
 * base64-decoded key, StringToSign)).
 *
 * OAuth2 client credentials (Microsoft Entra ID): POST to the token endpoint
 * (default https://login.microsoftonline.com/<tenant>/oauth2/v2.0/token) the
 * form grant_type=client_credentials, client_id, client_secret,
 * scope=https://storage.azure.com/.default; the JSON answer's access_token is
 * cached until 5 minutes before expires_in runs out (for tokens shorter
 * than 10 minutes, until half their life), under a mutex, so concurrent
 * requests fetch it once.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "io/azure_internal.h"

void azure_rfc1123(int64_t t, char out[32])
{
    static const char *const days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    snprintf(out, 32, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[tm.tm_wday], tm.tm_mday,
             months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static const char *header(const azure_sign_req *r, const char *name)
{
    for (size_t i = 0; i < r->nheaders; i++)
        if (strcmp(r->headers[i].k, name) == 0)
            return r->headers[i].v;
    return "";
}

static int kv_cmp(const void *a, const void *b)
{
    return strcmp(((const io_kv *)a)->k, ((const io_kv *)b)->k);
}

#define MAX_SIGNED 32

fl_status azure_shared_key_sign(const azure_sign_req *r, const uint8_t *key, size_t key_len,
                                char **sts, char **authorization, fl_error *err)
{
    if (r->nheaders > MAX_SIGNED || r->nquery > MAX_SIGNED)
        return fl_errorf(err, FL_EINVAL, "Azure: too many headers to sign");
    io_sb s = {0};
    io_sb_printf(&s, "%s\n%s\n%s\n", r->method, header(r, "content-encoding"),
                 header(r, "content-language"));
    if (r->content_length)
        io_sb_printf(&s, "%zu", r->content_length);
    static const char *const std[] = {"content-md5",         "content-type", "date",
                                      "if-modified-since",   "if-match",     "if-none-match",
                                      "if-unmodified-since", "range"};
    for (size_t i = 0; i < sizeof std / sizeof *std; i++)
        io_sb_printf(&s, "\n%s", header(r, std[i]));
    io_sb_putn(&s, "\n", 1);
    io_kv ms[MAX_SIGNED];
    size_t n = 0;
    for (size_t i = 0; i < r->nheaders; i++)
        if (strncmp(r->headers[i].k, "x-ms-", 5) == 0)
            ms[n++] = r->headers[i];
    qsort(ms, n, sizeof *ms, kv_cmp);
    for (size_t i = 0; i < n; i++)
        io_sb_printf(&s, "%s:%s\n", ms[i].k, ms[i].v);
    io_sb_printf(&s, "/%s%s", r->account, r->path);
    io_kv q[MAX_SIGNED];
    if (r->nquery) /* r->query may be NULL when there is no query */
        memcpy(q, r->query, r->nquery * sizeof *q);
    qsort(q, r->nquery, sizeof *q, kv_cmp); /* names are lowercase already */
    for (size_t i = 0; i < r->nquery; i++)
        io_sb_printf(&s, "\n%s:%s", q[i].k, q[i].v ? q[i].v : "");
    if (s.oom) {
        io_sb_free(&s);
        return fl_errorf(err, FL_ENOMEM, "Azure: out of memory");
    }
    uint8_t mac[32];
    io_hmac_sha256(key, key_len, s.buf.data, s.buf.len, mac);
    char b64[48];
    io_base64_encode(mac, 32, b64);
    io_sb a = {0};
    io_sb_printf(&a, "SharedKey %s:%s", r->account, b64);
    if (a.oom) {
        io_sb_free(&s);
        io_sb_free(&a);
        return fl_errorf(err, FL_ENOMEM, "Azure: out of memory");
    }
    *authorization = a.buf.data;
    if (sts)
        *sts = s.buf.data;
    else
        io_sb_free(&s);
    return FL_OK;
}

/* ---- OAuth2 client credentials ---- */

struct azure_token {
    char *endpoint, *form;
    io_http *http;
    pthread_mutex_t lock;
    char *token;
    int64_t refresh_at; /* CLOCK_REALTIME seconds */
    unsigned fetches;
};

static void form_field(io_sb *s, const char *k, const char *v)
{
    if (s->buf.len)
        io_sb_putn(s, "&", 1);
    io_sb_puts(s, k);
    io_sb_putn(s, "=", 1);
    io_uri_encode(s, v, strlen(v), false);
}

fl_status azure_token_new(const char *token_endpoint, const char *tenant, const char *client_id,
                          const char *client_secret, io_http *http, azure_token **out,
                          fl_error *err)
{
    if (!client_id || !client_secret || (!token_endpoint && !tenant))
        return fl_errorf(err, FL_EINVAL,
                         "Azure OAuth2: client credentials need a client id, a client secret "
                         "and a tenant id (or a token endpoint)");
    azure_token *t = calloc(1, sizeof *t);
    if (!t)
        return fl_errorf(err, FL_ENOMEM, "Azure: out of memory");
    io_sb ep = {0}, form = {0};
    if (token_endpoint)
        io_sb_puts(&ep, token_endpoint);
    else
        io_sb_printf(&ep, "https://login.microsoftonline.com/%s/oauth2/v2.0/token", tenant);
    form_field(&form, "grant_type", "client_credentials");
    form_field(&form, "client_id", client_id);
    form_field(&form, "client_secret", client_secret);
    form_field(&form, "scope", "https://storage.azure.com/.default");
    if (ep.oom || form.oom) {
        io_sb_free(&ep);
        io_sb_free(&form);
        free(t);
        return fl_errorf(err, FL_ENOMEM, "Azure: out of memory");
    }
    t->endpoint = ep.buf.data;
    t->form = form.buf.data;
    t->http = http;
    pthread_mutex_init(&t->lock, NULL);
    *out = t;
    return FL_OK;
}

void azure_token_free(azure_token *t)
{
    if (!t)
        return;
    pthread_mutex_destroy(&t->lock);
    free(t->endpoint);
    free(t->form);
    free(t->token);
    free(t);
}

unsigned azure_token_fetches(const azure_token *t)
{
    return t->fetches;
}

static fl_status form_headers(void *ctx, struct curl_slist **list, fl_error *err)
{
    bool oom = false;
    *list = io_http_header(NULL, &oom, "content-type", "application/x-www-form-urlencoded");
    *list = io_http_header(*list, &oom, "accept", "application/json");
    return oom ? fl_errorf(err, FL_ENOMEM, "Azure: out of memory") : FL_OK;
}

/* Parses the token answer; the error answer's error_description names why. */
static fl_status parse_token(azure_token *t, const io_http_response *r, fl_error *err)
{
    json_error_t je;
    json_t *j = r->body ? json_loadb(r->body, r->body_len, 0, &je) : NULL;
    const char *tok = json_string_value(json_object_get(j, "access_token"));
    json_t *exp = json_object_get(j, "expires_in"); /* a number, or a string of one */
    long long secs = json_is_integer(exp)  ? json_integer_value(exp)
                     : json_is_string(exp) ? strtoll(json_string_value(exp), NULL, 10)
                                           : 3600;
    fl_status rc = FL_OK;
    if (r->status != 200) {
        const char *e = json_string_value(json_object_get(j, "error"));
        const char *d = json_string_value(json_object_get(j, "error_description"));
        rc = fl_errorf(err, FL_EIO, "Azure OAuth2 token endpoint %s: HTTP %ld%s%s%s%s", t->endpoint,
                       r->status, e ? " " : "", e ? e : "", d ? ": " : "", d ? d : "");
    } else if (!tok || !*tok) {
        rc = fl_errorf(err, FL_EIO, "Azure OAuth2 token endpoint %s: no access_token in the answer",
                       t->endpoint);
    } else {
        free(t->token);
        if (!(t->token = strdup(tok))) {
            rc = fl_errorf(err, FL_ENOMEM, "Azure: out of memory");
        } else {
            int64_t early = secs > 600 ? 300 : secs / 2;
            t->refresh_at = (int64_t)time(NULL) + secs - early;
            t->fetches++;
        }
    }
    json_decref(j);
    return rc;
}

fl_status azure_token_get(azure_token *t, char *out, size_t cap, fl_error *err)
{
    pthread_mutex_lock(&t->lock);
    fl_status rc = FL_OK;
    if (!t->token || (int64_t)time(NULL) >= t->refresh_at) {
        io_http_request rq = {.method = "POST",
                              .url = t->endpoint,
                              .headers = form_headers,
                              .body = t->form,
                              .body_len = strlen(t->form)};
        io_http_response r;
        rc = io_http_send(t->http, &rq, "Azure OAuth2 token", &r, err);
        if (rc == FL_OK)
            rc = parse_token(t, &r, err);
        io_http_response_free(&r);
    }
    if (rc == FL_OK && strlen(t->token) >= cap)
        rc = fl_errorf(err, FL_ELIMIT, "Azure OAuth2: the access token is longer than %zu bytes",
                       cap);
    if (rc == FL_OK)
        memcpy(out, t->token, strlen(t->token) + 1);
    pthread_mutex_unlock(&t->lock);
    return rc;
}
