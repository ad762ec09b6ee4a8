/*
 * data_writers.c - several data writers feeding one transaction at once
 * (fl_ice_data_writers, ice_table.h): what lets an INSERT ... SELECT or a
 * CREATE TABLE AS encode, compress, partition and sort on every core.
 *
 * Each writer is an ordinary txn-bound writer (data_writer_txn.c) except
 * for the two things a writer shares with its transaction: the arena its
 * data-file structs go to is the writer's own (an arena is not
 * thread-safe), and registering a written file with the transaction (for
 * deletion on abort) goes through the set's mutex. The files' structs
 * therefore live in the set, which is freed after the commit. Writers are
 * opened lazily, by the thread that first writes to one, so a thread that
 * gets no rows writes no file, and sorted writes split the 256 MiB sort
 * buffer between the writers.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "floe/ice_table.h"
#include "iceberg/txn_internal.h"
#include "iceberg/write_internal.h"

typedef struct slot {
    fl_ice_data_writer *w;
    fl_arena arena; /* the data-file structs of w's files */
    /* its close (close_main): the files, the outcome, the thread */
    fl_ice_data_file *files;
    uint32_t nfiles;
    fl_status rc;
    fl_error err;
    pthread_t tid;
    bool started;
} slot;

struct fl_ice_data_writers {
    fl_ice_txn *x;
    pthread_mutex_t mu; /* fl_ice_txn_own_file */
    uint32_t n;
    slot *slots;
    fl_ice_data_file *files; /* fl_ice_data_writers_close's list (malloc) */
};

static fl_status own_locked(void *ctx, const char *path, fl_error *err)
{
    fl_ice_data_writers *s = ctx;
    pthread_mutex_lock(&s->mu);
    fl_status rc = fl_ice_txn_own_file(s->x, path, err);
    pthread_mutex_unlock(&s->mu);
    return rc;
}

fl_status fl_ice_data_writers_open(fl_ice_txn *x, uint32_t n, fl_ice_data_writers **out,
                                   fl_error *err)
{
    *out = NULL;
    fl_ice_data_writers *s = calloc(1, sizeof *s);
    if (!s || !n || !(s->slots = calloc(n, sizeof *s->slots))) {
        free(s);
        return n ? fl_errorf(err, FL_ENOMEM, "out of memory")
                 : fl_errorf(err, FL_EINVAL, "data writers: no writer asked for");
    }
    s->x = x;
    s->n = n;
    pthread_mutex_init(&s->mu, NULL);
    for (uint32_t i = 0; i < n; i++)
        fl_arena_init(&s->slots[i].arena, 0);
    *out = s;
    return FL_OK;
}

fl_status fl_ice_data_writers_write(fl_ice_data_writers *s, uint32_t i, const fl_batch *b,
                                    fl_error *err)
{
    if (i >= s->n)
        return fl_errorf(err, FL_EINVAL, "data writers: writer %u of %u", i, s->n);
    slot *sl = &s->slots[i];
    if (!sl->w) {
        ice_writer_config cfg;
        ice_writer_config_for_txn(s->x, &cfg);
        cfg.out_arena = &sl->arena;
        cfg.own_file = own_locked;
        cfg.own_ctx = s;
        cfg.max_buffer_bytes = (256ull << 20) / s->n;
        FL_TRY(ice_data_writer_open_cfg(&cfg, &sl->w, err));
    }
    return fl_ice_data_writer_write(sl->w, b, err);
}

/* Closing a writer finishes its files: a sorted writer sorts and writes
 * what it still buffers (up to its share of the sort buffer), so the
 * writers close on threads of their own, as they wrote. */
static void *close_main(void *arg)
{
    slot *sl = arg;
    fl_ice_data_writer *w = sl->w;
    sl->w = NULL;
    sl->rc = fl_ice_data_writer_close(w, &sl->files, &sl->nfiles, &sl->err);
    return NULL;
}

static void close_all(fl_ice_data_writers *s)
{
    uint32_t open = 0;
    for (uint32_t i = 0; i < s->n; i++)
        open += s->slots[i].w != NULL;
    for (uint32_t i = 0; i < s->n; i++) {
        slot *sl = &s->slots[i];
        if (!sl->w)
            continue;
        sl->started = open > 1 && pthread_create(&sl->tid, NULL, close_main, sl) == 0;
        if (!sl->started)
            close_main(sl);
    }
    for (uint32_t i = 0; i < s->n; i++)
        if (s->slots[i].started)
            pthread_join(s->slots[i].tid, NULL);
}

fl_status fl_ice_data_writers_close(fl_ice_data_writers *s, fl_ice_data_file **files, uint32_t *n,
                                    fl_error *err)
{
    *files = NULL;
    *n = 0;
    close_all(s);
    fl_status rc = FL_OK;
    uint32_t total = 0, cap = 0;
    for (uint32_t i = 0; i < s->n && rc == FL_OK; i++) {
        const slot *sl = &s->slots[i];
        if (sl->rc != FL_OK) {
            rc = sl->rc;
            *err = sl->err;
            break;
        }
        if (total + sl->nfiles > cap) {
            uint32_t nc = (total + sl->nfiles) * 2;
            fl_ice_data_file *g = realloc(s->files, nc * sizeof *g);
            if (!g)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            s->files = g;
            cap = nc;
        }
        if (sl->nfiles)
            memcpy(s->files + total, sl->files, sl->nfiles * sizeof *sl->files);
        total += sl->nfiles;
    }
    if (rc == FL_OK) {
        *files = s->files;
        *n = total;
    }
    return rc;
}

void fl_ice_data_writers_free(fl_ice_data_writers *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n; i++) {
        fl_ice_data_writer_abort(s->slots[i].w);
        fl_arena_free(&s->slots[i].arena);
    }
    pthread_mutex_destroy(&s->mu);
    free(s->slots);
    free(s->files);
    free(s);
}
