/*
 * test_e2e.c - the catalogs under the real table code: fl_ice_table_create,
 * transactions committing through new_metadata_path/commit_table (with
 * 4 processes racing property commits, retried by fl_ice_txn_commit),
 * refresh, and drop with purge - on the SQLite and the filesystem catalog,
 * and on PostgreSQL when FLOE_TEST_PG_URL is set (the interop script
 * tests/interop/test_catalog_postgres.sh does that).
 */
#include <sys/wait.h>
#include <unistd.h>

#include "floe/ice_table.h"
#include "floe_test.h"

#define PROCS 4
#define COMMITS 10

enum { M_SQLITE, M_FS, M_PG };

static char g_dir[256];
static char g_pg_name[64];
static fl_fileio *g_io;

static fl_catalog *open_cat(int mode)
{
    char p[400];
    fl_catalog *c = NULL;
    fl_error err;
    fl_status rc;
    if (mode == M_PG) {
        snprintf(p, sizeof p, "%s/pgwh", g_dir);
        rc = fl_catalog_postgres_open(getenv("FLOE_TEST_PG_URL"), g_pg_name, p, g_io, &c, &err);
    } else if (mode == M_FS) {
        snprintf(p, sizeof p, "%s/fswh", g_dir);
        rc = fl_catalog_fs_open(p, g_io, &c, &err);
    } else {
        snprintf(p, sizeof p, "%s/e2e.db", g_dir);
        char wh[400];
        snprintf(wh, sizeof wh, "%s/sqlwh", g_dir);
        rc = fl_catalog_sqlite_open(p, NULL, wh, g_io, &c, &err);
    }
    if (rc != FL_OK)
        fprintf(stderr, "open catalog: %s\n", err.msg);
    return c;
}

/* One process: COMMITS property commits "k<who>_<i>" on db.t, each its own txn. */
static int child(int mode, int who)
{
    fl_catalog *c = open_cat(mode);
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_table_ident id;
    if (!c || fl_table_ident_parse("db.t", &a, &id, &err) != FL_OK)
        return 2;
    fl_ice_table *t;
    if (fl_ice_table_load(c, &id, &t, &err) != FL_OK) {
        fprintf(stderr, "child load: %s\n", err.msg);
        return 3;
    }
    int ok = 0;
    for (int i = 0; i < COMMITS; i++) {
        char key[32];
        snprintf(key, sizeof key, "k%d_%d", who, i);
        fl_ice_kv kv = {key, "v"};
        fl_ice_map set = {1, &kv};
        fl_ice_txn *x;
        fl_status rc = fl_ice_txn_begin(t, &x, &err);
        if (rc == FL_OK)
            rc = fl_ice_txn_set_properties(x, &set, NULL, 0, &err);
        if (rc == FL_OK)
            rc = fl_ice_txn_commit(x, NULL, &err);
        else
            fl_ice_txn_abort(x);
        if (rc != FL_OK)
            fprintf(stderr, "child %d commit %d: %s\n", who, i, err.msg);
        else
            ok++;
    }
    fl_ice_table_free(t);
    fl_catalog_close(c);
    fl_arena_free(&a);
    return ok == COMMITS ? 0 : 1;
}

static void create_table(fl_catalog *c, fl_arena *a, fl_table_ident *id)
{
    fl_error err;
    fl_namespace ns;
    CHECK_OK(fl_namespace_parse("db", a, &ns, &err), &err);
    CHECK_OK(c->ops->create_namespace(c, &ns, NULL, &err), &err);
    CHECK_OK(fl_table_ident_parse("db.t", a, id, &err), &err);
    static fl_field f[2];
    f[0] = (fl_field){.name = "id", .nullable = false, .type = {.id = FL_TYPE_INT64}};
    f[1] = (fl_field){.name = "name", .nullable = true, .type = {.id = FL_TYPE_STRING}};
    fl_schema s = {2, f, 0};
    fl_ice_kv props[] = {{"commit.retry.num-retries", "100"},
                         {"commit.retry.min-wait-ms", "1"},
                         {"commit.retry.max-wait-ms", "20"},
                         {"write.metadata.previous-versions-max", "1000"}};
    fl_ice_map pm = {4, props};
    fl_ice_create_options opt = {.schema = &s, .properties = &pm};
    fl_ice_table *t = NULL;
    CHECK_OK(fl_ice_table_create(c, id, &opt, &t, &err), &err);
    fl_ice_table_free(t);
}

static void run(int mode)
{
    fl_catalog *c = open_cat(mode);
    CHECK(c != NULL);
    if (!c)
        return;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_table_ident id;
    create_table(c, &a, &id);
    fl_ice_table *t = NULL;
    CHECK_OK(fl_ice_table_load(c, &id, &t, &err), &err);
    if (!t)
        goto out;
    const char *first = fl_arena_strdup(&a, t->metadata_location);
    fflush(NULL);
    pid_t pids[PROCS];
    for (int i = 0; i < PROCS; i++)
        if ((pids[i] = fork()) == 0)
            _exit(child(mode, i));
    for (int i = 0; i < PROCS; i++) {
        int st = 0;
        waitpid(pids[i], &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    CHECK_OK(fl_ice_table_refresh(t, &err), &err);
    CHECK(strcmp(first, t->metadata_location) != 0);
    for (int w = 0; w < PROCS; w++)
        for (int i = 0; i < COMMITS; i++) {
            char key[32];
            snprintf(key, sizeof key, "k%d_%d", w, i);
            CHECK(fl_ice_map_get(&t->meta.properties, key) != NULL);
        }
    /* every commit appended one metadata-log entry: a single chain of 40 */
    CHECK_EQ_INT(t->meta.nmetadata_log, PROCS * COMMITS);
    if (t->meta.nmetadata_log > 0)
        CHECK_EQ_STR(t->meta.metadata_log[0].metadata_file, first);
    if (mode == M_FS)
        CHECK(strstr(t->metadata_location, "/db/t/metadata/v41.metadata.json") != NULL);
    else
        CHECK(strstr(t->metadata_location, "/db/t/metadata/00040-") != NULL);
    const char *loc = fl_arena_strdup(&a, t->metadata_location);
    fl_ice_table_free(t);
    CHECK_OK(fl_ice_table_drop(c, &id, true, &err), &err);
    CHECK(access(loc, F_OK) != 0);
    CHECK(access(first, F_OK) != 0);
    fl_ice_table *gone;
    CHECK_EQ_INT(fl_ice_table_load(c, &id, &gone, &err), FL_ENOTFOUND);
out:
    fl_catalog_close(c);
    fl_arena_free(&a);
}

static void test_sqlite(void)
{
    run(M_SQLITE);
}
static void test_fs(void)
{
    run(M_FS);
}
static void test_postgres(void)
{
    run(M_PG);
}

int main(void)
{
    if (!ft_tmpdir(g_dir, sizeof g_dir, "floe-test-e2e"))
        return 1;
    g_io = fl_fileio_local();
    TEST_RUN(test_sqlite);
    TEST_RUN(test_fs);
    const char *pg = getenv("FLOE_TEST_PG_URL");
    snprintf(g_pg_name, sizeof g_pg_name, "e2e_%d", (int)getpid());
    if (pg && *pg)
        TEST_RUN(test_postgres);
    else
        fprintf(stderr, "postgres part skipped: no FLOE_TEST_PG_URL\n");
    fl_fileio_destroy(g_io);
    ft_rmtree(g_dir);
    return TEST_EXIT();
}
