/*
 * prune_params.c - pruning terms from comparisons with statement parameters.
 *
 * The planner turns `column op constant` conjuncts of a scan's filter into
 * the scan's prune predicate (joinorder.c fl_front_prune_terms), which
 * drives manifest, file, row-group and page pruning. A prepared statement's
 * `WHERE id = $1` (pgbench -M prepared, JDBC, psycopg server-side
 * statements) has no constant, so its scans pruned nothing and every
 * execution read the whole table. At execution the parameter values are
 * known (fl_eval_env.params): fl_prune_with_params() returns the scan's
 * prune predicate plus one term per `column op $n` conjunct (either operand
 * order; =, <>, <, <=, >, >=), the value converted to the column's type only
 * when that is exact (cast there and back gives the same value), so pruning
 * never drops a row the filter would keep. NULL parameters add nothing (the
 * filter itself then matches no row).
 */
#include <string.h>

#include "floe/predicate.h"
#include "sql/func.h"
#include "sql/plan.h"
#include "sql/plan/prune_params.h"

typedef struct cmp_map {
    const char *op;
    fl_cmp_op cmp, flipped;
} cmp_map;

static const cmp_map OPS[] = {{"=", FL_CMP_EQ, FL_CMP_EQ},  {"<>", FL_CMP_NE, FL_CMP_NE},
                              {"<", FL_CMP_LT, FL_CMP_GT},  {"<=", FL_CMP_LE, FL_CMP_GE},
                              {">", FL_CMP_GT, FL_CMP_LT},  {">=", FL_CMP_GE, FL_CMP_LE}};

/* v converted exactly to t (into *out), else false. */
static bool exact_value(fl_arena *a, const fl_value *v, const fl_type *t, fl_value *out)
{
    if (fl_type_equal(&v->type, t)) {
        *out = *v;
        return true;
    }
    if (fl_type_is_varlen(t) != fl_type_is_varlen(&v->type) || fl_type_is_nested(t) ||
        fl_type_is_nested(&v->type))
        return false;
    fl_value to, back;
    fl_error e;
    fl_eval_env env;
    memset(&env, 0, sizeof env);
    env.time_zone = "UTC";
    if (fl_cast_value(v, t, &env, a, &to, &e) != FL_OK || to.is_null ||
        fl_cast_value(&to, &v->type, &env, a, &back, &e) != FL_OK || back.is_null ||
        fl_value_compare(&back, v) != 0)
        return false;
    to.type = *t;
    *out = to;
    return true;
}

static bool param_term(fl_arena *a, const fl_plan *scan, const fl_expr *e,
                       const fl_eval_env *env, fl_col_pred *t)
{
    if (e->kind != FL_EXPR_CALL || e->nargs != 2 || !e->fn || !e->fn->name)
        return false;
    const cmp_map *m = NULL;
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (!strcmp(e->fn->name, OPS[i].op))
            m = &OPS[i];
    if (!m)
        return false;
    const fl_expr *col = e->args[0], *par = e->args[1];
    fl_cmp_op op = m->cmp;
    if (col->kind != FL_EXPR_COLUMN) {
        col = e->args[1];
        par = e->args[0];
        op = m->flipped;
    }
    if (col->kind != FL_EXPR_COLUMN || par->kind != FL_EXPR_PARAM || par->param >= env->nparams)
        return false;
    const fl_value *pv = &env->params[par->param];
    const fl_plan_scan *s = &scan->u.scan;
    if (pv->is_null || col->column >= s->ncolumns || col->column >= scan->schema.nfields)
        return false;
    memset(t, 0, sizeof *t);
    if (!exact_value(a, pv, &col->type, &t->value))
        return false;
    t->op = op;
    t->column = scan->schema.fields[col->column].name;
    t->field_id = s->kind == FL_SCAN_ICEBERG ? s->columns[col->column] : 0;
    return true;
}

static void collect(fl_arena *a, const fl_plan *scan, const fl_expr *e, const fl_eval_env *env,
                    fl_col_pred *out, uint32_t *n, uint32_t cap)
{
    if (e->kind == FL_EXPR_AND) {
        for (uint32_t i = 0; i < e->nargs; i++)
            collect(a, scan, e->args[i], env, out, n, cap);
        return;
    }
    if (*n < cap && param_term(a, scan, e, env, &out[*n]))
        (*n)++;
}

fl_predicate fl_prune_with_params(fl_arena *a, const fl_plan *scan, const fl_eval_env *env)
{
    const fl_plan_scan *s = &scan->u.scan;
    fl_predicate p = s->prune;
    if (!s->filter || !env || env->nparams == 0 ||
        (s->kind != FL_SCAN_ICEBERG && s->kind != FL_SCAN_PARQUET && s->kind != FL_SCAN_ORC))
        return p;
    uint32_t cap = p.nterms + 32, n = p.nterms;
    fl_col_pred *terms = fl_arena_calloc(a, cap, sizeof *terms);
    if (!terms)
        return p; /* out of memory: prune with what the planner found */
    if (p.nterms)
        memcpy(terms, p.terms, p.nterms * sizeof *terms);
    collect(a, scan, s->filter, env, terms, &n, cap);
    if (n == p.nterms)
        return p;
    p.terms = terms;
    p.nterms = n;
    return p;
}
