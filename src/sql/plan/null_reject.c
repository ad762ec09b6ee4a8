/*
 * null_reject.c - whether a WHERE conjunct rejects the rows an outer join
 * adds: evaluated with every column it reads NULL, it is NULL or false, so
 * a null-extended row can never pass it. Then LEFT JOIN ... WHERE
 * <such a conjunct on the nullable side> is an inner join, the conjunct
 * filters the nullable side before the join (its build side shrinks), as
 * PostgreSQL's reduce_outer_joins does (joinorder.c calls it).
 *
 * Conservative: NULL in -> NULL out holds for columns, casts, IN lists and
 * strict scalar functions and operators (handles_nulls false, func.h);
 * IS NOT NULL of such a value is false; AND rejects when one term does,
 * OR when every term does. Anything else (IS NULL, COALESCE, CASE, NOT,
 * IS DISTINCT, subqueries, parameters, non-strict functions) is assumed
 * to let the row through.
 */
#include "sql/func.h"
#include "sql/plan/plan_rules.h"

/* e is NULL when every column it reads is NULL */
static bool yields_null(const fl_expr *e)
{
    switch (e->kind) {
    case FL_EXPR_COLUMN: return true;
    case FL_EXPR_CAST:
    case FL_EXPR_IN_LIST: return e->nargs >= 1 && yields_null(e->args[0]);
    case FL_EXPR_CALL:
        if (!e->fn || e->fn->kind != FL_FUNC_SCALAR || e->fn->handles_nulls)
            return false;
        for (uint32_t i = 0; i < e->nargs; i++)
            if (yields_null(e->args[i]))
                return true;
        return false;
    default: return false;
    }
}

bool fl_front_null_rejecting(const fl_expr *e)
{
    switch (e->kind) {
    case FL_EXPR_IS_NOT_NULL: return e->nargs == 1 && yields_null(e->args[0]);
    case FL_EXPR_AND:
        for (uint32_t i = 0; i < e->nargs; i++)
            if (fl_front_null_rejecting(e->args[i]))
                return true;
        return false;
    case FL_EXPR_OR:
        for (uint32_t i = 0; i < e->nargs; i++)
            if (!fl_front_null_rejecting(e->args[i]))
                return false;
        return e->nargs > 0;
    default: return yields_null(e);
    }
}
