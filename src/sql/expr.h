/*
 * expr.h - bound expressions and their vectorized evaluation.
 *
 * DESIGN
 *   The binder turns parse-tree expressions into fl_expr trees whose types
 *   are resolved and whose column references are indexes into the input
 *   batch of the operator that evaluates them (the child's output columns,
 *   in plan.h order; for a join's condition, left columns then right
 *   columns). Implicit casts are explicit FL_EXPR_CAST nodes; every
 *   operator and function call is an FL_EXPR_CALL of a resolved function
 *   (func.h), so evaluation never looks anything up by name.
 *
 *   Evaluation is column-at-a-time: fl_expr_eval() computes one output
 *   vector for a whole batch. A selection (fl_sel) restricts which rows are
 *   computed; rows outside it are left undefined (but safe to read), and
 *   errors (overflow, division by zero, bad cast) are raised only for
 *   selected rows, so CASE WHEN x <> 0 THEN 1 / x END never fails.
 *   AND/OR/CASE/COALESCE evaluate their branches on narrowed selections.
 *
 *   Three-valued logic: BOOLEAN vectors carry NULL as an invalid bit.
 *   fl_expr_select() keeps the rows where the predicate is TRUE (not NULL).
 *
 * OWNERSHIP
 *   Expression trees live in the plan's arena (plan.h) and are immutable
 *   after planning, so several worker threads evaluate the same tree at
 *   once. Per-thread mutable state (scratch vectors, regex match data,
 *   caches) lives in an fl_eval_state that each thread creates for the
 *   tree(s) it evaluates and frees when done.
 */
#ifndef FLOE_SQL_EXPR_H
#define FLOE_SQL_EXPR_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"
#include "floe/types.h"
#include "floe/vector.h"

typedef struct fl_func fl_func;   /* func.h */
typedef struct fl_plan fl_plan;   /* plan.h */

typedef enum fl_expr_kind {
    FL_EXPR_COLUMN = 1, /* input column `column` */
    FL_EXPR_CONST,      /* `value` (its bytes live in the plan arena) */
    FL_EXPR_PARAM,      /* $n: `param` (0-based), value supplied at execution */
    FL_EXPR_CALL,       /* scalar function / operator `fn` over args */
    FL_EXPR_CAST,       /* args[0] converted to `type`; try_cast when `lenient` */
    FL_EXPR_AND,        /* n-ary, three-valued */
    FL_EXPR_OR,         /* n-ary, three-valued */
    FL_EXPR_NOT,
    FL_EXPR_IS_NULL,     /* args[0] IS NULL (never NULL itself) */
    FL_EXPR_IS_NOT_NULL, /* args[0] IS NOT NULL */
    FL_EXPR_IS_DISTINCT, /* args[0] IS DISTINCT FROM args[1]; `negated` = IS NOT DISTINCT */
    FL_EXPR_CASE,        /* args = when1, then1, when2, then2, ..., else (always present;
                          * a NULL constant when the SQL had none). The simple form
                          * CASE x WHEN v ... is bound to searched form x = v. */
    FL_EXPR_COALESCE,    /* first non-null argument, evaluated lazily */
    FL_EXPR_IN_LIST,     /* args[0] IN (args[1..]); `negated` for NOT IN; SQL NULL rules */
    FL_EXPR_SUBQUERY,    /* uncorrelated scalar subquery: `subplan` yields <= 1 row, 1 col;
                          * evaluated once per execution, then a constant. More than one
                          * row is an error (SQLSTATE 21000). */
} fl_expr_kind;

typedef struct fl_expr fl_expr;

struct fl_expr {
    fl_expr_kind kind;
    fl_type type;     /* result type (children unused unless nested) */
    int32_t location; /* byte offset in the statement text, -1 = none; for error messages */
    bool negated;     /* IN_LIST, IS_DISTINCT */
    bool lenient;     /* CAST: try_cast (NULL instead of an error) */
    uint32_t column;  /* COLUMN */
    uint32_t param;   /* PARAM */
    fl_value value;   /* CONST */
    const fl_func *fn; /* CALL */
    void *bind_data;   /* CALL: what fn->bind() prepared (compiled LIKE/regex for
                        * constant patterns, time zone...); read-only afterwards */
    uint32_t nargs;
    fl_expr **args;
    fl_plan *subplan; /* SUBQUERY */
    const char *alias; /* display name ("sum(x)", column name); may be NULL */
};

/* ---- construction helpers (binder, optimizer, tests); all in arena a ---- */
fl_expr *fl_expr_column(fl_arena *a, uint32_t column, const fl_type *t);
fl_expr *fl_expr_const(fl_arena *a, const fl_value *v); /* copies var-len bytes */
fl_expr *fl_expr_new(fl_arena *a, fl_expr_kind kind, const fl_type *t, uint32_t nargs);
/* Resolves fn by name for the argument types (func.h rules), inserting casts;
 * FL_ETYPE naming the function and the types when nothing matches. */
fl_status fl_expr_call(fl_arena *a, const char *fn_name, fl_expr **args, uint32_t nargs,
                       int32_t location, fl_expr **out, fl_error *err);
/* args[0] cast to t (no-op when already t). FL_ETYPE when impossible. */
fl_status fl_expr_cast(fl_arena *a, fl_expr *arg, const fl_type *t, fl_expr **out, fl_error *err);

/* Renders an expression for EXPLAIN ("(l_quantity * 2) > 10"); arena string. */
const char *fl_expr_to_string(const fl_expr *e, fl_arena *a);

/* True when e has no COLUMN/PARAM/SUBQUERY and only deterministic functions,
 * i.e. it can be folded to a constant at plan time. */
bool fl_expr_is_constant(const fl_expr *e);
/* Evaluates a constant expression to a value (bytes copied into a). */
fl_status fl_expr_fold(const fl_expr *e, fl_arena *a, fl_value *out, fl_error *err);

/* ---- evaluation ---- */

/* What evaluation needs from the running statement. Shared, read-only
 * during execution except the atomic flag. */
typedef struct fl_eval_env {
    const fl_value *params; /* $1..$n */
    uint32_t nparams;
    const char *time_zone;     /* session time zone for TIMESTAMPTZ <-> local */
    int64_t statement_time_us; /* current_timestamp, fixed per statement */
    atomic_int *cancel;        /* non-zero: stop with FL_ECANCELED */
    /* Runs an uncorrelated subquery plan to a single value (set by the
     * executor; NULL in contexts without subqueries). */
    fl_status (*run_subquery)(void *exec_ctx, const fl_plan *p, fl_arena *a, fl_value *out,
                              fl_error *err);
    void *exec_ctx;
    /* Charges (bytes > 0) or releases (< 0) evaluation memory against the
     * statement's memory_limit (set by the executor; NULL = not counted):
     * the result vectors an fl_eval_state keeps (limits, issue 14). */
    fl_status (*charge)(void *exec_ctx, int64_t bytes, fl_error *err);
    /* Bytes memory_limit has left (with charge; a snapshot). */
    uint64_t (*available)(void *exec_ctx);
} fl_eval_env;

/* Per-thread evaluation state for one or more expression trees. */
typedef struct fl_eval_state fl_eval_state;

fl_status fl_eval_state_new(const fl_eval_env *env, fl_eval_state **out, fl_error *err);
void fl_eval_state_free(fl_eval_state *st); /* NULL allowed */

/* Computes e over the rows of in selected by sel (NULL = all nrows) into out,
 * which the caller initialized with e->type (fl_vector_init); out gets
 * in->nrows rows (unselected ones undefined). out may come back CONSTANT
 * (constants) or DICT (columns passed through). in->sel is ignored: the
 * caller passes the selection it wants explicitly. Errors name the
 * expression ("integer out of range in (a * b)"). */
fl_status fl_expr_eval(fl_eval_state *st, const fl_expr *e, const fl_batch *in, const fl_sel *sel,
                       fl_vector *out, fl_error *err);

/* Filters: writes into out the rows of sel (NULL = all) where e is TRUE.
 * out->idx must have room for in->nrows entries. */
fl_status fl_expr_select(fl_eval_state *st, const fl_expr *e, const fl_batch *in, const fl_sel *sel,
                         fl_sel *out, fl_error *err);

/* Structural equality of bound expressions; the AND of n >= 1 terms
 * (n = 1: the term itself). Defined in bind/bind_expr.c. */
bool fl_expr_equal(const fl_expr *x, const fl_expr *y);
fl_status fl_front_and(fl_arena *a, fl_expr **terms, uint32_t n, fl_expr **out);

#endif
