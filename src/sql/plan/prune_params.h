/*
 * prune_params.h - a scan's prune predicate completed with comparisons of
 * columns with statement parameters, at execution (prune_params.c).
 */
#ifndef FLOE_SQL_PRUNE_PARAMS_H
#define FLOE_SQL_PRUNE_PARAMS_H

#include "sql/expr.h"
#include "sql/plan.h"

/* scan->u.scan.prune plus a term per `column op $n` conjunct of its filter
 * whose value env gives (exact conversions only); terms in a. */
fl_predicate fl_prune_with_params(fl_arena *a, const fl_plan *scan, const fl_eval_env *env);

#endif
