/*
 * b64.c - base64 (RFC 4648 section 4, with '=' padding; used in SCRAM
 * verifiers, as PostgreSQL writes them) and base64url (section 5, no
 * padding; used in JWTs, RFC 7515 section 2), plus lowercase hex.
 *
 * Decoding is strict and canonical: every character must be in the
 * alphabet, the length must be possible (n % 4 != 1), and the unused low
 * bits of the last character must be zero. So a token has exactly one
 * encoding and a tampered character can never decode to the same bytes.
 */
#include <string.h>

#include "auth/auth_internal.h"

static const char STD[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char URL[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

size_t auth_b64_encode(const uint8_t *in, size_t n, bool url, char *out, size_t cap)
{
    const char *al = url ? URL : STD;
    size_t need = url ? (n / 3) * 4 + (n % 3 ? n % 3 + 1 : 0) : ((n + 2) / 3) * 4;
    if (need + 1 > cap)
        return 0;
    size_t o = 0, i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = al[v >> 18];
        out[o++] = al[(v >> 12) & 63];
        out[o++] = al[(v >> 6) & 63];
        out[o++] = al[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        out[o++] = al[v >> 18];
        out[o++] = al[(v >> 12) & 63];
        if (!url) {
            out[o++] = '=';
            out[o++] = '=';
        }
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        out[o++] = al[v >> 18];
        out[o++] = al[(v >> 12) & 63];
        out[o++] = al[(v >> 6) & 63];
        if (!url)
            out[o++] = '=';
    }
    out[o] = '\0';
    return o;
}

static int val(char c, bool url)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == (url ? '-' : '+'))
        return 62;
    if (c == (url ? '_' : '/'))
        return 63;
    return -1;
}

long auth_b64_decode(const char *in, size_t n, bool url, uint8_t *out, size_t cap)
{
    if (!url) { /* padding required: strip it after checking the length */
        if (n % 4)
            return -1;
        if (n && in[n - 1] == '=')
            n--;
        if (n && in[n - 1] == '=')
            n--;
    }
    if (n % 4 == 1)
        return -1;
    size_t outn = n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0);
    if (outn > cap)
        return -1;
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        int v = val(in[i], url);
        if (v < 0)
            return -1;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (uint8_t)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    if (acc != 0) /* non-canonical: leftover bits must be zero */
        return -1;
    return (long)o;
}

void auth_hex(const uint8_t *in, size_t n, char *out)
{
    static const char H[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = H[in[i] >> 4];
        out[2 * i + 1] = H[in[i] & 15];
    }
    out[2 * n] = '\0';
}
