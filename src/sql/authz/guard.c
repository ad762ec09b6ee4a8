/*
 * guard.c - the session's catalog, wrapped so that no operation reaches the
 * real catalog without a decision of the authorizer covering it (authz.h).
 *
 * The binder and the statement handlers ask the authorizer first; this is
 * the second line that makes a forgotten check a refusal instead of a
 * leak. What each entry needs in the statement's record:
 *   load_table, load_table_metadata, load_view, new_metadata_path:
 *       any decision on the table (or on an enclosing namespace);
 *   list_namespaces, list_tables, list_views, load_namespace:
 *       any decision on the namespace itself (a listing included);
 *   create_namespace: CREATE on the parent (the catalog for a top level);
 *   update_namespace: WRITE; drop_namespace: DROP, on the namespace;
 *   create_table(_metadata), create_view: CREATE on the namespace;
 *   commit_table, commit_updates, commit_tables, commit_view: WRITE;
 *   drop_table(_purge), drop_view: DROP;
 *   rename_table, rename_view: DROP on the source, CREATE on the target's
 *   namespace.
 * A refusal is FL_EFORBIDDEN naming the operation and the object. Optional
 * entries are NULL exactly when inner's are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/authz/authz.h"

typedef struct guard {
    fl_catalog base; /* first: the fl_catalog handed out */
    fl_catalog_ops ops;
    fl_catalog *inner;
    fl_sql_authz *z;
} guard;

static fl_catalog *IN(fl_catalog *c)
{
    return ((guard *)c)->inner;
}

static fl_sql_authz *Z(fl_catalog *c)
{
    return ((guard *)c)->z;
}

static fl_status refuse(const char *op, const fl_namespace *ns, const char *table, fl_error *err)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    const char *what = table   ? fl_table_ident_str(&(fl_table_ident){.ns = *ns, .name = table}, &a)
                       : ns && ns->nlevels ? fl_namespace_str(ns, &a)
                                           : "the catalog";
    fl_status rc = fl_errorf(err, FL_EFORBIDDEN,
                             "permission denied: %s of %s was not authorized for this statement",
                             op, what ? what : "?");
    fl_arena_free(&a);
    return rc;
}

/* Table-level checks. */
static bool any_on(fl_catalog *c, const fl_table_ident *id)
{
    return fl_sql_authz_covered(Z(c), 0, true, false, &id->ns, id->name);
}

static bool priv_on(fl_catalog *c, fl_privilege p, const fl_table_ident *id)
{
    return fl_sql_authz_covered(Z(c), p, false, false, &id->ns, id->name);
}

static bool create_in(fl_catalog *c, const fl_namespace *ns)
{
    return fl_sql_authz_covered(Z(c), FL_PRIV_CREATE, false, false, ns, NULL);
}

#define NEED(cond, op, ns, t)                                                                  \
    do {                                                                                       \
        if (!(cond))                                                                           \
            return refuse(op, ns, t, err);                                                     \
    } while (0)

/* ---- namespaces ---- */

static fl_status g_create_namespace(fl_catalog *c, const fl_namespace *ns,
                                    const fl_ice_map *props, fl_error *err)
{
    fl_namespace parent = {ns->nlevels ? ns->nlevels - 1 : 0, ns->levels};
    NEED(create_in(c, &parent), "create namespace", ns, NULL);
    return IN(c)->ops->create_namespace(IN(c), ns, props, err);
}

static fl_status g_list_namespaces(fl_catalog *c, const fl_namespace *parent, fl_arena *a,
                                   fl_namespace **out, uint32_t *n, fl_error *err)
{
    NEED(fl_sql_authz_covered(Z(c), 0, true, true, parent, NULL), "listing", parent, NULL);
    return IN(c)->ops->list_namespaces(IN(c), parent, a, out, n, err);
}

static fl_status g_load_namespace(fl_catalog *c, const fl_namespace *ns, fl_arena *a,
                                  fl_ice_map *props, fl_error *err)
{
    NEED(fl_sql_authz_covered(Z(c), 0, true, true, ns, NULL), "loading", ns, NULL);
    return IN(c)->ops->load_namespace(IN(c), ns, a, props, err);
}

static fl_status g_update_namespace(fl_catalog *c, const fl_namespace *ns, const fl_ice_map *set,
                                    const char *const *remove, uint32_t nremove, fl_error *err)
{
    NEED(fl_sql_authz_covered(Z(c), FL_PRIV_WRITE, false, false, ns, NULL), "update", ns, NULL);
    return IN(c)->ops->update_namespace(IN(c), ns, set, remove, nremove, err);
}

static fl_status g_drop_namespace(fl_catalog *c, const fl_namespace *ns, fl_error *err)
{
    NEED(fl_sql_authz_covered(Z(c), FL_PRIV_DROP, false, false, ns, NULL), "drop", ns, NULL);
    return IN(c)->ops->drop_namespace(IN(c), ns, err);
}

static fl_status g_list_tables(fl_catalog *c, const fl_namespace *ns, fl_arena *a,
                               const char ***names, uint32_t *n, fl_error *err)
{
    NEED(fl_sql_authz_covered(Z(c), 0, true, true, ns, NULL), "listing", ns, NULL);
    return IN(c)->ops->list_tables(IN(c), ns, a, names, n, err);
}

static fl_status g_list_views(fl_catalog *c, const fl_namespace *ns, fl_arena *a,
                              const char ***names, uint32_t *n, fl_error *err)
{
    NEED(fl_sql_authz_covered(Z(c), 0, true, true, ns, NULL), "listing", ns, NULL);
    return IN(c)->ops->list_views(IN(c), ns, a, names, n, err);
}

/* ---- tables ---- */

static fl_status g_load_table(fl_catalog *c, const fl_table_ident *id, fl_arena *a,
                              const char **loc, fl_error *err)
{
    NEED(any_on(c, id), "loading", &id->ns, id->name);
    return IN(c)->ops->load_table(IN(c), id, a, loc, err);
}

static fl_status g_load_table_metadata(fl_catalog *c, const fl_table_ident *id, fl_arena *a,
                                       const char **loc, fl_ice_metadata *meta, fl_error *err)
{
    NEED(any_on(c, id), "loading", &id->ns, id->name);
    return IN(c)->ops->load_table_metadata(IN(c), id, a, loc, meta, err);
}

static fl_status g_create_table(fl_catalog *c, const fl_table_ident *id, const char *loc,
                                fl_error *err)
{
    NEED(create_in(c, &id->ns), "create", &id->ns, id->name);
    return IN(c)->ops->create_table(IN(c), id, loc, err);
}

static fl_status g_create_table_metadata(fl_catalog *c, const fl_table_ident *id,
                                         const fl_ice_metadata *tmpl, const char *location,
                                         bool stage, fl_arena *a, const char **loc,
                                         fl_ice_metadata *meta, fl_error *err)
{
    NEED(create_in(c, &id->ns), "create", &id->ns, id->name);
    return IN(c)->ops->create_table_metadata(IN(c), id, tmpl, location, stage, a, loc, meta, err);
}

static fl_status g_commit_table(fl_catalog *c, const fl_table_ident *id, const char *expected,
                                const char *next, fl_error *err)
{
    /* a table created by this statement is committed to once more (CTAS) */
    NEED(priv_on(c, FL_PRIV_WRITE, id) || create_in(c, &id->ns), "commit", &id->ns, id->name);
    return IN(c)->ops->commit_table(IN(c), id, expected, next, err);
}

static fl_status g_commit_updates(fl_catalog *c, const fl_table_ident *id,
                                  const struct fl_ice_requirement *req, uint32_t nreq,
                                  const struct fl_ice_update *upd, uint32_t nupd, fl_arena *a,
                                  const char **loc, fl_ice_metadata *meta, fl_error *err)
{
    NEED(priv_on(c, FL_PRIV_WRITE, id) || create_in(c, &id->ns), "commit", &id->ns, id->name);
    return IN(c)->ops->commit_updates(IN(c), id, req, nreq, upd, nupd, a, loc, meta, err);
}

static fl_status g_commit_tables(fl_catalog *c, const fl_catalog_commit *cm, uint32_t n,
                                 fl_error *err)
{
    for (uint32_t i = 0; i < n; i++)
        NEED(priv_on(c, FL_PRIV_WRITE, &cm[i].id) || create_in(c, &cm[i].id.ns), "commit",
             &cm[i].id.ns, cm[i].id.name);
    return IN(c)->ops->commit_tables(IN(c), cm, n, err);
}

static fl_status g_drop_table(fl_catalog *c, const fl_table_ident *id, fl_error *err)
{
    NEED(priv_on(c, FL_PRIV_DROP, id), "drop", &id->ns, id->name);
    return IN(c)->ops->drop_table(IN(c), id, err);
}

static fl_status g_drop_table_purge(fl_catalog *c, const fl_table_ident *id, bool purge,
                                    fl_error *err)
{
    NEED(priv_on(c, FL_PRIV_DROP, id), "drop", &id->ns, id->name);
    return IN(c)->ops->drop_table_purge(IN(c), id, purge, err);
}

static fl_status g_rename_table(fl_catalog *c, const fl_table_ident *from, const fl_table_ident *to,
                                fl_error *err)
{
    NEED(priv_on(c, FL_PRIV_DROP, from), "rename", &from->ns, from->name);
    NEED(create_in(c, &to->ns), "rename into", &to->ns, to->name);
    return IN(c)->ops->rename_table(IN(c), from, to, err);
}

static fl_status g_new_metadata_path(fl_catalog *c, const fl_table_ident *id, const char *tl,
                                     const char *base, int64_t version, fl_arena *a,
                                     const char **out, fl_error *err)
{
    NEED(any_on(c, id) || create_in(c, &id->ns), "writing metadata", &id->ns, id->name);
    return IN(c)->ops->new_metadata_path(IN(c), id, tl, base, version, a, out, err);
}

/* ---- views ---- */

static fl_status g_load_view(fl_catalog *c, const fl_table_ident *id, fl_arena *a,
                             const char **loc, fl_error *err)
{
    NEED(any_on(c, id), "loading", &id->ns, id->name);
    return IN(c)->ops->load_view(IN(c), id, a, loc, err);
}

static fl_status g_create_view(fl_catalog *c, const fl_table_ident *id, const char *loc,
                               fl_error *err)
{
    NEED(create_in(c, &id->ns), "create", &id->ns, id->name);
    return IN(c)->ops->create_view(IN(c), id, loc, err);
}

static fl_status g_commit_view(fl_catalog *c, const fl_table_ident *id, const char *expected,
                               const char *next, fl_error *err)
{
    NEED(priv_on(c, FL_PRIV_WRITE, id), "commit", &id->ns, id->name);
    return IN(c)->ops->commit_view(IN(c), id, expected, next, err);
}

static fl_status g_drop_view(fl_catalog *c, const fl_table_ident *id, fl_error *err)
{
    NEED(priv_on(c, FL_PRIV_DROP, id), "drop", &id->ns, id->name);
    return IN(c)->ops->drop_view(IN(c), id, err);
}

static fl_status g_rename_view(fl_catalog *c, const fl_table_ident *from, const fl_table_ident *to,
                               fl_error *err)
{
    NEED(priv_on(c, FL_PRIV_DROP, from), "rename", &from->ns, from->name);
    NEED(create_in(c, &to->ns), "rename into", &to->ns, to->name);
    return IN(c)->ops->rename_view(IN(c), from, to, err);
}

static void g_close(fl_catalog *c)
{
    (void)c; /* fl_sql_authz_guard_free frees the wrapper; inner is the session's */
}

#define OPT(field, fn) g->ops.field = o->field ? fn : NULL

fl_status fl_sql_authz_guard_new(fl_catalog *inner, fl_sql_authz *z, fl_catalog **out,
                                 fl_error *err)
{
    *out = NULL;
    guard *g = calloc(1, sizeof *g);
    if (!g)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    const fl_catalog_ops *o = inner->ops;
    OPT(create_namespace, g_create_namespace);
    OPT(list_namespaces, g_list_namespaces);
    OPT(load_namespace, g_load_namespace);
    OPT(update_namespace, g_update_namespace);
    OPT(drop_namespace, g_drop_namespace);
    OPT(list_tables, g_list_tables);
    OPT(load_table, g_load_table);
    OPT(create_table, g_create_table);
    OPT(commit_table, g_commit_table);
    OPT(drop_table, g_drop_table);
    OPT(rename_table, g_rename_table);
    OPT(new_metadata_path, g_new_metadata_path);
    g->ops.close = g_close;
    OPT(commit_tables, g_commit_tables);
    OPT(list_views, g_list_views);
    OPT(load_view, g_load_view);
    OPT(create_view, g_create_view);
    OPT(commit_view, g_commit_view);
    OPT(drop_view, g_drop_view);
    OPT(rename_view, g_rename_view);
    OPT(load_table_metadata, g_load_table_metadata);
    OPT(commit_updates, g_commit_updates);
    OPT(create_table_metadata, g_create_table_metadata);
    OPT(drop_table_purge, g_drop_table_purge);
    g->base.ops = &g->ops;
    g->base.name = inner->name;
    g->base.warehouse = inner->warehouse;
    g->base.db_file = inner->db_file; /* confinement applies through the wrapper */
    g->base.confine = inner->confine;
    g->base.unrestricted = inner->unrestricted ? inner->unrestricted : inner;
    g->base.io = inner->io;
    g->inner = inner;
    g->z = z;
    *out = &g->base;
    return FL_OK;
}

void fl_sql_authz_guard_free(fl_catalog *c)
{
    free(c);
}
