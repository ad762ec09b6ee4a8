/*
 * func.h - the function registry: scalar functions and operators, casts,
 * aggregates, window functions.
 *
 * DESIGN
 *   Every callable is found by name (lower case; operators by their
 *   PostgreSQL operator name: "+", "-", "*", "/", "%", "=", "<>", "<", "<=",
 *   ">", ">=", "||", "~~" LIKE, "!~~" NOT LIKE, "~~*" ILIKE, "!~~*", "~"
 *   regex match, unary "-" with one argument) and resolved against the
 *   argument types once, at bind time: fl_func_resolve() picks the overload
 *   and says which argument casts the binder must insert and what the result
 *   type is. Execution calls the kernel directly; there is no per-row
 *   dispatch. Kernels loop over a selection of rows of FLAT/unified vectors.
 *
 * TYPE RULES (PostgreSQL, with Trino's decimal limits)
 *   Numeric promotion: INT32 < INT64 < DECIMAL < FLOAT64 (FLOAT32 -> FLOAT64).
 *   Integer literals are INT32 when they fit, else INT64, else DECIMAL(38,0);
 *   numeric literals with a point are DECIMAL(p,s) (PostgreSQL numeric).
 *   DECIMAL(p1,s1) op DECIMAL(p2,s2): + - => scale max(s1,s2), precision
 *   max(p1-s1,p2-s2)+scale+1; * => s1+s2, p1+p2; / => scale max(6, s1+p2+1)
 *   (capped so precision <= 38); precision capped at 38, overflow is an error.
 *   Integer arithmetic overflow is an error (SQLSTATE 22003), never a wrap.
 *   Division by zero: SQLSTATE 22012. Unknown-typed literals ('1998-09-02'
 *   compared with a DATE) take the other side's type.
 *
 * OWNERSHIP
 *   The registry is static const data (no mutable globals); fl_func pointers
 *   are valid for the life of the program. bind_data is allocated in the
 *   plan arena. Aggregate states are caller-allocated memory of
 *   state_size bytes; states that own heap memory (string_agg, array_agg,
 *   count(DISTINCT), percentiles, HLL) release it in destroy().
 */
#ifndef FLOE_SQL_FUNC_H
#define FLOE_SQL_FUNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"
#include "floe/sql.h" /* fl_sql_type_name, formatters, INTERVAL */
#include "floe/types.h"
#include "floe/vector.h"
#include "sql/expr.h"

typedef enum fl_func_kind {
    FL_FUNC_SCALAR = 1,
    FL_FUNC_AGGREGATE,
    FL_FUNC_WINDOW, /* ranking/offset functions: row_number, rank, dense_rank, percent_rank,
                     * cume_dist, ntile, lag, lead, first_value, last_value, nth_value;
                     * aggregates are usable as window functions too */
} fl_func_kind;

/* One call of a scalar kernel over a batch. */
typedef struct fl_fn_call {
    const fl_expr *expr;    /* the CALL node (type, location, bind_data) */
    const fl_vector *const *args; /* evaluated arguments, in->nrows rows each, any encoding */
    uint32_t nargs;
    const fl_sel *sel;      /* rows to compute; NULL = 0..nrows-1 */
    uint32_t nrows;
    fl_vector *out;         /* initialized with expr->type; kernel reserves nrows rows */
    fl_eval_state *state;   /* per-thread scratch */
    const fl_eval_env *env;
    /* Bytes of string results out may hold: what the statement's
     * memory_limit has left (0 = only the 1 GB cap); strout_init_call. */
    size_t out_budget;
} fl_fn_call;

typedef fl_status (*fl_scalar_kernel)(fl_fn_call *call, fl_error *err);

/* Optional bind step: sees the bound argument expressions (constants can be
 * inspected) and may prepare read-only data in arena a (compiled pattern). */
typedef fl_status (*fl_scalar_bind)(const fl_expr *call, fl_arena *a, void **bind_data,
                                    fl_error *err);

/* Aggregate with fixed-size states. update() scatters: row sel[i] (or i)
 * goes to the state at states[i]; so hash aggregation passes one pointer per
 * row and an ungrouped aggregate passes the same pointer n times. */
typedef struct fl_agg_ops {
    size_t state_size;
    size_t state_align;
    void (*init)(void *state);
    fl_status (*update)(void *const *states, const fl_vector *const *args, uint32_t nargs,
                        const fl_sel *sel, uint32_t nrows, fl_error *err);
    /* Merges src into dst (parallel partial aggregation, spilling). */
    fl_status (*combine)(void *dst, const void *src, fl_error *err);
    /* Appends the final value of each of n states to out (FLAT, result type). */
    fl_status (*finalize)(void *const *states, uint32_t n, const fl_type *result, fl_vector *out,
                          fl_error *err);
    void (*destroy)(void *state); /* NULL when the state owns no memory */
    /* Spilling: states to bytes and back. NULL = not spillable as bytes
     * (then the executor must keep the state in memory). */
    fl_status (*serialize)(const void *state, uint8_t **buf, size_t *len, fl_error *err);
    fl_status (*deserialize)(void *state, const uint8_t *buf, size_t len, fl_error *err);
} fl_agg_ops;

struct fl_func {
    const char *name;
    fl_func_kind kind;
    bool deterministic; /* false for random(), now() is per-statement so true */
    /* Overload resolution: returns true and fills result/arg_types (what each
     * argument must be cast to) if this function accepts the given types. */
    bool (*resolve)(const fl_type *args, uint32_t nargs, fl_type *result, fl_type *arg_types);
    fl_scalar_kernel kernel;   /* SCALAR */
    fl_scalar_bind bind;       /* SCALAR, may be NULL */
    const fl_agg_ops *agg;     /* AGGREGATE: ops for the resolved argument types are chosen
                                * by agg_for(); NULL for WINDOW-only functions */
    const fl_agg_ops *(*agg_for)(const fl_type *args, uint32_t nargs, const fl_type *result);
    /* SCALAR: the kernel sees NULL arguments itself (concat, nullif,
     * greatest...). false (default) = strict: the evaluator makes the
     * result NULL wherever an argument is NULL and never passes such rows
     * to the kernel. (Additive, sqlfunc.) */
    bool handles_nulls;
    /* Reads the statement's environment (time zone, statement time): not
     * folded at plan time (fl_expr_is_constant is false), evaluated once
     * per batch as a constant instead. (Additive, sqlfunc.) */
    bool uses_env;
    /* SCALAR, may be NULL: adjusts call->type from constant arguments after
     * resolution (extract's result is bigint for 'year' but numeric for
     * 'second'). (Additive, sqlfunc.) */
    void (*refine)(fl_expr *call);
};

/* Aggregate argument conventions (sqlfunc):
 *  - the caller casts each argument to binding.arg_types[i] before update();
 *  - ordered-set aggregates percentile_cont/percentile_disc(f) WITHIN GROUP
 *    (ORDER BY x) resolve and update with args (f, x): the WITHIN GROUP
 *    value is appended to the direct arguments; approx_percentile(x, f);
 *  - DISTINCT and ORDER BY inside a call are the executor's (it feeds
 *    distinct / ordered rows); count_distinct(x) is also registered as a
 *    self-contained exact DISTINCT count with a hash-set state;
 *  - string_agg's combine() fails for two non-empty partial states (the
 *    separator between partials is unknown): do not partially aggregate it. */

/* A resolved call: which function, the result type, casts to apply. */
typedef struct fl_func_binding {
    const fl_func *fn;
    fl_type result;
    fl_type arg_types[16]; /* target type of each argument (== given type: no cast) */
    const fl_agg_ops *agg; /* AGGREGATE: ops specialized for the argument types */
} fl_func_binding;

/* Finds name among functions of `kind` for the argument types. NULL-typed
 * (unknown) arguments are given as FL_TYPE_STRING with fixed_len == -1 and
 * adapt. FL_ENOTFOUND "function foo(integer, text) does not exist" (SQLSTATE
 * 42883) or FL_ETYPE. More than 16 arguments: only variadic functions
 * (concat, coalesce-like) accept them, with arg_types of the first 16
 * repeated by the function's rule. */
fl_status fl_func_resolve(const char *name, fl_func_kind kind, const fl_type *args, uint32_t nargs,
                          fl_func_binding *out, fl_error *err);

/* True if a function of that name exists in any kind (for error messages
 * and to tell aggregates from scalars while binding). */
bool fl_func_exists(const char *name, fl_func_kind kind);

/* Casts: whether and how a value of type from converts to type to.
 * implicit = allowed without CAST (numeric widening, unknown literal). */
bool fl_cast_allowed(const fl_type *from, const fl_type *to, bool implicit);

/* Edit distance of two names (Levenshtein, an adjacent swap counts 1),
 * ASCII case-folded, UINT32_MAX past 63 bytes; and the largest distance
 * worth a "did you mean" for a name written as written (edit_distance.c). */
uint32_t fl_sql_edit_distance(const char *a, const char *b);
uint32_t fl_sql_close_enough(const char *written);
/* Vectorized cast of the selected rows of in into out (initialized with
 * type to). lenient: NULL instead of an error for unconvertible values. */
fl_status fl_cast_vector(const fl_vector *in, const fl_sel *sel, uint32_t nrows, const fl_type *to,
                         bool lenient, const fl_eval_env *env, fl_vector *out, fl_error *err);
/* Scalar cast (constant folding, literals, parameters); bytes in a. */
fl_status fl_cast_value(const fl_value *in, const fl_type *to, const fl_eval_env *env, fl_arena *a,
                        fl_value *out, fl_error *err);

/* Common supertype for UNION, CASE branches, COALESCE, IN lists, comparisons.
 * false when there is none. */
bool fl_type_common(const fl_type *a, const fl_type *b, fl_type *out);
/* fl_type_common, and nested types of one shape (struct, list, map) meet child
 * by child, the new children allocated in a. */
bool fl_type_common_in(fl_arena *a, const fl_type *x, const fl_type *y, fl_type *out);

/* fl_sql_type_name: floe/sql.h. */
/* Parses a SQL type name as libpg_query spells it (pg_catalog.int4,
 * varchar, numeric(10,2), timestamptz, "timestamp with time zone", uuid,
 * bytea, date, ...) into t. FL_ENOTFOUND for unknown names. */
fl_status fl_sql_type_parse(const char *name, const int32_t *typmods, uint32_t ntypmods,
                            fl_type *t, fl_error *err);

/* One value (a string, an array's text) holds at most 1 GiB, as a
 * PostgreSQL field; one batch's string results at most as much (54000). */
#define FL_SQL_MAX_VALUE_BYTES ((size_t)1 << 30)

/* INTERVAL (FL_SQL_INTERVAL_MARK, fl_type_is_interval): floe/sql.h. */

/* fl_sql_formatter_*: floe/sql.h. */

/* The i-th registered function (pg catalogs, \df); NULL past the end. */
const fl_func *fl_func_at(uint32_t i);

#endif
