/*
 * exec.c - the executor's driver (exec.h): builds one ex_node per plan node,
 * prepares pipeline breakers bottom-up, runs pipelines on worker threads
 * (morsel-driven: every worker owns an instance of the pipeline's operators
 * and pulls morsels from shared atomic cursors), and lets the consumer pull
 * the root pipeline batch by batch.
 *
 * Threads are started per pipeline run (ex_run_parallel) and joined before it
 * returns; the first error of any worker is kept in fl_exec.err and raises
 * fl_exec.failed, which every worker checks between batches, as it checks
 * env.cancel. Memory of materialized state is counted in fl_exec.mem_used.
 *
 * Ownership: fl_exec owns its nodes, their states and materialized rows;
 * batches handed out by fl_exec_next belong to the root operator and stay
 * valid until the next call. fl_exec_close frees everything (spill files
 * included, see the operators).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sql/exec/exec_internal.h"
#include "sql/exec/op_apply.h"

int64_t ex_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void ex_fail(fl_exec *x, const fl_error *err)
{
    pthread_mutex_lock(&x->mu);
    if (x->err.code == FL_OK && err && err->code != FL_OK)
        x->err = *err;
    pthread_mutex_unlock(&x->mu);
    atomic_store(&x->failed, 1);
}

fl_status ex_check(fl_exec *x, fl_error *err)
{
    if (x->env.cancel && atomic_load(x->env.cancel))
        return fl_errorf(err, FL_ECANCELED, "canceling statement due to user request");
    if (atomic_load(&x->failed)) {
        pthread_mutex_lock(&x->mu);
        fl_error e = x->err;
        pthread_mutex_unlock(&x->mu);
        if (e.code == FL_OK)
            return fl_errorf(err, FL_ECANCELED, "another worker failed");
        if (err)
            *err = e;
        return e.code;
    }
    return FL_OK;
}

fl_status ex_mem_add(fl_exec *x, int64_t bytes, const char *what, fl_error *err)
{
    long long now = atomic_fetch_add(&x->mem_used, bytes) + bytes;
    if (bytes > 0 && (uint64_t)now > x->memory_limit)
        return fl_error_state(err, FL_ELIMIT, "53200",
                              "%s: memory limit of %llu bytes exceeded (%lld bytes in use); raise "
                              "memory_limit",
                              what, (unsigned long long)x->memory_limit, now);
    return FL_OK;
}

uint64_t ex_spill_budget(fl_exec *x)
{
    uint64_t b = x->memory_limit / 2 / (x->threads ? x->threads : 1);
    return b < ((uint64_t)1 << 20) ? ((uint64_t)1 << 20) : b;
}

void ex_stats_out(ex_node *n, const fl_batch *b)
{
    atomic_fetch_add(&n->p->stats.rows_out, (long long)fl_batch_live_rows(b));
    atomic_fetch_add(&n->p->stats.batches_out, 1);
}

/* ---- nodes ---- */

static fl_status init_kind(ex_node *n, fl_error *err)
{
    switch (n->p->kind) {
    case FL_PLAN_SCAN: return ex_scan_node(n, err);
    case FL_PLAN_VALUES: return ex_values_node(n, err);
    case FL_PLAN_FILTER: return ex_filter_node(n, err);
    case FL_PLAN_PROJECT: return ex_project_node(n, err);
    case FL_PLAN_AGG: return ex_agg_node(n, err);
    case FL_PLAN_JOIN: return ex_join_node(n, err);
    case FL_PLAN_SORT: return ex_sort_node(n, err);
    case FL_PLAN_LIMIT: return ex_limit_node(n, err);
    case FL_PLAN_WINDOW: return ex_window_node(n, err);
    case FL_PLAN_SETOP: return ex_setop_node(n, err);
    case FL_PLAN_DISTINCT: return ex_distinct_node(n, err);
    case FL_PLAN_EMPTY: return ex_empty_node(n, err);
    /* lateral's operators (op_apply.c) */
    case FL_PLAN_APPLY: return ex_apply_node(n, err);
    case FL_PLAN_RECURSE: return ex_recurse_node(n, err);
    case FL_PLAN_SRF: return ex_srf_node(n, err);
    }
    return fl_errorf(err, FL_EUNSUPPORTED, "plan node kind %d", (int)n->p->kind);
}

static void node_free(ex_node *n)
{
    if (!n)
        return;
    for (uint32_t i = 0; i < n->nchildren; i++)
        node_free(n->children[i]);
    free(n->children);
    if (n->destroy)
        n->destroy(n);
    ex_rows_free(n->x, &n->out);
    free(n);
}

fl_status ex_node_build(fl_exec *x, fl_plan *p, ex_node **out, fl_error *err)
{
    ex_node *n = calloc(1, sizeof *n);
    if (!n)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    n->x = x;
    n->p = p;
    ex_rows_init(&n->out, &p->schema);
    fl_status rc = FL_OK;
    if (p->nchildren) {
        n->children = calloc(p->nchildren, sizeof *n->children);
        if (!n->children)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    for (uint32_t i = 0; !rc && i < p->nchildren; i++) {
        if (!p->children || !p->children[i])
            rc = fl_errorf(err, FL_EINVAL, "plan node has a missing child %u", i);
        else
            rc = ex_node_build(x, p->children[i], &n->children[i], err);
        if (!rc)
            n->nchildren++;
    }
    if (!rc)
        rc = init_kind(n, err);
    if (rc) {
        node_free(n);
        return rc;
    }
    *out = n;
    return FL_OK;
}

fl_status ex_prepare(ex_node *n, fl_error *err)
{
    if (n->prepared)
        return FL_OK;
    if (n->prepare) {
        int64_t t0 = ex_now_ns();
        FL_TRY(n->prepare(n, err));
        (void)t0;
    } else {
        for (uint32_t i = 0; i < n->nchildren; i++)
            FL_TRY(ex_prepare(n->children[i], err));
    }
    n->prepared = true;
    return FL_OK;
}

fl_status ex_open(ex_node *n, ex_thread *th, ex_op **out, fl_error *err)
{
    *out = NULL;
    FL_TRY(n->open(n, th, out, err));
    (*out)->node = n;
    (*out)->th = th;
    return FL_OK;
}

void ex_op_free(ex_op *op)
{
    if (op)
        op->free(op);
}

/* ---- the materialized-rows operator ---- */

typedef struct rows_op {
    ex_op base;
} rows_op;

static fl_status rows_next(ex_op *op, const fl_batch **out, fl_error *err)
{
    ex_node *n = op->node;
    *out = NULL;
    FL_TRY(ex_check(n->x, err));
    for (;;) {
        unsigned i = atomic_fetch_add(&n->cursor, 1);
        if (i >= n->out.n)
            return FL_OK;
        if (n->out.b[i]->nrows == 0)
            continue;
        *out = n->out.b[i];
        ex_stats_out(n, *out);
        return FL_OK;
    }
}

static void rows_free(ex_op *op)
{
    free(op);
}

fl_status ex_open_rows(ex_node *n, ex_thread *th, ex_op **out, fl_error *err)
{
    (void)th;
    rows_op *o = calloc(1, sizeof *o);
    if (!o)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    o->base.next = rows_next;
    o->base.free = rows_free;
    *out = &o->base;
    return FL_OK;
}

/* ---- running pipelines ---- */

typedef struct worker {
    ex_thread th;
    ex_op *op;
    ex_consume_fn consume;
    void *ctx;
    pthread_t tid;
    bool started;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    fl_exec *x = w->th.x;
    fl_error err = {0};
    fl_status rc = FL_OK;
    for (;;) {
        if ((rc = ex_check(x, &err)) != FL_OK)
            break;
        const fl_batch *b = NULL;
        if ((rc = w->op->next(w->op, &b, &err)) != FL_OK || !b)
            break;
        if (fl_batch_live_rows(b) == 0)
            continue;
        if ((rc = w->consume(w->ctx, &w->th, b, &err)) != FL_OK || w->th.stop)
            break;
    }
    if (rc)
        ex_fail(x, &err);
    return NULL;
}

static fl_status run_workers(ex_node *child, uint32_t nthreads, ex_consume_fn consume, void *ctx,
                             fl_error *err)
{
    fl_exec *x = child->x;
    FL_TRY(ex_prepare(child, err));
    worker *ws = calloc(nthreads, sizeof *ws);
    if (!ws)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = FL_OK;
    uint32_t opened = 0;
    for (; opened < nthreads && !rc; opened++) {
        worker *w = &ws[opened];
        w->th.x = x;
        w->th.tid = opened;
        w->consume = consume;
        w->ctx = ctx;
        rc = ex_eval_state_new(&x->env, &w->th.st, err);
        if (!rc)
            rc = ex_open(child, &w->th, &w->op, err);
    }
    if (!rc && nthreads == 1) {
        worker_main(&ws[0]);
    } else if (!rc) {
        /* an explicit stack: workers evaluate expressions as deep as the
         * front end allows (src/sql/parse/depth.h), whatever the default is */
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setstacksize(&at, (size_t)8 << 20);
        for (uint32_t i = 0; i < nthreads; i++) {
            if (pthread_create(&ws[i].tid, &at, worker_main, &ws[i]) != 0) {
                fl_error e;
                fl_errorf(&e, FL_EIO, "cannot start a worker thread");
                ex_fail(x, &e);
                break;
            }
            ws[i].started = true;
        }
        pthread_attr_destroy(&at);
        for (uint32_t i = 0; i < nthreads; i++)
            if (ws[i].started)
                pthread_join(ws[i].tid, NULL);
    }
    for (uint32_t i = 0; i < opened; i++) {
        ex_op_free(ws[i].op);
        ex_eval_state_free(ws[i].th.st);
    }
    free(ws);
    if (rc)
        return rc;
    return ex_check(x, err);
}

fl_status ex_run_parallel(ex_node *child, ex_consume_fn consume, void *ctx, fl_error *err)
{
    return run_workers(child, child->x->threads, consume, ctx, err);
}

fl_status ex_run_serial(ex_node *child, ex_consume_fn consume, void *ctx, fl_error *err)
{
    return run_workers(child, 1, consume, ctx, err);
}

/* ---- subqueries ---- */

static fl_status value_from_vector(const fl_vector *v, uint32_t row, fl_arena *a, fl_value *out,
                                   fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->type = *v->type;
    out->type.nchildren = 0;
    out->type.children = NULL;
    fl_unified u;
    fl_vector_unify(v, &u);
    if (!fl_unified_is_valid(&u, row)) {
        out->is_null = true;
        return FL_OK;
    }
    uint32_t r = fl_unified_row(&u, row);
    const fl_type *t = v->type;
    if (fl_type_is_nested(t))
        return fl_errorf(err, FL_EUNSUPPORTED, "a scalar subquery returning a nested value");
    if (fl_type_is_varlen(t) || t->id == FL_TYPE_UUID || t->id == FL_TYPE_FIXED) {
        size_t len;
        const uint8_t *p;
        if (fl_type_is_varlen(t)) {
            p = fl_vector_bytes(u.base, r, &len);
        } else {
            len = fl_type_width(t);
            p = u.base->data + (size_t)r * len;
        }
        uint8_t *copy = fl_arena_alloc(a, len + 1);
        if (!copy)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        memcpy(copy, p, len);
        copy[len] = 0;
        out->v.bytes.ptr = copy;
        out->v.bytes.len = len;
        return FL_OK;
    }
    const uint8_t *p = u.base->data + (size_t)r * fl_type_width(t);
    switch (t->id) {
    case FL_TYPE_BOOLEAN: out->v.b = p[0] != 0; break;
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: memcpy(&out->v.i32, p, 4); break;
    case FL_TYPE_FLOAT32: memcpy(&out->v.f32, p, 4); break;
    case FL_TYPE_FLOAT64: memcpy(&out->v.f64, p, 8); break;
    case FL_TYPE_DECIMAL: memcpy(&out->v.dec, p, 16); break;
    default: memcpy(&out->v.i64, p, 8); break;
    }
    return FL_OK;
}

static fl_status run_subquery_once(fl_exec *x, const fl_plan *p, fl_arena *a, fl_value *out,
                                   fl_error *err)
{
    fl_batch **bs = NULL;
    uint32_t nb = 0;
    fl_exec_options o = x->opt;
    o.env = x->opt.env;
    fl_status rc = fl_exec_collect((fl_plan *)p, &o, &bs, &nb, err);
    if (rc)
        return rc;
    uint64_t rows = 0;
    const fl_batch *hit = NULL;
    for (uint32_t i = 0; i < nb; i++) {
        rows += bs[i]->nrows;
        if (!hit && bs[i]->nrows)
            hit = bs[i];
    }
    if (p->schema.nfields < 1)
        rc = fl_errorf(err, FL_EINVAL, "scalar subquery without a column");
    else if (rows > 1)
        rc = fl_error_state(err, FL_EINVAL, "21000",
                            "more than one row returned by a subquery used as an expression "
                            "(SQLSTATE 21000)");
    else if (!hit) {
        memset(out, 0, sizeof *out);
        out->type = p->schema.fields[0].type;
        out->type.nchildren = 0;
        out->type.children = NULL;
        out->is_null = true;
    } else
        rc = value_from_vector(&hit->cols[0], 0, a, out, err);
    fl_exec_free_batches(bs, nb);
    return rc;
}

/* The value of the uncorrelated scalar subquery p: computed by the first
 * evaluator that needs it, then taken from the statement's cache (the
 * filter or projection holding it is evaluated on every worker thread). */
static fl_status run_subquery(void *exec_ctx, const fl_plan *p, fl_arena *a, fl_value *out,
                              fl_error *err)
{
    (void)a; /* the value lives in the statement's subq_arena */
    fl_exec *x = exec_ctx;
    pthread_mutex_lock(&x->subq_mu);
    for (uint32_t i = 0; i < x->nsubq; i++)
        if (x->subq[i].p == p) {
            *out = x->subq[i].v;
            pthread_mutex_unlock(&x->subq_mu);
            return FL_OK;
        }
    struct ex_subq *ns = realloc(x->subq, (x->nsubq + 1) * sizeof *ns);
    fl_status rc = ns ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    if (ns)
        x->subq = ns;
    if (rc == FL_OK)
        rc = run_subquery_once(x, p, &x->subq_arena, out, err);
    if (rc == FL_OK)
        x->subq[x->nsubq++] = (struct ex_subq){p, *out};
    pthread_mutex_unlock(&x->subq_mu);
    return rc;
}

/* Evaluation memory (strings built by functions, per node and thread)
 * counts against memory_limit like operator state. */
static fl_status charge_eval(void *exec_ctx, int64_t bytes, fl_error *err)
{
    return ex_mem_add(exec_ctx, bytes, "expression results", err);
}

static uint64_t available_eval(void *exec_ctx)
{
    fl_exec *x = exec_ctx;
    long long used = atomic_load(&x->mem_used);
    return used < 0 || (uint64_t)used >= x->memory_limit ? 0 : x->memory_limit - (uint64_t)used;
}

/* ---- the public API ---- */

fl_status fl_exec_open(fl_plan *plan, const fl_exec_options *opt, fl_exec **out, fl_error *err)
{
    *out = NULL;
    if (!plan)
        return fl_errorf(err, FL_EINVAL, "fl_exec_open: no plan");
    fl_exec *x = calloc(1, sizeof *x);
    if (!x)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (opt)
        x->opt = *opt;
    x->plan = plan;
    x->env = x->opt.env;
    if (!x->env.run_subquery) {
        x->env.run_subquery = run_subquery;
        x->env.exec_ctx = x;
        x->env.charge = charge_eval;
        x->env.available = available_eval;
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    x->threads = x->opt.threads ? x->opt.threads : (uint32_t)(cpus > 0 ? cpus : 1);
    if (x->threads > 256)
        x->threads = 256;
    x->memory_limit = x->opt.memory_limit;
    if (!x->memory_limit) {
        long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
        x->memory_limit = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz / 10 * 8
                                               : (uint64_t)4 << 30;
    }
    /* at least 512 KiB of memory_limit per thread: each thread's fixed
     * working set (an aggregate table's first payload block, key batch and
     * slots: ~100 KiB per operator) alone passed a tiny limit with many
     * threads ("SET memory_limit='1MB'" on 8 threads failed a 1000-group
     * GROUP BY that fits on 2) */
    if (x->threads > 1 && x->memory_limit / x->threads < ((uint64_t)512 << 10))
        x->threads = x->memory_limit >= ((uint64_t)1 << 20) ? (uint32_t)(x->memory_limit >> 19) : 1;
    pthread_mutex_init(&x->mu, NULL);
    pthread_mutex_init(&x->subq_mu, NULL);
    fl_arena_init(&x->arena, 0);
    fl_arena_init(&x->subq_arena, 0);
    fl_status rc = ex_node_build(x, plan, &x->root, err);
    if (rc) {
        fl_exec_close(x);
        return rc;
    }
    *out = x;
    return FL_OK;
}

fl_status fl_exec_next(fl_exec *x, const fl_batch **batch, bool *eof, fl_error *err)
{
    *batch = NULL;
    *eof = false;
    if (x->done) {
        *eof = true;
        return FL_OK;
    }
    fl_status rc = FL_OK;
    if (!x->started) {
        x->started = true;
        x->main_th = calloc(1, sizeof *x->main_th);
        if (!x->main_th)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        x->main_th->x = x;
        if ((rc = ex_eval_state_new(&x->env, &x->main_th->st, err)) != FL_OK ||
            (rc = ex_prepare(x->root, err)) != FL_OK ||
            (rc = ex_open(x->root, x->main_th, &x->root_op, err)) != FL_OK) {
            x->done = true;
            return rc;
        }
    }
    for (;;) {
        if ((rc = ex_check(x, err)) != FL_OK)
            break;
        const fl_batch *b = NULL;
        if ((rc = x->root_op->next(x->root_op, &b, err)) != FL_OK)
            break;
        if (!b) {
            x->done = true;
            *eof = true;
            return FL_OK;
        }
        if (fl_batch_live_rows(b) == 0)
            continue;
        *batch = b;
        return FL_OK;
    }
    x->done = true;
    atomic_store(&x->failed, 1);
    return rc;
}

typedef struct sink_ctx {
    fl_exec_sink_fn fn;
    void *ctx;
} sink_ctx;

static fl_status sink_consume(void *vctx, ex_thread *th, const fl_batch *b, fl_error *err)
{
    sink_ctx *s = vctx;
    return s->fn(s->ctx, th->tid, b, err);
}

uint32_t fl_exec_threads(const fl_exec *x)
{
    return x->threads ? x->threads : 1;
}

fl_status fl_exec_run_sink(fl_exec *x, fl_exec_sink_fn sink, void *ctx, fl_error *err)
{
    if (x->started)
        return fl_errorf(err, FL_EINVAL, "executor: already started");
    x->started = true;
    x->done = true;
    /* the root pipeline is one more pipeline run on the workers, as a
     * breaker runs its child's (ex_run_parallel): ex_prepare materializes
     * what lies below, the workers pull the root's morsels */
    sink_ctx sc = {sink, ctx};
    fl_status rc = ex_run_parallel(x->root, sink_consume, &sc, err);
    if (rc != FL_OK)
        atomic_store(&x->failed, 1);
    return rc;
}

void fl_exec_close(fl_exec *x)
{
    if (!x)
        return;
    atomic_store(&x->failed, 1);
    ex_op_free(x->root_op);
    if (x->main_th) {
        ex_eval_state_free(x->main_th->st);
        free(x->main_th);
    }
    node_free(x->root);
    fl_arena_free(&x->arena);
    pthread_mutex_destroy(&x->mu);
    pthread_mutex_destroy(&x->subq_mu);
    fl_arena_free(&x->subq_arena);
    free(x->subq);
    free(x);
}

fl_status fl_exec_collect(fl_plan *plan, const fl_exec_options *opt, fl_batch ***out, uint32_t *n,
                          fl_error *err)
{
    *out = NULL;
    *n = 0;
    fl_exec *x = NULL;
    FL_TRY(fl_exec_open(plan, opt, &x, err));
    ex_rows rows;
    ex_rows_init(&rows, &plan->schema);
    fl_status rc = FL_OK;
    for (;;) {
        const fl_batch *b;
        bool eof;
        if ((rc = fl_exec_next(x, &b, &eof, err)) != FL_OK || eof)
            break;
        if ((rc = ex_rows_append_batch(NULL, &rows, b, err)) != FL_OK)
            break;
    }
    fl_exec_close(x);
    if (rc) {
        ex_rows_free(NULL, &rows);
        return rc;
    }
    *out = rows.b;
    *n = rows.n;
    return FL_OK;
}

void fl_exec_free_batches(fl_batch **b, uint32_t n)
{
    if (!b)
        return;
    for (uint32_t i = 0; i < n; i++) {
        fl_batch_destroy(b[i]);
        free(b[i]);
    }
    free(b);
}
