/*
 * test_s3_table.c - Iceberg tables whose warehouse is on S3, end to end
 * through the library (catalog, transactions, data writer, fl_fileio_default).
 *
 * Run by tests/interop/test_s3.sh against the strict fake S3; bare it exits
 * 77. Environment as test_s3_live.c plus FLOE_TEST_S3_WORKDIR (a local
 * scratch folder for the SQLite catalog).
 *
 * 1. SQLite catalog, warehouse s3://<bucket>/wh-<pid>: create a table
 *    partitioned by bucket(id, 4), append 1000 rows, append 500 more; the
 *    reloaded table has 2 snapshots, total-records 1500, and its data files
 *    are on S3 (listed there). The metadata location is printed
 *    ("METADATA <path>") so the script can read the table with the CLI.
 * 2. Filesystem catalog on S3 (s3://<bucket>/fswh-<pid>): the commit is the
 *    exclusive creation of v<N+1>.metadata.json, i.e. If-None-Match: * on S3.
 *    Two threads with their own catalogs each append 5 times concurrently;
 *    losers of a race get FL_EEXIST -> conflict -> retry, so all 10 commits
 *    land and the table ends with 10 snapshots and 10 * 20 rows.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "floe/catalog.h"
#include "floe/ice_table.h"
#include "floe/s3.h"
#include "test.h"

static const char *bucket;
static fl_fileio *g_io;

static fl_field g_fields[2] = {
    {.name = "id", .nullable = false, .type = {.id = FL_TYPE_INT64}},
    {.name = "name", .nullable = true, .type = {.id = FL_TYPE_STRING}},
};
static fl_schema g_schema = {2, g_fields, 0};

static const fl_ice_kv RETRY_PROPS[] = {
    {"commit.retry.num-retries", "1000"},
    {"commit.retry.min-wait-ms", "1"},
    {"commit.retry.max-wait-ms", "50"},
};

/* One transaction appending ids [start, start+n). */
static fl_status append_rows(fl_ice_table *t, int64_t start, int n, fl_error *err)
{
    fl_ice_txn *x = NULL;
    FL_TRY(fl_ice_txn_begin(t, &x, err));
    fl_ice_data_writer *w = NULL;
    fl_status rc = fl_ice_data_writer_open(x, &w, err);
    fl_batch b;
    bool have_batch = false;
    if (rc == FL_OK)
        have_batch = (rc = fl_batch_init(&b, fl_ice_data_writer_schema(w), err)) == FL_OK;
    for (int k = 0; rc == FL_OK && k < n; k++) {
        int64_t id = start + k;
        char s[32];
        int l = snprintf(s, sizeof s, "name %lld", (long long)id);
        rc = fl_vector_append_fixed(&b.cols[0], &id, err);
        if (rc == FL_OK)
            rc = fl_vector_append_bytes(&b.cols[1], s, (size_t)l, err);
    }
    if (rc == FL_OK) {
        b.nrows = (uint32_t)n;
        rc = fl_ice_data_writer_write(w, &b, err);
    }
    fl_ice_data_file *files = NULL;
    uint32_t nfiles = 0;
    if (rc == FL_OK) {
        rc = fl_ice_data_writer_close(w, &files, &nfiles, err);
        w = NULL;
    }
    fl_ice_data_writer_abort(w);
    if (have_batch)
        fl_batch_destroy(&b);
    if (rc == FL_OK)
        rc = fl_ice_txn_append(x, files, nfiles, err);
    if (rc == FL_OK)
        return fl_ice_txn_commit(x, NULL, err);
    fl_ice_txn_abort(x);
    return rc;
}

static fl_status count_fn(void *ctx, const char *path, uint64_t size)
{
    if (strstr(path, ".parquet") && size > 0)
        (*(int *)ctx)++;
    return FL_OK;
}

static int64_t total_records(const fl_ice_table *t)
{
    for (uint32_t i = 0; i < t->meta.nsnapshots; i++)
        if (t->meta.snapshots[i].snapshot_id == t->meta.current_snapshot_id) {
            const char *v = fl_ice_map_get(&t->meta.snapshots[i].summary, "total-records");
            return v ? atoll(v) : -1;
        }
    return -1;
}

static void test_sqlite_catalog(void)
{
    const char *work = getenv("FLOE_TEST_S3_WORKDIR");
    char db[1024], wh[256];
    snprintf(db, sizeof db, "%s/catalog-%ld.db", work ? work : "/tmp", (long)getpid());
    snprintf(wh, sizeof wh, "s3://%s/wh-%ld", bucket, (long)getpid());
    fl_error err;
    fl_catalog *cat = NULL;
    CHECK_OK(fl_catalog_sqlite_open(db, "floe", wh, g_io, &cat, &err), &err);
    if (!cat)
        return;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_namespace ns;
    fl_table_ident id;
    CHECK_OK(fl_namespace_parse("db", &a, &ns, &err), &err);
    CHECK_OK(fl_table_ident_parse("db.events", &a, &id, &err), &err);
    CHECK_OK(cat->ops->create_namespace(cat, &ns, NULL, &err), &err);
    const char *parts[1] = {"bucket(id, 4)"};
    fl_ice_create_options o = {.schema = &g_schema, .partition_by = parts, .npartition_by = 1};
    fl_ice_table *t = NULL;
    CHECK_OK(fl_ice_table_create(cat, &id, &o, &t, &err), &err);
    if (t) {
        CHECK(strncmp(t->metadata_location, wh, strlen(wh)) == 0);
        CHECK_OK(append_rows(t, 0, 1000, &err), &err);
        fl_ice_table_free(t);
        t = NULL;
    }
    CHECK_OK(fl_ice_table_load(cat, &id, &t, &err), &err);
    if (t) {
        CHECK_OK(append_rows(t, 1000, 500, &err), &err);
        CHECK_OK(fl_ice_table_refresh(t, &err), &err);
        CHECK_EQ_INT(t->meta.nsnapshots, 2);
        CHECK_EQ_INT(total_records(t), 1500);
        printf("METADATA %s\n", t->metadata_location);
        fflush(stdout);
        fl_ice_table_free(t);
    }
    int nfiles = 0;
    char data[300];
    snprintf(data, sizeof data, "%s/db/events/data/", wh);
    CHECK_OK(g_io->ops->list(g_io, data, count_fn, &nfiles, &err), &err);
    CHECK(nfiles >= 4); /* 4 buckets, at least one file each per append */
    fl_catalog_close(cat);
    fl_arena_free(&a);
    unlink(db);
}

typedef struct appender {
    const char *wh;
    int which, failures;
} appender;

static void *append_thread(void *p)
{
    appender *ap = p;
    fl_error err;
    fl_catalog *cat = NULL;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_table_ident id;
    if (fl_catalog_fs_open(ap->wh, g_io, &cat, &err) != FL_OK ||
        fl_table_ident_parse("db.t", &a, &id, &err) != FL_OK) {
        ap->failures = 5;
        fprintf(stderr, "appender %d: %s\n", ap->which, err.msg);
    }
    for (int i = 0; cat && i < 5; i++) {
        fl_ice_table *t = NULL;
        fl_status rc = fl_ice_table_load(cat, &id, &t, &err);
        if (rc == FL_OK)
            rc = append_rows(t, (int64_t)(ap->which * 5 + i) * 20, 20, &err);
        if (rc != FL_OK) {
            fprintf(stderr, "appender %d, append %d: %s\n", ap->which, i, err.msg);
            ap->failures++;
        }
        fl_ice_table_free(t);
    }
    fl_catalog_close(cat);
    fl_arena_free(&a);
    return NULL;
}

static void test_fs_catalog_race(void)
{
    char wh[256];
    snprintf(wh, sizeof wh, "s3://%s/fswh-%ld", bucket, (long)getpid());
    fl_error err;
    fl_catalog *cat = NULL;
    CHECK_OK(fl_catalog_fs_open(wh, g_io, &cat, &err), &err);
    if (!cat)
        return;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_namespace ns;
    fl_table_ident id;
    CHECK_OK(fl_namespace_parse("db", &a, &ns, &err), &err);
    CHECK_OK(fl_table_ident_parse("db.t", &a, &id, &err), &err);
    fl_status nrc = cat->ops->create_namespace(cat, &ns, NULL, &err);
    CHECK(nrc == FL_OK || nrc == FL_EEXIST);
    fl_ice_map props = {sizeof RETRY_PROPS / sizeof *RETRY_PROPS, (fl_ice_kv *)RETRY_PROPS};
    fl_ice_create_options o = {.schema = &g_schema, .properties = &props};
    fl_ice_table *t = NULL;
    CHECK_OK(fl_ice_table_create(cat, &id, &o, &t, &err), &err);
    fl_ice_table_free(t);
    t = NULL;
    appender ap[2] = {{wh, 0, 0}, {wh, 1, 0}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, append_thread, &ap[i]);
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ_INT(ap[i].failures, 0);
    }
    CHECK_OK(fl_ice_table_load(cat, &id, &t, &err), &err);
    if (t) {
        CHECK_EQ_INT(t->meta.nsnapshots, 10);
        CHECK_EQ_INT(total_records(t), 200);
        printf("FSMETADATA %s\n", t->metadata_location);
        fflush(stdout);
        fl_ice_table_free(t);
    }
    fl_catalog_close(cat);
    fl_arena_free(&a);
}

int main(void)
{
    const char *ep = getenv("FLOE_TEST_S3_ENDPOINT");
    bucket = getenv("FLOE_TEST_S3_BUCKET");
    if (!ep || !*ep || !bucket || !*bucket) {
        printf("skipped: FLOE_TEST_S3_ENDPOINT not set (run tests/interop/test_s3.sh)\n");
        return 77;
    }
    fl_error err;
    if (fl_fileio_default(NULL, &g_io, &err) != FL_OK) { /* S3 from the environment */
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    TEST_RUN(test_sqlite_catalog);
    TEST_RUN(test_fs_catalog_race);
    fl_fileio_destroy(g_io);
    return TEST_EXIT();
}
