/*
 * members.c - the flat member list of a model (fl_sem_model_member): every
 * metric, every dimension as it is asked for ("entity__dim", the model's
 * primary entity as the prefix, or the bare name when it has none), every
 * entity and measure, each with its description, ai_context, meta, file
 * and line.
 */
#include <stdlib.h>
#include <string.h>

#include "semantic/model.h"

static const char *primary_entity(const sem_smodel *sm)
{
    for (uint32_t i = 0; i < sm->nentities; i++)
        if (!strcmp(sm->entities[i].type, "primary"))
            return sm->entities[i].name;
    return NULL;
}

static fl_sem_member_info info(fl_sem_member_kind kind, const char *name, const char *type,
                               const char *model, const sem_about *a, const sem_where *at)
{
    return (fl_sem_member_info){kind,          name,    type,     model,   a->description,
                                a->ai_context, a->meta, at->file, at->line};
}

fl_status sem_build_members(fl_sem_model *m, fl_error *err)
{
    uint32_t n = m->nmetrics + m->nsaved;
    for (uint32_t i = 0; i < m->nmodels; i++)
        n += m->models[i].ndims + m->models[i].nentities + m->models[i].nmeasures;
    m->members = calloc(n + 1, sizeof *m->members);
    if (!m->members)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t k = 0;
    for (uint32_t i = 0; i < m->nmetrics; i++) {
        const sem_metric *mt = &m->metrics[i];
        m->members[k++] = info(FL_SEM_METRIC, mt->name, mt->type_name, NULL, &mt->about, &mt->at);
    }
    for (uint32_t i = 0; i < m->nmodels; i++) {
        const sem_smodel *sm = &m->models[i];
        const char *pe = primary_entity(sm);
        for (uint32_t j = 0; j < sm->ndims; j++) {
            const sem_dimension *d = &sm->dims[j];
            const char *name = pe ? fl_arena_sprintf(&m->arena, "%s__%s", pe, d->name) : d->name;
            m->members[k++] = info(FL_SEM_DIMENSION, name, d->type, sm->name, &d->about, &d->at);
        }
        for (uint32_t j = 0; j < sm->nentities; j++) {
            const sem_entity *e = &sm->entities[j];
            m->members[k++] = info(FL_SEM_ENTITY, e->name, e->type, sm->name, &e->about, &e->at);
        }
        for (uint32_t j = 0; j < sm->nmeasures; j++) {
            const sem_measure *ms = &sm->measures[j];
            m->members[k++] =
                info(FL_SEM_MEASURE, ms->name, ms->agg, sm->name, &ms->about, &ms->at);
        }
    }
    for (uint32_t i = 0; i < m->nsaved; i++) {
        const sem_saved *sq = &m->saved[i];
        m->members[k++] =
            info(FL_SEM_SAVED_QUERY, sq->name, "saved_query", NULL, &sq->about, &sq->at);
    }
    m->nmembers = k;
    return FL_OK;
}

uint32_t fl_sem_model_nmembers(const fl_sem_model *m)
{
    return m->nmembers;
}

const fl_sem_member_info *fl_sem_model_member(const fl_sem_model *m, uint32_t i)
{
    return i < m->nmembers ? &m->members[i] : NULL;
}
