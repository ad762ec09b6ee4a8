/*
 * secret.c - client secrets and how they are stored.
 *
 * A secret is 32 bytes from the OpenSSL CSPRNG (RAND_bytes), shown to the
 * user once as 43 base64url characters. The store keeps only a verifier, in
 * PostgreSQL's SCRAM-SHA-256 format (RFC 5802 section 3, RFC 7677):
 *
 *     SCRAM-SHA-256$<iterations>:<base64 salt>$<base64 StoredKey>:<base64 ServerKey>
 *
 *     SaltedPassword = PBKDF2-HMAC-SHA256(secret, salt, iterations, 32)
 *     StoredKey      = SHA-256(HMAC-SHA256(SaltedPassword, "Client Key"))
 *     ServerKey      = HMAC-SHA256(SaltedPassword, "Server Key")
 *
 * so the same row serves the OAuth2 token endpoint (recompute StoredKey
 * from the presented secret and compare) and a Postgres wire SCRAM exchange
 * (which needs exactly StoredKey and ServerKey), and a stolen store yields
 * nothing that authenticates. The salt is 16 random bytes per secret;
 * 4096 iterations is PostgreSQL's default and ample for secrets that are
 * 256-bit random strings rather than human passwords (README: threat
 * model). Comparison is CRYPTO_memcmp: time independent of where bytes differ.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include "auth/auth_internal.h"

#define PREFIX "SCRAM-SHA-256$"

fl_status auth_random(uint8_t *buf, size_t n, fl_error *err)
{
    if (RAND_bytes(buf, (int)n) != 1)
        return fl_errorf(err, FL_EIO, "auth: the random number generator failed");
    return FL_OK;
}

fl_status auth_secret_new(char *out, size_t cap, fl_error *err)
{
    uint8_t raw[32];
    if (cap < AUTH_SECRET_LEN + 1)
        return fl_errorf(err, FL_EINVAL, "auth: secret buffer too small (%zu bytes)", cap);
    FL_TRY(auth_random(raw, sizeof raw, err));
    auth_b64_encode(raw, sizeof raw, true, out, cap);
    OPENSSL_cleanse(raw, sizeof raw);
    return FL_OK;
}

/* StoredKey and ServerKey of secret under salt/iterations. */
static bool derive(const char *secret, const uint8_t *salt, size_t salt_len, uint32_t iter,
                   uint8_t stored[AUTH_KEY_LEN], uint8_t server[AUTH_KEY_LEN])
{
    uint8_t salted[AUTH_KEY_LEN], client[AUTH_KEY_LEN];
    unsigned int len = 0;
    bool ok = PKCS5_PBKDF2_HMAC(secret, (int)strlen(secret), salt, (int)salt_len, (int)iter,
                                EVP_sha256(), AUTH_KEY_LEN, salted) == 1 &&
              HMAC(EVP_sha256(), salted, AUTH_KEY_LEN, (const uint8_t *)"Client Key", 10, client,
                   &len) != NULL &&
              HMAC(EVP_sha256(), salted, AUTH_KEY_LEN, (const uint8_t *)"Server Key", 10, server,
                   &len) != NULL &&
              SHA256(client, AUTH_KEY_LEN, stored) != NULL;
    OPENSSL_cleanse(salted, sizeof salted);
    OPENSSL_cleanse(client, sizeof client);
    return ok;
}

fl_status auth_verifier_make(const char *secret, char *out, size_t cap, fl_error *err)
{
    uint8_t salt[AUTH_SALT_LEN], stored[AUTH_KEY_LEN], server[AUTH_KEY_LEN];
    char s64[32], st64[64], sv64[64];
    FL_TRY(auth_random(salt, sizeof salt, err));
    if (!derive(secret, salt, sizeof salt, AUTH_ITERATIONS, stored, server))
        return fl_errorf(err, FL_EIO, "auth: PBKDF2-HMAC-SHA256 failed");
    auth_b64_encode(salt, sizeof salt, false, s64, sizeof s64);
    auth_b64_encode(stored, sizeof stored, false, st64, sizeof st64);
    auth_b64_encode(server, sizeof server, false, sv64, sizeof sv64);
    int n = snprintf(out, cap, PREFIX "%d:%s$%s:%s", AUTH_ITERATIONS, s64, st64, sv64);
    if (n < 0 || (size_t)n >= cap)
        return fl_errorf(err, FL_EINVAL, "auth: verifier buffer too small");
    return FL_OK;
}

/* Decodes the base64 field [p, end) into exactly want bytes (want 0: any
 * length up to cap, length in *got). */
static bool field(const char *p, const char *end, uint8_t *out, size_t cap, size_t want,
                  uint32_t *got)
{
    long n = auth_b64_decode(p, (size_t)(end - p), false, out, cap);
    if (n <= 0 || (want && (size_t)n != want))
        return false;
    if (got)
        *got = (uint32_t)n;
    return true;
}

fl_status auth_verifier_parse(const char *v, fl_auth_scram *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    if (!v || strncmp(v, PREFIX, strlen(PREFIX)) != 0)
        return fl_errorf(err, FL_ECORRUPT, "auth: secret hash: not a SCRAM-SHA-256 verifier");
    const char *p = v + strlen(PREFIX);
    char *end = NULL;
    long iter = strtol(p, &end, 10);
    if (end == p || *end != ':' || iter < 1 || iter > 10000000)
        return fl_errorf(err, FL_ECORRUPT, "auth: secret hash: bad iteration count");
    out->iterations = (uint32_t)iter;
    const char *salt = end + 1, *d1 = strchr(salt, '$');
    const char *c1 = d1 ? strchr(d1 + 1, ':') : NULL;
    if (!d1 || !c1)
        return fl_errorf(err, FL_ECORRUPT, "auth: secret hash: missing '$' or ':' separator");
    if (!field(salt, d1, out->salt, sizeof out->salt, 0, &out->salt_len))
        return fl_errorf(err, FL_ECORRUPT, "auth: secret hash: bad salt");
    if (!field(d1 + 1, c1, out->stored_key, AUTH_KEY_LEN, AUTH_KEY_LEN, NULL))
        return fl_errorf(err, FL_ECORRUPT, "auth: secret hash: bad StoredKey");
    if (!field(c1 + 1, c1 + 1 + strlen(c1 + 1), out->server_key, AUTH_KEY_LEN, AUTH_KEY_LEN, NULL))
        return fl_errorf(err, FL_ECORRUPT, "auth: secret hash: bad ServerKey");
    return FL_OK;
}

bool auth_verifier_check(const char *verifier, const char *secret)
{
    fl_auth_scram s;
    uint8_t stored[AUTH_KEY_LEN], server[AUTH_KEY_LEN];
    if (!secret || auth_verifier_parse(verifier, &s, NULL) != FL_OK)
        return false;
    if (!derive(secret, s.salt, s.salt_len, s.iterations, stored, server))
        return false;
    return CRYPTO_memcmp(stored, s.stored_key, AUTH_KEY_LEN) == 0;
}
