/*
 * expire.c - fl_ice_txn_expire_snapshots(): removes old snapshots from the
 * metadata, then (after the commit lands) deletes the files only they
 * reached. Semantics of Java's RemoveSnapshots + ReachableFileCleanup:
 *
 * Which snapshots stay (computed on every attempt against the latest metadata):
 *   - refs whose snapshot is older than their max-ref-age-ms
 *     (history.expire.max-ref-age-ms) are removed, except main;
 *   - a tag keeps its snapshot;
 *   - a branch keeps its head and then ancestors while fewer than
 *     min-snapshots-to-keep are kept or the ancestor is newer than the cutoff
 *     (the ref's max-snapshot-age-ms, else older_than_ms, else now -
 *     history.expire.max-snapshot-age-ms, default 5 days; min-snapshots-to-keep
 *     from the ref, else retain_last, else history.expire.min-snapshots-to-keep,
 *     default 1);
 *   - snapshots no ref reaches stay while newer than the cutoff;
 *   - main's history back to each ingestion pipeline's newest checkpoint
 *     (floe's rule, keep_pipeline_checkpoints below).
 *
 * Cleanup after the commit: manifest lists of expired snapshots; manifests
 * they listed that no remaining snapshot lists; data and delete files of
 * those manifests that no remaining manifest lists as live (ADDED/EXISTING);
 * statistics files dropped with their snapshots. Deletion failures are not
 * errors (the files are orphans, see fl_ice_remove_orphan_files).
 *
 * Confinement: a manifest may name files anywhere (a client wrote it), so a
 * file is deleted only when ice_owned_has() accepts it (under the table's
 * own location, not another nested table's, not protected by the catalog);
 * the others are counted in files_outside and left.
 */
#include <stdlib.h>
#include <string.h>

#include "iceberg/confine_int.h"
#include "iceberg/produce_internal.h"

typedef struct expire_state {
    int64_t older_than_ms;
    uint32_t retain_last;
    fl_ice_expire_result *result; /* caller's, may be NULL */
    uint64_t expired;
} expire_state;

static bool in_ids(const int64_t *v, uint32_t n, int64_t id)
{
    for (uint32_t i = 0; i < n; i++)
        if (v[i] == id)
            return true;
    return false;
}

/* Ingestion pipelines (src/ingest/state.c) read their committed source
 * positions from the newest snapshot on main's ancestry whose summary says
 * floe.pipeline = <name>; the walk follows parent ids, so it needs every
 * snapshot from main's head down to that one. For each pipeline the table
 * lists (property floe.pipeline.<name>.checkpoint), main's history is kept
 * back to its newest checkpoint: expiry never makes a pipeline forget where
 * it stopped (it would refuse to start rather than ingest twice). */
static bool pipeline_listed(const fl_ice_metadata *m, const char *name)
{
    static const char pre[] = "floe.pipeline.", suf[] = ".checkpoint";
    size_t n = strlen(name);
    for (uint32_t i = 0; i < m->properties.n; i++) {
        const char *k = m->properties.items[i].key;
        size_t kl = strlen(k);
        if (kl == sizeof pre - 1 + n + sizeof suf - 1 && !strncmp(k, pre, sizeof pre - 1) &&
            !strncmp(k + sizeof pre - 1, name, n) && !strcmp(k + sizeof pre - 1 + n, suf))
            return true;
    }
    return false;
}

static uint32_t pipelines_listed(const fl_ice_metadata *m)
{
    static const char pre[] = "floe.pipeline.", suf[] = ".checkpoint";
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->properties.n; i++) {
        const char *k = m->properties.items[i].key;
        size_t kl = strlen(k);
        n += kl > sizeof pre + sizeof suf - 2 && !strncmp(k, pre, sizeof pre - 1) &&
             !strcmp(k + kl - (sizeof suf - 1), suf);
    }
    return n;
}

static void keep_pipeline_checkpoints(const fl_ice_metadata *m, int64_t *keep, uint32_t *nkeep,
                                      fl_arena *a)
{
    uint32_t pending = pipelines_listed(m);
    const fl_ice_ref *main = fl_ice_metadata_ref(m, "main");
    const fl_ice_snapshot *s = main ? fl_ice_metadata_snapshot(m, main->snapshot_id) : NULL;
    const char **found = pending ? fl_arena_calloc(a, pending, sizeof *found) : NULL;
    uint32_t nfound = 0;
    for (uint32_t g = 0; s && pending && found && g <= m->nsnapshots; g++) {
        if (!in_ids(keep, *nkeep, s->snapshot_id))
            keep[(*nkeep)++] = s->snapshot_id;
        const char *p = s->has_summary ? fl_ice_map_get(&s->summary, "floe.pipeline") : NULL;
        bool seen = false;
        for (uint32_t i = 0; p && i < nfound; i++)
            seen |= !strcmp(found[i], p);
        if (p && !seen && nfound < pending && pipeline_listed(m, p)) {
            found[nfound++] = p;
            if (nfound == pending)
                break;
        }
        s = s->has_parent ? fl_ice_metadata_snapshot(m, s->parent_snapshot_id) : NULL;
    }
}

static fl_status expire_build(fl_ice_txn *x, txn_op *op, txn_attempt *at, fl_error *err)
{
    expire_state *st = op->state;
    const fl_ice_metadata *m = &at->cur;
    int64_t now = at->now_ms;
    int64_t cutoff = st->older_than_ms >= 0
                         ? st->older_than_ms
                         : now - txn_prop_i64(m, "history.expire.max-snapshot-age-ms", 432000000LL);
    int64_t min_keep = st->retain_last ? st->retain_last
                                       : txn_prop_i64(m, "history.expire.min-snapshots-to-keep", 1);
    int64_t max_ref_age = txn_prop_i64(m, "history.expire.max-ref-age-ms", INT64_MAX);
    uint32_t ns = m->nsnapshots;
    int64_t *keep = fl_arena_alloc(&at->arena, (ns + 1) * sizeof *keep);
    int64_t *reach = fl_arena_alloc(&at->arena, (ns + 1) * sizeof *reach);
    const char **drop_refs = fl_arena_alloc(&at->arena, (m->nrefs + 1) * sizeof *drop_refs);
    if (!keep || !reach || !drop_refs)
        return fl_errorf(err, FL_ENOMEM, "expire: out of memory");
    uint32_t nkeep = 0, nreach = 0, ndrop = 0;
    for (uint32_t i = 0; i < m->nrefs; i++) {
        const fl_ice_ref *r = &m->refs[i];
        const fl_ice_snapshot *s = fl_ice_metadata_snapshot(m, r->snapshot_id);
        int64_t ref_age = r->has_max_ref_age_ms ? r->max_ref_age_ms : max_ref_age;
        if (strcmp(r->name, "main") != 0 && s && ref_age != INT64_MAX &&
            now - s->timestamp_ms > ref_age) {
            drop_refs[ndrop++] = r->name;
            continue;
        }
        if (r->is_tag) {
            if (!in_ids(keep, nkeep, r->snapshot_id))
                keep[nkeep++] = r->snapshot_id;
            continue;
        }
        int64_t bcut = r->has_max_snapshot_age_ms ? now - r->max_snapshot_age_ms : cutoff;
        int64_t bmin = r->has_min_snapshots_to_keep ? r->min_snapshots_to_keep : min_keep;
        int64_t kept = 0;
        for (uint32_t g = 0; s && g <= ns; g++) {
            if (!in_ids(reach, nreach, s->snapshot_id))
                reach[nreach++] = s->snapshot_id;
            if (kept < bmin || s->timestamp_ms >= bcut) {
                if (!in_ids(keep, nkeep, s->snapshot_id))
                    keep[nkeep++] = s->snapshot_id;
                kept++;
            } else {
                /* older ancestors are reachable but expired */
            }
            s = s->has_parent ? fl_ice_metadata_snapshot(m, s->parent_snapshot_id) : NULL;
        }
    }
    keep_pipeline_checkpoints(m, keep, &nkeep, &at->arena);
    int64_t *expired = fl_arena_alloc(&at->arena, (ns + 1) * sizeof *expired);
    if (!expired)
        return fl_errorf(err, FL_ENOMEM, "expire: out of memory");
    uint32_t nexp = 0;
    for (uint32_t i = 0; i < ns; i++) {
        const fl_ice_snapshot *s = &m->snapshots[i];
        if (in_ids(keep, nkeep, s->snapshot_id))
            continue;
        if (!in_ids(reach, nreach, s->snapshot_id) && s->timestamp_ms >= cutoff)
            continue; /* unreferenced but young */
        expired[nexp++] = s->snapshot_id;
    }
    st->expired = nexp;
    for (uint32_t i = 0; i < ndrop; i++) {
        fl_ice_update u = {.kind = FL_ICE_UPD_REMOVE_SNAPSHOT_REF, .ref_name = drop_refs[i]};
        FL_TRY(txn_emit(at, &u, 1, err));
    }
    if (nexp) {
        fl_ice_update u = {.kind = FL_ICE_UPD_REMOVE_SNAPSHOTS, .ids = expired, .nids = nexp};
        FL_TRY(txn_emit(at, &u, 1, err));
    }
    return FL_OK;
}

/* ---- cleanup after the commit --------------------------------------------------------- */

typedef struct pathset {
    txn_paths p;
    bool sorted;
} pathset;

static bool ps_add(pathset *s, fl_arena *a, const char *path)
{
    s->sorted = false;
    return txn_paths_push(&s->p, a, path);
}

static void ps_seal(pathset *s)
{
    prod_sort_paths(s->p.v, s->p.n);
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->p.n; i++)
        if (k == 0 || strcmp(s->p.v[i], s->p.v[k - 1]) != 0)
            s->p.v[k++] = s->p.v[i];
    s->p.n = k;
    s->sorted = true;
}

static bool ps_has(const pathset *s, const char *path)
{
    return prod_has_path(s->p.v, s->p.n, path);
}

typedef struct gone_file {
    const char *path;
    fl_ice_content content;
} gone_file;

static int cmp_gone(const void *x, const void *y)
{
    return strcmp(((const gone_file *)x)->path, ((const gone_file *)y)->path);
}

static int cmp_mf(const void *x, const void *y)
{
    return strcmp(((const fl_ice_manifest_file *)x)->manifest_path,
                  ((const fl_ice_manifest_file *)y)->manifest_path);
}

typedef struct remover {
    fl_fileio *io;
    ice_owned own;
    fl_ice_expire_result *res;
} remover;

/* Deletes path when it is the table's; true when it was deleted. */
static bool remove_file(remover *rm, const char *path)
{
    if (!ice_owned_has(&rm->own, path)) {
        rm->res->files_outside++;
        return false;
    }
    fl_error e = {0};
    return fl_fileio_remove(rm->io, path, &e) == FL_OK;
}

static fl_status expire_after(fl_ice_txn *x, txn_op *op, const fl_ice_metadata *before,
                              const fl_ice_metadata *after, fl_error *err)
{
    expire_state *st = op->state;
    fl_fileio *io = x->t->io;
    fl_ice_expire_result res = {.snapshots_expired = st->expired};
    fl_arena a;
    fl_arena_init(&a, 0);
    pathset kept_manifests = {0}, live_files = {0}, cand_lists = {0};
    fl_status rc = FL_OK;
    /* manifests still listed */
    for (uint32_t i = 0; i < after->nsnapshots && rc == FL_OK; i++) {
        fl_ice_manifest_file *mfs = NULL;
        uint32_t n = 0;
        rc = fl_ice_snapshot_manifests(io, after, &after->snapshots[i], &a, &mfs, &n, err);
        for (uint32_t j = 0; rc == FL_OK && j < n; j++)
            if (!ps_add(&kept_manifests, &a, mfs[j].manifest_path))
                rc = fl_errorf(err, FL_ENOMEM, "expire: out of memory");
    }
    ps_seal(&kept_manifests);
    /* manifests of expired snapshots that nobody lists any more */
    fl_ice_manifest_file *cands = NULL;
    uint32_t ncands = 0, capc = 0;
    for (uint32_t i = 0; i < before->nsnapshots && rc == FL_OK; i++) {
        const fl_ice_snapshot *s = &before->snapshots[i];
        if (fl_ice_metadata_snapshot(after, s->snapshot_id))
            continue;
        if (s->manifest_list && !ps_add(&cand_lists, &a, s->manifest_list))
            rc = fl_errorf(err, FL_ENOMEM, "expire: out of memory");
        fl_ice_manifest_file *mfs = NULL;
        uint32_t n = 0;
        fl_error e2 = {0};
        if (rc != FL_OK || fl_ice_snapshot_manifests(io, before, s, &a, &mfs, &n, &e2) != FL_OK)
            continue; /* an unreadable list: its manifests stay (orphans at worst) */
        for (uint32_t j = 0; j < n; j++) {
            if (ps_has(&kept_manifests, mfs[j].manifest_path))
                continue;
            if (ncands == capc) {
                capc = capc ? capc * 2 : 16;
                fl_ice_manifest_file *v = fl_arena_alloc(&a, capc * sizeof *v);
                if (!v) {
                    rc = fl_errorf(err, FL_ENOMEM, "expire: out of memory");
                    break;
                }
                if (ncands)
                    memcpy(v, cands, ncands * sizeof *v);
                cands = v;
            }
            cands[ncands++] = mfs[j];
        }
    }
    if (ncands > 1)
        qsort(cands, ncands, sizeof *cands, cmp_mf);
    uint32_t u = 0;
    for (uint32_t i = 0; i < ncands; i++)
        if (u == 0 || strcmp(cands[i].manifest_path, cands[u - 1].manifest_path) != 0)
            cands[u++] = cands[i];
    ncands = u;
    /* files live in remaining manifests (only needed when something may go) */
    if (rc == FL_OK && ncands) {
        for (uint32_t i = 0; i < after->nsnapshots && rc == FL_OK; i++) {
            fl_ice_manifest_file *mfs = NULL;
            uint32_t n = 0;
            rc = fl_ice_snapshot_manifests(io, after, &after->snapshots[i], &a, &mfs, &n, err);
            for (uint32_t j = 0; rc == FL_OK && j < n; j++) {
                fl_ice_manifest_entry *e = NULL;
                uint32_t ne = 0;
                rc = fl_ice_manifest_read(io, after, &mfs[j], &a, &e, &ne, err);
                for (uint32_t k = 0; rc == FL_OK && k < ne; k++)
                    if (e[k].status != FL_ICE_STATUS_DELETED &&
                        !ps_add(&live_files, &a, e[k].file.file_path))
                        rc = fl_errorf(err, FL_ENOMEM, "expire: out of memory");
            }
        }
        ps_seal(&live_files);
    }
    /* files of the candidates that are not live */
    gone_file *gone = NULL;
    uint32_t ngone = 0, capg = 0;
    for (uint32_t i = 0; i < ncands && rc == FL_OK; i++) {
        fl_ice_manifest_entry *e = NULL;
        uint32_t ne = 0;
        fl_error e2 = {0};
        if (fl_ice_manifest_read(io, before, &cands[i], &a, &e, &ne, &e2) != FL_OK) {
            cands[i].manifest_path = NULL; /* keep it and its files (orphans at worst) */
            continue;
        }
        for (uint32_t k = 0; k < ne; k++) {
            if (ps_has(&live_files, e[k].file.file_path))
                continue;
            if (ngone == capg) {
                capg = capg ? capg * 2 : 64;
                gone_file *v = fl_arena_alloc(&a, capg * sizeof *v);
                if (!v) {
                    rc = fl_errorf(err, FL_ENOMEM, "expire: out of memory");
                    break;
                }
                if (ngone)
                    memcpy(v, gone, ngone * sizeof *v);
                gone = v;
            }
            gone[ngone++] = (gone_file){e[k].file.file_path, e[k].file.content};
        }
    }
    if (ngone > 1)
        qsort(gone, ngone, sizeof *gone, cmp_gone);
    remover rm = {.io = io, .res = &res};
    if (rc == FL_OK && (ngone || ncands || cand_lists.p.n || before->nstatistics))
        rc = ice_owned_init(x->t, &a, &rm.own, err);
    for (uint32_t i = 0; i < ngone && rc == FL_OK; i++) {
        if (i && strcmp(gone[i].path, gone[i - 1].path) == 0)
            continue;
        if (remove_file(&rm, gone[i].path)) {
            if (gone[i].content == FL_ICE_CONTENT_DATA)
                res.data_files_deleted++;
            else
                res.delete_files_deleted++;
        }
    }
    if (rc == FL_OK) {
        for (uint32_t i = 0; i < ncands; i++)
            if (cands[i].manifest_path)
                res.manifests_deleted += remove_file(&rm, cands[i].manifest_path);
        ps_seal(&cand_lists);
        for (uint32_t i = 0; i < cand_lists.p.n; i++)
            res.manifest_lists_deleted += remove_file(&rm, cand_lists.p.v[i]);
        for (uint32_t i = 0; i < before->nstatistics; i++) {
            bool still = false;
            for (uint32_t j = 0; j < after->nstatistics && !still; j++)
                still = strcmp(after->statistics[j].statistics_path,
                               before->statistics[i].statistics_path) == 0;
            if (!still)
                remove_file(&rm, before->statistics[i].statistics_path);
        }
    }
    fl_arena_free(&a);
    if (st->result)
        *st->result = res;
    if (rc != FL_OK)
        fl_error_prefix(err, "expire: the snapshots were removed, but cleaning up their files "
                             "failed");
    return rc;
}

static const txn_op_vt EXPIRE_VT = {
    .name = "expire snapshots", .build = expire_build, .after_commit = expire_after};

fl_status fl_ice_txn_expire_snapshots(fl_ice_txn *x, int64_t older_than_ms, uint32_t retain_last,
                                      fl_ice_expire_result *result, fl_error *err)
{
    expire_state *st = fl_arena_calloc(&x->arena, 1, sizeof *st);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "transaction: out of memory");
    st->older_than_ms = older_than_ms;
    st->retain_last = retain_last;
    st->result = result;
    if (result)
        memset(result, 0, sizeof *result);
    return txn_add_op(x, &EXPIRE_VT, st, NULL, err);
}
