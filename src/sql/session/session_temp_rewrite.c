/*
 * session_temp_rewrite.c - the search_path step for temporary tables
 * (session_temp.h): a statement's parse tree is rewritten before planning
 * so that the rest of floe sees plain qualified names.
 *
 *   CREATE TEMP TABLE t ...            -> CREATE TABLE pg_temp_N.t ...
 *   CREATE TEMP TABLE t AS SELECT ...  -> (same, IntoClause)
 *   t (FROM, INSERT INTO, UPDATE, DELETE, TRUNCATE, ALTER, COPY ...)
 *       -> pg_temp_N.t when the session has a temporary table t and no CTE
 *          of the statement is called t (PostgreSQL searches pg_temp first)
 *   pg_temp.t                          -> pg_temp_N.t
 *   DROP TABLE t / DROP TABLE pg_temp.t -> DROP TABLE pg_temp_N.t
 *
 * The target of a permanent CREATE TABLE/VIEW is never rewritten (PG
 * creates it in the first non-temporary schema). Every replaced pointer is
 * logged in fl_temp_undo and put back by fl_session_temp_undo before
 * protobuf-c frees the tree (it owns the original strings and arrays; the
 * new ones are in the statement's arena).
 */
#include <string.h>

#include "sql/parse/parse_tree.h"
#include "sql/session/session_temp.h"

typedef struct rw {
    fl_session_temp *t;
    fl_arena *a;
    fl_temp_undo *u;
    bool in_block;
    /* pass 1 */
    const char *ctes[32];
    uint32_t nctes;
    bool many_ctes;
    const PgQuery__RangeVar *targets[8]; /* permanent CREATE targets */
    uint32_t ntargets;
    fl_status rc;
    fl_error *err;
} rw;

static void log_ptr(rw *w, void **slot, void *nv)
{
    if (w->rc != FL_OK)
        return;
    if (w->u->n == sizeof w->u->slot / sizeof w->u->slot[0]) {
        w->rc = fl_errorf(w->err, FL_ELIMIT,
                          "a statement may name at most 32 temporary tables");
        return;
    }
    w->u->slot[w->u->n] = slot;
    w->u->old[w->u->n] = *slot;
    w->u->n++;
    *slot = nv;
}

static void log_len(rw *w, size_t *slot, size_t nv)
{
    if (w->rc != FL_OK)
        return;
    if (w->u->nn == sizeof w->u->nslot / sizeof w->u->nslot[0]) {
        w->rc = fl_errorf(w->err, FL_ELIMIT, "a statement may drop at most 16 temporary tables");
        return;
    }
    w->u->nslot[w->u->nn] = slot;
    w->u->nold[w->u->nn] = *slot;
    w->u->nn++;
    *slot = nv;
}

void fl_session_temp_undo(fl_temp_undo *u)
{
    if (!u)
        return;
    while (u->n) {
        u->n--;
        *u->slot[u->n] = u->old[u->n];
    }
    while (u->nn) {
        u->nn--;
        *u->nslot[u->nn] = u->nold[u->nn];
    }
}

static bool empty(const char *s)
{
    return !s || !*s;
}

static bool is_cte(const rw *w, const char *name)
{
    if (w->many_ctes)
        return true; /* too many to track: leave every name alone */
    for (uint32_t i = 0; i < w->nctes; i++)
        if (strcmp(w->ctes[i], name) == 0)
            return true;
    return false;
}

static fl_temp_on_commit on_commit_of(PgQuery__OnCommitAction a)
{
    if (a == PG_QUERY__ON_COMMIT_ACTION__ONCOMMIT_DROP)
        return FL_TEMP_DROP;
    if (a == PG_QUERY__ON_COMMIT_ACTION__ONCOMMIT_DELETE_ROWS)
        return FL_TEMP_DELETE_ROWS;
    return FL_TEMP_PRESERVE_ROWS;
}

static void add_target(rw *w, const PgQuery__RangeVar *rv)
{
    if (rv && w->ntargets < sizeof w->targets / sizeof w->targets[0])
        w->targets[w->ntargets++] = rv;
}

/* pass 1: CTE names, creation targets and ON COMMIT actions */
static void pass1(const ProtobufCMessage *m, void *ud)
{
    rw *w = ud;
    const ProtobufCMessageDescriptor *d = m->descriptor;
    if (d == &pg_query__common_table_expr__descriptor) {
        const PgQuery__CommonTableExpr *c = (const PgQuery__CommonTableExpr *)m;
        if (w->nctes < sizeof w->ctes / sizeof w->ctes[0])
            w->ctes[w->nctes++] = c->ctename;
        else
            w->many_ctes = true;
    } else if (d == &pg_query__create_stmt__descriptor) {
        const PgQuery__CreateStmt *c = (const PgQuery__CreateStmt *)m;
        add_target(w, c->relation);
        fl_session_temp_set_pending(w->t, on_commit_of(c->oncommit), w->in_block);
    } else if (d == &pg_query__into_clause__descriptor) {
        const PgQuery__IntoClause *c = (const PgQuery__IntoClause *)m;
        add_target(w, c->rel);
        fl_session_temp_set_pending(w->t, on_commit_of(c->on_commit), w->in_block);
    } else if (d == &pg_query__view_stmt__descriptor) {
        add_target(w, ((const PgQuery__ViewStmt *)m)->view);
    }
}

static bool is_target(const rw *w, const PgQuery__RangeVar *rv)
{
    for (uint32_t i = 0; i < w->ntargets; i++)
        if (w->targets[i] == rv)
            return true;
    return false;
}

/* The table name a RangeVar refers to ("t$files" is table t). */
static bool names_temp(const rw *w, const char *relname)
{
    const char *dollar = strchr(relname, '$');
    if (!dollar)
        return fl_session_temp_has(w->t, relname);
    char buf[256];
    size_t n = (size_t)(dollar - relname);
    if (n >= sizeof buf)
        return false;
    memcpy(buf, relname, n);
    buf[n] = 0;
    return fl_session_temp_has(w->t, buf);
}

static void range_var(rw *w, PgQuery__RangeVar *rv)
{
    char *ns = (char *)fl_session_temp_nsname(w->t);
    if (empty(rv->relname) || !empty(rv->catalogname))
        return;
    if (rv->relpersistence && strcmp(rv->relpersistence, "t") == 0) {
        if (!empty(rv->schemaname) && strcmp(rv->schemaname, "pg_temp") != 0 &&
            strcmp(rv->schemaname, ns) != 0)
            return; /* stays TEMP: refused with 0A000 by the statement */
        log_ptr(w, (void **)&rv->schemaname, ns);
        log_ptr(w, (void **)&rv->relpersistence, "p");
        return;
    }
    if (!empty(rv->schemaname)) {
        if (strcmp(rv->schemaname, "pg_temp") == 0)
            log_ptr(w, (void **)&rv->schemaname, ns);
        return;
    }
    if (is_target(w, rv) || is_cte(w, rv->relname) || !names_temp(w, rv->relname))
        return;
    log_ptr(w, (void **)&rv->schemaname, ns);
}

static PgQuery__Node *string_node(fl_arena *a, const char *s)
{
    PgQuery__Node *n = fl_arena_calloc(a, 1, sizeof *n);
    PgQuery__String *str = fl_arena_calloc(a, 1, sizeof *str);
    if (!n || !str)
        return NULL;
    pg_query__node__init(n);
    pg_query__string__init(str);
    str->sval = (char *)s;
    n->node_case = PG_QUERY__NODE__NODE_STRING;
    n->string = str;
    return n;
}

/* DROP TABLE: objects are Lists of String nodes ([schema,] name). */
static void drop_name(rw *w, PgQuery__List *l)
{
    char *ns = (char *)fl_session_temp_nsname(w->t);
    for (size_t i = 0; i < l->n_items; i++)
        if (l->items[i]->node_case != PG_QUERY__NODE__NODE_STRING)
            return;
    if (l->n_items == 2 && strcmp(l->items[0]->string->sval, "pg_temp") == 0) {
        log_ptr(w, (void **)&l->items[0]->string->sval, ns);
        return;
    }
    if (l->n_items != 1 || !fl_session_temp_has(w->t, l->items[0]->string->sval))
        return;
    PgQuery__Node **v = fl_arena_calloc(w->a, 2, sizeof *v);
    if (!v || !(v[0] = string_node(w->a, ns))) {
        w->rc = fl_errorf(w->err, FL_ENOMEM, "out of memory");
        return;
    }
    v[1] = l->items[0];
    log_ptr(w, (void **)&l->items, v);
    log_len(w, &l->n_items, 2);
}

static void pass2(const ProtobufCMessage *m, void *ud)
{
    rw *w = ud;
    const ProtobufCMessageDescriptor *d = m->descriptor;
    if (d == &pg_query__range_var__descriptor) {
        range_var(w, (PgQuery__RangeVar *)m);
    } else if (d == &pg_query__drop_stmt__descriptor) {
        PgQuery__DropStmt *s = (PgQuery__DropStmt *)m;
        if (s->remove_type != PG_QUERY__OBJECT_TYPE__OBJECT_TABLE)
            return;
        for (size_t i = 0; i < s->n_objects; i++)
            if (s->objects[i]->node_case == PG_QUERY__NODE__NODE_LIST)
                drop_name(w, s->objects[i]->list);
    }
}

fl_status fl_session_temp_rewrite(fl_session_temp *t, const fl_sql_parsed *p, bool in_block,
                                  fl_arena *a, fl_temp_undo *u, fl_error *err)
{
    if (!t || !p || !p->stmt)
        return FL_OK;
    rw w;
    memset(&w, 0, sizeof w);
    w.t = t;
    w.a = a;
    w.u = u;
    w.in_block = in_block;
    w.err = err;
    fl_session_temp_set_pending(t, FL_TEMP_PRESERVE_ROWS, in_block);
    fl_front_walk((const ProtobufCMessage *)p->stmt, pass1, &w);
    fl_front_walk((const ProtobufCMessage *)p->stmt, pass2, &w);
    if (w.rc != FL_OK)
        fl_session_temp_undo(u);
    return w.rc;
}
