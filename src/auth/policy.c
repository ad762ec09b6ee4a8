/*
 * policy.c - row filters and column masks (include/floe/auth.h): stored in
 * floe_auth_policies, loaded into the snapshot with the grants, answered per
 * principal and table for the SQL engine, which applies them
 * (src/sql/authz/policy.c).
 *
 * The store keeps the SQL text as given; it is not parsed here (the auth
 * subsystem knows no SQL). A policy names one table exactly (namespace
 * levels joined by 0x1F, as grants), so a rename leaves it behind on the
 * old name: the renamed table has no policy until an admin sets one again
 * (documented in docs/security.md).
 */
#include <stdio.h>
#include <string.h>

#include "auth/auth_internal.h"

static const char *kind_name(int k)
{
    return k == FL_POLICY_ROW_FILTER ? "row-filter" : k == FL_POLICY_COLUMN_MASK ? "column-mask" : NULL;
}

static int kind_parse(const char *s)
{
    if (s && !strcmp(s, "row-filter"))
        return FL_POLICY_ROW_FILTER;
    if (s && !strcmp(s, "column-mask"))
        return FL_POLICY_COLUMN_MASK;
    return 0;
}

fl_status auth_policies_load(auth_store *s, auth_snapshot *sn, fl_error *err)
{
    auth_rows r;
    FL_TRY(s->exec(s,
                   "SELECT role, kind, namespace, object, column_name, expression FROM "
                   "floe_auth_policies",
                   NULL, 0, &sn->arena, &r, NULL, err));
    sn->policies = fl_arena_calloc(&sn->arena, r.nrows + 1, sizeof *sn->policies);
    if (!sn->policies)
        return fl_errorf(err, FL_ENOMEM, "auth: out of memory");
    for (uint32_t i = 0; i < r.nrows; i++) {
        const char **c = &r.cells[i * 6];
        auth_policy *p = &sn->policies[sn->npolicies];
        p->kind = kind_parse(c[1]);
        if (!c[0] || !c[2] || !c[3] || !c[4] || !c[5])
            return fl_errorf(err, FL_ECORRUPT, "%s: a policy row has NULLs", s->what);
        if (!p->kind) /* a kind this version does not know: it cannot be applied */
            return fl_errorf(err, FL_ECORRUPT,
                             "%s: policy of role '%s' has unknown kind '%s' (refusing to run "
                             "without it)",
                             s->what, c[0], c[1] ? c[1] : "");
        p->role = c[0];
        p->ns = c[2];
        p->object = c[3];
        p->column = c[4];
        p->expression = c[5];
        sn->npolicies++;
    }
    return FL_OK;
}

typedef struct set_ctx {
    const char *role, *kind, *ns, *object, *column, *expression;
} set_ctx;

static fl_status do_set(auth_store *s, void *ctx, int64_t v, fl_error *err)
{
    (void)v;
    set_ctx *c = ctx;
    auth_rows r;
    fl_arena ar;
    fl_arena_init(&ar, 256);
    const char *pr[1] = {c->role};
    fl_status rc = s->exec(s, "SELECT 1 FROM floe_auth_roles WHERE name = ?", pr, 1, &ar, &r, NULL,
                           err);
    bool found = rc == FL_OK && r.nrows > 0;
    fl_arena_free(&ar);
    FL_TRY(rc);
    if (!found)
        return fl_errorf(err, FL_ENOTFOUND, "no role '%s'", c->role);
    const char *p[6] = {c->role, c->kind, c->ns, c->object, c->column, c->expression};
    uint64_t n = 0;
    FL_TRY(auth_store_exec1(s,
                            "DELETE FROM floe_auth_policies WHERE role = ? AND kind = ? AND "
                            "namespace = ? AND object = ? AND column_name = ?",
                            p, 5, &n, err));
    if (!c->expression)
        return n ? FL_OK
                 : fl_errorf(err, FL_ENOTFOUND, "role '%s' has no %s there", c->role, c->kind);
    return auth_store_exec1(s,
                            "INSERT INTO floe_auth_policies(role, kind, namespace, object, "
                            "column_name, expression) VALUES (?, ?, ?, ?, ?, ?)",
                            p, 6, NULL, err);
}

fl_status fl_auth_policy_set(fl_auth *a, const char *role, fl_auth_policy_kind kind,
                             const fl_namespace *ns, const char *object, const char *column,
                             const char *expression, fl_error *err)
{
    if (!auth_name_valid(role))
        return fl_errorf(err, FL_EINVAL, "bad role name '%.128s'", role ? role : "");
    if (!strcmp(role, "admin"))
        return fl_errorf(err, FL_EINVAL, "the built-in role 'admin' cannot have policies");
    if (!kind_name(kind))
        return fl_errorf(err, FL_EINVAL, "unknown policy kind %d", (int)kind);
    if (!object || !ns || !ns->nlevels)
        return fl_errorf(err, FL_EINVAL, "a policy needs a table (namespace.table)");
    bool mask = kind == FL_POLICY_COLUMN_MASK;
    if (mask != (column && *column))
        return fl_errorf(err, FL_EINVAL, mask ? "a column mask needs a column"
                                              : "a row filter takes no column");
    if (expression && (!*expression || strlen(expression) >= 4000))
        return fl_errorf(err, FL_EINVAL, "policy expression must be 1..3999 bytes");
    if (column && strlen(column) > 255)
        return fl_errorf(err, FL_EINVAL, "column name too long");
    fl_arena ar;
    fl_arena_init(&ar, 1024);
    int sk = 0;
    const char *joined = NULL;
    fl_status rc = auth_sec_encode(ns, object, &ar, &sk, &joined, err);
    if (rc == FL_OK) {
        set_ctx c = {role, kind_name(kind), joined, object, mask ? column : "", expression};
        rc = auth_mutate(a, do_set, &c, err);
    }
    fl_arena_free(&ar);
    return rc;
}

static bool same_table(const auth_policy *p, const char *joined, const char *object)
{
    return !strcmp(p->ns, joined) && !strcmp(p->object, object);
}

fl_status fl_auth_policies_for(fl_auth *a, const fl_principal *p, const fl_namespace *ns,
                               const char *object, fl_arena *ar, fl_auth_policy **out,
                               uint32_t *n, fl_error *err)
{
    *out = NULL;
    *n = 0;
    if (!p)
        return fl_errorf(err, FL_EINVAL, "policies: no principal");
    if (p->anonymous || !a->store)
        return FL_OK;
    int sk = 0;
    const char *joined = NULL;
    FL_TRY(auth_sec_encode(ns, object, ar, &sk, &joined, err));
    pthread_mutex_lock(&a->lock);
    fl_status rc = auth_refresh_locked(a, err);
    const auth_pr *pr = rc == FL_OK ? auth_snapshot_find(&a->snap, p->name) : NULL;
    if (rc == FL_OK && !pr)
        rc = fl_errorf(err, FL_EFORBIDDEN, "principal '%s' no longer exists", p->name);
    uint32_t k = 0;
    fl_auth_policy *v = NULL;
    if (rc == FL_OK && !pr->admin) {
        for (uint32_t i = 0; i < a->snap.npolicies; i++) {
            const auth_policy *x = &a->snap.policies[i];
            k += same_table(x, joined, object) && auth_holds_role(pr, x->role);
        }
        v = k ? fl_arena_calloc(ar, k, sizeof *v) : NULL;
        if (k && !v)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        k = 0;
        for (uint32_t i = 0; rc == FL_OK && v && i < a->snap.npolicies; i++) {
            const auth_policy *x = &a->snap.policies[i];
            if (!same_table(x, joined, object) || !auth_holds_role(pr, x->role))
                continue;
            fl_auth_policy *o = &v[k++];
            o->kind = (fl_auth_policy_kind)x->kind;
            o->role = fl_arena_strdup(ar, x->role);
            o->column = x->column[0] ? fl_arena_strdup(ar, x->column) : NULL;
            o->expression = fl_arena_strdup(ar, x->expression);
            if (!o->role || !o->expression || (x->column[0] && !o->column))
                rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        }
    }
    pthread_mutex_unlock(&a->lock);
    if (rc != FL_OK)
        return rc;
    *out = v;
    *n = k;
    return FL_OK;
}

fl_status fl_auth_policy_list(fl_auth *a, fl_arena *ar, const char ***lines, uint32_t *n,
                              fl_error *err)
{
    *lines = NULL;
    *n = 0;
    if (!a->store)
        return fl_errorf(err, FL_EINVAL, "auth: no store configured");
    pthread_mutex_lock(&a->lock);
    fl_status rc = auth_refresh_locked(a, err);
    uint32_t np = rc == FL_OK ? a->snap.npolicies : 0;
    const char **v = fl_arena_calloc(ar, np + 1, sizeof *v);
    if (rc == FL_OK && !v)
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; rc == FL_OK && i < np; i++) {
        const auth_policy *x = &a->snap.policies[i];
        char ns[1024];
        snprintf(ns, sizeof ns, "%s", x->ns);
        for (char *q = ns; *q; q++)
            if (*q == AUTH_LEVEL_SEP)
                *q = '.';
        v[i] = fl_arena_sprintf(ar, "%s %s %s.%s%s%s %s", x->role, kind_name(x->kind), ns,
                                x->object, x->column[0] ? " " : "", x->column, x->expression);
        if (!v[i])
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    pthread_mutex_unlock(&a->lock);
    if (rc == FL_OK) {
        *lines = v;
        *n = np;
    }
    return rc;
}
