/*
 * cmd_sql_progress.c - the progress line of `floe sql`'s running statement
 * (cmd_sql_progress.h).
 *
 * The statement runs on the shell's thread, inside fl_sql_execute (DDL and
 * DML run to completion there) and the first fl_sql_result_next (a query's
 * scans, joins and aggregates mostly run before its first batch). A poller
 * thread wakes every 100 ms, reads fl_sql_session_progress and hands the
 * counts to cli_progress_files, which decides whether to draw (progress.h).
 * Stopping wakes it at once through a condition variable, so a short
 * statement is not held up by a sleeping poller. A statement that scans
 * nothing (SET, VALUES, generate_series) draws no line at all.
 *
 * The poller blocks every signal: Ctrl-C must reach the shell's thread,
 * whose handler cancels the statement.
 */
#include "cli/cmd_sql_progress.h"

#include <signal.h>
#include <string.h>
#include <time.h>

#define POLL_NS (100 * 1000000L)

/* Draws the session's counters, once they are this statement's (not the
 * previous one's: it may not have started, or failed before it did) and it
 * scanned anything. */
static void draw_counts(fl_sqlprogress *p)
{
    fl_sql_progress c;
    fl_sql_session_progress(p->s, &c);
    if (c.statement != p->before && (c.files_total || c.rows_scanned))
        cli_progress_files(&p->line, c.files_done, c.files_total, c.rows_scanned, c.bytes_read);
}

static struct timespec next_poll(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += POLL_NS;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

static void *poll_main(void *arg)
{
    fl_sqlprogress *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        struct timespec until = next_poll();
        pthread_cond_timedwait(&p->wake, &p->mu, &until);
        if (p->stop)
            break;
        pthread_mutex_unlock(&p->mu);
        draw_counts(p);
        pthread_mutex_lock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Starts the poller with every signal blocked (it inherits the mask). */
static bool start_poller(fl_sqlprogress *p)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    bool ok = pthread_create(&p->poller, NULL, poll_main, p) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return ok;
}

void fl_sqlprogress_start(fl_sqlprogress *p, fl_sql_session *s)
{
    memset(p, 0, sizeof *p);
    p->s = s;
    cli_progress_init(&p->line, "floe sql", 0);
    if (!p->line.on || !s)
        return;
    fl_sql_progress now;
    fl_sql_session_progress(s, &now);
    p->before = now.statement;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    p->running = start_poller(p); /* without a thread: no progress, nothing else lost */
    if (!p->running) {
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->mu);
    }
}

void fl_sqlprogress_stop(void *arg)
{
    fl_sqlprogress *p = arg;
    if (!p->running)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->poller, NULL);
    p->running = false;
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mu);
    if (p->line.always) /* the counts as the output begins, whatever the timing */
        draw_counts(p);
    cli_progress_end(&p->line);
}
