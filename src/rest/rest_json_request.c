/*
 * rest_json_request.c - request bodies of the REST catalog (floe/rest.h):
 *
 *   CommitTableRequest {["identifier":{"namespace":[..],"name":N},]
 *                       "requirements":[TableRequirement],"updates":[TableUpdate]}
 *   CreateTableRequest {"name":N,["location":L,]"schema":S,"partition-spec":P,
 *                       "write-order":O,["stage-create":true,]"properties":{..}}
 *
 * The create request carries the template's current schema (its field ids;
 * the server assigns fresh ones and remaps the spec and order, as Java's
 * server does), its default spec and sort order, and the properties plus
 * "format-version" (how Java's client asks for a format version).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/ice_json.h"
#include "floe/rest.h"

static fl_status oom(fl_error *err, const char *what)
{
    return fl_errorf(err, FL_ENOMEM, "%s: out of memory", what);
}

static fl_status dump(json_t *o, char **out, const char *what, fl_error *err)
{
    *out = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return *out ? FL_OK : oom(err, what);
}

static json_t *ident_json(const fl_table_ident *id)
{
    json_t *o = json_object(), *ns = json_array();
    bool ok = o && ns;
    for (uint32_t i = 0; ok && i < id->ns.nlevels; i++)
        ok = json_array_append_new(ns, json_string(id->ns.levels[i])) == 0;
    if (ok && fl_ice_json_set(o, "namespace", ns) &&
        fl_ice_json_set(o, "name", json_string(id->name)))
        return o;
    if (!ok)
        json_decref(ns);
    json_decref(o);
    return NULL;
}

fl_status fl_rest_commit_request_json(const fl_table_ident *id, const fl_ice_requirement *req,
                                      uint32_t nreq, const fl_ice_update *upd, uint32_t nupd,
                                      char **out, fl_error *err)
{
    *out = NULL;
    json_t *o = json_object(), *reqs = json_array(), *upds = json_array();
    if (!o || !reqs || !upds || (id && !fl_ice_json_set(o, "identifier", ident_json(id))) ||
        !fl_ice_json_set(o, "requirements", reqs)) {
        json_decref(o);
        json_decref(reqs);
        json_decref(upds);
        return oom(err, "commit request");
    }
    if (!fl_ice_json_set(o, "updates", upds)) {
        json_decref(o);
        json_decref(upds);
        return oom(err, "commit request");
    }
    for (uint32_t i = 0; i < nreq; i++) {
        json_t *j;
        fl_status rc = fl_rest_requirement_to_json(&req[i], &j, err);
        if (rc == FL_OK && json_array_append_new(reqs, j) != 0)
            rc = oom(err, "commit request");
        if (rc != FL_OK) {
            json_decref(o);
            return fl_error_prefix(err, "requirements[%u]", i);
        }
    }
    for (uint32_t i = 0; i < nupd; i++) {
        json_t *j;
        fl_status rc = fl_rest_update_to_json(&upd[i], &j, err);
        if (rc == FL_OK && json_array_append_new(upds, j) != 0)
            rc = oom(err, "commit request");
        if (rc != FL_OK) {
            json_decref(o);
            return fl_error_prefix(err, "updates[%u]", i);
        }
    }
    return dump(o, out, "commit request", err);
}

static fl_status parse_ident(json_t *o, fl_arena *a, fl_table_ident *id, fl_error *err)
{
    json_t *ns = json_object_get(o, "namespace"), *name = json_object_get(o, "name");
    if (!json_is_array(ns) || !json_is_string(name))
        return fl_errorf(err, FL_EINVAL,
                         "identifier: expected {\"namespace\": [strings], \"name\": string}");
    size_t n = json_array_size(ns);
    if (n > 64)
        return fl_errorf(err, FL_EINVAL, "identifier.namespace: more than 64 levels");
    const char **lv = fl_arena_calloc(a, n + 1, sizeof *lv);
    if (!lv)
        return oom(err, "identifier");
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(ns, i);
        if (!json_is_string(e))
            return fl_errorf(err, FL_EINVAL, "identifier.namespace[%zu]: expected a string", i);
        if (!(lv[i] = fl_arena_strdup(a, json_string_value(e))))
            return oom(err, "identifier");
    }
    id->ns.levels = lv;
    id->ns.nlevels = (uint32_t)n;
    id->name = fl_arena_strdup(a, json_string_value(name));
    return id->name ? FL_OK : oom(err, "identifier");
}

fl_status fl_rest_commit_request_from_json(json_t *root, bool strict, fl_arena *a,
                                           fl_rest_commit_request *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    json_t *reqs = json_object_get(root, "requirements"), *upds = json_object_get(root, "updates");
    json_t *ident = json_object_get(root, "identifier");
    if (strict && (!json_is_object(root) || !json_is_array(reqs) || !json_is_array(upds)))
        return fl_errorf(err, FL_EINVAL,
                         "commit request: expected an object with arrays requirements and updates");
    if (reqs && !json_is_null(reqs) && !json_is_array(reqs))
        return fl_errorf(err, FL_EINVAL, "requirements: must be an array");
    if (!json_is_array(upds))
        return fl_errorf(err, FL_EINVAL, "updates: %s", upds ? "must be an array" : "missing");
    if (strict && ident && !json_is_null(ident)) {
        out->has_identifier = true;
        FL_TRY(parse_ident(ident, a, &out->identifier, err));
    }
    size_t nr = json_is_array(reqs) ? json_array_size(reqs) : 0, nu = json_array_size(upds);
    if (nr > FL_REST_MAX_CHANGES || nu > FL_REST_MAX_CHANGES)
        return fl_errorf(err, FL_ELIMIT, "more than %d requirements or updates",
                         FL_REST_MAX_CHANGES);
    out->requirements = fl_arena_calloc(a, nr + 1, sizeof *out->requirements);
    out->updates = fl_arena_calloc(a, nu + 1, sizeof *out->updates);
    if (!out->requirements || !out->updates)
        return oom(err, "commit request");
    char path[48];
    for (size_t i = 0; i < nr; i++) {
        snprintf(path, sizeof path, "requirements[%zu]", i);
        FL_TRY(fl_rest_requirement_from_json(json_array_get(reqs, i), path, a,
                                             &out->requirements[i], err));
        out->nrequirements++;
    }
    for (size_t i = 0; i < nu; i++) {
        snprintf(path, sizeof path, "updates[%zu]", i);
        fl_status rc =
            fl_rest_update_from_json(json_array_get(upds, i), path, a, &out->updates[i], err);
        if (rc == FL_EUNSUPPORTED && !strict) { /* a view action sent to a table */
            char msg[FL_ERROR_MSG_MAX];
            snprintf(msg, sizeof msg, "%s", err->msg);
            return fl_errorf(err, FL_EINVAL, "%s: not a table update (%s)", path, msg);
        }
        FL_TRY(rc);
        out->nupdates++;
    }
    return FL_OK;
}

fl_status fl_rest_commit_request_parse(const char *buf, size_t len, fl_arena *a,
                                       fl_rest_commit_request *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    json_t *root;
    FL_TRY(fl_rest_json_load(buf, len, "commit request", &root, err));
    fl_status rc = fl_rest_commit_request_from_json(root, true, a, out, err);
    json_decref(root);
    return rc;
}

/* ---- create ---- */

/* Partition spec JSON of the default spec (without spec-id). */
static json_t *create_spec(const fl_ice_metadata *m)
{
    const fl_ice_partition_spec *s = fl_ice_metadata_spec(m, m->default_spec_id);
    json_t *o = json_object(), *fields = json_array();
    bool ok = o && fields;
    for (uint32_t i = 0; ok && s && i < s->nfields; i++) {
        const fl_ice_partition_field *f = &s->fields[i];
        json_t *fo = json_object();
        ok = fo && json_array_append_new(fields, fo) == 0 &&
             fl_ice_json_set(fo, "name", json_string(f->name)) &&
             fl_ice_json_set(fo, "transform", json_string(f->transform)) &&
             (f->multi_arg ? fl_ice_json_set(fo, "source-ids",
                                             fl_ice_json_i32_array(f->source_ids, f->nsource_ids))
                           : fl_ice_json_set(fo, "source-id", json_integer(f->source_id))) &&
             fl_ice_json_set(fo, "field-id", json_integer(f->field_id));
    }
    if (ok && fl_ice_json_set(o, "spec-id", json_integer(0)) &&
        fl_ice_json_set(o, "fields", fields))
        return o;
    if (!ok)
        json_decref(fields);
    json_decref(o);
    return NULL;
}

static json_t *create_order(const fl_ice_metadata *m)
{
    const fl_ice_sort_order *s = NULL;
    for (uint32_t i = 0; i < m->nsort_orders; i++)
        if (m->sort_orders[i].order_id == m->default_sort_order_id)
            s = &m->sort_orders[i];
    json_t *o = json_object(), *fields = json_array();
    bool ok = o && fields;
    for (uint32_t i = 0; ok && s && i < s->nfields; i++) {
        const fl_ice_sort_field *f = &s->fields[i];
        json_t *fo = json_object();
        ok = fo && json_array_append_new(fields, fo) == 0 &&
             fl_ice_json_set(fo, "transform", json_string(f->transform)) &&
             (f->multi_arg ? fl_ice_json_set(fo, "source-ids",
                                             fl_ice_json_i32_array(f->source_ids, f->nsource_ids))
                           : fl_ice_json_set(fo, "source-id", json_integer(f->source_id))) &&
             fl_ice_json_set(fo, "direction", json_string(f->descending ? "desc" : "asc")) &&
             fl_ice_json_set(fo, "null-order",
                             json_string(f->nulls_first ? "nulls-first" : "nulls-last"));
    }
    int32_t id = s && s->nfields ? s->order_id : 0;
    if (ok && fl_ice_json_set(o, "order-id", json_integer(id)) &&
        fl_ice_json_set(o, "fields", fields))
        return o;
    if (!ok)
        json_decref(fields);
    json_decref(o);
    return NULL;
}

fl_status fl_rest_create_request_json(const char *name, const fl_ice_metadata *tmpl,
                                      const char *location, bool stage, char **out, fl_error *err)
{
    *out = NULL;
    const fl_ice_schema *s = fl_ice_metadata_current_schema(tmpl);
    if (!s)
        return fl_errorf(err, FL_EINVAL, "create request: the template has no current schema");
    json_t *o = json_object(), *props = fl_ice_json_map(&tmpl->properties);
    char fv[16];
    snprintf(fv, sizeof fv, "%d", (int)tmpl->format_version);
    bool ok = o && props && fl_ice_json_set(o, "name", json_string(name)) &&
              fl_ice_json_set(props, "format-version", json_string(fv));
    if (ok && location)
        ok = fl_ice_json_set(o, "location", json_string(location));
    ok = ok && fl_ice_json_set(o, "schema", fl_ice_json_schema(s)) &&
         fl_ice_json_set(o, "partition-spec", create_spec(tmpl)) &&
         fl_ice_json_set(o, "write-order", create_order(tmpl));
    if (ok && stage)
        ok = fl_ice_json_set(o, "stage-create", json_true());
    if (ok) {
        ok = fl_ice_json_set(o, "properties", props);
        props = NULL;
    }
    json_decref(props);
    if (!ok) {
        json_decref(o);
        return oom(err, "create request");
    }
    return dump(o, out, "create request", err);
}
