/*
 * auth.c - fl_auth (include/floe/auth.h): opening, the OAuth2 client
 * credentials exchange, authenticating a request, checking a password-style
 * secret, and authorizing an action.
 *
 * Locking: a->lock guards the store connection and the cached snapshot.
 * Every check takes it, re-reads the store's version counter and reloads
 * the snapshot if it moved (auth_refresh_locked), then answers from memory.
 * The expensive parts - PBKDF2 on a presented secret, HMAC on a token -
 * run outside the lock on copies, so a burst of token requests never
 * blocks request authorization.
 *
 * Timing: a token request for an unknown client runs PBKDF2 against a
 * fixed dummy verifier, so the response time does not reveal whether a
 * principal exists; messages never say whether the id or the secret was
 * wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "auth/auth_internal.h"

/* Verifier of the secret "not-a-real-secret" (tests check it independently). */
#define DUMMY_VERIFIER                                                                             \
    "SCRAM-SHA-256$4096:ZmxvZS1kdW1teS1zYWx0IQ==$GL9b7DyA8+FER3DRWd70ZVAKTbiLWCN5DfiAD4/FpUo=:"    \
    "PE0Ntn0gchZQiTZsGfVU8MCoDObvZ340Yjax3+RgkVk="
#define TTL_DEFAULT 3600
#define TTL_MAX (7 * 86400)

static const char *const PRIV_NAMES[] = {"read", "write", "create", "drop", "manage-grants"};

const char *fl_privilege_name(fl_privilege p)
{
    for (int i = 0; i < 5; i++)
        if (p == (fl_privilege)(1 << i))
            return PRIV_NAMES[i];
    return "unknown";
}

fl_privilege fl_privilege_parse(const char *s)
{
    if (!s)
        return 0;
    for (int i = 0; i < 5; i++)
        if (!strcasecmp(s, PRIV_NAMES[i]))
            return (fl_privilege)(1 << i);
    if (!strcasecmp(s, "manage_grants"))
        return FL_PRIV_MANAGE_GRANTS;
    return 0;
}

static int64_t now_s(void)
{
    return (int64_t)time(NULL);
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    return ms ? ms : 1;
}

fl_status auth_refresh_locked(fl_auth *a, fl_error *err)
{
    if (!a->store)
        return fl_errorf(err, FL_EINVAL, "auth: no store configured (anonymous mode)");
    int64_t v = 0; /* one autocommit single-row read: the hot path of every check */
    FL_TRY(auth_store_version(a->store, &v, err));
    if (a->have_snap && v == a->snap.version)
        return FL_OK;
    auth_snapshot fresh;
    FL_TRY(auth_snapshot_load(a->store, &fresh, err));
    if (a->have_snap)
        auth_snapshot_free(&a->snap);
    a->snap = fresh;
    a->have_snap = true;
    return FL_OK;
}

static fl_status check_statics_exist(fl_auth *a, fl_error *err)
{
    if (!a->nstatics)
        return FL_OK;
    if (!a->store)
        return fl_errorf(err, FL_EINVAL, "static tokens need an auth store");
    pthread_mutex_lock(&a->lock);
    fl_status rc = auth_refresh_locked(a, err);
    for (uint32_t i = 0; rc == FL_OK && i < a->nstatics; i++)
        if (!auth_snapshot_find(&a->snap, a->statics[i].principal))
            rc = fl_errorf(err, FL_EINVAL, "static token %u: no principal '%s'", i + 1,
                           a->statics[i].principal);
    pthread_mutex_unlock(&a->lock);
    return rc;
}

fl_status fl_auth_open(const fl_auth_options *opt, fl_auth **out, fl_error *err)
{
    *out = NULL;
    if (!opt)
        return fl_errorf(err, FL_EINVAL, "auth: no options");
    if (!opt->store_uri && !opt->allow_anonymous)
        return fl_errorf(err, FL_EINVAL,
                         "auth: a store URI is required unless anonymous "
                         "access is explicitly allowed");
    if (opt->token_ttl_seconds < 0 || opt->token_ttl_seconds > TTL_MAX)
        return fl_errorf(err, FL_EINVAL, "auth: token TTL %d s outside 1..%d",
                         opt->token_ttl_seconds, TTL_MAX);
    fl_auth *a = calloc(1, sizeof *a);
    if (!a)
        return fl_errorf(err, FL_ENOMEM, "auth: out of memory");
    pthread_mutex_init(&a->lock, NULL);
    pthread_mutex_init(&a->audit_lock, NULL);
    a->audit_fd = -1;
    a->ttl = opt->token_ttl_seconds ? opt->token_ttl_seconds : TTL_DEFAULT;
    a->anonymous = opt->allow_anonymous;
    fl_status rc = FL_OK;
    if (opt->store_uri)
        rc = auth_store_open(opt->store_uri, &a->store, a->key, err);
    if (rc == FL_OK)
        rc = auth_statics_parse(opt->static_tokens, opt->nstatic_tokens, &a->statics, err);
    if (rc == FL_OK)
        a->nstatics = opt->nstatic_tokens;
    if (rc == FL_OK)
        rc = check_statics_exist(a, err);
    if (rc == FL_OK)
        rc = auth_audit_open(a, opt->audit_log_path, err);
    if (rc == FL_OK)
        rc = auth_throttle_new(a, opt->login_max_failures, opt->login_window_s, err);
    if (rc != FL_OK) {
        fl_auth_close(a);
        return rc;
    }
    *out = a;
    return FL_OK;
}

void fl_auth_close(fl_auth *a)
{
    if (!a)
        return;
    if (a->store)
        a->store->close(a->store);
    if (a->have_snap)
        auth_snapshot_free(&a->snap);
    if (a->audit_fd >= 0)
        close(a->audit_fd);
    free(a->audit_path);
    auth_throttle_free(a);
    free(a->statics);
    OPENSSL_cleanse(a->key, sizeof a->key);
    pthread_mutex_destroy(&a->lock);
    pthread_mutex_destroy(&a->audit_lock);
    free(a);
}

/* Copies the verifier and generation of name (under the lock). found=false
 * when there is no such principal; the dummy verifier is copied then. */
static fl_status lookup(fl_auth *a, const char *name, char *verifier, int64_t *gen, bool *admin,
                        bool *found, fl_error *err)
{
    *found = false;
    snprintf(verifier, AUTH_VERIFIER_MAX, "%s", DUMMY_VERIFIER);
    pthread_mutex_lock(&a->lock);
    fl_status rc = auth_refresh_locked(a, err);
    const auth_pr *pr =
        rc == FL_OK && auth_name_valid(name) ? auth_snapshot_find(&a->snap, name) : NULL;
    if (pr && strlen(pr->verifier) < AUTH_VERIFIER_MAX) {
        snprintf(verifier, AUTH_VERIFIER_MAX, "%s", pr->verifier);
        *gen = pr->gen;
        *admin = pr->admin;
        *found = true;
    }
    pthread_mutex_unlock(&a->lock);
    return rc;
}

static fl_status verify_secret(fl_auth *a, const char *name, const char *secret, int64_t *gen,
                               bool *admin, fl_error *err)
{
    char verifier[AUTH_VERIFIER_MAX];
    bool found = false;
    FL_TRY(lookup(a, name, verifier, gen, admin, &found, err));
    bool ok = auth_verifier_check(verifier, secret ? secret : "");
    OPENSSL_cleanse(verifier, sizeof verifier);
    if (!found || !ok)
        return fl_errorf(err, FL_EUNAUTHENTICATED, "invalid client credentials");
    return FL_OK;
}

static fl_status sign_for(fl_auth *a, const char *name, int64_t gen, int ttl, const char *aud,
                          char **token, fl_error *err)
{
    auth_claims c = {0};
    snprintf(c.sub, sizeof c.sub, "%s", name);
    snprintf(c.aud, sizeof c.aud, "%s", aud ? aud : "");
    int64_t now = now_s();
    c.exp = now + ttl;
    c.iat = ttl > 0 ? now : c.exp - 60;
    c.gen = gen;
    return auth_jwt_sign(a->key, &c, token, err);
}

fl_status fl_auth_token_issue(fl_auth *a, const char *client_id, const char *client_secret,
                              char **token, int *expires_in, fl_error *err)
{
    return fl_auth_token_issue_for(a, client_id, client_secret, NULL, token, expires_in, err);
}

/* An audience floe mints: an absolute http(s) URI without a fragment (RFC 8707 section 2). */
static bool resource_valid(const char *r)
{
    size_t n = strlen(r);
    if (n >= AUTH_AUD_MAX || strchr(r, '#') || (strncmp(r, "http://", 7) && strncmp(r, "https://", 8)))
        return false;
    for (const char *p = r; *p; p++)
        if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
            return false;
    return true;
}

fl_status fl_auth_token_issue_for(fl_auth *a, const char *client_id, const char *client_secret,
                                  const char *resource, char **token, int *expires_in,
                                  fl_error *err)
{
    *token = NULL;
    if (resource && !resource_valid(resource))
        return fl_errorf(err, FL_EINVAL,
                         "resource must be an absolute http(s) URI without a fragment, at most %d "
                         "bytes",
                         AUTH_AUD_MAX - 1);
    if (!a->store)
        return fl_errorf(err, FL_EINVAL, "auth: token endpoint needs an auth store");
    int64_t gen = 0;
    bool admin = false;
    FL_TRY(verify_secret(a, client_id, client_secret, &gen, &admin, err));
    FL_TRY(sign_for(a, client_id, gen, a->ttl, resource, token, err));
    if (expires_in)
        *expires_in = a->ttl;
    return FL_OK;
}

fl_status fl_auth_token_mint(fl_auth *a, const char *principal, int ttl_seconds, char **token,
                             fl_error *err)
{
    *token = NULL;
    char verifier[AUTH_VERIFIER_MAX];
    int64_t gen = 0;
    bool admin = false, found = false;
    if (ttl_seconds == 0 || ttl_seconds > TTL_MAX || ttl_seconds < -TTL_MAX)
        return fl_errorf(err, FL_EINVAL, "token TTL %d s outside -%d..%d (not 0)", ttl_seconds,
                         TTL_MAX, TTL_MAX);
    FL_TRY(lookup(a, principal, verifier, &gen, &admin, &found, err));
    if (!found)
        return fl_errorf(err, FL_ENOTFOUND, "no principal '%.128s'", principal);
    return sign_for(a, principal, gen, ttl_seconds, NULL, token, err);
}

static void anonymous(fl_principal *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "anonymous");
    out->admin = true;
    out->anonymous = true;
}

/* With a token (static or JWT) resolved to name/gen: is the principal still
 * there (and the token of its current generation)? */
static fl_status resolve(fl_auth *a, const char *name, bool check_gen, int64_t gen,
                         fl_principal *out, fl_error *err)
{
    pthread_mutex_lock(&a->lock);
    fl_status rc = auth_refresh_locked(a, err);
    const auth_pr *pr = rc == FL_OK ? auth_snapshot_find(&a->snap, name) : NULL;
    if (rc == FL_OK && !pr)
        rc = fl_errorf(err, FL_EUNAUTHENTICATED,
                       "bearer token names principal '%s', which no "
                       "longer exists",
                       name);
    else if (rc == FL_OK && check_gen && pr->gen != gen)
        rc = fl_errorf(err, FL_EUNAUTHENTICATED,
                       "bearer token revoked (principal '%s' was re-created or its secret "
                       "rotated)",
                       name);
    if (rc == FL_OK) {
        memset(out, 0, sizeof *out);
        snprintf(out->name, sizeof out->name, "%s", pr->name);
        out->admin = pr->admin;
        out->checked_ms = mono_ms();
    }
    pthread_mutex_unlock(&a->lock);
    return rc;
}

fl_status fl_auth_authenticate(fl_auth *a, const char *authorization, fl_principal *out,
                               fl_error *err)
{
    return fl_auth_authenticate_for(a, authorization, NULL, out, err);
}

fl_status fl_auth_authenticate_for(fl_auth *a, const char *authorization, const char *resource,
                                   fl_principal *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    if ((!authorization || !*authorization) && a->anonymous) {
        anonymous(out);
        return FL_OK;
    }
    if (!authorization || !*authorization)
        return fl_errorf(err, FL_EUNAUTHENTICATED, "missing Authorization header");
    if (a->anonymous && !a->store) {
        anonymous(out);
        return FL_OK;
    }
    const char *p = authorization;
    if (strncasecmp(p, "Bearer", 6) != 0 || (p[6] != ' ' && p[6] != '\t'))
        return fl_errorf(err, FL_EUNAUTHENTICATED, "Authorization scheme must be Bearer");
    p += 6;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t n = strlen(p);
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    if (n == 0)
        return fl_errorf(err, FL_EUNAUTHENTICATED, "empty bearer token");
    if (n > AUTH_TOKEN_MAX)
        return fl_errorf(err, FL_EUNAUTHENTICATED, "bearer token longer than %d bytes",
                         AUTH_TOKEN_MAX);
    const char *st = auth_statics_match(a->statics, a->nstatics, p, n);
    if (st)
        return resolve(a, st, false, 0, out, err);
    auth_claims c;
    FL_TRY(auth_jwt_verify(a->key, p, n, now_s(), &c, err));
    if (c.aud[0] && (!resource || strcmp(c.aud, resource))) /* RFC 8707: for one resource only */
        return fl_errorf(err, FL_EUNAUTHENTICATED, "bearer token is for %s, not %s", c.aud,
                         resource ? resource : "this endpoint");
    return resolve(a, c.sub, true, c.gen, out, err);
}

fl_status fl_auth_check_secret(fl_auth *a, const char *principal, const char *secret,
                               fl_principal *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    if (!a->store)
        return fl_errorf(err, FL_EINVAL, "auth: password check needs an auth store");
    int64_t gen = 0;
    bool admin = false;
    FL_TRY(verify_secret(a, principal, secret, &gen, &admin, err));
    snprintf(out->name, sizeof out->name, "%s", principal);
    out->admin = admin;
    out->checked_ms = mono_ms();
    return FL_OK;
}

fl_status fl_auth_scram_lookup(fl_auth *a, const char *principal, fl_auth_scram *out,
                               fl_principal *p, fl_error *err)
{
    memset(out, 0, sizeof *out);
    memset(p, 0, sizeof *p);
    if (!a->store)
        return fl_errorf(err, FL_EINVAL, "auth: SCRAM needs an auth store");
    char verifier[AUTH_VERIFIER_MAX];
    int64_t gen = 0;
    bool admin = false, found = false;
    FL_TRY(lookup(a, principal, verifier, &gen, &admin, &found, err));
    if (!found)
        return fl_errorf(err, FL_EUNAUTHENTICATED, "invalid credentials");
    FL_TRY(auth_verifier_parse(verifier, out, err));
    snprintf(p->name, sizeof p->name, "%s", principal);
    p->admin = admin;
    return FL_OK;
}

static const char *describe(const fl_namespace *ns, const char *object, fl_arena *ar)
{
    if (!ns || ns->nlevels == 0)
        return "the catalog";
    const char *s = fl_namespace_str(ns, ar);
    if (!s)
        return "?";
    return object ? fl_arena_sprintf(ar, "table '%s.%s'", s, object)
                  : fl_arena_sprintf(ar, "namespace '%s'", s);
}

fl_status fl_auth_authorize(fl_auth *a, const fl_principal *p, fl_privilege priv,
                            const fl_namespace *ns, const char *object, fl_error *err)
{
    if (!p)
        return fl_errorf(err, FL_EINVAL, "authorize: no principal");
    if (!strcmp(fl_privilege_name(priv), "unknown"))
        return fl_errorf(err, FL_EINVAL, "authorize: unknown privilege %d", (int)priv);
    if ((!ns || ns->nlevels == 0) && object)
        return fl_errorf(err, FL_EINVAL, "authorize: a table needs a namespace");
    if (p->anonymous) {
        if (a->anonymous)
            return FL_OK;
        return fl_errorf(err, FL_EFORBIDDEN, "anonymous access is not enabled");
    }
    pthread_mutex_lock(&a->lock);
    int64_t age = mono_ms() - p->checked_ms;
    bool fresh = p->checked_ms > 0 && age >= 0 && age < FL_AUTH_RECHECK_MS && a->have_snap;
    fl_status rc = fresh ? FL_OK : auth_refresh_locked(a, err);
    const auth_pr *pr = rc == FL_OK ? auth_snapshot_find(&a->snap, p->name) : NULL;
    bool ok = pr && (pr->admin || auth_snapshot_allows(&a->snap, pr, priv, ns, object));
    pthread_mutex_unlock(&a->lock);
    if (rc != FL_OK || ok)
        return rc;
    fl_arena ar;
    fl_arena_init(&ar, 1024);
    if (!pr)
        rc = fl_errorf(err, FL_EFORBIDDEN, "principal '%s' no longer exists", p->name);
    else
        rc = fl_errorf(err, FL_EFORBIDDEN, "principal '%s' lacks privilege '%s' on %.600s", p->name,
                       fl_privilege_name(priv), describe(ns, object, &ar));
    fl_arena_free(&ar);
    return rc;
}

fl_status fl_auth_visible(fl_auth *a, const fl_principal *p, const fl_namespace *ns,
                          const char *object, bool *visible, fl_error *err)
{
    *visible = false;
    if (!p)
        return fl_errorf(err, FL_EINVAL, "visible: no principal");
    if ((!ns || ns->nlevels == 0) && object)
        return fl_errorf(err, FL_EINVAL, "visible: a table needs a namespace");
    if (p->anonymous) {
        *visible = a->anonymous;
        return FL_OK;
    }
    pthread_mutex_lock(&a->lock);
    int64_t age = mono_ms() - p->checked_ms;
    bool fresh = p->checked_ms > 0 && age >= 0 && age < FL_AUTH_RECHECK_MS && a->have_snap;
    fl_status rc = fresh ? FL_OK : auth_refresh_locked(a, err);
    const auth_pr *pr = rc == FL_OK ? auth_snapshot_find(&a->snap, p->name) : NULL;
    if (pr)
        *visible = pr->admin || auth_snapshot_visible(&a->snap, pr, ns, object);
    pthread_mutex_unlock(&a->lock);
    return rc;
}
