/*
 * io.h - FileIO: the only way libfloe touches files or object stores.
 *
 * Readers see a file as a size plus ranged reads (read_at), which maps onto
 * pread() locally and onto ranged GETs on S3. Writers see an append-only
 * output stream that becomes visible only when closed successfully; a failed
 * or aborted output leaves nothing behind at its path (local: temp file +
 * rename; S3: multipart upload + complete).
 *
 * Every fl_file counts the bytes and calls it served, so tests can prove that
 * a projected or pruned scan did not read what it should have skipped.
 *
 * Ownership: fl_fileio_open() returns an fl_file the caller closes with
 * fl_file_close(). fl_fileio_create() returns an fl_output that the caller
 * must either fl_output_close() (commit) or fl_output_abort() (discard);
 * both free it. Thread-safety: one fl_file may be read from several threads
 * at once (read_at is positionless); an fl_output belongs to one thread.
 */
#ifndef FLOE_IO_H
#define FLOE_IO_H

#include "floe/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_file fl_file;
typedef struct fl_output fl_output;
typedef struct fl_fileio fl_fileio;

typedef struct fl_file_ops {
    /* Reads exactly len bytes at offset into buf; a short file is FL_ECORRUPT/FL_EIO. */
    fl_status (*read_at)(fl_file *f, uint64_t offset, void *buf, size_t len, fl_error *err);
    void (*close)(fl_file *f); /* frees f */
} fl_file_ops;

struct fl_file {
    const fl_file_ops *ops;
    char *path;          /* as opened; owned by the file, for error messages */
    uint64_t size;       /* total size in bytes, known at open */
    uint64_t bytes_read; /* statistics: bytes served by read_at (atomic adds) */
    uint64_t reads;      /* statistics: read_at calls */
    /* last modification (µs since the epoch), known at open when the store
     * tells it (local files, S3 and Azure do; has_mtime false otherwise) */
    bool has_mtime;
    int64_t mtime_us;
};

typedef struct fl_output_ops {
    fl_status (*write)(fl_output *o, const void *buf, size_t len, fl_error *err);
    /* Makes the object durable and visible at its path, then frees o. */
    fl_status (*close)(fl_output *o, fl_error *err);
    /* Discards everything written, then frees o. Never fails. */
    void (*abort)(fl_output *o);
} fl_output_ops;

struct fl_output {
    const fl_output_ops *ops;
    char *path;       /* final path, owned by the output */
    uint64_t written; /* bytes written so far (= current offset) */
};

/* Flags for fl_fileio_create(). */
enum {
    FL_CREATE_OVERWRITE = 1, /* replace an existing object (default: fail with FL_EEXIST) */
};

typedef struct fl_fileio_ops {
    fl_status (*open)(fl_fileio *io, const char *path, fl_file **out, fl_error *err);
    fl_status (*create)(fl_fileio *io, const char *path, int flags, fl_output **out, fl_error *err);
    fl_status (*remove)(fl_fileio *io, const char *path, fl_error *err);
    /* Calls fn for every object whose path starts with prefix (recursive). */
    fl_status (*list)(fl_fileio *io, const char *prefix,
                      fl_status (*fn)(void *ctx, const char *path, uint64_t size), void *ctx,
                      fl_error *err);
    void (*destroy)(fl_fileio *io);
} fl_fileio_ops;

struct fl_fileio {
    const fl_fileio_ops *ops;
};

/* The local-filesystem FileIO. Paths are plain paths or file:// URIs.
 * Returns NULL only when out of memory. Free with fl_fileio_destroy(). */
FL_API fl_fileio *fl_fileio_local(void);

static inline fl_status fl_fileio_open(fl_fileio *io, const char *path, fl_file **out,
                                       fl_error *err)
{
    return io->ops->open(io, path, out, err);
}
static inline fl_status fl_fileio_create(fl_fileio *io, const char *path, int flags,
                                         fl_output **out, fl_error *err)
{
    return io->ops->create(io, path, flags, out, err);
}
static inline fl_status fl_fileio_remove(fl_fileio *io, const char *path, fl_error *err)
{
    return io->ops->remove(io, path, err);
}
FL_API void fl_fileio_destroy(fl_fileio *io); /* NULL is allowed */

static inline fl_status fl_file_read_at(fl_file *f, uint64_t off, void *buf, size_t len,
                                        fl_error *err)
{
    return f->ops->read_at(f, off, buf, len, err);
}
FL_API void fl_file_close(fl_file *f); /* NULL is allowed */

/* A read-only file over a caller-owned memory buffer (fuzzing, tests, cached
 * footers). The buffer must outlive the file. */
FL_API fl_status fl_file_from_memory(const void *data, size_t len, const char *name, fl_file **out,
                                     fl_error *err);

static inline fl_status fl_output_write(fl_output *o, const void *buf, size_t len, fl_error *err)
{
    return o->ops->write(o, buf, len, err);
}
static inline fl_status fl_output_close(fl_output *o, fl_error *err)
{
    return o->ops->close(o, err);
}
FL_API void fl_output_abort(fl_output *o); /* NULL is allowed */

/* An output that collects bytes in memory (tests, fuzzing, manifests before
 * upload). On a successful fl_output_close(), *result receives a malloc'd
 * buffer holding everything written (the caller frees it) and *result_len its
 * length; abort leaves them untouched. */
FL_API fl_status fl_output_memory(const char *name, uint8_t **result, size_t *result_len,
                                  fl_output **out, fl_error *err);

#ifdef __cplusplus
}
#endif
#endif
