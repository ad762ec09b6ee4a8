/*
 * test_concurrency.c - optimistic concurrency across processes sharing one
 * table through the SQLite catalog.
 *
 * 1. Appends: 8 forked processes each commit 100 appends of a small real
 *    Parquet file (FLOE_CONCURRENCY_BATCHES overrides 100). Conflicts are
 *    absorbed by retries (commit.retry.num-retries is set high), so no
 *    process may fail (sanitizer builds default to 40 batches to fit the test
 *    time budget; FLOE_CONCURRENCY_BATCHES=100 runs the full load); afterwards the table has
 * exactly 8 * 100 append snapshots in one ancestry chain, total-records and a full scan agree with
 * what was written, and every id is present exactly once (sum).
 * 2. Deletes racing appends: a child appends files of group 7 on request
 *    (a pipe); the parent records deletes whose conflict filter is grp = 7,
 *    has one append land, then commits: each must fail with FL_ECONFLICT naming the
 *    conflicting file; a delete filtered on grp = 8 commits despite the
 *    appends. No appended row is lost.
 */
#include <signal.h>
#include <sys/wait.h>

#include "test.h"
#include "txn_testcat.h"
#include "txn_testdata.h"

#define NPROC 8
#define ROWS 4

static const fl_ice_kv PROPS[] = {
    {"commit.retry.num-retries", "100000"},
    {"commit.retry.min-wait-ms", "1"},
    {"commit.retry.max-wait-ms", "64"},
    {"commit.retry.total-timeout-ms", "600000"},
    {"write.metadata.delete-after-commit.enabled", "true"},
    {"write.metadata.previous-versions-max", "50"},
};

static int batches(void)
{
    const char *v = getenv("FLOE_CONCURRENCY_BATCHES");
    int dflt = TXN_TEST_SANITIZED ? 40 : 100;
    int n = v ? atoi(v) : dflt;
    return n > 0 ? n : dflt;
}

/* One appending process: returns the exit status. */
/* req_fd >= 0: commit one batch per byte read from req_fd (EOF ends), then
 * write one byte to ack_fd. */
static int appender(const char *dir, int proc, int n, int32_t grp, int req_fd, int ack_fd)
{
    fl_error err = {0};
    fl_fileio *io = fl_fileio_local();
    fl_catalog *c = NULL;
    fl_ice_table *t = NULL;
    fl_table_ident id = td_ident("t");
    if (!io || td_catalog(dir, io, &c, &err) != FL_OK ||
        fl_ice_table_load(c, &id, &t, &err) != FL_OK) {
        fprintf(stderr, "proc %d: setup: %s\n", proc, err.msg);
        return 2;
    }
    int rc = 0;
    for (int b = 0; b < n; b++) {
        char byte = 0;
        if (req_fd >= 0 && read(req_fd, &byte, 1) != 1)
            break;
        fl_arena a;
        fl_arena_init(&a, 0);
        fl_ice_data_file f;
        char *path = fl_arena_sprintf(&a, "%s/wh/db/t/data/p%d-b%d.parquet", dir, proc, b);
        int64_t first = (int64_t)proc * 1000000 + (int64_t)b * ROWS;
        fl_ice_txn *x = NULL;
        fl_status st = td_write_file(io, path, first, ROWS, grp, &a, &f, &err);
        if (st == FL_OK)
            st = fl_ice_txn_begin(t, &x, &err);
        if (st == FL_OK) {
            st = fl_ice_txn_append(x, &f, 1, &err);
            if (st == FL_OK)
                st = fl_ice_txn_commit(x, NULL, &err);
            else
                fl_ice_txn_abort(x);
        }
        fl_arena_free(&a);
        if (st != FL_OK) {
            fprintf(stderr, "proc %d batch %d: %s\n", proc, b, err.msg);
            rc = 1;
            break;
        }
        if (ack_fd >= 0 && write(ack_fd, &byte, 1) != 1) {
            rc = 1;
            break;
        }
    }
    fl_ice_table_free(t);
    fl_catalog_close(c);
    fl_fileio_destroy(io);
    return rc;
}

static void test_parallel_appends(void)
{
    char *dir = scratch_dir("conc");
    fl_error err = {0};
    fl_fileio *io = fl_fileio_local();
    fl_catalog *c = NULL;
    fl_ice_table *t = NULL;
    CHECK_OK(td_catalog(dir, io, &c, &err), &err);
    CHECK_OK(td_create(c, "t", PROPS, sizeof PROPS / sizeof PROPS[0], false, &t, &err), &err);
    fl_ice_table_free(t);
    t = NULL;
    fl_catalog_close(c);
    int n = batches();
    pid_t pids[NPROC];
    for (int p = 0; p < NPROC; p++) {
        fflush(NULL);
        pids[p] = fork();
        if (pids[p] == 0)
            _exit(appender(dir, p, n, p, -1, -1));
        CHECK(pids[p] > 0);
    }
    for (int p = 0; p < NPROC; p++) {
        int status = 0;
        CHECK(waitpid(pids[p], &status, 0) == pids[p]);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    CHECK_OK(td_catalog(dir, io, &c, &err), &err);
    fl_table_ident id = td_ident("t");
    CHECK_OK(fl_ice_table_load(c, &id, &t, &err), &err);
    if (t) {
        const fl_ice_metadata *m = &t->meta;
        CHECK_EQ_INT(m->nsnapshots, NPROC * n);
        CHECK_EQ_INT(m->last_sequence_number, NPROC * n);
        /* one chain from the head back to the first snapshot */
        const fl_ice_snapshot *s = fl_ice_metadata_current_snapshot(m);
        int chain = 0, appends = 0;
        while (s) {
            chain++;
            appends += strcmp(s->operation, "append") == 0;
            s = s->has_parent ? fl_ice_metadata_snapshot(m, s->parent_snapshot_id) : NULL;
        }
        CHECK_EQ_INT(chain, NPROC * n);
        CHECK_EQ_INT(appends, NPROC * n);
        s = fl_ice_metadata_current_snapshot(m);
        const char *tr = s ? fl_ice_map_get(&s->summary, "total-records") : NULL;
        CHECK(tr && atoll(tr) == (long long)NPROC * n * ROWS);
        int64_t rows = 0, sum = 0, want = 0;
        CHECK_OK(td_scan(io, m, &rows, &sum, &err), &err);
        for (int p = 0; p < NPROC; p++)
            for (int64_t k = 0; k < (int64_t)n * ROWS; k++)
                want += (int64_t)p * 1000000 + k;
        CHECK_EQ_INT(rows, (int64_t)NPROC * n * ROWS);
        CHECK_EQ_INT(sum, want);
        fprintf(stderr, "%d processes x %d appends: %u snapshots, %lld rows\n", NPROC, n,
                m->nsnapshots, (long long)rows);
    }
    fl_ice_table_free(t);
    fl_catalog_close(c);
    fl_fileio_destroy(io);
    rm_rf(dir);
    free(dir);
}

static void test_deletes_racing_appends(void)
{
    char *dir = scratch_dir("race");
    fl_error err = {0};
    fl_fileio *io = fl_fileio_local();
    fl_catalog *c = NULL;
    fl_ice_table *t = NULL;
    fl_arena a;
    fl_arena_init(&a, 0);
    CHECK_OK(td_catalog(dir, io, &c, &err), &err);
    CHECK_OK(td_create(c, "t", PROPS, sizeof PROPS / sizeof PROPS[0], false, &t, &err), &err);
    if (!t)
        return;
    /* seed: 3 files of group 7, one of group 8 */
    fl_ice_data_file seed[4];
    for (int i = 0; i < 4; i++) {
        char *p = fl_arena_sprintf(&a, "%s/wh/db/t/data/seed%d.parquet", dir, i);
        CHECK_OK(td_write_file(io, p, 90000000 + i * 10, 10, i < 3 ? 7 : 8, &a, &seed[i], &err),
                 &err);
    }
    fl_ice_txn *x = NULL;
    CHECK_OK(fl_ice_txn_begin(t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_append(x, seed, 4, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    int req[2], ack[2];
    CHECK(pipe(req) == 0 && pipe(ack) == 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(req[1]);
        close(ack[0]);
        _exit(appender(dir, 9, 100000, 7, req[0], ack[1]));
    }
    close(req[0]);
    close(ack[1]);
    int conflicts = 0;
    for (int round = 0; round < 4; round++) {
        bool matching = round < 3;
        fl_col_pred p = {.column = "grp",
                         .op = FL_CMP_EQ,
                         .value = {.type = {.id = FL_TYPE_INT32}, .v.i32 = matching ? 7 : 8}};
        fl_predicate filt = {1, &p};
        const char *rm[] = {seed[matching ? round : 3].file_path};
        fl_ice_row_delta d = {
            .operation = "delete", .remove_data = rm, .nremove_data = 1, .conflict_filter = &filt};
        CHECK_OK(fl_ice_table_refresh(t, &err), &err);
        CHECK_OK(fl_ice_txn_begin(t, &x, &err), &err);
        CHECK_OK(fl_ice_txn_row_delta(x, &d, &err), &err);
        /* an append of group 7 lands between our read and our commit */
        char byte = 1;
        CHECK(write(req[1], &byte, 1) == 1);
        CHECK(read(ack[0], &byte, 1) == 1);
        fl_status rc = fl_ice_txn_commit(x, NULL, &err);
        if (matching) {
            CHECK(rc == FL_ECONFLICT);
            CHECK(strstr(err.msg, "conflicting data file") != NULL);
            CHECK(strstr(err.msg, "/p9-b") != NULL);
            conflicts += rc == FL_ECONFLICT;
            if (round == 0)
                fprintf(stderr, "rejected as expected: %s\n", err.msg);
        } else {
            CHECK_OK(rc, &err);
        }
    }
    close(req[1]); /* EOF: the appender stops */
    close(ack[0]);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ_INT(conflicts, 3);
    /* every appended row is there; only the group-8 seed file went */
    CHECK_OK(fl_ice_table_refresh(t, &err), &err);
    int64_t appended = 0, want_sum = 0;
    for (const fl_ice_snapshot *s = fl_ice_metadata_current_snapshot(&t->meta); s;
         s = s->has_parent ? fl_ice_metadata_snapshot(&t->meta, s->parent_snapshot_id) : NULL)
        if (strcmp(s->operation, "append") == 0 && !(s->has_parent == false))
            appended++;
    for (int64_t b = 0; b < appended; b++)
        for (int k = 0; k < ROWS; k++)
            want_sum += 9 * 1000000LL + b * ROWS + k;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 10; k++)
            want_sum += 90000000 + i * 10 + k;
    int64_t rows = 0, sum = 0;
    CHECK_OK(td_scan(io, &t->meta, &rows, &sum, &err), &err);
    CHECK_EQ_INT(rows, 30 + appended * ROWS);
    CHECK_EQ_INT(sum, want_sum);
    fl_ice_table_free(t);
    fl_catalog_close(c);
    fl_fileio_destroy(io);
    fl_arena_free(&a);
    rm_rf(dir);
    free(dir);
}

int main(void)
{
    TEST_RUN(test_parallel_appends);
    TEST_RUN(test_deletes_racing_appends);
    return TEST_EXIT();
}
