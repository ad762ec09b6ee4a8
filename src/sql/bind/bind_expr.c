/*
 * bind_expr.c - parse-tree expressions (PgQuery__Node) to bound fl_expr
 * trees in scope form (bind.h): literals, column references, operators and
 * functions (resolved through func.h by fl_expr_call, which inserts implicit
 * casts), CAST/::, CASE, COALESCE, NULLIF, GREATEST/LEAST, IN lists,
 * BETWEEN, LIKE, IS [NOT] NULL/DISTINCT/TRUE, parameters with inferred
 * types, aggregates (FL_REF_AGG markers) and window calls (FL_REF_WIN), and
 * subqueries (bind_subquery.c). Constant subtrees are folded as they are
 * built (fl_expr_fold); a subtree whose folding fails (1/0) is left for
 * execution, where it fails only if a row reaches it.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/bind/bind.h"
#include "sql/parse/depth.h"
#include "sql/parse/parse_tree.h"
#include "sql/pgcat/pgcat.h"

typedef PgQuery__Node Node;

const char *fl_front_str(const PgQuery__Node *n)
{
    if (n && n->node_case == PG_QUERY__NODE__NODE_STRING)
        return n->string->sval;
    return NULL;
}

static fl_type unknown_type(void)
{
    fl_type t = {.id = FL_TYPE_STRING, .fixed_len = -1};
    return t;
}

static bool is_unknown(const fl_type *t)
{
    return t->id == FL_TYPE_STRING && t->fixed_len == -1;
}

fl_expr *fl_front_fold(fl_arena *a, fl_expr *e)
{
    if (!e || e->kind == FL_EXPR_CONST || !fl_expr_is_constant(e) || fl_type_is_nested(&e->type))
        return e; /* a nested value has no fl_value form */
    fl_value v;
    fl_error ferr;
    if (fl_expr_fold(e, a, &v, &ferr) != FL_OK)
        return e; /* fails at run time, and only if a row reaches it */
    fl_expr *c = fl_expr_const(a, &v);
    if (!c)
        return e;
    c->type = e->type;
    c->value.type = e->type;
    c->location = e->location;
    c->alias = e->alias;
    return c;
}

bool fl_expr_equal(const fl_expr *x, const fl_expr *y)
{
    if (x == y)
        return true;
    if (!x || !y || x->kind != y->kind || x->nargs != y->nargs || x->negated != y->negated ||
        x->lenient != y->lenient || !fl_type_equal(&x->type, &y->type))
        return false;
    switch (x->kind) {
    case FL_EXPR_COLUMN:
        return x->column == y->column;
    case FL_EXPR_PARAM:
        return x->param == y->param;
    case FL_EXPR_CONST:
        if (x->value.is_null || y->value.is_null)
            return x->value.is_null == y->value.is_null;
        return fl_value_compare(&x->value, &y->value) == 0;
    case FL_EXPR_CALL:
        if (x->fn != y->fn)
            return false;
        break;
    case FL_EXPR_SUBQUERY:
        return x->subplan == y->subplan;
    default:
        break;
    }
    for (uint32_t i = 0; i < x->nargs; i++)
        if (!fl_expr_equal(x->args[i], y->args[i]))
            return false;
    return true;
}

fl_status fl_bind_const_string(fl_arena *a, const char *s, int32_t loc, fl_expr **out)
{
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type = unknown_type();
    v.v.bytes.ptr = (const uint8_t *)s;
    v.v.bytes.len = strlen(s);
    fl_expr *e = fl_expr_const(a, &v);
    if (!e)
        return FL_ENOMEM;
    e->type = unknown_type();
    e->location = loc;
    *out = e;
    return FL_OK;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* X'00ff': a varbinary literal, as in Trino, DuckDB, MySQL and SQL:2016's
 * binary string literal (PostgreSQL reads it as a bit string; floe has no bit
 * type). An even number of hex digits; spaces are not allowed. */
static fl_status bind_hex_bytes(fl_bctx *b, const char *hex, int32_t loc, fl_expr **out,
                                fl_error *err)
{
    size_t n = strlen(hex);
    if (n % 2)
        return fl_front_err(b->pc, err, FL_ESYNTAX, loc, "22P02",
                            "binary literal X'%s' has an odd number of hex digits", hex);
    uint8_t *bytes = fl_arena_alloc(b->a, n / 2 + 1);
    if (!bytes)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i += 2) {
        int hi = hex_digit(hex[i]), lo = hex_digit(hex[i + 1]);
        if (hi < 0 || lo < 0)
            return fl_front_err(b->pc, err, FL_ESYNTAX, loc, "22P02",
                                "binary literal X'%s': \"%c%c\" is not a hex byte", hex, hex[i],
                                hex[i + 1]);
        bytes[i / 2] = (uint8_t)(hi << 4 | lo);
    }
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type.id = FL_TYPE_BINARY;
    v.v.bytes.ptr = bytes;
    v.v.bytes.len = n / 2;
    fl_expr *e = fl_expr_const(b->a, &v);
    if (!e)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    e->location = loc;
    *out = e;
    return FL_OK;
}

static fl_status bind_number(fl_bctx *b, const char *txt, int32_t loc, fl_expr **out,
                             fl_error *err)
{
    fl_value v;
    memset(&v, 0, sizeof v);
    bool neg = false;
    if (*txt == '-' || *txt == '+') {
        neg = *txt == '-'; /* libpg_query folds a unary minus into numeric constants */
        txt++;
    }
    bool point = strchr(txt, '.') != NULL, expo = strpbrk(txt, "eE") != NULL;
    if (expo) {
        v.type.id = FL_TYPE_FLOAT64;
        v.v.f64 = neg ? -strtod(txt, NULL) : strtod(txt, NULL);
    } else {
        /* integer too big for int32, or a numeric with a point */
        fl_i128 u = 0;
        int digits = 0, scale = 0;
        bool seen_point = false;
        for (const char *p = txt; *p; p++) {
            if (*p == '.') {
                seen_point = true;
                continue;
            }
            if (!isdigit((unsigned char)*p))
                return fl_front_err(b->pc, err, FL_ESYNTAX, loc, "22P02",
                                    "invalid numeric literal \"%s\"", txt);
            if (digits == 0 && *p == '0' && !seen_point)
                continue;
            if (digits >= 38)
                return fl_front_err(b->pc, err, FL_EOVERFLOW, loc, "22003",
                                    "numeric literal \"%s\" has more than 38 digits", txt);
            u = u * 10 + (*p - '0');
            digits++;
            if (seen_point)
                scale++;
        }
        if (!point && u <= (fl_i128)INT64_MAX + (neg ? 1 : 0)) {
            v.type.id = FL_TYPE_INT64;
            v.v.i64 = neg ? (int64_t)(-u) : (int64_t)u;
            if (u <= (fl_i128)INT32_MAX + (neg ? 1 : 0)) {
                v.type.id = FL_TYPE_INT32;
                v.v.i32 = (int32_t)v.v.i64;
            }
        } else {
            v.type.id = FL_TYPE_DECIMAL;
            v.type.scale = scale;
            v.type.precision = digits > scale ? digits : scale;
            if (v.type.precision == 0)
                v.type.precision = 1;
            v.v.dec = neg ? -u : u;
        }
    }
    fl_expr *e = fl_expr_const(b->a, &v);
    if (!e)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    e->location = loc;
    *out = e;
    return FL_OK;
}

static fl_status bind_const(fl_bctx *b, const PgQuery__AConst *c, fl_expr **out, fl_error *err)
{
    fl_value v;
    memset(&v, 0, sizeof v);
    if (c->isnull) {
        v.type = unknown_type();
        v.is_null = true;
    } else {
        switch (c->val_case) {
        case PG_QUERY__A__CONST__VAL_IVAL:
            v.type.id = FL_TYPE_INT32;
            v.v.i32 = c->ival->ival;
            break;
        case PG_QUERY__A__CONST__VAL_FVAL:
            return bind_number(b, c->fval->fval, c->location, out, err);
        case PG_QUERY__A__CONST__VAL_BOOLVAL:
            v.type.id = FL_TYPE_BOOLEAN;
            v.v.b = c->boolval->boolval;
            break;
        case PG_QUERY__A__CONST__VAL_SVAL:
            FL_CHECK(fl_bind_const_string(b->a, c->sval->sval, c->location, out) == FL_OK, err,
                     FL_ENOMEM, "out of memory");
            return FL_OK;
        case PG_QUERY__A__CONST__VAL_BSVAL:
            if (c->bsval && c->bsval->bsval && strchr("xX", c->bsval->bsval[0]) &&
                c->bsval->bsval[0])
                return bind_hex_bytes(b, c->bsval->bsval + 1, c->location, out, err);
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, c->location, "0A000",
                                "bit string literals (B'...') are not supported");
        default:
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, c->location, "0A000",
                                "this literal is not supported");
        }
    }
    fl_expr *e = fl_expr_const(b->a, &v);
    if (!e)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    e->location = c->location;
    *out = e;
    return FL_OK;
}

static fl_status bind_column(fl_bctx *b, const PgQuery__ColumnRef *cr, fl_expr **out,
                             fl_error *err)
{
    size_t n = cr->n_fields;
    if (n == 0 || cr->fields[n - 1]->node_case == PG_QUERY__NODE__NODE_A_STAR)
        return fl_front_err(b->pc, err, FL_ESYNTAX, cr->location, "42601",
                            "\"*\" is only allowed in a SELECT list or count(*)");
    bool path; /* t.s.f, s.f: struct fields (bind_nested.c) */
    FL_TRY(fl_bind_column_path(b, cr, out, &path, err));
    if (path)
        return FL_OK;
    const char *name = fl_front_str(cr->fields[n - 1]);
    const char *qual = n >= 2 ? fl_front_str(cr->fields[n - 2]) : NULL;
    return fl_scope_lookup_expr(b, qual, name, cr->location, out, err);
}

static fl_status bind_param(fl_bctx *b, const PgQuery__ParamRef *pr, fl_expr **out, fl_error *err)
{
    fl_planner_ctx *pc = b->pc;
    if (pr->number < 1 || pr->number > 65535)
        return fl_front_err(pc, err, FL_EINVAL, pr->location, "42P02",
                            "there is no parameter $%d", pr->number);
    uint32_t k = (uint32_t)pr->number;
    if (k > pc->nparams) {
        fl_type *nt = fl_arena_calloc(pc->arena, k, sizeof(fl_type));
        if (!nt)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < k; i++)
            nt[i] = i < pc->nparams && pc->param_types ? pc->param_types[i] : unknown_type();
        pc->param_types = nt;
        pc->nparams = k;
    }
    fl_expr *e = fl_expr_new(b->a, FL_EXPR_PARAM, &pc->param_types[k - 1], 0);
    if (!e)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    e->param = k - 1;
    e->location = pr->location;
    *out = e;
    return FL_OK;
}

/* A parameter of unknown type takes the type of the other operand. */
static void infer_param(fl_bctx *b, fl_expr *p, const fl_expr *other)
{
    if (!p || !other || p->kind != FL_EXPR_PARAM || !is_unknown(&p->type) ||
        is_unknown(&other->type))
        return;
    p->type = other->type;
    if (p->param < b->pc->nparams)
        b->pc->param_types[p->param] = other->type;
}

/* PostgreSQL resolves unknown-typed literals to text when nothing else
 * fits (lpad('7', 3, '0')): when resolution failed and some arguments are
 * untyped string literals, try once more with them as text. */
static fl_status retry_unknown_as_text(fl_bctx *b, const char *name, fl_expr *const *args,
                                       uint32_t n, int32_t loc, fl_expr **out)
{
    fl_expr **copy = fl_arena_alloc(b->a, (n ? n : 1) * sizeof *copy);
    if (!copy)
        return FL_ENOMEM;
    bool any = false;
    for (uint32_t i = 0; i < n; i++) {
        copy[i] = args[i];
        if (args[i]->kind == FL_EXPR_CONST && is_unknown(&args[i]->type)) {
            fl_expr *c = fl_arena_alloc(b->a, sizeof *c);
            if (!c)
                return FL_ENOMEM;
            *c = *args[i];
            c->type.fixed_len = 0;
            c->value.type.fixed_len = 0;
            copy[i] = c;
            any = true;
        }
    }
    if (!any)
        return FL_ENOTFOUND;
    fl_error e2 = {0};
    return fl_expr_call(b->a, name, copy, n, loc, out, &e2);
}

static bool zoned(const fl_type *t)
{
    return t->id == FL_TYPE_TIMESTAMPTZ || t->id == FL_TYPE_TIMESTAMPTZ_NS;
}

/* A literal cast into or out of a zoned type (`ts >= '2024-02-09'` with ts
 * TIMESTAMPTZ) is not constant for fl_front_fold (it reads the session
 * zone); PostgreSQL converts such literals once, at parse time, in the
 * session's zone. Folding it here with the statement's zone makes it a
 * constant that scans use for partition/metrics pruning. */
static fl_expr *fold_zoned(fl_bctx *b, fl_expr *e)
{
    if (!e || e->kind != FL_EXPR_CAST || e->nargs != 1 || e->lenient ||
        e->args[0]->kind != FL_EXPR_CONST || zoned(&e->type) == zoned(&e->args[0]->type))
        return e;
    fl_eval_env env;
    memset(&env, 0, sizeof env);
    env.time_zone = b->pc->time_zone;
    env.statement_time_us = b->pc->statement_time_us;
    fl_value v;
    fl_error ferr;
    if (fl_cast_value(&e->args[0]->value, &e->type, &env, b->a, &v, &ferr) != FL_OK)
        return e; /* fails at run time, with the expression's message */
    fl_expr *c = fl_expr_const(b->a, &v);
    if (!c)
        return e;
    c->type = e->type;
    c->value.type = e->type;
    c->location = e->location;
    c->alias = e->alias;
    return c;
}

static fl_status call(fl_bctx *b, const char *name, fl_expr **args, uint32_t n, int32_t loc,
                      fl_expr **out, fl_error *err)
{
    if (n == 2) {
        infer_param(b, args[0], args[1]);
        infer_param(b, args[1], args[0]);
        FL_TRY(fl_bind_numeric_args(b, name, args, n, err)); /* bind_numeric.c */
    }
    FL_TRY(fl_bind_nested_args(b, name, args, n, err)); /* ARRAY[...] as a list */
    fl_expr *orig[8];
    uint32_t norig = n <= 8 ? n : 0; /* fl_expr_call may replace args[i] with casts */
    for (uint32_t i = 0; i < norig; i++)
        orig[i] = args[i];
    if (fl_expr_call(b->a, name, args, n, loc, out, err) != FL_OK &&
        (!norig || retry_unknown_as_text(b, name, orig, norig, loc, out) != FL_OK))
        return fl_front_err_at(b->pc, err, loc);
    (*out)->location = loc;
    FL_TRY(fl_bind_nested_call_type(b, *out, err)); /* map(k, v): bind_nested.c */
    fl_bind_numeric_div(name, orig, norig, *out);
    if ((*out)->kind == FL_EXPR_CALL)
        for (uint32_t i = 0; i < (*out)->nargs; i++)
            (*out)->args[i] = fold_zoned(b, (*out)->args[i]);
    *out = fl_front_fold(b->a, *out);
    return FL_OK;
}

fl_status fl_front_coerce(fl_arena *a, fl_expr **x, fl_expr **y, fl_error *err)
{
    fl_type t;
    if (!fl_type_common(&(*x)->type, &(*y)->type, &t)) {
        char b1[64], b2[64];
        return fl_errorf(err, FL_ETYPE, "types %s and %s cannot be matched",
                         fl_sql_type_name(&(*x)->type, b1, sizeof b1),
                         fl_sql_type_name(&(*y)->type, b2, sizeof b2));
    }
    FL_TRY(fl_expr_cast(a, *x, &t, x, err));
    FL_TRY(fl_expr_cast(a, *y, &t, y, err));
    *x = fl_front_fold(a, *x);
    *y = fl_front_fold(a, *y);
    return FL_OK;
}

/* Common type of n expressions, casting each (CASE, COALESCE, IN, VALUES). */
static fl_status coerce_all(fl_bctx *b, fl_expr **v, uint32_t n, int32_t loc, fl_error *err)
{
    if (n == 0)
        return FL_OK;
    /* untyped literals (NULL, 'x') take the type of the others, as in
     * PostgreSQL: they do not take part in choosing it */
    uint32_t first = 0;
    while (first < n && is_unknown(&v[first]->type))
        first++;
    if (first == n)
        first = 0;
    fl_type t = fl_bind_row_literal_type(b->a, v[first]);
    for (uint32_t i = 0; i < n; i++) {
        if (i == first || (is_unknown(&v[i]->type) && !is_unknown(&t)))
            continue;
        fl_type nt, vt = fl_bind_row_literal_type(b->a, v[i]);
        if (!fl_type_common_in(b->a, &t, &vt, &nt)) {
            char b1[64], b2[64];
            return fl_front_err(b->pc, err, FL_ETYPE, v[i]->location >= 0 ? v[i]->location : loc,
                                "42804", "types %s and %s cannot be matched",
                                fl_sql_type_name(&t, b1, sizeof b1),
                                fl_sql_type_name(&v[i]->type, b2, sizeof b2));
        }
        t = nt;
    }
    if (is_unknown(&t))
        t.fixed_len = 0; /* all unknown literals: text */
    for (uint32_t i = 0; i < n; i++) {
        infer_param(b, v[i], &(fl_expr){.type = t});
        if (fl_bind_cast_row(b->a, v[i], &t, &v[i], err) != FL_OK)
            return fl_front_err_at(b->pc, err, v[i]->location >= 0 ? v[i]->location : loc);
        v[i] = fl_front_fold(b->a, fold_zoned(b, v[i]));
    }
    return FL_OK;
}

static fl_status to_bool(fl_bctx *b, fl_expr **e, fl_error *err)
{
    if ((*e)->type.id == FL_TYPE_BOOLEAN)
        return FL_OK;
    fl_type bt = {.id = FL_TYPE_BOOLEAN};
    infer_param(b, *e, &(fl_expr){.type = bt});
    if (is_unknown(&(*e)->type) && (*e)->kind == FL_EXPR_CONST) {
        if (fl_expr_cast(b->a, *e, &bt, e, err) != FL_OK)
            return fl_front_err_at(b->pc, err, (*e)->location);
        *e = fl_front_fold(b->a, *e);
        return FL_OK;
    }
    char tb[64];
    return fl_front_err(b->pc, err, FL_ETYPE, (*e)->location, "42804",
                        "argument of boolean operator must be type boolean, not type %s",
                        fl_sql_type_name(&(*e)->type, tb, sizeof tb));
}

static fl_expr *mk(fl_bctx *b, fl_expr_kind k, fl_type_id t, uint32_t n, int32_t loc)
{
    fl_type ty = {.id = t};
    fl_expr *e = fl_expr_new(b->a, k, &ty, n);
    if (e)
        e->location = loc;
    return e;
}

fl_status fl_front_and(fl_arena *a, fl_expr **terms, uint32_t n, fl_expr **out)
{
    if (n == 1) {
        *out = terms[0];
        return FL_OK;
    }
    fl_type bt = {.id = FL_TYPE_BOOLEAN};
    fl_expr *e = fl_expr_new(a, FL_EXPR_AND, &bt, n);
    if (!e)
        return FL_ENOMEM;
    for (uint32_t i = 0; i < n; i++)
        e->args[i] = terms[i];
    e->location = terms[0]->location;
    *out = e;
    return FL_OK;
}

static const char *op_name(const PgQuery__AExpr *x)
{
    return x->n_name ? fl_front_str(x->name[x->n_name - 1]) : "=";
}

static fl_status bind_list(fl_bctx *b, const Node *n, fl_expr ***items, uint32_t *count,
                           fl_error *err)
{
    if (!n || n->node_case != PG_QUERY__NODE__NODE_LIST)
        return fl_errorf(err, FL_ESYNTAX, "expected a list");
    *count = (uint32_t)n->list->n_items;
    *items = fl_arena_calloc(b->a, *count + 1, sizeof(fl_expr *));
    if (!*items)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < *count; i++)
        FL_TRY(fl_bind_expr(b, n->list->items[i], &(*items)[i], err));
    return FL_OK;
}

static fl_status bind_aexpr(fl_bctx *b, const PgQuery__AExpr *x, fl_expr **out, fl_error *err)
{
    fl_expr *l = NULL, *r = NULL;
    const char *op = op_name(x);
    int32_t loc = x->location;
    switch (x->kind) {
    case PG_QUERY__A__EXPR__KIND__AEXPR_OP:
    case PG_QUERY__A__EXPR__KIND__AEXPR_LIKE:
    case PG_QUERY__A__EXPR__KIND__AEXPR_ILIKE: {
        if (x->lexpr)
            FL_TRY(fl_bind_expr(b, x->lexpr, &l, err));
        FL_TRY(fl_bind_expr(b, x->rexpr, &r, err));
        fl_expr *args[2] = {l, r};
        if (!l)
            return call(b, op, &args[1], 1, loc, out, err);
        return call(b, op, args, 2, loc, out, err);
    }
    case PG_QUERY__A__EXPR__KIND__AEXPR_DISTINCT:
    case PG_QUERY__A__EXPR__KIND__AEXPR_NOT_DISTINCT: {
        FL_TRY(fl_bind_expr(b, x->lexpr, &l, err));
        FL_TRY(fl_bind_expr(b, x->rexpr, &r, err));
        infer_param(b, l, r);
        infer_param(b, r, l);
        if (fl_front_coerce(b->a, &l, &r, err) != FL_OK)
            return fl_front_err_at(b->pc, err, loc);
        fl_expr *e = mk(b, FL_EXPR_IS_DISTINCT, FL_TYPE_BOOLEAN, 2, loc);
        if (!e)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        e->args[0] = l;
        e->args[1] = r;
        e->negated = x->kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_DISTINCT;
        *out = fl_front_fold(b->a, e);
        return FL_OK;
    }
    case PG_QUERY__A__EXPR__KIND__AEXPR_NULLIF: {
        FL_TRY(fl_bind_expr(b, x->lexpr, &l, err));
        FL_TRY(fl_bind_expr(b, x->rexpr, &r, err));
        fl_expr *args[2] = {l, r}, *eq;
        FL_TRY(call(b, "=", args, 2, loc, &eq, err));
        fl_expr *e = fl_expr_new(b->a, FL_EXPR_CASE, &l->type, 3);
        fl_value nv;
        memset(&nv, 0, sizeof nv);
        nv.type = l->type;
        nv.is_null = true;
        fl_expr *nul = fl_expr_const(b->a, &nv);
        if (!e || !nul)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        e->args[0] = eq;
        e->args[1] = nul;
        e->args[2] = l;
        e->location = loc;
        *out = fl_front_fold(b->a, e);
        return FL_OK;
    }
    case PG_QUERY__A__EXPR__KIND__AEXPR_IN: {
        FL_TRY(fl_bind_expr(b, x->lexpr, &l, err));
        fl_expr **items;
        uint32_t n;
        FL_TRY(bind_list(b, x->rexpr, &items, &n, err));
        fl_expr *e = mk(b, FL_EXPR_IN_LIST, FL_TYPE_BOOLEAN, n + 1, loc);
        if (!e)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        e->args[0] = l;
        for (uint32_t i = 0; i < n; i++) {
            infer_param(b, items[i], l);
            infer_param(b, l, items[i]);
            e->args[i + 1] = items[i];
        }
        FL_TRY(coerce_all(b, e->args, n + 1, loc, err));
        e->negated = strcmp(op, "<>") == 0;
        *out = fl_front_fold(b->a, e);
        return FL_OK;
    }
    case PG_QUERY__A__EXPR__KIND__AEXPR_BETWEEN:
    case PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN:
    case PG_QUERY__A__EXPR__KIND__AEXPR_BETWEEN_SYM:
    case PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN_SYM: {
        bool neg = x->kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN ||
                   x->kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN_SYM;
        if (x->kind == PG_QUERY__A__EXPR__KIND__AEXPR_BETWEEN_SYM ||
            x->kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN_SYM)
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, loc, "0A000",
                                "BETWEEN SYMMETRIC is not supported");
        FL_TRY(fl_bind_expr(b, x->lexpr, &l, err));
        fl_expr **items;
        uint32_t n;
        FL_TRY(bind_list(b, x->rexpr, &items, &n, err));
        if (n != 2)
            return fl_front_err(b->pc, err, FL_ESYNTAX, loc, "42601", "malformed BETWEEN");
        fl_expr *lo[2] = {l, items[0]}, *hi[2] = {l, items[1]}, *c1, *c2;
        FL_TRY(call(b, neg ? "<" : ">=", lo, 2, loc, &c1, err));
        FL_TRY(call(b, neg ? ">" : "<=", hi, 2, loc, &c2, err));
        fl_expr *e = mk(b, neg ? FL_EXPR_OR : FL_EXPR_AND, FL_TYPE_BOOLEAN, 2, loc);
        if (!e)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        e->args[0] = c1;
        e->args[1] = c2;
        *out = fl_front_fold(b->a, e);
        return FL_OK;
    }
    default: {
        bool pg = false; /* x op ANY/ALL (array): src/sql/pgcat */
        FL_TRY(fl_pgcat_bind_aexpr(b, x, out, &pg, err));
        if (pg)
            return FL_OK;
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, loc, "0A000",
                            "operator form %d (ANY/ALL/SIMILAR over arrays) is not supported",
                            (int)x->kind);
    }
    }
}

fl_status fl_front_type_name(fl_planner_ctx *pc, const PgQuery__TypeName *tn, fl_type *t,
                             fl_error *err)
{
    char name[256];
    size_t o = 0;
    name[0] = 0;
    for (size_t i = 0; i < tn->n_names; i++) {
        const char *s = fl_front_str(tn->names[i]);
        if (!s || (i == 0 && tn->n_names > 1 && strcmp(s, "pg_catalog") == 0))
            continue;
        int w = snprintf(name + o, sizeof name - o, "%s%s", o ? "." : "", s);
        if (w < 0 || (size_t)w >= sizeof name - o)
            break;
        o += (size_t)w;
    }
    int32_t mods[8];
    uint32_t nm = 0;
    for (size_t i = 0; i < tn->n_typmods && nm < 8; i++) {
        const Node *m = tn->typmods[i];
        if (m->node_case == PG_QUERY__NODE__NODE_A_CONST &&
            m->a_const->val_case == PG_QUERY__A__CONST__VAL_IVAL)
            mods[nm++] = m->a_const->ival->ival;
    }
    if (tn->n_array_bounds)
        return fl_front_err(pc, err, FL_EUNSUPPORTED, tn->location, "0A000",
                            "array types are not supported");
    if (fl_sql_type_parse(name, mods, nm, t, err) != FL_OK)
        return fl_front_err(pc, err, FL_ENOTFOUND, tn->location, "42704",
                            "type \"%s\" does not exist", name);
    return FL_OK;
}

/* A cast of a constant that plain folding refuses because it depends on
 * the session (TIMESTAMPTZ '2024-01-01 00:00', '...'::timestamptz, date ->
 * timestamptz): evaluated now with the session time zone and statement
 * time, as PostgreSQL resolves typed literals when it plans, so that the
 * value can prune partitions and files. A constant that cannot be cast is
 * an error now: CAST('x' AS date). */
static fl_status fold_typed_literal(fl_bctx *b, const fl_expr *arg, const fl_type *t,
                                    int32_t loc, fl_expr **out, fl_error *err)
{
    fl_eval_env env;
    memset(&env, 0, sizeof env);
    env.time_zone = b->pc->time_zone ? b->pc->time_zone : "UTC";
    env.statement_time_us = b->pc->statement_time_us;
    fl_value v;
    if (fl_cast_value(&arg->value, t, &env, b->a, &v, err) != FL_OK)
        return fl_front_err_at(b->pc, err, loc);
    fl_expr *c = fl_expr_const(b->a, &v);
    if (!c)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    c->type = *t;
    c->value.type = *t;
    c->location = loc;
    *out = c;
    return FL_OK;
}

/* The typed literal TIMESTAMP '... hh:mm:ss.fffffffff' (no precision given;
 * the parser marks that syntax with location -1, unlike CAST and ::) with
 * more than 6 fraction digits is timestamp(9), as Trino types a literal by
 * its digits; PostgreSQL would round it to the microsecond. */
static void literal_precision(const PgQuery__TypeCast *tc, const fl_expr *arg, fl_type *t)
{
    const PgQuery__TypeName *tn = tc->type_name;
    if ((t->id != FL_TYPE_TIMESTAMP && t->id != FL_TYPE_TIMESTAMPTZ) || tn->n_typmods ||
        tc->location >= 0 ||
        arg->kind != FL_EXPR_CONST || arg->value.is_null || arg->value.type.id != FL_TYPE_STRING)
        return;
    const char *s = (const char *)arg->value.v.bytes.ptr;
    size_t n = arg->value.v.bytes.len, colons = 0, digits = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == ':')
            colons++;
        else if (s[i] == '.' && colons == 2) {
            while (i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')
                digits++, i++;
            break;
        }
    }
    if (digits > 6)
        t->id = t->id == FL_TYPE_TIMESTAMP ? FL_TYPE_TIMESTAMP_NS : FL_TYPE_TIMESTAMPTZ_NS;
}

static fl_status bind_cast(fl_bctx *b, const PgQuery__TypeCast *tc, fl_expr **out, fl_error *err)
{
    bool pg = false; /* reg* and array types: src/sql/pgcat */
    FL_TRY(fl_pgcat_bind_cast(b, tc, out, &pg, err));
    if (pg)
        return FL_OK;
    fl_expr *arg;
    FL_TRY(fl_bind_expr(b, tc->arg, &arg, err));
    fl_type t;
    FL_TRY(fl_front_type_name(b->pc, tc->type_name, &t, err));
    literal_precision(tc, arg, &t);
    infer_param(b, arg, &(fl_expr){.type = t});
    if (fl_expr_cast(b->a, arg, &t, out, err) != FL_OK)
        return fl_front_err_at(b->pc, err, tc->location);
    (*out)->location = tc->location;
    fl_expr *f = fl_front_fold(b->a, *out);
    if (f == *out && arg->kind == FL_EXPR_CONST)
        FL_TRY(fold_typed_literal(b, arg, &t, tc->location, &f, err));
    *out = f;
    return FL_OK;
}

static fl_status bind_case(fl_bctx *b, const PgQuery__CaseExpr *c, fl_expr **out, fl_error *err)
{
    uint32_t nw = (uint32_t)c->n_args;
    fl_expr *arg = NULL;
    if (c->arg)
        FL_TRY(fl_bind_expr(b, c->arg, &arg, err));
    fl_expr **conds = fl_arena_calloc(b->a, nw + 1, sizeof(fl_expr *));
    fl_expr **vals = fl_arena_calloc(b->a, nw + 1, sizeof(fl_expr *));
    if (!conds || !vals)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < nw; i++) {
        const PgQuery__CaseWhen *w = c->args[i]->case_when;
        fl_expr *cond;
        FL_TRY(fl_bind_expr(b, w->expr, &cond, err));
        if (arg) {
            fl_expr *args[2] = {arg, cond};
            FL_TRY(call(b, "=", args, 2, w->location, &cond, err));
        }
        FL_TRY(to_bool(b, &cond, err));
        conds[i] = cond;
        FL_TRY(fl_bind_expr(b, w->result, &vals[i], err));
    }
    if (c->defresult) {
        FL_TRY(fl_bind_expr(b, c->defresult, &vals[nw], err));
    } else {
        fl_value nv;
        memset(&nv, 0, sizeof nv);
        nv.type = unknown_type();
        nv.is_null = true;
        vals[nw] = fl_expr_const(b->a, &nv);
        if (!vals[nw])
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    FL_TRY(coerce_all(b, vals, nw + 1, c->location, err));
    fl_expr *e = fl_expr_new(b->a, FL_EXPR_CASE, &vals[0]->type, 2 * nw + 1);
    if (!e)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < nw; i++) {
        e->args[2 * i] = conds[i];
        e->args[2 * i + 1] = vals[i];
    }
    e->args[2 * nw] = vals[nw];
    e->location = c->location;
    *out = fl_front_fold(b->a, e);
    return FL_OK;
}

static fl_status bind_args(fl_bctx *b, Node **nodes, size_t n, fl_expr ***out, fl_error *err)
{
    *out = fl_arena_calloc(b->a, n + 1, sizeof(fl_expr *));
    if (!*out)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (nodes[i]->node_case == PG_QUERY__NODE__NODE_NAMED_ARG_EXPR)
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED,
                                nodes[i]->named_arg_expr->location, "0A000",
                                "named arguments are only supported in table functions");
        FL_TRY(fl_bind_expr(b, nodes[i], &(*out)[i], err));
    }
    return FL_OK;
}

static const char *func_name(fl_arena *a, const PgQuery__FuncCall *f)
{
    const char *s = f->n_funcname ? fl_front_str(f->funcname[f->n_funcname - 1]) : "";
    char *l = fl_arena_strdup(a, s ? s : "");
    for (char *p = l; p && *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return l;
}

static fl_status bind_sort_keys(fl_bctx *b, Node **items, size_t n, fl_sort_key **out,
                                fl_error *err)
{
    *out = fl_arena_calloc(b->a, n + 1, sizeof(fl_sort_key));
    if (!*out)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const PgQuery__SortBy *sb = items[i]->sort_by;
        FL_TRY(fl_bind_expr(b, sb->node, &(*out)[i].expr, err));
        (*out)[i].desc = sb->sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_DESC;
        (*out)[i].nulls_first = sb->sortby_nulls == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_DEFAULT
                                    ? (*out)[i].desc
                                    : sb->sortby_nulls == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_FIRST;
    }
    return FL_OK;
}

static fl_status cast_args(fl_bctx *b, fl_expr **args, uint32_t n, const fl_func_binding *fb,
                           fl_error *err)
{
    for (uint32_t i = 0; i < n; i++) {
        const fl_type *t = &fb->arg_types[i < 16 ? i : 15];
        if (fl_expr_cast(b->a, args[i], t, &args[i], err) != FL_OK)
            return fl_front_err_at(b->pc, err, args[i]->location);
        args[i] = fl_front_fold(b->a, args[i]);
    }
    return FL_OK;
}

static fl_status frame_offset(fl_bctx *b, const Node *n, int64_t *out, fl_error *err)
{
    fl_expr *e;
    FL_TRY(fl_bind_expr(b, n, &e, err));
    if (e->kind != FL_EXPR_CONST || e->value.is_null ||
        (e->type.id != FL_TYPE_INT32 && e->type.id != FL_TYPE_INT64))
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, e->location, "0A000",
                            "window frame offsets must be integer constants");
    *out = e->type.id == FL_TYPE_INT32 ? e->value.v.i32 : e->value.v.i64;
    if (*out < 0)
        return fl_front_err(b->pc, err, FL_EINVAL, e->location, "22013",
                            "frame starting offset must not be negative");
    return FL_OK;
}

static fl_status bind_window(fl_bctx *b, const PgQuery__FuncCall *f, const char *name,
                             fl_expr **out, fl_error *err)
{
    if (!b->allow_win || b->in_agg)
        return fl_front_err(b->pc, err, FL_EINVAL, f->location, "42P20",
                            "window functions are not allowed here");
    const PgQuery__WindowDef *w = f->over;
    if (w->name[0] || w->refname[0]) {
        const char *ref = w->name[0] ? w->name : w->refname;
        const PgQuery__WindowDef *found = NULL;
        for (size_t i = 0; b->stmt && i < b->stmt->n_window_clause; i++) {
            const PgQuery__WindowDef *d = b->stmt->window_clause[i]->window_def;
            if (d && strcmp(d->name, ref) == 0)
                found = d;
        }
        if (!found)
            return fl_front_err(b->pc, err, FL_ENOTFOUND, w->location, "42704",
                                "window \"%s\" does not exist", ref);
        w = found;
    }
    fl_window_call wc;
    memset(&wc, 0, sizeof wc);
    b->allow_win = false;
    fl_status rc = bind_args(b, f->args, f->n_args, &wc.args, err);
    wc.nargs = (uint32_t)f->n_args;
    if (rc == FL_OK && w->n_partition_clause) {
        rc = bind_args(b, w->partition_clause, w->n_partition_clause, &wc.partition_by, err);
        wc.npartition = (uint32_t)w->n_partition_clause;
    }
    if (rc == FL_OK)
        rc = bind_sort_keys(b, w->order_clause, w->n_order_clause, &wc.order_by, err);
    wc.norder = (uint32_t)w->n_order_clause;
    b->allow_win = true;
    FL_TRY(rc);
    fl_type types[16];
    for (uint32_t i = 0; i < wc.nargs && i < 16; i++)
        types[i] = wc.args[i]->type;
    fl_func_binding fb;
    fl_func_kind kind = fl_func_exists(name, FL_FUNC_WINDOW) ? FL_FUNC_WINDOW : FL_FUNC_AGGREGATE;
    if (fl_func_resolve(name, kind, types, wc.nargs, &fb, err) != FL_OK)
        return fl_front_err_at(b->pc, err, f->location);
    FL_TRY(cast_args(b, wc.args, wc.nargs, &fb, err));
    wc.fn = fb.fn;
    wc.ops = fb.agg;
    wc.result = fb.result;
    int32_t fo = w->frame_options;
    if (fo & 0x1) { /* FRAMEOPTION_NONDEFAULT */
        if (fo & 0x8)
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, w->location, "0A000",
                                "GROUPS frames are not supported");
        if (fo & (0x8000 | 0x10000 | 0x20000))
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, w->location, "0A000",
                                "frame EXCLUDE clauses are not supported");
        wc.has_frame = true;
        wc.frame_rows = (fo & 0x4) != 0;
        wc.frame_start = (fo & 0x20)    ? FL_FRAME_UNBOUNDED_PRECEDING
                         : (fo & 0x200) ? FL_FRAME_CURRENT_ROW
                         : (fo & 0x800) ? FL_FRAME_PRECEDING
                         : (fo & 0x2000) ? FL_FRAME_FOLLOWING
                                         : FL_FRAME_UNBOUNDED_FOLLOWING;
        wc.frame_end = (fo & 0x100)    ? FL_FRAME_UNBOUNDED_FOLLOWING
                       : (fo & 0x400)  ? FL_FRAME_CURRENT_ROW
                       : (fo & 0x1000) ? FL_FRAME_PRECEDING
                       : (fo & 0x4000) ? FL_FRAME_FOLLOWING
                                       : FL_FRAME_CURRENT_ROW;
        if (!(fo & 0x10)) /* no BETWEEN: end is CURRENT ROW */
            wc.frame_end = FL_FRAME_CURRENT_ROW;
        if (w->start_offset)
            FL_TRY(frame_offset(b, w->start_offset, &wc.start_offset, err));
        if (w->end_offset)
            FL_TRY(frame_offset(b, w->end_offset, &wc.end_offset, err));
    }
    wc.alias = name;
    b->wins = fl_front_grow(b->a, b->wins, &b->capwins, b->nwins, sizeof(fl_window_call));
    if (!b->wins)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t k = b->nwins++;
    b->wins[k] = wc;
    fl_expr *e = fl_expr_column(b->a, FL_REF_WIN | k, &wc.result);
    if (!e)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    e->location = f->location;
    e->alias = name;
    *out = e;
    return FL_OK;
}

/* Ordered-set aggregates: percentile_cont(f) WITHIN GROUP (ORDER BY x)
 * becomes the call (f, x); the aggregate orders its values itself. ORDER
 * BY x DESC mirrors the fraction (1 - f), exact for percentile_cont's
 * linear interpolation; percentile_disc DESC is not supported. */
static fl_status within_group_args(fl_bctx *b, const PgQuery__FuncCall *f, const char *name,
                                   fl_agg_call *ac, fl_error *err)
{
    if (ac->norder != 1 || ac->nargs != 1)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, f->location, "0A000",
                            "%s WITHIN GROUP needs one direct argument and one ORDER BY key",
                            name);
    fl_expr *frac = ac->args[0];
    if (ac->order_desc[0]) {
        if (strcmp(name, "percentile_cont"))
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, f->location, "0A000",
                                "%s WITHIN GROUP (ORDER BY ... DESC) is not supported", name);
        fl_value one;
        memset(&one, 0, sizeof one);
        one.type.id = FL_TYPE_FLOAT64;
        one.v.f64 = 1.0;
        fl_expr *c1 = fl_expr_const(b->a, &one);
        if (!c1)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        fl_expr *args[2] = {c1, frac};
        FL_TRY(call(b, "-", args, 2, f->location, &frac, err));
    }
    fl_expr **na = fl_arena_calloc(b->a, 2, sizeof *na);
    if (!na)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    na[0] = frac;
    na[1] = ac->order_by[0];
    ac->args = na;
    ac->nargs = 2;
    ac->norder = 0;
    ac->order_by = NULL;
    ac->order_desc = NULL;
    return FL_OK;
}

static fl_status bind_agg(fl_bctx *b, const PgQuery__FuncCall *f, const char *name, fl_expr **out,
                          fl_error *err)
{
    if (!b->allow_agg)
        return fl_front_err(b->pc, err, FL_EINVAL, f->location, "42803",
                            "aggregate functions are not allowed here");
    if (b->in_agg)
        return fl_front_err(b->pc, err, FL_EINVAL, f->location, "42803",
                            "aggregate function calls cannot be nested");
    fl_agg_call ac;
    memset(&ac, 0, sizeof ac);
    b->in_agg = true;
    fl_status rc = FL_OK;
    /* count([DISTINCT] (a, b, ...)): a row value is never NULL, so it counts
     * every row (count(*)); DISTINCT compares the row's fields */
    bool row_count = !f->agg_star && strcmp(name, "count") == 0 && f->n_args == 1 &&
                     f->args[0]->node_case == PG_QUERY__NODE__NODE_ROW_EXPR &&
                     f->args[0]->row_expr->n_args > 0;
    if (row_count) {
        const PgQuery__RowExpr *re = f->args[0]->row_expr;
        rc = bind_args(b, re->args, re->n_args, &ac.args, err);
        ac.nargs = (uint32_t)re->n_args;
        fl_type text;
        memset(&text, 0, sizeof text);
        text.id = FL_TYPE_STRING;
        for (uint32_t i = 0; rc == FL_OK && i < ac.nargs; i++)
            if (is_unknown(&ac.args[i]->type))
                rc = fl_expr_cast(b->a, ac.args[i], &text, &ac.args[i], err);
    } else if (!f->agg_star) {
        rc = bind_args(b, f->args, f->n_args, &ac.args, err);
        ac.nargs = (uint32_t)f->n_args;
    }
    if (rc == FL_OK && f->agg_filter) {
        rc = fl_bind_expr(b, f->agg_filter, &ac.filter, err);
        if (rc == FL_OK)
            rc = to_bool(b, &ac.filter, err);
    }
    fl_sort_key *keys = NULL;
    if (rc == FL_OK && f->n_agg_order)
        rc = bind_sort_keys(b, f->agg_order, f->n_agg_order, &keys, err);
    b->in_agg = false;
    FL_TRY(rc);
    if (f->n_agg_order) {
        ac.norder = (uint32_t)f->n_agg_order;
        ac.order_by = fl_arena_calloc(b->a, ac.norder, sizeof(fl_expr *));
        ac.order_desc = fl_arena_calloc(b->a, ac.norder, sizeof(bool));
        if (!ac.order_by || !ac.order_desc)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < ac.norder; i++) {
            ac.order_by[i] = keys[i].expr;
            ac.order_desc[i] = keys[i].desc;
        }
    }
    if (f->agg_within_group)
        FL_TRY(within_group_args(b, f, name, &ac, err));
    fl_type types[16];
    for (uint32_t i = 0; i < ac.nargs && i < 16; i++)
        types[i] = ac.args[i]->type;
    fl_func_binding fb;
    if (fl_func_resolve(name, FL_FUNC_AGGREGATE, types, row_count ? 0 : ac.nargs, &fb, err) !=
        FL_OK)
        return fl_front_err_at(b->pc, err, f->location);
    if (!row_count)
        FL_TRY(cast_args(b, ac.args, ac.nargs, &fb, err));
    ac.fn = fb.fn;
    ac.ops = fb.agg;
    ac.result = fb.result;
    ac.distinct = f->agg_distinct;
    ac.alias = name;
    b->aggs = fl_front_grow(b->a, b->aggs, &b->capaggs, b->naggs, sizeof(fl_agg_call));
    if (!b->aggs)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    /* the same call twice (sum(x) in SELECT and HAVING) shares one aggregate */
    uint32_t k;
    for (k = 0; k < b->naggs; k++) {
        const fl_agg_call *o = &b->aggs[k];
        bool same = o->fn == ac.fn && o->nargs == ac.nargs && o->distinct == ac.distinct &&
                    !o->filter && !ac.filter && !o->norder && !ac.norder &&
                    fl_type_equal(&o->result, &ac.result);
        for (uint32_t i = 0; same && i < ac.nargs; i++)
            same = fl_expr_equal(o->args[i], ac.args[i]);
        if (same)
            break;
    }
    if (k == b->naggs)
        b->aggs[b->naggs++] = ac;
    fl_expr *e = fl_expr_column(b->a, FL_REF_AGG | k, &ac.result);
    if (!e)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    e->location = f->location;
    e->alias = name;
    *out = e;
    return FL_OK;
}

static fl_status bind_func(fl_bctx *b, const PgQuery__FuncCall *f, fl_expr **out, fl_error *err)
{
    bool pg = false; /* session functions (current_database()...): src/sql/pgcat */
    FL_TRY(fl_pgcat_bind_func(b, f, out, &pg, err));
    if (pg)
        return FL_OK;
    const char *name = func_name(b->a, f);
    if (!name)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (f->over)
        return bind_window(b, f, name, out, err);
    if (fl_func_exists(name, FL_FUNC_AGGREGATE) || f->agg_star)
        return bind_agg(b, f, name, out, err);
    if (fl_func_exists(name, FL_FUNC_WINDOW))
        return fl_front_err(b->pc, err, FL_EINVAL, f->location, "42809",
                            "window function %s requires an OVER clause", name);
    if (f->agg_distinct || f->agg_filter || f->n_agg_order)
        return fl_front_err(b->pc, err, FL_EINVAL, f->location, "42809",
                            "DISTINCT/FILTER/ORDER BY specified, but %s is not an aggregate "
                            "function",
                            name);
    fl_expr **args;
    FL_TRY(bind_args(b, f->args, f->n_args, &args, err));
    return call(b, name, args, (uint32_t)f->n_args, f->location, out, err);
}

static fl_status bind_bool(fl_bctx *b, const PgQuery__BoolExpr *x, fl_expr **out, fl_error *err)
{
    uint32_t n = (uint32_t)x->n_args;
    fl_expr_kind k = x->boolop == PG_QUERY__BOOL_EXPR_TYPE__AND_EXPR  ? FL_EXPR_AND
                     : x->boolop == PG_QUERY__BOOL_EXPR_TYPE__OR_EXPR ? FL_EXPR_OR
                                                                      : FL_EXPR_NOT;
    fl_expr *e = mk(b, k, FL_TYPE_BOOLEAN, n, x->location);
    if (!e)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        const Node *an = x->args[i];
        if (k == FL_EXPR_NOT && an->node_case == PG_QUERY__NODE__NODE_SUB_LINK)
            return fl_bind_sublink(b, an->sub_link, false, true, out, err);
        FL_TRY(fl_bind_expr(b, an, &e->args[i], err));
        FL_TRY(to_bool(b, &e->args[i], err));
    }
    *out = fl_front_fold(b->a, e);
    return FL_OK;
}

static fl_status bind_svf(fl_bctx *b, const PgQuery__SQLValueFunction *v, fl_expr **out,
                          fl_error *err)
{
    const char *name;
    switch (v->op) {
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_DATE:
        name = "current_date";
        break;
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIMESTAMP:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIMESTAMP_N:
        name = "current_timestamp";
        break;
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP_N:
        name = "localtimestamp";
        break;
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIME:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIME_N:
        name = "current_time";
        break;
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_SCHEMA:
        return fl_bind_const_string(b->a, b->pc->default_namespace ? b->pc->default_namespace
                                                                   : "default",
                                    v->location, out) == FL_OK
                   ? FL_OK
                   : fl_errorf(err, FL_ENOMEM, "out of memory");
    default: {
        bool pg = false; /* CURRENT_USER & co.: src/sql/pgcat */
        FL_TRY(fl_pgcat_bind_svf(b, v, out, &pg, err));
        if (pg)
            return FL_OK;
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, v->location, "0A000",
                            "this SQL value function is not supported");
    }
    }
    return call(b, name, NULL, 0, v->location, out, err);
}

static fl_status bind_node(fl_bctx *b, const PgQuery__Node *n, fl_expr **out, fl_error *err)
{
    if (!n)
        return fl_errorf(err, FL_EINVAL, "missing expression");
    for (uint32_t i = 0; i < b->nsrfs; i++) /* select-list SRFs (bind_srf.c) */
        if (b->srfs[i].node == n) {
            *out = b->srfs[i].expr;
            return FL_OK;
        }
    switch (n->node_case) {
    case PG_QUERY__NODE__NODE_A_CONST:
        return bind_const(b, n->a_const, out, err);
    case PG_QUERY__NODE__NODE_COLUMN_REF:
        return bind_column(b, n->column_ref, out, err);
    case PG_QUERY__NODE__NODE_PARAM_REF:
        return bind_param(b, n->param_ref, out, err);
    case PG_QUERY__NODE__NODE_A_EXPR:
        return bind_aexpr(b, n->a_expr, out, err);
    case PG_QUERY__NODE__NODE_BOOL_EXPR:
        return bind_bool(b, n->bool_expr, out, err);
    case PG_QUERY__NODE__NODE_TYPE_CAST:
        return bind_cast(b, n->type_cast, out, err);
    case PG_QUERY__NODE__NODE_FUNC_CALL:
        return bind_func(b, n->func_call, out, err);
    case PG_QUERY__NODE__NODE_ROW_EXPR: return fl_bind_row(b, n->row_expr, out, err);
    case PG_QUERY__NODE__NODE_CASE_EXPR:
        return bind_case(b, n->case_expr, out, err);
    case PG_QUERY__NODE__NODE_SQLVALUE_FUNCTION:
        return bind_svf(b, n->sqlvalue_function, out, err);
    case PG_QUERY__NODE__NODE_SUB_LINK: {
        fl_status rc; /* ARRAY(...) and the empty-catalog fallback: src/sql/pgcat */
        if (n->sub_link->sub_link_type == PG_QUERY__SUB_LINK_TYPE__ARRAY_SUBLINK)
            rc = fl_pgcat_bind_array_sublink(b, n->sub_link, out, err);
        else
            rc = fl_bind_sublink(b, n->sub_link, false, false, out, err);
        return fl_pgcat_sublink_fallback(b, n->sub_link, rc, out, err);
    }
    case PG_QUERY__NODE__NODE_NULL_TEST: {
        const PgQuery__NullTest *t = n->null_test;
        fl_expr *arg;
        FL_TRY(fl_bind_expr(b, t->arg, &arg, err));
        bool isnull = t->nulltesttype == PG_QUERY__NULL_TEST_TYPE__IS_NULL;
        fl_expr *e = mk(b, isnull ? FL_EXPR_IS_NULL : FL_EXPR_IS_NOT_NULL, FL_TYPE_BOOLEAN, 1,
                        t->location);
        if (!e)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        e->args[0] = arg;
        *out = fl_front_fold(b->a, e);
        return FL_OK;
    }
    case PG_QUERY__NODE__NODE_BOOLEAN_TEST: {
        const PgQuery__BooleanTest *t = n->boolean_test;
        fl_expr *arg;
        FL_TRY(fl_bind_expr(b, t->arg, &arg, err));
        FL_TRY(to_bool(b, &arg, err));
        fl_value v;
        memset(&v, 0, sizeof v);
        v.type.id = FL_TYPE_BOOLEAN;
        bool negated = false;
        switch (t->booltesttype) {
        case PG_QUERY__BOOL_TEST_TYPE__IS_TRUE:
            v.v.b = true;
            negated = true;
            break;
        case PG_QUERY__BOOL_TEST_TYPE__IS_NOT_TRUE:
            v.v.b = true;
            break;
        case PG_QUERY__BOOL_TEST_TYPE__IS_FALSE:
            negated = true;
            break;
        case PG_QUERY__BOOL_TEST_TYPE__IS_NOT_FALSE:
            break;
        case PG_QUERY__BOOL_TEST_TYPE__IS_UNKNOWN:
            v.is_null = true;
            negated = true;
            break;
        default:
            v.is_null = true;
            break;
        }
        fl_expr *e = mk(b, FL_EXPR_IS_DISTINCT, FL_TYPE_BOOLEAN, 2, t->location);
        fl_expr *c = fl_expr_const(b->a, &v);
        if (!e || !c)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        e->args[0] = arg;
        e->args[1] = c;
        e->negated = negated; /* IS TRUE == IS NOT DISTINCT FROM true */
        *out = fl_front_fold(b->a, e);
        return FL_OK;
    }
    case PG_QUERY__NODE__NODE_COALESCE_EXPR: {
        const PgQuery__CoalesceExpr *c = n->coalesce_expr;
        fl_expr **args;
        FL_TRY(bind_args(b, c->args, c->n_args, &args, err));
        FL_TRY(coerce_all(b, args, (uint32_t)c->n_args, c->location, err));
        fl_expr *e = fl_expr_new(b->a, FL_EXPR_COALESCE, &args[0]->type, (uint32_t)c->n_args);
        if (!e)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (size_t i = 0; i < c->n_args; i++)
            e->args[i] = args[i];
        e->location = c->location;
        *out = fl_front_fold(b->a, e);
        return FL_OK;
    }
    case PG_QUERY__NODE__NODE_MIN_MAX_EXPR: {
        const PgQuery__MinMaxExpr *m = n->min_max_expr;
        fl_expr **args;
        FL_TRY(bind_args(b, m->args, m->n_args, &args, err));
        FL_TRY(coerce_all(b, args, (uint32_t)m->n_args, m->location, err));
        return call(b, m->op == PG_QUERY__MIN_MAX_OP__IS_GREATEST ? "greatest" : "least", args,
                    (uint32_t)m->n_args, m->location, out, err);
    }
    default: {
        bool pg = false; /* ARRAY[...], x[i], COLLATE: src/sql/pgcat */
        FL_TRY(fl_pgcat_bind_expr(b, n, out, &pg, err));
        if (pg)
            return FL_OK;
        const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(
            &pg_query__node__descriptor, (unsigned)n->node_case);
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, -1, "0A000",
                            "unsupported expression (%s)", fd ? fd->name : "unknown node");
    }
    }
}

/* Every expression level is counted (depth.h): the parse tree was bounded,
 * but views and rewrites bind more than one tree per statement. */
fl_status fl_bind_expr(fl_bctx *b, const PgQuery__Node *n, fl_expr **out, fl_error *err)
{
    FL_TRY(fl_depth_enter(b->pc, (const ProtobufCMessage *)n, 1, err));
    fl_status rc = bind_node(b, n, out, err);
    fl_depth_leave(b->pc, 1);
    return rc;
}

const char *fl_front_node_name(const PgQuery__Node *n)
{
    if (!n)
        return "?column?";
    switch (n->node_case) {
    case PG_QUERY__NODE__NODE_COLUMN_REF: {
        const PgQuery__ColumnRef *c = n->column_ref;
        const char *s = c->n_fields ? fl_front_str(c->fields[c->n_fields - 1]) : NULL;
        return s ? s : "?column?";
    }
    case PG_QUERY__NODE__NODE_FUNC_CALL: {
        const PgQuery__FuncCall *f = n->func_call;
        const char *s = f->n_funcname ? fl_front_str(f->funcname[f->n_funcname - 1]) : NULL;
        return s ? s : "?column?";
    }
    case PG_QUERY__NODE__NODE_TYPE_CAST: {
        const PgQuery__TypeCast *t = n->type_cast;
        if (t->arg && t->arg->node_case != PG_QUERY__NODE__NODE_A_CONST)
            return fl_front_node_name(t->arg);
        const PgQuery__TypeName *tn = t->type_name;
        const char *s = tn->n_names ? fl_front_str(tn->names[tn->n_names - 1]) : NULL;
        if (s && strcmp(s, "int4") == 0)
            return "int4";
        return s ? s : "?column?";
    }
    case PG_QUERY__NODE__NODE_ROW_EXPR:
        return "row"; /* PostgreSQL's name for ROW(...) */
    case PG_QUERY__NODE__NODE_A_INDIRECTION: { /* (f(x)).name */
        const PgQuery__AIndirection *ai = n->a_indirection;
        const char *s = ai->n_indirection ? fl_front_str(ai->indirection[ai->n_indirection - 1])
                                          : NULL;
        return s ? s : fl_front_node_name(ai->arg);
    }
    case PG_QUERY__NODE__NODE_SUB_LINK:
        if (n->sub_link->sub_link_type == PG_QUERY__SUB_LINK_TYPE__EXPR_SUBLINK &&
            n->sub_link->subselect &&
            n->sub_link->subselect->node_case == PG_QUERY__NODE__NODE_SELECT_STMT) {
            /* (SELECT x ...) is named after its single target, as PostgreSQL does */
            const PgQuery__SelectStmt *st = n->sub_link->subselect->select_stmt;
            if (st->n_target_list == 1 &&
                st->target_list[0]->node_case == PG_QUERY__NODE__NODE_RES_TARGET) {
                const PgQuery__ResTarget *rt = st->target_list[0]->res_target;
                return rt->name && rt->name[0] ? rt->name : fl_front_node_name(rt->val);
            }
        }
        return n->sub_link->sub_link_type == PG_QUERY__SUB_LINK_TYPE__EXISTS_SUBLINK ? "exists"
                                                                                     : "?column?";
    case PG_QUERY__NODE__NODE_CASE_EXPR:
        return "case";
    case PG_QUERY__NODE__NODE_COALESCE_EXPR:
        return "coalesce";
    case PG_QUERY__NODE__NODE_MIN_MAX_EXPR:
        return n->min_max_expr->op == PG_QUERY__MIN_MAX_OP__IS_GREATEST ? "greatest" : "least";
    case PG_QUERY__NODE__NODE_SQLVALUE_FUNCTION:
        switch (n->sqlvalue_function->op) {
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_DATE:
            return "current_date";
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIMESTAMP:
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIMESTAMP_N:
            return "current_timestamp";
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP:
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP_N:
            return "localtimestamp";
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIME:
        case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIME_N:
            return "current_time";
        default:
            return "?column?";
        }
    default:
        return "?column?";
    }
}
