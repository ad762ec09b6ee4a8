/*
 * view_check.c - a definer view may be created only by a principal that can
 * read what it reads (docs/security.md, "Views").
 *
 * A REST client sends the view's SQL in its own engine's dialect. The server
 * plans each SQL representation (floe's dialect first) in an engine session
 * authorized as the sender, with the view's default namespace, without
 * running it. A refusal (42501) refuses the request with 403 and the
 * engine's message. SQL floe cannot parse or bind (another engine's syntax
 * or functions) is accepted: the view then reads nothing the definer may
 * not, because every read of it is checked with the definer's rights.
 * Invoker views and development mode (anonymous) need no check.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "floe/ice_view.h"
#include "floe/sql.h"
#include "server/server_internal.h"

static const char *dotted(const fl_ice_view_version *v, fl_arena *a)
{
    if (!v->ndefault_namespace)
        return NULL;
    fl_namespace ns = {v->ndefault_namespace, v->default_namespace};
    return fl_namespace_str(&ns, a);
}

/* FL_EFORBIDDEN when the engine refuses to plan sql as the request's principal. */
static fl_status plan_as_sender(fl_server_request *r, const char *ns, const char *sql,
                                fl_error *err)
{
    fl_sql_options o;
    memset(&o, 0, sizeof o);
    o.catalog = srv_cat(r);
    o.io = r->srv->io;
    o.default_namespace = ns;
    o.cache = r->srv->opt.sql_cache;
    o.user = r->principal.name;
    o.auth = r->srv->auth;
    o.principal = &r->principal;
    o.threads = 1;
    fl_sql_session *s = NULL;
    fl_error e = {0};
    if (!o.catalog || fl_sql_session_open(&o, &s, &e) != FL_OK)
        return FL_OK; /* no engine to ask: reads are checked as the definer anyway */
    fl_sql_stmt *st = NULL;
    fl_status rc = fl_sql_prepare(s, sql, &st, &e);
    fl_sql_error_info info;
    fl_sql_last_error(s, &info);
    fl_sql_stmt_close(st);
    fl_sql_session_close(s);
    if (rc != FL_OK && (rc == FL_EFORBIDDEN || !strcmp(info.sqlstate, "42501")))
        return fl_errorf(err, FL_EFORBIDDEN,
                         "a view runs with its definer's rights, and %s cannot read what it "
                         "reads: %s",
                         r->principal.name, e.msg);
    return FL_OK;
}

fl_status srv_view_reads_check(fl_server_request *r, const fl_ice_view_version *v,
                               fl_error *err)
{
    if (!v || r->principal.anonymous || !r->srv->auth)
        return FL_OK;
    const char *sec = fl_ice_map_get(&v->summary, FL_ICE_VIEW_SECURITY);
    if (sec && !strcasecmp(sec, "invoker"))
        return FL_OK;
    const char *ns = dotted(v, &r->arena);
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < v->nrepresentations; i++) {
            const fl_ice_view_representation *rep = &v->representations[i];
            bool floe = rep->dialect && !strcasecmp(rep->dialect, "floe");
            if (!rep->sql || (pass == 0) != floe)
                continue;
            FL_TRY(plan_as_sender(r, ns, rep->sql, err));
        }
    return FL_OK;
}
