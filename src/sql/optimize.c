/*
 * optimize.c - rewrites on a finished plan (most pushdown already happened
 * while building it, see joinorder.c):
 *   - LIMIT without ORDER BY over a scan (through projections): the scan may
 *     stop after limit + offset rows;
 *   - a filter or scan filter folded to FALSE/NULL: no rows (FL_PLAN_EMPTY);
 *   - count(*) of an unfiltered Iceberg table: answered from the manifests
 *     (fl_ice_scan_count) when exact, i.e. no delete files apply; the
 *     aggregate becomes a one-row VALUES.
 * min/max from metadata is not done yet (file bounds may be truncated for
 * strings; exact for numbers only without deletes): see the README.
 */
#include <string.h>

#include "sql/front.h"

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

static fl_status count_from_metadata(fl_planner_ctx *pc, fl_plan *p, fl_error *err)
{
    fl_plan *c = p->children[0];
    if (p->u.agg.nkeys || !p->u.agg.naggs || c->kind != FL_PLAN_SCAN ||
        c->u.scan.kind != FL_SCAN_ICEBERG || c->u.scan.filter || c->u.scan.limit >= 0)
        return FL_OK;
    for (uint32_t i = 0; i < p->u.agg.naggs; i++) {
        const fl_agg_call *a = &p->u.agg.aggs[i];
        if (!a->fn || strcmp(a->fn->name, "count") != 0 || a->nargs || a->filter || a->distinct ||
            (a->result.id != FL_TYPE_INT64 && a->result.id != FL_TYPE_INT32))
            return FL_OK;
    }
    int64_t count = 0;
    bool exact = true;
    if (c->u.scan.snapshot_id >= 0) {
        fl_ice_scan_options o;
        memset(&o, 0, sizeof o);
        o.select = FL_ICE_SNAP_ID;
        o.snapshot_id = c->u.scan.snapshot_id;
        fl_ice_scan_plan *sp = NULL;
        FL_TRY(fl_ice_scan_plan_files(pc->io, c->u.scan.meta, &o, &sp, err));
        fl_status rc = fl_ice_scan_count(sp, &count, &exact, err);
        fl_ice_scan_plan_free(sp);
        FL_TRY(rc);
    }
    if (!exact)
        return FL_OK;
    fl_expr ***rows = fl_arena_calloc(pc->arena, 1, sizeof(fl_expr **));
    fl_expr **row = fl_arena_calloc(pc->arena, p->u.agg.naggs, sizeof(fl_expr *));
    if (!rows || !row)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < p->u.agg.naggs; i++) {
        fl_value v;
        memset(&v, 0, sizeof v);
        v.type = p->u.agg.aggs[i].result;
        if (v.type.id == FL_TYPE_INT64)
            v.v.i64 = count;
        else
            v.v.i32 = (int32_t)count;
        row[i] = fl_expr_const(pc->arena, &v);
        if (!row[i])
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    rows[0] = row;
    const char *name = c->u.scan.name;
    int64_t sid = c->u.scan.snapshot_id;
    p->kind = FL_PLAN_VALUES;
    p->nchildren = 0;
    p->children = NULL;
    p->u.values.rows = rows;
    p->u.values.nrows = 1;
    p->est_rows = 1;
    p->stats.snapshot_id_read = sid;
    (void)name;
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
        FL_TRY(count_from_metadata(pc, p, err));
        break;
    default:
        break;
    }
    /* subquery plans inside expressions are optimized where they are built */
    return FL_OK;
}
