/*
 * confine.c - storage confinement of tables (ice_table.h "Storage
 * confinement", docs/security.md): the checks every writer path calls
 * before a location, a data/metadata path property, a register target or a
 * commit's new files are accepted, and the scope the deleters stay in.
 *
 * Rules (string rules in src/catalog/location.c):
 *   - a location is inside the warehouse or an allowed root, is not a root,
 *     and does not overlap the catalog database or a protected file;
 *   - it neither contains nor lies inside another table's or view's
 *     location (so no table owns another's files and orphan removal of one
 *     never lists another);
 *   - write.*.path properties lie inside the table's own location;
 *   - files a commit brings in (manifest lists, new manifests, their data
 *     and delete files, statistics files) lie inside the table's location,
 *     since purge and expiry delete what metadata names;
 *   - a registered metadata file lies inside the location it declares.
 *
 * Finding the other objects walks the catalog: namespaces recursively from
 * the top, list_tables/list_views, and one metadata read per object (in a
 * scratch arena per object, so memory stays bounded by the locations).
 * That is O(objects) catalog queries and file reads per check, which is why
 * it runs only on creates, registers, location changes and the rare
 * destructive maintenance operations, never on reads or ordinary commits.
 * Catalogs whose server writes the metadata (REST clients) are not walked:
 * their server enforces the rules with its own catalog.
 */
#include <string.h>

#include "floe/ice_manifest.h"
#include "floe/ice_view.h"
#include "iceberg/confine_int.h"

#define MAX_DEPTH 64

typedef fl_status (*object_fn)(void *ctx, const fl_table_ident *id, const char *location,
                               fl_error *err);

static bool server_side(const fl_catalog *c)
{
    return c->ops->create_table_metadata || c->ops->commit_updates || c->ops->load_table_metadata;
}

static bool same_ident(const fl_table_ident *a, const fl_table_ident *b)
{
    if (!a || !b || strcmp(a->name, b->name) != 0 || a->ns.nlevels != b->ns.nlevels)
        return false;
    for (uint32_t i = 0; i < a->ns.nlevels; i++)
        if (strcmp(a->ns.levels[i], b->ns.levels[i]) != 0)
            return false;
    return true;
}

/* The location of one table or view (view: true), or NULL when its metadata
 * cannot be read. */
static const char *object_location(fl_catalog *c, const fl_table_ident *id, bool view,
                                   fl_arena *out)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error e = {0};
    const char *mloc = NULL, *loc = NULL;
    fl_status rc =
        view ? c->ops->load_view(c, id, &a, &mloc, &e) : c->ops->load_table(c, id, &a, &mloc, &e);
    if (rc == FL_OK && mloc && view) {
        fl_ice_view_metadata vm;
        if (fl_ice_view_metadata_read(c->io, mloc, &a, &vm, &e) == FL_OK && vm.location)
            loc = fl_arena_strdup(out, vm.location);
    } else if (rc == FL_OK && mloc) {
        fl_ice_metadata m;
        if (fl_ice_metadata_read(c->io, mloc, &a, &m, &e) == FL_OK && m.location)
            loc = fl_arena_strdup(out, m.location);
    }
    fl_arena_free(&a);
    return loc;
}

static fl_status visit_names(fl_catalog *c, const fl_namespace *ns, bool view, fl_arena *a,
                             object_fn fn, void *ctx, fl_error *err)
{
    const char **names = NULL;
    uint32_t n = 0;
    fl_error e = {0};
    fl_status rc = view ? c->ops->list_views(c, ns, a, &names, &n, &e)
                        : c->ops->list_tables(c, ns, a, &names, &n, &e);
    if (rc != FL_OK) {
        /* the top level may hold no objects (and not exist as a namespace);
         * a vanished namespace has none either */
        if (ns->nlevels == 0 || rc == FL_ENOTFOUND)
            return FL_OK;
        *err = e;
        return fl_error_prefix(err, "listing %s of %s", view ? "views" : "tables",
                               fl_namespace_str(ns, a));
    }
    for (uint32_t i = 0; i < n; i++) {
        fl_table_ident id = {*ns, names[i]};
        const char *loc = object_location(c, &id, view, a);
        if (loc)
            FL_TRY(fn(ctx, &id, loc, err));
    }
    return FL_OK;
}

static fl_status walk(fl_catalog *c, const fl_namespace *ns, uint32_t depth, fl_arena *a,
                      object_fn fn, void *ctx, fl_error *err)
{
    if (depth > MAX_DEPTH)
        return FL_OK;
    FL_TRY(visit_names(c, ns, false, a, fn, ctx, err));
    if (c->ops->list_views)
        FL_TRY(visit_names(c, ns, true, a, fn, ctx, err));
    fl_namespace *kids = NULL;
    uint32_t nk = 0;
    fl_error e = {0};
    fl_status rc = c->ops->list_namespaces(c, ns->nlevels ? ns : NULL, a, &kids, &nk, &e);
    if (rc == FL_ENOTFOUND)
        return FL_OK;
    if (rc != FL_OK) {
        *err = e;
        return fl_error_prefix(err, "listing namespaces");
    }
    for (uint32_t i = 0; i < nk; i++)
        if (kids[i].nlevels > ns->nlevels) /* a child, never the parent again */
            FL_TRY(walk(c, &kids[i], depth + 1, a, fn, ctx, err));
    return FL_OK;
}

/* ---- the location check ---- */

typedef struct overlap_ctx {
    const fl_table_ident *self;
    const char *loc;
    fl_arena *a;
} overlap_ctx;

static fl_status on_overlap(void *ctx, const fl_table_ident *id, const char *other, fl_error *err)
{
    overlap_ctx *o = ctx;
    if (same_ident(o->self, id))
        return FL_OK;
    if (!fl_location_within(o->loc, other) && !fl_location_within(other, o->loc))
        return FL_OK;
    /* the other object is not named: the caller may not know it exists */
    (void)other;
    return fl_errorf(err, FL_EFORBIDDEN,
                     "location '%.200s' overlaps the location of another table or view (a "
                     "table's folder must not contain or lie inside another table's or view's)",
                     o->loc);
}

fl_status fl_ice_location_check(fl_catalog *c, const fl_table_ident *self, const char *loc,
                                fl_error *err)
{
    if (!c || !loc)
        return fl_errorf(err, FL_EINVAL, "location check: no catalog or location");
    if (server_side(c))
        return FL_OK;
    FL_TRY(fl_catalog_location_check(c, loc, err));
    fl_arena a;
    fl_arena_init(&a, 0);
    overlap_ctx o = {self, loc, &a};
    fl_namespace top = {0, NULL};
    /* every table and view, also those the caller may not see (catalog.h) */
    fl_catalog *all = c->unrestricted ? c->unrestricted : c;
    fl_status rc = walk(all, &top, 0, &a, on_overlap, &o, err);
    fl_arena_free(&a);
    return rc;
}

static const char *const WRITE_PATHS[] = {"write.data.path", "write.metadata.path",
                                          "write.object-storage.path", "write.folder-storage.path"};

fl_status fl_ice_write_paths_check(const fl_ice_metadata *m, fl_error *err)
{
    for (size_t i = 0; i < sizeof WRITE_PATHS / sizeof *WRITE_PATHS; i++) {
        const char *v = fl_ice_map_get(&m->properties, WRITE_PATHS[i]);
        if (!v)
            continue;
        fl_status rc = fl_location_check_roots(NULL, NULL, 0, v, err); /* syntax */
        if (rc == FL_OK && !fl_location_within(v, m->location))
            rc = fl_errorf(err, FL_EFORBIDDEN, "'%.200s' is outside it", v);
        if (rc != FL_OK)
            return fl_error_prefix(err, "property %s must lie inside the table location '%.200s'",
                                   WRITE_PATHS[i], m->location ? m->location : "");
    }
    return FL_OK;
}

static bool str_differs(const char *a, const char *b)
{
    return (a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0);
}

fl_status fl_ice_change_check(fl_catalog *c, const fl_table_ident *id, const fl_ice_metadata *base,
                              const fl_ice_metadata *after, fl_error *err)
{
    bool moved = !base || str_differs(base->location, after->location);
    if (moved && !after->location)
        return fl_errorf(err, FL_EINVAL, "table metadata without a location");
    if (moved)
        FL_TRY(fl_ice_location_check(c, id, after->location, err));
    bool paths = moved;
    for (size_t i = 0; i < sizeof WRITE_PATHS / sizeof *WRITE_PATHS && !paths; i++)
        paths = str_differs(fl_ice_map_get(&base->properties, WRITE_PATHS[i]),
                            fl_ice_map_get(&after->properties, WRITE_PATHS[i]));
    return paths ? fl_ice_write_paths_check(after, err) : FL_OK;
}

/* ---- files a commit brings in ---- */

static fl_status inside(const fl_ice_metadata *m, const char *path, const char *what, fl_error *err)
{
    if (!path || fl_location_within(path, m->location))
        return FL_OK;
    return fl_errorf(err, FL_EFORBIDDEN, "%s '%.200s' is outside the table location '%.200s'", what,
                     path, m->location ? m->location : "");
}

static bool listed(const fl_ice_manifest_file *v, uint32_t n, const char *path)
{
    for (uint32_t i = 0; i < n; i++)
        if (v[i].manifest_path && !strcmp(v[i].manifest_path, path))
            return true;
    return false;
}

static const fl_ice_snapshot *find_snapshot(const fl_ice_metadata *before,
                                            const fl_ice_metadata *after, int64_t id)
{
    const fl_ice_snapshot *s = fl_ice_metadata_snapshot(after, id);
    return s || !before ? s : fl_ice_metadata_snapshot(before, id);
}

/* A list or manifest that does not exist names no file (the REST spec lets
 * a client commit one before writing it). Its path was checked to lie
 * inside the table, and whatever is written there later can still aim only
 * the deleters, which keep to the table's prefix themselves. */
static fl_status not_found_ok(fl_status rc, fl_error *err)
{
    if (rc != FL_ENOTFOUND)
        return rc;
    fl_error_clear(err);
    return FL_OK;
}

static fl_status check_snapshot(fl_fileio *io, const fl_ice_metadata *before,
                                const fl_ice_metadata *after, const fl_ice_snapshot *s, fl_arena *a,
                                fl_error *err)
{
    FL_TRY(inside(after, s->manifest_list, "manifest list", err));
    fl_ice_manifest_file *mf = NULL, *pmf = NULL;
    uint32_t n = 0, pn = 0;
    FL_TRY(not_found_ok(fl_ice_snapshot_manifests(io, after, s, a, &mf, &n, err), err));
    const fl_ice_snapshot *parent =
        s->has_parent ? find_snapshot(before, after, s->parent_snapshot_id) : NULL;
    if (parent)
        FL_TRY(not_found_ok(fl_ice_snapshot_manifests(io, after, parent, a, &pmf, &pn, err), err));
    for (uint32_t i = 0; i < n; i++) {
        if (!mf[i].manifest_path || listed(pmf, pn, mf[i].manifest_path))
            continue;
        FL_TRY(inside(after, mf[i].manifest_path, "manifest", err));
        fl_ice_manifest_entry *e = NULL;
        uint32_t ne = 0;
        FL_TRY(not_found_ok(fl_ice_manifest_read(io, after, &mf[i], a, &e, &ne, err), err));
        for (uint32_t k = 0; k < ne; k++)
            if (!fl_location_within(e[k].file.file_path, after->location))
                return fl_errorf(err, FL_EFORBIDDEN,
                                 "manifest '%.200s' names the file '%.200s', outside the table "
                                 "location '%.200s'",
                                 mf[i].manifest_path, e[k].file.file_path, after->location);
    }
    return FL_OK;
}

static fl_status check_statistics(const fl_ice_metadata *before, const fl_ice_metadata *after,
                                  fl_error *err)
{
    for (uint32_t i = 0; i < after->nstatistics; i++) {
        const char *p = after->statistics[i].statistics_path;
        bool old = false;
        for (uint32_t j = 0; before && j < before->nstatistics && !old; j++)
            old = !strcmp(before->statistics[j].statistics_path, p);
        if (!old)
            FL_TRY(inside(after, p, "statistics file", err));
    }
    for (uint32_t i = 0; i < after->npartition_statistics; i++) {
        const char *p = after->partition_statistics[i].statistics_path;
        bool old = false;
        for (uint32_t j = 0; before && j < before->npartition_statistics && !old; j++)
            old = !strcmp(before->partition_statistics[j].statistics_path, p);
        if (!old)
            FL_TRY(inside(after, p, "partition statistics file", err));
    }
    return FL_OK;
}

fl_status fl_ice_new_files_check(fl_fileio *io, const fl_ice_metadata *before,
                                 const fl_ice_metadata *after, fl_error *err)
{
    if (!after || !after->location)
        return fl_errorf(err, FL_EINVAL, "new files check: metadata without a location");
    FL_TRY(check_statistics(before, after, err));
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_status rc = FL_OK;
    for (uint32_t i = 0; rc == FL_OK && i < after->nsnapshots; i++) {
        const fl_ice_snapshot *s = &after->snapshots[i];
        if (before && fl_ice_metadata_snapshot(before, s->snapshot_id))
            continue;
        rc = check_snapshot(io, before, after, s, &a, err);
        if (rc != FL_OK && rc != FL_EFORBIDDEN)
            fl_error_prefix(err, "checking the files of snapshot %lld", (long long)s->snapshot_id);
    }
    fl_arena_free(&a);
    return rc;
}

fl_status fl_ice_register_check(fl_catalog *c, const fl_table_ident *id,
                                const char *metadata_location, const fl_ice_metadata *m,
                                fl_error *err)
{
    if (!m->location)
        return fl_errorf(err, FL_EINVAL, "register: metadata '%.200s' has no location",
                         metadata_location);
    if (!fl_location_within(metadata_location, m->location) ||
        fl_location_check_roots(NULL, NULL, 0, metadata_location, err) != FL_OK)
        return fl_errorf(err, FL_EFORBIDDEN,
                         "register: the metadata file '%.200s' is not inside the table location "
                         "'%.200s' it declares",
                         metadata_location, m->location);
    return fl_ice_location_check(c, id, m->location, err);
}

/* ---- the deleters' scope ---- */

typedef struct nested_ctx {
    const ice_owned *o;
    const fl_table_ident *self;
    fl_arena *a;
    const char **v;
    uint32_t n, cap;
} nested_ctx;

static fl_status on_nested(void *ctx, const fl_table_ident *id, const char *other, fl_error *err)
{
    nested_ctx *x = ctx;
    if (same_ident(x->self, id) || !fl_location_within(other, x->o->location) ||
        fl_location_within(x->o->location, other))
        return FL_OK; /* ourselves, elsewhere, or containing us (our files are ours) */
    if (x->n == x->cap) {
        uint32_t nc = x->cap ? x->cap * 2 : 8;
        const char **nv = fl_arena_alloc(x->a, nc * sizeof *nv);
        if (!nv)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (x->n)
            memcpy(nv, x->v, x->n * sizeof *nv);
        x->v = nv;
        x->cap = nc;
    }
    x->v[x->n++] = fl_arena_strdup(x->a, other);
    return FL_OK;
}

fl_status ice_owned_init(const fl_ice_table *t, fl_arena *a, ice_owned *o, fl_error *err)
{
    memset(o, 0, sizeof *o);
    o->location = t->meta.location;
    o->catalog = t->catalog;
    if (!t->catalog || server_side(t->catalog))
        return FL_OK;
    nested_ctx x = {.o = o, .self = &t->ident, .a = a};
    fl_namespace top = {0, NULL};
    fl_catalog *all = t->catalog->unrestricted ? t->catalog->unrestricted : t->catalog;
    FL_TRY(walk(all, &top, 0, a, on_nested, &x, err));
    o->foreign = x.v;
    o->nforeign = x.n;
    return FL_OK;
}

bool ice_owned_has(const ice_owned *o, const char *path)
{
    if (!path || !o->location || !fl_location_within(path, o->location) ||
        fl_location_within(o->location, path))
        return false;
    if (o->catalog && fl_catalog_path_protected(o->catalog, path))
        return false;
    for (uint32_t i = 0; i < o->nforeign; i++)
        if (fl_location_within(path, o->foreign[i]))
            return false;
    return true;
}
