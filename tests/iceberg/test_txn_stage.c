/*
 * test_txn_stage.c - the staging API of ice_table.h ("2b. staging") that SQL
 * transaction blocks use: statement txns adopted by a combined txn
 * (fl_ice_txn_adopt, fl_ice_txn_begin_like), incremental previews written
 * as private metadata files that the catalog never points at
 * (fl_ice_txn_preview), savepoint marks (fl_ice_txn_get_mark /
 * fl_ice_txn_truncate), and the final commit of what is left.
 */
#include "test.h"
#include "txn_testcat.h"

static const char *META_FMT =
    "{\"format-version\":2,\"table-uuid\":\"1b7c3f0e-5d2a-4c8e-9f61-2a4b6c8d0e1f\","
    "\"location\":\"%s\",\"last-sequence-number\":0,\"last-updated-ms\":1000,"
    "\"last-column-id\":1,\"current-schema-id\":0,"
    "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}],"
    "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],"
    "\"last-partition-id\":999,\"default-sort-order-id\":0,"
    "\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],\"properties\":{},"
    "\"current-snapshot-id\":-1,\"refs\":{},\"snapshots\":[],\"snapshot-log\":[],"
    "\"metadata-log\":[]}";

typedef struct noted {
    char *paths[16];
    int n;
} noted;

static fl_status note(void *ctx, const char *path, fl_error *err)
{
    noted *nt = ctx;
    if (nt->n >= 16)
        return fl_errorf(err, FL_ELIMIT, "too many preview files");
    nt->paths[nt->n++] = strdup(path);
    return FL_OK;
}

/* A statement txn on t that sets property k=v. */
static fl_ice_txn *stmt_set(fl_ice_table *t, const char *k, const char *v)
{
    fl_error err = {0};
    fl_ice_txn *x = NULL;
    CHECK_OK(fl_ice_txn_begin(t, &x, &err), &err);
    if (!x)
        return NULL;
    fl_ice_kv kv = {k, v};
    fl_ice_map m = {1, &kv};
    CHECK_OK(fl_ice_txn_set_properties(x, &m, NULL, 0, &err), &err);
    return x;
}

static bool exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static void test_adopt_preview_truncate(void)
{
    fl_error err = {0};
    char *dir = scratch_dir("stage");
    fl_fileio *io = fl_fileio_local();
    CHECK(dir && io);
    if (!dir || !io)
        return;
    char *json = malloc(strlen(META_FMT) + strlen(dir) + 1);
    sprintf(json, META_FMT, dir);
    char *loc = write_initial(io, dir, json, &err);
    free(json);
    CHECK(loc != NULL);
    memcat cat = {.base = {.ops = &MEMCAT_OPS, .io = io}};
    snprintf(cat.location, sizeof cat.location, "%s", loc ? loc : "");
    fl_ice_table *t = loc ? table_at(&cat.base, io, loc, &err) : NULL;
    CHECK(t != NULL);
    if (!t)
        goto out;

    /* statement 1 sets a=1: adopted by a combined txn begun like it */
    fl_ice_txn *s1 = stmt_set(t, "a", "1"), *x = NULL;
    CHECK_EQ_INT(fl_ice_txn_nops(s1), 1);
    CHECK_OK(fl_ice_txn_begin_like(t, s1, &x, &err), &err);
    CHECK_OK(fl_ice_txn_adopt(x, s1, &err), &err);
    CHECK_EQ_INT(fl_ice_txn_nops(x), 1);

    noted nt = {0};
    fl_arena a1, a2;
    fl_arena_init(&a1, 0);
    fl_arena_init(&a2, 0);
    fl_ice_preview p1, p2;
    CHECK_OK(fl_ice_txn_preview(x, 0, &t->meta, t->metadata_location, note, &nt, &a1, &p1, &err),
             &err);
    CHECK(p1.location && strstr(p1.location, "/metadata/floe-staged-") != NULL);
    CHECK_EQ_INT(p1.snapshot_id, -1); /* properties make no snapshot */
    CHECK_EQ_STR(fl_ice_map_get(&p1.meta.properties, "a"), "1");
    CHECK(p1.location && exists(p1.location));
    /* the preview file went through the callback; the catalog did not move */
    CHECK_EQ_INT(nt.n, 1);
    CHECK(nt.n == 1 && p1.location && !strcmp(nt.paths[0], p1.location));
    CHECK_EQ_STR(cat.location, loc);
    CHECK(fl_ice_map_get(&t->meta.properties, "a") == NULL);

    /* savepoint, then statement 2 sets b=2: its preview builds on p1 only */
    fl_ice_txn_mark m = fl_ice_txn_get_mark(x);
    CHECK_OK(fl_ice_txn_adopt(x, stmt_set(t, "b", "2"), &err), &err);
    CHECK_EQ_INT(fl_ice_txn_nops(x), 2);
    CHECK_OK(fl_ice_txn_preview(x, 1, &p1.meta, p1.location, note, &nt, &a2, &p2, &err), &err);
    CHECK_EQ_STR(fl_ice_map_get(&p2.meta.properties, "a"), "1");
    CHECK_EQ_STR(fl_ice_map_get(&p2.meta.properties, "b"), "2");
    CHECK_EQ_INT(nt.n, 2);
    /* nothing new to build: no file */
    fl_ice_preview p3;
    CHECK_OK(fl_ice_txn_preview(x, 2, &p2.meta, p2.location, note, &nt, &a2, &p3, &err), &err);
    CHECK(p3.location == NULL);
    CHECK_EQ_INT(nt.n, 2);

    /* ROLLBACK TO the savepoint drops b; the commit has a only */
    fl_ice_txn_truncate(x, m);
    CHECK_EQ_INT(fl_ice_txn_nops(x), 1);
    fl_ice_txn_mark now = fl_ice_txn_get_mark(x);
    CHECK(!memcmp(&now, &m, sizeof m));
    int64_t sid = 0;
    CHECK_OK(fl_ice_txn_commit(x, &sid, &err), &err);
    CHECK(strcmp(cat.location, loc) != 0);
    CHECK(strstr(cat.location, "floe-staged-") == NULL);
    CHECK_EQ_STR(fl_ice_map_get(&t->meta.properties, "a"), "1");
    CHECK(fl_ice_map_get(&t->meta.properties, "b") == NULL);

    for (int i = 0; i < nt.n; i++) {
        CHECK(exists(nt.paths[i]));
        fl_fileio_remove(io, nt.paths[i], &err);
        free(nt.paths[i]);
    }
    fl_arena_free(&a1);
    fl_arena_free(&a2);
out:
    table_close(t);
    free(loc);
    fl_fileio_destroy(io);
    rm_rf(dir);
    free(dir);
}

/* The combined txn owns the statement txns it adopted: truncating frees the
 * later ones, aborting frees the rest (no leak under ASan), and nothing
 * reaches the catalog. */
static void test_abort_frees_adopted(void)
{
    fl_error err = {0};
    char *dir = scratch_dir("stage");
    fl_fileio *io = fl_fileio_local();
    CHECK(dir && io);
    if (!dir || !io)
        return;
    char *json = malloc(strlen(META_FMT) + strlen(dir) + 1);
    sprintf(json, META_FMT, dir);
    char *loc = write_initial(io, dir, json, &err);
    free(json);
    memcat cat = {.base = {.ops = &MEMCAT_OPS, .io = io}};
    snprintf(cat.location, sizeof cat.location, "%s", loc ? loc : "");
    fl_ice_table *t = loc ? table_at(&cat.base, io, loc, &err) : NULL;
    CHECK(t != NULL);
    if (t) {
        fl_ice_txn *x = NULL;
        CHECK_OK(fl_ice_txn_begin(t, &x, &err), &err);
        fl_ice_txn_mark zero = fl_ice_txn_get_mark(x);
        for (int i = 0; i < 10; i++) /* past the adopted array's first growth */
            CHECK_OK(fl_ice_txn_adopt(x, stmt_set(t, "k", i % 2 ? "odd" : "even"), &err), &err);
        CHECK_EQ_INT(fl_ice_txn_nops(x), 10);
        fl_ice_txn_truncate(x, zero);
        CHECK_EQ_INT(fl_ice_txn_nops(x), 0);
        CHECK_OK(fl_ice_txn_adopt(x, stmt_set(t, "k", "last"), &err), &err);
        fl_ice_txn_abort(x);
        CHECK_EQ_STR(cat.location, loc);
    }
    table_close(t);
    free(loc);
    fl_fileio_destroy(io);
    rm_rf(dir);
    free(dir);
}

int main(void)
{
    TEST_RUN(test_adopt_preview_truncate);
    TEST_RUN(test_abort_frees_adopted);
    return TEST_EXIT();
}
