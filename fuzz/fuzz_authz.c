/*
 * fuzz_authz.c - the authorizer's inputs (fl_auth_grant, fl_auth_role_assign,
 * fl_auth_authorize, fl_auth_visible) against an independent reference model
 * of the grant model (tests/auth/authz_model.h, from src/auth/README.md).
 *
 * One in-memory SQLite auth store per process (the only static state) with
 * principals p0..p2, the admin p3 and roles r0..r3. Each input starts from
 * that baseline (grants and role assignments of the previous input undone)
 * and is a program: its bytes pick operations until they run out -
 *   grant / revoke (role, privilege - also unknown ones -, a securable of
 *   the catalog, a namespace of 0..4 levels or a table, each name from a
 *   pool of nasty names: dots inside a level, 0x1F and 0x1E, empty levels,
 *   prefix traps "pub" / "pubx" / "pu", case and space variants, unicode
 *   and its decomposed twin, invalid UTF-8, 255 and 256 bytes, or raw bytes
 *   of the input), role assignment (the admin role too), dropping and
 *   re-creating a role, and questions.
 * A question is (principal - also one that does not exist, and with the
 * fl_principal's admin flag and anonymous flag forged -, privilege,
 * securable); after the program, every principal is asked about every
 * privilege on each granted securable and its neighbours (parent, child,
 * table inside, prefix traps).
 *
 * Properties (abort on violation), besides "no crash, leak or UB":
 *   - a grant is accepted exactly when the model calls it valid, revoking
 *     answers FL_OK exactly for a grant held, assignments as the model says;
 *   - fl_auth_authorize allows exactly what the model allows (a refusal is
 *     FL_EFORBIDDEN or FL_EINVAL with a message); fl_auth_visible answers
 *     as the model; whatever is allowed is visible;
 *   - the forged admin flag of an fl_principal never grants anything, and
 *     an anonymous principal gets nothing from a store without anonymous
 *     mode.
 * FUZZ_AUTHZ_PRINT=1 prints every operation.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/auth/authz_model.h"
#include "floe/auth.h"

#define NPR 4 /* p0..p2 ordinary, p3 admin */
#define NROLE 4

typedef struct fz_in {
    const uint8_t *d;
    size_t n, pos;
} fz_in;

static uint8_t next(fz_in *in)
{
    return in->pos < in->n ? in->d[in->pos++] : 0;
}

static bool more(const fz_in *in)
{
    return in->pos < in->n;
}

static fl_auth *g_auth;
static am_model g_model;
static bool g_print;

static const char *pr_name(uint32_t i)
{
    static const char *const n[] = {"p0", "p1", "p2", "p3", "ghost"};
    return n[i % 5];
}

static const char *role_name(uint32_t i)
{
    static const char *const n[] = {"r0", "r1", "r2", "r3"};
    return n[i % NROLE];
}

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_authz: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

static void setup(void)
{
    fl_auth_options o = {.store_uri = "sqlite::memory:"};
    fl_error err;
    char sec[128];
    if (fl_auth_open(&o, &g_auth, &err) != FL_OK)
        die("open", err.msg);
    for (uint32_t i = 0; i < NPR; i++) {
        if (fl_auth_principal_create(g_auth, pr_name(i), i == 3, sec, sizeof sec, &err) != FL_OK)
            die("principal", err.msg);
        am_add_principal(&g_model, pr_name(i));
    }
    am_assign(&g_model, "p3", "admin", true);
    for (uint32_t i = 0; i < NROLE; i++)
        if (fl_auth_role_create(g_auth, role_name(i), &err) != FL_OK)
            die("role", err.msg);
    g_print = getenv("FUZZ_AUTHZ_PRINT") != NULL;
}

/* ---- securables ---- */

static void pool_name(fz_in *in, char *out, size_t cap)
{
    static const char *const pool[] = {
        "pub",       "pubx",     "pu",   "secret", "pub.x", "pub\x1fx", "",   "\xc3\xa9",
        "e\xcc\x81", "PUB",      "pub ", "%",      "_",     "*",        "..", ".",
        "pub\x1e",   "\xff\xfe", "x",    "a.b",    "t",     "t\x1f",
    };
    uint8_t c = next(in);
    size_t np = sizeof pool / sizeof *pool;
    if (c < 200) {
        snprintf(out, cap, "%s", pool[c % np]);
    } else if (c < 230) { /* raw bytes of the input, NUL excluded */
        size_t len = next(in) % 12, o = 0;
        for (size_t i = 0; i < len && o + 1 < cap; i++) {
            uint8_t b = next(in);
            if (b)
                out[o++] = (char)b;
        }
        out[o] = '\0';
    } else { /* long names around the 255-byte table-name limit */
        static const size_t lens[] = {254, 255, 256, 300};
        size_t len = lens[c % 4];
        len = len < cap - 1 ? len : cap - 1;
        memset(out, c & 1 ? 'a' : 'b', len);
        out[len] = '\0';
    }
}

static void read_sec(fz_in *in, am_sec *s)
{
    memset(s, 0, sizeof *s);
    uint8_t k = next(in);
    uint32_t kind = k % 3;
    if (kind == AM_CATALOG)
        return;
    s->nlevels = 1 + (k / 3) % 4;
    if (k >= 240)
        s->nlevels = 0; /* a table without a namespace: invalid */
    for (uint32_t i = 0; i < s->nlevels; i++)
        pool_name(in, s->levels[i], sizeof s->levels[i]);
    if (kind == AM_TABLE) {
        s->has_object = true;
        pool_name(in, s->object, sizeof s->object);
    }
}

static uint32_t read_priv(fz_in *in)
{
    static const uint32_t p[] = {FL_PRIV_READ, FL_PRIV_WRITE, FL_PRIV_CREATE, FL_PRIV_DROP,
                                 FL_PRIV_MANAGE_GRANTS};
    uint8_t c = next(in);
    if (c >= 250)
        return (uint32_t)(c % 3 == 0 ? 0 : c % 3 == 1 ? 3 : 32); /* not a privilege */
    return p[c % 5];
}

static void show(const char *op, const char *who, uint32_t priv, const am_sec *s, int rc)
{
    if (!g_print)
        return;
    fprintf(stderr, "%s %s %s [", op, who, priv ? fl_privilege_name((fl_privilege)priv) : "-");
    for (uint32_t i = 0; i < s->nlevels; i++)
        fprintf(stderr, "%s\"%s\"", i ? "," : "", s->levels[i]);
    fprintf(stderr, "]%s%s%s -> %d\n", s->has_object ? " \"" : "", s->has_object ? s->object : "",
            s->has_object ? "\"" : "", rc);
}

/* ---- operations ---- */

static void op_grant(fz_in *in, bool grant)
{
    const char *role = role_name(next(in));
    uint32_t priv = read_priv(in);
    am_sec s;
    read_sec(in, &s);
    if (!grant && g_model.ngrants && next(in) % 2) { /* revoke one that is held */
        const am_grant *g = &g_model.grants[next(in) % g_model.ngrants];
        role = g->role;
        priv = g->priv;
        s = g->sec;
    }
    char role_copy[64];
    snprintf(role_copy, sizeof role_copy, "%s", role);
    const char *lv[AM_MAX_LEVELS];
    fl_namespace ns = am_ns(&s, lv);
    fl_error err;
    fl_error_clear(&err);
    fl_status rc = fl_auth_grant(g_auth, role_copy, (fl_privilege)priv, &ns,
                                 s.has_object ? s.object : NULL, grant, &err);
    show(grant ? "grant" : "revoke", role_copy, priv, &s, rc);
    bool valid = am_priv_known(priv) && am_grant_valid(&s);
    bool held = am_find_grant(&g_model, role_copy, priv, &s) >= 0;
    if (!valid) {
        if (rc == FL_OK)
            die("an invalid grant or revoke was accepted", role_copy);
        return;
    }
    if (grant ? rc != FL_OK : (rc == FL_OK) != held)
        die(grant ? "a valid grant failed" : "revoke disagrees with the model", err.msg);
    if (!am_set_grant(&g_model, role_copy, priv, &s, grant))
        fl_auth_grant(g_auth, role_copy, (fl_privilege)priv, &ns, s.has_object ? s.object : NULL,
                      false, &err); /* the model is full: keep the store equal to it */
}

static void op_assign(fz_in *in)
{
    uint8_t c = next(in);
    const char *who = pr_name(c % 5);
    const char *role = (c / 5) % 5 == 4 ? "admin" : role_name((c / 5) % 5);
    bool assign = next(in) % 2;
    fl_error err;
    fl_status rc = fl_auth_role_assign(g_auth, who, role, assign, &err);
    am_principal *p = am_principal_find(&g_model, who);
    if (g_print)
        fprintf(stderr, "%s %s %s -> %d\n", assign ? "assign" : "unassign", who, role, rc);
    if (!p) {
        if (rc == FL_OK)
            die("a role was assigned to a principal that does not exist", who);
        return;
    }
    bool held = am_holds(p, role);
    if (assign ? rc != FL_OK : (rc == FL_OK) != held)
        die("role assignment disagrees with the model", err.msg);
    am_assign(&g_model, who, role, assign);
}

static void op_drop_role(fz_in *in)
{
    const char *role = role_name(next(in));
    fl_error err;
    if (fl_auth_role_drop(g_auth, role, &err) != FL_OK ||
        fl_auth_role_create(g_auth, role, &err) != FL_OK)
        die("drop and re-create role", err.msg);
    am_drop_role(&g_model, role);
    if (g_print)
        fprintf(stderr, "drop+create %s\n", role);
}

/* Asks one question and compares with the model. forge: 1 = the admin flag
 * set on a principal that is no admin, 2 = anonymous. */
static void ask(uint32_t who_i, uint32_t priv, const am_sec *s, int forge)
{
    fl_principal p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "%s", pr_name(who_i));
    p.admin = forge == 1;
    p.anonymous = forge == 2;
    const char *lv[AM_MAX_LEVELS];
    fl_namespace ns = am_ns(s, lv);
    const char *obj = s->has_object ? s->object : NULL;
    fl_error err;
    fl_error_clear(&err);
    fl_status rc = fl_auth_authorize(g_auth, &p, (fl_privilege)priv, &ns, obj, &err);
    bool want = forge != 2 && am_allows(&g_model, p.name, priv, s);
    show("authorize", p.name, priv, s, rc);
    if ((rc == FL_OK) != want)
        die(want ? "authorize refused what the model allows" : "authorize allowed too much",
            err.msg);
    if (rc != FL_OK && ((rc != FL_EFORBIDDEN && rc != FL_EINVAL) || !err.msg[0]))
        die("a refusal without FL_EFORBIDDEN/FL_EINVAL and a message", err.msg);
    bool vis = true;
    fl_error_clear(&err);
    fl_status vrc = fl_auth_visible(g_auth, &p, &ns, obj, &vis, &err);
    bool vwant = forge != 2 && am_visible(&g_model, p.name, s);
    if (vis != vwant)
        die(vwant ? "visible hides what the model shows" : "visible shows too much", p.name);
    if (vrc != FL_OK && vis)
        die("visible failed but answered true", err.msg);
    if (rc == FL_OK && !vis)
        die("allowed but not visible", p.name);
}

static void op_ask(fz_in *in)
{
    uint8_t c = next(in);
    uint32_t priv = read_priv(in);
    am_sec s;
    read_sec(in, &s);
    ask(c % 5, priv, &s, c >= 240 ? 1 + (c & 1) : 0);
}

/* Neighbours of a granted securable: itself, its parent, a child
 * namespace, a table inside, and prefix traps of its last level. */
static uint32_t neighbours(const am_sec *g, am_sec *out)
{
    uint32_t n = 0;
    out[n++] = *g;
    am_sec x = *g;
    x.has_object = false;
    if (x.nlevels) {
        out[n++] = x; /* the namespace of a table, or the namespace itself */
        am_sec up = x;
        up.nlevels--;
        out[n++] = up;
        am_sec trap = x;
        size_t l = strlen(trap.levels[trap.nlevels - 1]);
        if (l + 2 < AM_NAME_MAX)
            memcpy(trap.levels[trap.nlevels - 1] + l, "x", 2);
        out[n++] = trap;
        if (l > 1) {
            am_sec cut = x;
            cut.levels[cut.nlevels - 1][l - 1] = '\0';
            out[n++] = cut;
        }
    }
    if (x.nlevels < AM_MAX_LEVELS) {
        am_sec kid = x;
        snprintf(kid.levels[kid.nlevels++], AM_NAME_MAX, "kid");
        out[n++] = kid;
        kid.has_object = true;
        snprintf(kid.object, AM_NAME_MAX, "t");
        out[n++] = kid;
    }
    if (x.nlevels) {
        am_sec tab = x;
        tab.has_object = true;
        snprintf(tab.object, AM_NAME_MAX, "%s", g->has_object ? "other" : "t");
        out[n++] = tab;
    }
    return n;
}

static void sweep(void)
{
    static const uint32_t privs[] = {FL_PRIV_READ, FL_PRIV_WRITE, FL_PRIV_CREATE, FL_PRIV_DROP,
                                     FL_PRIV_MANAGE_GRANTS};
    am_sec cat;
    memset(&cat, 0, sizeof cat);
    uint32_t ng = g_model.ngrants < 16 ? g_model.ngrants : 16;
    for (uint32_t gi = 0; gi <= ng; gi++) {
        am_sec nb[8];
        uint32_t n = gi < ng ? neighbours(&g_model.grants[gi].sec, nb) : (nb[0] = cat, 1);
        for (uint32_t k = 0; k < n; k++)
            for (uint32_t w = 0; w < 5; w++)
                for (uint32_t p = 0; p < 5; p++)
                    ask(w, privs[p], &nb[k], 0);
    }
}

/* Back to the baseline: no grants, p3 holds admin, nobody else a role. */
static void reset(void)
{
    fl_error err;
    for (uint32_t r = 0; r < NROLE; r++) {
        bool used = false;
        for (uint32_t i = 0; i < g_model.ngrants && !used; i++)
            used = !strcmp(g_model.grants[i].role, role_name(r));
        for (uint32_t i = 0; i < NPR && !used; i++)
            used = am_holds(&g_model.principals[i], role_name(r));
        if (used && (fl_auth_role_drop(g_auth, role_name(r), &err) != FL_OK ||
                     fl_auth_role_create(g_auth, role_name(r), &err) != FL_OK))
            die("reset", err.msg);
        if (used)
            am_drop_role(&g_model, role_name(r));
    }
    for (uint32_t i = 0; i < NPR; i++) {
        bool admin = am_holds(&g_model.principals[i], "admin");
        if (admin != (i == 3)) {
            if (fl_auth_role_assign(g_auth, pr_name(i), "admin", i == 3, &err) != FL_OK)
                die("reset admin", err.msg);
            am_assign(&g_model, pr_name(i), "admin", i == 3);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    if (!g_auth)
        setup();
    reset();
    fz_in in = {data, size, 0};
    for (uint32_t ops = 0; more(&in) && ops < 64; ops++) {
        uint8_t op = next(&in) % 10;
        if (op < 4)
            op_grant(&in, true);
        else if (op == 4)
            op_grant(&in, false);
        else if (op == 5)
            op_assign(&in);
        else if (op == 6)
            op_drop_role(&in);
        else
            op_ask(&in);
    }
    sweep();
    return 0;
}
