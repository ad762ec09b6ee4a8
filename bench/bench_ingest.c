/*
 * bench_ingest.c - rows per second through the pipeline sink
 * (include/floe/ingest.h): 10-column events (bigint, timestamptz, bigint,
 * string, double, int, string, string, boolean, double) generated in
 * batches of 2048, written to a sink on a SQLite-catalog table (ZSTD
 * Parquet, the default codec), one checkpoint commit every --ckpt rows.
 * Generation time is excluded (batches are built once and reused with new
 * ids); the figure is sink write + Parquet encoding + commit, on one core.
 *
 *   bench_ingest [--rows N] [--ckpt N] [--dir D]   (default: 10M rows, a temporary dir)
 */
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "floe/ice_table.h"
#include "floe/ingest.h"
#include "floe/sql.h"

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
/* Wall time, and the process's CPU time (the machine may be shared). */
static double now_s(void)
{
    return clock_s(CLOCK_MONOTONIC);
}
static double cpu_s(void)
{
    return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static int fail(const char *what, const fl_error *err)
{
    fprintf(stderr, "bench_ingest: %s: %s\n", what, err->msg);
    return 1;
}

static fl_status fill(fl_batch *b, int64_t base, uint32_t n, fl_error *err)
{
    static const char *const kinds[] = {"click", "view", "purchase", "signup"};
    static const char *const countries[] = {"DE", "FR", "US", "JP", "BR", "IN"};
    static const char *const devices[] = {"ios", "android", "web"};
    fl_batch_reset(b);
    for (uint32_t i = 0; i < n; i++) {
        int64_t id = base + i, ts = 1767225600000000LL + id * 1000, user = (id * 7919) % 100000;
        double amount = (double)(id % 10000) / 100.0, score = (double)(id % 977) / 977.0;
        int32_t qty = (int32_t)(id % 9) + 1;
        uint8_t flag = (uint8_t)(id & 1);
        const char *k = kinds[id % 4], *c = countries[id % 6], *d = devices[id % 3];
        FL_TRY(fl_vector_append_fixed(&b->cols[0], &id, err));
        FL_TRY(fl_vector_append_fixed(&b->cols[1], &ts, err));
        FL_TRY(fl_vector_append_fixed(&b->cols[2], &user, err));
        FL_TRY(fl_vector_append_bytes(&b->cols[3], k, strlen(k), err));
        FL_TRY(fl_vector_append_fixed(&b->cols[4], &amount, err));
        FL_TRY(fl_vector_append_fixed(&b->cols[5], &qty, err));
        FL_TRY(fl_vector_append_bytes(&b->cols[6], c, strlen(c), err));
        FL_TRY(fl_vector_append_bytes(&b->cols[7], d, strlen(d), err));
        FL_TRY(fl_vector_append_fixed(&b->cols[8], &flag, err));
        FL_TRY(fl_vector_append_fixed(&b->cols[9], &score, err));
    }
    b->nrows = n;
    return FL_OK;
}

int main(int argc, char **argv)
{
    int64_t rows = 10000000, ckpt = 2000000;
    const char *dir = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rows"))
            rows = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--ckpt"))
            ckpt = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--dir"))
            dir = argv[i + 1];
    }
    char tmpl[] = "/tmp/bench_ingest_XXXXXX";
    bool own_dir = !dir;
    if (!dir && !(dir = mkdtemp(tmpl)))
        return 1;
    char uri[512], wh[512];
    snprintf(uri, sizeof uri, "sqlite:%s/cat.db", dir);
    snprintf(wh, sizeof wh, "%s/wh", dir);
    fl_error err = {0};
    fl_sql_options o = {.catalog_uri = uri, .warehouse = wh, .threads = 1};
    fl_sql_session *sql = NULL;
    if (fl_sql_session_open(&o, &sql, &err) != FL_OK)
        return fail("session", &err);
    const char *ddl[] = {"CREATE SCHEMA IF NOT EXISTS b",
                         "CREATE TABLE b.events (id bigint, ts timestamptz, user_id bigint, kind "
                         "varchar, amount double, qty int, country varchar, device varchar, flag "
                         "boolean, score double)"};
    for (int i = 0; i < 2; i++) {
        fl_sql_result *r = NULL;
        if (fl_sql_execute(sql, ddl[i], &r, &err) != FL_OK)
            return fail(ddl[i], &err);
        fl_sql_result_close(r);
    }
    fl_fileio *io = fl_fileio_local();
    fl_catalog *cat = NULL;
    if (fl_catalog_open_uri(uri, NULL, wh, io, &cat, &err) != FL_OK)
        return fail("catalog", &err);
    const char *levels[] = {"b"};
    fl_table_ident id = {.ns = {.levels = levels, .nlevels = 1}, .name = "events"};
    fl_ingest_options opt = {.checkpoint_rows = (uint64_t)ckpt, .checkpoint_interval_ms = 1 << 30};
    fl_ingest_sink *s = NULL;
    if (fl_ingest_sink_open(cat, &id, "bench", &opt, &s, &err) != FL_OK)
        return fail("sink", &err);
    fl_batch b;
    if (fl_batch_init(&b, fl_ingest_sink_schema(s), &err) != FL_OK)
        return fail("batch", &err);
    double t0 = now_s(), c0 = cpu_s(), gen = 0, gen_cpu = 0;
    int commits = 0;
    char pos[32];
    for (int64_t done = 0; done < rows;) {
        uint32_t n = rows - done < 2048 ? (uint32_t)(rows - done) : 2048;
        double g0 = now_s(), gc0 = cpu_s();
        if (fill(&b, done, n, &err) != FL_OK)
            return fail("fill", &err);
        gen += now_s() - g0;
        gen_cpu += cpu_s() - gc0;
        if (fl_ingest_sink_write(s, &b, &err) != FL_OK)
            return fail("write", &err);
        done += n;
        snprintf(pos, sizeof pos, "%" PRId64, done);
        if (fl_ingest_sink_set_position(s, "bench:0", pos, &err) != FL_OK)
            return fail("position", &err);
        if (fl_ingest_sink_due(s, 0) || done == rows) {
            if (fl_ingest_sink_checkpoint(s, NULL, &err) != FL_OK)
                return fail("checkpoint", &err);
            commits++;
        }
    }
    double secs = now_s() - t0 - gen, cpu = cpu_s() - c0 - gen_cpu;
    printf("bench_ingest: %" PRId64 " rows, %d commits, generation excluded: %.2f s wall "
           "(%.0f rows/s), %.2f s CPU (%.0f rows per CPU second)\n",
           rows, commits, secs, (double)rows / secs, cpu, (double)rows / cpu);
    fl_batch_destroy(&b);
    fl_ingest_sink_close(s);
    fl_catalog_close(cat);
    fl_fileio_destroy(io);
    fl_sql_session_close(sql);
    if (own_dir)
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}
