/*
 * sql_expr.c - expressions of a statement over semantic.metrics (sem_sql.h)
 * written back as SQL: in a filter of the semantic query a member becomes
 * {{ Dimension('x') }} (filter.c turns it into the joined column), in the
 * wrapper over the compiled query members and metrics become q."name".
 * Only what a dashboard writes is taken: members, MEASURE() and the
 * matching aggregates, literals and casts of them, comparison and
 * arithmetic operators, IN, LIKE, BETWEEN, IS [NOT] NULL, AND/OR/NOT and
 * plain function calls; anything else is refused with its position rather
 * than guessed at. A string holding "{{" or "}}" is refused in filters (it
 * would be read as a template).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "semantic/sql_api.h"

int32_t sq_pos(json_t *n)
{
    if (!json_is_object(n))
        return 0;
    const char *k;
    json_t *v;
    json_object_foreach(n, k, v)
    {
        json_t *loc = json_object_get(v, "location");
        if (json_is_integer(loc) && json_integer_value(loc) >= 0)
            return (int32_t)json_integer_value(loc) + 1;
    }
    return 0;
}

fl_status sq_fail(sq_ctx *c, json_t *n, const char *sqlstate, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->pos = sq_pos(n);
    fl_status code = !strcmp(sqlstate, "42703")   ? FL_ENOTFOUND
                     : !strcmp(sqlstate, "0A000") ? FL_EUNSUPPORTED
                                                  : FL_EINVAL;
    return fl_error_state(c->err, code, sqlstate, "%s.%s: %s", FL_SEM_SQL_SCHEMA, FL_SEM_SQL_TABLE,
                          msg);
}

static json_t *node(json_t *n, const char *kind)
{
    return json_is_object(n) ? json_object_get(n, kind) : NULL;
}

static const char *str_node(json_t *n)
{
    return json_string_value(json_object_get(node(n, "String"), "sval"));
}

/* The column name of a ColumnRef: "x", or "alias"."x" for FROM's alias. */
static const char *column_name(sq_ctx *c, json_t *ref)
{
    json_t *f = json_object_get(ref, "fields");
    size_t n = json_array_size(f);
    if (n == 1)
        return str_node(json_array_get(f, 0));
    const char *q = n == 2 ? str_node(json_array_get(f, 0)) : NULL;
    bool ok = q && (c->alias ? !strcmp(q, c->alias) : !strcmp(q, FL_SEM_SQL_TABLE));
    return ok ? str_node(json_array_get(f, 1)) : NULL;
}

static const char *func_name(json_t *fc)
{
    json_t *names = json_object_get(fc, "funcname");
    size_t n = json_array_size(names);
    const char *first = n ? str_node(json_array_get(names, 0)) : NULL;
    if (n == 2 && first && !strcmp(first, "pg_catalog"))
        return str_node(json_array_get(names, 1));
    return n == 1 ? first : NULL;
}

static bool is_metric(sq_ctx *c, const char *name)
{
    return sem_find_metric(c->m, name) != NULL;
}

/* agg(m) for a simple metric m whose measure aggregates with agg. */
static fl_status agg_metric(sq_ctx *c, json_t *n, const char *fn, const char *name, bool distinct)
{
    const sem_metric *mt = sem_find_metric(c->m, name);
    const sem_measure *ms = NULL;
    if (mt && mt->type == SEM_SIMPLE && mt->measure.name)
        sem_find_measure(c->m, mt->measure.name, &ms);
    const char *want = !ms                                  ? NULL
                       : !strcmp(ms->agg, "sum")            ? "sum"
                       : !strcmp(ms->agg, "count")          ? "count"
                       : !strcmp(ms->agg, "min")            ? "min"
                       : !strcmp(ms->agg, "max")            ? "max"
                       : !strcmp(ms->agg, "average")        ? "avg"
                       : !strcmp(ms->agg, "count_distinct") ? "count_distinct"
                                                            : NULL;
    char got[40];
    snprintf(got, sizeof got, "%s%s", fn, distinct ? "_distinct" : "");
    if (want && !strcmp(want, got))
        return FL_OK;
    return sq_fail(c, n, "42803", "%s(%s%s): metric '%s' is %s; read it with MEASURE(%s)", fn,
                   distinct ? "DISTINCT " : "", name, name,
                   want ? fl_arena_sprintf(c->a, "aggregated with %s", want)
                        : fl_arena_sprintf(c->a, "a %s metric", mt ? mt->type_name : "?"),
                   name);
}

static fl_status func_member(sq_ctx *c, json_t *n, json_t *fc, const char **name, bool *metric)
{
    const char *fn = func_name(fc);
    json_t *args = json_object_get(fc, "args");
    if (!fn)
        return FL_OK;
    if (!strcmp(fn, "date_trunc") && json_array_size(args) == 2) {
        json_t *g = node(json_array_get(args, 0), "A_Const");
        json_t *col = node(json_array_get(args, 1), "ColumnRef");
        const char *grain = json_string_value(json_object_get(json_object_get(g, "sval"), "sval"));
        const char *dim = col ? column_name(c, col) : NULL;
        if (!grain || !dim)
            return sq_fail(c, n, "0A000",
                           "date_trunc takes a grain literal and a time dimension here");
        for (const char *p = grain; *p; p++)
            if (!islower((unsigned char)*p))
                return sq_fail(c, n, "22023", "date_trunc: '%s' is not a time grain", grain);
        *name = fl_arena_sprintf(c->a, "%s__%s", dim, grain);
        *metric = false;
        return FL_OK;
    }
    static const char *const aggs[] = {"measure", "sum", "count", "min", "max", "avg"};
    bool agg = false;
    for (size_t i = 0; i < sizeof aggs / sizeof aggs[0]; i++)
        agg |= !strcmp(fn, aggs[i]);
    if (!agg)
        return FL_OK;
    json_t *col = json_array_size(args) == 1 ? node(json_array_get(args, 0), "ColumnRef") : NULL;
    const char *m = col ? column_name(c, col) : NULL;
    if (!m || json_object_get(fc, "over") || json_object_get(fc, "agg_filter") ||
        json_object_get(fc, "agg_order"))
        return sq_fail(c, n, "0A000",
                       "%s() takes one metric here (MEASURE(net_revenue)); no *, FILTER, "
                       "ORDER BY or OVER",
                       fn);
    if (!is_metric(c, m))
        return sq_fail(c, n, "42703", "no metric '%s' in the model (floe semantic list shows them)",
                       m);
    if (strcmp(fn, "measure"))
        FL_TRY(agg_metric(c, n, fn, m, json_is_true(json_object_get(fc, "agg_distinct"))));
    *name = m;
    *metric = true;
    return FL_OK;
}

fl_status sq_member(sq_ctx *c, json_t *n, const char **name, bool *metric)
{
    *name = NULL;
    *metric = false;
    json_t *ref = node(n, "ColumnRef");
    if (ref) {
        const char *col = column_name(c, ref);
        if (!col)
            return sq_fail(c, n, "42703",
                           "not a column of %s.%s (columns are its dimensions and metrics)",
                           FL_SEM_SQL_SCHEMA, FL_SEM_SQL_TABLE);
        if (is_metric(c, col))
            return sq_fail(c, n, "42803", "metric '%s' is an aggregate: read it with MEASURE(%s)",
                           col, col);
        *name = col;
        *metric = false;
        return FL_OK;
    }
    json_t *fc = node(n, "FuncCall");
    return fc ? func_member(c, n, fc, name, metric) : FL_OK;
}

fl_status sq_add_metric(sq_ctx *c, json_t *at, const char *name)
{
    for (uint32_t i = 0; i < c->nmetrics; i++)
        if (!strcmp(c->metrics[i], name))
            return FL_OK;
    if (c->nmetrics == SQ_MAX)
        return sq_fail(c, at, "54000", "more than %d metrics", SQ_MAX);
    c->metrics[c->nmetrics++] = name;
    return FL_OK;
}

fl_status sq_add_group(sq_ctx *c, json_t *at, const char *name)
{
    for (uint32_t i = 0; i < c->ngroup_by; i++)
        if (!strcmp(c->group_by[i], name))
            return FL_OK;
    if (c->ngroup_by == SQ_MAX)
        return sq_fail(c, at, "54000", "more than %d group-by members", SQ_MAX);
    c->group_by[c->ngroup_by++] = name;
    return FL_OK;
}

fl_status sq_ident(sq_ctx *c, const char *name, fl_buf *out)
{
    FL_TRY(fl_buf_putc(out, '"', c->err));
    for (const char *p = name; *p; p++)
        FL_TRY(*p == '"' ? fl_buf_puts(out, "\"\"", c->err) : fl_buf_putc(out, *p, c->err));
    return fl_buf_putc(out, '"', c->err);
}

static fl_status member_ref(sq_ctx *c, json_t *n, sq_mode mode, const char *name, bool metric,
                            fl_buf *out)
{
    if (mode == SQ_FILTER) {
        if (metric)
            return sq_fail(c, n, "42803", "metric '%s' in WHERE: filter metrics in HAVING", name);
        for (const char *p = name; *p; p++)
            if (!isalnum((unsigned char)*p) && *p != '_')
                return sq_fail(c, n, "42703", "'%s' is not a member name", name);
        return fl_buf_appendf(out, c->err, "{{ Dimension('%s') }}", name);
    }
    if (metric) {
        FL_TRY(sq_add_metric(c, n, name));
    } else {
        bool grouped = false;
        for (uint32_t i = 0; i < c->ngroup_by; i++)
            grouped |= !strcmp(c->group_by[i], name);
        if (!grouped)
            return sq_fail(c, n, "42803",
                           "column \"%s\" must appear in the GROUP BY clause or be used in "
                           "an aggregate function",
                           name);
    }
    FL_TRY(fl_buf_puts(out, "q.", c->err));
    return sq_ident(c, name, out);
}

static fl_status literal(sq_ctx *c, json_t *n, json_t *k, sq_mode mode, fl_buf *out)
{
    json_t *v;
    if (json_is_true(json_object_get(k, "isnull")))
        return fl_buf_puts(out, "NULL", c->err);
    if ((v = json_object_get(k, "ival")))
        return fl_buf_appendf(out, c->err, "%lld",
                              (long long)json_integer_value(json_object_get(v, "ival")));
    if ((v = json_object_get(k, "fval")))
        return fl_buf_puts(out, json_string_value(json_object_get(v, "fval")), c->err);
    if ((v = json_object_get(k, "boolval")))
        return fl_buf_puts(out, json_is_true(json_object_get(v, "boolval")) ? "true" : "false",
                           c->err);
    const char *s = json_string_value(json_object_get(json_object_get(k, "sval"), "sval"));
    if (!s)
        return sq_fail(c, n, "0A000", "this kind of constant is not taken here");
    if (mode == SQ_FILTER && (strstr(s, "{{") || strstr(s, "}}")))
        return sq_fail(c, n, "22023", "a string holding '{{' or '}}' is refused in filters");
    FL_TRY(fl_buf_putc(out, '\'', c->err));
    for (const char *p = s; *p; p++)
        FL_TRY(*p == '\'' ? fl_buf_puts(out, "''", c->err) : fl_buf_putc(out, *p, c->err));
    return fl_buf_putc(out, '\'', c->err);
}

static fl_status list(sq_ctx *c, json_t *items, sq_mode mode, const char *sep, fl_buf *out)
{
    for (size_t i = 0; i < json_array_size(items); i++) {
        if (i)
            FL_TRY(fl_buf_puts(out, sep, c->err));
        FL_TRY(sq_expr(c, json_array_get(items, i), mode, out));
    }
    return FL_OK;
}

static fl_status type_cast(sq_ctx *c, json_t *n, json_t *tc, sq_mode mode, fl_buf *out)
{
    json_t *names = json_object_get(json_object_get(tc, "typeName"), "names");
    const char *t = str_node(json_array_get(names, json_array_size(names) - 1));
    bool ok = t && *t && !json_object_get(json_object_get(tc, "typeName"), "arrayBounds");
    for (const char *p = t; ok && *p; p++)
        ok = isalnum((unsigned char)*p) || *p == '_';
    if (!ok)
        return sq_fail(c, n, "0A000", "this cast is not taken here");
    FL_TRY(fl_buf_puts(out, "CAST(", c->err));
    FL_TRY(sq_expr(c, json_object_get(tc, "arg"), mode, out));
    return fl_buf_appendf(out, c->err, " AS %s)", t);
}

static bool safe_op(const char *op)
{
    static const char *const ops[] = {
        "=", "<>", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "%", "||"};
    for (size_t i = 0; op && i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(op, ops[i]))
            return true;
    return false;
}

static fl_status a_expr(sq_ctx *c, json_t *n, json_t *x, sq_mode mode, fl_buf *out)
{
    const char *kind = json_string_value(json_object_get(x, "kind"));
    const char *op = str_node(json_array_get(json_object_get(x, "name"), 0));
    json_t *l = json_object_get(x, "lexpr"), *r = json_object_get(x, "rexpr");
    json_t *items = json_object_get(node(r, "List"), "items");
    const char *word = NULL;
    if (!kind || !op)
        return sq_fail(c, n, "0A000", "this operator is not taken here");
    if (!strcmp(kind, "AEXPR_OP") && safe_op(op)) {
        FL_TRY(fl_buf_putc(out, '(', c->err));
        if (l) {
            FL_TRY(sq_expr(c, l, mode, out));
            FL_TRY(fl_buf_putc(out, ' ', c->err));
        }
        FL_TRY(fl_buf_appendf(out, c->err, "%s ", op));
        FL_TRY(sq_expr(c, r, mode, out));
        return fl_buf_putc(out, ')', c->err);
    }
    if (!strcmp(kind, "AEXPR_IN") && items) {
        FL_TRY(fl_buf_putc(out, '(', c->err));
        FL_TRY(sq_expr(c, l, mode, out));
        FL_TRY(fl_buf_puts(out, strcmp(op, "=") ? " NOT IN (" : " IN (", c->err));
        FL_TRY(list(c, items, mode, ", ", out));
        return fl_buf_puts(out, "))", c->err);
    }
    if (!strcmp(kind, "AEXPR_LIKE") || !strcmp(kind, "AEXPR_ILIKE")) {
        bool ilike = !strcmp(kind, "AEXPR_ILIKE");
        word =
            op[0] == '!' ? (ilike ? " NOT ILIKE " : " NOT LIKE ") : (ilike ? " ILIKE " : " LIKE ");
    } else if (!strcmp(kind, "AEXPR_BETWEEN") || !strcmp(kind, "AEXPR_NOT_BETWEEN")) {
        if (json_array_size(items) != 2)
            return sq_fail(c, n, "0A000", "BETWEEN needs two bounds");
        FL_TRY(fl_buf_putc(out, '(', c->err));
        FL_TRY(sq_expr(c, l, mode, out));
        FL_TRY(fl_buf_puts(out, strcmp(kind, "AEXPR_BETWEEN") ? " NOT BETWEEN " : " BETWEEN ",
                           c->err));
        FL_TRY(list(c, items, mode, " AND ", out));
        return fl_buf_putc(out, ')', c->err);
    }
    if (!word)
        return sq_fail(c, n, "0A000", "operator %s is not taken here", op);
    FL_TRY(fl_buf_putc(out, '(', c->err));
    FL_TRY(sq_expr(c, l, mode, out));
    FL_TRY(fl_buf_puts(out, word, c->err));
    FL_TRY(sq_expr(c, r, mode, out));
    return fl_buf_putc(out, ')', c->err);
}

static fl_status bool_expr(sq_ctx *c, json_t *n, json_t *b, sq_mode mode, fl_buf *out)
{
    const char *op = json_string_value(json_object_get(b, "boolop"));
    json_t *args = json_object_get(b, "args");
    if (op && !strcmp(op, "NOT_EXPR")) {
        FL_TRY(fl_buf_puts(out, "(NOT ", c->err));
        FL_TRY(sq_expr(c, json_array_get(args, 0), mode, out));
        return fl_buf_putc(out, ')', c->err);
    }
    if (!op || (strcmp(op, "AND_EXPR") && strcmp(op, "OR_EXPR")))
        return sq_fail(c, n, "0A000", "this boolean expression is not taken here");
    FL_TRY(fl_buf_putc(out, '(', c->err));
    FL_TRY(list(c, args, mode, strcmp(op, "AND_EXPR") ? " OR " : " AND ", out));
    return fl_buf_putc(out, ')', c->err);
}

static fl_status plain_call(sq_ctx *c, json_t *n, json_t *fc, sq_mode mode, fl_buf *out)
{
    const char *fn = func_name(fc);
    bool ok = fn && !json_object_get(fc, "over") &&
              !json_is_true(json_object_get(fc, "agg_star")) &&
              !json_is_true(json_object_get(fc, "agg_distinct"));
    for (const char *p = fn; ok && *p; p++)
        ok = isalnum((unsigned char)*p) || *p == '_';
    if (!ok)
        return sq_fail(c, n, "0A000", "this function call is not taken here");
    FL_TRY(fl_buf_appendf(out, c->err, "%s(", fn));
    FL_TRY(list(c, json_object_get(fc, "args"), mode, ", ", out));
    return fl_buf_putc(out, ')', c->err);
}

fl_status sq_expr(sq_ctx *c, json_t *n, sq_mode mode, fl_buf *out)
{
    const char *name = NULL;
    bool metric = false;
    FL_TRY(sq_member(c, n, &name, &metric));
    if (name)
        return member_ref(c, n, mode, name, metric, out);
    json_t *k;
    if ((k = node(n, "A_Const")))
        return literal(c, n, k, mode, out);
    if ((k = node(n, "TypeCast")))
        return type_cast(c, n, k, mode, out);
    if ((k = node(n, "A_Expr")))
        return a_expr(c, n, k, mode, out);
    if ((k = node(n, "BoolExpr")))
        return bool_expr(c, n, k, mode, out);
    if ((k = node(n, "NullTest"))) {
        const char *t = json_string_value(json_object_get(k, "nulltesttype"));
        FL_TRY(fl_buf_putc(out, '(', c->err));
        FL_TRY(sq_expr(c, json_object_get(k, "arg"), mode, out));
        return fl_buf_puts(out, t && !strcmp(t, "IS_NOT_NULL") ? " IS NOT NULL)" : " IS NULL)",
                           c->err);
    }
    if ((k = node(n, "FuncCall")))
        return plain_call(c, n, k, mode, out);
    if (node(n, "ParamRef"))
        return sq_fail(c, n, "0A000", "parameters ($n) are not taken yet; inline the value");
    return sq_fail(c, n, "0A000", "this expression is not taken here");
}
