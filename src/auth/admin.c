/*
 * admin.c - principal, role and grant administration (the functions under
 * "administration" in include/floe/auth.h) and the listings.
 *
 * Every mutation runs as one write transaction that first bumps the store's
 * version counter (auth_store_bump: serializes mutations across processes
 * and invalidates every cached snapshot), then checks existence and writes.
 * Secrets are generated and hashed (PBKDF2) before the lock is taken.
 * Cascades: dropping a principal deletes its role memberships; dropping a
 * role deletes its memberships, grants and policies (policy.c). A principal's token generation
 * is set to the new version on create and rotate, so tokens minted before
 * (including for a dropped principal of the same name) stop verifying.
 * Granting twice is a no-op; revoking what was not granted is FL_ENOTFOUND.
 * Dropping a role also deletes its resource ceilings (limits.c).
 * The built-in role "admin" cannot be dropped or given grants.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>

#include "auth/auth_internal.h"

fl_status auth_mutate(fl_auth *a, auth_mut_fn fn, void *ctx, fl_error *err)
{
    if (!a->store)
        return fl_errorf(err, FL_EINVAL, "auth: no store configured");
    pthread_mutex_lock(&a->lock);
    auth_store *s = a->store;
    int64_t v = 0;
    fl_status rc = s->begin(s, true, err);
    if (rc == FL_OK)
        rc = auth_store_bump(s, &v, err);
    if (rc == FL_OK)
        rc = fn(s, ctx, v, err);
    if (rc == FL_OK)
        rc = s->commit(s, err);
    if (rc != FL_OK)
        s->rollback(s);
    pthread_mutex_unlock(&a->lock);
    return rc;
}

/* Does `SELECT 1 FROM table WHERE name = ?` find a row? */
static fl_status exists(auth_store *s, const char *sql, const char *name, bool *found,
                        fl_error *err)
{
    fl_arena ar;
    fl_arena_init(&ar, 256);
    auth_rows r;
    const char *p[1] = {name};
    fl_status rc = s->exec(s, sql, p, 1, &ar, &r, NULL, err);
    *found = rc == FL_OK && r.nrows > 0;
    fl_arena_free(&ar);
    return rc;
}

#define Q_PR_EXISTS "SELECT 1 FROM floe_auth_principals WHERE name = ?"
#define Q_ROLE_EXISTS "SELECT 1 FROM floe_auth_roles WHERE name = ?"

static fl_status need(auth_store *s, const char *sql, const char *name, const char *what,
                      fl_error *err)
{
    bool found = false;
    FL_TRY(exists(s, sql, name, &found, err));
    return found ? FL_OK : fl_errorf(err, FL_ENOTFOUND, "no %s '%s'", what, name);
}

/* ---- principals ---- */

typedef struct pr_ctx {
    const char *name;
    const char *verifier;
    bool admin;
} pr_ctx;

static fl_status do_create(auth_store *s, void *ctx, int64_t v, fl_error *err)
{
    pr_ctx *c = ctx;
    char gen[24], now[24];
    snprintf(gen, sizeof gen, "%" PRId64, v);
    snprintf(now, sizeof now, "%" PRId64, (int64_t)time(NULL));
    const char *p[4] = {c->name, c->verifier, gen, now};
    fl_status rc = auth_store_exec1(s,
                                    "INSERT INTO floe_auth_principals(name, secret_hash, "
                                    "token_gen, created_at) VALUES (?, ?, ?, ?)",
                                    p, 4, NULL, err);
    if (rc == FL_EEXIST)
        return fl_errorf(err, FL_EEXIST, "principal '%s' already exists", c->name);
    FL_TRY(rc);
    FL_TRY(auth_store_exec1(s, "DELETE FROM floe_auth_principal_roles WHERE principal = ?", p, 1,
                            NULL, err)); /* leftovers of an older principal of that name */
    const char *pa[2] = {c->name, "admin"};
    if (c->admin)
        FL_TRY(auth_store_exec1(
            s, "INSERT INTO floe_auth_principal_roles(principal, role) VALUES (?, ?)", pa, 2, NULL,
            err));
    return FL_OK;
}

static fl_status do_rotate(auth_store *s, void *ctx, int64_t v, fl_error *err)
{
    pr_ctx *c = ctx;
    char gen[24];
    snprintf(gen, sizeof gen, "%" PRId64, v);
    const char *p[3] = {c->verifier, gen, c->name};
    uint64_t n = 0;
    FL_TRY(auth_store_exec1(
        s, "UPDATE floe_auth_principals SET secret_hash = ?, token_gen = ? WHERE name = ?", p, 3,
        &n, err));
    return n ? FL_OK : fl_errorf(err, FL_ENOTFOUND, "no principal '%s'", c->name);
}

static fl_status do_drop(auth_store *s, void *ctx, int64_t v, fl_error *err)
{
    (void)v;
    pr_ctx *c = ctx;
    const char *p[1] = {c->name};
    uint64_t n = 0;
    FL_TRY(auth_store_exec1(s, "DELETE FROM floe_auth_principal_roles WHERE principal = ?", p, 1,
                            NULL, err));
    FL_TRY(auth_store_exec1(s, "DELETE FROM floe_auth_principals WHERE name = ?", p, 1, &n, err));
    return n ? FL_OK : fl_errorf(err, FL_ENOTFOUND, "no principal '%s'", c->name);
}

static fl_status with_secret(fl_auth *a, const char *name, bool admin, char *secret_out, size_t cap,
                             auth_mut_fn fn, fl_error *err)
{
    if (!auth_name_valid(name))
        return fl_errorf(err, FL_EINVAL,
                         "bad principal name '%.128s' (1-127 of A-Z a-z 0-9 . _ - @ +)",
                         name ? name : "");
    char verifier[AUTH_VERIFIER_MAX];
    FL_TRY(auth_secret_new(secret_out, cap, err));
    fl_status rc = auth_verifier_make(secret_out, verifier, sizeof verifier, err);
    pr_ctx c = {name, verifier, admin};
    if (rc == FL_OK)
        rc = auth_mutate(a, fn, &c, err);
    if (rc != FL_OK)
        OPENSSL_cleanse(secret_out, cap);
    return rc;
}

fl_status fl_auth_principal_create(fl_auth *a, const char *name, bool admin, char *secret_out,
                                   size_t secret_cap, fl_error *err)
{
    return with_secret(a, name, admin, secret_out, secret_cap, do_create, err);
}

fl_status fl_auth_principal_rotate(fl_auth *a, const char *name, char *secret_out,
                                   size_t secret_cap, fl_error *err)
{
    return with_secret(a, name, false, secret_out, secret_cap, do_rotate, err);
}

fl_status fl_auth_principal_drop(fl_auth *a, const char *name, fl_error *err)
{
    pr_ctx c = {name, NULL, false};
    return auth_mutate(a, do_drop, &c, err);
}

/* ---- roles ---- */

static fl_status do_role_create(auth_store *s, void *ctx, int64_t v, fl_error *err)
{
    (void)v;
    const char *p[1] = {ctx};
    fl_status rc =
        auth_store_exec1(s, "INSERT INTO floe_auth_roles(name) VALUES (?)", p, 1, NULL, err);
    if (rc == FL_EEXIST)
        return fl_errorf(err, FL_EEXIST, "role '%s' already exists", (const char *)ctx);
    return rc;
}

static fl_status do_role_drop(auth_store *s, void *ctx, int64_t v, fl_error *err)
{
    (void)v;
    const char *p[1] = {ctx};
    uint64_t n = 0;
    FL_TRY(auth_store_exec1(s, "DELETE FROM floe_auth_grants WHERE role = ?", p, 1, NULL, err));
    FL_TRY(auth_store_exec1(s, "DELETE FROM floe_auth_policies WHERE role = ?", p, 1, NULL, err));
    FL_TRY(
        auth_store_exec1(s, "DELETE FROM floe_auth_role_limits WHERE role = ?", p, 1, NULL, err));
    FL_TRY(auth_store_exec1(s, "DELETE FROM floe_auth_principal_roles WHERE role = ?", p, 1, NULL,
                            err));
    FL_TRY(auth_store_exec1(s, "DELETE FROM floe_auth_roles WHERE name = ?", p, 1, &n, err));
    return n ? FL_OK : fl_errorf(err, FL_ENOTFOUND, "no role '%s'", (const char *)ctx);
}

static fl_status check_role_name(const char *role, fl_error *err)
{
    if (!auth_name_valid(role))
        return fl_errorf(err, FL_EINVAL, "bad role name '%.128s' (1-127 of A-Z a-z 0-9 . _ - @ +)",
                         role ? role : "");
    return FL_OK;
}

fl_status fl_auth_role_create(fl_auth *a, const char *role, fl_error *err)
{
    FL_TRY(check_role_name(role, err));
    return auth_mutate(a, do_role_create, (void *)role, err);
}

fl_status fl_auth_role_drop(fl_auth *a, const char *role, fl_error *err)
{
    FL_TRY(check_role_name(role, err));
    if (!strcmp(role, "admin"))
        return fl_errorf(err, FL_EINVAL, "the built-in role 'admin' cannot be dropped");
    return auth_mutate(a, do_role_drop, (void *)role, err);
}

typedef struct assign_ctx {
    const char *principal, *role;
    bool assign;
} assign_ctx;

static fl_status do_assign(auth_store *s, void *ctx, int64_t v, fl_error *err)
{
    (void)v;
    assign_ctx *c = ctx;
    FL_TRY(need(s, Q_PR_EXISTS, c->principal, "principal", err));
    FL_TRY(need(s, Q_ROLE_EXISTS, c->role, "role", err));
    const char *p[2] = {c->principal, c->role};
    if (c->assign)
        return auth_store_exec1(s,
                                "INSERT INTO floe_auth_principal_roles(principal, role) VALUES "
                                "(?, ?) ON CONFLICT DO NOTHING",
                                p, 2, NULL, err);
    uint64_t n = 0;
    FL_TRY(auth_store_exec1(
        s, "DELETE FROM floe_auth_principal_roles WHERE principal = ? AND role = ?", p, 2, &n,
        err));
    return n ? FL_OK
             : fl_errorf(err, FL_ENOTFOUND, "principal '%s' does not hold role '%s'", c->principal,
                         c->role);
}

fl_status fl_auth_role_assign(fl_auth *a, const char *principal, const char *role, bool assign,
                              fl_error *err)
{
    FL_TRY(check_role_name(role, err));
    if (!auth_name_valid(principal))
        return fl_errorf(err, FL_EINVAL, "bad principal name '%.128s'", principal ? principal : "");
    assign_ctx c = {principal, role, assign};
    return auth_mutate(a, do_assign, &c, err);
}

/* ---- grants ---- */

typedef struct grant_ctx {
    const char *role, *priv, *kind, *ns, *object, *desc;
    bool grant;
} grant_ctx;

static fl_status do_grant(auth_store *s, void *ctx, int64_t v, fl_error *err)
{
    (void)v;
    grant_ctx *c = ctx;
    FL_TRY(need(s, Q_ROLE_EXISTS, c->role, "role", err));
    const char *p[5] = {c->role, c->priv, c->kind, c->ns, c->object};
    if (c->grant)
        return auth_store_exec1(s,
                                "INSERT INTO floe_auth_grants(role, privilege, kind, namespace, "
                                "object) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                                p, 5, NULL, err);
    uint64_t n = 0;
    FL_TRY(auth_store_exec1(s,
                            "DELETE FROM floe_auth_grants WHERE role = ? AND privilege = ? AND "
                            "kind = ? AND namespace = ? AND object = ?",
                            p, 5, &n, err));
    return n ? FL_OK
             : fl_errorf(err, FL_ENOTFOUND, "role '%s' has no grant of '%s' on %s", c->role,
                         c->priv, c->desc);
}

fl_status fl_auth_grant(fl_auth *a, const char *role, fl_privilege priv, const fl_namespace *ns,
                        const char *object, bool grant, fl_error *err)
{
    FL_TRY(check_role_name(role, err));
    if (!strcmp(role, "admin"))
        return fl_errorf(err, FL_EINVAL,
                         "the built-in role 'admin' already holds every "
                         "privilege; its grants cannot change");
    if (!strcmp(fl_privilege_name(priv), "unknown"))
        return fl_errorf(err, FL_EINVAL, "unknown privilege %d", (int)priv);
    fl_arena ar;
    fl_arena_init(&ar, 1024);
    int kind = 0;
    const char *joined = NULL;
    fl_status rc = auth_sec_encode(ns, object, &ar, &kind, &joined, err);
    if (rc == FL_OK) {
        const char *nss = kind == AUTH_SEC_CATALOG ? "" : fl_namespace_str(ns, &ar);
        const char *ds = kind == AUTH_SEC_CATALOG ? "the catalog"
                         : !nss                   ? NULL
                         : object ? fl_arena_sprintf(&ar, "table '%s.%s'", nss, object)
                                  : fl_arena_sprintf(&ar, "namespace '%s'", nss);
        grant_ctx c = {role,   fl_privilege_name(priv), auth_sec_kind_name(kind),
                       joined, object ? object : "",    ds ? ds : "?",
                       grant};
        rc = auth_mutate(a, do_grant, &c, err);
    }
    fl_arena_free(&ar);
    return rc;
}

/* ---- listings ---- */

fl_status fl_auth_principal_get(fl_auth *a, const char *name, fl_principal *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    if (!a->store)
        return fl_errorf(err, FL_EINVAL, "auth: no store configured");
    pthread_mutex_lock(&a->lock);
    fl_status rc = auth_refresh_locked(a, err);
    const auth_pr *pr = rc == FL_OK ? auth_snapshot_find(&a->snap, name) : NULL;
    if (rc == FL_OK && !pr)
        rc = fl_errorf(err, FL_ENOTFOUND, "no principal '%.128s'", name ? name : "");
    if (pr) {
        snprintf(out->name, sizeof out->name, "%s", pr->name);
        out->admin = pr->admin;
    }
    pthread_mutex_unlock(&a->lock);
    return rc;
}

fl_status fl_auth_principal_list(fl_auth *a, fl_arena *ar, const char ***names, uint32_t *n,
                                 fl_error *err)
{
    *names = NULL;
    *n = 0;
    if (!a->store)
        return fl_errorf(err, FL_EINVAL, "auth: no store configured");
    pthread_mutex_lock(&a->lock);
    fl_status rc = auth_refresh_locked(a, err);
    const char **out = NULL;
    if (rc == FL_OK && !(out = fl_arena_calloc(ar, a->snap.nprincipals + 1, sizeof *out)))
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; rc == FL_OK && i < a->snap.nprincipals; i++)
        if (!(out[i] = fl_arena_strdup(ar, a->snap.principals[i].name)))
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK) {
        *names = out;
        *n = a->snap.nprincipals;
    }
    pthread_mutex_unlock(&a->lock);
    return rc;
}

static const char *grant_line(const auth_grant *g, fl_arena *ar)
{
    if (g->kind == AUTH_SEC_CATALOG)
        return fl_arena_sprintf(ar, "%s %s catalog", g->role, fl_privilege_name(g->priv));
    fl_namespace ns = {g->nlevels, g->levels};
    const char *s = fl_namespace_str(&ns, ar);
    if (!s)
        return NULL;
    if (g->kind == AUTH_SEC_NAMESPACE)
        return fl_arena_sprintf(ar, "%s %s namespace %s", g->role, fl_privilege_name(g->priv), s);
    return fl_arena_sprintf(ar, "%s %s table %s.%s", g->role, fl_privilege_name(g->priv), s,
                            g->object);
}

static int str_cmp(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

fl_status fl_auth_grant_list(fl_auth *a, fl_arena *ar, const char ***lines, uint32_t *n,
                             fl_error *err)
{
    *lines = NULL;
    *n = 0;
    if (!a->store)
        return fl_errorf(err, FL_EINVAL, "auth: no store configured");
    pthread_mutex_lock(&a->lock);
    fl_status rc = auth_refresh_locked(a, err);
    const char **out = NULL;
    uint32_t cnt = rc == FL_OK ? a->snap.ngrants : 0;
    if (rc == FL_OK && !(out = fl_arena_calloc(ar, cnt + 1, sizeof *out)))
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; rc == FL_OK && i < cnt; i++)
        if (!(out[i] = grant_line(&a->snap.grants[i], ar)))
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    pthread_mutex_unlock(&a->lock);
    if (rc != FL_OK)
        return rc;
    qsort(out, cnt, sizeof *out, str_cmp);
    *lines = out;
    *n = cnt;
    return FL_OK;
}
