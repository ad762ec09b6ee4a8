/*
 * limits.c - per-role resource ceilings (auth.h "per-role resource
 * ceilings"; `floe admin limits`; docs/security.md, "Resource limits").
 *
 * A role's row in floe_auth_role_limits holds four numbers, 0 meaning
 * "this role does not set it": the largest memory_limit and
 * statement_timeout its principals' sessions may SET, their default
 * statement_timeout, and how many statements one principal may run at
 * once across every front end. The rows are part of the snapshot
 * (snapshot.c loads them in the same read transaction), so a change is
 * seen by the next session of every server sharing the store, as grants
 * are. Setting them is a mutation like any other: one write transaction
 * that bumps the version counter first (auth_mutate).
 *
 * For a principal each field is the largest value among its roles that set
 * it: a principal holding a generous role is not held back by a stricter
 * one, as with grants. Admin principals get none (the admin role may not
 * be given ceilings: whoever administers the server can lift them anyway).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth_internal.h"

#define Q_LOAD                                                                                     \
    "SELECT role, max_memory_limit, max_statement_timeout_ms, statement_timeout_ms, "              \
    "max_statements FROM floe_auth_role_limits"
#define Q_UPSERT                                                                                   \
    "INSERT INTO floe_auth_role_limits(role, max_memory_limit, max_statement_timeout_ms, "         \
    "statement_timeout_ms, max_statements) VALUES (?, ?, ?, ?, ?) ON CONFLICT (role) DO UPDATE "   \
    "SET max_memory_limit = excluded.max_memory_limit, max_statement_timeout_ms = "                \
    "excluded.max_statement_timeout_ms, statement_timeout_ms = excluded.statement_timeout_ms, "    \
    "max_statements = excluded.max_statements"

static uint64_t cell_u64(const char *c)
{
    long long v = c ? strtoll(c, NULL, 10) : 0;
    return v > 0 ? (uint64_t)v : 0;
}

fl_status auth_limits_load(auth_store *s, auth_snapshot *sn, fl_error *err)
{
    auth_rows r;
    FL_TRY(s->exec(s, Q_LOAD, NULL, 0, &sn->arena, &r, NULL, err));
    sn->limits = fl_arena_calloc(&sn->arena, r.nrows + 1, sizeof *sn->limits);
    if (!sn->limits)
        return fl_errorf(err, FL_ENOMEM, "auth: out of memory");
    for (uint32_t i = 0; i < r.nrows; i++) {
        const char **c = &r.cells[i * 5];
        if (!c[0])
            continue;
        auth_role_limits *x = &sn->limits[sn->nlimits++];
        x->role = c[0];
        x->l.max_memory_limit = cell_u64(c[1]);
        x->l.max_statement_timeout_ms = cell_u64(c[2]);
        x->l.statement_timeout_ms = cell_u64(c[3]);
        uint64_t ms = cell_u64(c[4]);
        x->l.max_statements = ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
    }
    return FL_OK;
}

/* ---- setting ---- */

typedef struct limits_ctx {
    const char *role;
    const fl_auth_limits *l;
} limits_ctx;

static bool all_zero(const fl_auth_limits *l)
{
    return !l->max_memory_limit && !l->max_statement_timeout_ms && !l->statement_timeout_ms &&
           !l->max_statements;
}

static fl_status do_set(auth_store *s, void *ctx, int64_t v, fl_error *err)
{
    (void)v;
    limits_ctx *c = ctx;
    fl_arena ar;
    fl_arena_init(&ar, 256);
    auth_rows r;
    const char *pr[1] = {c->role};
    fl_status rc =
        s->exec(s, "SELECT 1 FROM floe_auth_roles WHERE name = ?", pr, 1, &ar, &r, NULL, err);
    bool found = rc == FL_OK && r.nrows > 0;
    fl_arena_free(&ar);
    FL_TRY(rc);
    if (!found)
        return fl_errorf(err, FL_ENOTFOUND, "no role '%s'", c->role);
    if (all_zero(c->l))
        return auth_store_exec1(s, "DELETE FROM floe_auth_role_limits WHERE role = ?", pr, 1, NULL,
                                err);
    char f[4][24];
    snprintf(f[0], sizeof f[0], "%" PRIu64, c->l->max_memory_limit);
    snprintf(f[1], sizeof f[1], "%" PRIu64, c->l->max_statement_timeout_ms);
    snprintf(f[2], sizeof f[2], "%" PRIu64, c->l->statement_timeout_ms);
    snprintf(f[3], sizeof f[3], "%" PRIu32, c->l->max_statements);
    const char *p[5] = {c->role, f[0], f[1], f[2], f[3]};
    return auth_store_exec1(s, Q_UPSERT, p, 5, NULL, err);
}

static fl_status check(const char *role, const fl_auth_limits *l, fl_error *err)
{
    if (!auth_name_valid(role))
        return fl_errorf(err, FL_EINVAL, "bad role name '%.128s'", role ? role : "");
    if (!strcmp(role, "admin"))
        return fl_errorf(err, FL_EINVAL, "the built-in role 'admin' has no resource limits");
    if (l->max_memory_limit > (uint64_t)INT64_MAX || l->max_statement_timeout_ms > INT64_MAX ||
        l->statement_timeout_ms > INT64_MAX)
        return fl_errorf(err, FL_EINVAL, "limit too large");
    if (l->max_statement_timeout_ms && l->statement_timeout_ms > l->max_statement_timeout_ms)
        return fl_errorf(err, FL_EINVAL,
                         "statement_timeout (%" PRIu64
                         " ms) is above max_statement_timeout (%" PRIu64 " ms)",
                         l->statement_timeout_ms, l->max_statement_timeout_ms);
    return FL_OK;
}

fl_status fl_auth_role_limits_set(fl_auth *a, const char *role, const fl_auth_limits *l,
                                  fl_error *err)
{
    FL_TRY(check(role, l, err));
    limits_ctx c = {role, l};
    return auth_mutate(a, do_set, &c, err);
}

/* ---- reading ---- */

static bool holds(const auth_pr *pr, const char *role)
{
    for (uint32_t i = 0; i < pr->nroles; i++)
        if (!strcmp(pr->roles[i], role))
            return true;
    return false;
}

static void take_max(fl_auth_limits *o, const fl_auth_limits *l)
{
    if (l->max_memory_limit > o->max_memory_limit)
        o->max_memory_limit = l->max_memory_limit;
    if (l->max_statement_timeout_ms > o->max_statement_timeout_ms)
        o->max_statement_timeout_ms = l->max_statement_timeout_ms;
    if (l->statement_timeout_ms > o->statement_timeout_ms)
        o->statement_timeout_ms = l->statement_timeout_ms;
    if (l->max_statements > o->max_statements)
        o->max_statements = l->max_statements;
}

fl_status fl_auth_limits_for(fl_auth *a, const fl_principal *p, fl_auth_limits *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    if (!p || p->anonymous || p->admin || !a || !a->store)
        return FL_OK;
    pthread_mutex_lock(&a->lock);
    fl_status rc = auth_refresh_locked(a, err);
    const auth_pr *pr = rc == FL_OK ? auth_snapshot_find(&a->snap, p->name) : NULL;
    if (rc == FL_OK && !pr)
        rc = fl_errorf(err, FL_EUNAUTHENTICATED, "principal '%.128s' no longer exists", p->name);
    for (uint32_t i = 0; pr && !pr->admin && i < a->snap.nlimits; i++)
        if (holds(pr, a->snap.limits[i].role))
            take_max(out, &a->snap.limits[i].l);
    pthread_mutex_unlock(&a->lock);
    return rc;
}

/* ---- listing ---- */

static void fmt_bytes(uint64_t b, char *buf, size_t cap)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (u < 4 && b && b % 1024 == 0) {
        b /= 1024;
        u++;
    }
    snprintf(buf, cap, "%" PRIu64 "%s", b, units[u]);
}

static void fmt_ms(uint64_t ms, char *buf, size_t cap)
{
    if (ms % 60000 == 0)
        snprintf(buf, cap, "%" PRIu64 "min", ms / 60000);
    else if (ms % 1000 == 0)
        snprintf(buf, cap, "%" PRIu64 "s", ms / 1000);
    else
        snprintf(buf, cap, "%" PRIu64 "ms", ms);
}

static const char *limits_line(const auth_role_limits *x, fl_arena *ar)
{
    char line[512], v[32];
    size_t o = (size_t)snprintf(line, sizeof line, "%s", x->role);
    if (x->l.max_memory_limit) {
        fmt_bytes(x->l.max_memory_limit, v, sizeof v);
        o += (size_t)snprintf(line + o, sizeof line - o, " max_memory_limit=%s", v);
    }
    if (x->l.statement_timeout_ms) {
        fmt_ms(x->l.statement_timeout_ms, v, sizeof v);
        o += (size_t)snprintf(line + o, sizeof line - o, " statement_timeout=%s", v);
    }
    if (x->l.max_statement_timeout_ms) {
        fmt_ms(x->l.max_statement_timeout_ms, v, sizeof v);
        o += (size_t)snprintf(line + o, sizeof line - o, " max_statement_timeout=%s", v);
    }
    if (x->l.max_statements)
        snprintf(line + o, sizeof line - o, " max_statements=%" PRIu32, x->l.max_statements);
    return fl_arena_strdup(ar, line);
}

static int str_cmp(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

fl_status fl_auth_role_limits_list(fl_auth *a, fl_arena *ar, const char ***lines, uint32_t *n,
                                   fl_error *err)
{
    *lines = NULL;
    *n = 0;
    if (!a->store)
        return fl_errorf(err, FL_EINVAL, "auth: no store configured");
    pthread_mutex_lock(&a->lock);
    fl_status rc = auth_refresh_locked(a, err);
    uint32_t cnt = rc == FL_OK ? a->snap.nlimits : 0;
    const char **out = NULL;
    if (rc == FL_OK && !(out = fl_arena_calloc(ar, cnt + 1, sizeof *out)))
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; rc == FL_OK && i < cnt; i++)
        if (!(out[i] = limits_line(&a->snap.limits[i], ar)))
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    pthread_mutex_unlock(&a->lock);
    if (rc != FL_OK)
        return rc;
    qsort(out, cnt, sizeof *out, str_cmp);
    *lines = out;
    *n = cnt;
    return FL_OK;
}
