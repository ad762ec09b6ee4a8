/*
 * memory.c - in-memory FileIO pieces (see floe/io.h): a read-only fl_file
 * over a caller's buffer, an fl_output that collects bytes in a malloc'd
 * buffer, and the NULL-tolerant generic close/abort/destroy entry points.
 *
 * Ownership: the memory file borrows the caller's bytes and owns only its
 * name. The memory output owns its buffer until a successful close hands it
 * to the caller through *result.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/io.h"

void fl_file_close(fl_file *f)
{
    if (f)
        f->ops->close(f);
}

void fl_output_abort(fl_output *o)
{
    if (o)
        o->ops->abort(o);
}

void fl_fileio_destroy(fl_fileio *io)
{
    if (io)
        io->ops->destroy(io);
}

/* ---- memory file ---- */

typedef struct mem_file {
    fl_file base;
    const uint8_t *data;
} mem_file;

static fl_status mem_read_at(fl_file *f, uint64_t off, void *buf, size_t len, fl_error *err)
{
    mem_file *m = (mem_file *)f;
    if (off > f->size || len > f->size - off)
        return fl_errorf(
            err, FL_ECORRUPT,
            "%s: read of %zu bytes at offset %llu is past the end of the %llu-byte file", f->path,
            len, (unsigned long long)off, (unsigned long long)f->size);
    if (len)
        memcpy(buf, m->data + off, len);
    __atomic_fetch_add(&f->bytes_read, (uint64_t)len, __ATOMIC_RELAXED);
    __atomic_fetch_add(&f->reads, 1, __ATOMIC_RELAXED);
    return FL_OK;
}

static void mem_close(fl_file *f)
{
    free(f->path);
    free(f);
}

static const fl_file_ops mem_file_ops = {mem_read_at, mem_close};

fl_status fl_file_from_memory(const void *data, size_t len, const char *name, fl_file **out,
                              fl_error *err)
{
    mem_file *m = calloc(1, sizeof *m);
    if (!m)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    m->base.path = strdup(name ? name : "<memory>");
    if (!m->base.path) {
        free(m);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    m->base.ops = &mem_file_ops;
    m->base.size = len;
    m->data = data;
    *out = &m->base;
    return FL_OK;
}

/* ---- memory output ---- */

typedef struct mem_output {
    fl_output base;
    uint8_t *buf;
    size_t cap;
    uint8_t **result;
    size_t *result_len;
} mem_output;

static fl_status mem_write(fl_output *o, const void *buf, size_t len, fl_error *err)
{
    mem_output *m = (mem_output *)o;
    size_t used = (size_t)o->written;
    if (len > SIZE_MAX - used)
        return fl_errorf(err, FL_ELIMIT, "%s: output too large", o->path);
    if (used + len > m->cap) {
        size_t ncap = m->cap ? m->cap : 4096;
        while (ncap < used + len)
            ncap = ncap > SIZE_MAX / 2 ? used + len : ncap * 2;
        uint8_t *nb = realloc(m->buf, ncap);
        if (!nb)
            return fl_errorf(err, FL_ENOMEM, "%s: out of memory for %zu bytes", o->path, ncap);
        m->buf = nb;
        m->cap = ncap;
    }
    if (len)
        memcpy(m->buf + used, buf, len);
    o->written += len;
    return FL_OK;
}

static void mem_abort(fl_output *o)
{
    mem_output *m = (mem_output *)o;
    free(m->buf);
    free(o->path);
    free(m);
}

static fl_status mem_out_close(fl_output *o, fl_error *err)
{
    mem_output *m = (mem_output *)o;
    if (!m->buf) {
        m->buf = malloc(1); /* a valid, freeable pointer even for 0 bytes */
        if (!m->buf) {
            fl_status rc = fl_errorf(err, FL_ENOMEM, "%s: out of memory", o->path);
            mem_abort(o);
            return rc;
        }
    }
    *m->result = m->buf;
    *m->result_len = (size_t)o->written;
    m->buf = NULL;
    mem_abort(o);
    return FL_OK;
}

static const fl_output_ops mem_output_ops = {mem_write, mem_out_close, mem_abort};

fl_status fl_output_memory(const char *name, uint8_t **result, size_t *result_len, fl_output **out,
                           fl_error *err)
{
    mem_output *m = calloc(1, sizeof *m);
    if (!m)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    m->base.path = strdup(name ? name : "<memory>");
    if (!m->base.path) {
        free(m);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    m->base.ops = &mem_output_ops;
    m->result = result;
    m->result_len = result_len;
    *out = &m->base;
    return FL_OK;
}
