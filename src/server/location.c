/*
 * location.c - table and view locations must stay inside the warehouse.
 *
 * A location (create's "location", set-location, register's metadata file,
 * a view's location) is accepted when, after dropping a "file:" scheme
 * prefix of local paths, it starts with the warehouse root or one of the
 * roots allowed by configuration (allowed_locations, e.g. another bucket)
 * followed by '/' or the end, and no path segment is "." or "..". Empty
 * segments ("a//b") are refused too, because object stores treat them as
 * distinct keys. Everything else is FL_EFORBIDDEN (HTTP 403).
 */
#include <string.h>

#include "server/server_internal.h"

static const char *strip_file(const char *s)
{
    if (!strncmp(s, "file://", 7))
        return s + 7;
    if (!strncmp(s, "file:", 5))
        return s + 5;
    return s;
}

static bool under(const char *loc, const char *root)
{
    root = strip_file(root);
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    if (strncmp(loc, root, n) != 0)
        return false;
    return loc[n] == '\0' || loc[n] == '/';
}

static bool clean_segments(const char *loc)
{
    const char *p = strstr(loc, "://");
    p = p ? p + 3 : loc;
    if (*p == '/')
        p++;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0 && e && e[1] != '\0')
            return false;
        if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
            return false;
        if (!e)
            break;
        p = e + 1;
    }
    return true;
}

fl_status srv_location_check_roots(const char *warehouse, const char *const *allowed,
                                   uint32_t nallowed, const char *loc, fl_error *err)
{
    if (!loc || !*loc)
        return fl_errorf(err, FL_EINVAL, "empty location");
    for (const char *c = loc; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == '\\')
            return fl_errorf(err, FL_EFORBIDDEN, "location '%.200s' contains a control character or backslash", loc);
    const char *l = strip_file(loc);
    if (!clean_segments(l))
        return fl_errorf(err, FL_EFORBIDDEN,
                         "location '%.200s' has a '.', '..' or empty path segment", loc);
    if (warehouse && under(l, warehouse))
        return FL_OK;
    for (uint32_t i = 0; i < nallowed; i++)
        if (under(l, allowed[i]))
            return FL_OK;
    return fl_errorf(err, FL_EFORBIDDEN,
                     "location '%.200s' is outside the warehouse '%.200s' and the allowed locations",
                     loc, warehouse ? warehouse : "");
}

fl_status srv_location_check(const fl_server *s, const char *loc, fl_error *err)
{
    return srv_location_check_roots(s->warehouse, (const char *const *)s->allowed, s->nallowed,
                                    loc, err);
}
