/*
 * test_exec_scan.c - SCAN of files: Parquet (row-group pruning counted in
 * plan stats, exact filter, projection by index, several files and row
 * groups spread over threads), CSV (header or not, explicit schema) and JSON
 * lines through src/text; a missing file is an error naming it.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "floe/parquet.h"
#include "test.h"

#include "exec_fixture.h"

static char dir[256];

static const char *path_of(fl_arena *a, const char *name)
{
    return fl_arena_sprintf(a, "%s/%s", dir, name);
}

/* id int64 = base..base+n-1, name string "n<id>", 1000 rows per row group */
static void write_parquet(const char *path, int64_t base, int64_t n)
{
    fl_error err;
    fl_field f[2] = {{.name = "id", .field_id = 1, .nullable = true, .type = {.id = FL_TYPE_INT64}},
                     {.name = "name", .field_id = 2, .nullable = true, .type = {.id = FL_TYPE_STRING}}};
    fl_schema s = {.nfields = 2, .fields = f};
    fl_fileio *io = fl_fileio_local();
    fl_output *out = NULL;
    CHECK_OK(fl_fileio_create(io, path, FL_CREATE_OVERWRITE, &out, &err), &err);
    fl_parquet_write_options o = {.row_group_rows = 1000};
    fl_parquet_writer *w = NULL;
    CHECK_OK(fl_parquet_writer_open(out, &s, &o, &w, &err), &err);
    fl_batch b;
    fl_batch_init(&b, &s, &err);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = base + i;
        char name[32];
        snprintf(name, sizeof name, "n%" PRId64, v);
        fl_vector_append_fixed(&b.cols[0], &v, &err);
        fl_vector_append_bytes(&b.cols[1], name, strlen(name), &err);
        b.nrows++;
        if (b.nrows == 500 || i == n - 1) {
            CHECK_OK(fl_parquet_writer_write(w, &b, &err), &err);
            fl_batch_reset(&b);
        }
    }
    CHECK_OK(fl_parquet_writer_close(w, NULL, &err), &err);
    CHECK_OK(fl_output_close(out, &err), &err);
    fl_batch_destroy(&b);
    fl_fileio_destroy(io);
}

static fl_plan *file_scan(fl_arena *a, fl_scan_kind kind, const char **files, uint32_t nfiles,
                          const fl_schema *fs)
{
    fl_plan *p = tp_node(a, FL_PLAN_SCAN, 0, fs->nfields);
    for (uint32_t i = 0; i < fs->nfields; i++)
        p->schema.fields[i].type = fs->fields[i].type;
    p->u.scan.kind = kind;
    p->u.scan.files = files;
    p->u.scan.nfiles = nfiles;
    p->u.scan.file_schema = fs;
    p->u.scan.limit = -1;
    p->u.scan.name = "files";
    p->u.scan.csv_delim = ',';
    p->u.scan.csv_header = true;
    return p;
}

static void test_parquet(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    const char **files = fl_arena_calloc(&a, 2, sizeof *files);
    files[0] = path_of(&a, "a.parquet");
    files[1] = path_of(&a, "b.parquet");
    write_parquet(files[0], 0, 4000);
    write_parquet(files[1], 4000, 2000);
    fl_field f[2] = {{.name = "id", .field_id = 1, .nullable = true, .type = {.id = FL_TYPE_INT64}},
                     {.name = "name", .field_id = 2, .nullable = true, .type = {.id = FL_TYPE_STRING}}};
    fl_schema fs = {.nfields = 2, .fields = f};
    /* count(*) over all rows, 1 and 3 threads */
    for (uint32_t th = 1; th <= 3; th += 2) {
        fl_plan *s = file_scan(&a, FL_SCAN_PARQUET, files, 2, &fs);
        fl_plan *g = tp_node(&a, FL_PLAN_AGG, 1, 1);
        g->children[0] = s;
        g->schema.fields[0].type = T_I64;
        g->u.agg.naggs = 1;
        g->u.agg.aggs = fl_arena_calloc(&a, 1, sizeof(fl_agg_call));
        g->u.agg.aggs[0] = (fl_agg_call){.fn = &F_COUNT, .ops = &OPS_COUNT, .result = T_I64};
        tr_result r = tr_run(g, th);
        CHECK_ROWS(r, "6000");
        tr_free(&r);
        CHECK_EQ_INT(atomic_load(&s->stats.rows_out), 6000);
        CHECK_EQ_INT(atomic_load(&s->stats.files_total), 2);
        CHECK_EQ_INT(atomic_load(&s->stats.row_groups_total), 6);
        CHECK(atomic_load(&s->stats.bytes_read) > 0);
    }
    /* WHERE id >= 3990 AND id < 4005 pruned to the row groups that may match,
     * projected to (name) */
    for (uint32_t th = 1; th <= 3; th += 2) {
        fl_plan *s = file_scan(&a, FL_SCAN_PARQUET, files, 2, &fs);
        fl_col_pred *terms = fl_arena_calloc(&a, 2, sizeof *terms);
        terms[0] = (fl_col_pred){.column = "id", .op = FL_CMP_GE, .value = {.type = {.id = FL_TYPE_INT64}, .v.i64 = 3990}};
        terms[1] = (fl_col_pred){.column = "id", .op = FL_CMP_LT, .value = {.type = {.id = FL_TYPE_INT64}, .v.i64 = 4005}};
        s->u.scan.prune = (fl_predicate){.nterms = 2, .terms = terms};
        s->u.scan.filter = tx_call(&a, &F_GT, &T_BOOL, tx_col(&a, 0, &T_I64), tx_i64(&a, 4002));
        tr_result r = tr_run(s, th);
        CHECK_ROWS(r, "4003|n4003;4004|n4004");
        tr_free(&r);
        CHECK_EQ_INT(atomic_load(&s->stats.row_groups_total), 6);
        CHECK_EQ_INT(atomic_load(&s->stats.row_groups_pruned), 4);
    }
    /* projection by index: (name, id) */
    fl_plan *s = file_scan(&a, FL_SCAN_PARQUET, files, 1, &fs);
    int32_t *cols = fl_arena_calloc(&a, 2, sizeof *cols);
    cols[0] = 1;
    cols[1] = 0;
    s->u.scan.columns = cols;
    s->u.scan.ncolumns = 2;
    s->schema.fields[0].type = T_STR;
    s->schema.fields[1].type = T_I64;
    s->u.scan.limit = 10;
    fl_plan *l = tp_node(&a, FL_PLAN_LIMIT, 1, 2);
    l->children[0] = s;
    l->schema = s->schema;
    l->u.limit.limit = 2;
    tr_result r = tr_run(l, 2);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_EQ_INT(r.n, 2);
    CHECK(r.n == 2 && r.rows[0][0] == 'n');
    tr_free(&r);
    /* a missing file names itself */
    const char *missing[] = {path_of(&a, "missing.parquet")};
    r = tr_run(file_scan(&a, FL_SCAN_PARQUET, missing, 1, &fs), 2);
    CHECK(r.rc != 0);
    CHECK(strstr(r.err.msg, "missing.parquet") != NULL);
    tr_free(&r);
    unlink(files[0]);
    unlink(files[1]);
    fl_arena_free(&a);
}

static const char *write_text(fl_arena *a, const char *name, const char *content)
{
    const char *p = path_of(a, name);
    FILE *f = fopen(p, "wb");
    fputs(content, f);
    fclose(f);
    return p;
}

static void test_csv_json(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    const char **csv = fl_arena_calloc(&a, 2, sizeof *csv);
    csv[0] = write_text(&a, "a.csv", "k,v\n1,x\n2,\n");
    csv[1] = write_text(&a, "b.csv", "k,v\n3,\"y,z\"\n");
    fl_field f[2] = {{.name = "k", .nullable = true, .type = {.id = FL_TYPE_INT64}},
                     {.name = "v", .nullable = true, .type = {.id = FL_TYPE_STRING}}};
    fl_schema fs = {.nfields = 2, .fields = f};
    tr_result r = tr_run(file_scan(&a, FL_SCAN_CSV, csv, 2, &fs), 2);
    CHECK_ROWS(r, "1|x;2|NULL;3|y,z");
    tr_free(&r);
    /* no header: the first line is data */
    const char **nh = fl_arena_calloc(&a, 1, sizeof *nh);
    nh[0] = write_text(&a, "c.csv", "7;q\n8;r\n");
    fl_plan *s = file_scan(&a, FL_SCAN_CSV, nh, 1, &fs);
    s->u.scan.csv_header = false;
    s->u.scan.csv_delim = ';';
    r = tr_run(s, 1);
    CHECK_ROWS(r, "7|q;8|r");
    tr_free(&r);
    /* JSON lines with projection (v) and a filter on k */
    const char **js = fl_arena_calloc(&a, 1, sizeof *js);
    js[0] = write_text(&a, "a.jsonl", "{\"k\": 1, \"v\": \"one\"}\n{\"k\": 5, \"v\": null}\n{\"k\": 9, \"v\": \"nine\"}\n");
    s = file_scan(&a, FL_SCAN_JSON, js, 1, &fs);
    r = tr_run(s, 2);
    CHECK_ROWS(r, "1|one;5|NULL;9|nine");
    tr_free(&r);
    /* a bad CSV value names file, line and column */
    const char **bad = fl_arena_calloc(&a, 1, sizeof *bad);
    bad[0] = write_text(&a, "bad.csv", "k,v\n1,a\nzz,b\n");
    r = tr_run(file_scan(&a, FL_SCAN_CSV, bad, 1, &fs), 1);
    CHECK(r.rc != 0);
    CHECK(strstr(r.err.msg, "bad.csv") != NULL && strstr(r.err.msg, "line 3") != NULL);
    tr_free(&r);
    unlink(csv[0]);
    unlink(csv[1]);
    unlink(nh[0]);
    unlink(js[0]);
    unlink(bad[0]);
    fl_arena_free(&a);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/floe-test-exec-scan-%d", (int)getpid());
    mkdir(dir, 0700);
    TEST_RUN(test_parquet);
    TEST_RUN(test_csv_json);
    rmdir(dir);
    return TEST_EXIT();
}
