/*
 * cache.c - fl_sql_shared_cache (sql.h): the process-wide cache of decoded
 * immutable files that every session of a server shares, and the cache
 * FileIO through which sessions reach it (cache.h).
 *
 * What is cached (all in one byte-bounded LRU, src/iceberg/manifest_cache.c):
 *   - parsed table metadata keyed by metadata-file location
 *     (fl_ice_table_load_cached, called from fl_front_load_table): the
 *     catalog is still asked for the current location on every statement, so
 *     a commit by another session or process is seen by the next statement;
 *   - decoded manifest lists (by path) and manifests (by path and length),
 *     through fl_ice_scan_options.cache at scan planning;
 *   - decoded Parquet footers (by path and size) of the data files that scan
 *     tasks and read_parquet() open.
 * Each key names an immutable file, so entries never go stale; they leave
 * only by LRU eviction. Entries are reference counted: a running statement
 * keeps what it uses alive even if evicted meanwhile.
 *
 * The cache FileIO: a struct embedding fl_fileio whose ops are a per-instance
 * copy of the inner FileIO's ops with each present operation replaced by a
 * forwarder (absent ones stay NULL, so callers probing for an operation see
 * the same thing); it is recognised by its destroy function.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/session/cache.h"

struct fl_sql_shared_cache {
    fl_ice_manifest_cache *ice;
};

fl_status fl_sql_shared_cache_new(size_t max_bytes, fl_sql_shared_cache **out, fl_error *err)
{
    *out = NULL;
    fl_sql_shared_cache *c = calloc(1, sizeof *c);
    if (!c)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = fl_ice_manifest_cache_new(max_bytes, &c->ice, err);
    if (rc != FL_OK) {
        free(c);
        return rc;
    }
    *out = c;
    return FL_OK;
}

void fl_sql_shared_cache_free(fl_sql_shared_cache *c)
{
    if (!c)
        return;
    fl_ice_manifest_cache_free(c->ice);
    free(c);
}

void fl_sql_shared_cache_stats(const fl_sql_shared_cache *c, fl_sql_cache_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!c)
        return;
    fl_ice_cache_stats s;
    fl_ice_manifest_cache_stats(c->ice, &s);
    out->hits = s.hits;
    out->misses = s.misses;
    out->bytes = s.bytes;
    out->entries = s.entries;
}

fl_ice_manifest_cache *fl_sql_shared_cache_ice(fl_sql_shared_cache *c)
{
    return c ? c->ice : NULL;
}

/* ---- the cache FileIO ---- */

typedef struct cache_io {
    fl_fileio base;
    fl_fileio_ops ops; /* base.ops points here */
    fl_fileio *inner;
    bool own_inner;
    fl_sql_shared_cache *cache;
    bool own_cache;
} cache_io;

static fl_fileio *inner_of(fl_fileio *io)
{
    return ((cache_io *)io)->inner;
}

static fl_status cio_open(fl_fileio *io, const char *path, fl_file **out, fl_error *err)
{
    return fl_fileio_open(inner_of(io), path, out, err);
}

static fl_status cio_create(fl_fileio *io, const char *path, int flags, fl_output **out,
                            fl_error *err)
{
    return fl_fileio_create(inner_of(io), path, flags, out, err);
}

static fl_status cio_remove(fl_fileio *io, const char *path, fl_error *err)
{
    return fl_fileio_remove(inner_of(io), path, err);
}

static fl_status cio_list(fl_fileio *io, const char *prefix,
                          fl_status (*fn)(void *ctx, const char *path, uint64_t size), void *ctx,
                          fl_error *err)
{
    fl_fileio *in = inner_of(io);
    return in->ops->list(in, prefix, fn, ctx, err);
}

static void cio_destroy(fl_fileio *io)
{
    cache_io *c = (cache_io *)io;
    if (c->own_inner)
        fl_fileio_destroy(c->inner);
    if (c->own_cache)
        fl_sql_shared_cache_free(c->cache);
    free(c);
}

fl_status fl_sql_cache_wrap_io(fl_sql_shared_cache *shared, fl_fileio *inner, bool own_inner,
                               fl_fileio **out, fl_error *err)
{
    *out = NULL;
    cache_io *c = calloc(1, sizeof *c);
    if (!c)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (shared) {
        c->cache = shared;
    } else {
        fl_status rc = fl_sql_shared_cache_new(FL_SQL_PRIVATE_CACHE_BYTES, &c->cache, err);
        if (rc != FL_OK) {
            free(c);
            return rc;
        }
        c->own_cache = true;
    }
    const fl_fileio_ops *in = inner->ops;
    c->ops.open = in->open ? cio_open : NULL;
    c->ops.create = in->create ? cio_create : NULL;
    c->ops.remove = in->remove ? cio_remove : NULL;
    c->ops.list = in->list ? cio_list : NULL;
    c->ops.destroy = cio_destroy;
    c->base.ops = &c->ops;
    c->inner = inner;
    c->own_inner = own_inner;
    *out = &c->base;
    return FL_OK;
}

fl_ice_manifest_cache *fl_sql_cache_of_io(const fl_fileio *io)
{
    if (!io || io->ops->destroy != cio_destroy)
        return NULL;
    return ((const cache_io *)io)->cache->ice;
}
