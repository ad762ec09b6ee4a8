/*
 * plan_rules.h - plan-tree helpers and the optimizer's entry points, shared
 * by plan/, bind/ (which builds plans block by block) and stmt/ (DML
 * RETURNING). Not a contract outside src/sql; planner.h is.
 *
 * DESIGN
 *   Plans are built bottom-up in the planner context's arena; expressions
 *   refer to their input by column index, so moving an expression across a
 *   node remaps it through a column map (fl_front_remap). fl_optimize
 *   rewrites a finished plan in place (rules in optimize.c); apply
 *   parameter slots are numbered from FL_APPLY_SLOT_BASE while binding and
 *   renumbered past the statement's $n afterwards (plan_walk.c).
 */
#ifndef FLOE_SQL_PLAN_PLAN_RULES_H
#define FLOE_SQL_PLAN_PLAN_RULES_H

#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"
#include "sql/expr.h"
#include "sql/plan.h"
#include "sql/planner.h"

/* Parameter slots of apply nodes are numbered from here while binding and
 * renumbered past the statement's $n once it is bound (plan_walk.c). */
#define FL_APPLY_SLOT_BASE 0x01000000u

/* joinorder.c: map[i] is the new column of old column i (-1 = not available) */
fl_status fl_front_remap(fl_arena *a, const fl_expr *e, const int32_t *map, uint32_t nmap,
                         fl_expr **out, fl_error *err);
fl_plan *fl_front_project(fl_arena *a, fl_plan *child, fl_expr **exprs, const char **names,
                          uint32_t n);
/* a scan's pruning terms after its filters changed */
void fl_front_prune_terms(fl_arena *a, fl_plan *scan);

/* null_reject.c: e is NULL or false whenever every column it reads is NULL
 * (a WHERE conjunct that drops the rows an outer join adds) */
bool fl_front_null_rejecting(const fl_expr *e);

/* optimize.c */
fl_status fl_optimize(fl_planner_ctx *pc, fl_plan *p, fl_error *err);
/* OR factoring of a WHERE conjunct e (scope form): conjuncts common to every
 * branch come out as conjuncts of their own (join keys, scan filters), and
 * for each relation that every branch restricts, the OR of those
 * restrictions is added (implied, so it may filter that relation's scan);
 * the remaining OR follows. *out (arena) replaces e; *nout 0 = keep e.
 * mask(ctx, x) gives the relations x uses (bit per relation, 0 = none). */
typedef uint64_t (*fl_front_mask_fn)(const void *ctx, const fl_expr *e);
fl_status fl_front_factor_or(fl_arena *a, fl_expr *e, fl_front_mask_fn mask, const void *ctx,
                             fl_expr ***out, uint32_t *nout, fl_error *err);

/* plan_walk.c */
fl_status fl_front_number_params(fl_planner_ctx *pc, fl_plan *p, fl_error *err);
fl_status fl_front_number_slots(fl_plan *p, uint32_t base, fl_error *err);

/* explain.c helpers */
const char *fl_front_join_name(fl_join_type t);

#endif
