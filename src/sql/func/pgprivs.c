/*
 * pgprivs.c - has_table_privilege and has_schema_privilege answered by the
 * engine's authorizer (src/sql/authz), so BI tools that ask before showing a
 * table (Metabase, DBeaver, psql's \dp) see what the principal may really do.
 *
 * WHY A BIND STEP
 *   As pgrelinfo.c: the object is usually a column (pg_class.oid,
 *   pg_namespace.oid), the answer comes from the grants, which kernels cannot
 *   reach. The binder builds an fl_pg_oid_map over the statement's catalog
 *   snapshot (only objects the principal may see are in it) with num = 1
 *   where the privilege is held, and binds the call as
 *   __pg_oid_int(object) = 1; an OID not in the snapshot gives NULL, as
 *   PostgreSQL gives for a dropped object.
 *
 * SEMANTICS
 *   The privilege text is a constant, a comma-separated list (any of them
 *   will do, as PostgreSQL), case-insensitive, "WITH GRANT OPTION" ignored
 *   (floe's grants have none: false). Tables: SELECT -> READ; INSERT,
 *   UPDATE, DELETE, TRUNCATE -> WRITE; REFERENCES, TRIGGER, MAINTAIN -> never
 *   (floe has neither). Schemas: USAGE -> the schema is visible; CREATE ->
 *   CREATE on it. pg_catalog and information_schema: SELECT and USAGE.
 *   The three-argument form answers for the session's principal only; for
 *   another user name it is false (floe does not reveal others' grants).
 *   Without authorization (an embedded session) everything is held.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/authz/authz.h"
#include "sql/func/func_internal.h"
#include "sql/func/pgfunc.h"
#include "sql/pgcat/pgcat.h"

enum { P_READ = 1, P_WRITE = 2, P_CREATE = 4, P_USAGE = 8 };

/* The privilege list as P_* bits; -1 for an unknown word (22023). */
static int parse_privs(const char *s, bool schema)
{
    int bits = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    char *save = NULL;
    for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*w))
            w++;
        char *e = w + strlen(w);
        while (e > w && isspace((unsigned char)e[-1]))
            *--e = '\0';
        size_t n = strlen(w);
        if (n > 18 && !strcasecmp(w + n - 18, " with grant option"))
            continue; /* no grant options in floe: never held */
        if (schema ? !strcasecmp(w, "usage") : !strcasecmp(w, "select"))
            bits |= schema ? P_USAGE : P_READ;
        else if (schema && !strcasecmp(w, "create"))
            bits |= P_CREATE;
        else if (!schema && (!strcasecmp(w, "insert") || !strcasecmp(w, "update") ||
                             !strcasecmp(w, "delete") || !strcasecmp(w, "truncate")))
            bits |= P_WRITE;
        else if (schema || (strcasecmp(w, "references") && strcasecmp(w, "trigger") &&
                            strcasecmp(w, "maintain")))
            return -1;
    }
    return bits;
}

static bool holds_table(fl_planner_ctx *pc, const fl_pgcat_rel *r, int bits)
{
    if (r->builtin)
        return (bits & P_READ) != 0;
    fl_error e;
    fl_error_clear(&e);
    fl_namespace ns;
    if (fl_namespace_parse(r->nsp, pc->arena, &ns, &e) != FL_OK)
        return false;
    return ((bits & P_READ) && fl_sql_authz_holds(pc, FL_PRIV_READ, &ns, r->name)) ||
           ((bits & P_WRITE) && fl_sql_authz_holds(pc, FL_PRIV_WRITE, &ns, r->name));
}

static bool holds_schema(fl_planner_ctx *pc, const fl_pgcat_nsp *n, int bits)
{
    if (!strcmp(n->name, "pg_catalog") || !strcmp(n->name, "information_schema") ||
        !strncmp(n->name, "pg_temp", 7))
        return (bits & P_USAGE) != 0;
    fl_error e;
    fl_error_clear(&e);
    fl_namespace ns;
    if (fl_namespace_parse(n->name, pc->arena, &ns, &e) != FL_OK)
        return false;
    return (bits & P_USAGE) || /* listed in the snapshot: visible */
           ((bits & P_CREATE) && fl_sql_authz_holds(pc, FL_PRIV_CREATE, &ns, NULL));
}

static fl_status const_text(fl_bctx *b, const PgQuery__Node *n, const char *what, int32_t loc,
                            const char **out, fl_error *err)
{
    fl_expr *e;
    FL_TRY(fl_bind_expr(b, n, &e, err));
    e = fl_front_fold(b->a, e);
    if (e->kind != FL_EXPR_CONST || e->value.is_null ||
        !(e->type.id == FL_TYPE_STRING || fl_is_unknown(&e->type)))
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, loc, "0A000",
                            "has_*_privilege() needs a constant %s", what);
    *out = fl_arena_strndup(b->a, (const char *)e->value.v.bytes.ptr, e->value.v.bytes.len);
    return *out ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
}

/* The map over the snapshot's relations or schemas, num = 1 where held. */
static fl_status privilege_map(fl_bctx *b, bool schema, int bits, bool other_user,
                               fl_pg_oid_map **out, fl_error *err)
{
    fl_pgcat_snap *s;
    FL_TRY(fl_pgcat_snap_get(b->pc, &s, err));
    uint32_t n = schema ? s->nnsps : s->nrels;
    fl_pg_oid_map *m = fl_pg_oid_map_new(b->a, n, schema ? "schema" : "relation");
    if (!m)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = m->n++;
        bool held = false;
        if (schema) {
            const fl_pgcat_nsp *x = &s->nsps[i];
            m->keys[k] = x->oid;
            m->names[2 * k] = x->name;
            held = !other_user && holds_schema(b->pc, x, bits);
        } else {
            const fl_pgcat_rel *r = &s->rels[i];
            m->keys[k] = r->oid;
            m->names[2 * k] = fl_arena_sprintf(b->a, "%s.%s", r->nsp, r->name);
            if (!m->names[2 * k])
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            if (strcmp(r->nsp, s->schema) == 0 || strcmp(r->nsp, "pg_catalog") == 0)
                m->names[2 * k + 1] = r->name;
            held = !other_user && holds_table(b->pc, r, bits);
        }
        m->num[k] = held ? 1 : 0;
        m->has_num[k] = true;
    }
    fl_pg_oid_map_sort(m);
    *out = m;
    return FL_OK;
}

fl_status fl_pgfunc_bind_privilege(fl_bctx *b, const PgQuery__FuncCall *f, const char *name,
                                   fl_expr **out, bool *handled, fl_error *err)
{
    *handled = false;
    bool schema = !strcmp(name, "has_schema_privilege");
    if ((!schema && strcmp(name, "has_table_privilege") != 0) || f->n_args < 2 || f->n_args > 3)
        return FL_OK;
    *handled = true;
    int32_t loc = f->location;
    size_t obj = f->n_args == 3 ? 1 : 0;
    bool other_user = false;
    if (f->n_args == 3) {
        const char *user;
        FL_TRY(const_text(b, f->args[0], "user name", loc, &user, err));
        const fl_principal *p = fl_sql_authz_effective(b->pc->authz);
        const char *me = p ? p->name : (b->pc->user ? b->pc->user : "floe");
        other_user = strcmp(user, me) != 0 && strcasecmp(user, "current_user") != 0;
    }
    const char *ptext;
    FL_TRY(const_text(b, f->args[obj + 1], "privilege", loc, &ptext, err));
    int bits = parse_privs(ptext, schema);
    if (bits < 0)
        return fl_front_err(b->pc, err, FL_EINVAL, loc, "22023", "unrecognized privilege type: \"%s\"",
                            ptext);
    fl_expr *arg;
    FL_TRY(fl_bind_expr(b, f->args[obj], &arg, err));
    fl_pg_oid_map *m = NULL;
    FL_TRY(privilege_map(b, schema, bits, other_user, &m, err));
    FL_TRY(fl_pg_oid_map_const_name(b, m, schema ? "3F000" : "42P01", &arg, err));
    fl_expr *call = NULL;
    char tn[64];
    if (fl_expr_call(b->a, "__pg_oid_int", &arg, 1, loc, &call, err) != FL_OK)
        return fl_front_err(b->pc, err, FL_ETYPE, loc, "42883", "function %s(%s) does not exist",
                            name, (fl_type_format(&arg->type, tn, sizeof tn), tn));
    call->bind_data = m;
    fl_value one;
    memset(&one, 0, sizeof one);
    one.type = call->type;
    one.v.i64 = 1;
    fl_expr *args[2] = {call, fl_expr_const(b->a, &one)};
    if (!args[1])
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return fl_expr_call(b->a, "=", args, 2, loc, out, err);
}
