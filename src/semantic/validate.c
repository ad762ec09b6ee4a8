/*
 * validate.c - the cross-reference checks of a loaded model: unique names,
 * agg_time_dimension and non_additive_dimension naming time dimensions,
 * metric inputs naming measures or metrics that exist, offsets and grains
 * that parse, and no metric depending on itself. Every error names the
 * file and line of the member at fault.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "semantic/compile.h"
#include "semantic/model.h"

#define AT(w) sem_at((w), at, sizeof at)

static fl_status check_model_names(const sem_smodel *sm, fl_error *err)
{
    char at[512];
    for (uint32_t i = 0; i < sm->nentities; i++)
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(sm->entities[i].name, sm->entities[j].name))
                return fl_errorf(err, FL_EINVAL,
                                 "%ssemantic model '%s': entity '%s' is defined "
                                 "twice",
                                 AT(&sm->entities[i].at), sm->name, sm->entities[i].name);
    for (uint32_t i = 0; i < sm->ndims; i++) {
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(sm->dims[i].name, sm->dims[j].name))
                return fl_errorf(err, FL_EINVAL,
                                 "%ssemantic model '%s': dimension '%s' is "
                                 "defined twice",
                                 AT(&sm->dims[i].at), sm->name, sm->dims[i].name);
        if (!strcmp(sm->dims[i].name, "metric_time"))
            return fl_errorf(err, FL_EINVAL, "%ssemantic model '%s': 'metric_time' is reserved",
                             AT(&sm->dims[i].at), sm->name);
    }
    return FL_OK;
}

static fl_status check_time_dim(const sem_smodel *sm, const char *name, const sem_where *w,
                                const char *what, fl_error *err)
{
    char at[512];
    const sem_dimension *d = sem_model_dim(sm, name);
    if (!d)
        return fl_errorf(err, FL_EINVAL, "%s%s: unknown dimension '%s' in semantic model '%s'",
                         AT(w), what, name, sm->name);
    if (strcmp(d->type, "time"))
        return fl_errorf(err, FL_EINVAL, "%s%s: '%s' is a categorical dimension, not a time one",
                         AT(w), what, name);
    return FL_OK;
}

static fl_status check_measure(const sem_smodel *sm, const sem_measure *ms, fl_error *err)
{
    char what[256], at[512];
    snprintf(what, sizeof what, "measure '%s'", ms->name);
    const char *t = ms->agg_time_dimension ? ms->agg_time_dimension : sm->agg_time_dimension;
    if (!t)
        return fl_errorf(err, FL_EINVAL,
                         "%s%s: no agg_time_dimension (set it on the measure or "
                         "defaults.agg_time_dimension on semantic model '%s')",
                         AT(&ms->at), what, sm->name);
    FL_TRY(check_time_dim(sm, t, &ms->at, what, err));
    if (ms->nad_name) {
        FL_TRY(check_time_dim(sm, ms->nad_name, &ms->at, what, err));
        for (uint32_t i = 0; i < ms->nnad_groupings; i++)
            if (!sem_model_entity(sm, ms->nad_groupings[i]))
                return fl_errorf(err, FL_EINVAL,
                                 "%s%s: window_groupings: unknown entity '%s' in "
                                 "semantic model '%s'",
                                 AT(&ms->at), what, ms->nad_groupings[i], sm->name);
    }
    return FL_OK;
}

static fl_status check_models(const fl_sem_model *m, fl_error *err)
{
    char at[512];
    for (uint32_t i = 0; i < m->nmodels; i++) {
        const sem_smodel *sm = &m->models[i];
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(sm->name, m->models[j].name))
                return fl_errorf(err, FL_EINVAL,
                                 "%ssemantic model '%s' is defined twice (first "
                                 "at %s:%u)",
                                 AT(&sm->at), sm->name, m->models[j].at.file, m->models[j].at.line);
        FL_TRY(check_model_names(sm, err));
        if (sm->agg_time_dimension)
            FL_TRY(check_time_dim(sm, sm->agg_time_dimension, &sm->at, "agg_time_dimension", err));
        for (uint32_t k = 0; k < sm->nmeasures; k++) {
            const sem_measure *ms = &sm->measures[k], *other = NULL;
            const sem_smodel *first = sem_find_measure(m, ms->name, &other);
            if (other != ms)
                return fl_errorf(err, FL_EINVAL,
                                 "%smeasure '%s' is defined twice (first in "
                                 "semantic model '%s')",
                                 AT(&ms->at), ms->name, first->name);
            FL_TRY(check_measure(sm, ms, err));
        }
    }
    return FL_OK;
}

static fl_status check_input(const fl_sem_model *m, const sem_metric *mt, const sem_input *in,
                             bool measure, fl_error *err)
{
    char at[512];
    if (measure) {
        const sem_measure *ms = NULL;
        if (!sem_find_measure(m, in->name, &ms))
            return fl_errorf(err, FL_EINVAL, "%smetric '%s': unknown measure '%s'", AT(&in->at),
                             mt->name, in->name);
    } else if (!sem_find_metric(m, in->name)) {
        return fl_errorf(err, FL_EINVAL, "%smetric '%s': unknown metric '%s'", AT(&in->at),
                         mt->name, in->name);
    }
    if (in->offset_window && !sem_interval_ok(in->offset_window))
        return fl_errorf(err, FL_EINVAL,
                         "%smetric '%s': bad offset_window '%s' (like '1 month', "
                         "'7 days')",
                         AT(&in->at), mt->name, in->offset_window);
    if (in->offset_to_grain && !sem_grain_rank(in->offset_to_grain))
        return fl_errorf(err, FL_EINVAL, "%smetric '%s': bad offset_to_grain '%s' (%s)",
                         AT(&in->at), mt->name, in->offset_to_grain, SEM_GRAINS);
    return FL_OK;
}

static fl_status check_derived(const fl_sem_model *m, const sem_metric *mt, fl_error *err)
{
    char at[512];
    for (uint32_t i = 0; i < mt->ninputs; i++) {
        FL_TRY(check_input(m, mt, &mt->inputs[i], false, err));
        const char *ni = sem_input_ref(&mt->inputs[i]);
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(ni, sem_input_ref(&mt->inputs[j])))
                return fl_errorf(err, FL_EINVAL,
                                 "%smetric '%s': two inputs are called '%s' "
                                 "(give one an alias)",
                                 AT(&mt->inputs[i].at), mt->name, ni);
    }
    return FL_OK;
}

static fl_status check_metric(const fl_sem_model *m, const sem_metric *mt, fl_error *err)
{
    char at[512];
    switch (mt->type) {
    case SEM_SIMPLE: return check_input(m, mt, &mt->measure, true, err);
    case SEM_RATIO:
        FL_TRY(check_input(m, mt, &mt->numerator, false, err));
        return check_input(m, mt, &mt->denominator, false, err);
    case SEM_DERIVED: return check_derived(m, mt, err);
    case SEM_CUMULATIVE:
        if (mt->measure.name)
            FL_TRY(check_input(m, mt, &mt->measure, true, err));
        else
            FL_TRY(check_input(m, mt, &mt->input_metric, false, err));
        if (mt->window && !sem_interval_ok(mt->window))
            return fl_errorf(err, FL_EINVAL, "%smetric '%s': bad window '%s' (like '7 days')",
                             AT(&mt->at), mt->name, mt->window);
        if (mt->grain_to_date && !sem_grain_rank(mt->grain_to_date))
            return fl_errorf(err, FL_EINVAL, "%smetric '%s': bad grain_to_date '%s' (%s)",
                             AT(&mt->at), mt->name, mt->grain_to_date, SEM_GRAINS);
        return FL_OK;
    case SEM_CONVERSION:
        FL_TRY(check_input(m, mt, &mt->numerator, true, err));
        return check_input(m, mt, &mt->denominator, true, err);
    }
    return FL_OK;
}

/* Depth-first over metric inputs; state 1 = on the path, 2 = done. */
static fl_status check_cycle(const fl_sem_model *m, uint32_t i, uint8_t *state, int depth,
                             fl_error *err)
{
    char at[512];
    const sem_metric *mt = &m->metrics[i];
    if (state[i] == 2)
        return FL_OK;
    if (state[i] == 1 || depth > 64)
        return fl_errorf(err, FL_EINVAL, "%smetric '%s' depends on itself", AT(&mt->at), mt->name);
    state[i] = 1;
    const sem_input *ins[3] = {0};
    uint32_t n = 0;
    if (mt->type == SEM_RATIO) {
        ins[n++] = &mt->numerator;
        ins[n++] = &mt->denominator;
    } else if (mt->type == SEM_CUMULATIVE && mt->input_metric.name) {
        ins[n++] = &mt->input_metric;
    }
    for (uint32_t k = 0; k < n + (mt->type == SEM_DERIVED ? mt->ninputs : 0); k++) {
        const sem_input *in = k < n ? ins[k] : &mt->inputs[k - n];
        const sem_metric *dep = sem_find_metric(m, in->name);
        FL_TRY(check_cycle(m, (uint32_t)(dep - m->metrics), state, depth + 1, err));
    }
    state[i] = 2;
    return FL_OK;
}

static fl_status check_saved(const fl_sem_model *m, fl_error *err)
{
    char at[512];
    for (uint32_t i = 0; i < m->nsaved; i++) {
        const sem_saved *sq = &m->saved[i];
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(sq->name, m->saved[j].name))
                return fl_errorf(err, FL_EINVAL, "%ssaved query '%s' is defined twice", AT(&sq->at),
                                 sq->name);
        for (uint32_t k = 0; k < sq->nmetrics; k++)
            if (!sem_find_metric(m, sq->metrics[k]))
                return fl_errorf(err, FL_EINVAL, "%ssaved query '%s': unknown metric '%s'",
                                 AT(&sq->at), sq->name, sq->metrics[k]);
    }
    return FL_OK;
}

fl_status sem_validate(const fl_sem_model *m, fl_error *err)
{
    FL_TRY(check_saved(m, err));
    char at[512];
    FL_TRY(check_models(m, err));
    for (uint32_t i = 0; i < m->nmetrics; i++) {
        const sem_metric *mt = &m->metrics[i];
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(mt->name, m->metrics[j].name))
                return fl_errorf(err, FL_EINVAL, "%smetric '%s' is defined twice (first at %s:%u)",
                                 AT(&mt->at), mt->name, m->metrics[j].at.file,
                                 m->metrics[j].at.line);
        FL_TRY(check_metric(m, mt, err));
    }
    uint8_t *state = calloc(m->nmetrics + 1, 1);
    if (!state)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = FL_OK;
    for (uint32_t i = 0; rc == FL_OK && i < m->nmetrics; i++)
        rc = check_cycle(m, i, state, 0, err);
    free(state);
    return rc;
}
