/*
 * upload.c - the buffered, part-parallel fl_output the object stores share
 * (S3 multipart uploads, Azure block blobs); the store supplies the
 * requests through io_upload_ops (io/common.h).
 *
 * Bytes collect in a buffer that grows up to the part size. An object that
 * fits is one ops->single at close. When more bytes arrive while the buffer
 * is full, ops->start runs once (S3: CreateMultipartUpload) and the full
 * buffer goes out as part 1 (ops->part, its id kept: S3's ETag, Azure's
 * block id) on a thread of its own while writing goes on into a fresh buffer;
 * at most 4 parts are in flight (memory: 5 part buffers), the oldest is
 * waited for before a fifth starts, and a failed part fails the next write or
 * close. close uploads the rest as the last part, waits for all parts and
 * calls ops->complete, which reads the part ids. Abort, or any failure,
 * waits for the parts in flight and calls ops->cleanup (S3 sends
 * AbortMultipartUpload; Azure's uncommitted blocks expire on their own), so
 * nothing becomes visible.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "io/common.h"

/* One part on its own thread; owns buf until collected. */
typedef struct part_job {
    io_upload *u;
    size_t index; /* 0-based */
    uint8_t *buf;
    size_t len;
    pthread_t th;
    bool threaded;
    fl_status rc;
    fl_error err;
    char id[IO_UPLOAD_ID_MAX];
} part_job;

static void *part_thread(void *arg)
{
    part_job *j = arg;
    j->rc = j->u->ops->part(j->u, j->index, j->buf, j->len, j->id, &j->err);
    return NULL;
}

/* Waits for the oldest in-flight part and records its outcome. */
static void collect_oldest(io_upload *u)
{
    part_job *j = u->jobs[0];
    memmove(u->jobs, u->jobs + 1, (u->njobs - 1) * sizeof *u->jobs);
    u->njobs--;
    if (j->threaded)
        pthread_join(j->th, NULL);
    if (j->rc == FL_OK && !(u->ids[j->index] = strdup(j->id)))
        j->rc = fl_errorf(&j->err, FL_ENOMEM, "%s: out of memory", u->base.path);
    if (j->rc != FL_OK && u->part_rc == FL_OK) {
        u->part_rc = j->rc;
        u->part_err = j->err;
    }
    free(j->buf);
    free(j);
}

static fl_status part_status(io_upload *u, fl_error *err)
{
    if (u->part_rc != FL_OK && err)
        *err = u->part_err;
    return u->part_rc;
}

static fl_status join_all(io_upload *u, fl_error *err)
{
    while (u->njobs)
        collect_oldest(u);
    return part_status(u, err);
}

/* Hands the full buffer to a part upload (on a thread, at most
 * IO_UPLOAD_INFLIGHT at once; inline if no thread can be started). */
static fl_status upload_part(io_upload *u, fl_error *err)
{
    if (!u->started) {
        if (u->ops->start)
            FL_TRY(u->ops->start(u, err));
        u->started = true;
    }
    if (u->nparts >= u->max_parts)
        return fl_errorf(err, FL_ELIMIT, "%s: more than %zu parts (raise the part size)",
                         u->base.path, u->max_parts);
    if (u->nparts == u->cap_parts) {
        size_t nc = u->cap_parts ? u->cap_parts * 2 : 16;
        char **e = realloc(u->ids, nc * sizeof *e);
        if (!e)
            return fl_errorf(err, FL_ENOMEM, "%s: out of memory", u->base.path);
        u->ids = e;
        u->cap_parts = nc;
    }
    if (u->njobs == IO_UPLOAD_INFLIGHT)
        collect_oldest(u);
    FL_TRY(part_status(u, err));
    part_job *j = calloc(1, sizeof *j);
    if (!j)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", u->base.path);
    u->ids[u->nparts] = NULL;
    *j = (part_job){.u = u, .index = u->nparts++, .buf = u->buf, .len = u->len};
    u->buf = NULL;
    u->len = u->cap = 0;
    j->threaded = pthread_create(&j->th, NULL, part_thread, j) == 0;
    if (!j->threaded)
        part_thread(j);
    u->jobs[u->njobs++] = j;
    return FL_OK;
}

static fl_status grow(io_upload *u, size_t want, fl_error *err)
{
    if (want <= u->cap)
        return FL_OK;
    size_t nc = u->cap ? u->cap : 64 * 1024;
    while (nc < want)
        nc *= 2;
    if (nc > u->part_size || u->started) /* parts are full-size */
        nc = u->part_size;
    uint8_t *nb = realloc(u->buf, nc);
    if (!nb)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory (%zu-byte buffer)", u->base.path, nc);
    u->buf = nb;
    u->cap = nc;
    return FL_OK;
}

static fl_status up_write(fl_output *out, const void *data, size_t len, fl_error *err)
{
    io_upload *u = (io_upload *)out;
    if (u->failed)
        return fl_errorf(err, FL_EIO, "%s: write after a failed write", out->path);
    const uint8_t *p = data;
    size_t left = len;
    fl_status rc = FL_OK;
    while (left && rc == FL_OK) {
        if (u->len == u->part_size && (rc = upload_part(u, err)) != FL_OK)
            break;
        size_t n = u->part_size - u->len < left ? u->part_size - u->len : left;
        if ((rc = grow(u, u->len + n, err)) != FL_OK)
            break;
        memcpy(u->buf + u->len, p, n);
        u->len += n;
        p += n;
        left -= n;
    }
    if (rc != FL_OK) {
        u->failed = true;
        return rc;
    }
    out->written += len;
    return FL_OK;
}

static void upload_free(io_upload *u)
{
    join_all(u, NULL); /* no thread may outlive u */
    u->ops->cleanup(u);
    for (size_t i = 0; i < u->nparts; i++)
        free(u->ids[i]);
    free(u->ids);
    free(u->buf);
    free(u->base.path);
    free(u);
}

static void up_abort(fl_output *out)
{
    upload_free((io_upload *)out);
}

static fl_status up_close(fl_output *out, fl_error *err)
{
    io_upload *u = (io_upload *)out;
    fl_status rc = FL_OK;
    if (u->failed)
        rc = fl_errorf(err, FL_EIO, "%s: not committed: an earlier write failed", out->path);
    else if (!u->started)
        rc = u->ops->single(u, u->buf, u->len, err);
    else if ((!u->len || (rc = upload_part(u, err)) == FL_OK) && (rc = join_all(u, err)) == FL_OK)
        rc = u->ops->complete(u, err);
    upload_free(u);
    return rc;
}

static const fl_output_ops upload_output_ops = {up_write, up_close, up_abort};

fl_status io_upload_init(io_upload *u, const io_upload_ops *ops, const char *path,
                         uint64_t part_size, size_t max_parts, fl_error *err)
{
    u->base.ops = &upload_output_ops;
    u->ops = ops;
    u->part_size = part_size > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)part_size;
    u->max_parts = max_parts;
    if (!(u->base.path = strdup(path)))
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    return FL_OK;
}

void io_upload_discard(io_upload *u)
{
    upload_free(u);
}
