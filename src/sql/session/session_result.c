/*
 * session_result.c - sql.h's results: streaming batches (selection vectors
 * compacted away, so every handed-out batch has sel == NULL), command tags,
 * answer receipts, the EXPLAIN ANALYZE-style profile, the statement_timeout
 * watchdog, and error details (SQLSTATE, position) for fl_sql_last_error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "floe/errcodes.h"
#include "sql/planner.h"
#include "sql/session/session_internal.h"
#include "sql/stmt/txn_block.h"

fl_status fl_session_result_new(fl_sql_session *s, fl_sql_result **out, fl_error *err)
{
    fl_sql_result *r = calloc(1, sizeof *r);
    if (!r)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    r->s = s;
    fl_arena_init(&r->arena, 0);
    r->sr.committed_snapshot_id = -1;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    atomic_init(&r->timed_out, 0);
    *out = r;
    return FL_OK;
}

void fl_session_record_error(fl_sql_session *s, fl_sql_result *r, fl_status rc, fl_error *err)
{
    if (s->block) /* any error ends what a transaction block may still do */
        fl_txn_block_set_failed(s->block);
    if (r && atomic_load(&r->timed_out) && !r->slot_wait_timed_out)
        fl_error_state(err, FL_ECANCELED, "57014", "canceling statement due to statement timeout");
    else if (rc == FL_ECANCELED && err && !err->sqlstate[0])
        fl_error_set_state(err, "57014");
    /* the SQLSTATE the error was raised with, else its status's default */
    const char *state = err && err->code ? fl_error_sqlstate(err) : fl_sqlstate_for_status(rc);
    snprintf(s->last.sqlstate, sizeof s->last.sqlstate, "%s", state);
    s->last.position = r ? r->pc.error_position : 0;
}

/* ---- statement_timeout ---- */

static void *timer_main(void *arg)
{
    fl_sql_result *r = arg;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    int64_t ms = r->timeout_ms; /* copied before the thread started (a SET may change the session's) */
    deadline.tv_sec += ms / 1000;
    deadline.tv_nsec += (ms % 1000) * 1000000;
    if (deadline.tv_nsec >= 1000000000) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&r->mu);
    int rc = 0;
    while (!r->done && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&r->cv, &r->mu, &deadline);
    if (!r->done) {
        atomic_store(&r->timed_out, 1);
        atomic_store(&r->s->cancel, 1);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

fl_status fl_session_start_timer(fl_sql_result *r, fl_error *err)
{
    r->timeout_ms = r->s->statement_timeout_ms;
    if (r->timeout_ms <= 0)
        return FL_OK;
    if (pthread_create(&r->timer, NULL, timer_main, r) != 0)
        return fl_errorf(err, FL_EIO, "cannot start the statement_timeout timer");
    r->timer_running = true;
    return FL_OK;
}

static void stop_timer(fl_sql_result *r)
{
    if (!r->timer_running)
        return;
    pthread_mutex_lock(&r->mu);
    r->done = true;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->timer, NULL);
    r->timer_running = false;
}

/* ---- receipts ---- */

fl_status fl_session_finish_reads(fl_sql_result *r, fl_error *err)
{
    uint32_t n = r->pc.nreads + (r->sr.committed_snapshot_id >= 0 ? 1 : 0);
    if (!n)
        return FL_OK;
    r->reads = fl_arena_calloc(&r->arena, n, sizeof(fl_sql_table_read));
    if (!r->reads)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < r->pc.nreads; i++) {
        r->reads[i].table = r->pc.reads[i].table;
        r->reads[i].snapshot_id = r->pc.reads[i].snapshot_id;
    }
    r->nreads = r->pc.nreads;
    if (r->sr.committed_snapshot_id >= 0) {
        fl_sql_table_read *w = &r->reads[r->nreads++];
        w->table = r->sr.committed_table ? r->sr.committed_table : "";
        w->snapshot_id = r->sr.committed_snapshot_id;
        w->written = true;
    }
    return FL_OK;
}

uint32_t fl_sql_result_nreads(const fl_sql_result *r)
{
    return r ? r->nreads : 0;
}

const fl_sql_table_read *fl_sql_result_read(const fl_sql_result *r, uint32_t i)
{
    return r && i < r->nreads ? &r->reads[i] : NULL;
}

uint32_t fl_sql_result_naccess(const fl_sql_result *r)
{
    return r ? r->naccess : 0;
}

const fl_sql_access *fl_sql_result_access(const fl_sql_result *r, uint32_t i)
{
    return r && i < r->naccess ? &r->access[i] : NULL;
}

/* ---- rows ---- */

const fl_schema *fl_sql_result_schema(const fl_sql_result *r)
{
    return &r->schema;
}

static fl_status compact(fl_sql_result *r, const fl_batch *in, const fl_batch **out,
                         fl_error *err)
{
    if (!in->sel) {
        *out = in;
        return FL_OK;
    }
    if (!r->compact_init) {
        FL_TRY(fl_batch_init(&r->compact, &r->schema, err));
        r->compact_init = true;
    }
    fl_batch *c = &r->compact;
    fl_batch_reset(c);
    uint32_t n = in->sel->count;
    for (uint32_t k = 0; k < in->ncols && k < c->ncols; k++) {
        FL_TRY(fl_vector_reserve(&c->cols[k], n, err));
        for (uint32_t i = 0; i < n; i++)
            FL_TRY(fl_vector_append_from(&c->cols[k], &in->cols[k], in->sel->idx[i], err));
    }
    c->nrows = n;
    *out = c;
    return FL_OK;
}

fl_status fl_sql_result_next(fl_sql_result *r, const fl_batch **batch, bool *eof, fl_error *err)
{
    *batch = NULL;
    *eof = false;
    if (r->eof) {
        *eof = true;
        return FL_OK;
    }
    if (r->is_command) {
        while (r->next_batch < r->sr.nbatches) {
            const fl_batch *b = r->sr.batches[r->next_batch++];
            if (fl_batch_live_rows(b) == 0)
                continue;
            fl_status rc = compact(r, b, batch, err);
            if (rc != FL_OK)
                fl_session_record_error(r->s, r, rc, err);
            return rc;
        }
        r->eof = true;
        *eof = true;
        stop_timer(r);
        fl_session_slot_release(r);
        return FL_OK;
    }
    for (;;) {
        const fl_batch *b = NULL;
        bool done = false;
        fl_status rc = fl_exec_next(r->exec, &b, &done, err);
        if (rc == FL_OK && !done && atomic_load(&r->timed_out))
            rc = FL_ECANCELED;
        if (rc != FL_OK) {
            fl_session_record_error(r->s, r, rc, err);
            return rc;
        }
        if (done || !b) {
            r->eof = true;
            *eof = true;
            snprintf(r->tag, sizeof r->tag, "SELECT %lld", (long long)r->rows);
            stop_timer(r);
            fl_session_slot_release(r); /* the work is done: the next statement may start */
            return FL_OK;
        }
        uint32_t live = fl_batch_live_rows(b);
        if (live == 0)
            continue;
        rc = compact(r, b, batch, err);
        if (rc != FL_OK) {
            fl_session_record_error(r->s, r, rc, err);
            return rc;
        }
        r->rows += live;
        return FL_OK;
    }
}

const char *fl_sql_result_tag(const fl_sql_result *r)
{
    return r->tag;
}

int64_t fl_sql_result_rows_affected(const fl_sql_result *r)
{
    return r->is_command ? r->sr.rows_affected : r->rows;
}

const char *fl_sql_result_profile(fl_sql_result *r)
{
    if (!r->plan)
        return "";
    const char *t = fl_plan_explain(r->plan, true, &r->arena);
    return t ? t : "";
}

void fl_sql_result_close(fl_sql_result *r)
{
    if (!r)
        return;
    stop_timer(r);
    fl_exec_close(r->exec);
    r->exec = NULL;
    fl_session_slot_release(r);
    if (r->parsed && r->parsed->stmt &&
        r->parsed->stmt->node_case == PG_QUERY__NODE__NODE_EXPLAIN_STMT) {
        for (uint32_t i = 0; i < r->sr.nbatches; i++) {
            fl_batch_destroy(r->sr.batches[i]);
            free(r->sr.batches[i]);
        }
        free(r->sr.batches);
        memset(&r->sr, 0, sizeof r->sr);
    } else if (r->is_command) {
        fl_stmt_result_free(&r->sr);
    }
    if (r->compact_init)
        fl_batch_destroy(&r->compact);
    fl_planner_ctx_release(&r->pc);
    fl_session_temp_undo(&r->temp_undo);
    fl_sql_parsed_free(r->parsed);
    fl_arena_free(&r->arena);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    if (r->s && (r->open_prev || r->s->open == r)) {
        if (r->open_prev)
            r->open_prev->open_next = r->open_next;
        else
            r->s->open = r->open_next;
        if (r->open_next)
            r->open_next->open_prev = r->open_prev;
    }
    free(r);
}
