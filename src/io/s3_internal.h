/*
 * s3_internal.h - private pieces of the S3 FileIO (see floe/s3.h):
 *
 *   s3_path.c    s3:// paths, the x-amz-date format
 *   sigv4.c      AWS Signature Version 4 (header authorization)
 *   s3_xml_docs.c  S3 response documents on the shared XML reader (io/common.h)
 *   s3_http.c    the HTTP client: pooled curl handles, signing, retries, errors
 *   s3_config.c  fl_s3_config_from_env (environment + ~/.aws files)
 *   s3.c         the FileIO: open/read_at, list, remove, delete_many
 *   s3_output.c  fl_output: single PUT or multipart upload
 *   default.c    fl_fileio_default: scheme routing
 *
 * Everything here is internal to src/io; tests include it to reach the pure
 * functions (encoding, signing, XML, config parsing).
 */
#ifndef FLOE_IO_S3_INTERNAL_H
#define FLOE_IO_S3_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/s3.h"
#include "io/common.h"

/* "YYYYMMDDTHHMMSSZ" for t (UTC). */
void s3_amz_date(int64_t t, char out[17]);

/* Splits "s3://bucket/key" (s3a://, s3n:// too). *scheme_len covers
 * "s3://"; bucket and key are malloc'd (key may be ""). require_key makes an
 * empty key FL_EINVAL. */
bool s3_is_s3_path(const char *path);
fl_status s3_parse_path(const char *path, bool require_key, size_t *scheme_len, char **bucket,
                        char **key, fl_error *err);

/* ---- SigV4 (sigv4.c) ---- */

typedef struct s3_sign_req {
    const char *method;
    const char *canonical_uri; /* already encoded path as sent, e.g. "/bkt/a%20b" */
    const io_kv *query;        /* raw (unencoded) names and values; v NULL = "" */
    size_t nquery;
    const io_kv *headers; /* headers to sign: lowercase names, values as sent; must hold host */
    size_t nheaders;
    const char *payload_hash; /* hex SHA-256 of the body, or UNSIGNED-PAYLOAD */
    const char *amz_date;     /* "YYYYMMDDTHHMMSSZ" */
    const char *region, *service, *access_key_id, *secret_access_key;
} s3_sign_req;

/* Canonical query string: names and values encoded, sorted by name then value. */
void s3_canonical_query(io_sb *out, const io_kv *q, size_t n);
/* Fills canonical request and string to sign (for tests / debugging; either
 * may be NULL) and the Authorization header value (malloc'd, caller frees).
 * FL_ENOMEM or FL_EINVAL (too many headers). */
fl_status s3_sigv4_sign(const s3_sign_req *r, io_sb *canonical, io_sb *string_to_sign,
                        char **authorization, fl_error *err);

typedef struct s3_list_page {
    char **keys;
    uint64_t *sizes;
    size_t n, cap;
    bool truncated;
    char *next_token; /* NextContinuationToken, malloc'd or NULL */
} s3_list_page;
fl_status s3_xml_parse_list(const char *xml, size_t len, s3_list_page *out, fl_error *err);
void s3_list_page_free(s3_list_page *p);
/* <InitiateMultipartUploadResult><UploadId>; *upload_id malloc'd. */
fl_status s3_xml_parse_upload_id(const char *xml, size_t len, char **upload_id, fl_error *err);
/* DeleteObjects result: calls fn for each <Error> (key, code, message). */
fl_status s3_xml_parse_delete_result(const char *xml, size_t len,
                                     fl_status (*fn)(void *ctx, const char *key, const char *code,
                                                     const char *message),
                                     void *ctx, fl_error *err);

/* ---- config (s3_config.c) ---- */
/* INI lookup in text: value of key in section (exact name), copied to out
 * (trimmed); false when absent. Used for ~/.aws/credentials and config. */
bool s3_ini_get(const char *text, size_t len, const char *section, const char *key, char *out,
                size_t out_cap);

/* ---- HTTP client (s3_http.c) ---- */
typedef struct s3_client s3_client;

/* Copies cfg. FL_EINVAL for a bad endpoint. */
fl_status s3_client_new(const fl_s3_config *cfg, s3_client **out, fl_error *err);
void s3_client_free(s3_client *c);
uint64_t s3_client_part_size(const s3_client *c);

typedef struct s3_request {
    const char *method; /* GET HEAD PUT POST DELETE */
    const char *bucket;
    const char *key; /* NULL or "" for bucket-level requests */
    const io_kv *query;
    size_t nquery;
    const io_kv *headers; /* extra headers (lowercase names); all are signed */
    size_t nheaders;
    const void *body;
    size_t body_len;
    void *out; /* non-NULL: a 2xx body goes here (at most out_cap bytes) */
    size_t out_cap;
    size_t max_body; /* bound for a 2xx body read into resp->body (0 = 1 MiB) */
} s3_request;

typedef io_http_response s3_response;

/* Sends rq (URL, SigV4 headers) through the shared client (io_http_send:
 * retries, backoff). FL_OK whenever an HTTP answer arrived. Free resp with
 * s3_response_free. */
fl_status s3_send(s3_client *c, const s3_request *rq, const char *path, s3_response *resp,
                  fl_error *err);
static inline void s3_response_free(s3_response *r)
{
    io_http_response_free(r);
}
/* "PATH: HTTP 403 SignatureDoesNotMatch: message" (io_http_error). */
static inline fl_status s3_http_error(const s3_response *r, const char *path, const char *what,
                                      fl_error *err)
{
    return io_http_error(r, path, what, err);
}

/* Test hook: the URL and Host header a request would use (malloc'd). */
fl_status s3_client_url(const s3_client *c, const char *bucket, const char *key, char **url,
                        char **host, fl_error *err);

/* ---- FileIO pieces ---- */
fl_status s3_output_create(s3_client *c, const char *path, int flags, fl_output **out,
                           fl_error *err);
/* The lazily created S3 FileIO behind a default FileIO (or NULL for other
 * FileIOs); used by fl_s3_delete_many. */
fl_fileio *s3_default_target(fl_fileio *io, fl_error *err, fl_status *rc);

#endif
