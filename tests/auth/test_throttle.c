/*
 * test_throttle.c - failed-login throttling and login audit lines
 * (src/auth/throttle.c): after max_failures failures a client id is
 * refused without any secret being checked, an address after four times
 * as many (whatever ids it tries), the lockout doubles per strike and ends,
 * a success clears the id, a flood of made-up ids stays bounded, and every
 * attempt can be audited with its client address.
 */
#include <jansson.h>
#include <time.h>
#include <unistd.h>

#include "floe/auth.h"
#include "floe_test.h"

static char g_dir[256], g_uri[300], g_audit[300];

static fl_auth *open_auth(uint32_t max_failures, uint32_t window_s)
{
    fl_auth_options o = {.store_uri = g_uri,
                         .audit_log_path = g_audit,
                         .login_max_failures = max_failures,
                         .login_window_s = window_s};
    fl_auth *a = NULL;
    fl_error err;
    CHECK_OK(fl_auth_open(&o, &a, &err), &err);
    return a;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static bool allowed(fl_auth *a, const char *id, const char *addr, int *retry)
{
    fl_error err;
    return fl_auth_login_allowed(a, id, addr, retry, &err) == FL_OK;
}

static void test_id_lockout(void)
{
    fl_auth *a = open_auth(3, 60);
    if (!a)
        return;
    int retry = 0;
    for (int i = 0; i < 3; i++) {
        CHECK(allowed(a, "victim", "10.0.0.1", &retry));
        fl_auth_login_record(a, "victim", "10.0.0.1", false);
    }
    CHECK(!allowed(a, "victim", "10.0.0.2", &retry)); /* the id is locked from anywhere */
    CHECK(retry >= 1 && retry <= 1);
    CHECK(allowed(a, "other", "10.0.0.2", &retry)); /* others are not */
    sleep_ms(1100);
    CHECK(allowed(a, "victim", "10.0.0.1", &retry));
    fl_auth_login_record(a, "victim", "10.0.0.1", false); /* a second strike: 2 s */
    CHECK(!allowed(a, "victim", "10.0.0.1", &retry));
    CHECK_EQ_INT(retry, 2);
    sleep_ms(2100);
    CHECK(allowed(a, "victim", "10.0.0.1", &retry));
    fl_auth_login_record(a, "victim", "10.0.0.1", true); /* success clears the id */
    fl_auth_login_record(a, "victim", "10.0.0.1", false);
    CHECK(allowed(a, "victim", "10.0.0.1", &retry));
    fl_auth_close(a);
}

static void test_address_lockout(void)
{
    fl_auth *a = open_auth(2, 60);
    if (!a)
        return;
    int retry;
    char id[32];
    for (int i = 0; i < 8; i++) { /* 4 x 2 failures, each for a fresh id */
        snprintf(id, sizeof id, "guess%d", i);
        CHECK(allowed(a, id, "192.0.2.7", &retry));
        fl_auth_login_record(a, id, "192.0.2.7", false);
    }
    CHECK(!allowed(a, "guess100", "192.0.2.7", &retry));
    CHECK(allowed(a, "guess100", "192.0.2.8", &retry));
    fl_auth_close(a);
}

static void test_window(void)
{
    fl_auth *a = open_auth(2, 1);
    if (!a)
        return;
    int retry;
    fl_auth_login_record(a, "slow", NULL, false);
    sleep_ms(1200); /* the window ended: the count starts over */
    fl_auth_login_record(a, "slow", NULL, false);
    CHECK(allowed(a, "slow", NULL, &retry));
    fl_auth_login_record(a, "slow", NULL, false);
    CHECK(!allowed(a, "slow", NULL, &retry));
    fl_auth_close(a);
}

static void test_flood_bounded(void)
{
    fl_auth *a = open_auth(5, 60);
    if (!a)
        return;
    char id[32], addr[32];
    for (int i = 0; i < 20000; i++) {
        snprintf(id, sizeof id, "rand%d", i);
        snprintf(addr, sizeof addr, "198.51.%d.%d", (i / 250) % 250, i % 250);
        fl_auth_login_record(a, id, addr, false);
    }
    int retry;
    CHECK(allowed(a, "fresh", "203.0.113.1", &retry)); /* still answers, nothing blocked */
    for (int i = 0; i < 5; i++)
        fl_auth_login_record(a, "fresh", "203.0.113.1", false);
    CHECK(!allowed(a, "fresh", "203.0.113.2", &retry)); /* and still counts */
    fl_auth_close(a);
}

static void test_audit_lines(void)
{
    fl_auth *a = open_auth(5, 60);
    if (!a)
        return;
    fl_auth_audit_login(a, "pg.login", "alice", "pgwire", "127.0.0.1:40000", "ok", NULL);
    fl_auth_audit_login(a, "oauth.token", "mallory", "/v1/oauth/tokens", "127.0.0.1:40001",
                        "throttled", "too many failures");
    fl_auth_close(a);
    FILE *f = fopen(g_audit, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[4096];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        json_t *j = json_loads(line, 0, NULL);
        const char *pr = json_string_value(json_object_get(j, "principal"));
        const char *act = json_string_value(json_object_get(j, "action"));
        const char *tg = json_string_value(json_object_get(j, "target"));
        const char *out = json_string_value(json_object_get(j, "outcome"));
        const char *det = json_string_value(json_object_get(j, "detail"));
        if (pr && act && tg && out && det && !strcmp(pr, "mallory") &&
            !strcmp(act, "oauth.token") && !strcmp(tg, "/v1/oauth/tokens") &&
            !strcmp(out, "throttled") && strstr(det, "client=127.0.0.1:40001"))
            found++;
        if (pr && act && !strcmp(pr, "alice") && !strcmp(act, "pg.login") && tg &&
            !strcmp(tg, "pgwire") && det && strstr(det, "client=127.0.0.1:40000"))
            found++;
        json_decref(j);
    }
    fclose(f);
    CHECK_EQ_INT(found, 2);
}

int main(void)
{
    if (!ft_tmpdir(g_dir, sizeof g_dir, "floe-throttle"))
        return 1;
    snprintf(g_uri, sizeof g_uri, "sqlite:%s/auth.db", g_dir);
    snprintf(g_audit, sizeof g_audit, "%s/audit.log", g_dir);
    TEST_RUN(test_id_lockout);
    TEST_RUN(test_address_lockout);
    TEST_RUN(test_window);
    TEST_RUN(test_flood_bounded);
    TEST_RUN(test_audit_lines);
    ft_rmtree(g_dir);
    return TEST_EXIT();
}
