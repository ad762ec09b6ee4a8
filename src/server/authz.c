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

static bool visible(fl_server_request *r, const fl_namespace *ns, const char *object)
{
    if (r->principal.anonymous || !r->srv->auth)
        return true;
    bool v = false;
    fl_error err = {0};
    /* cannot be decided: not shown */
    return fl_auth_visible(r->srv->auth, &r->principal, ns, object, &v, &err) == FL_OK && v;
}

bool srv_may_read(fl_server_request *r, const fl_namespace *ns, const char *object)
{
    if (r->principal.anonymous || !r->srv->auth)
        return true;
    fl_error err = {0};
    return visible(r, ns, object) &&
           fl_auth_authorize(r->srv->auth, &r->principal, FL_PRIV_READ, ns, object, &err) == FL_OK;
}

bool srv_authorize_listing(fl_server_request *r, const fl_namespace *ns)
{
    if (visible(r, ns && ns->nlevels ? ns : NULL, NULL))
        return true;
    const char *target = ns && ns->nlevels ? fl_namespace_str(ns, &r->arena) : "the catalog";
    fl_server_respond_error(r, 403, "ForbiddenException",
                            "principal '%s' lacks privilege to list %s%s%s: it holds no privilege "
                            "on, above or inside it",
                            r->principal.name, ns && ns->nlevels ? "namespace '" : "",
                            target ? target : "?", ns && ns->nlevels ? "'" : "");
    return false;
}

uint32_t srv_filter_visible(fl_server_request *r, const fl_namespace *ns, const char **names,
                            uint32_t n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (visible(r, ns, names[i]))
            names[k++] = names[i];
    return k;
}

uint32_t srv_filter_visible_ns(fl_server_request *r, fl_namespace *kids, uint32_t n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (visible(r, &kids[i], NULL))
            kids[k++] = kids[i];
    return k;
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
