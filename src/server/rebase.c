/*
 * rebase.c - server-side rebase of an append that lost its race.
 *
 * A client appending to a table sends add-snapshot (operation "append",
 * parent P, sequence number N, manifest list L) + set-snapshot-ref main, with
 * the requirement assert-ref-snapshot-id main == P. When another commit moved
 * main to H first, every other catalog answers 409 and the client redoes the
 * work. An append cannot conflict with anything (it only adds files), so the
 * server instead re-parents it:
 *
 *   own  = the manifests of L added by this snapshot (added_snapshot_id ==
 *          the snapshot id); each must hold only ADDED entries (a client that
 *          merged older manifests into its own is not rebased: 409);
 *   rest = the other manifests of L, which must be exactly P's manifests
 *          (else the client removed or rewrote something: 409);
 *   L'   = own (sequence numbers re-assigned) + H's manifests, written to
 *          <location>/metadata/snap-<id>-r<seq>-<uuid>.avro;
 *   the snapshot keeps its id and becomes (parent H, sequence number
 *          last-sequence-number + 1, manifest list L'), with the summary's
 *          total-* recomputed as H's totals + this snapshot's added-* values.
 *
 * Data files inherit sequence numbers from their manifest (null in entries
 * that a writer adds), so re-assigning the manifest's sequence number in L'
 * is enough. Only v1/v2 tables are rebased (v3 row lineage would need
 * first-row-id re-assignment). The client's original list L stays an
 * unreferenced file (an orphan, as with any failed commit).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/ice_manifest.h"
#include "server/server_internal.h"

bool srv_commit_is_append(const srv_commit_req *cr)
{
    if (cr->assert_create || cr->nupd != 2)
        return false;
    const fl_ice_update *a = &cr->upd[0], *b = &cr->upd[1];
    if (a->kind != FL_ICE_UPD_ADD_SNAPSHOT || b->kind != FL_ICE_UPD_SET_SNAPSHOT_REF)
        return false;
    if (!a->snapshot->operation || strcmp(a->snapshot->operation, "append") != 0 ||
        !a->snapshot->manifest_list)
        return false;
    if (strcmp(b->ref->name, "main") != 0 || b->ref->is_tag ||
        b->ref->snapshot_id != a->snapshot->snapshot_id)
        return false;
    for (uint32_t i = 0; i < cr->nreq; i++) {
        const fl_ice_requirement *q = &cr->req[i];
        if (q->kind == FL_ICE_REQ_ASSERT_TABLE_UUID)
            continue;
        if (q->kind == FL_ICE_REQ_ASSERT_REF_SNAPSHOT_ID && !strcmp(q->ref, "main"))
            continue;
        return false;
    }
    return true;
}

static bool has_path(const fl_ice_manifest_file *m, uint32_t n, const char *p)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(m[i].manifest_path, p))
            return true;
    return false;
}

static const char *summary_get(const fl_ice_snapshot *s, const char *k)
{
    return s ? fl_ice_map_get(&s->summary, k) : NULL;
}

/* Summary of the rebased snapshot: added-* kept, total-* = head + added. */
static fl_status rebase_summary(const fl_ice_snapshot *s, const fl_ice_snapshot *head,
                                fl_arena *a, fl_ice_map *out, fl_error *err)
{
    static const char *const totals[][2] = {
        {"total-data-files", "added-data-files"},
        {"total-records", "added-records"},
        {"total-files-size", "added-files-size"},
        {"total-delete-files", "added-delete-files"},
        {"total-position-deletes", "added-position-deletes"},
        {"total-equality-deletes", "added-equality-deletes"},
    };
    out->items = fl_arena_calloc(a, s->summary.n + 1, sizeof *out->items);
    if (!out->items)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    out->n = 0;
    for (uint32_t i = 0; i < s->summary.n; i++) {
        fl_ice_kv kv = s->summary.items[i];
        for (size_t t = 0; t < sizeof totals / sizeof *totals; t++) {
            if (strcmp(kv.key, totals[t][0]) != 0)
                continue;
            const char *hv = head ? summary_get(head, totals[t][0]) : "0";
            const char *av = summary_get(s, totals[t][1]);
            if (!hv) {
                kv.value = NULL; /* head has no total: drop ours */
                break;
            }
            long long sum = strtoll(hv, NULL, 10) + (av ? strtoll(av, NULL, 10) : 0);
            kv.value = fl_arena_sprintf(a, "%lld", sum);
        }
        if (kv.value)
            out->items[out->n++] = kv;
    }
    return FL_OK;
}

fl_status srv_rebase_append(fl_fileio *io, const fl_ice_metadata *base, const srv_commit_req *cr,
                            fl_arena *a, srv_commit_req *out, fl_error *err)
{
    const fl_ice_snapshot *s = cr->upd[0].snapshot;
    if (base->format_version > 2)
        return fl_errorf(err, FL_ECONFLICT, "append of snapshot %" PRId64
                         " lost a race on a v3 table (not rebased on the server)", s->snapshot_id);
    fl_ice_manifest_file *mine = NULL, *parent = NULL, *head = NULL;
    uint32_t nmine = 0, nparent = 0, nhead = 0;
    FL_TRY(fl_ice_manifest_list_read(io, s->manifest_list, base->format_version, a, &mine, &nmine,
                                     err));
    const fl_ice_snapshot *ps = s->has_parent ? fl_ice_metadata_snapshot(base, s->parent_snapshot_id)
                                              : NULL;
    if (s->has_parent && !ps)
        return fl_errorf(err, FL_ECONFLICT,
                         "append's parent snapshot %" PRId64 " no longer exists",
                         s->parent_snapshot_id);
    if (ps)
        FL_TRY(fl_ice_snapshot_manifests(io, base, ps, a, &parent, &nparent, err));
    const fl_ice_snapshot *hs = fl_ice_metadata_current_snapshot(base);
    if (hs)
        FL_TRY(fl_ice_snapshot_manifests(io, base, hs, a, &head, &nhead, err));
    fl_ice_manifest_file *list = fl_arena_calloc(a, nmine + nhead + 1, sizeof *list);
    if (!list)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t n = 0, inherited = 0;
    for (uint32_t i = 0; i < nmine; i++) {
        fl_ice_manifest_file m = mine[i];
        if (m.added_snapshot_id != s->snapshot_id) {
            if (!has_path(parent, nparent, m.manifest_path))
                return fl_errorf(err, FL_ECONFLICT,
                                 "append's manifest list has %s, not a manifest of its parent",
                                 m.manifest_path);
            inherited++;
            continue;
        }
        if (m.existing_files_count != 0 || m.deleted_files_count != 0)
            return fl_errorf(err, FL_ECONFLICT,
                             "append rewrote existing manifests (merge); cannot rebase");
        m.sequence_number = FL_ICE_UNASSIGNED_SEQ;
        m.min_sequence_number = FL_ICE_UNASSIGNED_SEQ;
        list[n++] = m;
    }
    if (inherited != nparent)
        return fl_errorf(err, FL_ECONFLICT, "append dropped manifests of its parent");
    for (uint32_t i = 0; i < nhead; i++)
        list[n++] = head[i];
    int64_t seq = base->last_sequence_number + 1;
    char uuid[37];
    fl_ice_uuid4(uuid);
    const char *path = fl_arena_sprintf(a, "%s/metadata/snap-%" PRId64 "-r%" PRId64 "-%s.avro",
                                        base->location, s->snapshot_id, seq, uuid);
    fl_ice_manifest_list_info info = {.format_version = base->format_version,
                                      .snapshot_id = s->snapshot_id,
                                      .has_parent = hs != NULL,
                                      .parent_snapshot_id = hs ? hs->snapshot_id : 0,
                                      .sequence_number = seq};
    FL_TRY(fl_ice_manifest_list_write(io, path, &info, list, n, NULL, err));
    fl_ice_snapshot *ns = fl_arena_alloc(a, sizeof *ns);
    if (!ns)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *ns = *s;
    ns->has_parent = hs != NULL;
    ns->parent_snapshot_id = hs ? hs->snapshot_id : 0;
    ns->sequence_number = base->format_version >= 2 ? seq : 0;
    ns->manifest_list = path;
    if (s->has_summary)
        FL_TRY(rebase_summary(s, hs, a, &ns->summary, err));
    /* the rebased request: same updates on the new snapshot, requirement = H */
    *out = *cr;
    out->upd = fl_arena_calloc(a, cr->nupd, sizeof *out->upd);
    out->req = fl_arena_calloc(a, cr->nreq + 1, sizeof *out->req);
    if (!out->upd || !out->req)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    memcpy(out->upd, cr->upd, cr->nupd * sizeof *out->upd);
    memcpy(out->req, cr->req, cr->nreq * sizeof *out->req);
    out->upd[0].snapshot = ns;
    for (uint32_t i = 0; i < out->nreq; i++)
        if (out->req[i].kind == FL_ICE_REQ_ASSERT_REF_SNAPSHOT_ID) {
            out->req[i].has_snapshot_id = hs != NULL;
            out->req[i].snapshot_id = hs ? hs->snapshot_id : 0;
        }
    return FL_OK;
}
