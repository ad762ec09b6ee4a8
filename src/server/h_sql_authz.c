/*
 * h_sql_authz.c - which grants one SQL statement needs, checked against the
 * request's principal before the statement runs (so a refused write never
 * commits anything). The statement is parsed with the engine's front end
 * (fl_sql_parse: PostgreSQL grammar plus floe's lakehouse syntax) and its
 * protobuf tree walked:
 *   - every RangeVar is read (READ on the table), except names of CTEs, and
 *     pg_catalog / information_schema relations (the engine's virtual
 *     catalog); "t$snapshots"-style metadata tables are checked as t;
 *   - the target of INSERT / UPDATE / DELETE / MERGE / TRUNCATE / ALTER
 *     TABLE (and ALTER TABLE ... EXECUTE) needs WRITE;
 *   - CREATE TABLE / CREATE TABLE AS / CREATE VIEW need CREATE on the
 *     namespace, CREATE SCHEMA CREATE on the catalog;
 *   - DROP and RENAME need DROP on the object (DROP SCHEMA: the namespace);
 *   - table functions reading files or paths (read_parquet, read_csv,
 *     read_json, iceberg_scan, ...) need the admin role: paths are outside
 *     the grant model.
 * Unqualified names resolve against the request's namespace. Reading a view
 * needs READ on the view only (the view's own tables are not re-checked,
 * like a PostgreSQL view owned by its creator).
 */
#include <stdio.h>
#include <string.h>

#include "server/h_sql.h"
#include "sql/front.h"
#include "sql/planner.h"

#define MAX_TARGETS 64
#define MAX_CTES 64

typedef struct target {
    const char *ns;   /* NULL = the default namespace; "" = the catalog */
    const char *name; /* NULL = the namespace itself */
    fl_privilege priv;
} target;

typedef struct walk {
    fl_arena *a;
    target t[MAX_TARGETS];
    uint32_t n;
    bool overflow, files;
    const void *special[8]; /* RangeVars already classified (targets, created) */
    uint32_t nspecial;
    const char *ctes[MAX_CTES];
    uint32_t nctes;
} walk;

static void add(walk *w, const char *ns, const char *name, fl_privilege p)
{
    if (w->n >= MAX_TARGETS) {
        w->overflow = true;
        return;
    }
    w->t[w->n++] = (target){ns, name, p};
}

static const char *nz(const char *s)
{
    return s && *s ? s : NULL;
}

static void add_rv(walk *w, const PgQuery__RangeVar *rv, fl_privilege p)
{
    if (!rv || !rv->relname)
        return;
    if (w->nspecial < 8)
        w->special[w->nspecial++] = rv;
    char *name = fl_arena_strdup(w->a, rv->relname);
    if (!name)
        return;
    char *dollar = strchr(name, '$');
    if (dollar)
        *dollar = '\0';
    add(w, nz(rv->schemaname), name, p);
}

static bool is_special(const walk *w, const void *rv)
{
    for (uint32_t i = 0; i < w->nspecial; i++)
        if (w->special[i] == rv)
            return true;
    return false;
}

static void collect_ctes(const ProtobufCMessage *m, void *ud)
{
    walk *w = ud;
    if (m->descriptor == &pg_query__common_table_expr__descriptor) {
        const PgQuery__CommonTableExpr *c = (const PgQuery__CommonTableExpr *)m;
        if (c->ctename && w->nctes < MAX_CTES)
            w->ctes[w->nctes++] = c->ctename;
    }
}

static bool file_function(const char *name)
{
    return !strncmp(name, "read_", 5) || !strcmp(name, "iceberg_scan") ||
           !strcmp(name, "glob") || !strncmp(name, "parquet_", 8);
}

static void collect_reads(const ProtobufCMessage *m, void *ud)
{
    walk *w = ud;
    if (m->descriptor == &pg_query__range_function__descriptor) {
        const PgQuery__RangeFunction *rf = (const PgQuery__RangeFunction *)m;
        for (size_t i = 0; i < rf->n_functions; i++) {
            const PgQuery__Node *l = rf->functions[i];
            if (!l || l->node_case != PG_QUERY__NODE__NODE_LIST || !l->list->n_items)
                continue;
            const PgQuery__Node *fc = l->list->items[0];
            if (!fc || fc->node_case != PG_QUERY__NODE__NODE_FUNC_CALL)
                continue;
            const PgQuery__FuncCall *f = fc->func_call;
            if (f->n_funcname) {
                const char *fname = fl_front_str(f->funcname[f->n_funcname - 1]);
                if (fname && file_function(fname))
                    w->files = true;
            }
        }
        return;
    }
    if (m->descriptor != &pg_query__range_var__descriptor || is_special(w, m))
        return;
    const PgQuery__RangeVar *rv = (const PgQuery__RangeVar *)m;
    if (!rv->relname)
        return;
    const char *ns = rv->schemaname && *rv->schemaname ? rv->schemaname : NULL;
    if (ns && (!strcmp(ns, "pg_catalog") || !strcmp(ns, "information_schema")))
        return;
    if (!ns && !strncmp(rv->relname, "pg_", 3))
        return;
    if (!ns)
        for (uint32_t i = 0; i < w->nctes; i++)
            if (!strcmp(w->ctes[i], rv->relname))
                return;
    char *name = fl_arena_strdup(w->a, rv->relname);
    if (!name)
        return;
    char *dollar = strchr(name, '$');
    if (dollar)
        *dollar = '\0';
    add(w, ns, name, FL_PRIV_READ);
}

/* "a.b.c" -> namespace "a.b", object "c" (DROP objects are lists of names). */
static void add_names(walk *w, const PgQuery__Node *obj, fl_privilege p, bool schema)
{
    const char *parts[4];
    uint32_t n = 0;
    if (obj && obj->node_case == PG_QUERY__NODE__NODE_LIST) {
        for (size_t i = 0; i < obj->list->n_items && n < 4; i++)
            parts[n++] = fl_front_str(obj->list->items[i]);
    } else if (obj) {
        parts[n++] = fl_front_str(obj);
    }
    if (!n || !parts[n - 1])
        return;
    if (schema) {
        add(w, parts[n - 1], NULL, p);
        return;
    }
    const char *ns = NULL;
    if (n >= 2) {
        size_t len = 0;
        for (uint32_t i = 0; i + 1 < n; i++)
            len += strlen(parts[i] ? parts[i] : "") + 1;
        char *s = fl_arena_alloc(w->a, len + 1);
        if (!s)
            return;
        s[0] = '\0';
        for (uint32_t i = 0; i + 1 < n; i++) {
            if (i)
                strcat(s, ".");
            strcat(s, parts[i] ? parts[i] : "");
        }
        ns = s;
    }
    add(w, ns, parts[n - 1], p);
}

static void classify(walk *w, const fl_sql_parsed *p)
{
    if (p->execute) {
        const char *t = p->execute->table;
        const char *dot = strrchr(t, '.');
        if (dot)
            add(w, fl_arena_strndup(w->a, t, (size_t)(dot - t)), dot + 1, FL_PRIV_WRITE);
        else
            add(w, NULL, t, FL_PRIV_WRITE);
    }
    const PgQuery__Node *s = p->stmt;
    if (!s)
        return;
    switch (s->node_case) {
    case PG_QUERY__NODE__NODE_INSERT_STMT:
        add_rv(w, s->insert_stmt->relation, FL_PRIV_WRITE);
        break;
    case PG_QUERY__NODE__NODE_UPDATE_STMT:
        add_rv(w, s->update_stmt->relation, FL_PRIV_WRITE);
        break;
    case PG_QUERY__NODE__NODE_DELETE_STMT:
        add_rv(w, s->delete_stmt->relation, FL_PRIV_WRITE);
        break;
    case PG_QUERY__NODE__NODE_MERGE_STMT:
        add_rv(w, s->merge_stmt->relation, FL_PRIV_WRITE);
        break;
    case PG_QUERY__NODE__NODE_ALTER_TABLE_STMT:
        add_rv(w, s->alter_table_stmt->relation, FL_PRIV_WRITE);
        break;
    case PG_QUERY__NODE__NODE_TRUNCATE_STMT:
        for (size_t i = 0; i < s->truncate_stmt->n_relations; i++)
            if (s->truncate_stmt->relations[i]->node_case == PG_QUERY__NODE__NODE_RANGE_VAR)
                add_rv(w, s->truncate_stmt->relations[i]->range_var, FL_PRIV_WRITE);
        break;
    case PG_QUERY__NODE__NODE_CREATE_STMT: {
        const PgQuery__RangeVar *rv = s->create_stmt->relation;
        if (rv && w->nspecial < 8)
            w->special[w->nspecial++] = rv;
        if (rv)
            add(w, nz(rv->schemaname), NULL, FL_PRIV_CREATE);
        break;
    }
    case PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT: {
        const PgQuery__IntoClause *into = s->create_table_as_stmt->into;
        if (into && into->rel) {
            if (w->nspecial < 8)
                w->special[w->nspecial++] = into->rel;
            add(w, nz(into->rel->schemaname), NULL, FL_PRIV_CREATE);
        }
        break;
    }
    case PG_QUERY__NODE__NODE_VIEW_STMT: {
        const PgQuery__RangeVar *rv = s->view_stmt->view;
        if (rv && w->nspecial < 8)
            w->special[w->nspecial++] = rv;
        if (rv)
            add(w, nz(rv->schemaname), NULL, FL_PRIV_CREATE);
        break;
    }
    case PG_QUERY__NODE__NODE_CREATE_SCHEMA_STMT:
        add(w, "", NULL, FL_PRIV_CREATE);
        break;
    case PG_QUERY__NODE__NODE_DROP_STMT: {
        bool schema = s->drop_stmt->remove_type == PG_QUERY__OBJECT_TYPE__OBJECT_SCHEMA;
        for (size_t i = 0; i < s->drop_stmt->n_objects; i++)
            add_names(w, s->drop_stmt->objects[i], FL_PRIV_DROP, schema);
        break;
    }
    case PG_QUERY__NODE__NODE_RENAME_STMT:
        add_rv(w, s->rename_stmt->relation, FL_PRIV_DROP);
        break;
    default:
        break;
    }
    fl_front_walk((const ProtobufCMessage *)s, collect_ctes, w);
    fl_front_walk((const ProtobufCMessage *)s, collect_reads, w);
}

fl_status srv_sql_authorize(fl_auth *auth, const fl_principal *who, const char *sql,
                            const char *default_ns, fl_error *err, int32_t *position)
{
    fl_arena a;
    fl_arena_init(&a, 4096);
    fl_sql_parsed *p = NULL;
    *position = 0;
    fl_status rc = fl_sql_parse(sql, &a, &p, position, err);
    if (rc != FL_OK) {
        fl_arena_free(&a);
        return rc;
    }
    if (who->anonymous || who->admin || !auth) {
        fl_sql_parsed_free(p);
        fl_arena_free(&a);
        return FL_OK;
    }
    walk *w = fl_arena_calloc(&a, 1, sizeof *w);
    if (!w) {
        fl_sql_parsed_free(p);
        fl_arena_free(&a);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    w->a = &a;
    classify(w, p);
    if (w->overflow)
        rc = fl_errorf(err, FL_EFORBIDDEN, "permission denied: statement names more than %d tables",
                       MAX_TARGETS);
    else if (w->files)
        rc = fl_errorf(err, FL_EFORBIDDEN,
                       "permission denied: table functions reading files need the admin role");
    for (uint32_t i = 0; rc == FL_OK && i < w->n; i++) {
        const target *t = &w->t[i];
        fl_namespace ns = {0};
        const char *nstr = t->ns ? t->ns : default_ns;
        bool catalog = t->ns && !*t->ns;
        if (!catalog)
            rc = fl_namespace_parse(nstr, &a, &ns, err);
        if (rc == FL_OK)
            rc = fl_auth_authorize(auth, who, t->priv, catalog ? NULL : &ns, t->name, err);
    }
    fl_sql_parsed_free(p);
    fl_arena_free(&a);
    return rc;
}
