/*
 * azure.h - FileIO over Azure Blob Storage / ADLS Gen2 (the Blob REST API
 * over libcurl).
 *
 * Locations: "abfss://container@account.dfs.core.windows.net/path" (the form
 * Iceberg's ADLSFileIO, Spark and Trino write), "abfs://" (same, plain
 * http is NOT implied: the scheme only names the location), and
 * "wasbs://container@account.blob.core.windows.net/path", "wasb://". The
 * account is the first label of the host; every form reaches the Blob
 * endpoint https://<account>.blob.core.windows.net (or an override, e.g.
 * Azurite's path-style "http://127.0.0.1:10000/devstoreaccount1").
 *
 * Reads are ranged GETs (x-ms-range) with If-Match on the ETag seen at open
 * (a blob replaced since is FL_ECONFLICT); writes are one Put Blob, or Put
 * Block (4 in flight) + Put Block List for larger files; creates without
 * FL_CREATE_OVERWRITE send If-None-Match: * so that of two racing creators
 * exactly one wins (the other gets FL_EEXIST). list is List Blobs with marker
 * continuation; remove is Delete Blob (a missing blob is success).
 *
 * Authentication, first that is set for the path's account: a SAS token
 * (appended to every URL), Shared Key (HMAC-SHA256 with the base64 account
 * key), OAuth2 client credentials (a bearer token from a Microsoft Entra
 * ID-style token endpoint, cached until shortly before it expires); none =
 * anonymous requests (public containers).
 *
 * Ownership: the config strings are copied by fl_fileio_azure. The FileIO is
 * thread-safe.
 */
#ifndef FLOE_AZURE_H
#define FLOE_AZURE_H

#include "floe/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/error.h"
#include "floe/io.h"
#include "floe/s3.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Settings of one storage account (overriding the defaults below). */
typedef struct fl_azure_account {
    const char *name;      /* the account, as in the location's host */
    const char *endpoint;  /* Blob endpoint, e.g. "http://127.0.0.1:10000/devstoreaccount1" */
    const char *key;       /* Shared Key: the base64 account key */
    const char *sas_token; /* "sv=...&sig=..." (a leading '?' is dropped) */
} fl_azure_account;

#define FL_AZURE_MAX_ACCOUNTS 8

typedef struct fl_azure_config {
    fl_azure_account accounts[FL_AZURE_MAX_ACCOUNTS];
    size_t naccounts;
    /* Defaults for every account: */
    const char *endpoint;     /* NULL = https://<account>.blob.core.windows.net */
    const char *account_name; /* the account a Shared Key belongs to (NULL = the path's) */
    const char *account_key;  /* Shared Key (base64) */
    const char *sas_token;
    /* OAuth2 client credentials (used when no SAS token or key applies): */
    const char *tenant_id, *client_id, *client_secret;
    const char
        *token_endpoint;  /* NULL = https://login.microsoftonline.com/<tenant>/oauth2/v2.0/token */
    const char *ca_file;  /* PEM CA bundle to trust (tests with a self-signed server) */
    uint32_t max_retries; /* 0 = 5 */
    uint32_t connect_timeout_ms; /* 0 = 10 s */
    uint64_t block_size;         /* 0 = 16 MiB: the Put Blob limit and the block size */
    uint32_t list_page_size;     /* 0 = 5000 (the service's maximum) */
    size_t storage_used;         /* bytes of the config storage in use (fl_azure_config_set) */
} fl_azure_config;

#define FL_AZURE_CONFIG_STORAGE 8192

/* Fills cfg from the environment: AZURE_STORAGE_ACCOUNT, AZURE_STORAGE_KEY,
 * AZURE_STORAGE_SAS_TOKEN, AZURE_STORAGE_CONNECTION_STRING, AZURE_TENANT_ID /
 * AZURE_CLIENT_ID / AZURE_CLIENT_SECRET, AZURE_AUTHORITY_HOST, and floe's
 * FLOE_AZURE_ENDPOINT, FLOE_AZURE_TOKEN_ENDPOINT, FLOE_AZURE_CA_FILE,
 * FLOE_AZURE_BLOCK_SIZE, FLOE_AZURE_MAX_RETRIES, FLOE_AZURE_LIST_PAGE_SIZE.
 * Strings point into storage (FL_AZURE_CONFIG_STORAGE bytes). */
FL_API fl_status fl_azure_config_from_env(fl_azure_config *cfg, char *storage, fl_error *err);

/* Adds catalog / FileIO properties named as Iceberg's ADLSFileIO names them
 * (they override the environment): adls.sas-token.<account>,
 * adls.connection-string.<account>, adls.auth.shared-key.account.name,
 * adls.auth.shared-key.account.key, adls.write.block-size-bytes, plus floe's
 * adls.endpoint and adls.token-endpoint; <account> may be the account or
 * its host ("acct.dfs.core.windows.net"). Other keys are ignored. Strings point into storage, which
 * must be the buffer given to fl_azure_config_from_env (or zeroed). */
FL_API fl_status fl_azure_config_set(fl_azure_config *cfg, char *storage, const char *key,
                                     const char *value, fl_error *err);

FL_API fl_status fl_fileio_azure(const fl_azure_config *cfg, fl_fileio **out, fl_error *err);

/* Like fl_fileio_default (floe/s3.h), also routing Azure locations to an
 * Azure FileIO created lazily from azure (deep-copied) or, when NULL, from
 * the environment. fl_fileio_default(s3) = fl_fileio_routing(s3, NULL). */
FL_API fl_status fl_fileio_routing(const fl_s3_config *s3, const fl_azure_config *azure,
                                   fl_fileio **out, fl_error *err);

/* true for abfss://, abfs://, wasbs://, wasb:// locations. */
FL_API bool fl_azure_is_location(const char *path);

#ifdef __cplusplus
}
#endif
#endif
