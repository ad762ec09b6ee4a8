/*
 * test_sqlite.c - the fl_auth suite (auth_suite.h) on a fresh SQLite store
 * in a temporary directory, plus store-level checks: the tables exist with
 * no secret in clear, the signing key persists across opens, and a store
 * file that is not a database is a clear error.
 */
#include <sqlite3.h>

#include "auth_suite.h"
#include "floe_test.h"

static char g_dir[256];
static char g_db[300];

static void test_tokens(void)
{
    suite_tokens();
}
static void test_statics(void)
{
    suite_statics();
}
static void test_anonymous(void)
{
    suite_anonymous();
}
static void test_grants(void)
{
    suite_grants();
}
static void test_concurrency(void)
{
    suite_concurrency();
}
static void test_linearize(void)
{
    suite_linearize();
}
static void test_limits(void)
{
    suite_limits();
}
static void test_audit(void)
{
    suite_audit_check(6 * 300);
}

static void test_store_contents(void)
{
    fl_auth *a = suite_open();
    CHECK(a != NULL);
    if (!a)
        return;
    fl_error err;
    char sec[64];
    CHECK_OK(fl_auth_principal_create(a, "s_clear", false, sec, sizeof sec, &err), &err);
    char *tok = NULL;
    int exp;
    CHECK_OK(fl_auth_token_issue(a, "s_clear", sec, &tok, &exp, &err), &err);
    fl_auth_close(a);
    /* the secret is nowhere in the file */
    FILE *f = fopen(g_db, "rb");
    CHECK(f != NULL);
    if (f) {
        static char buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        CHECK(n > 0);
        CHECK(memmem(buf, n, sec, strlen(sec)) == NULL);
    }
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(g_db, &db) == SQLITE_OK);
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(db,
                             "SELECT secret_hash FROM floe_auth_principals WHERE name = "
                             "'s_clear'",
                             -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK(strncmp((const char *)sqlite3_column_text(st, 0), "SCRAM-SHA-256$4096:", 19) == 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    /* reopened: same key, the token still verifies */
    a = suite_open();
    CHECK(a != NULL);
    if (a) {
        char hdr[4200];
        fl_principal p;
        CHECK_OK(fl_auth_authenticate(a, bearer(hdr, sizeof hdr, tok), &p, &err), &err);
        fl_auth_close(a);
    }
    free(tok);
    /* not a database */
    char junk[300];
    snprintf(junk, sizeof junk, "%s/junk.db", g_dir);
    f = fopen(junk, "wb");
    if (f) {
        fputs("this is not a sqlite database, not at all; just some text.......", f);
        fclose(f);
    }
    fl_auth_options o = {.store_uri = NULL};
    char uri[320];
    snprintf(uri, sizeof uri, "sqlite:%s", junk);
    o.store_uri = uri;
    CHECK(fl_auth_open(&o, &a, &err) != FL_OK);
    CHECK(strstr(err.msg, "junk.db") != NULL);
    o.store_uri = "mysql://x";
    CHECK_EQ_INT(fl_auth_open(&o, &a, &err), FL_EINVAL);
    /* audit log in a missing directory */
    snprintf(uri, sizeof uri, "sqlite:%s", g_db);
    o.store_uri = uri;
    o.audit_log_path = "/nonexistent-dir/audit.log";
    CHECK_EQ_INT(fl_auth_open(&o, &a, &err), FL_EIO);
    CHECK(strstr(err.msg, "/nonexistent-dir/audit.log") != NULL);
}

int main(void)
{
    if (!ft_tmpdir(g_dir, sizeof g_dir, "floe-auth")) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(g_db, sizeof g_db, "%s/catalog.db", g_dir);
    snprintf(suite_uri, sizeof suite_uri, "sqlite:%s", g_db);
    snprintf(suite_audit, sizeof suite_audit, "%s/audit.log", g_dir);
    TEST_RUN(test_tokens);
    TEST_RUN(test_statics);
    TEST_RUN(test_anonymous);
    TEST_RUN(test_grants);
    TEST_RUN(test_concurrency);
    TEST_RUN(test_linearize);
    TEST_RUN(test_limits);
    TEST_RUN(test_audit);
    TEST_RUN(test_store_contents);
    int rc = TEST_EXIT();
    ft_rmtree(g_dir);
    return rc;
}
