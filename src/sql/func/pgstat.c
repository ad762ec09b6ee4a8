/*
 * pgstat.c - PostgreSQL statistics and size-formatting functions that GUI
 * clients put in their catalog queries (DBeaver's index and table panels,
 * psql's \l+ and \dt+):
 *   - pg_size_pretty(bigint | numeric): PostgreSQL 15's units and rounding
 *     (src/backend/utils/adt/dbsize.c: bytes below 10240, then kB, MB, GB,
 *     TB, PB, each used below 20480 of it, values half-rounded away from 0);
 *   - pg_tablespace_location(oid): '' for pg_default (1663) and pg_global
 *     (1664), floe's only tablespaces; another OID is an error (42704) as
 *     in PostgreSQL, which fails to find its directory;
 *   - pg_stat_get_numscans / tuples_returned / tuples_fetched /
 *     tuples_inserted / tuples_updated / tuples_deleted / blocks_fetched /
 *     blocks_hit (oid): floe keeps no per-relation access counters, so they
 *     are 0, which is also what PostgreSQL answers for an OID it never
 *     counted (see src/sql/pgcat/README.md).
 * Registered from pgfunc.c's table (declarations in pgfunc.h).
 */
#include <stdio.h>

#include "sql/func/func_internal.h"
#include "sql/func/pgfunc.h"

bool fl_pg_r_size_pretty(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !(fl_is_integer(&a[0]) || a[0].id == FL_TYPE_DECIMAL || fl_is_unknown(&a[0])))
        return false;
    at[0] = fl_mk(FL_TYPE_INT64);
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}

static int64_t half_rounded(int64_t x)
{
    return (x + (x < 0 ? -1 : 1)) / 2;
}

/* PostgreSQL 15's pg_size_pretty(bigint) into buf. */
static size_t size_pretty(int64_t size, char *buf, size_t cap)
{
    static const struct {
        const char *name;
        int64_t limit;
        bool round;
        int bits;
    } units[] = {{"bytes", 10 * 1024, false, 0}, {"kB", 20 * 1024 - 1, true, 10},
                 {"MB", 20 * 1024 - 1, true, 20}, {"GB", 20 * 1024 - 1, true, 30},
                 {"TB", 20 * 1024 - 1, true, 40}, {"PB", 20 * 1024 - 1, true, 50}};
    const size_t nunits = sizeof units / sizeof units[0];
    for (size_t u = 0; u < nunits; u++) {
        uint64_t mag = size < 0 ? (uint64_t)0 - (uint64_t)size : (uint64_t)size;
        if (u + 1 == nunits || mag < (uint64_t)units[u].limit) {
            if (units[u].round)
                size = half_rounded(size);
            return (size_t)snprintf(buf, cap, "%lld %s", (long long)size, units[u].name);
        }
        int bits = units[u + 1].bits - units[u].bits - (units[u + 1].round ? 1 : 0) +
                   (units[u].round ? 1 : 0);
        size /= (int64_t)1 << bits;
    }
    return 0;
}

fl_status fl_pg_k_size_pretty(fl_fn_call *c, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        char buf[64];
        size_t l = size_pretty(UV(u, int64_t, i), buf, sizeof buf);
        FL_TRY(strout_put(&so, i, buf, l, err));
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

bool fl_pg_r_oid_int64(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !(fl_is_integer(&a[0]) || fl_is_unknown(&a[0])))
        return false;
    at[0] = fl_mk(FL_TYPE_INT64);
    *r = fl_mk(FL_TYPE_INT64);
    return true;
}

bool fl_pg_r_oid_text1(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !(fl_is_integer(&a[0]) || fl_is_unknown(&a[0])))
        return false;
    at[0] = fl_mk(FL_TYPE_INT64);
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}

fl_status fl_pg_k_zero_counter(fl_fn_call *c, fl_error *err)
{
    (void)err;
    FOR_ROWS(c->sel, c->nrows, i, { OUTV(c->out, int64_t)[i] = 0; });
    return FL_OK;
}

fl_status fl_pg_k_tablespace_location(fl_fn_call *c, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        int64_t oid = UV(u, int64_t, i);
        if (oid != 1663 && oid != 1664)
            return fl_fn_error(c, err, FL_ENOTFOUND, "tablespace with OID %lld does not exist",
                               (long long)oid);
        FL_TRY(strout_put(&so, i, "", 0, err));
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}
