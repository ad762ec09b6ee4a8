/*
 * authz.c - the server's use of auth.h: authorization checks that answer
 * 403 in the spec's ErrorModel, and audit records for every mutation.
 *
 * In --insecure-no-auth mode there is no fl_auth: every check passes and
 * audit records still go to the structured log (stderr) so a development
 * server leaves the same trail.
 */
#include <stdio.h>
#include <string.h>

#include "server/server_internal.h"

bool srv_authorize(fl_server_request *r, fl_privilege priv, const fl_namespace *ns,
                   const char *object)
{
    if (r->principal.anonymous || !r->srv->auth)
        return true;
    fl_error err = {0};
    fl_status rc = fl_auth_authorize(r->srv->auth, &r->principal, priv, ns, object, &err);
    if (rc == FL_OK)
        return true;
    const char *target = ns ? fl_namespace_str(ns, &r->arena) : "catalog";
    if (object && target)
        target = fl_arena_sprintf(&r->arena, "%s.%s", target, object);
    if (rc == FL_EFORBIDDEN) {
        if (priv != FL_PRIV_READ)
            srv_audit(r, fl_privilege_name(priv), target ? target : "?", "denied", err.msg);
        fl_server_respond_error(r, 403, "ForbiddenException", "%s", err.msg);
    } else {
        srv_respond_status(r, rc, &err, NULL);
    }
    return false;
}

void srv_audit(fl_server_request *r, const char *action, const char *target, const char *outcome,
               const char *detail)
{
    if (r->srv->auth)
        fl_auth_audit(r->srv->auth, &r->principal, action, target, outcome, r->request_id,
                      detail);
    else
        srv_log("info", "audit", "principal=%s action=%s target=%s outcome=%s request=%s%s%s",
                r->principal.name, action, target, outcome, r->request_id, detail ? " detail=" : "",
                detail ? detail : "");
}
