/*
 * table.c - Iceberg table handles: loading a table through a catalog or by
 * path, refreshing it, registering an existing metadata file (ice_table.h,
 * "tables").
 *
 * A handle owns one arena holding its identifier, metadata location and
 * parsed metadata. Refresh builds the new state in a fresh arena and swaps
 * it in only on success, so a failed refresh leaves the handle as it was.
 *
 * Opening by path (read-only; catalog NULL; ident = no namespace, name = the
 * path as given, which refresh re-resolves):
 *   - a file whose name ends in .metadata.json (or .metadata.json.gz) is
 *     read directly;
 *   - a folder: metadata/version-hint.text names the version: a number N
 *     selects v<N>.metadata.json / v<N>.gz.metadata.json (Hadoop, Spark,
 *     BigQuery's v<epoch>), any other text T selects T.metadata.json
 *     (DuckDB-written hints such as "00002-legacy-bare-dv"). Without a
 *     usable hint the newest metadata file wins: by version number in the
 *     name (v7 > v3.2 > v3.1 > v3; 00003-<uuid> > 00002-<uuid>), then by
 *     modification time for local files, then by name.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "floe/ice_table.h"
#include "iceberg/manifest_cache.h"

#define HINT_MAX_BYTES 256

static fl_status oom(fl_error *err)
{
    return fl_errorf(err, FL_ENOMEM, "table: out of memory");
}

/* Deep copy of id into a. */
static fl_status copy_ident(const fl_table_ident *id, fl_arena *a, fl_table_ident *out,
                            fl_error *err)
{
    const char **lv = fl_arena_alloc(a, (id->ns.nlevels + 1) * sizeof *lv);
    if (!lv)
        return oom(err);
    for (uint32_t i = 0; i < id->ns.nlevels; i++)
        if (!(lv[i] = fl_arena_strdup(a, id->ns.levels[i])))
            return oom(err);
    out->ns.levels = lv;
    out->ns.nlevels = id->ns.nlevels;
    out->name = fl_arena_strdup(a, id->name);
    return out->name ? FL_OK : oom(err);
}

/* Reads the metadata at loc into a fresh state (ident copied) in arena a. */
static fl_status load_state(fl_fileio *io, const fl_table_ident *id, const char *loc, fl_arena *a,
                            fl_ice_table *st, fl_error *err)
{
    FL_TRY(copy_ident(id, a, &st->ident, err));
    if (!(st->metadata_location = fl_arena_strdup(a, loc)))
        return oom(err);
    return fl_ice_metadata_read(io, loc, a, &st->meta, err);
}

static fl_status catalog_state(fl_catalog *c, const fl_table_ident *id, fl_arena *a,
                               fl_ice_table *st, fl_error *err)
{
    const char *loc;
    if (c->ops->load_table_metadata) { /* the server sends the metadata (REST) */
        FL_TRY(copy_ident(id, a, &st->ident, err));
        return c->ops->load_table_metadata(c, id, a, &st->metadata_location, &st->meta, err);
    }
    FL_TRY(c->ops->load_table(c, id, a, &loc, err));
    fl_status rc = load_state(c->io, id, loc, a, st, err);
    if (rc != FL_OK)
        fl_error_prefix(err, "table %s", fl_table_ident_str(id, a));
    return rc;
}

/* A zeroed handle, or NULL when out of memory. */
static fl_ice_table *new_table(fl_catalog *c, fl_fileio *io)
{
    fl_ice_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->catalog = c;
    t->io = io;
    fl_arena_init(&t->arena, 0);
    return t;
}

fl_status fl_ice_table_load(fl_catalog *c, const fl_table_ident *id, fl_ice_table **out,
                            fl_error *err)
{
    if (!c || !id || !out)
        return fl_errorf(err, FL_EINVAL, "table load: NULL argument");
    fl_ice_table *t = new_table(c, c->io);
    if (!t)
        return oom(err);
    fl_status rc = catalog_state(c, id, &t->arena, t, err);
    if (rc != FL_OK) {
        fl_ice_table_free(t);
        return rc;
    }
    *out = t;
    return FL_OK;
}

fl_status fl_ice_table_load_cached(fl_catalog *c, const fl_table_ident *id,
                                   fl_ice_manifest_cache *cache, fl_ice_table **out,
                                   fl_error *err)
{
    if (!cache || !c || c->ops->load_table_metadata)
        return fl_ice_table_load(c, id, out, err);
    if (!id || !out)
        return fl_errorf(err, FL_EINVAL, "table load: NULL argument");
    fl_ice_table *t = new_table(c, c->io);
    if (!t)
        return oom(err);
    const char *loc = NULL;
    const fl_ice_metadata *m = NULL;
    fl_status rc = copy_ident(id, &t->arena, &t->ident, err);
    if (rc == FL_OK)
        rc = c->ops->load_table(c, id, &t->arena, &loc, err);
    if (rc == FL_OK && !(t->metadata_location = fl_arena_strdup(&t->arena, loc)))
        rc = oom(err);
    t->shared_cache = cache;
    if (rc == FL_OK) {
        rc = ice_cache_get_metadata(cache, c->io, loc, &t->shared, &m, err);
        if (rc != FL_OK)
            fl_error_prefix(err, "table %s", fl_table_ident_str(id, &t->arena));
    }
    if (rc != FL_OK) {
        fl_ice_table_free(t);
        return rc;
    }
    t->meta = *m; /* shallow: arrays and strings stay in the cache entry */
    *out = t;
    return FL_OK;
}

/* ---- opening by path ---- */

/* The last path component of path (after the last '/'). */
static const char *last_component(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* s[0..len) as a non-negative decimal of at most 18 digits (a version hint). */
static bool hint_digits(const char *s, size_t len, int64_t *out)
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


typedef struct pick {
    fl_arena *a;
    fl_fileio *io;
    const char *dir; /* ".../metadata/" */
    const char *best;
    fl_ice_metadata_version best_v;
    int64_t best_mtime;
} pick;

static int64_t local_mtime_ns(const char *path)
{
    if (strncmp(path, "file://", 7) == 0)
        path += 7;
    else if (strncmp(path, "file:", 5) == 0)
        path += 5;
    else if (strstr(path, "://"))
        return 0;
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

static fl_status consider(void *ctx, const char *path, uint64_t size)
{
    (void)size;
    pick *p = ctx;
    size_t dl = strlen(p->dir);
    const char *rel = strncmp(path, p->dir, dl) == 0 ? path + dl : last_component(path);
    if (strchr(rel, '/') || !fl_ice_is_metadata_name(rel))
        return FL_OK;
    fl_ice_metadata_version v = fl_ice_metadata_version_of(rel);
    int64_t mt = local_mtime_ns(path);
    int cmp = p->best ? fl_ice_metadata_version_cmp(&v, &p->best_v) : 1;
    if (cmp == 0)
        cmp = mt != p->best_mtime ? (mt > p->best_mtime ? 1 : -1) : strcmp(path, p->best);
    if (cmp > 0) {
        if (!(p->best = fl_arena_strdup(p->a, path)))
            return FL_ENOMEM;
        p->best_v = v;
        p->best_mtime = mt;
    }
    return FL_OK;
}

static fl_status newest_metadata(fl_fileio *io, const char *mdir, fl_arena *a, const char **out,
                                 fl_error *err)
{
    pick p = {a, io, mdir, NULL, {0, {0}}, 0};
    fl_status rc = io->ops->list(io, mdir, consider, &p, err);
    if (rc == FL_ENOMEM)
        return oom(err);
    FL_TRY(rc);
    if (!p.best)
        return fl_errorf(err, FL_ENOTFOUND, "%s: no *.metadata.json file", mdir);
    *out = p.best;
    return FL_OK;
}

static bool exists(fl_fileio *io, const char *path)
{
    fl_file *f;
    if (fl_fileio_open(io, path, &f, NULL) != FL_OK)
        return false;
    fl_file_close(f);
    return true;
}

/* The file named by version-hint.text in mdir, or NULL (no hint / no such file). */
static fl_status hinted_metadata(fl_fileio *io, const char *mdir, fl_arena *a, const char **out,
                                 fl_error *err)
{
    *out = NULL;
    const char *hp = fl_arena_sprintf(a, "%sversion-hint.text", mdir);
    if (!hp)
        return oom(err);
    fl_file *f;
    if (fl_fileio_open(io, hp, &f, NULL) != FL_OK)
        return FL_OK;
    char buf[HINT_MAX_BYTES + 1];
    size_t len = f->size < HINT_MAX_BYTES ? (size_t)f->size : HINT_MAX_BYTES;
    fl_status rc = fl_file_read_at(f, 0, buf, len, err);
    fl_file_close(f);
    FL_TRY(rc);
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' '))
        len--;
    buf[len] = '\0';
    if (!len || strchr(buf, '/'))
        return FL_OK;
    int64_t v;
    bool num = hint_digits(buf, len, &v);
    static const char *const NUM_FMT[] = {"%sv%s.metadata.json", "%sv%s.gz.metadata.json",
                                          "%sv%s.metadata.json.gz"};
    static const char *const TXT_FMT[] = {"%s%s.metadata.json", "%s%s.gz.metadata.json", "%s%s"};
    for (int i = 0; i < 3; i++) {
        const char *p = fl_arena_sprintf(a, num ? NUM_FMT[i] : TXT_FMT[i], mdir, buf);
        if (!p)
            return oom(err);
        if (exists(io, p)) {
            *out = p;
            return FL_OK;
        }
    }
    return FL_OK;
}

static fl_status resolve_path(fl_fileio *io, const char *path, fl_arena *a, const char **out,
                              fl_error *err)
{
    if (fl_ice_is_metadata_name(last_component(path))) {
        *out = path;
        return FL_OK;
    }
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    const char *mdir = fl_arena_sprintf(a, "%.*s/metadata/", (int)len, path);
    if (!mdir)
        return oom(err);
    FL_TRY(hinted_metadata(io, mdir, a, out, err));
    if (*out)
        return FL_OK;
    fl_status rc = newest_metadata(io, mdir, a, out, err);
    if (rc == FL_ENOTFOUND)
        return fl_errorf(
            err, FL_ENOTFOUND,
            "%s: not a metadata file and not a table folder (no metadata/*.metadata.json)", path);
    return rc;
}

static fl_status path_state(fl_fileio *io, const char *path, fl_arena *a, fl_ice_table *st,
                            fl_error *err)
{
    const char *loc;
    FL_TRY(resolve_path(io, path, a, &loc, err));
    fl_table_ident id = {{0, NULL}, path};
    return load_state(io, &id, loc, a, st, err);
}

fl_status fl_ice_table_open_path(fl_fileio *io, const char *path, fl_ice_table **out, fl_error *err)
{
    if (!io || !path || !*path || !out)
        return fl_errorf(err, FL_EINVAL, "table open: NULL argument");
    fl_ice_table *t = new_table(NULL, io);
    if (!t)
        return oom(err);
    fl_status rc = path_state(io, path, &t->arena, t, err);
    if (rc != FL_OK) {
        fl_ice_table_free(t);
        return rc;
    }
    *out = t;
    return FL_OK;
}

/* ---- refresh, free, register ---- */

fl_status fl_ice_table_refresh(fl_ice_table *t, fl_error *err)
{
    if (!t)
        return fl_errorf(err, FL_EINVAL, "table refresh: NULL table");
    if (t->staged)
        return FL_OK; /* nothing in the catalog yet */
    fl_ice_table st = {0};
    fl_arena_init(&st.arena, 0);
    fl_status rc = t->catalog ? catalog_state(t->catalog, &t->ident, &st.arena, &st, err)
                              : path_state(t->io, t->ident.name, &st.arena, &st, err);
    if (rc != FL_OK) {
        fl_arena_free(&st.arena);
        return rc;
    }
    fl_arena_free(&t->arena);
    t->arena = st.arena;
    t->ident = st.ident;
    t->metadata_location = st.metadata_location;
    t->meta = st.meta;
    return FL_OK;
}

void fl_ice_table_free(fl_ice_table *t)
{
    if (!t)
        return;
    fl_ice_cache_release(t->shared, t->shared_cache);
    fl_arena_free(&t->arena);
    free(t);
}

fl_status fl_ice_table_register(fl_catalog *c, const fl_table_ident *id,
                                const char *metadata_location, fl_ice_table **out, fl_error *err)
{
    if (!c || !id || !metadata_location)
        return fl_errorf(err, FL_EINVAL, "table register: NULL argument");
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_ice_metadata m;
    fl_status rc = fl_ice_metadata_read(c->io, metadata_location, &a, &m, err);
    if (rc == FL_OK) /* confinement: the file inside its location, no overlap */
        rc = fl_ice_register_check(c, id, metadata_location, &m, err);
    fl_arena_free(&a);
    if (rc != FL_OK)
        return fl_error_prefix(err, "register table %s", id->name);
    FL_TRY(c->ops->create_table(c, id, metadata_location, err));
    return out ? fl_ice_table_load(c, id, out, err) : FL_OK;
}
