/*
 * test_orc_fuzz_replay.c - replays fuzz/fuzz_orc.c deterministically in
 * `make test` (so also under ASan+UBSan): every file of fuzz/seeds/fuzz_orc/
 * and fuzz/regress/orc/ (crash inputs once fixed), and of each seed a set of
 * damaged copies: truncated at many lengths and with bytes overwritten at
 * pseudo-random positions (a fixed LCG, so every run feeds the same inputs).
 * The target aborts on a violated property; errors are fine.
 */
#include "../../fuzz/fuzz_orc.c"

#include <dirent.h>

#include "test.h"

static long g_inputs;

static void feed(const uint8_t *p, size_t n)
{
    LLVMFuzzerTestOneInput(p, n);
    g_inputs++;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            uint8_t *nb = realloc(buf, cap);
            if (!nb)
                break;
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        if (!got)
            break;
        len += got;
    }
    fclose(f);
    *n = len;
    return buf;
}

static void damaged_copies(const uint8_t *p, size_t n)
{
    uint8_t *m = malloc(n + 1);
    if (!m || !n) {
        free(m);
        return;
    }
    for (size_t cut = 1; cut < n; cut += 1 + n / 64)
        feed(p, cut);                  /* truncated from the end */
    feed(p + n / 2, n - n / 2);        /* only the tail */
    uint32_t x = 12345u + (uint32_t)n; /* LCG */
    for (int k = 0; k < 200; k++) {
        memcpy(m, p, n);
        for (int j = 0; j < 1 + k % 4; j++) {
            x = x * 1103515245u + 12345u;
            size_t pos = (x >> 8) % n;
            /* bias towards the tail, where the PostScript, footer and stripe footers are */
            if (k % 2 && n > 600)
                pos = n - 1 - (x >> 8) % 600;
            x = x * 1103515245u + 12345u;
            m[pos] = (uint8_t)(x >> 16);
        }
        feed(m, n);
    }
    free(m);
}

static int replay_dir(const char *sub, bool damage)
{
    const char *src = getenv("FLOE_SRC");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", src ? src : ".", sub);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int files = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        size_t n = 0;
        uint8_t *p = slurp(path, &n);
        if (!p)
            continue;
        feed(p, n);
        if (damage)
            damaged_copies(p, n);
        free(p);
        files++;
    }
    closedir(d);
    return files;
}

static void test_seeds(void)
{
    CHECK(replay_dir("fuzz/seeds/fuzz_orc", true) >= 10);
}

static void test_regress(void)
{
    replay_dir("fuzz/regress/orc", false);
    CHECK(g_inputs > 0);
}

static void test_tiny_inputs(void)
{
    static const uint8_t ps_only[] = {'O',  'R',  'C',  0x08, 0x00, 0x10, 0x00, 0x82,
                                      0xf4, 0x03, 0x03, 'O',  'R',  'C',  11};
    feed((const uint8_t *)"", 0);
    feed((const uint8_t *)"ORC", 3);
    feed(ps_only, sizeof ps_only);
    for (size_t k = 1; k < sizeof ps_only; k++)
        feed(ps_only + k, sizeof ps_only - k);
}

int main(void)
{
    TEST_RUN(test_seeds);
    TEST_RUN(test_regress);
    TEST_RUN(test_tiny_inputs);
    fprintf(stderr, "%ld inputs\n", g_inputs);
    return TEST_EXIT();
}
