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
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static bool is_hint(const char *p)
{
    size_t n = strlen(p);
    return n >= 18 && strcmp(p + n - 18, "version-hint.text") == 0;
}

fl_status fl_ice_remove_orphan_files(fl_ice_table *t, int64_t older_than_ms, bool dry_run,
                                     void (*fn)(void *ctx, const char *path), void *ctx,
                                     uint64_t *count, fl_error *err)
{
    if (count)
        *count = 0;
    if (!t || !t->meta.location)
        return fl_errorf(err, FL_EINVAL, "orphans: no table");
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
    if (rc == FL_OK) {
        prod_sort_paths(reach.v, reach.n);
        size_t n = strlen(t->meta.location);
        while (n > 1 && t->meta.location[n - 1] == '/')
            n--;
        const char *prefix = fl_arena_sprintf(&a, "%.*s/", (int)n, t->meta.location);
        rc = prefix ? t->io->ops->list(t->io, prefix, on_listed, &oc, err)
                    : fl_errorf(err, FL_ENOMEM, "orphans: out of memory");
        if (rc == FL_OK && oc.oom)
            rc = fl_errorf(err, FL_ENOMEM, "orphans: out of memory");
    }
    uint64_t nfound = 0;
    for (uint32_t i = 0; rc == FL_OK && i < oc.listed.n; i++) {
        const char *p = oc.listed.v[i];
        const char *np = norm(&a, p);
        if (!np || prod_has_path(reach.v, reach.n, np) || is_hint(np))
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
