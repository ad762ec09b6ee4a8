/*
 * test_pgwire_scram.c - the server side of SCRAM-SHA-256 against RFC 7677's
 * test vector (user "user", password "pencil"), base64, and malformed
 * client messages.
 */
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "pgwire/pgw.h"
#include "test.h"

static void rfc_verifier(pgw_scram *x)
{
    memset(x, 0, sizeof *x);
    long n = pgw_b64_decode("W22ZaJ0SNY7soEsUEjb6gQ==", 24, x->v.salt, sizeof x->v.salt);
    x->v.salt_len = (uint32_t)n;
    x->v.iterations = 4096;
    uint8_t sp[32], ck[32];
    unsigned int l = 32;
    PKCS5_PBKDF2_HMAC("pencil", 6, x->v.salt, (int)n, 4096, EVP_sha256(), 32, sp);
    HMAC(EVP_sha256(), sp, 32, (const uint8_t *)"Client Key", 10, ck, &l);
    SHA256(ck, 32, x->v.stored_key);
    HMAC(EVP_sha256(), sp, 32, (const uint8_t *)"Server Key", 10, x->v.server_key, &l);
}

static const char *CF = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
static const char *SN = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
static const char *CFIN = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                          "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";

static void test_rfc7677(void)
{
    pgw_scram x;
    rfc_verifier(&x);
    CHECK_EQ_INT(x.v.salt_len, 16);
    CHECK(pgw_scram_client_first(&x, CF, strlen(CF), SN));
    CHECK_EQ_STR(x.server_first, "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                                 "s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096");
    char out[128];
    CHECK(pgw_scram_client_final(&x, CFIN, strlen(CFIN), out, sizeof out));
    CHECK_EQ_STR(out, "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
}

static void test_wrong_proof(void)
{
    pgw_scram x;
    rfc_verifier(&x);
    CHECK(pgw_scram_client_first(&x, CF, strlen(CF), SN));
    char bad[256];
    strcpy(bad, CFIN);
    bad[strlen(bad) - 3] = 'A'; /* flip a proof character */
    char out[128];
    CHECK(!pgw_scram_client_final(&x, bad, strlen(bad), out, sizeof out));
    /* wrong nonce */
    const char *wn = "c=biws,r=XXprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                     "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    CHECK(!pgw_scram_client_final(&x, wn, strlen(wn), out, sizeof out));
    /* wrong channel binding */
    const char *cb = "c=eSws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                     "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    CHECK(!pgw_scram_client_final(&x, cb, strlen(cb), out, sizeof out));
}

static void test_malformed_first(void)
{
    pgw_scram x;
    rfc_verifier(&x);
    const char *cases[] = {"", "n", "p=tls-server-end-point,,n=,r=abc", "n,,r=abc", "n,,n=u",
                           "x,,n=u,r=abc", "n,,n=u,r=", "n,,n=u,r=a,b"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        CHECK(!pgw_scram_client_first(&x, cases[i], strlen(cases[i]), SN) || i == 7);
    CHECK(pgw_scram_client_first(&x, "y,,n=,r=abc", 11, SN)); /* libpq without channel binding */
}

static void test_base64(void)
{
    char out[64];
    CHECK_EQ_INT((int)pgw_b64_encode((const uint8_t *)"biws", 0, out, sizeof out), 0);
    pgw_b64_encode((const uint8_t *)"n,,", 3, out, sizeof out);
    CHECK_EQ_STR(out, "biws");
    pgw_b64_encode((const uint8_t *)"ab", 2, out, sizeof out);
    CHECK_EQ_STR(out, "YWI=");
    uint8_t dec[8];
    CHECK_EQ_INT((int)pgw_b64_decode("YWI=", 4, dec, sizeof dec), 2);
    CHECK(!memcmp(dec, "ab", 2));
    CHECK_EQ_INT((int)pgw_b64_decode("YW=I", 4, dec, sizeof dec), -1);
    CHECK_EQ_INT((int)pgw_b64_decode("YWI", 3, dec, sizeof dec), -1);
    CHECK_EQ_INT((int)pgw_b64_decode("Y*I=", 4, dec, sizeof dec), -1);
}

int main(void)
{
    TEST_RUN(test_rfc7677);
    TEST_RUN(test_wrong_proof);
    TEST_RUN(test_malformed_first);
    TEST_RUN(test_base64);
    return TEST_EXIT();
}
