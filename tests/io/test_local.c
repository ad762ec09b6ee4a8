/* Unit tests for src/io: the local FileIO (atomic create, no-replace,
 * overwrite, abort, remove, recursive list, ranged reads, counters) and the
 * memory file/output. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "floe/io.h"
#include "floe_test.h"

static char root[256];

static fl_status write_file(fl_fileio *io, const char *path, const char *text, int flags,
                            fl_error *err)
{
    fl_output *o;
    FL_TRY(fl_fileio_create(io, path, flags, &o, err));
    fl_status rc = fl_output_write(o, text, strlen(text), err);
    if (rc) {
        fl_output_abort(o);
        return rc;
    }
    return fl_output_close(o, err);
}

static int count_entries(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1)
            n = -1;
        pclose(p);
    }
    return n;
}

static void test_write_read(void)
{
    fl_error err;
    fl_fileio *io = fl_fileio_local();
    CHECK(io != NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/a/b/c.bin", root);
    fl_output *o;
    CHECK_OK(fl_fileio_create(io, path, 0, &o, &err), &err);
    /* not visible before close */
    CHECK(access(path, F_OK) != 0);
    size_t total = 0;
    uint8_t *big = malloc(1 << 20);
    for (size_t i = 0; i < (1 << 20); i++)
        big[i] = (uint8_t)(i * 31);
    CHECK_OK(fl_output_write(o, "hello", 5, &err), &err);
    total += 5;
    CHECK_OK(fl_output_write(o, big, 1 << 20, &err), &err);
    total += 1 << 20;
    for (int i = 0; i < 1000; i++) {
        CHECK_OK(fl_output_write(o, big, 100, &err), &err);
        total += 100;
    }
    CHECK_EQ_INT(o->written, total);
    CHECK_OK(fl_output_close(o, &err), &err);
    CHECK(access(path, F_OK) == 0);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/a/b", root);
    CHECK_EQ_INT(count_entries(dir), 1); /* no temp file left */

    fl_file *f;
    CHECK_OK(fl_fileio_open(io, path, &f, &err), &err);
    CHECK_EQ_INT(f->size, total);
    /* the modification time ("$file_modified_time"): just now */
    CHECK(f->has_mtime);
    CHECK(llabs(f->mtime_us / 1000000 - (long long)time(NULL)) < 3600);
    uint8_t buf[100];
    CHECK_OK(fl_file_read_at(f, 0, buf, 5, &err), &err);
    CHECK(memcmp(buf, "hello", 5) == 0);
    CHECK_OK(fl_file_read_at(f, 5 + 1000, buf, 100, &err), &err);
    CHECK(memcmp(buf, big + 1000, 100) == 0);
    CHECK_OK(fl_file_read_at(f, total - 100, buf, 100, &err), &err);
    CHECK(memcmp(buf, big, 100) == 0);
    CHECK_OK(fl_file_read_at(f, total, buf, 0, &err), &err);
    CHECK_EQ_INT(f->bytes_read, 205);
    CHECK_EQ_INT(f->reads, 4);
    CHECK_EQ_INT(fl_file_read_at(f, total - 50, buf, 100, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, path) != NULL);
    CHECK_EQ_INT(fl_file_read_at(f, UINT64_MAX, buf, 1, &err), FL_ECORRUPT);
    CHECK_EQ_INT(f->bytes_read, 205);
    fl_file_close(f);
    fl_file_close(NULL);

    /* file:// URIs */
    char uri[600];
    snprintf(uri, sizeof uri, "file://%s", path);
    CHECK_OK(fl_fileio_open(io, uri, &f, &err), &err);
    CHECK_EQ_INT(f->size, total);
    CHECK_EQ_STR(f->path, uri);
    fl_file_close(f);
    snprintf(uri, sizeof uri, "file:%s", path);
    CHECK_OK(fl_fileio_open(io, uri, &f, &err), &err);
    fl_file_close(f);
    free(big);
    fl_fileio_destroy(io);
}

static void test_exists_overwrite_abort(void)
{
    fl_error err;
    fl_fileio *io = fl_fileio_local();
    char path[512];
    snprintf(path, sizeof path, "%s/x.txt", root);
    CHECK_OK(write_file(io, path, "one", 0, &err), &err);
    CHECK_EQ_INT(write_file(io, path, "two", 0, &err), FL_EEXIST);
    CHECK(strstr(err.msg, path) != NULL);
    /* race: both outputs open before either closes; only one may win */
    fl_output *o1, *o2;
    char p2[512];
    snprintf(p2, sizeof p2, "%s/race.txt", root);
    CHECK_OK(fl_fileio_create(io, p2, 0, &o1, &err), &err);
    CHECK_OK(fl_fileio_create(io, p2, 0, &o2, &err), &err);
    CHECK_OK(fl_output_write(o1, "first", 5, &err), &err);
    CHECK_OK(fl_output_write(o2, "second", 6, &err), &err);
    CHECK_OK(fl_output_close(o1, &err), &err);
    CHECK_EQ_INT(fl_output_close(o2, &err), FL_EEXIST);
    fl_file *f;
    CHECK_OK(fl_fileio_open(io, p2, &f, &err), &err);
    CHECK_EQ_INT(f->size, 5);
    fl_file_close(f);
    /* overwrite */
    CHECK_OK(write_file(io, path, "three!", FL_CREATE_OVERWRITE, &err), &err);
    CHECK_OK(fl_fileio_open(io, path, &f, &err), &err);
    char buf[8];
    CHECK_EQ_INT(f->size, 6);
    CHECK_OK(fl_file_read_at(f, 0, buf, 6, &err), &err);
    CHECK(memcmp(buf, "three!", 6) == 0);
    fl_file_close(f);
    /* abort leaves nothing */
    char p3[512];
    snprintf(p3, sizeof p3, "%s/aborted/y.txt", root);
    fl_output *o;
    CHECK_OK(fl_fileio_create(io, p3, 0, &o, &err), &err);
    CHECK_OK(fl_output_write(o, "zzz", 3, &err), &err);
    fl_output_abort(o);
    fl_output_abort(NULL);
    CHECK(access(p3, F_OK) != 0);
    char d3[512];
    snprintf(d3, sizeof d3, "%s/aborted", root);
    CHECK_EQ_INT(count_entries(d3), 0);
    /* remove */
    CHECK_OK(fl_fileio_remove(io, path, &err), &err);
    CHECK_EQ_INT(fl_fileio_remove(io, path, &err), FL_ENOTFOUND);
    CHECK(strstr(err.msg, "No such file") != NULL);
    CHECK_EQ_INT(fl_fileio_open(io, path, &f, &err), FL_ENOTFOUND);
    CHECK(strstr(err.msg, path) != NULL);
    /* directories and bad paths */
    CHECK_EQ_INT(fl_fileio_open(io, root, &f, &err), FL_EINVAL);
    CHECK_EQ_INT(fl_fileio_create(io, d3, 0, &o, &err), FL_EEXIST);
    char bad[600];
    snprintf(bad, sizeof bad, "%s/x/", root);
    CHECK_EQ_INT(fl_fileio_create(io, bad, 0, &o, &err), FL_EINVAL);
    snprintf(bad, sizeof bad, "%s/race.txt/sub/file", root);
    CHECK(fl_fileio_create(io, bad, 0, &o, &err) != FL_OK);
    fl_fileio_destroy(io);
    fl_fileio_destroy(NULL);
}

typedef struct listed {
    char paths[32][512];
    uint64_t sizes[32];
    int n;
    int stop_after;
} listed;

static fl_status on_file(void *ctx, const char *path, uint64_t size)
{
    listed *l = ctx;
    if (l->n >= 32)
        return FL_ELIMIT;
    snprintf(l->paths[l->n], sizeof l->paths[0], "%s", path);
    l->sizes[l->n++] = size;
    if (l->stop_after && l->n == l->stop_after)
        return FL_ECANCELED;
    return FL_OK;
}

static void test_list(void)
{
    fl_error err;
    fl_fileio *io = fl_fileio_local();
    char p[512];
    const char *files[] = {"t/data/a.parquet", "t/data/b.parquet", "t/data/sub/c.parquet",
                           "t/data2/d.parquet", "t/metadata/v1.json"};
    for (int i = 0; i < 5; i++) {
        snprintf(p, sizeof p, "%s/%s", root, files[i]);
        CHECK_OK(write_file(io, p, files[i], 0, &err), &err);
    }
    /* an in-flight write is not listed */
    fl_output *o;
    snprintf(p, sizeof p, "%s/t/data/pending.parquet", root);
    CHECK_OK(fl_fileio_create(io, p, 0, &o, &err), &err);
    listed l = {0};
    snprintf(p, sizeof p, "%s/t/data/", root);
    CHECK_OK(io->ops->list(io, p, on_file, &l, &err), &err);
    CHECK_EQ_INT(l.n, 3);
    snprintf(p, sizeof p, "%s/t/data/a.parquet", root);
    CHECK_EQ_STR(l.paths[0], p);
    CHECK_EQ_INT(l.sizes[0], strlen(files[0]));
    snprintf(p, sizeof p, "%s/t/data/sub/c.parquet", root);
    CHECK_EQ_STR(l.paths[2], p);
    /* string prefix semantics: "t/data" also matches "t/data2" */
    memset(&l, 0, sizeof l);
    snprintf(p, sizeof p, "%s/t/data", root);
    CHECK_OK(io->ops->list(io, p, on_file, &l, &err), &err);
    CHECK_EQ_INT(l.n, 4);
    memset(&l, 0, sizeof l);
    snprintf(p, sizeof p, "file://%s/t/meta", root);
    CHECK_OK(io->ops->list(io, p, on_file, &l, &err), &err);
    CHECK_EQ_INT(l.n, 1);
    snprintf(p, sizeof p, "file://%s/t/metadata/v1.json", root);
    CHECK_EQ_STR(l.paths[0], p);
    /* missing prefix: nothing, no error */
    memset(&l, 0, sizeof l);
    snprintf(p, sizeof p, "%s/nope/", root);
    CHECK_OK(io->ops->list(io, p, on_file, &l, &err), &err);
    CHECK_EQ_INT(l.n, 0);
    /* callback errors stop the walk */
    memset(&l, 0, sizeof l);
    l.stop_after = 2;
    snprintf(p, sizeof p, "%s/t/", root);
    CHECK_EQ_INT(io->ops->list(io, p, on_file, &l, &err), FL_ECANCELED);
    CHECK_EQ_INT(l.n, 2);
    fl_output_abort(o);
    fl_fileio_destroy(io);
}

static void test_memory(void)
{
    fl_error err;
    const char data[] = "0123456789";
    fl_file *f;
    CHECK_OK(fl_file_from_memory(data, 10, "mem.bin", &f, &err), &err);
    char buf[10];
    CHECK_OK(fl_file_read_at(f, 3, buf, 4, &err), &err);
    CHECK(memcmp(buf, "3456", 4) == 0);
    CHECK_EQ_INT(fl_file_read_at(f, 8, buf, 3, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "mem.bin") != NULL);
    CHECK_EQ_INT(f->bytes_read, 4);
    CHECK_EQ_INT(f->reads, 1);
    fl_file_close(f);

    uint8_t *res = NULL;
    size_t len = 0;
    fl_output *o;
    CHECK_OK(fl_output_memory("out", &res, &len, &o, &err), &err);
    for (int i = 0; i < 10000; i++)
        CHECK_OK(fl_output_write(o, "abc", 3, &err), &err);
    CHECK_OK(fl_output_close(o, &err), &err);
    CHECK_EQ_INT(len, 30000);
    CHECK(res && memcmp(res + 29997, "abc", 3) == 0);
    free(res);
    res = NULL;
    CHECK_OK(fl_output_memory(NULL, &res, &len, &o, &err), &err);
    CHECK_OK(fl_output_close(o, &err), &err);
    CHECK(res != NULL && len == 0);
    free(res);
    res = NULL;
    CHECK_OK(fl_output_memory("x", &res, &len, &o, &err), &err);
    CHECK_OK(fl_output_write(o, "abc", 3, &err), &err);
    fl_output_abort(o);
    CHECK(res == NULL);
}

/* Devices and FIFOs are written in place, not replaced by a rename. */
static void test_special_files(void)
{
    fl_error err;
    fl_fileio *io = fl_fileio_local();
    fl_output *o;
    CHECK_OK(fl_fileio_create(io, "/dev/null", FL_CREATE_OVERWRITE, &o, &err), &err);
    CHECK_OK(fl_output_write(o, "discard", 7, &err), &err);
    CHECK_OK(fl_output_close(o, &err), &err);
    struct stat st;
    CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
    CHECK_EQ_INT(fl_fileio_create(io, "/dev/null", 0, &o, &err), FL_EEXIST);
    fl_file *f;
    CHECK_EQ_INT(fl_fileio_open(io, "/dev/null", &f, &err), FL_EINVAL);
    fl_fileio_destroy(io);
}

int main(void)
{
    if (!ft_tmpdir(root, sizeof root, "floe-test-local")) {
        perror("mkdtemp");
        return 1;
    }
    TEST_RUN(test_write_read);
    TEST_RUN(test_exists_overwrite_abort);
    TEST_RUN(test_list);
    TEST_RUN(test_memory);
    TEST_RUN(test_special_files);
    ft_rmtree(root);
    return TEST_EXIT();
}
