/*
 * test_positions_replay.c - replays hostile positions side files through
 * fuzz/fuzz_ingest_positions.c (included) in make test: each must fail with
 * FL_ECORRUPT and a message naming the pipeline's snapshot, and a good file
 * must give its positions back.
 */
#include "../../fuzz/fuzz_ingest_positions.c"
#include "test.h"

static void expect_corrupt(const char *text)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_ingest_state st;
    fl_error err = {0};
    fl_status rc = ingest_fuzz_read((const uint8_t *)text, strlen(text), &a, &st, &err);
    if (rc != FL_ECORRUPT || !strstr(err.msg, "pipeline p: snapshot 7")) {
        fprintf(stderr, "input %s\n  -> %d %s\n", text, rc, err.msg);
        CHECK(0);
    }
    fl_arena_free(&a);
    CHECK(LLVMFuzzerTestOneInput((const uint8_t *)text, strlen(text)) == 0);
}

static void test_hostile(void)
{
    static const char *const bad[] = {
        "",
        "{",
        "[]",
        "null",
        "{\"pipeline\":\"p\"}",
        "{\"pipeline\":\"q\",\"positions\":{}}",
        "{\"pipeline\":7,\"positions\":{}}",
        "{\"pipeline\":\"p\",\"positions\":[]}",
        "{\"pipeline\":\"p\",\"positions\":{\"a\":1}}",
        "{\"pipeline\":\"p\",\"positions\":{\"a\":\"1\",\"b\":null}}",
        "{\"pipeline\":\"p\",\"positions\":{\"a\":\"1\"}",
        "\xff\xfe{}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_corrupt(bad[i]);
}

static void test_good(void)
{
    const char *text = "{\"pipeline\":\"p\",\"epoch\":3,\"checkpoint\":1,"
                       "\"positions\":{\"file:/x.csv\":\"5:9:done:2\",\"kafka:t:0\":\"17\"}}";
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_ingest_state st;
    fl_error err = {0};
    CHECK_OK(ingest_fuzz_read((const uint8_t *)text, strlen(text), &a, &st, &err), &err);
    CHECK(st.has_checkpoint && st.snapshot_id == 7 && st.checkpoint == 1);
    CHECK(st.positions.n == 2);
    const char *v = fl_ice_map_get(&st.positions, "kafka:t:0");
    CHECK(v && !strcmp(v, "17"));
    fl_arena_free(&a);
}

int main(void)
{
    TEST_RUN(test_hostile);
    TEST_RUN(test_good);
    return TEST_EXIT();
}
