/*
 * json.c - request bodies in, JSON responses out, libfloe status -> HTTP.
 *
 * Request bodies: the nesting depth is measured on the raw text first
 * (counting '[' and '{' outside strings) so that a deeply nested document is
 * refused with 400 before jansson recurses into it; the body size limit was
 * already applied while reading (413, http.c). Integers are parsed as 64-bit
 * (jansson json_int_t = long long), so snapshot ids above 2^53 stay exact.
 *
 * Status mapping (the spec's exception types, ErrorModel bodies):
 *   FL_ENOTFOUND 404 (caller names the type), FL_EEXIST 409 AlreadyExists,
 *   FL_ECONFLICT 409 CommitFailed, FL_EINVAL/ESYNTAX/ECORRUPT/ETYPE 400,
 *   FL_EUNSUPPORTED 406, FL_EUNAUTHENTICATED 401, FL_EFORBIDDEN 403,
 *   FL_ELIMIT 413, anything else 500.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/json_depth.h"
#include "floe/rest.h"
#include "server/server_internal.h"

json_t *srv_body_json(fl_server_request *r)
{
    if (!r->body_len) {
        fl_server_respond_error(r, 400, "BadRequestException", "missing request body");
        return NULL;
    }
    unsigned d = fl_json_depth(r->body, r->body_len);
    if (d > r->srv->opt.max_json_depth) {
        fl_server_respond_error(r, 400, "BadRequestException",
                                "request body nests %u levels deep, more than the limit of %u", d,
                                r->srv->opt.max_json_depth);
        return NULL;
    }
    json_error_t je;
    json_t *j = json_loadb(r->body, r->body_len, 0,
                           &je);
    if (!j) {
        fl_server_respond_error(r, 400, "BadRequestException",
                                "malformed JSON body at line %d column %d: %s", je.line,
                                je.column, je.text);
        return NULL;
    }
    if (!json_is_object(j)) {
        json_decref(j);
        fl_server_respond_error(r, 400, "BadRequestException",
                                "request body must be a JSON object");
        return NULL;
    }
    return j;
}

void srv_respond_json(fl_server_request *r, int status, json_t *j)
{
    if (!j) {
        fl_server_respond_error(r, 500, "InternalServerError", "out of memory");
        return;
    }
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    if (!s) {
        fl_server_respond_error(r, 500, "InternalServerError", "out of memory");
        return;
    }
    fl_server_respond(r, status, "application/json", s, strlen(s));
    free(s);
}

void srv_respond_status(fl_server_request *r, fl_status rc, const fl_error *err, const char *what)
{
    const char *msg = err && err->msg[0] ? err->msg : fl_status_name(rc);
    switch (rc) {
    case FL_ENOTFOUND:
        fl_server_respond_error(r, 404, what ? what : "NotFoundException", "%s", msg);
        break;
    case FL_EEXIST:
        fl_server_respond_error(r, 409, "AlreadyExistsException", "%s", msg);
        break;
    case FL_ECONFLICT:
        fl_server_respond_error(r, 409, "CommitFailedException", "%s", msg);
        break;
    case FL_EINVAL:
    case FL_ESYNTAX:
    case FL_ECORRUPT:
    case FL_ETYPE:
    case FL_EOVERFLOW:
        fl_server_respond_error(r, 400, "BadRequestException", "%s", msg);
        break;
    case FL_EUNSUPPORTED:
        fl_server_respond_error(r, 406, "UnsupportedOperationException", "%s", msg);
        break;
    case FL_EUNAUTHENTICATED:
        fl_server_respond_error(r, 401, "NotAuthorizedException", "%s", msg);
        break;
    case FL_EFORBIDDEN:
        fl_server_respond_error(r, 403, "ForbiddenException", "%s", msg);
        break;
    case FL_ELIMIT:
        fl_server_respond_error(r, 413, "RequestTooLargeException", "%s", msg);
        break;
    default:
        fl_server_respond_error(r, 500, "InternalServerError", "%s", msg);
        break;
    }
}

bool srv_ns_param(fl_server_request *r, const char *param, fl_namespace *ns)
{
    const char *v = fl_server_req_param(r, param);
    memset(ns, 0, sizeof *ns);
    if (!v || !*v) {
        fl_server_respond_error(r, 400, "BadRequestException", "missing namespace");
        return false;
    }
    uint32_t n = 1;
    for (const char *p = v; *p; p++)
        n += *p == '\x1f';
    const char **lv = fl_arena_calloc(&r->arena, n, sizeof *lv);
    if (!lv) {
        fl_server_respond_error(r, 500, "InternalServerError", "out of memory");
        return false;
    }
    const char *p = v;
    for (uint32_t i = 0; i < n; i++) {
        const char *e = strchr(p, '\x1f');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (!len) {
            fl_server_respond_error(r, 400, "BadRequestException",
                                    "namespace has an empty level");
            return false;
        }
        lv[i] = fl_arena_strndup(&r->arena, p, len);
        p += len + 1;
    }
    ns->nlevels = n;
    ns->levels = lv;
    return true;
}

json_t *srv_ns_json(const fl_namespace *ns)
{
    json_t *a = json_array();
    for (uint32_t i = 0; a && i < ns->nlevels; i++)
        json_array_append_new(a, json_string(ns->levels[i]));
    return a;
}

bool srv_ns_from_json(fl_server_request *r, json_t *arr, const char *what, fl_namespace *ns)
{
    fl_error err = {0};
    return srv_codec_ok(r, fl_rest_namespace_from_json(arr, what, &r->arena, ns, &err), &err);
}

bool srv_codec_ok(fl_server_request *r, fl_status rc, const fl_error *err)
{
    if (rc == FL_OK)
        return true;
    if (rc == FL_ENOMEM)
        fl_server_respond_error(r, 500, "InternalServerError", "out of memory");
    else /* a well-formed request the Java reference refuses with IllegalArgumentException
          * (which its client throws as such): a view version with two queries of a dialect */
        fl_server_respond_error(r, 400,
                                strstr(err->msg, "Invalid view version: ") ? "IllegalArgumentException"
                                                                           : "BadRequestException",
                                "%s", err->msg);
    return false;
}

const char *srv_ns_dotted(const fl_namespace *ns, fl_arena *a)
{
    return fl_namespace_str(ns, a);
}
