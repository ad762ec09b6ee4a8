/*
 * create_json.c - CreateTableRequest -> the metadata of a new table, built
 * as Java's TableMetadata.newTableMetadata does:
 *
 *   - fresh field ids (TypeUtil.assignFreshIds order: a struct's own fields
 *     take consecutive ids first, then each field's type is visited; list
 *     element; map key then value), schema id 0; identifier-field-ids,
 *     partition and sort source ids are remapped through the old->new map;
 *   - partition spec 0 with field ids 1000.. in order; sort order 1 when it
 *     has fields, else the unsorted order 0;
 *   - "format-version" in properties selects v1/v2/v3 (default 2) and is not
 *     stored as a property;
 *   - location = the request's (checked against the warehouse by the caller)
 *     or the catalog's default location.
 *
 * The id rewriting happens on a copy of the request JSON, and the result is
 * then parsed by the same code that reads metadata files, so defaults and
 * v3 types survive unchanged. The metadata is assembled by
 * fl_ice_metadata_apply() on an empty base.
 */
#include <stdlib.h>
#include <string.h>

#include "iceberg/ice_internal.h"
#include "server/server_internal.h"

#define MAX_IDS 100000

typedef struct idmap {
    int64_t *from, *to;
    uint32_t n, cap;
    int32_t next;
    fl_error *err;
} idmap;

static bool map_add(idmap *m, int64_t from, int32_t to)
{
    if (m->n == m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 64;
        int64_t *f = realloc(m->from, cap * sizeof *f), *t;
        if (!f)
            return false;
        m->from = f;
        t = realloc(m->to, cap * sizeof *t);
        if (!t)
            return false;
        m->to = t;
        m->cap = cap;
    }
    m->from[m->n] = from;
    m->to[m->n++] = to;
    return true;
}

static bool map_get(const idmap *m, int64_t from, int32_t *to)
{
    for (uint32_t i = 0; i < m->n; i++)
        if (m->from[i] == from) {
            *to = (int32_t)m->to[i];
            return true;
        }
    return false;
}

static fl_status renumber(idmap *m, json_t *type, unsigned depth);

static fl_status fresh(idmap *m, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v))
        return fl_errorf(m->err, FL_EINVAL, "schema: '%s' must be an integer", key);
    if (m->next >= MAX_IDS)
        return fl_errorf(m->err, FL_ELIMIT, "schema: more than %d fields", MAX_IDS);
    int32_t id = ++m->next;
    if (!map_add(m, json_integer_value(v), id))
        return fl_errorf(m->err, FL_ENOMEM, "out of memory");
    json_object_set_new(o, key, json_integer(id));
    return FL_OK;
}

static fl_status renumber(idmap *m, json_t *type, unsigned depth)
{
    if (!json_is_object(type))
        return FL_OK; /* a primitive type string */
    if (depth > ICE_MAX_TYPE_DEPTH)
        return fl_errorf(m->err, FL_ELIMIT, "schema: types nest deeper than %d",
                         ICE_MAX_TYPE_DEPTH);
    const char *t = json_string_value(json_object_get(type, "type"));
    if (!t)
        return fl_errorf(m->err, FL_EINVAL, "schema: nested type without 'type'");
    if (!strcmp(t, "struct")) {
        json_t *fields = json_object_get(type, "fields");
        if (!json_is_array(fields))
            return fl_errorf(m->err, FL_EINVAL, "schema: struct without 'fields'");
        size_t i;
        json_t *f;
        json_array_foreach(fields, i, f)
        {
            if (!json_is_object(f))
                return fl_errorf(m->err, FL_EINVAL, "schema: field %zu is not an object", i);
            FL_TRY(fresh(m, f, "id"));
        }
        json_array_foreach(fields, i, f) FL_TRY(renumber(m, json_object_get(f, "type"), depth + 1));
        return FL_OK;
    }
    if (!strcmp(t, "list")) {
        FL_TRY(fresh(m, type, "element-id"));
        return renumber(m, json_object_get(type, "element"), depth + 1);
    }
    if (!strcmp(t, "map")) {
        FL_TRY(fresh(m, type, "key-id"));
        FL_TRY(fresh(m, type, "value-id"));
        FL_TRY(renumber(m, json_object_get(type, "key"), depth + 1));
        return renumber(m, json_object_get(type, "value"), depth + 1);
    }
    return fl_errorf(m->err, FL_EINVAL, "schema: unknown nested type '%.40s'", t);
}

/* Rewrites "source-id"/"source-ids" of each element of fields through m. */
static fl_status remap_sources(idmap *m, json_t *fields, const char *what)
{
    size_t i;
    json_t *f;
    json_array_foreach(fields, i, f)
    {
        if (!json_is_object(f))
            return fl_errorf(m->err, FL_EINVAL, "%s.fields[%zu]: must be an object", what, i);
        json_t *src = json_object_get(f, "source-id");
        int32_t to;
        if (json_is_integer(src)) {
            if (!map_get(m, json_integer_value(src), &to))
                return fl_errorf(m->err, FL_EINVAL,
                                 "%s.fields[%zu]: source-id %lld is not a schema field", what, i,
                                 (long long)json_integer_value(src));
            json_object_set_new(f, "source-id", json_integer(to));
        }
        json_t *ids = json_object_get(f, "source-ids");
        size_t k;
        json_t *e;
        json_array_foreach(ids, k, e)
        {
            if (!json_is_integer(e) || !map_get(m, json_integer_value(e), &to))
                return fl_errorf(m->err, FL_EINVAL, "%s.fields[%zu]: bad source-ids", what, i);
            json_array_set_new(ids, k, json_integer(to));
        }
    }
    return FL_OK;
}

static fl_status build(fl_server *s, const fl_table_ident *id, json_t *body, idmap *m,
                       fl_arena *a, fl_ice_metadata *out, fl_error *err)
{
    ice_ctx c = {.a = a, .err = err, .format_version = 2};
    json_t *schema = json_object_get(body, "schema");
    if (!json_is_object(schema))
        return fl_errorf(err, FL_EINVAL, "schema: %s", schema ? "must be an object" : "missing");
    json_object_set_new(schema, "schema-id", json_integer(0));
    FL_TRY(renumber(m, schema, 0));
    json_t *ident = json_object_get(schema, "identifier-field-ids");
    size_t i;
    json_t *e;
    json_array_foreach(ident, i, e)
    {
        int32_t to;
        if (!json_is_integer(e) || !map_get(m, json_integer_value(e), &to))
            return fl_errorf(err, FL_EINVAL, "schema.identifier-field-ids[%zu]: not a field", i);
        json_array_set_new(ident, i, json_integer(to));
    }
    fl_ice_schema *sch = fl_arena_calloc(a, 1, sizeof *sch);
    fl_ice_partition_spec *spec = fl_arena_calloc(a, 1, sizeof *spec);
    fl_ice_sort_order *order = fl_arena_calloc(a, 1, sizeof *order);
    if (!sch || !spec || !order)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = ice_parse_schema(&c, schema, "schema", true, sch);
    if (rc != FL_OK)
        return rc == FL_ENOMEM ? rc : (err->code = FL_EINVAL);
    json_t *js = json_object_get(body, "partition-spec");
    if (json_is_object(js)) {
        json_t *fields = json_object_get(js, "fields");
        FL_TRY(remap_sources(m, fields, "partition-spec"));
        json_array_foreach(fields, i, e) json_object_set_new(
            e, "field-id", json_integer(FL_ICE_PARTITION_FIELD_ID_BASE + (json_int_t)i));
        json_object_set_new(js, "spec-id", json_integer(0));
        rc = ice_parse_spec_object(&c, js, "partition-spec", spec);
        if (rc != FL_OK)
            return rc == FL_ENOMEM ? rc : (err->code = FL_EINVAL);
    }
    json_t *jo = json_object_get(body, "write-order");
    if (json_is_object(jo)) {
        FL_TRY(remap_sources(m, json_object_get(jo, "fields"), "write-order"));
        rc = ice_parse_sort_order_object(&c, jo, "write-order", order);
        if (rc != FL_OK)
            return rc == FL_ENOMEM ? rc : (err->code = FL_EINVAL);
    }
    order->order_id = order->nfields ? 1 : 0;
    /* properties */
    fl_ice_map props = {0};
    int32_t fv = 2;
    json_t *jp = json_object_get(body, "properties");
    if (jp && !json_is_null(jp) && !json_is_object(jp))
        return fl_errorf(err, FL_EINVAL, "properties: must be an object");
    props.items = fl_arena_calloc(a, json_object_size(jp) + 1, sizeof *props.items);
    const char *k;
    json_t *v;
    json_object_foreach(jp, k, v)
    {
        if (!json_is_string(v))
            return fl_errorf(err, FL_EINVAL, "properties.%s: must be a string", k);
        if (!strcmp(k, "format-version")) {
            char *end;
            long x = strtol(json_string_value(v), &end, 10);
            if (*end || x < 1 || x > FL_ICE_MAX_FORMAT_VERSION)
                return fl_errorf(err, FL_EINVAL, "properties.format-version: unsupported '%s'",
                                 json_string_value(v));
            fv = (int32_t)x;
            continue;
        }
        props.items[props.n].key = fl_arena_strdup(a, k);
        props.items[props.n++].value = fl_arena_strdup(a, json_string_value(v));
    }
    const char *loc = json_string_value(json_object_get(body, "location"));
    if (loc && *loc) {
        char *l = fl_arena_strdup(a, loc);
        size_t n = strlen(l);
        while (n > 1 && l[n - 1] == '/')
            l[--n] = '\0';
        loc = l;
    } else {
        fl_catalog tmp = {.warehouse = s->warehouse};
        loc = fl_catalog_default_location(&tmp, id, a);
    }
    char uuid[37];
    fl_ice_uuid4(uuid);
    fl_ice_update u[10];
    memset(u, 0, sizeof u);
    uint32_t n = 0;
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_ASSIGN_UUID, .uuid = fl_arena_strdup(a, uuid)};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_UPGRADE_FORMAT_VERSION, .format_version = fv};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_ADD_SCHEMA, .schema = sch, .last_column_id = m->next};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_CURRENT_SCHEMA, .id = -1};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_ADD_SPEC, .spec = spec};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_DEFAULT_SPEC, .id = -1};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_ADD_SORT_ORDER, .order = order};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_DEFAULT_SORT_ORDER, .id = -1};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_LOCATION, .location = loc};
    if (props.n)
        u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_PROPERTIES, .properties = props};
    return fl_ice_metadata_apply(NULL, NULL, u, n, srv_now_ms(), a, out, err);
}

fl_status srv_new_table_metadata(fl_server *s, const fl_table_ident *id, json_t *body,
                                 fl_arena *a, fl_ice_metadata *out, fl_error *err)
{
    json_t *copy = json_deep_copy(body);
    if (!copy)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    idmap m = {.err = err};
    fl_status rc = build(s, id, copy, &m, a, out, err);
    free(m.from);
    free(m.to);
    json_decref(copy);
    return rc;
}
