/* Unit tests for the arena allocator and the error object. */
#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"
#include "test.h"

static void test_alloc_alignment_and_strings(void)
{
    fl_arena a;
    fl_arena_init(&a, 256);
    for (int i = 1; i < 200; i++) {
        void *p = fl_arena_alloc(&a, (size_t)i);
        CHECK(p != NULL);
        CHECK(((uintptr_t)p & 15) == 0);
        memset(p, 0xab, (size_t)i);
    }
    char *big = fl_arena_alloc(&a, 10000);
    CHECK(big != NULL);
    memset(big, 1, 10000);
    CHECK_EQ_STR(fl_arena_strdup(&a, "hello"), "hello");
    CHECK_EQ_STR(fl_arena_sprintf(&a, "%d-%s", 42, "x"), "42-x");
    int *z = fl_arena_calloc(&a, 100, sizeof(int));
    CHECK(z && z[0] == 0 && z[99] == 0);
    fl_arena_reset(&a);
    CHECK(fl_arena_alloc(&a, 8) != NULL);
    fl_arena_free(&a);
}

static void test_arena_limit(void)
{
    fl_arena a;
    fl_arena_init(&a, 1024);
    a.limit = 4096;
    int got = 0;
    for (int i = 0; i < 100; i++)
        if (fl_arena_alloc(&a, 1000))
            got++;
    CHECK(got > 0 && got < 100);
    CHECK(fl_arena_calloc(&a, SIZE_MAX / 2, 4) == NULL);
    fl_arena_free(&a);
}

static void test_error_prefix(void)
{
    fl_error e;
    fl_error_clear(&e);
    CHECK_EQ_INT(e.code, FL_OK);
    CHECK_EQ_INT(fl_errorf(&e, FL_ECORRUPT, "page at offset %d: bad", 48), FL_ECORRUPT);
    fl_error_prefix(&e, "column '%s'", "x");
    fl_error_prefix(&e, "%s", "data.parquet");
    CHECK_EQ_STR(e.msg, "data.parquet: column 'x': page at offset 48: bad");
    CHECK_EQ_STR(fl_status_name(FL_ECORRUPT), "corrupt input");
    CHECK_EQ_INT(fl_errorf(NULL, FL_EIO, "ignored"), FL_EIO);
}

/* Absurd sizes fail cleanly instead of wrapping around. */
static void test_arena_huge(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    CHECK(fl_arena_alloc(&a, SIZE_MAX) == NULL);
    CHECK(fl_arena_alloc(&a, SIZE_MAX - 16) == NULL);
    CHECK(fl_arena_alloc(&a, SIZE_MAX - 40) == NULL);
    CHECK(fl_arena_calloc(&a, SIZE_MAX / 2, 4) == NULL);
    CHECK(fl_arena_strndup(&a, "x", SIZE_MAX) == NULL);
    a.limit = 1000;
    CHECK(fl_arena_alloc(&a, SIZE_MAX / 2) == NULL);
    CHECK(fl_arena_alloc(&a, 100) == NULL); /* default 64 KiB block exceeds the limit */
    fl_arena_free(&a);
    fl_arena_init(&a, 512);
    a.limit = 1000;
    CHECK(fl_arena_alloc(&a, 100) != NULL);
    fl_arena_free(&a);
}

int main(void)
{
    TEST_RUN(test_alloc_alignment_and_strings);
    TEST_RUN(test_arena_limit);
    TEST_RUN(test_error_prefix);
    TEST_RUN(test_arena_huge);
    return TEST_EXIT();
}
