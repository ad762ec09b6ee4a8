/*
 * s3_output.c - fl_output onto S3: nothing is visible until close succeeds.
 *
 * The buffering and the parallel parts are the shared io_upload (upload.c);
 * this file supplies S3's requests. Parts are multipart_threshold bytes
 * (default 16 MiB). An object that fits is one PutObject at close; a larger
 * one is CreateMultipartUpload, UploadPart (ETags kept, up to 4 in flight),
 * CompleteMultipartUpload with the part list. Abort, or any failure, sends
 * AbortMultipartUpload (best effort: its answer is ignored; s3rver answers
 * 405) so no parts are left behind. Real S3 needs parts of >= 5 MiB except the
 * last: thresholds below 5 MiB only work against test servers.
 *
 * Without FL_CREATE_OVERWRITE, both PutObject and CompleteMultipartUpload
 * carry "If-None-Match: *": if the key exists at commit time S3 answers 412
 * and close fails with FL_EEXIST, so of two racing creators exactly one wins
 * (what Iceberg commits rely on). S3's 409 ConditionalRequestConflict (a
 * concurrent conditional write in flight) is retried by s3_http.c; if it
 * persists, close fails with FL_ECONFLICT. No HEAD is sent at create: the
 * conditional commit is the check. A lost answer: if a conditional PUT or
 * Complete succeeded but its answer was lost, the retry sees 412 (or
 * NoSuchUpload); then a HEAD compares the object's ETag with the one our bytes
 * give (MD5 of the body; for multipart S3's MD5-of-part-MD5s "-N") and, if
 * equal, the commit is ours and succeeds. (s3rver's multipart ETags are
 * whole-object MD5s, so there a lost Complete answer stays an error.)
 *
 * CompleteMultipartUpload may answer 200 with an <Error> document (S3 does
 * this for failures after the response started); that is a failure too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/s3_internal.h"

typedef struct s3_output {
    io_upload u; /* first: the fl_output */
    s3_client *c;
    char *bucket, *key;
    int flags;
    char *upload_id;
} s3_output;

static fl_status start_upload(io_upload *u, fl_error *err)
{
    s3_output *o = (s3_output *)u;
    io_kv q[1] = {{"uploads", ""}};
    s3_request rq = {.method = "POST", .bucket = o->bucket, .key = o->key, .query = q, .nquery = 1};
    s3_response r;
    fl_status rc = s3_send(o->c, &rq, u->base.path, &r, err);
    if (rc == FL_OK && r.status != 200)
        rc = s3_http_error(&r, u->base.path, "CreateMultipartUpload", err);
    if (rc == FL_OK && (rc = s3_xml_parse_upload_id(r.body, r.body_len, &o->upload_id, err)))
        fl_error_prefix(err, "%s", u->base.path);
    s3_response_free(&r);
    return rc;
}

static fl_status upload_part(io_upload *u, size_t index, const uint8_t *buf, size_t len,
                             char id[IO_UPLOAD_ID_MAX], fl_error *err)
{
    s3_output *o = (s3_output *)u;
    char num[16], what[48];
    snprintf(num, sizeof num, "%zu", index + 1);
    snprintf(what, sizeof what, "UploadPart %zu", index + 1);
    io_kv q[2] = {{"partNumber", num}, {"uploadId", o->upload_id}};
    s3_request rq = {.method = "PUT",
                     .bucket = o->bucket,
                     .key = o->key,
                     .query = q,
                     .nquery = 2,
                     .body = buf,
                     .body_len = len};
    s3_response r;
    fl_status rc = s3_send(o->c, &rq, u->base.path, &r, err);
    if (rc == FL_OK && r.status != 200)
        rc = s3_http_error(&r, u->base.path, what, err);
    if (rc == FL_OK && !r.etag[0])
        rc = fl_errorf(err, FL_EIO, "%s: %s: no ETag in the answer", u->base.path, what);
    if (rc == FL_OK)
        io_copy_str(id, IO_UPLOAD_ID_MAX, r.etag);
    s3_response_free(&r);
    return rc;
}

static void cleanup(io_upload *u)
{
    s3_output *o = (s3_output *)u;
    if (o->upload_id) { /* best effort: never fails the caller */
        io_kv q[1] = {{"uploadId", o->upload_id}};
        s3_request rq = {
            .method = "DELETE", .bucket = o->bucket, .key = o->key, .query = q, .nquery = 1};
        s3_response r;
        fl_error ignored;
        if (s3_send(o->c, &rq, u->base.path, &r, &ignored) == FL_OK)
            s3_response_free(&r);
        free(o->upload_id);
    }
    free(o->bucket);
    free(o->key);
}

/* The answer to a conditional commit. */
static fl_status commit_status(s3_output *o, const s3_response *r, const char *what, fl_error *err)
{
    if (r->status == 412)
        return fl_errorf(err, FL_EEXIST, "%s: already exists (%s with If-None-Match: *: HTTP 412)",
                         o->u.base.path, what);
    if (r->status != 200)
        return s3_http_error(r, o->u.base.path, what, err);
    io_xml_error e;
    if (r->body_len && io_xml_parse_error(r->body, r->body_len, &e))
        return fl_errorf(err, FL_EIO, "%s: %s: HTTP 200 with error %s: %s", o->u.base.path, what,
                         e.code, e.message);
    return FL_OK;
}

/* ETags compared without their quotes, ignoring hex case. */
static bool etag_eq(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la >= 2 && a[0] == '"' && a[la - 1] == '"')
        a++, la -= 2;
    if (lb >= 2 && b[0] == '"' && b[lb - 1] == '"')
        b++, lb -= 2;
    return la == lb && la && strncasecmp(a, b, la) == 0;
}

/* A conditional commit answered 412 (or NoSuchUpload) after a retry: did an
 * earlier attempt of ours succeed and only its answer get lost? Yes when the
 * object now carries the ETag our bytes produce. */
static bool committed_by_us(s3_output *o, const s3_response *r, const char *want_etag)
{
    bool lost_ack_possible =
        r->attempts > 1 &&
        (r->status == 412 || (r->status == 404 && strcmp(r->error.code, "NoSuchUpload") == 0));
    if (!lost_ack_possible || !want_etag[0])
        return false;
    s3_request rq = {.method = "HEAD", .bucket = o->bucket, .key = o->key};
    s3_response h;
    fl_error ignored;
    if (s3_send(o->c, &rq, o->u.base.path, &h, &ignored) != FL_OK)
        return false;
    bool ours = h.status == 200 && etag_eq(h.etag, want_etag);
    s3_response_free(&h);
    return ours;
}

/* S3's multipart ETag: hex MD5 of the concatenated binary part MD5s, "-N".
 * Empty when a part ETag is not a plain MD5 (e.g. SSE-KMS). */
static void multipart_etag(const s3_output *o, char out[48])
{
    out[0] = '\0';
    uint8_t *md5s = malloc(o->u.nparts * 16 + 1);
    if (!md5s)
        return;
    for (size_t i = 0; i < o->u.nparts; i++) {
        const char *e = o->u.ids[i];
        if (*e == '"')
            e++;
        for (size_t j = 0; j < 16; j++) {
            unsigned x;
            if (sscanf(e + 2 * j, "%2x", &x) != 1) {
                free(md5s);
                return;
            }
            md5s[i * 16 + j] = (uint8_t)x;
        }
    }
    char hex[33];
    io_md5_hex(md5s, o->u.nparts * 16, hex);
    snprintf(out, 48, "%s-%zu", hex, o->u.nparts);
    free(md5s);
}

static fl_status put_single(io_upload *u, const uint8_t *buf, size_t len, fl_error *err)
{
    s3_output *o = (s3_output *)u;
    io_kv hs[1] = {{"if-none-match", "*"}};
    bool cond = !(o->flags & FL_CREATE_OVERWRITE);
    s3_request rq = {.method = "PUT",
                     .bucket = o->bucket,
                     .key = o->key,
                     .headers = hs,
                     .nheaders = cond ? 1 : 0,
                     .body = buf,
                     .body_len = len};
    s3_response r;
    fl_status rc = s3_send(o->c, &rq, o->u.base.path, &r, err);
    char md5[33];
    if (rc == FL_OK && cond && r.status == 412 && r.attempts > 1)
        io_md5_hex(buf ? (const void *)buf : "", len, md5);
    if (rc == FL_OK && !(cond && r.status == 412 && r.attempts > 1 && committed_by_us(o, &r, md5)))
        rc = commit_status(o, &r, "PutObject", err);
    s3_response_free(&r);
    return rc;
}

static fl_status complete(io_upload *u, fl_error *err)
{
    s3_output *o = (s3_output *)u;
    io_sb body = {0};
    io_sb_puts(&body, "<CompleteMultipartUpload>");
    for (size_t i = 0; i < o->u.nparts; i++) {
        io_sb_printf(&body, "<Part><PartNumber>%zu</PartNumber><ETag>", i + 1);
        io_xml_escape(&body, o->u.ids[i]);
        io_sb_puts(&body, "</ETag></Part>");
    }
    io_sb_puts(&body, "</CompleteMultipartUpload>");
    if (body.oom) {
        io_sb_free(&body);
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", o->u.base.path);
    }
    io_kv q[1] = {{"uploadId", o->upload_id}};
    io_kv hs[1] = {{"if-none-match", "*"}};
    bool cond = !(o->flags & FL_CREATE_OVERWRITE);
    s3_request rq = {.method = "POST",
                     .bucket = o->bucket,
                     .key = o->key,
                     .query = q,
                     .nquery = 1,
                     .headers = hs,
                     .nheaders = cond ? 1 : 0,
                     .body = body.buf.data,
                     .body_len = body.buf.len};
    s3_response r;
    fl_status rc = s3_send(o->c, &rq, o->u.base.path, &r, err);
    char want[48] = "";
    if (rc == FL_OK && r.attempts > 1 && (r.status == 412 || r.status == 404))
        multipart_etag(o, want);
    if (rc == FL_OK && !committed_by_us(o, &r, want))
        rc = commit_status(o, &r, "CompleteMultipartUpload", err);
    s3_response_free(&r);
    io_sb_free(&body);
    if (rc == FL_OK) { /* completed: nothing to abort */
        free(o->upload_id);
        o->upload_id = NULL;
    }
    return rc;
}

static const io_upload_ops s3_upload_ops = {start_upload, upload_part, put_single, complete,
                                            cleanup};

fl_status s3_output_create(s3_client *c, const char *path, int flags, fl_output **out,
                           fl_error *err)
{
    s3_output *o = calloc(1, sizeof *o);
    if (!o)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    o->c = c;
    o->flags = flags;
    fl_status rc = io_upload_init(&o->u, &s3_upload_ops, path, s3_client_part_size(c), 10000, err);
    if (rc == FL_OK)
        rc = s3_parse_path(path, true, NULL, &o->bucket, &o->key, err);
    if (rc != FL_OK) {
        io_upload_discard(&o->u);
        return rc;
    }
    *out = &o->u.base;
    return FL_OK;
}
