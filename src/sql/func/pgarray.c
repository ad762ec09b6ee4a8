/*
 * pgarray.c - PostgreSQL arrays as floe sees them in catalog queries:
 * values in PostgreSQL's text form ("{a,b,\"c d\",NULL}"; int2vector and
 * oidvector as "1 2 3"), typed STRING with an element-type mark
 * (src/sql/pgcat/pgcat.h). Functions: array_to_string, array_upper,
 * array_lower, array_length, cardinality (these four also over list
 * columns: the element count from the list offsets), and the binder's internal helpers
 * for ARRAY[...] (__pg_array), subscripts x[i] (__pg_subscript, 1-based,
 * 0-based for int2vector/oidvector as in PostgreSQL) and x op ANY/ALL(arr)
 * (__pg_any / __pg_all with op '=' or '<>', comparing the element text
 * with the left operand's text form). ARRAY[ARRAY[...], ...] builds a
 * multidimensional array's text ({{1,2},{3,4}}: __pg_array_md, sub-arrays
 * copied, never re-quoted, so nesting grows the text linearly); the other
 * functions see one dimension only: a nested array element is treated as
 * one opaque element.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/func/func_internal.h"

#define MAX_ELEM 4096

typedef struct arr_it {
    const uint8_t *p;
    size_t n, pos;
    bool braces; /* "{...}" form, else space separated (int2vector) */
    bool done;
} arr_it;

static void it_init(arr_it *it, const uint8_t *p, size_t n)
{
    memset(it, 0, sizeof *it);
    it->p = p;
    it->n = n;
    while (it->pos < n && p[it->pos] == ' ')
        it->pos++;
    /* "[1:2]={...}" lower-bound prefix */
    if (it->pos < n && p[it->pos] == '[') {
        while (it->pos < n && p[it->pos] != '=')
            it->pos++;
        it->pos++;
    }
    if (it->pos < n && p[it->pos] == '{') {
        it->braces = true;
        it->pos++;
    }
}

/* Next element into buf (unescaped, at most cap bytes kept); false at the end. */
static bool it_next(arr_it *it, char *buf, size_t cap, size_t *len, bool *isnull)
{
    const uint8_t *p = it->p;
    size_t n = it->n;
    *len = 0;
    *isnull = false;
    if (it->done)
        return false;
    while (it->pos < n && p[it->pos] == ' ')
        it->pos++;
    if (it->pos >= n || (it->braces && p[it->pos] == '}')) {
        it->done = true;
        return false;
    }
    bool quoted = false;
    if (it->braces && p[it->pos] == '"') {
        quoted = true;
        it->pos++;
        while (it->pos < n && p[it->pos] != '"') {
            if (p[it->pos] == '\\' && it->pos + 1 < n)
                it->pos++;
            if (*len < cap)
                buf[(*len)++] = (char)p[it->pos];
            it->pos++;
        }
        it->pos++; /* closing quote */
    } else {
        int depth = 0;
        while (it->pos < n) {
            uint8_t ch = p[it->pos];
            if (it->braces ? (depth == 0 && (ch == ',' || ch == '}')) : ch == ' ')
                break;
            if (ch == '{')
                depth++;
            if (ch == '}')
                depth--;
            if (*len < cap)
                buf[(*len)++] = (char)ch;
            it->pos++;
        }
        while (*len && buf[*len - 1] == ' ')
            (*len)--;
    }
    if (!quoted && *len == 4 && strncasecmp(buf, "NULL", 4) == 0)
        *isnull = true;
    while (it->pos < n && p[it->pos] == ' ')
        it->pos++;
    if (it->braces && it->pos < n && p[it->pos] == ',')
        it->pos++;
    return true;
}

static int32_t count_elems(const uint8_t *p, size_t n)
{
    arr_it it;
    it_init(&it, p, n);
    char buf[8];
    size_t l;
    bool isnull;
    int32_t k = 0;
    while (it_next(&it, buf, sizeof buf, &l, &isnull))
        k++;
    return k;
}

/* ---- resolution ---- */

static bool r_arr_dim(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !fl_is_string(&a[0]) || !(fl_is_integer(&a[1]) || fl_is_unknown(&a[1])))
        return false;
    at[0] = a[0];
    at[1] = fl_mk(FL_TYPE_INT32);
    *r = fl_mk(FL_TYPE_INT32);
    return true;
}

/* array_upper/lower/length also over list columns */
static bool r_arr_dim_list(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n == 2 && a[0].id == FL_TYPE_LIST && (fl_is_integer(&a[1]) || fl_is_unknown(&a[1]))) {
        at[0] = a[0];
        at[1] = fl_mk(FL_TYPE_INT32);
        *r = fl_mk(FL_TYPE_INT32);
        return true;
    }
    return r_arr_dim(a, n, r, at);
}

static bool r_cardinality(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !(fl_is_string(&a[0]) || a[0].id == FL_TYPE_LIST || a[0].id == FL_TYPE_MAP))
        return false;
    at[0] = a[0];
    *r = fl_mk(FL_TYPE_INT32);
    return true;
}

/* elements of row i of a LIST argument (list columns of tables) */
static int32_t list_len(const fl_unified *u, uint32_t i)
{
    uint32_t row = fl_unified_row(u, i);
    const int64_t *o = u->base->offsets;
    return o ? (int32_t)(o[row + 1] - o[row]) : 0;
}

static bool r_to_string(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n < 2 || n > 3)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        /* a list of scalars goes in as its array text ({a,b}), parsed as the text form is */
        bool list = i == 0 && a[0].id == FL_TYPE_LIST && a[0].nchildren == 1 &&
                    !fl_type_is_nested(&a[0].children[0].type);
        if (!fl_is_string(&a[i]) && !list)
            return false;
        at[i] = fl_is_unknown(&a[i]) || list ? fl_mk(FL_TYPE_STRING) : a[i];
    }
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}

static bool r_subscript(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !fl_is_string(&a[0]) || !(fl_is_integer(&a[1]) || fl_is_unknown(&a[1])))
        return false;
    at[0] = a[0];
    at[1] = fl_mk(FL_TYPE_INT32);
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}

/* __pg_any(elem text, arr text, op text) -> bool */
static bool r_any(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 3)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (!fl_is_string(&a[i]))
            return false;
        at[i] = fl_is_unknown(&a[i]) ? fl_mk(FL_TYPE_STRING) : a[i];
    }
    *r = fl_mk(FL_TYPE_BOOLEAN);
    return true;
}

static bool r_array(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    for (uint32_t i = 0; i < n; i++) {
        if (!fl_is_string(&a[i]))
            return false;
        at[i] = fl_mk(FL_TYPE_STRING);
    }
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}

/* ---- kernels ---- */

static fl_status k_dim(fl_fn_call *c, fl_error *err, int which)
{
    fl_unified u, d;
    fl_vector_unify(c->args[0], &u);
    if (c->nargs > 1)
        fl_vector_unify(c->args[1], &d);
    bool list = c->args[0]->type->id == FL_TYPE_LIST;
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t l = 0;
        const uint8_t *p = list ? NULL : ubytes(&u, i, &l);
        int32_t dim = c->nargs > 1 ? UV(d, int32_t, i) : 1;
        int32_t cnt = list ? list_len(&u, i) : count_elems(p, l);
        bool vec = !list && l && p[0] != '{' && p[0] != '[';
        if (dim != 1 || cnt == 0) {
            FL_TRY(fl_out_null(c->out, i, err));
            continue;
        }
        int32_t lower = vec ? 0 : 1;
        int32_t v = which == 0 ? lower + cnt - 1 : which == 1 ? lower : cnt;
        OUTV(c->out, int32_t)[i] = v;
    });
    return FL_OK;
}
static fl_status k_upper(fl_fn_call *c, fl_error *err)
{
    return k_dim(c, err, 0);
}
static fl_status k_lower(fl_fn_call *c, fl_error *err)
{
    return k_dim(c, err, 1);
}
static fl_status k_length(fl_fn_call *c, fl_error *err)
{
    return k_dim(c, err, 2);
}
static fl_status k_cardinality(fl_fn_call *c, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    /* a map's cardinality is its entry count (Trino, DuckDB): offsets as a list's */
    bool list = c->args[0]->type->id == FL_TYPE_LIST || c->args[0]->type->id == FL_TYPE_MAP;
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t l = 0;
        const uint8_t *p = list ? NULL : ubytes(&u, i, &l);
        OUTV(c->out, int32_t)[i] = list ? list_len(&u, i) : count_elems(p, l);
    });
    (void)err;
    return FL_OK;
}

static fl_status k_to_string(fl_fn_call *c, fl_error *err)
{
    fl_unified u, s, ns;
    fl_vector_unify(c->args[0], &u);
    fl_vector_unify(c->args[1], &s);
    if (c->nargs > 2)
        fl_vector_unify(c->args[2], &ns);
    strout so;
    strout_init_call(&so, c);
    char elem[MAX_ELEM];
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t l, sl, nl = 0;
        const uint8_t *p = ubytes(&u, i, &l);
        const uint8_t *sep = ubytes(&s, i, &sl);
        const uint8_t *nstr = c->nargs > 2 && uvalid(&ns, i) ? ubytes(&ns, i, &nl) : NULL;
        /* at most the input plus separators */
        size_t cap = l + (size_t)(count_elems(p, l) + 1) * (sl + nl) + 1;
        uint8_t *dst;
        FL_TRY(strout_reserve(&so, cap, &dst, err));
        size_t o = 0;
        arr_it it;
        it_init(&it, p, l);
        size_t el;
        bool isnull, first = true;
        while (it_next(&it, elem, sizeof elem, &el, &isnull)) {
            if (isnull && !nstr)
                continue;
            if (!first && o + sl <= cap) {
                memcpy(dst + o, sep, sl);
                o += sl;
            }
            first = false;
            const void *src = isnull ? (const void *)nstr : (const void *)elem;
            size_t len = isnull ? nl : el;
            if (o + len <= cap) {
                memcpy(dst + o, src, len);
                o += len;
            }
        }
        strout_commit(&so, i, o);
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

static fl_status k_subscript(fl_fn_call *c, fl_error *err)
{
    fl_unified u, x;
    fl_vector_unify(c->args[0], &u);
    fl_vector_unify(c->args[1], &x);
    strout so;
    strout_init_call(&so, c);
    char elem[MAX_ELEM];
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t l;
        const uint8_t *p = ubytes(&u, i, &l);
        int32_t want = UV(x, int32_t, i);
        bool vec = l && p[0] != '{' && p[0] != '[';
        int32_t k = vec ? 0 : 1;
        arr_it it;
        it_init(&it, p, l);
        size_t el;
        bool isnull, found = false;
        while (it_next(&it, elem, sizeof elem, &el, &isnull)) {
            if (k++ == want) {
                found = !isnull;
                break;
            }
        }
        if (found)
            FL_TRY(strout_put(&so, i, elem, el, err));
        else
            FL_TRY(fl_out_null(c->out, i, err));
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

/* x = ANY(arr) / x <> ANY(arr) (all = false) and x = ALL / x <> ALL (all = true),
 * with SQL's NULL rules: NULL elements make a non-decisive answer NULL. */
static fl_status any_all(fl_fn_call *c, bool all, fl_error *err)
{
    fl_unified x, a, o;
    fl_vector_unify(c->args[0], &x);
    fl_vector_unify(c->args[1], &a);
    fl_vector_unify(c->args[2], &o);
    char elem[MAX_ELEM];
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t xl, al, ol;
        const uint8_t *xp = ubytes(&x, i, &xl);
        const uint8_t *ap = ubytes(&a, i, &al);
        const uint8_t *op = ubytes(&o, i, &ol);
        bool ne = ol == 2 && op[0] == '<';
        arr_it it;
        it_init(&it, ap, al);
        size_t el;
        bool isnull, saw_null = false, decided = false;
        while (it_next(&it, elem, sizeof elem, &el, &isnull)) {
            if (isnull) {
                saw_null = true;
                continue;
            }
            bool eq = el == xl && memcmp(elem, xp, xl) == 0;
            bool r = ne ? !eq : eq;
            if (!all && r) {
                decided = true;
                break;
            }
            if (all && !r) {
                decided = true;
                break;
            }
        }
        if (!decided && saw_null)
            FL_TRY(fl_out_null(c->out, i, err));
        else
            c->out->data[i] = all ? !decided : decided;
    });
    return FL_OK;
}
static fl_status k_any(fl_fn_call *c, fl_error *err)
{
    return any_all(c, false, err);
}
static fl_status k_all(fl_fn_call *c, fl_error *err)
{
    return any_all(c, true, err);
}

static bool elem_needs_quotes(const uint8_t *p, size_t l)
{
    if (l == 0 || (l == 4 && strncasecmp((const char *)p, "NULL", 4) == 0))
        return true;
    for (size_t k = 0; k < l; k++)
        if (p[k] == ',' || p[k] == '{' || p[k] == '}' || p[k] == '"' || p[k] == '\\' ||
            p[k] == ' ')
            return true;
    return false;
}

static fl_status k_array(fl_fn_call *c, fl_error *err)
{
    fl_unified u[64];
    if (c->nargs > 64)
        return fl_fn_error(c, err, FL_ELIMIT, "ARRAY[...] with more than 64 elements");
    for (uint32_t k = 0; k < c->nargs; k++)
        fl_vector_unify(c->args[k], &u[k]);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t cap = 3;
        for (uint32_t k = 0; k < c->nargs; k++) {
            size_t l = 4;
            if (uvalid(&u[k], i))
                (void)ubytes(&u[k], i, &l);
            cap += 2 * l + 3;
        }
        uint8_t *dst;
        FL_TRY(strout_reserve(&so, cap, &dst, err));
        size_t o = 0;
        dst[o++] = '{';
        for (uint32_t k = 0; k < c->nargs; k++) {
            if (k)
                dst[o++] = ',';
            if (!uvalid(&u[k], i)) {
                memcpy(dst + o, "NULL", 4);
                o += 4;
                continue;
            }
            size_t l;
            const uint8_t *p = ubytes(&u[k], i, &l);
            bool q = elem_needs_quotes(p, l);
            if (q)
                dst[o++] = '"';
            for (size_t j = 0; j < l; j++) {
                if (q && (p[j] == '"' || p[j] == '\\'))
                    dst[o++] = '\\';
                dst[o++] = p[j];
            }
            if (q)
                dst[o++] = '"';
        }
        dst[o++] = '}';
        strout_commit(&so, i, o);
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

/* ARRAY[sub-array, ...]: each sub-array's text goes in as it is; they must
 * have the same number of elements (PostgreSQL: matching dimensions; only
 * the outer dimension is compared here). A NULL sub-array is an error too
 * unless every one is NULL or empty (then the result is '{}'). */
static fl_status k_array_md(fl_fn_call *c, fl_error *err)
{
    fl_unified u[64];
    if (c->nargs > 64)
        return fl_fn_error(c, err, FL_ELIMIT, "ARRAY[...] with more than 64 elements");
    for (uint32_t k = 0; k < c->nargs; k++)
        fl_vector_unify(c->args[k], &u[k]);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t cap = 2;
        int32_t dim = -1;
        bool empty = true, mismatch = false;
        for (uint32_t k = 0; k < c->nargs; k++) {
            size_t l = 0;
            const uint8_t *p = uvalid(&u[k], i) ? ubytes(&u[k], i, &l) : NULL;
            int32_t d = p ? count_elems(p, l) : 0;
            cap += l + 1;
            empty = empty && d == 0;
            mismatch = mismatch || (dim >= 0 && d != dim) || (k > 0 && d == 0 && dim > 0);
            dim = d;
        }
        if (mismatch)
            return fl_fn_error_state(
                c, err, FL_EINVAL, "2202E",
                "multidimensional arrays must have array expressions with matching "
                "dimensions (SQLSTATE 2202E)");
        if (empty) {
            FL_TRY(strout_put(&so, i, "{}", 2, err));
            continue;
        }
        uint8_t *dst;
        FL_TRY(strout_reserve(&so, cap, &dst, err));
        size_t o = 0;
        dst[o++] = '{';
        for (uint32_t k = 0; k < c->nargs; k++) {
            size_t l;
            const uint8_t *p = ubytes(&u[k], i, &l);
            if (k)
                dst[o++] = ',';
            memcpy(dst + o, p, l);
            o += l;
        }
        dst[o++] = '}';
        strout_commit(&so, i, o);
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

static bool r_text1(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || fl_type_is_nested(&a[0]))
        return false;
    at[0] = fl_mk(FL_TYPE_STRING);
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}

/* One element as PostgreSQL's array output writes it. */
static fl_status k_array_elem(fl_fn_call *c, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        if (!uvalid(&u, i)) {
            FL_TRY(strout_put(&so, i, "NULL", 4, err));
            continue;
        }
        size_t l;
        const uint8_t *p = ubytes(&u, i, &l);
        if (!elem_needs_quotes(p, l)) {
            FL_TRY(strout_put(&so, i, p, l, err));
            continue;
        }
        uint8_t *dst;
        FL_TRY(strout_reserve(&so, 2 * l + 2, &dst, err));
        size_t o = 0;
        dst[o++] = '"';
        for (size_t j = 0; j < l; j++) {
            if (p[j] == '"' || p[j] == '\\')
                dst[o++] = '\\';
            dst[o++] = p[j];
        }
        dst[o++] = '"';
        strout_commit(&so, i, o);
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

/* '{' || coalesce(s, '') || '}' */
static fl_status k_braces(fl_fn_call *c, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t l = 0;
        const uint8_t *p = uvalid(&u, i) ? ubytes(&u, i, &l) : NULL;
        uint8_t *dst;
        FL_TRY(strout_reserve(&so, l + 2, &dst, err));
        dst[0] = '{';
        if (l)
            memcpy(dst + 1, p, l);
        dst[l + 1] = '}';
        strout_commit(&so, i, l + 2);
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

/* Set-returning functions in a select list (unnest, generate_subscripts,
 * information_schema._pg_expandarray): floe has no multi-row expansion
 * there, so they are scalar over one-element arrays and an error otherwise
 * (an empty array would have to remove the row). */
static fl_status srf_one(fl_fn_call *c, const char *fn, int mode, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    strout so;
    bool str = fl_type_is_varlen(c->out->type);
    if (str)
        strout_init_call(&so, c);
    char elem[MAX_ELEM];
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t l;
        const uint8_t *p = ubytes(&u, i, &l);
        int32_t n = count_elems(p, l);
        if (n != 1)
            return fl_fn_error(c, err, FL_EUNSUPPORTED,
                               "set-returning function %s in a select list is supported only "
                               "over one-element arrays (this one has %d)",
                               fn, n);
        bool vec = l && p[0] != '{' && p[0] != '[';
        int32_t lower = vec ? 0 : 1;
        arr_it it;
        it_init(&it, p, l);
        size_t el;
        bool isnull;
        it_next(&it, elem, sizeof elem, &el, &isnull);
        if (mode == 1) {
            OUTV(c->out, int32_t)[i] = lower;
        } else if (mode == 0) {
            if (isnull)
                FL_TRY(fl_out_null(c->out, i, err));
            else
                FL_TRY(strout_put(&so, i, elem, el, err));
        } else { /* _pg_expandarray: the record (x, n) as "{x,n}" */
            char rec[MAX_ELEM + 32];
            int rl = snprintf(rec, sizeof rec, "{%.*s,%d}", isnull ? 4 : (int)el,
                              isnull ? "NULL" : elem, 1);
            FL_TRY(strout_put(&so, i, rec, (size_t)rl, err));
        }
    });
    if (str)
        strout_finish(&so, c->nrows);
    return FL_OK;
}
static fl_status k_unnest(fl_fn_call *c, fl_error *err)
{
    return srf_one(c, "unnest", 0, err);
}
static fl_status k_gen_subscripts(fl_fn_call *c, fl_error *err)
{
    return srf_one(c, "generate_subscripts", 1, err);
}
static fl_status k_expandarray(fl_fn_call *c, fl_error *err)
{
    return srf_one(c, "_pg_expandarray", 2, err);
}

/* aclexplode(aclitem[]) in a select list (DBeaver's role editor): floe stores
 * no privileges (every relacl/nspacl is NULL) and the binder keeps only rows
 * whose ACL has elements (pgcat_expr.c), so a row reaching the kernel has
 * an ACL literal floe cannot expand into rows. */
static fl_status k_aclexplode(fl_fn_call *c, fl_error *err)
{
    FOR_ROWS(c->sel, c->nrows, i, {
        (void)i;
        return fl_fn_error(c, err, FL_EUNSUPPORTED,
                           "aclexplode() in a select list is supported only over NULL or empty "
                           "ACLs (floe stores no privileges)");
    });
    strout so;
    strout_init_call(&so, c);
    strout_finish(&so, c->nrows);
    return FL_OK;
}


/* ---- __list_sort_key(list) -> binary: ORDER BY a list column ----
 * PostgreSQL orders arrays element by element (array_cmp): the first
 * differing element decides, a NULL element is greater than any value, and
 * a list that is a prefix of another is smaller. The key is a byte string
 * whose bytewise order is that order, so SORT compares it as BINARY:
 * per element 0x02 + the element's order-preserving bytes, or 0x03 for a
 * NULL element; 0x01 ends the list (smaller than both markers).
 *   integers, dates, times, timestamps: big-endian with the sign bit flipped
 *   floats: IEEE bits, all flipped when negative, else the sign bit (-0 = 0)
 *   decimals: 16 bytes big-endian, sign flipped (one scale per column)
 *   text, binary: the bytes with 0x00 written 0x00 0xFF, then 0x00 0x00
 *   lists: this encoding, recursively */

typedef struct keybuf {
    uint8_t *p;
    size_t n, cap;
} keybuf;

static fl_status kb_put(keybuf *k, const void *src, size_t len, fl_error *err)
{
    if (k->n + len > k->cap) {
        size_t cap = k->cap ? k->cap : 64;
        while (cap < k->n + len)
            cap *= 2;
        uint8_t *q = realloc(k->p, cap);
        if (!q)
            return fl_errorf(err, FL_ENOMEM, "out of memory for a list sort key");
        k->p = q;
        k->cap = cap;
    }
    memcpy(k->p + k->n, src, len);
    k->n += len;
    return FL_OK;
}

static fl_status kb_be(keybuf *k, uint64_t v, int bytes, fl_error *err)
{
    uint8_t b[8];
    for (int i = 0; i < bytes; i++)
        b[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
    return kb_put(k, b, (size_t)bytes, err);
}

static bool key_type_ok(const fl_type *t)
{
    switch (t->id) {
    case FL_TYPE_INT32: case FL_TYPE_INT64: case FL_TYPE_DATE: case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP: case FL_TYPE_TIMESTAMPTZ: case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: case FL_TYPE_FLOAT32: case FL_TYPE_FLOAT64:
    case FL_TYPE_DECIMAL: case FL_TYPE_STRING: case FL_TYPE_BINARY:
        return true;
    case FL_TYPE_LIST:
        return t->nchildren == 1 && t->children && key_type_ok(&t->children[0].type);
    default:
        return false;
    }
}

static fl_status key_list(keybuf *k, const fl_vector *lv, uint32_t row, int depth, fl_error *err);

static fl_status key_elem(keybuf *k, const fl_vector *v, uint32_t j, int depth, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    uint8_t m = fl_unified_is_valid(&u, j) ? 0x02 : 0x03;
    FL_TRY(kb_put(k, &m, 1, err));
    if (m == 0x03)
        return FL_OK;
    uint32_t r = fl_unified_row(&u, j);
    const uint8_t *d = u.base->data;
    switch (v->type->id) {
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: {
        int32_t x;
        memcpy(&x, d + (size_t)r * 4, 4);
        return kb_be(k, (uint32_t)x ^ 0x80000000u, 4, err);
    }
    case FL_TYPE_FLOAT32:
    case FL_TYPE_FLOAT64: {
        double x;
        if (v->type->id == FL_TYPE_FLOAT32) {
            float f;
            memcpy(&f, d + (size_t)r * 4, 4);
            x = f;
        } else {
            memcpy(&x, d + (size_t)r * 8, 8);
        }
        if (x == 0)
            x = 0; /* -0 sorts as 0 */
        uint64_t bits;
        memcpy(&bits, &x, 8);
        bits = bits >> 63 ? ~bits : bits ^ (1ull << 63);
        return kb_be(k, bits, 8, err);
    }
    case FL_TYPE_DECIMAL: {
        fl_i128 x;
        memcpy(&x, d + (size_t)r * 16, 16);
        unsigned __int128 ux = (unsigned __int128)x ^ ((unsigned __int128)1 << 127);
        FL_TRY(kb_be(k, (uint64_t)(ux >> 64), 8, err));
        return kb_be(k, (uint64_t)ux, 8, err);
    }
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: {
        size_t len;
        const uint8_t *p = fl_vector_bytes(u.base, r, &len);
        static const uint8_t esc[2] = {0x00, 0xFF}, end[2] = {0x00, 0x00};
        size_t from = 0;
        for (size_t i = 0; i < len; i++)
            if (p[i] == 0) {
                FL_TRY(kb_put(k, p + from, i - from, err));
                FL_TRY(kb_put(k, esc, 2, err));
                from = i + 1;
            }
        FL_TRY(kb_put(k, p + from, len - from, err));
        return kb_put(k, end, 2, err);
    }
    case FL_TYPE_LIST:
        return key_list(k, u.base, r, depth + 1, err);
    default: { /* INT64, TIME, TIMESTAMP* */
        int64_t x;
        memcpy(&x, d + (size_t)r * 8, 8);
        return kb_be(k, (uint64_t)x ^ (1ull << 63), 8, err);
    }
    }
}

/* row `row` of the FLAT list vector lv */
static fl_status key_list(keybuf *k, const fl_vector *lv, uint32_t row, int depth, fl_error *err)
{
    if (depth > 32)
        return fl_errorf(err, FL_ELIMIT, "ORDER BY a list nested more than 32 levels deep");
    const fl_vector *ch = lv->children;
    for (int64_t j = lv->offsets[row]; ch && j < lv->offsets[row + 1]; j++)
        FL_TRY(key_elem(k, ch, (uint32_t)j, depth, err));
    static const uint8_t end = 0x01;
    return kb_put(k, &end, 1, err);
}

static bool r_list_key(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || a[0].id != FL_TYPE_LIST || !key_type_ok(&a[0]))
        return false;
    at[0] = a[0];
    *r = fl_mk(FL_TYPE_BINARY);
    return true;
}

static fl_status k_list_key(fl_fn_call *c, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    strout so;
    strout_init_call(&so, c);
    keybuf k = {NULL, 0, 0};
    fl_status rc = FL_OK;
    FOR_ROWS(c->sel, c->nrows, i, {
        if (rc == FL_OK) {
            k.n = 0;
            rc = key_list(&k, u.base, fl_unified_row(&u, i), 0, err);
            if (rc == FL_OK)
                rc = strout_put(&so, i, k.p ? k.p : (const uint8_t *)"", k.n, err);
        }
    });
    free(k.p);
    FL_TRY(rc);
    strout_finish(&so, c->nrows);
    return FL_OK;
}

#define PA(nm, r, k) {.name = nm, .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r, .kernel = k}
static const fl_func funcs[] = {
    PA("array_upper", r_arr_dim_list, k_upper),
    PA("array_lower", r_arr_dim_list, k_lower),
    PA("array_length", r_arr_dim_list, k_length),
    PA("cardinality", r_cardinality, k_cardinality),
    PA("array_to_string", r_to_string, k_to_string),
    PA("__pg_subscript", r_subscript, k_subscript),
    PA("unnest", r_text1, k_unnest),
    PA("_pg_expandarray", r_text1, k_expandarray),
    PA("generate_subscripts", r_arr_dim, k_gen_subscripts),
    PA("aclexplode", r_text1, k_aclexplode),
    PA("__pg_any", r_any, k_any),
    PA("__pg_all", r_any, k_all),
    PA("__list_sort_key", r_list_key, k_list_key),
    {.name = "__pg_array_elem",
     .kind = FL_FUNC_SCALAR,
     .deterministic = true,
     .resolve = r_text1,
     .kernel = k_array_elem,
     .handles_nulls = true},
    {.name = "__pg_array_braces",
     .kind = FL_FUNC_SCALAR,
     .deterministic = true,
     .resolve = r_text1,
     .kernel = k_braces,
     .handles_nulls = true},
    {.name = "__pg_array",
     .kind = FL_FUNC_SCALAR,
     .deterministic = true,
     .resolve = r_array,
     .kernel = k_array,
     .handles_nulls = true},
    {.name = "__pg_array_md",
     .kind = FL_FUNC_SCALAR,
     .deterministic = true,
     .resolve = r_array,
     .kernel = k_array_md,
     .handles_nulls = true},
};
const fl_func_table fl_funcs_pgarray = {funcs, sizeof funcs / sizeof funcs[0]};
