/*
 * update_json.c - CommitTableRequest JSON -> srv_commit_req, by the REST
 * codec (include/floe/rest.h, src/rest): the server parses exactly what the
 * client sends, with one parser. The codec's non-strict mode is the server's
 * reading: "requirements" may be absent, an unknown "action" or "type", a
 * missing field, a wrong type or a view action is FL_EINVAL naming the
 * element ("updates[2].snapshot.manifest-list: missing"), which the handlers
 * answer with 400. Strings and arrays live in the caller's arena, so the
 * json_t may be freed afterwards.
 */
#include <string.h>

#include "floe/rest.h"
#include "server/server_internal.h"

fl_status srv_parse_commit(json_t *body, fl_arena *a, srv_commit_req *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    fl_rest_commit_request cr;
    FL_TRY(fl_rest_commit_request_from_json(body, false, a, &cr, err));
    *out = (srv_commit_req){
        .req = cr.requirements, .nreq = cr.nrequirements, .upd = cr.updates, .nupd = cr.nupdates};
    for (uint32_t i = 0; i < cr.nrequirements; i++)
        if (cr.requirements[i].kind == FL_ICE_REQ_ASSERT_CREATE)
            out->assert_create = true;
    return FL_OK;
}
