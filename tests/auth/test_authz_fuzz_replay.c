/*
 * test_authz_fuzz_replay.c - replays fuzz/fuzz_authz.c deterministically in
 * `make test` (so also under ASan+UBSan): hand-written programs (a grant on
 * pub and its prefix traps, nested namespaces, dotted and 0x1F levels,
 * table grants, the admin role, role drops), pseudo-random programs, and
 * every file under fuzz/regress/authz/ and fuzz/seeds/fuzz_authz/ (when
 * FLOE_SRC is set). The target
 * aborts when the store disagrees with the reference model; the cases here
 * also check a few answers directly.
 */
#include "../../fuzz/fuzz_authz.c"

#include <dirent.h>

#include "test.h"

static long g_inputs;

static void feed(const void *p, size_t n)
{
    LLVMFuzzerTestOneInput(p, n);
    g_inputs++;
}

static bool allowed(const char *who, fl_privilege priv, const char *l0, const char *l1,
                    const char *object)
{
    fl_principal p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "%s", who);
    const char *lv[2] = {l0, l1};
    fl_namespace ns = {l1 ? 2u : l0 ? 1u : 0u, lv};
    fl_error err;
    return fl_auth_authorize(g_auth, &p, priv, &ns, object, &err) == FL_OK;
}

/* Program bytes (fuzz_authz.c): op % 10 (0-3 grant, 4 revoke, 5 assign,
 * 6 drop role, 7-9 ask); grant: role, privilege (% 5: read write create
 * drop manage-grants), securable kind byte (% 3: catalog, namespace,
 * table; levels 1 + (k / 3) % 4), then a pool index per level and the
 * object; assign: principal + 5 * role, then assign % 2. */
static void test_programs(void)
{
    /* READ on namespace pub (pool 0) to r0; p0 gets r0 */
    const uint8_t pub[] = {0, 0, 0, 1, 0, 5, 0, 1};
    feed(pub, sizeof pub);
    CHECK(allowed("p0", FL_PRIV_READ, "pub", NULL, NULL));
    CHECK(allowed("p0", FL_PRIV_READ, "pub", "x", "t"));
    CHECK(!allowed("p0", FL_PRIV_READ, "pubx", NULL, "t"));   /* prefix trap */
    CHECK(!allowed("p0", FL_PRIV_READ, "pub.x", NULL, NULL)); /* one dotted level */
    CHECK(!allowed("p0", FL_PRIV_WRITE, "pub", NULL, "t"));   /* independent privileges */
    CHECK(!allowed("p1", FL_PRIV_READ, "pub", NULL, "t"));
    CHECK(allowed("p3", FL_PRIV_DROP, "secret", NULL, "t")); /* admin */
    CHECK(!allowed("ghost", FL_PRIV_READ, "pub", NULL, NULL));
    /* the next input starts from the baseline: the grant is gone */
    const uint8_t nothing[] = {7, 0, 0, 0};
    feed(nothing, sizeof nothing);
    CHECK(!allowed("p0", FL_PRIV_READ, "pub", NULL, NULL));
    /* a table grant (kind 2) on pub.t (pool 20) for r1, held by p1 */
    const uint8_t table[] = {1, 1, 0, 2, 0, 20, 5, 1 + 5 * 1, 1};
    feed(table, sizeof table);
    CHECK(allowed("p1", FL_PRIV_READ, "pub", NULL, "t"));
    CHECK(!allowed("p1", FL_PRIV_READ, "pub", NULL, "tx"));
    CHECK(!allowed("p1", FL_PRIV_READ, "pub", NULL, NULL));
    /* invalid levels: empty (pool 6) and 0x1F (pool 5) are refused */
    const uint8_t bad[] = {0, 0, 0, 1, 6, 0, 0, 0, 1, 5, 5, 0, 1};
    feed(bad, sizeof bad);
    CHECK(g_model.ngrants == 0);
    /* two levels (k = 4: namespace, 2 levels) pub.x, then p0 holds the role
     * and the admin role (role index 4), which is then taken away */
    const uint8_t nested[] = {2, 0, 1, 4, 0, 18, 5, 0, 1, 5, 20, 1, 5, 20, 0};
    feed(nested, sizeof nested);
    CHECK(allowed("p0", FL_PRIV_WRITE, "pub", "x", "t"));
    CHECK(!allowed("p0", FL_PRIV_WRITE, "pub", NULL, "t"));
    CHECK(!allowed("p0", FL_PRIV_DROP, "pub", "x", NULL));
    /* grants then a role drop (op 6) */
    const uint8_t drop[] = {0, 0, 0, 0, 5, 0, 1, 6, 0, 7, 0, 0, 0};
    feed(drop, sizeof drop);
    CHECK(!allowed("p0", FL_PRIV_READ, "anything", NULL, "t"));
    CHECK(g_inputs == 6);
}

static void test_random_programs(void)
{
    uint64_t x = 0x2545F4914F6CDD1Dull;
    uint8_t buf[300];
    for (int i = 0; i < 400; i++) {
        size_t n = 1 + (size_t)(x % sizeof buf);
        for (size_t j = 0; j < n; j++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf[j] = (uint8_t)(x >> 24);
        }
        feed(buf, n);
    }
    CHECK(g_inputs > 400);
}

/* Every file of FLOE_SRC/sub; returns how many. */
static int replay_dir(const char *sub)
{
    const char *src = getenv("FLOE_SRC");
    if (!src)
        return 0;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", src, sub);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        static uint8_t b[4096];
        size_t len = fread(b, 1, sizeof b, f);
        fclose(f);
        feed(b, len);
        n++;
    }
    closedir(d);
    return n;
}

static void test_regress_dir(void)
{
    replay_dir("fuzz/regress/authz");
    int seeds = replay_dir("fuzz/seeds/fuzz_authz");
    CHECK(!getenv("FLOE_SRC") || seeds >= 10);
}

int main(void)
{
    TEST_RUN(test_programs);
    TEST_RUN(test_random_programs);
    TEST_RUN(test_regress_dir);
    fprintf(stderr, "%ld inputs replayed\n", g_inputs);
    fl_auth_close(g_auth);
    return TEST_EXIT();
}
