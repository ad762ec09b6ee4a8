/*
 * prune_cols.h - plan rewrites run after fl_optimize (planperf):
 *   fl_prune_columns  every operator outputs only the columns an ancestor
 *                     reads (prune_cols.c);
 *   fl_push_semijoins decorrelated aggregates computed only for the keys the
 *                     outer side can have (semijoin_push.c);
 *   fl_reuse_scalar_subqueries  x = (SELECT max(x) FROM same input) over
 *                     one evaluation of the input (subquery_reuse.c).
 * Both keep the root's output columns unchanged and allocate in pc->arena.
 */
#ifndef FLOE_SQL_PRUNE_COLS_H
#define FLOE_SQL_PRUNE_COLS_H

#include "sql/plan.h"
#include "sql/planner.h"

fl_status fl_prune_columns(fl_planner_ctx *pc, fl_plan *root, fl_error *err);
fl_status fl_push_semijoins(fl_planner_ctx *pc, fl_plan *root, fl_error *err);
fl_status fl_reuse_scalar_subqueries(fl_planner_ctx *pc, fl_plan *root, fl_error *err);

/* True when some plan node is reachable twice from root (also through
 * FL_EXPR_SUBQUERY plans): rewrites that reshape nodes per parent skip
 * such plans. */
bool fl_plan_has_shared_nodes(fl_planner_ctx *pc, const fl_plan *root);

#endif
