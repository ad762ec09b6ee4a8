/*
 * metatable_snap.c - the snapshots, history and refs metadata tables
 * (columns as Java's SnapshotsTable, HistoryTable, RefsTable).
 *
 *   snapshots: committed_at timestamptz, snapshot_id long, parent_id long,
 *              operation string, manifest_list string, summary map<string,string>
 *   history:   made_current_at timestamptz, snapshot_id long, parent_id long,
 *              is_current_ancestor boolean
 *   refs:      name string, type string, snapshot_id long,
 *              max_reference_age_in_ms long, min_snapshots_to_keep int,
 *              max_snapshot_age_in_ms long
 */
#include "iceberg/metatable_int.h"

static fl_status summary_map(fl_vector *v, const fl_ice_snapshot *s, fl_error *err)
{
    FL_TRY(mt_str(&v->children[0], "operation", err));
    FL_TRY(mt_str(&v->children[1], s->operation ? s->operation : "overwrite", err));
    for (uint32_t i = 0; i < s->summary.n; i++) {
        FL_TRY(mt_str(&v->children[0], s->summary.items[i].key, err));
        FL_TRY(mt_str(&v->children[1], s->summary.items[i].value, err));
    }
    return fl_vector_append_nested(v, v->children[0].len, err);
}

fl_status mt_snapshots(mt_builder *b, fl_error *err)
{
    mt_col cols[] = {
        {"committed_at", mt_prim(FL_TYPE_TIMESTAMPTZ)},
        {"snapshot_id", mt_prim(FL_TYPE_INT64)},
        {"parent_id", mt_prim(FL_TYPE_INT64)},
        {"operation", mt_prim(FL_TYPE_STRING)},
        {"manifest_list", mt_prim(FL_TYPE_STRING)},
        {"summary", mt_map(b, mt_prim(FL_TYPE_STRING), mt_prim(FL_TYPE_STRING))},
    };
    FL_TRY(mt_begin(b, cols, 6, err));
    fl_vector *c = b->cols;
    for (uint32_t i = 0; i < b->m->nsnapshots; i++) {
        const fl_ice_snapshot *s = &b->m->snapshots[i];
        FL_TRY(mt_i64(&c[0], s->timestamp_ms * 1000, err));
        FL_TRY(mt_i64(&c[1], s->snapshot_id, err));
        FL_TRY(s->has_parent ? mt_i64(&c[2], s->parent_snapshot_id, err) : mt_null(&c[2], err));
        FL_TRY(mt_str(&c[3], s->operation ? s->operation : "overwrite", err));
        FL_TRY(mt_str(&c[4], s->manifest_list, err));
        FL_TRY(summary_map(&c[5], s, err));
        mt_row_done(b);
    }
    return FL_OK;
}

fl_status mt_history(mt_builder *b, fl_error *err)
{
    mt_col cols[] = {
        {"made_current_at", mt_prim(FL_TYPE_TIMESTAMPTZ)},
        {"snapshot_id", mt_prim(FL_TYPE_INT64)},
        {"parent_id", mt_prim(FL_TYPE_INT64)},
        {"is_current_ancestor", mt_prim(FL_TYPE_BOOLEAN)},
    };
    FL_TRY(mt_begin(b, cols, 4, err));
    fl_vector *c = b->cols;
    const fl_ice_metadata *m = b->m;
    for (uint32_t i = 0; i < m->nsnapshot_log; i++) {
        const fl_ice_snapshot_log_entry *e = &m->snapshot_log[i];
        const fl_ice_snapshot *s = fl_ice_metadata_snapshot(m, e->snapshot_id);
        bool anc = false;
        uint32_t guard = 0;
        for (const fl_ice_snapshot *a = fl_ice_metadata_current_snapshot(m);
             a && guard <= m->nsnapshots; guard++) {
            if (a->snapshot_id == e->snapshot_id) {
                anc = true;
                break;
            }
            a = a->has_parent ? fl_ice_metadata_snapshot(m, a->parent_snapshot_id) : NULL;
        }
        FL_TRY(mt_i64(&c[0], e->timestamp_ms * 1000, err));
        FL_TRY(mt_i64(&c[1], e->snapshot_id, err));
        FL_TRY(s && s->has_parent ? mt_i64(&c[2], s->parent_snapshot_id, err)
                                  : mt_null(&c[2], err));
        FL_TRY(mt_bool(&c[3], anc, err));
        mt_row_done(b);
    }
    return FL_OK;
}

fl_status mt_refs(mt_builder *b, fl_error *err)
{
    mt_col cols[] = {
        {"name", mt_prim(FL_TYPE_STRING)},
        {"type", mt_prim(FL_TYPE_STRING)},
        {"snapshot_id", mt_prim(FL_TYPE_INT64)},
        {"max_reference_age_in_ms", mt_prim(FL_TYPE_INT64)},
        {"min_snapshots_to_keep", mt_prim(FL_TYPE_INT32)},
        {"max_snapshot_age_in_ms", mt_prim(FL_TYPE_INT64)},
    };
    FL_TRY(mt_begin(b, cols, 6, err));
    fl_vector *c = b->cols;
    for (uint32_t i = 0; i < b->m->nrefs; i++) {
        const fl_ice_ref *r = &b->m->refs[i];
        FL_TRY(mt_str(&c[0], r->name, err));
        FL_TRY(mt_str(&c[1], r->is_tag ? "TAG" : "BRANCH", err));
        FL_TRY(mt_i64(&c[2], r->snapshot_id, err));
        FL_TRY(r->has_max_ref_age_ms ? mt_i64(&c[3], r->max_ref_age_ms, err) : mt_null(&c[3], err));
        FL_TRY(r->has_min_snapshots_to_keep ? mt_i32(&c[4], r->min_snapshots_to_keep, err)
                                            : mt_null(&c[4], err));
        FL_TRY(r->has_max_snapshot_age_ms ? mt_i64(&c[5], r->max_snapshot_age_ms, err)
                                          : mt_null(&c[5], err));
        mt_row_done(b);
    }
    return FL_OK;
}
