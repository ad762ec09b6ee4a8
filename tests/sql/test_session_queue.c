/*
 * test_session_queue.c - execution slots (include/floe/sql_queue.h):
 * statements reading data wait their turn behind max_running others and a
 * memory budget, first come first served; cheap statements never wait; a
 * wait ends at statement_timeout or a cancel with 57014, past max_queued a
 * statement is refused with 53000; a session holding a slot never waits
 * for itself; every slot comes back when results end or close.
 *
 * The statement that holds a slot is a generate_series read to its first
 * batch and left open, so nothing here depends on how fast anything runs:
 * the tests wait for the queue's own counters (with a bound that only
 * catches a hang).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "floe/sql.h"
#include "floe/sql_queue.h"
#include "test.h"

#define BIG "SELECT * FROM generate_series(1, 10000000)"
#define SMALL "SELECT count(*) FROM generate_series(1, 1000)"

static fl_sql_session *open_session(fl_sql_queue *q, uint64_t memory_limit)
{
    fl_sql_options o;
    memset(&o, 0, sizeof o);
    o.threads = 1;
    o.queue = q;
    o.memory_limit = memory_limit;
    fl_sql_session *s = NULL;
    fl_error err;
    CHECK_OK(fl_sql_session_open(&o, &s, &err), &err);
    return s;
}

static fl_sql_queue *new_queue(uint32_t running, uint32_t queued, uint64_t budget)
{
    fl_sql_queue_options o = {
        .max_running = running, .max_queued = queued, .memory_budget = budget};
    fl_sql_queue *q = NULL;
    fl_error err;
    CHECK_OK(fl_sql_queue_new(&o, &q, &err), &err);
    return q;
}

/* Starts sql and reads its first batch: the result holds its slot. */
static fl_sql_result *hold(fl_sql_session *s, const char *sql)
{
    fl_sql_result *r = NULL;
    fl_error err;
    CHECK_OK(fl_sql_execute(s, sql, &r, &err), &err);
    if (!r)
        return NULL;
    const fl_batch *b;
    bool eof = true;
    CHECK_OK(fl_sql_result_next(r, &b, &eof, &err), &err);
    CHECK(!eof);
    return r;
}

/* Runs sql to the end; its first value as text into v. */
static fl_status run(fl_sql_session *s, const char *sql, char *v, size_t cap, fl_error *err)
{
    fl_sql_result *r = NULL;
    if (v)
        v[0] = '\0';
    fl_status rc = fl_sql_execute(s, sql, &r, err);
    while (rc == FL_OK) {
        const fl_batch *b;
        bool eof;
        rc = fl_sql_result_next(r, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        if (v && !v[0] && b->nrows)
            fl_sql_format_value(&b->cols[0], 0, "UTC", v, cap);
    }
    fl_sql_result_close(r);
    return rc;
}

static fl_sql_queue_stats stats(fl_sql_queue *q)
{
    fl_sql_queue_stats st;
    fl_sql_queue_stats_get(q, &st);
    return st;
}

/* Waits (bounded: a hang fails the test, it never measures) until queued
 * statements wait. */
static bool wait_queued(fl_sql_queue *q, uint32_t queued)
{
    for (int i = 0; i < 3000; i++) {
        if (stats(q).queued == queued)
            return true;
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    return false;
}

typedef struct runner {
    fl_sql_session *s;
    const char *sql;
    fl_status rc;
    fl_error err;
    char value[64];
    pthread_t t;
} runner;

static void *runner_main(void *arg)
{
    runner *r = arg;
    r->rc = run(r->s, r->sql, r->value, sizeof r->value, &r->err);
    return NULL;
}

static void start(runner *r, fl_sql_session *s, const char *sql)
{
    memset(r, 0, sizeof *r);
    r->s = s;
    r->sql = sql;
    CHECK(pthread_create(&r->t, NULL, runner_main, r) == 0);
}

/* SELECT 1, SET, SHOW and plain EXPLAIN pass a full queue; data waits. */
static void test_cheap_statements_pass(void)
{
    fl_sql_queue *q = new_queue(1, 0, 0);
    fl_sql_session *a = open_session(q, 0), *b = open_session(q, 0);
    fl_sql_result *held = hold(a, BIG);
    CHECK_EQ_INT(stats(q).running, 1);
    fl_error err;
    char v[64];
    CHECK_OK(run(b, "SELECT 1", v, sizeof v, &err), &err);
    CHECK_EQ_STR(v, "1");
    CHECK_OK(run(b, "SET statement_timeout = 100", NULL, 0, &err), &err);
    CHECK_OK(run(b, "SHOW memory_limit", NULL, 0, &err), &err);
    CHECK_OK(run(b, "EXPLAIN " SMALL, NULL, 0, &err), &err);
    CHECK_OK(run(b, "SELECT upper('x') || 'y' FROM (VALUES (1), (2)) t(a)", v, sizeof v, &err),
             &err);
    CHECK_EQ_STR(v, "Xy");
    CHECK_EQ_INT(stats(q).waited, 0);
    /* a query reading data waits until statement_timeout, and says why */
    CHECK(run(b, SMALL, NULL, 0, &err) == FL_ECANCELED);
    fl_sql_error_info info;
    fl_sql_last_error(b, &info);
    CHECK_EQ_STR(info.sqlstate, "57014");
    CHECK(strstr(err.msg, "statement timeout") && strstr(err.msg, "execution slot"));
    /* so does one whose only read is a scalar subquery, and EXPLAIN ANALYZE */
    CHECK(run(b, "SELECT 1 + (" SMALL ")", NULL, 0, &err) == FL_ECANCELED);
    CHECK(run(b, "EXPLAIN ANALYZE " SMALL, NULL, 0, &err) == FL_ECANCELED);
    CHECK_EQ_INT(stats(q).canceled, 3);
    CHECK_EQ_INT(stats(q).running, 1);
    fl_sql_result_close(held);
    CHECK_EQ_INT(stats(q).running, 0);
    CHECK_OK(run(b, SMALL, v, sizeof v, &err), &err);
    CHECK_EQ_STR(v, "1000");
    fl_sql_session_close(a);
    fl_sql_session_close(b);
    CHECK_EQ_INT(stats(q).running, 0);
    CHECK_EQ_INT(stats(q).memory_reserved, 0);
    fl_sql_queue_free(q);
}

/* A waiter starts when the slot comes back: at the end of the holder's
 * rows, not only at its close. */
static void test_waiter_starts_when_slot_frees(void)
{
    fl_sql_queue *q = new_queue(1, 0, 0);
    fl_sql_session *a = open_session(q, 0), *b = open_session(q, 0);
    fl_sql_result *held = hold(a, "SELECT * FROM generate_series(1, 5000)");
    runner r;
    start(&r, b, SMALL);
    CHECK(wait_queued(q, 1));
    CHECK_EQ_INT(stats(q).running, 1);
    fl_error err;
    for (;;) { /* read the holder to its end, result still open */
        const fl_batch *bt;
        bool eof = true;
        CHECK_OK(fl_sql_result_next(held, &bt, &eof, &err), &err);
        if (eof)
            break;
    }
    pthread_join(r.t, NULL);
    CHECK_OK(r.rc, &r.err);
    CHECK_EQ_STR(r.value, "1000");
    CHECK_EQ_INT(stats(q).waited, 1);
    CHECK_EQ_INT(stats(q).running, 0);
    fl_sql_result_close(held);
    fl_sql_session_close(a);
    fl_sql_session_close(b);
    fl_sql_queue_free(q);
}

/* fl_sql_session_cancel ends a wait (57014); max_queued refuses (53000). */
static void test_cancel_and_refuse(void)
{
    fl_sql_queue *q = new_queue(1, 1, 0);
    fl_sql_session *a = open_session(q, 0), *b = open_session(q, 0), *c = open_session(q, 0);
    fl_sql_result *held = hold(a, BIG);
    runner r;
    start(&r, b, SMALL);
    CHECK(wait_queued(q, 1));
    fl_error err;
    CHECK(run(c, SMALL, NULL, 0, &err) == FL_ELIMIT);
    fl_sql_error_info info;
    fl_sql_last_error(c, &info);
    CHECK_EQ_STR(info.sqlstate, "53000");
    CHECK(strstr(err.msg, "waiting for an execution slot") != NULL);
    CHECK_EQ_INT(stats(q).refused, 1);
    fl_sql_session_cancel(b);
    pthread_join(r.t, NULL);
    CHECK(r.rc == FL_ECANCELED);
    CHECK(strstr(r.err.msg, "execution slot") != NULL);
    fl_sql_last_error(b, &info);
    CHECK_EQ_STR(info.sqlstate, "57014");
    CHECK_EQ_INT(stats(q).queued, 0);
    CHECK_EQ_INT(stats(q).running, 1);
    char v[64];
    CHECK_OK(run(a, SMALL, v, sizeof v, &err),
             &err); /* a holds a slot: it never waits for itself */
    CHECK_EQ_STR(v, "1000");
    fl_sql_result_close(held);
    CHECK_OK(run(b, SMALL, v, sizeof v, &err), &err); /* the cancelled session works again */
    CHECK_EQ_STR(v, "1000");
    fl_sql_session_close(a);
    fl_sql_session_close(b);
    fl_sql_session_close(c);
    CHECK_EQ_INT(stats(q).running, 0);
    fl_sql_queue_free(q);
}

/* Two slots, but the memory budget fits only one 80 MB statement: the
 * second waits; a small one that fits runs beside the first, never
 * passing a waiter ahead of it. */
static void test_memory_budget(void)
{
    const uint64_t mb = 1u << 20;
    fl_sql_queue *q = new_queue(2, 0, 100 * mb);
    CHECK_EQ_INT(fl_sql_queue_share(q), 50 * mb);
    fl_sql_session *a = open_session(q, 80 * mb), *b = open_session(q, 80 * mb),
                   *c = open_session(q, 10 * mb);
    fl_sql_result *held = hold(a, BIG);
    CHECK_EQ_INT(stats(q).memory_reserved, 80 * mb);
    runner rb, rc;
    start(&rb, b, SMALL);
    CHECK(wait_queued(q, 1));
    start(&rc, c, SMALL); /* fits, but b came first */
    CHECK(wait_queued(q, 2));
    CHECK_EQ_INT(stats(q).running, 1);
    fl_sql_result_close(held);
    pthread_join(rb.t, NULL);
    pthread_join(rc.t, NULL);
    CHECK_OK(rb.rc, &rb.err);
    CHECK_OK(rc.rc, &rc.err);
    CHECK_EQ_STR(rb.value, "1000");
    CHECK_EQ_STR(rc.value, "1000");
    /* b (80 MB) and c (10 MB) fit together */
    fl_sql_result *h1 = hold(b, BIG), *h2 = hold(c, BIG);
    CHECK_EQ_INT(stats(q).running, 2);
    CHECK_EQ_INT(stats(q).memory_reserved, 90 * mb);
    fl_sql_result_close(h1);
    fl_sql_result_close(h2);
    CHECK_EQ_INT(stats(q).memory_reserved, 0);
    CHECK_EQ_INT(stats(q).waited, 2);
    fl_sql_session_close(a);
    fl_sql_session_close(b);
    fl_sql_session_close(c);
    fl_sql_queue_free(q);
}

/* Closing a session with an open result gives its slot back. */
static void test_close_releases(void)
{
    fl_sql_queue *q = new_queue(1, 0, 0);
    fl_sql_session *a = open_session(q, 0), *b = open_session(q, 0);
    (void)hold(a, BIG);
    CHECK_EQ_INT(stats(q).running, 1);
    fl_sql_session_close(a);
    CHECK_EQ_INT(stats(q).running, 0);
    fl_error err;
    char v[64];
    CHECK_OK(run(b, SMALL, v, sizeof v, &err), &err);
    CHECK_EQ_STR(v, "1000");
    fl_sql_session_close(b);
    fl_sql_queue_free(q);
}

int main(void)
{
    TEST_RUN(test_cheap_statements_pass);
    TEST_RUN(test_waiter_starts_when_slot_frees);
    TEST_RUN(test_cancel_and_refuse);
    TEST_RUN(test_memory_budget);
    TEST_RUN(test_close_releases);
    return TEST_EXIT();
}
