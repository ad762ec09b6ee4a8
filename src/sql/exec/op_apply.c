/*
 * op_apply.c - the operators the binder uses where decorrelation into joins
 * is not exact (lateral):
 *
 *   APPLY    nested-loop apply. For each live row of the outer child the
 *            parameter expressions are evaluated, bound to their parameter
 *            slots (indexes past the statement's own $n) and the inner plan
 *            (children[1]) runs as a separate single-threaded execution with
 *            those values (fl_exec_collect). Results are memoized by the
 *            parameter values (bounded: APPLY_CACHE_ENTRIES entries and
 *            APPLY_CACHE_ROWS inner rows per operator instance), so an outer
 *            side with few distinct correlation values runs the inner plan
 *            few times. An inner SRF (unnest, generate_series) is generated
 *            directly without an execution.
 *            Output per plan.h: INNER/LEFT outer ++ inner rows, SEMI/ANTI
 *            outer rows, MARK outer ++ ANY(inner BOOLEAN column) three-valued,
 *            SINGLE outer ++ the inner row (21000 for more than one).
 *   RECURSE  WITH RECURSIVE: the non-recursive term runs once; then the
 *            recursive term runs with its work table (a ROWS scan reading
 *            u.recurse.work) pointed at the previous iteration's new rows until
 *            an iteration yields none. UNION drops rows seen before (rows are
 *            keyed by their serialized values); UNION ALL keeps all. More than
 *            max_iterations iterations is error 54001 instead of a hang.
 *   SRF      a set-returning function over constant or parameter arguments,
 *            materialized at prepare.
 *
 * Parameter values are fl_value scalars; a nested value (an array for a
 * correlated unnest) travels as an fl_value of the nested type whose
 * v.bytes.ptr points at a one-row fl_vector owned by the apply operator:
 * only the SRF generator reads such values (nested_param()); anything else
 * evaluating them gets value.c's "constants of nested types" error.
 *
 * OWNERSHIP: per-thread ops own their pending output (ex_rows), parameter
 * arrays and cache; the plan is read-only except u.recurse.work, which the
 * RECURSE node owning it sets while it runs (busy flag).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/exec/exec_internal.h"
#include "sql/exec/op_apply.h"

/* value.c (sqlfunc): one row of a vector as a scalar value, bytes in a */
fl_status fl_vector_to_value(const fl_vector *vec, uint32_t row, fl_arena *a, fl_value *out,
                             fl_error *err);

#define APPLY_CACHE_ENTRIES 8192u
#define APPLY_CACHE_ROWS 262144u

/* ---- row keys: serialized values (cache keys, UNION dedup) ---- */

typedef struct keybuf {
    uint8_t *p;
    size_t n, cap;
} keybuf;

static fl_status kb_put(keybuf *k, const void *src, size_t n, fl_error *err)
{
    if (k->n + n > k->cap) {
        size_t nc = k->cap ? k->cap * 2 : 64;
        while (nc < k->n + n)
            nc *= 2;
        uint8_t *np = realloc(k->p, nc);
        if (!np)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        k->p = np;
        k->cap = nc;
    }
    if (n)
        memcpy(k->p + k->n, src, n);
    k->n += n;
    return FL_OK;
}

/* appends row r of v (any encoding, any type) to k */
static fl_status kb_value(keybuf *k, const fl_vector *v, uint32_t r, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    uint8_t valid = fl_unified_is_valid(&u, r);
    FL_TRY(kb_put(k, &valid, 1, err));
    if (!valid)
        return FL_OK;
    uint32_t br = fl_unified_row(&u, r);
    const fl_vector *b = u.base;
    const fl_type *t = v->type;
    switch (t->id) {
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: {
        size_t len;
        const uint8_t *p = fl_vector_bytes(b, br, &len);
        uint64_t l = len;
        FL_TRY(kb_put(k, &l, sizeof l, err));
        return kb_put(k, p, len, err);
    }
    case FL_TYPE_LIST:
    case FL_TYPE_MAP: {
        int64_t s = b->offsets[br], e = b->offsets[br + 1];
        uint64_t l = (uint64_t)(e - s);
        FL_TRY(kb_put(k, &l, sizeof l, err));
        for (uint32_t c = 0; c < b->nchildren; c++)
            for (int64_t i = s; i < e; i++)
                FL_TRY(kb_value(k, &b->children[c], (uint32_t)i, err));
        return FL_OK;
    }
    case FL_TYPE_STRUCT:
        for (uint32_t c = 0; c < b->nchildren; c++)
            FL_TRY(kb_value(k, &b->children[c], br, err));
        return FL_OK;
    case FL_TYPE_FLOAT64: {
        double d;
        memcpy(&d, b->data + (size_t)br * 8, 8);
        if (d == 0)
            d = 0; /* -0 = 0 */
        return kb_put(k, &d, 8, err);
    }
    case FL_TYPE_FLOAT32: {
        float f;
        memcpy(&f, b->data + (size_t)br * 4, 4);
        if (f == 0)
            f = 0;
        return kb_put(k, &f, 4, err);
    }
    default: {
        size_t w = fl_type_width(t);
        return kb_put(k, b->data + (size_t)br * w, w, err);
    }
    }
}

static uint64_t key_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h ^ (h >> 29);
}

/* a set / map of byte keys (open addressing) */
typedef struct kset {
    struct kent {
        uint8_t *key; /* NULL = empty */
        size_t len;
        uint64_t h;
        void *val;
    } *e;
    uint32_t n, cap;
    uint64_t bytes;
} kset;

static struct kent *kset_find(kset *s, const uint8_t *k, size_t n, uint64_t h)
{
    if (!s->cap)
        return NULL;
    for (uint32_t i = (uint32_t)h & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        struct kent *e = &s->e[i];
        if (!e->key)
            return e;
        if (e->h == h && e->len == n && (n == 0 || memcmp(e->key, k, n) == 0))
            return e;
    }
}

/* *found: the key was present; else it is inserted (val NULL) */
static fl_status kset_add(kset *s, const uint8_t *k, size_t n, struct kent **out, bool *found,
                          fl_error *err)
{
    if ((s->n + 1) * 2 > s->cap) {
        uint32_t nc = s->cap ? s->cap * 2 : 64;
        struct kent *ne = calloc(nc, sizeof *ne);
        if (!ne)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        kset old = *s;
        s->e = ne;
        s->cap = nc;
        for (uint32_t i = 0; i < old.cap; i++)
            if (old.e[i].key)
                *kset_find(s, old.e[i].key, old.e[i].len, old.e[i].h) = old.e[i];
        free(old.e);
    }
    uint64_t h = key_hash(k, n);
    struct kent *e = kset_find(s, k, n, h);
    *found = e->key != NULL;
    if (!*found) {
        e->key = malloc(n ? n : 1);
        if (!e->key)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (n)
            memcpy(e->key, k, n);
        e->len = n;
        e->h = h;
        e->val = NULL;
        s->n++;
        s->bytes += n + sizeof *e;
    }
    *out = e;
    return FL_OK;
}

static void kset_free(kset *s, void (*free_val)(void *))
{
    for (uint32_t i = 0; i < s->cap; i++)
        if (s->e[i].key) {
            free(s->e[i].key);
            if (free_val && s->e[i].val)
                free_val(s->e[i].val);
        }
    free(s->e);
    memset(s, 0, sizeof *s);
}

/* ---- SRF generation ---- */

static const fl_vector *nested_param(const fl_eval_env *env, const fl_expr *e)
{
    if (e->kind != FL_EXPR_PARAM || !fl_type_is_nested(&e->type) || !env->params ||
        e->param >= env->nparams || env->params[e->param].is_null)
        return NULL;
    return (const fl_vector *)env->params[e->param].v.bytes.ptr;
}

/* evaluates SRF argument i into a one-row vector *v (initialized here) */
static fl_status srf_arg(ex_thread *th, const fl_eval_env *env, const fl_expr *e, fl_vector *v,
                         const fl_vector **out, fl_error *err)
{
    const fl_vector *np = nested_param(env, e);
    if (np) {
        *out = np;
        return FL_OK;
    }
    if (e->kind == FL_EXPR_PARAM && fl_type_is_nested(&e->type) && env->params &&
        e->param < env->nparams && env->params[e->param].is_null) {
        FL_TRY(fl_vector_init(v, &e->type, err));
        FL_TRY(fl_vector_append_null(v, err));
        *out = v;
        return FL_OK;
    }
    fl_batch one = {.ncols = 0, .cols = NULL, .nrows = 1};
    FL_TRY(fl_vector_init(v, &e->type, err));
    FL_TRY(ex_eval(th, e, &one, NULL, v, err));
    *out = v;
    return FL_OK;
}

static fl_status int_of(const fl_vector *v, bool *null, int64_t *out)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    if (!fl_unified_is_valid(&u, 0)) {
        *null = true;
        return FL_OK;
    }
    uint32_t r = fl_unified_row(&u, 0);
    if (v->type->id == FL_TYPE_INT32) {
        int32_t x;
        memcpy(&x, u.base->data + (size_t)r * 4, 4);
        *out = x;
    } else {
        memcpy(out, u.base->data + (size_t)r * 8, 8);
    }
    return FL_OK;
}

static fl_status flush_rows(fl_exec *x, ex_rows *rows, fl_vector *cols, uint32_t ncols,
                            uint32_t *n, fl_error *err)
{
    if (!*n)
        return FL_OK;
    const fl_vector **cp = calloc(ncols ? ncols : 1, sizeof *cp);
    if (!cp)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t c = 0; c < ncols; c++)
        cp[c] = &cols[c];
    fl_status rc = ex_rows_append(x, rows, cp, *n, NULL, err);
    free(cp);
    FL_TRY(rc);
    for (uint32_t c = 0; c < ncols; c++)
        fl_vector_reset(&cols[c]);
    *n = 0;
    return FL_OK;
}

/* one element of PostgreSQL array text at *pos into buf; false at the end */
static bool text_elem(const uint8_t *p, size_t n, size_t *pos, bool braces, keybuf *buf,
                      bool *isnull, fl_error *err, fl_status *rc)
{
    size_t i = *pos;
    buf->n = 0;
    *isnull = false;
    while (i < n && p[i] == ' ')
        i++;
    if (i >= n || (braces && p[i] == '}'))
        return false;
    bool quoted = false;
    if (braces && p[i] == '"') {
        quoted = true;
        for (i++; i < n && p[i] != '"'; i++) {
            if (p[i] == '\\' && i + 1 < n)
                i++;
            if ((*rc = kb_put(buf, &p[i], 1, err)) != FL_OK)
                return false;
        }
        i++;
    } else {
        int depth = 0;
        for (; i < n; i++) {
            uint8_t ch = p[i];
            if (braces ? (depth == 0 && (ch == ',' || ch == '}')) : ch == ' ')
                break;
            depth += ch == '{' ? 1 : ch == '}' ? -1 : 0;
            if ((*rc = kb_put(buf, &ch, 1, err)) != FL_OK)
                return false;
        }
        while (buf->n && buf->p[buf->n - 1] == ' ')
            buf->n--;
    }
    if (!quoted && buf->n == 4 && strncasecmp((const char *)buf->p, "NULL", 4) == 0)
        *isnull = true;
    while (i < n && p[i] == ' ')
        i++;
    if (braces && i < n && p[i] == ',')
        i++;
    *pos = i;
    return true;
}

static fl_status unnest_text(fl_exec *x, const fl_vector *v, ex_rows *rows, fl_vector *cols,
                             uint32_t ncols, bool ordinality, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    if (!fl_unified_is_valid(&u, 0))
        return FL_OK;
    size_t n;
    const uint8_t *p = fl_vector_bytes(u.base, fl_unified_row(&u, 0), &n);
    size_t pos = 0;
    while (pos < n && p[pos] == ' ')
        pos++;
    if (pos < n && p[pos] == '[') { /* "[1:2]={...}" */
        while (pos < n && p[pos] != '=')
            pos++;
        pos++;
    }
    bool braces = pos < n && p[pos] == '{';
    if (braces)
        pos++;
    keybuf buf = {0};
    fl_status rc = FL_OK;
    bool isnull;
    uint32_t out = 0;
    int64_t ord = 0;
    while (!rc && text_elem(p, n, &pos, braces, &buf, &isnull, err, &rc)) {
        if (braces && buf.n && buf.p[0] == '{' && !isnull) {
            rc = fl_errorf(err, FL_EUNSUPPORTED, "unnest() of a multidimensional array");
            break;
        }
        rc = isnull ? fl_vector_append_null(&cols[0], err)
                    : fl_vector_append_bytes(&cols[0], buf.p ? buf.p : (const uint8_t *)"",
                                             buf.n, err);
        if (!rc && ordinality) {
            ++ord;
            rc = fl_vector_append_fixed(&cols[1], &ord, err);
        }
        if (!rc && ++out == FL_BATCH_CAP)
            rc = flush_rows(x, rows, cols, ncols, &out, err);
    }
    if (!rc)
        rc = flush_rows(x, rows, cols, ncols, &out, err);
    free(buf.p);
    return rc;
}

/* elements of array argument v (LIST or PostgreSQL array text) appended to
 * out (element type, or STRING for text); *count their number, *lower the
 * lower bound (int2vector text: 0) */
static fl_status array_elems(const fl_vector *v, fl_vector *out, int64_t *count, int64_t *lower,
                             fl_error *err)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    *count = 0;
    *lower = 1;
    if (!fl_unified_is_valid(&u, 0))
        return FL_OK;
    uint32_t r = fl_unified_row(&u, 0);
    if (v->type->id == FL_TYPE_LIST) {
        int64_t s = u.base->offsets[r], e = u.base->offsets[r + 1];
        for (int64_t i = s; out && i < e; i++)
            FL_TRY(fl_vector_append_from(out, &u.base->children[0], (uint32_t)i, err));
        *count = e - s;
        return FL_OK;
    }
    size_t n;
    const uint8_t *p = fl_vector_bytes(u.base, r, &n);
    size_t pos = 0;
    while (pos < n && p[pos] == ' ')
        pos++;
    if (pos < n && p[pos] == '[') {
        while (pos < n && p[pos] != '=')
            pos++;
        pos++;
    }
    bool braces = pos < n && p[pos] == '{';
    if (braces)
        pos++;
    else if (pos < n)
        *lower = 0; /* int2vector / oidvector "1 2 3" */
    keybuf buf = {0};
    fl_status rc = FL_OK;
    bool isnull;
    while (!rc && text_elem(p, n, &pos, braces, &buf, &isnull, err, &rc)) {
        ++*count;
        if (out)
            rc = isnull ? fl_vector_append_null(out, err)
                        : fl_vector_append_bytes(out, buf.p ? buf.p : (const uint8_t *)"", buf.n,
                                                 err);
    }
    free(buf.p);
    return rc;
}

static fl_status append_int(fl_vector *out, int64_t v, fl_error *err)
{
    if (out->type->id == FL_TYPE_INT32) {
        int32_t x = (int32_t)v;
        return fl_vector_append_fixed(out, &x, err);
    }
    return fl_vector_append_fixed(out, &v, err);
}

/* one stream of the lockstep form into out (its column type) */
static fl_status stream_gen(ex_thread *th, const fl_eval_env *env, const fl_srf_stream *st,
                            fl_vector *out, fl_error *err)
{
    fl_vector argv[3];
    const fl_vector *args[3] = {NULL, NULL, NULL};
    uint32_t na = st->nargs < 3 ? st->nargs : 3, done = 0;
    fl_status rc = FL_OK;
    for (; !rc && done < na; done++)
        rc = srf_arg(th, env, st->args[done], &argv[done], &args[done], err);
    if (!rc && st->fn == FL_SRF_SERIES) {
        int64_t v[3] = {0, 0, 1};
        bool null = false;
        for (uint32_t i = 0; i < na; i++)
            int_of(args[i], &null, &v[i]);
        if (!null && v[2] == 0)
            rc = fl_error_state(err, FL_EINVAL, "22023",
                                "step size cannot equal zero (SQLSTATE 22023)");
        int64_t cnt = 0;
        for (__int128 c = v[0]; !rc && !null && (v[2] > 0 ? c <= v[1] : c >= v[1]); c += v[2]) {
            if (out->type->id == FL_TYPE_INT32 && (c > INT32_MAX || c < INT32_MIN))
                break;
            rc = append_int(out, (int64_t)c, err);
            if (!rc && (++cnt & 4095) == 0)
                rc = ex_check(th->x, err);
        }
    } else if (!rc) {
        int64_t count, lower;
        bool elems = st->fn == FL_SRF_UNNEST;
        rc = array_elems(args[0], elems ? out : NULL, &count, &lower, err);
        if (!rc && st->fn == FL_SRF_SUBSCRIPTS) {
            bool null = false;
            int64_t dim = 1;
            if (na > 1)
                int_of(args[1], &null, &dim);
            for (int64_t i = 0; !rc && !null && dim == 1 && i < count; i++)
                rc = append_int(out, lower + i, err);
        } else if (!rc && st->fn == FL_SRF_POSITIONS) {
            for (int64_t i = 0; !rc && i < count; i++)
                rc = append_int(out, i + 1, err);
        }
    }
    for (uint32_t i = 0; i < done; i++)
        if (args[i] == &argv[i])
            fl_vector_destroy(&argv[i]);
    return rc;
}

/* lockstep form: every stream materialized, then zipped */
static fl_status streams_generate(ex_thread *th, const fl_eval_env *env, fl_exec *x,
                                  const fl_plan *p, ex_rows *rows, fl_error *err)
{
    uint32_t ns = p->u.srf.nstreams;
    fl_vector *vals = calloc(ns, sizeof *vals);
    fl_vector *cols = calloc(ns, sizeof *cols);
    fl_status rc = vals && cols ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t inited = 0;
    for (; !rc && inited < ns; inited++) {
        rc = fl_vector_init(&vals[inited], &p->schema.fields[inited].type, err);
        if (!rc)
            rc = fl_vector_init(&cols[inited], &p->schema.fields[inited].type, err);
    }
    uint32_t maxlen = 0;
    for (uint32_t i = 0; !rc && i < ns; i++) {
        rc = stream_gen(th, env, &p->u.srf.streams[i], &vals[i], err);
        if (!rc && vals[i].len > maxlen)
            maxlen = vals[i].len;
    }
    uint32_t n = 0;
    for (uint32_t r = 0; !rc && r < maxlen; r++) {
        for (uint32_t i = 0; !rc && i < ns; i++)
            rc = r < vals[i].len ? fl_vector_append_from(&cols[i], &vals[i], r, err)
                                 : fl_vector_append_null(&cols[i], err);
        if (!rc && ++n == FL_BATCH_CAP)
            rc = flush_rows(x, rows, cols, ns, &n, err);
    }
    if (!rc)
        rc = flush_rows(x, rows, cols, ns, &n, err);
    for (uint32_t i = 0; i < inited; i++) {
        fl_vector_destroy(&vals[i]);
        fl_vector_destroy(&cols[i]);
    }
    free(vals);
    free(cols);
    return rc;
}

/* Generates the rows of an SRF plan into rows (schema = p->schema); th->st
 * evaluates with env; memory is accounted to x when not NULL. */
static fl_status srf_generate(ex_thread *th, const fl_eval_env *env, fl_exec *x, const fl_plan *p,
                              ex_rows *rows, fl_error *err)
{
    if (p->u.srf.nstreams)
        return streams_generate(th, env, x, p, rows, err);
    uint32_t nargs = p->u.srf.nargs, ncols = p->schema.nfields;
    fl_vector *argv = calloc(nargs ? nargs : 1, sizeof *argv);
    const fl_vector **args = calloc(nargs ? nargs : 1, sizeof *args);
    fl_vector *cols = calloc(ncols ? ncols : 1, sizeof *cols);
    fl_status rc = argv && args && cols ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t inited = 0;
    for (; !rc && inited < ncols; inited++)
        rc = fl_vector_init(&cols[inited], &p->schema.fields[inited].type, err);
    for (uint32_t i = 0; !rc && i < nargs; i++)
        rc = srf_arg(th, env, p->u.srf.args[i], &argv[i], &args[i], err);
    uint32_t n = 0;
    int64_t ord = 0;
    if (!rc && p->u.srf.fn == FL_SRF_SERIES) {
        int64_t v[3] = {0, 0, 1};
        bool null = false;
        for (uint32_t i = 0; i < nargs && i < 3; i++)
            int_of(args[i], &null, &v[i]);
        if (!null && v[2] == 0)
            rc = fl_error_state(err, FL_EINVAL, "22023",
                                "step size cannot equal zero (SQLSTATE 22023)");
        for (__int128 c = v[0]; !rc && !null && (v[2] > 0 ? c <= v[1] : c >= v[1]); c += v[2]) {
            int64_t cv = (int64_t)c;
            rc = fl_vector_append_fixed(&cols[0], &cv, err);
            if (!rc && p->u.srf.ordinality) {
                ++ord;
                rc = fl_vector_append_fixed(&cols[1], &ord, err);
            }
            if (!rc && ++n == FL_BATCH_CAP) {
                rc = flush_rows(x, rows, cols, ncols, &n, err);
                if (!rc)
                    rc = ex_check(th->x, err);
            }
        }
    } else if (!rc && nargs == 1 && args[0]->type->id == FL_TYPE_STRING) {
        /* unnest over PostgreSQL array text ("{a,\"b c\",NULL}", int2vector
         * "1 2 3"): text elements; the binder casts them to the element type */
        rc = unnest_text(x, args[0], rows, cols, ncols, p->u.srf.ordinality, err);
    } else if (!rc) {
        /* unnest(a1, a2, ...): element i of each array, NULLs past a shorter one */
        int64_t start[nargs ? nargs : 1], len[nargs ? nargs : 1], maxlen = 0;
        const fl_vector *base[nargs ? nargs : 1];
        for (uint32_t i = 0; i < nargs; i++) {
            fl_unified u;
            fl_vector_unify(args[i], &u);
            base[i] = u.base;
            start[i] = len[i] = 0;
            if (args[i]->type->id != FL_TYPE_LIST) {
                rc = fl_errorf(err, FL_ETYPE, "unnest() needs an array argument");
                break;
            }
            if (!fl_unified_is_valid(&u, 0))
                continue;
            uint32_t r = fl_unified_row(&u, 0);
            start[i] = u.base->offsets[r];
            len[i] = u.base->offsets[r + 1] - start[i];
            if (len[i] > maxlen)
                maxlen = len[i];
        }
        for (int64_t k = 0; !rc && k < maxlen; k++) {
            for (uint32_t i = 0; !rc && i < nargs; i++)
                rc = k < len[i] ? fl_vector_append_from(&cols[i], &base[i]->children[0],
                                                        (uint32_t)(start[i] + k), err)
                                : fl_vector_append_null(&cols[i], err);
            if (!rc && p->u.srf.ordinality) {
                int64_t o = k + 1;
                rc = fl_vector_append_fixed(&cols[nargs], &o, err);
            }
            if (!rc && ++n == FL_BATCH_CAP)
                rc = flush_rows(x, rows, cols, ncols, &n, err);
        }
    }
    if (!rc)
        rc = flush_rows(x, rows, cols, ncols, &n, err);
    for (uint32_t i = 0; i < nargs && argv; i++)
        if (args && args[i] == &argv[i])
            fl_vector_destroy(&argv[i]);
    for (uint32_t i = 0; i < inited; i++)
        fl_vector_destroy(&cols[i]);
    free(argv);
    free(args);
    free(cols);
    return rc;
}

static fl_status srf_prepare(ex_node *n, fl_error *err)
{
    ex_thread th = {.x = n->x};
    FL_TRY(ex_eval_state_new(&n->x->env, &th.st, err));
    fl_status rc = srf_generate(&th, &n->x->env, n->x, n->p, &n->out, err);
    ex_eval_state_free(th.st);
    atomic_fetch_add(&n->p->stats.rows_out, 0);
    return rc;
}

fl_status ex_srf_node(ex_node *n, fl_error *err)
{
    if (!n->p->u.srf.nstreams && n->p->u.srf.fn != FL_SRF_UNNEST &&
        n->p->u.srf.fn != FL_SRF_SERIES)
        return fl_errorf(err, FL_EINVAL, "SRF node with an unknown function");
    n->prepare = srf_prepare;
    n->open = ex_open_rows;
    return FL_OK;
}

/* ---- running a plan with extra parameters ---- */

static fl_status run_inner(ex_thread *th, fl_plan *p, const fl_value *params, uint32_t nparams,
                           ex_rows *out, fl_error *err)
{
    fl_exec *x = th->x;
    if (p->kind == FL_PLAN_SRF) {
        /* direct: no execution needed */
        fl_eval_env env = x->env;
        env.params = params;
        env.nparams = nparams;
        ex_thread t2 = {.x = x};
        FL_TRY(ex_eval_state_new(&env, &t2.st, err));
        fl_status rc = srf_generate(&t2, &env, NULL, p, out, err);
        ex_eval_state_free(t2.st);
        return rc;
    }
    fl_exec_options o = x->opt;
    o.env = x->env;
    o.env.params = params;
    o.env.nparams = nparams;
    o.env.run_subquery = NULL;
    o.env.exec_ctx = NULL;
    o.threads = 1;
    fl_batch **bs = NULL;
    uint32_t nb = 0;
    FL_TRY(fl_exec_collect(p, &o, &bs, &nb, err));
    out->b = bs;
    out->n = out->cap = nb;
    for (uint32_t i = 0; i < nb; i++)
        out->rows += bs[i]->nrows;
    return FL_OK;
}

/* ---- APPLY ---- */

typedef struct apply_res {
    ex_rows rows; /* INNER/LEFT/SINGLE */
    int mark;     /* SEMI/ANTI/MARK: 1 true, 0 false, -1 NULL */
} apply_res;

static void res_free(void *v)
{
    apply_res *r = v;
    if (!r)
        return;
    ex_rows_free(NULL, &r->rows);
    free(r);
}

typedef struct apply_op {
    ex_op base;
    ex_op *child;
    ex_exprs px;
    fl_value *params;
    uint32_t nparams;
    fl_arena varena;   /* param bytes of the current row */
    fl_vector *nested; /* per param: one-row copy of a nested value */
    bool *nested_init;
    ex_rows pending; /* output batches */
    uint32_t pend_i;
    fl_vector *outv; /* output columns being filled */
    uint32_t outn;
    kset cache;
    uint64_t cached_rows;
    keybuf key;
} apply_op;

static fl_status out_row(apply_op *o, const fl_batch *ob, uint32_t r, const fl_batch *ib,
                         uint32_t ir, int mark, fl_error *err)
{
    const fl_plan *p = o->base.node->p;
    uint32_t nl = ob->ncols, nout = p->schema.nfields;
    for (uint32_t c = 0; c < nl; c++)
        FL_TRY(fl_vector_append_from(&o->outv[c], &ob->cols[c], r, err));
    if (p->u.apply.type == FL_JOIN_MARK) {
        if (mark < 0)
            FL_TRY(fl_vector_append_null(&o->outv[nl], err));
        else {
            uint8_t b = (uint8_t)mark;
            FL_TRY(fl_vector_append_fixed(&o->outv[nl], &b, err));
        }
    } else {
        for (uint32_t c = nl; c < nout; c++)
            FL_TRY(ib ? fl_vector_append_from(&o->outv[c], &ib->cols[c - nl], ir, err)
                      : fl_vector_append_null(&o->outv[c], err));
    }
    if (++o->outn == FL_BATCH_CAP)
        return flush_rows(o->base.th->x, &o->pending, o->outv, nout, &o->outn, err);
    return FL_OK;
}

/* ANY over inner BOOLEAN column 0 */
static int any_mark(const ex_rows *rows)
{
    int m = 0;
    for (uint32_t i = 0; i < rows->n; i++) {
        const fl_batch *b = rows->b[i];
        fl_unified u;
        fl_vector_unify(&b->cols[0], &u);
        for (uint32_t r = 0; r < b->nrows; r++) {
            if (!fl_unified_is_valid(&u, r)) {
                m = -1;
                continue;
            }
            if (u.base->data[fl_unified_row(&u, r)])
                return 1;
        }
    }
    return m;
}

/* binds the params of outer row r; *cacheable when every value is scalar */
static fl_status bind_row(apply_op *o, uint32_t r, bool *cacheable, fl_error *err)
{
    const fl_plan *p = o->base.node->p;
    fl_arena_reset(&o->varena);
    o->key.n = 0;
    *cacheable = true;
    for (uint32_t i = 0; i < p->u.apply.nparams; i++) {
        const fl_vector *v = o->px.ptrs[i];
        fl_value *dst = &o->params[p->u.apply.slots[i]];
        if (fl_type_is_nested(v->type)) {
            *cacheable = false;
            fl_vector *nv = &o->nested[i];
            if (!o->nested_init[i]) {
                FL_TRY(fl_vector_init(nv, v->type, err));
                o->nested_init[i] = true;
            }
            fl_vector_reset(nv);
            FL_TRY(fl_vector_append_from(nv, v, r, err));
            memset(dst, 0, sizeof *dst);
            dst->type = *v->type;
            dst->type.nchildren = 0;
            dst->type.children = NULL;
            dst->is_null = !fl_vector_is_valid(nv, 0);
            dst->v.bytes.ptr = (const uint8_t *)nv;
            continue;
        }
        FL_TRY(fl_vector_to_value(v, r, &o->varena, dst, err));
        FL_TRY(kb_value(&o->key, v, r, err));
    }
    return FL_OK;
}

static fl_status compute(apply_op *o, apply_res *res, fl_error *err)
{
    fl_plan *p = o->base.node->p;
    FL_TRY(run_inner(o->base.th, p->children[1], o->params, o->nparams, &res->rows, err));
    fl_join_type t = p->u.apply.type;
    if (t == FL_JOIN_SINGLE && res->rows.rows > 1)
        return fl_error_state(err, FL_EINVAL, "21000",
                              "more than one row returned by a subquery used as an expression "
                              "(SQLSTATE 21000)");
    if (t == FL_JOIN_SEMI || t == FL_JOIN_ANTI || t == FL_JOIN_MARK) {
        res->mark = t == FL_JOIN_MARK ? any_mark(&res->rows) : res->rows.rows > 0;
        ex_rows_free(NULL, &res->rows);
    }
    return FL_OK;
}

static fl_status apply_outer_row(apply_op *o, const fl_batch *b, uint32_t r, fl_error *err)
{
    fl_plan *p = o->base.node->p;
    bool cacheable;
    FL_TRY(bind_row(o, r, &cacheable, err));
    apply_res local;
    memset(&local, 0, sizeof local);
    apply_res *res = &local;
    bool own = true;
    if (cacheable && o->cache.n < APPLY_CACHE_ENTRIES && o->cached_rows < APPLY_CACHE_ROWS) {
        struct kent *e;
        bool found;
        FL_TRY(kset_add(&o->cache, o->key.p, o->key.n, &e, &found, err));
        if (!found) {
            apply_res *nr = calloc(1, sizeof *nr);
            if (!nr)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            e->val = nr;
            ex_rows_init(&nr->rows, &p->children[1]->schema);
            fl_status rc = compute(o, nr, err);
            if (rc)
                return rc;
            o->cached_rows += nr->rows.rows + 1;
        }
        res = e->val;
        own = false;
    } else if (cacheable && o->cache.n) {
        struct kent *e = kset_find(&o->cache, o->key.p, o->key.n, key_hash(o->key.p, o->key.n));
        if (e && e->key) {
            res = e->val;
            own = false;
        }
    }
    fl_status rc = FL_OK;
    if (own) {
        ex_rows_init(&local.rows, &p->children[1]->schema);
        rc = compute(o, &local, err);
    }
    fl_join_type t = p->u.apply.type;
    if (!rc) {
        switch (t) {
        case FL_JOIN_SEMI:
        case FL_JOIN_ANTI:
            if ((res->mark == 1) == (t == FL_JOIN_SEMI))
                rc = out_row(o, b, r, NULL, 0, 0, err);
            break;
        case FL_JOIN_MARK: rc = out_row(o, b, r, NULL, 0, res->mark, err); break;
        default: {
            bool any = false;
            for (uint32_t i = 0; !rc && i < res->rows.n; i++)
                for (uint32_t k = 0; !rc && k < res->rows.b[i]->nrows; k++) {
                    any = true;
                    rc = out_row(o, b, r, res->rows.b[i], k, 0, err);
                }
            if (!rc && !any && (t == FL_JOIN_LEFT || t == FL_JOIN_SINGLE))
                rc = out_row(o, b, r, NULL, 0, 0, err);
        }
        }
    }
    if (own)
        ex_rows_free(NULL, &local.rows);
    return rc;
}

static fl_status apply_next(ex_op *op, const fl_batch **out, fl_error *err)
{
    apply_op *o = (apply_op *)op;
    fl_plan *p = op->node->p;
    *out = NULL;
    for (;;) {
        if (o->pend_i < o->pending.n) {
            *out = o->pending.b[o->pend_i++];
            ex_stats_out(op->node, *out);
            return FL_OK;
        }
        ex_rows_free(op->th->x, &o->pending);
        ex_rows_init(&o->pending, &p->schema);
        o->pend_i = 0;
        if (!o->child)
            return FL_OK;
        const fl_batch *b;
        FL_TRY(o->child->next(o->child, &b, err));
        if (!b) {
            ex_op_free(o->child);
            o->child = NULL;
            FL_TRY(flush_rows(op->th->x, &o->pending, o->outv, p->schema.nfields, &o->outn, err));
            continue;
        }
        uint32_t live = fl_batch_live_rows(b);
        if (!live)
            continue;
        int64_t t0 = ex_now_ns();
        FL_TRY(ex_exprs_eval(op->th, &o->px, b, b->sel, err));
        for (uint32_t i = 0; i < live; i++) {
            FL_TRY(ex_check(op->th->x, err));
            FL_TRY(apply_outer_row(o, b, b->sel ? b->sel->idx[i] : i, err));
        }
        atomic_fetch_add(&p->stats.time_ns, ex_now_ns() - t0);
    }
}

static void apply_free(ex_op *op)
{
    apply_op *o = (apply_op *)op;
    const fl_plan *p = op->node ? op->node->p : NULL;
    ex_op_free(o->child);
    ex_exprs_free(&o->px);
    if (op->node)
        ex_rows_free(op->node->x, &o->pending);
    if (o->outv && p)
        for (uint32_t i = 0; i < p->schema.nfields; i++)
            fl_vector_destroy(&o->outv[i]);
    free(o->outv);
    if (o->nested && p)
        for (uint32_t i = 0; i < p->u.apply.nparams; i++)
            if (o->nested_init[i])
                fl_vector_destroy(&o->nested[i]);
    free(o->nested);
    free(o->nested_init);
    free(o->params);
    fl_arena_free(&o->varena);
    kset_free(&o->cache, res_free);
    free(o->key.p);
    free(o);
}

static fl_status apply_open(ex_node *n, ex_thread *th, ex_op **out, fl_error *err)
{
    const fl_plan *p = n->p;
    apply_op *o = calloc(1, sizeof *o);
    if (!o)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    o->base.next = apply_next;
    o->base.free = apply_free;
    o->base.node = n;
    o->base.th = th;
    fl_arena_init(&o->varena, 0);
    ex_rows_init(&o->pending, &p->schema);
    uint32_t np = n->x->env.nparams;
    for (uint32_t i = 0; i < p->u.apply.nparams; i++)
        if (p->u.apply.slots[i] + 1 > np)
            np = p->u.apply.slots[i] + 1;
    o->nparams = np;
    o->params = calloc(np ? np : 1, sizeof *o->params);
    o->nested = calloc(p->u.apply.nparams + 1, sizeof *o->nested);
    o->nested_init = calloc(p->u.apply.nparams + 1, sizeof *o->nested_init);
    o->outv = calloc(p->schema.nfields + 1, sizeof *o->outv);
    fl_status rc = o->params && o->nested && o->nested_init && o->outv
                       ? FL_OK
                       : fl_errorf(err, FL_ENOMEM, "out of memory");
    if (!rc && n->x->env.nparams)
        memcpy(o->params, n->x->env.params, n->x->env.nparams * sizeof *o->params);
    for (uint32_t i = 0; !rc && i < p->schema.nfields; i++)
        rc = fl_vector_init(&o->outv[i], &p->schema.fields[i].type, err);
    o->px.e = p->u.apply.params;
    o->px.n = p->u.apply.nparams;
    if (!rc)
        rc = ex_open(n->children[0], th, &o->child, err);
    if (rc) {
        apply_free(&o->base);
        return rc;
    }
    *out = &o->base;
    return FL_OK;
}

static fl_status apply_prepare(ex_node *n, fl_error *err)
{
    /* only the outer side belongs to this execution; the inner plan runs
     * per parameter binding */
    return ex_prepare(n->children[0], err);
}

fl_status ex_apply_node(ex_node *n, fl_error *err)
{
    const fl_plan *p = n->p;
    if (n->nchildren != 2)
        return fl_errorf(err, FL_EINVAL, "APPLY needs two children");
    switch (p->u.apply.type) {
    case FL_JOIN_INNER:
    case FL_JOIN_LEFT:
    case FL_JOIN_SINGLE:
        if (p->schema.nfields !=
            p->children[0]->schema.nfields + p->children[1]->schema.nfields)
            return fl_errorf(err, FL_EINVAL, "APPLY output columns do not match its inputs");
        break;
    case FL_JOIN_MARK:
        if (p->children[1]->schema.nfields < 1 ||
            p->children[1]->schema.fields[0].type.id != FL_TYPE_BOOLEAN)
            return fl_errorf(err, FL_EINVAL, "MARK APPLY needs a BOOLEAN inner column");
        break;
    case FL_JOIN_SEMI:
    case FL_JOIN_ANTI: break;
    default: return fl_errorf(err, FL_EINVAL, "APPLY of join type %d", (int)p->u.apply.type);
    }
    n->prepare = apply_prepare;
    n->open = apply_open;
    return FL_OK;
}

/* ---- RECURSE ---- */

typedef struct dedup_ctx {
    kset seen;
    keybuf key;
} dedup_ctx;

/* appends the rows of src not seen before (all of them for UNION ALL) to
 * fresh; returns the count */
static fl_status take_new(fl_exec *x, const fl_plan *p, dedup_ctx *d, fl_batch **src,
                          uint32_t nsrc, ex_rows *fresh, fl_error *err)
{
    uint32_t nc = p->schema.nfields;
    uint32_t *keep = malloc(FL_BATCH_CAP * sizeof *keep);
    if (!keep)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = FL_OK;
    for (uint32_t i = 0; !rc && i < nsrc; i++) {
        const fl_batch *b = src[i];
        uint32_t nk = 0;
        for (uint32_t r = 0; !rc && r < b->nrows; r++) {
            if (p->u.recurse.all) {
                keep[nk++] = r;
                continue;
            }
            d->key.n = 0;
            for (uint32_t c = 0; !rc && c < nc; c++)
                rc = kb_value(&d->key, &b->cols[c], r, err);
            struct kent *e;
            bool found;
            if (!rc)
                rc = kset_add(&d->seen, d->key.p, d->key.n, &e, &found, err);
            if (!rc && !found)
                keep[nk++] = r;
        }
        if (!rc && nk) {
            const fl_vector *cols[nc ? nc : 1];
            for (uint32_t c = 0; c < nc; c++)
                cols[c] = &b->cols[c];
            fl_sel s = {.idx = keep, .count = nk, .cap = FL_BATCH_CAP};
            rc = ex_rows_append(x, fresh, cols, b->nrows, &s, err);
        }
    }
    free(keep);
    return rc;
}

static fl_status recurse_run(ex_node *n, fl_error *err)
{
    fl_exec *x = n->x;
    fl_plan *p = n->p;
    fl_recurse_work *w = p->u.recurse.work;
    fl_exec_options o = x->opt;
    o.env = x->env;
    o.env.run_subquery = NULL;
    o.env.exec_ctx = NULL;
    o.threads = x->threads;
    dedup_ctx d;
    memset(&d, 0, sizeof d);
    fl_batch **bs = NULL;
    uint32_t nb = 0;
    ex_rows work;
    ex_rows_init(&work, &p->schema);
    fl_status rc = fl_exec_collect(p->children[0], &o, &bs, &nb, err);
    if (!rc)
        rc = take_new(x, p, &d, bs, nb, &work, err);
    fl_exec_free_batches(bs, nb);
    bs = NULL;
    nb = 0;
    int64_t iter = 0;
    while (!rc && work.rows > 0) {
        /* the output keeps a copy; the work table is read by the step */
        for (uint32_t i = 0; !rc && i < work.n; i++)
            rc = ex_rows_append_batch(x, &n->out, work.b[i], err);
        if (rc)
            break;
        if (++iter > p->u.recurse.max_iterations) {
            rc = fl_error_state(err, FL_ELIMIT, "54001",
                                "WITH RECURSIVE did not finish after %lld iterations (SQLSTATE "
                                "54001); check the recursive term's stop condition",
                                (long long)p->u.recurse.max_iterations);
            break;
        }
        if ((rc = ex_check(x, err)) != FL_OK)
            break;
        w->rows.batches = (const fl_batch *const *)work.b;
        w->rows.nbatches = work.n;
        rc = fl_exec_collect(p->children[1], &o, &bs, &nb, err);
        w->rows.batches = NULL;
        w->rows.nbatches = 0;
        ex_rows_free(x, &work);
        ex_rows_init(&work, &p->schema);
        if (!rc)
            rc = take_new(x, p, &d, bs, nb, &work, err);
        fl_exec_free_batches(bs, nb);
        bs = NULL;
        nb = 0;
    }
    ex_rows_free(x, &work);
    kset_free(&d.seen, NULL);
    free(d.key.p);
    return rc;
}

static fl_status recurse_prepare(ex_node *n, fl_error *err)
{
    fl_recurse_work *w = n->p->u.recurse.work;
    int expected = 0;
    while (!atomic_compare_exchange_weak(&w->busy, &expected, 1)) {
        expected = 0;
        FL_TRY(ex_check(n->x, err));
        sched_yield();
    }
    int64_t t0 = ex_now_ns();
    fl_status rc = recurse_run(n, err);
    atomic_fetch_add(&n->p->stats.time_ns, ex_now_ns() - t0);
    atomic_store(&w->busy, 0);
    return rc;
}

fl_status ex_recurse_node(ex_node *n, fl_error *err)
{
    const fl_plan *p = n->p;
    if (n->nchildren != 2 || !p->u.recurse.work)
        return fl_errorf(err, FL_EINVAL, "RECURSE needs two children and a work table");
    n->prepare = recurse_prepare;
    n->open = ex_open_rows;
    return FL_OK;
}
