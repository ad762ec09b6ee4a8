/*
 * bench_parquet_scan.c - scans a Parquet file with the floe reader and
 * touches every value of every projected column (bench/run.sh, tasks b, c).
 *
 *   bench_parquet_scan FILE [--columns a,b,c] [--date-range COL LO HI] [--threads N]
 *
 * --threads N scans with N threads, each with its own reader over every
 * N-th row group (one row group = one morsel); checksums are XORed.
 *
 * Every value goes into a checksum (integers and floats by their bits,
 * decimals by both 64-bit halves, strings by length and a byte, nulls by
 * position) so nothing can be skipped by the compiler or a lazy reader:
 * flat columns are summed per batch (vectorized, like DuckDB's aggregates),
 * other encodings and selected rows are folded row by row. --date-range keeps rows with LO <= COL
 * <= HI (dates as YYYY-MM-DD): the predicate prunes row groups/pages by statistics and filters rows
 * (the scan's selection vector); only selected rows count.
 *
 * Prints one JSON line: rows, seconds (wall, inside the process), checksum,
 * peak RSS (getrusage), bytes read and row groups pruned.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "floe/io.h"
#include "floe/parquet.h"
#include "floe/predicate.h"
#include "floe/vector.h"
#include "parquet/stats.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int32_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return (int32_t)(era * 146097 + (int64_t)doe - 719468);
}

static int parse_date(const char *s, int32_t *out)
{
    int y, m, d;
    if (sscanf(s, "%d-%d-%d", &y, &m, &d) != 3 || m < 1 || m > 12 || d < 1 || d > 31)
        return -1;
    *out = days_from_civil(y, (unsigned)m, (unsigned)d);
    return 0;
}

static inline uint64_t fold(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    return h;
}

/* Folds the selected rows of one column. Nested columns fold their children's values. */
/* Fast path for the common case, a FLAT vector and no selection: a sum of
 * every value (nulls count their row number), in loops the compiler
 * vectorizes, as DuckDB's sum()/max() aggregates consume their input. */
static uint64_t touch_flat(const fl_vector *b, uint32_t n)
{
    size_t w = fl_type_width(b->type);
    uint64_t acc = 0;
#define TOUCH_SUM(LOAD)                                                                            \
    do {                                                                                           \
        if (!b->validity) {                                                                        \
            for (uint32_t i = 0; i < n; i++)                                                       \
                acc += (LOAD);                                                                     \
        } else {                                                                                   \
            for (uint32_t i = 0; i < n; i++) {                                                     \
                uint64_t m = 0 - (uint64_t)((b->validity[i >> 3] >> (i & 7)) & 1);                 \
                acc += ((LOAD)&m) | ((uint64_t)i & ~m);                                            \
            }                                                                                      \
        }                                                                                          \
    } while (0)
    if (fl_type_is_varlen(b->type)) {
        const int64_t *o = b->offsets;
        const uint8_t *hp = b->heap;
        TOUCH_SUM((uint64_t)(o[i + 1] - o[i]) + (o[i + 1] > o[i] ? hp[o[i]] : 0));
    } else if (w == 16) {
        const uint64_t *d = (const uint64_t *)(const void *)b->data;
        TOUCH_SUM(d[2 * i] ^ d[2 * i + 1]);
    } else if (w == 8) {
        const uint64_t *d = (const uint64_t *)(const void *)b->data;
        TOUCH_SUM(d[i]);
    } else if (w == 4) {
        const uint32_t *d = (const uint32_t *)(const void *)b->data;
        TOUCH_SUM((uint64_t)d[i]);
    } else if (w) {
        const uint8_t *d = b->data;
        TOUCH_SUM((uint64_t)d[(size_t)i * w]);
    }
#undef TOUCH_SUM
    return acc;
}

static uint64_t touch(const fl_vector *v, const uint32_t *sel, uint32_t n, uint64_t h)
{
    if (v->encoding == FL_VEC_FLAT && !sel && !fl_type_is_nested(v->type))
        return fold(h, touch_flat(v, n));
    fl_unified u;
    fl_vector_unify(v, &u);
    const fl_vector *b = u.base;
    size_t w = fl_type_width(b->type);
    bool varlen = fl_type_is_varlen(b->type);
    /* The type dispatch is hoisted out of the row loop (one tight loop per
     * width), as a vectorized consumer would do; the fold order is per row. */
#define TOUCH_LOOP(EXPR)                                                                           \
    for (uint32_t k = 0; k < n; k++) {                                                             \
        uint32_t i = sel ? sel[k] : k;                                                             \
        if (!fl_unified_is_valid(&u, i)) {                                                         \
            h = fold(h, i);                                                                        \
            continue;                                                                              \
        }                                                                                          \
        uint32_t r = fl_unified_row(&u, i);                                                        \
        EXPR;                                                                                      \
    }
    if (varlen) {
        TOUCH_LOOP(size_t len; const uint8_t *p = fl_vector_bytes(b, r, &len);
                   h = fold(h, len ^ (len ? ((uint64_t)p[0] << 32 | p[len - 1]) : 0)))
    } else if (w == 16) {
        TOUCH_LOOP(uint64_t lo; uint64_t hi; memcpy(&lo, b->data + (size_t)r * 16, 8);
                   memcpy(&hi, b->data + (size_t)r * 16 + 8, 8); h = fold(fold(h, lo), hi))
    } else if (w == 8) {
        TOUCH_LOOP(uint64_t x; memcpy(&x, b->data + (size_t)r * 8, 8); h = fold(h, x))
    } else if (w == 4) {
        TOUCH_LOOP(uint32_t x; memcpy(&x, b->data + (size_t)r * 4, 4); h = fold(h, x))
    } else if (w == 1) {
        TOUCH_LOOP(h = fold(h, b->data[r]))
    } else if (w) {
        TOUCH_LOOP(h = fold(h, b->data[(size_t)r * w]))
    } else {
        TOUCH_LOOP((void)r)
    }
#undef TOUCH_LOOP
    if (fl_type_is_nested(b->type))
        for (uint32_t c = 0; c < b->nchildren; c++)
            h = touch(&b->children[c], NULL, b->children[c].len, h);
    return h;
}

/* The reader refers to the pruning functions weakly while stats.c was being
 * written (src/parquet/scan.c); from a static libfloe a weak reference alone
 * does not pull stats.o in, and pruning would silently be off. This strong
 * reference keeps the benchmark honest either way. */
typedef bool (*fl_bench_may_match_fn)(const fl_pq_leaf_info *, const fl_pq_statistics *, int64_t,
                                      const fl_col_pred *);
__attribute__((used)) static volatile fl_bench_may_match_fn fl_bench_keep_stats =
    fl_pq_stats_may_match;

#define MAX_THREADS 64

/* One scanning thread: its own file handle, reader and scan over the row
 * groups i with i % count == index (morsels of one row group each). */
typedef struct scan_worker {
    const char *path;
    fl_parquet_scan_options opts;
    int index, count;
    fl_status rc;
    fl_error err;
    uint64_t rows, checksum;
    fl_parquet_scan_stats stats;
} scan_worker;

static void *scan_worker_run(void *arg)
{
    scan_worker *w = arg;
    fl_fileio *io = fl_fileio_local();
    fl_file *f = NULL;
    fl_parquet_reader *r = NULL;
    fl_parquet_scan *s = NULL;
    uint32_t *groups = NULL;
    fl_batch b;
    bool batch_ok = false;
    w->rc = io ? fl_fileio_open(io, w->path, &f, &w->err) : fl_errorf(&w->err, FL_ENOMEM, "oom");
    if (w->rc == FL_OK)
        w->rc = fl_parquet_open(f, NULL, &r, &w->err);
    if (w->rc == FL_OK && w->count > 1) {
        uint32_t n = fl_parquet_num_row_groups(r), k = 0;
        groups = calloc(n + 1, sizeof *groups);
        if (!groups)
            w->rc = fl_errorf(&w->err, FL_ENOMEM, "oom");
        for (uint32_t g = 0; groups && g < n; g++)
            if ((int)(g % (uint32_t)w->count) == w->index)
                groups[k++] = g;
        w->opts.row_groups = groups;
        w->opts.nrow_groups = k;
        if (k == 0) /* nothing for this thread */
            goto done;
    }
    if (w->rc == FL_OK)
        w->rc = fl_parquet_scan_open(r, &w->opts, &s, &w->err);
    if (w->rc == FL_OK) {
        w->rc = fl_batch_init(&b, fl_parquet_scan_schema(s), &w->err);
        batch_ok = w->rc == FL_OK;
    }
    while (w->rc == FL_OK) {
        bool eof;
        w->rc = fl_parquet_scan_next(s, &b, &eof, &w->err);
        if (w->rc != FL_OK || eof)
            break;
        /* with --date-range the scan's selection holds the matching rows (run.sh checks the count)
         */
        uint32_t n = fl_batch_live_rows(&b);
        const uint32_t *sel = b.sel ? b.sel->idx : NULL;
        for (uint32_t c = 0; c < b.ncols; c++)
            w->checksum = touch(&b.cols[c], sel, n, w->checksum);
        w->rows += n;
    }
    if (s)
        fl_parquet_scan_get_stats(s, &w->stats);
done:
    if (batch_ok)
        fl_batch_destroy(&b);
    fl_parquet_scan_close(s);
    fl_parquet_close(r);
    fl_file_close(f);
    fl_fileio_destroy(io);
    free(groups);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr,
                "usage: bench_parquet_scan FILE [--columns a,b] [--date-range COL LO HI]\n");
        return 2;
    }
    const char *path = argv[1];
    const char *cols[64];
    uint32_t ncols = 0;
    char *colbuf = NULL;
    fl_col_pred terms[2];
    uint32_t nterms = 0;
    int nthreads = 1;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--columns") && i + 1 < argc) {
            colbuf = strdup(argv[++i]);
            for (char *t = strtok(colbuf, ","); t && ncols < 64; t = strtok(NULL, ","))
                cols[ncols++] = t;
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            nthreads = atoi(argv[++i]);
            if (nthreads < 1 || nthreads > MAX_THREADS) {
                fprintf(stderr, "--threads must be 1..%d\n", MAX_THREADS);
                return 2;
            }
        } else if (!strcmp(argv[i], "--date-range") && i + 3 < argc) {
            int32_t lo, hi;
            if (parse_date(argv[i + 2], &lo) || parse_date(argv[i + 3], &hi)) {
                fprintf(stderr, "bad date\n");
                return 2;
            }
            for (int k = 0; k < 2; k++) {
                memset(&terms[k], 0, sizeof terms[k]);
                terms[k].column = argv[i + 1];
                terms[k].op = k == 0 ? FL_CMP_GE : FL_CMP_LE;
                terms[k].value.type.id = FL_TYPE_DATE;
                terms[k].value.v.i32 = k == 0 ? lo : hi;
            }
            nterms = 2;
            i += 3;
        } else {
            fprintf(stderr, "unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    double t0 = now();
    fl_predicate pred = {.nterms = nterms, .terms = terms};
    fl_parquet_scan_options so = {.columns = ncols ? cols : NULL,
                                  .ncolumns = ncols,
                                  .predicate = nterms ? &pred : NULL,
                                  .filter_rows = nterms > 0};
    scan_worker workers[MAX_THREADS];
    pthread_t tids[MAX_THREADS];
    for (int t = 0; t < nthreads; t++) {
        workers[t] = (scan_worker){.path = path, .opts = so, .index = t, .count = nthreads};
        if (t > 0 && pthread_create(&tids[t], NULL, scan_worker_run, &workers[t]) != 0) {
            fprintf(stderr, "bench_parquet_scan: cannot start thread %d\n", t);
            return 1;
        }
    }
    scan_worker_run(&workers[0]);
    for (int t = 1; t < nthreads; t++)
        pthread_join(tids[t], NULL);
    double secs = now() - t0;
    uint64_t rows = 0, h = 0, bytes_read = 0;
    uint32_t pruned = 0, total = 0;
    for (int t = 0; t < nthreads; t++) {
        scan_worker *w = &workers[t];
        if (w->rc != FL_OK) {
            fprintf(stderr, "bench_parquet_scan: %s\n", w->err.msg);
            return 1;
        }
        rows += w->rows;
        h ^= w->checksum; /* each thread folds its own row groups in order */
        bytes_read += w->stats.bytes_read;
        pruned += w->stats.row_groups_pruned;
        total += w->stats.row_groups_total;
    }
    free(colbuf);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("{\"rows\":%" PRIu64 ",\"seconds\":%.4f,\"checksum\":\"%016" PRIx64
           "\",\"maxrss_kb\":%ld,"
           "\"bytes_read\":%" PRIu64 ",\"row_groups_pruned\":%u,\"row_groups\":%u}\n",
           rows, secs, h, ru.ru_maxrss, bytes_read, pruned, total);
    return 0;
}
