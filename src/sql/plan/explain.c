/*
 * explain.c - fl_plan_explain: the plan as indented text, one line per
 * node, children indented under their parent:
 *
 *   Sort keys=[#1 DESC] top=10  (est. rows=10)
 *     Aggregate keys=[#0] aggs=[sum(...)]  (est. rows=...)
 *       HashJoin INNER on [#0 = #0] build=right  (est. rows=...)
 *         Scan lineitem columns=[l_orderkey, ...] filter=(...) prune=[l_shipdate > ...]
 *
 * With analyze, each line also shows what the executor recorded in
 * fl_plan_stats: rows, time, and for scans the files and row groups pruned.
 * Expressions are rendered by fl_expr_to_string (column references as #i,
 * the node's input column i).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/plan/plan_rules.h"

typedef struct sb {
    char *buf;
    size_t len, cap;
    bool oom;
} sb;

static void put(sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sb *s, const char *fmt, ...)
{
    if (s->oom)
        return;
    if (!s->buf) {
        s->buf = malloc(1024);
        if (!s->buf) {
            s->oom = true;
            return;
        }
        s->cap = 1024;
        s->len = 0;
    }
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            s->oom = true;
            return;
        }
        if ((size_t)n < s->cap - s->len) {
            s->len += (size_t)n;
            return;
        }
        size_t nc = (s->cap + (size_t)n + 1) * 2;
        char *nb = realloc(s->buf, nc);
        if (!nb) {
            s->oom = true;
            return;
        }
        s->buf = nb;
        s->cap = nc;
    }
}

const char *fl_front_join_name(fl_join_type t)
{
    switch (t) {
    case FL_JOIN_INNER:
        return "INNER";
    case FL_JOIN_LEFT:
        return "LEFT";
    case FL_JOIN_RIGHT:
        return "RIGHT";
    case FL_JOIN_FULL:
        return "FULL";
    case FL_JOIN_SEMI:
        return "SEMI";
    case FL_JOIN_ANTI:
        return "ANTI";
    case FL_JOIN_MARK:
        return "MARK";
    case FL_JOIN_SINGLE:
        return "SINGLE";
    case FL_JOIN_CROSS:
        return "CROSS";
    }
    return "?";
}

static const char *ex(const fl_expr *e, fl_arena *a)
{
    const char *s = e ? fl_expr_to_string(e, a) : NULL;
    return s ? s : "?";
}

static void exprs(sb *s, fl_expr *const *v, uint32_t n, fl_arena *a)
{
    put(s, "[");
    for (uint32_t i = 0; i < n; i++)
        put(s, "%s%s", i ? ", " : "", ex(v[i], a));
    put(s, "]");
}

static const char *op_str(fl_cmp_op op)
{
    switch (op) {
    case FL_CMP_EQ:
        return "=";
    case FL_CMP_NE:
        return "<>";
    case FL_CMP_LT:
        return "<";
    case FL_CMP_LE:
        return "<=";
    case FL_CMP_GT:
        return ">";
    case FL_CMP_GE:
        return ">=";
    case FL_CMP_IS_NULL:
        return "IS NULL";
    case FL_CMP_NOT_NULL:
        return "IS NOT NULL";
    case FL_CMP_IN:
        return "IN";
    }
    return "?";
}

static void value_str(sb *s, const fl_value *v, fl_arena *a)
{
    fl_expr *c = fl_expr_const(a, v);
    put(s, "%s", c ? ex(c, a) : "?");
}

static void scan_line(sb *s, const fl_plan *p, fl_arena *a)
{
    const fl_plan_scan *sc = &p->u.scan;
    static const char *kinds[] = {"?", "iceberg", "metadata", "parquet", "csv", "json", "rows",
                                  "series", "orc"};
    put(s, "Scan %s %s", kinds[sc->kind <= FL_SCAN_ORC ? sc->kind : 0],
        sc->name ? sc->name : "");
    if (sc->kind == FL_SCAN_ICEBERG)
        put(s, " snapshot=%" PRId64, sc->snapshot_id);
    if (sc->nfiles)
        put(s, " files=%u", sc->nfiles);
    put(s, " columns=[");
    for (uint32_t i = 0; i < p->schema.nfields; i++)
        put(s, "%s%s", i ? ", " : "", p->schema.fields[i].name ? p->schema.fields[i].name : "?");
    put(s, "]");
    if (sc->filter)
        put(s, " filter=%s", ex(sc->filter, a));
    if (sc->prune.nterms) {
        put(s, " prune=[");
        for (uint32_t i = 0; i < sc->prune.nterms; i++) {
            const fl_col_pred *t = &sc->prune.terms[i];
            put(s, "%s%s %s", i ? " AND " : "", t->column ? t->column : "?", op_str(t->op));
            if (t->op == FL_CMP_IN) {
                put(s, " (");
                for (uint32_t k = 0; k < t->nin; k++) {
                    put(s, "%s", k ? ", " : "");
                    value_str(s, &t->in_values[k], a);
                }
                put(s, ")");
            } else if (t->op != FL_CMP_IS_NULL && t->op != FL_CMP_NOT_NULL) {
                put(s, " ");
                value_str(s, &t->value, a);
            }
        }
        put(s, "]");
    }
    if (sc->limit >= 0)
        put(s, " limit=%" PRId64, sc->limit);
}

static void sort_keys(sb *s, const fl_sort_key *k, uint32_t n, fl_arena *a)
{
    put(s, "[");
    for (uint32_t i = 0; i < n; i++)
        put(s, "%s%s%s%s", i ? ", " : "", ex(k[i].expr, a), k[i].desc ? " DESC" : "",
            k[i].nulls_first != k[i].desc ? (k[i].nulls_first ? " NULLS FIRST" : " NULLS LAST")
                                          : "");
    put(s, "]");
}

static void node_line(sb *s, const fl_plan *p, fl_arena *a)
{
    switch (p->kind) {
    case FL_PLAN_SCAN:
        scan_line(s, p, a);
        break;
    case FL_PLAN_VALUES:
        put(s, "Values rows=%u", p->u.values.nrows);
        break;
    case FL_PLAN_FILTER:
        put(s, "Filter %s", ex(p->u.filter.filter, a));
        break;
    case FL_PLAN_PROJECT:
        put(s, "Project ");
        exprs(s, p->u.project.exprs, p->schema.nfields, a);
        break;
    case FL_PLAN_AGG:
        put(s, "Aggregate keys=");
        exprs(s, p->u.agg.keys, p->u.agg.nkeys, a);
        put(s, " aggs=[");
        for (uint32_t i = 0; i < p->u.agg.naggs; i++) {
            const fl_agg_call *c = &p->u.agg.aggs[i];
            put(s, "%s%s(%s", i ? ", " : "", c->fn ? c->fn->name : "?",
                c->distinct ? "DISTINCT " : "");
            if (!c->nargs)
                put(s, "*");
            for (uint32_t k = 0; k < c->nargs; k++)
                put(s, "%s%s", k ? ", " : "", ex(c->args[k], a));
            put(s, ")");
            if (c->filter)
                put(s, " FILTER (%s)", ex(c->filter, a));
        }
        put(s, "]");
        break;
    case FL_PLAN_JOIN: {
        const char *algo = p->u.join.nkeys ? "HashJoin" : "NestedLoopJoin";
        put(s, "%s %s", algo, fl_front_join_name(p->u.join.type));
        if (p->u.join.nkeys) {
            put(s, " on [");
            for (uint32_t i = 0; i < p->u.join.nkeys; i++)
                put(s, "%s%s = %s", i ? ", " : "", ex(p->u.join.left_keys[i], a),
                    ex(p->u.join.right_keys[i], a));
            put(s, "]");
        }
        if (p->u.join.residual)
            put(s, " residual=%s", ex(p->u.join.residual, a));
        if (p->u.join.nkeys)
            put(s, " build=%s", p->u.join.build_left ? "left" : "right");
        if (p->u.join.out_cols) {
            /* the pruned output list (prune_cols.c), by name */
            put(s, " out=[");
            for (uint32_t i = 0; i < p->schema.nfields; i++)
                put(s, "%s%s", i ? ", " : "",
                    p->schema.fields[i].name ? p->schema.fields[i].name : "?");
            put(s, "]");
        }
        break;
    }
    case FL_PLAN_SORT:
        put(s, "Sort keys=");
        sort_keys(s, p->u.sort.keys, p->u.sort.nkeys, a);
        if (p->u.sort.limit >= 0)
            put(s, " top=%" PRId64, p->u.sort.limit);
        break;
    case FL_PLAN_LIMIT:
        put(s, "Limit %" PRId64, p->u.limit.limit);
        if (p->u.limit.offset)
            put(s, " offset=%" PRId64, p->u.limit.offset);
        break;
    case FL_PLAN_WINDOW:
        put(s, "Window [");
        for (uint32_t i = 0; i < p->u.window.ncalls; i++) {
            const fl_window_call *w = &p->u.window.calls[i];
            put(s, "%s%s(", i ? ", " : "", w->fn ? w->fn->name : "?");
            for (uint32_t k = 0; k < w->nargs; k++)
                put(s, "%s%s", k ? ", " : "", ex(w->args[k], a));
            put(s, ") OVER (partition=");
            exprs(s, w->partition_by, w->npartition, a);
            put(s, " order=");
            sort_keys(s, w->order_by, w->norder, a);
            put(s, ")");
        }
        put(s, "]");
        break;
    case FL_PLAN_SETOP:
        put(s, "%s%s",
            p->u.setop.type == FL_SETOP_UNION       ? "Union"
            : p->u.setop.type == FL_SETOP_INTERSECT ? "Intersect"
                                                    : "Except",
            p->u.setop.all ? " ALL" : "");
        break;
    case FL_PLAN_DISTINCT:
        put(s, "Distinct");
        break;
    case FL_PLAN_EMPTY:
        put(s, "Empty");
        break;
    case FL_PLAN_APPLY: /* lateral's nodes: plan_walk.c */
    case FL_PLAN_RECURSE:
    case FL_PLAN_SRF:
        put(s, "%s", fl_plan_explain_ext(p, a));
        break;
    }
}

static void walk(sb *s, const fl_plan *p, int depth, bool analyze, fl_arena *a)
{
    put(s, "%*s", depth * 2, "");
    node_line(s, p, a);
    put(s, "  (est. rows=%.0f", p->est_rows);
    if (analyze) {
        fl_plan_stats *st = (fl_plan_stats *)&p->stats;
        put(s, "; rows=%lld time=%.3f ms", (long long)atomic_load(&st->rows_out),
            (double)atomic_load(&st->time_ns) / 1e6);
        if (p->kind == FL_PLAN_SCAN) {
            /* files: total, pruned (by partition values / by column metrics);
             * row groups of the files read: total, pruned by statistics, read */
            long long rgt = atomic_load(&st->row_groups_total),
                      rgp = atomic_load(&st->row_groups_pruned);
            put(s, " files=%lld pruned=%lld (partition=%lld metrics=%lld)"
                   " row_groups=%lld pruned=%lld read=%lld",
                (long long)atomic_load(&st->files_total),
                (long long)atomic_load(&st->files_pruned),
                (long long)atomic_load(&st->files_pruned_partition),
                (long long)atomic_load(&st->files_pruned_metrics), rgt, rgp, rgt - rgp);
            long long pp = atomic_load(&st->pages_pruned);
            if (pp)
                put(s, " pages_pruned=%lld", pp);
            put(s, " bytes=%lld", (long long)atomic_load(&st->bytes_read));
        }
        long long sp = atomic_load(&st->spilled_bytes);
        if (sp)
            put(s, " spilled=%lld", sp);
    }
    put(s, ")\n");
    for (uint32_t i = 0; i < p->nchildren; i++)
        walk(s, p->children[i], depth + 1, analyze, a);
}

const char *fl_plan_explain(const fl_plan *p, bool analyze, fl_arena *a)
{
    sb s = {0};
    if (p)
        walk(&s, p, 0, analyze, a);
    if (s.oom || !s.buf) {
        free(s.buf);
        return s.oom ? NULL : "";
    }
    const char *r = fl_arena_strndup(a, s.buf, s.len);
    free(s.buf);
    return r;
}
