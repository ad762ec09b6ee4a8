/*
 * table_drop.c - fl_ice_table_drop: removing a table from its catalog and,
 * with purge, deleting every file its metadata reaches.
 *
 * Purge follows Java's CatalogUtil.dropTableData: refused when the table
 * property gc.enabled is false (the files may be shared with another
 * table); otherwise the files reachable from the current metadata are
 * collected FIRST - data and delete files of every manifest of every
 * snapshot (all entry statuses), the manifests, the manifest lists, the
 * statistics and partition-statistics files, the current metadata file and
 * every file of the metadata log. A manifest list or manifest that cannot
 * be read (other than already missing) aborts the purge before anything
 * changes, so a table is never half-dropped because of a read error. Then
 * the catalog entry is dropped (readers stop seeing the table), then the
 * files are deleted, data first and metadata last; missing files are
 * fine. Delete failures do not stop the sweep; the first one is returned
 * with the count of files left behind.
 *
 * Confinement: metadata may name files anywhere (a client-written manifest,
 * a registered metadata file's log), so only files ice_owned_has() accepts
 * are deleted: under the table's own location, not under another table or
 * view nested there, not a file the catalog protects. The rest is left and
 * counted (fl_ice_drop_result.files_outside). The scope is computed before
 * the catalog entry goes, so a failure to list the catalog changes nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/ice_manifest.h"
#include "floe/ice_table.h"
#include "iceberg/confine_int.h"

enum { K_DATA, K_MANIFEST, K_LIST, K_META, K_COUNT }; /* deletion order */

typedef struct path_set {
    fl_arena *a;
    struct seen_set *manifests;
    const char **v[K_COUNT];
    size_t n[K_COUNT], cap[K_COUNT];
} path_set;

static fl_status add(path_set *s, int kind, const char *p, fl_error *err)
{
    if (!p || !*p)
        return FL_OK;
    if (s->n[kind] == s->cap[kind]) {
        size_t nc = s->cap[kind] ? s->cap[kind] * 2 : 64;
        const char **nv = fl_arena_alloc(s->a, nc * sizeof *nv);
        if (!nv)
            return fl_errorf(err, FL_ENOMEM, "purge: out of memory");
        if (s->n[kind])
            memcpy(nv, s->v[kind], s->n[kind] * sizeof *nv);
        s->v[kind] = nv;
        s->cap[kind] = nc;
    }
    s->v[kind][s->n[kind]++] = p;
    return FL_OK;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Sorts and removes duplicates within each kind. */
static void dedupe(path_set *s)
{
    for (int k = 0; k < K_COUNT; k++) {
        if (s->n[k] < 2)
            continue;
        qsort(s->v[k], s->n[k], sizeof *s->v[k], cmp_str);
        size_t o = 1;
        for (size_t i = 1; i < s->n[k]; i++)
            if (strcmp(s->v[k][i], s->v[k][o - 1]) != 0)
                s->v[k][o++] = s->v[k][i];
        s->n[k] = o;
    }
}

/* Open-addressing set of manifest paths already read (FNV-1a). */
typedef struct seen_set {
    const char **slot;
    size_t cap, n; /* cap is a power of two */
} seen_set;

static uint64_t fnv1a(const char *p)
{
    uint64_t h = 1469598103934665603ull;
    for (; *p; p++)
        h = (h ^ (uint8_t)*p) * 1099511628211ull;
    return h;
}

/* Inserts p; *fresh false when it was there. */
static fl_status seen_insert(seen_set *t, fl_arena *a, const char *p, bool *fresh, fl_error *err)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 256;
        const char **ns = fl_arena_calloc(a, nc, sizeof *ns);
        if (!ns)
            return fl_errorf(err, FL_ENOMEM, "purge: out of memory");
        for (size_t i = 0; i < t->cap; i++)
            if (t->slot[i]) {
                size_t j = fnv1a(t->slot[i]) & (nc - 1);
                while (ns[j])
                    j = (j + 1) & (nc - 1);
                ns[j] = t->slot[i];
            }
        t->slot = ns;
        t->cap = nc;
    }
    size_t j = fnv1a(p) & (t->cap - 1);
    while (t->slot[j] && strcmp(t->slot[j], p) != 0)
        j = (j + 1) & (t->cap - 1);
    *fresh = t->slot[j] == NULL;
    if (*fresh) {
        t->slot[j] = p;
        t->n++;
    }
    return FL_OK;
}

static fl_status collect_manifest(fl_fileio *io, const fl_ice_metadata *m,
                                  const fl_ice_manifest_file *mf, path_set *s, fl_error *err)
{
    fl_ice_manifest_entry *e;
    uint32_t n;
    fl_status rc = fl_ice_manifest_read(io, m, mf, s->a, &e, &n, err);
    if (rc == FL_ENOTFOUND) {
        fl_error_clear(err);
        return FL_OK;
    }
    FL_TRY(rc);
    for (uint32_t i = 0; i < n; i++)
        FL_TRY(add(s, K_DATA, e[i].file.file_path, err));
    return FL_OK;
}

static fl_status collect_snapshot(fl_fileio *io, const fl_ice_metadata *m,
                                  const fl_ice_snapshot *snap, path_set *s, fl_error *err)
{
    FL_TRY(add(s, K_LIST, snap->manifest_list, err));
    fl_ice_manifest_file *mf;
    uint32_t n;
    fl_status rc = fl_ice_snapshot_manifests(io, m, snap, s->a, &mf, &n, err);
    if (rc == FL_ENOTFOUND) {
        fl_error_clear(err);
        return FL_OK;
    }
    FL_TRY(rc);
    for (uint32_t i = 0; i < n; i++) {
        bool fresh;
        if (!mf[i].manifest_path)
            continue;
        FL_TRY(seen_insert(s->manifests, s->a, mf[i].manifest_path, &fresh, err));
        if (!fresh)
            continue;
        FL_TRY(collect_manifest(io, m, &mf[i], s, err));
        FL_TRY(add(s, K_MANIFEST, mf[i].manifest_path, err));
    }
    return FL_OK;
}

static fl_status collect_all(const fl_ice_table *t, path_set *s, fl_error *err)
{
    const fl_ice_metadata *m = &t->meta;
    for (uint32_t i = 0; i < m->nsnapshots; i++)
        FL_TRY(collect_snapshot(t->io, m, &m->snapshots[i], s, err));
    for (uint32_t i = 0; i < m->nstatistics; i++)
        FL_TRY(add(s, K_MANIFEST, m->statistics[i].statistics_path, err));
    for (uint32_t i = 0; i < m->npartition_statistics; i++)
        FL_TRY(add(s, K_MANIFEST, m->partition_statistics[i].statistics_path, err));
    for (uint32_t i = 0; i < m->nmetadata_log; i++)
        FL_TRY(add(s, K_META, m->metadata_log[i].metadata_file, err));
    return add(s, K_META, t->metadata_location, err);
}

static fl_status delete_all(fl_fileio *io, const path_set *s, const ice_owned *own,
                            const char *name, fl_ice_drop_result *res, fl_error *err)
{
    fl_status first = FL_OK;
    size_t failed = 0;
    fl_error e;
    for (int k = 0; k < K_COUNT; k++)
        for (size_t i = 0; i < s->n[k]; i++) {
            if (!ice_owned_has(own, s->v[k][i])) {
                res->files_outside++;
                continue;
            }
            fl_status rc = fl_fileio_remove(io, s->v[k][i], &e);
            res->files_deleted += rc == FL_OK;
            if (rc == FL_OK || rc == FL_ENOTFOUND)
                continue;
            if (failed++ == 0) {
                first = rc;
                *err = e;
            }
        }
    if (failed)
        return fl_error_prefix(err, "purge of table %s: dropped, but %zu file(s) not deleted", name,
                               failed);
    return first;
}

static bool gc_enabled(const fl_ice_metadata *m)
{
    const char *v = fl_ice_map_get(&m->properties, "gc.enabled");
    return !v || strcmp(v, "false") != 0;
}

static fl_status purge(fl_catalog *c, const fl_table_ident *id, fl_ice_table *t,
                       fl_ice_drop_result *res, fl_error *err)
{
    const char *name = fl_table_ident_str(id, &t->arena);
    if (!gc_enabled(&t->meta))
        return fl_errorf(err, FL_EINVAL,
                         "purge of table %s refused: gc.enabled is false (its files may belong to "
                         "other tables)",
                         name);
    seen_set seen = {NULL, 0, 0};
    path_set s = {.a = &t->arena, .manifests = &seen};
    fl_status rc = collect_all(t, &s, err);
    if (rc != FL_OK)
        return fl_error_prefix(err, "purge of table %s (nothing changed)", name);
    dedupe(&s);
    ice_owned own;
    rc = ice_owned_init(t, &t->arena, &own, err);
    if (rc != FL_OK)
        return fl_error_prefix(err, "purge of table %s (nothing changed)", name);
    FL_TRY(c->ops->drop_table(c, id, err));
    return delete_all(t->io, &s, &own, name, res, err);
}

fl_status fl_ice_table_drop(fl_catalog *c, const fl_table_ident *id, bool purge_files,
                            fl_error *err)
{
    return fl_ice_table_drop_ex(c, id, purge_files, NULL, err);
}

fl_status fl_ice_table_drop_ex(fl_catalog *c, const fl_table_ident *id, bool purge_files,
                               fl_ice_drop_result *result, fl_error *err)
{
    fl_ice_drop_result scratch;
    fl_ice_drop_result *res = result ? result : &scratch;
    memset(res, 0, sizeof *res);
    if (!c || !id)
        return fl_errorf(err, FL_EINVAL, "table drop: NULL argument");
    if (c->ops->drop_table_purge) /* the server deletes the files (REST purgeRequested) */
        return c->ops->drop_table_purge(c, id, purge_files, err);
    if (!purge_files)
        return c->ops->drop_table(c, id, err);
    fl_ice_table *t;
    FL_TRY(fl_ice_table_load(c, id, &t, err));
    fl_status rc = purge(c, id, t, res, err);
    fl_ice_table_free(t);
    return rc;
}
