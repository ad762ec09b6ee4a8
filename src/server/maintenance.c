/*
 * maintenance.c - the table maintenance service of `floe serve`
 * (fl_server_options.maintain_interval_ms): a thread that runs
 * fl_ice_maintain_catalog (src/iceberg/maintain.c: compaction, expiry,
 * manifests; orphans once an hour) over every table every interval, and
 * counts what it did in /metrics.
 *
 * The thread has a catalog handle of its own (a pass may take long; the
 * request pool is not held), confined like every handle the server opens.
 * Its commits are ordinary catalog commits: a pass that races a writer
 * loses that step (validated, never destructive) and the next pass tries
 * again. It acts as the server itself, not as a principal: maintenance is
 * the operator's policy, set per table in properties (floe.maintenance.*).
 *
 * Ownership: srv_maint is owned by the server; stop joins the thread.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "floe/ice_table.h"
#include "server/server_internal.h"

struct srv_maint {
    fl_server *s;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    fl_catalog *cat;
    int64_t last_orphans_ms;
};

static void on_table(void *ctx, const fl_table_ident *id, const fl_ice_maintain_result *r,
                     const fl_error *e)
{
    (void)id;
    (void)e;
    srv_metrics *m = ctx;
    atomic_fetch_add_explicit(&m->maint_tables, 1, memory_order_relaxed);
    if (!r) {
        atomic_fetch_add_explicit(&m->maint_errors, 1, memory_order_relaxed);
        return;
    }
    atomic_fetch_add_explicit(&m->maint_files_rewritten, r->files_rewritten, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->maint_snapshots_expired, r->snapshots_expired,
                              memory_order_relaxed);
    atomic_fetch_add_explicit(&m->maint_orphans_removed, r->orphans_removed, memory_order_relaxed);
    if (r->files_rewritten)
        atomic_fetch_add_explicit(&m->maint_compactions, 1, memory_order_relaxed);
    if (r->conflict[0])
        atomic_fetch_add_explicit(&m->maint_conflicts, 1, memory_order_relaxed);
}

/* Waits up to ms; true when asked to stop. */
static bool wait_or_stop(srv_maint *mt, int64_t ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)(ms / 1000);
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&mt->mu);
    while (!mt->stop && pthread_cond_timedwait(&mt->cv, &mt->mu, &until) == 0) {
    }
    bool stop = mt->stop;
    pthread_mutex_unlock(&mt->mu);
    return stop;
}

static void *run(void *arg)
{
    srv_maint *mt = arg;
    srv_metrics *m = mt->s->metrics;
    int64_t every = mt->s->opt.maintain_interval_ms;
    while (!wait_or_stop(mt, every)) {
        int64_t now = srv_now_ms();
        bool orphans = now - mt->last_orphans_ms >= 3600 * 1000;
        fl_error err;
        fl_error_clear(&err);
        if (fl_ice_maintain_catalog(mt->cat, orphans, on_table, m, &err) != FL_OK)
            atomic_fetch_add_explicit(&m->maint_errors, 1, memory_order_relaxed);
        if (orphans)
            mt->last_orphans_ms = now;
        atomic_fetch_add_explicit(&m->maint_passes, 1, memory_order_relaxed);
    }
    return NULL;
}

fl_status srv_maint_start(fl_server *s, fl_error *err)
{
    if (s->opt.maintain_interval_ms <= 0)
        return FL_OK;
    srv_maint *mt = calloc(1, sizeof *mt);
    if (!mt)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    mt->s = s;
    mt->last_orphans_ms = srv_now_ms(); /* the first orphan sweep an hour after start */
    pthread_mutex_init(&mt->mu, NULL);
    pthread_cond_init(&mt->cv, NULL);
    fl_status rc =
        fl_catalog_open_uri(s->catalog_uri, s->catalog_name, s->warehouse, s->io, &mt->cat, err);
    if (rc == FL_OK) {
        srv_confine(s, mt->cat);
        if (pthread_create(&mt->thread, NULL, run, mt) != 0)
            rc = fl_errorf(err, FL_EIO, "maintenance: cannot start its thread");
    }
    if (rc != FL_OK) {
        fl_catalog_close(mt->cat);
        pthread_mutex_destroy(&mt->mu);
        pthread_cond_destroy(&mt->cv);
        free(mt);
        return fl_error_prefix(err, "maintenance service");
    }
    s->maint = mt;
    return FL_OK;
}

void srv_maint_stop(fl_server *s)
{
    srv_maint *mt = s->maint;
    if (!mt)
        return;
    pthread_mutex_lock(&mt->mu);
    mt->stop = true;
    pthread_cond_signal(&mt->cv);
    pthread_mutex_unlock(&mt->mu);
    pthread_join(mt->thread, NULL);
    fl_catalog_close(mt->cat);
    pthread_mutex_destroy(&mt->mu);
    pthread_cond_destroy(&mt->cv);
    free(mt);
    s->maint = NULL;
}
