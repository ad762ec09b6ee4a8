/*
 * rest_auth.c - bearer tokens for the REST catalog client.
 *
 *   - static token (fl_rest_options.token / FLOE_REST_TOKEN / ?token=): sent
 *     as "Authorization: Bearer T" on every request, never refreshed;
 *   - OAuth2 client credentials (RFC 6749 4.4; credential "id:secret"):
 *     POST <token endpoint> with application/x-www-form-urlencoded
 *     grant_type=client_credentials&client_id=..&client_secret=..&scope=..
 *     (the endpoint is oauth2-server-uri, else <uri>/v1/oauth/tokens as the
 *     spec's deprecated endpoint and Java's client default). The answer is
 *     an OAuthTokenResponse; the token is refreshed (a new client-credentials
 *     grant, which every server supports, rather than the deprecated token
 *     exchange) when less than 10% of its expires_in (at most 5 minutes)
 *     remains, and after a 401/419 answer (rest.c retries that request once).
 *
 * Secrets never appear in error messages. Strings are malloc'd, freed by
 * rest_auth_free.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog/rest_internal.h"

int64_t rest_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void rest_auth_free(rest_auth *a)
{
    free(a->token);
    free(a->client_id);
    if (a->client_secret)
        memset(a->client_secret, 0, strlen(a->client_secret));
    free(a->client_secret);
    free(a->token_uri);
    free(a->scope);
    memset(a, 0, sizeof *a);
}

bool rest_auth_invalidate(rest_auth *a)
{
    if (a->is_static || !a->client_id)
        return false;
    free(a->token);
    a->token = NULL;
    return true;
}

/* "k=v" form field appended to buf (escaped). */
static bool form_add(CURL *c, char **buf, size_t *len, const char *k, const char *v)
{
    char *e = curl_easy_escape(c, v, 0);
    if (!e)
        return false;
    size_t add = strlen(k) + strlen(e) + 2;
    char *nb = realloc(*buf, *len + add + 1);
    if (!nb) {
        curl_free(e);
        return false;
    }
    *len += (size_t)sprintf(nb + *len, "%s%s=%s", *len ? "&" : "", k, e);
    *buf = nb;
    curl_free(e);
    return true;
}

static fl_status fetch(rest_auth *a, rest_http *h, fl_error *err)
{
    char *body = NULL;
    size_t len = 0;
    bool ok = form_add(h->curl, &body, &len, "grant_type", "client_credentials") &&
              form_add(h->curl, &body, &len, "client_id", a->client_id) &&
              form_add(h->curl, &body, &len, "client_secret", a->client_secret) &&
              form_add(h->curl, &body, &len, "scope", a->scope ? a->scope : "catalog");
    if (!ok) {
        free(body);
        return fl_errorf(err, FL_ENOMEM, "OAuth2: out of memory");
    }
    rest_request rq = {.method = "POST",
                       .url = a->token_uri,
                       .body = body,
                       .body_len = len,
                       .content_type = "application/x-www-form-urlencoded",
                       .retry = true}; /* a token grant has no side effects */
    rest_response r;
    int64_t t0 = rest_now_ms();
    fl_status rc = rest_http_do(h, &rq, &r, err);
    memset(body, 0, len);
    free(body);
    if (rc != FL_OK)
        return fl_error_prefix(err, "OAuth2 token request");
    fl_arena ar;
    fl_arena_init(&ar, 0);
    if (r.status != 200) {
        const char *type = NULL, *msg = NULL;
        fl_rest_error_parse(r.body, r.len, &ar, &type, &msg);
        rc = fl_errorf(err, r.status == 400 || r.status == 401 ? FL_EUNAUTHENTICATED : FL_EIO,
                       "OAuth2 token request to %s for client '%s': HTTP %ld%s%s%s%s", a->token_uri,
                       a->client_id, r.status, type ? " " : "", type ? type : "", msg ? ": " : "",
                       msg ? msg : "");
    } else {
        fl_rest_token tok;
        rc = fl_rest_token_parse(r.body, r.len, &ar, &tok, err);
        if (rc == FL_OK) {
            char *t = strdup(tok.access_token);
            if (!t) {
                rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            } else {
                free(a->token);
                a->token = t;
                a->obtained_ms = t0;
                a->expires_ms = tok.expires_in > 0 ? t0 + tok.expires_in * 1000 : 0;
            }
        } else {
            fl_error_prefix(err, "OAuth2 token response from %s", a->token_uri);
        }
    }
    fl_arena_free(&ar);
    rest_response_free(&r);
    return rc;
}

static bool needs_refresh(const rest_auth *a, int64_t now)
{
    if (!a->token)
        return true;
    if (!a->expires_ms)
        return false;
    int64_t life = a->expires_ms - a->obtained_ms;
    int64_t margin = life / 10;
    if (margin > 300000)
        margin = 300000;
    return now >= a->expires_ms - margin;
}

fl_status rest_auth_bearer(rest_auth *a, rest_http *h, const char **out, fl_error *err)
{
    *out = NULL;
    if (a->is_static || !a->client_id) {
        *out = a->token;
        return FL_OK;
    }
    if (needs_refresh(a, rest_now_ms()))
        FL_TRY(fetch(a, h, err));
    *out = a->token;
    return FL_OK;
}
