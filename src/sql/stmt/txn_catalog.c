/*
 * txn_catalog.c - the catalog a session plans through inside a transaction
 * block (txn_block.h).
 *
 * Every entry delegates to the session's catalog (inner), passing inner
 * itself, except for tables the block has staged changes for:
 *   - load_table answers the block's preview metadata file, and
 *     load_table_metadata (only offered when inner offers it: the REST
 *     catalog) reads that file, so the session sees its own writes;
 *   - commit_table, commit_updates, commit_tables, drop_table(_purge) and
 *     rename_table are refused (FL_EUNSUPPORTED): DDL commits at once and
 *     must not publish, or lose, the block's uncommitted changes.
 * Optional entries are NULL exactly when inner's are, so callers that test
 * for an entry behave as with inner.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/iceberg.h"
#include "sql/stmt/txn_block.h"

typedef struct txn_wrap {
    fl_catalog base; /* first: the fl_catalog handed out */
    fl_catalog_ops ops;
    fl_catalog *inner;
    fl_txn_block *block;
} txn_wrap;

static fl_catalog *IN(fl_catalog *c)
{
    return ((txn_wrap *)c)->inner;
}

static fl_status refuse(fl_catalog *c, const fl_table_ident *id, const char *what, fl_error *err)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    const char *name = fl_table_ident_str(id, &a);
    fl_status rc = fl_errorf(err, FL_EUNSUPPORTED,
                             "cannot %s table %s: it has uncommitted changes in this transaction "
                             "block (COMMIT or ROLLBACK first)",
                             what, name ? name : "?");
    fl_arena_free(&a);
    (void)c;
    return rc;
}

static bool staged(fl_catalog *c, const fl_table_ident *id)
{
    return fl_txn_block_preview(((txn_wrap *)c)->block, id) != NULL;
}

static fl_status w_create_namespace(fl_catalog *c, const fl_namespace *ns,
                                    const fl_ice_map *props, fl_error *err)
{
    return IN(c)->ops->create_namespace(IN(c), ns, props, err);
}

static fl_status w_list_namespaces(fl_catalog *c, const fl_namespace *parent, fl_arena *a,
                                   fl_namespace **out, uint32_t *n, fl_error *err)
{
    return IN(c)->ops->list_namespaces(IN(c), parent, a, out, n, err);
}

static fl_status w_load_namespace(fl_catalog *c, const fl_namespace *ns, fl_arena *a,
                                  fl_ice_map *props, fl_error *err)
{
    return IN(c)->ops->load_namespace(IN(c), ns, a, props, err);
}

static fl_status w_update_namespace(fl_catalog *c, const fl_namespace *ns, const fl_ice_map *set,
                                    const char *const *remove, uint32_t nremove, fl_error *err)
{
    return IN(c)->ops->update_namespace(IN(c), ns, set, remove, nremove, err);
}

static fl_status w_drop_namespace(fl_catalog *c, const fl_namespace *ns, fl_error *err)
{
    return IN(c)->ops->drop_namespace(IN(c), ns, err);
}

static fl_status w_list_tables(fl_catalog *c, const fl_namespace *ns, fl_arena *a,
                               const char ***names, uint32_t *n, fl_error *err)
{
    return IN(c)->ops->list_tables(IN(c), ns, a, names, n, err);
}

static fl_status w_load_table(fl_catalog *c, const fl_table_ident *id, fl_arena *a,
                              const char **loc, fl_error *err)
{
    const char *p = fl_txn_block_preview(((txn_wrap *)c)->block, id);
    if (p) {
        *loc = fl_arena_strdup(a, p);
        return *loc ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    return IN(c)->ops->load_table(IN(c), id, a, loc, err);
}

static fl_status w_create_table(fl_catalog *c, const fl_table_ident *id, const char *loc,
                                fl_error *err)
{
    return IN(c)->ops->create_table(IN(c), id, loc, err);
}

static fl_status w_commit_table(fl_catalog *c, const fl_table_ident *id, const char *expected,
                                const char *next, fl_error *err)
{
    if (staged(c, id))
        return refuse(c, id, "change", err);
    return IN(c)->ops->commit_table(IN(c), id, expected, next, err);
}

static fl_status w_drop_table(fl_catalog *c, const fl_table_ident *id, fl_error *err)
{
    if (staged(c, id))
        return refuse(c, id, "drop", err);
    return IN(c)->ops->drop_table(IN(c), id, err);
}

static fl_status w_rename_table(fl_catalog *c, const fl_table_ident *from, const fl_table_ident *to,
                                fl_error *err)
{
    if (staged(c, from))
        return refuse(c, from, "rename", err);
    return IN(c)->ops->rename_table(IN(c), from, to, err);
}

static fl_status w_new_metadata_path(fl_catalog *c, const fl_table_ident *id, const char *tl,
                                     const char *base, int64_t version, fl_arena *a,
                                     const char **out, fl_error *err)
{
    return IN(c)->ops->new_metadata_path(IN(c), id, tl, base, version, a, out, err);
}

static void w_close(fl_catalog *c)
{
    (void)c; /* the block frees the wrapper; inner belongs to the session */
}

static fl_status w_commit_tables(fl_catalog *c, const fl_catalog_commit *cm, uint32_t n,
                                 fl_error *err)
{
    for (uint32_t i = 0; i < n; i++)
        if (staged(c, &cm[i].id))
            return refuse(c, &cm[i].id, "change", err);
    return IN(c)->ops->commit_tables(IN(c), cm, n, err);
}

static fl_status w_list_views(fl_catalog *c, const fl_namespace *ns, fl_arena *a,
                              const char ***names, uint32_t *n, fl_error *err)
{
    return IN(c)->ops->list_views(IN(c), ns, a, names, n, err);
}

static fl_status w_load_view(fl_catalog *c, const fl_table_ident *id, fl_arena *a,
                             const char **loc, fl_error *err)
{
    return IN(c)->ops->load_view(IN(c), id, a, loc, err);
}

static fl_status w_create_view(fl_catalog *c, const fl_table_ident *id, const char *loc,
                               fl_error *err)
{
    return IN(c)->ops->create_view(IN(c), id, loc, err);
}

static fl_status w_commit_view(fl_catalog *c, const fl_table_ident *id, const char *expected,
                               const char *next, fl_error *err)
{
    return IN(c)->ops->commit_view(IN(c), id, expected, next, err);
}

static fl_status w_drop_view(fl_catalog *c, const fl_table_ident *id, fl_error *err)
{
    return IN(c)->ops->drop_view(IN(c), id, err);
}

static fl_status w_rename_view(fl_catalog *c, const fl_table_ident *from, const fl_table_ident *to,
                               fl_error *err)
{
    return IN(c)->ops->rename_view(IN(c), from, to, err);
}

static fl_status w_load_table_metadata(fl_catalog *c, const fl_table_ident *id, fl_arena *a,
                                       const char **loc, fl_ice_metadata *meta, fl_error *err)
{
    const char *p = fl_txn_block_preview(((txn_wrap *)c)->block, id);
    if (p) {
        if (!(*loc = fl_arena_strdup(a, p)))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        return fl_ice_metadata_read(IN(c)->io, p, a, meta, err);
    }
    return IN(c)->ops->load_table_metadata(IN(c), id, a, loc, meta, err);
}

static fl_status w_commit_updates(fl_catalog *c, const fl_table_ident *id,
                                  const struct fl_ice_requirement *req, uint32_t nreq,
                                  const struct fl_ice_update *upd, uint32_t nupd, fl_arena *a,
                                  const char **loc, fl_ice_metadata *meta, fl_error *err)
{
    if (staged(c, id))
        return refuse(c, id, "change", err);
    return IN(c)->ops->commit_updates(IN(c), id, req, nreq, upd, nupd, a, loc, meta, err);
}

static fl_status w_create_table_metadata(fl_catalog *c, const fl_table_ident *id,
                                         const fl_ice_metadata *tmpl, const char *location,
                                         bool stage, fl_arena *a, const char **loc,
                                         fl_ice_metadata *meta, fl_error *err)
{
    return IN(c)->ops->create_table_metadata(IN(c), id, tmpl, location, stage, a, loc, meta, err);
}

static fl_status w_drop_table_purge(fl_catalog *c, const fl_table_ident *id, bool purge,
                                    fl_error *err)
{
    if (staged(c, id))
        return refuse(c, id, "drop", err);
    return IN(c)->ops->drop_table_purge(IN(c), id, purge, err);
}

#define OPT(field, fn) w->ops.field = o->field ? fn : NULL

fl_status fl_txn_catalog_new(fl_catalog *inner, fl_txn_block *b, fl_catalog **out, fl_error *err)
{
    *out = NULL;
    txn_wrap *w = calloc(1, sizeof *w);
    if (!w)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    const fl_catalog_ops *o = inner->ops;
    OPT(create_namespace, w_create_namespace);
    OPT(list_namespaces, w_list_namespaces);
    OPT(load_namespace, w_load_namespace);
    OPT(update_namespace, w_update_namespace);
    OPT(drop_namespace, w_drop_namespace);
    OPT(list_tables, w_list_tables);
    OPT(load_table, w_load_table);
    OPT(create_table, w_create_table);
    OPT(commit_table, w_commit_table);
    OPT(drop_table, w_drop_table);
    OPT(rename_table, w_rename_table);
    OPT(new_metadata_path, w_new_metadata_path);
    w->ops.close = w_close;
    OPT(commit_tables, w_commit_tables);
    OPT(list_views, w_list_views);
    OPT(load_view, w_load_view);
    OPT(create_view, w_create_view);
    OPT(commit_view, w_commit_view);
    OPT(drop_view, w_drop_view);
    OPT(rename_view, w_rename_view);
    OPT(load_table_metadata, w_load_table_metadata);
    OPT(commit_updates, w_commit_updates);
    OPT(create_table_metadata, w_create_table_metadata);
    OPT(drop_table_purge, w_drop_table_purge);
    w->base.ops = &w->ops;
    w->base.name = inner->name;
    w->base.warehouse = inner->warehouse;
    w->base.db_file = inner->db_file; /* confinement applies through the wrapper */
    w->base.confine = inner->confine;
    w->base.unrestricted = inner->unrestricted ? inner->unrestricted : inner;
    w->base.io = inner->io;
    w->inner = inner;
    w->block = b;
    *out = &w->base;
    return FL_OK;
}

void fl_txn_catalog_free(fl_catalog *c)
{
    free(c);
}
