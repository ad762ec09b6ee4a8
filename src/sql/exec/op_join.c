/*
 * op_join.c - JOIN: hash join for every plan.h join type, nested loop when
 * there are no equality keys (CROSS and theta joins).
 *
 * Build: the build child (right, or left when build_left for INNER/LEFT/
 * RIGHT/FULL) runs on all threads into per-thread ex_rows holding its
 * columns plus the evaluated key columns; the buffers are concatenated and a
 * chained hash table is built: heads[] (power of two buckets) and next[]
 * indexed by the build row id g = batch * FL_BATCH_CAP + row, with each row's
 * hash kept for a cheap pre-check. Rows with a NULL key (unless the key is
 * null-safe, IS NOT DISTINCT FROM) are never linked: they cannot match.
 *
 * Probe: every thread runs the probe pipeline; for each probe batch the key
 * hashes are computed and candidate pairs (probe row, build row) collected
 * up to FL_BATCH_CAP at a time (the iteration resumes across calls, so one
 * probe row may match any number of build rows). Pairs are gathered into a
 * left++right batch; the residual condition narrows them. Per join type:
 *   INNER            the surviving pairs;
 *   LEFT/RIGHT/FULL  plus unmatched preserved rows padded with NULLs: probe
 *                    rows at the end of their batch, build rows (matched
 *                    flags set atomically by every prober) by the last
 *                    probing thread to finish;
 *   SEMI/ANTI        probe rows with / without a surviving pair (a view of
 *                    the probe batch, no copy);
 *   MARK             probe columns + TRUE / FALSE / NULL (no match, but a
 *                    NULL key on either side: x IN (subquery) semantics);
 *   SINGLE           LEFT, but more than one match is error 21000.
 * SEMI/ANTI/MARK/SINGLE always build the right side.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/exec/exec_internal.h"

typedef struct join_state {
    fl_join_type type;
    bool build_left;
    uint32_t bi, pi;        /* child index of build / probe */
    uint32_t nb, np;        /* columns of build / probe children */
    uint32_t nkeys;
    fl_expr **bkeys, **pkeys;
    const fl_schema *wide; /* build columns + build keys */
    ex_rows build;
    uint64_t *hashes; /* per build row id */
    uint32_t *next;   /* row id + 1 */
    uint32_t *heads;
    uint64_t mask;
    atomic_uchar *matched; /* per build row id, for build-side outer joins */
    bool has_null_key;     /* a build row with a NULL (non null-safe) key */
    uint64_t nbuild;
    atomic_int probers; /* ops still probing */
    ex_rows *locals;
    ex_exprs *lkeys;
    uint32_t nlocals;
    bool build_outer, probe_outer;
} join_state;

static bool is_outer_left(fl_join_type t)
{
    return t == FL_JOIN_LEFT || t == FL_JOIN_FULL || t == FL_JOIN_SINGLE;
}
static bool is_outer_right(fl_join_type t)
{
    return t == FL_JOIN_RIGHT || t == FL_JOIN_FULL;
}

/* ---- build ---- */

static fl_status build_consume(void *ctx, ex_thread *th, const fl_batch *b, fl_error *err)
{
    ex_node *n = ctx;
    join_state *st = n->state;
    ex_exprs *ke = &st->lkeys[th->tid];
    ke->e = st->bkeys;
    ke->n = st->nkeys;
    FL_TRY(ex_exprs_eval(th, ke, b, b->sel, err));
    uint32_t m = st->nb + st->nkeys;
    const fl_vector *cols[m ? m : 1];
    for (uint32_t c = 0; c < st->nb; c++)
        cols[c] = &b->cols[c];
    for (uint32_t k = 0; k < st->nkeys; k++)
        cols[st->nb + k] = ke->ptrs[k];
    return ex_rows_append(n->x, &st->locals[th->tid], cols, b->nrows, b->sel, err);
}

static bool key_null(const join_state *st, const fl_plan *p, const fl_unified *ku, uint32_t row)
{
    for (uint32_t k = 0; k < st->nkeys; k++)
        if (!(p->u.join.null_safe && p->u.join.null_safe[k]) && !fl_unified_is_valid(&ku[k], row))
            return true;
    return false;
}

static fl_status build_table(ex_node *n, fl_error *err)
{
    join_state *st = n->state;
    ex_rows *r = &st->build;
    uint64_t space = (uint64_t)r->n * FL_BATCH_CAP;
    if (space >= UINT32_MAX)
        return fl_errorf(err, FL_ELIMIT, "hash join: build side of %llu rows is too large",
                         (unsigned long long)r->rows);
    st->nbuild = r->rows;
    uint64_t nb = 1024;
    while (nb < r->rows * 2)
        nb *= 2;
    st->mask = nb - 1;
    st->heads = calloc(nb, sizeof *st->heads);
    st->next = calloc(space ? space : 1, sizeof *st->next);
    st->hashes = calloc(space ? space : 1, sizeof *st->hashes);
    if (st->build_outer)
        st->matched = calloc(space ? space : 1, sizeof *st->matched);
    if (!st->heads || !st->next || !st->hashes || (st->build_outer && !st->matched))
        return fl_errorf(err, FL_ENOMEM, "hash join: out of memory for %llu build rows",
                         (unsigned long long)r->rows);
    FL_TRY(ex_mem_add(n->x, (int64_t)(nb * 4 + space * 13), "hash join", err));
    for (uint32_t b = 0; b < r->n; b++) {
        const fl_batch *bt = r->b[b];
        uint64_t *h = st->hashes + (uint64_t)b * FL_BATCH_CAP;
        fl_unified ku[st->nkeys ? st->nkeys : 1];
        for (uint32_t k = 0; k < st->nkeys; k++) {
            FL_TRY(ex_hash_vec(&bt->cols[st->nb + k], NULL, bt->nrows, h, k == 0, err));
            fl_vector_unify(&bt->cols[st->nb + k], &ku[k]);
        }
        for (uint32_t i = 0; i < bt->nrows; i++) {
            uint32_t g = b * FL_BATCH_CAP + i;
            if (st->nkeys == 0) {
                h[i] = 0;
            } else if (key_null(st, n->p, ku, i)) {
                st->has_null_key = true;
                continue;
            }
            uint64_t bk = h[i] & st->mask;
            st->next[g] = st->heads[bk];
            st->heads[bk] = g + 1;
        }
    }
    return FL_OK;
}

static fl_status join_prepare(ex_node *n, fl_error *err)
{
    join_state *st = n->state;
    FL_TRY(ex_prepare(n->children[st->pi], err));
    st->nlocals = n->x->threads;
    st->locals = calloc(st->nlocals, sizeof *st->locals);
    st->lkeys = calloc(st->nlocals, sizeof *st->lkeys);
    if (!st->locals || !st->lkeys)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t t = 0; t < st->nlocals; t++)
        ex_rows_init(&st->locals[t], st->wide);
    FL_TRY(ex_run_parallel(n->children[st->bi], build_consume, n, err));
    int64_t t0 = ex_now_ns();
    for (uint32_t t = 0; t < st->nlocals; t++) {
        FL_TRY(ex_rows_concat(&st->build, &st->locals[t], err));
        ex_exprs_free(&st->lkeys[t]);
    }
    FL_TRY(build_table(n, err));
    atomic_fetch_add(&n->p->stats.time_ns, ex_now_ns() - t0);
    return FL_OK;
}

/* ---- probe ---- */

typedef struct join_op {
    ex_op base;
    join_state *st;
    ex_op *child;
    ex_exprs keys;
    const fl_batch *pb; /* current probe batch (NULL = need one) */
    fl_unified ku[32];
    uint64_t *ph; /* probe hashes by row */
    uint32_t rows_cap; /* rows of ph, pmatch and urows */
    uint32_t *urows;   /* unmatched probe rows */
    uint32_t pos; /* index into the probe selection */
    uint32_t cand; /* next candidate build row id + 1 for the current probe row; 0 = start */
    bool row_started;
    uint8_t *pmatch; /* per probe row: surviving pairs (0, 1, 2 = more than one) */
    /* pairs */
    uint32_t *pp, *pg, npairs;
    fl_batch pairs; /* left ++ right gathered */
    fl_sel psel;
    fl_batch out; /* probe-outer / mark / build-outer output */
    fl_batch view;
    fl_sel vsel;
    bool finishing, finished;
    uint64_t fin_g; /* build-outer emission cursor */
} join_op;

static bool keys_match(join_op *o, uint32_t prow, uint32_t g)
{
    join_state *st = o->st;
    if (st->hashes[g] != o->ph[prow])
        return false;
    const fl_batch *bb = st->build.b[g / FL_BATCH_CAP];
    uint32_t br = g % FL_BATCH_CAP;
    for (uint32_t k = 0; k < st->nkeys; k++) {
        fl_unified bu = {.base = &bb->cols[st->nb + k]};
        if (!ex_value_eq(&o->ku[k], prow, &bu, br, bb->cols[st->nb + k].type))
            return false;
    }
    return true;
}

/* Next candidate of the current probe row after cursor (row id + 1; 0 = none). */
static uint32_t next_cand(join_op *o, uint32_t prow, uint32_t after, bool start)
{
    join_state *st = o->st;
    if (st->nkeys == 0) {
        /* nested loop: every build row, in id order, skipping gaps */
        uint64_t g = start ? 0 : after; /* after = previous id + 1 */
        uint64_t space = (uint64_t)st->build.n * FL_BATCH_CAP;
        while (g < space) {
            uint32_t b = (uint32_t)(g / FL_BATCH_CAP), r = (uint32_t)(g % FL_BATCH_CAP);
            if (r < st->build.b[b]->nrows)
                return (uint32_t)g + 1;
            g = (uint64_t)(b + 1) * FL_BATCH_CAP;
        }
        return 0;
    }
    uint32_t c = start ? st->heads[o->ph[prow] & st->mask] : st->next[after - 1];
    while (c && !keys_match(o, prow, c - 1))
        c = st->next[c - 1];
    return c;
}

/* Fills pairs from the current probe batch; true when the batch is done. */
static bool collect_pairs(join_op *o, bool first_only)
{
    join_state *st = o->st;
    const fl_batch *b = o->pb;
    uint32_t cnt = fl_batch_live_rows(b);
    o->npairs = 0;
    while (o->pos < cnt) {
        uint32_t prow = b->sel ? b->sel->idx[o->pos] : o->pos;
        if (!o->row_started) {
            o->row_started = true;
            o->cand = (st->nkeys && key_null(st, o->base.node->p, o->ku, prow))
                          ? 0
                          : next_cand(o, prow, 0, true);
        }
        while (o->cand && o->npairs < FL_BATCH_CAP) {
            o->pp[o->npairs] = prow;
            o->pg[o->npairs] = o->cand - 1;
            o->npairs++;
            if (first_only) {
                o->cand = 0;
                break;
            }
            o->cand = next_cand(o, prow, o->cand, false);
        }
        if (o->cand)
            return false; /* pairs full, resume this row */
        o->row_started = false;
        o->pos++;
        if (o->npairs == FL_BATCH_CAP)
            return o->pos >= cnt;
    }
    return true;
}

/* Copies build row ids g[0..n) column c into dst. */
static fl_status append_build(join_state *st, fl_vector *dst, uint32_t c, const uint32_t *g,
                              uint32_t n, fl_error *err)
{
    for (uint32_t i = 0; i < n; i++) {
        const fl_batch *bb = st->build.b[g[i] / FL_BATCH_CAP];
        fl_unified u = {.base = &bb->cols[c]};
        FL_TRY(ex_vec_append_one(dst, &u, g[i] % FL_BATCH_CAP, err));
    }
    return FL_OK;
}

/* pairs batch = left ++ right for the collected pairs */
static fl_status gather_pairs(join_op *o, fl_error *err)
{
    join_state *st = o->st;
    fl_batch_reset(&o->pairs);
    uint32_t nl = st->build_left ? st->nb : st->np;
    for (uint32_t c = 0; c < o->pairs.ncols; c++) {
        fl_vector *v = &o->pairs.cols[c];
        bool left = c < nl;
        bool from_build = left == st->build_left;
        uint32_t sc = left ? c : c - nl;
        if (from_build)
            FL_TRY(append_build(st, v, sc, o->pg, o->npairs, err));
        else
            FL_TRY(ex_vec_append_rows(v, &o->pb->cols[sc], o->pp, o->npairs, err));
    }
    o->pairs.nrows = o->npairs;
    o->pairs.sel = NULL;
    return FL_OK;
}

static fl_status process_pairs(join_op *o, const fl_batch **out, fl_error *err)
{
    join_state *st = o->st;
    const fl_plan *p = o->base.node->p;
    *out = NULL;
    if (o->npairs == 0)
        return FL_OK;
    fl_join_type t = st->type;
    bool pair_output = t == FL_JOIN_INNER || t == FL_JOIN_LEFT || t == FL_JOIN_RIGHT ||
                       t == FL_JOIN_FULL || t == FL_JOIN_CROSS || t == FL_JOIN_SINGLE;
    const fl_sel *pass = NULL;
    if (p->u.join.residual || pair_output) {
        FL_TRY(gather_pairs(o, err));
        if (p->u.join.residual) {
            FL_TRY(ex_select(o->base.th, p->u.join.residual, &o->pairs, NULL, &o->psel, err));
            pass = &o->psel;
        }
    }
    uint32_t cnt = pass ? pass->count : o->npairs;
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t k = pass ? pass->idx[i] : i;
        uint8_t *m = &o->pmatch[o->pp[k]];
        if (t == FL_JOIN_SINGLE && *m)
            return fl_errorf(err, FL_EINVAL,
                             "more than one row returned by a subquery used as an expression "
                             "(SQLSTATE 21000)");
        *m = 1;
        if (st->matched)
            atomic_store_explicit(&st->matched[o->pg[k]], 1, memory_order_relaxed);
    }
    if (pair_output && cnt) {
        o->pairs.sel = pass ? (fl_sel *)pass : NULL;
        *out = &o->pairs;
    }
    return FL_OK;
}

/* Unmatched probe rows (probe-outer), or SEMI/ANTI/MARK output. */
static fl_status emit_probe_rows(join_op *o, const fl_batch **out, fl_error *err)
{
    join_state *st = o->st;
    const fl_batch *b = o->pb;
    uint32_t cnt = fl_batch_live_rows(b);
    *out = NULL;
    fl_join_type t = st->type;
    if (t == FL_JOIN_SEMI || t == FL_JOIN_ANTI) {
        FL_TRY(ex_sel_reserve(&o->vsel, cnt, err));
        uint32_t k = 0;
        for (uint32_t i = 0; i < cnt; i++) {
            uint32_t r = b->sel ? b->sel->idx[i] : i;
            if ((o->pmatch[r] != 0) == (t == FL_JOIN_SEMI))
                o->vsel.idx[k++] = r;
        }
        o->vsel.count = k;
        if (!k)
            return FL_OK;
        o->view = *b;
        o->view.schema = &o->base.node->p->schema;
        o->view.ncols = st->np;
        o->view.sel = &o->vsel;
        *out = &o->view;
        return FL_OK;
    }
    if (t == FL_JOIN_MARK) {
        for (uint32_t c = 0; c < st->np; c++)
            o->out.cols[c] = b->cols[c];
        fl_vector *mv = &o->out.cols[st->np];
        fl_vector_reset(mv);
        FL_TRY(fl_vector_reserve(mv, b->nrows, err));
        FL_TRY(fl_vector_ensure_validity(mv, err));
        for (uint32_t i = 0; i < b->nrows; i++) {
            bool matched = o->pmatch[i] != 0;
            bool null = !matched && st->nbuild > 0 &&
                        (st->has_null_key || key_null(st, o->base.node->p, o->ku, i));
            mv->data[i] = matched;
            fl_bitmap_set(mv->validity, i, !null);
        }
        mv->len = b->nrows;
        o->out.nrows = b->nrows;
        o->out.sel = b->sel;
        *out = &o->out;
        return FL_OK;
    }
    /* probe-outer: unmatched probe rows + NULLs for the build side */
    fl_batch_reset(&o->out);
    uint32_t *rows = o->urows, k = 0;
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t r = b->sel ? b->sel->idx[i] : i;
        if (!o->pmatch[r])
            rows[k++] = r;
    }
    if (!k)
        return FL_OK;
    uint32_t nl = st->build_left ? st->nb : st->np;
    for (uint32_t c = 0; c < o->out.ncols; c++) {
        fl_vector *v = &o->out.cols[c];
        bool left = c < nl;
        bool from_build = left == st->build_left;
        if (from_build)
            FL_TRY(ex_vec_append_nulls(v, k, err));
        else
            FL_TRY(ex_vec_append_rows(v, &b->cols[left ? c : c - nl], rows, k, err));
    }
    o->out.nrows = k;
    *out = &o->out;
    return FL_OK;
}

/* Unmatched build rows (build-outer), by the last prober. */
static fl_status emit_build_rows(join_op *o, const fl_batch **out, fl_error *err)
{
    join_state *st = o->st;
    *out = NULL;
    fl_batch_reset(&o->out);
    uint64_t space = (uint64_t)st->build.n * FL_BATCH_CAP;
    uint32_t k = 0;
    while (o->fin_g < space && k < FL_BATCH_CAP) {
        uint64_t g = o->fin_g++;
        const fl_batch *bb = st->build.b[g / FL_BATCH_CAP];
        if (g % FL_BATCH_CAP >= bb->nrows) {
            o->fin_g = (g / FL_BATCH_CAP + 1) * FL_BATCH_CAP;
            continue;
        }
        if (!atomic_load_explicit(&st->matched[g], memory_order_relaxed))
            o->pg[k++] = (uint32_t)g;
    }
    if (!k)
        return FL_OK;
    uint32_t nl = st->build_left ? st->nb : st->np;
    for (uint32_t c = 0; c < o->out.ncols; c++) {
        fl_vector *v = &o->out.cols[c];
        bool left = c < nl;
        bool from_build = left == st->build_left;
        if (from_build)
            FL_TRY(append_build(st, v, left ? c : c - nl, o->pg, k, err));
        else
            FL_TRY(ex_vec_append_nulls(v, k, err));
    }
    o->out.nrows = k;
    *out = &o->out;
    return FL_OK;
}

static fl_status join_next(ex_op *op, const fl_batch **out, fl_error *err)
{
    join_op *o = (join_op *)op;
    join_state *st = o->st;
    ex_node *n = op->node;
    *out = NULL;
    fl_join_type t = st->type;
    bool first_only = (t == FL_JOIN_SEMI || t == FL_JOIN_ANTI || t == FL_JOIN_MARK) &&
                      !n->p->u.join.residual;
    for (;;) {
        FL_TRY(ex_check(n->x, err));
        if (o->finishing) {
            if (o->finished)
                return FL_OK;
            FL_TRY(emit_build_rows(o, out, err));
            if (!*out) {
                o->finished = true;
                return FL_OK;
            }
            ex_stats_out(n, *out);
            return FL_OK;
        }
        if (!o->pb) {
            const fl_batch *b;
            FL_TRY(o->child->next(o->child, &b, err));
            if (!b) {
                int left = atomic_fetch_sub(&st->probers, 1) - 1;
                if (st->build_outer && left == 0) {
                    o->finishing = true;
                    continue;
                }
                return FL_OK;
            }
            if (fl_batch_live_rows(b) == 0)
                continue;
            if (b->nrows > o->rows_cap) {
                uint64_t *ph = realloc(o->ph, (size_t)b->nrows * sizeof *ph);
                if (ph)
                    o->ph = ph;
                uint8_t *pm = realloc(o->pmatch, b->nrows);
                if (pm)
                    o->pmatch = pm;
                uint32_t *ur = realloc(o->urows, (size_t)b->nrows * sizeof *ur);
                if (ur)
                    o->urows = ur;
                if (!ph || !pm || !ur)
                    return fl_errorf(err, FL_ENOMEM, "join: out of memory for a probe batch");
                o->rows_cap = b->nrows;
            }
            o->pb = b;
            o->pos = 0;
            o->row_started = false;
            memset(o->pmatch, 0, b->nrows);
            FL_TRY(ex_exprs_eval(op->th, &o->keys, b, b->sel, err));
            for (uint32_t k = 0; k < st->nkeys; k++) {
                FL_TRY(ex_hash_vec(o->keys.ptrs[k], b->sel, b->nrows, o->ph, k == 0, err));
                fl_vector_unify(o->keys.ptrs[k], &o->ku[k]);
            }
        }
        int64_t t0 = ex_now_ns();
        bool done = st->nbuild == 0 ? (o->pos = fl_batch_live_rows(o->pb), o->npairs = 0, true)
                                    : collect_pairs(o, first_only);
        fl_status rc = process_pairs(o, out, err);
        atomic_fetch_add(&n->p->stats.time_ns, ex_now_ns() - t0);
        FL_TRY(rc);
        if (*out) {
            if (done && !(st->probe_outer || t == FL_JOIN_SEMI || t == FL_JOIN_ANTI ||
                          t == FL_JOIN_MARK))
                o->pb = NULL;
            ex_stats_out(n, *out);
            return FL_OK;
        }
        if (!done)
            continue;
        if (o->pos >= fl_batch_live_rows(o->pb)) {
            if (st->probe_outer || t == FL_JOIN_SEMI || t == FL_JOIN_ANTI || t == FL_JOIN_MARK)
                FL_TRY(emit_probe_rows(o, out, err));
            o->pb = NULL;
            if (*out) {
                ex_stats_out(n, *out);
                return FL_OK;
            }
        }
    }
}

static void join_op_free(ex_op *op)
{
    join_op *o = (join_op *)op;
    ex_op_free(o->child);
    ex_exprs_free(&o->keys);
    free(o->ph);
    free(o->pmatch);
    free(o->urows);
    free(o->pp);
    free(o->pg);
    fl_batch_destroy(&o->pairs);
    if (o->st->type == FL_JOIN_MARK && o->out.cols) {
        /* the first np columns are shallow copies of the probe batch */
        memset(o->out.cols, 0, o->st->np * sizeof *o->out.cols);
    }
    fl_batch_destroy(&o->out);
    ex_sel_free(&o->psel);
    ex_sel_free(&o->vsel);
    free(o);
}

static fl_status join_open(ex_node *n, ex_thread *th, ex_op **out, fl_error *err)
{
    join_state *st = n->state;
    join_op *o = calloc(1, sizeof *o);
    if (!o)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    o->base.next = join_next;
    o->base.free = join_op_free;
    o->st = st;
    o->keys.e = st->pkeys;
    o->keys.n = st->nkeys;
    o->ph = calloc(FL_BATCH_CAP, sizeof *o->ph);
    o->pmatch = calloc(FL_BATCH_CAP, 1);
    o->urows = calloc(FL_BATCH_CAP, sizeof *o->urows);
    o->rows_cap = FL_BATCH_CAP;
    o->pp = calloc(FL_BATCH_CAP, sizeof *o->pp);
    o->pg = calloc(FL_BATCH_CAP, sizeof *o->pg);
    fl_status rc = o->ph && o->pmatch && o->pp && o->pg && o->urows ? FL_OK
                                                       : fl_errorf(err, FL_ENOMEM, "out of memory");
    /* the pairs batch has the join's left ++ right layout */
    const fl_schema *ls = &n->children[0]->p->schema, *rs = &n->children[1]->p->schema;
    uint32_t m = ls->nfields + rs->nfields;
    const fl_type *ts[m ? m : 1];
    for (uint32_t c = 0; c < ls->nfields; c++)
        ts[c] = &ls->fields[c].type;
    for (uint32_t c = 0; c < rs->nfields; c++)
        ts[ls->nfields + c] = &rs->fields[c].type;
    const fl_schema *ps = rc ? NULL : ex_schema_of(n->x, ts, m);
    if (!rc && !ps)
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    if (!rc)
        rc = fl_batch_init(&o->pairs, ps, err);
    if (!rc)
        rc = fl_batch_init(&o->out, &n->p->schema, err);
    if (!rc && st->type == FL_JOIN_MARK)
        for (uint32_t c = 0; c < st->np; c++) {
            fl_vector_destroy(&o->out.cols[c]);
            memset(&o->out.cols[c], 0, sizeof o->out.cols[c]);
        }
    if (!rc)
        rc = ex_open(n->children[st->pi], th, &o->child, err);
    if (rc) {
        join_op_free(&o->base);
        return rc;
    }
    atomic_fetch_add(&st->probers, 1);
    *out = &o->base;
    return FL_OK;
}

static void join_destroy(ex_node *n)
{
    join_state *st = n->state;
    if (!st)
        return;
    for (uint32_t t = 0; st->locals && t < st->nlocals; t++) {
        ex_rows_free(n->x, &st->locals[t]);
        ex_exprs_free(&st->lkeys[t]);
    }
    free(st->locals);
    free(st->lkeys);
    ex_rows_free(n->x, &st->build);
    free(st->hashes);
    free(st->next);
    free(st->heads);
    free(st->matched);
    free(st);
}

fl_status ex_join_node(ex_node *n, fl_error *err)
{
    fl_plan *p = n->p;
    if (n->nchildren != 2)
        return fl_errorf(err, FL_EINVAL, "JOIN needs two children");
    join_state *st = calloc(1, sizeof *st);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    n->state = st;
    n->destroy = join_destroy;
    n->prepare = join_prepare;
    n->open = join_open;
    st->type = p->u.join.type;
    st->nkeys = st->type == FL_JOIN_CROSS ? 0 : p->u.join.nkeys;
    if (st->nkeys > 32)
        return fl_errorf(err, FL_EUNSUPPORTED, "join on more than 32 keys");
    bool sym = st->type == FL_JOIN_INNER || st->type == FL_JOIN_LEFT ||
               st->type == FL_JOIN_RIGHT || st->type == FL_JOIN_FULL || st->type == FL_JOIN_CROSS;
    st->build_left = sym && p->u.join.build_left;
    st->bi = st->build_left ? 0 : 1;
    st->pi = 1 - st->bi;
    st->nb = n->children[st->bi]->p->schema.nfields;
    st->np = n->children[st->pi]->p->schema.nfields;
    st->bkeys = st->build_left ? p->u.join.left_keys : p->u.join.right_keys;
    st->pkeys = st->build_left ? p->u.join.right_keys : p->u.join.left_keys;
    st->build_outer = st->build_left ? is_outer_left(st->type) : is_outer_right(st->type);
    st->probe_outer = st->build_left ? is_outer_right(st->type) : is_outer_left(st->type);
    const fl_schema *bs = &n->children[st->bi]->p->schema;
    uint32_t m = st->nb + st->nkeys;
    const fl_type *ts[m ? m : 1];
    for (uint32_t c = 0; c < st->nb; c++)
        ts[c] = &bs->fields[c].type;
    for (uint32_t k = 0; k < st->nkeys; k++) {
        const fl_type *a = &st->bkeys[k]->type, *b = &st->pkeys[k]->type;
        if (a->id != b->id || (a->id == FL_TYPE_DECIMAL && a->scale != b->scale))
            return fl_errorf(err, FL_ETYPE, "join key %u compares different types", k + 1);
        if (!ex_type_hashable(a))
            return fl_errorf(err, FL_EUNSUPPORTED, "join on a nested value");
        ts[st->nb + k] = a;
    }
    if (!(st->wide = ex_schema_of(n->x, ts, m)))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    ex_rows_init(&st->build, st->wide);
    uint32_t want = st->type == FL_JOIN_SEMI || st->type == FL_JOIN_ANTI ? st->np
                    : st->type == FL_JOIN_MARK                           ? st->np + 1
                                                                          : st->nb + st->np;
    if (p->schema.nfields != want)
        return fl_errorf(err, FL_EINVAL, "JOIN output has %u columns, expected %u",
                         p->schema.nfields, want);
    return FL_OK;
}
