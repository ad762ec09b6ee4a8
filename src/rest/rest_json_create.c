/*
 * rest_json_create.c - CreateTableRequest JSON -> fl_rest_create_request
 * (floe/rest.h), as the server reads it:
 *
 *   {"name":N,["location":L,]"schema":S,["partition-spec":P,]["write-order":O,]
 *    ["stage-create":true,]["properties":{..}]}
 *
 * The schema, spec and order are parsed by the metadata parsers of iceberg
 * (floe/ice_json.h) with the requester's ids; the fresh ids are assigned
 * afterwards by iceberg's one assignment (fl_ice_fresh_table_ids). Their
 * errors (FL_ECORRUPT "table metadata: schema.fields[1].type: ...") become
 * FL_EINVAL with the same message: a request is bad input, not a bad file.
 * "format-version" in properties selects v1..v3 (default 2) and is taken out.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/ice_json.h"
#include "floe/rest.h"

static fl_status as_einval(fl_status rc, fl_error *err)
{
    if (rc == FL_OK || rc == FL_ENOMEM)
        return rc;
    err->code = FL_EINVAL;
    return FL_EINVAL;
}

static fl_status parse_properties(json_t *body, fl_arena *a, fl_rest_create_request *out,
                                  fl_error *err)
{
    json_t *jp = json_object_get(body, "properties");
    if (jp && !json_is_null(jp) && !json_is_object(jp))
        return fl_errorf(err, FL_EINVAL, "properties: must be an object");
    fl_ice_map *props = &out->properties;
    props->items = fl_arena_calloc(a, json_object_size(jp) + 1, sizeof *props->items);
    if (!props->items)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
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
            out->format_version = (int32_t)x;
            continue;
        }
        props->items[props->n].key = fl_arena_strdup(a, k);
        props->items[props->n].value = fl_arena_strdup(a, json_string_value(v));
        if (!props->items[props->n].key || !props->items[props->n++].value)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    return FL_OK;
}

static fl_status parse_location(json_t *body, fl_arena *a, fl_rest_create_request *out,
                                fl_error *err)
{
    const char *loc = json_string_value(json_object_get(body, "location"));
    if (!loc || !*loc)
        return FL_OK;
    char *l = fl_arena_strdup(a, loc);
    if (!l)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    size_t n = strlen(l);
    while (n > 1 && l[n - 1] == '/')
        l[--n] = '\0';
    out->location = l;
    return FL_OK;
}

fl_status fl_rest_create_request_from_json(json_t *body, fl_arena *a, fl_rest_create_request *out,
                                           fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->format_version = 2;
    fl_ice_json_ctx c = {.a = a, .err = err, .format_version = 2};
    const char *name = json_string_value(json_object_get(body, "name"));
    if (name && !(out->name = fl_arena_strdup(a, name)))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    out->stage_create = json_is_true(json_object_get(body, "stage-create"));
    json_t *schema = json_object_get(body, "schema");
    if (!json_is_object(schema))
        return fl_errorf(err, FL_EINVAL, "schema: %s", schema ? "must be an object" : "missing");
    FL_TRY(as_einval(fl_ice_json_parse_schema(&c, schema, "schema", false, &out->schema), err));
    json_t *js = json_object_get(body, "partition-spec");
    if ((out->has_spec = json_is_object(js)))
        FL_TRY(as_einval(fl_ice_json_parse_spec(&c, js, "partition-spec", &out->spec), err));
    json_t *jo = json_object_get(body, "write-order");
    if ((out->has_order = json_is_object(jo)))
        FL_TRY(as_einval(fl_ice_json_parse_sort_order(&c, jo, "write-order", &out->order), err));
    FL_TRY(parse_properties(body, a, out, err));
    return parse_location(body, a, out, err);
}
