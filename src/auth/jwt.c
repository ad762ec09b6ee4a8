/*
 * jwt.c - bearer tokens as JSON Web Tokens (RFC 7519) signed with
 * HMAC-SHA256 (JWS "HS256", RFC 7515 / RFC 7518 section 3.2).
 *
 * Layout: base64url(header) "." base64url(payload) "." base64url(HMAC-SHA256(
 * key, the first two parts as ASCII)), no padding. floe writes
 *     header  {"alg":"HS256","typ":"JWT"}
 *     payload {"iss":"floe","sub":NAME,"iat":T,"exp":T+ttl,"jti":HEX32,"gen":G}
 * and "aud":RESOURCE when the token was asked for one resource (RFC 8707;
 * auth.c accepts it only there).
 * where gen is the principal's token generation: rotating the secret or
 * dropping and re-creating the principal changes it, which revokes every
 * older token (auth.c compares it with the store).
 *
 * Verification is strict, in this order: at most AUTH_TOKEN_MAX bytes and
 * exactly three non-empty parts; the header must decode to a JSON object
 * with alg exactly "HS256" ("none" and every other algorithm are refused,
 * so the key type can never be confused), no "crit", typ absent or "JWT";
 * the signature must be exactly 32 bytes and equal (CRYPTO_memcmp) to the
 * HMAC of the signing input; only then is the payload parsed: sub (a valid
 * principal name), iat, exp and gen integers are required, exp >= iat, and
 * with AUTH_CLOCK_SKEW seconds of leeway exp must not be past and iat not
 * in the future. Every failure is FL_EUNAUTHENTICATED with the reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "auth/auth_internal.h"

#define HEADER "{\"alg\":\"HS256\",\"typ\":\"JWT\"}"
#define PART_MAX 3072

static fl_status mac(const uint8_t key[AUTH_KEY_LEN], const char *in, size_t n,
                     uint8_t out[AUTH_KEY_LEN], fl_error *err)
{
    unsigned int len = 0;
    if (!HMAC(EVP_sha256(), key, AUTH_KEY_LEN, (const uint8_t *)in, n, out, &len) ||
        len != AUTH_KEY_LEN)
        return fl_errorf(err, FL_EIO, "auth: HMAC-SHA256 failed");
    return FL_OK;
}

fl_status auth_jwt_sign(const uint8_t key[AUTH_KEY_LEN], auth_claims *c, char **out, fl_error *err)
{
    *out = NULL;
    if (!c->jti[0]) {
        uint8_t r[16];
        FL_TRY(auth_random(r, sizeof r, err));
        auth_hex(r, sizeof r, c->jti);
    }
    json_t *p = json_pack("{s:s,s:s,s:I,s:I,s:s,s:I}", "iss", "floe", "sub", c->sub, "iat",
                          (json_int_t)c->iat, "exp", (json_int_t)c->exp, "jti", c->jti, "gen",
                          (json_int_t)c->gen);
    if (p && c->aud[0])
        json_object_set_new(p, "aud", json_string(c->aud));
    char *payload = p ? json_dumps(p, JSON_COMPACT) : NULL;
    json_decref(p);
    if (!payload)
        return fl_errorf(err, FL_ENOMEM, "auth: out of memory building a token");
    size_t pl = strlen(payload), cap = (sizeof HEADER + pl) * 2 + 64;
    char *tok = malloc(cap);
    if (!tok) {
        free(payload);
        return fl_errorf(err, FL_ENOMEM, "auth: out of memory building a token");
    }
    size_t o = auth_b64_encode((const uint8_t *)HEADER, strlen(HEADER), true, tok, cap);
    tok[o++] = '.';
    o += auth_b64_encode((const uint8_t *)payload, pl, true, tok + o, cap - o);
    free(payload);
    uint8_t sig[AUTH_KEY_LEN];
    fl_status rc = mac(key, tok, o, sig, err);
    if (rc != FL_OK) {
        free(tok);
        return rc;
    }
    tok[o++] = '.';
    auth_b64_encode(sig, sizeof sig, true, tok + o, cap - o);
    *out = tok;
    return FL_OK;
}

static json_t *decode_json(const char *p, size_t n)
{
    uint8_t buf[PART_MAX];
    long len = auth_b64_decode(p, n, true, buf, sizeof buf);
    if (len <= 0)
        return NULL;
    json_t *j = json_loadb((const char *)buf, (size_t)len, JSON_REJECT_DUPLICATES, NULL);
    if (j && !json_is_object(j)) {
        json_decref(j);
        return NULL;
    }
    return j;
}

static fl_status deny(fl_error *err, const char *why)
{
    return fl_errorf(err, FL_EUNAUTHENTICATED, "invalid bearer token: %s", why);
}

static fl_status check_header(const char *p, size_t n, fl_error *err)
{
    json_t *h = decode_json(p, n);
    if (!h)
        return deny(err, "header is not base64url JSON");
    json_t *alg = json_object_get(h, "alg"), *typ = json_object_get(h, "typ");
    bool ok = json_is_string(alg) && strcmp(json_string_value(alg), "HS256") == 0 &&
              !json_object_get(h, "crit") &&
              (!typ || (json_is_string(typ) && strcmp(json_string_value(typ), "JWT") == 0));
    json_decref(h);
    return ok ? FL_OK : deny(err, "unsupported header (only alg HS256 is accepted)");
}

static bool get_int(json_t *o, const char *k, int64_t *v)
{
    json_t *x = json_object_get(o, k);
    if (!json_is_integer(x))
        return false;
    *v = (int64_t)json_integer_value(x);
    return true;
}

static fl_status check_payload(const char *p, size_t n, int64_t now, auth_claims *out,
                               fl_error *err)
{
    json_t *j = decode_json(p, n);
    if (!j)
        return deny(err, "payload is not base64url JSON");
    json_t *sub = json_object_get(j, "sub"), *jti = json_object_get(j, "jti");
    json_t *aud = json_object_get(j, "aud"); /* floe writes one string; anything else is refused */
    fl_status rc = FL_OK;
    if (!json_is_string(sub) || !auth_name_valid(json_string_value(sub)))
        rc = deny(err, "missing or invalid sub");
    else if (!get_int(j, "iat", &out->iat) || !get_int(j, "exp", &out->exp) ||
             !get_int(j, "gen", &out->gen))
        rc = deny(err, "missing iat, exp or gen");
    else if (aud && (!json_is_string(aud) || !json_string_length(aud) ||
                     json_string_length(aud) >= AUTH_AUD_MAX))
        rc = deny(err, "invalid aud");
    else if (out->exp < out->iat)
        rc = deny(err, "exp before iat");
    else if (now > out->exp && now - out->exp > AUTH_CLOCK_SKEW)
        rc = fl_errorf(err, FL_EUNAUTHENTICATED, "bearer token expired");
    else if (out->iat > now && out->iat - now > AUTH_CLOCK_SKEW)
        rc = deny(err, "issued in the future");
    if (rc == FL_OK) {
        snprintf(out->sub, sizeof out->sub, "%s", json_string_value(sub));
        const char *js = json_is_string(jti) ? json_string_value(jti) : "";
        snprintf(out->jti, sizeof out->jti, "%s", js);
        snprintf(out->aud, sizeof out->aud, "%s", aud ? json_string_value(aud) : "");
    }
    json_decref(j);
    return rc;
}

fl_status auth_jwt_verify(const uint8_t key[AUTH_KEY_LEN], const char *tok, size_t len, int64_t now,
                          auth_claims *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    if (len == 0 || len > AUTH_TOKEN_MAX)
        return deny(err, len ? "too long" : "empty");
    const char *d1 = memchr(tok, '.', len);
    const char *d2 = d1 ? memchr(d1 + 1, '.', len - (size_t)(d1 + 1 - tok)) : NULL;
    if (!d1 || !d2 || memchr(d2 + 1, '.', len - (size_t)(d2 + 1 - tok)) || d1 == tok ||
        d2 == d1 + 1 || d2 + 1 == tok + len)
        return deny(err, "not three dot-separated parts");
    FL_TRY(check_header(tok, (size_t)(d1 - tok), err));
    uint8_t want[AUTH_KEY_LEN], got[AUTH_KEY_LEN + 3];
    FL_TRY(mac(key, tok, (size_t)(d2 - tok), want, err));
    long n = auth_b64_decode(d2 + 1, len - (size_t)(d2 + 1 - tok), true, got, sizeof got);
    if (n != AUTH_KEY_LEN || CRYPTO_memcmp(want, got, AUTH_KEY_LEN) != 0)
        return deny(err, "bad signature");
    return check_payload(d1 + 1, (size_t)(d2 - d1 - 1), now, out, err);
}
