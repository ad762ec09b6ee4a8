/*
 * scan_snapshot.c - which snapshot and which schema a scan reads.
 *
 * Snapshot (spec "Snapshot Reference", Java's SnapshotUtil):
 *   CURRENT   current-snapshot-id (NULL when the table has none)
 *   ID        that snapshot, FL_ENOTFOUND when absent
 *   TIMESTAMP the snapshot-log entry with the greatest timestamp <= ts (the
 *             snapshot that was current then); tables without a snapshot-log
 *             fall back to the snapshots' own timestamps. Before the first
 *             entry: FL_ENOTFOUND.
 *   REF       a branch or tag by name.
 * Schema: the current schema, except for time travel by id / timestamp / tag
 * where the snapshot's schema-id is used when it has one (Java does the same:
 * a tag or an old snapshot reads with the schema it was written with).
 */
#include <string.h>

#include "iceberg/scan_internal.h"

fl_status fl_ice_select_snapshot(const fl_ice_metadata *m, const fl_ice_scan_options *opt,
                                 const fl_ice_snapshot **out, fl_error *err)
{
    *out = NULL;
    fl_ice_snapshot_select sel = opt ? opt->select : FL_ICE_SNAP_CURRENT;
    switch (sel) {
    case FL_ICE_SNAP_CURRENT:
        if (m->current_snapshot_id == FL_ICE_NO_SNAPSHOT)
            return FL_OK;
        *out = fl_ice_metadata_current_snapshot(m);
        FL_CHECK(*out != NULL, err, FL_ECORRUPT, "current snapshot %lld not in the snapshot list",
                 (long long)m->current_snapshot_id);
        return FL_OK;
    case FL_ICE_SNAP_ID:
        *out = fl_ice_metadata_snapshot(m, opt->snapshot_id);
        FL_CHECK(*out != NULL, err, FL_ENOTFOUND, "snapshot %lld not found",
                 (long long)opt->snapshot_id);
        return FL_OK;
    case FL_ICE_SNAP_TIMESTAMP: {
        int64_t best_ts = INT64_MIN, best_id = 0;
        bool found = false;
        if (m->nsnapshot_log > 0) {
            for (uint32_t i = 0; i < m->nsnapshot_log; i++) {
                const fl_ice_snapshot_log_entry *e = &m->snapshot_log[i];
                if (e->timestamp_ms <= opt->timestamp_ms && e->timestamp_ms >= best_ts) {
                    best_ts = e->timestamp_ms;
                    best_id = e->snapshot_id;
                    found = true;
                }
            }
        } else {
            for (uint32_t i = 0; i < m->nsnapshots; i++) {
                const fl_ice_snapshot *s = &m->snapshots[i];
                if (s->timestamp_ms <= opt->timestamp_ms && s->timestamp_ms >= best_ts) {
                    best_ts = s->timestamp_ms;
                    best_id = s->snapshot_id;
                    found = true;
                }
            }
        }
        FL_CHECK(found, err, FL_ENOTFOUND, "no snapshot at or before timestamp %lld",
                 (long long)opt->timestamp_ms);
        *out = fl_ice_metadata_snapshot(m, best_id);
        FL_CHECK(*out != NULL, err, FL_ENOTFOUND, "snapshot %lld (current at %lld) has expired",
                 (long long)best_id, (long long)opt->timestamp_ms);
        return FL_OK;
    }
    case FL_ICE_SNAP_REF: {
        FL_CHECK(opt->ref != NULL, err, FL_EINVAL, "snapshot selection by ref without a name");
        const fl_ice_ref *r = fl_ice_metadata_ref(m, opt->ref);
        FL_CHECK(r != NULL, err, FL_ENOTFOUND, "ref '%s' not found", opt->ref);
        *out = fl_ice_metadata_snapshot(m, r->snapshot_id);
        FL_CHECK(*out != NULL, err, FL_ECORRUPT, "ref '%s' names missing snapshot %lld", opt->ref,
                 (long long)r->snapshot_id);
        return FL_OK;
    }
    }
    return fl_errorf(err, FL_EINVAL, "unknown snapshot selection %d", (int)sel);
}

const fl_ice_schema *ice_scan_schema(const fl_ice_metadata *m, const fl_ice_snapshot *snap,
                                     const fl_ice_scan_options *opt)
{
    const fl_ice_schema *cur = fl_ice_metadata_current_schema(m);
    if (opt && opt->has_schema_id) {
        const fl_ice_schema *s = fl_ice_metadata_schema(m, opt->schema_id);
        return s ? s : cur;
    }
    if (!opt || !snap || !snap->has_schema_id)
        return cur;
    bool travel = opt->select == FL_ICE_SNAP_ID || opt->select == FL_ICE_SNAP_TIMESTAMP;
    if (opt->select == FL_ICE_SNAP_REF) {
        const fl_ice_ref *r = fl_ice_metadata_ref(m, opt->ref);
        travel = r && r->is_tag;
    }
    if (!travel)
        return cur;
    const fl_ice_schema *s = fl_ice_metadata_schema(m, snap->schema_id);
    return s ? s : cur;
}
