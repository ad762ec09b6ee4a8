/*
 * authz.c - the engine's authorization point (design in authz.h): asks
 * fl_auth_authorize for each object a statement touches, as the effective
 * principal, and keeps the record of every decision.
 *
 * Fail closed: anything but a clear "allowed" from the authorizer is a
 * refusal (42501), including store errors ("cannot be decided"), a
 * principal that no longer exists, and a privilege the request does not
 * name. The admin role is answered by fl_auth_authorize itself, from the
 * store's current state, not from a flag cached in the session.
 *
 * Objects are keyed as the auth store keys securables: namespace levels
 * joined by 0x1F, and for a table 0x1E and its name; "" is the catalog.
 * Coverage between keys follows the grant model: a namespace covers its
 * sub-namespaces and every table in them, level by level, never as a
 * string prefix ("a" does not cover "ab").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/authz/authz.h"
#include "sql/planner.h"
#include "sql/session/session_temp.h"

#define SEP_LEVEL '\x1f'
#define SEP_TABLE '\x1e'

typedef struct rec {
    fl_sql_object_kind kind;
    uint32_t priv; /* an fl_privilege, or FL_SQL_PRIV_LISTED */
    char *key;     /* securable key (see above); files: the path */
    char *shown;   /* "a.b.t", "a.b", "" or the path */
    char *as;      /* whose rights; NULL without auth */
} rec;

struct fl_sql_authz {
    fl_auth *auth;
    fl_principal invoker;
    const fl_principal *as; /* effective: &invoker or a definer (statement arena) */
    const struct fl_session_temp *temp;
    char *allowed_file; /* fl_sql_session_allow_file */
    rec *recs;
    uint32_t n, cap;
};

fl_status fl_sql_authz_new(fl_auth *auth, const fl_principal *who,
                           const struct fl_session_temp *temp, fl_sql_authz **out, fl_error *err)
{
    *out = NULL;
    if (auth && !who)
        return fl_errorf(err, FL_EINVAL, "sql session: options.auth needs options.principal");
    fl_sql_authz *z = calloc(1, sizeof *z);
    if (!z)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    z->auth = auth;
    if (who)
        z->invoker = *who;
    else
        snprintf(z->invoker.name, sizeof z->invoker.name, "floe");
    z->as = &z->invoker;
    z->temp = temp;
    *out = z;
    return FL_OK;
}

void fl_sql_authz_set_temp(fl_sql_authz *z, const struct fl_session_temp *temp)
{
    if (z)
        z->temp = temp;
}

static void clear(fl_sql_authz *z)
{
    for (uint32_t i = 0; i < z->n; i++) {
        free(z->recs[i].key);
        free(z->recs[i].shown);
        free(z->recs[i].as);
    }
    z->n = 0;
}

void fl_sql_authz_free(fl_sql_authz *z)
{
    if (!z)
        return;
    clear(z);
    free(z->recs);
    free(z->allowed_file);
    free(z);
}

uint32_t fl_sql_authz_begin(fl_sql_authz *z, bool in_block)
{
    if (!z)
        return 0;
    z->as = &z->invoker;
    if (!in_block)
        clear(z);
    return z->n;
}

void fl_sql_authz_end_block(fl_sql_authz *z)
{
    if (z)
        clear(z);
}

fl_auth *fl_sql_authz_auth(const fl_sql_authz *z)
{
    return z ? z->auth : NULL;
}

bool fl_sql_authz_is_temp(const fl_sql_authz *z, const fl_namespace *ns)
{
    return z && z->temp && ns && ns->nlevels == 1 && fl_session_temp_is_ns(z->temp, ns);
}

bool fl_sql_authz_enabled(const fl_sql_authz *z)
{
    return z && z->auth;
}

const char *fl_sql_authz_invoker(const fl_sql_authz *z)
{
    return z ? z->invoker.name : "floe";
}

const fl_principal *fl_sql_authz_effective(const fl_sql_authz *z)
{
    return z && z->auth ? z->as : NULL;
}

bool fl_sql_authz_is_admin(const fl_sql_authz *z)
{
    if (!fl_sql_authz_enabled(z))
        return true;
    fl_principal p;
    fl_error e;
    fl_error_clear(&e);
    if (z->as->anonymous) /* development mode: passes what the fl_auth lets pass */
        return fl_auth_authorize(z->auth, z->as, FL_PRIV_MANAGE_GRANTS, NULL, NULL, &e) == FL_OK;
    /* from the store's current state: a revoked admin is no admin */
    return fl_auth_principal_get(z->auth, z->as->name, &p, &e) == FL_OK && p.admin;
}

fl_status fl_sql_authz_copy(const fl_sql_authz *z, uint32_t mark, fl_arena *a,
                            fl_sql_access **out, uint32_t *n, fl_error *err)
{
    *out = NULL;
    *n = 0;
    if (!z || z->n <= mark)
        return FL_OK;
    uint32_t k = z->n - mark;
    fl_sql_access *v = fl_arena_calloc(a, k, sizeof *v);
    if (!v)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < k; i++) {
        const rec *r = &z->recs[mark + i];
        v[i].kind = r->kind;
        v[i].privilege = r->priv;
        v[i].object = fl_arena_strdup(a, r->shown);
        v[i].as_principal = r->as ? fl_arena_strdup(a, r->as) : NULL;
        if (!v[i].object || (r->as && !v[i].as_principal))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    *out = v;
    *n = k;
    return FL_OK;
}

void fl_sql_authz_audit(const fl_sql_authz *z, const fl_sql_access *acc, uint32_t n,
                        const char *tag, const char *sql)
{
    if (!z || !z->auth)
        return;
    char target[1024];
    size_t len = 0;
    target[0] = '\0';
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = acc[i].privilege;
        if (p != FL_PRIV_WRITE && p != FL_PRIV_CREATE && p != FL_PRIV_DROP)
            continue;
        int w = snprintf(target + len, sizeof target - len, "%s%s %s", len ? ", " : "",
                         fl_privilege_name((fl_privilege)p),
                         acc[i].object[0] ? acc[i].object : "catalog");
        if (w < 0 || (size_t)w >= sizeof target - len)
            break;
        len += (size_t)w;
    }
    if (!len)
        return; /* nothing changed: reads are not audited */
    char action[80];
    snprintf(action, sizeof action, "sql %s", tag && *tag ? tag : "?");
    fl_auth_audit(z->auth, &z->invoker, action, target, "ok", NULL, sql);
}

/* ---- keys ---- */

/* Securable key of (ns, table) into a malloc'd string; NULL on OOM. */
static char *key_of(const fl_namespace *ns, const char *table)
{
    size_t len = 2 + (table ? strlen(table) : 0);
    uint32_t nl = ns ? ns->nlevels : 0;
    for (uint32_t i = 0; i < nl; i++)
        len += strlen(ns->levels[i]) + 1;
    char *k = malloc(len);
    if (!k)
        return NULL;
    size_t o = 0;
    for (uint32_t i = 0; i < nl; i++) {
        if (i)
            k[o++] = SEP_LEVEL;
        size_t l = strlen(ns->levels[i]);
        memcpy(k + o, ns->levels[i], l);
        o += l;
    }
    if (table) {
        k[o++] = SEP_TABLE;
        size_t l = strlen(table);
        memcpy(k + o, table, l);
        o += l;
    }
    k[o] = '\0';
    return k;
}

/* Does the key outer (a namespace's or the catalog's) cover key inner? */
static bool key_covers(const char *outer, const char *inner)
{
    if (!*outer)
        return true;
    size_t n = strlen(outer);
    if (strncmp(outer, inner, n) != 0)
        return false;
    return inner[n] == '\0' || inner[n] == SEP_LEVEL || inner[n] == SEP_TABLE;
}

static bool is_namespace_key(const char *k)
{
    return strchr(k, SEP_TABLE) == NULL;
}

static fl_status record(fl_sql_authz *z, fl_sql_object_kind kind, uint32_t priv, char *key,
                        const char *shown, fl_error *err)
{
    for (uint32_t i = 0; i < z->n; i++) {
        const rec *r = &z->recs[i];
        if (r->kind == kind && r->priv == priv && !strcmp(r->key, key) &&
            ((!r->as && !z->auth) || (r->as && !strcmp(r->as, z->as->name)))) {
            free(key);
            return FL_OK;
        }
    }
    if (z->n == z->cap) {
        uint32_t cap = z->cap ? z->cap * 2 : 16;
        rec *v = realloc(z->recs, cap * sizeof *v);
        if (!v) {
            free(key);
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
        z->recs = v;
        z->cap = cap;
    }
    rec *r = &z->recs[z->n];
    r->kind = kind;
    r->priv = priv;
    r->key = key;
    r->shown = strdup(shown ? shown : "");
    r->as = z->auth ? strdup(z->as->name) : NULL;
    if (!r->shown || (z->auth && !r->as)) {
        free(r->key);
        free(r->shown);
        free(r->as);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    z->n++;
    return FL_OK;
}

bool fl_sql_authz_covered(const fl_sql_authz *z, fl_privilege priv, bool any_priv, bool listing,
                          const fl_namespace *ns, const char *table)
{
    if (!z)
        return false;
    char *k = key_of(ns, table);
    if (!k)
        return false;
    bool ok = false;
    for (uint32_t i = 0; i < z->n && !ok; i++) {
        const rec *r = &z->recs[i];
        if (r->kind == FL_SQL_OBJ_FILES)
            continue;
        if (r->priv == FL_SQL_PRIV_LISTED) {
            /* a listed object: its own metadata and, for a namespace, its
             * listing; never what is inside it */
            ok = listing ? !strcmp(r->key, k) : (any_priv && !strcmp(r->key, k) && table);
            continue;
        }
        if (!any_priv && r->priv != (uint32_t)priv)
            continue;
        ok = !strcmp(r->key, k) || (is_namespace_key(r->key) && key_covers(r->key, k));
    }
    free(k);
    return ok;
}

/* ---- the checks ---- */

static const char *priv_word(fl_privilege p)
{
    return fl_privilege_name(p);
}

static bool temp_namespace(const fl_sql_authz *z, const fl_namespace *ns)
{
    return z->temp && ns && ns->nlevels == 1 && fl_session_temp_is_ns(z->temp, ns);
}

/* Asks the authorizer; anything but FL_OK is a refusal. */
static fl_status decide(fl_planner_ctx *pc, fl_sql_authz *z, fl_privilege priv,
                        const fl_namespace *ns, const char *table, const char *shown,
                        int32_t location, fl_error *err)
{
    if (!z->auth || temp_namespace(z, ns))
        return FL_OK;
    fl_error e;
    fl_error_clear(&e);
    fl_status rc = fl_auth_authorize(z->auth, z->as, priv, ns, table, &e);
    if (rc == FL_OK)
        return FL_OK;
    const char *what = table ? "table" : ns && ns->nlevels ? "namespace" : "the catalog";
    if (rc == FL_EFORBIDDEN)
        return fl_front_err(pc, err, FL_EFORBIDDEN, location, "42501",
                            "permission denied for %s %s: %s", what, shown, e.msg);
    return fl_front_err(pc, err, FL_EFORBIDDEN, location, "42501",
                        "permission denied for %s %s: privilege '%s' cannot be decided (%s)",
                        what, shown, priv_word(priv), e.msg);
}

fl_status fl_sql_authz_table(fl_planner_ctx *pc, fl_privilege priv, const fl_table_ident *id,
                             int32_t location, fl_error *err)
{
    fl_sql_authz *z = pc->authz;
    if (!z)
        return FL_OK;
    const char *shown = fl_table_ident_str(id, pc->arena);
    if (!shown)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (!id->ns.nlevels)
        return fl_front_err(pc, err, FL_EFORBIDDEN, location, "42501",
                            "permission denied for table %s: it has no namespace", shown);
    FL_TRY(decide(pc, z, priv, &id->ns, id->name, shown, location, err));
    char *k = key_of(&id->ns, id->name);
    if (!k)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return record(z, FL_SQL_OBJ_TABLE, priv, k, shown, err);
}

fl_status fl_sql_authz_namespace(fl_planner_ctx *pc, fl_privilege priv, const fl_namespace *ns,
                                 int32_t location, fl_error *err)
{
    fl_sql_authz *z = pc->authz;
    if (!z)
        return FL_OK;
    bool catalog = !ns || ns->nlevels == 0;
    const char *shown = catalog ? "" : fl_namespace_str(ns, pc->arena);
    if (!shown)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    FL_TRY(decide(pc, z, priv, catalog ? NULL : ns, NULL, catalog ? "" : shown, location, err));
    char *k = key_of(catalog ? NULL : ns, NULL);
    if (!k)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return record(z, catalog ? FL_SQL_OBJ_CATALOG : FL_SQL_OBJ_NAMESPACE, priv, k, shown, err);
}

bool fl_sql_authz_holds(fl_planner_ctx *pc, fl_privilege priv, const fl_namespace *ns,
                        const char *table)
{
    fl_sql_authz *z = pc->authz;
    if (!z || !z->auth || temp_namespace(z, ns))
        return true;
    fl_error e;
    fl_error_clear(&e);
    return fl_auth_authorize(z->auth, z->as, priv, ns, table, &e) == FL_OK;
}

fl_status fl_sql_authz_files(fl_planner_ctx *pc, const char *path, int32_t location,
                             fl_error *err)
{
    fl_sql_authz *z = pc->authz;
    if (!z)
        return FL_OK;
    /* Paths are outside the grant model: only an admin may name files,
     * besides the one file the front end made for this session. */
    bool front_end_file = z->allowed_file && path && !strcmp(path, z->allowed_file);
    if (z->auth && !front_end_file && !fl_sql_authz_is_admin(z))
        return fl_front_err(pc, err, FL_EFORBIDDEN, location, "42501",
                            "permission denied for files '%s': table functions reading files "
                            "need the admin role",
                            path ? path : "");
    char *k = strdup(path ? path : "");
    if (!k)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return record(z, FL_SQL_OBJ_FILES, FL_PRIV_READ, k, path ? path : "", err);
}

fl_status fl_sql_authz_allow_file(fl_sql_authz *z, const char *path, fl_error *err)
{
    char *cp = path ? strdup(path) : NULL;
    if (path && !cp)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    free(z->allowed_file);
    z->allowed_file = cp;
    return FL_OK;
}

bool fl_sql_authz_visible(fl_planner_ctx *pc, const fl_namespace *ns, const char *table)
{
    fl_sql_authz *z = pc->authz;
    if (!z)
        return true;
    bool visible = !z->auth || temp_namespace(z, ns);
    if (!visible) {
        fl_error e;
        fl_error_clear(&e);
        if (fl_auth_visible(z->auth, z->as, ns, table, &visible, &e) != FL_OK)
            visible = false; /* cannot be decided: not shown */
    }
    if (!visible)
        return false;
    bool catalog = !ns || ns->nlevels == 0;
    const char *shown = table ? fl_table_ident_str(&(fl_table_ident){.ns = *ns, .name = table}, pc->arena)
                        : catalog ? ""
                                  : fl_namespace_str(ns, pc->arena);
    char *k = key_of(catalog ? NULL : ns, table);
    fl_error e;
    fl_error_clear(&e);
    if (!shown || !k) {
        free(k);
        return false;
    }
    fl_sql_object_kind kind = table     ? FL_SQL_OBJ_TABLE
                              : catalog ? FL_SQL_OBJ_CATALOG
                                        : FL_SQL_OBJ_NAMESPACE;
    return record(z, kind, FL_SQL_PRIV_LISTED, k, shown, &e) == FL_OK;
}

fl_status fl_sql_authz_push_definer(fl_planner_ctx *pc, const char *definer, int32_t location,
                                    const fl_principal **saved, fl_error *err)
{
    fl_sql_authz *z = pc->authz;
    *saved = z ? z->as : NULL;
    if (!z || !z->auth)
        return FL_OK;
    fl_principal *p = fl_arena_calloc(pc->arena, 1, sizeof *p);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_error e;
    fl_error_clear(&e);
    if (fl_auth_principal_get(z->auth, definer, p, &e) != FL_OK)
        return fl_front_err(pc, err, FL_EFORBIDDEN, location, "42501",
                            "permission denied: the view's definer '%s' cannot be checked (%s)",
                            definer, e.msg);
    z->as = p;
    return FL_OK;
}

void fl_sql_authz_pop(fl_planner_ctx *pc, const fl_principal *saved)
{
    fl_sql_authz *z = pc->authz;
    if (z && saved)
        z->as = saved;
}
