/*
 * view_apply.c - fl_ice_view_metadata_apply(): view metadata + the REST
 * catalog's view updates -> new view metadata, as Java's
 * ViewMetadata.Builder does (see ice_view.h for the rules).
 *
 * Equality of versions ignores version-id, timestamp-ms and summary (Java's
 * sameViewVersion): re-adding the same definition reuses its id. Schemas
 * compare with ice_schema_equal ignoring the schema id.
 *
 * Memory: arrays that change are fresh arena copies; elements are shared
 * with base and the updates.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/ice_table.h"
#include "floe/ice_view.h"
#include "iceberg/ice_internal.h"

typedef struct vst {
    fl_ice_view_metadata m;
    fl_arena *a;
    fl_error *err;
    bool changed;
    bool has_last_schema, has_last_version;
    int32_t last_schema, last_version;
} vst;

static fl_status bad(vst *s, uint32_t i, const char *msg, long long v)
{
    return fl_errorf(s->err, FL_EINVAL, "view update %u: %s%s%lld", i, msg, v != -99999 ? " " : "",
                     v != -99999 ? v : 0);
}

static void *grow_copy(vst *s, const void *old, uint32_t n, size_t sz)
{
    void *p = fl_arena_alloc(s->a, (n + 1) * sz);
    if (p && n)
        memcpy(p, old, n * sz);
    return p;
}

static bool str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static bool same_version(const fl_ice_view_version *a, const fl_ice_view_version *b)
{
    if (a->schema_id != b->schema_id || !str_eq(a->default_catalog, b->default_catalog) ||
        a->nrepresentations != b->nrepresentations || a->ndefault_namespace != b->ndefault_namespace)
        return false;
    for (uint32_t i = 0; i < a->ndefault_namespace; i++)
        if (strcmp(a->default_namespace[i], b->default_namespace[i]) != 0)
            return false;
    for (uint32_t i = 0; i < a->nrepresentations; i++) {
        const fl_ice_view_representation *x = &a->representations[i], *y = &b->representations[i];
        if (!str_eq(x->type, y->type) || !str_eq(x->sql, y->sql) || !str_eq(x->dialect, y->dialect) ||
            !str_eq(x->raw, y->raw))
            return false;
    }
    return true;
}

static fl_status add_schema(vst *s, uint32_t i, const fl_ice_schema *sc)
{
    int32_t max = -1;
    for (uint32_t k = 0; k < s->m.nschemas; k++) {
        fl_ice_schema t = s->m.schemas[k];
        t.schema_id = sc->schema_id;
        t.schema.schema_id = sc->schema.schema_id;
        if (ice_schema_equal(&t, sc)) {
            s->last_schema = s->m.schemas[k].schema_id;
            s->has_last_schema = true;
            return FL_OK;
        }
        if (s->m.schemas[k].schema_id > max)
            max = s->m.schemas[k].schema_id;
    }
    fl_ice_schema *arr = grow_copy(s, s->m.schemas, s->m.nschemas, sizeof *arr);
    if (!arr)
        return fl_errorf(s->err, FL_ENOMEM, "view update %u: out of memory", i);
    arr[s->m.nschemas] = *sc;
    arr[s->m.nschemas].schema_id = max + 1;
    arr[s->m.nschemas].schema.schema_id = max + 1;
    s->m.schemas = arr;
    s->m.nschemas++;
    s->last_schema = max + 1;
    s->has_last_schema = true;
    s->changed = true;
    return FL_OK;
}

static fl_status add_version(vst *s, uint32_t i, const fl_ice_view_version *v0, int64_t now_ms)
{
    fl_ice_view_version v = *v0;
    if (v.schema_id == -1) {
        if (!s->has_last_schema)
            return bad(s, i, "add-view-version: schema-id -1 but no schema was added", -99999);
        v.schema_id = s->last_schema;
    }
    bool found = false;
    for (uint32_t k = 0; k < s->m.nschemas; k++)
        found |= s->m.schemas[k].schema_id == v.schema_id;
    if (!found)
        return bad(s, i, "add-view-version: unknown schema-id", v.schema_id);
    for (uint32_t k = 0; k < v.nrepresentations; k++)
        for (uint32_t j = 0; j < k; j++)
            if (v.representations[k].dialect && v.representations[j].dialect &&
                !strcasecmp(v.representations[k].dialect, v.representations[j].dialect))
                return bad(s, i, "add-view-version: two SQL representations for one dialect",
                           -99999);
    int32_t max = 0;
    for (uint32_t k = 0; k < s->m.nversions; k++) {
        if (same_version(&s->m.versions[k], &v)) {
            s->last_version = s->m.versions[k].version_id;
            s->has_last_version = true;
            return FL_OK;
        }
        if (s->m.versions[k].version_id > max)
            max = s->m.versions[k].version_id;
    }
    fl_ice_view_version *arr = grow_copy(s, s->m.versions, s->m.nversions, sizeof *arr);
    if (!arr)
        return fl_errorf(s->err, FL_ENOMEM, "view update %u: out of memory", i);
    v.version_id = max + 1;
    if (v.timestamp_ms <= 0)
        v.timestamp_ms = now_ms;
    arr[s->m.nversions++] = v;
    s->m.versions = arr;
    s->last_version = v.version_id;
    s->has_last_version = true;
    s->changed = true;
    return FL_OK;
}

static fl_status set_current(vst *s, uint32_t i, int32_t id, int64_t now_ms)
{
    if (id == -1) {
        if (!s->has_last_version)
            return bad(s, i, "set-current-view-version -1 but no version was added", -99999);
        id = s->last_version;
    }
    bool found = false;
    for (uint32_t k = 0; k < s->m.nversions; k++)
        found |= s->m.versions[k].version_id == id;
    if (!found)
        return bad(s, i, "set-current-view-version: unknown version", id);
    if (s->m.current_version_id == id && s->m.nversion_log)
        return FL_OK;
    fl_ice_view_log_entry *log = grow_copy(s, s->m.version_log, s->m.nversion_log, sizeof *log);
    if (!log)
        return fl_errorf(s->err, FL_ENOMEM, "view update %u: out of memory", i);
    log[s->m.nversion_log++] = (fl_ice_view_log_entry){now_ms, id};
    s->m.version_log = log;
    s->m.current_version_id = id;
    s->changed = true;
    return FL_OK;
}

static fl_status set_props(vst *s, uint32_t i, const fl_ice_map *set, const char *const *rm,
                           uint32_t nrm)
{
    fl_ice_kv *items = fl_arena_alloc(s->a, (s->m.properties.n + set->n + 1) * sizeof *items);
    if (!items)
        return fl_errorf(s->err, FL_ENOMEM, "view update %u: out of memory", i);
    uint32_t n = 0;
    for (uint32_t k = 0; k < s->m.properties.n; k++) {
        const char *key = s->m.properties.items[k].key;
        bool drop = fl_ice_map_get(set, key) != NULL;
        for (uint32_t r = 0; r < nrm && !drop; r++)
            drop = !strcmp(rm[r], key);
        if (!drop)
            items[n++] = s->m.properties.items[k];
    }
    for (uint32_t k = 0; k < set->n; k++)
        items[n++] = set->items[k];
    s->m.properties.items = items;
    s->m.properties.n = n;
    s->changed = true;
    return FL_OK;
}

static fl_status apply_one(vst *s, uint32_t i, const fl_ice_view_update *u, int64_t now_ms)
{
    switch (u->kind) {
    case FL_ICE_VIEW_UPD_ASSIGN_UUID:
        if (s->m.view_uuid && strcasecmp(s->m.view_uuid, u->uuid) != 0)
            return bad(s, i, "assign-uuid: a view's uuid cannot change", -99999);
        if (!s->m.view_uuid)
            s->changed = true;
        s->m.view_uuid = u->uuid;
        return FL_OK;
    case FL_ICE_VIEW_UPD_UPGRADE_FORMAT_VERSION:
        if (u->format_version != 1)
            return bad(s, i, "upgrade-format-version: unsupported view format version",
                       u->format_version);
        return FL_OK;
    case FL_ICE_VIEW_UPD_ADD_SCHEMA: return add_schema(s, i, u->schema);
    case FL_ICE_VIEW_UPD_SET_LOCATION:
        if (!u->location || !*u->location)
            return bad(s, i, "set-location: empty location", -99999);
        s->changed |= !str_eq(s->m.location, u->location);
        s->m.location = u->location;
        return FL_OK;
    case FL_ICE_VIEW_UPD_SET_PROPERTIES: return set_props(s, i, &u->properties, NULL, 0);
    case FL_ICE_VIEW_UPD_REMOVE_PROPERTIES: {
        fl_ice_map none = {0};
        return set_props(s, i, &none, u->removals, u->nremovals);
    }
    case FL_ICE_VIEW_UPD_ADD_VERSION: return add_version(s, i, u->version, now_ms);
    case FL_ICE_VIEW_UPD_SET_CURRENT_VERSION: return set_current(s, i, u->version_id, now_ms);
    }
    return bad(s, i, "unknown view update kind", (long long)u->kind);
}

/* Keeps at most version.history.num-entries versions (never the current one). */
static void trim_versions(vst *s)
{
    const char *p = fl_ice_map_get(&s->m.properties, "version.history.num-entries");
    long max = p ? strtol(p, NULL, 10) : 10;
    if (max < 1)
        max = 1;
    if (s->m.nversions <= (uint32_t)max)
        return;
    uint32_t drop = s->m.nversions - (uint32_t)max, n = 0;
    fl_ice_view_version *arr = fl_arena_alloc(s->a, s->m.nversions * sizeof *arr);
    if (!arr)
        return;
    for (uint32_t k = 0; k < s->m.nversions; k++) {
        if (drop && s->m.versions[k].version_id != s->m.current_version_id) {
            drop--;
            continue;
        }
        arr[n++] = s->m.versions[k];
    }
    s->m.versions = arr;
    s->m.nversions = n;
}

fl_status fl_ice_view_metadata_apply(const fl_ice_view_metadata *base,
                                     const fl_ice_view_update *u, uint32_t n, int64_t now_ms,
                                     fl_arena *a, fl_ice_view_metadata *out, bool *changed,
                                     fl_error *err)
{
    vst s = {.a = a, .err = err};
    if (base)
        s.m = *base;
    else {
        s.m.format_version = 1;
        s.m.current_version_id = -1;
    }
    for (uint32_t i = 0; i < n; i++)
        FL_TRY(apply_one(&s, i, &u[i], now_ms));
    if (!s.m.view_uuid) {
        char *b = fl_arena_alloc(a, 37);
        if (!b)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        fl_ice_uuid4(b);
        s.m.view_uuid = b;
        s.changed = true;
    }
    if (!s.m.location)
        return fl_errorf(err, FL_EINVAL, "view metadata: no location");
    if (!fl_ice_view_current_version(&s.m))
        return fl_errorf(err, FL_EINVAL, "view metadata: no current version");
    trim_versions(&s);
    *out = s.m;
    if (changed)
        *changed = s.changed;
    return FL_OK;
}
