/*
 * test_fuzz_depth_replay.c - replays fuzz/fuzz_sql_depth.c's seeds and
 * fuzz/regress/sql_depth/ in `make test` (so also under ASan+UBSan): every
 * nesting shape at 28 to 12,000 levels through the classifier, the guarded
 * parse, the binder, the planner and a bounded run, with the target's own
 * checks (__builtin_trap on a violated property).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../fuzz/fuzz_sql_depth.c"
#include "test.h"

static int replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        static uint8_t buf[1 << 16];
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len);
        n++;
    }
    closedir(d);
    return n;
}

static void test_replay(void)
{
    const char *src = getenv("FLOE_SRC");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/fuzz/seeds/fuzz_sql_depth", src ? src : ".");
    int n = replay_dir(dir);
    CHECK(n >= 20);
    snprintf(dir, sizeof dir, "%s/fuzz/regress/sql_depth", src ? src : ".");
    replay_dir(dir);
    fprintf(stderr, "  replayed %d seeds\n", n);
}

int main(void)
{
    TEST_RUN(test_replay);
    return TEST_EXIT();
}
