/*
 * azure_output.c - fl_output onto Azure Blob Storage (block blobs): nothing
 * is visible until close succeeds.
 *
 * The buffering and the parallel parts are the shared io_upload
 * (upload.c); this file supplies Azure's requests. Blocks are block_size
 * bytes (default 16 MiB). A blob that fits is one Put Blob
 * (x-ms-blob-type: BlockBlob) at close; a larger one is Put Block for each
 * block (up to 4 in flight) and Put Block List naming them at close.
 * Uncommitted blocks are invisible (Get Blob Properties says 404, List Blobs
 * leaves them out) and the service discards them after a week or when the
 * blob is next committed, so abort sends nothing.
 *
 * Block ids are base64 of "<upload tag>-<index>", the tag 16 random hex
 * digits per output: two writers uploading blocks to the same name never
 * overwrite each other's blocks, and every id of a blob has the same length,
 * as the service requires.
 *
 * Without FL_CREATE_OVERWRITE, Put Blob and Put Block List carry
 * "If-None-Match: *"; an existing blob answers 409 BlobAlreadyExists (or
 * 412) and close fails with FL_EEXIST, so of two racing creators exactly one
 * wins. Every commit also sets the metadata x-ms-meta-floeupload=<tag>: if a
 * retried conditional commit is refused as existing, Get Blob Properties
 * tells whether the blob is ours (an earlier attempt succeeded but its answer
 * was lost), and then the commit succeeds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "io/azure_internal.h"

#define MAX_BLOCKS 50000

typedef struct azure_output {
    io_upload u; /* first: the fl_output */
    azure_client *c;
    azure_path p;
    int flags;
    char tag[17];
} azure_output;

static void block_id(const azure_output *o, size_t index, char out[IO_UPLOAD_ID_MAX])
{
    char raw[32];
    int n = snprintf(raw, sizeof raw, "%s-%06zu", o->tag, index);
    io_base64_encode(raw, (size_t)n, out);
}

static fl_status put_block(io_upload *u, size_t index, const uint8_t *buf, size_t len,
                           char id[IO_UPLOAD_ID_MAX], fl_error *err)
{
    azure_output *o = (azure_output *)u;
    block_id(o, index, id);
    char what[48];
    snprintf(what, sizeof what, "Put Block %zu", index + 1);
    io_kv q[2] = {{"comp", "block"}, {"blockid", id}};
    azure_request rq = {.method = "PUT",
                        .account = o->p.account,
                        .container = o->p.container,
                        .blob = o->p.blob,
                        .query = q,
                        .nquery = 2,
                        .body = buf,
                        .body_len = len};
    io_http_response r;
    fl_status rc = azure_send(o->c, &rq, u->base.path, &r, err);
    if (rc == FL_OK && r.status != 201)
        rc = azure_http_error(o->c, &r, o->p.account, u->base.path, what, err);
    io_http_response_free(&r);
    return rc;
}

/* A retried conditional commit refused as existing: is the blob ours? */
static bool committed_by_us(azure_output *o, const io_http_response *r)
{
    if (r->attempts < 2)
        return false;
    azure_request rq = {
        .method = "HEAD", .account = o->p.account, .container = o->p.container, .blob = o->p.blob};
    io_http_response h;
    fl_error ignored;
    if (azure_send(o->c, &rq, o->u.base.path, &h, &ignored) != FL_OK)
        return false;
    bool ours = h.status == 200 && strcmp(h.meta_upload, o->tag) == 0;
    io_http_response_free(&h);
    return ours;
}

static fl_status commit_status(azure_output *o, const io_http_response *r, bool cond,
                               const char *what, fl_error *err)
{
    bool exists = r->status == 412 ||
                  (r->status == 409 && strcmp(io_http_error_code(r), "BlobAlreadyExists") == 0);
    if (r->status == 201)
        return FL_OK;
    if (cond && exists && committed_by_us(o, r))
        return FL_OK;
    if (cond && exists)
        return fl_errorf(err, FL_EEXIST,
                         "%s: already exists (%s with If-None-Match: *: HTTP %ld %s)",
                         o->u.base.path, what, r->status, io_http_error_code(r));
    return azure_http_error(o->c, r, o->p.account, o->u.base.path, what, err);
}

/* Sends a commit (Put Blob or Put Block List) with the commit headers. */
static fl_status commit(azure_output *o, const char *what, const io_kv *q, size_t nq,
                        const char *blob_type, const void *body, size_t len, fl_error *err)
{
    bool cond = !(o->flags & FL_CREATE_OVERWRITE);
    io_kv hs[3];
    size_t n = 0;
    hs[n++] = (io_kv){"x-ms-meta-floeupload", o->tag};
    if (blob_type)
        hs[n++] = (io_kv){"x-ms-blob-type", blob_type};
    if (cond)
        hs[n++] = (io_kv){"if-none-match", "*"};
    azure_request rq = {.method = "PUT",
                        .account = o->p.account,
                        .container = o->p.container,
                        .blob = o->p.blob,
                        .query = q,
                        .nquery = nq,
                        .headers = hs,
                        .nheaders = n,
                        .body = body,
                        .body_len = len};
    io_http_response r;
    fl_status rc = azure_send(o->c, &rq, o->u.base.path, &r, err);
    if (rc == FL_OK)
        rc = commit_status(o, &r, cond, what, err);
    io_http_response_free(&r);
    return rc;
}

static fl_status put_blob(io_upload *u, const uint8_t *buf, size_t len, fl_error *err)
{
    return commit((azure_output *)u, "Put Blob", NULL, 0, "BlockBlob", buf, len, err);
}

static fl_status put_block_list(io_upload *u, fl_error *err)
{
    azure_output *o = (azure_output *)u;
    io_sb body = {0};
    io_sb_puts(&body, "<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>");
    for (size_t i = 0; i < u->nparts; i++)
        io_sb_printf(&body, "<Latest>%s</Latest>", u->ids[i]);
    io_sb_puts(&body, "</BlockList>");
    if (body.oom) {
        io_sb_free(&body);
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", u->base.path);
    }
    io_kv q[1] = {{"comp", "blocklist"}};
    fl_status rc = commit(o, "Put Block List", q, 1, NULL, body.buf.data, body.buf.len, err);
    io_sb_free(&body);
    return rc;
}

static void cleanup(io_upload *u)
{
    azure_path_free(&((azure_output *)u)->p);
}

static const io_upload_ops azure_upload_ops = {NULL, put_block, put_blob, put_block_list, cleanup};

static void random_tag(char out[17])
{
    uint8_t b[8];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) { /* never on Linux >= 3.17 */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)out;
        memcpy(b, &x, sizeof b);
    }
    io_hex(b, sizeof b, out);
}

fl_status azure_output_create(azure_client *c, const char *path, int flags, fl_output **out,
                              fl_error *err)
{
    azure_output *o = calloc(1, sizeof *o);
    if (!o)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    o->c = c;
    o->flags = flags;
    random_tag(o->tag);
    fl_status rc =
        io_upload_init(&o->u, &azure_upload_ops, path, azure_client_block_size(c), MAX_BLOCKS, err);
    if (rc == FL_OK)
        rc = azure_parse_path(path, true, &o->p, err);
    if (rc != FL_OK) {
        io_upload_discard(&o->u);
        return rc;
    }
    *out = &o->u.base;
    return FL_OK;
}
