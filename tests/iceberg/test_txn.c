/*
 * test_txn.c - transactions against an in-memory catalog and the local
 * FileIO: property and ref changes, rollback, the CAS retry loop (rebasing
 * on a concurrent commit, giving up after commit.retry.num-retries, keeping
 * files when the commit state is unknown), conflicts of concurrent schema
 * changes, and metadata-file cleanup (previous-versions-max).
 */
#include "test.h"
#include "txn_testcat.h"

static const char *META_FMT =
    "{\"format-version\":2,\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\","
    "\"location\":\"%s\",\"last-sequence-number\":3,\"last-updated-ms\":3000,"
    "\"last-column-id\":2,\"current-schema-id\":0,"
    "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"s\",\"required\":false,\"type\":\"string\"}]}],"
    "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],"
    "\"last-partition-id\":999,\"default-sort-order-id\":0,"
    "\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],"
    "\"properties\":{\"commit.retry.min-wait-ms\":\"1\",\"commit.retry.max-wait-ms\":\"5\"},"
    "\"current-snapshot-id\":3,\"refs\":{\"main\":{\"snapshot-id\":3,\"type\":\"branch\"}},"
    "\"snapshots\":["
    "{\"snapshot-id\":1,\"sequence-number\":1,\"timestamp-ms\":1000,"
    "\"manifest-list\":\"%s/metadata/l1.avro\",\"summary\":{\"operation\":\"append\"}},"
    "{\"snapshot-id\":2,\"parent-snapshot-id\":1,\"sequence-number\":2,\"timestamp-ms\":2000,"
    "\"manifest-list\":\"%s/metadata/l2.avro\",\"summary\":{\"operation\":\"append\"}},"
    "{\"snapshot-id\":3,\"parent-snapshot-id\":2,\"sequence-number\":3,\"timestamp-ms\":3000,"
    "\"manifest-list\":\"%s/metadata/l3.avro\",\"summary\":{\"operation\":\"append\"}},"
    "{\"snapshot-id\":9,\"parent-snapshot-id\":1,\"sequence-number\":4,\"timestamp-ms\":2500,"
    "\"manifest-list\":\"%s/metadata/l9.avro\",\"summary\":{\"operation\":\"append\"}}],"
    "\"snapshot-log\":[{\"timestamp-ms\":1000,\"snapshot-id\":1},"
    "{\"timestamp-ms\":2000,\"snapshot-id\":2},{\"timestamp-ms\":3000,\"snapshot-id\":3}],"
    "\"metadata-log\":[]}";

typedef struct env {
    char *dir;
    char mdir[4200];
    fl_fileio *io;
    memcat cat;
    fl_ice_table *t;
} env;

static int env_open(env *e)
{
    memset(e, 0, sizeof *e);
    fl_error err = {0};
    e->dir = scratch_dir("txn");
    e->io = fl_fileio_local();
    if (!e->dir || !e->io)
        return -1;
    snprintf(e->mdir, sizeof e->mdir, "%s/metadata", e->dir);
    char *json = malloc(strlen(META_FMT) + 6 * strlen(e->dir) + 16);
    sprintf(json, META_FMT, e->dir, e->dir, e->dir, e->dir, e->dir);
    char *loc = write_initial(e->io, e->dir, json, &err);
    free(json);
    if (!loc) {
        fprintf(stderr, "initial metadata: %s\n", err.msg);
        return -1;
    }
    e->cat.base.ops = &MEMCAT_OPS;
    e->cat.base.io = e->io;
    snprintf(e->cat.location, sizeof e->cat.location, "%s", loc);
    e->t = table_at(&e->cat.base, e->io, loc, &err);
    free(loc);
    return e->t ? 0 : -1;
}

static void env_close(env *e)
{
    table_close(e->t);
    fl_fileio_destroy(e->io);
    if (e->dir)
        rm_rf(e->dir);
    free(e->dir);
}

static fl_status set_prop(fl_ice_table *t, const char *k, const char *v, fl_error *err)
{
    fl_ice_txn *x = NULL;
    FL_TRY(fl_ice_txn_begin(t, &x, err));
    fl_ice_kv kv = {k, v};
    fl_ice_map m = {1, &kv};
    fl_status rc = fl_ice_txn_set_properties(x, &m, NULL, 0, err);
    if (rc != FL_OK) {
        fl_ice_txn_abort(x);
        return rc;
    }
    int64_t sid = 0;
    return fl_ice_txn_commit(x, &sid, err);
}

static void test_properties_commit(void)
{
    env e;
    CHECK(env_open(&e) == 0);
    if (!e.t)
        return;
    fl_error err = {0};
    const char *before = fl_arena_strdup(&e.t->arena, e.t->metadata_location);
    char saved[4200];
    snprintf(saved, sizeof saved, "%s", before);
    CHECK_OK(set_prop(e.t, "owner", "alice", &err), &err);
    CHECK_EQ_STR(fl_ice_map_get(&e.t->meta.properties, "owner"), "alice");
    CHECK_EQ_STR(e.t->metadata_location, e.cat.location);
    CHECK(strcmp(e.t->metadata_location, saved) != 0);
    CHECK_EQ_INT(e.t->meta.nmetadata_log, 1);
    CHECK_EQ_STR(e.t->meta.metadata_log[0].metadata_file, saved);
    CHECK_EQ_INT(e.t->meta.current_snapshot_id, 3);
    CHECK(strstr(e.t->metadata_location, "/00001-") != NULL);
    /* the file on disk is what the table now holds */
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_ice_metadata m;
    CHECK_OK(fl_ice_metadata_read(e.io, e.cat.location, &a, &m, &err), &err);
    CHECK(fl_ice_metadata_equal(&m, &e.t->meta));
    fl_arena_free(&a);
    /* removing a property; an empty txn commits nothing */
    fl_ice_txn *x = NULL;
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    const char *rm[] = {"owner"};
    CHECK_OK(fl_ice_txn_set_properties(x, NULL, rm, 1, &err), &err);
    CHECK(fl_ice_map_get(&fl_ice_txn_metadata(x)->properties, "owner") == NULL);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    CHECK(fl_ice_map_get(&e.t->meta.properties, "owner") == NULL);
    int files = count_files(e.mdir, "metadata.json");
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    int64_t sid = 0;
    CHECK_OK(fl_ice_txn_commit(x, &sid, &err), &err);
    CHECK_EQ_INT(sid, 3);
    CHECK_EQ_INT(count_files(e.mdir, "metadata.json"), files);
    env_close(&e);
}

static void test_concurrent_rebase(void)
{
    env e;
    CHECK(env_open(&e) == 0);
    if (!e.t)
        return;
    fl_error err = {0};
    /* a second writer on the same table */
    fl_ice_table *t2 = table_at(&e.cat.base, e.io, e.t->metadata_location, &err);
    CHECK(t2 != NULL);
    fl_ice_txn *x = NULL;
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    fl_ice_kv kv = {"a", "1"};
    fl_ice_map m = {1, &kv};
    CHECK_OK(fl_ice_txn_set_properties(x, &m, NULL, 0, &err), &err);
    CHECK_OK(set_prop(t2, "b", "2", &err), &err); /* lands first */
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    CHECK_EQ_STR(fl_ice_map_get(&e.t->meta.properties, "a"), "1");
    CHECK_EQ_STR(fl_ice_map_get(&e.t->meta.properties, "b"), "2");
    CHECK_EQ_INT(e.t->meta.nmetadata_log, 2);
    CHECK_EQ_INT(e.cat.commits, 2);
    CHECK_EQ_INT(e.cat.cas_calls, 3);
    /* the failed attempt's metadata file was deleted: initial + 2 commits */
    CHECK_EQ_INT(count_files(e.mdir, "metadata.json"), 3);

    /* concurrent schema change: an add-schema recorded on the old schema fails */
    CHECK_OK(fl_ice_txn_begin(t2, &x, &err), &err); /* t2 is stale now */
    fl_ice_schema s = e.t->meta.schemas[0];
    fl_field f[3];
    memcpy(f, s.schema.fields, 2 * sizeof f[0]);
    f[2] = (fl_field){.name = "z", .field_id = 3, .nullable = true, .type = {.id = FL_TYPE_INT32}};
    s.schema.fields = f;
    s.schema.nfields = 3;
    fl_ice_update u[] = {{.kind = FL_ICE_UPD_ADD_SCHEMA, .schema = &s},
                         {.kind = FL_ICE_UPD_SET_CURRENT_SCHEMA, .id = -1}};
    CHECK_OK(fl_ice_txn_add_updates(x, u, 2, &err), &err);
    CHECK_EQ_INT(fl_ice_txn_metadata(x)->current_schema_id, 1);
    /* meanwhile e.t evolves the schema differently */
    fl_ice_txn *y = NULL;
    CHECK_OK(fl_ice_txn_begin(e.t, &y, &err), &err);
    f[2].name = "w";
    CHECK_OK(fl_ice_txn_add_updates(y, u, 2, &err), &err);
    CHECK_OK(fl_ice_txn_commit(y, NULL, &err), &err);
    CHECK_EQ_INT(e.t->meta.current_schema_id, 1);
    f[2].name = "z";
    CHECK(fl_ice_txn_commit(x, NULL, &err) == FL_ECONFLICT);
    CHECK(strstr(err.msg, "schema changed concurrently") != NULL);
    table_close(t2);
    env_close(&e);
}

static void test_retry_limits(void)
{
    env e;
    CHECK(env_open(&e) == 0);
    if (!e.t)
        return;
    fl_error err = {0};
    CHECK_OK(set_prop(e.t, "commit.retry.num-retries", "2", &err), &err);
    int files = count_files(e.mdir, "metadata.json");
    /* 3 conflicts exhaust 2 retries; nothing is left behind */
    e.cat.force_conflicts = 3;
    int calls = e.cat.cas_calls;
    CHECK(set_prop(e.t, "x", "1", &err) == FL_ECONFLICT);
    CHECK(strstr(err.msg, "gave up after 3 attempts") != NULL);
    CHECK_EQ_INT(e.cat.cas_calls - calls, 3);
    CHECK_EQ_INT(count_files(e.mdir, "metadata.json"), files);
    /* 2 conflicts are absorbed */
    e.cat.force_conflicts = 2;
    CHECK_OK(set_prop(e.t, "x", "2", &err), &err);
    CHECK_EQ_STR(fl_ice_map_get(&e.t->meta.properties, "x"), "2");
    CHECK_EQ_INT(count_files(e.mdir, "metadata.json"), files + 1);
    /* unknown commit state: the new metadata file is kept */
    e.cat.fail_io = 1;
    CHECK(set_prop(e.t, "x", "3", &err) == FL_EIO);
    CHECK_EQ_INT(count_files(e.mdir, "metadata.json"), files + 2);
    e.cat.fail_io = 0;
    env_close(&e);
}

static void test_refs_and_rollback(void)
{
    env e;
    CHECK(env_open(&e) == 0);
    if (!e.t)
        return;
    fl_error err = {0};
    fl_ice_txn *x = NULL;
    /* rollback to an ancestor */
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK(fl_ice_txn_rollback_to(x, 9, &err) == FL_EINVAL); /* not an ancestor */
    CHECK(strstr(err.msg, "not an ancestor") != NULL);
    CHECK(fl_ice_txn_rollback_to(x, 77, &err) == FL_ENOTFOUND);
    CHECK_OK(fl_ice_txn_rollback_to(x, 1, &err), &err);
    int64_t sid = 0;
    CHECK_OK(fl_ice_txn_commit(x, &sid, &err), &err);
    CHECK_EQ_INT(sid, 1);
    CHECK_EQ_INT(e.t->meta.current_snapshot_id, 1);
    CHECK_EQ_INT(e.t->meta.nsnapshot_log, 4);
    CHECK_EQ_INT(e.t->meta.snapshot_log[3].snapshot_id, 1);
    /* set current to any snapshot (not an ancestor) */
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_set_current_snapshot(x, 3, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, &sid, &err), &err);
    CHECK_EQ_INT(e.t->meta.current_snapshot_id, 3);
    /* rollback by time: newest ancestor at or before 2100 is 2 */
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK(fl_ice_txn_rollback_to_time(x, 500, &err) == FL_ENOTFOUND);
    CHECK_OK(fl_ice_txn_rollback_to_time(x, 2100, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, &sid, &err), &err);
    CHECK_EQ_INT(e.t->meta.current_snapshot_id, 2);
    /* refs: tag at current, branch at 9; duplicates and main removal rejected */
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_create_ref(x, "v1", true, -1, &err), &err);
    CHECK_OK(fl_ice_txn_create_ref(x, "dev", false, 9, &err), &err);
    CHECK(fl_ice_txn_create_ref(x, "main", false, 9, &err) == FL_EEXIST);
    CHECK(fl_ice_txn_remove_ref(x, "main", &err) == FL_EINVAL);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    const fl_ice_ref *r = fl_ice_metadata_ref(&e.t->meta, "v1");
    CHECK(r && r->is_tag && r->snapshot_id == 2);
    r = fl_ice_metadata_ref(&e.t->meta, "dev");
    CHECK(r && !r->is_tag && r->snapshot_id == 9);
    CHECK_EQ_INT(e.t->meta.current_snapshot_id, 2);
    /* a txn on branch dev moves only dev */
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_set_branch(x, "dev", &err), &err);
    CHECK(fl_ice_txn_set_branch(x, "v1", &err) == FL_EINVAL);
    CHECK_OK(fl_ice_txn_rollback_to(x, 1, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    CHECK_EQ_INT(fl_ice_metadata_ref(&e.t->meta, "dev")->snapshot_id, 1);
    CHECK_EQ_INT(e.t->meta.current_snapshot_id, 2);
    /* remove the tag */
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK(fl_ice_txn_remove_ref(x, "nope", &err) == FL_ENOTFOUND);
    CHECK_OK(fl_ice_txn_remove_ref(x, "v1", &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    CHECK(fl_ice_metadata_ref(&e.t->meta, "v1") == NULL);
    /* a rollback whose target stopped being an ancestor fails at commit */
    fl_ice_table *t2 = table_at(&e.cat.base, e.io, e.t->metadata_location, &err);
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_rollback_to(x, 2, &err), &err);
    fl_ice_txn *y = NULL;
    CHECK_OK(fl_ice_txn_begin(t2, &y, &err), &err);
    CHECK_OK(fl_ice_txn_set_current_snapshot(y, 9, &err), &err);
    CHECK_OK(fl_ice_txn_commit(y, NULL, &err), &err);
    CHECK(fl_ice_txn_commit(x, NULL, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "not an ancestor") != NULL);
    table_close(t2);
    env_close(&e);
}

static void test_metadata_cleanup(void)
{
    env e;
    CHECK(env_open(&e) == 0);
    if (!e.t)
        return;
    fl_error err = {0};
    fl_ice_txn *x = NULL;
    CHECK_OK(fl_ice_txn_begin(e.t, &x, &err), &err);
    fl_ice_kv kv[] = {{"write.metadata.delete-after-commit.enabled", "true"},
                      {"write.metadata.previous-versions-max", "2"}};
    fl_ice_map m = {2, kv};
    CHECK_OK(fl_ice_txn_set_properties(x, &m, NULL, 0, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    for (int i = 0; i < 5; i++) {
        char v[16];
        snprintf(v, sizeof v, "%d", i);
        CHECK_OK(set_prop(e.t, "n", v, &err), &err);
    }
    CHECK_EQ_INT(e.t->meta.nmetadata_log, 2);
    /* current + the 2 logged versions */
    CHECK_EQ_INT(count_files(e.mdir, "metadata.json"), 3);
    for (uint32_t i = 0; i < e.t->meta.nmetadata_log; i++)
        CHECK(access(e.t->meta.metadata_log[i].metadata_file, F_OK) == 0);
    env_close(&e);
}

int main(void)
{
    TEST_RUN(test_properties_commit);
    TEST_RUN(test_concurrent_rebase);
    TEST_RUN(test_retry_limits);
    TEST_RUN(test_refs_and_rollback);
    TEST_RUN(test_metadata_cleanup);
    return TEST_EXIT();
}
