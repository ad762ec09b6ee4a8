/*
 * op_sort.c - ORDER BY (SORT), top-N, and the sorting helpers shared with
 * WINDOW and ordered aggregates.
 *
 * Workers append their input rows plus the evaluated sort keys to a
 * per-thread ex_rows. A top-N sort (limit >= 0) keeps at most
 * 2 * (offset + limit) rows per thread: when a buffer doubles past that it
 * is sorted and cut back to offset + limit rows, so memory stays bounded by
 * N. The buffers are then concatenated, row references (batch, row) sorted
 * with qsort_r on the key columns (NULLS FIRST/LAST, DESC per key; ties keep
 * no particular order, as SQL allows), and the child's columns gathered into
 * output batches in order, skipping offset rows and stopping at limit.
 *
 * External sort: when a thread's buffer passes its share of memory_limit
 * (ex_spill_budget) it is sorted and written to a spill file as a run (in
 * FL_BATCH_CAP-row slices, so sorting never doubles memory). If anything was
 * spilled, the remaining buffers become runs too and the output is a k-way
 * merge of the runs (binary heap of run cursors, one batch per run in
 * memory) streamed by the SORT's operator instead of materialized.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/exec/exec_internal.h"

int ex_ref_cmp(const ex_sortspec *s, ex_ref a, ex_ref b)
{
    const fl_batch *ba = s->rows->b[a.b], *bb = s->rows->b[b.b];
    for (uint32_t k = 0; k < s->nkeys; k++) {
        uint32_t c = s->cols[k];
        const fl_vector *va = &ba->cols[c], *vb = &bb->cols[c];
        bool na = !fl_vector_is_valid(va, a.r), nb = !fl_vector_is_valid(vb, b.r);
        if (na || nb) {
            if (na && nb)
                continue;
            bool first = s->nulls_first && s->nulls_first[k];
            return na ? (first ? -1 : 1) : (first ? 1 : -1);
        }
        fl_unified ua = {.base = va}, ub = {.base = vb};
        int r = ex_value_cmp(&ua, a.r, &ub, b.r, va->type);
        if (r)
            return s->desc && s->desc[k] ? -r : r;
    }
    return 0;
}

/* Sorting sorts (prefix, ref) pairs: the prefix is an order-preserving
 * 64-bit image of the first key (sign-flipped integers, IEEE bits of
 * doubles, the high word of decimals, the first 8 bytes of strings), NULLs
 * at 0 or UINT64_MAX, inverted for DESC. Equal prefixes fall back to the full
 * comparison unless the prefix is exact (integer-like single keys). */
typedef struct pref {
    uint64_t k;
    ex_ref r;
} pref;

typedef struct qctx {
    const ex_sortspec *s;
    bool exact;
} qctx;

static int qcmp(const void *x, const void *y, void *ctx)
{
    const pref *a = x, *b = y;
    if (a->k != b->k)
        return a->k < b->k ? -1 : 1;
    const qctx *q = ctx;
    if (q->exact)
        return 0;
    return ex_ref_cmp(q->s, a->r, b->r);
}

static uint64_t clamp_key(uint64_t k)
{
    return k == 0 ? 1 : k == UINT64_MAX ? UINT64_MAX - 1 : k;
}

static uint64_t prefix_of(const fl_vector *v, uint32_t r)
{
    const fl_type *t = v->type;
    const uint8_t *p = v->data;
    switch (t->id) {
    case FL_TYPE_BOOLEAN: return p[r] ? 2 : 1;
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: {
        int32_t x;
        memcpy(&x, p + (size_t)r * 4, 4);
        return clamp_key((uint64_t)(int64_t)x ^ 0x8000000000000000ull);
    }
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: {
        uint64_t x;
        memcpy(&x, p + (size_t)r * 8, 8);
        return clamp_key(x ^ 0x8000000000000000ull);
    }
    case FL_TYPE_FLOAT32:
    case FL_TYPE_FLOAT64: {
        double d;
        if (t->id == FL_TYPE_FLOAT32) {
            float f;
            memcpy(&f, p + (size_t)r * 4, 4);
            d = f;
        } else {
            memcpy(&d, p + (size_t)r * 8, 8);
        }
        if (d != d)
            return UINT64_MAX - 1; /* NaN above everything */
        if (d == 0)
            d = 0;
        uint64_t u;
        memcpy(&u, &d, 8);
        u = (u >> 63) ? ~u : (u | 0x8000000000000000ull);
        return clamp_key(u);
    }
    case FL_TYPE_DECIMAL: {
        fl_i128 x;
        memcpy(&x, p + (size_t)r * 16, 16);
        int64_t hi = (int64_t)(x >> 64);
        return clamp_key((uint64_t)hi ^ 0x8000000000000000ull);
    }
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: {
        size_t len;
        const uint8_t *b = fl_vector_bytes(v, r, &len);
        uint64_t k = 0;
        for (size_t i = 0; i < 8; i++)
            k = (k << 8) | (i < len ? b[i] : 0);
        return clamp_key(k);
    }
    default: {
        size_t w = fl_type_width(t);
        uint64_t k = 0;
        for (size_t i = 0; i < 8; i++)
            k = (k << 8) | (i < w ? p[(size_t)r * w + i] : 0);
        return clamp_key(k);
    }
    }
}

static bool exact_prefix(const fl_type *t)
{
    switch (t->id) {
    case FL_TYPE_BOOLEAN:
    case FL_TYPE_INT32:
    case FL_TYPE_DATE:
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: return true;
    default: return false;
    }
}

fl_status ex_sort_refs(const ex_sortspec *s, ex_ref **out, uint64_t *n, fl_error *err)
{
    const ex_rows *r = s->rows;
    *out = NULL;
    *n = 0;
    pref *ps = malloc((r->rows ? r->rows : 1) * sizeof *ps);
    if (!ps)
        return fl_errorf(err, FL_ENOMEM, "sort: out of memory for %llu rows",
                         (unsigned long long)r->rows);
    uint64_t k = 0;
    bool exact = s->nkeys == 1;
    bool desc = s->nkeys && s->desc && s->desc[0];
    bool nf = s->nkeys && s->nulls_first && s->nulls_first[0];
    for (uint32_t b = 0; b < r->n; b++) {
        const fl_batch *bt = r->b[b];
        const fl_vector *kv = s->nkeys ? &bt->cols[s->cols[0]] : NULL;
        if (kv)
            exact = exact && exact_prefix(kv->type) && kv->encoding == FL_VEC_FLAT;
        for (uint32_t i = 0; i < bt->nrows; i++) {
            uint64_t key = 0;
            if (kv) {
                if (!fl_vector_is_valid(kv, i)) {
                    key = nf ? 0 : UINT64_MAX;
                } else {
                    key = prefix_of(kv, i);
                    if (desc)
                        key = UINT64_MAX - key;
                }
            }
            ps[k++] = (pref){key, {b, i}};
        }
    }
    qctx q = {s, exact};
    qsort_r(ps, k, sizeof *ps, qcmp, &q);
    ex_ref *refs = (ex_ref *)ps; /* compact in place: a ref is half a pair */
    for (uint64_t i = 0; i < k; i++)
        refs[i] = ps[i].r;
    ex_ref *shrunk = realloc(refs, (k ? k : 1) * sizeof *refs);
    *out = shrunk ? shrunk : refs;
    *n = k;
    return FL_OK;
}

fl_status ex_gather(const ex_rows *rows, const ex_ref *refs, uint64_t n, const fl_schema *schema,
                    uint32_t ncols, ex_rows *dst, fl_exec *x, fl_error *err)
{
    (void)schema;
    uint32_t idx[FL_BATCH_CAP];
    for (uint64_t i = 0; i < n;) {
        /* runs of refs from the same batch are copied in one call */
        if (dst->n == 0 || dst->b[dst->n - 1]->nrows == FL_BATCH_CAP) {
            /* let ex_rows_append create the batch: append zero rows of nothing first */
        }
        uint32_t bi = refs[i].b, m = 0;
        uint32_t room = FL_BATCH_CAP;
        if (dst->n && dst->b[dst->n - 1]->nrows < FL_BATCH_CAP)
            room = FL_BATCH_CAP - dst->b[dst->n - 1]->nrows;
        while (i + m < n && m < room && refs[i + m].b == bi) {
            idx[m] = refs[i + m].r;
            m++;
        }
        const fl_batch *src = rows->b[bi];
        const fl_vector *cols[ncols ? ncols : 1];
        for (uint32_t c = 0; c < ncols; c++)
            cols[c] = &src->cols[c];
        fl_sel s = {.idx = idx, .count = m, .cap = m};
        FL_TRY(ex_rows_append(x, dst, cols, src->nrows, &s, err));
        i += m;
    }
    return FL_OK;
}

/* ---- SORT ---- */

typedef struct sort_local {
    ex_rows rows;
    ex_exprs keys;
    bool inited;
    ex_spill *runs;
    uint32_t nruns;
} sort_local;

typedef struct sort_state {
    const fl_schema *wide; /* child columns + key columns */
    uint32_t nchild;
    sort_local *locals;
    uint32_t nlocals;
    uint32_t *cols;
    bool *desc, *nf;
    int64_t keep; /* top-N: rows to keep (offset + limit); -1 = all */
    uint64_t budget;
    /* external merge */
    bool spilled;
    ex_spill *runs;
    uint32_t nruns;
    fl_batch *cur;   /* current batch of each run */
    uint32_t *pos;   /* next row of each run's batch */
    uint32_t *heap;  /* run indexes, min-heap by current row */
    uint32_t hn;
    ex_rows view; /* view.b[i] = &cur[i], for comparisons */
    uint64_t skip;
    pthread_mutex_t mu;
    bool mu_inited;
} sort_state;

static fl_status truncate_topn(ex_node *n, sort_state *st, ex_rows *r, fl_error *err)
{
    ex_sortspec sp = {.rows = r,
                      .nkeys = n->p->u.sort.nkeys,
                      .cols = st->cols,
                      .desc = st->desc,
                      .nulls_first = st->nf};
    ex_ref *refs;
    uint64_t cnt;
    FL_TRY(ex_sort_refs(&sp, &refs, &cnt, err));
    if ((int64_t)cnt > st->keep)
        cnt = (uint64_t)st->keep;
    ex_rows kept;
    ex_rows_init(&kept, r->schema);
    fl_status rc = ex_gather(r, refs, cnt, r->schema, r->schema->nfields, &kept, n->x, err);
    free(refs);
    if (rc) {
        ex_rows_free(n->x, &kept);
        return rc;
    }
    ex_rows_free(n->x, r);
    *r = kept;
    return FL_OK;
}

/* Sorts r and writes it to a new run of l; r is emptied. */
static fl_status spill_run(ex_node *n, sort_state *st, ex_rows *r, ex_spill **runs,
                           uint32_t *nruns, fl_error *err)
{
    if (r->rows == 0)
        return FL_OK;
    ex_sortspec sp = {.rows = r,
                      .nkeys = n->p->u.sort.nkeys,
                      .cols = st->cols,
                      .desc = st->desc,
                      .nulls_first = st->nf};
    ex_ref *refs;
    uint64_t cnt;
    FL_TRY(ex_sort_refs(&sp, &refs, &cnt, err));
    ex_spill *nr = realloc(*runs, (*nruns + 1) * sizeof *nr);
    if (!nr) {
        free(refs);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    *runs = nr;
    ex_spill *run = &nr[*nruns];
    fl_status rc = ex_spill_open(n->x, run, err);
    if (rc) {
        free(refs);
        return rc;
    }
    (*nruns)++;
    for (uint64_t i = 0; !rc && i < cnt; i += FL_BATCH_CAP) {
        uint64_t m = cnt - i < FL_BATCH_CAP ? cnt - i : FL_BATCH_CAP;
        ex_rows tmp;
        ex_rows_init(&tmp, r->schema);
        rc = ex_gather(r, refs + i, m, r->schema, r->schema->nfields, &tmp, NULL, err);
        for (uint32_t b = 0; !rc && b < tmp.n; b++)
            rc = ex_spill_write(run, tmp.b[b], err);
        ex_rows_free(NULL, &tmp);
    }
    free(refs);
    atomic_fetch_add(&n->p->stats.spilled_bytes, (long long)run->bytes);
    ex_rows_free(n->x, r);
    return rc;
}

typedef struct sort_ctx {
    ex_node *n;
    sort_state *st;
} sort_ctx;

static fl_status sort_consume(void *ctx, ex_thread *th, const fl_batch *b, fl_error *err)
{
    sort_ctx *sc = ctx;
    sort_state *st = sc->st;
    ex_node *n = sc->n;
    sort_local *l = &st->locals[th->tid];
    if (!l->inited) {
        ex_rows_init(&l->rows, st->wide);
        l->keys.n = n->p->u.sort.nkeys;
        l->keys.e = calloc(l->keys.n ? l->keys.n : 1, sizeof *l->keys.e);
        if (!l->keys.e)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t k = 0; k < l->keys.n; k++)
            l->keys.e[k] = n->p->u.sort.keys[k].expr;
        l->inited = true;
    }
    FL_TRY(ex_exprs_eval(th, &l->keys, b, b->sel, err));
    if (st->keep < 0 && l->rows.rows > 0 && ex_spill_wanted(n->x, l->rows.bytes, st->budget))
        FL_TRY(spill_run(n, st, &l->rows, &l->runs, &l->nruns, err)); /* before growing */
    uint32_t m = st->wide->nfields;
    const fl_vector *cols[m ? m : 1];
    for (uint32_t c = 0; c < st->nchild; c++)
        cols[c] = &b->cols[c];
    for (uint32_t k = 0; k < l->keys.n; k++)
        cols[st->nchild + k] = l->keys.ptrs[k];
    FL_TRY(ex_rows_append(n->x, &l->rows, cols, b->nrows, b->sel, err));
    if (st->keep >= 0 && l->rows.rows > (uint64_t)(2 * st->keep + FL_BATCH_CAP))
        FL_TRY(truncate_topn(n, st, &l->rows, err));
    else if (st->keep < 0 && ex_spill_wanted(n->x, l->rows.bytes, st->budget))
        FL_TRY(spill_run(n, st, &l->rows, &l->runs, &l->nruns, err));
    return FL_OK;
}

/* ---- external merge ---- */

static bool run_less(sort_state *st, ex_node *n, uint32_t a, uint32_t b)
{
    ex_sortspec sp = {.rows = &st->view,
                      .nkeys = n->p->u.sort.nkeys,
                      .cols = st->cols,
                      .desc = st->desc,
                      .nulls_first = st->nf};
    return ex_ref_cmp(&sp, (ex_ref){a, st->pos[a]}, (ex_ref){b, st->pos[b]}) < 0;
}

static void sift_down(sort_state *st, ex_node *n, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < st->hn && run_less(st, n, st->heap[l], st->heap[m]))
            m = l;
        if (r < st->hn && run_less(st, n, st->heap[r], st->heap[m]))
            m = r;
        if (m == i)
            return;
        uint32_t t = st->heap[i];
        st->heap[i] = st->heap[m];
        st->heap[m] = t;
        i = m;
    }
}

static fl_status merge_setup(ex_node *n, sort_state *st, fl_error *err)
{
    for (uint32_t t = 0; t < st->nlocals; t++) {
        sort_local *l = &st->locals[t];
        if (l->inited)
            FL_TRY(spill_run(n, st, &l->rows, &l->runs, &l->nruns, err));
        for (uint32_t i = 0; i < l->nruns; i++) {
            ex_spill *nr = realloc(st->runs, (st->nruns + 1) * sizeof *nr);
            if (!nr)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            st->runs = nr;
            st->runs[st->nruns++] = l->runs[i];
        }
        free(l->runs);
        l->runs = NULL;
        l->nruns = 0;
    }
    st->spilled = true;
    uint32_t k = st->nruns;
    st->cur = calloc(k, sizeof *st->cur);
    st->pos = calloc(k, sizeof *st->pos);
    st->heap = calloc(k, sizeof *st->heap);
    st->view.b = calloc(k, sizeof *st->view.b);
    if (!st->cur || !st->pos || !st->heap || !st->view.b)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    st->view.schema = st->wide;
    st->view.n = k;
    for (uint32_t i = 0; i < k; i++) {
        FL_TRY(fl_batch_init(&st->cur[i], st->wide, err));
        st->view.b[i] = &st->cur[i];
        FL_TRY(ex_spill_rewind(&st->runs[i], err));
        bool eof;
        FL_TRY(ex_spill_read(&st->runs[i], &st->cur[i], &eof, err));
        if (!eof && st->cur[i].nrows)
            st->heap[st->hn++] = i;
    }
    for (uint32_t i = st->hn; i-- > 0;)
        sift_down(st, n, i);
    st->skip = n->p->u.sort.offset > 0 ? (uint64_t)n->p->u.sort.offset : 0;
    pthread_mutex_init(&st->mu, NULL);
    st->mu_inited = true;
    return FL_OK;
}

/* Fills the caller's batch: several threads may pull the merge at once (a
 * parallel consumer above the SORT), and a batch shared between them was
 * reset by one thread while another still read it (rows were lost). */
static fl_status merge_fill(ex_node *n, sort_state *st, fl_batch *outb, fl_error *err)
{
    fl_batch_reset(outb);
    while (st->hn && outb->nrows < FL_BATCH_CAP) {
        FL_TRY(ex_check(n->x, err));
        uint32_t i = st->heap[0];
        if (st->skip) {
            st->skip--;
        } else {
            for (uint32_t c = 0; c < st->nchild; c++)
                FL_TRY(
                    ex_vec_append_rows(&outb->cols[c], &st->cur[i].cols[c], &st->pos[i], 1, err));
            outb->nrows++;
        }
        if (++st->pos[i] >= st->cur[i].nrows) {
            bool eof;
            FL_TRY(ex_spill_read(&st->runs[i], &st->cur[i], &eof, err));
            st->pos[i] = 0;
            if (eof || st->cur[i].nrows == 0)
                st->heap[0] = st->heap[--st->hn];
        }
        if (st->hn)
            sift_down(st, n, 0);
    }
    return FL_OK;
}

typedef struct merge_op {
    ex_op base;
    fl_batch outb; /* this thread's output batch */
} merge_op;

static fl_status merge_next(ex_op *op, const fl_batch **out, fl_error *err)
{
    ex_node *n = op->node;
    sort_state *st = n->state;
    merge_op *o = (merge_op *)op;
    *out = NULL;
    pthread_mutex_lock(&st->mu);
    fl_status rc = merge_fill(n, st, &o->outb, err);
    pthread_mutex_unlock(&st->mu);
    FL_TRY(rc);
    if (o->outb.nrows) {
        *out = &o->outb;
        ex_stats_out(n, *out);
    }
    return FL_OK;
}

static void merge_free(ex_op *op)
{
    fl_batch_destroy(&((merge_op *)op)->outb);
    free(op);
}

static fl_status sort_open(ex_node *n, ex_thread *th, ex_op **out, fl_error *err)
{
    sort_state *st = n->state;
    if (!st->spilled)
        return ex_open_rows(n, th, out, err);
    merge_op *o = calloc(1, sizeof *o);
    if (!o)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = fl_batch_init(&o->outb, &n->p->schema, err);
    if (rc != FL_OK) {
        free(o);
        return rc;
    }
    o->base.next = merge_next;
    o->base.free = merge_free;
    *out = &o->base;
    return FL_OK;
}

static fl_status sort_prepare(ex_node *n, fl_error *err)
{
    sort_state *st = n->state;
    fl_plan *p = n->p;
    const fl_schema *cs = &n->children[0]->p->schema;
    st->nchild = cs->nfields;
    uint32_t nk = p->u.sort.nkeys, m = st->nchild + nk;
    const fl_type *ts[m ? m : 1];
    for (uint32_t c = 0; c < st->nchild; c++)
        ts[c] = &cs->fields[c].type;
    st->cols = calloc(nk ? nk : 1, sizeof *st->cols);
    st->desc = calloc(nk ? nk : 1, sizeof *st->desc);
    st->nf = calloc(nk ? nk : 1, sizeof *st->nf);
    if (!st->cols || !st->desc || !st->nf)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t k = 0; k < nk; k++) {
        ts[st->nchild + k] = &p->u.sort.keys[k].expr->type;
        st->cols[k] = st->nchild + k;
        st->desc[k] = p->u.sort.keys[k].desc;
        st->nf[k] = p->u.sort.keys[k].nulls_first;
        if (fl_type_is_nested(&p->u.sort.keys[k].expr->type))
            return fl_errorf(err, FL_EUNSUPPORTED, "ORDER BY a nested value");
    }
    if (!(st->wide = ex_schema_of(n->x, ts, m)))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (p->schema.nfields != st->nchild)
        return fl_errorf(err, FL_EINVAL, "SORT output has %u columns, its input %u",
                         p->schema.nfields, st->nchild);
    st->keep = p->u.sort.limit >= 0 ? p->u.sort.limit + (p->u.sort.offset > 0 ? p->u.sort.offset : 0)
                                    : -1;
    st->nlocals = n->x->threads;
    st->locals = calloc(st->nlocals, sizeof *st->locals);
    if (!st->locals)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    st->budget = ex_spill_budget(n->x);
    sort_ctx sc = {n, st};
    FL_TRY(ex_run_parallel(n->children[0], sort_consume, &sc, err));
    uint32_t any_runs = 0;
    for (uint32_t t = 0; t < st->nlocals; t++)
        any_runs += st->locals[t].nruns;
    if (any_runs)
        return merge_setup(n, st, err);
    int64_t t0 = ex_now_ns();
    ex_rows all;
    ex_rows_init(&all, st->wide);
    fl_status rc = FL_OK;
    for (uint32_t t = 0; t < st->nlocals && !rc; t++)
        if (st->locals[t].inited)
            rc = ex_rows_concat(&all, &st->locals[t].rows, err);
    ex_ref *refs = NULL;
    uint64_t cnt = 0;
    if (!rc) {
        ex_sortspec sp = {
            .rows = &all, .nkeys = nk, .cols = st->cols, .desc = st->desc, .nulls_first = st->nf};
        rc = ex_sort_refs(&sp, &refs, &cnt, err);
    }
    if (!rc) {
        uint64_t from = p->u.sort.offset > 0 ? (uint64_t)p->u.sort.offset : 0;
        if (from > cnt)
            from = cnt;
        uint64_t to = cnt;
        if (p->u.sort.limit >= 0 && from + (uint64_t)p->u.sort.limit < to)
            to = from + (uint64_t)p->u.sort.limit;
        rc = ex_gather(&all, refs + from, to - from, &p->schema, st->nchild, &n->out, n->x, err);
    }
    free(refs);
    ex_rows_free(n->x, &all);
    atomic_fetch_add(&p->stats.time_ns, ex_now_ns() - t0);
    return rc;
}

static void sort_destroy(ex_node *n)
{
    sort_state *st = n->state;
    if (!st)
        return;
    for (uint32_t t = 0; st->locals && t < st->nlocals; t++) {
        ex_rows_free(n->x, &st->locals[t].rows);
        free(st->locals[t].keys.e);
        ex_exprs_free(&st->locals[t].keys);
        for (uint32_t i = 0; i < st->locals[t].nruns; i++)
            ex_spill_close(&st->locals[t].runs[i]);
        free(st->locals[t].runs);
    }
    for (uint32_t i = 0; i < st->nruns; i++) {
        ex_spill_close(&st->runs[i]);
        if (st->cur)
            fl_batch_destroy(&st->cur[i]);
    }
    free(st->runs);
    free(st->cur);
    free(st->pos);
    free(st->heap);
    free(st->view.b);
    if (st->mu_inited)
        pthread_mutex_destroy(&st->mu);
    free(st->locals);
    free(st->cols);
    free(st->desc);
    free(st->nf);
    free(st);
}

fl_status ex_sort_node(ex_node *n, fl_error *err)
{
    if (n->nchildren != 1)
        return fl_errorf(err, FL_EINVAL, "SORT needs one child");
    sort_state *st = calloc(1, sizeof *st);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    n->state = st;
    n->destroy = sort_destroy;
    n->prepare = sort_prepare;
    n->open = sort_open;
    return FL_OK;
}
