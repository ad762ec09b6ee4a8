/*
 * rest_error.c - what a REST catalog's non-2xx answer means for floe.
 *
 *   400 BadRequest / 422          FL_EINVAL
 *   401 NotAuthorized / 419       FL_EUNAUTHENTICATED
 *   403 Forbidden                 FL_EFORBIDDEN
 *   404 NoSuch{Namespace,Table}   FL_ENOTFOUND
 *   406 / 501 Unsupported         FL_EUNSUPPORTED
 *   409 AlreadyExistsException    FL_EEXIST
 *   409 otherwise                 the caller's meaning: FL_ECONFLICT for
 *                                 commits (CommitFailedException) and
 *                                 non-empty namespaces, FL_EEXIST for creates
 *   5xx / anything else           FL_EIO; for a mutation the message says the
 *                                 outcome is unknown (the spec's
 *                                 CommitStateUnknownException): the change
 *                                 may have been applied, so callers must not
 *                                 clean up or retry blindly
 *
 * The message carries the HTTP status and the server's error type and
 * message from the IcebergErrorResponse when it sent one.
 */
#include <stdio.h>
#include <string.h>

#include "catalog/rest_internal.h"

static fl_status code_for(long status, const char *type, fl_status conflict409, bool mutation)
{
    switch (status) {
    case 400:
    case 422: return FL_EINVAL;
    case 401:
    case 419: return FL_EUNAUTHENTICATED;
    case 403: return FL_EFORBIDDEN;
    case 404: return FL_ENOTFOUND;
    case 406:
    case 501: return FL_EUNSUPPORTED;
    case 409:
        if (type && strstr(type, "AlreadyExists"))
            return FL_EEXIST;
        return conflict409;
    default: (void)mutation; return FL_EIO;
    }
}

fl_status rest_error(const rest_response *r, const char *what, fl_status conflict409,
                     bool mutation, fl_error *err)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    const char *type = NULL, *msg = NULL;
    fl_rest_error_parse(r->body, r->len, &a, &type, &msg);
    fl_status code = code_for(r->status, type, conflict409, mutation);
    char body[160] = "";
    if (!type && !msg && r->body && r->len)
        snprintf(body, sizeof body, ": %.120s", r->body);
    bool unknown = mutation && code == FL_EIO;
    fl_errorf(err, code, "%s: HTTP %ld%s%s%s%s%s%s", what, r->status, type ? " " : "",
              type ? type : "", msg ? ": " : "", msg ? msg : "", body,
              unknown ? " (commit state unknown: the change may or may not have been applied; "
                        "reload to check)"
                      : "");
    fl_arena_free(&a);
    return code;
}
