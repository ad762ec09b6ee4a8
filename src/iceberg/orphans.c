/*
 * orphans.c - fl_ice_remove_orphan_files(): deletes files under the table
 * location that no metadata reaches (leftovers of failed or killed writers:
 * data files never committed, manifests and lists of lost attempts,
 * metadata files that lost the swap, temp files).
 *
 * Reachable = the current metadata file, every file of its metadata log,
 * and from each of those metadata files that still exists: every snapshot's
 * manifest list, every manifest, every file any manifest entry names (all
 * statuses), statistics and partition-statistics files; plus
 * metadata/version-hint.text. Paths are compared after normalization
 * (file:// prefix stripped, s3a:// and s3n:// as s3://).
 *
 * Age: only files older than older_than_ms are deleted (default now - 3
 * days, so in-flight writes of other writers survive). The FileIO list call
 * reports no modification time, so ages come from stat() for local paths;
 * a non-local file is deleted only when older_than_ms is at or after the
 * time of the call (the caller vouches that nothing is in flight).
 *
 * Confinement (docs/security.md): whatever is not reachable is deleted, so
 * what may be listed is kept narrow. The table's location must pass
 * fl_catalog_location_check (inside the warehouse, not a root, not over the
 * catalog database; FL_EFORBIDDEN otherwise), so a table pointed at
 * "/some/dir" or the warehouse root never gets its folder emptied. Only the
 * folders floe's and Iceberg's writers write to are listed:
 * <location>/data/, <location>/metadata/, and write.data.path /
 * write.metadata.path when they lie inside the location. A listed file is
 * a candidate only when its name ends like a file those writers produce
 * (.parquet, .avro, .orc, .puffin, .stats, .metadata.json[.gz]) and
 * ice_owned_has() accepts it (not under another table or view nested in
 * this one, not a file the catalog protects). Anything else is never
 * touched, however old.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "iceberg/confine_int.h"
#include "iceberg/produce_internal.h"

typedef struct orphan_ctx {
    fl_arena *a;
    txn_paths listed;
    bool oom;
} orphan_ctx;

static const char *norm(fl_arena *a, const char *p)
{
    if (strncmp(p, "file://", 7) == 0)
        p += 7;
    else if (strncmp(p, "file:", 5) == 0)
        p += 5;
    if (strncmp(p, "s3a://", 6) == 0 || strncmp(p, "s3n://", 6) == 0)
        return fl_arena_sprintf(a, "s3://%s", p + 6);
    return p;
}

static fl_status on_listed(void *ctx, const char *path, uint64_t size)
{
    orphan_ctx *c = ctx;
    (void)size;
    if (!txn_paths_push(&c->listed, c->a, path))
        c->oom = true;
    return FL_OK;
}

static bool add(txn_paths *p, fl_arena *a, const char *path)
{
    const char *n = norm(a, path);
    return n && txn_paths_push(p, a, n);
}

/* Everything metadata m reaches, into reach. old: m is a previous version,
 * whose expired lists and manifests may be gone (FL_ENOTFOUND is skipped). */
static fl_status reach_metadata(fl_fileio *io, const fl_ice_metadata *m, bool old, txn_paths *reach,
                                txn_paths *seen_manifests, fl_arena *a, fl_error *err)
{
    for (uint32_t i = 0; i < m->nstatistics; i++)
        if (!add(reach, a, m->statistics[i].statistics_path))
            return fl_errorf(err, FL_ENOMEM, "orphans: out of memory");
    for (uint32_t i = 0; i < m->npartition_statistics; i++)
        if (!add(reach, a, m->partition_statistics[i].statistics_path))
            return fl_errorf(err, FL_ENOMEM, "orphans: out of memory");
    for (uint32_t i = 0; i < m->nsnapshots; i++) {
        const fl_ice_snapshot *s = &m->snapshots[i];
        if (s->manifest_list && !add(reach, a, s->manifest_list))
            return fl_errorf(err, FL_ENOMEM, "orphans: out of memory");
        fl_ice_manifest_file *mfs = NULL;
        uint32_t n = 0;
        fl_status rc = fl_ice_snapshot_manifests(io, m, s, a, &mfs, &n, err);
        if (rc == FL_ENOTFOUND && old)
            continue;
        FL_TRY(rc);
        for (uint32_t j = 0; j < n; j++) {
            const char *mp = norm(a, mfs[j].manifest_path);
            if (!mp)
                return fl_errorf(err, FL_ENOMEM, "orphans: out of memory");
            /* seen_manifests is sorted after each snapshot */
            if (prod_has_path(seen_manifests->v, seen_manifests->n, mp))
                continue;
            if (!txn_paths_push(reach, a, mp))
                return fl_errorf(err, FL_ENOMEM, "orphans: out of memory");
            fl_ice_manifest_entry *e = NULL;
            uint32_t ne = 0;
            rc = fl_ice_manifest_read(io, m, &mfs[j], a, &e, &ne, err);
            if (rc == FL_ENOTFOUND && old)
                continue;
            FL_TRY(rc);
            for (uint32_t k = 0; k < ne; k++)
                if (!add(reach, a, e[k].file.file_path))
                    return fl_errorf(err, FL_ENOMEM, "orphans: out of memory");
            if (!txn_paths_push(seen_manifests, a, mp))
                return fl_errorf(err, FL_ENOMEM, "orphans: out of memory");
        }
        prod_sort_paths(seen_manifests->v, seen_manifests->n); /* a set again */
    }
    return FL_OK;
}

static bool exists(fl_fileio *io, const char *path)
{
    fl_file *f = NULL;
    fl_error e = {0};
    if (fl_fileio_open(io, path, &f, &e) != FL_OK)
        return false;
    fl_file_close(f);
    return true;
}

static bool old_enough(const char *path, int64_t older_than_ms, int64_t now)
{
    const char *p = path;
    if (strncmp(p, "file://", 7) == 0)
        p += 7;
    if (p[0] == '/') {
        struct stat st;
        if (stat(p, &st) != 0)
            return false;
        int64_t mt = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
        return mt < older_than_ms;
    }
    return older_than_ms >= now;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* Names the table's writers produce (data, deletes, manifests, lists,
 * statistics, metadata files); version-hint.text is never a candidate. */
static bool writer_name(const char *p)
{
    static const char *const SUFFIXES[] = {
        ".parquet", ".avro", ".orc", ".puffin", ".stats", ".metadata.json", ".metadata.json.gz"};
    for (size_t i = 0; i < sizeof SUFFIXES / sizeof *SUFFIXES; i++)
        if (ends_with(p, SUFFIXES[i]))
            return true;
    return false;
}

/* The folders to list: data/ and metadata/ under the location, plus the
 * write.*.path folders inside it that those do not cover. */
static uint32_t list_roots(const fl_ice_table *t, fl_arena *a, const char *out[4])
{
    const char *loc = t->meta.location;
    size_t n = strlen(loc);
    while (n > 1 && loc[n - 1] == '/')
        n--;
    uint32_t k = 0;
    out[k++] = fl_arena_sprintf(a, "%.*s/data", (int)n, loc);
    out[k++] = fl_arena_sprintf(a, "%.*s/metadata", (int)n, loc);
    const char *props[] = {"write.data.path", "write.metadata.path"};
    for (uint32_t i = 0; i < 2; i++) {
        const char *v = fl_ice_map_get(&t->meta.properties, props[i]);
        if (!v || !fl_location_within(v, loc) || fl_location_within(loc, v))
            continue;
        bool covered = false;
        for (uint32_t j = 0; j < k && !covered; j++)
            covered = out[j] && fl_location_within(v, out[j]);
        if (!covered)
            out[k++] = v;
    }
    return k;
}

static fl_status list_all(fl_ice_table *t, fl_arena *a, orphan_ctx *oc, fl_error *err)
{
    const char *roots[4];
    uint32_t n = list_roots(t, a, roots);
    for (uint32_t i = 0; i < n; i++) {
        if (!roots[i])
            return fl_errorf(err, FL_ENOMEM, "orphans: out of memory");
        size_t l = strlen(roots[i]);
        while (l > 1 && roots[i][l - 1] == '/')
            l--;
        const char *prefix = fl_arena_sprintf(a, "%.*s/", (int)l, roots[i]);
        if (!prefix)
            return fl_errorf(err, FL_ENOMEM, "orphans: out of memory");
        fl_status rc = t->io->ops->list(t->io, prefix, on_listed, oc, err);
        if (rc == FL_ENOTFOUND) { /* no such folder: nothing to list */
            fl_error_clear(err);
            continue;
        }
        FL_TRY(rc);
        if (oc->oom)
            return fl_errorf(err, FL_ENOMEM, "orphans: out of memory");
    }
    return FL_OK;
}

/* The table's own location must be a confined one before anything under it
 * is listed for deletion. */
static fl_status check_location(const fl_ice_table *t, fl_error *err)
{
    const fl_catalog *c = t->catalog;
    if (!c || c->ops->create_table_metadata || c->ops->commit_updates)
        return FL_OK; /* opened by path (the caller named it), or the server's rules */
    fl_status rc = fl_catalog_location_check(c, t->meta.location, err);
    if (rc != FL_OK)
        fl_error_prefix(err, "remove orphan files of %s refused", t->ident.name);
    return rc;
}

fl_status fl_ice_remove_orphan_files(fl_ice_table *t, int64_t older_than_ms, bool dry_run,
                                     void (*fn)(void *ctx, const char *path), void *ctx,
                                     uint64_t *count, fl_error *err)
{
    if (count)
        *count = 0;
    if (!t || !t->meta.location)
        return fl_errorf(err, FL_EINVAL, "orphans: no table");
    FL_TRY(check_location(t, err));
    int64_t now = txn_now_ms();
    if (older_than_ms < 0)
        older_than_ms = now - 3LL * 24 * 3600 * 1000;
    fl_arena a;
    fl_arena_init(&a, 0);
    txn_paths reach = {0}, seen = {0};
    fl_status rc = FL_OK;
    if (t->metadata_location && !add(&reach, &a, t->metadata_location))
        rc = fl_errorf(err, FL_ENOMEM, "orphans: out of memory");
    if (rc == FL_OK)
        rc = reach_metadata(t->io, &t->meta, false, &reach, &seen, &a, err);
    for (uint32_t i = 0; rc == FL_OK && i < t->meta.nmetadata_log; i++) {
        const char *p = t->meta.metadata_log[i].metadata_file;
        if (!add(&reach, &a, p)) {
            rc = fl_errorf(err, FL_ENOMEM, "orphans: out of memory");
            break;
        }
        if (!exists(t->io, p))
            continue;
        fl_ice_metadata old;
        rc = fl_ice_metadata_read(t->io, p, &a, &old, err);
        if (rc == FL_OK)
            rc = reach_metadata(t->io, &old, true, &reach, &seen, &a, err);
    }
    orphan_ctx oc = {.a = &a};
    ice_owned own;
    if (rc == FL_OK)
        rc = ice_owned_init(t, &a, &own, err);
    if (rc == FL_OK) {
        prod_sort_paths(reach.v, reach.n);
        rc = list_all(t, &a, &oc, err);
    }
    uint64_t nfound = 0;
    for (uint32_t i = 0; rc == FL_OK && i < oc.listed.n; i++) {
        const char *p = oc.listed.v[i];
        const char *np = norm(&a, p);
        if (!np || prod_has_path(reach.v, reach.n, np) || !writer_name(np) ||
            !ice_owned_has(&own, p))
            continue;
        if (!old_enough(p, older_than_ms, now))
            continue;
        if (fn)
            fn(ctx, p);
        if (!dry_run) {
            fl_error e = {0};
            if (fl_fileio_remove(t->io, p, &e) != FL_OK)
                continue;
        }
        nfound++;
    }
    fl_arena_free(&a);
    if (count)
        *count = nfound;
    return rc;
}
