/*
 * test_scan.c - scans of the shared Iceberg fixture tables through the
 * library API: row counts with position deletes, equality deletes (also
 * partition-scoped), deletion vectors (strict and lenient), initial-defaults,
 * name mapping, identity-partition columns, time travel, _file/_pos, filters
 * with pruning and exact counts, the manifest cache, metadata tables, and
 * error cases. Exit 77 when $FLOE_SHARED/fixtures is absent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "floe/ice_manifest.h"
#include "floe/ice_scan.h"
#include "floe/parquet.h"
#include "floe/s3.h"
#include "floe_test.h"
#include "iceberg/scan_internal.h"

static char g_ice[4096], g_duck[4096];
static fl_fileio *g_local, *g_io;

typedef struct table {
    fl_arena a;
    fl_ice_metadata m;
} table;

static bool load(table *t, const char *path)
{
    fl_arena_init(&t->a, 0);
    fl_error err;
    fl_status rc = fl_ice_metadata_read(g_local, path, &t->a, &t->m, &err);
    if (rc != FL_OK)
        fprintf(stderr, "%s: %s\n", path, err.msg);
    return rc == FL_OK;
}

static void unload(table *t)
{
    fl_arena_free(&t->a);
}

/* Scans everything; returns live rows (-1 on error, message in err). */
static int64_t scan_rows(const fl_ice_metadata *m, const fl_ice_scan_options *opt, fl_error *err,
                         int64_t *sum_col0)
{
    fl_ice_scan *s;
    if (fl_ice_scan_open(g_io, m, opt, &s, err) != FL_OK)
        return -1;
    fl_batch b;
    if (fl_batch_init(&b, fl_ice_scan_schema(s), err) != FL_OK) {
        fl_ice_scan_close(s);
        return -1;
    }
    int64_t n = 0;
    if (sum_col0)
        *sum_col0 = 0;
    for (;;) {
        bool eof;
        if (fl_ice_scan_next(s, &b, &eof, err) != FL_OK) {
            n = -1;
            break;
        }
        if (eof)
            break;
        uint32_t live = fl_batch_live_rows(&b);
        for (uint32_t i = 0; sum_col0 && i < live; i++) {
            uint32_t row = b.sel ? b.sel->idx[i] : i;
            fl_value v;
            if (ice_vec_value(&b.cols[0], row, &v) && !v.is_null)
                *sum_col0 += v.type.id == FL_TYPE_INT32 ? v.v.i32 : v.v.i64;
        }
        n += live;
    }
    fl_batch_destroy(&b);
    fl_ice_scan_close(s);
    return n;
}

static void path_of(char *buf, size_t cap, const char *base, const char *rel)
{
    snprintf(buf, cap, "%s/%s", base, rel);
}

static void test_equality_deletes(void)
{
    char p[8192];
    table t;
    path_of(p, sizeof p, g_duck,
            "equality_deletes/warehouse/mydb/mytable/metadata/v7.metadata.json");
    if (!load(&t, p)) {
        CHECK(0);
        return;
    }
    fl_error err;
    int64_t sum;
    fl_ice_scan_options o = {0};
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, &sum), 2);
    CHECK_EQ_INT(sum, 4 + 5);
    /* projection without the equality column still applies the deletes */
    const char *cols[] = {"bir"};
    o.columns = cols;
    o.ncolumns = 1;
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, NULL), 2);
    /* count cannot come from metadata: deletes apply */
    fl_ice_scan_plan *p2;
    CHECK_OK(fl_ice_scan_plan_files(g_io, &t.m, &o, &p2, &err), &err);
    int64_t c;
    bool exact;
    CHECK_OK(fl_ice_scan_count(p2, &c, &exact, &err), &err);
    CHECK(!exact);
    CHECK(p2->metrics.delete_files > 0);
    fl_ice_scan_plan_free(p2);
    unload(&t);
}

static void test_equality_cross_partition(void)
{
    char p[8192];
    table t;
    path_of(p, sizeof p, g_duck,
            "equality_delete_cross_partition/warehouse/ns/t/metadata/vfinal.metadata.json");
    if (!load(&t, p)) {
        CHECK(0);
        return;
    }
    fl_error err;
    fl_ice_scan_options o = {0};
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, NULL), 3); /* (0,100) deleted, (1,100) kept */
    unload(&t);
}

static void test_position_deletes_and_time_travel(void)
{
    char p[8192];
    table t;
    path_of(p, sizeof p, g_ice, "icebird/java/bunnies/metadata/v5.metadata.json");
    if (!load(&t, p)) {
        CHECK(0);
        return;
    }
    fl_error err;
    fl_ice_scan_options o = {0};
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, NULL), 15);
    o.select = FL_ICE_SNAP_ID;
    o.snapshot_id = 4951213507629824583LL;
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, NULL), 21);
    o.snapshot_id = 6458828015811002920LL; /* position deletes */
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, NULL), 15);
    o.select = FL_ICE_SNAP_TIMESTAMP;
    o.timestamp_ms = 1743410790000LL; /* between the first and second snapshot */
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, NULL), 21);
    o.timestamp_ms = 1000;
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, NULL), -1);
    CHECK_EQ_INT(err.code, FL_ENOTFOUND);
    o.select = FL_ICE_SNAP_REF;
    o.ref = "main";
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, NULL), 15);
    o.ref = "nope";
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, NULL), -1);
    CHECK_EQ_INT(err.code, FL_ENOTFOUND);
    o.select = FL_ICE_SNAP_ID;
    o.snapshot_id = 1;
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, NULL), -1);
    CHECK_EQ_INT(err.code, FL_ENOTFOUND);

    /* _pos of the surviving rows: 15 distinct positions in [0, 21) */
    o.select = FL_ICE_SNAP_ID;
    o.snapshot_id = 6458828015811002920LL;
    int32_t ids[] = {FL_ICE_FIELD_ID_ROW_POS, FL_ICE_FIELD_ID_FILE_PATH};
    o.field_ids = ids;
    o.nfield_ids = 2;
    int64_t sum;
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, &sum), 15);
    CHECK(sum > 0 && sum < 21 * 20 / 2);
    unload(&t);
}

static void test_dv_strict_and_lenient(void)
{
    char p[8192];
    table t;
    path_of(p, sizeof p, g_duck,
            "legacy_bare_deletion_vector/warehouse/default/legacy_bare_deletion_vector/metadata/"
            "00002-legacy-bare-dv.metadata.json");
    if (!load(&t, p)) {
        CHECK(0);
        return;
    }
    fl_error err;
    fl_ice_scan_options o = {0};
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, NULL), -1);
    CHECK_EQ_INT(err.code, FL_ECORRUPT);
    CHECK(strstr(err.msg, "bare DV") != NULL);
    o.lenient_dv = true;
    int64_t sum;
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, &sum), 2);
    CHECK_EQ_INT(sum, 1 + 3);
    unload(&t);
}

static void test_defaults_and_name_mapping(void)
{
    char p[8192];
    table t;
    path_of(p, sizeof p, g_duck,
            "add_columns_with_defaults/default.db/add_columns_with_defaults/metadata/"
            "00003-3f1801a5-7dfb-4072-b14a-39cd12f9279b.metadata.json");
    if (load(&t, p)) {
        fl_error err;
        fl_ice_scan_options o = {0};
        const char *cols[] = {"col_integer"};
        o.columns = cols;
        o.ncolumns = 1;
        int64_t sum;
        CHECK_EQ_INT(scan_rows(&t.m, &o, &err, &sum), 3);
        CHECK_EQ_INT(sum, 453243 + 2 * 342342); /* two old rows read the initial-default */
        unload(&t);
    } else {
        CHECK(0);
    }
    path_of(p, sizeof p, g_duck, "name_mapping/warehouse_1/mydb/t1/metadata/v3.2.metadata.json");
    if (load(&t, p)) {
        fl_error err;
        fl_ice_scan_options o = {0};
        int64_t sum;
        CHECK_EQ_INT(scan_rows(&t.m, &o, &err, &sum), 10000);
        CHECK_EQ_INT(sum, 0); /* empty mapping: every column null */
        unload(&t);
    } else {
        CHECK(0);
    }
    path_of(p, sizeof p, g_duck, "name_mapping/warehouse_1/mydb/t1/metadata/v3.metadata.json");
    if (load(&t, p)) {
        fl_error err;
        fl_ice_scan_options o = {0};
        int64_t sum;
        CHECK_EQ_INT(scan_rows(&t.m, &o, &err, &sum), 10000);
        CHECK(sum > 0);
        unload(&t);
    } else {
        CHECK(0);
    }
}

static void test_filter_pruning_and_count(void)
{
    char p[8192];
    table t;
    path_of(p, sizeof p, g_duck, "hive_partitioned_table/metadata/v4.metadata.json");
    if (!load(&t, p)) {
        CHECK(0);
        return;
    }
    fl_error err;
    fl_col_pred term = {.column = "event_date", .op = FL_CMP_EQ};
    term.value.type.id = FL_TYPE_DATE;
    term.value.v.i32 = 19724; /* 2024-01-02 */
    fl_predicate pred = {1, &term};
    fl_ice_scan_options o = {.filter = &pred};
    fl_ice_scan_plan *pl;
    CHECK_OK(fl_ice_scan_plan_files(g_io, &t.m, &o, &pl, &err), &err);
    CHECK_EQ_INT(pl->ntasks, 1);
    CHECK_EQ_INT(pl->metrics.manifests_pruned, 1);
    int64_t c;
    bool exact;
    CHECK_OK(fl_ice_scan_count(pl, &c, &exact, &err), &err);
    CHECK(exact);
    CHECK_EQ_INT(c, 1);
    fl_ice_scan_plan_free(pl);
    int64_t sum;
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, &sum), 1);
    /* a term the metadata cannot settle: user_id > 50000 */
    fl_col_pred t2 = {.column = "user_id", .op = FL_CMP_GT};
    t2.value.type.id = FL_TYPE_INT32; /* cast to long by the scan */
    t2.value.v.i32 = 50000;
    fl_predicate p2 = {1, &t2};
    o.filter = &p2;
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, NULL), 3);
    /* unknown column */
    t2.column = "nope";
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, NULL), -1);
    CHECK_EQ_INT(err.code, FL_ENOTFOUND);
    unload(&t);
}

static void test_manifest_cache(void)
{
    char p[8192];
    table t;
    path_of(p, sizeof p, g_ice, "icebird/java/bunnies/metadata/v5.metadata.json");
    if (!load(&t, p)) {
        CHECK(0);
        return;
    }
    fl_error err;
    fl_ice_manifest_cache *c;
    CHECK_OK(fl_ice_manifest_cache_new(1 << 20, &c, &err), &err);
    fl_ice_scan_options o = {.cache = c};
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, NULL), 15);
    fl_ice_cache_stats st;
    fl_ice_manifest_cache_stats(c, &st);
    CHECK(st.misses > 0);
    CHECK_EQ_INT(st.hits, 0);
    uint64_t misses = st.misses;
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, NULL), 15);
    fl_ice_manifest_cache_stats(c, &st);
    CHECK_EQ_INT(st.hits, misses);
    CHECK_EQ_INT(st.misses, misses);
    fl_ice_manifest_cache_free(c);
    /* a tiny cache evicts but still answers */
    CHECK_OK(fl_ice_manifest_cache_new(1, &c, &err), &err);
    o.cache = c;
    CHECK_EQ_INT(scan_rows(&t.m, &o, &err, NULL), 15);
    fl_ice_manifest_cache_stats(c, &st);
    CHECK_EQ_INT(st.bytes, 0);
    fl_ice_manifest_cache_free(c);
    unload(&t);
}

static int64_t metatable_rows(const fl_ice_metadata *m, const char *name)
{
    fl_error err;
    fl_ice_metatable *mt;
    if (fl_ice_metatable_open(g_io, m, name, NULL, &mt, &err) != FL_OK) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        return -1;
    }
    fl_batch b;
    int64_t n = 0;
    if (fl_batch_init(&b, fl_ice_metatable_schema(mt), &err) == FL_OK) {
        bool eof = false;
        while (fl_ice_metatable_next(mt, &b, &eof, &err) == FL_OK && !eof)
            n += b.nrows;
        fl_batch_destroy(&b);
    }
    fl_ice_metatable_close(mt);
    return n;
}

static void test_metadata_tables(void)
{
    char p[8192];
    table t;
    path_of(p, sizeof p, g_ice, "icebird/java/bunnies/metadata/v5.metadata.json");
    if (!load(&t, p)) {
        CHECK(0);
        return;
    }
    CHECK_EQ_INT(metatable_rows(&t.m, "snapshots"), 3);
    CHECK_EQ_INT(metatable_rows(&t.m, "history"), 3);
    CHECK_EQ_INT(metatable_rows(&t.m, "refs"), 1);
    CHECK(metatable_rows(&t.m, "manifests") >= 2);
    CHECK(metatable_rows(&t.m, "all_manifests") >= 4);
    int64_t files = metatable_rows(&t.m, "files");
    CHECK_EQ_INT(files, metatable_rows(&t.m, "data_files") + metatable_rows(&t.m, "delete_files"));
    CHECK(metatable_rows(&t.m, "delete_files") >= 2);
    CHECK(metatable_rows(&t.m, "entries") >= files);
    CHECK_EQ_INT(metatable_rows(&t.m, "partitions"), 1);
    fl_error err;
    fl_ice_metatable *mt;
    CHECK_EQ_INT(fl_ice_metatable_open(g_io, &t.m, "nope", NULL, &mt, &err), FL_ENOTFOUND);
    unload(&t);
}

static void test_remap_paths(void)
{
    fl_error err;
    fl_path_mapping mp[] = {{"s3://b/", "/tmp/x"}, {"rel/", "/abs/"}};
    fl_fileio *io;
    CHECK_OK(fl_fileio_remap(g_local, mp, 2, &io, &err), &err);
    fl_file *f;
    CHECK(fl_fileio_open(io, "s3://b/definitely-missing-file", &f, &err) != FL_OK);
    CHECK(strstr(err.msg, "/tmp/x/definitely-missing-file") != NULL);
    CHECK(fl_fileio_open(io, "rel/missing", &f, &err) != FL_OK);
    CHECK(strstr(err.msg, "/abs/missing") != NULL);
    fl_fileio_destroy(io);
}

/* Schema evolution inside a struct and at the top level, on a table built
 * here: the file has id int, s struct<a int, b string>; the table reads id
 * long (promoted), s struct<a long (promoted), c int (added, initial-default
 * 7)> (b dropped) and t string (added, null). */
static void test_struct_evolution(void)
{
    char dir[128];
    if (!ft_tmpdir(dir, sizeof dir, "floe-scan-evo")) {
        CHECK(0);
        return;
    }
    fl_error err;
    fl_arena a;
    fl_arena_init(&a, 0);
    /* the data file */
    fl_field sf[2] = {
        {.name = "a", .field_id = 2, .nullable = true, .type = {.id = FL_TYPE_INT32}},
        {.name = "b", .field_id = 3, .nullable = true, .type = {.id = FL_TYPE_STRING}}};
    fl_field ff[2] = {
        {.name = "id", .field_id = 1, .nullable = true, .type = {.id = FL_TYPE_INT32}},
        {.name = "s",
         .field_id = 4,
         .nullable = true,
         .type = {.id = FL_TYPE_STRUCT, .nchildren = 2, .children = sf}}};
    fl_schema fs = {.nfields = 2, .fields = ff};
    fl_batch b;
    CHECK_OK(fl_batch_init(&b, &fs, &err), &err);
    for (int32_t i = 0; i < 3; i++) {
        int32_t id = i + 1, av = 10 * (i + 1);
        CHECK_OK(fl_vector_append_fixed(&b.cols[0], &id, &err), &err);
        if (i == 1) {
            CHECK_OK(fl_vector_append_null(&b.cols[1], &err), &err);
        } else {
            CHECK_OK(fl_vector_append_fixed(&b.cols[1].children[0], &av, &err), &err);
            CHECK_OK(fl_vector_append_bytes(&b.cols[1].children[1], "x", 1, &err), &err);
            CHECK_OK(fl_vector_append_nested(&b.cols[1], 0, &err), &err);
        }
    }
    b.nrows = 3;
    char path[256], mpath[256], lpath[256];
    snprintf(path, sizeof path, "%s/d.parquet", dir);
    fl_output *o;
    fl_parquet_writer *w;
    fl_parquet_file_result res;
    CHECK_OK(fl_fileio_create(g_local, path, FL_CREATE_OVERWRITE, &o, &err), &err);
    CHECK_OK(fl_parquet_writer_open(o, &fs, NULL, &w, &err), &err);
    CHECK_OK(fl_parquet_writer_write(w, &b, &err), &err);
    CHECK_OK(fl_parquet_writer_close(w, &res, &err), &err);
    CHECK_OK(fl_output_close(o, &err), &err);
    fl_batch_destroy(&b);
    /* metadata, manifest, manifest list */
    const char *fmt =
        "{\"format-version\":2,\"table-uuid\":\"5c0e6d8a-2d7c-4d0e-9a55-000000000002\","
        "\"location\":\"%s\",\"last-sequence-number\":%d,\"last-updated-ms\":1,\"last-column-id\":"
        "6,"
        "\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"},"
        "{\"id\":4,\"name\":\"s\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
        "{\"id\":2,\"name\":\"a\",\"required\":false,\"type\":\"long\"},"
        "{\"id\":5,\"name\":\"c\",\"required\":false,\"type\":\"int\",\"initial-default\":7}]}},"
        "{\"id\":6,\"name\":\"t\",\"required\":false,\"type\":\"string\"}]}],"
        "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],"
        "\"last-partition-id\":999,\"default-sort-order-id\":0,"
        "\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],\"properties\":{},"
        "\"current-snapshot-id\":%s,\"snapshots\":[%s],\"snapshot-log\":[],\"metadata-log\":[]}";
    char js[4096], snap[1024];
    snprintf(js, sizeof js, fmt, dir, 0, "-1", "");
    fl_ice_metadata m0, m1;
    CHECK_OK(fl_ice_metadata_parse((const uint8_t *)js, strlen(js), "evo", &a, &m0, &err), &err);
    snprintf(mpath, sizeof mpath, "%s/m0.avro", dir);
    snprintf(lpath, sizeof lpath, "%s/snap.avro", dir);
    fl_ice_manifest_writer *mw;
    fl_ice_manifest_file mf;
    CHECK_OK(
        fl_ice_manifest_writer_open(g_local, mpath, &m0, 0, FL_ICE_MANIFEST_DATA, 2, 7, &mw, &err),
        &err);
    fl_ice_manifest_entry e;
    memset(&e, 0, sizeof e);
    e.status = FL_ICE_STATUS_ADDED;
    e.snapshot_id = 7;
    e.sequence_number = e.file_sequence_number = FL_ICE_UNASSIGNED_SEQ;
    e.file.content = FL_ICE_CONTENT_DATA;
    e.file.file_path = path;
    e.file.file_format = "PARQUET";
    e.file.record_count = 3;
    e.file.file_size_in_bytes = (int64_t)res.file_size;
    CHECK_OK(fl_ice_manifest_writer_add(mw, &e, &err), &err);
    CHECK_OK(fl_ice_manifest_writer_close(mw, &a, &mf, &err), &err);
    fl_parquet_file_result_free(&res);
    fl_ice_manifest_list_info li = {.format_version = 2, .snapshot_id = 7, .sequence_number = 1};
    CHECK_OK(fl_ice_manifest_list_write(g_local, lpath, &li, &mf, 1, NULL, &err), &err);
    snprintf(snap, sizeof snap,
             "{\"snapshot-id\":7,\"sequence-number\":1,\"timestamp-ms\":1,\"manifest-list\":\"%s\","
             "\"summary\":{\"operation\":\"append\"},\"schema-id\":0}",
             lpath);
    snprintf(js, sizeof js, fmt, dir, 1, "7", snap);
    CHECK_OK(fl_ice_metadata_parse((const uint8_t *)js, strlen(js), "evo", &a, &m1, &err), &err);
    /* scan */
    fl_ice_scan *sc;
    fl_ice_scan_options opt = {0};
    CHECK_OK(fl_ice_scan_open(g_local, &m1, &opt, &sc, &err), &err);
    fl_batch ob;
    CHECK_OK(fl_batch_init(&ob, fl_ice_scan_schema(sc), &err), &err);
    bool eof = false;
    int64_t rows = 0, idsum = 0, asum = 0, csum = 0, snull = 0, tnull = 0;
    while (fl_ice_scan_next(sc, &ob, &eof, &err) == FL_OK && !eof) {
        fl_vector *s = &ob.cols[1];
        for (uint32_t i = 0; i < fl_batch_live_rows(&ob); i++, rows++) {
            fl_value v;
            ice_vec_value(&ob.cols[0], i, &v);
            CHECK(v.type.id == FL_TYPE_INT64);
            idsum += v.v.i64;
            if (!fl_vector_is_valid(s, i)) {
                snull++;
            } else {
                ice_vec_value(&s->children[0], i, &v);
                CHECK(v.type.id == FL_TYPE_INT64);
                asum += v.v.i64;
                ice_vec_value(&s->children[1], i, &v);
                csum += v.is_null ? 0 : v.v.i32;
            }
            ice_vec_value(&ob.cols[2], i, &v);
            tnull += v.is_null;
        }
    }
    CHECK_EQ_INT(err.code == FL_OK || eof, 1);
    CHECK_EQ_INT(rows, 3);
    CHECK_EQ_INT(idsum, 6);
    CHECK_EQ_INT(snull, 1);
    CHECK_EQ_INT(asum, 10 + 30);
    CHECK_EQ_INT(csum, 14);
    CHECK_EQ_INT(tnull, 3);
    fl_batch_destroy(&ob);
    fl_ice_scan_close(sc);
    fl_arena_free(&a);
    unlink(path);
    unlink(mpath);
    unlink(lpath);
    rmdir(dir);
}

int main(void)
{
    const char *sh = test_shared_dir();
    if (!sh) {
        fprintf(stderr, "skip: $FLOE_SHARED/fixtures absent\n");
        return 77;
    }
    snprintf(g_ice, sizeof g_ice, "%s/fixtures/iceberg", sh);
    snprintf(g_duck, sizeof g_duck, "%s/fixtures/iceberg/duckdb-iceberg/data/persistent", sh);
    g_local = fl_fileio_local();
    char d1[4200], d2[4200];
    snprintf(d1, sizeof d1, "%s/", g_duck);
    snprintf(d2, sizeof d2, "%s/icebird/", g_ice);
    fl_path_mapping mp[] = {{"data/persistent/", d1}, {"s3a://hyperparam-iceberg/", d2}};
    fl_error err;
    if (!g_local || fl_fileio_remap(g_local, mp, 2, &g_io, &err) != FL_OK)
        return 1;
    TEST_RUN(test_remap_paths);
    TEST_RUN(test_equality_deletes);
    TEST_RUN(test_equality_cross_partition);
    TEST_RUN(test_position_deletes_and_time_travel);
    TEST_RUN(test_dv_strict_and_lenient);
    TEST_RUN(test_defaults_and_name_mapping);
    TEST_RUN(test_filter_pruning_and_count);
    TEST_RUN(test_manifest_cache);
    TEST_RUN(test_metadata_tables);
    TEST_RUN(test_struct_evolution);
    fl_fileio_destroy(g_io);
    fl_fileio_destroy(g_local);
    return TEST_EXIT();
}
