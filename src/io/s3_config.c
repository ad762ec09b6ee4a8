/*
 * s3_config.c - fl_s3_config_from_env: S3 settings from the environment and
 * the AWS shared files, with the precedence the AWS CLI uses:
 *
 *   keys:     AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN),
 *             else [<profile>] of AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials),
 *             else [default] / [profile <name>] of AWS_CONFIG_FILE (~/.aws/config)
 *             (aws_access_key_id, aws_secret_access_key, aws_session_token);
 *             profile = AWS_PROFILE or "default"
 *   region:   AWS_REGION, AWS_DEFAULT_REGION, then "region" in the config file
 *   endpoint: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, then "endpoint_url" in the
 *             config file; a custom endpoint implies path-style addressing
 *             unless FLOE_S3_VIRTUAL_HOST=1; FLOE_S3_PATH_STYLE=1 forces it
 *   floe:     FLOE_S3_MULTIPART_THRESHOLD (bytes), FLOE_S3_MAX_RETRIES
 *
 * The INI reader is deliberately small: "[section]" headers, "key = value"
 * lines, '#' / ';' comment lines; files over 1 MiB are refused. Strings are
 * copied into the caller's storage (FL_S3_CONFIG_STORAGE bytes; FL_ELIMIT if
 * they do not fit), so cfg holds no heap memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/s3_internal.h"

#define INI_MAX ((size_t)1 << 20)
#define VAL_MAX 1024

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* [p, e) trimmed of blanks on both sides. */
static void trim(const char **p, const char **e)
{
    while (*p < *e && is_blank(**p))
        (*p)++;
    while (*e > *p && is_blank((*e)[-1]))
        (*e)--;
}

bool s3_ini_get(const char *text, size_t len, const char *section, const char *key, char *out,
                size_t out_cap)
{
    const char *p = text, *end = text + len;
    bool in = false;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *a = p, *b = le;
        p = nl ? nl + 1 : end;
        trim(&a, &b);
        if (a == b || *a == '#' || *a == ';')
            continue;
        if (*a == '[') {
            if (b[-1] != ']' || b - a < 2)
                continue;
            const char *s = a + 1, *t = b - 1;
            trim(&s, &t);
            in = (size_t)(t - s) == strlen(section) && memcmp(s, section, (size_t)(t - s)) == 0;
            continue;
        }
        const char *eq = memchr(a, '=', (size_t)(b - a));
        if (!in || !eq)
            continue;
        const char *ks = a, *ke = eq, *vs = eq + 1, *ve = b;
        trim(&ks, &ke);
        trim(&vs, &ve);
        if ((size_t)(ke - ks) != strlen(key) || memcmp(ks, key, (size_t)(ke - ks)) != 0)
            continue;
        size_t n = (size_t)(ve - vs);
        if (n >= out_cap)
            return false;
        memcpy(out, vs, n);
        out[n] = '\0';
        return true;
    }
    return false;
}

/* Reads a whole small file; NULL when missing or unreadable. */
static char *read_small(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(INI_MAX + 1);
    size_t n = buf ? fread(buf, 1, INI_MAX + 1, f) : 0;
    fclose(f);
    if (!buf || n > INI_MAX) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

typedef struct store {
    char *base;
    size_t used;
    fl_error *err;
    fl_status rc;
} store;

static const char *keep(store *s, const char *v)
{
    if (!v || !*v || s->rc != FL_OK)
        return NULL;
    size_t n = strlen(v) + 1;
    if (n > FL_S3_CONFIG_STORAGE - s->used) {
        s->rc = fl_errorf(s->err, FL_ELIMIT, "S3 config: settings longer than %d bytes",
                          FL_S3_CONFIG_STORAGE);
        return NULL;
    }
    char *d = s->base + s->used;
    memcpy(d, v, n);
    s->used += n;
    return d;
}

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static fl_status env_u64(const char *name, uint64_t max, uint64_t *out, fl_error *err)
{
    const char *v = env(name);
    if (!v)
        return FL_OK;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end || *v == '-' || x == 0 || x > max)
        return fl_errorf(err, FL_EINVAL, "%s='%s': expected an integer in 1..%llu", name, v,
                         (unsigned long long)max);
    *out = x;
    return FL_OK;
}

typedef struct aws_files {
    char *cred, *conf;
    size_t cred_len, conf_len;
    char conf_section[300], profile[256];
} aws_files;

static void load_files(aws_files *f)
{
    const char *home = env("HOME");
    char path[4096];
    const char *p = env("AWS_SHARED_CREDENTIALS_FILE");
    if (!p && home && snprintf(path, sizeof path, "%s/.aws/credentials", home) < (int)sizeof path)
        p = path;
    f->cred = p ? read_small(p, &f->cred_len) : NULL;
    p = env("AWS_CONFIG_FILE");
    if (!p && home && snprintf(path, sizeof path, "%s/.aws/config", home) < (int)sizeof path)
        p = path;
    f->conf = p ? read_small(p, &f->conf_len) : NULL;
    const char *prof = env("AWS_PROFILE");
    snprintf(f->profile, sizeof f->profile, "%s", prof ? prof : "default");
    if (strcmp(f->profile, "default") == 0)
        snprintf(f->conf_section, sizeof f->conf_section, "default");
    else
        snprintf(f->conf_section, sizeof f->conf_section, "profile %s", f->profile);
}

static bool conf_get(const aws_files *f, const char *key, char *out)
{
    return f->conf && s3_ini_get(f->conf, f->conf_len, f->conf_section, key, out, VAL_MAX);
}

static void keys_from_files(const aws_files *f, store *s, fl_s3_config *cfg)
{
    char id[VAL_MAX], secret[VAL_MAX], token[VAL_MAX];
    if (f->cred && s3_ini_get(f->cred, f->cred_len, f->profile, "aws_access_key_id", id, VAL_MAX) &&
        s3_ini_get(f->cred, f->cred_len, f->profile, "aws_secret_access_key", secret, VAL_MAX)) {
        cfg->access_key_id = keep(s, id);
        cfg->secret_access_key = keep(s, secret);
        if (s3_ini_get(f->cred, f->cred_len, f->profile, "aws_session_token", token, VAL_MAX))
            cfg->session_token = keep(s, token);
    } else if (conf_get(f, "aws_access_key_id", id) &&
               conf_get(f, "aws_secret_access_key", secret)) {
        cfg->access_key_id = keep(s, id);
        cfg->secret_access_key = keep(s, secret);
        if (conf_get(f, "aws_session_token", token))
            cfg->session_token = keep(s, token);
    }
}

fl_status fl_s3_config_from_env(fl_s3_config *cfg, char *storage, fl_error *err)
{
    memset(cfg, 0, sizeof *cfg);
    store s = {storage, 0, err, FL_OK};
    aws_files f = {0};
    load_files(&f);
    if (env("AWS_ACCESS_KEY_ID") && env("AWS_SECRET_ACCESS_KEY")) {
        cfg->access_key_id = keep(&s, env("AWS_ACCESS_KEY_ID"));
        cfg->secret_access_key = keep(&s, env("AWS_SECRET_ACCESS_KEY"));
        cfg->session_token = keep(&s, env("AWS_SESSION_TOKEN"));
    } else {
        keys_from_files(&f, &s, cfg);
    }
    char v[VAL_MAX];
    const char *region = env("AWS_REGION") ? env("AWS_REGION") : env("AWS_DEFAULT_REGION");
    if (!region && conf_get(&f, "region", v))
        region = v;
    cfg->region = keep(&s, region);
    const char *ep =
        env("AWS_ENDPOINT_URL_S3") ? env("AWS_ENDPOINT_URL_S3") : env("AWS_ENDPOINT_URL");
    if (!ep && conf_get(&f, "endpoint_url", v))
        ep = v;
    cfg->endpoint = keep(&s, ep);
    const char *vh = env("FLOE_S3_VIRTUAL_HOST"), *ps = env("FLOE_S3_PATH_STYLE");
    cfg->path_style =
        (ps && strcmp(ps, "1") == 0) || (cfg->endpoint && !(vh && strcmp(vh, "1") == 0));
    free(f.cred);
    free(f.conf);
    FL_TRY(s.rc);
    uint64_t retries = 0;
    FL_TRY(
        env_u64("FLOE_S3_MULTIPART_THRESHOLD", (uint64_t)5 << 30, &cfg->multipart_threshold, err));
    FL_TRY(env_u64("FLOE_S3_MAX_RETRIES", 100, &retries, err));
    cfg->max_retries = (uint32_t)retries;
    return FL_OK;
}
