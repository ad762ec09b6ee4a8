/*
 * test_rowdelta.c - row-level changes through a SQLite catalog in a temp
 * directory: tables are created and filled through transactions (data
 * writer + append), then changed with fl_ice_delete_where (merge-on-read:
 * position delete files; copy-on-write: rewritten files; whole files from
 * metadata), fl_ice_delete_positions, fl_ice_overwrite_where and
 * fl_ice_rewrite_data_files (and its progress reports), and read back with the table scan; on v3,
 * deletion vectors (one per data file, merged, compacted away). Also the
 * position delete writer alone: sorting, duplicates, referenced_data_file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "floe/catalog.h"
#include "floe/ice_scan.h"
#include "floe/ice_table.h"
#include "floe/parquet.h"
#include "floe_test.h"
#include "iceberg/write_internal.h"

static fl_field g_fields[2] = {
    {.name = "id", .nullable = false, .type = {.id = FL_TYPE_INT64}},
    {.name = "grp", .nullable = true, .type = {.id = FL_TYPE_STRING}},
};
static fl_schema g_schema = {2, g_fields, 0};

typedef struct env {
    char dir[64];
    fl_fileio *io;
    fl_catalog *cat;
    fl_error err;
} env;

static bool env_open(env *e)
{
    if (!ft_tmpdir(e->dir, sizeof e->dir, "floe_rd"))
        return false;
    e->io = fl_fileio_local();
    char db[128];
    snprintf(db, sizeof db, "%s/cat.db", e->dir);
    if (fl_catalog_sqlite_open(db, NULL, e->dir, e->io, &e->cat, &e->err) != FL_OK)
        return false;
    fl_namespace ns = {1, (const char *[]){"db"}};
    return e->cat->ops->create_namespace(e->cat, &ns, NULL, &e->err) == FL_OK;
}

static void env_close(env *e)
{
    fl_catalog_close(e->cat);
    fl_fileio_destroy(e->io);
    ft_rmtree(e->dir);
}

/* A table of ids [0, n) in groups "g<id % 4>", partitioned by grp when asked. */
static fl_ice_table *make_table(env *e, const char *name, const char *fv, bool partitioned,
                                int64_t n, const char *mode)
{
    fl_table_ident id = {{1, (const char *[]){"db"}}, name};
    fl_ice_kv kv[2] = {{"format-version", fv}, {"write.delete.mode", mode}};
    fl_ice_map props = {2, kv};
    const char *parts[] = {"grp"};
    fl_ice_create_options o = {.schema = &g_schema,
                               .properties = &props,
                               .partition_by = parts,
                               .npartition_by = partitioned ? 1 : 0};
    fl_ice_table *t = NULL;
    CHECK_OK(fl_ice_table_create(e->cat, &id, &o, &t, &e->err), &e->err);
    if (!t)
        return NULL;
    fl_ice_txn *x = NULL;
    fl_ice_data_writer *w = NULL;
    CHECK_OK(fl_ice_txn_begin(t, &x, &e->err), &e->err);
    CHECK_OK(fl_ice_data_writer_open(x, &w, &e->err), &e->err);
    fl_batch b;
    fl_batch_init(&b, &g_schema, &e->err);
    for (int64_t i = 0; i < n; i++) {
        char g[8];
        snprintf(g, sizeof g, "g%d", (int)(i % 4));
        fl_vector_append_fixed(&b.cols[0], &i, &e->err);
        fl_vector_append_bytes(&b.cols[1], g, 2, &e->err);
        b.nrows++;
    }
    CHECK_OK(fl_ice_data_writer_write(w, &b, &e->err), &e->err);
    fl_batch_destroy(&b);
    fl_ice_data_file *files;
    uint32_t nf;
    CHECK_OK(fl_ice_data_writer_close(w, &files, &nf, &e->err), &e->err);
    CHECK_OK(fl_ice_txn_append(x, files, nf, &e->err), &e->err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &e->err), &e->err);
    return t;
}

/* Sum and count of ids visible in t; *ndeletes gets the delete files planned. */
static void scan_ids(env *e, fl_ice_table *t, int64_t *count, int64_t *sum, uint64_t *ndeletes)
{
    *count = *sum = 0;
    fl_ice_scan *s = NULL;
    fl_ice_scan_options o = {0};
    CHECK_OK(fl_ice_scan_open(t->io, &t->meta, &o, &s, &e->err), &e->err);
    if (!s)
        return;
    if (ndeletes)
        *ndeletes = fl_ice_scan_get_plan(s)->metrics.delete_files;
    fl_batch b;
    fl_batch_init(&b, fl_ice_scan_schema(s), &e->err);
    for (;;) {
        bool eof;
        CHECK_OK(fl_ice_scan_next(s, &b, &eof, &e->err), &e->err);
        if (eof)
            break;
        uint32_t n = fl_batch_live_rows(&b);
        for (uint32_t k = 0; k < n; k++) {
            fl_value v;
            ice_vector_value(&b.cols[0], b.sel ? b.sel->idx[k] : k, &v);
            *sum += v.v.i64;
            (*count)++;
        }
    }
    fl_batch_destroy(&b);
    fl_ice_scan_close(s);
}

static fl_col_pred term(const char *col, fl_cmp_op op, int64_t v)
{
    fl_col_pred p = {.column = col, .op = op};
    p.value.type.id = FL_TYPE_INT64;
    p.value.v.i64 = v;
    return p;
}

static void run_delete(env *e, fl_ice_table *t, const fl_predicate *f, int64_t *deleted)
{
    fl_ice_txn *x = NULL;
    CHECK_OK(fl_ice_txn_begin(t, &x, &e->err), &e->err);
    CHECK_OK(fl_ice_delete_where(x, f, deleted, &e->err), &e->err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &e->err), &e->err);
}

static void test_merge_on_read(void)
{
    env e = {0};
    CHECK(env_open(&e));
    fl_ice_table *t = make_table(&e, "mor", "2", true, 1000, "merge-on-read");
    if (!t) {
        env_close(&e);
        return;
    }
    fl_col_pred p = term("id", FL_CMP_LT, 100);
    fl_predicate f = {1, &p};
    int64_t deleted = 0, count, sum;
    uint64_t ndel = 0;
    run_delete(&e, t, &f, &deleted);
    CHECK_EQ_INT(deleted, 100);
    scan_ids(&e, t, &count, &sum, &ndel);
    CHECK_EQ_INT(count, 900);
    CHECK_EQ_INT(sum, 499500 - 4950);
    CHECK(ndel >= 4); /* one position delete file per grp partition */
    const fl_ice_snapshot *s = fl_ice_metadata_current_snapshot(&t->meta);
    CHECK(s && !strcmp(s->operation, "delete"));

    /* a whole partition matches from metadata alone: no new delete files */
    fl_col_pred g = {
        .column = "grp",
        .op = FL_CMP_EQ,
        .value = {.type = {.id = FL_TYPE_STRING}, .v.bytes = {(const uint8_t *)"g1", 2}}};
    fl_predicate fg = {1, &g};
    run_delete(&e, t, &fg, &deleted);
    CHECK_EQ_INT(deleted, 225); /* g1 had 250 rows, 25 of them deleted already */
    scan_ids(&e, t, &count, &sum, NULL);
    CHECK_EQ_INT(count, 675);

    /* nothing matches: no snapshot */
    int64_t before = t->meta.current_snapshot_id;
    fl_col_pred none = term("id", FL_CMP_GT, 5000);
    fl_predicate fn = {1, &none};
    run_delete(&e, t, &fn, &deleted);
    CHECK_EQ_INT(deleted, 0);
    CHECK_EQ_INT(t->meta.current_snapshot_id, before);

    fl_ice_table_free(t);
    env_close(&e);
}

/* Appends ids [from, to) in group "g0" as one more data file. */
static void append_ids(env *e, fl_ice_table *t, int64_t from, int64_t to)
{
    fl_ice_txn *x = NULL;
    fl_ice_data_writer *w = NULL;
    CHECK_OK(fl_ice_txn_begin(t, &x, &e->err), &e->err);
    CHECK_OK(fl_ice_data_writer_open(x, &w, &e->err), &e->err);
    fl_batch b;
    fl_batch_init(&b, &g_schema, &e->err);
    for (int64_t i = from; i < to; i++) {
        fl_vector_append_fixed(&b.cols[0], &i, &e->err);
        fl_vector_append_bytes(&b.cols[1], "g0", 2, &e->err);
        b.nrows++;
    }
    CHECK_OK(fl_ice_data_writer_write(w, &b, &e->err), &e->err);
    fl_batch_destroy(&b);
    fl_ice_data_file *files;
    uint32_t nf;
    CHECK_OK(fl_ice_data_writer_close(w, &files, &nf, &e->err), &e->err);
    CHECK_OK(fl_ice_txn_append(x, files, nf, &e->err), &e->err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &e->err), &e->err);
}

static const char *summary(const fl_ice_table *t, const char *key)
{
    const fl_ice_snapshot *s = fl_ice_metadata_current_snapshot(&t->meta);
    const char *v = s ? fl_ice_map_get(&s->summary, key) : NULL;
    return v ? v : "(none)";
}

/* A position delete file covering several data files (no
 * referenced_data_file) goes when compaction rewrites all of them: no dead
 * delete file stays live (Trino's $files and Spark's procedures see them). */
static void test_compact_drops_covering_deletes(void)
{
    env e = {0};
    CHECK(env_open(&e));
    fl_ice_table *t = make_table(&e, "cover", "2", false, 100, "merge-on-read");
    if (!t) {
        env_close(&e);
        return;
    }
    append_ids(&e, t, 100, 200);
    append_ids(&e, t, 200, 300);
    fl_col_pred q = term("id", FL_CMP_GE, 240);
    fl_predicate fq = {1, &q};
    int64_t deleted = 0, count, sum;
    uint64_t ndel = 0;
    run_delete(&e, t, &fq, &deleted); /* ids 240..299: one file */
    fl_col_pred mod[2] = {term("id", FL_CMP_GE, 50), term("id", FL_CMP_LT, 150)};
    fl_predicate fm = {2, mod};
    run_delete(&e, t, &fm, &deleted); /* ids 50..149: spans two files, one delete file */
    CHECK_EQ_INT(deleted, 100);
    CHECK(strcmp(summary(t, "total-delete-files"), "0") != 0);
    fl_ice_txn *x = NULL;
    uint64_t rewritten = 0, added = 0;
    CHECK_OK(fl_ice_txn_begin(t, &x, &e.err), &e.err);
    CHECK_OK(fl_ice_rewrite_data_files(x, false, &rewritten, &added, &e.err), &e.err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &e.err), &e.err);
    CHECK_EQ_INT(rewritten, 3);
    CHECK_EQ_STR(summary(t, "total-delete-files"), "0");
    CHECK_EQ_STR(summary(t, "total-position-deletes"), "0");
    CHECK_EQ_STR(summary(t, "total-records"), "140");
    scan_ids(&e, t, &count, &sum, &ndel);
    CHECK_EQ_INT(count, 140);
    CHECK_EQ_INT(sum, 49 * 50 / 2 + (150 + 239) * 90 / 2);
    CHECK_EQ_INT(ndel, 0);
    fl_ice_table_free(t);
    env_close(&e);
}

typedef struct progress_log {
    fl_ice_rewrite_progress at[8];
    uint32_t n;
} progress_log;

static void log_progress(void *ctx, const fl_ice_rewrite_progress *p)
{
    progress_log *l = ctx;
    if (l->n < 8)
        l->at[l->n] = *p;
    l->n++;
}

/* fl_ice_rewrite_data_files_ex reports 0 of N once the files are chosen,
 * then each file rewritten with the rows written so far; nothing when
 * there is nothing to rewrite. */
static void test_compact_progress(void)
{
    env e = {0};
    CHECK(env_open(&e));
    fl_ice_table *t = make_table(&e, "prog", "2", false, 100, "merge-on-read");
    if (!t) {
        env_close(&e);
        return;
    }
    progress_log log = {.n = 0};
    fl_ice_rewrite_options o = {.force = false, .progress = log_progress, .progress_ctx = &log};
    fl_ice_txn *x = NULL;
    uint64_t rewritten = 0, added = 0;
    CHECK_OK(fl_ice_txn_begin(t, &x, &e.err), &e.err);
    CHECK_OK(fl_ice_rewrite_data_files_ex(x, &o, &rewritten, &added, &e.err), &e.err);
    fl_ice_txn_abort(x);
    CHECK_EQ_INT(rewritten, 0); /* one file: nothing to compact */
    CHECK_EQ_INT(log.n, 0);
    append_ids(&e, t, 100, 200);
    append_ids(&e, t, 200, 300);
    o.force = true;
    CHECK_OK(fl_ice_txn_begin(t, &x, &e.err), &e.err);
    CHECK_OK(fl_ice_rewrite_data_files_ex(x, &o, &rewritten, &added, &e.err), &e.err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &e.err), &e.err);
    CHECK_EQ_INT(rewritten, 3);
    CHECK_EQ_INT(log.n, 4);
    for (uint32_t i = 0; i < log.n && i < 4; i++) {
        CHECK_EQ_INT(log.at[i].files_done, i);
        CHECK_EQ_INT(log.at[i].files_total, 3);
        CHECK_EQ_INT(log.at[i].rows_written, 100 * i);
    }
    fl_ice_table_free(t);
    env_close(&e);
}

static void test_copy_on_write(void)
{
    env e = {0};
    CHECK(env_open(&e));
    fl_ice_table *t = make_table(&e, "cow", "2", false, 1000, "copy-on-write");
    if (t) {
        fl_col_pred p[2] = {term("id", FL_CMP_GE, 10), term("id", FL_CMP_LE, 19)};
        fl_predicate f = {2, p};
        int64_t deleted = 0, count, sum;
        uint64_t ndel = 99;
        run_delete(&e, t, &f, &deleted);
        CHECK_EQ_INT(deleted, 10);
        scan_ids(&e, t, &count, &sum, &ndel);
        CHECK_EQ_INT(count, 990);
        CHECK_EQ_INT(sum, 499500 - 145);
        CHECK_EQ_INT(ndel, 0);
        const fl_ice_snapshot *s = fl_ice_metadata_current_snapshot(&t->meta);
        CHECK(s && !strcmp(s->operation, "overwrite"));
        fl_ice_table_free(t);
    }
    env_close(&e);
}

/* The live delete files of t's current snapshot (DVs: PUFFIN entries). */
static uint32_t live_deletes(env *e, fl_ice_table *t, uint32_t *ndv, int64_t *dv_rows)
{
    fl_ice_scan_plan *p = NULL;
    fl_ice_scan_options so = {0};
    *ndv = 0;
    *dv_rows = 0;
    CHECK_OK(fl_ice_scan_plan_files(t->io, &t->meta, &so, &p, &e->err), &e->err);
    uint32_t n = 0;
    for (uint32_t i = 0; p && i < p->ntasks; i++)
        for (uint32_t k = 0; k < p->tasks[i].ndeletes; k++) {
            const fl_ice_data_file *d = p->tasks[i].deletes[k];
            n++;
            if (d->has_content_offset) {
                (*ndv)++;
                *dv_rows += d->record_count;
                CHECK_EQ_STR(d->file_format, "PUFFIN");
                CHECK_EQ_STR(d->referenced_data_file, p->tasks[i].file->file_path);
            }
        }
    fl_ice_scan_plan_free(p);
    return n;
}

/* v3 merge-on-read writes deletion vectors: one per data file, merged with
 * the earlier one on the next delete (never two), and folded in and removed
 * by compaction. Partitioned: one Puffin file holds the DVs of several
 * partitions' files, and replacing one of them keeps the others. */
static void test_v3_deletion_vectors(void)
{
    env e = {0};
    CHECK(env_open(&e));
    fl_ice_table *t = make_table(&e, "dv", "3", true, 1000, "merge-on-read");
    if (!t) {
        env_close(&e);
        return;
    }
    fl_col_pred p = term("id", FL_CMP_LT, 100);
    fl_predicate f = {1, &p};
    int64_t deleted = 0, count, sum, dv_rows;
    uint32_t ndv;
    run_delete(&e, t, &f, &deleted);
    CHECK_EQ_INT(deleted, 100);
    scan_ids(&e, t, &count, &sum, NULL);
    CHECK_EQ_INT(count, 900);
    CHECK_EQ_INT(sum, 499500 - 4950);
    CHECK_EQ_INT(live_deletes(&e, t, &ndv, &dv_rows), 4);
    CHECK_EQ_INT(ndv, 4);
    CHECK_EQ_INT(dv_rows, 100);
    const fl_ice_snapshot *s = fl_ice_metadata_current_snapshot(&t->meta);
    CHECK(s && !strcmp(s->operation, "delete"));
    CHECK_EQ_STR(fl_ice_map_get(&s->summary, "added-dvs"), "4");

    /* a second delete in one partition: that file's DV now holds both */
    fl_col_pred g = {
        .column = "grp",
        .op = FL_CMP_EQ,
        .value = {.type = {.id = FL_TYPE_STRING}, .v.bytes = {(const uint8_t *)"g1", 2}}};
    fl_col_pred q3[3] = {term("id", FL_CMP_LT, 200), term("id", FL_CMP_GE, 50), g};
    fl_predicate fq3 = {3, q3};
    run_delete(&e, t, &fq3, &deleted);
    CHECK_EQ_INT(deleted, 25); /* ids 101, 105, ..., 197 */
    scan_ids(&e, t, &count, &sum, NULL);
    CHECK_EQ_INT(count, 875);
    CHECK_EQ_INT(live_deletes(&e, t, &ndv, &dv_rows), 4);
    CHECK_EQ_INT(ndv, 4);
    CHECK_EQ_INT(dv_rows, 125);
    s = fl_ice_metadata_current_snapshot(&t->meta);
    CHECK(s && !strcmp(s->operation, "delete"));
    CHECK_EQ_STR(fl_ice_map_get(&s->summary, "added-dvs"), "1");
    CHECK_EQ_STR(fl_ice_map_get(&s->summary, "removed-dvs"), "1");

    /* compaction folds the DVs in and removes them */
    fl_ice_txn *x = NULL;
    CHECK_OK(fl_ice_txn_begin(t, &x, &e.err), &e.err);
    uint64_t rewritten = 0, added = 0;
    CHECK_OK(fl_ice_rewrite_data_files(x, false, &rewritten, &added, &e.err), &e.err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &e.err), &e.err);
    CHECK_EQ_INT(rewritten, 4);
    scan_ids(&e, t, &count, &sum, NULL);
    CHECK_EQ_INT(count, 875);
    CHECK_EQ_INT(live_deletes(&e, t, &ndv, &dv_rows), 0);
    fl_ice_table_free(t);
    env_close(&e);
}

static void test_positions_overwrite_compact(void)
{
    env e = {0};
    CHECK(env_open(&e));
    fl_ice_table *t = make_table(&e, "pos", "2", false, 100, "merge-on-read");
    if (!t) {
        env_close(&e);
        return;
    }
    /* the single data file's path */
    fl_ice_scan_plan *p = NULL;
    fl_ice_scan_options so = {0};
    CHECK_OK(fl_ice_scan_plan_files(t->io, &t->meta, &so, &p, &e.err), &e.err);
    CHECK(p && p->ntasks == 1);
    char path[512];
    snprintf(path, sizeof path, "%s", p ? p->tasks[0].file->file_path : "");
    fl_ice_scan_plan_free(p);

    int64_t pos[3] = {5, 0, 99};
    fl_ice_file_positions fp = {path, pos, 3};
    fl_ice_txn *x = NULL;
    CHECK_OK(fl_ice_txn_begin(t, &x, &e.err), &e.err);
    CHECK_OK(fl_ice_delete_positions(x, &fp, 1, false, &e.err), &e.err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &e.err), &e.err);
    int64_t count, sum;
    uint64_t ndel;
    scan_ids(&e, t, &count, &sum, &ndel);
    CHECK_EQ_INT(count, 97);
    CHECK_EQ_INT(sum, 4950 - 5 - 0 - 99);
    CHECK_EQ_INT(ndel, 1);

    /* an unknown file is named */
    fl_ice_file_positions bad = {"/nope.parquet", pos, 1};
    CHECK_OK(fl_ice_txn_begin(t, &x, &e.err), &e.err);
    CHECK(fl_ice_delete_positions(x, &bad, 1, false, &e.err) == FL_ENOTFOUND);
    CHECK(strstr(e.err.msg, "/nope.parquet") != NULL);
    fl_ice_txn_abort(x);

    /* overwrite id < 50 with two new rows (ids 1000, 1001) */
    CHECK_OK(fl_ice_txn_begin(t, &x, &e.err), &e.err);
    fl_ice_data_writer *w = NULL;
    CHECK_OK(fl_ice_data_writer_open(x, &w, &e.err), &e.err);
    fl_batch b;
    fl_batch_init(&b, &g_schema, &e.err);
    for (int64_t i = 1000; i < 1002; i++) {
        fl_vector_append_fixed(&b.cols[0], &i, &e.err);
        fl_vector_append_bytes(&b.cols[1], "new", 3, &e.err);
        b.nrows++;
    }
    CHECK_OK(fl_ice_data_writer_write(w, &b, &e.err), &e.err);
    fl_batch_destroy(&b);
    fl_ice_data_file *files;
    uint32_t nf;
    CHECK_OK(fl_ice_data_writer_close(w, &files, &nf, &e.err), &e.err);
    fl_col_pred pr = term("id", FL_CMP_LT, 50);
    fl_predicate f = {1, &pr};
    CHECK_OK(fl_ice_overwrite_where(x, &f, files, nf, &e.err), &e.err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &e.err), &e.err);
    scan_ids(&e, t, &count, &sum, NULL);
    CHECK_EQ_INT(count, 49 + 2); /* 50..98 survive, plus the two new rows */
    CHECK_EQ_INT(sum, (50 + 98) * 49 / 2 + 2001);
    const fl_ice_snapshot *s = fl_ice_metadata_current_snapshot(&t->meta);
    CHECK(s && !strcmp(s->operation, "overwrite"));

    /* compaction: same rows, deletes applied, fewer files */
    CHECK_OK(fl_ice_txn_begin(t, &x, &e.err), &e.err);
    uint64_t rewritten = 0, added = 0;
    CHECK_OK(fl_ice_rewrite_data_files(x, false, &rewritten, &added, &e.err), &e.err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &e.err), &e.err);
    CHECK(rewritten >= 2);
    CHECK_EQ_INT(added, 1);
    scan_ids(&e, t, &count, &sum, &ndel);
    CHECK_EQ_INT(count, 51);
    CHECK_EQ_INT(sum, (50 + 98) * 49 / 2 + 2001);
    CHECK_EQ_INT(ndel, 0);
    s = fl_ice_metadata_current_snapshot(&t->meta);
    CHECK(s && !strcmp(s->operation, "replace"));
    fl_ice_table_free(t);
    env_close(&e);
}

static void test_delete_writer(void)
{
    char dir[128];
    CHECK(ft_tmpdir(dir, sizeof dir, "floe_dwr") != NULL);
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_create_options o = {.schema = &g_schema};
    fl_ice_metadata m;
    CHECK_OK(ice_new_table_metadata(&o, dir, "u", 1, &a, &m, &err), &err);
    fl_fileio *io = fl_fileio_local();
    int64_t p1[] = {7, 3, 3, 1}, p2[] = {2};
    fl_ice_file_positions d[2] = {{"s3://b/z.parquet", p1, 4}, {"s3://b/a.parquet", p2, 1}};
    fl_ice_data_file df;
    CHECK_OK(ice_write_position_deletes(io, &m, 0, NULL, 0, d, 2, NULL, &a, &df, &err), &err);
    CHECK_EQ_INT(df.content, FL_ICE_CONTENT_POSITION_DELETES);
    CHECK_EQ_INT(df.record_count, 4); /* duplicate 3 dropped */
    CHECK(df.referenced_data_file == NULL);
    CHECK(strstr(df.file_path, "/data/") && strstr(df.file_path, "-deletes.parquet"));
    /* read back: (a,2) (z,1) (z,3) (z,7) with the reserved field ids */
    fl_file *f = NULL;
    fl_parquet_reader *r = NULL;
    fl_parquet_scan *s = NULL;
    CHECK_OK(fl_fileio_open(io, df.file_path, &f, &err), &err);
    CHECK_OK(fl_parquet_open(f, NULL, &r, &err), &err);
    if (r) {
        const fl_schema *sc = fl_parquet_schema(r);
        CHECK_EQ_INT(sc->fields[0].field_id, FL_ICE_FIELD_ID_DELETE_FILE_PATH);
        CHECK_EQ_INT(sc->fields[1].field_id, FL_ICE_FIELD_ID_DELETE_POS);
        fl_parquet_scan_options so = {0};
        CHECK_OK(fl_parquet_scan_open(r, &so, &s, &err), &err);
        fl_batch b;
        fl_batch_init(&b, fl_parquet_scan_schema(s), &err);
        bool eof;
        CHECK_OK(fl_parquet_scan_next(s, &b, &eof, &err), &err);
        const char *want_path[] = {"s3://b/a.parquet", "s3://b/z.parquet", "s3://b/z.parquet",
                                   "s3://b/z.parquet"};
        int64_t want_pos[] = {2, 1, 3, 7};
        CHECK_EQ_INT(b.nrows, 4);
        for (uint32_t i = 0; i < b.nrows && i < 4; i++) {
            fl_value v;
            ice_vector_value(&b.cols[0], i, &v);
            CHECK(v.v.bytes.len == strlen(want_path[i]) &&
                  !memcmp(v.v.bytes.ptr, want_path[i], v.v.bytes.len));
            ice_vector_value(&b.cols[1], i, &v);
            CHECK_EQ_INT(v.v.i64, want_pos[i]);
        }
        fl_batch_destroy(&b);
        fl_parquet_scan_close(s);
        fl_parquet_close(r);
    }
    fl_file_close(f);
    /* one data file: referenced_data_file set; a negative position is refused */
    CHECK_OK(ice_write_position_deletes(io, &m, 0, NULL, 0, d + 1, 1, NULL, &a, &df, &err), &err);
    CHECK(df.referenced_data_file && !strcmp(df.referenced_data_file, "s3://b/a.parquet"));
    int64_t neg[] = {-1};
    fl_ice_file_positions dn = {"x.parquet", neg, 1};
    CHECK(ice_write_position_deletes(io, &m, 0, NULL, 0, &dn, 1, NULL, &a, &df, &err) == FL_EINVAL);
    CHECK(ice_write_position_deletes(io, &m, 7, NULL, 0, &dn, 1, NULL, &a, &df, &err) == FL_EINVAL);
    fl_fileio_destroy(io);
    fl_arena_free(&a);
    ft_rmtree(dir);
}

int main(void)
{
    TEST_RUN(test_delete_writer);
    TEST_RUN(test_merge_on_read);
    TEST_RUN(test_compact_drops_covering_deletes);
    TEST_RUN(test_compact_progress);
    TEST_RUN(test_copy_on_write);
    TEST_RUN(test_v3_deletion_vectors);
    TEST_RUN(test_positions_overwrite_compact);
    return TEST_EXIT();
}
