/*
 * open.c - opening a catalog from a URI, and the small name helpers of
 * catalog_internal.h.
 *
 * URIs for fl_catalog_open_uri: "sqlite:PATH" (also SQLAlchemy's
 * "sqlite:///abs/path", as PyIceberg's SqlCatalog writes it),
 * "postgresql://..." / "postgres://..." (handed to libpq as is), "fs:PATH"
 * (filesystem catalog; PATH is its warehouse, the warehouse argument is
 * ignored), "http://..." / "https://..." (Iceberg REST catalog, rest_uri.c;
 * the warehouse argument is the root of new table locations, NULL = the
 * server chooses).
 */
#include <stdio.h>
#include <string.h>

#include "catalog/catalog_internal.h"
#include "catalog/rest_internal.h"

fl_status fl_catalog_open_uri(const char *uri, const char *catalog_name, const char *warehouse,
                              fl_fileio *io, fl_catalog **out, fl_error *err)
{
    if (!uri)
        return fl_errorf(err, FL_EINVAL, "catalog URI: NULL");
    if (strncmp(uri, "sqlite:", 7) == 0) {
        const char *path = uri + 7;
        if (strncmp(path, "//", 2) == 0) /* SQLAlchemy style: sqlite:///abs/path */
            path += 2;
        return fl_catalog_sqlite_open(path, catalog_name, warehouse, io, out, err);
    }
    if (strncmp(uri, "postgresql://", 13) == 0 || strncmp(uri, "postgres://", 11) == 0)
        return fl_catalog_postgres_open(uri, catalog_name, warehouse, io, out, err);
    if (strncmp(uri, "fs:", 3) == 0) {
        FL_TRY(fl_catalog_fs_open(uri + 3, io, out, err));
        (void)warehouse; /* the fs catalog's warehouse is its root */
        return FL_OK;
    }
    if (strncmp(uri, "http://", 7) == 0 || strncmp(uri, "https://", 8) == 0)
        return fl_catalog_rest_open_uri(uri, catalog_name, warehouse, io, out, err);
    return fl_errorf(err, FL_EINVAL,
                     "catalog URI '%s': expected sqlite:PATH, postgresql://..., fs:PATH or "
                     "http(s)://host[:port][/path] (REST)",
                     uri);
}

void fl_catalog_close(fl_catalog *c)
{
    if (c)
        c->ops->close(c);
}

/* ---- catalog_internal.h helpers ---- */

const char *fl_cat_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

bool fl_cat_parse_i64(const char *s, size_t len, int64_t *out)
{
    if (len == 0 || len > 18)
        return false;
    int64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

fl_status fl_cat_ns_join(const fl_namespace *ns, fl_arena *a, const char **out, fl_error *err)
{
    size_t cap = 1;
    for (uint32_t i = 0; i < ns->nlevels; i++) {
        const char *l = ns->levels[i];
        if (!*l || strchr(l, '.'))
            return fl_errorf(
                err, FL_EINVAL,
                "namespace level '%s' is empty or contains '.', which the JDBC catalog "
                "layout (dot-joined namespaces) cannot store",
                l);
        cap += strlen(l) + 1;
    }
    char *buf = fl_arena_alloc(a, cap);
    if (!buf)
        return fl_errorf(err, FL_ENOMEM, "namespace: out of memory");
    size_t o = 0;
    for (uint32_t i = 0; i < ns->nlevels; i++) {
        if (i)
            buf[o++] = '.';
        size_t l = strlen(ns->levels[i]);
        memcpy(buf + o, ns->levels[i], l);
        o += l;
    }
    buf[o] = '\0';
    *out = buf;
    return FL_OK;
}

fl_namespace fl_cat_ns_split(const char *s, fl_arena *a)
{
    fl_namespace ns = {0, NULL};
    if (!s || !*s)
        return ns;
    uint32_t n = 1;
    for (const char *p = s; *p; p++)
        n += *p == '.';
    const char **lv = fl_arena_alloc(a, n * sizeof *lv);
    if (!lv)
        return ns;
    uint32_t k = 0;
    const char *start = s;
    for (const char *p = s;; p++) {
        if (*p == '.' || !*p) {
            lv[k++] = fl_arena_strndup(a, start, (size_t)(p - start));
            if (!*p)
                break;
            start = p + 1;
        }
    }
    ns.levels = lv;
    ns.nlevels = k;
    return ns;
}
