/*
 * model.h - the loaded semantic model (internal to src/semantic/).
 *
 * Everything lives in the model's arena: one fl_sem_model owns the semantic
 * models, their entities, dimensions and measures, the metrics, and every
 * string. Each member records the file and line it came from, so that both
 * validation and the compiler can name where a member is defined.
 */
#ifndef FLOE_SEMANTIC_MODEL_H
#define FLOE_SEMANTIC_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/semantic.h"

typedef struct sem_where {
    const char *file; /* NULL for fields without a position */
    uint32_t line;
} sem_where;

/* description, ai_context (from ai_context:, meta.ai_context or
 * config.meta.ai_context) and meta (as JSON text), "" when absent */
typedef struct sem_about {
    const char *description, *ai_context, *meta;
} sem_about;

typedef struct sem_entity {
    const char *name, *type, *expr;
    sem_about about;
    sem_where at;
} sem_entity;

typedef struct sem_dimension {
    const char *name, *type, *expr, *granularity; /* granularity: time only */
    sem_about about;
    sem_where at;
} sem_dimension;

typedef struct sem_measure {
    const char *name, *agg, *expr, *agg_time_dimension;
    sem_about about;
    double percentile; /* agg percentile */
    bool discrete;     /* percentile_type discrete */
    /* non_additive_dimension (semi-additive); nad_name NULL = additive */
    const char *nad_name, *nad_window_choice;
    const char **nad_groupings;
    uint32_t nnad_groupings;
    sem_where at;
} sem_measure;

typedef struct sem_smodel {
    const char *name;
    sem_about about;
    const char *table; /* a floe table name, or NULL when sql is set */
    const char *sql;
    const char *agg_time_dimension;
    sem_entity *entities;
    uint32_t nentities;
    sem_dimension *dims;
    uint32_t ndims;
    sem_measure *measures;
    uint32_t nmeasures;
    sem_where at;
} sem_smodel;

/* A metric's input: a measure (simple, cumulative), a metric (ratio, derived). */
typedef struct sem_input {
    const char *name, *alias, *filter;
    const char *offset_window, *offset_to_grain; /* derived inputs */
    sem_where at;
} sem_input;

typedef enum sem_metric_type {
    SEM_SIMPLE = 1,
    SEM_RATIO,
    SEM_DERIVED,
    SEM_CUMULATIVE,
    SEM_CONVERSION,
} sem_metric_type;

typedef struct sem_metric {
    const char *name, *type_name, *filter;
    sem_about about;
    sem_metric_type type;
    sem_input measure;      /* simple/cumulative: the measure (name NULL = input_metric) */
    sem_input input_metric; /* cumulative over a metric (newer spec) */
    sem_input numerator, denominator; /* ratio */
    const char *expr;                 /* derived */
    sem_input *inputs;                /* derived */
    uint32_t ninputs;
    const char *window, *grain_to_date;  /* cumulative */
    const char *period_agg;              /* cumulative: first (default), last, average */
    const char *conv_entity, *conv_calc; /* conversion (loaded, not compiled) */
    sem_where at;
} sem_metric;

/* saved_queries: a named query (group-by members already in floe's
 * spelling: TimeDimension('metric_time', 'month') -> metric_time__month) */
typedef struct sem_saved {
    const char *name;
    sem_about about;
    const char **metrics, **group_by, **where, **order_by;
    uint32_t nmetrics, ngroup_by, nwhere, norder_by;
    int64_t limit;
    sem_where at;
} sem_saved;

struct fl_sem_model {
    fl_arena arena;
    sem_smodel *models;
    uint32_t nmodels;
    sem_metric *metrics;
    uint32_t nmetrics;
    sem_saved *saved;
    uint32_t nsaved;
    fl_sem_member_info *members;
    uint32_t nmembers;
    char version[72];
};

const sem_smodel *sem_find_model(const fl_sem_model *m, const char *name);
const sem_metric *sem_find_metric(const fl_sem_model *m, const char *name);
/* The semantic model defining measure name (NULL = none); *measure set. */
const sem_smodel *sem_find_measure(const fl_sem_model *m, const char *name,
                                   const sem_measure **measure);
const sem_entity *sem_model_entity(const sem_smodel *sm, const char *name);
const sem_dimension *sem_model_dim(const sem_smodel *sm, const char *name);
/* primary, unique and natural entities identify one row of their model */
bool sem_entity_identifies(const sem_entity *e);
/* "file:line: " or "" (static buffer of the caller) */
const char *sem_at(const sem_where *w, char *buf, size_t cap);

/* Builds m->members from the loaded models and metrics (load.c). */
fl_status sem_build_members(fl_sem_model *m, fl_error *err);
/* Cross-reference checks after all files are read (validate.c). */
fl_status sem_validate(const fl_sem_model *m, fl_error *err);

#endif
