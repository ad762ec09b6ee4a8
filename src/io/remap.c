/*
 * remap.c - fl_fileio_remap (s3.h): a FileIO that rewrites path prefixes
 * before delegating to an inner FileIO.
 *
 * Why: Iceberg metadata names absolute locations ("s3a://bucket/t/...",
 * "file:///tmp/t", "/tmp/iceberg/t1", repo-relative "data/persistent/...").
 * A table that was copied or moved (fixtures, warehouses restored elsewhere)
 * is read by mapping those prefixes to where the files are now. The first
 * mapping whose `from` is a prefix of the path wins; paths matching no
 * mapping pass through unchanged. list() maps the prefix going in and hands
 * the callback the inner (rewritten) paths.
 *
 * Ownership: the remap FileIO copies the mapping strings at creation; it
 * borrows inner, which must outlive it. Destroying it does not destroy inner.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/s3.h"

typedef struct remap_io {
    fl_fileio base;
    fl_fileio *inner;
    uint32_t n;
    char **from;
    char **to;
    size_t *from_len;
} remap_io;

/* Returns a malloc'd rewritten path (or a copy), NULL when out of memory. */
static char *map_path(const remap_io *io, const char *path)
{
    for (uint32_t i = 0; i < io->n; i++) {
        size_t fl = io->from_len[i];
        if (strncmp(path, io->from[i], fl) != 0)
            continue;
        const char *rest = path + fl;
        size_t tl = strlen(io->to[i]), rl = strlen(rest);
        /* avoid "dir//file" and "dirfile" when one side lacks the slash */
        bool to_slash = tl > 0 && io->to[i][tl - 1] == '/';
        bool rest_slash = rest[0] == '/';
        char *out = malloc(tl + rl + 2);
        if (!out)
            return NULL;
        memcpy(out, io->to[i], tl);
        size_t k = tl;
        if (to_slash && rest_slash)
            rest++, rl--;
        else if (!to_slash && !rest_slash && tl > 0 && rl > 0 && fl > 0 &&
                 io->from[i][fl - 1] == '/')
            out[k++] = '/';
        memcpy(out + k, rest, rl + 1);
        return out;
    }
    return strdup(path);
}

static fl_status oom(fl_error *err)
{
    return fl_errorf(err, FL_ENOMEM, "out of memory");
}

static fl_status rm_open(fl_fileio *base, const char *path, fl_file **out, fl_error *err)
{
    remap_io *io = (remap_io *)base;
    char *p = map_path(io, path);
    if (!p)
        return oom(err);
    fl_status rc = io->inner->ops->open(io->inner, p, out, err);
    free(p);
    return rc;
}

static fl_status rm_create(fl_fileio *base, const char *path, int flags, fl_output **out,
                           fl_error *err)
{
    remap_io *io = (remap_io *)base;
    char *p = map_path(io, path);
    if (!p)
        return oom(err);
    fl_status rc = io->inner->ops->create(io->inner, p, flags, out, err);
    free(p);
    return rc;
}

static fl_status rm_remove(fl_fileio *base, const char *path, fl_error *err)
{
    remap_io *io = (remap_io *)base;
    char *p = map_path(io, path);
    if (!p)
        return oom(err);
    fl_status rc = io->inner->ops->remove(io->inner, p, err);
    free(p);
    return rc;
}

static fl_status rm_list(fl_fileio *base, const char *prefix,
                         fl_status (*fn)(void *ctx, const char *path, uint64_t size), void *ctx,
                         fl_error *err)
{
    remap_io *io = (remap_io *)base;
    char *p = map_path(io, prefix);
    if (!p)
        return oom(err);
    fl_status rc = io->inner->ops->list(io->inner, p, fn, ctx, err);
    free(p);
    return rc;
}

static void rm_destroy(fl_fileio *base)
{
    remap_io *io = (remap_io *)base;
    if (!io)
        return;
    for (uint32_t i = 0; i < io->n; i++) {
        free(io->from[i]);
        free(io->to[i]);
    }
    free(io->from);
    free(io->to);
    free(io->from_len);
    free(io);
}

static const fl_fileio_ops remap_ops = {rm_open, rm_create, rm_remove, rm_list, rm_destroy};

fl_status fl_fileio_remap(fl_fileio *inner, const fl_path_mapping *maps, uint32_t n,
                          fl_fileio **out, fl_error *err)
{
    *out = NULL;
    if (!inner)
        return fl_errorf(err, FL_EINVAL, "remap FileIO: no inner FileIO");
    remap_io *io = calloc(1, sizeof *io);
    if (!io)
        return oom(err);
    io->base.ops = &remap_ops;
    io->inner = inner;
    io->from = calloc(n ? n : 1, sizeof *io->from);
    io->to = calloc(n ? n : 1, sizeof *io->to);
    io->from_len = calloc(n ? n : 1, sizeof *io->from_len);
    if (!io->from || !io->to || !io->from_len) {
        rm_destroy(&io->base);
        return oom(err);
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!maps[i].from || !maps[i].to) {
            rm_destroy(&io->base);
            return fl_errorf(err, FL_EINVAL, "remap FileIO: mapping %u lacks from/to", i);
        }
        io->from[i] = strdup(maps[i].from);
        io->to[i] = strdup(maps[i].to);
        io->n = i + 1;
        if (!io->from[i] || !io->to[i]) {
            rm_destroy(&io->base);
            return oom(err);
        }
        io->from_len[i] = strlen(maps[i].from);
    }
    *out = &io->base;
    return FL_OK;
}
