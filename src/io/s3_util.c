/*
 * s3_util.c - small helpers of the S3 FileIO: a growable string, the RFC 3986
 * encoding SigV4 prescribes (AWS "UriEncode": unreserved A-Z a-z 0-9 - _ . ~
 * kept, '/' kept only in paths, everything else %XX uppercase, so '+', '='
 * and ' ' are always encoded), XML text escaping, digests through OpenSSL
 * libcrypto (EVP, no deprecated low-level calls), the x-amz-date format, and
 * the parsing of "s3://bucket/key" paths.
 */
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/s3_internal.h"

void s3_sb_putn(s3_sb *s, const char *p, size_t n)
{
    if (!s->oom && fl_buf_append(&s->buf, p, n, NULL) != FL_OK)
        s->oom = true;
}

void s3_sb_puts(s3_sb *s, const char *p)
{
    s3_sb_putn(s, p, strlen(p));
}

void s3_sb_printf(s3_sb *s, const char *fmt, ...)
{
    if (s->oom)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || fl_buf_reserve(&s->buf, (size_t)n, NULL) != FL_OK) {
        s->oom = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(s->buf.data + s->buf.len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    s->buf.len += (size_t)n;
}

void s3_sb_free(s3_sb *s)
{
    fl_buf_free(&s->buf);
    s->oom = false;
}

static bool unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '~';
}

void s3_uri_encode(s3_sb *s, const char *p, size_t n, bool keep_slash)
{
    static const char hex[] = "0123456789ABCDEF";
    if (s->oom || n > SIZE_MAX / 3 || fl_buf_reserve(&s->buf, n * 3, NULL) != FL_OK) {
        s->oom = true;
        return;
    }
    char *o = s->buf.data + s->buf.len;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (unreserved(c) || (keep_slash && c == '/')) {
            *o++ = (char)c;
        } else {
            *o++ = '%';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
    }
    s->buf.len = (size_t)(o - s->buf.data);
    s->buf.data[s->buf.len] = '\0';
}

void s3_xml_escape(s3_sb *s, const char *p)
{
    for (; *p; p++) {
        switch (*p) {
        case '&': s3_sb_puts(s, "&amp;"); break;
        case '<': s3_sb_puts(s, "&lt;"); break;
        case '>': s3_sb_puts(s, "&gt;"); break;
        case '"': s3_sb_puts(s, "&quot;"); break;
        case '\'': s3_sb_puts(s, "&apos;"); break;
        default: s3_sb_putn(s, p, 1);
        }
    }
}

void s3_hex(const uint8_t *in, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[in[i] >> 4];
        out[2 * i + 1] = hex[in[i] & 15];
    }
    out[2 * n] = '\0';
}

void s3_sha256_hex(const void *data, size_t n, char out[65])
{
    uint8_t md[32];
    unsigned int len = 0;
    EVP_Digest(data, n, md, &len, EVP_sha256(), NULL);
    s3_hex(md, 32, out);
}

void s3_hmac_sha256(const void *key, size_t key_len, const void *msg, size_t msg_len,
                    uint8_t out[32])
{
    unsigned int len = 32;
    HMAC(EVP_sha256(), key, (int)key_len, msg, msg_len, out, &len);
}

void s3_md5_base64(const void *data, size_t n, char out[25])
{
    uint8_t md[16];
    unsigned int len = 0;
    EVP_Digest(data, n, md, &len, EVP_md5(), NULL);
    EVP_EncodeBlock((unsigned char *)out, md, 16);
}

void s3_md5_hex(const void *data, size_t n, char out[33])
{
    uint8_t md[16];
    unsigned int len = 0;
    EVP_Digest(data, n, md, &len, EVP_md5(), NULL);
    s3_hex(md, 16, out);
}

void s3_amz_date(int64_t t, char out[17])
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(out, 17, "%Y%m%dT%H%M%SZ", &tm);
}

static size_t scheme_len_of(const char *path)
{
    if (strncmp(path, "s3://", 5) == 0)
        return 5;
    if (strncmp(path, "s3a://", 6) == 0 || strncmp(path, "s3n://", 6) == 0)
        return 6;
    return 0;
}

bool s3_is_s3_path(const char *path)
{
    return scheme_len_of(path) != 0;
}

/* Bucket names per S3 rules, loosely: 1-255 of [a-z A-Z 0-9 . - _]. */
static bool bucket_ok(const char *b, size_t n)
{
    if (n == 0 || n > 255)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = b[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == '_'))
            return false;
    }
    return true;
}

fl_status s3_parse_path(const char *path, bool require_key, size_t *scheme_len, char **bucket,
                        char **key, fl_error *err)
{
    size_t sl = scheme_len_of(path);
    if (!sl)
        return fl_errorf(err, FL_EINVAL, "%s: not an s3:// path", path);
    const char *b = path + sl;
    const char *slash = strchr(b, '/');
    size_t bl = slash ? (size_t)(slash - b) : strlen(b);
    if (!bucket_ok(b, bl))
        return fl_errorf(err, FL_EINVAL, "%s: invalid bucket name", path);
    const char *k = slash ? slash + 1 : "";
    if (require_key && !*k)
        return fl_errorf(err, FL_EINVAL, "%s: no object key after the bucket", path);
    if (strlen(k) > 1024)
        return fl_errorf(err, FL_EINVAL, "%s: object key longer than 1024 bytes", path);
    *bucket = strndup(b, bl);
    *key = strdup(k);
    if (!*bucket || !*key) {
        free(*bucket);
        free(*key);
        *bucket = *key = NULL;
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    }
    if (scheme_len)
        *scheme_len = sl;
    return FL_OK;
}
