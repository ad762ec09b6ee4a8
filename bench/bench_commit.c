/*
 * bench_commit.c - latency of one append commit on local disk through the
 * SQLite catalog: begin + append(one small Parquet file written beforehand,
 * not timed) + commit (new manifest, manifest merge check, manifest list,
 * metadata JSON, catalog swap, table reload).
 *
 *   bench_commit [commits=500] [dir=/tmp]
 *
 * Prints p50/p95/p99/max latency, overall and per 100-commit window (the
 * metadata file grows with every snapshot), and the final metadata size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../tests/iceberg/txn_testcat.h"
#include "../tests/iceberg/txn_testdata.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *what, const double *v, int n)
{
    double *s = malloc(n * sizeof *s);
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_d);
    printf("%-18s n=%-4d p50 %7.2f ms  p95 %7.2f ms  p99 %7.2f ms  max %7.2f ms\n", what, n,
           s[n / 2], s[(int)(n * 0.95)], s[(int)(n * 0.99)], s[n - 1]);
    free(s);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 500;
    const char *base = argc > 2 ? argv[2] : "/tmp";
    if (n < 1)
        n = 500;
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/floe-bench-commit-XXXXXX", base);
    char *dir = mkdtemp(tmpl);
    fl_error err = {0};
    fl_fileio *io = fl_fileio_local();
    fl_catalog *c = NULL;
    fl_ice_table *t = NULL;
    if (!dir || td_catalog(dir, io, &c, &err) != FL_OK ||
        td_create(c, "t", NULL, 0, false, &t, &err) != FL_OK) {
        fprintf(stderr, "setup: %s\n", err.msg);
        return 1;
    }
    double *lat = malloc(n * sizeof *lat);
    fl_arena a;
    fl_arena_init(&a, 0);
    for (int i = 0; i < n; i++) {
        fl_ice_data_file f;
        char *p = fl_arena_sprintf(&a, "%s/wh/db/t/data/f%d.parquet", dir, i);
        if (td_write_file(io, p, (int64_t)i * 10, 10, i % 7, &a, &f, &err) != FL_OK) {
            fprintf(stderr, "data file: %s\n", err.msg);
            return 1;
        }
        double t0 = now_ms();
        fl_ice_txn *x = NULL;
        fl_status rc = fl_ice_txn_begin(t, &x, &err);
        if (rc == FL_OK)
            rc = fl_ice_txn_append(x, &f, 1, &err);
        if (rc == FL_OK)
            rc = fl_ice_txn_commit(x, NULL, &err);
        lat[i] = now_ms() - t0;
        if (rc != FL_OK) {
            fprintf(stderr, "commit %d: %s\n", i, err.msg);
            return 1;
        }
        fl_arena_reset(&a);
    }
    printf("append commit latency, SQLite catalog, local disk (%s)\n", base);
    report("all", lat, n);
    for (int w = 0; w + 100 <= n; w += 100) {
        char name[32];
        snprintf(name, sizeof name, "commits %d-%d", w + 1, w + 100);
        report(name, lat + w, 100);
    }
    struct stat st;
    if (stat(t->metadata_location, &st) == 0)
        printf("final metadata file: %lld bytes, %u snapshots\n", (long long)st.st_size,
               t->meta.nsnapshots);
    fl_ice_table_free(t);
    fl_catalog_close(c);
    fl_fileio_destroy(io);
    fl_arena_free(&a);
    free(lat);
    rm_rf(dir);
    return 0;
}
