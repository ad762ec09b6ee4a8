/*
 * eval.c - vectorized evaluation of bound expressions (expr.h).
 *
 * Each expression node evaluated through an fl_eval_state gets a node state
 * (found by node address in an open-addressing table): its result vector,
 * reused batch after batch, scratch selections and argument pointers. A
 * node's result is either an input column (no copy), its own vector, or a
 * CONSTANT vector: when every argument of a call or cast is CONSTANT the
 * kernel runs on one row and the result is CONSTANT too.
 *
 * Strict functions (func.h: handles_nulls false) never see NULL rows: the
 * evaluator narrows the selection to rows where every argument is valid
 * and marks the rest NULL. AND/OR evaluate each argument only on rows not
 * yet decided; CASE evaluates each THEN on the rows whose WHEN was TRUE
 * and the next WHEN on the rest; COALESCE evaluates an argument only where
 * the earlier ones were NULL; so errors come only from rows that matter.
 *
 * Ownership: the state owns node states and their vectors; results handed
 * to fl_expr_eval's caller are moved (buffers swapped) or, for input
 * columns, referenced as DICT vectors that borrow the input batch.
 */
#include <stdlib.h>

#include "sql/func/func_internal.h"

typedef struct node_st {
    const void *key;
    fl_vector out;
    bool out_init;
    bool cached; /* out holds a constant valid across batches (CONST, PARAM, SUBQUERY) */
    fl_sel s[3]; /* scratch selections */
    uint16_t *which;
    uint32_t which_cap;
    const fl_vector **argv;
    uint32_t nargv;
    void *aux;
    void (*aux_free)(void *);
    int64_t charged; /* bytes of out charged to the statement (env.charge) */
} node_st;

struct fl_eval_state {
    fl_eval_env env;
    node_st **slots;
    uint32_t cap, count;
    fl_tz *tz;
    char *tz_name;
    fl_arena arena;
};

fl_status fl_eval_state_new(const fl_eval_env *env, fl_eval_state **out, fl_error *err)
{
    fl_eval_state *st = calloc(1, sizeof *st);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory for evaluation state");
    if (env)
        st->env = *env;
    st->cap = 64;
    st->slots = calloc(st->cap, sizeof *st->slots);
    if (!st->slots) {
        free(st);
        return fl_errorf(err, FL_ENOMEM, "out of memory for evaluation state");
    }
    fl_arena_init(&st->arena, 4096);
    *out = st;
    return FL_OK;
}

static void node_free(node_st *n)
{
    if (!n)
        return;
    if (n->out_init)
        fl_vector_destroy(&n->out);
    for (int k = 0; k < 3; k++)
        free(n->s[k].idx);
    free(n->which);
    free(n->argv);
    if (n->aux && n->aux_free)
        n->aux_free(n->aux);
    free(n->aux);
    free(n);
}

void fl_eval_state_free(fl_eval_state *st)
{
    if (!st)
        return;
    int64_t charged = 0;
    for (uint32_t i = 0; i < st->cap; i++)
        charged += st->slots[i] ? st->slots[i]->charged : 0;
    if (charged && st->env.charge && st->env.exec_ctx)
        (void)st->env.charge(st->env.exec_ctx, -charged, NULL);
    for (uint32_t i = 0; i < st->cap; i++)
        node_free(st->slots[i]);
    free(st->slots);
    fl_tz_free(st->tz);
    free(st->tz_name);
    fl_arena_free(&st->arena);
    free(st);
}

static uint32_t hash_ptr(const void *p, uint32_t cap)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (uint32_t)x & (cap - 1);
}

static node_st *node_get(fl_eval_state *st, const void *key, fl_error *err)
{
    uint32_t h = hash_ptr(key, st->cap);
    while (st->slots[h]) {
        if (st->slots[h]->key == key)
            return st->slots[h];
        h = (h + 1) & (st->cap - 1);
    }
    if ((st->count + 1) * 2 > st->cap) {
        uint32_t ncap = st->cap * 2;
        node_st **ns = calloc(ncap, sizeof *ns);
        if (!ns) {
            fl_errorf(err, FL_ENOMEM, "out of memory for evaluation state");
            return NULL;
        }
        for (uint32_t i = 0; i < st->cap; i++) {
            if (!st->slots[i])
                continue;
            uint32_t k = hash_ptr(st->slots[i]->key, ncap);
            while (ns[k])
                k = (k + 1) & (ncap - 1);
            ns[k] = st->slots[i];
        }
        free(st->slots);
        st->slots = ns;
        st->cap = ncap;
        h = hash_ptr(key, st->cap);
        while (st->slots[h])
            h = (h + 1) & (st->cap - 1);
    }
    node_st *n = calloc(1, sizeof *n);
    if (!n) {
        fl_errorf(err, FL_ENOMEM, "out of memory for evaluation state");
        return NULL;
    }
    n->key = key;
    st->slots[h] = n;
    st->count++;
    return n;
}

void *fl_eval_state_aux(fl_eval_state *st, const void *key, size_t size, void (*cleanup)(void *), fl_error *err)
{
    /* aux data is keyed one byte past the node so it never collides with a node's own state */
    node_st *n = node_get(st, (const char *)key + 1, err);
    if (!n)
        return NULL;
    if (!n->aux) {
        n->aux = calloc(1, size ? size : 1);
        if (!n->aux) {
            fl_errorf(err, FL_ENOMEM, "out of memory for evaluation scratch");
            return NULL;
        }
        n->aux_free = cleanup;
    }
    return n->aux;
}

const fl_tz *fl_eval_state_tz(fl_eval_state *st, const char *name, fl_error *err)
{
    const char *nm = name ? name : "UTC";
    if (st->tz && st->tz_name && strcmp(st->tz_name, nm) == 0)
        return st->tz;
    fl_tz *z;
    if (fl_tz_load(nm, &z, err) != FL_OK)
        return NULL;
    char *copy = strdup(nm);
    if (!copy) {
        fl_tz_free(z);
        fl_errorf(err, FL_ENOMEM, "out of memory");
        return NULL;
    }
    fl_tz_free(st->tz);
    free(st->tz_name);
    st->tz = z;
    st->tz_name = copy;
    return z;
}

/* ---- helpers ---- */

static fl_status sel_reserve(fl_sel *s, uint32_t n, fl_error *err)
{
    if (s->cap >= n && s->idx)
        return FL_OK;
    uint32_t nc = n < 64 ? 64 : n;
    uint32_t *p = realloc(s->idx, sizeof(uint32_t) * nc);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory for a selection");
    s->idx = p;
    s->cap = nc;
    return FL_OK;
}

static fl_status prepare_out(node_st *ns, const fl_type *t, uint32_t nrows, fl_error *err)
{
    if (!ns->out_init) {
        FL_TRY(fl_vector_init(&ns->out, t, err));
        ns->out_init = true;
    }
    fl_vector_reset(&ns->out);
    ns->out.type = t;
    FL_TRY(fl_vector_reserve(&ns->out, nrows ? nrows : 1, err));
    ns->out.len = nrows;
    if (ns->out.offsets)
        ns->out.offsets[0] = 0;
    return FL_OK;
}

static bool may_have_nulls(const fl_vector *v)
{
    if (v->validity)
        return true;
    return v->encoding == FL_VEC_DICT && v->dict && v->dict->validity;
}

static bool row_is_valid(const fl_vector *v, uint32_t i)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    return fl_unified_is_valid(&u, i);
}

static fl_status eval_node(fl_eval_state *st, const fl_expr *e, const fl_batch *in, const fl_sel *sel,
                           uint32_t nrows, const fl_vector **res, node_st **owner, fl_error *err);

static fl_status make_const(node_st *ns, const fl_expr *e, const fl_value *v, uint32_t nrows, fl_error *err)
{
    if (!ns->cached) {
        FL_TRY(prepare_out(ns, &e->type, 0, err));
        FL_TRY(fl_value_to_vector(v, &ns->out, err));
        ns->out.encoding = FL_VEC_CONSTANT;
        ns->cached = true;
    }
    ns->out.len = nrows;
    return FL_OK;
}

static fl_status eval_param(fl_eval_state *st, node_st *ns, const fl_expr *e, uint32_t nrows, fl_error *err)
{
    if (ns->cached) {
        ns->out.len = nrows;
        return FL_OK;
    }
    if (!st->env.params || e->param >= st->env.nparams)
        return fl_errorf(err, FL_EINVAL, "there is no parameter $%u", e->param + 1);
    fl_value v = st->env.params[e->param];
    if (fl_type_is_nested(&e->type)) {
        /* a nested value (a correlated struct or list, exec/op_apply.c) travels as a one-row
         * vector in v.bytes.ptr: copied, as a constant */
        FL_TRY(prepare_out(ns, &e->type, 0, err));
        fl_vector_reset(&ns->out);
        if (v.is_null || !v.v.bytes.ptr)
            FL_TRY(fl_vector_append_null(&ns->out, err));
        else
            FL_TRY(fl_vector_append_from(&ns->out, (const fl_vector *)v.v.bytes.ptr, 0, err));
        ns->out.encoding = FL_VEC_CONSTANT;
        ns->out.len = nrows;
        ns->cached = true;
        return FL_OK;
    }
    if (!v.is_null && !fl_type_equal(&v.type, &e->type)) {
        fl_value c;
        FL_TRY(fl_cast_value(&v, &e->type, &st->env, &st->arena, &c, err));
        v = c;
    }
    v.type = e->type;
    return make_const(ns, e, &v, nrows, err);
}

static fl_status eval_subquery(fl_eval_state *st, node_st *ns, const fl_expr *e, uint32_t nrows, fl_error *err)
{
    if (ns->cached) {
        ns->out.len = nrows;
        return FL_OK;
    }
    if (!st->env.run_subquery)
        return fl_errorf(err, FL_EUNSUPPORTED, "subqueries cannot be evaluated in this context");
    fl_value v;
    FL_TRY(st->env.run_subquery(st->env.exec_ctx, e->subplan, &st->arena, &v, err));
    if (!v.is_null && !fl_type_equal(&v.type, &e->type)) {
        fl_value c;
        FL_TRY(fl_cast_value(&v, &e->type, &st->env, &st->arena, &c, err));
        v = c;
    }
    v.type = e->type;
    return make_const(ns, e, &v, nrows, err);
}

static fl_status eval_args(fl_eval_state *st, node_st *ns, const fl_expr *e, const fl_batch *in,
                           const fl_sel *sel, uint32_t nrows, bool *all_const, fl_error *err)
{
    if (ns->nargv < e->nargs) {
        const fl_vector **p = realloc(ns->argv, sizeof *p * e->nargs);
        if (!p)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        ns->argv = p;
        ns->nargv = e->nargs;
    }
    *all_const = true;
    for (uint32_t k = 0; k < e->nargs; k++) {
        node_st *o;
        FL_TRY(eval_node(st, e->args[k], in, sel, nrows, &ns->argv[k], &o, err));
        if (ns->argv[k]->encoding != FL_VEC_CONSTANT)
            *all_const = false;
    }
    return FL_OK;
}

/* What a kernel's string results may grow to: memory_limit's headroom plus
 * what this node's previous batch held (its vector is reused). */
static size_t out_budget(const fl_eval_state *st, const node_st *ns)
{
    if (!st->env.available || !st->env.exec_ctx)
        return 0;
    uint64_t b = st->env.available(st->env.exec_ctx) + (uint64_t)ns->charged;
    return b > FL_SQL_MAX_VALUE_BYTES ? FL_SQL_MAX_VALUE_BYTES : (size_t)(b ? b : 1);
}

static fl_status eval_call(fl_eval_state *st, node_st *ns, const fl_expr *e, const fl_batch *in,
                           const fl_sel *sel, uint32_t nrows, fl_error *err)
{
    bool all_const;
    FL_TRY(eval_args(st, ns, e, in, sel, nrows, &all_const, err));
    const fl_sel *ksel = sel;
    uint32_t kn = nrows;
    if (all_const && e->nargs > 0) {
        ksel = NULL;
        kn = 1;
    }
    FL_TRY(prepare_out(ns, &e->type, kn, err));
    if (!e->fn->handles_nulls) {
        bool nulls = false;
        for (uint32_t k = 0; k < e->nargs; k++)
            nulls |= may_have_nulls(ns->argv[k]);
        if (nulls) {
            FL_TRY(sel_reserve(&ns->s[0], kn, err));
            fl_unified u[16];
            uint32_t nu = e->nargs < 16 ? e->nargs : 16;
            for (uint32_t k = 0; k < nu; k++)
                fl_vector_unify(ns->argv[k], &u[k]);
            uint32_t cnt = 0;
            fl_status rc = FL_OK;
            FOR_ROWS(ksel, kn, i, {
                bool ok = true;
                for (uint32_t k = 0; k < e->nargs && ok; k++)
                    ok = k < 16 ? fl_unified_is_valid(&u[k], i) : row_is_valid(ns->argv[k], i);
                if (ok)
                    ns->s[0].idx[cnt++] = i;
                else if (rc == FL_OK)
                    rc = fl_out_null(&ns->out, i, err);
            });
            FL_TRY(rc);
            ns->s[0].count = cnt;
            ksel = &ns->s[0];
        }
    }
    fl_fn_call call = {
        .expr = e,
        .args = ns->argv,
        .nargs = e->nargs,
        .sel = ksel,
        .nrows = kn,
        .out = &ns->out,
        .state = st,
        .env = &st->env,
        .out_budget = out_budget(st, ns),
    };
    FL_TRY(e->fn->kernel(&call, err));
    if (all_const && e->nargs > 0 && e->fn->deterministic) {
        ns->out.encoding = FL_VEC_CONSTANT;
        ns->out.len = nrows;
    } else if (all_const && e->nargs > 0) {
        /* non-deterministic over constants: still one value per row */
        ns->out.encoding = FL_VEC_CONSTANT;
        ns->out.len = nrows;
    }
    return FL_OK;
}

static bool cast_needs_tz(const fl_type *a, const fl_type *b)
{
    return a->id == FL_TYPE_TIMESTAMPTZ || a->id == FL_TYPE_TIMESTAMPTZ_NS || b->id == FL_TYPE_TIMESTAMPTZ ||
           b->id == FL_TYPE_TIMESTAMPTZ_NS || fl_type_is_nested(a);
}

static fl_status eval_cast(fl_eval_state *st, node_st *ns, const fl_expr *e, const fl_batch *in,
                           const fl_sel *sel, uint32_t nrows, const fl_vector **res, node_st **owner,
                           fl_error *err)
{
    const fl_vector *a;
    node_st *o;
    FL_TRY(eval_node(st, e->args[0], in, sel, nrows, &a, &o, err));
    if (fl_type_equal(a->type, &e->type) && fl_type_is_interval(a->type) == fl_type_is_interval(&e->type)) {
        *res = a;
        *owner = o;
        return FL_OK;
    }
    bool c = a->encoding == FL_VEC_CONSTANT;
    const fl_tz *tz = NULL;
    if (cast_needs_tz(a->type, &e->type)) {
        tz = fl_eval_state_tz(st, st->env.time_zone, err);
        if (!tz)
            return err ? err->code : FL_EINVAL;
    }
    if (!ns->out_init) {
        FL_TRY(fl_vector_init(&ns->out, &e->type, err));
        ns->out_init = true;
    }
    fl_status rc = fl_cast_vector_tz(a, c ? NULL : sel, c ? 1 : nrows, &e->type, e->lenient, tz, &ns->out, err);
    if (rc) {
        if (e->location >= 0 && err)
            fl_error_prefix(err, "at offset %d", e->location);
        return rc;
    }
    ns->out.type = &e->type;
    if (c) {
        ns->out.encoding = FL_VEC_CONSTANT;
        ns->out.len = nrows;
    }
    *res = &ns->out;
    *owner = ns;
    return FL_OK;
}

/* ---- boolean connectives ---- */

static inline uint8_t bool_at(const fl_unified *u, uint32_t i)
{
    return u->base->data[fl_unified_row(u, i)];
}

static fl_status eval_andor(fl_eval_state *st, node_st *ns, const fl_expr *e, const fl_batch *in,
                            const fl_sel *sel, uint32_t nrows, fl_error *err)
{
    bool is_and = e->kind == FL_EXPR_AND;
    FL_TRY(prepare_out(ns, &e->type, nrows, err));
    uint8_t *o = ns->out.data;
    uint8_t init = is_and ? 1 : 0;
    FOR_ROWS(sel, nrows, i, { o[i] = init; });
    FL_TRY(sel_reserve(&ns->s[0], nrows, err));
    FL_TRY(sel_reserve(&ns->s[1], nrows, err));
    const fl_sel *cur = sel;
    int buf = 0;
    for (uint32_t k = 0; k < e->nargs; k++) {
        if (cur && cur->count == 0)
            break;
        const fl_vector *v;
        node_st *ow;
        FL_TRY(eval_node(st, e->args[k], in, cur, nrows, &v, &ow, err));
        fl_unified u;
        fl_vector_unify(v, &u);
        fl_sel *next = &ns->s[buf];
        uint32_t cnt = 0;
        fl_status rc = FL_OK;
        FOR_ROWS(cur, nrows, i, {
            if (!fl_unified_is_valid(&u, i)) {
                if (rc == FL_OK)
                    rc = fl_out_null(&ns->out, i, err);
                next->idx[cnt++] = i;
            } else if (bool_at(&u, i) == init) {
                next->idx[cnt++] = i; /* undecided */
            } else {
                o[i] = !init; /* decided: FALSE for AND, TRUE for OR */
                if (ns->out.validity)
                    fl_bitmap_set(ns->out.validity, i, true);
            }
        });
        FL_TRY(rc);
        next->count = cnt;
        cur = next;
        buf ^= 1;
    }
    return FL_OK;
}

static fl_status eval_not(fl_eval_state *st, node_st *ns, const fl_expr *e, const fl_batch *in,
                          const fl_sel *sel, uint32_t nrows, fl_error *err)
{
    const fl_vector *v;
    node_st *ow;
    FL_TRY(eval_node(st, e->args[0], in, sel, nrows, &v, &ow, err));
    bool c = v->encoding == FL_VEC_CONSTANT;
    uint32_t n = c ? 1 : nrows;
    const fl_sel *s = c ? NULL : sel;
    FL_TRY(prepare_out(ns, &e->type, n, err));
    fl_unified u;
    fl_vector_unify(v, &u);
    fl_status rc = FL_OK;
    FOR_ROWS(s, n, i, {
        if (fl_unified_is_valid(&u, i))
            ns->out.data[i] = !bool_at(&u, i);
        else if (rc == FL_OK)
            rc = fl_out_null(&ns->out, i, err);
    });
    FL_TRY(rc);
    if (c) {
        ns->out.encoding = FL_VEC_CONSTANT;
        ns->out.len = nrows;
    }
    return FL_OK;
}

static fl_status eval_isnull(fl_eval_state *st, node_st *ns, const fl_expr *e, const fl_batch *in,
                             const fl_sel *sel, uint32_t nrows, fl_error *err)
{
    const fl_vector *v;
    node_st *ow;
    FL_TRY(eval_node(st, e->args[0], in, sel, nrows, &v, &ow, err));
    bool c = v->encoding == FL_VEC_CONSTANT;
    uint32_t n = c ? 1 : nrows;
    const fl_sel *s = c ? NULL : sel;
    FL_TRY(prepare_out(ns, &e->type, n, err));
    fl_unified u;
    fl_vector_unify(v, &u);
    uint8_t want_null = e->kind == FL_EXPR_IS_NULL;
    FOR_ROWS(s, n, i, { ns->out.data[i] = (uint8_t)(!fl_unified_is_valid(&u, i)) == want_null; });
    if (c) {
        ns->out.encoding = FL_VEC_CONSTANT;
        ns->out.len = nrows;
    }
    return FL_OK;
}

static fl_status eval_distinct(fl_eval_state *st, node_st *ns, const fl_expr *e, const fl_batch *in,
                               const fl_sel *sel, uint32_t nrows, fl_error *err)
{
    bool all_const;
    FL_TRY(eval_args(st, ns, e, in, sel, nrows, &all_const, err));
    if (ns->argv[0]->type->id != ns->argv[1]->type->id)
        return fl_errorf(err, FL_ETYPE, "IS DISTINCT FROM on different types (the binder must cast)");
    uint32_t n = all_const ? 1 : nrows;
    const fl_sel *s = all_const ? NULL : sel;
    FL_TRY(prepare_out(ns, &e->type, n, err));
    fl_unified a, b;
    fl_vector_unify(ns->argv[0], &a);
    fl_vector_unify(ns->argv[1], &b);
    FOR_ROWS(s, n, i, {
        bool va = fl_unified_is_valid(&a, i), vb = fl_unified_is_valid(&b, i);
        bool distinct = va != vb || (va && fl_cmp_rows(&a, i, &b, i) != 0);
        ns->out.data[i] = e->negated ? !distinct : distinct;
    });
    if (all_const) {
        ns->out.encoding = FL_VEC_CONSTANT;
        ns->out.len = nrows;
    }
    return FL_OK;
}

/* ---- CASE / COALESCE: per-row source, then one merge ---- */

#define NO_SRC 0xFFFF

static fl_status which_reserve(node_st *ns, uint32_t n, fl_error *err)
{
    if (ns->which_cap >= n && ns->which)
        return FL_OK;
    uint16_t *p = realloc(ns->which, sizeof(uint16_t) * (n ? n : 1));
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    ns->which = p;
    ns->which_cap = n;
    return FL_OK;
}

static fl_status merge_rows(node_st *ns, const fl_type *t, const fl_sel *sel, uint32_t nrows,
                            const fl_vector **srcs, uint32_t nsrc, fl_error *err)
{
    FL_TRY(prepare_out(ns, t, nrows, err));
    fl_unified u[64];
    fl_unified *up = nsrc <= 64 ? u : malloc(sizeof(fl_unified) * nsrc);
    if (!up)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t k = 0; k < nsrc; k++) {
        if (srcs[k]) {
            fl_vector_unify(srcs[k], &up[k]);
            if (up[k].base->type->id != t->id || fl_type_width(up[k].base->type) != fl_type_width(t)) {
                if (up != u)
                    free(up);
                char a[64], b[64];
                return fl_errorf(err, FL_ETYPE, "CASE/COALESCE branch of type %s where %s is expected",
                                 fl_sql_type_name(up[k].base->type, a, sizeof a), fl_sql_type_name(t, b, sizeof b));
            }
        }
    }
    fl_vector *out = &ns->out;
    fl_status rc = FL_OK;
    if (fl_type_is_nested(t)) {
        fl_vector_reset(out);
        uint32_t k = 0;
        for (uint32_t i = 0; i < nrows && rc == FL_OK; i++) {
            bool selected = sel ? (k < sel->count && sel->idx[k] == i) : true;
            if (selected && sel)
                k++;
            uint16_t w = selected ? ns->which[i] : NO_SRC;
            if (w == NO_SRC)
                rc = fl_vector_append_null(out, err);
            else
                rc = fl_vector_append_from(out, srcs[w], i, err);
        }
    } else if (fl_type_is_varlen(t)) {
        strout so;
        strout_init(&so, out);
        FOR_ROWS(sel, nrows, i, {
            uint16_t w = ns->which[i];
            if (rc != FL_OK) {
            } else if (w == NO_SRC || !fl_unified_is_valid(&up[w], i))
                rc = fl_out_null(out, i, err);
            else {
                size_t l;
                const uint8_t *p = ubytes(&up[w], i, &l);
                rc = strout_put(&so, i, p, l, err);
            }
        });
        strout_finish(&so, nrows);
    } else {
        size_t wd = fl_type_width(t);
        FOR_ROWS(sel, nrows, i, {
            uint16_t w = ns->which[i];
            if (rc != FL_OK) {
            } else if (w == NO_SRC || !fl_unified_is_valid(&up[w], i))
                rc = fl_out_null(out, i, err);
            else
                memcpy(out->data + (size_t)i * wd, up[w].base->data + (size_t)fl_unified_row(&up[w], i) * wd, wd);
        });
    }
    if (up != u)
        free(up);
    return rc;
}

static fl_status eval_case(fl_eval_state *st, node_st *ns, const fl_expr *e, const fl_batch *in,
                           const fl_sel *sel, uint32_t nrows, fl_error *err)
{
    uint32_t npairs = e->nargs / 2;
    bool has_else = e->nargs % 2 == 1;
    uint32_t nsrc = npairs + 1;
    if (nsrc >= NO_SRC)
        return fl_errorf(err, FL_ELIMIT, "CASE with too many branches");
    FL_TRY(which_reserve(ns, nrows, err));
    if (ns->nargv < nsrc) {
        const fl_vector **p = realloc(ns->argv, sizeof *p * nsrc);
        if (!p)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        ns->argv = p;
        ns->nargv = nsrc;
    }
    for (uint32_t k = 0; k < nsrc; k++)
        ns->argv[k] = NULL;
    for (int k = 0; k < 3; k++)
        FL_TRY(sel_reserve(&ns->s[k], nrows, err));
    FOR_ROWS(sel, nrows, i, { ns->which[i] = NO_SRC; });
    const fl_sel *cur = sel;
    int rb = 1;
    for (uint32_t p = 0; p < npairs; p++) {
        if (cur && cur->count == 0)
            break;
        const fl_vector *w;
        node_st *ow;
        FL_TRY(eval_node(st, e->args[2 * p], in, cur, nrows, &w, &ow, err));
        fl_unified u;
        fl_vector_unify(w, &u);
        fl_sel *t = &ns->s[0], *r = &ns->s[rb];
        uint32_t nt = 0, nr = 0;
        FOR_ROWS(cur, nrows, i, {
            if (fl_unified_is_valid(&u, i) && bool_at(&u, i))
                t->idx[nt++] = i;
            else
                r->idx[nr++] = i;
        });
        t->count = nt;
        r->count = nr;
        if (nt) {
            const fl_vector *v;
            FL_TRY(eval_node(st, e->args[2 * p + 1], in, t, nrows, &v, &ow, err));
            ns->argv[p] = v;
            for (uint32_t k = 0; k < nt; k++)
                ns->which[t->idx[k]] = (uint16_t)p;
        }
        cur = r;
        rb = rb == 1 ? 2 : 1;
    }
    if (has_else && (!cur || cur->count > 0)) {
        const fl_vector *v;
        node_st *ow;
        FL_TRY(eval_node(st, e->args[e->nargs - 1], in, cur, nrows, &v, &ow, err));
        ns->argv[npairs] = v;
        FOR_ROWS(cur, nrows, i, { ns->which[i] = (uint16_t)npairs; });
    }
    return merge_rows(ns, &e->type, sel, nrows, ns->argv, nsrc, err);
}

static fl_status eval_coalesce(fl_eval_state *st, node_st *ns, const fl_expr *e, const fl_batch *in,
                               const fl_sel *sel, uint32_t nrows, fl_error *err)
{
    if (e->nargs >= NO_SRC)
        return fl_errorf(err, FL_ELIMIT, "COALESCE with too many arguments");
    FL_TRY(which_reserve(ns, nrows, err));
    if (ns->nargv < e->nargs) {
        const fl_vector **p = realloc(ns->argv, sizeof *p * e->nargs);
        if (!p)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        ns->argv = p;
        ns->nargv = e->nargs;
    }
    for (uint32_t k = 0; k < e->nargs; k++)
        ns->argv[k] = NULL;
    for (int k = 0; k < 2; k++)
        FL_TRY(sel_reserve(&ns->s[k], nrows, err));
    FOR_ROWS(sel, nrows, i, { ns->which[i] = NO_SRC; });
    const fl_sel *cur = sel;
    int b = 0;
    for (uint32_t k = 0; k < e->nargs; k++) {
        if (cur && cur->count == 0)
            break;
        const fl_vector *v;
        node_st *ow;
        FL_TRY(eval_node(st, e->args[k], in, cur, nrows, &v, &ow, err));
        ns->argv[k] = v;
        fl_unified u;
        fl_vector_unify(v, &u);
        fl_sel *next = &ns->s[b];
        uint32_t cnt = 0;
        FOR_ROWS(cur, nrows, i, {
            if (fl_unified_is_valid(&u, i))
                ns->which[i] = (uint16_t)k;
            else
                next->idx[cnt++] = i;
        });
        next->count = cnt;
        cur = next;
        b ^= 1;
    }
    return merge_rows(ns, &e->type, sel, nrows, ns->argv, e->nargs, err);
}

/* x IN (c1, c2, ...) with non-NULL constants of x's physical type: typed loops, no per-row dispatch */
static bool in_const_fast(node_st *ns, const fl_expr *e, const fl_vector *lhs, const fl_sel *sel, uint32_t nrows)
{
    fl_type_id id = lhs->type->id;
    if (e->nargs > 65 || !(id == FL_TYPE_INT32 || id == FL_TYPE_DATE || id == FL_TYPE_INT64 ||
                           id == FL_TYPE_STRING || id == FL_TYPE_DECIMAL))
        return false;
    for (uint32_t k = 1; k < e->nargs; k++) {
        const fl_expr *c = e->args[k];
        if (c->kind != FL_EXPR_CONST || c->value.is_null || c->type.id != id ||
            (id == FL_TYPE_DECIMAL && c->type.scale != lhs->type->scale))
            return false;
    }
    fl_unified u;
    fl_vector_unify(lhs, &u);
    uint8_t *o = ns->out.data;
    uint32_t m = e->nargs - 1;
    const fl_value *vals[64];
    for (uint32_t k = 0; k < m; k++)
        vals[k] = &e->args[k + 1]->value;
    switch (id) {
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: {
        int32_t c[64];
        for (uint32_t k = 0; k < m; k++)
            c[k] = vals[k]->v.i32;
        FOR_ROWS(sel, nrows, i, {
            int32_t x = UV(u, int32_t, i);
            uint8_t hit = 0;
            for (uint32_t k = 0; k < m; k++)
                hit |= x == c[k];
            o[i] = hit;
        });
        break;
    }
    case FL_TYPE_INT64: {
        int64_t c[64];
        for (uint32_t k = 0; k < m; k++)
            c[k] = vals[k]->v.i64;
        FOR_ROWS(sel, nrows, i, {
            int64_t x = UV(u, int64_t, i);
            uint8_t hit = 0;
            for (uint32_t k = 0; k < m; k++)
                hit |= x == c[k];
            o[i] = hit;
        });
        break;
    }
    case FL_TYPE_DECIMAL:
        FOR_ROWS(sel, nrows, i, {
            fl_i128 x;
            memcpy(&x, u.base->data + (size_t)fl_unified_row(&u, i) * 16, 16);
            uint8_t hit = 0;
            for (uint32_t k = 0; k < m && !hit; k++)
                hit = x == vals[k]->v.dec;
            o[i] = hit;
        });
        break;
    default:
        FOR_ROWS(sel, nrows, i, {
            size_t l;
            const uint8_t *p = ubytes(&u, i, &l);
            uint8_t hit = 0;
            for (uint32_t k = 0; k < m && !hit; k++)
                hit = l == vals[k]->v.bytes.len && (l == 0 || memcmp(p, vals[k]->v.bytes.ptr, l) == 0);
            o[i] = hit;
        });
        break;
    }
    if (e->negated)
        FOR_ROWS(sel, nrows, i, { o[i] = !o[i]; });
    return true;
}

static fl_status eval_in(fl_eval_state *st, node_st *ns, const fl_expr *e, const fl_batch *in,
                         const fl_sel *sel, uint32_t nrows, fl_error *err)
{
    const fl_vector *lhs;
    node_st *ow;
    FL_TRY(eval_node(st, e->args[0], in, sel, nrows, &lhs, &ow, err));
    FL_TRY(prepare_out(ns, &e->type, nrows, err));
    FL_TRY(which_reserve(ns, nrows, err)); /* which[i]: 1 = saw a NULL item */
    for (int k = 0; k < 2; k++)
        FL_TRY(sel_reserve(&ns->s[k], nrows, err));
    fl_unified ul;
    fl_vector_unify(lhs, &ul);
    if (in_const_fast(ns, e, lhs, sel, nrows)) {
        /* NULL lhs rows are NULL */
        if (may_have_nulls(lhs))
            FOR_ROWS(sel, nrows, i, {
                if (!fl_unified_is_valid(&ul, i))
                    FL_TRY(fl_out_null(&ns->out, i, err));
            });
        return FL_OK;
    }
    uint8_t *o = ns->out.data;
    fl_sel *cur = &ns->s[0];
    uint32_t cnt = 0;
    fl_status rc = FL_OK;
    FOR_ROWS(sel, nrows, i, {
        ns->which[i] = 0;
        if (fl_unified_is_valid(&ul, i)) {
            cur->idx[cnt++] = i;
            o[i] = 0;
        } else if (rc == FL_OK)
            rc = fl_out_null(&ns->out, i, err);
    });
    FL_TRY(rc);
    cur->count = cnt;
    int b = 1;
    for (uint32_t k = 1; k < e->nargs && cur->count; k++) {
        const fl_vector *v;
        FL_TRY(eval_node(st, e->args[k], in, cur, nrows, &v, &ow, err));
        if (v->type->id != lhs->type->id)
            return fl_errorf(err, FL_ETYPE, "IN list item of a different type (the binder must cast)");
        fl_unified u;
        fl_vector_unify(v, &u);
        fl_sel *next = &ns->s[b];
        uint32_t c2 = 0;
        for (uint32_t j = 0; j < cur->count; j++) {
            uint32_t i = cur->idx[j];
            if (!fl_unified_is_valid(&u, i)) {
                ns->which[i] = 1;
                next->idx[c2++] = i;
            } else if (fl_cmp_rows(&ul, i, &u, i) == 0)
                o[i] = 1;
            else
                next->idx[c2++] = i;
        }
        next->count = c2;
        cur = next;
        b ^= 1;
    }
    for (uint32_t j = 0; j < cur->count; j++)
        if (ns->which[cur->idx[j]])
            FL_TRY(fl_out_null(&ns->out, cur->idx[j], err));
    if (e->negated)
        FOR_ROWS(sel, nrows, i, { o[i] = !o[i]; });
    return FL_OK;
}

/* Bytes a result vector holds that grow with its values: string heaps and
 * nested children (a batch's fixed-width data is bounded by its rows). */
static int64_t vec_bytes(const fl_vector *v, int depth)
{
    int64_t b = (int64_t)v->heap_len; /* resident: realloc'd capacity is untouched */
    for (uint32_t c = 0; depth < 8 && c < v->nchildren; c++) {
        const fl_vector *ch = &v->children[c];
        size_t w = ch->type ? fl_type_width(ch->type) : 0;
        b += (int64_t)ch->len * (int64_t)(w ? w : 8) + vec_bytes(ch, depth + 1);
    }
    return b;
}

/* Charges what a node's result grew by (releases what it shrank by) to the
 * statement's memory_limit: without this, ARRAY[...], repeat(), || and
 * friends could build gigabytes per batch that no operator counts. */
static fl_status charge_out(fl_eval_state *st, node_st *ns, fl_error *err)
{
    if (!st->env.charge || !st->env.exec_ctx || !ns->out_init)
        return FL_OK;
    int64_t now = vec_bytes(&ns->out, 0), delta = now - ns->charged;
    if (delta == 0)
        return FL_OK;
    ns->charged = now;
    return st->env.charge(st->env.exec_ctx, delta, err);
}

static fl_status eval_kind(fl_eval_state *st, node_st *ns, const fl_expr *e, const fl_batch *in,
                           const fl_sel *sel, uint32_t nrows, const fl_vector **res,
                           node_st **owner, fl_error *err)
{
    switch (e->kind) {
    case FL_EXPR_CONST: return make_const(ns, e, &e->value, nrows, err);
    case FL_EXPR_PARAM: return eval_param(st, ns, e, nrows, err);
    case FL_EXPR_SUBQUERY: return eval_subquery(st, ns, e, nrows, err);
    case FL_EXPR_CALL: return eval_call(st, ns, e, in, sel, nrows, err);
    case FL_EXPR_CAST: return eval_cast(st, ns, e, in, sel, nrows, res, owner, err);
    case FL_EXPR_AND:
    case FL_EXPR_OR: return eval_andor(st, ns, e, in, sel, nrows, err);
    case FL_EXPR_NOT: return eval_not(st, ns, e, in, sel, nrows, err);
    case FL_EXPR_IS_NULL:
    case FL_EXPR_IS_NOT_NULL: return eval_isnull(st, ns, e, in, sel, nrows, err);
    case FL_EXPR_IS_DISTINCT: return eval_distinct(st, ns, e, in, sel, nrows, err);
    case FL_EXPR_CASE: return eval_case(st, ns, e, in, sel, nrows, err);
    case FL_EXPR_COALESCE: return eval_coalesce(st, ns, e, in, sel, nrows, err);
    case FL_EXPR_IN_LIST: return eval_in(st, ns, e, in, sel, nrows, err);
    default: return fl_errorf(err, FL_EUNSUPPORTED, "expression kind %d", (int)e->kind);
    }
}

static fl_status eval_node(fl_eval_state *st, const fl_expr *e, const fl_batch *in,
                           const fl_sel *sel, uint32_t nrows, const fl_vector **res,
                           node_st **owner, fl_error *err)
{
    if (e->kind == FL_EXPR_COLUMN) {
        if (e->column >= in->ncols)
            return fl_errorf(err, FL_EINVAL, "column #%u out of range (input has %u columns)",
                             e->column, in->ncols);
        *res = &in->cols[e->column];
        *owner = NULL;
        return FL_OK;
    }
    node_st *ns = node_get(st, e, err);
    if (!ns)
        return FL_ENOMEM;
    *owner = ns;
    *res = &ns->out;
    FL_TRY(eval_kind(st, ns, e, in, sel, nrows, res, owner, err));
    return charge_out(st, ns, err);
}

/* ---- public entry points ---- */

static fl_status reference_column(const fl_vector *col, uint32_t nrows, fl_vector *out, fl_error *err)
{
    const fl_type *t = out->type;
    fl_vector_reset(out);
    out->type = t;
    if (col->encoding == FL_VEC_CONSTANT) {
        FL_TRY(fl_vector_append_from(out, col, 0, err));
        out->encoding = FL_VEC_CONSTANT;
        out->len = nrows;
        return FL_OK;
    }
    FL_TRY(fl_vector_reserve(out, nrows ? nrows : 1, err));
    uint32_t *idx = (uint32_t *)(void *)out->data;
    if (col->encoding == FL_VEC_DICT) {
        memcpy(idx, col->data, sizeof(uint32_t) * nrows);
        if (col->validity) {
            FL_TRY(fl_vector_ensure_validity(out, err));
            memcpy(out->validity, col->validity, (nrows + 7) / 8);
        }
        out->dict = col->dict;
    } else {
        for (uint32_t i = 0; i < nrows; i++)
            idx[i] = i;
        out->dict = (fl_vector *)col;
    }
    out->owns_dict = false;
    out->encoding = FL_VEC_DICT;
    out->len = nrows;
    return FL_OK;
}

fl_status fl_expr_eval(fl_eval_state *st, const fl_expr *e, const fl_batch *in, const fl_sel *sel,
                       fl_vector *out, fl_error *err)
{
    const fl_vector *res;
    node_st *owner;
    uint32_t nrows = in->nrows;
    FL_TRY(eval_node(st, e, in, sel, nrows, &res, &owner, err));
    if (!owner)
        return reference_column(res, nrows, out, err);
    if (res->encoding == FL_VEC_CONSTANT || owner->cached || res != &owner->out) {
        const fl_type *t = out->type;
        fl_vector_reset(out);
        out->type = t;
        if (res->encoding == FL_VEC_CONSTANT) {
            FL_TRY(fl_vector_append_from(out, res, 0, err));
            out->encoding = FL_VEC_CONSTANT;
            out->len = nrows;
            return FL_OK;
        }
        for (uint32_t i = 0; i < nrows; i++)
            FL_TRY(fl_vector_append_from(out, res, i, err));
        return FL_OK;
    }
    /* move the node's buffers to the caller; the node reuses the caller's old ones */
    const fl_type *tout = out->type, *tnode = owner->out.type;
    fl_vector tmp = *out;
    *out = owner->out;
    owner->out = tmp;
    out->type = tout;
    owner->out.type = tnode;
    return FL_OK;
}

fl_status fl_expr_select(fl_eval_state *st, const fl_expr *e, const fl_batch *in, const fl_sel *sel,
                         fl_sel *out, fl_error *err)
{
    if (st->env.cancel && atomic_load(st->env.cancel))
        return fl_errorf(err, FL_ECANCELED, "canceling statement due to user request");
    uint32_t nrows = in->nrows;
    if (e->kind == FL_EXPR_AND) {
        const fl_sel *cur = sel;
        for (uint32_t k = 0; k < e->nargs; k++) {
            FL_TRY(fl_expr_select(st, e->args[k], in, cur, out, err));
            cur = out;
            if (out->count == 0)
                break;
        }
        if (e->nargs == 0) {
            uint32_t c = 0;
            FOR_ROWS(sel, nrows, i, { out->idx[c++] = i; });
            out->count = c;
        }
        return FL_OK;
    }
    const fl_vector *v;
    node_st *ow;
    FL_TRY(eval_node(st, e, in, sel, nrows, &v, &ow, err));
    fl_unified u;
    fl_vector_unify(v, &u);
    uint32_t c = 0;
    if (!u.validity && !u.base->validity && !u.idx && !u.constant) {
        const uint8_t *d = u.base->data;
        FOR_ROWS(sel, nrows, i, {
            out->idx[c] = i;
            c += d[i] != 0;
        });
    } else
        FOR_ROWS(sel, nrows, i, {
            if (fl_unified_is_valid(&u, i) && bool_at(&u, i))
                out->idx[c++] = i;
        });
    out->count = c;
    return FL_OK;
}
