/*
 * test_maintain.c - one maintenance pass (fl_ice_maintain_table,
 * src/iceberg/maintain.c) by the table's properties: compaction waits for
 * floe.maintenance.min-input-files small files, or runs for any delete
 * file; expiry by history.expire.*; floe.maintenance.enabled=false leaves a
 * table alone; fl_ice_maintain_catalog reaches tables in nested namespaces
 * and reports each. Rows are read back through SQL after every pass.
 */
#include <stdio.h>
#include <string.h>

#include "floe/ice_table.h"
#include "floe_test.h"

typedef struct env {
    char dir[256];
    fl_sql_session *sql;
    fl_fileio *io;
    fl_catalog *cat;
} env;

static bool env_open(env *e)
{
    memset(e, 0, sizeof *e);
    if (!ft_tmpdir(e->dir, sizeof e->dir, "floe_maint"))
        return false;
    if (!(e->sql = ft_open_sqlite(e->dir, NULL, NULL)))
        return false;
    char uri[600], wh[600];
    snprintf(uri, sizeof uri, "sqlite:%s/cat.db", e->dir);
    snprintf(wh, sizeof wh, "%s/wh", e->dir);
    fl_error err = {0};
    e->io = fl_fileio_local();
    CHECK_OK(fl_catalog_open_uri(uri, NULL, wh, e->io, &e->cat, &err), &err);
    return e->cat != NULL;
}

static void env_close(env *e)
{
    fl_catalog_close(e->cat);
    fl_fileio_destroy(e->io);
    fl_sql_session_close(e->sql);
    ft_rmtree(e->dir);
}

static void run(env *e, const char *sql)
{
    char out[1024];
    fl_error err = {0};
    CHECK_OK(ft_run(e->sql, sql, "\n", out, sizeof out, &err), &err);
}

static void maintain(env *e, const char *table, fl_ice_maintain_result *r)
{
    fl_table_ident id = {{1, (const char *[]){"s"}}, table};
    fl_error err = {0};
    CHECK_OK(fl_ice_maintain_table(e->cat, &id, false, r, &err), &err);
}

static void test_compaction_policy(void)
{
    env e;
    if (!env_open(&e))
        return;
    run(&e, "CREATE SCHEMA s");
    run(&e, "CREATE TABLE s.t (id bigint, v varchar)");
    for (int i = 1; i <= 4; i++) {
        char q[96];
        snprintf(q, sizeof q, "INSERT INTO s.t VALUES (%d, 'v%d')", i, i);
        run(&e, q);
    }
    fl_ice_maintain_result r;
    maintain(&e, "t", &r); /* 4 small files: below the default 5 */
    CHECK(!r.disabled && r.files_rewritten == 0 && !r.conflict[0]);
    ft_expect(e.sql, "SELECT count(*) FROM s.\"t$files\"", "\n", "4\n");
    run(&e, "INSERT INTO s.t VALUES (5, 'v5')");
    maintain(&e, "t", &r);
    CHECK(r.files_rewritten == 5 && r.files_added == 1);
    ft_expect(e.sql, "SELECT count(*), sum(id) FROM s.t", "\n", "5|15\n");
    ft_expect(e.sql, "SELECT count(*) FROM s.\"t$files\"", "\n", "1\n");
    /* a delete file compacts even one data file */
    run(&e, "DELETE FROM s.t WHERE id = 2");
    ft_expect(e.sql, "SELECT count(*) FROM s.\"t$files\" WHERE content = 1", "\n", "1\n");
    maintain(&e, "t", &r);
    CHECK(r.files_rewritten == 1);
    ft_expect(e.sql, "SELECT count(*) FROM s.\"t$files\"", "\n", "1\n");
    ft_expect(e.sql, "SELECT count(*), sum(id) FROM s.t", "\n", "4|13\n");
    /* expiry by the table's history.expire.* */
    run(&e, "ALTER TABLE s.t SET PROPERTIES \"history.expire.max-snapshot-age-ms\" = '1'");
    maintain(&e, "t", &r);
    CHECK(r.snapshots_expired >= 6);
    ft_expect(e.sql, "SELECT count(*) FROM s.\"t$snapshots\"", "\n", "1\n");
    ft_expect(e.sql, "SELECT count(*), sum(id) FROM s.t", "\n", "4|13\n");
    /* a lower threshold, and a table opted out */
    run(&e, "CREATE TABLE s.u (id bigint)");
    run(&e, "INSERT INTO s.u VALUES (1)");
    run(&e, "INSERT INTO s.u VALUES (2)");
    run(&e, "ALTER TABLE s.u SET PROPERTIES \"floe.maintenance.enabled\" = 'false', "
            "\"floe.maintenance.min-input-files\" = '2'");
    maintain(&e, "u", &r);
    CHECK(r.disabled && r.files_rewritten == 0);
    run(&e, "ALTER TABLE s.u SET PROPERTIES \"floe.maintenance.enabled\" = 'true'");
    maintain(&e, "u", &r);
    CHECK(!r.disabled && r.files_rewritten == 2);
    ft_expect(e.sql, "SELECT count(*), sum(id) FROM s.u", "\n", "2|3\n");
    env_close(&e);
}

static void test_policy_defaults(void)
{
    fl_ice_metadata m;
    memset(&m, 0, sizeof m);
    fl_ice_maintain_policy p;
    fl_ice_maintain_policy_of(&m, &p);
    CHECK(p.enabled && p.rewrite_deletes && p.min_input_files == 5 && p.max_manifests == 100);
    CHECK(p.orphan_age_ms == 3 * 86400000LL);
    fl_ice_kv kv[] = {{"floe.maintenance.min-input-files", "0"},
                      {"floe.maintenance.rewrite-deletes", "FALSE"}};
    m.properties = (fl_ice_map){2, kv};
    fl_ice_maintain_policy_of(&m, &p);
    CHECK(p.min_input_files == 2 && !p.rewrite_deletes); /* a pass needs two files to merge */
}

typedef struct seen {
    uint32_t n, failed;
    char last[64];
} seen;

static void on_table(void *ctx, const fl_table_ident *id, const fl_ice_maintain_result *r,
                     const fl_error *e)
{
    (void)e;
    seen *s = ctx;
    s->n++;
    s->failed += r == NULL;
    snprintf(s->last, sizeof s->last, "%u:%s", id->ns.nlevels, id->name);
}

static void test_whole_catalog(void)
{
    env e;
    if (!env_open(&e))
        return;
    run(&e, "CREATE SCHEMA a");
    fl_error err = {0};
    fl_namespace ab = {2, (const char *[]){"a", "b"}};
    CHECK_OK(e.cat->ops->create_namespace(e.cat, &ab, NULL, &err), &err);
    run(&e, "CREATE TABLE a.x (id bigint)");
    run(&e, "CREATE TABLE \"a.b\".y (id bigint)");
    seen s = {0};
    CHECK_OK(fl_ice_maintain_catalog(e.cat, true, on_table, &s, &err), &err);
    CHECK(s.n == 2 && s.failed == 0);
    CHECK(!strcmp(s.last, "2:y"));
    env_close(&e);
}

int main(void)
{
    TEST_RUN(test_compaction_policy);
    TEST_RUN(test_policy_defaults);
    TEST_RUN(test_whole_catalog);
    return TEST_EXIT();
}
