/*
 * fs_util.c - filesystem catalog helpers: directory paths of namespaces and
 * tables, whole-file reads/writes through the FileIO, and listings that
 * tell table directories (holding metadata/v<N>.metadata.json or
 * metadata/version-hint.text) from namespace directories (everything else
 * with content). See fs.c for the layout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/fs_internal.h"

fl_status fs_oom(fl_error *err)
{
    return fl_errorf(err, FL_ENOMEM, "fs catalog: out of memory");
}

/* ---- paths ---- */

static fl_status check_level(const char *l, fl_error *err)
{
    if (!*l || strchr(l, '/') || strcmp(l, ".") == 0 || strcmp(l, "..") == 0)
        return fl_errorf(err, FL_EINVAL, "fs catalog: '%s' cannot be a directory name", l);
    return FL_OK;
}

/* <root>/<levels...>[/<name>] */
fl_status fs_dir_of(fs_catalog *c, const fl_namespace *ns, const char *name, fl_arena *a,
                    const char **out, fl_error *err)
{
    size_t cap = strlen(c->root) + 2 + (name ? strlen(name) + 1 : 0);
    for (uint32_t i = 0; i < ns->nlevels; i++) {
        FL_TRY(check_level(ns->levels[i], err));
        cap += strlen(ns->levels[i]) + 1;
    }
    if (name)
        FL_TRY(check_level(name, err));
    char *p = fl_arena_alloc(a, cap);
    if (!p)
        return fs_oom(err);
    size_t o = (size_t)sprintf(p, "%s", c->root);
    for (uint32_t i = 0; i < ns->nlevels; i++)
        o += (size_t)sprintf(p + o, "/%s", ns->levels[i]);
    if (name)
        sprintf(p + o, "/%s", name);
    *out = p;
    return FL_OK;
}

fl_status fs_table_dir(fs_catalog *c, const fl_table_ident *id, fl_arena *a, const char **out,
                       fl_error *err)
{
    return fs_dir_of(c, &id->ns, id->name, a, out, err);
}

/* ---- small file helpers ---- */

fl_status fs_file_exists(fl_fileio *io, const char *path, bool *yes, fl_error *err)
{
    fl_file *f;
    fl_status rc = fl_fileio_open(io, path, &f, err);
    *yes = rc == FL_OK;
    if (rc == FL_OK)
        fl_file_close(f);
    return rc == FL_ENOTFOUND ? FL_OK : rc;
}

/* Reads a whole file (at most limit bytes) into an arena buffer, NUL-terminated. */
fl_status fs_read_all(fl_fileio *io, const char *path, size_t limit, fl_arena *a, char **buf,
                      size_t *len, fl_error *err)
{
    fl_file *f;
    FL_TRY(fl_fileio_open(io, path, &f, err));
    fl_status rc = FL_OK;
    if (f->size > limit)
        rc = fl_errorf(err, FL_ELIMIT, "%s: %llu bytes, more than the %zu allowed", path,
                       (unsigned long long)f->size, limit);
    else if (!(*buf = fl_arena_alloc(a, (size_t)f->size + 1)))
        rc = fs_oom(err);
    else
        rc = fl_file_read_at(f, 0, *buf, (size_t)f->size, err);
    if (rc == FL_OK) {
        *len = (size_t)f->size;
        (*buf)[*len] = '\0';
    }
    fl_file_close(f);
    return rc;
}

fl_status fs_write_all(fl_fileio *io, const char *path, int flags, const void *data, size_t len,
                       fl_error *err)
{
    fl_output *o;
    FL_TRY(fl_fileio_create(io, path, flags, &o, err));
    fl_status rc = fl_output_write(o, data, len, err);
    if (rc != FL_OK) {
        fl_output_abort(o);
        return rc;
    }
    return fl_output_close(o, err);
}

/* ---- listing ---- */

static fl_status collect(void *ctx, const char *path, uint64_t size)
{
    (void)size;
    rel_list *l = ctx;
    if (strlen(path) < l->skip)
        return FL_OK; /* not below the listed prefix (a FileIO that rewrote it) */
    if (l->n == l->cap) {
        uint32_t nc = l->cap ? l->cap * 2 : 64;
        const char **np = fl_arena_alloc(l->a, nc * sizeof *np);
        if (!np)
            return fs_oom(l->err);
        if (l->n)
            memcpy(np, l->paths, l->n * sizeof *np);
        l->paths = np;
        l->cap = nc;
    }
    if (!(l->paths[l->n++] = fl_arena_strdup(l->a, path + l->skip)))
        return fs_oom(l->err);
    return l->stop_at_first ? FL_ECANCELED : FL_OK;
}

/* Paths (relative to dir/) of the objects under dir. */
fl_status fs_list_under(fs_catalog *c, const char *dir, bool first_only, fl_arena *a, rel_list *l,
                        fl_error *err)
{
    const char *prefix = fl_arena_sprintf(a, "%s/", dir);
    if (!prefix)
        return fs_oom(err);
    *l = (rel_list){a, strlen(prefix), NULL, 0, 0, first_only, err};
    fl_status rc = c->base.io->ops->list(c->base.io, prefix, collect, l, err);
    if (rc == FL_ECANCELED && first_only) {
        fl_error_clear(err);
        return FL_OK;
    }
    return rc;
}

/* Is rel ("t/metadata/v1.metadata.json") a table marker file; *name_len = length of "t". */
static bool table_marker(const char *rel, size_t *name_len)
{
    const char *slash = strchr(rel, '/');
    if (!slash || strncmp(slash + 1, "metadata/", 9) != 0)
        return false;
    const char *file = slash + 10;
    if (strchr(file, '/'))
        return false;
    *name_len = (size_t)(slash - rel);
    return strcmp(file, HINT_NAME) == 0 || fl_ice_is_metadata_name(file);
}

static bool name_in(const char *const *names, uint32_t n, const char *s, size_t len)
{
    for (uint32_t i = 0; i < n; i++)
        if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
            return true;
    return false;
}

/* Sorted unique first components of l: tables, or namespaces (the others). */
fl_status fs_first_components(const rel_list *l, bool tables, fl_arena *a, const char ***out,
                              uint32_t *n, fl_error *err)
{
    const char **tbl = fl_arena_alloc(a, (l->n + 1) * sizeof *tbl);
    const char **res = fl_arena_alloc(a, (l->n + 1) * sizeof *res);
    if (!tbl || !res)
        return fs_oom(err);
    uint32_t nt = 0, nr = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        size_t len;
        if (table_marker(l->paths[i], &len) && !name_in(tbl, nt, l->paths[i], len))
            tbl[nt++] = fl_arena_strndup(a, l->paths[i], len);
    }
    for (uint32_t i = 0; i < l->n; i++) {
        const char *p = l->paths[i], *slash = strchr(p, '/');
        if (!slash)
            continue; /* a file directly in the directory */
        size_t len = (size_t)(slash - p);
        bool is_tbl = name_in(tbl, nt, p, len);
        if (is_tbl == tables && !name_in(res, nr, p, len))
            res[nr++] = fl_arena_strndup(a, p, len);
    }
    for (uint32_t i = 1; i < nr; i++) /* insertion sort: listings are small */
        for (uint32_t j = i; j > 0 && strcmp(res[j - 1], res[j]) > 0; j--) {
            const char *t = res[j];
            res[j] = res[j - 1];
            res[j - 1] = t;
        }
    *out = res;
    *n = nr;
    return FL_OK;
}

/* ---- namespaces ---- */

static fl_status ns_exists(fs_catalog *c, const char *dir, fl_arena *a, bool *yes, fl_error *err)
{
    rel_list l;
    FL_TRY(fs_list_under(c, dir, true, a, &l, err));
    *yes = l.n > 0;
    return FL_OK;
}

fl_status fs_ns_dir_checked(fs_catalog *c, const fl_namespace *ns, bool must_exist, fl_arena *a,
                            const char **dir, fl_error *err)
{
    FL_TRY(fs_dir_of(c, ns, NULL, a, dir, err));
    if (ns->nlevels == 0)
        return FL_OK;
    bool yes;
    FL_TRY(ns_exists(c, *dir, a, &yes, err));
    if (yes != must_exist)
        return yes ? fl_errorf(err, FL_EEXIST, "namespace %s already exists", *dir)
                   : fl_errorf(err, FL_ENOTFOUND, "namespace %s does not exist", *dir);
    return FL_OK;
}
