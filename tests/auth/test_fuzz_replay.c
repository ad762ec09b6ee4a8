/*
 * test_fuzz_replay.c - replays fuzz/fuzz_jwt.c deterministically in
 * `make test` (so also under ASan+UBSan): tokens signed with another key,
 * each truncated at every length and with every single-bit flip, header
 * variants (alg none/HS512, crit, duplicate keys, non-object JSON), SCRAM
 * verifiers cut and flipped, pseudo-random bytes, and every file under
 * fuzz/regress/jwt/ (when FLOE_SRC is set). A property violation aborts.
 */
#include "../../fuzz/fuzz_jwt.c"

#include <dirent.h>

#include "test.h"

static long g_inputs;

static void feed(const void *p, size_t n)
{
    LLVMFuzzerTestOneInput(p, n);
    g_inputs++;
}

static void feed_mutations(const char *s)
{
    size_t n = strlen(s);
    char *b = malloc(n + 1);
    for (size_t l = 0; l <= n; l++)
        feed(s, l);
    for (size_t i = 0; i < n; i++)
        for (int bit = 0; bit < 8; bit++) {
            memcpy(b, s, n);
            b[i] = (char)(b[i] ^ (1 << bit));
            feed(b, n);
        }
    free(b);
}

static char *b64u(const char *json)
{
    char *out = malloc(strlen(json) * 2 + 8);
    auth_b64_encode((const uint8_t *)json, strlen(json), true, out, strlen(json) * 2 + 8);
    return out;
}

static void test_tokens(void)
{
    static const uint8_t other[AUTH_KEY_LEN] = "another-key-another-key-another!";
    auth_claims c = {.iat = 1000, .exp = 2000, .gen = 1};
    strcpy(c.sub, "fz");
    char *tok = NULL;
    fl_error err;
    CHECK_OK(auth_jwt_sign(other, &c, &tok, &err), &err);
    if (tok)
        feed_mutations(tok);
    free(tok);
    const char *headers[] = {"{\"alg\":\"none\"}",
                             "{\"alg\":\"HS512\",\"typ\":\"JWT\"}",
                             "{\"alg\":\"HS256\",\"crit\":[\"x\"]}",
                             "{\"alg\":\"HS256\",\"alg\":\"HS256\"}",
                             "[\"HS256\"]",
                             "\"x\"",
                             "{\"alg\":\"HS256\",\"typ\":7}"};
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
        char *h = b64u(headers[i]),
             *p = b64u("{\"sub\":\"fz\",\"iat\":1000,\"exp\":2000,\"gen\":1}");
        char buf[1024];
        snprintf(buf, sizeof buf, "%s.%s.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", h, p);
        feed(buf, strlen(buf));
        snprintf(buf, sizeof buf, "%s.%s.", h, p);
        feed(buf, strlen(buf));
        free(h);
        free(p);
    }
    CHECK(g_inputs > 1000);
}

static void test_verifiers_and_noise(void)
{
    feed_mutations("SCRAM-SHA-256$4096:ZmxvZS1kdW1teS1zYWx0IQ==$GL9b7DyA8+FER3DRWd70ZVAKTbiLWCN5"
                   "DfiAD4/FpUo=:PE0Ntn0gchZQiTZsGfVU8MCoDObvZ340Yjax3+RgkVk=");
    uint64_t x = 0x9E3779B97F4A7C15ull;
    uint8_t buf[512];
    for (int i = 0; i < 2000; i++) {
        size_t n = (size_t)(x % sizeof buf);
        for (size_t j = 0; j < n; j++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            /* mostly base64url alphabet and dots, so the parser goes deep */
            buf[j] = (x & 7) == 0 ? (uint8_t)x : (uint8_t) "eyJhbGciOiJIUzI1NiJ9._-"[(x >> 8) % 23];
        }
        feed(buf, n);
    }
    CHECK(g_inputs > 3000);
}

static void test_regress_dir(void)
{
    const char *src = getenv("FLOE_SRC");
    if (!src)
        return;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/fuzz/regress/jwt", src);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        static uint8_t b[1 << 16];
        size_t n = fread(b, 1, sizeof b, f);
        fclose(f);
        feed(b, n);
    }
    closedir(d);
}

int main(void)
{
    TEST_RUN(test_tokens);
    TEST_RUN(test_verifiers_and_noise);
    TEST_RUN(test_regress_dir);
    fprintf(stderr, "%ld inputs replayed\n", g_inputs);
    fl_auth_close(shared_auth());
    return TEST_EXIT();
}
