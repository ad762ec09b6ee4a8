/*
 * s3.h - FileIO over S3-compatible object stores (libcurl + SigV4), and the
 * FileIO that routes each path to local disk or S3 by its scheme.
 *
 * Paths are "s3://bucket/key" (also s3a://, s3n://). Reads are ranged GETs;
 * writes buffer up to multipart_threshold then switch to a multipart upload
 * (completed on close, aborted on abort); create without
 * FL_CREATE_OVERWRITE sends If-None-Match: * so that a concurrent creator
 * loses with FL_EEXIST (the atomic create Iceberg commits rely on). list is
 * ListObjectsV2 with continuation; remove is DeleteObject. 5xx, 429 and
 * SlowDown are retried with jittered exponential backoff up to max_retries.
 *
 * Configuration (fl_s3_config_from_env): AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION / AWS_DEFAULT_REGION,
 * AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_S3 (custom endpoint; implies path-style
 * unless FLOE_S3_VIRTUAL_HOST=1), FLOE_S3_PATH_STYLE=1, and the
 * [default]/[profile] sections of AWS_SHARED_CREDENTIALS_FILE /
 * AWS_CONFIG_FILE (~/.aws/credentials, ~/.aws/config) when the environment
 * has no keys. Also FLOE_S3_MULTIPART_THRESHOLD (bytes, >= 1; also the part
 * size) and FLOE_S3_MAX_RETRIES. Without any keys the FileIO sends unsigned
 * (anonymous) requests.
 *
 * Ownership: the config strings are copied at open. The FileIO is
 * thread-safe (one curl handle per request/thread).
 */
#ifndef FLOE_S3_H
#define FLOE_S3_H

#include "floe/export.h"

#include <stdbool.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"
#include "floe/io.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_s3_config {
    const char *endpoint; /* "http://127.0.0.1:4568"; NULL = https://s3.<region>.amazonaws.com */
    const char *region;   /* default "us-east-1" */
    const char *access_key_id;
    const char *secret_access_key;
    const char *session_token;    /* may be NULL */
    bool path_style;              /* http://host/bucket/key instead of http://bucket.host/key */
    uint32_t max_retries;         /* 0 = 5 */
    uint64_t multipart_threshold; /* 0 = 16 MiB; also the part size */
    uint32_t connect_timeout_ms;  /* 0 = 10 s */
} fl_s3_config;

/* Fills cfg from the environment and AWS config files; strings point into
 * storage (a caller-owned buffer of FL_S3_CONFIG_STORAGE bytes). */
#define FL_S3_CONFIG_STORAGE 4096
FL_API fl_status fl_s3_config_from_env(fl_s3_config *cfg, char *storage, fl_error *err);

FL_API fl_status fl_fileio_s3(const fl_s3_config *cfg, fl_fileio **out, fl_error *err);

/* Routes "s3://", "s3a://", "s3n://" paths to S3 (created lazily from the
 * environment, or from s3 when non-NULL) and everything else to local disk. */
FL_API fl_status fl_fileio_default(const fl_s3_config *s3, fl_fileio **out, fl_error *err);

/* Removes many objects: on the S3 FileIO (or the S3 side of a default
 * FileIO) with DeleteObjects, up to 1000 keys of one bucket per request;
 * other paths (and other FileIOs) one remove() at a time. Keys that do not
 * exist are not an error. Stops at the first failure. */
FL_API fl_status fl_s3_delete_many(fl_fileio *io, const char *const *paths, size_t n,
                                   fl_error *err);

/* ---- remote signing: requests that someone else sends (src/io/s3_remote_sign.c) ---- */
typedef struct fl_s3_header {
    const char *name, *value;
} fl_s3_header;

/* What an S3 request URL addresses on cfg's endpoint (path-style when
 * cfg->path_style, else virtual-host "bucket.<endpoint host>"): host as
 * sent, path as sent (encoded), bucket and key decoded (key "" for a bucket
 * request), query names and values decoded (bare names have value "").
 * A URL on any other host, or with a broken escape, is FL_EINVAL. Arena
 * memory. */
typedef struct fl_s3_url {
    const char *host, *path, *bucket, *key;
    const fl_s3_header *query;
    size_t nquery;
} fl_s3_url;
FL_API fl_status fl_s3_url_parse(const fl_s3_config *cfg, const char *url, fl_arena *a,
                                 fl_s3_url *out, fl_error *err);
/* A query parameter's decoded value, NULL when absent. */
FL_API const char *fl_s3_url_query(const fl_s3_url *u, const char *name);

/* SigV4 with cfg's keys for a request to url (which must be on cfg's
 * endpoint), dated now_s: signs host, x-amz-*, content-md5, content-type
 * and if-* headers; x-amz-content-sha256 as sent, else UNSIGNED-PAYLOAD.
 * *out (arena) is every header to send: the request's own, minus any
 * authorization/date/token it carried, plus Host, x-amz-date,
 * x-amz-content-sha256, x-amz-security-token (when cfg has one) and
 * Authorization. region NULL = cfg's. */
FL_API fl_status fl_s3_sign_headers(const fl_s3_config *cfg, const char *region,
                                    const char *method, const char *url,
                                    const fl_s3_header *headers, size_t n, int64_t now_s,
                                    fl_arena *a, fl_s3_header **out, size_t *nout,
                                    fl_error *err);
/* The object keys of a DeleteObjects request body (<Delete><Object><Key>). */
FL_API fl_status fl_s3_delete_request_keys(const char *xml, size_t len, fl_arena *a,
                                           const char ***keys, size_t *n, fl_error *err);

/* A FileIO that rewrites path prefixes before delegating to inner (borrowed):
 * used to read tables whose metadata names locations that moved (fixtures,
 * copied warehouses). The first matching `from` prefix wins. */
typedef struct fl_path_mapping {
    const char *from;
    const char *to;
} fl_path_mapping;
FL_API fl_status fl_fileio_remap(fl_fileio *inner, const fl_path_mapping *maps, uint32_t n,
                                 fl_fileio **out, fl_error *err);

#ifdef __cplusplus
}
#endif
#endif
