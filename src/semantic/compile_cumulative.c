/*
 * compile_cumulative.c - a cumulative metric at the query's group-by: the
 * measure's rows left joined to the distinct metric_time periods, counting
 * the rows up to the period's first day (period_agg first, MetricFlow's
 * default) or last day (last), within `window` of it, or since the start of
 * the grain_to_date period. Filters on metric_time choose the periods, not
 * the rows accumulated. Without metric_time in the group-by it is the plain
 * aggregate over all time.
 */
#include <stdio.h>
#include <string.h>

#include "semantic/compile.h"

fl_status sem_compile_cumulative(sem_ctx *c, const sem_metric *mt, const sem_filters *inh,
                                 int depth, const char **cte)
{
    char at[512];
    sem_input in = mt->measure;
    sem_filters f = *inh;
    if (!in.name) {
        const sem_metric *im = sem_find_metric(c->m, mt->input_metric.name);
        if (im->type != SEM_SIMPLE)
            return fl_errorf(c->err, FL_EUNSUPPORTED,
                             "%smetric '%s': a cumulative metric over "
                             "a %s metric is not supported yet (use a simple one)",
                             sem_at(&mt->at, at, sizeof at), mt->name, im->type_name);
        FL_TRY(sem_push_filter(c, &f, mt->input_metric.filter));
        FL_TRY(sem_push_filter(c, &f, im->filter));
        in = im->measure;
    }
    uint32_t nt = 0;
    const sem_gb *t = sem_time_gb(c, &nt);
    if (nt > 1)
        return fl_errorf(c->err, FL_EUNSUPPORTED,
                         "metric '%s': a cumulative metric takes one "
                         "metric_time grain per query",
                         mt->name);
    if (!t) /* over all time: the plain aggregate */
        return sem_compile_simple(c, mt, &in, &f, cte);
    (void)depth;
    const sem_measure *ms = NULL;
    const sem_smodel *sm = sem_find_measure(c->m, in.name, &ms);
    if (ms->nad_name)
        return fl_errorf(c->err, FL_EUNSUPPORTED,
                         "%smetric '%s': cumulative over a semi-additive "
                         "measure is not supported yet",
                         sem_at(&mt->at, at, sizeof at), mt->name);
    FL_TRY(sem_push_filter(c, &f, in.filter));
    const char *why = sem_metric_why(c, mt, ms, sm);
    const char *rows = NULL, *rcte = NULL, *pcte = NULL;
    /* filters on metric_time choose the periods reported (as MetricFlow does),
     * not the rows accumulated: a running total from March on still counts
     * January and February */
    sem_filters untimed = {.n = 0};
    for (uint32_t i = 0; i < f.n; i++)
        if (!strstr(f.items[i], "metric_time"))
            untimed.items[untimed.n++] = f.items[i];
    const char *prows = NULL;
    FL_TRY(sem_measure_rows(c, sm, ms, &untimed, ROWS_CUMULATIVE, NULL, why, &rows));
    FL_TRY(sem_add_cte(c, rows, &rcte));
    prows = rcte;
    if (untimed.n != f.n) {
        const char *timed = NULL;
        FL_TRY(sem_measure_rows(c, sm, ms, &f, ROWS_CUMULATIVE, NULL, why, &timed));
        FL_TRY(sem_add_cte(c, timed, &prows));
    }
    const char *grain = t->grain ? t->grain : "day";
    const char *tn = sem_ident(c, t->name), *others = sem_gb_cols(c, "", true);
    const char *bucket = sem_gb_is_date(t)
                             ? fl_arena_sprintf(&c->a, "CAST(date_trunc('%s', __t) AS date)", grain)
                             : fl_arena_sprintf(&c->a, "date_trunc('%s', __t)", grain);
    FL_TRY(sem_add_cte(c,
                       fl_arena_sprintf(&c->a, "SELECT DISTINCT %s AS %s%s%s FROM %s", bucket, tn,
                                        *others ? ", " : "", others, prows),
                       &pcte));
    /* the value reported for a period is the one as of its first day (period_agg
     * first, MetricFlow's default) or its last day (last): rows before the end */
    const char *own =
        sem_model_dim(sm, ms->agg_time_dimension ? ms->agg_time_dimension : sm->agg_time_dimension)
            ->granularity;
    if (!strcmp(mt->period_agg, "average"))
        return fl_errorf(c->err, FL_EUNSUPPORTED,
                         "%smetric '%s': period_agg average is not supported yet (first, last)",
                         sem_at(&mt->at, at, sizeof at), mt->name);
    const char *end =
        fl_arena_sprintf(&c->a, "p.%s + %s", tn,
                         sem_grain_interval(c, !strcmp(mt->period_agg, "last") ? grain : own));
    const char *on = fl_arena_sprintf(&c->a, "r.__t < %s", end);
    if (mt->window)
        on = fl_arena_sprintf(&c->a, "%s AND r.__t >= %s - %s", on, end,
                              sem_interval_sql(c, mt->window));
    if (mt->grain_to_date)
        on = fl_arena_sprintf(&c->a, "%s AND r.__t >= CAST(date_trunc('%s', p.%s) AS date)", on,
                              mt->grain_to_date, tn);
    for (uint32_t i = 0; i < c->ngbs; i++)
        if (!c->gbs[i].metric_time)
            on = fl_arena_sprintf(
                &c->a, "%s AND %s", on,
                sem_same_key(c, fl_arena_sprintf(&c->a, "r.%s", sem_ident(c, c->gbs[i].name)),
                             fl_arena_sprintf(&c->a, "p.%s", sem_ident(c, c->gbs[i].name))));
    const char *pcols = sem_gb_cols(c, "p.", false);
    return sem_add_cte(c,
                       fl_arena_sprintf(&c->a,
                                        "SELECT %s, %s AS v FROM %s p LEFT JOIN %s r ON %s "
                                        "GROUP BY %s",
                                        pcols, sem_agg_sql(c, ms, "r.v"), pcte, rcte, on, pcols),
                       cte);
}
