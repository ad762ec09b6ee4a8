/*
 * test_data_writer.c - the Iceberg data writer core, read back through the
 * Parquet reader: partition split by day(ts) + bucket(id, 4) (every file's
 * rows share its partition tuple, which matches the path), sort order
 * within files, rolling at write.target-file-size-bytes, a bounded number of
 * open files, field ids and the "iceberg.schema" key, null checks for
 * required columns, and abort deleting what was written.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "floe/iceberg.h"
#include "floe/parquet.h"
#include "floe/parquet_meta.h"
#include "floe_test.h"
#include "iceberg/write_internal.h"

static fl_field g_fields[3] = {
    {.name = "id", .nullable = false, .type = {.id = FL_TYPE_INT64}},
    {.name = "ts", .nullable = true, .type = {.id = FL_TYPE_TIMESTAMPTZ}},
    {.name = "name", .nullable = true, .type = {.id = FL_TYPE_STRING}},
};
static fl_schema g_schema = {3, g_fields, 0};

#define DAY_US 86400000000LL
#define T0 1704067200000000LL /* 2024-01-01T00:00:00Z */

static fl_status make_meta(const char *loc, const char *const *parts, uint32_t np,
                           const char *const *sorts, uint32_t ns, const char *target, fl_arena *a,
                           fl_ice_metadata *m, fl_error *err)
{
    fl_ice_kv kv[1] = {{"write.target-file-size-bytes", target}};
    fl_ice_map props = {target ? 1 : 0, kv};
    fl_ice_create_options o = {.schema = &g_schema,
                               .partition_by = parts,
                               .npartition_by = np,
                               .sort_by = sorts,
                               .nsort_by = ns,
                               .properties = &props};
    return ice_new_table_metadata(&o, loc, "11111111-2222-4333-8444-555555555555", 1, a, m, err);
}

/* rows [start, start+n): id = i, ts = T0 + (i % 3) days, name = "n<i>" (null every 7th) */
static void fill(fl_batch *b, int64_t start, uint32_t n)
{
    fl_error err;
    fl_batch_reset(b);
    for (uint32_t k = 0; k < n; k++) {
        int64_t i = start + k;
        int64_t ts = T0 + (i % 3) * DAY_US + i;
        fl_vector_append_fixed(&b->cols[0], &i, &err);
        fl_vector_append_fixed(&b->cols[1], &ts, &err);
        if (i % 7 == 0)
            fl_vector_append_null(&b->cols[2], &err);
        else {
            char s[32];
            int l = snprintf(s, sizeof s, "n%lld", (long long)i);
            fl_vector_append_bytes(&b->cols[2], s, (size_t)l, &err);
        }
    }
    b->nrows = n;
}

typedef struct file_rows {
    int64_t n;
    int64_t ids[4096];
    int64_t ts[4096];
    bool sorted_desc;
    bool has_schema_kv;
    int32_t field_ids[3];
} file_rows;

static void read_file(fl_fileio *io, const char *path, file_rows *fr)
{
    fl_error err;
    fl_file *f = NULL;
    fl_parquet_reader *r = NULL;
    fl_parquet_scan *s = NULL;
    memset(fr, 0, sizeof *fr);
    CHECK_OK(fl_fileio_open(io, path, &f, &err), &err);
    CHECK_OK(fl_parquet_open(f, NULL, &r, &err), &err);
    if (!r) {
        fl_file_close(f);
        return;
    }
    const fl_schema *sc = fl_parquet_schema(r);
    for (uint32_t i = 0; i < sc->nfields && i < 3; i++)
        fr->field_ids[i] = sc->fields[i].field_id;
    const struct fl_pq_file_meta *fm = fl_parquet_footer(r);
    for (uint32_t i = 0; i < fm->nkv; i++)
        if (!strcmp(fm->key_value_metadata[i].key, "iceberg.schema") &&
            strstr(fm->key_value_metadata[i].value, "\"name\":\"ts\""))
            fr->has_schema_kv = true;
    fl_parquet_scan_options so = {0};
    CHECK_OK(fl_parquet_scan_open(r, &so, &s, &err), &err);
    fl_batch b;
    fl_batch_init(&b, fl_parquet_scan_schema(s), &err);
    for (;;) {
        bool eof;
        CHECK_OK(fl_parquet_scan_next(s, &b, &eof, &err), &err);
        if (eof)
            break;
        for (uint32_t k = 0; k < b.nrows && fr->n < 4096; k++) {
            fl_value v;
            ice_vector_value(&b.cols[0], k, &v);
            fr->ids[fr->n] = v.v.i64;
            ice_vector_value(&b.cols[1], k, &v);
            fr->ts[fr->n++] = v.v.i64;
        }
    }
    fr->sorted_desc = true;
    for (int64_t i = 1; i < fr->n; i++)
        if (fr->ids[i - 1] < fr->ids[i])
            fr->sorted_desc = false;
    fl_batch_destroy(&b);
    fl_parquet_scan_close(s);
    fl_parquet_close(r);
    fl_file_close(f);
}

static char *tmpdir(void)
{
    char d[512];
    return ft_tmpdir(d, sizeof d, "floe_dw") ? strdup(d) : NULL;
}

static void test_partitioned_sorted(void)
{
    char *dir = tmpdir();
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    const char *parts[] = {"day(ts)", "bucket(id, 4)"};
    const char *sorts[] = {"id DESC"};
    CHECK_OK(make_meta(dir, parts, 2, sorts, 1, NULL, &a, &m, &err), &err);
    fl_fileio *io = fl_fileio_local();
    ice_writer_config cfg = {.io = io, .meta = &m, .out_arena = &a};
    fl_ice_data_writer *w = NULL;
    CHECK_OK(ice_data_writer_open_cfg(&cfg, &w, &err), &err);
    fl_batch b;
    fl_batch_init(&b, &g_schema, &err);
    for (int k = 0; k < 3; k++) {
        fill(&b, k * 1000, 1000);
        CHECK_OK(fl_ice_data_writer_write(w, &b, &err), &err);
    }
    fl_ice_data_file *files;
    uint32_t n;
    CHECK_OK(fl_ice_data_writer_close(w, &files, &n, &err), &err);
    CHECK_EQ_INT(n, 12); /* 3 days x 4 buckets */
    int64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        fl_ice_data_file *df = &files[i];
        CHECK_EQ_INT(df->npartition, 2);
        CHECK_EQ_STR(df->file_format, "PARQUET");
        CHECK_EQ_INT(df->sort_order_id, 1);
        CHECK(df->partition[0].type.id == FL_TYPE_DATE);
        char want[128];
        snprintf(want, sizeof want, "/data/ts_day=2024-01-0%d/id_bucket=%d/",
                 1 + (int)(df->partition[0].v.i32 - 19723), (int)df->partition[1].v.i32);
        CHECK(strstr(df->file_path, want) != NULL);
        file_rows *fr = malloc(sizeof *fr);
        read_file(io, df->file_path, fr);
        CHECK_EQ_INT(fr->n, df->record_count);
        CHECK(fr->sorted_desc);
        CHECK(fr->has_schema_kv);
        CHECK_EQ_INT(fr->field_ids[0], 1);
        CHECK_EQ_INT(fr->field_ids[2], 3);
        for (int64_t r = 0; r < fr->n; r++) {
            fl_value id = {.type = {.id = FL_TYPE_INT64}, .v.i64 = fr->ids[r]};
            int32_t h;
            fl_ice_bucket_hash(&id, &h, &err);
            CHECK_EQ_INT((h & 0x7fffffff) % 4, df->partition[1].v.i32);
            CHECK_EQ_INT(fr->ts[r] / DAY_US, df->partition[0].v.i32);
        }
        struct stat st;
        CHECK(stat(df->file_path, &st) == 0 && st.st_size == df->file_size_in_bytes);
        total += fr->n;
        free(fr);
    }
    CHECK_EQ_INT(total, 3000);
    fl_batch_destroy(&b);
    fl_fileio_destroy(io);
    fl_arena_free(&a);
    ft_rmtree(dir);
    free(dir);
}

static void test_rolling_and_open_limit(void)
{
    char *dir = tmpdir();
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    const char *parts[] = {"bucket(id, 8)"};
    CHECK_OK(make_meta(dir, parts, 1, NULL, 0, "2000", &a, &m, &err), &err);
    fl_fileio *io = fl_fileio_local();
    ice_writer_config cfg = {.io = io, .meta = &m, .out_arena = &a, .max_open_files = 2};
    fl_ice_data_writer *w = NULL;
    CHECK_OK(ice_data_writer_open_cfg(&cfg, &w, &err), &err);
    fl_batch b;
    fl_batch_init(&b, &g_schema, &err);
    for (int k = 0; k < 20; k++) {
        fill(&b, k * 2048, 2048);
        CHECK_OK(fl_ice_data_writer_write(w, &b, &err), &err);
    }
    fl_ice_data_file *files;
    uint32_t n;
    CHECK_OK(fl_ice_data_writer_close(w, &files, &n, &err), &err);
    CHECK(n > 8); /* rolled */
    int64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        total += files[i].record_count;
        CHECK_EQ_INT(files[i].sort_order_id, 0);
    }
    CHECK_EQ_INT(total, 20 * 2048);
    fl_batch_destroy(&b);

    /* unpartitioned, unsorted fast path + abort removes files */
    fl_ice_metadata m2;
    CHECK_OK(make_meta(dir, NULL, 0, NULL, 0, NULL, &a, &m2, &err), &err);
    cfg.meta = &m2;
    CHECK_OK(ice_data_writer_open_cfg(&cfg, &w, &err), &err);
    CHECK(fl_ice_data_writer_schema(w)->nfields == 3);
    fl_batch_init(&b, &g_schema, &err);
    fill(&b, 0, 100);
    CHECK_OK(fl_ice_data_writer_write(w, &b, &err), &err);
    CHECK_OK(fl_ice_data_writer_close(w, &files, &n, &err), &err);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(files[0].record_count, 100);
    CHECK(strstr(files[0].file_path, "/data/") != NULL);
    CHECK(access(files[0].file_path, F_OK) == 0);

    /* a null in required column 'id' */
    CHECK_OK(ice_data_writer_open_cfg(&cfg, &w, &err), &err);
    fl_batch_reset(&b);
    fl_vector_append_null(&b.cols[0], &err);
    fl_vector_append_null(&b.cols[1], &err);
    fl_vector_append_null(&b.cols[2], &err);
    b.nrows = 1;
    CHECK(fl_ice_data_writer_write(w, &b, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "'id' is required") != NULL);
    fl_ice_data_writer_abort(w);

    /* abort after a finished file deletes it */
    fl_ice_kv kv[1] = {{"write.target-file-size-bytes", "100"}};
    m2.properties.items = kv;
    m2.properties.n = 1;
    CHECK_OK(ice_data_writer_open_cfg(&cfg, &w, &err), &err);
    fill(&b, 0, 500);
    CHECK_OK(fl_ice_data_writer_write(w, &b, &err), &err);
    fl_ice_data_writer_abort(w);
    /* nothing but the earlier file is left under data/ */
    char datadir[512];
    snprintf(datadir, sizeof datadir, "%s/data", dir);
    DIR *d = opendir(datadir);
    int count = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".parquet"))
            count++;
    if (d)
        closedir(d);
    CHECK_EQ_INT(count, 1);

    /* wrong batch shape */
    CHECK_OK(ice_data_writer_open_cfg(&cfg, &w, &err), &err);
    fl_field bad_f[1] = {{.name = "x", .type = {.id = FL_TYPE_INT32}}};
    fl_schema bad_s = {1, bad_f, 0};
    fl_batch bb;
    fl_batch_init(&bb, &bad_s, &err);
    CHECK(fl_ice_data_writer_write(w, &bb, &err) == FL_EINVAL);
    fl_batch_destroy(&bb);
    fl_ice_data_writer_abort(w);

    fl_batch_destroy(&b);
    fl_fileio_destroy(io);
    fl_arena_free(&a);
    ft_rmtree(dir);
    free(dir);
}

static void test_partition_paths(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_field f[4] = {{.name = "s", .nullable = true, .type = {.id = FL_TYPE_STRING}},
                     {.name = "ts", .nullable = true, .type = {.id = FL_TYPE_TIMESTAMP}},
                     {.name = "d",
                      .nullable = true,
                      .type = {.id = FL_TYPE_DECIMAL, .precision = 9, .scale = 2}},
                     {.name = "b", .nullable = true, .type = {.id = FL_TYPE_BINARY}}};
    fl_schema s = {4, f, 0};
    const char *parts[] = {"s", "hour(ts)", "month(ts)", "d", "b", "truncate(s, 2)"};
    fl_ice_create_options o = {.schema = &s, .partition_by = parts, .npartition_by = 6};
    fl_ice_metadata m;
    CHECK_OK(ice_new_table_metadata(&o, "/t", "u", 1, &a, &m, &err), &err);
    fl_value v[6];
    memset(v, 0, sizeof v);
    v[0].type.id = FL_TYPE_STRING;
    v[0].v.bytes.ptr = (const uint8_t *)"a b/c=d&é";
    v[0].v.bytes.len = strlen("a b/c=d&é");
    v[1].type.id = FL_TYPE_INT32;
    v[1].v.i32 = 473352 + 13; /* 2024-01-01-13 */
    v[2].type.id = FL_TYPE_INT32;
    v[2].v.i32 = 648; /* 2024-01 */
    v[3].type = f[2].type;
    v[3].v.dec = -1234;
    v[4].type.id = FL_TYPE_BINARY;
    v[4].v.bytes.ptr = (const uint8_t *)"\x01\x02\x03\xff";
    v[4].v.bytes.len = 4;
    v[5].is_null = true;
    const char *p = ice_partition_path(&m, &m.specs[0], v, &a);
    CHECK_EQ_STR(p, "s=a+b%2Fc%3Dd%26%C3%A9/ts_hour=2024-01-01-13/ts_month=2024-01/d=-12.34/"
                    "b=AQID%2Fw%3D%3D/s_trunc=null");
    fl_arena_free(&a);
}

int main(void)
{
    TEST_RUN(test_partitioned_sorted);
    TEST_RUN(test_rolling_and_open_limit);
    TEST_RUN(test_partition_paths);
    return TEST_EXIT();
}
