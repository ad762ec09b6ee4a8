/*
 * compile_fuse.c - one pass instead of one per input: a ratio or derived
 * metric whose inputs are all simple metrics of one semantic model, with the
 * same time axis and the same filters, is aggregated in one CTE
 *
 *   SELECT <group-by>, sum(v) AS "gross_revenue", sum(v1) AS "discounts", ...
 *   FROM (<the model's rows, with v, v1, ... one per measure>) r GROUP BY ...
 *
 * rather than each input in its own CTE and the CTEs full joined on the
 * group-by. The answer is the same: every input aggregates the same
 * filtered rows of the same joins, so the groups are the same and each
 * value is its own aggregate; only the scans and the joins go away
 * (net_revenue = gross - discounts - returns reads orders once, not
 * three times). Inputs with offsets, semi-additive measures, other
 * metric types or differing filters keep the general path (sem_combine).
 * The query's own simple metrics are fused the same way (compile.c).
 */
#include <string.h>

#include "semantic/compile.h"

static bool same_filters(const sem_filters *a, const sem_filters *b)
{
    if (a->n != b->n)
        return false;
    for (uint32_t i = 0; i < a->n; i++)
        if (strcmp(a->items[i], b->items[i]))
            return false;
    return true;
}

/* The measure of simple input in, its model and its filters; false when the
 * input cannot be fused. */
static fl_status input_of(sem_ctx *c, const sem_input *in, const sem_filters *inh,
                          const sem_measure **ms, const sem_smodel **sm, const char **atd,
                          sem_filters *f, bool *ok)
{
    const sem_metric *im = sem_find_metric(c->m, in->name);
    *ok = false;
    if (in->offset_window || in->offset_to_grain || !im || im->type != SEM_SIMPLE ||
        !im->measure.name)
        return FL_OK;
    *sm = sem_find_measure(c->m, im->measure.name, ms);
    if (!*sm || (*ms)->nad_name)
        return FL_OK;
    *atd = (*ms)->agg_time_dimension ? (*ms)->agg_time_dimension : (*sm)->agg_time_dimension;
    *f = *inh;
    FL_TRY(sem_push_filter(c, f, in->filter));
    FL_TRY(sem_push_filter(c, f, im->filter));
    FL_TRY(sem_push_filter(c, f, im->measure.filter));
    *ok = true;
    return FL_OK;
}

fl_status sem_fusable(sem_ctx *c, const sem_input *a, const sem_input *b, const sem_filters *inh,
                      bool *yes)
{
    const sem_measure *ma = NULL, *mb = NULL;
    const sem_smodel *sa = NULL, *sb = NULL;
    const char *ta = NULL, *tb = NULL;
    sem_filters fa, fb;
    bool oka = false, okb = false;
    *yes = false;
    FL_TRY(input_of(c, a, inh, &ma, &sa, &ta, &fa, &oka));
    if (oka)
        FL_TRY(input_of(c, b, inh, &mb, &sb, &tb, &fb, &okb));
    *yes = oka && okb && sa == sb && !strcmp(ta ? ta : "", tb ? tb : "") && same_filters(&fa, &fb);
    return FL_OK;
}

fl_status sem_fuse_inputs(sem_ctx *c, const sem_input *ins, const char *const *refs, uint32_t n,
                          const sem_filters *inh, const char **cte)
{
    *cte = NULL;
    if (n < 2 || n > 64)
        return FL_OK;
    const sem_measure *ms[64];
    const sem_smodel *sm0 = NULL;
    const char *atd0 = NULL;
    sem_filters f0, f;
    for (uint32_t i = 0; i < n; i++) {
        const sem_smodel *sm = NULL;
        const char *atd = NULL;
        bool ok = false;
        FL_TRY(input_of(c, &ins[i], inh, &ms[i], &sm, &atd, i ? &f : &f0, &ok));
        if (!ok)
            return FL_OK;
        if (i == 0) {
            sm0 = sm;
            atd0 = atd;
        } else if (sm != sm0 || strcmp(atd ? atd : "", atd0 ? atd0 : "") ||
                   !same_filters(&f, &f0)) {
            return FL_OK;
        }
    }
    const char *why = sem_metric_why(c, sem_find_metric(c->m, ins[0].name), ms[0], sm0);
    const char *rows = NULL;
    FL_TRY(sem_measure_rows_n(c, sm0, ms, n, &f0, ROWS_AGG, NULL, why, &rows));
    const char *cols = sem_gb_cols(c, "", false), *aggs = "";
    for (uint32_t i = 0; i < n; i++) {
        const char *v = i ? fl_arena_sprintf(&c->a, "v%u", i) : "v";
        aggs = fl_arena_sprintf(&c->a, "%s%s%s AS %s", aggs, i ? ", " : "",
                                sem_agg_sql(c, ms[i], v), sem_ident(c, refs[i]));
    }
    return sem_add_cte(c,
                       fl_arena_sprintf(&c->a, "SELECT %s%s%s FROM (%s) r%s", cols,
                                        *cols ? ", " : "", aggs, rows, sem_group_by(c, cols)),
                       cte);
}
