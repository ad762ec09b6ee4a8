/*
 * compile.h - the compiler's pieces (internal to src/semantic/).
 *
 *   grain.c        time grains and intervals ("1 month", "7 days")
 *   joins.c        the entity graph: join paths from a measure's semantic
 *                  model, the projected FROM clause (sem_joins)
 *   member.c       group-by names and filter references -> column SQL
 *   filter.c       Jinja filters ({{ Dimension('x__y') }}) -> SQL
 *   compile_metric.c  one metric at the query's group-by -> a CTE
 *   compile_cumulative.c, compile_conversion.c  those two metric types
 *   compile.c      the whole query: CTEs, the final join, order, limit
 *
 * Every string lives in the compile arena (sem_ctx.a); the SQL is built in
 * fl_bufs and handed to the caller at the end.
 */
#ifndef FLOE_SEMANTIC_COMPILE_H
#define FLOE_SEMANTIC_COMPILE_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/buf.h"
#include "semantic/model.h"

#define SEM_GRAINS "hour, day, week, month, quarter, year"
/* 1 hour .. 6 year; 0 = not a grain */
int sem_grain_rank(const char *g);
/* "1 month", "7 days", "2 weeks" ... (a count and a unit) */
bool sem_interval_ok(const char *s);
struct sem_ctx;
/* INTERVAL literal of an interval text that passed sem_interval_ok ("1 quarter" -> 3 months),
 * in the query's dialect */
const char *sem_interval_sql(struct sem_ctx *c, const char *s);
/* INTERVAL literal of one grain: month -> INTERVAL '1 month' (Trino: INTERVAL '1' MONTH) */
const char *sem_grain_interval(struct sem_ctx *c, const char *grain);
/* "double precision" (Trino: "double") */
const char *sem_double(struct sem_ctx *c);
/* The name a metric input is known by in a derived expr: alias or name. */
const char *sem_input_ref(const sem_input *in);

/* ---- the query context ---- */
typedef struct sem_gb {
    const char *name; /* as asked: the output column */
    bool metric_time;
    const char *grain; /* time grain asked (NULL = the dimension's own) */
    const char **path; /* entity path */
    uint32_t npath;
    const char *member; /* dimension or entity name (metric_time: NULL) */
    bool entity;        /* Entity('x') in a filter: member is an entity */
} sem_gb;

typedef struct sem_ctx {
    const fl_sem_model *m;
    const fl_sem_query *q;
    const fl_sem_pin *pins; /* fl_sem_compile's, then the query's */
    uint32_t npins;
    const fl_sem_pin *qpins;
    uint32_t nqpins;
    const char *as_of;
    bool trino; /* FL_SEM_DIALECT_TRINO */
    fl_arena a;
    sem_gb *gbs;
    uint32_t ngbs;
    fl_buf ctes; /* "c1 AS (...), c2 AS (...)" */
    uint32_t ncte;
    fl_error *err;
} sem_ctx;

/* Parses one group-by name ("customer__region", "metric_time__month"). */
fl_status sem_parse_gb(sem_ctx *c, const char *text, sem_gb *out);

/* ---- joins from one semantic model ---- */
typedef struct sem_col {
    const char *expr;
} sem_col;

typedef struct sem_node {
    const sem_smodel *sm;
    int parent;         /* -1 for the root */
    const char *entity; /* joined on this entity (NULL for the root) */
    sem_col *cols;
    uint32_t ncols, capcols;
} sem_node;

#define SEM_MAX_JOINS 16
typedef struct sem_joins {
    sem_ctx *c;
    sem_node nodes[SEM_MAX_JOINS];
    uint32_t n;
    const char *why; /* what is being compiled, for messages ("metric 'x'") */
} sem_joins;

void sem_joins_init(sem_joins *j, sem_ctx *c, const sem_smodel *root, const char *why);
/* Exposes expr of node k; returns "sK.cN". */
fl_status sem_node_col(sem_joins *j, uint32_t k, const char *expr, const char **ref);
/* The node holding member (a dimension, or an entity when entity is set)
 * reached along path from the root; joins are added as needed. */
fl_status sem_join_to(sem_joins *j, const char *const *path, uint32_t npath, const char *member,
                      bool entity, const char *asked, uint32_t *node);
/* Appends the FROM clause of every node (projected subqueries, LEFT JOINs). */
fl_status sem_joins_from(sem_joins *j, fl_buf *b);

/* ---- members and filters ---- */
/* The SQL of a group-by or filter member for the measure model at the root
 * of j; time members are truncated to grain (or the dimension's own).
 * *is_date: the value is a date (grains of a day and coarser). */
fl_status sem_member_sql(sem_joins *j, const sem_gb *gb, const char *agg_time_dim, const char **sql,
                         bool *is_date);
/* Filter text with its {{ ... }} references replaced by column SQL. */
fl_status sem_filter_sql(sem_joins *j, const char *filter, const char *agg_time_dim,
                         const char **sql);

/* ---- metrics ---- */
typedef struct sem_filters {
    const char *items[80];
    uint32_t n;
} sem_filters;

/* ---- the metric compiler's shared pieces (compile_metric.c) ---- */
typedef enum rows_mode {
    ROWS_AGG,        /* the group-by columns and v */
    ROWS_CUMULATIVE, /* the non-time group-by columns, __t and v */
    ROWS_CONVERSION, /* the group-by columns, __t, __e (the entity) and v */
} rows_mode;

fl_status sem_measure_rows(sem_ctx *c, const sem_smodel *sm, const sem_measure *ms,
                           const sem_filters *f, rows_mode mode, const char *entity,
                           const char *why, const char **rows);
/* sem_measure_rows for several measures of sm under the same filters: one
 * value column per measure (v, v1, v2, ...) over the same rows. */
fl_status sem_measure_rows_n(sem_ctx *c, const sem_smodel *sm, const sem_measure *const *ms,
                             uint32_t n, const sem_filters *f, rows_mode mode, const char *entity,
                             const char *why, const char **rows);
/* compile_fuse.c: when every input is a simple metric of one semantic model
 * with one time axis and the same filters, one CTE aggregating them all in
 * one pass (the group-by and a column per refs[i]); else *cte = NULL. */
fl_status sem_fuse_inputs(sem_ctx *c, const sem_input *ins, const char *const *refs, uint32_t n,
                          const sem_filters *inh, const char **cte);
/* *yes: inputs a and b (metric names with optional filters) can be fused. */
fl_status sem_fusable(sem_ctx *c, const sem_input *a, const sem_input *b, const sem_filters *inh,
                      bool *yes);
/* "p."a", p."b"" (prefix may be ""), metric_time members skipped when asked */
const char *sem_gb_cols(sem_ctx *c, const char *prefix, bool skip_time);
/* a grain of a day or coarser: the column is a date */
bool sem_gb_is_date(const sem_gb *g);
/* the only metric_time group-by member; *count of them */
const sem_gb *sem_time_gb(sem_ctx *c, uint32_t *count);
fl_status sem_push_filter(sem_ctx *c, sem_filters *f, const char *filter);
/* the measure's aggregation over expression v */
const char *sem_agg_sql(sem_ctx *c, const sem_measure *ms, const char *v);
/* " GROUP BY cols" or "" */
const char *sem_group_by(sem_ctx *c, const char *cols);
/* "metric 'x' (file:line; measure 'm' of semantic model 's', file:line)" */
const char *sem_metric_why(sem_ctx *c, const sem_metric *mt, const sem_measure *ms,
                           const sem_smodel *sm);
/* A simple metric over measure input in (with the filters) as a CTE. */
fl_status sem_compile_simple(sem_ctx *c, const sem_metric *mt, const sem_input *in,
                             const sem_filters *inherited, const char **cte);
/* CTEs with the group-by and v, each known by ref; offset inputs (in) left
 * joined on the shifted metric_time, the others full joined */
typedef struct sem_part {
    const char *cte, *ref;
    const sem_input *in; /* offsets */
} sem_part;

fl_status sem_combine(sem_ctx *c, const char *why, sem_part *parts, uint32_t n, const char **out);
fl_status sem_compile_cumulative(sem_ctx *c, const sem_metric *mt, const sem_filters *inh,
                                 int depth, const char **cte);
fl_status sem_compile_conversion(sem_ctx *c, const sem_metric *mt, const sem_filters *inh,
                                 const char **cte);

/* Compiles metric mt at the query's group-by under filters into a new CTE
 * with the group-by columns and "v"; *cte is its name. */
fl_status sem_compile_metric(sem_ctx *c, const sem_metric *mt, const sem_filters *f, int depth,
                             const char **cte);
/* Appends a CTE; *name gets its name ("cN"). */
fl_status sem_add_cte(sem_ctx *c, const char *sql, const char **name);
/* l = r where NULL equals NULL, as a hash-joinable condition: the text forms
 * are compared (hash key), then IS NOT DISTINCT FROM (exact) */
const char *sem_same_key(sem_ctx *c, const char *l, const char *r);
/* base b (group-by columns and names[]) full joined with cte r on the
 * group-by, NULL keys matching: the group-by, b's names, then rvals (r's
 * value columns as SQL: "r.v AS \"ref\"", or "r.\"a\", r.\"b\"") */
const char *sem_full_join(sem_ctx *c, const char *base, const char *const *names, uint32_t n,
                          const char *cte, const char *rvals);
/* "\"name\"" in the arena */
const char *sem_ident(sem_ctx *c, const char *name);

#endif
