/*
 * fs.c - the filesystem ("hadoop") catalog: the directory tree under the
 * warehouse is the catalog. This file: table versions and table operations;
 * namespaces are in fs_namespace.c, paths/files/listings in fs_util.c.
 *
 * Layout (Java's HadoopCatalog/HadoopTableOperations):
 *   <warehouse>/<ns level>/.../<table>/metadata/v<N>.metadata.json
 *   <warehouse>/<ns level>/.../<table>/metadata/version-hint.text   ("N")
 *   <warehouse>/<ns level>/.../.floe-namespace.json                   (floe)
 *
 * The atomic swap is the exclusive creation of v<N+1>.metadata.json
 * (FileIO create without FL_CREATE_OVERWRITE: rename-no-replace locally,
 * so the loser of a race gets FL_EEXIST). new_metadata_path() returns that
 * v<N+1> path; the caller writes the file there WITHOUT FL_CREATE_OVERWRITE
 * (FL_EEXIST from that create means another writer won: a conflict) and
 * then calls commit_table(), which checks that v<N+1> follows expected and
 * exists, and rewrites version-hint.text (a hint only: readers probe
 * v<N+1>, v<N+2>... past it, as Java does). create_table() with a
 * metadata file elsewhere (registration) copies it exclusively to
 * v1.metadata.json.
 *
 * Namespaces: a namespace exists when its directory holds any object (a
 * table, a child namespace) or a .floe-namespace.json marker, which
 * create_namespace writes and which holds the namespace properties as a
 * JSON object of strings. Property updates rewrite the marker (last
 * writer wins; no CAS). rename_table is FL_EUNSUPPORTED (table metadata
 * records its absolute location, so the directory cannot move), as in Java.
 * drop_table removes the metadata directory (data files stay; purge is
 * fl_ice_table_drop's job).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/fs_internal.h"

static const char *vpath(fl_arena *a, const char *tdir, int64_t v, bool gz)
{
    return fl_arena_sprintf(a, "%s/metadata/v%lld%s.metadata.json", tdir, (long long)v,
                            gz ? ".gz" : "");
}

/* ---- table versions ---- */

/* Highest v<N> among the metadata files of tdir (0 = none). */
static fl_status scan_versions(fs_catalog *c, const char *tdir, fl_arena *a, int64_t *max,
                               fl_error *err)
{
    rel_list l;
    const char *mdir = fl_arena_sprintf(a, "%s/metadata", tdir);
    if (!mdir)
        return fs_oom(err);
    FL_TRY(fs_list_under(c, mdir, false, a, &l, err));
    *max = 0;
    for (uint32_t i = 0; i < l.n; i++) {
        const char *f = l.paths[i];
        if (f[0] != 'v' || strchr(f, '/') || !fl_ice_is_metadata_name(f))
            continue;
        fl_ice_metadata_version v = fl_ice_metadata_version_of(f);
        if (v.nparts == 1 && v.parts[0] > *max)
            *max = v.parts[0];
    }
    return FL_OK;
}

/* Path of version v (plain or .gz), or NULL when neither exists. */
static fl_status version_file(fs_catalog *c, const char *tdir, int64_t v, fl_arena *a,
                              const char **out, fl_error *err)
{
    *out = NULL;
    for (int gz = 0; gz < 2; gz++) {
        const char *p = vpath(a, tdir, v, gz);
        if (!p)
            return fs_oom(err);
        bool yes;
        FL_TRY(fs_file_exists(c->base.io, p, &yes, err));
        if (yes) {
            *out = p;
            return FL_OK;
        }
    }
    return FL_OK;
}

static fl_status read_hint(fs_catalog *c, const char *tdir, fl_arena *a, int64_t *v, bool *has,
                           fl_error *err)
{
    const char *p = fl_arena_sprintf(a, "%s/metadata/" HINT_NAME, tdir);
    char *buf;
    size_t len;
    *has = false;
    if (!p)
        return fs_oom(err);
    fl_status rc = fs_read_all(c->base.io, p, 64, a, &buf, &len, err);
    /* only a hint: unreadable (missing, being rewritten on S3) means scan the versions */
    if (rc != FL_OK && rc != FL_ENOMEM) {
        fl_error_clear(err);
        return FL_OK;
    }
    FL_TRY(rc);
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' '))
        len--;
    *has = fl_cat_parse_i64(buf, len, v);
    return FL_OK;
}

/* Current version and file of the table in tdir: the hint, else the highest
 * v<N>, then forward while v<N+1> exists. *path NULL = no table. */
static fl_status current_version(fs_catalog *c, const char *tdir, fl_arena *a, int64_t *ver,
                                 const char **path, fl_error *err)
{
    int64_t v = 0;
    bool has;
    FL_TRY(read_hint(c, tdir, a, &v, &has, err));
    const char *p = NULL;
    if (has)
        FL_TRY(version_file(c, tdir, v, a, &p, err));
    if (!p) {
        FL_TRY(scan_versions(c, tdir, a, &v, err));
        if (v == 0) {
            *path = NULL;
            return FL_OK;
        }
        FL_TRY(version_file(c, tdir, v, a, &p, err));
        if (!p)
            return fl_errorf(err, FL_EIO, "%s: metadata file for version %lld vanished", tdir,
                             (long long)v);
    }
    for (;;) {
        const char *next;
        FL_TRY(version_file(c, tdir, v + 1, a, &next, err));
        if (!next)
            break;
        v++;
        p = next;
    }
    *ver = v;
    *path = p;
    return FL_OK;
}

static fl_status write_hint(fs_catalog *c, const char *tdir, int64_t v, fl_arena *a, fl_error *err)
{
    const char *p = fl_arena_sprintf(a, "%s/metadata/" HINT_NAME, tdir);
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
    if (!p)
        return fs_oom(err);
    return fs_write_all(c->base.io, p, FL_CREATE_OVERWRITE, buf, (size_t)n, err);
}

/* ---- tables ---- */

static fl_status fs_load_table(fl_catalog *cat, const fl_table_ident *id, fl_arena *a,
                               const char **metadata_location, fl_error *err)
{
    fs_catalog *c = FS(cat);
    const char *tdir, *p;
    int64_t v;
    FL_TRY(fs_table_dir(c, id, a, &tdir, err));
    FL_TRY(current_version(c, tdir, a, &v, &p, err));
    if (!p)
        return fl_errorf(err, FL_ENOTFOUND,
                         "table %s does not exist (no metadata/v<N>.metadata.json)", tdir);
    *metadata_location = p;
    return FL_OK;
}

/* Copies the file at src to dst exclusively (FL_EEXIST when dst exists). */
static fl_status copy_exclusive(fs_catalog *c, const char *src, const char *dst, fl_arena *a,
                                fl_error *err)
{
    char *buf;
    size_t len;
    FL_TRY(fs_read_all(c->base.io, src, FL_ICE_METADATA_MAX_BYTES, a, &buf, &len, err));
    return fs_write_all(c->base.io, dst, 0, buf, len, err);
}

static fl_status create_tbl(fs_catalog *c, const fl_table_ident *id, const char *loc, fl_arena *a,
                            fl_error *err)
{
    const char *nsdir, *tdir, *cur, *v1 = NULL;
    int64_t v = 0;
    FL_TRY(fs_ns_dir_checked(c, &id->ns, true, a, &nsdir, err));
    FL_TRY(fs_table_dir(c, id, a, &tdir, err));
    bool has_hint;
    FL_TRY(read_hint(c, tdir, a, &v, &has_hint, err));
    FL_TRY(current_version(c, tdir, a, &v, &cur, err));
    if (!(v1 = vpath(a, tdir, 1, false)))
        return fs_oom(err);
    bool fresh = cur && !has_hint && v == 1 && strcmp(cur, loc) == 0 && strcmp(loc, v1) == 0;
    if (cur && !fresh)
        return fl_errorf(err, FL_EEXIST, "table %s already exists", tdir);
    if (!fresh) {
        fl_status rc = copy_exclusive(c, loc, v1, a, err);
        if (rc == FL_EEXIST)
            return fl_errorf(err, FL_EEXIST, "table %s already exists", tdir);
        FL_TRY(rc);
    }
    return write_hint(c, tdir, 1, a, err);
}

static fl_status fs_create_table(fl_catalog *cat, const fl_table_ident *id,
                                 const char *metadata_location, fl_error *err)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_status rc = create_tbl(FS(cat), id, metadata_location, &a, err);
    fl_arena_free(&a);
    return rc;
}

/* Version N of ".../metadata/v<N>.metadata.json" directly in mdir, else -1. */
static int64_t version_in(const char *path, const char *tdir)
{
    size_t tl = strlen(tdir);
    if (strncmp(path, tdir, tl) != 0 || strncmp(path + tl, "/metadata/v", 11) != 0)
        return -1;
    const char *f = path + tl + 10;
    if (strchr(f, '/'))
        return -1;
    fl_ice_metadata_version v = fl_ice_metadata_version_of(f);
    return v.nparts == 1 ? v.parts[0] : -1;
}

static fl_status commit_tbl(fs_catalog *c, const fl_table_ident *id, const char *expected,
                            const char *loc, fl_arena *a, fl_error *err)
{
    const char *tdir, *cur;
    FL_TRY(fs_table_dir(c, id, a, &tdir, err));
    int64_t ve = version_in(expected, tdir), vn = version_in(loc, tdir), v;
    if (ve < 1 || vn != ve + 1)
        return fl_errorf(err, FL_EINVAL,
                         "commit to %s: new metadata %s must be v%lld.metadata.json (from "
                         "new_metadata_path) following %s",
                         tdir, loc, (long long)(ve + 1), expected);
    FL_TRY(current_version(c, tdir, a, &v, &cur, err));
    if (!cur)
        return fl_errorf(err, FL_ENOTFOUND, "commit to %s: the table no longer exists", tdir);
    if (v < vn)
        return fl_errorf(err, FL_EINVAL, "commit to %s: %s was not written", tdir, loc);
    /* v >= vn: our v<N+1> exists; it is ours because it was created exclusively. */
    if (v == vn)
        FL_TRY(write_hint(c, tdir, vn, a, err));
    return FL_OK;
}

static fl_status fs_commit_table(fl_catalog *cat, const fl_table_ident *id, const char *expected,
                                 const char *new_location, fl_error *err)
{
    if (!expected || !new_location)
        return fl_errorf(err, FL_EINVAL, "commit to table %s: NULL metadata location", id->name);
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_status rc = commit_tbl(FS(cat), id, expected, new_location, &a, err);
    fl_arena_free(&a);
    return rc;
}

static fl_status drop_tbl(fs_catalog *c, const fl_table_ident *id, fl_arena *a, fl_error *err)
{
    const char *tdir, *cur, *mdir;
    int64_t v;
    FL_TRY(fs_table_dir(c, id, a, &tdir, err));
    FL_TRY(current_version(c, tdir, a, &v, &cur, err));
    if (!cur)
        return fl_errorf(err, FL_ENOTFOUND, "drop table %s: no such table", tdir);
    if (!(mdir = fl_arena_sprintf(a, "%s/metadata", tdir)))
        return fs_oom(err);
    rel_list l;
    FL_TRY(fs_list_under(c, mdir, false, a, &l, err));
    /* the hint first, so a half-dropped table has no pointer left */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < l.n; i++) {
            if ((strcmp(l.paths[i], HINT_NAME) == 0) != (pass == 0))
                continue;
            const char *p = fl_arena_sprintf(a, "%s/%s", mdir, l.paths[i]);
            if (!p)
                return fs_oom(err);
            fl_status rc = fl_fileio_remove(c->base.io, p, err);
            if (rc != FL_OK && rc != FL_ENOTFOUND)
                return rc;
        }
    fl_error_clear(err);
    return FL_OK;
}

static fl_status fs_drop_table(fl_catalog *cat, const fl_table_ident *id, fl_error *err)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_status rc = drop_tbl(FS(cat), id, &a, err);
    fl_arena_free(&a);
    return rc;
}

static fl_status fs_rename_table(fl_catalog *cat, const fl_table_ident *from,
                                 const fl_table_ident *to, fl_error *err)
{
    (void)cat;
    (void)to;
    return fl_errorf(err, FL_EUNSUPPORTED,
                     "rename table %s: the filesystem catalog cannot rename tables (the metadata "
                     "records the table's directory); use a SQLite or PostgreSQL catalog",
                     from->name);
}

static fl_status fs_new_metadata_path(fl_catalog *cat, const fl_table_ident *id,
                                      const char *table_location, const char *base_location,
                                      int64_t version, fl_arena *a, const char **out, fl_error *err)
{
    (void)table_location;
    (void)version;
    fs_catalog *c = FS(cat);
    const char *tdir;
    FL_TRY(fs_table_dir(c, id, a, &tdir, err));
    int64_t v = 0;
    if (base_location && (v = version_in(base_location, tdir)) < 1)
        return fl_errorf(err, FL_EINVAL, "table %s: base metadata %s is not a v<N> file of %s",
                         id->name, base_location, tdir);
    *out = vpath(a, tdir, v + 1, false);
    return *out ? FL_OK : fs_oom(err);
}

static void fs_close(fl_catalog *cat)
{
    fs_catalog *c = FS(cat);
    free(c->root);
    free(c);
}

static const fl_catalog_ops FS_OPS = {
    .create_namespace = fs_create_namespace,
    .list_namespaces = fs_list_namespaces,
    .load_namespace = fs_load_namespace,
    .update_namespace = fs_update_namespace,
    .drop_namespace = fs_drop_namespace,
    .list_tables = fs_list_tables,
    .load_table = fs_load_table,
    .create_table = fs_create_table,
    .commit_table = fs_commit_table,
    .drop_table = fs_drop_table,
    .rename_table = fs_rename_table,
    .new_metadata_path = fs_new_metadata_path,
    .close = fs_close,
};

fl_status fl_catalog_fs_open(const char *warehouse, fl_fileio *io, fl_catalog **out, fl_error *err)
{
    if (!warehouse || !*warehouse || !io)
        return fl_errorf(err, FL_EINVAL, "fs catalog: a warehouse path and a FileIO are required");
    fs_catalog *c = calloc(1, sizeof *c);
    size_t len = strlen(warehouse);
    while (len > 1 && warehouse[len - 1] == '/')
        len--;
    if (!c || !(c->root = strndup(warehouse, len))) {
        free(c);
        return fs_oom(err);
    }
    c->base.ops = &FS_OPS;
    c->base.name = "fs";
    c->base.warehouse = c->root;
    c->base.io = io;
    *out = &c->base;
    return FL_OK;
}
