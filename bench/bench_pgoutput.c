/*
 * bench_pgoutput.c - the CPU cost of the CDC source's protocol layer: pgoutput
 * messages decoded (src/ingest/pg_output.c) and every datum turned into an
 * fl_value (pg_types.c), on one thread, without a server. The workload is
 * the issue's: 10-column rows (int8 key, int4, numeric(12,2), text,
 * timestamptz, bool, float8, date, varchar, uuid), 85% inserts, 10% updates
 * with the key unchanged, 5% deletes (old key), 100 changes per transaction.
 *
 *   bench_pgoutput [changes=2000000]
 *
 * Prints changes/s decoded only, and decoded + values converted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ingest/pg_cdc.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct msg {
    uint8_t b[512];
    size_t n;
} msg;

static void put(msg *m, uint64_t v, int k)
{
    for (int i = k - 1; i >= 0; i--)
        m->b[m->n++] = (uint8_t)(v >> (8 * i));
}
static void put_str(msg *m, const char *s)
{
    size_t k = strlen(s) + 1;
    memcpy(m->b + m->n, s, k);
    m->n += k;
}
static void put_text(msg *m, const char *s)
{
    put(m, 't', 1);
    put(m, strlen(s), 4);
    memcpy(m->b + m->n, s, strlen(s));
    m->n += strlen(s);
}

static const struct {
    const char *name;
    uint32_t oid;
    int32_t typmod;
} cols[10] = {{"id", 20, -1},     {"qty", 23, -1},   {"amt", 1700, ((12 << 16) | 2) + 4},
              {"note", 25, -1},   {"ts", 1184, -1},  {"ok", 16, -1},
              {"score", 701, -1}, {"day", 1082, -1}, {"tag", 1043, 36},
              {"ref", 2950, -1}};

static void tuple(msg *m, long id, int full)
{
    char buf[64];
    put(m, 10, 2);
    snprintf(buf, sizeof buf, "%ld", id);
    put_text(m, buf);
    if (!full) {
        for (int i = 1; i < 10; i++)
            put(m, 'n', 1);
        return;
    }
    snprintf(buf, sizeof buf, "%ld", id % 1000);
    put_text(m, buf);
    snprintf(buf, sizeof buf, "%ld.%02ld", id % 100000, id % 100);
    put_text(m, buf);
    put_text(m, "a short note about the order, about forty bytes");
    put_text(m, "2024-05-06 07:08:09.123456+00");
    put_text(m, id % 2 ? "t" : "f");
    put_text(m, "3.141592653589793");
    put_text(m, "2024-05-06");
    put_text(m, "tag-42");
    put_text(m, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
}

static fl_status convert(void *ctx, const pgcdc_change *c, fl_error *err)
{
    fl_arena *a = ctx;
    const pgcdc_tuple *t = c->new_tuple ? c->new_tuple : c->old_tuple;
    for (uint16_t i = 0; i < t->ncols; i++) {
        fl_value v;
        if (t->cols[i].kind != PGCDC_UNCHANGED)
            FL_TRY(pgcdc_datum_value(&c->rel->cols[i], &t->cols[i], a, &v, err));
    }
    fl_arena_reset(a);
    return FL_OK;
}

static double run(long changes, msg *rel, msg *ins, msg *upd, msg *del, msg *begin, msg *commit,
                  bool values)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    pgcdc_callbacks cb = {0};
    cb.ctx = &a;
    if (values)
        cb.on_change = convert;
    pgcdc_decoder *d = pgcdc_decoder_new(1, &cb);
    fl_error err;
    double t0 = now_s();
    bool ok = pgcdc_decode(d, begin->b, begin->n, 1, &err) == FL_OK &&
              pgcdc_decode(d, rel->b, rel->n, 1, &err) == FL_OK;
    for (long i = 0; ok && i < changes; i++) {
        if (i % 100 == 0 && i > 0)
            ok = pgcdc_decode(d, commit->b, commit->n, 1, &err) == FL_OK &&
                 pgcdc_decode(d, begin->b, begin->n, 1, &err) == FL_OK;
        int r = (int)(i % 20);
        msg *m = r == 0 ? del : r <= 2 ? upd : ins;
        ok = ok && pgcdc_decode(d, m->b, m->n, 1, &err) == FL_OK;
    }
    double dt = now_s() - t0;
    if (!ok)
        fprintf(stderr, "decode failed: %s\n", err.msg);
    pgcdc_decoder_free(d);
    fl_arena_free(&a);
    return ok ? (double)changes / dt : 0;
}

int main(int argc, char **argv)
{
    long changes = argc > 1 ? atol(argv[1]) : 2000000;
    msg rel = {.n = 0}, ins = {.n = 0}, upd = {.n = 0}, del = {.n = 0};
    msg begin = {.n = 0}, commit = {.n = 0};
    put(&rel, 'R', 1), put(&rel, 16384, 4), put_str(&rel, "public"), put_str(&rel, "orders");
    put(&rel, 'd', 1), put(&rel, 10, 2);
    for (int i = 0; i < 10; i++) {
        put(&rel, i == 0, 1), put_str(&rel, cols[i].name);
        put(&rel, cols[i].oid, 4), put(&rel, (uint32_t)cols[i].typmod, 4);
    }
    put(&ins, 'I', 1), put(&ins, 16384, 4), put(&ins, 'N', 1), tuple(&ins, 123456, 1);
    put(&upd, 'U', 1), put(&upd, 16384, 4), put(&upd, 'N', 1), tuple(&upd, 123457, 1);
    put(&del, 'D', 1), put(&del, 16384, 4), put(&del, 'K', 1), tuple(&del, 123458, 0);
    put(&begin, 'B', 1), put(&begin, 100, 8), put(&begin, 1, 8), put(&begin, 7, 4);
    put(&commit, 'C', 1), put(&commit, 0, 1), put(&commit, 100, 8), put(&commit, 108, 8);
    put(&commit, 1, 8);
    double raw = run(changes, &rel, &ins, &upd, &del, &begin, &commit, false);
    double full = run(changes, &rel, &ins, &upd, &del, &begin, &commit, true);
    printf("pgoutput decode:            %10.0f changes/s (%ld changes, 10 columns)\n", raw,
           changes);
    printf("decode + values to floe:    %10.0f changes/s\n", full);
    return raw > 0 && full > 0 ? 0 : 1;
}
