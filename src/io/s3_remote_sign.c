/*
 * s3_remote_sign.c - signing S3 requests that someone else sends: the
 * storage half of the REST catalog's remote signing (src/server/h_sign.c
 * decides who may sign what; this file only reads URLs and signs).
 *
 *   fl_s3_url_parse     which bucket and key a request URL addresses on the
 *                       configured endpoint (path-style or virtual-host), its
 *                       query decoded; a URL on another host is FL_EINVAL, so
 *                       the signer can never be used to sign for a host the
 *                       server does not store tables on.
 *   fl_s3_sign_headers  SigV4 over host, every x-amz-* header, content-md5,
 *                       content-type and if-* of the request, dated now (a
 *                       date the client sent is replaced: S3 refuses a
 *                       signature older than 15 minutes, which is what makes a
 *                       signature expire). Returns the whole header set to
 *                       send, Authorization included.
 *   fl_s3_delete_request_keys  the keys of a DeleteObjects body, so that a
 *                       bulk delete can be checked key by key.
 *
 * Everything is allocated in the caller's arena.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/arena.h"
#include "io/s3_internal.h"

#define MAX_QUERY 32
#define MAX_SIGN_HEADERS 16

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Percent-decodes [p, p+n) into the arena; plus_space for query strings.
 * NULL on a broken escape or a NUL byte (never a valid key). */
static char *decode(fl_arena *a, const char *p, size_t n, bool plus_space)
{
    char *o = fl_arena_alloc(a, n + 1);
    if (!o)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '%') {
            if (i + 2 >= n || hexval(p[i + 1]) < 0 || hexval(p[i + 2]) < 0)
                return NULL;
            c = (char)(hexval(p[i + 1]) * 16 + hexval(p[i + 2]));
            if (c == '\0')
                return NULL;
            i += 2;
        } else if (c == '+' && plus_space) {
            c = ' ';
        }
        o[k++] = c;
    }
    o[k] = '\0';
    return o;
}

/* "scheme://host[:port]" of the endpoint, or of AWS for the region. */
static const char *endpoint_of(const fl_s3_config *cfg, fl_arena *a)
{
    if (cfg->endpoint && *cfg->endpoint)
        return cfg->endpoint;
    return fl_arena_sprintf(a, "https://s3.%s.amazonaws.com",
                            cfg->region && *cfg->region ? cfg->region : "us-east-1");
}

/* Splits "scheme://authority/rest" at the authority; false when malformed. */
static bool split_url(const char *url, const char **auth, size_t *auth_len, const char **rest)
{
    const char *s = strstr(url, "://");
    if (!s || s == url)
        return false;
    *auth = s + 3;
    const char *e = *auth + strcspn(*auth, "/?#");
    *auth_len = (size_t)(e - *auth);
    *rest = e;
    return *auth_len > 0 && *e != '#';
}

static bool same_ci(const char *a, size_t an, const char *b, size_t bn)
{
    return an == bn && strncasecmp(a, b, an) == 0;
}

static fl_status parse_query(const char *q, fl_arena *a, fl_s3_url *out, fl_error *err)
{
    fl_s3_header *qs = fl_arena_calloc(a, MAX_QUERY, sizeof *qs);
    if (!qs)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    size_t n = 0;
    while (q && *q) {
        size_t len = strcspn(q, "&");
        if (len) {
            if (n == MAX_QUERY)
                return fl_errorf(err, FL_EINVAL, "S3 request URL: more than %d query parameters",
                                 MAX_QUERY);
            const char *eq = memchr(q, '=', len);
            size_t kl = eq ? (size_t)(eq - q) : len;
            qs[n].name = decode(a, q, kl, true);
            qs[n].value = eq ? decode(a, eq + 1, len - kl - 1, true) : "";
            if (!qs[n].name || !qs[n].value)
                return fl_errorf(err, FL_EINVAL, "S3 request URL: bad escape in the query");
            n++;
        }
        q += len;
        if (*q == '&')
            q++;
    }
    out->query = qs;
    out->nquery = n;
    return FL_OK;
}

fl_status fl_s3_url_parse(const fl_s3_config *cfg, const char *url, fl_arena *a, fl_s3_url *out,
                          fl_error *err)
{
    memset(out, 0, sizeof *out);
    const char *ep = endpoint_of(cfg, a), *ua, *urest, *ea, *erest;
    size_t ual, eal;
    if (!ep)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (!url || !split_url(url, &ua, &ual, &urest))
        return fl_errorf(err, FL_EINVAL, "S3 request URL '%.200s' is not an absolute URL",
                         url ? url : "");
    if (!split_url(ep, &ea, &eal, &erest))
        return fl_errorf(err, FL_EINVAL, "S3 endpoint '%s' is not an absolute URL", ep);
    const char *qm = strchr(urest, '?');
    size_t plen = qm ? (size_t)(qm - urest) : strlen(urest);
    const char *path = plen ? urest : "/";
    if (!plen)
        plen = 1;
    out->path = fl_arena_strndup(a, path, plen);
    if (!out->path)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    const char *p = path + 1; /* after the leading '/' */
    size_t pn = plen - 1;
    if (same_ci(ua, ual, ea, eal) && cfg->path_style) {
        size_t bl = strcspn(p, "/?");
        if (bl > pn)
            bl = pn;
        out->bucket = decode(a, p, bl, false);
        out->key = bl < pn ? decode(a, p + bl + 1, pn - bl - 1, false) : "";
    } else if (ual > eal + 1 && same_ci(ua + ual - eal, eal, ea, eal) && ua[ual - eal - 1] == '.') {
        out->bucket = fl_arena_strndup(a, ua, ual - eal - 1);
        out->key = decode(a, p, pn, false);
    } else {
        return fl_errorf(err, FL_EINVAL,
                         "S3 request URL '%.200s' is not on this server's storage endpoint %s", url,
                         ep);
    }
    if (!out->bucket || !out->key || !*out->bucket)
        return fl_errorf(err, FL_EINVAL, "S3 request URL '%.200s': bad bucket or key", url);
    out->host = fl_arena_strndup(a, ua, ual);
    if (!out->host)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return parse_query(qm ? qm + 1 : NULL, a, out, err);
}

const char *fl_s3_url_query(const fl_s3_url *u, const char *name)
{
    for (size_t i = 0; i < u->nquery; i++)
        if (!strcmp(u->query[i].name, name))
            return u->query[i].value;
    return NULL;
}

/* Headers that SigV4 covers here: x-amz-*, content-md5, content-type, if-*. */
static bool signed_header(const char *lname)
{
    return !strncmp(lname, "x-amz-", 6) || !strcmp(lname, "content-md5") ||
           !strcmp(lname, "content-type") || !strncmp(lname, "if-", 3);
}

static char *lower_dup(fl_arena *a, const char *s)
{
    char *o = fl_arena_strdup(a, s);
    for (char *c = o; c && *c; c++)
        *c = (char)tolower((unsigned char)*c);
    return o;
}

fl_status fl_s3_sign_headers(const fl_s3_config *cfg, const char *region, const char *method,
                             const char *url, const fl_s3_header *headers, size_t n, int64_t now_s,
                             fl_arena *a, fl_s3_header **out, size_t *nout, fl_error *err)
{
    if (!cfg->access_key_id || !cfg->secret_access_key)
        return fl_errorf(err, FL_EINVAL, "remote signing: the server has no S3 credentials");
    fl_s3_url u;
    FL_TRY(fl_s3_url_parse(cfg, url, a, &u, err));
    char date[17];
    s3_amz_date(now_s, date);
    fl_s3_header *res = fl_arena_calloc(a, n + 6, sizeof *res);
    io_kv sign[MAX_SIGN_HEADERS];
    size_t nres = 0, nsign = 0;
    const char *payload = "UNSIGNED-PAYLOAD";
    if (!res)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    sign[nsign++] = (io_kv){"host", u.host};
    for (size_t i = 0; i < n; i++) {
        char *ln = lower_dup(a, headers[i].name);
        if (!ln || !headers[i].value)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (!strcmp(ln, "authorization") || !strcmp(ln, "x-amz-date") || !strcmp(ln, "host") ||
            !strcmp(ln, "x-amz-security-token"))
            continue; /* replaced below */
        if (!strcmp(ln, "x-amz-content-sha256")) {
            payload = headers[i].value;
            continue;
        }
        res[nres++] = headers[i];
        if (signed_header(ln)) {
            if (nsign + 3 >= MAX_SIGN_HEADERS)
                return fl_errorf(err, FL_EINVAL, "remote signing: too many headers to sign");
            sign[nsign++] = (io_kv){ln, headers[i].value};
        }
    }
    sign[nsign++] = (io_kv){"x-amz-content-sha256", payload};
    sign[nsign++] = (io_kv){"x-amz-date", date};
    if (cfg->session_token && *cfg->session_token)
        sign[nsign++] = (io_kv){"x-amz-security-token", cfg->session_token};
    io_kv q[MAX_QUERY];
    for (size_t i = 0; i < u.nquery; i++)
        q[i] = (io_kv){u.query[i].name, *u.query[i].value ? u.query[i].value : NULL};
    const char *rg = region && *region             ? region
                     : cfg->region && *cfg->region ? cfg->region
                                                   : "us-east-1";
    /* S3 canonicalizes the path it receives (each segment decoded, then
     * encoded as SigV4 says), whatever encoding the client chose: so do we. */
    io_sb cpath = {0};
    for (const char *seg = u.path; *seg;) {
        size_t sl = strcspn(seg + 1, "/") + 1; /* "/segment" */
        char *d = decode(a, seg + 1, sl - 1, false);
        if (!d) {
            io_sb_free(&cpath);
            return fl_errorf(err, FL_EINVAL, "S3 request URL: bad escape in the path");
        }
        io_sb_putn(&cpath, "/", 1);
        io_uri_encode(&cpath, d, strlen(d), false);
        seg += sl;
    }
    if (cpath.oom)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    s3_sign_req sr = {method,
                      cpath.buf.data,
                      q,
                      u.nquery,
                      sign,
                      nsign,
                      payload,
                      date,
                      rg,
                      "s3",
                      cfg->access_key_id,
                      cfg->secret_access_key};
    char *auth = NULL;
    fl_status rc = s3_sigv4_sign(&sr, NULL, NULL, &auth, err);
    io_sb_free(&cpath);
    FL_TRY(rc);
    const char *auth_copy = fl_arena_strdup(a, auth);
    free(auth);
    const char *date_copy = fl_arena_strdup(a, date);
    if (!auth_copy || !date_copy)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    res[nres++] = (fl_s3_header){"Host", u.host};
    res[nres++] = (fl_s3_header){"x-amz-content-sha256", payload};
    res[nres++] = (fl_s3_header){"x-amz-date", date_copy};
    if (cfg->session_token && *cfg->session_token)
        res[nres++] = (fl_s3_header){"x-amz-security-token", cfg->session_token};
    res[nres++] = (fl_s3_header){"Authorization", auth_copy};
    *out = res;
    *nout = nres;
    return FL_OK;
}

typedef struct keys_ctx {
    fl_arena *a;
    const char **keys;
    size_t n, cap;
    bool in_object;
    bool oom;
} keys_ctx;

static fl_status on_xml(void *vc, int event, unsigned depth, const char *name, const char *text,
                        size_t text_len)
{
    keys_ctx *c = vc;
    if (depth == 2 && !strcmp(name, "Object"))
        c->in_object = event == IO_XML_OPEN;
    if (event != IO_XML_CLOSE || depth != 3 || !c->in_object || strcmp(name, "Key") != 0)
        return FL_OK;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        const char **k = fl_arena_alloc(c->a, cap * sizeof *k);
        if (!k)
            return FL_ENOMEM;
        if (c->n)
            memcpy(k, c->keys, c->n * sizeof *k);
        c->keys = k;
        c->cap = cap;
    }
    if (!(c->keys[c->n++] = fl_arena_strndup(c->a, text, text_len)))
        return FL_ENOMEM;
    return FL_OK;
}

fl_status fl_s3_delete_request_keys(const char *xml, size_t len, fl_arena *a, const char ***keys,
                                    size_t *n, fl_error *err)
{
    keys_ctx c = {.a = a};
    fl_status rc = io_xml_walk(xml, len, on_xml, &c, err);
    if (rc == FL_ENOMEM)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    FL_TRY(rc);
    *keys = c.keys;
    *n = c.n;
    return FL_OK;
}
