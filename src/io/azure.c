/*
 * azure.c - the Azure Blob FileIO (floe/azure.h, floe/io.h): open, read_at,
 * list, remove. Writing is in azure_output.c, requests in azure_http.c.
 *
 * open = Get Blob Properties (HEAD: size from Content-Length, ETag kept).
 * read_at = Get Blob with "x-ms-range: bytes=a-b" and "If-Match: <etag>",
 * checked as every store's ranged read is (ranged_read.c: a blob replaced
 * since open is FL_ECONFLICT, short answers FL_EIO, past the end
 * FL_ECORRUPT).
 *
 * list = List Blobs (restype=container&comp=list, prefix, maxresults, marker
 * continuation until NextMarker is empty); paths handed to the callback
 * keep the prefix's scheme and host. remove = Delete Blob; 404 BlobNotFound
 * is success, like S3's DeleteObject. A missing container is FL_ENOTFOUND for
 * open, an empty listing for list (as a missing local directory).
 *
 * Ownership: files and outputs borrow the FileIO's client, so the FileIO
 * must outlive them. The FileIO is immutable after creation and thread-safe.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/azure_internal.h"

typedef struct azure_fileio {
    fl_fileio base;
    azure_client *c;
} azure_fileio;

typedef struct azure_file {
    fl_file base;
    azure_client *c;
    azure_path p;
    char etag[256];
} azure_file;

static fl_status az_read_at(fl_file *f, uint64_t off, void *buf, size_t len, fl_error *err)
{
    azure_file *af = (azure_file *)f;
    char range[64];
    bool done = false;
    FL_TRY(io_read_range_check(f, off, len, range, &done, err));
    if (done)
        return FL_OK;
    io_kv hs[2] = {{"x-ms-range", range}, {"if-match", af->etag}};
    azure_request rq = {.method = "GET",
                        .account = af->p.account,
                        .container = af->p.container,
                        .blob = af->p.blob,
                        .headers = hs,
                        .nheaders = af->etag[0] ? 2 : 1,
                        .out = buf,
                        .out_cap = len};
    io_http_response r;
    fl_status rc = azure_send(af->c, &rq, f->path, &r, err);
    bool http_failed = false;
    rc = io_read_range_result(f, off, len, af->etag, &r, rc, &http_failed, err);
    if (http_failed)
        rc = azure_http_error(af->c, &r, af->p.account, f->path, "Get Blob", err);
    io_http_response_free(&r);
    return rc;
}

static void az_file_close(fl_file *f)
{
    azure_file *af = (azure_file *)f;
    azure_path_free(&af->p);
    free(f->path);
    free(af);
}

static const fl_file_ops az_file_ops = {az_read_at, az_file_close};

static fl_status az_open(fl_fileio *io, const char *path, fl_file **out, fl_error *err)
{
    azure_client *c = ((azure_fileio *)io)->c;
    azure_file *af = calloc(1, sizeof *af);
    if (!af)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    af->base.ops = &az_file_ops;
    af->c = c;
    fl_status rc = azure_parse_path(path, true, &af->p, err);
    if (rc == FL_OK && !(af->base.path = strdup(path)))
        rc = fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    io_http_response r = {0};
    if (rc == FL_OK) {
        azure_request rq = {.method = "HEAD",
                            .account = af->p.account,
                            .container = af->p.container,
                            .blob = af->p.blob};
        rc = azure_send(c, &rq, path, &r, err);
    }
    if (rc == FL_OK && r.status != 200)
        rc = azure_http_error(c, &r, af->p.account, path, "Get Blob Properties", err);
    if (rc == FL_OK && r.content_length < 0)
        rc = fl_errorf(err, FL_EIO, "%s: Get Blob Properties answered without a Content-Length",
                       path);
    if (rc == FL_OK) {
        af->base.size = (uint64_t)r.content_length;
        af->base.has_mtime = r.has_last_modified; /* "$file_modified_time" */
        af->base.mtime_us = r.last_modified_us;
        memcpy(af->etag, r.etag, sizeof af->etag);
    }
    io_http_response_free(&r);
    if (rc != FL_OK) {
        az_file_close(&af->base);
        return rc;
    }
    *out = &af->base;
    return FL_OK;
}

static fl_status az_create(fl_fileio *io, const char *path, int flags, fl_output **out,
                           fl_error *err)
{
    return azure_output_create(((azure_fileio *)io)->c, path, flags, out, err);
}

static fl_status az_remove(fl_fileio *io, const char *path, fl_error *err)
{
    azure_client *c = ((azure_fileio *)io)->c;
    azure_path p;
    FL_TRY(azure_parse_path(path, true, &p, err));
    azure_request rq = {
        .method = "DELETE", .account = p.account, .container = p.container, .blob = p.blob};
    io_http_response r;
    fl_status rc = azure_send(c, &rq, path, &r, err);
    if (rc == FL_OK && r.status != 202 && r.status != 200 && r.status != 404)
        rc = azure_http_error(c, &r, p.account, path, "Delete Blob", err);
    io_http_response_free(&r);
    azure_path_free(&p);
    return rc;
}

/* ---- list ---- */

static fl_status emit_page(const char *prefix, const azure_path *p, const azure_list_page *pg,
                           fl_status (*fn)(void *ctx, const char *path, uint64_t size), void *ctx,
                           fl_error *err)
{
    bool slash = p->prefix_len && prefix[p->prefix_len - 1] == '/';
    for (size_t i = 0; i < pg->n; i++) {
        io_sb s = {0};
        io_sb_printf(&s, "%.*s%s%s", (int)p->prefix_len, prefix, slash ? "" : "/", pg->names[i]);
        if (s.oom) {
            io_sb_free(&s);
            return fl_errorf(err, FL_ENOMEM, "%s: out of memory", prefix);
        }
        fl_status rc = fn(ctx, s.buf.data, pg->sizes[i]);
        io_sb_free(&s);
        FL_TRY(rc);
    }
    return FL_OK;
}

static fl_status list_page(azure_client *c, const char *prefix, const azure_path *p,
                           const char *marker, azure_list_page *page, bool *missing, fl_error *err)
{
    char max[16];
    snprintf(max, sizeof max, "%u", azure_client_page_size(c));
    io_kv q[5] = {{"restype", "container"},
                  {"comp", "list"},
                  {"prefix", p->blob},
                  {"maxresults", max},
                  {"marker", marker}};
    azure_request rq = {.method = "GET",
                        .account = p->account,
                        .container = p->container,
                        .query = q,
                        .nquery = marker ? 5 : 4,
                        .max_body = IO_XML_MAX_INPUT};
    io_http_response r;
    fl_status rc = azure_send(c, &rq, prefix, &r, err);
    *missing =
        rc == FL_OK && r.status == 404 && strcmp(io_http_error_code(&r), "ContainerNotFound") == 0;
    if (rc == FL_OK && r.status != 200 && !*missing)
        rc = azure_http_error(c, &r, p->account, prefix, "List Blobs", err);
    if (rc == FL_OK && !*missing &&
        (rc = azure_xml_parse_list(r.body, r.body_len, page, err)) != FL_OK)
        fl_error_prefix(err, "%s", prefix);
    io_http_response_free(&r);
    return rc;
}

static fl_status az_list(fl_fileio *io, const char *prefix,
                         fl_status (*fn)(void *ctx, const char *path, uint64_t size), void *ctx,
                         fl_error *err)
{
    azure_client *c = ((azure_fileio *)io)->c;
    azure_path p;
    FL_TRY(azure_parse_path(prefix, false, &p, err));
    char *marker = NULL;
    fl_status rc = FL_OK;
    for (;;) {
        azure_list_page page = {0};
        bool missing = false;
        if ((rc = list_page(c, prefix, &p, marker, &page, &missing, err)) != FL_OK || missing)
            break;
        rc = emit_page(prefix, &p, &page, fn, ctx, err);
        bool more = rc == FL_OK && page.next_marker && *page.next_marker;
        if (more && marker && strcmp(marker, page.next_marker) == 0) {
            rc = fl_errorf(err, FL_EIO, "%s: List Blobs returned the same marker twice", prefix);
            more = false;
        }
        free(marker);
        marker = page.next_marker;
        page.next_marker = NULL;
        azure_list_page_free(&page);
        if (!more)
            break;
    }
    free(marker);
    azure_path_free(&p);
    return rc;
}

/* ---- the FileIO ---- */

static void az_destroy(fl_fileio *io)
{
    azure_client_free(((azure_fileio *)io)->c);
    free(io);
}

static const fl_fileio_ops az_ops = {az_open, az_create, az_remove, az_list, az_destroy};

fl_status fl_fileio_azure(const fl_azure_config *cfg, fl_fileio **out, fl_error *err)
{
    azure_fileio *io = calloc(1, sizeof *io);
    if (!io)
        return fl_errorf(err, FL_ENOMEM, "Azure: out of memory");
    fl_status rc = azure_client_new(cfg, &io->c, err);
    if (rc != FL_OK) {
        free(io);
        return rc;
    }
    io->base.ops = &az_ops;
    *out = &io->base;
    return FL_OK;
}
