/*
 * produce_validate.c - conflict validation of row-level changes (Java's
 * MergingSnapshotProducer.validate* family), run on every commit attempt
 * against the snapshots committed on the branch since the txn began.
 *
 * Walks from the branch head back to the txn's starting snapshot (which
 * must still be an ancestor: a concurrent rollback is a conflict), and
 * reads only the manifests each of those snapshots added, only their own
 * entries:
 *   - ADDED data file, serializable isolation: conflict when it may hold
 *     rows matching the conflict filter (fl_ice_file_match != NONE; no
 *     filter = any file), because our delete/update did not see them;
 *     files added by a "replace" (compaction) hold no new rows and pass;
 *   - ADDED delete file: conflict when it targets a data file we remove or
 *     (untargeted: equality deletes, unreferenced position deletes) may
 *     match the filter while we remove data files — our rewrite would
 *     resurrect the rows it deletes;
 *   - DELETED file we also remove: conflict (both isolation levels);
 *   - DELETED data file that one of our new position deletes references.
 * Every failure is FL_ECONFLICT naming the file and the snapshot.
 */
#include <string.h>

#include "iceberg/produce_internal.h"

static fl_status check_entry(const fl_ice_metadata *m, const fl_ice_schema *s,
                             const prod_validation *v, const fl_ice_snapshot *snap,
                             const fl_ice_manifest_entry *e, fl_error *err)
{
    const fl_ice_data_file *f = &e->file;
    long long sid = (long long)snap->snapshot_id;
    if (e->status == FL_ICE_STATUS_ADDED) {
        if (f->content == FL_ICE_CONTENT_DATA) {
            /* a compaction ("replace") adds files but no rows: as Java's
             * validateAddedDataFiles, only appends and overwrites count */
            if (v->check_added_data && strcmp(snap->operation, "replace") != 0 &&
                (!v->filter || fl_ice_file_match(m, s, v->filter, f) != FL_ICE_MATCH_NONE))
                return fl_errorf(err, FL_ECONFLICT,
                                 "found conflicting data file %s added by concurrent snapshot "
                                 "%lld (%s) that may contain rows matching the conflict filter",
                                 f->file_path, sid, snap->operation);
            return FL_OK;
        }
        if (!v->check_added_deletes)
            return FL_OK;
        if (f->referenced_data_file) {
            if (prod_has_path(v->removed, v->nremoved, f->referenced_data_file))
                return fl_errorf(err, FL_ECONFLICT,
                                 "found conflicting delete file %s added by concurrent snapshot "
                                 "%lld for data file %s that this commit rewrites",
                                 f->file_path, sid, f->referenced_data_file);
            return FL_OK;
        }
        if (v->nremoved &&
            (!v->filter || fl_ice_file_match(m, s, v->filter, f) != FL_ICE_MATCH_NONE))
            return fl_errorf(err, FL_ECONFLICT,
                             "found conflicting delete file %s added by concurrent snapshot %lld "
                             "that may apply to rows this commit rewrites",
                             f->file_path, sid);
        return FL_OK;
    }
    if (e->status == FL_ICE_STATUS_DELETED) {
        if (prod_has_path(v->removed, v->nremoved, f->file_path))
            return fl_errorf(err, FL_ECONFLICT,
                             "file %s was already removed by concurrent snapshot %lld (%s)",
                             f->file_path, sid, snap->operation);
        if (f->content == FL_ICE_CONTENT_DATA &&
            prod_has_path(v->referenced, v->nreferenced, f->file_path))
            return fl_errorf(err, FL_ECONFLICT,
                             "data file %s, referenced by a new delete file, was removed by "
                             "concurrent snapshot %lld",
                             f->file_path, sid);
    }
    return FL_OK;
}

static fl_status check_snapshot(fl_ice_txn *x, txn_attempt *at, const prod_validation *v,
                                const fl_ice_snapshot *snap, fl_error *err)
{
    const fl_ice_metadata *m = &at->cur;
    const fl_ice_schema *s = fl_ice_metadata_current_schema(m);
    fl_ice_manifest_file *mfs = NULL;
    uint32_t nmf = 0;
    FL_TRY(fl_ice_snapshot_manifests(x->t->io, m, snap, &at->arena, &mfs, &nmf, err));
    for (uint32_t i = 0; i < nmf; i++) {
        if (mfs[i].added_snapshot_id != snap->snapshot_id)
            continue;
        fl_ice_manifest_entry *e = NULL;
        uint32_t n = 0;
        FL_TRY(fl_ice_manifest_read(x->t->io, m, &mfs[i], &at->arena, &e, &n, err));
        for (uint32_t j = 0; j < n; j++)
            if (e[j].snapshot_id == snap->snapshot_id)
                FL_TRY(check_entry(m, s, v, snap, &e[j], err));
    }
    return FL_OK;
}

fl_status prod_validate(fl_ice_txn *x, txn_attempt *at, const prod_validation *v, fl_error *err)
{
    if (!v->check_added_data && !v->check_added_deletes && !v->nremoved && !v->nreferenced)
        return FL_OK;
    const fl_ice_metadata *m = &at->cur;
    const fl_ice_snapshot *s = txn_branch_head(x, m);
    for (uint32_t guard = 0; s && guard <= m->nsnapshots; guard++) {
        if (s->snapshot_id == x->start_snapshot_id)
            return FL_OK;
        bool ours = false; /* snapshots this txn made earlier in the attempt */
        for (uint32_t i = 0; i < x->nops && !ours; i++)
            ours = x->ops[i].snapshot_id == s->snapshot_id;
        if (!ours)
            FL_TRY(check_snapshot(x, at, v, s, err));
        if (!s->has_parent)
            break;
        const fl_ice_snapshot *p = fl_ice_metadata_snapshot(m, s->parent_snapshot_id);
        if (!p && s->parent_snapshot_id != x->start_snapshot_id)
            return fl_errorf(err, FL_ECONFLICT,
                             "cannot validate: snapshot %lld, an ancestor of branch %s, was "
                             "expired concurrently",
                             (long long)s->parent_snapshot_id, x->branch);
        if (!p)
            return FL_OK;
        s = p;
    }
    if (x->start_snapshot_id == -1)
        return FL_OK;
    return fl_errorf(err, FL_ECONFLICT,
                     "snapshot %lld, where this transaction began, is no longer an ancestor of "
                     "branch %s (rolled back concurrently)",
                     (long long)x->start_snapshot_id, x->branch);
}
