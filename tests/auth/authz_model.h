/*
 * authz_model.h - an independent reference model of floe's grant model
 * (src/auth/README.md, "Model"), for the authorizer fuzz target
 * (fuzz/fuzz_authz.c) and the engine's differential fuzzer
 * (tests/sql/test_authz_differential.c). Header-only test code; it shares
 * nothing with src/auth but the public constants of floe/auth.h.
 *
 * THE RULES, AS DOCUMENTED
 *   - A grant is (role, privilege, securable); privileges are independent
 *     (none implies another). The built-in role "admin" holds everything.
 *   - Securables: the catalog (covers everything), a namespace N (covers N,
 *     every namespace below it and every table in any of them; levels are
 *     compared whole, never as string prefixes: "a" covers neither "ab" nor
 *     the one level "a.b"), a table N.T (exactly that table or view).
 *   - A grant's namespace levels are non-empty and never contain 0x1F (the
 *     store's level separator); a table name is 1..255 bytes; a table needs
 *     a namespace; the joined namespace is under 1000 bytes. Anything else
 *     is refused when granted (am_grant_valid).
 *   - Visibility (fl_auth_visible): a table is visible when any grant of
 *     any privilege covers it; a namespace when a grant covers it or lies
 *     inside it (a namespace below it, or a table in it or below); the
 *     catalog when the principal holds any grant at all; admins see
 *     everything; unknown or anonymous principals see nothing.
 *
 * Sizes are fixed (small arrays) so that the model never allocates.
 */
#ifndef FLOE_TESTS_AUTHZ_MODEL_H
#define FLOE_TESTS_AUTHZ_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "floe/auth.h"

#define AM_NAME_MAX 320 /* longer than any valid name: invalid ones must fit too */
#define AM_MAX_LEVELS 5
#define AM_MAX_GRANTS 256
#define AM_MAX_ROLES 8
#define AM_MAX_PRINCIPALS 8

typedef enum am_kind { AM_CATALOG = 0, AM_NAMESPACE = 1, AM_TABLE = 2 } am_kind;

/* A securable: nlevels namespace levels and, for a table, object. */
typedef struct am_sec {
    uint32_t nlevels;
    char levels[AM_MAX_LEVELS][AM_NAME_MAX];
    bool has_object;
    char object[AM_NAME_MAX];
} am_sec;

typedef struct am_grant {
    char role[64];
    uint32_t priv;
    am_sec sec;
} am_grant;

typedef struct am_principal {
    char name[64];
    char roles[AM_MAX_ROLES][64];
    uint32_t nroles;
} am_principal;

typedef struct am_model {
    am_grant grants[AM_MAX_GRANTS];
    uint32_t ngrants;
    am_principal principals[AM_MAX_PRINCIPALS];
    uint32_t nprincipals;
} am_model;

static inline bool am_priv_known(uint32_t p)
{
    return p == FL_PRIV_READ || p == FL_PRIV_WRITE || p == FL_PRIV_CREATE || p == FL_PRIV_DROP ||
           p == FL_PRIV_MANAGE_GRANTS;
}

static inline am_kind am_kind_of(const am_sec *s)
{
    return s->has_object ? AM_TABLE : s->nlevels ? AM_NAMESPACE : AM_CATALOG;
}

/* Would fl_auth_grant accept this securable? */
static inline bool am_grant_valid(const am_sec *s)
{
    if (s->has_object && (s->nlevels == 0 || !s->object[0] || strlen(s->object) > 255))
        return false;
    size_t joined = 0;
    for (uint32_t i = 0; i < s->nlevels; i++) {
        if (!s->levels[i][0] || strchr(s->levels[i], 0x1F))
            return false;
        joined += strlen(s->levels[i]) + 1;
    }
    return joined + 1 <= 1000;
}

static inline bool am_sec_equal(const am_sec *a, const am_sec *b)
{
    if (a->nlevels != b->nlevels || a->has_object != b->has_object)
        return false;
    for (uint32_t i = 0; i < a->nlevels; i++)
        if (strcmp(a->levels[i], b->levels[i]) != 0)
            return false;
    return !a->has_object || strcmp(a->object, b->object) == 0;
}

/* Are the first n levels of x and y the same strings? */
static inline bool am_levels_match(const am_sec *x, const am_sec *y, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(x->levels[i], y->levels[i]) != 0)
            return false;
    return true;
}

/* Does grant securable g cover request r? */
static inline bool am_covers(const am_sec *g, const am_sec *r)
{
    switch (am_kind_of(g)) {
    case AM_CATALOG: return true;
    case AM_NAMESPACE: return r->nlevels >= g->nlevels && am_levels_match(g, r, g->nlevels);
    default:
        return r->has_object && r->nlevels == g->nlevels && am_levels_match(g, r, g->nlevels) &&
               strcmp(g->object, r->object) == 0;
    }
}

/* Is grant securable g the namespace r itself or something inside it? */
static inline bool am_inside(const am_sec *g, const am_sec *r)
{
    return am_kind_of(g) != AM_CATALOG && g->nlevels >= r->nlevels &&
           am_levels_match(g, r, r->nlevels);
}

static inline am_principal *am_principal_find(am_model *m, const char *name)
{
    for (uint32_t i = 0; i < m->nprincipals; i++)
        if (!strcmp(m->principals[i].name, name))
            return &m->principals[i];
    return NULL;
}

static inline bool am_holds(const am_principal *p, const char *role)
{
    for (uint32_t i = 0; i < p->nroles; i++)
        if (!strcmp(p->roles[i], role))
            return true;
    return false;
}

/* ---- mutations (mirror what the store accepted) ---- */

static inline am_principal *am_add_principal(am_model *m, const char *name)
{
    am_principal *p = am_principal_find(m, name);
    if (p || m->nprincipals == AM_MAX_PRINCIPALS)
        return p;
    p = &m->principals[m->nprincipals++];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    return p;
}

static inline void am_assign(am_model *m, const char *principal, const char *role, bool assign)
{
    am_principal *p = am_principal_find(m, principal);
    if (!p)
        return;
    for (uint32_t i = 0; i < p->nroles; i++)
        if (!strcmp(p->roles[i], role)) {
            if (!assign)
                memcpy(p->roles[i], p->roles[--p->nroles], sizeof p->roles[i]);
            return;
        }
    if (assign && p->nroles < AM_MAX_ROLES)
        snprintf(p->roles[p->nroles++], sizeof p->roles[0], "%s", role);
}

/* Index of an identical grant, or -1. */
static inline int am_find_grant(const am_model *m, const char *role, uint32_t priv, const am_sec *s)
{
    for (uint32_t i = 0; i < m->ngrants; i++)
        if (m->grants[i].priv == priv && !strcmp(m->grants[i].role, role) &&
            am_sec_equal(&m->grants[i].sec, s))
            return (int)i;
    return -1;
}

/* Records a grant (grant = true) or its revocation; returns false when the
 * model is full (the caller then stops granting). */
static inline bool am_set_grant(am_model *m, const char *role, uint32_t priv, const am_sec *s,
                                bool grant)
{
    int i = am_find_grant(m, role, priv, s);
    if (!grant) {
        if (i >= 0)
            m->grants[i] = m->grants[--m->ngrants];
        return true;
    }
    if (i >= 0)
        return true;
    if (m->ngrants == AM_MAX_GRANTS)
        return false;
    am_grant *g = &m->grants[m->ngrants++];
    snprintf(g->role, sizeof g->role, "%s", role);
    g->priv = priv;
    g->sec = *s;
    return true;
}

static inline void am_drop_role(am_model *m, const char *role)
{
    for (uint32_t i = 0; i < m->ngrants;)
        if (!strcmp(m->grants[i].role, role))
            m->grants[i] = m->grants[--m->ngrants];
        else
            i++;
    for (uint32_t i = 0; i < m->nprincipals; i++)
        am_assign(m, m->principals[i].name, role, false);
}

/* ---- the questions ---- */

/* fl_auth_authorize(p, priv, r): may principal `name` do priv on r? */
static inline bool am_allows(am_model *m, const char *name, uint32_t priv, const am_sec *r)
{
    const am_principal *p = am_principal_find(m, name);
    if (!p || !am_priv_known(priv) || (r->has_object && r->nlevels == 0))
        return false;
    if (am_holds(p, "admin"))
        return true;
    for (uint32_t i = 0; i < m->ngrants; i++) {
        const am_grant *g = &m->grants[i];
        if (g->priv == priv && am_holds(p, g->role) && am_covers(&g->sec, r))
            return true;
    }
    return false;
}

/* fl_auth_visible(p, r) */
static inline bool am_visible(am_model *m, const char *name, const am_sec *r)
{
    const am_principal *p = am_principal_find(m, name);
    if (!p || (r->has_object && r->nlevels == 0))
        return false;
    if (am_holds(p, "admin"))
        return true;
    for (uint32_t i = 0; i < m->ngrants; i++) {
        const am_grant *g = &m->grants[i];
        if (!am_holds(p, g->role))
            continue;
        if (am_covers(&g->sec, r) || (!r->has_object && am_inside(&g->sec, r)))
            return true;
    }
    return false;
}

/* Fills an fl_namespace (levels pointing into s) for the API under test. */
static inline fl_namespace am_ns(const am_sec *s, const char **buf)
{
    for (uint32_t i = 0; i < s->nlevels; i++)
        buf[i] = s->levels[i];
    fl_namespace ns = {s->nlevels, buf};
    return ns;
}

#endif
