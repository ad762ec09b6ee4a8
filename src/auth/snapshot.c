/*
 * snapshot.c - an in-memory copy of the auth store (principals with their
 * verifiers, token generations and roles; roles; grants) and grant
 * resolution over it.
 *
 * Why a copy: every REST request authenticates and authorizes, and a store
 * round trip per check would put the database on the hot path of every
 * request. The snapshot is loaded in one read transaction, tagged with the
 * store's version counter, and fl_auth reloads it whenever the counter has
 * moved (one indexed single-row read per check; see auth.c) - so a revoke
 * or a dropped principal takes effect on the very next request, in this
 * process and in every other process sharing the store.
 *
 * Resolution (auth_snapshot_allows): a grant (role, priv, securable) covers
 * the target when the principal holds the role, priv matches exactly
 * (privileges never imply each other), and the securable is
 *   - the catalog: everything;
 *   - namespace N: the namespace N itself, every namespace below it (N is a
 *     level-wise prefix), and every table/view in any of those;
 *   - table N.T: exactly that table/view.
 * The admin role is handled by the caller (it holds everything).
 */
#include <stdlib.h>
#include <string.h>

#include "auth/auth_internal.h"

const char *auth_sec_kind_name(int kind)
{
    return kind == AUTH_SEC_CATALOG     ? "catalog"
           : kind == AUTH_SEC_NAMESPACE ? "namespace"
                                        : "table";
}

static int kind_parse(const char *s)
{
    if (!s)
        return -1;
    if (!strcmp(s, "catalog"))
        return AUTH_SEC_CATALOG;
    if (!strcmp(s, "namespace"))
        return AUTH_SEC_NAMESPACE;
    if (!strcmp(s, "table"))
        return AUTH_SEC_TABLE;
    return -1;
}

bool auth_name_valid(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n >= FL_PRINCIPAL_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-' || c == '@' || c == '+'))
            return false;
    }
    return true;
}

fl_status auth_sec_encode(const fl_namespace *ns, const char *object, fl_arena *a, int *kind,
                          const char **ns_joined, fl_error *err)
{
    uint32_t nl = ns ? ns->nlevels : 0;
    if (nl == 0 && object)
        return fl_errorf(err, FL_EINVAL, "a table needs a namespace");
    if (object && (!*object || strlen(object) > 255))
        return fl_errorf(err, FL_EINVAL, "bad table name");
    size_t len = 1;
    for (uint32_t i = 0; i < nl; i++) {
        const char *l = ns->levels[i];
        if (!l || !*l || strchr(l, AUTH_LEVEL_SEP))
            return fl_errorf(err, FL_EINVAL, "bad namespace level %u (empty or has 0x1F)", i);
        len += strlen(l) + 1;
    }
    if (len > 1000)
        return fl_errorf(err, FL_EINVAL, "namespace too long for a grant");
    char *buf = fl_arena_alloc(a, len);
    if (!buf)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    size_t o = 0;
    for (uint32_t i = 0; i < nl; i++) {
        if (i)
            buf[o++] = AUTH_LEVEL_SEP;
        size_t l = strlen(ns->levels[i]);
        memcpy(buf + o, ns->levels[i], l);
        o += l;
    }
    buf[o] = '\0';
    *ns_joined = buf;
    *kind = object ? AUTH_SEC_TABLE : nl ? AUTH_SEC_NAMESPACE : AUTH_SEC_CATALOG;
    return FL_OK;
}

static fl_status split_levels(fl_arena *a, const char *s, auth_grant *g, fl_error *err)
{
    uint32_t n = *s ? 1 : 0;
    for (const char *p = s; *p; p++)
        n += *p == AUTH_LEVEL_SEP;
    g->nlevels = n;
    g->levels = fl_arena_calloc(a, n + 1, sizeof *g->levels);
    if (!g->levels)
        return fl_errorf(err, FL_ENOMEM, "auth: out of memory");
    const char *p = s;
    for (uint32_t i = 0; i < n; i++) {
        const char *e = strchr(p, AUTH_LEVEL_SEP);
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (!(g->levels[i] = fl_arena_strndup(a, p, l)))
            return fl_errorf(err, FL_ENOMEM, "auth: out of memory");
        p += l + 1;
    }
    return FL_OK;
}

static int pr_cmp(const void *x, const void *y)
{
    return strcmp(((const auth_pr *)x)->name, ((const auth_pr *)y)->name);
}

const auth_pr *auth_snapshot_find(const auth_snapshot *sn, const char *name)
{
    if (!name || !sn->nprincipals)
        return NULL;
    auth_pr key = {.name = name};
    return bsearch(&key, sn->principals, sn->nprincipals, sizeof key, pr_cmp);
}

bool auth_snapshot_role_exists(const auth_snapshot *sn, const char *role)
{
    for (uint32_t i = 0; i < sn->nroles; i++)
        if (!strcmp(sn->roles[i], role))
            return true;
    return false;
}

static fl_status load_principals(auth_store *s, auth_snapshot *sn, fl_error *err)
{
    auth_rows r, m;
    FL_TRY(s->exec(s, "SELECT name, secret_hash, token_gen FROM floe_auth_principals", NULL, 0,
                   &sn->arena, &r, NULL, err));
    FL_TRY(s->exec(s, "SELECT principal, role FROM floe_auth_principal_roles", NULL, 0, &sn->arena,
                   &m, NULL, err));
    sn->nprincipals = r.nrows;
    sn->principals = fl_arena_calloc(&sn->arena, r.nrows + 1, sizeof *sn->principals);
    if (!sn->principals)
        return fl_errorf(err, FL_ENOMEM, "auth: out of memory");
    for (uint32_t i = 0; i < r.nrows; i++) {
        auth_pr *p = &sn->principals[i];
        p->name = r.cells[i * 3];
        p->verifier = r.cells[i * 3 + 1] ? r.cells[i * 3 + 1] : "";
        p->gen = r.cells[i * 3 + 2] ? strtoll(r.cells[i * 3 + 2], NULL, 10) : 0;
        if (!p->name)
            return fl_errorf(err, FL_ECORRUPT, "%s: a principal has a NULL name", s->what);
    }
    qsort(sn->principals, sn->nprincipals, sizeof *sn->principals, pr_cmp);
    for (uint32_t i = 0; i < m.nrows; i++) { /* count, then size each role list */
        auth_pr *p = (auth_pr *)auth_snapshot_find(sn, m.cells[i * 2]);
        if (p)
            p->nroles++;
    }
    for (uint32_t i = 0; i < sn->nprincipals; i++) {
        auth_pr *p = &sn->principals[i];
        p->roles = fl_arena_calloc(&sn->arena, p->nroles + 1, sizeof *p->roles);
        if (!p->roles)
            return fl_errorf(err, FL_ENOMEM, "auth: out of memory");
        p->nroles = 0;
    }
    for (uint32_t i = 0; i < m.nrows; i++) {
        const char *role = m.cells[i * 2 + 1];
        auth_pr *p = (auth_pr *)auth_snapshot_find(sn, m.cells[i * 2]);
        if (!p || !role)
            continue; /* membership of a principal dropped concurrently */
        p->roles[p->nroles++] = role;
        p->admin |= strcmp(role, "admin") == 0;
    }
    return FL_OK;
}

static fl_status load_grants(auth_store *s, auth_snapshot *sn, fl_error *err)
{
    auth_rows r, g;
    FL_TRY(s->exec(s, "SELECT name FROM floe_auth_roles", NULL, 0, &sn->arena, &r, NULL, err));
    sn->nroles = r.nrows;
    sn->roles = r.cells;
    FL_TRY(s->exec(s, "SELECT role, privilege, kind, namespace, object FROM floe_auth_grants", NULL,
                   0, &sn->arena, &g, NULL, err));
    sn->grants = fl_arena_calloc(&sn->arena, g.nrows + 1, sizeof *sn->grants);
    if (!sn->grants)
        return fl_errorf(err, FL_ENOMEM, "auth: out of memory");
    for (uint32_t i = 0; i < g.nrows; i++) {
        const char **c = &g.cells[i * 5];
        auth_grant *x = &sn->grants[sn->ngrants];
        x->role = c[0];
        x->priv = fl_privilege_parse(c[1]);
        x->kind = kind_parse(c[2]);
        if (!x->role || !x->priv || x->kind < 0 || !c[3] || !c[4])
            continue; /* a privilege or kind this version does not know: grants nothing */
        x->object = x->kind == AUTH_SEC_TABLE ? c[4] : NULL;
        FL_TRY(split_levels(&sn->arena, c[3], x, err));
        sn->ngrants++;
    }
    return FL_OK;
}

fl_status auth_snapshot_load(auth_store *s, auth_snapshot *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    fl_arena_init(&out->arena, 0);
    fl_status rc = s->begin(s, false, err);
    if (rc == FL_OK)
        rc = auth_store_version(s, &out->version, err);
    if (rc == FL_OK)
        rc = load_principals(s, out, err);
    if (rc == FL_OK)
        rc = load_grants(s, out, err);
    if (rc == FL_OK)
        rc = auth_policies_load(s, out, err);
    if (rc == FL_OK)
        rc = auth_limits_load(s, out, err);
    if (rc == FL_OK)
        rc = s->commit(s, err);
    if (rc != FL_OK) {
        s->rollback(s);
        auth_snapshot_free(out);
    }
    return rc;
}

void auth_snapshot_free(auth_snapshot *sn)
{
    fl_arena_free(&sn->arena);
    memset(sn, 0, sizeof *sn);
}

bool auth_holds_role(const auth_pr *pr, const char *role)
{
    for (uint32_t i = 0; i < pr->nroles; i++)
        if (!strcmp(pr->roles[i], role))
            return true;
    return false;
}

static bool covers(const auth_grant *g, const fl_namespace *ns, const char *object)
{
    uint32_t nl = ns ? ns->nlevels : 0;
    if (g->kind == AUTH_SEC_CATALOG)
        return true;
    if (g->nlevels > nl || (g->kind == AUTH_SEC_TABLE && (g->nlevels != nl || !object)))
        return false;
    for (uint32_t i = 0; i < g->nlevels; i++)
        if (strcmp(g->levels[i], ns->levels[i]) != 0)
            return false;
    return g->kind == AUTH_SEC_NAMESPACE || strcmp(g->object, object) == 0;
}

bool auth_snapshot_allows(const auth_snapshot *sn, const auth_pr *pr, fl_privilege priv,
                          const fl_namespace *ns, const char *object)
{
    for (uint32_t i = 0; i < sn->ngrants; i++) {
        const auth_grant *g = &sn->grants[i];
        if (g->priv == priv && auth_holds_role(pr, g->role) && covers(g, ns, object))
            return true;
    }
    return false;
}

/* Is g on ns itself or on something inside it (a namespace below, or a
 * table in ns or below)? */
static bool inside(const auth_grant *g, const fl_namespace *ns)
{
    uint32_t nl = ns ? ns->nlevels : 0;
    if (g->kind == AUTH_SEC_CATALOG || g->nlevels < nl)
        return false;
    for (uint32_t i = 0; i < nl; i++)
        if (strcmp(g->levels[i], ns->levels[i]) != 0)
            return false;
    return true;
}

bool auth_snapshot_visible(const auth_snapshot *sn, const auth_pr *pr, const fl_namespace *ns,
                           const char *object)
{
    for (uint32_t i = 0; i < sn->ngrants; i++) {
        const auth_grant *g = &sn->grants[i];
        if (!auth_holds_role(pr, g->role))
            continue;
        if (covers(g, ns, object) || (!object && inside(g, ns)))
            return true;
    }
    return false;
}
