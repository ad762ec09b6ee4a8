/*
 * window.c - registry entries of the window-only functions. The executor
 * (src/sql/exec/) computes them over sorted partitions; here they only
 * resolve so the binder knows their result types:
 *   row_number, rank, dense_rank, ntile -> bigint; percent_rank, cume_dist
 *   -> double precision; lag/lead(x [, offset [, default]]) and
 *   first_value/last_value/nth_value(x [, n]) -> the type of x.
 */
#include "sql/func/func_internal.h"

static bool r_rank(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    (void)a, (void)at;
    if (n != 0)
        return false;
    *r = fl_mk(FL_TYPE_INT64);
    return true;
}
static bool r_dist(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    (void)a, (void)at;
    if (n != 0)
        return false;
    *r = fl_mk(FL_TYPE_FLOAT64);
    return true;
}
static bool r_ntile(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !(fl_is_integer(&a[0]) || fl_is_unknown(&a[0])))
        return false;
    at[0] = fl_mk(FL_TYPE_INT64);
    *r = fl_mk(FL_TYPE_INT64);
    return true;
}
static bool r_value(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1)
        return false;
    at[0] = fl_is_unknown(&a[0]) ? fl_mk(FL_TYPE_STRING) : a[0];
    *r = at[0];
    return true;
}
static bool r_nth(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !(fl_is_integer(&a[1]) || fl_is_unknown(&a[1])))
        return false;
    at[0] = fl_is_unknown(&a[0]) ? fl_mk(FL_TYPE_STRING) : a[0];
    at[1] = fl_mk(FL_TYPE_INT64);
    *r = at[0];
    return true;
}
static bool r_lag(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n < 1 || n > 3)
        return false;
    fl_type t = fl_is_unknown(&a[0]) ? fl_mk(FL_TYPE_STRING) : a[0];
    if (n == 3 && !fl_type_common(&a[0], &a[2], &t))
        return false;
    at[0] = t;
    if (n >= 2) {
        if (!(fl_is_integer(&a[1]) || fl_is_unknown(&a[1])))
            return false;
        at[1] = fl_mk(FL_TYPE_INT64);
    }
    if (n == 3)
        at[2] = t;
    *r = t;
    return true;
}

#define WIN(nm, r) {.name = nm, .kind = FL_FUNC_WINDOW, .deterministic = true, .resolve = r}
static const fl_func funcs[] = {
    WIN("row_number", r_rank),    WIN("rank", r_rank),         WIN("dense_rank", r_rank),
    WIN("percent_rank", r_dist),  WIN("cume_dist", r_dist),    WIN("ntile", r_ntile),
    WIN("lag", r_lag),            WIN("lead", r_lag),          WIN("first_value", r_value),
    WIN("last_value", r_value),   WIN("nth_value", r_nth),
};
const fl_func_table fl_funcs_window = {funcs, sizeof funcs / sizeof funcs[0]};
