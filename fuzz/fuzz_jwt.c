/*
 * fuzz_jwt.c - bearer-token handling on arbitrary bytes: the HS256 JWT
 * verifier (src/auth/jwt.c), the whole Authorization-header path of
 * fl_auth_authenticate (scheme, static tokens, JWT, principal lookup) on an
 * in-memory SQLite store, the SCRAM verifier parser and base64/base64url.
 * Besides "no crash, leak or UB", properties checked (abort on violation):
 *   - no input verifies under the fuzzer's key unless it is byte-identical
 *     to a token this target signed (the input is never such a token);
 *   - a token signed for a name taken from the input verifies, returns the
 *     same claims, and stops verifying when any one byte (chosen by the
 *     input) is changed;
 *   - base64url decode -> encode gives back the input exactly (canonical).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth_internal.h"

static const uint8_t KEY[AUTH_KEY_LEN] = "fuzz-key-fuzz-key-fuzz-key-fuzz";

static fl_auth *shared_auth(void)
{
    static fl_auth *a; /* one in-memory store for the whole run */
    if (!a) {
        fl_auth_options o = {.store_uri = "sqlite::memory:"};
        fl_error err;
        char sec[64];
        if (fl_auth_open(&o, &a, &err) != FL_OK ||
            fl_auth_principal_create(a, "fz", false, sec, sizeof sec, &err) != FL_OK) {
            fprintf(stderr, "fuzz_jwt setup: %s\n", err.msg);
            abort();
        }
    }
    return a;
}

static void roundtrip(const uint8_t *data, size_t size)
{
    auth_claims c = {.iat = 1000, .exp = 2000, .gen = 3};
    size_t n = 0;
    for (size_t i = 0; i < size && n < 40; i++) {
        char ch = (char)data[i];
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '-')
            c.sub[n++] = ch;
    }
    if (n == 0)
        c.sub[n++] = 'x';
    c.sub[n] = '\0';
    char *tok = NULL;
    if (auth_jwt_sign(KEY, &c, &tok, NULL) != FL_OK)
        abort();
    size_t tl = strlen(tok);
    auth_claims back;
    if (auth_jwt_verify(KEY, tok, tl, 1500, &back, NULL) != FL_OK || strcmp(back.sub, c.sub) ||
        back.gen != 3 || back.exp != 2000)
        abort();
    size_t pos = size ? ((size_t)data[0] * 131u + size) % tl : 0;
    char old = tok[pos];
    tok[pos] = (char)(size > 1 ? data[1] : 'A');
    if (tok[pos] != old && auth_jwt_verify(KEY, tok, tl, 1500, &back, NULL) == FL_OK)
        abort();
    free(tok);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    auth_claims c;
    fl_error err;
    if (auth_jwt_verify(KEY, s, size, 1500, &c, &err) == FL_OK)
        abort(); /* forging a MAC by mutation would be a break of HMAC-SHA256 */

    /* the header path: "Bearer " + input, NUL-terminated */
    char *hdr = malloc(size + 8);
    if (!hdr)
        return 0;
    memcpy(hdr, "Bearer ", 7);
    memcpy(hdr + 7, data, size);
    hdr[size + 7] = '\0';
    fl_principal p;
    fl_status rc = fl_auth_authenticate(shared_auth(), hdr, &p, &err);
    if (rc != FL_OK && rc != FL_EUNAUTHENTICATED)
        abort();
    if (rc == FL_OK)
        abort(); /* no static tokens configured, no JWT signed with the store key */
    free(hdr);

    /* base64url canonical round trip */
    uint8_t *buf = malloc(size + 1);
    char *enc = malloc(size + 8);
    if (buf && enc) {
        long n = auth_b64_decode(s, size, true, buf, size + 1);
        if (n >= 0) {
            size_t el = auth_b64_encode(buf, (size_t)n, true, enc, size + 8);
            if (el != size || memcmp(enc, s, size) != 0)
                abort();
        }
        (void)auth_b64_decode(s, size, false, buf, size + 1);
    }
    free(buf);
    free(enc);

    /* SCRAM verifier parser (NUL-terminated copy) */
    char *v = malloc(size + 1);
    if (v) {
        memcpy(v, data, size);
        v[size] = '\0';
        fl_auth_scram sc;
        if (auth_verifier_parse(v, &sc, &err) == FL_OK &&
            (sc.salt_len == 0 || sc.salt_len > sizeof sc.salt || sc.iterations == 0))
            abort();
        free(v);
    }
    roundtrip(data, size);
    return 0;
}
