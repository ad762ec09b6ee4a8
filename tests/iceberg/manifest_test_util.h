/*
 * manifest_test_util.h - helpers for the manifest tests: a path-remapping
 * FileIO (fixture tables carry s3a://, gs://, repo-relative paths), hex
 * decoding (whole files are read with ft_slurp, floe_test.h).
 */
#ifndef FLOE_TEST_MANIFEST_UTIL_H
#define FLOE_TEST_MANIFEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/io.h"
#include "floe_test.h"

typedef struct remap_io {
    fl_fileio base;
    fl_fileio *inner;
    const char *from; /* prefix to replace */
    const char *to;   /* replacement */
} remap_io;

static void remap_path(remap_io *r, const char *path, char *buf, size_t cap)
{
    size_t fl = r->from ? strlen(r->from) : 0;
    if (fl && !strncmp(path, r->from, fl))
        snprintf(buf, cap, "%s%s", r->to, path + fl);
    else
        snprintf(buf, cap, "%s", path);
}

static fl_status remap_open(fl_fileio *io, const char *path, fl_file **out, fl_error *err)
{
    remap_io *r = (remap_io *)io;
    char buf[4096];
    remap_path(r, path, buf, sizeof buf);
    return fl_fileio_open(r->inner, buf, out, err);
}
static fl_status remap_create(fl_fileio *io, const char *path, int flags, fl_output **out,
                              fl_error *err)
{
    remap_io *r = (remap_io *)io;
    char buf[4096];
    remap_path(r, path, buf, sizeof buf);
    return fl_fileio_create(r->inner, buf, flags, out, err);
}
static fl_status remap_remove(fl_fileio *io, const char *path, fl_error *err)
{
    remap_io *r = (remap_io *)io;
    char buf[4096];
    remap_path(r, path, buf, sizeof buf);
    return fl_fileio_remove(r->inner, buf, err);
}
static fl_status remap_list(fl_fileio *io, const char *prefix,
                            fl_status (*fn)(void *ctx, const char *path, uint64_t size), void *ctx,
                            fl_error *err)
{
    remap_io *r = (remap_io *)io;
    return r->inner->ops->list(r->inner, prefix, fn, ctx, err);
}
static void remap_destroy(fl_fileio *io)
{
    (void)io;
}

static const fl_fileio_ops remap_ops = {remap_open, remap_create, remap_remove, remap_list,
                                        remap_destroy};

static inline void remap_init(remap_io *r, fl_fileio *inner, const char *from, const char *to)
{
    r->base.ops = &remap_ops;
    r->inner = inner;
    r->from = from;
    r->to = to;
}

static inline int hexnib(int c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Decodes hex into a malloc'd buffer; returns length or -1. */
static inline long hex_decode(const char *h, unsigned char **out)
{
    size_t n = strlen(h);
    if (n % 2)
        return -1;
    unsigned char *b = malloc(n / 2 + 1);
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hexnib(h[2 * i]), lo = hexnib(h[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(b);
            return -1;
        }
        b[i] = (unsigned char)(hi << 4 | lo);
    }
    *out = b;
    return (long)(n / 2);
}

#endif
