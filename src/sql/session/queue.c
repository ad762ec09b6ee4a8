/*
 * queue.c - execution slots (include/floe/sql_queue.h): a FIFO of waiting
 * statements in front of max_running running ones and a memory budget.
 *
 * A waiter is a node on its own thread's stack with its own condition
 * variable, linked into the queue under the one mutex. Whoever frees room
 * (a statement leaving, a waiter giving up) admits from the head while the
 * head fits, counting the admitted statement as running before waking it,
 * so a slot can never be taken twice or lost between the wake-up and the
 * waiter's return. Waiters also wake every WAIT_POLL_MS to look at their
 * session's cancel flag, which cancel and statement_timeout set without
 * knowing about the queue.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "floe/sql_queue.h"
#include "sql/session/session_internal.h"

#define WAIT_POLL_MS 20

typedef struct waiter {
    struct waiter *prev, *next;
    uint64_t need;
    bool admitted;
    pthread_cond_t cv;
} waiter;

struct fl_sql_queue {
    pthread_mutex_t mu;
    uint32_t max_running, max_queued;
    uint64_t budget;
    uint32_t running, queued;
    uint64_t reserved;
    waiter *head, *tail;
    uint64_t admitted, waited, refused, canceled, wait_us_total, wait_us_max;
};

static uint64_t ram_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    return pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : (4ull << 30);
}

fl_status fl_sql_queue_new(const fl_sql_queue_options *o, fl_sql_queue **out, fl_error *err)
{
    *out = NULL;
    fl_sql_queue *q = calloc(1, sizeof *q);
    if (!q)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    q->max_running = o && o->max_running ? o->max_running : (cpus > 0 ? (uint32_t)cpus : 1);
    q->max_queued = o ? o->max_queued : 0;
    q->budget = o && o->memory_budget ? o->memory_budget : ram_bytes() / 10 * 8;
    pthread_mutex_init(&q->mu, NULL);
    *out = q;
    return FL_OK;
}

void fl_sql_queue_free(fl_sql_queue *q)
{
    if (!q)
        return;
    pthread_mutex_destroy(&q->mu);
    free(q);
}

uint64_t fl_sql_queue_share(const fl_sql_queue *q)
{
    return q ? q->budget / q->max_running : 0;
}

void fl_sql_queue_stats_get(fl_sql_queue *q, fl_sql_queue_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!q)
        return;
    pthread_mutex_lock(&q->mu);
    out->running = q->running;
    out->queued = q->queued;
    out->max_running = q->max_running;
    out->memory_reserved = q->reserved;
    out->memory_budget = q->budget;
    out->admitted = q->admitted;
    out->waited = q->waited;
    out->refused = q->refused;
    out->canceled = q->canceled;
    out->wait_us_total = q->wait_us_total;
    out->wait_us_max = q->wait_us_max;
    pthread_mutex_unlock(&q->mu);
}

/* ---- under q->mu ---- */

static bool fits(const fl_sql_queue *q, uint64_t need)
{
    return q->running < q->max_running && (q->running == 0 || q->reserved + need <= q->budget);
}

static void unlink_waiter(fl_sql_queue *q, waiter *w)
{
    if (w->prev)
        w->prev->next = w->next;
    else
        q->head = w->next;
    if (w->next)
        w->next->prev = w->prev;
    else
        q->tail = w->prev;
    w->prev = w->next = NULL;
    q->queued--;
}

static void start(fl_sql_queue *q, uint64_t need)
{
    q->running++;
    q->reserved += need;
    q->admitted++;
}

/* First come, first served: nobody passes a head that does not fit yet,
 * or a statement with a large memory_limit would wait for ever. */
static void admit_from_head(fl_sql_queue *q)
{
    while (q->head && fits(q, q->head->need)) {
        waiter *w = q->head;
        unlink_waiter(q, w);
        start(q, w->need);
        w->admitted = true;
        pthread_cond_signal(&w->cv);
    }
}

/* ---- enter and leave ---- */

static uint64_t mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void deadline_in(struct timespec *ts, long ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_nsec += ms * 1000000L;
    ts->tv_sec += ts->tv_nsec / 1000000000L;
    ts->tv_nsec %= 1000000000L;
}

static void wait_turn(fl_sql_queue *q, waiter *w, atomic_int *cancel)
{
    while (!w->admitted && !(cancel && atomic_load(cancel))) {
        struct timespec ts;
        deadline_in(&ts, WAIT_POLL_MS);
        pthread_cond_timedwait(&w->cv, &q->mu, &ts);
    }
}

fl_status fl_sql_queue_enter(fl_sql_queue *q, uint64_t memory, atomic_int *cancel,
                             uint64_t *reserved, uint64_t *waited_us, fl_error *err)
{
    *reserved = 0;
    *waited_us = 0;
    uint64_t need = memory && memory < q->budget ? memory : q->budget;
    pthread_mutex_lock(&q->mu);
    if (!q->head && fits(q, need)) {
        start(q, need);
        pthread_mutex_unlock(&q->mu);
        *reserved = need;
        return FL_OK;
    }
    if (q->max_queued && q->queued >= q->max_queued) {
        q->refused++;
        uint32_t running = q->running, queued = q->queued;
        pthread_mutex_unlock(&q->mu);
        return fl_error_state(err, FL_ELIMIT, "53000",
                              "too many statements waiting for an execution slot: %u running, "
                              "%u waiting, at most %u may wait (SQLSTATE 53000)",
                              running, queued, q->max_queued);
    }
    waiter w = {.need = need};
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w.cv, &ca);
    pthread_condattr_destroy(&ca);
    w.prev = q->tail;
    if (q->tail)
        q->tail->next = &w;
    else
        q->head = &w;
    q->tail = &w;
    q->queued++;
    uint64_t t0 = mono_us();
    wait_turn(q, &w, cancel);
    uint64_t dt = mono_us() - t0;
    *waited_us = dt;
    fl_status rc = FL_OK;
    if (w.admitted) {
        q->waited++;
        q->wait_us_total += dt;
        if (dt > q->wait_us_max)
            q->wait_us_max = dt;
        *reserved = need;
    } else {
        unlink_waiter(q, &w);
        q->canceled++;
        admit_from_head(q); /* the head that left may have been what blocked the rest */
        rc = fl_error_state(err, FL_ECANCELED, "57014",
                            "canceling statement while waiting for an execution slot (%u "
                            "running, %u waiting)",
                            q->running, q->queued);
    }
    pthread_mutex_unlock(&q->mu);
    pthread_cond_destroy(&w.cv);
    return rc;
}

void fl_sql_queue_leave(fl_sql_queue *q, uint64_t reserved)
{
    pthread_mutex_lock(&q->mu);
    if (q->running)
        q->running--;
    q->reserved = q->reserved > reserved ? q->reserved - reserved : 0;
    admit_from_head(q);
    pthread_mutex_unlock(&q->mu);
}
