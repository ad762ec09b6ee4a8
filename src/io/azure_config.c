/*
 * azure_config.c - Azure settings from the environment and from catalog /
 * FileIO properties named as Iceberg's ADLSFileIO names them.
 *
 *   environment: AZURE_STORAGE_ACCOUNT, AZURE_STORAGE_KEY,
 *     AZURE_STORAGE_SAS_TOKEN, AZURE_STORAGE_CONNECTION_STRING (the Azure
 *     CLI's names), AZURE_TENANT_ID, AZURE_CLIENT_ID, AZURE_CLIENT_SECRET,
 *     AZURE_AUTHORITY_HOST (the azure-identity names), and floe's
 *     FLOE_AZURE_ENDPOINT, FLOE_AZURE_TOKEN_ENDPOINT, FLOE_AZURE_CA_FILE,
 *     FLOE_AZURE_BLOCK_SIZE, FLOE_AZURE_MAX_RETRIES, FLOE_AZURE_LIST_PAGE_SIZE
 *   properties: adls.sas-token.<account>, adls.connection-string.<account>
 *     (<account> alone or its host, "<account>.dfs.core.windows.net"),
 *     adls.auth.shared-key.account.name, adls.auth.shared-key.account.key,
 *     adls.write.block-size-bytes (Iceberg's), adls.endpoint,
 *     adls.token-endpoint (floe's); other keys are ignored
 *
 * A connection string is "Key=Value;..." with AccountName, AccountKey,
 * SharedAccessSignature, BlobEndpoint, DefaultEndpointsProtocol and
 * EndpointSuffix (the blob endpoint is then
 * <protocol>://<account>.blob.<suffix>), or UseDevelopmentStorage=true
 * (Azurite's well-known account on 127.0.0.1:10000). The environment's
 * applies to every account; a property's to the account it names.
 *
 * Strings are copied into the caller's storage (FL_AZURE_CONFIG_STORAGE
 * bytes; FL_ELIMIT when full), so a config holds no heap memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/azure_internal.h"

/* Azurite's well-known development account (public, documented). */
#define DEV_ACCOUNT "devstoreaccount1"
#define DEV_KEY                                                                                    \
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
#define DEV_ENDPOINT "http://127.0.0.1:10000/" DEV_ACCOUNT

static const char *keep(fl_azure_config *cfg, char *storage, const char *v, fl_status *rc,
                        fl_error *err)
{
    if (!v || *rc != FL_OK)
        return NULL;
    size_t n = strlen(v) + 1;
    if (n > FL_AZURE_CONFIG_STORAGE - cfg->storage_used) {
        *rc = fl_errorf(err, FL_ELIMIT, "Azure config: settings longer than %d bytes",
                        FL_AZURE_CONFIG_STORAGE);
        return NULL;
    }
    char *d = storage + cfg->storage_used;
    memcpy(d, v, n);
    cfg->storage_used += n;
    return d;
}

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static fl_status parse_u64(const char *name, const char *v, uint64_t max, uint64_t *out,
                           fl_error *err)
{
    errno = 0;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end || *v == '-' || !*v || x == 0 || x > max)
        return fl_errorf(err, FL_EINVAL, "%s='%s': expected an integer in 1..%llu", name, v,
                         (unsigned long long)max);
    *out = x;
    return FL_OK;
}

/* One connection string's fields (pointing into a copy). */
typedef struct conn {
    char buf[2048];
    const char *name, *key, *sas, *endpoint;
    char endpoint_buf[300];
} conn;

static fl_status parse_conn(const char *s, const char *what, conn *c, fl_error *err)
{
    memset(c, 0, sizeof *c);
    if (strlen(s) >= sizeof c->buf)
        return fl_errorf(err, FL_ELIMIT, "%s: connection string longer than %zu bytes", what,
                         sizeof c->buf - 1);
    memcpy(c->buf, s, strlen(s) + 1);
    const char *proto = "https", *suffix = "core.windows.net";
    bool dev = false;
    for (char *p = c->buf, *next; p && *p; p = next) {
        next = strchr(p, ';');
        if (next)
            *next++ = '\0';
        char *eq = strchr(p, '=');
        if (!*p)
            continue;
        if (!eq)
            return fl_errorf(err, FL_EINVAL, "%s: connection string part '%.60s' has no '='", what,
                             p);
        *eq = '\0';
        const char *v = eq + 1;
        if (strcasecmp(p, "AccountName") == 0)
            c->name = v;
        else if (strcasecmp(p, "AccountKey") == 0)
            c->key = v;
        else if (strcasecmp(p, "SharedAccessSignature") == 0)
            c->sas = v;
        else if (strcasecmp(p, "BlobEndpoint") == 0)
            c->endpoint = v;
        else if (strcasecmp(p, "DefaultEndpointsProtocol") == 0)
            proto = v;
        else if (strcasecmp(p, "EndpointSuffix") == 0)
            suffix = v;
        else if (strcasecmp(p, "UseDevelopmentStorage") == 0)
            dev = strcasecmp(v, "true") == 0;
    }
    if (dev) {
        c->name = c->name ? c->name : DEV_ACCOUNT;
        c->key = c->key ? c->key : DEV_KEY;
        c->endpoint = c->endpoint ? c->endpoint : DEV_ENDPOINT;
    }
    if (!c->name && !c->endpoint)
        return fl_errorf(err, FL_EINVAL, "%s: connection string names no AccountName", what);
    if (!c->endpoint) {
        snprintf(c->endpoint_buf, sizeof c->endpoint_buf, "%s://%s.blob.%s", proto, c->name,
                 suffix);
        c->endpoint = c->endpoint_buf;
    }
    return FL_OK;
}

/* The entry of an account named by a property suffix: "myacct" or, as
 * Iceberg's ADLSLocation names it, "myacct.dfs.core.windows.net". */
static fl_azure_account *account_entry(fl_azure_config *cfg, char *storage, const char *suffix,
                                       fl_status *rc, fl_error *err)
{
    char name[80];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(suffix, "."), suffix);
    for (size_t i = 0; i < cfg->naccounts; i++)
        if (strcasecmp(cfg->accounts[i].name, name) == 0)
            return &cfg->accounts[i];
    if (cfg->naccounts == FL_AZURE_MAX_ACCOUNTS) {
        *rc =
            fl_errorf(err, FL_ELIMIT, "Azure config: more than %d accounts", FL_AZURE_MAX_ACCOUNTS);
        return NULL;
    }
    fl_azure_account *a = &cfg->accounts[cfg->naccounts];
    memset(a, 0, sizeof *a);
    if (!(a->name = keep(cfg, storage, name, rc, err)))
        return NULL;
    cfg->naccounts++;
    return a;
}

fl_status fl_azure_config_set(fl_azure_config *cfg, char *storage, const char *key,
                              const char *value, fl_error *err)
{
    fl_status rc = FL_OK;
    static const char sas_p[] = "adls.sas-token.", conn_p[] = "adls.connection-string.";
    if (strncmp(key, sas_p, sizeof sas_p - 1) == 0 && key[sizeof sas_p - 1]) {
        fl_azure_account *a = account_entry(cfg, storage, key + sizeof sas_p - 1, &rc, err);
        if (a)
            a->sas_token = keep(cfg, storage, value, &rc, err);
    } else if (strncmp(key, conn_p, sizeof conn_p - 1) == 0 && key[sizeof conn_p - 1]) {
        conn c;
        FL_TRY(parse_conn(value, key, &c, err));
        fl_azure_account *a = account_entry(cfg, storage, key + sizeof conn_p - 1, &rc, err);
        if (a) {
            a->endpoint = keep(cfg, storage, c.endpoint, &rc, err);
            a->key = keep(cfg, storage, c.key, &rc, err);
            if (c.sas)
                a->sas_token = keep(cfg, storage, c.sas, &rc, err);
        }
    } else if (strcmp(key, "adls.auth.shared-key.account.name") == 0) {
        cfg->account_name = keep(cfg, storage, value, &rc, err);
    } else if (strcmp(key, "adls.auth.shared-key.account.key") == 0) {
        cfg->account_key = keep(cfg, storage, value, &rc, err);
    } else if (strcmp(key, "adls.endpoint") == 0) {
        cfg->endpoint = keep(cfg, storage, value, &rc, err);
    } else if (strcmp(key, "adls.token-endpoint") == 0) {
        cfg->token_endpoint = keep(cfg, storage, value, &rc, err);
    } else if (strcmp(key, "adls.write.block-size-bytes") == 0) {
        rc = parse_u64(key, value, (uint64_t)4000 << 20, &cfg->block_size, err);
    }
    return rc;
}

static fl_status env_numbers(fl_azure_config *cfg, fl_error *err)
{
    uint64_t v = 0;
    const char *s;
    if ((s = env("FLOE_AZURE_BLOCK_SIZE")))
        FL_TRY(parse_u64("FLOE_AZURE_BLOCK_SIZE", s, (uint64_t)4000 << 20, &cfg->block_size, err));
    if ((s = env("FLOE_AZURE_MAX_RETRIES"))) {
        FL_TRY(parse_u64("FLOE_AZURE_MAX_RETRIES", s, 100, &v, err));
        cfg->max_retries = (uint32_t)v;
    }
    if ((s = env("FLOE_AZURE_LIST_PAGE_SIZE"))) {
        FL_TRY(parse_u64("FLOE_AZURE_LIST_PAGE_SIZE", s, 5000, &v, err));
        cfg->list_page_size = (uint32_t)v;
    }
    return FL_OK;
}

fl_status fl_azure_config_from_env(fl_azure_config *cfg, char *storage, fl_error *err)
{
    memset(cfg, 0, sizeof *cfg);
    fl_status rc = FL_OK;
    const char *cs = env("AZURE_STORAGE_CONNECTION_STRING");
    if (cs) {
        conn c;
        FL_TRY(parse_conn(cs, "AZURE_STORAGE_CONNECTION_STRING", &c, err));
        cfg->account_name = keep(cfg, storage, c.name, &rc, err);
        cfg->account_key = keep(cfg, storage, c.key, &rc, err);
        cfg->sas_token = keep(cfg, storage, c.sas, &rc, err);
        cfg->endpoint = keep(cfg, storage, c.endpoint, &rc, err);
    }
    if (env("AZURE_STORAGE_ACCOUNT"))
        cfg->account_name = keep(cfg, storage, env("AZURE_STORAGE_ACCOUNT"), &rc, err);
    if (env("AZURE_STORAGE_KEY"))
        cfg->account_key = keep(cfg, storage, env("AZURE_STORAGE_KEY"), &rc, err);
    if (env("AZURE_STORAGE_SAS_TOKEN"))
        cfg->sas_token = keep(cfg, storage, env("AZURE_STORAGE_SAS_TOKEN"), &rc, err);
    if (env("FLOE_AZURE_ENDPOINT"))
        cfg->endpoint = keep(cfg, storage, env("FLOE_AZURE_ENDPOINT"), &rc, err);
    cfg->tenant_id = keep(cfg, storage, env("AZURE_TENANT_ID"), &rc, err);
    cfg->client_id = keep(cfg, storage, env("AZURE_CLIENT_ID"), &rc, err);
    cfg->client_secret = keep(cfg, storage, env("AZURE_CLIENT_SECRET"), &rc, err);
    cfg->ca_file = keep(cfg, storage, env("FLOE_AZURE_CA_FILE"), &rc, err);
    const char *tok = env("FLOE_AZURE_TOKEN_ENDPOINT");
    char buf[600];
    if (!tok && env("AZURE_AUTHORITY_HOST") && cfg->tenant_id) {
        const char *h = env("AZURE_AUTHORITY_HOST");
        size_t hl = strlen(h);
        while (hl && h[hl - 1] == '/')
            hl--;
        snprintf(buf, sizeof buf, "%.*s/%s/oauth2/v2.0/token", (int)hl, h, cfg->tenant_id);
        tok = buf;
    }
    cfg->token_endpoint = keep(cfg, storage, tok, &rc, err);
    return rc == FL_OK ? env_numbers(cfg, err) : rc;
}

static void copy_account(fl_azure_account *d, const fl_azure_account *s, fl_azure_config *cfg,
                         char *storage, fl_status *rc, fl_error *err)
{
    d->name = keep(cfg, storage, s->name, rc, err);
    d->endpoint = keep(cfg, storage, s->endpoint, rc, err);
    d->key = keep(cfg, storage, s->key, rc, err);
    d->sas_token = keep(cfg, storage, s->sas_token, rc, err);
}

fl_status azure_config_copy(const fl_azure_config *src, fl_azure_config *dst, char *storage,
                            fl_error *err)
{
    *dst = *src;
    dst->storage_used = 0;
    fl_status rc = FL_OK;
    if (src->naccounts > FL_AZURE_MAX_ACCOUNTS)
        return fl_errorf(err, FL_ELIMIT, "Azure config: more than %d accounts",
                         FL_AZURE_MAX_ACCOUNTS);
    for (size_t i = 0; i < src->naccounts; i++)
        copy_account(&dst->accounts[i], &src->accounts[i], dst, storage, &rc, err);
    fl_azure_account d = {0},
                     s = {src->endpoint, src->account_name, src->account_key, src->sas_token};
    copy_account(&d, &s, dst, storage, &rc, err);
    dst->endpoint = d.name;
    dst->account_name = d.endpoint;
    dst->account_key = d.key;
    dst->sas_token = d.sas_token;
    dst->tenant_id = keep(dst, storage, src->tenant_id, &rc, err);
    dst->client_id = keep(dst, storage, src->client_id, &rc, err);
    dst->client_secret = keep(dst, storage, src->client_secret, &rc, err);
    dst->token_endpoint = keep(dst, storage, src->token_endpoint, &rc, err);
    dst->ca_file = keep(dst, storage, src->ca_file, &rc, err);
    return rc;
}
