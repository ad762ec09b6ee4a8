/*
 * test_pg_fuzz_replay.c - replays the pgoutput fuzz target (fuzz/fuzz_pgoutput.c,
 * included here, so its property checks abort the test on a violation)
 * without libFuzzer, deterministically, in `make test` (and so under
 * ASan+UBSan): every seed in fuzz/seeds/fuzz_pgoutput/ and input in
 * fuzz/regress/pgoutput/ whole, cut at every length and with every single
 * bit flipped, then generated transactions (valid, or with one byte changed).
 */
#include <dirent.h>

#include "../../fuzz/fuzz_pgoutput.c"
#include "test.h"

static size_t replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    uint8_t buf[65536];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    size_t runs = 0;
    for (size_t k = 0; k <= n; k++, runs++)
        LLVMFuzzerTestOneInput(buf, k);
    for (size_t bit = 0; bit < n * 8; bit++, runs++) {
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        LLVMFuzzerTestOneInput(buf, n);
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    return runs;
}

static size_t replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t runs = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        runs += replay_file(path);
    }
    closedir(d);
    return runs;
}

static void test_seeds(void)
{
    const char *src = getenv("FLOE_SRC");
    char dir[900];
    snprintf(dir, sizeof dir, "%s/fuzz/seeds/fuzz_pgoutput", src ? src : ".");
    size_t runs = replay_dir(dir);
    CHECK(runs > 1000); /* the seeds are there and were replayed */
    snprintf(dir, sizeof dir, "%s/fuzz/regress/pgoutput", src ? src : ".");
    runs += replay_dir(dir);
    fprintf(stderr, "%zu seed runs\n", runs);
}

/* ---- generated transactions ---- */

typedef struct gen {
    uint64_t x;
    uint8_t buf[8192];
    size_t n;
    size_t msg; /* where the current message's length field is */
} gen;

static uint64_t rnd(gen *g)
{
    g->x ^= g->x << 13, g->x ^= g->x >> 7, g->x ^= g->x << 17;
    return g->x;
}
static void put(gen *g, uint64_t v, int k)
{
    for (int i = k - 1; i >= 0; i--)
        g->buf[g->n++] = (uint8_t)(v >> (8 * i));
}
static void put_str(gen *g, const char *s)
{
    size_t k = strlen(s) + 1;
    memcpy(g->buf + g->n, s, k);
    g->n += k;
}
static void begin_msg(gen *g, char type)
{
    g->msg = g->n;
    g->n += 2;
    g->buf[g->n++] = (uint8_t)type;
}
static void end_msg(gen *g)
{
    size_t len = g->n - g->msg - 2;
    g->buf[g->msg] = (uint8_t)(len >> 8);
    g->buf[g->msg + 1] = (uint8_t)len;
}

static const uint32_t type_oids[] = {16, 21,   23,   20,   700,  701,  1700, 25,  1043,
                                     17, 1082, 1083, 1114, 1184, 2950, 3802, 114, 600};
static const char *texts[] = {"1",
                              "-2.5",
                              "t",
                              "2024-01-02",
                              "\\x00ff",
                              "abc",
                              "12:30",
                              "NaN",
                              "99999999999999999999",
                              "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
                              "2024-01-02 03:04:05+02",
                              "",
                              "{\"a\":1}"};

static void put_tuple(gen *g, int ncols)
{
    put(g, (uint64_t)ncols, 2);
    for (int i = 0; i < ncols; i++) {
        uint64_t r = rnd(g);
        if (r % 5 == 0) {
            put(g, 'n', 1);
        } else if (r % 5 == 1) {
            put(g, 'u', 1);
        } else {
            const char *t = texts[(r >> 8) % (sizeof texts / sizeof texts[0])];
            put(g, r % 7 == 2 ? 'b' : 't', 1);
            put(g, strlen(t), 4);
            memcpy(g->buf + g->n, t, strlen(t));
            g->n += strlen(t);
        }
    }
}

/* Begin, 1-3 relations, 1-8 changes of them, Commit; then maybe one byte
 * changed somewhere. Returns the input length. */
static size_t generate(gen *g)
{
    int ncols[4] = {0};
    g->n = 0;
    g->buf[g->n++] = 0; /* protocol 1 */
    begin_msg(g, 'B');
    put(g, 100, 8), put(g, 1, 8), put(g, 9, 4);
    end_msg(g);
    int nrel = 1 + (int)(rnd(g) % 3);
    for (int r = 0; r < nrel; r++) {
        ncols[r] = (int)(rnd(g) % 5);
        begin_msg(g, 'R');
        put(g, (uint64_t)r + 1, 4), put_str(g, "s"), put_str(g, "t"), put(g, 'd', 1);
        put(g, (uint64_t)ncols[r], 2);
        for (int c = 0; c < ncols[r]; c++) {
            put(g, rnd(g) & 1, 1), put_str(g, "c");
            put(g, type_oids[rnd(g) % (sizeof type_oids / sizeof type_oids[0])], 4);
            put(g, rnd(g) % 3 == 0 ? ((10 << 16) | 2) + 4 : 0xffffffff, 4);
        }
        end_msg(g);
    }
    for (int k = 1 + (int)(rnd(g) % 8); k > 0; k--) {
        int r = (int)(rnd(g) % (uint64_t)nrel);
        const char kind = "IUD"[rnd(g) % 3];
        begin_msg(g, kind);
        put(g, (uint64_t)r + 1, 4);
        if (kind != 'I' && rnd(g) % 2)
            put(g, rnd(g) % 2 ? 'K' : 'O', 1), put_tuple(g, ncols[r]);
        else if (kind == 'D')
            put(g, 'K', 1), put_tuple(g, ncols[r]);
        if (kind != 'D')
            put(g, 'N', 1), put_tuple(g, ncols[r]);
        end_msg(g);
    }
    begin_msg(g, 'C');
    put(g, 0, 1), put(g, 200, 8), put(g, 210, 8), put(g, 1, 8);
    end_msg(g);
    if (rnd(g) % 3 == 0)
        g->buf[1 + rnd(g) % (g->n - 1)] ^= (uint8_t)(1 + rnd(g) % 255);
    return g->n;
}

static void count_statuses(const uint8_t *buf, size_t n, size_t *ok, size_t *bad)
{
    pgcdc_decoder *d = pgcdc_decoder_new((buf[0] & 1) + 1, NULL);
    for (size_t off = 1; off + 2 < n;) {
        size_t len = (size_t)(buf[off] << 8 | buf[off + 1]);
        off += 2;
        if (len > n - off)
            len = n - off;
        fl_error err;
        if (pgcdc_decode(d, buf + off, len, off, &err) == FL_OK)
            (*ok)++;
        else
            (*bad)++;
        off += len;
    }
    pgcdc_decoder_free(d);
}

static void test_generated(void)
{
    gen g = {.x = 0x9E3779B97F4A7C15ull};
    size_t ok = 0, bad = 0;
    for (int run = 0; run < 3000; run++) {
        size_t n = generate(&g);
        LLVMFuzzerTestOneInput(g.buf, n);
        count_statuses(g.buf, n, &ok, &bad);
    }
    /* the generator reaches both sides: accepted messages and rejected ones */
    fprintf(stderr, "generated messages: %zu decoded, %zu rejected\n", ok, bad);
    CHECK(ok > 10000);
    CHECK(bad > 500);
}

int main(void)
{
    TEST_RUN(test_seeds);
    TEST_RUN(test_generated);
    return TEST_EXIT();
}
