/*
 * drop.c - fl_ice_table_drop: removes a table from its catalog and, with
 * purge, deletes every file its metadata reaches (Java's
 * CatalogUtil.dropTableData): data and delete files of every snapshot's
 * manifests, the manifests, manifest lists, statistics files, and the
 * metadata files of the metadata log plus the current one.
 *
 * Order: the reachable set is collected first (a read error aborts the drop
 * with nothing changed), then the catalog entry is dropped, then files are
 * deleted one by one (missing ones are not an error: expire may have
 * removed them).
 * A deletion failure after the drop is reported; the table is gone either
 * way, and the remaining files are orphans.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/ice_manifest.h"
#include "floe/ice_table.h"

typedef struct paths {
    const char **p;
    size_t n, cap;
} paths;

static fl_status add(paths *ps, const char *s, fl_error *err)
{
    if (!s)
        return FL_OK;
    if (ps->n == ps->cap) {
        size_t cap = ps->cap ? ps->cap * 2 : 64;
        const char **n = realloc(ps->p, cap * sizeof *n);
        if (!n)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        ps->p = n;
        ps->cap = cap;
    }
    ps->p[ps->n++] = s;
    return FL_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static fl_status collect(fl_fileio *io, const fl_ice_metadata *m, fl_arena *a, paths *ps,
                         fl_error *err)
{
    for (uint32_t i = 0; i < m->nmetadata_log; i++)
        FL_TRY(add(ps, m->metadata_log[i].metadata_file, err));
    for (uint32_t i = 0; i < m->nstatistics; i++)
        FL_TRY(add(ps, m->statistics[i].statistics_path, err));
    for (uint32_t i = 0; i < m->npartition_statistics; i++)
        FL_TRY(add(ps, m->partition_statistics[i].statistics_path, err));
    for (uint32_t s = 0; s < m->nsnapshots; s++) {
        const fl_ice_snapshot *snap = &m->snapshots[s];
        FL_TRY(add(ps, snap->manifest_list, err));
        fl_ice_manifest_file *mf;
        uint32_t nmf;
        FL_TRY(fl_ice_snapshot_manifests(io, m, snap, a, &mf, &nmf, err));
        for (uint32_t k = 0; k < nmf; k++) {
            FL_TRY(add(ps, mf[k].manifest_path, err));
            fl_ice_manifest_entry *e;
            uint32_t ne;
            FL_TRY(fl_ice_manifest_read(io, m, &mf[k], a, &e, &ne, err));
            for (uint32_t j = 0; j < ne; j++)
                if (e[j].status != FL_ICE_STATUS_DELETED) /* live in an older snapshot if any */
                    FL_TRY(add(ps, e[j].file.file_path, err));
        }
    }
    return FL_OK;
}

fl_status fl_ice_table_drop(fl_catalog *c, const fl_table_ident *id, bool purge, fl_error *err)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    paths ps = {0};
    const char *loc = NULL;
    fl_status rc = c->ops->load_table(c, id, &a, &loc, err);
    if (rc == FL_OK && purge) {
        fl_ice_metadata m;
        rc = fl_ice_metadata_read(c->io, loc, &a, &m, err);
        if (rc == FL_OK)
            rc = collect(c->io, &m, &a, &ps, err);
        if (rc == FL_OK)
            rc = add(&ps, loc, err);
    }
    if (rc == FL_OK)
        rc = c->ops->drop_table(c, id, err);
    if (rc == FL_OK && ps.n) {
        qsort(ps.p, ps.n, sizeof *ps.p, cmp_str);
        size_t u = 0;
        for (size_t i = 0; i < ps.n; i++)
            if (!u || strcmp(ps.p[i], ps.p[u - 1]) != 0)
                ps.p[u++] = ps.p[i];
        for (size_t i = 0; i < u && rc == FL_OK; i++) {
            rc = fl_fileio_remove(c->io, ps.p[i], err);
            if (rc == FL_ENOTFOUND)
                rc = FL_OK; /* already gone (expired, compacted) */
        }
        if (rc != FL_OK)
            fl_error_prefix(err, "table dropped, but purging its files failed");
    }
    free(ps.p);
    fl_arena_free(&a);
    return rc;
}
