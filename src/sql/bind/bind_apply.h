/*
 * bind_apply.h - param-mode binding and APPLY construction (bind_apply.c,
 * lateral); shared by bind_select.c, bind_subquery.c and bind_srf.c.
 */
#ifndef FLOE_SQL_BIND_APPLY_H
#define FLOE_SQL_BIND_APPLY_H

#include "sql/bind/bind.h"

/* State saved around binding a param-mode child of b. */
typedef struct fl_apply_mark {
    uint32_t slots_from, nslots;
    bool param_children;
} fl_apply_mark;

/* Children bound between begin and end are in param mode; their outer
 * references register slots on b (or further out). */
fl_status fl_apply_begin(fl_bctx *b, fl_apply_mark *m);
void fl_apply_end(fl_bctx *b, const fl_apply_mark *m);
/* slots were registered on b since m: the child is correlated with b */
bool fl_apply_used(const fl_bctx *b, const fl_apply_mark *m);
fl_status fl_apply_params(fl_bctx *b, const fl_apply_mark *m, fl_apply *ap, fl_error *err);
fl_status fl_apply_add(fl_bctx *b, const fl_apply *ap, fl_error *err);

/* A subquery expression as an APPLY (any form; see bind_apply.c). */
fl_status fl_bind_sublink_apply(fl_bctx *b, const PgQuery__SubLink *sl, bool top, bool negated,
                                fl_expr **out, fl_error *err);
/* A correlated FROM item (sub planned between begin and end, cols its
 * scope columns) joined by an INNER or LEFT apply. */
fl_status fl_front_lateral(fl_bctx *b, fl_plan *sub, const fl_apply_mark *m, const char *alias,
                           const fl_schema *cols, bool left, fl_error *err);

/* FROM items (bind_select.c) and joins (bind_join.c), bound in a join
 * context: only inner joins above (TOP), on the preserved side of an outer
 * join, or on its nullable side */
#define FL_JCTX_TOP 0
#define FL_JCTX_PRESERVED 1
#define FL_JCTX_NULLABLE 2
fl_status fl_bind_from_item(fl_bctx *b, const PgQuery__Node *n, int ctx, fl_jtree **out,
                            fl_error *err);
fl_status fl_bind_join(fl_bctx *b, const PgQuery__JoinExpr *j, int ctx, fl_jtree **out,
                       fl_error *err);
/* n holds a subquery (a SubLink anywhere in it) */
bool fl_front_has_sublink(const PgQuery__Node *n);
fl_status fl_bind_leaf(fl_bctx *b, uint32_t ri, fl_jtree **out, fl_error *err);
/* conjuncts of n bound into *out; subqueries allowed (WHERE) or not (ON) */
fl_status fl_bind_conjuncts(fl_bctx *b, const PgQuery__Node *n, fl_expr ***out, uint32_t *nout,
                            uint32_t *cap, bool allow_sublink, fl_error *err);

/* bind_srf.c: unnest(...) / generate_series(...) in FROM. *handled false:
 * not one of these (the caller tries fl_bind_table_function). *lateral
 * true: added as an apply (no jtree leaf), else *rel is a relation. */
fl_status fl_bind_srf(fl_bctx *b, const PgQuery__RangeFunction *rf, bool *handled, bool *lateral,
                      uint32_t *rel, fl_error *err);

/* Set-returning calls in s's select list (unnest, generate_series,
 * generate_subscripts, (information_schema._pg_expandarray(a)).x / .n)
 * become one lockstep SRF applied over the block; fl_bind_expr then binds
 * those nodes to its columns (b->srfs). */
fl_status fl_bind_select_srfs(fl_bctx *b, const PgQuery__SelectStmt *s, fl_error *err);

#endif
