/*
 * mcp_world.h - the world of the MCP metric tests (test_mcp_metrics.c,
 * test_mcp_propose.c): a small warehouse (7 orders of 4 customers in 3
 * regions, in a temporary folder with a SQLite catalog), a copy of
 * tests/semantic/models loaded as the model (proposals are filed in the
 * copy), and with_auth: principals analyst (reads everything), c1_only
 * (reads default, row filter customer_id = 1) and nobody (no grants).
 * Tools run as w->as, which a test sets.
 */
#ifndef FLOE_TEST_MCP_WORLD_H
#define FLOE_TEST_MCP_WORLD_H

#include <stdlib.h>

#include "floe/auth.h"
#include "floe/mcp.h"
#include "floe/s3.h"
#include "floe/semantic.h"
#include "floe_test.h"

static const char *SEED[] = {
    "CREATE TABLE orders (order_id int, customer_id int, order_date date, status varchar, "
    "gross_amount decimal(10,2), discount_applied decimal(10,2), return_amount decimal(10,2))",
    "CREATE TABLE customers (customer_id int, region varchar, country_code varchar, signup_date "
    "date)",
    "CREATE TABLE countries (country_code varchar, continent varchar)",
    "CREATE TABLE account_balances (account_id int, customer_id int, balance_date date, balance "
    "decimal(10,2))",
    "CREATE TABLE visits (visit_id int, customer_id int, visit_date date, channel varchar)",
    "INSERT INTO customers VALUES (1,'EU','DE',DATE '2023-12-01'),(2,'EU','FR',DATE "
    "'2024-01-15'),(3,'US','US',DATE '2024-02-01'),(4,'APAC','JP',DATE '2024-02-20')",
    "INSERT INTO countries VALUES ('DE','Europe'),('FR','Europe'),('US','America'),"
    "('JP','Asia')",
    "INSERT INTO orders VALUES (1,1,DATE '2024-01-05','completed',100.00,10.00,0.00),"
    "(2,2,DATE '2024-01-20','completed',200.00,0.00,50.00),"
    "(3,3,DATE '2024-02-03','cancelled',50.00,5.00,0.00),"
    "(4,1,DATE '2024-02-14','completed',300.00,30.00,20.00),"
    "(5,4,DATE '2024-03-01','placed',80.00,0.00,0.00),"
    "(6,3,DATE '2024-03-15','completed',120.00,12.00,0.00),"
    "(7,2,DATE '2024-03-31','completed',60.00,0.00,60.00)",
};

typedef struct world {
    char dir[256];
    char models[512]; /* a copy of tests/semantic/models: proposals are filed in it */
    fl_catalog *cat;
    fl_fileio *io;
    fl_auth *auth;
    fl_sem_model *model;
    fl_principal as;
} world;

static fl_status resolve(void *ctx, void *caller, fl_principal *out, fl_error *err)
{
    (void)caller;
    (void)err;
    *out = ((world *)ctx)->as;
    return FL_OK;
}

static void world_open(world *w, bool with_auth)
{
    memset(w, 0, sizeof *w);
    const char *src = getenv("FLOE_SRC");
    CHECK(src != NULL);
    CHECK(ft_tmpdir(w->dir, sizeof w->dir, "mcpm") != NULL);
    fl_sql_session *s = ft_open_sqlite(w->dir, NULL, NULL);
    char out[4096];
    fl_error err = {0};
    for (size_t i = 0; i < sizeof SEED / sizeof SEED[0]; i++)
        CHECK_OK(ft_run(s, SEED[i], "\n", out, sizeof out, &err), &err);
    fl_sql_session_close(s);
    char uri[600], wh[600], cmd[2048];
    snprintf(uri, sizeof uri, "sqlite:%s/cat.db", w->dir);
    snprintf(wh, sizeof wh, "%s/wh", w->dir);
    snprintf(w->models, sizeof w->models, "%s/models", w->dir);
    snprintf(cmd, sizeof cmd, "cp -r '%s/tests/semantic/models' '%s'", src ? src : ".", w->models);
    CHECK(system(cmd) == 0);
    CHECK_OK(fl_sem_model_load_dir(w->models, &w->model, &err), &err);
    CHECK_OK(fl_fileio_default(NULL, &w->io, &err), &err);
    CHECK_OK(fl_catalog_open_uri(uri, NULL, wh, w->io, &w->cat, &err), &err);
    snprintf(w->as.name, sizeof w->as.name, "local");
    w->as.admin = true;
    if (!with_auth)
        return;
    fl_auth_options ao = {.store_uri = uri};
    CHECK_OK(fl_auth_open(&ao, &w->auth, &err), &err);
    char sec[128];
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_namespace ns;
    CHECK_OK(fl_namespace_parse("default", &a, &ns, &err), &err);
    const char *who[] = {"analyst", "c1_only", "nobody"};
    for (size_t i = 0; i < 3; i++)
        CHECK_OK(fl_auth_principal_create(w->auth, who[i], false, sec, sizeof sec, &err), &err);
    CHECK_OK(fl_auth_role_create(w->auth, "all_r", &err), &err);
    CHECK_OK(fl_auth_role_create(w->auth, "c1_r", &err), &err);
    CHECK_OK(fl_auth_role_assign(w->auth, "analyst", "all_r", true, &err), &err);
    CHECK_OK(fl_auth_role_assign(w->auth, "c1_only", "c1_r", true, &err), &err);
    CHECK_OK(fl_auth_grant(w->auth, "all_r", FL_PRIV_READ, &ns, NULL, true, &err), &err);
    CHECK_OK(fl_auth_grant(w->auth, "c1_r", FL_PRIV_READ, &ns, NULL, true, &err), &err);
    CHECK_OK(fl_auth_policy_set(w->auth, "c1_r", FL_POLICY_ROW_FILTER, &ns, "orders", NULL,
                                "customer_id = 1", &err),
             &err);
    fl_arena_free(&a);
}

static void world_close(world *w)
{
    fl_catalog_close(w->cat);
    fl_auth_close(w->auth);
    fl_fileio_destroy(w->io);
    fl_sem_model_free(w->model);
    ft_rmtree(w->dir);
}

#endif
