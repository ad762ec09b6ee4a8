/*
 * test_produce.c - snapshot-producing transactions on a real table (SQLite
 * catalog, local files, Parquet data): appends (summaries, manifest
 * merging), row deltas and their validation against concurrent commits
 * (serializable vs snapshot isolation, concurrent removal), metadata-only
 * deletes, manifest rewrites, staged creates, snapshot expiry with file
 * cleanup, and orphan removal. Every table is also read back by a scan.
 */
#include "test.h"
#include "txn_testcat.h"
#include "txn_testdata.h"

typedef struct env {
    char *dir;
    fl_fileio *io;
    fl_catalog *cat;
    fl_ice_table *t;
    fl_arena a;
    int nfiles;
} env;

static const fl_ice_kv FAST_RETRY[] = {{"commit.retry.min-wait-ms", "1"},
                                       {"commit.retry.max-wait-ms", "10"}};

static int env_open(env *e, const fl_ice_kv *kv, uint32_t n)
{
    memset(e, 0, sizeof *e);
    fl_error err = {0};
    fl_arena_init(&e->a, 0);
    e->dir = scratch_dir("produce");
    e->io = fl_fileio_local();
    if (!e->dir || !e->io || td_catalog(e->dir, e->io, &e->cat, &err) != FL_OK ||
        td_create(e->cat, "t", kv, n, false, &e->t, &err) != FL_OK) {
        fprintf(stderr, "setup: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static void env_close(env *e)
{
    fl_ice_table_free(e->t);
    fl_catalog_close(e->cat);
    fl_fileio_destroy(e->io);
    fl_arena_free(&e->a);
    if (e->dir)
        rm_rf(e->dir);
    free(e->dir);
}

/* A new data file of n rows in group grp. */
static fl_ice_data_file mkfile(env *e, int64_t first, uint32_t n, int32_t grp)
{
    fl_error err = {0};
    fl_ice_data_file f = {0};
    char *p = fl_arena_sprintf(&e->a, "%s/wh/db/t/data/f%d.parquet", e->dir, e->nfiles++);
    CHECK_OK(td_write_file(e->io, p, first, n, grp, &e->a, &f, &err), &err);
    return f;
}

static fl_status append(fl_ice_table *t, const fl_ice_data_file *f, uint32_t n, int64_t *sid,
                        fl_error *err)
{
    fl_ice_txn *x = NULL;
    FL_TRY(fl_ice_txn_begin(t, &x, err));
    fl_status rc = fl_ice_txn_append(x, f, n, err);
    if (rc != FL_OK) {
        fl_ice_txn_abort(x);
        return rc;
    }
    return fl_ice_txn_commit(x, sid, err);
}

static const char *summary(const fl_ice_table *t, const char *key)
{
    const fl_ice_snapshot *s = fl_ice_metadata_current_snapshot(&t->meta);
    return s ? fl_ice_map_get(&s->summary, key) : NULL;
}

static void check_rows(env *e, int64_t rows, int64_t sum)
{
    fl_error err = {0};
    int64_t r = -1, s = -1;
    CHECK_OK(td_scan(e->io, &e->t->meta, &r, &s, &err), &err);
    CHECK_EQ_INT(r, rows);
    CHECK_EQ_INT(s, sum);
}

static uint32_t nmanifests(env *e)
{
    fl_error err = {0};
    fl_ice_manifest_file *mfs = NULL;
    uint32_t n = 0;
    const fl_ice_snapshot *s = fl_ice_metadata_current_snapshot(&e->t->meta);
    if (!s)
        return 0;
    CHECK_OK(fl_ice_snapshot_manifests(e->io, &e->t->meta, s, &e->a, &mfs, &n, &err), &err);
    return n;
}

static void test_append(void)
{
    env e;
    fl_ice_kv kv[] = {{"commit.manifest.min-count-to-merge", "3"}};
    CHECK(env_open(&e, kv, 1) == 0);
    if (!e.t)
        return;
    fl_error err = {0};
    fl_ice_data_file f[2] = {mkfile(&e, 1, 10, 1), mkfile(&e, 11, 5, 2)};
    int64_t sid = 0;
    CHECK_OK(append(e.t, f, 2, &sid, &err), &err);
    CHECK(sid > 0);
    CHECK_EQ_INT(e.t->meta.current_snapshot_id, sid);
    CHECK_EQ_INT(e.t->meta.last_sequence_number, 1);
    const fl_ice_snapshot *s = fl_ice_metadata_current_snapshot(&e.t->meta);
    CHECK_EQ_STR(s->operation, "append");
    CHECK(!s->has_parent);
    CHECK_EQ_INT(s->sequence_number, 1);
    CHECK_EQ_STR(summary(e.t, "added-data-files"), "2");
    CHECK_EQ_STR(summary(e.t, "added-records"), "15");
    CHECK_EQ_STR(summary(e.t, "total-records"), "15");
    CHECK_EQ_STR(summary(e.t, "total-data-files"), "2");
    CHECK_EQ_STR(summary(e.t, "total-delete-files"), "0");
    CHECK_EQ_STR(summary(e.t, "changed-partition-count"), "1");
    CHECK(summary(e.t, "deleted-data-files") == NULL);
    CHECK_EQ_INT(nmanifests(&e), 1);
    check_rows(&e, 15, 120);
    /* two more appends: 3 manifests; the third reaches min-count 3 and merges */
    fl_ice_data_file g = mkfile(&e, 16, 4, 1);
    CHECK_OK(append(e.t, &g, 1, &sid, &err), &err);
    CHECK_EQ_INT(nmanifests(&e), 2);
    CHECK_EQ_STR(summary(e.t, "total-records"), "19");
    fl_ice_data_file h = mkfile(&e, 20, 1, 1);
    CHECK_OK(append(e.t, &h, 1, &sid, &err), &err);
    CHECK_EQ_INT(nmanifests(&e), 1);
    s = fl_ice_metadata_current_snapshot(&e.t->meta);
    CHECK_EQ_INT(s->sequence_number, 3);
    CHECK(s->has_parent);
    CHECK_EQ_STR(summary(e.t, "total-records"), "20");
    CHECK_EQ_STR(summary(e.t, "total-data-files"), "4");
    check_rows(&e, 20, 210);
    /* fast append with merging off keeps one manifest per commit */
    fl_ice_txn *x = NULL;
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    fl_ice_kv off = {"commit.manifest-merge.enabled", "false"};
    fl_ice_map m = {1, &off};
    CHECK_OK(fl_ice_txn_set_properties(x, &m, NULL, 0, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    for (int i = 0; i < 3; i++) {
        fl_ice_data_file k = mkfile(&e, 21 + i, 1, 3);
        CHECK_OK(append(e.t, &k, 1, &sid, &err), &err);
    }
    CHECK_EQ_INT(nmanifests(&e), 4);
    check_rows(&e, 23, 210 + 21 + 22 + 23);
    /* a data file of an unknown spec is rejected when recorded */
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    fl_ice_data_file bad = h;
    bad.spec_id = 7;
    CHECK(fl_ice_txn_append(x, &bad, 1, &err) == FL_EINVAL);
    fl_ice_txn_abort(x);
    env_close(&e);
}

static void test_rebase_append(void)
{
    env e;
    CHECK(env_open(&e, FAST_RETRY, 2) == 0);
    if (!e.t)
        return;
    fl_error err = {0};
    fl_table_ident id = td_ident("t");
    fl_ice_table *t2 = NULL;
    CHECK_OK(fl_ice_table_load(e.cat, &id, &t2, &err), &err);
    fl_ice_data_file a = mkfile(&e, 1, 3, 1), b = mkfile(&e, 4, 3, 1);
    fl_ice_txn *x = NULL;
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_append(x, &a, 1, &err), &err);
    int64_t sid2 = 0, sid1 = 0;
    CHECK_OK(append(t2, &b, 1, &sid2, &err), &err); /* lands first */
    CHECK_OK(fl_ice_txn_commit(x, &sid1, &err), &err);
    const fl_ice_snapshot *s = fl_ice_metadata_current_snapshot(&e.t->meta);
    CHECK_EQ_INT(s->snapshot_id, sid1);
    CHECK(s->has_parent && s->parent_snapshot_id == sid2);
    CHECK_EQ_INT(s->sequence_number, 2);
    CHECK_EQ_STR(summary(e.t, "total-records"), "6");
    check_rows(&e, 6, 21);
    fl_ice_table_free(t2);
    env_close(&e);
}

static void test_row_delta(void)
{
    env e;
    CHECK(env_open(&e, FAST_RETRY, 2) == 0);
    if (!e.t)
        return;
    fl_error err = {0};
    fl_ice_data_file f[2] = {mkfile(&e, 1, 10, 1), mkfile(&e, 11, 10, 2)};
    int64_t sid = 0;
    CHECK_OK(append(e.t, f, 2, &sid, &err), &err);
    /* overwrite: replace f0 by a smaller file */
    fl_ice_data_file g = mkfile(&e, 1, 5, 1);
    const char *rm[] = {f[0].file_path};
    fl_ice_row_delta d = {.operation = "overwrite",
                          .add_data = &g,
                          .nadd_data = 1,
                          .remove_data = rm,
                          .nremove_data = 1};
    fl_ice_txn *x = NULL;
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_row_delta(x, &d, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, &sid, &err), &err);
    const fl_ice_snapshot *s = fl_ice_metadata_current_snapshot(&e.t->meta);
    CHECK_EQ_STR(s->operation, "overwrite");
    CHECK_EQ_STR(summary(e.t, "added-data-files"), "1");
    CHECK_EQ_STR(summary(e.t, "deleted-data-files"), "1");
    CHECK_EQ_STR(summary(e.t, "deleted-records"), "10");
    CHECK_EQ_STR(summary(e.t, "total-records"), "15");
    CHECK_EQ_STR(summary(e.t, "total-data-files"), "2");
    check_rows(&e, 15, 15 + 155);
    /* removing a file that is gone is a conflict naming it */
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    d.nadd_data = 0;
    CHECK_OK(fl_ice_txn_row_delta(x, &d, &err), &err);
    CHECK(fl_ice_txn_commit(x, NULL, &err) == FL_ECONFLICT);
    CHECK(strstr(err.msg, "f0.parquet") != NULL);
    /* the data of the failed txn is untouched, the table unchanged */
    check_rows(&e, 15, 170);
    env_close(&e);
}

static fl_col_pred grp_eq(int32_t v)
{
    fl_col_pred p = {
        .column = "grp", .op = FL_CMP_EQ, .value = {.type = {.id = FL_TYPE_INT32}, .v.i32 = v}};
    return p;
}

static void test_validation(void)
{
    env e;
    CHECK(env_open(&e, FAST_RETRY, 2) == 0);
    if (!e.t)
        return;
    fl_error err = {0};
    fl_table_ident id = td_ident("t");
    fl_ice_data_file f[2] = {mkfile(&e, 1, 10, 1), mkfile(&e, 11, 10, 2)};
    int64_t sid = 0;
    CHECK_OK(append(e.t, f, 2, &sid, &err), &err);
    fl_ice_table *t2 = NULL;
    CHECK_OK(fl_ice_table_load(e.cat, &id, &t2, &err), &err);

    /* a delete of grp = 1 races an append of grp = 1: serializable rejects it */
    fl_col_pred p1 = grp_eq(1);
    fl_predicate filt = {1, &p1};
    const char *rm[] = {f[0].file_path};
    fl_ice_row_delta d = {
        .operation = "delete", .remove_data = rm, .nremove_data = 1, .conflict_filter = &filt};
    fl_ice_txn *x = NULL;
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_row_delta(x, &d, &err), &err);
    fl_ice_data_file n1 = mkfile(&e, 100, 1, 1);
    CHECK_OK(append(t2, &n1, 1, &sid, &err), &err);
    int before = count_files(fl_arena_sprintf(&e.a, "%s/wh/db/t/metadata", e.dir), ".avro");
    CHECK(fl_ice_txn_commit(x, NULL, &err) == FL_ECONFLICT);
    CHECK(strstr(err.msg, "conflicting data file") != NULL);
    CHECK(strstr(err.msg, n1.file_path) != NULL);
    /* nothing of the failed txn stays behind */
    CHECK_EQ_INT(count_files(fl_arena_sprintf(&e.a, "%s/wh/db/t/metadata", e.dir), ".avro"),
                 before);
    /* the same race with an append of grp = 2 is no conflict */
    CHECK_OK(fl_ice_table_refresh(e.t, &err), &err);
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_row_delta(x, &d, &err), &err);
    fl_ice_data_file n2 = mkfile(&e, 200, 1, 2);
    CHECK_OK(fl_ice_table_refresh(t2, &err), &err);
    CHECK_OK(append(t2, &n2, 1, &sid, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, &sid, &err), &err);
    check_rows(&e, 12, 155 + 100 + 200);

    /* snapshot isolation ignores new matching data... */
    fl_ice_txn *y = NULL;
    CHECK_OK(fl_ice_txn_begin(e.t, &y, &err), &err);
    fl_ice_kv iso = {"write.delete.isolation-level", "snapshot"};
    fl_ice_map im = {1, &iso};
    CHECK_OK(fl_ice_txn_set_properties(y, &im, NULL, 0, &err), &err);
    CHECK_OK(fl_ice_txn_commit(y, NULL, &err), &err);
    const char *rm2[] = {n1.file_path};
    d.remove_data = rm2;
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_row_delta(x, &d, &err), &err);
    fl_ice_data_file n3 = mkfile(&e, 300, 1, 1);
    CHECK_OK(fl_ice_table_refresh(t2, &err), &err);
    CHECK_OK(append(t2, &n3, 1, &sid, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    check_rows(&e, 12, 155 + 200 + 300);
    /* ...but not a concurrent removal of the same file */
    const char *rm3[] = {n3.file_path};
    d.remove_data = rm3;
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_row_delta(x, &d, &err), &err);
    CHECK_OK(fl_ice_table_refresh(t2, &err), &err);
    CHECK_OK(fl_ice_txn_begin(t2, &y, &err), &err);
    CHECK_OK(fl_ice_txn_row_delta(y, &d, &err), &err);
    CHECK_OK(fl_ice_txn_commit(y, NULL, &err), &err);
    CHECK(fl_ice_txn_commit(x, NULL, &err) == FL_ECONFLICT);
    CHECK(strstr(err.msg, "already removed by concurrent snapshot") != NULL);
    check_rows(&e, 11, 155 + 200);
    fl_ice_table_free(t2);
    env_close(&e);
}

static void test_delete_where_and_rewrite(void)
{
    env e;
    CHECK(env_open(&e, FAST_RETRY, 2) == 0);
    if (!e.t)
        return;
    fl_error err = {0};
    int64_t sid = 0;
    for (int i = 0; i < 4; i++) {
        fl_ice_data_file f = mkfile(&e, 1 + 10 * i, 10, i % 2);
        CHECK_OK(append(e.t, &f, 1, &sid, &err), &err);
    }
    CHECK_EQ_INT(nmanifests(&e), 4);
    fl_ice_txn *x = NULL;
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_rewrite_manifests(x, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    CHECK_EQ_INT(nmanifests(&e), 1);
    CHECK_EQ_STR(fl_ice_metadata_current_snapshot(&e.t->meta)->operation, "replace");
    CHECK_EQ_STR(summary(e.t, "manifests-replaced"), "4");
    CHECK_EQ_STR(summary(e.t, "manifests-created"), "1");
    CHECK_EQ_STR(summary(e.t, "total-records"), "40");
    check_rows(&e, 40, 820);
    /* delete grp = 1 by metadata: files 2 and 4 (ids 11..20, 31..40) */
    fl_col_pred p = grp_eq(1);
    fl_predicate filt = {1, &p};
    uint64_t removed = 0, partial = 9;
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_delete_files_where(x, &filt, &removed, &partial, &err), &err);
    CHECK_EQ_INT(removed, 2);
    CHECK_EQ_INT(partial, 0);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    CHECK_EQ_STR(fl_ice_metadata_current_snapshot(&e.t->meta)->operation, "delete");
    CHECK_EQ_STR(summary(e.t, "deleted-data-files"), "2");
    CHECK_EQ_STR(summary(e.t, "total-records"), "20");
    check_rows(&e, 20, 55 + 255);
    env_close(&e);
}

static void test_staged_create(void)
{
    env e;
    CHECK(env_open(&e, NULL, 0) == 0);
    if (!e.t)
        return;
    fl_error err = {0};
    fl_ice_table *st = NULL;
    CHECK_OK(td_create(e.cat, "ctas", NULL, 0, true, &st, &err), &err);
    if (!st) {
        env_close(&e);
        return;
    }
    CHECK(st->staged);
    fl_table_ident id = td_ident("ctas");
    fl_ice_table *probe = NULL;
    CHECK(fl_ice_table_load(e.cat, &id, &probe, &err) == FL_ENOTFOUND);
    fl_ice_data_file f = mkfile(&e, 1, 7, 1);
    int64_t sid = 0;
    CHECK_OK(append(st, &f, 1, &sid, &err), &err);
    CHECK(!st->staged);
    CHECK_OK(fl_ice_table_load(e.cat, &id, &probe, &err), &err);
    if (probe) {
        CHECK_EQ_INT(probe->meta.current_snapshot_id, sid);
        int64_t r = 0, s = 0;
        CHECK_OK(td_scan(e.io, &probe->meta, &r, &s, &err), &err);
        CHECK_EQ_INT(r, 7);
    }
    fl_ice_table_free(probe);
    fl_ice_table_free(st);
    env_close(&e);
}

static void count_path(void *ctx, const char *path)
{
    (void)path;
    (*(int *)ctx)++;
}

static void test_expire_and_orphans(void)
{
    env e;
    CHECK(env_open(&e, FAST_RETRY, 2) == 0);
    if (!e.t)
        return;
    fl_error err = {0};
    int64_t sid = 0;
    fl_ice_data_file f[3];
    for (int i = 0; i < 3; i++) {
        f[i] = mkfile(&e, 1 + 10 * i, 10, 1);
        CHECK_OK(append(e.t, &f[i], 1, &sid, &err), &err);
    }
    int64_t first = e.t->meta.snapshots[0].snapshot_id;
    const char *old_list = fl_arena_strdup(&e.a, e.t->meta.snapshots[0].manifest_list);
    const char *rm[] = {f[0].file_path};
    fl_ice_row_delta d = {.operation = "delete", .remove_data = rm, .nremove_data = 1};
    fl_ice_txn *x = NULL;
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_row_delta(x, &d, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, &sid, &err), &err);
    /* a tag keeps the first snapshot alive */
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_create_ref(x, "keep", true, first, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    fl_ice_expire_result r;
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_expire_snapshots(x, txn_now_ms_test(), 1, &r, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    CHECK_EQ_INT(r.snapshots_expired, 2);
    CHECK_EQ_INT(e.t->meta.nsnapshots, 2);
    CHECK(fl_ice_metadata_snapshot(&e.t->meta, first) != NULL);
    CHECK(access(f[0].file_path, F_OK) == 0); /* the tag still needs it */
    CHECK(access(old_list, F_OK) == 0);
    CHECK_EQ_INT(r.data_files_deleted, 0);
    CHECK_EQ_INT(r.manifest_lists_deleted, 2);
    check_rows(&e, 20, 155 + 255);
    /* dropping the tag and expiring again frees f0 */
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_remove_ref(x, "keep", &err), &err);
    CHECK_OK(fl_ice_txn_expire_snapshots(x, txn_now_ms_test(), 1, &r, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    CHECK_EQ_INT(r.snapshots_expired, 1);
    CHECK_EQ_INT(r.data_files_deleted, 1);
    CHECK(access(f[0].file_path, F_OK) != 0);
    CHECK(access(old_list, F_OK) != 0);
    CHECK(access(f[1].file_path, F_OK) == 0);
    check_rows(&e, 20, 155 + 255);
    /* orphans: a stray data file and a stray manifest go, nothing else */
    fl_ice_data_file stray = mkfile(&e, 1000, 2, 1);
    char *mstray = fl_arena_sprintf(&e.a, "%s/wh/db/t/metadata/stray-m0.avro", e.dir);
    fl_output *o = NULL;
    CHECK_OK(fl_fileio_create(e.io, mstray, 0, &o, &err), &err);
    CHECK_OK(fl_output_close(o, &err), &err);
    int seen = 0;
    uint64_t count = 0;
    CHECK_OK(fl_ice_remove_orphan_files(e.t, -1, false, count_path, &seen, &count, &err), &err);
    CHECK_EQ_INT(count, 0); /* too young by default */
    CHECK_OK(fl_ice_remove_orphan_files(e.t, txn_now_ms_test() + 60000, true, count_path, &seen,
                                        &count, &err),
             &err);
    CHECK_EQ_INT(count, 2);
    CHECK(access(stray.file_path, F_OK) == 0); /* dry run */
    CHECK_OK(
        fl_ice_remove_orphan_files(e.t, txn_now_ms_test() + 60000, false, NULL, NULL, &count, &err),
        &err);
    CHECK_EQ_INT(count, 2);
    CHECK(access(stray.file_path, F_OK) != 0);
    CHECK(access(mstray, F_OK) != 0);
    CHECK(access(f[1].file_path, F_OK) == 0);
    check_rows(&e, 20, 155 + 255);
    env_close(&e);
}

int main(void)
{
    TEST_RUN(test_append);
    TEST_RUN(test_rebase_append);
    TEST_RUN(test_row_delta);
    TEST_RUN(test_validation);
    TEST_RUN(test_delete_where_and_rewrite);
    TEST_RUN(test_staged_create);
    TEST_RUN(test_expire_and_orphans);
    return TEST_EXIT();
}
