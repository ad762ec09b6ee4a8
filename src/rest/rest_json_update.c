/*
 * rest_json_update.c - TableUpdate and TableRequirement JSON <-> fl_ice_update /
 * fl_ice_requirement (floe/rest.h), as the REST spec's components define them:
 *
 *   {"action":"assign-uuid","uuid":U}        {"action":"upgrade-format-version","format-version":N}
 *   {"action":"add-schema","schema":S[,"last-column-id":N]}
 *   {"action":"set-current-schema","schema-id":N}     (-1 = last added)
 *   {"action":"add-spec","spec":{["spec-id":N,]"fields":[{name,transform,source-id,[field-id]}]}}
 *   {"action":"set-default-spec","spec-id":N}
 *   {"action":"add-sort-order","sort-order":{"order-id":N,"fields":[{transform,source-id,
 *        direction:"asc"|"desc",null-order:"nulls-first"|"nulls-last"}]}}
 *   {"action":"set-default-sort-order","sort-order-id":N}
 *   {"action":"add-snapshot","snapshot":{snapshot-id,[parent-snapshot-id],sequence-number,
 *        timestamp-ms,manifest-list,summary:{operation,...},[schema-id],[first-row-id],[added-rows]}}
 *   {"action":"set-snapshot-ref","ref-name":R,"snapshot-id":N,"type":"branch"|"tag",
 *        [max-ref-age-ms],[max-snapshot-age-ms],[min-snapshots-to-keep]}
 *   {"action":"remove-snapshots","snapshot-ids":[...]}
 * {"action":"remove-snapshot-ref","ref-name":R}
 *   {"action":"set-location","location":L}
 *   {"action":"set-properties","updates":{...}}  {"action":"remove-properties","removals":[...]}
 *   {"action":"set-statistics","statistics":{snapshot-id,statistics-path,file-size-in-bytes,
 *        file-footer-size-in-bytes,[key-metadata],blob-metadata:[{type,snapshot-id,
 *        sequence-number,fields,[properties]}]}}
 *   {"action":"remove-statistics","snapshot-id":N}
 *   {"action":"remove-partition-specs","spec-ids":[...]}
 * {"action":"remove-schemas","schema-ids":[...]}
 *
 *   {"type":"assert-create"}  {"type":"assert-table-uuid","uuid":U}
 *   {"type":"assert-ref-snapshot-id","ref":R,"snapshot-id":N|null}
 *   {"type":"assert-last-assigned-field-id","last-assigned-field-id":N}
 *   {"type":"assert-current-schema-id","current-schema-id":N}
 *   {"type":"assert-last-assigned-partition-id","last-assigned-partition-id":N}
 *   {"type":"assert-default-spec-id","default-spec-id":N}
 *   {"type":"assert-default-sort-order-id","default-sort-order-id":N}
 *
 * Parsing accepts the deprecated aliases Java still reads ("updated" for
 * set-properties' "updates", "removed" for "removals"). Integers must be
 * JSON integers (int64 exact through jansson's long long).
 */
#include <string.h>

#include "floe/ice_json.h"
#include "floe/rest.h"

static const char *const UPDATE_NAMES[] = {
    [FL_ICE_UPD_ASSIGN_UUID] = "assign-uuid",
    [FL_ICE_UPD_UPGRADE_FORMAT_VERSION] = "upgrade-format-version",
    [FL_ICE_UPD_ADD_SCHEMA] = "add-schema",
    [FL_ICE_UPD_SET_CURRENT_SCHEMA] = "set-current-schema",
    [FL_ICE_UPD_ADD_SPEC] = "add-spec",
    [FL_ICE_UPD_SET_DEFAULT_SPEC] = "set-default-spec",
    [FL_ICE_UPD_ADD_SORT_ORDER] = "add-sort-order",
    [FL_ICE_UPD_SET_DEFAULT_SORT_ORDER] = "set-default-sort-order",
    [FL_ICE_UPD_ADD_SNAPSHOT] = "add-snapshot",
    [FL_ICE_UPD_SET_SNAPSHOT_REF] = "set-snapshot-ref",
    [FL_ICE_UPD_REMOVE_SNAPSHOTS] = "remove-snapshots",
    [FL_ICE_UPD_REMOVE_SNAPSHOT_REF] = "remove-snapshot-ref",
    [FL_ICE_UPD_SET_LOCATION] = "set-location",
    [FL_ICE_UPD_SET_PROPERTIES] = "set-properties",
    [FL_ICE_UPD_REMOVE_PROPERTIES] = "remove-properties",
    [FL_ICE_UPD_SET_STATISTICS] = "set-statistics",
    [FL_ICE_UPD_REMOVE_STATISTICS] = "remove-statistics",
    [FL_ICE_UPD_REMOVE_PARTITION_SPECS] = "remove-partition-specs",
    [FL_ICE_UPD_REMOVE_SCHEMAS] = "remove-schemas",
    [FL_ICE_UPD_SET_PARTITION_STATISTICS] = "set-partition-statistics",
    [FL_ICE_UPD_REMOVE_PARTITION_STATISTICS] = "remove-partition-statistics",
    [FL_ICE_UPD_ADD_ENCRYPTION_KEY] = "add-encryption-key",
    [FL_ICE_UPD_REMOVE_ENCRYPTION_KEY] = "remove-encryption-key",
};
#define NUPDATE_NAMES (sizeof UPDATE_NAMES / sizeof UPDATE_NAMES[0])

/* Spec update actions floe's metadata layer cannot represent. */
static const char *const UNSUPPORTED_ACTIONS[] = {"add-view-version", "set-current-view-version"};

static const char *const REQ_NAMES[] = {
    [FL_ICE_REQ_ASSERT_CREATE] = "assert-create",
    [FL_ICE_REQ_ASSERT_TABLE_UUID] = "assert-table-uuid",
    [FL_ICE_REQ_ASSERT_REF_SNAPSHOT_ID] = "assert-ref-snapshot-id",
    [FL_ICE_REQ_ASSERT_LAST_ASSIGNED_FIELD_ID] = "assert-last-assigned-field-id",
    [FL_ICE_REQ_ASSERT_CURRENT_SCHEMA_ID] = "assert-current-schema-id",
    [FL_ICE_REQ_ASSERT_LAST_ASSIGNED_PARTITION_ID] = "assert-last-assigned-partition-id",
    [FL_ICE_REQ_ASSERT_DEFAULT_SPEC_ID] = "assert-default-spec-id",
    [FL_ICE_REQ_ASSERT_DEFAULT_SORT_ORDER_ID] = "assert-default-sort-order-id",
};
#define NREQ_NAMES (sizeof REQ_NAMES / sizeof REQ_NAMES[0])

/* The JSON key of a requirement's integer id. */
static const char *req_id_key(fl_ice_requirement_kind k)
{
    switch (k) {
    case FL_ICE_REQ_ASSERT_LAST_ASSIGNED_FIELD_ID: return "last-assigned-field-id";
    case FL_ICE_REQ_ASSERT_CURRENT_SCHEMA_ID: return "current-schema-id";
    case FL_ICE_REQ_ASSERT_LAST_ASSIGNED_PARTITION_ID: return "last-assigned-partition-id";
    case FL_ICE_REQ_ASSERT_DEFAULT_SPEC_ID: return "default-spec-id";
    case FL_ICE_REQ_ASSERT_DEFAULT_SORT_ORDER_ID: return "default-sort-order-id";
    default: return NULL;
    }
}

const char *fl_rest_update_action(fl_ice_update_kind k)
{
    return (unsigned)k < NUPDATE_NAMES ? UPDATE_NAMES[k] : NULL;
}

const char *fl_rest_requirement_type(fl_ice_requirement_kind k)
{
    return (unsigned)k < NREQ_NAMES ? REQ_NAMES[k] : NULL;
}

/* ---- to JSON ---------------------------------------------------------------- */

static json_t *ids32_json(const int32_t *v, uint32_t n, bool multi)
{
    (void)multi;
    return fl_ice_json_i32_array(v, n);
}

static json_t *i64_array_json(const int64_t *v, uint32_t n)
{
    json_t *a = json_array();
    for (uint32_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_integer((json_int_t)v[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *spec_json(const fl_ice_partition_spec *s)
{
    json_t *o = json_object(), *fields = json_array();
    bool ok = o && fields;
    if (ok && s->spec_id >= 0)
        ok = fl_ice_json_set(o, "spec-id", json_integer(s->spec_id));
    for (uint32_t i = 0; ok && i < s->nfields; i++) {
        const fl_ice_partition_field *f = &s->fields[i];
        json_t *fo = json_object();
        ok = fo && json_array_append_new(fields, fo) == 0 &&
             fl_ice_json_set(fo, "name", json_string(f->name ? f->name : "")) &&
             fl_ice_json_set(fo, "transform", json_string(f->transform ? f->transform : ""));
        if (ok && f->multi_arg)
            ok = fl_ice_json_set(fo, "source-ids", ids32_json(f->source_ids, f->nsource_ids, true));
        else if (ok)
            ok = fl_ice_json_set(fo, "source-id", json_integer(f->source_id));
        if (ok && f->field_id > 0)
            ok = fl_ice_json_set(fo, "field-id", json_integer(f->field_id));
    }
    if (ok && fl_ice_json_set(o, "fields", fields))
        return o;
    if (!ok)
        json_decref(fields);
    json_decref(o);
    return NULL;
}

static json_t *order_json(const fl_ice_sort_order *s)
{
    json_t *o = json_object(), *fields = json_array();
    bool ok = o && fields && fl_ice_json_set(o, "order-id", json_integer(s->order_id));
    for (uint32_t i = 0; ok && i < s->nfields; i++) {
        const fl_ice_sort_field *f = &s->fields[i];
        json_t *fo = json_object();
        ok =
            fo && json_array_append_new(fields, fo) == 0 &&
            fl_ice_json_set(fo, "transform", json_string(f->transform ? f->transform : "identity"));
        if (ok && f->multi_arg)
            ok = fl_ice_json_set(fo, "source-ids", ids32_json(f->source_ids, f->nsource_ids, true));
        else if (ok)
            ok = fl_ice_json_set(fo, "source-id", json_integer(f->source_id));
        ok = ok && fl_ice_json_set(fo, "direction", json_string(f->descending ? "desc" : "asc")) &&
             fl_ice_json_set(fo, "null-order",
                             json_string(f->nulls_first ? "nulls-first" : "nulls-last"));
    }
    if (ok && fl_ice_json_set(o, "fields", fields))
        return o;
    if (!ok)
        json_decref(fields);
    json_decref(o);
    return NULL;
}

static json_t *snapshot_json(const fl_ice_snapshot *s)
{
    json_t *o = json_object(), *sum = json_object();
    bool ok = o && sum && fl_ice_json_set(o, "snapshot-id", json_integer(s->snapshot_id));
    if (ok && s->has_parent)
        ok = fl_ice_json_set(o, "parent-snapshot-id", json_integer(s->parent_snapshot_id));
    ok = ok && fl_ice_json_set(o, "sequence-number", json_integer(s->sequence_number)) &&
         fl_ice_json_set(o, "timestamp-ms", json_integer(s->timestamp_ms));
    if (ok && s->manifest_list)
        ok = fl_ice_json_set(o, "manifest-list", json_string(s->manifest_list));
    ok = ok &&
         fl_ice_json_set(sum, "operation", json_string(s->operation ? s->operation : "overwrite"));
    for (uint32_t i = 0; ok && i < s->summary.n; i++)
        ok = fl_ice_json_set(sum, s->summary.items[i].key, json_string(s->summary.items[i].value));
    if (ok) {
        ok = fl_ice_json_set(o, "summary", sum);
        sum = NULL;
    }
    if (ok && s->has_schema_id)
        ok = fl_ice_json_set(o, "schema-id", json_integer(s->schema_id));
    if (ok && s->has_first_row_id)
        ok = fl_ice_json_set(o, "first-row-id", json_integer(s->first_row_id));
    if (ok && s->has_added_rows)
        ok = fl_ice_json_set(o, "added-rows", json_integer(s->added_rows));
    if (ok && s->key_id)
        ok = fl_ice_json_set(o, "key-id", json_string(s->key_id));
    json_decref(sum);
    if (ok)
        return o;
    json_decref(o);
    return NULL;
}

static bool ref_into(json_t *o, const fl_ice_ref *r)
{
    bool ok = fl_ice_json_set(o, "ref-name", json_string(r->name ? r->name : "")) &&
              fl_ice_json_set(o, "snapshot-id", json_integer(r->snapshot_id)) &&
              fl_ice_json_set(o, "type", json_string(r->is_tag ? "tag" : "branch"));
    if (ok && r->has_max_ref_age_ms)
        ok = fl_ice_json_set(o, "max-ref-age-ms", json_integer(r->max_ref_age_ms));
    if (ok && r->has_max_snapshot_age_ms)
        ok = fl_ice_json_set(o, "max-snapshot-age-ms", json_integer(r->max_snapshot_age_ms));
    if (ok && r->has_min_snapshots_to_keep)
        ok = fl_ice_json_set(o, "min-snapshots-to-keep", json_integer(r->min_snapshots_to_keep));
    return ok;
}

static json_t *statistics_json(const fl_ice_statistics_file *s)
{
    json_t *o = json_object(), *blobs = json_array();
    bool ok =
        o && blobs && fl_ice_json_set(o, "snapshot-id", json_integer(s->snapshot_id)) &&
        fl_ice_json_set(o, "statistics-path",
                        json_string(s->statistics_path ? s->statistics_path : "")) &&
        fl_ice_json_set(o, "file-size-in-bytes", json_integer(s->file_size_in_bytes)) &&
        fl_ice_json_set(o, "file-footer-size-in-bytes", json_integer(s->file_footer_size_in_bytes));
    if (ok && s->key_metadata)
        ok = fl_ice_json_set(o, "key-metadata", json_string(s->key_metadata));
    for (uint32_t i = 0; ok && i < s->nblobs; i++) {
        const fl_ice_blob_metadata *b = &s->blobs[i];
        json_t *bo = json_object();
        ok = bo && json_array_append_new(blobs, bo) == 0 &&
             fl_ice_json_set(bo, "type", json_string(b->type ? b->type : "")) &&
             fl_ice_json_set(bo, "snapshot-id", json_integer(b->snapshot_id)) &&
             fl_ice_json_set(bo, "sequence-number", json_integer(b->sequence_number)) &&
             fl_ice_json_set(bo, "fields", fl_ice_json_i32_array(b->fields, b->nfields));
        if (ok && b->has_properties)
            ok = fl_ice_json_set(bo, "properties", fl_ice_json_map(&b->properties));
    }
    if (ok && fl_ice_json_set(o, "blob-metadata", blobs))
        return o;
    if (!ok)
        json_decref(blobs);
    json_decref(o);
    return NULL;
}

static json_t *strings_json(const char *const *v, uint32_t n)
{
    json_t *a = json_array();
    for (uint32_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_string(v[i] ? v[i] : "")) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static fl_status missing(fl_error *err, const char *action, const char *what)
{
    return fl_errorf(err, FL_EINVAL, "update %s: no %s", action, what);
}

/* Adds the payload of u to o; false on ENOMEM. */
static fl_status payload(json_t *o, const fl_ice_update *u, const char *act, fl_error *err)
{
    bool ok = true;
    switch (u->kind) {
    case FL_ICE_UPD_ASSIGN_UUID:
        if (!u->uuid)
            return missing(err, act, "uuid");
        ok = fl_ice_json_set(o, "uuid", json_string(u->uuid));
        break;
    case FL_ICE_UPD_UPGRADE_FORMAT_VERSION:
        ok = fl_ice_json_set(o, "format-version", json_integer(u->format_version));
        break;
    case FL_ICE_UPD_ADD_SCHEMA:
        if (!u->schema)
            return missing(err, act, "schema");
        ok = fl_ice_json_set(o, "schema", fl_ice_json_schema(u->schema));
        if (ok && u->last_column_id > 0)
            ok = fl_ice_json_set(o, "last-column-id", json_integer(u->last_column_id));
        break;
    case FL_ICE_UPD_SET_CURRENT_SCHEMA:
        ok = fl_ice_json_set(o, "schema-id", json_integer(u->id));
        break;
    case FL_ICE_UPD_ADD_SPEC:
        if (!u->spec)
            return missing(err, act, "spec");
        ok = fl_ice_json_set(o, "spec", spec_json(u->spec));
        break;
    case FL_ICE_UPD_SET_DEFAULT_SPEC:
        ok = fl_ice_json_set(o, "spec-id", json_integer(u->id));
        break;
    case FL_ICE_UPD_ADD_SORT_ORDER:
        if (!u->order)
            return missing(err, act, "sort order");
        ok = fl_ice_json_set(o, "sort-order", order_json(u->order));
        break;
    case FL_ICE_UPD_SET_DEFAULT_SORT_ORDER:
        ok = fl_ice_json_set(o, "sort-order-id", json_integer(u->id));
        break;
    case FL_ICE_UPD_ADD_SNAPSHOT:
        if (!u->snapshot)
            return missing(err, act, "snapshot");
        ok = fl_ice_json_set(o, "snapshot", snapshot_json(u->snapshot));
        break;
    case FL_ICE_UPD_SET_SNAPSHOT_REF:
        if (!u->ref || !u->ref->name)
            return missing(err, act, "ref");
        ok = ref_into(o, u->ref);
        break;
    case FL_ICE_UPD_REMOVE_SNAPSHOTS:
        ok = fl_ice_json_set(o, "snapshot-ids", i64_array_json(u->ids, u->nids));
        break;
    case FL_ICE_UPD_REMOVE_SNAPSHOT_REF:
        if (!u->ref_name)
            return missing(err, act, "ref name");
        ok = fl_ice_json_set(o, "ref-name", json_string(u->ref_name));
        break;
    case FL_ICE_UPD_SET_LOCATION:
        if (!u->location)
            return missing(err, act, "location");
        ok = fl_ice_json_set(o, "location", json_string(u->location));
        break;
    case FL_ICE_UPD_SET_PROPERTIES:
        ok = fl_ice_json_set(o, "updates", fl_ice_json_map(&u->properties));
        break;
    case FL_ICE_UPD_REMOVE_PROPERTIES:
        ok = fl_ice_json_set(o, "removals", strings_json(u->removals, u->nremovals));
        break;
    case FL_ICE_UPD_SET_STATISTICS:
        if (!u->statistics)
            return missing(err, act, "statistics");
        ok = fl_ice_json_set(o, "snapshot-id", json_integer(u->statistics->snapshot_id)) &&
             fl_ice_json_set(o, "statistics", statistics_json(u->statistics));
        break;
    case FL_ICE_UPD_REMOVE_STATISTICS:
    case FL_ICE_UPD_REMOVE_PARTITION_STATISTICS:
        ok = fl_ice_json_set(o, "snapshot-id", json_integer(u->snapshot_id));
        break;
    case FL_ICE_UPD_SET_PARTITION_STATISTICS:
        if (!u->partition_statistics)
            return missing(err, act, "partition statistics");
        ok = fl_ice_json_set(o, "partition-statistics",
                             fl_ice_json_partition_statistics(u->partition_statistics));
        break;
    case FL_ICE_UPD_ADD_ENCRYPTION_KEY:
        if (!u->encryption_key)
            return missing(err, act, "encryption key");
        ok = fl_ice_json_set(o, "encryption-key", fl_ice_json_encryption_key(u->encryption_key));
        break;
    case FL_ICE_UPD_REMOVE_ENCRYPTION_KEY:
        if (!u->key_id)
            return missing(err, act, "key id");
        ok = fl_ice_json_set(o, "key-id", json_string(u->key_id));
        break;
    case FL_ICE_UPD_REMOVE_PARTITION_SPECS:
    case FL_ICE_UPD_REMOVE_SCHEMAS: {
        json_t *a = json_array();
        for (uint32_t i = 0; a && i < u->nids; i++)
            if (json_array_append_new(a, json_integer((json_int_t)u->ids[i])) != 0) {
                json_decref(a);
                a = NULL;
            }
        ok =
            fl_ice_json_set(o, u->kind == FL_ICE_UPD_REMOVE_SCHEMAS ? "schema-ids" : "spec-ids", a);
        break;
    }
    }
    return ok ? FL_OK : fl_errorf(err, FL_ENOMEM, "update %s: out of memory", act);
}

fl_status fl_rest_update_to_json(const fl_ice_update *u, json_t **out, fl_error *err)
{
    *out = NULL;
    const char *act = fl_rest_update_action(u->kind);
    if (!act)
        return fl_errorf(err, FL_EINVAL, "update: unknown kind %d", (int)u->kind);
    json_t *o = json_object();
    if (!o || !fl_ice_json_set(o, "action", json_string(act))) {
        json_decref(o);
        return fl_errorf(err, FL_ENOMEM, "update %s: out of memory", act);
    }
    fl_status rc = payload(o, u, act, err);
    if (rc != FL_OK) {
        json_decref(o);
        return rc;
    }
    *out = o;
    return FL_OK;
}

fl_status fl_rest_requirement_to_json(const fl_ice_requirement *r, json_t **out, fl_error *err)
{
    *out = NULL;
    const char *type = fl_rest_requirement_type(r->kind);
    if (!type)
        return fl_errorf(err, FL_EINVAL, "requirement: unknown kind %d", (int)r->kind);
    json_t *o = json_object();
    bool ok = o && fl_ice_json_set(o, "type", json_string(type));
    if (ok && r->kind == FL_ICE_REQ_ASSERT_TABLE_UUID) {
        if (!r->uuid) {
            json_decref(o);
            return fl_errorf(err, FL_EINVAL, "requirement %s: no uuid", type);
        }
        ok = fl_ice_json_set(o, "uuid", json_string(r->uuid));
    } else if (ok && r->kind == FL_ICE_REQ_ASSERT_REF_SNAPSHOT_ID) {
        if (!r->ref) {
            json_decref(o);
            return fl_errorf(err, FL_EINVAL, "requirement %s: no ref", type);
        }
        ok = fl_ice_json_set(o, "ref", json_string(r->ref)) &&
             fl_ice_json_set(o, "snapshot-id",
                             r->has_snapshot_id ? json_integer(r->snapshot_id) : json_null());
    } else if (ok && req_id_key(r->kind)) {
        ok = fl_ice_json_set(o, req_id_key(r->kind), json_integer(r->id));
    }
    if (!ok) {
        json_decref(o);
        return fl_errorf(err, FL_ENOMEM, "requirement %s: out of memory", type);
    }
    *out = o;
    return FL_OK;
}

/* ---- from JSON ------------------------------------------------------------- */

/* Required int32 array (ids) or int64 array. */
static fl_status get_i64_array(fl_ice_json_ctx *c, json_t *o, const char *p, const char *key,
                               int64_t **out, uint32_t *n)
{
    json_t *arr;
    FL_TRY(fl_ice_json_get_array(c, o, p, key, true, &arr));
    size_t len = json_array_size(arr);
    if (len > UINT32_MAX / 2)
        return fl_ice_json_fail(c, p, key, "too many entries");
    int64_t *v = fl_ice_json_alloc_array(c, len ? len : 1, sizeof *v);
    if (!v)
        return FL_ENOMEM;
    for (size_t i = 0; i < len; i++) {
        json_t *e = json_array_get(arr, i);
        if (!json_is_integer(e))
            return fl_ice_json_fail(c, p, key, "entry %zu is not an integer", i);
        v[i] = (int64_t)json_integer_value(e);
    }
    *out = v;
    *n = (uint32_t)len;
    return FL_OK;
}

static fl_status get_sources(fl_ice_json_ctx *c, json_t *o, const char *p, int32_t *first,
                             int32_t **ids, uint32_t *n, bool *multi)
{
    bool has_one = false, has_many = false;
    FL_TRY(fl_ice_json_get_i32(c, o, p, "source-id", false, &has_one, first));
    FL_TRY(fl_ice_json_get_i32_array(c, o, p, "source-ids", false, &has_many, ids, n));
    if (has_many) {
        if (*n == 0)
            return fl_ice_json_fail(c, p, "source-ids", "empty");
        if (!has_one)
            *first = (*ids)[0];
        *multi = *n > 1 || !has_one;
        return FL_OK;
    }
    if (!has_one)
        return fl_ice_json_fail(c, p, "source-id", "missing");
    *ids = fl_ice_json_alloc_array(c, 1, sizeof **ids);
    if (!*ids)
        return FL_ENOMEM;
    (*ids)[0] = *first;
    *n = 1;
    *multi = false;
    return FL_OK;
}

static fl_status parse_spec(fl_ice_json_ctx *c, json_t *o, const char *p, fl_ice_partition_spec *s)
{
    bool has_id = false;
    s->spec_id = -1;
    FL_TRY(fl_ice_json_get_i32(c, o, p, "spec-id", false, &has_id, &s->spec_id));
    json_t *arr;
    FL_TRY(fl_ice_json_get_array(c, o, p, "fields", true, &arr));
    size_t n = json_array_size(arr);
    s->fields = fl_ice_json_alloc_array(c, n ? n : 1, sizeof *s->fields);
    if (!s->fields)
        return FL_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        json_t *fo;
        FL_TRY(fl_ice_json_array_object(c, arr, i, p, "fields", &fo));
        const char *fp = fl_ice_json_path_idx(c, p, "fields", i);
        if (!fp)
            return FL_ENOMEM;
        fl_ice_partition_field *f = &s->fields[i];
        FL_TRY(fl_ice_json_get_str(c, fo, fp, "name", true, &f->name));
        FL_TRY(fl_ice_json_get_str(c, fo, fp, "transform", true, &f->transform));
        FL_TRY(
            get_sources(c, fo, fp, &f->source_id, &f->source_ids, &f->nsource_ids, &f->multi_arg));
        f->field_id = 0;
        FL_TRY(fl_ice_json_get_i32(c, fo, fp, "field-id", false, NULL, &f->field_id));
        s->nfields++;
    }
    return FL_OK;
}

static fl_status parse_order(fl_ice_json_ctx *c, json_t *o, const char *p, fl_ice_sort_order *s)
{
    FL_TRY(fl_ice_json_get_i32(c, o, p, "order-id", true, NULL, &s->order_id));
    json_t *arr;
    FL_TRY(fl_ice_json_get_array(c, o, p, "fields", true, &arr));
    size_t n = json_array_size(arr);
    s->fields = fl_ice_json_alloc_array(c, n ? n : 1, sizeof *s->fields);
    if (!s->fields)
        return FL_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        json_t *fo;
        FL_TRY(fl_ice_json_array_object(c, arr, i, p, "fields", &fo));
        const char *fp = fl_ice_json_path_idx(c, p, "fields", i);
        if (!fp)
            return FL_ENOMEM;
        fl_ice_sort_field *f = &s->fields[i];
        const char *dir, *nulls;
        FL_TRY(fl_ice_json_get_str(c, fo, fp, "transform", true, &f->transform));
        FL_TRY(
            get_sources(c, fo, fp, &f->source_id, &f->source_ids, &f->nsource_ids, &f->multi_arg));
        FL_TRY(fl_ice_json_get_str(c, fo, fp, "direction", true, &dir));
        FL_TRY(fl_ice_json_get_str(c, fo, fp, "null-order", true, &nulls));
        if (strcmp(dir, "asc") && strcmp(dir, "desc"))
            return fl_ice_json_fail(c, fp, "direction", "expected asc or desc, got '%.40s'", dir);
        if (strcmp(nulls, "nulls-first") && strcmp(nulls, "nulls-last"))
            return fl_ice_json_fail(c, fp, "null-order",
                                    "expected nulls-first or nulls-last, got '%.40s'", nulls);
        f->descending = !strcmp(dir, "desc");
        f->nulls_first = !strcmp(nulls, "nulls-first");
        s->nfields++;
    }
    return FL_OK;
}

static fl_status parse_snapshot(fl_ice_json_ctx *c, json_t *o, const char *p, fl_ice_snapshot *s)
{
    FL_TRY(fl_ice_json_get_i64(c, o, p, "snapshot-id", true, NULL, &s->snapshot_id));
    FL_TRY(fl_ice_json_get_i64(c, o, p, "parent-snapshot-id", false, &s->has_parent,
                               &s->parent_snapshot_id));
    FL_TRY(fl_ice_json_get_i64(c, o, p, "sequence-number", false, NULL, &s->sequence_number));
    FL_TRY(fl_ice_json_get_i64(c, o, p, "timestamp-ms", true, NULL, &s->timestamp_ms));
    FL_TRY(fl_ice_json_get_str(c, o, p, "manifest-list", true, &s->manifest_list));
    fl_ice_map all;
    FL_TRY(fl_ice_json_get_map(c, o, p, "summary", true, &s->has_summary, &all));
    s->operation = NULL;
    s->summary.items = all.items;
    for (uint32_t i = 0; i < all.n; i++) {
        if (!strcmp(all.items[i].key, "operation"))
            s->operation = all.items[i].value;
        else
            s->summary.items[s->summary.n++] = all.items[i];
    }
    if (!s->operation)
        return fl_ice_json_fail(c, p, "summary.operation", "missing");
    FL_TRY(fl_ice_json_get_i32(c, o, p, "schema-id", false, &s->has_schema_id, &s->schema_id));
    FL_TRY(fl_ice_json_get_i64(c, o, p, "first-row-id", false, &s->has_first_row_id,
                               &s->first_row_id));
    FL_TRY(fl_ice_json_get_i64(c, o, p, "added-rows", false, &s->has_added_rows, &s->added_rows));
    return fl_ice_json_get_str(c, o, p, "key-id", false, &s->key_id);
}

static fl_status parse_ref(fl_ice_json_ctx *c, json_t *o, const char *p, fl_ice_ref *r)
{
    const char *type;
    FL_TRY(fl_ice_json_get_str(c, o, p, "ref-name", true, &r->name));
    FL_TRY(fl_ice_json_get_i64(c, o, p, "snapshot-id", true, NULL, &r->snapshot_id));
    FL_TRY(fl_ice_json_get_str(c, o, p, "type", true, &type));
    if (strcmp(type, "branch") && strcmp(type, "tag"))
        return fl_ice_json_fail(c, p, "type", "expected branch or tag, got '%.40s'", type);
    r->is_tag = !strcmp(type, "tag");
    FL_TRY(fl_ice_json_get_i32(c, o, p, "min-snapshots-to-keep", false,
                               &r->has_min_snapshots_to_keep, &r->min_snapshots_to_keep));
    FL_TRY(fl_ice_json_get_i64(c, o, p, "max-snapshot-age-ms", false, &r->has_max_snapshot_age_ms,
                               &r->max_snapshot_age_ms));
    return fl_ice_json_get_i64(c, o, p, "max-ref-age-ms", false, &r->has_max_ref_age_ms,
                               &r->max_ref_age_ms);
}

/* Allocates a zeroed T in the arena into *ptr. */
#define NEW(c, ptr) ((ptr) = fl_ice_json_alloc_array((c), 1, sizeof *(ptr)))

static fl_status parse_strings(fl_ice_json_ctx *c, json_t *o, const char *p, const char *key,
                               const char *alias, const char *const **out, uint32_t *n)
{
    json_t *arr = json_object_get(o, key);
    if (!arr && alias)
        key = alias;
    FL_TRY(fl_ice_json_get_array(c, o, p, key, true, &arr));
    size_t len = json_array_size(arr);
    const char **v = fl_ice_json_alloc_array(c, len ? len : 1, sizeof *v);
    if (!v)
        return FL_ENOMEM;
    for (size_t i = 0; i < len; i++) {
        json_t *e = json_array_get(arr, i);
        if (!json_is_string(e))
            return fl_ice_json_fail(c, p, key, "entry %zu is not a string", i);
        if (!(v[i] = fl_arena_strdup(c->a, json_string_value(e))))
            return FL_ENOMEM;
    }
    *out = v;
    *n = (uint32_t)len;
    return FL_OK;
}

static fl_status parse_payload(fl_ice_json_ctx *c, json_t *o, const char *p, fl_ice_update *u)
{
    switch (u->kind) {
    case FL_ICE_UPD_ASSIGN_UUID: return fl_ice_json_get_str(c, o, p, "uuid", true, &u->uuid);
    case FL_ICE_UPD_UPGRADE_FORMAT_VERSION:
        return fl_ice_json_get_i32(c, o, p, "format-version", true, NULL, &u->format_version);
    case FL_ICE_UPD_ADD_SCHEMA: {
        json_t *so;
        fl_ice_schema *s;
        FL_TRY(fl_ice_json_get_object(c, o, p, "schema", true, &so));
        const char *sp = fl_ice_json_path(c, p, "schema");
        if (!sp || !NEW(c, s))
            return FL_ENOMEM;
        FL_TRY(fl_ice_json_parse_schema(c, so, sp, false, s));
        u->schema = s;
        return fl_ice_json_get_i32(c, o, p, "last-column-id", false, NULL, &u->last_column_id);
    }
    case FL_ICE_UPD_SET_CURRENT_SCHEMA:
        return fl_ice_json_get_i32(c, o, p, "schema-id", true, NULL, &u->id);
    case FL_ICE_UPD_ADD_SPEC: {
        json_t *so;
        fl_ice_partition_spec *s;
        FL_TRY(fl_ice_json_get_object(c, o, p, "spec", true, &so));
        const char *sp = fl_ice_json_path(c, p, "spec");
        if (!sp || !NEW(c, s))
            return FL_ENOMEM;
        u->spec = s;
        return parse_spec(c, so, sp, s);
    }
    case FL_ICE_UPD_SET_DEFAULT_SPEC:
        return fl_ice_json_get_i32(c, o, p, "spec-id", true, NULL, &u->id);
    case FL_ICE_UPD_ADD_SORT_ORDER: {
        json_t *so;
        fl_ice_sort_order *s;
        FL_TRY(fl_ice_json_get_object(c, o, p, "sort-order", true, &so));
        const char *sp = fl_ice_json_path(c, p, "sort-order");
        if (!sp || !NEW(c, s))
            return FL_ENOMEM;
        u->order = s;
        return parse_order(c, so, sp, s);
    }
    case FL_ICE_UPD_SET_DEFAULT_SORT_ORDER:
        return fl_ice_json_get_i32(c, o, p, "sort-order-id", true, NULL, &u->id);
    case FL_ICE_UPD_ADD_SNAPSHOT: {
        json_t *so;
        fl_ice_snapshot *s;
        FL_TRY(fl_ice_json_get_object(c, o, p, "snapshot", true, &so));
        const char *sp = fl_ice_json_path(c, p, "snapshot");
        if (!sp || !NEW(c, s))
            return FL_ENOMEM;
        u->snapshot = s;
        return parse_snapshot(c, so, sp, s);
    }
    case FL_ICE_UPD_SET_SNAPSHOT_REF: {
        fl_ice_ref *r;
        if (!NEW(c, r))
            return FL_ENOMEM;
        u->ref = r;
        return parse_ref(c, o, p, r);
    }
    case FL_ICE_UPD_REMOVE_SNAPSHOTS: {
        int64_t *ids;
        FL_TRY(get_i64_array(c, o, p, "snapshot-ids", &ids, &u->nids));
        u->ids = ids;
        return FL_OK;
    }
    case FL_ICE_UPD_REMOVE_SNAPSHOT_REF:
        return fl_ice_json_get_str(c, o, p, "ref-name", true, &u->ref_name);
    case FL_ICE_UPD_SET_LOCATION:
        return fl_ice_json_get_str(c, o, p, "location", true, &u->location);
    case FL_ICE_UPD_SET_PROPERTIES: {
        const char *key = json_object_get(o, "updates") ? "updates" : "updated";
        if (!json_object_get(o, key))
            key = "updates";
        return fl_ice_json_get_map(c, o, p, key, true, NULL, &u->properties);
    }
    case FL_ICE_UPD_REMOVE_PROPERTIES:
        return parse_strings(c, o, p, "removals", "removed", &u->removals, &u->nremovals);
    case FL_ICE_UPD_SET_STATISTICS: {
        json_t *so;
        fl_ice_statistics_file *s;
        FL_TRY(fl_ice_json_get_object(c, o, p, "statistics", true, &so));
        const char *sp = fl_ice_json_path(c, p, "statistics");
        if (!sp || !NEW(c, s))
            return FL_ENOMEM;
        u->statistics = s;
        return fl_ice_json_parse_statistics(c, so, sp, s);
    }
    case FL_ICE_UPD_REMOVE_STATISTICS:
    case FL_ICE_UPD_REMOVE_PARTITION_STATISTICS:
        return fl_ice_json_get_i64(c, o, p, "snapshot-id", true, NULL, &u->snapshot_id);
    case FL_ICE_UPD_SET_PARTITION_STATISTICS: {
        json_t *so;
        fl_ice_partition_statistics_file *s;
        FL_TRY(fl_ice_json_get_object(c, o, p, "partition-statistics", true, &so));
        const char *sp = fl_ice_json_path(c, p, "partition-statistics");
        if (!sp || !NEW(c, s))
            return FL_ENOMEM;
        u->partition_statistics = s;
        return fl_ice_json_parse_partition_statistics(c, so, sp, s);
    }
    case FL_ICE_UPD_ADD_ENCRYPTION_KEY: {
        json_t *ko;
        fl_ice_encryption_key *k;
        FL_TRY(fl_ice_json_get_object(c, o, p, "encryption-key", true, &ko));
        const char *kp = fl_ice_json_path(c, p, "encryption-key");
        if (!kp || !NEW(c, k))
            return FL_ENOMEM;
        u->encryption_key = k;
        return fl_ice_json_parse_encryption_key(c, ko, kp, k);
    }
    case FL_ICE_UPD_REMOVE_ENCRYPTION_KEY:
        return fl_ice_json_get_str(c, o, p, "key-id", true, &u->key_id);
    case FL_ICE_UPD_REMOVE_PARTITION_SPECS:
    case FL_ICE_UPD_REMOVE_SCHEMAS: {
        int64_t *ids;
        const char *key = u->kind == FL_ICE_UPD_REMOVE_SCHEMAS ? "schema-ids" : "spec-ids";
        FL_TRY(get_i64_array(c, o, p, key, &ids, &u->nids));
        for (uint32_t i = 0; i < u->nids; i++)
            if (ids[i] < INT32_MIN || ids[i] > INT32_MAX)
                return fl_ice_json_fail(c, p, key, "entry %u is out of range", i);
        u->ids = ids;
        return FL_OK;
    }
    }
    return fl_ice_json_fail(c, p, "action", "unknown");
}

/* Replaces the metadata parser's "table metadata: " prefix with "REST ". */
static fl_status fix_prefix(fl_error *err, fl_status rc)
{
    static const char PFX[] = "table metadata: ";
    if (rc != FL_OK && err && !strncmp(err->msg, PFX, sizeof PFX - 1)) {
        char tmp[FL_ERROR_MSG_MAX];
        snprintf(tmp, sizeof tmp, "%s", err->msg + sizeof PFX - 1);
        snprintf(err->msg, sizeof err->msg, "%s", tmp);
    }
    if (rc == FL_ECORRUPT && err)
        err->code = FL_EINVAL;
    return rc == FL_ECORRUPT ? FL_EINVAL : rc;
}

fl_status fl_rest_update_from_json(json_t *j, const char *path, fl_arena *a, fl_ice_update *out,
                                   fl_error *err)
{
    memset(out, 0, sizeof *out);
    fl_ice_json_ctx c = {.a = a, .err = err, .format_version = 2};
    if (!json_is_object(j))
        return fl_errorf(err, FL_EINVAL, "%s: expected an object", path);
    const char *act;
    fl_status rc = fl_ice_json_get_str(&c, j, path, "action", true, &act);
    if (rc != FL_OK)
        return fix_prefix(err, rc);
    for (size_t i = 0; i < sizeof UNSUPPORTED_ACTIONS / sizeof *UNSUPPORTED_ACTIONS; i++)
        if (!strcmp(act, UNSUPPORTED_ACTIONS[i]))
            return fl_errorf(err, FL_EUNSUPPORTED, "%s: update '%s' is not supported", path, act);
    for (size_t k = 1; k < NUPDATE_NAMES; k++)
        if (UPDATE_NAMES[k] && !strcmp(act, UPDATE_NAMES[k])) {
            out->kind = (fl_ice_update_kind)k;
            out->id = -1;
            return fix_prefix(err, parse_payload(&c, j, path, out));
        }
    return fl_errorf(err, FL_EINVAL, "%s.action: unknown update '%.60s'", path, act);
}

fl_status fl_rest_requirement_from_json(json_t *j, const char *path, fl_arena *a,
                                        fl_ice_requirement *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    fl_ice_json_ctx c = {.a = a, .err = err, .format_version = 2};
    if (!json_is_object(j))
        return fl_errorf(err, FL_EINVAL, "%s: expected an object", path);
    const char *type;
    fl_status rc = fl_ice_json_get_str(&c, j, path, "type", true, &type);
    if (rc != FL_OK)
        return fix_prefix(err, rc);
    size_t k = 1;
    while (k < NREQ_NAMES && strcmp(type, REQ_NAMES[k]))
        k++;
    if (k == NREQ_NAMES)
        return fl_errorf(err, FL_EINVAL, "%s.type: unknown requirement '%.60s'", path, type);
    out->kind = (fl_ice_requirement_kind)k;
    if (out->kind == FL_ICE_REQ_ASSERT_TABLE_UUID)
        rc = fl_ice_json_get_str(&c, j, path, "uuid", true, &out->uuid);
    else if (out->kind == FL_ICE_REQ_ASSERT_REF_SNAPSHOT_ID) {
        rc = fl_ice_json_get_str(&c, j, path, "ref", true, &out->ref);
        if (rc == FL_OK && !json_object_get(j, "snapshot-id"))
            rc = fl_ice_json_fail(&c, path, "snapshot-id",
                                  "missing (null means the ref must not exist)");
        if (rc == FL_OK)
            rc = fl_ice_json_get_i64(&c, j, path, "snapshot-id", false, &out->has_snapshot_id,
                                     &out->snapshot_id);
    } else if (req_id_key(out->kind))
        rc = fl_ice_json_get_i32(&c, j, path, req_id_key(out->kind), true, NULL, &out->id);
    return fix_prefix(err, rc);
}
