/* Unit tests for the SQLSTATE table (floe/errcodes.h) and the SQLSTATE an
 * fl_error carries: unique 5-character codes, condition names, the class ->
 * HTTP status mapping, status defaults, and raise / prefix / clear. */
#include <ctype.h>
#include <stdbool.h>

#include "floe/errcodes.h"
#include "floe/error.h"
#include "test.h"

static bool code_chars_ok(const char *c)
{
    if (strlen(c) != 5)
        return false;
    for (int i = 0; i < 5; i++)
        if (!isdigit((unsigned char)c[i]) && !isupper((unsigned char)c[i]))
            return false;
    return true;
}

static void test_table_codes_unique_and_well_formed(void)
{
    CHECK(FL_SQLSTATE_COUNT > 60);
    CHECK(fl_sqlstate_at(FL_SQLSTATE_COUNT) == NULL);
    for (size_t i = 0; i < FL_SQLSTATE_COUNT; i++) {
        const fl_sqlstate_entry *e = fl_sqlstate_at(i);
        CHECK(e != NULL);
        if (!e)
            continue;
        CHECK(code_chars_ok(e->code));
        CHECK(e->condition && e->condition[0] && e->cname && e->cname[0]);
        for (const char *p = e->condition; *p; p++)
            CHECK(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_');
        CHECK(fl_sqlstate_find(e->code) == e); /* so no code appears twice */
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(fl_sqlstate_at(j)->code, e->code) != 0);
        CHECK_EQ_STR(fl_sqlstate_name(e->code), e->condition);
    }
    CHECK_EQ_STR(fl_sqlstate_name("22012"), "division_by_zero");
    CHECK_EQ_STR(fl_sqlstate_name("42P01"), "undefined_table");
    CHECK_EQ_STR(fl_sqlstate_at(FL_SQLSTATE_DIVISION_BY_ZERO)->code, "22012");
    CHECK(fl_sqlstate_name("ZZ999") == NULL);
    CHECK(fl_sqlstate_find(NULL) == NULL);
}

static void test_classes_map_to_http_statuses(void)
{
    CHECK_EQ_INT(fl_sqlstate_http_status("22012"), 400);
    CHECK_EQ_INT(fl_sqlstate_http_status("42601"), 400);
    CHECK_EQ_INT(fl_sqlstate_http_status("42703"), 400);
    CHECK_EQ_INT(fl_sqlstate_http_status("0A000"), 400);
    CHECK_EQ_INT(fl_sqlstate_http_status("54001"), 400);
    CHECK_EQ_INT(fl_sqlstate_http_status("42501"), 403);
    CHECK_EQ_INT(fl_sqlstate_http_status("42P01"), 404);
    CHECK_EQ_INT(fl_sqlstate_http_status("3F000"), 404);
    CHECK_EQ_INT(fl_sqlstate_http_status("40001"), 409);
    CHECK_EQ_INT(fl_sqlstate_http_status("57014"), 409);
    CHECK_EQ_INT(fl_sqlstate_http_status("53200"), 503);
    CHECK_EQ_INT(fl_sqlstate_http_status("XX000"), 500);
    CHECK_EQ_INT(fl_sqlstate_http_status("25P02"), 500);
    CHECK_EQ_INT(fl_sqlstate_http_status(NULL), 500);
    CHECK_EQ_INT(fl_sqlstate_http_status("22"), 500);
    for (size_t i = 0; i < FL_SQLSTATE_COUNT; i++) {
        int st = fl_sqlstate_http_status(fl_sqlstate_at(i)->code);
        CHECK(st == 400 || st == 403 || st == 404 || st == 409 || st == 500 || st == 503);
    }
}

static void test_status_defaults_are_in_the_table(void)
{
    for (int s = 0; s >= FL_EFORBIDDEN; s--)
        CHECK(fl_sqlstate_find(fl_sqlstate_for_status((fl_status)s)) != NULL);
    CHECK_EQ_STR(fl_sqlstate_for_status(FL_OK), "00000");
    CHECK_EQ_STR(fl_sqlstate_for_status(FL_ESYNTAX), "42601");
    CHECK_EQ_STR(fl_sqlstate_for_status(FL_EFORBIDDEN), "42501");
    CHECK_EQ_STR(fl_sqlstate_for_status((fl_status)-999), "XX000");
}

static void test_error_carries_its_state(void)
{
    fl_error e;
    fl_error_clear(&e);
    CHECK_EQ_STR(fl_error_sqlstate(&e), "00000");
    CHECK_EQ_INT(fl_error_state(&e, FL_EINVAL, "22012", "division by %s", "zero"), FL_EINVAL);
    CHECK_EQ_STR(fl_error_sqlstate(&e), "22012");
    CHECK_EQ_STR(e.msg, "division by zero");
    fl_error_prefix(&e, "line %d", 1);
    CHECK_EQ_STR(fl_error_sqlstate(&e), "22012"); /* the prefix keeps it */
    CHECK_EQ_STR(e.msg, "line 1: division by zero");
    fl_error_set_state(&e, e.sqlstate); /* re-raising with its own code */
    CHECK_EQ_STR(e.sqlstate, "22012");
    fl_errorf(&e, FL_ENOTFOUND, "gone"); /* a fresh error: the status's default */
    CHECK_EQ_STR(fl_error_sqlstate(&e), "42704");
    fl_error_state(&e, FL_EINVAL, NULL, "no code");
    CHECK_EQ_STR(fl_error_sqlstate(&e), "22023");
    fl_error_state(&e, FL_EINVAL, "42P01", "x");
    fl_error_clear(&e);
    CHECK_EQ_STR(e.sqlstate, "");
    CHECK_EQ_INT(fl_error_state(NULL, FL_EIO, "58030", "x"), FL_EIO);
    CHECK_EQ_STR(fl_error_sqlstate(NULL), "XX000");
}

int main(void)
{
    TEST_RUN(test_table_codes_unique_and_well_formed);
    TEST_RUN(test_classes_map_to_http_statuses);
    TEST_RUN(test_status_defaults_are_in_the_table);
    TEST_RUN(test_error_carries_its_state);
    return TEST_EXIT();
}
