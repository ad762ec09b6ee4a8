/*
 * azure_http.c - the Azure side of a request: which endpoint and
 * credentials a storage account uses, the URL, the x-ms-* headers and the
 * authorization, sent through the shared HTTP client (io/common.h: pooled
 * handles, retries with backoff honouring Retry-After).
 *
 * Accounts: cfg->accounts[] entries (from connection strings, per-account
 * SAS tokens) override the defaults field by field. Endpoint: the account's,
 * else cfg->endpoint, else https://<account>.blob.core.windows.net; an
 * endpoint with a path ("http://127.0.0.1:10000/devstoreaccount1", Azurite's
 * path-style addressing) prefixes every request path. Authorization, first
 * that applies: the account's SAS token, the account's key, the default SAS
 * token, the default key (Shared Key), OAuth2 client credentials (Bearer),
 * else anonymous.
 *
 * URLs: "/container/blob" with the blob name RFC 3986-encoded per segment
 * ('/' kept); query names and values encoded and sorted; a SAS token is
 * appended as given (it is already encoded) and never shown in messages.
 * Every request carries x-ms-date and x-ms-version; PUT/POST carry an
 * explicit Content-Type (signed) so curl invents none.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "io/azure_internal.h"

#define KEY_MAX 128

typedef struct account {
    char *name;          /* NULL for the defaults */
    char *base, *prefix; /* "http://127.0.0.1:10000", "/devstoreaccount1"; NULL = unset */
    char *sas;           /* without a leading '?' */
    char *sign_account;  /* the account a key belongs to (NULL = the path's) */
    uint8_t key[KEY_MAX];
    size_t key_len; /* 0 = no key */
} account;

struct azure_client {
    io_http *http;
    account acc[FL_AZURE_MAX_ACCOUNTS + 1]; /* [0] = defaults */
    size_t nacc;
    azure_token *token; /* NULL without client credentials */
    uint64_t block_size;
    uint32_t page_size;
};

/* Splits "http[s]://authority[/prefix]" into base and prefix (no trailing '/'). */
static fl_status parse_endpoint(account *a, const char *ep, fl_error *err)
{
    size_t sl = strncmp(ep, "http://", 7) == 0 ? 7 : strncmp(ep, "https://", 8) == 0 ? 8 : 0;
    size_t alen = sl ? strcspn(ep + sl, "/?#") : 0;
    if (!sl || !alen || ep[sl + alen] == '?' || ep[sl + alen] == '#')
        return fl_errorf(err, FL_EINVAL,
                         "Azure endpoint '%s': expected http[s]://host[:port][/path]", ep);
    const char *p = ep + sl + alen;
    size_t plen = strlen(p);
    while (plen && p[plen - 1] == '/')
        plen--;
    a->base = strndup(ep, sl + alen);
    a->prefix = strndup(p, plen);
    if (!a->base || !a->prefix)
        return fl_errorf(err, FL_ENOMEM, "Azure: out of memory");
    return FL_OK;
}

static fl_status set_account(account *a, const char *name, const char *endpoint, const char *key,
                             const char *sas, const char *sign_account, fl_error *err)
{
    bool oom = false;
    if (name && !(a->name = strdup(name)))
        oom = true;
    if (sign_account && *sign_account && !(a->sign_account = strdup(sign_account)))
        oom = true;
    if (sas && *sas) {
        if (*sas == '?')
            sas++;
        if (!(a->sas = strdup(sas)))
            oom = true;
    }
    if (oom)
        return fl_errorf(err, FL_ENOMEM, "Azure: out of memory");
    if (key && *key && io_base64_decode(key, a->key, sizeof a->key, &a->key_len) != FL_OK)
        return fl_errorf(err, FL_EINVAL,
                         "Azure account key%s%s: not valid base64 (the key is the base64 string "
                         "the portal shows)",
                         name ? " for " : "", name ? name : "");
    if (key && *key && !a->key_len)
        return fl_errorf(err, FL_EINVAL, "Azure account key: empty");
    return endpoint && *endpoint ? parse_endpoint(a, endpoint, err) : FL_OK;
}

fl_status azure_client_new(const fl_azure_config *cfg, azure_client **out, fl_error *err)
{
    azure_client *c = calloc(1, sizeof *c);
    if (!c)
        return fl_errorf(err, FL_ENOMEM, "Azure: out of memory");
    c->block_size = cfg->block_size ? cfg->block_size : (uint64_t)16 << 20;
    c->page_size = cfg->list_page_size ? cfg->list_page_size : 5000;
    io_http_config hc = {cfg->max_retries, cfg->connect_timeout_ms, cfg->ca_file, "Azure"};
    fl_status rc = io_http_new(&hc, &c->http, err);
    if (rc == FL_OK)
        rc = set_account(&c->acc[0], NULL, cfg->endpoint, cfg->account_key, cfg->sas_token,
                         cfg->account_name, err);
    c->nacc = 1;
    if (rc == FL_OK && cfg->naccounts > FL_AZURE_MAX_ACCOUNTS)
        rc = fl_errorf(err, FL_ELIMIT, "Azure: more than %d accounts configured",
                       FL_AZURE_MAX_ACCOUNTS);
    for (size_t i = 0; rc == FL_OK && i < cfg->naccounts; i++) {
        const fl_azure_account *a = &cfg->accounts[i];
        if (!a->name || !*a->name)
            rc = fl_errorf(err, FL_EINVAL, "Azure: an account entry without a name");
        else
            rc = set_account(&c->acc[c->nacc++], a->name, a->endpoint, a->key, a->sas_token,
                             a->name, err);
    }
    if (rc == FL_OK && cfg->client_id && *cfg->client_id)
        rc = azure_token_new(cfg->token_endpoint && *cfg->token_endpoint ? cfg->token_endpoint
                                                                         : NULL,
                             cfg->tenant_id && *cfg->tenant_id ? cfg->tenant_id : NULL,
                             cfg->client_id, cfg->client_secret, c->http, &c->token, err);
    if (rc != FL_OK) {
        azure_client_free(c);
        return rc;
    }
    *out = c;
    return FL_OK;
}

void azure_client_free(azure_client *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nacc; i++) {
        account *a = &c->acc[i];
        free(a->name);
        free(a->base);
        free(a->prefix);
        free(a->sas);
        free(a->sign_account);
    }
    azure_token_free(c->token);
    io_http_free(c->http);
    free(c);
}

uint64_t azure_client_block_size(const azure_client *c)
{
    return c->block_size;
}

uint32_t azure_client_page_size(const azure_client *c)
{
    return c->page_size;
}

azure_token *azure_client_token(azure_client *c)
{
    return c->token;
}

/* ---- per-request resolution ---- */

typedef enum auth_kind { AUTH_NONE, AUTH_SAS, AUTH_KEY, AUTH_BEARER } auth_kind;

typedef struct resolved {
    const char *base, *prefix; /* base NULL = the public endpoint of the account */
    auth_kind auth;
    const account *cred; /* for SAS / KEY */
    const char *sign_account;
} resolved;

static void resolve(const azure_client *c, const char *name, resolved *r)
{
    const account *d = &c->acc[0], *a = NULL;
    for (size_t i = 1; i < c->nacc; i++)
        if (strcasecmp(c->acc[i].name, name) == 0)
            a = &c->acc[i];
    memset(r, 0, sizeof *r);
    r->base = a && a->base ? a->base : d->base;
    r->prefix = a && a->base ? a->prefix : d->prefix;
    r->sign_account = name;
    if (a && a->sas)
        r->auth = AUTH_SAS, r->cred = a;
    else if (a && a->key_len)
        r->auth = AUTH_KEY, r->cred = a;
    else if (d->sas)
        r->auth = AUTH_SAS, r->cred = d;
    else if (d->key_len)
        r->auth = AUTH_KEY, r->cred = d;
    else if (c->token)
        r->auth = AUTH_BEARER;
    if (r->auth == AUTH_KEY && r->cred->sign_account)
        r->sign_account = r->cred->sign_account;
}

typedef struct sign_ctx {
    azure_client *c;
    const azure_request *rq;
    const resolved *res;
    const char *path; /* encoded, as sent */
} sign_ctx;

static fl_status build_headers(void *ctx, struct curl_slist **out, fl_error *err)
{
    const sign_ctx *sc = ctx;
    const azure_request *rq = sc->rq;
    char date[32];
    azure_rfc1123((int64_t)time(NULL), date);
    io_kv hs[24];
    size_t n = 0;
    if (rq->nheaders > 16)
        return fl_errorf(err, FL_EINVAL, "Azure: too many request headers");
    hs[n++] = (io_kv){"x-ms-date", date};
    hs[n++] = (io_kv){"x-ms-version", AZURE_API_VERSION};
    bool has_type = false;
    for (size_t i = 0; i < rq->nheaders; i++) {
        has_type |= strcmp(rq->headers[i].k, "content-type") == 0;
        hs[n++] = rq->headers[i];
    }
    if (!has_type && (strcmp(rq->method, "PUT") == 0 || strcmp(rq->method, "POST") == 0))
        hs[n++] = (io_kv){"content-type", "application/octet-stream"};
    bool oom = false;
    struct curl_slist *l = NULL;
    for (size_t i = 0; i < n; i++)
        l = io_http_header(l, &oom, hs[i].k, hs[i].v);
    fl_status rc = FL_OK;
    if (sc->res->auth == AUTH_KEY) {
        azure_sign_req sr = {rq->method, sc->res->sign_account, sc->path, rq->query, rq->nquery, hs,
                             n,          rq->body_len};
        char *auth = NULL;
        rc = azure_shared_key_sign(&sr, sc->res->cred->key, sc->res->cred->key_len, NULL, &auth,
                                   err);
        if (rc == FL_OK)
            l = io_http_header(l, &oom, "authorization", auth);
        free(auth);
    } else if (sc->res->auth == AUTH_BEARER) {
        char tok[8192], bearer[8200];
        rc = azure_token_get(sc->c->token, tok, sizeof tok, err);
        snprintf(bearer, sizeof bearer, "Bearer %s", rc == FL_OK ? tok : "");
        if (rc == FL_OK)
            l = io_http_header(l, &oom, "authorization", bearer);
    }
    if (rc == FL_OK && oom)
        rc = fl_errorf(err, FL_ENOMEM, "Azure: out of memory");
    if (rc != FL_OK) {
        curl_slist_free_all(l);
        return rc;
    }
    *out = l;
    return FL_OK;
}

static int query_cmp(const void *a, const void *b)
{
    return strcmp(((const io_kv *)a)->k, ((const io_kv *)b)->k);
}

fl_status azure_send(azure_client *c, const azure_request *rq, const char *where,
                     io_http_response *resp, fl_error *err)
{
    resolved res;
    resolve(c, rq->account, &res);
    io_sb path = {0}, url = {0};
    if (res.base)
        io_sb_printf(&path, "%s/", res.prefix);
    else
        io_sb_putn(&path, "/", 1);
    io_uri_encode(&path, rq->container, strlen(rq->container), false);
    if (rq->blob && *rq->blob) {
        io_sb_putn(&path, "/", 1);
        io_uri_encode(&path, rq->blob, strlen(rq->blob), true);
    }
    if (res.base)
        io_sb_printf(&url, "%s", res.base);
    else
        io_sb_printf(&url, "https://%s.blob.core.windows.net", rq->account);
    io_sb_puts(&url, path.buf.data ? path.buf.data : "/");
    io_kv q[16];
    size_t nq = rq->nquery < 16 ? rq->nquery : 16;
    if (nq) /* rq->query may be NULL when there is no query */
        memcpy(q, rq->query, nq * sizeof *q);
    qsort(q, nq, sizeof *q, query_cmp);
    for (size_t i = 0; i < nq; i++) {
        io_sb_putn(&url, i ? "&" : "?", 1);
        io_uri_encode(&url, q[i].k, strlen(q[i].k), false);
        io_sb_putn(&url, "=", 1);
        const char *v = q[i].v ? q[i].v : "";
        io_uri_encode(&url, v, strlen(v), false);
    }
    size_t shown_len = url.buf.len;
    if (res.auth == AUTH_SAS)
        io_sb_printf(&url, "%s%s", nq ? "&" : "?", res.cred->sas);
    fl_status rc;
    char *shown = url.oom ? NULL : strndup(url.buf.data, shown_len);
    if (path.oom || url.oom || !shown) {
        memset(resp, 0, sizeof *resp);
        rc = fl_errorf(err, FL_ENOMEM, "%s: out of memory", where);
    } else {
        sign_ctx sc = {c, rq, &res, path.buf.data};
        io_http_request hr = {.method = rq->method,
                              .url = url.buf.data,
                              .url_display = shown,
                              .headers = build_headers,
                              .headers_ctx = &sc,
                              .body = rq->body,
                              .body_len = rq->body_len,
                              .out = rq->out,
                              .out_cap = rq->out_cap,
                              .max_body = rq->max_body};
        rc = io_http_send(c->http, &hr, where, resp, err);
    }
    free(shown);
    io_sb_free(&path);
    io_sb_free(&url);
    return rc;
}

/* The value of name= in a SAS token ("" when absent), decoded enough for
 * dates ("%3A" -> ':'). */
static void sas_field(const char *sas, const char *name, char *out, size_t cap)
{
    out[0] = '\0';
    size_t nl = strlen(name);
    for (const char *p = sas; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL) {
        if (strncmp(p, name, nl) != 0 || p[nl] != '=')
            continue;
        const char *v = p + nl + 1;
        size_t o = 0;
        for (; *v && *v != '&' && o + 1 < cap; v++) {
            if (v[0] == '%' && v[1] == '3' && (v[2] == 'A' || v[2] == 'a')) {
                out[o++] = ':';
                v += 2;
            } else {
                out[o++] = *v;
            }
        }
        out[o] = '\0';
        return;
    }
}

/* "2026-12-03T08:00:00Z" (seconds optional) as a UTC time; -1 when unparsable. */
static int64_t iso_time(const char *s)
{
    struct tm tm = {0};
    int n = sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                   &tm.tm_min, &tm.tm_sec);
    if (n < 5)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (int64_t)timegm(&tm);
}

/* Appends a hint to err's message, keeping its code. */
static void hint(fl_error *err, fl_status rc, const char *text)
{
    char msg[FL_ERROR_MSG_MAX];
    snprintf(msg, sizeof msg, "%s", err->msg);
    fl_errorf(err, rc, "%s (%s)", msg, text);
}

fl_status azure_http_error(azure_client *c, const io_http_response *r, const char *acct,
                           const char *where, const char *what, fl_error *err)
{
    fl_status rc = io_http_error(r, where, what, err);
    if (r->status != 403 || !err)
        return rc;
    resolved res;
    resolve(c, acct, &res);
    char se[64], text[200];
    if (res.auth == AUTH_SAS) {
        sas_field(res.cred->sas, "se", se, sizeof se);
        int64_t t = iso_time(se);
        if (t >= 0 && t <= (int64_t)time(NULL))
            snprintf(text, sizeof text, "the SAS token expired at %s", se);
        else
            snprintf(text, sizeof text,
                     "the SAS token was refused: check its signature, permissions sp= and "
                     "expiry se=");
    } else if (res.auth == AUTH_KEY) {
        snprintf(text, sizeof text, "Shared Key for account '%s': check the account key",
                 res.sign_account);
    } else if (res.auth == AUTH_BEARER) {
        snprintf(text, sizeof text, "OAuth2 bearer token: check the principal's role assignment");
    } else {
        snprintf(text, sizeof text, "no credentials configured for account '%s'", acct);
    }
    hint(err, rc, text);
    return rc;
}
