/*
 * common.h - pieces shared by the object-store FileIOs in src/io (S3 in
 * s3*.c, Azure Blob in azure*.c):
 *
 *   io_util.c      growable strings, RFC 3986 encoding, hex, SHA-256, HMAC,
 *                  MD5, base64
 *   xml_reader.c   a small bounded XML reader; <Error> documents (both
 *                  stores answer <Error><Code/><Message/></Error>)
 *   ranged_read.c  the checks around a ranged GET
 *   upload.c       the buffered fl_output that uploads parts in parallel
 *   http_client.c  pooled curl handles, one transfer, retries with jittered
 *                  backoff honouring Retry-After, error messages
 *
 * Internal to src/io; tests include it to reach the pure functions.
 */
#ifndef FLOE_IO_COMMON_H
#define FLOE_IO_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/buf.h"
#include "floe/error.h"
#include "floe/io.h"

typedef struct io_kv {
    const char *k, *v;
} io_kv;

/* ---- growable string (io_util.c) ---- */
/* An fl_buf (text, NUL-terminated when non-NULL) whose appends cannot fail:
 * a failed growth sets oom, later appends are dropped. */
typedef struct io_sb {
    fl_buf buf;
    bool oom;
} io_sb;

void io_sb_putn(io_sb *s, const char *p, size_t n);
void io_sb_puts(io_sb *s, const char *p);
void io_sb_printf(io_sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void io_sb_free(io_sb *s);

/* RFC 3986 as SigV4 wants it: A-Z a-z 0-9 - _ . ~ kept, '/' kept when
 * keep_slash, every other byte %XX with uppercase hex (UTF-8 bytes as is). */
void io_uri_encode(io_sb *s, const char *p, size_t n, bool keep_slash);
/* XML text escaping of & < > " ' for request bodies. */
void io_xml_escape(io_sb *s, const char *p);

void io_hex(const uint8_t *in, size_t n, char *out); /* out: 2n+1 bytes */
void io_sha256_hex(const void *data, size_t n, char out[65]);
void io_hmac_sha256(const void *key, size_t key_len, const void *msg, size_t msg_len,
                    uint8_t out[32]);
void io_md5_base64(const void *data, size_t n, char out[25]);
void io_md5_hex(const void *data, size_t n, char out[33]);
/* Copies text into dst[cap], truncated, NUL-terminated. */
void io_copy_str(char *dst, size_t cap, const char *text);
/* Standard base64 (with padding): encode writes 4*ceil(n/3)+1 bytes and
 * returns the length; decode refuses bad input or more than cap bytes. */
size_t io_base64_encode(const void *in, size_t n, char *out);
fl_status io_base64_decode(const char *in, uint8_t *out, size_t cap, size_t *out_len);

/* ---- XML reader (xml_reader.c) ----
 * Events: an element opens (text NULL) or closes (text = its decoded text
 * when it had no child elements, else ""; NUL-terminated). depth = 1 for the
 * root. A non-OK return from fn stops the walk and is returned. */
enum { IO_XML_OPEN = 1, IO_XML_CLOSE = 2 };
#define IO_XML_MAX_DEPTH 32
#define IO_XML_MAX_NAME 255
#define IO_XML_MAX_TEXT ((size_t)1 << 20)
#define IO_XML_MAX_INPUT ((size_t)64 << 20)
typedef fl_status (*io_xml_fn)(void *ctx, int event, unsigned depth, const char *name,
                               const char *text, size_t text_len);
fl_status io_xml_walk(const char *xml, size_t len, io_xml_fn fn, void *ctx, fl_error *err);

/* S3 / Azure <Error> document fields (empty strings when absent). */
typedef struct io_xml_error {
    char code[128];
    char message[512];
} io_xml_error;
/* true when xml is an <Error> document (fields filled); false otherwise. */
bool io_xml_parse_error(const char *xml, size_t len, io_xml_error *out);

/* ---- HTTP client (http_client.c) ----
 * One io_http per FileIO: a pool of idle curl handles, a curl share handle
 * (DNS, TLS sessions), the retry policy. Immutable after creation and
 * thread-safe. */
typedef struct io_http io_http;
struct curl_slist;

typedef struct io_http_config {
    uint32_t max_retries;        /* 0 = 5 */
    uint32_t connect_timeout_ms; /* 0 = 10 s */
    const char *ca_file;         /* PEM bundle to trust instead of the system's; may be NULL */
    const char *what;            /* "S3", "Azure": error message prefix */
} io_http_config;

fl_status io_http_new(const io_http_config *cfg, io_http **out, fl_error *err);
void io_http_free(io_http *h);

/* Builds the headers of one attempt (called again for each retry, so dates
 * and signatures are fresh); append with io_http_header. */
typedef fl_status (*io_http_headers_fn)(void *ctx, struct curl_slist **list, fl_error *err);
/* Appends "k: v"; a failed allocation sets *oom and leaves l as it was. */
struct curl_slist *io_http_header(struct curl_slist *l, bool *oom, const char *k, const char *v);

typedef struct io_http_request {
    const char *method;      /* GET HEAD PUT POST DELETE */
    const char *url;         /* complete, encoded */
    const char *url_display; /* for messages (a URL without secrets); NULL = url */
    io_http_headers_fn headers;
    void *headers_ctx;
    const void *body;
    size_t body_len;
    void *out; /* non-NULL: a 2xx body goes here (at most out_cap bytes) */
    size_t out_cap;
    size_t max_body; /* bound for a 2xx body read into resp->body (0 = 1 MiB) */
} io_http_request;

typedef struct io_http_response {
    long status;
    char *body; /* malloc'd, NUL-terminated (error bodies, XML results) */
    size_t body_len;
    size_t out_len; /* bytes written to request.out */
    char etag[256];
    char content_range[128];
    char content_type[128];
    char ms_error_code[128]; /* x-ms-error-code (Azure; HEAD answers have no body) */
    char meta_upload[64];    /* x-ms-meta-floeupload (Azure: which upload committed a blob) */
    int64_t content_length;  /* -1 when absent */
    int64_t retry_after_ms;  /* Retry-After in ms, -1 when absent */
    io_xml_error error;      /* parsed from a non-2xx body */
    unsigned attempts;
    bool overflow; /* a 2xx body was longer than request.out / max_body allowed */
    /* Last-Modified (an IMF-fixdate), as µs since the epoch ("$file_modified_time") */
    bool has_last_modified;
    int64_t last_modified_us;
} io_http_response;

/* Sends rq, retrying transport errors, 5xx, 429 and the codes SlowDown,
 * RequestTimeout, InternalError, ConditionalRequestConflict, ServerBusy,
 * OperationTimedOut with jittered exponential backoff (at least Retry-After
 * when the server sent one, capped at 30 s). FL_OK whenever an HTTP answer
 * arrived (any status: the caller decides), FL_EIO naming where when none
 * did. Free resp with io_http_response_free. */
fl_status io_http_send(io_http *h, const io_http_request *rq, const char *where,
                       io_http_response *resp, fl_error *err);
void io_http_response_free(io_http_response *r);
/* The code of a failed answer: <Error><Code>, else x-ms-error-code, else
 * the reason phrase. */
const char *io_http_error_code(const io_http_response *r);
/* "WHERE: WHAT: HTTP 403 Code: message" with 404 -> FL_ENOTFOUND,
 * 412 -> FL_EEXIST, 409 -> FL_ECONFLICT, other -> FL_EIO. */
fl_status io_http_error(const io_http_response *r, const char *where, const char *what,
                        fl_error *err);

/* ---- ranged reads (ranged_read.c) ---- */
/* Before the GET: past-the-end reads are FL_ECORRUPT; *done for len 0;
 * range = "bytes=a-b". */
fl_status io_read_range_check(fl_file *f, uint64_t off, size_t len, char range[64], bool *done,
                              fl_error *err);
/* After it (rc = io_http_send's): FL_ECONFLICT for a changed object, FL_EIO
 * for short or mismatched answers; a status the store should describe
 * itself sets *http_failed. Counts the bytes served on success. */
fl_status io_read_range_result(fl_file *f, uint64_t off, size_t len, const char *etag,
                               const io_http_response *r, fl_status rc, bool *http_failed,
                               fl_error *err);

/* ---- part-parallel output (upload.c) ----
 * A store embeds io_upload first in its output struct, fills the ops and
 * calls io_upload_init; the fl_output is then &u->base. */
typedef struct io_upload io_upload;
#define IO_UPLOAD_INFLIGHT 4 /* parts uploading at once, each on its own thread */
#define IO_UPLOAD_ID_MAX 256 /* a part's id (S3 ETag, Azure block id) */
typedef struct io_upload_ops {
    /* Before the first part (S3: CreateMultipartUpload); may be NULL. */
    fl_status (*start)(io_upload *u, fl_error *err);
    /* Uploads part index (0-based) on a worker thread; writes its id. */
    fl_status (*part)(io_upload *u, size_t index, const uint8_t *buf, size_t len,
                      char id[IO_UPLOAD_ID_MAX], fl_error *err);
    /* The whole object fits one buffer: one request. */
    fl_status (*single)(io_upload *u, const uint8_t *buf, size_t len, fl_error *err);
    /* After every part succeeded: commit them (u->ids[0..nparts)). */
    fl_status (*complete)(io_upload *u, fl_error *err);
    /* Always last, also after abort or failure: release the store's state
     * (S3: abort the multipart upload if one is open) and free the store's
     * fields, not u itself. Never fails. */
    void (*cleanup)(io_upload *u);
} io_upload_ops;

struct io_upload {
    fl_output base;
    const io_upload_ops *ops;
    uint8_t *buf;
    size_t len, cap, part_size, max_parts;
    bool started; /* ops->start ran: parts are being uploaded */
    char **ids;   /* per part, NULL until its upload is collected */
    size_t nparts, cap_parts;
    struct part_job *jobs[IO_UPLOAD_INFLIGHT]; /* in flight, oldest first */
    size_t njobs;
    fl_status part_rc; /* first failure of a collected part */
    fl_error part_err;
    bool failed;
};

/* u must be zeroed (calloc'd as the store's struct); copies path. */
fl_status io_upload_init(io_upload *u, const io_upload_ops *ops, const char *path,
                         uint64_t part_size, size_t max_parts, fl_error *err);
/* Frees an output that failed during its own creation: cleanup, then free. */
void io_upload_discard(io_upload *u);

#endif
