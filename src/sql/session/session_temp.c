/*
 * session_temp.c - the session's overlay catalog for temporary tables
 * (design in session_temp.h).
 *
 * Identifiers whose namespace is "pg_temp" or "pg_temp_N" are answered by
 * the table list below; everything else is delegated to the real catalog
 * (inner), passing inner itself. The list is a small array (a session has
 * few temporary tables); commit_table is a compare-and-swap on its
 * metadata location, as every catalog's. Views cannot be temporary
 * (FL_EUNSUPPORTED). Namespace listings add "pg_temp_N" while the session
 * has temporary tables, so pg_namespace/pg_class show them as PostgreSQL
 * does. Optional catalog entries are NULL exactly when inner's are; the
 * REST-only ones (commit_updates...) make fl_session_temp_new decline.
 *
 * Files: a temporary table's location is <root>/<name>-<8 hex>, root a
 * private folder made (mkdtemp) on first use under dir_root; metadata
 * files are <location>/metadata/<NNNNN>-<uuid>.metadata.json. Dropping a
 * table removes everything under its location through the FileIO (list +
 * remove), then the local folders; fl_session_temp_free removes root.
 *
 * Ownership: every string in the list is malloc'd and owned by it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "floe/ice_table.h"
#include "sql/session/session_temp.h"

struct fl_session_temp {
    fl_catalog base; /* first: the catalog handed out */
    fl_catalog_ops ops;
    fl_catalog *inner;
    fl_fileio *io;
    char nsname[24];
    char *dir_root; /* where root is made (malloc) */
    char *root;     /* the private folder, NULL until the first temporary table */
    fl_temp_table *t;
    uint32_t n, cap;
    fl_temp_on_commit pending;
    bool pending_in_block;
};

#define TT(c) ((fl_session_temp *)(c))
#define IN(c) (TT(c)->inner)

static fl_status oom(fl_error *err)
{
    return fl_errorf(err, FL_ENOMEM, "temporary tables: out of memory");
}

bool fl_session_temp_is_ns(const fl_session_temp *t, const fl_namespace *ns)
{
    if (!t || !ns || ns->nlevels != 1)
        return false;
    return strcmp(ns->levels[0], "pg_temp") == 0 || strcmp(ns->levels[0], t->nsname) == 0;
}

static fl_temp_table *find(const fl_session_temp *t, const char *name)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (strcmp(t->t[i].name, name) == 0)
            return &t->t[i];
    return NULL;
}

bool fl_session_temp_has(const fl_session_temp *t, const char *name)
{
    return t && name && find(t, name) != NULL;
}

uint32_t fl_session_temp_count(const fl_session_temp *t)
{
    return t ? t->n : 0;
}

fl_temp_table *fl_session_temp_tables(fl_session_temp *t, uint32_t *n)
{
    *n = t ? t->n : 0;
    return t ? t->t : NULL;
}

const char *fl_session_temp_nsname(const fl_session_temp *t)
{
    return t->nsname;
}

fl_catalog *fl_session_temp_catalog(fl_session_temp *t)
{
    return &t->base;
}

void fl_session_temp_set_pending(fl_session_temp *t, fl_temp_on_commit oc, bool in_block)
{
    if (!t)
        return;
    t->pending = oc;
    t->pending_in_block = in_block;
}

static bool is_temp(fl_catalog *c, const fl_table_ident *id)
{
    return fl_session_temp_is_ns(TT(c), &id->ns);
}

static fl_status not_found(const fl_table_ident *id, fl_error *err)
{
    return fl_errorf(err, FL_ENOTFOUND, "temporary table %s does not exist", id->name);
}

/* ---- files ---- */

static fl_status rm_one(void *ctx, const char *path, uint64_t size)
{
    (void)size;
    fl_session_temp *t = ctx;
    fl_error e;
    fl_error_clear(&e);
    fl_fileio_remove(t->io, path, &e); /* best effort: a missing file is fine */
    return FL_OK;
}

static int rm_dir(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* Removes everything under dir (through the FileIO, then local folders). */
static void remove_tree(fl_session_temp *t, const char *dir)
{
    size_t n = strlen(dir);
    char *prefix = malloc(n + 2);
    if (!prefix)
        return;
    memcpy(prefix, dir, n);
    memcpy(prefix + n, "/", 2);
    fl_error e;
    fl_error_clear(&e);
    if (t->io->ops->list)
        t->io->ops->list(t->io, prefix, rm_one, t, &e);
    free(prefix);
    if (dir[0] == '/')
        nftw(dir, rm_dir, 16, FTW_DEPTH | FTW_PHYS);
}

fl_status fl_session_temp_location(fl_session_temp *t, const fl_table_ident *id, fl_arena *a,
                                   const char **out, fl_error *err)
{
    *out = NULL;
    if (!t || !fl_session_temp_is_ns(t, &id->ns))
        return FL_OK;
    if (!t->root) {
        size_t n = strlen(t->dir_root);
        char *r = malloc(n + 32);
        if (!r)
            return oom(err);
        snprintf(r, n + 32, "%s/floe-temp-XXXXXX", t->dir_root);
        if (!mkdtemp(r)) {
            fl_status rc = fl_errorf(err, FL_EIO, "temporary tables: cannot create a folder in %s",
                                     t->dir_root);
            free(r);
            return rc;
        }
        t->root = r;
    }
    char u[37];
    fl_ice_uuid4(u);
    u[8] = 0;
    *out = fl_arena_sprintf(a, "%s/%s-%s", t->root, id->name, u);
    return *out ? FL_OK : oom(err);
}

/* ---- the table list ---- */

static fl_status t_create_table(fl_session_temp *t, const fl_table_ident *id, const char *loc,
                                fl_error *err)
{
    if (find(t, id->name))
        return fl_errorf(err, FL_EEXIST, "relation \"%s\" already exists", id->name);
    /* the table's location: the metadata file is <location>/metadata/x */
    const char *m = strstr(loc, "/metadata/");
    if (!t->root || strncmp(loc, t->root, strlen(t->root)) != 0 || !m)
        return fl_errorf(err, FL_EINVAL,
                         "temporary table %s: metadata %s is outside the session's private "
                         "folder",
                         id->name, loc);
    if (t->n == t->cap) {
        uint32_t nc = t->cap ? t->cap * 2 : 8;
        fl_temp_table *v = realloc(t->t, nc * sizeof *v);
        if (!v)
            return oom(err);
        t->t = v;
        t->cap = nc;
    }
    fl_temp_table *e = &t->t[t->n];
    memset(e, 0, sizeof *e);
    e->name = strdup(id->name);
    e->loc = strdup(loc);
    e->dir = strndup(loc, (size_t)(m - loc));
    e->on_commit = t->pending;
    e->in_block = t->pending_in_block;
    t->pending = FL_TEMP_PRESERVE_ROWS;
    t->pending_in_block = false;
    if (!e->name || !e->loc || !e->dir) {
        free(e->name);
        free(e->loc);
        free(e->dir);
        return oom(err);
    }
    t->n++;
    return FL_OK;
}

fl_status fl_session_temp_drop(fl_session_temp *t, const char *name, fl_error *err)
{
    fl_temp_table *e = find(t, name);
    if (!e)
        return fl_errorf(err, FL_ENOTFOUND, "temporary table %s does not exist", name);
    remove_tree(t, e->dir);
    free(e->name);
    free(e->loc);
    free(e->dir);
    free(e->emptied);
    *e = t->t[--t->n];
    return FL_OK;
}

/* ---- catalog entries ---- */

static fl_status w_create_namespace(fl_catalog *c, const fl_namespace *ns,
                                    const fl_ice_map *props, fl_error *err)
{
    if (fl_session_temp_is_ns(TT(c), ns))
        return fl_errorf(err, FL_EEXIST, "schema %s already exists", ns->levels[0]);
    return IN(c)->ops->create_namespace(IN(c), ns, props, err);
}

static fl_status w_list_namespaces(fl_catalog *c, const fl_namespace *parent, fl_arena *a,
                                   fl_namespace **out, uint32_t *n, fl_error *err)
{
    if (fl_session_temp_is_ns(TT(c), parent)) { /* no nested temporary schemas */
        *out = NULL;
        *n = 0;
        return FL_OK;
    }
    FL_TRY(IN(c)->ops->list_namespaces(IN(c), parent, a, out, n, err));
    if ((parent && parent->nlevels) || !TT(c)->n)
        return FL_OK;
    fl_namespace *v = fl_arena_calloc(a, *n + 1, sizeof *v);
    const char **lv = fl_arena_calloc(a, 1, sizeof *lv);
    if (!v || !lv)
        return oom(err);
    if (*n)
        memcpy(v, *out, *n * sizeof *v);
    lv[0] = fl_arena_strdup(a, TT(c)->nsname);
    if (!lv[0])
        return oom(err);
    v[*n] = (fl_namespace){1, lv};
    *out = v;
    (*n)++;
    return FL_OK;
}

static fl_status w_load_namespace(fl_catalog *c, const fl_namespace *ns, fl_arena *a,
                                  fl_ice_map *props, fl_error *err)
{
    if (fl_session_temp_is_ns(TT(c), ns)) {
        memset(props, 0, sizeof *props);
        return FL_OK;
    }
    return IN(c)->ops->load_namespace(IN(c), ns, a, props, err);
}

static fl_status w_update_namespace(fl_catalog *c, const fl_namespace *ns, const fl_ice_map *set,
                                    const char *const *remove, uint32_t nremove, fl_error *err)
{
    if (fl_session_temp_is_ns(TT(c), ns))
        return fl_errorf(err, FL_EUNSUPPORTED, "the temporary schema has no properties");
    return IN(c)->ops->update_namespace(IN(c), ns, set, remove, nremove, err);
}

static fl_status w_drop_namespace(fl_catalog *c, const fl_namespace *ns, fl_error *err)
{
    if (fl_session_temp_is_ns(TT(c), ns))
        return fl_errorf(err, FL_EUNSUPPORTED, "cannot drop the temporary schema");
    return IN(c)->ops->drop_namespace(IN(c), ns, err);
}

static fl_status w_list_tables(fl_catalog *c, const fl_namespace *ns, fl_arena *a,
                               const char ***names, uint32_t *n, fl_error *err)
{
    fl_session_temp *t = TT(c);
    if (!fl_session_temp_is_ns(t, ns))
        return IN(c)->ops->list_tables(IN(c), ns, a, names, n, err);
    const char **v = fl_arena_calloc(a, t->n + 1, sizeof *v);
    if (!v)
        return oom(err);
    for (uint32_t i = 0; i < t->n; i++)
        if (!(v[i] = fl_arena_strdup(a, t->t[i].name)))
            return oom(err);
    *names = v;
    *n = t->n;
    return FL_OK;
}

static fl_status w_load_table(fl_catalog *c, const fl_table_ident *id, fl_arena *a,
                              const char **loc, fl_error *err)
{
    if (!is_temp(c, id))
        return IN(c)->ops->load_table(IN(c), id, a, loc, err);
    const fl_temp_table *e = find(TT(c), id->name);
    if (!e)
        return not_found(id, err);
    *loc = fl_arena_strdup(a, e->loc);
    return *loc ? FL_OK : oom(err);
}

static fl_status w_create_table(fl_catalog *c, const fl_table_ident *id, const char *loc,
                                fl_error *err)
{
    if (!is_temp(c, id))
        return IN(c)->ops->create_table(IN(c), id, loc, err);
    return t_create_table(TT(c), id, loc, err);
}

static fl_status w_commit_table(fl_catalog *c, const fl_table_ident *id, const char *expected,
                                const char *next, fl_error *err)
{
    if (!is_temp(c, id))
        return IN(c)->ops->commit_table(IN(c), id, expected, next, err);
    fl_temp_table *e = find(TT(c), id->name);
    if (!e)
        return not_found(id, err);
    if (!expected || strcmp(e->loc, expected) != 0)
        return fl_errorf(err, FL_ECONFLICT, "temporary table %s changed concurrently", id->name);
    char *d = strdup(next);
    if (!d)
        return oom(err);
    free(e->loc);
    e->loc = d;
    return FL_OK;
}

static fl_status w_drop_table(fl_catalog *c, const fl_table_ident *id, fl_error *err)
{
    if (!is_temp(c, id))
        return IN(c)->ops->drop_table(IN(c), id, err);
    return fl_session_temp_drop(TT(c), id->name, err);
}

static fl_status w_rename_table(fl_catalog *c, const fl_table_ident *from, const fl_table_ident *to,
                                fl_error *err)
{
    bool tf = is_temp(c, from), tt = is_temp(c, to);
    if (!tf && !tt)
        return IN(c)->ops->rename_table(IN(c), from, to, err);
    if (tf != tt)
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "cannot move a table into or out of the temporary schema");
    fl_temp_table *e = find(TT(c), from->name);
    if (!e)
        return not_found(from, err);
    if (find(TT(c), to->name))
        return fl_errorf(err, FL_EEXIST, "relation \"%s\" already exists", to->name);
    char *d = strdup(to->name);
    if (!d)
        return oom(err);
    free(e->name);
    e->name = d;
    return FL_OK;
}

static fl_status w_new_metadata_path(fl_catalog *c, const fl_table_ident *id, const char *tl,
                                     const char *base, int64_t version, fl_arena *a,
                                     const char **out, fl_error *err)
{
    if (!is_temp(c, id))
        return IN(c)->ops->new_metadata_path(IN(c), id, tl, base, version, a, out, err);
    char u[37];
    fl_ice_uuid4(u);
    *out = fl_arena_sprintf(a, "%s/metadata/%05lld-%s.metadata.json", tl, (long long)version, u);
    return *out ? FL_OK : oom(err);
}

static void w_close(fl_catalog *c)
{
    (void)c; /* fl_session_temp_free frees the overlay; inner is the session's */
}

static fl_status w_commit_tables(fl_catalog *c, const fl_catalog_commit *cm, uint32_t n,
                                 fl_error *err)
{
    for (uint32_t i = 0; i < n; i++)
        if (is_temp(c, &cm[i].id)) {
            if (n != 1)
                return fl_errorf(err, FL_EUNSUPPORTED,
                                 "a temporary table cannot commit together with other tables");
            return w_commit_table(c, &cm[0].id, cm[0].expected_location, cm[0].new_location,
                                  err);
        }
    return IN(c)->ops->commit_tables(IN(c), cm, n, err);
}

static fl_status no_temp_views(fl_catalog *c, const fl_table_ident *id, fl_error *err)
{
    (void)c;
    return fl_errorf(err, FL_EUNSUPPORTED, "views cannot be temporary (view %s)", id->name);
}

static fl_status w_list_views(fl_catalog *c, const fl_namespace *ns, fl_arena *a,
                              const char ***names, uint32_t *n, fl_error *err)
{
    if (fl_session_temp_is_ns(TT(c), ns)) {
        *names = NULL;
        *n = 0;
        return FL_OK;
    }
    return IN(c)->ops->list_views(IN(c), ns, a, names, n, err);
}

static fl_status w_load_view(fl_catalog *c, const fl_table_ident *id, fl_arena *a,
                             const char **loc, fl_error *err)
{
    if (is_temp(c, id))
        return fl_errorf(err, FL_ENOTFOUND, "view %s does not exist", id->name);
    return IN(c)->ops->load_view(IN(c), id, a, loc, err);
}

static fl_status w_create_view(fl_catalog *c, const fl_table_ident *id, const char *loc,
                               fl_error *err)
{
    if (is_temp(c, id))
        return no_temp_views(c, id, err);
    return IN(c)->ops->create_view(IN(c), id, loc, err);
}

static fl_status w_commit_view(fl_catalog *c, const fl_table_ident *id, const char *expected,
                               const char *next, fl_error *err)
{
    if (is_temp(c, id))
        return no_temp_views(c, id, err);
    return IN(c)->ops->commit_view(IN(c), id, expected, next, err);
}

static fl_status w_drop_view(fl_catalog *c, const fl_table_ident *id, fl_error *err)
{
    if (is_temp(c, id))
        return fl_errorf(err, FL_ENOTFOUND, "view %s does not exist", id->name);
    return IN(c)->ops->drop_view(IN(c), id, err);
}

static fl_status w_rename_view(fl_catalog *c, const fl_table_ident *from, const fl_table_ident *to,
                               fl_error *err)
{
    if (is_temp(c, from) || is_temp(c, to))
        return no_temp_views(c, from, err);
    return IN(c)->ops->rename_view(IN(c), from, to, err);
}

#define OPT(field, fn) w->ops.field = o->field ? fn : NULL

fl_status fl_session_temp_new(fl_catalog *inner, fl_fileio *io, const char *dir_root,
                              fl_session_temp **out, fl_error *err)
{
    *out = NULL;
    if (!inner)
        return FL_OK;
    const fl_catalog_ops *o = inner->ops;
    if (o->commit_updates || o->create_table_metadata || o->load_table_metadata ||
        o->drop_table_purge)
        return FL_OK; /* the server writes metadata: no private tables there */
    fl_session_temp *w = calloc(1, sizeof *w);
    if (!w)
        return oom(err);
    const char *tmp = getenv("TMPDIR");
    w->dir_root = strdup(dir_root && *dir_root ? dir_root : tmp && *tmp ? tmp : "/tmp");
    if (!w->dir_root) {
        free(w);
        return oom(err);
    }
    char u[37];
    fl_ice_uuid4(u);
    /* a small number for the schema name, as PostgreSQL's backend ids */
    snprintf(w->nsname, sizeof w->nsname, "pg_temp_%lu", strtoul(u + 24, NULL, 16) % 1000 + 1);
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
    w->base.ops = &w->ops;
    w->base.name = inner->name;
    w->base.warehouse = inner->warehouse;
    w->base.unrestricted = inner->unrestricted ? inner->unrestricted : inner;
    w->base.io = inner->io;
    w->base.db_file = inner->db_file; /* confinement applies through the overlay */
    w->base.confine = inner->confine;
    w->inner = inner;
    w->io = io;
    *out = w;
    return FL_OK;
}

void fl_session_temp_free(fl_session_temp *t)
{
    if (!t)
        return;
    while (t->n) {
        fl_error e;
        fl_error_clear(&e);
        fl_session_temp_drop(t, t->t[t->n - 1].name, &e);
    }
    if (t->root)
        remove_tree(t, t->root);
    free(t->root);
    free(t->dir_root);
    free(t->t);
    free(t);
}
