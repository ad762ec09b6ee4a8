/*
 * update_json.c - CommitTableRequest JSON -> fl_ice_requirement / fl_ice_update
 * (REST spec components TableRequirement and TableUpdate).
 *
 * The elements are parsed by the REST client's parsers
 * (src/rest/rest_json_update.c: fl_rest_update_from_json and
 * fl_rest_requirement_from_json), so the server accepts exactly what the
 * client sends. Every field is type-checked; an unknown "action" or "type",
 * a missing field or a wrong type is FL_EINVAL naming the element
 * ("updates[2].snapshot.manifest-list: missing"), which the handlers answer
 * with 400. Strings and arrays are copied into the caller's arena, so the
 * json_t may be freed afterwards.
 */
#include <stdio.h>
#include <string.h>

#include "floe/rest.h"
#include "server/server_internal.h"

#define BAD(...) fl_errorf(err, FL_EINVAL, __VA_ARGS__)

fl_status srv_parse_update(json_t *o, const char *path, fl_arena *a, fl_ice_update *u,
                           fl_error *err)
{
    fl_status rc = fl_rest_update_from_json(o, path, a, u, err);
    if (rc == FL_EUNSUPPORTED) /* a view action sent to a table */
        return BAD("%s: not a table update (%s)", path, err->msg);
    return rc;
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
        FL_TRY(fl_rest_requirement_from_json(json_array_get(reqs, i), path, a, &out->req[i], err));
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
