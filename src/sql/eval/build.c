/*
 * build.c - constructing bound expressions (binder, optimizer, tests),
 * rendering them for EXPLAIN and error messages, and constant folding.
 *
 * fl_expr_call resolves the function through the registry (func.h), wraps
 * each argument whose type differs from the chosen overload's in a CAST,
 * and lets the function's bind() prepare read-only data (compiled LIKE
 * patterns, regexes). Casting a constant folds it at once, except casts
 * whose result depends on the session time zone (text/timestamp/date to
 * timestamptz and back), which stay CAST nodes and are computed at
 * execution against fl_eval_env.time_zone.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sql/func/func_internal.h"

fl_expr *fl_expr_new(fl_arena *a, fl_expr_kind kind, const fl_type *t, uint32_t nargs)
{
    fl_expr *e = fl_arena_calloc(a, 1, sizeof *e);
    if (!e)
        return NULL;
    e->kind = kind;
    if (t)
        e->type = *t;
    e->location = -1;
    e->nargs = nargs;
    if (nargs) {
        e->args = fl_arena_calloc(a, nargs, sizeof *e->args);
        if (!e->args)
            return NULL;
    }
    return e;
}

fl_expr *fl_expr_column(fl_arena *a, uint32_t column, const fl_type *t)
{
    fl_expr *e = fl_expr_new(a, FL_EXPR_COLUMN, t, 0);
    if (e)
        e->column = column;
    return e;
}

fl_expr *fl_expr_const(fl_arena *a, const fl_value *v)
{
    fl_expr *e = fl_expr_new(a, FL_EXPR_CONST, &v->type, 0);
    if (!e)
        return NULL;
    e->value = *v;
    e->type.nchildren = 0;
    e->type.children = NULL;
    e->value.type = e->type;
    if (!v->is_null && (fl_type_is_varlen(&v->type) || v->type.id == FL_TYPE_UUID || v->type.id == FL_TYPE_FIXED)) {
        uint8_t *c = fl_arena_alloc(a, v->v.bytes.len ? v->v.bytes.len : 1);
        if (!c)
            return NULL;
        if (v->v.bytes.len)
            memcpy(c, v->v.bytes.ptr, v->v.bytes.len);
        e->value.v.bytes.ptr = c;
    }
    return e;
}

static bool tz_dependent(const fl_type *from, const fl_type *to)
{
    bool ftz = from->id == FL_TYPE_TIMESTAMPTZ || from->id == FL_TYPE_TIMESTAMPTZ_NS;
    bool ttz = to->id == FL_TYPE_TIMESTAMPTZ || to->id == FL_TYPE_TIMESTAMPTZ_NS;
    if (ftz == ttz)
        return false;
    return true; /* any cast into or out of a zoned type reads the session zone */
}

fl_status fl_expr_cast(fl_arena *a, fl_expr *arg, const fl_type *t, fl_expr **out, fl_error *err)
{
    if (fl_type_equal(&arg->type, t) && fl_is_unknown(&arg->type) == fl_is_unknown(t) &&
        fl_type_is_interval(&arg->type) == fl_type_is_interval(t)) {
        *out = arg;
        return FL_OK;
    }
    if (!fl_cast_allowed(&arg->type, t, false)) {
        char x[64], y[64];
        return fl_error_state(err, FL_ETYPE, "42846", "cannot cast type %s to %s",
                              fl_sql_type_name(&arg->type, x, sizeof x),
                              fl_sql_type_name(t, y, sizeof y));
    }
    if (arg->kind == FL_EXPR_CONST && !tz_dependent(&arg->type, t) && !fl_type_is_nested(t)) {
        fl_value v;
        fl_type from = arg->type;
        fl_value in = arg->value;
        in.type = from;
        if (fl_is_unknown(&from))
            in.type.fixed_len = 0;
        FL_TRY(fl_cast_value(&in, t, NULL, a, &v, err));
        fl_expr *c = fl_expr_const(a, &v);
        if (!c)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        c->location = arg->location;
        c->alias = arg->alias;
        *out = c;
        return FL_OK;
    }
    fl_expr *c = fl_expr_new(a, FL_EXPR_CAST, t, 1);
    if (!c)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    c->args[0] = arg;
    c->location = arg->location;
    *out = c;
    return FL_OK;
}

/* An unknown literal next to a number takes its own natural numeric type
 * (PostgreSQL resolves it as numeric), so decimal_col + '0.005' keeps the
 * literal's digits instead of rounding it to the column's scale. */
static fl_expr *natural_numeric(fl_arena *a, fl_expr *lit)
{
    const char *s = (const char *)lit->value.v.bytes.ptr;
    size_t n = lit->value.v.bytes.len, i = 0;
    while (i < n && s[i] == ' ')
        i++;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        i++;
    int32_t digits = 0, scale = 0;
    bool point = false;
    for (; i < n; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            digits++;
            if (point)
                scale++;
        } else if (s[i] == '.' && !point)
            point = true;
        else if (s[i] != ' ')
            return NULL;
    }
    if (!digits || digits > 38)
        return NULL;
    fl_type t;
    if (!point)
        t = digits <= 9 ? fl_mk(FL_TYPE_INT32) : digits <= 18 ? fl_mk(FL_TYPE_INT64) : fl_mk_dec(38, 0);
    else
        t = fl_mk_dec(digits > scale ? digits : scale + 1, scale);
    fl_type *tp = fl_arena_alloc(a, sizeof *tp);
    if (!tp)
        return NULL;
    *tp = t;
    fl_expr *out;
    fl_error e;
    if (fl_expr_cast(a, lit, tp, &out, &e) != FL_OK)
        return NULL;
    return out;
}

fl_status fl_expr_call(fl_arena *a, const char *fn_name, fl_expr **args, uint32_t nargs, int32_t location,
                       fl_expr **out, fl_error *err)
{
    bool numeric_ctx = false;
    for (uint32_t i = 0; i < nargs; i++)
        numeric_ctx |= fl_is_numeric(&args[i]->type);
    if (numeric_ctx && nargs <= 3)
        for (uint32_t i = 0; i < nargs; i++)
            if (args[i]->kind == FL_EXPR_CONST && fl_is_unknown(&args[i]->type) && !args[i]->value.is_null) {
                fl_expr *t = natural_numeric(a, args[i]);
                if (t)
                    args[i] = t;
            }
    fl_type *types = malloc(sizeof(fl_type) * (nargs ? nargs : 1));
    fl_type *targets = malloc(sizeof(fl_type) * (nargs ? nargs : 1));
    if (!types || !targets) {
        free(types);
        free(targets);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < nargs; i++)
        types[i] = args[i]->type;
    fl_func_binding b;
    fl_status rc = fl_func_resolve_all(fn_name, FL_FUNC_SCALAR, types, nargs, &b, targets, err);
    fl_expr *e = NULL;
    if (rc == FL_OK) {
        e = fl_expr_new(a, FL_EXPR_CALL, &b.result, nargs);
        if (!e)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    for (uint32_t i = 0; rc == FL_OK && i < nargs; i++)
        rc = fl_expr_cast(a, args[i], &targets[i], &e->args[i], err);
    free(types);
    free(targets);
    if (rc)
        return rc;
    e->fn = b.fn;
    e->location = location;
    if (b.fn->refine)
        b.fn->refine(e);
    if (b.fn->bind)
        FL_TRY(b.fn->bind(e, a, &e->bind_data, err));
    *out = e;
    return FL_OK;
}

bool fl_expr_is_constant(const fl_expr *e)
{
    switch (e->kind) {
    case FL_EXPR_COLUMN:
    case FL_EXPR_PARAM:
    case FL_EXPR_SUBQUERY: return false;
    case FL_EXPR_CALL:
        if (!e->fn->deterministic || e->fn->uses_env)
            return false;
        break;
    case FL_EXPR_CAST:
        if (tz_dependent(&e->args[0]->type, &e->type))
            return false;
        break;
    default: break;
    }
    for (uint32_t i = 0; i < e->nargs; i++)
        if (!fl_expr_is_constant(e->args[i]))
            return false;
    return true;
}

/* ---- rendering ---- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
    bool oom;
} sbuf;

static void sb_add(sbuf *s, const char *t, size_t n)
{
    if (s->oom)
        return;
    if (s->len + n + 1 > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 128;
        while (nc < s->len + n + 1)
            nc *= 2;
        char *np = realloc(s->p, nc);
        if (!np) {
            s->oom = true;
            return;
        }
        s->p = np;
        s->cap = nc;
    }
    memcpy(s->p + s->len, t, n);
    s->len += n;
    s->p[s->len] = 0;
}
static void sb_str(sbuf *s, const char *t)
{
    sb_add(s, t, strlen(t));
}

static const char *op_word(const char *name)
{
    static const struct {
        const char *op, *word;
    } m[] = {{"~~", "LIKE"}, {"!~~", "NOT LIKE"}, {"~~*", "ILIKE"}, {"!~~*", "NOT ILIKE"}};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (!strcmp(m[i].op, name))
            return m[i].word;
    return name;
}

static bool is_op(const char *n)
{
    return n[0] && !((n[0] >= 'a' && n[0] <= 'z') || n[0] == '_');
}

static void render(sbuf *s, const fl_expr *e, int depth);

static void render_const(sbuf *s, const fl_value *v)
{
    if (v->is_null) {
        sb_str(s, "NULL");
        return;
    }
    fl_vector vec;
    fl_error err;
    if (fl_vector_init(&vec, &v->type, &err) || fl_value_to_vector(v, &vec, &err)) {
        fl_vector_destroy(&vec);
        sb_str(s, "?");
        return;
    }
    char small[256];
    size_t n = fl_format_flat_row(&vec, 0, NULL, small, sizeof small);
    bool quote = !(fl_is_numeric(&v->type) || v->type.id == FL_TYPE_BOOLEAN);
    if (v->type.id == FL_TYPE_BOOLEAN) {
        sb_str(s, v->v.b ? "true" : "false");
    } else {
        if (quote)
            sb_str(s, "'");
        sb_add(s, small, n < sizeof small ? n : sizeof small - 1);
        if (n >= sizeof small)
            sb_str(s, "...");
        if (quote)
            sb_str(s, "'");
        if (quote && !fl_is_string(&v->type)) {
            char tn[64];
            sb_str(s, "::");
            sb_str(s, fl_sql_type_name(&v->type, tn, sizeof tn));
        }
    }
    fl_vector_destroy(&vec);
}

static void render_list(sbuf *s, const fl_expr *e, uint32_t from, int depth)
{
    for (uint32_t i = from; i < e->nargs; i++) {
        if (i > from)
            sb_str(s, ", ");
        render(s, e->args[i], depth + 1);
    }
}

static void render(sbuf *s, const fl_expr *e, int depth)
{
    char b[64];
    if (depth > 200) {
        sb_str(s, "...");
        return;
    }
    switch (e->kind) {
    case FL_EXPR_COLUMN:
        if (e->alias)
            sb_str(s, e->alias);
        else {
            snprintf(b, sizeof b, "#%u", e->column);
            sb_str(s, b);
        }
        return;
    case FL_EXPR_CONST: render_const(s, &e->value); return;
    case FL_EXPR_PARAM:
        snprintf(b, sizeof b, "$%u", e->param + 1);
        sb_str(s, b);
        return;
    case FL_EXPR_CALL: {
        const char *n = e->fn ? e->fn->name : "?";
        if (is_op(n) && e->nargs == 2) {
            sb_str(s, "(");
            render(s, e->args[0], depth + 1);
            sb_str(s, " ");
            sb_str(s, op_word(n));
            sb_str(s, " ");
            render(s, e->args[1], depth + 1);
            sb_str(s, ")");
        } else if (is_op(n) && e->nargs == 1) {
            sb_str(s, "(");
            sb_str(s, n);
            render(s, e->args[0], depth + 1);
            sb_str(s, ")");
        } else {
            sb_str(s, n);
            sb_str(s, "(");
            render_list(s, e, 0, depth);
            sb_str(s, ")");
        }
        return;
    }
    case FL_EXPR_CAST:
        sb_str(s, e->lenient ? "TRY_CAST(" : "CAST(");
        render(s, e->args[0], depth + 1);
        sb_str(s, " AS ");
        sb_str(s, fl_sql_type_name(&e->type, b, sizeof b));
        sb_str(s, ")");
        return;
    case FL_EXPR_AND:
    case FL_EXPR_OR:
        sb_str(s, "(");
        for (uint32_t i = 0; i < e->nargs; i++) {
            if (i)
                sb_str(s, e->kind == FL_EXPR_AND ? " AND " : " OR ");
            render(s, e->args[i], depth + 1);
        }
        sb_str(s, ")");
        return;
    case FL_EXPR_NOT:
        sb_str(s, "(NOT ");
        render(s, e->args[0], depth + 1);
        sb_str(s, ")");
        return;
    case FL_EXPR_IS_NULL:
    case FL_EXPR_IS_NOT_NULL:
        sb_str(s, "(");
        render(s, e->args[0], depth + 1);
        sb_str(s, e->kind == FL_EXPR_IS_NULL ? " IS NULL)" : " IS NOT NULL)");
        return;
    case FL_EXPR_IS_DISTINCT:
        sb_str(s, "(");
        render(s, e->args[0], depth + 1);
        sb_str(s, e->negated ? " IS NOT DISTINCT FROM " : " IS DISTINCT FROM ");
        render(s, e->args[1], depth + 1);
        sb_str(s, ")");
        return;
    case FL_EXPR_CASE:
        sb_str(s, "CASE");
        for (uint32_t i = 0; i + 1 < e->nargs; i += 2) {
            sb_str(s, " WHEN ");
            render(s, e->args[i], depth + 1);
            sb_str(s, " THEN ");
            render(s, e->args[i + 1], depth + 1);
        }
        if (e->nargs % 2 == 1) {
            sb_str(s, " ELSE ");
            render(s, e->args[e->nargs - 1], depth + 1);
        }
        sb_str(s, " END");
        return;
    case FL_EXPR_COALESCE:
        sb_str(s, "COALESCE(");
        render_list(s, e, 0, depth);
        sb_str(s, ")");
        return;
    case FL_EXPR_IN_LIST:
        sb_str(s, "(");
        if (e->nargs)
            render(s, e->args[0], depth + 1);
        sb_str(s, e->negated ? " NOT IN (" : " IN (");
        render_list(s, e, 1, depth);
        sb_str(s, "))");
        return;
    case FL_EXPR_SUBQUERY: sb_str(s, "(subquery)"); return;
    }
    sb_str(s, "?");
}

const char *fl_expr_to_string(const fl_expr *e, fl_arena *a)
{
    sbuf s = {0};
    render(&s, e, 0);
    const char *r = s.oom || !s.p ? fl_arena_strdup(a, "?") : fl_arena_strndup(a, s.p, s.len);
    free(s.p);
    return r;
}

/* ---- folding ---- */

fl_status fl_expr_fold(const fl_expr *e, fl_arena *a, fl_value *out, fl_error *err)
{
    if (e->kind == FL_EXPR_CONST) {
        *out = e->value;
        if (!out->is_null && (fl_type_is_varlen(&e->type) || e->type.id == FL_TYPE_UUID || e->type.id == FL_TYPE_FIXED)) {
            uint8_t *c = fl_arena_alloc(a, out->v.bytes.len ? out->v.bytes.len : 1);
            if (!c)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            memcpy(c, e->value.v.bytes.ptr, out->v.bytes.len);
            out->v.bytes.ptr = c;
        }
        return FL_OK;
    }
    fl_eval_env env;
    memset(&env, 0, sizeof env);
    env.time_zone = "UTC";
    fl_eval_state *st;
    FL_TRY(fl_eval_state_new(&env, &st, err));
    fl_batch in;
    memset(&in, 0, sizeof in);
    in.nrows = 1;
    fl_vector v;
    fl_status rc = fl_vector_init(&v, &e->type, err);
    if (rc == FL_OK)
        rc = fl_expr_eval(st, e, &in, NULL, &v, err);
    if (rc == FL_OK)
        rc = fl_vector_to_value(&v, 0, a, out, err);
    fl_vector_destroy(&v);
    fl_eval_state_free(st);
    return rc;
}
