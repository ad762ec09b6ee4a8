/*
 * test.h - the tiny unit-test harness: each test file is one executable with
 * a main() that calls TEST_RUN(fn) for each case and returns TEST_EXIT().
 * A failed CHECK prints file:line and the expression, marks the case failed,
 * and continues with the next CHECK. Exit status 77 = skipped (ctest
 * SKIP_RETURN_CODE), used when ../shared fixtures are absent.
 */
#ifndef FLOE_TEST_H
#define FLOE_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failures_;
static int test_cases_;
static int test_case_failed_;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
            test_case_failed_ = 1;                                                                 \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                         \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_) {                                                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n", __FILE__, __LINE__,  \
                    #a, #b, a_, b_);                                                               \
            test_case_failed_ = 1;                                                                 \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                                         \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                                   \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (\"%s\" != \"%s\")\n", __FILE__,        \
                    __LINE__, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");                     \
            test_case_failed_ = 1;                                                                 \
        }                                                                                          \
    } while (0)

/* Checks an fl_status is FL_OK, printing the error message otherwise. */
#define CHECK_OK(expr, errp)                                                                       \
    do {                                                                                           \
        int rc_ = (expr);                                                                          \
        if (rc_ != 0) {                                                                            \
            fprintf(stderr, "%s:%d: %s failed (%d): %s\n", __FILE__, __LINE__, #expr, rc_,         \
                    (errp)->msg);                                                                  \
            test_case_failed_ = 1;                                                                 \
        }                                                                                          \
    } while (0)

#define TEST_RUN(fn)                                                                               \
    do {                                                                                           \
        test_case_failed_ = 0;                                                                     \
        test_cases_++;                                                                             \
        fn();                                                                                      \
        if (test_case_failed_) {                                                                   \
            test_failures_++;                                                                      \
            fprintf(stderr, "FAIL %s\n", #fn);                                                     \
        } else {                                                                                   \
            fprintf(stderr, "ok   %s\n", #fn);                                                     \
        }                                                                                          \
    } while (0)

#define TEST_EXIT()                                                                                \
    (fprintf(stderr, "%d cases, %d failed\n", test_cases_, test_failures_), test_failures_ ? 1 : 0)

/* Path under ../shared (from $FLOE_SHARED), or NULL when it is absent. */
static inline const char *test_shared_dir(void)
{
    const char *d = getenv("FLOE_SHARED");
    static char buf[4096];
    if (!d || !*d)
        return NULL;
    snprintf(buf, sizeof buf, "%s/fixtures", d);
    FILE *f = fopen(buf, "r");
    if (!f)
        return NULL;
    fclose(f);
    return d;
}

#endif
