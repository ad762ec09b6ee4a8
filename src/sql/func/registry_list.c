/*
 * registry_list.c - enumerating the signatures of the registered functions
 * (registry_list.h): every function's resolve() is asked about probe
 * argument lists; the lists it accepts without casting any argument are its
 * signatures. Probes: no argument; each probe type; every pair of probe
 * types; triples (T, T, T), (T, integer, integer), (T, text, text),
 * (T, bigint, bigint), (T, text, integer), (T, integer, text),
 * (T, T, interval) for each probe type T. About 300 resolve() calls per
 * function name, all pure functions of the types.
 */
#include <string.h>

#include "sql/func/func_internal.h"
#include "sql/func/registry_list.h"

#define NPROBE 14

static void probe_types(fl_type *t)
{
    static const fl_type_id ids[] = {FL_TYPE_BOOLEAN,   FL_TYPE_INT32,  FL_TYPE_INT64,
                                     FL_TYPE_FLOAT32,   FL_TYPE_FLOAT64, FL_TYPE_DECIMAL,
                                     FL_TYPE_STRING,    FL_TYPE_BINARY, FL_TYPE_DATE,
                                     FL_TYPE_TIME,      FL_TYPE_TIMESTAMP, FL_TYPE_TIMESTAMPTZ,
                                     FL_TYPE_UUID,      FL_TYPE_FIXED};
    for (int i = 0; i < NPROBE; i++) {
        if (ids[i] == FL_TYPE_DECIMAL)
            t[i] = fl_mk_dec(18, 4);
        else if (ids[i] == FL_TYPE_FIXED)
            t[i] = fl_mk_interval();
        else
            t[i] = fl_mk(ids[i]);
        if (ids[i] == FL_TYPE_UUID)
            t[i].fixed_len = 16;
    }
}

/* Same type for signature purposes (decimal precision and scale aside). */
static bool same(const fl_type *a, const fl_type *b)
{
    if (a->id != b->id)
        return false;
    if (a->id == FL_TYPE_FIXED)
        return fl_type_is_interval(a) == fl_type_is_interval(b);
    if (a->id == FL_TYPE_STRING)
        return a->precision == b->precision; /* catalog array text vs plain text */
    if (a->id == FL_TYPE_LIST || a->id == FL_TYPE_STRUCT || a->id == FL_TYPE_MAP)
        return fl_type_equal(a, b);
    return true;
}

typedef struct acc {
    fl_arena *a;
    fl_func_sig *v;
    uint32_t n, cap;
} acc;

static fl_status push(acc *c, const fl_func_sig *s, fl_error *err)
{
    if (c->n == c->cap) {
        uint32_t ncap = c->cap ? 2 * c->cap : 256;
        fl_func_sig *nv = fl_arena_alloc(c->a, (size_t)ncap * sizeof *nv);
        if (!nv)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (c->n)
            memcpy(nv, c->v, (size_t)c->n * sizeof *nv);
        c->v = nv;
        c->cap = ncap;
    }
    c->v[c->n++] = *s;
    return FL_OK;
}

/* Does f take args exactly? Fills the signature when it does. */
static bool exact(const fl_func *f, const fl_type *args, uint32_t n, fl_func_sig *s)
{
    fl_type at[16], r;
    memset(at, 0, sizeof at);
    memset(&r, 0, sizeof r);
    for (uint32_t i = 0; i < n; i++)
        at[i] = args[i];
    if (!f->resolve || !f->resolve(args, n, &r, at))
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (!same(&at[i], &args[i]))
            return false;
    memset(s, 0, sizeof *s);
    s->fn = f;
    s->nargs = n;
    for (uint32_t i = 0; i < n; i++)
        s->args[i] = args[i];
    s->result = r;
    return true;
}

static bool dup(const acc *c, uint32_t from, const fl_func_sig *s)
{
    for (uint32_t i = from; i < c->n; i++) {
        const fl_func_sig *o = &c->v[i];
        if (o->nargs != s->nargs || o->fn->kind != s->fn->kind)
            continue;
        bool eq = true;
        for (uint32_t k = 0; k < s->nargs && eq; k++)
            eq = same(&o->args[k], &s->args[k]);
        if (eq)
            return true;
    }
    return false;
}

/* The exact signatures of f with n arguments, appended from c->n; when
 * there are too many they are replaced by one anyelement signature. */
static fl_status probe_arity(acc *c, uint32_t from, const fl_func *f, uint32_t n,
                             const fl_type *pt, fl_error *err)
{
    uint32_t start = c->n;
    fl_type args[FL_FUNC_SIG_MAX_ARGS];
    fl_func_sig s;
    uint32_t combos = n == 0 ? 1 : n == 1 ? NPROBE : n == 2 ? NPROBE * NPROBE : NPROBE * 7;
    for (uint32_t k = 0; k < combos; k++) {
        if (n == 1) {
            args[0] = pt[k];
        } else if (n == 2) {
            args[0] = pt[k / NPROBE];
            args[1] = pt[k % NPROBE];
        } else if (n == 3) {
            const fl_type *t = &pt[k / 7];
            static const int second[7][2] = {{-1, -1}, {1, 1}, {6, 6}, {2, 2}, {6, 1}, {1, 6}, {-1, 13}};
            const int *p = second[k % 7];
            args[0] = *t;
            args[1] = p[0] < 0 ? *t : pt[p[0]];
            args[2] = p[1] < 0 ? *t : pt[p[1]];
        }
        if (exact(f, args, n, &s) && !dup(c, from, &s))
            FL_TRY(push(c, &s, err));
    }
    if (c->n - start > FL_FUNC_SIG_MAX_EXACT) {
        fl_func_sig any = c->v[start];
        any.form = FL_SIG_ANYELEMENT;
        any.result_poly = false;
        for (uint32_t i = start + 1; i < c->n; i++)
            if (!same(&c->v[i].result, &any.result))
                any.result_poly = true;
        c->n = start;
        FL_TRY(push(c, &any, err));
    }
    return FL_OK;
}

static bool listed(const char *name)
{
    if (!((name[0] >= 'a' && name[0] <= 'z') || name[0] == '_') || strncmp(name, "__", 2) == 0)
        return false;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
    return true;
}

fl_status fl_func_signatures(fl_arena *a, fl_func_sig **out, uint32_t *n, fl_error *err)
{
    acc c = {.a = a};
    fl_type pt[NPROBE];
    probe_types(pt);
    for (uint32_t i = 0;; i++) {
        const fl_func *f = fl_func_at(i);
        if (!f)
            break;
        if (!listed(f->name))
            continue;
        bool seen = false; /* names are grouped: handled at their first entry */
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = strcmp(fl_func_at(j)->name, f->name) == 0;
        if (seen)
            continue;
        uint32_t from = c.n;
        for (uint32_t j = i;; j++) {
            const fl_func *g = fl_func_at(j);
            if (!g)
                break;
            if (strcmp(g->name, f->name) != 0)
                continue;
            for (uint32_t ar = 0; ar <= FL_FUNC_SIG_MAX_ARGS; ar++)
                FL_TRY(probe_arity(&c, from, g, ar, pt, err));
        }
        if (c.n == from) {
            fl_func_sig v;
            memset(&v, 0, sizeof v);
            v.fn = f;
            v.form = FL_SIG_VARIADIC;
            v.nargs = 1;
            v.result_poly = true;
            FL_TRY(push(&c, &v, err));
        }
        for (uint32_t k = from; k < c.n; k++)
            c.v[k].ordinal = k - from;
    }
    *out = c.v;
    *n = c.n;
    return FL_OK;
}
