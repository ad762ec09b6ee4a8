/*
 * test_crypto.c - the auth subsystem's building blocks without a store:
 * base64/base64url, PBKDF2/SCRAM verifiers (checked against a vector made
 * independently with Python's hashlib), HS256 JWTs (sign, verify, every
 * tampered byte, wrong key, expiry and clock skew, alg confusion), static
 * tokens.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "auth/auth_internal.h"
#include "test.h"

static void test_b64(void)
{
    const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *std[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    const char *url[] = {"", "Zg", "Zm8", "Zm9v", "Zm9vYg", "Zm9vYmE", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        char out[32];
        uint8_t back[32];
        auth_b64_encode((const uint8_t *)in[i], strlen(in[i]), false, out, sizeof out);
        CHECK_EQ_STR(out, std[i]);
        auth_b64_encode((const uint8_t *)in[i], strlen(in[i]), true, out, sizeof out);
        CHECK_EQ_STR(out, url[i]);
        long n = auth_b64_decode(url[i], strlen(url[i]), true, back, sizeof back);
        CHECK_EQ_INT(n, (long)strlen(in[i]));
        CHECK(memcmp(back, in[i], (size_t)n) == 0);
        n = auth_b64_decode(std[i], strlen(std[i]), false, back, sizeof back);
        CHECK_EQ_INT(n, (long)strlen(in[i]));
    }
    uint8_t b[8];
    CHECK_EQ_INT(auth_b64_decode("Zh", 2, true, b, sizeof b), -1);   /* non-zero spare bits */
    CHECK_EQ_INT(auth_b64_decode("Z", 1, true, b, sizeof b), -1);    /* impossible length */
    CHECK_EQ_INT(auth_b64_decode("Zg==", 4, true, b, sizeof b), -1); /* padding in url form */
    CHECK_EQ_INT(auth_b64_decode("Z+9v", 4, true, b, sizeof b), -1); /* std char in url */
    CHECK_EQ_INT(auth_b64_decode("Zg", 2, false, b, sizeof b), -1);  /* std needs padding */
    CHECK_EQ_INT(auth_b64_decode("Zm9vYmFy", 8, true, b, 5), -1);    /* no room */
    char small[4];
    CHECK_EQ_INT(auth_b64_encode((const uint8_t *)"foo", 3, true, small, sizeof small), 0);
}

static void test_verifier(void)
{
    /* made with hashlib.pbkdf2_hmac / hmac / sha256, not with OpenSSL */
    const char *py = "SCRAM-SHA-256$4096:ZmxvZS1kdW1teS1zYWx0IQ==$GL9b7DyA8+FER3DRWd70ZVAKTbiLW"
                     "CN5DfiAD4/FpUo=:PE0Ntn0gchZQiTZsGfVU8MCoDObvZ340Yjax3+RgkVk=";
    CHECK(auth_verifier_check(py, "not-a-real-secret"));
    CHECK(!auth_verifier_check(py, "not-a-real-secreT"));
    CHECK(!auth_verifier_check(py, ""));
    fl_auth_scram s;
    fl_error err;
    CHECK_OK(auth_verifier_parse(py, &s, &err), &err);
    CHECK_EQ_INT(s.iterations, 4096);
    CHECK_EQ_INT(s.salt_len, 16);
    CHECK(memcmp(s.salt, "floe-dummy-salt!", 16) == 0);

    char secret[64], v1[AUTH_VERIFIER_MAX], v2[AUTH_VERIFIER_MAX];
    CHECK_OK(auth_secret_new(secret, sizeof secret, &err), &err);
    CHECK_EQ_INT(strlen(secret), AUTH_SECRET_LEN);
    CHECK_OK(auth_verifier_make(secret, v1, sizeof v1, &err), &err);
    CHECK_OK(auth_verifier_make(secret, v2, sizeof v2, &err), &err);
    CHECK(strcmp(v1, v2) != 0); /* fresh salt each time */
    CHECK(auth_verifier_check(v1, secret));
    CHECK(auth_verifier_check(v2, secret));
    CHECK(strstr(v1, secret) == NULL);
    secret[5] ^= 1;
    CHECK(!auth_verifier_check(v1, secret));
    CHECK_EQ_INT(auth_secret_new(secret, 20, &err), FL_EINVAL);

    const char *bad[] = {"",
                         "SCRAM-SHA-256$",
                         "SCRAM-SHA-256$0:AAAA$x:y",
                         "SCRAM-SHA-256$4096:ZmxvZQ==$AAAA:AAAA",
                         "md5abcdef",
                         "SCRAM-SHA-256$4096:ZmxvZQ==GL9b7DyA8"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ_INT(auth_verifier_parse(bad[i], &s, &err), FL_ECORRUPT);
        CHECK(!auth_verifier_check(bad[i], "x"));
    }
}

static const uint8_t KEY[AUTH_KEY_LEN] = "0123456789abcdef0123456789abcdef";
static const uint8_t KEY2[AUTH_KEY_LEN] = "0123456789abcdef0123456789abcdeF";

static char *sign(int64_t iat, int64_t exp)
{
    auth_claims c = {.iat = iat, .exp = exp, .gen = 7};
    strcpy(c.sub, "alice");
    char *tok = NULL;
    fl_error err;
    CHECK_OK(auth_jwt_sign(KEY, &c, &tok, &err), &err);
    return tok;
}

static void test_jwt_roundtrip(void)
{
    char *tok = sign(1000, 4600);
    auth_claims c;
    fl_error err;
    CHECK_OK(auth_jwt_verify(KEY, tok, strlen(tok), 2000, &c, &err), &err);
    CHECK_EQ_STR(c.sub, "alice");
    CHECK_EQ_INT(c.iat, 1000);
    CHECK_EQ_INT(c.exp, 4600);
    CHECK_EQ_INT(c.gen, 7);
    CHECK_EQ_INT(strlen(c.jti), 32);
    /* the header is exactly what RFC 7519's examples use for HS256 */
    CHECK(strncmp(tok, "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.", 37) == 0);
    /* wrong key */
    CHECK_EQ_INT(auth_jwt_verify(KEY2, tok, strlen(tok), 2000, &c, &err), FL_EUNAUTHENTICATED);
    CHECK(strstr(err.msg, "signature") != NULL);
    /* two tokens differ by jti */
    char *tok2 = sign(1000, 4600);
    CHECK(strcmp(tok, tok2) != 0);
    free(tok2);
    free(tok);
}

static void test_jwt_time(void)
{
    char *tok = sign(1000, 2000);
    auth_claims c;
    fl_error err;
    size_t n = strlen(tok);
    CHECK_OK(auth_jwt_verify(KEY, tok, n, 2000 + AUTH_CLOCK_SKEW, &c, &err), &err);
    CHECK_EQ_INT(auth_jwt_verify(KEY, tok, n, 2001 + AUTH_CLOCK_SKEW, &c, &err),
                 FL_EUNAUTHENTICATED);
    CHECK(strstr(err.msg, "expired") != NULL);
    CHECK_OK(auth_jwt_verify(KEY, tok, n, 1000 - AUTH_CLOCK_SKEW, &c, &err), &err);
    CHECK_EQ_INT(auth_jwt_verify(KEY, tok, n, 999 - AUTH_CLOCK_SKEW, &c, &err),
                 FL_EUNAUTHENTICATED);
    CHECK(strstr(err.msg, "future") != NULL);
    free(tok);
    tok = sign(2000, 1000); /* exp before iat */
    CHECK_EQ_INT(auth_jwt_verify(KEY, tok, strlen(tok), 1500, &c, &err), FL_EUNAUTHENTICATED);
    free(tok);
}

static void test_jwt_tamper(void)
{
    char *tok = sign(1000, 4600);
    size_t n = strlen(tok);
    auth_claims c;
    fl_error err;
    int accepted = 0;
    for (size_t i = 0; i < n; i++) {
        char save = tok[i];
        const char *alts = "AQgw_-.=";
        for (const char *x = alts; *x; x++) {
            if (*x == save)
                continue;
            tok[i] = *x;
            if (auth_jwt_verify(KEY, tok, n, 2000, &c, NULL) == FL_OK)
                accepted++;
        }
        tok[i] = save;
    }
    CHECK_EQ_INT(accepted, 0);
    /* truncations and extensions */
    for (size_t l = 0; l < n; l++)
        CHECK(auth_jwt_verify(KEY, tok, l, 2000, &c, &err) == FL_EUNAUTHENTICATED);
    char *longer = malloc(n + 3);
    memcpy(longer, tok, n);
    memcpy(longer + n, "AA", 3);
    CHECK_EQ_INT(auth_jwt_verify(KEY, longer, n + 2, 2000, &c, &err), FL_EUNAUTHENTICATED);
    free(longer);
    free(tok);
}

static void test_jwt_alg_confusion(void)
{
    /* {"alg":"none","typ":"JWT"} . payload . "" and alg HS512: refused even
     * when a correct HS256 MAC is attached */
    const char *none = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0";
    char *tok = sign(1000, 4600);
    const char *d1 = strchr(tok, '.');
    char buf[1024];
    snprintf(buf, sizeof buf, "%s%.*s.", none, (int)(strrchr(tok, '.') - d1), d1);
    auth_claims c;
    fl_error err;
    CHECK_EQ_INT(auth_jwt_verify(KEY, buf, strlen(buf), 2000, &c, &err), FL_EUNAUTHENTICATED);
    snprintf(buf, sizeof buf, "%s%s", none, d1);
    CHECK_EQ_INT(auth_jwt_verify(KEY, buf, strlen(buf), 2000, &c, &err), FL_EUNAUTHENTICATED);
    CHECK(strstr(err.msg, "HS256") != NULL);
    const char *junk[] = {"", ".", "..", "a.b", "a.b.c.d", "...", "e30.e30.", "e30.e30.AAAA"};
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++)
        CHECK_EQ_INT(auth_jwt_verify(KEY, junk[i], strlen(junk[i]), 2000, &c, &err),
                     FL_EUNAUTHENTICATED);
    char *huge = malloc(AUTH_TOKEN_MAX + 2);
    memset(huge, 'A', AUTH_TOKEN_MAX + 1);
    huge[AUTH_TOKEN_MAX + 1] = 0;
    CHECK_EQ_INT(auth_jwt_verify(KEY, huge, AUTH_TOKEN_MAX + 1, 2000, &c, &err),
                 FL_EUNAUTHENTICATED);
    free(huge);
    free(tok);
}

static void test_statics(void)
{
    const char *specs[] = {"0123456789abcdef-one=alice", "token=with=equals-0123=bob"};
    auth_static *st = NULL;
    fl_error err;
    CHECK_OK(auth_statics_parse(specs, 2, &st, &err), &err);
    const char *t1 = "0123456789abcdef-one", *t2 = "token=with=equals-0123";
    CHECK_EQ_STR(auth_statics_match(st, 2, t1, strlen(t1)), "alice");
    CHECK_EQ_STR(auth_statics_match(st, 2, t2, strlen(t2)), "bob");
    CHECK(auth_statics_match(st, 2, t1, strlen(t1) - 1) == NULL);
    CHECK(auth_statics_match(st, 2, "0123456789abcdef-onE", 20) == NULL);
    free(st);
    const char *bad1[] = {"short=alice"}, *bad2[] = {"0123456789abcdef-one"},
               *bad3[] = {"0123456789abcdef-one=bad name"};
    CHECK_EQ_INT(auth_statics_parse(bad1, 1, &st, &err), FL_EINVAL);
    CHECK_EQ_INT(auth_statics_parse(bad2, 1, &st, &err), FL_EINVAL);
    CHECK_EQ_INT(auth_statics_parse(bad3, 1, &st, &err), FL_EINVAL);
}

static void test_privilege_names(void)
{
    fl_privilege all[] = {FL_PRIV_READ, FL_PRIV_WRITE, FL_PRIV_CREATE, FL_PRIV_DROP,
                          FL_PRIV_MANAGE_GRANTS};
    for (int i = 0; i < 5; i++)
        CHECK_EQ_INT(fl_privilege_parse(fl_privilege_name(all[i])), all[i]);
    CHECK_EQ_STR(fl_privilege_name(FL_PRIV_MANAGE_GRANTS), "manage-grants");
    CHECK_EQ_INT(fl_privilege_parse("MANAGE_GRANTS"), FL_PRIV_MANAGE_GRANTS);
    CHECK_EQ_INT(fl_privilege_parse("select"), 0);
    CHECK_EQ_INT(fl_privilege_parse(NULL), 0);
    CHECK(auth_name_valid("svc.etl-1@corp"));
    CHECK(!auth_name_valid("a b"));
    CHECK(!auth_name_valid("a:b"));
    CHECK(!auth_name_valid(""));
}

int main(void)
{
    TEST_RUN(test_b64);
    TEST_RUN(test_verifier);
    TEST_RUN(test_jwt_roundtrip);
    TEST_RUN(test_jwt_time);
    TEST_RUN(test_jwt_tamper);
    TEST_RUN(test_jwt_alg_confusion);
    TEST_RUN(test_statics);
    TEST_RUN(test_privilege_names);
    return TEST_EXIT();
}
