/*
 * fileio_live.h - helpers the live object-store tests share (test_s3_live.c,
 * test_azure_live.c): whole-object put and get, a deterministic byte
 * pattern, and a list callback that collects paths.
 */
#ifndef FLOE_TESTS_FILEIO_LIVE_H
#define FLOE_TESTS_FILEIO_LIVE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe/io.h"

static inline fl_status live_put(fl_fileio *io, const char *path, const void *data, size_t len,
                                 int flags, fl_error *err)
{
    fl_output *o = NULL;
    FL_TRY(fl_fileio_create(io, path, flags, &o, err));
    fl_status rc = fl_output_write(o, data, len, err);
    if (rc != FL_OK) {
        fl_output_abort(o);
        return rc;
    }
    return fl_output_close(o, err);
}

/* Reads a whole object into a malloc'd buffer (NULL on failure). */
static inline uint8_t *live_get(fl_fileio *io, const char *path, size_t *len, fl_error *err)
{
    fl_file *f = NULL;
    if (fl_fileio_open(io, path, &f, err) != FL_OK)
        return NULL;
    *len = (size_t)f->size;
    uint8_t *buf = malloc(*len + 1);
    if (buf && fl_file_read_at(f, 0, buf, *len, err) != FL_OK) {
        free(buf);
        buf = NULL;
    }
    fl_file_close(f);
    return buf;
}

static inline uint8_t live_gen(uint64_t i)
{
    uint64_t x = i * 0x9E3779B97F4A7C15ULL;
    return (uint8_t)(x >> 56 ^ x >> 29 ^ i);
}

typedef struct live_collect {
    char **paths;
    uint64_t total;
    size_t n, cap;
} live_collect;

static inline fl_status live_collect_fn(void *ctx, const char *path, uint64_t size)
{
    live_collect *c = ctx;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->paths = realloc(c->paths, c->cap * sizeof *c->paths);
    }
    c->paths[c->n++] = strdup(path);
    c->total += size;
    return FL_OK;
}

static inline void live_collect_free(live_collect *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->paths[i]);
    free(c->paths);
    memset(c, 0, sizeof *c);
}

#endif
