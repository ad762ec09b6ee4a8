/*
 * s3.c - the S3 FileIO (floe/s3.h, floe/io.h): open, read_at, list, remove,
 * fl_s3_delete_many. Writing is in s3_output.c, HTTP in s3_http.c.
 *
 * open = HEAD (size from Content-Length, ETag kept). read_at = one GET with
 * "Range: bytes=a-b" and "If-Match: <etag>" (an object replaced since open is
 * FL_ECONFLICT, never a mix of two versions: also detected by a changed size in
 * Content-Range or a longer answer, for servers that ignore If-Match); the answer must be 206 with
 * "Content-Range: bytes a-b/size" and exactly len bytes (200 is accepted for a
 * whole-object read); anything shorter is FL_EIO naming the key. Reading past
 * the size fixed at open is FL_ECORRUPT, as for local files.
 *
 * list = ListObjectsV2 (prefix, continuation-token paging, 1000 keys a page);
 * paths handed to the callback keep the scheme of the prefix (s3a:// stays
 * s3a://); keys ending in '/' (console "folder" markers) are skipped, as local
 * listing skips directories. remove = DeleteObject (S3 answers 204 whether or not the key
 * existed, so removing a missing key succeeds). fl_s3_delete_many = one
 * DeleteObjects POST (Quiet, Content-MD5) per bucket run of <= 1000 keys.
 *
 * Ownership: files and outputs borrow the FileIO's client, so the FileIO
 * must outlive them. The FileIO itself is immutable after creation and
 * thread-safe (s3_http.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/s3_internal.h"

typedef struct s3_fileio {
    fl_fileio base;
    s3_client *c;
} s3_fileio;

typedef struct s3_file {
    fl_file base;
    s3_client *c;
    char *bucket, *key;
    char etag[256];
} s3_file;

static const fl_fileio_ops s3_ops;

/* ---- reading ---- */

static fl_status s3_read_at(fl_file *f, uint64_t off, void *buf, size_t len, fl_error *err)
{
    s3_file *sf = (s3_file *)f;
    char range[64];
    bool done = false;
    FL_TRY(io_read_range_check(f, off, len, range, &done, err));
    if (done)
        return FL_OK;
    io_kv hs[2] = {{"range", range}, {"if-match", sf->etag}};
    s3_request rq = {.method = "GET",
                     .bucket = sf->bucket,
                     .key = sf->key,
                     .headers = hs,
                     .nheaders = sf->etag[0] ? 2 : 1,
                     .out = buf,
                     .out_cap = len};
    s3_response r;
    fl_status rc = s3_send(sf->c, &rq, f->path, &r, err);
    bool http_failed = false;
    rc = io_read_range_result(f, off, len, sf->etag, &r, rc, &http_failed, err);
    if (http_failed)
        rc = s3_http_error(&r, f->path, range, err);
    s3_response_free(&r);
    return rc;
}

static void s3_file_close(fl_file *f)
{
    s3_file *sf = (s3_file *)f;
    free(sf->bucket);
    free(sf->key);
    free(f->path);
    free(sf);
}

static const fl_file_ops s3_file_ops = {s3_read_at, s3_file_close};

static fl_status s3_open(fl_fileio *io, const char *path, fl_file **out, fl_error *err)
{
    s3_client *c = ((s3_fileio *)io)->c;
    s3_file *sf = calloc(1, sizeof *sf);
    if (!sf)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    sf->base.ops = &s3_file_ops;
    sf->c = c;
    fl_status rc = s3_parse_path(path, true, NULL, &sf->bucket, &sf->key, err);
    if (rc == FL_OK && !(sf->base.path = strdup(path)))
        rc = fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    s3_response r = {0};
    if (rc == FL_OK) {
        s3_request rq = {.method = "HEAD", .bucket = sf->bucket, .key = sf->key};
        rc = s3_send(c, &rq, path, &r, err);
    }
    if (rc == FL_OK && r.status != 200)
        rc = s3_http_error(&r, path, NULL, err);
    if (rc == FL_OK && r.content_length < 0)
        rc = fl_errorf(err, FL_EIO, "%s: HEAD answered without a Content-Length", path);
    if (rc == FL_OK) {
        sf->base.size = (uint64_t)r.content_length;
        sf->base.has_mtime = r.has_last_modified; /* "$file_modified_time" */
        sf->base.mtime_us = r.last_modified_us;
        memcpy(sf->etag, r.etag, sizeof sf->etag);
    }
    s3_response_free(&r);
    if (rc != FL_OK) {
        s3_file_close(&sf->base);
        return rc;
    }
    *out = &sf->base;
    return FL_OK;
}

/* ---- create, remove ---- */

static fl_status s3_create(fl_fileio *io, const char *path, int flags, fl_output **out,
                           fl_error *err)
{
    return s3_output_create(((s3_fileio *)io)->c, path, flags, out, err);
}

static fl_status s3_remove(fl_fileio *io, const char *path, fl_error *err)
{
    char *bucket, *key;
    FL_TRY(s3_parse_path(path, true, NULL, &bucket, &key, err));
    s3_request rq = {.method = "DELETE", .bucket = bucket, .key = key};
    s3_response r;
    fl_status rc = s3_send(((s3_fileio *)io)->c, &rq, path, &r, err);
    if (rc == FL_OK && r.status != 204 && r.status != 200)
        rc = s3_http_error(&r, path, "DeleteObject", err);
    s3_response_free(&r);
    free(bucket);
    free(key);
    return rc;
}

/* ---- list ---- */

static fl_status emit_page(const char *prefix, size_t scheme_len, const char *bucket,
                           const s3_list_page *p,
                           fl_status (*fn)(void *ctx, const char *path, uint64_t size), void *ctx,
                           fl_error *err)
{
    for (size_t i = 0; i < p->n; i++) {
        size_t kl = strlen(p->keys[i]);
        if (kl && p->keys[i][kl - 1] == '/')
            continue; /* a "folder" marker, not a file */
        io_sb s = {0};
        io_sb_printf(&s, "%.*s%s/%s", (int)scheme_len, prefix, bucket, p->keys[i]);
        if (s.oom) {
            io_sb_free(&s);
            return fl_errorf(err, FL_ENOMEM, "%s: out of memory", prefix);
        }
        fl_status rc = fn(ctx, s.buf.data, p->sizes[i]);
        io_sb_free(&s);
        FL_TRY(rc);
    }
    return FL_OK;
}

static fl_status list_page(s3_client *c, const char *prefix, const char *bucket, const char *key,
                           const char *token, s3_list_page *page, fl_error *err)
{
    io_kv q[3] = {{"list-type", "2"}, {"prefix", key}, {"continuation-token", token}};
    s3_request rq = {.method = "GET",
                     .bucket = bucket,
                     .query = q,
                     .nquery = token ? 3 : 2,
                     .max_body = IO_XML_MAX_INPUT};
    s3_response r;
    fl_status rc = s3_send(c, &rq, prefix, &r, err);
    if (rc == FL_OK && r.status != 200)
        rc = s3_http_error(&r, prefix, "ListObjectsV2", err);
    if (rc == FL_OK && (rc = s3_xml_parse_list(r.body, r.body_len, page, err)) != FL_OK)
        fl_error_prefix(err, "%s", prefix);
    s3_response_free(&r);
    return rc;
}

static fl_status s3_list(fl_fileio *io, const char *prefix,
                         fl_status (*fn)(void *ctx, const char *path, uint64_t size), void *ctx,
                         fl_error *err)
{
    s3_client *c = ((s3_fileio *)io)->c;
    char *bucket, *key, *token = NULL;
    size_t sl;
    FL_TRY(s3_parse_path(prefix, false, &sl, &bucket, &key, err));
    fl_status rc = FL_OK;
    for (;;) {
        s3_list_page page;
        if ((rc = list_page(c, prefix, bucket, key, token, &page, err)) != FL_OK)
            break;
        rc = emit_page(prefix, sl, bucket, &page, fn, ctx, err);
        bool more = rc == FL_OK && page.truncated;
        if (more && token && strcmp(token, page.next_token) == 0)
            rc = fl_errorf(err, FL_EIO,
                           "%s: ListObjectsV2 returned the same continuation token twice", prefix),
            more = false;
        free(token);
        token = page.next_token;
        page.next_token = NULL;
        s3_list_page_free(&page);
        if (!more)
            break;
    }
    free(token);
    free(bucket);
    free(key);
    return rc;
}

/* ---- DeleteObjects ---- */

typedef struct del_err {
    const char *bucket;
    fl_error *err;
    fl_status rc;
} del_err;

static fl_status on_delete_error(void *ctx, const char *key, const char *code, const char *msg)
{
    del_err *d = ctx;
    if (strcmp(code, "NoSuchKey") == 0 || d->rc != FL_OK)
        return FL_OK;
    d->rc =
        fl_errorf(d->err, FL_EIO, "s3://%s/%s: DeleteObjects: %s: %s", d->bucket, key, code, msg);
    return FL_OK;
}

static fl_status delete_batch(s3_client *c, const char *bucket, char **keys, size_t n,
                              fl_error *err)
{
    io_sb body = {0};
    io_sb_puts(&body, "<Delete><Quiet>true</Quiet>");
    for (size_t i = 0; i < n; i++) {
        io_sb_puts(&body, "<Object><Key>");
        io_xml_escape(&body, keys[i]);
        io_sb_puts(&body, "</Key></Object>");
    }
    io_sb_puts(&body, "</Delete>");
    char where[300];
    snprintf(where, sizeof where, "s3://%s", bucket);
    if (body.oom) {
        io_sb_free(&body);
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", where);
    }
    char md5[25];
    io_md5_base64(body.buf.data, body.buf.len, md5);
    io_kv q[1] = {{"delete", ""}};
    io_kv hs[1] = {{"content-md5", md5}};
    s3_request rq = {.method = "POST",
                     .bucket = bucket,
                     .query = q,
                     .nquery = 1,
                     .headers = hs,
                     .nheaders = 1,
                     .body = body.buf.data,
                     .body_len = body.buf.len,
                     .max_body = IO_XML_MAX_INPUT};
    s3_response r;
    fl_status rc = s3_send(c, &rq, where, &r, err);
    if (rc == FL_OK && r.status != 200)
        rc = s3_http_error(&r, where, "DeleteObjects", err);
    if (rc == FL_OK) {
        del_err d = {bucket, err, FL_OK};
        rc = s3_xml_parse_delete_result(r.body, r.body_len, on_delete_error, &d, err);
        if (rc == FL_OK)
            rc = d.rc;
    }
    s3_response_free(&r);
    io_sb_free(&body);
    return rc;
}

static fl_status delete_s3(s3_client *c, const char *const *paths, size_t n, fl_error *err)
{
    char **keys = calloc(n < 1000 ? n : 1000, sizeof *keys);
    char *bucket = NULL;
    size_t nk = 0;
    fl_status rc = keys ? FL_OK : fl_errorf(err, FL_ENOMEM, "delete: out of memory");
    for (size_t i = 0; rc == FL_OK && i <= n; i++) {
        char *b = NULL, *k = NULL;
        if (i < n && (rc = s3_parse_path(paths[i], true, NULL, &b, &k, err)) != FL_OK)
            break;
        if (nk && (i == n || nk == 1000 || strcmp(b, bucket) != 0)) {
            rc = delete_batch(c, bucket, keys, nk, err);
            for (size_t j = 0; j < nk; j++)
                free(keys[j]);
            nk = 0;
        }
        if (i < n && rc == FL_OK) {
            free(bucket);
            bucket = b;
            keys[nk++] = k;
        } else {
            free(b);
            free(k);
        }
    }
    for (size_t j = 0; j < nk; j++)
        free(keys[j]);
    free(keys);
    free(bucket);
    return rc;
}

fl_status fl_s3_delete_many(fl_fileio *io, const char *const *paths, size_t n, fl_error *err)
{
    if (n == 0)
        return FL_OK;
    if (io->ops == &s3_ops)
        return delete_s3(((s3_fileio *)io)->c, paths, n, err);
    /* other FileIOs: non-S3 paths one by one, S3 paths batched when io
     * routes them to an S3 FileIO (fl_fileio_default) */
    const char **sp = malloc(n * sizeof *sp);
    if (!sp)
        return fl_errorf(err, FL_ENOMEM, "delete: out of memory");
    size_t m = 0;
    fl_status rc = FL_OK;
    for (size_t i = 0; i < n && rc == FL_OK; i++) {
        if (s3_is_s3_path(paths[i]))
            sp[m++] = paths[i];
        else
            rc = fl_fileio_remove(io, paths[i], err);
    }
    fl_fileio *s3 = rc == FL_OK && m ? s3_default_target(io, err, &rc) : NULL;
    if (s3)
        rc = delete_s3(((s3_fileio *)s3)->c, sp, m, err);
    else
        for (size_t i = 0; i < m && rc == FL_OK; i++)
            rc = fl_fileio_remove(io, sp[i], err);
    free(sp);
    return rc;
}

/* ---- the FileIO ---- */

static void s3_destroy(fl_fileio *io)
{
    s3_client_free(((s3_fileio *)io)->c);
    free(io);
}

static const fl_fileio_ops s3_ops = {s3_open, s3_create, s3_remove, s3_list, s3_destroy};

fl_status fl_fileio_s3(const fl_s3_config *cfg, fl_fileio **out, fl_error *err)
{
    s3_fileio *io = calloc(1, sizeof *io);
    if (!io)
        return fl_errorf(err, FL_ENOMEM, "S3: out of memory");
    fl_status rc = s3_client_new(cfg, &io->c, err);
    if (rc != FL_OK) {
        free(io);
        return rc;
    }
    io->base.ops = &s3_ops;
    *out = &io->base;
    return FL_OK;
}
