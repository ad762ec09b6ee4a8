/*
 * update_require.c - fl_ice_requirements_check(): the preconditions of a
 * REST-style commit (UpdateRequirement in the Java reference), checked
 * against the table metadata a commit is about to replace.
 *
 * Every failure is FL_ECONFLICT ("Requirement failed: ...") because each
 * means someone else changed the table since the writer read it; the
 * writer refreshes and retries or gives up.
 */
#include <string.h>
#include <strings.h>

#include "floe/ice_table.h"

static fl_status check_ref(const fl_ice_metadata *m, const fl_ice_requirement *r, fl_error *err)
{
    if (!r->ref)
        return fl_errorf(err, FL_EINVAL, "requirement assert-ref-snapshot-id: no ref name");
    const fl_ice_ref *ref = fl_ice_metadata_ref(m, r->ref);
    const char *kind = ref && ref->is_tag ? "tag" : "branch";
    if (ref && !r->has_snapshot_id)
        return fl_errorf(err, FL_ECONFLICT, "Requirement failed: %s %s was created concurrently",
                         kind, r->ref);
    if (ref && ref->snapshot_id != r->snapshot_id)
        return fl_errorf(err, FL_ECONFLICT,
                         "Requirement failed: %s %s has changed: expected id %lld != %lld", kind,
                         r->ref, (long long)r->snapshot_id, (long long)ref->snapshot_id);
    if (!ref && r->has_snapshot_id)
        return fl_errorf(err, FL_ECONFLICT,
                         "Requirement failed: branch or tag %s is missing, expected %lld", r->ref,
                         (long long)r->snapshot_id);
    return FL_OK;
}

static fl_status check_id(const char *what, int64_t expected, int64_t actual, fl_error *err)
{
    if (expected != actual)
        return fl_errorf(err, FL_ECONFLICT,
                         "Requirement failed: %s changed: expected id %lld != %lld", what,
                         (long long)expected, (long long)actual);
    return FL_OK;
}

static fl_status check_one(const fl_ice_metadata *m, const fl_ice_requirement *r, fl_error *err)
{
    if (r->kind == FL_ICE_REQ_ASSERT_CREATE)
        return m ? fl_errorf(err, FL_ECONFLICT, "Requirement failed: table already exists") : FL_OK;
    if (!m)
        return fl_errorf(err, FL_ECONFLICT, "Requirement failed: table does not exist");
    switch (r->kind) {
    case FL_ICE_REQ_ASSERT_TABLE_UUID:
        if (!r->uuid)
            return fl_errorf(err, FL_EINVAL, "requirement assert-table-uuid: no uuid");
        if (!m->table_uuid || strcasecmp(m->table_uuid, r->uuid) != 0)
            return fl_errorf(err, FL_ECONFLICT,
                             "Requirement failed: UUID does not match: expected %s != %s", r->uuid,
                             m->table_uuid ? m->table_uuid : "(none)");
        return FL_OK;
    case FL_ICE_REQ_ASSERT_REF_SNAPSHOT_ID: return check_ref(m, r, err);
    case FL_ICE_REQ_ASSERT_LAST_ASSIGNED_FIELD_ID:
        return check_id("last assigned field id", r->id, m->last_column_id, err);
    case FL_ICE_REQ_ASSERT_CURRENT_SCHEMA_ID:
        return check_id("current schema", r->id, m->current_schema_id, err);
    case FL_ICE_REQ_ASSERT_LAST_ASSIGNED_PARTITION_ID:
        return check_id("last assigned partition id", r->id, m->last_partition_id, err);
    case FL_ICE_REQ_ASSERT_DEFAULT_SPEC_ID:
        return check_id("default partition spec", r->id, m->default_spec_id, err);
    case FL_ICE_REQ_ASSERT_DEFAULT_SORT_ORDER_ID:
        return check_id("default sort order", r->id, m->default_sort_order_id, err);
    case FL_ICE_REQ_ASSERT_CREATE: break;
    }
    return fl_errorf(err, FL_EINVAL, "unknown requirement kind %d", (int)r->kind);
}

fl_status fl_ice_requirements_check(const fl_ice_metadata *base, const fl_ice_requirement *r,
                                    uint32_t n, fl_error *err)
{
    if (n && !r)
        return fl_errorf(err, FL_EINVAL, "requirements: NULL list");
    for (uint32_t i = 0; i < n; i++)
        FL_TRY(check_one(base, &r[i], err));
    return FL_OK;
}
