/* Unit tests for fl_buf (floe/buf.h): growth, NUL termination, printf
 * appends, the ceiling (FL_ELIMIT naming it, buffer unchanged), detach. */
#include "floe/buf.h"
#include "test.h"

static void test_grow_and_terminate(void)
{
    fl_buf b = {0};
    fl_error err;
    CHECK(b.data == NULL && b.len == 0);
    for (int i = 0; i < 10000; i++)
        CHECK_OK(fl_buf_putc(&b, (char)('a' + i % 26), &err), &err);
    CHECK_EQ_INT(b.len, 10000);
    CHECK(b.cap > b.len);
    CHECK_EQ_INT(b.data[10000], 0);
    CHECK_EQ_INT(b.data[27], 'b');
    fl_buf_reset(&b);
    CHECK_EQ_INT(b.len, 0);
    CHECK_EQ_STR(b.data, "");
    CHECK_OK(fl_buf_puts(&b, "x=", &err), &err);
    CHECK_OK(fl_buf_appendf(&b, &err, "%d,%s", 42, "y"), &err);
    CHECK_OK(fl_buf_append(&b, "\0z", 2, &err), &err);
    CHECK_EQ_INT(b.len, 8);
    CHECK_EQ_STR(b.data, "x=42,y");
    CHECK_EQ_INT(b.data[7], 'z');
    CHECK_OK(fl_buf_append(&b, NULL, 0, &err), &err);
    CHECK_EQ_INT(b.len, 8);
    size_t n;
    char *d = fl_buf_detach(&b, &n);
    CHECK_EQ_INT(n, 8);
    CHECK(b.data == NULL && b.len == 0 && b.cap == 0);
    free(d);
    fl_buf_free(&b);
}

static void test_ceiling(void)
{
    fl_buf b;
    fl_buf_init(&b, 10);
    fl_error err;
    CHECK_OK(fl_buf_puts(&b, "0123456789", &err), &err); /* exactly the ceiling */
    CHECK_EQ_INT(b.len, 10);
    CHECK(b.cap <= 11);
    CHECK_EQ_INT(fl_buf_putc(&b, 'x', &err), FL_ELIMIT);
    CHECK(strstr(err.msg, "10 bytes") != NULL);
    CHECK_EQ_STR(b.data, "0123456789"); /* unchanged */
    CHECK_EQ_INT(fl_buf_appendf(&b, &err, "%s", "more"), FL_ELIMIT);
    CHECK_EQ_INT(fl_buf_reserve(&b, 1, &err), FL_ELIMIT);
    CHECK_OK(fl_buf_reserve(&b, 0, &err), &err);
    fl_buf_reset(&b);
    CHECK_OK(fl_buf_appendf(&b, &err, "%05d", 7), &err);
    CHECK_EQ_STR(b.data, "00007");
    CHECK_EQ_INT(fl_buf_append(&b, "abcdef", 6, &err), FL_ELIMIT);
    CHECK_EQ_INT(b.len, 5);
    fl_buf_free(&b);
    CHECK_EQ_INT(b.max, 10); /* the ceiling stays */
    /* a big ceiling grows geometrically but never allocates past it */
    fl_buf_init(&b, 1000);
    for (int i = 0; i < 1000; i++)
        CHECK_OK(fl_buf_putc(&b, 'a', &err), &err);
    CHECK(b.cap <= 1001);
    CHECK_EQ_INT(fl_buf_putc(&b, 'a', &err), FL_ELIMIT);
    fl_buf_free(&b);
}

static void test_overflow(void)
{
    fl_buf b = {0};
    fl_error err;
    CHECK_OK(fl_buf_puts(&b, "abc", &err), &err);
    CHECK_EQ_INT(fl_buf_reserve(&b, SIZE_MAX, &err), FL_ENOMEM);
    CHECK_EQ_INT(fl_buf_reserve(&b, SIZE_MAX - 3, &err), FL_ENOMEM);
    CHECK_EQ_STR(b.data, "abc");
    fl_buf_free(&b);
}

int main(void)
{
    TEST_RUN(test_grow_and_terminate);
    TEST_RUN(test_ceiling);
    TEST_RUN(test_overflow);
    return TEST_EXIT();
}
