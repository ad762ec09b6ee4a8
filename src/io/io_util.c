/*
 * io_util.c - small helpers shared by the object-store FileIOs (S3, Azure):
 * a growable string, RFC 3986 encoding (unreserved A-Z a-z 0-9 - _ . ~ kept,
 * '/' kept only in paths, everything else %XX uppercase, so '+', '=' and ' '
 * are always encoded), XML text escaping, digests through OpenSSL libcrypto
 * (EVP, no deprecated low-level calls) and base64.
 */
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/common.h"

void io_sb_putn(io_sb *s, const char *p, size_t n)
{
    if (!s->oom && fl_buf_append(&s->buf, p, n, NULL) != FL_OK)
        s->oom = true;
}

void io_sb_puts(io_sb *s, const char *p)
{
    io_sb_putn(s, p, strlen(p));
}

void io_sb_printf(io_sb *s, const char *fmt, ...)
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

void io_sb_free(io_sb *s)
{
    fl_buf_free(&s->buf);
    s->oom = false;
}

static bool unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '~';
}

void io_uri_encode(io_sb *s, const char *p, size_t n, bool keep_slash)
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

void io_xml_escape(io_sb *s, const char *p)
{
    for (; *p; p++) {
        switch (*p) {
        case '&': io_sb_puts(s, "&amp;"); break;
        case '<': io_sb_puts(s, "&lt;"); break;
        case '>': io_sb_puts(s, "&gt;"); break;
        case '"': io_sb_puts(s, "&quot;"); break;
        case '\'': io_sb_puts(s, "&apos;"); break;
        default: io_sb_putn(s, p, 1);
        }
    }
}

void io_hex(const uint8_t *in, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[in[i] >> 4];
        out[2 * i + 1] = hex[in[i] & 15];
    }
    out[2 * n] = '\0';
}

void io_sha256_hex(const void *data, size_t n, char out[65])
{
    uint8_t md[32];
    unsigned int len = 0;
    EVP_Digest(data, n, md, &len, EVP_sha256(), NULL);
    io_hex(md, 32, out);
}

void io_hmac_sha256(const void *key, size_t key_len, const void *msg, size_t msg_len,
                    uint8_t out[32])
{
    unsigned int len = 32;
    HMAC(EVP_sha256(), key, (int)key_len, msg, msg_len, out, &len);
}

void io_md5_base64(const void *data, size_t n, char out[25])
{
    uint8_t md[16];
    unsigned int len = 0;
    EVP_Digest(data, n, md, &len, EVP_md5(), NULL);
    EVP_EncodeBlock((unsigned char *)out, md, 16);
}

void io_md5_hex(const void *data, size_t n, char out[33])
{
    uint8_t md[16];
    unsigned int len = 0;
    EVP_Digest(data, n, md, &len, EVP_md5(), NULL);
    io_hex(md, 16, out);
}

size_t io_base64_encode(const void *in, size_t n, char *out)
{
    return (size_t)EVP_EncodeBlock((unsigned char *)out, in, (int)n);
}

fl_status io_base64_decode(const char *in, uint8_t *out, size_t cap, size_t *out_len)
{
    size_t n = strlen(in);
    if (n % 4 || n / 4 * 3 > cap)
        return FL_EINVAL;
    int got = EVP_DecodeBlock(out, (const unsigned char *)in, (int)n);
    if (got < 0)
        return FL_EINVAL;
    size_t pad = (n && in[n - 1] == '=') + (n > 1 && in[n - 2] == '=');
    *out_len = (size_t)got - pad;
    return FL_OK;
}

void io_copy_str(char *dst, size_t cap, const char *text)
{
    size_t n = strlen(text);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, text, n);
    dst[n] = '\0';
}
