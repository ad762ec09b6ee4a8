/*
 * ranged_read.c - the checks every object store's read_at makes around its
 * ranged GET (S3 "Range", Azure "x-ms-range", both with If-Match on the
 * ETag seen at open).
 *
 * Before: reading past the size fixed at open is FL_ECORRUPT, as for local
 * files; a zero-length read sends nothing. After: the answer must be 206
 * with "Content-Range: bytes a-b/size" and exactly len bytes (200 is
 * accepted for a whole-object read); an object replaced since open is
 * FL_ECONFLICT, never a mix of two versions (412 on If-Match, another total
 * in Content-Range, a longer answer: the last two for servers that ignore
 * If-Match); anything shorter is FL_EIO naming the path. Other statuses are
 * left to the store's own error message (*http_failed).
 */
#include <stdio.h>
#include <string.h>

#include "io/common.h"

fl_status io_read_range_check(fl_file *f, uint64_t off, size_t len, char range[64], bool *done,
                              fl_error *err)
{
    if (off > f->size || len > f->size - off)
        return fl_errorf(
            err, FL_ECORRUPT,
            "%s: read of %zu bytes at offset %llu is past the end of the %llu-byte object", f->path,
            len, (unsigned long long)off, (unsigned long long)f->size);
    *done = len == 0;
    snprintf(range, 64, "bytes=%llu-%llu", (unsigned long long)off,
             (unsigned long long)(off + (len ? len : 1) - 1));
    return FL_OK;
}

/* Checks "bytes a-b/total" against the range asked for. */
static bool content_range_ok(const char *cr, uint64_t a, uint64_t b, uint64_t size)
{
    unsigned long long x, y, t;
    char tail;
    if (sscanf(cr, "bytes %llu-%llu/%llu%c", &x, &y, &t, &tail) != 3)
        return false;
    return x == a && y == b && t == size;
}

fl_status io_read_range_result(fl_file *f, uint64_t off, size_t len, const char *etag,
                               const io_http_response *r, fl_status rc, bool *http_failed,
                               fl_error *err)
{
    *http_failed = false;
    uint64_t last = off + len - 1;
    unsigned long long total = 0;
    if ((rc == FL_OK && r->status == 412) || (rc == FL_EIO && r->overflow))
        rc = fl_errorf(err, FL_ECONFLICT,
                       "%s: the object changed since it was opened (%s; was %llu bytes, ETag %s)",
                       f->path,
                       r->status == 412 ? "If-Match failed" : "longer answer than asked for",
                       (unsigned long long)f->size, etag[0] ? etag : "none");
    else if (rc == FL_OK && r->status != 206 && r->status != 200)
        *http_failed = true;
    else if (rc == FL_OK && r->status == 206 &&
             !content_range_ok(r->content_range, off, last, f->size))
        rc = sscanf(r->content_range, "bytes %*u-%*u/%llu", &total) == 1 && total != f->size
                 ? fl_errorf(
                       err, FL_ECONFLICT,
                       "%s: the object changed since it was opened (%llu bytes now, %llu then)",
                       f->path, total, (unsigned long long)f->size)
                 : fl_errorf(err, FL_EIO, "%s: asked for bytes %llu-%llu, got Content-Range '%s'",
                             f->path, (unsigned long long)off, (unsigned long long)last,
                             r->content_range);
    else if (rc == FL_OK && r->status == 200 && !(off == 0 && len == f->size))
        rc = fl_errorf(err, FL_EIO, "%s: the server ignored the range %llu-%llu (HTTP 200)",
                       f->path, (unsigned long long)off, (unsigned long long)last);
    else if (rc == FL_OK && r->out_len != len)
        rc = fl_errorf(err, FL_EIO, "%s: short read: %zu of %zu bytes at offset %llu", f->path,
                       r->out_len, len, (unsigned long long)off);
    if (rc == FL_OK && !*http_failed) {
        __atomic_fetch_add(&f->bytes_read, (uint64_t)len, __ATOMIC_RELAXED);
        __atomic_fetch_add(&f->reads, 1, __ATOMIC_RELAXED);
    }
    return rc;
}
