/*
 * update_json.c - CommitTableRequest JSON -> fl_ice_requirement / fl_ice_update
 * (REST spec components TableRequirement and TableUpdate).
 *
 * Every field is type-checked; an unknown "action" or "type", a missing
 * field or a wrong type is FL_EINVAL naming the element
 * ("updates[2].snapshot.manifest-list: missing"), which the handlers answer
 * with 400. Integers are exact 64-bit (jansson json_int_t). Strings and
 * arrays are copied into the caller's arena, so the json_t may be freed
 * afterwards.
 *
 * Every table update action of the spec has an fl_ice_update kind,
 * including the partition statistics and v3 encryption key actions.
 */
#include <stdio.h>
#include <string.h>

#include "iceberg/ice_internal.h"
#include "server/server_internal.h"

#define BAD(...) fl_errorf(err, FL_EINVAL, __VA_ARGS__)

static fl_status get_str(json_t *o, const char *path, const char *key, fl_arena *a,
                         const char **out, fl_error *err)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v))
        return BAD("%s.%s: %s", path, key, v ? "must be a string" : "missing");
    *out = fl_arena_strdup(a, json_string_value(v));
    return *out ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
}

static fl_status get_int(json_t *o, const char *path, const char *key, int64_t *out,
                         fl_error *err)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v))
        return BAD("%s.%s: %s", path, key, v ? "must be an integer" : "missing");
    *out = json_integer_value(v);
    return FL_OK;
}

static fl_status get_i32(json_t *o, const char *path, const char *key, int32_t *out,
                         fl_error *err)
{
    int64_t v = 0;
    FL_TRY(get_int(o, path, key, &v, err));
    if (v < INT32_MIN || v > INT32_MAX)
        return BAD("%s.%s: %lld does not fit in 32 bits", path, key, (long long)v);
    *out = (int32_t)v;
    return FL_OK;
}

static fl_status get_ids(json_t *o, const char *path, const char *key, fl_arena *a,
                         const int64_t **ids, uint32_t *n, fl_error *err)
{
    json_t *arr = json_object_get(o, key);
    if (!json_is_array(arr))
        return BAD("%s.%s: %s", path, key, arr ? "must be an array" : "missing");
    size_t k = json_array_size(arr);
    int64_t *v = fl_arena_calloc(a, k + 1, sizeof *v);
    if (!v)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (size_t i = 0; i < k; i++) {
        json_t *e = json_array_get(arr, i);
        if (!json_is_integer(e))
            return BAD("%s.%s[%zu]: must be an integer", path, key, i);
        v[i] = json_integer_value(e);
    }
    *ids = v;
    *n = (uint32_t)k;
    return FL_OK;
}

static fl_status get_map(json_t *o, const char *path, const char *key, fl_arena *a,
                         fl_ice_map *m, fl_error *err)
{
    json_t *obj = json_object_get(o, key);
    if (!json_is_object(obj))
        return BAD("%s.%s: %s", path, key, obj ? "must be an object" : "missing");
    m->n = 0;
    m->items = fl_arena_calloc(a, json_object_size(obj) + 1, sizeof *m->items);
    if (!m->items)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v)
    {
        if (!json_is_string(v))
            return BAD("%s.%s.%s: must be a string", path, key, k);
        m->items[m->n].key = fl_arena_strdup(a, k);
        m->items[m->n++].value = fl_arena_strdup(a, json_string_value(v));
    }
    return FL_OK;
}

static fl_status get_strs(json_t *o, const char *path, const char *key, fl_arena *a,
                          const char *const **out, uint32_t *n, fl_error *err)
{
    json_t *arr = json_object_get(o, key);
    if (!json_is_array(arr))
        return BAD("%s.%s: %s", path, key, arr ? "must be an array" : "missing");
    size_t k = json_array_size(arr);
    const char **v = fl_arena_calloc(a, k + 1, sizeof *v);
    if (!v)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (size_t i = 0; i < k; i++) {
        json_t *e = json_array_get(arr, i);
        if (!json_is_string(e))
            return BAD("%s.%s[%zu]: must be a string", path, key, i);
        v[i] = fl_arena_strdup(a, json_string_value(e));
    }
    *out = v;
    *n = (uint32_t)k;
    return FL_OK;
}

/* Runs an ice_* object parser with the REST error prefix instead of "table metadata". */
#define ICE_CTX(c, a, err) ice_ctx c = {.a = (a), .err = (err), .format_version = 1}

static fl_status fix_msg(fl_status rc, fl_error *err)
{
    if (rc != FL_OK && rc != FL_ENOMEM)
        err->code = FL_EINVAL;
    return rc == FL_OK || rc == FL_ENOMEM ? rc : FL_EINVAL;
}

static fl_status parse_object(json_t *o, const char *path, const char *key, json_t **out,
                              fl_error *err)
{
    *out = json_object_get(o, key);
    if (!json_is_object(*out))
        return BAD("%s.%s: %s", path, key, *out ? "must be an object" : "missing");
    return FL_OK;
}

fl_status srv_parse_update(json_t *o, const char *path, fl_arena *a, fl_ice_update *u,
                           fl_error *err)
{
    memset(u, 0, sizeof *u);
    const char *act;
    if (!json_is_object(o))
        return BAD("%s: must be an object", path);
    FL_TRY(get_str(o, path, "action", a, &act, err));
    json_t *sub;
    ICE_CTX(c, a, err);
    if (!strcmp(act, "assign-uuid")) {
        u->kind = FL_ICE_UPD_ASSIGN_UUID;
        return get_str(o, path, "uuid", a, &u->uuid, err);
    }
    if (!strcmp(act, "upgrade-format-version")) {
        u->kind = FL_ICE_UPD_UPGRADE_FORMAT_VERSION;
        return get_i32(o, path, "format-version", &u->format_version, err);
    }
    if (!strcmp(act, "add-schema")) {
        u->kind = FL_ICE_UPD_ADD_SCHEMA;
        FL_TRY(parse_object(o, path, "schema", &sub, err));
        fl_ice_schema *s = fl_arena_calloc(a, 1, sizeof *s);
        if (!s)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        const char *p = fl_arena_sprintf(a, "%s.schema", path);
        FL_TRY(fix_msg(ice_parse_schema(&c, sub, p, false, s), err));
        u->schema = s;
        json_t *lc = json_object_get(o, "last-column-id");
        if (lc && !json_is_null(lc))
            FL_TRY(get_i32(o, path, "last-column-id", &u->last_column_id, err));
        return FL_OK;
    }
    if (!strcmp(act, "set-current-schema")) {
        u->kind = FL_ICE_UPD_SET_CURRENT_SCHEMA;
        return get_i32(o, path, "schema-id", &u->id, err);
    }
    if (!strcmp(act, "add-spec")) {
        u->kind = FL_ICE_UPD_ADD_SPEC;
        FL_TRY(parse_object(o, path, "spec", &sub, err));
        fl_ice_partition_spec *s = fl_arena_calloc(a, 1, sizeof *s);
        if (!s)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        FL_TRY(fix_msg(ice_parse_spec_object(&c, sub, fl_arena_sprintf(a, "%s.spec", path), s),
                       err));
        u->spec = s;
        return FL_OK;
    }
    if (!strcmp(act, "set-default-spec")) {
        u->kind = FL_ICE_UPD_SET_DEFAULT_SPEC;
        return get_i32(o, path, "spec-id", &u->id, err);
    }
    if (!strcmp(act, "add-sort-order")) {
        u->kind = FL_ICE_UPD_ADD_SORT_ORDER;
        FL_TRY(parse_object(o, path, "sort-order", &sub, err));
        fl_ice_sort_order *s = fl_arena_calloc(a, 1, sizeof *s);
        if (!s)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        FL_TRY(fix_msg(
            ice_parse_sort_order_object(&c, sub, fl_arena_sprintf(a, "%s.sort-order", path), s),
            err));
        u->order = s;
        return FL_OK;
    }
    if (!strcmp(act, "set-default-sort-order")) {
        u->kind = FL_ICE_UPD_SET_DEFAULT_SORT_ORDER;
        return get_i32(o, path, "sort-order-id", &u->id, err);
    }
    if (!strcmp(act, "add-snapshot")) {
        u->kind = FL_ICE_UPD_ADD_SNAPSHOT;
        FL_TRY(parse_object(o, path, "snapshot", &sub, err));
        fl_ice_snapshot *s = fl_arena_calloc(a, 1, sizeof *s);
        if (!s)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        FL_TRY(fix_msg(
            ice_parse_snapshot_object(&c, sub, fl_arena_sprintf(a, "%s.snapshot", path), s), err));
        u->snapshot = s;
        return FL_OK;
    }
    if (!strcmp(act, "set-snapshot-ref")) {
        u->kind = FL_ICE_UPD_SET_SNAPSHOT_REF;
        fl_ice_ref *r = fl_arena_calloc(a, 1, sizeof *r);
        if (!r)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        FL_TRY(get_str(o, path, "ref-name", a, &r->name, err));
        FL_TRY(fix_msg(ice_parse_ref_object(&c, o, path, r), err));
        u->ref = r;
        return FL_OK;
    }
    if (!strcmp(act, "remove-snapshots")) {
        u->kind = FL_ICE_UPD_REMOVE_SNAPSHOTS;
        return get_ids(o, path, "snapshot-ids", a, &u->ids, &u->nids, err);
    }
    if (!strcmp(act, "remove-snapshot-ref")) {
        u->kind = FL_ICE_UPD_REMOVE_SNAPSHOT_REF;
        return get_str(o, path, "ref-name", a, &u->ref_name, err);
    }
    if (!strcmp(act, "set-location")) {
        u->kind = FL_ICE_UPD_SET_LOCATION;
        return get_str(o, path, "location", a, &u->location, err);
    }
    if (!strcmp(act, "set-properties")) {
        u->kind = FL_ICE_UPD_SET_PROPERTIES;
        return get_map(o, path, "updates", a, &u->properties, err);
    }
    if (!strcmp(act, "remove-properties")) {
        u->kind = FL_ICE_UPD_REMOVE_PROPERTIES;
        return get_strs(o, path, "removals", a, &u->removals, &u->nremovals, err);
    }
    if (!strcmp(act, "set-statistics")) {
        u->kind = FL_ICE_UPD_SET_STATISTICS;
        FL_TRY(parse_object(o, path, "statistics", &sub, err));
        fl_ice_statistics_file *s = fl_arena_calloc(a, 1, sizeof *s);
        if (!s)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        FL_TRY(fix_msg(
            ice_parse_statistics_object(&c, sub, fl_arena_sprintf(a, "%s.statistics", path), s),
            err));
        u->statistics = s;
        return FL_OK;
    }
    if (!strcmp(act, "remove-statistics")) {
        u->kind = FL_ICE_UPD_REMOVE_STATISTICS;
        return get_int(o, path, "snapshot-id", &u->snapshot_id, err);
    }
    if (!strcmp(act, "remove-partition-specs")) {
        u->kind = FL_ICE_UPD_REMOVE_PARTITION_SPECS;
        return get_ids(o, path, "spec-ids", a, &u->ids, &u->nids, err);
    }
    if (!strcmp(act, "remove-schemas")) {
        u->kind = FL_ICE_UPD_REMOVE_SCHEMAS;
        return get_ids(o, path, "schema-ids", a, &u->ids, &u->nids, err);
    }
    if (!strcmp(act, "set-partition-statistics")) {
        u->kind = FL_ICE_UPD_SET_PARTITION_STATISTICS;
        FL_TRY(parse_object(o, path, "partition-statistics", &sub, err));
        fl_ice_partition_statistics_file *s = fl_arena_calloc(a, 1, sizeof *s);
        if (!s)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        FL_TRY(fix_msg(ice_parse_partition_statistics_object(
                           &c, sub, fl_arena_sprintf(a, "%s.partition-statistics", path), s),
                       err));
        u->partition_statistics = s;
        return FL_OK;
    }
    if (!strcmp(act, "remove-partition-statistics")) {
        u->kind = FL_ICE_UPD_REMOVE_PARTITION_STATISTICS;
        return get_int(o, path, "snapshot-id", &u->snapshot_id, err);
    }
    if (!strcmp(act, "add-encryption-key")) {
        u->kind = FL_ICE_UPD_ADD_ENCRYPTION_KEY;
        FL_TRY(parse_object(o, path, "encryption-key", &sub, err));
        fl_ice_encryption_key *k = fl_arena_calloc(a, 1, sizeof *k);
        if (!k)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        FL_TRY(fix_msg(ice_parse_encryption_key_object(
                           &c, sub, fl_arena_sprintf(a, "%s.encryption-key", path), k),
                       err));
        u->encryption_key = k;
        return FL_OK;
    }
    if (!strcmp(act, "remove-encryption-key")) {
        u->kind = FL_ICE_UPD_REMOVE_ENCRYPTION_KEY;
        return get_str(o, path, "key-id", a, &u->key_id, err);
    }
    return BAD("%s: unknown update action '%.60s'", path, act);
}

static fl_status parse_requirement(json_t *o, const char *path, fl_arena *a,
                                   fl_ice_requirement *q, fl_error *err)
{
    memset(q, 0, sizeof *q);
    const char *t;
    if (!json_is_object(o))
        return BAD("%s: must be an object", path);
    FL_TRY(get_str(o, path, "type", a, &t, err));
    if (!strcmp(t, "assert-create")) {
        q->kind = FL_ICE_REQ_ASSERT_CREATE;
        return FL_OK;
    }
    if (!strcmp(t, "assert-table-uuid")) {
        q->kind = FL_ICE_REQ_ASSERT_TABLE_UUID;
        return get_str(o, path, "uuid", a, &q->uuid, err);
    }
    if (!strcmp(t, "assert-ref-snapshot-id")) {
        q->kind = FL_ICE_REQ_ASSERT_REF_SNAPSHOT_ID;
        FL_TRY(get_str(o, path, "ref", a, &q->ref, err));
        json_t *v = json_object_get(o, "snapshot-id");
        if (v && !json_is_null(v)) {
            FL_TRY(get_int(o, path, "snapshot-id", &q->snapshot_id, err));
            q->has_snapshot_id = true;
        }
        return FL_OK;
    }
    static const struct {
        const char *type, *field;
        fl_ice_requirement_kind kind;
    } ints[] = {
        {"assert-last-assigned-field-id", "last-assigned-field-id",
         FL_ICE_REQ_ASSERT_LAST_ASSIGNED_FIELD_ID},
        {"assert-current-schema-id", "current-schema-id", FL_ICE_REQ_ASSERT_CURRENT_SCHEMA_ID},
        {"assert-last-assigned-partition-id", "last-assigned-partition-id",
         FL_ICE_REQ_ASSERT_LAST_ASSIGNED_PARTITION_ID},
        {"assert-default-spec-id", "default-spec-id", FL_ICE_REQ_ASSERT_DEFAULT_SPEC_ID},
        {"assert-default-sort-order-id", "default-sort-order-id",
         FL_ICE_REQ_ASSERT_DEFAULT_SORT_ORDER_ID},
    };
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        if (!strcmp(t, ints[i].type)) {
            q->kind = ints[i].kind;
            return get_i32(o, path, ints[i].field, &q->id, err);
        }
    return BAD("%s: unknown requirement type '%.60s'", path, t);
}

fl_status srv_parse_commit(json_t *body, fl_arena *a, srv_commit_req *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    json_t *reqs = json_object_get(body, "requirements");
    json_t *upds = json_object_get(body, "updates");
    if (reqs && !json_is_null(reqs) && !json_is_array(reqs))
        return BAD("requirements: must be an array");
    if (!json_is_array(upds))
        return BAD("updates: %s", upds ? "must be an array" : "missing");
    size_t nr = json_is_array(reqs) ? json_array_size(reqs) : 0, nu = json_array_size(upds);
    if (nr > 10000 || nu > 10000)
        return fl_errorf(err, FL_ELIMIT, "more than 10000 requirements or updates");
    out->req = fl_arena_calloc(a, nr + 1, sizeof *out->req);
    out->upd = fl_arena_calloc(a, nu + 1, sizeof *out->upd);
    if (!out->req || !out->upd)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    char path[48];
    for (size_t i = 0; i < nr; i++) {
        snprintf(path, sizeof path, "requirements[%zu]", i);
        FL_TRY(parse_requirement(json_array_get(reqs, i), path, a, &out->req[i], err));
        if (out->req[i].kind == FL_ICE_REQ_ASSERT_CREATE)
            out->assert_create = true;
    }
    out->nreq = (uint32_t)nr;
    for (size_t i = 0; i < nu; i++) {
        snprintf(path, sizeof path, "updates[%zu]", i);
        FL_TRY(srv_parse_update(json_array_get(upds, i), path, a, &out->upd[i], err));
    }
    out->nupd = (uint32_t)nu;
    return FL_OK;
}
