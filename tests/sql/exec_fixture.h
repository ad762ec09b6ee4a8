/*
 * exec_fixture.h - helpers for the executor's unit tests: hand-built plans
 * over in-memory rows, a few test-only kernels and aggregates (the real
 * ones live in src/sql/func), and result rendering to sorted text lines so
 * tests compare multisets of rows independent of parallel order.
 */
#ifndef FLOE_TESTS_EXEC_FIXTURE_H
#define FLOE_TESTS_EXEC_FIXTURE_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/arena.h"
#include "floe/vector.h"
#include "sql/exec.h"
#include "sql/func.h"
#include "sql/plan.h"

static __attribute__((unused)) fl_type T_I64 = {.id = FL_TYPE_INT64};
static __attribute__((unused)) fl_type T_I32 = {.id = FL_TYPE_INT32};
static __attribute__((unused)) fl_type T_STR = {.id = FL_TYPE_STRING};
static __attribute__((unused)) fl_type T_BOOL = {.id = FL_TYPE_BOOLEAN};
static __attribute__((unused)) fl_type T_F64 = {.id = FL_TYPE_FLOAT64};

/* ---- plans ---- */

static __attribute__((unused)) fl_plan *tp_node(fl_arena *a, fl_plan_kind kind, uint32_t nchildren, uint32_t ncols)
{
    fl_plan *p = fl_arena_calloc(a, 1, sizeof *p);
    p->kind = kind;
    p->nchildren = nchildren;
    p->children = fl_arena_calloc(a, nchildren ? nchildren : 1, sizeof *p->children);
    p->schema.nfields = ncols;
    p->schema.fields = fl_arena_calloc(a, ncols ? ncols : 1, sizeof(fl_field));
    for (uint32_t i = 0; i < ncols; i++) {
        p->schema.fields[i].name = fl_arena_sprintf(a, "c%u", i);
        p->schema.fields[i].nullable = true;
    }
    return p;
}

static __attribute__((unused)) void tp_types(fl_plan *p, const fl_type *const *types)
{
    for (uint32_t i = 0; i < p->schema.nfields; i++)
        p->schema.fields[i].type = *types[i];
}

static __attribute__((unused)) fl_expr *tx_col(fl_arena *a, uint32_t col, const fl_type *t)
{
    fl_expr *e = fl_arena_calloc(a, 1, sizeof *e);
    e->kind = FL_EXPR_COLUMN;
    e->type = *t;
    e->column = col;
    e->location = -1;
    return e;
}

static __attribute__((unused)) fl_expr *tx_i64(fl_arena *a, int64_t v)
{
    fl_expr *e = fl_arena_calloc(a, 1, sizeof *e);
    e->kind = FL_EXPR_CONST;
    e->type = T_I64;
    e->value.type = T_I64;
    e->value.v.i64 = v;
    e->location = -1;
    return e;
}

static __attribute__((unused)) fl_expr *tx_str(fl_arena *a, const char *s)
{
    fl_expr *e = fl_arena_calloc(a, 1, sizeof *e);
    e->kind = FL_EXPR_CONST;
    e->type = T_STR;
    e->value.type = T_STR;
    if (!s) {
        e->value.is_null = true;
    } else {
        e->value.v.bytes.ptr = (const uint8_t *)fl_arena_strdup(a, s);
        e->value.v.bytes.len = strlen(s);
    }
    e->location = -1;
    return e;
}

/* In-memory table: columns of int64 (INT64_MIN = NULL) or strings (NULL ptr
 * = NULL), given as a type string "is" (i = int64, s = string). */
typedef struct tt_table {
    fl_schema schema;
    fl_batch **batches;
    uint32_t nbatches;
    fl_row_source src;
    uint32_t batch_rows; /* rows per batch (default 1000; may exceed FL_BATCH_CAP) */
} tt_table;

#define TNULL INT64_MIN

static __attribute__((unused)) tt_table *tt_new(fl_arena *a, const char *types)
{
    tt_table *t = fl_arena_calloc(a, 1, sizeof *t);
    uint32_t n = (uint32_t)strlen(types);
    t->schema.nfields = n;
    t->schema.fields = fl_arena_calloc(a, n, sizeof(fl_field));
    for (uint32_t i = 0; i < n; i++) {
        t->schema.fields[i].name = fl_arena_sprintf(a, "c%u", i);
        t->schema.fields[i].type = types[i] == 's' ? T_STR : T_I64;
        t->schema.fields[i].nullable = true;
    }
    t->batches = calloc(4096, sizeof *t->batches);
    return t;
}

/* Appends one row: values as int64_t or const char * per the types. */
static __attribute__((unused)) void tt_row(tt_table *t, ...)
{
    fl_error err;
    if (t->nbatches == 0 || t->batches[t->nbatches - 1]->nrows == (t->batch_rows ? t->batch_rows : 1000)) {
        fl_batch *b = calloc(1, sizeof *b);
        fl_batch_init(b, &t->schema, &err);
        t->batches[t->nbatches++] = b;
    }
    fl_batch *b = t->batches[t->nbatches - 1];
    va_list ap;
    va_start(ap, t);
    for (uint32_t c = 0; c < t->schema.nfields; c++) {
        if (t->schema.fields[c].type.id == FL_TYPE_STRING) {
            const char *s = va_arg(ap, const char *);
            if (s)
                fl_vector_append_bytes(&b->cols[c], s, strlen(s), &err);
            else
                fl_vector_append_null(&b->cols[c], &err);
        } else {
            int64_t v = va_arg(ap, int64_t);
            if (v == TNULL)
                fl_vector_append_null(&b->cols[c], &err);
            else
                fl_vector_append_fixed(&b->cols[c], &v, &err);
        }
    }
    va_end(ap);
    b->nrows++;
}

static __attribute__((unused)) void tt_free(tt_table *t)
{
    for (uint32_t i = 0; i < t->nbatches; i++) {
        fl_batch_destroy(t->batches[i]);
        free(t->batches[i]);
    }
    free(t->batches);
}

static __attribute__((unused)) fl_plan *tp_scan(fl_arena *a, tt_table *t)
{
    fl_plan *p = tp_node(a, FL_PLAN_SCAN, 0, t->schema.nfields);
    for (uint32_t i = 0; i < t->schema.nfields; i++)
        p->schema.fields[i].type = t->schema.fields[i].type;
    t->src.batches = (const fl_batch *const *)t->batches;
    t->src.nbatches = t->nbatches;
    p->u.scan.kind = FL_SCAN_ROWS;
    p->u.scan.rows = &t->src;
    p->u.scan.file_schema = &t->schema;
    p->u.scan.limit = -1;
    p->u.scan.name = "t";
    return p;
}

/* ---- test kernels ---- */

/* int64 comparison "col > const" and "a = b" etc. over two int64 args */
static __attribute__((unused)) fl_status k_cmp(fl_fn_call *c, int op, fl_error *err)
{
    fl_vector *out = c->out;
    fl_vector_reserve(out, c->nrows, err);
    fl_vector_ensure_validity(out, err);
    fl_unified a, b;
    fl_vector_unify(c->args[0], &a);
    fl_vector_unify(c->args[1], &b);
    uint32_t cnt = c->sel ? c->sel->count : c->nrows;
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t r = c->sel ? c->sel->idx[i] : i;
        bool valid = fl_unified_is_valid(&a, r) && fl_unified_is_valid(&b, r);
        int64_t x = 0, y = 0;
        if (valid) {
            memcpy(&x, a.base->data + 8 * fl_unified_row(&a, r), 8);
            memcpy(&y, b.base->data + 8 * fl_unified_row(&b, r), 8);
        }
        out->data[r] = op == 0 ? x > y : op == 1 ? x == y : x < y;
        fl_bitmap_set(out->validity, r, valid);
    }
    out->len = c->nrows;
    return FL_OK;
}
static __attribute__((unused)) fl_status k_gt(fl_fn_call *c, fl_error *err)
{
    return k_cmp(c, 0, err);
}
static __attribute__((unused)) fl_status k_eq(fl_fn_call *c, fl_error *err)
{
    return k_cmp(c, 1, err);
}
static __attribute__((unused)) fl_status k_lt(fl_fn_call *c, fl_error *err)
{
    return k_cmp(c, 2, err);
}
static __attribute__((unused)) fl_status k_add(fl_fn_call *c, fl_error *err)
{
    fl_vector *out = c->out;
    fl_vector_reserve(out, c->nrows, err);
    fl_vector_ensure_validity(out, err);
    fl_unified a, b;
    fl_vector_unify(c->args[0], &a);
    fl_vector_unify(c->args[1], &b);
    uint32_t cnt = c->sel ? c->sel->count : c->nrows;
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t r = c->sel ? c->sel->idx[i] : i;
        bool valid = fl_unified_is_valid(&a, r) && fl_unified_is_valid(&b, r);
        int64_t x = 0, y = 0;
        if (valid) {
            memcpy(&x, a.base->data + 8 * fl_unified_row(&a, r), 8);
            memcpy(&y, b.base->data + 8 * fl_unified_row(&b, r), 8);
        }
        int64_t s = x + y;
        memcpy(out->data + 8 * r, &s, 8);
        fl_bitmap_set(out->validity, r, valid);
    }
    out->len = c->nrows;
    return FL_OK;
}
static __attribute__((unused)) const fl_func F_GT = {.name = ">", .kind = FL_FUNC_SCALAR, .deterministic = true, .kernel = k_gt};
static __attribute__((unused)) const fl_func F_EQ = {.name = "=", .kind = FL_FUNC_SCALAR, .deterministic = true, .kernel = k_eq};
static __attribute__((unused)) const fl_func F_LT = {.name = "<", .kind = FL_FUNC_SCALAR, .deterministic = true, .kernel = k_lt};
static __attribute__((unused)) const fl_func F_ADD = {.name = "+", .kind = FL_FUNC_SCALAR, .deterministic = true, .kernel = k_add};

static __attribute__((unused)) fl_expr *tx_call(fl_arena *a, const fl_func *f, const fl_type *t, fl_expr *x, fl_expr *y)
{
    fl_expr *e = fl_arena_calloc(a, 1, sizeof *e);
    e->kind = FL_EXPR_CALL;
    e->type = *t;
    e->fn = f;
    e->nargs = 2;
    e->args = fl_arena_calloc(a, 2, sizeof *e->args);
    e->args[0] = x;
    e->args[1] = y;
    e->location = -1;
    return e;
}

/* ---- test aggregates: sum(int64) (NULL without rows), count(x) / count(*) ---- */

typedef struct t_sum {
    int64_t sum;
    int64_t n;
} t_sum;

static __attribute__((unused)) void a_init(void *s)
{
    memset(s, 0, sizeof(t_sum));
}
static __attribute__((unused)) fl_status a_sum_update(void *const *st, const fl_vector *const *args, uint32_t nargs,
                              const fl_sel *sel, uint32_t nrows, fl_error *err)
{
    (void)err;
    uint32_t cnt = sel ? sel->count : nrows;
    fl_unified u = {0};
    if (nargs)
        fl_vector_unify(args[0], &u);
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t r = sel ? sel->idx[i] : i;
        t_sum *s = st[i];
        if (!nargs) {
            s->n++;
            continue;
        }
        if (!fl_unified_is_valid(&u, r))
            continue;
        int64_t v;
        memcpy(&v, u.base->data + 8 * fl_unified_row(&u, r), 8);
        s->sum += v;
        s->n++;
    }
    return FL_OK;
}
static __attribute__((unused)) fl_status a_combine(void *d, const void *s, fl_error *err)
{
    (void)err;
    ((t_sum *)d)->sum += ((const t_sum *)s)->sum;
    ((t_sum *)d)->n += ((const t_sum *)s)->n;
    return FL_OK;
}
static __attribute__((unused)) fl_status a_sum_final(void *const *st, uint32_t n, const fl_type *t, fl_vector *out,
                             fl_error *err)
{
    (void)t;
    for (uint32_t i = 0; i < n; i++) {
        const t_sum *s = st[i];
        if (s->n == 0)
            fl_vector_append_null(out, err);
        else
            fl_vector_append_fixed(out, &s->sum, err);
    }
    return FL_OK;
}
static __attribute__((unused)) fl_status a_count_final(void *const *st, uint32_t n, const fl_type *t, fl_vector *out,
                               fl_error *err)
{
    (void)t;
    for (uint32_t i = 0; i < n; i++)
        fl_vector_append_fixed(out, &((const t_sum *)st[i])->n, err);
    return FL_OK;
}
static __attribute__((unused)) const fl_agg_ops OPS_SUM = {.state_size = sizeof(t_sum),
                                   .state_align = 8,
                                   .init = a_init,
                                   .update = a_sum_update,
                                   .combine = a_combine,
                                   .finalize = a_sum_final};
static __attribute__((unused)) const fl_agg_ops OPS_COUNT = {.state_size = sizeof(t_sum),
                                     .state_align = 8,
                                     .init = a_init,
                                     .update = a_sum_update,
                                     .combine = a_combine,
                                     .finalize = a_count_final};
static __attribute__((unused)) const fl_func F_SUM = {.name = "sum", .kind = FL_FUNC_AGGREGATE, .agg = &OPS_SUM};
static __attribute__((unused)) const fl_func F_COUNT = {.name = "count", .kind = FL_FUNC_AGGREGATE, .agg = &OPS_COUNT};

/* ---- running and rendering ---- */

static __attribute__((unused)) void render_value(const fl_vector *v, uint32_t row, char *buf, size_t cap)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    if (!fl_unified_is_valid(&u, row)) {
        snprintf(buf, cap, "NULL");
        return;
    }
    uint32_t r = fl_unified_row(&u, row);
    switch (v->type->id) {
    case FL_TYPE_STRING: {
        size_t len;
        const uint8_t *p = fl_vector_bytes(u.base, r, &len);
        snprintf(buf, cap, "%.*s", (int)len, (const char *)p);
        break;
    }
    case FL_TYPE_BOOLEAN: snprintf(buf, cap, "%s", u.base->data[r] ? "t" : "f"); break;
    case FL_TYPE_INT32: {
        int32_t x;
        memcpy(&x, u.base->data + 4 * r, 4);
        snprintf(buf, cap, "%d", x);
        break;
    }
    case FL_TYPE_FLOAT64: {
        double d;
        memcpy(&d, u.base->data + 8 * r, 8);
        snprintf(buf, cap, "%g", d);
        break;
    }
    default: {
        int64_t x;
        memcpy(&x, u.base->data + 8 * r, 8);
        snprintf(buf, cap, "%" PRId64, x);
    }
    }
}

typedef struct tr_result {
    char **rows;
    uint32_t n;
    fl_status rc;
    fl_error err;
} tr_result;

static __attribute__((unused)) int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs p; rows as "a|b|c" lines, sorted unless keep_order. */
static __attribute__((unused)) tr_result tr_run_opt(fl_plan *p, const fl_exec_options *opt, bool keep_order)
{
    tr_result r = {0};
    fl_exec *x = NULL;
    r.rc = fl_exec_open(p, opt, &x, &r.err);
    uint32_t cap = 0;
    while (!r.rc) {
        const fl_batch *b;
        bool eof;
        r.rc = fl_exec_next(x, &b, &eof, &r.err);
        if (r.rc || eof)
            break;
        uint32_t live = fl_batch_live_rows(b);
        for (uint32_t i = 0; i < live; i++) {
            uint32_t row = b->sel ? b->sel->idx[i] : i;
            char line[1024] = "";
            size_t len = 0;
            for (uint32_t c = 0; c < b->ncols; c++) {
                char v[256];
                render_value(&b->cols[c], row, v, sizeof v);
                len += (size_t)snprintf(line + len, sizeof line - len, "%s%s", c ? "|" : "", v);
            }
            if (r.n == cap) {
                cap = cap ? cap * 2 : 64;
                r.rows = realloc(r.rows, cap * sizeof *r.rows);
            }
            r.rows[r.n++] = strdup(line);
        }
    }
    fl_exec_close(x);
    if (!keep_order && r.n)
        qsort(r.rows, r.n, sizeof *r.rows, cmp_str);
    return r;
}

static __attribute__((unused)) tr_result tr_run(fl_plan *p, uint32_t threads)
{
    fl_exec_options o = {.threads = threads};
    return tr_run_opt(p, &o, false);
}

static __attribute__((unused)) void tr_free(tr_result *r)
{
    for (uint32_t i = 0; i < r->n; i++)
        free(r->rows[i]);
    free(r->rows);
    memset(r, 0, sizeof *r);
}

/* Joins the rows with ';' for one-line comparisons. */
static __attribute__((unused)) char *tr_join(const tr_result *r)
{
    size_t len = 1;
    for (uint32_t i = 0; i < r->n; i++)
        len += strlen(r->rows[i]) + 1;
    char *s = calloc(1, len);
    for (uint32_t i = 0; i < r->n; i++) {
        if (i)
            strcat(s, ";");
        strcat(s, r->rows[i]);
    }
    return s;
}

#define CHECK_ROWS(res, expected)                                                                  \
    do {                                                                                           \
        char *got_ = tr_join(&(res));                                                              \
        if ((res).rc)                                                                              \
            fprintf(stderr, "%s:%d: exec failed: %s\n", __FILE__, __LINE__, (res).err.msg);       \
        CHECK_EQ_INT((res).rc, 0);                                                                 \
        CHECK_EQ_STR(got_, expected);                                                              \
        free(got_);                                                                                \
    } while (0)

#endif
