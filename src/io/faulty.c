/*
 * faulty.c - fault-injecting FileIO wrapper for tests (see io/faulty.h).
 *
 * Each wrapped fl_file / fl_output holds its inner object and a pointer to
 * the wrapper, whose counters decide (atomically) whether an operation is the
 * one to fail. Injected errors say "injected" and name the path, so a test
 * can tell them from real failures.
 */
#include "io/faulty.h"

#include <stdlib.h>
#include <string.h>

typedef struct faulty_io {
    fl_fileio base;
    fl_fileio *inner;
    fl_fault_plan plan;
    fl_fault_counts counts;
} faulty_io;

typedef struct faulty_file {
    fl_file base;
    fl_file *inner;
    faulty_io *io;
} faulty_file;

typedef struct faulty_output {
    fl_output base;
    fl_output *inner;
    faulty_io *io;
    bool write_failed;
} faulty_output;

/* Counts one operation in *counter; true when it is the one to fail. */
static bool hit(faulty_io *io, uint64_t *counter, uint64_t fail_n)
{
    uint64_t n = __atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
    if (fail_n && n == fail_n) {
        __atomic_add_fetch(&io->counts.injected, 1, __ATOMIC_RELAXED);
        return true;
    }
    return false;
}

static fl_status injected(faulty_io *io, fl_error *err, const char *path, const char *what)
{
    return fl_errorf(err, io->plan.code ? io->plan.code : FL_EIO, "%s: %s (injected fault)", path,
                     what);
}

/* ---- files ---- */

static fl_status ff_read_at(fl_file *f, uint64_t off, void *buf, size_t len, fl_error *err)
{
    faulty_file *ff = (faulty_file *)f;
    faulty_io *io = ff->io;
    uint64_t n = __atomic_add_fetch(&io->counts.reads, 1, __ATOMIC_RELAXED);
    if (io->plan.fail_read_n && n == io->plan.fail_read_n) {
        __atomic_add_fetch(&io->counts.injected, 1, __ATOMIC_RELAXED);
        return injected(io, err, f->path, "read failed");
    }
    if (off > f->size || len > f->size - off)
        return fl_errorf(
            err, FL_ECORRUPT,
            "%s: read of %zu bytes at offset %llu is past the end of the %llu-byte file", f->path,
            len, (unsigned long long)off, (unsigned long long)f->size);
    if (io->plan.short_read_n && n == io->plan.short_read_n) {
        __atomic_add_fetch(&io->counts.injected, 1, __ATOMIC_RELAXED);
        fl_status rc = fl_file_read_at(ff->inner, off, buf, len / 2, err);
        if (rc)
            return rc;
        return injected(io, err, f->path, "short read");
    }
    FL_TRY(fl_file_read_at(ff->inner, off, buf, len, err));
    __atomic_fetch_add(&f->bytes_read, (uint64_t)len, __ATOMIC_RELAXED);
    __atomic_fetch_add(&f->reads, 1, __ATOMIC_RELAXED);
    return FL_OK;
}

static void ff_close(fl_file *f)
{
    faulty_file *ff = (faulty_file *)f;
    fl_file_close(ff->inner);
    free(f->path);
    free(ff);
}

static const fl_file_ops faulty_file_ops = {ff_read_at, ff_close};

static fl_status fio_open(fl_fileio *base, const char *path, fl_file **out, fl_error *err)
{
    faulty_io *io = (faulty_io *)base;
    if (hit(io, &io->counts.opens, io->plan.fail_open_n))
        return injected(io, err, path, "open failed");
    fl_file *inner;
    FL_TRY(fl_fileio_open(io->inner, path, &inner, err));
    faulty_file *ff = calloc(1, sizeof *ff);
    char *p = strdup(path);
    if (!ff || !p) {
        free(ff);
        free(p);
        fl_file_close(inner);
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    }
    ff->base.ops = &faulty_file_ops;
    ff->base.path = p;
    ff->base.size = inner->size;
    ff->base.has_mtime = inner->has_mtime;
    ff->base.mtime_us = inner->mtime_us;
    if (io->plan.truncate_to && ff->base.size > io->plan.truncate_to)
        ff->base.size = io->plan.truncate_to;
    ff->inner = inner;
    ff->io = io;
    *out = &ff->base;
    return FL_OK;
}

/* ---- outputs ---- */

static fl_status fo_write(fl_output *o, const void *buf, size_t len, fl_error *err)
{
    faulty_output *fo = (faulty_output *)o;
    faulty_io *io = fo->io;
    if (hit(io, &io->counts.writes, io->plan.fail_write_n)) {
        fo->write_failed = true;
        return injected(io, err, o->path, "write failed");
    }
    fl_status rc = fl_output_write(fo->inner, buf, len, err);
    if (rc) {
        fo->write_failed = true;
        return rc;
    }
    o->written += len;
    return FL_OK;
}

static void fo_free(faulty_output *fo)
{
    free(fo->base.path);
    free(fo);
}

static void fo_abort(fl_output *o)
{
    faulty_output *fo = (faulty_output *)o;
    fl_output_abort(fo->inner);
    fo_free(fo);
}

static fl_status fo_close(fl_output *o, fl_error *err)
{
    faulty_output *fo = (faulty_output *)o;
    faulty_io *io = fo->io;
    uint64_t n = __atomic_add_fetch(&io->counts.closes, 1, __ATOMIC_RELAXED);
    fl_status rc = FL_OK;
    if (io->plan.fail_close_n && n == io->plan.fail_close_n) {
        __atomic_add_fetch(&io->counts.injected, 1, __ATOMIC_RELAXED);
        rc = injected(io, err, o->path, "close failed");
    } else if (!fo->write_failed && hit(io, &io->counts.renames, io->plan.fail_rename_n)) {
        rc = injected(io, err, o->path, "rename into place failed");
    }
    if (rc) {
        fl_output_abort(fo->inner);
        fo_free(fo);
        return rc;
    }
    rc = fl_output_close(fo->inner, err);
    if (rc == FL_OK && io->plan.lost_ack_n && n == io->plan.lost_ack_n) {
        __atomic_add_fetch(&io->counts.injected, 1, __ATOMIC_RELAXED);
        rc = injected(io, err, o->path, "close acknowledgement lost after commit");
    }
    fo_free(fo);
    return rc;
}

static const fl_output_ops faulty_output_ops = {fo_write, fo_close, fo_abort};

static fl_status fio_create(fl_fileio *base, const char *path, int flags, fl_output **out,
                            fl_error *err)
{
    faulty_io *io = (faulty_io *)base;
    if (hit(io, &io->counts.creates, io->plan.fail_create_n))
        return injected(io, err, path, "create failed");
    fl_output *inner;
    FL_TRY(fl_fileio_create(io->inner, path, flags, &inner, err));
    faulty_output *fo = calloc(1, sizeof *fo);
    char *p = strdup(path);
    if (!fo || !p) {
        free(fo);
        free(p);
        fl_output_abort(inner);
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    }
    fo->base.ops = &faulty_output_ops;
    fo->base.path = p;
    fo->inner = inner;
    fo->io = io;
    *out = &fo->base;
    return FL_OK;
}

/* ---- the rest ---- */

static fl_status fio_remove(fl_fileio *base, const char *path, fl_error *err)
{
    faulty_io *io = (faulty_io *)base;
    if (hit(io, &io->counts.removes, io->plan.fail_remove_n))
        return injected(io, err, path, "remove failed");
    return fl_fileio_remove(io->inner, path, err);
}

static fl_status fio_list(fl_fileio *base, const char *prefix,
                          fl_status (*fn)(void *ctx, const char *path, uint64_t size), void *ctx,
                          fl_error *err)
{
    faulty_io *io = (faulty_io *)base;
    return io->inner->ops->list(io->inner, prefix, fn, ctx, err);
}

static void fio_destroy(fl_fileio *base)
{
    free(base);
}

static const fl_fileio_ops faulty_ops = {fio_open, fio_create, fio_remove, fio_list, fio_destroy};

fl_fileio *fl_fileio_faulty(fl_fileio *inner, const fl_fault_plan *plan)
{
    faulty_io *io = calloc(1, sizeof *io);
    if (!io)
        return NULL;
    io->base.ops = &faulty_ops;
    io->inner = inner;
    if (plan)
        io->plan = *plan;
    return &io->base;
}

void fl_faulty_set_plan(fl_fileio *faulty, const fl_fault_plan *plan)
{
    faulty_io *io = (faulty_io *)faulty;
    memset(&io->plan, 0, sizeof io->plan);
    if (plan)
        io->plan = *plan;
    memset(&io->counts, 0, sizeof io->counts);
}

void fl_faulty_counts(fl_fileio *faulty, fl_fault_counts *out)
{
    faulty_io *io = (faulty_io *)faulty;
    out->opens = __atomic_load_n(&io->counts.opens, __ATOMIC_RELAXED);
    out->creates = __atomic_load_n(&io->counts.creates, __ATOMIC_RELAXED);
    out->reads = __atomic_load_n(&io->counts.reads, __ATOMIC_RELAXED);
    out->writes = __atomic_load_n(&io->counts.writes, __ATOMIC_RELAXED);
    out->closes = __atomic_load_n(&io->counts.closes, __ATOMIC_RELAXED);
    out->renames = __atomic_load_n(&io->counts.renames, __ATOMIC_RELAXED);
    out->removes = __atomic_load_n(&io->counts.removes, __ATOMIC_RELAXED);
    out->injected = __atomic_load_n(&io->counts.injected, __ATOMIC_RELAXED);
}
