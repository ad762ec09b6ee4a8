/*
 * habit_stmt.c - the statements people type from Trino, DuckDB and MySQL
 * (fl_habit_stmt, recognized by parse/habit.c):
 *
 *   SHOW TABLES [FROM ns] [LIKE 'p']   -> table_name (tables and views, sorted)
 *   SHOW SCHEMAS [FROM ns] [LIKE 'p']  -> schema_name (every level, dotted)
 *   SHOW CATALOGS [LIKE 'p']           -> catalog_name
 *   SHOW COLUMNS FROM t | DESCRIBE t   -> column_name, data_type, nullable,
 *                                         field_id, comment (tables and views)
 *   SHOW CREATE TABLE t                -> create_statement (show_create.c)
 *   SHOW PIPELINES [FROM ns]           -> ingestion pipelines (show_pipelines.c)
 *   USE ns                             -> the session's search_path
 *
 * Authorization is the engine's one point (authz.h), as pg_catalog and
 * information_schema list: a namespace or table is listed only when the
 * principal may see it (fl_sql_authz_visible, which also records it so the
 * catalog guard lets the listing through); naming one it may not see is
 * 42501, one that does not exist 3F000 / 42P01.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/ice_view.h"
#include "floe/sql_settings.h"
#include "sql/stmt/stmt_int.h"

#define MAX_NS_DEPTH 16

/* ---- LIKE (% and _, backslash escapes) ---- */

static bool like(const char *s, const char *p)
{
    for (; *p; p++, s++) {
        if (*p == '%') {
            while (p[1] == '%')
                p++;
            if (!p[1])
                return true;
            for (; *s; s++)
                if (like(s, p + 1))
                    return true;
            return false;
        }
        if (!*s)
            return false;
        if (*p == '\\' && p[1])
            p++;
        else if (*p == '_')
            continue;
        if (*p != *s)
            return false;
    }
    return !*s;
}

int stmt_cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* ---- names ---- */

/* The first nparts name parts as a namespace. One part holding dots
 * ("sales.eu", quoted) names the nested namespace sales.eu, as CREATE
 * SCHEMA "sales.eu" made it. */
static fl_status habit_ns(fl_stmt_ctx *c, const fl_habit_stmt *h, uint32_t nparts,
                          fl_namespace *out, fl_error *err)
{
    out->nlevels = nparts;
    out->levels = (const char **)h->name;
    if (nparts == 1 && strchr(h->name[0], '.'))
        return fl_namespace_parse(h->name[0], c->planner->arena, out, err);
    return FL_OK;
}

/* ns (given, or the session's default) must exist and be visible. */
static fl_status check_ns(fl_stmt_ctx *c, const fl_namespace *ns, int32_t loc, fl_error *err)
{
    bool implicit = loc < 0;
    fl_planner_ctx *pc = c->planner;
    const char *name = fl_namespace_str(ns, pc->arena);
    if (!fl_sql_authz_visible(pc, ns, NULL)) {
        stmt_set_position(c, loc);
        return fl_error_state(err, FL_EFORBIDDEN, "42501", "permission denied for schema %s", name);
    }
    fl_ice_map props;
    fl_error e;
    fl_error_clear(&e);
    if (pc->catalog->ops->load_namespace &&
        pc->catalog->ops->load_namespace(pc->catalog, ns, pc->arena, &props, &e) == FL_ENOTFOUND) {
        stmt_set_position(c, loc);
        return fl_error_state(err, FL_ENOTFOUND, "3F000", "schema \"%s\" does not exist%s", name,
                              implicit ? " (it is the search_path: SHOW SCHEMAS lists the "
                                         "schemas, USE ns picks one)"
                                       : "");
    }
    return FL_OK;
}

fl_status stmt_habit_target_ns(fl_stmt_ctx *c, const fl_habit_stmt *h, fl_namespace *ns,
                              fl_error *err)
{
    if (h->nname)
        FL_TRY(habit_ns(c, h, h->nname, ns, err));
    else {
        const char *d = c->planner->default_namespace;
        FL_TRY(fl_namespace_parse(d && *d ? d : "default", c->planner->arena, ns, err));
    }
    return check_ns(c, ns, h->name_location, err);
}

/* ---- SHOW TABLES ---- */

static fl_status show_tables(fl_stmt_ctx *c, const fl_habit_stmt *h, fl_stmt_result *out,
                             fl_error *err)
{
    fl_planner_ctx *pc = c->planner;
    fl_catalog *cat = pc->catalog;
    fl_namespace ns;
    FL_TRY(stmt_habit_target_ns(c, h, &ns, err));
    const char **t = NULL, **v = NULL;
    uint32_t nt = 0, nv = 0;
    FL_TRY(cat->ops->list_tables(cat, &ns, pc->arena, &t, &nt, err));
    if (cat->ops->list_views)
        FL_TRY(cat->ops->list_views(cat, &ns, pc->arena, &v, &nv, err));
    const char **cells = fl_arena_calloc(pc->arena, nt + nv + 1, sizeof *cells);
    if (!cells)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t n = 0;
    for (uint32_t i = 0; i < nt + nv; i++) {
        const char *name = i < nt ? t[i] : v[i - nt];
        if ((!h->like || like(name, h->like)) && fl_sql_authz_visible(pc, &ns, name))
            cells[n++] = name;
    }
    qsort(cells, n, sizeof *cells, stmt_cmp_str);
    static const char *const names[] = {"table_name"};
    FL_TRY(stmt_result_strings(c, out, names, 1, cells, n, err));
    stmt_tag(out, "SHOW");
    return FL_OK;
}

/* ---- SHOW SCHEMAS ---- */

typedef struct ns_list {
    const char **v;
    uint32_t n, cap;
} ns_list;

static fl_status walk_ns(fl_stmt_ctx *c, const fl_namespace *parent, const char *like_p, int depth,
                         ns_list *l, fl_error *err)
{
    fl_planner_ctx *pc = c->planner;
    fl_namespace *kids = NULL;
    uint32_t n = 0;
    FL_TRY(pc->catalog->ops->list_namespaces(pc->catalog, parent, pc->arena, &kids, &n, err));
    for (uint32_t i = 0; i < n; i++) {
        if (fl_sql_authz_is_temp(pc->authz, &kids[i]) || !fl_sql_authz_visible(pc, &kids[i], NULL))
            continue; /* nothing in or above it is granted: not shown, not walked */
        const char *name = fl_namespace_str(&kids[i], pc->arena);
        if (!name)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (!like_p || like(name, like_p)) {
            if (l->n == l->cap) {
                uint32_t nc = l->cap ? 2 * l->cap : 16;
                const char **nv = fl_arena_calloc(pc->arena, nc, sizeof *nv);
                if (!nv)
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
                if (l->n)
                    memcpy(nv, l->v, l->n * sizeof *nv);
                l->v = nv;
                l->cap = nc;
            }
            l->v[l->n++] = name;
        }
        if (depth + 1 < MAX_NS_DEPTH)
            FL_TRY(walk_ns(c, &kids[i], like_p, depth + 1, l, err));
    }
    return FL_OK;
}

static fl_status show_schemas(fl_stmt_ctx *c, const fl_habit_stmt *h, fl_stmt_result *out,
                              fl_error *err)
{
    fl_namespace parent = {0, NULL};
    if (h->nname) {
        FL_TRY(habit_ns(c, h, h->nname, &parent, err));
        FL_TRY(check_ns(c, &parent, h->name_location, err));
    }
    ns_list l = {0};
    /* the listing itself is a decision the catalog guard needs (authz.h) */
    if (fl_sql_authz_visible(c->planner, &parent, NULL))
        FL_TRY(walk_ns(c, &parent, h->like, 0, &l, err));
    if (l.n > 1)
        qsort(l.v, l.n, sizeof *l.v, stmt_cmp_str);
    static const char *const names[] = {"schema_name"};
    FL_TRY(stmt_result_strings(c, out, names, 1, l.v, l.n, err));
    stmt_tag(out, "SHOW");
    return FL_OK;
}

static fl_status show_catalogs(fl_stmt_ctx *c, const fl_habit_stmt *h, fl_stmt_result *out,
                               fl_error *err)
{
    fl_catalog *cat = c->planner->catalog;
    const char *name = cat->name && *cat->name ? cat->name : "floe";
    const char *cells[1] = {name};
    uint32_t n = !h->like || like(name, h->like) ? 1 : 0;
    static const char *const names[] = {"catalog_name"};
    FL_TRY(stmt_result_strings(c, out, names, 1, cells, n, err));
    stmt_tag(out, "SHOW");
    return FL_OK;
}

/* ---- DESCRIBE / SHOW COLUMNS ---- */

fl_status stmt_habit_table(fl_stmt_ctx *c, const fl_habit_stmt *h, fl_table_ident *id,
                           fl_ice_table **t, fl_error *err)
{
    fl_planner_ctx *pc = c->planner;
    id->name = h->name[h->nname - 1];
    if (h->nname > 1)
        FL_TRY(habit_ns(c, h, h->nname - 1, &id->ns, err));
    else {
        const char *d = pc->default_namespace;
        FL_TRY(fl_namespace_parse(d && *d ? d : "default", pc->arena, &id->ns, err));
    }
    const char *text = fl_table_ident_str(id, pc->arena);
    if (!fl_sql_authz_visible(pc, &id->ns, id->name)) {
        stmt_set_position(c, h->name_location);
        return fl_error_state(err, FL_EFORBIDDEN, "42501", "permission denied for table %s", text);
    }
    fl_status rc = fl_ice_table_load(pc->catalog, id, t, err);
    if (rc == FL_ENOTFOUND)
        rc = fl_front_missing_metadata(pc, id, err);
    if (rc == FL_ENOTFOUND) {
        stmt_set_position(c, h->name_location);
        return fl_error_state(err, FL_ENOTFOUND, "42P01", "relation \"%s\" does not exist", text);
    }
    return rc;
}

const fl_ice_schema *stmt_current_schema(const fl_ice_table *t)
{
    return fl_ice_metadata_schema(&t->meta, t->meta.current_schema_id);
}

/* The schema of view id (its current version's), in the arena; NULL with
 * err untouched when there is no such view. */
static const fl_schema *view_schema(fl_stmt_ctx *c, const fl_table_ident *id, fl_error *err,
                                    fl_status *rc)
{
    fl_planner_ctx *pc = c->planner;
    fl_catalog *cat = pc->catalog;
    const char *loc = NULL;
    fl_error e;
    fl_error_clear(&e);
    *rc = FL_OK;
    if (!cat->ops->load_view || !pc->io ||
        cat->ops->load_view(cat, id, pc->arena, &loc, &e) != FL_OK)
        return NULL;
    fl_ice_view_metadata m;
    *rc = fl_ice_view_metadata_read(pc->io, loc, pc->arena, &m, err);
    const fl_ice_view_version *v = *rc == FL_OK ? fl_ice_view_current_version(&m) : NULL;
    for (uint32_t i = 0; v && i < m.nschemas; i++)
        if (m.schemas[i].schema_id == v->schema_id)
            return &m.schemas[i].schema;
    if (*rc == FL_OK)
        *rc = fl_errorf(err, FL_EINVAL, "view %s has no current schema", id->name);
    return NULL;
}

static fl_status column_rows(fl_stmt_ctx *c, const fl_schema *sch, fl_stmt_result *out,
                             fl_error *err)
{
    fl_arena *a = c->planner->arena;
    uint32_t n = sch ? sch->nfields : 0;
    const char **cells = fl_arena_calloc(a, 5 * (size_t)n + 1, sizeof *cells);
    if (!cells)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        const fl_field *f = &sch->fields[i];
        char tb[256];
        const char **r = &cells[5 * i];
        r[0] = fl_arena_strdup(a, f->name); /* the table's memory is freed after */
        r[1] = fl_arena_strdup(a, stmt_type_text(&f->type, tb, sizeof tb));
        r[2] = f->nullable ? "YES" : "NO";
        r[3] = fl_arena_sprintf(a, "%d", (int)f->field_id);
        r[4] = f->doc ? fl_arena_strdup(a, f->doc) : NULL;
        if (!r[0] || !r[1] || !r[3] || (f->doc && !r[4]))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    static const char *const names[] = {"column_name", "data_type", "nullable", "field_id",
                                        "comment"};
    FL_TRY(stmt_result_strings(c, out, names, 5, cells, n, err));
    stmt_tag(out, "SHOW");
    return FL_OK;
}

/* DESCRIBE t: a table's current schema, or a view's */
static fl_status show_columns(fl_stmt_ctx *c, const fl_habit_stmt *h, fl_stmt_result *out,
                              fl_error *err)
{
    fl_table_ident id;
    fl_ice_table *t = NULL;
    fl_status rc = stmt_habit_table(c, h, &id, &t, err);
    if (rc == FL_ENOTFOUND) {
        fl_status vrc;
        const fl_schema *vs = view_schema(c, &id, err, &vrc);
        if (vs) {
            fl_error_clear(err);
            c->planner->error_position = 0;
            return column_rows(c, vs, out, err);
        }
        return vrc != FL_OK ? vrc : rc;
    }
    FL_TRY(rc);
    const fl_ice_schema *is = stmt_current_schema(t);
    rc = column_rows(c, is ? &is->schema : NULL, out, err);
    fl_ice_table_free(t);
    return rc;
}

/* ---- USE ---- */

static fl_status use_ns(fl_stmt_ctx *c, const fl_habit_stmt *h, fl_stmt_result *out, fl_error *err)
{
    if (!c->session)
        return fl_errorf(err, FL_EINVAL, "USE needs a session");
    fl_namespace ns;
    FL_TRY(habit_ns(c, h, h->nname, &ns, err));
    FL_TRY(check_ns(c, &ns, h->name_location, err));
    /* exactly SET search_path = "a.b" (one entry: the namespace, quoted) */
    const char *v =
        fl_arena_sprintf(c->planner->arena, "\"%s\"", fl_namespace_str(&ns, c->planner->arena));
    if (!v)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    FL_TRY(fl_sql_set(c->session, "search_path", v, err));
    stmt_tag(out, "SET");
    return FL_OK;
}

fl_status stmt_habit(fl_stmt_ctx *c, const fl_habit_stmt *h, fl_stmt_result *out, fl_error *err)
{
    FL_TRY(stmt_need_catalog(c, "this statement", err));
    switch (h->kind) {
    case FL_HABIT_SHOW_TABLES: return show_tables(c, h, out, err);
    case FL_HABIT_SHOW_SCHEMAS: return show_schemas(c, h, out, err);
    case FL_HABIT_SHOW_CATALOGS: return show_catalogs(c, h, out, err);
    case FL_HABIT_SHOW_COLUMNS: return show_columns(c, h, out, err);
    case FL_HABIT_SHOW_CREATE: return stmt_show_create(c, h, out, err);
    case FL_HABIT_USE: return use_ns(c, h, out, err);
    case FL_HABIT_SHOW_PIPELINES: return stmt_show_pipelines(c, h, out, err);
    default: return fl_errorf(err, FL_EINVAL, "unknown statement");
    }
}
