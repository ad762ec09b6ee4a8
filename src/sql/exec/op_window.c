/*
 * op_window.c - WINDOW: appends one column per window call to the child's
 * columns.
 *
 * The child is materialized (all threads) together with every call's
 * partition keys, order keys and arguments as extra columns. Each call then
 * sorts row references by (partition, order), gathers the rows in that order
 * into dense batches (position k = batch k / CAP, row k % CAP), walks the
 * partitions and computes its results in sorted order into one vector, which
 * is finally scattered back to the rows' materialized order.
 *
 * Functions: row_number, rank, dense_rank, percent_rank, cume_dist, ntile,
 * lag, lead, first_value, last_value, nth_value, and every aggregate (func.h
 * ops) over ROWS or RANGE frames. The default frame is RANGE UNBOUNDED
 * PRECEDING .. CURRENT ROW (peers included) with ORDER BY, the whole
 * partition without. Frames starting at UNBOUNDED PRECEDING are computed
 * incrementally (one state per partition, finalize() per row: running
 * aggregates, so finalize must not consume the state, as func.h's ops
 * guarantee); other frames recompute the aggregate per row. RANGE with an
 * offset needs one numeric or date ORDER BY key.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sql/exec/exec_internal.h"
#include "sql/expr.h" /* fl_expr_equal */

typedef struct win_call_cols {
    uint32_t part, order, args; /* first column of each group in the wide rows */
} win_call_cols;

#define WIN_PARTS 64        /* spill partitions */
#define WIN_FLUSH_ROWS 256  /* rows buffered per partition before a write */

typedef struct win_spill {
    bool spilling;
    ex_spill *parts; /* WIN_PARTS files */
    ex_rows *pbuf;   /* per partition: rows waiting to be written */
    uint64_t *hashes;
    uint32_t hcap;
    fl_sel sel;
} win_spill;

typedef struct win_state {
    const fl_schema *wide;
    uint32_t nchild;
    win_call_cols *cc;
    ex_rows *locals;
    ex_exprs *lx; /* per thread: all extra expressions */
    fl_expr **extra;
    uint32_t nextra;
    uint32_t nlocals;
    /* spilling: rows partitioned by the hash of the PARTITION BY keys every
     * call shares (wide columns skeys), each partition computed alone */
    uint32_t *skeys;
    uint32_t nskeys;
    bool can_spill, spilled;
    uint64_t budget;
    win_spill *sp; /* per thread */
    atomic_uint next_part;
} win_state;

static fl_status win_flush(ex_node *n, win_spill *w, uint32_t p, fl_error *err)
{
    ex_rows *r = &w->pbuf[p];
    if (r->rows == 0)
        return FL_OK;
    if (!w->parts[p].f)
        FL_TRY(ex_spill_open(n->x, &w->parts[p], err));
    uint64_t before = w->parts[p].bytes;
    for (uint32_t i = 0; i < r->n; i++)
        FL_TRY(ex_spill_write(&w->parts[p], r->b[i], err));
    atomic_fetch_add(&n->p->stats.spilled_bytes, (long long)(w->parts[p].bytes - before));
    ex_rows_free(NULL, r);
    return FL_OK;
}

/* Writes rows sel (NULL = all nrows) of the wide columns cols to the
 * partitions of their key hashes. */
static fl_status win_spill_rows(ex_node *n, win_spill *w, const fl_vector *const *cols,
                                uint32_t nrows, const fl_sel *sel, fl_error *err)
{
    win_state *st = n->state;
    if (!w->parts) {
        w->parts = calloc(WIN_PARTS, sizeof *w->parts);
        w->pbuf = calloc(WIN_PARTS, sizeof *w->pbuf);
        if (!w->parts || !w->pbuf)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t p = 0; p < WIN_PARTS; p++)
            ex_rows_init(&w->pbuf[p], st->wide);
    }
    if (nrows > w->hcap) {
        uint64_t *h = realloc(w->hashes, (size_t)nrows * sizeof *h);
        if (!h)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        w->hashes = h;
        w->hcap = nrows;
    }
    for (uint32_t k = 0; k < st->nskeys; k++)
        FL_TRY(ex_hash_vec(cols[st->skeys[k]], sel, nrows, w->hashes, k == 0, err));
    uint32_t cnt = sel ? sel->count : nrows;
    FL_TRY(ex_sel_reserve(&w->sel, cnt, err));
    for (uint32_t p = 0; p < WIN_PARTS; p++) {
        w->sel.count = 0;
        for (uint32_t i = 0; i < cnt; i++) {
            uint32_t r = sel ? sel->idx[i] : i;
            if (((w->hashes[r] >> 40) & (WIN_PARTS - 1)) == p)
                w->sel.idx[w->sel.count++] = r;
        }
        if (!w->sel.count)
            continue;
        FL_TRY(ex_rows_append(NULL, &w->pbuf[p], cols, nrows, &w->sel, err));
        if (w->pbuf[p].rows >= WIN_FLUSH_ROWS)
            FL_TRY(win_flush(n, w, p, err));
    }
    return FL_OK;
}

/* Moves a thread's materialized rows to the partitions. */
static fl_status win_spill_local(ex_node *n, uint32_t t, fl_error *err)
{
    win_state *st = n->state;
    ex_rows *r = &st->locals[t];
    for (uint32_t i = 0; i < r->n; i++) {
        const fl_batch *b = r->b[i];
        const fl_vector *cols[b->ncols ? b->ncols : 1];
        for (uint32_t c = 0; c < b->ncols; c++)
            cols[c] = &b->cols[c];
        FL_TRY(win_spill_rows(n, &st->sp[t], cols, b->nrows, NULL, err));
    }
    ex_rows_free(n->x, r);
    ex_rows_init(r, st->wide);
    return FL_OK;
}

static fl_status win_consume(void *ctx, ex_thread *th, const fl_batch *b, fl_error *err)
{
    ex_node *n = ctx;
    win_state *st = n->state;
    ex_exprs *xs = &st->lx[th->tid];
    xs->e = st->extra;
    xs->n = st->nextra;
    FL_TRY(ex_exprs_eval(th, xs, b, b->sel, err));
    uint32_t m = st->nchild + st->nextra;
    const fl_vector *cols[m ? m : 1];
    for (uint32_t c = 0; c < st->nchild; c++)
        cols[c] = &b->cols[c];
    for (uint32_t i = 0; i < st->nextra; i++)
        cols[st->nchild + i] = xs->ptrs[i];
    win_spill *w = &st->sp[th->tid];
    if (!w->spilling && st->can_spill &&
        ex_spill_wanted(n->x, st->locals[th->tid].bytes, st->budget)) {
        w->spilling = true;
        FL_TRY(win_spill_local(n, th->tid, err));
    }
    if (w->spilling)
        return win_spill_rows(n, w, cols, b->nrows, b->sel, err);
    return ex_rows_append(n->x, &st->locals[th->tid], cols, b->nrows, b->sel, err);
}

/* ---- one call over the sorted rows ---- */

typedef struct wctx {
    fl_exec *x;
    const fl_window_call *w;
    const win_call_cols *cc;
    const ex_rows *s; /* sorted, dense */
    uint64_t n;
    fl_vector *res;
} wctx;

static inline const fl_vector *col_at(const wctx *c, uint32_t col, uint64_t k, uint32_t *row)
{
    *row = (uint32_t)(k % FL_BATCH_CAP);
    return &c->s->b[k / FL_BATCH_CAP]->cols[col];
}

static bool same_cols(const wctx *c, uint32_t first, uint32_t ncols, uint64_t a, uint64_t b)
{
    for (uint32_t i = 0; i < ncols; i++) {
        uint32_t ra, rb;
        const fl_vector *va = col_at(c, first + i, a, &ra), *vb = col_at(c, first + i, b, &rb);
        fl_unified ua = {.base = va}, ub = {.base = vb};
        if (!ex_value_eq(&ua, ra, &ub, rb, va->type))
            return false;
    }
    return true;
}

static fl_status put_int(fl_vector *v, int64_t x, fl_error *err)
{
    if (v->type->id == FL_TYPE_INT32) {
        int32_t y = (int32_t)x;
        return fl_vector_append_fixed(v, &y, err);
    }
    if (v->type->id == FL_TYPE_FLOAT64) {
        double d = (double)x;
        return fl_vector_append_fixed(v, &d, err);
    }
    return fl_vector_append_fixed(v, &x, err);
}

static fl_status put_double(fl_vector *v, double d, fl_error *err)
{
    return fl_vector_append_fixed(v, &d, err);
}

static fl_status put_value(wctx *c, uint32_t col, uint64_t k, fl_error *err)
{
    uint32_t r;
    const fl_vector *v = col_at(c, col, k, &r);
    fl_unified u = {.base = v};
    return ex_vec_append_one(c->res, &u, r, err);
}

static bool int_arg(wctx *c, uint32_t argi, uint64_t k, int64_t *out)
{
    uint32_t r;
    const fl_vector *v = col_at(c, c->cc->args + argi, k, &r);
    if (!fl_vector_is_valid(v, r))
        return false;
    if (v->type->id == FL_TYPE_INT32) {
        int32_t x;
        memcpy(&x, v->data + (size_t)r * 4, 4);
        *out = x;
    } else {
        memcpy(out, v->data + (size_t)r * 8, 8);
    }
    return true;
}

/* frame bounds of row k in partition [ps, pe), peers [qs, qe); [*fs, *fe) */
static fl_status frame_of(wctx *c, uint64_t k, uint64_t ps, uint64_t pe, uint64_t qs, uint64_t qe,
                          uint64_t *fs, uint64_t *fe, fl_error *err)
{
    const fl_window_call *w = c->w;
    if (!w->has_frame) {
        *fs = ps;
        *fe = w->norder ? qe : pe;
        return FL_OK;
    }
    int64_t K = (int64_t)k, PS = (int64_t)ps, PE = (int64_t)pe;
    int64_t s, e;
    bool range = !w->frame_rows;
    if (range && (w->frame_start == FL_FRAME_PRECEDING || w->frame_start == FL_FRAME_FOLLOWING ||
                  w->frame_end == FL_FRAME_PRECEDING || w->frame_end == FL_FRAME_FOLLOWING)) {
        /* RANGE offset: one numeric order key */
        if (w->norder != 1)
            return fl_errorf(err, FL_EUNSUPPORTED, "RANGE with offset needs exactly one ORDER BY key");
        uint32_t r;
        const fl_vector *v = col_at(c, c->cc->order, k, &r);
        fl_type_id tid = v->type->id;
        if (tid != FL_TYPE_INT32 && tid != FL_TYPE_INT64 && tid != FL_TYPE_DATE &&
            tid != FL_TYPE_FLOAT64 && tid != FL_TYPE_TIMESTAMP && tid != FL_TYPE_TIMESTAMPTZ)
            return fl_errorf(err, FL_EUNSUPPORTED, "RANGE with offset over this ORDER BY type");
        bool desc = w->order_by[0].desc;
#define KEYV(kk, out)                                                                              \
    do {                                                                                           \
        uint32_t rr_;                                                                              \
        const fl_vector *vv_ = col_at(c, c->cc->order, (kk), &rr_);                                \
        if (tid == FL_TYPE_INT32 || tid == FL_TYPE_DATE) {                                         \
            int32_t t_;                                                                            \
            memcpy(&t_, vv_->data + (size_t)rr_ * 4, 4);                                           \
            out = t_;                                                                              \
        } else if (tid == FL_TYPE_FLOAT64) {                                                       \
            memcpy(&out, vv_->data + (size_t)rr_ * 8, 8);                                          \
        } else {                                                                                   \
            int64_t t_;                                                                            \
            memcpy(&t_, vv_->data + (size_t)rr_ * 8, 8);                                           \
            out = (double)t_;                                                                      \
        }                                                                                          \
    } while (0)
        if (!fl_vector_is_valid(v, r)) { /* NULL key: frame is its peers */
            s = (int64_t)qs;
            e = (int64_t)qe;
        } else {
            double cur;
            KEYV(k, cur);
            double lo = -INFINITY, hi = INFINITY;
            double so = (double)w->start_offset, eo = (double)w->end_offset;
            double sgn = desc ? -1 : 1;
            if (w->frame_start == FL_FRAME_PRECEDING)
                lo = cur - sgn * so;
            else if (w->frame_start == FL_FRAME_FOLLOWING)
                lo = cur + sgn * so;
            else if (w->frame_start == FL_FRAME_CURRENT_ROW)
                lo = cur;
            if (w->frame_end == FL_FRAME_PRECEDING)
                hi = cur - sgn * eo;
            else if (w->frame_end == FL_FRAME_FOLLOWING)
                hi = cur + sgn * eo;
            else if (w->frame_end == FL_FRAME_CURRENT_ROW)
                hi = cur;
            s = PE;
            e = PS;
            for (int64_t j = PS; j < PE; j++) {
                uint32_t rj;
                const fl_vector *vj = col_at(c, c->cc->order, (uint64_t)j, &rj);
                if (!fl_vector_is_valid(vj, rj))
                    continue;
                double x;
                KEYV((uint64_t)j, x);
                bool in = desc ? (x <= lo && x >= hi) : (x >= lo && x <= hi);
                if (w->frame_start == FL_FRAME_UNBOUNDED_PRECEDING)
                    in = desc ? x >= hi : x <= hi;
                if (w->frame_end == FL_FRAME_UNBOUNDED_FOLLOWING)
                    in = in || (desc ? x <= lo : x >= lo);
                if (w->frame_start == FL_FRAME_UNBOUNDED_PRECEDING &&
                    w->frame_end == FL_FRAME_UNBOUNDED_FOLLOWING)
                    in = true;
                if (in) {
                    if (j < s)
                        s = j;
                    if (j + 1 > e)
                        e = j + 1;
                }
            }
            if (w->frame_start == FL_FRAME_UNBOUNDED_PRECEDING)
                s = PS;
            if (w->frame_end == FL_FRAME_UNBOUNDED_FOLLOWING)
                e = PE;
        }
#undef KEYV
    } else {
        switch (w->frame_start) {
        case FL_FRAME_UNBOUNDED_PRECEDING: s = PS; break;
        case FL_FRAME_PRECEDING: s = K - w->start_offset; break;
        case FL_FRAME_CURRENT_ROW: s = range ? (int64_t)qs : K; break;
        case FL_FRAME_FOLLOWING: s = K + w->start_offset; break;
        default: s = PE; break;
        }
        switch (w->frame_end) {
        case FL_FRAME_UNBOUNDED_FOLLOWING: e = PE; break;
        case FL_FRAME_PRECEDING: e = K - w->end_offset + 1; break;
        case FL_FRAME_CURRENT_ROW: e = range ? (int64_t)qe : K + 1; break;
        case FL_FRAME_FOLLOWING: e = K + w->end_offset + 1; break;
        default: e = PS; break;
        }
    }
    if (s < PS)
        s = PS;
    if (e > PE)
        e = PE;
    if (e < s)
        e = s;
    *fs = (uint64_t)s;
    *fe = (uint64_t)e;
    return FL_OK;
}

/* Updates state with the rows [s, e) of the sorted rows. */
static fl_status agg_range(wctx *c, void *state, uint64_t s, uint64_t e, void **states,
                           fl_sel *sel, fl_error *err)
{
    const fl_window_call *w = c->w;
    while (s < e) {
        uint32_t b = (uint32_t)(s / FL_BATCH_CAP), r0 = (uint32_t)(s % FL_BATCH_CAP);
        const fl_batch *bt = c->s->b[b];
        uint32_t r1 = bt->nrows;
        if ((uint64_t)b * FL_BATCH_CAP + r1 > e)
            r1 = (uint32_t)(e - (uint64_t)b * FL_BATCH_CAP);
        uint32_t k = 0;
        for (uint32_t r = r0; r < r1; r++) {
            sel->idx[k] = r;
            states[k] = state;
            k++;
        }
        sel->count = k;
        const fl_vector *args[w->nargs ? w->nargs : 1];
        for (uint32_t i = 0; i < w->nargs; i++)
            args[i] = &bt->cols[c->cc->args + i];
        FL_TRY(w->ops->update(states, args, w->nargs, sel, bt->nrows, err));
        s = (uint64_t)b * FL_BATCH_CAP + r1;
    }
    return FL_OK;
}

static fl_status win_aggregate(wctx *c, uint64_t ps, uint64_t pe, fl_error *err)
{
    const fl_window_call *w = c->w;
    const fl_agg_ops *ops = w->ops;
    size_t al = ops->state_align ? ops->state_align : 16;
    size_t sz = (ops->state_size + al - 1) / al * al;
    void *state = aligned_alloc(al < 16 ? 16 : al, sz ? (sz + 15) / 16 * 16 : 16);
    void **states = malloc(FL_BATCH_CAP * sizeof *states);
    fl_sel sel = {0};
    fl_status rc = state && states ? ex_sel_reserve(&sel, FL_BATCH_CAP, err)
                                   : fl_errorf(err, FL_ENOMEM, "out of memory");
    bool running = !w->has_frame || w->frame_start == FL_FRAME_UNBOUNDED_PRECEDING;
    bool live = false;
    uint64_t added = ps; /* running: rows [ps, added) are in state */
    uint64_t qs = ps, qe = ps; /* the peer group of row k: [qs, qe) */
    for (uint64_t k = ps; !rc && k < pe; k++) {
        /* peer groups are runs of the sorted rows: found once per group (a
         * scan per row made OVER () quadratic: every row is a peer) */
        if (k >= qe) {
            qs = k;
            qe = k + 1;
            while (qe < pe && (w->norder == 0 || same_cols(c, c->cc->order, w->norder, k, qe)))
                qe++;
        }
        uint64_t fs, fe;
        rc = frame_of(c, k, ps, pe, qs, qe, &fs, &fe, err);
        if (rc)
            break;
        if (running && fs == ps && fe >= added) {
            if (!live) {
                ops->init(state);
                live = true;
            }
            rc = agg_range(c, state, added, fe, states, &sel, err);
            added = fe;
        } else {
            if (live && ops->destroy)
                ops->destroy(state);
            live = true;
            ops->init(state);
            rc = agg_range(c, state, fs, fe, states, &sel, err);
            added = ps; /* state no longer a running prefix */
            running = false;
        }
        void *one[1] = {state};
        if (!rc)
            rc = ops->finalize(one, 1, &w->result, c->res, err);
        if (!running && live && ops->destroy) {
            ops->destroy(state);
            live = false;
        }
    }
    if (live && ops->destroy)
        ops->destroy(state);
    free(state);
    free(states);
    ex_sel_free(&sel);
    return rc;
}

static fl_status win_partition(wctx *c, uint64_t ps, uint64_t pe, fl_error *err)
{
    const fl_window_call *w = c->w;
    if (w->fn && w->fn->kind == FL_FUNC_AGGREGATE) {
        if (!w->ops)
            return fl_errorf(err, FL_EINVAL, "window aggregate %s without ops", w->fn->name);
        return win_aggregate(c, ps, pe, err);
    }
    const char *name = w->fn ? w->fn->name : "";
    uint64_t rank = 1, dense = 0, qs = ps, qe = ps;
    int64_t nrows = (int64_t)(pe - ps);
    for (uint64_t k = ps; k < pe; k++) {
        bool newpeer = k == ps || !(w->norder == 0 || same_cols(c, c->cc->order, w->norder, k - 1, k));
        if (newpeer) {
            qs = k;
            qe = k + 1;
            while (qe < pe && (w->norder == 0 || same_cols(c, c->cc->order, w->norder, k, qe)))
                qe++;
            rank = k - ps + 1;
            dense++;
        }
        int64_t pos = (int64_t)(k - ps);
        if (!strcmp(name, "row_number")) {
            FL_TRY(put_int(c->res, pos + 1, err));
        } else if (!strcmp(name, "rank")) {
            FL_TRY(put_int(c->res, (int64_t)rank, err));
        } else if (!strcmp(name, "dense_rank")) {
            FL_TRY(put_int(c->res, (int64_t)dense, err));
        } else if (!strcmp(name, "percent_rank")) {
            FL_TRY(put_double(c->res, nrows > 1 ? (double)(rank - 1) / (double)(nrows - 1) : 0,
                              err));
        } else if (!strcmp(name, "cume_dist")) {
            FL_TRY(put_double(c->res, (double)(qe - ps) / (double)nrows, err));
        } else if (!strcmp(name, "ntile")) {
            int64_t buckets;
            if (!int_arg(c, 0, k, &buckets))
                FL_TRY(fl_vector_append_null(c->res, err));
            else if (buckets <= 0)
                return fl_error_state(
                    err, FL_EINVAL, "22014",
                    "argument of ntile must be greater than zero (SQLSTATE 22014)");
            else {
                int64_t per = nrows / buckets, extra = nrows % buckets;
                int64_t big = extra * (per + 1);
                int64_t b = pos < big ? pos / (per + 1) : extra + (per ? (pos - big) / per : 0);
                FL_TRY(put_int(c->res, b + 1, err));
            }
        } else if (!strcmp(name, "lag") || !strcmp(name, "lead")) {
            int64_t off = 1;
            if (w->nargs > 1 && !int_arg(c, 1, k, &off)) {
                FL_TRY(fl_vector_append_null(c->res, err));
                continue;
            }
            int64_t t = !strcmp(name, "lag") ? pos - off : pos + off;
            if (t >= 0 && t < nrows)
                FL_TRY(put_value(c, c->cc->args, ps + (uint64_t)t, err));
            else if (w->nargs > 2)
                FL_TRY(put_value(c, c->cc->args + 2, k, err));
            else
                FL_TRY(fl_vector_append_null(c->res, err));
        } else if (!strcmp(name, "first_value") || !strcmp(name, "last_value") ||
                   !strcmp(name, "nth_value")) {
            uint64_t fs, fe;
            FL_TRY(frame_of(c, k, ps, pe, qs, qe, &fs, &fe, err));
            int64_t idx = -1;
            if (name[0] == 'f')
                idx = fe > fs ? (int64_t)fs : -1;
            else if (name[0] == 'l')
                idx = fe > fs ? (int64_t)fe - 1 : -1;
            else {
                int64_t nth;
                if (!int_arg(c, 1, k, &nth)) {
                    FL_TRY(fl_vector_append_null(c->res, err));
                    continue;
                }
                if (nth <= 0)
                    return fl_error_state(
                        err, FL_EINVAL, "22016",
                        "argument of nth_value must be greater than zero (SQLSTATE "
                        "22016)");
                idx = (int64_t)fs + nth - 1 < (int64_t)fe ? (int64_t)fs + nth - 1 : -1;
            }
            if (idx >= 0)
                FL_TRY(put_value(c, c->cc->args, (uint64_t)idx, err));
            else
                FL_TRY(fl_vector_append_null(c->res, err));
        } else {
            return fl_errorf(err, FL_EUNSUPPORTED, "window function %s", name);
        }
    }
    return FL_OK;
}

static fl_status run_call(ex_node *n, win_state *st, ex_rows *in, uint32_t wi, fl_vector *res,
                          uint32_t **posmap_out, fl_error *err)
{
    const fl_window_call *w = &n->p->u.window.calls[wi];
    const win_call_cols *cc = &st->cc[wi];
    uint32_t nk = w->npartition + w->norder;
    uint32_t cols[nk ? nk : 1];
    bool desc[nk ? nk : 1], nf[nk ? nk : 1];
    for (uint32_t i = 0; i < w->npartition; i++) {
        cols[i] = cc->part + i;
        desc[i] = false;
        nf[i] = false;
    }
    for (uint32_t i = 0; i < w->norder; i++) {
        cols[w->npartition + i] = cc->order + i;
        desc[w->npartition + i] = w->order_by[i].desc;
        nf[w->npartition + i] = w->order_by[i].nulls_first;
    }
    ex_sortspec sp = {.rows = in, .nkeys = nk, .cols = cols, .desc = desc, .nulls_first = nf};
    ex_ref *refs = NULL;
    uint64_t cnt = 0;
    FL_TRY(ex_sort_refs(&sp, &refs, &cnt, err));
    ex_rows sorted;
    ex_rows_init(&sorted, in->schema);
    fl_status rc = ex_gather(in, refs, cnt, in->schema, in->schema->nfields, &sorted, n->x, err);
    uint32_t *posmap = NULL;
    if (!rc) {
        posmap = malloc(((size_t)in->n * FL_BATCH_CAP + 1) * sizeof *posmap);
        if (!posmap)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint64_t k = 0; posmap && k < cnt; k++)
            posmap[(size_t)refs[k].b * FL_BATCH_CAP + refs[k].r] = (uint32_t)k;
    }
    free(refs);
    wctx c = {.x = n->x, .w = w, .cc = cc, .s = &sorted, .n = cnt, .res = res};
    if (!rc && cnt >= UINT32_MAX)
        rc = fl_errorf(err, FL_ELIMIT, "window over more than 4 billion rows");
    uint64_t ps = 0;
    while (!rc && ps < cnt) {
        uint64_t pe = ps + 1;
        while (pe < cnt && same_cols(&c, cc->part, w->npartition, ps, pe))
            pe++;
        rc = win_partition(&c, ps, pe, err);
        ps = pe;
    }
    if (!rc && res->len != cnt)
        rc = fl_errorf(err, FL_EINVAL, "window call %u produced %u of %llu rows", wi + 1, res->len,
                       (unsigned long long)cnt);
    ex_rows_free(n->x, &sorted);
    if (rc) {
        free(posmap);
        return rc;
    }
    *posmap_out = posmap;
    return FL_OK;
}

static fl_status win_compute(ex_node *n, win_state *st, ex_rows *inp, ex_rows *out,
                             fl_error *err);

/* Spilling is possible when every call partitions by some common keys and
 * no column is nested (spill files hold flat columns). */
static fl_status win_spill_setup(ex_node *n, win_state *st, fl_error *err)
{
    const fl_plan *p = n->p;
    uint32_t nc = p->u.window.ncalls;
    st->sp = calloc(st->nlocals ? st->nlocals : 1, sizeof *st->sp);
    if (!st->sp)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    st->budget = ex_spill_budget(n->x);
    if (nc == 0)
        return FL_OK;
    const fl_window_call *w0 = &p->u.window.calls[0];
    st->skeys = calloc(w0->npartition ? w0->npartition : 1, sizeof *st->skeys);
    if (!st->skeys)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t j = 0; j < w0->npartition; j++) {
        bool everywhere = true;
        for (uint32_t i = 1; i < nc && everywhere; i++) {
            const fl_window_call *w = &p->u.window.calls[i];
            bool found = false;
            for (uint32_t k = 0; k < w->npartition && !found; k++)
                found = fl_expr_equal(w->partition_by[k], w0->partition_by[j]);
            everywhere = found;
        }
        if (everywhere && ex_type_hashable(&w0->partition_by[j]->type))
            st->skeys[st->nskeys++] = st->cc[0].part + j;
    }
    st->can_spill = st->nskeys > 0;
    for (uint32_t c = 0; c < st->wide->nfields; c++)
        if (fl_type_is_nested(&st->wide->fields[c].type))
            st->can_spill = false;
    return FL_OK;
}

static fl_status win_prepare(ex_node *n, fl_error *err)
{
    win_state *st = n->state;
    fl_plan *p = n->p;
    const fl_schema *cs = &n->children[0]->p->schema;
    st->nchild = cs->nfields;
    uint32_t nc = p->u.window.ncalls;
    if (p->schema.nfields != st->nchild + nc)
        return fl_errorf(err, FL_EINVAL, "WINDOW output has %u columns, expected %u",
                         p->schema.nfields, st->nchild + nc);
    st->cc = calloc(nc ? nc : 1, sizeof *st->cc);
    uint32_t ne = 0;
    for (uint32_t i = 0; i < nc; i++) {
        const fl_window_call *w = &p->u.window.calls[i];
        ne += w->npartition + w->norder + w->nargs;
    }
    st->extra = calloc(ne ? ne : 1, sizeof *st->extra);
    const fl_type **ts = calloc(st->nchild + ne + 1, sizeof *ts);
    if (!st->cc || !st->extra || !ts) {
        free(ts);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    for (uint32_t c = 0; c < st->nchild; c++)
        ts[c] = &cs->fields[c].type;
    uint32_t k = 0;
    for (uint32_t i = 0; i < nc; i++) {
        const fl_window_call *w = &p->u.window.calls[i];
        st->cc[i].part = st->nchild + k;
        for (uint32_t j = 0; j < w->npartition; j++)
            st->extra[k++] = w->partition_by[j];
        st->cc[i].order = st->nchild + k;
        for (uint32_t j = 0; j < w->norder; j++)
            st->extra[k++] = w->order_by[j].expr;
        st->cc[i].args = st->nchild + k;
        for (uint32_t j = 0; j < w->nargs; j++)
            st->extra[k++] = w->args[j];
    }
    st->nextra = ne;
    for (uint32_t i = 0; i < ne; i++) {
        ts[st->nchild + i] = &st->extra[i]->type;
    }
    st->wide = ex_schema_of(n->x, ts, st->nchild + ne);
    free(ts);
    if (!st->wide)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    st->nlocals = n->x->threads;
    st->locals = calloc(st->nlocals, sizeof *st->locals);
    st->lx = calloc(st->nlocals, sizeof *st->lx);
    if (!st->locals || !st->lx)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t t = 0; t < st->nlocals; t++)
        ex_rows_init(&st->locals[t], st->wide);
    FL_TRY(win_spill_setup(n, st, err));
    FL_TRY(ex_run_parallel(n->children[0], win_consume, n, err));
    bool any = false;
    for (uint32_t t = 0; t < st->nlocals; t++)
        any |= st->sp[t].spilling;
    if (any) {
        /* every thread's rows go to the partitions; computed per partition
         * by the node's operators (win_open) */
        for (uint32_t t = 0; t < st->nlocals; t++) {
            FL_TRY(win_spill_local(n, t, err));
            for (uint32_t q = 0; st->sp[t].parts && q < WIN_PARTS; q++)
                FL_TRY(win_flush(n, &st->sp[t], q, err));
        }
        st->spilled = true;
        return FL_OK;
    }
    ex_rows in;
    ex_rows_init(&in, st->wide);
    fl_status rc = FL_OK;
    for (uint32_t t = 0; t < st->nlocals && !rc; t++)
        rc = ex_rows_concat(&in, &st->locals[t], err);
    if (rc) {
        ex_rows_free(n->x, &in);
        return rc;
    }
    return win_compute(n, st, &in, &n->out, err);
}

/* Computes every call over the rows `in` (freed here) and appends the
 * child's columns + the results, in in's order, to out. */
static fl_status win_compute(ex_node *n, win_state *st, ex_rows *inp, ex_rows *out, fl_error *err)
{
    fl_plan *p = n->p;
    uint32_t nc = p->u.window.ncalls;
    int64_t t0 = ex_now_ns();
    ex_rows in = *inp;
    ex_rows_init(inp, st->wide);
    fl_status rc = FL_OK;
    fl_vector *res = calloc(nc ? nc : 1, sizeof *res);
    uint32_t **pos = calloc(nc ? nc : 1, sizeof *pos);
    if (!rc && (!res || !pos))
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t inited = 0;
    for (; !rc && inited < nc; inited++) {
        rc = fl_vector_init(&res[inited], &p->schema.fields[st->nchild + inited].type, err);
        if (!rc)
            rc = run_call(n, st, &in, inited, &res[inited], &pos[inited], err);
    }
    /* output: the child's columns + each call's result in materialized order */
    uint32_t m = st->nchild + nc;
    const fl_vector **cols = calloc(m ? m : 1, sizeof *cols);
    fl_vector *parts = calloc(nc ? nc : 1, sizeof *parts);
    uint32_t idx[FL_BATCH_CAP];
    if (!rc && (!cols || !parts))
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; !rc && i < nc; i++)
        rc = fl_vector_init(&parts[i], res[i].type, err);
    for (uint32_t b = 0; !rc && b < in.n; b++) {
        const fl_batch *bt = in.b[b];
        for (uint32_t c = 0; c < st->nchild; c++)
            cols[c] = &bt->cols[c];
        for (uint32_t i = 0; !rc && i < nc; i++) {
            for (uint32_t r = 0; r < bt->nrows; r++)
                idx[r] = pos[i][(size_t)b * FL_BATCH_CAP + r];
            fl_vector_reset(&parts[i]);
            rc = ex_vec_append_rows(&parts[i], &res[i], idx, bt->nrows, err);
            cols[st->nchild + i] = &parts[i];
        }
        if (!rc)
            rc = ex_rows_append(n->x, out, cols, bt->nrows, NULL, err);
    }
    for (uint32_t i = 0; i < nc; i++) {
        if (res && i < inited)
            fl_vector_destroy(&res[i]);
        if (pos)
            free(pos[i]);
        if (parts)
            fl_vector_destroy(&parts[i]);
    }
    free(res);
    free(pos);
    free(parts);
    free(cols);
    ex_rows_free(n->x, &in);
    atomic_fetch_add(&p->stats.time_ns, ex_now_ns() - t0);
    return rc;
}

/* ---- spilled input: one partition at a time per operator ---- */

typedef struct win_op {
    ex_op base;
    ex_rows rows;
    uint32_t i;
    fl_batch b;
    bool binit;
} win_op;

static fl_status win_stream_next(ex_op *op, const fl_batch **out, fl_error *err)
{
    win_op *o = (win_op *)op;
    ex_node *n = op->node;
    win_state *st = n->state;
    *out = NULL;
    for (;;) {
        FL_TRY(ex_check(n->x, err));
        while (o->i < o->rows.n) {
            const fl_batch *b = o->rows.b[o->i++];
            if (!b->nrows)
                continue;
            ex_stats_out(n, b);
            *out = b;
            return FL_OK;
        }
        ex_rows_free(n->x, &o->rows);
        ex_rows_init(&o->rows, &n->p->schema);
        o->i = 0;
        unsigned p = atomic_fetch_add(&st->next_part, 1);
        if (p >= WIN_PARTS)
            return FL_OK;
        if (!o->binit) {
            FL_TRY(fl_batch_init(&o->b, st->wide, err));
            o->binit = true;
        }
        ex_rows in;
        ex_rows_init(&in, st->wide);
        fl_status rc = FL_OK;
        for (uint32_t t = 0; !rc && t < st->nlocals; t++) {
            win_spill *w = &st->sp[t];
            if (!w->parts || !w->parts[p].f)
                continue;
            rc = ex_spill_rewind(&w->parts[p], err);
            for (;;) {
                bool eof = false;
                if (rc || (rc = ex_spill_read(&w->parts[p], &o->b, &eof, err)) != FL_OK || eof)
                    break;
                rc = ex_rows_append_batch(n->x, &in, &o->b, err);
            }
        }
        if (!rc && in.rows)
            rc = win_compute(n, st, &in, &o->rows, err);
        ex_rows_free(n->x, &in);
        if (rc)
            return rc;
    }
}

static void win_stream_free(ex_op *op)
{
    win_op *o = (win_op *)op;
    ex_rows_free(op->node ? op->node->x : NULL, &o->rows);
    if (o->binit)
        fl_batch_destroy(&o->b);
    free(o);
}

static fl_status win_open(ex_node *n, ex_thread *th, ex_op **out, fl_error *err)
{
    win_state *st = n->state;
    if (!st->spilled)
        return ex_open_rows(n, th, out, err);
    win_op *o = calloc(1, sizeof *o);
    if (!o)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    ex_rows_init(&o->rows, &n->p->schema);
    o->base.next = win_stream_next;
    o->base.free = win_stream_free;
    *out = &o->base;
    return FL_OK;
}

static void win_destroy(ex_node *n)
{
    win_state *st = n->state;
    if (!st)
        return;
    for (uint32_t t = 0; st->locals && t < st->nlocals; t++) {
        ex_rows_free(n->x, &st->locals[t]);
        ex_exprs_free(&st->lx[t]);
    }
    for (uint32_t t = 0; st->sp && t < st->nlocals; t++) {
        win_spill *w = &st->sp[t];
        for (uint32_t q = 0; w->parts && q < WIN_PARTS; q++)
            ex_spill_close(&w->parts[q]);
        for (uint32_t q = 0; w->pbuf && q < WIN_PARTS; q++)
            ex_rows_free(NULL, &w->pbuf[q]);
        free(w->parts);
        free(w->pbuf);
        free(w->hashes);
        ex_sel_free(&w->sel);
    }
    free(st->sp);
    free(st->skeys);
    free(st->locals);
    free(st->lx);
    free(st->cc);
    free(st->extra);
    free(st);
}

fl_status ex_window_node(ex_node *n, fl_error *err)
{
    if (n->nchildren != 1)
        return fl_errorf(err, FL_EINVAL, "WINDOW needs one child");
    win_state *st = calloc(1, sizeof *st);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    n->state = st;
    n->destroy = win_destroy;
    n->prepare = win_prepare;
    n->open = win_open;
    return FL_OK;
}
