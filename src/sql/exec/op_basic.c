/*
 * op_basic.c - the simple operators: VALUES (constant rows, materialized at
 * prepare), EMPTY, FILTER (narrows the batch's selection, no copy), PROJECT
 * (evaluates expressions; column references pass the input vector through
 * by a shallow copy of its descriptor) and LIMIT/OFFSET (a breaker that
 * pulls its child on one thread, so it sees rows in the child's order, and
 * stops as soon as it has offset + limit rows).
 *
 * Ownership: a FILTER/PROJECT op's output batch borrows the input batch's
 * buffers (valid until the op's next call); PROJECT owns the vectors of the
 * expressions it computed.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/exec/exec_internal.h"

/* ---- VALUES ---- */

static fl_status values_prepare(ex_node *n, fl_error *err)
{
    fl_plan *p = n->p;
    ex_thread th = {.x = n->x};
    FL_TRY(ex_eval_state_new(&n->x->env, &th.st, err));
    fl_batch one = {.schema = &p->schema, .ncols = 0, .cols = NULL, .nrows = 1};
    fl_vector *vs = calloc(p->schema.nfields ? p->schema.nfields : 1, sizeof *vs);
    fl_status rc = vs ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t inited = 0;
    for (; !rc && inited < p->schema.nfields; inited++)
        rc = fl_vector_init(&vs[inited], &p->schema.fields[inited].type, err);
    for (uint32_t r = 0; !rc && r < p->u.values.nrows; r++) {
        const fl_vector *cols[p->schema.nfields ? p->schema.nfields : 1];
        for (uint32_t c = 0; !rc && c < p->schema.nfields; c++) {
            fl_vector tmp;
            const fl_expr *e = p->u.values.rows[r][c];
            rc = fl_vector_init(&tmp, &e->type, err);
            if (rc)
                break;
            rc = ex_eval(&th, e, &one, NULL, &tmp, err);
            if (!rc) {
                fl_vector_reset(&vs[c]);
                fl_unified u;
                fl_vector_unify(&tmp, &u);
                if (!fl_type_equal(&e->type, vs[c].type))
                    rc = fl_errorf(err, FL_ETYPE, "VALUES row %u column %u has the wrong type",
                                   r + 1, c + 1);
                else
                    rc = ex_vec_append_one(&vs[c], &u, 0, err);
            }
            fl_vector_destroy(&tmp);
            cols[c] = &vs[c];
        }
        if (!rc)
            rc = ex_rows_append(n->x, &n->out, cols, 1, NULL, err);
    }
    for (uint32_t i = 0; i < inited; i++)
        fl_vector_destroy(&vs[i]);
    free(vs);
    ex_eval_state_free(th.st);
    return rc;
}

fl_status ex_values_node(ex_node *n, fl_error *err)
{
    (void)err;
    n->prepare = values_prepare;
    n->open = ex_open_rows;
    return FL_OK;
}

/* ---- EMPTY ---- */

static fl_status empty_prepare(ex_node *n, fl_error *err)
{
    (void)n;
    (void)err;
    return FL_OK;
}

fl_status ex_empty_node(ex_node *n, fl_error *err)
{
    (void)err;
    n->prepare = empty_prepare;
    n->open = ex_open_rows;
    return FL_OK;
}

/* ---- FILTER ---- */

typedef struct filter_op {
    ex_op base;
    ex_op *child;
    fl_sel sel;
    fl_batch view;
} filter_op;

static fl_status filter_next(ex_op *op, const fl_batch **out, fl_error *err)
{
    filter_op *o = (filter_op *)op;
    *out = NULL;
    for (;;) {
        const fl_batch *b;
        FL_TRY(o->child->next(o->child, &b, err));
        if (!b)
            return FL_OK;
        if (fl_batch_live_rows(b) == 0)
            continue;
        int64_t t0 = ex_now_ns();
        FL_TRY(ex_select(op->th, op->node->p->u.filter.filter, b, b->sel, &o->sel, err));
        atomic_fetch_add(&op->node->p->stats.time_ns, ex_now_ns() - t0);
        if (o->sel.count == 0)
            continue;
        o->view = *b;
        o->view.sel = &o->sel;
        *out = &o->view;
        ex_stats_out(op->node, *out);
        return FL_OK;
    }
}

static void filter_free(ex_op *op)
{
    filter_op *o = (filter_op *)op;
    ex_op_free(o->child);
    ex_sel_free(&o->sel);
    free(o);
}

static fl_status filter_open(ex_node *n, ex_thread *th, ex_op **out, fl_error *err)
{
    filter_op *o = calloc(1, sizeof *o);
    if (!o)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    o->base.next = filter_next;
    o->base.free = filter_free;
    fl_status rc = ex_open(n->children[0], th, &o->child, err);
    if (rc) {
        filter_free(&o->base);
        return rc;
    }
    *out = &o->base;
    return FL_OK;
}

fl_status ex_filter_node(ex_node *n, fl_error *err)
{
    if (n->nchildren != 1 || !n->p->u.filter.filter)
        return fl_errorf(err, FL_EINVAL, "FILTER needs one child and a condition");
    n->open = filter_open;
    return FL_OK;
}

/* ---- PROJECT ---- */

typedef struct project_op {
    ex_op base;
    ex_op *child;
    ex_exprs xs;
    fl_batch ob;
} project_op;

static fl_status project_next(ex_op *op, const fl_batch **out, fl_error *err)
{
    project_op *o = (project_op *)op;
    *out = NULL;
    const fl_batch *b;
    for (;;) {
        FL_TRY(o->child->next(o->child, &b, err));
        if (!b)
            return FL_OK;
        if (fl_batch_live_rows(b) > 0)
            break;
    }
    int64_t t0 = ex_now_ns();
    FL_TRY(ex_exprs_eval(op->th, &o->xs, b, b->sel, err));
    for (uint32_t i = 0; i < o->xs.n; i++)
        o->ob.cols[i] = *o->xs.ptrs[i];
    o->ob.nrows = b->nrows;
    o->ob.sel = b->sel;
    atomic_fetch_add(&op->node->p->stats.time_ns, ex_now_ns() - t0);
    *out = &o->ob;
    ex_stats_out(op->node, *out);
    return FL_OK;
}

static void project_free(ex_op *op)
{
    project_op *o = (project_op *)op;
    ex_op_free(o->child);
    ex_exprs_free(&o->xs);
    free(o->ob.cols); /* shallow copies: the vectors belong to xs or the input */
    free(o);
}

static fl_status project_open(ex_node *n, ex_thread *th, ex_op **out, fl_error *err)
{
    project_op *o = calloc(1, sizeof *o);
    if (!o)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    o->base.next = project_next;
    o->base.free = project_free;
    o->xs.e = n->p->u.project.exprs;
    o->xs.n = n->p->schema.nfields;
    o->ob.schema = &n->p->schema;
    o->ob.ncols = o->xs.n;
    o->ob.cols = calloc(o->xs.n ? o->xs.n : 1, sizeof *o->ob.cols);
    fl_status rc = o->ob.cols ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    if (!rc)
        rc = ex_open(n->children[0], th, &o->child, err);
    if (rc) {
        project_free(&o->base);
        return rc;
    }
    *out = &o->base;
    return FL_OK;
}

fl_status ex_project_node(ex_node *n, fl_error *err)
{
    if (n->nchildren != 1)
        return fl_errorf(err, FL_EINVAL, "PROJECT needs one child");
    n->open = project_open;
    return FL_OK;
}

/* ---- LIMIT / OFFSET ---- */

typedef struct limit_ctx {
    ex_node *n;
    int64_t skip, left; /* left < 0: no limit */
} limit_ctx;

static fl_status limit_consume(void *ctx, ex_thread *th, const fl_batch *b, fl_error *err)
{
    limit_ctx *c = ctx;
    uint32_t live = fl_batch_live_rows(b);
    uint32_t from = 0;
    if (c->skip > 0) {
        from = c->skip >= live ? live : (uint32_t)c->skip;
        c->skip -= from;
    }
    uint32_t take = live - from;
    if (c->left >= 0 && take > c->left)
        take = (uint32_t)c->left;
    if (take) {
        fl_sel s = {0};
        FL_TRY(ex_sel_reserve(&s, take, err));
        for (uint32_t i = 0; i < take; i++)
            s.idx[i] = b->sel ? b->sel->idx[from + i] : from + i;
        s.count = take;
        const fl_vector *cols[b->ncols ? b->ncols : 1];
        for (uint32_t k = 0; k < b->ncols; k++)
            cols[k] = &b->cols[k];
        fl_status rc = ex_rows_append(c->n->x, &c->n->out, cols, b->nrows, &s, err);
        ex_sel_free(&s);
        FL_TRY(rc);
    }
    if (c->left >= 0) {
        c->left -= take;
        if (c->left == 0)
            th->stop = true;
    }
    return FL_OK;
}

static fl_status limit_prepare(ex_node *n, fl_error *err)
{
    limit_ctx c = {.n = n, .skip = n->p->u.limit.offset, .left = n->p->u.limit.limit};
    if (c.left == 0)
        return FL_OK;
    return ex_run_serial(n->children[0], limit_consume, &c, err);
}

fl_status ex_limit_node(ex_node *n, fl_error *err)
{
    if (n->nchildren != 1)
        return fl_errorf(err, FL_EINVAL, "LIMIT needs one child");
    n->prepare = limit_prepare;
    n->open = ex_open_rows;
    return FL_OK;
}

/* ---- SCAN of kind SERIES: generate_series(start, stop, step) ----
 *
 * No state but an atomic row cursor: every worker claims FL_BATCH_CAP row
 * numbers at a time and writes start + i * step into its own batch (INTEGER or
 * BIGINT like its arguments, no NULLs), so a series of any length costs one batch per thread. The
 * scan's exact filter (if the planner pushed one) narrows the selection;
 * the row limit stops the cursor early. Cancellation is checked per morsel. */

typedef struct series_state {
    uint64_t total; /* rows in the series */
    atomic_ullong next;
} series_state;

typedef struct series_op {
    ex_op base;
    fl_batch b;
    bool inited;
    fl_sel sel;
} series_op;

static fl_status series_next(ex_op *op, const fl_batch **out, fl_error *err)
{
    series_op *o = (series_op *)op;
    ex_node *n = op->node;
    series_state *st = n->state;
    const fl_plan_scan *sc = &n->p->u.scan;
    *out = NULL;
    for (;;) {
        FL_TRY(ex_check(n->x, err));
        uint64_t total = st->total;
        if (sc->limit >= 0 && (uint64_t)sc->limit < total && !sc->filter)
            total = (uint64_t)sc->limit;
        uint64_t i0 = atomic_fetch_add(&st->next, FL_BATCH_CAP);
        if (i0 >= total)
            return FL_OK;
        uint32_t cnt = total - i0 < FL_BATCH_CAP ? (uint32_t)(total - i0) : FL_BATCH_CAP;
        if (!o->inited) {
            FL_TRY(fl_batch_init(&o->b, &n->p->schema, err));
            o->inited = true;
        }
        fl_batch_reset(&o->b);
        fl_vector *v = &o->b.cols[0];
        FL_TRY(fl_vector_reserve(v, cnt, err));
        /* start + i * step cannot overflow: every value lies in [start, stop],
         * which also fits INTEGER when the arguments did */
        int64_t x = (int64_t)((__int128)sc->series_start + (__int128)i0 * sc->series_step);
        bool narrow = v->type->id == FL_TYPE_INT32;
        for (uint32_t i = 0; i < cnt; i++) {
            if (narrow)
                ((int32_t *)(void *)v->data)[i] = (int32_t)x;
            else
                ((int64_t *)(void *)v->data)[i] = x;
            if (i + 1 < cnt)
                x += sc->series_step;
        }
        v->len = cnt;
        o->b.nrows = cnt;
        o->b.sel = NULL;
        if (sc->filter) {
            FL_TRY(ex_select(op->th, sc->filter, &o->b, NULL, &o->sel, err));
            if (o->sel.count == 0)
                continue;
            o->b.sel = &o->sel;
        }
        ex_stats_out(n, &o->b);
        *out = &o->b;
        return FL_OK;
    }
}

static void series_free(ex_op *op)
{
    series_op *o = (series_op *)op;
    if (o->inited)
        fl_batch_destroy(&o->b);
    ex_sel_free(&o->sel);
    free(o);
}

static fl_status series_open(ex_node *n, ex_thread *th, ex_op **out, fl_error *err)
{
    (void)n;
    (void)th;
    series_op *o = calloc(1, sizeof *o);
    if (!o)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    o->base.next = series_next;
    o->base.free = series_free;
    *out = &o->base;
    return FL_OK;
}

static void series_destroy(ex_node *n)
{
    free(n->state);
    n->state = NULL;
}

fl_status ex_series_node(ex_node *n, fl_error *err)
{
    const fl_plan_scan *sc = &n->p->u.scan;
    fl_type_id t = n->p->schema.nfields == 1 ? n->p->schema.fields[0].type.id : (fl_type_id)0;
    bool fits32 = sc->series_start >= INT32_MIN && sc->series_start <= INT32_MAX &&
                  sc->series_stop >= INT32_MIN && sc->series_stop <= INT32_MAX;
    if (t != FL_TYPE_INT64 && !(t == FL_TYPE_INT32 && fits32))
        return fl_errorf(err, FL_EINVAL,
                         "generate_series scan must output one BIGINT (or INTEGER) column");
    if (sc->series_step == 0)
        return fl_errorf(err, FL_EINVAL, "step size cannot equal zero");
    series_state *st = calloc(1, sizeof *st);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    __int128 span = (__int128)sc->series_stop - sc->series_start;
    if ((span >= 0) == (sc->series_step > 0) || span == 0)
        st->total = (uint64_t)(span / sc->series_step) + 1;
    n->state = st;
    n->destroy = series_destroy;
    n->open = series_open;
    return FL_OK;
}
