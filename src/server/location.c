/*
 * location.c - the server's side of storage confinement (docs/security.md,
 * "Storage confinement"; the rules live in src/catalog/location.c and
 * src/iceberg/confine.c, shared with the SQL engine and the CLI).
 *
 * The server's policy: table and view locations inside the warehouse or a
 * configured allowed-location root, and no location over the catalog
 * database (known to the SQLite catalog itself), the auth store or the
 * audit log. Every catalog handle the server opens (the pool, and the
 * handles of /v1/sql statements) carries that policy, so SQL run through the
 * server is confined exactly as REST requests are. Refusals are
 * FL_EFORBIDDEN (HTTP 403).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/server_internal.h"

fl_status srv_location_check_roots(const char *warehouse, const char *const *allowed,
                                   uint32_t nallowed, const char *loc, fl_error *err)
{
    return fl_location_check_roots(warehouse, allowed, nallowed, loc, err);
}

fl_status srv_location_check(const fl_server *s, const char *loc, fl_error *err)
{
    return srv_location_check_roots(s->warehouse, (const char *const *)s->allowed, s->nallowed, loc,
                                    err);
}

fl_status srv_object_location_check(fl_catalog *c, const fl_table_ident *id, const char *loc,
                                    fl_error *err)
{
    return fl_ice_location_check(c, id, loc, err);
}

void srv_confine(const fl_server *s, fl_catalog *c)
{
    if (c)
        c->confine = &s->confine;
}

/* An absolute copy of a local file path (the file may not exist yet). */
static char *absolute(const char *path)
{
    if (!strncmp(path, "sqlite:", 7))
        path += 7;
    if (!strncmp(path, "//", 2)) /* sqlite:///abs/path */
        path += 2;
    if (strstr(path, "://"))
        return NULL; /* not a local file (PostgreSQL) */
    char buf[PATH_MAX];
    if (realpath(path, buf))
        return strdup(buf);
    if (path[0] == '/')
        return strdup(path);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    size_t n = strlen(cwd) + strlen(path) + 2;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s/%s", cwd, path);
    return out;
}

fl_status srv_confine_init(fl_server *s, fl_error *err)
{
    (void)err;
    const char *store = s->opt.auth_store_uri ? s->opt.auth_store_uri : s->catalog_uri;
    uint32_t n = 0;
    if (store && !strncmp(store, "sqlite:", 7) && (s->protect[n] = absolute(store)))
        n++;
    if (s->opt.audit_log_path && *s->opt.audit_log_path &&
        (s->protect[n] = absolute(s->opt.audit_log_path)))
        n++;
    s->confine = (fl_location_policy){(const char *const *)s->allowed, s->nallowed,
                                      (const char *const *)s->protect, n};
    return FL_OK;
}
