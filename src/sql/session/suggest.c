/*
 * suggest.c - "relation does not exist" errors that say how to fix them
 * (issue 17 item 5): when a statement fails with 42P01 at the position of
 * one of its table names, the message gets the namespace search path and,
 * when one is close, a name to use instead:
 *
 *   line 1, column 15: relation "default.orders" does not exist
 *     (search_path: default; did you mean demo.orders?)
 *
 * Which table failed comes from the tree and the recorded error position
 * (the RangeVar at it, or the name of a DESCRIBE/SHOW CREATE TABLE), not
 * from the message text. Candidates are the tables and views the principal
 * may see (fl_sql_authz_visible, as SHOW TABLES lists): the same name in
 * another namespace first, else the visible name with the smallest
 * Levenshtein distance to the one written (at most a third of its length,
 * at least 1), the first found in the catalog's order on a tie. The walk is bounded (16 levels,
 * 4096 tables) so a big catalog costs a bounded listing, paid only by a
 * statement that already failed. Anything that goes wrong while suggesting
 * leaves the original message as it was.
 */
#include <stdio.h>
#include <string.h>

#include "sql/authz/authz.h"
#include "sql/func.h"
#include "sql/parse/parse_tree.h"
#include "sql/session/session_internal.h"

#define MAX_DEPTH 16
#define MAX_TABLES 4096

typedef struct best {
    const char *want; /* the name written */
    const fl_namespace *own;
    const char *ns;    /* arena: the best candidate's namespace */
    const char *name;  /* its name */
    uint32_t distance; /* 0 = the same name elsewhere */
    uint32_t seen;
} best;

static bool same_ns(const fl_namespace *a, const fl_namespace *b)
{
    if (a->nlevels != b->nlevels)
        return false;
    for (uint32_t i = 0; i < a->nlevels; i++)
        if (strcmp(a->levels[i], b->levels[i]))
            return false;
    return true;
}

static void consider(fl_planner_ctx *pc, best *b, const fl_namespace *ns, const char *name)
{
    bool here = same_ns(ns, b->own);
    if (here && !strcmp(name, b->want))
        return; /* the one that failed */
    uint32_t d = fl_sql_edit_distance(b->want, name);
    size_t len = strlen(b->want);
    uint32_t limit = len >= 6 ? (uint32_t)(len / 3) : 1;
    if (d > limit || (b->name && d >= b->distance))
        return;
    if (!fl_sql_authz_visible(pc, ns, name))
        return;
    b->distance = d;
    b->name = name;
    b->ns = fl_namespace_str(ns, pc->arena);
}

static void walk(fl_planner_ctx *pc, best *b, const fl_namespace *parent, int depth)
{
    fl_catalog *c = pc->catalog;
    fl_namespace *kids = NULL;
    uint32_t n = 0;
    fl_error e;
    fl_error_clear(&e);
    if (!fl_sql_authz_visible(pc, parent, NULL) ||
        c->ops->list_namespaces(c, parent, pc->arena, &kids, &n, &e) != FL_OK)
        return;
    for (uint32_t i = 0; i < n && b->seen < MAX_TABLES; i++) {
        if (fl_sql_authz_is_temp(pc->authz, &kids[i]) || !fl_sql_authz_visible(pc, &kids[i], NULL))
            continue;
        for (int pass = 0; pass < 2; pass++) {
            const char **names = NULL;
            uint32_t nn = 0;
            fl_status rc = FL_OK;
            if (pass == 0)
                rc = c->ops->list_tables(c, &kids[i], pc->arena, &names, &nn, &e);
            else if (c->ops->list_views)
                rc = c->ops->list_views(c, &kids[i], pc->arena, &names, &nn, &e);
            for (uint32_t k = 0; rc == FL_OK && k < nn && b->seen < MAX_TABLES; k++, b->seen++)
                consider(pc, b, &kids[i], names[k]);
            fl_error_clear(&e);
        }
        if (depth + 1 < MAX_DEPTH)
            walk(pc, b, &kids[i], depth + 1);
    }
}

typedef struct find_rv {
    const char *text;
    int32_t pos; /* 1-based character position of the error */
    const PgQuery__RangeVar *hit;
} find_rv;

static void on_node(const ProtobufCMessage *m, void *ud)
{
    find_rv *f = ud;
    if (m->descriptor != &pg_query__range_var__descriptor || f->hit)
        return;
    const PgQuery__RangeVar *rv = (const PgQuery__RangeVar *)m;
    if (rv->location >= 0 && fl_front_byte_to_char(f->text, rv->location) == f->pos)
        f->hit = rv;
}

/* The name that failed: namespace and table (false when none is known). */
static bool failed_name(fl_sql_result *r, fl_table_ident *id)
{
    fl_planner_ctx *pc = &r->pc;
    const fl_sql_parsed *p = r->parsed;
    fl_error e;
    fl_error_clear(&e);
    if (p->habit && p->habit->nname &&
        (p->habit->kind == FL_HABIT_SHOW_COLUMNS || p->habit->kind == FL_HABIT_SHOW_CREATE)) {
        const fl_habit_stmt *h = p->habit;
        id->name = h->name[h->nname - 1];
        id->ns.nlevels = h->nname - 1;
        id->ns.levels = (const char **)h->name;
        if (!id->ns.nlevels)
            return fl_namespace_parse(pc->default_namespace ? pc->default_namespace : "default",
                                      pc->arena, &id->ns, &e) == FL_OK;
        return true;
    }
    if (!p->stmt || pc->error_position <= 0)
        return false;
    find_rv f = {.text = p->text, .pos = pc->error_position};
    fl_front_walk((const ProtobufCMessage *)p->stmt, on_node, &f);
    if (!f.hit || strchr(f.hit->relname, '$'))
        return false;
    id->name = f.hit->relname;
    return fl_planner_rv_namespace(pc, f.hit, pc->arena, &id->ns, &e) == FL_OK;
}

void fl_session_suggest(fl_sql_result *r, fl_status rc, fl_error *err)
{
    if (!r || !err || rc != FL_ENOTFOUND || !r->parsed || !r->pc.catalog ||
        strcmp(fl_error_sqlstate(err), "42P01") != 0)
        return;
    fl_table_ident id;
    if (!failed_name(r, &id))
        return;
    fl_planner_ctx *pc = &r->pc;
    best b = {.want = id.name, .own = &id.ns};
    fl_namespace root = {0, NULL};
    walk(pc, &b, &root, 0);
    const char *sp = pc->default_namespace ? pc->default_namespace : "default";
    size_t n = strlen(err->msg);
    if (b.name)
        snprintf(err->msg + n, sizeof err->msg - n, " (search_path: %s; did you mean %s.%s?)", sp,
                 b.ns ? b.ns : "?", b.name);
    else
        snprintf(err->msg + n, sizeof err->msg - n, " (search_path: %s)", sp);
}
