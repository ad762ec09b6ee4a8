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

/* Stored size of one level: '.' and '%' take three bytes ("%2E", "%25"). */
static size_t level_stored_len(const char *l)
{
    size_t n = 0;
    for (; *l; l++)
        n += (*l == '.' || *l == '%') ? 3 : 1;
    return n;
}

fl_status fl_cat_ns_join(const fl_namespace *ns, fl_arena *a, const char **out, fl_error *err)
{
    size_t cap = 1;
    for (uint32_t i = 0; i < ns->nlevels; i++) {
        if (!*ns->levels[i])
            return fl_errorf(err, FL_EINVAL, "namespace level %u is empty", i + 1);
        cap += level_stored_len(ns->levels[i]) + 1;
    }
    char *buf = fl_arena_alloc(a, cap);
    if (!buf)
        return fl_errorf(err, FL_ENOMEM, "namespace: out of memory");
    size_t o = 0;
    for (uint32_t i = 0; i < ns->nlevels; i++) {
        if (i)
            buf[o++] = '.';
        for (const char *p = ns->levels[i]; *p; p++) {
            if (*p == '.' || *p == '%') {
                memcpy(buf + o, *p == '.' ? "%2E" : "%25", 3);
                o += 3;
            } else {
                buf[o++] = *p;
            }
        }
    }
    buf[o] = '\0';
    *out = buf;
    return FL_OK;
}

const char *fl_cat_ns_level_decode(const char *s, size_t len, fl_arena *a)
{
    char *out = fl_arena_alloc(a, len + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '%' && i + 2 < len && s[i + 1] == '2' && (s[i + 2] == 'E' || s[i + 2] == '5')) {
            out[o++] = s[i + 2] == '5' ? '%' : '.';
            i += 2;
        } else {
            out[o++] = s[i];
        }
    }
    out[o] = '\0';
    return out;
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
            lv[k++] = fl_cat_ns_level_decode(start, (size_t)(p - start), a);
            if (!*p)
                break;
            start = p + 1;
        }
    }
    ns.levels = lv;
    ns.nlevels = k;
    return ns;
}
