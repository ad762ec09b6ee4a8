/*
 * ident.c - table identifiers and namespaces as text, and default table
 * locations (the warehouse folder layout).
 *
 * Text form: levels separated by '.'; a level containing '.' or '"' is
 * written in double quotes with '"' doubled inside ("a.b"."x""y".t). Empty
 * levels are rejected. A table identifier's last level is its name; the
 * namespace may then be empty ("t" = table t at the top level).
 */
#include <stdio.h>
#include <string.h>

#include "floe/catalog.h"

#define MAX_LEVELS 64

/* Reads one level starting at s[*pos] into the arena; *pos ends after it. */
static fl_status parse_level(const char *s, size_t *pos, fl_arena *a, const char **out,
                             fl_error *err)
{
    size_t i = *pos;
    if (s[i] != '"') {
        size_t start = i;
        while (s[i] && s[i] != '.') {
            if (s[i] == '"')
                return fl_errorf(err, FL_EINVAL, "identifier '%s': unexpected '\"' at offset %zu",
                                 s, i);
            i++;
        }
        if (i == start)
            return fl_errorf(err, FL_EINVAL, "identifier '%s': empty level at offset %zu", s, i);
        *out = fl_arena_strndup(a, s + start, i - start);
        *pos = i;
        return *out ? FL_OK : fl_errorf(err, FL_ENOMEM, "identifier: out of memory");
    }
    size_t len = strlen(s);
    char *buf = fl_arena_alloc(a, len + 1);
    if (!buf)
        return fl_errorf(err, FL_ENOMEM, "identifier: out of memory");
    size_t o = 0;
    for (i++;; i++) {
        if (!s[i])
            return fl_errorf(err, FL_EINVAL, "identifier '%s': unterminated quote", s);
        if (s[i] == '"' && s[i + 1] == '"') {
            buf[o++] = '"';
            i++;
        } else if (s[i] == '"') {
            break;
        } else {
            buf[o++] = s[i];
        }
    }
    i++;
    if (o == 0)
        return fl_errorf(err, FL_EINVAL, "identifier '%s': empty quoted level", s);
    if (s[i] && s[i] != '.')
        return fl_errorf(err, FL_EINVAL, "identifier '%s': expected '.' at offset %zu", s, i);
    buf[o] = '\0';
    *out = buf;
    *pos = i;
    return FL_OK;
}

static fl_status parse_levels(const char *s, fl_arena *a, const char ***levels, uint32_t *n,
                              fl_error *err)
{
    const char **lv = fl_arena_alloc(a, MAX_LEVELS * sizeof *lv);
    if (!lv)
        return fl_errorf(err, FL_ENOMEM, "identifier: out of memory");
    uint32_t k = 0;
    size_t pos = 0;
    while (s[pos]) {
        if (k == MAX_LEVELS)
            return fl_errorf(err, FL_ELIMIT, "identifier '%.200s': more than %d levels", s,
                             MAX_LEVELS);
        FL_TRY(parse_level(s, &pos, a, &lv[k++], err));
        if (s[pos] == '.') {
            pos++;
            if (!s[pos])
                return fl_errorf(err, FL_EINVAL, "identifier '%s': trailing '.'", s);
        }
    }
    *levels = lv;
    *n = k;
    return FL_OK;
}

fl_status fl_namespace_parse(const char *s, fl_arena *a, fl_namespace *out, fl_error *err)
{
    if (!s)
        return fl_errorf(err, FL_EINVAL, "namespace: NULL");
    const char **lv;
    uint32_t n;
    FL_TRY(parse_levels(s, a, &lv, &n, err));
    out->levels = lv;
    out->nlevels = n;
    return FL_OK;
}

fl_status fl_table_ident_parse(const char *s, fl_arena *a, fl_table_ident *out, fl_error *err)
{
    if (!s || !*s)
        return fl_errorf(err, FL_EINVAL, "table identifier: empty");
    const char **lv;
    uint32_t n;
    FL_TRY(parse_levels(s, a, &lv, &n, err));
    out->name = lv[n - 1];
    out->ns.levels = lv;
    out->ns.nlevels = n - 1;
    return FL_OK;
}

/* Appends level l (quoted when needed) at buf+o; returns the new offset. */
static size_t put_level(char *buf, size_t o, const char *l)
{
    bool quote = strchr(l, '.') || strchr(l, '"') || !*l;
    if (quote)
        buf[o++] = '"';
    for (const char *p = l; *p; p++) {
        if (*p == '"' && quote)
            buf[o++] = '"';
        buf[o++] = *p;
    }
    if (quote)
        buf[o++] = '"';
    return o;
}

static const char *join_levels(const char *const *lv, uint32_t n, const char *last, fl_arena *a)
{
    size_t cap = 1;
    for (uint32_t i = 0; i < n; i++)
        cap += 2 * strlen(lv[i]) + 3;
    if (last)
        cap += 2 * strlen(last) + 3;
    char *buf = fl_arena_alloc(a, cap);
    if (!buf)
        return NULL;
    size_t o = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            buf[o++] = '.';
        o = put_level(buf, o, lv[i]);
    }
    if (last) {
        if (n)
            buf[o++] = '.';
        o = put_level(buf, o, last);
    }
    buf[o] = '\0';
    return buf;
}

const char *fl_namespace_str(const fl_namespace *ns, fl_arena *a)
{
    return join_levels(ns->levels, ns->nlevels, NULL, a);
}

const char *fl_table_ident_str(const fl_table_ident *id, fl_arena *a)
{
    return join_levels(id->ns.levels, id->ns.nlevels, id->name, a);
}

/* Percent-encodes one identifier level into buf (room for 3 bytes per
 * input byte + 2); marked levels start with '~' (catalog.h). Returns the
 * length written. */
static size_t put_folder(char *buf, const char *l, bool marked)
{
    static const char HEX[] = "0123456789ABCDEF";
    size_t o = 0;
    if (marked)
        buf[o++] = '~';
    for (const unsigned char *p = (const unsigned char *)l; *p; p++) {
        bool keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p >= 0x80 ||
                    (*p == '.' && p != (const unsigned char *)l);
        if (keep) {
            buf[o++] = (char)*p;
        } else {
            buf[o++] = '%';
            buf[o++] = HEX[*p >> 4];
            buf[o++] = HEX[*p & 15];
        }
    }
    return o;
}

/* <warehouse>/<folders> for ns's levels, then name's folder when name is
 * not NULL (the layout of catalog.h). */
static const char *folders(const fl_catalog *c, const fl_namespace *ns, const char *name,
                           fl_arena *a)
{
    const char *wh = c->warehouse ? c->warehouse : "";
    size_t wl = strlen(wh);
    while (wl > 1 && wh[wl - 1] == '/')
        wl--;
    size_t cap = wl + (name ? 3 * strlen(name) : 0) + 4;
    for (uint32_t i = 0; i < ns->nlevels; i++)
        cap += 3 * strlen(ns->levels[i]) + 2;
    char *buf = fl_arena_alloc(a, cap);
    if (!buf)
        return NULL;
    memcpy(buf, wh, wl);
    size_t o = wl;
    uint32_t n = ns->nlevels + (name ? 1 : 0);
    for (uint32_t i = 0; i < n; i++) {
        bool table = i == ns->nlevels;
        const char *l = table ? name : ns->levels[i];
        /* nested namespace levels and tables without a namespace carry the
         * mark: they share a parent folder with plain siblings */
        bool marked = table ? ns->nlevels == 0 : i > 0;
        if (o && buf[o - 1] != '/')
            buf[o++] = '/';
        o += put_folder(buf + o, l, marked);
    }
    buf[o] = '\0';
    return buf;
}

const char *fl_catalog_default_location(const fl_catalog *c, const fl_table_ident *id, fl_arena *a)
{
    return folders(c, &id->ns, id->name, a);
}

const char *fl_catalog_table_location(const fl_catalog *c, const fl_table_ident *id,
                                      const char *ns_location, fl_arena *a)
{
    if (!ns_location || !*ns_location || !id->ns.nlevels)
        return fl_catalog_default_location(c, id, a);
    size_t wl = strlen(ns_location);
    while (wl > 1 && ns_location[wl - 1] == '/')
        wl--;
    char *buf = fl_arena_alloc(a, wl + 3 * strlen(id->name) + 2);
    if (!buf)
        return NULL;
    memcpy(buf, ns_location, wl);
    size_t o = wl;
    if (buf[o - 1] != '/')
        buf[o++] = '/';
    /* a table inside a namespace: a plain folder (catalog.h) */
    o += put_folder(buf + o, id->name, false);
    buf[o] = '\0';
    return buf;
}

const char *fl_catalog_namespace_location(const fl_catalog *c, const fl_namespace *ns, fl_arena *a)
{
    return ns->nlevels ? folders(c, ns, NULL, a) : NULL;
}
