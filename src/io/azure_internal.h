/*
 * azure_internal.h - private pieces of the Azure Blob FileIO (floe/azure.h):
 *
 *   azure_path.c    abfss:// abfs:// wasbs:// wasb:// locations
 *   azure_auth.c    Shared Key string-to-sign and signature, RFC 1123 dates,
 *                   the OAuth2 client-credentials token (cached)
 *   azure_http.c    the client: per-account endpoint and credentials, URLs,
 *                   headers, sending through the shared io_http
 *   azure_config.c  fl_azure_config_from_env, fl_azure_config_set
 *   azure.c         the FileIO: open/read_at, list, remove
 *   azure_output.c  Put Blob, or Put Block + Put Block List
 *
 * Internal to src/io; tests include it to reach the pure functions.
 */
#ifndef FLOE_IO_AZURE_INTERNAL_H
#define FLOE_IO_AZURE_INTERNAL_H

#include <pthread.h>

#include "floe/azure.h"
#include "io/common.h"

#define AZURE_API_VERSION "2021-12-02"

/* ---- locations (azure_path.c) ---- */
typedef struct azure_path {
    char *account, *container, *blob; /* malloc'd; blob may be "" */
    size_t prefix_len;                /* "abfss://container@host/" up to the blob */
} azure_path;
/* require_blob makes an empty blob name FL_EINVAL. */
fl_status azure_parse_path(const char *path, bool require_blob, azure_path *out, fl_error *err);
void azure_path_free(azure_path *p);

/* ---- Shared Key (azure_auth.c) ---- */
/* "Thu, 03 Dec 2026 08:44:55 GMT" */
void azure_rfc1123(int64_t t, char out[32]);
typedef struct azure_sign_req {
    const char *method;
    const char *account;
    const char *path;   /* the URL path as sent, encoded: "/devstoreaccount1/c/b" */
    const io_kv *query; /* decoded names and values */
    size_t nquery;
    const io_kv *headers; /* every header sent except Authorization (lowercase names) */
    size_t nheaders;
    size_t content_length;
} azure_sign_req;
/* The string to sign (malloc'd into *sts, may be NULL) and the
 * "SharedKey account:signature" header value (malloc'd). key is the
 * decoded account key. */
fl_status azure_shared_key_sign(const azure_sign_req *r, const uint8_t *key, size_t key_len,
                                char **sts, char **authorization, fl_error *err);

/* OAuth2 client credentials, one per client; thread-safe. */
typedef struct azure_token azure_token;
fl_status azure_token_new(const char *token_endpoint, const char *tenant, const char *client_id,
                          const char *client_secret, io_http *http, azure_token **out,
                          fl_error *err);
void azure_token_free(azure_token *t);
/* A valid bearer token (copied into out), fetched or refreshed as needed. */
fl_status azure_token_get(azure_token *t, char *out, size_t cap, fl_error *err);
/* Test hook: how many times a token was fetched. */
unsigned azure_token_fetches(const azure_token *t);

/* ---- the client (azure_http.c) ---- */
typedef struct azure_client azure_client;
fl_status azure_client_new(const fl_azure_config *cfg, azure_client **out, fl_error *err);
void azure_client_free(azure_client *c);
uint64_t azure_client_block_size(const azure_client *c);
uint32_t azure_client_page_size(const azure_client *c);
azure_token *azure_client_token(azure_client *c);

typedef struct azure_request {
    const char *method;
    const char *account, *container;
    const char *blob;   /* NULL or "" for container requests */
    const io_kv *query; /* decoded */
    size_t nquery;
    const io_kv *headers; /* extra headers (lowercase names) */
    size_t nheaders;
    const void *body;
    size_t body_len;
    void *out;
    size_t out_cap;
    size_t max_body;
} azure_request;

fl_status azure_send(azure_client *c, const azure_request *rq, const char *where,
                     io_http_response *resp, fl_error *err);
/* io_http_error plus a hint for 403s (an expired SAS token, a wrong key). */
fl_status azure_http_error(azure_client *c, const io_http_response *r, const char *account,
                           const char *where, const char *what, fl_error *err);

/* ---- config (azure_config.c) ---- */
/* Deep copy of src's strings into storage (FL_AZURE_CONFIG_STORAGE bytes). */
fl_status azure_config_copy(const fl_azure_config *src, fl_azure_config *dst, char *storage,
                            fl_error *err);

/* ---- FileIO pieces ---- */
fl_status azure_output_create(azure_client *c, const char *path, int flags, fl_output **out,
                              fl_error *err);
/* List Blobs page. */
typedef struct azure_list_page {
    char **names;
    uint64_t *sizes;
    size_t n, cap;
    char *next_marker; /* malloc'd; NULL or "" on the last page */
} azure_list_page;
fl_status azure_xml_parse_list(const char *xml, size_t len, azure_list_page *out, fl_error *err);
void azure_list_page_free(azure_list_page *p);

#endif
