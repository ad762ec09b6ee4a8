/*
 * txn_server.c - committing a transaction through a catalog whose server
 * applies metadata updates itself (fl_catalog_ops.commit_updates: the REST
 * catalog). The client still writes data files, manifests and manifest
 * lists; the server checks requirements, applies the updates and writes the
 * metadata file.
 *
 * Requirements (as Java's UpdateRequirements.forUpdateTable derives them,
 * each at most once, all against the base the updates were built on):
 *   always                     assert-table-uuid
 *   add-schema                 assert-last-assigned-field-id
 *   set-current-schema,
 *   remove-schemas             assert-current-schema-id
 *   add-spec                   assert-last-assigned-partition-id
 *   set-default-spec,
 *   remove-partition-specs     assert-default-spec-id
 *   set-default-sort-order     assert-default-sort-order-id
 *   set-snapshot-ref R,
 *   remove-snapshot-ref R      assert-ref-snapshot-id R (base's id, null if absent)
 *   remove-snapshots           assert-ref-snapshot-id main (expiry was computed
 *                              from the base's history)
 * A staged table (created with stage_only) commits as a create transaction:
 * assert-create, then assign-uuid, upgrade-format-version, add-schema,
 * set-current-schema -1, add-spec, set-default-spec -1, add-sort-order,
 * set-default-sort-order -1, set-location, set-properties from the staged
 * metadata, then the transaction's own updates.
 */
#include <string.h>

#include "iceberg/txn_internal.h"

typedef struct req_list {
    fl_ice_requirement *v;
    uint32_t n, cap;
    fl_arena *a;
} req_list;

static bool push(req_list *l, fl_ice_requirement r)
{
    for (uint32_t i = 0; i < l->n; i++) /* each requirement once */
        if (l->v[i].kind == r.kind &&
            (r.kind != FL_ICE_REQ_ASSERT_REF_SNAPSHOT_ID || !strcmp(l->v[i].ref, r.ref)))
            return true;
    if (l->n == l->cap) {
        uint32_t nc = l->cap ? l->cap * 2 : 8;
        fl_ice_requirement *nv = fl_arena_alloc(l->a, nc * sizeof *nv);
        if (!nv)
            return false;
        if (l->n)
            memcpy(nv, l->v, l->n * sizeof *nv);
        l->v = nv;
        l->cap = nc;
    }
    l->v[l->n++] = r;
    return true;
}

static fl_ice_requirement ref_req(const fl_ice_metadata *base, const char *name)
{
    const fl_ice_ref *r = fl_ice_metadata_ref(base, name);
    return (fl_ice_requirement){.kind = FL_ICE_REQ_ASSERT_REF_SNAPSHOT_ID,
                                .ref = name,
                                .has_snapshot_id = r != NULL,
                                .snapshot_id = r ? r->snapshot_id : 0};
}

fl_status txn_requirements_for(const fl_ice_metadata *base, const fl_ice_update *u, uint32_t n,
                               fl_arena *a, fl_ice_requirement **out, uint32_t *nout,
                               fl_error *err)
{
    req_list l = {.a = a};
    bool ok = true;
    if (base->table_uuid)
        ok = push(&l, (fl_ice_requirement){.kind = FL_ICE_REQ_ASSERT_TABLE_UUID,
                                           .uuid = base->table_uuid});
    for (uint32_t i = 0; ok && i < n; i++) {
        switch (u[i].kind) {
        case FL_ICE_UPD_ADD_SCHEMA:
            ok = push(&l, (fl_ice_requirement){.kind = FL_ICE_REQ_ASSERT_LAST_ASSIGNED_FIELD_ID,
                                               .id = base->last_column_id});
            break;
        case FL_ICE_UPD_SET_CURRENT_SCHEMA:
        case FL_ICE_UPD_REMOVE_SCHEMAS:
            ok = push(&l, (fl_ice_requirement){.kind = FL_ICE_REQ_ASSERT_CURRENT_SCHEMA_ID,
                                               .id = base->current_schema_id});
            break;
        case FL_ICE_UPD_ADD_SPEC:
            ok = push(&l,
                      (fl_ice_requirement){.kind = FL_ICE_REQ_ASSERT_LAST_ASSIGNED_PARTITION_ID,
                                           .id = base->last_partition_id});
            break;
        case FL_ICE_UPD_SET_DEFAULT_SPEC:
        case FL_ICE_UPD_REMOVE_PARTITION_SPECS:
            ok = push(&l, (fl_ice_requirement){.kind = FL_ICE_REQ_ASSERT_DEFAULT_SPEC_ID,
                                               .id = base->default_spec_id});
            break;
        case FL_ICE_UPD_SET_DEFAULT_SORT_ORDER:
            ok = push(&l, (fl_ice_requirement){.kind = FL_ICE_REQ_ASSERT_DEFAULT_SORT_ORDER_ID,
                                               .id = base->default_sort_order_id});
            break;
        case FL_ICE_UPD_SET_SNAPSHOT_REF:
            ok = !u[i].ref || push(&l, ref_req(base, u[i].ref->name));
            break;
        case FL_ICE_UPD_REMOVE_SNAPSHOT_REF:
            ok = !u[i].ref_name || push(&l, ref_req(base, u[i].ref_name));
            break;
        case FL_ICE_UPD_REMOVE_SNAPSHOTS: ok = push(&l, ref_req(base, "main")); break;
        default: break;
        }
    }
    if (!ok)
        return fl_errorf(err, FL_ENOMEM, "commit: out of memory");
    *out = l.v;
    *nout = l.n;
    return FL_OK;
}

/* The updates that build the staged table's metadata m from nothing,
 * followed by the txn's own (arena a). */
static fl_status create_updates(const fl_ice_metadata *m, const fl_ice_update *own, uint32_t nown,
                                fl_arena *a, fl_ice_update **out, uint32_t *n, fl_error *err)
{
    const fl_ice_schema *s = fl_ice_metadata_current_schema(m);
    const fl_ice_partition_spec *spec = fl_ice_metadata_spec(m, m->default_spec_id);
    const fl_ice_sort_order *order = NULL;
    for (uint32_t i = 0; i < m->nsort_orders; i++)
        if (m->sort_orders[i].order_id == m->default_sort_order_id)
            order = &m->sort_orders[i];
    if (!s || !spec || !order || !m->location)
        return fl_errorf(err, FL_EINVAL,
                         "commit: the staged table lacks a schema, spec, sort order or location");
    fl_ice_update *u = fl_arena_calloc(a, 10 + nown, sizeof *u);
    if (!u)
        return fl_errorf(err, FL_ENOMEM, "commit: out of memory");
    uint32_t k = 0;
    if (m->table_uuid)
        u[k++] = (fl_ice_update){.kind = FL_ICE_UPD_ASSIGN_UUID, .uuid = m->table_uuid};
    u[k++] = (fl_ice_update){.kind = FL_ICE_UPD_UPGRADE_FORMAT_VERSION,
                             .format_version = m->format_version};
    u[k++] = (fl_ice_update){
        .kind = FL_ICE_UPD_ADD_SCHEMA, .schema = s, .last_column_id = m->last_column_id};
    u[k++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_CURRENT_SCHEMA, .id = -1};
    u[k++] = (fl_ice_update){.kind = FL_ICE_UPD_ADD_SPEC, .spec = spec};
    u[k++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_DEFAULT_SPEC, .id = -1};
    u[k++] = (fl_ice_update){.kind = FL_ICE_UPD_ADD_SORT_ORDER, .order = order};
    u[k++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_DEFAULT_SORT_ORDER, .id = -1};
    u[k++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_LOCATION, .location = m->location};
    if (m->properties.n)
        u[k++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_PROPERTIES, .properties = m->properties};
    if (nown)
        memcpy(u + k, own, nown * sizeof *u);
    *out = u;
    *n = k + nown;
    return FL_OK;
}

fl_status txn_server_commit(fl_ice_txn *x, txn_attempt *at, const char **location,
                            fl_ice_metadata *final, bool *conflict, bool *unknown, fl_error *err)
{
    fl_ice_table *t = x->t;
    fl_catalog *c = t->catalog;
    fl_ice_requirement *req = NULL;
    uint32_t nreq = 0, nupd = at->nupdates;
    fl_ice_update *upd = at->updates;
    if (t->staged) {
        req = fl_arena_calloc(&at->arena, 1, sizeof *req);
        if (!req)
            return fl_errorf(err, FL_ENOMEM, "commit: out of memory");
        req->kind = FL_ICE_REQ_ASSERT_CREATE;
        nreq = 1;
        FL_TRY(create_updates(&t->meta, at->updates, at->nupdates, &at->arena, &upd, &nupd, err));
    } else {
        FL_TRY(txn_requirements_for(at->base, at->updates, at->nupdates, &at->arena, &req, &nreq,
                                    err));
    }
    fl_status rc =
        c->ops->commit_updates(c, &t->ident, req, nreq, upd, nupd, &at->arena, location, final, err);
    switch (rc) {
    case FL_OK: break;
    case FL_ECONFLICT: *conflict = true; break;
    case FL_ENOTFOUND:
    case FL_EEXIST:
    case FL_EINVAL:
    case FL_EUNAUTHENTICATED:
    case FL_EFORBIDDEN:
    case FL_EUNSUPPORTED: break; /* refused: nothing changed */
    default: *unknown = true; break;
    }
    return rc;
}
