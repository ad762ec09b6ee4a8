/*
 * compile_metric.c - one metric at the query's group-by, as a CTE with the
 * group-by columns (named as asked) and the value "v":
 *
 *   simple      the measure's rows (its semantic model joined many-to-one to
 *               what the group-by and filters need), aggregated; a
 *               non_additive_dimension keeps only the rows at the max (min)
 *               of that dimension per metric_time bucket and window grouping
 *   ratio       numerator and denominator each compiled on their own, full
 *               joined on the group-by, divided as double with NULLIF(.., 0)
 *   derived     inputs compiled on their own and full joined; an input with
 *               offset_window / offset_to_grain is left joined on the shifted
 *               metric_time instead, then `expr` is evaluated over the aliases
 *   cumulative  compile_cumulative.c; conversion: compile_conversion.c
 *
 * Filters (the query's where, metric filters and input filters) are applied
 * to the measure rows before aggregation.
 */
#include <stdio.h>
#include <string.h>

#include "semantic/compile.h"

const char *sem_ident(sem_ctx *c, const char *name)
{
    return fl_arena_sprintf(&c->a, "\"%s\"", name);
}

const char *sem_same_key(sem_ctx *c, const char *l, const char *r)
{
    return fl_arena_sprintf(&c->a,
                            "coalesce(CAST(%s AS varchar), '') = coalesce(CAST(%s AS varchar), '') "
                            "AND %s IS NOT DISTINCT FROM %s",
                            l, r, l, r);
}

const char *sem_full_join(sem_ctx *c, const char *base, const char *const *names, uint32_t n,
                          const char *cte, const char *rvals)
{
    const char *keys = "", *on = "", *vals = "";
    for (uint32_t i = 0; i < n; i++)
        vals = fl_arena_sprintf(&c->a, "%sb.%s, ", vals, sem_ident(c, names[i]));
    if (!c->ngbs)
        return fl_arena_sprintf(&c->a, "SELECT %s%s FROM %s b CROSS JOIN %s r", vals, rvals, base,
                                cte);
    for (uint32_t i = 0; i < c->ngbs; i++) {
        const char *g = sem_ident(c, c->gbs[i].name);
        const char *l = fl_arena_sprintf(&c->a, "b.%s", g), *r = fl_arena_sprintf(&c->a, "r.%s", g);
        keys = fl_arena_sprintf(&c->a, "%scoalesce(%s, %s) AS %s, ", keys, l, r, g);
        on = fl_arena_sprintf(&c->a, "%s%s%s", on, i ? " AND " : "", sem_same_key(c, l, r));
    }
    return fl_arena_sprintf(&c->a, "SELECT %s%s%s FROM %s b FULL JOIN %s r ON %s", keys, vals,
                            rvals, base, cte, on);
}

fl_status sem_add_cte(sem_ctx *c, const char *sql, const char **name)
{
    *name = fl_arena_sprintf(&c->a, "c%u", ++c->ncte);
    return fl_buf_appendf(&c->ctes, c->err, "%s%s AS (%s)", c->ncte > 1 ? ",\n" : "", *name, sql);
}

/* "p."a", p."b"" (prefix may be ""); skips metric_time members when asked */
const char *sem_gb_cols(sem_ctx *c, const char *prefix, bool skip_time)
{
    const char *s = "";
    for (uint32_t i = 0; i < c->ngbs; i++) {
        if (skip_time && c->gbs[i].metric_time)
            continue;
        s = fl_arena_sprintf(&c->a, "%s%s%s%s", s, *s ? ", " : "", prefix,
                             sem_ident(c, c->gbs[i].name));
    }
    return s;
}

bool sem_gb_is_date(const sem_gb *g)
{
    return !(g->grain && sem_grain_rank(g->grain) == 1);
}

fl_status sem_push_filter(sem_ctx *c, sem_filters *f, const char *filter)
{
    if (!filter)
        return FL_OK;
    if (f->n == sizeof f->items / sizeof f->items[0])
        return fl_errorf(c->err, FL_ELIMIT, "more than 80 filters");
    f->items[f->n++] = filter;
    return FL_OK;
}

const char *sem_agg_sql(sem_ctx *c, const sem_measure *ms, const char *v)
{
    const char *a = ms->agg;
    if (!strcmp(a, "count_distinct"))
        return fl_arena_sprintf(&c->a, "count(DISTINCT %s)", v);
    if (!strcmp(a, "sum_boolean"))
        return fl_arena_sprintf(&c->a, "sum(CASE WHEN %s THEN 1 ELSE 0 END)", v);
    if (c->trino && (!strcmp(a, "median") || !strcmp(a, "percentile")))
        return fl_arena_sprintf(&c->a, "approx_percentile(%s, %.17g)", v,
                                !strcmp(a, "median") ? 0.5 : ms->percentile);
    if (!strcmp(a, "median"))
        return fl_arena_sprintf(&c->a, "percentile_cont(0.5) WITHIN GROUP (ORDER BY %s)", v);
    if (!strcmp(a, "percentile"))
        return fl_arena_sprintf(&c->a, "percentile_%s(%.17g) WITHIN GROUP (ORDER BY %s)",
                                ms->discrete ? "disc" : "cont", ms->percentile, v);
    return fl_arena_sprintf(&c->a, "%s(%s)", a, v);
}

/* The measure's rows: the group-by columns (for cumulative: the
 * non-time ones and __t, the agg time at its own grain), v, and for
 * semi-additive measures __nad and the window groupings __g0... */
fl_status sem_measure_rows(sem_ctx *c, const sem_smodel *sm, const sem_measure *ms,
                           const sem_filters *f, rows_mode mode, const char *entity,
                           const char *why, const char **rows)
{
    return sem_measure_rows_n(c, sm, &ms, 1, f, mode, entity, why, rows);
}

fl_status sem_measure_rows_n(sem_ctx *c, const sem_smodel *sm, const sem_measure *const *mss,
                             uint32_t nms, const sem_filters *f, rows_mode mode, const char *entity,
                             const char *why, const char **rows)
{
    const sem_measure *ms = mss[0];
    bool cumulative = mode == ROWS_CUMULATIVE;
    sem_joins j;
    sem_joins_init(&j, c, sm, why);
    const char *atd = ms->agg_time_dimension ? ms->agg_time_dimension : sm->agg_time_dimension;
    const char *sel = "";
    for (uint32_t i = 0; i < c->ngbs; i++) {
        const char *col = NULL;
        bool is_date = false;
        if (cumulative && c->gbs[i].metric_time)
            continue;
        FL_TRY(sem_member_sql(&j, &c->gbs[i], atd, &col, &is_date));
        sel = fl_arena_sprintf(&c->a, "%s%s AS %s, ", sel, col, sem_ident(c, c->gbs[i].name));
    }
    if (mode != ROWS_AGG) {
        sem_gb t = {.name = "metric_time", .metric_time = true};
        const char *col = NULL;
        bool is_date = false;
        FL_TRY(sem_member_sql(&j, &t, atd, &col, &is_date));
        sel = fl_arena_sprintf(&c->a, "%s%s AS __t, ", sel, col);
    }
    if (mode == ROWS_CONVERSION) {
        const char *e = NULL;
        FL_TRY(sem_node_col(&j, 0, sem_model_entity(sm, entity)->expr, &e));
        sel = fl_arena_sprintf(&c->a, "%s%s AS __e, ", sel, e);
    }
    for (uint32_t i = 0; i < nms; i++) { /* v, v1, v2, ...: one per measure */
        const char *v = NULL;
        FL_TRY(sem_node_col(&j, 0, mss[i]->expr, &v));
        sel = i ? fl_arena_sprintf(&c->a, "%s, %s AS v%u", sel, v, i)
                : fl_arena_sprintf(&c->a, "%s%s AS v", sel, v);
    }
    if (ms->nad_name) {
        const char *nad = NULL;
        FL_TRY(sem_node_col(&j, 0, sem_model_dim(sm, ms->nad_name)->expr, &nad));
        sel = fl_arena_sprintf(&c->a, "%s, %s AS __nad", sel, nad);
        for (uint32_t i = 0; i < ms->nnad_groupings; i++) {
            const char *g = NULL;
            FL_TRY(sem_node_col(&j, 0, sem_model_entity(sm, ms->nad_groupings[i])->expr, &g));
            sel = fl_arena_sprintf(&c->a, "%s, %s AS __g%u", sel, g, i);
        }
    }
    const char *where = "";
    for (uint32_t i = 0; i < f->n; i++) {
        const char *w = NULL;
        FL_TRY(sem_filter_sql(&j, f->items[i], atd, &w));
        where = fl_arena_sprintf(&c->a, "%s%s%s", where, *where ? " AND " : " WHERE ", w);
    }
    fl_buf b;
    fl_buf_init(&b, 0);
    fl_status rc = fl_buf_appendf(&b, c->err, "SELECT %s", sel);
    if (rc == FL_OK)
        rc = sem_joins_from(&j, &b);
    if (rc == FL_OK)
        rc = fl_buf_puts(&b, where, c->err);
    if (rc == FL_OK)
        *rows = fl_arena_strndup(&c->a, b.data, b.len);
    fl_buf_free(&b);
    return rc;
}

/* "metric 'x' (metrics.yml:4; measure 'm' of semantic model 's', orders.yml:9)" */
const char *sem_metric_why(sem_ctx *c, const sem_metric *mt, const sem_measure *ms,
                           const sem_smodel *sm)
{
    return fl_arena_sprintf(&c->a,
                            "metric '%s' (%s:%u; measure '%s' of semantic model '%s', "
                            "%s:%u)",
                            mt->name, mt->at.file, mt->at.line, ms->name, sm->name, ms->at.file,
                            ms->at.line);
}

const char *sem_group_by(sem_ctx *c, const char *cols)
{
    return *cols ? fl_arena_sprintf(&c->a, " GROUP BY %s", cols) : "";
}

fl_status sem_compile_simple(sem_ctx *c, const sem_metric *mt, const sem_input *in,
                             const sem_filters *inherited, const char **cte)
{
    const sem_measure *ms = NULL;
    const sem_smodel *sm = sem_find_measure(c->m, in->name, &ms);
    sem_filters f = *inherited;
    FL_TRY(sem_push_filter(c, &f, in->filter));
    const char *why = sem_metric_why(c, mt, ms, sm);
    const char *rows = NULL;
    FL_TRY(sem_measure_rows(c, sm, ms, &f, ROWS_AGG, NULL, why, &rows));
    const char *cols = sem_gb_cols(c, "", false);
    const char *sql;
    if (!ms->nad_name) {
        sql = fl_arena_sprintf(&c->a, "SELECT %s%s%s AS v FROM (%s) r%s", cols, *cols ? ", " : "",
                               sem_agg_sql(c, ms, "v"), rows, sem_group_by(c, cols));
    } else {
        const char *part = "";
        for (uint32_t i = 0; i < c->ngbs; i++)
            if (c->gbs[i].metric_time)
                part = fl_arena_sprintf(&c->a, "%s%s%s", part, *part ? ", " : "",
                                        sem_ident(c, c->gbs[i].name));
        for (uint32_t i = 0; i < ms->nnad_groupings; i++)
            part = fl_arena_sprintf(&c->a, "%s%s__g%u", part, *part ? ", " : "", i);
        sql = fl_arena_sprintf(
            &c->a,
            "SELECT %s%s%s AS v FROM (SELECT r.*, %s(__nad) OVER (%s%s) AS __pick "
            "FROM (%s) r) r WHERE __nad = __pick%s",
            cols, *cols ? ", " : "", sem_agg_sql(c, ms, "v"), ms->nad_window_choice,
            *part ? "PARTITION BY " : "", part, rows, sem_group_by(c, cols));
    }
    return sem_add_cte(c, sql, cte);
}

const sem_gb *sem_time_gb(sem_ctx *c, uint32_t *count)
{
    const sem_gb *t = NULL;
    *count = 0;
    for (uint32_t i = 0; i < c->ngbs; i++)
        if (c->gbs[i].metric_time) {
            t = &c->gbs[i];
            (*count)++;
        }
    return t;
}

/* ---- combining inputs (ratio, derived) ---- */

static const char *shifted(sem_ctx *c, const sem_gb *g, const sem_input *in)
{
    const char *col = fl_arena_sprintf(&c->a, "b.%s", sem_ident(c, g->name));
    bool d = sem_gb_is_date(g);
    if (in->offset_window) {
        const char *s =
            fl_arena_sprintf(&c->a, "%s - %s", col, sem_interval_sql(c, in->offset_window));
        return d ? fl_arena_sprintf(&c->a, "CAST(%s AS date)", s) : s;
    }
    const char *s = fl_arena_sprintf(&c->a, "date_trunc('%s', %s)", in->offset_to_grain, col);
    return d ? fl_arena_sprintf(&c->a, "CAST(%s AS date)", s) : s;
}

/* A CTE with the group-by and one column per part, named by its ref. */
fl_status sem_combine(sem_ctx *c, const char *why, sem_part *parts, uint32_t n, const char **out)
{
    const char *cols = sem_gb_cols(c, "", false);
    const char *base = NULL;
    const char *names[64];
    uint32_t nnames = 0;
    int first = -1;
    for (uint32_t i = 0; i < n && first < 0; i++)
        if (!parts[i].in || (!parts[i].in->offset_window && !parts[i].in->offset_to_grain))
            first = (int)i;
    bool all_offset = first < 0;
    if (all_offset) { /* the periods of the first input, its value shifted in below */
        FL_TRY(sem_add_cte(
            c, fl_arena_sprintf(&c->a, "SELECT DISTINCT %s FROM %s", cols, parts[0].cte), &base));
    } else {
        FL_TRY(sem_add_cte(c,
                           fl_arena_sprintf(&c->a, "SELECT %s%sv AS %s FROM %s", cols,
                                            *cols ? ", " : "", sem_ident(c, parts[first].ref),
                                            parts[first].cte),
                           &base));
        names[nnames++] = parts[first].ref;
    }
    for (uint32_t i = 0; i < n; i++) {
        if ((int)i == first)
            continue;
        const sem_part *p = &parts[i];
        const char *ref = sem_ident(c, p->ref), *sql;
        bool offset = p->in && (p->in->offset_window || p->in->offset_to_grain);
        if (offset) {
            uint32_t nt = 0;
            if (!sem_time_gb(c, &nt))
                return fl_errorf(c->err, FL_EINVAL,
                                 "%s: input '%s' has an offset, so the query "
                                 "must group by metric_time (e.g. metric_time__month)",
                                 why, p->ref);
            const char *on = "";
            for (uint32_t k = 0; k < c->ngbs; k++) {
                const sem_gb *g = &c->gbs[k];
                const char *o = fl_arena_sprintf(&c->a, "o.%s", sem_ident(c, g->name));
                const char *eq =
                    g->metric_time
                        ? fl_arena_sprintf(&c->a, "%s = %s", o, shifted(c, g, p->in))
                        : sem_same_key(c, o,
                                       fl_arena_sprintf(&c->a, "b.%s", sem_ident(c, g->name)));
                on = fl_arena_sprintf(&c->a, "%s%s%s", on, *on ? " AND " : "", eq);
            }
            sql = fl_arena_sprintf(&c->a, "SELECT b.*, o.v AS %s FROM %s b LEFT JOIN %s o ON %s",
                                   ref, base, p->cte, on);
        } else {
            sql = sem_full_join(c, base, names, nnames, p->cte,
                                fl_arena_sprintf(&c->a, "r.v AS %s", ref));
        }
        names[nnames++] = p->ref;
        FL_TRY(sem_add_cte(c, sql, &base));
    }
    *out = base;
    return FL_OK;
}

static fl_status compile_inputs(sem_ctx *c, const sem_metric *mt, const sem_input *ins, uint32_t n,
                                const char *expr, const sem_filters *inh, int depth,
                                const char **cte)
{
    sem_part parts[64];
    if (n > 64)
        return fl_errorf(c->err, FL_ELIMIT, "metric '%s': more than 64 inputs", mt->name);
    const char *refs[64];
    for (uint32_t i = 0; i < n; i++)
        refs[i] = mt->type == SEM_RATIO ? (i ? "__den" : "__num") : sem_input_ref(&ins[i]);
    const char *joined = NULL;
    FL_TRY(sem_fuse_inputs(c, ins, refs, n, inh, &joined));
    const char *cols = sem_gb_cols(c, "", false);
    if (joined) /* one pass over one model's rows (compile_fuse.c) */
        return sem_add_cte(c,
                           fl_arena_sprintf(&c->a, "SELECT %s%s(%s) AS v FROM %s x", cols,
                                            *cols ? ", " : "", expr, joined),
                           cte);
    for (uint32_t i = 0; i < n; i++) {
        /* an offset input is looked up at other periods than those reported:
         * filters on metric_time choose the reported periods (through the
         * other inputs), so they do not apply to it (as in MetricFlow) */
        sem_filters f = {.n = 0};
        bool offset = ins[i].offset_window || ins[i].offset_to_grain;
        for (uint32_t k = 0; k < inh->n; k++)
            if (!offset || !strstr(inh->items[k], "metric_time"))
                f.items[f.n++] = inh->items[k];
        FL_TRY(sem_push_filter(c, &f, ins[i].filter));
        const sem_metric *im = sem_find_metric(c->m, ins[i].name);
        FL_TRY(sem_compile_metric(c, im, &f, depth + 1, &parts[i].cte));
        parts[i].ref = refs[i];
        parts[i].in = &ins[i];
    }
    const char *why = fl_arena_sprintf(&c->a, "metric '%s'", mt->name);
    FL_TRY(sem_combine(c, why, parts, n, &joined));
    return sem_add_cte(c,
                       fl_arena_sprintf(&c->a, "SELECT %s%s(%s) AS v FROM %s x", cols,
                                        *cols ? ", " : "", expr, joined),
                       cte);
}

fl_status sem_compile_metric(sem_ctx *c, const sem_metric *mt, const sem_filters *inherited,
                             int depth, const char **cte)
{
    if (depth > 64)
        return fl_errorf(c->err, FL_ELIMIT, "metric '%s': metrics nest deeper than 64", mt->name);
    sem_filters f = *inherited;
    FL_TRY(sem_push_filter(c, &f, mt->filter));
    fl_status rc = FL_OK;
    switch (mt->type) {
    case SEM_SIMPLE: rc = sem_compile_simple(c, mt, &mt->measure, &f, cte); break;
    case SEM_CUMULATIVE: rc = sem_compile_cumulative(c, mt, &f, depth, cte); break;
    case SEM_DERIVED:
        rc = compile_inputs(c, mt, mt->inputs, mt->ninputs, mt->expr, &f, depth, cte);
        break;
    case SEM_RATIO: {
        sem_input io[2] = {mt->numerator, mt->denominator};
        io[0].offset_window = io[0].offset_to_grain = NULL;
        io[1].offset_window = io[1].offset_to_grain = NULL;
        rc = compile_inputs(c, mt, io, 2,
                            fl_arena_sprintf(&c->a,
                                             "CAST(__num AS %s) / NULLIF(CAST(__den AS %s), 0)",
                                             sem_double(c), sem_double(c)),
                            &f, depth, cte);
        break;
    }
    case SEM_CONVERSION: rc = sem_compile_conversion(c, mt, &f, cte); break;
    }
    /* an input's error also names the metric asked for (outermost first) */
    char self[160];
    snprintf(self, sizeof self, "metric '%s'", mt->name);
    if (rc != FL_OK && !strstr(c->err->msg, self))
        fl_error_prefix(c->err, "metric '%s' (%s:%u)", mt->name, mt->at.file, mt->at.line);
    return rc;
}
