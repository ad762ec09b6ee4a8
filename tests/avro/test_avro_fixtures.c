/*
 * test_avro_fixtures.c - every Avro file under ../shared/fixtures with an
 * *.expected.jsonl decodes to exactly those records (compared as parsed JSON
 * values), its header codec, record count and metadata keys match; the
 * negative files fail with a clear message. Skips (77) without fixtures.
 */
#include <ftw.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "avro/avro_internal.h"
#include "floe/avro.h"
#include "floe/io.h"
#include "test.h"

static const char *shared;
static int nfiles, nrecords;

static char **paths;
static size_t npaths, cappaths;

static int collect(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t n = strlen(p);
    const char *suf = ".expected.jsonl";
    if (type == FTW_F && n > strlen(suf) && !strcmp(p + n - strlen(suf), suf)) {
        if (npaths == cappaths) {
            cappaths = cappaths ? cappaths * 2 : 64;
            paths = realloc(paths, cappaths * sizeof *paths);
        }
        paths[npaths++] = strdup(p);
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Decodes avro_path and compares with the expected file. */
static void check_file(const char *avro_path, const char *expected_path)
{
    fl_error err = {0};
    FILE *ef = fopen(expected_path, "r");
    CHECK(ef != NULL);
    if (!ef)
        return;
    fl_fileio *io = fl_fileio_local();
    fl_file *f = NULL;
    fl_avro_reader *r = NULL;
    CHECK_OK(fl_fileio_open(io, avro_path, &f, &err), &err);
    if (f)
        CHECK_OK(fl_avro_reader_open(f, NULL, &r, &err), &err);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    json_t *header = NULL;
    if ((n = getline(&line, &cap, ef)) > 0)
        header = json_loads(line, 0, NULL);
    json_t *h = json_object_get(header, "$header");
    CHECK(h != NULL);
    if (!r || !h) {
        fprintf(stderr, "  %s: %s\n", avro_path, err.msg);
        goto out;
    }
    CHECK_EQ_STR(fl_avro_reader_codec(r), json_string_value(json_object_get(h, "codec")));
    json_t *mk = json_object_get(h, "meta_keys");
    if (mk) { /* expected: sorted keys not starting with "avro." */
        const char *keys[256];
        size_t nk = 0;
        for (size_t i = 0; i < fl_avro_reader_meta_count(r) && nk < 256; i++) {
            const char *k = fl_avro_reader_meta(r, i)->key;
            if (strncmp(k, "avro.", 5))
                keys[nk++] = k;
        }
        qsort(keys, nk, sizeof keys[0], cmp_str);
        CHECK_EQ_INT(nk, json_array_size(mk));
        for (size_t i = 0; i < nk && i < json_array_size(mk); i++)
            CHECK_EQ_STR(keys[i], json_string_value(json_array_get(mk, i)));
    }
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_avro_buf buf = {0};
    long long count = 0, want = json_integer_value(json_object_get(h, "records"));
    int mismatches = 0;
    for (;;) {
        fl_avro_value v;
        bool done;
        fl_arena_reset(&a);
        fl_status rc = fl_avro_reader_next(r, &a, &v, &done, &err);
        CHECK_OK(rc, &err);
        if (rc || done)
            break;
        count++;
        buf.len = 0;
        CHECK_OK(fl_avro_value_to_json(&v, &buf, &err), &err);
        json_error_t je;
        json_t *got =
            json_loadb((const char *)buf.data, buf.len, JSON_ALLOW_NUL | JSON_DECODE_ANY, &je);
        CHECK(got != NULL);
        n = getline(&line, &cap, ef);
        CHECK(n > 0);
        json_t *exp = n > 0 ? json_loads(line, JSON_ALLOW_NUL | JSON_DECODE_ANY, NULL) : NULL;
        CHECK(exp != NULL);
        if (got && exp && !json_equal(got, exp) && mismatches++ < 2) {
            CHECK(!"record differs");
            fprintf(stderr, "  %s record %lld\n  got:  %.*s\n  want: %s", avro_path, count,
                    (int)(buf.len > 600 ? 600 : buf.len), (const char *)buf.data, line);
        }
        json_decref(got);
        json_decref(exp);
    }
    CHECK_EQ_INT(count, want);
    CHECK(getline(&line, &cap, ef) <= 0); /* no expected records left over */
    nrecords += (int)count;
    nfiles++;
    fl_avro_buf_free(&buf);
    fl_arena_free(&a);
out:
    json_decref(header);
    free(line);
    fclose(ef);
    fl_avro_reader_close(r);
    fl_file_close(f);
    fl_fileio_destroy(io);
}

static void test_all_expected(void)
{
    char root[4096];
    snprintf(root, sizeof root, "%s/fixtures/avro", shared);
    nftw(root, collect, 16, FTW_PHYS);
    snprintf(root, sizeof root, "%s/fixtures/iceberg/avro-expected", shared);
    nftw(root, collect, 16, FTW_PHYS);
    CHECK(npaths >= 80);
    for (size_t i = 0; i < npaths; i++) {
        char avro[4096];
        const char *p = paths[i];
        size_t n = strlen(p) - strlen(".expected.jsonl");
        const char *ice = strstr(p, "/fixtures/iceberg/avro-expected/");
        if (ice) {
            size_t pre = (size_t)(ice - p) + strlen("/fixtures/iceberg/");
            const char *rest = ice + strlen("/fixtures/iceberg/avro-expected/");
            snprintf(avro, sizeof avro, "%.*s%.*s.avro", (int)pre, p, (int)(n - (size_t)(rest - p)),
                     rest);
        } else {
            snprintf(avro, sizeof avro, "%.*s.avro", (int)n, p);
        }
        int before = test_case_failed_;
        check_file(avro, p);
        if (test_case_failed_ && !before)
            fprintf(stderr, "  (in %s)\n", avro);
        free(paths[i]);
    }
    free(paths);
    fprintf(stderr, "  %d files, %d records matched\n", nfiles, nrecords);
}

/* Reads every record; returns the first failure (message in err). */
static fl_status read_all(const char *rel, fl_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/fixtures/avro/%s", shared, rel);
    fl_fileio *io = fl_fileio_local();
    fl_file *f = NULL;
    fl_avro_reader *r = NULL;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_status rc = fl_fileio_open(io, path, &f, err);
    if (!rc)
        rc = fl_avro_reader_open(f, NULL, &r, err);
    while (!rc) {
        fl_avro_value v;
        bool done;
        fl_arena_reset(&a);
        rc = fl_avro_reader_next(r, &a, &v, &done, err);
        if (done)
            break;
    }
    fl_arena_free(&a);
    fl_avro_reader_close(r);
    fl_file_close(f);
    fl_fileio_destroy(io);
    return rc;
}

static void test_negative(void)
{
    fl_error err = {0};
    CHECK_EQ_INT(read_all("apache-avro/lang-c-tests/avro-1237-bad-union-discriminant.avro", &err),
                 FL_ECORRUPT);
    CHECK(strstr(err.msg, "union branch index 2 out of range (2 branches) at byte offset") != NULL);
    CHECK(strstr(err.msg, "avro-1237-bad-union-discriminant.avro") != NULL);
    fprintf(stderr, "  %s\n", err.msg);
    CHECK_EQ_INT(read_all("apache-avro/lang-c-tests/avro-1238-truncated.avro", &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "truncated") != NULL);
    fprintf(stderr, "  %s\n", err.msg);
    CHECK_EQ_INT(read_all("apache-avro/share-test-data/test.avro12", &err), FL_EUNSUPPORTED);
    CHECK(strstr(err.msg, "version 0") != NULL);
    fprintf(stderr, "  %s\n", err.msg);
    /* good files next to them still read */
    CHECK_OK(read_all("apache-avro/lang-c-tests/avro-1237-good.avro", &err), &err);
    CHECK_OK(read_all("apache-avro/share-test-data/syncInMeta.avro", &err), &err);
}

/* Every truncation of a real file fails cleanly (or reads a prefix of it). */
static void test_truncations(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/fixtures/avro/apache-avro/share-test-data/weather-snappy.avro",
             shared);
    FILE *fp = fopen(path, "rb");
    CHECK(fp != NULL);
    if (!fp)
        return;
    uint8_t data[4096];
    size_t len = fread(data, 1, sizeof data, fp);
    fclose(fp);
    for (size_t cut = 0; cut < len; cut++) {
        fl_error err = {0};
        fl_file *f;
        fl_avro_reader *r = NULL;
        fl_arena a;
        fl_arena_init(&a, 0);
        CHECK_OK(fl_file_from_memory(data, cut, "cut.avro", &f, &err), &err);
        fl_status rc = fl_avro_reader_open(f, NULL, &r, &err);
        int recs = 0;
        while (!rc) {
            fl_avro_value v;
            bool done;
            rc = fl_avro_reader_next(r, &a, &v, &done, &err);
            if (done)
                break;
            recs++;
        }
        CHECK(rc != FL_OK || recs == 0); /* a cut inside the block is always detected */
        CHECK(rc == FL_OK || strstr(err.msg, "cut.avro") != NULL);
        fl_avro_reader_close(r);
        fl_file_close(f);
        fl_arena_free(&a);
    }
}

/* The 5000-entry manifest (one record per block) streams through a few
 * ranged reads, and reading it with a per-record arena stays small. */
static void test_streaming_reads(void)
{
    char path[4096];
    snprintf(path, sizeof path,
             "%s/fixtures/iceberg/duckdb-iceberg/data/persistent/generated_bounds/metadata/"
             "manifest-m0.avro",
             shared);
    fl_error err = {0};
    fl_fileio *io = fl_fileio_local();
    fl_file *f = NULL;
    fl_avro_reader *r = NULL;
    CHECK_OK(fl_fileio_open(io, path, &f, &err), &err);
    if (f)
        CHECK_OK(fl_avro_reader_open(f, NULL, &r, &err), &err);
    if (!r) {
        fl_file_close(f);
        fl_fileio_destroy(io);
        return;
    }
    fl_arena a;
    fl_arena_init(&a, 0);
    int n = 0;
    int64_t records_sum = 0;
    for (;;) {
        fl_avro_value v;
        bool done;
        fl_arena_reset(&a);
        if (fl_avro_reader_next(r, &a, &v, &done, &err) || done)
            break;
        const fl_avro_value *df = fl_avro_value_field(&v, "data_file");
        const fl_avro_value *rc = df ? fl_avro_value_field(df, "record_count") : NULL;
        if (rc)
            records_sum += rc->u.l;
        n++;
    }
    CHECK_EQ_INT(n, 5000);
    CHECK_EQ_INT(records_sum, 5000LL * 1000);
    CHECK_EQ_INT(f->bytes_read, f->size); /* every byte read exactly once */
    CHECK(f->reads < 20);                 /* not two reads per block */
    CHECK(a.total <= 256 * 1024);
    fprintf(stderr, "  %d records, %llu bytes in %llu reads\n", n,
            (unsigned long long)f->bytes_read, (unsigned long long)f->reads);
    fl_arena_free(&a);
    fl_avro_reader_close(r);
    fl_file_close(f);
    fl_fileio_destroy(io);
}

int main(void)
{
    shared = test_shared_dir();
    if (!shared) {
        fprintf(stderr, "skipped: FLOE_SHARED fixtures not found\n");
        return 77;
    }
    TEST_RUN(test_all_expected);
    TEST_RUN(test_negative);
    TEST_RUN(test_truncations);
    TEST_RUN(test_streaming_reads);
    return TEST_EXIT();
}
