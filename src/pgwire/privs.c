/*
 * privs.c - checks a classified statement's tables against the session
 * principal's grants (auth.h) before the statement runs: reads need READ,
 * writes WRITE, CREATE TABLE/VIEW CREATE on the namespace, DROP/RENAME DROP.
 * A refusal is SQLSTATE 42501 insufficient_privilege and nothing has run.
 *
 * Unqualified names resolve against the session's search_path (the
 * engine's default namespace). pg_catalog and information_schema relations
 * (and unqualified pg_* names, which PostgreSQL resolves to pg_catalog)
 * are the engine's virtual catalog and need no grant. A "t$snapshots"
 * metadata table is checked as its base table t. Table functions reading
 * paths (ns "*") need the admin role.
 */
#include <stdio.h>
#include <string.h>

#include "pgwire/pgw.h"

static bool virtual_rel(const pgw_target *t)
{
    if (!strcmp(t->ns, "pg_catalog") || !strcmp(t->ns, "information_schema"))
        return true;
    return !t->ns[0] && !strncmp(t->name, "pg_", 3);
}

static const char *priv_word(int p)
{
    switch (p) {
    case FL_PRIV_READ:
        return "read";
    case FL_PRIV_WRITE:
        return "write";
    case FL_PRIV_CREATE:
        return "create";
    default:
        return "drop";
    }
}

bool pgw_check_privileges(pgw_conn *c, const pgw_class *k)
{
    if (c->who.anonymous || c->who.admin || !c->srv->auth)
        return true;
    if (k->too_deep) { /* its tables are unknown; the engine refuses it anyway (54001) */
        if (k->deep_msg[0])
            pgw_send_error(c, "ERROR", "54001", k->deep_pos, "%s", k->deep_msg);
        else
            pgw_send_error(c, "ERROR", "54001", 0,
                           "statement too complex: nesting too deep to check its privileges");
        return false;
    }
    if (k->too_many_targets) {
        pgw_send_error(c, "ERROR", "42501", 0,
                       "permission denied: statement names more than %d tables",
                       PGW_MAX_TARGETS);
        return false;
    }
    const char *def = c->sess ? fl_sql_get(c->sess, "search_path") : NULL;
    for (uint32_t i = 0; i < k->ntargets; i++) {
        const pgw_target *t = &k->targets[i];
        if (virtual_rel(t))
            continue;
        if (!strcmp(t->ns, "*")) {
            pgw_send_error(c, "ERROR", "42501", 0,
                           "permission denied: table functions reading files need the admin role");
            return false;
        }
        fl_arena a;
        fl_arena_init(&a, 0);
        fl_error err = {0};
        fl_namespace ns;
        memset(&ns, 0, sizeof ns);
        const char *nstr = t->ns[0] ? t->ns : def ? def : "default";
        fl_status rc = FL_OK;
        bool catalog = !strcmp(t->ns, "*catalog");
        if (!catalog)
            rc = fl_namespace_parse(nstr, &a, &ns, &err);
        char obj[128];
        snprintf(obj, sizeof obj, "%s", t->name);
        char *dollar = strchr(obj, '$');
        if (dollar)
            *dollar = '\0';
        if (rc == FL_OK)
            rc = fl_auth_authorize(c->srv->auth, &c->who, (fl_privilege)t->priv,
                                   catalog ? NULL : &ns, obj[0] ? obj : NULL, &err);
        fl_arena_free(&a);
        if (rc != FL_OK) {
            if (rc == FL_EFORBIDDEN)
                pgw_send_error(c, "ERROR", "42501", 0, "permission denied: %s", err.msg);
            else
                pgw_send_error(c, "ERROR", "42501", 0, "permission denied (%s %s%s%s): %s",
                               priv_word(t->priv), t->ns, t->ns[0] ? "." : "", t->name, err.msg);
            return false;
        }
    }
    return true;
}
