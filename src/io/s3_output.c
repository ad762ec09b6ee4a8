/*
 * s3_output.c - fl_output onto S3: nothing is visible until close succeeds.
 *
 * Bytes collect in a buffer that grows up to the part size
 * (multipart_threshold, default 16 MiB). An object that fits is one PutObject
 * at close. When more bytes arrive while the buffer is full, a multipart
 * upload starts (CreateMultipartUpload) and the full buffer goes out as part 1
 * (UploadPart, ETag kept) on a thread of its own while writing goes on into a
 * fresh buffer; at most 4 parts are in flight (memory: 5 part buffers), the
 * oldest is waited for before a fifth starts, and a failed part fails the
 * next write or close. close uploads the rest as the last part, waits for all
 * parts and sends CompleteMultipartUpload with the part list. Abort, or any failure, sends
 * AbortMultipartUpload (best effort: its answer is ignored; s3rver answers 405)
 * so no parts are left behind. Real S3 needs parts of >= 5 MiB except the
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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/s3_internal.h"

#define MAX_INFLIGHT 4 /* parts uploading at once, each on its own thread */

typedef struct s3_output s3_output;

/* One UploadPart on its own thread; owns buf until collected. */
typedef struct part_job {
    s3_output *o;
    size_t index; /* 0-based; part number = index + 1 */
    uint8_t *buf;
    size_t len;
    pthread_t th;
    bool threaded;
    fl_status rc;
    fl_error err;
    char etag[256];
} part_job;

struct s3_output {
    fl_output base;
    s3_client *c;
    char *bucket, *key;
    int flags;
    uint8_t *buf;
    size_t len, cap, part_size;
    char *upload_id;
    char **etags; /* per part, NULL until its upload is collected */
    size_t nparts, cap_parts;
    part_job *jobs[MAX_INFLIGHT]; /* in flight, oldest first */
    size_t njobs;
    fl_status part_rc; /* first failure of a collected part */
    fl_error part_err;
    bool failed;
};

static fl_status start_upload(s3_output *o, fl_error *err)
{
    io_kv q[1] = {{"uploads", ""}};
    s3_request rq = {.method = "POST", .bucket = o->bucket, .key = o->key, .query = q, .nquery = 1};
    s3_response r;
    fl_status rc = s3_send(o->c, &rq, o->base.path, &r, err);
    if (rc == FL_OK && r.status != 200)
        rc = s3_http_error(&r, o->base.path, "CreateMultipartUpload", err);
    if (rc == FL_OK && (rc = s3_xml_parse_upload_id(r.body, r.body_len, &o->upload_id, err)))
        fl_error_prefix(err, "%s", o->base.path);
    s3_response_free(&r);
    return rc;
}

static void *part_thread(void *arg)
{
    part_job *j = arg;
    s3_output *o = j->o;
    char num[16], what[48];
    snprintf(num, sizeof num, "%zu", j->index + 1);
    snprintf(what, sizeof what, "UploadPart %zu", j->index + 1);
    io_kv q[2] = {{"partNumber", num}, {"uploadId", o->upload_id}};
    s3_request rq = {.method = "PUT",
                     .bucket = o->bucket,
                     .key = o->key,
                     .query = q,
                     .nquery = 2,
                     .body = j->buf,
                     .body_len = j->len};
    s3_response r;
    j->rc = s3_send(o->c, &rq, o->base.path, &r, &j->err);
    if (j->rc == FL_OK && r.status != 200)
        j->rc = s3_http_error(&r, o->base.path, what, &j->err);
    if (j->rc == FL_OK && !r.etag[0])
        j->rc = fl_errorf(&j->err, FL_EIO, "%s: %s: no ETag in the answer", o->base.path, what);
    if (j->rc == FL_OK)
        memcpy(j->etag, r.etag, sizeof j->etag);
    s3_response_free(&r);
    return NULL;
}

/* Waits for the oldest in-flight part and records its outcome. */
static void collect_oldest(s3_output *o)
{
    part_job *j = o->jobs[0];
    memmove(o->jobs, o->jobs + 1, (o->njobs - 1) * sizeof *o->jobs);
    o->njobs--;
    if (j->threaded)
        pthread_join(j->th, NULL);
    if (j->rc == FL_OK && !(o->etags[j->index] = strdup(j->etag)))
        j->rc = fl_errorf(&j->err, FL_ENOMEM, "%s: out of memory", o->base.path);
    if (j->rc != FL_OK && o->part_rc == FL_OK) {
        o->part_rc = j->rc;
        o->part_err = j->err;
    }
    free(j->buf);
    free(j);
}

static fl_status part_status(s3_output *o, fl_error *err)
{
    if (o->part_rc != FL_OK && err)
        *err = o->part_err;
    return o->part_rc;
}

static fl_status join_all(s3_output *o, fl_error *err)
{
    while (o->njobs)
        collect_oldest(o);
    return part_status(o, err);
}

/* Hands the full buffer to a part upload (on a thread, at most MAX_INFLIGHT
 * at once; inline if no thread can be started). */
static fl_status upload_part(s3_output *o, fl_error *err)
{
    if (!o->upload_id)
        FL_TRY(start_upload(o, err));
    if (o->nparts >= 10000)
        return fl_errorf(err, FL_ELIMIT, "%s: more than 10000 parts (raise multipart_threshold)",
                         o->base.path);
    if (o->nparts == o->cap_parts) {
        size_t nc = o->cap_parts ? o->cap_parts * 2 : 16;
        char **e = realloc(o->etags, nc * sizeof *e);
        if (!e)
            return fl_errorf(err, FL_ENOMEM, "%s: out of memory", o->base.path);
        o->etags = e;
        o->cap_parts = nc;
    }
    if (o->njobs == MAX_INFLIGHT)
        collect_oldest(o);
    FL_TRY(part_status(o, err));
    part_job *j = calloc(1, sizeof *j);
    if (!j)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", o->base.path);
    o->etags[o->nparts] = NULL;
    *j = (part_job){.o = o, .index = o->nparts++, .buf = o->buf, .len = o->len};
    o->buf = NULL;
    o->len = o->cap = 0;
    j->threaded = pthread_create(&j->th, NULL, part_thread, j) == 0;
    if (!j->threaded)
        part_thread(j);
    o->jobs[o->njobs++] = j;
    return FL_OK;
}

static fl_status grow(s3_output *o, size_t want, fl_error *err)
{
    if (want <= o->cap)
        return FL_OK;
    size_t nc = o->cap ? o->cap : 64 * 1024;
    while (nc < want)
        nc *= 2;
    if (nc > o->part_size || o->upload_id) /* multipart: parts are full-size */
        nc = o->part_size;
    uint8_t *nb = realloc(o->buf, nc);
    if (!nb)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory (%zu-byte buffer)", o->base.path, nc);
    o->buf = nb;
    o->cap = nc;
    return FL_OK;
}

static fl_status s3_out_write(fl_output *out, const void *data, size_t len, fl_error *err)
{
    s3_output *o = (s3_output *)out;
    if (o->failed)
        return fl_errorf(err, FL_EIO, "%s: write after a failed write", out->path);
    const uint8_t *p = data;
    size_t left = len;
    fl_status rc = FL_OK;
    while (left && rc == FL_OK) {
        if (o->len == o->part_size && (rc = upload_part(o, err)) != FL_OK)
            break;
        size_t n = o->part_size - o->len < left ? o->part_size - o->len : left;
        if ((rc = grow(o, o->len + n, err)) != FL_OK)
            break;
        memcpy(o->buf + o->len, p, n);
        o->len += n;
        p += n;
        left -= n;
    }
    if (rc != FL_OK) {
        o->failed = true;
        return rc;
    }
    out->written += len;
    return FL_OK;
}

static void output_free(s3_output *o)
{
    join_all(o, NULL);  /* no thread may outlive o */
    if (o->upload_id) { /* best effort: never fails the caller */
        io_kv q[1] = {{"uploadId", o->upload_id}};
        s3_request rq = {
            .method = "DELETE", .bucket = o->bucket, .key = o->key, .query = q, .nquery = 1};
        s3_response r;
        fl_error ignored;
        if (s3_send(o->c, &rq, o->base.path, &r, &ignored) == FL_OK)
            s3_response_free(&r);
        free(o->upload_id);
    }
    for (size_t i = 0; i < o->nparts; i++)
        free(o->etags[i]);
    free(o->etags);
    free(o->buf);
    free(o->bucket);
    free(o->key);
    free(o->base.path);
    free(o);
}

static void s3_out_abort(fl_output *out)
{
    output_free((s3_output *)out);
}

/* The answer to a conditional commit. */
static fl_status commit_status(s3_output *o, const s3_response *r, const char *what, fl_error *err)
{
    if (r->status == 412)
        return fl_errorf(err, FL_EEXIST, "%s: already exists (%s with If-None-Match: *: HTTP 412)",
                         o->base.path, what);
    if (r->status != 200)
        return s3_http_error(r, o->base.path, what, err);
    io_xml_error e;
    if (r->body_len && io_xml_parse_error(r->body, r->body_len, &e))
        return fl_errorf(err, FL_EIO, "%s: %s: HTTP 200 with error %s: %s", o->base.path, what,
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
    if (s3_send(o->c, &rq, o->base.path, &h, &ignored) != FL_OK)
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
    uint8_t *md5s = malloc(o->nparts * 16 + 1);
    if (!md5s)
        return;
    for (size_t i = 0; i < o->nparts; i++) {
        const char *e = o->etags[i];
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
    io_md5_hex(md5s, o->nparts * 16, hex);
    snprintf(out, 48, "%s-%zu", hex, o->nparts);
    free(md5s);
}

static fl_status put_single(s3_output *o, fl_error *err)
{
    io_kv hs[1] = {{"if-none-match", "*"}};
    bool cond = !(o->flags & FL_CREATE_OVERWRITE);
    s3_request rq = {.method = "PUT",
                     .bucket = o->bucket,
                     .key = o->key,
                     .headers = hs,
                     .nheaders = cond ? 1 : 0,
                     .body = o->buf,
                     .body_len = o->len};
    s3_response r;
    fl_status rc = s3_send(o->c, &rq, o->base.path, &r, err);
    char md5[33];
    if (rc == FL_OK && cond && r.status == 412 && r.attempts > 1)
        io_md5_hex(o->buf ? (const void *)o->buf : "", o->len, md5);
    if (rc == FL_OK && !(cond && r.status == 412 && r.attempts > 1 && committed_by_us(o, &r, md5)))
        rc = commit_status(o, &r, "PutObject", err);
    s3_response_free(&r);
    return rc;
}

static fl_status complete(s3_output *o, fl_error *err)
{
    io_sb body = {0};
    io_sb_puts(&body, "<CompleteMultipartUpload>");
    for (size_t i = 0; i < o->nparts; i++) {
        io_sb_printf(&body, "<Part><PartNumber>%zu</PartNumber><ETag>", i + 1);
        io_xml_escape(&body, o->etags[i]);
        io_sb_puts(&body, "</ETag></Part>");
    }
    io_sb_puts(&body, "</CompleteMultipartUpload>");
    if (body.oom) {
        io_sb_free(&body);
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", o->base.path);
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
    fl_status rc = s3_send(o->c, &rq, o->base.path, &r, err);
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

static fl_status s3_out_close(fl_output *out, fl_error *err)
{
    s3_output *o = (s3_output *)out;
    fl_status rc = FL_OK;
    if (o->failed)
        rc = fl_errorf(err, FL_EIO, "%s: not committed: an earlier write failed", out->path);
    else if (!o->upload_id)
        rc = put_single(o, err);
    else if ((!o->len || (rc = upload_part(o, err)) == FL_OK) && (rc = join_all(o, err)) == FL_OK)
        rc = complete(o, err);
    output_free(o);
    return rc;
}

static const fl_output_ops s3_output_ops = {s3_out_write, s3_out_close, s3_out_abort};

fl_status s3_output_create(s3_client *c, const char *path, int flags, fl_output **out,
                           fl_error *err)
{
    s3_output *o = calloc(1, sizeof *o);
    if (!o)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    o->base.ops = &s3_output_ops;
    o->c = c;
    o->flags = flags;
    uint64_t ps = s3_client_part_size(c);
    o->part_size = ps > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)ps;
    fl_status rc = s3_parse_path(path, true, NULL, &o->bucket, &o->key, err);
    if (rc == FL_OK && !(o->base.path = strdup(path)))
        rc = fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    if (rc != FL_OK) {
        output_free(o);
        return rc;
    }
    *out = &o->base;
    return FL_OK;
}
