/*
 * nested.c - functions over floe's nested vectors (LIST, STRUCT, MAP), as
 * PostgreSQL, Trino, Spark and DuckDB users write them. The binder
 * (src/sql/pgcat/pgcat_nested.c) maps the syntax onto them:
 *
 *   a[i]            __list_get(a, i)        1-based, out of range -> NULL
 *   a[lo:hi]        __list_slice(a, lo, hi) bounds clipped, PostgreSQL's
 *   element_at(a,i) 1-based, negative counts from the end (Trino, Spark)
 *   m['k'], element_at(m, k)  __map_get: the value of key k, NULL if absent
 *   (s).f, t.s.f, s.f        __struct_field(s, index) (result retyped by the binder)
 *   x op ANY/ALL (a)         __list_any / __list_all(a, x, op) with SQL's
 *                            three-valued logic over NULL elements
 *   array_contains(a, x), contains(a, x)  true, false, or NULL when not found
 *                            and a has NULL elements (Trino, Spark)
 *   array_position(a, x)     first 1-based position, NULL if absent (PostgreSQL)
 *   map_keys(m), map_values(m)  lists of the keys / values
 *   map(keys, values)        a map from two lists (Trino, DuckDB)
 *   ROW(a, b, ...)           __row: a struct f1, f2, ... (PostgreSQL's names)
 *   ARRAY[s1, s2] of nested  __list: a list of them (ARRAY[] of scalars stays
 *                            PostgreSQL array text, src/sql/pgcat)
 *   to_json(x)               JSON text of any value (format.c's JSON)
 *
 * Every kernel here sees NULL arguments itself (handles_nulls) and builds
 * its output by appending rows in order (fl_vector_append_from copies one
 * row of any type, nested included): rows outside the selection get NULL.
 * Element comparisons are typed (the binder casts x to the element type),
 * so 1 = ANY('{1.0}') compares numbers, not text.
 */
#include <limits.h>
#include <stdlib.h>

#include "sql/func/func_internal.h"

/* ---- row walking ---- */

typedef fl_status (*row_fn)(fl_fn_call *c, const fl_unified *u, uint32_t i, fl_error *err);

/* Resets out and calls fn for every selected row in order (fn appends one
 * row); rows outside c->sel get NULL. u: the unified arguments. */
static fl_status each_row(fl_fn_call *c, row_fn fn, fl_error *err)
{
    fl_unified u[8];
    for (uint32_t k = 0; k < c->nargs && k < 8; k++)
        fl_vector_unify(c->args[k], &u[k]);
    fl_vector_reset(c->out);
    uint32_t next = 0;
    for (uint32_t i = 0; i < c->nrows; i++) {
        if (c->sel && (next >= c->sel->count || c->sel->idx[next] != i)) {
            FL_TRY(fl_vector_append_null(c->out, err));
            continue;
        }
        next++;
        FL_TRY(fn(c, u, i, err));
    }
    return FL_OK;
}

/* A list or map row: its base vector, child range. */
static bool nested_range(const fl_unified *u, uint32_t i, const fl_vector **base, int64_t *lo,
                         int64_t *hi)
{
    if (!fl_unified_is_valid(u, i))
        return false;
    uint32_t r = fl_unified_row(u, i);
    *base = u->base;
    *lo = u->base->offsets[r];
    *hi = u->base->offsets[r + 1];
    return true;
}

static bool int_arg(const fl_unified *u, uint32_t i, int64_t *v)
{
    if (!fl_unified_is_valid(u, i))
        return false;
    *v = UV(*u, int32_t, i);
    return true;
}

/* ---- typed comparison of two rows of the same type ---- */

/* <0, 0, >0; the rows are valid. Types the binder unified. */
static int cmp_rows(const fl_vector *a, uint32_t ra, const fl_vector *b, uint32_t rb)
{
    fl_unified ua, ub;
    fl_vector_unify(a, &ua);
    fl_vector_unify(b, &ub);
    const fl_vector *va = ua.base, *vb = ub.base;
    ra = fl_unified_row(&ua, ra);
    rb = fl_unified_row(&ub, rb);
    const fl_type *t = va->type;
    switch (t->id) {
    case FL_TYPE_BOOLEAN: return (int)va->data[ra] - (int)vb->data[rb];
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: {
        int32_t x = ((const int32_t *)(const void *)va->data)[ra];
        int32_t y = ((const int32_t *)(const void *)vb->data)[rb];
        return (x > y) - (x < y);
    }
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: {
        int64_t x = ((const int64_t *)(const void *)va->data)[ra];
        int64_t y = ((const int64_t *)(const void *)vb->data)[rb];
        return (x > y) - (x < y);
    }
    case FL_TYPE_FLOAT32: {
        float x = ((const float *)(const void *)va->data)[ra];
        float y = ((const float *)(const void *)vb->data)[rb];
        return (x > y) - (x < y);
    }
    case FL_TYPE_FLOAT64: {
        double x = ((const double *)(const void *)va->data)[ra];
        double y = ((const double *)(const void *)vb->data)[rb];
        return (x > y) - (x < y);
    }
    case FL_TYPE_DECIMAL: {
        fl_i128 x, y;
        memcpy(&x, va->data + 16 * (size_t)ra, 16);
        memcpy(&y, vb->data + 16 * (size_t)rb, 16);
        return (x > y) - (x < y);
    }
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: {
        size_t la, lb;
        const uint8_t *pa = fl_vector_bytes(va, ra, &la);
        const uint8_t *pb = fl_vector_bytes(vb, rb, &lb);
        int c = memcmp(pa, pb, la < lb ? la : lb);
        return c ? c : (la > lb) - (la < lb);
    }
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED: {
        size_t w = t->id == FL_TYPE_UUID ? 16 : (size_t)t->fixed_len;
        return memcmp(va->data + w * ra, vb->data + w * rb, w);
    }
    default: {
        /* nested: compare the JSON texts (equality is what callers need) */
        char sa[512], sb[512];
        size_t la = fl_sql_json_value(va, ra, NULL, sa, sizeof sa);
        size_t lb = fl_sql_json_value(vb, rb, NULL, sb, sizeof sb);
        size_t n = la < lb ? la : lb;
        n = n < sizeof sa ? n : sizeof sa;
        int c = memcmp(sa, sb, n);
        return c ? c : (la > lb) - (la < lb);
    }
    }
}

static bool valid_at(const fl_vector *v, uint32_t r)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    return fl_unified_is_valid(&u, r);
}

/* ---- resolution helpers ---- */

static bool is_int_arg(const fl_type *t)
{
    return fl_is_integer(t) || fl_is_unknown(t);
}

static fl_type list_elem(const fl_type *t)
{
    return t->children[0].type;
}

static bool is_list(const fl_type *t)
{
    return t->id == FL_TYPE_LIST && t->nchildren == 1;
}

static bool is_map(const fl_type *t)
{
    return t->id == FL_TYPE_MAP && t->nchildren == 2;
}

/* ---- a[i], element_at(a, i) ---- */

static bool r_list_get(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !is_list(&a[0]) || !is_int_arg(&a[1]))
        return false;
    at[0] = a[0];
    at[1] = fl_mk(FL_TYPE_INT32);
    *r = list_elem(&a[0]);
    return true;
}

static fl_status get_row(fl_fn_call *c, const fl_unified *u, uint32_t i, bool from_end,
                         fl_error *err)
{
    const fl_vector *b;
    int64_t lo, hi, k;
    if (!nested_range(&u[0], i, &b, &lo, &hi) || !int_arg(&u[1], i, &k))
        return fl_vector_append_null(c->out, err);
    int64_t pos = k > 0 ? lo + k - 1 : (from_end && k < 0 ? hi + k : -1);
    if (pos < lo || pos >= hi)
        return fl_vector_append_null(c->out, err);
    return fl_vector_append_from(c->out, &b->children[0], (uint32_t)pos, err);
}

static fl_status get_pg(fl_fn_call *c, const fl_unified *u, uint32_t i, fl_error *err)
{
    return get_row(c, u, i, false, err);
}

static fl_status get_trino(fl_fn_call *c, const fl_unified *u, uint32_t i, fl_error *err)
{
    return get_row(c, u, i, true, err);
}

static fl_status k_list_get(fl_fn_call *c, fl_error *err)
{
    return each_row(c, get_pg, err);
}

/* ---- m[k], element_at(m, k) ---- */

static bool r_map_get(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !is_map(&a[0]) || fl_type_is_nested(&a[1]))
        return false;
    at[0] = a[0];
    at[1] = a[0].children[0].type;
    *r = a[0].children[1].type;
    return true;
}

static fl_status map_get_row(fl_fn_call *c, const fl_unified *u, uint32_t i, fl_error *err)
{
    const fl_vector *b;
    int64_t lo, hi;
    if (!nested_range(&u[0], i, &b, &lo, &hi) || !fl_unified_is_valid(&u[1], i))
        return fl_vector_append_null(c->out, err);
    for (int64_t k = lo; k < hi; k++)
        if (valid_at(&b->children[0], (uint32_t)k) &&
            cmp_rows(&b->children[0], (uint32_t)k, c->args[1], i) == 0)
            return fl_vector_append_from(c->out, &b->children[1], (uint32_t)k, err);
    return fl_vector_append_null(c->out, err);
}

static fl_status k_map_get(fl_fn_call *c, fl_error *err)
{
    return each_row(c, map_get_row, err);
}

static bool r_element_at(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    return r_list_get(a, n, r, at) || r_map_get(a, n, r, at);
}

static fl_status k_element_at(fl_fn_call *c, fl_error *err)
{
    return each_row(c, c->args[0]->type->id == FL_TYPE_MAP ? map_get_row : get_trino, err);
}

/* ---- a[lo:hi] ---- */

static bool r_slice(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 3 || !is_list(&a[0]) || !is_int_arg(&a[1]) || !is_int_arg(&a[2]))
        return false;
    at[0] = a[0];
    at[1] = at[2] = fl_mk(FL_TYPE_INT32);
    *r = a[0];
    return true;
}

static fl_status slice_row(fl_fn_call *c, const fl_unified *u, uint32_t i, fl_error *err)
{
    const fl_vector *b;
    int64_t lo, hi, from, to;
    if (!nested_range(&u[0], i, &b, &lo, &hi) || !int_arg(&u[1], i, &from) ||
        !int_arg(&u[2], i, &to))
        return fl_vector_append_null(c->out, err);
    int64_t s = lo + (from < 1 ? 0 : from - 1), e = lo + to; /* [s, e) */
    if (e > hi)
        e = hi;
    fl_vector *ch = &c->out->children[0];
    int64_t n = 0;
    for (int64_t k = s; k < e; k++, n++)
        FL_TRY(fl_vector_append_from(ch, &b->children[0], (uint32_t)k, err));
    return fl_vector_append_nested(c->out, (int64_t)ch->len, err);
}

static fl_status k_slice(fl_fn_call *c, fl_error *err)
{
    return each_row(c, slice_row, err);
}

/* ---- (s).f ---- */

static bool r_struct_field(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || a[0].id != FL_TYPE_STRUCT || !is_int_arg(&a[1]))
        return false;
    at[0] = a[0];
    at[1] = fl_mk(FL_TYPE_INT32);
    *r = a[0].nchildren ? a[0].children[0].type : fl_mk(FL_TYPE_STRING); /* binder retypes */
    return true;
}

static fl_status field_row(fl_fn_call *c, const fl_unified *u, uint32_t i, fl_error *err)
{
    int64_t k;
    if (!fl_unified_is_valid(&u[0], i) || !int_arg(&u[1], i, &k) || k < 0 ||
        k >= (int64_t)u[0].base->nchildren)
        return fl_vector_append_null(c->out, err);
    return fl_vector_append_from(c->out, &u[0].base->children[k], fl_unified_row(&u[0], i), err);
}

static fl_status k_struct_field(fl_fn_call *c, fl_error *err)
{
    return each_row(c, field_row, err);
}

/* ---- x op ANY/ALL (a), contains, position ---- */

static bool r_list_any(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 3 || !is_list(&a[0]) || !is_int_arg(&a[2]))
        return false;
    at[0] = a[0];
    at[1] = list_elem(&a[0]);
    at[2] = fl_mk(FL_TYPE_INT32);
    *r = fl_mk(FL_TYPE_BOOLEAN);
    return true;
}

/* op codes the binder passes: 0 =, 1 <>, 2 <, 3 <=, 4 >, 5 >= */
static bool op_holds(int op, int c)
{
    switch (op) {
    case 0: return c == 0;
    case 1: return c != 0;
    case 2: return c < 0;
    case 3: return c <= 0;
    case 4: return c > 0;
    default: return c >= 0;
    }
}

/* 1 true, 0 false, -1 NULL */
static int any_all(fl_fn_call *c, const fl_unified *u, uint32_t i, bool all)
{
    const fl_vector *b;
    int64_t lo, hi, op;
    if (!nested_range(&u[0], i, &b, &lo, &hi) || !int_arg(&u[2], i, &op))
        return -1;
    if (lo == hi)
        return all ? 1 : 0;
    if (!fl_unified_is_valid(&u[1], i))
        return -1;
    bool nulls = false;
    for (int64_t k = lo; k < hi; k++) {
        if (!valid_at(&b->children[0], (uint32_t)k)) {
            nulls = true;
            continue;
        }
        bool h = op_holds((int)op, cmp_rows(c->args[1], i, &b->children[0], (uint32_t)k));
        if (h && !all)
            return 1;
        if (!h && all)
            return 0;
    }
    return nulls ? -1 : (all ? 1 : 0);
}

static fl_status put_bool(fl_vector *out, int v, fl_error *err)
{
    if (v < 0)
        return fl_vector_append_null(out, err);
    uint8_t b = (uint8_t)v;
    return fl_vector_append_fixed(out, &b, err);
}

static fl_status any_row(fl_fn_call *c, const fl_unified *u, uint32_t i, fl_error *err)
{
    return put_bool(c->out, any_all(c, u, i, false), err);
}

static fl_status all_row(fl_fn_call *c, const fl_unified *u, uint32_t i, fl_error *err)
{
    return put_bool(c->out, any_all(c, u, i, true), err);
}

static fl_status k_list_any(fl_fn_call *c, fl_error *err)
{
    return each_row(c, any_row, err);
}

static fl_status k_list_all(fl_fn_call *c, fl_error *err)
{
    return each_row(c, all_row, err);
}

static bool r_contains(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !is_list(&a[0]))
        return false;
    at[0] = a[0];
    at[1] = list_elem(&a[0]);
    *r = fl_mk(FL_TYPE_BOOLEAN);
    return true;
}

/* first 1-based position of x, 0 if absent; *nulls: a has NULL elements */
static int64_t find(fl_fn_call *c, const fl_vector *b, int64_t lo, int64_t hi, uint32_t i,
                    bool *nulls)
{
    *nulls = false;
    for (int64_t k = lo; k < hi; k++) {
        if (!valid_at(&b->children[0], (uint32_t)k)) {
            *nulls = true;
            continue;
        }
        if (cmp_rows(c->args[1], i, &b->children[0], (uint32_t)k) == 0)
            return k - lo + 1;
    }
    return 0;
}

static fl_status contains_row(fl_fn_call *c, const fl_unified *u, uint32_t i, fl_error *err)
{
    const fl_vector *b;
    int64_t lo, hi;
    if (!nested_range(&u[0], i, &b, &lo, &hi) || !fl_unified_is_valid(&u[1], i))
        return fl_vector_append_null(c->out, err);
    bool nulls;
    int64_t p = find(c, b, lo, hi, i, &nulls);
    return put_bool(c->out, p ? 1 : nulls ? -1 : 0, err);
}

static fl_status k_contains(fl_fn_call *c, fl_error *err)
{
    return each_row(c, contains_row, err);
}

static bool r_position(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (!r_contains(a, n, r, at))
        return false;
    *r = fl_mk(FL_TYPE_INT32);
    return true;
}

static fl_status position_row(fl_fn_call *c, const fl_unified *u, uint32_t i, fl_error *err)
{
    const fl_vector *b;
    int64_t lo, hi;
    if (!nested_range(&u[0], i, &b, &lo, &hi) || !fl_unified_is_valid(&u[1], i))
        return fl_vector_append_null(c->out, err);
    bool nulls;
    int32_t p = (int32_t)find(c, b, lo, hi, i, &nulls);
    return p ? fl_vector_append_fixed(c->out, &p, err) : fl_vector_append_null(c->out, err);
}

static fl_status k_position(fl_fn_call *c, fl_error *err)
{
    return each_row(c, position_row, err);
}

/* ---- map_keys, map_values ---- */

/* The result list's element field is the map's key (value) field itself. */
static bool r_map_part(const fl_type *a, uint32_t n, fl_type *r, fl_type *at, int part)
{
    if (n != 1 || !is_map(&a[0]))
        return false;
    at[0] = a[0];
    *r = (fl_type){.id = FL_TYPE_LIST, .nchildren = 1, .children = &a[0].children[part]};
    return true;
}

static bool r_map_keys(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    return r_map_part(a, n, r, at, 0);
}

static bool r_map_values(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    return r_map_part(a, n, r, at, 1);
}

static fl_status part_row(fl_fn_call *c, const fl_unified *u, uint32_t i, int part, fl_error *err)
{
    const fl_vector *b;
    int64_t lo, hi;
    if (!nested_range(&u[0], i, &b, &lo, &hi))
        return fl_vector_append_null(c->out, err);
    fl_vector *ch = &c->out->children[0];
    for (int64_t k = lo; k < hi; k++)
        FL_TRY(fl_vector_append_from(ch, &b->children[part], (uint32_t)k, err));
    return fl_vector_append_nested(c->out, (int64_t)ch->len, err);
}

static fl_status keys_row(fl_fn_call *c, const fl_unified *u, uint32_t i, fl_error *err)
{
    return part_row(c, u, i, 0, err);
}

static fl_status values_row(fl_fn_call *c, const fl_unified *u, uint32_t i, fl_error *err)
{
    return part_row(c, u, i, 1, err);
}

static fl_status k_map_keys(fl_fn_call *c, fl_error *err)
{
    return each_row(c, keys_row, err);
}

static fl_status k_map_values(fl_fn_call *c, fl_error *err)
{
    return each_row(c, values_row, err);
}

/* ---- map(keys, values), ROW(...) ---- */

static bool r_map_ctor(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !is_list(&a[0]) || !is_list(&a[1]))
        return false;
    at[0] = a[0];
    at[1] = a[1];
    *r = fl_mk(FL_TYPE_MAP); /* the binder builds the key/value fields */
    return true;
}

static fl_status map_ctor_row(fl_fn_call *c, const fl_unified *u, uint32_t i, fl_error *err)
{
    const fl_vector *kb, *vb;
    int64_t klo, khi, vlo, vhi;
    if (!nested_range(&u[0], i, &kb, &klo, &khi) || !nested_range(&u[1], i, &vb, &vlo, &vhi))
        return fl_vector_append_null(c->out, err);
    if (khi - klo != vhi - vlo)
        return fl_fn_error_state(c, err, FL_EINVAL, "22023",
                                 "map(): the key and value lists differ in length (%lld, %lld)",
                                 (long long)(khi - klo), (long long)(vhi - vlo));
    for (int64_t k = klo; k < khi; k++) {
        if (!valid_at(&kb->children[0], (uint32_t)k))
            return fl_fn_error_state(c, err, FL_EINVAL, "22004", "map(): a map key is NULL");
        for (int64_t j = klo; j < k; j++)
            if (cmp_rows(&kb->children[0], (uint32_t)j, &kb->children[0], (uint32_t)k) == 0)
                return fl_fn_error_state(c, err, FL_EINVAL, "22023", "map(): duplicate key");
        FL_TRY(fl_vector_append_from(&c->out->children[0], &kb->children[0], (uint32_t)k, err));
        FL_TRY(fl_vector_append_from(&c->out->children[1], &vb->children[0],
                                     (uint32_t)(vlo + k - klo), err));
    }
    return fl_vector_append_nested(c->out, (int64_t)c->out->children[0].len, err);
}

static fl_status k_map_ctor(fl_fn_call *c, fl_error *err)
{
    return each_row(c, map_ctor_row, err);
}

static bool r_row(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n == 0 || n > 8)
        return false;
    for (uint32_t k = 0; k < n; k++)
        at[k] = fl_is_unknown(&a[k]) ? fl_mk(FL_TYPE_STRING) : a[k];
    *r = fl_mk(FL_TYPE_STRUCT); /* the binder builds the fields */
    return true;
}

static fl_status row_row(fl_fn_call *c, const fl_unified *u, uint32_t i, fl_error *err)
{
    (void)u;
    for (uint32_t k = 0; k < c->nargs && k < c->out->nchildren; k++)
        FL_TRY(fl_vector_append_from(&c->out->children[k], c->args[k], i, err));
    return fl_vector_append_nested(c->out, 0, err);
}

static fl_status k_row(fl_fn_call *c, fl_error *err)
{
    return each_row(c, row_row, err);
}

/* ARRAY[a, b, ...] of nested values: the binder retypes to a list of a's type */
static bool r_list_ctor(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n == 0 || n > 64 || !fl_type_is_nested(&a[0]))
        return false;
    for (uint32_t k = 0; k < n; k++)
        at[k] = a[0];
    *r = fl_mk(FL_TYPE_LIST);
    return true;
}

static fl_status list_ctor_row(fl_fn_call *c, const fl_unified *u, uint32_t i, fl_error *err)
{
    (void)u;
    fl_vector *ch = &c->out->children[0];
    for (uint32_t k = 0; k < c->nargs; k++)
        FL_TRY(fl_vector_append_from(ch, c->args[k], i, err));
    return fl_vector_append_nested(c->out, (int64_t)ch->len, err);
}

static fl_status k_list_ctor(fl_fn_call *c, fl_error *err)
{
    return each_row(c, list_ctor_row, err);
}

/* ---- to_json ---- */

static bool r_to_json(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1)
        return false;
    at[0] = fl_is_unknown(&a[0]) ? fl_mk(FL_TYPE_STRING) : a[0];
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}

static fl_status to_json_row(fl_fn_call *c, const fl_unified *u, uint32_t i, fl_error *err)
{
    if (!fl_unified_is_valid(&u[0], i))
        return fl_vector_append_null(c->out, err);
    const fl_tz *tz = fl_eval_state_tz(c->state, c->env->time_zone, err);
    if (!tz)
        return err ? err->code : FL_EINVAL;
    char small[512];
    size_t need = fl_sql_json_value(c->args[0], i, tz, small, sizeof small);
    if (need <= sizeof small)
        return fl_vector_append_bytes(c->out, small, need, err);
    char *big = malloc(need);
    if (!big)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_sql_json_value(c->args[0], i, tz, big, need);
    fl_status rc = fl_vector_append_bytes(c->out, big, need, err);
    free(big);
    return rc;
}

static fl_status k_to_json(fl_fn_call *c, fl_error *err)
{
    return each_row(c, to_json_row, err);
}

#define NF(nm, r, k)                                                                               \
    {                                                                                              \
        .name = nm, .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r, .kernel = k,      \
        .handles_nulls = true                                                                      \
    }
static const fl_func funcs[] = {
    NF("__list_get", r_list_get, k_list_get),
    NF("__list_slice", r_slice, k_slice),
    NF("__map_get", r_map_get, k_map_get),
    NF("element_at", r_element_at, k_element_at),
    NF("__struct_field", r_struct_field, k_struct_field),
    NF("__list_any", r_list_any, k_list_any),
    NF("__list_all", r_list_any, k_list_all),
    NF("array_contains", r_contains, k_contains),
    NF("contains", r_contains, k_contains),
    NF("list_contains", r_contains, k_contains),
    NF("array_position", r_position, k_position),
    NF("map_keys", r_map_keys, k_map_keys),
    NF("map_values", r_map_values, k_map_values),
    NF("map", r_map_ctor, k_map_ctor),
    NF("__row", r_row, k_row),
    NF("__list", r_list_ctor, k_list_ctor),
    NF("to_json", r_to_json, k_to_json),
    NF("to_jsonb", r_to_json, k_to_json),
};
const fl_func_table fl_funcs_nested = {funcs, sizeof funcs / sizeof funcs[0]};
