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

static int qcmp(const void *x, const void *y, void *ctx)
{
    return ex_ref_cmp(ctx, *(const ex_ref *)x, *(const ex_ref *)y);
}

fl_status ex_sort_refs(const ex_sortspec *s, ex_ref **out, uint64_t *n, fl_error *err)
{
    const ex_rows *r = s->rows;
    *out = NULL;
    *n = 0;
    ex_ref *refs = malloc((r->rows ? r->rows : 1) * sizeof *refs);
    if (!refs)
        return fl_errorf(err, FL_ENOMEM, "sort: out of memory for %llu rows",
                         (unsigned long long)r->rows);
    uint64_t k = 0;
    for (uint32_t b = 0; b < r->n; b++)
        for (uint32_t i = 0; i < r->b[b]->nrows; i++)
            refs[k++] = (ex_ref){b, i};
    qsort_r(refs, k, sizeof *refs, qcmp, (void *)s);
    *out = refs;
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
} sort_local;

typedef struct sort_state {
    const fl_schema *wide; /* child columns + key columns */
    uint32_t nchild;
    sort_local *locals;
    uint32_t nlocals;
    uint32_t *cols;
    bool *desc, *nf;
    int64_t keep; /* top-N: rows to keep (offset + limit); -1 = all */
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
    uint32_t m = st->wide->nfields;
    const fl_vector *cols[m ? m : 1];
    for (uint32_t c = 0; c < st->nchild; c++)
        cols[c] = &b->cols[c];
    for (uint32_t k = 0; k < l->keys.n; k++)
        cols[st->nchild + k] = l->keys.ptrs[k];
    FL_TRY(ex_rows_append(n->x, &l->rows, cols, b->nrows, b->sel, err));
    if (st->keep >= 0 && l->rows.rows > (uint64_t)(2 * st->keep + FL_BATCH_CAP))
        FL_TRY(truncate_topn(n, st, &l->rows, err));
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
    sort_ctx sc = {n, st};
    FL_TRY(ex_run_parallel(n->children[0], sort_consume, &sc, err));
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
    }
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
    n->open = ex_open_rows;
    return FL_OK;
}
