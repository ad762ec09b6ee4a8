/*
 * misc.c - NULLIF, GREATEST, LEAST (NULLs ignored, as PostgreSQL),
 * ifnull/nvl (two-argument COALESCE), md5, sha256 (OpenSSL EVP), hash
 * (xxh64 of the value's bytes, as bigint), gen_random_uuid/uuid (random,
 * not deterministic), typeof/pg_typeof, raise_error(sqlstate, message)
 * (fails with that SQLSTATE, from floe/errcodes.h, as DuckDB's error()).
 */
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <xxhash.h>

#include "floe/errcodes.h"
#include "sql/func/func_internal.h"

static bool r_common_all(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n < 1)
        return false;
    fl_type t = a[0];
    for (uint32_t k = 1; k < n; k++)
        if (!fl_type_common(&t, &a[k], &t))
            return false;
    if (fl_is_unknown(&t))
        t = fl_mk(FL_TYPE_STRING);
    if (fl_type_is_nested(&t))
        return false;
    for (uint32_t k = 0; k < n; k++)
        at[k] = t;
    *r = t;
    return true;
}
static bool r_nullif(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !r_common_all(a, n, r, at))
        return false;
    return true;
}

static void copy_row(fl_vector *out, uint32_t i, const fl_unified *u, strout *so, fl_status *rc, fl_error *err)
{
    if (fl_type_is_varlen(out->type)) {
        size_t l;
        const uint8_t *p = ubytes(u, i, &l);
        *rc = strout_put(so, i, p, l, err);
    } else {
        size_t w = fl_type_width(out->type);
        memcpy(out->data + (size_t)i * w, u->base->data + (size_t)fl_unified_row(u, i) * w, w);
    }
}

static fl_status k_nullif(fl_fn_call *c, fl_error *err)
{
    fl_unified a, b;
    fl_vector_unify(c->args[0], &a);
    fl_vector_unify(c->args[1], &b);
    strout so;
    if (fl_type_is_varlen(c->out->type))
        strout_init_call(&so, c);
    fl_status rc = FL_OK;
    FOR_ROWS(c->sel, c->nrows, i, {
        if (rc != FL_OK)
            continue;
        if (!fl_unified_is_valid(&a, i) || (fl_unified_is_valid(&b, i) && fl_cmp_rows(&a, i, &b, i) == 0))
            rc = fl_out_null(c->out, i, err);
        else
            copy_row(c->out, i, &a, &so, &rc, err);
    });
    if (fl_type_is_varlen(c->out->type))
        strout_finish(&so, c->nrows);
    return rc;
}

static fl_status extreme(fl_fn_call *c, int sign, fl_error *err)
{
    fl_unified u[32];
    if (c->nargs > 32)
        return fl_fn_error(c, err, FL_ELIMIT, "too many arguments (at most 32)");
    for (uint32_t k = 0; k < c->nargs; k++)
        fl_vector_unify(c->args[k], &u[k]);
    strout so;
    if (fl_type_is_varlen(c->out->type))
        strout_init_call(&so, c);
    fl_status rc = FL_OK;
    FOR_ROWS(c->sel, c->nrows, i, {
        if (rc != FL_OK)
            continue;
        int best = -1;
        for (uint32_t k = 0; k < c->nargs; k++) {
            if (!fl_unified_is_valid(&u[k], i))
                continue;
            if (best < 0 || sign * fl_cmp_rows(&u[k], i, &u[best], i) > 0)
                best = (int)k;
        }
        if (best < 0)
            rc = fl_out_null(c->out, i, err);
        else
            copy_row(c->out, i, &u[best], &so, &rc, err);
    });
    if (fl_type_is_varlen(c->out->type))
        strout_finish(&so, c->nrows);
    return rc;
}
static fl_status k_greatest(fl_fn_call *c, fl_error *e) { return extreme(c, 1, e); }
static fl_status k_least(fl_fn_call *c, fl_error *e) { return extreme(c, -1, e); }

static fl_status k_ifnull(fl_fn_call *c, fl_error *err)
{
    fl_unified a, b;
    fl_vector_unify(c->args[0], &a);
    fl_vector_unify(c->args[1], &b);
    strout so;
    if (fl_type_is_varlen(c->out->type))
        strout_init_call(&so, c);
    fl_status rc = FL_OK;
    FOR_ROWS(c->sel, c->nrows, i, {
        if (rc != FL_OK)
            continue;
        if (fl_unified_is_valid(&a, i))
            copy_row(c->out, i, &a, &so, &rc, err);
        else if (fl_unified_is_valid(&b, i))
            copy_row(c->out, i, &b, &so, &rc, err);
        else
            rc = fl_out_null(c->out, i, err);
    });
    if (fl_type_is_varlen(c->out->type))
        strout_finish(&so, c->nrows);
    return rc;
}

/* ---- digests ---- */
static bool r_digest(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !(fl_is_string(&a[0]) || a[0].id == FL_TYPE_BINARY))
        return false;
    at[0] = a[0].id == FL_TYPE_BINARY ? a[0] : fl_mk(FL_TYPE_STRING);
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}
static fl_status digest(fl_fn_call *c, const EVP_MD *md, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    strout so;
    strout_init_call(&so, c);
    static const char hx[] = "0123456789abcdef";
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n;
        const uint8_t *s = ubytes(&u, i, &n);
        unsigned char h[EVP_MAX_MD_SIZE];
        unsigned int hl = 0;
        if (!EVP_Digest(s, n, h, &hl, md, NULL))
            return fl_fn_error(c, err, FL_EIO, "digest failed");
        uint8_t *dst;
        FL_TRY(strout_reserve(&so, hl * 2, &dst, err));
        for (unsigned k = 0; k < hl; k++) {
            dst[2 * k] = (uint8_t)hx[h[k] >> 4];
            dst[2 * k + 1] = (uint8_t)hx[h[k] & 15];
        }
        strout_commit(&so, i, hl * 2);
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}
static fl_status k_md5(fl_fn_call *c, fl_error *e) { return digest(c, EVP_md5(), e); }
static fl_status k_sha256(fl_fn_call *c, fl_error *e) { return digest(c, EVP_sha256(), e); }

static bool r_hash(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || fl_type_is_nested(&a[0]))
        return false;
    at[0] = fl_is_unknown(&a[0]) ? fl_mk(FL_TYPE_STRING) : a[0];
    *r = fl_mk(FL_TYPE_INT64);
    return true;
}
static fl_status k_hash(fl_fn_call *c, fl_error *err)
{
    (void)err;
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    bool var = fl_type_is_varlen(c->args[0]->type);
    size_t w = fl_type_width(c->args[0]->type);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n;
        const uint8_t *p;
        if (var)
            p = ubytes(&u, i, &n);
        else {
            n = w;
            p = u.base->data + (size_t)fl_unified_row(&u, i) * w;
        }
        OUTV(c->out, int64_t)[i] = (int64_t)XXH64(p, n, 0);
    });
    return FL_OK;
}

static bool r_uuid(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    (void)a, (void)at;
    if (n)
        return false;
    *r = fl_mk(FL_TYPE_UUID);
    return true;
}
static fl_status k_uuid(fl_fn_call *c, fl_error *err)
{
    FOR_ROWS(c->sel, c->nrows, i, {
        uint8_t *p = c->out->data + (size_t)i * 16;
        if (RAND_bytes(p, 16) != 1)
            return fl_fn_error(c, err, FL_EIO, "could not generate random values");
        p[6] = (uint8_t)((p[6] & 0x0F) | 0x40);
        p[8] = (uint8_t)((p[8] & 0x3F) | 0x80);
    });
    return FL_OK;
}

static bool r_typeof(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1)
        return false;
    at[0] = a[0];
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}
static fl_status k_typeof(fl_fn_call *c, fl_error *err)
{
    char b[128];
    fl_sql_type_name(c->args[0]->type, b, sizeof b);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, { FL_TRY(strout_put(&so, i, b, strlen(b), err)); });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

static bool r_raise(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2)
        return false;
    for (uint32_t k = 0; k < 2; k++) {
        if (!fl_is_unknown(&a[k]) && a[k].id != FL_TYPE_STRING)
            return false;
        at[k] = fl_mk(FL_TYPE_STRING);
    }
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}
/* Fails on its first row (strict: NULL arguments give NULL) with the code
 * given, which must be in the table and not a success/warning/no-data class. */
static fl_status k_raise(fl_fn_call *c, fl_error *err)
{
    fl_unified us, um;
    fl_vector_unify(c->args[0], &us);
    fl_vector_unify(c->args[1], &um);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t sn, mn;
        const uint8_t *s = ubytes(&us, i, &sn);
        const uint8_t *m = ubytes(&um, i, &mn);
        char code[6] = {0};
        memcpy(code, s, sn < 5 ? sn : 5);
        if (sn != 5 || !fl_sqlstate_find(code))
            return fl_fn_error_state(c, err, FL_EINVAL, "22023",
                                     "raise_error: \"%.*s\" is not a SQLSTATE floe raises",
                                     (int)(sn > 16 ? 16 : sn), (const char *)s);
        if (code[0] == '0' && (code[1] == '0' || code[1] == '1' || code[1] == '2'))
            return fl_fn_error_state(c, err, FL_EINVAL, "22023",
                                     "raise_error: SQLSTATE %s is not an error (class %.2s)", code,
                                     code);
        return fl_error_state(err, FL_EINVAL, code, "%.*s", (int)(mn > 900 ? 900 : mn),
                              (const char *)m);
    });
    return FL_OK;
}

#define SCALAR(nm, r, k) {.name = nm, .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r, .kernel = k}
#define SCALAR_N(nm, r, k)                                                                         \
    {.name = nm, .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r, .kernel = k, .handles_nulls = true}
static const fl_func funcs[] = {
    SCALAR_N("nullif", r_nullif, k_nullif),
    SCALAR_N("greatest", r_common_all, k_greatest),
    SCALAR_N("least", r_common_all, k_least),
    SCALAR_N("ifnull", r_nullif, k_ifnull),
    SCALAR_N("nvl", r_nullif, k_ifnull),
    SCALAR("md5", r_digest, k_md5),
    SCALAR("sha256", r_digest, k_sha256),
    SCALAR("hash", r_hash, k_hash),
    {.name = "gen_random_uuid",
     .kind = FL_FUNC_SCALAR,
     .deterministic = false,
     .resolve = r_uuid,
     .kernel = k_uuid},
    {.name = "uuid",
     .kind = FL_FUNC_SCALAR,
     .deterministic = false,
     .resolve = r_uuid,
     .kernel = k_uuid},
    SCALAR_N("pg_typeof", r_typeof, k_typeof),
    SCALAR_N("typeof", r_typeof, k_typeof),
    SCALAR("raise_error", r_raise, k_raise), /* folded: constant arguments fail at bind time */
};
const fl_func_table fl_funcs_misc = {funcs, sizeof funcs / sizeof funcs[0]};
