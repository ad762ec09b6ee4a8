/*
 * func_test_util.h - helpers for the expression/function unit tests:
 * build columns from text (through floe's own text casts), expressions from
 * names, evaluate and render each row with fl_sql_format_value, rows joined
 * by '|' and NULL spelled "NULL".
 */
#ifndef FLOE_TEST_FUNC_UTIL_H
#define FLOE_TEST_FUNC_UTIL_H

#include <stdarg.h>

#include "floe/sql.h"
#include "sql/expr.h"
#include "sql/func.h"
#include "test.h"

static fl_arena T_arena;
static fl_eval_env T_env = {.time_zone = "UTC", .statement_time_us = 1700000000123456LL};
static fl_error T_err;

static inline void t_init(void)
{
    fl_arena_init(&T_arena, 0);
}

static inline fl_type t_type(const char *spec)
{
    /* "numeric(10,2)" or a bare name */
    char name[64];
    int32_t mods[2];
    uint32_t nm = 0;
    const char *p = strchr(spec, '(');
    size_t l = p ? (size_t)(p - spec) : strlen(spec);
    memcpy(name, spec, l);
    name[l] = 0;
    if (p) {
        mods[nm++] = atoi(p + 1);
        const char *c = strchr(p, ',');
        if (c)
            mods[nm++] = atoi(c + 1);
    }
    fl_type t;
    fl_error e;
    if (fl_sql_type_parse(name, mods, nm, &t, &e) != FL_OK) {
        fprintf(stderr, "bad type %s: %s\n", spec, e.msg);
        memset(&t, 0, sizeof t);
        t.id = FL_TYPE_STRING;
    }
    return t;
}

/* A batch with up to 8 columns; each column from '|'-separated text. */
typedef struct tbatch {
    fl_batch b;
    fl_vector cols[8];
    fl_type types[8];
} tbatch;

static inline void tb_col(tbatch *tb, uint32_t i, const char *type, const char *rows)
{
    tb->types[i] = t_type(type);
    fl_type st = {.id = FL_TYPE_STRING};
    fl_vector s;
    fl_error e;
    fl_vector_init(&s, &st, &e);
    uint32_t n = 0;
    const char *p = rows;
    while (1) {
        const char *q = strchr(p, '|');
        size_t l = q ? (size_t)(q - p) : strlen(p);
        if (l == 4 && !memcmp(p, "NULL", 4))
            fl_vector_append_null(&s, &e);
        else
            fl_vector_append_bytes(&s, p, l, &e);
        n++;
        if (!q)
            break;
        p = q + 1;
    }
    fl_vector_init(&tb->cols[i], &tb->types[i], &e);
    if (fl_cast_vector(&s, NULL, n, &tb->types[i], false, &T_env, &tb->cols[i], &e) != FL_OK)
        fprintf(stderr, "tb_col cast failed: %s\n", e.msg);
    fl_vector_destroy(&s);
    if (i + 1 > tb->b.ncols)
        tb->b.ncols = i + 1;
    tb->b.cols = tb->cols;
    tb->b.nrows = n;
}

static inline void tb_free(tbatch *tb)
{
    for (uint32_t i = 0; i < tb->b.ncols; i++)
        fl_vector_destroy(&tb->cols[i]);
    memset(tb, 0, sizeof *tb);
}

static inline fl_expr *E_col(tbatch *tb, uint32_t i)
{
    fl_expr *e = fl_expr_column(&T_arena, i, &tb->types[i]);
    e->alias = fl_arena_sprintf(&T_arena, "c%u", i);
    return e;
}
static inline fl_expr *E_lit(const char *text) /* unknown-typed literal */
{
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type.id = FL_TYPE_STRING;
    v.type.fixed_len = -1;
    v.v.bytes.ptr = (const uint8_t *)text;
    v.v.bytes.len = strlen(text);
    return fl_expr_const(&T_arena, &v);
}
static inline fl_expr *E_null(void)
{
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type.id = FL_TYPE_STRING;
    v.type.fixed_len = -1;
    v.is_null = true;
    return fl_expr_const(&T_arena, &v);
}
static inline fl_expr *E_typed(const char *type, const char *text)
{
    fl_type t = t_type(type);
    fl_type *tp = fl_arena_alloc(&T_arena, sizeof *tp);
    *tp = t;
    fl_expr *out;
    if (fl_expr_cast(&T_arena, E_lit(text), tp, &out, &T_err) != FL_OK) {
        fprintf(stderr, "E_typed %s %s: %s\n", type, text, T_err.msg);
        return E_null();
    }
    return out;
}
static inline fl_expr *E_int(int v)
{
    fl_value x;
    memset(&x, 0, sizeof x);
    x.type.id = FL_TYPE_INT32;
    x.v.i32 = v;
    return fl_expr_const(&T_arena, &x);
}
/* NULL on resolution failure (message in T_err). */
static inline fl_expr *E_callv(const char *name, uint32_t n, fl_expr **args)
{
    fl_expr *out;
    for (uint32_t i = 0; i < n; i++)
        if (!args[i])
            return NULL;
    if (fl_expr_call(&T_arena, name, args, n, -1, &out, &T_err) != FL_OK)
        return NULL;
    return out;
}
#define E_call(name, ...)                                                                          \
    E_callv(name, sizeof((fl_expr *[]){__VA_ARGS__}) / sizeof(fl_expr *), (fl_expr *[]){__VA_ARGS__})
static inline fl_expr *E_call0(const char *name)
{
    return E_callv(name, 0, NULL);
}
static inline fl_expr *E_cast(fl_expr *a, const char *type)
{
    fl_type *tp = fl_arena_alloc(&T_arena, sizeof *tp);
    *tp = t_type(type);
    fl_expr *out;
    if (!a || fl_expr_cast(&T_arena, a, tp, &out, &T_err) != FL_OK)
        return NULL;
    return out;
}
static inline fl_expr *E_node(fl_expr_kind k, const fl_type *t, uint32_t n, fl_expr **args)
{
    fl_expr *e = fl_expr_new(&T_arena, k, t, n);
    for (uint32_t i = 0; i < n; i++)
        e->args[i] = args[i];
    return e;
}
#define E_kind(k, tp, ...)                                                                         \
    E_node(k, tp, sizeof((fl_expr *[]){__VA_ARGS__}) / sizeof(fl_expr *), (fl_expr *[]){__VA_ARGS__})
static const fl_type T_BOOL = {.id = FL_TYPE_BOOLEAN};

/* Evaluates e over tb (sel may be NULL) and renders rows; "ERR: msg" on failure. */
static inline const char *eval_rows_sel(fl_expr *e, tbatch *tb, const fl_sel *sel)
{
    if (!e)
        return fl_arena_sprintf(&T_arena, "RESOLVE: %s", T_err.msg);
    fl_eval_state *st;
    fl_error err;
    if (fl_eval_state_new(&T_env, &st, &err) != FL_OK)
        return "ERR: state";
    fl_vector out;
    fl_vector_init(&out, &e->type, &err);
    fl_batch empty;
    memset(&empty, 0, sizeof empty);
    empty.nrows = 1;
    const fl_batch *in = tb ? &tb->b : &empty;
    const char *res;
    if (fl_expr_eval(st, e, in, sel, &out, &err) != FL_OK)
        res = fl_arena_sprintf(&T_arena, "ERR: %s", err.msg);
    else {
        char buf[4096];
        size_t o = 0;
        buf[0] = 0;
        uint32_t cnt = sel ? sel->count : in->nrows;
        for (uint32_t k = 0; k < cnt; k++) {
            uint32_t i = sel ? sel->idx[k] : k;
            char cell[512];
            fl_unified u;
            fl_vector_unify(&out, &u);
            if (!fl_unified_is_valid(&u, i))
                snprintf(cell, sizeof cell, "NULL");
            else
                fl_sql_format_value(&out, i, T_env.time_zone, cell, sizeof cell);
            o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", k ? "|" : "", cell);
            if (o >= sizeof buf)
                break;
        }
        res = fl_arena_strdup(&T_arena, buf);
    }
    fl_vector_destroy(&out);
    fl_eval_state_free(st);
    return res;
}
static inline const char *eval_rows(fl_expr *e, tbatch *tb)
{
    return eval_rows_sel(e, tb, NULL);
}
/* Constant expression -> text */
static inline const char *eval1(fl_expr *e)
{
    return eval_rows_sel(e, NULL, NULL);
}

#endif
