/*
 * compile_conversion.c - a conversion metric as MetricFlow computes it: base
 * events (the group-by columns, the day, the entity) joined to conversion
 * events (entity, day, a row id) of the same entity at most `window` later
 * (the same day included); each conversion event keeps the latest base
 * event's values (first_value ... ORDER BY day DESC, then DISTINCT) and is
 * counted once; conversion_rate divides by the base measure, conversions is
 * the count (0 where nothing converted).
 */
#include <stdio.h>
#include <string.h>

#include "semantic/compile.h"

static fl_status conversion_entity(sem_ctx *c, const sem_metric *mt, const sem_smodel *sm)
{
    char at[512];
    if (!sem_model_entity(sm, mt->conv_entity))
        return fl_errorf(c->err, FL_EINVAL,
                         "%smetric '%s': semantic model '%s' (%s:%u) has no entity '%s'",
                         sem_at(&mt->at, at, sizeof at), mt->name, sm->name, sm->at.file,
                         sm->at.line, mt->conv_entity);
    return FL_OK;
}

/* The conversion events (entity, time at its own grain, value, a row id) of
 * the conversion measure's semantic model. */
static fl_status conversion_events(sem_ctx *c, const sem_metric *mt, const sem_smodel *sm,
                                   const sem_measure *ms, const char **cte)
{
    sem_joins j;
    sem_joins_init(&j, c, sm, fl_arena_sprintf(&c->a, "metric '%s'", mt->name));
    const char *atd = ms->agg_time_dimension ? ms->agg_time_dimension : sm->agg_time_dimension;
    sem_gb t = {.name = "metric_time", .metric_time = true};
    const char *tcol = NULL, *e = NULL, *v = NULL;
    bool is_date = false;
    FL_TRY(sem_member_sql(&j, &t, atd, &tcol, &is_date));
    FL_TRY(sem_node_col(&j, 0, sem_model_entity(sm, mt->conv_entity)->expr, &e));
    FL_TRY(sem_node_col(&j, 0, ms->expr, &v));
    fl_buf b;
    fl_buf_init(&b, 0);
    fl_status rc = fl_buf_appendf(&b, c->err,
                                  "SELECT %s AS __e, %s AS __t, %s AS v, row_number() OVER () AS "
                                  "__uid",
                                  e, tcol, v);
    if (rc == FL_OK)
        rc = sem_joins_from(&j, &b);
    if (rc == FL_OK)
        rc = sem_add_cte(c, fl_arena_strndup(&c->a, b.data, b.len), cte);
    fl_buf_free(&b);
    return rc;
}

/* MetricFlow's conversion: each conversion event is matched to the latest
 * base event of the same entity at most `window` before it (same day
 * included) and counted once, with that base event's group-by values; the
 * rate divides by the base measure. */
fl_status sem_compile_conversion(sem_ctx *c, const sem_metric *mt, const sem_filters *inh,
                                 const char **cte)
{
    const sem_measure *bms = NULL, *cms = NULL;
    const sem_smodel *bsm = sem_find_measure(c->m, mt->numerator.name, &bms);
    const sem_smodel *csm = sem_find_measure(c->m, mt->denominator.name, &cms);
    FL_TRY(conversion_entity(c, mt, bsm));
    FL_TRY(conversion_entity(c, mt, csm));
    sem_filters f = *inh;
    FL_TRY(sem_push_filter(c, &f, mt->numerator.filter));
    const char *rows = NULL, *bcte = NULL, *ccte = NULL, *base = NULL, *convs = NULL;
    FL_TRY(sem_measure_rows(c, bsm, bms, &f, ROWS_CONVERSION, mt->conv_entity,
                            sem_metric_why(c, mt, bms, bsm), &rows));
    FL_TRY(sem_add_cte(c, rows, &bcte));
    FL_TRY(conversion_events(c, mt, csm, cms, &ccte));
    const char *over = "OVER (PARTITION BY x.__e, x.__t, x.__uid ORDER BY b.__t DESC ROWS BETWEEN "
                       "UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)";
    const char *firsts = "";
    for (uint32_t i = 0; i < c->ngbs; i++) {
        const char *g = sem_ident(c, c->gbs[i].name);
        firsts = fl_arena_sprintf(&c->a, "%sfirst_value(b.%s) %s AS %s, ", firsts, g, over, g);
    }
    const char *on = "b.__e = x.__e AND b.__t <= x.__t";
    if (mt->window)
        on = fl_arena_sprintf(&c->a, "%s AND b.__t > x.__t - %s", on,
                              sem_interval_sql(c, mt->window));
    const char *matched = fl_arena_sprintf(&c->a,
                                           "SELECT DISTINCT %sx.__uid, x.v FROM %s b JOIN %s x "
                                           "ON %s",
                                           firsts, bcte, ccte, on);
    const char *cols = sem_gb_cols(c, "", false);
    FL_TRY(sem_add_cte(c,
                       fl_arena_sprintf(&c->a, "SELECT %s%s%s AS v FROM (%s) m%s", cols,
                                        *cols ? ", " : "", sem_agg_sql(c, cms, "v"), matched,
                                        sem_group_by(c, cols)),
                       &convs));
    sem_input base_in = mt->numerator;
    base_in.filter = NULL; /* pushed above */
    FL_TRY(sem_compile_simple(c, mt, &base_in, &f, &base));
    sem_part parts[2] = {{base, "__base", NULL}, {convs, "__conv", NULL}};
    const char *joined = NULL;
    FL_TRY(sem_combine(c, fl_arena_sprintf(&c->a, "metric '%s'", mt->name), parts, 2, &joined));
    const char *expr =
        mt->conv_calc && !strcmp(mt->conv_calc, "conversions")
            ? "coalesce(__conv, 0)"
            : fl_arena_sprintf(&c->a, "CAST(__conv AS %s) / NULLIF(CAST(__base AS %s), 0)",
                               sem_double(c), sem_double(c));
    return sem_add_cte(c,
                       fl_arena_sprintf(&c->a, "SELECT %s%s%s AS v FROM %s x", cols,
                                        *cols ? ", " : "", expr, joined),
                       cte);
}
