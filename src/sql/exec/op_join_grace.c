/*
 * op_join_grace.c - grace hash join: the part of JOIN (op_join.c) that runs
 * when the build side outgrows memory.
 *
 * Trigger: a build thread's rows exceed ex_spill_budget() (memory_limit / 2
 * / threads) and the join has equality keys (nested loops cannot be
 * partitioned). Then st->spilling is raised and every build thread moves
 * its rows so far, and every later batch, to JG_FANOUT = 64 partitions
 * chosen by hash bits 63..58 of the key hash (ex_hash_vec, the same hash
 * the table uses; the table's buckets use the low bits). Rows are staged
 * per thread and partition in FL_BATCH_CAP-row batches and written (under
 * the partition's mutex) to the partition's build spill file (spill.c, the
 * join's wide layout: build columns then evaluated key columns).
 *
 * After the build pipeline, the probe pipeline runs once on all threads
 * (so in grace mode the join is a breaker for its probe side too): probe
 * keys are evaluated and hashed and rows go to the same partition numbers'
 * probe files (probe columns then key columns). Matching rows always share
 * a partition, since equal keys hash equally; rows with NULL keys go
 * wherever their hash says - they match nothing there, which is what every
 * join type needs: outer joins still emit them, ANTI keeps them, MARK uses
 * the whole build side's "any NULL key" and "any row" flags (kept globally
 * in join_state, not per partition).
 *
 * Processing: every probing thread (join_op) claims partitions from a
 * shared queue. A partition whose build file is still over the budget is
 * split by the next 6 hash bits into 64 sub-partitions (both files), which
 * are queued (at most JG_MAX_LEVEL levels; a split that leaves every row in
 * one sub-partition - one huge key - stops splitting it, and it is loaded
 * as it is, counted against memory_limit). Otherwise the claimer reads the
 * build file into a private join_table, probes it with the partition's
 * probe batches, and (build-outer joins) emits the unmatched build rows of
 * the partition itself. The partition's files are closed right after.
 *
 * Files are unlinked at creation (spill.c): they vanish on close, error and
 * cancel. Bytes written are reported as the JOIN's spilled_bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/exec/join_internal.h"

static uint32_t part_of(uint64_t h, int level)
{
    return (uint32_t)(h >> (64 - JG_BITS * (level + 1))) & (JG_FANOUT - 1);
}

static fl_status new_part(join_state *st, fl_exec *x, int level, grace_part **out, fl_error *err)
{
    *out = NULL;
    grace_part *p = calloc(1, sizeof *p);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    pthread_mutex_lock(&st->qmu);
    if (st->nall == st->capall) {
        uint32_t nc = st->capall ? st->capall * 2 : 128;
        grace_part **na = realloc(st->all, nc * sizeof *na);
        if (!na) {
            pthread_mutex_unlock(&st->qmu);
            free(p);
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
        st->all = na;
        st->capall = nc;
    }
    st->all[st->nall++] = p;
    pthread_mutex_unlock(&st->qmu);
    p->level = level;
    FL_TRY(ex_spill_open(x, &p->b, err));
    FL_TRY(ex_spill_open(x, &p->p, err));
    *out = p;
    return FL_OK;
}

static fl_status write_stage(ex_node *n, grace_part *p, bool probe, fl_batch *sb,
                             pthread_mutex_t *mu, fl_error *err)
{
    if (sb->nrows == 0)
        return FL_OK;
    ex_spill *f = probe ? &p->p : &p->b;
    if (mu)
        pthread_mutex_lock(mu);
    uint64_t before = f->bytes;
    fl_status rc = ex_spill_write(f, sb, err);
    uint64_t wrote = f->bytes - before;
    if (mu)
        pthread_mutex_unlock(mu);
    atomic_fetch_add(probe ? &p->prows : &p->brows, sb->nrows);
    atomic_fetch_add(&n->p->stats.spilled_bytes, (long long)wrote);
    fl_batch_reset(sb);
    return rc;
}

/* Routes the live rows of w (keys at cols[keyoff..]) to parts by the hash
 * bits of level, through the staging batches stage[JG_FANOUT]; mu (NULL =
 * private parts) guards each part's files. */
static fl_status route(ex_node *n, const fl_batch *w, uint32_t keyoff, int level,
                       fl_batch *stage, grace_part **parts, pthread_mutex_t *mu, bool probe,
                       fl_error *err)
{
    join_state *st = n->state;
    uint32_t live = fl_batch_live_rows(w);
    if (live == 0)
        return FL_OK;
    uint64_t *h = malloc((size_t)w->nrows * sizeof *h);
    uint32_t *rows = malloc((size_t)live * sizeof *rows);
    uint32_t cnt[JG_FANOUT + 1];
    fl_status rc = h && rows ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_unified ku[32];
    for (uint32_t k = 0; !rc && k < st->nkeys; k++) {
        rc = ex_hash_vec(&w->cols[keyoff + k], w->sel, w->nrows, h, k == 0, err);
        fl_vector_unify(&w->cols[keyoff + k], &ku[k]);
    }
    if (rc)
        goto out;
    memset(cnt, 0, sizeof cnt);
    for (uint32_t i = 0; i < live; i++)
        cnt[part_of(h[w->sel ? w->sel->idx[i] : i], level) + 1]++;
    for (uint32_t q = 1; q <= JG_FANOUT; q++)
        cnt[q] += cnt[q - 1];
    uint32_t start[JG_FANOUT];
    memcpy(start, cnt, sizeof start);
    bool nullkey = false;
    for (uint32_t i = 0; i < live; i++) {
        uint32_t r = w->sel ? w->sel->idx[i] : i;
        rows[start[part_of(h[r], level)]++] = r;
        if (!probe && !nullkey && ex_join_key_null(st, ku, r))
            nullkey = true;
    }
    if (nullkey)
        atomic_store(&st->g_null_key, true);
    if (!probe && level == 0)
        atomic_fetch_add(&st->g_rows, live);
    for (uint32_t q = 0; q < JG_FANOUT && !rc; q++) {
        uint32_t from = cnt[q], to = cnt[q + 1];
        fl_batch *sb = &stage[q];
        while (from < to && !rc) {
            uint32_t take = FL_BATCH_CAP - sb->nrows;
            if (take > to - from)
                take = to - from;
            for (uint32_t c = 0; c < w->ncols && !rc; c++)
                rc = ex_vec_append_rows(&sb->cols[c], &w->cols[c], rows + from, take, err);
            sb->nrows += take;
            from += take;
            if (!rc && sb->nrows == FL_BATCH_CAP)
                rc = write_stage(n, parts[q], probe, sb, mu ? &mu[q] : NULL, err);
        }
    }
out:
    free(h);
    free(rows);
    return rc;
}

static fl_status init_grace(ex_node *n, fl_error *err)
{
    join_state *st = n->state;
    /* called under st->qmu by the first spilling thread */
    uint32_t nt = st->nlocals;
    st->stage = calloc((size_t)nt * JG_FANOUT, sizeof *st->stage);
    st->flushed = calloc(nt, sizeof *st->flushed);
    if (!st->stage || !st->flushed)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < nt * JG_FANOUT; i++)
        FL_TRY(fl_batch_init(&st->stage[i], st->wide, err));
    return FL_OK;
}

/* Parts of level 0 exist once (created by whoever gets here first). */
static fl_status ensure_top(ex_node *n, fl_error *err)
{
    join_state *st = n->state;
    pthread_mutex_lock(&st->top_mu[0]);
    fl_status rc = FL_OK;
    if (!st->stage)
        rc = init_grace(n, err);
    for (uint32_t q = 0; !rc && q < JG_FANOUT; q++)
        if (!st->top[q])
            rc = new_part(st, n->x, 0, &st->top[q], err);
    pthread_mutex_unlock(&st->top_mu[0]);
    return rc;
}

/* Moves thread tid's in-memory build rows to the partitions. */
static fl_status flush_locals(ex_node *n, uint32_t tid, fl_error *err)
{
    join_state *st = n->state;
    if (st->flushed[tid])
        return FL_OK;
    st->flushed[tid] = true;
    ex_rows *r = &st->locals[tid];
    for (uint32_t i = 0; i < r->n; i++)
        FL_TRY(route(n, r->b[i], st->nb, 0, st->stage + (size_t)tid * JG_FANOUT, st->top,
                     st->top_mu, false, err));
    ex_jrows_free(n->x, r);
    ex_jmem_free(n->x, &st->lmem[tid]);
    return FL_OK;
}

fl_status ex_grace_build_route(ex_node *n, ex_thread *th, const fl_batch *w, fl_error *err)
{
    join_state *st = n->state;
    FL_TRY(ensure_top(n, err));
    FL_TRY(flush_locals(n, th->tid, err));
    return route(n, w, st->nb, 0, st->stage + (size_t)th->tid * JG_FANOUT, st->top, st->top_mu,
                 false, err);
}

static fl_status probe_consume(void *ctx, ex_thread *th, const fl_batch *b, fl_error *err)
{
    ex_node *n = ctx;
    join_state *st = n->state;
    ex_exprs *ke = &st->lkeys[th->tid];
    ke->e = st->pkeys;
    ke->n = st->nkeys;
    FL_TRY(ex_exprs_eval(th, ke, b, b->sel, err));
    uint32_t m = st->np + st->nkeys;
    fl_vector cols[m];
    for (uint32_t c = 0; c < st->np; c++)
        cols[c] = b->cols[c];
    for (uint32_t k = 0; k < st->nkeys; k++)
        cols[st->np + k] = *ke->ptrs[k];
    fl_batch w = {.schema = st->pwide, .ncols = m, .cols = cols, .nrows = b->nrows,
                  .sel = b->sel};
    return route(n, &w, st->np, 0, st->stage + (size_t)th->tid * JG_FANOUT, st->top, st->top_mu,
                 true, err);
}

static fl_status flush_stages(ex_node *n, bool probe, fl_error *err)
{
    join_state *st = n->state;
    for (uint32_t t = 0; t < st->nlocals; t++)
        for (uint32_t q = 0; q < JG_FANOUT; q++)
            FL_TRY(write_stage(n, st->top[q], probe, &st->stage[(size_t)t * JG_FANOUT + q], NULL,
                               err));
    return FL_OK;
}

fl_status ex_grace_finish_build(ex_node *n, fl_error *err)
{
    join_state *st = n->state;
    FL_TRY(ensure_top(n, err));
    for (uint32_t t = 0; t < st->nlocals; t++)
        FL_TRY(flush_locals(n, t, err));
    FL_TRY(flush_stages(n, false, err));
    /* the probe side, partitioned the same way */
    for (uint32_t i = 0; i < st->nlocals * JG_FANOUT; i++) {
        fl_batch_destroy(&st->stage[i]);
        FL_TRY(fl_batch_init(&st->stage[i], st->pwide, err));
    }
    FL_TRY(ex_run_parallel(n->children[st->pi], probe_consume, n, err));
    for (uint32_t t = 0; t < st->nlocals; t++)
        ex_exprs_free(&st->lkeys[t]);
    FL_TRY(flush_stages(n, true, err));
    for (uint32_t i = 0; i < st->nlocals * JG_FANOUT; i++)
        fl_batch_destroy(&st->stage[i]);
    free(st->stage);
    st->stage = NULL;
    st->queue = calloc(JG_FANOUT, sizeof *st->queue);
    if (!st->queue)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    st->capqueue = JG_FANOUT;
    for (uint32_t q = JG_FANOUT; q-- > 0;) {
        grace_part *p = st->top[q];
        if (atomic_load(&p->brows) || atomic_load(&p->prows))
            st->queue[st->nqueue++] = p;
        else
            ex_grace_release(p);
    }
    st->grace = true;
    return FL_OK;
}

static fl_status push_part(join_state *st, grace_part *p, fl_error *err)
{
    pthread_mutex_lock(&st->qmu);
    if (st->nqueue == st->capqueue) {
        uint32_t nc = st->capqueue ? st->capqueue * 2 : 64;
        grace_part **nq = realloc(st->queue, nc * sizeof *nq);
        if (!nq) {
            pthread_mutex_unlock(&st->qmu);
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
        st->queue = nq;
        st->capqueue = nc;
    }
    st->queue[st->nqueue++] = p;
    pthread_mutex_unlock(&st->qmu);
    return FL_OK;
}

/* Splits p into JG_FANOUT sub-partitions by the next hash bits and queues them. */
static fl_status split(ex_node *n, grace_part *p, fl_batch *stage, fl_error *err)
{
    join_state *st = n->state;
    grace_part *kids[JG_FANOUT];
    for (uint32_t q = 0; q < JG_FANOUT; q++)
        FL_TRY(new_part(st, n->x, p->level + 1, &kids[q], err));
    for (int side = 0; side < 2; side++) {
        bool probe = side == 1;
        ex_spill *f = probe ? &p->p : &p->b;
        fl_batch *sb = stage + (probe ? JG_FANOUT : 0);
        fl_batch rb;
        FL_TRY(fl_batch_init(&rb, probe ? st->pwide : st->wide, err));
        fl_status rc = ex_spill_rewind(f, err);
        while (!rc) {
            bool eof;
            if ((rc = ex_spill_read(f, &rb, &eof, err)) != FL_OK || eof)
                break;
            rc = route(n, &rb, probe ? st->np : st->nb, p->level + 1, sb, kids, NULL, probe, err);
        }
        fl_batch_destroy(&rb);
        for (uint32_t q = 0; !rc && q < JG_FANOUT; q++)
            rc = write_stage(n, kids[q], probe, &sb[q], NULL, err);
        FL_TRY(rc);
    }
    uint64_t total = atomic_load(&p->brows);
    ex_grace_release(p);
    for (uint32_t q = 0; q < JG_FANOUT; q++) {
        grace_part *k = kids[q];
        if (!atomic_load(&k->brows) && !atomic_load(&k->prows)) {
            ex_grace_release(k);
            continue;
        }
        if (atomic_load(&k->brows) == total)
            k->nosplit = true; /* one key (or one hash) holds every row */
        FL_TRY(push_part(st, k, err));
    }
    return FL_OK;
}

static fl_status load(ex_node *n, grace_part *p, join_table *t, fl_error *err)
{
    join_state *st = n->state;
    FL_TRY(ex_spill_rewind(&p->b, err));
    fl_batch rb;
    FL_TRY(fl_batch_init(&rb, st->wide, err));
    fl_status rc = FL_OK;
    for (;;) {
        bool eof;
        if ((rc = ex_spill_read(&p->b, &rb, &eof, err)) != FL_OK || eof)
            break;
        const fl_vector *cols[rb.ncols ? rb.ncols : 1];
        for (uint32_t c = 0; c < rb.ncols; c++)
            cols[c] = &rb.cols[c];
        if ((rc = ex_jrows_append(n->x, &t->mem, &t->build, cols, rb.nrows, rb.sel, err)) != FL_OK)
            break;
    }
    fl_batch_destroy(&rb);
    FL_TRY(rc);
    FL_TRY(ex_join_build_table(n->x, st, t, false, err));
    return ex_spill_rewind(&p->p, err);
}

fl_status ex_grace_claim(ex_node *n, fl_batch *stage, join_table *t, grace_part **part,
                         fl_error *err)
{
    join_state *st = n->state;
    *part = NULL;
    for (;;) {
        FL_TRY(ex_check(n->x, err));
        pthread_mutex_lock(&st->qmu);
        grace_part *p = st->nqueue ? st->queue[--st->nqueue] : NULL;
        pthread_mutex_unlock(&st->qmu);
        if (!p)
            return FL_OK;
        /* in memory: the file's bytes plus the table (~ 24 bytes a row) */
        uint64_t need = p->b.bytes + atomic_load(&p->brows) * 24;
        if (need > st->budget && !p->nosplit && p->level < JG_MAX_LEVEL) {
            fl_status rc = split(n, p, stage, err);
            if (rc) {
                ex_grace_release(p);
                return rc;
            }
            continue;
        }
        fl_status rc = load(n, p, t, err);
        if (rc) {
            ex_grace_release(p);
            return rc;
        }
        *part = p;
        return FL_OK;
    }
}

void ex_grace_release(grace_part *p)
{
    ex_spill_close(&p->b);
    ex_spill_close(&p->p);
}

void ex_grace_destroy(ex_node *n)
{
    join_state *st = n->state;
    for (uint32_t i = 0; i < st->nall; i++) {
        ex_grace_release(st->all[i]);
        free(st->all[i]);
    }
    free(st->all);
    free(st->queue);
    if (st->stage) {
        for (uint32_t i = 0; i < st->nlocals * JG_FANOUT; i++)
            fl_batch_destroy(&st->stage[i]);
        free(st->stage);
    }
    free(st->flushed);
    if (st->mu_inited) {
        for (uint32_t q = 0; q < JG_FANOUT; q++)
            pthread_mutex_destroy(&st->top_mu[q]);
        pthread_mutex_destroy(&st->qmu);
    }
}
