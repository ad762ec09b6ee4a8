/*
 * metric_measures.c - the measures a metric aggregates (fl_sem_metric_measures):
 * a simple or cumulative metric's measure, and through ratio, derived,
 * cumulative-over-a-metric and conversion inputs the measures of the
 * metrics they name. An input name is a metric when the model has one by
 * that name, else a measure. Depth is bounded (validation already refuses
 * cycles; the bound keeps this safe on its own).
 */
#include <string.h>

#include "semantic/model.h"

typedef struct acc {
    const char **names;
    uint32_t cap, n;
} acc;

static void add_measure(acc *a, const char *name)
{
    for (uint32_t i = 0; i < a->n; i++)
        if (!strcmp(a->names[i], name))
            return;
    if (a->n < a->cap)
        a->names[a->n++] = name;
}

static void walk_metric(const fl_sem_model *m, const sem_metric *mt, acc *a, int depth);

static void walk_input(const fl_sem_model *m, const char *name, acc *a, int depth)
{
    if (!name || depth > 16)
        return;
    const sem_metric *mt = sem_find_metric(m, name);
    const sem_measure *ms = NULL;
    if (mt)
        walk_metric(m, mt, a, depth + 1);
    else if (sem_find_measure(m, name, &ms) && ms)
        add_measure(a, ms->name);
}

static void walk_metric(const fl_sem_model *m, const sem_metric *mt, acc *a, int depth)
{
    if (mt->measure.name) {
        const sem_measure *ms = NULL;
        if (sem_find_measure(m, mt->measure.name, &ms) && ms)
            add_measure(a, ms->name);
    }
    walk_input(m, mt->input_metric.name, a, depth);
    walk_input(m, mt->numerator.name, a, depth);
    walk_input(m, mt->denominator.name, a, depth);
    for (uint32_t i = 0; i < mt->ninputs; i++)
        walk_input(m, mt->inputs[i].name, a, depth);
}

fl_status fl_sem_metric_measures(const fl_sem_model *m, const char *metric, const char **names,
                                 uint32_t cap, uint32_t *n, fl_error *err)
{
    *n = 0;
    const sem_metric *mt = sem_find_metric(m, metric);
    if (!mt)
        return fl_errorf(err, FL_ENOTFOUND, "unknown metric '%s'", metric);
    acc a = {names, cap, 0};
    walk_metric(m, mt, &a, 0);
    *n = a.n;
    return FL_OK;
}
