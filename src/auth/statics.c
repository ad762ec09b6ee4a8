/*
 * statics.c - static bearer tokens: configured "TOKEN=PRINCIPAL" strings
 * (e.g. for a service that cannot run the OAuth2 flow).
 *
 * Only the SHA-256 of each token is kept in memory. A presented token is
 * hashed and compared with every entry using CRYPTO_memcmp, without an
 * early exit, so the time taken says nothing about which entry, or which
 * prefix, came close. The token is split at the LAST '=' (tokens may end in
 * base64 padding but principal names never contain '='). Tokens must be
 * at least 16 characters: a short static token is a guessable password.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "auth/auth_internal.h"

#define STATIC_MIN_LEN 16

fl_status auth_statics_parse(const char *const *specs, uint32_t n, auth_static **out, fl_error *err)
{
    *out = NULL;
    if (n == 0)
        return FL_OK;
    auth_static *st = calloc(n, sizeof *st);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "auth: out of memory");
    for (uint32_t i = 0; i < n; i++) {
        const char *s = specs[i], *eq = s ? strrchr(s, '=') : NULL;
        size_t tl = eq ? (size_t)(eq - s) : 0;
        if (!eq || !auth_name_valid(eq + 1)) {
            free(st);
            return fl_errorf(err, FL_EINVAL, "static token %u: expected TOKEN=PRINCIPAL", i + 1);
        }
        if (tl < STATIC_MIN_LEN || tl > AUTH_TOKEN_MAX) {
            free(st);
            return fl_errorf(err, FL_EINVAL,
                             "static token %u (principal %s): the token must be %d to %d "
                             "characters",
                             i + 1, eq + 1, STATIC_MIN_LEN, AUTH_TOKEN_MAX);
        }
        SHA256((const uint8_t *)s, tl, st[i].hash);
        snprintf(st[i].principal, sizeof st[i].principal, "%s", eq + 1);
    }
    *out = st;
    return FL_OK;
}

const char *auth_statics_match(const auth_static *st, uint32_t n, const char *tok, size_t len)
{
    if (n == 0)
        return NULL;
    uint8_t h[AUTH_KEY_LEN];
    SHA256((const uint8_t *)tok, len, h);
    const char *hit = NULL;
    for (uint32_t i = 0; i < n; i++)
        if (CRYPTO_memcmp(h, st[i].hash, AUTH_KEY_LEN) == 0 && !hit)
            hit = st[i].principal;
    return hit;
}
