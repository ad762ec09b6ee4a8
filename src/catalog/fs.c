/*
 * fs.c - the filesystem ("hadoop") catalog: the directory tree under the
 * warehouse is the catalog.
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
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "catalog/catalog_internal.h"

#define HINT_NAME "version-hint.text"
#define NS_MARKER ".floe-namespace.json"
#define MAX_SMALL_FILE (1u << 20)

typedef struct fs_catalog {
    fl_catalog base;
    char *root; /* warehouse without trailing '/' */
} fs_catalog;

static fs_catalog *FS(fl_catalog *c) { return (fs_catalog *)c; }
static fl_status oom(fl_error *err) { return fl_errorf(err, FL_ENOMEM, "fs catalog: out of memory"); }

/* ---- paths ---- */

static fl_status check_level(const char *l, fl_error *err)
{
    if (!*l || strchr(l, '/') || strcmp(l, ".") == 0 || strcmp(l, "..") == 0)
        return fl_errorf(err, FL_EINVAL, "fs catalog: '%s' cannot be a directory name", l);
    return FL_OK;
}

/* <root>/<levels...>[/<name>] */
static fl_status dir_of(fs_catalog *c, const fl_namespace *ns, const char *name, fl_arena *a,
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
        return oom(err);
    size_t o = (size_t)sprintf(p, "%s", c->root);
    for (uint32_t i = 0; i < ns->nlevels; i++)
        o += (size_t)sprintf(p + o, "/%s", ns->levels[i]);
    if (name)
        sprintf(p + o, "/%s", name);
    *out = p;
    return FL_OK;
}

static fl_status table_dir(fs_catalog *c, const fl_table_ident *id, fl_arena *a, const char **out,
                           fl_error *err)
{
    return dir_of(c, &id->ns, id->name, a, out, err);
}

static const char *vpath(fl_arena *a, const char *tdir, int64_t v, bool gz)
{
    return fl_arena_sprintf(a, "%s/metadata/v%lld%s.metadata.json", tdir, (long long)v,
                            gz ? ".gz" : "");
}

/* ---- small file helpers ---- */

static fl_status file_exists(fl_fileio *io, const char *path, bool *yes, fl_error *err)
{
    fl_file *f;
    fl_status rc = fl_fileio_open(io, path, &f, err);
    *yes = rc == FL_OK;
    if (rc == FL_OK)
        fl_file_close(f);
    return rc == FL_ENOTFOUND ? FL_OK : rc;
}

/* Reads a whole file (at most limit bytes) into an arena buffer, NUL-terminated. */
static fl_status read_all(fl_fileio *io, const char *path, size_t limit, fl_arena *a, char **buf,
                          size_t *len, fl_error *err)
{
    fl_file *f;
    FL_TRY(fl_fileio_open(io, path, &f, err));
    fl_status rc = FL_OK;
    if (f->size > limit)
        rc = fl_errorf(err, FL_ELIMIT, "%s: %llu bytes, more than the %zu allowed", path,
                       (unsigned long long)f->size, limit);
    else if (!(*buf = fl_arena_alloc(a, (size_t)f->size + 1)))
        rc = oom(err);
    else
        rc = fl_file_read_at(f, 0, *buf, (size_t)f->size, err);
    if (rc == FL_OK) {
        *len = (size_t)f->size;
        (*buf)[*len] = '\0';
    }
    fl_file_close(f);
    return rc;
}

static fl_status write_all(fl_fileio *io, const char *path, int flags, const void *data,
                           size_t len, fl_error *err)
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

typedef struct rel_list {
    fl_arena *a;
    size_t skip; /* length of the listed prefix */
    const char **paths;
    uint32_t n, cap;
    bool stop_at_first;
    fl_error *err;
} rel_list;

static fl_status collect(void *ctx, const char *path, uint64_t size)
{
    (void)size;
    rel_list *l = ctx;
    if (l->n == l->cap) {
        uint32_t nc = l->cap ? l->cap * 2 : 64;
        const char **np = fl_arena_alloc(l->a, nc * sizeof *np);
        if (!np)
            return oom(l->err);
        if (l->n)
            memcpy(np, l->paths, l->n * sizeof *np);
        l->paths = np;
        l->cap = nc;
    }
    if (!(l->paths[l->n++] = fl_arena_strdup(l->a, path + l->skip)))
        return oom(l->err);
    return l->stop_at_first ? FL_ECANCELED : FL_OK;
}

/* Paths (relative to dir/) of the objects under dir. */
static fl_status list_under(fs_catalog *c, const char *dir, bool first_only, fl_arena *a,
                            rel_list *l, fl_error *err)
{
    const char *prefix = fl_arena_sprintf(a, "%s/", dir);
    if (!prefix)
        return oom(err);
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
    return strcmp(file, HINT_NAME) == 0 || fl_cat_is_metadata_name(file);
}

static bool name_in(const char *const *names, uint32_t n, const char *s, size_t len)
{
    for (uint32_t i = 0; i < n; i++)
        if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
            return true;
    return false;
}

/* Sorted unique first components of l: tables, or namespaces (the others). */
static fl_status first_components(const rel_list *l, bool tables, fl_arena *a,
                                  const char ***out, uint32_t *n, fl_error *err)
{
    const char **tbl = fl_arena_alloc(a, (l->n + 1) * sizeof *tbl);
    const char **res = fl_arena_alloc(a, (l->n + 1) * sizeof *res);
    if (!tbl || !res)
        return oom(err);
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

/* ---- table versions ---- */

/* Highest v<N> among the metadata files of tdir (0 = none). */
static fl_status scan_versions(fs_catalog *c, const char *tdir, fl_arena *a, int64_t *max,
                               fl_error *err)
{
    rel_list l;
    const char *mdir = fl_arena_sprintf(a, "%s/metadata", tdir);
    if (!mdir)
        return oom(err);
    FL_TRY(list_under(c, mdir, false, a, &l, err));
    *max = 0;
    for (uint32_t i = 0; i < l.n; i++) {
        const char *f = l.paths[i];
        if (f[0] != 'v' || strchr(f, '/') || !fl_cat_is_metadata_name(f))
            continue;
        fl_cat_version v = fl_cat_name_version(f);
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
            return oom(err);
        bool yes;
        FL_TRY(file_exists(c->base.io, p, &yes, err));
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
        return oom(err);
    fl_status rc = read_all(c->base.io, p, 64, a, &buf, &len, err);
    if (rc == FL_ENOTFOUND) {
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

static fl_status write_hint(fs_catalog *c, const char *tdir, int64_t v, fl_arena *a,
                            fl_error *err)
{
    const char *p = fl_arena_sprintf(a, "%s/metadata/" HINT_NAME, tdir);
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
    if (!p)
        return oom(err);
    return write_all(c->base.io, p, FL_CREATE_OVERWRITE, buf, (size_t)n, err);
}

/* ---- namespaces ---- */

static fl_status ns_exists(fs_catalog *c, const char *dir, fl_arena *a, bool *yes, fl_error *err)
{
    rel_list l;
    FL_TRY(list_under(c, dir, true, a, &l, err));
    *yes = l.n > 0;
    return FL_OK;
}

static fl_status ns_dir_checked(fs_catalog *c, const fl_namespace *ns, bool must_exist,
                                fl_arena *a, const char **dir, fl_error *err)
{
    FL_TRY(dir_of(c, ns, NULL, a, dir, err));
    if (ns->nlevels == 0)
        return FL_OK;
    bool yes;
    FL_TRY(ns_exists(c, *dir, a, &yes, err));
    if (yes != must_exist)
        return yes ? fl_errorf(err, FL_EEXIST, "namespace %s already exists", *dir)
                   : fl_errorf(err, FL_ENOTFOUND, "namespace %s does not exist", *dir);
    return FL_OK;
}

static fl_status props_to_json(const fl_ice_map *m, char **out, fl_error *err)
{
    json_t *o = json_object();
    for (uint32_t i = 0; o && m && i < m->n; i++)
        json_object_set_new(o, m->items[i].key, json_string(m->items[i].value));
    *out = o ? json_dumps(o, JSON_SORT_KEYS | JSON_INDENT(2)) : NULL;
    json_decref(o);
    return *out ? FL_OK : oom(err);
}

static fl_status write_marker(fs_catalog *c, const char *dir, const fl_ice_map *m, int flags,
                              fl_arena *a, fl_error *err)
{
    const char *p = fl_arena_sprintf(a, "%s/" NS_MARKER, dir);
    char *js;
    if (!p)
        return oom(err);
    FL_TRY(props_to_json(m, &js, err));
    fl_status rc = write_all(c->base.io, p, flags, js, strlen(js), err);
    free(js);
    return rc;
}

/* Properties from the marker (none when it is absent). */
static fl_status read_marker(fs_catalog *c, const char *dir, fl_arena *a, fl_ice_map *m,
                             fl_error *err)
{
    const char *p = fl_arena_sprintf(a, "%s/" NS_MARKER, dir);
    char *buf;
    size_t len;
    m->n = 0;
    m->items = NULL;
    if (!p)
        return oom(err);
    fl_status rc = read_all(c->base.io, p, MAX_SMALL_FILE, a, &buf, &len, err);
    if (rc == FL_ENOTFOUND) {
        fl_error_clear(err);
        return FL_OK;
    }
    FL_TRY(rc);
    json_error_t je;
    json_t *o = json_loadb(buf, len, 0, &je);
    if (!json_is_object(o)) {
        json_decref(o);
        return fl_errorf(err, FL_ECORRUPT, "%s: not a JSON object of strings", p);
    }
    m->items = fl_arena_alloc(a, (json_object_size(o) + 1) * sizeof *m->items);
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v)
    {
        if (!m->items || !json_is_string(v))
            continue;
        m->items[m->n].key = fl_arena_strdup(a, k);
        m->items[m->n++].value = fl_arena_strdup(a, json_string_value(v));
    }
    json_decref(o);
    return m->items ? FL_OK : oom(err);
}

static fl_status fs_create_namespace(fl_catalog *cat, const fl_namespace *ns,
                                     const fl_ice_map *props, fl_error *err)
{
    fs_catalog *c = FS(cat);
    if (ns->nlevels == 0)
        return fl_errorf(err, FL_EINVAL, "create namespace: empty namespace");
    fl_arena a;
    fl_arena_init(&a, 0);
    const char *dir;
    fl_status rc = ns_dir_checked(c, ns, false, &a, &dir, err);
    if (rc == FL_OK) {
        rc = write_marker(c, dir, props, 0, &a, err);
        if (rc == FL_EEXIST)
            rc = fl_errorf(err, FL_EEXIST, "namespace %s already exists", dir);
    }
    fl_arena_free(&a);
    return rc;
}

static fl_status fs_list_namespaces(fl_catalog *cat, const fl_namespace *parent, fl_arena *a,
                                    fl_namespace **out, uint32_t *n, fl_error *err)
{
    fs_catalog *c = FS(cat);
    fl_namespace root = {0, NULL};
    if (!parent)
        parent = &root;
    const char *dir;
    FL_TRY(ns_dir_checked(c, parent, true, a, &dir, err));
    rel_list l;
    FL_TRY(list_under(c, dir, false, a, &l, err));
    const char **names;
    uint32_t k;
    FL_TRY(first_components(&l, false, a, &names, &k, err));
    fl_namespace *res = fl_arena_alloc(a, (k + 1) * sizeof *res);
    if (!res)
        return oom(err);
    for (uint32_t i = 0; i < k; i++) {
        const char **lv = fl_arena_alloc(a, (parent->nlevels + 1) * sizeof *lv);
        if (!lv)
            return oom(err);
        for (uint32_t j = 0; j < parent->nlevels; j++)
            lv[j] = parent->levels[j];
        lv[parent->nlevels] = names[i];
        res[i] = (fl_namespace){parent->nlevels + 1, lv};
    }
    *out = res;
    *n = k;
    return FL_OK;
}

static fl_status fs_load_namespace(fl_catalog *cat, const fl_namespace *ns, fl_arena *a,
                                   fl_ice_map *props, fl_error *err)
{
    fs_catalog *c = FS(cat);
    const char *dir;
    FL_TRY(ns_dir_checked(c, ns, true, a, &dir, err));
    return read_marker(c, dir, a, props, err);
}

static fl_status update_marker(fs_catalog *c, const fl_namespace *ns, const fl_ice_map *set,
                               const char *const *remove, uint32_t nremove, fl_arena *a,
                               fl_error *err)
{
    const char *dir;
    FL_TRY(ns_dir_checked(c, ns, true, a, &dir, err));
    fl_ice_map m;
    FL_TRY(read_marker(c, dir, a, &m, err));
    uint32_t cap = m.n + (set ? set->n : 0) + 1;
    fl_ice_kv *items = fl_arena_alloc(a, cap * sizeof *items);
    if (!items)
        return oom(err);
    uint32_t n = 0;
    for (uint32_t i = 0; i < m.n; i++) {
        bool drop = fl_ice_map_get(set, m.items[i].key) != NULL;
        for (uint32_t j = 0; j < nremove && !drop; j++)
            drop = strcmp(remove[j], m.items[i].key) == 0;
        if (!drop)
            items[n++] = m.items[i];
    }
    for (uint32_t i = 0; set && i < set->n; i++)
        items[n++] = set->items[i];
    fl_ice_map out = {n, items};
    return write_marker(c, dir, &out, FL_CREATE_OVERWRITE, a, err);
}

static fl_status fs_update_namespace(fl_catalog *cat, const fl_namespace *ns,
                                     const fl_ice_map *set, const char *const *remove,
                                     uint32_t nremove, fl_error *err)
{
    if (ns->nlevels == 0)
        return fl_errorf(err, FL_EINVAL, "update namespace: the root has no properties");
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_status rc = update_marker(FS(cat), ns, set, remove, nremove, &a, err);
    fl_arena_free(&a);
    return rc;
}

static fl_status drop_ns(fs_catalog *c, const fl_namespace *ns, fl_arena *a, fl_error *err)
{
    const char *dir;
    FL_TRY(ns_dir_checked(c, ns, true, a, &dir, err));
    rel_list l;
    FL_TRY(list_under(c, dir, false, a, &l, err));
    const char **names;
    uint32_t k;
    FL_TRY(first_components(&l, true, a, &names, &k, err));
    if (k)
        return fl_errorf(err, FL_ECONFLICT, "namespace %s is not empty: %u table(s)", dir, k);
    FL_TRY(first_components(&l, false, a, &names, &k, err));
    if (k)
        return fl_errorf(err, FL_ECONFLICT, "namespace %s is not empty: %u child namespace(s)",
                         dir, k);
    const char *p = fl_arena_sprintf(a, "%s/" NS_MARKER, dir);
    if (!p)
        return oom(err);
    fl_status rc = fl_fileio_remove(c->base.io, p, err);
    if (rc == FL_ENOTFOUND) {
        fl_error_clear(err);
        return FL_OK;
    }
    return rc;
}

static fl_status fs_drop_namespace(fl_catalog *cat, const fl_namespace *ns, fl_error *err)
{
    if (ns->nlevels == 0)
        return fl_errorf(err, FL_EINVAL, "drop namespace: the root cannot be dropped");
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_status rc = drop_ns(FS(cat), ns, &a, err);
    fl_arena_free(&a);
    return rc;
}

static fl_status fs_list_tables(fl_catalog *cat, const fl_namespace *ns, fl_arena *a,
                                const char ***names, uint32_t *n, fl_error *err)
{
    fs_catalog *c = FS(cat);
    const char *dir;
    FL_TRY(ns_dir_checked(c, ns, true, a, &dir, err));
    rel_list l;
    FL_TRY(list_under(c, dir, false, a, &l, err));
    return first_components(&l, true, a, names, n, err);
}

/* ---- tables ---- */

static fl_status fs_load_table(fl_catalog *cat, const fl_table_ident *id, fl_arena *a,
                               const char **metadata_location, fl_error *err)
{
    fs_catalog *c = FS(cat);
    const char *tdir, *p;
    int64_t v;
    FL_TRY(table_dir(c, id, a, &tdir, err));
    FL_TRY(current_version(c, tdir, a, &v, &p, err));
    if (!p)
        return fl_errorf(err, FL_ENOTFOUND, "table %s does not exist (no metadata/v<N>.metadata.json)",
                         tdir);
    *metadata_location = p;
    return FL_OK;
}

/* Copies the file at src to dst exclusively (FL_EEXIST when dst exists). */
static fl_status copy_exclusive(fs_catalog *c, const char *src, const char *dst, fl_arena *a,
                                fl_error *err)
{
    char *buf;
    size_t len;
    FL_TRY(read_all(c->base.io, src, FL_ICE_METADATA_MAX_BYTES, a, &buf, &len, err));
    return write_all(c->base.io, dst, 0, buf, len, err);
}

static fl_status create_tbl(fs_catalog *c, const fl_table_ident *id, const char *loc, fl_arena *a,
                            fl_error *err)
{
    const char *nsdir, *tdir, *cur, *v1 = NULL;
    int64_t v = 0;
    FL_TRY(ns_dir_checked(c, &id->ns, true, a, &nsdir, err));
    FL_TRY(table_dir(c, id, a, &tdir, err));
    bool has_hint;
    FL_TRY(read_hint(c, tdir, a, &v, &has_hint, err));
    FL_TRY(current_version(c, tdir, a, &v, &cur, err));
    if (!(v1 = vpath(a, tdir, 1, false)))
        return oom(err);
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
    fl_cat_version v = fl_cat_name_version(f);
    return v.nparts == 1 ? v.parts[0] : -1;
}

static fl_status commit_tbl(fs_catalog *c, const fl_table_ident *id, const char *expected,
                            const char *loc, fl_arena *a, fl_error *err)
{
    const char *tdir, *cur;
    FL_TRY(table_dir(c, id, a, &tdir, err));
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
    FL_TRY(table_dir(c, id, a, &tdir, err));
    FL_TRY(current_version(c, tdir, a, &v, &cur, err));
    if (!cur)
        return fl_errorf(err, FL_ENOTFOUND, "drop table %s: no such table", tdir);
    if (!(mdir = fl_arena_sprintf(a, "%s/metadata", tdir)))
        return oom(err);
    rel_list l;
    FL_TRY(list_under(c, mdir, false, a, &l, err));
    /* the hint first, so a half-dropped table has no pointer left */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < l.n; i++) {
            if ((strcmp(l.paths[i], HINT_NAME) == 0) != (pass == 0))
                continue;
            const char *p = fl_arena_sprintf(a, "%s/%s", mdir, l.paths[i]);
            if (!p)
                return oom(err);
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
                                      int64_t version, fl_arena *a, const char **out,
                                      fl_error *err)
{
    (void)table_location;
    (void)version;
    fs_catalog *c = FS(cat);
    const char *tdir;
    FL_TRY(table_dir(c, id, a, &tdir, err));
    int64_t v = 0;
    if (base_location && (v = version_in(base_location, tdir)) < 1)
        return fl_errorf(err, FL_EINVAL, "table %s: base metadata %s is not a v<N> file of %s",
                         id->name, base_location, tdir);
    *out = vpath(a, tdir, v + 1, false);
    return *out ? FL_OK : oom(err);
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
        return oom(err);
    }
    c->base.ops = &FS_OPS;
    c->base.name = "fs";
    c->base.warehouse = c->root;
    c->base.io = io;
    *out = &c->base;
    return FL_OK;
}
