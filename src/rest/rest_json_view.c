/*
 * rest_json_view.c - the view side of the REST protocol (floe/rest.h):
 *
 *   ViewUpdate   {"action":"add-view-version","view-version":V}
 *                {"action":"set-current-view-version","view-version-id":N}  (-1 = last added)
 *                and the actions shared with tables: assign-uuid,
 *                upgrade-format-version, add-schema, set-location,
 *                set-properties, remove-properties
 *   CreateViewRequest {"name":N,["location":L,]"schema":S,"view-version":V,
 *                      ["properties":{..}]}
 *
 * A view version parses with iceberg's view metadata parser
 * (fl_ice_json_parse_view_version); "version-id" may be omitted in a request
 * (0). Errors are FL_EINVAL naming the field ("updates[1].view-version.sql").
 */
#include <stdio.h>
#include <string.h>

#include "floe/ice_json.h"
#include "floe/rest.h"

#define BAD(...) fl_errorf(err, FL_EINVAL, __VA_ARGS__)

fl_status fl_rest_view_version_from_json(json_t *o, const char *path, fl_arena *a,
                                         fl_ice_view_version **out, fl_error *err)
{
    *out = NULL;
    if (!json_is_object(o))
        return BAD("%s: %s", path, o ? "must be an object" : "missing");
    json_t *copy = json_deep_copy(o);
    if (!copy)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (!json_object_get(copy, "version-id"))
        json_object_set_new(copy, "version-id", json_integer(0));
    fl_ice_view_version *v = fl_arena_calloc(a, 1, sizeof *v);
    fl_ice_json_ctx c = {.a = a, .err = err, .format_version = 2};
    fl_status rc = v ? fl_ice_json_parse_view_version(&c, copy, path, v) : FL_ENOMEM;
    json_decref(copy);
    if (rc != FL_OK && rc != FL_ENOMEM)
        err->code = rc = FL_EINVAL;
    *out = v;
    return rc;
}

/* The actions a view shares with a table. */
static fl_status shared_action(const fl_ice_update *t, const char *path, const char *act,
                               fl_ice_view_update *u, fl_error *err)
{
    switch (t->kind) {
    case FL_ICE_UPD_ASSIGN_UUID:
        u->kind = FL_ICE_VIEW_UPD_ASSIGN_UUID;
        u->uuid = t->uuid;
        break;
    case FL_ICE_UPD_UPGRADE_FORMAT_VERSION:
        u->kind = FL_ICE_VIEW_UPD_UPGRADE_FORMAT_VERSION;
        u->format_version = t->format_version;
        break;
    case FL_ICE_UPD_ADD_SCHEMA:
        u->kind = FL_ICE_VIEW_UPD_ADD_SCHEMA;
        u->schema = t->schema;
        break;
    case FL_ICE_UPD_SET_LOCATION:
        u->kind = FL_ICE_VIEW_UPD_SET_LOCATION;
        u->location = t->location;
        break;
    case FL_ICE_UPD_SET_PROPERTIES:
        u->kind = FL_ICE_VIEW_UPD_SET_PROPERTIES;
        u->properties = t->properties;
        break;
    case FL_ICE_UPD_REMOVE_PROPERTIES:
        u->kind = FL_ICE_VIEW_UPD_REMOVE_PROPERTIES;
        u->removals = t->removals;
        u->nremovals = t->nremovals;
        break;
    default: return BAD("%s: '%s' is not a view update", path, act);
    }
    return FL_OK;
}

fl_status fl_rest_view_update_from_json(json_t *o, const char *path, fl_arena *a,
                                        fl_ice_view_update *u, fl_ice_view_version **added,
                                        fl_error *err)
{
    memset(u, 0, sizeof *u);
    if (added)
        *added = NULL;
    const char *act = json_string_value(json_object_get(o, "action"));
    if (!act)
        return BAD("%s.action: missing", path);
    if (!strcmp(act, "add-view-version")) {
        fl_ice_view_version *v;
        u->kind = FL_ICE_VIEW_UPD_ADD_VERSION;
        const char *vp = fl_arena_sprintf(a, "%s.view-version", path);
        if (!vp)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        FL_TRY(fl_rest_view_version_from_json(json_object_get(o, "view-version"), vp, a, &v, err));
        u->version = v;
        if (added)
            *added = v;
        return FL_OK;
    }
    if (!strcmp(act, "set-current-view-version")) {
        json_t *v = json_object_get(o, "view-version-id");
        if (!json_is_integer(v))
            return BAD("%s.view-version-id: must be an integer", path);
        u->kind = FL_ICE_VIEW_UPD_SET_CURRENT_VERSION;
        u->version_id = (int32_t)json_integer_value(v);
        return FL_OK;
    }
    fl_ice_update t;
    fl_status rc = fl_rest_update_from_json(o, path, a, &t, err);
    if (rc == FL_EUNSUPPORTED) {
        char msg[FL_ERROR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return BAD("%s: not a table update (%s)", path, msg);
    }
    FL_TRY(rc);
    return shared_action(&t, path, act, u, err);
}

/* ---- to JSON ---- */

static fl_status view_payload(const fl_ice_view_update *u, json_t *o, fl_error *err)
{
    bool ok = true;
    switch (u->kind) {
    case FL_ICE_VIEW_UPD_ADD_VERSION:
        ok = fl_ice_json_set(o, "action", json_string("add-view-version")) && u->version &&
             fl_ice_json_set(o, "view-version", fl_ice_json_view_version(u->version));
        break;
    case FL_ICE_VIEW_UPD_SET_CURRENT_VERSION:
        ok = fl_ice_json_set(o, "action", json_string("set-current-view-version")) &&
             fl_ice_json_set(o, "view-version-id", json_integer(u->version_id));
        break;
    default: return fl_errorf(err, FL_EINVAL, "view update kind %d", (int)u->kind);
    }
    return ok ? FL_OK : fl_errorf(err, FL_ENOMEM, "view update: out of memory");
}

fl_status fl_rest_view_update_to_json(const fl_ice_view_update *u, json_t **out, fl_error *err)
{
    *out = NULL;
    fl_ice_update t = {0};
    switch (u->kind) {
    case FL_ICE_VIEW_UPD_ASSIGN_UUID:
        t = (fl_ice_update){.kind = FL_ICE_UPD_ASSIGN_UUID, .uuid = u->uuid};
        break;
    case FL_ICE_VIEW_UPD_UPGRADE_FORMAT_VERSION:
        t = (fl_ice_update){.kind = FL_ICE_UPD_UPGRADE_FORMAT_VERSION,
                            .format_version = u->format_version};
        break;
    case FL_ICE_VIEW_UPD_ADD_SCHEMA:
        t = (fl_ice_update){.kind = FL_ICE_UPD_ADD_SCHEMA, .schema = u->schema};
        break;
    case FL_ICE_VIEW_UPD_SET_LOCATION:
        t = (fl_ice_update){.kind = FL_ICE_UPD_SET_LOCATION, .location = u->location};
        break;
    case FL_ICE_VIEW_UPD_SET_PROPERTIES:
        t = (fl_ice_update){.kind = FL_ICE_UPD_SET_PROPERTIES, .properties = u->properties};
        break;
    case FL_ICE_VIEW_UPD_REMOVE_PROPERTIES:
        t = (fl_ice_update){.kind = FL_ICE_UPD_REMOVE_PROPERTIES,
                            .removals = u->removals,
                            .nremovals = u->nremovals};
        break;
    default: {
        json_t *o = json_object();
        if (!o)
            return fl_errorf(err, FL_ENOMEM, "view update: out of memory");
        fl_status rc = view_payload(u, o, err);
        if (rc != FL_OK) {
            json_decref(o);
            return rc;
        }
        *out = o;
        return FL_OK;
    }
    }
    return fl_rest_update_to_json(&t, out, err);
}

/* ---- CommitViewRequest ---- */

fl_status fl_rest_view_commit_request_from_json(json_t *body, fl_arena *a,
                                                fl_rest_view_commit_request *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    json_t *reqs = json_object_get(body, "requirements"), *upds = json_object_get(body, "updates");
    size_t nr = json_array_size(reqs), nu = json_array_size(upds);
    if (!json_is_array(upds))
        return BAD("updates: must be an array");
    if (nr > FL_REST_MAX_CHANGES || nu > FL_REST_MAX_CHANGES)
        return fl_errorf(err, FL_ELIMIT, "more than %d requirements or updates",
                         FL_REST_MAX_CHANGES);
    for (size_t i = 0; i < nr; i++) {
        json_t *q = json_array_get(reqs, i);
        const char *t = json_string_value(json_object_get(q, "type"));
        const char *uuid = json_string_value(json_object_get(q, "uuid"));
        if (!t || strcmp(t, "assert-view-uuid") != 0 || !uuid)
            return BAD("requirements[%zu]: unknown view requirement '%s'", i, t ? t : "?");
        if (!(out->assert_uuid = fl_arena_strdup(a, uuid)))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    out->updates = fl_arena_calloc(a, nu + 1, sizeof *out->updates);
    out->added = fl_arena_calloc(a, nu + 1, sizeof *out->added);
    if (!out->updates || !out->added)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (size_t i = 0; i < nu; i++) {
        char path[48];
        snprintf(path, sizeof path, "updates[%zu]", i);
        FL_TRY(fl_rest_view_update_from_json(json_array_get(upds, i), path, a, &out->updates[i],
                                             &out->added[i], err));
        out->nupdates++;
    }
    return FL_OK;
}

/* ---- CreateViewRequest ---- */

static fl_status view_properties(json_t *jp, fl_arena *a, fl_ice_map *props, fl_error *err)
{
    *props = (fl_ice_map){0};
    if (!jp || !json_is_object(jp))
        return FL_OK;
    props->items = fl_arena_calloc(a, json_object_size(jp) + 1, sizeof *props->items);
    if (!props->items)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    const char *k;
    json_t *val;
    json_object_foreach(jp, k, val)
    {
        if (!json_is_string(val))
            return BAD("properties.%s: must be a string", k);
        props->items[props->n].key = fl_arena_strdup(a, k);
        props->items[props->n].value = fl_arena_strdup(a, json_string_value(val));
        if (!props->items[props->n].key || !props->items[props->n++].value)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    return FL_OK;
}

fl_status fl_rest_create_view_request_from_json(json_t *body, fl_arena *a,
                                                fl_rest_create_view_request *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    const char *name = json_string_value(json_object_get(body, "name"));
    if (!name || !*name)
        return BAD("name: missing");
    const char *loc = json_string_value(json_object_get(body, "location"));
    out->name = fl_arena_strdup(a, name);
    out->location = loc && *loc ? fl_arena_strdup(a, loc) : NULL;
    if (!out->name || (loc && *loc && !out->location))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    json_t *js = json_object_get(body, "schema");
    if (!json_is_object(js))
        return BAD("schema: missing");
    fl_ice_json_ctx c = {.a = a, .err = err, .format_version = 2};
    if (fl_ice_json_parse_schema(&c, js, "schema", false, &out->schema) != FL_OK)
        return err->code == FL_ENOMEM ? FL_ENOMEM : (err->code = FL_EINVAL);
    FL_TRY(fl_rest_view_version_from_json(json_object_get(body, "view-version"), "view-version", a,
                                          &out->version, err));
    return view_properties(json_object_get(body, "properties"), a, &out->properties, err);
}
