/*
 * optimize.c - rewrites on a finished plan (most pushdown already happened
 * while building it, see joinorder.c):
 *   - LIMIT without ORDER BY over a scan (through projections): the scan may
 *     stop after limit + offset rows;
 *   - a filter or scan filter folded to FALSE/NULL: no rows (FL_PLAN_EMPTY);
 *   - count(*), count(col), min(col) and max(col) of an unfiltered Iceberg
 *     table: answered from the manifests' record counts, value/null counts
 *     and lower/upper bounds when that is exact (no delete file applies,
 *     every metric present; min/max only for types whose bounds are never
 *     truncated: integers, decimals, dates, times, timestamps, booleans);
 *     the aggregate becomes a one-row VALUES.
 */
#include <limits.h>
#include <string.h>

#include "floe/ice_manifest.h"
#include "floe/ice_scan.h"
#include "sql/expr.h"
#include "sql/plan/plan_rules.h"

static bool const_false(const fl_expr *e)
{
    return e && e->kind == FL_EXPR_CONST && (e->value.is_null || !e->value.v.b);
}

static void make_empty(fl_plan *p)
{
    p->kind = FL_PLAN_EMPTY;
    p->nchildren = 0;
    p->children = NULL;
    p->est_rows = 0;
}

/* What one aggregate of an ungrouped AGG over a bare Iceberg scan needs. */
typedef struct meta_agg {
    int kind; /* 0 count(*), 1 count(col), 2 min, 3 max */
    int32_t field_id;
    fl_type type;
    bool have;
    fl_value best;
    int64_t count;
} meta_agg;

static bool bounds_exact_type(const fl_type *t)
{
    switch (t->id) {
    case FL_TYPE_BOOLEAN:
    case FL_TYPE_INT32:
    case FL_TYPE_INT64:
    case FL_TYPE_DECIMAL:
    case FL_TYPE_DATE:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS:
        return true; /* strings may be truncated, floats have NaN */
    default:
        return false;
    }
}

static bool classify(const fl_plan *scan, const fl_agg_call *a, meta_agg *m)
{
    memset(m, 0, sizeof *m);
    const char *n = a->fn ? a->fn->name : "";
    if (a->filter || a->distinct || a->norder)
        return false;
    if (strcmp(n, "count") == 0 && a->nargs == 0) {
        m->kind = 0;
    } else if (a->nargs == 1 && a->args[0]->kind == FL_EXPR_COLUMN &&
               a->args[0]->column < scan->u.scan.ncolumns) {
        if (strcmp(n, "count") == 0)
            m->kind = 1;
        else if (strcmp(n, "min") == 0)
            m->kind = 2;
        else if (strcmp(n, "max") == 0)
            m->kind = 3;
        else
            return false;
        m->field_id = scan->u.scan.columns[a->args[0]->column];
        m->type = a->args[0]->type;
        if (m->kind >= 2 && (!bounds_exact_type(&m->type) || !fl_type_equal(&m->type, &a->result)))
            return false;
    } else {
        return false;
    }
    return m->kind == 0 || m->field_id > 0;
}

/* Folds one data file's metrics into m; false when they do not settle it. */
static bool fold_file(const fl_ice_data_file *f, meta_agg *m)
{
    if (m->kind == 0) {
        m->count += f->record_count;
        return true;
    }
    const fl_ice_column_metrics *cm = fl_ice_data_file_metrics(f, m->field_id);
    if (!cm || cm->value_count < 0 || cm->null_value_count < 0)
        return false;
    int64_t nonnull = cm->value_count - cm->null_value_count;
    if (m->kind == 1) {
        m->count += nonnull;
        return true;
    }
    if (nonnull == 0)
        return true;
    bool lo = m->kind == 2;
    if (lo ? !cm->has_lower : !cm->has_upper)
        return false;
    fl_value v;
    fl_error e;
    if (fl_ice_value_from_bytes(&m->type, lo ? cm->lower : cm->upper,
                                lo ? cm->lower_len : cm->upper_len, &v, &e) != FL_OK)
        return false;
    v.type = m->type;
    if (!m->have || (lo ? fl_value_compare(&v, &m->best) < 0 : fl_value_compare(&v, &m->best) > 0))
        m->best = v;
    m->have = true;
    return true;
}

/* count(*), count(col), min(col), max(col) of an unfiltered Iceberg table
 * from manifest metrics, when exact: no delete file applies to any data
 * file, and every needed metric is present. */
static fl_status agg_from_metadata(fl_planner_ctx *pc, fl_plan *p, fl_error *err)
{
    fl_plan *c = p->children[0];
    if (p->u.agg.nkeys || !p->u.agg.naggs || p->u.agg.nsets || c->kind != FL_PLAN_SCAN ||
        c->u.scan.kind != FL_SCAN_ICEBERG || c->u.scan.filter || c->u.scan.limit >= 0)
        return FL_OK;
    uint32_t n = p->u.agg.naggs;
    meta_agg *m = fl_arena_calloc(pc->arena, n, sizeof *m);
    if (!m)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++)
        if (!classify(c, &p->u.agg.aggs[i], &m[i]))
            return FL_OK;
    if (c->u.scan.snapshot_id != FL_ICE_NO_SNAPSHOT) {
        fl_ice_scan_options o;
        memset(&o, 0, sizeof o);
        o.select = FL_ICE_SNAP_ID;
        o.snapshot_id = c->u.scan.snapshot_id;
        o.has_schema_id = true;
        o.schema_id = c->u.scan.schema_id;
        fl_ice_scan_plan *sp = NULL;
        FL_TRY(fl_ice_scan_plan_files(pc->io, c->u.scan.meta, &o, &sp, err));
        bool exact = true;
        for (uint32_t t = 0; exact && t < sp->ntasks; t++) {
            const fl_ice_scan_task *task = &sp->tasks[t];
            if (task->ndeletes) {
                exact = false;
                break;
            }
            for (uint32_t i = 0; exact && i < n; i++)
                exact = fold_file(task->file, &m[i]);
        }
        /* values point into the plan's arena: copy the bounds we keep */
        for (uint32_t i = 0; exact && i < n; i++)
            if (m[i].have) {
                fl_expr *k = fl_expr_const(pc->arena, &m[i].best);
                if (!k) {
                    fl_ice_scan_plan_free(sp);
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
                }
                m[i].best = k->value;
            }
        fl_ice_scan_plan_free(sp);
        if (!exact)
            return FL_OK;
    }
    fl_expr ***rows = fl_arena_calloc(pc->arena, 1, sizeof(fl_expr **));
    fl_expr **row = fl_arena_calloc(pc->arena, n, sizeof(fl_expr *));
    if (!rows || !row)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        fl_value v;
        memset(&v, 0, sizeof v);
        v.type = p->u.agg.aggs[i].result;
        if (m[i].kind <= 1) {
            if (v.type.id == FL_TYPE_INT64)
                v.v.i64 = m[i].count;
            else if (v.type.id == FL_TYPE_INT32 && m[i].count <= INT32_MAX)
                v.v.i32 = (int32_t)m[i].count;
            else
                return FL_OK;
        } else if (m[i].have) {
            v = m[i].best;
        } else {
            v.is_null = true;
        }
        row[i] = fl_expr_const(pc->arena, &v);
        if (!row[i])
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        row[i]->type = p->u.agg.aggs[i].result;
    }
    rows[0] = row;
    p->kind = FL_PLAN_VALUES;
    p->nchildren = 0;
    p->children = NULL;
    p->u.values.rows = rows;
    p->u.values.nrows = 1;
    p->est_rows = 1;
    p->stats.snapshot_id_read = c->u.scan.snapshot_id;
    return FL_OK;
}

static void push_limit(fl_plan *p)
{
    int64_t n = p->u.limit.limit;
    if (n < 0)
        return;
    n += p->u.limit.offset;
    fl_plan *c = p->children[0];
    while (c->kind == FL_PLAN_PROJECT)
        c = c->children[0];
    if (c->kind == FL_PLAN_SCAN && (c->u.scan.limit < 0 || c->u.scan.limit > n))
        c->u.scan.limit = n;
}

fl_status fl_optimize(fl_planner_ctx *pc, fl_plan *p, fl_error *err)
{
    for (uint32_t i = 0; i < p->nchildren; i++)
        FL_TRY(fl_optimize(pc, p->children[i], err));
    switch (p->kind) {
    case FL_PLAN_FILTER:
        if (const_false(p->u.filter.filter))
            make_empty(p);
        break;
    case FL_PLAN_SCAN:
        if (const_false(p->u.scan.filter))
            make_empty(p);
        break;
    case FL_PLAN_LIMIT:
        push_limit(p);
        if (p->u.limit.limit == 0)
            make_empty(p);
        break;
    case FL_PLAN_AGG:
        FL_TRY(agg_from_metadata(pc, p, err));
        break;
    default:
        break;
    }
    /* subquery plans inside expressions are optimized where they are built */
    return FL_OK;
}

/* ---- OR factoring (called by joinorder.c before conjuncts are placed) ---- */

static bool volatile_expr(const fl_expr *e)
{
    if (e->kind == FL_EXPR_CALL && e->fn && !e->fn->deterministic)
        return true;
    for (uint32_t i = 0; i < e->nargs; i++)
        if (volatile_expr(e->args[i]))
            return true;
    return false;
}

/* Flattens nested nodes of kind k (AND or OR) into out[]; counts when out NULL. */
static uint32_t flatten(fl_expr *e, fl_expr_kind k, fl_expr **out, uint32_t n)
{
    if (e->kind != k) {
        if (out)
            out[n] = e;
        return n + 1;
    }
    for (uint32_t i = 0; i < e->nargs; i++)
        n = flatten(e->args[i], k, out, n);
    return n;
}

/* structural equality, with a = b equal to b = a */
static bool conj_equal(const fl_expr *x, const fl_expr *y)
{
    if (fl_expr_equal(x, y))
        return true;
    return x->kind == FL_EXPR_CALL && y->kind == FL_EXPR_CALL && x->fn && x->fn == y->fn &&
           x->nargs == 2 && y->nargs == 2 && strcmp(x->fn->name, "=") == 0 &&
           fl_expr_equal(x->args[0], y->args[1]) && fl_expr_equal(x->args[1], y->args[0]);
}

static bool has_equal(fl_expr *const *xs, uint32_t n, const fl_expr *e)
{
    for (uint32_t i = 0; i < n; i++)
        if (conj_equal(xs[i], e))
            return true;
    return false;
}

static fl_status make_or(fl_arena *a, fl_expr **terms, uint32_t n, fl_expr **out)
{
    if (n == 1) {
        *out = terms[0];
        return FL_OK;
    }
    fl_type bt = {.id = FL_TYPE_BOOLEAN};
    fl_expr *e = fl_expr_new(a, FL_EXPR_OR, &bt, n);
    if (!e)
        return FL_ENOMEM;
    for (uint32_t i = 0; i < n; i++)
        e->args[i] = terms[i];
    e->location = terms[0]->location;
    *out = e;
    return FL_OK;
}

fl_status fl_front_factor_or(fl_arena *a, fl_expr *e, fl_front_mask_fn mask, const void *ctx,
                             fl_expr ***out, uint32_t *nout, fl_error *err)
{
    *out = NULL;
    *nout = 0;
    if (e->kind != FL_EXPR_OR || volatile_expr(e))
        return FL_OK;
    uint32_t nb = flatten(e, FL_EXPR_OR, NULL, 0);
    fl_expr **br = fl_arena_alloc(a, nb * sizeof *br);
    fl_expr ***bc = fl_arena_alloc(a, nb * sizeof *bc); /* conjuncts of each branch */
    uint32_t *bn = fl_arena_alloc(a, nb * sizeof *bn);
    if (!br || !bc || !bn)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    flatten(e, FL_EXPR_OR, br, 0);
    uint32_t total = 0;
    for (uint32_t i = 0; i < nb; i++) {
        bn[i] = flatten(br[i], FL_EXPR_AND, NULL, 0);
        bc[i] = fl_arena_alloc(a, bn[i] * sizeof(fl_expr *));
        if (!bc[i])
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        flatten(br[i], FL_EXPR_AND, bc[i], 0);
        total += bn[i];
    }
    /* room: common conjuncts (<= bn[0]), one derived OR per relation (<= 64), the rest */
    fl_expr **res = fl_arena_alloc(a, (bn[0] + 66) * sizeof *res);
    if (!res)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t nres = 0;
    /* 1. conjuncts common to every branch: OR_i (C AND R_i) = C AND OR_i R_i
     * (Kleene logic is distributive) */
    for (uint32_t j = 0; j < bn[0]; j++) {
        fl_expr *c = bc[0][j];
        bool everywhere = !has_equal(res, nres, c);
        for (uint32_t i = 1; everywhere && i < nb; i++)
            everywhere = has_equal(bc[i], bn[i], c);
        if (everywhere)
            res[nres++] = c;
    }
    uint32_t ncommon = nres;
    if (ncommon) {
        /* drop them from every branch; a branch left empty makes the OR TRUE */
        bool trivially_true = false;
        for (uint32_t i = 0; i < nb; i++) {
            uint32_t k = 0;
            for (uint32_t j = 0; j < bn[i]; j++)
                if (!has_equal(res, ncommon, bc[i][j]))
                    bc[i][k++] = bc[i][j];
            bn[i] = k;
            if (k == 0)
                trivially_true = true;
        }
        if (trivially_true) {
            *out = res;
            *nout = nres;
            return FL_OK;
        }
    }
    /* 2. per relation restricted by every branch: OR_i (AND of branch i's
     * conjuncts over that relation alone) is implied by the OR; adding it
     * filters the relation's scan early (the full OR stays) */
    uint64_t rels = ~0ull;
    for (uint32_t i = 0; i < nb; i++) {
        uint64_t any = 0;
        for (uint32_t j = 0; j < bn[i]; j++) {
            uint64_t m = mask(ctx, bc[i][j]);
            if (m && (m & (m - 1)) == 0)
                any |= m;
        }
        rels &= any;
    }
    if (nres == 0 && rels == 0)
        return FL_OK; /* nothing to factor */
    bool whole_single = true; /* every conjunct of every branch was single-relation and one rel */
    for (int r = 0; r < 64 && rels; r++) {
        uint64_t bit = 1ull << r;
        if (!(rels & bit))
            continue;
        fl_expr **terms = fl_arena_alloc(a, nb * sizeof *terms);
        fl_expr **tmp = fl_arena_alloc(a, (total + 1) * sizeof *tmp);
        if (!terms || !tmp)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < nb; i++) {
            uint32_t k = 0;
            for (uint32_t j = 0; j < bn[i]; j++)
                if (mask(ctx, bc[i][j]) == bit)
                    tmp[k++] = bc[i][j];
            if (k != bn[i])
                whole_single = false;
            if (fl_front_and(a, tmp, k, &terms[i]) != FL_OK)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
        if (make_or(a, terms, nb, &res[nres++]) != FL_OK)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    /* 3. the remaining OR, unless a single derived OR already is all of it */
    if (!(nres == ncommon + 1 && whole_single)) {
        fl_expr **terms = fl_arena_alloc(a, nb * sizeof *terms);
        if (!terms)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < nb; i++)
            if (fl_front_and(a, bc[i], bn[i], &terms[i]) != FL_OK)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (make_or(a, terms, nb, &res[nres++]) != FL_OK)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    *out = res;
    *nout = nres;
    return FL_OK;
}
